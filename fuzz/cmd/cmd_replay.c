/* cmd_replay.c — `dotfuzz replay FILE|DIR...`: rerun saved cases and judge
 * them again. A case that names a kernel runs on it; one that names none
 * runs on every kernel of its element type that the backend can run. A file
 * that cannot be read gets one line on stderr naming it and the problem,
 * and the replay goes on with the rest. */
#include <math.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz/check/check.h"
#include "fuzz/cmd/cli.h"
#include "fuzz/cmd/cli_util.h"
#include "fuzz/check/metamorphic.h"
#include "fuzz/plugin.h"
#include "fuzz/json.h"
#include "fuzz/run/sandbox.h"
#include "fuzz/run/sanitize.h"
#include "fuzz/run/select.h"

typedef struct replay_opts {
    const char *backend;
    char *kernel;       /* --kernel values joined (select.h): only these kernels */
    double tol;
    int json;
    int debug_invariants;
    double watchdog_s; /* a case running longer is a reproduced hang */
    uint64_t repeat;   /* runs of a case until one is a bug (races show now and then) */
    df_meta_opts meta;
    df_plugin_paths libs; /* --kernel-lib, loaded before --kernel is checked */
    df_sanitizer san;     /* --sanitize: each file again under compute-sanitizer */
} replay_opts;

typedef struct replay_state {
    df_sandbox *sb;
    const replay_opts *o;
    const df_kernel *set[4 * DF_KERNEL_SET]; /* the --kernel list resolved */
    size_t nset;
    df_outcome out;
    int dead; /* no worker process can run cases: stop */
    uint8_t bucket_seen[DF_BUCKETS / 8]; /* error regimes reached (df_error_bucket) */
    uint32_t buckets;
    double worst_ratio;
    const char *worst_kernel;
    uint64_t files, runs, bad_files, verdicts[DF_V_COUNT];
} replay_state;

static void replay_usage(FILE *f)
{
    fputs("usage: dotfuzz replay [OPTIONS] FILE|DIR...\n"
          "\n"
          "Reruns case files (corpus files, libFuzzer artifacts: the same format) and\n"
          "prints each verdict. Directories are read one level deep, in name order.\n"
          "\n"
          "  --backend B          cuda, host or auto (default auto)\n"
          "  --kernel LIST        run on these kernels only, comma-separated, repeatable:\n"
          "                       names, 'all', 'mutants' (files naming another are skipped)\n"
          "  --kernel-lib PATH    load kernels from a plugin library (repeatable; the ABI\n"
          "                       is include/dotfuzz/plugin.h)\n"
          "  --tol X              relative tolerance of a precision finding (default 1e-6)\n"
          "  --json               one JSON object per case and kernel on stdout\n"
          "  --debug-invariants   fold/tournament check their loop invariant (cuda)\n"
          "  --no-meta            skip the metamorphic checks (rerun, negate, scale, permute)\n"
          "  --repeat N           run each case up to N times, until one run is a bug (a\n"
          "                       race, or a schedule finding under its perturbation, shows\n"
          "                       now and then; default 1)\n"
          "  --sanitize TOOL      each file also replayed under compute-sanitizer's TOOL\n"
          "                       (memcheck, racecheck, synccheck, initcheck) in a child\n"
          "                       process: a report is a bug, rule sanitizer\n"
          "  --watchdog DURATION  a case running longer is a reproduced hang (bug, exit 1;\n"
          "                       default 10s, or 400 ns an element of longer cases); a\n"
          "                       case whose kernel crashes or exits is a reproduced crash\n"
          "  -h, --help           this text\n"
          "\n"
          "exit status: 1 if any case is still a bug, else 2 if any file could not be\n"
          "read, else 0; 3 when the backend is unusable\n",
          f);
}

static void replay_on(replay_state *st, const char *path, const df_kernel *k,
                      const df_case *src)
{
    df_case c;
    char why[200];
    df_oracle_opts oo = {.tol = st->o->tol};
    if (df_launch_for(k, src, &c, why, sizeof why) != 0) {
        if (src->kernel[0]) {
            fprintf(stderr, "dotfuzz replay: %s: %s\n", path, why);
            st->out = df_outcome_worst(st->out, DF_OUTCOME_USAGE);
        } else if (!st->o->json) {
            printf("%s  %-13s skipped: %s\n", path, k->name, why);
        }
        return;
    }
    df_checked r;
    for (uint64_t rep = 0; rep < st->o->repeat; rep++) {
        if (df_sandbox_check(st->sb, k, &c, &oo, &st->o->meta, &r) != 0) {
            st->dead = 1;
            st->out = df_outcome_worst(st->out, DF_OUTCOME_ENV);
            return;
        }
        if (r.j.verdict == DF_V_BUG)
            break;
    }
    st->runs++;
    st->verdicts[r.j.verdict]++;
    uint32_t bk = df_error_bucket(k, &r.j);
    if (!(st->bucket_seen[bk / 8] & (1u << (bk % 8)))) {
        st->bucket_seen[bk / 8] |= (uint8_t)(1u << (bk % 8));
        st->buckets++;
    }
    if (isfinite(r.j.err_ratio) && r.j.err_ratio > st->worst_ratio) {
        st->worst_ratio = r.j.err_ratio;
        st->worst_kernel = k->name;
    }
    if (r.j.verdict == DF_V_BUG)
        st->out = df_outcome_worst(st->out, DF_OUTCOME_BUG);
    if (st->o->json)
        df_print_json(stdout, path, &c, k, &r);
    else
        df_print_line(stdout, path, &c, k, &r);
}

