/* OpenSM's QoS policy file, its qos-ulps section (include/cloudsm/qos_policy.h).
 *
 * A scanner turns the lines into OpenSM's tokens (osm_qos_parser_l.l: a ULP's name with its ':'
 * or its ", keyword" is one token, numbers, '-', ':' and ','), and a recursive descent reads
 * OpenSM's grammar (osm_qos_parser_y.y) over them. Tokens never span lines, so the file streams
 * through the line source; the policy is built aside and handed out only when the whole file
 * read, so a bad file leaves nothing behind. */
#include "cloudsm/qos_policy.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/grow.h"
#include "io/text.h"

enum tok {
    TOK_END,    /* end of the input */
    TOK_NUMBER, /* value */
    TOK_DASH,
    TOK_COLON,
    TOK_COMMA,
    TOK_ULPS_START, /* qos-ulps */
    TOK_ULPS_END,   /* end-qos-ulps */
    TOK_SECTION,    /* another section's keyword: refused */
    TOK_RULE,       /* a ULP's name with its ':' (rule.list false) or its ", keyword" */
    TOK_OTHER,      /* anything else: one character */
};

/* The rules a ULP name starts. list: the name, a comma and keyword, then ranges; otherwise the
 * name and ':' (the ranges are fixed). */
enum ulp { ULP_DEFAULT, ULP_ANY, ULP_SDP, ULP_RDS, ULP_ISER, ULP_SRP, ULP_IPOIB };

static const struct rule_form {
    enum ulp ulp;
    const char *keyword; /* after "name," ; NULL: "name :" */
    enum cs_qos_match match;
} rule_forms[] = {
    {ULP_DEFAULT, NULL, CS_QOS_MATCH_SERVICE_ID}, /* match unused: sets the default */
    {ULP_ANY, "service-id", CS_QOS_MATCH_SERVICE_ID},
    {ULP_ANY, "pkey", CS_QOS_MATCH_PKEY},
    {ULP_ANY, "target-port-guid", CS_QOS_MATCH_TARGET_GUID},
    {ULP_ANY, "source-port-guid", CS_QOS_MATCH_SOURCE_GUID},
    {ULP_SDP, NULL, CS_QOS_MATCH_SERVICE_ID},
    {ULP_SDP, "port-num", CS_QOS_MATCH_SERVICE_ID},
    {ULP_RDS, NULL, CS_QOS_MATCH_SERVICE_ID},
    {ULP_RDS, "port-num", CS_QOS_MATCH_SERVICE_ID},
    {ULP_ISER, NULL, CS_QOS_MATCH_SERVICE_ID},
    {ULP_ISER, "port-num", CS_QOS_MATCH_SERVICE_ID},
    {ULP_SRP, "target-port-guid", CS_QOS_MATCH_TARGET_GUID},
    {ULP_IPOIB, NULL, CS_QOS_MATCH_PKEY},
    {ULP_IPOIB, "pkey", CS_QOS_MATCH_PKEY},
};
#define RULE_FORMS (sizeof rule_forms / sizeof rule_forms[0])

static const char *const ulp_names[] = {
    [ULP_DEFAULT] = "default", [ULP_ANY] = "any", [ULP_SDP] = "sdp",     [ULP_RDS] = "rds",
    [ULP_ISER] = "iser",       [ULP_SRP] = "srp", [ULP_IPOIB] = "ipoib",
};

/* OpenSM's other sections: refused by name (longest first where one is a prefix of another). */
static const char *const other_sections[] = {
    "end-port-groups", "end-port-group", "port-groups",         "port-group",
    "end-qos-setup",   "qos-setup",      "end-qos-levels",      "end-qos-level",
    "qos-levels",      "qos-level",      "end-qos-match-rules", "end-qos-match-rule",
    "qos-match-rules", "qos-match-rule",
};

struct token {
    enum tok kind;
    unsigned line, col;
    uint64_t value;               /* TOK_NUMBER */
    const struct rule_form *form; /* TOK_RULE */
    const char *word;             /* TOK_SECTION */
    char text[16];                /* TOK_OTHER, TOK_NUMBER: as the file has it, escaped */
};

