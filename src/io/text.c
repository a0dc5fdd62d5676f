#include "text.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/hash.h"

/* The file buffer holds one longest line plus as much again for reading ahead. */
#define FILE_BUF_SIZE (2 * (size_t)CS_LINE_MAX)
/* zlib's own input buffer: large reads keep gzread's per-call overhead out of the hot path. */
#define GZ_BUF_SIZE (256 * 1024)

void cs_lines_init(struct cs_lines *l, const char *text, size_t len, const char *name,
                   struct cs_error *err)
{
    memset(l, 0, sizeof *l);
    l->name = name ? name : "<input>";
    l->err = err;
    l->pos = text;
    l->end = text ? text + len : NULL; /* NULL + 0 is undefined */
}

int cs_lines_open(struct cs_lines *l, const char *path, struct cs_error *err)
{
    cs_lines_init(l, NULL, 0, path, err);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return cs_fail(err, "%s: is a directory", path);
    errno = 0;
    l->file = gzopen(path, "rb");
    if (!l->file)
        return cs_fail(err, "%s: %s", path, errno ? strerror(errno) : "out of memory");
    l->buf = malloc(FILE_BUF_SIZE);
    if (!l->buf || gzbuffer(l->file, GZ_BUF_SIZE) != 0) {
        cs_lines_close(l);
        return cs_fail(err, "%s: out of memory", path);
    }
    return 0;
}

void cs_lines_close(struct cs_lines *l)
{
    if (l->file)
        gzclose_r(l->file);
    l->file = NULL;
    free(l->buf);
    l->buf = NULL;
}

static int fail_line(struct cs_lines *l, unsigned line, const char *what)
{
    l->failed = true;
    return cs_fail_at(l->err, l->name, line, "%s", what);
}

/* Read more of the file after the unread bytes; 0 at the end of the file, -1 on an error. */
static int fill_buffer(struct cs_lines *l)
{
    if (l->start > 0) {
        memmove(l->buf, l->buf + l->start, l->fill - l->start);
        l->fill -= l->start;
        l->scanned -= l->start;
        l->start = 0;
    }
    int got = gzread(l->file, l->buf + l->fill, (unsigned)(FILE_BUF_SIZE - l->fill));
    if (got < 0) {
        int code;
        const char *why = gzerror(l->file, &code);
        l->failed = true;
        if (code == Z_ERRNO)
            why = strerror(errno);
        return cs_fail(l->err, "%s: %s", l->name, why);
    }
    if (got == 0) {
        int code;
        const char *why = gzerror(l->file, &code);
        if (code != Z_OK && code != Z_STREAM_END) {
            l->failed = true;
            return cs_fail(l->err, "%s: %s (a truncated or damaged gzip file)", l->name, why);
        }
        l->at_eof = true;
        return 0;
    }
    l->fill += (size_t)got;
    return 1;
}

/* The next raw line [*p, *end), unchecked: 1, 0 at the end of the input, -1 on a read error. */
static int raw_line(struct cs_lines *l, const char **p, const char **end)
{
    if (!l->file) {
        if (l->pos >= l->end)
            return 0;
        const char *nl = memchr(l->pos, '\n', (size_t)(l->end - l->pos));
        *p = l->pos;
        *end = nl ? nl : l->end;
        l->pos = nl ? nl + 1 : l->end;
        return 1;
    }
    for (;;) {
        char *nl = memchr(l->buf + l->scanned, '\n', l->fill - l->scanned);
        if (nl) {
            *p = l->buf + l->start;
            *end = nl;
            l->start = l->scanned = (size_t)(nl + 1 - l->buf);
            return 1;
        }
        l->scanned = l->fill;
        if (l->fill - l->start > CS_LINE_MAX) {
            *p = l->buf + l->start;
            *end = l->buf + l->fill; /* long: the caller reports it */
            return 1;
        }
        if (l->at_eof || fill_buffer(l) == 0) {
            if (l->failed)
                return -1;
            if (l->start == l->fill)
                return 0;
            *p = l->buf + l->start;
            *end = l->buf + l->fill;
            l->start = l->scanned = l->fill;
            return 1;
        }
        if (l->failed)
            return -1;
    }
}

