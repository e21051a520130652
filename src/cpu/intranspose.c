/* hyperlayout — in-place transposes of batches of matrices (intranspose.h).
 *
 * The row-and-column decomposition (Catanzaro, Keller, Garland, "A
 * decomposition for in-place matrix transposition", PPoPP 2014), written
 * for an m x n row-major matrix A whose transpose is to occupy the same
 * memory as a row-major n x m matrix.  The element at (i, j) must end at
 * linear position l = j m + i, i.e. at row l div n, column l mod n of the
 * m x n grid.  With c = gcd(m, n), b = n / c:
 *
 *   R  column j is rotated: new (i, j) = old ((i + j div b) mod m, j);
 *   S  row i is permuted: the element at column j (from original row
 *      i0 = (i + j div b) mod m) moves to column (j m + i0) mod n — for a
 *      fixed row this is a bijection of the columns, which is what the
 *      rotation R is for when c > 1;
 *   C  column c' is permuted: new (r, c') = old (i1, c') where l = r n + c',
 *      i0 = l mod m, j = l div m and i1 = (i0 - j div b) mod m.
 *
 * R is the identity when c = 1.  Every pass is a permutation within rows or
 * within columns, so rows (S) and bands of columns (R, C) are independent
 * tasks, each moved through a buffer that holds one row or one band: the
 * memory is read and written once per pass, in whole rows or in runs of a
 * band's width, never an element at a time across the array.  The index
 * arithmetic is kept incremental (no division per element). */
#include "intranspose.h"

#include <omp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "regtranspose.h"
#include "core/intmath.h"

enum {
    IN_CACHE = 1 << 19,   /* a matrix this small goes through one buffer (half an L2) */
    TILE_BYTES = 256,     /* a square tile's rows: 4 lines (2 were measured 1.4x slower on 2 threads) */
    BAND_BYTES = 256,     /* the width of a band of columns: whole lines per row */
    ROW_ITEM_BYTES = 1 << 14, /* rows per task of the row pass: at least this much */
    SMALL_BYTES = 1 << 16, /* arrays smaller than this run on one thread */
    MAX_TABLE = 1 << 22,  /* the row pass keeps a table of a row up to this long */
};

enum { SOLVER_IN_CACHE, SOLVER_SQUARE, SOLVER_ROWS_COLS };
enum { PHASE_ONE, PHASE_ROTATE, PHASE_ROWS, PHASE_COLUMNS };

static const char *const names[] = {"transpose in cache", "square tiles", "rows and columns"};

struct hl_intranspose {
    int solver;
    int64_t groups, m, n, es; /* es: bytes of one super-element */
    int64_t c, b;             /* gcd(m, n), n / c */
    int64_t tile;             /* square: tile side in elements */
    int64_t mid;              /* square: matrices interleaved in a group (rows mid * n apart) */
    int64_t band;             /* rows and columns: columns per band */
    int64_t row_item;         /* rows and columns: rows per task of the row pass */
    int32_t *inv0;            /* rows and columns: row 0's permutation, inverted (or NULL) */
    const hl_cpu_isa *isa;    /* the transposes' kernels (transpose.h), as the plan's copies */
    int nphases;
    int phase[3];
};

