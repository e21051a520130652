/* hyperlayout — .npz archives written: the local header of a member written
 * as a stream, and the deflater of np.savez_compressed's members (zlib). */
#include "hyperlayout/npz.h"
#include "zip.h"

#include <stdlib.h>
#include <string.h>

#ifdef HL_HAVE_ZLIB
#include <zlib.h>
#endif

/* ---- writing ------------------------------------------------------------------- */

hl_status hl_npz_format_local(const char *name, void *buf, size_t cap, size_t *len)
{
    return hl_npz_format_local_method(name, 0, buf, cap, len);
}

hl_status hl_npz_format_local_method(const char *name, int method, void *buf, size_t cap,
                                     size_t *len)
{
    char zn[HL_NPZ_NAME_MAX + 4];
    size_t nlen;
    if (!len || (!buf && cap > 0))
        return HL_ERR_NULL;
    hl_status st = hl_zip_name(name, zn, &nlen);
    if (st != HL_OK)
        return st;
    *len = hl_zip_local_len(nlen);
    if (cap < *len)
        return HL_ERR_BUFFER;
    unsigned char *p = buf;
    p = wr32(p, SIG_LOCAL);
    p = wr16(p, VERSION_ZIP64);
    p = wr16(p, FLAG_DESCRIPTOR);
    p = wr16(p, method == 8 ? 8 : 0); /* deflated or stored */
    p = wr16(p, 0);             /* time */
    p = wr16(p, DOS_DATE_1980); /* date */
    p = wr32(p, 0);             /* CRC: in the data descriptor */
    p = wr32(p, MAX32);         /* sizes: in the ZIP64 field, then the descriptor */
    p = wr32(p, MAX32);
    p = wr16(p, (uint32_t)nlen);
    p = wr16(p, 20);
    memcpy(p, zn, nlen);
    p += nlen;
    p = wr16(p, ZIP64_EXTRA_ID);
    p = wr16(p, 16);
    p = wr64(p, 0);
    wr64(p, 0);
    return HL_OK;
}

/* ---- deflating a member as it is written ------------------------------------ */

struct hl_npz_deflater {
#ifdef HL_HAVE_ZLIB
    z_stream s;
#endif
    unsigned char *buf; /* the compressed bytes of the last call */
    size_t cap;
};

hl_status hl_npz_deflater_open(hl_npz_deflater **out)
{
    if (!out)
        return HL_ERR_NULL;
    *out = NULL;
#ifdef HL_HAVE_ZLIB
    hl_npz_deflater *d = calloc(1, sizeof *d);
    if (!d)
        return HL_ERR_NOMEM;
    /* level 6 and raw deflate, as Python's zipfile writes np.savez_compressed */
    if (deflateInit2(&d->s, 6, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(d);
        return HL_ERR_NOMEM;
    }
    *out = d;
    return HL_OK;
#else
    return HL_ERR_UNSUPPORTED;
#endif
}

hl_status hl_npz_deflater_put(hl_npz_deflater *d, const void *in, size_t len, bool finish,
                              const void **out, size_t *out_len)
{
    if (!d || !out || !out_len || (!in && len > 0))
        return HL_ERR_NULL;
#ifdef HL_HAVE_ZLIB
    size_t done = 0;
    const unsigned char *p = in;
    for (;;) {
        /* in pieces zlib's 32-bit counts can hold */
        const uInt part = len - (size_t)(p - (const unsigned char *)in) > (1u << 30)
                              ? (1u << 30)
                              : (uInt)(len - (size_t)(p - (const unsigned char *)in));
        const bool last = (size_t)(p - (const unsigned char *)in) + part == len;
        d->s.next_in = (Bytef *)(uintptr_t)p; /* zlib does not write its input */
        d->s.avail_in = part;
        int rc;
        do {
            if (d->cap - done < 65536) {
                const size_t ncap = d->cap ? 2 * d->cap : (size_t)1 << 20;
                unsigned char *b = realloc(d->buf, ncap);
                if (!b)
                    return HL_ERR_NOMEM;
                d->buf = b;
                d->cap = ncap;
            }
            d->s.next_out = d->buf + done;
            d->s.avail_out = (uInt)(d->cap - done > (1u << 30) ? (1u << 30) : d->cap - done);
            const uInt before = d->s.avail_out;
            rc = deflate(&d->s, last && finish ? Z_FINISH : Z_NO_FLUSH);
            done += before - d->s.avail_out;
            if (rc == Z_STREAM_ERROR)
                return HL_ERR_ARG;
        } while (d->s.avail_out == 0 || d->s.avail_in > 0 || (last && finish && rc != Z_STREAM_END));
        p += part;
        if (last)
            break;
    }
    *out = d->buf;
    *out_len = done;
    return HL_OK;
#else
    (void)finish;
    return HL_ERR_UNSUPPORTED;
#endif
}

void hl_npz_deflater_destroy(hl_npz_deflater *d)
{
    if (!d)
        return;
#ifdef HL_HAVE_ZLIB
    deflateEnd(&d->s);
#endif
    free(d->buf);
    free(d);
}
