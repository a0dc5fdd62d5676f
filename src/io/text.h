/* Line and token scanning shared by the text readers (internal).
 *
 * Readers work on a length-delimited buffer (not NUL-terminated strings) so that fuzzers can
 * feed arbitrary bytes; a line is [start, end) without its newline (and without a '\r').
 */
#ifndef CLOUDSM_IO_TEXT_H
#define CLOUDSM_IO_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cs_lines {
    const char *pos;
    const char *end;
    unsigned number; /* 1-based number of the line last returned */
};

struct cs_span {
    const char *p;
    const char *end;
};

static inline void cs_lines_init(struct cs_lines *l, const char *text, size_t len)
{
    l->pos = text;
    l->end = text + len;
    l->number = 0;
}

/* Next line into *line; false at end of input. */
bool cs_lines_next(struct cs_lines *l, struct cs_span *line);

/* Space or tab or another blank that is not a line end. */
static inline bool cs_is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* 0..15 for a hex digit, -1 otherwise. */
static inline int cs_hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static inline bool cs_span_empty(const struct cs_span *s)
{
    return s->p >= s->end;
}

void cs_span_skip_space(struct cs_span *s);
void cs_span_trim_right(struct cs_span *s);
/* Consume `word` if the span starts with it. */
bool cs_span_eat(struct cs_span *s, const char *word);
/* Consume one character c. */
bool cs_span_eat_char(struct cs_span *s, char c);
bool cs_span_starts_with(const struct cs_span *s, const char *word);
/* First occurrence of needle in the span, or NULL. */
const char *cs_span_find(const struct cs_span *s, const char *needle);

/* Unsigned numbers. base 0 accepts 0x-prefixed hex or decimal (like strtoull(.., 0)); base 16
 * accepts an optional 0x. At least one digit is required; overflow of 64 bits fails. */
bool cs_span_u64(struct cs_span *s, int base, uint64_t *out);
/* A quoted string "..." (no escapes, as ibnetdiscover prints them): returns its inside. */
bool cs_span_quoted(struct cs_span *s, struct cs_span *inside);

/* Copy a span into a NUL-terminated buffer, truncated to size - 1. */
void cs_span_copy(const struct cs_span *s, char *buf, size_t size);

#endif
