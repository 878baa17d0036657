/* smoke_run.c — the smoke run itself: replays the regression corpus
 * (`replay`'s judging, every metamorphic check on every case), then fuzzes
 * the selected kernels from the fixed seed and the fresh one (`run`'s
 * judging, one case in 16), checking a bug a second time and stopping at
 * the first that is reproducible and not already in the corpus, which is
 * saved with the command that replays it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "fuzz/check/check.h"
#include "fuzz/check/metamorphic.h"
#include "fuzz/cmd/smoke.h"
#include "fuzz/corpus.h"
#include "fuzz/gen/generator.h"
#include "fuzz/pool.h"
#include "fuzz/run/select.h"
#include "fuzz/util.h"

/* ---- kernel selection ---- */

static int runs_in_sandbox(const void *sb, const df_kernel *k)
{
    return df_sandbox_supports(sb, k);
}

df_outcome df_smoke_select_kernels(df_smoke_state *st)
{
    df_run_opts ro = {.kernel = st->o->kernels ? st->o->kernels : "all", .family = "all"};
    df_runs_on on = {df_sandbox_backend(st->sb), runs_in_sandbox, st->sb};
    int rc = df_run_select(&ro, &on, st->kernels, &st->nk);
    return rc == 0 ? DF_OUTCOME_CLEAN : rc == -1 ? DF_OUTCOME_USAGE : DF_OUTCOME_ENV;
}

/* ---- replay commands ---- */

/* Appends s to a command line, single-quoted when the shell needs it. */
static void put_shell_word(FILE *f, const char *s)
{
    if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                        "/._-+=:,@%") == strlen(s)) {
        fprintf(f, " %s", s);
        return;
    }
    fputs(" '", f);
    for (; *s; s++)
        if (*s == '\'')
            fputs("'\\''", f);
        else
            fputc(*s, f);
    fputc('\'', f);
}

/* The command that replays path on kernel (NULL: as the file says). */
static void replay_command(const df_smoke_state *st, const char *path, const char *kernel,
                           char *out, size_t len)
{
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    if (!f) {
        snprintf(out, len, "dotfuzz replay %s", path);
        return;
    }
    fprintf(f, "dotfuzz replay --backend %s", df_sandbox_backend(st->sb));
    for (size_t i = 0; i < st->o->libs.n; i++) {
        fputs(" --kernel-lib", f);
        put_shell_word(f, st->o->libs.path[i]);
    }
    if (kernel)
        fprintf(f, " --kernel %s", kernel);
    put_shell_word(f, path);
    fclose(f);
    snprintf(out, len, "%s", text ? text : "");
    free(text);
}

/* ---- regression replay ---- */

static df_smoke_reg *add_result(df_smoke_state *st, const char *file, const df_kernel *k,
                                 int status, const char *message)
{
    if (df_grow(&st->reg, &st->capreg, st->nreg, sizeof *st->reg) != 0) {
        st->out = df_outcome_worst(st->out, DF_OUTCOME_ENV);
        return NULL;
    }
    if (status == DF_SMOKE_ERROR)
        st->out = df_outcome_worst(st->out, DF_OUTCOME_USAGE);
    if (status == DF_SMOKE_FAIL)
        st->out = df_outcome_worst(st->out, DF_OUTCOME_BUG);
    df_smoke_reg *r = &st->reg[st->nreg];
    *r = (df_smoke_reg){.file = strdup(file), .kernel = k ? k->name : NULL, .status = status,
                      .message = message ? strdup(message) : NULL};
    if (!r->file || (message && !r->message)) {
        free(r->file);
        free(r->message);
        return NULL;
    }
    st->nreg++;
    return r;
}

/* A kernel that claims no determinism may land on any non-bug verdict from
 * one run to the next (its summation order varies), so ok, precision and
 * nondeterministic are one verdict for it. */
