#!/usr/bin/env bash
# gpu-verify.sh — the GPU record: run on a machine with an NVIDIA GPU, from
# the repository root, after `make` (and `make example-plugin-cuda` for
# untrusted). Each mode writes its file under OUTDIR, its first line the
# command that made it; `all` makes the whole record and its README.
#
#   scripts/gpu-verify.sh all [SECONDS] [OLD]
#                       env, identity against OLD (when given), bandwidth, bench,
#                       hunt, campaign and untrusted (SECONDS each, default 300),
#                       sanitize, then readme: what results/<gpu>/ holds
#   scripts/gpu-verify.sh env        device, driver, CUDA, commit, date -> env.txt
#   scripts/gpu-verify.sh identity OLD [CASES]
#                       this build against an earlier build OLD: every family, the
#                       same seed, tables and finding files byte for byte, host and
#                       cuda backends (scripts/identity.sh) -> identity.txt
#   scripts/gpu-verify.sh bandwidth  every kernel at n = 2^28 (or its max_n) beside cuBLAS and a copy -> bandwidth.md
#   scripts/gpu-verify.sh bench      `dotfuzz bench` on shfl: the harness against the seeds' loop -> bench.txt
#   scripts/gpu-verify.sh hunt [S]   every mutant and correct kernel, ours vs seed 000's
#                                    oracle, S seconds a kernel at most (default 10), then the
#                                    hard mutants on seeds 2 and 3 -> hunt.md
#   scripts/gpu-verify.sh campaign [SECONDS] [DIR]
#                       a campaign (run --out DIR, with CAMPAIGN_OPTS, default
#                       --schedule 64) over every kernel, or the one in DIR resumed
#                       for SECONDS more, then its report (plots where gnuplot is)
#                       -> campaign/, campaign.tar.gz (DIR with its bug, crash and
#                       hang findings, and DIR.summary: unpack it to resume the
#                       campaign in another call)
#   scripts/gpu-verify.sh sanitize   compute-sanitizer memcheck and racecheck over every
#                                    kernel -> sanitizer.txt
#   scripts/gpu-verify.sh untrusted [SECONDS]
#                       kernels that crash, hang or lose their CUDA context, in every
#                       mode: a campaign over every kernel, every mutant and the
#                       faulting example plugin (examples/plugin/mydot_fault.cu,
#                       PLUGIN=build/...so), a plain run, and smoke; every crash, hang
#                       and lost-context finding replayed -> untrusted.txt
#   scripts/gpu-verify.sh readme     README.md: a row per file present (claim, commit,
#                                    command, file)
# More checks, outside `all`:
#   invariants   fold/tournament with --debug-invariants -> invariants.txt
#   rounds       fold, tournament and their mutants on both backends -> rounds.txt
#   soft         soft errors on the GPU reported as on the host; their cost table
#                (scripts/soft-cost.sh) -> soft.txt, soft-cost.md
#   compare [S]  a campaign judged by our oracle and counted by seed 000's -> oracle-vs-seed.txt
#   memcheck     memcheck on double-buffered batches -> memcheck-pipeline.txt
#   benchref     the CPU references on one core -> bench-ref.txt
#   fewterms [S] few-term cases (the order-set rule) on every correct kernel -> few-terms.txt
#   races        which compute-sanitizer tool sees which race mutant -> sanitizer-races.txt
#   triage [S]   a campaign over every mutant and one over the correct kernels, S
#                seconds each (default 120), triaged: distinct bugs per kernel
#                -> triage.txt
#   huge         lengths past 2^31: m-idx32 and the correct kernels that take them
#                (--huge; about 16 GiB of vectors a case) -> hunt-huge.md
#   workers [R] [S]  the default run on one GPU held to its share of the CPUs, with
#                the default workers and --jobs 1, 3, 4, and on every GPU, alternated
#                R times (default 2), S seconds each (default 15) -> workers.txt
#   scaling [R] [S]  the default run on one GPU (its share of the CPUs) and on
#                every GPU, alternated R times (default 2), S seconds each (default
#                60), and their ratio, over the runs and past their first S/3 s;
#                beside them the same CPU work on the host backend, one share
#                against all; SCALING_OPTS: more options for the GPU runs (as
#                "--gen split") -> scaling.txt
#   memshare     the host's memory per GPU's share of the CPUs: tools/host_mem.c
#                (`make host-mem`: a read pass, the references and the shfl model
#                over each thread's case of 2^26 pairs) on one share, then on
#                every share at once -> memshare.txt
#   baseline OLD [R] [S]  the default run of an earlier build OLD and of this one
#                on one GPU (its share of the CPUs), alternated R times (default 2),
#                S seconds each (default 15), and their ratio -> baseline.txt
#   packed OLD   fold and tournament in packed batches: model match, soft reports
#                where the host model puts them, identity against OLD -> packed.txt
#   rates        run's pace: the batched kernels and the default campaign; the batched
#                launchers against one case a launch; the example batched plugin
#                (PLUGIN) checked and benched -> run-rates.txt, batched-launchers.txt,
#                plugin-batch.txt, bench-plugin.txt
#   report [S]   a campaign of S seconds (default 60) over every kernel and mutant, and its
#                report as one page (`report --html`) -> report/report.html, report.md,
#                summary.txt, report-campaign.tar.gz; screenshot it with
#                scripts/html-check.sh report/report.html report/report.png
#   blas [S]     BLAS calls (strides of any sign, zero, n <= 0) on every kernel that
#                takes them for S seconds (default 60), the stride mutants under
#                hunt, the regression corpus replayed -> blas.txt
#   stridedcamp [S] [DIR]  a campaign of S seconds (default 600) of BLAS calls on shfl-blas,
#                the four cuBLAS peers and the example plugin's strided kernel (PLUGIN,
#                default build/mydot_batch.so), resumed where DIR holds one (its
#                commands listed first) -> blas-campaign.txt, strided-campaign.tar.gz
#   cost [S]     what --schedule and --sanitize cost: the same run with and without
#                each, S seconds a row (default 5) -> check-cost.txt
#   lfcompare [S] error-guided libFuzzer against plain random -> lf-vs-random.txt
#   lfmutant [K] libFuzzer finds a mutant from an empty corpus -> lf-mutant.txt
#   json         bandwidth, bench and hunt --json on the GPU, each document checked
#                (tests/json_out_check.py: every row ran, with its numbers) -> json-out.txt
#   rows ROUNDS BUILD...  each build's n = 2000 bench row, rotated, and their means
#                (comparing builds: only within one call on one machine) -> rows.txt
#
# OUTDIR is $OUT when set (the device tool), else results/local. The commit
# is `git rev-parse HEAD`, or DOTFUZZ_COMMIT where the tree has no .git.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
OUTDIR=${OUT:-results/local}
mkdir -p "$OUTDIR"
DF=./dotfuzz
WORK=${TMPDIR:-/tmp}/dotfuzz-verify
mkdir -p "$WORK"

# The soft_errors of a replay --json line, without the source line (the host
# model's lines are not the kernel's).
soft_fields() { soft_json <"$1"; }
soft_json() { grep -o '"soft_errors":\[.*\]' | sed 's/"line":[0-9]*,//g'; }

# HOTLINES: the 1-based lines, comma-separated, of the values HOTA and HOTB
# in a case of ones.
soft_case() {  # NAME TYPE KERNEL N BLOCK HOTLINES HOTA HOTB
  local name=$1 type=$2 kernel=$3 n=$4 block=$5 hot=$6 ha=$7 hb=$8 v
  for v in a b; do
    awk -v n="$n" -v hot="$hot" -v v="$([ $v = a ] && echo "$ha" || echo "$hb")" \
      'BEGIN { split(hot, h, ","); for (k in h) is[h[k]] = 1
               for (i = 1; i <= n; i++) print (i in is ? v : 1) }' >"$WORK/$name.$v"
  done
  $DF import "$WORK/$name.a" "$WORK/$name.b" --type "$type" --kernel "$kernel" --block "$block" \
      -o "$WORK/$name.case" >/dev/null
  local b
  for b in cuda host; do
    echo "\$ $DF replay --backend $b --no-meta --json $WORK/$name.case"
    $DF replay --backend $b --no-meta --json "$WORK/$name.case" >"$WORK/$name.$b.json" 2>/dev/null
    echo "exit $?: $(grep -o '"verdict":"[^"]*"' "$WORK/$name.$b.json")"
    soft_fields "$WORK/$name.$b.json"
  done
  if [ -n "$(soft_fields "$WORK/$name.cuda.json")" ] &&
     [ "$(soft_fields "$WORK/$name.cuda.json")" = "$(soft_fields "$WORK/$name.host.json")" ]; then
    echo "PASS $name: the GPU reports what the host backend reports"
  else
    echo "FAIL $name"; return 1
  fi
}

soft() {
  local log="$OUTDIR/soft.txt" rc=0
  {
    # int-atomic, n = 2000, block 256: 65536 * 65536 at index 1500 (block 5, thread 220)
    soft_case int-overflow i32 int-atomic 2000 256 1501 65536 65536 || rc=1
    # shfl, n = 4096, block 256: 3e38 * 4 overflows float at index 3000
    soft_case shfl-nonfinite f32 shfl 4096 256 3001 3e38 4 || rc=1
    # fold, n = 4096, block 256: cells 100 and 2148 (3e38 each) meet in round 1
    soft_case fold-nonfinite f32 fold 4096 256 101,2149 3e38 1 || rc=1
    # tournament, n = 4096, block 256: cells 100 and 101 meet in round 1 (thread 50)
    soft_case tournament-nonfinite f32 tournament 4096 256 101,102 3e38 1 || rc=1
  } >"$log" 2>&1
  cat "$log"
  scripts/soft-cost.sh "$OUTDIR/soft-cost.md" 28 >"$WORK/soft-cost.log" 2>&1 || rc=1
  tail -n 40 "$WORK/soft-cost.log"
  return $rc
}

# The commit, then the date, GPU, driver and CUDA a record file was made with.
commit_of() {
  echo "${DOTFUZZ_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)} ($(date -u +%Y-%m-%d)," \
    "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1 | sed 's/, / driver /')," \
    "CUDA $(nvcc --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p'))"
}