/* path replayed again under the sanitizer, in a child process of its own:
 * a report is one more bug, rule sanitizer. */
static void sanitize_file(replay_state *st, const char *path)
{
    const replay_opts *o = st->o;
    char why[300];
    int rc = df_sanitizer_replay(&o->san, df_sandbox_backend(st->sb), o->kernel, &o->libs, path,
                                 why, sizeof why);
    if (rc < 0) {
        fprintf(stderr, "dotfuzz replay: %s: %s\n", path, why);
        st->out = df_outcome_worst(st->out, DF_OUTCOME_ENV);
        st->dead = 1;
        return;
    }
    if (rc == 0)
        return;
    st->runs++;
    st->verdicts[DF_V_BUG]++;
    st->out = df_outcome_worst(st->out, DF_OUTCOME_BUG);
    if (o->json) {
        fputs("{", stdout);
        df_json_stamp(stdout);
        fputs(",\"source\":", stdout);
        df_json_str(stdout, path);
        fprintf(stdout, ",\"verdict\":\"bug\",\"rule\":\"sanitizer\",\"tool\":\"%s\",\"why\":",
                o->san.tool);
        df_json_str(stdout, why);
        fputs("}\n", stdout);
    } else {
        printf("%s  bug sanitizer (%s): %s\n", path, o->san.tool, why);
    }
}

static void replay_file(replay_state *st, const char *path)
{
    df_case_file f;
    char msg[300];
    st->files++;
    df_corpus_err e = df_corpus_read(path, &f, msg, sizeof msg);
    if (e != DF_CORPUS_OK) {
        fprintf(stderr, "dotfuzz replay: %s: %s\n", path, msg);
        st->bad_files++;
        st->out = df_outcome_worst(st->out, DF_OUTCOME_USAGE);
        return;
    }
    const df_kernel *k;
    for (size_t i = 0; (k = df_case_candidate(&f.c, i, st->set, st->nset)) != NULL; i++) {
        if (!f.c.kernel[0] && k->elem != f.c.type)
            continue;
        if (st->dead)
            break;
        if (!df_sandbox_supports(st->sb, k)) {
            if (f.c.kernel[0]) {
                fprintf(stderr, "dotfuzz replay: %s: kernel %s cannot run on backend %s\n",
                        path, k->name, df_sandbox_backend(st->sb));
                st->out = df_outcome_worst(st->out, DF_OUTCOME_ENV);
            }
            continue;
        }
        replay_on(st, path, k, &f.c);
    }
    df_case_file_free(&f);
    if (st->o->san.tool && !st->dead)
        sanitize_file(st, path);
}

/* Every case file of dir (df_corpus_list), in name order. */
static void replay_dir(replay_state *st, const char *dir)
{
    char **names;
    size_t n;
    if (df_corpus_list(dir, &names, &n) != 0) {
        fprintf(stderr, "dotfuzz replay: %s: cannot open directory\n", dir);
        st->out = df_outcome_worst(st->out, DF_OUTCOME_USAGE);
        return;
    }
    for (size_t i = 0; i < n && !st->dead; i++)
        replay_file(st, names[i]);
    df_corpus_list_free(names, n);
}

