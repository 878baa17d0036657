/* cmd_merge.c — `dotfuzz merge OUT IN...`: merges corpora (files or
 * directories) into directory OUT, keeping one case per distinct finding;
 * when every IN is a campaign directory, merges the campaigns instead
 * (campaign_merge.c: nothing is run, no backend is opened).
 * Every case is judged as `replay` judges it (on its kernel; a kernel-less
 * case on every kernel of its type) and kept only when it adds a new
 * signature (kernel, verdict, rule, error bucket), the bucket being
 * floor(log2(err_ratio)) clamped, with one bucket of its own for a
 * non-finite ratio. Cases already in OUT count as known first, so merging
 * into an existing corpus adds only what it lacks. Files keep their bytes
 * and are named by their kind and SHA-1 (df_corpus_store), so a duplicate
 * by content is recognised by its bytes' SHA-1. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz/run/campaign_merge.h"
#include "fuzz/check/check.h"
#include "fuzz/cmd/cli.h"
#include "fuzz/cmd/cli_util.h"
#include "fuzz/check/metamorphic.h"
#include "fuzz/plugin.h"
#include "fuzz/run/sandbox.h"
#include "fuzz/run/select.h"

typedef struct merge_opts {
    const char *out, *backend;
    char *kernel;        /* --kernel values joined (select.h): only these kernels */
    double tol;
    double watchdog_s;   /* 0: by the case's size */
    df_plugin_paths libs;
    const char *case_option; /* the first option given that only a corpus merge takes */
} merge_opts;

typedef struct sig {
    char kernel[DF_NAME_MAX];
    int verdict, bucket;
    const char *rule;
} sig;

typedef struct counts {
    uint64_t read, kept, duplicate, redundant, unreadable;
} counts;

typedef struct merge_state {
    df_sandbox *sb;
    const df_kernel *set[4 * DF_KERNEL_SET]; /* the --kernel list resolved */
    size_t nset;
    df_oracle_opts oo;
    df_meta_opts mo;
    const char *out;
    sig *sigs;
    size_t nsigs, capsigs;
    char (*hashes)[41];
    size_t nhashes, caphashes;
    int dead;      /* no worker process can run cases */
    int env_fail;  /* OUT not writable */
} merge_state;

static void merge_usage(FILE *f)
{
    fputs("usage: dotfuzz merge OUT IN... [OPTIONS]\n"
          "       dotfuzz merge OUT CAMPAIGN_DIR...\n"
          "\n"
          "Merges case files and corpus directories (read one level deep, in name\n"
          "order) into directory OUT. Each case is judged as replay judges it and kept\n"
          "only when it adds a distinct (kernel, verdict, rule, error bucket), the\n"
          "bucket being floor(log2(err_ratio)); duplicates by content are dropped.\n"
          "Cases already in OUT count as known. Files are stored under their SHA-1.\n"
          "\n"
          "  --backend B          cuda, host or auto (default auto)\n"
          "  --kernel LIST        judge on these kernels only, comma-separated, repeatable:\n"
          "                       names, 'all', 'mutants' (cases naming another are skipped)\n"
          "  --kernel-lib PATH    load kernels from a plugin library (repeatable)\n"
          "  --tol X              relative tolerance of a precision finding (default 1e-6)\n"
          "  --watchdog D         a case running longer is a hang (bug; default 10s, or\n"
          "                       400 ns an element of longer cases)\n"
          "  -h, --help           this text\n"
          "\n"
          "When every IN is a campaign directory (dotfuzz run --out DIR; e.g. the\n"
          "array tasks of scripts/slurm-campaign.sh), OUT (new or empty) becomes one\n"
          "campaign directory that dotfuzz report reads: fuzzer_stats and the tables\n"
          "summed per kernel, and the findings (lines and files) of every input, a\n"
          "finding kept when its file is new and its (kernel, verdict, rule, error\n"
          "bucket) is new; crashes and hangs whenever their file is new. Findings are\n"
          "not rerun, and the options above are refused. IN of both kinds is an\n"
          "error.\n"
          "\n"
          "exit status: 0 merged, 2 some input unreadable (the rest merged), OUT not\n"
          "empty for a campaign merge, or campaign and corpus inputs mixed,\n"
          "3 OUT cannot be written or the backend is unusable\n",
          f);
}

