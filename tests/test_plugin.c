/* test_plugin.c — user kernels as plugins (`--kernel-lib`, the ABI of
 * include/dotfuzz/plugin.h): the example plugin builds, loads and runs (in
 * process and through ./dotfuzz on the host backend), its planted bug is
 * found and replays, and every bad library is refused with exit status 2
 * and a message naming it and the problem. Plugins are compiled here with
 * cc into a temporary directory; each Criterion test runs in its own
 * process, so each starts with an empty plugin registry. */
#include <criterion/criterion.h>

#include "tests/cli_helpers.h"
#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuzz/plugin.h"
#include "include/dotfuzz/plugin.h"
#include "kernels/gpu_ops.h"
#include "kernels/kernel.h"

#define OUT_MAX (1 << 16)
static char out[OUT_MAX];

/* Runs a shell command, stdout and stderr into out; returns the exit
 * status, or -1. */
static int sh(const char *fmt, ...)
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
static const char *build_so_flags(const char *dir, const char *name, const char *src,
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

static const char *build_so(const char *dir, const char *name, const char *src, int is_file)
{
    return build_so_flags(dir, name, src, is_file, "");
}

static const char *example_so(const char *dir)
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
static pspec good_spec(void)
{
    return (pspec){"DOTFUZZ_PLUGIN_ABI_VERSION", "\"t-one\"", "DOTFUZZ_F32", "DOTFUZZ_F32",
                   "DOTFUZZ_DETERMINISTIC", "1", "1", "1",
                   "*(float *)r = 1.0f; return 0;", "model", "0", "one", NULL, NULL, NULL};
}

/* The same kernel in a version 2 plugin, with no fused accumulation. */
static pspec v2_spec(void)
{
    pspec s = good_spec();
    s.fused = "0";
    return s;
}

/* The same kernel in a version 3 plugin, with none of version 3's fields. */
static pspec v3_spec(void)
{
    pspec s = v2_spec();
    s.v3 = "0, 0";
    return s;
}

/* A device form for the tests that only load a library. */
#define DEV_FORM "(dotfuzz_dot_device_fn)(void (*)(void))one"

static const char *spec_so(const char *dir, const char *name, pspec s)
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

static df_case f32_case(const float *a, const float *b, uint64_t n)
{
    df_case c;
    memset(&c, 0, sizeof c);
    c.type = DF_F32;
    c.n = n;
    c.a = a;
    c.b = b;
    return c;
}

/* ---- the example plugin ---- */

Test(plugin, example_loads_with_its_declared_fields)
{
    const char *so = example_so(tmpdir());
    char err[512] = "";
    cr_assert_eq(df_plugin_load(so, err, sizeof err), 0, "%s", err);
    cr_assert_eq(df_plugin_count(), 2);
    const df_kernel *k = df_kernel_find("mydot");
    cr_assert_not_null(k);
    cr_assert_str_eq(k->origin, "plugin");
    cr_assert_eq(k->elem, DF_F32);
    cr_assert_eq(k->acc, DF_F32);
    /* plugins run a cuda batch on one stream (DF_K_ONE_STREAM) */
    cr_assert_eq(k->flags, (unsigned)(DF_K_DETERMINISTIC | DF_K_ANY_ALIGNMENT | DF_K_ONE_STREAM));
    cr_assert_eq(k->block_min, 1u);
    cr_assert_eq(k->block_max, 1u);
    cr_assert_not_null(k->host_model);
    cr_assert_not_null(k->tree_height);
    df_launch l = {0};
    /* four lanes of ceil(n/4) products, then two pairwise levels */
    cr_assert_eq(k->tree_height(100, &l), 27u);
    cr_assert_eq(k->tree_height(1, &l), 3u);
    cr_assert_not_null(df_kernel_find("mydot-droplast"));
}

Test(plugin, example_host_form_computes_the_dot_and_the_bug_drops_the_last_element)
{
    const char *so = example_so(tmpdir());
    char err[512];
    cr_assert_eq(df_plugin_load(so, err, sizeof err), 0, "%s", err);
    float a[7] = {1, 2, 3, 4, 5, 6, 7}, b[7] = {1, 1, 1, 1, 1, 1, 10};
    df_case c = f32_case(a, b, 7);
    df_scratch s = {0};
    df_result r;
    const df_kernel *k = df_kernel_find("mydot");
    cr_assert_eq(k->host_run(&c, &s, &r), 0);
    cr_assert_eq(r.status, DF_RUN_OK);
    cr_assert_eq(r.f, 91.0); /* 1+2+3+4+5+6+70 */
    const df_kernel *bug = df_kernel_find("mydot-droplast");
    cr_assert_eq(bug->host_run(&c, &s, &r), 0);
    cr_assert_eq(r.f, 21.0);
    /* at offsets (any alignment): the routine sees the same values */
    c.launch.offset_a = 3;
    c.launch.offset_b = 1;
    cr_assert_eq(k->host_run(&c, &s, &r), 0);
    cr_assert_eq(r.status, DF_RUN_OK, "%s", r.err);
    cr_assert_eq(r.f, 91.0);
    df_scratch_free(&s);
}

Test(plugin, list_shows_the_plugin_kernels)
{
    const char *so = example_so(tmpdir());
    cr_assert_eq(sh("./dotfuzz list --kernel-lib %s", so), 0, "%s", out);
    cr_assert(strstr(out, "mydot "), "%s", out);
    cr_assert(strstr(out, "mydot-droplast"), "%s", out);
    cr_assert(strstr(out, "4-way unrolled"), "%s", out);
    cr_assert_eq(sh("./dotfuzz list --names --kernel-lib=%s", so), 0, "%s", out);
    cr_assert(strstr(out, "\nmydot\n"), "%s", out);
    cr_assert_eq(sh("./dotfuzz list --names"), 0);
    cr_assert_null(strstr(out, "mydot"));
}

/* `dotfuzz run` on the host backend, library so, the given kernels: no
 * bug in `cases` cases (findings into dir/corpus). */
static void runs_clean(const char *so, const char *kernels, int cases, const char *dir)
{
    int rc = sh("./dotfuzz run --backend host --kernel-lib %s --kernel %s --cases %d "
                "--seed 7 --corpus %s/corpus",
                so, kernels, cases, dir);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "this oracle: 0 bug(s)"), "%s", out);
}