env_info() {
  {
    echo "\$ scripts/gpu-verify.sh env   (date, commit, nvidia-smi, nvcc --version, CPU)"
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit: ${DOTFUZZ_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv
    nvcc --version | tail -n 2
    echo "cpu: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
  } >"$OUTDIR/env.txt" 2>&1
  cat "$OUTDIR/env.txt"
}

bandwidth() {
  echo "\$ $DF bandwidth --markdown" >"$OUTDIR/bandwidth.md"
  $DF bandwidth --markdown >>"$OUTDIR/bandwidth.md" 2>&1
  local rc=$?
  cat "$OUTDIR/bandwidth.md"
  return $rc
}

# compute-sanitizer over every kernel, one run a tool (it follows the run's
# worker processes: each prints its own summary).
sanitize() {
  local log="$OUTDIR/sanitizer.txt" rc=0 tool r
  local R="$DF run --backend cuda --kernel all --cases 400 --max-n 3000 --seed 11 --quiet"
  echo "\$ compute-sanitizer --tool memcheck|racecheck --error-exitcode 99 $R --corpus DIR" >"$log"
  for tool in memcheck racecheck; do
    echo "\$ compute-sanitizer --tool $tool --error-exitcode 99 $R --corpus $WORK/san-$tool" >>"$log"
    rm -rf "$WORK/san-$tool"
    compute-sanitizer --tool $tool --error-exitcode 99 $R --corpus "$WORK/san-$tool" >"$WORK/san.out" 2>&1
    r=$?
    grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|Invalid|Race|hazard|cases in' "$WORK/san.out" | head -n 20 >>"$log"
    echo "exit $r" >>"$log"
    [ $r -eq 0 ] || rc=1
  done
  cat "$log"
  return $rc
}

invariants() {
  local log="$OUTDIR/invariants.txt" rc=0 k
  : >"$log"
  for k in fold tournament; do
    local cmd="$DF run --backend cuda --kernel $k --debug-invariants --cases 3000 --max-n 100000 --seed 12 --corpus $WORK/inv-$k"
    echo "\$ $cmd" >>"$log"
    $cmd >>"$log" 2>"$WORK/inv.err" || rc=1
    grep -E 'DONE|BUG|invariant' "$WORK/inv.err" | head -n 5 >>"$log"
  done
  cat "$log"
  return $rc
}

# Few-term cases over every correct kernel, cuBLAS's included: the
# order-set rule's exact verdicts on the GPU (0 bugs expected).
fewterms() {
  local secs=${1:-20} f="$OUTDIR/few-terms.txt"
  local cmd="$DF run --backend cuda --family few-terms --time ${secs}s --seed 7 --quiet --corpus $WORK/ft"
  { echo "\$ $cmd"; echo "commit: $(commit_of)"; } >"$f"
  rm -rf "$WORK/ft"
  $cmd >>"$f" 2>&1
  local rc=$?
  echo "exit $rc" >>"$f"
  cat "$f"
  [ $rc -eq 0 ]
}

# One run of CMD recorded in FILE under OUTDIR (corpus WORK/NAME): the
# command and commit, the summary without BUG and pulse lines, its exit
# status, then the first five BUG lines. Exit 1 (bugs found) is a finding
# the record shows, not a failure.
run_record() {
  local f="$OUTDIR/$1" name=$2 cmd=$3
  { echo "\$ $cmd"; echo "commit: $(commit_of)"; } >"$f"
  rm -rf "$WORK/$name"
  $cmd 2>&1 | grep -v 'pulse cases' >"$WORK/$name.log"
  local rc=${PIPESTATUS[0]}
  grep -v '^BUG' "$WORK/$name.log" >>"$f"
  echo "exit $rc" >>"$f"
  echo "bug lines:" >>"$f"
  grep '^BUG' "$WORK/$name.log" | head -n 5 >>"$f"
  cat "$f"
  [ $rc -le 1 ]
}

# The tensor-core dots of low-precision data (and half2-f16, summed in f16)
# against their declared arithmetic: bugs, and how many results equal the host model bit for bit.
lowp() {
  run_record lowp.txt lowp "$DF run --backend cuda --kernel mma-f16,mma-bf16,mma-e4m3,wgmma-e4m3,wgmma-e4m3-promoted,half2-f16 --time ${1:-60}s --save-precision none --corpus $WORK/lowp"
}

# The plain wgmma E4M3 chain alone, long enough for a million cases held
# to its host model bit for bit.
wgmma() {
  run_record wgmma.txt wgmma "$DF run --backend cuda --kernel wgmma-e4m3 --time ${1:-90}s --seed 7 --save-precision none --corpus $WORK/wgmma"
}

# dotfuzz probe on each tensor-core dot: its arithmetic as measured beside
# its declaration, timed, then the same as JSON.
probe() {
  local f="$OUTDIR/probe.txt" k
  local ks="mma-f16 mma-bf16 mma-e4m3 wgmma-e4m3 wgmma-e4m3-promoted"
  { echo "\$ $DF probe --backend cuda --kernel K   (K: ${ks// /, }; each timed, then with --json)"
    echo "commit: $(commit_of)"; } >"$f"
  for k in $ks; do
    local t0 rc
    t0=$(date +%s%N)
    $DF probe --backend cuda --kernel "$k" >>"$f" 2>&1
    rc=$?
    echo "exit $rc, $((($(date +%s%N) - t0) / 1000000)) ms" >>"$f"
    $DF probe --backend cuda --kernel "$k" --json >>"$f" 2>&1
  done
  cat "$f"
}

# fp8 accumulation declared as fp32 against declared as it is: cuBLASLt's
# fp8 matmul read as dots, promoted partial sums and fast accumulation (the
# mutant m-fp8-fast-accum), and the plain wgmma chain declared fp32 (the
# mutant m-wgmma-fp32): the mutants' bugs are the finding.
fp8() {
  run_record cublaslt.txt lt "$DF run --backend cuda --kernel cublaslt-e4m3-promoted,m-fp8-fast-accum,m-wgmma-fp32 --time ${1:-60}s --seed 1 --save-precision none --corpus $WORK/lt"
}

# How soon fp8 accumulation declared fp32 is a bug at K >= 4096: each
# mutant alone for 10 s, every output line stamped with the seconds since
# the start when it is read (an upper bound on when its case was judged),
# and the first bug line whose n is 4096 or more.
fp8long() {
  local f="$OUTDIR/fp8-k4096.txt" m
  local R="$DF run --backend cuda --time 10s --seed 1 --save-precision none"
  { echo "\$ $R --kernel M --corpus DIR   (M: m-wgmma-fp32, m-fp8-fast-accum; lines stamped when read)"
    echo "commit: $(commit_of)"; } >"$f"
  for m in m-wgmma-fp32 m-fp8-fast-accum; do
    local t0; t0=$(date +%s.%N)
    $R --kernel $m --corpus "$WORK/k4096-$m" 2>&1 |
      T0=$t0 python3 -c 'import os, sys, time
t = float(os.environ["T0"])
for line in sys.stdin:
    print("%.3f %s" % (time.time() - t, line), end="")' >"$WORK/k4096-$m.log"
    echo "$m: $(grep -c ' BUG ' "$WORK/k4096-$m.log") bugs in 10 s; first at n >= 4096:" >>"$f"
    awk '$2 == "BUG" { split($4, a, "="); if (a[2] + 0 >= 4096) { print "  after " $1 " s: " substr($0, index($0, "BUG")); exit } }' "$WORK/k4096-$m.log" >>"$f"
  done
  cat "$f"
}

# The vendor peers of low-precision data over a long run: cublasDotEx on
# f16 and bf16, cuBLASLt's promoted fp8 matmul.
peers() {
  run_record peers.txt peers "$DF run --backend cuda --kernel cublas-hdot,cublas-bfdot,cublaslt-e4m3-promoted --time ${1:-540}s --seed 5 --save-precision none --corpus $WORK/peers"
}

# Distinct bugs per mutant on the GPU: a campaign over every mutant and one
# over the correct kernels, SECONDS each, each triaged (reproducers
# minimized on cuda); a row per kernel with a bug: bug findings, distinct
# bugs (1 expected for a mutant, 0 rows for the correct kernels), their
# signatures and classes -> triage.txt
triage() {
  local secs=${1:-120} f="$OUTDIR/triage.txt" set name
  { echo "\$ $DF run --backend cuda --kernel mutants|all --time ${secs}s --seed 7 --quiet --out WORK/DIR; $DF triage --backend cuda WORK/DIR"
    echo "commit: $(commit_of)"; } >"$f"
  for set in mutants all; do
    name=triage-$set
    rm -rf "${WORK:?}/$name"
    $DF run --backend cuda --kernel $set --time "${secs}s" --seed 7 --quiet --out "$WORK/$name" \
      >"$WORK/$name.log" 2>&1
    echo "== --kernel $set: run exit $?" >>"$f"
    $DF triage --backend cuda "$WORK/$name" >"$WORK/$name.txt" 2>"$WORK/$name.err"
    echo "triage exit $?" >>"$f"
    head -n 1 "$WORK/$name.txt" | sed "s|$WORK|WORK|g" >>"$f"
    awk 'NR > 2 && length($1) == 12 && $1 ~ /^[0-9a-f]+$/ { n[$2]++; c[$2] += $4; s[$2] = s[$2] (s[$2] ? " " : "") $1 " (" $3 ")" }
         END { printf "%-24s %9s %14s  %s\n", "kernel", "findings", "distinct bugs", "signature(s)";
               for (k in n) printf "%-24s %9d %14d  %s\n", k, c[k], n[k], s[k] }' "$WORK/$name.txt" |
      { read -r h; echo "$h"; sort; } >>"$f"
    grep '^a key holding' "$WORK/$name.txt" >>"$f"
  done
  cat "$f"
}

# Which compute-sanitizer tool sees which race: the latent race mutants, a
# shared-memory race (m-no-sync), a lost-update race (m-nonatomic) and a
# correct kernel, each tool in run --sanitize's pass.
races() {
  local f="$OUTDIR/sanitizer-races.txt" t
  local R="$DF run --backend cuda --kernel m-zero-inside,m-no-fence,m-shfl-divergent,m-no-sync,m-nonatomic,shfl --cases 300 --max-n 5000 --seed 3 --quiet --save-bugs none --save-precision none --sanitize-cases 4"
  { echo "\$ $R --corpus DIR --sanitize TOOL   (TOOL: memcheck, racecheck, synccheck, initcheck)"
    echo "commit: $(commit_of)"; } >"$f"
  for t in memcheck racecheck synccheck initcheck; do
    local s0=$SECONDS
    echo "== $t" >>"$f"
    $R --corpus "$WORK/san-$t" --sanitize $t >>"$f" 2>&1
    echo "exit $? in $((SECONDS - s0)) s" >>"$f"
  done
  cat "$f"
}

# The cost of the schedule and sanitizer checks: cases/s of one run with
# each setting, beside the run without. --sanitize's pass comes after the
# run, so its rows are the whole command's cases over its wall time.
cost() {
  local secs=${1:-5} f="$OUTDIR/check-cost.txt" s
  local R="$DF run --backend cuda --kernel shfl,atomic-block,cublas-sdot --seed 1 --quiet --save-bugs none --save-precision none"
  { echo "\$ $R --time ${secs}s --schedule N --corpus DIR   (N: 0 16 4 1)"
    echo "commit: $(commit_of)"
    echo "\$ $R --cases C --corpus DIR [--sanitize TOOL]   (C: what --schedule 0 ran in ${secs} s)"; } >"$f"
  local base=0
  for s in 0 16 4 1; do
    rm -rf "$WORK/cost"
    $R --time "${secs}s" --schedule $s --corpus "$WORK/cost" >"$WORK/cost.log" 2>&1
    local line; line=$(first "$WORK/cost.log" 'cases in')
    echo "schedule $s: $line" >>"$f"
    [ "$s" = 0 ] && base=$(echo "$line" | sed -E 's/^dotfuzz run: ([0-9]+) cases.*/\1/')
  done
  for t in none memcheck racecheck; do
    rm -rf "$WORK/cost"
    local t0; t0=$(date +%s.%N)
    if [ "$t" = none ]; then
      $R --cases "$base" --corpus "$WORK/cost" >"$WORK/cost.log" 2>&1
    else
      $R --cases "$base" --corpus "$WORK/cost" --sanitize $t >"$WORK/cost.log" 2>&1
    fi
    local rc=$? t1; t1=$(date +%s.%N)
    awk -v t="$t" -v n="$base" -v a="$t0" -v b="$t1" -v rc=$rc \
      'BEGIN { printf "sanitize %s: %d cases in %.1f s wall, %.0f cases/s, exit %d\n", t, n, b - a, n / (b - a), rc }' >>"$f"
  done
  cat "$f"
}

# Lengths past 2^31 (--huge): m-idx32 (32-bit indexing) caught, and the
# correct kernels that take such lengths clean on them (about 16 GiB of
# vectors a case; a minute and a half each to make and reference).
huge() {
  local f="$OUTDIR/hunt-huge.md"
  local cmd="$DF hunt --backend cuda --kernel m-idx32,cublas-sdot,shfl --huge --time 0 --cases 17 --no-batched --markdown"
  { echo "\$ $cmd"; echo "commit: $(commit_of)"; } >"$f"
  $cmd >>"$f" 2>&1
  local rc=$?
  echo "exit $rc" >>"$f"
  cat "$f"
  return $rc
}

# The pace a user gets and its checks: each batched built-in kernel and the
# default campaign under run (run-rates.txt); the batched launchers against
# one case a launch (batched-launchers.txt); the example batched plugin
# (PLUGIN, default build/mydot_batch.so: make example-plugin-cuda), its two
# forms with BLAS calls (plugin-batch.txt) and its bench (bench-plugin.txt).
rates() {
  local plugin=${PLUGIN:-build/mydot_batch.so} q="--save-precision none --quiet" k rc=0
  local r="$DF run --backend cuda --seed 1 $q --save-bugs none --corpus $WORK/rates"
  { echo "\$ $DF run --backend cuda [--kernel K] --time 3s|10s|5s --seed 1 $q --save-bugs none --corpus DIR   (K: each kernel alone; none: the default campaign; shfl with --max-n 2000)"
    echo "commit: $(commit_of)"
    for k in atomic-block int-atomic tree-hostsum shfl; do echo "$k $($r --kernel $k --time 3s 2>&1 | grep 'cases in')"; done
    echo "default $($r --time 10s 2>&1 | grep 'cases in')"
    echo "shfl max-n 2000 $($r --kernel shfl --max-n 2000 --time 5s 2>&1 | grep 'cases in')"
  } >"$OUTDIR/run-rates.txt"
  { echo "\$ $DF run --backend cuda --kernel int-atomic,tree-hostsum --seed 1 --cases 20000 --schedule 1 --meta-every 0 ...; the same four kernels at --batch 1 and 256, tables compared; atomic-block,m-claims-det --schedule 8"
    echo "commit: $(commit_of)"
    $DF run --backend cuda --kernel int-atomic,tree-hostsum --seed 1 --cases 20000 --schedule 1 --meta-every 0 --save-bugs all $q --corpus $WORK/sched 2>&1 | sed -n 1,4p
    for b in 1 256; do $DF run --backend cuda --kernel int-atomic,tree-hostsum,m-int32-acc,m-pow2-tree --seed 11 --cases 5000 --batch $b --save-precision all --save-bugs all --quiet --corpus $WORK/bv$b >"$WORK/bv$b.txt" 2>&1; done
    diff <(grep -v ' cases in ' "$WORK/bv1.txt" | sed "s|$WORK/bv1|D|") <(grep -v ' cases in ' "$WORK/bv256.txt" | sed "s|$WORK/bv256|D|") && echo "batch 1 and 256: same tables"
    $DF run --backend cuda --kernel atomic-block,m-claims-det --seed 1 --cases 20000 --schedule 8 --save-bugs all $q --corpus $WORK/ab 2>&1 | sed -n 1,4p
  } >"$OUTDIR/batched-launchers.txt" || rc=1
  { echo "\$ $DF run --backend cuda --kernel-lib $plugin --kernel mydot-batch,mydot-batch-blas --time 30s --seed 3 --save-bugs new $q --corpus DIR [--batch 1 --time 10s]"
    echo "commit: $(commit_of)"
    $DF run --backend cuda --kernel-lib "$plugin" --kernel mydot-batch,mydot-batch-blas --time 30s --seed 3 --save-bugs new $q --corpus $WORK/mb 2>&1 | sed -n 1,4p
    $DF run --backend cuda --kernel-lib "$plugin" --kernel mydot-batch,mydot-batch-blas --time 10s --batch 1 --seed 3 --save-bugs new $q --corpus $WORK/mb1 2>&1 | sed -n 1,4p
  } >"$OUTDIR/plugin-batch.txt" || rc=1
  { echo "\$ $DF bench --backend cuda --kernel-lib $plugin --kernel mydot-batch --time 3"; echo "commit: $(commit_of)"
    $DF bench --backend cuda --kernel-lib "$plugin" --kernel mydot-batch --time 3 2>&1 | grep -v '^dotfuzz run: skipping'; } >"$OUTDIR/bench-plugin.txt" || rc=1
  cat "$OUTDIR/run-rates.txt" "$OUTDIR/batched-launchers.txt" "$OUTDIR/plugin-batch.txt"
  return $rc
}

# The GPUs here (GPUS), the CPUs (CPUS), a GPU's share of them (SHARE)
# and taskset's list for that share (MINE): one GPU run as on a host of
# its own.
gpu_share() {
  GPUS=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU'); CPUS=$(nproc)
  SHARE=$(( CPUS / (GPUS > 0 ? GPUS : 1) )); MINE=$(share_cpus 0)
}

# GPU $1's share of the CPUs (after gpu_share), as taskset -c takes it.
share_cpus() { echo "$(( $1 * SHARE ))-$(( ($1 + 1) * SHARE - 1 ))"; }

# The "cases in" line of a run (the command after DIR, its corpus DIR made
# afresh): on GPU 0 held to MINE, or on every GPU.
run_one_gpu() { local d=$1; shift; rm -rf "$d"; CUDA_VISIBLE_DEVICES=0 taskset -c "$MINE" "$@" --corpus "$d" 2>&1 | grep 'cases in' | tr '\n' ' '; }
run_all_gpus() { local d=$1; shift; rm -rf "$d"; "$@" --corpus "$d" 2>&1 | grep 'cases in' | tr '\n' ' '; }

# Workers a GPU: the default run on one GPU held to the CPUs a GPU has
# (taskset: as on a host of one GPU), with the default workers (two where
# that is 16 CPUs or more) and with --jobs 1, 3 and 4; where there are
# more GPUs, on all of them with the default and with four a GPU;
# alternated ROUNDS times (default 2), S seconds each (default 15).
workers() {
  local r="$DF run --backend cuda --time ${2:-15}s --seed 1 --save-precision none --save-bugs none --quiet" i j
  gpu_share
  { echo "\$ [CUDA_VISIBLE_DEVICES=0 taskset -c $MINE] $r [--jobs J] --corpus DIR   (alternated, ${1:-2} rounds)"
    echo "commit: $(commit_of); $GPUS GPU(s), $CPUS CPUs"
    for i in $(seq "${1:-2}"); do
      echo "one GPU, $SHARE cores, default: $(run_one_gpu "$WORK/workers" $r)"
      for j in 1 3 4; do
        echo "one GPU, $SHARE cores, --jobs $j: $(run_one_gpu "$WORK/workers" $r --jobs $j)"
      done
      if [ "$GPUS" -gt 1 ]; then
        echo "$GPUS GPUs, $CPUS cores, default: $(run_all_gpus "$WORK/workers" $r)"
        echo "$GPUS GPUs, $CPUS cores, --jobs $(( 4 * GPUS )): $(run_all_gpus "$WORK/workers" $r --jobs $(( 4 * GPUS )))"
      fi
    done
  } >"$OUTDIR/workers.txt"
  cat "$OUTDIR/workers.txt"
}

# A run's rate from its log: "WHOLE PAST", the whole run's (its summary
# line) and the one past its first W seconds (its status lines: the cases
# done from the first line at W s or later to the last, over the seconds
# between them), which leaves out the first seconds' faulting in of the
# run's memory.
log_rates() {
  local whole past
  whole=$(grep ' cases in ' "$1" | sed 's/.*(\([0-9]*\) cases\/s).*/\1/' | head -n 1)
  past=$(tr '\r' '\n' <"$1" | awk -v W="$2" '
    /^#[0-9]+\t.* elapsed: [0-9]+s/ { n = substr($1, 2) + 0; t = $NF; sub(/s$/, "", t); t += 0
                                      if (t >= W && !seen) { n0 = n; t0 = t; seen = 1 }
                                      n1 = n; t1 = t }
    END { printf "%d", (seen && t1 > t0) ? (n1 - n0) / (t1 - t0) : 0 }')
  echo "${whole:-0} $past"
}

# The CPU a run took, from bash's `time` (its TIMEFORMAT "%R %U %S": wall,
# user and system seconds, the reaped children's) and its cases C: "CPUs
# busy B, cases a CPU second K" (0 for a run that took no time).
cpu_use() {
  awk -v c="$4" -v r="$1" -v u="$2" -v s="$3" \
    'BEGIN { printf "CPUs busy %.1f, cases a CPU second %.0f", (r > 0 ? (u + s) / r : 0),
                    (u + s > 0 ? c / (u + s) : 0) }'
}

