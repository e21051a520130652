/* libFuzzer target for the .npz (zip) reader: any byte string must give a
 * status (never a crash, a hang, a read outside the buffer or undefined
 * behaviour); every member listed must lie inside the buffer, be found by
 * its name, and extract (small ones) or fail with a status.  Built with
 * -DHL_FUZZ=ON and clang; run: build-fuzz/bin/fuzz_npz -max_total_time=60 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hyperlayout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *buf = malloc(size ? size : 1); /* exactly sized: ASan sees overreads */
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    hl_npz_member m[8];
    int64_t count = 0;
    hl_status st = hl_npz_list(buf, size, m, 8, &count);
    if (st == HL_OK || st == HL_ERR_BUFFER) {
        for (int64_t i = 0; i < count && i < 8; i++) {
            if (m[i].offset < 0 || m[i].stored < 0 || (uint64_t)m[i].offset > size ||
                (uint64_t)m[i].stored > size - (uint64_t)m[i].offset)
                abort();
            hl_npz_member again;
            if (hl_npz_find(buf, size, m[i].name, &again) != HL_OK)
                abort();
            hl_npy_info info;
            (void)hl_npz_member_header(buf, size, &m[i], &info);
            if (m[i].size >= 0 && m[i].size <= (1 << 20)) {
                void *out = malloc((size_t)m[i].size + 1);
                if (out)
                    (void)hl_npz_extract(buf, size, &m[i], out);
                free(out);
            }
        }
    }
    free(buf);
    return 0;
}
