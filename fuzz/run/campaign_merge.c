/* campaign_merge.c — merges campaign directories (one per Slurm array task,
 * scripts/slurm-campaign.sh) into one that `dotfuzz report` reads.
 *
 * Statistics and tables are summed by kernel (worst values: the maximum).
 * Findings are deduplicated without running anything: a logged finding is kept when its file (named by
 * the SHA-1 of its bytes) is new and its signature (kernel, verdict, rule,
 * error bucket) is new; a crash or hang is kept whenever its file is new,
 * each being a reproducer of its own. A kept line is copied verbatim: its
 * "file" is "findings/<kind>-<sha1>", the same in OUT. A file in an input's
 * findings/ that no log line names (the campaign was killed between saving
 * and logging it) is copied when new, so that no finding is lost. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz/run/campaign_merge.h"
#include "fuzz/run/afl_stats.h"
#include "fuzz/files.h"
#include "fuzz/run/campaign_dir.h"
#include "fuzz/util.h"
#include "fuzz/corpus.h"

#define PATH_CAP DF_CAMPAIGN_PATH_CAP

int df_ratio_bucket(double err_ratio)
{
    if (!isfinite(err_ratio))
        return DF_BUCKET_NONFINITE;
    if (err_ratio <= 0)
        return DF_BUCKET_MIN;
    double e = floor(log2(err_ratio));
    return e < DF_BUCKET_MIN ? DF_BUCKET_MIN : e > DF_BUCKET_MAX ? DF_BUCKET_MAX : (int)e;
}

int df_is_campaign_dir(const char *path)
{
    char p[PATH_CAP];
    struct stat sb;
    return df_campaign_join(p, path, DF_CAMPAIGN_FILE) == 0 && stat(path, &sb) == 0 &&
           S_ISDIR(sb.st_mode) && stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* ---- a set of strings (file names, signatures): open addressing ---- */

typedef struct strset {
    char **slot;
    size_t cap, n; /* cap a power of two, at most half full */
} strset;

static size_t str_hash(const char *s)
{
    uint64_t h = 1469598103934665603u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return (size_t)h;
}

static size_t set_pos(const strset *s, const char *key)
{
    size_t i = str_hash(key) & (s->cap - 1);
    while (s->slot[i] && strcmp(s->slot[i], key))
        i = (i + 1) & (s->cap - 1);
    return i;
}

static int set_has(const strset *s, const char *key)
{
    return s->cap && s->slot[set_pos(s, key)] != NULL;
}

/* 0 added, 1 already there, -1 out of memory. */
static int set_add(strset *s, const char *key)
{
    if (set_has(s, key))
        return 1;
    if (2 * (s->n + 1) > s->cap) {
        strset t = {calloc(s->cap ? 2 * s->cap : 64, sizeof *t.slot), s->cap ? 2 * s->cap : 64,
                    s->n};
        if (!t.slot)
            return -1;
        for (size_t i = 0; i < s->cap; i++)
            if (s->slot[i])
                t.slot[set_pos(&t, s->slot[i])] = s->slot[i];
        free(s->slot);
        *s = t;
    }
    char *k = strdup(key);
    if (!k)
        return -1;
    s->slot[set_pos(s, key)] = k;
    s->n++;
    return 0;
}

static void set_free(strset *s)
{
    for (size_t i = 0; i < s->cap; i++)
        free(s->slot[i]);
    free(s->slot);
}

/* ---- the merge ---- */

typedef struct counts {
    uint64_t read, kept, duplicate, redundant, unlogged, missing;
} counts;

typedef struct cmerge {
    const char *out;
    char fdir[PATH_CAP]; /* OUT/findings */
    strset files, sigs;  /* kept SHA-1 names; signatures seen */
    df_campaign_out log; /* OUT/findings.jsonl, built in memory */
    uint64_t logged;
    int env_fail, nomem;
} cmerge;

