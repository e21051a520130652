/* hyperlayout — the MPI datatypes the library makes (mpi_types.h). */
#include "mpi_types.h"

#include <limits.h>
#include <stdlib.h>

hl_status hl_mpi_elem_type(int64_t elem_size, MPI_Datatype *type)
{
    *type = MPI_DATATYPE_NULL;
    if (elem_size < 1 || elem_size > INT_MAX)
        return HL_ERR_ELEM_SIZE;
    if (MPI_Type_contiguous((int)elem_size, MPI_BYTE, type) != MPI_SUCCESS)
        return HL_ERR_COMM;
    if (MPI_Type_commit(type) != MPI_SUCCESS) {
        MPI_Type_free(type);
        return HL_ERR_COMM;
    }
    return HL_OK;
}

void hl_mpi_box_array(const void *list, int64_t k, hl_box *box)
{
    *box = ((const hl_box *)list)[k];
}

/* Whether box b is a row on its dst (or src) side: one hindexed block. */
static bool is_row(const hl_box *b, bool dst)
{
    return b->ndigits == 0 ||
           (b->ndigits == 1 && (dst ? b->dst_stride : b->src_stride)[0] == 1 &&
            b->extent[0] <= INT_MAX);
}

/* Rows: one hindexed type (a list of many short rows, as a cyclic
 * distribution's, costs MPI one type rather than one per row). */
static hl_status rows_type(hl_mpi_box_at *at, const void *list, int64_t n, bool dst,
                           MPI_Datatype elem, MPI_Aint es, MPI_Datatype *type)
{
    int *len = malloc(sizeof *len * (size_t)n);
    MPI_Aint *disp = malloc(sizeof *disp * (size_t)n);
    hl_status st = len && disp ? HL_OK : HL_ERR_NOMEM;
    hl_box b;
    for (int64_t k = 0; k < n && st == HL_OK; k++) {
        at(list, k, &b);
        len[k] = b.ndigits ? (int)b.extent[0] : 1;
        disp[k] = (MPI_Aint)(dst ? b.dst_base : b.src_base) * es;
    }
    if (st == HL_OK && (MPI_Type_create_hindexed((int)n, len, disp, elem, type) != MPI_SUCCESS ||
                        MPI_Type_commit(type) != MPI_SUCCESS))
        st = HL_ERR_COMM;
    free(len), free(disp);
    return st;
}

/* Boxes of several digits: each a nest of hvectors, digit 0 innermost,
 * the boxes a struct. */
static hl_status nests_type(hl_mpi_box_at *at, const void *list, int64_t n, bool dst,
                            MPI_Datatype elem, MPI_Aint es, MPI_Datatype *type)
{
    MPI_Datatype *part = malloc(sizeof *part * (size_t)n);
    MPI_Aint *disp = malloc(sizeof *disp * (size_t)n);
    int *ones = malloc(sizeof *ones * (size_t)n);
    hl_status st = part && disp && ones ? HL_OK : HL_ERR_NOMEM;
    int64_t made = 0;
    hl_box x;
    for (; made < n && st == HL_OK; made++) {
        at(list, made, &x);
        MPI_Datatype t = elem;
        for (int k = 0; k < x.ndigits && st == HL_OK; k++) {
            MPI_Datatype v;
            const int64_t stride = (dst ? x.dst_stride : x.src_stride)[k] * es;
            if (x.extent[k] > INT_MAX)
                st = HL_ERR_UNSUPPORTED;
            else if (MPI_Type_create_hvector((int)x.extent[k], 1, (MPI_Aint)stride, t, &v) !=
                     MPI_SUCCESS)
                st = HL_ERR_COMM;
            if (t != elem)
                MPI_Type_free(&t);
            t = st == HL_OK ? v : elem;
        }
        if (t == elem && st == HL_OK && MPI_Type_dup(elem, &t) != MPI_SUCCESS)
            st = HL_ERR_COMM;
        part[made] = st == HL_OK ? t : MPI_DATATYPE_NULL;
        disp[made] = (MPI_Aint)((dst ? x.dst_base : x.src_base) * es);
        ones[made] = 1;
    }
    if (st == HL_OK && (MPI_Type_create_struct((int)n, ones, disp, part, type) != MPI_SUCCESS ||
                        MPI_Type_commit(type) != MPI_SUCCESS))
        st = HL_ERR_COMM;
    for (int64_t k = 0; part && k < made; k++)
        if (part[k] != MPI_DATATYPE_NULL)
            MPI_Type_free(&part[k]);
    free(part), free(disp), free(ones);
    return st;
}

hl_status hl_mpi_boxes_type(hl_mpi_box_at *at, const void *list, int64_t n, bool dst,
                            MPI_Datatype elem, MPI_Datatype *type)
{
    *type = MPI_DATATYPE_NULL;
    if (n == 0)
        return HL_OK;
    if (n > INT_MAX)
        return HL_ERR_UNSUPPORTED;
    MPI_Aint lb, es;
    if (MPI_Type_get_extent(elem, &lb, &es) != MPI_SUCCESS)
        return HL_ERR_COMM;
    bool rows = true;
    hl_box b;
    for (int64_t k = 0; k < n && rows; k++) {
        at(list, k, &b);
        rows = is_row(&b, dst);
    }
    return rows ? rows_type(at, list, n, dst, elem, es, type)
                : nests_type(at, list, n, dst, elem, es, type);
}
