/* test_mutants.c — the mutants (kernels/mutants/) against the oracle on the
 * host backend: every mutant with a host model is caught (verdict bug, by
 * the rule its bug class should trip) within a bounded number of generated
 * cases, while its correct parent passes the same cases, but m-rz-acc and
 * m-mul24, which today's rules and families cannot catch
 * (tests/test_precision_mutants.c pins their models); the host backend's
 * guard zones hold their poison on both sides of both vectors; GPU-only
 * mutants are registered with no host model and a GPU launcher exactly when
 * the build has CUDA. CPU only. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fuzz/backend/backend.h"
#include "fuzz/check/check.h"
#include "fuzz/gen/generator.h"
#include "kernels/kernel.h"
#include "tests/host_helpers.h"

enum { MAX_CASES = 2000, PARENT_CASES = 200, GUARD = 64 };

static const uint64_t SEED = 20240418; /* seed 000's post date */

/* What hunting a mutant found: the first case judged bug and its rule. */
typedef struct hunt {
    int caught;
    uint64_t index;
    const char *rule;
    uint64_t parent_checked; /* cases the parent also ran (launch valid) */
} hunt;

/* Runs case c (generated for a mutant of parent p) on p when its launch is
 * valid for p, and asserts p is not judged bug. Returns whether it ran. */
static int parent_passes(df_backend *b, const df_kernel *p, const df_case *c,
                         const df_oracle_opts *oo)
{
    df_case pc = *c;
    if (df_launch_resolve(p, c->n, &pc.launch, NULL, 0) != 0)
        return 0;
    snprintf(pc.kernel, sizeof pc.kernel, "%s", p->name);
    df_checked r;
    cr_assert_eq(df_check_case(b, p, &pc, oo, &r), 0);
    cr_assert_neq(r.j.verdict, DF_V_BUG,
                  "parent %s judged bug on case %llu (n=%llu): %s: %s",
                  p->name, (unsigned long long)c->index,
                  (unsigned long long)c->n, r.j.rule, r.j.why);
    return 1;
}

/* Generates cases (SEED, 0..MAX_CASES) for mutant m until one is judged
 * bug (family 0: all families mixed), and at least PARENT_CASES of them;
 * each whose launch is valid for parent also runs on parent, which must
 * not be judged bug. */
static hunt hunt_mutant(const char *mutant, const char *parent,
                        uint32_t family)
{
    const df_kernel *m = df_test_find(mutant), *p = df_test_find(parent);
    cr_assert_not_null(m->host_model, "%s has no host model", mutant);
    df_backend *b = df_test_open_host();
    df_scratch buf = {0};
    df_gen_opts go = {.max_n = 4096, .family = family};
    df_oracle_opts oo = {.tol = 1e-6};
    hunt h = {0};
    for (uint64_t i = 0; i < MAX_CASES && !(h.caught && i >= PARENT_CASES);
         i++) {
        df_case c;
        cr_assert_eq(df_generate(SEED, i, m, &go, &buf, &c), 0);
        df_checked r;
        if (!h.caught) {
            cr_assert_eq(df_check_case(b, m, &c, &oo, &r), 0);
            if (r.j.verdict == DF_V_BUG) {
                h.caught = 1;
                h.index = i;
                h.rule = r.j.rule;
            }
        }
        h.parent_checked += (uint64_t)parent_passes(b, p, &c, &oo);
    }
    df_scratch_free(&buf);
    df_backend_close(b);
    return h;
}

static void expect_caught(const char *mutant, const char *parent,
                          uint32_t family, const char *rule)
{
    hunt h = hunt_mutant(mutant, parent, family);
    cr_assert(h.caught, "%s survived %d cases", mutant, MAX_CASES);
    cr_assert_str_eq(h.rule, rule, "%s caught at case %llu by rule %s", mutant,
                     (unsigned long long)h.index, h.rule);
    cr_assert_gt(h.parent_checked, 0, "%s: parent %s ran no case", mutant,
                 parent);
}

/* ---- mutants with a host model: caught, parent clean ---- */