static void sig_key(char *buf, size_t cap, const df_logged_finding *f)
{
    snprintf(buf, cap, "%s\n%d\n%s\n%d", f->kernel, f->v, f->rule, df_ratio_bucket(f->err_ratio));
}

/* Copies IN/findings/<file> to OUT/findings/<file>: 0 copied, 1 missing or
 * its bytes not matching its name's SHA-1 (said), -1 OUT not writable
 * (said). */
static int copy_finding(cmerge *cm, const char *in, const char *file)
{
    char src[PATH_CAP], dst[PATH_CAP], name[PATH_CAP], hex[41], msg[200] = "path too long";
    const char *sha = df_corpus_name_sha1(file);
    snprintf(name, sizeof name, DF_FINDINGS_DIR "/%s", file);
    size_t len = 0;
    uint8_t *buf =
        df_campaign_join(src, in, name) ? NULL : df_read_regular(src, &len, msg, sizeof msg);
    if (!buf) {
        fprintf(stderr, "dotfuzz merge: cannot read %s/%s: %s\n", in, name, msg);
        return 1;
    }
    df_sha1_hex(buf, len, hex);
    if (!sha || strcmp(hex, sha)) {
        fprintf(stderr, "dotfuzz merge: %s: its SHA-1 is %s, not its name: skipped\n", src, hex);
        free(buf);
        return 1;
    }
    int rc = df_campaign_join(dst, cm->fdir, file) ? -1 : df_write_file_atomic(dst, buf, len);
    free(buf);
    if (rc != 0) {
        fprintf(stderr, "dotfuzz merge: cannot write %s/%s: %s\n", cm->fdir, file,
                strerror(errno));
        cm->env_fail = 1;
        return -1;
    }
    return 0;
}

static void merge_logged(cmerge *cm, const char *in, const df_logged_finding *f, counts *cn)
{
    const char *sha = df_logged_name(f);
    char key[512];
    cn->read++;
    if (!sha) {
        fprintf(stderr, "dotfuzz merge: %s: finding file '%s' is not findings/<kind>-<sha1>: "
                        "skipped\n", in, f->file);
        cn->missing++;
        return;
    }
    if (set_has(&cm->files, sha)) {
        cn->duplicate++;
        return;
    }
    sig_key(key, sizeof key, f);
    if (!df_logged_crash_or_hang(f) && set_has(&cm->sigs, key)) {
        cn->redundant++;
        return;
    }
    int rc = copy_finding(cm, in, sha);
    if (rc != 0) {
        cn->missing += rc > 0;
        return;
    }
    if (set_add(&cm->files, sha) < 0 || set_add(&cm->sigs, key) < 0)
        cm->nomem = 1;
    fprintf(cm->log.f, "%s\n", f->line);
    cm->logged++;
    cn->kept++;
}

/* The files of IN/findings that no log line of IN names. */
static void merge_unlogged(cmerge *cm, const char *in, const df_campaign_data *c, counts *cn)
{
    char fdir[PATH_CAP];
    char **paths;
    size_t n;
    strset named = {0};
    if (df_campaign_join(fdir, in, DF_FINDINGS_DIR) || df_corpus_list(fdir, &paths, &n) != 0)
        return; /* no findings directory: nothing saved */
    for (size_t i = 0; i < c->nfs; i++)
        if (df_logged_name(&c->fs[i]) && set_add(&named, df_logged_name(&c->fs[i])) < 0)
            cm->nomem = 1;
    for (size_t i = 0; i < n && !cm->env_fail && !cm->nomem; i++) {
        const char *sha = strrchr(paths[i], '/') + 1;
        if (!df_corpus_name_sha1(sha) || set_has(&named, sha) || set_has(&cm->files, sha))
            continue;
        int rc = copy_finding(cm, in, sha);
        if (rc == 0 && set_add(&cm->files, sha) < 0)
            cm->nomem = 1;
        cn->unlogged += rc == 0;
    }
    df_corpus_list_free(paths, n);
    set_free(&named);
}

