/* The tiled stencil's rows written with non-temporal stores (stencil_nt.c)
 * where the CPU has them: what stencil.c's kernels call.  Internal to
 * apps/stencil. */
#ifndef APPS_STENCIL_NT_H
#define APPS_STENCIL_NT_H

#include <stdint.h>

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#define STENCIL_HAVE_NT 1
#include <immintrin.h>
#define HL_AVX2 __attribute__((target("avx2")))
#define HL_AVX512 __attribute__((target("avx512f")))

/* a burst of prefetches into L2 over [p, p + bytes) */
static inline void prefetch_span(uintptr_t p, int64_t bytes)
{
    for (int64_t b = 0; b < bytes; b += 64)
        _mm_prefetch((const char *)(p + (uintptr_t)b), _MM_HINT_T1);
}

/* cells x0 <= x < e of a row (contiguous on both sides), [lo, hi) computed:
 * with AVX2, and with AVX-512 */
HL_AVX2 void rownt_f32(const float *c, float *o, int64_t x0, int64_t e, int64_t lo, int64_t hi,
                       const int64_t *off, int nnb, int64_t pf);
HL_AVX2 void rownt_f64(const double *c, double *o, int64_t x0, int64_t e, int64_t lo, int64_t hi,
                       const int64_t *off, int nnb, int64_t pf);
HL_AVX512 void rownt512_f32(const float *c, float *o, int64_t x0, int64_t e, int64_t lo, int64_t hi,
                            const int64_t *off, int nnb, int64_t pf);
HL_AVX512 void rownt512_f64(const double *c, double *o, int64_t x0, int64_t e, int64_t lo,
                            int64_t hi, const int64_t *off, int nnb, int64_t pf);
/* the 3-D star's whole tile with AVX-512 (stencil_nt.c says how) */
HL_AVX512 void star3nt512_f32(const float *c, float *o, int64_t x0, int64_t e, int64_t b0, int64_t e0,
                              int64_t ny, int64_t nz, int64_t isy, int64_t isz, int64_t osy,
                              int64_t osz, int64_t yr, int64_t zr, int64_t Ry, int64_t Rz,
                              const int64_t *offp, int64_t far, int64_t ahead);
HL_AVX512 void star3nt512_f64(const double *c, double *o, int64_t x0, int64_t e, int64_t b0,
                              int64_t e0, int64_t ny, int64_t nz, int64_t isy, int64_t isz,
                              int64_t osy, int64_t osz, int64_t yr, int64_t zr, int64_t Ry,
                              int64_t Rz, const int64_t *offp, int64_t far, int64_t ahead);
#define ROWNT_f32(nt, ...) ((nt) == 2 ? rownt512_f32(__VA_ARGS__) : rownt_f32(__VA_ARGS__))
#define ROWNT_f64(nt, ...) ((nt) == 2 ? rownt512_f64(__VA_ARGS__) : rownt_f64(__VA_ARGS__))
#define NT_FENCE() _mm_sfence()
#define STAR3NT512_f32 star3nt512_f32
#define STAR3NT512_f64 star3nt512_f64
#else
static inline void prefetch_span(uintptr_t p, int64_t bytes)
{
    (void)p;
    (void)bytes;
}
#define STENCIL_HAVE_NT 0
/* never called (nt is 0): the prefetch distance is still computed */
#define ROWNT_f32(nt, c, o, l0, l1, lo, hi, off, nnb, pf) ((void)(pf))
#define ROWNT_f64(nt, c, o, l0, l1, lo, hi, off, nnb, pf) ((void)(pf))
#define NT_FENCE() ((void)0)
#define STAR3NT512_f32(...) ((void)0)
#define STAR3NT512_f64(...) ((void)0)
#endif

/* Which row kernel streams: 0 none, 1 AVX2, 2 AVX-512, the best the CPU
 * has up to the library's level (HL_ISA, hl_isa_force: generic and sse2
 * keep the plain loop). */
int stencil_nt_available(void);

#endif
