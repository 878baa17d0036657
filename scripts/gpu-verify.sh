#!/usr/bin/env bash
# gpu-verify.sh — the GPU verification of the kernels (issue "GPU kernels"):
# run on a machine with an NVIDIA GPU, from the repository root, after `make`.
#
#   scripts/gpu-verify.sh env        device, driver, CUDA, commit, date -> OUTDIR/env.txt
#   scripts/gpu-verify.sh bandwidth  bandwidth table at n = 2^28 -> OUTDIR/bandwidth.md
#   scripts/gpu-verify.sh sanitize   compute-sanitizer memcheck + racecheck on every kernel
#                                    -> OUTDIR/sanitizer.txt
#   scripts/gpu-verify.sh invariants fold/tournament with --debug-invariants -> OUTDIR/invariants.txt
#   scripts/gpu-verify.sh benchref   the CPU references' speed on one core -> OUTDIR/bench-ref.txt
#   scripts/gpu-verify.sh hunt       every mutant and correct kernel, ours vs seed 000's -> OUTDIR/hunt.md
#   scripts/gpu-verify.sh lfcompare [SECONDS]
#                                    error-guided libFuzzer vs plain random, same time -> OUTDIR/lf-vs-random.txt
#   scripts/gpu-verify.sh lfmutant [KERNEL]
#                                    libFuzzer finds a mutant from an empty corpus; replay, minimize
#                                    -> OUTDIR/lf-mutant.txt
#   scripts/gpu-verify.sh compare [SECONDS]
#                                    a campaign (default 300 s) judged by our oracle and counted
#                                    by seed 000's -> OUTDIR/oracle-vs-seed.txt
#   scripts/gpu-verify.sh soft       soft errors on the GPU: an int32 overflow (int-atomic) and
#                                    non-finite partials (shfl, fold, tournament) reported with the
#                                    block, thread and index the host backend reports; the
#                                    register/occupancy/time table of scripts/soft-cost.sh
#                                    -> OUTDIR/soft.txt, soft-cost.md
#   scripts/gpu-verify.sh rounds     fold, tournament and their mutants on both backends, the
#                                    same 20,000 cases: soft errors and model-equal -> OUTDIR/rounds.txt
#   scripts/gpu-verify.sh perf [1]   issue 9: batched == one-case results on the GPU (shfl family),
#                                    and `dotfuzz bench` with and without metamorphic checks
#                                    (1: with them only) -> OUTDIR/batch-identity.txt, bench.txt
#   scripts/gpu-verify.sh ab OLD [ROUNDS]
#                                    issue 9: `dotfuzz bench` of an earlier build OLD and of this
#                                    one alternated ROUNDS times (default 2) on one machine, and
#                                    their runs over the deterministic kernels compared line for
#                                    line and file for file, at run's defaults and at --max-n 8000
#                                    (the GPU generates) -> OUTDIR/ab.txt, ab-identity.txt;
#                                    ROUNDS 0: the identity runs alone
#   scripts/gpu-verify.sh rows ROUNDS BUILD...
#                                    issue 9: each BUILD's `dotfuzz bench` stopped after its
#                                    n = 2000 row (the rows the A/B comparisons rest on), the
#                                    builds rotated one place each round (A B C, B C A, ...), and
#                                    each build's mean -> OUTDIR/rows.txt
#   scripts/gpu-verify.sh longid     issue 9: cases to 4M (a ring of three sets of slots where they
#                                    fit) batched against one at a time on the GPU, copies on every
#                                    other case: the trace's batches begun before the first check,
#                                    tables and finding files compared -> OUTDIR/long-identity.txt
#   scripts/gpu-verify.sh hostmem [OLD]
#                                    issue 9's floor at n = 2^26: the host's memory under the
#                                    references and the shfl model, one thread and every thread
#                                    (tools/host_mem.c: HOSTMEM, default build/tools/host-mem, from
#                                    make host-mem), alternated twice with OLD (an earlier build's
#                                    host-mem) when given -> OUTDIR/host-mem.txt
#   scripts/gpu-verify.sh split OLD [ROUNDS] [SECONDS]
#                                    issue 9: default runs (default 10 s) of OLD and of this build
#                                    alternated ROUNDS times (default 2), by kernel group: all ten,
#                                    the shfl family, the seven others -> OUTDIR/default-split.txt
#   scripts/gpu-verify.sh campaign-start [SECONDS]
#                                    starts, detached, a supervised campaign (run --out) over every
#                                    kernel and every mutant, the crashing and hanging ones included
#                                    (default 1810 s, --jobs 4, --watchdog 5s), and samples
#                                    the resident memory of its processes every 30 s
#   scripts/gpu-verify.sh campaign-collect [WAIT]
#                                    waits up to WAIT s for it to end (its own done marker, not a
#                                    process match), replays one crash and one hang finding, and
#                                    packs the directory (findings but those two left out) into
#                                    OUTDIR/campaign.tar.gz; `dotfuzz report` it where gnuplot is
#   scripts/gpu-verify.sh rss [SECONDS]
#                                    a default `run` (every kernel, --batch 256, --max-n 65536,
#                                    --pipeline auto) for SECONDS (default 180), its resident
#                                    memory sampled every 10 s -> OUTDIR/rss-default.txt
#   scripts/gpu-verify.sh rss-start [SECONDS] / rss-collect [WAIT]
#                                    the same run detached for SECONDS (default 1800), memory
#                                    every 30 s; collect waits up to WAIT s -> OUTDIR/rss-long.txt
#   scripts/gpu-verify.sh memcheck   compute-sanitizer memcheck on double-buffered batches of
#                                    every kernel and of fold's and tournament's mutants
#                                    -> OUTDIR/memcheck-pipeline.txt
#   scripts/gpu-verify.sh start [SECONDS]
#                                    starts, detached, a campaign over every kernel and family
#                                    (default 660 s) and, beside it, 10^6 cases per deterministic
#                                    kernel (model match), one kernel after another
#   scripts/gpu-verify.sh collect [WAIT]
#                                    waits up to WAIT s for both, then -> OUTDIR/campaign.txt,
#                                    OUTDIR/model-match.txt
#   scripts/gpu-verify.sh untrusted [SECONDS]
#                                    kernels that crash, hang or lose their CUDA context, in
#                                    every mode: a campaign (default 120 s) over every kernel,
#                                    every mutant and the faulting example plugin
#                                    (examples/plugin/mydot_fault.cu, PLUGIN=build/...so), a plain
#                                    run, and smoke; every crash, hang and lost-context finding
#                                    replayed, JUnit and JSON parsed -> OUTDIR/untrusted.txt
#
# OUTDIR is $OUT when set (the device tool), else results/local.
set -uo pipefail
cd "$(dirname "$0")/.."
OUTDIR=${OUT:-results/local}
mkdir -p "$OUTDIR"
DF=./dotfuzz
WORK=${TMPDIR:-/tmp}/dotfuzz-verify
mkdir -p "$WORK"

