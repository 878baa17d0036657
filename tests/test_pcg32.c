/* test_pcg32.c — known answers and properties of fuzz/pcg32.h.
 *
 * The known answers are imneme/pcg-c's expected output for pcg32
 * (test-high/expected/check-pcg32.out, the same program as pcg32-demo):
 * seed 42, stream 54, five rounds of six outputs, the same six again after
 * advancing back six steps, 65 coin tosses, 33 dice rolls and a 52-card
 * Fisher-Yates deal, all drawn from one generator in that order.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "fuzz/pcg32.h"

typedef struct demo_round {
    uint32_t numbers[6];
    const char *coins;
    int rolls[33];
    const char *cards;
} demo_round;

static const demo_round demo_rounds[5] = {
    {{0xa15c02b7, 0x7b47f409, 0xba1d3330, 0x83d2f293, 0xbfa4784b, 0xcbed606e},
     "HHTTTHTHHHTHTTTHHHHHTTTHHHTHTHTHTTHTTTHHHHHHTTTTHHTTTTTHTTTTTTTHT",
     {3, 4, 1, 1, 2, 2, 3, 2, 4, 3, 2, 4, 3, 3, 5, 2, 3,
      1, 3, 1, 5, 1, 4, 1, 5, 6, 4, 6, 6, 2, 6, 3, 3},
     "Qd Ks 6d 3s 3d 4c 3h Td Kc 5c Jh Kd Jd As 4s 4h Ad Th Ac Jc 7s Qs "
     "2s 7h Kh 2d 6c Ah 4d Qh 9h 6s 5s 2c 9c Ts 8d 9s 3c 8c Js 5d 2h 6h "
     "7d 8s 9d 5h 8h Qc 7c Tc"},
    {{0x74ab93ad, 0x1c1da000, 0x494ff896, 0x34462f2f, 0xd308a3e5, 0x0fa83bab},
     "HHHHHHHHHHTHHHTHTHTHTHTTTTHHTTTHHTHHTHTTHHTTTHHHHHHTHTTHTHTTTTTTT",
     {5, 1, 1, 3, 3, 2, 4, 5, 3, 2, 2, 6, 4, 3, 2, 4, 2,
      4, 3, 2, 3, 6, 3, 2, 3, 4, 2, 4, 1, 1, 5, 4, 4},
     "7d 2s 7h Td 8s 3c 3d Js 2d Tc 4h Qs 5c 9c Th 2c Jc Qd 9d Qc 7s 3s "
     "5s 6h 4d Jh 4c Ac 4s 5h 5d Kc 8h 8d Jd 9s Ad 6s 6c Kd 2h 3h Kh Ts "
     "Qh 9h 6d As 7c Ks Ah 8c"},
    {{0x39af5f9f, 0x04196b18, 0xc3c3eb28, 0xc076c60c, 0xc693e135, 0xf8f63932},
     "HTTHHTTTTTHTTHHHTHTTHHTTHTHHTHTHTTTTHHTTTHHTHHTTHTTHHHTHHHTHTTTHT",
     {5, 1, 5, 3, 2, 2, 4, 5, 3, 3, 1, 3, 4, 6, 3, 2, 3,
      4, 2, 2, 3, 1, 5, 2, 4, 6, 6, 4, 2, 4, 3, 3, 6},
     "Kd Jh Kc Qh 4d Qc 4h 9d 3c Kh Qs 8h 5c Jd 7d 8d 3h 7c 8s 3s 2h Ks "
     "9c 9h 2c 8c Ad 7s 4s 2s 5h 6s 4c Ah 7h 5s Ac 3d 5d Qd As Tc 6h 9s "
     "2d 6c 6d Td Jc Ts Th Js"},
    {{0x55ce6851, 0x97a7726d, 0x17e10815, 0x58007d43, 0x962fb148, 0xb9bb55bd},
     "HHTHHTTTTHTHHHHHTTHHHTTTHHTHTHTHTHHTTHTHHHHHHTHHTHHTHHTTTTHHTHHTT",
     {6, 6, 3, 2, 3, 4, 2, 6, 4, 2, 6, 3, 2, 3, 5, 5, 3,
      4, 4, 6, 6, 2, 6, 5, 4, 4, 6, 1, 6, 1, 3, 6, 5},
     "Qd 8h 5d 8s 8d Ts 7h Th Qs Js 7s Kc 6h 5s 4d Ac Jd 7d 7c Td 2c 6s "
     "5h 6d 3s Kd 9s Jh Kh As Ah 9h 3c Qh 9c 2d Tc 9d 2s 3d Ks 4h Qc Ad "
     "Jc 8c 2h 3h 4s 4c 5c 6c"},
    {{0xfcef7cd6, 0x1b488b5a, 0xd0daf7ea, 0x1d9a70f7, 0x241a37cf, 0x9a3857b7},
     "HHHHTHHTTHTTHHHTTTHHTHTHTTTTHTTHTHTTTHHHTHTHTTHTTHTHHTHTHHHTHTHTT",
     {5, 4, 1, 2, 6, 1, 3, 1, 5, 6, 3, 6, 2, 1, 4, 4, 5,
      2, 1, 5, 6, 5, 6, 4, 4, 4, 5, 2, 6, 4, 3, 5, 6},
     "4d 9s Qc 9h As Qs 7s 4c Kd 6h 6s 2c 8c 5d 7h 5h Jc 3s 7c Jh Js Ks "
     "Tc Jd Kc Th 3h Ts Qh Ad Td 3c Ah 2d 3d 5c Ac 8s 5s 9c 2h 6c 6d Kh "
     "Qd 8d 7d 2s 8h 4h 9d 4s"},
};

/* The demo's deal: Fisher-Yates from the top, printed as "Qd Ks ...". */
static void deal_cards(df_pcg32 *rng, char out[52 * 3])
{
    static const char number[] = "A23456789TJQK";
    static const char suit[] = "hcds";
    char cards[52];
    for (int i = 0; i < 52; i++)
        cards[i] = (char)i;
    for (int i = 52; i > 1; --i) {
        int chosen = (int)df_pcg32_bounded(rng, (uint32_t)i);
        char card = cards[chosen];
        cards[chosen] = cards[i - 1];
        cards[i - 1] = card;
    }
    for (int i = 0; i < 52; i++) {
        out[3 * i] = number[cards[i] / 4];
        out[3 * i + 1] = suit[cards[i] % 4];
        out[3 * i + 2] = i == 51 ? '\0' : ' ';
    }
}