# The cases of a log's summary line (0 where it has none).
log_cases() { awk '/ cases in / { print $3; exit }' "$1" | grep . || echo 0; }

# One run of "$@" (its status lines kept: no --quiet) into $1.log, past
# $2 seconds: "R cases/s, past W s: P cases/s; CPUs busy B, cases a CPU
# second K" (cpu_use).
run_rates() {
  local d=$1 w=$2 t; shift 2
  rm -rf "$d"
  t=$( { TIMEFORMAT='%R %U %S'; time "$@" --corpus "$d" >"$d.log" 2>&1; } 2>&1 )
  set -- $(log_rates "$d.log" "$w")
  echo "$1 cases/s, past $w s: $2 cases/s; $(cpu_use $t "$(log_cases "$d.log")")"
}

# The same CPU work with no GPU (the host backend, which runs each kernel's
# model where the GPU would run it): one process on each of $3 GPUs'
# shares of the CPUs at once; the sums of their rates, as run_rates.
run_host_shares() {
  local d=$1 w=$2 n=$3 g t; shift 3
  rm -f "$d"[0-9]*.log
  t=$( { TIMEFORMAT='%R %U %S'; time {
    for g in $(seq 0 $(( n - 1 ))); do
      rm -rf "$d$g"
      taskset -c "$(share_cpus "$g")" "$@" --corpus "$d$g" >"$d$g.log" 2>&1 &
    done
    wait; }; } 2>&1 )
  for g in $(seq 0 $(( n - 1 ))); do echo "$(log_rates "$d$g.log" "$w") $(log_cases "$d$g.log")"; done |
    awk -v W="$w" '{ a += $1; p += $2; c += $3 } END { printf "%d cases/s, past %d s: %d cases/s %d\n", a, W, p, c }' |
    { read -r a _ _ _ _ p _ c; echo "$a cases/s, past $w s: $p cases/s; $(cpu_use $t "$c")"; }
}

