/* cmd_hunt.c — `dotfuzz hunt`: the detection benchmark. Every mutant the
 * backend can run is fuzzed until our oracle and seed 000's oracle (relative
 * error > tol alone) have each flagged it, or the budget runs out; every
 * correct kernel gets the same budget, and each oracle's alarms on it are
 * counted as false alarms. One line (or Markdown row) per kernel.
 *
 * A kernel's budget goes in two phases: half to cases one at a time in the
 * sandbox (sandbox.h), each also rerun under a perturbed schedule, where a
 * crash or a hang is caught at once; the rest, if a mutant is still not
 * caught, to cases at run's pace (hunt_batched.h), where a bug that shows
 * once in thousands of cases, or only among launches in flight together,
 * is met. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/check/check.h"
#include "fuzz/cmd/cli.h"
#include "fuzz/cmd/cli_util.h"
#include "fuzz/gen/generator.h"
#include "fuzz/check/metamorphic.h"
#include "fuzz/json.h"
#include "fuzz/run/hunt_batched.h"
#include "fuzz/run/run.h"
#include "fuzz/plugin.h"
#include "fuzz/run/sandbox.h"
#include "fuzz/run/select.h"

/* The watchdog's floor: a hang found sooner is what hunt measures, and a
 * correct case (references, run, metamorphic and schedule checks) takes
 * milliseconds; longer cases get 400 ns an element, as everywhere. */
#define HUNT_WATCHDOG_FLOOR 3.0

typedef struct hunt_opts {
    const char *backend;
    char *kernel;      /* --kernel values joined (select.h); NULL: every mutant and kernel */
    df_plugin_paths libs;
    uint64_t cases;   /* budget per kernel, 0: none */
    double time_s;    /* budget per kernel, 0: none */
    int batched;      /* the second phase: cases at run's pace */
    uint64_t seed;
    uint64_t max_n;
    uint64_t long_n;   /* df_gen_opts.long_n */
    uint64_t long_every; /* df_gen_opts.long_every */
    uint64_t schedule; /* df_meta_opts.schedule */
    int huge;          /* --huge: huge cases for the kernels that take them */
    uint64_t huge_every, huge_bytes; /* df_gen_opts' */
    double tol;
    double watchdog_s; /* 0: by the case's size (df_watchdog_for) */
    int markdown;
    int json;          /* --json: one JSON document on stdout, no text */
} hunt_opts;

typedef struct hunt_row {
    const df_kernel *k;
    int mutant;
    uint64_t cases;
    df_detection ours, seed;
    uint64_t our_alarms, seed_alarms; /* correct kernels: false alarms */
} hunt_row;

static void hunt_usage(FILE *f)
{
    fputs("usage: dotfuzz hunt [OPTIONS]\n"
          "\n"
          "Fuzzes every mutant (known-buggy kernel) the backend can run until this oracle\n"
          "and seed 000's oracle (relative error > tol alone) have each flagged it, then\n"
          "every correct kernel for the same budget, counting false alarms.\n"
          "\n"
          "  --backend B     cuda, host or auto (default auto)\n"
          "  --kernel LIST   these kernels only, comma-separated, repeatable: names, 'all'\n"
          "                  (the correct ones, plugins included), 'mutants' (default both)\n"
          "  --kernel-lib P  load kernels from a plugin library (repeatable): correct\n"
          "                  kernels, counted for false alarms\n"
          "  --cases N       case budget per kernel (default: none, --time alone)\n"
          "  --time D        time budget per kernel (default 10s; 0: --cases alone)\n"
          "                  half of each goes to cases one at a time, every case also\n"
          "                  rerun under a perturbed schedule; the rest, while a mutant\n"
          "                  is not caught, to cases in batches at run's pace\n"
          "  --no-batched    the whole budget one case at a time\n"
          "  --seed S        seed (default 1)\n"
          "  --max-n N       longest vector (default 65536)\n"
          "  --long-n N      every --long-every-th case is long instead: n in [2^21 + 1, N]\n"
          "                  (default 4194304; 0: none)\n"
          "  --long-every N  one case in N is long (default 1024; run's is 16384)\n"
          "  --schedule N    rerun one case in N under a perturbed schedule (default 1; 0: off;\n"
          "                  in the batches one in 16 at most)\n"
          "  --huge          cuda: every --huge-every-th case of a kernel that takes\n"
          "                  lengths past 2^31 is huge, n in [2^31 + 1, 2^31 + 2^26];\n"
          "                  without it, mutants whose bug needs them are skipped\n"
          "  --huge-every N  with --huge: case N, 2N, ... is huge (default 16)\n"
          "  --huge-bytes B  with --huge: the most a huge case's two vectors take\n"
          "                  (default 17G: every f32 kernel, no f64 one; 33G: both)\n"
          "  --tol X         tolerance of both oracles' precision rule (default 1e-6)\n"
          "  --watchdog D    a case running longer is a hang: caught as a bug (default 3s,\n"
          "                  or 400 ns an element of longer cases)\n"
          "  --markdown      a Markdown table instead of aligned text\n"
          "  --json          one JSON object instead of the text (docs/output-formats.md)\n"
          "  -h, --help      this text\n"
          "\n"
          "exit status: 0 every mutant caught by this oracle and no false alarm on a correct\n"
          "kernel (a skipped one counts as neither); 1 otherwise; 2 usage error; 3 backend\n"
          "unavailable\n",
          f);
}

