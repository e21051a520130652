/* hyperlayout Ising — the lattice's copies of its spins (the host's bytes,
 * variant M's bits, the device's): which one is newer, and the host's
 * brought up to date.  Below lattice.c and device.c, which both call it. */
#include "lattice.h"

hl_status ising_sync_host(const ising *is)
{
    if (!is)
        return HL_ERR_NULL;
    ising_mirror *mr = is->mirror;
    ising_msc_state *ms = is->msc;
    if (mr && mr->host_stale) {
        /* variant M keeps bits on the device: they come to the host's bits */
        hl_status st = is->variant == ISING_M ? ising_gpu_get_bits(mr->gpu, ms->bits, 2 * ms->geo.words)
                                               : ising_gpu_get(mr->gpu, is->spins);
        if (st != HL_OK)
            return st;
        mr->host_stale = 0;
        if (is->variant == ISING_M) {
            ms->bytes_stale = 1;
            ms->bits_stale = 0;
        }
    }
    if (ms && ms->bytes_stale)
        ising_msc_unpack(is);
    return HL_OK;
}

void ising_host_rewritten(ising *is)
{
    if (is->mirror) {
        is->mirror->host_stale = 0;
        is->mirror->device_stale = 1;
    }
    if (is->msc) {
        is->msc->bytes_stale = 0;
        is->msc->bits_stale = 1;
    }
}
