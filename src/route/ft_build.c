/* Fat-tree machinery, stage 1 (fattree.h): the fat-tree view of a fabric, as OpenSM 3.3.23's
 * construct_fabric builds it (opensm/osm_ucast_ftree.c), rewritten.
 * The function comments name the OpenSM function each part reproduces; docs/routing/ftree.md
 * explains the algorithm and the quirks kept on purpose. */
#include "route/fattree.h"

#include <stdlib.h>
#include <string.h>

#include "cloudsm/key_index.h"
#include "core/grow.h"
#include "route/osm_order.h"

/* ------------------------------------------------------------------------------------------ */
/* Small helpers                                                                              */

static const struct cs_node *sw_node(const struct cs_ft *ft, uint32_t s)
{
    return &ft->fabric->nodes[ft->sw[s].node];
}

/* Tuple bytes: byte 0 (the rank) is the most significant byte of the packed value. */
static unsigned tuple_byte(uint64_t t, unsigned i)
{
    return (unsigned)(t >> (56 - 8 * i)) & 0xff;
}

static uint64_t tuple_with_byte(uint64_t t, unsigned i, unsigned v)
{
    unsigned shift = 56 - 8 * i;
    return (t & ~(UINT64_C(0xff) << shift)) | ((uint64_t)(v & 0xff) << shift);
}

static bool tuple_assigned(uint64_t t)
{
    return tuple_byte(t, 0) != 0xff;
}

/* ------------------------------------------------------------------------------------------ */
/* Build state (only while cs_ft_build runs)                                                   */

struct build {
    struct cs_ft *ft;
    const struct cs_fabric *f;
    const struct cs_route_options *opt;
    uint32_t *all_sw; /* every switch node, sw_tbl order */
    uint32_t num_all_sw;
    uint32_t *rank;        /* per all_sw entry */
    uint32_t *node_to_all; /* fabric node -> all_sw index (CS_NONE for non-switches) */
    uint32_t *cas;         /* CA nodes, hca_tbl order */
    uint32_t num_cas;
    uint32_t *queue;
    uint8_t *ca_port_cut; /* per fabric port: OpenSM's disconnected_ports (switch removed) */
    uint32_t *node_to_sw; /* fabric node -> ft switch (ranked switches only) */
    struct cs_key_index cn_index;
};

/* Nodes of one type in the order of their byte-swapped GUIDs: OpenSM's cl_qmap order. */
static int nodes_in_map_order(const struct cs_fabric *f, enum cs_node_type type, uint32_t **out,
                              uint32_t *count, struct cs_error *err)
{
    struct cs_key_index ix;
    cs_key_index_init(&ix);
    for (uint32_t n = 0; n < f->num_nodes; n++) {
        const struct cs_node *node = &f->nodes[n];
        /* OpenSM's sw_create refuses a switch without external ports. */
        if (node->type != type || (type == CS_NODE_SWITCH && node->num_ports == 0))
            continue;
        if (cs_key_index_add(&ix, cs_osm_map_key(node->guid), n, err) < 0) {
            cs_key_index_free(&ix);
            return -1;
        }
    }
    cs_key_index_sort(&ix);
    *count = ix.count;
    *out = cs_calloc_array(ix.count, sizeof **out, err);
    if (!*out) {
        cs_key_index_free(&ix);
        return -1;
    }
    for (uint32_t i = 0; i < ix.count; i++)
        (*out)[i] = ix.entries[i].value;
    cs_key_index_free(&ix);
    return 0;
}

/* The node at the other end of port `port_num` of node n, or CS_NONE. */
static uint32_t peer_node(const struct cs_fabric *f, uint32_t n, unsigned port_num,
                          uint32_t *peer_port)
{
    uint32_t p = f->nodes[n].first_port + port_num;
    uint32_t q = f->ports[p].peer;
    if (peer_port)
        *peer_port = q;
    return q == CS_NONE ? CS_NONE : f->ports[q].node;
}

/* OpenSM's sw_update_rank. */
static bool update_rank(struct build *b, uint32_t s, uint32_t rank)
{
    if (b->rank[s] != CS_FT_UNRANKED && b->rank[s] <= rank)
        return false;
    b->rank[s] = rank;
    return true;
}

/* BFS over switch-to-switch cables from the queued switches (rank_switches_from_leafs and
 * fabric_rank_from_roots are the same walk). Returns the rank given last, which OpenSM takes as
 * the maximal rank. */
static uint32_t rank_bfs(struct build *b, uint32_t head, uint32_t tail)
{
    const struct cs_fabric *f = b->f;
    uint32_t max_rank = 0;
    while (head < tail) {
        uint32_t s = b->queue[head++];
        uint32_t n = b->all_sw[s];
        for (unsigned p = 1; p <= f->nodes[n].num_ports; p++) {
            uint32_t m = peer_node(f, n, p, NULL);
            if (m == CS_NONE || b->node_to_all[m] == CS_NONE)
                continue;
            uint32_t r = b->node_to_all[m];
            if (update_rank(b, r, b->rank[s] + 1)) {
                max_rank = b->rank[r];
                b->queue[tail++] = r;
            }
        }
    }
    return max_rank;
}

/* fabric_load_roots: the listed GUIDs that are switches, in list order, as rank 0. */
static uint32_t load_roots(struct build *b)
{
    const struct cs_guid_list *roots = b->opt->root_guids;
    struct cs_key_index by_guid;
    cs_key_index_init(&by_guid);
    uint32_t tail = 0;
    for (uint32_t s = 0; s < b->num_all_sw; s++)
        if (cs_key_index_add(&by_guid, b->f->nodes[b->all_sw[s]].guid, s, NULL) < 0) {
            cs_key_index_free(&by_guid);
            return UINT32_MAX;
        }
    cs_key_index_sort(&by_guid);
    for (uint32_t i = 0; i < roots->count; i++) {
        uint32_t s = cs_key_index_find(&by_guid, roots->guids[i]);
        if (s == CS_NONE)
            continue; /* OpenSM: ERR AB24 "Root switch GUID ... not found", and goes on */
        b->rank[s] = 0;
        b->queue[tail++] = s;
    }
    cs_key_index_free(&by_guid);
    return tail;
}

