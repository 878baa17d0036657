/* plugin.h — loads user kernels from shared libraries (`--kernel-lib`,
 * the ABI of include/dotfuzz/plugin.h) and registers each as a df_kernel
 * (df_registry_add), so run, replay and list treat them like built-ins. */
#ifndef DOTFUZZ_FUZZ_PLUGIN_H
#define DOTFUZZ_FUZZ_PLUGIN_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Kernels all loaded plugins may add together (the registry's limit). */
#define DF_PLUGIN_KERNELS_MAX 64

/* Loads the library at path, checks every field of its description and
 * registers its kernels. It is loaded in a worker process first, so a
 * constructor or entry point that crashes, exits or hangs is refused,
 * not fatal. Returns 0, or -1 with a one-line reason in err that names the
 * library and the problem (cannot be opened, ended the process loading
 * it, no entry symbol, another ABI version, a bad field, a name already
 * taken); then none of its kernels is registered. */
int df_plugin_load(const char *path, char *err, size_t err_len);

/* One line naming plugin kernel i (df_plugin_at(i)) as loaded: its
 * library's path, its name and every trait dotfuzz judges it by (types,
 * flags, launch ranges, which forms it has). A campaign records these and
 * compares them on resume. Returns 0, or -1 past the last. */
int df_plugin_describe(size_t i, char *buf, size_t len);

/* The GPU launcher table built for plugin kernel i: what its
 * df_kernel.gpu points at in a build with CUDA (where a DOTFUZZ_BLAS
 * kernel without dot_device gets none), built in every build. NULL past
 * the last. */
struct df_gpu_ops;
const struct df_gpu_ops *df_plugin_gpu_ops(size_t i);

/* The --kernel-lib paths of one command line, in order. */
#define DF_PLUGIN_PATHS_MAX 16
typedef struct df_plugin_paths {
    const char *path[DF_PLUGIN_PATHS_MAX];
    size_t n;
} df_plugin_paths;

/* Appends path; -1 when there are already DF_PLUGIN_PATHS_MAX. */
int df_plugin_paths_add(df_plugin_paths *p, const char *path);

/* Loads each path in order; stops at the first failure (-1, err set). */
int df_plugin_load_all(const df_plugin_paths *p, char *err, size_t err_len);

/* df_plugin_load_all for subcommand cmd: on failure one line on stderr,
 * "dotfuzz CMD: --kernel-lib <why>", and -1 (the caller's usage error). */
int df_load_plugins_cli(const char *cmd, const df_plugin_paths *p);

/* df_plugin_paths_add for subcommand cmd's --kernel-lib: on overflow one
 * line on stderr and -1 (the caller's usage error). */
int df_plugin_paths_add_cli(const char *cmd, df_plugin_paths *p, const char *path);

#ifdef __cplusplus
}
#endif
#endif
