/* test_schedule.c — perturbed schedules: the draw and the sample
 * (fuzz/check/schedule.h), the case file's version 3, the schedule rule on
 * the host backend (the race mutants' models play a race's outcome under
 * a perturbed schedule; correct kernels stay inside their bound and, when
 * deterministic, equal their model), and the finding that replays its
 * perturbation. The GPU's own perturbation is measured on a GPU
 * (results/). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/check/check.h"
#include "fuzz/check/metamorphic.h"
#include "fuzz/check/schedule.h"
#include "fuzz/corpus.h"
#include "fuzz/gen/generator.h"
#include "tests/cli_helpers.h"
#include "tests/host_helpers.h"

/* The draw is a function of (seed, index), inside its documented ranges,
 * and redraws the grid of grid-free kernels only. */
Test(schedule, draw_is_reproducible_and_in_range)
{
    const df_kernel *shfl = df_test_find("shfl"), *ab = df_test_find("atomic-block");
    cr_assert(shfl->flags & DF_K_GRID_FREE);
    cr_assert_eq(ab->flags & DF_K_GRID_FREE, 0);
    unsigned seen_flags = 0, regrids = 0, regrid_differs = 0;
    for (uint64_t i = 0; i < 4000; i++) {
        df_case c = {.type = DF_F32, .n = 1 + i * 37 % 70000, .seed = 9, .index = i};
        df_case v, w, x;
        df_sched_draw(shfl, &c, &v);
        df_sched_draw(shfl, &c, &w);
        cr_assert_eq(memcmp(&v.sched, &w.sched, sizeof v.sched), 0);
        cr_assert_eq(v.launch.grid, w.launch.grid);
        cr_assert_neq(v.sched.seed, 0);
        cr_assert_eq(v.sched.flags & ~DF_SCHED_ALL, 0);
        cr_assert(v.sched.sm_share >= 1 && v.sched.sm_share <= 256);
        cr_assert(v.sched.noise_us >= 16 && v.sched.noise_us < 2048, "%u", v.sched.noise_us);
        seen_flags |= v.sched.flags;
        if (v.sched.flags & DF_SCHED_REGRID) {
            regrids++;
            df_launch l = c.launch;
            cr_assert_eq(df_launch_resolve(shfl, c.n, &l, NULL, 0), 0);
            cr_assert(v.launch.grid >= 1 && v.launch.grid <= 2 * l.grid + 8);
            regrid_differs += v.launch.grid != l.grid;
            df_launch vl = v.launch;
            cr_assert_eq(df_launch_resolve(shfl, c.n, &vl, NULL, 0), 0, "grid %u", vl.grid);
        }
        df_sched_draw(ab, &c, &x);
        cr_assert_eq(x.sched.flags & DF_SCHED_REGRID, 0);
        cr_assert_eq(memcmp(&x.launch, &c.launch, sizeof c.launch), 0);
    }
    cr_assert_eq(seen_flags, DF_SCHED_ALL, "flags seen 0x%x", seen_flags);
    cr_assert(regrids > 1600 && regrids < 2400, "%u regrids of 4000", regrids);
    cr_assert(regrid_differs > regrids / 2);
}

/* Contention is drawn after every other part of a perturbation, so the
 * rest of each draw is the one a schedule had before it existed (the hash
 * pins 4,000 draws' seed, flags, SM share, noise time and grid), and it
 * comes with noise only, in about one noise in three. describe says it. */
Test(schedule, contention_drawn_last_with_noise)
{
    const df_kernel *k[2] = {df_test_find("shfl"), df_test_find("atomic-block")};
    uint64_t h = UINT64_C(1469598103934665603);
    unsigned noise = 0, contend = 0;
    for (int kk = 0; kk < 2; kk++)
        for (uint64_t i = 0; i < 2000; i++) {
            df_case c = {.type = DF_F32, .n = 1 + i * 37 % 70000, .seed = 9, .index = i};
            df_case v;
            df_sched_draw(k[kk], &c, &v);
            unsigned vals[5] = {v.sched.seed, v.sched.flags & ~(unsigned)DF_SCHED_CONTEND,
                                v.sched.sm_share, v.sched.noise_us, v.launch.grid};
            for (int j = 0; j < 5; j++) {
                h ^= vals[j];
                h *= UINT64_C(1099511628211);
            }
            noise += (v.sched.flags & DF_SCHED_NOISE) != 0;
            if (v.sched.flags & DF_SCHED_CONTEND) {
                contend++;
                cr_assert(v.sched.flags & DF_SCHED_NOISE);
                char line[160];
                df_sched_describe(&v, line, sizeof line);
                cr_assert_not_null(strstr(line, "contending for the case's own lines"), "%s",
                                   line);
            }
        }
    cr_assert_eq(h, UINT64_C(0x97b341196855e917), "draws changed: 0x%016llx",
                 (unsigned long long)h);
    cr_assert(contend * 4 > noise && contend * 2 < noise, "%u contended of %u noises", contend,
              noise);
}

