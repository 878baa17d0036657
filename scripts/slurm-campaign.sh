#!/usr/bin/env bash
# slurm-campaign.sh — scale-out: one dotfuzz campaign per GPU, as a Slurm job
# array. Task ID fuzzes with seed BASE+ID (the seed selects the PCG streams,
# so no two tasks draw the same cases) into ROOT/task-ID. A task that finds
# ROOT/task-ID already holding a campaign (requeued, preempted, or submitted
# again) continues it with `dotfuzz run --resume`.
#
# Usage:
#   sbatch scripts/slurm-campaign.sh                    # tasks 0-7, 1 GPU each
#   sbatch --array=0-31 --time=09:00:00 scripts/slurm-campaign.sh
#   ROOT=/scratch/$USER/df1 DURATION=8h sbatch scripts/slurm-campaign.sh
# then merge and report once every task has ended (afterany: a task that
# failed does not stop the merge of the others):
#   jid=$(sbatch --parsable scripts/slurm-campaign.sh)
#   sbatch --dependency=afterany:$jid scripts/slurm-merge.sh
# Outside Slurm, as plain bash (a workstation, the tests):
#   SLURM_ARRAY_TASK_ID=3 BACKEND=host DURATION=30s bash scripts/slurm-campaign.sh
#
# sbatch options on the command line override the #SBATCH lines below; keep
# --time above DURATION (the campaign stops itself after DURATION).
# Environment (sbatch passes it on; defaults in brackets):
#   ROOT      where the task directories go [$SLURM_SUBMIT_DIR/dotfuzz-campaigns]
#   BASE      seed of task 0 [1000]
#   DURATION  each session's length, dotfuzz run --time [1h]
#   CASES     stop at this many cases per campaign, over resumes [no limit]
#   BACKEND   cuda, host or auto [cuda]
#   KERNELS   dotfuzz run --kernel LIST [the backend's correct kernels]
#   JOBS      worker processes, dotfuzz run --jobs [one per visible GPU]
#   DOTFUZZ   the executable [$SLURM_SUBMIT_DIR/dotfuzz if there, else on PATH]
# Exit status: 0 when the campaign ran (bugs found or not: dotfuzz's 1),
# else dotfuzz's (2 usage error, 3 environment error) or 2 for a bad setting.
#
#SBATCH --job-name=dotfuzz
#SBATCH --array=0-7
#SBATCH --gres=gpu:1
#SBATCH --cpus-per-task=4
#SBATCH --time=01:15:00
#SBATCH --output=dotfuzz-%A_%a.out
#SBATCH --requeue

set -euo pipefail

say() { printf 'slurm-campaign: %s\n' "$*" >&2; }

here=${SLURM_SUBMIT_DIR:-$PWD}
id=${SLURM_ARRAY_TASK_ID:-}
if [[ ! $id =~ ^[0-9]+$ ]]; then
    say "SLURM_ARRAY_TASK_ID is '${id}', not a task number:" \
        "submit with sbatch (an array job), or set it"
    exit 2
fi
ROOT=${ROOT:-$here/dotfuzz-campaigns}
BASE=${BASE:-1000}
DURATION=${DURATION:-1h}
BACKEND=${BACKEND:-cuda}
if [[ ! $BASE =~ ^[0-9]+$ ]]; then
    say "BASE is '$BASE', not a non-negative integer"
    exit 2
fi
DOTFUZZ=${DOTFUZZ:-$here/dotfuzz}
[[ -x $DOTFUZZ ]] || DOTFUZZ=$(command -v dotfuzz) ||
    { say "no dotfuzz executable: make one in $here, put it on PATH, or set DOTFUZZ"; exit 2; }

dir=$ROOT/task-$id
seed=$((BASE + id))
limits=(--time "$DURATION" --quiet)
[[ -n ${CASES:-} ]] && limits+=(--cases "$CASES")
[[ -n ${JOBS:-} ]] && limits+=(--jobs "$JOBS")
mkdir -p "$ROOT"
if [[ -f $dir/campaign ]]; then
    say "task $id: resuming the campaign in $dir for $DURATION"
    cmd=("$DOTFUZZ" run --resume "$dir" "${limits[@]}")
else
    say "task $id: new campaign in $dir, seed $seed, backend $BACKEND, for $DURATION"
    cmd=("$DOTFUZZ" run --backend "$BACKEND" --seed "$seed" --out "$dir" "${limits[@]}")
    [[ -n ${KERNELS:-} ]] && cmd+=(--kernel "$KERNELS")
fi
gpu=${CUDA_VISIBLE_DEVICES:+, GPU $CUDA_VISIBLE_DEVICES}
say "task $id on ${HOSTNAME:-this host}$gpu: ${cmd[*]}"
rc=0
"${cmd[@]}" || rc=$?
case $rc in
0) say "task $id: done, no bug found; $dir" ;;
1) say "task $id: done, bugs found (see $dir/findings.jsonl)" ;;
*)
    say "task $id: dotfuzz run failed with exit status $rc (2 usage error, 3 environment error)"
    exit "$rc"
    ;;
esac
exit 0
