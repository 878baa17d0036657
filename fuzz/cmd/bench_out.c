/* bench_out.c — `dotfuzz bench`'s rows as text or JSON (bench_out.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "fuzz/cmd/bench_out.h"
#include "fuzz/json.h"

int df_bench_out_open(df_bench_out *o, int json)
{
    *o = (df_bench_out){.txt = json ? NULL : stdout};
    if (json && !(o->js = open_memstream(&o->rows, &o->len)))
        return -1;
    return 0;
}

int df_bench_out_close(df_bench_out *o, const char *what, int complete)
{
    if (!o->js)
        return 0;
    int rc = fclose(o->js) == 0 && o->rows ? 0 : -1;
    if (rc == 0) {
        printf("{");
        df_json_stamp(stdout);
        printf(",\"command\":\"bench\",%s,\"rows\":[%s],\"complete\":%s}\n", what, o->rows,
               complete ? "true" : "false");
        fflush(stdout);
    }
    free(o->rows);
    *o = (df_bench_out){0};
    return rc;
}

void df_bench_text(df_bench_out *o, const char *fmt, ...)
{
    if (!o->txt)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(o->txt, fmt, ap);
    va_end(ap);
}

FILE *df_bench_row_begin(df_bench_out *o, const char *id, const char *what)
{
    if (!o->js)
        return NULL;
    fprintf(o->js, "%s{\"row\":\"%s\",\"what\":", o->nrows++ ? "," : "", id);
    df_json_str(o->js, what);
    fputs(",\"ran\":true", o->js);
    return o->js;
}

void df_bench_row_end(df_bench_out *o)
{
    if (o->js)
        fputc('}', o->js);
}

void df_bench_num(df_bench_out *o, const char *key, double x)
{
    if (!o->js)
        return;
    fputc(',', o->js);
    df_json_member(o->js, key, x);
}

void df_bench_not_run(df_bench_out *o, const char *id, const char *what, const char *why)
{
    if (!o->js)
        return;
    fprintf(o->js, "%s{\"row\":\"%s\",\"what\":", o->nrows++ ? "," : "", id);
    df_json_str(o->js, what);
    fputs(",\"ran\":false,\"why\":", o->js);
    df_json_str(o->js, why);
    fputc('}', o->js);
}

double df_bench_peak_rss_mib(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? (double)ru.ru_maxrss / 1024.0 : 0.0;
}

/* ,"key":{"names[0]":v[0],...} when present, else ,"key":null. */
static void json_obj(df_bench_out *o, const char *key, int present, const char *const *names,
                     const double *v, size_t n)
{
    if (!o->js)
        return;
    fprintf(o->js, ",\"%s\":", key);
    if (!present) {
        fputs("null", o->js);
        return;
    }
    fputc('{', o->js);
    for (size_t i = 0; i < n; i++) {
        if (i)
            fputc(',', o->js);
        df_json_member(o->js, names[i], v[i]);
    }
    fputc('}', o->js);
}

#define NAMES(...) (const char *const[]){__VA_ARGS__}
#define VALS(...) (const double[]){__VA_ARGS__}
#define OBJ(o, key, present, names, vals)                                                          \
    json_obj(o, key, present, names, vals, sizeof vals / sizeof vals[0])

/* The row's shares of time: per stage of its wall time, within the GPU
 * stage, on the device, the GPU's generation, within the finish, the
 * pool's CPU time, its idle threads. A part that is not measured (host:
 * everything of the GPU) is no line of text and null in the JSON. */
