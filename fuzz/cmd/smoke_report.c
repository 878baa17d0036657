/* smoke_report.c — what `dotfuzz smoke` tells: the summary on stdout and
 * the two reports CI systems read, a JUnit XML report (a test suite for the
 * regression corpus and one for each seed, a test case per replayed
 * (file, kernel) and per fuzzed kernel; the names the same whatever the
 * seeds, which are properties, so that a dashboard keeps each test's
 * history; valid against the Jenkins JUnit schema, tests/junit-10.xsd) and
 * a JSON summary, each written whole or not at all. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fuzz/cmd/cli.h"
#include "fuzz/cmd/smoke.h"
#include "fuzz/files.h"
#include "fuzz/json.h"

/* What the regression replay came to, for every report. */
typedef struct reg_counts {
    size_t fail, error, skip;
    double time_s;
} reg_counts;

static reg_counts count_regression(const df_smoke_state *st)
{
    reg_counts n = {0};
    for (size_t i = 0; i < st->nreg; i++) {
        n.fail += st->reg[i].status == DF_SMOKE_FAIL;
        n.error += st->reg[i].status == DF_SMOKE_ERROR;
        n.skip += st->reg[i].status == DF_SMOKE_SKIP;
        n.time_s += st->reg[i].time_s;
    }
    return n;
}

/* ---- JUnit XML ---- */

/* s escaped for an XML attribute or text. Bytes XML may not carry
 * (controls, invalid UTF-8) become '?'. */
static void put_xml(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p >= 0x80) {
            p += df_utf8_put(f, p) - 1;
        } else if (*p == '&' || *p == '<' || *p == '>' || *p == '"' || *p == '\'') {
            fputs(*p == '&' ? "&amp;" : *p == '<' ? "&lt;" : *p == '>' ? "&gt;"
                  : *p == '"' ? "&quot;" : "&apos;", f);
        } else if (*p < 0x20) {
            if (*p == '\n' || *p == '\t')
                fputc(*p, f);
            else if (*p == '\r')
                fputs("&#13;", f);
            else
                fputc('?', f);
        } else {
            fputc(*p, f);
        }
    }
}

static void put_xml_attr(FILE *f, const char *name, const char *value)
{
    fprintf(f, " %s=\"", name);
    put_xml(f, value);
    fputc('"', f);
}

/* A testsuite's timestamp (when it started, UTC, as JUnit's ISO 8601 without
 * a zone) and hostname attributes. */
static void put_suite_stamp(FILE *f, time_t started, const char *host)
{
    struct tm tm;
    char when[32] = "1970-01-01T00:00:00";
    if (gmtime_r(&started, &tm))
        strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
    fprintf(f, " timestamp=\"%s\"", when);
    put_xml_attr(f, "hostname", host);
}

static void junit_regression(FILE *f, const df_smoke_state *st, reg_counts n, const char *host)
{
    fprintf(f, "  <testsuite name=\"regression\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
               "skipped=\"%zu\" time=\"%.3f\"",
            st->nreg, n.fail, n.error, n.skip, n.time_s);
    put_suite_stamp(f, st->started, host);
    fputs(">\n", f);
    for (size_t i = 0; i < st->nreg; i++) {
        const df_smoke_reg *r = &st->reg[i];
        char name[4200];
        snprintf(name, sizeof name, "%s%s%s", r->file, r->kernel ? " on " : "",
                 r->kernel ? r->kernel : "");
        fputs("    <testcase classname=\"regression\"", f);
        put_xml_attr(f, "name", name);
        fprintf(f, " time=\"%.3f\">\n", r->time_s);
        static const char *const tag[] = {"", "failure", "error", "skipped"};
        if (r->status != DF_SMOKE_PASS) {
            fprintf(f, "      <%s", tag[r->status]);
            put_xml_attr(f, "message", r->message ? r->message : "");
            if (r->status == DF_SMOKE_SKIP) {
                fputs("/>\n", f);
            } else {
                fprintf(f, " type=\"%s\">", r->status == DF_SMOKE_ERROR ? "input"
                                            : r->verdict == DF_V_BUG ? "bug" : "verdict-changed");
                put_xml(f, r->detail ? r->detail : "");
                fprintf(f, "</%s>\n", tag[r->status]);
            }
        }
        if (r->detail) {
            fputs("      <system-out>", f);
            put_xml(f, r->detail);
            fputs("</system-out>\n", f);
        }
        fputs("    </testcase>\n", f);
    }
    fputs("  </testsuite>\n", f);
}

