/* Node-weights files (include/cloudsm/weights.h, docs/formats/weights.md). */
#include "cloudsm/weights.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/atomic_file.h"
#include "cloudsm/key_index.h"
#include "core/grow.h"
#include "io/text.h"

void cs_node_weights_init(struct cs_node_weights *w)
{
    memset(w, 0, sizeof *w);
}

void cs_node_weights_free(struct cs_node_weights *w)
{
    free(w->entries);
    cs_node_weights_init(w);
}

int cs_node_weights_copy(struct cs_node_weights *dst, const struct cs_node_weights *src,
                         struct cs_error *err)
{
    cs_node_weights_init(dst);
    if (src->count == 0)
        return 0;
    if (cs_grow((void **)&dst->entries, &dst->capacity, src->count, sizeof *dst->entries, err) < 0)
        return -1;
    memcpy(dst->entries, src->entries, src->count * sizeof *src->entries);
    dst->count = src->count;
    return 0;
}

static int append(struct cs_node_weights *w, uint64_t guid, uint32_t weight, unsigned line,
                  struct cs_error *err)
{
    if (cs_grow((void **)&w->entries, &w->capacity, (uint64_t)w->count + 1, sizeof *w->entries,
                err) < 0)
        return -1;
    w->entries[w->count++] = (struct cs_node_weight){.guid = guid, .weight = weight, .line = line};
    return 0;
}

int cs_node_weights_add(struct cs_node_weights *w, uint64_t guid, uint32_t weight,
                        struct cs_error *err)
{
    if (guid == 0)
        return cs_fail(err, "GUID 0 is not a valid port GUID");
    if (weight < 1 || weight > CS_WEIGHT_MAX)
        return cs_fail(err, "port 0x%016" PRIx64 ": weight %" PRIu32 " is not in 1..%u", guid,
                       weight, CS_WEIGHT_MAX);
    return append(w, guid, weight, 0, err);
}

static int compare_entries(const void *pa, const void *pb)
{
    const struct cs_node_weight *a = pa, *b = pb;
    return (a->guid > b->guid) - (a->guid < b->guid);
}

int cs_node_weights_sort(struct cs_node_weights *w, const char *name, struct cs_error *err)
{
    /* Duplicates are found in entry order (= input order for a file), as every reader does. */
    struct cs_key_index ix;
    cs_key_index_init(&ix);
    if (cs_key_index_reserve(&ix, w->count, err) < 0)
        return -1;
    for (uint32_t i = 0; i < w->count; i++)
        cs_key_index_add(&ix, w->entries[i].guid, i, err);
    cs_key_index_sort(&ix);
    uint64_t guid;
    uint32_t first, second;
    bool twice = cs_key_index_duplicate(&ix, &guid, &first, &second);
    cs_key_index_free(&ix);
    if (twice && w->entries[second].line == 0)
        return cs_fail(err, "%s: port GUID 0x%016" PRIx64 " is given twice",
                       name ? name : "weights", guid);
    if (twice)
        return cs_fail_at(err, name, w->entries[second].line,
                          "port GUID 0x%016" PRIx64 " is given twice (line %u)", guid,
                          w->entries[first].line);
    if (w->count > 1)
        qsort(w->entries, w->count, sizeof *w->entries, compare_entries);
    return 0;
}

