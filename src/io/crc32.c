/* hyperlayout — CRC-32 (ISO-HDLC, zlib's and zip's: polynomial 0xEDB88320
 * reflected, initial and final XOR 0xFFFFFFFF), slicing by 8: eight tables
 * let each step fold in eight bytes with eight independent lookups, several
 * times faster than a byte at a time.  The tables are computed once, on
 * first use (pthread_once: no global state anyone can observe changing). */
#define _XOPEN_SOURCE 700 /* pthread_once */

#include "hyperlayout/npz.h"

#include <pthread.h>
#include <stdbool.h>
#include <string.h>

static uint32_t table[8][256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void build_tables(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        table[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int t = 1; t < 8; t++)
            table[t][i] = (table[t - 1][i] >> 8) ^ table[0][table[t - 1][i] & 0xFF];
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define HAVE_FOLDING 1

/* Carry-less multiplication folding (Gopal et al., Intel, "Fast CRC
 * Computation for Generic Polynomials Using PCLMULQDQ", 2009): four 128-bit
 * lanes carry the running remainder over 64-byte blocks, each step
 * multiplying a lane's halves by x^(512+-64) mod P and adding the next
 * block, then one lane, 64 bits and a Barrett reduction give the CRC; about
 * ten times the tables' speed, so that checking an archive member costs
 * little next to reading it.  The constants are those of the reflected
 * polynomial 0xEDB88320 (P' = 0x1DB710641) in the paper's notation:
 * k1, k2 fold by 512 bits, k3, k4 by 128, k5 from 96 to 64 bits, mu is
 * floor(x^64 / P).  c is the pre-inverted register; n >= 64, and the bytes
 * folded are n rounded down to 16: *done gets how many. */
__attribute__((target("pclmul,sse4.1"))) static uint32_t fold(uint32_t c, const unsigned char *p,
                                                              size_t n, size_t *done)
{
    const __m128i k1k2 = _mm_set_epi64x(0x1c6e41596, 0x154442bd4);
    const __m128i k3k4 = _mm_set_epi64x(0x0ccaa009e, 0x1751997d0);
    const __m128i k5 = _mm_set_epi64x(0, 0x163cd6124);
    const __m128i pmu = _mm_set_epi64x(0x1f7011641, 0x1db710641);
    const __m128i low32 = _mm_set_epi32(0, -1, 0, -1);
    const unsigned char *const start = p;
    __m128i lane[4];
    for (int i = 0; i < 4; i++)
        lane[i] = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * i));
    lane[0] = _mm_xor_si128(lane[0], _mm_cvtsi32_si128((int)c));
    p += 64;
    n -= 64;
    for (; n >= 64; p += 64, n -= 64)
        for (int i = 0; i < 4; i++) {
            const __m128i next = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * i));
            lane[i] = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(lane[i], k1k2, 0x00),
                                                  _mm_clmulepi64_si128(lane[i], k1k2, 0x11)),
                                    next);
        }
    /* the four lanes into one, then the remaining 16-byte blocks */
    __m128i x = lane[0];
    for (int i = 1; i < 4; i++)
        x = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k3k4, 0x00),
                                        _mm_clmulepi64_si128(x, k3k4, 0x11)), lane[i]);
    for (; n >= 16; p += 16, n -= 16)
        x = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k3k4, 0x00),
                                        _mm_clmulepi64_si128(x, k3k4, 0x11)),
                          _mm_loadu_si128((const __m128i *)(const void *)p));
    /* 128 bits to 96, to 64 */
    x = _mm_xor_si128(_mm_srli_si128(x, 8), _mm_clmulepi64_si128(x, k3k4, 0x10));
    x = _mm_xor_si128(_mm_srli_si128(x, 4), _mm_clmulepi64_si128(_mm_and_si128(x, low32), k5, 0x00));
    /* Barrett: q = floor(x / P) by mu, then x - q P */
    __m128i q = _mm_and_si128(_mm_clmulepi64_si128(_mm_and_si128(x, low32), pmu, 0x10), low32);
    x = _mm_xor_si128(x, _mm_clmulepi64_si128(q, pmu, 0x00));
    *done = (size_t)(p - start);
    return (uint32_t)_mm_extract_epi32(x, 1);
}

static bool can_fold;

static void choose(void)
{
    build_tables();
    __builtin_cpu_init();
    can_fold = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
}
#else
static void choose(void) { build_tables(); }
#endif

uint32_t hl_crc32(uint32_t crc, const void *buf, size_t n)
{
    if (!buf)
        return crc;
    (void)pthread_once(&once, choose);
    const unsigned char *p = buf;
    uint32_t c = ~crc;
#ifdef HAVE_FOLDING
    if (can_fold && n >= 64) {
        size_t done;
        c = fold(c, p, n, &done);
        p += done;
        n -= done;
    }
#endif
    while (n >= 8) {
        uint32_t lo, hi;
        memcpy(&lo, p, 4);
        memcpy(&hi, p + 4, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        lo = __builtin_bswap32(lo);
        hi = __builtin_bswap32(hi);
#endif
        lo ^= c;
        c = table[7][lo & 0xFF] ^ table[6][(lo >> 8) & 0xFF] ^ table[5][(lo >> 16) & 0xFF] ^
            table[4][lo >> 24] ^ table[3][hi & 0xFF] ^ table[2][(hi >> 8) & 0xFF] ^
            table[1][(hi >> 16) & 0xFF] ^ table[0][hi >> 24];
        p += 8;
        n -= 8;
    }
    while (n--)
        c = table[0][(c ^ *p++) & 0xFF] ^ (c >> 8);
    return ~c;
}
