/* hyperlayout internal — what the copy kernel's planning (copy.c) shares
 * with the running of its planes (copy_run.c) and with its measuring of
 * register transposes' columns (measure.c): the prepared box, a solver's
 * row, what a box is planned for, and the planner's steps that measuring
 * replays on its candidates. */
#ifndef HYPERLAYOUT_CPU_COPY_INTERNAL_H
#define HYPERLAYOUT_CPU_COPY_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "copy.h"
#include "rowgroup.h"
#include "regtranspose.h"
#include "core/intmath.h"

enum {
    WORK_DIGITS = HL_BOX_MAX_DIGITS + 2, /* a box's digits and two chunk counters */
    STAGE_BYTES = 1 << 16, /* one staging buffer (x2 per thread) */
    MIN_RUN_BYTES = 64,    /* a transpose's output run fills a line at least; a row is
                              streamed from this long */
    TR_ROWS_MAX = 256,     /* the most rows of a transpose plane */
    TR_ROW_BYTES_MAX = 512, /* ... the output run of a plane's column: the longest tried */
    TR_COL_BYTES = 16384,  /* ... the source run of a plane's row */
};

typedef struct copy_solver copy_solver;

/* One box's part of a group's run: cells at src_off/dst_off plus digits
 * (sorted by |dst stride|, written forwards); dst_off counts from the run's
 * first cell. */
typedef struct member {
    int n;
    int halves; /* > 0: this row and member `halves` are a crinkle's two halves (one read);
                   < 0: the other half of such a pair */
    bool split; /* its two rows (digit 1, of 2) are a crinkle's halves (one read) */
    int64_t src_off, dst_off;
    int64_t ext[HL_ROW_GROUP_ROW_DIGITS], ss[HL_ROW_GROUP_ROW_DIGITS], ds[HL_ROW_GROUP_ROW_DIGITS];
} member;

typedef struct {
    const copy_solver *solver; /* the row of copy.c's tables that took the box */
    int n;     /* digits; 0..inner-1 form the plane, inner..n-1 are outer */
    int inner;
    int64_t *ext, *ss, *ds; /* n each, in one allocation at ext */
    int64_t src_base, dst_base;
    int64_t es; /* bytes of the box's cells: the array's, or several of them (widen_cells) */
    int64_t planes, plane_cells; /* outer cells, nominal cells per plane */
    /* short-row blocks: block cells in entries of row_len cells (along digit 0) at src
     * offsets stab[] and dst offsets dtab[] (dense: j * row_len) */
    int64_t block, row_len; /* cells; cells per table entry (1, or a row of digit 0) */
    int64_t cut; /* rows, blocks: > 0 when the plane's last digit is cut into chunks of
                    this many (the chunk counter is then outer digit `inner`) */
    bool dense;
    int64_t ways; /* rows: rows taken from one read of the source (rows.h): 2, a crinkle's
                     halves (stride +-2), or 3 or 4 interleaved channels, along digit 1;
                     1: one row */
    bool short_rows; /* rows of 8, 16, 32, 64 or 128 bytes contiguous on both sides */
    hl_pairs pairs;  /* ... of 8 or 16 bytes taken in pairs (steps 0: not) */
    /* register transpose: the plane is a rows x cols matrix; row a is read at src
     * offset stab[a] with src stride sdir (+1 or -1), column b written
     * forwards at dst offset dtab[b].  The last src and dst digits of the
     * plane are cut into chunks: outer digits `inner` and `inner+1` count
     * the chunks (columns first), and a partial chunk uses a prefix of the
     * tables.  `lines`: every dtab[b] starts a line when the plane does. */
    int64_t rows_in, row_chunk, row_last; /* rows = rows_in * chunk of digit row_last */
    int64_t cols_in, col_chunk, col_last;
    int64_t sdir;
    int64_t *stab, *dtab;
    bool lines;
    /* the row chunks may start `s` rows early (s < row_chunk, set per run
     * by the output's place relative to a line), so that a buffer off line
     * boundaries still gets whole lines: the row counter has one chunk more */
    bool shift;
    bool src_lines; /* every stab[a] starts a line when the plane's first row does */
    bool one_run;   /* a whole plane writes one contiguous run (a whole matrix) */
    const char *chosen; /* the plane's shape by "measured" or "wisdom"; NULL: the cost model */
    /* row groups: the members' parts of a run, at offsets from the plane's */
    int nmem;
    struct member *mem;
    int64_t run_cells;
    /* Lookahead: the source of the plane `ahead` planes on is requested
     * while this one is copied (0: not) — a group's or a lane-permute
     * plane's span from span_lo (cells; span_ahead), a block's or a
     * transpose's npf cells at ptab (one per source line) */
    int64_t ahead;
    int64_t span_lo, span_bytes;
    bool staged; /* row groups: runs assembled in the stage when streaming; transpose: whole
                    columns that do not start lines, staged a strip at a time */
    int64_t *ptab, npf;
    /* ... and the same lines where the source's planes start on lines
     * (lined: every outer source stride a multiple of 64 bytes), each line
     * of a run requested once (Morton's runs of 32 bytes: half the
     * requests, 1.0-1.05x) */
    int64_t *ptab_lined, npf_lined;
    bool lined;
    bool span_ahead;
    bool pf_l2; /* the lines requested into the L2 only (a block's: their sets have room;
                   a lane-permute plane's span: its loads then wait on the L2) */
    bool can_lanes; /* the level has lane permutes, and the cells are whole lanes */
    bool edges;     /* the level's transposes have masked row edges (regtranspose.h) */
    bool can_halves;   /* the level has a kernel for a crinkle's two halves, for these cells */
    bool can_channels; /* ... and for 3 or 4 interleaved channels */
    bool can_pairs;    /* ... and for short rows loaded in pairs */
    hl_lanes lanes; /* lane permutes: the plane's table */
} kbox;

