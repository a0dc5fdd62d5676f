/* Route tracing from LFTs: the tracer, single routes, all routes to one destination, and the
 * link congestion of a set of flows. One rule (step()) decides what a switch does with a LID, so
 * that every function here agrees with the others. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/analyze.h"
#include "cloudsm/key_index.h"
#include "cloudsm/lid.h"
#include "core/grow.h"

/* LMC is a 3-bit field (PortInfo:LMC). */
#define TRACE_LMC_MASK 7

/* ---- Tracer ---- */

static int fill_lid_owners(struct cs_tracer *t, const struct cs_fabric *f, struct cs_error *err)
{
    t->lid_limit = (uint32_t)cs_fabric_max_lid(f) + 1;
    t->lid_owner = malloc(t->lid_limit * sizeof *t->lid_owner);
    if (!t->lid_owner)
        return cs_fail(err, "out of memory for %u LIDs", t->lid_limit);
    for (uint32_t lid = 0; lid < t->lid_limit; lid++)
        t->lid_owner[lid] = CS_NONE;
    for (uint32_t i = 0; i < f->num_port_slots; i++) {
        const struct cs_port *p = &f->ports[i];
        /* Switch external ports carry no LID of their own (ibnetdiscover may print the switch's
         * LID there); only port 0 answers for a switch. */
        if (!p->lid || (cs_node_is_switch(&f->nodes[p->node]) && p->num != 0))
            continue;
        uint32_t count = 1u << (p->lmc & TRACE_LMC_MASK);
        for (uint32_t k = 0; k < count && p->lid + k < t->lid_limit; k++) {
            uint32_t *owner = &t->lid_owner[p->lid + k];
            if (*owner != CS_NONE) {
                const struct cs_port *q = &f->ports[*owner];
                return cs_fail(err,
                               "LID 0x%04x is answered by port %u of 0x%016" PRIx64
                               " and port %u of 0x%016" PRIx64,
                               p->lid + k, q->num, f->nodes[q->node].guid, p->num,
                               f->nodes[p->node].guid);
            }
            *owner = i;
        }
    }
    return 0;
}

int cs_tracer_ports_lids_changed(struct cs_tracer *t, const uint32_t *ports, uint32_t count)
{
    /* Every listed port gives up what it owned first, then takes its LID: in a swap the two
     * ports' LIDs cross. */
    for (uint32_t l = 0; l < t->lid_limit; l++)
        for (uint32_t i = 0; i < count && t->lid_owner[l] != CS_NONE; i++)
            if (t->lid_owner[l] == ports[i])
                t->lid_owner[l] = CS_NONE;
    for (uint32_t i = 0; i < count; i++) {
        const struct cs_port *p = &t->fabric->ports[ports[i]];
        if (p->lid == 0)
            continue;
        if (p->lmc != 0 || p->lid >= t->lid_limit || t->lid_owner[p->lid] != CS_NONE)
            return -1;
        t->lid_owner[p->lid] = ports[i];
    }
    return 0;
}

static int match_tables(struct cs_tracer *t, const struct cs_fabric *f, const struct cs_lfts *lfts,
                        struct cs_error *err)
{
    struct cs_key_index by_guid;
    cs_key_index_init(&by_guid);
    if (cs_key_index_reserve(&by_guid, lfts->num_switches, err) < 0)
        return -1;
    for (uint32_t i = 0; i < lfts->num_switches; i++)
        cs_key_index_add(&by_guid, lfts->switches[i].guid, i, err);
    cs_key_index_sort(&by_guid);
    uint64_t guid;
    uint32_t first, second;
    if (cs_key_index_duplicate(&by_guid, &guid, &first, &second)) {
        cs_key_index_free(&by_guid);
        return cs_fail(err, "the LFTs hold two tables for switch 0x%016" PRIx64, guid);
    }
    uint32_t matched = 0;
    for (uint32_t s = 0; s < t->num_switches; s++) {
        uint32_t table = cs_key_index_find(&by_guid, f->nodes[t->switch_node[s]].guid);
        t->switch_table[s] = table;
        if (table == CS_NONE)
            t->switches_without_table++;
        else
            matched++;
    }
    t->tables_without_switch = lfts->num_switches - matched;
    cs_key_index_free(&by_guid);
    return 0;
}

