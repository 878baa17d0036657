/* main_hooks.c — prints the run's totals as one plain line that CI reads:
 * "N passed, N failed" (crashed tests count as failed). */
#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <stdio.h>

ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
    fflush(stdout);
    fprintf(stderr, "%zu passed, %zu failed\n", stats->tests_passed,
            stats->tests_failed + stats->tests_crashed);
}
