/* gen_fakes.h — what the generator's tests share: fake kernel
 * descriptors that carry only limits and flags (the generator never runs a
 * kernel), and an FNV-1a hash of a case's shape and bytes. */
#ifndef DOTFUZZ_TEST_GEN_FAKES_H
#define DOTFUZZ_TEST_GEN_FAKES_H

#include <stddef.h>
#include <stdint.h>

#include "fuzz/gen/generator.h"

/* grid-stride, any alignment, f32: everything fuzzable */
static const df_kernel df_fake_free_f32 = {
    .name = "fake-free-f32", .origin = "test", .summary = "test",
    .elem = DF_F32, .acc = DF_F32,
    .flags = DF_K_DETERMINISTIC | DF_K_ANY_ALIGNMENT | DF_K_GRID_FREE,
    .block_min = 32, .block_max = 1024, .block_default = 256,
    .grid_max = 0, .per_thread = 1, .max_n = 1u << 20,
};

/* power-of-two tree, grid derived, f64, two elements per thread */
static const df_kernel df_fake_pow2_f64 = {
    .name = "fake-pow2-f64", .origin = "test", .summary = "test",
    .elem = DF_F64, .acc = DF_F64, .flags = DF_K_BLOCK_POW2,
    .block_min = 64, .block_max = 512, .block_default = 256,
    .grid_max = 0, .per_thread = 2, .max_n = 5000,
};

/* the seed-000 shape: int, atomics, grid derived */
static const df_kernel df_fake_i32 = {
    .name = "fake-int", .origin = "test", .summary = "test",
    .elem = DF_I32, .acc = DF_I32, .flags = 0,
    .block_min = 1, .block_max = 1024, .block_default = 256,
    .grid_max = 0, .per_thread = 1, .max_n = 0,
};

/* FNV-1a over n bytes at p, continuing from h */
static inline uint64_t df_test_fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) {
        h ^= c[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* FNV-1a over everything a case is made of: n, launch, family, a, b */
static inline uint64_t df_test_case_hash(const df_case *c)
{
    size_t bytes = (size_t)c->n * df_type_size(c->type);
    uint64_t h = 14695981039346656037ull;
    h = df_test_fnv1a(h, &c->n, sizeof c->n);
    h = df_test_fnv1a(h, &c->launch, sizeof c->launch);
    h = df_test_fnv1a(h, &c->family, sizeof c->family);
    h = df_test_fnv1a(h, c->a, bytes);
    return df_test_fnv1a(h, c->b, bytes);
}

#endif
