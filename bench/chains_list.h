/* The arrays and chains of ops the chain benchmarks time (bench_chains on
 * the CPU, bench_gpu_chains on the device), one list so that both time the
 * same chains.  Plain C, includable from C++ and CUDA. */
#ifndef HYPERLAYOUT_BENCH_CHAINS_LIST_H
#define HYPERLAYOUT_BENCH_CHAINS_LIST_H

#include <stddef.h>

typedef struct {
    const char *shape; /* the notation, NumPy order */
    const char *dtype;
    const char *chains[8]; /* the library's dimension numbering; NULL-terminated */
} bench_chain_array;

/* The chains of issue 32, written for each rank: permute:2,0,1 (a rotation
 * of the dimensions) becomes permute:1,0 and permute:3,0,1,2; the reversal
 * permute:2,1,0 becomes 1,0 and 3,2,1,0; shifts alternate +1, -1. */
#define BENCH_CHAINS2                                                                              \
    {"tile:8,8 permute:1,0", "tile:8,8 tile:2,2", "morton permute:1,0", "tile:8,8 flip:0",         \
     "tile:8,8 shift:1,-1", "tile:4,4 permute:1,0 crinkle:0:2", NULL}
#define BENCH_CHAINS3                                                                              \
    {"tile:8,8,8 permute:2,0,1", "tile:8,8,8 tile:2,2,2", "morton permute:1,0,2",                  \
     "tile:8,8,8 flip:0", "tile:8,8,8 shift:1,-1,1", "tile:4,4,4 permute:2,1,0 crinkle:0:2", NULL}
#define BENCH_CHAINS4                                                                              \
    {"tile:8,8,8,8 permute:3,0,1,2", "tile:8,8,8,8 tile:2,2,2,2", "morton permute:1,0,2,3",       \
     "tile:8,8,8,8 flip:0", "tile:8,8,8,8 shift:1,-1,1,-1",                                        \
     "tile:4,4,4,4 permute:3,2,1,0 crinkle:0:2", NULL}

#define BENCH_CHAIN_ARRAYS 3

/* 2^24 elements each */
static const bench_chain_array bench_chains_full[BENCH_CHAIN_ARRAYS] = {
    {"[256,256,256]", "float32", BENCH_CHAINS3},
    {"[4096,4096]", "float64", BENCH_CHAINS2},
    {"[64,64,64,64]", "float32", BENCH_CHAINS4},
};
/* --quick: 2^14 - 2^16 elements */
static const bench_chain_array bench_chains_small[BENCH_CHAIN_ARRAYS] = {
    {"[32,32,32]", "float32", BENCH_CHAINS3},
    {"[128,128]", "float64", BENCH_CHAINS2},
    {"[16,16,16,16]", "float32", BENCH_CHAINS4},
};

#endif