# The default run on one GPU held to the CPUs a GPU has (taskset) and on
# every GPU, alternated ROUNDS times (default 2), S seconds each (default
# 60), and the ratio of their means, over the whole runs and past their
# first S/3 seconds; beside them the host's own scaling of the same CPU work
# from one share of the CPUs to all (run_host_shares), which bounds a run
# whose CPUs are its limit; and for each, the CPUs it kept busy and the
# cases it made a CPU second (cpu_use): where those fall from one share to
# all, each core does less work on the whole host than on its share.
scaling() {
  local s=${2:-60} i
  local r="$DF run --time ${s}s --seed 1 --save-precision none --save-bugs none" w=$(( s / 3 ))
  local g="--backend cuda${SCALING_OPTS:+ $SCALING_OPTS}"
  gpu_share
  { echo "\$ [CUDA_VISIBLE_DEVICES=0 taskset -c $MINE] $r $g --corpus DIR   (alternated, ${1:-2} rounds; rates over the run and past its first $w s, from its status lines)"
    echo "\$ taskset -c SHARE $r --backend host --corpus DIR   (one process, then one on each GPU's share at once)"
    echo "commit: $(commit_of); $GPUS GPU(s), $CPUS CPUs"
    for i in $(seq "${1:-2}"); do
      echo "one GPU, $SHARE cores: $(run_rates "$WORK/scaling" $w env CUDA_VISIBLE_DEVICES=0 taskset -c "$MINE" $r $g)"
      echo "$GPUS GPUs, $CPUS cores: $(run_rates "$WORK/scaling" $w $r $g)"
      echo "no GPU, $SHARE cores: $(run_host_shares "$WORK/scaling-host" $w 1 $r --backend host)"
      echo "no GPU, $GPUS x $SHARE cores: $(run_host_shares "$WORK/scaling-host" $w "$GPUS" $r --backend host)"
    done
  } >"$OUTDIR/scaling.txt"
  awk -F': ' '/cases\/s, past/ { split($2, v, " "); split($3, q, " ")
                   k = $1 ~ /^one/ ? "o" : $1 ~ /GPUs,/ ? "a" : $1 ~ / x / ? "h" : "h1"
                   W[k] += v[1]; P[k] += q[1]; N[k]++
                   if (match($0, /CPUs busy [0-9.]+/)) B[k] += substr($0, RSTART + 10, RLENGTH - 10)
                   if (match($0, /a CPU second [0-9]+/)) K[k] += substr($0, RSTART + 13, RLENGTH - 13) }
       function line(what, i, j) { if (N[i] && N[j] && W[j] && P[j])
         printf "%s: %.0f / %.0f = %.2f x (%.0f%% of linear), past the first seconds %.0f / %.0f = %.2f x (%.0f%%)\n", what,
           W[i] / N[i], W[j] / N[j], W[i] / W[j] * N[j] / N[i], 100 * W[i] / W[j] * N[j] / N[i] / G,
           P[i] / N[i], P[j] / N[j], P[i] / P[j] * N[j] / N[i], 100 * P[i] / P[j] * N[j] / N[i] / G }
       function cpu(what, i, j) { if (N[i] && N[j] && K[j])
         printf "%s: CPUs busy %.1f and %.1f, cases a CPU second %.0f and %.0f (%.2f x)\n", what,
           B[j] / N[j], B[i] / N[i], K[j] / N[j], K[i] / N[i], K[i] / K[j] * N[j] / N[i] }
       END { line("scaling over " G " GPUs", "a", "o"); line("the CPU work alone, one share against " G, "h", "h1")
             cpu("the CPU, one GPU against " G, "a", "o"); cpu("the CPU alone, one share against " G, "h", "h1") }' \
    G="$GPUS" "$OUTDIR/scaling.txt" >>"$OUTDIR/scaling.txt"
  cat "$OUTDIR/scaling.txt"
}

# The host's memory under the CPU work of one GPU's share of the CPUs, the
# share alone and every share at once (tools/host_mem.c, a thread a CPU of
# the share): where a share's rows are slower beside the others, the shares
# contend for the memory, which the default run's scaling over GPUs meets
# (docs/performance.md).
memshare() {
  local f="$OUTDIR/memshare.txt" g
  gpu_share
  [ -x build/tools/host-mem ] || make -s NVCC= host-mem >/dev/null || return 1
  { echo "\$ taskset -c SHARE build/tools/host-mem $SHARE   (one share, then each of $GPUS at once)"
    echo "commit: $(commit_of); $GPUS GPU(s), $CPUS CPUs"
    echo "== one share ($MINE) alone"
    taskset -c "$MINE" build/tools/host-mem "$SHARE" 2>&1
    for g in $(seq 0 $(( GPUS - 1 ))); do
      taskset -c "$(share_cpus "$g")" build/tools/host-mem "$SHARE" >"$WORK/memshare$g.txt" 2>&1 &
    done
    wait
    for g in $(seq 0 $(( GPUS - 1 ))); do
      echo "== share $g of $GPUS at once"; cat "$WORK/memshare$g.txt"
    done
  } >"$f"
  # each block's rows: the "at once" GB/s (all the share's threads) of the
  # read pass and the references, alone against the shares at once
  awk -v G="$GPUS" '/^== one share/ { b = "one" } /^== share/ { b = "all" }
       /^(read|references) / { v = $0; sub(/.* at once +[0-9.]+ s +/, "", v); split(v, x, " ")
                               k = $1; if (b == "one") A[k] = x[1]; else { S[k] += x[1]; N[k]++ } }
       END { for (k in A) if (N[k]) printf "%s over a share'"'"'s threads: %.1f GB/s alone, %.1f a share with %d at once (%.2f x)\n",
                                          k, A[k], S[k] / N[k], N[k], S[k] / N[k] / A[k] }' "$f" >>"$f"
  cat "$f"
}

# The default run of OLD (an earlier build) and of this build on one GPU
# held to its share of the CPUs, alternated ROUNDS times (default 2), S
# seconds each (default 15), and the ratio of their means: the speedup
# measured on one host, whose absolute rate differs from another's.
baseline() {
  local old=${1:?baseline needs OLD, an earlier build} i
  local r="run --backend cuda --time ${3:-15}s --seed 1 --save-precision none --save-bugs none --quiet"
  gpu_share
  { echo "\$ [CUDA_VISIBLE_DEVICES=0 taskset -c $MINE] {OLD,$DF} $r --corpus DIR   (alternated, ${2:-2} rounds; OLD: $old)"
    echo "commit: $(commit_of); $GPUS GPU(s), $CPUS CPUs"
    for i in $(seq "${2:-2}"); do
      echo "old: $(run_one_gpu "$WORK/baseline" "$old" $r)"
      echo "new: $(run_one_gpu "$WORK/baseline" $DF $r)"
    done
  } >"$OUTDIR/baseline.txt"
  awk -F'[(]' '/cases\/s/ { split($2, v, " "); if ($0 ~ /^old/) { o += v[1]; no++ } else { a += v[1]; na++ } }
       END { if (no && na) printf "speedup: %.0f / %.0f = %.2f x\n", a / na, o / no, (a / na) / (o / no) }' \
    "$OUTDIR/baseline.txt" >>"$OUTDIR/baseline.txt"
  cat "$OUTDIR/baseline.txt"
}

# fold and tournament in batches, their small case blocks packed several a
# CTA: a run's table (model-equal), the soft reports of a run of special
# values at the host model's block, thread and index (scripts/soft-places.py),
# one case at blocks 1, 4, 33 and 256 reporting as on the host, identity
# against OLD, their mutants under hunt -> packed.txt
packed() {
  local old=${1:?packed needs OLD, an earlier build} f="$OUTDIR/packed.txt" k blk b
  local run="$DF run --backend cuda --kernel fold,tournament --quiet --save-precision none"
  { echo "\$ $run --time 25s --seed 6 --corpus DIR; $run --family special --time 15s --seed 7 --corpus DIR2; scripts/soft-places.py DIR2; $DF replay --backend cuda|host --no-meta --json CASE (blocks 1, 4, 33, 256); scripts/identity.sh OLD $DF cuda 1000 fold,tournament; $DF hunt --backend cuda --kernel m-fold-bounds,m-tournament-bounds,fold,tournament --time 5 --markdown"
    echo "commit: $(commit_of)"
    rm -rf "$WORK/packed" "$WORK/packed2"
    $run --time 25s --seed 6 --corpus "$WORK/packed" 2>&1 | sed -n 1,6p
    $run --family special --time 15s --seed 7 --corpus "$WORK/packed2" 2>&1 | sed -n 1,6p
    DOTFUZZ="$DF" python3 scripts/soft-places.py "$WORK/packed2"
    for k in fold tournament; do for blk in 1 4 33 256; do
      awk 'BEGIN { for (i = 1; i <= 4096; i++) print (i == 101 || i == 102 || i == 2149) ? 3e38 : 1 }' >"$WORK/pa"
      awk 'BEGIN { for (i = 1; i <= 4096; i++) print 1 }' >"$WORK/pb"
      $DF import "$WORK/pa" "$WORK/pb" --type f32 --kernel $k --block $blk -o "$WORK/$k$blk.case" >/dev/null
      for b in cuda host; do
        echo "$k block $blk $b: $($DF replay --backend $b --no-meta --json "$WORK/$k$blk.case" 2>/dev/null | soft_json)"
      done
    done; done
    scripts/identity.sh "$old" "$DF" cuda 1000 fold,tournament 2>&1 | tail -n 2
    $DF hunt --backend cuda --kernel m-fold-bounds,m-tournament-bounds,fold,tournament --time 5 --markdown 2>&1 | grep '^|'
  } >"$f" 2>&1
  cat "$f"
  grep -q '^IDENTICAL' "$f" && grep -q ', 0 not$' "$f"
}

