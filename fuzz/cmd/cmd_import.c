/* cmd_import.c — `dotfuzz import A.txt B.txt -o CASE`: two text files of
 * numbers (one a line, decimal or C99 hex float, or an element's bits)
 * become a case file, for vectors that come from elsewhere. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernel.h"
#include "fuzz/cmd/cli.h"
#include "fuzz/cmd/cli_util.h"
#include "fuzz/corpus.h"
#include "fuzz/import.h"

static void import_usage(FILE *f)
{
    fputs("usage: dotfuzz import A.txt B.txt -o CASE [OPTIONS]\n"
          "\n"
          "A.txt and B.txt hold one number a line (decimal, or C99 hex float such as\n"
          "0x1.8p+1; blank lines and lines starting with '#' are ignored). f16, bf16,\n"
          "e4m3 and e5m2 take only values they hold exactly; bits:0xHEX gives an\n"
          "element's bit pattern in any type (bits:0x3c00 is f16's 1).\n"
          "\n"
          "  -o, --output CASE    case file to write (atomically)\n"
          "  --type T             f32, f64, i32, f16, bf16, e4m3 or e5m2 (default f32)\n"
          "  --kernel NAME        kernel the case is for (default: any of its type)\n"
          "  --block B            block size (default: the kernel's)\n"
          "  --grid G             grid size (default: derived)\n"
          "  --blas N,INCX,INCY   a BLAS call dot(N, A, INCX, B, INCY) (docs/blas.md): A.txt\n"
          "                       and B.txt are its arrays x and y, as long as each other\n"
          "                       and as its footprints; the case is what the call reads\n"
          "  -h, --help           this text\n"
          "\n"
          "exit status: 0 written, 2 bad input or usage, 3 cannot write CASE\n",
          f);
}

typedef struct import_opts {
    const char *out, *kernel, *a, *b;
    df_type type;
    uint64_t block, grid;
    int blas;          /* --blas given */
    int64_t n_arg;     /* its N */
    int32_t inc[2];    /* its INCX, INCY */
} import_opts;

/* A decimal integer in [lo, hi], an optional '-' and digits only, ending
 * at end (',' or '\0'). Returns the position after it, or NULL. */
static const char *parse_i64(const char *s, char end, int64_t lo, int64_t hi, int64_t *out)
{
    const char *p = s + (*s == '-');
    uint64_t v = 0;
    if (*p < '0' || *p > '9')
        return NULL;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > (UINT64_C(1) << 63) / 10)
            return NULL;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    if (*p != end || v > (UINT64_C(1) << 63) || (*s != '-' && v > (uint64_t)INT64_MAX))
        return NULL;
    int64_t x = *s == '-' ? (int64_t)(0 - v) : (int64_t)v;
    if (x < lo || x > hi)
        return NULL;
    *out = x;
    return *p ? p + 1 : p;
}

/* --blas N,INCX,INCY into o. Returns 0 or -1. */
static int parse_blas(const char *s, import_opts *o)
{
    int64_t ix, iy;
    const char *p = parse_i64(s, ',', INT64_MIN, INT64_MAX, &o->n_arg);
    p = p ? parse_i64(p, ',', INT32_MIN, INT32_MAX, &ix) : NULL;
    p = p ? parse_i64(p, '\0', INT32_MIN, INT32_MAX, &iy) : NULL;
    if (!p)
        return -1;
    o->inc[0] = (int32_t)ix;
    o->inc[1] = (int32_t)iy;
    o->blas = 1;
    return 0;
}