Test(plugin, run_on_the_correct_example_kernel_is_clean)
{
    const char *dir = tmpdir();
    runs_clean(example_so(dir), "mydot", 500, dir);
    cr_assert(strstr(out, "  mydot "), "%s", out);
}

/* The first file in dir, into path. */
static void first_file(const char *dir, char *path, size_t len)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d);
    struct dirent *de;
    path[0] = '\0';
    while ((de = readdir(d)) != NULL)
        if (de->d_name[0] != '.') {
            snprintf(path, len, "%s/%s", dir, de->d_name);
            break;
        }
    closedir(d);
    cr_assert(path[0], "no finding in %s", dir);
}

Test(plugin, planted_bug_is_found_and_its_finding_replays)
{
    const char *dir = tmpdir();
    const char *so = example_so(dir);
    int rc = sh("./dotfuzz run --backend host --kernel-lib %s --kernel mydot-droplast "
                "--cases 200 --seed 7 --save-precision none --corpus %s/corpus",
                so, dir);
    cr_assert_eq(rc, 1, "%s", out);
    cr_assert(strstr(out, "BUG    mydot-droplast"), "%s", out);
    char corpus[512], file[1024];
    snprintf(corpus, sizeof corpus, "%s/corpus", dir);
    first_file(corpus, file, sizeof file);
    rc = sh("./dotfuzz replay --backend host --kernel-lib %s %s", so, file);
    cr_assert_eq(rc, 1, "%s", out);
    cr_assert(strstr(out, "mydot-droplast bug"), "%s", out);
    /* without its library the kernel is unknown: an input error, no crash */
    cr_assert_eq(sh("./dotfuzz replay --backend host %s", file), 2, "%s", out);
    cr_assert(strstr(out, "unknown kernel 'mydot-droplast'"), "%s", out);
}

Test(plugin, kernel_all_includes_plugin_kernels)
{
    const char *dir = tmpdir();
    const char *so = example_so(dir);
    int rc = sh("./dotfuzz run --backend host --kernel-lib %s --cases 120 --seed 3 "
                "--save-precision none --corpus %s/corpus",
                so, dir);
    cr_assert_eq(rc, 1, "%s", out); /* mydot-droplast is among them */
    cr_assert(strstr(out, "  mydot "), "%s", out);
    cr_assert(strstr(out, "  fold "), "%s", out);
}

/* ---- what the loader does around a routine ---- */

Test(plugin, result_is_poisoned_so_a_missing_zero_init_shows)
{
    pspec s = good_spec();
    s.body = "*(float *)r += 1.0f; return 0;"; /* adds into what it was given */
    const char *so = spec_so(tmpdir(), "nozero", s);
    char err[512];
    cr_assert_eq(df_plugin_load(so, err, sizeof err), 0, "%s", err);
    float a[1] = {1}, b[1] = {1};
    df_case c = f32_case(a, b, 1);
    df_scratch sc = {0};
    df_result r;
    const df_kernel *k = df_kernel_find("t-one");
    cr_assert_eq(k->host_run(&c, &sc, &r), 0);
    cr_assert(isnan(r.f), "got %g", r.f);
    df_scratch_free(&sc);
}

Test(plugin, nonzero_return_is_an_execution_error_naming_the_kernel)
{
    pspec s = good_spec();
    s.body = "*(float *)r = 0.0f; return 5;";
    const char *so = spec_so(tmpdir(), "fails", s);
    char err[512];
    cr_assert_eq(df_plugin_load(so, err, sizeof err), 0, "%s", err);
    float a[1] = {1}, b[1] = {1};
    df_case c = f32_case(a, b, 1);
    df_scratch sc = {0};
    df_result r;
    const df_kernel *k = df_kernel_find("t-one");
    cr_assert_neq(k->host_run(&c, &sc, &r), 0);
    cr_assert_eq(r.status, DF_RUN_ERROR);
    cr_assert(strstr(r.err, "t-one dot_host returned 5"), "%s", r.err);
    df_scratch_free(&sc);
}

Test(plugin, host_backend_runs_the_routine_cuda_backend_checks_the_model)
{
    const char *so = spec_so(tmpdir(), "bind", good_spec()); /* routine 1, model 2 */
    char err[512];
    cr_assert_eq(df_plugin_load(so, err, sizeof err), 0, "%s", err);
    float a[1] = {1}, b[1] = {1};
    df_case c = f32_case(a, b, 1);
    df_scratch sc = {0};
    df_result r;
    const df_kernel *k = df_kernel_find("t-one");
    cr_assert_null(k->tree_height); /* none given: the oracle uses h = n */
    /* the routine itself for the host backend, the model for model match */
    k->host_run(&c, &sc, &r);
    cr_assert_eq(r.f, 1.0);
    k->host_model(&c, &sc, &r);
    cr_assert_eq(r.f, 2.0);
    df_scratch_free(&sc);
}

/* DOTFUZZ_LEN64 makes a plugin kernel one that --huge gives lengths past
 * 2^31 (DF_K_LEN64); without it, it gets none. */
Test(plugin, len64_flag_reaches_the_kernel)
{
    pspec s = good_spec();
    s.flags = "DOTFUZZ_DETERMINISTIC | DOTFUZZ_LEN64";
    const char *so = spec_so(tmpdir(), "len64", s);
    char err[512];
    cr_assert_eq(df_plugin_load(so, err, sizeof err), 0, "%s", err);
    const df_kernel *k = df_kernel_find("t-one");
    cr_assert(k->flags & DF_K_LEN64);
    cr_assert(k->flags & DF_K_DETERMINISTIC);
}