/* ---- tables ---- */

/* The merged tables; kernels in order of first appearance. */
typedef struct tables {
    df_campaign_data m;          /* kernels, prof, hist (k indexes m.kernels) */
    double (*kt)[DF_KT_COLS];    /* kernels.tsv sums per merged kernel */
    int *has_kt;
    size_t nkt;                  /* rows of kt: every input's kernels */
} tables;

static int add_prof(tables *t, const df_prof_row *r, size_t k)
{
    df_campaign_data *m = &t->m;
    for (size_t i = 0; i < m->nprof; i++) {
        df_prof_row *q = &m->prof[i];
        if (q->k == k && q->n_lo == r->n_lo && q->n_hi == r->n_hi) {
            q->cases += r->cases;
            q->worst_ratio = fmax(q->worst_ratio, r->worst_ratio);
            q->worst_rel_err = fmax(q->worst_rel_err, r->worst_rel_err);
            return 0;
        }
    }
    if (df_grow(&m->prof, &m->capprof, m->nprof, sizeof *m->prof))
        return -1;
    m->prof[m->nprof] = *r;
    m->prof[m->nprof++].k = k;
    return 0;
}

static int add_hist(tables *t, const df_hist_row *r, size_t k)
{
    df_campaign_data *m = &t->m;
    for (size_t i = 0; i < m->nhist; i++)
        if (m->hist[i].k == k && m->hist[i].log2_ratio == r->log2_ratio) {
            m->hist[i].count += r->count;
            return 0;
        }
    if (df_grow(&m->hist, &m->caphist, m->nhist, sizeof *m->hist))
        return -1;
    m->hist[m->nhist++] = (df_hist_row){k, r->log2_ratio, r->count};
    return 0;
}

/* precision_hist.tsv: counts summed per bin, the worst maximised over
 * every row of the kernel. */
static int add_prec(tables *t, const df_prec_row *r, size_t k)
{
    df_campaign_data *m = &t->m;
    double worst = r->worst_over_h;
    df_prec_row *same = NULL;
    for (size_t i = 0; i < m->nprec; i++)
        if (m->prec[i].k == k) {
            worst = fmax(worst, m->prec[i].worst_over_h);
            if (m->prec[i].log2_over_h == r->log2_over_h)
                same = &m->prec[i];
        }
    if (same) {
        same->count += r->count;
    } else {
        if (df_grow(&m->prec, &m->capprec, m->nprec, sizeof *m->prec))
            return -1;
        m->prec[m->nprec] = *r;
        m->prec[m->nprec++].k = k;
    }
    for (size_t i = 0; i < m->nprec; i++)
        if (m->prec[i].k == k)
            m->prec[i].worst_over_h = worst;
    return 0;
}

/* precision_by_h.tsv: cases and sums added per (kernel, h bin), worst
 * maximised. */
static int add_prech(tables *t, const df_prech_row *r, size_t k)
{
    df_campaign_data *m = &t->m;
    for (size_t i = 0; i < m->nprech; i++) {
        df_prech_row *q = &m->prech[i];
        if (q->k == k && q->log2_h == r->log2_h) {
            q->cases += r->cases;
            q->sum_log2 += r->sum_log2;
            q->worst_over_h = fmax(q->worst_over_h, r->worst_over_h);
            return 0;
        }
    }
    if (df_grow(&m->prech, &m->capprech, m->nprech, sizeof *m->prech))
        return -1;
    m->prech[m->nprech] = *r;
    m->prech[m->nprech++].k = k;
    return 0;
}

/* kernels.tsv: counts summed, worst values maximised. */
static void add_kernel_row(tables *t, const df_kernel_row *r, size_t k)
{
    for (size_t j = 1; j < DF_KT_COLS; j++) {
        double v = 0;
        df_campaign_num(r->f[j], &v);
        t->kt[k][j] = df_kernels_col_is_worst(j) ? (t->has_kt[k] ? fmax(t->kt[k][j], v) : v)
                                                 : t->kt[k][j] + v;
    }
    t->has_kt[k] = 1;
}

