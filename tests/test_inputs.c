/* test_inputs.c — every input is untrusted: only regular files are read
 * as cases or numbers (a FIFO, /dev/zero, a directory get a one-line
 * refusal before any read, and nothing blocks), outputs never replace
 * anything but a regular file, and a file still being written (an atomic
 * write's hidden temporary) is never read as a case. Runs ./dotfuzz on the
 * host backend; every command is bounded by timeout(1), so a reader that
 * blocks fails the test instead of hanging it. */
#include <criterion/criterion.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz/corpus.h"
#include "fuzz/files.h"
#include "tests/cli_helpers.h"

#define OUT_MAX (1 << 16)
static char out[OUT_MAX];
#define sh(...) df_test_sh(out, OUT_MAX, __VA_ARGS__)

/* How many lines of out contain s. */
static int lines_with(const char *s)
{
    int n = 0;
    for (const char *p = out; (p = strstr(p, s)) != NULL; p++)
        n++;
    return n;
}

Test(inputs, a_fifo_or_a_device_is_refused_before_any_read)
{
    char *d = df_test_tmpdir("in");
    char fifo[256];
    snprintf(fifo, sizeof fifo, "%s/fifo", d);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    const char *cmds[] = {"replay --backend host", "minimize --backend host",
                          "merge --backend host %s/merged"};
    const char *inputs[] = {fifo, "/dev/zero"};
    for (size_t c = 0; c < sizeof cmds / sizeof cmds[0]; c++)
        for (size_t i = 0; i < 2; i++) {
            char cmd[512];
            snprintf(cmd, sizeof cmd, cmds[c], d);
            int rc = sh("timeout 20 ./dotfuzz %s %s", cmd, inputs[i]);
            cr_assert_eq(rc, 2, "%s %s: exit %d: %s", cmd, inputs[i], rc, out);
            cr_assert_eq(lines_with("not a regular file"), 1, "%s %s: %s", cmd, inputs[i], out);
        }
    cr_assert_eq(sh("echo 1 > %s/a.txt && timeout 20 ./dotfuzz import %s %s/a.txt -o %s/x",
                    d, fifo, d, d), 2, "%s", out);
    cr_assert(strstr(out, "is a FIFO, not a regular file"), "%s", out);
    cr_assert_eq(sh("timeout 20 ./dotfuzz import %s/a.txt /dev/zero -o %s/x", d, d), 2);
    cr_assert(strstr(out, "is a character device"), "%s", out);
    /* in a directory, a FIFO is not a case file: skipped, not waited on */
    cr_assert_eq(sh("rm %s/a.txt && timeout 20 ./dotfuzz replay --backend host %s", d, d), 0,
                 "%s", out);
    cr_assert(strstr(out, "0 file(s)"), "%s", out);
}

Test(inputs, an_output_replaces_only_a_regular_file)
{
    char *d = df_test_tmpdir("out");
    cr_assert_eq(sh("echo 1.5 > %s/a.txt && ./dotfuzz import %s/a.txt %s/a.txt -o /dev/full",
                    d, d, d), 2, "%s", out);
    cr_assert(strstr(out, "-o /dev/full: is a character device"), "%s", out);
    struct stat st;
    cr_assert_eq(stat("/dev/full", &st), 0);
    cr_assert(S_ISCHR(st.st_mode), "/dev/full is still the device");
    cr_assert_eq(sh("mkfifo %s/fifo && ./dotfuzz smoke --backend host --time 0 --json %s/fifo",
                    d, d), 2, "%s", out);
    cr_assert(strstr(out, "--json"), "%s", out);
    cr_assert_eq(sh("mkdir %s/dir && ./dotfuzz minimize corpus/regression/empty.f32 -o %s/dir",
                    d, d), 2, "%s", out);
    /* a regular file is replaced, atomically */
    cr_assert_eq(sh("./dotfuzz import %s/a.txt %s/a.txt -o %s/case && "
                    "./dotfuzz import %s/a.txt %s/a.txt -o %s/case", d, d, d, d, d, d),
                 0, "%s", out);
    /* the library's last defence */
    char fifo[256];
    snprintf(fifo, sizeof fifo, "%s/fifo", d);
    uint8_t byte = 1;
    cr_assert_eq(df_write_file_atomic(fifo, &byte, 1), -1);
    cr_assert_eq(errno, EEXIST);
}

Test(inputs, a_file_being_written_is_not_read)
{
    char *d = df_test_tmpdir("tmp");
    /* a whole case, and the hidden temporary of a write in progress */
    cr_assert_eq(sh("cp corpus/regression/int-small-n6710.f32 %s/ && "
                    "head -c 100 corpus/regression/int-small-n6710.f32 > %s/.x.tmp.AbC123", d, d),
                 0, "%s", out);
    char **names;
    size_t n;
    cr_assert_eq(df_corpus_list(d, &names, &n), 0);
    cr_assert_eq(n, 1);
    df_corpus_list_free(names, n);
    cr_assert(df_is_temp_name(".x.tmp.AbC123"));
    cr_assert(!df_is_temp_name("x.tmp"));
    cr_assert_eq(sh("./dotfuzz merge --backend host %s/m %s", d, d), 0, "%s", out);
    cr_assert(strstr(out, "read 1, kept 1"), "%s", out);
    cr_assert(strstr(out, "unreadable 0"), "%s", out);
    /* writes leave no temporary behind, and name it hidden while they run */
    uint8_t b[4] = {1, 2, 3, 4};
    char path[256];
    snprintf(path, sizeof path, "%s/m/out", d);
    cr_assert_eq(df_write_file_atomic(path, b, sizeof b), 0);
    cr_assert_eq(sh("ls -A %s/m | grep -c tmp", d), 1, "%s", out);
}
