/* hyperlayout CLI — HDF5 datasets where a file is accepted:
 * "FILE.h5:/group/dataset" (also .hdf5, .he5); "FILE.h5" alone names the
 * file's only dataset when read, and dataset /data when written. */
#ifndef CLI_H5_CLI_H
#define CLI_H5_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "hyperlayout.h"
#include "npy_source.h"

#define H5_NAME_MAX 1024

/* Whether ARG names an HDF5 file (by its extension, before an optional
 * ":DATASET"); *file and *dset get the parts ("" when no dataset). */
bool h5_path(const char *arg, char *file, size_t fcap, char *dset, size_t dcap);

/* The dataset ARG names (or the file's only one) into s: its info as a
 * C-order native .npy header, its data read slab by slab into memory.
 * s->h5 keeps the dataset open (for its type and attributes). */
hl_status h5_source_open(npy_source *s, const char *arg, char *why, size_t cap);

/* hyperlayout info for an HDF5 ARG: the datasets of a file, or one. */
int h5_info(const char *arg);

/* The --h5-* options of transform and stencil: -1 when argv[*i] is none of
 * them, 0 when it was taken (with its value: *i advanced), 2 after an error
 * message. */
typedef struct h5_out_options {
    bool append;
    int deflate;
    bool shuffle;
    int nchunk;
    int64_t chunk[HL_H5_MAX_NDIM];
} h5_out_options;
int h5_parse_option(const char *cmd, int argc, char **argv, int *i, h5_out_options *o);

/* The one check every command that reads an input and writes an output
 * (transform, stencil) makes before it reads: an HDF5 OUT written in
 * replace mode (a new file holding its dataset only) into the file of the
 * HDF5 input IN would drop every other dataset there, IN's own among
 * them.  --h5-* options with an OUT that is not HDF5 are refused too
 * rather than ignored.  -1: go on; otherwise the exit code after
 * cli_error's message. */
int h5_check_output(const char *cmd, const char *in, const char *out, const h5_out_options *o);

/* The text of those options for --help. */
extern const char h5_options_help[];

#endif