static int add_tables(tables *t, df_campaign_data *c)
{
    size_t *map = malloc((c->nk + 1) * sizeof *map);
    if (!map)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < c->nk; i++)
        rc |= (map[i] = df_campaign_kernel_index(&t->m, c->kernels[i])) == SIZE_MAX;
    for (size_t i = 0; i < c->nprof && !rc; i++)
        rc = add_prof(t, &c->prof[i], map[c->prof[i].k]);
    for (size_t i = 0; i < c->nhist && !rc; i++)
        rc = add_hist(t, &c->hist[i], map[c->hist[i].k]);
    for (size_t i = 0; i < c->nprec && !rc; i++)
        rc = add_prec(t, &c->prec[i], map[c->prec[i].k]);
    for (size_t i = 0; i < c->nprech && !rc; i++)
        rc = add_prech(t, &c->prech[i], map[c->prech[i].k]);
    for (size_t i = 0; i < c->nkrows && !rc; i++) {
        /* the reader added every row's kernel to c->kernels */
        size_t k = df_campaign_kernel_index(&t->m, c->krows[i].f[0]);
        rc = k >= t->nkt;
        if (!rc)
            add_kernel_row(t, &c->krows[i], k);
    }
    free(map);
    return rc ? -1 : 0;
}

static int cmp_prof(const void *a, const void *b)
{
    const df_prof_row *x = a, *y = b;
    return x->k != y->k ? (x->k > y->k) - (x->k < y->k) : (x->n_lo > y->n_lo) - (x->n_lo < y->n_lo);
}

static int cmp_hist(const void *a, const void *b)
{
    const df_hist_row *x = a, *y = b;
    return x->k != y->k ? (x->k > y->k) - (x->k < y->k)
                        : (x->log2_ratio > y->log2_ratio) - (x->log2_ratio < y->log2_ratio);
}

/* ---- writing OUT ---- */

/* Writes OUT/name from o atomically. */
static void put_file(cmerge *cm, const char *name, df_campaign_out *o)
{
    int rc = df_campaign_out_commit(o, cm->out, name);
    if (rc == -1) {
        fprintf(stderr, "dotfuzz merge: cannot write %s/%s: %s\n", cm->out, name,
                strerror(errno));
        cm->env_fail = 1;
    }
    cm->nomem |= rc == -2;
}

/* A file of OUT built in memory; NULL (and nomem set) when none. */
static FILE *mem_out(cmerge *cm, df_campaign_out *o)
{
    FILE *f = df_campaign_out_open(o);
    cm->nomem |= !f;
    return f;
}

static void kernel_rows(FILE *f, tables *t)
{
    for (size_t k = 0; k < t->m.nk; k++)
        if (t->has_kt[k])
            df_kernels_tsv_row(f, t->m.kernels[k], t->kt[k]);
}

static void prof_rows(FILE *f, tables *t)
{
    df_campaign_data *m = &t->m;
    qsort(m->prof, m->nprof, sizeof *m->prof, cmp_prof);
    for (size_t i = 0; i < m->nprof; i++)
        df_profile_tsv_row(f, m->kernels[m->prof[i].k], &m->prof[i]);
}

static void hist_rows(FILE *f, tables *t)
{
    df_campaign_data *m = &t->m;
    qsort(m->hist, m->nhist, sizeof *m->hist, cmp_hist);
    for (size_t i = 0; i < m->nhist; i++)
        df_hist_tsv_row(f, m->kernels[m->hist[i].k], &m->hist[i]);
}

