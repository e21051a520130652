/* hyperlayout — executing plans on device memory with CUDA.
 *
 * Includable from plain C without the CUDA headers: a stream is passed as
 * `void *` (a cudaStream_t; NULL is the default stream).  The functions
 * exist in every build of the library; built without CUDA they say so
 * (hl_cuda_devices() is 0, the others return HL_ERR_UNSUPPORTED).
 *
 *   hl_plan *p;  hl_plan_flip(&p, &shape, 1, NULL);
 *   if (hl_cuda_devices() > 0 && hl_plan_cuda_prepare(p) == HL_OK)
 *       st = hl_execute_cuda(p, d_in, d_out, stream);   // asynchronous
 *
 * What runs on the device (docs/cuda.md): out of place, plans lowered to
 * boxes (hl_plan_boxes(p) > 0), any element size; in place (d_in == d_out),
 * plans that permute each dimension on its own (flips, shifts, crinkles and
 * their chains); plans of several stages (chains that do not fold into one
 * pass of boxes: hl_plan_describe lists the stages), stage by stage through
 * device scratch, out of place and in place.  Not on the device: single
 * steps that run cell by cell (HL_ERR_UNSUPPORTED) and in-place single-step
 * plans of other kinds, such as permutes (HL_ERR_IN_PLACE). */
#ifndef HYPERLAYOUT_CUDA_H
#define HYPERLAYOUT_CUDA_H

#include "base.h"
#include "plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The number of CUDA devices this process can use: 0 when the library was
 * built without CUDA, without a driver or without a GPU. */
HL_API int hl_cuda_devices(void);

/* Uploads what the device needs to run p (its boxes; for plans that run in
 * place, the passes' cycles and a buffer of at most 1/32 of the array; for
 * plans of several stages, each stage's and the scratch, as large as the
 * largest intermediate, twice where one does not fit in the output) to
 * the current device, once: later calls return HL_OK at once.  Execution never allocates or
 * uploads.  The plan must then be executed with that device current; the
 * device buffers are freed by hl_plan_destroy.  Not thread-safe against
 * concurrent execution of the same plan (prepare first, then execute from
 * anywhere); a plan of several stages has one device scratch, so runs of it
 * on several streams must not overlap.
 *   HL_ERR_NULL         p is NULL
 *   HL_ERR_UNSUPPORTED  built without CUDA, or p (or a stage of it) neither
 *                       is lowered to boxes (it runs cell by cell) nor runs
 *                       in place by passes
 *   HL_ERR_NOMEM        cudaMalloc failed
 *   HL_ERR_DEVICE       any other CUDA error (no device, no driver) */
HL_API hl_status hl_plan_cuda_prepare(hl_plan *p);

/* Runs p on device memory: out[dst(x)] = in[src(x)], d_in holding
 * hl_plan_in_span(p) elements and d_out hl_plan_out_span(p), asynchronously
 * on `stream` (a cudaStream_t, NULL for the default stream).  The call
 * returns once the kernel is queued; synchronise the stream before reading
 * d_out.  d_in == d_out runs in place.  Checks the arguments as hl_execute
 * does (HL_ERR_NULL, HL_ERR_OVERLAP, HL_ERR_IN_PLACE for plans that cannot
 * run in place), and:
 *   HL_ERR_IN_PLACE     d_in == d_out for a plan the CPU runs in place
 *                       otherwise than by slab passes (a permute: by
 *                       transposes; tiles, Morton: by cycles of cells): not
 *                       on the device
 *   HL_ERR_UNSUPPORTED  built without CUDA, p was not prepared
 *                       (hl_plan_cuda_prepare), or out of place for a plan
 *                       not lowered to boxes
 *   HL_ERR_DEVICE       the launch failed (an error of an earlier
 *                       asynchronous call may also surface here) */
HL_API hl_status hl_execute_cuda(const hl_plan *p, const void *d_in, void *d_out, void *stream);

#ifdef __cplusplus
}
#endif

#endif
