/* Standard Gaussian numbers keyed by (seed, particle, step, component).
 *
 * Uniform bits: Philox4x64-10 from Random123 (Debian's librandom123-dev), a
 * counter-based generator — the numbers are a pure function of the counter,
 * so every variant, thread and particle order gets the same ones without
 * any generator state to share.
 *
 * Gaussians: the ziggurat method of Marsaglia and Tsang (2000) with 128
 * layers, with the layer index and the uniform taken from disjoint bits of
 * one 64-bit word (the correction Doornik (2005) made to the original).
 * About 98.8% of draws are one table look-up, one multiply and one compare;
 * the rest (wedges and the tail) draw more words from a per-component
 * sub-stream.  Cheap generation keeps the benchmark about the integrator
 * rather than about logarithms and sines. */
#include <math.h>

#include <Random123/philox.h>

#include "walker.h"

/* The 128-layer ziggurat's constants: the base strip's start R and the
 * common area V of the layers (Marsaglia and Tsang, 2000). */
#define ZIG_R 3.442619855899
#define ZIG_V 9.91256303526217e-3

/* A key constant that keeps these numbers apart from other uses of the seed. */
#define WALKER_KEY_DOMAIN UINT64_C(0x57616c6b65724453) /* "WalkerDS" */

void walker_zig_init(walker_zig *z)
{
    double f = exp(-0.5 * ZIG_R * ZIG_R);
    z->x[0] = ZIG_V / f; /* the base strip, its tail folded into a wider rectangle */
    z->x[1] = ZIG_R;
    for (int i = 2; i < WALKER_ZIG_LAYERS; i++) {
        z->x[i] = sqrt(-2.0 * log(ZIG_V / z->x[i - 1] + f));
        f = exp(-0.5 * z->x[i] * z->x[i]);
    }
    z->x[WALKER_ZIG_LAYERS] = 0.0;
    for (int i = 0; i < WALKER_ZIG_LAYERS; i++)
        z->ratio[i] = z->x[i + 1] / z->x[i];
    for (int i = 0; i <= WALKER_ZIG_LAYERS; i++)
        z->f[i] = exp(-0.5 * z->x[i] * z->x[i]);
}

/* (w >> 11) as a double in (0, 1) and in [-1, 1).  The shift leaves 53
 * bits, which convert exactly (through int64: the unsigned conversion is
 * slow on x86-64). */
static inline double open01(uint64_t w)
{
    return ((double)(int64_t)(w >> 11) + 0.5) * 0x1p-53;
}

static inline double signed11(uint64_t w)
{
    return (double)(int64_t)(w >> 11) * 0x1p-52 - 1.0;
}

/* More words for one component, after its first draw was rejected. */
typedef struct substream {
    philox4x64_ctr_t ctr;
    philox4x64_key_t key;
    philox4x64_ctr_t out;
    int used;
} substream;

static uint64_t next_word(substream *s)
{
    if (s->used == 4) {
        s->ctr.v[3]++;
        s->out = philox4x64(s->ctr, s->key);
        s->used = 0;
    }
    return s->out.v[s->used++];
}

/* The slow path: layer i's wedge or the base strip's tail for the first
 * word's uniform u, then fresh attempts until one is accepted. */
static double __attribute__((noinline))
slow_gaussian(const walker_zig *z, philox4x64_key_t key, uint64_t particle, uint64_t step,
              uint64_t comp, uint64_t w)
{
    substream s = {{{particle, step, comp, 0}}, key, {{0, 0, 0, 0}}, 4};
    for (;;) {
        const int i = (int)(w & (WALKER_ZIG_LAYERS - 1));
        const double u = signed11(w);
        if (fabs(u) < z->ratio[i])
            return u * z->x[i];
        if (i == 0) {
            /* the tail beyond R (Marsaglia, 1964): exponential proposals */
            double x, y;
            do {
                x = -log(open01(next_word(&s))) / ZIG_R;
                y = -log(open01(next_word(&s)));
            } while (y + y < x * x);
            return u < 0.0 ? -(ZIG_R + x) : ZIG_R + x;
        }
        /* the wedge between layers i and i+1: a height uniform between the
         * layer's bottom and top, accepted under the density */
        const double x = u * z->x[i];
        if (z->f[i] + open01(next_word(&s)) * (z->f[i + 1] - z->f[i]) < exp(-0.5 * x * x))
            return x;
        w = next_word(&s);
    }
}

/* Words v[0..m-1] become out[j0..j0+m-1]; the rectangle of layer i holds
 * the point for sure, anything else takes the slow path. */
static inline void zig4(const walker_zig *z, philox4x64_key_t key, uint64_t particle, uint64_t step,
                        int64_t j0, int64_t m, const uint64_t *v, double *out)
{
    for (int64_t q = 0; q < m; q++) {
        const uint64_t w = v[q];
        const int i = (int)(w & (WALKER_ZIG_LAYERS - 1));
        const double u = signed11(w);
        out[j0 + q] = fabs(u) < z->ratio[i]
                          ? u * z->x[i]
                          : slow_gaussian(z, key, particle, step, (uint64_t)(j0 + q), w);
    }
}

void walker_gaussians(const walker_zig *z, uint64_t seed, uint64_t particle, uint64_t step,
                      int64_t n, double *out)
{
    const philox4x64_key_t key = {{seed, WALKER_KEY_DOMAIN}};
    int64_t j0 = 0;
    /* Two Philox blocks per iteration: their rounds are independent chains
     * of multiplies the processor overlaps (about 10% faster than one). */
    for (; j0 + 8 <= n; j0 += 8) {
        const philox4x64_ctr_t ca = {{particle, step, (uint64_t)j0 / 4, 0}};
        const philox4x64_ctr_t cb = {{particle, step, (uint64_t)j0 / 4 + 1, 0}};
        const philox4x64_ctr_t ra = philox4x64(ca, key);
        const philox4x64_ctr_t rb = philox4x64(cb, key);
        zig4(z, key, particle, step, j0, 4, ra.v, out);
        zig4(z, key, particle, step, j0 + 4, 4, rb.v, out);
    }
    for (; j0 < n; j0 += 4) {
        const philox4x64_ctr_t c = {{particle, step, (uint64_t)j0 / 4, 0}};
        const philox4x64_ctr_t r = philox4x64(c, key);
        zig4(z, key, particle, step, j0, n - j0 < 4 ? n - j0 : 4, r.v, out);
    }
}