# BLAS calls on the GPU: every kernel that takes them, strided cases for
# S seconds (0 bugs expected), the stride mutants under hunt, and the
# regression corpus's BLAS calls replayed.
blas() {
  local secs=${1:-60} f="$OUTDIR/blas.txt"
  local ks="shfl-blas,cublas-sdot,cublas-ddot,cublas-hdot,cublas-bfdot"
  local run="$DF run --backend cuda --kernel $ks --time ${secs}s --seed 7 --quiet --save-bugs new --save-precision none --corpus $WORK/blas"
  local hunt="$DF hunt --backend cuda --kernel m-blas-neg-wrong-end,m-blas-neg-skipped,m-blas-zero-inc,m-blas-overrun,shfl-blas --time 10 --markdown"
  { echo "\$ $run; $hunt; $DF replay --backend cuda --kernel K corpus/regression (K: shfl-blas, cublas-sdot)"
    echo "commit: $(commit_of)"; } >"$f"
  local rc=0
  $run >>"$f" 2>&1 || rc=$?
  $hunt >>"$f" 2>&1 || rc=$?
  for k in shfl-blas cublas-sdot; do
    $DF replay --backend cuda --kernel $k corpus/regression >"$WORK/blas-replay-$k.txt" 2>&1 || rc=$?
    grep -c ' ok ' "$WORK/blas-replay-$k.txt" | sed "s/^/replay $k: files ok: /" >>"$f"
    grep -v ' ok ' "$WORK/blas-replay-$k.txt" | tail -n 5 >>"$f"
  done
  echo "exit $rc" >>"$f"
  cat "$f"
  return $rc
}

# The command that runs a campaign in DIR for SECS seconds, its summary
# (DIR.summary) told it: a resume where DIR holds a campaign, else NEW, DIR
# made afresh and the summary begun with the commit.
campaign_cmd() {
  local d=$1 secs=$2 cmd=$3
  if [ -f "$d/campaign" ]; then
    cmd="$DF run --resume $d --time ${secs}s --quiet"
  else
    rm -rf "$d" && mkdir -p "$(dirname "$d")" && : >"$d.summary"
  fi
  echo "\$ $cmd" >>"$d.summary"
  [ -f "$d/campaign" ] || echo "commit: $(commit_of)" >>"$d.summary"
  echo "$cmd"
}

# Strided cases over a long campaign: every kernel that takes BLAS calls,
# a plugin's among them; its summary counts the bugs.
stridedcamp() {
  local secs=${1:-600} d=${2:-$WORK/strided} f="$OUTDIR/blas-campaign.txt" plugin cmd
  plugin=$(realpath "${PLUGIN:-build/mydot_batch.so}")
  cmd=$(campaign_cmd "$d" "$secs" "$DF run --backend cuda --kernel-lib $plugin --kernel shfl-blas,cublas-sdot,cublas-ddot,cublas-hdot,cublas-bfdot,mydot-batch-blas --out $d --time ${secs}s --seed 7 --quiet")
  local rc=0
  $cmd >>"$d.summary" 2>&1 || rc=$?
  echo "exit $rc" >>"$d.summary"
  cp "$d.summary" "$f"
  local b; b=$(basename "$d")
  tar czf "$OUTDIR/strided-campaign.tar.gz" -C "$(dirname "$d")" --exclude="$b/findings/precision-*" \
    --exclude="$b/findings/soft*" --exclude="$b/workers" "$b" "$b.summary"
  cat "$f"
  return $rc
}

benchref() {
  echo "\$ $DF bench-ref --n 16M --reps 5 --type all" >"$OUTDIR/bench-ref.txt"
  $DF bench-ref --n 16M --reps 5 --type all >>"$OUTDIR/bench-ref.txt" 2>&1
  local rc=$?
  cat "$OUTDIR/bench-ref.txt"
  return $rc
}

# Our oracle beside seed 000's (relative error > 1e-6 alone) over one campaign
# on the correct kernels: the summary counts both.
compare() {
  local secs=${1:-300}
  local cmd="$DF run --backend cuda --time ${secs}s --seed 4 --corpus $WORK/compare"
  echo "\$ $cmd" >"$OUTDIR/oracle-vs-seed.txt"
  $cmd >>"$OUTDIR/oracle-vs-seed.txt" 2>"$WORK/compare.err"
  local rc=$?
  echo "exit $rc" >>"$OUTDIR/oracle-vs-seed.txt"
  grep -E '^BUG|DONE' "$WORK/compare.err" | head -n 20 >>"$OUTDIR/oracle-vs-seed.txt"
  cat "$OUTDIR/oracle-vs-seed.txt"
  return $rc
}

hunt() {
  local cmd="$DF hunt --backend cuda --markdown --time ${1:-10}" s
  local hard="$DF hunt --backend cuda --kernel m-no-fence,m-zero-inside,m-cublaslt-splitk,m-shfl-divergent --markdown --time ${1:-10}"
  { echo "\$ $cmd"; echo "commit: $(commit_of)"; } >"$OUTDIR/hunt.md"
  $cmd >>"$OUTDIR/hunt.md" 2>"$WORK/hunt.err"
  local rc=$?
  echo "exit $rc" >>"$OUTDIR/hunt.md"
  grep -v '^$' "$WORK/hunt.err" | head -n 20 | sed 's/^/    /' >>"$OUTDIR/hunt.md"
  echo "\$ $hard --seed S   (S = 2, 3)" >>"$OUTDIR/hunt.md"
  for s in 2 3; do
    echo "seed $s" >>"$OUTDIR/hunt.md"
    $hard --seed $s 2>/dev/null | grep '^| m-' >>"$OUTDIR/hunt.md"
  done
  cat "$OUTDIR/hunt.md"
  return $rc
}

# Error-guided libFuzzer (build/libfuzzer/dotfuzz-fuzz-cuda, `make
# libfuzzer-cuda`) against plain random generation (`dotfuzz run`), the same
# time each, the same n limit (the target's 128 KiB input cap: n <= 16368 for
# f32), no metamorphic checks in either.
lfcompare() {
  local secs=${1:-90} lf=build/libfuzzer/dotfuzz-fuzz-cuda log="$OUTDIR/lf-vs-random.txt"
  rm -rf "$WORK/lf" && mkdir -p "$WORK/lf/corpus" "$WORK/lf/seeds"
  cp corpus/regression/*.f32 corpus/regression/*.f64 corpus/regression/*.i32 "$WORK/lf/seeds/"
  local cmd="DOTFUZZ_BACKEND=cuda $lf -max_total_time=$secs -max_len=131072 -timeout=20 -print_final_stats=1 CORPUS SEEDS"
  echo "\$ $cmd" >"$log"
  DOTFUZZ_BACKEND=cuda $lf -max_total_time="$secs" -max_len=131072 -timeout=20 -print_final_stats=1 \
    -artifact_prefix="$WORK/lf/" "$WORK/lf/corpus" "$WORK/lf/seeds" >"$WORK/lf/log" 2>&1
  echo "exit $?" >>"$log"
  grep -E 'INITED|DONE|^stat::number_of_executed_units|^stat::average_exec_per_sec|dotfuzz-fuzz: bug' "$WORK/lf/log" | head -n 8 >>"$log"
  echo "corpus inputs: $(ls "$WORK/lf/corpus" | wc -l)" >>"$log"
  echo "\$ $DF replay --backend cuda --no-meta CORPUS" >>"$log"
  $DF replay --backend cuda --no-meta "$WORK/lf/corpus" 2>&1 >/dev/null | tail -n 1 >>"$log"
  echo "\$ $DF run --backend cuda --time ${secs}s --max-n 16368 --seed 3 --meta-every 0 --save-precision none" >>"$log"
  $DF run --backend cuda --time "${secs}s" --max-n 16368 --seed 3 --meta-every 0 --save-precision none \
    --corpus "$WORK/rnd" 2>/dev/null >>"$log"
  cat "$log"
}

# libFuzzer finds a mutant on the GPU from an empty corpus; its crash
# artifact replays as a bug and minimizes.
lfmutant() {
  local k=${1:-m-nonatomic} log="$OUTDIR/lf-mutant.txt" c
  rm -rf "$WORK/lfm" && mkdir -p "$WORK/lfm/empty" "$WORK/lfm/art"
  echo "\$ DOTFUZZ_BACKEND=cuda DOTFUZZ_LF_KERNEL=$k build/libfuzzer/dotfuzz-fuzz-cuda -max_total_time=60 -seed=1 EMPTY" >"$log"
  DOTFUZZ_BACKEND=cuda DOTFUZZ_LF_KERNEL=$k build/libfuzzer/dotfuzz-fuzz-cuda -max_total_time=60 -seed=1 \
    -artifact_prefix="$WORK/lfm/art/" "$WORK/lfm/empty" >"$WORK/lfm/log" 2>&1
  echo "exit $?" >>"$log"
  grep -E 'INITED|dotfuzz-fuzz: bug|Test unit written' "$WORK/lfm/log" | head -n 3 >>"$log"
  c=$(ls "$WORK/lfm/art/"crash-* 2>/dev/null | head -n 1)
  [ -n "$c" ] || { echo "no crash artifact" >>"$log"; cat "$log"; return 1; }
  echo "\$ $DF replay --backend cuda CRASH" >>"$log"
  $DF replay --backend cuda "$c" >>"$log" 2>&1; echo "exit $?" >>"$log"
  echo "\$ $DF minimize --backend cuda -o MIN CRASH" >>"$log"
  $DF minimize --backend cuda -o "$WORK/lfm/min" "$c" >>"$log" 2>&1; echo "exit $?" >>"$log"
  echo "\$ $DF replay --backend cuda MIN" >>"$log"
  $DF replay --backend cuda "$WORK/lfm/min" >>"$log" 2>&1; echo "exit $?" >>"$log"
  cat "$log"
}


# The finding files of a corpus directory, sorted: name and checksum each;
# a soft-error file holds the first report the GPU's threads raced to
# claim (soft_error.h), which one run to the next may be another thread's:
# those print as "soft", to be counted.
ab_files() {
  local f v
  for f in "$1"/*; do
    v=$(od -An -tu1 -j17 -N1 "$f" | tr -d ' ')
    if [ "$v" = 4 ]; then echo soft; else echo "${f##*/} $(cksum <"$f")"; fi
  done | sort
}

