/* hyperlayout — messages for status codes. */
#include "hyperlayout/base.h"

const char *hl_strerror(hl_status st)
{
    switch (st) {
    case HL_OK: return "success";
    case HL_ERR_NULL: return "a required argument is NULL";
    case HL_ERR_EMPTY: return "empty shape: no dimensions given";
    case HL_ERR_SYNTAX: return "malformed shape notation (expected e.g. [128,128,int32])";
    case HL_ERR_EXTENT: return "an extent is zero or negative";
    case HL_ERR_RANK: return "rank outside 1..HL_MAX_RANK";
    case HL_ERR_OVERFLOW: return "extent or element count overflows int64";
    case HL_ERR_BYTES_OVERFLOW: return "array size in bytes overflows int64";
    case HL_ERR_DTYPE: return "unknown element type";
    case HL_ERR_ELEM_SIZE: return "invalid element size";
    case HL_ERR_DIM: return "dimension index out of range";
    case HL_ERR_RANGE: return "coordinate, k index or box outside the array";
    case HL_ERR_STEP: return "crinkle step outside 1..extent";
    case HL_ERR_NOT_POW2: return "extents are not all powers of two";
    case HL_ERR_ARG: return "argument out of range";
    case HL_ERR_NOMEM: return "out of memory";
    case HL_ERR_BUFFER: return "output buffer too small";
    case HL_ERR_IO: return "file could not be opened, read or written";
    case HL_ERR_FORMAT: return "malformed or truncated file";
    case HL_ERR_UNSUPPORTED: return "not supported by hyperlayout (a file feature, or layouts this call cannot handle)";
    case HL_ERR_MISMATCH: return "shapes, element sizes or layouts do not match";
    case HL_ERR_IN_PLACE: return "this plan cannot run in place";
    case HL_ERR_NOT_FOUND: return "no such member in the archive";
    case HL_ERR_OVERLAP: return "input and output buffers overlap (only in == out runs in place)";
    case HL_ERR_DEVICE: return "the CUDA runtime reported an error (no usable device, or a failed launch)";
    case HL_ERR_COMM: return "an MPI call failed (on this process or another one of the communicator)";
    case HL_ERR_ISA: return "HL_ISA names an instruction-set level unknown or missing on this CPU or build (generic, sse2, avx2, avx512 on x86-64, neon on aarch64, auto)";
    case HL_STATUS_COUNT: break;
    }
    return "unknown status code";
}
