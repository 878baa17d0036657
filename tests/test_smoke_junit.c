/* test_smoke_junit.c — `dotfuzz smoke --junit` as CI dashboards read it:
 * its suites and tests named the same whatever the seeds (which are
 * properties), each suite stamped with when it started and the host, and
 * the report valid against the Jenkins JUnit schema (tests/junit-10.xsd).
 * Runs ./dotfuzz from the repository root (make test builds it first). */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tests/cli_helpers.h"

#define OUT_MAX (1 << 16)

static char out[OUT_MAX];

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* A clean smoke run from fixed seed `seed` into dir/NAME.xml, checked
 * against the schema; its testsuite and testcase names, one a line, into
 * names (cap bytes) and the report into xml. */
static void smoke(const char *dir, unsigned seed, char *names, size_t cap, char *xml,
                  size_t xcap)
{
    int rc = df_test_sh(out, OUT_MAX,
                        "./dotfuzz smoke --backend host --time 0.4s --seed %u --corpus %s/reg "
                        "--kernel fold --kernel int-atomic --findings %s/f --junit %s/s%u.xml",
                        seed, dir, dir, dir, seed);
    cr_assert_eq(rc, 0, "seed %u: exit %d:\n%s", seed, rc, out);
    char path[512];
    snprintf(path, sizeof path, "%s/s%u.xml", dir, seed);
    df_test_assert_junit_valid(path);
    rc = df_test_sh(names, cap,
                    "grep -o '<testsuite name=\"[^\"]*\"\\|<testcase classname=\"[^\"]*\" "
                    "name=\"[^\"]*\"' %s",
                    path);
    cr_assert_eq(rc, 0, "%s", names);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    size_t n = fread(xml, 1, xcap - 1, f);
    xml[n] = '\0';
    fclose(f);
}

/* Each testsuite's timestamp within a minute of now (UTC) and its hostname
 * this host's. */
static void assert_stamped(const char *xml)
{
    char host[256] = "", want[300];
    cr_assert_eq(gethostname(host, sizeof host - 1), 0);
    snprintf(want, sizeof want, "hostname=\"%s\"", host);
    cr_assert_eq(count(xml, "<testsuite "), 3, "%s", xml);
    cr_assert_eq(count(xml, want), 3, "%s", xml);
    cr_assert_eq(count(xml, " timestamp=\""), 3, "%s", xml);
    time_t now = time(NULL);
    for (const char *p = strstr(xml, " timestamp=\""); p; p = strstr(p + 1, " timestamp=\"")) {
        struct tm tm = {0};
        const char *end = strptime(p + strlen(" timestamp=\""), "%Y-%m-%dT%H:%M:%S", &tm);
        cr_assert(end && *end == '"', "timestamp not ISO 8601: %.40s", p);
        double age = difftime(now, timegm(&tm));
        cr_assert(age >= -1 && age < 60, "timestamp %.40s is %.0f s from now", p, age);
    }
}

Test(smoke_junit, names_are_the_same_across_seeds_and_suites_are_stamped)
{
    char *d = df_test_tmpdir("smoke-junit");
    int rc = df_test_sh(out, OUT_MAX,
                        "mkdir -p %s/reg && cp corpus/regression/int-small-n6710.i32 "
                        "corpus/regression/seed000-precision-n2000-cond2e4.f32 %s/reg/",
                        d, d);
    cr_assert_eq(rc, 0, "%s", out);
    static char names1[OUT_MAX], names2[OUT_MAX], xml1[OUT_MAX], xml2[OUT_MAX];
    smoke(d, 1, names1, sizeof names1, xml1, sizeof xml1);
    smoke(d, 424242, names2, sizeof names2, xml2, sizeof xml2);
    cr_assert_str_eq(names1, names2, "names differ across seeds");
    /* 3 suites, 2 regression runs and 2 kernels under each seed */
    cr_assert_eq(count(names1, "\n"), 3 + 2 + 2 * 2, "%s", names1);
    cr_assert(strstr(names1, "<testsuite name=\"fuzz (fixed seed)\"\n"), "%s", names1);
    cr_assert(strstr(names1, "<testcase classname=\"fuzz.fresh\" name=\"fold\"\n"), "%s", names1);
    /* the seeds are properties of their suites */
    cr_assert(strstr(xml1, "<property name=\"seed\" value=\"1\"/>"), "%s", xml1);
    cr_assert(strstr(xml2, "<property name=\"seed\" value=\"424242\"/>"), "%s", xml2);
    cr_assert_eq(count(xml1, "<property name=\"seed\""), 2, "%s", xml1);
    assert_stamped(xml1);
    assert_stamped(xml2);
}
