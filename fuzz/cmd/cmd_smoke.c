/* cmd_smoke.c — `dotfuzz smoke`: the CI gate. Replays the committed
 * regression corpus, then fuzzes every kernel for a fixed time from a fixed
 * seed and a fresh one, stops at the first reproducible new bug, saves it,
 * and writes what CI systems read: a JUnit XML report and a JSON summary.
 *
 * Judging is `replay`'s for the corpus (metamorphic checks on every case)
 * and `run`'s for the fuzzing (one case in 16), so a failure here
 * reproduces with the replay command printed beside it. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz/check/check.h"
#include "fuzz/cmd/cli.h"
#include "fuzz/cmd/cli_util.h"
#include "fuzz/generator.h"
#include "fuzz/json.h"
#include "fuzz/check/metamorphic.h"
#include "fuzz/plugin.h"
#include "fuzz/run/run.h"
#include "fuzz/run/sandbox.h"
#include "fuzz/run/select.h"

/* The fixed seed: the same cases on every CI run, so a change that breaks
 * one of them fails every time, not one run in N. */
#define DF_SMOKE_SEED 1u
#define SMOKE_MAX_DIRS 16
#define SMOKE_MAX_FLAKY 16 /* flaky cases listed in the JSON (all are counted) */

typedef struct smoke_opts {
    const char *backend, *findings, *junit, *json;
    const char *dirs[SMOKE_MAX_DIRS];
    size_t ndirs;
    char *kernels; /* the --kernel values joined (select.h); NULL: "all" */
    double time_s;
    double watchdog_s; /* 0: by the case's size */
    uint64_t seed;
    df_plugin_paths libs;
} smoke_opts;

enum { R_PASS, R_FAIL, R_ERROR, R_SKIP };

/* One replayed (file, kernel); kernel NULL when the file could not be read. */
typedef struct reg_result {
    char *file, *message, *detail; /* owned */
    const char *kernel;
    int status;
    int verdict, recorded; /* df_verdict, 0 = none */
    double time_s;
} reg_result;

typedef struct kernel_tally {
    uint64_t cases, flaky, known;
    uint64_t verdicts[DF_V_COUNT]; /* flaky bugs are counted as flaky, not bug */
    double time_s;
} kernel_tally;

typedef struct seed_run {
    const char *label; /* "fixed" or "fresh" */
    uint64_t seed, cases;
    kernel_tally tally[DF_RUN_MAX_KERNELS];
    double elapsed;
    int ran; /* 0: an earlier seed stopped at a bug */
} seed_run;

typedef struct flaky_case {
    const char *kernel;
    uint64_t seed, index;
} flaky_case;

typedef struct smoke_bug {
    int found, rechecked;
    size_t seed_i, ki;
    uint64_t seed, index, n;
    char rule[24], why[240], path[4096], replay[4600];
} smoke_bug;

typedef struct smoke_state {
    const smoke_opts *o;
    df_sandbox *sb;
    const df_kernel *kernels[DF_RUN_MAX_KERNELS];
    size_t nk;
    reg_result *reg;
    size_t nreg, capreg;
    char (*known)[41]; /* SHA-1 names of the replayed corpus files */
    size_t nknown, capknown;
    seed_run seeds[2];
    flaky_case flaky[SMOKE_MAX_FLAKY];
    uint64_t nflaky;
    smoke_bug bug;
    df_outcome out;
    int dead; /* no worker process can run cases: no more runs */
    double t0;
    df_scratch buf;
} smoke_state;

