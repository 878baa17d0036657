/* test_lanes.c — a case made by lanes together (fuzz/gen/values_lanes.h,
 * what a GPU warp runs), looped here on one thread: the bytes and the end
 * of the stream one thread's df_fill_values gives, for every family and
 * type, at lengths around the lane count, with 1, 3 and 32 lanes; cond's
 * cases by the hundred (its G); the shuffling families' swaps in order or
 * in rounds of reservations (a GPU block's way); a pass whose bounded
 * draws reject about half the time; a family without a lane form
 * refused. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/gen/generator.h"
#include "fuzz/gen/values.h"

static const uint64_t lengths[] = {0, 1, 2, 3, 31, 32, 33, 64, 100, 1000, 4099, 8192};
static const unsigned lane_counts[] = {1, 3, 32};

/* A case made twice from one stream: by one thread's df_fill_values into
 * a1, b1 (r1 left at its end), and by the caller into a2, b2 from r2 (the
 * same stream), each vector's bytes first set to a garbage of its own, so
 * that every byte must be written. */
typedef struct twin {
    uint32_t family;
    df_type t;
    uint64_t n;
    unsigned lanes;
    uint64_t seed;
    unsigned char *a1, *b1, *a2, *b2;
    df_pcg32 r1, r2;
} twin;

static twin twin_make(uint32_t family, df_type t, uint64_t n, unsigned W, uint64_t seed)
{
    twin w = {.family = family, .t = t, .n = n, .lanes = W, .seed = seed};
    size_t bytes = (size_t)(n ? n : 1) * df_val_size(t);
    w.a1 = malloc(bytes), w.b1 = malloc(bytes), w.a2 = malloc(bytes), w.b2 = malloc(bytes);
    cr_assert(w.a1 && w.b1 && w.a2 && w.b2);
    memset(w.a1, 0x5a, bytes), memset(w.b1, 0x5a, bytes);
    memset(w.a2, 0xa5, bytes), memset(w.b2, 0xa5, bytes);
    df_pcg32_seed(&w.r1, seed, family * 8 + (uint64_t)t);
    w.r2 = w.r1;
    cr_assert_eq(df_fill_values(family, &w.r1, t, w.a1, w.b1, n), 0);
    return w;
}

/* Fails the test where the caller's case is not one thread's; frees it. */
static void twin_check(twin *w)
{
    size_t bytes = (size_t)w->n * df_val_size(w->t);
    const char *name = df_family_by_id(w->family)->name;
    cr_assert(memcmp(w->a1, w->a2, bytes) == 0 && memcmp(w->b1, w->b2, bytes) == 0,
              "%s, type %d, n = %llu, %u lanes, seed %llu: other bytes", name, (int)w->t,
              (unsigned long long)w->n, w->lanes, (unsigned long long)w->seed);
    cr_assert_eq(w->r1.state, w->r2.state,
                 "%s, type %d, n = %llu, %u lanes: the stream ends elsewhere", name, (int)w->t,
                 (unsigned long long)w->n, w->lanes);
    free(w->a1), free(w->b1), free(w->a2), free(w->b2);
}

/* One case made both ways; fails the test where they differ. Returns the
 * lanes' rounds cut short, and adds all their rounds to *rounds. */
static uint64_t same_case(uint32_t family, df_type t, uint64_t n, unsigned W, uint64_t seed,
                          uint64_t *rounds)
{
    twin w = twin_make(family, t, n, W, seed);
    df_lanes_plan p;
    df_cond_acc acc;
    uint16_t *js = malloc((size_t)(n ? n : 1) * sizeof *js);
    cr_assert(js);
    memset(&acc, 0, sizeof acc);
    cr_assert_eq(df_lanes_plan_make(family, &w.r2, t, w.a2, w.b2, n, &acc, &p), 0);
    uint64_t all, cuts = df_lanes_fill(&p, &w.r2, W, js, &all);
    free(js);
    *rounds += all;
    twin_check(&w);
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

/* cond's G (a rounded sum in index order) moves its chain's last pair in
 * a few cases in a hundred: many cond cases, for the lane form's tail. */
Test(lanes, cond_cases_give_one_threads_bytes)
{
    uint64_t rounds = 0;
    for (int t = DF_F32; t <= DF_F64; t++)
        for (uint64_t seed = 1; seed <= 300; seed++)
            same_case(DF_FAM_COND, (df_type)t, 100 + 27 * seed, 32, seed, &rounds);
}

/* A shuffling family's case made by lanes to its shuffle, the shuffle's
 * draws by lanes and its swaps in order or, with 3 lanes, in rounds of
 * reservations (a GPU block's way): one thread's case and stream end. */
static void same_shuffled_case(uint32_t family, df_type t, uint64_t n, unsigned W, uint64_t seed)
{
    twin w = twin_make(family, t, n, W, seed);
    size_t es = df_val_size(t);
    df_lanes_plan p;
    df_cond_acc acc;
    memset(&acc, 0, sizeof acc);
    cr_assert_eq(df_lanes_plan_make(family, &w.r2, t, w.a2, w.b2, n, &acc, &p), 0);
    uint64_t all = 0;
    for (int i = 0; i < p.passes; i++)
        df_lanes_pass_fill(&p.pass[i], t, &w.r2, W, &all);
    df_lanes_tail(&p, &w.r2);
    if (p.shuffles) {
        uint16_t *js = malloc((size_t)n * sizeof *js);
        cr_assert(js);
        df_lanes_pass q = df_lanes_shuffle(js, n);
        uint64_t rounds = 0;
        df_lanes_pass_fill(&q, t, &w.r2, W, &rounds);
        if (W == 3) {
            int32_t *R = malloc((size_t)n * sizeof *R);
            uint8_t *done = calloc((size_t)n, 1);
            cr_assert(R && done);
            for (uint64_t i = 0; i < n; i++)
                R[i] = -1;
            unsigned dr = df_lanes_shuffle_reserved(w.a2, w.b2, es, n, js, R, done);
            cr_assert_leq(dr, 64, "%u rounds", dr);
            free(R), free(done);
        } else {
            df_lanes_shuffle_apply(w.a2, w.b2, es, n, js);
        }
        free(js);
    }
    twin_check(&w);
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
    df_lanes_pass q = df_lanes_pass_of(DF_LI_INTS, 1, N, v2, NULL);
    q.lo = 0;
    q.bd = df_bounded32_make(((uint32_t)1 << 31) + 1);
    uint64_t rounds = 0, cuts = df_lanes_pass_fill(&q, DF_I32, &r2, 32, &rounds);
    cr_assert(memcmp(v1, v2, sizeof v1) == 0);
    cr_assert_geq(cuts, N / 32, "%llu rounds cut", (unsigned long long)cuts);
    cr_assert_eq(r1.state, r2.state);
}

Test(lanes, families_without_a_lane_form_are_refused)
{
    float a[4], b[4];
    df_lanes_plan p;
    df_pcg32 r;
    df_pcg32_seed(&r, 1, 2);
    cr_assert(!df_lanes_take(DF_FAM_INT_WIDE, DF_I32)); /* int-wide has no i32 cases */
    cr_assert_eq(df_lanes_plan_make(DF_FAM_INT_WIDE, &r, DF_I32, a, b, 4, NULL, &p), -1);
    cr_assert_eq(df_lanes_plan_make(99, &r, DF_F32, a, b, 4, NULL, &p), -1);
}
