/* triage_print.c — a triage (triage.h) told: one aligned table of the
 * distinct bugs with their replay commands, or one JSON object. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/gen/generator.h"
#include "fuzz/json.h"
#include "fuzz/run/triage.h"

/* ---- what both forms say ---- */

static unsigned popcount64(uint64_t x)
{
    unsigned n = 0;
    for (; x; x &= x - 1)
        n++;
    return n;
}

/* How many bugs a key holding one more field would have reported: each
 * bug splits into as many as that field takes distinct values in it. */
typedef struct splits {
    uint64_t rule, family, length, error;
} splits;

static splits splits_of(const df_triage *t)
{
    splits s = {0};
    for (size_t i = 0; i < t->nbugs; i++) {
        const df_triage_bug *b = &t->bugs[i];
        s.rule += b->nrules + (b->rules_other > 0);
        s.family += popcount64(b->families);
        s.length += popcount64(b->len_buckets);
        s.error += b->err_buckets;
    }
    return s;
}

static void info_totals(const df_triage *t, uint64_t *prec, uint64_t *soft, uint64_t *nondet)
{
    *prec = *soft = *nondet = 0;
    for (size_t i = 0; i < t->ninfo; i++) {
        *prec += t->info[i].precision;
        *soft += t->info[i].soft_error;
        *nondet += t->info[i].nondet;
    }
}

/* The reproducer to replay: the minimized one when written, else the
 * smallest finding itself. */
static const char *repro_of(const df_triage_bug *b)
{
    return b->min_path[0] ? b->min_path : b->repro_path;
}

/* The rules' indices by count, most frequent first. */
static void rules_by_count(const df_triage_bug *b, size_t order[DF_TRIAGE_RULES])
{
    for (size_t i = 0; i < b->nrules; i++)
        order[i] = i;
    for (size_t i = 1; i < b->nrules; i++)
        for (size_t j = i; j > 0 && b->rules[order[j]].count > b->rules[order[j - 1]].count; j--) {
            size_t x = order[j];
            order[j] = order[j - 1];
            order[j - 1] = x;
        }
}

/* ---- text ---- */

enum { C_SIG, C_KERNEL, C_CLASS, C_COUNT, C_RULES, C_FIRST, C_LAST, C_N, C_MIN_N, C_REPLAY, NCOLS };

static const char *const headers[NCOLS] = {"signature", "kernel", "class",  "findings", "rules",
                                            "first",     "last",   "n",      "min-n",    "replay"};

typedef char cell[96];

static void seen_cell(cell c, uint64_t index, double elapsed)
{
    if (isfinite(elapsed))
        snprintf(c, sizeof(cell), "#%llu %.1fs", (unsigned long long)index, elapsed);
    else
        snprintf(c, sizeof(cell), "#%llu", (unsigned long long)index);
}

static void rules_cell(cell c, const df_triage_bug *b)
{
    size_t order[DF_TRIAGE_RULES];
    rules_by_count(b, order);
    size_t shown = b->nrules < 2 ? b->nrules : 2, used = 0;
    snprintf(c, sizeof(cell), "-"); /* a case file records no rule */
    for (size_t i = 0; i < shown; i++)
        used += (size_t)snprintf(c + used, sizeof(cell) - used, "%s%s %llu", i ? ", " : "",
                                 b->rules[order[i]].name,
                                 (unsigned long long)b->rules[order[i]].count);
    size_t more = b->nrules - shown + (b->rules_other > 0);
    if (more && used < sizeof(cell))
        snprintf(c + used, sizeof(cell) - used, ", +%zu", more);
}

static void row_of(const df_triage_bug *b, cell r[NCOLS])
{
    snprintf(r[C_SIG], sizeof(cell), "%s", b->sig);
    snprintf(r[C_KERNEL], sizeof(cell), "%s", b->kernel);
    snprintf(r[C_CLASS], sizeof(cell), "%s", df_bug_class_name(b->cls));
    snprintf(r[C_COUNT], sizeof(cell), "%llu", (unsigned long long)b->count);
    rules_cell(r[C_RULES], b);
    seen_cell(r[C_FIRST], b->first_index, b->first_elapsed);
    seen_cell(r[C_LAST], b->last_index, b->last_elapsed);
    snprintf(r[C_N], sizeof(cell), "%llu", (unsigned long long)b->repro_n);
    if (b->min_path[0] && !b->min_note[0])
        snprintf(r[C_MIN_N], sizeof(cell), "%llu", (unsigned long long)b->min_n);
    else
        snprintf(r[C_MIN_N], sizeof(cell), "-");
    r[C_REPLAY][0] = 0; /* printed whole, outside the cells */
}

