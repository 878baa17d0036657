/* cmd_minimize.c — `dotfuzz minimize FILE`: shrinks a failing case while
 * the same verdict (bug) with the same rule persists on the same kernel.
 * Three phases, each candidate judged exactly as `replay` judges (oracle,
 * then every metamorphic check, since rules such as "negate" or "rerun"
 * come from them): delta debugging over the pairs (remove halves, quarters,
 * ..., single pairs), simpler values (0, 1, small integers, powers of two,
 * narrower exponents; smaller magnitudes for i32), then the default launch.
 * The case keeps its (seed, index): the metamorphic transforms are drawn
 * from them, so a rule found by one stays reproducible. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/check/check.h"
#include "fuzz/cmd/cli.h"
#include "fuzz/cmd/cli_util.h"
#include "fuzz/check/metamorphic.h"
#include "fuzz/lowp.h"
#include "fuzz/plugin.h"
#include "fuzz/run/sandbox.h"
#include "fuzz/run/select.h"
#include "kernels/blas.h"

typedef struct min_opts {
    const char *file, *out, *backend;
    const char *kernel;  /* the one kernel --kernel names, once resolved */
    char *kernel_given;  /* the --kernel values joined (select.h) */
    double tol;
    double watchdog_s;   /* 0: by the case's size */
    uint64_t max_tries;
    df_plugin_paths libs;
} min_opts;

/* The case being shrunk: owns its vectors (a then b, each n elements). */
typedef struct min_state {
    df_sandbox *sb;
    const df_kernel *k;
    df_oracle_opts oo;
    df_meta_opts mo;
    df_case c;          /* c.a/c.b point into buf; c.launch unresolved */
    uint8_t *buf;
    const char *rule;   /* the rule that must persist */
    uint64_t tries, max_tries;
    int dead;           /* no worker process can run cases */
    df_checked last;    /* judgement of the current case */
} min_state;

static void min_usage(FILE *f)
{
    fputs("usage: dotfuzz minimize FILE [OPTIONS]\n"
          "\n"
          "Shrinks a case that is a bug on its kernel while the same rule keeps\n"
          "firing: removes pairs (halves, quarters, ..., single pairs), replaces\n"
          "values by simpler ones (0, 1, small integers, powers of two), then tries\n"
          "the kernel's default launch. Every attempt is judged as replay judges it\n"
          "(oracle and metamorphic checks).\n"
          "\n"
          "  -o, --output OUT     minimized case file (default FILE.min; written atomically)\n"
          "  --backend B          cuda, host or auto (default auto)\n"
          "  --kernel NAME        kernel to minimize on (needed when FILE names none; the\n"
          "                       list form of the other commands must name one kernel)\n"
          "  --kernel-lib PATH    load kernels from a plugin library (repeatable)\n"
          "  --tol X              relative tolerance of a precision finding (default 1e-6)\n"
          "  --max-tries N        stop after N judged attempts (default 5000)\n"
          "  --watchdog D         an attempt running longer is a hang (bug; default 10s,\n"
          "                       or 400 ns an element of longer cases)\n"
          "  -h, --help           this text\n"
          "\n"
          "exit status: 0 minimized (or no reduction possible), 2 unreadable file or\n"
          "neither a bug nor a soft error on that kernel, 3 backend unavailable or OUT\n"
          "not writable\n",
          f);
}

