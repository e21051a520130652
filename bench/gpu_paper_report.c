/* bench_gpu_paper — tables and CSV of the measurements (gpu_paper_report.h). */
#define _POSIX_C_SOURCE 200809L

#include "gpu_paper_report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const column_name[REPORT_NCOLS] = {"A", "As", "B", "Bs", "C", "E", "memcpy"};

const char *report_variant_name(int column)
{
    return column >= 0 && column < REPORT_NCOLS ? column_name[column] : "?";
}

void report_shape(char *buf, size_t cap, const gp_spec *s)
{
    size_t w = (size_t)snprintf(buf, cap, "[");
    for (int i = s->rank - 1; i >= 0 && w < cap; i--)
        w += (size_t)snprintf(buf + w, cap - w, "%" PRId64 "%s", s->extent[i], i ? "," : "]");
}

void report_rows_init(report_rows *rows)
{
    memset(rows, 0, sizeof *rows);
}

report_row *report_rows_add(report_rows *rows, const char *op, int opi, const gp_spec *spec,
                            int64_t elem)
{
    if (rows->n == rows->cap) {
        const int cap = rows->cap ? 2 * rows->cap : 64;
        report_row *r = realloc(rows->row, sizeof *r * (size_t)cap);
        if (!r) {
            fputs("bench_gpu_paper: out of memory for the results\n", stderr);
            exit(2);
        }
        rows->row = r;
        rows->cap = cap;
    }
    report_row *r = &rows->row[rows->n];
    memset(r, 0, sizeof *r);
    snprintf(r->op, sizeof r->op, "%s", op);
    r->opi = opi;
    r->seq = rows->n++;
    r->spec = *spec;
    r->elem = elem;
    r->cells = 1;
    r->pow2 = 1;
    for (int i = 0; i < spec->rank; i++) {
        r->cells *= spec->extent[i];
        r->pow2 &= !(spec->extent[i] & (spec->extent[i] - 1));
    }
    for (int c = 0; c < REPORT_NCOLS; c++)
        r->median[c] = r->best[c] = (double)NAN;
    return r;
}

void report_rows_free(report_rows *rows)
{
    free(rows->row);
    memset(rows, 0, sizeof *rows);
}

static int row_order(const void *pa, const void *pb)
{
    const report_row *a = pa, *b = pb;
    if (a->elem != b->elem)
        return a->elem < b->elem ? -1 : 1;
    if (a->spec.rank != b->spec.rank)
        return a->spec.rank - b->spec.rank;
    if (a->opi != b->opi)
        return a->opi - b->opi;
    return a->seq - b->seq;
}

/* Bytes read and written by one run. */
static double moved(const report_row *r)
{
    return 2.0 * (double)r->cells * (double)r->elem;
}

/* One number of a table, or n/a. */
static void cell(char *buf, size_t cap, double v, int prec)
{
    if (isnan(v))
        snprintf(buf, cap, "n/a");
    else
        snprintf(buf, cap, "%.*f", prec, v);
}

enum { T_TIME, T_GBPS, T_MEMCPY, T_REL_C };

static double value(const report_row *r, int table, int c)
{
    const double t = r->median[c];
    switch (table) {
    case T_TIME:
        return 1e6 * t;
    case T_GBPS:
        return moved(r) / t / 1e9;
    case T_MEMCPY:
        return r->median[REPORT_MEMCPY] / t;
    default:
        return r->median[GP_C] / t;
    }
}

static void print_table(const report_rows *rows, int table)
{
    static const char *const title[] = {
        "time per run, microseconds (median)",
        "throughput, GB/s = (bytes read + written) / median time",
        "fraction of cudaMemcpy's speed, t_memcpy / t_X (1 = as fast as a copy)",
        "Figure 11: speed relative to the hand-written kernel C, t_C / t_X"};
    const int last = table == T_TIME || table == T_GBPS ? REPORT_MEMCPY : REPORT_E;
    const int prec = table == T_TIME ? 1 : table == T_GBPS ? 1 : 2;
    printf("\n%s\n", title[table]);
    int64_t elem = -1;
    for (int j = 0; j < rows->n; j++) {
        const report_row *r = &rows->row[j];
        if (r->elem != elem) {
            elem = r->elem;
            printf("%-14s %-18s %4s", "op", "shape", "elem");
            for (int c = 0; c <= last; c++)
                if (table != T_REL_C || c != GP_C)
                    printf(" %8s", column_name[c]);
            printf("\n");
        }
        char sh[64];
        report_shape(sh, sizeof sh, &r->spec);
        printf("%-14s %-18s %4" PRId64, r->op, sh, r->elem);
        for (int c = 0; c <= last; c++) {
            if (table == T_REL_C && c == GP_C)
                continue;
            char v[32];
            cell(v, sizeof v, value(r, table, c), prec);
            printf(" %8s", v);
        }
        printf("\n");
    }
}

