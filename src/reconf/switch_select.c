/* Which switches a VM's LID change visits: ItRC and FTreeMinRC (include/cloudsm/vm_plan.h).
 *
 * ItRC "iterates through all of the switches and updates the routes if necessary" (Paper V,
 * thesis lines 6377-6378; Algorithm 1 of Paper II). FTreeMinRC updates "the skyline ... formed
 * by all top-level switches of all the sub-trees that are involved in the migration" (Paper V,
 * thesis lines 6436-6454). The paper compares switch tuples; this file follows the same walk on
 * the cabling instead, which needs no tuples and works on any fat-tree cloudsm reads:
 *
 *   - one leaf: only it ("only the leaf switch needs to be updated", thesis lines 6382-6392);
 *   - else both leaves, then level by level the up-neighbours of each side's frontier. One step
 *     up from a leaf reaches the top switches of its immediate super-tree (Property 1); in an
 *     XGFT two leaves' frontiers at a level are either disjoint (different sub-trees) or equal
 *     (the same sub-tree, whose top switches are then the common ancestors). Tracing stops when
 *     they are equal, or when there is nothing above (the roots).
 *
 * Why that suffices for fat-tree routing (ftree and its relatives: a route goes up to a common
 * ancestor of its ends, then down): a switch outside both traced chains sends both LIDs upward
 * before and after (neither end is below it), any up port leads into the chains or to their
 * common ancestors, and from there the updated chains lead down to the new place. Load balance
 * is the paper's caveat, not correctness: such a switch keeps the up port it had.
 */
#include "cloudsm/vm_plan.h"

#include <stdlib.h>
#include <string.h>

#include "cloudsm/key_index.h"
#include "core/grow.h"

const char *cs_plan_method_name(enum cs_plan_method m)
{
    return m == CS_PLAN_FTREEMINRC ? "ftreeminrc" : "itrc";
}

int cs_plan_method_parse(const char *text, enum cs_plan_method *m)
{
    if (strcmp(text, "itrc") == 0)
        *m = CS_PLAN_ITRC;
    else if (strcmp(text, "ftreeminrc") == 0)
        *m = CS_PLAN_FTREEMINRC;
    else
        return -1;
    return 0;
}

void cs_switch_tree_free(struct cs_switch_tree *tr)
{
    free(tr->level);
    free(tr->up_first);
    free(tr->up);
    free(tr->table_of_node);
    free(tr->physical);
    free(tr->marked_in);
    free(tr->src_side_in);
    free(tr->dst_side_in);
    free(tr->listed_in);
    for (unsigned i = 0; i < 4; i++)
        free(tr->frontier[i]);
    free(tr->marked);
    memset(tr, 0, sizeof *tr);
}

static bool is_physical(const struct cs_fabric *f, const struct cs_hypervisors *h, uint32_t n)
{
    return cs_node_is_switch(&f->nodes[n]) && (!h || h->of_node[n] == CS_NONE);
}

static int index_tables(struct cs_switch_tree *tr, const struct cs_fabric *f,
                        const struct cs_hypervisors *h, const struct cs_lfts *t,
                        struct cs_error *err)
{
    struct cs_key_index by_guid;
    cs_key_index_init(&by_guid);
    for (uint32_t n = 0; n < f->num_nodes; n++)
        if (cs_node_is_switch(&f->nodes[n]) &&
            cs_key_index_add(&by_guid, f->nodes[n].guid, n, err) < 0) {
            cs_key_index_free(&by_guid);
            return -1;
        }
    cs_key_index_sort(&by_guid);
    for (uint32_t n = 0; n < f->num_nodes; n++)
        tr->table_of_node[n] = CS_NONE;
    for (uint32_t s = 0; t && s < t->num_switches; s++) {
        uint32_t n = cs_key_index_find(&by_guid, t->switches[s].guid);
        if (n == CS_NONE || tr->table_of_node[n] != CS_NONE)
            continue;
        tr->table_of_node[n] = s;
        if (is_physical(f, h, n))
            tr->physical[tr->num_physical++] = s;
    }
    cs_key_index_free(&by_guid);
    return 0;
}

