/* The JSON writer (include/cloudsm/json.h). */
#include "cloudsm/json.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

void cs_json_init(struct cs_json *j, FILE *out)
{
    j->out = out;
    j->depth = 0;
    j->need_comma[0] = false;
}

static void put_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"':
            fputs("\\\"", out);
            break;
        case '\\':
            fputs("\\\\", out);
            break;
        case '\n':
            fputs("\\n", out);
            break;
        case '\t':
            fputs("\\t", out);
            break;
        case '\r':
            fputs("\\r", out);
            break;
        default:
            if (*p < 0x20)
                fprintf(out, "\\u%04x", *p);
            else
                fputc(*p, out);
        }
    }
    fputc('"', out);
}

/* Comma, indentation and key before a value. */
static void member(struct cs_json *j, const char *key)
{
    if (j->need_comma[j->depth])
        fputc(',', j->out);
    j->need_comma[j->depth] = true;
    if (j->depth > 0) {
        fputc('\n', j->out);
        for (int i = 0; i < j->depth; i++)
            fputs("  ", j->out);
    }
    if (key) {
        put_string(j->out, key);
        fputs(": ", j->out);
    }
}

static void open_container(struct cs_json *j, const char *key, char bracket)
{
    member(j, key);
    fputc(bracket, j->out);
    if (j->depth + 1 < (int)(sizeof j->need_comma / sizeof j->need_comma[0]))
        j->depth++;
    j->need_comma[j->depth] = false;
}

static void close_container(struct cs_json *j, char bracket)
{
    bool had_members = j->need_comma[j->depth];
    j->depth--;
    if (had_members) {
        fputc('\n', j->out);
        for (int i = 0; i < j->depth; i++)
            fputs("  ", j->out);
    }
    fputc(bracket, j->out);
}

void cs_json_object_begin(struct cs_json *j, const char *key)
{
    open_container(j, key, '{');
}

void cs_json_object_end(struct cs_json *j)
{
    close_container(j, '}');
}

void cs_json_array_begin(struct cs_json *j, const char *key)
{
    open_container(j, key, '[');
}

void cs_json_array_end(struct cs_json *j)
{
    close_container(j, ']');
}

void cs_json_u64(struct cs_json *j, const char *key, uint64_t v)
{
    member(j, key);
    fprintf(j->out, "%" PRIu64, v);
}

void cs_json_double(struct cs_json *j, const char *key, double v)
{
    member(j, key);
    if (isfinite(v))
        fprintf(j->out, "%.6g", v);
    else
        fputs("null", j->out);
}

void cs_json_double_exact(struct cs_json *j, const char *key, double v)
{
    member(j, key);
    if (!isfinite(v)) {
        fputs("null", j->out);
        return;
    }
    char buf[32];
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, sizeof buf, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    fputs(buf, j->out);
}

void cs_json_raw(struct cs_json *j, const char *key, const char *json_text)
{
    member(j, key);
    fputs(json_text, j->out);
}

void cs_json_str(struct cs_json *j, const char *key, const char *v)
{
    member(j, key);
    put_string(j->out, v);
}

void cs_json_bool(struct cs_json *j, const char *key, bool v)
{
    member(j, key);
    fputs(v ? "true" : "false", j->out);
}

void cs_json_guid(struct cs_json *j, const char *key, uint64_t guid)
{
    char buf[24];
    snprintf(buf, sizeof buf, "0x%016" PRIx64, guid);
    cs_json_str(j, key, buf);
}

void cs_json_finish(struct cs_json *j)
{
    fputc('\n', j->out);
}
