/* hyperlayout internal — the strided-copy kernel that executes lowered
 * plans: boxes prepared once at planning (digit order, copy mode, offset
 * tables), then run by all threads in one parallel region. */
#ifndef HYPERLAYOUT_COPY_H
#define HYPERLAYOUT_COPY_H

#include "lower.h"

typedef struct hl_copy hl_copy;

/* Prepares the boxes for elements of `elem_size` bytes. */
hl_status hl_copy_create(hl_copy **c, const hl_box *boxes, int64_t nboxes, int64_t elem_size);

/* Copies every cell of the boxes from in to out with `threads` threads.
 * HL_ERR_NOMEM when a thread's staging buffer cannot be allocated. */
hl_status hl_copy_run(const hl_copy *c, const char *in, char *out, int threads);

void hl_copy_destroy(hl_copy *c);

#endif
