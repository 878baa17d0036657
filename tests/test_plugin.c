/* test_plugin.c — user kernels as plugins (`--kernel-lib`, the ABI of
 * include/dotfuzz/plugin.h): the example plugin builds, loads and runs (in
 * process and through ./dotfuzz on the host backend), its planted bug is
 * found and replays, and every bad library is refused with exit status 2
 * and a message naming it and the problem (ABI version 3's batched form:
 * test_plugin_v3.c). Plugins are compiled here with cc into a temporary
 * directory (tests/plugin_helpers.h); each Criterion test runs in its own
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
#include "kernels/kernel.h"
#include "tests/plugin_helpers.h"

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