/* fabric_rank: from the given roots if any of them is a switch; otherwise from the CAs
 * (fabric_rank_from_hcas: CA-attached switches rank 0, BFS, reverse) and then again from the
 * switches that came out at rank 0 (fabric_rerank_using_root). */
static int rank_switches(struct build *b, struct cs_error *err)
{
    struct cs_ft *ft = b->ft;
    const struct cs_fabric *f = b->f;
    for (uint32_t s = 0; s < b->num_all_sw; s++)
        b->rank[s] = CS_FT_UNRANKED;

    if (b->opt->root_guids) {
        uint32_t tail = load_roots(b);
        if (tail == UINT32_MAX)
            return cs_fail(err, "ftree: out of memory");
        if (tail > 0) {
            ft->max_rank = rank_bfs(b, 0, tail);
            return 0;
        }
        /* OpenSM: ERR AB25 "No valid roots supplied": it ranks from the CAs instead, but still
         * counts the roots as given (leaf rank from the CNs, no validation). */
    }

    uint32_t tail = 0;
    for (uint32_t c = 0; c < b->num_cas; c++) {
        uint32_t n = b->cas[c];
        for (unsigned p = 1; p <= f->nodes[n].num_ports; p++) {
            uint32_t m = peer_node(f, n, p, NULL);
            if (m == CS_NONE)
                continue;
            if (f->nodes[m].type == CS_NODE_CA) {
                cs_fail(err,
                        "CA 0x%016llx is cabled directly to CA 0x%016llx (OpenSM ERR AB0F: "
                        "subnet ranking failed - subnet is not FatTree)",
                        (unsigned long long)f->nodes[n].guid, (unsigned long long)f->nodes[m].guid);
                return CS_ROUTE_UNSUITABLE;
            }
            if (b->node_to_all[m] == CS_NONE)
                continue; /* a router */
            uint32_t s = b->node_to_all[m];
            if (update_rank(b, s, 0))
                b->queue[tail++] = s;
        }
    }
    uint32_t max_rank = rank_bfs(b, 0, tail);
    tail = 0;
    for (uint32_t s = 0; s < b->num_all_sw; s++) {
        if (b->rank[s] != CS_FT_UNRANKED)
            b->rank[s] = max_rank - b->rank[s];
    }
    /* Re-rank from the switches that are farthest from every CA. */
    for (uint32_t s = 0; s < b->num_all_sw; s++) {
        if (b->rank[s] == 0)
            b->queue[tail++] = s;
        else
            b->rank[s] = CS_FT_UNRANKED;
    }
    ft->max_rank = rank_bfs(b, 0, tail);
    return 0;
}

/* fabric_remove_unranked_sw: switches the ranking did not reach take no part; the CA ports
 * cabled to them are ignored too (OpenSM's disconnected_ports). The rest become ft->sw. */
static int keep_ranked_switches(struct build *b, struct cs_error *err)
{
    struct cs_ft *ft = b->ft;
    const struct cs_fabric *f = b->f;
    uint32_t ranked = 0;
    for (uint32_t s = 0; s < b->num_all_sw; s++)
        ranked += b->rank[s] != CS_FT_UNRANKED;
    ft->sw = cs_calloc_array(ranked, sizeof *ft->sw, err);
    if (!ft->sw)
        return -1;
    for (uint32_t s = 0; s < b->num_all_sw; s++) {
        uint32_t n = b->all_sw[s];
        if (b->rank[s] == CS_FT_UNRANKED) {
            for (unsigned p = 1; p <= f->nodes[n].num_ports; p++) {
                uint32_t q;
                uint32_t m = peer_node(f, n, p, &q);
                if (m != CS_NONE && f->nodes[m].type == CS_NODE_CA)
                    b->ca_port_cut[q] = 1;
            }
            continue;
        }
        struct cs_ft_switch *sw = &ft->sw[ft->num_sw];
        sw->node = n;
        sw->rank = b->rank[s];
        sw->lid = f->ports[f->nodes[n].first_port].lid;
        sw->tuple = CS_FT_NO_TUPLE;
        b->node_to_sw[n] = ft->num_sw++;
    }
    return 0;
}

/* Port groups under construction: per switch, one list per direction. */
enum { DIR_DOWN, DIR_UP, DIR_SIB };

struct group_lists {
    uint32_t *ids[3];
    uint32_t count[3];
};

/* sw_add_port: the cable joins the group of the same remote LID and direction, or starts one.
 * Returns the group. */
static uint32_t add_cable(struct cs_ft *ft, struct group_lists *gl, uint32_t s, int dir,
                          uint16_t remote_lid, uint32_t remote, bool remote_is_ca, bool is_cn)
{
    for (uint32_t i = 0; i < gl->count[dir]; i++)
        if (ft->groups[gl->ids[dir][i]].remote_lid == remote_lid)
            return gl->ids[dir][i];
    uint32_t id = ft->num_groups++;
    struct cs_ft_group *g = &ft->groups[id];
    memset(g, 0, sizeof *g);
    (void)s;
    g->remote = remote;
    g->remote_is_ca = remote_is_ca;
    g->is_cn = is_cn;
    g->remote_lid = remote_lid;
    gl->ids[dir][gl->count[dir]++] = id;
    return id;
}