static int parse_hunt_opts(int argc, char **argv, hunt_opts *o)
{
    enum { OPT_BACKEND = 256, OPT_SEED, OPT_MAXN, OPT_TOL, OPT_MD, OPT_WATCHDOG, OPT_KERNEL,
           OPT_KERNEL_LIB, OPT_LONGN, OPT_SCHEDULE, OPT_HUGE, OPT_HUGE_EVERY, OPT_HUGE_BYTES,
           OPT_LONG_EVERY, OPT_JSON, OPT_NO_BATCHED };
    static const struct option longopts[] = {
        {"backend", required_argument, 0, OPT_BACKEND}, {"cases", required_argument, 0, 'c'},
        {"time", required_argument, 0, 't'}, {"seed", required_argument, 0, OPT_SEED},
        {"max-n", required_argument, 0, OPT_MAXN}, {"tol", required_argument, 0, OPT_TOL},
        {"long-n", required_argument, 0, OPT_LONGN},
        {"long-every", required_argument, 0, OPT_LONG_EVERY},
        {"schedule", required_argument, 0, OPT_SCHEDULE}, {"huge", no_argument, 0, OPT_HUGE},
        {"huge-every", required_argument, 0, OPT_HUGE_EVERY},
        {"huge-bytes", required_argument, 0, OPT_HUGE_BYTES},
        {"markdown", no_argument, 0, OPT_MD}, {"json", no_argument, 0, OPT_JSON},
        {"no-batched", no_argument, 0, OPT_NO_BATCHED},
        {"watchdog", required_argument, 0, OPT_WATCHDOG},
        {"kernel", required_argument, 0, OPT_KERNEL},
        {"kernel-lib", required_argument, 0, OPT_KERNEL_LIB},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
    };
    *o = (hunt_opts){.backend = "auto", .time_s = 10, .batched = 1, .seed = 1,
                     .max_n = 65536, .long_n = DF_GEN_LONG_DEFAULT, .long_every = 1024, .schedule = 1,
                     .huge_every = 16, .huge_bytes = DF_GEN_HUGE_BYTES_DEFAULT, .tol = 1e-6};
    const char *with_huge = NULL; /* --huge-every or --huge-bytes, given */
    int ch;
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        const char *bad = NULL;
        switch (ch) {
        case 'h': return 1;
        case OPT_BACKEND: o->backend = optarg; break;
        case 'c': if (df_parse_u64(optarg, &o->cases)) bad = "--cases"; break;
        case 't': if (df_parse_duration(optarg, &o->time_s)) bad = "--time"; break;
        case OPT_SEED: if (df_parse_u64(optarg, &o->seed)) bad = "--seed"; break;
        case OPT_MAXN: if (df_parse_u64(optarg, &o->max_n) || !o->max_n) bad = "--max-n"; break;
        case OPT_LONGN:
            if (df_parse_u64(optarg, &o->long_n) ||
                (o->long_n && (o->long_n < DF_GEN_LONG_MIN || o->long_n > DF_CORPUS_MAX_N)))
                bad = "--long-n";
            break;
        case OPT_LONG_EVERY:
            if (df_parse_u64(optarg, &o->long_every) || o->long_every == 0 ||
                o->long_every > 0xffffffffu)
                bad = "--long-every";
            break;
        case OPT_SCHEDULE:
            if (df_parse_u64(optarg, &o->schedule) || o->schedule > 0xffffffffu)
                bad = "--schedule";
            break;
        case OPT_HUGE: o->huge = 1; break;
        case OPT_HUGE_EVERY:
            with_huge = "--huge-every";
            if (df_parse_u64(optarg, &o->huge_every) || !o->huge_every)
                bad = "--huge-every";
            break;
        case OPT_HUGE_BYTES:
            with_huge = "--huge-bytes";
            if (df_parse_u64(optarg, &o->huge_bytes))
                bad = "--huge-bytes";
            break;
        case OPT_TOL: if (df_parse_double(optarg, &o->tol) || o->tol < 0) bad = "--tol"; break;
        case OPT_MD: o->markdown = 1; break;
        case OPT_JSON: o->json = 1; break;
        case OPT_NO_BATCHED: o->batched = 0; break;
        case OPT_KERNEL:
            if (df_kernel_list_add(&o->kernel, optarg) != 0)
                bad = "--kernel";
            break;
        case OPT_KERNEL_LIB:
            if (df_plugin_paths_add_cli("hunt", &o->libs, optarg) != 0)
                return -1;
            break;
        case OPT_WATCHDOG:
            if (df_parse_duration(optarg, &o->watchdog_s) || !(o->watchdog_s > 0))
                bad = "--watchdog";
            break;
        case ':': df_usage_error("hunt", "option %s needs a value", argv[optind - 1]); return -1;
        default: df_usage_error("hunt", "unknown option '%s'", argv[optind - 1]); return -1;
        }
        if (bad) {
            fprintf(stderr, "dotfuzz hunt: invalid value '%s' for %s\n", optarg, bad);
            return -1;
        }
    }
    if (optind < argc) {
        df_usage_error("hunt", "unexpected argument '%s'", argv[optind]);
        return -1;
    }
    if (o->cases == 0 && o->time_s == 0) {
        df_usage_error("hunt", "%s", "--cases 0 and --time 0 leave no budget: give one");
        return -1;
    }
    if (o->json && o->markdown) {
        df_usage_error("hunt", "%s and --markdown are two outputs: give one", "--json");
        return -1;
    }
    if (with_huge && !o->huge) {
        fprintf(stderr, "dotfuzz hunt: %s has no effect without --huge\n", with_huge);
        return -1;
    }
    if (o->huge && df_huge_refused("hunt", NULL, 0, o->huge_bytes, o->backend) != 0)
        return -1;
    return 0;
}