static int cmp_prec(const void *a, const void *b)
{
    const df_prec_row *x = a, *y = b;
    return x->k != y->k ? (x->k > y->k) - (x->k < y->k)
                        : (x->log2_over_h > y->log2_over_h) - (x->log2_over_h < y->log2_over_h);
}

static void prec_rows(FILE *f, tables *t)
{
    df_campaign_data *m = &t->m;
    qsort(m->prec, m->nprec, sizeof *m->prec, cmp_prec);
    for (size_t i = 0; i < m->nprec; i++)
        df_prec_tsv_row(f, m->kernels[m->prec[i].k], &m->prec[i]);
}

static int cmp_prech(const void *a, const void *b)
{
    const df_prech_row *x = a, *y = b;
    return x->k != y->k ? (x->k > y->k) - (x->k < y->k)
                        : (x->log2_h > y->log2_h) - (x->log2_h < y->log2_h);
}

static void prech_rows(FILE *f, tables *t)
{
    df_campaign_data *m = &t->m;
    qsort(m->prech, m->nprech, sizeof *m->prech, cmp_prech);
    for (size_t i = 0; i < m->nprech; i++)
        df_prech_tsv_row(f, m->kernels[m->prech[i].k], &m->prech[i]);
}

/* OUT/name: the format's header row, then the rows. */
static void write_table(cmerge *cm, tables *t, const char *name, void (*rows)(FILE *, tables *))
{
    df_campaign_out o;
    FILE *f = mem_out(cm, &o);
    if (!f)
        return;
    fprintf(f, "%s\n", df_tsv_header(name));
    rows(f, t);
    put_file(cm, name, &o);
}

static void write_tables(cmerge *cm, tables *t)
{
    write_table(cm, t, DF_KERNELS_TSV, kernel_rows);
    write_table(cm, t, DF_PROFILE_TSV, prof_rows);
    write_table(cm, t, DF_HIST_TSV, hist_rows);
    write_table(cm, t, DF_PREC_TSV, prec_rows);
    write_table(cm, t, DF_PRECH_TSV, prech_rows);
}

typedef struct input {
    const char *dir;
    df_campaign_data c;
    int ok;
} input;

static double stat_num(const df_campaign_data *c, const char *key, double dflt)
{
    double v;
    const char *s = df_kv_get(&c->stats, key);
    return s && df_campaign_num(s, &v) == 0 && !isnan(v) ? v : dflt;
}

