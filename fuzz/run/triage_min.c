/* triage_min.c — each bug's smallest finding minimized in the sandbox
 * (minimize.h) and written into the triage folder (triage.h's
 * df_triage_minimize); the findings themselves are only read. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz/files.h"
#include "fuzz/run/minimize.h"
#include "fuzz/run/triage.h"

/* The reproducer's name in the triage folder: its class, kernel and
 * signature, so that a rerun of triage replaces it rather than adds one. */
static int out_path(const df_triage_min_opts *o, const df_triage_bug *b, char *path, size_t cap)
{
    static const char *const kind[DF_BUG_NCLASSES] = {"bug", "fault", "hang"};
    int w = snprintf(path, cap, "%s/%s-%s-%s", o->out, kind[b->cls], b->kernel, b->sig);
    return w > 0 && (size_t)w < cap ? 0 : -1;
}

/* The finding's bytes as they are, when it cannot be minimized here (why
 * says so). */
static int copy_as_found(df_triage_bug *b, const uint8_t *buf, size_t len, uint64_t n,
                         const char *path, const char *why)
{
    if (df_write_file_atomic(path, buf, len) != 0)
        return -1;
    snprintf(b->min_path, sizeof b->min_path, "%s", path);
    b->min_n = n;
    snprintf(b->min_note, sizeof b->min_note, "%s", why);
    return 0;
}

/* Minimizes bug b from its reproducer. 0, or -1 when the output cannot be
 * written (errno) or the sandbox lost every worker (*dead). */
static int minimize_bug(df_sandbox *sb, df_triage_bug *b, const df_triage_min_opts *o,
                        int *dead)
{
    char path[DF_TRIAGE_PATH_CAP], msg[300];
    if (out_path(o, b, path, sizeof path) != 0) {
        errno = ENAMETOOLONG;
        return -1;
    }
    size_t len = 0;
    uint8_t *buf = df_read_regular(b->repro_path, &len, msg, sizeof msg);
    df_case_file f;
    if (!buf || df_corpus_decode(buf, len, &f, msg, sizeof msg) != DF_CORPUS_OK) {
        snprintf(b->min_note, sizeof b->min_note, "not minimized: %s", msg);
        free(buf);
        return 0;
    }
    const df_kernel *k = df_kernel_find(b->kernel);
    int rc = 0;
    df_minimizer st;
    if (b->cls == DF_BUG_HANG) {
        rc = copy_as_found(b, buf, len, f.c.n, path, "a hang: not minimized, each attempt waits for the "
                                        "watchdog");
    } else if (!k || k->elem != f.c.type || !df_sandbox_supports(sb, k)) {
        snprintf(msg, sizeof msg, "not minimized: kernel %s does not run on backend %s",
                 b->kernel, df_sandbox_backend(sb));
        rc = copy_as_found(b, buf, len, f.c.n, path, msg);
    } else if (df_minimizer_init(&st, sb, k, &f.c, o->tol, o->max_tries, msg, sizeof msg) != 0) {
        rc = copy_as_found(b, buf, len, f.c.n, path, msg);
    } else {
        if (!df_minimizer_judge(&st, &st.c, &st.last)) {
            snprintf(msg, sizeof msg, "not minimized: %s (%s) on backend %s now",
                     df_verdict_name(st.last.j.verdict), st.last.j.rule, df_sandbox_backend(sb));
            rc = st.dead ? 0 : copy_as_found(b, buf, len, f.c.n, path, msg);
        } else {
            st.rule = st.last.j.rule;
            df_minimize(&st);
            if (!st.dead && df_minimizer_write(&st, path) == 0) {
                snprintf(b->min_path, sizeof b->min_path, "%s", path);
                b->min_n = st.c.n;
                b->min_tries = st.tries;
                snprintf(b->min_rule, sizeof b->min_rule, "%s", st.rule);
            } else if (!st.dead) {
                rc = -1;
            }
        }
        *dead = st.dead;
        df_minimizer_free(&st);
    }
    df_case_file_free(&f);
    free(buf);
    return rc;
}

df_outcome df_triage_minimize(const char *cmd, df_triage *t, const df_triage_min_opts *o)
{
    if (t->nbugs == 0)
        return DF_OUTCOME_CLEAN;
    if (mkdir(o->out, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "dotfuzz %s: cannot make %s: %s\n", cmd, o->out, strerror(errno));
        return DF_OUTCOME_ENV;
    }
    df_sandbox *sb;
    df_outcome out = df_sandbox_open(cmd, o->backend, 0, o->watchdog_s, &sb);
    if (out != DF_OUTCOME_CLEAN)
        return out;
    fprintf(stderr, "dotfuzz %s: minimizing %zu reproducer(s): %s\n", cmd, t->nbugs,
            df_sandbox_note(sb));
    for (size_t i = 0; i < t->nbugs && out == DF_OUTCOME_CLEAN; i++) {
        df_triage_bug *b = &t->bugs[i];
        int dead = 0;
        if (minimize_bug(sb, b, o, &dead) != 0) {
            fprintf(stderr, "dotfuzz %s: cannot write into %s: %s\n", cmd, o->out,
                    strerror(errno));
            out = DF_OUTCOME_ENV;
        } else if (dead) {
            out = DF_OUTCOME_ENV; /* the sandbox said why */
        } else {
            fprintf(stderr, "dotfuzz %s: %s %s: n %llu -> %llu%s%s\n", cmd, b->sig, b->kernel,
                    (unsigned long long)b->repro_n, (unsigned long long)b->min_n,
                    b->min_note[0] ? ", " : "", b->min_note);
        }
    }
    df_sandbox_close(sb);
    return out;
}