static void tally_text(FILE *f, const df_smoke_tally *t)
{
    fprintf(f, "cases %llu:", (unsigned long long)t->cases);
    for (int v = DF_V_OK; v <= DF_V_BUG; v++)
        fprintf(f, "%s %s %llu", v == DF_V_OK ? "" : ",", df_verdict_name((df_verdict)v),
                (unsigned long long)t->verdicts[v]);
    fprintf(f, "; flaky %llu, known %llu", (unsigned long long)t->flaky,
            (unsigned long long)t->known);
}

static void junit_bug(FILE *f, const df_smoke_state *st)
{
    const df_smoke_bug *b = &st->bug;
    char msg[5400];
    snprintf(msg, sizeof msg, "bug (%s) at seed %llu index %llu, n=%llu: %s; replay: %s",
             b->rule, (unsigned long long)b->seed, (unsigned long long)b->index,
             (unsigned long long)b->n, b->why, b->replay);
    fputs("      <failure", f);
    put_xml_attr(f, "message", msg);
    fputs(" type=\"bug\">", f);
    put_xml(f, b->why);
    fputs("\nsaved: ", f);
    put_xml(f, b->path);
    fputs("\nreplay: ", f);
    put_xml(f, b->replay);
    fputs(b->rechecked ? "\n" : "\n(not checked again: the backend became unusable)\n", f);
    fputs("</failure>\n", f);
}

static void junit_seed(FILE *f, const df_smoke_state *st, size_t si, const char *host)
{
    const df_smoke_seed *sr = &st->seeds[si];
    int failed = st->bug.found && st->bug.seed_i == si;
    fprintf(f, "  <testsuite name=\"fuzz (%s seed)\" tests=\"%zu\" failures=\"%d\" "
               "errors=\"0\" skipped=\"%zu\" time=\"%.3f\"",
            sr->label, st->nk, failed, sr->ran ? 0 : st->nk, sr->elapsed);
    put_suite_stamp(f, sr->ran ? sr->started : st->started, host);
    fprintf(f, ">\n    <properties><property name=\"seed\" value=\"%llu\"/>"
               "<property name=\"backend\" value=\"%s\"/></properties>\n",
            (unsigned long long)sr->seed, df_sandbox_backend(st->sb));
    for (size_t ki = 0; ki < st->nk; ki++) {
        const df_smoke_tally *t = &sr->tally[ki];
        fprintf(f, "    <testcase classname=\"fuzz.%s\"", sr->label);
        put_xml_attr(f, "name", st->kernels[ki]->name);
        fprintf(f, " time=\"%.3f\">\n", t->time_s);
        if (!sr->ran)
            fputs("      <skipped message=\"not run: fuzzing stopped before this seed (a bug, "
                  "or the backend became unusable)\"/>\n", f);
        if (failed && st->bug.ki == ki)
            junit_bug(f, st);
        fputs("      <system-out>", f);
        tally_text(f, t);
        fputs("</system-out>\n    </testcase>\n", f);
    }
    fputs("  </testsuite>\n", f);
}

static void write_junit(FILE *f, const df_smoke_state *st, double elapsed)
{
    reg_counts n = count_regression(st);
    size_t tests = st->nreg + 2 * st->nk;
    size_t failures = n.fail + (size_t)st->bug.found;
    char host[256] = "localhost";
    if (gethostname(host, sizeof host - 1) != 0)
        snprintf(host, sizeof host, "localhost");
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<testsuites name=\"dotfuzz smoke\" tests=\"%zu\" failures=\"%zu\" "
               "errors=\"%zu\" time=\"%.3f\">\n",
            tests, failures, n.error, elapsed);
    junit_regression(f, st, n, host);
    junit_seed(f, st, 0, host);
    junit_seed(f, st, 1, host);
    fputs("</testsuites>\n", f);
}