Test(pcg32, known_answers_seed42_stream54)
{
    df_pcg32 rng;
    df_pcg32_seed(&rng, 42u, 54u);
    for (int round = 0; round < 5; round++) {
        const demo_round *want = &demo_rounds[round];
        for (int i = 0; i < 6; i++) {
            uint32_t got = df_pcg32_next(&rng);
            cr_assert_eq(got, want->numbers[i], "round %d number %d: %#x != %#x",
                         round + 1, i, got, want->numbers[i]);
        }
        df_pcg32_advance(&rng, (uint64_t)-6);
        for (int i = 0; i < 6; i++)
            cr_assert_eq(df_pcg32_next(&rng), want->numbers[i],
                         "round %d again %d", round + 1, i);
        char coins[66];
        for (int i = 0; i < 65; i++)
            coins[i] = df_pcg32_bounded(&rng, 2) ? 'H' : 'T';
        coins[65] = '\0';
        cr_assert_str_eq(coins, want->coins, "round %d coins", round + 1);
        for (int i = 0; i < 33; i++)
            cr_assert_eq((int)df_pcg32_bounded(&rng, 6) + 1, want->rolls[i],
                         "round %d roll %d", round + 1, i);
        char cards[52 * 3];
        deal_cards(&rng, cards);
        cr_assert_str_eq(cards, want->cards, "round %d cards", round + 1);
    }
}

Test(pcg32, seed_sets_state_and_odd_increment_as_pcg_c)
{
    /* pcg32_srandom_r(42, 54): inc = 2*54+1, state as dumped by pcg-c's
     * tests ("6364136223846793005 109 1753877967969059832") */
    df_pcg32 rng;
    df_pcg32_seed(&rng, 42u, 54u);
    cr_assert_eq(rng.inc, 109u);
    cr_assert_eq(rng.state, 1753877967969059832ull);
    df_pcg32_seed(&rng, 1u, UINT64_MAX);
    cr_assert_eq(rng.inc & 1u, 1u, "increment must stay odd");
}

Test(pcg32, advance_back_six_reproduces_six_outputs)
{
    for (uint64_t seed = 0; seed < 20; seed++) {
        df_pcg32 rng;
        df_pcg32_seed(&rng, seed * 0x9e3779b97f4a7c15ull, seed + 3);
        uint32_t first[6];
        for (int i = 0; i < 6; i++)
            first[i] = df_pcg32_next(&rng);
        df_pcg32_advance(&rng, (uint64_t)-6);
        for (int i = 0; i < 6; i++)
            cr_assert_eq(df_pcg32_next(&rng), first[i], "seed %llu output %d",
                         (unsigned long long)seed, i);
    }
}

