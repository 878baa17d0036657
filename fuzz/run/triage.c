/* triage.c — findings grouped by bug (triage.h): the signature, the
 * findings read from a campaign's log or a folder of case files, and the
 * grouping with what each bug's findings have in common and how they
 * differ. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/lowp.h"
#include "fuzz/run/campaign_dir.h"
#include "fuzz/run/campaign_merge.h"
#include "fuzz/run/triage.h"
#include "fuzz/util.h"

/* ---- the signature ---- */

static const char *const class_names[DF_BUG_NCLASSES] = {"wrong-result", "fault", "hang"};

const char *df_bug_class_name(df_bug_class c)
{
    return c < DF_BUG_NCLASSES ? class_names[c] : "?";
}

df_bug_class df_bug_class_of(const char *rule)
{
    if (!rule)
        return DF_BUG_WRONG;
    if (!strcmp(rule, "hang"))
        return DF_BUG_HANG;
    if (!strcmp(rule, "crash") || !strcmp(rule, "exec") || !strcmp(rule, "sanitizer"))
        return DF_BUG_FAULT;
    return DF_BUG_WRONG;
}

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

void df_bug_signature(const char *kernel, df_bug_class c, char sig[DF_SIG_LEN])
{
    const char *cls = df_bug_class_name(c);
    uint64_t h = fnv1a(0xcbf29ce484222325ull, kernel, strlen(kernel) + 1);
    h = fnv1a(h, cls, strlen(cls));
    snprintf(sig, DF_SIG_LEN, "%012llx", (unsigned long long)(h >> 16));
}

/* ---- one finding, as read ---- */

typedef struct finding {
    const char *kernel, *rule; /* rule NULL when not known (a case file alone) */
    df_verdict verdict;
    double err_ratio, elapsed; /* NaN when not known */
    int err_known;
    const char *path;
    const df_case_file *f;
} finding;

/* Which special values the case's inputs hold (DF_TRIAGE_HAS_*). */
static unsigned specials_of(const df_case *c)
{
    unsigned s = 0;
    df_type_facts tf = df_type_facts_of(c->type);
    size_t es = df_type_size(c->type);
    for (int v = 0; v < 2; v++) {
        const unsigned char *p = v ? c->b : c->a;
        for (uint64_t i = 0; i < c->n; i++) {
            double x;
            switch (c->type) {
            case DF_F32: {
                float y;
                memcpy(&y, p + i * es, sizeof y);
                x = y;
                if (y != 0 && fabsf(y) < 0x1p-126f)
                    s |= DF_TRIAGE_HAS_SUBNORMAL;
                break;
            }
            case DF_F64:
                memcpy(&x, p + i * es, sizeof x);
                if (x != 0 && fabs(x) < 0x1p-1022)
                    s |= DF_TRIAGE_HAS_SUBNORMAL;
                break;
            case DF_I32: return 0;
            default: {
                uint32_t bits = es == 2 ? (uint32_t)(p[i * 2] | p[i * 2 + 1] << 8) : p[i];
                x = df_lowp_decode((df_lowp)tf.lowp, bits);
                break;
            }
            }
            if (isnan(x))
                s |= DF_TRIAGE_HAS_NAN;
            else if (isinf(x))
                s |= DF_TRIAGE_HAS_INF;
        }
    }
    return s;
}

/* ---- grouping ---- */

static df_triage_info *info_of(df_triage *t, const char *kernel)
{
    for (size_t i = 0; i < t->ninfo; i++)
        if (!strcmp(t->info[i].kernel, kernel))
            return &t->info[i];
    if (df_grow(&t->info, &t->capinfo, t->ninfo, sizeof *t->info) != 0)
        return NULL;
    df_triage_info *in = &t->info[t->ninfo++];
    *in = (df_triage_info){0};
    snprintf(in->kernel, sizeof in->kernel, "%s", kernel);
    return in;
}

static df_triage_bug *bug_of(df_triage *t, const char *kernel, df_bug_class cls)
{
    for (size_t i = 0; i < t->nbugs; i++)
        if (t->bugs[i].cls == cls && !strcmp(t->bugs[i].kernel, kernel))
            return &t->bugs[i];
    if (df_grow(&t->bugs, &t->capbugs, t->nbugs, sizeof *t->bugs) != 0)
        return NULL;
    df_triage_bug *b = &t->bugs[t->nbugs++];
    *b = (df_triage_bug){.cls = cls, .err_min = INT_MAX, .err_max = INT_MIN};
    snprintf(b->kernel, sizeof b->kernel, "%s", kernel);
    df_bug_signature(b->kernel, cls, b->sig);
    return b;
}

