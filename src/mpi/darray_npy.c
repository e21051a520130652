/* hyperlayout — collective .npy files of distributed arrays (MPI-IO). */

#define _POSIX_C_SOURCE 200809L /* access */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hyperlayout/npy.h"
#include "io/atomic.h"
#include "darray_internal.h"
#include "mpi_types.h"

/* This process's cells as boxes, src in its local memory and dst in the
 * array in C order (the file): one box where it holds one block; with
 * several (cyclic, UPC), its blocks' rows sorted into the file's order (a
 * file view must not go backwards), one box each. */
typedef struct cell_boxes {
    const hl_darray *a;
    darray_run *rows; /* NULL: the one block */
} cell_boxes;

static void cell_box(const void *list, int64_t k, hl_box *b)
{
    const cell_boxes *c = list;
    const hl_darray *a = c->a;
    if (c->rows) {
        *b = (hl_box){.ndigits = 1, .src_base = c->rows[k].mem, .dst_base = c->rows[k].file};
        b->extent[0] = c->rows[k].len;
        b->src_stride[0] = b->dst_stride[0] = 1;
        return;
    }
    *b = (hl_box){.ndigits = a->rank};
    int64_t mem = 1, file = 1;
    for (int i = 0; i < a->rank; i++) {
        b->extent[i] = a->box.owned[i];
        b->src_stride[i] = mem;
        b->dst_stride[i] = file;
        b->src_base += a->lo[i] * mem;
        b->dst_base += a->box.start[i] * file;
        mem *= a->local[i];
        file *= a->shape.extent[i];
    }
}

/* The element as an MPI type, the file view's type of this process's cells
 * and the memory type of its blocks inside their halos.  An empty process
 * gets no types (*elem stays MPI_DATATYPE_NULL): it moves nothing. */
static hl_status types(const hl_darray *a, MPI_Datatype *elem, MPI_Datatype *file,
                       MPI_Datatype *mem)
{
    *elem = *file = *mem = MPI_DATATYPE_NULL;
    if (a->nblocks == 0)
        return HL_OK;
    cell_boxes c = {a, NULL};
    int64_t n = 1, cells;
    hl_status st = HL_OK;
    if (a->upc || a->nblocks > 1)
        st = darray_rows(a, &c.rows, &n, &cells);
    if (st == HL_OK)
        st = hl_mpi_elem_type(a->elem_size, elem);
    if (st == HL_OK)
        st = hl_mpi_boxes_type(cell_box, &c, n, true, *elem, file);
    if (st == HL_OK)
        st = hl_mpi_boxes_type(cell_box, &c, n, false, *elem, mem);
    free(c.rows);
    return st;
}

static void free_types(MPI_Datatype *t, int n)
{
    for (int j = 0; j < n; j++)
        if (t[j] != MPI_DATATYPE_NULL)
            MPI_Type_free(&t[j]);
}

/* Moves this process's box between memory and the file at data offset
 * `offset`: the collective part of both directions. */
static hl_status transfer(const hl_darray *a, MPI_File fh, MPI_Offset offset, void *data,
                          bool write)
{
    MPI_Datatype t[3];
    hl_status st = types(a, &t[0], &t[1], &t[2]);
    /* every process takes part in the collective calls, also one that failed */
    const bool moves = st == HL_OK && t[0] != MPI_DATATYPE_NULL;
    int rc = MPI_File_set_view(fh, offset, MPI_BYTE, moves ? t[1] : MPI_BYTE, "native",
                               MPI_INFO_NULL);
    if (rc == MPI_SUCCESS)
        rc = write ? MPI_File_write_all(fh, data, moves ? 1 : 0, moves ? t[2] : MPI_BYTE,
                                        MPI_STATUS_IGNORE)
                   : MPI_File_read_all(fh, data, moves ? 1 : 0, moves ? t[2] : MPI_BYTE,
                                       MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS && st == HL_OK)
        st = HL_ERR_IO;
    free_types(t, 3);
    return st;
}