/* 400 cases of plugin kernel t-one from each library, seed seed: the
 * first clean (exit 0), the second caught (exit 1). */
static void clean_then_caught(const char *clean, const char *caught, unsigned seed)
{
    const char *libs[2] = {clean, caught};
    for (int i = 0; i < 2; i++) {
        int rc = sh("./dotfuzz run --backend host --kernel-lib %s --kernel t-one --cases 400 "
                    "--max-n 2000 --seed %u --quiet --corpus %s/c%u-%d",
                    libs[i], seed, tmpdir(), seed, i);
        cr_assert_eq(rc, i, "%s: rc %d: %s", libs[i], rc, out);
    }
}

/* DOTFUZZ_TF32_INPUTS reaches the kernel as DF_K_TF32_INPUTS, and a plugin
 * that cuts its inputs to tf32 is then judged by the tf32 bound: the same
 * routine declared without the flag is caught. */
Test(plugin, tf32_flag_reaches_the_kernel_and_the_oracle, .timeout = 60)
{
    pspec s = v2_spec();
    s.body = "float acc = 0.0f; for (uint64_t i = 0; i < n; i++) {"
             " uint32_t x, y; float fx, fy; memcpy(&x, (const float *)a + i, 4);"
             " memcpy(&y, (const float *)b + i, 4); x &= ~0x1fffu; y &= ~0x1fffu;"
             " memcpy(&fx, &x, 4); memcpy(&fy, &y, 4); acc += fx * fy; }"
             " *(float *)r = acc; return 0;";
    s.model = "0";
    s.flags = "DOTFUZZ_DETERMINISTIC | DOTFUZZ_TF32_INPUTS";
    const char *with = spec_so(tmpdir(), "tf32", s);
    s.flags = "DOTFUZZ_DETERMINISTIC";
    const char *without = spec_so(tmpdir(), "notf32", s);
    char err[512];
    cr_assert_eq(df_plugin_load(with, err, sizeof err), 0, "%s", err);
    cr_assert(df_kernel_find("t-one")->flags & DF_K_TF32_INPUTS);
    clean_then_caught(with, without, 4);
}

/* DOTFUZZ_BLAS: dot_host gets the call's arrays and launch's increments
 * and n_arg; reference BLAS's loop on them is never a bug, the same loop
 * that ignores the increments is caught. */
Test(plugin, blas_flag_passes_the_call_and_its_arguments, .timeout = 60)
{
    pspec s = v2_spec();
    s.flags = "DOTFUZZ_DETERMINISTIC | DOTFUZZ_BLAS";
    s.model = "0";
    s.body = "const float *x = a, *y = b; float acc = 0.0f;"
             " int64_t m = l->n_arg, ix = l->inc_a < 0 ? (1 - m) * l->inc_a : 0,"
             " iy = l->inc_b < 0 ? (1 - m) * l->inc_b : 0;"
             " for (int64_t i = 0; i < m; i++, ix += l->inc_a, iy += l->inc_b) {"
             " float p = x[ix] * y[iy]; acc += p; }"
             " *(float *)r = acc; return 0;";
    const char *good = spec_so(tmpdir(), "blas", s);
    s.body = "const float *x = a, *y = b; float acc = 0.0f;"
             " for (uint64_t i = 0; i < n; i++) { float p = x[i] * y[i]; acc += p; }"
             " *(float *)r = acc; return 0;";
    const char *flat = spec_so(tmpdir(), "blasflat", s);
    char err[512];
    cr_assert_eq(df_plugin_load(good, err, sizeof err), 0, "%s", err);
    cr_assert(df_kernel_find("t-one")->flags & DF_K_BLAS);
    clean_then_caught(good, flat, 6);
}

Test(plugin, no_len64_without_the_flag)
{
    const char *so = spec_so(tmpdir(), "nolen64", good_spec());
    char err[512];
    cr_assert_eq(df_plugin_load(so, err, sizeof err), 0, "%s", err);
    cr_assert_eq(df_kernel_find("t-one")->flags & DF_K_LEN64, 0);
}

/* ---- refusals: exit 2, one line naming the library and the problem ---- */

static void refused(const char *so, const char *problem)
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

Test(plugin, tf32_flag_on_other_elements_is_refused)
{
    pspec s = v2_spec();
    s.elem = "DOTFUZZ_F64";
    s.acc = "DOTFUZZ_F64";
    s.body = "*(double *)r = 1.0; return 0;";
    s.model = "0";
    s.flags = "DOTFUZZ_DETERMINISTIC | DOTFUZZ_TF32_INPUTS";
    refused(spec_so(tmpdir(), "tf32f64", s), "DOTFUZZ_TF32_INPUTS on elements that are not f32");
}

Test(plugin, refuses_a_missing_file)
{
    char so[600];
    snprintf(so, sizeof so, "%s/nothere.so", tmpdir());
    refused(so, "cannot load");
}

Test(plugin, refuses_a_library_without_the_entry_symbol)
{
    const char *so = build_so(tmpdir(), "notplugin", "int not_a_plugin(void) { return 0; }\n", 0);
    refused(so, "not a dotfuzz plugin: no symbol dotfuzz_plugin_entry");
}

Test(plugin, refuses_another_abi_version_naming_both)
{
    pspec s = good_spec();
    s.abi = "4";
    const char *so = spec_so(tmpdir(), "abi4", s);
    refused(so, "plugin ABI version 4, but this dotfuzz speaks versions 1 to 3");
}

/* abi_version 2 over version 1's struct, 3 over 2's: the sizes say it is
 * not. */
