/* hyperlayout Ising — the vector row update of a box across processes
 * (internal to apps/ising: mpi.c and mpi_avx512.c). */
#ifndef ISING_MPI_KERNEL_H
#define ISING_MPI_KERNEL_H

#include <stdint.h>

#include "site.h"

/* Updates `count` sites of one colour of a plainly stored box row, the
 * first at s + o0 and the others every second byte after it, with words
 * word[0..count-1] and table t (site.h's ising_update, bit for bit); the
 * neighbours along dimension i >= 1 are +- stride[i] away.  Adds the sum of
 * the new spins to *m and, when bonds, the sum of new spin times neighbour
 * sum to *b.  Needs AVX-512 F and BW. */
void ising_dist_row_avx512(int8_t *s, int64_t o0, int64_t count, const int64_t *stride, int rank,
                           const uint32_t *word, const ising_table *t, int bonds, int64_t *m,
                           int64_t *b);

#endif
