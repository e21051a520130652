/* hyperlayout transform — the input array: a .npy file mapped (never
 * modified), standard input, or one member of an .npz archive. */
#ifndef CLI_NPY_SOURCE_H
#define CLI_NPY_SOURCE_H

#include <stdbool.h>
#include <stddef.h>

#include "hyperlayout.h"

typedef struct npy_source {
    hl_npy_info info;    /* the array's header (the member's, in an archive) */
    unsigned char *data; /* its info.data_bytes bytes */
    unsigned char *map;  /* the file, mapped (private and read-only; shared with
                            --in-place=unsafe), or buf */
    size_t map_len;
    unsigned char *buf;  /* read from a pipe, or a member uncompressed */
    size_t buf_len;
} npy_source;

/* Opens PATH — "-" for standard input; "ARCHIVE.npz:NAME" for one member of
 * an archive (an archive of one member needs no NAME) — and reads its
 * header.  A regular file is mapped, not read: its pages are the page
 * cache's.  shared: map it writable and shared (--in-place=unsafe: what the
 * plan writes goes to the file).  On error *why (cap bytes) says what is
 * wrong, with the system's reason, and the source holds nothing. */
hl_status npy_source_open(npy_source *s, const char *path, bool shared, char *why, size_t cap);

/* Moves the data into process memory on huge pages (2 MiB aligned), piece
 * by piece, dropping the file's pages as it goes, so the memory used stays
 * one copy: for plans whose parts read a little of many pages, where 4 KiB
 * file pages would cost a TLB miss per read. */
hl_status npy_source_to_memory(npy_source *s);

void npy_source_close(npy_source *s);

#endif
