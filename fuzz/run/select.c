/* select.c — the --kernel list and run's kernel selection (select.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/gen/generator.h"
#include "fuzz/run/select.h"

int df_kernel_list_add(char **list, const char *value)
{
    size_t old = *list ? strlen(*list) : 0;
    char *p = realloc(*list, old + strlen(value) + 2);
    if (!p)
        return -1;
    if (old)
        p[old++] = ',';
    strcpy(p + old, value);
    *list = p;
    return 0;
}

int df_kernel_in(const df_kernel *const *ks, size_t nk, const df_kernel *k)
{
    for (size_t i = 0; i < nk; i++)
        if (ks[i] == k)
            return 1;
    return 0;
}

static void add(const df_kernel *k, int by_name, const df_kernel **ks, unsigned char *named,
                size_t cap, size_t *nk)
{
    for (size_t i = 0; i < *nk; i++)
        if (ks[i] == k) {
            named[i] |= (unsigned char)by_name;
            return;
        }
    if (*nk < cap) {
        named[*nk] = (unsigned char)by_name;
        ks[(*nk)++] = k;
    }
}

int df_kernels_of(const char *cmd, const char *list, const df_kernel **ks,
                  unsigned char *named, size_t cap, size_t *nk)
{
    *nk = 0;
    char *copy = strdup(list ? list : ""), *save = NULL;
    if (!copy)
        return -1;
    int rc = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok && rc == 0;
         tok = strtok_r(NULL, ",", &save)) {
        if (!strcmp(tok, "all")) {
            size_t nb = df_kernel_count(), np = df_plugin_count();
            for (size_t i = 0; i < nb + np; i++)
                add(i < nb ? df_kernel_at(i) : df_plugin_at(i - nb), 0, ks, named, cap, nk);
        } else if (!strcmp(tok, "mutants")) {
            for (size_t i = 0; i < df_mutant_count(); i++)
                add(df_mutant_at(i), 0, ks, named, cap, nk);
        } else if (df_kernel_find(tok)) {
            add(df_kernel_find(tok), 1, ks, named, cap, nk);
        } else {
            fprintf(stderr, "dotfuzz %s: unknown kernel '%s' (see dotfuzz list)\n", cmd, tok);
            rc = -1;
        }
    }
    free(copy);
    return rc;
}

/* ---- run's selection ---- */

/* Whether the forced family (if any) can fill k's element type. */
static int family_fits(const df_run_opts *o, const df_kernel *k)
{
    const df_family *f = strcmp(o->family, "all") ? df_family_find(o->family) : NULL;
    return !f || ((f->types & DF_TYPE_BIT(k->elem)) &&
                  (!f->wide_only || (k->flags & DF_K_ACC_WIDE)));
}

static int backend_supports(const void *b, const df_kernel *k)
{
    return df_backend_supports(b, k);
}

df_runs_on df_runs_on_backend(const df_backend *b)
{
    return (df_runs_on){df_backend_name(b), backend_supports, b};
}

/* Why k cannot run in o on b, or NULL. */
static const char *cannot_run(const df_run_opts *o, const df_runs_on *b, const df_kernel *k,
                              char *why, size_t len)
{
    if (!family_fits(o, k))
        snprintf(why, len, "family %s has no %s values for kernel %s", o->family,
                 df_type_name(k->elem), k->name);
    else if (!b->supports(b->ctx, k))
        snprintf(why, len, "kernel %s cannot run on backend %s (no %s)", k->name, b->backend,
                 strcmp(b->backend, "host") == 0 ? "host model" : "GPU launcher");
    else
        return NULL;
    return why;
}

int df_huge_refused(const char *cmd, const df_kernel *const *ks, size_t nk,
                    uint64_t huge_bytes, const char *backend)
{
    uint64_t any = 0;
    for (size_t i = 0; ks && i < nk; i++)
        any |= df_gen_huge_limit(ks[i], huge_bytes);
    if (ks && !any) {
        fprintf(stderr, "dotfuzz %s: --huge: no kernel selected takes lengths past 2^31 within "
                        "--huge-bytes %llu (the len64 kernels of docs/kernels.md: f32 from "
                        "16 GiB, f64 from 32 GiB)\n", cmd, (unsigned long long)huge_bytes);
        return -1;
    }
    if (backend && strcmp(backend, "cuda") != 0 && strcmp(backend, "auto") != 0) {
        fprintf(stderr, "dotfuzz %s: --huge needs the cuda backend (lengths past 2^31 are GPU "
                        "work), not %s\n", cmd, backend);
        return -1;
    }
    return 0;
}

int df_run_select(const df_run_opts *o, const df_runs_on *b, const df_kernel **ks,
                  size_t *nk)
{
    *nk = 0;
    if (strcmp(o->family, "all") != 0 && !df_family_find(o->family)) {
        fprintf(stderr, "dotfuzz run: unknown family '%s' (see dotfuzz list)\n", o->family);
        return -1;
    }
    enum { CAP = 4 * DF_RUN_MAX_KERNELS };
    const df_kernel *all[CAP];
    unsigned char named[CAP];
    size_t n;
    if (df_kernels_of("run", o->kernel, all, named, CAP, &n) != 0)
        return -1;
    /* the kernels a list names that the backend cannot run, said in one
     * line (on the host, the GPU-only ones of every default run) */
    char unrun[1024] = "";
    size_t nunrun = 0, used = 0;
    for (size_t i = 0; i < n; i++) {
        char why[200];
        const char *no = cannot_run(o, b, all[i], why, sizeof why);
        if (no && named[i]) {
            fprintf(stderr, "dotfuzz run: %s\n", no);
            return b->supports(b->ctx, all[i]) ? -1 : -2;
        }
        if (no && !b->supports(b->ctx, all[i])) {
            int w = snprintf(unrun + used, sizeof unrun - used, "%s%s", nunrun++ ? ", " : "",
                             all[i]->name);
            if (w > 0 && (size_t)w < sizeof unrun - used)
                used += (size_t)w;
            else /* the list as far as it fits; the count says how many */
                unrun[used] = '\0';
            continue;
        }
        if (no) {
            fprintf(stderr, "dotfuzz run: skipping %s: %s\n", all[i]->name, no);
            continue;
        }
        if (*nk >= DF_RUN_MAX_KERNELS) {
            fprintf(stderr, "dotfuzz run: more than %d kernels\n", DF_RUN_MAX_KERNELS);
            return -1;
        }
        ks[(*nk)++] = all[i];
    }
    if (nunrun)
        fprintf(stderr, "dotfuzz run: skipping %zu kernel(s) with no %s on backend %s: %s\n",
                nunrun, strcmp(b->backend, "host") == 0 ? "host model" : "GPU launcher",
                b->backend, unrun);
    if (*nk == 0) {
        fprintf(stderr, "dotfuzz run: no kernel of '%s' runs on backend %s\n", o->kernel,
                b->backend);
        return -2;
    }
    return 0;
}