static int parse_min_opts(int argc, char **argv, min_opts *o)
{
    enum { OPT_BACKEND = 256, OPT_TOL, OPT_KERNEL, OPT_KERNEL_LIB, OPT_MAX_TRIES, OPT_WATCHDOG };
    static const struct option longopts[] = {
        {"output", required_argument, 0, 'o'}, {"backend", required_argument, 0, OPT_BACKEND},
        {"tol", required_argument, 0, OPT_TOL}, {"kernel", required_argument, 0, OPT_KERNEL},
        {"kernel-lib", required_argument, 0, OPT_KERNEL_LIB},
        {"max-tries", required_argument, 0, OPT_MAX_TRIES},
        {"watchdog", required_argument, 0, OPT_WATCHDOG},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
    };
    *o = (min_opts){.backend = "auto", .tol = 1e-6, .max_tries = 5000};
    int ch;
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
        switch (ch) {
        case 'h': return 1;
        case 'o': o->out = optarg; break;
        case OPT_BACKEND: o->backend = optarg; break;
        case OPT_KERNEL:
            if (df_kernel_list_add(&o->kernel_given, optarg) != 0)
                return -1;
            break;
        case OPT_WATCHDOG:
            if (df_parse_duration(optarg, &o->watchdog_s) || !(o->watchdog_s > 0)) {
                df_usage_error("minimize", "invalid --watchdog '%s'", optarg);
                return -1;
            }
            break;
        case OPT_KERNEL_LIB:
            if (df_plugin_paths_add_cli("minimize", &o->libs, optarg) != 0)
                return -1;
            break;
        case OPT_TOL:
            if (df_parse_tol_cli("minimize", optarg, &o->tol) != 0)
                return -1;
            break;
        case OPT_MAX_TRIES:
            if (df_parse_u64(optarg, &o->max_tries) || o->max_tries == 0) {
                df_usage_error("minimize", "invalid --max-tries '%s'", optarg);
                return -1;
            }
            break;
        case ':':
            df_usage_error("minimize", "option %s needs a value", argv[optind - 1]);
            return -1;
        default: df_usage_error("minimize", "unknown option '%s'", argv[optind - 1]); return -1;
        }
    }
    if (optind != argc - 1) {
        df_usage_error("minimize", "%s", optind >= argc ? "no FILE given" : "more than one FILE");
        return -1;
    }
    o->file = argv[optind];
    if (o->out && df_output_ok_cli("minimize", "-o", o->out) != 0)
        return -1;
    return 0;
}

/* Judges c as replay does. Returns 1 when it is a bug or a soft error
 * (the kernel's own report) with st->rule (or, when st->rule is NULL, any
 * such verdict), 0 otherwise; out gets the judgement. */
static int judge(min_state *st, const df_case *c, df_checked *out)
{
    df_case r = *c;
    if (df_launch_resolve(st->k, r.n, &r.launch, NULL, 0) != 0)
        return 0;
    st->tries++;
    if (df_sandbox_check(st->sb, st->k, &r, &st->oo, &st->mo, out) != 0) {
        st->dead = 1;
        return 0;
    }
    if (out->j.verdict != DF_V_BUG && out->j.verdict != DF_V_SOFT_ERROR)
        return 0;
    return !st->rule || strcmp(out->j.rule, st->rule) == 0;
}

static int budget_left(const min_state *st)
{
    return !st->dead && st->tries < st->max_tries;
}

/* Judges candidate cand (vectors in cbuf); on success it becomes the
 * current case, swapping buffers. */
static int try_case(min_state *st, df_case *cand, uint8_t **cbuf)
{
    df_checked r;
    if (!budget_left(st) || !judge(st, cand, &r))
        return 0;
    uint8_t *old = st->buf;
    st->buf = *cbuf;
    *cbuf = old;
    st->c = *cand;
    st->last = r;
    return 1;
}

/* The current case without pairs [from, from + len). */
static int try_remove(min_state *st, uint64_t from, uint64_t len, uint8_t **cbuf)
{
    size_t es = df_type_size(st->c.type);
    uint64_t n = st->c.n, m = n - len;
    const uint8_t *a = st->buf, *b = st->buf + n * es;
    uint8_t *na = *cbuf, *nb = *cbuf + m * es;
    memcpy(na, a, from * es);
    memcpy(na + from * es, a + (from + len) * es, (n - from - len) * es);
    memcpy(nb, b, from * es);
    memcpy(nb + from * es, b + (from + len) * es, (n - from - len) * es);
    df_case cand = st->c;
    cand.n = m;
    if (cand.blas.on) /* a BLAS call: the shorter call */
        df_blas_follow_n(&cand.blas, m);
    cand.a = na;
    cand.b = nb;
    return try_case(st, &cand, cbuf);
}