Test(pcg32, advance_k_equals_k_calls_of_next)
{
    static const uint64_t ks[] = {0, 1, 2, 3, 7, 8, 63, 64, 65, 1000, 12345, 100003};
    for (size_t t = 0; t < sizeof ks / sizeof ks[0]; t++) {
        df_pcg32 stepped, jumped;
        df_pcg32_seed(&stepped, 0xdeadbeefu, 7u + t);
        jumped = stepped;
        for (uint64_t i = 0; i < ks[t]; i++)
            (void)df_pcg32_next(&stepped);
        df_pcg32_advance(&jumped, ks[t]);
        cr_assert_eq(jumped.state, stepped.state, "k = %llu",
                     (unsigned long long)ks[t]);
        cr_assert_eq(jumped.inc, stepped.inc);
        cr_assert_eq(df_pcg32_next(&jumped), df_pcg32_next(&stepped));
    }
}

Test(pcg32, advance_forward_then_back_is_identity)
{
    df_pcg32 rng, start;
    df_pcg32_seed(&rng, 42u, 54u);
    start = rng;
    df_pcg32_advance(&rng, (uint64_t)1 << 40);
    cr_assert_neq(rng.state, start.state);
    df_pcg32_advance(&rng, (uint64_t)0 - ((uint64_t)1 << 40));
    cr_assert_eq(rng.state, start.state);
}

Test(pcg32, different_streams_give_different_sequences)
{
    df_pcg32 a, b, c;
    df_pcg32_seed(&a, 42u, 54u);
    df_pcg32_seed(&b, 42u, 55u);
    df_pcg32_seed(&c, 43u, 54u);
    int same_ab = 0, same_ac = 0;
    for (int i = 0; i < 64; i++) {
        uint32_t x = df_pcg32_next(&a), y = df_pcg32_next(&b), z = df_pcg32_next(&c);
        same_ab += x == y;
        same_ac += x == z;
    }
    /* two unrelated 32-bit sequences agree in a position with p = 2^-32 */
    cr_assert_eq(same_ab, 0, "streams 54 and 55 agree in %d of 64 outputs", same_ab);
    cr_assert_eq(same_ac, 0, "seeds 42 and 43 agree in %d of 64 outputs", same_ac);
}

Test(pcg32, bounded_stays_in_range)
{
    static const uint32_t bounds[] = {1, 2, 3, 6, 7, 100, 1000003,
                                      0x80000001u, 0xfffffffeu, 0xffffffffu};
    df_pcg32 rng;
    df_pcg32_seed(&rng, 5u, 6u);
    for (size_t t = 0; t < sizeof bounds / sizeof bounds[0]; t++)
        for (int i = 0; i < 2000; i++) {
            uint32_t x = df_pcg32_bounded(&rng, bounds[t]);
            cr_assert_lt(x, bounds[t], "bounded(%u) gave %u", bounds[t], x);
        }
}

Test(pcg32, bounded_six_buckets_pass_chi_square)
{
    df_pcg32 rng;
    df_pcg32_seed(&rng, 2024u, 11u);
    long count[6] = {0};
    for (int i = 0; i < 60000; i++)
        count[df_pcg32_bounded(&rng, 6)]++;
    double chi2 = 0.0;
    for (int j = 0; j < 6; j++) {
        double d = (double)count[j] - 10000.0;
        chi2 += d * d / 10000.0;
    }
    /* 5 degrees of freedom: P(chi2 > 30) < 2e-5 for a fair die */
    cr_assert_lt(chi2, 30.0, "chi-square %.2f over 6 buckets", chi2);
}

Test(pcg32, bounded_rejects_the_modulo_bias)
{
    /* bound = 3 * 2^30: plain x % bound would put [0, 2^30) at 1/2, the
     * rejection in pcg32_boundedrand_r puts it at the fair 1/3 */
    df_pcg32 rng;
    df_pcg32_seed(&rng, 77u, 78u);
    int low = 0;
    const int draws = 30000;
    for (int i = 0; i < draws; i++)
        low += df_pcg32_bounded(&rng, 0xc0000000u) < 0x40000000u;
    double frac = (double)low / draws;
    cr_assert(frac > 0.31 && frac < 0.357, "P(low third) = %.4f", frac);
}

Test(pcg32, float_is_in_unit_interval_on_2_pow_minus_24_grid)
{
    df_pcg32 rng, twin;
    df_pcg32_seed(&rng, 9u, 10u);
    twin = rng;
    for (int i = 0; i < 100000; i++) {
        float x = df_pcg32_float(&rng);
        cr_assert(x >= 0.0f && x < 1.0f, "float %a", (double)x);
        float scaled = x * 16777216.0f; /* exact: x has at most 24 bits */
        cr_assert_eq(scaled, (float)(uint32_t)scaled, "float %a off grid", (double)x);
        cr_assert_eq((uint32_t)scaled, df_pcg32_next(&twin) >> 8,
                     "float uses the top 24 bits of one draw");
    }
}

Test(pcg32, float_spans_the_unit_interval)
{
    df_pcg32 rng;
    df_pcg32_seed(&rng, 1u, 1u);
    float lo = 1.0f, hi = 0.0f;
    for (int i = 0; i < 200000; i++) {
        float x = df_pcg32_float(&rng);
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
    }
    cr_assert_lt(lo, 1e-4f);
    cr_assert_gt(hi, 1.0f - 1e-4f);
}

