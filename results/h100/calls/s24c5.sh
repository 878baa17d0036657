#!/bin/bash
# session 24, call 5: waits beside call 4's detached default run, printing its memory
set -u
T0=$(date +%s)
while [ $(( $(date +%s) - T0 )) -lt 570 ]; do sleep 30; done
tail -n 4 /tmp/dotfuzz-verify/rsslong/rss.tsv
date -u +%H:%M:%S