Test(mutants, tail_reads_guard_nan_caught_as_nonfinite)
{
    expect_caught("m-tail", "atomic-block", 0, "nonfinite");
}

Test(mutants, read_past_end_caught_as_nonfinite)
{
    expect_caught("m-read-past-end", "atomic-block", 0, "nonfinite");
}

Test(mutants, wrong_copy_size_caught_as_exact)
{
    expect_caught("m-wrong-copy-size", "atomic-block", DF_FAM_INT_SMALL, "exact");
}

Test(mutants, wrong_copy_size_caught_as_bound_on_uniform)
{
    expect_caught("m-wrong-copy-size", "atomic-block", DF_FAM_UNIFORM, "bound");
}

Test(mutants, pow2_tree_with_odd_block_caught_as_exact)
{
    expect_caught("m-pow2-tree", "tree-hostsum", DF_FAM_INT_SMALL, "exact");
}

Test(mutants, pow2_tree_with_odd_block_caught_as_bound_on_uniform)
{
    expect_caught("m-pow2-tree", "tree-hostsum", DF_FAM_UNIFORM, "bound");
}

Test(mutants, stride_off_by_one_caught_as_exact)
{
    expect_caught("m-stride-off-by-one", "tree-hostsum", DF_FAM_INT_SMALL, "exact");
}

Test(mutants, stride_off_by_one_caught_as_bound_on_uniform)
{
    expect_caught("m-stride-off-by-one", "tree-hostsum", DF_FAM_UNIFORM, "bound");
}

Test(mutants, fold_bounds_caught_as_exact)
{
    expect_caught("m-fold-bounds", "fold", DF_FAM_INT_SMALL, "exact");
}

Test(mutants, fold_bounds_caught_as_bound_on_uniform)
{
    expect_caught("m-fold-bounds", "fold", DF_FAM_UNIFORM, "bound");
}

Test(mutants, tournament_bounds_caught_as_exact)
{
    expect_caught("m-tournament-bounds", "tournament", DF_FAM_INT_SMALL, "exact");
}

Test(mutants, tournament_bounds_caught_as_bound_on_uniform)
{
    expect_caught("m-tournament-bounds", "tournament", DF_FAM_UNIFORM, "bound");
}

Test(mutants, int16_sum_caught_as_exact)
{
    expect_caught("m-int16-sum", "int-atomic", 0, "exact");
}

/* m-int32-acc promises a 64-bit result, so the generator gives it int-big
 * cases whose sums leave int32; its int32 accumulation wraps and the exact
 * rule sees it. The parent (int32 result) never gets such a case: int-big
 * is for 64-bit-result kernels only, and forcing it there is refused. */
Test(mutants, int32_acc_caught_as_exact_on_sums_past_int32)
{
    const df_kernel *m = df_test_find("m-int32-acc"), *p = df_test_find("int-atomic");
    df_backend *b = df_test_open_host();
    df_scratch buf = {0};
    df_gen_opts go = {.max_n = 4096, .family = DF_FAM_INT_BIG};
    df_oracle_opts oo = {.tol = 1e-6};
    int caught = 0;
    for (uint64_t i = 0; i < 200 && !caught; i++) {
        df_case c;
        cr_assert_eq(df_generate(SEED, i, m, &go, &buf, &c), 0);
        cr_assert_eq(c.family, DF_FAM_INT_BIG);
        df_checked r;
        cr_assert_eq(df_check_case(b, m, &c, &oo, &r), 0);
        if (r.j.verdict == DF_V_BUG) {
            cr_assert_str_eq(r.j.rule, "exact", "%s", r.j.why);
            caught = 1;
        }
    }
    cr_assert(caught, "m-int32-acc survived 200 int-big cases");
    df_case c;
    cr_assert_eq(df_generate(SEED, 0, p, &go, &buf, &c), -1,
                 "int-big forced on an int32-result kernel");
    go.family = 0;
    for (uint64_t i = 0; i < 2000; i++) {
        cr_assert_eq(df_generate(SEED, i, p, &go, &buf, &c), 0);
        cr_assert_neq(c.family, DF_FAM_INT_BIG, "int-big drawn for int-atomic at %llu",
                      (unsigned long long)i);
    }
    df_scratch_free(&buf);
    df_backend_close(b);
}

