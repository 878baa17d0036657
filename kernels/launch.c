/* launch.c — what every kernel's host half shares: a launch resolved and
 * checked against the kernel's descriptor (block range and shape, grid,
 * max_n, alignment), the host models' scratch buffer and the streaming copy
 * into pinned buffers bound for the GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "kernels/kernel.h"

int df_launch_resolve(const df_kernel *k, uint64_t n, df_launch *l,
                      char *why, size_t why_len)
{
    char dummy[8];
    if (!why) {
        why = dummy;
        why_len = sizeof dummy;
    }
    if (l->block == 0)
        l->block = k->block_default;
    if (l->block < k->block_min || l->block > k->block_max) {
        snprintf(why, why_len, "block %u outside %s's range [%u, %u]",
                 l->block, k->name, k->block_min, k->block_max);
        return -1;
    }
    if ((k->flags & DF_K_BLOCK_POW2) && !df_is_pow2_u32(l->block)) {
        snprintf(why, why_len, "%s needs a power-of-two block, not %u",
                 k->name, l->block);
        return -1;
    }
    if ((k->flags & DF_K_BLOCK_WARP) && l->block % 32 != 0) {
        snprintf(why, why_len, "%s needs a block that is a multiple of 32, not %u",
                 k->name, l->block);
        return -1;
    }
    if (k->max_n && n > k->max_n) {
        snprintf(why, why_len, "n = %llu exceeds %s's max_n %llu",
                 (unsigned long long)n, k->name,
                 (unsigned long long)k->max_n);
        return -1;
    }
    if (!(k->flags & DF_K_ANY_ALIGNMENT) && (l->offset_a || l->offset_b)) {
        snprintf(why, why_len, "%s needs aligned inputs (offsets %u, %u)",
                 k->name, l->offset_a, l->offset_b);
        return -1;
    }
    if (k->flags & DF_K_GRID_FREE) {
        if (l->grid == 0) {
            uint64_t per_block = (uint64_t)l->block * k->per_thread;
            uint64_t g = (n + per_block - 1) / per_block;
            if (g == 0)
                g = 1;
            if (k->grid_max && g > k->grid_max)
                g = k->grid_max;
            if (g > 0x7fffffffu)
                g = 0x7fffffffu; /* CUDA's grid.x limit; the grid-stride loop covers the rest */
            l->grid = (uint32_t)g;
        }
        if ((k->grid_max && l->grid > k->grid_max) || l->grid > 0x7fffffffu) {
            snprintf(why, why_len, "grid %u exceeds %s's grid_max %u",
                     l->grid, k->name, k->grid_max);
            return -1;
        }
        return 0;
    }
    uint64_t per_block = (uint64_t)l->block * k->per_thread;
    uint64_t g = (n + per_block - 1) / per_block;
    if (g == 0)
        g = 1; /* n == 0 still launches one block, which writes zero */
    if (g > 0x7fffffffu) {
        snprintf(why, why_len, "n = %llu needs more than 2^31-1 blocks",
                 (unsigned long long)n);
        return -1;
    }
    if (l->grid && l->grid != g) {
        snprintf(why, why_len, "%s derives grid %llu from n and block; %u given",
                 k->name, (unsigned long long)g, l->grid);
        return -1;
    }
    l->grid = (uint32_t)g;
    return 0;
}

void *df_scratch_reserve(df_scratch *s, size_t bytes)
{
    if (bytes <= s->cap && s->p)
        return s->p;
    size_t cap = s->cap ? s->cap : 4096;
    while (cap < bytes)
        cap *= 2;
    /* 64-byte aligned so vector offsets can be placed deliberately */
    void *p = NULL;
    if (posix_memalign(&p, 64, cap) != 0)
        return NULL;
    free(s->p);
    s->p = p;
    s->cap = cap;
    return p;
}

void df_scratch_free(df_scratch *s)
{
    free(s->p);
    s->p = NULL;
    s->cap = 0;
}

void df_scratch_trim(df_scratch *s, size_t keep)
{
    if (s->cap > keep)
        df_scratch_free(s);
}

void *df_scratch_fit(df_scratch *s, size_t bytes)
{
    if (s->cap > DF_SCRATCH_FIT_MIN && s->cap / 4 > bytes)
        df_scratch_free(s);
    return df_scratch_reserve(s, bytes);
}

void df_copy_streaming(void *dst_, const void *src_, size_t bytes)
{
    char *dst = dst_;
    const char *src = src_;
#if defined(__SSE2__)
    if (bytes >= 256) {
        size_t head = (16 - ((uintptr_t)dst & 15)) & 15;
        memcpy(dst, src, head);
        dst += head;
        src += head;
        bytes -= head;
        size_t body = bytes & ~(size_t)63;
        for (size_t i = 0; i < body; i += 64)
            for (size_t k = 0; k < 64; k += 16)
                _mm_stream_si128((__m128i *)(dst + i + k),
                                 _mm_loadu_si128((const __m128i *)(src + i + k)));
        memcpy(dst + body, src + body, bytes - body);
        _mm_sfence(); /* the streamed lines before the copy engine is told to read them */
        return;
    }
#endif
    memcpy(dst, src, bytes);
}

/* One loop a width: the model's guarded copies fill zones around every
 * case, and the BLAS ones whole footprints. */
void df_guard_fill(df_type t, void *p, size_t count)
{
    uint64_t g = df_guard_bits(t);
    switch (df_type_size(t)) {
    case 1:
        memset(p, (int)g, count);
        break;
    case 2:
        for (size_t i = 0; i < count; i++)
            ((uint16_t *)p)[i] = (uint16_t)g;
        break;
    case 4:
        for (size_t i = 0; i < count; i++)
            ((uint32_t *)p)[i] = (uint32_t)g;
        break;
    default:
        for (size_t i = 0; i < count; i++)
            ((uint64_t *)p)[i] = g;
        break;
    }
}
