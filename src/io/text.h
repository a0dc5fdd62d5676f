/* Line and token scanning shared by the text readers (internal).
 *
 * Every reader takes its lines from one line source, struct cs_lines, which reads either a
 * length-delimited buffer (fuzzers and unit tests feed arbitrary bytes) or a file through zlib's
 * gzread, so a gzip-compressed file reads the same as the plain one. A file is streamed through
 * a fixed buffer: memory is bounded by what the reader builds, never by the size of the file.
 *
 * Both sources apply the same rules, so that a fuzzer sees what a file would: a line is at most
 * CS_LINE_MAX bytes without its newline (a longer one, or a file that never ends a line such as
 * /dev/zero, is "name:line: line longer than ..."), and a NUL byte is binary data, not text.
 * A line is [start, end) without its newline (and without a '\r'); it stays valid until the next
 * call, so a reader that keeps text beyond the current line copies it.
 */
#ifndef CLOUDSM_IO_TEXT_H
#define CLOUDSM_IO_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#include "cloudsm/error.h"

/* Longest line any reader accepts, in bytes without the newline (docs/formats/README.md). */
#define CS_LINE_MAX 65536

/* What is kept of the first line that is not blank or a comment, to tell what a file is. */
#define CS_LINES_SAMPLE 96

struct cs_span {
    const char *p;
    const char *end;
};

struct cs_lines {
    const char *name; /* in error messages */
    struct cs_error *err;
    unsigned number; /* 1-based number of the line last returned */
    uint64_t bytes;  /* bytes consumed so far */
    bool failed;     /* an error was reported: cs_lines_next keeps returning -1 */
    /* memory source */
    const char *pos;
    const char *end;
    /* file source: file is NULL for a memory source */
    gzFile file;
    char *buf; /* 2 * CS_LINE_MAX bytes: [start, fill) is unread, [start, scanned) has no '\n' */
    size_t start, scanned, fill;
    bool at_eof;
    /* the first line that is not blank or a '#' comment, trimmed, truncated to CS_LINES_SAMPLE
     * bytes */
    char sample[CS_LINES_SAMPLE];
    size_t sample_len;
    bool has_sample;
};

/* A source over text[0, len). name and err are used for errors. */
void cs_lines_init(struct cs_lines *l, const char *text, size_t len, const char *name,
                   struct cs_error *err);
/* A source over a file (plain or gzip); path names it in errors. Close it in every case. */
int cs_lines_open(struct cs_lines *l, const char *path, struct cs_error *err);
void cs_lines_close(struct cs_lines *l);

/* Next line into *line: 1, 0 at the end of the input, -1 on an error (err says
 * "name:line: what", or "name: what" for a read error). */
int cs_lines_next(struct cs_lines *l, struct cs_span *line);

/* A 64-bit fingerprint (FNV-1a) of the file's lines, read through the line source: its rules
 * and errors apply, gzip is transparent, memory stays bounded. Two reads that give the same lines
 * give the same value; a reader that wants to know whether a file changed compares these. */
int cs_text_fingerprint(const char *path, uint64_t *fingerprint, struct cs_error *err);

/* What the input read so far looks like, for "expected X; found Y" messages: "an empty file",
 * "only blank lines and comments", "an OpenSM subnet list (opensm-subnet.lst)", "an LFT dump",
 * "a topology", "an OpenSM guid2lid file" or "text starting \"...\"" (escaped). */
void cs_lines_describe(const struct cs_lines *l, char *buf, size_t size);

/* Input text quoted in an error message: printable ASCII as is, '"' and '\\' and every other byte
 * escaped (\n, \t, \xHH), truncated with "..." to fit size (NUL-terminated). Returns out. */
char *cs_text_escape(const char *p, size_t len, char *out, size_t size);

/* Input text as an error message quotes it: escaped, and cut after CS_QUOTE_MAX bytes. Returned
 * by value so that it can be written straight into an argument list: cs_quote(p, n).text. */
#define CS_QUOTE_MAX 64
struct cs_quote {
    char text[4 * CS_QUOTE_MAX + 4];
};
struct cs_quote cs_quote(const char *p, size_t len);
static inline struct cs_quote cs_quote_span(const struct cs_span *s)
{
    return cs_quote(s->p, (size_t)(s->end - s->p));
}

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