/* Delta debugging over pairs: chunks of n/2, n/4, ..., 1; a chunk whose
 * removal keeps the bug is gone, and the same size is tried again until a
 * pass removes nothing. Never goes below one pair. */
static void shrink_pairs(min_state *st, uint8_t **cbuf)
{
    uint64_t chunk = st->c.n / 2;
    while (chunk >= 1 && budget_left(st)) {
        int removed = 0;
        for (uint64_t from = 0; from < st->c.n && budget_left(st);) {
            uint64_t len = chunk < st->c.n - from ? chunk : st->c.n - from;
            if (len < st->c.n && try_remove(st, from, len, cbuf))
                removed = 1;
            else
                from += len;
        }
        if (!removed)
            chunk /= 2;
        else if (chunk > st->c.n / 2)
            chunk = st->c.n / 2;
    }
}

/* How complicated a float value looks: 0 is simplest, then values with few
 * significant bits and an exponent near 0; non-finite values last. */
static double float_cost(double v)
{
    if (v == 0)
        return 0;
    if (!isfinite(v))
        return 1e9;
    int e;
    double m = frexp(fabs(v), &e); /* m in [0.5, 1) */
    int bits = 0;
    while (m != 0 && bits < 64) {
        m = m * 2 - floor(m * 2);
        bits++;
    }
    return 1 + bits + fabs((double)(e - 1));
}

/* Simpler values for v, simplest first: 0, ±1, its integer part, the power
 * of two below it, the same significand with half the exponent. */
static size_t float_candidates(double v, double *out)
{
    size_t n = 0;
    double s = signbit(v) ? -1.0 : 1.0;
    out[n++] = 0;
    out[n++] = s;
    if (isfinite(v)) {
        if (fabs(v) >= 1 && fabs(v) < 0x1p53)
            out[n++] = trunc(v);
        if (v != 0) {
            int e;
            double m = frexp(fabs(v), &e);
            out[n++] = s * ldexp(1.0, e - 1);
            out[n++] = s * ldexp(m, e / 2);
        }
    } else {
        out[n++] = 2 * s;
    }
    return n;
}

static uint64_t int_cost(int32_t v)
{
    return v < 0 ? (uint64_t)(-(int64_t)v) : (uint64_t)v;
}

/* Smaller magnitudes for v: 0, ±1, the power of two below, half of it. */
static size_t int_candidates(int32_t v, int64_t *out)
{
    int64_t s = v < 0 ? -1 : 1, m = (int64_t)int_cost(v);
    size_t n = 0;
    out[n++] = 0;
    out[n++] = s;
    if (m > 1) {
        int64_t p = 1;
        while (p * 2 <= m)
            p *= 2;
        out[n++] = s * p;
        out[n++] = s * (m / 2);
        out[n++] = s * (m - m / 4);
    }
    return n;
}

/* set_simpler for a low-precision element: the float candidates of its
 * value that the format holds exactly, stored as its bits. */
static int set_simpler_lowp(df_type t, uint8_t *cbuf, uint64_t at, size_t i)
{
    df_lowp f = (df_lowp)df_type_facts_of(t).lowp;
    int wide = df_type_size(t) == 2;
    uint32_t bits = wide ? ((uint16_t *)(void *)cbuf)[at] : cbuf[at];
    double cur = df_lowp_decode(f, bits), cand[8];
    if (i >= float_candidates(cur, cand))
        return -1;
    uint32_t nb = df_lowp_encode(f, cand[i], 0);
    if (df_lowp_decode(f, nb) != cand[i] || float_cost(cand[i]) >= float_cost(cur))
        return 0;
    if (wide)
        ((uint16_t *)(void *)cbuf)[at] = (uint16_t)nb;
    else
        cbuf[at] = (uint8_t)nb;
    return 1;
}