static int parse_import_opts(int argc, char **argv, import_opts *o)
{
    enum { OPT_TYPE = 256, OPT_KERNEL, OPT_BLOCK, OPT_GRID, OPT_BLAS };
    static const struct option longopts[] = {
        {"output", required_argument, 0, 'o'}, {"type", required_argument, 0, OPT_TYPE},
        {"kernel", required_argument, 0, OPT_KERNEL}, {"block", required_argument, 0, OPT_BLOCK},
        {"grid", required_argument, 0, OPT_GRID}, {"blas", required_argument, 0, OPT_BLAS},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0},
    };
    *o = (import_opts){.type = DF_F32};
    int ch;
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
        const char *bad = NULL;
        switch (ch) {
        case 'h': return 1;
        case 'o': o->out = optarg; break;
        case OPT_TYPE: if (df_type_parse(optarg, &o->type)) bad = "--type"; break;
        case OPT_KERNEL: o->kernel = optarg; break;
        case OPT_BLOCK: if (df_parse_u64(optarg, &o->block) || o->block > 0xffffffffu) bad = "--block"; break;
        case OPT_GRID: if (df_parse_u64(optarg, &o->grid) || o->grid > 0xffffffffu) bad = "--grid"; break;
        case OPT_BLAS: if (parse_blas(optarg, o)) bad = "--blas (N,INCX,INCY: integers)"; break;
        case ':': df_usage_error("import", "option %s needs a value", argv[optind - 1]); return -1;
        default: df_usage_error("import", "unknown option '%s'", argv[optind - 1]); return -1;
        }
        if (bad) {
            fprintf(stderr, "dotfuzz import: invalid value '%s' for %s\n", optarg, bad);
            return -1;
        }
    }
    if (argc - optind != 2) {
        df_usage_error("import", "%s", "needs exactly two input files, A.txt and B.txt");
        return -1;
    }
    if (!o->out) {
        df_usage_error("import", "%s", "-o CASE is required");
        return -1;
    }
    if (df_output_ok_cli("import", "-o", o->out) != 0)
        return -1;
    o->a = argv[optind];
    o->b = argv[optind + 1];
    return 0;
}

df_outcome df_cmd_import(int argc, char **argv)
{
    import_opts o;
    int p = parse_import_opts(argc, argv, &o);
    if (p > 0) {
        import_usage(stdout);
        return DF_OUTCOME_CLEAN;
    }
    if (p < 0)
        return DF_OUTCOME_USAGE;
    df_case_file f;
    char msg[300];
    if (df_import_text(o.a, o.b, o.type, o.kernel, &f, msg, sizeof msg) != 0) {
        fprintf(stderr, "dotfuzz import: %s\n", msg);
        return DF_OUTCOME_USAGE;
    }
    if (o.blas && df_import_blas(&f, o.n_arg, o.inc[0], o.inc[1], msg, sizeof msg) != 0) {
        fprintf(stderr, "dotfuzz import: --blas: %s\n", msg);
        df_case_file_free(&f);
        return DF_OUTCOME_USAGE;
    }
    f.c.launch.block = (uint32_t)o.block;
    f.c.launch.grid = (uint32_t)o.grid;
    const df_kernel *k = f.c.kernel[0] ? df_kernel_find(f.c.kernel) : NULL;
    if (k) {
        df_launch l = f.c.launch;
        if (df_launch_resolve(k, f.c.n, &l, msg, sizeof msg) != 0) {
            fprintf(stderr, "dotfuzz import: %s\n", msg);
            df_case_file_free(&f);
            return DF_OUTCOME_USAGE;
        }
    }
    uint8_t *buf = NULL;
    size_t len = 0;
    df_outcome out = DF_OUTCOME_CLEAN;
    if (df_corpus_encode(&f.c, &f.meta, &buf, &len) != 0 ||
        df_write_file_atomic(o.out, buf, len) != 0) {
        perror("dotfuzz import: cannot write the case file");
        out = DF_OUTCOME_ENV;
    } else {
        printf("wrote %s: %s, n=%llu, kernel %s\n", o.out, df_type_name(f.c.type),
               (unsigned long long)f.c.n, f.c.kernel[0] ? f.c.kernel : "(any)");
    }
    free(buf);
    df_case_file_free(&f);
    return out;
}