int cs_tracer_init(struct cs_tracer *t, const struct cs_fabric *f, const struct cs_lfts *lfts,
                   struct cs_error *err)
{
    memset(t, 0, sizeof *t);
    t->fabric = f;
    t->lfts = lfts;
    if (cs_links_build(&t->links, f, err) < 0)
        return -1;
    for (uint32_t n = 0; n < f->num_nodes; n++)
        t->num_switches += cs_node_is_switch(&f->nodes[n]);
    uint32_t switches = t->num_switches ? t->num_switches : 1;
    t->switch_node = malloc(switches * sizeof *t->switch_node);
    t->switch_table = malloc(switches * sizeof *t->switch_table);
    t->node_switch = malloc((f->num_nodes ? f->num_nodes : 1) * sizeof *t->node_switch);
    t->switch_first_port = malloc(switches * sizeof *t->switch_first_port);
    t->switch_ports = malloc(switches);
    t->peer_switch = malloc((f->num_port_slots ? f->num_port_slots : 1) * sizeof *t->peer_switch);
    if (!t->switch_node || !t->switch_table || !t->node_switch || !t->switch_first_port ||
        !t->switch_ports || !t->peer_switch) {
        cs_tracer_free(t);
        return cs_fail(err, "out of memory for a tracer of %u nodes", f->num_nodes);
    }
    uint32_t s = 0;
    for (uint32_t n = 0; n < f->num_nodes; n++) {
        t->node_switch[n] = CS_NONE;
        if (cs_node_is_switch(&f->nodes[n])) {
            t->switch_node[s] = n;
            t->switch_first_port[s] = f->nodes[n].first_port;
            t->switch_ports[s] = f->nodes[n].num_ports;
            t->node_switch[n] = s++;
        }
    }
    for (uint32_t i = 0; i < f->num_port_slots; i++) {
        uint32_t peer = f->ports[i].peer;
        t->peer_switch[i] = peer == CS_NONE ? CS_NONE : t->node_switch[f->ports[peer].node];
    }
    if (match_tables(t, f, lfts, err) < 0 || fill_lid_owners(t, f, err) < 0) {
        cs_tracer_free(t);
        return -1;
    }
    return 0;
}

void cs_tracer_free(struct cs_tracer *t)
{
    cs_links_free(&t->links);
    free(t->switch_node);
    free(t->node_switch);
    free(t->switch_table);
    free(t->switch_first_port);
    free(t->switch_ports);
    free(t->peer_switch);
    free(t->lid_owner);
    memset(t, 0, sizeof *t);
}

static inline uint8_t entry_of(const struct cs_tracer *t, uint32_t sw, uint32_t lid)
{
    uint32_t table = t->switch_table[sw];
    return table == CS_NONE ? CS_LFT_NO_ROUTE : cs_lfts_get(t->lfts, table, lid);
}

void cs_tracer_lft_columns(const struct cs_tracer *t, uint32_t first, uint32_t count, uint8_t *out)
{
    const struct cs_lfts *lfts = t->lfts;
    uint32_t in_table = first < lfts->capacity ? lfts->capacity - first : 0;
    if (in_table > count)
        in_table = count;
    for (uint32_t s = 0; s < t->num_switches; s++) {
        uint32_t table = t->switch_table[s];
        uint32_t k = 0;
        if (table != CS_NONE) {
            const uint8_t *row = cs_lfts_table(lfts, table) + first;
            for (; k < in_table; k++)
                out[(size_t)k * t->num_switches + s] = row[k];
        }
        for (; k < count; k++)
            out[(size_t)k * t->num_switches + s] = CS_LFT_NO_ROUTE;
    }
}

