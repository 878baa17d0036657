/* plugin_helpers.h — what the plugin tests (test_plugin.c,
 * test_plugin_v3.c) share: a shell command's output, plugins compiled
 * with cc from a file or from a one-kernel spec of C expressions, a
 * library fuzzed clean on the host backend, and a library refused. */
#ifndef DOTFUZZ_TEST_PLUGIN_HELPERS_H
#define DOTFUZZ_TEST_PLUGIN_HELPERS_H

#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tests/cli_helpers.h"
#include "fuzz/plugin.h"
#include "kernels/kernel.h"

#define OUT_MAX (1 << 16)
static char out[OUT_MAX];

/* Runs a shell command, stdout and stderr into out; returns the exit
 * status, or -1. */
static inline int sh(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = df_test_shv(out, OUT_MAX, fmt, ap);
    va_end(ap);
    return rc;
}

#define tmpdir() df_test_tmpdir("plugin")

/* Compiles src (C source, or a file path when is_file) into dir/name.so
 * against the repository's include/, with extra compiler flags; returns
 * the .so path. */
static inline const char *build_so_flags(const char *dir, const char *name, const char *src,
                                         int is_file, const char *flags)
{
    static char so[8][512];
    static int next;
    char *path = so[next++ % 8];
    char c_path[512];
    snprintf(path, 512, "%s/%s.so", dir, name);
    if (!is_file) {
        snprintf(c_path, sizeof c_path, "%s/%s.c", dir, name);
        FILE *f = fopen(c_path, "w");
        cr_assert_not_null(f);
        fputs(src, f);
        fclose(f);
        src = c_path;
    }
    int rc = sh("cc -std=c11 -Wall -Wextra -Werror -O2 -fPIC -shared -Iinclude %s -o %s %s -lm",
                flags, path, src);
    cr_assert_eq(rc, 0, "cc failed for %s: %s", name, out);
    return path;
}

static inline const char *build_so(const char *dir, const char *name, const char *src,
                                   int is_file)
{
    return build_so_flags(dir, name, src, is_file, "");
}

static inline const char *example_so(const char *dir)
{
    return build_so(dir, "mydot", "examples/plugin/mydot.c", 1);
}

/* A one-kernel plugin whose fields are given as C expressions; the routine
 * writes `result` (an expression over a, b, n and r) and returns `ret`. */
typedef struct pspec {
    const char *abi, *name, *elem, *acc, *flags, *bmin, *bmax, *bdef;
    const char *body;  /* the routine's statements */
    const char *model; /* host_model: "0" or "model" */
    const char *dev;   /* dot_device: "0" */
    const char *host;  /* dot_host: "one" or "0" */
    /* NULL: a version 1 plugin, built with DOTFUZZ_PLUGIN_ABI_VERSION 1
     * (version 1's layout, byte for byte); else version 2 or later and
     * the expression of its kernel's fused field ("0", or "&fz" for the
     * dotfuzz_fused fz given by fz) */
    const char *fused;
    const char *fz; /* fz's initializer, "{16, 25, ...}", or NULL */
    /* NULL: version 2 (with fused), built with DOTFUZZ_PLUGIN_ABI_VERSION
     * 2; else version 3, the header's own, and the expressions of its
     * kernel's scratch_bytes and dot_device_batch fields: "0, 0", or "scr"
     * and "bat", the source's scratch_bytes (256 + 4 n) and batched form */
    const char *v3;
} pspec;

/* A version 1 plugin of one f32 kernel, as every plugin was before
 * version 2. */
static inline pspec good_spec(void)
{
    return (pspec){"DOTFUZZ_PLUGIN_ABI_VERSION", "\"t-one\"", "DOTFUZZ_F32", "DOTFUZZ_F32",
                   "DOTFUZZ_DETERMINISTIC", "1", "1", "1",
                   "*(float *)r = 1.0f; return 0;", "model", "0", "one", NULL, NULL, NULL};
}

/* The same kernel in a version 2 plugin, with no fused accumulation. */
static inline pspec v2_spec(void)
{
    pspec s = good_spec();
    s.fused = "0";
    return s;
}

