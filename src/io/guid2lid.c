/* OpenSM's guid2lid cache file ($OSM_CACHE_DIR/guid2lid).
 *
 * OpenSM's generic db (osm_db_files.c) stores "key value" followed by a blank line; for guid2lid
 * the key is the port GUID and the value pack_lids()'s "0x%04x 0x%04x" (first and last LID of
 * the port's range). We read one entry per non-blank line, which is what OpenSM writes, and
 * refuse anything that would make two ports answer the same LID.
 */
#include "cloudsm/lid.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/atomic_file.h"
#include "cloudsm/lft.h"
#include "core/grow.h"
#include "io/text.h"

void cs_guid2lid_free(struct cs_guid2lid *g)
{
    free(g->entries);
    memset(g, 0, sizeof *g);
}

/* Entries and their line numbers grow together; lines_capacity tracks the second array. */
static int append(struct cs_guid2lid *g, uint32_t **lines, uint32_t *lines_capacity,
                  struct cs_guid2lid_entry e, uint32_t line, struct cs_error *err)
{
    if (cs_grow((void **)&g->entries, &g->capacity, (uint64_t)g->count + 1, sizeof *g->entries,
                err) < 0 ||
        cs_grow((void **)lines, lines_capacity, (uint64_t)g->count + 1, sizeof **lines, err) < 0)
        return -1;
    (*lines)[g->count] = line;
    g->entries[g->count++] = e;
    return 0;
}

/* A GUID listed twice or two overlapping ranges: both make the file ambiguous. The error names
 * the earliest line at which the conflict becomes visible when reading top to bottom. */
static int check_conflicts(const struct cs_guid2lid *g, const uint32_t *lines, const char *name,
                           struct cs_error *err)
{
    if (g->count < 2)
        return 0;
    /* Entry indices follow line order, so "smaller entry index" means "earlier line". */
    struct cs_key_index by_guid, by_lid;
    cs_key_index_init(&by_guid);
    cs_key_index_init(&by_lid);
    if (cs_key_index_reserve(&by_guid, g->count, err) < 0 ||
        cs_key_index_reserve(&by_lid, g->count, err) < 0) {
        cs_key_index_free(&by_guid);
        return -1;
    }
    for (uint32_t i = 0; i < g->count; i++) {
        cs_key_index_add(&by_guid, g->entries[i].guid, i, err);
        cs_key_index_add(&by_lid, g->entries[i].min_lid, i, err);
    }
    cs_key_index_sort(&by_guid);
    cs_key_index_sort(&by_lid);

    uint32_t bad_entry = UINT32_MAX, other_entry = 0;
    bool duplicate_guid = false;
    uint64_t guid;
    uint32_t first, second;
    if (cs_key_index_duplicate(&by_guid, &guid, &first, &second)) {
        bad_entry = second;
        other_entry = first;
        duplicate_guid = true;
    }
    /* Ranges sorted by start: one overlaps an earlier-starting one iff it starts at or below the
     * highest end seen so far. */
    uint32_t reach = by_lid.entries[0].value; /* entry with the highest max_lid so far */
    for (uint32_t i = 1; i < by_lid.count; i++) {
        uint32_t e = by_lid.entries[i].value;
        if (g->entries[e].min_lid <= g->entries[reach].max_lid) {
            uint32_t later = e > reach ? e : reach, earlier = e > reach ? reach : e;
            if (later < bad_entry) {
                bad_entry = later;
                other_entry = earlier;
                duplicate_guid = false;
            }
        }
        if (g->entries[e].max_lid > g->entries[reach].max_lid)
            reach = e;
    }
    cs_key_index_free(&by_guid);
    cs_key_index_free(&by_lid);
    if (bad_entry == UINT32_MAX)
        return 0;
    const struct cs_guid2lid_entry *bad = &g->entries[bad_entry];
    const struct cs_guid2lid_entry *other = &g->entries[other_entry];
    if (duplicate_guid)
        return cs_fail_at(err, name, lines[bad_entry],
                          "GUID 0x%016" PRIx64 " is listed twice (line %u)", bad->guid,
                          lines[other_entry]);
    return cs_fail_at(err, name, lines[bad_entry],
                      "LIDs 0x%04x-0x%04x of GUID 0x%016" PRIx64
                      " overlap 0x%04x-0x%04x of GUID 0x%016" PRIx64 " (line %u)",
                      bad->min_lid, bad->max_lid, bad->guid, other->min_lid, other->max_lid,
                      other->guid, lines[other_entry]);
}

