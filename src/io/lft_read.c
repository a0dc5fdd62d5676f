/* Reader for LFT dumps: OpenSM's opensm-lfts.dump and ibroute/dump_fts output.
 *
 * Both forms share what OpenSM's file engine (osm_ucast_file.c) relies on: a switch starts at a
 * line beginning "Unicast lids" that contains " guid 0x<hex>", and every following line that
 * begins "0x" is "<hex lid> <decimal port>" with anything after it. The comment after the port
 * may name the destination (" portguid 0x..."), which we keep as the LID's target. A
 * "Multicast mlids" section (dump_fts -M, ibroute -M) has entry lines of the same shape, so it is
 * skipped as a whole until the next unicast header.
 *
 * Each unicast section ends with a footer, "N lids dumped" (OpenSM: N is the top of the header's
 * range) or "N valid lids dumped" (ibroute: N is the number of entries). A section still open at
 * the end of the file, or a footer whose count fits neither rule, means a truncated or damaged
 * dump, and is refused rather than read as a shorter table.
 *
 * An LFT dump of a large fabric is ~1 GB of short lines (gzip or plain), streamed line by line,
 * so the hot path (entry lines) does no allocation and parses numbers by hand; a LID's comment is
 * parsed only until its target is known, which is after its first line in the file.
 */
#include "cloudsm/lft_io.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/key_index.h"
#include "io/text.h"

enum section {
    SECTION_NONE,      /* before the first header: an entry here is an error */
    SECTION_UNICAST,   /* entries belong to the current switch */
    SECTION_MULTICAST, /* entries are mlids: skipped */
};

struct parser {
    struct cs_lfts *t;
    const char *name;
    struct cs_error *err;
    struct cs_lines *lines;
    struct cs_key_index headers; /* switch GUID -> line of its header, to refuse duplicates */
    enum section section;
    uint32_t current; /* set index of the switch whose entries follow */
    /* The open unicast section, checked against its footer. */
    unsigned header_line;
    uint64_t range_upper; /* top of "[lower-upper]"; has_range false if the header had none */
    bool has_range;
    uint64_t entries;   /* entry lines so far */
    bool saw_multicast; /* to say why a file without unicast tables is refused */
};

/* Text inside the last pair of delimiters: the description in "('desc')", "(desc)" or ": 'desc'".
 * Descriptions may themselves contain quotes and parentheses, so the closing one is the last on
 * the line. Without a closing delimiter the rest of the line is taken. */
static struct cs_span up_to_last(struct cs_span rest, char close)
{
    struct cs_span inside = rest;
    for (const char *q = rest.end; q > rest.p; q--) {
        if (q[-1] == close) {
            inside.end = q - 1;
            break;
        }
    }
    return inside;
}

static void copy_desc(struct cs_span desc, char out[CS_DESC_MAX + 1])
{
    cs_span_copy(&desc, out, CS_DESC_MAX + 1);
}

/* The destination named after the port: "# Switch portguid 0x...: 'desc'" (OpenSM) or
 * ": (Switch portguid 0x...: 'desc')" (ibroute). Anything else leaves the target unknown. */
static void parse_target(struct cs_span rest, struct cs_lid_target *target)
{
    cs_span_trim_right(&rest);
    const char *portguid = cs_span_find(&rest, " portguid 0x");
    if (!portguid)
        return;
    struct cs_span type_word = {rest.p, portguid};
    cs_span_skip_space(&type_word);
    if (!cs_span_eat_char(&type_word, '#'))
        cs_span_eat_char(&type_word, ':');
    cs_span_skip_space(&type_word);
    cs_span_eat_char(&type_word, '(');

    struct cs_span after = {portguid + strlen(" portguid "), rest.end};
    uint64_t guid;
    if (!cs_span_u64(&after, 16, &guid))
        return;
    target->port_guid = guid;
    target->type =
        (uint8_t)cs_node_type_parse_long_name(type_word.p, (size_t)(type_word.end - type_word.p));
    if (cs_span_eat(&after, ": '")) {
        struct cs_span desc = up_to_last(after, '\'');
        copy_desc(desc, target->desc);
    }
}