static void keep_sample(struct cs_lines *l, struct cs_span line)
{
    cs_span_skip_space(&line);
    cs_span_trim_right(&line);
    if (cs_span_empty(&line) || *line.p == '#')
        return;
    size_t n = (size_t)(line.end - line.p);
    l->sample_len = n < sizeof l->sample ? n : sizeof l->sample;
    memcpy(l->sample, line.p, l->sample_len);
    l->has_sample = true;
}

int cs_lines_next(struct cs_lines *l, struct cs_span *line)
{
    if (l->failed)
        return -1;
    const char *p, *end;
    int got = raw_line(l, &p, &end);
    if (got <= 0)
        return got;
    l->number++;
    size_t len = (size_t)(end - p);
    l->bytes += len + 1;
    if (len > CS_LINE_MAX) {
        char what[64];
        snprintf(what, sizeof what, "line longer than %d bytes", CS_LINE_MAX);
        return fail_line(l, l->number, what);
    }
    if (memchr(p, '\0', len))
        return fail_line(l, l->number, "NUL byte: binary data, not text");
    line->p = p;
    line->end = end;
    if (line->end > line->p && line->end[-1] == '\r')
        line->end--;
    if (!l->has_sample)
        keep_sample(l, *line);
    return 1;
}

static bool sample_has(const struct cs_lines *l, const char *needle)
{
    struct cs_span s = {l->sample, l->sample + l->sample_len};
    return cs_span_find(&s, needle) != NULL;
}

static bool sample_starts(const struct cs_lines *l, const char *word)
{
    struct cs_span s = {l->sample, l->sample + l->sample_len};
    return cs_span_starts_with(&s, word);
}

void cs_lines_describe(const struct cs_lines *l, char *buf, size_t size)
{
    if (l->bytes == 0) {
        snprintf(buf, size, "an empty file");
        return;
    }
    if (!l->has_sample) {
        snprintf(buf, size, "only blank lines and comments");
        return;
    }
    /* Judged from the first non-blank line: each format's files start in a telling way. */
    const char *kind = NULL;
    if (sample_starts(l, "{ ") && sample_has(l, "NodeGUID:"))
        kind = "an OpenSM subnet list (opensm-subnet.lst)";
    else if (sample_starts(l, "Unicast lids") || sample_starts(l, "Multicast mlids"))
        kind = "an LFT dump";
    else if (sample_starts(l, "Switch") || sample_starts(l, "Ca\t") || sample_starts(l, "Ca ") ||
             sample_starts(l, "Hca") || sample_starts(l, "Rt\t") || sample_starts(l, "Rt ") ||
             sample_starts(l, "switchguid") || sample_starts(l, "caguid") ||
             sample_starts(l, "vendid") || sample_starts(l, "sysimgguid"))
        kind = "a topology";
    else if (sample_starts(l, "0x") && sample_has(l, " 0x") && !sample_has(l, "#"))
        kind = "an OpenSM guid2lid file";
    if (kind) {
        snprintf(buf, size, "%s", kind);
        return;
    }
    char quoted[48];
    cs_text_escape(l->sample, l->sample_len, quoted, sizeof quoted);
    snprintf(buf, size, "text starting \"%s\"", quoted);
}

/* The escaped form of byte c into piece (at most 4 bytes); returns its length. */
static size_t escape_byte(unsigned char c, char piece[4])
{
    static const char hex[] = "0123456789abcdef";
    if (c == '"' || c == '\\') {
        piece[0] = '\\';
        piece[1] = (char)c;
        return 2;
    }
    if (c == '\n' || c == '\t' || c == '\r') {
        piece[0] = '\\';
        piece[1] = c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
        return 2;
    }
    if (c >= 0x20 && c < 0x7f) {
        piece[0] = (char)c;
        return 1;
    }
    piece[0] = '\\';
    piece[1] = 'x';
    piece[2] = hex[c >> 4];
    piece[3] = hex[c & 15];
    return 4;
}

int cs_text_fingerprint(const char *path, uint64_t *fingerprint, struct cs_error *err)
{
    struct cs_lines in;
    if (cs_lines_open(&in, path, err) < 0)
        return -1;
    uint64_t h = CS_FNV1A64_START;
    struct cs_span line;
    int rc;
    while ((rc = cs_lines_next(&in, &line)) == 1) {
        h = cs_fnv1a64(h, line.p, (size_t)(line.end - line.p));
        h = cs_fnv1a64(h, "\n", 1);
    }
    cs_lines_close(&in);
    *fingerprint = h;
    return rc < 0 ? -1 : 0;
}

