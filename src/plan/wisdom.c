/* hyperlayout — wisdom: the table of what measuring chose, and its text
 * format (wisdom.h).  One process-wide table behind a mutex: a few entries
 * per problem a program plans, looked up linearly. */
#define _XOPEN_SOURCE 700

#include "hyperlayout/wisdom.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/atomic.h"
#include "wisdom_internal.h"

/* What an entry chose: a register transpose's columns, whether a chain's
 * passes run as one (merge in columns, 0 or 1; the problem's hash in
 * problem), or a device's tile runs (in columns; the boxes' hash in
 * problem, the architecture in isa). */
typedef enum { TRANSPOSE, COMPOSE, DEVICE } kind;

typedef struct entry {
    kind kind;
    uint64_t problem;
    char isa[HL_WISDOM_ISA_MAX + 1];
    int64_t elem_size;
    int threads;
    bool stream;
    int ndigits;
    int64_t ext[HL_WISDOM_DIGITS_MAX], ss[HL_WISDOM_DIGITS_MAX], ds[HL_WISDOM_DIGITS_MAX];
    int64_t columns;
} entry;

typedef struct table {
    entry *e;
    int64_t n, cap;
} table;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static table wisdom; /* guarded by lock */

static bool valid_isa(const char *s, size_t len)
{
    if (len < 1 || len > HL_WISDOM_ISA_MAX)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
            return false;
    return true;
}

static bool valid_columns(int64_t c)
{
    return c >= 1 && c <= 65536;
}

static bool same_key(const entry *a, const entry *b)
{
    if (a->kind != b->kind || strcmp(a->isa, b->isa) != 0 || a->elem_size != b->elem_size ||
        a->threads != b->threads)
        return false;
    if (a->kind != TRANSPOSE)
        return a->problem == b->problem;
    if (a->stream != b->stream || a->ndigits != b->ndigits)
        return false;
    for (int t = 0; t < a->ndigits; t++)
        if (a->ext[t] != b->ext[t] || a->ss[t] != b->ss[t] || a->ds[t] != b->ds[t])
            return false;
    return true;
}

/* key -> entry (its value unset); false when the format cannot carry it */
static bool entry_of(const hl_wisdom_key *k, entry *x)
{
    if (!k->isa || !valid_isa(k->isa, strlen(k->isa)) || k->elem_size < 1 || k->threads < 1 ||
        k->ndigits < 1 || k->ndigits > HL_WISDOM_DIGITS_MAX)
        return false;
    memset(x, 0, sizeof *x);
    strcpy(x->isa, k->isa);
    x->elem_size = k->elem_size;
    x->threads = k->threads;
    x->stream = k->stream;
    x->ndigits = k->ndigits;
    for (int t = 0; t < k->ndigits; t++) {
        if (k->ext[t] < 1)
            return false;
        x->ext[t] = k->ext[t];
        x->ss[t] = k->src_stride[t];
        x->ds[t] = k->dst_stride[t];
    }
    return true;
}

/* Adds or replaces x in t (t's storage may grow). */
static hl_status table_put(table *t, const entry *x)
{
    for (int64_t i = 0; i < t->n; i++)
        if (same_key(&t->e[i], x)) {
            t->e[i].columns = x->columns;
            return HL_OK;
        }
    if (t->n == t->cap) {
        const int64_t cap = t->cap ? 2 * t->cap : 16;
        entry *e = realloc(t->e, sizeof *e * (size_t)cap);
        if (!e)
            return HL_ERR_NOMEM;
        t->e = e;
        t->cap = cap;
    }
    t->e[t->n++] = *x;
    return HL_OK;
}

/* The value recorded under x's key, if any. */
static bool find(const entry *x, int64_t *value)
{
    bool found = false;
    pthread_mutex_lock(&lock);
    for (int64_t i = 0; i < wisdom.n && !found; i++)
        if (same_key(&wisdom.e[i], x)) {
            *value = wisdom.e[i].columns;
            found = true;
        }
    pthread_mutex_unlock(&lock);
    return found;
}

