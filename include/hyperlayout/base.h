/* hyperlayout — definitions every header shares: the rank limit, the host/device
 * qualifier and the status codes.  No includes: kindex.h must stay free of
 * dependencies so that it compiles as plain C and as CUDA. */
#ifndef HYPERLAYOUT_BASE_H
#define HYPERLAYOUT_BASE_H

/* Largest rank of an array.  Dimension sets are 64-bit masks, so it may grow
 * up to 64 without an API change. */
#define HL_MAX_RANK 32

#if defined(__CUDACC__)
#define HL_HOSTDEV __host__ __device__
#else
#define HL_HOSTDEV
#endif

/* Marks the functions the shared libraries export: they are built with
 * -fvisibility=hidden, so that only the functions of the installed headers
 * are exported (tests/install checks nm's list against the headers).  For
 * the static library and for programs it changes nothing.  Put on the
 * declarations by scripts/add_hl_api.py. */
#if defined(__GNUC__) || defined(__clang__)
#define HL_API __attribute__((visibility("default")))
#else
#define HL_API
#endif

/* Every fallible call returns one of these.  HL_OK is zero so that
 * `if (st) ...` reads naturally; hl_strerror() gives a one-line message. */
typedef enum hl_status {
    HL_OK = 0,
    HL_ERR_NULL,           /* a required pointer argument is NULL */
    HL_ERR_EMPTY,          /* empty notation string or no dimensions */
    HL_ERR_SYNTAX,         /* notation is not of the form [L(d-1),...,L0(,type)] */
    HL_ERR_EXTENT,         /* an extent is zero or negative */
    HL_ERR_RANK,           /* rank outside 1..HL_MAX_RANK */
    HL_ERR_OVERFLOW,       /* an extent or the element count N overflows int64 */
    HL_ERR_BYTES_OVERFLOW, /* N times the element size overflows int64 */
    HL_ERR_DTYPE,          /* unknown element type name */
    HL_ERR_ELEM_SIZE,      /* element size zero, negative or inconsistent */
    HL_ERR_DIM,            /* dimension index outside 0..rank-1 */
    HL_ERR_RANGE,          /* coordinate, k index or box outside the array */
    HL_ERR_STEP,           /* crinkle step outside 1..extent */
    HL_ERR_NOT_POW2,       /* power-of-two path asked for other extents */
    HL_ERR_ARG,            /* another argument out of its documented range */
    HL_ERR_NOMEM,          /* allocation failed */
    HL_ERR_BUFFER,         /* caller's output buffer is too small */
    HL_ERR_IO,             /* a file could not be opened, read or written (see errno) */
    HL_ERR_FORMAT,         /* a file is malformed or truncated */
    HL_ERR_UNSUPPORTED,    /* valid input hyperlayout does not handle (a file feature, layouts) */
    HL_ERR_MISMATCH,       /* shapes, element sizes or layouts do not match */
    HL_ERR_IN_PLACE,       /* this plan cannot run in place (in == out) */
    HL_ERR_NOT_FOUND,      /* no such member in an archive */
    HL_ERR_OVERLAP,        /* input and output buffers overlap without being the same */
    HL_ERR_DEVICE,         /* the CUDA runtime reported an error (no device, a failed launch) */
    HL_ERR_COMM,           /* an MPI call failed, or a process of the communicator did */
    HL_ERR_ISA,            /* HL_ISA names a level unknown, or one the CPU or build lacks */
    HL_STATUS_COUNT        /* number of codes, not a code */
} hl_status;

#ifdef __cplusplus
extern "C" {
#endif

/* One-line English description of a status; never NULL. */
HL_API const char *hl_strerror(hl_status st);

#ifdef __cplusplus
}
#endif

#endif
