/* report_triage.h — what `dotfuzz report` decides about a campaign's
 * findings (report_triage.c): which kernels are mutants, how many distinct
 * bugs the correct kernels and the mutants had, the report's first line,
 * and the findings in the order the worst-cases tables show them. */
#ifndef DOTFUZZ_REPORT_TRIAGE_H
#define DOTFUZZ_REPORT_TRIAGE_H

#include <stddef.h>

#include "fuzz/run/campaign_dir.h"

/* Whether kernel name is a mutant (a known-buggy variant in the registry's
 * mutants): its bugs are expected, and the report keeps it apart. */
int df_report_is_mutant(const char *name);

/* The number of distinct bugs of the correct kernels (mutants 0) or of the
 * mutants (1), by triage's signature (fuzz/run/triage.h: kernel and failure
 * class) over the bugs in findings.jsonl, and one for a kernel whose
 * kernels.tsv row counts bugs none of those lines show. */
size_t df_report_distinct_bugs(const df_campaign_data *c, int mutants);

/* The mutants among c's kernels; *caught of them with a bug (a bug line
 * in findings.jsonl or bugs in kernels.tsv). */
size_t df_report_mutants(const df_campaign_data *c, size_t *caught);

/* The report's first line into buf: "Bugs in correct kernels: none" or
 * "Bugs in correct kernels: N distinct". */
void df_report_answer(const df_campaign_data *c, char *buf, size_t cap);

/* Whether a finding is an expected overflow: a precision verdict of rule
 * overflow (finite inputs whose sum some order may overflow), whose error
 * ratio is infinite and says nothing of the kernel. */
int df_report_is_overflow(const df_logged_finding *f);

/* The findings the worst-cases tables list, crashes and hangs left out
 * (they have a table of their own): the bugs, worst ratio first, then the
 * rest but expected overflows, worst first (*nmain in all, *nbugs of them
 * bugs), then the overflows (*nover). malloc'd; NULL without memory or
 * findings. */
const df_logged_finding **df_report_worst_order(const df_campaign_data *c, size_t *nbugs,
                                                size_t *nmain, size_t *nover);

#endif
