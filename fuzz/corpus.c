/* corpus.c — the case file (layout in corpus.h): encoding, a defensive
 * decoder that trusts no byte of its input, content-hash names and atomic,
 * durable writes.
 *
 * Every multi-byte field is assembled from bytes with shifts, so the format
 * is the same on any host. The decoder checks in a fixed order (size,
 * magic, version, header, type, length, checksum, kernel) and never sizes
 * an allocation from n before n has been checked against the bytes present.
 * Also: the listing of a corpus directory that replay, merge and smoke read.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <nettle/sha1.h>
#include <nettle/version.h>
#include <zlib.h>

#include "kernels/kernel.h"
#include "kernels/blas.h"
#include "fuzz/corpus.h"
#include "fuzz/oracle.h"

/* Field offsets (corpus.h has the table). */
enum {
    OFF_MAGIC = 0,
    OFF_VERSION = 8,
    OFF_HSIZE = 10,
    OFF_CRC = 12,
    OFF_TYPE = 16,
    OFF_VERDICT = 17,
    OFF_FAMILY = 18,
    OFF_BLOCK = 20,
    OFF_GRID = 24,
    OFF_OFFSET_A = 28,
    OFF_OFFSET_B = 32,
    OFF_RESERVED1 = 36,
    OFF_N = 40,
    OFF_SEED = 48,
    OFF_INDEX = 56,
    OFF_KERNEL = 64,
    OFF_RESULT = 96,
    OFF_REFERENCE = 104,
    OFF_RESERVED2 = 112,
};

/* The largest file a reader accepts: the longest f64 case. */
#define MAX_FILE_BYTES                                                              \
    ((uint64_t)DF_CORPUS_HEADER + 2 * DF_CORPUS_MAX_N * 8 + DF_SOFT_CODES * DF_CORPUS_SOFT_RECORD)

/* Version 2 adds soft-error records after the vectors; byte 36 (reserved,
 * zero, in version 1) holds their count. A file without any is written as
 * version 1, byte for byte what earlier versions wrote, so its SHA-1 name
 * does not change. */
#define OFF_NSOFT OFF_RESERVED1

/* Version 3 records a perturbed schedule (case.h's df_schedule) in bytes
 * 112..127: seed u32, flags u16, SM share u16, noise time u32, 0 u32; soft
 * records as version 2 (0 to 3 of them). A case without a schedule is
 * written as before. */
#define OFF_SCHED OFF_RESERVED2

/* Version 4 holds a low-precision element type (4 f16, 5 bf16, 6 e4m3,
 * 7 e5m2, stored as their bits: 2, 2, 1, 1 bytes an element), with a
 * schedule (seed 0: none, the 16 bytes zero) and soft records as version
 * 3. Only version 4 holds those types, and it holds no other: a reader
 * that knows versions 1..3 refuses such a file by its version. Version 5: a
 * BLAS call's case (df_blas), any type, version 4's header, then after the
 * soft records inc_a i32, inc_b i32, n_arg i64 (DF_CORPUS_BLAS_RECORD). */
static uint16_t version_of(const df_case *c, const df_case_meta *m)
{
    return c->blas.on ? 5 : df_type_is_lowp(c->type) ? 4 : c->sched.seed ? 3 : m && m->nsoft ? 2 : 1;
}

const char *df_corpus_strerror(df_corpus_err e)
{
    switch (e) {
    case DF_CORPUS_OK: return "ok";
    case DF_CORPUS_E_IO: return "cannot read file";
    case DF_CORPUS_E_TRUNCATED: return "truncated file";
    case DF_CORPUS_E_MAGIC: return "not a dotfuzz case file";
    case DF_CORPUS_E_VERSION: return "unknown format version";
    case DF_CORPUS_E_HEADER: return "malformed header";
    case DF_CORPUS_E_TYPE: return "unknown element type";
    case DF_CORPUS_E_SIZE: return "file size does not match n";
    case DF_CORPUS_E_CHECKSUM: return "checksum mismatch";
    case DF_CORPUS_E_KERNEL: return "bad kernel name";
    case DF_CORPUS_E_NOMEM: return "out of memory";
    }
    return "unknown error";
}

