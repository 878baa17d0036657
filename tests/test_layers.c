/* test_layers.c — the code's dependencies point down (scripts/layers.py,
 * the layers drawn in fuzz/README.md): on this tree and its build, and on
 * small trees made here that break each rule once, so the check is shown
 * to fail where it must. */
#include "tests/cli_helpers.h"

static char out[16384];

/* The build folder make test runs under (DF_BUILD), else build. */
static const char *build_dir(void)
{
    const char *b = getenv("DF_BUILD");
    return b && *b ? b : "build";
}

Test(layers, this_tree_points_down_and_no_file_is_long, .timeout = 60)
{
    int rc = df_test_sh(out, sizeof out, "python3 scripts/layers.py --build %s --max-lines 850",
                        build_dir());
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert_str_empty(out);
}

/* Writes FILE under dir with the given text. */
static void put(const char *dir, const char *file, const char *text)
{
    int rc = df_test_sh(out, sizeof out, "mkdir -p \"$(dirname %s/%s)\" && printf '%%s' '%s' > %s/%s",
                        dir, file, text, dir, file);
    cr_assert_eq(rc, 0, "%s", out);
}

Test(layers, an_include_of_a_higher_layer_is_reported, .timeout = 30)
{
    const char *d = df_test_tmpdir("layers-inc");
    char dir[128];
    snprintf(dir, sizeof dir, "%s", d);
    put(dir, "fuzz/cmd/cli.h", "int df_cli(void);\n");
    put(dir, "fuzz/run/engine.c", "#include \"fuzz/cmd/cli.h\"\nint df_engine(void) { return 0; }\n");
    put(dir, "fuzz/case.h", "#include \"fuzz/run/run.h\"\n");
    int rc = df_test_sh(out, sizeof out, "python3 scripts/layers.py --root %s", dir);
    cr_assert_eq(rc, 1, "%s", out);
    cr_assert(strstr(out, "fuzz/run/engine.c: includes fuzz/cmd/cli.h, a higher layer"), "%s", out);
    cr_assert(strstr(out, "fuzz/case.h: includes fuzz/run/run.h, a higher layer"), "%s", out);
    /* the same include downwards is fine */
    put(dir, "fuzz/run/engine.c", "int df_engine(void) { return 0; }\n");
    put(dir, "fuzz/case.h", "\n");
    put(dir, "fuzz/cmd/cli.c", "#include \"fuzz/run/run.h\"\n");
    rc = df_test_sh(out, sizeof out, "python3 scripts/layers.py --root %s", dir);
    cr_assert_eq(rc, 0, "%s", out);
    df_test_sh(out, sizeof out, "rm -rf %s", dir);
}

Test(layers, a_call_up_and_a_circle_of_files_are_reported, .timeout = 60)
{
    const char *d = df_test_tmpdir("layers-calls");
    char dir[128];
    snprintf(dir, sizeof dir, "%s", d);
    /* the library calls the command layer; two references call each other */
    put(dir, "fuzz/cmd/cli.c", "int df_cli(void) { return 1; }\n");
    put(dir, "fuzz/json.c", "int df_cli(void);\nint df_json(void) { return df_cli(); }\n");
    put(dir, "reference/a.c", "int df_b(int);\nint df_a(int x) { return x ? df_b(x - 1) : 0; }\n");
    put(dir, "reference/b.c", "int df_a(int);\nint df_b(int x) { return x ? df_a(x - 1) : 1; }\n");
    int rc = df_test_sh(out, sizeof out,
                        "cd %s && for f in fuzz/cmd/cli fuzz/json reference/a reference/b; do "
                        "mkdir -p b/$(dirname $f) && cc -c $f.c -o b/$f.o || exit 9; done", dir);
    cr_assert_eq(rc, 0, "%s", out);
    rc = df_test_sh(out, sizeof out, "python3 scripts/layers.py --root %s --build %s/b", dir, dir);
    cr_assert_eq(rc, 1, "%s", out);
    cr_assert(strstr(out, "fuzz/json: calls df_cli in fuzz/cmd/cli, a higher layer"), "%s", out);
    cr_assert(strstr(out, "circle: reference/a -> reference/b"), "%s", out);
    df_test_sh(out, sizeof out, "rm -rf %s", dir);
}

Test(layers, a_long_file_is_reported, .timeout = 30)
{
    const char *d = df_test_tmpdir("layers-long");
    char dir[128];
    snprintf(dir, sizeof dir, "%s", d);
    put(dir, "fuzz/case.c", "\n");
    int rc = df_test_sh(out, sizeof out, "seq 900 | sed 's/^/\\/\\/ /' > %s/fuzz/case.c && "
                        "python3 scripts/layers.py --root %s --max-lines 850", dir, dir);
    cr_assert_eq(rc, 1, "%s", out);
    cr_assert(strstr(out, "fuzz/case.c: 900 lines, more than 850"), "%s", out);
    rc = df_test_sh(out, sizeof out, "python3 scripts/layers.py --root %s --max-lines 900", dir);
    cr_assert_eq(rc, 0, "%s", out);
    df_test_sh(out, sizeof out, "rm -rf %s", dir);
}
