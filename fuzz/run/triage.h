/* triage.h — a campaign's findings grouped by bug, not by file
 * (`dotfuzz triage`, and the report's triage section): each finding's
 * numerical signature, the distinct bugs with what their findings have in
 * common and in which ways they differ, each bug's smallest reproducer
 * (minimized in the sandbox, written outside findings/), and the
 * informational findings (precision, soft-error, nondet) counted apart.
 *
 * The signature's key is (kernel, failure class): a class is what the
 * kernel did wrong — a wrong result (every oracle and metamorphic rule),
 * a fault (crash, CUDA error, sanitizer report) or a hang. Rule, value
 * family, length and error size are recorded per bug, not keyed: one flaw
 * fires across them all (docs/triage.md has the measurement). */
#ifndef DOTFUZZ_TRIAGE_H
#define DOTFUZZ_TRIAGE_H

#include <stdint.h>
#include <stdio.h>

#include "fuzz/case.h"
#include "fuzz/corpus.h"
#include "fuzz/outcome.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a kernel did wrong: the part of a finding's signature beside its
 * kernel. */
typedef enum df_bug_class {
    DF_BUG_WRONG = 0, /* a wrong result: any rule of the oracle or the metamorphic checks */
    DF_BUG_FAULT,     /* a crash, a CUDA error (rule exec), a sanitizer report */
    DF_BUG_HANG,      /* the watchdog killed it */
    DF_BUG_NCLASSES
} df_bug_class;

/* "wrong-result", "fault", "hang" */
const char *df_bug_class_name(df_bug_class c);

/* The class of a bug finding's rule. */
df_bug_class df_bug_class_of(const char *rule);

/* A bug's signature: 12 hex digits of FNV-1a over (kernel, class), NUL
 * ended, the same for every finding of that key in any campaign. */
#define DF_SIG_LEN 13
void df_bug_signature(const char *kernel, df_bug_class c, char sig[DF_SIG_LEN]);

#define DF_TRIAGE_PATH_CAP 4096
#define DF_TRIAGE_RULES 12 /* distinct rules kept per bug; more are counted in rules_other */

/* One distinct bug: its key, how often and when it was found, how its
 * findings differ (what a key holding that field would have split), and
 * its reproducer. */
typedef struct df_triage_bug {
    char sig[DF_SIG_LEN];
    char kernel[DF_NAME_MAX];
    df_bug_class cls;
    uint64_t count;
    /* first and last seen: the case index, and the campaign's elapsed run
     * time in seconds (NaN for a folder of case files) */
    uint64_t first_index, last_index;
    double first_elapsed, last_elapsed;
    struct {
        char name[24];
        uint64_t count;
    } rules[DF_TRIAGE_RULES];
    size_t nrules;
    uint64_t rules_other;     /* findings whose rule did not fit rules[] */
    uint64_t families;        /* bit f: a finding of family id f (0 imported; ids < 64) */
    uint64_t len_buckets;     /* bit b: a finding with n of bit length b */
    uint64_t n_min, n_max;
    int err_min, err_max;     /* floor(log2 err_ratio) of the finite ratios (INT32 limits: none) */
    uint64_t err_seen[3];     /* bit b: a finding in df_ratio_bucket b - DF_BUCKET_MIN, the
                                 non-finite bucket last */
    uint64_t err_buckets;     /* how many distinct such buckets */
    unsigned specials;        /* DF_TRIAGE_HAS_* over the findings' inputs */
    /* the smallest finding (fewest elements, then first seen), and what
     * minimizing it gave */
    char repro_path[DF_TRIAGE_PATH_CAP];
    uint64_t repro_n;
    char min_path[DF_TRIAGE_PATH_CAP]; /* "" until df_triage_minimize writes it */
    uint64_t min_n, min_tries;
    char min_rule[24];
    char min_note[320];       /* why it is not minimized, or "" */
} df_triage_bug;

#define DF_TRIAGE_HAS_NAN 1u
#define DF_TRIAGE_HAS_INF 2u
#define DF_TRIAGE_HAS_SUBNORMAL 4u

/* A kernel's informational findings: not bugs, counted apart. */
typedef struct df_triage_info {
    char kernel[DF_NAME_MAX];
    uint64_t precision, soft_error, nondet;
} df_triage_info;

typedef struct df_triage {
    char dir[DF_TRIAGE_PATH_CAP];  /* what was triaged */
    int campaign;                    /* 1: a campaign directory, 0: a folder of case files */
    df_triage_bug *bugs;             /* sorted by kernel, then class */
    size_t nbugs, capbugs;
    df_triage_info *info;
    size_t ninfo, capinfo;
    uint64_t findings;               /* findings read (filtered out ones not counted) */
    uint64_t bug_findings, info_findings;
    uint64_t unreadable;             /* files or log lines that could not be read (said) */
    uint64_t not_findings;           /* case files recording no verdict, or ok */
    uint64_t filtered;               /* findings of kernels outside the filter */
} df_triage;

/* Which kernels to keep: NULL or empty keeps all; else a finding is kept
 * when its kernel is one of names[0..n). */
typedef struct df_triage_filter {
    const char *const *names;
    size_t n;
} df_triage_filter;

/* Reads dir (a campaign directory: its findings.jsonl and the files it
 * names; else a folder of case files, one level deep, each judged by its
 * recorded verdict and its name's kind) and groups its findings into *t
 * (zeroed by the caller; df_triage_free either way). Problems with single
 * files are said on stderr as "dotfuzz CMD: ..." and counted in
 * unreadable. CLEAN, USAGE when dir is neither (said), ENV without memory. */
df_outcome df_triage_dir(const char *cmd, const char *dir, const df_triage_filter *filter,
                         df_triage *t);
void df_triage_free(df_triage *t);

/* Minimization options of df_triage_minimize. */
typedef struct df_triage_min_opts {
    const char *backend;     /* "cuda", "host", "auto" */
    const char *out;         /* the folder the reproducers go into */
    double tol, watchdog_s;  /* as minimize's --tol and --watchdog (0: by size) */
    uint64_t max_tries;      /* judged attempts per bug */
} df_triage_min_opts;

/* Each bug's smallest finding minimized in the sandbox while its rule
 * keeps firing (hangs are copied unminimized: every attempt would wait
 * for the watchdog), written to o->out as <kind>-<kernel>-<sig>, whole or
 * not at all; progress on stderr. CLEAN, USAGE (unknown backend) or ENV
 * (no backend, out not writable). */
df_outcome df_triage_minimize(const char *cmd, df_triage *t, const df_triage_min_opts *o);

/* The text report: one aligned table of the bugs, then the informational
 * findings per kernel and the totals. */
void df_triage_print(FILE *f, const df_triage *t);

/* The same as one JSON object. */
void df_triage_print_json(FILE *f, const df_triage *t);

#ifdef __cplusplus
}
#endif
#endif