static void write_stats(cmerge *cm, const input *in, size_t nin, const tables *t,
                        const char *seeds, const char *backends, size_t nmerged, char *const *ins)
{
    static const char *const sums[] = {"sessions", "jobs", "cases_done", "ok", "precision",
                                       "nondet", "soft_error", "bug", "crashes", "hangs",
                                       "worker_restarts", "findings_saved", "pending_cases"};
    double sum[sizeof sums / sizeof sums[0]] = {0}, cps = 0, run = 0, worst = NAN;
    double start = INFINITY, last = -INFINITY;
    df_afl_finds finds = {0};
    const char *wk = "-";
    for (size_t i = 0; i < nin; i++) {
        const df_campaign_data *c = &in[i].c;
        if (!in[i].ok)
            continue;
        for (size_t j = 0; j < sizeof sums / sizeof sums[0]; j++)
            sum[j] += stat_num(c, sums[j], 0);
        cps += stat_num(c, "cases_per_sec", 0);
        run = fmax(run, stat_num(c, "run_time", 0));
        start = fmin(start, stat_num(c, "start_time", INFINITY));
        last = fmax(last, stat_num(c, "last_update", -INFINITY));
        finds.saved_crashes += (uint64_t)stat_num(c, "saved_crashes", 0);
        finds.saved_hangs += (uint64_t)stat_num(c, "saved_hangs", 0);
        finds.last_find = fmax(finds.last_find, stat_num(c, "last_find", 0));
        finds.last_crash = fmax(finds.last_crash, stat_num(c, "last_crash", 0));
        finds.last_hang = fmax(finds.last_hang, stat_num(c, "last_hang", 0));
        double w = stat_num(c, "worst_ratio", NAN);
        if (!isnan(w) && (isnan(worst) || w > worst) && df_kv_get(&c->stats, "worst_kernel")) {
            worst = w;
            wk = df_kv_get(&c->stats, "worst_kernel");
        }
    }
    df_campaign_out o;
    FILE *f = mem_out(cm, &o);
    if (!f)
        return;
    const int w = DF_STATS_KEY_WIDTH;
    df_afl_stats_put(f, &(df_afl_stats){
        .start_time = isfinite(start) ? start : 0,
        .last_update = isfinite(last) ? last : 0,
        .run_time = run,
        .fuzzer_pid = (long)getpid(),
        .execs_done = (uint64_t)sum[2], /* cases_done */
        .corpus_count = t->m.nk,
        .finds = finds,
        .dir = cm->out,
    });
    df_kv_put(f, w, "seed", "%s", seeds);
    df_kv_put(f, w, "backend", "%s", backends);
    df_kv_put(f, w, "kernels", "%zu", t->m.nk);
    for (size_t j = 0; j < sizeof sums / sizeof sums[0]; j++)
        df_kv_put(f, w, sums[j], "%.0f", sum[j]);
    df_kv_put(f, w, "cases_per_sec", "%.1f", cps);
    df_kv_put(f, w, "findings_logged", "%llu", (unsigned long long)cm->logged);
    df_kv_put(f, w, "worst_ratio", "%.6g", worst);
    df_kv_put(f, w, "worst_kernel", "%s", wk);
    df_kv_put(f, w, "merged", "%zu", nmerged);
    df_kv_key(f, w, "command_line");
    fprintf(f, "dotfuzz merge %s", cm->out);
    for (size_t i = 0; i < nin; i++)
        fprintf(f, " %s", ins[i]);
    fputc('\n', f);
    put_file(cm, DF_STATS_FILE, &o);
}

/* The first input's campaign file, its seed, backend and kernels lines
 * replaced by the merged lists, then merged and merged_from. */
static void write_campaign(cmerge *cm, const char *first, const char *seeds,
                           const char *backends, const tables *t, const input *in, size_t nin)
{
    char path[PATH_CAP], *line = NULL;
    size_t cap = 0;
    char msg[200];
    FILE *src = df_campaign_join(path, first, DF_CAMPAIGN_FILE)
                    ? NULL : df_fopen_regular(path, msg, sizeof msg);
    df_campaign_out o;
    FILE *f = df_campaign_out_open(&o);
    if (!src || !f) {
        fprintf(stderr, "dotfuzz merge: cannot read %s/%s\n", first, DF_CAMPAIGN_FILE);
        cm->nomem = 1;
        if (src)
            fclose(src);
        if (f)
            fclose(f);
        free(o.buf);
        return;
    }
    size_t nmerged = 0;
    while (getline(&line, &cap, src) > 0) {
        char key[64];
        if (sscanf(line, " %63[^ \t:] :", key) == 1 && strstr(line, " : ") &&
            (!strcmp(key, "seed") || !strcmp(key, "backend") || !strcmp(key, "kernels"))) {
            df_kv_key(f, 0, key);
            if (!strcmp(key, "kernels"))
                for (size_t k = 0; k < t->m.nk; k++)
                    fprintf(f, "%s%s", k ? "," : "", t->m.kernels[k]);
            else
                fputs(!strcmp(key, "seed") ? seeds : backends, f);
            fputc('\n', f);
        } else {
            fprintf(f, "%s%s", line, strchr(line, '\n') ? "" : "\n");
        }
    }
    free(line);
    fclose(src);
    for (size_t i = 0; i < nin; i++)
        nmerged += (size_t)in[i].ok;
    df_kv_put(f, 0, "merged", "%zu", nmerged);
    df_kv_key(f, 0, "merged_from");
    for (size_t i = 0, w = 0; i < nin; i++)
        if (in[i].ok)
            fprintf(f, "%s%s", w++ ? "," : "", in[i].dir);
    fputc('\n', f);
    put_file(cm, DF_CAMPAIGN_FILE, &o);
}