static bool number_then_space(struct cs_span *s, uint64_t *value)
{
    if (!cs_span_u64(s, 0, value))
        return false;
    if (!cs_span_empty(s) && *s->p != ' ' && *s->p != '\t')
        return false;
    cs_span_skip_space(s);
    return true;
}

static int parse_source(struct cs_guid2lid *g, struct cs_lines *in, struct cs_error *err)
{
    const char *name = in->name;
    memset(g, 0, sizeof *g);
    uint32_t *lines = NULL, lines_capacity = 0;
    struct cs_span s;
    int got;
    while ((got = cs_lines_next(in, &s)) > 0) {
        cs_span_skip_space(&s);
        cs_span_trim_right(&s);
        if (cs_span_empty(&s) || *s.p == '#')
            continue;
        uint64_t guid, min_lid, max_lid;
        if (!number_then_space(&s, &guid) || guid == 0) {
            cs_fail_at(err, name, in->number, "expected a port GUID");
            goto fail;
        }
        if (!number_then_space(&s, &min_lid) || !number_then_space(&s, &max_lid)) {
            cs_fail_at(err, name, in->number, "expected \"0x<GUID> 0x<first LID> 0x<last LID>\"");
            goto fail;
        }
        if (!cs_span_empty(&s)) {
            cs_fail_at(err, name, in->number, "unexpected text after the LID range");
            goto fail;
        }
        if (min_lid == 0 || min_lid > CS_LID_UCAST_MAX || max_lid > CS_LID_UCAST_MAX) {
            cs_fail_at(err, name, in->number,
                       "LID range 0x%" PRIx64 "-0x%" PRIx64
                       " is outside the unicast LIDs 0x0001-0x%04x",
                       min_lid, max_lid, CS_LID_UCAST_MAX);
            goto fail;
        }
        if (min_lid > max_lid) {
            cs_fail_at(err, name, in->number,
                       "LID range 0x%04" PRIx64 "-0x%04" PRIx64 " ends before it starts", min_lid,
                       max_lid);
            goto fail;
        }
        struct cs_guid2lid_entry e = {guid, (uint16_t)min_lid, (uint16_t)max_lid};
        if (append(g, &lines, &lines_capacity, e, in->number, err) < 0)
            goto fail;
    }
    if (got < 0 || check_conflicts(g, lines, name, err) < 0)
        goto fail;
    free(lines);
    return 0;
fail:
    free(lines);
    cs_guid2lid_free(g);
    return -1;
}

int cs_guid2lid_parse(struct cs_guid2lid *g, const char *text, size_t len, const char *name,
                      struct cs_error *err)
{
    struct cs_lines in;
    cs_lines_init(&in, text, len, name, err);
    return parse_source(g, &in, err);
}

int cs_guid2lid_read(struct cs_guid2lid *g, const char *path, struct cs_error *err)
{
    struct cs_lines in;
    memset(g, 0, sizeof *g);
    if (cs_lines_open(&in, path, err) < 0)
        return -1;
    int rc = parse_source(g, &in, err);
    cs_lines_close(&in);
    return rc;
}

int cs_guid2lid_write(FILE *out, const struct cs_guid2lid *g, struct cs_error *err)
{
    for (uint32_t i = 0; i < g->count; i++) {
        const struct cs_guid2lid_entry *e = &g->entries[i];
        fprintf(out, "0x%016" PRIx64 " 0x%04x 0x%04x\n\n", e->guid, e->min_lid, e->max_lid);
    }
    if (fflush(out) != 0 || ferror(out))
        return cs_fail(err, "writing guid2lid failed: %s", strerror(errno));
    return 0;
}

static int write_callback(FILE *out, const void *ctx, struct cs_error *err)
{
    return cs_guid2lid_write(out, ctx, err);
}

int cs_guid2lid_write_file(const char *path, const struct cs_guid2lid *g, struct cs_error *err)
{
    return cs_atomic_write(path, write_callback, g, err);
}
