/* partitions.conf reader and writer (include/cloudsm/partitions.h, docs/formats/partitions.md).
 *
 * The reader follows OpenSM 3.3.23's parser (opensm/osm_prtn_config.c) rule by rule: '#' ends a
 * line, ';' ends a definition, a definition's header (up to ':') is on one line and its members
 * may continue on the next lines, flags and keywords match when the text is a prefix of the
 * word, numbers read like strtoul(.., 0). Where OpenSM logs and carries on (an unknown flag, a
 * bad MGID) the reader keeps a warning; where OpenSM stops and falls back to its default
 * configuration ("bad PortGUID", "no partition definition found") the reader fails with
 * name:line:.
 */
#include "cloudsm/partitions.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/atomic_file.h"
#include "core/grow.h"
#include "io/outbuf.h"
#include "io/text.h"

/* OpenSM generates PKeys 1..0x7ffe for definitions without one (osm_prtn.c, generate_pkey). */
#define PKEY_GENERATED_MAX 0x7ffe
#define PKEY_IDS (CS_PKEY_MASK + 1)

struct parser {
    struct cs_partitions *p;
    const char *name;
    unsigned line;
    uint32_t *by_pkey;     /* [pkey] partition index + 1, 0 = none */
    uint16_t pkey_counter; /* OpenSM's global_pkey_counter */
    uint32_t current;      /* partition of the open definition, CS_NONE between definitions */
    unsigned current_line;
    uint8_t defmember; /* the open definition's default membership */
    struct cs_error *err;
};

/* ---- Small span helpers ---- */

static size_t span_len(const struct cs_span *s)
{
    return (size_t)(s->end - s->p);
}

static void span_trim(struct cs_span *s)
{
    cs_span_skip_space(s);
    cs_span_trim_right(s);
}

/* The text is a prefix of word (so the empty text matches everything): OpenSM's
 * strncmp(text, word, strlen(text)) == 0. */
static bool is_prefix_of(const struct cs_span *s, const char *word)
{
    size_t n = span_len(s);
    return n <= strlen(word) && memcmp(s->p, word, n) == 0;
}

static bool is_word(const struct cs_span *s, const char *word)
{
    size_t n = span_len(s);
    return n == strlen(word) && memcmp(s->p, word, n) == 0;
}

/* Split "name=value" at the first '=', both trimmed. */
static bool split_token(struct cs_span tok, struct cs_span *name, struct cs_span *value)
{
    const char *eq = memchr(tok.p, '=', span_len(&tok));
    *name = (struct cs_span){tok.p, eq ? eq : tok.end};
    *value = (struct cs_span){eq ? eq + 1 : tok.end, tok.end};
    span_trim(name);
    span_trim(value);
    return eq != NULL;
}

/* A whole token as strtoul(.., 0) reads it: 0x hex, leading-0 octal, or decimal. */
static bool c_number(struct cs_span s, uint64_t *out)
{
    if (cs_span_empty(&s))
        return false;
    if (span_len(&s) > 1 && s.p[0] == '0' && s.p[1] != 'x' && s.p[1] != 'X') {
        uint64_t v = 0;
        for (const char *c = s.p; c < s.end; c++) {
            if (*c < '0' || *c > '7' || v >> 61)
                return false;
            v = v * 8 + (uint64_t)(*c - '0');
        }
        *out = v;
        return true;
    }
    return cs_span_u64(&s, 0, out) && cs_span_empty(&s);
}

