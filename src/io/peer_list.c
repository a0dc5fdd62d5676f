/* Peer addresses and peer list files (include/cloudsm/peer_list.h). */
#include "cloudsm/peer_list.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/sa_client.h"
#include "core/grow.h"
#include "io/text.h"

#define MAX_LID 0xbfff

/* A whole decimal or hex number: the span must hold nothing else. */
static bool whole_number(const char *text, int base, uint64_t *out)
{
    struct cs_span s = {text, text + strlen(text)};
    return cs_span_u64(&s, base, out) && cs_span_empty(&s);
}

int cs_peer_address_parse(const char *text, struct cs_peer_address *a, struct cs_error *err)
{
    memset(a, 0, sizeof *a);
    size_t len = strlen(text);
    if (len == 0)
        return cs_fail(err, "an empty address");
    uint64_t v;
    bool lid_prefix = strncmp(text, "lid:", 4) == 0;
    if (lid_prefix || strspn(text, "0123456789") == len) {
        if (!whole_number(text + (lid_prefix ? 4 : 0), 10, &v) || v < 1 || v > MAX_LID)
            return cs_fail(err, "a LID is 1 to %d", MAX_LID);
        a->kind = CS_PEER_LID;
        a->lid = (uint16_t)v;
        return 0;
    }
    if ((text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) && !strchr(text, ':')) {
        if (len > 18 || !whole_number(text, 16, &v) || v == 0)
            return cs_fail(err, "not a port GUID (0x and up to 16 hex digits, not 0)");
        a->kind = CS_PEER_GUID;
        a->guid = v;
        return 0;
    }
    if (cs_gid_parse(text, a->gid, NULL) < 0)
        return cs_fail(err, "not a GID, a port GUID (0x...) or a LID (lid:N)");
    a->kind = CS_PEER_GID;
    return 0;
}

bool cs_peer_address_equal(const struct cs_peer_address *a, const struct cs_peer_address *b)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case CS_PEER_GID:
        return memcmp(a->gid, b->gid, 16) == 0;
    case CS_PEER_GUID:
        return a->guid == b->guid;
    case CS_PEER_LID:
        return a->lid == b->lid;
    }
    return false;
}

void cs_peer_list_free(struct cs_peer_list *l)
{
    free(l->peers);
    memset(l, 0, sizeof *l);
}

/* A token: the run of characters up to a blank, a '#' or the end. */
static struct cs_span token(struct cs_span *line)
{
    struct cs_span t = {line->p, line->p};
    while (t.end < line->end && !cs_is_blank(*t.end) && *t.end != '#')
        t.end++;
    line->p = t.end;
    return t;
}

static bool name_ok(const struct cs_span *s)
{
    size_t len = (size_t)(s->end - s->p);
    if (len == 0 || len >= CS_PEER_NAME_MAX)
        return false;
    for (const char *p = s->p; p < s->end; p++)
        if (*p <= ' ' || *p > '~')
            return false;
    return true;
}

static int by_name(const void *a, const void *b)
{
    const struct cs_peer *const *x = a, *const *y = b;
    int c = strcmp((*x)->name, (*y)->name);
    return c ? c : ((*x)->line > (*y)->line) - ((*x)->line < (*y)->line);
}

/* Pointers to a list's peers, sorted by name (then line). NULL when out of memory. */
static const struct cs_peer **sorted_by_name(const struct cs_peer_list *l)
{
    const struct cs_peer **sorted = malloc((l->count ? l->count : 1) * sizeof *sorted);
    if (!sorted)
        return NULL;
    for (uint32_t i = 0; i < l->count; i++)
        sorted[i] = &l->peers[i];
    qsort(sorted, l->count, sizeof *sorted, by_name);
    return sorted;
}

static int check_names(const struct cs_peer_list *l, const char *name, struct cs_error *err)
{
    const struct cs_peer **sorted = sorted_by_name(l);
    if (!sorted)
        return cs_fail(err, "%s: out of memory", name);
    int rc = 0;
    for (uint32_t i = 1; i < l->count && rc == 0; i++)
        if (strcmp(sorted[i - 1]->name, sorted[i]->name) == 0)
            rc = cs_fail_at(err, name, sorted[i]->line, "peer name '%s' is used twice (line %u)",
                            sorted[i]->name, sorted[i - 1]->line);
    free(sorted);
    return rc;
}