int cs_switch_tree_init(struct cs_switch_tree *tr, const struct cs_fabric *f,
                        const struct cs_hypervisors *h, const struct cs_lfts *t,
                        struct cs_error *err)
{
    memset(tr, 0, sizeof *tr);
    tr->fabric = f;
    size_t nodes = f->num_nodes + 1u;
    tr->level = cs_calloc_array(nodes, sizeof *tr->level, err);
    tr->up_first = cs_calloc_array(nodes + 1, sizeof *tr->up_first, err);
    tr->up = cs_calloc_array(f->num_port_slots + 1u, sizeof *tr->up, err);
    tr->table_of_node = cs_calloc_array(nodes, sizeof *tr->table_of_node, err);
    tr->physical = cs_calloc_array((t ? t->num_switches : 0) + 1u, sizeof *tr->physical, err);
    tr->marked_in = cs_calloc_array(nodes, sizeof *tr->marked_in, err);
    tr->src_side_in = cs_calloc_array(nodes, sizeof *tr->src_side_in, err);
    tr->dst_side_in = cs_calloc_array(nodes, sizeof *tr->dst_side_in, err);
    tr->listed_in = cs_calloc_array(nodes, sizeof *tr->listed_in, err);
    tr->marked = cs_calloc_array(nodes, sizeof *tr->marked, err);
    bool ok = tr->level && tr->up_first && tr->up && tr->table_of_node && tr->physical &&
              tr->marked_in && tr->src_side_in && tr->dst_side_in && tr->listed_in && tr->marked;
    for (unsigned i = 0; i < 4; i++)
        ok = (tr->frontier[i] = cs_calloc_array(nodes, sizeof *tr->frontier[i], err)) && ok;
    if (!ok || index_tables(tr, f, h, t, err) < 0) {
        cs_switch_tree_free(tr);
        return -1;
    }

    /* Levels: breadth first from the leaves (physical switches cabled to a CA or a vSwitch). */
    uint32_t *queue = tr->marked, head = 0, tail = 0;
    for (uint32_t n = 0; n < f->num_nodes; n++) {
        tr->level[n] = CS_NONE;
        if (!is_physical(f, h, n))
            continue;
        for (unsigned num = 1; num <= f->nodes[n].num_ports; num++) {
            uint32_t peer = f->ports[cs_fabric_port(f, n, num)].peer;
            if (peer != CS_NONE && !is_physical(f, h, f->ports[peer].node)) {
                tr->level[n] = 0;
                queue[tail++] = n;
                break;
            }
        }
    }
    while (head < tail) {
        uint32_t n = queue[head++];
        for (unsigned num = 1; num <= f->nodes[n].num_ports; num++) {
            uint32_t peer = f->ports[cs_fabric_port(f, n, num)].peer;
            if (peer == CS_NONE)
                continue;
            uint32_t next = f->ports[peer].node;
            if (is_physical(f, h, next) && tr->level[next] == CS_NONE) {
                tr->level[next] = tr->level[n] + 1;
                queue[tail++] = next;
            }
        }
    }
    /* Up-neighbours, each once (parallel cables count once). */
    uint32_t count = 0;
    for (uint32_t n = 0; n < f->num_nodes; n++) {
        tr->up_first[n] = count;
        if (tr->level[n] == CS_NONE)
            continue;
        for (unsigned num = 1; num <= f->nodes[n].num_ports; num++) {
            uint32_t peer = f->ports[cs_fabric_port(f, n, num)].peer;
            if (peer == CS_NONE)
                continue;
            uint32_t next = f->ports[peer].node;
            if (tr->level[next] != tr->level[n] + 1 || tr->marked_in[next] == n + 1)
                continue;
            tr->marked_in[next] = n + 1;
            tr->up[count++] = next;
        }
    }
    tr->up_first[f->num_nodes] = count;
    memset(tr->marked_in, 0, nodes * sizeof *tr->marked_in);
    return 0;
}

static void next_epoch(struct cs_switch_tree *tr)
{
    if (++tr->epoch == 0) { /* wrapped: forget every old mark */
        size_t bytes = (tr->fabric->num_nodes + 1u) * sizeof(uint32_t);
        memset(tr->marked_in, 0, bytes);
        memset(tr->src_side_in, 0, bytes);
        memset(tr->dst_side_in, 0, bytes);
        memset(tr->listed_in, 0, bytes);
        tr->epoch = 1;
    }
}

/* The up-neighbours of frontier[0..count) into next, each once (side_in: this side's marks). */
static uint32_t step_up(struct cs_switch_tree *tr, const uint32_t *frontier, uint32_t count,
                        uint32_t *next, uint32_t *side_in)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t node = frontier[i];
        for (uint32_t k = tr->up_first[node]; k < tr->up_first[node + 1]; k++) {
            uint32_t up = tr->up[k];
            if (side_in[up] == tr->epoch)
                continue;
            side_in[up] = tr->epoch;
            next[n++] = up;
        }
    }
    return n;
}