hl_status hl_intranspose_create(hl_intranspose **out, int64_t groups, int64_t rows, int64_t cols,
                                int64_t bytes, int64_t mid)
{
    hl_intranspose *t = calloc(1, sizeof *t);
    if (!t)
        return HL_ERR_NOMEM;
    *t = (hl_intranspose){.groups = groups, .m = rows, .n = cols, .es = bytes, .c = hl_gcd64(rows, cols),
                          .isa = hl_cpu_isa_current(), .mid = mid > 1 ? mid : 1};
    t->b = cols / t->c;
    if (t->mid > 1 && rows != cols) {
        free(t);
        return HL_ERR_ARG;
    }
    if (t->mid == 1 && rows * cols * bytes <= IN_CACHE) {
        t->solver = SOLVER_IN_CACHE;
    } else if (rows == cols) {
        t->solver = SOLVER_SQUARE;
        t->tile = bytes < TILE_BYTES ? TILE_BYTES / bytes : 1;
    } else {
        t->solver = SOLVER_ROWS_COLS;
        t->band = bytes < BAND_BYTES ? BAND_BYTES / bytes : 1;
        if (t->band > cols)
            t->band = cols;
        t->row_item = cols * bytes < ROW_ITEM_BYTES ? ROW_ITEM_BYTES / (cols * bytes) : 1;
        if (cols <= MAX_TABLE && !(t->inv0 = malloc(sizeof *t->inv0 * (size_t)cols))) {
            free(t);
            return HL_ERR_NOMEM;
        }
        if (t->inv0) { /* column (j m + (j div b) mod m) mod n receives row 0's column j */
            int64_t to = 0, q = 0, jr = 0;
            const int64_t step = rows % cols;
            for (int64_t j = 0; j < cols; j++) {
                int64_t x = to + q % rows; /* q < c <= m: q % rows is q */
                t->inv0[x % cols] = (int32_t)j;
                to += step;
                to = to >= cols ? to - cols : to;
                if (++jr == t->b) {
                    jr = 0;
                    q++;
                }
            }
        }
    }
    if (t->solver != SOLVER_ROWS_COLS) {
        t->phase[t->nphases++] = PHASE_ONE;
    } else {
        if (t->c > 1)
            t->phase[t->nphases++] = PHASE_ROTATE;
        t->phase[t->nphases++] = PHASE_ROWS;
        t->phase[t->nphases++] = PHASE_COLUMNS;
    }
    *out = t;
    return HL_OK;
}

void hl_intranspose_destroy(hl_intranspose *t)
{
    if (t)
        free(t->inv0);
    free(t);
}

int hl_intranspose_phases(const hl_intranspose *t) { return t->nphases; }

const char *hl_intranspose_name(const hl_intranspose *t) { return names[t->solver]; }

void hl_intranspose_shape(const hl_intranspose *t, int64_t *rows, int64_t *cols, int64_t *mid)
{
    *rows = t->m;
    *cols = t->n;
    *mid = t->mid;
}

/* Where the column pass's two tables start in a worker's buffer: after the
 * band, on an 8-byte boundary (the band's bytes need not be a multiple of 8). */
static int64_t tables_at(int64_t rows, int64_t w, int64_t es) { return (rows * w * es + 7) / 8 * 8; }

int64_t hl_intranspose_buffer(const hl_intranspose *t)
{
    switch (t->solver) {
    case SOLVER_IN_CACHE: return t->m * t->n * t->es;
    case SOLVER_SQUARE: return 2 * t->tile * t->tile * t->es;
    default: { /* a row, or a band and its two tables of m entries */
        const int64_t row = t->n * t->es, band = tables_at(t->m, t->band, t->es) + 16 * t->m;
        return row > band ? row : band;
    }
    }
}

/* ---- kernels, specialised for the common element sizes ------------------- */

/* The kernels take the element size as their last argument and are inlined
 * into a switch on it, so that each copy of an element is one move. */
#define KERNEL static inline __attribute__((always_inline))

#define DISPATCH(es, call)                                                                         \
    switch (es) {                                                                                  \
    case 1: call(1); break;                                                                        \
    case 2: call(2); break;                                                                        \
    case 4: call(4); break;                                                                        \
    case 8: call(8); break;                                                                        \
    case 12: call(12); break;                                                                      \
    case 16: call(16); break;                                                                      \
    default: call(es);                                                                             \
    }

/* d[k * dld + i] = s[i * sld + k] for i < rows, k < cols (in elements of
 * es bytes), in blocks so that both sides stay in L1. */
KERNEL void transpose_k(char *d, int64_t dld, const char *s, int64_t sld, int64_t rows,
                        int64_t cols, const int64_t es)
{
    enum { B = 16 };
    for (int64_t k0 = 0; k0 < cols; k0 += B) {
        const int64_t k1 = k0 + B < cols ? k0 + B : cols;
        for (int64_t i0 = 0; i0 < rows; i0 += B) {
            const int64_t i1 = i0 + B < rows ? i0 + B : rows;
            for (int64_t k = k0; k < k1; k++)
                for (int64_t i = i0; i < i1; i++)
                    memcpy(d + (k * dld + i) * es, s + (i * sld + k) * es, (size_t)es);
        }
    }
}

