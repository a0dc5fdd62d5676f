/* Sub-tree selection (include/cloudsm/subtree.h): the hybrid reconfiguration paper's five steps
 * on the switch tuples of the fat-tree machinery (src/route/fattree.h). */
#include "cloudsm/subtree.h"

#include <stdlib.h>
#include <string.h>

#include "cloudsm/key_index.h"
#include "core/grow.h"
#include "route/fattree.h"

/* Digit j (1 = a_h, the most significant after the rank) of an OpenSM tuple. */
static uint8_t tuple_digit(uint64_t tuple, unsigned j)
{
    return (uint8_t)(tuple >> (56 - 8 * j));
}

static int ascending(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Steps 1 and 2's input: mark the leaf (switch index) of every CA port the GUIDs name. */
static int mark_leaves(const struct cs_ft *ft, const uint64_t *guids, uint32_t count,
                       uint8_t *is_chosen_leaf, struct cs_error *err)
{
    const struct cs_fabric *f = ft->fabric;
    struct cs_key_index nodes, ports;
    cs_key_index_init(&nodes);
    cs_key_index_init(&ports);
    uint32_t *ca_port_of = cs_calloc_array(f->num_port_slots + 1, sizeof *ca_port_of, err);
    int rc = ca_port_of && cs_key_index_nodes(&nodes, f, err) == 0 &&
                     cs_key_index_ports(&ports, f, err) == 0
                 ? 0
                 : -1;
    for (uint32_t p = 0; rc == 0 && p < f->num_port_slots; p++)
        ca_port_of[p] = CS_NONE;
    for (uint32_t i = 0; rc == 0 && i < ft->num_ca_ports; i++)
        ca_port_of[ft->ca_ports[i].port] = i;
    for (uint32_t i = 0; rc == 0 && i < count; i++) {
        uint64_t guid = guids[i];
        uint32_t first, last, node;
        uint32_t port = cs_key_index_find(&ports, guid);
        if (port != CS_NONE && f->nodes[f->ports[port].node].type == CS_NODE_CA) {
            node = f->ports[port].node;
            first = last = port;
        } else {
            node = port != CS_NONE ? f->ports[port].node : cs_key_index_find(&nodes, guid);
            if (node == CS_NONE) {
                rc = cs_fail(err, "sub-tree: no node or port has GUID 0x%016llx",
                             (unsigned long long)guid);
                break;
            }
            if (f->nodes[node].type != CS_NODE_CA) {
                rc = cs_fail(err,
                             "sub-tree: 0x%016llx is %s '%s', not a CA: name the nodes "
                             "(CAs) that take part",
                             (unsigned long long)guid,
                             cs_node_is_switch(&f->nodes[node]) ? "the switch" : "the router",
                             f->nodes[node].desc);
                break;
            }
            first = f->nodes[node].first_port + 1;
            last = f->nodes[node].first_port + f->nodes[node].num_ports;
        }
        bool found = false;
        for (uint32_t p = first; p <= last; p++) {
            uint32_t c = ca_port_of[p];
            if (c == CS_NONE)
                continue;
            uint32_t s = ft->ca_ports[c].sw;
            if (!ft->sw[s].is_leaf) {
                rc = cs_fail(err,
                             "sub-tree: '%s' (0x%016llx) hangs from switch '%s', which is not a "
                             "leaf of the fat tree",
                             f->nodes[node].desc, (unsigned long long)guid,
                             f->nodes[ft->sw[s].node].desc);
                break;
            }
            is_chosen_leaf[s] = 1;
            found = true;
        }
        if (rc == 0 && !found)
            rc = cs_fail(err,
                         "sub-tree: '%s' (0x%016llx) is on no fat tree: no port of it is cabled to "
                         "a switch ftree ranks",
                         f->nodes[node].desc, (unsigned long long)guid);
    }
    free(ca_port_of);
    cs_key_index_free(&nodes);
    cs_key_index_free(&ports);
    return rc;
}

/* Step 3: the switches at rank >= len whose tuples start with the prefix. */
static void mark_subtree(const struct cs_ft *ft, const uint8_t *prefix, unsigned len,
                         uint8_t *member)
{
    for (uint32_t s = 0; s < ft->num_sw; s++) {
        bool in = ft->sw[s].rank >= len && ft->sw[s].tuple != CS_FT_NO_TUPLE;
        for (unsigned j = 1; in && j <= len; j++)
            in = tuple_digit(ft->sw[s].tuple, j) == prefix[j - 1];
        member[s] = in;
    }
}

static int fill(const struct cs_ft *ft, const uint8_t *member, struct cs_subtree *out,
                struct cs_error *err)
{
    uint32_t n = 0;
    for (uint32_t s = 0; s < ft->num_sw; s++)
        n += member[s];
    out->switches = cs_calloc_array(n + 1, sizeof *out->switches, err);
    out->leaves = cs_calloc_array(ft->num_leaves + 1, sizeof *out->leaves, err);
    out->ca_ports = cs_calloc_array(ft->num_ca_ports + 1, sizeof *out->ca_ports, err);
    if (!out->switches || !out->leaves || !out->ca_ports)
        return -1;
    for (uint32_t s = 0; s < ft->num_sw; s++)
        if (member[s])
            out->switches[out->num_switches++] = ft->sw[s].node;
    qsort(out->switches, out->num_switches, sizeof *out->switches, ascending);
    for (uint32_t i = 0; i < ft->num_leaves; i++)
        if (member[ft->leaves[i]])
            out->leaves[out->num_leaves++] = ft->sw[ft->leaves[i]].node;
    /* Step 4: every CA port on those leaves, in hca_tbl order. */
    for (uint32_t i = 0; i < ft->num_ca_ports; i++) {
        uint32_t s = ft->ca_ports[i].sw;
        if (member[s] && ft->sw[s].is_leaf)
            out->ca_ports[out->num_ca_ports++] = ft->ca_ports[i].port;
    }
    return 0;
}

int cs_subtree_select(const struct cs_fabric *f, const struct cs_route_options *opt,
                      struct cs_route_state *state, const uint64_t *guids, uint32_t count,
                      struct cs_subtree *out, struct cs_error *err)
{
    memset(out, 0, sizeof *out);
    if (count == 0)
        return cs_fail(err, "sub-tree: no nodes given");
    struct cs_ft local, *tree;
    bool kept;
    int rc = cs_ft_machinery(f, opt, state, &local, &tree, &kept, err);
    if (rc == CS_ROUTE_UNSUITABLE && !(opt && opt->tolerate_degraded)) {
        /* Selection needs the ranks and tuples, not OpenSM's regularity checks: a damaged tree
         * (a cut cable) still has a sub-tree to re-route, by slimupdate say. Whether the engine
         * accepts the damaged tree is the engine's business. */
        if (tree == &local)
            cs_ft_free(&local);
        struct cs_route_options degraded_ok = opt ? *opt : (struct cs_route_options){0};
        degraded_ok.tolerate_degraded = true;
        rc = cs_ft_machinery(f, &degraded_ok, state, &local, &tree, &kept, err);
    }
    if (rc != 0) {
        char why[CS_ERROR_MAX] = "";
        if (err)
            memcpy(why, err->msg, sizeof why);
        if (tree == &local)
            cs_ft_free(&local);
        return rc < 0 ? -1 : cs_fail(err, "sub-tree: the fabric is not a fat tree: %s", why);
    }
    const struct cs_ft *ft = tree; /* read only here: the tuples, ranks and groups */
    uint8_t *chosen = cs_calloc_array(ft->num_sw + 1, 1, err);
    uint8_t *member = cs_calloc_array(ft->num_sw + 1, 1, err);
    rc = chosen && member ? mark_leaves(ft, guids, count, chosen, err) : -1;
    if (rc == 0) {
        /* Step 2: the longest common prefix of the chosen leaves' digits, at most rank - 1. */
        unsigned len = ft->leaf_rank > 0 ? ft->leaf_rank - 1 : 0;
        uint32_t first = CS_NONE;
        for (uint32_t s = 0; s < ft->num_sw; s++) {
            if (!chosen[s])
                continue;
            if (first == CS_NONE)
                first = s;
            unsigned j = 0;
            while (j < len &&
                   tuple_digit(ft->sw[s].tuple, j + 1) == tuple_digit(ft->sw[first].tuple, j + 1))
                j++;
            len = j;
        }
        /* (j < sizeof prefix holds already: said again for gcc -O3, which cannot see it) */
        for (unsigned j = 0; j < len && j < sizeof out->prefix; j++)
            out->prefix[j] = tuple_digit(ft->sw[first].tuple, j + 1);
        /* A prefix whose switches are not closed under the tree's cables is shortened. */
        uint32_t bad_sw, bad_remote;
        for (;; len--) {
            mark_subtree(ft, out->prefix, len, member);
            if (len == 0 || cs_ft_is_subtree(ft, member, &bad_sw, &bad_remote))
                break;
            out->prefix[len - 1] = 0;
        }
        out->prefix_len = len;
        out->tree_levels = ft->leaf_rank + 1;
        out->levels = ft->leaf_rank + 1 - len;
        rc = fill(ft, member, out, err);
    }
    free(chosen);
    free(member);
    if (tree == &local)
        cs_ft_free(&local);
    if (rc < 0)
        cs_subtree_free(out);
    return rc;
}

void cs_subtree_free(struct cs_subtree *s)
{
    free(s->switches);
    free(s->leaves);
    free(s->ca_ports);
    memset(s, 0, sizeof *s);
}