/* ---- little-endian bytes ---------------------------------------------- */

static void put_u16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint16_t get_u16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

static uint32_t get_u32(const uint8_t *p)
{
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static uint64_t get_u64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static uint64_t double_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

static double bits_double(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_IS_LE 1
#else
#define HOST_IS_LE 0
#endif

/* Copies count elements of width size (4 or 8) from host order at src to
 * little-endian at dst. Element bits go through memcpy, so float, double
 * and int32 are handled alike and no aliasing rule is bent. */
static void vec_to_le(uint8_t *dst, const void *src, uint64_t count,
                      size_t size)
{
    if (count == 0) /* src may be NULL for an empty case */
        return;
    if (HOST_IS_LE) {
        memcpy(dst, src, (size_t)(count * size));
        return;
    }
    const uint8_t *s = src;
    for (uint64_t i = 0; i < count; i++, s += size, dst += size) {
        if (size == 4) {
            uint32_t u;
            memcpy(&u, s, 4);
            put_u32(dst, u);
        } else {
            uint64_t u;
            memcpy(&u, s, 8);
            put_u64(dst, u);
        }
    }
}

static void vec_from_le(void *dst, const uint8_t *src, uint64_t count,
                        size_t size)
{
    if (count == 0) /* src may be NULL for an empty case */
        return;
    if (HOST_IS_LE) {
        memcpy(dst, src, (size_t)(count * size));
        return;
    }
    uint8_t *d = dst;
    for (uint64_t i = 0; i < count; i++, src += size, d += size) {
        if (size == 4) {
            uint32_t u = get_u32(src);
            memcpy(d, &u, 4);
        } else {
            uint64_t u = get_u64(src);
            memcpy(d, &u, 8);
        }
    }
}

static uint32_t payload_crc(const uint8_t *buf, size_t len)
{
    uLong crc = crc32_z(0L, Z_NULL, 0);
    return (uint32_t)crc32_z(crc, buf + OFF_CRC + 4, len - (OFF_CRC + 4));
}

static void set_msg(char *msg, size_t msg_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set_msg(char *msg, size_t msg_len, const char *fmt, ...)
{
    if (!msg || msg_len == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, msg_len, fmt, ap);
    va_end(ap);
}

/* ---- encode ------------------------------------------------------------ */

/* 128 + 2 n size bytes, or 0 when that does not fit a size_t or n is over
 * the format's limit. */
static size_t file_bytes(df_type t, uint64_t n)
{
    size_t size = df_type_size(t);
    if (size == 0 || n > DF_CORPUS_MAX_N)
        return 0;
    uint64_t total = DF_CORPUS_HEADER + 2 * n * size; /* <= 2^36 + 128 */
    if (total > SIZE_MAX)
        return 0;
    return (size_t)total;
}

static void encode_header(uint8_t *p, const df_case *c, const df_case_meta *m)
{
    memcpy(p + OFF_MAGIC, DF_CORPUS_MAGIC, sizeof DF_CORPUS_MAGIC);
    put_u16(p + OFF_VERSION, version_of(c, m));
    p[OFF_NSOFT] = m ? (uint8_t)m->nsoft : 0;
    put_u16(p + OFF_HSIZE, DF_CORPUS_HEADER);
    p[OFF_TYPE] = (uint8_t)c->type;
    p[OFF_VERDICT] = m ? m->verdict : 0;
    put_u16(p + OFF_FAMILY, (uint16_t)c->family);
    put_u32(p + OFF_BLOCK, c->launch.block);
    put_u32(p + OFF_GRID, c->launch.grid);
    put_u32(p + OFF_OFFSET_A, c->launch.offset_a);
    put_u32(p + OFF_OFFSET_B, c->launch.offset_b);
    put_u64(p + OFF_N, c->n);
    put_u64(p + OFF_SEED, c->seed);
    put_u64(p + OFF_INDEX, c->index);
    memcpy(p + OFF_KERNEL, c->kernel, strlen(c->kernel));
    if (m) {
        uint64_t r = c->type == DF_I32 ? (uint64_t)m->iresult
                                       : double_bits(m->result);
        put_u64(p + OFF_RESULT, r);
        put_u64(p + OFF_REFERENCE, double_bits(m->reference));
    }
    if (c->sched.seed) {
        put_u32(p + OFF_SCHED, c->sched.seed);
        put_u16(p + OFF_SCHED + 4, c->sched.flags);
        put_u16(p + OFF_SCHED + 6, c->sched.sm_share);
        put_u32(p + OFF_SCHED + 8, c->sched.noise_us);
    }
}

/* NUL-terminated within DF_NAME_MAX bytes, printable ASCII before it. */
static int printable_name(const char *k)
{
    const char *nul = memchr(k, '\0', DF_NAME_MAX);
    if (!nul)
        return 0;
    for (const char *s = k; s < nul; s++)
        if (*s < 0x20 || *s > 0x7e)
            return 0;
    return 1;
}

static void encode_soft(uint8_t *p, const df_soft_report *r)
{
    put_u32(p, r->code);
    put_u32(p + 4, r->kernel);
    put_u32(p + 8, r->line);
    put_u32(p + 12, r->block);
    put_u32(p + 16, r->thread);
    put_u32(p + 20, r->round);
    put_u64(p + 24, r->index);
    put_u64(p + 32, (uint64_t)r->ivalue);
    put_u64(p + 40, double_bits(r->fvalue));
}

static void decode_soft(const uint8_t *p, df_soft_report *r)
{
    r->code = get_u32(p);
    r->kernel = get_u32(p + 4);
    r->line = get_u32(p + 8);
    r->block = get_u32(p + 12);
    r->thread = get_u32(p + 16);
    r->round = get_u32(p + 20);
    r->index = get_u64(p + 24);
    r->ivalue = (int64_t)get_u64(p + 32);
    r->fvalue = bits_double(get_u64(p + 40));
}

int df_corpus_encode(const df_case *c, const df_case_meta *m, uint8_t **buf,
                     size_t *len)
{
    size_t vec_total = file_bytes(c->type, c->n);
    size_t nsoft = m ? m->nsoft : 0;
    size_t blas = c->blas.on ? DF_CORPUS_BLAS_RECORD : 0;
    size_t total = vec_total ? vec_total + nsoft * DF_CORPUS_SOFT_RECORD + blas : 0;
    if (nsoft > DF_SOFT_CODES)
        total = 0;
    /* Refuse fields the format cannot hold, so that what is written reads
     * back (the kernel name's registry check is the caller's: it comes
     * from the registry). */
    if (total == 0 || c->family > UINT16_MAX || !printable_name(c->kernel) ||
        (m && m->verdict >= DF_V_COUNT) || (c->n > 0 && (!c->a || !c->b))) {
        errno = EINVAL;
        return -1;
    }
    uint8_t *p = calloc(1, total);
    if (!p)
        return -1;
    encode_header(p, c, m);
    size_t size = df_type_size(c->type);
    vec_to_le(p + DF_CORPUS_HEADER, c->a, c->n, size);
    vec_to_le(p + DF_CORPUS_HEADER + c->n * size, c->b, c->n, size);
    for (size_t i = 0; i < nsoft; i++)
        encode_soft(p + vec_total + i * DF_CORPUS_SOFT_RECORD, &m->soft[i]);
    if (blas) {
        uint8_t *r = p + vec_total + nsoft * DF_CORPUS_SOFT_RECORD;
        put_u32(r, (uint32_t)c->blas.inc_a);
        put_u32(r + 4, (uint32_t)c->blas.inc_b);
        put_u64(r + 8, (uint64_t)c->blas.n_arg);
    }
    put_u32(p + OFF_CRC, payload_crc(p, total));
    *buf = p;
    *len = total;
    return 0;
}

/* ---- decode ------------------------------------------------------------ */

static int all_zero(const uint8_t *p, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (p[i])
            return 0;
    return 1;
}

static df_corpus_err check_header(const uint8_t *buf, char *msg,
                                  size_t msg_len)
{
    uint16_t hsize = get_u16(buf + OFF_HSIZE);
    if (hsize != DF_CORPUS_HEADER) {
        set_msg(msg, msg_len, "header size field is %u, expected %d", hsize,
                DF_CORPUS_HEADER);
        return DF_CORPUS_E_HEADER;
    }
    uint16_t version = get_u16(buf + OFF_VERSION);
    int v2 = version >= 2, v3 = version >= 3, v4 = version >= 4;
    if (!all_zero(buf + OFF_RESERVED1 + v2, 4 - v2) ||
        !all_zero(buf + OFF_RESERVED2 + 12 * v3, DF_CORPUS_HEADER - OFF_RESERVED2 - 12 * v3)) {
        set_msg(msg, msg_len, "reserved header bytes (%d..39, %d..127) are not zero",
                36 + v2, 112 + 12 * v3);
        return DF_CORPUS_E_HEADER;
    }
    if (v2 && buf[OFF_NSOFT] > DF_SOFT_CODES) {
        set_msg(msg, msg_len, "version %u file with %u soft-error records (%d..%d)", version,
                buf[OFF_NSOFT], v3 ? 0 : 1, DF_SOFT_CODES);
        return DF_CORPUS_E_HEADER;
    }
    uint16_t sm_share = get_u16(buf + OFF_SCHED + 6), flags = get_u16(buf + OFF_SCHED + 4);
    int scheduled = v3 && (!v4 || !all_zero(buf + OFF_SCHED, 16));
    if (scheduled && (get_u32(buf + OFF_SCHED) == 0 || (flags & ~DF_SCHED_ALL) ||
                      sm_share < 1 || sm_share > 256)) {
        set_msg(msg, msg_len, "version %u file with a schedule of seed %u, flags 0x%x, SM "
                "share %u (seed nonzero, flags within 0x%x, share 1..256)", version,
                get_u32(buf + OFF_SCHED), flags, sm_share, DF_SCHED_ALL);
        return DF_CORPUS_E_HEADER;
    }
    if (v2 && !v3 && buf[OFF_NSOFT] == 0) {
        set_msg(msg, msg_len, "version 2 file without soft-error records");
        return DF_CORPUS_E_HEADER;
    }
    if (buf[OFF_VERDICT] >= DF_V_COUNT) {
        set_msg(msg, msg_len, "recorded verdict %u is not a verdict (0..%d)",
                buf[OFF_VERDICT], DF_V_COUNT - 1);
        return DF_CORPUS_E_HEADER;
    }
    return DF_CORPUS_OK;
}

static df_corpus_err check_size(const uint8_t *buf, size_t len, char *msg,
                                size_t msg_len)
{
    df_type t = (df_type)buf[OFF_TYPE];
    uint64_t n = get_u64(buf + OFF_N);
    if (n > DF_CORPUS_MAX_N) {
        set_msg(msg, msg_len, "n=%llu exceeds the limit %llu",
                (unsigned long long)n, (unsigned long long)DF_CORPUS_MAX_N);
        return DF_CORPUS_E_SIZE;
    }
    /* n <= 2^32 and size <= 8: no overflow in 64 bits. */
    uint64_t need = DF_CORPUS_HEADER + 2 * n * df_type_size(t) +
                    (uint64_t)buf[OFF_NSOFT] * DF_CORPUS_SOFT_RECORD +
                    (get_u16(buf + OFF_VERSION) == 5 ? DF_CORPUS_BLAS_RECORD : 0);
    if ((uint64_t)len != need) {
        set_msg(msg, msg_len, "file is %zu bytes but n=%llu of %s needs %llu",
                len, (unsigned long long)n, df_type_name(t),
                (unsigned long long)need);
        return DF_CORPUS_E_SIZE;
    }
    return DF_CORPUS_OK;
}

/* The kernel field: NUL-terminated, printable ASCII, NUL-padded, and
 * either empty or a registered kernel of the file's element type. */
static df_corpus_err check_kernel(const uint8_t *buf, char *msg,
                                  size_t msg_len)
{
    const uint8_t *k = buf + OFF_KERNEL;
    const uint8_t *nul = memchr(k, '\0', DF_NAME_MAX);
    if (!nul) {
        set_msg(msg, msg_len, "kernel name is not NUL-terminated within %d bytes",
                DF_NAME_MAX);
        return DF_CORPUS_E_KERNEL;
    }
    size_t klen = (size_t)(nul - k);
    for (size_t i = 0; i < klen; i++)
        if (k[i] < 0x20 || k[i] > 0x7e) {
            set_msg(msg, msg_len,
                    "kernel name byte %zu is 0x%02x, not printable ASCII", i,
                    k[i]);
            return DF_CORPUS_E_KERNEL;
        }
    if (!all_zero(nul, DF_NAME_MAX - klen)) {
        set_msg(msg, msg_len, "kernel name is not NUL-padded after '%s'",
                (const char *)k);
        return DF_CORPUS_E_KERNEL;
    }
    if (klen == 0)
        return DF_CORPUS_OK;
    const df_kernel *kd = df_kernel_find((const char *)k);
    df_type t = (df_type)buf[OFF_TYPE];
    if (!kd) {
        set_msg(msg, msg_len, "unknown kernel '%s'", (const char *)k);
        return DF_CORPUS_E_KERNEL;
    }
    if (kd->elem != t) {
        set_msg(msg, msg_len, "kernel '%s' takes %s, file has %s",
                (const char *)k, df_type_name(kd->elem), df_type_name(t));
        return DF_CORPUS_E_KERNEL;
    }
    return DF_CORPUS_OK;
}

/* A version 5 file's BLAS record against its vectors: n agrees with n_arg,
 * and a zero increment's vector (one element read n times) is constant. */
static df_corpus_err check_blas(const uint8_t *buf, size_t len, char *msg, size_t msg_len)
{
    const uint8_t *r = buf + len - DF_CORPUS_BLAS_RECORD;
    int32_t inc[2] = {(int32_t)get_u32(r), (int32_t)get_u32(r + 4)};
    int64_t n_arg = (int64_t)get_u64(r + 8);
    uint64_t n = get_u64(buf + OFF_N), es = df_type_size((df_type)buf[OFF_TYPE]);
    if (!df_blas_n_agrees(n_arg, n)) {
        set_msg(msg, msg_len, "BLAS n %lld with %llu elements a vector (n when n > 0, else 0)",
                (long long)n_arg, (unsigned long long)n);
        return DF_CORPUS_E_HEADER;
    }
    for (int v = 0; v < 2; v++) {
        const uint8_t *x = buf + DF_CORPUS_HEADER + v * n * es;
        for (uint64_t i = 1; inc[v] == 0 && i < n; i++)
            if (memcmp(x + i * es, x, es) != 0) {
                set_msg(msg, msg_len, "increment 0 for %c, whose elements 0 and %llu differ",
                        "ab"[v], (unsigned long long)i);
                return DF_CORPUS_E_HEADER;
            }
    }
    return DF_CORPUS_OK;
}

static df_corpus_err check_all(const uint8_t *buf, size_t len, char *msg,
                               size_t msg_len)
{
    if (len < DF_CORPUS_HEADER) {
        set_msg(msg, msg_len, "file is %zu bytes, shorter than the %d-byte header",
                len, DF_CORPUS_HEADER);
        return DF_CORPUS_E_TRUNCATED;
    }
    if (memcmp(buf + OFF_MAGIC, DF_CORPUS_MAGIC, sizeof DF_CORPUS_MAGIC) != 0) {
        set_msg(msg, msg_len, "bad magic (expected \"DOTFUZZ\\0\")");
        return DF_CORPUS_E_MAGIC;
    }
    uint16_t version = get_u16(buf + OFF_VERSION);
    if (version < 1 || version > DF_CORPUS_VERSION) {
        set_msg(msg, msg_len, "unknown version %u (this dotfuzz reads 1..%d)",
                version, DF_CORPUS_VERSION);
        return DF_CORPUS_E_VERSION;
    }
    df_corpus_err e = check_header(buf, msg, msg_len);
    if (e)
        return e;
    df_type t = (df_type)buf[OFF_TYPE];
    if (buf[OFF_TYPE] < 1 || buf[OFF_TYPE] > DF_TYPE_MAX ||
        (version < 5 && df_type_is_lowp(t) != (version == 4))) {
        set_msg(msg, msg_len, "element type %u in a version %u file (versions 1..3: 1 f32, "
                "2 f64, 3 i32; version 4: 4 f16, 5 bf16, 6 e4m3, 7 e5m2; version 5: any)",
                buf[OFF_TYPE], version);
        return DF_CORPUS_E_TYPE;
    }
    if ((e = check_size(buf, len, msg, msg_len)))
        return e;
    if (version == 5 && (e = check_blas(buf, len, msg, msg_len)))
        return e;
    uint32_t want = get_u32(buf + OFF_CRC), got = payload_crc(buf, len);
    if (got != want) {
        set_msg(msg, msg_len, "checksum 0x%08x != recorded 0x%08x", got, want);
        return DF_CORPUS_E_CHECKSUM;
    }
    return check_kernel(buf, msg, msg_len);
}

static void decode_fields(const uint8_t *buf, df_case_file *out)
{
    df_case *c = &out->c;
    c->type = (df_type)buf[OFF_TYPE];
    c->n = get_u64(buf + OFF_N);
    c->family = get_u16(buf + OFF_FAMILY);
    c->launch.block = get_u32(buf + OFF_BLOCK);
    c->launch.grid = get_u32(buf + OFF_GRID);
    c->launch.offset_a = get_u32(buf + OFF_OFFSET_A);
    c->launch.offset_b = get_u32(buf + OFF_OFFSET_B);
    c->seed = get_u64(buf + OFF_SEED);
    c->index = get_u64(buf + OFF_INDEX);
    memcpy(c->kernel, buf + OFF_KERNEL, DF_NAME_MAX);
    out->meta.verdict = buf[OFF_VERDICT];
    uint64_t r = get_u64(buf + OFF_RESULT);
    if (c->type == DF_I32)
        out->meta.iresult = (int64_t)r;
    else
        out->meta.result = bits_double(r);
    out->meta.reference = bits_double(get_u64(buf + OFF_REFERENCE));
    out->meta.nsoft = buf[OFF_NSOFT];
    if (get_u16(buf + OFF_VERSION) >= 3)
        c->sched = (df_schedule){get_u32(buf + OFF_SCHED), get_u16(buf + OFF_SCHED + 4),
                                 get_u16(buf + OFF_SCHED + 6), get_u32(buf + OFF_SCHED + 8), 0};
    size_t vec_end = DF_CORPUS_HEADER + 2 * c->n * df_type_size(c->type);
    for (uint32_t i = 0; i < out->meta.nsoft; i++)
        decode_soft(buf + vec_end + i * DF_CORPUS_SOFT_RECORD, &out->meta.soft[i]);
    if (get_u16(buf + OFF_VERSION) == 5) {
        const uint8_t *r = buf + vec_end + out->meta.nsoft * DF_CORPUS_SOFT_RECORD;
        c->blas = (df_blas){1, (int32_t)get_u32(r), (int32_t)get_u32(r + 4), 0,
                            (int64_t)get_u64(r + 8)};
    }
}

df_corpus_err df_corpus_decode(const uint8_t *buf, size_t len,
                               df_case_file *out, char *msg, size_t msg_len)
{
    memset(out, 0, sizeof *out);
    set_msg(msg, msg_len, "ok");
    df_corpus_err e = check_all(buf, len, msg, msg_len);
    if (e)
        return e;
    decode_fields(buf, out);
    /* Bounded by len, which check_size matched exactly. */
    size_t vec_bytes = len - DF_CORPUS_HEADER - out->meta.nsoft * DF_CORPUS_SOFT_RECORD -
                       (out->c.blas.on ? DF_CORPUS_BLAS_RECORD : 0);
    out->data = malloc(vec_bytes ? vec_bytes : 1);
    if (!out->data) {
        set_msg(msg, msg_len, "cannot allocate %zu bytes for the vectors",
                vec_bytes);
        memset(out, 0, sizeof *out);
        return DF_CORPUS_E_NOMEM;
    }
    size_t size = df_type_size(out->c.type);
    uint8_t *a = out->data, *b = a + out->c.n * size;
    vec_from_le(a, buf + DF_CORPUS_HEADER, out->c.n, size);
    vec_from_le(b, buf + DF_CORPUS_HEADER + out->c.n * size, out->c.n, size);
    out->c.a = a;
    out->c.b = b;
    return DF_CORPUS_OK;
}

void df_case_file_free(df_case_file *f)
{
    if (!f)
        return;
    free(f->data);
    memset(f, 0, sizeof *f);
}

/* ---- reading files ----------------------------------------------------- */

/* Reads all of fd into *buf, refusing more than MAX_FILE_BYTES. hint is the
 * size fstat reported (0 for pipes); the loop does not rely on it, so a file
 * that changes size while being read is still read correctly. */
static df_corpus_err read_all(int fd, uint64_t hint, uint8_t **buf,
                              size_t *len, char *msg, size_t msg_len)
{
    /* One byte past the limit, so that an oversized stream is detected. */
    size_t limit = MAX_FILE_BYTES < SIZE_MAX ? (size_t)MAX_FILE_BYTES + 1
                                             : SIZE_MAX;
    size_t cap = hint < 4096 ? 4096 : (size_t)hint + 1, used = 0;
    uint8_t *p = malloc(cap);
    df_corpus_err e = DF_CORPUS_OK;
    while (p && !e) {
        if (used == cap) {
            if (cap >= limit) {
                set_msg(msg, msg_len, "file is larger than %llu bytes",
                        (unsigned long long)MAX_FILE_BYTES);
                e = DF_CORPUS_E_SIZE;
                break;
            }
            cap = cap > limit / 2 ? limit : cap * 2;
            uint8_t *np = realloc(p, cap);
            if (!np) {
                free(p);
                p = NULL;
                break;
            }
            p = np;
        }
        ssize_t r = read(fd, p + used, cap - used);
        if (r == 0)
            break;
        if (r > 0)
            used += (size_t)r;
        else if (errno != EINTR) {
            set_msg(msg, msg_len, "read failed: %s", strerror(errno));
            e = DF_CORPUS_E_IO;
        }
    }
    if (!p) {
        set_msg(msg, msg_len, "cannot allocate %zu bytes", cap);
        return DF_CORPUS_E_NOMEM;
    }
    if (e) {
        free(p);
        return e;
    }
    *buf = p;
    *len = used;
    return DF_CORPUS_OK;
}

static df_corpus_err open_case(const char *path, int *fd, uint64_t *hint,
                               char *msg, size_t msg_len)
{
    *fd = df_open_regular(path, msg, msg_len);
    if (*fd < 0)
        return DF_CORPUS_E_IO;
    struct stat st;
    if (fstat(*fd, &st) != 0) {
        set_msg(msg, msg_len, "cannot stat: %s", strerror(errno));
        close(*fd);
        return DF_CORPUS_E_IO;
    }
    if ((uint64_t)st.st_size > MAX_FILE_BYTES) {
        set_msg(msg, msg_len, "file is %llu bytes, more than the largest case (%llu)",
                (unsigned long long)st.st_size,
                (unsigned long long)MAX_FILE_BYTES);
        close(*fd);
        return DF_CORPUS_E_SIZE;
    }
    *hint = (uint64_t)st.st_size;
    return DF_CORPUS_OK;
}

df_corpus_err df_corpus_read(const char *path, df_case_file *out, char *msg,
                             size_t msg_len)
{
    memset(out, 0, sizeof *out);
    int fd;
    uint64_t hint;
    df_corpus_err e = open_case(path, &fd, &hint, msg, msg_len);
    if (e)
        return e;
    uint8_t *buf = NULL;
    size_t len = 0;
    e = read_all(fd, hint, &buf, &len, msg, msg_len);
    close(fd);
    if (e)
        return e;
    e = df_corpus_decode(buf, len, out, msg, msg_len);
    free(buf);
    return e;
}

/* ---- names and atomic writes ------------------------------------------ */

void df_sha1_hex(const uint8_t *buf, size_t len, char hex[41])
{
    static const char digits[] = "0123456789abcdef";
    struct sha1_ctx ctx;
    uint8_t d[SHA1_DIGEST_SIZE];
    sha1_init(&ctx);
    sha1_update(&ctx, len, buf);
#if NETTLE_VERSION_MAJOR > 3 || \
    (NETTLE_VERSION_MAJOR == 3 && NETTLE_VERSION_MINOR >= 10)
    sha1_digest(&ctx, d); /* nettle 3.10 dropped the length argument */
#else
    sha1_digest(&ctx, sizeof d, d);
#endif
    for (int i = 0; i < SHA1_DIGEST_SIZE; i++) {
        hex[2 * i] = digits[d[i] >> 4];
        hex[2 * i + 1] = digits[d[i] & 15];
    }
    hex[40] = '\0';
}

const char *df_corpus_name_sha1(const char *name)
{
    const char *dash = strrchr(name, '-');
    const char *hex = dash ? dash + 1 : name;
    if (strlen(hex) != 40 || strspn(hex, "0123456789abcdef") != 40)
        return NULL;
    for (const char *p = name; p + 1 < hex; p++) /* a kind: [a-z-] */
        if (!((*p >= 'a' && *p <= 'z') || *p == '-'))
            return NULL;
    return hex;
}

int df_corpus_store(const char *dir, const char *kind, const uint8_t *buf, size_t len,
                    char *path, size_t path_len, int *is_new)
{
    if (is_new)
        *is_new = 0;
    if (!dir || !*dir) {
        errno = ENOENT;
        return -1;
    }
    if (df_make_dirs(dir) != 0)
        return -1;
    char hex[41];
    df_sha1_hex(buf, len, hex);
    if (kind && strlen(kind) + 42 > DF_CORPUS_NAME_MAX) {
        errno = ENAMETOOLONG;
        return -1;
    }
    size_t need = strlen(dir) + 1 + DF_CORPUS_NAME_MAX;
    char *full = malloc(need);
    if (!full)
        return -1;
    snprintf(full, need, "%s/%s%s%s", dir, kind && *kind ? kind : "", kind && *kind ? "-" : "",
             hex);
    int rc = 0;
    struct stat st;
    if (stat(full, &st) == 0) {
        /* Same name, same bytes: the case is already in the corpus. */
        if (!S_ISREG(st.st_mode)) {
            errno = EEXIST;
            rc = -1;
        }
    } else if (errno != ENOENT) {
        rc = -1;
    } else if ((rc = df_write_file_atomic(full, buf, len)) == 0 && is_new) {
        *is_new = 1;
    }
    if (rc == 0 && path && path_len > 0 &&
        (size_t)snprintf(path, path_len, "%s", full) >= path_len) {
        errno = ENAMETOOLONG; /* written, but the caller cannot hold the name */
        rc = -1;
    }
    int saved = errno;
    free(full);
    errno = saved;
    return rc;
}

void df_corpus_list_free(char **paths, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
}

static int by_name(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* dir/name when it is a regular file; NULL with *err = 0 when it is not,
 * with *err = -1 when out of memory. */
static char *regular_file(const char *dir, const char *name, int *err)
{
    size_t len = strlen(dir) + strlen(name) + 2;
    char *p = malloc(len);
    struct stat sb;
    *err = p ? 0 : -1;
    if (!p)
        return NULL;
    snprintf(p, len, "%s/%s", dir, name);
    if (stat(p, &sb) == 0 && S_ISREG(sb.st_mode))
        return p;
    free(p);
    return NULL;
}

int df_corpus_list(const char *dir, char ***paths, size_t *n)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    char **names = NULL;
    size_t count = 0, cap = 0;
    int err = 0;
    struct dirent *de;
    while (!err && (de = readdir(d)) != NULL) {
        /* hidden names include the temporaries of writes in progress
         * (files.h), so a live directory lists only whole files */
        if (de->d_name[0] == '.' || !strcmp(de->d_name, "README.md"))
            continue;
        char *p = regular_file(dir, de->d_name, &err);
        if (!p)
            continue;
        if (count == cap) {
            size_t nc = cap ? 2 * cap : 64;
            char **grown = realloc(names, nc * sizeof *names);
            if (!grown) {
                free(p);
                err = -1;
                break;
            }
            names = grown;
            cap = nc;
        }
        names[count++] = p;
    }
    closedir(d);
    if (err) {
        df_corpus_list_free(names, count);
        errno = ENOMEM;
        return -1;
    }
    if (count)
        qsort(names, count, sizeof *names, by_name);
    *paths = names;
    *n = count;
    return 0;
}