static void smoke_usage(FILE *f)
{
    fputs("usage: dotfuzz smoke [OPTIONS]\n"
          "\n"
          "The CI gate: replays the regression corpus, then fuzzes every kernel from a\n"
          "fixed seed and a fresh one, stopping at the first reproducible new bug, which\n"
          "is saved. Writes a JUnit XML report and a JSON summary when asked.\n"
          "\n"
          "  --corpus DIR         regression corpus to replay (repeatable; default\n"
          "                       corpus/regression)\n"
          "  --kernel LIST        kernels to fuzz, comma-separated, repeatable: names, 'all',\n"
          "                       'mutants' (default all that the backend runs, as run)\n"
          "  --kernel-lib PATH    load kernels from a plugin library (repeatable)\n"
          "  --backend B          cuda, host or auto (default auto)\n"
          "  --time DURATION      fuzzing time, split over the two seeds (default 30s; 0:\n"
          "                       the regression corpus alone)\n"
          "  --watchdog DURATION  a case running longer is a hang (bug; default 10s, or\n"
          "                       400 ns an element of longer cases)\n"
          "  --seed S             the fixed seed (default 1); the other is random, printed\n"
          "  --findings DIR       where a new bug is saved (default corpus/findings)\n"
          "  --junit FILE         write a JUnit XML report\n"
          "  --json FILE          write a JSON summary\n"
          "  -h, --help           this text\n"
          "\n"
          "A bug is reproducible when a second check of the case says bug again (else it\n"
          "is reported as flaky and fuzzing goes on), new when its case file's SHA-1 name\n"
          "is not one of the replayed corpus's. A regression case fails when its verdict\n"
          "is bug or differs from the verdict its file records.\n"
          "\n"
          "exit status: 0 no bug, 1 a regression case failed or a reproducible new bug,\n"
          "2 usage error or unreadable corpus file, 3 environment error\n",
          f);
}

enum { OPT_CORPUS = 256, OPT_KERNEL, OPT_KERNEL_LIB, OPT_BACKEND, OPT_SEED, OPT_FINDINGS,
       OPT_JUNIT, OPT_JSON, OPT_WATCHDOG };

/* One option into o; returns the name of the option whose value is bad. */
static const char *smoke_opt(int ch, const char *arg, smoke_opts *o, int *corpus_set)
{
    switch (ch) {
    case OPT_CORPUS:
        if (!*corpus_set)
            o->ndirs = 0; /* the first --corpus replaces the default */
        *corpus_set = 1;
        if (o->ndirs == SMOKE_MAX_DIRS)
            return "--corpus (too many)";
        o->dirs[o->ndirs++] = arg;
        return NULL;
    case OPT_KERNEL:
        return df_kernel_list_add(&o->kernels, arg) ? "--kernel" : NULL;
    case OPT_BACKEND: o->backend = arg; return NULL;
    case 't': return df_parse_duration(arg, &o->time_s) ? "--time" : NULL;
    case OPT_SEED: return df_parse_u64(arg, &o->seed) ? "--seed" : NULL;
    case OPT_FINDINGS: o->findings = arg; return NULL;
    case OPT_JUNIT: o->junit = arg; return NULL;
    case OPT_JSON: o->json = arg; return NULL;
    case OPT_WATCHDOG:
        return df_parse_duration(arg, &o->watchdog_s) || !(o->watchdog_s > 0) ? "--watchdog"
                                                                               : NULL;
    }
    return "?";
}

static int parse_smoke_opts(int argc, char **argv, smoke_opts *o)
{
    static const struct option longopts[] = {
        {"corpus", required_argument, 0, OPT_CORPUS},
        {"kernel", required_argument, 0, OPT_KERNEL},
        {"kernel-lib", required_argument, 0, OPT_KERNEL_LIB},
        {"backend", required_argument, 0, OPT_BACKEND}, {"time", required_argument, 0, 't'},
        {"seed", required_argument, 0, OPT_SEED},
        {"findings", required_argument, 0, OPT_FINDINGS},
        {"junit", required_argument, 0, OPT_JUNIT}, {"json", required_argument, 0, OPT_JSON},
        {"watchdog", required_argument, 0, OPT_WATCHDOG},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
    };
    *o = (smoke_opts){.backend = "auto", .findings = "corpus/findings", .time_s = 30,
                      .seed = DF_SMOKE_SEED, .dirs = {"corpus/regression"}, .ndirs = 1};
    int ch, corpus_set = 0;
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        if (ch == 'h')
            return 1;
        if (ch == ':') {
            df_usage_error("smoke", "option %s needs a value", argv[optind - 1]);
            return -1;
        }
        if (ch == '?') {
            df_usage_error("smoke", "unknown option '%s'", argv[optind - 1]);
            return -1;
        }
        if (ch == OPT_KERNEL_LIB) {
            if (df_plugin_paths_add_cli("smoke", &o->libs, optarg) != 0)
                return -1;
            continue;
        }
        const char *bad = smoke_opt(ch, optarg, o, &corpus_set);
        if (bad) {
            fprintf(stderr, "dotfuzz smoke: invalid value '%s' for %s\n", optarg, bad);
            return -1;
        }
    }
    if (optind < argc) {
        df_usage_error("smoke", "unexpected argument '%s'", argv[optind]);
        return -1;
    }
    if ((o->junit && df_output_ok_cli("smoke", "--junit", o->junit) != 0) ||
        (o->json && df_output_ok_cli("smoke", "--json", o->json) != 0))
        return -1;
    return 0;
}