/* fabric_construct_hca_ports: the CA ports ftree routes, and which are compute nodes. */
static int collect_ca_ports(struct build *b, struct cs_error *err)
{
    struct cs_ft *ft = b->ft;
    const struct cs_fabric *f = b->f;
    uint32_t total = 0;
    for (uint32_t c = 0; c < b->num_cas; c++)
        total += f->nodes[b->cas[c]].num_ports;
    ft->ca_ports = cs_calloc_array(total, sizeof *ft->ca_ports, err);
    if (!ft->ca_ports)
        return -1;
    for (uint32_t c = 0; c < b->num_cas; c++) {
        uint32_t n = b->cas[c];
        uint32_t first_of_ca = ft->num_ca_ports;
        for (unsigned p = 1; p <= f->nodes[n].num_ports; p++) {
            uint32_t port = f->nodes[n].first_port + p;
            uint32_t q;
            uint32_t m = peer_node(f, n, p, &q);
            if (m == CS_NONE || b->ca_port_cut[port])
                continue;
            if (f->nodes[m].type == CS_NODE_ROUTER)
                continue;
            if (f->nodes[m].type == CS_NODE_CA) {
                cs_fail(err,
                        "CA 0x%016llx is cabled directly to CA 0x%016llx (OpenSM ERR AB11: not a "
                        "fat-tree)",
                        (unsigned long long)f->nodes[n].guid, (unsigned long long)f->nodes[m].guid);
                return CS_ROUTE_UNSUITABLE;
            }
            uint32_t s = b->node_to_sw[m];
            if (s == CS_NONE)
                continue;
            bool is_cn = true;
            if (b->opt->cn_guids)
                is_cn = cs_key_index_find(&b->cn_index, f->ports[port].guid) != CS_NONE;
            ft->cn_count += is_cn;
            /* hca_add_port: one group per LID on a CA (OpenSM ERR AB32 on a duplicate). */
            bool duplicate = false;
            for (uint32_t i = first_of_ca; i < ft->num_ca_ports; i++)
                duplicate |= ft->ca_ports[i].lid == f->ports[port].lid;
            if (duplicate)
                continue;
            struct cs_ft_ca_port *cp = &ft->ca_ports[ft->num_ca_ports++];
            cp->port = port;
            cp->sw = s;
            cp->lid = f->ports[port].lid;
            cp->sw_port = f->ports[q].num;
            cp->is_cn = is_cn;
        }
    }
    return 0;
}

/* fabric_construct_sw_ports for every switch: groups by remote LID and direction, cables in
 * port order inside each group. */