static int parse_merge_opts(int argc, char **argv, merge_opts *o)
{
    enum { OPT_BACKEND = 256, OPT_TOL, OPT_KERNEL_LIB, OPT_KERNEL, OPT_WATCHDOG };
    static const struct option longopts[] = {
        {"backend", required_argument, 0, OPT_BACKEND}, {"tol", required_argument, 0, OPT_TOL},
        {"kernel-lib", required_argument, 0, OPT_KERNEL_LIB},
        {"kernel", required_argument, 0, OPT_KERNEL},
        {"watchdog", required_argument, 0, OPT_WATCHDOG},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
    };
    *o = (merge_opts){.backend = "auto", .tol = 1e-6};
    int ch, li = -1;
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":h", longopts, &li)) != -1) {
        if (ch >= OPT_BACKEND && !o->case_option && li >= 0)
            o->case_option = longopts[li].name;
        li = -1;
        switch (ch) {
        case 'h': return 1;
        case OPT_KERNEL:
            if (df_kernel_list_add(&o->kernel, optarg) != 0)
                return -1;
            break;
        case OPT_WATCHDOG:
            if (df_parse_watchdog_cli("merge", optarg, &o->watchdog_s) != 0)
                return -1;
            break;
        case OPT_BACKEND: o->backend = optarg; break;
        case OPT_KERNEL_LIB:
            if (df_plugin_paths_add_cli("merge", &o->libs, optarg) != 0)
                return -1;
            break;
        case OPT_TOL:
            if (df_parse_tol_cli("merge", optarg, &o->tol) != 0)
                return -1;
            break;
        case ':': df_usage_error("merge", "option %s needs a value", argv[optind - 1]); return -1;
        default: df_usage_error("merge", "unknown option '%s'", argv[optind - 1]); return -1;
        }
    }
    if (argc - optind < 2) {
        df_usage_error("merge", "%s", "needs OUT and at least one IN");
        return -1;
    }
    o->out = argv[optind++];
    return 0;
}

static int sig_known(const merge_state *st, const sig *s)
{
    for (size_t i = 0; i < st->nsigs; i++) {
        const sig *t = &st->sigs[i];
        if (t->verdict == s->verdict && t->bucket == s->bucket &&
            !strcmp(t->kernel, s->kernel) && !strcmp(t->rule, s->rule))
            return 1;
    }
    return 0;
}

static int hash_known(const merge_state *st, const char *hex)
{
    for (size_t i = 0; i < st->nhashes; i++)
        if (!strcmp(st->hashes[i], hex))
            return 1;
    return 0;
}

static int add_hash(merge_state *st, const char *hex)
{
    if (df_grow(&st->hashes, &st->caphashes, st->nhashes, sizeof *st->hashes) != 0)
        return -1;
    memcpy(st->hashes[st->nhashes++], hex, 41);
    return 0;
}

/* Judges c on k as replay does; returns 0 and fills s, or -1 when c cannot
 * run on k (launch invalid for k, or the backend cannot run k). */
static int judge_on(merge_state *st, const df_kernel *k, const df_case_file *f, sig *s)
{
    df_case c;
    if (df_launch_for(k, &f->c, &c, NULL, 0) != 0)
        return -1;
    if (!df_sandbox_supports(st->sb, k))
        return -1;
    df_checked r;
    if (df_sandbox_check(st->sb, k, &c, &st->oo, &st->mo, &r) != 0) {
        st->dead = 1;
        return -1;
    }
    snprintf(s->kernel, sizeof s->kernel, "%s", k->name);
    s->verdict = r.j.verdict;
    s->rule = r.j.rule;
    s->bucket = df_ratio_bucket(r.j.err_ratio);
    return 0;
}