/* ---- The one forwarding rule ---- */

/* step() result besides the cs_trace_outcome values: go on to the next switch. */
#define STEP_FORWARD CS_TRACE_OUTCOMES

/* The destination as step() needs it: the port answering the LID, and the link that enters that
 * port (CS_NONE for a switch's port 0 or an unconnected port), so that "handed to the owner" is
 * one comparison of link ids. */
struct dest_key {
    uint32_t owner;
    uint32_t owner_in_link;
};

static inline struct dest_key dest_key_of(const struct cs_tracer *t, uint32_t lid)
{
    struct dest_key k = {cs_tracer_owner(t, lid), CS_NONE};
    if (k.owner != CS_NONE && t->fabric->ports[k.owner].peer != CS_NONE &&
        t->node_switch[t->fabric->ports[k.owner].node] == CS_NONE)
        k.owner_in_link = t->links.out[t->fabric->ports[k.owner].peer];
    return k;
}

/* What switch sw does with a packet for the destination k when its LFT entry is `entry`.
 * *out_port = the port it leaves by (CS_NONE if none: delivered to the switch itself, or a black
 * hole). Returns STEP_FORWARD (the port leads to a switch), CS_TRACE_DELIVERED, or a failure. */
static inline unsigned step(const struct cs_tracer *t, uint32_t sw, uint8_t entry,
                            const struct dest_key *k, uint32_t *out_port)
{
    *out_port = CS_NONE;
    if (t->switch_table[sw] == CS_NONE)
        return CS_TRACE_NO_TABLE;
    if (entry == CS_LFT_NO_ROUTE)
        return CS_TRACE_NO_ENTRY;
    uint32_t first = t->switch_first_port[sw];
    if (entry == 0)
        return k->owner == first ? CS_TRACE_DELIVERED : CS_TRACE_PORT0;
    if (entry > t->switch_ports[sw])
        return CS_TRACE_BAD_PORT;
    uint32_t port = first + entry;
    uint32_t link = t->links.out[port];
    if (link == CS_NONE)
        return CS_TRACE_UNCONNECTED;
    *out_port = port;
    if (t->peer_switch[port] != CS_NONE)
        return STEP_FORWARD;
    return link == k->owner_in_link ? CS_TRACE_DELIVERED : CS_TRACE_WRONG_DELIVERY;
}

const char *cs_trace_outcome_name(enum cs_trace_outcome o)
{
    static const char *const names[CS_TRACE_OUTCOMES] = {
        [CS_TRACE_DELIVERED] = "delivered",
        [CS_TRACE_LOOP] = "loop",
        [CS_TRACE_NO_TABLE] = "no LFT",
        [CS_TRACE_NO_ENTRY] = "no entry",
        [CS_TRACE_BAD_PORT] = "port beyond the switch",
        [CS_TRACE_UNCONNECTED] = "unconnected port",
        [CS_TRACE_PORT0] = "port 0 of a switch that does not own the LID",
        [CS_TRACE_WRONG_DELIVERY] = "wrong delivery",
    };
    return (unsigned)o < CS_TRACE_OUTCOMES ? names[o] : "?";
}

const char *cs_trace_outcome_id(enum cs_trace_outcome o)
{
    static const char *const ids[CS_TRACE_OUTCOMES] = {
        [CS_TRACE_DELIVERED] = "delivered", [CS_TRACE_LOOP] = "loop",
        [CS_TRACE_NO_TABLE] = "no_table",   [CS_TRACE_NO_ENTRY] = "no_entry",
        [CS_TRACE_BAD_PORT] = "bad_port",   [CS_TRACE_UNCONNECTED] = "unconnected",
        [CS_TRACE_PORT0] = "port0",         [CS_TRACE_WRONG_DELIVERY] = "wrong_delivery",
    };
    return (unsigned)o < CS_TRACE_OUTCOMES ? ids[o] : "?";
}

