#!/bin/bash
# session 25, call 1: f76c1a3 (T) on the GPU: env, then a default run
# (every kernel, cuda) started detached for 1830 s with its resident memory
# every 30 s (gpu-verify rss-start); waits beside it until 540 s into this call
set -u
cd "$(dirname "$0")/.."
T0=$(date +%s)
cp gpu-new/dotfuzz-T dotfuzz
export DOTFUZZ_COMMIT=f76c1a3
scripts/gpu-verify.sh env
scripts/gpu-verify.sh rss-start 1830
date -u +%H:%M:%S
while [ $(( $(date +%s) - T0 )) -lt ${1:-540} ]; do sleep 15; done
cp /tmp/dotfuzz-verify/rsslong/rss.tsv $OUT/rss-partial.tsv
tail -n 3 /tmp/dotfuzz-verify/rsslong/rss.tsv
date -u +%H:%M:%S
