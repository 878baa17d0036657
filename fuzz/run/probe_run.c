/* probe_run.c — one probe case through the kernel in the sandbox
 * (probe.h's df_probe_run_case and df_probe_run_bytes), for probe.c and
 * probe_fused.c. */
#include <stdio.h>
#include <string.h>

#include "fuzz/run/probe.h"

/* Case c through the kernel in the sandbox, its result into *out.
 * Returns 0, 1 for a failed run, -1 when the sandbox runs no more cases
 * (p->dead). */
int df_probe_run_case(df_probe_ctx *p, const df_case *c, double *out)
{
    df_oracle_opts oo = {.tol = 1e-6};
    df_meta_opts mo = {0};
    df_checked r;
    if (p->dead || df_sandbox_check(p->sb, p->k, c, &oo, &mo, &r) != 0) {
        p->dead = 1;
        return -1;
    }
    p->runs++;
    if (r.res.status != DF_RUN_OK)
        return 1;
    *out = r.res.f;
    return 0;
}

int df_probe_run_bytes(df_probe_ctx *p, const void *a, const void *b, size_t n, double *out)
{
    df_case c;
    memset(&c, 0, sizeof c);
    c.type = p->k->elem;
    c.n = n;
    c.a = a;
    c.b = b;
    snprintf(c.kernel, sizeof c.kernel, "%s", p->k->name);
    if (df_launch_resolve(p->k, n, &c.launch, NULL, 0) != 0)
        return -1;
    return df_probe_run_case(p, &c, out) == 0 ? 0 : -1;
}

