/* hyperlayout Ising on the GPU — the lattice's spins on a CUDA device and
 * the sweeps that run there (sweep.cu; none.c when built without CUDA).
 * Plain C, no CUDA headers: lattice.c and sweep.c call it.  Internal to
 * apps/ising. */
#ifndef ISING_CUDA_DEVICE_H
#define ISING_CUDA_DEVICE_H

#include <stdint.h>

#include "geom.h"
#include "msc.h"
#include "site.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ising_gpu ising_gpu;

/* 1 when this build has the CUDA kernels. */
int ising_gpu_built(void);
/* CUDA devices the runtime sees: 0 without CUDA, a driver or a GPU. */
int ising_gpu_devices(void);

/* Room for `count` spins on the current device.  HL_ERR_DEVICE without a
 * device (or without CUDA), HL_ERR_NOMEM when it has too little memory. */
hl_status ising_gpu_create(ising_gpu **out, int64_t count);
void ising_gpu_destroy(ising_gpu *g);

/* The crinkled store to and from the device (count bytes). */
hl_status ising_gpu_put(ising_gpu *g, const int8_t *spins);
hl_status ising_gpu_get(ising_gpu *g, int8_t *spins);

/* Sweeps sweep0 .. sweep0+count-1 as ising_sweep does them (colour 0, then
 * colour 1), with the geometry of `variant`; magnetisation[i] and bonds[i]
 * (either may be NULL) get the sums after sweep sweep0+i, reduced on the
 * device: only they come back, never the spins. */
hl_status ising_gpu_sweep(ising_gpu *g, const ising_geom *geo, ising_variant variant, const ising_table *tab,
                          uint64_t seed, int64_t sweep0, int64_t count, int64_t *magnetisation, int64_t *bonds);

/* Variant M: `words` packed words (msc.h) to and from the device, in a
 * buffer of their own made at the first put (HL_ERR_NOMEM when it does not
 * fit); and the sweeps on them, one thread per colour word
 * (ising_msc_thread), the sums as ising_gpu_sweep's. */
hl_status ising_gpu_put_bits(ising_gpu *g, const uint64_t *bits, int64_t words);
hl_status ising_gpu_get_bits(ising_gpu *g, uint64_t *bits, int64_t words);
hl_status ising_gpu_sweep_msc(ising_gpu *g, const ising_msc_geom *geo, const ising_msc_table *tab, uint64_t seed,
                              int64_t sweep0, int64_t count, int64_t *magnetisation, int64_t *bonds);

/* The device's name, for reports ("" when there is none). */
const char *ising_gpu_name(const ising_gpu *g);

#ifdef __cplusplus
}
#endif

#endif
