/* afl_stats.c — fuzzer_stats' AFL++ keys and the finds they count
 * (afl_stats.h). */
#include <math.h>
#include <string.h>

#include "fuzz/outcome.h"
#include "fuzz/run/afl_stats.h"

void df_afl_finds_add(df_afl_finds *a, const df_logged_finding *f, double t)
{
    if (!isfinite(t) || t < 0)
        t = 0;
    a->last_find = fmax(a->last_find, t);
    if (f->v + 1 != DF_V_BUG)
        return;
    a->saved_crashes++;
    a->last_crash = fmax(a->last_crash, t);
    if (!strcmp(f->rule, "hang")) {
        a->saved_hangs++;
        a->last_hang = fmax(a->last_hang, t);
    }
}

/* The last component of path dir as a shell word can carry it between
 * double quotes: no quote, dollar, backquote, backslash or blank. */
static void put_banner(FILE *f, const char *dir)
{
    static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-";
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    size_t b = n;
    while (b > 0 && dir[b - 1] != '/')
        b--;
    for (size_t i = b; i < n; i++)
        fputc(memchr(ok, dir[i], sizeof ok - 1) ? dir[i] : '_', f);
    fputc('\n', f);
}

void df_afl_stats_put(FILE *f, const df_afl_stats *s)
{
    const int w = DF_STATS_KEY_WIDTH;
    double run = s->run_time > 0 ? floor(s->run_time) : 0;
    df_kv_put(f, w, "start_time", "%.0f", s->start_time);
    df_kv_put(f, w, "last_update", "%.0f", s->last_update);
    df_kv_put(f, w, "run_time", "%.0f", run);
    df_kv_put(f, w, "fuzzer_pid", "%ld", s->fuzzer_pid);
    df_kv_put(f, w, "execs_done", "%llu", (unsigned long long)s->execs_done);
    df_kv_put(f, w, "execs_per_sec", "%.2f",
              s->run_time > 0 ? (double)s->execs_done / s->run_time : 0.0);
    df_kv_put(f, w, "corpus_count", "%llu",
              (unsigned long long)(s->corpus_count ? s->corpus_count : 1));
    df_kv_put(f, w, "cur_item", "%llu", (unsigned long long)s->cur_item);
    df_kv_put(f, w, "pending_favs", "0");
    df_kv_put(f, w, "pending_total", "0");
    df_kv_put(f, w, "saved_crashes", "%llu", (unsigned long long)s->finds.saved_crashes);
    df_kv_put(f, w, "saved_hangs", "%llu", (unsigned long long)s->finds.saved_hangs);
    df_kv_put(f, w, "last_find", "%.0f", floor(s->finds.last_find));
    df_kv_put(f, w, "last_crash", "%.0f", floor(s->finds.last_crash));
    df_kv_put(f, w, "last_hang", "%.0f", floor(s->finds.last_hang));
    df_kv_key(f, w, "afl_banner");
    put_banner(f, s->dir);
}