hl_status hl_darray_write_npy(const hl_darray *a, const char *path)
{
    if (!a)
        return HL_ERR_NULL;
    /* process 0: the header and the temporary (the library's atomic writer,
     * src/io/atomic.c: its naming, permissions and syncs), its name sent to all */
    char header[4096], tmp[4096] = "";
    char *made = NULL; /* process 0: the temporary, malloc'd */
    size_t len = 0;
    hl_status st = path ? HL_OK : HL_ERR_NULL;
    if (a->me == 0 && st == HL_OK) {
        st = hl_npy_format_header(&a->shape, header, sizeof header, &len);
        if (st == HL_OK)
            st = hl_atomic_begin(path, false, &made);
        if (st == HL_OK && snprintf(tmp, sizeof tmp, "%s", made) >= (int)sizeof tmp)
            st = HL_ERR_ARG;
    }
    int code = (int)st;
    MPI_Bcast(&code, 1, MPI_INT, 0, a->comm);
    st = hl_mpi_agree(a->comm, st == HL_OK ? (hl_status)code : st, NULL, 0);
    if (st != HL_OK) {
        hl_atomic_cancel(made);
        return st;
    }
    MPI_Bcast(tmp, sizeof tmp, MPI_CHAR, 0, a->comm);
    unsigned long long offset = len;
    MPI_Bcast(&offset, 1, MPI_UNSIGNED_LONG_LONG, 0, a->comm);
    /* every process must see process 0's temporary (a directory that is
     * not shared, such as a node-local /tmp, would not show it): a process
     * that cannot open the file makes the collective open wait for ever */
    st = hl_mpi_agree(a->comm, access(tmp, W_OK) == 0 ? HL_OK : HL_ERR_IO, NULL, 0);
    if (st != HL_OK) {
        hl_atomic_cancel(made);
        return st;
    }

    MPI_File fh;
    if (MPI_File_open(a->comm, tmp, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh) != MPI_SUCCESS)
        st = HL_ERR_IO;
    st = hl_mpi_agree(a->comm, st, NULL, 0);
    if (st == HL_OK) {
        if (a->me == 0 && MPI_File_write_at(fh, 0, header, (int)len, MPI_BYTE,
                                            MPI_STATUS_IGNORE) != MPI_SUCCESS)
            st = HL_ERR_IO;
        const hl_status t = transfer(a, fh, (MPI_Offset)offset, a->data, true);
        st = st == HL_OK ? t : st;
        if (MPI_File_sync(fh) != MPI_SUCCESS && st == HL_OK)
            st = HL_ERR_IO;
        if (MPI_File_close(&fh) != MPI_SUCCESS && st == HL_OK)
            st = HL_ERR_IO;
        st = hl_mpi_agree(a->comm, st, NULL, 0);
    }
    /* the file appears, or nothing does */
    if (a->me == 0) {
        if (st == HL_OK)
            st = hl_atomic_finish(made, path);
        else
            hl_atomic_cancel(made);
    }
    code = (int)st;
    MPI_Bcast(&code, 1, MPI_INT, 0, a->comm);
    return (hl_status)code;
}

hl_status hl_darray_read_npy(hl_darray *a, const char *path)
{
    if (!a)
        return HL_ERR_NULL;
    hl_status st = path ? HL_OK : HL_ERR_NULL;
    long long offset = 0;
    if (a->me == 0 && st == HL_OK) {
        hl_npy_info *info = malloc(sizeof *info);
        st = info ? hl_npy_read_header(path, info) : HL_ERR_NOMEM;
        if (st == HL_OK && info->unsupported)
            st = HL_ERR_UNSUPPORTED;
        if (st == HL_OK && (info->fortran_order || info->swapped))
            st = HL_ERR_UNSUPPORTED; /* the view would need a transpose or a swap */
        if (st == HL_OK) {
            const hl_shape *f = &info->shape;
            bool same = f->rank == a->rank && f->elem_size == a->elem_size;
            for (int i = 0; same && i < a->rank; i++)
                same = f->extent[i] == a->shape.extent[i];
            if (!same)
                st = HL_ERR_MISMATCH;
        }
        if (info)
            offset = info->data_offset;
        free(info);
    }
    int code = (int)st;
    MPI_Bcast(&code, 1, MPI_INT, 0, a->comm);
    st = hl_mpi_agree(a->comm, st == HL_OK ? (hl_status)code : st, NULL, 0);
    if (st != HL_OK)
        return st;
    MPI_Bcast(&offset, 1, MPI_LONG_LONG, 0, a->comm);
    /* every process must see the file before the collective open */
    st = hl_mpi_agree(a->comm, access(path, R_OK) == 0 ? HL_OK : HL_ERR_IO, NULL, 0);
    if (st != HL_OK)
        return st;
    MPI_File fh;
    if (MPI_File_open(a->comm, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) != MPI_SUCCESS)
        st = HL_ERR_IO;
    st = hl_mpi_agree(a->comm, st, NULL, 0);
    if (st != HL_OK)
        return st;
    st = transfer(a, fh, (MPI_Offset)offset, a->data, false);
    if (MPI_File_close(&fh) != MPI_SUCCESS && st == HL_OK)
        st = HL_ERR_IO;
    return hl_mpi_agree(a->comm, st, NULL, 0);
}
