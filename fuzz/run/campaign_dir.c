/* campaign_dir.c — the campaign directory's format (campaign_dir.h): its
 * files written (whole files atomically, logs a line per write) and read
 * back, every line that does not parse skipped and counted. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fuzz/run/campaign_dir.h"
#include "fuzz/files.h"
#include "fuzz/util.h"

/* ---- paths, whole files, key : value lines ---- */

int df_campaign_join(char *buf, const char *dir, const char *name)
{
    size_t n = strlen(dir);
    int w = snprintf(buf, DF_CAMPAIGN_PATH_CAP, "%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/",
                     name);
    return w < 0 || w >= DF_CAMPAIGN_PATH_CAP ? -1 : 0;
}

FILE *df_campaign_out_open(df_campaign_out *o)
{
    *o = (df_campaign_out){0};
    o->f = open_memstream(&o->buf, &o->len);
    return o->f;
}

int df_campaign_out_commit(df_campaign_out *o, const char *dir, const char *name)
{
    char path[DF_CAMPAIGN_PATH_CAP];
    int rc = fclose(o->f) != 0 || !o->buf ? -2 : 0;
    if (rc == 0 && df_campaign_join(path, dir, name) != 0) {
        errno = ENAMETOOLONG;
        rc = -1;
    }
    if (rc == 0 && df_write_file_atomic(path, (const uint8_t *)o->buf, o->len) != 0)
        rc = -1;
    int err = errno;
    free(o->buf);
    *o = (df_campaign_out){0};
    errno = err;
    return rc;
}

void df_kv_key(FILE *f, int width, const char *key) { fprintf(f, "%-*s : ", width, key); }

void df_kv_put(FILE *f, int width, const char *key, const char *fmt, ...)
{
    va_list ap;
    df_kv_key(f, width, key);
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fputc('\n', f);
}

/* ---- the tables ---- */

/* plot_data's: AFL++'s columns in its order (afl-plot reads them by
 * position), then dotfuzz's */
static const char plot_header[] =
    "relative_time\tcycles_done\tcur_item\tcorpus_count\tpending_total\tpending_favs\t"
    "map_size\tsaved_crashes\tsaved_hangs\tmax_depth\texecs_per_sec\ttotal_execs\t"
    "edges_found\tfindings_saved\tbugs\tcrashes\thangs\tworst_ratio";

/* Each table's header row: its column names, the first row of the file, so
 * that a TSV reader (pandas.read_csv(path, sep='\t')) names the columns. */
static const struct {
    const char *name, *header;
} tsv_headers[] = {
    {DF_KERNELS_TSV, "kernel\tcases\tok\tprecision\tnondet\tsoft_error\tbug\tcrashes\thangs\t"
                     "worst_ratio\tworst_rel_err\tmodel_equal\tmeta_checked"},
    {DF_PROFILE_TSV, "kernel\tn_lo\tn_hi\tcases\tworst_ratio\tworst_rel_err"},
    {DF_HIST_TSV, "kernel\tlog2_ratio\tcount"},
    {DF_PREC_TSV, "kernel\tdeclared_bits\tlog2_ratio_over_h\tcount\tworst_ratio_over_h"},
    {DF_PRECH_TSV, "kernel\tdeclared_bits\tlog2_h\tcases\tworst_ratio_over_h\t"
                   "sum_log2_ratio_over_h"},
};

const char *df_tsv_header(const char *name)
{
    for (size_t i = 0; i < sizeof tsv_headers / sizeof tsv_headers[0]; i++)
        if (!strcmp(name, tsv_headers[i].name))
            return tsv_headers[i].header;
    return !strcmp(name, DF_PLOT_FILE) ? plot_header : NULL;
}

int df_kernels_col_is_worst(size_t j) { return j == 9 || j == 10; }