Test(mutants, int32_acc_hand_case_wraps_past_int32)
{
    /* 2 * 46340 * 46340 = 4294791200: past int32, exact in the 64-bit
     * result the descriptor promises; int32 accumulation wraps it to
     * 4294791200 - 2^32 = -176096 */
    const int32_t a[2] = {46340, 46340}, b[2] = {46340, 46340};
    cr_assert_eq(df_test_run_host(df_test_find("m-int32-acc"), DF_I32, a, b, 2, 32).i, -176096);
}

Test(mutants, vec_tail_caught_as_exact)
{
    expect_caught("m-vec-tail", "shfl", DF_FAM_INT_SMALL, "exact");
}

Test(mutants, vec_tail_caught_as_bound_on_uniform)
{
    expect_caught("m-vec-tail", "shfl", DF_FAM_UNIFORM, "bound");
}

/* m-bf16-products rounds each product to 8 bits: wrong in the exact
 * regime once a product needs more, and past the bound where the rounded
 * products dominate G. */
Test(mutants, bf16_products_caught_as_exact)
{
    expect_caught("m-bf16-products", "tree-hostsum", DF_FAM_INT_SMALL, "exact");
}

Test(mutants, bf16_products_caught_as_bound_on_uniform)
{
    expect_caught("m-bf16-products", "tree-hostsum", DF_FAM_UNIFORM, "bound");
}

/* m-half2-f32-declared sums in f16 what it declares an f32 sum rounded
 * once to f16: past the bound on f16 data, where its parent, the same sums
 * declared f16, stays inside. */
Test(mutants, half2_f32_declared_caught_as_bound)
{
    expect_caught("m-half2-f32-declared", "half2-f16", DF_FAM_LP_RANGE, "bound");
}

/* ---- the mutants' host models, pinned on hand-made cases ---- */

Test(mutants, fold_bounds_drops_last_cell_of_three)
{
    const float a[3] = {1, 2, 4}, b[3] = {1, 1, 1};
    cr_assert_eq(df_test_run_host(df_test_find("fold"), DF_F32, a, b, 3, 32).f, 7.0);
    cr_assert_eq(df_test_run_host(df_test_find("m-fold-bounds"), DF_F32, a, b, 3, 32).f, 3.0);
}

Test(mutants, tournament_bounds_drops_unmatched_tail_of_six)
{
    const float a[6] = {1, 2, 4, 8, 16, 32}, b[6] = {1, 1, 1, 1, 1, 1};
    cr_assert_eq(df_test_run_host(df_test_find("tournament"), DF_F32, a, b, 6, 32).f, 63.0);
    /* D=1: (0,1) (2,3) (4,5); D=2: one match (0,2); cells 4-5 are lost */
    cr_assert_eq(df_test_run_host(df_test_find("m-tournament-bounds"), DF_F32, a, b, 6, 32).f,
                 15.0);
}

Test(mutants, pow2_tree_block_48_drops_cells)
{
    float a[48], b[48];
    for (int i = 0; i < 48; i++) {
        a[i] = 1.0f;
        b[i] = 1.0f;
    }
    /* levels 24, 12, 6, 3, 1: after level 3 cells 0-2 hold 16 each and the
     * last level adds only cell 1 into cell 0 */
    cr_assert_eq(df_test_run_host(df_test_find("m-pow2-tree"), DF_F32, a, b, 48, 48).f, 32.0);
    cr_assert_eq(df_test_run_host(df_test_find("tree-hostsum"), DF_F32, a, b, 48, 32).f, 48.0);
}

Test(mutants, wrong_copy_size_keeps_low_16_bits)
{
    const float a[1] = {0x1.000246p0f}, b[1] = {1.0f};
    float want;
    uint32_t bits;
    memcpy(&bits, &a[0], sizeof bits);
    bits &= 0xffffu;
    memcpy(&want, &bits, sizeof want);
    cr_assert_eq(df_test_run_host(df_test_find("m-wrong-copy-size"), DF_F32, a, b, 1, 32).f,
                 (double)want);
    cr_assert_neq(want, 0.0f);
}

