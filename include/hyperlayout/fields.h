/* hyperlayout — fields: unknown x equation x component data whose storage
 * order is chosen at compile time and costs nothing at run time (as
 * Quinoa's tk::Data; docs/fields.md), what the literature calls the data's
 * memory layout, a word this library keeps for hl_layout.
 *
 * A field set holds NPROP real values (properties) for each of NUNK unknowns
 * (particles, mesh cells, nodes...).  The properties are grouped into
 * equations of given component counts; equation e owns the properties
 * offset[e] .. offset[e]+ncomp[e]-1 (hl_fields_eqs).  Two orders:
 *
 *   unknown-major   [unknown][equation][component]   ptr + unk*nprop + comp
 *   equation-major  [equation][component][unknown]   ptr + comp*nunk + unk
 *
 * The order is part of the TYPE: hl_fields_um and hl_fields_em are distinct
 * structs with their own inline functions, so both coexist in one translation
 * unit and one program, and a view of one order cannot be passed where the
 * other is expected.  Client code is written once against the generic names:
 *
 *   hl_fields f = hl_fields_view(ptr, nunk, nprop);  // or hl_fields_alloc(&f, ...)
 *   *hl_fields_at(f, unk, comp) += ...;              // lvalue through a pointer
 *   *hl_fields_at_eq(f, unk, comp, offset) = ...;     // component of an equation
 *   hl_fields_comp c = hl_fields_cptr(f, comp, offset);  // hoisted: once per loop
 *   for (u...) s += *hl_fields_var(c, u);
 *
 * The generic access functions dispatch on the view's type with C11 _Generic
 * (resolved while compiling, nothing at run time); in C++ they are overloads
 * of the same names (fields_cxx.h).  The names that cannot
 * dispatch on an argument — the types hl_fields and hl_fields_comp and the
 * constructor hl_fields_view — follow the translation unit's order:
 *
 *   HL_FIELDS_ORDER          defined before including this header (per
 *                            translation unit): HL_FIELDS_UNKNOWN_MAJOR or
 *                            HL_FIELDS_EQUATION_MAJOR;
 *   HL_FIELDS_ORDER_DEFAULT  the project-wide default when the unit does not
 *                            choose; CMake's option -DHL_FIELDS_ORDER=
 *                            UNKNOWN_MAJOR|EQUATION_MAJOR sets it for every
 *                            target linked to the library, and the installed
 *                            config.h for programs built against the
 *                            installed headers;
 *   otherwise                unknown-major.
 *
 * The selection block sits outside the include guard: #undef HL_FIELDS_ORDER,
 * #define it anew and include this header again to switch the generic names
 * part-way through a unit.  HL_FIELDS_NAME(f) pastes the order's suffix
 * (f_um or f_em) so that one kernel source compiled under both orders
 * defines distinct external names (no clash at link time).
 *
 * The accessors assume valid indices and do no checks (like kindex.h);
 * allocation and extraction check their arguments and return hl_status.
 * Conversion between the orders (a 2D permute through the plan engine)
 * is in the library (src/fields/fields.c). */
#ifndef HYPERLAYOUT_FIELDS_H
#define HYPERLAYOUT_FIELDS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "config.h"
#include "plan.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HL_FIELDS_UNKNOWN_MAJOR 1
#define HL_FIELDS_EQUATION_MAJOR 2

/* Allocation alignment in bytes: a cache line, and the widest SIMD vector
 * (AVX-512) of x86-64. */
#define HL_FIELDS_ALIGN 64

/* Most equations an hl_fields_eqs describes. */
#define HL_FIELDS_MAX_EQ 64

/* The accessors are forced inline so that even an unoptimised build pays no
 * call per element (an optimising compiler inlines them anyway). */
#if defined(__GNUC__) || defined(__clang__)
#define HL_FIELDS_INLINE static inline __attribute__((always_inline))
#else
#define HL_FIELDS_INLINE static inline
#endif

/* ---- equations: how the properties are grouped ---------------------------- */

typedef struct hl_fields_eqs {
    int neq;                            /* 1..HL_FIELDS_MAX_EQ */
    int64_t nprop;                      /* total components: sum of ncomp */
    int64_t ncomp[HL_FIELDS_MAX_EQ];    /* components of equation e */
    int64_t offset[HL_FIELDS_MAX_EQ];   /* its first property */
} hl_fields_eqs;

