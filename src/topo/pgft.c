/* PGFT / XGFT / k-ary-n-tree generator. The numbering, port and GUID rules are stated in
 * include/cloudsm/topo_gen.h and docs/topology-generators.md; this file must stay in step with
 * both.
 *
 * Labels are never stored: a level-l node's index is its label read as a mixed-radix number
 * (a_h..a_{l+1}, b_l..b_1), so splitting the index at the digit a_{l+1} gives the child position,
 * and replacing that digit by b_{l+1} gives the parent's index. Generation is therefore one pass
 * over the nodes with O(1) arithmetic per link.
 */
#include "cloudsm/topo_gen.h"

#include <ctype.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#define STRINGIFY_ARG(x) #x
#define STRINGIFY(x) STRINGIFY_ARG(x)

/* Unicast LIDs are 1..0xBFFF; every switch and every connected host port needs one. */
#define PGFT_MAX_LIDS 49151u

/* --- spec construction --- */

int cs_pgft_kary(struct cs_pgft_spec *s, unsigned k, unsigned n, struct cs_error *err)
{
    if (n < 1 || n > CS_PGFT_MAX_LEVELS)
        return cs_fail(err, "k-ary-n-tree: n = %u levels (must be 1 to %d)", n, CS_PGFT_MAX_LEVELS);
    if (k < 1)
        return cs_fail(err, "k-ary-n-tree: k must be at least 1");
    memset(s, 0, sizeof *s);
    s->levels = n;
    for (unsigned i = 0; i < n; i++) {
        s->m[i] = k;
        s->w[i] = i == 0 ? 1 : k;
        s->p[i] = 1;
    }
    return 0;
}

static const char *expected_form(bool with_parallel)
{
    return with_parallel ? "expected \"h;m1,..,mh;w1,..,wh;p1,..,ph\", e.g. \"2;4,4;1,2;1,2\""
                         : "expected \"h;m1,..,mh;w1,..,wh\", e.g. \"3;18,18,36;1,18,18\"";
}

static void skip_blanks(const char **p)
{
    while (**p && isspace((unsigned char)**p))
        (*p)++;
}

/* A decimal number >= 1 that fits an unsigned; *p advances past it. Returns false with a
 * reason in `why` otherwise. */
static bool parse_count(const char **p, unsigned *out, const char **why)
{
    skip_blanks(p);
    if (!isdigit((unsigned char)**p)) {
        *why = **p ? "a number was expected" : "the text ends where a number was expected";
        return false;
    }
    uint64_t value = 0;
    while (isdigit((unsigned char)**p)) {
        value = value * 10 + (uint64_t)(**p - '0');
        if (value > UINT_MAX) {
            *why = "a number is too large";
            return false;
        }
        (*p)++;
    }
    if (value == 0) {
        *why = "every entry must be at least 1";
        return false;
    }
    *out = (unsigned)value;
    skip_blanks(p);
    return true;
}

/* One comma-separated group of exactly `count` numbers. */
static bool parse_group(const char **p, unsigned *values, unsigned count, const char **why)
{
    for (unsigned i = 0; i < count; i++) {
        if (i > 0) {
            if (**p != ',') {
                *why = "a group has fewer entries than h";
                return false;
            }
            (*p)++;
        }
        if (!parse_count(p, &values[i], why))
            return false;
    }
    if (**p == ',') {
        *why = "a group has more entries than h";
        return false;
    }
    return true;
}

int cs_pgft_parse(struct cs_pgft_spec *s, const char *text, bool with_parallel,
                  struct cs_error *err)
{
    const char *kind = with_parallel ? "PGFT" : "XGFT";
    if (!text)
        return cs_fail(err, "%s spec missing: %s", kind, expected_form(with_parallel));

    struct cs_pgft_spec spec;
    memset(&spec, 0, sizeof spec);
    const char *p = text;
    const char *why = NULL;
    unsigned groups = with_parallel ? 3 : 2;
    unsigned *group_values[3] = {spec.m, spec.w, spec.p};

