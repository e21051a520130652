/* hyperlayout — distributions on MPI (the library's MPI part,
 * libhyperlayout_mpi, built when CMake finds MPI; the core library stays
 * MPI-free).  Includes <mpi.h>.
 *
 * Today: the MPI derived datatype of one owner's cells of an owner-grid
 * distribution (dist.h), for file views and for checking the library's
 * local layouts against MPI's own.  The distributed array itself (halo
 * exchange, parallel .npy) is issue 15's next step (docs/darray.md). */
#ifndef HYPERLAYOUT_DARRAY_H
#define HYPERLAYOUT_DARRAY_H

#include <mpi.h>

#include "dist.h"

#ifdef __cplusplus
extern "C" {
#endif

/* MPI_Type_create_darray's type for owner `owner` of d, an owner grid
 * (hl_dist_grid, hl_dist_parse without upc:), elements of type elem: it
 * selects, from the whole array in C order, owner's cells in the order of
 * its local memory with the padding left out.  Committed; the caller frees
 * it with MPI_Type_free.  Owner ranks match: the process at grid
 * coordinate (c_(d-1), ..., c_0), slowest first, is owner
 * sum c_i * P_0 * ... * P_(i-1) in both.
 *   HL_ERR_NULL         d or type is NULL
 *   HL_ERR_ARG          owner outside 0..T-1
 *   HL_ERR_UNSUPPORTED  d deals tiles round robin (UPC): darray cannot say it,
 *                       or an extent exceeds MPI's int
 */
hl_status hl_dist_mpi_type(const hl_dist *d, int64_t owner, MPI_Datatype elem,
                           MPI_Datatype *type);

#ifdef __cplusplus
}
#endif

#endif
