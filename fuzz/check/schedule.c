/* schedule.c — perturbed schedules drawn and described (schedule.h). */
#include <stdio.h>
#include <string.h>

#include "fuzz/check/schedule.h"
#include "fuzz/pcg32.h"
#include "fuzz/util.h"

#define SCHED_SAMPLE_SALT 0x7363686564756c65ULL /* "schedule" */
#define SCHED_STREAM_SALT 0x706572747572626dULL /* "perturbm" */

int df_sched_sampled_at(uint32_t every, uint64_t seed, uint64_t index)
{
    /* salted: a sample apart from the metamorphic one */
    return df_sampled_at(every, seed ^ SCHED_SAMPLE_SALT, index);
}

void df_sched_draw(const df_kernel *k, const df_case *c, df_case *v)
{
    *v = *c;
    df_pcg32 r;
    df_pcg32_seed(&r, c->seed ^ SCHED_STREAM_SALT, c->index);
    df_schedule s = {0};
    do
        s.seed = df_pcg32_next(&r);
    while (s.seed == 0);
    if (df_pcg32_bounded(&r, 4) != 0)
        s.flags |= DF_SCHED_NOISE | (df_pcg32_bounded(&r, 3) == 0 ? DF_SCHED_MEMORY : 0);
    if (df_pcg32_bounded(&r, 2))
        s.flags |= DF_SCHED_FLUSH_L2;
    if (df_pcg32_bounded(&r, 2))
        s.flags |= DF_SCHED_POISON;
    s.sm_share = (uint16_t)(1 + df_pcg32_bounded(&r, 256));
    /* 16 us to 2 ms, about log-uniform: [2^k, 2^(k+1)), k = 4..10 */
    s.noise_us = 16u << df_pcg32_bounded(&r, 7);
    s.noise_us += df_pcg32_bounded(&r, s.noise_us);
    uint32_t redraw = df_pcg32_bounded(&r, 2), pick = df_pcg32_next(&r);
    df_launch l = c->launch;
    if (redraw && (k->flags & DF_K_GRID_FREE) && df_launch_resolve(k, c->n, &l, NULL, 0) == 0) {
        uint64_t hi = 2 * (uint64_t)l.grid + 8;
        if (k->grid_max && hi > k->grid_max)
            hi = k->grid_max;
        v->launch = l;
        v->launch.grid = (uint32_t)(1 + pick % hi);
        s.flags |= DF_SCHED_REGRID;
    }
    /* drawn last, so that the draws above stay those of a schedule without it */
    if ((s.flags & DF_SCHED_NOISE) && df_pcg32_bounded(&r, 3) == 0)
        s.flags |= DF_SCHED_CONTEND;
    v->sched = s;
}

void df_sched_describe(const df_case *c, char *buf, size_t len)
{
    const df_schedule *s = &c->sched;
    if (!s->seed) {
        snprintf(buf, len, "default schedule");
        return;
    }
    size_t at = 0;
#define PUT(...)                                                                       \
    do {                                                                               \
        int w_ = snprintf(buf + at, at < len ? len - at : 0, __VA_ARGS__);             \
        at += w_ > 0 ? (size_t)w_ : 0;                                                 \
    } while (0)
    PUT("schedule %08x:", s->seed);
    if (s->flags & DF_SCHED_NOISE)
        PUT(" noise on %u%% of SMs, %s, up to %u us;", (s->sm_share * 100u + 255u) / 256u,
            (s->flags & DF_SCHED_CONTEND)  ? "contending for the case's own lines"
            : (s->flags & DF_SCHED_MEMORY) ? "memory"
                                           : "spinning",
            s->noise_us);
    else
        PUT(" no noise;");
    if (s->flags & DF_SCHED_FLUSH_L2)
        PUT(" L2 flushed;");
    if (s->flags & DF_SCHED_POISON)
        PUT(" poisoned;");
    if (s->flags & DF_SCHED_REGRID)
        PUT(" grid %u;", c->launch.grid);
#undef PUT
    if (at > 0 && at <= len && buf[at - 1] == ';')
        buf[at - 1] = '\0';
}
