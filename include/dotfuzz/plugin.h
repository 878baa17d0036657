/* dotfuzz/plugin.h — the C ABI through which `dotfuzz --kernel-lib lib.so`
 * loads a user's own dot routines and fuzzes them beside the built-in ones.
 *
 * Self-contained: it needs only <stddef.h> and <stdint.h>, it is valid C89
 * (with <stdint.h>), C99, C11 and C++, and it exposes nothing of dotfuzz's
 * internals. A plugin is a shared library that defines one function,
 *
 *     const dotfuzz_plugin *dotfuzz_plugin_entry(void);
 *
 * returning a pointer to a static description of its kernels (a table of
 * dotfuzz_kernel). dotfuzz calls it once, right after dlopen, and keeps the
 * library loaded until it exits, so every pointer in the description (the
 * strings included) must stay valid as long as the library is loaded.
 *
 * Versioning. The first field of dotfuzz_plugin is abi_version; it sits at
 * offset 0 in every version of this ABI, so any dotfuzz can read it without
 * knowing the rest of the layout. A dotfuzz refuses a plugin whose
 * abi_version is not one it speaks, with a message that gives both
 * numbers, and refuses a plugin whose struct sizes differ from that
 * version's (a header edited by hand, or a mismatched compiler). Fields
 * are only ever added at the end of a struct in a new ABI version, never
 * reordered, so an older version's dotfuzz_kernel is a prefix of a newer
 * one's and kernel_size says which a table holds.
 *
 * This dotfuzz speaks versions 1, 2 and 3. Version 2 adds the element
 * types f16, bf16, e4m3 and e5m2, the accumulator f16, and
 * dotfuzz_kernel.fused (a fused, tensor-core style accumulation). Version
 * 3 adds the batched device form (dotfuzz_kernel.dot_device_batch, with
 * dotfuzz_batch and dotfuzz_batch_case) and device scratch
 * (dotfuzz_kernel.scratch_bytes, dotfuzz_launch.d_scratch). Version 1 and
 * 2 plugins load unchanged. An older source compiles against this header
 * as a version 3 plugin whose kernels have none of the newer fields; with
 * -Wextra a positional initializer that stops before them warns (give each
 * 0). Defining DOTFUZZ_PLUGIN_ABI_VERSION as 1 or 2 before including this
 * header gives that version's layout and names exactly, and builds a
 * plugin of that version.
 *
 * A kernel comes in up to four forms; it needs dot_host or dot_device:
 *
 *   dot_host    the whole routine: host vectors in, host result out. This
 *               is where host-side bugs live (a result buffer not zeroed,
 *               a copy of the wrong size). It "runs anywhere": on the
 *               host backend dotfuzz calls it directly, and on the cuda
 *               backend (when there is no dot_device) it is called as is,
 *               doing its own cudaMalloc and copies if it is a GPU routine.
 *   dot_device  the device form: device pointers in, the result written to
 *               device memory, asynchronously on the given cudaStream_t.
 *               Used on the cuda backend only.
 *   dot_device_batch  version 3, optional, only beside dot_device: the
 *               device form for many cases at once (dotfuzz_batch: a
 *               table of cases in device memory, each result into its own
 *               slot, in one launch or a few). The cuda backend runs its
 *               batches through it and single cases (replay, minimize,
 *               a case under a perturbed schedule, a batch's cases rerun
 *               one at a time after an error) through dot_device, so a
 *               deterministic kernel's two device forms must give the
 *               same bits for the same case (share the device code).
 *               Without it a batch calls dot_device once per case, a
 *               launch each.
 *   host_model  optional: the same operations in the same order on the
 *               CPU. On the cuda backend a DOTFUZZ_DETERMINISTIC kernel's
 *               result must equal its model's bit for bit (the model-match
 *               rule). A kernel with dot_device and a model but no
 *               dot_host runs its model on the host backend, as dotfuzz's
 *               built-in kernels do.
 *
 * Every form returns 0 on success and writes the result, in the kernel's
 * accumulator type (float, double, int32_t, or an f16's bits as a
 * uint16_t), to its result pointer (the batched form: each case's to its
 * slot). A nonzero return is reported as an execution failure of the
 * kernel (a bug verdict, like a CUDA error). dotfuzz fills the result
 * buffer (every slot of a batch) with a poison pattern (all bits set:
 * NaN, or -1) before each call, so a routine that adds into it without
 * first zeroing it is caught.
 *
 * Build a plugin with, e.g.,
 *     cc -std=c11 -O2 -fPIC -shared -I/path/to/dotfuzz/include -o mydot.so mydot.c
 * (examples/plugin/ is a complete one), then
 *     dotfuzz list --kernel-lib ./mydot.so
 *     dotfuzz run  --kernel-lib ./mydot.so --kernel mydot --backend host
 */