/* ---- One route ---- */

static inline void record(uint32_t *links, uint32_t max_links, uint32_t *hops, uint32_t link)
{
    if (*hops < max_links)
        links[*hops] = link;
    (*hops)++;
}

int cs_trace_route(const struct cs_tracer *t, uint32_t src_port, uint32_t lid,
                   struct cs_route_trace *out, uint32_t *links, uint32_t max_links,
                   struct cs_error *err)
{
    const struct cs_fabric *f = t->fabric;
    memset(out, 0, sizeof *out);
    out->fault_node = CS_NONE;
    out->end_port = CS_NONE;
    out->fault_entry = CS_LFT_NO_ROUTE;
    if (src_port >= f->num_port_slots)
        return cs_fail(err, "trace: no port %u in the fabric", src_port);
    const struct cs_port *src = &f->ports[src_port];
    struct dest_key key = dest_key_of(t, lid);
    uint32_t owner = key.owner;
    uint32_t sw = t->node_switch[src->node];
    if (sw != CS_NONE) {
        if (src->num != 0)
            return cs_fail(err, "trace: a route from switch 0x%016" PRIx64 " starts at port 0",
                           f->nodes[src->node].guid);
    } else {
        if (src->peer == CS_NONE || src->num == 0)
            return cs_fail(err, "trace: port %u of 0x%016" PRIx64 " is not connected", src->num,
                           f->nodes[src->node].guid);
        if (owner == src_port) { /* the adapter's own LID: loopback, nothing enters the fabric */
            out->outcome = CS_TRACE_DELIVERED;
            out->end_port = src_port;
            return 0;
        }
        record(links, max_links, &out->hops, t->links.out[src_port]);
        sw = t->node_switch[f->ports[src->peer].node];
        if (sw == CS_NONE) {
            out->end_port = src->peer;
            out->outcome = src->peer == owner ? CS_TRACE_DELIVERED : CS_TRACE_WRONG_DELIVERY;
            return 0;
        }
    }
    /* A route that has visited num_switches + 1 switches has met one twice; from then on it
     * runs round the cycle, so the switch it is in is on the cycle. */
    for (uint32_t visited = 0;; visited++) {
        uint8_t entry = entry_of(t, sw, lid);
        if (visited == t->num_switches) {
            out->outcome = CS_TRACE_LOOP;
            out->fault_node = t->switch_node[sw];
            out->fault_entry = entry;
            return 0;
        }
        uint32_t port;
        unsigned r = step(t, sw, entry, &key, &port);
        if (port != CS_NONE)
            record(links, max_links, &out->hops, t->links.out[port]);
        if (r == STEP_FORWARD) {
            sw = t->peer_switch[port];
            continue;
        }
        out->outcome = (uint8_t)r;
        if (r == CS_TRACE_DELIVERED) {
            out->end_port = port != CS_NONE ? f->ports[port].peer : owner;
        } else {
            out->fault_node = t->switch_node[sw];
            out->fault_entry = entry;
            if (r == CS_TRACE_WRONG_DELIVERY)
                out->end_port = f->ports[port].peer;
        }
        return 0;
    }
}

uint32_t cs_trace_loop(const struct cs_tracer *t, uint32_t lid, uint32_t on_loop, uint32_t *nodes,
                       uint32_t max)
{
    if (on_loop >= t->fabric->num_nodes)
        return 0;
    uint32_t start = t->node_switch[on_loop];
    if (start == CS_NONE)
        return 0;
    struct dest_key key = dest_key_of(t, lid);
    uint32_t count = 0, sw = start;
    do {
        if (count < max)
            nodes[count] = t->switch_node[sw];
        if (++count > t->num_switches)
            return 0; /* on_loop leads into a loop but is not on it */
        uint32_t port;
        if (step(t, sw, entry_of(t, sw, lid), &key, &port) != STEP_FORWARD)
            return 0;
        sw = t->peer_switch[port];
    } while (sw != start);
    return count;
}