static int verdict_matches(const df_kernel *k, int recorded, int now)
{
    if (recorded == 0 || recorded == now)
        return 1;
    return !(k->flags & DF_K_DETERMINISTIC) && recorded != DF_V_BUG &&
           recorded != DF_V_SOFT_ERROR && now != DF_V_BUG && now != DF_V_SOFT_ERROR;
}

static void regress_on(df_smoke_state *st, const char *path, const df_kernel *k,
                       const df_case_file *f)
{
    /* replay's defaults: every metamorphic check on every case */
    static const df_meta_opts meta = {.every = 1, .reruns = 2};
    df_oracle_opts oo = {.tol = 1e-6};
    df_case c;
    char why[200], msg[400];
    if (df_launch_for(k, &f->c, &c, why, sizeof why) != 0) {
        add_result(st, path, k, f->c.kernel[0] ? DF_SMOKE_ERROR : DF_SMOKE_SKIP, why);
        return;
    }
    df_checked r;
    double t = df_now();
    if (df_sandbox_check(st->sb, k, &c, &oo, &meta, &r) != 0) {
        st->dead = 1;
        add_result(st, path, k, DF_SMOKE_ERROR, "no worker process could run the case");
        return;
    }
    /* the verdict recorded belongs to the kernel the file names */
    int recorded = f->c.kernel[0] ? f->meta.verdict : 0;
    int status = DF_SMOKE_PASS;
    if (r.j.verdict == DF_V_BUG) {
        snprintf(msg, sizeof msg, "bug (%s): %s", r.j.rule, r.j.why);
        status = DF_SMOKE_FAIL;
    } else if (!verdict_matches(k, recorded, (int)r.j.verdict)) {
        snprintf(msg, sizeof msg, "verdict %s (%s), the file records %s",
                 df_verdict_name(r.j.verdict), r.j.rule, df_verdict_name((df_verdict)recorded));
        status = DF_SMOKE_FAIL;
    }
    df_smoke_reg *res = add_result(st, path, k, status, status == DF_SMOKE_FAIL ? msg : NULL);
    if (!res)
        return;
    res->time_s = df_now() - t;
    res->verdict = (int)r.j.verdict;
    res->recorded = recorded;
    size_t n = 0;
    FILE *m = open_memstream(&res->detail, &n);
    if (m) {
        char cmd[4600];
        df_print_line(m, path, &c, k, &r);
        replay_command(st, path, k->name, cmd, sizeof cmd);
        fprintf(m, "replay: %s\n", cmd);
        fclose(m);
    }
}

/* The file's SHA-1 name: its bytes are the canonical encoding of what was
 * read (the reader refuses anything else). */
static void remember_sha1(df_smoke_state *st, const df_case_file *f)
{
    uint8_t *bytes = NULL;
    size_t len = 0;
    if (df_corpus_encode(&f->c, &f->meta, &bytes, &len) != 0)
        return;
    if (df_grow(&st->known, &st->capknown, st->nknown, sizeof *st->known) == 0)
        df_sha1_hex(bytes, len, st->known[st->nknown++]);
    free(bytes);
}

/* --sanitize: path replayed again under the tool in a child process; a
 * report is a failed entry of its own. A tool that cannot run fails the
 * run (environment) once and is not tried again. */
static void sanitize_file(df_smoke_state *st, const char *path)
{
    const df_smoke_opts *o = st->o;
    char why[300], msg[400];
    double t = df_now();
    int rc = df_sanitizer_replay(&o->san, df_sandbox_backend(st->sb), NULL, &o->libs, path, why,
                                 sizeof why);
    if (rc < 0) {
        fprintf(stderr, "dotfuzz smoke: %s: %s\n", path, why);
        st->out = df_outcome_worst(st->out, DF_OUTCOME_ENV);
        st->san_label[0] = '\0';
        return;
    }
    snprintf(msg, sizeof msg, "bug (sanitizer): %s", why);
    df_smoke_reg *r =
        add_result(st, path, NULL, rc ? DF_SMOKE_FAIL : DF_SMOKE_PASS, rc ? msg : NULL);
    if (r) {
        r->kernel = st->san_label;
        r->time_s = df_now() - t;
        r->verdict = rc ? DF_V_BUG : DF_V_OK;
    }
}

