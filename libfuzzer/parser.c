/* parser.c — the case-file reader alone, under ASan and UBSan: every input
 * goes through df_corpus_decode; one it accepts must encode back to the
 * same bytes (abort otherwise). Random bytes almost never carry a valid
 * CRC, so the custom mutator rewrites the CRC of half its outputs, which
 * lets mutations reach the checks past it (kernel name, size). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "fuzz/corpus.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
                               unsigned int seed);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    df_case_file f;
    char msg[300];
    if (df_corpus_decode(data, size, &f, msg, sizeof msg) != DF_CORPUS_OK)
        return 0;
    uint8_t *buf;
    size_t len;
    if (df_corpus_encode(&f.c, &f.meta, &buf, &len) != 0) {
        fprintf(stderr, "dotfuzz-fuzz-parser: decoded case does not encode\n");
        abort();
    }
    if (len != size || memcmp(buf, data, size) != 0) {
        size_t at = 0;
        while (at < len && at < size && buf[at] == data[at])
            at++;
        fprintf(stderr, "dotfuzz-fuzz-parser: round trip differs at byte %zu (%zu vs %zu bytes)\n",
                at, size, len);
        abort();
    }
    free(buf);
    df_case_file_free(&f);
    return 0;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
                               unsigned int seed)
{
    size = LLVMFuzzerMutate(data, size, max_size);
    if (size >= 16 && (seed & 1)) {
        /* the CRC field, bytes 12..15, over bytes [16, end), little-endian */
        uLong crc = crc32(crc32(0L, Z_NULL, 0), data + 16, (uInt)(size - 16));
        for (int i = 0; i < 4; i++)
            data[12 + i] = (uint8_t)(crc >> (8 * i));
    }
    return size;
}
