/* hyperlayout Ising on the GPU — a build without CUDA: there is no device. */
#include "device.h"

int ising_gpu_built(void)
{
    return 0;
}

int ising_gpu_devices(void)
{
    return 0;
}

hl_status ising_gpu_create(ising_gpu **out, int64_t count)
{
    (void)count;
    if (out)
        *out = NULL;
    return HL_ERR_DEVICE;
}

void ising_gpu_destroy(ising_gpu *g)
{
    (void)g;
}

hl_status ising_gpu_put(ising_gpu *g, const int8_t *spins)
{
    (void)g;
    (void)spins;
    return HL_ERR_DEVICE;
}

hl_status ising_gpu_get(ising_gpu *g, int8_t *spins)
{
    (void)g;
    (void)spins;
    return HL_ERR_DEVICE;
}

hl_status ising_gpu_sweep(ising_gpu *g, const ising_geom *geo, ising_variant variant, const ising_table *tab,
                          uint64_t seed, int64_t sweep0, int64_t count, int64_t *magnetisation, int64_t *bonds)
{
    (void)g, (void)geo, (void)variant, (void)tab, (void)seed, (void)sweep0, (void)count;
    (void)magnetisation, (void)bonds;
    return HL_ERR_DEVICE;
}

hl_status ising_gpu_put_bits(ising_gpu *g, const uint64_t *bits, int64_t words)
{
    (void)g, (void)bits, (void)words;
    return HL_ERR_DEVICE;
}

hl_status ising_gpu_get_bits(ising_gpu *g, uint64_t *bits, int64_t words)
{
    (void)g, (void)bits, (void)words;
    return HL_ERR_DEVICE;
}

hl_status ising_gpu_sweep_msc(ising_gpu *g, const ising_msc_geom *geo, const ising_msc_table *tab, uint64_t seed,
                              int64_t sweep0, int64_t count, int64_t *magnetisation, int64_t *bonds)
{
    (void)g, (void)geo, (void)tab, (void)seed, (void)sweep0, (void)count, (void)magnetisation, (void)bonds;
    return HL_ERR_DEVICE;
}

const char *ising_gpu_name(const ising_gpu *g)
{
    (void)g;
    return "";
}
