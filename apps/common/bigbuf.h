/* hyperlayout applications — memory for whole arrays: anonymous pages,
 * aligned to 2 MiB and marked for transparent huge pages, so that filling a
 * 2 GiB buffer costs about a thousand page faults instead of half a million
 * (malloc's pages are 4 KiB: the faults, not the copying, then dominate). */
#ifndef APPS_COMMON_BIGBUF_H
#define APPS_COMMON_BIGBUF_H

#include <stddef.h>

/* NULL (errno set) when the memory is not there. */
void *bigbuf_alloc(size_t bytes);

/* The buffer made `bytes` long, its contents kept; may move. NULL (errno
 * set, p still valid) on failure. */
void *bigbuf_grow(void *p, size_t old_bytes, size_t bytes);

void bigbuf_free(void *p, size_t bytes);

#endif