/* Whether the row's mutant is caught by both oracles (df_hunt_caught). */
static int caught(const hunt_row *row)
{
    return df_hunt_caught(row->mutant, &row->ours, &row->seed);
}

/* The first phase: cases 0, 1, ... one at a time in the sandbox, each
 * rerun under a perturbed schedule (--schedule), until the mutant is
 * caught, `cases` have run (0: no limit) or t0 + time_s (time_s 0: none).
 * Returns -1 when no worker process could run a case. */
static int one_at_a_time(df_sandbox *sb, const hunt_opts *o, hunt_row *row, df_scratch *buf,
                         uint64_t cases, double t0, double time_s)
{
    df_gen_opts go = {.max_n = o->max_n, .long_n = o->long_n,
                      .long_every = (uint32_t)o->long_every};
    if (o->huge) { /* one kernel: case i is huge when i % huge_every == huge_every - 1 */
        go.huge_every = o->huge_every;
        go.huge_bytes = o->huge_bytes;
        go.cycle = 1;
        go.huge_mask = df_gen_huge_limit(row->k, o->huge_bytes) ? 1 : 0;
    }
    df_oracle_opts oo = {.tol = o->tol};
    df_meta_opts mo = {.every = 16, .reruns = 2, .schedule = (uint32_t)o->schedule};
    for (uint64_t i = 0; !cases || i < cases; i++) {
        double t = df_now() - t0;
        if ((time_s > 0 && t >= time_s) || caught(row))
            break;
        df_case c;
        df_checked r;
        if (df_sandbox_generate(sb, o->seed, i, row->k, &go, buf, &c) != 0)
            return -1;
        if (df_sandbox_check(sb, row->k, &c, &oo, &mo, &r) != 0)
            return -1;
        row->cases = i + 1;
        t = df_now() - t0;
        if (r.j.verdict == DF_V_BUG) {
            row->our_alarms++;
            df_detection_note(&row->ours, i + 1, t, r.j.rule, 0);
        }
        if (df_seed_oracle_alarm(&r.j, o->tol)) {
            row->seed_alarms++;
            df_detection_note(&row->seed, i + 1, t, "rel-err", 0);
        }
    }
    return 0;
}