static bool target_known(const struct cs_lid_target *target)
{
    return target->port_guid || target->type || target->desc[0];
}

static int parse_entry(struct parser *ps, const char *p, const char *end)
{
    struct cs_lfts *t = ps->t;
    unsigned line = ps->lines->number;
    if (ps->section == SECTION_MULTICAST)
        return 0;
    if (ps->section == SECTION_NONE)
        return cs_fail_at(ps->err, ps->name, line,
                          "LFT entry outside a switch's table (no \"Unicast lids\" header "
                          "since the last \"lids dumped\" footer)");
    ps->entries++;

    /* p points after "0x". Saturate instead of overflowing so that long garbage still fails. */
    const char *digits = p;
    uint32_t lid = 0;
    for (int d; p < end && (d = cs_hex_digit(*p)) >= 0; p++)
        lid = lid > 0xFFFFF ? lid : lid * 16 + (uint32_t)d;
    if (p == digits || (p < end && !cs_is_blank(*p)))
        return cs_fail_at(ps->err, ps->name, line, "cannot parse the LID of an LFT entry");
    if (lid > CS_LID_UCAST_MAX)
        return cs_fail_at(ps->err, ps->name, line,
                          "LID 0x%x is beyond the unicast range (max 0x%x)", lid, CS_LID_UCAST_MAX);
    while (p < end && cs_is_blank(*p))
        p++;
    digits = p;
    uint32_t port = 0;
    for (; p < end && *p >= '0' && *p <= '9'; p++)
        port = port > 9999 ? port : port * 10 + (uint32_t)(*p - '0');
    if (p == digits || (p < end && !cs_is_blank(*p)))
        return cs_fail_at(ps->err, ps->name, line, "cannot parse the port of LID 0x%04x", lid);
    if (port > CS_LFT_NO_ROUTE)
        return cs_fail_at(ps->err, ps->name, line,
                          "port %u of LID 0x%04x is beyond %d (255 means no route)", port, lid,
                          CS_MAX_PORTS);

    if (lid > t->max_lid && cs_lfts_grow(t, (uint16_t)lid, ps->err) < 0)
        return -1;
    uint8_t *entry = cs_lfts_table(t, ps->current) + lid;
    if (*entry != CS_LFT_NO_ROUTE && *entry != port)
        return cs_fail_at(ps->err, ps->name, line,
                          "LID 0x%04x of switch 0x%016" PRIx64 " is listed twice (ports %u and %u)",
                          lid, t->switches[ps->current].guid, *entry, port);
    *entry = (uint8_t)port;

    struct cs_lid_target *target = &t->targets[lid];
    if (!target_known(target))
        parse_target((struct cs_span){p, end}, target);
    return 0;
}

/* "Unicast lids [0-4] of switch Lid 1 guid 0x0002c90000000101 ('leaf0'):"  (OpenSM)
 * "Unicast lids [0x0-0x4] of switch DR path slid 0; dlid 0; 0,3 guid 0x... (spine0):" (ibroute) */
