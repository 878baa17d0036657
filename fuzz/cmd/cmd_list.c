/* cmd_list.c — `dotfuzz list`: the kernels and the generator families. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "kernels/kernel.h"
#include "fuzz/cmd/cli.h"
#include "fuzz/gen/generator.h"
#include "fuzz/json.h"
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

/* Where k runs: the host backend runs a host model or a plugin's whole
 * routine; the cuda backend its GPU form. */
static const char *runs_on(const df_kernel *k)
{
    int host = k->host_model || k->host_run, cuda = k->gpu != NULL;
    return host && cuda ? "both" : cuda ? "cuda" : host ? "host" : "-";
}

/* The element types family f makes, "f32,f64" (len >= 40). */
static void family_types(const df_family *f, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int t = 1; t <= DF_TYPE_MAX; t++)
        if (f->types & DF_TYPE_BIT(t))
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? "," : "",
                     df_type_name((df_type)t));
}

static void list_text(void)
{
    printf("kernels:\n  %-16s %-9s %-4s %-4s %-5s %-13s %-6s %-8s %-5s %s\n", "name", "origin",
           "elem", "acc", "det", "block", "len64", "runs-on", "fused", "what differs");
    const df_kernel *k;
    for (size_t i = 0; (k = listed(i)) != NULL; i++) {
        char blocks[32], fused[16] = "-";
        block_range(k, blocks, sizeof blocks);
        if (k->fused) /* products a fused step takes */
            snprintf(fused, sizeof fused, "%u", k->fused->group);
        printf("  %-16s %-9s %-4s %-4s %-5s %-13s %-6s %-8s %-5s %s\n", k->name, k->origin,
               df_type_name(k->elem), df_type_name(k->acc),
               (k->flags & DF_K_DETERMINISTIC) ? "yes" : "no", blocks,
               (k->flags & DF_K_LEN64) ? "yes" : "no", runs_on(k), fused, k->summary);
    }
    printf("\nfamilies:\n  %-3s %-12s %-18s %s\n", "id", "name", "types", "values");
    for (size_t i = 0; i < df_family_count(); i++) {
        const df_family *f = df_family_at(i);
        char types[64];
        family_types(f, types, sizeof types);
        printf("  %-3u %-12s %-18s %s\n", f->id, f->name, types, f->summary);
    }
}

/* `list --json`: one object, the kernels and the families. */
static void list_json(void)
{
    fputc('{', stdout);
    df_json_stamp(stdout);
    fputs(",\"kernels\":[", stdout);
    const df_kernel *k;
    for (size_t i = 0; (k = listed(i)) != NULL; i++) {
        fputs(i ? ",\n{\"name\":" : "\n{\"name\":", stdout);
        df_json_str(stdout, k->name);
        fputs(",\"origin\":", stdout);
        df_json_str(stdout, k->origin);
        printf(",\"elem\":\"%s\",\"acc\":\"%s\",\"deterministic\":%s,\"block_min\":%u,"
               "\"block_max\":%u,\"block_default\":%u,\"len64\":%s,\"blas\":%s,"
               "\"runs_on\":\"%s\",\"fused\":",
               df_type_name(k->elem), df_type_name(k->acc),
               (k->flags & DF_K_DETERMINISTIC) ? "true" : "false", k->block_min, k->block_max,
               k->block_default, (k->flags & DF_K_LEN64) ? "true" : "false",
               (k->flags & DF_K_BLAS) ? "true" : "false", runs_on(k));
        df_json_fused(stdout, k);
        fputs(",\"summary\":", stdout);
        df_json_str(stdout, k->summary);
        fputc('}', stdout);
    }
    fputs("],\"families\":[", stdout);
    for (size_t i = 0; i < df_family_count(); i++) {
        const df_family *f = df_family_at(i);
        printf("%s{\"id\":%u,\"name\":", i ? ",\n" : "\n", f->id);
        df_json_str(stdout, f->name);
        fputs(",\"types\":[", stdout);
        for (int t = 1, first = 1; t <= DF_TYPE_MAX; t++)
            if (f->types & DF_TYPE_BIT(t)) {
                printf("%s\"%s\"", first ? "" : ",", df_type_name((df_type)t));
                first = 0;
            }
        fputs("],\"summary\":", stdout);
        df_json_str(stdout, f->summary);
        fputc('}', stdout);
    }
    fputs("]}\n", stdout);
}

df_outcome df_cmd_list(int argc, char **argv)
{
    int names = 0, model_checked = 0, json = 0;
    df_plugin_paths libs = {0};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            puts("usage: dotfuzz list [--names [--model-checked] | --json] [--kernel-lib PATH]...\n\n"
                 "Lists the kernels (name, origin, element and accumulator types,\n"
                 "determinism, block range, whether it takes lengths past 2^31 (--huge),\n"
                 "where they run: host, cuda or both backends, the products a fused step\n"
                 "takes when its accumulation is fused) and the generator families.\n"
                 "--names prints kernel names only, one a line; --model-checked keeps the\n"
                 "deterministic kernels with both a GPU launcher and a host model.\n"
                 "--json prints one JSON object: the kernels (every fused parameter) and\n"
                 "the families.\n"
                 "--kernel-lib PATH loads a plugin's kernels first (repeatable; the ABI is\n"
                 "include/dotfuzz/plugin.h): they are listed after the built-in ones.");
            return DF_OUTCOME_CLEAN;
        } else if (!strcmp(argv[i], "--names")) {
            names = 1;
        } else if (!strcmp(argv[i], "--model-checked")) {
            model_checked = 1;
        } else if (!strcmp(argv[i], "--json")) {
            json = 1;
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
    if (names && json) {
        fprintf(stderr, "dotfuzz list: --names and --json exclude each other\n");
        return DF_OUTCOME_USAGE;
    }
    if (df_load_plugins_cli("list", &libs) != 0)
        return DF_OUTCOME_USAGE;
    if (names)
        list_names(model_checked);
    else if (json)
        list_json();
    else
        list_text();
    return DF_OUTCOME_CLEAN;
}
