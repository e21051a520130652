/* The zero-cost proof of fields.h (seed 002, "Test of zero-cost"): every
 * function below is compiled three ways by tests/tensor/zero_cost.sh and the
 * instruction sequences are compared.
 *
 *   -DZC_API     client code through the fields.h API
 *   -DZC_RAW     the equivalent raw-pointer expression of the order
 *                (unknown-major *(ptr + 34*nprop + 3), equation-major
 *                *(ptr + 3*nunk + 34))
 *   -DZC_COSTLY  the checker's self-test: an accessor that costs something
 *                (the order decided at run time, which the seed rejects);
 *                the checker must find it different from ZC_RAW
 *
 * and -DHL_FIELDS_ORDER=HL_FIELDS_UNKNOWN_MAJOR or ..._EQUATION_MAJOR.
 * Signatures are the same in every variant, so identical code means the
 * abstraction compiled away.
 *
 * Functions named zc_rn_* are compared up to a consistent renaming of
 * registers: with a view built from scalar arguments and indices known only
 * at run time, gcc 12 may give a commutative multiply its operands in the
 * other order (imul %rcx,%rdx, not imul %rdx,%rcx) because the view's copy
 * of nprop is a different SSA name — the same instructions, in the same
 * order, on other registers.  With the view held in memory (the seed's
 * model, zc_update / zc_read_eq) the code is byte for byte the same. */
#include <stdint.h>

#include "hyperlayout/fields.h"

#define ZC_EM (HL_FIELDS_ORDER == HL_FIELDS_EQUATION_MAJOR)

#if defined(ZC_COSTLY)
/* The order as a run-time value: one load and a select per access. */
extern int zc_runtime_order;
static inline double *costly_at(double *ptr, int64_t nunk, int64_t nprop, int64_t u, int64_t c)
{
    return zc_runtime_order == HL_FIELDS_EQUATION_MAJOR ? ptr + c * nunk + u : ptr + u * nprop + c;
}
#endif

/* A model holding its field set, as in the seed's Dirichlet constructor. */
struct zc_model {
    hl_fields d;
    double aa;
};

double zc_read(double *ptr, int64_t nunk, int64_t nprop);
void zc_write(double *ptr, int64_t nunk, int64_t nprop, double v);
void zc_update(struct zc_model *m, int64_t u, int64_t c, double v);
double zc_read_eq(struct zc_model *m, int64_t u, int64_t c, int64_t off);
void zc_rn_update(double *ptr, int64_t nunk, int64_t nprop, int64_t u, int64_t c, double v);
double zc_rn_read_eq(double *ptr, int64_t nunk, int64_t nprop, int64_t u, int64_t c, int64_t off);
double zc_sum_comp(double *ptr, int64_t nunk, int64_t nprop, int64_t c);
void zc_scale_unk(double *ptr, int64_t nunk, int64_t nprop, int64_t u, double a);
void zc_member(struct zc_model *m);

/* The seed's d(34, 3). */
double zc_read(double *ptr, int64_t nunk, int64_t nprop)
{
#if defined(ZC_API)
    hl_fields d = hl_fields_view(ptr, nunk, nprop);
    return *hl_fields_at(d, 34, 3);
#elif defined(ZC_COSTLY)
    return *costly_at(ptr, nunk, nprop, 34, 3);
#elif ZC_EM
    (void)nprop;
    return *(ptr + 3 * nunk + 34);
#else
    (void)nunk;
    return *(ptr + 34 * nprop + 3);
#endif
}

/* The same element as an lvalue. */
void zc_write(double *ptr, int64_t nunk, int64_t nprop, double v)
{
#if defined(ZC_API)
    hl_fields d = hl_fields_view(ptr, nunk, nprop);
    *hl_fields_at(d, 34, 3) = v;
#elif defined(ZC_COSTLY)
    *costly_at(ptr, nunk, nprop, 34, 3) = v;
#elif ZC_EM
    (void)nprop;
    *(ptr + 3 * nunk + 34) = v;
#else
    (void)nunk;
    *(ptr + 34 * nprop + 3) = v;
#endif
}

/* Run-time indices, read-modify-write, the view a member of a model. */
void zc_update(struct zc_model *m, int64_t u, int64_t c, double v)
{
#if defined(ZC_API)
    *hl_fields_at(m->d, u, c) += v;
#elif defined(ZC_COSTLY)
    *costly_at(m->d.ptr, m->d.nunk, m->d.nprop, u, c) += v;
#elif ZC_EM
    *(m->d.ptr + c * m->d.nunk + u) += v;
#else
    *(m->d.ptr + u * m->d.nprop + c) += v;
#endif
}