    if (!parse_count(&p, &spec.levels, &why))
        goto bad;
    if (spec.levels > CS_PGFT_MAX_LEVELS) {
        why = "h is larger than " STRINGIFY(CS_PGFT_MAX_LEVELS);
        goto bad;
    }
    for (unsigned g = 0; g < groups; g++) {
        if (*p != ';') {
            why = *p ? "a ';' was expected" : "the text ends too early";
            goto bad;
        }
        p++;
        if (!parse_group(&p, group_values[g], spec.levels, &why))
            goto bad;
    }
    if (*p != '\0') {
        why = *p == ';' ? "there are too many ';'-separated groups" : "trailing characters";
        goto bad;
    }
    if (!with_parallel)
        for (unsigned i = 0; i < spec.levels; i++)
            spec.p[i] = 1;
    *s = spec;
    return 0;

bad:
    /* The echo of the input is bounded so that the expected form always fits the message. */
    return cs_fail(err, "bad %s spec \"%.200s\" at offset %u: %s; %s", kind, text,
                   (unsigned)(p - text), why, expected_form(with_parallel));
}

void cs_pgft_format(const struct cs_pgft_spec *s, char *buf, size_t size)
{
    if (size == 0)
        return;
    unsigned h = s->levels > CS_PGFT_MAX_LEVELS ? CS_PGFT_MAX_LEVELS : s->levels;
    bool parallel = false;
    for (unsigned i = 0; i < h; i++)
        if (s->p[i] != 1)
            parallel = true;

    size_t used = 0;
    /* snprintf truncates safely; `used` only ever points inside buf. */
#define APPEND(...)                                                                                \
    do {                                                                                           \
        if (used < size) {                                                                         \
            int n_ = snprintf(buf + used, size - used, __VA_ARGS__);                               \
            used = n_ < 0 ? size : used + (size_t)n_;                                              \
        }                                                                                          \
    } while (0)

    APPEND("%s(%u", parallel ? "PGFT" : "XGFT", s->levels);
    const unsigned *groups[3] = {s->m, s->w, s->p};
    for (unsigned g = 0; g < (parallel ? 3u : 2u); g++)
        for (unsigned i = 0; i < h; i++)
            APPEND("%c%u", i == 0 ? ';' : ',', groups[g][i]);
    APPEND(")");
#undef APPEND
}

/* --- validation and counting --- */

static bool mul_overflows(uint64_t a, uint64_t b, uint64_t *out)
{
    if (a != 0 && b > UINT64_MAX / a)
        return true;
    *out = a * b;
    return false;
}

static bool add_overflows(uint64_t a, uint64_t b, uint64_t *out)
{
    if (b > UINT64_MAX - a)
        return true;
    *out = a + b;
    return false;
}

static unsigned hosts_kept_per_leaf(const struct cs_pgft_spec *s)
{
    return s->hosts_per_leaf ? s->hosts_per_leaf : s->m[0];
}

/* Ports a switch of level l (1..h) uses: m_l*p_l down, w_{l+1}*p_{l+1} up. Each factor is at most
 * CS_MAX_PORTS once validate_entries has passed, so this cannot overflow. */
static uint64_t ports_needed_at_level(const struct cs_pgft_spec *s, unsigned l)
{
    uint64_t down = (uint64_t)s->m[l - 1] * s->p[l - 1];
    uint64_t up = l < s->levels ? (uint64_t)s->w[l] * s->p[l] : 0;
    return down + up;
}

static int validate_entries(const struct cs_pgft_spec *s, const char *name, struct cs_error *err)
{
    if (s->levels < 1 || s->levels > CS_PGFT_MAX_LEVELS)
        return cs_fail(err, "%s: %u levels (a fat tree here has 1 to %d)", name, s->levels,
                       CS_PGFT_MAX_LEVELS);
    static const char letters[3] = {'m', 'w', 'p'};
    const unsigned *groups[3] = {s->m, s->w, s->p};
    for (unsigned g = 0; g < 3; g++)
        for (unsigned i = 0; i < s->levels; i++) {
            if (groups[g][i] == 0)
                return cs_fail(err, "%s: %c%u is 0 (every m, w and p must be at least 1)", name,
                               letters[g], i + 1);
            /* Each m_i, w_i and p_i is a factor of some node's port count, so a value above
             * the port limit can never be built; rejecting it here also keeps the arithmetic
             * below far from overflow. */
            if (groups[g][i] > CS_MAX_PORTS)
                return cs_fail(err, "%s: %c%u = %u, but a node has at most %d ports", name,
                               letters[g], i + 1, groups[g][i], CS_MAX_PORTS);
        }
    return 0;
}

