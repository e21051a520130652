/* hyperlayout Ising — CSV, JSON and PNG output, all atomic. */
#include "output.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "exact.h"
#include "atomic_file.h"
#include "image.h"

/* Finishes an atomic file: commits it unless writing failed. */
static hl_status finish(hl_atomic_file *f, int ok)
{
    if (!ok) {
        hl_atomic_file_abort(f);
        return HL_ERR_IO;
    }
    return hl_atomic_file_commit(f);
}

/* The exact value of e or m for this run where one is known, else NaN. */
static double exact_e(const ising_params *p, double beta)
{
    if (p->h != 0 || beta <= 0)
        return (double)NAN;
    if (p->rank == 2)
        return ising2d_energy(1 / beta);
    if (p->rank == 1)
        return ising1d_energy(1 / beta, p->extent[0]);
    return (double)NAN;
}

static double exact_m(const ising_params *p, double beta)
{
    return p->rank == 2 && p->h == 0 && beta > 0 ? ising2d_magnetisation(1 / beta) : (double)NAN;
}

static const char *const est_names[8] = {"e", "m", "absm", "m2", "m4", "binder", "c", "chi"};

static void estimates(const ising_result *r, const ising_estimate **e)
{
    e[0] = &r->e;
    e[1] = &r->m;
    e[2] = &r->absm;
    e[3] = &r->m2;
    e[4] = &r->m4;
    e[5] = &r->binder;
    e[6] = &r->c;
    e[7] = &r->chi;
}

/* A double in CSV: empty when unknown. */
static void csv_num(FILE *f, double x)
{
    if (isfinite(x))
        fprintf(f, ",%.12g", x);
    else
        fputc(',', f);
}

hl_status ising_write_csv(const char *path, const ising_params *p, const ising_result *r, int n)
{
    if (!path || !p || (n > 0 && !r))
        return HL_ERR_NULL;
    hl_atomic_file *af;
    hl_status st = hl_atomic_file_open(&af, path);
    if (st != HL_OK)
        return st;
    FILE *f = hl_atomic_file_stream(af);
    int ok = fprintf(f, "T,beta,h,sweeps") > 0;
    for (int j = 0; j < 8; j++)
        fprintf(f, ",%s,%s_err", est_names[j], est_names[j]);
    fprintf(f, ",tau_e,tau_m,bin,bins,reliable,e_exact,m_exact\n");
    for (int i = 0; i < n; i++) {
        const ising_estimate *e[8];
        estimates(&r[i], e);
        if (r[i].beta > 0)
            fprintf(f, "%.12g", 1 / r[i].beta);
        else
            fputs("inf", f);
        fprintf(f, ",%.12g,%.12g,%" PRId64, r[i].beta, r[i].h, r[i].samples);
        for (int j = 0; j < 8; j++) {
            csv_num(f, e[j]->mean);
            csv_num(f, e[j]->err);
        }
        fprintf(f, ",%.6g,%.6g,%" PRId64 ",%" PRId64 ",%d", r[i].tau_e, r[i].tau_m, r[i].bin, r[i].bins,
                r[i].reliable);
        csv_num(f, exact_e(p, r[i].beta));
        csv_num(f, exact_m(p, r[i].beta));
        ok &= fputc('\n', f) != EOF;
    }
    return finish(af, ok);
}

/* A double in JSON: null when not finite. */
static void json_num(FILE *f, double x)
{
    if (isfinite(x))
        fprintf(f, "%.17g", x);
    else
        fputs("null", f);
}