/* One case in `every`, apart from the metamorphic sample. */
Test(schedule, sample_rate_and_independence)
{
    df_meta_opts meta_only = {.every = 8}, sched_only = {.schedule = 8};
    unsigned s = 0, both = 0, m = 0;
    for (uint64_t i = 0; i < 80000; i++) {
        int a = df_sched_sampled_at(8, 3, i), b = df_meta_sampled_at(&meta_only, 3, i);
        s += a;
        m += b;
        both += a && b;
        cr_assert_eq(df_meta_sampled_at(&sched_only, 3, i), a);
        cr_assert_eq(df_sched_sampled_at(0, 3, i), 0);
    }
    cr_assert(s > 9500 && s < 10500, "%u of 80000", s);
    cr_assert(both > 1000 && both < 1500, "%u in both samples (independent: about 1250)", both);
    cr_assert(m > 9500 && m < 10500);
}

static void put_le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* A case with a schedule is a version 3 file (4 when low-precision) that
 * gives it back and is written again to the same bytes; one without is the
 * version 1 file it was. A damaged schedule is refused. */
Test(schedule, case_file_version_3_round_trip)
{
    float a[3] = {1, 2, 3}, b[3] = {4, 5, 6};
    df_case c = {.type = DF_F32, .n = 3, .a = a, .b = b, .seed = 5, .index = 7,
                 .launch = {.block = 32, .grid = 4}};
    uint8_t *plain = NULL, *buf = NULL;
    size_t plain_len = 0, len = 0;
    cr_assert_eq(df_corpus_encode(&c, NULL, &plain, &plain_len), 0);
    cr_assert_eq(plain[8], 1);
    c.sched = (df_schedule){0xdeadbeef, DF_SCHED_NOISE | DF_SCHED_POISON | DF_SCHED_CONTEND,
                            200, 640, 0};
    cr_assert_eq(df_corpus_encode(&c, NULL, &buf, &len), 0);
    cr_assert_eq(len, plain_len);
    cr_assert_eq(buf[8], 3);
    df_case_file f;
    char msg[200];
    cr_assert_eq(df_corpus_decode(buf, len, &f, msg, sizeof msg), DF_CORPUS_OK, "%s", msg);
    cr_assert_eq(memcmp(&f.c.sched, &c.sched, sizeof c.sched), 0);
    cr_assert_eq(f.c.launch.grid, 4);
    uint8_t *again = NULL;
    size_t again_len = 0;
    cr_assert_eq(df_corpus_encode(&f.c, NULL, &again, &again_len), 0);
    cr_assert(again_len == len && memcmp(again, buf, len) == 0, "written again: other bytes");
    free(again);
    df_case_file_free(&f);
    /* a version 4 (f16) file carries the contention the same way */
    uint16_t ha[2] = {0x3c00, 0x4000}, hb[2] = {0x4200, 0xbc00};
    df_case h = c;
    h.type = DF_F16;
    h.n = 2;
    h.a = ha;
    h.b = hb;
    uint8_t *hbuf = NULL;
    size_t hlen = 0;
    cr_assert_eq(df_corpus_encode(&h, NULL, &hbuf, &hlen), 0);
    cr_assert_eq(hbuf[8], 4);
    cr_assert_eq(df_corpus_decode(hbuf, hlen, &f, msg, sizeof msg), DF_CORPUS_OK, "%s", msg);
    cr_assert_eq(memcmp(&f.c.sched, &h.sched, sizeof h.sched), 0);
    cr_assert_eq(df_corpus_encode(&f.c, NULL, &again, &again_len), 0);
    cr_assert(again_len == hlen && memcmp(again, hbuf, hlen) == 0, "written again: other bytes");
    free(again);
    free(hbuf);
    df_case_file_free(&f);
    /* seed 0 in a version 3 file: refused (CRC fixed so the header check speaks) */
    uint8_t *bad = malloc(len);
    memcpy(bad, buf, len);
    put_le32(bad + 112, 0);
    put_le32(bad + 12, 0);
    df_case_file g;
    df_corpus_err e = df_corpus_decode(bad, len, &g, msg, sizeof msg);
    cr_assert_eq(e, DF_CORPUS_E_HEADER, "%s", msg);
    cr_assert_not_null(strstr(msg, "schedule"), "%s", msg);
    memcpy(bad, buf, len);
    bad[116] = 0xc0; /* unknown flags */
    cr_assert_eq(df_corpus_decode(bad, len, &g, msg, sizeof msg), DF_CORPUS_E_HEADER, "%s", msg);
    free(bad);
    free(buf);
    free(plain);
}

