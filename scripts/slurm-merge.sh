#!/usr/bin/env bash
# slurm-merge.sh — the step after scripts/slurm-campaign.sh: merges the
# array's campaign directories ROOT/task-* into one (dotfuzz merge: stats
# summed, findings deduplicated, nothing rerun) and writes its report.
#
# Usage (chained after the array; afterany so that a failed task does not
# hold the merge of the others back):
#   jid=$(sbatch --parsable scripts/slurm-campaign.sh)
#   sbatch --dependency=afterany:$jid scripts/slurm-merge.sh
# or by hand, on any machine that sees ROOT (no GPU needed):
#   ROOT=/scratch/$USER/df1 bash scripts/slurm-merge.sh
#
# Environment (defaults in brackets):
#   ROOT      the campaigns' directory, as given to slurm-campaign.sh
#             [$SLURM_SUBMIT_DIR/dotfuzz-campaigns]
#   MERGED    the merged campaign directory, must not exist yet or be empty
#             [ROOT/merged]
#   DOTFUZZ   the executable [$SLURM_SUBMIT_DIR/dotfuzz if there, else on PATH]
# Report: MERGED/report/report.md, with plots when gnuplot is on PATH.
# Exit status: 0 merged and reported; 2 some task directory was not a
# readable campaign (the rest merged and reported) or nothing to merge;
# 3 MERGED or the report could not be written.
#
#SBATCH --job-name=dotfuzz-merge
#SBATCH --cpus-per-task=1
#SBATCH --time=00:30:00
#SBATCH --output=dotfuzz-merge-%j.out

set -euo pipefail

say() { printf 'slurm-merge: %s\n' "$*" >&2; }

here=${SLURM_SUBMIT_DIR:-$PWD}
ROOT=${ROOT:-$here/dotfuzz-campaigns}
MERGED=${MERGED:-$ROOT/merged}
DOTFUZZ=${DOTFUZZ:-$here/dotfuzz}
[[ -x $DOTFUZZ ]] || DOTFUZZ=$(command -v dotfuzz) ||
    { say "no dotfuzz executable: make one in $here, put it on PATH, or set DOTFUZZ"; exit 2; }

tasks=()
status=0
shopt -s nullglob
for d in "$ROOT"/task-*; do
    if [[ -f $d/campaign ]]; then
        tasks+=("$d")
    else
        say "$d holds no campaign (its task failed before starting?): left out"
        status=2
    fi
done
if ((${#tasks[@]} == 0)); then
    say "no campaign directory ROOT/task-* under $ROOT"
    exit 2
fi
if [[ -e $MERGED && -n $(ls -A "$MERGED") ]]; then
    say "$MERGED already exists and is not empty: remove it, or set MERGED to a new directory"
    exit 2
fi

say "merging ${#tasks[@]} campaign(s) into $MERGED"
rc=0
"$DOTFUZZ" merge "$MERGED" "${tasks[@]}" || rc=$?
if ((rc == 3)) || [[ ! -f $MERGED/campaign ]]; then
    say "dotfuzz merge failed with exit status $rc; no report"
    exit $((rc ? rc : 3))
fi
((rc == 0)) || status=$rc

report=("$DOTFUZZ" report "$MERGED")
command -v gnuplot >/dev/null || report+=(--no-plots)
rc=0
"${report[@]}" || rc=$?
if ((rc != 0)); then
    say "dotfuzz report failed with exit status $rc"
    exit "$rc"
fi
say "report: $MERGED/report/report.md"
exit "$status"