/* A comma list of each input's campaign value of key, distinct when
 * distinct is set; malloc'd (NULL when out of memory). */
static char *join_values(const input *in, size_t nin, const char *key, int distinct)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    size_t w = 0;
    for (size_t i = 0; i < nin; i++) {
        const char *v = in[i].ok ? df_kv_get(&in[i].c.camp, key) : NULL;
        int seen = 0;
        for (size_t j = 0; distinct && v && j < i; j++)
            seen |= in[j].ok && df_kv_get(&in[j].c.camp, key) &&
                    !strcmp(df_kv_get(&in[j].c.camp, key), v);
        if (v && !seen)
            fprintf(f, "%s%s", w++ ? "," : "", v);
    }
    fclose(f);
    return buf;
}

/* 0: OUT is an empty directory now; 1: it is not empty (or not a
 * directory); -1: it cannot be made. */
static int prepare_out(const char *out)
{
    if (mkdir(out, 0777) == 0)
        return 0;
    if (errno != EEXIST)
        return -1;
    DIR *d = opendir(out);
    if (!d)
        return errno == ENOTDIR ? 1 : -1;
    struct dirent *e;
    int empty = 1;
    while (empty && (e = readdir(d)))
        empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
    closedir(d);
    return empty ? 0 : 1;
}

static void print_counts(const char *what, const counts *c)
{
    printf("%s: findings read %llu, kept %llu, duplicate %llu, redundant %llu", what,
           (unsigned long long)c->read, (unsigned long long)c->kept,
           (unsigned long long)c->duplicate, (unsigned long long)c->redundant);
    if (c->unlogged)
        printf(", unlogged files copied %llu", (unsigned long long)c->unlogged);
    if (c->missing)
        printf(", missing or bad files %llu", (unsigned long long)c->missing);
    fputc('\n', stdout);
}

static void add_counts(counts *t, const counts *c)
{
    t->read += c->read;
    t->kept += c->kept;
    t->duplicate += c->duplicate;
    t->redundant += c->redundant;
    t->unlogged += c->unlogged;
    t->missing += c->missing;
}

/* Loads the inputs; the first readable one's index in *first (nin when none). */
static int load_inputs(input *in, char *const *ins, size_t nin, size_t *first)
{
    int bad = 0;
    *first = nin;
    for (size_t i = 0; i < nin; i++) {
        in[i].dir = ins[i];
        in[i].ok = strlen(ins[i]) < PATH_CAP - 128 &&
                   df_campaign_load("merge", ins[i], &in[i].c) == DF_OUTCOME_CLEAN;
        if (!in[i].ok)
            fprintf(stderr, "dotfuzz merge: %s: not merged\n", ins[i]);
        bad |= !in[i].ok;
        if (in[i].ok && *first == nin)
            *first = i;
    }
    return bad;
}

static void merge_inputs(cmerge *cm, input *in, size_t nin, tables *t)
{
    counts total = {0};
    for (size_t i = 0; i < nin && !cm->env_fail && !cm->nomem; i++) {
        if (!in[i].ok)
            continue;
        counts c = {0};
        for (size_t j = 0; j < in[i].c.nfs && !cm->env_fail && !cm->nomem; j++)
            merge_logged(cm, in[i].dir, &in[i].c.fs[j], &c);
        merge_unlogged(cm, in[i].dir, &in[i].c, &c);
        if (add_tables(t, &in[i].c) != 0)
            cm->nomem = 1;
        print_counts(in[i].dir, &c);
        add_counts(&total, &c);
    }
    print_counts("total", &total);
}

