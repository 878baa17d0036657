#!/usr/bin/env bash
# install-deps.sh — installs what dotfuzz needs to build and test, from
# Debian's packages, when it is missing. Safe to rerun: it installs nothing
# that is already there. The CUDA toolkit is optional (without nvcc the
# build is host-only); it is not installed here.
set -euo pipefail

need=()
have_header() { echo "#include <$1>" | cc -E -x c - >/dev/null 2>&1; }
command -v cc >/dev/null 2>&1 || need+=(gcc)
command -v make >/dev/null 2>&1 || need+=(make)
have_header zlib.h || need+=(zlib1g-dev)
have_header nettle/sha1.h || need+=(nettle-dev)
have_header criterion/criterion.h || need+=(libcriterion-dev)
have_header mpfr.h || need+=(libmpfr-dev)   # tests: MPFR is the independent exact oracle
command -v gnuplot >/dev/null 2>&1 || need+=(gnuplot-nox)   # dotfuzz report: plots (pngcairo, svg)
command -v xmllint >/dev/null 2>&1 || need+=(libxml2-utils)   # tests: the smoke JUnit XML is well-formed
command -v python3 >/dev/null 2>&1 || need+=(python3)   # tests: scripts/cpu-profile.py
command -v addr2line >/dev/null 2>&1 || need+=(binutils)   # scripts/cpu-profile.py
# `make libfuzzer` (scripts/fuzz-smoke.sh): clang and its libFuzzer runtime
command -v clang >/dev/null 2>&1 || need+=(clang)
if ! echo 'int LLVMFuzzerTestOneInput(const unsigned char*d, unsigned long n){return 0;}' |
    clang -fsanitize=fuzzer -x c - -o /tmp/dotfuzz-lf-probe.$$ >/dev/null 2>&1; then
  need+=(libclang-rt-dev)   # the runtime matching the default clang
fi
rm -f /tmp/dotfuzz-lf-probe.$$

if [ ${#need[@]} -eq 0 ]; then
  echo "install-deps: all build and test dependencies present"
  exit 0
fi
echo "install-deps: installing ${need[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${need[@]}"
