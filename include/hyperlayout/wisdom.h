/* hyperlayout — wisdom: what HL_EFFORT_MEASURE planning learnt, kept for
 * later plans, and saved to text or a file and loaded back.
 *
 * A plan made with hl_plan_options.effort = HL_EFFORT_MEASURE times the
 * candidates of each box that has several (plan.h) and records the fastest
 * here under a key that identifies the box's problem exactly.  Every later
 * plan, with either effort, takes the recorded choice for a box with the
 * same key instead of the cost model's (or of measuring again), and says so
 * in hl_plan_describe ("(wisdom)").  The wisdom is process-wide, shared by
 * all threads (a mutex guards it), and starts empty.
 *
 * The key of a box of the register-transpose solver: its digits as the
 * planner sorted them (each extent, src stride, dst stride; elements), the
 * element size, the threads the plan runs with (0 in the options counts as
 * OpenMP's default at planning), whether the plan writes with streaming
 * stores (outputs of 32 MiB and more), and the kernels' ISA level
 * (hl_isa_name).  The value: the output run of a plane's column, in bytes
 * (the length asked for: a digit shorter than it gives a shorter run).
 *
 * A plan of a chain whose passes compose into one (plan.h: several passes)
 * chooses between the two passes and the composed one: under MEASURE by
 * timing both on arrays of its sizes, recorded here under the canonical
 * hash of the steps the passes cover (problem.h), the element size, the
 * threads and the ISA; the value says whether they run composed.  Later
 * plans of the same steps follow it instead of the cost model.
 *
 * A plan prepared for CUDA (cuda.h) under MEASURE times which transposes go
 * through the tile kernel (none; those of runs of 32 bytes and more, the
 * estimate; all) on the device, recorded under the device's architecture,
 * the element size and a hash of the plan's boxes; later preparations of
 * the same boxes on the same architecture follow it.
 *
 * The text format, version 3: lines ending in '\n'; blank lines and lines
 * starting with '#' are ignored; the first other line is the header
 *
 *     hyperlayout-wisdom 2
 *
 * then one line per entry, seven fields separated by single spaces:
 *
 *     transpose isa=avx2 elem=4 threads=1 stream=1 digits=256:65536:1,256:256:256,256:1:65536 columns=128
 *
 * isa a name of 1 to 15 characters [a-z0-9_]; elem >= 1; threads >= 1;
 * stream 0 or 1; digits 1 to 64 triples extent:src_stride:dst_stride
 * (decimal int64, extent >= 1) separated by commas; columns from 1 to
 * 65536 (the planner's lengths: 512, 256, 128, or an odd output run that a
 * plane takes whole, such as 1020); or six fields
 *
 *     compose isa=avx512 elem=4 threads=2 problem=8acfa4bf02de67b3 merge=1
 *
 * problem 16 lowercase hexadecimal digits, merge 0 or 1; or five fields
 *
 *     cuda arch=sm90 elem=4 boxes=1f0c3a9e5d7b2c40 tiles=32
 *
 * arch as isa, boxes 16 lowercase hexadecimal digits, tiles from 0 (no
 * tile kernel) to 65536 (the shortest run in bytes that goes through it).
 * A later entry with the same key replaces an earlier one.  Versions 1 (no
 * compose or cuda lines) and 2 (no cuda lines) are read as well, and
 * written while the wisdom holds nothing newer; another version number in
 * the header is HL_ERR_UNSUPPORTED. */
#ifndef HYPERLAYOUT_WISDOM_H
#define HYPERLAYOUT_WISDOM_H

#include <stdint.h>

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The format version hl_wisdom_export writes and hl_wisdom_import reads. */
#define HL_WISDOM_VERSION 3

/* The wisdom as text (the format above) in *text, malloc'd: the caller
 * frees it.  HL_ERR_NULL, HL_ERR_NOMEM. */
HL_API hl_status hl_wisdom_export(char **text);

/* Adds the entries of text to the wisdom (replacing those with the same
 * keys).  All or nothing: HL_ERR_SYNTAX for text not in the format (no
 * header, a malformed line, a field out of range), HL_ERR_UNSUPPORTED for
 * a header of another version, HL_ERR_NULL, HL_ERR_NOMEM; on any error the
 * wisdom is unchanged. */
HL_API hl_status hl_wisdom_import(const char *text);

/* hl_wisdom_export into the file at path, replaced atomically (a temporary
 * beside it, then renamed over it): HL_ERR_IO (errno set) when it cannot be
 * written, and the file is then as it was. */
HL_API hl_status hl_wisdom_export_file(const char *path);

/* The largest wisdom file hl_wisdom_import_file reads (16 MiB: a wisdom
 * file holds one line per measured box, some hundred bytes each). */
#define HL_WISDOM_FILE_MAX ((size_t)16 << 20)

/* hl_wisdom_import from the file at path: HL_ERR_IO (errno set) when it
 * cannot be opened or read, is not a regular file (EINVAL: a device such as
 * /dev/zero, a FIFO) or is larger than HL_WISDOM_FILE_MAX (EFBIG); otherwise
 * as hl_wisdom_import (a file with a NUL byte is HL_ERR_SYNTAX). */
HL_API hl_status hl_wisdom_import_file(const char *path);

/* Empties the wisdom. */
HL_API void hl_wisdom_forget(void);

/* The entries the wisdom holds. */
HL_API int64_t hl_wisdom_count(void);

#ifdef __cplusplus
}
#endif

#endif
