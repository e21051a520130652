/* hyperlayout ising — the command line checked: the lattice, the cluster
 * updates, the process grid, and the lattice and device tried once. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ising_cli.h"
#include "parse.h"
#ifdef HL_HAVE_MPI
#include "ising_mpi.h"
#endif

/* The lattice and the cluster updates' limits; with --procs (nprocs
 * processes) the process grid.  -1 to go on, else the exit status. */
int ising_cli_check(ising_cli *cl, int nprocs)
{
    /* the lattice */
    if (cl->dims == 0)
        cl->dims = cl->nL > 1 ? cl->nL : 2;
    if (cl->nL == 1)
        for (int i = 1; i < cl->dims; i++)
            cl->L[i] = cl->L[0];
    else if (cl->nL != cl->dims)
        return cli_error(cmd, "--L gives %d extents but --dims is %" PRId64, cl->nL, cl->dims);
    /* the cluster updates: h = 0, one process, the CPU */
    if (cl->dynamics == ISING_WOLFF || cl->dynamics == ISING_SW) {
        const char *alg = cl->dynamics == ISING_WOLFF ? "wolff" : "sw";
        if (cl->h != 0)
            return cli_error(cmd, "--algorithm %s is for zero field: not with --h %g (use metropolis or "
                                  "heatbath)", alg, cl->h);
        if (cl->procs_arg)
            return cli_error(cmd, "--algorithm %s runs in one process: not with --procs", alg);
        if (cl->device == ISING_DEVICE_GPU)
            return cli_error(cmd, "--algorithm %s runs on the CPU: not with --device gpu", alg);
        if (cl->variant == ISING_M)
            return cli_error(cmd, "--algorithm %s grows clusters on the byte lattice: not with "
                                  "--variant M (use A, B, C or auto)", alg);
    }
    if (cl->clusters && cl->dynamics != ISING_WOLFF)
        return cli_error(cmd, "--clusters is the number of Wolff clusters per sweep: only with "
                              "--algorithm wolff");
    /* --procs: the process grid */
    if (cl->procs_arg) {
#ifndef HL_HAVE_MPI
        (void)nprocs;
        (void)cl->grid;
        (void)cl->have_grid;
        (void)cl->one_process_option;
        return cli_error(cmd, "--procs needs a build with MPI: this hyperlayout has none (install "
                              "libopenmpi-dev, rebuild, and run under mpirun)");
#else
        int n = 0;
        int64_t product = 1;
        for (const char *s = cl->procs_arg;;) {
            const char *sep = s + strcspn(s, "x,");
            char item[32];
            const size_t len = (size_t)(sep - s);
            if (n == ISING_MAX_RANK || len == 0 || len >= sizeof item)
                return cli_error(cmd, "--procs needs a process grid P0xP1x... (dimension 0 first) or a "
                                      "process count, not '%s'", cl->procs_arg);
            memcpy(item, s, len);
            item[len] = '\0';
            if (parse_i64(item, 1, 1 << 20, &cl->grid[n]) < 0)
                return cli_error(cmd, "--procs '%s': '%s' is not a process count from 1 to 2^20",
                                 cl->procs_arg, item);
            product *= cl->grid[n++];
            if (!*sep)
                break;
            s = sep + 1;
        }
        cl->have_grid = n > 1 || cl->dims == 1;
        if (n > 1 && n != cl->dims)
            return cli_error(cmd, "--procs %s has %d entries for a %" PRId64 "-dimensional lattice",
                             cl->procs_arg, n, cl->dims);
        if (product != nprocs)
            return cli_error(cmd,
                             "--procs %s makes %" PRId64 " process%s but %d %s started: run it as "
                             "mpirun -np %" PRId64 " hyperlayout ising ...",
                             cl->procs_arg, product, product == 1 ? "" : "es", nprocs,
                             nprocs == 1 ? "was" : "were", product);
        if (cl->one_process_option)
            return cli_error(cmd, "--variant, --threads and --device choose how one process sweeps: "
                                  "not with --procs");
        if (!cl->have_grid) { /* chosen as the lattice will choose it (ising_dist_create) */
            int64_t g[ISING_MAX_RANK] = {0};
            if (hl_dims_create(nprocs, (int)cl->dims, g) != HL_OK)
                return cli_error(cmd, "--procs %s: no grid of %d processes", cl->procs_arg, nprocs);
            for (int i = 0; i < cl->dims; i++)
                cl->grid[i] = g[cl->dims - 1 - i];
        }
        for (int i = 0, w = 0; i < cl->dims; i++)
            w += snprintf(cl->grid_text + w, sizeof cl->grid_text - (size_t)w, "%s%" PRId64, i ? "x" : "",
                          cl->grid[i]);
#endif
    }
    return -1;
}

/* The lattice tried once (a probe, or with --procs its checks alone) and
 * the device, before any file is touched: cl's labels.  -1 to go on, else
 * the exit status. */
int ising_cli_probe(ising_cli *cl)
{
    hl_status st;
    if (!cl->procs_arg) {
        ising *probe = NULL;
        st = ising_create(&probe, (int)cl->dims, cl->L, cl->seed);
        if (st == HL_OK)
            st = ising_set_variant(probe, cl->variant);
        if (st != HL_OK) {
            ising_destroy(probe);
            if (st == HL_ERR_NOT_POW2)
                return cli_error(cmd, "variant B needs every extent a power of two");
            if (st == HL_ERR_RANK && cl->variant == ISING_C)
                return cli_error(cmd, "variant C is the two-dimensional kernel: it needs --dims 2");
            return cli_error(cmd, "lattice: %s", hl_strerror(st));
        }
        /* the device now, before any file is touched: its absence is an error of the command line */
        if (cl->device == ISING_DEVICE_GPU) {
            st = ising_set_device(probe, cl->device);
            if (st != HL_OK) {
                ising_destroy(probe);
                if (st == HL_ERR_NOMEM)
                    return cli_error(cmd, "--device gpu: the lattice does not fit in the GPU's memory");
                return cli_error(cmd, "--device gpu: no CUDA device (%s)",
                                 !ising_cuda_built()           ? "this build has no CUDA"
                                 : ising_cuda_devices() == 0 ? "the CUDA runtime sees none"
                                                             : hl_strerror(st));
            }
        }
        snprintf(cl->device_label, sizeof cl->device_label, "%s%s%s", ising_device_name(cl->device),
                 cl->device == ISING_DEVICE_GPU ? " " : "", ising_device_label(probe));
        cl->variant_name = ising_variant_name(ising_variant_of(probe));
        cl->isa = cl->device == ISING_DEVICE_GPU ? "cuda" : ising_isa_of(probe);
        ising_destroy(probe);
    } else {
        /* the lattice's checks without allocating it whole on every process */
        hl_kindex ki;
        st = hl_kindex_init(&ki, (int)cl->dims, cl->L);
        if (st == HL_OK && ki.count > ((int64_t)1 << 40))
            st = HL_ERR_OVERFLOW;
        if (st != HL_OK)
            return cli_error(cmd, "lattice: %s", hl_strerror(st));
        /* `isa`: the best vector word generator, and with AVX-512 the row
         * update's (apps/ising/mpi.c) */
        ising *probe = NULL;
        const int64_t two[ISING_MAX_RANK] = {2, 2, 2, 2, 2, 2, 2, 2};
        if (ising_create(&probe, (int)cl->dims, two, cl->seed) == HL_OK)
            cl->isa = ising_isa_of(probe);
        ising_destroy(probe);
    }
    return -1;
}
