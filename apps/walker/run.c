/* Runs of the walker: initial state, time steps on OpenMP threads, the
 * comparison of the variants' states, the clock. */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "hyperlayout/fields.h"
#include "hyperlayout/plan.h"

#include "advance.h"
#include "walker.h"

static walker_advance_fn *const advance_of[WALKER_NVARIANTS] = {
    [WALKER_PTR] = walker_advance_ptr,
    [WALKER_PAR] = walker_advance_um,
    [WALKER_PROP] = walker_advance_em,
};

const char *walker_variant_name(walker_variant v)
{
    static const char *const names[WALKER_NVARIANTS] = {"Ptr", "Par", "Prop"};
    return (unsigned)v < WALKER_NVARIANTS ? names[v] : "?";
}

int walker_variant_order(walker_variant v)
{
    return v == WALKER_PROP ? HL_FIELDS_EQUATION_MAJOR : HL_FIELDS_UNKNOWN_MAJOR;
}

void walker_init_state(int order, double *data, int64_t npar, int64_t K)
{
    (void)order; /* the same value everywhere: both orders look alike */
    const double y0 = 1.0 / (double)(K + 1);
    for (int64_t i = 0; i < npar * K; i++)
        data[i] = y0;
}

hl_status walker_advance(const walker_sde *s, walker_variant v, double *data, int64_t npar,
                         int64_t step0, int64_t nsteps, int threads)
{
    if (!s || !data)
        return HL_ERR_NULL;
    if ((unsigned)v >= WALKER_NVARIANTS || npar < 1 || nsteps < 0 || step0 < 0 || threads < 0)
        return HL_ERR_ARG;
    walker_advance_fn *const advance = advance_of[v];
    const size_t scratch = ((size_t)s->ncomp * sizeof(double) + 63) / 64 * 64;
    int failed = 0;
#ifdef _OPENMP
    /* OpenMP's default for 0, and never more than the process can start:
     * libgomp ends the process on a team it cannot create */
    threads = hl_threads_usable(threads);
#else
    threads = 1;
#endif
    /* One parallel region for all steps; each thread keeps its contiguous
     * share of the particles (first touch stays local) and its own dW. */
#pragma omp parallel num_threads(threads) reduction(| : failed)
    {
        int t = 0, nt = 1;
#ifdef _OPENMP
        t = omp_get_thread_num();
        nt = omp_get_num_threads();
#endif
        const int64_t p0 = npar * t / nt, p1 = npar * (t + 1) / nt;
        double *dW = aligned_alloc(64, scratch);
        failed = !dW;
        for (int64_t n = 0; n < nsteps && dW; n++)
            advance(s, data, npar, p0, p1, step0 + n, dW);
        free(dW);
    }
    return failed ? HL_ERR_NOMEM : HL_OK;
}

/* Compared through the views of each state's own order, element by
 * element, as bits (memcmp): equal numbers computed differently (a -0.0
 * for a 0.0) would count as a difference. */
bool walker_same_state(walker_variant va, const double *a, walker_variant vb, const double *b,
                       int64_t npar, int64_t K)
{
    double *pa = (double *)(uintptr_t)a, *pb = (double *)(uintptr_t)b; /* only read */
    if (walker_variant_order(va) == walker_variant_order(vb))
        return !memcmp(a, b, (size_t)(npar * K) * sizeof *a);
    hl_fields_um um = hl_fields_um_view(walker_variant_order(va) == HL_FIELDS_UNKNOWN_MAJOR ? pa : pb,
                                        npar, K);
    hl_fields_em em = hl_fields_em_view(walker_variant_order(va) == HL_FIELDS_UNKNOWN_MAJOR ? pb : pa,
                                        npar, K);
    for (int64_t u = 0; u < npar; u++)
        for (int64_t c = 0; c < K; c++)
            if (memcmp(hl_fields_at(um, u, c), hl_fields_at(em, u, c), sizeof(double)))
                return false;
    return true;
}

double walker_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