Test(plugin, refuses_a_version_that_its_struct_sizes_contradict)
{
    pspec s = good_spec();
    s.abi = "2";
    refused(spec_so(tmpdir(), "abi2v1", s), "differ from ABI version 2's");
    s = v2_spec();
    s.abi = "3";
    refused(spec_so(tmpdir(), "abi3v2", s), "differ from ABI version 3's");
}

Test(plugin, refuses_a_name_taken_by_a_builtin)
{
    pspec s = good_spec();
    s.name = "\"fold\"";
    const char *so = spec_so(tmpdir(), "dup", s);
    refused(so, "'fold': name already taken");
}

Test(plugin, refuses_the_same_library_twice)
{
    const char *so = example_so(tmpdir());
    cr_assert_eq(sh("./dotfuzz list --kernel-lib %s --kernel-lib %s", so, so), 2);
    cr_assert(strstr(out, "'mydot': name already taken"), "%s", out);
}

Test(plugin, refuses_block_min_above_block_max)
{
    pspec s = good_spec();
    s.bmin = "64";
    s.bmax = "32";
    s.bdef = "32";
    const char *so = spec_so(tmpdir(), "blocks", s);
    refused(so, "block_min <= block_max");
}

Test(plugin, refuses_an_unknown_type)
{
    pspec s = good_spec();
    s.elem = "7";
    const char *so = spec_so(tmpdir(), "type7", s);
    refused(so, "unknown or unsupported types elem=7");
}

Test(plugin, refuses_a_narrowing_accumulator)
{
    pspec s = good_spec();
    s.elem = "DOTFUZZ_F64";
    const char *so = spec_so(tmpdir(), "narrow", s);
    refused(so, "unsupported types elem=2 acc=1");
}

Test(plugin, refuses_unknown_flag_bits)
{
    pspec s = good_spec();
    s.flags = "0x200u";
    const char *so = spec_so(tmpdir(), "flags", s);
    refused(so, "unknown flag bits 0x200");
}

Test(plugin, refuses_a_kernel_with_no_form)
{
    pspec s = good_spec();
    s.host = "0";
    const char *so = spec_so(tmpdir(), "noform", s);
    refused(so, "neither dot_host nor dot_device");
}

Test(plugin, refuses_a_bad_name)
{
    pspec s = good_spec();
    s.name = "\"has space\"";
    const char *so = spec_so(tmpdir(), "badname", s);
    refused(so, "bad name");
}

/* ---- the public header ---- */

Test(plugin, header_is_c89_and_cpp_clean)
{
    for (int v = 1; v <= DOTFUZZ_PLUGIN_ABI_VERSION; v++)
        cr_assert_eq(sh("echo '#include \"dotfuzz/plugin.h\"' | cc -std=c89 -pedantic -Wall "
                        "-Wextra -Werror -DDOTFUZZ_PLUGIN_ABI_VERSION=%d -Iinclude "
                        "-fsyntax-only -x c -", v),
                     0, "version %d: %s", v, out);
    cr_assert_eq(sh("c++ -std=c++11 -pedantic -Wall -Wextra -Werror -Iinclude -fPIC -shared "
                    "-x c++ -o /dev/null examples/plugin/mydot.c"),
                 0, "%s", out);
}

/* ---- plugins in every mode ---- */

/* A new campaign loads --kernel-lib (and --kernel all takes its kernels);
 * the campaign records the library and its kernels, and --resume refuses
 * one that is missing or whose kernels changed. */
Test(plugin, a_campaign_loads_records_and_checks_its_libraries, .timeout = 120)
{
    const char *dir = tmpdir();
    const char *so = example_so(dir);
    int rc = sh("./dotfuzz run --backend host --kernel-lib %s --kernel mydot --cases 300 "
                "--seed 7 --quiet --out %s/c", so, dir);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "  mydot "), "%s", out);
    rc = sh("./dotfuzz run --backend host --kernel-lib %s --kernel all --cases 300 --seed 7 "
            "--quiet --out %s/all", so, dir);
    cr_assert(rc == 0 || rc == 1, "%s", out);
    cr_assert(strstr(out, "  mydot ") && strstr(out, "  mydot-droplast "), "%s", out);
    rc = sh("grep -E '^(kernel_lib|plugin_kernel) ' %s/c/campaign", dir);
    cr_assert(strstr(out, "kernel_lib : /"), "recorded by absolute path: %s", out);
    cr_assert(strstr(out, "plugin_kernel : ") && strstr(out, " mydot elem=1 acc=1 "), "%s",
              out);
    /* resumed from another directory: found by its recorded path */
    rc = sh("d=$(pwd); cd / && $d/dotfuzz run --resume %s/c --cases 400 --quiet", dir);
    cr_assert_eq(rc, 0, "%s", out);
    /* its kernels changed: refused, one line */
    pspec sp = good_spec();
    sp.name = "\"mydot\"";
    sp.flags = "0";
    rc = sh("cp %s %s/saved.so && cp %s %s", so, dir, spec_so(dir, "other", sp), so);
    rc = sh("./dotfuzz run --resume %s/c --cases 500", dir);
    cr_assert_eq(rc, 2, "%s", out);
    cr_assert(strstr(out, "kernels changed since"), "%s", out);
    /* missing: refused, one line naming it */
    rc = sh("rm %s && ./dotfuzz run --resume %s/c --cases 500", so, dir);
    cr_assert_eq(rc, 2, "%s", out);
    cr_assert(strstr(out, "--kernel-lib /") && strstr(out, "mydot.so"), "%s", out);
}

/* list says where each plugin kernel runs: a whole routine on either
 * backend (as the built-ins do where this build has CUDA), a device form
 * alone on cuda only. */
