/* cmd_minimize.c — `dotfuzz minimize FILE`: its options, the kernel a
 * case is shrunk on, and the minimized case written; the minimizer itself
 * is fuzz/run/minimize.c. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/check/check.h"
#include "fuzz/cmd/cli.h"
#include "fuzz/cmd/cli_util.h"
#include "fuzz/plugin.h"
#include "fuzz/run/minimize.h"
#include "fuzz/run/sandbox.h"
#include "fuzz/run/select.h"

typedef struct min_opts {
    const char *file, *out, *backend;
    const char *kernel;  /* the one kernel --kernel names, once resolved */
    char *kernel_given;  /* the --kernel values joined (select.h) */
    double tol;
    double watchdog_s;   /* 0: by the case's size */
    uint64_t max_tries;
    df_plugin_paths libs;
} min_opts;

static void min_usage(FILE *f)
{
    fputs("usage: dotfuzz minimize FILE [OPTIONS]\n"
          "\n"
          "Shrinks a case that is a bug on its kernel while the same rule keeps\n"
          "firing: removes pairs (halves, quarters, ..., single pairs), replaces\n"
          "values by simpler ones (0, 1, small integers, powers of two), then tries\n"
          "the kernel's default launch. Every attempt is judged as replay judges it\n"
          "(oracle and metamorphic checks).\n"
          "\n"
          "  -o, --output OUT     minimized case file (default FILE.min; written atomically)\n"
          "  --backend B          cuda, host or auto (default auto)\n"
          "  --kernel NAME        kernel to minimize on (needed when FILE names none; the\n"
          "                       list form of the other commands must name one kernel)\n"
          "  --kernel-lib PATH    load kernels from a plugin library (repeatable)\n"
          "  --tol X              relative tolerance of a precision finding (default 1e-6)\n"
          "  --max-tries N        stop after N judged attempts (default 5000)\n"
          "  --watchdog D         an attempt running longer is a hang (bug; default 10s,\n"
          "                       or 400 ns an element of longer cases)\n"
          "  -h, --help           this text\n"
          "\n"
          "exit status: 0 minimized (or no reduction possible), 2 unreadable file or\n"
          "neither a bug nor a soft error on that kernel, 3 backend unavailable or OUT\n"
          "not writable\n",
          f);
}

static int parse_min_opts(int argc, char **argv, min_opts *o)
{
    enum { OPT_BACKEND = 256, OPT_TOL, OPT_KERNEL, OPT_KERNEL_LIB, OPT_MAX_TRIES, OPT_WATCHDOG };
    static const struct option longopts[] = {
        {"output", required_argument, 0, 'o'}, {"backend", required_argument, 0, OPT_BACKEND},
        {"tol", required_argument, 0, OPT_TOL}, {"kernel", required_argument, 0, OPT_KERNEL},
        {"kernel-lib", required_argument, 0, OPT_KERNEL_LIB},
        {"max-tries", required_argument, 0, OPT_MAX_TRIES},
        {"watchdog", required_argument, 0, OPT_WATCHDOG},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
    };
    *o = (min_opts){.backend = "auto", .tol = 1e-6, .max_tries = 5000};
    int ch;
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
        switch (ch) {
        case 'h': return 1;
        case 'o': o->out = optarg; break;
        case OPT_BACKEND: o->backend = optarg; break;
        case OPT_KERNEL:
            if (df_kernel_list_add(&o->kernel_given, optarg) != 0)
                return -1;
            break;
        case OPT_WATCHDOG:
            if (df_parse_watchdog_cli("minimize", optarg, &o->watchdog_s) != 0)
                return -1;
            break;
        case OPT_KERNEL_LIB:
            if (df_plugin_paths_add_cli("minimize", &o->libs, optarg) != 0)
                return -1;
            break;
        case OPT_TOL:
            if (df_parse_tol_cli("minimize", optarg, &o->tol) != 0)
                return -1;
            break;
        case OPT_MAX_TRIES:
            if (df_parse_max_tries_cli("minimize", optarg, &o->max_tries) != 0)
                return -1;
            break;
        case ':':
            df_usage_error("minimize", "option %s needs a value", argv[optind - 1]);
            return -1;
        default: df_usage_error("minimize", "unknown option '%s'", argv[optind - 1]); return -1;
        }
    }
    if (optind != argc - 1) {
        df_usage_error("minimize", "%s", optind >= argc ? "no FILE given" : "more than one FILE");
        return -1;
    }
    o->file = argv[optind];
    if (o->out && df_output_ok_cli("minimize", "-o", o->out) != 0)
        return -1;
    return 0;
}

static void print_state(const char *label, const df_minimizer *st, const df_checked *r)
{
    printf("%s: n=%llu kernel=%s block=%u grid=%u %s (%s): %s\n", label,
           (unsigned long long)st->c.n, st->k->name, st->c.launch.block, st->c.launch.grid,
           df_verdict_name(r->j.verdict), r->j.rule, r->j.why);
}

/* The kernel the case is minimized on (the case's own, or --kernel's for
 * a case that names none). Returns USAGE with a message when there is
 * none. */
static df_outcome pick_kernel(const min_opts *o, const df_case *c, const df_kernel **k)
{
    if (c->kernel[0] && o->kernel && strcmp(c->kernel, o->kernel) != 0) {
        fprintf(stderr, "dotfuzz minimize: %s: names kernel %s, not %s\n", o->file, c->kernel,
                o->kernel);
        return DF_OUTCOME_USAGE;
    }
    const char *name = c->kernel[0] ? c->kernel : o->kernel;
    if (!name) {
        fprintf(stderr, "dotfuzz minimize: %s names no kernel: give --kernel NAME\n", o->file);
        return DF_OUTCOME_USAGE;
    }
    *k = df_kernel_find(name);
    if (!*k || (*k)->elem != c->type) {
        fprintf(stderr, "dotfuzz minimize: %s: no %s kernel named '%s'\n", o->file,
                df_type_name(c->type), name);
        return DF_OUTCOME_USAGE;
    }
    return DF_OUTCOME_CLEAN;
}