Test(mutants, int16_sum_wraps_block_of_20_products_of_2500)
{
    int32_t a[20], b[20];
    for (int i = 0; i < 20; i++) {
        a[i] = 50;
        b[i] = 50;
    }
    cr_assert_eq(df_test_run_host(df_test_find("int-atomic"), DF_I32, a, b, 20, 32).i, 50000);
    /* 50000 wraps in 16 bits to 50000 - 65536 */
    cr_assert_eq(df_test_run_host(df_test_find("m-int16-sum"), DF_I32, a, b, 20, 32).i, -15536);
}

Test(mutants, vec_tail_drops_fifth_element_of_five_ones)
{
    const float a[5] = {1, 1, 1, 1, 1}, b[5] = {1, 1, 1, 1, 1};
    cr_assert_eq(df_test_run_host(df_test_find("shfl"), DF_F32, a, b, 5, 32).f, 5.0);
    cr_assert_eq(df_test_run_host(df_test_find("m-vec-tail"), DF_F32, a, b, 5, 32).f, 4.0);
}

/* ---- guard zones ---- */

/* A probe "kernel" whose host model reads the first and last guard cells
 * on both sides of both vectors: it counts the cells that hold poison
 * (NaN for floats, 0x40000001 for int32). */
static int probe_model(const df_case *c, df_scratch *s, df_result *out)
{
    (void)s;
    const int64_t at[4] = {-1, -GUARD, (int64_t)c->n, (int64_t)c->n + GUARD - 1};
    int poisoned = 0;
    for (int v = 0; v < 2; v++) {
        const void *p = v ? c->b : c->a;
        for (int k = 0; k < 4; k++) {
            if (c->type == DF_F32)
                poisoned += isnan(((const float *)p)[at[k]]);
            else if (c->type == DF_F64)
                poisoned += isnan(((const double *)p)[at[k]]);
            else
                poisoned += ((const int32_t *)p)[at[k]] == 0x40000001;
        }
    }
    out->i = poisoned;
    return 0;
}

static df_kernel probe(df_type t)
{
    df_kernel k = {.name = "t-guard-probe", .origin = "test", .summary = "",
                   .elem = t, .acc = t, .block_min = 1, .block_max = 1024,
                   .block_default = 1, .per_thread = 1,
                   .host_model = probe_model};
    return k;
}

static void expect_guarded(df_type t, uint64_t n)
{
    static const char zeros[8 * 100]; /* all-zero bits: 0 in every type */
    df_kernel k = probe(t);
    cr_assert_eq(df_test_run_host(&k, t, zeros, zeros, n, 1).i, 8,
                 "%s n=%llu: a guard cell lacks its poison", df_type_name(t),
                 (unsigned long long)n);
}

Test(guards, host_backend_poisons_both_sides_of_both_vectors)
{
    const df_type types[] = {DF_F32, DF_F64, DF_I32};
    const uint64_t ns[] = {0, 1, 7, 100};
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 4; j++)
            expect_guarded(types[i], ns[j]);
}

Test(guards, guards_follow_the_length_from_case_to_case)
{
    /* a long case, then a short one reusing the buffer: a[n] is poison
     * again, not the long case's data */
    float ones[100];
    for (int i = 0; i < 100; i++)
        ones[i] = 1.0f;
    df_kernel k = probe(DF_F32);
    df_backend *be = df_test_open_host();
    const uint64_t ns[] = {100, 30, 3, 0, 64};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        uint64_t n = ns[i];
        df_case c;
        memset(&c, 0, sizeof c);
        c.type = DF_F32;
        c.n = n;
        c.a = ones;
        c.b = ones;
        c.launch.block = 1;
        cr_assert_eq(df_launch_resolve(&k, n, &c.launch, NULL, 0), 0);
        df_result r;
        cr_assert_eq(df_backend_run(be, &k, &c, &r, NULL, NULL), 0);
        cr_assert_eq(r.i, 8, "n=%llu", (unsigned long long)n);
    }
    df_backend_close(be);
}