static void regress_file(df_smoke_state *st, const char *path)
{
    df_case_file f;
    char msg[300];
    if (df_corpus_read(path, &f, msg, sizeof msg) != DF_CORPUS_OK) {
        fprintf(stderr, "dotfuzz smoke: %s: %s\n", path, msg);
        add_result(st, path, NULL, DF_SMOKE_ERROR, msg);
        return;
    }
    remember_sha1(st, &f);
    const df_kernel *k;
    for (size_t i = 0; (k = df_case_candidate(&f.c, i, NULL, 0)) != NULL && !st->dead; i++) {
        if (!f.c.kernel[0] && k->elem != f.c.type)
            continue;
        if (df_sandbox_supports(st->sb, k)) {
            regress_on(st, path, k, &f);
        } else if (f.c.kernel[0]) {
            /* a GPU-only case in a host CI job: shown, not failed */
            snprintf(msg, sizeof msg, "kernel %s cannot run on backend %s", k->name,
                     df_sandbox_backend(st->sb));
            add_result(st, path, k, DF_SMOKE_SKIP, msg);
        }
    }
    df_case_file_free(&f);
    if (st->san_label[0] && !st->dead)
        sanitize_file(st, path);
}

/* Every case file of dir (df_corpus_list), in name order. */
static void regress_dir(df_smoke_state *st, const char *dir)
{
    char **names;
    size_t n;
    if (df_corpus_list(dir, &names, &n) != 0) {
        fprintf(stderr, "dotfuzz smoke: %s: cannot open directory\n", dir);
        add_result(st, dir, NULL, DF_SMOKE_ERROR, "cannot open directory");
        return;
    }
    for (size_t i = 0; i < n && !st->dead; i++)
        regress_file(st, names[i]);
    df_corpus_list_free(names, n);
}

/* ---- fuzzing ---- */

/* Whether the finding that r makes of c is already in the replayed corpus. */
static int is_known(const df_smoke_state *st, const df_case *c, const df_checked *r)
{
    uint8_t *bytes = NULL; /* what df_save_finding would write */
    size_t len = 0;
    char hex[41];
    if (df_finding_encode(c, r, &bytes, &len) != 0)
        return 0;
    df_sha1_hex(bytes, len, hex);
    free(bytes);
    for (size_t i = 0; i < st->nknown; i++)
        if (!strcmp(st->known[i], hex))
            return 1;
    return 0;
}

/* A first check said bug. Checks the case again, and saves and records
 * it when it is reproducible and new. Returns 1 to stop fuzzing, 0 to go
 * on. */
