/* hyperlayout internal — .npy data to C order and native byte order.  The
 * transpose of a Fortran-order file is the library's own permute plan (the
 * reversing permutation), so it runs blocked and threaded like any relayout. */
#define _XOPEN_SOURCE 700 /* posix_memalign */

#include "npy_native.h"
#include "hyperlayout/plan.h"

#include <stdlib.h>
#include <string.h>

hl_status hl_npy_alloc(int64_t n, void **p)
{
    enum { ALIGN = 64 };
    *p = NULL;
    if (n < 0 || (uint64_t)n > SIZE_MAX - ALIGN)
        return HL_ERR_NOMEM;
    size_t bytes = ((size_t)n + ALIGN - 1) / ALIGN * ALIGN;
    if (posix_memalign(p, ALIGN, bytes ? bytes : ALIGN) != 0) {
        *p = NULL;
        return HL_ERR_NOMEM;
    }
    return HL_OK;
}

bool hl_npy_needs_transpose(const hl_npy_info *info)
{
    if (!info->fortran_order)
        return false;
    int long_axes = 0;
    for (int i = 0; i < info->ndim; i++)
        long_axes += info->numpy_shape[i] > 1;
    return long_axes > 1;
}

/* In a Fortran-order file NumPy's first axis is the fastest: as an hl_shape
 * its extents are NumPy's shape in NumPy's order.  Reversing the dimensions
 * gives C order, whose extents are info->shape's. */
static hl_status transpose(const hl_npy_info *info, const void *src, void *dst)
{
    const hl_shape *c = &info->shape;
    int64_t extent[HL_MAX_RANK];
    int perm[HL_MAX_RANK];
    for (int i = 0; i < c->rank; i++) {
        extent[i] = c->extent[c->rank - 1 - i];
        perm[i] = c->rank - 1 - i;
    }
    hl_shape f;
    hl_status st = hl_shape_init(&f, c->rank, extent, c->dtype, c->elem_size);
    hl_plan *p = NULL;
    if (st == HL_OK)
        st = hl_plan_permute(&p, &f, perm, NULL);
    if (st == HL_OK)
        st = hl_execute(p, src, dst);
    hl_plan_destroy(p);
    return st;
}

/* Reverses the bytes of each `unit`-byte word: a number, or each half of a
 * complex.  One loop for every width: swapping is a load-time pass over data
 * just read from a file, never the hot path. */
static void swap_units(unsigned char *p, int64_t bytes, int unit)
{
    for (int64_t i = 0; i + unit <= bytes; i += unit)
        for (int a = 0, b = unit - 1; a < b; a++, b--) {
            const unsigned char x = p[i + a];
            p[i + a] = p[i + b];
            p[i + b] = x;
        }
}

hl_status hl_npy_to_native(const hl_npy_info *info, const void *src, void *dst)
{
    if (info->unsupported)
        return HL_ERR_UNSUPPORTED;
    if (hl_npy_needs_transpose(info)) {
        if (src == dst)
            return HL_ERR_ARG;
        /* The copy kernels load whole elements: a source at an arbitrary
         * offset (a stored .npz member, a header not padded to 64) is moved
         * to an aligned buffer first. */
        void *bounce = NULL;
        if ((uintptr_t)src % 64 != 0) {
            hl_status st = hl_npy_alloc(info->data_bytes, &bounce);
            if (st != HL_OK)
                return st;
            memcpy(bounce, src, (size_t)info->data_bytes);
            src = bounce;
        }
        hl_status st = transpose(info, src, dst);
        free(bounce);
        if (st != HL_OK)
            return st;
    } else if (src != dst) {
        memcpy(dst, src, (size_t)info->data_bytes);
    }
    if (info->swapped) {
        hl_dtype t = info->shape.dtype;
        bool complex = t == HL_DTYPE_COMPLEX64 || t == HL_DTYPE_COMPLEX128;
        int unit = (int)(complex ? info->shape.elem_size / 2 : info->shape.elem_size);
        swap_units(dst, info->data_bytes, unit);
    }
    return HL_OK;
}