/* neq equations of ncomp[e] >= 1 components each.  HL_ERR_ARG for neq out
 * of range, HL_ERR_EXTENT for a count < 1, HL_ERR_OVERFLOW if the total
 * overflows.  On error *eqs is unchanged. */
static inline hl_status hl_fields_eqs_init(hl_fields_eqs *eqs, int neq, const int64_t *ncomp)
{
    if (!eqs || !ncomp)
        return HL_ERR_NULL;
    if (neq < 1 || neq > HL_FIELDS_MAX_EQ)
        return HL_ERR_ARG;
    hl_fields_eqs s;
    s.neq = neq;
    s.nprop = 0;
    for (int e = 0; e < neq; e++) {
        if (ncomp[e] < 1)
            return HL_ERR_EXTENT;
        if (ncomp[e] > INT64_MAX - s.nprop)
            return HL_ERR_OVERFLOW;
        s.ncomp[e] = ncomp[e];
        s.offset[e] = s.nprop;
        s.nprop += ncomp[e];
    }
    for (int e = neq; e < HL_FIELDS_MAX_EQ; e++)
        s.ncomp[e] = s.offset[e] = 0;
    *eqs = s;
    return HL_OK;
}

/* ---- the two orders: views ------------------------------------------------- */

/* A view: no ownership implied (hl_fields_*_alloc makes one that owns its
 * buffer, released by hl_fields_*_free).  Passed by value: its members are
 * then the callee's locals, which no store through a double * can change,
 * so compilers keep them in registers. */
typedef struct hl_fields_um {
    double *ptr;
    int64_t nunk;
    int64_t nprop;
} hl_fields_um;

typedef struct hl_fields_em {
    double *ptr;
    int64_t nunk;
    int64_t nprop;
} hl_fields_em;

/* Hoisted access to one property of every unknown (Quinoa's cptr / var):
 * the base is computed once, then each unknown is one multiply-add (unknown-
 * major: the stride is nprop) or one add (equation-major: contiguous). */
typedef struct hl_fields_um_comp {
    double *base;
    int64_t stride;
} hl_fields_um_comp;

typedef struct hl_fields_em_comp {
    double *base;
} hl_fields_em_comp;

HL_FIELDS_INLINE hl_fields_um hl_fields_um_view(double *ptr, int64_t nunk, int64_t nprop)
{
    hl_fields_um f = {ptr, nunk, nprop};
    return f;
}

HL_FIELDS_INLINE hl_fields_em hl_fields_em_view(double *ptr, int64_t nunk, int64_t nprop)
{
    hl_fields_em f = {ptr, nunk, nprop};
    return f;
}

/* The two index formulas — the only places where the orders differ. */
HL_FIELDS_INLINE int64_t hl_fields_um_index(hl_fields_um f, int64_t unk, int64_t prop)
{
    return unk * f.nprop + prop;
}

HL_FIELDS_INLINE int64_t hl_fields_em_index(hl_fields_em f, int64_t unk, int64_t prop)
{
    return prop * f.nunk + unk;
}

/* Element access: the address of property prop (or of component comp of
 * the equation whose first property is offset) of unknown unk, an lvalue
 * through *.  These are macros, not inline functions, for one reason: gcc
 * folds a pointer expression written in one piece differently from the same
 * sum assembled by inlining (ptr + 34*nprop + 3 becomes a shift and a
 * displacement in one case, an lea and a scaled index in the other — as
 * many instructions, but not the same ones).  As macros they ARE the
 * expression a hand-coder writes (Quinoa's ptr + unknown*nprop + offset +
 * component, ptr + (offset+component)*nunk + unknown), so every compiler
 * emits the very same instructions; tests/tensor/zero_cost.sh checks it.  The view
 * f is evaluated more than once (pass a variable); unk, prop, comp and
 * offset once.  _Generic with one association rejects a view of the other
 * order at compile time. */
#ifndef __cplusplus
#define hl_fields_um_at(f, unk, prop)                                                              \
    _Generic((f), hl_fields_um: (f).ptr + (unk) * (f).nprop + (prop))
#define hl_fields_em_at(f, unk, prop)                                                              \
    _Generic((f), hl_fields_em: (f).ptr + (prop) * (f).nunk + (unk))
#define hl_fields_um_at_eq(f, unk, comp, offset)                                                   \
    _Generic((f), hl_fields_um: (f).ptr + (unk) * (f).nprop + (offset) + (comp))
#define hl_fields_em_at_eq(f, unk, comp, offset)                                                   \
    _Generic((f), hl_fields_em: (f).ptr + ((offset) + (comp)) * (f).nunk + (unk))