/* ---- JSON ---- */

static const char *const status_name[] = {"pass", "fail", "error", "skipped"};

static void json_regression(FILE *f, const df_smoke_state *st)
{
    reg_counts n = count_regression(st);
    fprintf(f, "  \"regression\": {\"corpora\": [");
    for (size_t i = 0; i < st->o->ndirs; i++) {
        fputs(i ? ", " : "", f);
        df_json_str(f, st->o->dirs[i]);
    }
    fprintf(f, "], \"runs\": %zu, \"failures\": %zu, \"errors\": %zu, \"skipped\": %zu, "
               "\"results\": [",
            st->nreg, n.fail, n.error, n.skip);
    for (size_t i = 0; i < st->nreg; i++) {
        const df_smoke_reg *r = &st->reg[i];
        fputs(i ? ",\n    {\"file\": " : "\n    {\"file\": ", f);
        df_json_str(f, r->file);
        fputs(", \"kernel\": ", f);
        df_json_str(f, r->kernel);
        fprintf(f, ", \"status\": \"%s\", \"verdict\": ", status_name[r->status]);
        df_json_str(f, r->verdict ? df_verdict_name((df_verdict)r->verdict) : NULL);
        fputs(", \"recorded\": ", f);
        df_json_str(f, r->recorded ? df_verdict_name((df_verdict)r->recorded) : NULL);
        fputs(", \"message\": ", f);
        df_json_str(f, r->message);
        fputc('}', f);
    }
    fputs("]},\n", f);
}

static void json_seed(FILE *f, const df_smoke_state *st, size_t si)
{
    const df_smoke_seed *sr = &st->seeds[si];
    fputs("    {\"seed\": ", f);
    df_json_u64(f, sr->seed);
    fprintf(f, ", \"kind\": \"%s\", \"ran\": %s, \"cases\": %llu, \"elapsed_s\": %.3f, "
               "\"kernels\": [",
            sr->label, sr->ran ? "true" : "false", (unsigned long long)sr->cases, sr->elapsed);
    for (size_t ki = 0; ki < st->nk; ki++) {
        const df_smoke_tally *t = &sr->tally[ki];
        fprintf(f, "%s\n      {\"kernel\": ", ki ? "," : "");
        df_json_str(f, st->kernels[ki]->name);
        fprintf(f, ", \"cases\": %llu, \"verdicts\": {", (unsigned long long)t->cases);
        for (int v = DF_V_OK; v <= DF_V_BUG; v++)
            fprintf(f, "%s\"%s\": %llu", v == DF_V_OK ? "" : ", ",
                    df_verdict_name((df_verdict)v), (unsigned long long)t->verdicts[v]);
        fprintf(f, "}, \"flaky\": %llu, \"known\": %llu}", (unsigned long long)t->flaky,
                (unsigned long long)t->known);
    }
    fputs("]}", f);
}

static void json_bug(FILE *f, const df_smoke_state *st)
{
    const df_smoke_bug *b = &st->bug;
    if (!b->found) {
        fputs("  \"bug\": null,\n", f);
        return;
    }
    fputs("  \"bug\": {\"kernel\": ", f);
    df_json_str(f, st->kernels[b->ki]->name);
    fputs(", \"seed\": ", f);
    df_json_u64(f, b->seed);
    fputs(", \"index\": ", f);
    df_json_u64(f, b->index);
    fprintf(f, ", \"n\": %llu, \"rule\": ", (unsigned long long)b->n);
    df_json_str(f, b->rule);
    fputs(", \"why\": ", f);
    df_json_str(f, b->why);
    fprintf(f, ", \"rechecked\": %s, \"file\": ", b->rechecked ? "true" : "false");
    df_json_str(f, b->path);
    fputs(", \"replay\": ", f);
    df_json_str(f, b->replay);
    fputs("},\n", f);
}

