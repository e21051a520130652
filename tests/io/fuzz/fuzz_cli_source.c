/* libFuzzer target for the command-line tool's input path
 * (apps/hyperlayout/npy_source.c, src/io/npz_stream.c): the bytes as a mapped file
 * and the same bytes as a stream, a .npy or an .npz archive (stored and
 * deflated members, CRC checks, local headers read as they arrive), with a
 * member named or not.  Any input must give a status (never a crash, a
 * hang, a read outside the buffer or undefined behaviour); an accepted
 * array's data must lie in memory the source owns or in the input.  The
 * first byte picks the member's name and --no-verify.  Built with
 * -DHL_FUZZ=ON and clang; run: build-fuzz/bin/fuzz_cli_source -runs=1000000 */
#define _GNU_SOURCE /* memfd_create */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "npy_source.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const npy_source *s, const unsigned char *in, size_t len)
{
    const unsigned char *d = s->data;
    const size_t n = (size_t)s->info.data_bytes;
    const bool in_input = in && d >= in && n <= len && d <= in + len - n;
    const bool in_buf = s->buf && d >= s->buf && n <= s->buf_len && d <= s->buf + s->buf_len - n;
    if (s->info.data_bytes < 0 || (!in_input && !in_buf))
        abort();
    volatile unsigned char sum = 0; /* every byte readable (ASan checks) */
    for (size_t i = 0; i < n; i += 4096)
        sum ^= d[i];
    if (n)
        sum ^= d[n - 1];
    (void)sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[4] = {NULL, "a", "arr_0", "b.npy"};
    if (size < 1)
        return 0;
    const char *member = names[data[0] & 3];
    const unsigned flags = data[0] & 4 ? NPY_SOURCE_NO_VERIFY : 0;
    data++;
    size--;
    char why[1024];
    npy_source s;

    unsigned char *buf = malloc(size ? size : 1); /* exactly sized: ASan sees overreads */
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    if (npy_source_from_memory(&s, buf, size, member, flags, "fuzz", why, sizeof why) == HL_OK) {
        check(&s, buf, size);
        npy_source_close(&s);
    }
    free(buf);

    int fd = memfd_create("fuzz", 0);
    if (fd < 0)
        return 0;
    if (write(fd, data, size) == (ssize_t)size && lseek(fd, 0, SEEK_SET) == 0 &&
        npy_source_from_stream(&s, fd, member, flags, "fuzz", why, sizeof why) == HL_OK) {
        check(&s, NULL, 0);
        npy_source_close(&s);
    }
    close(fd);
    return 0;
}