/* Elements of 4, 8 and 16 bytes through the copy engine's register
 * transposes (transpose.h), in blocks of up to 64 rows x 256 columns whose
 * tables fit the stack; plain stores, since the data stays in cache. */
static void transpose(const hl_intranspose *t, char *d, int64_t dld, const char *s, int64_t sld,
                      int64_t rows, int64_t cols, int64_t es)
{
    if (es != 4 && es != 8 && (es != 16 || !t->isa->cells16)) {
#define CALL(E) transpose_k(d, dld, s, sld, rows, cols, E)
        DISPATCH(es, CALL)
#undef CALL
        return;
    }
    enum { ROWS = 64, COLS = 256 };
    const char *row[ROWS];
    int64_t dtab[COLS];
    for (int64_t k0 = 0; k0 < cols; k0 += COLS) {
        const int64_t kc = cols - k0 < COLS ? cols - k0 : COLS;
        for (int64_t k = 0; k < kc; k++)
            dtab[k] = k * dld;
        for (int64_t i0 = 0; i0 < rows; i0 += ROWS) {
            const int64_t ic = rows - i0 < ROWS ? rows - i0 : ROWS;
            for (int64_t i = 0; i < ic; i++)
                row[i] = s + ((i0 + i) * sld + k0) * es;
            hl_transpose_block(t->isa, d + (k0 * dld + i0) * es, dtab, row, ic, kc, 1, false, es);
        }
    }
}

/* rows x w elements at s (row stride sld) into the contiguous d.  Rows far
 * apart are a new page each, where no hardware prefetcher follows: the rows
 * PREFETCH_ROWS ahead are asked for explicitly, into L2 (1.13-1.2x against
 * non-temporal requests for square tiles of 512 x 512 float32; 8, 32 and
 * 64 rows ahead were slower than 16). */
enum { PREFETCH_ROWS = 16 };
static void gather_band(char *d, const char *s, int64_t sld, int64_t rows, int64_t w, int64_t es)
{
    const int64_t bytes = w * es;
    for (int64_t r = 0; r < rows; r++) {
        if (r + PREFETCH_ROWS < rows)
            for (int64_t o = 0; o < bytes; o += 64)
                __builtin_prefetch(s + ((r + PREFETCH_ROWS) * sld) * es + o, 0, 2);
        memcpy(d + r * bytes, s + r * sld * es, (size_t)bytes);
    }
}

/* ---- transpose in cache --------------------------------------------------- */

static void in_cache(const hl_intranspose *t, char *a, int64_t g, char *buf)
{
    const int64_t bytes = t->m * t->n * t->es;
    char *mat = a + g * bytes;
    memcpy(buf, mat, (size_t)bytes);
    transpose(t, mat, t->m, buf, t->n, t->m, t->n, t->es);
}

/* ---- square tiles ------------------------------------------------------------ */

/* Tile row I of matrix g (mid of them a group, interleaved): tile (I, J)
 * and tile (J, I) exchange, transposed, for every J >= I. */
static void square_row(const hl_intranspose *t, char *a, int64_t g, int64_t I, char *buf)
{
    const int64_t n = t->n, T = t->tile, es = t->es, ld = t->mid * n;
    char *mat = a + (g / t->mid * n * ld + g % t->mid * n) * es, *ba = buf, *bb = buf + T * T * es;
    const int64_t ti = n - I * T < T ? n - I * T : T;
    for (int64_t J = I; J * T < n; J++) {
        const int64_t tj = n - J * T < T ? n - J * T : T;
        char *ij = mat + (I * T * ld + J * T) * es, *ji = mat + (J * T * ld + I * T) * es;
        gather_band(ba, ij, ld, ti, tj, es);
        if (J == I) {
            transpose(t, ij, ld, ba, tj, ti, tj, es);
            continue;
        }
        gather_band(bb, ji, ld, tj, ti, es);
        transpose(t, ji, ld, ba, tj, ti, tj, es);
        transpose(t, ij, ld, bb, ti, tj, ti, es);
    }
}

