/* test_quiet.c — quiet by default: the tests' shell helper captures the
 * stderr of every command it runs, so a passing suite prints nothing. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "tests/cli_helpers.h"

static char out[1 << 16];

Test(quiet, the_shell_helper_captures_every_commands_stderr)
{
    cr_assert_eq(df_test_sh(out, sizeof out, "echo one >&2; echo two >&2 && echo three >&2"), 0);
    cr_assert_str_eq(out, "one\ntwo\nthree\n");
}