static int parse_replay_opts(int argc, char **argv, replay_opts *o)
{
    enum { OPT_BACKEND = 256, OPT_TOL, OPT_JSON, OPT_KERNEL, OPT_DEBUG_INV, OPT_NO_META,
           OPT_KERNEL_LIB, OPT_WATCHDOG, OPT_SANITIZE, OPT_REPEAT };
    static const struct option longopts[] = {
        {"backend", required_argument, 0, OPT_BACKEND}, {"tol", required_argument, 0, OPT_TOL},
        {"json", no_argument, 0, OPT_JSON}, {"kernel", required_argument, 0, OPT_KERNEL},
        {"debug-invariants", no_argument, 0, OPT_DEBUG_INV},
        {"no-meta", no_argument, 0, OPT_NO_META},
        {"kernel-lib", required_argument, 0, OPT_KERNEL_LIB},
        {"watchdog", required_argument, 0, OPT_WATCHDOG},
        {"sanitize", required_argument, 0, OPT_SANITIZE},
        {"repeat", required_argument, 0, OPT_REPEAT},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
    };
    *o = (replay_opts){.backend = "auto", .tol = 1e-6, .repeat = 1,
                       .meta = {.every = 1, .reruns = 2}};
    int ch;
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (ch) {
        case 'h': return 1;
        case OPT_BACKEND: o->backend = optarg; break;
        case OPT_KERNEL: /* checked once plugins are loaded */
            if (df_kernel_list_add(&o->kernel, optarg) != 0)
                return -1;
            break;
        case OPT_KERNEL_LIB:
            if (df_plugin_paths_add_cli("replay", &o->libs, optarg) != 0)
                return -1;
            break;
        case OPT_TOL:
            if (df_parse_tol_cli("replay", optarg, &o->tol) != 0)
                return -1;
            break;
        case OPT_JSON: o->json = 1; break;
        case OPT_DEBUG_INV: o->debug_invariants = 1; break;
        case OPT_NO_META: o->meta.every = 0; break;
        case OPT_REPEAT:
            if (df_parse_u64(optarg, &o->repeat) || o->repeat == 0 || o->repeat > 1000000) {
                fprintf(stderr, "dotfuzz replay: invalid value '%s' for --repeat\n", optarg);
                return -1;
            }
            break;
        case OPT_SANITIZE:
            if (df_sanitizer_parse("replay", optarg, &o->san) != 0)
                return -1;
            break;
        case OPT_WATCHDOG:
            if (df_parse_watchdog_cli("replay", optarg, &o->watchdog_s) != 0)
                return -1;
            break;
        case ':': df_usage_error("replay", "option %s needs a value", argv[optind - 1]); return -1;
        default: df_usage_error("replay", "unknown option '%s'", argv[optind - 1]); return -1;
        }
    }
    if (optind >= argc) {
        df_usage_error("replay", "%s", "no FILE or DIR given");
        return -1;
    }
    return 0;
}

df_outcome df_cmd_replay(int argc, char **argv)
{
    replay_opts o;
    int p = parse_replay_opts(argc, argv, &o);
    if (p != 0) {
        free(o.kernel);
        if (p > 0)
            replay_usage(stdout);
        return p > 0 ? DF_OUTCOME_CLEAN : DF_OUTCOME_USAGE;
    }
    replay_state st = {.o = &o, .out = DF_OUTCOME_CLEAN};
    unsigned char named[sizeof st.set / sizeof st.set[0]];
    if (df_load_plugins_cli("replay", &o.libs) != 0 ||
        (o.kernel && df_kernels_of("replay", o.kernel, st.set, named,
                                   sizeof st.set / sizeof st.set[0], &st.nset) != 0)) {
        free(o.kernel);
        return DF_OUTCOME_USAGE;
    }
    df_outcome opened =
        df_sandbox_open("replay", o.backend, o.debug_invariants, o.watchdog_s, &st.sb);
    if (opened != DF_OUTCOME_CLEAN) {
        free(o.kernel);
        return opened;
    }
    if (o.debug_invariants && strcmp(df_sandbox_backend(st.sb), "cuda") != 0) {
        fprintf(stderr, "dotfuzz replay: --debug-invariants has no effect on backend %s (the "
                        "GPU kernels check their invariants)\n", df_sandbox_backend(st.sb));
        df_sandbox_close(st.sb);
        free(o.kernel);
        return DF_OUTCOME_USAGE;
    }
    fprintf(stderr, "dotfuzz replay: %s\n", df_sandbox_note(st.sb));
    for (int i = optind; i < argc && !st.dead; i++) {
        struct stat sb;
        if (stat(argv[i], &sb) == 0 && S_ISDIR(sb.st_mode))
            replay_dir(&st, argv[i]);
        else
            replay_file(&st, argv[i]);
    }
    fflush(stdout); /* the files' lines before the summary, on one terminal or pipe */
    fprintf(stderr,
            "dotfuzz replay: %llu file(s), %llu unreadable, %llu run(s): ok %llu, "
            "precision %llu, bug %llu; %u distinct error buckets, worst ratio %.3g (%s)\n",
            (unsigned long long)st.files, (unsigned long long)st.bad_files,
            (unsigned long long)st.runs, (unsigned long long)st.verdicts[DF_V_OK],
            (unsigned long long)st.verdicts[DF_V_PRECISION],
            (unsigned long long)st.verdicts[DF_V_BUG], st.buckets, st.worst_ratio,
            st.worst_kernel ? st.worst_kernel : "-");
    df_sandbox_close(st.sb);
    free(o.kernel);
    return st.out;
}
