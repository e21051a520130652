/* hyperlayout — HDF5 types as hyperlayout dtypes and back, and the type
 * metadata of datasets and attributes checked before HDF5 converts anything. */
#define _XOPEN_SOURCE 700 /* posix_memalign, strdup */

#include "hyperlayout/h5.h"

#ifdef HL_HAVE_HDF5

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hdf5.h>

#include "atomic.h"
#include "h5_internal.h"

/* ---- types ----------------------------------------------------------- */

/* IEEE half precision, little-endian (h5py's float16). */
hid_t hl_h5_make_f16(void)
{
    hid_t t = H5Tcopy(H5T_IEEE_F32LE);
    if (t < 0)
        return t;
    if (H5Tset_fields(t, 15, 10, 5, 0, 10) < 0 || H5Tset_size(t, 2) < 0 ||
        H5Tset_ebias(t, 15) < 0) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

/* h5py's bool: an enum of int8 {FALSE = 0, TRUE = 1}. */
hid_t hl_h5_make_bool(void)
{
    hid_t t = H5Tenum_create(H5T_NATIVE_INT8);
    int8_t f = 0, v = 1;
    if (t >= 0 && (H5Tenum_insert(t, "FALSE", &f) < 0 || H5Tenum_insert(t, "TRUE", &v) < 0)) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

/* h5py's complex: a compound {r, i} of two floats. */
hid_t hl_h5_make_complex(hid_t part, size_t half)
{
    hid_t t = H5Tcreate(H5T_COMPOUND, 2 * half);
    if (t >= 0 && (H5Tinsert(t, "r", 0, part) < 0 || H5Tinsert(t, "i", half, part) < 0)) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

static hid_t native_int(size_t size, bool is_signed)
{
    switch (size) {
    case 1: return H5Tcopy(is_signed ? H5T_NATIVE_INT8 : H5T_NATIVE_UINT8);
    case 2: return H5Tcopy(is_signed ? H5T_NATIVE_INT16 : H5T_NATIVE_UINT16);
    case 4: return H5Tcopy(is_signed ? H5T_NATIVE_INT32 : H5T_NATIVE_UINT32);
    case 8: return H5Tcopy(is_signed ? H5T_NATIVE_INT64 : H5T_NATIVE_UINT64);
    default: return -1;
    }
}

static hl_dtype int_dtype(size_t size, bool is_signed)
{
    switch (size) {
    case 1: return is_signed ? HL_DTYPE_INT8 : HL_DTYPE_UINT8;
    case 2: return is_signed ? HL_DTYPE_INT16 : HL_DTYPE_UINT16;
    case 4: return is_signed ? HL_DTYPE_INT32 : HL_DTYPE_UINT32;
    default: return is_signed ? HL_DTYPE_INT64 : HL_DTYPE_UINT64;
    }
}

static char order_char(hid_t t, size_t size)
{
    if (size == 1)
        return '|';
    return H5Tget_order(t) == H5T_ORDER_BE ? '>' : '<';
}

static bool is_bool_enum(hid_t t)
{
    if (H5Tget_size(t) != 1 || H5Tget_nmembers(t) != 2)
        return false;
    bool ok = true;
    for (unsigned m = 0; ok && m < 2; m++) {
        char *name = H5Tget_member_name(t, m);
        int8_t v = -1;
        ok = name && H5Tget_member_value(t, m, &v) >= 0 &&
             ((!strcmp(name, "FALSE") && v == 0) || (!strcmp(name, "TRUE") && v == 1));
        if (name)
            H5free_memory(name);
    }
    return ok;
}

/* Whether t is h5py's complex: {r, i} of one float type of 4 or 8 bytes. */
static size_t complex_half(hid_t t)
{
    if (H5Tget_nmembers(t) != 2)
        return 0;
    size_t half = 0;
    bool ok = true;
    for (unsigned m = 0; ok && m < 2; m++) {
        char *name = H5Tget_member_name(t, m);
        hid_t mt = H5Tget_member_type(t, m);
        const size_t sz = mt >= 0 ? H5Tget_size(mt) : 0;
        ok = name && !strcmp(name, m ? "i" : "r") && mt >= 0 &&
             H5Tget_member_class(t, m) == H5T_FLOAT && (sz == 4 || sz == 8) &&
             H5Tget_member_offset(t, m) == m * sz && (half == 0 || half == sz);
        half = sz;
        if (mt >= 0)
            H5Tclose(mt);
        if (name)
            H5free_memory(name);
    }
    return ok && H5Tget_size(t) == 2 * half ? half : 0;
}

/* ---- type metadata checked before HDF5 converts anything ---------------
 * HDF5 decodes a type's fields from the file as they are and its
 * conversion functions trust them: a float type whose precision says 167
 * bits in 4 bytes (one byte changed) makes H5T__conv_f_f, and an integer
 * one H5T__conv_i_i, read and write outside their buffers (SIGSEGV).  So
 * every integer and float type a dataset is converted from (itself, an
 * enum's base, a complex's parts) must describe bits inside its bytes,
 * fields that do not overlap, in an order and with paddings HDF5 knows;
 * otherwise the dataset is refused with what is wrong (into text, cap). */

static bool bits_inside(size_t pos, size_t len, size_t off, size_t prec)
{
    return len >= 1 && pos >= off && pos < off + prec && len <= off + prec - pos;
}

static bool bits_apart(size_t a, size_t alen, size_t b, size_t blen)
{
    return a + alen <= b || b + blen <= a;
}

static bool type_sound(hid_t t, char *text, size_t cap)
{
    const H5T_class_t c = H5Tget_class(t);
    if (c != H5T_INTEGER && c != H5T_FLOAT)
        return true;
    const size_t size = H5Tget_size(t), prec = H5Tget_precision(t);
    const int off = H5Tget_offset(t);
    const H5T_order_t order = H5Tget_order(t);
    H5T_pad_t lsb = H5T_PAD_ERROR, msb = H5T_PAD_ERROR;
    const char *what = c == H5T_INTEGER ? "integer" : "float";
    bool ok = size >= 1 && size <= 8 && prec >= 1 && off >= 0 && (size_t)off + prec <= 8 * size &&
              (order == H5T_ORDER_LE || order == H5T_ORDER_BE) &&
              H5Tget_pad(t, &lsb, &msb) >= 0 && lsb >= H5T_PAD_ZERO &&
              lsb <= H5T_PAD_BACKGROUND && msb >= H5T_PAD_ZERO && msb <= H5T_PAD_BACKGROUND;
    if (ok && c == H5T_INTEGER) {
        const H5T_sign_t sg = H5Tget_sign(t);
        ok = sg == H5T_SGN_NONE || sg == H5T_SGN_2;
    } else if (ok) {
        size_t spos = 0, epos = 0, esize = 0, mpos = 0, msize = 0;
        const size_t ebias = H5Tget_ebias(t);
        const H5T_norm_t norm = H5Tget_norm(t);
        const H5T_pad_t inpad = H5Tget_inpad(t);
        const size_t o = (size_t)off;
        ok = H5Tget_fields(t, &spos, &epos, &esize, &mpos, &msize) >= 0 &&
             bits_inside(spos, 1, o, prec) && bits_inside(epos, esize, o, prec) &&
             bits_inside(mpos, msize, o, prec) && esize <= 32 && msize <= 64 &&
             bits_apart(spos, 1, epos, esize) && bits_apart(spos, 1, mpos, msize) &&
             bits_apart(epos, esize, mpos, msize) && ebias < ((size_t)1 << esize) &&
             (norm == H5T_NORM_IMPLIED || norm == H5T_NORM_MSBSET || norm == H5T_NORM_NONE) &&
             inpad >= H5T_PAD_ZERO && inpad <= H5T_PAD_BACKGROUND;
    }
    if (!ok)
        snprintf(text, cap, "%s of %zu bytes, %zu bits at offset %d", what, size, prec, off);
    H5Eclear2(H5E_DEFAULT);
    return ok;
}

/* t and the types inside it that a read converts (an enum's base, the
 * members of a compound) sound; text says what is not. */
bool hl_h5_types_sound(hid_t t, char *text, size_t cap)
{
    const H5T_class_t c = H5Tget_class(t);
    if (c == H5T_ENUM) { /* values are copied at the base's size: the sizes must agree */
        hid_t base = H5Tget_super(t);
        const bool fits = base >= 0 && H5Tget_class(base) == H5T_INTEGER &&
                          H5Tget_size(base) == H5Tget_size(t);
        const bool ok = fits && type_sound(base, text, cap);
        if (base >= 0)
            H5Tclose(base);
        if (!fits)
            snprintf(text, cap, "an enum of %zu bytes whose base type is not an integer of "
                     "that size", H5Tget_size(t));
        H5Eclear2(H5E_DEFAULT);
        return ok;
    }
    if (c == H5T_COMPOUND) { /* each member inside the compound */
        const int n = H5Tget_nmembers(t);
        const size_t size = H5Tget_size(t);
        bool ok = n >= 0;
        for (int m = 0; ok && m < n; m++) {
            hid_t mt = H5Tget_member_type(t, (unsigned)m);
            const size_t off = H5Tget_member_offset(t, (unsigned)m);
            const size_t msz = mt >= 0 ? H5Tget_size(mt) : 0;
            ok = mt >= 0 && msz >= 1 && off < size && msz <= size - off;
            if (!ok)
                snprintf(text, cap, "a compound of %zu bytes with member %d outside it", size, m);
            ok = ok && hl_h5_types_sound(mt, text, cap);
            if (mt >= 0)
                H5Tclose(mt);
        }
        if (n < 0)
            snprintf(text, cap, "a compound type HDF5 cannot read");
        H5Eclear2(H5E_DEFAULT);
        return ok;
    }
    return type_sound(t, text, cap);
}

/* Classifies file type ft: info's dtype, descr, type text and unsupported;
 * *mem the memory type to read it as (or -1 when unsupported). */
static void classify(hid_t ft, hl_h5_info *info, hl_dtype *dtype, int64_t *elem, hid_t *mem)
{
    const H5T_class_t c = H5Tget_class(ft);
    const size_t size = H5Tget_size(ft);
    *mem = -1;
    *elem = (int64_t)size;
    *dtype = HL_DTYPE_BYTES;
    if (!hl_h5_types_sound(ft, info->type, sizeof info->type)) {
        info->unsupported = "a damaged type description (its bits, fields, order or padding "
                            "are not a type HDF5 can convert)";
        snprintf(info->descr, sizeof info->descr, "|V%zu", size);
        return;
    }
    if (c == H5T_VLEN || c == H5T_REFERENCE || H5Tdetect_class(ft, H5T_VLEN) > 0 ||
        H5Tdetect_class(ft, H5T_REFERENCE) > 0 ||
        (c == H5T_STRING && H5Tis_variable_str(ft) > 0)) {
        info->unsupported = c == H5T_STRING   ? "variable-length strings"
                            : c == H5T_VLEN   ? "variable-length sequences"
                            : c == H5T_REFERENCE ? "references"
                                              : "a type holding variable-length data or references";
        snprintf(info->type, sizeof info->type, "%s", info->unsupported);
        snprintf(info->descr, sizeof info->descr, "|O");
        return;
    }
    switch (c) {
    case H5T_INTEGER: {
        const bool sg = H5Tget_sign(ft) == H5T_SGN_2;
        if (size != 1 && size != 2 && size != 4 && size != 8)
            break;
        *dtype = int_dtype(size, sg);
        *mem = native_int(size, sg);
        snprintf(info->descr, sizeof info->descr, "%c%c%zu", order_char(ft, size), sg ? 'i' : 'u',
                 size);
        snprintf(info->type, sizeof info->type, "%sint%zu%s", sg ? "" : "u", 8 * size,
                 size == 1 ? "" : H5Tget_order(ft) == H5T_ORDER_BE ? " big-endian" : " little-endian");
        return;
    }
    case H5T_FLOAT:
        if (size != 2 && size != 4 && size != 8)
            break;
        *dtype = size == 2 ? HL_DTYPE_FLOAT16 : size == 4 ? HL_DTYPE_FLOAT32 : HL_DTYPE_FLOAT64;
        *mem = size == 2 ? hl_h5_make_f16() : H5Tcopy(size == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE);
        snprintf(info->descr, sizeof info->descr, "%cf%zu", order_char(ft, size), size);
        snprintf(info->type, sizeof info->type, "float%zu %s", 8 * size,
                 H5Tget_order(ft) == H5T_ORDER_BE ? "big-endian" : "little-endian");
        return;
    case H5T_ENUM:
        if (is_bool_enum(ft)) {
            *dtype = HL_DTYPE_BOOL;
            *mem = hl_h5_make_bool();
            snprintf(info->descr, sizeof info->descr, "|b1");
            snprintf(info->type, sizeof info->type, "bool (enum FALSE/TRUE of int8)");
        } else {
            hid_t base = H5Tget_super(ft);
            const bool sg = base >= 0 && H5Tget_sign(base) == H5T_SGN_2;
            if (base >= 0)
                H5Tclose(base);
            *dtype = int_dtype(size, sg);
            *mem = H5Tget_native_type(ft, H5T_DIR_DEFAULT);
            snprintf(info->descr, sizeof info->descr, "%c%c%zu", order_char(ft, size),
                     sg ? 'i' : 'u', size);
            snprintf(info->type, sizeof info->type, "enum of %sint%zu", sg ? "" : "u", 8 * size);
        }
        return;
    case H5T_COMPOUND: {
        const size_t half = complex_half(ft);
        if (half) {
            *dtype = half == 4 ? HL_DTYPE_COMPLEX64 : HL_DTYPE_COMPLEX128;
            *mem = hl_h5_make_complex(half == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE, half);
            hid_t part = H5Tget_member_type(ft, 0);
            snprintf(info->descr, sizeof info->descr, "%cc%zu", order_char(part, half), size);
            if (part >= 0)
                H5Tclose(part);
            snprintf(info->type, sizeof info->type, "complex%zu (compound {r,i} of float%zu)",
                     8 * size, 8 * half);
            return;
        }
        *mem = H5Tcopy(ft);
        snprintf(info->descr, sizeof info->descr, "|V%zu", size);
        snprintf(info->type, sizeof info->type, "compound of %d fields, %zu bytes (as bytes)",
                 H5Tget_nmembers(ft), size);
        return;
    }
    case H5T_STRING:
        *mem = H5Tcopy(ft);
        snprintf(info->descr, sizeof info->descr, "|S%zu", size);
        snprintf(info->type, sizeof info->type, "fixed-length string of %zu bytes", size);
        return;
    case H5T_OPAQUE:
    case H5T_ARRAY:
    case H5T_BITFIELD:
        *mem = H5Tcopy(ft);
        snprintf(info->descr, sizeof info->descr, "|V%zu", size);
        snprintf(info->type, sizeof info->type, "%s of %zu bytes (as bytes)",
                 c == H5T_OPAQUE ? "opaque" : c == H5T_ARRAY ? "array type" : "bitfield", size);
        return;
    default:
        break;
    }
    info->unsupported = c == H5T_TIME    ? "the time type"
                        : c == H5T_FLOAT ? "a float size other than 2, 4 or 8 bytes"
                        : c == H5T_INTEGER ? "an integer size other than 1, 2, 4 or 8 bytes"
                                         : "an HDF5 type hyperlayout does not know";
    snprintf(info->type, sizeof info->type, "%s", info->unsupported);
    snprintf(info->descr, sizeof info->descr, "|V%zu", size);
}

static void describe_filters(hid_t dcpl, hl_h5_info *info)
{
    const int n = H5Pget_nfilters(dcpl);
    size_t used = 0;
    info->filters[0] = '\0';
    for (int i = 0; i < n; i++) {
        unsigned flags = 0, cd[8] = {0}, config = 0;
        size_t ncd = 8;
        char name[64] = "";
        const H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cd, sizeof name,
                                               name, &config);
        char one[96];
        if (id == H5Z_FILTER_DEFLATE)
            snprintf(one, sizeof one, "deflate(%u)", ncd > 0 ? cd[0] : 0);
        else if (id == H5Z_FILTER_SHUFFLE)
            snprintf(one, sizeof one, "shuffle");
        else if (id == H5Z_FILTER_FLETCHER32)
            snprintf(one, sizeof one, "fletcher32");
        else if (id == H5Z_FILTER_SZIP)
            snprintf(one, sizeof one, "szip");
        else if (id == H5Z_FILTER_NBIT)
            snprintf(one, sizeof one, "nbit");
        else if (id == H5Z_FILTER_SCALEOFFSET)
            snprintf(one, sizeof one, "scaleoffset");
        else
            snprintf(one, sizeof one, "filter %d%s%s%s", (int)id, name[0] ? " (" : "", name,
                     name[0] ? ")" : "");
        if (id >= 0 && H5Zfilter_avail(id) <= 0 && !info->unsupported)
            info->unsupported = "a filter this HDF5 library does not have (see the filters)";
        used += (size_t)snprintf(info->filters + used, used < sizeof info->filters
                                 ? sizeof info->filters - used : 0, "%s%s", i ? "," : "", one);
        if (used >= sizeof info->filters)
            break;
    }
}

static herr_t count_attr(hid_t loc, const char *name, const H5A_info_t *ai, void *user)
{
    (void)loc, (void)name, (void)ai;
    ++*(int *)user;
    return 0;
}

/* The dataset's info; *mem its memory type (-1 when unsupported). */
static void dataset_info(hid_t d, hl_h5_info *info, hid_t *mem)
{
    memset(info, 0, sizeof *info);
    *mem = -1;
    hid_t space = H5Dget_space(d), ft = H5Dget_type(d), dcpl = H5Dget_create_plist(d);
    const H5S_class_t sc = space >= 0 ? H5Sget_simple_extent_type(space) : H5S_NO_CLASS;
    if (sc == H5S_SIMPLE) {
        hsize_t dims[H5S_MAX_RANK];
        info->ndim = H5Sget_simple_extent_dims(space, dims, NULL);
        for (int i = 0; i < info->ndim; i++)
            info->dims[i] = (int64_t)dims[i];
    } else if (sc != H5S_SCALAR) {
        info->unsupported = "a null dataspace (no elements)";
    }
    hl_dtype dtype = HL_DTYPE_BYTES;
    int64_t elem = 0;
    if (ft >= 0)
        classify(ft, info, &dtype, &elem, mem);
    else
        info->unsupported = "a type HDF5 cannot read";
    if (dcpl >= 0) {
        if (H5Pget_layout(dcpl) == H5D_CHUNKED) {
            hsize_t ch[H5S_MAX_RANK];
            info->chunked = true;
            const int n = H5Pget_chunk(dcpl, H5S_MAX_RANK, ch);
            for (int i = 0; i < n && i < HL_H5_MAX_NDIM; i++)
                info->chunk[i] = (int64_t)ch[i];
        }
        describe_filters(dcpl, info);
    }
    H5Aiterate2(d, H5_INDEX_NAME, H5_ITER_INC, NULL, count_attr, &info->nattrs);
    info->storage_bytes = (int64_t)H5Dget_storage_size(d);
    int64_t ext[HL_MAX_RANK];
    const int rank = info->ndim > 0 ? info->ndim : 1;
    for (int i = 0; i < info->ndim; i++)
        if (info->dims[i] == 0 && !info->unsupported)
            info->unsupported = "an empty dataset (an extent is 0)";
    if (!info->unsupported && info->ndim > HL_MAX_RANK)
        info->unsupported = "a rank above hyperlayout's limit";
    for (int i = 0; i < rank; i++)
        ext[i] = info->ndim > 0 ? info->dims[info->ndim - 1 - i] : 1;
    if (!info->unsupported && hl_shape_init(&info->shape, rank, ext, dtype, elem) != HL_OK)
        info->unsupported = "a shape hyperlayout cannot hold (too many elements)";
    if (info->unsupported && *mem >= 0) {
        H5Tclose(*mem);
        *mem = -1;
    }
    if (space >= 0)
        H5Sclose(space);
    if (ft >= 0)
        H5Tclose(ft);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    H5Eclear2(H5E_DEFAULT);
}

void hl_h5_dataset_info(hid_t d, hl_h5_info *info, hid_t *mem) { dataset_info(d, info, mem); }

void hl_h5_classify(hid_t ft, hl_h5_info *info, hid_t *mem)
{
    hl_dtype dtype;
    int64_t elem;
    memset(info, 0, sizeof *info);
    classify(ft, info, &dtype, &elem, mem);
    H5Eclear2(H5E_DEFAULT);
}


/* A damaged attribute must not reach HDF5's conversions: its type checked
 * as a dataset's, and its element count n against the file, which holds
 * at least 8 bytes of each element (a variable-length one's heap
 * reference) or all of a fixed-size one (a count read from a damaged
 * dataspace made H5T__conv_vlen clear gigabytes).  Else false and why. */
bool hl_h5_attr_sound(hid_t loc, const char *name, hid_t t, hssize_t n, char *why, size_t cap)
{
    const size_t sz = H5Tget_size(t);
    const bool vlen = H5Tdetect_class(t, H5T_VLEN) > 0 ||
                      (H5Tget_class(t) == H5T_STRING && H5Tis_variable_str(t) > 0);
    hsize_t fsize = 0;
    hid_t fid = H5Iget_file_id(loc);
    if (fid < 0 || H5Fget_filesize(fid, &fsize) < 0)
        fsize = 0;
    if (fid >= 0)
        H5Fclose(fid);
    H5Eclear2(H5E_DEFAULT);
    char text[96];
    if (!hl_h5_types_sound(t, text, sizeof text)) {
        snprintf(why, cap, "attribute '%s': a damaged type (%s)", name, text);
        return false;
    }
    if (n < 0 || sz == 0 || (uint64_t)n > fsize / (vlen ? 8 : sz)) {
        snprintf(why, cap, "attribute '%s': %" PRId64 " elements of %zu bytes in a file of "
                 "%" PRIu64 " bytes (damaged)", name, (int64_t)n, sz, (uint64_t)fsize);
        return false;
    }
    return true;
}

#endif /* HL_HAVE_HDF5 */