# Whether two runs into corpora A and B (their output in A.txt and B.txt)
# are the same: every output line but the first (the timing line), the
# corpus's name aside, and every finding file the same bytes (soft-error
# files by count). Prints IDENTICAL or DIFFERENT and what differs.
same_runs() {
  local a=$1 b=$2
  if diff <(sed -e 1d -e "s|$a|C|" "$a.txt") <(sed -e 1d -e "s|$b|C|" "$b.txt") &&
     diff <(ab_files "$a") <(ab_files "$b") >/dev/null; then
    echo "IDENTICAL: every line but the timing line; $(ab_files "$b" | grep -vc '^soft$') finding files byte for byte, and as many soft-error files ($(ab_files "$b" | grep -c '^soft$'))"
  else
    echo "DIFFERENT"
    diff <(ab_files "$a") <(ab_files "$b") | head -n 5
  fi
}

# One build's bench up to its n = 2000 row: started, and stopped (SIGTERM)
# once the row's last line is out, within 600 s.
bench_row() {  # OUTFILE BUILD
  local f=$1 b=$2 pid t=0
  echo "\$ $b bench --backend cuda --kernel shfl --time 3  (stopped after the n = 2000 row)" >"$f"
  stdbuf -oL "$b" bench --backend cuda --kernel shfl --time 3 >>"$f" 2>&1 &
  pid=$!
  while ! grep -q "idle workers of the pool" "$f" && [ $t -lt 6000 ]; do sleep 0.1; t=$((t + 1)); done
  kill -TERM "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
}

# The n = 2000 rows of BUILDs in rotated order, ROUNDS rounds, and each
# build's mean of verified cases/s (rows_means reads rows.txt).
rows_means() {
  awk '/^\$/ { b = $2 } /^harness n = 2000/ { print b, $6; s[b] += $6; k[b]++ }
       END { for (x in s) printf "mean %s %d over %d\n", x, s[x] / k[x], k[x] }' "$1"
}