uint32_t cs_node_weights_find(const struct cs_node_weights *w, uint64_t guid)
{
    if (!w)
        return CS_WEIGHT_DEFAULT;
    uint32_t lo = 0, hi = w->count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (w->entries[mid].guid < guid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < w->count && w->entries[lo].guid == guid ? w->entries[lo].weight : CS_WEIGHT_DEFAULT;
}

/* A number ends at a blank, a '#' or the end of the line ("0x10x" and "5kg" are not numbers). */
static bool at_token_end(const struct cs_span *s)
{
    return cs_span_empty(s) || cs_is_blank(*s->p) || *s->p == '#';
}

/* What the first entry line was expected to look like, and what the file looks like instead:
 * a user who passes the wrong file learns which one it was. */
static int fail_entry(struct cs_lines *in, unsigned entries, const char *fmt, ...) CS_PRINTF(3, 4);
static int fail_entry(struct cs_lines *in, unsigned entries, const char *fmt, ...)
{
    char what[CS_ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (entries > 0)
        return cs_fail_at(in->err, in->name, in->number, "%s", what);
    char found[160];
    cs_lines_describe(in, found, sizeof found);
    return cs_fail_at(in->err, in->name, in->number,
                      "%s (expected a weights file of \"<port GUID> <weight>\" lines; found %s)",
                      what, found);
}

static int parse_line(struct cs_node_weights *w, struct cs_lines *in, struct cs_span *line)
{
    uint64_t guid, weight;
    if (!cs_span_u64(line, 0, &guid) || !at_token_end(line))
        return fail_entry(in, w->count, "expected a port GUID (0x hex or decimal)");
    if (guid == 0)
        return fail_entry(in, w->count, "GUID 0 is not a valid port GUID");
    cs_span_skip_space(line);
    if (cs_span_empty(line) || *line->p == '#')
        return fail_entry(in, w->count, "a weight is missing after the port GUID");
    struct cs_span number = *line;
    if (!cs_span_u64(line, 10, &weight) || !at_token_end(line)) {
        number.end = number.p;
        while (number.end < line->end && !cs_is_blank(*number.end))
            number.end++;
        return fail_entry(in, w->count, "weight \"%s\" is not a whole number from 1 to %u",
                          cs_quote_span(&number).text, CS_WEIGHT_MAX);
    }
    if (weight < 1 || weight > CS_WEIGHT_MAX)
        return fail_entry(in, w->count, "weight %" PRIu64 " is not in 1..%u", weight,
                          CS_WEIGHT_MAX);
    cs_span_skip_space(line);
    if (!cs_span_empty(line) && *line->p != '#') {
        return fail_entry(in, w->count, "unexpected \"%s\" after the weight",
                          cs_quote_span(line).text);
    }
    return append(w, guid, (uint32_t)weight, in->number, in->err);
}

static int parse_source(struct cs_node_weights *w, struct cs_lines *in)
{
    struct cs_span line;
    int rc = 0, got;
    while (rc == 0 && (got = cs_lines_next(in, &line)) > 0) {
        cs_span_skip_space(&line);
        if (cs_span_empty(&line) || *line.p == '#')
            continue;
        rc = parse_line(w, in, &line);
    }
    if (rc == 0 && got < 0)
        rc = -1;
    if (rc == 0 && w->count == 0) {
        char found[160];
        cs_lines_describe(in, found, sizeof found);
        rc = cs_fail(in->err,
                     "%s: expected a weights file (\"<port GUID> <weight>\" lines); found %s",
                     in->name, found);
    }
    if (rc == 0)
        rc = cs_node_weights_sort(w, in->name, in->err);
    if (rc < 0)
        cs_node_weights_free(w);
    return rc;
}

int cs_node_weights_parse(struct cs_node_weights *w, const char *text, size_t len, const char *name,
                          struct cs_error *err)
{
    cs_node_weights_init(w);
    struct cs_lines in;
    cs_lines_init(&in, text, len, name, err);
    return parse_source(w, &in);
}

int cs_node_weights_read(struct cs_node_weights *w, const char *path, struct cs_error *err)
{
    cs_node_weights_init(w);
    struct cs_lines in;
    if (cs_lines_open(&in, path, err) < 0)
        return -1;
    int rc = parse_source(w, &in);
    cs_lines_close(&in);
    return rc;
}

int cs_node_weights_write(FILE *out, const struct cs_node_weights *w, struct cs_error *err)
{
    fprintf(out, "# port GUID          weight\n");
    for (uint32_t i = 0; i < w->count; i++)
        fprintf(out, "0x%016" PRIx64 " %" PRIu32 "\n", w->entries[i].guid, w->entries[i].weight);
    if (fflush(out) != 0 || ferror(out))
        return cs_fail(err, "writing node weights failed: %s", strerror(errno));
    return 0;
}

static int write_callback(FILE *out, const void *ctx, struct cs_error *err)
{
    return cs_node_weights_write(out, ctx, err);
}

int cs_node_weights_write_file(const char *path, const struct cs_node_weights *w,
                               struct cs_error *err)
{
    return cs_atomic_write(path, write_callback, w, err);
}