#ifndef DOTFUZZ_PLUGIN_H
#define DOTFUZZ_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this ABI. A plugin puts it in dotfuzz_plugin.abi_version.
 * Defined as 1 or 2 before this header is included, the header is that
 * version's (above, Versioning). */
#ifndef DOTFUZZ_PLUGIN_ABI_VERSION
#define DOTFUZZ_PLUGIN_ABI_VERSION 3
#endif
#if DOTFUZZ_PLUGIN_ABI_VERSION != 1 && DOTFUZZ_PLUGIN_ABI_VERSION != 2 && \
    DOTFUZZ_PLUGIN_ABI_VERSION != 3
#error "dotfuzz/plugin.h: DOTFUZZ_PLUGIN_ABI_VERSION must be 1, 2 or 3"
#endif

/* The name of the one symbol dotfuzz looks up with dlsym. */
#define DOTFUZZ_PLUGIN_ENTRY_SYMBOL "dotfuzz_plugin_entry"

/* Longest kernel name, in characters (names are also stored in case files). */
#define DOTFUZZ_PLUGIN_NAME_MAX 31

/* Element and accumulator types (dotfuzz_kernel.elem and .acc). The
 * accumulator is also the type of the result a routine writes:
 *   DOTFUZZ_F32: float     DOTFUZZ_F64: double     DOTFUZZ_I32: int32_t
 * Allowed pairs (elem -> acc): f32 -> f32, f32 -> f64, f64 -> f64,
 * i32 -> i32. */
#define DOTFUZZ_F32 1u
#define DOTFUZZ_F64 2u
#define DOTFUZZ_I32 3u
#if DOTFUZZ_PLUGIN_ABI_VERSION >= 2
/* Version 2: the low-precision types, each element its bits, little-endian
 * as the machine stores them:
 *   DOTFUZZ_F16   IEEE binary16 (uint16_t; _Float16, CUDA's __half)
 *   DOTFUZZ_BF16  bfloat16 (uint16_t; CUDA's __nv_bfloat16)
 *   DOTFUZZ_E4M3  OCP FP8 E4M3 (uint8_t; CUDA's __nv_fp8_e4m3): no Inf,
 *                 largest 448, S.1111.111 its NaN
 *   DOTFUZZ_E5M2  OCP FP8 E5M2 (uint8_t; CUDA's __nv_fp8_e5m2)
 * DOTFUZZ_F16 is also an accumulator: the result is an f16's bits, a
 * uint16_t. More allowed pairs: each of the four -> f16, f32 or f64. */
#define DOTFUZZ_F16 4u
#define DOTFUZZ_BF16 5u
#define DOTFUZZ_E4M3 6u
#define DOTFUZZ_E5M2 7u
#endif

/* Kernel traits (dotfuzz_kernel.flags); any other bit is refused. */
/* Same bits on every run: reruns must agree, and with a host_model the
 * model-match rule applies. Leave it out for routines that sum in an order
 * that varies (atomics): their differing reruns are then reported as
 * nondeterministic, never as bugs. */
#define DOTFUZZ_DETERMINISTIC 0x1u
/* Subnormal values may be flushed to zero (float atomicAdd on global
 * memory does this): the error bound gets a flush-to-zero term. */
#define DOTFUZZ_FLUSHES_SUBNORMALS 0x2u
/* Correct for vectors that start any number of elements past an aligned
 * address: dotfuzz then also passes unaligned vectors (launch offsets). */
#define DOTFUZZ_ANY_ALIGNMENT 0x4u
/* Needs a power-of-two block size. */
#define DOTFUZZ_BLOCK_POW2 0x8u
/* Needs a block size that is a multiple of 32. */
#define DOTFUZZ_BLOCK_WARP 0x10u
/* The grid is a free parameter (a grid-stride loop): dotfuzz picks grids
 * up to grid_max. Without it the grid is ceil(n / (block * per_thread)). */
