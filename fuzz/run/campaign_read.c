/* campaign_read.c — the campaign directory reader (campaign_read.h):
 * key : value files, TSV tables and the two append-only logs, every line
 * that does not parse skipped and counted. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz/run/campaign_read.h"
#include "fuzz/files.h"
#include "fuzz/util.h"

const char *const df_campaign_verdicts[DF_N_VERDICTS] = {"ok", "precision", "nondet",
                                                          "soft-error", "bug"};

/* ---- key : value tables ---- */

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
        s[--n] = '\0';
    return s;
}

static int kv_add(df_kv *t, const char *k, const char *v)
{
    if (df_grow(&t->keys, &t->cap, t->n, sizeof *t->keys))
        return -1;
    /* vals follows keys' capacity */
    void *q = realloc(t->vals, t->cap * sizeof *t->vals);
    if (!q)
        return -1;
    t->vals = q;
    t->keys[t->n] = strdup(k);
    t->vals[t->n] = strdup(v);
    if (!t->keys[t->n] || !t->vals[t->n]) {
        free(t->keys[t->n]);
        free(t->vals[t->n]);
        return -1;
    }
    t->n++;
    return 0;
}

/* The last value of key (a rewritten file may repeat none, but be safe). */
const char *df_kv_get(const df_kv *t, const char *key)
{
    for (size_t i = t->n; i-- > 0;)
        if (!strcmp(t->keys[i], key))
            return t->vals[i];
    return NULL;
}

static void kv_free(df_kv *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->keys[i]);
        free(t->vals[i]);
    }
    free(t->keys);
    free(t->vals);
}

/* ---- line reading ---- */

typedef int (*row_fn)(df_campaign_data *c, char *line);

/* Calls row() for each line of path that is not blank (nor a '#' header
 * when skip_hash). A last line without '\n' is torn when torn_rule (the
 * append-only logs) and skipped. Returns -1 when path cannot be opened. */
static int read_lines(const char *path, int skip_hash, int torn_rule, row_fn row,
                      df_campaign_data *c, df_file_stat *st)
{
    char msg[200];
    FILE *f = df_fopen_regular(path, msg, sizeof msg);
    *st = (df_file_stat){0};
    if (!f)
        return -1;
    st->present = 1;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, f)) > 0) {
        int terminated = line[len - 1] == '\n';
        if (terminated)
            line[--len] = '\0';
        if (!terminated && torn_rule) {
            st->torn++;
            break;
        }
        /* a NUL inside the line (a torn write filled with zeros) */
        if (strlen(line) != (size_t)len) {
            st->bad++;
            continue;
        }
        char *t = trim(line);
        if (!*t || (skip_hash && *t == '#'))
            continue;
        if (row(c, t) == 0)
            st->rows++;
        else
            st->bad++;
    }
    free(line);
    fclose(f);
    return 0;
}

int df_kv_split(char *line, char **key, char **val)
{
    char *t = trim(line);
    char *colon = *t == '#' ? NULL : strstr(t, " : ");
    if (!colon)
        return -1;
    *colon = '\0';
    *key = trim(t);
    *val = trim(colon + 3);
    return 0;
}

static int load_kv(const char *path, df_kv *t)
{
    char msg[200];
    FILE *f = df_fopen_regular(path, msg, sizeof msg);
    if (!f)
        return -1;
    char *line = NULL, *key, *val;
    size_t cap = 0;
    int rc = 0;
    while (getline(&line, &cap, f) > 0) {
        if (df_kv_split(line, &key, &val) != 0)
            continue; /* not a key : value line; unknown forms are ignored */
        if (kv_add(t, key, val)) {
            rc = -1;
            break;
        }
    }
    free(line);
    fclose(f);
    return rc;
}

/* ---- kernels ---- */

size_t df_campaign_kernel_index(df_campaign_data *c, const char *name)
{
    for (size_t i = 0; i < c->nk; i++)
        if (!strcmp(c->kernels[i], name))
            return i;
    char *s = strdup(name);
    if (!s || df_grow(&c->kernels, &c->capk, c->nk, sizeof *c->kernels)) {
        free(s);
        return SIZE_MAX;
    }
    c->kernels[c->nk] = s;
    return c->nk++;
}

static void kernels_from_campaign(df_campaign_data *c)
{
    const char *list = df_kv_get(&c->camp, "kernels");
    if (!list)
        return;
    char *copy = strdup(list), *save = NULL;
    if (!copy)
        return;
    for (char *k = strtok_r(copy, ",", &save); k; k = strtok_r(NULL, ",", &save))
        if (*trim(k))
            df_campaign_kernel_index(c, trim(k));
    free(copy);
}