/* Writes candidate value i of element `at` (vector a or b) into cbuf (a
 * copy of the current vectors); returns 1 when it is simpler than now. */
static int set_simpler(min_state *st, uint8_t *cbuf, uint64_t at, size_t i)
{
    switch (st->c.type) {
    case DF_F32: {
        float *p = (float *)(void *)cbuf + at, cur = *p;
        double cand[8];
        if (i >= float_candidates(cur, cand))
            return -1;
        float f = (float)cand[i];
        if (float_cost(f) >= float_cost(cur))
            return 0;
        *p = f;
        return 1;
    }
    case DF_F64: {
        double *p = (double *)(void *)cbuf + at, cur = *p;
        double cand[8];
        if (i >= float_candidates(cur, cand))
            return -1;
        if (float_cost(cand[i]) >= float_cost(cur))
            return 0;
        *p = cand[i];
        return 1;
    }
    case DF_I32: {
        int32_t *p = (int32_t *)(void *)cbuf + at, cur = *p;
        int64_t cand[8];
        if (i >= int_candidates(cur, cand))
            return -1;
        if (int_cost((int32_t)cand[i]) >= int_cost(cur))
            return 0;
        *p = (int32_t)cand[i];
        return 1;
    }
    case DF_F16:
    case DF_BF16:
    case DF_E4M3:
    case DF_E5M2: return set_simpler_lowp(st->c.type, cbuf, at, i);
    }
    return -1;
}

/* One pass over every value of a then b; returns whether any changed. */
static int simplify_pass(min_state *st, uint8_t **cbuf)
{
    size_t bytes = 2 * st->c.n * df_type_size(st->c.type);
    int changed = 0;
    for (uint64_t at = 0; at < 2 * st->c.n && budget_left(st); at++) {
        for (size_t i = 0; budget_left(st); i++) {
            memcpy(*cbuf, st->buf, bytes);
            int s = set_simpler(st, *cbuf, at, i);
            if (s < 0)
                break;
            if (s == 0)
                continue;
            df_case cand = st->c;
            cand.a = *cbuf;
            cand.b = *cbuf + st->c.n * df_type_size(st->c.type);
            if (try_case(st, &cand, cbuf)) {
                changed = 1;
                break; /* the simplest accepted value wins */
            }
        }
    }
    return changed;
}

/* Every accepted value is strictly simpler, so the passes terminate. */
static void simplify_values(min_state *st, uint8_t **cbuf)
{
    while (budget_left(st) && simplify_pass(st, cbuf))
        ;
}

/* The kernel's default launch, then default block/grid with the offsets. */
static void simplify_launch(min_state *st, uint8_t **cbuf)
{
    const df_launch cur = st->c.launch;
    const df_launch cands[] = {
        {0, 0, 0, 0},
        {0, 0, cur.offset_a, cur.offset_b},
        {cur.block, 0, cur.offset_a, cur.offset_b},
    };
    size_t bytes = 2 * st->c.n * df_type_size(st->c.type);
    for (size_t i = 0; i < sizeof cands / sizeof cands[0] && budget_left(st); i++) {
        if (!memcmp(&cands[i], &st->c.launch, sizeof cur))
            return; /* nothing simpler left to try */
        memcpy(*cbuf, st->buf, bytes);
        df_case cand = st->c;
        cand.launch = cands[i];
        cand.a = *cbuf;
        cand.b = *cbuf + st->c.n * df_type_size(st->c.type);
        if (try_case(st, &cand, cbuf))
            return;
    }
}

static void print_state(const char *label, const min_state *st, const df_checked *r)
{
    printf("%s: n=%llu kernel=%s block=%u grid=%u %s (%s): %s\n", label,
           (unsigned long long)st->c.n, st->k->name, st->c.launch.block, st->c.launch.grid,
           df_verdict_name(r->j.verdict), r->j.rule, r->j.why);
}

/* The kernel the case is minimized on and its starting launch (replay's
 * rule for kernel-less cases: the file's launch where valid, else the
 * kernel's default). Returns USAGE with a message when there is none. */
