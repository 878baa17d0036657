#!/bin/bash
# session 25: collects call 1's default run (gpu-verify rss-collect), waiting up to WAIT s
set -u
cd "$(dirname "$0")/.."
cp gpu-new/dotfuzz-T dotfuzz
scripts/gpu-verify.sh rss-collect ${1:-570}
cp /tmp/dotfuzz-verify/rsslong/rss.tsv $OUT/rss-partial.tsv
date -u +%H:%M:%S
