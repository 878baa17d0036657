/* main.c — dotfuzz: a differential fuzzer for GPU dot-product kernels.
 * This file is only main() and usage(): it dispatches to the subcommands
 * (fuzz/cmd/cmd_*.c) and maps their outcome to the exit status (fuzz/cmd/cli.c).
 *
 * Exit codes: 0 no bug found, 1 bug found, 2 usage or input error,
 * 3 environment error (no usable backend, unwritable corpus).
 */
#include <stdio.h>
#include <string.h>

#include "fuzz/cmd/cli.h"
#include "fuzz/json.h"

static void usage(FILE *f)
{
    fputs("usage: dotfuzz COMMAND [OPTIONS]\n"
          "\n"
          "Differential fuzzing of GPU dot-product kernels against exact and Kahan\n"
          "CPU references.\n"
          "\n"
          "commands:\n"
          "  list        kernels and generator families\n"
          "  run         fuzz kernels with generated cases, save findings to a corpus\n"
          "  replay      rerun saved case files (files or directories) and judge them\n"
          "  import      make a case file from two text files of numbers\n"
          "  minimize    shrink a failing case while the same bug (rule) persists\n"
          "  merge       merge corpora into one directory, one case per distinct finding\n"
          "  triage      a campaign's findings as distinct bugs, each with a minimized\n"
          "              reproducer\n"
          "  report      summarise a campaign directory: report.md (--html: one page), plots\n"
          "  smoke       CI gate: replay the regression corpus, fuzz every kernel briefly,\n"
          "              write JUnit XML and a JSON summary\n"
          "  hunt        detection benchmark: every mutant, ours against seed 000's oracle\n"
          "  probe       a float kernel's arithmetic measured beside what it declares\n"
          "  bandwidth   GPU bandwidth table of every kernel beside cuBLAS and a copy\n"
          "  bench       throughput: seed loop vs the batched harness, references, memory\n"
          "  bench-ref   time the CPU references (exact, exact-int, Kahan, G) on one core\n"
          "\n"
          "Run 'dotfuzz help COMMAND' (or 'dotfuzz COMMAND --help') for a command's\n"
          "options.\n"
          "exit status: 0 no bug found, 1 bug found, 2 usage or input error,\n"
          "             3 environment error (no usable backend, unwritable corpus)\n",
          f);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        df_outcome (*fn)(int, char **);
    } cmds[] = {
        {"list", df_cmd_list},     {"run", df_cmd_run},
        {"replay", df_cmd_replay}, {"import", df_cmd_import},
        {"bandwidth", df_cmd_bandwidth}, {"bench-ref", df_cmd_bench_ref},
        {"bench", df_cmd_bench},
        {"hunt", df_cmd_hunt},     {"probe", df_cmd_probe},
        {"minimize", df_cmd_minimize}, {"merge", df_cmd_merge},
        {"report", df_cmd_report}, {"smoke", df_cmd_smoke},
        {"triage", df_cmd_triage},
    };
    if (argc < 2) {
        usage(stderr);
        return df_exit_code(DF_OUTCOME_USAGE);
    }
    if (!strcmp(argv[1], "help") && argc >= 3) {
        /* `dotfuzz help CMD` is `dotfuzz CMD --help` */
        char *help_argv[] = {argv[2], "--help", NULL};
        for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
            if (!strcmp(argv[2], cmds[i].name))
                return df_exit_code(cmds[i].fn(2, help_argv));
        fprintf(stderr, "dotfuzz help: unknown command '%s' (see dotfuzz --help)\n", argv[2]);
        return df_exit_code(DF_OUTCOME_USAGE);
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return df_exit_code(DF_OUTCOME_CLEAN);
    }
    if (!strcmp(argv[1], "--version")) {
        printf("dotfuzz %s\n", df_version());
        return df_exit_code(DF_OUTCOME_CLEAN);
    }
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (!strcmp(argv[1], cmds[i].name))
            return df_exit_code(cmds[i].fn(argc - 1, argv + 1));
    fprintf(stderr, "dotfuzz: unknown command '%s' (see dotfuzz --help)\n", argv[1]);
    return df_exit_code(DF_OUTCOME_USAGE);
}
