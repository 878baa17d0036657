#!/bin/bash
# session 25: waits SECONDS beside call 1's detached default run, keeping its memory samples so far
set -u
T0=$(date +%s)
while [ $(( $(date +%s) - T0 )) -lt $1 ]; do sleep 15; done
cp /tmp/dotfuzz-verify/rsslong/rss.tsv $OUT/rss-partial.tsv
tail -n 3 /tmp/dotfuzz-verify/rsslong/rss.tsv
date -u +%H:%M:%S