static int on_bug(df_smoke_state *st, size_t si, size_t ki, const df_case *c, const df_checked *r)
{
    df_smoke_seed *sr = &st->seeds[si];
    df_smoke_tally *t = &sr->tally[ki];
    const df_kernel *k = st->kernels[ki];
    df_oracle_opts oo = {.tol = 1e-6};
    df_meta_opts mo = {.every = 16, .reruns = 2};
    df_checked again;
    if (df_sandbox_check(st->sb, k, c, &oo, &mo, &again) != 0) {
        st->dead = 1;
        st->out = df_outcome_worst(st->out, DF_OUTCOME_ENV);
        return 1;
    }
    if (again.j.verdict != DF_V_BUG) {
        fprintf(stderr, "FLAKY  %s seed=%llu index=%llu: bug (%s) then %s\n", k->name,
                (unsigned long long)c->seed, (unsigned long long)c->index, r->j.rule,
                df_verdict_name(again.j.verdict));
        t->flaky++;
        if (st->nflaky < DF_SMOKE_MAX_FLAKY)
            st->flaky[st->nflaky] = (df_smoke_flaky){k->name, c->seed, c->index};
        st->nflaky++;
        return 0;
    }
    st->bug.rechecked = 1;
    t->verdicts[DF_V_BUG]++;
    if (is_known(st, c, r)) {
        t->known++;
        fprintf(stderr, "KNOWN  %s seed=%llu index=%llu: already in the regression corpus\n",
                k->name, (unsigned long long)c->seed, (unsigned long long)c->index);
        return 0;
    }
    df_smoke_bug *bug = &st->bug;
    int is_new = 0;
    if (df_save_finding(st->o->findings, c, r, bug->path, sizeof bug->path, &is_new) != 0) {
        perror("dotfuzz smoke: cannot save finding");
        st->out = df_outcome_worst(st->out, DF_OUTCOME_ENV);
        return 1;
    }
    bug->found = 1;
    bug->seed_i = si;
    bug->ki = ki;
    bug->seed = c->seed;
    bug->index = c->index;
    bug->n = c->n;
    snprintf(bug->rule, sizeof bug->rule, "%s", r->j.rule);
    snprintf(bug->why, sizeof bug->why, "%s", r->j.why);
    replay_command(st, bug->path, NULL, bug->replay, sizeof bug->replay);
    fprintf(stderr, "BUG    %s n=%llu seed=%llu index=%llu %s: %s -> %s\n", k->name,
            (unsigned long long)c->n, (unsigned long long)c->seed,
            (unsigned long long)c->index, r->j.rule, r->j.why, bug->path);
    st->out = df_outcome_worst(st->out, DF_OUTCOME_BUG);
    return 1;
}

/* Seed si for budget seconds, case i on kernel i mod K as `run` does.
 * Returns 1 when fuzzing must stop. */
static int fuzz_seed(df_smoke_state *st, size_t si, double budget)
{
    df_smoke_seed *sr = &st->seeds[si];
    df_gen_opts go = {.max_n = 65536};
    df_oracle_opts oo = {.tol = 1e-6};
    df_meta_opts mo = {.every = 16, .reruns = 2}; /* run's defaults */
    double t0 = df_now();
    int stop = 0;
    sr->ran = 1;
    sr->started = time(NULL);
    for (uint64_t i = 0; !stop && df_now() - t0 < budget; i++) {
        size_t ki = (size_t)(i % st->nk);
        const df_kernel *k = st->kernels[ki];
        df_smoke_tally *t = &sr->tally[ki];
        df_case c;
        df_checked r;
        double tc = df_now();
        if (df_generate(sr->seed, i, k, &go, &st->buf, &c) != 0) {
            fprintf(stderr, "dotfuzz smoke: cannot generate case %llu for %s\n",
                    (unsigned long long)i, k->name);
            st->out = df_outcome_worst(st->out, DF_OUTCOME_ENV);
            stop = 1;
            break;
        }
        if (df_sandbox_check(st->sb, k, &c, &oo, &mo, &r) != 0) {
            st->dead = stop = 1;
            st->out = df_outcome_worst(st->out, DF_OUTCOME_ENV);
            break;
        }
        t->cases++;
        sr->cases++;
        if (r.j.verdict == DF_V_BUG)
            stop = on_bug(st, si, ki, &c, &r);
        else
            t->verdicts[r.j.verdict]++;
        t->time_s += df_now() - tc;
    }
    sr->elapsed = df_now() - t0;
    return stop;
}

/* ---- the run ---- */

void df_smoke_run(df_smoke_state *st)
{
    const df_smoke_opts *o = st->o;
    for (size_t i = 0; i < o->ndirs && !st->dead; i++) {
        struct stat sb;
        if (stat(o->dirs[i], &sb) == 0 && S_ISREG(sb.st_mode))
            regress_file(st, o->dirs[i]);
        else
            regress_dir(st, o->dirs[i]);
    }
    for (size_t si = 0; si < 2 && !st->dead; si++)
        if (fuzz_seed(st, si, o->time_s / 2))
            break;
}