static void stages(df_bench_out *o, const df_bench_row *r, int host)
{
    double sum = 0, secs = r->secs;
    for (int k = 0; k < DF_STAGES; k++)
        sum += r->stage_s[k];
    int have = sum > 0 && secs > 0;
    /* shares of the row's wall time; the host backend models and judges
     * in the same pass as the refs; "starting" is the caller's part of
     * the batches made ahead */
    const double *st = r->stage_s;
    if (have)
        df_bench_text(o, "%-34s starting %3.0f%%  %s %3.0f%%  gpu %3.0f%%  model+judge+metamorphic "
                         "%3.0f%%  record %3.0f%%  other %3.0f%%\n",
                      "    wall time per stage", 100 * st[DF_STAGE_AHEAD] / secs,
                      host ? "generate+refs+model+judge" : "generate+refs",
                      100 * st[DF_STAGE_PREPARE] / secs, 100 * st[DF_STAGE_GPU] / secs,
                      100 * st[DF_STAGE_FINISH] / secs, 100 * st[DF_STAGE_RECORD] / secs,
                      100 * (secs - sum) / secs);
    OBJ(o, "wall_share", have,
        NAMES("starting", host ? "generate_refs_model_judge" : "generate_refs", "gpu",
              "model_judge_metamorphic", "record", "other"),
        VALS(st[DF_STAGE_AHEAD] / secs, st[DF_STAGE_PREPARE] / secs, st[DF_STAGE_GPU] / secs,
             st[DF_STAGE_FINISH] / secs, st[DF_STAGE_RECORD] / secs, (secs - sum) / secs));
    if (!have)
        return;
    const double *gs = r->gpu_s;
    double g = 0;
    for (int k = 0; r->has_gpu_s && k < DF_CUDA_T_WALL; k++)
        g += gs[k];
    if (g > 0)
        df_bench_text(o, "%-34s plan %4.0f%%  staging %4.0f%%  device %4.0f%% (queueing its work "
                         "%.0f%%)  finish %4.0f%%  (%.3g s of the stage's %.3g s in batched "
                         "launches)\n",
                      "    of which, gpu", 100 * gs[DF_CUDA_T_PLAN] / g,
                      100 * gs[DF_CUDA_T_STAGE] / g, 100 * gs[DF_CUDA_T_DEVICE] / g,
                      100 * gs[DF_CUDA_T_ENQUEUE] / g, 100 * gs[DF_CUDA_T_FINISH] / g, g,
                      st[DF_STAGE_GPU]);
    OBJ(o, "gpu_share", g > 0,
        NAMES("plan", "staging", "device", "queueing", "finish", "batched_s", "stage_s"),
        VALS(gs[DF_CUDA_T_PLAN] / g, gs[DF_CUDA_T_STAGE] / g, gs[DF_CUDA_T_DEVICE] / g,
             gs[DF_CUDA_T_ENQUEUE] / g, gs[DF_CUDA_T_FINISH] / g, g, st[DF_STAGE_GPU]));
    int dev = g > 0 && gs[DF_CUDA_T_DEVICE] > 0;
    if (dev)
        df_bench_text(o, "%-34s clear+copy in %.3g s  unpack %.3g s  kernel %.3g s  copy out "
                         "%.3g s  (events; the device part's wall time %.3g s)\n",
                      "    of which, on the device", gs[DF_CUDA_T_COPYIN], gs[DF_CUDA_T_UNPACK],
                      gs[DF_CUDA_T_KERNELS], gs[DF_CUDA_T_COPYOUT], gs[DF_CUDA_T_DEVICE]);
    OBJ(o, "device_s", dev, NAMES("copy_in", "unpack", "kernel", "copy_out", "wall"),
        VALS(gs[DF_CUDA_T_COPYIN], gs[DF_CUDA_T_UNPACK], gs[DF_CUDA_T_KERNELS],
             gs[DF_CUDA_T_COPYOUT], gs[DF_CUDA_T_DEVICE]));
    double gens = r->has_gpu_s ? gs[DF_CUDA_T_GEN_COUNT] : 0;
    double gbps = gs[DF_CUDA_T_GEN_COPY] > 0
                      ? 1e-9 * gs[DF_CUDA_T_GEN_BYTES] / gs[DF_CUDA_T_GEN_COPY] : 0.0;
    if (gens > 0)
        df_bench_text(o, "%-34s %.0f batches, each on average: kernel %.3g ms, copy back %.3g ms "
                         "(%.3g GB/s), from its start to landed %.3g ms\n",
                      "    generation on the GPU", gens, 1e3 * gs[DF_CUDA_T_GEN_KERNEL] / gens,
                      1e3 * gs[DF_CUDA_T_GEN_COPY] / gens, gbps,
                      1e3 * gs[DF_CUDA_T_GEN_LANDED] / gens);
    OBJ(o, "gpu_generation", gens > 0,
        NAMES("batches", "kernel_ms", "copy_ms", "copy_gbps", "landed_ms"),
        VALS(gens, 1e3 * gs[DF_CUDA_T_GEN_KERNEL] / gens, 1e3 * gs[DF_CUDA_T_GEN_COPY] / gens,
             gbps, 1e3 * gs[DF_CUDA_T_GEN_LANDED] / gens));
    const double *fs = r->finish_s;
    double f = 0;
    for (int k = 0; k < DF_FINISH_PARTS; k++)
        f += fs[k];
    double ahead_plan = r->has_gpu_s ? gs[DF_CUDA_T_AHEAD_PLAN] : 0;
    double ahead_stage = r->has_gpu_s ? gs[DF_CUDA_T_AHEAD_STAGE] : 0;
    if (f > 0)
        df_bench_text(o, "%-34s models left after the GPU run %4.0f%%  copies made %4.0f%%  "
                         "copies on the GPU %4.0f%%  the next batch laid out and staged %4.0f%% "
                         "(plan %.3g s, staging %.3g s)  then waiting for the judgement and the "
                         "copies' references and models %4.0f%%  copies judged %4.0f%%\n",
                      "    of which, model+judge+...", 100 * fs[DF_FINISH_MODELS] / f,
                      100 * fs[DF_FINISH_MAKE] / f, 100 * fs[DF_FINISH_GPU] / f,
                      100 * fs[DF_FINISH_NEXT] / f, ahead_plan, ahead_stage,
                      100 * fs[DF_FINISH_WAIT] / f, 100 * fs[DF_FINISH_COPIES] / f);
    OBJ(o, "finish_share", f > 0,
        NAMES("models", "copies_made", "copies_on_gpu", "next_batch", "next_plan_s",
              "next_staging_s", "waiting", "copies_judged"),
        VALS(fs[DF_FINISH_MODELS] / f, fs[DF_FINISH_MAKE] / f, fs[DF_FINISH_GPU] / f,
             fs[DF_FINISH_NEXT] / f, ahead_plan, ahead_stage, fs[DF_FINISH_WAIT] / f,
             fs[DF_FINISH_COPIES] / f));
    const double *cs = r->cpu_s;
    double cpu = cs[0] + cs[1] + cs[2] + cs[3];
    if (cpu > 0)
        df_bench_text(o, "%-34s generate %4.0f%%  references %4.0f%%  %s %4.0f%%  judge %4.0f%%  "
                         "(%.3g thread-s per s)\n",
                      "    CPU time of the pool", 100 * cs[0] / cpu, 100 * cs[1] / cpu,
                      host ? "model (the run)" : "model", 100 * cs[2] / cpu, 100 * cs[3] / cpu,
                      cpu / secs);
    OBJ(o, "cpu_share", cpu > 0,
        NAMES("generate", "references", "model", "judge", "thread_s_per_s"),
        VALS(cs[0] / cpu, cs[1] / cpu, cs[2] / cpu, cs[3] / cpu, cpu / secs));
    int idle = r->idle_s[0] + r->idle_s[1] > 0;
    if (idle)
        df_bench_text(o, "%-34s with nothing to take %.3g thread-s per s, with only loops waiting "
                         "for the GPU's generation %.3g\n",
                      "    idle workers of the pool", r->idle_s[0] / secs, r->idle_s[1] / secs);
    OBJ(o, "idle_thread_s_per_s", idle, NAMES("nothing_to_take", "waiting_for_gpu_generation"),
        VALS(r->idle_s[0] / secs, r->idle_s[1] / secs));
}

