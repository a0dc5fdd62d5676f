/* Port counter snapshots: perfquery -x output or a port_guid,rcv_data CSV
 * (include/cloudsm/counters.h, docs/formats/weights.md). */
#include "cloudsm/counters.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/key_index.h"
#include "cloudsm/lft.h"
#include "core/grow.h"
#include "io/text.h"

/* perfquery's record headers: "# Port extended counters: Lid 3 port 1 (CapMask: ...)" with -x,
 * "# Port counters: ..." without it. */
#define PERFQUERY_EXTENDED "# Port extended counters:"
#define PERFQUERY_BASIC "# Port counters:"
#define CSV_HEADER "port_guid,rcv_data"
/* The PortSelect that makes perfquery sum the counters of every port of a node (-a). */
#define ALL_PORTS 255

enum snapshot_form { FORM_UNKNOWN, FORM_PERFQUERY, FORM_CSV };

struct reader {
    struct cs_counter_snapshot *s;
    struct cs_lines *in;
    enum snapshot_form form;
    bool in_record;      /* a perfquery record is open: its counter lines follow */
    bool record_has_rcv; /* ... and its PortRcvData line was seen */
};

void cs_counter_snapshot_free(struct cs_counter_snapshot *s)
{
    free(s->name);
    free(s->ports);
    memset(s, 0, sizeof *s);
}