Test(plugin, list_says_where_each_plugin_kernel_runs)
{
    const char *dir = tmpdir();
    pspec dev = good_spec();
    dev.name = "\"t-dev\"";
    dev.host = "0";
    dev.model = "0";
    dev.dev = DEV_FORM;
    const char *so = spec_so(dir, "dev", dev);
    cr_assert_eq(sh("./dotfuzz list --kernel-lib %s --kernel-lib %s", example_so(dir), so), 0,
                 "%s", out);
    char *builtin = strstr(out, "  shfl "), *mydot = strstr(out, "  mydot "),
         *tdev = strstr(out, "  t-dev ");
    cr_assert(builtin && mydot && tdev, "%s", out);
    int cuda = strstr(builtin, " both ") && strstr(builtin, " both ") < strchr(builtin, '\n');
    const char *want_mydot = cuda ? " both " : " host ", *want_dev = cuda ? " cuda " : " - ";
    cr_assert(strstr(mydot, want_mydot) < strchr(mydot, '\n'), "%s", out);
    cr_assert(strstr(tdev, want_dev) && strstr(tdev, want_dev) < strchr(tdev, '\n'), "%s", out);
}

/* A library whose constructor crashes is refused with one line by every
 * command that loads plugins, not fatal to it. */
Test(plugin, a_crashing_constructor_is_refused_everywhere)
{
    const char *dir = tmpdir();
    const char *so = build_so(dir, "ctor",
                              "#include \"dotfuzz/plugin.h\"\n"
                              "__attribute__((constructor)) static void boom(void)\n"
                              "{ volatile unsigned long z = 0; *(volatile int *)z = 1; }\n"
                              "const dotfuzz_plugin *dotfuzz_plugin_entry(void) { return 0; }\n",
                              0);
    const char *cmds[] = {"list", "run --backend host --cases 10", "replay corpus/regression",
                          "smoke --backend host --time 0", "hunt --backend host --cases 1",
                          "merge --backend host /tmp/dotfuzz-never corpus/regression"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        int rc = sh("./dotfuzz %s --kernel-lib %s", cmds[i], so);
        cr_assert_eq(rc, 2, "%s: %s", cmds[i], out);
        cr_assert(strstr(out, "ctor.so: loading it ended the process") &&
                      strstr(out, "signal 11"),
                  "%s: %s", cmds[i], out);
    }
}

/* hunt takes plugins as correct kernels and --kernel lists */
Test(plugin, hunt_runs_a_plugin_kernel)
{
    const char *so = example_so(tmpdir());
    int rc = sh("./dotfuzz hunt --backend host --kernel-lib %s --kernel mydot,m-tail "
                "--cases 300", so);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "  mydot ") && strstr(out, "correct 300 cases"), "%s", out);
    cr_assert(strstr(out, "  m-tail ") && strstr(out, "0 mutant(s) escaped"), "%s", out);
}

/* ---- ABI version 2: low-precision types and fused accumulation ---- */

static const char *lowp_example_so(const char *dir)
{
    return build_so(dir, "mydot_lowp", "examples/plugin/mydot_lowp.c", 1);
}

/* A version 1 library loads as it always did: no fused accumulation. */
Test(plugin, a_version_1_library_loads_unchanged)
{
    const char *so = spec_so(tmpdir(), "v1", good_spec());
    char err[512], line[512];
    cr_assert_eq(df_plugin_load(so, err, sizeof err), 0, "%s", err);
    const df_kernel *k = df_kernel_find("t-one");
    cr_assert_null(k->fused);
    cr_assert_eq(df_plugin_describe(0, line, sizeof line), 0);
    cr_assert_null(strstr(line, "fused"), "%s", line);
}

Test(plugin, v2_lowp_kernels_load_with_their_types_and_fused_model)
{
    const char *so = lowp_example_so(tmpdir());
    char err[512], line[512];
    cr_assert_eq(df_plugin_load(so, err, sizeof err), 0, "%s", err);
    const df_kernel *seq = df_kernel_find("mydot-h16"), *tc = df_kernel_find("mydot-h16-tc");
    cr_assert(seq && tc);
    cr_assert_eq(seq->elem, DF_F16);
    cr_assert_eq(seq->acc, DF_F32);
    cr_assert_null(seq->fused);
    const df_fused_model *m = tc->fused;
    cr_assert_not_null(m);
    cr_assert(m->group == 16 && m->align_bits == 25 && m->out_bits == 23 &&
              m->out_round == DF_ROUND_ZERO && m->out_min_exp == -126 &&
              m->out_max_exp == 127 && m->in_min_exp == -14); /* 0 given: f16's */
    cr_assert_eq(tc->fused_chains, 1u);
    cr_assert_eq(df_plugin_describe(1, line, sizeof line), 0);
    cr_assert(strstr(line, " elem=4 acc=1 ") && strstr(line, " fused=16/25/23/rz/-126..127/-14/1"),
              "%s", line);
    /* 1*3 + 2*4 + 0.5*2 as f16 bits, through both routines */
    const uint16_t a[3] = {0x3c00, 0x4000, 0x3800}, b[3] = {0x4200, 0x4400, 0x4000};
    df_case c = {.type = DF_F16, .n = 3, .a = a, .b = b};
    df_scratch sc = {0};
    df_result r;
    cr_assert_eq(seq->host_run(&c, &sc, &r), 0, "%s", r.err);
    cr_assert_eq(r.f, 12.0);
    cr_assert_eq(tc->host_run(&c, &sc, &r), 0, "%s", r.err);
    cr_assert_eq(r.f, 12.0);
    df_scratch_free(&sc);
}

/* The example's f16 kernels fuzz clean on every lp family, list shows
 * their types and fused accumulation, probe finds what it declares. */
