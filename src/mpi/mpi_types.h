/* hyperlayout internal — the MPI datatypes the library makes (mpi_types.c):
 * the element, and the cells of a list of boxes, for every message and file
 * view that is not a plain run of bytes (the redistribution's messages,
 * the halo's, the collective .npy file's view and memory). */
#ifndef HYPERLAYOUT_MPI_TYPES_H
#define HYPERLAYOUT_MPI_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#include <mpi.h>

#include "plan/ir.h"

/* An element of elem_size bytes: elem_size MPI_BYTEs, committed (the caller
 * frees it).  HL_ERR_ELEM_SIZE outside 1..INT_MAX, HL_ERR_COMM where MPI
 * refuses. */
hl_status hl_mpi_elem_type(int64_t elem_size, MPI_Datatype *type);

/* Box k of a list of boxes in the caller's own form (an array of hl_box, a
 * list of rows, a message's transfers): a list that does not hold hl_box
 * (1.6 KB each) costs no copy of it. */
typedef void hl_mpi_box_at(const void *list, int64_t k, hl_box *box);

/* hl_mpi_box_at for an array of hl_box. */
void hl_mpi_box_array(const void *list, int64_t k, hl_box *box);

/* The cells of boxes 0..n-1 of list on one side (dst: the boxes' dst
 * bases and strides, else their src ones), in the boxes' order and in each
 * box digit 0 fastest, as one committed datatype of elements elem (offsets
 * in elements of elem's extent from the buffer's start).  Rows (boxes of
 * one digit, stride 1, or of none) become one hindexed type; other boxes a
 * struct of hvector nests, digit 0 innermost.  Both ends of a message that
 * list the same boxes in the same order get types of the same signature.
 * n == 0: *type is MPI_DATATYPE_NULL.  HL_ERR_UNSUPPORTED where a count
 * exceeds MPI's int, HL_ERR_NOMEM, HL_ERR_COMM where MPI refuses. */
hl_status hl_mpi_boxes_type(hl_mpi_box_at *at, const void *list, int64_t n, bool dst,
                            MPI_Datatype elem, MPI_Datatype *type);

#endif
