#include "text.h"

#include <string.h>

bool cs_lines_next(struct cs_lines *l, struct cs_span *line)
{
    if (l->pos >= l->end)
        return false;
    const char *nl = memchr(l->pos, '\n', (size_t)(l->end - l->pos));
    const char *stop = nl ? nl : l->end;
    line->p = l->pos;
    line->end = stop;
    if (line->end > line->p && line->end[-1] == '\r')
        line->end--;
    l->pos = nl ? nl + 1 : l->end;
    l->number++;
    return true;
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