static int parse_line(struct cs_lines *in, struct cs_span line, struct cs_peer *p,
                      struct cs_error *err)
{
    const char *name = in->name;
    unsigned at = in->number;
    memset(p, 0, sizeof *p);
    p->line = at;
    struct cs_span address = token(&line);
    if ((size_t)(address.end - address.p) >= CS_PEER_TEXT_MAX)
        return cs_fail_at(err, name, at, "an address of at most %d characters, not \"%s\"",
                          CS_PEER_TEXT_MAX - 1, cs_quote_span(&address).text);
    cs_span_copy(&address, p->text, sizeof p->text);
    struct cs_error why;
    if (cs_peer_address_parse(p->text, &p->address, &why) < 0)
        return cs_fail_at(err, name, at, "peer address \"%s\": %s", cs_quote_span(&address).text,
                          why.msg);
    cs_span_skip_space(&line);
    struct cs_span peer_name = token(&line);
    if (cs_span_empty(&peer_name))
        return cs_fail_at(err, name, at, "expected a name after the address (ADDRESS NAME)");
    if (!name_ok(&peer_name))
        return cs_fail_at(err, name, at,
                          "a name is 1 to %d printable characters without blanks, not \"%s\"",
                          CS_PEER_NAME_MAX - 1, cs_quote_span(&peer_name).text);
    cs_span_copy(&peer_name, p->name, sizeof p->name);
    cs_span_skip_space(&line);
    if (!cs_span_empty(&line) && *line.p != '#')
        return cs_fail_at(err, name, at, "unexpected \"%s\" after the name",
                          cs_quote_span(&line).text);
    return 0;
}

static int parse_source(struct cs_peer_list *l, struct cs_lines *in, struct cs_error *err)
{
    memset(l, 0, sizeof *l);
    struct cs_span line;
    int rc = 0, got;
    while (rc == 0 && (got = cs_lines_next(in, &line)) > 0) {
        cs_span_skip_space(&line);
        if (cs_span_empty(&line) || *line.p == '#')
            continue;
        if (l->count == CS_PEER_LIST_MAX) {
            rc = cs_fail_at(err, in->name, in->number, "more than %d peers", CS_PEER_LIST_MAX);
            break;
        }
        if (cs_grow((void **)&l->peers, &l->capacity, (uint64_t)l->count + 1, sizeof *l->peers,
                    err) < 0) {
            rc = -1;
            break;
        }
        rc = parse_line(in, line, &l->peers[l->count], err);
        if (rc == 0)
            l->count++;
    }
    if (rc == 0 && got < 0)
        rc = -1;
    if (rc == 0)
        rc = check_names(l, in->name, err);
    if (rc < 0)
        cs_peer_list_free(l);
    return rc;
}

int cs_peer_list_parse(struct cs_peer_list *l, const char *text, size_t len, const char *name,
                       struct cs_error *err)
{
    struct cs_lines in;
    cs_lines_init(&in, text, len, name, err);
    return parse_source(l, &in, err);
}

int cs_peer_list_read(struct cs_peer_list *l, const char *path, struct cs_error *err)
{
    struct cs_lines in;
    memset(l, 0, sizeof *l);
    if (cs_lines_open(&in, path, err) < 0)
        return -1;
    int rc = parse_source(l, &in, err);
    cs_lines_close(&in);
    return rc;
}

int cs_peer_list_write(FILE *out, const struct cs_peer_list *l, struct cs_error *err)
{
    for (uint32_t i = 0; i < l->count; i++)
        if (fprintf(out, "%s %s\n", l->peers[i].text, l->peers[i].name) < 0)
            return cs_fail(err, "writing a peer list failed");
    return fflush(out) == 0 ? 0 : cs_fail(err, "writing a peer list failed");
}

int cs_peer_list_match(const struct cs_peer_list *cur, const struct cs_peer_list *next,
                       const char *next_name, uint32_t *at, struct cs_error *err)
{
    const struct cs_peer **a = sorted_by_name(cur), **b = sorted_by_name(next);
    int rc = 0;
    if (!a || !b)
        rc = cs_fail(err, "%s: out of memory", next_name);
    uint32_t i = 0, j = 0;
    while (rc == 0 && (i < cur->count || j < next->count)) {
        int c = i == cur->count ? 1 : j == next->count ? -1 : strcmp(a[i]->name, b[j]->name);
        if (c < 0)
            rc = cs_fail(err, "%s: peer '%s' is missing (a reload changes addresses, not peers)",
                         next_name, a[i]->name);
        else if (c > 0)
            rc = cs_fail_at(err, next_name, b[j]->line,
                            "peer '%s' is new (a reload changes addresses, not peers)", b[j]->name);
        else
            at[a[i++] - cur->peers] = (uint32_t)(b[j++] - next->peers);
    }
    free(a);
    free(b);
    return rc;
}