/* Adds every new signature of f; returns how many were new, -1 on no
 * memory. *runnable = 0 when no kernel could run it; *kind is the kind
 * (df_finding_kind) of its first new signature. */
static int add_sigs(merge_state *st, const df_case_file *f, int *runnable, const char **kind)
{
    int added = 0;
    *runnable = 0;
    const df_kernel *k;
    for (size_t i = 0; (k = df_case_candidate(&f->c, i, st->set, st->nset)) != NULL && !st->dead;
         i++) {
        sig s;
        if (k->elem != f->c.type || judge_on(st, k, f, &s) != 0)
            continue;
        *runnable = 1;
        if (sig_known(st, &s))
            continue;
        if (df_grow(&st->sigs, &st->capsigs, st->nsigs, sizeof *st->sigs) != 0)
            return -1;
        st->sigs[st->nsigs++] = s;
        if (added++ == 0)
            *kind = df_finding_kind_of((df_verdict)s.verdict, s.rule);
    }
    return added;
}

static void store_case(merge_state *st, const char *kind, const uint8_t *buf, size_t len,
                       counts *cn)
{
    int is_new;
    if (df_corpus_store(st->out, kind, buf, len, NULL, 0, &is_new) != 0) {
        fprintf(stderr, "dotfuzz merge: cannot write into %s: %s\n", st->out, strerror(errno));
        st->env_fail = 1;
    } else {
        cn->kept++;
    }
}

/* One file of an input (store = 1) or of OUT itself (store = 0: its
 * signatures and hashes become known, nothing is written or counted). */
static void merge_file(merge_state *st, const char *path, int store, counts *cn)
{
    size_t len = 0;
    char msg[300];
    cn->read++;
    uint8_t *buf = df_read_regular(path, &len, msg, sizeof msg);
    df_case_file f;
    df_corpus_err e = buf ? df_corpus_decode(buf, len, &f, msg, sizeof msg) : DF_CORPUS_E_IO;
    if (e != DF_CORPUS_OK) {
        fprintf(stderr, "dotfuzz merge: %s: %s\n", path, msg);
        cn->unreadable++;
        free(buf);
        return;
    }
    char hex[41];
    df_sha1_hex(buf, len, hex);
    if (hash_known(st, hex)) {
        cn->duplicate++;
    } else {
        int runnable;
        const char *kind = NULL;
        int added = add_sigs(st, &f, &runnable, &kind);
        if (added < 0 || add_hash(st, hex) != 0) {
            fprintf(stderr, "dotfuzz merge: out of memory\n");
            st->dead = 1;
        } else if (!store) {
            cn->kept++;
        } else if (added == 0 && (runnable || !f.c.kernel[0])) {
            cn->redundant++;
        } else {
            if (!runnable) /* cannot be judged here: kept, it may hold a finding */
                fprintf(stderr, "dotfuzz merge: %s: cannot run on %s with its launch on "
                        "backend %s: kept unjudged\n", path, f.c.kernel, df_sandbox_backend(st->sb));
            store_case(st, kind, buf, len, cn);
        }
    }
    df_case_file_free(&f);
    free(buf);
}

static void merge_path(merge_state *st, const char *path, int store, counts *cn)
{
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        merge_file(st, path, store, cn);
        return;
    }
    size_t n = 0;
    char **names;
    if (df_corpus_list(path, &names, &n) != 0) {
        fprintf(stderr, "dotfuzz merge: %s: cannot open directory\n", path);
        cn->read++;
        cn->unreadable++;
        return;
    }
    for (size_t i = 0; i < n && !st->dead && !st->env_fail; i++)
        merge_path(st, names[i], store, cn);
    df_corpus_list_free(names, n);
}

