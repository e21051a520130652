/* hyperlayout — include/hyperlayout/h5.h without HDF5 (HL_HAVE_HDF5 unset):
 * every function says that it is not there. */
#define _XOPEN_SOURCE 700 /* posix_memalign, strdup */

#include "hyperlayout/h5.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef HL_HAVE_HDF5

static hl_status none(char *why, size_t cap)
{
    if (why && cap)
        snprintf(why, cap, "this hyperlayout was built without HDF5 (install libhdf5-dev, "
                           "scripts/deps.sh, and rebuild)");
    return HL_ERR_UNSUPPORTED;
}

hl_status hl_h5_available(void) { return HL_ERR_UNSUPPORTED; }
hl_status hl_h5_info_get(const char *path, const char *dataset, hl_h5_info *info, char *why,
                         size_t cap)
{
    (void)path, (void)dataset, (void)info;
    return none(why, cap);
}
hl_status hl_h5_list(const char *path, hl_h5_visit visit, void *user, char *why, size_t cap)
{
    (void)path, (void)visit, (void)user;
    return none(why, cap);
}
hl_status hl_h5_reader_open(hl_h5_reader **r, const char *path, const char *dataset,
                            hl_h5_info *info, char *why, size_t cap)
{
    (void)path, (void)dataset, (void)info;
    if (r)
        *r = NULL;
    return none(why, cap);
}
hl_status hl_h5_reader_read(hl_h5_reader *r, int64_t first, int64_t count, void *buf, char *why,
                            size_t cap)
{
    (void)r, (void)first, (void)count, (void)buf;
    return none(why, cap);
}
const hl_h5_info *hl_h5_reader_info(const hl_h5_reader *r)
{
    (void)r;
    return NULL;
}
void hl_h5_reader_close(hl_h5_reader *r) { (void)r; }
hl_status hl_h5_load(const char *path, const char *dataset, hl_h5_info *info, void **data,
                     char *why, size_t cap)
{
    (void)path, (void)dataset, (void)info;
    if (data)
        *data = NULL;
    return none(why, cap);
}
hl_status hl_h5_writer_open(hl_h5_writer **w, const char *path, const char *dataset,
                            const hl_shape *s, const hl_h5_write_options *opt, char *why,
                            size_t cap)
{
    (void)path, (void)dataset, (void)s, (void)opt;
    if (w)
        *w = NULL;
    return none(why, cap);
}
hl_status hl_h5_writer_write(hl_h5_writer *w, int64_t first, int64_t count, const void *buf,
                             char *why, size_t cap)
{
    (void)w, (void)first, (void)count, (void)buf;
    return none(why, cap);
}
hl_status hl_h5_writer_commit(hl_h5_writer *w, char *why, size_t cap)
{
    (void)w;
    return none(why, cap);
}
void hl_h5_writer_abort(hl_h5_writer *w) { (void)w; }
hl_status hl_h5_save(const char *path, const char *dataset, const hl_shape *s, const void *data,
                     const hl_h5_write_options *opt, char *why, size_t cap)
{
    (void)path, (void)dataset, (void)s, (void)data, (void)opt;
    return none(why, cap);
}

#endif /* HL_HAVE_HDF5 */
