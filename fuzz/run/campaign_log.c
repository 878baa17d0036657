/* campaign_log.c — findings.jsonl, the campaign's log of findings (its
 * part of campaign_dir.h): a finding's line written, and a line read back
 * as a flat JSON object of string and number members. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fuzz/run/campaign_dir.h"
#include "fuzz/files.h"
#include "fuzz/json.h"

const char *const df_campaign_verdicts[DF_N_VERDICTS] = {"ok", "precision", "nondet",
                                                          "soft-error", "bug"};

/* ---- writing ---- */

char *df_log_members(const df_kernel *k, const df_case *c, const df_judgement *j,
                     const char *name, int worker, const df_worker_end *end, double watchdog_s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    fprintf(f, "\"kernel\":");
    df_json_str(f, k->name);
    fprintf(f, ",\"verdict\":\"%s\",\"rule\":", df_verdict_name(j->verdict));
    df_json_str(f, j->rule);
    fprintf(f, ",\"n\":%llu,\"seed\":", (unsigned long long)c->n);
    df_json_u64(f, c->seed);
    fputs(",\"index\":", f);
    df_json_u64(f, c->index);
    fputc(',', f);
    df_json_member(f, "rel_err", j->rel_err);
    fputc(',', f);
    df_json_member(f, "err_ratio", j->err_ratio);
    fputc(',', f);
    df_json_member(f, "cond", j->cond);
    fprintf(f, ",\"file\":\"" DF_FINDINGS_DIR "/%s\",\"worker\":%d", name, worker);
    if (end && end->how == DF_END_HANG)
        fprintf(f, ",\"watchdog_s\":%g", watchdog_s);
    else if (end && end->how == DF_END_SIGNAL)
        fprintf(f, ",\"signal\":%d", end->sig);
    else if (end)
        fprintf(f, ",\"exit_status\":%d", end->status);
    fprintf(f, ",\"why\":");
    df_json_str(f, j->why);
    fclose(f);
    return buf;
}

int df_log_append(int fd, double elapsed, const char *members)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return -1;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    fputc('{', f);
    df_json_stamp(f);
    fprintf(f, ",\"time\":%.3f,\"elapsed\":%.3f,%s}\n", ts.tv_sec + ts.tv_nsec * 1e-9, elapsed,
            members);
    fclose(f);
    int rc = df_write_all(fd, buf, len); /* one write: one line */
    free(buf);
    return rc;
}

int df_log_line_name(const char *line, char name[DF_CORPUS_NAME_MAX])
{
    static const char key[] = "\"file\":\"" DF_FINDINGS_DIR "/";
    const char *p = strstr(line, key);
    if (!p)
        return -1;
    p += strlen(key);
    size_t n = strcspn(p, "\"");
    if (n >= DF_CORPUS_NAME_MAX)
        return -1;
    memcpy(name, p, n);
    name[n] = 0;
    return df_corpus_name_sha1(name) ? 0 : -1;
}

/* ---- reading: flat objects, string or number values ---- */

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

static void put_utf8(char **o, unsigned cp)
{
    unsigned char *q = (unsigned char *)*o;
    if (cp < 0x80) {
        *q++ = (unsigned char)cp;
    } else if (cp < 0x800) {
        *q++ = (unsigned char)(0xC0 | cp >> 6);
        *q++ = (unsigned char)(0x80 | (cp & 0x3F));
    } else {
        *q++ = (unsigned char)(0xE0 | cp >> 12);
        *q++ = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
        *q++ = (unsigned char)(0x80 | (cp & 0x3F));
    }
    *o = (char *)q;
}

/* p at '"': the unescaped string in *out (malloc'd); returns the position
 * after the closing quote, or NULL. A \u escape of a surrogate becomes '?'
 * (the fields read here are ASCII; 'why' is shown, never compared). */
static const char *json_string(const char *p, char **out)
{
    const char *s = p + 1;
    size_t n = 0;
    for (; s[n] && s[n] != '"'; n++)
        if (s[n] == '\\' && !s[++n])
            return NULL;
    if (s[n] != '"')
        return NULL;
    char *o = malloc(n + 1), *q = o; /* unescaped is never longer */
    if (!o)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if ((unsigned char)ch < 0x20)
            goto bad;
        if (ch != '\\') {
            *q++ = ch;
            continue;
        }
        ch = s[++i];
        switch (ch) {
        case '"': case '\\': case '/': *q++ = ch; break;
        case 'b': *q++ = '\b'; break;
        case 'f': *q++ = '\f'; break;
        case 'n': *q++ = '\n'; break;
        case 'r': *q++ = '\r'; break;
        case 't': *q++ = '\t'; break;
        case 'u': {
            unsigned cp = 0;
            if (i + 4 >= n + 1)
                goto bad;
            for (int k = 1; k <= 4; k++) {
                char h = s[i + k];
                int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
                      : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
                if (d < 0)
                    goto bad;
                cp = cp << 4 | (unsigned)d;
            }
            i += 4;
            if (cp == 0)
                goto bad; /* would cut the string */
            if (cp >= 0xD800 && cp <= 0xDFFF)
                cp = '?';
            put_utf8(&q, cp);
            break;
        }
        default: goto bad;
        }
    }
    *q = '\0';
    *out = o;
    return s + n + 1;
bad:
    free(o);
    return NULL;
}