static void print_row(FILE *f, cell r[NCOLS], const size_t w[NCOLS], const char *replay)
{
    for (int c = 0; c < C_REPLAY; c++)
        fprintf(f, "%-*s  ", (int)w[c], r[c]);
    fprintf(f, "%s\n", replay);
}

void df_triage_print(FILE *f, const df_triage *t)
{
    uint64_t prec, soft, nondet;
    info_totals(t, &prec, &soft, &nondet);
    fprintf(f, "%s (%s): %llu finding(s): %llu bug finding(s) in %zu distinct bug(s); "
            "not bugs: precision %llu, soft-error %llu, nondet %llu\n",
            t->dir, t->campaign ? "campaign" : "case files", (unsigned long long)t->findings,
            (unsigned long long)t->bug_findings, t->nbugs, (unsigned long long)prec,
            (unsigned long long)soft, (unsigned long long)nondet);
    if (t->nbugs) {
        size_t w[NCOLS];
        cell hr[NCOLS];
        for (int c = 0; c < NCOLS; c++) {
            snprintf(hr[c], sizeof(cell), "%s", headers[c]);
            w[c] = strlen(headers[c]);
        }
        for (size_t i = 0; i < t->nbugs; i++) {
            cell r[NCOLS];
            row_of(&t->bugs[i], r);
            for (int c = 0; c < NCOLS; c++)
                w[c] = strlen(r[c]) > w[c] ? strlen(r[c]) : w[c];
        }
        print_row(f, hr, w, headers[C_REPLAY]);
        for (size_t i = 0; i < t->nbugs; i++) {
            cell r[NCOLS];
            row_of(&t->bugs[i], r);
            char replay[DF_TRIAGE_PATH_CAP + 32];
            snprintf(replay, sizeof replay, "dotfuzz replay %s", repro_of(&t->bugs[i]));
            print_row(f, r, w, replay);
        }
        for (size_t i = 0; i < t->nbugs; i++)
            if (t->bugs[i].min_note[0])
                fprintf(f, "%s: %s\n", t->bugs[i].sig, t->bugs[i].min_note);
        splits s = splits_of(t);
        fprintf(f, "a key holding also the family would report %llu bug(s); the length bucket "
                "%llu", (unsigned long long)s.family, (unsigned long long)s.length);
        if (t->campaign) /* a case file records neither rule nor error ratio */
            fprintf(f, "; the rule %llu; the error bucket %llu", (unsigned long long)s.rule,
                    (unsigned long long)s.error);
        fputs(" (docs/triage.md)\n", f);
    }
    if (t->filtered)
        fprintf(f, "%llu finding(s) of other kernels left out (--kernel)\n",
                (unsigned long long)t->filtered);
    if (t->not_findings)
        fprintf(f, "%llu case file(s) record no finding (verdict none or ok)\n",
                (unsigned long long)t->not_findings);
    if (t->unreadable)
        fprintf(f, "%llu finding(s) unreadable (said above)\n", (unsigned long long)t->unreadable);
}

/* ---- JSON ---- */

static void json_u64_member(FILE *f, const char *key, uint64_t v)
{
    fprintf(f, "\"%s\":", key);
    df_json_u64(f, v);
}

static void json_seen(FILE *f, const char *key, uint64_t index, double elapsed)
{
    fprintf(f, "\"%s\":{", key);
    json_u64_member(f, "index", index);
    fputc(',', f);
    df_json_member(f, "elapsed", elapsed);
    fputc('}', f);
}

static void json_families(FILE *f, uint64_t fams)
{
    fputs("\"families\":[", f);
    int first = 1;
    for (unsigned id = 0; id < 64; id++) {
        if (!(fams >> id & 1))
            continue;
        const df_family *fam = df_family_by_id(id);
        fputs(first ? "" : ",", f);
        df_json_str(f, id == 0 ? "imported" : fam ? fam->name : "unknown");
        first = 0;
    }
    fputc(']', f);
}