/* "name:line: what" at the current line. */
static int fail(struct reader *r, const char *fmt, ...) CS_PRINTF(2, 3);
static int fail(struct reader *r, const char *fmt, ...)
{
    char what[CS_ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return cs_fail_at(r->in->err, r->in->name, r->in->number, "%s", what);
}

/* What a snapshot should be, and what the file is instead (for a file whose first entry is not
 * one). */
static int fail_not_snapshot(struct reader *r)
{
    char found[160];
    cs_lines_describe(r->in, found, sizeof found);
    return fail(r,
                "expected a port counter snapshot (perfquery -x output or \"" CSV_HEADER
                "\" CSV lines); found %s",
                found);
}

static int add_port(struct reader *r, uint64_t guid, uint16_t lid)
{
    struct cs_counter_snapshot *s = r->s;
    if (cs_grow((void **)&s->ports, &s->capacity, (uint64_t)s->count + 1, sizeof *s->ports,
                r->in->err) < 0)
        return -1;
    s->ports[s->count++] =
        (struct cs_port_counter){.guid = guid, .lid = lid, .line = r->in->number};
    return 0;
}

/* The end of a perfquery record: it must have said how much its port received. */
static int close_record(struct reader *r)
{
    if (r->in_record && !r->record_has_rcv) {
        const struct cs_port_counter *p = &r->s->ports[r->s->count - 1];
        return cs_fail_at(r->in->err, r->in->name, p->line,
                          "the perfquery record of LID %u has no PortRcvData line", p->lid);
    }
    r->in_record = false;
    return 0;
}

/* "# Port extended counters: Lid N port P (CapMask: ...)" */
static int start_record(struct reader *r, struct cs_span *line)
{
    if (r->form == FORM_CSV)
        return fail(r, "%s",
                    "a perfquery record in a CSV snapshot: a snapshot is one or the other");
    if (close_record(r) < 0)
        return -1;
    r->form = FORM_PERFQUERY;
    cs_span_eat(line, PERFQUERY_EXTENDED);
    cs_span_skip_space(line);
    uint64_t lid, port;
    if (!cs_span_eat(line, "Lid") || (cs_span_skip_space(line), !cs_span_u64(line, 10, &lid)) ||
        (cs_span_skip_space(line), !cs_span_eat(line, "port")) ||
        (cs_span_skip_space(line), !cs_span_u64(line, 10, &port)))
        return fail(r, "%s",
                    "expected \"Lid N port P\" after \"" PERFQUERY_EXTENDED
                    "\" (perfquery -x by LID, not by directed route)");
    if (lid == 0 || lid > CS_LID_UCAST_MAX)
        return fail(r, "%s", "the LID is not a unicast LID (1..0xbfff)");
    if (port == ALL_PORTS)
        return fail(r, "%s",
                    "port 255 is the sum over all ports of a node (perfquery -a): capture each end "
                    "port on its own");
    r->in_record = true;
    r->record_has_rcv = false;
    return add_port(r, 0, (uint16_t)lid);
}

/* "PortRcvData:.....................1008" inside a record; other counters are skipped. */
static int record_line(struct reader *r, struct cs_span *line)
{
    struct cs_span name = *line;
    while (line->p < line->end && *line->p != ':' && !cs_is_blank(*line->p))
        line->p++;
    name.end = line->p;
    if (cs_span_empty(&name) || !cs_span_eat_char(line, ':'))
        return fail(r, "expected a perfquery counter line (\"Name:....value\"), not \"%s\"",
                    cs_quote_span(&name).text);
    if (name.end - name.p != (long)strlen("PortRcvData") ||
        memcmp(name.p, "PortRcvData", strlen("PortRcvData")) != 0)
        return 0;
    if (r->record_has_rcv)
        return fail(r, "%s", "a second PortRcvData line in one perfquery record");
    while (cs_span_eat_char(line, '.'))
        ;
    uint64_t value;
    struct cs_span number = *line;
    if (!cs_span_u64(line, 10, &value) || (cs_span_skip_space(line), !cs_span_empty(line)))
        return fail(r, "PortRcvData \"%s\" is not a whole number", cs_quote_span(&number).text);
    r->s->ports[r->s->count - 1].rcv_data = value;
    r->record_has_rcv = true;
    return 0;
}

/* "0x0002c90000001001,123456" */
static int csv_line(struct reader *r, struct cs_span *line)
{
    bool first = r->form == FORM_UNKNOWN;
    if (first && cs_span_starts_with(line, CSV_HEADER)) {
        struct cs_span rest = *line;
        cs_span_eat(&rest, CSV_HEADER);
        if (cs_span_empty(&rest)) {
            r->form = FORM_CSV;
            return 0;
        }
    }
    uint64_t guid, value;
    struct cs_span field = *line;
    if (!cs_span_u64(line, 0, &guid) || (cs_span_skip_space(line), !cs_span_eat_char(line, ','))) {
        if (first)
            return fail_not_snapshot(r);
        return fail(r, "expected \"port GUID,rcv_data\", not \"%s\"", cs_quote_span(&field).text);
    }
    if (guid == 0)
        return fail(r, "%s", "GUID 0 is not a valid port GUID");
    cs_span_skip_space(line);
    field = *line;
    if (!cs_span_u64(line, 10, &value) || (cs_span_skip_space(line), !cs_span_empty(line)))
        return fail(r, "rcv_data \"%s\" is not a whole number (PortRcvData: octets / 4)",
                    cs_quote_span(&field).text);
    r->form = FORM_CSV;
    if (add_port(r, guid, 0) < 0)
        return -1;
    r->s->ports[r->s->count - 1].rcv_data = value;
    return 0;
}

static int parse_line(struct reader *r, struct cs_span *line)
{
    cs_span_skip_space(line);
    cs_span_trim_right(line);
    if (cs_span_empty(line))
        return 0;
    if (cs_span_starts_with(line, PERFQUERY_EXTENDED))
        return start_record(r, line);
    if (cs_span_starts_with(line, PERFQUERY_BASIC))
        return fail(r, "%s",
                    "perfquery without -x: its 32-bit counters stop at their maximum; capture "
                    "perfquery -x (PortCountersExtended)");
    if (*line->p == '#')
        return 0;
    if (r->form == FORM_PERFQUERY)
        return record_line(r, line);
    return csv_line(r, line);
}

/* perfquery records name ports by LID: give each its port GUID from the guid2lid file. */
static int resolve_lids(struct reader *r, const struct cs_guid2lid *lids)
{
    struct cs_counter_snapshot *s = r->s;
    if (!lids)
        return cs_fail_at(r->in->err, s->name, s->ports[0].line,
                          "perfquery output names ports by LID: a guid2lid file is needed to map "
                          "LIDs to port GUIDs");
    /* LID -> 1 + index of the guid2lid entry whose range holds it (0: none). */
    uint32_t *owner = cs_calloc_array(CS_LID_UCAST_MAX + 1, sizeof *owner, r->in->err);
    if (!owner)
        return -1;
    for (uint32_t e = 0; e < lids->count; e++)
        for (uint32_t lid = lids->entries[e].min_lid;
             lid <= lids->entries[e].max_lid && lid <= CS_LID_UCAST_MAX; lid++)
            owner[lid] = e + 1;
    int rc = 0;
    for (uint32_t i = 0; rc == 0 && i < s->count; i++) {
        if (owner[s->ports[i].lid] == 0)
            rc = cs_fail_at(r->in->err, s->name, s->ports[i].line,
                            "LID %u is not in the guid2lid file: no port GUID for it",
                            s->ports[i].lid);
        else
            s->ports[i].guid = lids->entries[owner[s->ports[i].lid] - 1].guid;
    }
    free(owner);
    return rc;
}

static int compare_ports(const void *pa, const void *pb)
{
    const struct cs_port_counter *a = pa, *b = pb;
    return (a->guid > b->guid) - (a->guid < b->guid);
}

/* A port counted twice (two CSV lines, or two perfquery records whose LIDs belong to one port
 * GUID, as the ports of a switch do) names both places; then sort by GUID. */
static int check_and_sort(struct reader *r)
{
    struct cs_counter_snapshot *s = r->s;
    struct cs_key_index ix;
    cs_key_index_init(&ix);
    if (cs_key_index_reserve(&ix, s->count, r->in->err) < 0)
        return -1;
    for (uint32_t i = 0; i < s->count; i++)
        cs_key_index_add(&ix, s->ports[i].guid, i, r->in->err);
    cs_key_index_sort(&ix);
    uint64_t guid;
    uint32_t first, second;
    bool twice = cs_key_index_duplicate(&ix, &guid, &first, &second);
    cs_key_index_free(&ix);
    if (twice)
        return cs_fail_at(r->in->err, s->name, s->ports[second].line,
                          "port GUID 0x%016" PRIx64 " is counted twice (line %u)", guid,
                          s->ports[first].line);
    qsort(s->ports, s->count, sizeof *s->ports, compare_ports);
    return 0;
}

static int parse_source(struct cs_counter_snapshot *s, struct cs_lines *in,
                        const struct cs_guid2lid *lids)
{
    struct reader r = {.s = s, .in = in, .form = FORM_UNKNOWN};
    s->name = strdup(in->name ? in->name : "<input>");
    if (!s->name)
        return cs_fail(in->err, "out of memory");
    struct cs_span line;
    int rc = 0, got;
    while (rc == 0 && (got = cs_lines_next(in, &line)) > 0)
        rc = parse_line(&r, &line);
    if (rc == 0 && got < 0)
        rc = -1;
    if (rc == 0)
        rc = close_record(&r);
    if (rc == 0 && s->count == 0) {
        char found[160];
        cs_lines_describe(in, found, sizeof found);
        rc = cs_fail(in->err,
                     "%s: expected a port counter snapshot (perfquery -x output or \"" CSV_HEADER
                     "\" CSV lines); found no port in %s",
                     s->name, found);
    }
    if (rc == 0 && r.form == FORM_PERFQUERY)
        rc = resolve_lids(&r, lids);
    if (rc == 0)
        rc = check_and_sort(&r);
    if (rc < 0)
        cs_counter_snapshot_free(s);
    return rc;
}

int cs_counter_snapshot_parse(struct cs_counter_snapshot *s, const char *text, size_t len,
                              const char *name, const struct cs_guid2lid *lids,
                              struct cs_error *err)
{
    memset(s, 0, sizeof *s);
    struct cs_lines in;
    cs_lines_init(&in, text, len, name, err);
    return parse_source(s, &in, lids);
}

int cs_counter_snapshot_read(struct cs_counter_snapshot *s, const char *path,
                             const struct cs_guid2lid *lids, struct cs_error *err)
{
    memset(s, 0, sizeof *s);
    struct cs_lines in;
    if (cs_lines_open(&in, path, err) < 0)
        return -1;
    int rc = parse_source(s, &in, lids);
    cs_lines_close(&in);
    return rc;
}
