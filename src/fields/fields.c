/* Conversion between the two storage orders (fields.h): a field set is a 2D
 * array of doubles, [nunk][nprop] unknown-major or [nprop][nunk] equation-
 * major, so either way is the transpose — hl_plan_permute with {1, 0} on the
 * source read as a standard array (dimension 0 fastest). */
#include "hyperlayout/fields.h"

hl_status hl_fields_plan(hl_plan **plan, int from, int64_t nunk, int64_t nprop,
                         const hl_plan_options *opt)
{
    if (!plan)
        return HL_ERR_NULL;
    *plan = NULL;
    if (nunk < 1 || nprop < 1)
        return HL_ERR_EXTENT;
    int64_t extent[2];
    if (from == HL_FIELDS_UNKNOWN_MAJOR) {
        extent[0] = nprop; /* properties of one unknown are contiguous */
        extent[1] = nunk;
    } else if (from == HL_FIELDS_EQUATION_MAJOR) {
        extent[0] = nunk; /* one property of all unknowns is contiguous */
        extent[1] = nprop;
    } else {
        return HL_ERR_ARG;
    }
    hl_shape shape;
    hl_status st = hl_shape_init(&shape, 2, extent, HL_DTYPE_FLOAT64, 0);
    if (st != HL_OK)
        return st;
    const int perm[2] = {1, 0};
    return hl_plan_permute(plan, &shape, perm, opt);
}

static hl_status convert(int from, double *dst, const double *src, int64_t dst_nunk,
                         int64_t dst_nprop, int64_t src_nunk, int64_t src_nprop,
                         const hl_plan_options *opt)
{
    if (!dst || !src)
        return HL_ERR_NULL;
    if (dst_nunk != src_nunk || dst_nprop != src_nprop)
        return HL_ERR_MISMATCH;
    hl_plan *plan = NULL;
    hl_status st = hl_fields_plan(&plan, from, src_nunk, src_nprop, opt);
    if (st == HL_OK)
        st = hl_execute(plan, src, dst);
    hl_plan_destroy(plan);
    return st;
}

hl_status hl_fields_um_to_em(hl_fields_em dst, hl_fields_um src, const hl_plan_options *opt)
{
    return convert(HL_FIELDS_UNKNOWN_MAJOR, dst.ptr, src.ptr, dst.nunk, dst.nprop, src.nunk,
                   src.nprop, opt);
}

hl_status hl_fields_em_to_um(hl_fields_um dst, hl_fields_em src, const hl_plan_options *opt)
{
    return convert(HL_FIELDS_EQUATION_MAJOR, dst.ptr, src.ptr, dst.nunk, dst.nprop, src.nunk,
                   src.nprop, opt);
}
