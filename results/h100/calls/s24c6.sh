#!/bin/bash
# session 24, call 6: collects call 4's default run (gpu-verify rss-collect)
set -u
cd "$(dirname "$0")/.."
cp gpu-new/dotfuzz-O dotfuzz
scripts/gpu-verify.sh rss-collect 570
date -u +%H:%M:%S