static void note_rule(df_triage_bug *b, const char *rule)
{
    for (size_t i = 0; i < b->nrules; i++)
        if (!strcmp(b->rules[i].name, rule)) {
            b->rules[i].count++;
            return;
        }
    if (b->nrules == DF_TRIAGE_RULES || strlen(rule) >= sizeof b->rules[0].name) {
        b->rules_other++;
        return;
    }
    snprintf(b->rules[b->nrules].name, sizeof b->rules[0].name, "%s", rule);
    b->rules[b->nrules++].count = 1;
}

static void note_err(df_triage_bug *b, double ratio)
{
    int k = df_ratio_bucket(ratio);
    unsigned bit = k == DF_BUCKET_NONFINITE ? DF_BUCKET_MAX - DF_BUCKET_MIN + 1
                                            : (unsigned)(k - DF_BUCKET_MIN);
    uint64_t m = 1ull << (bit % 64);
    if (!(b->err_seen[bit / 64] & m)) {
        b->err_seen[bit / 64] |= m;
        b->err_buckets++;
    }
    if (k != DF_BUCKET_NONFINITE) {
        b->err_min = k < b->err_min ? k : b->err_min;
        b->err_max = k > b->err_max ? k : b->err_max;
    }
}

/* Whether finding x was seen before the bug's first (or after its last):
 * by elapsed time where both have one, else by case index. */
static int seen_before(double e, uint64_t i, double e0, uint64_t i0)
{
    return isfinite(e) && isfinite(e0) ? e < e0 || (e == e0 && i < i0) : i < i0;
}

static int add_finding(df_triage *t, const finding *x)
{
    const df_case *c = &x->f->c;
    if (x->verdict != DF_V_BUG) {
        df_triage_info *in = info_of(t, x->kernel);
        if (!in)
            return -1;
        in->precision += x->verdict == DF_V_PRECISION;
        in->soft_error += x->verdict == DF_V_SOFT_ERROR;
        in->nondet += x->verdict == DF_V_NONDET;
        t->info_findings++;
        return 0;
    }
    df_triage_bug *b = bug_of(t, x->kernel, df_bug_class_of(x->rule));
    if (!b)
        return -1;
    t->bug_findings++;
    if (b->count == 0 || seen_before(x->elapsed, c->index, b->first_elapsed, b->first_index)) {
        b->first_elapsed = x->elapsed;
        b->first_index = c->index;
    }
    if (b->count == 0 || seen_before(b->last_elapsed, b->last_index, x->elapsed, c->index)) {
        b->last_elapsed = x->elapsed;
        b->last_index = c->index;
    }
    if (b->count == 0 || c->n < b->repro_n) {
        snprintf(b->repro_path, sizeof b->repro_path, "%s", x->path);
        b->repro_n = c->n;
    }
    if (b->count == 0 || c->n < b->n_min)
        b->n_min = c->n;
    if (b->count == 0 || c->n > b->n_max)
        b->n_max = c->n;
    b->count++;
    if (x->rule)
        note_rule(b, x->rule);
    if (c->family < 64)
        b->families |= 1ull << c->family;
    unsigned lb = 0;
    for (uint64_t n = c->n; n; n >>= 1)
        lb++;
    b->len_buckets |= 1ull << (lb < 64 ? lb : 63);
    if (x->err_known)
        note_err(b, x->err_ratio);
    b->specials |= specials_of(c);
    return 0;
}

static int kept(const df_triage_filter *flt, const char *kernel)
{
    if (!flt || flt->n == 0)
        return 1;
    for (size_t i = 0; i < flt->n; i++)
        if (!strcmp(flt->names[i], kernel))
            return 1;
    return 0;
}

/* Reads one case file into f; 0, or -1 said on stderr. */
static int read_case(const char *cmd, const char *path, df_case_file *f)
{
    char msg[300];
    if (df_corpus_read(path, f, msg, sizeof msg) != DF_CORPUS_OK) {
        fprintf(stderr, "dotfuzz %s: %s: %s\n", cmd, path, msg);
        return -1;
    }
    return 0;
}

/* ---- the two sources ---- */