/* ---- All routes to one destination ---- */

/* Transient marks in outcome[] while resolving; never left behind. */
#define PENDING 0xFE /* forwards to a switch, result not known yet */
#define ON_PATH 0xFD /* on the chain being followed */

int cs_dest_routes_init(struct cs_dest_routes *d, const struct cs_tracer *t, struct cs_error *err)
{
    memset(d, 0, sizeof *d);
    uint32_t n = t->num_switches ? t->num_switches : 1;
    d->num_switches = t->num_switches;
    d->lid = 0;
    d->owner_port = CS_NONE;
    d->outcome = malloc(n);
    d->next_link = malloc(n * sizeof *d->next_link);
    d->next_switch = malloc(n * sizeof *d->next_switch);
    d->hops = malloc(n * sizeof *d->hops);
    d->fault_switch = malloc(n * sizeof *d->fault_switch);
    d->order = malloc(n * sizeof *d->order);
    /* chain stack (n) + hop buckets (n + 2: hops run 0..n) */
    d->scratch = malloc((2 * (size_t)n + 2) * sizeof *d->scratch);
    if (!d->outcome || !d->next_link || !d->next_switch || !d->hops || !d->fault_switch ||
        !d->order || !d->scratch) {
        cs_dest_routes_free(d);
        return cs_fail(err, "out of memory for routes of %u switches", t->num_switches);
    }
    return 0;
}

void cs_dest_routes_free(struct cs_dest_routes *d)
{
    free(d->outcome);
    free(d->next_link);
    free(d->next_switch);
    free(d->hops);
    free(d->fault_switch);
    free(d->order);
    free(d->scratch);
    memset(d, 0, sizeof *d);
}

/* Follow each pending switch's chain until it meets a switch whose result is known (then unwind,
 * one hop more per step back) or a switch on the chain itself (a loop: every switch on the chain
 * loops, the cycle's entry being where). Each switch is pushed once: O(switches). */
static void resolve_chains(struct cs_dest_routes *d)
{
    uint32_t *stack = d->scratch;
    for (uint32_t s = 0; s < d->num_switches; s++) {
        if (d->outcome[s] != PENDING)
            continue;
        uint32_t top = 0, j = s;
        while (d->outcome[j] == PENDING) {
            d->outcome[j] = ON_PATH;
            stack[top++] = j;
            j = d->next_switch[j];
        }
        if (d->outcome[j] == ON_PATH) {
            while (top) {
                uint32_t k = stack[--top];
                d->outcome[k] = CS_TRACE_LOOP;
                d->fault_switch[k] = j;
            }
            continue;
        }
        while (top) {
            uint32_t k = stack[--top];
            d->outcome[k] = d->outcome[j];
            d->hops[k] = d->hops[j] + 1;
            d->fault_switch[k] = d->fault_switch[j];
            j = k;
        }
    }
}

/* Delivered switches by decreasing hops (counting sort, stable in switch order), so that a
 * caller walking order[] meets every switch before the one it forwards to. */
static void order_by_distance(struct cs_dest_routes *d)
{
    uint32_t *start = d->scratch + d->num_switches; /* n + 2 buckets */
    uint32_t max_hops = 0, delivered = 0;
    for (uint32_t s = 0; s < d->num_switches; s++)
        if (d->outcome[s] == CS_TRACE_DELIVERED) {
            delivered++;
            if (d->hops[s] > max_hops)
                max_hops = d->hops[s];
        }
    d->num_delivered = delivered;
    if (!delivered)
        return;
    memset(start, 0, ((size_t)max_hops + 2) * sizeof *start);
    for (uint32_t s = 0; s < d->num_switches; s++)
        if (d->outcome[s] == CS_TRACE_DELIVERED)
            start[max_hops - d->hops[s] + 1]++;
    for (uint32_t b = 1; b <= max_hops + 1; b++)
        start[b] += start[b - 1];
    for (uint32_t s = 0; s < d->num_switches; s++)
        if (d->outcome[s] == CS_TRACE_DELIVERED)
            d->order[start[max_hops - d->hops[s]]++] = s;
}