/* The same kernel in a version 3 plugin, with none of version 3's fields. */
static inline pspec v3_spec(void)
{
    pspec s = v2_spec();
    s.v3 = "0, 0";
    return s;
}

/* A device form for the tests that only load a library. */
#define DEV_FORM "(dotfuzz_dot_device_fn)(void (*)(void))one"

static inline const char *spec_so(const char *dir, const char *name, pspec s)
{
    char src[4096], fz[256] = "", v3[256] = "";
    if (s.fz)
        snprintf(fz, sizeof fz, "static const dotfuzz_fused fz = %s;\n", s.fz);
    if (s.v3)
        snprintf(v3, sizeof v3,
                 "static uint64_t scr(uint64_t n, const dotfuzz_launch *l)\n"
                 "{ (void)l; return 256 + 4 * n; }\n"
                 "static int bat(const dotfuzz_batch *b) { (void)b; return 0; }\n");
    snprintf(src, sizeof src,
             "#include <string.h>\n#include \"dotfuzz/plugin.h\"\n%s%s"
             "static int one(const void *a, const void *b, uint64_t n,\n"
             "               const dotfuzz_launch *l, void *r)\n"
             "{ (void)a; (void)b; (void)n; (void)l; %s }\n"
             "static int model(const void *a, const void *b, uint64_t n,\n"
             "                 const dotfuzz_launch *l, void *r)\n"
             "{ (void)a; (void)b; (void)n; (void)l; *(float *)r = 2.0f; return 0; }\n"
             "static const dotfuzz_kernel ks[] = {{%s, \"test kernel\", %s, %s, %s,\n"
             "    %s, %s, %s, 0, 1, 0, 0, %s, %s, %s%s%s%s%s}};\n"
             "static const dotfuzz_plugin p = {%s, sizeof(dotfuzz_plugin),\n"
             "    sizeof(dotfuzz_kernel), 1, \"t\", ks};\n"
             "const dotfuzz_plugin *dotfuzz_plugin_entry(void)\n"
             "{ (void)model; (void)one;%s return &p; }\n",
             fz, v3, s.body, s.name, s.elem, s.acc, s.flags, s.bmin, s.bmax, s.bdef, s.host,
             s.dev, s.model, s.fused ? ", " : "", s.fused ? s.fused : "", s.v3 ? ", " : "",
             s.v3 ? s.v3 : "", s.abi, s.v3 ? " (void)scr; (void)bat;" : "");
    return build_so_flags(dir, name, src, 0,
                          s.v3      ? ""
                          : s.fused ? "-DDOTFUZZ_PLUGIN_ABI_VERSION=2"
                                    : "-DDOTFUZZ_PLUGIN_ABI_VERSION=1");
}

/* `dotfuzz run` on the host backend, library so, the given kernels: no
 * bug in `cases` cases (findings into dir/corpus). */
static inline void runs_clean(const char *so, const char *kernels, int cases, const char *dir)
{
    int rc = sh("./dotfuzz run --backend host --kernel-lib %s --kernel %s --cases %d "
                "--seed 7 --corpus %s/corpus",
                so, kernels, cases, dir);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "this oracle: 0 bug(s)"), "%s", out);
}

/* Every command that loads so refuses it: exit 2, one line naming the
 * library and the problem; nothing of it registered. */
static inline void refused(const char *so, const char *problem)
{
    const char *cmds[] = {"list", "run --backend host --cases 1", "replay --backend host /dev/null"};
    for (size_t i = 0; i < 3; i++) {
        int rc = sh("./dotfuzz %s --kernel-lib %s", cmds[i], so);
        cr_assert_eq(rc, 2, "%s: rc %d: %s", cmds[i], rc, out);
        cr_assert(strstr(out, so), "%s: message does not name %s: %s", cmds[i], so, out);
        cr_assert(strstr(out, problem), "%s: message lacks '%s': %s", cmds[i], problem, out);
        cr_assert_eq(strchr(out, '\n'), out + strlen(out) - 1, "not one line: %s", out);
    }
    char err[512] = "";
    cr_assert_eq(df_plugin_load(so, err, sizeof err), -1);
    cr_assert(strstr(err, problem), "%s", err);
    cr_assert_eq(df_plugin_count(), 0); /* nothing of it registered */
}

#endif