void df_kernels_tsv(FILE *f, const df_kernel *const *ks, size_t nk, const df_totals *tot)
{
    fprintf(f, "%s\n", df_tsv_header(DF_KERNELS_TSV));
    for (size_t k = 0; k < nk; k++) {
        const df_tally *t = &tot->tally[k];
        fprintf(f, "%s\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%.6g\t%.6g\t%llu\t%llu\n",
                ks[k]->name, (unsigned long long)t->cases,
                (unsigned long long)t->verdicts[DF_V_OK],
                (unsigned long long)t->verdicts[DF_V_PRECISION],
                (unsigned long long)t->verdicts[DF_V_NONDET],
                (unsigned long long)t->verdicts[DF_V_SOFT_ERROR],
                (unsigned long long)t->verdicts[DF_V_BUG], (unsigned long long)t->crashes,
                (unsigned long long)t->hangs, t->worst_ratio, t->worst_rel,
                (unsigned long long)t->model_equal, (unsigned long long)t->meta_checked);
    }
}

void df_profile_tsv(FILE *f, const df_kernel *const *ks, size_t nk, const df_totals *tot)
{
    fprintf(f, "%s\n", df_tsv_header(DF_PROFILE_TSV));
    for (size_t k = 0; k < nk; k++)
        for (int b = 0; b < DF_NBINS; b++) {
            const df_nbin *nb = &tot->tally[k].nbin[b];
            if (nb->cases)
                fprintf(f, "%s\t%llu\t%llu\t%llu\t%.6g\t%.6g\n", ks[k]->name,
                        b ? 1ull << (b - 1) : 0ull, b ? (1ull << b) - 1 : 0ull,
                        (unsigned long long)nb->cases, nb->worst_ratio, nb->worst_rel);
        }
}

void df_hist_tsv(FILE *f, const df_kernel *const *ks, size_t nk, const df_totals *tot)
{
    fprintf(f, "%s\n", df_tsv_header(DF_HIST_TSV));
    for (size_t k = 0; k < nk; k++)
        for (int h = 0; h < DF_RHIST; h++)
            if (tot->tally[k].rhist[h])
                fprintf(f, "%s\t%d\t%llu\n", ks[k]->name, h + DF_RHIST_MIN,
                        (unsigned long long)tot->tally[k].rhist[h]);
}

void df_kernels_tsv_row(FILE *f, const char *kernel, const double v[DF_KT_COLS])
{
    fputs(kernel, f);
    for (size_t j = 1; j < DF_KT_COLS; j++)
        fprintf(f, df_kernels_col_is_worst(j) ? "\t%.6g" : "\t%.0f", v[j]);
    fputc('\n', f);
}

void df_profile_tsv_row(FILE *f, const char *kernel, const df_prof_row *r)
{
    fprintf(f, "%s\t%.0f\t%.0f\t%.0f\t%.6g\t%.6g\n", kernel, r->n_lo, r->n_hi, r->cases,
            r->worst_ratio, r->worst_rel_err);
}

void df_hist_tsv_row(FILE *f, const char *kernel, const df_hist_row *r)
{
    fprintf(f, "%s\t%.0f\t%.0f\n", kernel, r->log2_ratio, r->count);
}

/* ---- the append-only logs ---- */