/* Whether kernel k, checked case by case with a schedule rerun for every
 * case, gets a schedule bug within `cases` cases; the first such case's
 * checked result in *first. */
static uint64_t first_schedule_bug(const char *kernel, uint32_t schedule, uint64_t cases,
                                   uint64_t *bugs, df_case *fc, df_checked *first)
{
    const df_kernel *k = df_test_find(kernel);
    df_backend *b = df_test_open_host();
    df_scratch buf = {0}, mbuf = {0};
    df_gen_opts go = {.max_n = 4096};
    df_oracle_opts oo = {.tol = 1e-6};
    df_meta_opts mo = {.schedule = schedule};
    uint64_t found = 0;
    *bugs = 0;
    for (uint64_t i = 0; i < cases; i++) {
        df_case c;
        df_checked r;
        cr_assert_eq(df_generate(11, i, k, &go, &buf, &c), 0);
        cr_assert_eq(df_check_case_meta(b, NULL, k, &c, &oo, &mo, &mbuf, &r), 0);
        if (r.j.verdict == DF_V_BUG) {
            cr_assert_str_eq(r.j.rule, "schedule", "%s case %llu: %s", kernel,
                             (unsigned long long)i, r.j.why);
            cr_assert(r.perturbed);
            if (!*bugs) {
                found = i + 1;
                *fc = c;
                *first = r;
                /* c's vectors live in buf: keep a copy for the caller */
                size_t bytes = 2 * c.n * df_type_size(c.type);
                void *keep = malloc(bytes);
                memcpy(keep, c.a, c.n * df_type_size(c.type));
                memcpy((char *)keep + c.n * df_type_size(c.type), c.b,
                       c.n * df_type_size(c.type));
                fc->a = keep;
                fc->b = (char *)keep + c.n * df_type_size(c.type);
            }
            (*bugs)++;
        }
    }
    df_scratch_free(&buf);
    df_scratch_free(&mbuf);
    df_backend_close(b);
    return found;
}

/* Each race mutant: caught by the schedule rule in its first 200 cases
 * when every case is rerun perturbed, never without perturbation. */
Test(schedule, race_mutants_caught_only_under_perturbation)
{
    const char *races[] = {"m-zero-inside", "m-no-fence", "m-shfl-divergent"};
    for (size_t i = 0; i < 3; i++) {
        df_case c;
        df_checked r;
        uint64_t bugs;
        uint64_t at = first_schedule_bug(races[i], 1, 200, &bugs, &c, &r);
        cr_assert(at > 0, "%s not caught in 200 perturbed cases", races[i]);
        free((void *)c.a);
        cr_assert_eq(first_schedule_bug(races[i], 0, 400, &bugs, &c, &r), 0);
        cr_assert_eq(bugs, 0, "%s: %llu bugs unperturbed", races[i], (unsigned long long)bugs);
    }
}

/* Correct kernels, every case rerun perturbed (shfl: deterministic, its
 * grid redrawn half the time, so the model is run on the rerun's grid):
 * no bug. */
Test(schedule, correct_kernels_stay_clean_under_perturbation)
{
    const char *ok[] = {"atomic-block", "shfl", "fold", "int-atomic"};
    for (size_t i = 0; i < 4; i++) {
        df_case c;
        df_checked r;
        uint64_t bugs;
        cr_assert_eq(first_schedule_bug(ok[i], 1, 300, &bugs, &c, &r), 0, "%s: %s", ok[i],
                     r.j.why);
    }
}

/* The finding records the perturbation that decided it: its file is
 * version 3 with the rerun's schedule, and replaying the file gives a bug
 * by the schedule rule again. */