int cs_pgft_count(const struct cs_pgft_spec *s, struct cs_pgft_counts *c, struct cs_error *err)
{
    char name[160];
    cs_pgft_format(s, name, sizeof name);
    if (validate_entries(s, name, err) < 0)
        return -1;
    const unsigned h = s->levels;

    uint64_t host_ports = (uint64_t)s->w[0] * s->p[0];
    if (host_ports > CS_MAX_PORTS)
        return cs_fail(err, "%s: hosts need w1*p1 = %" PRIu64 " ports; a node has at most %d", name,
                       host_ports, CS_MAX_PORTS);

    uint64_t switch_ports = 0;
    unsigned widest_level = 1;
    for (unsigned l = 1; l <= h; l++)
        if (ports_needed_at_level(s, l) > switch_ports) {
            switch_ports = ports_needed_at_level(s, l);
            widest_level = l;
        }
    if (switch_ports > CS_MAX_PORTS)
        return cs_fail(err, "%s: level-%u switches need %" PRIu64 " ports; a switch has at most %d",
                       name, widest_level, switch_ports, CS_MAX_PORTS);
    if (s->radix) {
        if (s->radix > CS_MAX_PORTS)
            return cs_fail(err, "%s: radix %u is more than a switch can have (%d)", name, s->radix,
                           CS_MAX_PORTS);
        if (s->radix < switch_ports)
            return cs_fail(err,
                           "%s: radix %u is too small; level-%u switches need %" PRIu64 " ports",
                           name, s->radix, widest_level, switch_ports);
        switch_ports = s->radix;
    }
    if (s->hosts_per_leaf > s->m[0])
        return cs_fail(err, "%s: %u hosts per leaf, but a leaf has only m1 = %u host slots", name,
                       s->hosts_per_leaf, s->m[0]);
    const uint64_t vfs = s->vfs_per_hypervisor;
    if (vfs > CS_VFS_MAX)
        return cs_fail(err, "%s: %" PRIu64 " VFs per hypervisor; a vSwitch has 1 to %d", name, vfs,
                       CS_VFS_MAX);
    /* A vSwitch has exactly one uplink: that is what tells it apart from a tree switch. */
    if (vfs && host_ports != 1)
        return cs_fail(err,
                       "%s: vSwitch hypervisors need hosts with one port (w1*p1 = 1), but hosts "
                       "here have %" PRIu64,
                       name, host_ports);

    struct cs_pgft_counts out;
    memset(&out, 0, sizeof out);
    out.switch_ports = (unsigned)switch_ports;
    out.host_ports = (unsigned)host_ports;

    bool overflow = false;
    /* per_level[l] = prod_{i<=l} w_i * prod_{i>l} m_i, with m_1 replaced by the hosts kept per
     * leaf for level 0 (hosts_per_leaf removes hosts, never switches). */
    for (unsigned l = 0; l <= h; l++) {
        uint64_t n = 1;
        for (unsigned i = 1; i <= h; i++) {
            uint64_t factor = i <= l ? s->w[i - 1] : s->m[i - 1];
            if (l == 0 && i == 1)
                factor = hosts_kept_per_leaf(s);
            overflow |= mul_overflows(n, factor, &n);
        }
        if (l == 0 && s->hosts) {
            if (!overflow && s->hosts > n)
                return cs_fail(
                    err, "%s: %u hosts asked for, but the tree has only %" PRIu64 " host slots",
                    name, s->hosts, n);
            n = s->hosts;
        }
        out.per_level[l] = n;
        if (l > 0)
            overflow |= add_overflows(out.switches, n, &out.switches);
        uint64_t cables = 0;
        if (l < h) {
            overflow |= mul_overflows(n, (uint64_t)s->w[l] * s->p[l], &cables);
            overflow |= add_overflows(out.links, cables, &out.links);
        }
    }
    out.hosts = out.per_level[0];

    if (s->plain_hosts && !vfs)
        return cs_fail(err, "%s: plain hosts are kept among vSwitch hypervisors only (give VFs)",
                       name);
    if (s->plain_hosts > out.hosts)
        return cs_fail(err, "%s: %u plain hosts, but the tree has %" PRIu64 " host slots", name,
                       s->plain_hosts, out.hosts);
    if (vfs) {
        out.hypervisors = out.hosts - s->plain_hosts;
        overflow |= mul_overflows(out.hypervisors, vfs, &out.vfs);
        overflow |= add_overflows(out.links, out.vfs, &out.links); /* one cable per VF */
    }

    /* Host ports need one LID each; a hypervisor needs one for its PF (the vSwitch's port 0)
     * and one per VF. */
    uint64_t host_lids = 0, hypervisor_lids = 0;
    overflow |= mul_overflows(out.hosts - out.hypervisors, host_ports, &host_lids);
    overflow |= mul_overflows(out.hypervisors, vfs + 1, &hypervisor_lids);
    overflow |= add_overflows(host_lids, hypervisor_lids, &host_lids);
    overflow |= add_overflows(host_lids, out.switches, &out.lids);
    if (overflow)
        return cs_fail(err,
                       "%s: far too large for one subnet (its counts overflow 64 bits; a "
                       "subnet holds %u LIDs)",
                       name, PGFT_MAX_LIDS);
    if (out.lids > PGFT_MAX_LIDS) {
        if (vfs)
            return cs_fail(err,
                           "%s with %" PRIu64 " VFs per hypervisor needs %" PRIu64 " LIDs (%" PRIu64
                           " switches + %" PRIu64 " hypervisors x (1 PF + %" PRIu64
                           " VFs)); a subnet holds %u",
                           name, vfs, out.lids, out.switches, out.hypervisors, vfs, PGFT_MAX_LIDS);
        return cs_fail(err,
                       "%s needs %" PRIu64 " LIDs (%" PRIu64 " switches + %" PRIu64
                       " host ports); a subnet holds %u",
                       name, out.lids, out.switches, host_lids, PGFT_MAX_LIDS);
    }
    *c = out;
    return 0;
}