/* Splits line at tabs into exactly n fields; -1 for another count. */
static int split_tabs(char *line, char **f, size_t n)
{
    size_t i = 0;
    for (char *p = line, *tok; (tok = strsep(&p, "\t"));) {
        if (i == n)
            return -1;
        f[i++] = trim(tok);
    }
    return i == n ? 0 : -1;
}

/* A whole field as a double ("inf" and "nan" included). */
int df_campaign_num(const char *s, double *out)
{
    char *end;
    if (!*s)
        return -1;
    errno = 0;
    double v = strtod(s, &end);
    if (*end || errno == EINVAL)
        return -1;
    *out = v;
    return 0;
}

static int kernel_row_fn(df_campaign_data *c, char *line)
{
    char *f[DF_KT_COLS];
    double d;
    if (split_tabs(line, f, DF_KT_COLS) || !*f[0])
        return -1;
    for (size_t i = 1; i < DF_KT_COLS; i++)
        if (df_campaign_num(f[i], &d))
            return -1;
    if (df_campaign_kernel_index(c, f[0]) == SIZE_MAX ||
        df_grow(&c->krows, &c->capkrows, c->nkrows, sizeof *c->krows))
        return -1;
    df_kernel_row *r = &c->krows[c->nkrows];
    for (size_t i = 0; i < DF_KT_COLS; i++)
        if (!(r->f[i] = strdup(f[i]))) {
            while (i-- > 0)
                free(r->f[i]);
            return -1;
        }
    c->nkrows++;
    return 0;
}

static int prof_row_fn(df_campaign_data *c, char *line)
{
    char *f[DF_PROF_COLS];
    double v[DF_PROF_COLS];
    if (split_tabs(line, f, DF_PROF_COLS) || !*f[0])
        return -1;
    for (size_t i = 1; i < DF_PROF_COLS; i++)
        if (df_campaign_num(f[i], &v[i]))
            return -1;
    size_t k = df_campaign_kernel_index(c, f[0]);
    if (k == SIZE_MAX || df_grow(&c->prof, &c->capprof, c->nprof, sizeof *c->prof))
        return -1;
    c->prof[c->nprof++] = (df_prof_row){k, v[1], v[2], v[3], v[4], v[5]};
    return 0;
}

static int hist_row_fn(df_campaign_data *c, char *line)
{
    char *f[DF_HIST_COLS];
    double v[DF_HIST_COLS];
    if (split_tabs(line, f, DF_HIST_COLS) || !*f[0])
        return -1;
    for (size_t i = 1; i < DF_HIST_COLS; i++)
        if (df_campaign_num(f[i], &v[i]) || !isfinite(v[i]))
            return -1;
    size_t k = df_campaign_kernel_index(c, f[0]);
    if (k == SIZE_MAX || df_grow(&c->hist, &c->caphist, c->nhist, sizeof *c->hist))
        return -1;
    c->hist[c->nhist++] = (df_hist_row){k, v[1], v[2]};
    return 0;
}

static int pd_row_fn(df_campaign_data *c, char *line)
{
    char *f[DF_PD_COLS];
    double v[DF_PD_COLS];
    if (split_tabs(line, f, DF_PD_COLS))
        return -1;
    for (size_t i = 0; i < DF_PD_COLS; i++)
        if (df_campaign_num(f[i], &v[i]))
            return -1;
    if (!isfinite(v[0]) || df_grow(&c->pd, &c->cappd, c->npd, sizeof *c->pd))
        return -1;
    memcpy(c->pd[c->npd++], v, sizeof v);
    return 0;
}

/* ---- findings.jsonl: flat objects, string or number values ---- */

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

static void put_utf8(char **o, unsigned cp)
{
    unsigned char *q = (unsigned char *)*o;
    if (cp < 0x80) {
        *q++ = (unsigned char)cp;
    } else if (cp < 0x800) {
        *q++ = (unsigned char)(0xC0 | cp >> 6);
        *q++ = (unsigned char)(0x80 | (cp & 0x3F));
    } else {
        *q++ = (unsigned char)(0xE0 | cp >> 12);
        *q++ = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
        *q++ = (unsigned char)(0x80 | (cp & 0x3F));
    }
    *o = (char *)q;
}

/* p at '"': the unescaped string in *out (malloc'd); returns the position
 * after the closing quote, or NULL. A \u escape of a surrogate becomes '?'
 * (the fields read here are ASCII; 'why' is shown, never compared). */