/* Geometric means over the sizes of each op (powers of two and the others
 * apart) of the fraction of memcpy and of the speed relative to C. */
static void print_summary(const report_rows *rows)
{
    printf("\nsummary: geometric means over the sizes; fraction of memcpy (speed relative to C)\n");
    printf("%-14s %4s %4s %6s", "op", "rank", "elem", "sides");
    for (int c = 0; c <= REPORT_E; c++)
        printf(" %13s", column_name[c]);
    printf("\n");
    for (int j = 0; j < rows->n;) {
        int end = j;
        while (end < rows->n && rows->row[end].elem == rows->row[j].elem &&
               rows->row[end].spec.rank == rows->row[j].spec.rank &&
               rows->row[end].opi == rows->row[j].opi)
            end++;
        for (int pow2 = 1; pow2 >= 0; pow2--) {
            double lm[REPORT_NCOLS] = {0}, lc[REPORT_NCOLS] = {0};
            int cnt[REPORT_NCOLS] = {0}, any = 0;
            for (int i = j; i < end; i++) {
                const report_row *r = &rows->row[i];
                if (r->pow2 != pow2)
                    continue;
                any = 1;
                for (int c = 0; c <= REPORT_E; c++) {
                    if (isnan(r->median[c]))
                        continue;
                    lm[c] += log(value(r, T_MEMCPY, c));
                    lc[c] += log(value(r, T_REL_C, c));
                    cnt[c]++;
                }
            }
            if (!any)
                continue;
            const report_row *r = &rows->row[j];
            printf("%-14s %4d %4" PRId64 " %6s", r->op, r->spec.rank, r->elem, pow2 ? "2^n" : "other");
            for (int c = 0; c <= REPORT_E; c++) {
                char v[32];
                if (!cnt[c])
                    snprintf(v, sizeof v, "n/a");
                else if (isnan(exp(lc[c] / cnt[c])))
                    snprintf(v, sizeof v, "%.2f", exp(lm[c] / cnt[c]));
                else
                    snprintf(v, sizeof v, "%.2f (%.2f)", exp(lm[c] / cnt[c]), exp(lc[c] / cnt[c]));
                printf(" %13s", v);
            }
            printf("\n");
        }
        j = end;
    }
}

void report_tables(report_rows *rows)
{
    qsort(rows->row, (size_t)rows->n, sizeof *rows->row, row_order);
    printf("A general k-index, As shared-memory flip (any extents), B power-of-two bits,\n"
           "Bs Listings 3/4 (power-of-two flip through shared memory), C hand-written 2D/3D,\n"
           "E the engine (hl_execute_cuda); n/a: the variant does not apply to that op/shape\n");
    for (int t = T_TIME; t <= T_REL_C; t++)
        print_table(rows, t);
    print_summary(rows);
}

const char report_csv_header[] =
    "op,shape,rank,elem_size,pow2,cells,bytes_moved,engine_boxes,variant,reps,"
    "median_us,min_us,gbps,fraction_of_memcpy,speed_rel_C";

void report_csv_rows(FILE *f, const report_rows *rows, int reps)
{
    for (int j = 0; j < rows->n; j++) {
        const report_row *r = &rows->row[j];
        char sh[64];
        report_shape(sh, sizeof sh, &r->spec);
        for (int col = 0; col < REPORT_NCOLS; col++) {
            if (isnan(r->median[col]))
                continue;
            char rel[32];
            cell(rel, sizeof rel, value(r, T_REL_C, col), 4);
            fprintf(f,
                    "%s,\"%s\",%d,%" PRId64 ",%d,%" PRId64 ",%.0f,%" PRId64 ",%s,%d,%.3f,%.3f,%.3f,"
                    "%.4f,%s\n",
                    r->op, sh, r->spec.rank, r->elem, r->pow2, r->cells, moved(r), r->boxes,
                    column_name[col], reps, 1e6 * r->median[col], 1e6 * r->best[col],
                    value(r, T_GBPS, col), value(r, T_MEMCPY, col), isnan(value(r, T_REL_C, col)) ? "" : rel);
        }
    }
}
