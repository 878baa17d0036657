#!/usr/bin/env bash
# identity.sh — two builds give the same runs: for every generator family
# (and all of them at once), the same seed and cases, their summary tables
# (but the timing line) and their finding files byte for byte. A change that
# should not change behaviour (a restructuring) is checked this way.
#
#   scripts/identity.sh OLD NEW [BACKEND [CASES [KERNELS]]]
#
# BACKEND host (default) or cuda; CASES per family (default 3000); KERNELS
# default: every kernel and mutant on host, the deterministic kernels on cuda
# (the others' results vary run to run there), each family run with the
# kernels whose element type it makes. On cuda a soft-error file names the
# block and thread whose report won the race to the slot, which varies run
# to run: those files are compared by count (the tables hold their kernels'
# counts), every other file byte for byte. Prints one line per family and
# IDENTICAL or DIFFERENT at the end; exits 0 when identical, 1 when
# different, 2 when a build is missing or a run fails to run.
set -uo pipefail
old=${1:?usage: identity.sh OLD NEW [BACKEND [CASES [KERNELS]]]}
new=${2:?usage: identity.sh OLD NEW [BACKEND [CASES [KERNELS]]]}
backend=${3:-host}
cases=${4:-3000}
det=shfl,shfl-f64acc,shfl-f64,fold,tournament,tree-hostsum,int-atomic
kernels=${5:-$([ "$backend" = host ] && echo all,mutants || echo "$det")}
for bin in "$old" "$new"; do
  [ -x "$bin" ] || { echo "identity.sh: $bin: not an executable" >&2; exit 2; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/dotfuzz-identity-XXXXXX")
trap 'rm -rf "$work"' EXIT

# The finding files of a run: name and SHA-1 of the bytes, sorted; on cuda
# the soft-error files as one line with their count.
files() {
  (cd "$1" 2>/dev/null && for f in *; do
    [ -f "$f" ] || continue
    if [ "$backend" = cuda ] && [ "${f#soft-error-}" != "$f" ]; then echo "soft-error-*"
    else echo "$f $(sha1sum <"$f" | cut -c1-40)"; fi
  done) | sort | uniq -c
}

families=$("$new" list | awk '/^families:/ { on = 1; next } on && NF > 1 && $1 ~ /^[0-9]+$/ { print $2 }')
# KERNELS' members that family $1 makes values for (NEW answers: a run of
# one case refuses a kernel, or a list with no kernel left, that the family
# has no values for); all: every one.
for_family() {
  [ "$1" = all ] && { echo "$kernels"; return; }
  local k out=
  for k in ${kernels//,/ }; do
    "$new" run --backend host --kernel "$k" --family "$1" --cases 1 --quiet \
      --corpus "$work/probe" >/dev/null 2>"$work/probe.err"
    # 0 or 1 ran a case; a refusal for the family's values leaves k out
    if [ $? -le 1 ] || ! grep -qE "has no .* values for kernel|no kernel of" "$work/probe.err"; then
      out+=${out:+,}$k
    fi
  done
  echo "$out"
}

same=1
for fam in all $families; do
  ks=$(for_family "$fam")
  [ -n "$ks" ] || { echo "$fam: no kernel it makes values for"; continue; }
  for b in old new; do
    bin=$([ $b = old ] && echo "$old" || echo "$new")
    "$bin" run --backend "$backend" --kernel "$ks" --family "$fam" --seed 11 \
        --cases "$cases" --watchdog 2 --save-precision all --save-bugs all --quiet \
        --corpus "$work/$fam-$b" >"$work/$fam-$b.txt" 2>"$work/$fam-$b.err"
    rc=$?
    echo "exit $rc" >>"$work/$fam-$b.txt"
    # 0 or 1 (a bug found) is a run; anything else is a run that never was
    if [ $rc -gt 1 ]; then
      echo "identity.sh: $bin ($fam) exited $rc: $(head -n 3 "$work/$fam-$b.err")" >&2
      exit 2
    fi
  done
  table() { grep -v ' cases in ' "$1" | sed "s|$work/$fam-[a-z]*|DIR|"; }
  if diff <(table "$work/$fam-old.txt") <(table "$work/$fam-new.txt") >"$work/diff" &&
     diff <(files "$work/$fam-old") <(files "$work/$fam-new") >>"$work/diff"; then
    echo "$fam: identical ($(find "$work/$fam-new" -type f 2>/dev/null | wc -l) finding files)"
  else
    echo "$fam: DIFFERENT"
    head -n 10 "$work/diff"
    same=0
  fi
done
[ "$same" = 1 ] && { echo IDENTICAL; exit 0; }
echo DIFFERENT
exit 1