Test(plugin, v2_lowp_example_runs_clean_and_lists_its_fused_accumulation, .timeout = 120)
{
    const char *dir = tmpdir();
    const char *so = lowp_example_so(dir);
    runs_clean(so, "mydot-h16,mydot-h16-tc", 1200, dir);
    cr_assert_eq(sh("./dotfuzz list --json --kernel-lib %s", so), 0, "%s", out);
    cr_assert(strstr(out, "\"name\":\"mydot-h16-tc\",\"origin\":\"plugin\",\"elem\":\"f16\","
                          "\"acc\":\"f32\","), "%s", out);
    cr_assert(strstr(out, "\"fused\":{\"group\":16,\"align_bits\":25,\"out_bits\":23,"
                          "\"out_round\":\"zero\",\"out_min_exp\":-126,\"out_max_exp\":127,"
                          "\"in_min_exp\":-14,\"chains\":1}"), "%s", out);
    cr_assert_eq(sh("./dotfuzz list --kernel-lib %s", so), 0, "%s", out);
    cr_assert(strstr(out, "  mydot-h16-tc     plugin    f16  f32 "), "%s", out);
    /* probe measures the arithmetic the plugin declared */
    cr_assert_eq(sh("./dotfuzz probe --backend host --kernel-lib %s --kernel mydot-h16-tc", so),
                 0, "%s", out);
    cr_assert(strstr(out, "bits kept below the largest    25                     25"), "%s", out);
    cr_assert(strstr(out, "elements fused with the first  16                     16"), "%s", out);
}

/* An f16 accumulator's result is an f16's bits, decoded; the poison (all
 * bits set) is an f16 NaN. */
Test(plugin, v2_f16_accumulator_result_is_decoded_and_poisoned)
{
    pspec s = v2_spec();
    s.elem = "DOTFUZZ_E4M3";
    s.acc = "DOTFUZZ_F16";
    s.body = "if (n) *(uint16_t *)r = 0xbe00; return 0;"; /* -1.5; n = 0 writes nothing */
    const char *so = spec_so(tmpdir(), "h16acc", s);
    char err[512];
    cr_assert_eq(df_plugin_load(so, err, sizeof err), 0, "%s", err);
    const df_kernel *k = df_kernel_find("t-one");
    cr_assert_eq(k->elem, DF_E4M3);
    cr_assert_eq(k->acc, DF_F16);
    const uint8_t a[1] = {0x38}, b[1] = {0x38};
    df_case c = {.type = DF_E4M3, .n = 1, .a = a, .b = b};
    df_scratch sc = {0};
    df_result r;
    cr_assert_eq(k->host_run(&c, &sc, &r), 0, "%s", r.err);
    cr_assert_eq(r.f, -1.5);
    c.n = 0;
    cr_assert_eq(k->host_run(&c, &sc, &r), 0, "%s", r.err);
    cr_assert(isnan(r.f), "got %g", r.f);
    df_scratch_free(&sc);
}

/* A wrong low-precision kernel is found, and its finding replays with its
 * types in the JSON. */
Test(plugin, v2_lowp_bug_is_found_and_replays_with_its_types)
{
    const char *dir = tmpdir();
    pspec s = v2_spec();
    s.elem = "DOTFUZZ_BF16";
    s.body = "*(float *)r = 1.0f; return 0;"; /* whatever the vectors */
    const char *so = spec_so(dir, "bf16bug", s);
    int rc = sh("./dotfuzz run --backend host --kernel-lib %s --kernel t-one --cases 200 "
                "--seed 7 --save-precision none --corpus %s/corpus", so, dir);
    cr_assert_eq(rc, 1, "%s", out);
    char corpus[512], file[1024];
    snprintf(corpus, sizeof corpus, "%s/corpus", dir);
    first_file(corpus, file, sizeof file);
    rc = sh("./dotfuzz replay --backend host --json --kernel-lib %s %s 2>/dev/null", so, file);
    cr_assert_eq(rc, 1, "%s", out);
    cr_assert(strstr(out, "\"kernel\":\"t-one\",\"type\":\"bf16\",\"acc\":\"f32\",\"fused\":null,"),
              "%s", out);
    cr_assert(strstr(out, "\"verdict\":\"bug\""), "%s", out);
}

/* Version 2's refusals: types it does not pair, and each bad fused field,
 * one line naming the kernel and the field. */
Test(plugin, v2_refuses_bad_pairs_and_bad_fused_fields)
{
    static const struct {
        const char *elem, *acc, *fz, *problem;
    } bad[] = {
        {"DOTFUZZ_F32", "DOTFUZZ_F16", NULL, "unsupported types elem=1 acc=4"},
        {"DOTFUZZ_F16", "DOTFUZZ_BF16", NULL, "unsupported types elem=4 acc=5"},
        {"DOTFUZZ_F32", "DOTFUZZ_F32", "{16, 25, 23, 1, -126, 127, 0, 1}",
         "fused accumulation: only for f16, bf16, e4m3 and e5m2 elements"},
        {"DOTFUZZ_F16", "DOTFUZZ_F32", "{65, 25, 23, 1, -126, 127, 0, 1}",
         "fused group 65: need 1 to 64"},
        {"DOTFUZZ_BF16", "DOTFUZZ_F32", "{16, 49, 23, 1, -126, 127, 0, 1}",
         "fused align_bits 49: need 1 to 48"},
        {"DOTFUZZ_E5M2", "DOTFUZZ_F16", "{32, 13, 11, 0, -14, 15, 0, 1}",
         "fused out_bits 11: need 1 to 10 (f16's fraction bits)"},
        {"DOTFUZZ_F16", "DOTFUZZ_F32", "{16, 25, 23, 2, -126, 127, 0, 1}",
         "fused out_round 2"},
        {"DOTFUZZ_F16", "DOTFUZZ_F32", "{16, 25, 23, 1, -127, 127, 0, 1}",
         "fused exponents -127..127: need -126 <= out_min_exp < out_max_exp <= 127 (f32)"},
        {"DOTFUZZ_F16", "DOTFUZZ_F32", "{16, 25, 23, 1, -126, 127, -126, 1}",
         "fused in_min_exp -126: f16's smallest normal exponent is -14 (or give 0)"},
        {"DOTFUZZ_E4M3", "DOTFUZZ_F32", "{32, 13, 13, 1, -126, 127, -6, 70000}",
         "fused chains 70000"},
    };
    const char *dir = tmpdir();
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pspec s = v2_spec();
        s.elem = bad[i].elem;
        s.acc = bad[i].acc;
        s.fz = bad[i].fz;
        s.fused = bad[i].fz ? "&fz" : "0";
        char name[32], err[512] = "";
        snprintf(name, sizeof name, "bad%zu", i);
        cr_assert_eq(df_plugin_load(spec_so(dir, name, s), err, sizeof err), -1, "%s", name);
        cr_assert(strstr(err, "kernel 0 't-one': ") && strstr(err, bad[i].problem), "%s: %s",
                  bad[i].problem, err);
    }
    cr_assert_eq(df_plugin_count(), 0);
    /* and through a command: exit 2, one line */
    pspec s = v2_spec();
    s.elem = "DOTFUZZ_F64";
    s.acc = "DOTFUZZ_F64";
    s.fz = "{16, 25, 23, 1, -126, 127, 0, 1}";
    s.fused = "&fz";
    refused(spec_so(dir, "f64fused", s), "fused accumulation: only for");
}

