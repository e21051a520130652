/* hyperlayout internal — copying one element (or a piece) of a size known
 * only at run time, with the common sizes inlined. */
#ifndef HYPERLAYOUT_ELEM_H
#define HYPERLAYOUT_ELEM_H

#include <stdint.h>
#include <string.h>

static inline void hl_elem_copy(char *dst, const char *src, int64_t size)
{
    switch (size) {
    case 1: *dst = *src; break;
    case 2: memcpy(dst, src, 2); break;
    case 4: memcpy(dst, src, 4); break;
    case 8: memcpy(dst, src, 8); break;
    case 16: memcpy(dst, src, 16); break;
    default: memcpy(dst, src, (size_t)size);
    }
}

#endif