static df_outcome write_result(const min_opts *o, const df_minimizer *st)
{
    char def[4096];
    const char *out = o->out;
    if (!out) {
        snprintf(def, sizeof def, "%s.min", o->file);
        out = def;
    }
    if (df_minimizer_write(st, out) != 0) {
        fprintf(stderr, "dotfuzz minimize: cannot write %s\n", out);
        return DF_OUTCOME_ENV;
    }
    printf("wrote %s\n", out);
    return DF_OUTCOME_CLEAN;
}

static df_outcome minimize_case(const min_opts *o, df_sandbox *sb, df_case_file *f)
{
    const df_kernel *k;
    df_outcome pk = pick_kernel(o, &f->c, &k);
    if (pk != DF_OUTCOME_CLEAN)
        return pk;
    if (!df_sandbox_supports(sb, k)) {
        fprintf(stderr, "dotfuzz minimize: kernel %s cannot run on backend %s\n", k->name,
                df_sandbox_backend(sb));
        return DF_OUTCOME_ENV;
    }
    df_minimizer st;
    char why[200];
    if (df_minimizer_init(&st, sb, k, &f->c, o->tol, o->max_tries, why, sizeof why) != 0) {
        fprintf(stderr, "dotfuzz minimize: %s: %s\n", o->file, why);
        return DF_OUTCOME_USAGE;
    }
    size_t bytes = 2 * st.c.n * df_type_size(st.c.type);
    df_outcome out = DF_OUTCOME_CLEAN;
    if (!df_minimizer_judge(&st, &st.c, &st.last)) {
        print_state("before", &st, &st.last);
        fprintf(stderr, "dotfuzz minimize: %s is neither a bug nor a soft error on %s: nothing to "
                "minimize\n",
                o->file, k->name);
        out = st.dead ? DF_OUTCOME_ENV : DF_OUTCOME_USAGE;
    } else {
        st.rule = st.last.j.rule;
        print_state("before", &st, &st.last);
        uint64_t n0 = st.c.n;
        uint8_t *orig = malloc(bytes ? bytes : 1);
        if (orig)
            memcpy(orig, st.buf, bytes);
        df_launch l0 = st.c.launch;
        df_minimize(&st);
        print_state("after", &st, &st.last);
        int same = st.c.n == n0 && orig && !memcmp(orig, st.buf, bytes) &&
                   !memcmp(&l0, &st.c.launch, sizeof l0);
        free(orig);
        printf("%llu attempt(s)%s%s\n", (unsigned long long)st.tries,
               st.tries >= st.max_tries ? " (--max-tries reached)" : "",
               same ? ": no reduction possible" : "");
        out = st.dead ? DF_OUTCOME_ENV : write_result(o, &st);
    }
    df_minimizer_free(&st);
    return out;
}

/* The one kernel --kernel names, into o->kernel. USAGE (said) when the
 * list names another number of kernels or an unknown one. */
static df_outcome one_kernel(min_opts *o)
{
    const df_kernel *ks[4 * DF_KERNEL_SET];
    unsigned char named[4 * DF_KERNEL_SET];
    size_t nk = 0;
    if (df_kernels_of("minimize", o->kernel_given, ks, named, 4 * DF_KERNEL_SET, &nk) != 0)
        return DF_OUTCOME_USAGE;
    if (nk != 1) {
        df_usage_error("minimize", "--kernel '%s' must name one kernel", o->kernel_given);
        return DF_OUTCOME_USAGE;
    }
    o->kernel = ks[0]->name;
    return DF_OUTCOME_CLEAN;
}

/* The output's directory must take a file before any attempt is made. */
static int output_writable(const min_opts *o)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", o->out ? o->out : o->file);
    char *slash = strrchr(dir, '/');
    if (slash)
        slash[slash == dir] = 0; /* "/x" keeps "/" */
    else
        snprintf(dir, sizeof dir, ".");
    return df_dir_writable_cli("minimize", "the output's directory", dir);
}

static df_outcome minimize_file(min_opts *o)
{
    if (df_load_plugins_cli("minimize", &o->libs) != 0)
        return DF_OUTCOME_USAGE;
    if (output_writable(o) != 0)
        return DF_OUTCOME_ENV;
    if (o->kernel_given && one_kernel(o) != DF_OUTCOME_CLEAN)
        return DF_OUTCOME_USAGE;
    df_case_file f;
    char err[512];
    if (df_corpus_read(o->file, &f, err, sizeof err) != DF_CORPUS_OK) {
        fprintf(stderr, "dotfuzz minimize: %s: %s\n", o->file, err);
        return DF_OUTCOME_USAGE;
    }
    df_sandbox *sb;
    df_outcome out = df_sandbox_open("minimize", o->backend, 0, o->watchdog_s, &sb);
    if (out == DF_OUTCOME_CLEAN) {
        out = minimize_case(o, sb, &f);
        df_sandbox_close(sb);
    }
    df_case_file_free(&f);
    return out;
}

df_outcome df_cmd_minimize(int argc, char **argv)
{
    min_opts o;
    int p = parse_min_opts(argc, argv, &o);
    df_outcome out = DF_OUTCOME_USAGE;
    if (p > 0) {
        min_usage(stdout);
        out = DF_OUTCOME_CLEAN;
    } else if (p == 0) {
        out = minimize_file(&o);
    }
    free(o.kernel_given);
    return out;
}