Test(schedule, finding_replays_its_perturbation)
{
    df_case c;
    df_checked r;
    uint64_t bugs;
    cr_assert(first_schedule_bug("m-zero-inside", 1, 200, &bugs, &c, &r) > 0);
    cr_assert_eq(c.sched.seed, 0, "the case itself runs unperturbed");
    uint8_t *buf = NULL;
    size_t len = 0;
    cr_assert_eq(df_finding_encode(&c, &r, &buf, &len), 0);
    cr_assert_eq(buf[8], 3);
    df_case_file f;
    char msg[200];
    cr_assert_eq(df_corpus_decode(buf, len, &f, msg, sizeof msg), DF_CORPUS_OK, "%s", msg);
    cr_assert_eq(memcmp(&f.c.sched, &r.sched, sizeof r.sched), 0);
    const df_kernel *k = df_test_find("m-zero-inside");
    df_backend *b = df_test_open_host();
    df_checked again;
    df_oracle_opts oo = {.tol = 1e-6};
    cr_assert_eq(df_check_case(b, k, &f.c, &oo, &again), 0);
    cr_assert_eq(again.j.verdict, DF_V_BUG);
    cr_assert_str_eq(again.j.rule, "schedule");
    cr_assert_not_null(strstr(again.j.why, "under schedule"), "%s", again.j.why);
    /* without its schedule the same vectors are fine */
    f.c.sched = (df_schedule){0};
    cr_assert_eq(df_check_case(b, k, &f.c, &oo, &again), 0);
    cr_assert_neq(again.j.verdict, DF_V_BUG, "%s", again.j.why);
    df_backend_close(b);
    df_case_file_free(&f);
    /* and through the command line, run until a bug shows */
    char dir[128], path[4096], out[8192];
    int is_new;
    snprintf(dir, sizeof dir, "%s", df_test_tmpdir("schedrep"));
    cr_assert_eq(df_save_finding(dir, &c, &r, path, sizeof path, &is_new), 0);
    cr_assert_eq(df_test_sh(out, sizeof out, "./dotfuzz replay --backend host --repeat 3 %s", dir),
                 1, "%s", out);
    cr_assert_not_null(strstr(out, "schedule"), "%s", out);
    cr_assert_eq(df_test_sh(out, sizeof out, "./dotfuzz replay --repeat 0 %s", dir), 2, "%s", out);
    cr_assert_not_null(strstr(out, "--repeat"), "%s", out);
    free(buf);
    free((void *)c.a);
}

/* run's batches and its one-at-a-time loop draw the same perturbations
 * and reach the same verdicts; the campaign file keeps --schedule. */
Test(schedule, run_batches_agree_with_one_at_a_time, .timeout = 120)
{
    char out1[65536], out2[65536];
    const char *dir = df_test_tmpdir("sched");
    char d[128];
    snprintf(d, sizeof d, "%s", dir);
    const char *cmd = "./dotfuzz run --backend host --kernel m-shfl-divergent,atomic-block "
                      "--schedule 4 --cases 3000 --seed 5 --max-n 5000 --corpus %s/%s "
                      "--batch %s 2>/dev/null | grep -E '^  (m-shfl|atomic)'";
    cr_assert_eq(df_test_sh(out1, sizeof out1, cmd, d, "a", "1"), 0, "%s", out1);
    cr_assert_eq(df_test_sh(out2, sizeof out2, cmd, d, "b", "256"), 0, "%s", out2);
    cr_assert_str_eq(out1, out2);
    /* m-shfl-divergent has bugs, atomic-block none */
    unsigned long long cases, okc, prec, nd, soft, bug;
    const char *line = strstr(out1, "m-shfl-divergent");
    cr_assert_not_null(line, "%s", out1);
    cr_assert_eq(sscanf(line, "m-shfl-divergent %llu %llu %llu %llu %llu %llu", &cases, &okc,
                        &prec, &nd, &soft, &bug), 6, "%s", line);
    cr_assert(bug > 0, "%s", line);
    line = strstr(out1, "atomic-block");
    cr_assert_eq(sscanf(line, "atomic-block %llu %llu %llu %llu %llu %llu", &cases, &okc, &prec,
                        &nd, &soft, &bug), 6);
    cr_assert_eq(bug, 0, "%s", line);
    char out[4096];
    cr_assert_eq(df_test_sh(out, sizeof out,
                            "./dotfuzz run --backend host --kernel shfl --schedule 9 --cases 10 "
                            "--out %s/c --quiet && grep -E '^schedule *: *9$' %s/c/campaign && "
                            "./dotfuzz run --resume %s/c --cases 20 --quiet", d, d, d), 0,
                 "%s", out);
    cr_assert_neq(df_test_sh(out, sizeof out, "./dotfuzz run --schedule -1 --cases 1"), 0);
    cr_assert_not_null(strstr(out, "--schedule"), "%s", out);
}