/* ---- rows and columns ---------------------------------------------------------- */

/* R on the band of columns [c0, c0 + w) of one matrix: runs of columns with
 * the same rotation (j div b constant) are copied as runs. */
static void rotate_band(const hl_intranspose *t, char *mat, int64_t c0, int64_t w, char *buf)
{
    const int64_t m = t->m, n = t->n, b = t->b, es = t->es;
    gather_band(buf, mat + c0 * es, n, m, w, es);
    for (int64_t lo = 0; lo < w;) {
        const int64_t q = (c0 + lo) / b;
        int64_t hi = (q + 1) * b - c0;
        hi = hi < w ? hi : w;
        const int64_t shift = q % m;
        for (int64_t r = 0; r < m; r++) {
            const int64_t from = r + shift < m ? r + shift : r + shift - m;
            memcpy(mat + (r * n + c0 + lo) * es, buf + (from * w + lo) * es, (size_t)((hi - lo) * es));
        }
        lo = hi;
    }
}

/* S on rows [r0, r1) of one matrix: each row scattered into buf, copied back. */
KERNEL void rows_k(const hl_intranspose *t, char *mat, int64_t r0, int64_t r1, char *buf,
                   const int64_t es)
{
    const int64_t m = t->m, n = t->n, b = t->b, step = m % n;
    for (int64_t i = r0; i < r1; i++) {
        char *row = mat + i * n * es;
        int64_t jm = 0, jr = 0, i0 = i, i0n = i % n; /* j m mod n, j mod b, i0, i0 mod n */
        for (int64_t j = 0; j < n; j++) {
            int64_t to = jm + i0n;
            to = to >= n ? to - n : to;
            memcpy(buf + to * es, row + j * es, (size_t)es);
            jm += step;
            jm = jm >= n ? jm - n : jm;
            if (++jr == b) {
                jr = 0;
                if (++i0 == m)
                    i0 = i0n = 0;
                else if (++i0n == n)
                    i0n = 0;
            }
        }
        memcpy(row, buf, (size_t)(n * es));
    }
}

/* S as a gather through row 0's table.  Row i's permutation is row 0's
 * shifted by i, c'_i(j) = (c'_0(j) + i) mod n, for the columns j whose
 * source row i + j div b has not wrapped past m, i.e. j < (m - i) b; for
 * the others it is shifted by i - m.  So column x of the new row is old
 * column inv0[x - i], unless that one wrapped: then inv0[x - i + m]. */
KERNEL void rows_table_k(const hl_intranspose *t, char *mat, int64_t r0, int64_t r1, char *buf,
                         const int64_t es)
{
    const int64_t m = t->m, n = t->n, mn = m % n;
    const int32_t *inv = t->inv0;
    for (int64_t i = r0; i < r1; i++) {
        char *row = mat + i * n * es;
        const int64_t lim = (m - i) * t->b;
        memcpy(buf, row, (size_t)(n * es));
        int64_t y = (n - i % n) % n, y2 = y + mn >= n ? y + mn - n : y + mn;
        if ((es == 4 || es == 8) && t->isa->gather && lim >= n) {
            /* no column wrapped: the table rotated by y, in two runs */
            t->isa->gather(row, buf, inv + y, n - y, es);
            t->isa->gather(row + (n - y) * es, buf, inv, y, es);
            continue;
        }
        for (int64_t x = 0; x < n; x++) {
            int64_t j = inv[y];
            j = j < lim ? j : inv[y2];
            memcpy(row + x * es, buf + j * es, (size_t)es);
            y = y + 1 == n ? 0 : y + 1;
            y2 = y2 + 1 == n ? 0 : y2 + 1;
        }
    }
}

static void rows_pass(const hl_intranspose *t, char *mat, int64_t r0, int64_t r1, char *buf)
{
#define CALL(E) rows_k(t, mat, r0, r1, buf, E)
#define CALL_TABLE(E) rows_table_k(t, mat, r0, r1, buf, E)
    if (t->inv0) {
        DISPATCH(t->es, CALL_TABLE)
    } else {
        DISPATCH(t->es, CALL)
    }
#undef CALL
#undef CALL_TABLE
}