static int collect_groups(struct build *b, struct cs_error *err)
{
    struct cs_ft *ft = b->ft;
    const struct cs_fabric *f = b->f;
    uint64_t cables = 0;
    uint32_t max_ports = 0;
    for (uint32_t s = 0; s < ft->num_sw; s++) {
        uint32_t np = f->nodes[ft->sw[s].node].num_ports;
        cables += np;
        if (np > max_ports)
            max_ports = np;
    }
    ft->groups = cs_calloc_array(cables, sizeof *ft->groups, err);
    ft->ports = cs_calloc_array(cables, sizeof *ft->ports, err);
    ft->lists = cs_calloc_array(cables, sizeof *ft->lists, err);
    ft->children = cs_calloc_array(2 * cables, sizeof *ft->children, err);
    uint8_t *cn_of_port = cs_calloc_array(f->num_port_slots, 1, err);
    struct group_lists gl;
    for (int d = 0; d < 3; d++)
        gl.ids[d] = cs_calloc_array(max_ports, sizeof(uint32_t), err);
    uint32_t *cable_group = cs_calloc_array(max_ports + 1, sizeof(uint32_t), err);
    int rc = -1;
    if (!ft->groups || !ft->ports || !ft->lists || !ft->children || !cn_of_port || !gl.ids[0] ||
        !gl.ids[1] || !gl.ids[2] || !cable_group)
        goto out;
    for (uint32_t i = 0; i < ft->num_ca_ports; i++)
        cn_of_port[ft->ca_ports[i].port] = ft->ca_ports[i].is_cn;

    for (uint32_t s = 0; s < ft->num_sw; s++) {
        struct cs_ft_switch *sw = &ft->sw[s];
        uint32_t n = sw->node;
        gl.count[0] = gl.count[1] = gl.count[2] = 0;
        uint32_t first_group = ft->num_groups;
        for (unsigned p = 0; p <= f->nodes[n].num_ports; p++)
            cable_group[p] = CS_NONE;
        for (unsigned p = 1; p <= f->nodes[n].num_ports; p++) {
            uint32_t q;
            uint32_t m = peer_node(f, n, p, &q);
            if (m == CS_NONE || m == n) /* unconnected; loopback (ignored by OpenSM) */
                continue;
            const struct cs_node *remote = &f->nodes[m];
            if (remote->type == CS_NODE_CA) {
                cable_group[p] =
                    add_cable(ft, &gl, s, DIR_DOWN, f->ports[q].lid, q, true, cn_of_port[q] != 0);
            } else if (remote->type == CS_NODE_SWITCH && b->node_to_sw[m] != CS_NONE) {
                uint32_t r = b->node_to_sw[m];
                int dir = sw->rank > ft->sw[r].rank    ? DIR_UP
                          : sw->rank == ft->sw[r].rank ? DIR_SIB
                                                       : DIR_DOWN;
                cable_group[p] = add_cable(ft, &gl, s, dir, ft->sw[r].lid, r, false, false);
            }
            /* routers: OpenSM leaves them out */
        }
        /* Lay the cables out group by group (port order inside a group), and the lists. */
        for (uint32_t g = first_group; g < ft->num_groups; g++) {
            struct cs_ft_group *grp = &ft->groups[g];
            grp->first_port = ft->num_ports;
            for (unsigned p = 1; p <= f->nodes[n].num_ports; p++) {
                if (cable_group[p] != g)
                    continue;
                uint32_t q = f->ports[f->nodes[n].first_port + p].peer;
                struct cs_ft_port *cable = &ft->ports[ft->num_ports++];
                memset(cable, 0, sizeof *cable);
                cable->num = (uint8_t)p;
                cable->remote_num = f->ports[q].num;
                if (grp->num_ports++ == 0)
                    grp->remote_num = cable->remote_num;
            }
        }
        sw->down = ft->num_lists;
        for (uint32_t i = 0; i < gl.count[DIR_DOWN]; i++)
            ft->lists[ft->num_lists++] = gl.ids[DIR_DOWN][i];
        sw->up = ft->num_lists;
        for (uint32_t i = 0; i < gl.count[DIR_UP]; i++)
            ft->lists[ft->num_lists++] = gl.ids[DIR_UP][i];
        sw->sib = ft->num_lists;
        for (uint32_t i = 0; i < gl.count[DIR_SIB]; i++)
            ft->lists[ft->num_lists++] = gl.ids[DIR_SIB][i];
        sw->num_down = (uint8_t)gl.count[DIR_DOWN];
        sw->num_up = (uint8_t)gl.count[DIR_UP];
        sw->num_sib = (uint8_t)gl.count[DIR_SIB];
    }
    rc = 0;
out:
    free(cn_of_port);
    for (int d = 0; d < 3; d++)
        free(gl.ids[d]);
    free(cable_group);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Tuples (fabric_make_indexing, bfs_fabric_indexing, fabric_get_new_tuple)                    */

/* The set of assigned tuples: a sorted key index plus a short unsorted tail, merged now and
 * then, so that a new tuple can be tested without a hash table. */
struct tuple_set {
    struct cs_key_index sorted, recent;
};

static bool tuple_taken(const struct tuple_set *t, uint64_t tuple)
{
    if (cs_key_index_find(&t->sorted, tuple) != CS_NONE)
        return true;
    for (uint32_t i = 0; i < t->recent.count; i++)
        if (t->recent.entries[i].key == tuple)
            return true;
    return false;
}

static int tuple_take(struct tuple_set *t, uint64_t tuple, uint32_t s, struct cs_error *err)
{
    if (cs_key_index_add(&t->recent, tuple, s, err) < 0)
        return -1;
    if (t->recent.count < 128)
        return 0;
    for (uint32_t i = 0; i < t->recent.count; i++)
        if (cs_key_index_add(&t->sorted, t->recent.entries[i].key, t->recent.entries[i].value,
                             err) < 0)
            return -1;
    t->recent.count = 0;
    cs_key_index_sort(&t->sorted);
    return 0;
}

/* fabric_get_new_tuple: from the parent's tuple, going down the rank byte grows and digit
 * rank+1 varies; going up it shrinks and digit `rank` varies; the first free value wins. */
static uint64_t new_tuple(const struct tuple_set *t, uint64_t from, bool down)
{
    unsigned rank = tuple_byte(from, 0);
    uint64_t cand = tuple_with_byte(from, 0, down ? rank + 1 : rank - 1);
    unsigned var = down ? rank + 1 : rank;
    if (var >= 8)
        return CS_FT_NO_TUPLE;
    for (unsigned i = 0; i < 0xff; i++) {
        uint64_t c = tuple_with_byte(cand, var, i);
        if (!tuple_taken(t, c))
            return c;
    }
    return CS_FT_NO_TUPLE; /* more than 255 neighbours one way: OpenSM leaves it unassigned */
}

static uint64_t remote_tuple(const struct cs_ft *ft, const struct cs_ft_group *g)
{
    /* OpenSM compares a CA group as if it were a switch (reading unrelated memory); CA groups
     * sort after switch groups here, in port order among themselves. */
    return g->remote_is_ca ? CS_FT_NO_TUPLE : ft->sw[g->remote].tuple;
}

/* remote_key of every group: the remote switch's tuple as a dense rank, so that routing
 * compares 32-bit keys held in the group instead of looking up 64-bit tuples. */
static int set_remote_keys(struct cs_ft *ft, struct cs_error *err)
{
    struct cs_key_index ix;
    cs_key_index_init(&ix);
    for (uint32_t s = 0; s < ft->num_sw; s++)
        if (cs_key_index_add(&ix, ft->sw[s].tuple, s, err) < 0) {
            cs_key_index_free(&ix);
            return -1;
        }
    cs_key_index_sort(&ix);
    uint32_t *key = cs_calloc_array(ft->num_sw, sizeof *key, err);
    if (!key) {
        cs_key_index_free(&ix);
        return -1;
    }
    uint32_t rank = 0;
    for (uint32_t i = 0; i < ix.count; i++) {
        if (i > 0 && ix.entries[i].key != ix.entries[i - 1].key)
            rank++;
        key[ix.entries[i].value] = tuple_assigned(ix.entries[i].key) ? rank : UINT32_MAX;
    }
    for (uint32_t g = 0; g < ft->num_groups; g++)
        ft->groups[g].remote_key =
            ft->groups[g].remote_is_ca ? UINT32_MAX : key[ft->groups[g].remote];
    free(key);
    cs_key_index_free(&ix);
    return 0;
}

/* compare_port_groups_by_remote_switch_index, as a stable sort (insertion; lists are short). */
static void sort_by_remote_tuple(struct cs_ft *ft, uint32_t *list, unsigned n)
{
    for (unsigned i = 1; i < n; i++) {
        uint32_t g = list[i];
        uint64_t key = remote_tuple(ft, &ft->groups[g]);
        unsigned j = i;
        while (j > 0 && remote_tuple(ft, &ft->groups[list[j - 1]]) > key) {
            list[j] = list[j - 1];
            j--;
        }
        list[j] = g;
    }
}

static int assign_tuple(struct cs_ft *ft, struct tuple_set *t, uint32_t s, uint64_t tuple,
                        struct cs_error *err)
{
    ft->sw[s].tuple = tuple;
    return tuple_take(t, tuple, s, err);
}

/* fabric_get_new_tuple + fabric_assign_tuple for switch r seen from switch s. When no digit
 * value is free (more than 255 switches in one tuple context), OpenSM goes on with an
 * unassigned tuple and an index that no longer orders anything; we refuse the fabric. */
static int index_neighbour(struct build *b, struct tuple_set *t, uint32_t s, uint32_t r, bool down,
                           struct cs_error *err)
{
    struct cs_ft *ft = b->ft;
    uint64_t tuple = new_tuple(t, ft->sw[s].tuple, down);
    if (!tuple_assigned(tuple)) {
        cs_fail(err,
                "no free tuple for switch 0x%016llx (more than 255 switches in one tuple "
                "context) - not a fat-tree ftree can index",
                (unsigned long long)sw_node(ft, r)->guid);
        return CS_ROUTE_UNSUITABLE;
    }
    return assign_tuple(ft, t, r, tuple, err);
}

/* fabric_make_indexing (without quasi_ftree_indexing): BFS from the first leaf in sw_tbl
 * order. Down groups are walked (and then sorted) above the leaf rank, up groups below the
 * roots; a switch is given a tuple when first seen. */
static int make_indexing(struct build *b, struct cs_error *err)
{
    struct cs_ft *ft = b->ft;
    uint32_t start = CS_NONE;
    for (uint32_t s = 0; s < ft->num_sw && start == CS_NONE; s++)
        if (ft->sw[s].is_leaf)
            start = s;
    if (start == CS_NONE)
        return 0;
    struct tuple_set t;
    cs_key_index_init(&t.sorted);
    cs_key_index_init(&t.recent);
    int rc = -1;
    /* fabric_assign_first_tuple: [rank].0...0 with leaf_rank zero digits. */
    uint64_t first = CS_FT_NO_TUPLE;
    first = tuple_with_byte(first, 0, ft->sw[start].rank);
    for (unsigned i = 1; i <= ft->leaf_rank && i < 8; i++)
        first = tuple_with_byte(first, i, 0);
    if (assign_tuple(ft, &t, start, first, err) < 0)
        goto out;
    /* Every switch is queued once: when it gets its tuple. */
    uint32_t head = 0, tail = 0;
    b->queue[tail++] = start;
    while (head < tail) {
        uint32_t s = b->queue[head++];
        struct cs_ft_switch *sw = &ft->sw[s];
        if (sw->rank < ft->leaf_rank) {
            uint32_t *list = &ft->lists[sw->down];
            for (unsigned i = 0; i < sw->num_down; i++) {
                const struct cs_ft_group *g = &ft->groups[list[i]];
                if (g->remote_is_ca || tuple_assigned(ft->sw[g->remote].tuple))
                    continue;
                if ((rc = index_neighbour(b, &t, s, g->remote, true, err)) != 0)
                    goto out;
                b->queue[tail++] = g->remote;
            }
            sort_by_remote_tuple(ft, list, sw->num_down);
        }
        if (sw->rank != 0) {
            uint32_t *list = &ft->lists[sw->up];
            for (unsigned i = 0; i < sw->num_up; i++) {
                const struct cs_ft_group *g = &ft->groups[list[i]];
                if (tuple_assigned(ft->sw[g->remote].tuple))
                    continue;
                if ((rc = index_neighbour(b, &t, s, g->remote, false, err)) != 0)
                    goto out;
                b->queue[tail++] = g->remote;
            }
            sort_by_remote_tuple(ft, list, sw->num_up);
        }
    }
    rc = 0;
out:
    cs_key_index_free(&t.sorted);
    cs_key_index_free(&t.recent);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Leaves, validation                                                                          */

/* fabric_mark_leaf_switches: every switch with a compute node must be at the leaf rank. */
static int mark_leaves(struct build *b, struct cs_error *err)
{
    struct cs_ft *ft = b->ft;
    const struct cs_fabric *f = b->f;
    for (uint32_t i = 0; i < ft->num_ca_ports; i++) {
        const struct cs_ft_ca_port *cp = &ft->ca_ports[i];
        if (!cp->is_cn)
            continue;
        struct cs_ft_switch *sw = &ft->sw[cp->sw];
        if (sw->is_leaf)
            continue;
        sw->is_leaf = true;
        if (sw->rank != ft->leaf_rank) {
            cs_fail(err,
                    "CN port 0x%016llx is connected to switch 0x%016llx with rank %u, while the "
                    "fat-tree leaf rank is %u (OpenSM ERR AB26)",
                    (unsigned long long)f->ports[cp->port].guid,
                    (unsigned long long)f->nodes[sw->node].guid, sw->rank, ft->leaf_rank);
            return CS_ROUTE_UNSUITABLE;
        }
    }
    return 0;
}

/* fabric_create_leaf_switch_array: the leaf-rank switches by tuple, from the first to the last
 * one with compute nodes (switches between them without any are kept, and get dummies). */
static int make_leaf_array(struct build *b, struct cs_error *err)
{
    struct cs_ft *ft = b->ft;
    uint32_t count = 0;
    for (uint32_t s = 0; s < ft->num_sw; s++)
        count += ft->sw[s].rank == ft->leaf_rank;
    ft->leaves = cs_calloc_array(count, sizeof *ft->leaves, err);
    if (!ft->leaves)
        return -1;
    for (uint32_t s = 0; s < ft->num_sw; s++) {
        if (ft->sw[s].rank != ft->leaf_rank)
            continue;
        /* Stable insertion by tuple (equal tuples only when unassigned). */
        uint32_t j = ft->num_leaves++;
        while (j > 0 && ft->sw[ft->leaves[j - 1]].tuple > ft->sw[s].tuple) {
            ft->leaves[j] = ft->leaves[j - 1];
            j--;
        }
        ft->leaves[j] = s;
    }
    uint32_t first = count, last = 0;
    for (uint32_t i = 0; i < count; i++) {
        if (ft->sw[ft->leaves[i]].is_leaf) {
            if (i < first)
                first = i;
            last = i;
        }
    }
    if (first >= last) {
        cs_fail(err, "failed to find leaf switches (%s) - topology is not a fat-tree",
                first == last ? "compute nodes on one switch only" : "no compute nodes");
        return CS_ROUTE_UNSUITABLE;
    }
    memmove(ft->leaves, ft->leaves + first, (last - first + 1) * sizeof *ft->leaves);
    ft->num_leaves = last - first + 1;
    return 0;
}

/* fabric_set_max_cn_per_leaf. */
static void set_max_cn_per_leaf(struct cs_ft *ft)
{
    for (uint32_t i = 0; i < ft->num_leaves; i++) {
        const struct cs_ft_switch *sw = &ft->sw[ft->leaves[i]];
        uint32_t cns = 0;
        for (unsigned k = 0; k < sw->num_down; k++) {
            const struct cs_ft_group *g = &ft->groups[ft->lists[sw->down + k]];
            cns += g->remote_is_ca && g->is_cn;
        }
        if (cns > ft->max_cn_per_leaf)
            ft->max_cn_per_leaf = cns;
    }
}

/* fabric_validate_topology (only without a root list): each switch is compared with the first
 * switch of its rank in sw_tbl order: same number of up groups, of down groups (not at the leaf
 * rank: CAs may be missing), every up group as big as the reference's first, and (a quirk kept
 * on purpose) the switch's first down group as big as the reference's first. */
static int validate(const struct cs_ft *ft, struct cs_error *err)
{
    uint32_t tree_rank = ft->leaf_rank + 1;
    uint32_t *reference = calloc(tree_rank, sizeof *reference);
    if (!reference)
        return cs_fail(err, "ftree: out of memory");
    for (uint32_t r = 0; r < tree_rank; r++)
        reference[r] = CS_NONE;
    int rc = 0;
    for (uint32_t s = 0; s < ft->num_sw && rc == 0; s++) {
        const struct cs_ft_switch *sw = &ft->sw[s];
        if (sw->rank >= tree_rank)
            continue; /* cannot happen without a root list: leaf rank = max rank */
        if (reference[sw->rank] == CS_NONE) {
            reference[sw->rank] = s;
            continue;
        }
        const struct cs_ft_switch *ref = &ft->sw[reference[sw->rank]];
        unsigned long long g1 = (unsigned long long)sw_node(ft, reference[sw->rank])->guid;
        unsigned long long g2 = (unsigned long long)sw_node(ft, s)->guid;
        if (ref->num_up != sw->num_up) {
            cs_fail(err,
                    "different number of upward port groups on switches 0x%016llx (%u) and "
                    "0x%016llx (%u), rank %u (OpenSM ERR AB09: not a fat-tree)",
                    g1, ref->num_up, g2, sw->num_up, sw->rank);
            rc = CS_ROUTE_UNSUITABLE;
            break;
        }
        if (sw->rank != tree_rank - 1 && ref->num_down != sw->num_down) {
            cs_fail(err,
                    "different number of downward port groups on switches 0x%016llx (%u) and "
                    "0x%016llx (%u), rank %u (OpenSM ERR AB0A: not a fat-tree)",
                    g1, ref->num_down, g2, sw->num_down, sw->rank);
            rc = CS_ROUTE_UNSUITABLE;
            break;
        }
        if (ref->num_up != 0) {
            unsigned want = cs_ft_group_at(ft, ref->up, 0)->num_ports;
            for (unsigned i = 0; i < sw->num_up; i++) {
                unsigned got = cs_ft_group_at(ft, sw->up, i)->num_ports;
                if (got != want) {
                    cs_fail(err,
                            "different number of ports in an upward port group on switches "
                            "0x%016llx (%u) and 0x%016llx (%u) (OpenSM ERR AB0B: not a fat-tree)",
                            g1, want, g2, got);
                    rc = CS_ROUTE_UNSUITABLE;
                    break;
                }
            }
        }
        if (rc == 0 && ref->num_down != 0 && sw->rank != tree_rank - 1 && sw->num_down != 0) {
            unsigned want = cs_ft_group_at(ft, ref->down, 0)->num_ports;
            unsigned got = cs_ft_group_at(ft, sw->down, 0)->num_ports;
            if (got != want) {
                cs_fail(err,
                        "different number of ports in a downward port group on switches "
                        "0x%016llx (%u) and 0x%016llx (%u) (OpenSM ERR AB0C: not a fat-tree)",
                        g1, want, g2, got);
                rc = CS_ROUTE_UNSUITABLE;
            }
        }
    }
    free(reference);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Families: switches whose down groups reach the same set of switches                          */

static int make_families(struct cs_ft *ft, struct cs_error *err)
{
    ft->num_children = 0;
    for (uint32_t s = 0; s < ft->num_sw; s++) {
        struct cs_ft_switch *sw = &ft->sw[s];
        sw->children = ft->num_children;
        sw->num_children = 0;
        sw->has_ca = false;
        for (unsigned i = 0; i < sw->num_down; i++) {
            uint32_t g = ft->lists[sw->down + i];
            if (ft->groups[g].remote_is_ca) {
                sw->has_ca = true;
                continue;
            }
            /* Sorted by switch index so that equal sets compare equal; children[] holds the
             * switch, and the group id follows in the second half (child_group). */
            uint32_t r = ft->groups[g].remote;
            uint32_t j = sw->num_children++;
            uint32_t *c = &ft->children[sw->children];
            while (j > 0 && c[j - 1] > r) {
                c[j] = c[j - 1];
                j--;
            }
            c[j] = r;
        }
        ft->num_children += sw->num_children;
    }
    /* The group behind each child, stored after all children (same layout). */
    uint32_t *child_group = ft->children + ft->num_children;
    for (uint32_t s = 0; s < ft->num_sw; s++) {
        const struct cs_ft_switch *sw = &ft->sw[s];
        for (unsigned i = 0; i < sw->num_down; i++) {
            uint32_t g = ft->lists[sw->down + i];
            if (ft->groups[g].remote_is_ca)
                continue;
            for (unsigned k = 0; k < sw->num_children; k++)
                if (ft->children[sw->children + k] == ft->groups[g].remote)
                    child_group[sw->children + k] = g;
        }
    }

    struct cs_key_index ix;
    cs_key_index_init(&ix);
    for (uint32_t s = 0; s < ft->num_sw; s++) {
        const struct cs_ft_switch *sw = &ft->sw[s];
        uint64_t h = UINT64_C(1469598103934665603) ^ sw->num_children;
        for (unsigned k = 0; k < sw->num_children; k++)
            h = (h ^ ft->children[sw->children + k]) * UINT64_C(1099511628211);
        if (cs_key_index_add(&ix, h, s, err) < 0) {
            cs_key_index_free(&ix);
            return -1;
        }
    }
    cs_key_index_sort(&ix);
    ft->num_families = 0;
    for (uint32_t i = 0; i < ix.count; i++) {
        struct cs_ft_switch *sw = &ft->sw[ix.entries[i].value];
        sw->family = CS_NONE;
        /* Same hash: look back through the run for an equal child set. */
        for (uint32_t j = i; j-- > 0 && ix.entries[j].key == ix.entries[i].key;) {
            const struct cs_ft_switch *other = &ft->sw[ix.entries[j].value];
            if (other->num_children == sw->num_children &&
                memcmp(&ft->children[other->children], &ft->children[sw->children],
                       sw->num_children * sizeof(uint32_t)) == 0) {
                sw->family = other->family;
                break;
            }
        }
        if (sw->family == CS_NONE)
            sw->family = ft->num_families++;
    }
    cs_key_index_free(&ix);
    return 0;
}

/* Can group lists be sorted lazily (see cs_ft.lazy_sort)? Per switch: its down list must have
 * distinct sort keys, i.e. only switch groups whose remotes have tuples. */
static void decide_lazy_sort(struct cs_ft *ft)
{
    ft->lazy_sort = true;
    for (uint32_t s = 0; s < ft->num_sw; s++) {
        const struct cs_ft_switch *sw = &ft->sw[s];
        if (sw->num_down < 2 || sw->num_children == 0)
            continue;
        for (unsigned i = 0; i < sw->num_down; i++) {
            const struct cs_ft_group *g = cs_ft_group_at(ft, sw->down, i);
            if (g->remote_is_ca || !tuple_assigned(ft->sw[g->remote].tuple))
                ft->lazy_sort = false;
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* construct_fabric                                                                            */

static uint32_t count_type(const struct cs_fabric *f, enum cs_node_type type)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < f->num_nodes; i++)
        n += f->nodes[i].type == type;
    return n;
}

static int build_checks(const struct cs_fabric *f, struct cs_error *err)
{
    for (uint32_t p = 0; p < f->num_port_slots; p++) {
        if (f->ports[p].lid && f->ports[p].lmc > 0) {
            cs_fail(err, "LMC > 0 is not supported by fat-tree routing (port 0x%016llx, LMC %u)",
                    (unsigned long long)f->ports[p].guid, f->ports[p].lmc);
            return CS_ROUTE_UNSUITABLE;
        }
    }
    uint32_t switches = count_type(f, CS_NODE_SWITCH);
    if (switches < 2) {
        cs_fail(err, "fabric has %u switch%s - topology is not fat-tree", switches,
                switches == 1 ? "" : "es");
        return CS_ROUTE_UNSUITABLE;
    }
    if (f->num_nodes - switches < 2) {
        cs_fail(err, "fabric has %u nodes (%u switches) - topology is not fat-tree", f->num_nodes,
                switches);
        return CS_ROUTE_UNSUITABLE;
    }
    return 0;
}

int cs_ft_build(struct cs_ft *ft, const struct cs_fabric *f, const struct cs_route_options *opt,
                struct cs_error *err)
{
    static const struct cs_route_options defaults = {0};
    memset(ft, 0, sizeof *ft);
    ft->fabric = f;
    if (!opt)
        opt = &defaults;
    ft->roots_given = opt->root_guids != NULL;

    int rc = build_checks(f, err);
    if (rc != 0)
        return rc;

    struct build b;
    memset(&b, 0, sizeof b);
    b.ft = ft;
    b.f = f;
    b.opt = opt;
    cs_key_index_init(&b.cn_index);
    rc = -1;
    if (nodes_in_map_order(f, CS_NODE_SWITCH, &b.all_sw, &b.num_all_sw, err) < 0 ||
        nodes_in_map_order(f, CS_NODE_CA, &b.cas, &b.num_cas, err) < 0)
        goto out;
    b.rank = cs_calloc_array(b.num_all_sw, sizeof *b.rank, err);
    b.queue = cs_calloc_array(b.num_all_sw + 1, sizeof *b.queue, err);
    b.node_to_all = cs_calloc_array(f->num_nodes, sizeof *b.node_to_all, err);
    b.node_to_sw = cs_calloc_array(f->num_nodes, sizeof *b.node_to_sw, err);
    b.ca_port_cut = cs_calloc_array(f->num_port_slots, 1, err);
    if (!b.rank || !b.queue || !b.node_to_all || !b.node_to_sw || !b.ca_port_cut)
        goto out;
    for (uint32_t n = 0; n < f->num_nodes; n++)
        b.node_to_all[n] = b.node_to_sw[n] = CS_NONE;
    for (uint32_t s = 0; s < b.num_all_sw; s++)
        b.node_to_all[b.all_sw[s]] = s;

    /* fabric_read_guid_files */
    if (opt->cn_guids) {
        if (opt->cn_guids->count == 0) {
            rc = CS_ROUTE_UNSUITABLE;
            cs_fail(err, "compute node GUID list has no GUIDs (OpenSM ERR AB27)");
            goto out;
        }
        for (uint32_t i = 0; i < opt->cn_guids->count; i++)
            if (cs_key_index_add(&b.cn_index, opt->cn_guids->guids[i], i, err) < 0)
                goto out;
        cs_key_index_sort(&b.cn_index);
    }
    if (b.num_cas < 2) {
        rc = CS_ROUTE_UNSUITABLE;
        cs_fail(err, "fabric has %u CA%s - topology is not fat-tree", b.num_cas,
                b.num_cas == 1 ? "" : "s");
        goto out;
    }

    rc = rank_switches(&b, err);
    if (rc != 0)
        goto out;
    rc = -1;
    if (keep_ranked_switches(&b, err) < 0)
        goto out;
    if (ft->max_rank == 0 && ft->num_sw > 1) {
        rc = CS_ROUTE_UNSUITABLE;
        cs_fail(err, "found more than one root on a fabric with maximum rank 0 (OpenSM ERR AB2B)");
        goto out;
    }

    /* fabric_populate_ports */
    rc = collect_ca_ports(&b, err);
    if (rc != 0)
        goto out;
    rc = -1;
    if (collect_groups(&b, err) < 0)
        goto out;
    if (ft->cn_count == 0) {
        rc = CS_ROUTE_UNSUITABLE;
        cs_fail(err, "fabric has no valid compute nodes");
        goto out;
    }

    /* fabric_set_leaf_rank: the deepest rank, or with roots given the rank of the first
     * compute node's switch. */
    ft->leaf_rank = ft->max_rank;
    if (ft->roots_given) {
        for (uint32_t i = 0; i < ft->num_ca_ports; i++) {
            if (ft->ca_ports[i].is_cn) {
                ft->leaf_rank = ft->sw[ft->ca_ports[i].sw].rank;
                break;
            }
        }
    }
    if (ft->leaf_rank + 1 > CS_FT_MAX_RANK || ft->leaf_rank + 1 < CS_FT_MIN_RANK) {
        rc = CS_ROUTE_UNSUITABLE;
        cs_fail(err, "fabric rank is %u (should be between %u and %u)", ft->leaf_rank + 1,
                CS_FT_MIN_RANK, CS_FT_MAX_RANK);
        goto out;
    }
    rc = mark_leaves(&b, err);
    if (rc != 0)
        goto out;
    rc = make_indexing(&b, err);
    if (rc != 0)
        goto out;
    rc = make_leaf_array(&b, err);
    if (rc != 0)
        goto out;
    set_max_cn_per_leaf(ft);
    ft->tree_max_cn_per_leaf = ft->max_cn_per_leaf;
    if (!ft->roots_given && !opt->tolerate_degraded) {
        rc = validate(ft, err);
        if (rc != 0)
            goto out;
    }
    rc = -1;
    if (make_families(ft, err) < 0 || set_remote_keys(ft, err) < 0)
        goto out;
    decide_lazy_sort(ft);
    ft->unit = 1;
    ft->built_lists = cs_calloc_array(ft->num_lists + 1, sizeof *ft->built_lists, err);
    if (!ft->built_lists)
        goto out;
    memcpy(ft->built_lists, ft->lists, (size_t)ft->num_lists * sizeof *ft->lists);
    rc = 0;
out:
    free(b.all_sw);
    free(b.cas);
    free(b.rank);
    free(b.queue);
    free(b.node_to_all);
    free(b.node_to_sw);
    free(b.ca_port_cut);
    cs_key_index_free(&b.cn_index);
    return rc;
}

/* splitmix64's finaliser: every input bit moves every output bit. */
static inline uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + UINT64_C(0x9e3779b97f4a7c15) + (h << 6) + (h >> 2);
    h ^= h >> 30;
    h *= UINT64_C(0xbf58476d1ce4e5b9);
    h ^= h >> 27;
    h *= UINT64_C(0x94d049bb133111eb);
    return h ^ (h >> 31);
}

static uint64_t mix_guids(uint64_t h, const struct cs_guid_list *list)
{
    if (!list)
        return mix(h, UINT64_MAX);
    h = mix(h, list->count);
    for (uint32_t i = 0; i < list->count; i++)
        h = mix(h, list->guids[i]);
    return h;
}

/* What the build reads: node types, GUIDs and port ranges; port GUIDs, owners, cables and LIDs
 * (descriptions and link rates play no part); the root and compute node lists; whether a
 * degraded tree is accepted. */
uint64_t cs_ft_fingerprint(const struct cs_fabric *f, const struct cs_route_options *opt)
{
    uint64_t h = mix(mix(0, f->num_nodes), f->num_port_slots);
    for (uint32_t n = 0; n < f->num_nodes; n++) {
        const struct cs_node *node = &f->nodes[n];
        h = mix(h, node->guid);
        h = mix(h, (uint64_t)node->first_port << 16 | (uint64_t)node->num_ports << 8 | node->type);
    }
    for (uint32_t p = 0; p < f->num_port_slots; p++) {
        const struct cs_port *port = &f->ports[p];
        h = mix(h, port->guid);
        h = mix(h, (uint64_t)port->node << 32 | port->peer);
        h = mix(h, (uint64_t)port->lid << 16 | (uint64_t)port->num << 8 | port->lmc);
    }
    h = mix_guids(h, opt ? opt->root_guids : NULL);
    /* A degraded tree built for slimupdate must not serve ftree, which refuses it. */
    h = mix(h, opt && opt->tolerate_degraded);
    return mix_guids(h, opt ? opt->cn_guids : NULL);
}

void cs_ft_free(struct cs_ft *ft)
{
    free(ft->sw);
    free(ft->groups);
    free(ft->ports);
    free(ft->lists);
    free(ft->children);
    free(ft->ca_ports);
    free(ft->leaves);
    free(ft->rows);
    free(ft->marks);
    free(ft->min_load_down);
    free(ft->columns);
    free(ft->batch_lids);
    free(ft->families);
    free(ft->built_lists);
    free(ft->in_scope);
    free(ft->scratch_row);
    memset(ft, 0, sizeof *ft);
}
