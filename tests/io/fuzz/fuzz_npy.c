/* libFuzzer target for the .npy header parser: any byte string must give a
 * status (never a crash, a hang, a read outside the buffer or undefined
 * behaviour); an accepted header must describe a valid shape whose data
 * offset lies inside the buffer, and the headers hyperlayout writes for it
 * (hl_npy_format_header_info, and hl_npy_format_header for numeric types)
 * must parse back to it.  Built with -DHL_FUZZ=ON and clang; run:
 * build-fuzz/bin/fuzz_npy -max_total_time=60 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hyperlayout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* an exactly sized copy, so that ASan sees any read past the end */
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    hl_npy_info info;
    if (hl_npy_parse_header(buf, size, &info) == HL_OK && info.unsupported == NULL) {
        const hl_shape *s = &info.shape;
        hl_shape check;
        if (hl_shape_init(&check, s->rank, s->extent, s->dtype, s->elem_size) != HL_OK ||
            memcmp(&check, s, sizeof check) != 0)
            abort();
        if (info.data_offset < 10 || (uint64_t)info.data_offset > size ||
            info.data_bytes != hl_shape_bytes(s) || info.ndim != s->rank || info.data_bytes > INT64_MAX - info.data_offset ||
            info.version_major < 1 || info.version_major > 3 || info.version_minor != 0 ||
            info.file_bytes != -1 || memchr(info.descr, '\0', sizeof info.descr) == NULL)
            abort();
        uint8_t hdr[2048];
        size_t len;
        hl_npy_info again;
        /* the header hyperlayout writes for the same descr, order and shape */
        uint8_t any[16384];
        hl_npy_info back;
        if (hl_npy_format_header_info(&info, 0, any, sizeof any, &len) != HL_OK ||
            hl_npy_parse_header(any, len, &back) != HL_OK || strcmp(back.descr, info.descr) != 0 ||
            back.fortran_order != info.fortran_order || memcmp(&back.shape, s, sizeof *s) != 0)
            abort();
        if (s->dtype == HL_DTYPE_BYTES || info.swapped)
            goto done; /* hl_npy_format_header writes |V<n>, native order */
        if (hl_npy_format_header(s, hdr, sizeof hdr, &len) != HL_OK ||
            hl_npy_parse_header(hdr, len, &again) != HL_OK ||
            memcmp(&again.shape, s, sizeof *s) != 0 || strcmp(again.descr, info.descr) != 0 ||
            len % 64 != 0)
            abort();
    }
done:
    free(buf);
    return 0;
}