void cs_dest_routes_compute_from(struct cs_dest_routes *d, const struct cs_tracer *t, uint32_t lid,
                                 const uint8_t *entries)
{
    struct dest_key key = dest_key_of(t, lid);
    d->lid = lid;
    d->owner_port = key.owner;
    for (uint32_t s = 0; s < d->num_switches; s++) {
        uint32_t port;
        unsigned r = step(t, s, entries[s], &key, &port);
        d->next_link[s] = port != CS_NONE ? t->links.out[port] : CS_NONE;
        d->next_switch[s] = CS_NONE;
        d->hops[s] = 0;
        d->fault_switch[s] = CS_NONE;
        if (r == STEP_FORWARD) {
            d->next_switch[s] = t->peer_switch[port];
            d->outcome[s] = PENDING;
        } else if (r == CS_TRACE_DELIVERED) {
            d->outcome[s] = CS_TRACE_DELIVERED;
            d->hops[s] = port != CS_NONE;
        } else {
            d->outcome[s] = (uint8_t)r;
            d->fault_switch[s] = s;
        }
    }
    resolve_chains(d);
    order_by_distance(d);
}

void cs_dest_routes_compute(struct cs_dest_routes *d, const struct cs_tracer *t, uint32_t lid)
{
    /* order[] is free until order_by_distance runs, and a byte per switch fits in it. */
    uint8_t *entries = (uint8_t *)d->order;
    for (uint32_t s = 0; s < d->num_switches; s++)
        entries[s] = entry_of(t, s, lid);
    cs_dest_routes_compute_from(d, t, lid, entries);
}

uint32_t cs_tracer_entry_switch(const struct cs_tracer *t, uint32_t src_port)
{
    const struct cs_fabric *f = t->fabric;
    if (src_port >= f->num_port_slots)
        return CS_NONE;
    const struct cs_port *p = &f->ports[src_port];
    uint32_t sw = t->node_switch[p->node];
    if (sw != CS_NONE)
        return p->num == 0 ? sw : CS_NONE;
    return p->peer == CS_NONE ? CS_NONE : t->node_switch[f->ports[p->peer].node];
}

enum cs_trace_outcome cs_dest_routes_path(const struct cs_dest_routes *d, const struct cs_tracer *t,
                                          uint32_t src_port, uint32_t *links, uint32_t max,
                                          uint32_t *count)
{
    const struct cs_fabric *f = t->fabric;
    *count = 0;
    if (src_port >= f->num_port_slots)
        return CS_TRACE_UNCONNECTED;
    const struct cs_port *p = &f->ports[src_port];
    uint32_t sw = t->node_switch[p->node];
    if (sw == CS_NONE) {
        if (p->peer == CS_NONE || p->num == 0)
            return CS_TRACE_UNCONNECTED;
        if (src_port == d->owner_port)
            return CS_TRACE_DELIVERED;
        record(links, max, count, t->links.out[src_port]);
        sw = t->node_switch[f->ports[p->peer].node];
        if (sw == CS_NONE)
            return p->peer == d->owner_port ? CS_TRACE_DELIVERED : CS_TRACE_WRONG_DELIVERY;
    } else if (p->num != 0) {
        return CS_TRACE_UNCONNECTED;
    }
    enum cs_trace_outcome outcome = (enum cs_trace_outcome)d->outcome[sw];
    /* A loop is followed once round (at most num_switches links). */
    for (uint32_t steps = 0; steps <= d->num_switches; steps++) {
        if (d->next_link[sw] != CS_NONE)
            record(links, max, count, d->next_link[sw]);
        sw = d->next_switch[sw];
        if (sw == CS_NONE)
            break;
    }
    return outcome;
}