static hl_status put(const entry *x)
{
    pthread_mutex_lock(&lock);
    const hl_status st = table_put(&wisdom, x);
    pthread_mutex_unlock(&lock);
    return st;
}

bool hl_wisdom_lookup(const hl_wisdom_key *key, int64_t *columns)
{
    entry x;
    return key && entry_of(key, &x) && find(&x, columns);
}

hl_status hl_wisdom_record(const hl_wisdom_key *key, int64_t columns)
{
    entry x;
    if (!key || !entry_of(key, &x) || !valid_columns(columns))
        return HL_ERR_ARG;
    x.columns = columns;
    return put(&x);
}

static bool compose_entry_of(const hl_wisdom_chain_key *k, entry *x)
{
    if (!k->isa || !valid_isa(k->isa, strlen(k->isa)) || k->elem_size < 1 || k->threads < 1)
        return false;
    memset(x, 0, sizeof *x);
    x->kind = COMPOSE;
    x->problem = k->problem;
    strcpy(x->isa, k->isa);
    x->elem_size = k->elem_size;
    x->threads = k->threads;
    return true;
}

bool hl_wisdom_lookup_compose(const hl_wisdom_chain_key *key, bool *merge)
{
    entry x;
    int64_t v;
    if (!key || !compose_entry_of(key, &x) || !find(&x, &v))
        return false;
    *merge = v != 0;
    return true;
}

hl_status hl_wisdom_record_compose(const hl_wisdom_chain_key *key, bool merge)
{
    entry x;
    if (!key || !compose_entry_of(key, &x))
        return HL_ERR_ARG;
    x.columns = merge;
    return put(&x);
}

static bool device_entry_of(const hl_wisdom_device_key *k, entry *x)
{
    if (!k->arch || !valid_isa(k->arch, strlen(k->arch)) || k->elem_size < 1)
        return false;
    memset(x, 0, sizeof *x);
    x->kind = DEVICE;
    x->problem = k->boxes;
    strcpy(x->isa, k->arch);
    x->elem_size = k->elem_size;
    return true;
}

bool hl_wisdom_lookup_device(const hl_wisdom_device_key *key, int64_t *tiles)
{
    entry x;
    return key && device_entry_of(key, &x) && find(&x, tiles);
}

hl_status hl_wisdom_record_device(const hl_wisdom_device_key *key, int64_t tiles)
{
    entry x;
    if (!key || !device_entry_of(key, &x) || tiles < 0 || tiles > HL_WISDOM_TILES_MAX)
        return HL_ERR_ARG;
    x.columns = tiles;
    return put(&x);
}

void hl_wisdom_forget(void)
{
    pthread_mutex_lock(&lock);
    free(wisdom.e);
    wisdom = (table){NULL, 0, 0};
    pthread_mutex_unlock(&lock);
}

int64_t hl_wisdom_count(void)
{
    pthread_mutex_lock(&lock);
    const int64_t n = wisdom.n;
    pthread_mutex_unlock(&lock);
    return n;
}

/* ---- export ----------------------------------------------------------------- */

/* A growing string. */
typedef struct {
    char *s;
    size_t len, cap;
    bool failed;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sb_printf(sbuf *b, const char *fmt, ...)
{
    if (b->failed)
        return;
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        const int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->failed = true;
            return;
        }
        if (b->s && b->len + (size_t)n < b->cap) {
            b->len += (size_t)n;
            return;
        }
        const size_t cap = (b->cap ? 2 * b->cap : 4096) + (size_t)n;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->failed = true;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
}