static void print_counts(const char *what, const counts *c)
{
    printf("%s: read %llu, kept %llu, duplicate %llu, redundant %llu, unreadable %llu\n", what,
           (unsigned long long)c->read, (unsigned long long)c->kept,
           (unsigned long long)c->duplicate, (unsigned long long)c->redundant,
           (unsigned long long)c->unreadable);
}

static df_outcome merge_all(merge_state *st, int nin, char **in)
{
    counts total = {0}, existing = {0};
    struct stat ob;
    if (stat(st->out, &ob) == 0) /* a new OUT holds nothing to read */
        merge_path(st, st->out, 0, &existing);
    if (existing.kept)
        printf("%s (already there): %llu case(s)\n", st->out,
               (unsigned long long)existing.kept);
    for (int i = 0; i < nin && !st->dead && !st->env_fail; i++) {
        counts c = {0};
        merge_path(st, in[i], 1, &c);
        print_counts(in[i], &c);
        total.read += c.read;
        total.kept += c.kept;
        total.duplicate += c.duplicate;
        total.redundant += c.redundant;
        total.unreadable += c.unreadable;
    }
    print_counts("total", &total);
    printf("%zu distinct (kernel, verdict, rule, error bucket) signature(s) in %s\n",
           st->nsigs, st->out);
    if (st->dead || st->env_fail)
        return DF_OUTCOME_ENV;
    return total.unreadable ? DF_OUTCOME_USAGE : DF_OUTCOME_CLEAN;
}

/* 1 when every input is a campaign directory, 0 when none is, -1 (said)
 * when they are mixed. */
static int campaign_inputs(int nin, char **in)
{
    int ncamp = 0;
    for (int i = 0; i < nin; i++)
        ncamp += df_is_campaign_dir(in[i]);
    if (ncamp == 0 || ncamp == nin)
        return ncamp > 0;
    for (int i = 0; i < nin; i++)
        if (!df_is_campaign_dir(in[i])) {
            df_usage_error("merge", "'%s' is not a campaign directory, but other inputs are "
                           "(merge campaigns or corpora, not both)", in[i]);
            break;
        }
    return -1;
}

static df_outcome merge_corpora(merge_opts *o, int nin, char **in)
{
    merge_state st = {.oo = {.tol = o->tol}, .mo = {.every = 1, .reruns = 2}, .out = o->out};
    unsigned char named[sizeof st.set / sizeof st.set[0]];
    if (df_load_plugins_cli("merge", &o->libs) != 0 ||
        (o->kernel && df_kernels_of("merge", o->kernel, st.set, named,
                                    sizeof st.set / sizeof st.set[0], &st.nset) != 0))
        return DF_OUTCOME_USAGE;
    if (df_dir_writable_cli("merge", "OUT", o->out) != 0)
        return DF_OUTCOME_ENV;
    df_outcome out = df_sandbox_open("merge", o->backend, 0, o->watchdog_s, &st.sb);
    if (out != DF_OUTCOME_CLEAN)
        return out;
    fprintf(stderr, "dotfuzz merge: %s\n", df_sandbox_note(st.sb));
    out = merge_all(&st, nin, in);
    df_sandbox_close(st.sb);
    free(st.sigs);
    free(st.hashes);
    return out;
}

df_outcome df_cmd_merge(int argc, char **argv)
{
    merge_opts o;
    int p = parse_merge_opts(argc, argv, &o);
    df_outcome out = DF_OUTCOME_USAGE;
    int kind = p == 0 ? campaign_inputs(argc - optind, argv + optind) : -1;
    if (p > 0) {
        merge_usage(stdout);
        out = DF_OUTCOME_CLEAN;
    } else if (kind > 0 && o.case_option) {
        df_usage_error("merge", "--%s has no effect on a merge of campaign directories "
                                "(their findings are not rerun)", o.case_option);
    } else if (kind > 0) {
        out = df_campaign_merge(o.out, argv + optind, (size_t)(argc - optind));
    } else if (kind == 0) {
        out = merge_corpora(&o, argc - optind, argv + optind);
    }
    free(o.kernel);
    return out;
}
