#!/usr/bin/env bash
# quickstart.sh — the main job on a fresh machine: installs what building
# needs when it is missing (cc, make, zlib, nettle; none of the test tools),
# builds ./dotfuzz, and runs a short campaign over every kernel and family.
# It uses the GPU when one is present (backend cuda) and the host models
# otherwise (backend host); the first status line says which.
# Usage: scripts/quickstart.sh [extra dotfuzz run options], e.g. --time 5m
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --build-only
make -j"$(nproc)" dotfuzz
exec ./dotfuzz run --backend auto --time 60 "$@"