/* From row r to row r + 1 of a band l grows by n = dq m + dr: i0 = l mod m
 * by dr, with a carry, and j div b, j mod b by the quotient. */
KERNEL void next_row(int64_t *i0, int64_t *jr, int64_t *q, int64_t dr, int64_t dq, int64_t m,
                     int64_t b)
{
    int64_t inc = dq;
    if ((*i0 += dr) >= m) {
        *i0 -= m;
        inc++;
    }
    *jr += inc;
    while (*jr >= b) { /* inc <= b + 1 (b = n / c >= n / m): at most twice */
        *jr -= b;
        (*q)++;
    }
}

/* C on the band of columns [c0, c0 + w) of one matrix.  For the cell
 * (r, c') the state of l = r n + c' is kept as i0 = l mod m, j div b and
 * j mod b; along a row of the band l grows by one, so the source rows of
 * consecutive columns are consecutive (a diagonal of the band) until i0
 * wraps; from one row to the next l grows by n. */
KERNEL void columns_k(const hl_intranspose *t, char *mat, int64_t c0, int64_t w, char *buf,
                      const int64_t es)
{
    const int64_t m = t->m, n = t->n, b = t->b;
    const int64_t dr = n % m, dq = n / m;
    gather_band(buf, mat + c0 * es, n, m, w, es);
    int64_t i0 = c0 % m, q = c0 / m / b, jr = c0 / m % b;
    for (int64_t r = 0; r < m; r++) {
        char *row = mat + (r * n + c0) * es;
        int64_t k0 = i0, kq = q, kr = jr;
        for (int64_t cc = 0; cc < w; cc++) {
            const int64_t i1 = k0 - kq < 0 ? k0 - kq + m : k0 - kq;
            memcpy(row + cc * es, buf + (i1 * w + cc) * es, (size_t)es);
            if (++k0 == m) {
                k0 = 0;
                if (++kr == b) {
                    kr = 0;
                    kq++;
                }
            }
        }
        next_row(&i0, &jr, &q, dr, dq, m, b);
    }
}

/* C when the band is no wider than the matrix is tall, by diagonals.  Along
 * a row r of the band the source rows run i1, i1 + 1, ... (mod m), less one
 * from the column where i0 wraps past m if j div b then grows (at most once:
 * w <= m).  Taking the rows in the order of their i1 (a table inverted in a
 * first sweep), consecutive rows read consecutive diagonals of the buffer,
 * which share their lines: the buffer is read from L1, however tall. */
KERNEL void columns_diag_k(const hl_intranspose *t, char *mat, int64_t c0, int64_t w, char *buf,
                           const int64_t es)
{
    const int64_t m = t->m, n = t->n, b = t->b;
    const int64_t dr = n % m, dq = n / m;
    int64_t *inv = (int64_t *)(void *)(buf + tables_at(m, w, es)), *brk = inv + m;
    gather_band(buf, mat + c0 * es, n, m, w, es);
    int64_t i0 = c0 % m, q = c0 / m / b, jr = c0 / m % b;
    for (int64_t r = 0; r < m; r++) {
        const int64_t i1 = i0 - q < 0 ? i0 - q + m : i0 - q;
        inv[i1] = r;
        brk[i1] = m - i0 < w && jr + 1 == b ? m - i0 : w;
        next_row(&i0, &jr, &q, dr, dq, m, b);
    }
    const int64_t bytes = w * es;
    for (int64_t s = 0; s < m; s++) {
        /* the rows are written in no order: their lines are asked for ahead,
         * or every store would wait for its line */
        if (s + PREFETCH_ROWS < m)
            for (int64_t o = 0; o < bytes; o += 64)
                __builtin_prefetch(mat + (inv[s + PREFETCH_ROWS] * n + c0) * es + o, 1, 3);
        /* and the buffer rows the diagonals reach next (its lines were
         * evicted from L2 while the band was gathered) */
        const int64_t ahead = s + w + PREFETCH_ROWS / 2;
        for (int64_t o = 0; o < bytes; o += 64)
            __builtin_prefetch(buf + ahead % m * bytes + o, 0, 3);
        char *row = mat + (inv[s] * n + c0) * es;
        const int64_t k = brk[s];
        int64_t src = s;
        for (int64_t cc = 0; cc < w; cc++) {
            if (cc == k)
                src = src == 0 ? m - 1 : src - 1;
            memcpy(row + cc * es, buf + (src * w + cc) * es, (size_t)es);
            src = src + 1 == m ? 0 : src + 1;
        }
    }
}