hl_status hl_wisdom_export(char **text)
{
    if (!text)
        return HL_ERR_NULL;
    *text = NULL;
    sbuf b = {NULL, 0, 0, false};
    pthread_mutex_lock(&lock);
    /* the lowest version that says all: older readers keep reading it */
    int version = 1;
    for (int64_t i = 0; i < wisdom.n; i++) {
        const int need = wisdom.e[i].kind == DEVICE ? 3 : wisdom.e[i].kind == COMPOSE ? 2 : 1;
        version = need > version ? need : version;
    }
    sb_printf(&b, "hyperlayout-wisdom %d\n", version);
    for (int64_t i = 0; i < wisdom.n; i++) {
        const entry *x = &wisdom.e[i];
        if (x->kind == COMPOSE) {
            sb_printf(&b, "compose isa=%s elem=%lld threads=%d problem=%016llx merge=%d\n", x->isa,
                      (long long)x->elem_size, x->threads, (unsigned long long)x->problem,
                      x->columns ? 1 : 0);
            continue;
        }
        if (x->kind == DEVICE) {
            sb_printf(&b, "cuda arch=%s elem=%lld boxes=%016llx tiles=%lld\n", x->isa,
                      (long long)x->elem_size, (unsigned long long)x->problem,
                      (long long)x->columns);
            continue;
        }
        sb_printf(&b, "transpose isa=%s elem=%lld threads=%d stream=%d digits=", x->isa,
                  (long long)x->elem_size, x->threads, x->stream ? 1 : 0);
        for (int t = 0; t < x->ndigits; t++)
            sb_printf(&b, "%s%lld:%lld:%lld", t ? "," : "", (long long)x->ext[t],
                      (long long)x->ss[t], (long long)x->ds[t]);
        sb_printf(&b, " columns=%lld\n", (long long)x->columns);
    }
    pthread_mutex_unlock(&lock);
    if (b.failed) {
        free(b.s);
        return HL_ERR_NOMEM;
    }
    *text = b.s;
    return HL_OK;
}

hl_status hl_wisdom_export_file(const char *path)
{
    if (!path)
        return HL_ERR_NULL;
    char *text;
    hl_status st = hl_wisdom_export(&text);
    if (st != HL_OK)
        return st;
    const void *chunk = text;
    const size_t len = strlen(text);
    st = hl_atomic_write(path, 1, &chunk, &len);
    const int saved = errno;
    free(text);
    errno = saved;
    return st;
}

/* ---- import ----------------------------------------------------------------- */

/* A decimal int64 filling [s, end) exactly. */
static bool parse_i64(const char *s, const char *end, int64_t *v)
{
    if (s == end || end - s > 21)
        return false;
    char tmp[24];
    memcpy(tmp, s, (size_t)(end - s));
    tmp[end - s] = '\0';
    if (!((tmp[0] >= '0' && tmp[0] <= '9') || (tmp[0] == '-' && tmp[1] >= '0' && tmp[1] <= '9')))
        return false;
    errno = 0;
    char *stop;
    const long long x = strtoll(tmp, &stop, 10);
    if (errno != 0 || *stop != '\0')
        return false;
    *v = (int64_t)x;
    return true;
}

/* The value of field `name=` spanning [s, end): *vs set past the '='. */
static bool field(const char *s, const char *end, const char *name, const char **vs)
{
    const size_t n = strlen(name);
    if ((size_t)(end - s) <= n || strncmp(s, name, n) != 0 || s[n] != '=')
        return false;
    *vs = s + n + 1;
    return true;
}

static bool int_field(const char *s, const char *end, const char *name, int64_t *v)
{
    const char *vs;
    return field(s, end, name, &vs) && parse_i64(vs, end, v);
}

/* An ISA or architecture field `name=` spanning [s, end), into x->isa. */
static bool isa_field(const char *s, const char *end, const char *name, entry *x)
{
    const char *vs;
    if (!field(s, end, name, &vs) || !valid_isa(vs, (size_t)(end - vs)))
        return false;
    memcpy(x->isa, vs, (size_t)(end - vs));
    return true;
}

/* A hash field `name=` of 16 lowercase hexadecimal digits, into x->problem. */
static bool hash_field(const char *s, const char *end, const char *name, entry *x)
{
    const char *vs;
    if (!field(s, end, name, &vs) || end - vs != 16)
        return false;
    for (const char *c = vs; c < end; c++) {
        const int d = *c >= '0' && *c <= '9' ? *c - '0' : *c >= 'a' && *c <= 'f' ? *c - 'a' + 10 : -1;
        if (d < 0)
            return false;
        x->problem = x->problem << 4 | (uint64_t)d;
    }
    return true;
}

