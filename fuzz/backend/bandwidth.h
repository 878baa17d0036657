/* bandwidth.h — the measurement behind `dotfuzz bandwidth`: every kernel
 * that has a GPU launcher, timed in one process run beside cuBLAS of its
 * element type and a device-to-device copy, so the ratios are measured
 * together.
 *
 * Rows: element types in df_type order (f32, f64, i32, f16, bf16, e4m3,
 * e5m2), those that some kernel with a GPU launcher takes. A kernel's row
 * runs at n, or at its max_n when that is smaller (the tensor-core and
 * cuBLASLt dots take at most 65,536 elements): df_bw_row_n. Each length of
 * a type gets its device-copy row first, then the kernels of that length
 * in registry order, then the type's cuBLAS baseline (df_bw_baseline) at
 * that length too when it is not among them and takes it, so "vs cuBLAS"
 * compares rows of one type and one length (df_bw_plan, df_bw_ratios).
 * i32 kernels keep n past their max_n, for timing only: their max_n is an
 * overflow bound for the fuzzer's values (|a|, |b| <= 50), and these
 * inputs keep every partial sum inside int32 up to 2^28 elements.
 *
 * Inputs: random values (floats odd multiples of 2^-24 in (-1, 1),
 * doubles odd multiples of 2^-32 in (-1, 1), int32 in {-2, -1, 1, 2} so no
 * partial sum of 2^28 products overflows, f16, bf16, e4m3 and e5m2 values
 * of (-1, 1) rounded to the format, a few of the narrow ones to zero),
 * allocated once per element type at its longest row, a and b 256-byte
 * aligned; a shorter row reads their first elements.
 * Launch: the kernel's default, except DF_K_GRID_FREE kernels, which run a
 * persistent grid: SMs x resident blocks per SM at block_default, the
 * latter from cudaOccupancyMaxActiveBlocksPerMultiprocessor for kernels
 * that export their function (the shfl family), else the SM's thread and
 * block limits (said in the row). Kernels pinned to block 1 x grid 1 (cuBLAS)
 * choose their own launch.
 * Timing: 2 warm-up runs, then `reps` runs, each one ops->enqueue between
 * two CUDA events on the stream (so the kernel's own memsets and result copy
 * count; a host-side finish does not); the median. Kernels slower than
 * budget_s / reps per run get fewer runs (at least DF_BW_MIN_REPS).
 * Bytes: a dot reads 2*n*esize bytes; the copy row copies 2*n*esize bytes
 * and counts them twice (read + write). At 65,536 elements a row's data
 * sit in L2 and its time is mostly launch latency: its GB/s is no DRAM
 * figure, and its worth is the ratio to cuBLAS at the same length.
 * The result of the last timed run is judged by the oracle (fuzz/oracle.h)
 * against the CPU references of the row's length, except for a row past its
 * kernel's max_n (i32), which is timed only ("not judged").
 */
#ifndef DOTFUZZ_BANDWIDTH_H
#define DOTFUZZ_BANDWIDTH_H

#include <stddef.h>
#include <stdint.h>

#include "fuzz/case.h"
#include "fuzz/oracle.h"
#include "reference/reference.h"
#include "kernels/kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DF_BW_DEFAULT_N (UINT64_C(1) << 28)
#define DF_BW_DEFAULT_REPS 20u
#define DF_BW_MAX_REPS 1000u
#define DF_BW_MIN_REPS 3u
#define DF_BW_WARMUPS 2u
#define DF_BW_DEFAULT_BUDGET_S 2.0 /* timed seconds per row, at most (about) */

typedef struct df_bw_opts {
    uint64_t n;         /* elements per vector, >= 1 */
    unsigned reps;      /* timed runs per row, 1..DF_BW_MAX_REPS */
    double peak_gbps;   /* > 0: use this peak; 0: read it off the device */
    double budget_s;    /* per-row time budget that caps reps of slow kernels */
    /* Called before each row is measured ("shfl f32"); may be NULL. */
    void (*progress)(void *arg, const char *what);
    void *progress_arg;
} df_bw_opts;

