#!/usr/bin/env bash
# test.sh — the test command: installs what is missing, builds, runs the
# test suite (CPU only, host backend). Prints "N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
make -j"$(nproc)" test