/* The fields of a compose line (version 2), tokens 1 to 5. */
static bool parse_compose(const char *const *tok, const char *const *tend, entry *x)
{
    memset(x, 0, sizeof *x);
    x->kind = COMPOSE;
    int64_t threads, merge;
    if (!isa_field(tok[1], tend[1], "isa", x) ||
        !int_field(tok[2], tend[2], "elem", &x->elem_size) || x->elem_size < 1 ||
        !int_field(tok[3], tend[3], "threads", &threads) || threads < 1 || threads > INT_MAX ||
        !int_field(tok[5], tend[5], "merge", &merge) || (merge != 0 && merge != 1) ||
        !hash_field(tok[4], tend[4], "problem", x))
        return false;
    x->threads = (int)threads;
    x->columns = merge;
    return true;
}

/* The fields of a cuda line (version 3), tokens 1 to 4. */
static bool parse_device(const char *const *tok, const char *const *tend, entry *x)
{
    memset(x, 0, sizeof *x);
    x->kind = DEVICE;
    return isa_field(tok[1], tend[1], "arch", x) &&
           int_field(tok[2], tend[2], "elem", &x->elem_size) && x->elem_size >= 1 &&
           hash_field(tok[3], tend[3], "boxes", x) &&
           int_field(tok[4], tend[4], "tiles", &x->columns) && x->columns >= 0 &&
           x->columns <= HL_WISDOM_TILES_MAX;
}

/* One entry line [s, end) (no newline); compose lines from version 2, cuda
 * lines from version 3. */
static bool parse_entry(const char *s, const char *end, int64_t version, entry *x)
{
    const char *tok[8];
    const char *tend[8];
    int n = 0;
    for (const char *p = s; p < end;) {
        if (n == 7)
            return false;
        const char *q = p;
        while (q < end && *q != ' ')
            q++;
        if (q == p)
            return false; /* two spaces, or a leading or trailing one */
        tok[n] = p;
        tend[n++] = q;
        p = q < end ? q + 1 : q;
        if (q < end && p == end)
            return false; /* trailing space */
    }
    if (version >= 2 && n == 6 && tend[0] - tok[0] == 7 && strncmp(tok[0], "compose", 7) == 0)
        return parse_compose(tok, tend, x);
    if (version >= 3 && n == 5 && tend[0] - tok[0] == 4 && strncmp(tok[0], "cuda", 4) == 0)
        return parse_device(tok, tend, x);
    if (n != 7 || tend[0] - tok[0] != 9 || strncmp(tok[0], "transpose", 9) != 0)
        return false;
    memset(x, 0, sizeof *x);
    if (!isa_field(tok[1], tend[1], "isa", x))
        return false;
    const char *vs;
    int64_t threads, stream;
    if (!int_field(tok[2], tend[2], "elem", &x->elem_size) || x->elem_size < 1 ||
        !int_field(tok[3], tend[3], "threads", &threads) || threads < 1 || threads > INT_MAX ||
        !int_field(tok[4], tend[4], "stream", &stream) || (stream != 0 && stream != 1) ||
        !int_field(tok[6], tend[6], "columns", &x->columns) || !valid_columns(x->columns))
        return false;
    x->threads = (int)threads;
    x->stream = stream == 1;
    if (!field(tok[5], tend[5], "digits", &vs))
        return false;
    for (const char *p = vs;;) {
        if (x->ndigits == HL_WISDOM_DIGITS_MAX)
            return false;
        const char *c1 = memchr(p, ':', (size_t)(tend[5] - p));
        const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(tend[5] - c1 - 1)) : NULL;
        if (!c2)
            return false;
        const char *z = memchr(c2 + 1, ',', (size_t)(tend[5] - c2 - 1));
        const char *stop = z ? z : tend[5];
        const int t = x->ndigits;
        if (!parse_i64(p, c1, &x->ext[t]) || x->ext[t] < 1 || !parse_i64(c1 + 1, c2, &x->ss[t]) ||
            !parse_i64(c2 + 1, stop, &x->ds[t]))
            return false;
        x->ndigits++;
        if (!z)
            break;
        p = z + 1;
    }
    return true;
}