void cs_dest_routes_load(const struct cs_dest_routes *d, uint64_t *weight, uint64_t *link_load)
{
    /* Farthest first: a switch's weight is complete before it is passed on. */
    for (uint32_t k = 0; k < d->num_delivered; k++) {
        uint32_t s = d->order[k];
        uint64_t w = weight[s];
        uint32_t link = d->next_link[s];
        if (!w || link == CS_NONE)
            continue;
        link_load[link] += w;
        uint32_t next = d->next_switch[s];
        if (next != CS_NONE)
            weight[next] += w;
    }
}

/* ---- Congestion of a set of flows ---- */

static int flow_failed(const struct cs_tracer *t, const struct cs_flow *flow, uint32_t index,
                       const struct cs_route_trace *tr, struct cs_error *err)
{
    const struct cs_fabric *f = t->fabric;
    const struct cs_port *src = &f->ports[flow->src_port];
    if (tr->fault_node == CS_NONE)
        return cs_fail(err, "flow %u from port %u of 0x%016" PRIx64 " to LID 0x%04x: %s", index,
                       src->num, f->nodes[src->node].guid, flow->dst_lid,
                       cs_trace_outcome_name((enum cs_trace_outcome)tr->outcome));
    return cs_fail(err,
                   "flow %u from port %u of 0x%016" PRIx64
                   " to LID 0x%04x: %s at switch 0x%016" PRIx64 " (entry %u)",
                   index, src->num, f->nodes[src->node].guid, flow->dst_lid,
                   cs_trace_outcome_name((enum cs_trace_outcome)tr->outcome),
                   f->nodes[tr->fault_node].guid, tr->fault_entry);
}

int cs_flows_congestion(const struct cs_tracer *t, const struct cs_flow *flows, uint32_t count,
                        uint32_t *route_max, uint32_t *link_load, uint32_t *max_congestion,
                        struct cs_error *err)
{
    uint32_t nlinks = t->links.count;
    uint32_t route_cap = t->num_switches + 2; /* a delivered route crosses each switch once */
    uint32_t *load = link_load ? link_load : calloc(nlinks ? nlinks : 1, sizeof *load);
    uint32_t *offsets = malloc(((size_t)count + 1) * sizeof *offsets);
    uint32_t *all = NULL, all_cap = 0, used = 0;
    int rc = -1;
    if (!load || !offsets) {
        cs_fail(err, "out of memory for the congestion of %u flows", count);
        goto done;
    }
    memset(load, 0, (size_t)nlinks * sizeof *load);
    for (uint32_t i = 0; i < count; i++) {
        offsets[i] = used;
        if (cs_grow((void **)&all, &all_cap, (uint64_t)used + route_cap, sizeof *all, err) < 0)
            goto done;
        struct cs_route_trace tr;
        if (cs_trace_route(t, flows[i].src_port, flows[i].dst_lid, &tr, all + used, route_cap,
                           err) < 0)
            goto done;
        if (tr.outcome != CS_TRACE_DELIVERED) {
            flow_failed(t, &flows[i], i, &tr, err);
            goto done;
        }
        for (uint32_t k = 0; k < tr.hops; k++)
            load[all[used + k]]++;
        used += tr.hops;
    }
    offsets[count] = used;
    uint32_t max = 0;
    for (uint32_t l = 0; l < nlinks; l++)
        if (load[l] > max)
            max = load[l];
    *max_congestion = max;
    if (route_max)
        for (uint32_t i = 0; i < count; i++) {
            uint32_t worst = 0;
            for (uint32_t k = offsets[i]; k < offsets[i + 1]; k++)
                if (load[all[k]] > worst)
                    worst = load[all[k]];
            route_max[i] = worst;
        }
    rc = 0;
done:
    if (!link_load)
        free(load);
    free(offsets);
    free(all);
    return rc;
}
