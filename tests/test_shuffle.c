/* test_shuffle.c — fuzz/gen/shuffle.h: the prefetching Fisher-Yates over pairs
 * swaps exactly as the textbook loop does (same draws in the same order,
 * same swaps), for 4- and 8-byte elements, lengths around its look-ahead
 * block, and keeps every pair together. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "fuzz/gen/shuffle.h"

static uint64_t draw_bounded(df_pcg32 *r, uint64_t i)
{
    return df_pcg32_bounded(r, (uint32_t)(i + 1));
}

/* The textbook loop: i from n - 1 down to 1, j = draw(i), swap i and j. */
static void textbook64(uint64_t *a, uint64_t *b, uint64_t n, df_pcg32 *r)
{
    for (uint64_t i = n - 1; n > 1 && i > 0; i--) {
        uint64_t j = draw_bounded(r, i), t = a[i];
        a[i] = a[j], a[j] = t;
        t = b[i], b[i] = b[j], b[j] = t;
    }
}

static void textbook32(uint32_t *a, uint32_t *b, uint64_t n, df_pcg32 *r)
{
    for (uint64_t i = n - 1; n > 1 && i > 0; i--) {
        uint64_t j = draw_bounded(r, i);
        uint32_t t = a[i];
        a[i] = a[j], a[j] = t;
        t = b[i], b[i] = b[j], b[j] = t;
    }
}

Test(shuffle, equals_the_textbook_loop_and_keeps_pairs)
{
    static const uint64_t lens[] = {0, 1, 2, 3, 31, 32, 33, 34, 64, 65, 97, 1000, 4099};
    enum { MAX = 4099 };
    static uint64_t a64[MAX], b64[MAX], c64[MAX], d64[MAX];
    static uint32_t a32[MAX], b32[MAX], c32[MAX], d32[MAX];
    for (size_t L = 0; L < sizeof lens / sizeof lens[0]; L++) {
        uint64_t n = lens[L];
        for (uint64_t i = 0; i < n; i++) {
            a64[i] = c64[i] = i, b64[i] = d64[i] = 3 * i + 1;
            a32[i] = c32[i] = (uint32_t)i, b32[i] = d32[i] = (uint32_t)(5 * i + 2);
        }
        df_pcg32 r1, r2;
        df_pcg32_seed(&r1, 11, n), df_pcg32_seed(&r2, 11, n);
        df_shuffle_pairs(a64, b64, 8, n, &r1, draw_bounded);
        textbook64(c64, d64, n, &r2);
        cr_assert(memcmp(a64, c64, n * 8) == 0 && memcmp(b64, d64, n * 8) == 0, "n %llu",
                  (unsigned long long)n);
        cr_assert_eq(df_pcg32_next(&r1), df_pcg32_next(&r2), "the same draws, n %llu",
                     (unsigned long long)n);
        df_pcg32_seed(&r1, 12, n), df_pcg32_seed(&r2, 12, n);
        df_shuffle_pairs(a32, b32, 4, n, &r1, draw_bounded);
        textbook32(c32, d32, n, &r2);
        cr_assert(memcmp(a32, c32, n * 4) == 0 && memcmp(b32, d32, n * 4) == 0, "n %llu",
                  (unsigned long long)n);
        int moved = 0;
        for (uint64_t i = 0; i < n; i++) {
            cr_assert_eq(b64[i], 3 * a64[i] + 1, "a pair split at %llu", (unsigned long long)i);
            cr_assert_eq(b32[i], 5 * a32[i] + 2);
            moved += a64[i] != i;
        }
        if (n >= 31)
            cr_assert_gt(moved, (int)n / 2, "n %llu: hardly shuffled", (unsigned long long)n);
    }
}