/* The batches' schedule sampling: one case in --schedule's N, but one in
 * this many at most (a perturbed rerun costs the batch its pace). */
#define HUNT_BATCH_SCHEDULE 16

/* Fuzzes one kernel within the budget: half of it one case at a time, the
 * rest in batches (hunt_batched.h) unless the mutant is caught by then or
 * --no-batched. Mutants stop once both oracles have flagged them; correct
 * kernels run the whole budget. Returns -1 when no worker process could
 * run a case (the row keeps what was seen). */
static int hunt_kernel(df_sandbox *sb, const hunt_opts *o, hunt_row *row, df_scratch *buf)
{
    double t0 = df_now();
    uint64_t first_cases = o->batched && o->cases ? (o->cases + 1) / 2 : o->cases;
    double first_time = o->batched ? o->time_s / 2 : o->time_s;
    if (one_at_a_time(sb, o, row, buf, first_cases, t0, first_time) != 0)
        return -1;
    double left_s = o->time_s > 0 ? t0 + o->time_s - df_now() : 0;
    uint64_t left_cases = o->cases ? o->cases - row->cases : 0;
    if (!o->batched || caught(row) || (o->time_s > 0 && left_s < 0.5) ||
        (o->cases && left_cases == 0))
        return 0;
    uint32_t every = (uint32_t)o->schedule;
    df_hunt_batch h = {
        .backend = df_sandbox_backend(sb), .note = df_sandbox_note(sb), .k = row->k,
        .mutant = row->mutant, .seed = o->seed, .first = row->cases, .cases = left_cases,
        .time_s = left_s, .t0 = t0, .max_n = o->max_n, .long_n = o->long_n, .huge = o->huge,
        .huge_every = o->huge_every, .huge_bytes = o->huge_bytes, .tol = o->tol,
        .watchdog_s = o->watchdog_s,
        .schedule = every && every < HUNT_BATCH_SCHEDULE ? HUNT_BATCH_SCHEDULE : every,
        .ours = row->ours, .seed_000 = row->seed};
    int rc = df_hunt_batched(&h);
    row->cases += h.ran;
    row->our_alarms += h.bugs;
    row->seed_alarms += h.alarms;
    row->ours = h.ours;
    row->seed = h.seed_000;
    return rc;
}

/* The rule of a detection as printed: its name, "(batched)" after it when
 * the second phase made it. */
static const char *rule_text(const df_detection *d, char *out, size_t len)
{
    snprintf(out, len, "%s%s", d->found ? d->rule : "-", d->batched ? " (batched)" : "");
    return out;
}

static void detection_text(const df_detection *d, char *out, size_t len)
{
    char rule[40];
    if (d->found)
        snprintf(out, len, "yes %7llu cases %7.3f s %-10s", (unsigned long long)d->cases,
                 d->seconds, rule_text(d, rule, sizeof rule));
    else
        snprintf(out, len, "NO  %-35s", "");
}