int df_log_open(const char *dir, const char *name)
{
    char path[DF_CAMPAIGN_PATH_CAP];
    if (df_campaign_join(path, dir, name) != 0)
        return -1;
    int fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
    if (fd < 0) {
        fprintf(stderr, "dotfuzz run: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    off_t size = lseek(fd, 0, SEEK_END), keep = size;
    char ch;
    while (keep > 0 && pread(fd, &ch, 1, keep - 1) == 1 && ch != '\n')
        keep--;
    if (keep != size && ftruncate(fd, keep) != 0) {
        close(fd);
        return -1;
    }
    char header[sizeof plot_header + 1];
    int hn = !strcmp(name, DF_PLOT_FILE) ? snprintf(header, sizeof header, "%s\n", plot_header)
                                         : 0;
    if (keep == 0 && hn > 0 && df_write_all(fd, header, (size_t)hn) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int df_plot_append(int fd, const df_plot_row *r)
{
    typedef unsigned long long ull;
    char line[512];
    int n = snprintf(line, sizeof line,
                     "%llu\t0\t%llu\t%llu\t0\t0\t0.00\t%llu\t%llu\t0\t%.2f\t%llu\t0\t"
                     "%llu\t%llu\t%llu\t%llu\t%.6g\n",
                     (ull)r->relative_time, (ull)r->cur_item, (ull)r->corpus_count,
                     (ull)r->saved_crashes, (ull)r->saved_hangs, r->execs_per_sec,
                     (ull)r->total_execs, (ull)r->findings_saved, (ull)r->bugs,
                     (ull)r->crashes, (ull)r->hangs, r->worst_ratio);
    return df_write_all(fd, line, (size_t)n);
}

int df_lock_line(char *buf, size_t cap)
{
    char host[128] = "?";
    gethostname(host, sizeof host - 1);
    return snprintf(buf, cap, "pid %ld on %s since %lld\n", (long)getpid(), host,
                    (long long)time(NULL));
}

/* ---- the state ---- */

/* A kernel's tally as the state's `kernel`, `nbin` and `rhist` lines. */
static void put_tally(FILE *f, size_t k, const df_tally *t)
{
    fprintf(f, "kernel : %zu %llu", k, (unsigned long long)t->cases);
    for (int v = 0; v < DF_V_COUNT; v++)
        fprintf(f, " %llu", (unsigned long long)t->verdicts[v]);
    fprintf(f, " %llu %llu %llu %llu %llu %llu %llu %a %a\n",
            (unsigned long long)t->model_equal, (unsigned long long)t->meta_checked,
            (unsigned long long)t->seed_alarms, (unsigned long long)t->seed_alarms_bug,
            (unsigned long long)t->crashes, (unsigned long long)t->hangs,
            (unsigned long long)t->saved, t->worst_ratio, t->worst_rel);
    for (int b = 0; b < DF_NBINS; b++)
        if (t->nbin[b].cases)
            fprintf(f, "nbin : %zu %d %llu %a %a\n", k, b,
                    (unsigned long long)t->nbin[b].cases, t->nbin[b].worst_ratio,
                    t->nbin[b].worst_rel);
    for (int h = 0; h < DF_RHIST; h++)
        if (t->rhist[h])
            fprintf(f, "rhist : %zu %d %llu\n", k, h + DF_RHIST_MIN,
                    (unsigned long long)t->rhist[h]);
    for (int h = 0; h < DF_RHIST; h++)
        if (t->phist[h])
            fprintf(f, "phist : %zu %d %llu %a\n", k, h + DF_RHIST_MIN,
                    (unsigned long long)t->phist[h], t->worst_over_h);
    for (int b = 0; b < DF_HBINS; b++)
        if (t->hbin[b].cases)
            fprintf(f, "hbin : %zu %d %llu %a %a\n", k, b, (unsigned long long)t->hbin[b].cases,
                    t->hbin[b].worst_over_h, t->hbin[b].sum_log2);
}

/* One `kernel`, `nbin` or `rhist` line into tot (k < nk); 0, or -1 when
 * it is not what put_tally writes. */
static int tally_line(const char *key, const char *v, df_totals *tot, size_t nk)
{
    unsigned long long a[20];
    size_t k;
    int b;
    double r1, r2;
    if (!strcmp(key, "kernel")) {
        if (sscanf(v, "%zu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu "
                      "%llu %la %la",
                   &k, &a[0], &a[1], &a[2], &a[3], &a[4], &a[5], &a[6], &a[7], &a[8], &a[9],
                   &a[10], &a[11], &a[12], &a[13], &r1, &r2) != 17 || k >= nk)
            return -1;
        df_tally *t = &tot->tally[k];
        t->cases = a[0];
        for (int i = 0; i < DF_V_COUNT; i++)
            t->verdicts[i] = a[1 + i];
        t->model_equal = a[7];
        t->meta_checked = a[8];
        t->seed_alarms = a[9];
        t->seed_alarms_bug = a[10];
        t->crashes = a[11];
        t->hangs = a[12];
        t->saved = a[13];
        t->worst_ratio = r1;
        t->worst_rel = r2;
        return 0;
    }
    if (!strcmp(key, "nbin")) {
        if (sscanf(v, "%zu %d %llu %la %la", &k, &b, &a[0], &r1, &r2) != 5 || k >= nk || b < 0 ||
            b >= DF_NBINS)
            return -1;
        tot->tally[k].nbin[b] = (df_nbin){a[0], r1, r2};
        return 0;
    }
    if (!strcmp(key, "hbin")) {
        if (sscanf(v, "%zu %d %llu %la %la", &k, &b, &a[0], &r1, &r2) != 5 || k >= nk || b < 0 ||
            b >= DF_HBINS || !(r1 >= 0) || !isfinite(r2))
            return -1;
        tot->tally[k].hbin[b] = (df_hbin){a[0], r1, r2};
        return 0;
    }
    if (!strcmp(key, "phist")) {
        if (sscanf(v, "%zu %d %llu %la", &k, &b, &a[0], &r1) != 4 || k >= nk ||
            b < DF_RHIST_MIN || b > DF_RHIST_MAX || !(r1 >= 0))
            return -1;
        tot->tally[k].phist[b - DF_RHIST_MIN] = a[0];
        tot->tally[k].worst_over_h = r1;
        return 0;
    }
    if (strcmp(key, "rhist") || sscanf(v, "%zu %d %llu", &k, &b, &a[0]) != 3 || k >= nk ||
        b < DF_RHIST_MIN || b > DF_RHIST_MAX)
        return -1;
    tot->tally[k].rhist[b - DF_RHIST_MIN] = a[0];
    return 0;
}

/* The `buckets` line: the bitmap of error buckets seen, in hex. */
static int buckets_line(const char *v, df_totals *tot)
{
    size_t n = sizeof tot->bucket_seen;
    if (strlen(v) != 2 * n)
        return -1;
    for (size_t i = 0; i < n; i++) {
        unsigned x;
        if (sscanf(v + 2 * i, "%2x", &x) != 1)
            return -1;
        tot->bucket_seen[i] = (uint8_t)x;
    }
    return 0;
}

void df_state_put(FILE *f, const df_state *st)
{
    fprintf(f, "# dotfuzz campaign state (internal; rewritten atomically)\n");
    df_kv_put(f, 0, "version", "1");
    df_kv_put(f, 0, "next_index", "%llu", (unsigned long long)st->next_index);
    df_kv_put(f, 0, "run_time", "%a", st->run_time);
    df_kv_put(f, 0, "sessions", "%llu", (unsigned long long)st->sessions);
    df_kv_put(f, 0, "restarts", "%llu", (unsigned long long)st->restarts);
    df_kv_put(f, 0, "start_time", "%.0f", st->start_time);
    for (size_t i = 0; i < st->npending; i++)
        df_kv_put(f, 0, "pending", "%llu %llu %llu", (unsigned long long)st->pending[i].lo,
                  (unsigned long long)st->pending[i].hi, (unsigned long long)st->pending[i].solo);
    for (size_t k = 0; k < st->nk; k++)
        put_tally(f, k, &st->tot->tally[k]);
    df_kv_key(f, 0, "buckets");
    for (size_t i = 0; i < sizeof st->tot->bucket_seen; i++)
        fprintf(f, "%02x", st->tot->bucket_seen[i]);
    fprintf(f, "\n");
}

/* One line of the state; 0, or -1 when it is not what df_state_put writes. */
static int state_line(df_state *st, const char *key, const char *val, unsigned *have)
{
    unsigned long long a, b, c = 0;
    char end;
    if (!strcmp(key, "version")) {
        *have |= 1;
        return strcmp(val, "1") ? -1 : 0;
    }
    if (!strcmp(key, "next_index")) {
        *have |= 2;
        if (sscanf(val, "%llu%c", &a, &end) != 1)
            return -1;
        st->next_index = a;
        return 0;
    }
    if (!strcmp(key, "run_time"))
        return sscanf(val, "%la%c", &st->run_time, &end) == 1 && isfinite(st->run_time) &&
                       st->run_time >= 0
                   ? 0 : -1;
    if (!strcmp(key, "sessions"))
        return sscanf(val, "%llu%c", &a, &end) == 1 ? (st->sessions = a, 0) : -1;
    if (!strcmp(key, "restarts"))
        return sscanf(val, "%llu%c", &a, &end) == 1 ? (st->restarts = a, 0) : -1;
    if (!strcmp(key, "start_time"))
        return sscanf(val, "%lf%c", &st->start_time, &end) == 1 ? 0 : -1;
    if (!strcmp(key, "pending")) {
        if (sscanf(val, "%llu %llu %llu%c", &a, &b, &c, &end) != 3 || a >= b || c > 1 ||
            df_grow(&st->pending, &st->cappending, st->npending, sizeof *st->pending) != 0)
            return -1;
        st->pending[st->npending++] = (df_state_range){a, b, c};
        return 0;
    }
    if (!strcmp(key, "kernel") || !strcmp(key, "nbin") || !strcmp(key, "rhist") ||
        !strcmp(key, "phist") || !strcmp(key, "hbin"))
        return tally_line(key, val, st->tot, st->nk);
    if (!strcmp(key, "buckets"))
        return buckets_line(val, st->tot);
    return -1;
}

int df_state_read(const char *dir, df_state *st)
{
    char path[DF_CAMPAIGN_PATH_CAP], msg[200] = "path too long";
    FILE *f = NULL;
    if (df_campaign_join(path, dir, DF_STATE_FILE) != 0)
        errno = ENAMETOOLONG;
    else
        f = df_fopen_regular(path, msg, sizeof msg);
    if (!f) {
        /* killed before its first snapshot: nothing finished yet */
        int missing = errno == ENOENT;
        if (!missing)
            fprintf(stderr, "dotfuzz run: cannot read %s: %s\n", path, msg);
        return missing ? 0 : -1;
    }
    char line[8192], *key, *val;
    unsigned have = 0, lineno = 0, bad = 0;
    while (!bad && fgets(line, sizeof line, f)) {
        lineno++;
        char *t = line + strspn(line, " \t");
        if (*t == '#' || *t == '\n')
            continue;
        bad = df_kv_split(line, &key, &val) != 0 || state_line(st, key, val, &have) != 0
                  ? lineno : 0;
    }
    fclose(f);
    if (bad)
        fprintf(stderr, "dotfuzz run: %s: line %u is not what dotfuzz writes there: the "
                        "state is damaged (move it away to rerun the campaign from case 0)\n",
                path, bad);
    else if (have != 3)
        fprintf(stderr, "dotfuzz run: %s: %s: the state is damaged (move it away to rerun the "
                        "campaign from case 0)\n", path, lineno ? "incomplete" : "empty");
    return bad || have != 3 ? -1 : 0;
}

/* ---- reading the whole directory: key : value tables ---- */

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

/* Whether line is a table's header row: header's first column name, then a
 * tab. */
static int is_header_row(const char *line, const char *header)
{
    size_t n = strcspn(header, "\t");
    return !strncmp(line, header, n) && line[n] == '\t';
}

/* Calls row() for each line of path that is not blank, nor a comment ('#')
 * or the first line when it is the header row of a table (header, NULL
 * for findings.jsonl, where both are garbage). A last line without '\n'
 * is torn when torn_rule (the append-only logs) and skipped. Returns -1
 * when path cannot be opened. */
static int read_lines(const char *path, const char *header, int torn_rule, row_fn row,
                      df_campaign_data *c, df_file_stat *st)
{
    char msg[200];
    FILE *f = df_fopen_regular(path, msg, sizeof msg);
    *st = (df_file_stat){0};
    if (!f)
        return -1;
    st->present = 1;
    char *line = NULL;
    size_t cap = 0, lineno = 0;
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
        int first = lineno++ == 0;
        if (!*t || (header && (*t == '#' || (first && is_header_row(t, header)))))
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

static int prec_row_fn(df_campaign_data *c, char *line)
{
    char *f[DF_PREC_COLS];
    double v[DF_PREC_COLS];
    if (split_tabs(line, f, DF_PREC_COLS) || !*f[0])
        return -1;
    for (size_t i = 1; i < DF_PREC_COLS; i++)
        if (df_campaign_num(f[i], &v[i]) || !isfinite(v[i]))
            return -1;
    size_t k = df_campaign_kernel_index(c, f[0]);
    if (k == SIZE_MAX || df_grow(&c->prec, &c->capprec, c->nprec, sizeof *c->prec))
        return -1;
    c->prec[c->nprec++] = (df_prec_row){k, v[1], v[2], v[3], v[4]};
    return 0;
}

static int prech_row_fn(df_campaign_data *c, char *line)
{
    char *f[DF_PRECH_COLS];
    double v[DF_PRECH_COLS];
    if (split_tabs(line, f, DF_PRECH_COLS) || !*f[0])
        return -1;
    for (size_t i = 1; i < DF_PRECH_COLS; i++)
        if (df_campaign_num(f[i], &v[i]) || !isfinite(v[i]))
            return -1;
    size_t k = df_campaign_kernel_index(c, f[0]);
    if (k == SIZE_MAX || df_grow(&c->prech, &c->capprech, c->nprech, sizeof *c->prech))
        return -1;
    c->prech[c->nprech++] = (df_prech_row){k, v[1], v[2], v[3], v[4], v[5]};
    return 0;
}

static int pd_row_fn(df_campaign_data *c, char *line)
{
    char *f[DF_PD_COLS];
    double v[DF_PD_COLS];
    if (split_tabs(line, f, DF_PD_COLS))
        return -1;
    size_t ml = strlen(f[DF_PD_MAP_SIZE]);
    if (ml && f[DF_PD_MAP_SIZE][ml - 1] == '%') /* a percentage, as AFL++ writes it */
        f[DF_PD_MAP_SIZE][ml - 1] = '\0';
    for (size_t i = 0; i < DF_PD_COLS; i++)
        if (df_campaign_num(f[i], &v[i]))
            return -1;
    if (!isfinite(v[0]) || df_grow(&c->pd, &c->cappd, c->npd, sizeof *c->pd))
        return -1;
    memcpy(c->pd[c->npd++], v, sizeof v);
    return 0;
}

static int finding_row_fn(df_campaign_data *c, char *line)
{
    df_logged_finding f;
    if (df_log_parse(line, &f) || !(f.line = strdup(line)) ||
        df_campaign_kernel_index(c, f.kernel) == SIZE_MAX ||
        df_grow(&c->fs, &c->capfs, c->nfs, sizeof *c->fs)) {
        df_logged_finding_free(&f);
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
    free(c->prec);
    free(c->prech);
    free(c->pd);
    for (size_t i = 0; i < c->nfs; i++)
        df_logged_finding_free(&c->fs[i]);
    free(c->fs);
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
    static const char *const required[] = {DF_CAMPAIGN_FILE, DF_STATS_FILE};
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
        {DF_KERNELS_TSV, 0, kernel_row_fn, offsetof(df_campaign_data, st_kernels)},
        {DF_PROFILE_TSV, 0, prof_row_fn, offsetof(df_campaign_data, st_prof)},
        {DF_HIST_TSV, 0, hist_row_fn, offsetof(df_campaign_data, st_hist)},
        {DF_PREC_TSV, 0, prec_row_fn, offsetof(df_campaign_data, st_prec)},
        {DF_PRECH_TSV, 0, prech_row_fn, offsetof(df_campaign_data, st_prech)},
        {DF_PLOT_FILE, 1, pd_row_fn, offsetof(df_campaign_data, st_pd)},
        {DF_LOG_FILE, 1, finding_row_fn, offsetof(df_campaign_data, st_find)},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        df_campaign_join(path, dir, files[i].name);
        read_lines(path, df_tsv_header(files[i].name), files[i].log, files[i].fn, c,
                   (df_file_stat *)((char *)c + files[i].off));
    }
    return DF_OUTCOME_CLEAN;
}