rows() {
  local rounds=$1 r i n
  shift
  local builds=("$@")
  n=${#builds[@]}
  : >"$OUTDIR/rows.txt"
  for ((r = 0; r < rounds; r++)); do
    for ((i = 0; i < n; i++)); do
      bench_row "$WORK/row.txt" "${builds[$(((i + r) % n))]}"
      cat "$WORK/row.txt" >>"$OUTDIR/rows.txt"
    done
  done
  rows_means "$OUTDIR/rows.txt"
}

# fold, tournament and their mutants on both backends, the same cases: the
# GPU's checks (soft errors) against the host models' notes, and
# model-equal (the GPU's sum bit for bit the model's) on the cuda table.
rounds() {
  local log="$OUTDIR/rounds.txt" b
  local C="run --kernel fold,tournament,m-fold-bounds,m-tournament-bounds --seed 21 --cases 20000 --save-precision none --save-bugs none --quiet"
  : >"$log"
  for b in cuda host; do
    echo "\$ $DF $C --backend $b" >>"$log"
    $DF $C --backend $b --corpus "$WORK/rounds-$b" >>"$log" 2>&1
    echo "exit $?" >>"$log"
  done
  cat "$log"
}

memcheck() {
  local log="$OUTDIR/memcheck-pipeline.txt"
  local cmd="compute-sanitizer --tool memcheck --error-exitcode 99 $DF run --backend cuda --kernel all,m-fold-bounds,m-tournament-bounds --cases 3000 --max-n 5000 --batch 256 --pipeline on --seed 9 --save-bugs none --save-precision none --quiet --corpus $WORK/mc"
  echo "\$ $cmd" >"$log"
  $cmd >"$WORK/mc.out" 2>&1
  echo "exit $?" >>"$log"
  grep -E "ERROR SUMMARY|Invalid|cases in" "$WORK/mc.out" >>"$log"
  cat "$log"
}

# Kernels that crash, hang or lose their context, in every mode: nothing
# lost. A finding of a faulting kernel replays as a bug (the replay of the
# whole directory in one process: its worker restarts after each fault).
untrusted() {
  local secs=${1:-120} d="$WORK/untr" lib=${PLUGIN:-build/examples/plugin/mydot_fault.so}
  local faulty=mydot-fault-read,mydot-fault-host rc=0 B=${BACKEND:-cuda}
  local plain=$((secs / 4 < 10 ? 10 : secs / 4)) smoke=$((secs / 2 < 15 ? 15 : secs / 2))
  rm -rf "$d"; mkdir -p "$d"
  check_replays() {  # DIR: every crash- and hang- file of DIR replays as a bug (the bug-
                     # files, a race mutant's among them, are counted, not required)
    $DF replay --backend "$B" --kernel-lib "$lib" --json --watchdog 5 "$1" >"$d/r.json" 2>"$d/r.err"
    echo "replay exit $?: $(tail -n 1 "$d/r.err")"
    python3 - "$d/r.json" <<'PY' || rc=1
import json, os, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
kind = lambda r: os.path.basename(r["source"]).split("-")[0]
want = [r for r in rows if kind(r) in ("crash", "hang")]
lost = [r["source"] for r in want if r["verdict"] != "bug"]
bugs = [r for r in rows if kind(r) == "bug"]
again = [r for r in bugs if r["verdict"] == "bug"]
kinds = {}
for r in want + bugs:
    k = kind(r) + " " + r["rule"]
    kinds[k] = kinds.get(k, 0) + 1
print("files replayed:", len(rows), "| crash and hang files:", len(want), "| not a bug again:",
      len(lost), "| bug files:", len(bugs), "of which a bug again:", len(again), "|",
      ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
for s in lost[:10]:
    print("NOT REPRODUCED", s)
sys.exit(1 if lost else 0)
PY
  }
  {
    echo "\$ $DF run --backend $B --kernel-lib $lib --kernel all,mutants,$faulty --time ${secs}s --watchdog 5s --seed 31 --quiet --out $d/c"
    $DF run --backend "$B" --kernel-lib "$lib" --kernel "all,mutants,$faulty" --time "${secs}s" \
        --watchdog 5s --seed 31 --quiet --out "$d/c" >"$d/c.out" 2>"$d/c.err"
    echo "exit $?"
    grep -E 'cases in|worker processes lost|findings saved' "$d/c.out"
    grep -E '^(cases_done|bug|crashes|hangs|worker_restarts|findings_saved|findings_logged) ' "$d/c/fuzzer_stats"
    echo "files: $(ls "$d/c/findings" | wc -l) ($(ls "$d/c/findings" | sed 's/-[0-9a-f]*$//' | sort | uniq -c | tr '\n' ' '))"
    echo "log lines: $(wc -l <"$d/c/findings.jsonl"), rule crash $(grep -c '"rule":"crash"' "$d/c/findings.jsonl"), hang $(grep -c '"rule":"hang"' "$d/c/findings.jsonl"), exec $(grep -c '"rule":"exec"' "$d/c/findings.jsonl")"
    check_replays "$d/c/findings"
    echo
    echo "\$ $DF run --backend $B --kernel-lib $lib --kernel $faulty,m-wild-read,m-hang --time ${plain}s --watchdog 5s --seed 7 --quiet --corpus $d/plain"
    $DF run --backend "$B" --kernel-lib "$lib" --kernel "$faulty,m-wild-read,m-hang" --time "${plain}s" \
        --watchdog 5s --seed 7 --quiet --corpus "$d/plain" >"$d/plain.out" 2>&1
    echo "exit $?"
    grep -E 'cases in|worker processes lost|findings saved' "$d/plain.out"
    check_replays "$d/plain"
    echo
    mkdir -p "$d/reg"
    echo "\$ $DF smoke --backend $B --kernel-lib $lib --kernel $faulty --corpus $d/reg --time $smoke --findings $d/s --junit $d/s.xml --json $d/s.json"
    $DF smoke --backend "$B" --kernel-lib "$lib" --kernel "$faulty" --corpus "$d/reg" --time "$smoke" \
        --findings "$d/s" --junit "$d/s.xml" --json "$d/s.json" >"$d/s.out" 2>&1
    echo "exit $?"
    grep -E 'BUG|FLAKY|no new bug' "$d/s.out"
    python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$d/s.xml" && echo "junit: well-formed" || rc=1
    python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); b = j["bug"]; print("json: whole; bug:", b and (b["kernel"], b["rule"], b["seed"], b["index"]))' "$d/s.json" || rc=1
    check_replays "$d/s"
  } >"$OUTDIR/untrusted.txt" 2>&1
  cat "$OUTDIR/untrusted.txt"
  return $rc
}

identity() {
  local old=${1:?identity needs OLD, an earlier build} cases=${2:-1500} b
  : >"$OUTDIR/identity.txt"
  for b in host cuda; do
    echo "\$ scripts/identity.sh OLD $DF $b $cases   (OLD: $old)" >>"$OUTDIR/identity.txt"
    scripts/identity.sh "$old" "$DF" "$b" "$cases" >>"$OUTDIR/identity.txt" 2>&1
  done
  cat "$OUTDIR/identity.txt"
  ! grep -q '^DIFFERENT' "$OUTDIR/identity.txt"
}

# bandwidth, bench and hunt --json on the GPU: each document kept under
# OUTDIR/json/ and checked by tests/json_out_check.py.
json_out() {
  local log="$OUTDIR/json-out.txt" rc=0 r name mode cmd
  mkdir -p "$OUTDIR/json"
  : >"$log"
  while read -r name mode cmd; do
    echo "\$ $DF $cmd > json/$name.json" >>"$log"
    $DF $cmd >"$OUTDIR/json/$name.json" 2>>"$WORK/json.err"
    r=$?
    echo "exit $r" >>"$log"
    python3 tests/json_out_check.py "$mode" "$OUTDIR/json/$name.json" >>"$log" 2>&1 || rc=1
  done <<'ROWS'
bandwidth bandwidth-gpu bandwidth --n 2^24 --reps 5 --json
bench bench-gpu bench --backend cuda --kernel shfl --quick --json
hunt hunt-gpu hunt --backend cuda --kernel m-tail,shfl --cases 2000 --time 5 --json
ROWS
  cat "$log"
  return $rc
}

bench() {
  { echo "\$ $DF bench --backend cuda --kernel shfl --time 3"; echo "commit: $(commit_of)"; } >"$OUTDIR/bench.txt"
  # stderr apart: its notices would land inside the rows' lines
  $DF bench --backend cuda --kernel shfl --time 3 >>"$OUTDIR/bench.txt" 2>"$WORK/bench.err"
  local rc=$?
  cat "$WORK/bench.err" >&2
  cat "$OUTDIR/bench.txt"
  return $rc
}

# A campaign over every correct kernel and family, one case in 64 rerun
# under a perturbed schedule; its report (report.md, and the plots where
# gnuplot is: elsewhere unpack campaign.tar.gz and run `dotfuzz report`
# there). DIR (default WORK/camp): a campaign there already is resumed for
# SECONDS more, so a long campaign spans several calls (carry DIR and
# DIR.summary between machines); the summary keeps every session's command
# and totals. The findings stay out of the record.
campaign() {
  local secs=${1:-300} d=${2:-$WORK/camp} rc cmd
  rm -rf "$OUTDIR/campaign" && mkdir -p "$OUTDIR/campaign"
  cmd=$(campaign_cmd "$d" "$secs" "$DF run --backend cuda --time ${secs}s --seed 20261127 ${CAMPAIGN_OPTS---schedule 64} --quiet --out $d")
  $cmd >>"$d.summary" 2>&1
  rc=$?
  echo "exit $rc" >>"$d.summary"
  cp "$d.summary" "$OUTDIR/campaign/summary.txt"
  cp "$d/fuzzer_stats" "$OUTDIR/campaign/"
  if command -v gnuplot >/dev/null 2>&1; then
    $DF report "$d" --out "$OUTDIR/campaign/report" >/dev/null
  else
    $DF report "$d" --out "$OUTDIR/campaign/report" --no-plots >/dev/null
  fi
  local b; b=$(basename "$d")
  tar czf "$OUTDIR/campaign.tar.gz" -C "$(dirname "$d")" --exclude="$b/findings/precision-*" \
    --exclude="$b/findings/soft*" --exclude="$b/findings/nondet*" --exclude="$b/workers" "$b" "$b.summary"
  cat "$OUTDIR/campaign/summary.txt"
  return $rc
}

# A short campaign over every kernel and every mutant on the GPU, then its
# report as one HTML page (report --html; its plots inside where gnuplot
# is, else none: unpack report-campaign.tar.gz and run `dotfuzz report
# DIR --html` where it is). The page is the record: screenshot it with
# scripts/html-check.sh report/report.html. Exit 1 from the run is the
# mutants' bugs, expected; the mode fails when the report does.
report_html() {
  local secs=${1:-60} d=$WORK/report-camp rc plots=
  rm -rf "$OUTDIR/report" "$d" "$WORK/report-out" && mkdir -p "$OUTDIR/report"
  command -v gnuplot >/dev/null 2>&1 || plots=--no-plots
  local cmd="$DF run --backend cuda --kernel all,mutants --time ${secs}s --seed 20261128 --quiet --out $d"
  { echo "\$ $cmd"; echo "commit: $(commit_of)"; } >"$OUTDIR/report/summary.txt"
  $cmd >>"$OUTDIR/report/summary.txt" 2>&1
  echo "exit $? (1: a bug verdict, which the mutants must give)" >>"$OUTDIR/report/summary.txt"
  echo "\$ $DF report WORK/report-camp --html $plots --out WORK/report-out" >>"$OUTDIR/report/summary.txt"
  $DF report "$d" --html $plots --out "$WORK/report-out" >/dev/null 2>>"$OUTDIR/report/summary.txt"
  rc=$?
  echo "exit $rc" >>"$OUTDIR/report/summary.txt"
  cp "$WORK/report-out/report.html" "$WORK/report-out/report.md" "$OUTDIR/report/" || rc=1
  tar czf "$OUTDIR/report-campaign.tar.gz" -C "$WORK" --exclude=report-camp/findings \
    --exclude=report-camp/workers report-camp
  grep -m1 -o 'Bugs in correct kernels: [a-z0-9 ]*' "$OUTDIR/report/report.html"
  cat "$OUTDIR/report/summary.txt"
  return $rc
}

# The first line of FILE that matches the extended regex RE.
first() { grep -m1 -E "$2" "$1" 2>/dev/null; }

# One row of the record: CLAIM, FILE (relative to OUTDIR) and COMMAND, by
# default the file's first line; the commit is OF's (default FILE) when its
# second line names one, else env.txt's.
row() {
  local claim=$1 file=$2 cmd=${3:-} of=${4:-$2}
  [ -n "$claim" ] || claim="(no figure found: see the file)"
  claim=$(sed 's/|/\\|/g' <<<"$claim")
  [ -n "$cmd" ] || cmd=$(head -n 1 "$OUTDIR/$file" | sed -e 's/^\$ //')
  # a file made at another commit than env.txt's says so on its second line
  local own
  own=$(sed -n '2s/^commit: \([0-9a-f]\{7\}\).*/\1/p' "$OUTDIR/$of")
  cmd=$(sed -e "s|$WORK|WORK|g" -e 's/|/\\|/g' <<<"$cmd")
  echo "| $claim | ${own:-$commit} | \`$cmd\` | [$file]($file) |"
}

readme() {
  local f=$OUTDIR/README.md commit gpu driver
  commit=$(sed -n 's/^commit: \([0-9a-f]\{7\}\).*/\1/p' "$OUTDIR/env.txt" 2>/dev/null)
  gpu=$(awk -F', ' 'on { print $1; exit } /^name, driver/ { on = 1 }' "$OUTDIR/env.txt" 2>/dev/null)
  driver=$(awk -F', ' 'on { print $2; exit } /^name, driver/ { on = 1 }' "$OUTDIR/env.txt" 2>/dev/null)
  {
    echo "# ${gpu:-GPU} — the record"
    echo
    echo "Made by \`scripts/gpu-verify.sh all\` ([env.txt](env.txt): date, device, driver, CUDA)."
    echo
    echo "| claim | commit | command | file |"
    echo "|---|---|---|---|"
    [ -f "$OUTDIR/env.txt" ] && row "$gpu, driver $driver, $(first "$OUTDIR/env.txt" '^Cuda compilation|release' | sed 's/.*release \([0-9.]*\).*/CUDA \1/')" env.txt
    [ -f "$OUTDIR/identity.txt" ] && row "this build against an earlier one, every family, findings byte for byte: $(awk '/^\$ scripts\/identity.sh/ { b = $5 } /^(IDENTICAL|DIFFERENT)$/ { printf "%s%s %s", sep, b, $1; sep = ", " }' "$OUTDIR/identity.txt")" identity.txt
    [ -f "$OUTDIR/bandwidth.md" ] && row "$(awk -F'|' '$2 ~ /^ shfl $/ { gsub(/ /, "", $8); gsub(/ /, "", $9); gsub(/ /, "", $10); print "shfl at n = 2^28: " $8 " GB/s, " $9 " of peak, " $10 " cuBLAS sdot" }' "$OUTDIR/bandwidth.md")" bandwidth.md
    [ -f "$OUTDIR/bench.txt" ] && row "$(awk '/^seed loop, n = 2000/ { loop = $6 } /^harness n = 2000, verified/ { h = $6 } /^default campaign, / { c = $5; el = $7; k = $3 } END { if (h && loop) printf "%d verified cases/s at n = 2000 (shfl, batch 4096), %.0fx the seeds'"'"' loop (%d cases/s)", h, h / loop, loop; if (c) printf "; the default campaign (%s kernels) %d cases/s, %s elements/s", k, c, el }' "$OUTDIR/bench.txt")" bench.txt
    [ -f "$OUTDIR/run-rates.txt" ] && row "run at its defaults: $(awk 'function rate(s) { sub(/.*\(/, "", s); sub(/ cases\/s.*/, "", s); return s } /^default / { printf "every kernel %s cases/s", rate($0) } /^shfl max-n 2000 / { printf "; shfl at --max-n 2000 %s cases/s", rate($0) }' "$OUTDIR/run-rates.txt")" run-rates.txt
    [ -f "$OUTDIR/batched-launchers.txt" ] && row "batched launchers against one case a launch: $(grep -c 'same tables' "$OUTDIR/batched-launchers.txt") table comparison(s) equal$(awk '$1 == "int-atomic" || $1 == "tree-hostsum" { if ($2 ~ /^[0-9]+$/) printf "; %s %s of %s model-equal, %s bugs", $1, $9, $2, $7 }' "$OUTDIR/batched-launchers.txt")" batched-launchers.txt
    [ -f "$OUTDIR/plugin-batch.txt" ] && row "the example batched plugin (BLAS calls too): $(awk '/ cases in / { n++; printf "%s%s cases", (n > 1 ? "; one case a launch: " : ""), $3 } / mydot-batch/ && $2 ~ /^[0-9]+$/ { printf ", %s %s bugs", $1, $7 }' "$OUTDIR/plugin-batch.txt")" plugin-batch.txt
    [ -f "$OUTDIR/bench-plugin.txt" ] && [ -f "$OUTDIR/bench.txt" ] && row "the batched plugin at n = 2000: $(awk 'FNR == 1 { f++ } /^harness n = 2000, verified/ { r[f] = $6 } END { if (r[1] && r[2]) printf "%d verified cases/s, %.2fx shfl'"'"'s %d", r[1], r[1] / r[2], r[2] }' "$OUTDIR/bench-plugin.txt" "$OUTDIR/bench.txt")" bench-plugin.txt
    [ -f "$OUTDIR/hunt.md" ] && row "$(first "$OUTDIR/hunt.md" 'mutant\(s\) escaped')" hunt.md
    [ -f "$OUTDIR/campaign/summary.txt" ] && row "$(grep -E 'cases in' "$OUTDIR/campaign/summary.txt" | tail -n 1) ($(sed -n 's/^sessions *: //p' "$OUTDIR/campaign/fuzzer_stats") session(s)); bugs: $(sed -n 's/^bug *: //p' "$OUTDIR/campaign/fuzzer_stats")" campaign/summary.txt
    [ -f "$OUTDIR/campaign/report/report.md" ] && row "the campaign's report and plots" campaign/report/report.md "$DF report WORK/camp --out campaign/report" campaign/summary.txt
    [ -f "$OUTDIR/sanitizer.txt" ] && row "memcheck and racecheck over every kernel: $(grep -c 'ERROR SUMMARY: 0 errors\|RACECHECK SUMMARY: 0 hazards' "$OUTDIR/sanitizer.txt") clean summaries of $(grep -c 'SUMMARY' "$OUTDIR/sanitizer.txt")" sanitizer.txt
    [ -f "$OUTDIR/few-terms.txt" ] && row "few-term cases over every correct kernel, cuBLAS included: $(first "$OUTDIR/few-terms.txt" 'cases in' | sed 's/dotfuzz run: //'), bugs: $(sed -n 's/.*this oracle: \([0-9]*\) bug.*/\1/p' "$OUTDIR/few-terms.txt")" few-terms.txt
    [ -f "$OUTDIR/probe.txt" ] && row "probe of the tensor-core dots: $(awk '/^dotfuzz probe: / { k = $3 } /bits kept below the largest/ { b = $6 == ">=" ? "at least " $7 : $6 } /elements fused with the first/ { s = $6 < 0 ? "steps not measured" : "steps of " $6 } /^exit [0-9]+, [0-9]+ ms/ { printf "%s%s %s bits kept, %s, %s ms", sep, k, b, s, $3; sep = "; " }' "$OUTDIR/probe.txt")" probe.txt
    [ -f "$OUTDIR/wgmma.txt" ] && row "the plain wgmma E4M3 chain against its host model: $(awk '$1 == "wgmma-e4m3" && $2 ~ /^[0-9]+$/ { printf "%s of %s cases equal bit for bit, %s bugs", $9, $2, $7 }' "$OUTDIR/wgmma.txt")" wgmma.txt
    [ -f "$OUTDIR/fp8-k4096.txt" ] && row "fp8 chains declared fp32, first bug at K >= 4096: $(awk '/^m-/ { m = $1; sub(/:$/, "", m) } /^  after / { printf "%s%s %s s", sep, m, $2; sep = "; " }' "$OUTDIR/fp8-k4096.txt")" fp8-k4096.txt
    [ -f "$OUTDIR/cublaslt.txt" ] && row "fp8 accumulation, cuBLASLt matmul as dots and the wgmma chain: $(awk '($1 ~ /^cublaslt-/ || $1 == "m-fp8-fast-accum" || $1 == "m-wgmma-fp32") && $2 ~ /^[0-9]+$/ { printf "%s%s %s bugs in %s cases", sep, $1, $7, $2; sep = "; " }' "$OUTDIR/cublaslt.txt")" cublaslt.txt
    [ -f "$OUTDIR/cublaslt-splitk.txt" ] && row "cuBLASLt fp8 split-K on the finding in findings/: $(awk '/split-K/ { n++; if ($NF == "WRONG") { w++; if ($0 ~ /split-K +[0-9]+:/) { s = $0; sub(/.*split-K +/, "", s); sub(/:.*/, "", s); k[s] = 1 } } } END { printf "%d of %d shapes wrong, all with split-K", w, n; for (x in k) printf " %s", x; }' "$OUTDIR/cublaslt-splitk.txt")" cublaslt-splitk.txt
    [ -f "$OUTDIR/peers.txt" ] && row "vendor peers of low-precision data, $(sed -n 's/^dotfuzz run: \([0-9]*\) cases in \([0-9.]*\) s.*/\1 cases in \2 s/p' "$OUTDIR/peers.txt"): $(awk '$1 ~ /^cublas/ && $2 ~ /^[0-9]+$/ { printf "%s%s %s bugs", sep, $1, $7; sep = "; " }' "$OUTDIR/peers.txt")" peers.txt
    [ -f "$OUTDIR/lowp.txt" ] && row "tensor-core dots against their fused models: $(awk '($1 ~ /^(wg)?mma-/ || $1 == "half2-f16") && $2 ~ /^[0-9]+$/ { m = $9 == $2 ? $9 " of " $2 " cases equal to its model" : $9 > 0 ? $9 " of " $2 " cases equal to its model (the rest below 2^-101)" : $2 " cases, no host model"; printf "%s%s %s, %s bugs", sep, $1, m, $7; sep = "; " }' "$OUTDIR/lowp.txt")" lowp.txt
    [ -f "$OUTDIR/hunt-huge.md" ] && row "past 2^31 elements (--huge): $(awk -F'|' '$3 ~ /mutant/ { gsub(/ /, "", $2); gsub(/ /, "", $5); gsub(/ /, "", $6); gsub(/ /, "", $7); gsub(/ /, "", $8); printf "%s%s caught %s at case %s (%s s, rule %s)", sep, $2, $5, $6, $7, $8; sep = "; " } $3 ~ /correct/ { gsub(/ /, "", $2); sub(/^ */, "", $5); sub(/ *$/, "", $5); printf "%s%s %s", sep, $2, $5; sep = "; " }' "$OUTDIR/hunt-huge.md")" hunt-huge.md
    [ -f "$OUTDIR/check-cost.txt" ] && row "what the checks cost, cases/s: $(awk '/^schedule [0-9]+:/ { n = $2; sub(/:$/, "", n); x = $0; sub(/.*\(/, "", x); sub(/ cases\/s.*/, "", x); printf "%s--schedule %s %s", sep, n, x; sep = ", " } /^sanitize / { n = $2; sub(/:$/, "", n); printf "%s--sanitize %s %s", sep, n, $(NF - 3) }' "$OUTDIR/check-cost.txt")" check-cost.txt
    [ -f "$OUTDIR/blas.txt" ] && row "BLAS calls on the GPU: $(awk '/ cases in / { printf "%s cases in %s s", $3, $6 } / bug\(s\)$/ { printf ", %s bug(s)", $(NF-1) } /\| mutant \|/ { split($0, f, "|"); gsub(/ /, "", f[2]); gsub(/ /, "", f[5]); gsub(/ /, "", f[6]); printf "; %s caught %s at case %s", f[2], f[5], f[6] }' "$OUTDIR/blas.txt")" blas.txt
    [ -f "$OUTDIR/blas-campaign.txt" ] && row "a BLAS-call campaign with a plugin: $(awk '/ cases in / { printf "%s cases in %s s", $3, $6 } / bug\(s\)$/ { printf ", %s bug(s)", $(NF-1) }' "$OUTDIR/blas-campaign.txt")" blas-campaign.txt
    [ -f "$OUTDIR/sanitizer-races.txt" ] && row "races under compute-sanitizer: $(awk '/^== / { t = $2 } /^BUG .* sanitizer/ { printf "%s%s sees %s", sep, t, $2; sep = "; "; seen[$2] = 1 } END { split("m-zero-inside m-no-fence m-shfl-divergent m-nonatomic", k, " "); for (i = 1; i <= 4; i++) if (!seen[k[i]]) { printf "%s%s", (n++ ? ", " : "; no tool sees "), k[i] } }' "$OUTDIR/sanitizer-races.txt")" sanitizer-races.txt
    [ -f "$OUTDIR/report/report.html" ] && row "a campaign's report page: $(grep -m1 -o 'Bugs in correct kernels: [a-z0-9 ]*' "$OUTDIR/report/report.html"); screenshot [report/report.png](report/report.png)" report/report.html "$(head -n 1 "$OUTDIR/report/summary.txt" | sed 's/^\$ //'); dotfuzz report WORK/report-camp --html" report/summary.txt
    [ -f "$OUTDIR/triage.txt" ] && row "distinct bugs by triage: $(awk '/^== --kernel/ { set = $3; sub(/:$/, "", set) } /distinct bug\(s\)/ { b = $0; sub(/.* in /, "", b); sub(/ distinct.*/, "", b); f = $0; sub(/ bug finding.*/, "", f); sub(/.* /, "", f); printf "%s%s %s bug findings in %s bugs", sep, set, f, b; sep = "; " }' "$OUTDIR/triage.txt")" triage.txt
    [ -f "$OUTDIR/untrusted.txt" ] && row "$(awk -F' [|] ' '/^files replayed/ { split($2, a, ": "); ch += a[2]; split($3, b, ": "); lost += b[2]; n++ } END { printf "%d runs (a campaign, a plain run, smoke) with crashing and hanging kernels: %d crash and hang findings, %d of them not judged a bug again on replay", n, ch, lost }' "$OUTDIR/untrusted.txt")" untrusted.txt
  } >"$f"
  cat "$f"
}

