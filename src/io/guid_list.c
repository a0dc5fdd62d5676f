/* GUID list files (include/cloudsm/guid_list.h). */
#include "cloudsm/guid_list.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/atomic_file.h"
#include "cloudsm/key_index.h"
#include "core/grow.h"
#include "io/text.h"

void cs_guid_list_free(struct cs_guid_list *l)
{
    free(l->guids);
    memset(l, 0, sizeof *l);
}

/* Lines of the GUIDs, parallel to l->guids, for messages about duplicates. */
static int check_duplicates(const struct cs_guid_list *l, const uint32_t *lines, const char *name,
                            struct cs_error *err)
{
    struct cs_key_index ix;
    cs_key_index_init(&ix);
    if (cs_key_index_reserve(&ix, l->count, err) < 0)
        return -1;
    for (uint32_t i = 0; i < l->count; i++)
        cs_key_index_add(&ix, l->guids[i], i, err);
    cs_key_index_sort(&ix);
    uint64_t guid;
    uint32_t first, second;
    int rc = 0;
    if (cs_key_index_duplicate(&ix, &guid, &first, &second))
        rc = cs_fail_at(err, name, lines[second], "GUID 0x%016" PRIx64 " is listed twice (line %u)",
                        guid, lines[first]);
    cs_key_index_free(&ix);
    return rc;
}

static int parse_source(struct cs_guid_list *l, struct cs_lines *in, struct cs_error *err)
{
    memset(l, 0, sizeof *l);
    const char *name = in->name;
    uint32_t *lines = NULL, lines_capacity = 0;
    struct cs_span line;
    int rc = 0, got;
    while (rc == 0 && (got = cs_lines_next(in, &line)) > 0) {
        cs_span_skip_space(&line);
        if (cs_span_empty(&line) || *line.p == '#')
            continue;
        uint64_t guid;
        /* Like parse_node_map: the number must end at a blank, a '#' or the end of the line. */
        if (!cs_span_u64(&line, 0, &guid) ||
            (!cs_span_empty(&line) && !cs_is_blank(*line.p) && *line.p != '#')) {
            rc = cs_fail_at(err, name, in->number, "expected a GUID (0x hex or decimal)");
            break;
        }
        if (guid == 0) {
            rc = cs_fail_at(err, name, in->number, "GUID 0 is not a valid GUID");
            break;
        }
        if (cs_grow((void **)&l->guids, &l->capacity, (uint64_t)l->count + 1, sizeof *l->guids,
                    err) < 0 ||
            cs_grow((void **)&lines, &lines_capacity, (uint64_t)l->count + 1, sizeof *lines, err) <
                0) {
            rc = -1;
            break;
        }
        lines[l->count] = in->number;
        l->guids[l->count++] = guid;
    }
    if (rc == 0 && got < 0)
        rc = -1;
    if (rc == 0)
        rc = check_duplicates(l, lines, name, err);
    free(lines);
    if (rc < 0)
        cs_guid_list_free(l);
    return rc;
}

int cs_guid_list_parse(struct cs_guid_list *l, const char *text, size_t len, const char *name,
                       struct cs_error *err)
{
    struct cs_lines in;
    cs_lines_init(&in, text, len, name, err);
    return parse_source(l, &in, err);
}

int cs_guid_list_read(struct cs_guid_list *l, const char *path, struct cs_error *err)
{
    struct cs_lines in;
    memset(l, 0, sizeof *l);
    if (cs_lines_open(&in, path, err) < 0)
        return -1;
    int rc = parse_source(l, &in, err);
    cs_lines_close(&in);
    return rc;
}

int cs_guid_list_write(FILE *out, const struct cs_guid_list *l, struct cs_error *err)
{
    for (uint32_t i = 0; i < l->count; i++)
        if (fprintf(out, "0x%016" PRIx64 "\n", l->guids[i]) < 0)
            return cs_fail(err, "writing a GUID list failed");
    return fflush(out) == 0 ? 0 : cs_fail(err, "writing a GUID list failed");
}