hl_status ising_write_json(const char *path, const ising_params *p, const ising_run_info *info,
                           const ising_result *r, int n)
{
    if (!path || !p || !info || (n > 0 && !r))
        return HL_ERR_NULL;
    hl_atomic_file *af;
    hl_status st = hl_atomic_file_open(&af, path);
    if (st != HL_OK)
        return st;
    FILE *f = hl_atomic_file_stream(af);
    static const char *const starts[] = {"hot", "up", "down"};
    fprintf(f, "{\n  \"model\": \"ising\",\n  \"dims\": %d,\n  \"L\": [", p->rank);
    for (int i = 0; i < p->rank; i++)
        fprintf(f, "%s%" PRId64, i ? ", " : "", p->extent[i]);
    fprintf(f, "],\n  \"sites\": %" PRId64 ",\n  \"J\": 1,\n  \"h\": ", r && n ? r[0].sites : (int64_t)0);
    json_num(f, p->h);
    fprintf(f,
            ",\n  \"seed\": %" PRIu64 ",\n  \"start\": \"%s\",\n  \"dynamics\": \"%s\",\n"
            "  \"therm\": %" PRId64 ",\n  \"sweeps\": %" PRId64 ",\n",
            p->seed, starts[p->start], ising_dynamics_name(p->dynamics), p->therm, p->sweeps);
    if (p->dynamics == ISING_WOLFF) /* a sweep is this many cluster flips */
        fprintf(f, "  \"clusters\": %" PRId64 ",\n", p->clusters > 0 ? p->clusters : 1);
    fprintf(f,
            "  \"variant\": \"%s\",\n  \"device\": \"%s\",\n  \"isa\": \"%s\",\n  \"threads\": %d,\n"
            "  \"seconds\": ",
            info->variant, info->device ? info->device : "cpu", info->isa, info->threads);
    json_num(f, info->seconds);
    if (info->procs)
        fprintf(f, ",\n  \"procs\": \"%s\"", info->procs);
    fprintf(f, ",\n  \"complete\": %s,\n  \"results\": [", info->complete ? "true" : "false");
    for (int i = 0; i < n; i++) {
        const ising_estimate *e[8];
        estimates(&r[i], e);
        fprintf(f, "%s\n    {\"T\": ", i ? "," : "");
        json_num(f, r[i].beta > 0 ? 1 / r[i].beta : (double)INFINITY);
        fprintf(f, ", \"beta\": ");
        json_num(f, r[i].beta);
        fprintf(f, ", \"samples\": %" PRId64, r[i].samples);
        for (int j = 0; j < 8; j++) {
            fprintf(f, ", \"%s\": [", est_names[j]);
            json_num(f, e[j]->mean);
            fputs(", ", f);
            json_num(f, e[j]->err);
            fputc(']', f);
        }
        fprintf(f, ", \"tau_e\": ");
        json_num(f, r[i].tau_e);
        fprintf(f, ", \"tau_m\": ");
        json_num(f, r[i].tau_m);
        fprintf(f, ", \"bin\": %" PRId64 ", \"bins\": %" PRId64 ", \"reliable\": %s, \"e_exact\": ", r[i].bin,
                r[i].bins, r[i].reliable ? "true" : "false");
        json_num(f, exact_e(p, r[i].beta));
        fprintf(f, ", \"m_exact\": ");
        json_num(f, exact_m(p, r[i].beta));
        fputc('}', f);
    }
    int ok = fprintf(f, "\n  ]\n}\n") > 0;
    return finish(af, ok);
}

hl_status ising_write_series(const char *path, const int64_t *magnetisation, const int64_t *bonds,
                             int64_t n, int64_t sites, double h)
{
    if (!path || (n > 0 && (!magnetisation || !bonds)))
        return HL_ERR_NULL;
    if (sites < 1)
        return HL_ERR_ARG;
    hl_atomic_file *af;
    hl_status st = hl_atomic_file_open(&af, path);
    if (st != HL_OK)
        return st;
    FILE *f = hl_atomic_file_stream(af);
    int ok = fprintf(f, "sweep,e,m\n") > 0;
    const double N = (double)sites;
    for (int64_t t = 0; t < n && ok; t++) {
        const double M = (double)magnetisation[t];
        ok = fprintf(f, "%" PRId64 ",%.17g,%.17g\n", t, (-(double)bonds[t] - h * M) / N, M / N) > 0;
    }
    return finish(af, ok);
}

hl_status ising_snapshot(const char *path, const ising *lattice, int scale)
{
    if (!path || !lattice)
        return HL_ERR_NULL;
    if (ising_rank(lattice) < 2)
        return HL_ERR_RANK;
    const int64_t L0 = ising_extents(lattice)[0], L1 = ising_extents(lattice)[1], h = L0 / 2;
    if (scale < 1 || L0 * scale > 1000000 || L1 * scale > 1000000)
        return HL_ERR_ARG;
    const int64_t W = L0 * scale, H = L1 * scale;
    uint8_t *px = malloc((size_t)(W * H));
    if (!px)
        return HL_ERR_NOMEM;
    const int8_t *s = ising_data(lattice);
    /* row x1 = y of the plane is stored crinkled: x0 = 2q + r at r*L0/2 + q */
    for (int64_t y = 0; y < H; y++)
        for (int64_t x = 0; x < W; x++) {
            const int64_t x0 = x / scale, x1 = y / scale;
            px[y * W + x] = s[x1 * L0 + (x0 & 1) * h + x0 / 2] > 0 ? 255 : 0;
        }
    hl_status st = image_write_png(path, px, W, H, 1, W);
    free(px);
    return st;
}