static df_outcome pick_kernel(const min_opts *o, df_case *c, const df_kernel **k)
{
    if (c->kernel[0] && o->kernel && strcmp(c->kernel, o->kernel) != 0) {
        fprintf(stderr, "dotfuzz minimize: %s: names kernel %s, not %s\n", o->file, c->kernel,
                o->kernel);
        return DF_OUTCOME_USAGE;
    }
    const char *name = c->kernel[0] ? c->kernel : o->kernel;
    if (!name) {
        fprintf(stderr, "dotfuzz minimize: %s names no kernel: give --kernel NAME\n", o->file);
        return DF_OUTCOME_USAGE;
    }
    *k = df_kernel_find(name);
    if (!*k || (*k)->elem != c->type) {
        fprintf(stderr, "dotfuzz minimize: %s: no %s kernel named '%s'\n", o->file,
                df_type_name(c->type), name);
        return DF_OUTCOME_USAGE;
    }
    df_case resolved;
    char why[200];
    if (df_launch_for(*k, c, &resolved, why, sizeof why) != 0) {
        fprintf(stderr, "dotfuzz minimize: %s: %s\n", o->file, why);
        return DF_OUTCOME_USAGE;
    }
    c->launch = resolved.launch;
    /* a derived grid must follow n as pairs are removed */
    if (!((*k)->flags & DF_K_GRID_FREE))
        c->launch.grid = 0;
    snprintf(c->kernel, sizeof c->kernel, "%s", (*k)->name);
    return DF_OUTCOME_CLEAN;
}

static df_outcome write_result(const min_opts *o, const min_state *st)
{
    char def[4096];
    const char *out = o->out;
    if (!out) {
        snprintf(def, sizeof def, "%s.min", o->file);
        out = def;
    }
    df_case_meta m = {.verdict = (uint8_t)st->last.j.verdict, .result = st->last.j.result,
                      .iresult = st->last.j.iresult, .reference = st->last.j.ref};
    uint8_t *buf = NULL;
    size_t len = 0;
    if (df_corpus_encode(&st->c, &m, &buf, &len) != 0 ||
        df_write_file_atomic(out, buf, len) != 0) {
        fprintf(stderr, "dotfuzz minimize: cannot write %s\n", out);
        free(buf);
        return DF_OUTCOME_ENV;
    }
    free(buf);
    printf("wrote %s\n", out);
    return DF_OUTCOME_CLEAN;
}

/* The three phases on a case already known to be a bug with st->rule. */
static void minimize(min_state *st)
{
    size_t bytes = 2 * st->c.n * df_type_size(st->c.type);
    uint8_t *cbuf = malloc(bytes ? bytes : 1);
    if (!cbuf) {
        st->dead = 1;
        return;
    }
    shrink_pairs(st, &cbuf);
    simplify_values(st, &cbuf);
    simplify_launch(st, &cbuf);
    free(cbuf);
}