static int parse_header(struct parser *ps, struct cs_span s)
{
    struct cs_lfts *t = ps->t;
    unsigned line = ps->lines->number;
    cs_span_trim_right(&s);
    if (ps->section == SECTION_UNICAST)
        return cs_fail_at(ps->err, ps->name, line,
                          "a new switch starts, but the table of switch 0x%016" PRIx64
                          " (line %u) has no \"lids dumped\" footer: the dump is damaged",
                          t->switches[ps->current].guid, ps->header_line);

    uint64_t upper = 0;
    struct cs_span range = s;
    cs_span_skip_space(&range);
    uint64_t lower;
    bool has_range = cs_span_eat_char(&range, '[') && cs_span_u64(&range, 0, &lower) &&
                     cs_span_eat_char(&range, '-') && cs_span_u64(&range, 0, &upper);
    if (has_range && upper > CS_LID_UCAST_MAX)
        return cs_fail_at(ps->err, ps->name, line,
                          "LID range ends at 0x%" PRIx64 ", beyond the unicast range (max 0x%x)",
                          upper, CS_LID_UCAST_MAX);
    if (has_range && lower > upper)
        return cs_fail_at(ps->err, ps->name, line,
                          "reversed LID range [0x%" PRIx64 "-0x%" PRIx64 "]", lower, upper);

    const char *guid_at = cs_span_find(&s, " guid 0x");
    if (!guid_at)
        return cs_fail_at(ps->err, ps->name, line, "switch header without \" guid 0x<GUID>\"");

    /* Only the text before the GUID names the switch's address: the description may say
     * anything. */
    uint64_t switch_lid = 0;
    struct cs_span address = {s.p, guid_at};
    const char *of_switch = cs_span_find(&address, " of switch Lid ");
    if (of_switch) {
        struct cs_span lid_text = {of_switch + strlen(" of switch Lid "), guid_at};
        if (!cs_span_u64(&lid_text, 10, &switch_lid) || switch_lid > CS_LID_UCAST_MAX)
            return cs_fail_at(ps->err, ps->name, line, "cannot parse the switch LID");
    }
    struct cs_span rest = {guid_at + strlen(" guid "), s.end};
    uint64_t guid;
    if (!cs_span_u64(&rest, 16, &guid) || (!cs_span_empty(&rest) && !cs_is_blank(*rest.p)))
        return cs_fail_at(ps->err, ps->name, line, "cannot parse the switch GUID");

    char desc[CS_DESC_MAX + 1] = "";
    cs_span_skip_space(&rest);
    if (cs_span_eat_char(&rest, '(')) {
        struct cs_span inside = up_to_last(rest, ')');
        if (inside.end - inside.p >= 2 && inside.p[0] == '\'' && inside.end[-1] == '\'') {
            inside.p++;
            inside.end--;
        }
        copy_desc(inside, desc);
    }

    if (upper > t->max_lid && cs_lfts_grow(t, (uint16_t)upper, ps->err) < 0)
        return -1;
    uint32_t sw = cs_lfts_add_switch(t, guid, (uint16_t)switch_lid, desc, CS_NONE, ps->err);
    if (sw == CS_NONE || cs_key_index_add(&ps->headers, guid, line, ps->err) < 0)
        return -1;
    ps->current = sw;
    ps->section = SECTION_UNICAST;
    ps->header_line = line;
    ps->has_range = has_range;
    ps->range_upper = upper;
    ps->entries = 0;
    return 0;
}

/* "N lids dumped" or "N valid lids dumped"; false if s is no footer. */
static bool parse_footer(struct cs_span s, uint64_t *count, bool *valid_only)
{
    if (!cs_span_u64(&s, 10, count))
        return false;
    cs_span_skip_space(&s);
    *valid_only = cs_span_eat(&s, "valid ");
    return cs_span_eat(&s, "lids dumped");
}

/* The footer of the open unicast section: its count must fit the section. */
static int close_section(struct parser *ps, uint64_t count, bool valid_only)
{
    ps->section = SECTION_NONE;
    bool fits =
        count == ps->entries || (!valid_only && (!ps->has_range || count == ps->range_upper));
    if (fits)
        return 0;
    return cs_fail_at(ps->err, ps->name, ps->lines->number,
                      "footer says %" PRIu64 " %slids dumped, but the table of switch 0x%016" PRIx64
                      " (line %u) has %" PRIu64 " entries%s: the dump is damaged",
                      count, valid_only ? "valid " : "", ps->t->switches[ps->current].guid,
                      ps->header_line, ps->entries,
                      valid_only || !ps->has_range ? "" : " and its range does not end there");
}