static int fail(struct parser *ps, const char *fmt, ...) CS_PRINTF(2, 3);
static int fail(struct parser *ps, const char *fmt, ...)
{
    char msg[CS_ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return cs_fail_at(ps->err, ps->name, ps->line, "%s", msg);
}

static int warn(struct parser *ps, const char *fmt, ...) CS_PRINTF(2, 3);
static int warn(struct parser *ps, const char *fmt, ...)
{
    struct cs_partitions *p = ps->p;
    p->warnings_total++;
    if (p->num_warnings >= CS_PARTITION_WARNINGS_MAX)
        return 0;
    if (cs_grow((void **)&p->warnings, &p->warnings_capacity, (uint64_t)p->num_warnings + 1,
                sizeof *p->warnings, ps->err) < 0)
        return -1;
    char msg[CS_ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cs_fail_at(&p->warnings[p->num_warnings++], ps->name, ps->line, "%s", msg);
    return 0;
}

/* Append ",text" (or "text") to a heap string. */
static int append_text(char **s, const struct cs_span *text, struct cs_error *err)
{
    size_t old = *s ? strlen(*s) : 0, add = span_len(text);
    char *grown = realloc(*s, old + add + 2);
    if (!grown)
        return cs_fail(err, "out of memory for partition flags");
    if (old)
        grown[old++] = ',';
    memcpy(grown + old, text->p, add);
    grown[old + add] = '\0';
    *s = grown;
    return 0;
}

/* ---- Partitions ---- */

static uint32_t add_partition(struct parser *ps, const char *name, uint16_t pkey)
{
    struct cs_partitions *p = ps->p;
    if (cs_grow((void **)&p->partitions, &p->capacity, (uint64_t)p->count + 1,
                sizeof *p->partitions, ps->err) < 0)
        return CS_NONE;
    struct cs_partition *part = &p->partitions[p->count];
    memset(part, 0, sizeof *part);
    if (name && *name)
        snprintf(part->name, sizeof part->name, "%s", name);
    else
        snprintf(part->name, sizeof part->name, "%04x", pkey);
    part->pkey = pkey;
    ps->by_pkey[pkey] = p->count + 1;
    return p->count++;
}

/* OpenSM's lookup of a nameless-PKey definition by name walks its partition map, which is keyed
 * by the PKey in network byte order: on a little-endian host the first match is the one whose
 * byte-swapped PKey is lowest. */
static uint32_t find_by_name(const struct cs_partitions *p, const char *name)
{
    uint32_t best = CS_NONE;
    unsigned best_key = 0;
    for (uint32_t i = 0; i < p->count; i++) {
        if (strcmp(p->partitions[i].name, name) != 0)
            continue;
        uint16_t k = p->partitions[i].pkey;
        unsigned key = (unsigned)((k & 0xff) << 8 | k >> 8);
        if (best == CS_NONE || key < best_key) {
            best = i;
            best_key = key;
        }
    }
    return best;
}

/* The partition a header names (osm_prtn_make_new): an explicit PKey is merged into an existing
 * one; without one (or with 0 after masking), a partition of the same name is reused, else the
 * next free PKey is taken. */
static int header_partition(struct parser *ps, struct cs_span name, struct cs_span id, bool has_id)
{
    if (!has_id && !cs_span_empty(&name) && *name.p >= '0' && *name.p <= '9') {
        id = name;
        has_id = true;
        name.end = name.p;
    }
    uint64_t pkey = 0;
    if (has_id) {
        if (!c_number(id, &pkey))
            return fail(ps, "bad PKey '%s' in the partition definition", cs_quote_span(&id).text);
        if (pkey > 0xffff)
            return fail(ps, "PKey %s does not fit in 16 bits", cs_quote_span(&id).text);
        pkey &= CS_PKEY_MASK;
    }
    if (span_len(&name) > CS_PARTITION_NAME_MAX)
        return fail(ps, "partition name '%s' is longer than %d bytes", cs_quote_span(&name).text,
                    CS_PARTITION_NAME_MAX);
    char text[CS_PARTITION_NAME_MAX + 1];
    cs_span_copy(&name, text, sizeof text);
    uint32_t index = CS_NONE;
    if (!pkey) {
        /* An empty name is still a name to OpenSM: it matches none (names are never empty). */
        index = find_by_name(ps->p, text);
        while (index == CS_NONE && !pkey && ps->pkey_counter < PKEY_GENERATED_MAX) {
            uint16_t next = ++ps->pkey_counter;
            if (!ps->by_pkey[next])
                pkey = next;
        }
        if (index == CS_NONE && !pkey)
            return fail(ps, "no free PKey left for partition '%s'",
                        cs_quote(text, strlen(text)).text);
    }
    if (index == CS_NONE)
        index = ps->by_pkey[pkey] ? ps->by_pkey[pkey] - 1 : add_partition(ps, text, (uint16_t)pkey);
    if (index == CS_NONE)
        return -1;
    struct cs_partition *part = &ps->p->partitions[index];
    if (!part->line)
        part->line = ps->line;
    ps->current = index;
    ps->current_line = ps->line;
    ps->defmember = CS_MEMBER_LIMITED;
    ps->p->from_file = true;
    return 0;
}

/* OpenSM's multicast-group flags, in the order its parse_group_flag tries them. */
static const char *const group_flags[] = {"mtu",    "rate", "scope",    "Q_Key",
                                          "TClass", "sl",   "FlowLabel"};

static bool is_group_flag(const struct cs_span *flag)
{
    for (size_t i = 0; i < sizeof group_flags / sizeof *group_flags; i++)
        if (is_prefix_of(flag, group_flags[i]))
            return true;
    return false;
}

static int set_isolation(struct parser *ps, struct cs_partition *part, const struct cs_span *value)
{
    static const char *const names[] = {"def", "vlane", "phy"};
    int found = -1;
    for (int i = 0; i < 3; i++)
        if (is_word(value, names[i]))
            found = i;
    if (found < 0)
        return fail(ps, "isolation=%s: expected phy, vlane or def", cs_quote_span(value).text);
    if (part->isolation_set && part->isolation != found)
        return fail(ps,
                    "partition '%s' (0x%04x): isolation=%s conflicts with isolation=%s at line %u",
                    cs_quote(part->name, strlen(part->name)).text, part->pkey, names[found],
                    names[part->isolation], part->isolation_line);
    if (!part->isolation_set)
        part->isolation_line = ps->line;
    part->isolation = (uint8_t)found;
    part->isolation_set = true;
    return 0;
}

static int set_policy(struct parser *ps, const struct cs_span *value)
{
    struct cs_partitions *p = ps->p;
    int found = is_word(value, "best-effort") ? CS_ISOLATION_BEST_EFFORT
                : is_word(value, "strict")    ? CS_ISOLATION_STRICT
                                              : -1;
    if (found < 0)
        return fail(ps, "isolation_policy=%s: expected strict or best-effort",
                    cs_quote_span(value).text);
    if (p->policy_set && p->policy != found)
        return fail(ps, "isolation_policy=%s conflicts with isolation_policy=%s at line %u",
                    cs_isolation_policy_name((enum cs_isolation_policy)found),
                    cs_isolation_policy_name((enum cs_isolation_policy)p->policy), p->policy_line);
    if (!p->policy_set)
        p->policy_line = ps->line;
    p->policy = (uint8_t)found;
    p->policy_set = true;
    return 0;
}

/* One header flag (osm_prtn_config.c partition_add_flag, then cloudsm's extension). */
static int header_flag(struct parser *ps, struct cs_span tok)
{
    struct cs_partition *part = &ps->p->partitions[ps->current];
    struct cs_span flag, value;
    bool has_value = split_token(tok, &flag, &value);
    if (cs_span_empty(&flag))
        return warn(ps, "empty partition flag - ignored");
    if (is_group_flag(&flag)) {
        struct cs_span text = tok;
        span_trim(&text);
        return append_text(&part->group_flags, &text, ps->err);
    }
    if (is_prefix_of(&flag, "ipoib")) {
        part->ipoib = true;
    } else if (is_prefix_of(&flag, "defmember")) {
        if (!has_value || !(is_prefix_of(&value, "limited") || is_prefix_of(&value, "both") ||
                            is_prefix_of(&value, "full")))
            return warn(ps, "flag 'defmember' needs limited, full or both - ignored");
        ps->defmember = is_prefix_of(&value, "full")   ? CS_MEMBER_FULL
                        : is_prefix_of(&value, "both") ? CS_MEMBER_BOTH
                                                       : CS_MEMBER_LIMITED;
    } else if (is_word(&flag, "indx0")) {
        part->indx0 = true;
    } else if (is_word(&flag, "isolation")) {
        return set_isolation(ps, part, &value);
    } else if (is_word(&flag, "isolation_policy")) {
        return set_policy(ps, &value);
    } else {
        return warn(ps, "unrecognized partition flag '%s' - ignored", cs_quote_span(&flag).text);
    }
    return 0;
}

static int parse_header(struct parser *ps, struct cs_span header)
{
    const char *comma = memchr(header.p, ',', span_len(&header));
    struct cs_span first = {header.p, comma ? comma : header.end}, name, id;
    bool has_id = split_token(first, &name, &id);
    if (header_partition(ps, name, id, has_id) < 0)
        return -1;
    while (comma) {
        struct cs_span rest = {comma + 1, header.end};
        comma = memchr(rest.p, ',', span_len(&rest));
        if (header_flag(ps, (struct cs_span){rest.p, comma ? comma : rest.end}) < 0)
            return -1;
    }
    return 0;
}

/* ---- Members ---- */

static int add_mgroup(struct parser *ps, struct cs_span gid, struct cs_span flags)
{
    struct cs_partition *part = &ps->p->partitions[ps->current];
    char text[INET6_ADDRSTRLEN + 1];
    uint8_t raw[16];
    if (span_len(&gid) >= sizeof text)
        return warn(ps, "mgid '%s' is not a multicast GID - ignored", cs_quote_span(&gid).text);
    cs_span_copy(&gid, text, sizeof text);
    if (inet_pton(AF_INET6, text, raw) != 1 || raw[0] != 0xff)
        return warn(ps, "mgid '%s' is not a multicast GID - ignored", cs_quote_span(&gid).text);
    if (cs_grow((void **)&part->mgroups, &part->mgroups_capacity, (uint64_t)part->num_mgroups + 1,
                sizeof *part->mgroups, ps->err) < 0)
        return -1;
    struct cs_partition_mgroup *g = &part->mgroups[part->num_mgroups++];
    memset(g, 0, sizeof *g);
    memcpy(g->mgid, raw, sizeof raw);
    g->line = ps->line;
    span_trim(&flags);
    return cs_span_empty(&flags) ? 0 : append_text(&g->flags, &flags, ps->err);
}

static int add_member(struct parser *ps, struct cs_span name, struct cs_span flag, bool has_flag)
{
    uint8_t membership = ps->defmember;
    if (has_flag) {
        /* OpenSM tries full, then both, and takes anything else as limited. */
        if (is_prefix_of(&flag, "full"))
            membership = CS_MEMBER_FULL;
        else if (is_prefix_of(&flag, "both"))
            membership = CS_MEMBER_BOTH;
        else if (is_prefix_of(&flag, "limited"))
            membership = CS_MEMBER_LIMITED;
        else {
            membership = CS_MEMBER_LIMITED;
            if (warn(ps, "unrecognized port flag '%s' - taken as limited",
                     cs_quote_span(&flag).text) < 0)
                return -1;
        }
    }
    struct cs_partition_member m = {.line = ps->line, .membership = membership};
    if (is_prefix_of(&name, "ALL"))
        m.set = CS_MEMBERS_ALL;
    else if (is_prefix_of(&name, "ALL_CAS"))
        m.set = CS_MEMBERS_ALL_CAS;
    else if (is_prefix_of(&name, "ALL_SWITCHES"))
        m.set = CS_MEMBERS_ALL_SWITCHES;
    else if (is_prefix_of(&name, "ALL_ROUTERS"))
        m.set = CS_MEMBERS_ALL_ROUTERS;
    else if (is_prefix_of(&name, "SELF"))
        m.set = CS_MEMBERS_SELF;
    else if (c_number(name, &m.guid) && m.guid)
        m.set = CS_MEMBERS_GUID;
    else
        return fail(ps, "bad port GUID '%s'%s", cs_quote_span(&name).text,
                    memchr(name.p, ':', span_len(&name))
                        ? " (is the ';' of the definition before missing?)"
                        : "");
    struct cs_partition *part = &ps->p->partitions[ps->current];
    if (cs_grow((void **)&part->members, &part->members_capacity, (uint64_t)part->num_members + 1,
                sizeof *part->members, ps->err) < 0)
        return -1;
    part->members[part->num_members++] = m;
    return 0;
}

/* Members up to the end of a segment. An mgid entry takes the rest of the segment: what follows
 * its value are its group flags. */
static int parse_members(struct parser *ps, struct cs_span seg)
{
    for (;;) {
        const char *comma = memchr(seg.p, ',', span_len(&seg));
        struct cs_span name, value;
        bool has_value =
            split_token((struct cs_span){seg.p, comma ? comma : seg.end}, &name, &value);
        if (is_word(&name, "mgid"))
            return add_mgroup(ps, value, (struct cs_span){comma ? comma + 1 : seg.end, seg.end});
        /* Empty entries (a trailing comma) and NONE are no members. */
        if (!cs_span_empty(&name) && !is_prefix_of(&name, "NONE") &&
            add_member(ps, name, value, has_value) < 0)
            return -1;
        if (!comma)
            return 0;
        seg.p = comma + 1;
    }
}

static int parse_line(struct parser *ps, struct cs_span line)
{
    const char *hash = memchr(line.p, '#', span_len(&line));
    if (hash)
        line.end = hash;
    struct cs_span rest = line;
    for (;;) {
        cs_span_skip_space(&rest);
        if (cs_span_empty(&rest))
            return 0;
        const char *semi = memchr(rest.p, ';', span_len(&rest));
        struct cs_span seg = {rest.p, semi ? semi : rest.end};
        struct cs_span blank = seg;
        span_trim(&blank);
        if (ps->current == CS_NONE && !cs_span_empty(&blank)) {
            const char *colon = memchr(seg.p, ':', span_len(&seg));
            if (!colon)
                return fail(ps, "no partition definition found (expected 'Name[=PKey][,flag]... :"
                                " members ;')");
            if (parse_header(ps, (struct cs_span){seg.p, colon}) < 0)
                return -1;
            seg.p = colon + 1;
        }
        if (ps->current != CS_NONE && parse_members(ps, seg) < 0)
            return -1;
        if (!semi)
            return 0;
        ps->current = CS_NONE;
        rest.p = semi + 1;
    }
}

/* A NUL byte (which would end OpenSM's line buffer early) is refused by the line source. */
static int parse_source(struct cs_partitions *p, struct cs_lines *in, struct cs_error *err)
{
    if (cs_partitions_init(p, err) < 0)
        return -1;
    struct parser ps = {.p = p, .name = in->name, .current = CS_NONE, .err = err};
    ps.by_pkey = cs_calloc_array(PKEY_IDS, sizeof *ps.by_pkey, err);
    int rc = ps.by_pkey ? 0 : -1;
    if (rc == 0)
        ps.by_pkey[CS_PKEY_DEFAULT] = 1;
    struct cs_span line;
    int got = 0;
    while (rc == 0 && (got = cs_lines_next(in, &line)) > 0) {
        ps.line = in->number;
        rc = parse_line(&ps, line);
    }
    if (rc == 0 && got < 0)
        rc = -1;
    if (rc == 0 && ps.current != CS_NONE) {
        const struct cs_partition *open = &p->partitions[ps.current];
        rc = warn(&ps, "the definition of '%s' (line %u) is not ended by ';'",
                  cs_quote(open->name, strlen(open->name)).text, ps.current_line);
    }
    free(ps.by_pkey);
    if (rc < 0)
        cs_partitions_free(p);
    return rc;
}

int cs_partitions_parse(struct cs_partitions *p, const char *text, size_t len, const char *name,
                        struct cs_error *err)
{
    struct cs_lines in;
    cs_lines_init(&in, text, len, name, err);
    return parse_source(p, &in, err);
}

int cs_partitions_read(struct cs_partitions *p, const char *path, struct cs_error *err)
{
    struct cs_lines in;
    memset(p, 0, sizeof *p);
    if (cs_lines_open(&in, path, err) < 0)
        return -1;
    int rc = parse_source(p, &in, err);
    cs_lines_close(&in);
    return rc;
}

/* ---- Writer ---- */

static const char *member_set_word(enum cs_member_set s)
{
    switch (s) {
    case CS_MEMBERS_ALL:
        return "ALL";
    case CS_MEMBERS_ALL_CAS:
        return "ALL_CAS";
    case CS_MEMBERS_ALL_SWITCHES:
        return "ALL_SWITCHES";
    case CS_MEMBERS_ALL_ROUTERS:
        return "ALL_ROUTERS";
    case CS_MEMBERS_SELF:
        return "SELF";
    case CS_MEMBERS_GUID:
        break;
    }
    return NULL;
}

static const char *membership_word(uint8_t m)
{
    return m == CS_MEMBER_FULL ? "full" : m == CS_MEMBER_BOTH ? "both" : "limited";
}

static void write_partition(struct cs_outbuf *o, const struct cs_partitions *p,
                            const struct cs_partition *part, bool with_policy)
{
    cs_outbuf_str(o, part->name);
    cs_outbuf_str(o, "=0x");
    cs_outbuf_hex(o, part->pkey, 4);
    if (part->ipoib)
        cs_outbuf_str(o, ",ipoib");
    if (part->indx0)
        cs_outbuf_str(o, ",indx0");
    if (part->isolation_set) {
        cs_outbuf_str(o, ",isolation=");
        cs_outbuf_str(o, cs_isolation_name((enum cs_isolation)part->isolation));
    }
    if (with_policy) {
        cs_outbuf_str(o, ",isolation_policy=");
        cs_outbuf_str(o, cs_isolation_policy_name((enum cs_isolation_policy)p->policy));
    }
    if (part->group_flags) {
        cs_outbuf_char(o, ',');
        cs_outbuf_str(o, part->group_flags);
    }
    cs_outbuf_str(o, " :");
    /* An mgid entry takes the rest of its line, so each has a line of its own; the last line of
     * the definition ends with ';'. */
    for (uint32_t i = 0; i < part->num_mgroups; i++) {
        const struct cs_partition_mgroup *g = &part->mgroups[i];
        char gid[INET6_ADDRSTRLEN];
        if (!inet_ntop(AF_INET6, g->mgid, gid, sizeof gid))
            gid[0] = '\0';
        cs_outbuf_str(o, "\n\tmgid=");
        cs_outbuf_str(o, gid);
        if (g->flags) {
            cs_outbuf_char(o, ',');
            cs_outbuf_str(o, g->flags);
        }
    }
    for (uint32_t i = 0; i < part->num_members; i++) {
        const struct cs_partition_member *m = &part->members[i];
        cs_outbuf_str(o, "\n\t");
        const char *word = member_set_word((enum cs_member_set)m->set);
        if (word) {
            cs_outbuf_str(o, word);
        } else {
            cs_outbuf_str(o, "0x");
            cs_outbuf_hex(o, m->guid, 16);
        }
        cs_outbuf_char(o, '=');
        cs_outbuf_str(o, membership_word(m->membership));
        if (i + 1 < part->num_members)
            cs_outbuf_char(o, ',');
    }
    cs_outbuf_str(o, " ;\n");
}

int cs_partitions_write(FILE *out, const struct cs_partitions *p, struct cs_error *err)
{
    struct cs_outbuf o;
    if (cs_outbuf_init(&o, out, err) < 0)
        return -1;
    bool first = true;
    for (uint32_t i = 0; i < p->count; i++) {
        const struct cs_partition *part = &p->partitions[i];
        if (!part->line)
            continue;
        if (!first)
            cs_outbuf_char(&o, '\n');
        /* The global policy goes on the first definition (any would do). */
        write_partition(&o, p, part, first && p->policy_set);
        first = false;
    }
    return cs_outbuf_finish(&o, "the partition configuration", err);
}