static df_outcome minimize_case(const min_opts *o, df_sandbox *sb, df_case_file *f)
{
    const df_kernel *k;
    df_outcome pk = pick_kernel(o, &f->c, &k);
    if (pk != DF_OUTCOME_CLEAN)
        return pk;
    if (!df_sandbox_supports(sb, k)) {
        fprintf(stderr, "dotfuzz minimize: kernel %s cannot run on backend %s\n", k->name,
                df_sandbox_backend(sb));
        return DF_OUTCOME_ENV;
    }
    size_t bytes = 2 * f->c.n * df_type_size(f->c.type);
    min_state st = {.sb = sb, .k = k, .oo = {.tol = o->tol}, .mo = {.every = 1, .reruns = 2},
                    .c = f->c, .max_tries = o->max_tries};
    st.buf = malloc(bytes ? bytes : 1);
    if (!st.buf) {
        fprintf(stderr, "dotfuzz minimize: out of memory\n");
        return DF_OUTCOME_ENV;
    }
    memcpy(st.buf, f->data, bytes);
    st.c.a = st.buf;
    st.c.b = st.buf + bytes / 2;
    df_outcome out = DF_OUTCOME_CLEAN;
    if (!judge(&st, &st.c, &st.last)) {
        print_state("before", &st, &st.last);
        fprintf(stderr, "dotfuzz minimize: %s is neither a bug nor a soft error on %s: nothing to "
                "minimize\n",
                o->file, k->name);
        out = st.dead ? DF_OUTCOME_ENV : DF_OUTCOME_USAGE;
    } else {
        st.rule = st.last.j.rule;
        print_state("before", &st, &st.last);
        uint64_t n0 = st.c.n;
        uint8_t *orig = malloc(bytes ? bytes : 1);
        if (orig)
            memcpy(orig, st.buf, bytes);
        df_launch l0 = st.c.launch;
        minimize(&st);
        print_state("after", &st, &st.last);
        int same = st.c.n == n0 && orig && !memcmp(orig, st.buf, bytes) &&
                   !memcmp(&l0, &st.c.launch, sizeof l0);
        free(orig);
        printf("%llu attempt(s)%s%s\n", (unsigned long long)st.tries,
               st.tries >= st.max_tries ? " (--max-tries reached)" : "",
               same ? ": no reduction possible" : "");
        out = st.dead ? DF_OUTCOME_ENV : write_result(o, &st);
    }
    free(st.buf);
    return out;
}

/* The one kernel --kernel names, into o->kernel. USAGE (said) when the
 * list names another number of kernels or an unknown one. */
static df_outcome one_kernel(min_opts *o)
{
    const df_kernel *ks[4 * DF_KERNEL_SET];
    unsigned char named[4 * DF_KERNEL_SET];
    size_t nk = 0;
    if (df_kernels_of("minimize", o->kernel_given, ks, named, 4 * DF_KERNEL_SET, &nk) != 0)
        return DF_OUTCOME_USAGE;
    if (nk != 1) {
        df_usage_error("minimize", "--kernel '%s' must name one kernel", o->kernel_given);
        return DF_OUTCOME_USAGE;
    }
    o->kernel = ks[0]->name;
    return DF_OUTCOME_CLEAN;
}

/* The output's directory must take a file before any attempt is made. */
static int output_writable(const min_opts *o)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", o->out ? o->out : o->file);
    char *slash = strrchr(dir, '/');
    if (slash)
        slash[slash == dir] = 0; /* "/x" keeps "/" */
    else
        snprintf(dir, sizeof dir, ".");
    return df_dir_writable_cli("minimize", "the output's directory", dir);
}

static df_outcome minimize_file(min_opts *o)
{
    if (df_load_plugins_cli("minimize", &o->libs) != 0)
        return DF_OUTCOME_USAGE;
    if (output_writable(o) != 0)
        return DF_OUTCOME_ENV;
    if (o->kernel_given && one_kernel(o) != DF_OUTCOME_CLEAN)
        return DF_OUTCOME_USAGE;
    df_case_file f;
    char err[512];
    if (df_corpus_read(o->file, &f, err, sizeof err) != DF_CORPUS_OK) {
        fprintf(stderr, "dotfuzz minimize: %s: %s\n", o->file, err);
        return DF_OUTCOME_USAGE;
    }
    df_sandbox *sb;
    df_outcome out = df_sandbox_open("minimize", o->backend, 0, o->watchdog_s, &sb);
    if (out == DF_OUTCOME_CLEAN) {
        out = minimize_case(o, sb, &f);
        df_sandbox_close(sb);
    }
    df_case_file_free(&f);
    return out;
}

df_outcome df_cmd_minimize(int argc, char **argv)
{
    min_opts o;
    int p = parse_min_opts(argc, argv, &o);
    df_outcome out = DF_OUTCOME_USAGE;
    if (p > 0) {
        min_usage(stdout);
        out = DF_OUTCOME_CLEAN;
    } else if (p == 0) {
        out = minimize_file(&o);
    }
    free(o.kernel_given);
    return out;
}