static void write_json(FILE *f, const df_smoke_state *st, double elapsed, df_outcome out)
{
    fputs("{\n  ", f);
    df_json_stamp(f);
    fputs(",\n  \"backend\": ", f);
    df_json_str(f, df_sandbox_backend(st->sb));
    fputs(",\n  \"seeds\": {\"fixed\": ", f);
    df_json_u64(f, st->seeds[0].seed);
    fputs(", \"fresh\": ", f);
    df_json_u64(f, st->seeds[1].seed);
    fprintf(f, "},\n  \"time_budget_s\": %.3f,\n", st->o->time_s);
    json_regression(f, st);
    fputs("  \"fuzz\": [\n", f);
    json_seed(f, st, 0);
    fputs(",\n", f);
    json_seed(f, st, 1);
    fprintf(f, "\n  ],\n  \"flaky\": %llu, \"flaky_cases\": [", (unsigned long long)st->nflaky);
    for (uint64_t i = 0; i < st->nflaky && i < DF_SMOKE_MAX_FLAKY; i++) {
        fputs(i ? ", {\"kernel\": " : "{\"kernel\": ", f);
        df_json_str(f, st->flaky[i].kernel);
        fputs(", \"seed\": ", f);
        df_json_u64(f, st->flaky[i].seed);
        fputs(", \"index\": ", f);
        df_json_u64(f, st->flaky[i].index);
        fputc('}', f);
    }
    fputs("],\n", f);
    json_bug(f, st);
    fprintf(f, "  \"elapsed_s\": %.3f,\n  \"exit_status\": %d\n}\n", elapsed, df_exit_code(out));
}

/* ---- a report written whole ---- */

/* Builds a report in memory and writes it atomically: a CI system never
 * reads half a file. */
int df_smoke_write_report(const char *path, const df_smoke_state *st, double elapsed,
                          df_outcome out, int junit)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        perror("dotfuzz smoke: out of memory");
        return -1;
    }
    if (junit)
        write_junit(f, st, elapsed);
    else
        write_json(f, st, elapsed, out);
    fclose(f);
    int rc = df_write_file_atomic(path, (const uint8_t *)text, len);
    if (rc != 0)
        fprintf(stderr, "dotfuzz smoke: cannot write %s: %s\n", path, strerror(errno));
    free(text);
    return rc;
}

/* ---- stdout ---- */

void df_smoke_print_summary(const df_smoke_state *st, double elapsed)
{
    reg_counts n = count_regression(st);
    for (size_t i = 0; i < st->nreg; i++)
        if (st->reg[i].status == DF_SMOKE_FAIL || st->reg[i].status == DF_SMOKE_ERROR)
            printf("%s  regression %s%s%s: %s\n",
                   st->reg[i].status == DF_SMOKE_FAIL ? "FAIL " : "ERROR", st->reg[i].file,
                   st->reg[i].kernel ? " on " : "", st->reg[i].kernel ? st->reg[i].kernel : "",
                   st->reg[i].message ? st->reg[i].message : "");
    printf("dotfuzz smoke: regression: %zu run(s), %zu failed, %zu error(s), %zu skipped\n",
           st->nreg, n.fail, n.error, n.skip);
    for (size_t si = 0; si < 2; si++) {
        const df_smoke_seed *sr = &st->seeds[si];
        printf("dotfuzz smoke: seed %llu (%s): %llu case(s) in %.1f s over %zu kernel(s)%s\n",
               (unsigned long long)sr->seed, sr->label, (unsigned long long)sr->cases,
               sr->elapsed, st->nk, sr->ran ? "" : " (not run: stopped before it)");
    }
    if (st->bug.found)
        printf("dotfuzz smoke: BUG on %s (%s), saved to %s\n  replay: %s\n",
               st->kernels[st->bug.ki]->name, st->bug.rule, st->bug.path, st->bug.replay);
    else
        printf("dotfuzz smoke: no new bug; %llu flaky case(s)\n",
               (unsigned long long)st->nflaky);
    printf("dotfuzz smoke: %.1f s on backend %s\n", elapsed, df_sandbox_backend(st->sb));
}

