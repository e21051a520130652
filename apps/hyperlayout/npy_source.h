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
    char member[HL_NPZ_NAME_MAX]; /* the archive member read (np.load's key); "" for a .npy */
    unsigned char *map;  /* the file's bytes: mapped (private and read-only; shared
                            with --in-place=unsafe), the caller's, or buf */
    size_t map_len;
    bool mapped;         /* map is a mapping of the file, to unmap */
    unsigned char *buf;  /* read from a pipe, or a member uncompressed */
    size_t buf_len;
    hl_h5_reader *h5;    /* an HDF5 dataset read into buf (h5_cli.h), kept open */
} npy_source;

enum {
    NPY_SOURCE_SHARED = 1,    /* map the file writable and shared (--in-place=unsafe:
                                 what the plan writes goes to the file) */
    NPY_SOURCE_NO_VERIFY = 2, /* do not check a stored archive member against its
                                 CRC-32 (deflated ones are checked as they inflate) */
};

/* Opens PATH — "-" for standard input; "ARCHIVE.npz:NAME" (or "-:NAME") for
 * one member of an archive (an archive of one member needs no NAME) — and
 * reads its header.  A regular file is mapped, not read: its pages are the
 * page cache's.  A stream (a pipe, a terminal, a device) is read as far as
 * its headers announce and no further: the .npy header first, then exactly
 * the data it announces (an archive: member by member, by their local
 * headers); a stream longer or shorter than announced is an error, and the
 * memory used is the announced data plus a constant.  flags: NPY_SOURCE_*.
 * On error *why (cap bytes) says what is wrong, with the system's reason,
 * and the source holds nothing. */
hl_status npy_source_open(npy_source *s, const char *path, unsigned flags, char *why, size_t cap);

/* The rest of npy_source_open once PATH is open, for callers that hold the
 * bytes (len bytes at bytes, which must outlive s) or a stream (fd, read by
 * the library's hl_npz_stream_read): label names it in messages, member as
 * NAME above (NULL: the only one). */
hl_status npy_source_from_memory(npy_source *s, unsigned char *bytes, size_t len,
                                 const char *member, unsigned flags, const char *label, char *why,
                                 size_t cap);
hl_status npy_source_from_stream(npy_source *s, int fd, const char *member, unsigned flags,
                                 const char *label, char *why, size_t cap);

/* Moves the data into process memory on huge pages (2 MiB aligned), piece
 * by piece, dropping the file's pages as it goes, so the memory used stays
 * one copy: for plans whose parts read a little of many pages, where 4 KiB
 * file pages would cost a TLB miss per read. */
hl_status npy_source_to_memory(npy_source *s);

void npy_source_close(npy_source *s);

#endif