Test(pcg32, double_is_in_unit_interval_on_2_pow_minus_53_grid)
{
    df_pcg32 rng, twin;
    df_pcg32_seed(&rng, 11u, 12u);
    twin = rng;
    for (int i = 0; i < 100000; i++) {
        double x = df_pcg32_double(&rng);
        cr_assert(x >= 0.0 && x < 1.0, "double %a", x);
        double scaled = x * 0x1p53;
        uint64_t bits = (uint64_t)scaled;
        cr_assert_eq(scaled, (double)bits, "double %a off grid", x);
        uint64_t hi = df_pcg32_next(&twin) >> 5, lo = df_pcg32_next(&twin) >> 6;
        cr_assert_eq(bits, (hi << 26) | lo, "double = 27 high bits then 26");
    }
}

Test(pcg32, range_hits_both_inclusive_ends_for_small_spans)
{
    df_pcg32 rng;
    df_pcg32_seed(&rng, 3u, 4u);
    static const int64_t spans[][2] = {{-2, 2}, {0, 1}, {-50, 50}, {7, 24},
                                       {-1000000, -999990}};
    for (size_t t = 0; t < sizeof spans / sizeof spans[0]; t++) {
        int64_t lo = spans[t][0], hi = spans[t][1];
        int saw_lo = 0, saw_hi = 0;
        for (int i = 0; i < 5000; i++) {
            int64_t x = df_pcg32_range(&rng, lo, hi);
            cr_assert(x >= lo && x <= hi, "range(%lld, %lld) gave %lld",
                      (long long)lo, (long long)hi, (long long)x);
            saw_lo |= x == lo;
            saw_hi |= x == hi;
        }
        cr_assert(saw_lo && saw_hi, "range(%lld, %lld) missed an end",
                  (long long)lo, (long long)hi);
    }
    cr_assert_eq(df_pcg32_range(&rng, 5, 5), 5);
    cr_assert_eq(df_pcg32_range(&rng, -9, -9), -9);
}

Test(pcg32, range_covers_wide_spans)
{
    df_pcg32 rng;
    df_pcg32_seed(&rng, 13u, 14u);
    /* span 2^32 - 1 is the first that takes the 64-bit path */
    static const int64_t spans[][2] = {
        {0, 0xffffffffll},
        {-((int64_t)1 << 40), (int64_t)1 << 40},
        {0, INT64_MAX},
        {INT64_MIN / 2, INT64_MAX / 2},
    };
    for (size_t t = 0; t < sizeof spans / sizeof spans[0]; t++) {
        int64_t lo = spans[t][0], hi = spans[t][1];
        uint64_t width = (uint64_t)hi - (uint64_t)lo;
        int upper_half = 0, lower_half = 0;
        for (int i = 0; i < 4000; i++) {
            int64_t x = df_pcg32_range(&rng, lo, hi);
            cr_assert(x >= lo && x <= hi, "range(%lld, %lld) gave %lld",
                      (long long)lo, (long long)hi, (long long)x);
            uint64_t off = (uint64_t)x - (uint64_t)lo;
            upper_half += off > width / 2;
            lower_half += off <= width / 2;
        }
        /* both halves, near-evenly: the high word is used, not only the low */
        cr_assert(upper_half > 1800 && lower_half > 1800,
                  "range(%lld, %lld): halves %d / %d", (long long)lo,
                  (long long)hi, lower_half, upper_half);
    }
}

Test(pcg32, range_full_int64_span)
{
    df_pcg32 rng;
    df_pcg32_seed(&rng, 15u, 16u);
    int negative = 0, positive = 0;
    for (int i = 0; i < 4000; i++) {
        int64_t x = df_pcg32_range(&rng, INT64_MIN, INT64_MAX);
        negative += x < 0;
        positive += x > 0;
    }
    cr_assert(negative > 1800 && positive > 1800, "signs %d / %d", negative,
              positive);
}

Test(pcg32, range_wide_draws_high_word_first)
{
    /* the 64-bit path must sequence its two draws (operands of | are not),
     * or gcc, clang and nvcc may build different numbers from one stream */
    df_pcg32 rng, twin;
    df_pcg32_seed(&rng, 17u, 18u);
    twin = rng;
    for (int i = 0; i < 1000; i++) {
        uint64_t hi = df_pcg32_next(&twin);
        uint64_t lo = df_pcg32_next(&twin);
        uint64_t want = ((hi << 32) | lo) & (uint64_t)INT64_MAX;
        cr_assert_eq((uint64_t)df_pcg32_range(&rng, 0, INT64_MAX), want,
                     "draw %d", i);
    }
}
