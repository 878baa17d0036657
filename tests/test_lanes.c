/* test_lanes.c — a case made by lanes together (fuzz/gen/values_lanes.h,
 * what a GPU warp runs), looped here on one thread: the bytes and the end
 * of the stream one thread's df_fill_values gives, for every lane-made
 * family and type, at lengths around the lane count, with 1, 3 and 32
 * lanes, and for the shuffling families with their shuffle's draws made by
 * lanes and its swaps in order or in rounds of reservations; a pass whose bounded draws reject about half the time; the
 * shuffling families refused a lane form of their own. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/gen/generator.h"
#include "fuzz/gen/values.h"

static const uint64_t lengths[] = {0, 1, 2, 3, 31, 32, 33, 64, 100, 1000, 4099, 8192};
static const unsigned lane_counts[] = {1, 3, 32};

/* One case made both ways; fails the test where they differ. Returns the
 * lanes' rounds cut short, and adds all their rounds to *rounds. */
static uint64_t same_case(uint32_t family, df_type t, uint64_t n, unsigned W, uint64_t seed,
                          uint64_t *rounds)
{
    size_t es = df_val_size(t), bytes = (size_t)(n ? n : 1) * es;
    unsigned char *a1 = malloc(bytes), *b1 = malloc(bytes), *a2 = malloc(bytes),
                  *b2 = malloc(bytes);
    cr_assert(a1 && b1 && a2 && b2);
    /* different garbage in each: every byte must be written */
    memset(a1, 0x5a, bytes), memset(b1, 0x5a, bytes);
    memset(a2, 0xa5, bytes), memset(b2, 0xa5, bytes);
    df_pcg32 r1, r2;
    df_pcg32_seed(&r1, seed, family * 8 + (uint64_t)t);
    r2 = r1;
    cr_assert_eq(df_fill_values(family, &r1, t, a1, b1, n), 0);
    df_lanes_plan p;
    cr_assert_eq(df_lanes_plan_make(family, &r2, t, a2, b2, n, &p), 0);
    uint64_t all, cuts = df_lanes_fill(&p, &r2, W, &all);
    *rounds += all;
    const char *name = df_family_by_id(family)->name;
    cr_assert(memcmp(a1, a2, (size_t)n * es) == 0 && memcmp(b1, b2, (size_t)n * es) == 0,
              "%s, type %d, n = %llu, %u lanes, seed %llu: other bytes", name, (int)t,
              (unsigned long long)n, W, (unsigned long long)seed);
    cr_assert_eq(r1.state, r2.state, "%s, type %d, n = %llu, %u lanes: the stream ends elsewhere",
                 name, (int)t, (unsigned long long)n, W);
    free(a1), free(b1), free(a2), free(b2);
    return cuts;
}

Test(lanes, every_lane_family_gives_one_threads_bytes)
{
    size_t cases = 0;
    uint64_t cuts = 0, rounds = 0;
    for (size_t f = 0; f < df_family_count(); f++) {
        const df_family *fam = df_family_at(f);
        for (int t = DF_F32; t <= DF_E5M2; t++) {
            if (!(fam->types & DF_TYPE_BIT(t)) || !df_lanes_take(fam->id, (df_type)t))
                continue;
            for (size_t i = 0; i < sizeof lengths / sizeof *lengths; i++)
                for (size_t w = 0; w < sizeof lane_counts / sizeof *lane_counts; w++)
                    for (uint64_t seed = 1; seed <= 3; seed++, cases++)
                        cuts += same_case(fam->id, (df_type)t, lengths[i], lane_counts[w], seed,
                                           &rounds);
        }
    }
    cr_assert_geq(cases, 12 * 20 * 9, "only %zu cases", cases);
    /* each pass's D is each item's draws: a round is cut only where a
     * bounded draw rejects (about 1% of int-wide's rounds, nearly none of
     * the others'); a wrong D cuts nearly all of them */
    cr_assert_leq(cuts * 32, rounds, "%llu of %llu rounds cut", (unsigned long long)cuts,
                  (unsigned long long)rounds);
}

/* A shuffling family's case made but for its shuffle (the GPU's
 * df_fill_before_shuffle), its shuffle's draws by lanes and its swaps in
 * order: one thread's case and stream end. */
