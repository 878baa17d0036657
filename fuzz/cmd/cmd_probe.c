/* cmd_probe.c — `dotfuzz probe`: a float kernel's arithmetic measured
 * (fuzz/run/probe.h) and printed as a card beside what the kernel
 * declares, as text or one JSON object. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/cmd/cli.h"
#include "fuzz/cmd/cli_util.h"
#include "fuzz/json.h"
#include "fuzz/plugin.h"
#include "fuzz/run/probe.h"

typedef struct probe_opts {
    const char *backend;
    const char *kernel;
    df_plugin_paths libs;
    double watchdog_s;
    int json;
} probe_opts;

static void probe_usage(FILE *f)
{
    fputs("usage: dotfuzz probe --kernel NAME [OPTIONS]\n"
          "\n"
          "Measures a float kernel's arithmetic from targeted cases and prints it\n"
          "beside what the kernel declares: the fraction bits its accumulation keeps,\n"
          "how it rounds, whether subnormal inputs and results survive, what NaN and\n"
          "Inf give, whether its result depends on the launch or changes between runs.\n"
          "\n"
          "  --kernel NAME       the kernel (f32 or f64 elements)\n"
          "  --kernel-lib PATH   load kernels from a plugin library (repeatable)\n"
          "  --backend B         cuda, host or auto (default auto)\n"
          "  --watchdog D        a case running longer is a hang (default 10s)\n"
          "  --json              one JSON object instead of the card\n"
          "  -h, --help          this text\n"
          "\n"
          "exit status: 0 the card agrees with the declaration, 1 it contradicts it,\n"
          "2 usage error, 3 backend unavailable\n",
          f);
}

static int parse(int argc, char **argv, probe_opts *o)
{
    enum { OPT_BACKEND = 256, OPT_KERNEL, OPT_KERNEL_LIB, OPT_WATCHDOG, OPT_JSON };
    static const struct option longopts[] = {
        {"backend", required_argument, 0, OPT_BACKEND},
        {"kernel", required_argument, 0, OPT_KERNEL},
        {"kernel-lib", required_argument, 0, OPT_KERNEL_LIB},
        {"watchdog", required_argument, 0, OPT_WATCHDOG},
        {"json", no_argument, 0, OPT_JSON},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    *o = (probe_opts){.backend = "auto"};
    int ch;
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (ch) {
        case 'h': return 1;
        case OPT_BACKEND: o->backend = optarg; break;
        case OPT_KERNEL: o->kernel = optarg; break;
        case OPT_KERNEL_LIB:
            if (df_plugin_paths_add_cli("probe", &o->libs, optarg) != 0)
                return -1;
            break;
        case OPT_WATCHDOG:
            if (df_parse_duration(optarg, &o->watchdog_s) || !(o->watchdog_s > 0)) {
                fprintf(stderr, "dotfuzz probe: invalid value '%s' for --watchdog\n", optarg);
                return -1;
            }
            break;
        case OPT_JSON: o->json = 1; break;
        case ':': df_usage_error("probe", "option %s needs a value", argv[optind - 1]); return -1;
        default: df_usage_error("probe", "unknown option '%s'", argv[optind - 1]); return -1;
        }
    }
    if (optind < argc) {
        df_usage_error("probe", "unexpected argument '%s'", argv[optind]);
        return -1;
    }
    if (!o->kernel) {
        df_usage_error("probe", "%s is required", "--kernel NAME");
        return -1;
    }
    return 0;
}

/* What the kernel declares, in the card's terms: a fused kernel's result
 * bits and rounding, the bits kept below a step's largest term and its
 * group (0: not declared, an IEEE kernel). */
typedef struct declared {
    int acc_bits, product_bits, subnormals, deterministic;
    df_probe_round round;
    int align_bits, group;
} declared;

static declared declared_of(const df_kernel *k)
{
    int acc = df_type_facts_of(k->acc).p - 1, in = df_type_facts_of(k->elem).p - 1;
    declared d = {acc, in < acc ? in : acc, !(k->flags & DF_K_FLUSHES_SUBNORMALS),
                  (k->flags & DF_K_DETERMINISTIC) != 0, DF_PROBE_NEAREST_EVEN, 0, 0};
    if (k->fused) {
        d.acc_bits = k->fused->out_bits;
        d.round = k->fused->out_round == DF_ROUND_ZERO ? DF_PROBE_ZERO : DF_PROBE_NEAREST_EVEN;
        d.align_bits = k->fused->align_bits;
        d.group = (int)k->fused->group;
    }
    return d;
}

static const char *yes_no(int v, const char *yes, const char *no)
{
    return v < 0 ? "unknown" : v ? yes : no;
}

/* The number of the card's findings that contradict the declaration. */
static int contradictions(const df_probe_card *c, const declared *d)
{
    return (c->acc_bits >= 0 && c->acc_bits != d->acc_bits) +
           (c->product_bits >= 0 && c->product_bits != d->product_bits) +
           (c->acc_round != DF_PROBE_UNKNOWN && c->acc_round != d->round) +
           (d->align_bits && c->align_bits > 0 && !c->align_floor &&
            c->align_bits != d->align_bits) +
           (d->group && c->fused_span > 0 && c->fused_span != d->group) +
           (d->subnormals && (c->subnormal_inputs == 0 || c->subnormal_results == 0)) +
           (c->nan_out == 0) + (c->inf_out == 0) + (c->inf_minus_inf == 0) +
           (d->deterministic && c->runs_differ == 1);
}

