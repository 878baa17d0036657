/* select.h — which kernels a command runs. Every command that runs
 * kernels takes --kernel LIST the same way: repeatable, each value a comma
 * list of names, "all" (the correct built-in kernels and every plugin's)
 * and "mutants" (the known-buggy ones); the kernels in the order named,
 * each once. */
#ifndef DOTFUZZ_SELECT_H
#define DOTFUZZ_SELECT_H

#include <stddef.h>

#include "fuzz/backend/backend.h"
#include "fuzz/run/run.h"

/* Kernels of every kind the registry may hold at once: the built-ins and
 * mutants, and DF_PLUGIN_KERNELS_MAX plugin kernels, are within 4 times
 * this; a --kernel list resolves into at most that many. */
#define DF_KERNEL_SET DF_RUN_MAX_KERNELS

/* Appends one --kernel value to *list (a malloc'd comma list, NULL when
 * empty). Returns 0, or -1 without memory. */
int df_kernel_list_add(char **list, const char *value);

/* The kernels list names, in order, each once (at most cap): into ks, and
 * in named[i] whether kernel i was named rather than brought by a group.
 * An unknown name is said on stderr ("dotfuzz CMD: unknown kernel ...")
 * and gives -1; else 0. */
int df_kernels_of(const char *cmd, const char *list, const df_kernel **ks,
                  unsigned char *named, size_t cap, size_t *nk);

/* Whether k is one of ks[0..nk). */
int df_kernel_in(const df_kernel *const *ks, size_t nk, const df_kernel *k);

/* Which kernels a backend runs: its name, and whether it runs k (a backend
 * open in this process: df_runs_on_backend; or a sandbox's answer). */
typedef struct df_runs_on {
    const char *backend;
    int (*supports)(const void *ctx, const df_kernel *k);
    const void *ctx;
} df_runs_on;

df_runs_on df_runs_on_backend(const df_backend *b);

/* run's kernels for o: o->kernel's list, less the kernels of a group the
 * backend or the family cannot serve (each said on stderr); a named kernel
 * that cannot run is an error. Returns 0, -1 (usage error, said) or -2
 * (nothing can run, said). */
int df_run_select(const df_run_opts *o, const df_runs_on *b, const df_kernel **kernels,
                  size_t *nk);

/* Whether --huge can work for command cmd: some kernel of ks[0..nk) (ks
 * NULL: not known yet) takes huge cases within huge_bytes, and the backend
 * (NULL or "auto": not known yet) is cuda. 0, or -1 said on stderr as a
 * usage error naming --huge. */
int df_huge_refused(const char *cmd, const df_kernel *const *ks, size_t nk,
                    uint64_t huge_bytes, const char *backend);

#endif
