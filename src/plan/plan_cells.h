/* hyperlayout internal — a plan seen as a map of cells, for layers that
 * place cells themselves (the MPI redistribution, src/mpi/redist_plan_cells.c)
 * without reading the planner's internals (plan_internal.h). */
#ifndef HYPERLAYOUT_PLAN_CELLS_H
#define HYPERLAYOUT_PLAN_CELLS_H

#include <stdint.h>

#include "hyperlayout/plan.h"
#include "hyperlayout/mpi_core.h" /* the exported ones, declared first */

/* Whether p maps its input [0, N) one to one onto its output [0, N)
 * (*cells gets N): HL_OK; HL_ERR_UNSUPPORTED for a plan made from boxes
 * (no layouts), padded layouts or layouts that are not bijections. */
hl_status hl_plan_cell_bijection(const hl_plan *p, int64_t *cells);

/* Where input offset k lands in the output, and the input offset that
 * lands at output offset k (p a bijection, above). */
int64_t hl_plan_cell_forward(const hl_plan *p, int64_t k);
int64_t hl_plan_cell_backward(const hl_plan *p, int64_t k);

/* A fingerprint of what p does (its steps and its output shape): equal
 * wherever the same transform was planned. */
uint64_t hl_plan_fingerprint(const hl_plan *p);

#endif
