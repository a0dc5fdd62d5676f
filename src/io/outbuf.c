#include "io/outbuf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int cs_outbuf_init(struct cs_outbuf *o, FILE *fp, struct cs_error *err)
{
    memset(o, 0, sizeof *o);
    o->fp = fp;
    o->data = malloc(CS_OUTBUF_SIZE);
    if (!o->data)
        return cs_fail(err, "out of memory for the output buffer");
    return 0;
}

void cs_outbuf_flush(struct cs_outbuf *o)
{
    if (o->used && !o->failed && fwrite(o->data, 1, o->used, o->fp) != o->used) {
        o->failed = true;
        o->saved_errno = errno;
    }
    o->used = 0;
}

int cs_outbuf_finish(struct cs_outbuf *o, const char *what, struct cs_error *err)
{
    cs_outbuf_flush(o);
    if (!o->failed && (fflush(o->fp) != 0 || ferror(o->fp))) {
        o->failed = true;
        o->saved_errno = errno;
    }
    free(o->data);
    o->data = NULL;
    if (o->failed)
        return cs_fail(err, "%s failed: %s", what,
                       o->saved_errno ? strerror(o->saved_errno) : "I/O error");
    return 0;
}

void cs_outbuf_mem(struct cs_outbuf *o, const char *s, size_t n)
{
    while (n > 0) {
        size_t chunk = n < CS_OUTBUF_CHUNK_MAX ? n : CS_OUTBUF_CHUNK_MAX;
        memcpy(cs_outbuf_reserve(o, chunk), s, chunk);
        o->used += chunk;
        s += chunk;
        n -= chunk;
    }
}

void cs_outbuf_str(struct cs_outbuf *o, const char *s)
{
    cs_outbuf_mem(o, s, strlen(s));
}

void cs_outbuf_dec(struct cs_outbuf *o, uint64_t v)
{
    char tmp[20];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    char *at = cs_outbuf_reserve(o, n);
    for (size_t i = 0; i < n; i++)
        at[i] = tmp[n - 1 - i];
    o->used += n;
}

void cs_outbuf_hex(struct cs_outbuf *o, uint64_t v, int min_digits)
{
    static const char digits[] = "0123456789abcdef";
    char tmp[16];
    int n = 0;
    do {
        tmp[n++] = digits[v & 15];
        v >>= 4;
    } while (v);
    while (n < min_digits && n < 16)
        tmp[n++] = '0';
    char *at = cs_outbuf_reserve(o, (size_t)n);
    for (int i = 0; i < n; i++)
        at[i] = tmp[n - 1 - i];
    o->used += (size_t)n;
}

void cs_outbuf_printf(struct cs_outbuf *o, const char *fmt, ...)
{
    char *at = cs_outbuf_reserve(o, CS_OUTBUF_CHUNK_MAX);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(at, CS_OUTBUF_CHUNK_MAX, fmt, ap);
    va_end(ap);
    if (n > 0)
        o->used += (size_t)(n < CS_OUTBUF_CHUNK_MAX ? n : CS_OUTBUF_CHUNK_MAX - 1);
}