#define DOTFUZZ_GRID_FREE 0x20u
/* Takes lengths past 2^31 (every index and count 64-bit, on the device and
 * in the host model): `run --huge` and `hunt --huge` give it cases of
 * 2^31 + 1 elements and more. A dotfuzz that predates the bit refuses it
 * as unknown. */
#define DOTFUZZ_LEN64 0x40u
/* f32 inputs read as tf32 (their 13 lowest fraction bits cleared, as
 * tensor cores read f32 operands): the bound gains that cut, and the
 * exact and few-term rules, which assume whole f32 inputs, stand aside.
 * f32 elements only. A dotfuzz that predates the bit refuses it as
 * unknown. */
#define DOTFUZZ_TF32_INPUTS 0x80u
/* Takes BLAS arguments (dotfuzz's docs/blas.md): every form gets the
 * call's arrays x and y (host or device memory, as the form takes its
 * vectors), each the footprint of its vector, 1 + (n - 1) |inc| elements
 * (1 for inc 0, none for n 0), laid out by its increment with NaN
 * (INT32_MIN) in the elements the call must not read; and the call's
 * increments and n: dotfuzz_launch's inc_a, inc_b and n_arg for the
 * per-case forms, dotfuzz_batch_case's for the batched one (n <= 0
 * included: n is then 0). The result is reference BLAS's dot(n_arg, x,
 * inc_a, y, inc_b): nothing read and 0 for n_arg <= 0, a negative
 * increment's vector read from the end of its footprint, a zero one's
 * element 0 read n times. Not with DOTFUZZ_ANY_ALIGNMENT. On the cuda
 * backend a kernel runs its device forms; one with dot_host alone runs on
 * the host backend only. A dotfuzz that predates the bit refuses it as
 * unknown. */
#define DOTFUZZ_BLAS 0x100u

#define DOTFUZZ_KNOWN_FLAGS 0x1ffu

/* The launch configuration dotfuzz chose for a case, valid for the kernel
 * (inside its block range, grid derived or free as its flags say). A
 * whole routine may use it or ignore it. offset_a and offset_b are
 * nonzero only for DOTFUZZ_ANY_ALIGNMENT kernels: the vectors a routine
 * receives then start that many elements past a 64-byte (host) or
 * 256-byte (device) aligned address. */
typedef struct dotfuzz_launch {
    uint32_t block;
    uint32_t grid;
    uint32_t offset_a;
    uint32_t offset_b;
    /* The BLAS call's arguments, for DOTFUZZ_BLAS kernels (others: 1, 1,
     * n). A dotfuzz that predates DOTFUZZ_BLAS passes the four fields
     * above only, and refuses the flag, so read these only with it. */
    int32_t inc_a;
    int32_t inc_b;
    int64_t n_arg;
#if DOTFUZZ_PLUGIN_ABI_VERSION >= 3
    /* Version 3: for dot_device of a kernel with scratch_bytes, the case's
     * device scratch: scratch_bytes(n, launch) bytes or more, 256-byte
     * aligned, its contents left by earlier work (zero what must start at
     * zero, on the stream). NULL for every other call. */
    void *d_scratch;
#endif
} dotfuzz_launch;

/* The whole routine, and the host model (same signature): a and b are n
 * elements of the kernel's element type in host memory (n may be 0: the
 * dot of empty vectors is 0); result_out points at host memory for one
 * value of the accumulator type. Synchronous: the result must be in
 * result_out when it returns. Returns 0, or nonzero on failure. */
typedef int (*dotfuzz_dot_host_fn)(const void *a, const void *b, uint64_t n,
                                   const dotfuzz_launch *launch,
                                   void *result_out);

/* The device form: d_a and d_b are n elements in device memory
 * (DOTFUZZ_BLAS: the call's arrays), d_result is device memory for one
 * value of the accumulator type (at least 16 bytes, 16-byte aligned; its
 * contents on entry are the poison pattern), stream is the cudaStream_t to
 * enqueue all work on; a kernel with scratch_bytes (version 3) finds the
 * case's device scratch in launch->d_scratch. Asynchronous: dotfuzz
 * copies d_result back after the work on stream is done; the routine may
 * not synchronize other streams' work into it. dotfuzz makes one call at
 * a time, on one stream. Returns 0, a cudaError_t value (> 0) when a CUDA
 * call failed, or a negative value for any other failure. */