# The soft_errors of a replay --json line, without the source line (the host
# model's lines are not the kernel's).
soft_fields() { grep -o '"soft_errors":\[.*\]' "$1" | sed 's/"line":[0-9]*,//g'; }

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

env_info() {
  {
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

sanitize() {
  local log="$OUTDIR/sanitizer.txt" rc=0
  : >"$log"
  for k in $($DF list --names); do
    for tool in memcheck racecheck; do
      local cmd="compute-sanitizer --tool $tool --error-exitcode 99 $DF run --backend cuda --kernel $k --cases 40 --max-n 3000 --seed 11 --corpus $WORK/san-$k"
      echo "\$ $cmd" >>"$log"
      $cmd >"$WORK/san.out" 2>&1
      local r=$?
      grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|Invalid|Race|hazard|DONE' "$WORK/san.out" | tail -n 4 >>"$log"
      echo "exit $r" >>"$log"
      [ $r -eq 0 ] || rc=1
    done
  done
  grep -cE '^exit 0$' "$log" | sed 's/^/clean runs: /' >>"$log"
  tail -n 30 "$log"
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

hostmem() {
  local old=${1:-} tool=${HOSTMEM:-build/tools/host-mem} b
  {
    for b in "$tool" ${old:+"$old"} "$tool" ${old:+"$old"}; do
      echo "\$ $b"
      "$b" || echo "exit $?"
    done
  } >"$OUTDIR/host-mem.txt" 2>&1
  cat "$OUTDIR/host-mem.txt"
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
  local cmd="$DF hunt --backend cuda --markdown --cases 20000 --time 10"
  echo "\$ $cmd" >"$OUTDIR/hunt.md"
  $cmd >>"$OUTDIR/hunt.md" 2>"$WORK/hunt.err"
  local rc=$?
  echo "exit $rc" >>"$OUTDIR/hunt.md"
  grep -v '^$' "$WORK/hunt.err" | head -n 20 | sed 's/^/    /' >>"$OUTDIR/hunt.md"
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

perf() {
  local C="run --backend cuda --kernel shfl,shfl-f64acc,shfl-f64 --seed 77 --cases 20000 --save-precision none --save-bugs none --quiet --corpus $WORK/perf"
  {
    echo "\$ $DF $C --batch 1    vs    --batch 4096"
    $DF $C --batch 1 >"$WORK/one.txt" 2>&1
    $DF $C --batch 4096 >"$WORK/many.txt" 2>&1
    cat "$WORK/one.txt" "$WORK/many.txt"
    if diff <(sed 1d "$WORK/one.txt") <(sed 1d "$WORK/many.txt"); then
      echo "IDENTICAL (every line but the timing line)"
    else
      echo "DIFFERENT"
    fi
  } >"$OUTDIR/batch-identity.txt" 2>&1
  tail -n 2 "$OUTDIR/batch-identity.txt"
  {
    echo "\$ $DF bench --backend cuda --kernel shfl --time 3"
    $DF bench --backend cuda --kernel shfl --time 3
    if [ "${1:-2}" -ge 2 ]; then
      echo "\$ $DF bench --backend cuda --kernel shfl --time 3 --meta-every 0"
      $DF bench --backend cuda --kernel shfl --time 3 --meta-every 0
    fi
  } >"$OUTDIR/bench.txt" 2>&1
  cat "$OUTDIR/bench.txt"
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

# Side by side on one machine: `dotfuzz bench` of an earlier build (OLD)
# and of this one, alternated ROUNDS times (machines of one kind differ by up
# to 1.5x, so only a ratio within one run says what a change did), and the
# two builds' runs over the deterministic kernels on the GPU, which must
# match line for line and finding file for file.
ab() {
  local old=$1 rounds=${2:-2} i extra
  local C="run --backend cuda --kernel shfl,shfl-f64acc,shfl-f64,fold,tournament,tree-hostsum,int-atomic --seed 5 --cases 40000 --batch 256 --save-precision all --save-bugs all --quiet"
  {
    for i in $(seq "$rounds"); do
      for b in "$old" "$DF"; do
        echo "\$ $b bench --backend cuda --kernel shfl --time 3"
        "$b" bench --backend cuda --kernel shfl --time 3
      done
    done
  } >"$OUTDIR/ab.txt" 2>&1
  grep -E '^\$|verified|bare|vs seed' "$OUTDIR/ab.txt"
  # run's defaults (cases up to 65536 elements: the CPU generates), then
  # cases up to 8000 (--gen auto: the GPU generates and the run reads the
  # device's copy)
  : >"$OUTDIR/ab-identity.txt"
  for extra in "" "--max-n 8000"; do
    {
      echo "\$ OLD/NEW $C $extra"
      rm -rf "$WORK/ab-old" "$WORK/ab-new"
      "$old" $C $extra --corpus "$WORK/ab-old" >"$WORK/ab-old.txt" 2>&1
      echo "old exit $?"
      $DF $C $extra --corpus "$WORK/ab-new" >"$WORK/ab-new.txt" 2>&1
      echo "new exit $?"
      cat "$WORK/ab-new.txt"
      same_runs "$WORK/ab-old" "$WORK/ab-new"
    } >>"$OUTDIR/ab-identity.txt" 2>&1
    echo "${extra:-defaults}: $(tail -n 1 "$OUTDIR/ab-identity.txt")"
  done
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

# Long cases batched (their generation on the GPU, three sets of slots
# where three batches fit) against one at a time: the same runs (same_runs).
longid() {
  local C="run --backend cuda --kernel shfl,shfl-f64,fold,int-atomic --seed 8 --cases 240 --max-n 4M --meta-every 2 --save-precision all --save-bugs all --quiet"
  local W="$WORK/longid"
  rm -rf "$W"
  mkdir -p "$W"
  {
    echo "\$ $DF $C --batch 1 / --batch 16 (DOTFUZZ_TRACE: sets begun before the first check)"
    $DF $C --batch 1 --corpus "$W/one" >"$W/one.txt" 2>&1
    echo "one exit $?"
    DOTFUZZ_TRACE="$W/t.tsv" $DF $C --batch 16 --corpus "$W/many" >"$W/many.txt" 2>&1
    echo "many exit $?"
    cat "$W/many.txt"
    echo "sets begun before the first check: $(awk -F'\t' '$1 == "caller" && $2 == "gpu" { exit } $1 == "caller" && $2 == "generate" { k++ } END { print k + 0 }' "$W/t.tsv")"
    same_runs "$W/one" "$W/many"
  } >"$OUTDIR/long-identity.txt" 2>&1
  tail -n 2 "$OUTDIR/long-identity.txt"
}

# Default runs of OLD and this build, alternated, by kernel group: the
# cases/s line of each.
split() {
  local old=$1 rounds=${2:-2} secs=${3:-10} i b k
  local R="run --backend cuda --time ${secs}s --seed 3 --save-precision none --save-bugs none --quiet"
  {
    for i in $(seq "$rounds"); do
      for k in all shfl,shfl-f64acc,shfl-f64 \
               atomic-block,int-atomic,fold,tournament,tree-hostsum,cublas-sdot,cublas-ddot; do
        for b in "$old" "$DF"; do
          echo "\$ $b $R --kernel $k"
          rm -rf "$WORK/split"
          "$b" $R --kernel "$k" --corpus "$WORK/split" 2>&1 | grep -E "cases in|^  [a-z0-9-]+ +[0-9]"
          echo "exit ${PIPESTATUS[0]}"
        done
      done
    done
  } >"$OUTDIR/default-split.txt" 2>&1
  grep -E '^\$|cases in' "$OUTDIR/default-split.txt"
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

# Starts CMD detached (setsid: it outlives the device call) in DIR, with
# its summary in DIR/summary.txt, its exit code after it and DIR/done at
# its end; beside it, the resident memory of every dotfuzz process
# (supervisor, probe, workers, or the one run) every EVERY s (default 30)
# in DIR/rss.tsv: elapsed s, processes, summed and largest RSS.
start_detached() {
  local dir=$1 cmd=$2 every=${3:-30}
  rm -rf "$dir" && mkdir -p "$dir"
  cat >"$dir/run.sh" <<EOS
cd "$PWD"
$cmd >"$dir/summary.txt" 2>&1
echo "exit \$?" >>"$dir/summary.txt"
touch "$dir/done"
EOS
  cat >"$dir/rss.sh" <<EOS
t0=\$(date +%s)
printf 'elapsed_s\tprocesses\trss_sum_kib\trss_max_kib\n' >"$dir/rss.tsv"
while [ ! -f "$dir/done" ]; do
  ps -C dotfuzz -o rss= | awk -v t=\$((\$(date +%s) - t0)) \
    '{ s += \$1; if (\$1 > m) m = \$1; n++ } END { printf "%d\t%d\t%d\t%d\n", t, n, s, m }' >>"$dir/rss.tsv"
  sleep $every
done
EOS
  setsid nohup bash "$dir/run.sh" >/dev/null 2>&1 </dev/null &
  setsid nohup bash "$dir/rss.sh" >/dev/null 2>&1 </dev/null &
}

# Waits up to LIMIT s for DIR/done; returns 1 if it is not there yet.
wait_done() {
  local dir=$1 limit=$2 t=0
  while [ ! -f "$dir/done" ] && [ $t -lt "$limit" ]; do sleep 5; t=$((t + 5)); done
  [ -f "$dir/done" ]
}

campaign_start() {
  local secs=${1:-1810}
  start_detached "$WORK/camp" "$DF run --out $WORK/camp/c --kernel all,mutants --seed 20261121 --time ${secs}s --jobs 4 --watchdog 5s --quiet"
  echo "started: supervised campaign, ${secs}s, in $WORK/camp/c (detached)"
}

# A default run (every kernel, batch 256, max n 65536, --pipeline auto)
# for SECONDS in DIR, detached, its memory every EVERY s.
default_run_start() {
  local dir=$1 secs=$2 every=$3
  start_detached "$dir" "$DF run --backend cuda --time ${secs}s --quiet --corpus $dir/corpus" "$every"
  echo "started: default run, ${secs}s, in $dir (detached)"
}

# Waits up to WAIT s for that run; its memory samples and summary -> OUT.
default_run_collect() {
  local dir=$1 wait=$2 out=$3 every=$4
  if ! wait_done "$dir" "$wait"; then
    tail -n 3 "$dir/rss.tsv"; echo "STILL RUNNING"; return 0
  fi
  { echo "\$ $DF run --backend cuda --time SECONDS --quiet --corpus CORPUS   (resident memory every $every s)"
    cat "$dir/rss.tsv"; grep -E '^dotfuzz run: [0-9]+ cases|^exit' "$dir/summary.txt"; } >"$out"
  cat "$out"
  echo "all done"
}

# Within one device call: SECONDS, memory every 10 s.
rss() {
  local secs=${1:-180}
  default_run_start "$WORK/rss" "$secs" 10
  default_run_collect "$WORK/rss" $((secs + 60)) "$OUTDIR/rss-default.txt" 10
}

# The 30-minute flatness check of issue 9, across device calls.
rss_start() { default_run_start "$WORK/rsslong" "${1:-1800}" 30; }
rss_collect() { default_run_collect "$WORK/rsslong" "${1:-560}" "$OUTDIR/rss-long.txt" 30; }

# The first finding of a log line matching PATTERN: its file, relative to the directory.
first_file() { grep -m1 "$1" "$2/findings.jsonl" | sed 's/.*"file":"\([^"]*\)".*/\1/'; }

campaign_collect() {
  local d="$WORK/camp/c"
  if ! wait_done "$WORK/camp" "${1:-560}"; then
    head -n 30 "$d/fuzzer_stats"; echo "STILL RUNNING"; return 0
  fi
  local crash hang
  crash=$(first_file '"kernel":"m-wild-read","verdict":"bug","rule":"\(exec\|crash\)"' "$d")
  hang=$(first_file '"rule":"hang"' "$d")
  {
    cat "$WORK/camp/summary.txt"
    echo "\$ $DF replay --no-meta $d/$crash"; $DF replay --no-meta "$d/$crash"; echo "exit $?"
    echo "\$ $DF replay --no-meta --watchdog 5 $d/$hang"; $DF replay --no-meta --watchdog 5 "$d/$hang"; echo "exit $?"
  } >"$OUTDIR/campaign-summary.txt" 2>&1
  mkdir -p "$WORK/camp/sel/findings"
  cp "$d/$crash" "$d/$hang" "$WORK/camp/sel/findings/" 2>/dev/null
  tar czf "$OUTDIR/campaign.tar.gz" -C "$WORK/camp" --exclude=c/findings c sel rss.tsv
  tail -n 45 "$OUTDIR/campaign-summary.txt"
  echo "all done"
}

# The campaign outlives one device call (10 minutes at most), so it runs
# detached (setsid) beside the model-match runs; `collect` waits for both.
start() {
  local secs=${1:-660}
  rm -rf "$WORK/bg" && mkdir -p "$WORK/bg"
  cat >"$WORK/bg/campaign.sh" <<EOS
cd "$PWD"
echo "\$ $DF run --backend cuda --time ${secs}s --seed 20261121 --corpus $WORK/campaign" >"$WORK/bg/campaign.txt"
$DF run --backend cuda --time ${secs}s --seed 20261121 --corpus "$WORK/campaign" >>"$WORK/bg/campaign.txt" 2>"$WORK/bg/campaign.err"
echo "exit \$?" >>"$WORK/bg/campaign.txt"
touch "$WORK/bg/campaign.done"
EOS
  cat >"$WORK/bg/model.sh" <<EOS
cd "$PWD"
for k in \$($DF list --names --model-checked); do
  echo "\$ $DF run --backend cuda --kernel \$k --cases 1000000 --max-n 2048 --seed 5 --save-precision none"
  $DF run --backend cuda --kernel \$k --cases 1000000 --max-n 2048 --seed 5 --save-precision none --corpus "$WORK/mm-\$k" 2>"$WORK/bg/mm-\$k.err"
  echo "exit \$?"
  grep -E '^BUG' "$WORK/bg/mm-\$k.err" | head -n 5
done >"$WORK/bg/model-match.txt"
touch "$WORK/bg/model.done"
EOS
  setsid nohup bash "$WORK/bg/campaign.sh" >/dev/null 2>&1 < /dev/null &
  setsid nohup bash "$WORK/bg/model.sh" >/dev/null 2>&1 < /dev/null &
  echo "started: campaign ${secs}s and model-match runs (detached)"
}

collect() {
  local limit=${1:-560} t=0
  while [ ! -f "$WORK/bg/campaign.done" ] || [ ! -f "$WORK/bg/model.done" ]; do
    [ $t -ge "$limit" ] && break
    sleep 5; t=$((t + 5))
  done
  cp "$WORK/bg/campaign.txt" "$OUTDIR/campaign.txt" 2>/dev/null
  grep -E '^BUG|DONE|INTERRUPTED|backend' "$WORK/bg/campaign.err" 2>/dev/null | head -n 40 >>"$OUTDIR/campaign.txt"
  cp "$WORK/bg/model-match.txt" "$OUTDIR/model-match.txt" 2>/dev/null
  tail -n 40 "$OUTDIR/campaign.txt" "$OUTDIR/model-match.txt"
  [ -f "$WORK/bg/campaign.done" ] && [ -f "$WORK/bg/model.done" ] && echo "all done" || echo "STILL RUNNING"
}

# Kernels that crash, hang or lose their context, in every mode: nothing
# lost. A finding of a faulting kernel replays as a bug (the replay of the
# whole directory in one process: its worker restarts after each fault).
untrusted() {
  local secs=${1:-120} d="$WORK/untr" lib=${PLUGIN:-build/examples/plugin/mydot_fault.so}
  local faulty=mydot-fault-read,mydot-fault-host rc=0 B=${BACKEND:-cuda}
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
    echo "\$ $DF run --backend $B --kernel-lib $lib --kernel $faulty,m-wild-read,m-hang --time 30s --watchdog 5s --seed 7 --quiet --corpus $d/plain"
    $DF run --backend "$B" --kernel-lib "$lib" --kernel "$faulty,m-wild-read,m-hang" --time 30s \
        --watchdog 5s --seed 7 --quiet --corpus "$d/plain" >"$d/plain.out" 2>&1
    echo "exit $?"
    grep -E 'cases in|worker processes lost|findings saved' "$d/plain.out"
    check_replays "$d/plain"
    echo
    mkdir -p "$d/reg"
    echo "\$ $DF smoke --backend $B --kernel-lib $lib --kernel $faulty --corpus $d/reg --time 60 --findings $d/s --junit $d/s.xml --json $d/s.json"
    $DF smoke --backend "$B" --kernel-lib "$lib" --kernel "$faulty" --corpus "$d/reg" --time 60 \
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

case "${1:-}" in
  env) env_info ;;
  untrusted) untrusted "${2:-120}" ;;
  bandwidth) bandwidth ;;
  sanitize) sanitize ;;
  invariants) invariants ;;
  benchref) benchref ;;
  hostmem) hostmem "${2:-}" ;;
  rows) [ $# -ge 3 ] || { echo "usage: $0 rows ROUNDS BUILD..." >&2; exit 2; }; shift; rows "$@" ;;
  longid) longid ;;
  compare) compare "${2:-300}" ;;
  hunt) hunt ;;
  soft) soft ;;
  perf) perf "${2:-2}" ;;
  ab) ab "$2" "${3:-2}" ;;
  split) split "$2" "${3:-2}" "${4:-10}" ;;
  rss) rss "${2:-180}" ;;
  rss-start) rss_start "${2:-1800}" ;;
  rss-collect) rss_collect "${2:-560}" ;;
  memcheck) memcheck ;;
  rounds) rounds ;;
  campaign-start) campaign_start "${2:-1810}" ;;
  campaign-collect) campaign_collect "${2:-560}" ;;
  lfcompare) lfcompare "${2:-90}" ;;
  lfmutant) lfmutant "${2:-m-nonatomic}" ;;
  start) start "${2:-660}" ;;
  collect) collect "${2:-560}" ;;
  *) echo "usage: $0 env|untrusted [SECONDS]|bandwidth|sanitize|invariants|rounds|benchref|hunt|soft|perf|ab OLD [ROUNDS]|rows ROUNDS BUILD...|longid|lfcompare [SECONDS]|lfmutant [KERNEL]|compare [SECONDS]|rss [SECONDS]|rss-start [SECONDS]|rss-collect [WAIT]|memcheck|start [SECONDS]|collect [WAIT]|campaign-start [SECONDS]|campaign-collect [WAIT]" >&2; exit 2 ;;
esac
