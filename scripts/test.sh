#!/usr/bin/env bash
# test.sh — the test command: installs what is missing, builds, runs the
# libFuzzer smoke run (scripts/fuzz-smoke.sh, about 40 s, when clang and its
# libFuzzer runtime are present; FUZZ_SMOKE=0 skips it), then the test suite
# (CPU only, host backend), whose last line is "N passed, N failed".
# Warnings are errors here (WERROR=1), whatever the tree.
set -euo pipefail
cd "$(dirname "$0")/.."
export WERROR=1
bash scripts/install-deps.sh
make -j"$(nproc)" dotfuzz
if [ "${FUZZ_SMOKE:-1}" != 0 ]; then
  if echo 'int LLVMFuzzerTestOneInput(const unsigned char*d, unsigned long n){return 0;}' |
      clang -fsanitize=fuzzer -x c - -o /tmp/dotfuzz-lf-probe.$$ >/dev/null 2>&1; then
    rm -f /tmp/dotfuzz-lf-probe.$$
    bash scripts/fuzz-smoke.sh
  else
    echo "test.sh: clang with libFuzzer not found: fuzz smoke run skipped"
  fi
fi
make -j"$(nproc)" test