static void columns_pass(const hl_intranspose *t, char *mat, int64_t c0, int64_t w, char *buf)
{
#define CALL(E) columns_k(t, mat, c0, w, buf, E)
#define CALL_DIAG(E) columns_diag_k(t, mat, c0, w, buf, E)
    if (w <= t->m) {
        DISPATCH(t->es, CALL_DIAG)
    } else {
        DISPATCH(t->es, CALL)
    }
#undef CALL
#undef CALL_DIAG
}

/* ---- phases and items ----------------------------------------------------------- */

static int64_t bands(const hl_intranspose *t) { return (t->n + t->band - 1) / t->band; }

static int64_t phase_items(const hl_intranspose *t, int ph)
{
    switch (t->phase[ph]) {
    case PHASE_ONE:
        return t->solver == SOLVER_IN_CACHE ? t->groups : t->groups * t->mid * ((t->n + t->tile - 1) / t->tile);
    case PHASE_ROWS: return t->groups * ((t->m + t->row_item - 1) / t->row_item);
    default: return t->groups * bands(t);
    }
}

static void run_item(const hl_intranspose *t, int ph, int64_t item, char *a, char *buf)
{
    const int64_t mat_bytes = t->m * t->n * t->es;
    switch (t->phase[ph]) {
    case PHASE_ONE:
        if (t->solver == SOLVER_IN_CACHE) {
            in_cache(t, a, item, buf);
        } else {
            const int64_t nt = (t->n + t->tile - 1) / t->tile;
            square_row(t, a, item / nt, item % nt, buf);
        }
        break;
    case PHASE_ROWS: {
        const int64_t per = (t->m + t->row_item - 1) / t->row_item, g = item / per;
        const int64_t r0 = item % per * t->row_item;
        const int64_t r1 = r0 + t->row_item < t->m ? r0 + t->row_item : t->m;
        rows_pass(t, a + g * mat_bytes, r0, r1, buf);
        break;
    }
    default: {
        const int64_t nb = bands(t), g = item / nb, c0 = item % nb * t->band;
        const int64_t w = c0 + t->band < t->n ? t->band : t->n - c0;
        if (t->phase[ph] == PHASE_ROTATE)
            rotate_band(t, a + g * mat_bytes, c0, w, buf);
        else
            columns_pass(t, a + g * mat_bytes, c0, w, buf);
    }
    }
}

void hl_intranspose_run(const hl_intranspose *t, char *a, const hl_exec_ctx *ctx, char *buf,
                        int64_t stride)
{
    if (ctx->team == 0) {
        if (t->nphases == 1) {
            const int64_t items = phase_items(t, 0);
            for (int64_t it = items * ctx->share / ctx->shares;
                 it < items * (ctx->share + 1) / ctx->shares; it++)
                run_item(t, 0, it, a, buf);
        } else if (ctx->share == 0) { /* the passes need each other whole */
            for (int ph = 0; ph < t->nphases; ph++)
                for (int64_t it = 0; it < phase_items(t, ph); it++)
                    run_item(t, ph, it, a, buf);
        }
        return;
    }
    const bool small = t->groups * t->mid * t->m * t->n * t->es < SMALL_BYTES;
    const int use = small ? 1 : ctx->team;
#pragma omp parallel num_threads(use)
    {
        char *mine = buf + omp_get_thread_num() * stride;
        for (int ph = 0; ph < t->nphases; ph++) {
            const int64_t items = phase_items(t, ph);
#pragma omp for schedule(dynamic, 1)
            for (int64_t it = 0; it < items; it++)
                run_item(t, ph, it, a, mine);
        }
    }
}
