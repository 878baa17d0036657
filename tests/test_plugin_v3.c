/* test_plugin_v3.c — the plugin ABI's version 3 (include/dotfuzz/plugin.h):
 * the batch structs' pinned layout (the backend's own table), a batched
 * device form registering a batch launcher with its scratch, older
 * libraries loading unchanged, the refusals of a batched form or scratch
 * without dot_device, DOTFUZZ_BLAS with the device forms, and the batched
 * example (examples/plugin/mydot_batch.cu) built with nvcc where there is
 * one. Each Criterion test runs in its own process, with an empty plugin
 * registry. */
#include <criterion/criterion.h>

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "fuzz/plugin.h"
#include "include/dotfuzz/plugin.h"
#include "kernels/gpu_ops.h"
#include "kernels/kernel.h"
#include "tests/plugin_helpers.h"

/* The header's layout of a batch, on this LP64 target: dotfuzz hands the
 * backend's table to the plugin as it is, so the ABI's case is the
 * backend's case field for field (fuzz/plugin.c asserts the same when
 * built). */
Test(plugin_v3, batch_structs_have_their_pinned_layout)
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
Test(plugin_v3, batched_form_registers_a_batch_launcher)
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
Test(plugin_v3, a_device_form_without_the_batched_one_has_no_batch_launcher)
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
Test(plugin_v3, a_version_2_library_loads_unchanged)
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
Test(plugin_v3, refuses_a_batched_form_or_scratch_without_dot_device)
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
Test(plugin_v3, blas_flag_takes_the_device_forms)
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
Test(plugin_v3, batch_example_builds_lists_and_its_models_run_clean, .timeout = 300)
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
