/* `hyperlayout transform --device gpu`: the fused plan run by the CUDA
 * executor (transform_gpu.c; without CUDA, transform_nogpu.c says so). */
#ifndef HYPERLAYOUT_APP_TRANSFORM_GPU_H
#define HYPERLAYOUT_APP_TRANSFORM_GPU_H

#include <stdbool.h>

#include "hyperlayout.h"
#include "npy_sink.h"
#include "npy_source.h"
#include "progress.h"

/* Seconds per phase of a run on the device. */
typedef struct gpu_phases {
    double upload, execute, download;
} gpu_phases;

/* Whether a CUDA device is there; *why says why not. */
bool gpu_available(char *why, size_t cap);

/* chain on src's data into sink: the input uploaded once, the plan run
 * on the device, the output downloaded and written in pieces; where the
 * whole output does not fit beside the input in the device's memory, it is
 * made range by range (a plan of one pass: hl_plan_output_range). */
hl_status gpu_run(hl_plan *chain, npy_source *src, npy_sink *sink, progress *pr, gpu_phases *ph,
                  char *why, size_t cap);

#endif