/* ---- the registry and the GPU-only mutants ---- */

Test(mutants, registry_names_origins_and_parents_limits)
{
    cr_assert_geq(df_mutant_count(), 13);
    for (size_t i = 0; i < df_mutant_count(); i++) {
        const df_kernel *m = df_mutant_at(i);
        cr_assert_eq(strncmp(m->name, "m-", 2), 0, "%s", m->name);
        /* a seed's kernel, or one new in dotfuzz, is each mutant's parent */
        cr_assert(strstr(m->origin, "seed ") || strncmp(m->origin, "dotfuzz", 7) == 0, "%s",
                  m->name);
        cr_assert_eq(df_kernel_find(m->name), m, "%s", m->name);
        for (size_t j = 0; j < df_kernel_count(); j++)
            cr_assert_neq(df_kernel_at(j), m, "%s is fuzzed by --kernel all",
                          m->name);
#ifdef DOTFUZZ_CUDA
        /* a mutant runs where its parent (its origin's name in parentheses)
         * runs: on the GPU, unless the parent is a host backend kernel */
        const char *open = strchr(m->origin, '('), *close = open ? strchr(open, ')') : NULL;
        char parent[DF_NAME_MAX] = "";
        if (open && close && (size_t)(close - open - 1) < sizeof parent)
            memcpy(parent, open + 1, (size_t)(close - open - 1));
        const df_kernel *pk = df_kernel_find(parent);
        if (!pk || pk->gpu)
            cr_assert_not_null(m->gpu, "%s has no GPU launcher", m->name);
#else
        cr_assert_null(m->gpu, "%s", m->name);
#endif
    }
    cr_assert_null(df_mutant_at(df_mutant_count()));
}

Test(mutants, races_and_stale_state_are_gpu_only)
{
    const char *gpu_only[] = {"m-no-zero", "m-no-sync", "m-nonatomic"};
    const df_kernel *parent = df_test_find("atomic-block");
    for (size_t i = 0; i < 3; i++) {
        const df_kernel *m = df_test_find(gpu_only[i]);
        cr_assert_null(m->host_model, "%s", m->name);
        /* the parent's traits but 64-bit lengths: mutants get no huge case */
        cr_assert_eq(m->flags, parent->flags & ~DF_K_LEN64, "%s", m->name);
        cr_assert_eq(m->block_max, parent->block_max, "%s", m->name);
    }
}

/* m-claims-det differs from atomic-block in the claim alone: the same host
 * model results bit for bit (so the host cannot catch it; the GPU's rerun
 * and model checks do), the determinism bit added to its flags, and the
 * host-blind bit that tells hunt not to count it on the host backend (and
 * no 64-bit lengths: no mutant takes huge cases for nothing). */
Test(mutants, claims_det_is_parent_plus_the_determinism_claim)
{
    const df_kernel *m = df_test_find("m-claims-det"), *p = df_test_find("atomic-block");
    cr_assert_eq(m->flags, (p->flags & ~DF_K_LEN64) | DF_K_DETERMINISTIC | DF_K_HOST_BLIND);
    cr_assert_eq(p->flags & DF_K_DETERMINISTIC, 0);
    df_backend *b = df_test_open_host();
    df_scratch buf = {0};
    df_gen_opts go = {.max_n = 4096, .family = 0};
    for (uint64_t i = 0; i < 200; i++) {
        df_case c;
        cr_assert_eq(df_generate(SEED, i, m, &go, &buf, &c), 0);
        df_result rm, rp;
        cr_assert_eq(df_backend_run(b, m, &c, &rm, NULL, NULL), 0);
        cr_assert_eq(df_backend_run(b, p, &c, &rp, NULL, NULL), 0);
        cr_assert_eq(memcmp(&rm.f, &rp.f, sizeof rm.f), 0,
                     "case %llu: %a vs %a", (unsigned long long)i, rm.f, rp.f);
    }
    df_scratch_free(&buf);
    df_backend_close(b);
}
