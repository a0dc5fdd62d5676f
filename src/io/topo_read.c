/* Reader for topology files: ibnetdiscover output and ibsim net files (docs/formats/topology.md).
 *
 * Pass 1 walks the lines once and creates every node in file order (so fabric order is file
 * order), assigning GUIDs by ibsim's rules, and records each port line's far end as text. Pass 2
 * resolves those names through one sorted index of node ids (binary search, no quadratic scan),
 * checks that the two ends of every link tell the same story, and cables them. The file is
 * streamed line by line (plain or gzip); node ids and remote ids are copied into one pool of
 * text, so a 70k-line file costs a few array growths and no per-line allocation.
 *
 * Where ibsim would warn and carry on (or silently drop a link) we stop with "name:line: ..."
 * instead: a topology that loads differently from what it says is worse than one that is refused.
 */
#include "cloudsm/topo_io.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/lft.h"
#include "core/grow.h"
#include "io/text.h"

/* ibsim's GUID counters start here (ibsim/sim_net.c: absguids[]); the router base is 0. */
#define IBSIM_CA_GUID_BASE UINT64_C(0x100000)
#define IBSIM_SWITCH_GUID_BASE UINT64_C(0x200000)

/* ibsim's enabled-mask defaults for a port without w=/s=/e= (checked against ibsim 0.10 here:
 * "w=1" against a default port panics with "mismatched enabled width ... W=1 and ... W=2"). */
#define IBSIM_DEFAULT_WIDTH_MASK 2 /* 4x */
#define IBSIM_DEFAULT_SPEED_MASK 1 /* SDR */
#define IBSIM_DEFAULT_EXT_MASK 0

enum decl_flags {
    DECL_HAS_RATE = 1,    /* the comment carried "<W>x<SPEED>" */
    DECL_HAS_OPTIONS = 2, /* the line carried w=, s= or e= */
};

/* One port line, kept until pass 2 can resolve its far end. */
struct port_decl {
    size_t remote_id_at; /* offset in the reader's pool */
    uint32_t remote_id_len;
    uint32_t line;
    uint32_t port;        /* port slot of the declaring port */
    uint32_t remote_port; /* port number on the far node, as written */
    uint8_t width;
    uint8_t speed;
    uint8_t width_mask; /* ibsim enabled masks; 0 = not given on this line */
    uint8_t speed_mask;
    uint8_t ext_mask;
    uint8_t flags;
};

struct node_src {
    size_t id_at; /* offset in the reader's pool */
    uint32_t id_len;
    uint32_t line;
};

struct id_entry {
    const char *id;
    uint32_t len;
    uint32_t node;
};

struct reader {
    struct cs_fabric *f;
    const char *name;
    struct cs_error *err;

    char *pool; /* node ids and remote ids, copied out of their lines */
    size_t pool_len;
    size_t pool_cap;
    struct node_src *node_src; /* per node: its id and line */
    uint32_t node_src_cap;
    struct port_decl *decls;
    uint32_t num_decls;
    uint32_t decl_cap;
    uint32_t *decl_of_port; /* per port slot: index of its port line, CS_NONE if none */
    uint32_t decl_of_port_cap;
    struct id_entry *ids; /* pass 2: node ids sorted for lookup */

    /* ibsim's GUID assignment state, indexed by enum cs_node_type. */
    uint64_t guid_base[4];
    uint64_t guid_next[4];
    /* Values that a line gives to the next node only (ibsim resets them after each node),
     * except devid, which ibsim keeps until changed. */
    uint64_t sysimg_guid;
    bool has_sysimg_guid;
    uint64_t port0_guid;
    bool has_port0_guid;
    uint32_t vendor_id;
    uint32_t device_id;

    uint32_t current; /* node whose record is open, CS_NONE between records */
};

static int fail(struct reader *r, unsigned line, const char *fmt, ...) CS_PRINTF(3, 4);

