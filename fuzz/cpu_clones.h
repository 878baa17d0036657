/* cpu_clones.h — DF_CPU_CLONES: a hot function compiled twice on x86-64
 * with GCC or clang, for CPUs with AVX2 and FMA (x86-64-v3) and for any
 * x86-64; the loader picks one for the CPU (an ifunc). Only for code whose
 * results do not depend on the choice: integer and exact work, IEEE
 * operations (the build has -ffp-contract=off, so nothing is fused that
 * the source does not fuse), and fma()/fmaf(), correctly rounded either
 * way (one instruction instead of a libm call).
 * clang (14, measured with perf on an AVX-512 machine) builds both copies
 * but its loader picks the default one: a clang build runs the baseline
 * code, the same results more slowly; the release build is gcc's. */
/* DF_CPU_CLONES_V4 adds an x86-64-v4 (AVX-512) copy, for code written in
 * 64-byte vectors (refs_many.c's Kahan lanes): one instruction a vector
 * and 32 vector registers there, pairs of 32-byte ones in the v3 copy. */
#ifndef DOTFUZZ_CPU_CLONES_H
#define DOTFUZZ_CPU_CLONES_H

#if defined(__x86_64__) && defined(__GNUC__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define DF_CPU_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#define DF_CPU_CLONES_V4                                                       \
    __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
#endif
#ifndef DF_CPU_CLONES
#define DF_CPU_CLONES
#define DF_CPU_CLONES_V4
#endif

#endif
