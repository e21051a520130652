/* hyperlayout transform — the output array: a .npy file written atomically,
 * standard output / a FIFO / a device written through, or a member of an
 * .npz archive (stored, as np.savez writes; deflated where it replaces a
 * deflated member, as np.savez_compressed wrote it), filled piece by piece. */
#ifndef CLI_NPY_SINK_H
#define CLI_NPY_SINK_H

#include <stdbool.h>
#include <stdint.h>

#include "atomic_file.h"
#include "h5_cli.h"
#include "hyperlayout.h"

/* Room for any header hl_npy_format_header_info writes: the descr and a
 * shape of HL_MAX_RANK extents. */
#define NPY_HEADER_CAP (HL_NPY_DESCR_MAX + 1024)

typedef struct npy_sink {
    hl_atomic_file *file;
    const char *path;              /* for messages */
    bool archive;
    bool named;                    /* "X.npz:NAME": NAME replaces or joins the archive's members */
    char member[HL_NPZ_NAME_MAX];  /* the member written */
    hl_npz_edit *edit;             /* the archive around it */
    unsigned char *old;            /* the archive it rewrites, mapped until its records are copied */
    size_t old_len;
    uint32_t crc;                  /* of the member's bytes so far */
    int64_t member_bytes;          /* written so far: .npy header and data */
    hl_npz_deflater *deflate;      /* a member that replaces a deflated one: deflated too */
    int64_t stored;                /* ... and the bytes it is stored as so far */
    /* an HDF5 dataset (FILE.h5:/DATASET, h5_cli.h); file is then only the lock */
    bool h5;
    char h5file[4096], h5dset[H5_NAME_MAX];
    h5_out_options h5opt;          /* the caller's --h5-* options, set before start */
    const hl_h5_reader *like;      /* an HDF5 input: its type and attributes are kept */
    bool like_scalar;              /* ... and it is a scalar dataset */
    hl_h5_writer *h5w;
    int64_t h5pos, h5elem;         /* elements written; element size */
} npy_sink;

/* Opens PATH for writing: "FILE.h5:/DATASET" an HDF5 dataset (h5_cli.h);
 * "-" is standard output; "X.npz" an archive of one
 * member (arr_0, as np.savez names it, unless npy_sink_start names it);
 * "X.npz:NAME" member NAME of archive X.npz: when X.npz exists, every other
 * member is kept byte for byte and NAME replaced or added (a file there that
 * is not an archive is refused).  An existing file is locked from here to
 * commit or abort (io/atomic.h): open the output before reading an input
 * that is the same file.  On error *why (cap bytes) names the file and the
 * reason, and nothing is left behind. */
hl_status npy_sink_open(npy_sink *k, const char *path, char *why, size_t cap);

/* Starts the array that `info` describes (shape, descr, fortran_order):
 * claims the space the whole file needs — a full disk fails here, before
 * any work — copies the archive's other members and writes the header.
 * member: the member's name when PATH named none (NULL: arr_0). */
hl_status npy_sink_start(npy_sink *k, const hl_npy_info *info, const char *member, char *why,
                         size_t cap);

/* Appends len bytes of the array's data. */
hl_status npy_sink_write(npy_sink *k, const void *data, size_t len, char *why, size_t cap);

/* Finishes the file and puts it in place (renamed over PATH). */
hl_status npy_sink_commit(npy_sink *k, char *why, size_t cap);

/* Removes what was written (a direct target keeps what it got). */
void npy_sink_abort(npy_sink *k);

#endif