static const char *json_string(const char *p, char **out)
{
    const char *s = p + 1;
    size_t n = 0;
    for (; s[n] && s[n] != '"'; n++)
        if (s[n] == '\\' && !s[++n])
            return NULL;
    if (s[n] != '"')
        return NULL;
    char *o = malloc(n + 1), *q = o; /* unescaped is never longer */
    if (!o)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if ((unsigned char)ch < 0x20)
            goto bad;
        if (ch != '\\') {
            *q++ = ch;
            continue;
        }
        ch = s[++i];
        switch (ch) {
        case '"': case '\\': case '/': *q++ = ch; break;
        case 'b': *q++ = '\b'; break;
        case 'f': *q++ = '\f'; break;
        case 'n': *q++ = '\n'; break;
        case 'r': *q++ = '\r'; break;
        case 't': *q++ = '\t'; break;
        case 'u': {
            unsigned cp = 0;
            if (i + 4 >= n + 1)
                goto bad;
            for (int k = 1; k <= 4; k++) {
                char h = s[i + k];
                int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
                      : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
                if (d < 0)
                    goto bad;
                cp = cp << 4 | (unsigned)d;
            }
            i += 4;
            if (cp == 0)
                goto bad; /* would cut the string */
            if (cp >= 0xD800 && cp <= 0xDFFF)
                cp = '?';
            put_utf8(&q, cp);
            break;
        }
        default: goto bad;
        }
    }
    *q = '\0';
    *out = o;
    return s + n + 1;
bad:
    free(o);
    return NULL;
}

/* A JSON number or literal: the token's characters, copied into *out. */
static const char *json_scalar(const char *p, char **out)
{
    size_t n = strspn(p, "0123456789+-.eEtruefalsn");
    if (!n)
        return NULL;
    if (!(*out = strndup(p, n)))
        return NULL;
    return p + n;
}

/* A number field: a JSON number; null (not finite: its KEY_class member
 * says which, else NaN stands); or, as schema 1 wrote them, the strings
 * "inf", "-inf", "nan". */
static int json_num(const char *v, int is_str, double *out)
{
    if (!is_str && !strcmp(v, "null")) {
        *out = NAN;
        return 0;
    }
    if (is_str && strcmp(v, "inf") && strcmp(v, "-inf") && strcmp(v, "nan"))
        return -1;
    if (!is_str && (strspn(v, "0123456789+-.eE") != strlen(v)))
        return -1;
    return df_campaign_num(v, out);
}

static int verdict_index(const char *v)
{
    for (int i = 0; i < DF_N_VERDICTS; i++)
        if (!strcmp(v, df_campaign_verdicts[i]))
            return i;
    /* df_verdict_name's spelling, should a writer use it */
    return strcmp(v, "nondeterministic") ? -1 : 2;
}

/* Stores one key's value in f; takes val. Unknown keys are ignored. */
static int set_field(df_logged_finding *f, const char *key, char *val, int is_str)
{
    typedef df_logged_finding F;
    static const struct {
        const char *key;
        size_t off;
    } strs[] = {
        {"kernel", offsetof(F, kernel)}, {"verdict", offsetof(F, verdict)},
        {"rule", offsetof(F, rule)},     {"file", offsetof(F, file)},
        {"why", offsetof(F, why)},
    }, nums[] = {
        {"elapsed", offsetof(F, elapsed)},   {"n", offsetof(F, n)},
        {"rel_err", offsetof(F, rel_err)},   {"err_ratio", offsetof(F, err_ratio)},
        {"signal", offsetof(F, signal)},     {"watchdog_s", offsetof(F, watchdog_s)},
    };
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
        if (!strcmp(key, strs[i].key)) {
            char **slot = (char **)((char *)f + strs[i].off);
            if (!is_str) {
                free(val);
                return -1;
            }
            free(*slot);
            *slot = val;
            return 0;
        }
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        size_t kl = strlen(nums[i].key);
        if (!strcmp(key, nums[i].key)) {
            int rc = json_num(val, is_str, (double *)((char *)f + nums[i].off));
            free(val);
            return rc;
        }
        if (!strncmp(key, nums[i].key, kl) && !strcmp(key + kl, "_class")) {
            /* the class of a null number: "inf", "-inf" or "nan" */
            int rc = is_str ? json_num(val, 1, (double *)((char *)f + nums[i].off)) : -1;
            free(val);
            return rc;
        }
    }
    free(val);
    return 0;
}

static void finding_free(df_logged_finding *f)
{
    free(f->kernel);
    free(f->verdict);
    free(f->rule);
    free(f->file);
    free(f->why);
    free(f->line);
}

/* Parses one line into f: a flat object holding at least kernel, verdict
 * (a known one), rule and file. */