static int runs_in_sandbox(const void *sb, const df_kernel *k)
{
    return df_sandbox_supports(sb, k);
}

/* The kernels to fuzz: `run --kernel LIST`'s selection (df_run_select),
 * LIST being the --kernel values, else "all" (every built-in and plugin
 * kernel the backend runs). Returns an outcome. */
static df_outcome select_kernels(smoke_state *st)
{
    df_run_opts ro = {.kernel = st->o->kernels ? st->o->kernels : "all", .family = "all"};
    df_runs_on on = {df_sandbox_backend(st->sb), runs_in_sandbox, st->sb};
    int rc = df_run_select(&ro, &on, st->kernels, &st->nk);
    return rc == 0 ? DF_OUTCOME_CLEAN : rc == -1 ? DF_OUTCOME_USAGE : DF_OUTCOME_ENV;
}

/* ---- text helpers ---- */

/* s escaped for an XML attribute or text. Bytes XML may not carry
 * (controls, invalid UTF-8) become '?'. */
static void put_xml(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p >= 0x80) {
            p += df_utf8_put(f, p) - 1;
        } else if (*p == '&' || *p == '<' || *p == '>' || *p == '"' || *p == '\'') {
            fputs(*p == '&' ? "&amp;" : *p == '<' ? "&lt;" : *p == '>' ? "&gt;"
                  : *p == '"' ? "&quot;" : "&apos;", f);
        } else if (*p < 0x20) {
            if (*p == '\n' || *p == '\t')
                fputc(*p, f);
            else if (*p == '\r')
                fputs("&#13;", f);
            else
                fputc('?', f);
        } else {
            fputc(*p, f);
        }
    }
}

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
static void replay_command(const smoke_state *st, const char *path, const char *kernel,
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

static reg_result *add_result(smoke_state *st, const char *file, const df_kernel *k,
                              int status, const char *message)
{
    if (df_grow(&st->reg, &st->capreg, st->nreg, sizeof *st->reg) != 0) {
        st->out = df_outcome_worst(st->out, DF_OUTCOME_ENV);
        return NULL;
    }
    if (status == R_ERROR)
        st->out = df_outcome_worst(st->out, DF_OUTCOME_USAGE);
    if (status == R_FAIL)
        st->out = df_outcome_worst(st->out, DF_OUTCOME_BUG);
    reg_result *r = &st->reg[st->nreg];
    *r = (reg_result){.file = strdup(file), .kernel = k ? k->name : NULL, .status = status,
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

static void regress_on(smoke_state *st, const char *path, const df_kernel *k,
                       const df_case_file *f)
{
    /* replay's defaults: every metamorphic check on every case */
    static const df_meta_opts meta = {.every = 1, .reruns = 2};
    df_oracle_opts oo = {.tol = 1e-6};
    df_case c;
    char why[200], msg[400];
    if (df_launch_for(k, &f->c, &c, why, sizeof why) != 0) {
        add_result(st, path, k, f->c.kernel[0] ? R_ERROR : R_SKIP, why);
        return;
    }
    df_checked r;
    double t = df_now();
    if (df_sandbox_check(st->sb, k, &c, &oo, &meta, &r) != 0) {
        st->dead = 1;
        add_result(st, path, k, R_ERROR, "no worker process could run the case");
        return;
    }
    /* the verdict recorded belongs to the kernel the file names */
    int recorded = f->c.kernel[0] ? f->meta.verdict : 0;
    int status = R_PASS;
    if (r.j.verdict == DF_V_BUG) {
        snprintf(msg, sizeof msg, "bug (%s): %s", r.j.rule, r.j.why);
        status = R_FAIL;
    } else if (!verdict_matches(k, recorded, (int)r.j.verdict)) {
        snprintf(msg, sizeof msg, "verdict %s (%s), the file records %s",
                 df_verdict_name(r.j.verdict), r.j.rule, df_verdict_name((df_verdict)recorded));
        status = R_FAIL;
    }
    reg_result *res = add_result(st, path, k, status, status == R_FAIL ? msg : NULL);
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
static void remember_sha1(smoke_state *st, const df_case_file *f)
{
    uint8_t *bytes = NULL;
    size_t len = 0;
    if (df_corpus_encode(&f->c, &f->meta, &bytes, &len) != 0)
        return;
    if (df_grow(&st->known, &st->capknown, st->nknown, sizeof *st->known) == 0)
        df_sha1_hex(bytes, len, st->known[st->nknown++]);
    free(bytes);
}

static void regress_file(smoke_state *st, const char *path)
{
    df_case_file f;
    char msg[300];
    if (df_corpus_read(path, &f, msg, sizeof msg) != DF_CORPUS_OK) {
        fprintf(stderr, "dotfuzz smoke: %s: %s\n", path, msg);
        add_result(st, path, NULL, R_ERROR, msg);
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
            add_result(st, path, k, R_SKIP, msg);
        }
    }
    df_case_file_free(&f);
}

/* Every case file of dir (df_corpus_list), in name order. */
static void regress_dir(smoke_state *st, const char *dir)
{
    char **names;
    size_t n;
    if (df_corpus_list(dir, &names, &n) != 0) {
        fprintf(stderr, "dotfuzz smoke: %s: cannot open directory\n", dir);
        add_result(st, dir, NULL, R_ERROR, "cannot open directory");
        return;
    }
    for (size_t i = 0; i < n && !st->dead; i++)
        regress_file(st, names[i]);
    df_corpus_list_free(names, n);
}

/* ---- fuzzing ---- */

/* Whether the finding that r makes of c is already in the replayed corpus. */
static int is_known(const smoke_state *st, const df_case *c, const df_checked *r)
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
static int on_bug(smoke_state *st, size_t si, size_t ki, const df_case *c, const df_checked *r)
{
    seed_run *sr = &st->seeds[si];
    kernel_tally *t = &sr->tally[ki];
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
        if (st->nflaky < SMOKE_MAX_FLAKY)
            st->flaky[st->nflaky] = (flaky_case){k->name, c->seed, c->index};
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
    smoke_bug *bug = &st->bug;
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
static int fuzz_seed(smoke_state *st, size_t si, double budget)
{
    seed_run *sr = &st->seeds[si];
    df_gen_opts go = {.max_n = 65536};
    df_oracle_opts oo = {.tol = 1e-6};
    df_meta_opts mo = {.every = 16, .reruns = 2}; /* run's defaults */
    double t0 = df_now();
    int stop = 0;
    sr->ran = 1;
    for (uint64_t i = 0; !stop && df_now() - t0 < budget; i++) {
        size_t ki = (size_t)(i % st->nk);
        const df_kernel *k = st->kernels[ki];
        kernel_tally *t = &sr->tally[ki];
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

/* ---- reports ---- */

typedef struct reg_counts {
    size_t fail, error, skip;
    double time_s;
} reg_counts;

static reg_counts count_regression(const smoke_state *st)
{
    reg_counts n = {0};
    for (size_t i = 0; i < st->nreg; i++) {
        n.fail += st->reg[i].status == R_FAIL;
        n.error += st->reg[i].status == R_ERROR;
        n.skip += st->reg[i].status == R_SKIP;
        n.time_s += st->reg[i].time_s;
    }
    return n;
}

static void put_xml_attr(FILE *f, const char *name, const char *value)
{
    fprintf(f, " %s=\"", name);
    put_xml(f, value);
    fputc('"', f);
}

static void junit_regression(FILE *f, const smoke_state *st, reg_counts n)
{
    fprintf(f, "  <testsuite name=\"regression\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
               "skipped=\"%zu\" time=\"%.3f\">\n",
            st->nreg, n.fail, n.error, n.skip, n.time_s);
    for (size_t i = 0; i < st->nreg; i++) {
        const reg_result *r = &st->reg[i];
        char name[4200];
        snprintf(name, sizeof name, "%s%s%s", r->file, r->kernel ? " on " : "",
                 r->kernel ? r->kernel : "");
        fputs("    <testcase classname=\"regression\"", f);
        put_xml_attr(f, "name", name);
        fprintf(f, " time=\"%.3f\">\n", r->time_s);
        static const char *const tag[] = {"", "failure", "error", "skipped"};
        if (r->status != R_PASS) {
            fprintf(f, "      <%s", tag[r->status]);
            put_xml_attr(f, "message", r->message ? r->message : "");
            if (r->status == R_SKIP) {
                fputs("/>\n", f);
            } else {
                fprintf(f, " type=\"%s\">", r->status == R_ERROR ? "input"
                                            : r->verdict == DF_V_BUG ? "bug" : "verdict-changed");
                put_xml(f, r->detail ? r->detail : "");
                fprintf(f, "</%s>\n", tag[r->status]);
            }
        }
        if (r->detail) {
            fputs("      <system-out>", f);
            put_xml(f, r->detail);
            fputs("</system-out>\n", f);
        }
        fputs("    </testcase>\n", f);
    }
    fputs("  </testsuite>\n", f);
}

static void tally_text(FILE *f, const kernel_tally *t)
{
    fprintf(f, "cases %llu:", (unsigned long long)t->cases);
    for (int v = DF_V_OK; v <= DF_V_BUG; v++)
        fprintf(f, "%s %s %llu", v == DF_V_OK ? "" : ",", df_verdict_name((df_verdict)v),
                (unsigned long long)t->verdicts[v]);
    fprintf(f, "; flaky %llu, known %llu", (unsigned long long)t->flaky,
            (unsigned long long)t->known);
}

static void junit_bug(FILE *f, const smoke_state *st)
{
    const smoke_bug *b = &st->bug;
    char msg[5400];
    snprintf(msg, sizeof msg, "bug (%s) at seed %llu index %llu, n=%llu: %s; replay: %s",
             b->rule, (unsigned long long)b->seed, (unsigned long long)b->index,
             (unsigned long long)b->n, b->why, b->replay);
    fputs("      <failure", f);
    put_xml_attr(f, "message", msg);
    fputs(" type=\"bug\">", f);
    put_xml(f, b->why);
    fputs("\nsaved: ", f);
    put_xml(f, b->path);
    fputs("\nreplay: ", f);
    put_xml(f, b->replay);
    fputs(b->rechecked ? "\n" : "\n(not checked again: the backend became unusable)\n", f);
    fputs("</failure>\n", f);
}

static void junit_seed(FILE *f, const smoke_state *st, size_t si)
{
    const seed_run *sr = &st->seeds[si];
    int failed = st->bug.found && st->bug.seed_i == si;
    fprintf(f, "  <testsuite name=\"fuzz seed %llu (%s)\" tests=\"%zu\" failures=\"%d\" "
               "errors=\"0\" skipped=\"%zu\" time=\"%.3f\">\n",
            (unsigned long long)sr->seed, sr->label, st->nk, failed, sr->ran ? 0 : st->nk,
            sr->elapsed);
    fprintf(f, "    <properties><property name=\"seed\" value=\"%llu\"/>"
               "<property name=\"backend\" value=\"%s\"/></properties>\n",
            (unsigned long long)sr->seed, df_sandbox_backend(st->sb));
    for (size_t ki = 0; ki < st->nk; ki++) {
        const kernel_tally *t = &sr->tally[ki];
        fprintf(f, "    <testcase classname=\"fuzz.seed-%llu\"", (unsigned long long)sr->seed);
        put_xml_attr(f, "name", st->kernels[ki]->name);
        fprintf(f, " time=\"%.3f\">\n", t->time_s);
        if (!sr->ran)
            fputs("      <skipped message=\"not run: fuzzing stopped before this seed (a bug, "
                  "or the backend became unusable)\"/>\n", f);
        if (failed && st->bug.ki == ki)
            junit_bug(f, st);
        fputs("      <system-out>", f);
        tally_text(f, t);
        fputs("</system-out>\n    </testcase>\n", f);
    }
    fputs("  </testsuite>\n", f);
}

static void write_junit(FILE *f, const smoke_state *st, double elapsed)
{
    reg_counts n = count_regression(st);
    size_t tests = st->nreg + 2 * st->nk;
    size_t failures = n.fail + (size_t)st->bug.found;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<testsuites name=\"dotfuzz smoke\" tests=\"%zu\" failures=\"%zu\" "
               "errors=\"%zu\" time=\"%.3f\">\n",
            tests, failures, n.error, elapsed);
    junit_regression(f, st, n);
    junit_seed(f, st, 0);
    junit_seed(f, st, 1);
    fputs("</testsuites>\n", f);
}

static const char *const status_name[] = {"pass", "fail", "error", "skipped"};

static void json_regression(FILE *f, const smoke_state *st)
{
    reg_counts n = count_regression(st);
    fprintf(f, "  \"regression\": {\"corpora\": [");
    for (size_t i = 0; i < st->o->ndirs; i++) {
        fputs(i ? ", " : "", f);
        df_json_str(f, st->o->dirs[i]);
    }
    fprintf(f, "], \"runs\": %zu, \"failures\": %zu, \"errors\": %zu, \"skipped\": %zu, "
               "\"results\": [",
            st->nreg, n.fail, n.error, n.skip);
    for (size_t i = 0; i < st->nreg; i++) {
        const reg_result *r = &st->reg[i];
        fputs(i ? ",\n    {\"file\": " : "\n    {\"file\": ", f);
        df_json_str(f, r->file);
        fputs(", \"kernel\": ", f);
        df_json_str(f, r->kernel);
        fprintf(f, ", \"status\": \"%s\", \"verdict\": ", status_name[r->status]);
        df_json_str(f, r->verdict ? df_verdict_name((df_verdict)r->verdict) : NULL);
        fputs(", \"recorded\": ", f);
        df_json_str(f, r->recorded ? df_verdict_name((df_verdict)r->recorded) : NULL);
        fputs(", \"message\": ", f);
        df_json_str(f, r->message);
        fputc('}', f);
    }
    fputs("]},\n", f);
}

static void json_seed(FILE *f, const smoke_state *st, size_t si)
{
    const seed_run *sr = &st->seeds[si];
    fputs("    {\"seed\": ", f);
    df_json_u64(f, sr->seed);
    fprintf(f, ", \"kind\": \"%s\", \"ran\": %s, \"cases\": %llu, \"elapsed_s\": %.3f, "
               "\"kernels\": [",
            sr->label, sr->ran ? "true" : "false", (unsigned long long)sr->cases, sr->elapsed);
    for (size_t ki = 0; ki < st->nk; ki++) {
        const kernel_tally *t = &sr->tally[ki];
        fprintf(f, "%s\n      {\"kernel\": ", ki ? "," : "");
        df_json_str(f, st->kernels[ki]->name);
        fprintf(f, ", \"cases\": %llu, \"verdicts\": {", (unsigned long long)t->cases);
        for (int v = DF_V_OK; v <= DF_V_BUG; v++)
            fprintf(f, "%s\"%s\": %llu", v == DF_V_OK ? "" : ", ",
                    df_verdict_name((df_verdict)v), (unsigned long long)t->verdicts[v]);
        fprintf(f, "}, \"flaky\": %llu, \"known\": %llu}", (unsigned long long)t->flaky,
                (unsigned long long)t->known);
    }
    fputs("]}", f);
}

static void json_bug(FILE *f, const smoke_state *st)
{
    const smoke_bug *b = &st->bug;
    if (!b->found) {
        fputs("  \"bug\": null,\n", f);
        return;
    }
    fputs("  \"bug\": {\"kernel\": ", f);
    df_json_str(f, st->kernels[b->ki]->name);
    fputs(", \"seed\": ", f);
    df_json_u64(f, b->seed);
    fputs(", \"index\": ", f);
    df_json_u64(f, b->index);
    fprintf(f, ", \"n\": %llu, \"rule\": ", (unsigned long long)b->n);
    df_json_str(f, b->rule);
    fputs(", \"why\": ", f);
    df_json_str(f, b->why);
    fprintf(f, ", \"rechecked\": %s, \"file\": ", b->rechecked ? "true" : "false");
    df_json_str(f, b->path);
    fputs(", \"replay\": ", f);
    df_json_str(f, b->replay);
    fputs("},\n", f);
}

static void write_json(FILE *f, const smoke_state *st, double elapsed, df_outcome out)
{
    fputs("{\n  ", f);
    df_json_stamp(f);
    fputs(",\n  \"backend\": ", f);
    df_json_str(f, df_sandbox_backend(st->sb));
    fputs(",\n  \"seeds\": {\"fixed\": ", f);
    df_json_u64(f, st->seeds[0].seed);
    fputs(", \"fresh\": ", f);
    df_json_u64(f, st->seeds[1].seed);
    fprintf(f, "},\n  \"time_budget_s\": %.3f,\n", st->o->time_s);
    json_regression(f, st);
    fputs("  \"fuzz\": [\n", f);
    json_seed(f, st, 0);
    fputs(",\n", f);
    json_seed(f, st, 1);
    fprintf(f, "\n  ],\n  \"flaky\": %llu, \"flaky_cases\": [", (unsigned long long)st->nflaky);
    for (uint64_t i = 0; i < st->nflaky && i < SMOKE_MAX_FLAKY; i++) {
        fputs(i ? ", {\"kernel\": " : "{\"kernel\": ", f);
        df_json_str(f, st->flaky[i].kernel);
        fputs(", \"seed\": ", f);
        df_json_u64(f, st->flaky[i].seed);
        fputs(", \"index\": ", f);
        df_json_u64(f, st->flaky[i].index);
        fputc('}', f);
    }
    fputs("],\n", f);
    json_bug(f, st);
    fprintf(f, "  \"elapsed_s\": %.3f,\n  \"exit_status\": %d\n}\n", elapsed, df_exit_code(out));
}

/* Builds a report in memory and writes it atomically: a CI system never
 * reads half a file. Returns 0, or -1 (said on stderr). */
static int write_report(const char *path, const smoke_state *st, double elapsed,
                        df_outcome out, int junit)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        perror("dotfuzz smoke: out of memory");
        return -1;
    }
    if (junit)
        write_junit(f, st, elapsed);
    else
        write_json(f, st, elapsed, out);
    fclose(f);
    int rc = df_write_file_atomic(path, (const uint8_t *)text, len);
    if (rc != 0)
        fprintf(stderr, "dotfuzz smoke: cannot write %s: %s\n", path, strerror(errno));
    free(text);
    return rc;
}

static void print_summary(const smoke_state *st, double elapsed)
{
    reg_counts n = count_regression(st);
    for (size_t i = 0; i < st->nreg; i++)
        if (st->reg[i].status == R_FAIL || st->reg[i].status == R_ERROR)
            printf("%s  regression %s%s%s: %s\n",
                   st->reg[i].status == R_FAIL ? "FAIL " : "ERROR", st->reg[i].file,
                   st->reg[i].kernel ? " on " : "", st->reg[i].kernel ? st->reg[i].kernel : "",
                   st->reg[i].message ? st->reg[i].message : "");
    printf("dotfuzz smoke: regression: %zu run(s), %zu failed, %zu error(s), %zu skipped\n",
           st->nreg, n.fail, n.error, n.skip);
    for (size_t si = 0; si < 2; si++) {
        const seed_run *sr = &st->seeds[si];
        printf("dotfuzz smoke: seed %llu (%s): %llu case(s) in %.1f s over %zu kernel(s)%s\n",
               (unsigned long long)sr->seed, sr->label, (unsigned long long)sr->cases,
               sr->elapsed, st->nk, sr->ran ? "" : " (not run: stopped before it)");
    }
    if (st->bug.found)
        printf("dotfuzz smoke: BUG on %s (%s), saved to %s\n  replay: %s\n",
               st->kernels[st->bug.ki]->name, st->bug.rule, st->bug.path, st->bug.replay);
    else
        printf("dotfuzz smoke: no new bug; %llu flaky case(s)\n",
               (unsigned long long)st->nflaky);
    printf("dotfuzz smoke: %.1f s on backend %s\n", elapsed, df_sandbox_backend(st->sb));
}

static void smoke_free(smoke_state *st)
{
    for (size_t i = 0; i < st->nreg; i++) {
        free(st->reg[i].file);
        free(st->reg[i].message);
        free(st->reg[i].detail);
    }
    free(st->reg);
    free(st->known);
    df_scratch_free(&st->buf);
    df_sandbox_close(st->sb);
    free(st);
}

/* Regression replay, then the two seeds; the outcome so far in st->out. */
static void smoke_run(smoke_state *st)
{
    const smoke_opts *o = st->o;
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

static df_outcome smoke_main(const smoke_opts *opts);

df_outcome df_cmd_smoke(int argc, char **argv)
{
    smoke_opts o;
    int p = parse_smoke_opts(argc, argv, &o);
    df_outcome out = DF_OUTCOME_USAGE;
    if (p > 0) {
        smoke_usage(stdout);
        out = DF_OUTCOME_CLEAN;
    } else if (p == 0 && df_load_plugins_cli("smoke", &o.libs) == 0) {
        out = smoke_main(&o);
    }
    free(o.kernels);
    return out;
}

static df_outcome smoke_main(const smoke_opts *opts)
{
    smoke_state *st = calloc(1, sizeof *st);
    if (!st)
        return DF_OUTCOME_ENV;
    st->o = opts;
    df_outcome out = df_sandbox_open("smoke", opts->backend, 0, opts->watchdog_s, &st->sb);
    if (out == DF_OUTCOME_CLEAN)
        out = select_kernels(st);
    if (out == DF_OUTCOME_CLEAN && df_dir_writable_cli("smoke", "--findings", opts->findings))
        out = DF_OUTCOME_ENV;
    if (out != DF_OUTCOME_CLEAN) {
        smoke_free(st);
        return out;
    }
    st->seeds[0] = (seed_run){.label = "fixed", .seed = opts->seed};
    st->seeds[1] = (seed_run){.label = "fresh", .seed = df_fresh_seed()};
    fprintf(stderr, "dotfuzz smoke: %s\n", df_sandbox_note(st->sb));
    printf("dotfuzz smoke: seeds %llu (fixed) and %llu (fresh), %zu kernel(s), %.0f s of "
           "fuzzing\n",
           (unsigned long long)st->seeds[0].seed, (unsigned long long)st->seeds[1].seed,
           st->nk, opts->time_s);
    fflush(stdout);
    double t0 = df_now();
    smoke_run(st);
    double elapsed = df_now() - t0;
    print_summary(st, elapsed);
    out = st->out;
    if (opts->junit && write_report(opts->junit, st, elapsed, out, 1) != 0)
        out = df_outcome_worst(out, DF_OUTCOME_ENV);
    if (opts->json && write_report(opts->json, st, elapsed, out, 0) != 0)
        out = df_outcome_worst(out, DF_OUTCOME_ENV);
    smoke_free(st);
    return out;
}