typedef int (*dotfuzz_dot_device_fn)(const void *d_a, const void *d_b,
                                     uint64_t n, const dotfuzz_launch *launch,
                                     void *d_result, void *stream);

#if DOTFUZZ_PLUGIN_ABI_VERSION >= 3
/* Version 3: the device scratch a case needs, in bytes, for n elements
 * under launch (block and grid resolved; its d_scratch NULL). dot_device
 * gets it in launch->d_scratch, dot_device_batch at each case's
 * scratch_off. 0: none. */
typedef uint64_t (*dotfuzz_scratch_bytes_fn)(uint64_t n, const dotfuzz_launch *launch);

/* Version 3: one case of a batch (dot_device_batch), in device memory. */
typedef struct dotfuzz_batch_case {
    const void *a, *b;      /* device: the case's vectors (DOTFUZZ_BLAS: the
                               call's arrays), at the launch's offsets past a
                               256-byte aligned address: the address itself
                               tells a DOTFUZZ_ANY_ALIGNMENT kernel its
                               misalignment */
    uint64_t n;             /* elements of each vector */
    uint64_t scratch_off;   /* bytes into dotfuzz_batch.d_scratch: the case's
                               scratch, scratch_bytes(n, launch) bytes,
                               256-byte aligned (kernels with scratch_bytes) */
    uint32_t grid, block;   /* the case's launch; block is the batch's */
    uint32_t first_block;   /* the case's blocks in a launch of
                               dotfuzz_batch.blocks blocks: first_block ..
                               first_block + grid - 1 */
    uint32_t result;        /* its result slot: dotfuzz_batch.d_results + 16 *
                               result */
    uint32_t ticket;        /* 0 on entry: a counter the kernel may use (which
                               of the case's blocks finishes last) */
    uint32_t blocks;        /* equal to grid */
    int32_t inc_a, inc_b;   /* DOTFUZZ_BLAS: the call's increments; else 1, 1 */
    int64_t n_arg;          /* DOTFUZZ_BLAS: the call's n (<= 0: n is 0); else n */
} dotfuzz_batch_case;

/* Version 3: what one dot_device_batch call gets: count cases of one block
 * size. Its work goes on `stream`, asynchronously, as dot_device's does;
 * dotfuzz copies the results back once the stream's work is done. Two
 * ways to give each case its blocks, in one launch:
 *   1-D   <<<blocks, block>>>: block X belongs to the last case whose
 *         first_block <= X (first_block grows with the table index: a
 *         binary search, dotfuzz_batch_case_of below), as block X -
 *         first_block of that case's grid;
 *   2-D   <<<dim3(max_grid, count), block>>>: blockIdx.y is the case,
 *         blockIdx.x its block, and blocks with blockIdx.x >= its grid
 *         return at once (gridDim.y is at most 65535: more cases take
 *         more launches).
 * A big batch arrives as several calls, one per block size, which dotfuzz
 * may enqueue on different streams to run side by side: a call's work
 * touches its own cases' entries, scratch and result slots only. */
typedef struct dotfuzz_batch {
    dotfuzz_batch_case *d_cases; /* device: the cases, count entries */
    uint64_t count;         /* at least 1 */
    uint32_t block;         /* every case's block size */
    uint32_t blocks;        /* the sum of their grids (at most 2^31 - 1) */
    uint32_t max_grid;      /* the largest of their grids */
    uint32_t reserved;      /* 0 */
    uint64_t max_n;         /* the largest of their n */
    void *d_scratch;        /* device: the base of every scratch_off (kernels
                               with scratch_bytes; else NULL) */
    void *d_results;        /* device: result slots of 16 bytes, each
                               16-byte aligned; each of these cases' slot
                               holds the poison pattern on entry */
    void *stream;           /* cudaStream_t */
} dotfuzz_batch;

/* The batched device form: every case of the batch, each case's result
 * (one value of the accumulator type, as dot_device writes it) into its
 * slot. For a DOTFUZZ_DETERMINISTIC kernel, case j's result must equal,
 * bit for bit, what dot_device gives for that case alone. Returns 0, a
 * cudaError_t value (> 0) when a CUDA call failed, or a negative value for
 * any other failure; dotfuzz then reruns the batch's cases one at a time
 * through dot_device, where the CUDA context survived the failure. */