#else
/* C++ has no _Generic: an identity function on a const reference does the
 * same type check and leaves the expression as it was. */
HL_FIELDS_INLINE const hl_fields_um &hl_fields_um_is_(const hl_fields_um &f) { return f; }
HL_FIELDS_INLINE const hl_fields_em &hl_fields_em_is_(const hl_fields_em &f) { return f; }
#define hl_fields_um_at(f, unk, prop) (hl_fields_um_is_(f).ptr + (unk) * (f).nprop + (prop))
#define hl_fields_em_at(f, unk, prop) (hl_fields_em_is_(f).ptr + (prop) * (f).nunk + (unk))
#define hl_fields_um_at_eq(f, unk, comp, offset)                                                   \
    (hl_fields_um_is_(f).ptr + (unk) * (f).nprop + (offset) + (comp))
#define hl_fields_em_at_eq(f, unk, comp, offset)                                                   \
    (hl_fields_em_is_(f).ptr + ((offset) + (comp)) * (f).nunk + (unk))
#endif

HL_FIELDS_INLINE hl_fields_um_comp hl_fields_um_cptr(hl_fields_um f, int64_t comp, int64_t offset)
{
    hl_fields_um_comp c = {f.ptr + offset + comp, f.nprop};
    return c;
}

HL_FIELDS_INLINE hl_fields_em_comp hl_fields_em_cptr(hl_fields_em f, int64_t comp, int64_t offset)
{
    hl_fields_em_comp c = {f.ptr + (offset + comp) * f.nunk};
    return c;
}

HL_FIELDS_INLINE double *hl_fields_um_var(hl_fields_um_comp c, int64_t unk)
{
    return c.base + unk * c.stride;
}

HL_FIELDS_INLINE double *hl_fields_em_var(hl_fields_em_comp c, int64_t unk)
{
    return c.base + unk;
}

/* ---- allocation ------------------------------------------------------------ */

/* Bytes a field set of nunk x nprop doubles occupies, rounded up to the
 * alignment (aligned_alloc wants a multiple); HL_ERR_EXTENT for counts < 1,
 * HL_ERR_OVERFLOW / HL_ERR_BYTES_OVERFLOW when they do not fit. */
static inline hl_status hl_fields_bytes_(int64_t nunk, int64_t nprop, size_t *bytes)
{
    if (nunk < 1 || nprop < 1)
        return HL_ERR_EXTENT;
    if (nunk > INT64_MAX / nprop)
        return HL_ERR_OVERFLOW;
    const int64_t n = nunk * nprop;
    const int64_t cap = (INT64_MAX - (HL_FIELDS_ALIGN - 1)) / (int64_t)sizeof(double);
    if (n > cap)
        return HL_ERR_BYTES_OVERFLOW;
#if SIZE_MAX < INT64_MAX
    if ((uint64_t)n * sizeof(double) + (HL_FIELDS_ALIGN - 1) > SIZE_MAX)
        return HL_ERR_BYTES_OVERFLOW;
#endif
    *bytes = ((size_t)n * sizeof(double) + (HL_FIELDS_ALIGN - 1)) / HL_FIELDS_ALIGN * HL_FIELDS_ALIGN;
    return HL_OK;
}

/* Zero-filled storage aligned to HL_FIELDS_ALIGN bytes; *ptr is NULL on
 * error (HL_ERR_NOMEM when the allocation fails). */
static inline hl_status hl_fields_alloc_(double **ptr, int64_t nunk, int64_t nprop)
{
    size_t bytes = 0;
    if (!ptr)
        return HL_ERR_NULL;
    *ptr = NULL;
    hl_status st = hl_fields_bytes_(nunk, nprop, &bytes);
    if (st != HL_OK)
        return st;
    double *p = (double *)aligned_alloc(HL_FIELDS_ALIGN, bytes);
    if (!p)
        return HL_ERR_NOMEM;
    memset(p, 0, bytes);
    *ptr = p;
    return HL_OK;
}

static inline hl_status hl_fields_um_alloc(hl_fields_um *f, int64_t nunk, int64_t nprop)
{
    if (!f)
        return HL_ERR_NULL;
    hl_status st = hl_fields_alloc_(&f->ptr, nunk, nprop);
    f->nunk = st == HL_OK ? nunk : 0;
    f->nprop = st == HL_OK ? nprop : 0;
    return st;
}