all() {
  local secs=${1:-300} old=${2:-} rc=0
  env_info || rc=1
  if [ -n "$old" ]; then identity "$old" || rc=1; fi
  bandwidth >/dev/null || rc=1
  bench >/dev/null || rc=1
  # hunt exits 1 when a mutant escapes: a finding the record shows, not a
  # failure of the run
  hunt "$((secs / 30 < 2 ? 2 : secs / 30))" >/dev/null
  [ $? -le 1 ] || rc=1
  campaign "$secs" >/dev/null || rc=1
  sanitize >/dev/null || rc=1
  untrusted "$secs" >/dev/null || rc=1
  readme
  return $rc
}

case "${1:-}" in
  all) all "${2:-300}" "${3:-}" ;;
  env) env_info ;;
  identity) identity "${2:-}" "${3:-1500}" ;;
  bandwidth) bandwidth ;;
  bench) bench ;;
  hunt) hunt "${2:-10}" ;;
  campaign) campaign "${2:-300}" "${3:-}" ;;
  sanitize) sanitize ;;
  untrusted) untrusted "${2:-120}" ;;
  readme) readme ;;
  invariants) invariants ;;
  rounds) rounds ;;
  soft) soft ;;
  compare) compare "${2:-300}" ;;
  memcheck) memcheck ;;
  benchref) benchref ;;
  fewterms) fewterms "${2:-20}" ;;
  lowp) lowp "${2:-60}" ;;
  fp8) fp8 "${2:-60}" ;;
  fp8long) fp8long ;;
  probe) probe ;;
  wgmma) wgmma "${2:-90}" ;;
  peers) peers "${2:-540}" ;;
  races) races ;;
  triage) triage "${2:-120}" ;;
  cost) cost "${2:-5}" ;;
  huge) huge ;;
  report) report_html "${2:-60}" ;;
  blas) blas "${2:-60}" ;;
  stridedcamp) stridedcamp "${2:-600}" "${3:-}" ;;
  rates) rates ;;
  workers) workers "${2:-2}" "${3:-15}" ;;
  scaling) scaling "${2:-2}" "${3:-60}" ;;
  memshare) memshare ;;
  baseline) baseline "${2:-}" "${3:-2}" "${4:-15}" ;;
  packed) packed "${2:-}" ;;
  lfcompare) lfcompare "${2:-90}" ;;
  lfmutant) lfmutant "${2:-m-nonatomic}" ;;
  json) json_out ;;
  rows) [ $# -ge 3 ] || { echo "usage: $0 rows ROUNDS BUILD..." >&2; exit 2; }; shift; rows "$@" ;;
  *) echo "usage: $0 all [SECONDS] [OLD]|env|identity OLD [CASES]|bandwidth|bench|hunt [S]|campaign [S]|sanitize|untrusted [S]|readme|invariants|rounds|soft|compare [S]|memcheck|benchref|fewterms [S]|lowp [S]|probe|wgmma [S]|fp8 [S]|fp8long|peers [S]|races|report [S]|triage [S]|blas [S]|stridedcamp [S]|rates|lfcompare [S]|lfmutant [K]|rows ROUNDS BUILD..." >&2; exit 2 ;;
esac