static void json_bug(FILE *f, const df_triage_bug *b)
{
    fputs("{\"signature\":", f);
    df_json_str(f, b->sig);
    fputs(",\"kernel\":", f);
    df_json_str(f, b->kernel);
    fprintf(f, ",\"class\":\"%s\",", df_bug_class_name(b->cls));
    fprintf(f, "\"findings\":%llu,", (unsigned long long)b->count);
    json_seen(f, "first", b->first_index, b->first_elapsed);
    fputc(',', f);
    json_seen(f, "last", b->last_index, b->last_elapsed);
    fputs(",\"rules\":{", f);
    size_t order[DF_TRIAGE_RULES];
    rules_by_count(b, order);
    for (size_t i = 0; i < b->nrules; i++) {
        fputs(i ? "," : "", f);
        df_json_str(f, b->rules[order[i]].name);
        fprintf(f, ":%llu", (unsigned long long)b->rules[order[i]].count);
    }
    fprintf(f, "},\"rules_other\":%llu,", (unsigned long long)b->rules_other);
    json_families(f, b->families);
    fprintf(f, ",\"n_min\":%llu,\"n_max\":%llu,\"length_buckets\":%u,",
            (unsigned long long)b->n_min, (unsigned long long)b->n_max,
            popcount64(b->len_buckets));
    if (b->err_min <= b->err_max)
        fprintf(f, "\"err_log2_ratio\":{\"min\":%d,\"max\":%d},", b->err_min, b->err_max);
    else
        fputs("\"err_log2_ratio\":null,", f);
    fprintf(f, "\"err_buckets\":%llu,\"specials\":[", (unsigned long long)b->err_buckets);
    const char *sp[] = {"nan", "inf", "subnormal"};
    int first = 1;
    for (unsigned i = 0; i < 3; i++)
        if (b->specials >> i & 1) {
            fprintf(f, "%s\"%s\"", first ? "" : ",", sp[i]);
            first = 0;
        }
    fputs("],\"reproducer\":{\"file\":", f);
    df_json_str(f, b->repro_path);
    fprintf(f, ",\"n\":%llu},\"minimized\":", (unsigned long long)b->repro_n);
    if (b->min_path[0] && !b->min_note[0]) {
        fputs("{\"file\":", f);
        df_json_str(f, b->min_path);
        fprintf(f, ",\"n\":%llu,\"rule\":", (unsigned long long)b->min_n);
        df_json_str(f, b->min_rule);
        fprintf(f, ",\"tries\":%llu}", (unsigned long long)b->min_tries);
    } else {
        fputs("null", f);
    }
    fputs(",\"note\":", f);
    df_json_str(f, b->min_note[0] ? b->min_note : NULL);
    fputs(",\"replay\":", f);
    char replay[DF_TRIAGE_PATH_CAP + 32];
    snprintf(replay, sizeof replay, "dotfuzz replay %s", repro_of(b));
    df_json_str(f, replay);
    fputc('}', f);
}

void df_triage_print_json(FILE *f, const df_triage *t)
{
    fputc('{', f);
    df_json_stamp(f);
    fputs(",\"dir\":", f);
    df_json_str(f, t->dir);
    fprintf(f, ",\"source\":\"%s\",", t->campaign ? "campaign" : "case files");
    fprintf(f, "\"findings\":%llu,\"bug_findings\":%llu,\"distinct_bugs\":%zu,\"bugs\":[",
            (unsigned long long)t->findings, (unsigned long long)t->bug_findings, t->nbugs);
    for (size_t i = 0; i < t->nbugs; i++) {
        fputs(i ? "," : "", f);
        json_bug(f, &t->bugs[i]);
    }
    splits s = splits_of(t);
    fprintf(f, "],\"bugs_if_keyed_also_by\":{\"rule\":%llu,\"family\":%llu,\"length\":%llu,"
            "\"error\":%llu},",
            (unsigned long long)s.rule, (unsigned long long)s.family,
            (unsigned long long)s.length, (unsigned long long)s.error);
    uint64_t prec, soft, nondet;
    info_totals(t, &prec, &soft, &nondet);
    fprintf(f, "\"not_bugs\":{\"precision\":%llu,\"soft_error\":%llu,\"nondet\":%llu,"
            "\"kernels\":[",
            (unsigned long long)prec, (unsigned long long)soft, (unsigned long long)nondet);
    for (size_t i = 0; i < t->ninfo; i++) {
        const df_triage_info *in = &t->info[i];
        fputs(i ? "," : "", f);
        fputs("{\"kernel\":", f);
        df_json_str(f, in->kernel);
        fprintf(f, ",\"precision\":%llu,\"soft_error\":%llu,\"nondet\":%llu}",
                (unsigned long long)in->precision, (unsigned long long)in->soft_error,
                (unsigned long long)in->nondet);
    }
    fprintf(f, "]},\"filtered\":%llu,\"not_findings\":%llu,\"unreadable\":%llu}\n",
            (unsigned long long)t->filtered, (unsigned long long)t->not_findings,
            (unsigned long long)t->unreadable);
}
