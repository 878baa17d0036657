/* cmd_list.c — `dotfuzz list`: the kernels and the generator families. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "kernels/kernel.h"
#include "fuzz/cmd/cli.h"
#include "fuzz/gen/generator.h"
#include "fuzz/plugin.h"

static void block_range(const df_kernel *k, char *buf, size_t len)
{
    const char *rule = (k->flags & DF_K_BLOCK_POW2)   ? " pow2"
                       : (k->flags & DF_K_BLOCK_WARP) ? " x32"
                                                      : "";
    if (k->block_min == k->block_max)
        snprintf(buf, len, "%u", k->block_min);
    else
        snprintf(buf, len, "%u-%u%s", k->block_min, k->block_max, rule);
}

/* The i-th kernel listed: the built-ins, then those of --kernel-lib. */
static const df_kernel *listed(size_t i)
{
    size_t nbuiltin = df_kernel_count();
    return i < nbuiltin ? df_kernel_at(i) : df_plugin_at(i - nbuiltin);
}

/* `list --names [--model-checked]`: one kernel name a line, for scripts;
 * --model-checked keeps the deterministic kernels that have both a GPU
 * launcher and a host model (those the model-match rule applies to). */
static void list_names(int model_checked)
{
    const df_kernel *k;
    for (size_t i = 0; (k = listed(i)) != NULL; i++) {
        if (model_checked &&
            !((k->flags & DF_K_DETERMINISTIC) && k->gpu && k->host_model))
            continue;
        puts(k->name);
    }
}

df_outcome df_cmd_list(int argc, char **argv)
{
    int names = 0, model_checked = 0;
    df_plugin_paths libs = {0};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            puts("usage: dotfuzz list [--names [--model-checked]] [--kernel-lib PATH]...\n\n"
                 "Lists the kernels (name, origin, element and accumulator types,\n"
                 "determinism, block range, whether it takes lengths past 2^31 (--huge),\n"
                 "where they run: host, cuda or both backends) and the generator families.\n"
                 "--names prints kernel names only, one a line; --model-checked keeps the\n"
                 "deterministic kernels with both a GPU launcher and a host model.\n"
                 "--kernel-lib PATH loads a plugin's kernels first (repeatable; the ABI is\n"
                 "include/dotfuzz/plugin.h): they are listed after the built-in ones.");
            return DF_OUTCOME_CLEAN;
        } else if (!strcmp(argv[i], "--names")) {
            names = 1;
        } else if (!strcmp(argv[i], "--model-checked")) {
            model_checked = 1;
        } else if (!strcmp(argv[i], "--kernel-lib") || !strncmp(argv[i], "--kernel-lib=", 13)) {
            const char *path = argv[i][12] == '=' ? argv[i] + 13 : i + 1 < argc ? argv[++i] : NULL;
            if (!path) {
                fprintf(stderr, "dotfuzz list: option --kernel-lib needs a value\n");
                return DF_OUTCOME_USAGE;
            }
            if (df_plugin_paths_add_cli("list", &libs, path) != 0)
                return DF_OUTCOME_USAGE;
        } else {
            fprintf(stderr, "dotfuzz list: unexpected argument '%s'\n", argv[i]);
            return DF_OUTCOME_USAGE;
        }
    }
    if (df_load_plugins_cli("list", &libs) != 0)
        return DF_OUTCOME_USAGE;
    if (names) {
        list_names(model_checked);
        return DF_OUTCOME_CLEAN;
    }
    printf("kernels:\n  %-16s %-9s %-4s %-4s %-5s %-13s %-6s %-8s %s\n", "name", "origin",
           "elem", "acc", "det", "block", "len64", "runs-on", "what differs");
    const df_kernel *k;
    for (size_t i = 0; (k = listed(i)) != NULL; i++) {
        char blocks[32];
        block_range(k, blocks, sizeof blocks);
        /* the host backend runs a host model or a plugin's whole routine */
        int host = k->host_model || k->host_run, cuda = k->gpu != NULL;
        const char *where = host && cuda ? "both" : cuda ? "cuda" : host ? "host" : "-";
        printf("  %-16s %-9s %-4s %-4s %-5s %-13s %-6s %-8s %s\n", k->name, k->origin,
               df_type_name(k->elem), df_type_name(k->acc),
               (k->flags & DF_K_DETERMINISTIC) ? "yes" : "no", blocks,
               (k->flags & DF_K_LEN64) ? "yes" : "no", where, k->summary);
    }
    printf("\nfamilies:\n  %-3s %-10s %-12s %s\n", "id", "name", "types", "values");
    for (size_t i = 0; i < df_family_count(); i++) {
        const df_family *f = df_family_at(i);
        char types[16] = "";
        static const df_type all[] = {DF_F32, DF_F64, DF_I32};
        for (size_t t = 0; t < 3; t++)
            if (f->types & DF_TYPE_BIT(all[t])) {
                if (types[0])
                    strcat(types, ",");
                strcat(types, df_type_name(all[t]));
            }
        printf("  %-3u %-10s %-12s %s\n", f->id, f->name, types, f->summary);
    }
    return DF_OUTCOME_CLEAN;
}