static inline hl_status hl_fields_em_alloc(hl_fields_em *f, int64_t nunk, int64_t nprop)
{
    if (!f)
        return HL_ERR_NULL;
    hl_status st = hl_fields_alloc_(&f->ptr, nunk, nprop);
    f->nunk = st == HL_OK ? nunk : 0;
    f->nprop = st == HL_OK ? nprop : 0;
    return st;
}

/* Releases what *_alloc allocated and empties the view; f may be NULL. */
static inline void hl_fields_um_free(hl_fields_um *f)
{
    if (f) {
        free(f->ptr);
        f->ptr = NULL;
        f->nunk = f->nprop = 0;
    }
}

static inline void hl_fields_em_free(hl_fields_em *f)
{
    if (f) {
        free(f->ptr);
        f->ptr = NULL;
        f->nunk = f->nprop = 0;
    }
}

/* ---- extraction -------------------------------------------------------------- */

/* Copies n values src[0], src[stride], ... to out (the one loop both
 * extractions of both orders share). */
static inline void hl_fields_gather_(const double *src, int64_t stride, int64_t n, double *out)
{
    for (int64_t i = 0; i < n; i++)
        out[i] = src[i * stride];
}

/* Component comp of the equation at offset, for every unknown: out[unk],
 * nunk values.  HL_ERR_RANGE when offset+comp is not a property. */
static inline hl_status hl_fields_um_extract_comp(hl_fields_um f, int64_t comp, int64_t offset,
                                                  double *out)
{
    if (!f.ptr || !out)
        return HL_ERR_NULL;
    if (comp < 0 || offset < 0 || comp >= f.nprop - offset)
        return HL_ERR_RANGE;
    hl_fields_gather_(hl_fields_um_at(f, 0, offset + comp), f.nprop, f.nunk, out);
    return HL_OK;
}

static inline hl_status hl_fields_em_extract_comp(hl_fields_em f, int64_t comp, int64_t offset,
                                                  double *out)
{
    if (!f.ptr || !out)
        return HL_ERR_NULL;
    if (comp < 0 || offset < 0 || comp >= f.nprop - offset)
        return HL_ERR_RANGE;
    hl_fields_gather_(hl_fields_em_at(f, 0, offset + comp), 1, f.nunk, out);
    return HL_OK;
}

/* Every property of one unknown: out[prop], nprop values. */
static inline hl_status hl_fields_um_extract_unk(hl_fields_um f, int64_t unk, double *out)
{
    if (!f.ptr || !out)
        return HL_ERR_NULL;
    if (unk < 0 || unk >= f.nunk)
        return HL_ERR_RANGE;
    hl_fields_gather_(hl_fields_um_at(f, unk, 0), 1, f.nprop, out);
    return HL_OK;
}

static inline hl_status hl_fields_em_extract_unk(hl_fields_em f, int64_t unk, double *out)
{
    if (!f.ptr || !out)
        return HL_ERR_NULL;
    if (unk < 0 || unk >= f.nunk)
        return HL_ERR_RANGE;
    hl_fields_gather_(hl_fields_em_at(f, unk, 0), f.nunk, f.nprop, out);
    return HL_OK;
}

/* ---- conversion between the orders (libhyperlayout, src/fields/fields.c) ---------- */

/* The plan that turns an nunk x nprop field set of order `from`
 * (HL_FIELDS_UNKNOWN_MAJOR or HL_FIELDS_EQUATION_MAJOR) into the other
 * order: a 2D permute of float64 elements, reusable and thread-safe like
 * any plan (hl_execute, in place when in == out).  opt may be NULL. */
HL_API hl_status hl_fields_plan(hl_plan **plan, int from, int64_t nunk, int64_t nprop,
                         const hl_plan_options *opt);

/* One-shot conversions: dst and src must have the same nunk and nprop
 * (HL_ERR_MISMATCH); dst.ptr == src.ptr converts in place, other overlaps
 * are not allowed. */
HL_API hl_status hl_fields_um_to_em(hl_fields_em dst, hl_fields_um src, const hl_plan_options *opt);
HL_API hl_status hl_fields_em_to_um(hl_fields_um dst, hl_fields_em src, const hl_plan_options *opt);

/* ---- generic names: dispatch on the view's type -------------------------- */

/* In C++ the same names are overloads (fields_cxx.h, after the extern "C"
 * block: overloads cannot have C linkage). */
#ifndef __cplusplus