static int parse_lines(struct parser *ps)
{
    struct cs_span line;
    int got;
    while ((got = cs_lines_next(ps->lines, &line)) > 0) {
        const char *p = line.p;
        while (p < line.end && cs_is_blank(*p))
            p++;
        if (line.end - p >= 2 && p[0] == '0' && p[1] == 'x') {
            if (parse_entry(ps, p + 2, line.end) < 0)
                return -1;
            continue;
        }
        struct cs_span s = {p, line.end};
        uint64_t count;
        bool valid_only;
        if (ps->section == SECTION_UNICAST && parse_footer(s, &count, &valid_only)) {
            if (close_section(ps, count, valid_only) < 0)
                return -1;
        } else if (cs_span_eat(&s, "Unicast lids")) {
            if (parse_header(ps, s) < 0)
                return -1;
        } else if (cs_span_starts_with(&s, "Multicast mlids")) {
            if (ps->section == SECTION_UNICAST)
                return cs_fail_at(ps->err, ps->name, ps->lines->number,
                                  "a multicast table starts, but the table of switch 0x%016" PRIx64
                                  " (line %u) has no \"lids dumped\" footer: the dump is damaged",
                                  ps->t->switches[ps->current].guid, ps->header_line);
            ps->section = SECTION_MULTICAST;
            ps->saw_multicast = true;
        }
        /* Anything else (column titles, multicast footers, comments, blank lines) says
         * nothing about routes; OpenSM ignores such lines too. */
    }
    if (got < 0)
        return -1;
    if (ps->section == SECTION_UNICAST)
        return cs_fail_at(ps->err, ps->name, ps->lines->number,
                          "the file ends inside the table of switch 0x%016" PRIx64
                          " (line %u), before its \"lids dumped\" footer: the dump is truncated",
                          ps->t->switches[ps->current].guid, ps->header_line);
    if (ps->t->num_switches == 0) {
        char found[160];
        if (ps->saw_multicast)
            snprintf(found, sizeof found, "multicast tables only (dump_fts -M)");
        else
            cs_lines_describe(ps->lines, found, sizeof found);
        return cs_fail(ps->err,
                       "%s: expected an LFT dump (\"Unicast lids ... guid 0x...\" switch tables); "
                       "found no unicast switch table: %s",
                       ps->name, found);
    }
    return 0;
}

static int parse_source(struct cs_lfts *t, struct cs_lines *lines, struct cs_error *err)
{
    if (cs_lfts_init(t, 0, err) < 0)
        return -1;
    struct parser ps = {
        .t = t, .name = lines->name, .err = err, .lines = lines, .section = SECTION_NONE};
    cs_key_index_init(&ps.headers);
    int rc = parse_lines(&ps);
    uint64_t guid;
    unsigned first, second;
    cs_key_index_sort(&ps.headers);
    if (rc == 0 && cs_key_index_duplicate(&ps.headers, &guid, &first, &second))
        rc = cs_fail_at(err, ps.name, second,
                        "switch 0x%016" PRIx64 " is listed twice (first at line %u)", guid, first);
    cs_key_index_free(&ps.headers);
    if (rc < 0)
        cs_lfts_free(t);
    return rc;
}

int cs_lfts_parse(struct cs_lfts *t, const char *text, size_t len, const char *name,
                  struct cs_error *err)
{
    struct cs_lines lines;
    cs_lines_init(&lines, text, len, name, err);
    return parse_source(t, &lines, err);
}

int cs_lfts_read(struct cs_lfts *t, const char *path, struct cs_error *err)
{
    struct cs_lines lines;
    memset(t, 0, sizeof *t);
    if (cs_lines_open(&lines, path, err) < 0)
        return -1;
    int rc = parse_source(t, &lines, err);
    cs_lines_close(&lines);
    return rc;
}