hl_status hl_wisdom_import(const char *text)
{
    if (!text)
        return HL_ERR_NULL;
    table got = {NULL, 0, 0};
    hl_status st = HL_OK;
    bool header = false;
    int64_t version = 0;
    for (const char *s = text; *s && st == HL_OK;) {
        const char *nl = strchr(s, '\n');
        const char *end = nl ? nl : s + strlen(s);
        const char *next = nl ? nl + 1 : end;
        if (end > s && end[-1] == '\r')
            end--; /* a file that went through a CRLF editor */
        if (end == s || *s == '#') {
            s = next;
            continue;
        }
        if (!header) {
            static const char magic[] = "hyperlayout-wisdom ";
            const size_t m = sizeof magic - 1;
            if ((size_t)(end - s) <= m || strncmp(s, magic, m) != 0 ||
                !parse_i64(s + m, end, &version))
                st = HL_ERR_SYNTAX;
            else if (version < 1 || version > HL_WISDOM_VERSION)
                st = HL_ERR_UNSUPPORTED;
            header = true;
        } else {
            entry x;
            st = parse_entry(s, end, version, &x) ? table_put(&got, &x) : HL_ERR_SYNTAX;
        }
        s = next;
    }
    if (st == HL_OK && !header)
        st = HL_ERR_SYNTAX; /* empty, or comments only */
    if (st == HL_OK) {
        /* make room first, so that the merge cannot fail half way */
        pthread_mutex_lock(&lock);
        if (wisdom.cap < wisdom.n + got.n) {
            entry *e = realloc(wisdom.e, sizeof *e * (size_t)(wisdom.n + got.n));
            if (!e)
                st = HL_ERR_NOMEM;
            else {
                wisdom.e = e;
                wisdom.cap = wisdom.n + got.n;
            }
        }
        for (int64_t i = 0; i < got.n && st == HL_OK; i++)
            st = table_put(&wisdom, &got.e[i]);
        pthread_mutex_unlock(&lock);
    }
    free(got.e);
    return st;
}

hl_status hl_wisdom_import_file(const char *path)
{
    if (!path)
        return HL_ERR_NULL;
    /* a regular file of bounded size: a device (/dev/zero) or a file
     * growing without end would otherwise be read until memory runs out,
     * and a FIFO would block (O_NONBLOCK: the open does not wait for it) */
    const int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat sb;
    if (fd < 0)
        return HL_ERR_IO;
    int e = fstat(fd, &sb) != 0       ? errno
            : !S_ISREG(sb.st_mode)    ? EINVAL
            : (uint64_t)sb.st_size > HL_WISDOM_FILE_MAX ? EFBIG
                                      : 0;
    FILE *f = e ? NULL : fdopen(fd, "rb");
    if (!f) {
        e = e ? e : errno;
        close(fd);
        errno = e;
        return HL_ERR_IO;
    }
    char *buf = NULL;
    size_t len = 0, cap = 0;
    hl_status st = HL_OK;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            const size_t ncap = cap ? 2 * cap : 8192;
            char *b = realloc(buf, ncap);
            if (!b) {
                st = HL_ERR_NOMEM;
                break;
            }
            buf = b;
            cap = ncap;
        }
        const size_t got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
        if (got == 0) {
            if (ferror(f))
                st = HL_ERR_IO;
            break;
        }
        if (len > HL_WISDOM_FILE_MAX) { /* grew while being read */
            st = HL_ERR_IO;
            errno = EFBIG;
            break;
        }
    }
    const int saved = errno;
    fclose(f);
    if (st == HL_OK) {
        buf[len] = '\0';
        st = memchr(buf, '\0', len) ? HL_ERR_SYNTAX : hl_wisdom_import(buf);
    }
    free(buf);
    if (st == HL_ERR_IO)
        errno = saved;
    return st;
}
