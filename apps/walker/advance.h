/* The three variants of the walker's integrator: one Euler-Maruyama step of
 * the Dirichlet SDE for particles p0..p1-1 of an npar-particle state.  The
 * signature is the same for all three, so they receive the same
 * information (the state as a restrict pointer, the SDE, a scratch array
 * dW of K doubles for the Gaussian numbers). */
#ifndef WALKER_ADVANCE_H
#define WALKER_ADVANCE_H

#include <stdint.h>

#include "walker.h"

typedef void walker_advance_fn(const walker_sde *sde, double *restrict data, int64_t npar,
                               int64_t p0, int64_t p1, int64_t step, double *restrict dW);

/* Ptr: raw pointer arithmetic on the unknown-major order (the seed's listing). */
walker_advance_fn walker_advance_ptr;
/* Par and Prop: one order-agnostic source (advance_fields.inc) through
 * fields.h, compiled unknown-major (advance_par.c) and equation-major
 * (advance_prop.c); the names come from HL_FIELDS_NAME. */
walker_advance_fn walker_advance_um;
walker_advance_fn walker_advance_em;

#endif
