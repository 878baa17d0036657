/* cli_helpers.h — what the tests that run ./dotfuzz (and cc) share: a shell
 * command with its output captured, an outside tool required, a JUnit
 * report checked against its schema, and a fresh temporary directory. */
#ifndef DOTFUZZ_TEST_CLI_HELPERS_H
#define DOTFUZZ_TEST_CLI_HELPERS_H

#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* Runs a shell command with stdout and stderr into buf (cap bytes, NUL
 * terminated); returns its exit status, or -1. The stderr of every command
 * in it (a list, a pipeline) is captured, not the last one's alone, so
 * that a passing test prints nothing and a failing one shows it all. */
static inline int df_test_shv(char *buf, size_t cap, const char *fmt, va_list ap)
{
    char cmd[8192];
    int open = snprintf(cmd, sizeof cmd, "{ ");
    vsnprintf(cmd + open, sizeof cmd - (size_t)open, fmt, ap);
    strncat(cmd, "\n} 2>&1", sizeof cmd - strlen(cmd) - 1);
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    size_t n = fread(buf, 1, cap - 1, p);
    buf[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static inline int df_test_sh(char *buf, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = df_test_shv(buf, cap, fmt, ap);
    va_end(ap);
    return rc;
}

/* Whether command tool is on PATH. Without it the test fails under CI
 * (CI=true, as CI services and .ci/run set it) and is skipped elsewhere,
 * naming the Debian package that has it. */
static inline void df_test_need_tool(const char *tool, const char *package)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", tool);
    if (system(cmd) == 0)
        return;
    const char *ci = getenv("CI");
    if (ci && !strcmp(ci, "true"))
        cr_assert_fail("%s not installed, and CI needs it (Debian: %s; scripts/install-deps.sh)",
                       tool, package);
    cr_skip_test("%s not installed (Debian: %s)", tool, package);
}

/* A JUnit report valid against the Jenkins schema (tests/junit-10.xsd),
 * checked by xmllint (libxml2-utils); else the test fails. */
static inline void df_test_assert_junit_valid(const char *path)
{
    char buf[8192];
    df_test_need_tool("xmllint", "libxml2-utils");
    int rc = df_test_sh(buf, sizeof buf, "xmllint --noout --schema tests/junit-10.xsd %s", path);
    cr_assert_eq(rc, 0, "%s is not valid JUnit: %s", path, buf);
}

/* A new directory /tmp/dotfuzz-<tag>-XXXXXX; the name lives until the next
 * call. */
static inline char *df_test_tmpdir(const char *tag)
{
    static char path[96];
    snprintf(path, sizeof path, "/tmp/dotfuzz-%s-XXXXXX", tag);
    cr_assert_not_null(mkdtemp(path));
    return path;
}

#endif
