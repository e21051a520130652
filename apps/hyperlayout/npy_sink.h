/* hyperlayout transform — the output array: a .npy file written atomically,
 * standard output / a FIFO / a device written through, or a one-member
 * .npz archive (stored, as np.savez writes), filled piece by piece. */
#ifndef CLI_NPY_SINK_H
#define CLI_NPY_SINK_H

#include <stdbool.h>
#include <stdint.h>

#include "atomic_file.h"
#include "hyperlayout.h"

/* Room for any header hl_npy_format_header_info writes: the descr and a
 * shape of HL_MAX_RANK extents. */
#define NPY_HEADER_CAP (HL_NPY_DESCR_MAX + 1024)

typedef struct npy_sink {
    atomic_file *file;
    const char *path;              /* for messages */
    bool archive;
    char member[HL_NPZ_NAME_MAX];  /* the archive's one member */
    uint32_t crc;                  /* of the member's bytes so far */
    int64_t member_bytes;          /* written so far: .npy header and data */
} npy_sink;

/* Opens PATH ("-": standard output; "X.npz" or "X.npz:NAME": an archive
 * whose one member is NAME, default arr_0, as np.savez names it) for the
 * array that `info` describes (shape, descr, fortran_order), claims the
 * space the whole file needs — a full disk fails here, before any work —
 * and writes the header.  On error *why (cap bytes) names the file and the
 * system's reason, and nothing is left behind. */
hl_status npy_sink_open(npy_sink *k, const char *path, const hl_npy_info *info, char *why,
                        size_t cap);

/* Appends len bytes of the array's data. */
hl_status npy_sink_write(npy_sink *k, const void *data, size_t len, char *why, size_t cap);

/* Finishes the file and puts it in place (renamed over PATH). */
hl_status npy_sink_commit(npy_sink *k, char *why, size_t cap);

/* Removes what was written (a direct target keeps what it got). */
void npy_sink_abort(npy_sink *k);

#endif