static void mark(struct cs_switch_tree *tr, uint32_t node, uint32_t *out, uint32_t *count)
{
    if (tr->marked_in[node] == tr->epoch)
        return;
    tr->marked_in[node] = tr->epoch;
    out[(*count)++] = node;
}

uint32_t cs_minrc_mark(struct cs_switch_tree *tr, uint32_t src_leaf, uint32_t dst_leaf,
                       uint32_t *out)
{
    next_epoch(tr);
    uint32_t count = 0;
    mark(tr, src_leaf, out, &count);
    if (src_leaf == dst_leaf)
        return count;
    mark(tr, dst_leaf, out, &count);
    uint32_t *src_front = tr->frontier[0], *dst_front = tr->frontier[1];
    uint32_t *src_next = tr->frontier[2], *dst_next = tr->frontier[3];
    uint32_t src_count = 1, dst_count = 1;
    src_front[0] = src_leaf;
    dst_front[0] = dst_leaf;
    for (;;) {
        uint32_t src_n = step_up(tr, src_front, src_count, src_next, tr->src_side_in);
        uint32_t dst_n = step_up(tr, dst_front, dst_count, dst_next, tr->dst_side_in);
        if (!src_n && !dst_n)
            break; /* past the roots */
        for (uint32_t i = 0; i < src_n; i++)
            mark(tr, src_next[i], out, &count);
        for (uint32_t i = 0; i < dst_n; i++)
            mark(tr, dst_next[i], out, &count);
        bool same = src_n == dst_n;
        for (uint32_t i = 0; same && i < dst_n; i++)
            same = tr->src_side_in[dst_next[i]] == tr->epoch;
        if (same)
            break; /* the common ancestors */
        uint32_t *swap = src_front;
        src_front = src_next;
        src_next = swap;
        swap = dst_front;
        dst_front = dst_next;
        dst_next = swap;
        src_count = src_n;
        dst_count = dst_n;
    }
    return count;
}

static void list_table(struct cs_switch_tree *tr, uint32_t node, uint32_t *tables, uint32_t *count)
{
    uint32_t table = tr->table_of_node[node];
    if (table == CS_NONE || tr->listed_in[node] == tr->epoch)
        return;
    tr->listed_in[node] = tr->epoch;
    tables[(*count)++] = table;
}

/* The marked switches on the old route from `from` to lid, in route order. */
static void list_route(struct cs_switch_tree *tr, const struct cs_lfts *t, uint32_t from,
                       uint16_t lid, uint32_t *tables, uint32_t *count)
{
    const struct cs_fabric *f = tr->fabric;
    uint32_t node = from;
    for (uint32_t steps = 0; steps <= tr->num_physical && tr->level[node] != CS_NONE; steps++) {
        if (tr->marked_in[node] == tr->epoch)
            list_table(tr, node, tables, count);
        uint32_t table = tr->table_of_node[node];
        uint8_t port = table == CS_NONE ? CS_LFT_NO_ROUTE : cs_lfts_get(t, table, lid);
        if (port == 0 || port > f->nodes[node].num_ports)
            return;
        uint32_t peer = f->ports[cs_fabric_port(f, node, port)].peer;
        if (peer == CS_NONE)
            return;
        node = f->ports[peer].node;
    }
}

uint32_t cs_plan_select(struct cs_switch_tree *tr, enum cs_plan_method method,
                        const struct cs_lfts *t, const struct cs_plan_ends *ends, uint32_t *tables,
                        uint32_t *active)
{
    *active = 0;
    if (method == CS_PLAN_ITRC) {
        memcpy(tables, tr->physical, tr->num_physical * sizeof *tables);
        return tr->num_physical;
    }
    uint32_t marked = cs_minrc_mark(tr, ends->src_leaf, ends->dst_leaf, tr->marked);
    uint32_t count = 0;
    /* Paper V (thesis lines 6455-6463): the switches carrying the active routes first, "Later,
     * to keep all the LFTs valid, we update the rest". */
    list_route(tr, t, ends->src_leaf, ends->lid_at_dst, tables, &count);
    list_route(tr, t, ends->dst_leaf, ends->lid_at_src, tables, &count);
    *active = count;
    for (uint32_t i = 0; i < marked; i++)
        list_table(tr, tr->marked[i], tables, &count);
    return count;
}
