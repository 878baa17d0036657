#!/usr/bin/env bash
# man-commands.sh — the COMMANDS section of dotfuzz.1, for help2man's
# --include: each command that `dotfuzz --help` lists, with the whole text of
# `dotfuzz help COMMAND`, so the man page carries every option. The command
# list is read from the binary, so a new command needs no edit here.
# Usage: dist/man-commands.sh ./dotfuzz > commands.h2m
set -euo pipefail
bin=${1:?usage: man-commands.sh DOTFUZZ}

# roff, verbatim: backslashes and hyphens escaped, no line read as a request
roff_verbatim() { sed -e 's/\\/\\e/g' -e 's/-/\\-/g' -e "s/^\\([.']\\)/\\\\\\&\\1/"; }

cmds=$("$bin" --help | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z-]*\)  .*/\1/p')
[ -n "$cmds" ] || { echo "man-commands: no commands in '$bin --help'" >&2; exit 1; }
echo "[COMMANDS]"
for c in $cmds; do
  echo ".SS $c"
  echo ".nf"
  "$bin" help "$c" | roff_verbatim
  echo ".fi"
done
