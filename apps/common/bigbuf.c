/* hyperlayout applications — huge-page buffers. */
#define _GNU_SOURCE /* mremap, MADV_HUGEPAGE */

#include "bigbuf.h"

#include <stdint.h>
#include <sys/mman.h>

enum { HUGE = 2 << 20 };

static size_t rounded(size_t bytes) { return (bytes + HUGE - 1) / HUGE * HUGE; }

static void advise(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    if (bytes >= HUGE)
        (void)madvise(p, bytes, MADV_HUGEPAGE); /* a hint: without THP it fails, harmlessly */
#endif
}

void *bigbuf_alloc(size_t bytes)
{
    if (bytes == 0)
        bytes = 1;
    const size_t len = rounded(bytes);
    if (len < bytes || len > SIZE_MAX - HUGE)
        return NULL;
    /* over-allocate by one huge page and trim, so the start is aligned */
    char *raw = mmap(NULL, len + HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        return NULL;
    char *p = (char *)(((uintptr_t)raw + HUGE - 1) & ~(uintptr_t)(HUGE - 1));
    if (p > raw)
        munmap(raw, (size_t)(p - raw));
    if (raw + len + HUGE > p + len)
        munmap(p + len, (size_t)(raw + len + HUGE - (p + len)));
    advise(p, len);
    return p;
}

void *bigbuf_grow(void *p, size_t old_bytes, size_t bytes)
{
    if (!p)
        return bigbuf_alloc(bytes);
    const size_t old_len = rounded(old_bytes ? old_bytes : 1), len = rounded(bytes);
    if (len <= old_len)
        return p;
    void *q = mremap(p, old_len, len, MREMAP_MAYMOVE);
    if (q == MAP_FAILED)
        return NULL;
    advise(q, len);
    return q;
}

void bigbuf_free(void *p, size_t bytes)
{
    if (p)
        munmap(p, rounded(bytes ? bytes : 1));
}
