/* bench_gpu_paper — the measurements and their tables and CSV. */
#ifndef HL_BENCH_GPU_PAPER_REPORT_H
#define HL_BENCH_GPU_PAPER_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gpu_paper_index.h"

/* Columns: the kernels GP_A .. GP_C, then the engine and the memcpy. */
enum { REPORT_E = GP_NKERNELS, REPORT_MEMCPY, REPORT_NCOLS };

typedef struct report_row {
    char op[32];
    int opi; /* the op's place in its shape's list: the order of the tables */
    int seq; /* order of measurement, to keep it among equals */
    gp_spec spec;
    int64_t elem, cells, boxes;
    int pow2;
    double median[REPORT_NCOLS], best[REPORT_NCOLS]; /* seconds; NAN: does not apply */
} report_row;

typedef struct report_rows {
    report_row *row;
    int n, cap;
} report_rows;

void report_rows_init(report_rows *rows);
/* A new row, every time NAN; exits (status 2) when out of memory. */
report_row *report_rows_add(report_rows *rows, const char *op, int opi, const gp_spec *spec,
                            int64_t elem);
void report_rows_free(report_rows *rows);

/* "A", "As", "B", "Bs", "C", "E", "memcpy". */
const char *report_variant_name(int column);
/* The shape in the project's notation, slowest dimension first: [L2,L1,L0]. */
void report_shape(char *buf, size_t cap, const gp_spec *s);

/* Sorts the rows (element size, rank, op, then as measured) and prints the
 * time, GB/s, fraction-of-memcpy and relative-to-C tables and a summary. */
void report_tables(report_rows *rows);

/* The CSV of the measurements (written through the harness's bench_csv):
 * its header line without the newline, and its rows into f. */
extern const char report_csv_header[];
void report_csv_rows(FILE *f, const report_rows *rows, int reps);

#endif
