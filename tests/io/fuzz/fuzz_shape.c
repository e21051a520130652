/* libFuzzer target for the notation parser: any byte string must give a
 * status (never a crash, a hang or undefined behaviour), and an accepted
 * shape must format and parse back to itself.  Built with -DHL_FUZZ=ON and
 * clang; run: build-fuzz/bin/fuzz_shape -max_total_time=60 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hyperlayout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    hl_shape s;
    if (hl_shape_parse(&s, text) == HL_OK) {
        char buf[HL_SHAPE_NOTATION_MAX];
        hl_shape again;
        if (hl_shape_format(&s, buf, sizeof buf) != HL_OK || hl_shape_parse(&again, buf) != HL_OK ||
            memcmp(&s, &again, sizeof s) != 0)
            abort();
        hl_kindex ki;
        if (hl_kindex_init(&ki, s.rank, s.extent) != HL_OK)
            abort();
    }
    free(text);
    return 0;
}
