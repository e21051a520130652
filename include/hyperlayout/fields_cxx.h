/* hyperlayout — fields.h's generic names for C++, which has no _Generic:
 * one overload per order, resolved while compiling as _Generic is.  Included
 * by fields.h only; outside its extern "C" block, since overloaded functions
 * cannot have C linkage.
 *
 * Beside the C macros, two differences: hl_fields_at and hl_fields_at_eq are
 * inline functions (C++ code gets no instruction-for-instruction guarantee
 * from tests/tensor/zero_cost.sh, which checks C), and each argument is evaluated
 * once. */
#ifndef HYPERLAYOUT_FIELDS_CXX_H
#define HYPERLAYOUT_FIELDS_CXX_H

#ifndef __cplusplus
#error "hyperlayout/fields_cxx.h is C++ only; C code includes hyperlayout/fields.h"
#endif

inline int64_t hl_fields_index(hl_fields_um f, int64_t unk, int64_t prop)
{
    return hl_fields_um_index(f, unk, prop);
}
inline int64_t hl_fields_index(hl_fields_em f, int64_t unk, int64_t prop)
{
    return hl_fields_em_index(f, unk, prop);
}

inline double *hl_fields_at(hl_fields_um f, int64_t unk, int64_t prop)
{
    return hl_fields_um_at(f, unk, prop);
}
inline double *hl_fields_at(hl_fields_em f, int64_t unk, int64_t prop)
{
    return hl_fields_em_at(f, unk, prop);
}

inline double *hl_fields_at_eq(hl_fields_um f, int64_t unk, int64_t comp, int64_t offset)
{
    return hl_fields_um_at_eq(f, unk, comp, offset);
}
inline double *hl_fields_at_eq(hl_fields_em f, int64_t unk, int64_t comp, int64_t offset)
{
    return hl_fields_em_at_eq(f, unk, comp, offset);
}

inline hl_fields_um_comp hl_fields_cptr(hl_fields_um f, int64_t comp, int64_t offset)
{
    return hl_fields_um_cptr(f, comp, offset);
}
inline hl_fields_em_comp hl_fields_cptr(hl_fields_em f, int64_t comp, int64_t offset)
{
    return hl_fields_em_cptr(f, comp, offset);
}

inline double *hl_fields_var(hl_fields_um_comp c, int64_t unk) { return hl_fields_um_var(c, unk); }
inline double *hl_fields_var(hl_fields_em_comp c, int64_t unk) { return hl_fields_em_var(c, unk); }

inline hl_status hl_fields_alloc(hl_fields_um *f, int64_t nunk, int64_t nprop)
{
    return hl_fields_um_alloc(f, nunk, nprop);
}
inline hl_status hl_fields_alloc(hl_fields_em *f, int64_t nunk, int64_t nprop)
{
    return hl_fields_em_alloc(f, nunk, nprop);
}

inline void hl_fields_free(hl_fields_um *f) { hl_fields_um_free(f); }
inline void hl_fields_free(hl_fields_em *f) { hl_fields_em_free(f); }

inline hl_status hl_fields_extract_comp(hl_fields_um f, int64_t comp, int64_t offset, double *out)
{
    return hl_fields_um_extract_comp(f, comp, offset, out);
}
inline hl_status hl_fields_extract_comp(hl_fields_em f, int64_t comp, int64_t offset, double *out)
{
    return hl_fields_em_extract_comp(f, comp, offset, out);
}

inline hl_status hl_fields_extract_unk(hl_fields_um f, int64_t unk, double *out)
{
    return hl_fields_um_extract_unk(f, unk, out);
}
inline hl_status hl_fields_extract_unk(hl_fields_em f, int64_t unk, double *out)
{
    return hl_fields_em_extract_unk(f, unk, out);
}

/* dst's type says which way, as in C. */
inline hl_status hl_fields_convert(hl_fields_em dst, hl_fields_um src, const hl_plan_options *opt)
{
    return hl_fields_um_to_em(dst, src, opt);
}
inline hl_status hl_fields_convert(hl_fields_um dst, hl_fields_em src, const hl_plan_options *opt)
{
    return hl_fields_em_to_um(dst, src, opt);
}

constexpr int hl_fields_order_of(hl_fields_um) { return HL_FIELDS_UNKNOWN_MAJOR; }
constexpr int hl_fields_order_of(hl_fields_em) { return HL_FIELDS_EQUATION_MAJOR; }

#endif