/* A version 1 library may not use version 2's types. */
Test(plugin, v1_refuses_the_lowp_types)
{
    pspec s = good_spec();
    s.elem = "4";
    refused(spec_so(tmpdir(), "v1f16", s),
            "unknown or unsupported types elem=4 acc=1 (f32=1, f64=2, i32=3; f32->f32|f64, "
            "f64->f64, i32->i32; ABI version 1)");
}

/* ---- ABI version 3: the batched device form, device scratch ---- */

/* The header's layout of a batch, on this LP64 target: dotfuzz hands the
 * backend's table to the plugin as it is, so the ABI's case is the
 * backend's case field for field (fuzz/plugin.c asserts the same when
 * built). */
Test(plugin, v3_batch_structs_have_their_pinned_layout)
{
    static const struct {
        size_t abi, backend, want;
    } field[] = {
#define F(f, w) {offsetof(dotfuzz_batch_case, f), offsetof(df_gpu_batch_case, f), w}
        F(a, 0),      F(b, 8),       F(n, 16),     F(scratch_off, 24), F(grid, 32),
        F(block, 36), F(first_block, 40), F(result, 44), F(ticket, 48),  F(blocks, 52),
        F(inc_a, 56), F(inc_b, 60),  F(n_arg, 64),
#undef F
    };
    for (size_t i = 0; i < sizeof field / sizeof field[0]; i++) {
        cr_assert_eq(field[i].abi, field[i].want, "field %zu", i);
        cr_assert_eq(field[i].backend, field[i].want, "field %zu", i);
    }
    cr_assert_eq(sizeof(dotfuzz_batch_case), 72u);
    cr_assert_eq(sizeof(df_gpu_batch_case), 72u);
    cr_assert_eq(offsetof(dotfuzz_batch, count), 8u);
    cr_assert_eq(offsetof(dotfuzz_batch, block), 16u);
    cr_assert_eq(offsetof(dotfuzz_batch, blocks), 20u);
    cr_assert_eq(offsetof(dotfuzz_batch, max_grid), 24u);
    cr_assert_eq(offsetof(dotfuzz_batch, max_n), 32u);
    cr_assert_eq(offsetof(dotfuzz_batch, d_scratch), 40u);
    cr_assert_eq(offsetof(dotfuzz_batch, d_results), 48u);
    cr_assert_eq(offsetof(dotfuzz_batch, stream), 56u);
    cr_assert_eq(sizeof(dotfuzz_batch), 64u);
    /* version 3's fields follow version 2's, which are unchanged */
    cr_assert_eq(offsetof(dotfuzz_launch, n_arg), 24u);
    cr_assert_eq(offsetof(dotfuzz_launch, d_scratch), 32u);
    cr_assert_eq(sizeof(dotfuzz_launch), 40u);
    cr_assert_eq(offsetof(dotfuzz_kernel, fused), 88u);
    cr_assert_eq(offsetof(dotfuzz_kernel, scratch_bytes), 96u);
    cr_assert_eq(offsetof(dotfuzz_kernel, dot_device_batch), 104u);
    cr_assert_eq(sizeof(dotfuzz_kernel), 112u);
}

/* A kernel with the batched form and scratch registers GPU ops that batch
 * it (enqueue_batch, every case's blocks numbered: batch_blocks = grid)
 * and size its scratch by its own function. */
Test(plugin, v3_batched_form_registers_a_batch_launcher)
{
    pspec s = v3_spec();
    s.name = "\"t-batch\"";
    s.host = "0";
    s.dev = DEV_FORM;
    s.v3 = "scr, bat";
    char err[512], line[512];
    cr_assert_eq(df_plugin_load(spec_so(tmpdir(), "batch", s), err, sizeof err), 0, "%s", err);
    const df_kernel *k = df_kernel_find("t-batch");
    const struct df_gpu_ops *ops = df_plugin_gpu_ops(0);
    cr_assert(k && ops);
#ifdef DOTFUZZ_CUDA
    cr_assert_eq(k->gpu, ops);
#else
    cr_assert_null(k->gpu);
#endif
    cr_assert_not_null(ops->enqueue && ops->finish);
    cr_assert_not_null(ops->enqueue_batch);
    cr_assert_not_null(ops->batch_blocks);
    df_launch l = {256, 7, 0, 0};
    cr_assert_eq(ops->batch_blocks(2000, &l), 7u);
    cr_assert_eq(ops->scratch_bytes(10, &l), 256u + 40u);
    cr_assert_eq(df_plugin_describe(0, line, sizeof line), 0);
    cr_assert(strstr(line, " forms=dbm"), "%s", line);
    cr_assert_null(df_plugin_gpu_ops(1));
}

/* Without the batched form a batch calls the device form per case, with
 * no scratch; so does a version 2 library's device form. */