static int fail(struct reader *r, unsigned line, const char *fmt, ...)
{
    char what[CS_ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return cs_fail_at(r->err, r->name, line, "%s", what);
}

static const char *node_id(const struct reader *r, uint32_t node)
{
    return r->pool + r->node_src[node].id_at;
}

static struct cs_quote node_quote(const struct reader *r, uint32_t node)
{
    return cs_quote(node_id(r, node), r->node_src[node].id_len);
}

/* Copy s into the pool; *at is where it starts. */
static int keep_text(struct reader *r, struct cs_span s, size_t *at)
{
    size_t len = (size_t)(s.end - s.p);
    /* Allocated even for an empty id (""), so that every id points into the pool. */
    if (!r->pool || r->pool_len + len > r->pool_cap) {
        size_t cap = r->pool_cap ? r->pool_cap : 4096;
        while (cap < r->pool_len + len)
            cap *= 2;
        char *bigger = realloc(r->pool, cap);
        if (!bigger)
            return -1;
        r->pool = bigger;
        r->pool_cap = cap;
    }
    memcpy(r->pool + r->pool_len, s.p, len);
    *at = r->pool_len;
    r->pool_len += len;
    return 0;
}

static bool is_word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static bool is_letter(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* A keyword at the start of the line, not merely a prefix of a longer word ("do" is not "done").
 * Node keywords may run into their port count ("Switch8"), as ibsim allows. */
static bool eat_keyword(struct cs_span *s, const char *word, bool digits_may_follow)
{
    if (!cs_span_starts_with(s, word))
        return false;
    const char *after = s->p + strlen(word);
    if (after < s->end) {
        char c = *after;
        if (digits_may_follow ? is_letter(c) : is_word_char(c))
            return false;
    }
    s->p = after;
    return true;
}

/* Copy a description: at most CS_DESC_MAX bytes, up to a NUL, with '"' turned into '\'' because
 * a double quote cannot be written back inside the quoted form. */
static void copy_desc(const char *p, const char *end, char *out)
{
    size_t n = 0;
    while (p < end && n < CS_DESC_MAX && *p != '\0') {
        out[n++] = *p == '"' ? '\'' : *p;
        p++;
    }
    out[n] = '\0';
}

static bool parse_u64_at(struct cs_span *s, int base, uint64_t *v)
{
    cs_span_skip_space(s);
    return cs_span_u64(s, base, v);
}

/* "lid N" and "lmc M" searched for anywhere in the span, as ibsim does for a switch header. */
static int parse_lid_lmc_anywhere(struct reader *r, unsigned line, const struct cs_span *tail,
                                  uint16_t *lid, uint8_t *lmc)
{
    const char *at = cs_span_find(tail, "lid ");
    if (at) {
        struct cs_span s = {at + 4, tail->end};
        uint64_t v;
        if (!parse_u64_at(&s, 0, &v))
            return fail(r, line, "bad LID after \"lid\"");
        if (v > CS_LID_UCAST_MAX)
            return fail(r, line, "LID %" PRIu64 " is beyond the unicast range (0 to %d)", v,
                        CS_LID_UCAST_MAX);
        *lid = (uint16_t)v;
    }
    at = cs_span_find(tail, "lmc ");
    if (at) {
        struct cs_span s = {at + 4, tail->end};
        uint64_t v;
        if (!parse_u64_at(&s, 0, &v) || v > 7)
            return fail(r, line, "bad LMC after \"lmc\" (0 to 7)");
        *lmc = (uint8_t)v;
    }
    return 0;
}

/* The node header comment: `# "desc" ...` or an unquoted desc that ends where ibsim ends it.
 * Sets *desc_span and *tail (what follows the description). has_desc is false when there is no
 * comment at all, and then the node id serves as the description (ibsim does the same). */
static void split_header_comment(const struct cs_span *rest, struct cs_span *desc,
                                 struct cs_span *tail, bool *has_desc)
{
    *has_desc = false;
    tail->p = tail->end = rest->end;
    const char *hash = memchr(rest->p, '#', (size_t)(rest->end - rest->p));
    if (!hash)
        return;
    struct cs_span c = {hash + 1, rest->end};
    cs_span_skip_space(&c);
    cs_span_trim_right(&c);
    if (cs_span_empty(&c))
        return;
    *has_desc = true;
    if (*c.p == '"') {
        const char *close = memchr(c.p + 1, '"', (size_t)(c.end - c.p - 1));
        desc->p = c.p + 1;
        desc->end = close ? close : c.end;
        if (close) {
            tail->p = close + 1;
            tail->end = c.end;
        }
        return;
    }
    static const char *const markers[] = {" enhanced port ", " base port ", " lid ", " lmc "};
    for (size_t i = 0; i < sizeof markers / sizeof markers[0]; i++) {
        const char *at = cs_span_find(&c, markers[i]);
        if (at) {
            desc->p = c.p;
            desc->end = at;
            tail->p = at + 1;
            tail->end = c.end;
            return;
        }
    }
    *desc = c;
}

static int ensure_port_slots(struct reader *r)
{
    uint32_t old = r->decl_of_port_cap;
    if (cs_grow((void **)&r->decl_of_port, &r->decl_of_port_cap, r->f->num_port_slots,
                sizeof *r->decl_of_port, NULL) < 0)
        return -1;
    for (uint32_t i = old; i < r->decl_of_port_cap; i++)
        r->decl_of_port[i] = CS_NONE;
    return 0;
}

static int parse_node(struct reader *r, struct cs_span *s, enum cs_node_type type, unsigned line)
{
    uint64_t nports;
    if (!parse_u64_at(s, 0, &nports))
        return fail(r, line, "expected the number of ports after the node type");
    if (nports < 1 || nports > CS_MAX_PORTS)
        return fail(r, line, "a node has 1 to %d ports, not %" PRIu64, CS_MAX_PORTS, nports);
    cs_span_skip_space(s);
    struct cs_span id;
    if (!cs_span_quoted(s, &id))
        return fail(r, line, "expected a quoted node id after the port count");

    struct cs_span desc_span, tail;
    bool has_desc;
    split_header_comment(s, &desc_span, &tail, &has_desc);
    char desc[CS_DESC_MAX + 1];
    if (has_desc)
        copy_desc(desc_span.p, desc_span.end, desc);
    else
        copy_desc(id.p, id.end, desc);

    uint16_t lid = 0;
    uint8_t lmc = 0;
    bool enhanced = false;
    if (type == CS_NODE_SWITCH) {
        if (parse_lid_lmc_anywhere(r, line, &tail, &lid, &lmc) < 0)
            return -1;
        enhanced = cs_span_find(&tail, "enhanced port 0") != NULL;
    }

    uint64_t guid = r->guid_next[type];
    /* ibsim reserves one GUID per switch and nports + 1 per CA or router (node + its ports). */
    r->guid_next[type] += type == CS_NODE_SWITCH ? 1 : nports + 1;

    struct cs_error add_err;
    uint32_t n = cs_fabric_add_node(r->f, type, guid, (unsigned)nports, desc, &add_err);
    if (n == CS_NONE)
        return fail(r, line, "%s", add_err.msg);
    if (cs_grow((void **)&r->node_src, &r->node_src_cap, (uint64_t)n + 1, sizeof *r->node_src,
                NULL) < 0 ||
        ensure_port_slots(r) < 0)
        return fail(r, line, "out of memory");
    size_t id_at;
    if (keep_text(r, id, &id_at) < 0)
        return fail(r, line, "out of memory");
    r->node_src[n] = (struct node_src){id_at, (uint32_t)(id.end - id.p), line};

    struct cs_node *node = &r->f->nodes[n];
    node->sysimg_guid = r->has_sysimg_guid ? r->sysimg_guid : guid;
    node->vendor_id = r->vendor_id;
    node->device_id = r->device_id;
    if (type == CS_NODE_SWITCH) {
        node->enhanced_port0 = enhanced;
        struct cs_port *port0 = &r->f->ports[node->first_port];
        port0->lid = lid;
        port0->lmc = lmc;
        if (r->has_port0_guid)
            port0->guid = r->port0_guid;
    }
    r->has_sysimg_guid = false;
    r->has_port0_guid = false;
    r->vendor_id = 0;
    r->current = n;
    return 0;
}

/* "switchguid=0x..(portguid)", "caguid=...", "caguid+N": N is relative to the last absolute
 * base of that type, as in ibsim's parse_guidbase(). */
static int parse_guid_base(struct reader *r, struct cs_span *s, enum cs_node_type type,
                           const char *keyword, unsigned line)
{
    cs_span_skip_space(s);
    bool relative = false;
    if (cs_span_eat_char(s, '+'))
        relative = true;
    else if (!cs_span_eat_char(s, '='))
        return fail(r, line, "expected '=' or '+' after %s", keyword);
    uint64_t v;
    if (!parse_u64_at(s, 0, &v))
        return fail(r, line, "bad GUID after %s", keyword);
    if (relative) {
        r->guid_next[type] = r->guid_base[type] + v;
    } else {
        r->guid_base[type] = v;
        r->guid_next[type] = v;
    }
    if (type == CS_NODE_SWITCH && cs_span_eat_char(s, '(')) {
        uint64_t port_guid;
        if (!cs_span_u64(s, 16, &port_guid) || !cs_span_eat_char(s, ')'))
            return fail(r, line, "bad port GUID in parentheses after switchguid");
        r->port0_guid = port_guid;
        r->has_port0_guid = true;
    }
    return 0;
}

static int parse_assignment(struct reader *r, struct cs_span *s, const char *keyword, uint64_t max,
                            uint64_t *value, unsigned line)
{
    cs_span_skip_space(s);
    if (!cs_span_eat_char(s, '='))
        return fail(r, line, "expected '=' after %s", keyword);
    if (!parse_u64_at(s, 0, value) || *value > max)
        return fail(r, line, "bad value for %s (0 to 0x%" PRIx64 ")", keyword, max);
    return 0;
}

/* "[ext N]" follows a port number in ibnetdiscover -g output; it names a chassis port. */
static int skip_ext_port(struct reader *r, struct cs_span *s, unsigned line)
{
    if (!cs_span_starts_with(s, "[ext"))
        return 0;
    const char *close = memchr(s->p, ']', (size_t)(s->end - s->p));
    if (!close)
        return fail(r, line, "unterminated \"[ext ...\"");
    s->p = close + 1;
    return 0;
}

/* A rate token as ibnetdiscover prints it: "<W>x<SPEED>", with "??" for an unknown width and
 * "???" for an unknown speed. Returns 1 if it is one, 0 if the token is something else, -1 if it
 * is a rate with an impossible width. */
static int parse_rate(const char *p, const char *end, uint8_t *width, uint8_t *speed)
{
    uint64_t w = 0;
    if (end - p >= 2 && p[0] == '?' && p[1] == '?') {
        p += 2;
    } else {
        struct cs_span s = {p, end};
        if (!cs_span_u64(&s, 10, &w) || !cs_span_eat_char(&s, 'x'))
            return 0;
        p = s.p;
    }
    enum cs_link_speed sp = CS_SPEED_UNKNOWN;
    if (end - p == 3 && memcmp(p, "???", 3) == 0) {
        sp = CS_SPEED_UNKNOWN;
    } else {
        sp = cs_link_speed_parse(p, (size_t)(end - p));
        if (sp == CS_SPEED_UNKNOWN)
            return 0;
    }
    if (w != 0 && w != 1 && w != 2 && w != 4 && w != 8 && w != 12)
        return -1;
    *width = (uint8_t)w;
    *speed = (uint8_t)sp;
    return 1;
}

/* The comment of a port line. CA and router lines start with the port's own "lid N lmc M"; both
 * kinds end with the far end's "lid N" and the link rate, after the quoted far description (the
 * same place ibsim looks: the first "lid" with no '"' after it). */
static int parse_port_comment(struct reader *r, struct cs_span c, bool own_lid, struct port_decl *d,
                              uint16_t *lid, uint8_t *lmc, unsigned line)
{
    cs_span_skip_space(&c);
    if (own_lid && cs_span_eat(&c, "lid ")) {
        uint64_t v;
        if (!parse_u64_at(&c, 0, &v))
            return fail(r, line, "bad LID after \"lid\"");
        if (v > CS_LID_UCAST_MAX)
            return fail(r, line, "LID %" PRIu64 " is beyond the unicast range (0 to %d)", v,
                        CS_LID_UCAST_MAX);
        *lid = (uint16_t)v;
        cs_span_skip_space(&c);
        if (cs_span_eat(&c, "lmc ")) {
            if (!parse_u64_at(&c, 0, &v) || v > 7)
                return fail(r, line, "bad LMC after \"lmc\" (0 to 7)");
            *lmc = (uint8_t)v;
        }
    }
    const char *from = c.p;
    for (const char *q = c.end; q > c.p; q--)
        if (q[-1] == '"') {
            from = q;
            break;
        }
    struct cs_span after = {from, c.end};
    const char *at = cs_span_find(&after, "lid ");
    if (!at)
        return 0;
    struct cs_span s = {at + 4, c.end};
    uint64_t remote_lid;
    if (!parse_u64_at(&s, 0, &remote_lid))
        return 0;
    cs_span_skip_space(&s);
    const char *tok = s.p;
    while (s.p < s.end && *s.p != ' ' && *s.p != '\t')
        s.p++;
    int rc = parse_rate(tok, s.p, &d->width, &d->speed);
    if (rc < 0)
        return fail(r, line, "bad link width in \"%s\" (1x, 2x, 4x, 8x or 12x)",
                    cs_quote(tok, (size_t)(s.p - tok)).text);
    if (rc > 0)
        d->flags |= DECL_HAS_RATE;
    return 0;
}

/* ibsim port options "w=N s=N e=N" between the far port and the comment. */
static int parse_port_options(struct reader *r, struct cs_span s, struct port_decl *d,
                              unsigned line)
{
    for (;;) {
        cs_span_skip_space(&s);
        if (cs_span_empty(&s))
            return 0;
        const char *tok = s.p;
        while (s.p < s.end && *s.p != ' ' && *s.p != '\t')
            s.p++;
        const char *eq = memchr(tok, '=', (size_t)(s.p - tok));
        if (!eq || eq == tok)
            continue; /* ibsim ignores anything that is not an option */
        struct cs_span value = {eq + 1, s.p};
        uint64_t v;
        bool ok = cs_span_u64(&value, 0, &v) && cs_span_empty(&value);
        char opt = eq[-1];
        struct cs_quote option = cs_quote(tok, (size_t)(s.p - tok));
        switch (opt) {
        case 'w':
            if (!ok || v < 1 || v > 31)
                return fail(r, line, "bad port option \"%s\" (w= takes a width mask 1 to 31)",
                            option.text);
            d->width_mask = (uint8_t)v;
            break;
        case 's':
            if (!ok || v > 7)
                return fail(r, line, "bad port option \"%s\" (s= takes a speed mask 0 to 7)",
                            option.text);
            d->speed_mask = (uint8_t)(v ? v : 4); /* ibsim: 0 means QDR */
            break;
        case 'e':
            if (!ok || v > 15)
                return fail(r, line,
                            "bad port option \"%s\" (e= takes an extended speed mask 0 to 15)",
                            option.text);
            d->ext_mask = (uint8_t)v;
            break;
        default:
            continue; /* newer ibsim ignores unknown option letters */
        }
        d->flags |= DECL_HAS_OPTIONS;
    }
}

static int parse_port_line(struct reader *r, struct cs_span *s, unsigned line)
{
    if (r->current == CS_NONE)
        return fail(r, line, "port line outside a node record (a blank line ends a record)");
    struct cs_fabric *f = r->f;
    const struct cs_node *node = &f->nodes[r->current];

    s->p++; /* '[' */
    uint64_t num;
    if (!cs_span_u64(s, 10, &num) || !cs_span_eat_char(s, ']'))
        return fail(r, line, "expected \"[<port number>]\" at the start of a port line");
    if (num == 0)
        return fail(r, line, "port 0 cannot be cabled (external ports are numbered from 1)");
    if (num > node->num_ports)
        return fail(r, line, "port %" PRIu64 " out of range: node \"%s\" has %u ports", num,
                    node_quote(r, r->current).text, node->num_ports);
    if (skip_ext_port(r, s, line) < 0)
        return -1;
    uint32_t slot = node->first_port + (uint32_t)num;
    if (r->decl_of_port[slot] != CS_NONE)
        return fail(r, line, "port %" PRIu64 " of \"%s\" is declared twice (first at line %u)", num,
                    node_quote(r, r->current).text, r->decls[r->decl_of_port[slot]].line);

    cs_span_skip_space(s);
    if (cs_span_eat_char(s, '(')) {
        uint64_t port_guid;
        if (!cs_span_u64(s, 16, &port_guid) || !cs_span_eat_char(s, ')'))
            return fail(r, line, "bad port GUID in parentheses");
        /* Only CA and router ports have their own GUID; ibnetdiscover prints none for switch
         * ports, so one found there is not part of the model. */
        if (!cs_node_is_switch(node))
            f->ports[slot].guid = port_guid;
        cs_span_skip_space(s);
    }

    struct port_decl d;
    memset(&d, 0, sizeof d);
    struct cs_span remote;
    if (!cs_span_quoted(s, &remote))
        return fail(r, line, "expected a quoted remote node id");
    if (keep_text(r, remote, &d.remote_id_at) < 0)
        return fail(r, line, "out of memory");
    d.remote_id_len = (uint32_t)(remote.end - remote.p);
    d.line = line;
    d.port = slot;
    d.remote_port = 1; /* ibsim's default when "[n]" is left out */
    cs_span_skip_space(s);
    if (cs_span_eat_char(s, '[')) {
        uint64_t rp;
        if (!cs_span_u64(s, 10, &rp) || !cs_span_eat_char(s, ']'))
            return fail(r, line, "expected \"[<port number>]\" after the remote node id");
        if (rp < 1 || rp > CS_MAX_PORTS)
            return fail(r, line, "bad remote port %" PRIu64 " (1 to %d)", rp, CS_MAX_PORTS);
        d.remote_port = (uint32_t)rp;
        if (skip_ext_port(r, s, line) < 0)
            return -1;
    }
    cs_span_skip_space(s);
    if (cs_span_eat_char(s, '(')) { /* the far port's GUID: the far node's own line is the truth */
        uint64_t ignored;
        if (!cs_span_u64(s, 16, &ignored) || !cs_span_eat_char(s, ')'))
            return fail(r, line, "bad remote port GUID in parentheses");
    }

    const char *hash = memchr(s->p, '#', (size_t)(s->end - s->p));
    struct cs_span options = {s->p, hash ? hash : s->end};
    if (parse_port_options(r, options, &d, line) < 0)
        return -1;
    if (hash) {
        struct cs_span comment = {hash + 1, s->end};
        struct cs_port *port = &f->ports[slot];
        uint16_t lid = port->lid;
        uint8_t lmc = port->lmc;
        if (parse_port_comment(r, comment, !cs_node_is_switch(node), &d, &lid, &lmc, line) < 0)
            return -1;
        port->lid = lid;
        port->lmc = lmc;
    }

    if (cs_grow((void **)&r->decls, &r->decl_cap, (uint64_t)r->num_decls + 1, sizeof *r->decls,
                NULL) < 0)
        return fail(r, line, "out of memory");
    r->decl_of_port[slot] = r->num_decls;
    r->decls[r->num_decls++] = d;
    return 0;
}

static int unsupported(struct reader *r, const char *what, unsigned line)
{
    return fail(r, line, "\"%s\" is not supported: cloudsm reads one self-contained topology file",
                what);
}

static int parse_line(struct reader *r, struct cs_span *s, unsigned line)
{
    cs_span_skip_space(s);
    if (cs_span_empty(s)) {
        r->current = CS_NONE; /* a blank line ends a node record */
        return 0;
    }
    char c = *s->p;
    if (c == '#')
        return 0; /* comments do not end a record */
    if (c == '[')
        return parse_port_line(r, s, line);
    if (c == '@')
        return unsupported(r, "@alias port", line);

    r->current = CS_NONE;
    uint64_t v;
    if (eat_keyword(s, "Switch", true))
        return parse_node(r, s, CS_NODE_SWITCH, line);
    if (eat_keyword(s, "Hca", true) || eat_keyword(s, "Ca", true))
        return parse_node(r, s, CS_NODE_CA, line);
    if (eat_keyword(s, "Rt", true))
        return parse_node(r, s, CS_NODE_ROUTER, line);
    if (eat_keyword(s, "switchguid", false))
        return parse_guid_base(r, s, CS_NODE_SWITCH, "switchguid", line);
    if (eat_keyword(s, "caguid", false))
        return parse_guid_base(r, s, CS_NODE_CA, "caguid", line);
    if (eat_keyword(s, "hcaguids", false))
        return parse_guid_base(r, s, CS_NODE_CA, "hcaguids", line);
    if (eat_keyword(s, "rtguid", false))
        return parse_guid_base(r, s, CS_NODE_ROUTER, "rtguid", line);
    if (eat_keyword(s, "sysimgguid", false)) {
        if (parse_assignment(r, s, "sysimgguid", UINT64_MAX, &r->sysimg_guid, line) < 0)
            return -1;
        r->has_sysimg_guid = true;
        return 0;
    }
    if (eat_keyword(s, "vendid", false)) {
        if (parse_assignment(r, s, "vendid", UINT32_MAX, &v, line) < 0)
            return -1;
        r->vendor_id = (uint32_t)v;
        return 0;
    }
    if (eat_keyword(s, "devid", false)) {
        if (parse_assignment(r, s, "devid", UINT32_MAX, &v, line) < 0)
            return -1;
        r->device_id = (uint32_t)v;
        return 0;
    }
    if (eat_keyword(s, "include", false))
        return unsupported(r, "include", line);
    if (eat_keyword(s, "module", false))
        return unsupported(r, "module", line);
    if (eat_keyword(s, "do", false))
        return unsupported(r, "do", line);
    /* Everything else is ignored, as ibsim ignores it: "width=", "speed=", "extspeed=" and
     * "pdebug=" (ibsim settings we do not model), ibnetdiscover -g "Chassis"/"Hostname" lines. */
    return 0;
}

/* --- pass 2 --- */

static int cmp_id(const void *a, const void *b)
{
    const struct id_entry *x = a, *y = b;
    uint32_t n = x->len < y->len ? x->len : y->len;
    int c = n ? memcmp(x->id, y->id, n) : 0;
    if (c)
        return c;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return x->node < y->node ? -1 : x->node > y->node;
}

static int index_ids(struct reader *r)
{
    uint32_t n = r->f->num_nodes;
    r->ids = malloc((n ? n : 1) * sizeof *r->ids);
    if (!r->ids)
        return cs_fail(r->err, "%s: out of memory", r->name ? r->name : "<input>");
    for (uint32_t i = 0; i < n; i++)
        r->ids[i] = (struct id_entry){node_id(r, i), r->node_src[i].id_len, i};
    qsort(r->ids, n, sizeof *r->ids, cmp_id);
    /* Report the duplicate that appears first in the file. */
    uint32_t worst = CS_NONE;
    for (uint32_t i = 1; i < n; i++)
        if (r->ids[i].len == r->ids[i - 1].len &&
            (r->ids[i].len == 0 || memcmp(r->ids[i].id, r->ids[i - 1].id, r->ids[i].len) == 0) &&
            (worst == CS_NONE || r->ids[i].node < r->ids[worst].node))
            worst = i;
    if (worst != CS_NONE) {
        const struct id_entry *dup = &r->ids[worst];
        return fail(r, r->node_src[dup->node].line,
                    "duplicate node id \"%s\" (first defined at line %u)",
                    cs_quote(dup->id, dup->len).text, r->node_src[r->ids[worst - 1].node].line);
    }
    return 0;
}

static uint32_t find_id(const struct reader *r, const char *id, uint32_t len)
{
    struct id_entry key = {id, len, 0};
    uint32_t lo = 0, hi = r->f->num_nodes;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        /* Node 0 is the smallest tiebreak, so an exact name compares >= key here. */
        if (cmp_id(&r->ids[mid], &key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < r->f->num_nodes && r->ids[lo].len == len &&
        (len == 0 || memcmp(r->ids[lo].id, id, len) == 0))
        return r->ids[lo].node;
    return CS_NONE;
}

static int check_unique_guids(struct reader *r)
{
    struct cs_key_index ix;
    cs_key_index_init(&ix);
    if (cs_key_index_reserve(&ix, r->f->num_nodes, r->err) < 0)
        return -1;
    for (uint32_t i = 0; i < r->f->num_nodes; i++)
        cs_key_index_add(&ix, r->f->nodes[i].guid, i, r->err);
    cs_key_index_sort(&ix);
    uint64_t guid;
    uint32_t first, dup;
    int rc = 0;
    if (cs_key_index_duplicate(&ix, &guid, &first, &dup))
        rc = fail(r, r->node_src[dup].line,
                  "duplicate node GUID 0x%016" PRIx64 " (node \"%s\" at line %u has it too)", guid,
                  node_quote(r, first).text, r->node_src[first].line);
    cs_key_index_free(&ix);
    return rc;
}

static const char *rate_text(uint8_t width, uint8_t speed, char *buf, size_t size)
{
    if (width)
        snprintf(buf, size, "%ux%s", width, speed ? cs_link_speed_name(speed) : "???");
    else
        snprintf(buf, size, "??%s", speed ? cs_link_speed_name(speed) : "???");
    return buf;
}

static uint8_t highest_width(unsigned mask)
{
    if (mask & 8)
        return 12;
    if (mask & 4)
        return 8;
    if (mask & 2)
        return 4;
    if (mask & 16)
        return 2;
    return mask & 1 ? 1 : 0;
}

static enum cs_link_speed highest_speed(unsigned mask, unsigned ext)
{
    if (ext & 8)
        return CS_SPEED_NDR;
    if (ext & 4)
        return CS_SPEED_HDR;
    if (ext & 2)
        return CS_SPEED_EDR;
    if (ext & 1)
        return CS_SPEED_FDR;
    if (mask & 4)
        return CS_SPEED_QDR;
    if (mask & 2)
        return CS_SPEED_DDR;
    return mask & 1 ? CS_SPEED_SDR : CS_SPEED_UNKNOWN;
}

/* The rate of a new link from its one or two port lines: a rate written in a comment wins;
 * otherwise ibsim's w=/s=/e= masks give the highest rate both ends enable. */
static int set_link_rate(struct reader *r, const struct port_decl *a, const struct port_decl *b)
{
    const struct port_decl *later = b ? b : a;
    if ((a->flags & DECL_HAS_RATE) && b && (b->flags & DECL_HAS_RATE) &&
        (a->width != b->width || a->speed != b->speed)) {
        char ra[32], rb[32];
        return fail(r, b->line, "link rate %s disagrees with %s at line %u (the other end)",
                    rate_text(b->width, b->speed, rb, sizeof rb),
                    rate_text(a->width, a->speed, ra, sizeof ra), a->line);
    }
    uint8_t width = 0;
    enum cs_link_speed speed = CS_SPEED_UNKNOWN;
    if (a->flags & DECL_HAS_RATE) {
        width = a->width;
        speed = a->speed;
    } else if (b && (b->flags & DECL_HAS_RATE)) {
        width = b->width;
        speed = b->speed;
    } else if ((a->flags & DECL_HAS_OPTIONS) || (b && (b->flags & DECL_HAS_OPTIONS))) {
        unsigned wa = a->width_mask ? a->width_mask : IBSIM_DEFAULT_WIDTH_MASK;
        unsigned sa = a->speed_mask ? a->speed_mask : IBSIM_DEFAULT_SPEED_MASK;
        unsigned ea = a->ext_mask;
        unsigned wb = IBSIM_DEFAULT_WIDTH_MASK, sb = IBSIM_DEFAULT_SPEED_MASK;
        unsigned eb = IBSIM_DEFAULT_EXT_MASK;
        if (b) {
            wb = b->width_mask ? b->width_mask : IBSIM_DEFAULT_WIDTH_MASK;
            sb = b->speed_mask ? b->speed_mask : IBSIM_DEFAULT_SPEED_MASK;
            eb = b->ext_mask;
        }
        if (!(wa & wb))
            return fail(r, later->line, "the two ends enable no common link width (w=%u, w=%u)", wa,
                        wb);
        if (!(sa & sb))
            return fail(r, later->line, "the two ends enable no common link speed (s=%u, s=%u)", sa,
                        sb);
        width = highest_width(wa & wb);
        speed = highest_speed(sa & sb, ea & eb);
    }
    if (width || speed)
        cs_fabric_set_link_rate(r->f, a->port, width, speed);
    return 0;
}

static void describe_port(const struct reader *r, uint32_t slot, char *buf, size_t size)
{
    const struct cs_port *p = &r->f->ports[slot];
    snprintf(buf, size, "\"%s\"[%u]", node_quote(r, p->node).text, p->num);
}

static int link_all(struct reader *r)
{
    struct cs_fabric *f = r->f;
    uint32_t *target = malloc((r->num_decls ? r->num_decls : 1) * sizeof *target);
    if (!target)
        return cs_fail(r->err, "%s: out of memory", r->name ? r->name : "<input>");
    int rc = 0;
    for (uint32_t i = 0; i < r->num_decls && rc == 0; i++) {
        const struct port_decl *d = &r->decls[i];
        const char *remote_id = r->pool + d->remote_id_at;
        uint32_t remote = find_id(r, remote_id, d->remote_id_len);
        if (remote == CS_NONE) {
            rc = fail(r, d->line, "remote node \"%s\" is not defined in this file",
                      cs_quote(remote_id, d->remote_id_len).text);
        } else if (d->remote_port > f->nodes[remote].num_ports) {
            rc = fail(r, d->line, "remote port %u out of range: node \"%s\" has %u ports",
                      d->remote_port, node_quote(r, remote).text, f->nodes[remote].num_ports);
        } else {
            target[i] = f->nodes[remote].first_port + d->remote_port;
            if (target[i] == d->port)
                rc = fail(r, d->line, "a port cannot be cabled to itself");
        }
    }
    for (uint32_t i = 0; i < r->num_decls && rc == 0; i++) {
        const struct port_decl *d = &r->decls[i];
        uint32_t far = target[i];
        uint32_t far_decl = r->decl_of_port[far];
        char here[sizeof(struct cs_quote) + 16], there[sizeof(struct cs_quote) + 16],
            other[sizeof(struct cs_quote) + 16];
        if (far_decl != CS_NONE && target[far_decl] != d->port) {
            describe_port(r, d->port, here, sizeof here);
            describe_port(r, far, there, sizeof there);
            describe_port(r, target[far_decl], other, sizeof other);
            rc = fail(r, d->line, "%s is cabled to %s, but line %u cables %s to %s", here, there,
                      r->decls[far_decl].line, there, other);
            break;
        }
        if (f->ports[d->port].peer != CS_NONE)
            continue; /* created from the other end's line, which agrees */
        if (f->ports[far].peer != CS_NONE) {
            uint32_t taken_by = f->ports[far].peer;
            describe_port(r, far, there, sizeof there);
            describe_port(r, taken_by, other, sizeof other);
            rc = fail(r, d->line, "%s is already cabled to %s (line %u)", there, other,
                      r->decls[r->decl_of_port[taken_by]].line);
            break;
        }
        struct cs_error connect_err;
        if (cs_fabric_connect(f, d->port, far, &connect_err) < 0) {
            rc = fail(r, d->line, "%s", connect_err.msg);
            break;
        }
        rc = set_link_rate(r, d, far_decl != CS_NONE ? &r->decls[far_decl] : NULL);
    }
    free(target);
    return rc;
}

static int parse_source(struct cs_fabric *f, struct cs_lines *lines, struct cs_error *err)
{
    if (f->num_nodes != 0)
        return cs_fail(err, "%s: reading a topology needs an empty fabric", lines->name);
    struct reader r;
    memset(&r, 0, sizeof r);
    r.f = f;
    r.name = lines->name;
    r.err = err;
    r.current = CS_NONE;
    r.guid_base[CS_NODE_CA] = r.guid_next[CS_NODE_CA] = IBSIM_CA_GUID_BASE;
    r.guid_base[CS_NODE_SWITCH] = r.guid_next[CS_NODE_SWITCH] = IBSIM_SWITCH_GUID_BASE;

    int rc = 0;
    struct cs_span line;
    int got;
    while (rc == 0 && (got = cs_lines_next(lines, &line)) > 0)
        rc = parse_line(&r, &line, lines->number);
    if (rc == 0 && got < 0)
        rc = -1;
    if (rc == 0 && f->num_nodes == 0) {
        char found[160];
        cs_lines_describe(lines, found, sizeof found);
        rc = cs_fail(err,
                     "%s: expected an ibnetdiscover or ibsim topology (Switch, Ca or Rt node "
                     "lines); found no node in %s",
                     r.name, found);
    }
    if (rc == 0)
        rc = index_ids(&r);
    if (rc == 0)
        rc = check_unique_guids(&r);
    if (rc == 0)
        rc = link_all(&r);

    free(r.pool);
    free(r.node_src);
    free(r.decls);
    free(r.decl_of_port);
    free(r.ids);
    if (rc < 0)
        cs_fabric_free(f);
    return rc;
}

int cs_topo_parse(struct cs_fabric *f, const char *text, size_t len, const char *name,
                  struct cs_error *err)
{
    struct cs_lines lines;
    cs_lines_init(&lines, text, len, name, err);
    return parse_source(f, &lines, err);
}

int cs_topo_read(struct cs_fabric *f, const char *path, struct cs_error *err)
{
    struct cs_lines lines;
    if (cs_lines_open(&lines, path, err) < 0)
        return -1;
    int rc = parse_source(f, &lines, err);
    cs_lines_close(&lines);
    return rc;
}