char *cs_text_escape(const char *p, size_t len, char *out, size_t size)
{
    if (size == 0)
        return out;
    char piece[4];
    size_t total = 0;
    for (size_t i = 0; i < len; i++)
        total += escape_byte((unsigned char)p[i], piece);
    /* What does not fit whole is cut where "..." and the NUL still fit after it. */
    size_t limit = total < size ? size - 1 : (size > 4 ? size - 4 : 0);
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        size_t n = escape_byte((unsigned char)p[i], piece);
        if (o + n > limit)
            break;
        memcpy(out + o, piece, n);
        o += n;
    }
    if (total >= size)
        for (int dots = 0; dots < 3 && o + 1 < size; dots++)
            out[o++] = '.';
    out[o] = '\0';
    return out;
}

struct cs_quote cs_quote(const char *p, size_t len)
{
    struct cs_quote q;
    cs_text_escape(p, len < CS_QUOTE_MAX ? len : CS_QUOTE_MAX, q.text, sizeof q.text);
    return q;
}

void cs_span_skip_space(struct cs_span *s)
{
    while (s->p < s->end && (cs_is_blank(*s->p) || *s->p == '\n'))
        s->p++;
}

void cs_span_trim_right(struct cs_span *s)
{
    while (s->end > s->p && (cs_is_blank(s->end[-1]) || s->end[-1] == '\n'))
        s->end--;
}

bool cs_span_starts_with(const struct cs_span *s, const char *word)
{
    size_t n = strlen(word);
    return (size_t)(s->end - s->p) >= n && memcmp(s->p, word, n) == 0;
}

bool cs_span_eat(struct cs_span *s, const char *word)
{
    if (!cs_span_starts_with(s, word))
        return false;
    s->p += strlen(word);
    return true;
}

bool cs_span_eat_char(struct cs_span *s, char c)
{
    if (s->p < s->end && *s->p == c) {
        s->p++;
        return true;
    }
    return false;
}

const char *cs_span_find(const struct cs_span *s, const char *needle)
{
    size_t n = strlen(needle);
    if (n == 0)
        return s->p;
    for (const char *q = s->p; q + n <= s->end; q++) {
        q = memchr(q, needle[0], (size_t)(s->end - q));
        if (!q || q + n > s->end)
            return NULL;
        if (memcmp(q, needle, n) == 0)
            return q;
    }
    return NULL;
}

/* Value of c as a digit of `base` (10 or 16), or -1. */
static int digit_value(char c, int base)
{
    int d = cs_hex_digit(c);
    return d < base ? d : -1;
}

bool cs_span_u64(struct cs_span *s, int base, uint64_t *out)
{
    const char *p = s->p;
    if ((base == 0 || base == 16) && s->end - p >= 2 && p[0] == '0' &&
        (p[1] == 'x' || p[1] == 'X') && s->end - p > 2 && digit_value(p[2], 16) >= 0) {
        p += 2;
        base = 16;
    } else if (base == 0) {
        base = 10;
    }
    uint64_t v = 0;
    const char *start = p;
    while (p < s->end) {
        int d = digit_value(*p, base);
        if (d < 0)
            break;
        if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
            return false;
        v = v * (uint64_t)base + (uint64_t)d;
        p++;
    }
    if (p == start)
        return false;
    s->p = p;
    *out = v;
    return true;
}

bool cs_span_quoted(struct cs_span *s, struct cs_span *inside)
{
    if (s->p >= s->end || *s->p != '"')
        return false;
    const char *close = memchr(s->p + 1, '"', (size_t)(s->end - s->p - 1));
    if (!close)
        return false;
    inside->p = s->p + 1;
    inside->end = close;
    s->p = close + 1;
    return true;
}

void cs_span_copy(const struct cs_span *s, char *buf, size_t size)
{
    size_t n = (size_t)(s->end - s->p);
    if (n >= size)
        n = size - 1;
    memcpy(buf, s->p, n);
    buf[n] = '\0';
}