struct hl_copy {
    int64_t nboxes, es, cells;
    bool stream;
    const hl_cpu_isa *isa;
    kbox *box;
};

/* What a box is planned for (hl_copy_create). */
typedef struct plan_ctx {
    int64_t es, cells;
    bool stream;
    int threads; /* the team hl_execute starts (0 in the options resolved) */
    int effort;  /* HL_EFFORT_* */
    const hl_cpu_isa *isa;
} plan_ctx;

/* One plane at out / in: d the outer digits' counters, `next` the offset in
 * bytes of the next plane's source to request while copying (0: none, or
 * the lookahead requests it), stage the thread's staging buffer where
 * streaming. */
typedef void copy_plane_fn(const kbox *k, const int64_t *d, char *out, const char *in, int64_t es,
                           bool stream, char *stage, int64_t next, const hl_cpu_isa *isa);

/* A solver: one row of copy.c's tables, which says whether it takes a box
 * and plans its planes, copies a plane, and says what it chose. */
struct copy_solver {
    const char *name;
    /* Whether it takes the box (k loaded: its digits sorted and merged, or
     * a row group's members), and if so its planes are planned (*st: an
     * error). */
    bool (*plan)(kbox *k, const plan_ctx *pc, hl_status *st);
    copy_plane_fn *run; /* copy_run.c's runner of its planes */
    /* Appends what it chose beyond the box's digits (the --explain line,
     * hl_appendf's convention); returns the characters added or needed. */
    size_t (*describe)(const hl_copy *c, const kbox *k, char *buf, size_t size, size_t used);
};

/* copy_run.c's plane runners: a cell; a register transpose; a lane-permute
 * plane (a box's or a row group's); a block of short rows; a row (or rows
 * from one read); a row group's run member by member. */
copy_plane_fn hl_copy_run_cell, hl_copy_run_transpose, hl_copy_run_lanes, hl_copy_run_block,
    hl_copy_run_rows, hl_copy_run_group;

/* The register transpose's row (measure.c's, which runs its candidates
 * through it). */
extern const copy_solver hl_copy_register_transpose_solver;


/* copy.c's planning steps that measuring replays on its candidates: */

void hl_copy_free_tables(kbox *k);
void hl_copy_free_kbox(kbox *k);
hl_status hl_copy_keep_digits(kbox *k, int64_t (*work)[WORK_DIGITS]);

/* The output runs of a plane's columns the planner chooses among, longest
 * first; returns how many (at most TR_SIZES_MAX). */
enum { TR_SIZES_MAX = 4 };
int hl_copy_transpose_sizes(const kbox *k, int64_t es, int64_t *sizes);

/* A register transpose whose columns are taken up to `bytes`; false where
 * the box is no transpose. */
bool hl_copy_plan_transpose_columns(kbox *k, int64_t es, int64_t bytes, hl_status *st);

/* The cost model's register transpose (the solver "register transpose"). */
bool hl_copy_plan_register_transpose(kbox *k, int64_t es, hl_status *st);

/* measure.c: the plane shape of a box the register transpose took, from
 * wisdom, or measured under HL_EFFORT_MEASURE (and recorded), else the cost
 * model's as planned.  `loaded`: the box before it was planned, its digits
 * then in `saved`. */
hl_status hl_copy_choose_columns(kbox *k, const kbox *loaded, int64_t (*saved)[WORK_DIGITS],
                                 const plan_ctx *pc);

#endif