/* A JSON number or literal: the token's characters, copied into *out. */
static const char *json_scalar(const char *p, char **out)
{
    size_t n = strspn(p, "0123456789+-.eEtruefalsn");
    if (!n)
        return NULL;
    if (!(*out = strndup(p, n)))
        return NULL;
    return p + n;
}

/* A number field: a JSON number; null (not finite: its KEY_class member
 * says which, else NaN stands); or, as schema 1 wrote them, the strings
 * "inf", "-inf", "nan". */
static int json_num(const char *v, int is_str, double *out)
{
    if (!is_str && !strcmp(v, "null")) {
        *out = NAN;
        return 0;
    }
    if (is_str && strcmp(v, "inf") && strcmp(v, "-inf") && strcmp(v, "nan"))
        return -1;
    if (!is_str && (strspn(v, "0123456789+-.eE") != strlen(v)))
        return -1;
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (end == v || *end || errno == EINVAL)
        return -1;
    *out = x;
    return 0;
}

static int verdict_index(const char *v)
{
    for (int i = 0; i < DF_N_VERDICTS; i++)
        if (!strcmp(v, df_campaign_verdicts[i]))
            return i;
    /* df_verdict_name's spelling, should a writer use it */
    return strcmp(v, "nondeterministic") ? -1 : 2;
}

/* Stores one key's value in f; takes val. Unknown keys are ignored. */
static int set_field(df_logged_finding *f, const char *key, char *val, int is_str)
{
    typedef df_logged_finding F;
    static const struct {
        const char *key;
        size_t off;
    } strs[] = {
        {"kernel", offsetof(F, kernel)}, {"verdict", offsetof(F, verdict)},
        {"rule", offsetof(F, rule)},     {"file", offsetof(F, file)},
        {"why", offsetof(F, why)},
    }, nums[] = {
        {"time", offsetof(F, time)},         {"elapsed", offsetof(F, elapsed)},
        {"n", offsetof(F, n)},
        {"rel_err", offsetof(F, rel_err)},   {"err_ratio", offsetof(F, err_ratio)},
        {"signal", offsetof(F, signal)},     {"watchdog_s", offsetof(F, watchdog_s)},
    };
    if (!strcmp(key, "index")) { /* its text: a string as written, a number from other writers */
        free(f->index);
        f->index = val;
        return 0;
    }
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
        if (!strcmp(key, strs[i].key)) {
            char **slot = (char **)((char *)f + strs[i].off);
            if (!is_str) {
                free(val);
                return -1;
            }
            free(*slot);
            *slot = val;
            return 0;
        }
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        size_t kl = strlen(nums[i].key);
        if (!strcmp(key, nums[i].key)) {
            int rc = json_num(val, is_str, (double *)((char *)f + nums[i].off));
            free(val);
            return rc;
        }
        if (!strncmp(key, nums[i].key, kl) && !strcmp(key + kl, "_class")) {
            /* the class of a null number: "inf", "-inf" or "nan" */
            int rc = is_str ? json_num(val, 1, (double *)((char *)f + nums[i].off)) : -1;
            free(val);
            return rc;
        }
    }
    free(val);
    return 0;
}

void df_logged_finding_free(df_logged_finding *f)
{
    free(f->kernel);
    free(f->verdict);
    free(f->rule);
    free(f->file);
    free(f->why);
    free(f->index);
    free(f->line);
}

int df_log_parse(const char *line, df_logged_finding *f)
{
    *f = (df_logged_finding){.time = NAN, .elapsed = NAN, .n = NAN, .rel_err = NAN,
                             .err_ratio = NAN, .signal = NAN, .watchdog_s = NAN};
    const char *p = skip_ws(line);
    if (*p++ != '{')
        return -1;
    p = skip_ws(p);
    if (*p == '}')
        return -1;
    for (;;) {
        char *key = NULL, *val = NULL;
        if (*p != '"' || !(p = json_string(p, &key)))
            return -1;
        p = skip_ws(p);
        if (*p++ != ':') {
            free(key);
            return -1;
        }
        p = skip_ws(p);
        int is_str = *p == '"';
        p = is_str ? json_string(p, &val) : json_scalar(p, &val);
        int rc = p ? set_field(f, key, val, is_str) : -1;
        free(key);
        if (rc)
            return -1;
        p = skip_ws(p);
        if (*p == '}')
            break;
        if (*p++ != ',')
            return -1;
        p = skip_ws(p);
    }
    if (*skip_ws(p + 1))
        return -1;
    if (!f->kernel || !f->verdict || !f->rule || !f->file || !*f->kernel)
        return -1;
    f->v = verdict_index(f->verdict);
    return f->v < 0 ? -1 : 0;
}

int df_log_parse_members(const char *members, df_logged_finding *f)
{
    char *obj = malloc(strlen(members) + 3);
    if (!obj) {
        *f = (df_logged_finding){0};
        return -1;
    }
    sprintf(obj, "{%s}", members);
    int rc = df_log_parse(obj, f);
    free(obj);
    return rc;
}

const char *df_logged_name(const df_logged_finding *f)
{
    static const char dir[] = DF_FINDINGS_DIR "/";
    const char *p = f->file;
    size_t n = strlen(dir);
    return !strncmp(p, dir, n) && df_corpus_name_sha1(p + n) ? p + n : NULL;
}

int df_logged_crash_or_hang(const df_logged_finding *f)
{
    return !strcmp(f->rule, "crash") || !strcmp(f->rule, "hang");
}