static df_outcome merge_into(cmerge *cm, input *in, size_t nin, size_t first, char *const *ins)
{
    tables t = {0};
    for (size_t i = 0; i < nin; i++)
        for (size_t k = 0; in[i].ok && k < in[i].c.nk; k++)
            if (df_campaign_kernel_index(&t.m, in[i].c.kernels[k]) == SIZE_MAX)
                cm->nomem = 1;
    t.nkt = t.m.nk;
    t.kt = calloc(t.nkt + 1, sizeof *t.kt);
    t.has_kt = calloc(t.nkt + 1, sizeof *t.has_kt);
    if (mkdir(cm->fdir, 0777) != 0) {
        fprintf(stderr, "dotfuzz merge: cannot create %s: %s\n", cm->fdir, strerror(errno));
        cm->env_fail = 1;
    }
    FILE *log = mem_out(cm, &cm->log);
    char *seeds = join_values(in, nin, "seed", 0), *backends = join_values(in, nin, "backend", 1);
    if (!t.kt || !t.has_kt || !log || !seeds || !backends)
        cm->nomem = 1;
    else if (!cm->env_fail)
        merge_inputs(cm, in, nin, &t);
    if (log)
        put_file(cm, DF_LOG_FILE, &cm->log);
    size_t nmerged = 0;
    for (size_t i = 0; i < nin; i++)
        nmerged += (size_t)in[i].ok;
    if (!cm->env_fail && !cm->nomem) {
        write_tables(cm, &t);
        write_stats(cm, in, nin, &t, seeds, backends, nmerged, ins);
        /* last: a directory without it is not taken for a whole merge */
        write_campaign(cm, in[first].dir, seeds, backends, &t, in, nin);
    }
    if (!cm->env_fail && !cm->nomem)
        printf("%s: %llu finding(s) logged, %zu finding file(s), %zu kernel(s), %zu campaign(s) "
               "merged\n",
               cm->out, (unsigned long long)cm->logged, cm->files.n, t.m.nk, nmerged);
    if (cm->nomem)
        fprintf(stderr, "dotfuzz merge: out of memory\n");
    free(seeds);
    free(backends);
    free(t.kt);
    free(t.has_kt);
    df_campaign_free(&t.m);
    return cm->env_fail || cm->nomem ? DF_OUTCOME_ENV : DF_OUTCOME_CLEAN;
}

df_outcome df_campaign_merge(const char *out, char *const *ins, size_t nin)
{
    if (strlen(out) > PATH_CAP - 128) {
        df_usage_error("merge", "%s", "path of OUT too long");
        return DF_OUTCOME_USAGE;
    }
    int p = prepare_out(out);
    if (p != 0) {
        if (p > 0)
            df_usage_error("merge", "OUT '%s' is not an empty directory (merging campaigns "
                           "writes a new one)", out);
        else
            fprintf(stderr, "dotfuzz merge: cannot create %s: %s\n", out, strerror(errno));
        return p > 0 ? DF_OUTCOME_USAGE : DF_OUTCOME_ENV;
    }
    cmerge cm = {.out = out};
    df_campaign_join(cm.fdir, out, DF_FINDINGS_DIR);
    input *in = calloc(nin ? nin : 1, sizeof *in);
    if (!in)
        return DF_OUTCOME_ENV;
    size_t first;
    int bad = load_inputs(in, ins, nin, &first);
    df_outcome rc = first == nin ? DF_OUTCOME_USAGE : merge_into(&cm, in, nin, first, ins);
    if (first == nin)
        fprintf(stderr, "dotfuzz merge: no campaign directory could be read; %s left empty\n",
                out);
    for (size_t i = 0; i < nin; i++)
        df_campaign_free(&in[i].c);
    free(in);
    set_free(&cm.files);
    set_free(&cm.sigs);
    /* OUT not written matters more than an input left out */
    return rc == DF_OUTCOME_ENV ? rc : bad ? DF_OUTCOME_USAGE : rc;
}