static void print_row(const hunt_opts *o, const hunt_row *row)
{
    if (o->markdown) {
        char rule[40];
        if (row->mutant)
            printf("| %s | mutant | %llu | %s | %llu | %.3f | %s | %s | %llu | %.3f |\n",
                   row->k->name, (unsigned long long)row->cases, row->ours.found ? "yes" : "**no**",
                   (unsigned long long)row->ours.cases, row->ours.seconds,
                   rule_text(&row->ours, rule, sizeof rule), row->seed.found ? "yes" : "no",
                   (unsigned long long)row->seed.cases, row->seed.seconds);
        else
            printf("| %s | correct | %llu | false alarms: %llu | | | | false alarms: %llu | | |\n",
                   row->k->name, (unsigned long long)row->cases,
                   (unsigned long long)row->our_alarms, (unsigned long long)row->seed_alarms);
        return;
    }
    if (row->mutant) {
        char ours[80], seed[80];
        detection_text(&row->ours, ours, sizeof ours);
        detection_text(&row->seed, seed, sizeof seed);
        printf("  %-20s mutant  ours: %s seed's: %s\n", row->k->name, ours, seed);
    } else {
        printf("  %-20s correct %llu cases, false alarms: ours %llu, seed's %llu\n",
               row->k->name, (unsigned long long)row->cases,
               (unsigned long long)row->our_alarms, (unsigned long long)row->seed_alarms);
    }
}

/* An oracle's first detection as a JSON object: caught, and where it was
 * caught (cases, seconds, rule, phase) or null. */
static void detection_json(FILE *f, const df_detection *d)
{
    fprintf(f, "{\"caught\":%s", d->found ? "true" : "false");
    if (d->found) {
        fprintf(f, ",\"cases\":%llu,", (unsigned long long)d->cases);
        df_json_member(f, "seconds", d->seconds);
        fputs(",\"rule\":", f);
        df_json_str(f, d->rule);
        fprintf(f, ",\"phase\":\"%s\"", d->batched ? "batched" : "one-at-a-time");
    } else {
        fputs(",\"cases\":null,\"seconds\":null,\"rule\":null,\"phase\":null", f);
    }
    fputc('}', f);
}

/* A kernel's member of the "kernels" array (after the first, a comma
 * first): hunted, with its figures, or skipped, with why. */
static void row_json(FILE *f, const hunt_row *row, const char *skipped, int first)
{
    fprintf(f, "%s{\"kernel\":", first ? "" : ",");
    df_json_str(f, row->k->name);
    fprintf(f, ",\"kind\":\"%s\",\"ran\":%s", row->mutant ? "mutant" : "correct",
            skipped ? "false" : "true");
    if (skipped) {
        fputs(",\"skipped\":", f);
        df_json_str(f, skipped);
    } else if (row->mutant) {
        fprintf(f, ",\"cases\":%llu,\"ours\":", (unsigned long long)row->cases);
        detection_json(f, &row->ours);
        fputs(",\"seed_000\":", f);
        detection_json(f, &row->seed);
    } else {
        fprintf(f, ",\"cases\":%llu,\"false_alarms\":{\"ours\":%llu,\"seed_000\":%llu}",
                (unsigned long long)row->cases, (unsigned long long)row->our_alarms,
                (unsigned long long)row->seed_alarms);
    }
    fputc('}', f);
}

/* The whole document: the stamp, the options, kernels (the rows made by
 * row_json), the totals. */
static void print_json(const hunt_opts *o, const df_sandbox *sb, const char *rows,
                       unsigned escaped, unsigned false_alarms, unsigned skipped, int complete)
{
    printf("{");
    df_json_stamp(stdout);
    printf(",\"command\":\"hunt\",\"backend\":");
    df_json_str(stdout, df_sandbox_backend(sb));
    printf(",\"backend_note\":");
    df_json_str(stdout, df_sandbox_note(sb));
    printf(",\"seed\":");
    df_json_u64(stdout, o->seed);
    if (o->cases)
        printf(",\"budget\":{\"cases\":%llu,", (unsigned long long)o->cases);
    else
        printf(",\"budget\":{\"cases\":null,");
    df_json_member(stdout, "seconds", o->time_s);
    printf(",\"batched\":%s},\"max_n\":%llu,", o->batched ? "true" : "false",
           (unsigned long long)o->max_n);
    df_json_member(stdout, "tol", o->tol);
    printf(",\"huge\":%s,\"kernels\":[%s],\"escaped\":%u,\"false_alarms\":%u,"
           "\"skipped\":%u,\"complete\":%s}\n",
           o->huge ? "true" : "false", rows ? rows : "", escaped, false_alarms, skipped,
           complete ? "true" : "false");
}