typedef int (*dotfuzz_dot_device_batch_fn)(const dotfuzz_batch *batch);

#ifdef __CUDACC__
/* Version 3, in CUDA device code: the index of the case that block x of a
 * 1-D launch (<<<blocks, block>>>) belongs to, among cases[0 .. count):
 * the last one whose first_block <= x, by binary search (first_block
 * grows with the index). The block is then block x - first_block of that
 * case's grid. */
static __device__ __forceinline__ uint64_t dotfuzz_batch_case_of(const dotfuzz_batch_case *cases,
                                                                 uint64_t count, uint32_t x)
{
    uint64_t lo = 0, hi = count;
    while (hi - lo > 1) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (cases[mid].first_block <= x)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}
#endif
#endif

/* Tree height h(n, launch): the longest chain of roundings from an input
 * to the result, the product's own rounding included. The oracle bounds a
 * float kernel's error by gamma_h * sum|a_i b_i| with gamma_h = h u /
 * (1 - h u); a smaller h is a tighter check. A sequential sum has h = n,
 * a pairwise tree 1 + ceil(log2 n). NULL: dotfuzz uses h = n, which holds
 * for every evaluation order. Must not return less than the real height,
 * or correct results are reported as bugs. */
typedef uint64_t (*dotfuzz_tree_height_fn)(uint64_t n,
                                           const dotfuzz_launch *launch);

#if DOTFUZZ_PLUGIN_ABI_VERSION >= 2
/* Version 2: a fused accumulation (dotfuzz_kernel.fused), as tensor cores
 * sum: the dot is taken in groups of `group` products in order, each
 * group's step adding its products and the running sum c at once: every
 * term (products exact, each at the sum of its factors' exponents) is
 * aligned to the largest and cut to align_bits fraction bits below it, the
 * cut terms are added exactly, and the sum is rounded once to out_bits
 * fraction bits (exponents out_min_exp to out_max_exp) by out_round. With
 * chains > 1, chain r takes groups r, r + chains, r + 2 chains, ... and the
 * chains' results are added at the end in the accumulator, in chain
 * order, rounded to nearest. dotfuzz then bounds the kernel's error by
 * this arithmetic's (docs/oracle.md, fused accumulation) rather than by
 * the tree height's. Hopper's mma on f16 inputs into f32 is
 * {16, 25, 23, DOTFUZZ_ROUND_ZERO, -126, 127, -14, 1}.
 * Only for f16, bf16, e4m3 and e5m2 elements. Checked when loaded:
 *   group         1 to 64
 *   align_bits    1 to 48
 *   out_bits      1 to the accumulator's fraction bits (f16 10, f32 23,
 *                 f64 52)
 *   out_round     DOTFUZZ_ROUND_NEAREST (ties to even) or DOTFUZZ_ROUND_ZERO
 *   out_min_exp, out_max_exp   the accumulator's smallest normal exponent
 *                 <= out_min_exp < out_max_exp <= its largest exponent
 *                 (f16 -14, 15; f32 -126, 127; f64 -1022, 1023)
 *   in_min_exp    the element type's smallest normal exponent (f16 -14,
 *                 bf16 -126, e4m3 -6, e5m2 -14), or 0 for that
 *   chains        0 or 1 (one chain) to 65536 */
#define DOTFUZZ_ROUND_NEAREST 0u
#define DOTFUZZ_ROUND_ZERO 1u

typedef struct dotfuzz_fused {
    uint32_t group;       /* products a fused step takes */
    int32_t align_bits;   /* fraction bits kept below a group's largest term */
    int32_t out_bits;     /* fraction bits of a step's rounded result */
    uint32_t out_round;   /* DOTFUZZ_ROUND_NEAREST or DOTFUZZ_ROUND_ZERO */
    int32_t out_min_exp;  /* the result's smallest normal exponent */
    int32_t out_max_exp;  /* the result's largest exponent */
    int32_t in_min_exp;   /* the inputs' smallest normal exponent, or 0 */
    uint32_t chains;      /* chains side by side (0 means 1) */
} dotfuzz_fused;
#endif