static int parse_finding(const char *line, df_logged_finding *f)
{
    *f = (df_logged_finding){.elapsed = NAN, .n = NAN, .rel_err = NAN, .err_ratio = NAN,
                   .signal = NAN, .watchdog_s = NAN};
    const char *p = skip_ws(line);
    if (*p++ != '{')
        return -1;
    p = skip_ws(p);
    if (*p == '}')
        return -1;
    for (;;) {
        char *key = NULL, *val = NULL;
        if (*p != '"' || !(p = json_string(p, &key)))
            return -1;
        p = skip_ws(p);
        if (*p++ != ':') {
            free(key);
            return -1;
        }
        p = skip_ws(p);
        int is_str = *p == '"';
        p = is_str ? json_string(p, &val) : json_scalar(p, &val);
        int rc = p ? set_field(f, key, val, is_str) : -1;
        free(key);
        if (rc)
            return -1;
        p = skip_ws(p);
        if (*p == '}')
            break;
        if (*p++ != ',')
            return -1;
        p = skip_ws(p);
    }
    if (*skip_ws(p + 1))
        return -1;
    if (!f->kernel || !f->verdict || !f->rule || !f->file || !*f->kernel)
        return -1;
    f->v = verdict_index(f->verdict);
    return f->v < 0 ? -1 : 0;
}

static int finding_row_fn(df_campaign_data *c, char *line)
{
    df_logged_finding f;
    if (parse_finding(line, &f) || !(f.line = strdup(line)) ||
        df_campaign_kernel_index(c, f.kernel) == SIZE_MAX ||
        df_grow(&c->fs, &c->capfs, c->nfs, sizeof *c->fs)) {
        finding_free(&f);
        return -1;
    }
    c->fs[c->nfs++] = f;
    return 0;
}

void df_campaign_free(df_campaign_data *c)
{
    kv_free(&c->camp);
    kv_free(&c->stats);
    for (size_t i = 0; i < c->nk; i++)
        free(c->kernels[i]);
    free(c->kernels);
    for (size_t i = 0; i < c->nkrows; i++)
        for (size_t j = 0; j < DF_KT_COLS; j++)
            free(c->krows[i].f[j]);
    free(c->krows);
    free(c->prof);
    free(c->hist);
    free(c->pd);
    for (size_t i = 0; i < c->nfs; i++)
        finding_free(&c->fs[i]);
    free(c->fs);
}

int df_campaign_join(char *buf, const char *dir, const char *name)
{
    size_t n = strlen(dir);
    int w = snprintf(buf, DF_CAMPAIGN_PATH_CAP, "%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/",
                     name);
    return w < 0 || w >= DF_CAMPAIGN_PATH_CAP ? -1 : 0;
}

df_outcome df_campaign_load(const char *cmd, const char *dir, df_campaign_data *c)
{
    char path[DF_CAMPAIGN_PATH_CAP];
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "dotfuzz %s: cannot read campaign directory '%s': %s\n", cmd, dir,
                stat(dir, &sb) != 0 ? strerror(errno) : "not a directory");
        return DF_OUTCOME_USAGE;
    }
    static const char *const required[] = {"campaign", "fuzzer_stats"};
    for (size_t i = 0; i < 2; i++) {
        df_campaign_join(path, dir, required[i]);
        df_kv *t = i ? &c->stats : &c->camp;
        if (load_kv(path, t) != 0) {
            fprintf(stderr,
                    "dotfuzz %s: '%s' is not a campaign directory: cannot read %s: %s\n",
                    cmd, dir, path, strerror(errno));
            return DF_OUTCOME_USAGE;
        }
    }
    kernels_from_campaign(c);
    static const struct {
        const char *name;
        int log;
        row_fn fn;
        size_t off;
    } files[] = {
        {"kernels.tsv", 0, kernel_row_fn, offsetof(df_campaign_data, st_kernels)},
        {"profile.tsv", 0, prof_row_fn, offsetof(df_campaign_data, st_prof)},
        {"ratio_hist.tsv", 0, hist_row_fn, offsetof(df_campaign_data, st_hist)},
        {"plot_data", 1, pd_row_fn, offsetof(df_campaign_data, st_pd)},
        {"findings.jsonl", 1, finding_row_fn, offsetof(df_campaign_data, st_find)},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        df_campaign_join(path, dir, files[i].name);
        /* findings.jsonl has no header: a '#' line there is garbage */
        int skip_hash = strcmp(files[i].name, "findings.jsonl") != 0;
        read_lines(path, skip_hash, files[i].log, files[i].fn, c,
                   (df_file_stat *)((char *)c + files[i].off));
    }
    return DF_OUTCOME_CLEAN;
}