static void print_header(const hunt_opts *o, const df_sandbox *sb)
{
    char cases[32] = "no case limit", secs[32] = "no time limit";
    if (o->cases)
        snprintf(cases, sizeof cases, "%llu cases", (unsigned long long)o->cases);
    if (o->time_s > 0)
        snprintf(secs, sizeof secs, "%g s", o->time_s);
    printf("dotfuzz hunt: %s; seed %llu, budget %s or %s per kernel (%s), max-n %llu, "
           "tol %g\n",
           df_sandbox_note(sb), (unsigned long long)o->seed, cases, secs,
           o->batched ? "half one case at a time, the rest in batches" : "one case at a time",
           (unsigned long long)o->max_n, o->tol);
    if (o->huge)
        printf("dotfuzz hunt: case %llu, %llu, ... of each kernel that takes lengths past "
               "2^31 is huge, up to %llu bytes\n", (unsigned long long)o->huge_every,
               2 * (unsigned long long)o->huge_every, (unsigned long long)o->huge_bytes);
    if (o->markdown)
        printf("\n| kernel | kind | cases run | ours: caught | cases to first | seconds to "
               "first | rule | seed 000's: caught | cases to first | seconds to first |\n"
               "|---|---|--:|---|--:|--:|---|---|--:|--:|\n");
}

static int is_mutant(const df_kernel *k)
{
    for (size_t i = 0; i < df_mutant_count(); i++)
        if (df_mutant_at(i) == k)
            return 1;
    return 0;
}

/* The kernels hunt runs: --kernel's, else every mutant then every correct
 * kernel (plugins' included). 0, or -1 (said). */
static int hunt_kernels(const hunt_opts *o, const df_kernel **ks, size_t cap, size_t *nk)
{
    unsigned char named[4 * DF_KERNEL_SET];
    return df_kernels_of("hunt", o->kernel ? o->kernel : "mutants,all", ks, named,
                         cap < sizeof named ? cap : sizeof named, nk);
}

/* Why row's kernel is not hunted on backend, or NULL: it cannot run there,
 * its bug lives in GPU scheduling and the backend is host, or it lives
 * past 2^31 elements and there are no huge cases for it. */
static const char *skip_reason(df_sandbox *sb, const hunt_opts *o, const hunt_row *row,
                               const char *backend)
{
    if (!df_sandbox_supports(sb, row->k))
        return "cannot run";
    if (row->mutant && (row->k->flags & DF_K_HOST_BLIND) && strcmp(backend, "host") == 0)
        return "its bug cannot show";
    if (row->mutant && (row->k->flags & DF_K_HUGE_ONLY) &&
        (!o->huge || !df_gen_huge_limit(row->k, o->huge_bytes)))
        return "its bug needs lengths past 2^31 (--huge, cuda)";
    return NULL;
}

/* The kernels hunt skips, by reason: said once at the end, a line a reason,
 * not a line a kernel. */
#define HUNT_SKIP_REASONS 8
typedef struct hunt_skips {
    const char *why[HUNT_SKIP_REASONS];
    char names[HUNT_SKIP_REASONS][2048];
    size_t n;
} hunt_skips;

static void skips_add(hunt_skips *sk, const char *why, const char *name)
{
    size_t r = 0;
    while (r < sk->n && strcmp(sk->why[r], why) != 0)
        r++;
    if (r == HUNT_SKIP_REASONS)
        r--; /* more reasons than slots: the last slot's line names them all */
    else if (r == sk->n)
        sk->why[sk->n++] = why;
    char *l = sk->names[r];
    size_t used = strlen(l);
    if (used + strlen(name) + 3 < sizeof sk->names[r])
        snprintf(l + used, sizeof sk->names[r] - used, "%s%s", used ? ", " : "", name);
}