int df_bench_harness(df_bench_out *o, const char *id, const char *what, const df_bench_row *r,
                     size_t batch, int host)
{
    if (r->rc == DF_RANGE_ENV || r->rc == DF_RANGE_POISONED || r->cases == 0) {
        const char *why = r->rc == DF_RANGE_POISONED ? "backend unusable" : "cannot generate";
        fprintf(stderr, "dotfuzz bench: %s: the harness stopped (%s)\n", what, why);
        df_bench_not_run(o, id, what, why);
        return -1;
    }
    double rss = df_bench_peak_rss_mib();
    df_bench_text(o, "%-34s %14.0f cases/s  %12.3g elem/s  batch %-6zu x%zu  peak RSS %8.1f MiB  "
                     "(%llu cases in %.2f s; first batch a set %.2f s, untimed)\n",
                  what, r->cases / r->secs, (double)r->elems / r->secs, batch, r->sets, rss,
                  (unsigned long long)r->cases, r->secs, r->warm_s);
    if (df_bench_row_begin(o, id, what)) {
        df_bench_num(o, "cases_per_s", r->cases / r->secs);
        df_bench_num(o, "elems_per_s", (double)r->elems / r->secs);
        df_bench_num(o, "batch", (double)batch);
        df_bench_num(o, "sets", (double)r->sets);
        df_bench_num(o, "peak_rss_mib", rss);
        df_bench_num(o, "cases", (double)r->cases);
        df_bench_num(o, "seconds", r->secs);
        df_bench_num(o, "untimed_first_batches_s", r->warm_s);
    }
    stages(o, r, host);
    df_bench_row_end(o);
    return 0;
}