typedef struct df_bw_row {
    int is_copy;             /* the device-copy row of its type */
    char name[DF_NAME_MAX];  /* kernel name, or "device-copy" */
    df_type type;
    uint64_t n;              /* elements per vector this row ran at */
    char launch[72];         /* "1056 x 256 persistent (132 SMs x 8)" */
    unsigned reps;           /* timed runs; 0 when it did not run */
    double ms;               /* median time of one run */
    double bytes;            /* bytes counted for one run */
    double gbps;             /* bytes / median time, 1e9 bytes per second */
    double frac_peak;        /* gbps / peak */
    double vs_cublas;        /* gbps / the cuBLAS row of its type and n; 0: none */
    int failed;              /* a CUDA error or a bug verdict */
    char result[256];        /* verdict, "not judged: ...", or the error */
} df_bw_row;

typedef struct df_bw_report {
    char device[256];        /* "NVIDIA H200" */
    int cc_major, cc_minor;
    int sm_count;
    int driver_version;      /* CUDA versions as 1000 * major + 10 * minor */
    int runtime_version;
    int mem_clock_khz;       /* cudaDevAttrMemoryClockRate */
    int bus_width_bits;      /* cudaDevAttrGlobalMemoryBusWidth */
    double peak_gbps;        /* used for frac_peak */
    int peak_from_option;    /* 1: --peak-gbps; 0: 2 * clock * bus / 8 */
    uint64_t n;              /* --n: the rows' n, but where a max_n is smaller */
    unsigned reps;           /* requested timed runs per row */
    int aborted;             /* a sticky CUDA error ended the run early */
    size_t nrows;
    df_bw_row *rows;
} df_bw_report;

void df_bw_opts_default(df_bw_opts *o);

/* Measures on device 0 (CUDA_VISIBLE_DEVICES selects). Returns 0 with rep
 * filled (rows may still report failures; rep->aborted when a kernel broke
 * the context), or -1 with a reason in err when nothing could be measured:
 * built without CUDA, no device, bad options, out of memory.
 * Free rep with df_bw_report_free either way. */
int df_bandwidth_measure(const df_bw_opts *o, df_bw_report *rep, char *err,
                         size_t err_len);
void df_bw_report_free(df_bw_report *rep);

/* Pieces of the measurement that need no GPU (exposed for tests). */

/* 2 transfers per clock * clock * bus width / 8, in 1e9 bytes per second. */
double df_bw_peak_gbps(int mem_clock_khz, int bus_width_bits);
/* Median of count > 0 times; sorts ms in place. */
double df_bw_median(float *ms, unsigned count);
/* Timed runs for a kernel whose warm-up run took warm_ms: reps, fewer when
 * reps runs would take longer than budget_s, never below DF_BW_MIN_REPS
 * (or reps, if smaller). */
unsigned df_bw_reps_for(double warm_ms, unsigned reps, double budget_s);
/* The inputs described above, from a fixed seed per type. */
void df_bw_fill(df_type t, void *a, void *b, uint64_t n);
/* Judges a row's result with the oracle: fills row->result and
 * row->failed (verdict bug). */
void df_bw_judge(const df_kernel *k, const df_case *c, const df_refs *refs,
                 const df_result *res, df_bw_row *row);

/* The name of the cuBLAS kernel the rows of type t are compared with
 * ("vs cuBLAS"), or NULL (i32, e5m2: cuBLAS has no such dot). */
const char *df_bw_baseline(df_type t);
/* The length k's row runs at when the run's length is n: n, or k's max_n
 * when smaller, but for i32 kernels (above). */
uint64_t df_bw_row_n(const df_kernel *k, uint64_t n);

/* One row to measure: kernel k (NULL: the device copy) of type type at
 * n elements per vector. */
typedef struct df_bw_plan_row {
    const df_kernel *k;
    df_type type;
    uint64_t n;
} df_bw_plan_row;

/* Rows df_bw_plan may give for count kernels: a kernel row each, and per
 * type and length at most a copy row and a baseline row. */
#define DF_BW_PLAN_MAX(count) (3 * (count))

/* The rows for kernels ks[0..count) (those with a GPU launcher) at the run's
 * length n, in the order above, into out (DF_BW_PLAN_MAX(count) of them);
 * returns how many. Per type the longest length comes first. */
size_t df_bw_plan(uint64_t n, const df_kernel *const *ks, size_t count,
                  df_bw_plan_row *out);
/* Fills each row's vs_cublas from the baseline row of its type and n that
 * measured a rate (0 where there is none). */
void df_bw_ratios(df_bw_report *rep);

#ifdef __cplusplus
}
#endif
#endif