static void skips_print(const hunt_skips *sk, const char *backend)
{
    for (size_t r = 0; r < sk->n; r++)
        fprintf(stderr, "dotfuzz hunt: skipped on backend %s, %s: %s\n", backend, sk->why[r],
                sk->names[r]);
}

static df_outcome hunt(hunt_opts *o)
{
    const df_kernel *ks[4 * DF_KERNEL_SET];
    size_t nks = 0;
    if (df_load_plugins_cli("hunt", &o->libs) != 0 ||
        hunt_kernels(o, ks, sizeof ks / sizeof ks[0], &nks) != 0 ||
        (o->huge && df_huge_refused("hunt", ks, nks, o->huge_bytes, NULL) != 0))
        return DF_OUTCOME_USAGE;
    df_sandbox *sb = NULL;
    df_outcome opened = df_sandbox_open("hunt", o->backend, 0, o->watchdog_s, &sb);
    if (opened != DF_OUTCOME_CLEAN)
        return opened;
    df_sandbox_set_watchdog_floor(sb, HUNT_WATCHDOG_FLOOR);
    if (o->huge &&
        df_huge_refused("hunt", NULL, 0, o->huge_bytes, df_sandbox_backend(sb)) != 0) {
        df_sandbox_close(sb);
        return DF_OUTCOME_USAGE;
    }
    /* --json: the rows gather in memory, the document is printed whole */
    char *rows = NULL;
    size_t rows_len = 0;
    FILE *js = o->json ? open_memstream(&rows, &rows_len) : NULL;
    if (o->json && !js) {
        fprintf(stderr, "dotfuzz hunt: out of memory\n");
        df_sandbox_close(sb);
        return DF_OUTCOME_ENV;
    }
    if (!o->json)
        print_header(o, sb);
    const char *backend = df_sandbox_backend(sb);
    df_scratch buf = {0};
    hunt_skips sk = {0};
    unsigned escaped = 0, false_alarms = 0, skipped = 0, nrows = 0;
    df_outcome out = DF_OUTCOME_CLEAN;
    for (size_t i = 0; i < nks && out == DF_OUTCOME_CLEAN; i++) {
        hunt_row row = {.k = ks[i], .mutant = is_mutant(ks[i])};
        const char *why = skip_reason(sb, o, &row, backend);
        if (why) {
            skipped++;
            if (js)
                row_json(js, &row, why, nrows++ == 0);
            else
                skips_add(&sk, why, row.k->name);
            continue;
        }
        if (hunt_kernel(sb, o, &row, &buf) != 0)
            out = DF_OUTCOME_ENV;
        if (js) {
            row_json(js, &row, NULL, nrows++ == 0);
        } else {
            print_row(o, &row);
            fflush(stdout);
        }
        escaped += row.mutant && !row.ours.found;
        false_alarms += !row.mutant && row.our_alarms > 0;
    }
    if (js) {
        int ok = fclose(js) == 0;
        if (ok)
            print_json(o, sb, rows, escaped, false_alarms, skipped, out == DF_OUTCOME_CLEAN);
        else
            fprintf(stderr, "dotfuzz hunt: out of memory\n");
        free(rows);
        out = ok ? out : DF_OUTCOME_ENV;
    } else {
        printf("%s%u mutant(s) escaped this oracle, %u correct kernel(s) with false alarms, "
               "%u kernel(s) skipped on backend %s\n",
               o->markdown ? "\n" : "dotfuzz hunt: ", escaped, false_alarms, skipped, backend);
    }
    skips_print(&sk, backend);
    df_scratch_free(&buf);
    df_sandbox_close(sb);
    if (out == DF_OUTCOME_CLEAN && (escaped || false_alarms))
        out = DF_OUTCOME_BUG;
    return out;
}

df_outcome df_cmd_hunt(int argc, char **argv)
{
    hunt_opts o;
    int p = parse_hunt_opts(argc, argv, &o);
    df_outcome out = DF_OUTCOME_USAGE;
    if (p > 0) {
        hunt_usage(stdout);
        out = DF_OUTCOME_CLEAN;
    } else if (p == 0) {
        out = hunt(&o);
    }
    free(o.kernel);
    return out;
}
