/* campaign_options.c — a campaign's fixed options, DIR/campaign
 * (campaign_options.h): its keys are run's options, written from a new
 * run's and read back on --resume through the same parser as the command
 * line's (options.c); the plugin kernels a campaign began with are checked
 * against those loaded now. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fuzz/run/campaign_options.h"
#include "fuzz/files.h"
#include "fuzz/plugin.h"
#include "fuzz/run/campaign_dir.h"
#include "fuzz/run/select.h"

static const char *save_name(int s)
{
    return s == DF_SAVE_ALL ? "all" : s == DF_SAVE_NONE ? "none" : "new";
}

void df_campaign_options_put(FILE *f, const df_sup *s, const char *cmdline)
{
    const df_run_opts *o = s->o;
    fprintf(f, "# dotfuzz campaign: the options fixed for its whole life (docs/campaigns.md,\n"
               "# \"The directory\"); `dotfuzz run --resume DIR` reads them\n");
    df_kv_put(f, 0, "version", "1");
    df_kv_put(f, 0, "seed", "%llu", (unsigned long long)o->seed);
    df_kv_put(f, 0, "backend", "%s", s->backend);
    df_kv_key(f, 0, "kernels");
    for (size_t k = 0; k < s->nk; k++)
        fprintf(f, "%s%s", k ? "," : "", s->kernels[k]->name);
    fputc('\n', f);
    df_kv_put(f, 0, "max_n", "%llu", (unsigned long long)o->max_n);
    df_kv_put(f, 0, "long_n", "%llu", (unsigned long long)o->long_n);
    if (o->huge) { /* absent: no huge cases */
        df_kv_put(f, 0, "huge_every", "%llu", (unsigned long long)o->huge_every);
        df_kv_put(f, 0, "huge_bytes", "%llu", (unsigned long long)o->huge_bytes);
    }
    df_kv_put(f, 0, "family", "%s", o->family);
    df_kv_put(f, 0, "tol", "%.17g", o->tol);
    df_kv_put(f, 0, "meta_every", "%u", o->meta.every);
    df_kv_put(f, 0, "reruns", "%u", o->meta.reruns);
    if (o->meta.schedule)
        df_kv_put(f, 0, "schedule", "%u", o->meta.schedule);
    df_kv_put(f, 0, "save_precision", "%s",
              o->save_precision == DF_SAVE_NEW ? "worst" : save_name(o->save_precision));
    df_kv_put(f, 0, "save_bugs", "%s", save_name(o->save_bugs));
    df_kv_put(f, 0, "debug_invariants", "%d", o->debug_invariants);
    /* a resume's defaults, which its command line may change */
    df_kv_put(f, 0, "watchdog", "%g", o->watchdog_s);
    if (o->jobs)
        df_kv_put(f, 0, "jobs", "%u", o->jobs);
    for (size_t i = 0; i < o->libs.n; i++)
        df_kv_put(f, 0, "kernel_lib", "%s", o->libs.path[i]);
    char desc[512];
    for (size_t i = 0; df_plugin_describe(i, desc, sizeof desc) == 0; i++)
        df_kv_put(f, 0, "plugin_kernel", "%s", desc);
    df_kv_put(f, 0, "created", "%lld", (long long)time(NULL));
    df_kv_put(f, 0, "command_line", "%s", cmdline);
}

/* A campaign file's keys that are run's options: the same names (with '_'
 * for '-'), read by the same parser (df_run_option), so a value the
 * command line refuses is refused here too. watchdog and jobs are the
 * resume's defaults: its command line may give others. */
static const char *const option_keys[] = {
    "seed", "max_n", "family", "tol", "meta_every", "reruns", "save_precision", "save_bugs",
};

/* What reading DIR/campaign gathers: the options into o, and beside them
 * the recorded lists of kernels and plugin kernels. */
typedef struct reading {
    df_run_opts *o;
    char **kernels, **plugin_kernels;
    unsigned have; /* bit i: option_keys[i]; then backend, kernels */
    int merged;
} reading;