/* One kernel. Every field is checked when the library is loaded; a bad one
 * refuses the whole library with a message naming the kernel and field. */
typedef struct dotfuzz_kernel {
    /* 1 to DOTFUZZ_PLUGIN_NAME_MAX characters from [A-Za-z0-9_.-], unique
     * among all kernels (built-in and loaded); --kernel and case files
     * name the kernel by it. */
    const char *name;
    /* One line for `dotfuzz list`: what the routine does. May be NULL. */
    const char *summary;
    uint32_t elem;          /* DOTFUZZ_F32, DOTFUZZ_F64, DOTFUZZ_I32 (version 2:
                               DOTFUZZ_F16, DOTFUZZ_BF16, DOTFUZZ_E4M3, DOTFUZZ_E5M2) */
    uint32_t acc;           /* accumulator and result type (pairs above) */
    uint32_t flags;         /* DOTFUZZ_* traits */
    /* Block sizes dotfuzz may choose: 1 <= block_min <= block_default <=
     * block_max <= 1024, and block_default obeying the block flags. A
     * routine that takes no block size gives 1, 1, 1. */
    uint32_t block_min;
    uint32_t block_max;
    uint32_t block_default;
    /* DOTFUZZ_GRID_FREE kernels: the largest grid (0 = no limit); must be
     * 0 otherwise. */
    uint32_t grid_max;
    /* Elements each thread handles when the grid is derived from n
     * (1 or more; 0 means 1). */
    uint32_t per_thread;
    /* The longest n the routine accepts (0 = no limit). */
    uint64_t max_n;
    dotfuzz_tree_height_fn tree_height; /* may be NULL: h = n */
    dotfuzz_dot_host_fn dot_host;       /* may be NULL if dot_device is set */
    dotfuzz_dot_device_fn dot_device;   /* may be NULL if dot_host is set */
    dotfuzz_dot_host_fn host_model;     /* may be NULL */
#if DOTFUZZ_PLUGIN_ABI_VERSION >= 2
    /* Version 2: its fused accumulation (above); NULL when its sums are
     * IEEE additions in acc, each rounded to nearest. */
    const dotfuzz_fused *fused;
#endif
#if DOTFUZZ_PLUGIN_ABI_VERSION >= 3
    /* Version 3: the device scratch its device forms need per case; NULL
     * (none) or only beside dot_device. */
    dotfuzz_scratch_bytes_fn scratch_bytes;
    /* Version 3: the batched device form; NULL (a batch calls dot_device
     * per case) or only beside dot_device. */
    dotfuzz_dot_device_batch_fn dot_device_batch;
#endif
} dotfuzz_kernel;

/* What dotfuzz_plugin_entry returns. */
typedef struct dotfuzz_plugin {
    uint32_t abi_version;   /* DOTFUZZ_PLUGIN_ABI_VERSION; always first */
    uint32_t plugin_size;   /* sizeof(dotfuzz_plugin) */
    uint32_t kernel_size;   /* sizeof(dotfuzz_kernel) */
    uint32_t nkernels;      /* entries in kernels, at least 1 */
    const char *name;       /* the plugin's name, for messages; may be NULL */
    const dotfuzz_kernel *kernels;
} dotfuzz_plugin;

/* The first three fields of a dotfuzz_plugin, for an initializer:
 *   static const dotfuzz_plugin plugin = {
 *       DOTFUZZ_PLUGIN_HEADER, 2, "mydot", kernels };                      */
#define DOTFUZZ_PLUGIN_HEADER                                                  \
    DOTFUZZ_PLUGIN_ABI_VERSION, (uint32_t)sizeof(dotfuzz_plugin),              \
        (uint32_t)sizeof(dotfuzz_kernel)

/* Keeps the entry point visible in a library built with
 * -fvisibility=hidden. */
#if defined(__GNUC__) || defined(__clang__)
#define DOTFUZZ_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define DOTFUZZ_PLUGIN_EXPORT
#endif

/* The entry point a plugin defines (with C linkage: declared here inside
 * extern "C", a C++ definition gets it too). */
DOTFUZZ_PLUGIN_EXPORT const dotfuzz_plugin *dotfuzz_plugin_entry(void);

typedef const dotfuzz_plugin *(*dotfuzz_plugin_entry_fn)(void);

#ifdef __cplusplus
}
#endif
#endif
