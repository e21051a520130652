/* hyperlayout Ising — a lattice whose sweeps run on the GPU: moving the
 * spins (which copy is newer: mirror.c).  The sweeps themselves are
 * gpu/sweep.cu. */
#include <stdlib.h>

#include "lattice.h"

int ising_cuda_built(void)
{
    return ising_gpu_built();
}

int ising_cuda_devices(void)
{
    return ising_gpu_devices();
}

const char *ising_device_name(ising_device d)
{
    return d == ISING_DEVICE_CPU ? "cpu" : d == ISING_DEVICE_GPU ? "gpu" : "?";
}

ising_device ising_device_of(const ising *is)
{
    return is->mirror ? ISING_DEVICE_GPU : ISING_DEVICE_CPU;
}

const char *ising_device_label(const ising *is)
{
    return is->mirror ? ising_gpu_name(is->mirror->gpu) : "";
}

hl_status ising_set_device(ising *is, ising_device d)
{
    if (!is)
        return HL_ERR_NULL;
    if (d != ISING_DEVICE_CPU && d != ISING_DEVICE_GPU)
        return HL_ERR_ARG;
    if (d == ising_device_of(is))
        return HL_OK;
    if (d == ISING_DEVICE_CPU) {
        hl_status st = ising_sync_host(is);
        if (st != HL_OK)
            return st;
        ising_gpu_destroy(is->mirror->gpu);
        free(is->mirror);
        is->mirror = NULL;
        return HL_OK;
    }
    if (ising_dynamics_cluster(is->dynamics))
        return HL_ERR_UNSUPPORTED; /* Wolff and SW run on the CPU only */
    ising_mirror *mr = calloc(1, sizeof *mr);
    if (!mr)
        return HL_ERR_NOMEM;
    hl_status st = ising_gpu_create(&mr->gpu, is->count);
    if (st != HL_OK) {
        free(mr);
        return st;
    }
    mr->device_stale = 1; /* uploaded before the first sweep */
    is->mirror = mr;
    return HL_OK;
}

/* Variant M's sweeps: the bit planes go up when the host changed them. */
static hl_status sweep_msc(ising *is, int64_t count, int64_t *magnetisation, int64_t *bonds)
{
    ising_mirror *mr = is->mirror;
    ising_msc_state *ms = is->msc;
    if (mr->device_stale) {
        if (ms->bits_stale)
            ising_msc_pack(is);
        hl_status st = ising_gpu_put_bits(mr->gpu, ms->bits, 2 * ms->geo.words);
        if (st != HL_OK)
            return st;
        mr->device_stale = 0;
    }
    ising_msc_table tab;
    ising_msc_table_init(&tab, &is->table);
    return ising_gpu_sweep_msc(mr->gpu, &ms->geo, &tab, is->seed, is->sweep, count, magnetisation, bonds);
}

/* The byte variants' sweeps: the spins go up when the host changed them. */
static hl_status sweep_bytes(ising *is, int64_t count, int64_t *magnetisation, int64_t *bonds)
{
    ising_mirror *mr = is->mirror;
    /* the reference variant runs Listing 7 literally on the device too */
    ising_geom geo;
    hl_status st = ising_geom_init(&geo, is->rank, is->extent, is->variant);
    if (st == HL_OK && mr->device_stale) {
        st = ising_gpu_put(mr->gpu, is->spins);
        if (st == HL_OK)
            mr->device_stale = 0;
    }
    if (st == HL_OK)
        st = ising_gpu_sweep(mr->gpu, &geo, is->variant, &is->table, is->seed, is->sweep, count, magnetisation,
                             bonds);
    return st;
}

hl_status ising_sweep_gpu(ising *is, int64_t count, int64_t *magnetisation, int64_t *bonds)
{
    hl_status st = is->variant == ISING_M ? sweep_msc(is, count, magnetisation, bonds)
                                          : sweep_bytes(is, count, magnetisation, bonds);
    if (st != HL_OK)
        return st;
    if (count > 0)
        is->mirror->host_stale = 1;
    is->sweep += count;
    return HL_OK;
}
