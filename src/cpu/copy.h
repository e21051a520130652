/* hyperlayout internal — the CPU's strided-copy kernel that runs a plan's
 * boxes: each box (or row group of boxes) is given to the first registered
 * solver that applies (copy.c's tables: a single cell, register transpose,
 * lane permutes, short-row blocks, memcpy, reversed or strided rows; row
 * groups) once, at preparation; all boxes are then run by the threads in
 * one parallel region (copy_run.c). */
#ifndef HYPERLAYOUT_CPU_COPY_H
#define HYPERLAYOUT_CPU_COPY_H

#include <stddef.h>

#include "plan/executor.h"

typedef struct hl_copy hl_copy;

/* Prepares the IR's boxes. */
hl_status hl_copy_create(hl_copy **c, const hl_ir *ir, const hl_plan_options *opt);

/* Copies every cell of the boxes from in to out (ctx: executor.h).
 * HL_ERR_NOMEM when a staging buffer cannot be allocated. */
hl_status hl_copy_run(const hl_copy *c, const char *in, char *out, const hl_exec_ctx *ctx);

/* Appends the boxes and their solvers to buf at `used` (executor.h's
 * hl_appendf convention); returns the characters added or needed. */
size_t hl_copy_describe(const hl_copy *c, char *buf, size_t size, size_t used);

void hl_copy_destroy(hl_copy *c);

#endif