static df_outcome triage_campaign(const char *cmd, const char *dir, const df_triage_filter *flt,
                                  df_triage *t)
{
    df_campaign_data cd = {0};
    df_outcome out = df_campaign_load(cmd, dir, &cd);
    for (size_t i = 0; i < cd.nfs && out == DF_OUTCOME_CLEAN; i++) {
        const df_logged_finding *lf = &cd.fs[i];
        if (!kept(flt, lf->kernel)) {
            t->filtered++;
            continue;
        }
        char path[DF_TRIAGE_PATH_CAP];
        df_case_file f;
        if (df_campaign_join(path, dir, lf->file) != 0 || read_case(cmd, path, &f) != 0) {
            t->unreadable++;
            continue;
        }
        t->findings++;
        finding x = {.kernel = lf->kernel, .rule = lf->rule, .verdict = (df_verdict)(lf->v + 1),
                     .err_ratio = lf->err_ratio, .elapsed = lf->elapsed, .err_known = 1,
                     .path = path, .f = &f};
        if (add_finding(t, &x) != 0)
            out = DF_OUTCOME_ENV;
        df_case_file_free(&f);
    }
    df_campaign_free(&cd);
    return out;
}

/* The rule a finding's file name tells ("crash-<sha1>", "hang-<sha1>"),
 * or NULL: a case file records its verdict but not its rule. */
static const char *rule_of_name(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (!strncmp(base, "crash-", 6))
        return "crash";
    if (!strncmp(base, "hang-", 5))
        return "hang";
    return NULL;
}

static df_outcome triage_cases(const char *cmd, const char *dir, const df_triage_filter *flt,
                               df_triage *t)
{
    char **paths;
    size_t n;
    if (df_corpus_list(dir, &paths, &n) != 0) {
        fprintf(stderr, "dotfuzz %s: %s: cannot read the directory: %s\n", cmd, dir,
                strerror(errno));
        return errno == ENOMEM ? DF_OUTCOME_ENV : DF_OUTCOME_USAGE;
    }
    df_outcome out = DF_OUTCOME_CLEAN;
    for (size_t i = 0; i < n && out == DF_OUTCOME_CLEAN; i++) {
        df_case_file f;
        if (read_case(cmd, paths[i], &f) != 0) {
            t->unreadable++;
            continue;
        }
        const char *kernel = f.c.kernel[0] ? f.c.kernel : "(any)";
        if (!kept(flt, kernel)) {
            t->filtered++;
        } else if (f.meta.verdict < DF_V_PRECISION || f.meta.verdict > DF_V_BUG) {
            t->not_findings++;
        } else {
            t->findings++;
            finding x = {.kernel = kernel, .rule = rule_of_name(paths[i]),
                         .verdict = (df_verdict)f.meta.verdict, .err_ratio = NAN,
                         .elapsed = NAN, .path = paths[i], .f = &f};
            if (add_finding(t, &x) != 0)
                out = DF_OUTCOME_ENV;
        }
        df_case_file_free(&f);
    }
    df_corpus_list_free(paths, n);
    return out;
}

static int bug_order(const void *pa, const void *pb)
{
    const df_triage_bug *a = pa, *b = pb;
    int c = strcmp(a->kernel, b->kernel);
    return c ? c : (int)a->cls - (int)b->cls;
}

static int info_order(const void *pa, const void *pb)
{
    return strcmp(((const df_triage_info *)pa)->kernel, ((const df_triage_info *)pb)->kernel);
}

df_outcome df_triage_dir(const char *cmd, const char *dir, const df_triage_filter *flt,
                         df_triage *t)
{
    snprintf(t->dir, sizeof t->dir, "%s", dir);
    t->campaign = df_is_campaign_dir(dir);
    df_outcome out = t->campaign ? triage_campaign(cmd, dir, flt, t) : triage_cases(cmd, dir, flt, t);
    if (out == DF_OUTCOME_ENV)
        fprintf(stderr, "dotfuzz %s: out of memory\n", cmd);
    if (t->nbugs)
        qsort(t->bugs, t->nbugs, sizeof *t->bugs, bug_order);
    if (t->ninfo)
        qsort(t->info, t->ninfo, sizeof *t->info, info_order);
    return out;
}

void df_triage_free(df_triage *t)
{
    free(t->bugs);
    free(t->info);
    t->bugs = NULL;
    t->info = NULL;
    t->nbugs = t->capbugs = t->ninfo = t->capinfo = 0;
}