Test(plugin, a_device_form_without_the_batched_one_has_no_batch_launcher)
{
    pspec s[2] = {v3_spec(), v2_spec()};
    for (int i = 0; i < 2; i++) {
        s[i].name = i ? "\"t-v2\"" : "\"t-v3\"";
        s[i].dev = DEV_FORM;
        char err[512], name[8];
        snprintf(name, sizeof name, "dev%d", i);
        cr_assert_eq(df_plugin_load(spec_so(tmpdir(), name, s[i]), err, sizeof err), 0, "%s",
                     err);
        const struct df_gpu_ops *ops = df_plugin_gpu_ops((size_t)i);
        cr_assert_not_null(ops);
        cr_assert_null(ops->enqueue_batch);
        cr_assert_null(ops->batch_blocks);
        df_launch l = {1, 1, 0, 0};
        cr_assert_eq(ops->scratch_bytes(10, &l), 0u);
    }
    cr_assert_eq(df_plugin_count(), 2u);
}

/* A version 2 library, built with version 2's header, loads as it did. */
Test(plugin, a_version_2_library_loads_unchanged)
{
    char err[512], line[512];
    cr_assert_eq(df_plugin_load(spec_so(tmpdir(), "v2", v2_spec()), err, sizeof err), 0, "%s",
                 err);
    const df_kernel *k = df_kernel_find("t-one");
    cr_assert_not_null(k);
    cr_assert_null(k->fused);
    cr_assert_null(df_plugin_gpu_ops(0)->enqueue_batch);
    cr_assert_eq(df_plugin_describe(0, line, sizeof line), 0);
    cr_assert(strstr(line, " forms=hm"), "%s", line);
}

/* Single cases run through dot_device, so the batched form needs it;
 * scratch is for the device forms only. */
Test(plugin, v3_refuses_a_batched_form_or_scratch_without_dot_device)
{
    static const struct {
        const char *v3, *flags, *problem;
    } bad[] = {
        {"0, bat", "DOTFUZZ_DETERMINISTIC", "dot_device_batch without dot_device"},
        {"scr, 0", "DOTFUZZ_DETERMINISTIC", "scratch_bytes without dot_device"},
        {"0, 0", "0x200u", "unknown flag bits 0x200"}, /* still, in version 3 */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pspec s = v3_spec();
        s.v3 = bad[i].v3;
        s.flags = bad[i].flags;
        char name[16];
        snprintf(name, sizeof name, "v3bad%zu", i);
        refused(spec_so(tmpdir(), name, s), bad[i].problem);
    }
}

/* DOTFUZZ_BLAS takes every form: a device form (version 2) and the
 * batched one (version 3) load, and run on the GPU; dot_host alone runs on
 * the host backend only (the call's arrays reach the device forms). */
Test(plugin, blas_flag_takes_the_device_forms)
{
    pspec v2 = v2_spec(), v3 = v3_spec(), host = v2_spec();
    v2.name = "\"t-blas-dev\"";
    v3.name = "\"t-blas-batch\"";
    host.name = "\"t-blas-host\"";
    v2.flags = v3.flags = host.flags = "DOTFUZZ_DETERMINISTIC | DOTFUZZ_BLAS";
    v2.dev = v3.dev = DEV_FORM;
    v2.host = v3.host = "0";
    v3.v3 = "scr, bat";
    const pspec all[3] = {v2, v3, host};
    for (size_t i = 0; i < 3; i++) {
        char err[512], name[16];
        snprintf(name, sizeof name, "blas%zu", i);
        cr_assert_eq(df_plugin_load(spec_so(tmpdir(), name, all[i]), err, sizeof err), 0,
                     "%s", err);
        const df_kernel *k = df_plugin_at(i);
        cr_assert(k->flags & DF_K_BLAS, "%s", k->name);
#ifdef DOTFUZZ_CUDA
        cr_assert_eq(k->gpu, i < 2 ? df_plugin_gpu_ops(i) : NULL, "%s", k->name);
#else
        cr_assert_null(k->gpu, "%s", k->name);
#endif
    }
    cr_assert_not_null(df_plugin_gpu_ops(1)->enqueue_batch);
}

/* The batched example builds with nvcc as examples/plugin/Makefile builds
 * it, lists its two kernels, and their host models (the host backend's
 * form of a device kernel) fuzz clean, the BLAS one on strided calls. */
Test(plugin, batch_example_builds_lists_and_its_models_run_clean, .timeout = 300)
{
    if (sh("command -v nvcc || test -x /usr/local/cuda/bin/nvcc") != 0)
        cr_skip_test("no nvcc");
    const char *dir = tmpdir();
    char so[512];
    snprintf(so, sizeof so, "%s/mydot_batch.so", dir);
    int rc = sh("PATH=$PATH:/usr/local/cuda/bin nvcc -O3 -std=c++17 -arch=sm_90 -Xcompiler "
                "-Wall,-Wextra,-Werror,-fPIC,-ffp-contract=off -shared -Iinclude -o %s "
                "examples/plugin/mydot_batch.cu",
                so);
    cr_assert_eq(rc, 0, "nvcc: %s", out);
    cr_assert_eq(sh("./dotfuzz list --kernel-lib %s", so), 0, "%s", out);
    cr_assert(strstr(out, "  mydot-batch      plugin    f32  f32  yes   32-1024 x32 "), "%s", out);
    cr_assert(strstr(out, "  mydot-batch-blas plugin    f32  f32  yes   32-1024 x32 "), "%s", out);
    runs_clean(so, "mydot-batch,mydot-batch-blas", 1000, dir);
    cr_assert_eq(sh("./dotfuzz list --json --kernel-lib %s", so), 0, "%s", out);
    const char *blas = strstr(out, "\"name\":\"mydot-batch-blas\"");
    cr_assert(blas && strstr(blas, "\"blas\":true"), "%s", out);
}