/* One line of DIR/campaign; NULL, or what is wrong with it. */
static const char *campaign_line(reading *rd, const char *key, const char *v)
{
    df_run_opts *o = rd->o;
    char name[32];
    for (size_t i = 0; i < sizeof option_keys / sizeof option_keys[0]; i++)
        if (!strcmp(key, option_keys[i])) {
            snprintf(name, sizeof name, "%s", key);
            for (char *p = name; *p; p++)
                *p = *p == '_' ? '-' : *p;
            char *copy = strdup(v); /* the options point into it for the process's life */
            rd->have |= 1u << i;
            return !copy || df_run_option(o, name, copy) ? "invalid value" : NULL;
        }
    if (!strcmp(key, "version"))
        return strcmp(v, "1") ? "another version" : NULL;
    if (!strcmp(key, "long_n")) /* optional: older campaigns have the default */
        return df_run_option(o, "long-n", v) ? "invalid value" : NULL;
    if (!strcmp(key, "schedule")) { /* optional: written when on */
        char *copy = strdup(v);
        return !copy || df_run_option(o, "schedule", copy) ? "invalid value" : NULL;
    }
    if (!strcmp(key, "huge_every") || !strcmp(key, "huge_bytes")) { /* optional: --huge */
        o->huge = 1;
        return df_run_option(o, strcmp(key, "huge_every") ? "huge-bytes" : "huge-every", v)
                   ? "invalid value" : NULL;
    }
    if (!strcmp(key, "backend")) {
        if (strcmp(v, "cuda") && strcmp(v, "host"))
            return "invalid value";
        o->backend = strdup(v);
        rd->have |= 1u << 8;
        return o->backend ? NULL : "out of memory";
    }
    if (!strcmp(key, "kernels")) {
        free(*rd->kernels);
        *rd->kernels = strdup(v);
        rd->have |= 1u << 9;
        return *rd->kernels && **rd->kernels ? NULL : "invalid value";
    }
    if (!strcmp(key, "debug_invariants")) {
        if (strcmp(v, "0") && strcmp(v, "1"))
            return "invalid value";
        o->debug_invariants = v[0] == '1';
        return NULL;
    }
    if (!strcmp(key, "watchdog") || !strcmp(key, "jobs")) {
        df_run_opts rec = *o;
        char *copy = strdup(v);
        if (!copy || df_run_option(&rec, key, copy))
            return "invalid value";
        if (!strcmp(key, "watchdog") && o->watchdog_s == 0)
            o->watchdog_s = rec.watchdog_s;
        if (!strcmp(key, "jobs") && o->jobs == 0)
            o->jobs = rec.jobs;
        return NULL;
    }
    if (!strcmp(key, "kernel_lib")) {
        char *copy = strdup(v);
        return !copy || df_plugin_paths_add(&o->libs, copy) ? "too many libraries" : NULL;
    }
    if (!strcmp(key, "plugin_kernel"))
        return df_kernel_list_add(rd->plugin_kernels, v) ? "out of memory" : NULL;
    if (!strcmp(key, "merged")) {
        rd->merged = 1;
        return NULL;
    }
    if (!strcmp(key, "created") || !strcmp(key, "command_line") ||
        !strcmp(key, "merged_from"))
        return NULL;
    return "unknown key";
}

int df_campaign_options_read(const char *dir, df_run_opts *o, char **kernels,
                             char **plugin_kernels)
{
    char path[DF_CAMPAIGN_PATH_CAP], msg[200] = "path too long";
    int too_long = df_campaign_join(path, dir, DF_CAMPAIGN_FILE) != 0;
    FILE *f = too_long ? NULL : df_fopen_regular(path, msg, sizeof msg);
    if (!f) {
        fprintf(stderr, "dotfuzz run: %s is not a campaign directory (%s: %s)\n", dir,
                too_long ? DF_CAMPAIGN_FILE : path, msg);
        return -1;
    }
    char line[8192], *key, *val, bad_key[64] = "";
    const char *why = NULL;
    unsigned lineno = 0, bad_line = 0;
    reading rd = {.o = o, .kernels = kernels, .plugin_kernels = plugin_kernels};
    /* every line is read: a merged directory says so wherever its line is */
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *t = line + strspn(line, " \t");
        if (*t == '#' || *t == '\n' || *t == '\0')
            continue;
        const char *w = df_kv_split(line, &key, &val) != 0
                            ? (key = "", "not a 'key : value' line")
                            : campaign_line(&rd, key, val);
        if (w && !why) {
            why = w;
            bad_line = lineno;
            snprintf(bad_key, sizeof bad_key, "%s", key);
        }
    }
    fclose(f);
    if (rd.merged) {
        fprintf(stderr, "dotfuzz run: %s was made by dotfuzz merge: it can be reported, not "
                        "resumed (resume the campaigns it merged)\n", dir);
        return -1;
    }
    const unsigned all = (1u << 10) - 1; /* the option keys, backend, kernels */
    if (why)
        fprintf(stderr, "dotfuzz run: %s: line %u: %s '%s': the campaign file is damaged\n",
                path, bad_line, why, bad_key);
    else if ((rd.have & all) != all)
        fprintf(stderr, "dotfuzz run: %s: incomplete (no seed, kernels, backend or one of "
                        "their options): the campaign file is damaged\n", path);
    if (why || (rd.have & all) != all)
        return -1;
    o->seed_set = 1;
    return 0;
}

/* ---- the plugins ---- */

int df_campaign_plugins_same(const char *dir, const char *recorded)
{
    char *now = NULL, desc[512];
    int rc = 0;
    for (size_t i = 0; rc == 0 && df_plugin_describe(i, desc, sizeof desc) == 0; i++)
        rc = df_kernel_list_add(&now, desc);
    const char *was = recorded ? recorded : "";
    if (rc == 0 && strcmp(now ? now : "", was) != 0) {
        fprintf(stderr, "dotfuzz run: the --kernel-lib kernels changed since %s began "
                        "(was: %s; now: %s): resume with the same libraries\n",
                dir, *was ? was : "none", now ? now : "none");
        rc = -1;
    }
    free(now);
    return rc;
}

void df_campaign_absolute_libs(df_plugin_paths *libs)
{
    for (size_t i = 0; i < libs->n; i++) {
        char *abs = realpath(libs->path[i], NULL);
        if (abs)
            libs->path[i] = abs;
    }
}