static void same_shuffled_case(uint32_t family, df_type t, uint64_t n, unsigned W, uint64_t seed)
{
    size_t es = df_val_size(t), bytes = (size_t)(n ? n : 1) * es;
    unsigned char *a1 = calloc(1, bytes), *b1 = calloc(1, bytes), *a2 = calloc(1, bytes),
                  *b2 = calloc(1, bytes);
    uint16_t *js = malloc((size_t)(n ? n : 1) * sizeof *js);
    cr_assert(a1 && b1 && a2 && b2 && js);
    df_pcg32 r1, r2;
    df_pcg32_seed(&r1, seed, family * 8 + (uint64_t)t);
    r2 = r1;
    cr_assert_eq(df_fill_values(family, &r1, t, a1, b1, n), 0);
    int more = df_fill_before_shuffle(family, &r2, t, a2, b2, n);
    cr_assert(more == 0 || more == 1);
    if (more) {
        df_lanes_pass q = df_lanes_shuffle(js, n);
        uint64_t rounds = 0;
        df_lanes_pass_fill(&q, t, &r2, W, &rounds);
        if (W == 3) { /* the swaps in rounds of reservations, as a GPU block makes them */
            int32_t *R = malloc((size_t)n * sizeof *R);
            uint8_t *done = calloc((size_t)n, 1);
            cr_assert(R && done);
            for (uint64_t i = 0; i < n; i++)
                R[i] = -1;
            unsigned dr = df_lanes_shuffle_reserved(a2, b2, es, n, js, R, done);
            cr_assert_leq(dr, 64, "%u rounds", dr);
            free(R), free(done);
        } else {
            df_lanes_shuffle_apply(a2, b2, es, n, js);
        }
    }
    cr_assert(memcmp(a1, a2, (size_t)n * es) == 0 && memcmp(b1, b2, (size_t)n * es) == 0,
              "%s, type %d, n = %llu, %u lanes, seed %llu: other bytes",
              df_family_by_id(family)->name, (int)t, (unsigned long long)n, W,
              (unsigned long long)seed);
    cr_assert_eq(r1.state, r2.state);
    free(a1), free(b1), free(a2), free(b2), free(js);
}

Test(lanes, shuffled_families_give_one_threads_bytes)
{
    const uint32_t fams[] = {DF_FAM_COND, DF_FAM_CANCEL, DF_FAM_LP_CANCEL};
    size_t cases = 0;
    for (size_t f = 0; f < sizeof fams / sizeof *fams; f++) {
        const df_family *fam = df_family_by_id(fams[f]);
        for (int t = DF_F32; t <= DF_E5M2; t++) {
            if (!(fam->types & DF_TYPE_BIT(t)))
                continue;
            for (size_t i = 0; i < sizeof lengths / sizeof *lengths; i++)
                for (size_t w = 0; w < sizeof lane_counts / sizeof *lane_counts; w++)
                    for (uint64_t seed = 1; seed <= 4; seed++, cases++)
                        same_shuffled_case(fams[f], (df_type)t, lengths[i], lane_counts[w], seed);
        }
    }
    cr_assert_geq(cases, 3 * 2 * 12 * 3 * 4);
    /* the longest a case may be: every draw fits 16 bits */
    same_shuffled_case(DF_FAM_CANCEL, DF_F32, DF_GEN_CHUNK, 32, 5);
}

/* Items past a lane whose draw rejected are made again from its end: a
 * bound of 2^31 + 1 rejects draws below 2^31 - 1, about half of them. */
Test(lanes, rounds_cut_at_a_rejecting_lane)
{
    enum { N = 5000 };
    static int32_t v1[N], v2[N];
    df_pcg32 r1, r2;
    df_pcg32_seed(&r1, 7, 9);
    r2 = r1;
    df_fill_ints(&r1, DF_I32, v1, N, 0, (int64_t)1 << 31);
    df_lanes_plan p;
    memset(&p, 0, sizeof p);
    p.t = DF_I32;
    p.n = N;
    p.a = v2;
    p.b = v2;
    p.family = DF_FAM_INT_SMALL; /* no tail */
    p.passes = 1;
    p.pass[0] = df_lanes_pass_of(DF_LI_INTS, 1, N, v2, NULL);
    p.pass[0].lo = 0;
    p.pass[0].bd = df_bounded32_make(((uint32_t)1 << 31) + 1);
    uint64_t rounds, cuts = df_lanes_fill(&p, &r2, 32, &rounds);
    cr_assert(memcmp(v1, v2, sizeof v1) == 0);
    cr_assert_geq(cuts, N / 32, "%llu rounds cut", (unsigned long long)cuts);
    cr_assert_eq(r1.state, r2.state);
}

Test(lanes, shuffling_families_are_refused)
{
    const uint32_t refused[] = {DF_FAM_COND, DF_FAM_CANCEL, DF_FAM_LP_CANCEL};
    float a[4], b[4];
    df_lanes_plan p;
    df_pcg32 r;
    df_pcg32_seed(&r, 1, 2);
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        cr_assert(!df_lanes_take(refused[i], DF_F32));
        cr_assert_eq(df_lanes_plan_make(refused[i], &r, DF_F32, a, b, 4, &p), -1);
    }
    cr_assert(!df_lanes_take(DF_FAM_INT_WIDE, DF_I32));
}