/* Component c of the equation whose first property is off. */
double zc_read_eq(struct zc_model *m, int64_t u, int64_t c, int64_t off)
{
#if defined(ZC_API)
    return *hl_fields_at_eq(m->d, u, c, off);
#elif defined(ZC_COSTLY)
    return *costly_at(m->d.ptr, m->d.nunk, m->d.nprop, u, off + c);
#elif ZC_EM
    return *(m->d.ptr + (off + c) * m->d.nunk + u);
#else
    return *(m->d.ptr + u * m->d.nprop + off + c);
#endif
}

/* The same two with the view built from scalar arguments (register names
 * may differ, see above). */
void zc_rn_update(double *ptr, int64_t nunk, int64_t nprop, int64_t u, int64_t c, double v)
{
#if defined(ZC_API)
    hl_fields d = hl_fields_view(ptr, nunk, nprop);
    *hl_fields_at(d, u, c) += v;
#elif defined(ZC_COSTLY)
    *costly_at(ptr, nunk, nprop, u, c) += v;
#elif ZC_EM
    (void)nprop;
    *(ptr + c * nunk + u) += v;
#else
    (void)nunk;
    *(ptr + u * nprop + c) += v;
#endif
}

double zc_rn_read_eq(double *ptr, int64_t nunk, int64_t nprop, int64_t u, int64_t c, int64_t off)
{
#if defined(ZC_API)
    hl_fields d = hl_fields_view(ptr, nunk, nprop);
    return *hl_fields_at_eq(d, u, c, off);
#elif defined(ZC_COSTLY)
    return *costly_at(ptr, nunk, nprop, u, off + c);
#elif ZC_EM
    (void)nprop;
    return *(ptr + (off + c) * nunk + u);
#else
    (void)nunk;
    return *(ptr + u * nprop + off + c);
#endif
}

/* The hoisted form (Quinoa's cptr / var) over every unknown. */
double zc_sum_comp(double *ptr, int64_t nunk, int64_t nprop, int64_t c)
{
    double s = 0.0;
#if defined(ZC_API)
    hl_fields d = hl_fields_view(ptr, nunk, nprop);
    hl_fields_comp cp = hl_fields_cptr(d, c, 0);
    for (int64_t u = 0; u < nunk; u++)
        s += *hl_fields_var(cp, u);
#elif defined(ZC_COSTLY)
    for (int64_t u = 0; u < nunk; u++)
        s += *costly_at(ptr, nunk, nprop, u, c);
#elif ZC_EM
    (void)nprop;
    const double *y = ptr + c * nunk;
    for (int64_t u = 0; u < nunk; u++)
        s += y[u];
#else
    const double *y = ptr + c;
    for (int64_t u = 0; u < nunk; u++)
        s += y[u * nprop];
#endif
    return s;
}

/* Every property of one unknown (the walker's inner loop). */
void zc_scale_unk(double *ptr, int64_t nunk, int64_t nprop, int64_t u, double a)
{
#if defined(ZC_API)
    hl_fields d = hl_fields_view(ptr, nunk, nprop);
    for (int64_t p = 0; p < nprop; p++)
        *hl_fields_at(d, u, p) *= a;
#elif defined(ZC_COSTLY)
    for (int64_t p = 0; p < nprop; p++)
        *costly_at(ptr, nunk, nprop, u, p) *= a;
#elif ZC_EM
    for (int64_t p = 0; p < nprop; p++)
        *(ptr + p * nunk + u) *= a;
#else
    (void)nunk;
    for (int64_t p = 0; p < nprop; p++)
        *(ptr + u * nprop + p) *= a;
#endif
}

/* The seed's exact test: Model::aa = d(34, 3) with d a member. */
void zc_member(struct zc_model *m)
{
#if defined(ZC_API)
    m->aa = *hl_fields_at(m->d, 34, 3);
#elif defined(ZC_COSTLY)
    m->aa = *costly_at(m->d.ptr, m->d.nunk, m->d.nprop, 34, 3);
#elif ZC_EM
    m->aa = *(m->d.ptr + 3 * m->d.nunk + 34);
#else
    m->aa = *(m->d.ptr + 34 * m->d.nprop + 3);
#endif
}
