/* hyperlayout internal — pieces: the lowering's (lower.c) and the box
 * composition's (box_compose.c) one tool.  A piece is a box of sub-digits
 * (extents) and a few affine expressions over them (a constant and a weight
 * per sub-digit each); cutting a piece where an expression crosses a
 * threshold, or factoring its sub-digits where an expression's remainder by
 * a radix would carry, keeps every expression affine on each part. */
#ifndef HYPERLAYOUT_PIECES_H
#define HYPERLAYOUT_PIECES_H

#include <stdbool.h>
#include <stdint.h>

enum {
    HL_PIECE_SUBS = 32,  /* sub-digits of a piece, at most (more: the cut fails) */
    HL_PIECE_EXPRS = 6,  /* expressions of a piece: the caller's first four, then */
    HL_PIECE_T1 = 4,     /* ... two temporaries hl_piece_radix uses */
    HL_PIECE_T2 = 5,
    HL_PIECE_MOST = 4096 /* pieces of a list unless it says (hl_plist.most) */
};

typedef struct hl_piece {
    int n;
    int tag; /* which side of a threshold (hl_piece_threshold) */
    int64_t ext[HL_PIECE_SUBS];
    int64_t c[HL_PIECE_EXPRS];
    int64_t w[HL_PIECE_EXPRS][HL_PIECE_SUBS];
} hl_piece;

/* A growing list of pieces; fail once it could not grow (more than most,
 * or no memory) or a cut went too deep. */
typedef struct hl_plist {
    hl_piece *p;
    int64_t n, cap, most;
    bool fail;
} hl_plist;

void hl_piece_push(hl_plist *l, const hl_piece *p);

/* Range of expression e over the piece. */
void hl_piece_range(const hl_piece *p, int e, int64_t *lo, int64_t *hi);

/* Relabels the sub-digits of negative weight in e as ext-1-d. */
void hl_piece_make_positive(hl_piece *p, int e);

/* The part of p with sub-digit j in [start, start+len). */
hl_piece hl_piece_sub_range(const hl_piece *p, int j, int64_t start, int64_t len);

/* Splits sub-digit j (extent f*g) into a low digit of extent f and a high
 * one of extent g; false when p has no room for it. */
bool hl_piece_factor(hl_piece *p, int j, int64_t f);

/* dst = a*x + b*y + k, over constants and weights. */
void hl_piece_combine(hl_piece *p, int dst, int64_t a, int x, int64_t b, int y, int64_t k);

/* Appends the pieces of p tagged 0 where expression e < T and 1 where not. */
void hl_piece_threshold(hl_plist *out, hl_piece p, int e, int64_t T, int depth);

/* Appends the pieces of p on which HL_PIECE_T1 = (e mod R) is affine, for
 * e >= 0 (the quotient then follows from e and T1).  Past a depth of cuts
 * it fails: some compositions of radices that share no factor cut without
 * end (uncrinkle:0:9 then crinkle:0:7 of [206180] overflowed the stack). */
void hl_piece_radix(hl_plist *out, hl_piece p, int e, int64_t R, int depth);

#endif