/* --- generation --- */

struct level_layout {
    uint32_t first_node;  /* fabric index of the level's node 0 */
    uint32_t stride;      /* fabric nodes per level node: 1, or 1 + VFs for hypervisors */
    uint64_t strided;     /* the level's nodes that take stride fabric nodes (the hypervisors;
                             the plain hosts after them take one each) */
    uint64_t low_radix;   /* prod_{i<=l} w_i: how many b-digit combinations a label has */
    unsigned child_radix; /* radix of digit a_{l+1}: m_{l+1}, or hosts kept per leaf at l = 0 */
};

/* Fabric index of node x of a level. */
static uint32_t level_node(const struct level_layout *level, uint64_t x)
{
    if (x < level->strided)
        return level->first_node + (uint32_t)(x * level->stride);
    return level->first_node + (uint32_t)(level->strided * level->stride + (x - level->strided));
}

/* Host slot i: a plain host, or a hypervisor (vSwitch, then its VFs 1..V). */
static int add_host_slot(struct cs_fabric *f, const struct cs_pgft_counts *c, uint64_t i,
                         unsigned vfs, struct cs_error *err)
{
    char desc[CS_DESC_MAX + 1];
    const uint64_t guid = CS_GUID_HOST_BASE + (i << 8);
    if (!vfs) {
        snprintf(desc, sizeof desc, "host-%" PRIu64, i);
        return cs_fabric_add_node(f, CS_NODE_CA, guid, c->host_ports, desc, err) == CS_NONE ? -1
                                                                                            : 0;
    }
    snprintf(desc, sizeof desc, "hyp-%" PRIu64, i);
    uint32_t vswitch = cs_fabric_add_node(f, CS_NODE_SWITCH, guid, vfs + 1, desc, err);
    if (vswitch == CS_NONE)
        return -1;
    for (unsigned k = 1; k <= vfs; k++) {
        snprintf(desc, sizeof desc, "hyp-%" PRIu64 " vf-%u", i, k);
        uint64_t vf_guid = CS_GUID_VF_BASE + (i << 16) + ((uint64_t)k << 8);
        uint32_t vf = cs_fabric_add_node(f, CS_NODE_CA, vf_guid, 1, desc, err);
        if (vf == CS_NONE)
            return -1;
        uint32_t vf_port = cs_fabric_port(f, vf, 1);
        if (cs_fabric_connect(f, cs_fabric_port(f, vswitch, k + 1), vf_port, err) < 0)
            return -1;
        cs_fabric_set_link_rate(f, vf_port, 4, CS_SPEED_EDR);
    }
    return 0;
}