static void print_card(const df_kernel *k, const df_probe_card *c, const declared *d)
{
    printf("dotfuzz probe: %s (%s elements, %s accumulator), %u cases\n", k->name,
           df_type_name(k->elem), df_type_name(k->acc), c->runs);
    printf("  %-30s %-22s declared\n", "", "measured");
    printf("  %-30s %-22d %d\n", "product fraction bits", c->product_bits, d->product_bits);
    printf("  %-30s %-22d %d\n", "accumulation fraction bits", c->acc_bits, d->acc_bits);
    printf("  %-30s %-22s %s\n", "accumulation rounding", df_probe_round_name(c->acc_round),
           df_probe_round_name(d->round));
    if (df_type_is_lowp(k->elem)) {
        char kept[32], span[32];
        snprintf(kept, sizeof kept, "%s%d", c->align_floor ? ">= " : "", c->align_bits);
        snprintf(span, sizeof span, "%d", c->fused_span);
        printf("  %-30s %-22s %d\n", "bits kept below the largest", kept, d->align_bits);
        printf("  %-30s %-22s %d\n", "elements fused with the first", span, d->group);
    }
    printf("  %-30s %-22s %s\n", "subnormal inputs", yes_no(c->subnormal_inputs, "kept", "flushed"),
           d->subnormals ? "kept" : "may flush");
    printf("  %-30s %-22s %s\n", "subnormal results",
           yes_no(c->subnormal_results, "kept", "flushed"), d->subnormals ? "kept" : "may flush");
    printf("  %-30s %-22s NaN\n", "NaN among ones", yes_no(c->nan_out, "NaN", "not NaN"));
    printf("  %-30s %-22s +Inf\n", "+Inf among ones", yes_no(c->inf_out, "+Inf", "not +Inf"));
    printf("  %-30s %-22s NaN\n", "+Inf and -Inf", yes_no(c->inf_minus_inf, "NaN", "not NaN"));
    char launch[64];
    snprintf(launch, sizeof launch, "%s (%u of %u)", yes_no(c->launch_dependent, "yes", "no"),
             c->launch_results, c->launches);
    printf("  %-30s %-22s -\n", "result depends on the launch", launch);
    printf("  %-30s %-22s %s\n", "five runs differ", yes_no(c->runs_differ, "yes", "no"),
           d->deterministic ? "no" : "may");
}

static void print_json(const df_kernel *k, const df_probe_card *c, const declared *d, int n)
{
    printf("{");
    df_json_stamp(stdout);
    printf(",\"kernel\":");
    df_json_str(stdout, k->name);
    printf(",\"elem\":\"%s\",\"acc\":\"%s\",\"cases\":%u,\"measured\":{\"product_bits\":%d,\"acc_bits\":%d,"
           "\"acc_round\":\"%s\",\"subnormal_inputs\":%d,\"subnormal_results\":%d,"
           "\"nan_out\":%d,\"inf_out\":%d,\"inf_minus_inf\":%d,\"launch_dependent\":%d,"
           "\"launches\":%u,\"launch_results\":%u,\"runs_differ\":%d,\"align_bits\":%d,"
           "\"align_floor\":%d,\"fused_span\":%d},"
           "\"declared\":{\"product_bits\":%d,\"acc_bits\":%d,\"acc_round\":\"%s\",\"subnormals\":%d,"
           "\"deterministic\":%d,\"align_bits\":%d,\"group\":%d},\"contradictions\":%d}\n",
           df_type_name(k->elem), df_type_name(k->acc), c->runs, c->product_bits, c->acc_bits,
           df_probe_round_name(c->acc_round), c->subnormal_inputs, c->subnormal_results,
           c->nan_out, c->inf_out, c->inf_minus_inf, c->launch_dependent, c->launches,
           c->launch_results, c->runs_differ, c->align_bits, c->align_floor, c->fused_span,
           d->product_bits, d->acc_bits, df_probe_round_name(d->round), d->subnormals,
           d->deterministic, d->align_bits, d->group, n);
}

df_outcome df_cmd_probe(int argc, char **argv)
{
    probe_opts o;
    int p = parse(argc, argv, &o);
    if (p > 0) {
        probe_usage(stdout);
        return DF_OUTCOME_CLEAN;
    }
    if (p < 0 || df_load_plugins_cli("probe", &o.libs) != 0)
        return DF_OUTCOME_USAGE;
    const df_kernel *k = df_kernel_find(o.kernel);
    if (!k) {
        fprintf(stderr, "dotfuzz probe: unknown kernel '%s' (see dotfuzz list)\n", o.kernel);
        return DF_OUTCOME_USAGE;
    }
    if (k->elem == DF_I32) {
        fprintf(stderr, "dotfuzz probe: %s is an integer kernel: exact, nothing to probe\n",
                k->name);
        return DF_OUTCOME_USAGE;
    }
    df_sandbox *sb = NULL;
    df_outcome opened = df_sandbox_open("probe", o.backend, 0, o.watchdog_s, &sb);
    if (opened != DF_OUTCOME_CLEAN)
        return opened;
    if (!df_sandbox_supports(sb, k)) {
        fprintf(stderr, "dotfuzz probe: %s cannot run on backend %s\n", k->name,
                df_sandbox_backend(sb));
        df_sandbox_close(sb);
        return DF_OUTCOME_USAGE;
    }
    df_probe_card card;
    int rc = df_probe(sb, k, &card);
    df_sandbox_close(sb);
    if (rc != 0)
        return DF_OUTCOME_ENV;
    declared d = declared_of(k);
    int n = contradictions(&card, &d);
    if (o.json)
        print_json(k, &card, &d, n);
    else
        print_card(k, &card, &d);
    return n ? DF_OUTCOME_BUG : DF_OUTCOME_CLEAN;
}
