/* hyperlayout internal — the planners' side of wisdom (wisdom.h): looking a
 * box's problem up, and recording what measuring chose. */
#ifndef HYPERLAYOUT_WISDOM_INTERNAL_H
#define HYPERLAYOUT_WISDOM_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "hyperlayout/wisdom.h"

enum { HL_WISDOM_ISA_MAX = 15, HL_WISDOM_DIGITS_MAX = 64 };

/* The problem of one register-transpose box (wisdom.h): digits as sorted by
 * the planner. */
typedef struct hl_wisdom_key {
    const char *isa;
    int64_t elem_size;
    int threads;
    bool stream;
    int ndigits;
    const int64_t *ext, *src_stride, *dst_stride;
} hl_wisdom_key;

/* Whether the wisdom holds key; if so *columns gets the recorded value. */
bool hl_wisdom_lookup(const hl_wisdom_key *key, int64_t *columns);

/* Records (or replaces) key -> columns.  HL_ERR_ARG for a key or value the
 * text format could not carry, HL_ERR_NOMEM. */
hl_status hl_wisdom_record(const hl_wisdom_key *key, int64_t columns);

/* The problem of a choice between running two consecutive passes of a
 * plan as they are or composed into one (plan_stages.c): the canonical
 * hash of the steps they cover (problem.h), the element size, the threads
 * and the ISA. */
typedef struct hl_wisdom_chain_key {
    const char *isa;
    int64_t elem_size;
    int threads;
    uint64_t problem;
} hl_wisdom_chain_key;

bool hl_wisdom_lookup_compose(const hl_wisdom_chain_key *key, bool *merge);
hl_status hl_wisdom_record_compose(const hl_wisdom_chain_key *key, bool merge);

/* The problem of a device executor's choice for a plan's boxes (the CUDA
 * executor: which transposes go through tiles): the device's architecture
 * ("sm90"), the element size and the hash of the IR's boxes
 * (hl_ir_boxes_hash). */
typedef struct hl_wisdom_device_key {
    const char *arch;
    int64_t elem_size;
    uint64_t boxes;
} hl_wisdom_device_key;

/* The value: the shortest run, in bytes, of a transpose that goes through
 * tiles (0: none does), 0 to HL_WISDOM_TILES_MAX. */
enum { HL_WISDOM_TILES_MAX = 65536 };
bool hl_wisdom_lookup_device(const hl_wisdom_device_key *key, int64_t *tiles);
hl_status hl_wisdom_record_device(const hl_wisdom_device_key *key, int64_t tiles);

#endif