int cs_pgft_generate(struct cs_fabric *f, const struct cs_pgft_spec *s, struct cs_error *err)
{
    if (f->num_nodes != 0 || f->num_port_slots != 0)
        return cs_fail(err, "fat-tree generator: the fabric must be empty");
    struct cs_pgft_counts c;
    if (cs_pgft_count(s, &c, err) < 0)
        return -1;
    const unsigned h = s->levels;

    const unsigned vfs = s->vfs_per_hypervisor;

    /* The LID limit checked above keeps every count far below 2^32. A hypervisor is a vSwitch
     * of V+1 ports plus V one-port VFs (port slots count port 0). */
    uint64_t plain = c.hosts - c.hypervisors;
    uint64_t slots = c.hypervisors * (vfs + 2) + c.vfs * 2 + plain * (c.host_ports + 1) +
                     c.switches * (c.switch_ports + 1);
    if (cs_fabric_reserve(f, (uint32_t)(c.hosts + c.vfs + c.switches), (uint32_t)slots, err) < 0)
        return -1;

    struct level_layout layout[CS_PGFT_MAX_LEVELS + 1];
    uint64_t next = 0, low = 1;
    for (unsigned l = 0; l <= h; l++) {
        if (l > 0)
            low *= s->w[l - 1];
        layout[l].first_node = (uint32_t)next;
        layout[l].stride = l == 0 ? vfs + 1 : 1;
        layout[l].strided = l == 0 ? c.hypervisors : c.per_level[l];
        layout[l].low_radix = low;
        layout[l].child_radix = l == 0 ? hosts_kept_per_leaf(s) : l < h ? s->m[l] : 1;
        next += layout[l].strided * layout[l].stride + (c.per_level[l] - layout[l].strided);
    }

    char desc[CS_DESC_MAX + 1];
    for (uint64_t i = 0; i < c.hosts; i++)
        if (add_host_slot(f, &c, i, i < c.hypervisors ? vfs : 0, err) < 0)
            goto fail;
    for (unsigned l = 1; l <= h; l++)
        for (uint64_t j = 0; j < c.per_level[l]; j++) {
            snprintf(desc, sizeof desc, "sw-L%u-%" PRIu64, l, j);
            uint64_t guid = CS_GUID_SWITCH_BASE + ((uint64_t)l << 32) + j;
            if (cs_fabric_add_node(f, CS_NODE_SWITCH, guid, c.switch_ports, desc, err) == CS_NONE)
                goto fail;
        }

    /* Cable every node of level l < h to its parents. Its label splits as
     * (high, a_{l+1}, low) with low the b digits; parent b_{l+1} has label (high, b_{l+1}, low). */
    for (unsigned l = 0; l < h; l++) {
        const struct level_layout *here = &layout[l], *above = &layout[l + 1];
        const unsigned parents = s->w[l], parallel = s->p[l];
        /* Where a node's up ports start: after the down ports on switches, at 1 on hosts. */
        const unsigned up_base = l == 0 ? 1 : 1 + s->m[l - 1] * s->p[l - 1];
        for (uint64_t x = 0; x < c.per_level[l]; x++) {
            uint64_t low_digits = x % here->low_radix;
            uint64_t rest = x / here->low_radix;
            unsigned child_position = (unsigned)(rest % here->child_radix);
            uint64_t high = rest / here->child_radix;
            uint32_t node = level_node(here, x);
            for (unsigned b = 0; b < parents; b++) {
                uint64_t parent_index = (high * parents + b) * here->low_radix + low_digits;
                uint32_t parent = above->first_node + (uint32_t)parent_index;
                for (unsigned j = 0; j < parallel; j++) {
                    uint32_t up = cs_fabric_port(f, node, up_base + b * parallel + j);
                    uint32_t down = cs_fabric_port(f, parent, 1 + child_position * parallel + j);
                    if (cs_fabric_connect(f, up, down, err) < 0)
                        goto fail;
                    cs_fabric_set_link_rate(f, up, 4, CS_SPEED_EDR);
                }
            }
        }
    }
    return 0;

fail:
    cs_fabric_free(f);
    return -1;
}
