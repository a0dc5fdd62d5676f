/* Buffered text output for the writers (internal).
 *
 * Topology and LFT files run to millions of lines; formatting them with stdio per field costs
 * more than everything else. Writers append to one large buffer with these helpers (numbers
 * formatted by hand) and the buffer goes to the FILE in big fwrite calls. An I/O error is
 * remembered and reported once by cs_outbuf_finish.
 */
#ifndef CLOUDSM_IO_OUTBUF_H
#define CLOUDSM_IO_OUTBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cloudsm/error.h"

#define CS_OUTBUF_SIZE (1u << 20)
/* The most a single cs_outbuf_reserve or cs_outbuf_printf may ask for. */
#define CS_OUTBUF_CHUNK_MAX 1024

struct cs_outbuf {
    FILE *fp;
    char *data;
    size_t used;
    int saved_errno;
    bool failed;
};

int cs_outbuf_init(struct cs_outbuf *o, FILE *fp, struct cs_error *err);
/* Flush what is left, check the stream, free the buffer. `what` names the output in the error
 * ("writing the topology failed: ..."). */
int cs_outbuf_finish(struct cs_outbuf *o, const char *what, struct cs_error *err);

void cs_outbuf_flush(struct cs_outbuf *o);

/* Room for len (<= CS_OUTBUF_CHUNK_MAX) bytes at the returned pointer; the caller writes them
 * and then advances o->used. */
static inline char *cs_outbuf_reserve(struct cs_outbuf *o, size_t len)
{
    if (o->used + len > CS_OUTBUF_SIZE)
        cs_outbuf_flush(o);
    return o->data + o->used;
}

static inline void cs_outbuf_char(struct cs_outbuf *o, char c)
{
    *cs_outbuf_reserve(o, 1) = c;
    o->used++;
}

void cs_outbuf_mem(struct cs_outbuf *o, const char *s, size_t n);
void cs_outbuf_str(struct cs_outbuf *o, const char *s);
/* Decimal, like %u. */
void cs_outbuf_dec(struct cs_outbuf *o, uint64_t v);
/* Lowercase hex without 0x, at least min_digits digits (zero-padded), like %0*llx. */
void cs_outbuf_hex(struct cs_outbuf *o, uint64_t v, int min_digits);
/* printf for the rare, short, irregular lines (headers); at most CS_OUTBUF_CHUNK_MAX bytes. */
void cs_outbuf_printf(struct cs_outbuf *o, const char *fmt, ...) CS_PRINTF(2, 3);

#endif