struct parser {
    struct cs_lines lines;
    const char *name;
    struct cs_error *err;
    struct cs_span rest; /* what is left of the current line */
    const char *line_start;
    unsigned line;
    bool more; /* the line source has more lines */
    struct cs_qos_policy *p;
    uint32_t rule_cap, range_cap;
    bool has_default;
};

static int fail_at(struct parser *ps, unsigned line, unsigned col, const char *fmt, ...)
    CS_PRINTF(4, 5);

static int fail_at(struct parser *ps, unsigned line, unsigned col, const char *fmt, ...)
{
    char what[CS_ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return cs_fail(ps->err, "%s:%u:%u: %s", ps->name, line, col, what);
}

/* The span starts with word, in any case when fold. */
static bool starts_with(const struct cs_span *s, const char *word, bool fold)
{
    size_t n = strlen(word);
    if ((size_t)(s->end - s->p) < n)
        return false;
    return fold ? strncasecmp(s->p, word, n) == 0 : memcmp(s->p, word, n) == 0;
}

static void skip_blanks(struct cs_span *s)
{
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t'))
        s->p++;
}

/* A ULP's name at s and what follows it, as OpenSM's scanner takes them: "name[ \t]*:[ \t]*" or
 * "name[ \t]*,[ \t]*keyword". NULL: not a rule token (the name alone is other text). */
static const struct rule_form *scan_rule(struct cs_span *s)
{
    for (size_t u = 0; u < sizeof ulp_names / sizeof ulp_names[0]; u++) {
        if (!starts_with(s, ulp_names[u], true))
            continue;
        struct cs_span t = {s->p + strlen(ulp_names[u]), s->end};
        skip_blanks(&t);
        if (t.p >= t.end || (*t.p != ':' && *t.p != ','))
            return NULL;
        bool colon = *t.p++ == ':';
        skip_blanks(&t);
        /* The longest keyword first is not needed: no keyword is a prefix of another. */
        for (size_t f = 0; f < RULE_FORMS; f++) {
            const struct rule_form *form = &rule_forms[f];
            if (form->ulp != (enum ulp)u || colon != (form->keyword == NULL))
                continue;
            if (!colon && !starts_with(&t, form->keyword, false))
                continue;
            s->p = colon ? t.p : t.p + strlen(form->keyword);
            return form;
        }
        return NULL;
    }
    return NULL;
}

/* A number token: OpenSM's 0[xX][0-9a-fA-F]+ or [0-9]+, valued by strtoull(.., 0) as OpenSM
 * values it (so a leading 0 is octal, and "09" is 0). */
static int scan_number(struct parser *ps, struct token *t)
{
    const char *p = ps->rest.p, *end = ps->rest.end;
    const char *q = p;
    if (end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && cs_hex_digit(p[2]) >= 0) {
        q = p + 2;
        while (q < end && cs_hex_digit(*q) >= 0)
            q++;
    } else {
        while (q < end && *q >= '0' && *q <= '9')
            q++;
    }
    size_t n = (size_t)(q - p);
    char buf[32];
    if (n >= sizeof buf)
        return fail_at(ps, t->line, t->col, "number \"%s\" is longer than 64 bits",
                       cs_quote(p, n).text);
    memcpy(buf, p, n);
    buf[n] = '\0';
    errno = 0;
    unsigned long long v = strtoull(buf, NULL, 0);
    if (errno == ERANGE)
        return fail_at(ps, t->line, t->col, "number \"%s\" is longer than 64 bits",
                       cs_quote(p, n).text);
    t->kind = TOK_NUMBER;
    t->value = (uint64_t)v;
    cs_text_escape(p, n, t->text, sizeof t->text);
    ps->rest.p = q;
    return 0;
}

/* The next token into t; -1 on a read error or a bad number. */
static int next_token(struct parser *ps, struct token *t)
{
    for (;;) {
        skip_blanks(&ps->rest);
        if (ps->rest.p < ps->rest.end && *ps->rest.p != '#')
            break;
        struct cs_span line;
        int rc = ps->more ? cs_lines_next(&ps->lines, &line) : 0;
        if (rc < 0)
            return -1;
        if (rc == 0) {
            ps->more = false;
            *t = (struct token){.kind = TOK_END, .line = ps->line ? ps->line : 1, .col = 1};
            if (ps->line_start)
                t->col = (unsigned)(ps->rest.end - ps->line_start) + 1;
            ps->rest.p = ps->rest.end;
            return 0;
        }
        ps->line = ps->lines.number;
        ps->line_start = line.p;
        ps->rest = line;
    }
    struct cs_span *s = &ps->rest;
    *t = (struct token){.line = ps->line, .col = (unsigned)(s->p - ps->line_start) + 1};
    if (starts_with(s, "end-qos-ulps", false)) {
        t->kind = TOK_ULPS_END;
        s->p += strlen("end-qos-ulps");
        return 0;
    }
    if (starts_with(s, "qos-ulps", false)) {
        t->kind = TOK_ULPS_START;
        s->p += strlen("qos-ulps");
        return 0;
    }
    for (size_t i = 0; i < sizeof other_sections / sizeof other_sections[0]; i++)
        if (starts_with(s, other_sections[i], false)) {
            t->kind = TOK_SECTION;
            t->word = other_sections[i];
            s->p += strlen(other_sections[i]);
            return 0;
        }
    if ((t->form = scan_rule(s)) != NULL) {
        t->kind = TOK_RULE;
        return 0;
    }
    char c = *s->p;
    if (c >= '0' && c <= '9')
        return scan_number(ps, t);
    t->kind = c == '-' ? TOK_DASH : c == ':' ? TOK_COLON : c == ',' ? TOK_COMMA : TOK_OTHER;
    cs_text_escape(s->p, 1, t->text, sizeof t->text);
    s->p++;
    return 0;
}

/* What t is, for "expected X, found Y". */
static const char *token_shown(const struct token *t, char *buf, size_t size)
{
    switch (t->kind) {
    case TOK_END:
        return "the end of the file";
    case TOK_NUMBER:
        snprintf(buf, size, "the number %s", t->text);
        return buf;
    case TOK_DASH:
        return "'-'";
    case TOK_COLON:
        return "':'";
    case TOK_COMMA:
        return "','";
    case TOK_ULPS_START:
        return "qos-ulps";
    case TOK_ULPS_END:
        return "end-qos-ulps";
    case TOK_SECTION:
        return t->word;
    case TOK_RULE:
        snprintf(buf, size, "a %s rule", ulp_names[t->form->ulp]);
        return buf;
    case TOK_OTHER:
        snprintf(buf, size, "\"%s\"", t->text);
        return buf;
    }
    return "?";
}

static int unexpected(struct parser *ps, const struct token *t, const char *expected)
{
    char buf[64];
    if (t->kind == TOK_SECTION)
        return fail_at(ps, t->line, t->col,
                       "%s: cloudsm reads only the qos-ulps section of a QoS policy file (the "
                       "full policy's sections are not supported)",
                       t->word);
    return fail_at(ps, t->line, t->col, "expected %s, found %s", expected,
                   token_shown(t, buf, sizeof buf));
}

static int add_range(struct parser *ps, uint64_t lo, uint64_t hi)
{
    if (cs_grow((void **)&ps->p->ranges, &ps->range_cap, (uint64_t)ps->p->num_ranges + 1,
                sizeof *ps->p->ranges, ps->err) < 0)
        return -1;
    ps->p->ranges[ps->p->num_ranges++] =
        (struct cs_qos_range){lo < hi ? lo : hi, lo < hi ? hi : lo};
    return 0;
}

/* "N[-M][, N[-M]]..." up to the ':' that ends it (read too). Each range as OpenSM keeps it: a
 * port number 0..65535 added to base, a P_Key without its membership bit. */
static int read_ranges(struct parser *ps, const struct rule_form *form, uint64_t base)
{
    struct token t;
    for (;;) {
        uint64_t v[2];
        struct token at;
        if (next_token(ps, &at) < 0)
            return -1;
        if (at.kind != TOK_NUMBER)
            return unexpected(ps, &at, "a number");
        v[0] = v[1] = at.value;
        if (next_token(ps, &t) < 0)
            return -1;
        if (t.kind == TOK_DASH) {
            if (next_token(ps, &t) < 0)
                return -1;
            if (t.kind != TOK_NUMBER)
                return unexpected(ps, &t, "a number after '-'");
            v[1] = t.value;
            if (next_token(ps, &t) < 0)
                return -1;
        }
        if (form->keyword && strcmp(form->keyword, "port-num") == 0) {
            if (v[0] > 0xffff || v[1] > 0xffff)
                return fail_at(ps, at.line, at.col, "%s port number out of range (0..65535)",
                               ulp_names[form->ulp]);
            v[0] += base;
            v[1] += base;
        } else if (form->match == CS_QOS_MATCH_PKEY) {
            v[0] &= 0x7fff; /* OpenSM matches P_Keys without the membership bit */
            v[1] &= 0x7fff;
        }
        if (add_range(ps, v[0], v[1]) < 0)
            return -1;
        if (t.kind == TOK_COLON)
            return 0;
        if (t.kind != TOK_COMMA)
            return unexpected(ps, &t, "',' or ':'");
    }
}

static int read_sl(struct parser *ps, uint8_t *sl)
{
    struct token t;
    if (next_token(ps, &t) < 0)
        return -1;
    if (t.kind != TOK_NUMBER)
        return unexpected(ps, &t, "an SL");
    if (t.value > 15)
        return fail_at(ps, t.line, t.col, "illegal SL value %s (0..15)", t.text);
    *sl = (uint8_t)t.value;
    return 0;
}

/* One rule, its token t read: its ranges, its SL. */
static int read_rule(struct parser *ps, const struct token *t)
{
    const struct rule_form *form = t->form;
    if (form->ulp == ULP_DEFAULT) {
        ps->has_default = true;
        return read_sl(ps, &ps->p->default_sl);
    }
    struct cs_qos_policy *p = ps->p;
    uint32_t first = p->num_ranges;
    uint64_t base = form->ulp == ULP_SDP   ? CS_QOS_POLICY_SDP_SERVICE_ID
                    : form->ulp == ULP_RDS ? CS_QOS_POLICY_RDS_SERVICE_ID
                                           : CS_QOS_POLICY_ISER_SERVICE_ID;
    if (form->keyword) {
        if (read_ranges(ps, form, base) < 0)
            return -1;
    } else {
        /* The fixed ranges of "sdp :", "rds :", "iser :", "ipoib :" (OpenSM's parser actions). */
        uint64_t lo = form->ulp == ULP_SDP    ? base
                      : form->ulp == ULP_RDS  ? base + CS_QOS_POLICY_RDS_PORT
                      : form->ulp == ULP_ISER ? base + CS_QOS_POLICY_ISER_PORT
                                              : CS_QOS_POLICY_IPOIB_PKEY;
        uint64_t hi = form->ulp == ULP_SDP ? base + 0xffff : lo;
        if (add_range(ps, lo, hi) < 0)
            return -1;
    }
    struct cs_qos_rule r = {.match = form->match,
                            .line = t->line,
                            .ipoib = form->ulp == ULP_IPOIB,
                            .first = first,
                            .count = p->num_ranges - first};
    if (read_sl(ps, &r.sl) < 0)
        return -1;
    if (cs_grow((void **)&p->rules, &ps->rule_cap, (uint64_t)p->num_rules + 1, sizeof *p->rules,
                ps->err) < 0)
        return -1;
    p->rules[p->num_rules++] = r;
    return 0;
}

/* "qos-ulps" read: rules up to "end-qos-ulps" (at least one, as OpenSM's grammar). */
static int read_section(struct parser *ps)
{
    for (unsigned n = 0;; n++) {
        struct token t;
        if (next_token(ps, &t) < 0)
            return -1;
        if (t.kind == TOK_ULPS_END && n > 0)
            return 0;
        if (t.kind != TOK_RULE)
            return unexpected(ps, &t, n ? "a rule or end-qos-ulps" : "a rule (qos-ulps is empty)");
        if (read_rule(ps, &t) < 0)
            return -1;
    }
}

static int parse(struct parser *ps)
{
    bool any = false;
    for (;;) {
        struct token t;
        if (next_token(ps, &t) < 0)
            return -1;
        if (t.kind == TOK_END)
            break;
        if (t.kind != TOK_ULPS_START)
            return unexpected(ps, &t, "qos-ulps");
        any = true;
        if (read_section(ps) < 0)
            return -1;
    }
    /* OpenSM (osm_qos_policy_validate, ERR AC10) drops a policy without a default level. */
    if (!ps->has_default)
        return fail_at(ps, ps->line ? ps->line : 1, 1,
                       any ? "no `default : SL` rule in qos-ulps (OpenSM requires one)"
                           : "no qos-ulps section");
    return 0;
}

static int run(struct parser *ps, struct cs_qos_policy **out)
{
    *out = NULL;
    ps->p = calloc(1, sizeof *ps->p);
    if (ps->p == NULL)
        return cs_fail(ps->err, "out of memory for a QoS policy");
    ps->more = true;
    if (parse(ps) < 0) {
        cs_qos_policy_free(ps->p);
        return -1;
    }
    *out = ps->p;
    return 0;
}

int cs_qos_policy_parse(const char *text, size_t len, const char *name, struct cs_qos_policy **out,
                        struct cs_error *err)
{
    struct parser ps = {.name = name, .err = err};
    cs_lines_init(&ps.lines, text, len, name, err);
    int rc = run(&ps, out);
    cs_lines_close(&ps.lines);
    return rc;
}

int cs_qos_policy_read(const char *path, struct cs_qos_policy **out, struct cs_error *err)
{
    *out = NULL;
    struct parser ps = {.name = path, .err = err};
    if (cs_lines_open(&ps.lines, path, err) < 0) {
        cs_lines_close(&ps.lines);
        return -1;
    }
    int rc = run(&ps, out);
    cs_lines_close(&ps.lines);
    return rc;
}

void cs_qos_policy_free(struct cs_qos_policy *p)
{
    if (p == NULL)
        return;
    free(p->rules);
    free(p->ranges);
    free(p);
}

/* The partition of pkey (membership bit ignored) in set with two full members or more. */
static bool ipoib_partition(const struct cs_partition_set *set, uint64_t pkey)
{
    for (uint32_t i = 0; i < set->count; i++)
        if ((set->partitions[i].pkey & 0x7fffu) == pkey)
            return set->partitions[i].full >= 2;
    return false;
}

int cs_qos_policy_check_partitions(const struct cs_qos_policy *p, const char *name,
                                   const struct cs_partition_set *set, struct cs_error *err)
{
    for (uint32_t i = 0; i < p->num_rules; i++) {
        const struct cs_qos_rule *r = &p->rules[i];
        for (uint32_t k = r->first; r->ipoib && k < r->first + r->count; k++) {
            const struct cs_qos_range *g = &p->ranges[k];
            /* A range wider than the set cannot be all partitions: no need to walk it. */
            uint64_t bad = g->hi - g->lo >= set->count ? g->lo : UINT64_MAX;
            for (uint64_t pkey = g->lo; bad == UINT64_MAX && pkey <= g->hi; pkey++)
                if (!ipoib_partition(set, pkey))
                    bad = pkey;
            if (bad != UINT64_MAX)
                return cs_fail(err,
                               "%s:%u: ipoib rule: P_Key 0x%04x is no partition with two full "
                               "members or more (OpenSM refuses the file then)",
                               name, r->line, (unsigned)bad);
        }
    }
    return 0;
}

static bool in_ranges(const struct cs_qos_policy *p, const struct cs_qos_rule *r, uint64_t v)
{
    for (uint32_t i = r->first; i < r->first + r->count; i++)
        if (v >= p->ranges[i].lo && v <= p->ranges[i].hi)
            return true;
    return false;
}

int cs_qos_policy_match(const struct cs_qos_policy *p, const struct cs_qos_path_query *q)
{
    for (uint32_t i = 0; i < p->num_rules; i++) {
        const struct cs_qos_rule *r = &p->rules[i];
        bool hit = false;
        switch (r->match) {
        case CS_QOS_MATCH_SERVICE_ID:
            hit = q->has_service_id && in_ranges(p, r, q->service_id);
            break;
        case CS_QOS_MATCH_PKEY:
            hit = q->has_pkey && in_ranges(p, r, q->pkey & 0x7fffu);
            break;
        case CS_QOS_MATCH_TARGET_GUID:
            hit = in_ranges(p, r, q->target_guid);
            break;
        case CS_QOS_MATCH_SOURCE_GUID:
            hit = in_ranges(p, r, q->source_guid);
            break;
        }
        if (hit)
            return (int)i;
    }
    return -1;
}

uint8_t cs_qos_policy_sl(const struct cs_qos_policy *p, const struct cs_qos_path_query *q)
{
    int i = cs_qos_policy_match(p, q);
    return i < 0 ? p->default_sl : p->rules[i].sl;
}