#define hl_fields_index(f, unk, prop)                                                              \
    _Generic((f), hl_fields_um: hl_fields_um_index, hl_fields_em: hl_fields_em_index)(f, unk, prop)
/* Both associations must be valid for either type (the structs share their
 * member names); only the selected one is evaluated. */
#define hl_fields_at(f, unk, prop)                                                                 \
    _Generic((f), hl_fields_um: (f).ptr + (unk) * (f).nprop + (prop),                              \
             hl_fields_em: (f).ptr + (prop) * (f).nunk + (unk))
#define hl_fields_at_eq(f, unk, comp, offset)                                                      \
    _Generic((f), hl_fields_um: (f).ptr + (unk) * (f).nprop + (offset) + (comp),                   \
             hl_fields_em: (f).ptr + ((offset) + (comp)) * (f).nunk + (unk))
#define hl_fields_cptr(f, comp, offset)                                                            \
    _Generic((f), hl_fields_um: hl_fields_um_cptr, hl_fields_em: hl_fields_em_cptr)(f, comp, offset)
#define hl_fields_var(c, unk)                                                                      \
    _Generic((c), hl_fields_um_comp: hl_fields_um_var, hl_fields_em_comp: hl_fields_em_var)(c, unk)
#define hl_fields_alloc(pf, nunk, nprop)                                                           \
    _Generic((pf), hl_fields_um *: hl_fields_um_alloc, hl_fields_em *: hl_fields_em_alloc)(pf, nunk, \
                                                                                         nprop)
#define hl_fields_free(pf)                                                                         \
    _Generic((pf), hl_fields_um *: hl_fields_um_free, hl_fields_em *: hl_fields_em_free)(pf)
#define hl_fields_extract_comp(f, comp, offset, out)                                               \
    _Generic((f), hl_fields_um: hl_fields_um_extract_comp,                                        \
             hl_fields_em: hl_fields_em_extract_comp)(f, comp, offset, out)
#define hl_fields_extract_unk(f, unk, out)                                                         \
    _Generic((f), hl_fields_um: hl_fields_um_extract_unk, hl_fields_em: hl_fields_em_extract_unk)( \
        f, unk, out)
/* dst's type says which way: an equation-major dst converts from unknown-major. */
#define hl_fields_convert(dst, src, opt)                                                           \
    _Generic((dst), hl_fields_em: hl_fields_um_to_em, hl_fields_um: hl_fields_em_to_um)(dst, src, \
                                                                                        opt)
/* The order of a view, as HL_FIELDS_UNKNOWN_MAJOR / HL_FIELDS_EQUATION_MAJOR. */
#define hl_fields_order_of(f)                                                                      \
    _Generic((f), hl_fields_um: HL_FIELDS_UNKNOWN_MAJOR, hl_fields_em: HL_FIELDS_EQUATION_MAJOR)
#endif /* !__cplusplus */

#ifdef __cplusplus
}
#include "fields_cxx.h"
#endif

#endif /* HYPERLAYOUT_FIELDS_H */

/* ---- the translation unit's order (outside the guard: may be re-selected) --- */

#ifndef HL_FIELDS_ORDER
#ifdef HL_FIELDS_ORDER_DEFAULT
#define HL_FIELDS_ORDER HL_FIELDS_ORDER_DEFAULT
#else
#define HL_FIELDS_ORDER HL_FIELDS_UNKNOWN_MAJOR
#endif
#endif

#undef hl_fields
#undef hl_fields_comp
#undef hl_fields_view
#undef HL_FIELDS_NAME
#undef HL_FIELDS_ORDER_NAME

#if HL_FIELDS_ORDER == HL_FIELDS_UNKNOWN_MAJOR
#define hl_fields hl_fields_um
#define hl_fields_comp hl_fields_um_comp
#define hl_fields_view hl_fields_um_view
#define HL_FIELDS_NAME(name) name##_um
#define HL_FIELDS_ORDER_NAME "unknown-major"
#elif HL_FIELDS_ORDER == HL_FIELDS_EQUATION_MAJOR
#define hl_fields hl_fields_em
#define hl_fields_comp hl_fields_em_comp
#define hl_fields_view hl_fields_em_view
#define HL_FIELDS_NAME(name) name##_em
#define HL_FIELDS_ORDER_NAME "equation-major"
#else
#error "HL_FIELDS_ORDER must be HL_FIELDS_UNKNOWN_MAJOR or HL_FIELDS_EQUATION_MAJOR"
#endif
