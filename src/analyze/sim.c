/* Congestion simulator (sim.h, docs/simulation.md).
 *
 * Set-up (once): the candidate ports of each group become "endpoints"; for every endpoint the
 * LFT entries of all switches for its LID are copied into one contiguous row (col), so that a
 * route to it is a walk of hop[first_port[switch] + col[switch]] -- one byte and one 8-byte
 * record per switch crossed, no LFT lookup, no branch on outcomes. Every route between two
 * candidates of a group is checked to be delivered first (cs_dest_routes per destination), which
 * is what makes the walk safe without checks, and gives the longest route (max_route, the
 * stride at which routes are kept). Then what a walk can know without a row lookup is taken
 * out of it: a switch that sends everything not cabled to it out of one port (a vSwitch) is
 * left by that port directly (find_exits), the destination's own switch is left by the link
 * into the destination, and rows keep only the switches a walk looks up (compact_rows).
 *
 * Per level (per worker, runs handed out by an atomic counter): pass 1 walks every flow and
 * counts it on the links it crosses, a touched list remembering the links used; the victim's
 * routes are kept when the level has at most SIM_STORE_FLOWS victim flows. Pass 2 takes each
 * victim flow's weight (largest count on its route), feeding the weight histogram and the delay
 * forest. Pass 3 folds the touched links into the per-link statistics and clears them. A run's
 * values go to index r of the result arrays; histograms and link statistics are integer sums
 * and maxima, merged after the threads join, so nothing depends on which thread ran which run.
 */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/key_index.h"
#include "cloudsm/sim.h"

#include "analyze/link_csv.h"
#include "core/cpu.h"
#include "core/grow.h"
#include "io/outbuf.h"

#define SIM_PAIR_CHUNK 4096 /* a multiple of SIM_WALK_BATCH */
#define SIM_WALK_BATCH 16
#define SIM_STORE_FLOWS (UINT32_C(1) << 16)
#define SIM_MAX_THREADS 256
#define SIM_GOLDEN UINT64_C(0x9e3779b97f4a7c15)

/* ---- Names, seeds, statistics ---- */

const char *cs_select_name(enum cs_select s)
{
    switch (s) {
    case CS_SELECT_RANDOM:
        return "random";
    case CS_SELECT_LINEAR:
        return "linear";
    case CS_SELECT_GUID_ASC:
        return "guid-asc";
    case CS_SELECT_GUID_DESC:
        return "guid-desc";
    }
    return "?";
}

int cs_select_parse(enum cs_select *s, const char *text, struct cs_error *err)
{
    for (int i = CS_SELECT_RANDOM; i <= CS_SELECT_GUID_DESC; i++)
        if (strcmp(text, cs_select_name((enum cs_select)i)) == 0) {
            *s = (enum cs_select)i;
            return 0;
        }
    return cs_fail(err, "unknown selection '%s' (random, linear, guid-asc, guid-desc)", text);
}

uint64_t cs_sim_run_seed(uint64_t seed, uint32_t run)
{
    struct cs_rng g = {seed + (uint64_t)run * SIM_GOLDEN};
    return cs_rng_next(&g);
}

double cs_sim_ci99_quantile(uint32_t samples)
{
    /* t(0.995, df) for df = 1..49, computed to 9 digits (regularised incomplete beta). */
    static const double t995[50] = {
        0,          63.6567412, 9.9248432,  5.84090931, 4.60409487, 4.03214298, 3.70742802,
        3.4994833,  3.35538733, 3.24983554, 3.16927267, 3.10580652, 3.05453959, 3.01227584,
        2.97684273, 2.94671288, 2.92078162, 2.89823052, 2.87844047, 2.86093461, 2.84533971,
        2.83135956, 2.81875606, 2.80733568, 2.7969395,  2.78743581, 2.77871453, 2.77068296,
        2.76326246, 2.7563859,  2.74999565, 2.74404192, 2.73848148, 2.73327664, 2.72839437,
        2.72380559, 2.71948463, 2.71540872, 2.7115576,  2.70791318, 2.70445927, 2.7011813,
        2.69806619, 2.69510208, 2.69227827, 2.68958502, 2.68701349, 2.68455562, 2.68220403,
        2.67995197,
    };
    if (samples < 2)
        return NAN;
    if (samples <= 50)
        return t995[samples - 1];
    return 2.576;
}

void cs_sim_stat_compute(const double *values, uint32_t n, struct cs_sim_stat *s)
{
    memset(s, 0, sizeof *s);
    s->samples = n;
    if (!n) {
        s->min = s->mean = s->max = s->ci99 = s->orcs_error = NAN;
        return;
    }
    double sum = 0, min = values[0], max = values[0];
    for (uint32_t i = 0; i < n; i++) {
        sum += values[i];
        if (values[i] < min)
            min = values[i];
        if (values[i] > max)
            max = values[i];
    }
    double mean = sum / n, squares = 0;
    for (uint32_t i = 0; i < n; i++)
        squares += (values[i] - mean) * (values[i] - mean);
    s->min = min;
    s->max = max;
    s->mean = mean;
    s->stddev = n > 1 ? sqrt(squares / (n - 1)) : 0;
    s->ci99 = cs_sim_ci99_quantile(n) * s->stddev / sqrt((double)n);
    s->orcs_error = 2.576 * (squares / n) / sqrt((double)n);
}

void cs_sim_histogram(const double *values, uint32_t n, double low, double high, uint32_t bins,
                      uint64_t *counts)
{
    memset(counts, 0, (size_t)bins * sizeof *counts);
    if (!bins)
        return;
    double width = (high - low) / bins;
    for (uint32_t i = 0; i < n; i++) {
        double v = values[i];
        if (isnan(v))
            continue;
        uint32_t b = 0;
        if (v >= high)
            b = bins - 1;
        else if (v > low) {
            double pos = floor((v - low) / width);
            b = pos >= bins ? bins - 1 : (uint32_t)pos;
            /* floor of a quotient can land one bin off at an edge; settle on the edges. */
            while (b > 0 && v < low + b * width)
                b--;
            while (b + 1 < bins && v >= low + (b + 1) * width)
                b++;
        }
        counts[b]++;
    }
}

/* ---- The plan: endpoints, groups, route rows ---- */

struct sim_hop {
    uint32_t link;        /* directed link leaving the port */
    uint32_t next_switch; /* switch at its other end; CS_NONE: a CA or router (the route ends) */
};

struct sim_endpoint {
    uint32_t port;
    uint32_t up_link;      /* link leaving the port */
    uint32_t entry_switch; /* switch its cable leads to; CS_NONE for a cable to a CA */
    uint32_t down_link;    /* the link from entry_switch into the port */
    /* When entry_switch forwards every endpoint not cabled to it on one port (a vSwitch's
     * uplink, a leaf with one up-port): that port's link and the switch it leads to; CS_NONE
     * otherwise. */
    uint32_t exit_link, exit_switch;
    uint32_t walk_entry, walk_exit; /* entry_switch and exit_switch as walks number switches */
};

struct sim_group {
    struct cs_pattern_spec spec;
    uint32_t *cands; /* endpoints: pinned first (order), then the rest in base order */
    uint32_t num_cands;
    uint32_t pinned;
    uint32_t ranks; /* used per run */
};

struct sim_plan {
    const struct cs_tracer *t;
    const struct cs_sim_options *opt;
    struct sim_endpoint *ep;
    uint32_t num_ep;
    uint32_t *ep_of_port; /* [port slot] endpoint, CS_NONE */
    uint32_t num_switches;
    /* Set-up: [endpoint * num_switches + switch] the LFT entry for the endpoint's LID. Then
     * (compact_rows) only the num_cols switches a walk looks up remain, numbered 0..num_cols-1
     * as walks number them (walk_first[], sim_hop.next_switch, walk_entry/walk_exit). */
    uint8_t *col;
    uint32_t num_cols;
    uint32_t *walk_first; /* [switch as walks number it] its port 0's index */
    struct sim_hop *hop;
    struct sim_group victim, aggressor; /* split: both share victim.cands */
    uint32_t max_route; /* links of the longest route between two candidates of a group */
    bool versus, split, random;
    uint32_t victim_levels, aggressor_levels, levels;
};

static void plan_free(struct sim_plan *p)
{
    free(p->ep);
    free(p->ep_of_port);
    free(p->col);
    free(p->walk_first);
    free(p->hop);
    free(p->victim.cands);
    free(p->aggressor.cands);
    memset(p, 0, sizeof *p);
}

static const char *port_desc(const struct cs_fabric *f, uint32_t port)
{
    return f->nodes[f->ports[port].node].desc;
}

static int check_port(const struct cs_tracer *t, uint32_t port, const char *group,
                      struct cs_error *err)
{
    const struct cs_fabric *f = t->fabric;
    if (port >= f->num_port_slots)
        return cs_fail(err, "%s: no port index %u in the fabric", group, port);
    const struct cs_port *p = &f->ports[port];
    uint64_t guid = f->nodes[p->node].guid;
    if (cs_node_is_switch(&f->nodes[p->node]) || p->num == 0)
        return cs_fail(err, "%s: port %u of 0x%016" PRIx64 " is a switch port, not an end port",
                       group, p->num, guid);
    if (p->peer == CS_NONE)
        return cs_fail(err, "%s: port %u of 0x%016" PRIx64 " ('%s') is not connected", group,
                       p->num, guid, port_desc(f, port));
    if (!p->lid)
        return cs_fail(err, "%s: port %u of 0x%016" PRIx64 " ('%s') has no LID", group, p->num,
                       guid, port_desc(f, port));
    if (cs_tracer_owner(t, p->lid) != port)
        return cs_fail(err, "%s: LID 0x%04x of port %u of 0x%016" PRIx64 " is not its own", group,
                       p->lid, p->num, guid);
    return 0;
}

static uint32_t add_endpoint(struct sim_plan *p, uint32_t port)
{
    if (p->ep_of_port[port] != CS_NONE)
        return p->ep_of_port[port];
    const struct cs_tracer *t = p->t;
    struct sim_endpoint *e = &p->ep[p->num_ep];
    e->port = port;
    e->up_link = t->links.out[port];
    e->entry_switch = cs_tracer_entry_switch(t, port);
    e->down_link = e->entry_switch != CS_NONE ? t->links.out[t->fabric->ports[port].peer] : CS_NONE;
    e->exit_link = e->exit_switch = CS_NONE;
    p->ep_of_port[port] = p->num_ep;
    return p->num_ep++;
}

struct guid_sort {
    uint64_t guid;
    uint32_t port;
};

static int cmp_guid_sort(const void *a, const void *b)
{
    const struct guid_sort *x = a, *y = b;
    if (x->guid != y->guid)
        return x->guid < y->guid ? -1 : 1;
    return x->port < y->port ? -1 : x->port > y->port;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Candidates of one group in base order with the order list's GUIDs pinned in front. */
static int build_group(struct sim_plan *p, struct sim_group *g, const struct cs_sim_group *in,
                       const char *name, uint32_t *seen, uint32_t seen_stamp, struct cs_error *err)
{
    const struct cs_tracer *t = p->t;
    const struct cs_fabric *f = t->fabric;
    const struct cs_sim_options *opt = p->opt;
    uint32_t count = 0;
    uint32_t *ports = NULL;
    g->spec = in->pattern;
    if (in->ports) {
        count = in->num_ports;
        ports = cs_calloc_array(count, sizeof *ports, err);
        if (!ports)
            return -1;
        memcpy(ports, in->ports, (size_t)count * sizeof *ports);
    } else {
        for (uint32_t i = 0; i < f->num_port_slots; i++)
            count += f->nodes[f->ports[i].node].type == CS_NODE_CA && f->ports[i].num &&
                     f->ports[i].peer != CS_NONE;
        ports = cs_calloc_array(count, sizeof *ports, err);
        if (!ports)
            return -1;
        count = 0;
        for (uint32_t i = 0; i < f->num_port_slots; i++)
            if (f->nodes[f->ports[i].node].type == CS_NODE_CA && f->ports[i].num &&
                f->ports[i].peer != CS_NONE)
                ports[count++] = i;
    }
    for (uint32_t i = 0; i < count; i++) {
        if (check_port(t, ports[i], name, err) < 0)
            goto fail;
        if (seen[ports[i]] == seen_stamp) {
            const struct cs_port *q = &f->ports[ports[i]];
            cs_fail(err, "%s: port %u of 0x%016" PRIx64 " is listed twice", name, q->num,
                    f->nodes[q->node].guid);
            goto fail;
        }
        seen[ports[i]] = seen_stamp;
    }

    /* Base order. */
    if (opt->select == CS_SELECT_GUID_ASC || opt->select == CS_SELECT_GUID_DESC) {
        struct guid_sort *s = cs_calloc_array(count, sizeof *s, err);
        if (!s)
            goto fail;
        for (uint32_t i = 0; i < count; i++) {
            s[i].guid = f->ports[ports[i]].guid;
            s[i].port = ports[i];
        }
        qsort(s, count, sizeof *s, cmp_guid_sort);
        for (uint32_t i = 0; i < count; i++)
            ports[i] = s[opt->select == CS_SELECT_GUID_ASC ? i : count - 1 - i].port;
        free(s);
    } else {
        qsort(ports, count, sizeof *ports, cmp_u32);
    }

    g->cands = cs_calloc_array(count, sizeof *g->cands, err);
    if (!g->cands)
        goto fail;
    g->num_cands = count;

    /* Pinned ports: port GUID first, else node GUID (that node's first port in base order). */
    uint8_t *taken = cs_calloc_array(count, 1, err);
    if (!taken)
        goto fail;
    if (opt->order_count) {
        struct cs_key_index by_port, by_node;
        cs_key_index_init(&by_port);
        cs_key_index_init(&by_node);
        int rc = cs_key_index_reserve(&by_port, count, err);
        if (rc == 0)
            rc = cs_key_index_reserve(&by_node, count, err);
        for (uint32_t i = 0; rc == 0 && i < count; i++) {
            cs_key_index_add(&by_port, f->ports[ports[i]].guid, i, err);
            cs_key_index_add(&by_node, f->nodes[f->ports[ports[i]].node].guid, i, err);
        }
        if (rc == 0) {
            cs_key_index_sort(&by_port);
            cs_key_index_sort(&by_node);
            for (uint32_t k = 0; k < opt->order_count; k++) {
                uint32_t pos = cs_key_index_find(&by_port, opt->order[k]);
                if (pos == CS_NONE)
                    pos = cs_key_index_find(&by_node, opt->order[k]);
                if (pos == CS_NONE || taken[pos])
                    continue;
                taken[pos] = 1;
                g->cands[g->pinned++] = add_endpoint(p, ports[pos]);
            }
        }
        cs_key_index_free(&by_port);
        cs_key_index_free(&by_node);
        if (rc < 0) {
            free(taken);
            goto fail;
        }
    }
    uint32_t next = g->pinned;
    for (uint32_t i = 0; i < count; i++)
        if (!taken[i])
            g->cands[next++] = add_endpoint(p, ports[i]);
    free(taken);
    free(ports);
    return 0;
fail:
    free(ports);
    return -1;
}

/* The LFT entries of every switch for each endpoint's LID, one contiguous row per endpoint,
 * read 64 LIDs at a time (cs_tracer_lft_columns). */
static int fill_rows(struct sim_plan *p, struct cs_error *err)
{
    const struct cs_tracer *t = p->t;
    uint32_t S = p->num_switches;
    p->col = cs_calloc_array((size_t)p->num_ep * (S ? S : 1), 1, err);
    uint32_t *lid_ep = cs_calloc_array(t->lid_limit, sizeof *lid_ep, err);
    uint8_t *block = cs_calloc_array((size_t)CS_LFT_BLOCK * (S ? S : 1), 1, err);
    if (!p->col || !lid_ep || !block) {
        free(lid_ep);
        free(block);
        return -1;
    }
    for (uint32_t lid = 0; lid < t->lid_limit; lid++)
        lid_ep[lid] = CS_NONE;
    for (uint32_t e = 0; e < p->num_ep; e++)
        lid_ep[t->fabric->ports[p->ep[e].port].lid] = e;
    for (uint32_t first = 0; first < t->lid_limit; first += CS_LFT_BLOCK) {
        uint32_t n = t->lid_limit - first < CS_LFT_BLOCK ? t->lid_limit - first : CS_LFT_BLOCK;
        bool any = false;
        for (uint32_t k = 0; k < n && !any; k++)
            any = lid_ep[first + k] != CS_NONE;
        if (!any)
            continue;
        cs_tracer_lft_columns(t, first, n, block);
        for (uint32_t k = 0; k < n; k++)
            if (lid_ep[first + k] != CS_NONE)
                memcpy(p->col + (size_t)lid_ep[first + k] * S, block + (size_t)k * S, S);
    }
    free(lid_ep);
    free(block);
    return 0;
}

/* Endpoints' exits (sim_endpoint): a route from a VF enters its vSwitch, whose row entry lies in
 * a different cache line for every (vSwitch, destination) pair -- the one lookup per flow that
 * no cache holds on a big fabric. A switch that sends every endpoint not cabled to it out of one
 * port needs no lookup: its exit is known per source. exit[s]: that port + 1, 0 while unseen,
 * CS_NONE once two ports differ. */
static int find_exits(struct sim_plan *p, struct cs_error *err)
{
    uint32_t S = p->num_switches;
    uint32_t *exit = cs_calloc_array(S ? S : 1, sizeof *exit, err);
    uint32_t *entries = cs_calloc_array(p->num_ep ? p->num_ep : 1, sizeof *entries, err);
    if (!exit || !entries) {
        free(exit);
        free(entries);
        return -1;
    }
    uint32_t num_entries = 0;
    for (uint32_t e = 0; e < p->num_ep; e++) {
        uint32_t sw = p->ep[e].entry_switch;
        if (sw != CS_NONE && exit[sw] == 0) {
            exit[sw] = CS_NONE - 1; /* a mark: listed, not seen yet */
            entries[num_entries++] = sw;
        }
    }
    for (uint32_t k = 0; k < num_entries; k++)
        exit[entries[k]] = 0;
    /* Entries with two ports seen leave the list (on a plain fat tree, soon all of them). */
    for (uint32_t d = 0; d < p->num_ep && num_entries; d++) {
        const uint8_t *row = p->col + (size_t)d * S;
        for (uint32_t k = 0; k < num_entries; k++) {
            uint32_t sw = entries[k];
            if (sw == p->ep[d].entry_switch)
                continue;
            if (exit[sw] == 0)
                exit[sw] = row[sw] + 1u;
            else if (exit[sw] != row[sw] + 1u) {
                exit[sw] = CS_NONE;
                entries[k--] = entries[--num_entries];
            }
        }
    }
    for (uint32_t e = 0; e < p->num_ep; e++) {
        struct sim_endpoint *ep = &p->ep[e];
        if (ep->entry_switch == CS_NONE || exit[ep->entry_switch] == CS_NONE ||
            exit[ep->entry_switch] == 0)
            continue;
        const struct sim_hop *h =
            &p->hop[p->t->switch_first_port[ep->entry_switch] + exit[ep->entry_switch] - 1];
        if (h->next_switch == CS_NONE) /* a cable to a CA: a route would end there */
            continue;
        ep->exit_link = h->link;
        ep->exit_switch = h->next_switch;
    }
    free(exit);
    free(entries);
    return 0;
}

/* Keep only the row entries walks read. A walk looks a switch up when it starts there (an entry
 * switch without an exit) or passes through it; it never looks up the destination's switch
 * (walk_batch knows that last link) and never passes through a stub, a switch with one cable to
 * other switches (it would have to leave by the cable it came in on, meeting the switch behind
 * it twice: a loop, which the check rules out). On a vSwitch fabric that drops every vSwitch:
 * rows shrink to the physical switches and stay in the cache (measured: the walks' time was
 * mostly waiting for row entries). Walks number the kept switches 0..num_cols-1 in fabric order,
 * the others after them. */
static int compact_rows(struct sim_plan *p, struct cs_error *err)
{
    const struct cs_tracer *t = p->t;
    uint32_t S = p->num_switches;
    uint32_t *walk_id = cs_calloc_array(S ? S : 1, sizeof *walk_id, err);
    uint8_t *kept = cs_calloc_array(S ? S : 1, 1, err);
    p->walk_first = cs_calloc_array(S ? S : 1, sizeof *p->walk_first, err);
    if (!walk_id || !kept || !p->walk_first)
        goto fail;
    for (uint32_t sw = 0; sw < S; sw++) {
        uint32_t first = t->switch_first_port[sw], cables = 0;
        for (uint32_t q = 1; q <= t->fabric->nodes[t->switch_node[sw]].num_ports; q++)
            cables += t->peer_switch[first + q] != CS_NONE;
        kept[sw] = cables > 1;
    }
    for (uint32_t e = 0; e < p->num_ep; e++)
        if (p->ep[e].entry_switch != CS_NONE && p->ep[e].exit_switch == CS_NONE)
            kept[p->ep[e].entry_switch] = 1;
    uint32_t next = 0;
    for (uint32_t sw = 0; sw < S; sw++)
        if (kept[sw])
            walk_id[sw] = next++;
    p->num_cols = next;
    for (uint32_t sw = 0; sw < S; sw++)
        if (!kept[sw])
            walk_id[sw] = next++;
    for (uint32_t sw = 0; sw < S; sw++)
        p->walk_first[walk_id[sw]] = t->switch_first_port[sw];
    /* In place: row e's kept entries move to e * num_cols, never past where they were read. */
    for (uint32_t e = 0; e < p->num_ep; e++) {
        const uint8_t *row = p->col + (size_t)e * S;
        uint8_t *out = p->col + (size_t)e * p->num_cols;
        for (uint32_t sw = 0; sw < S; sw++)
            if (kept[sw])
                out[walk_id[sw]] = row[sw];
    }
    for (uint32_t i = 0; i < t->fabric->num_port_slots; i++)
        if (p->hop[i].next_switch != CS_NONE)
            p->hop[i].next_switch = walk_id[p->hop[i].next_switch];
    for (uint32_t e = 0; e < p->num_ep; e++) {
        struct sim_endpoint *ep = &p->ep[e];
        ep->walk_entry = ep->entry_switch != CS_NONE ? walk_id[ep->entry_switch] : CS_NONE;
        ep->walk_exit = ep->exit_switch != CS_NONE ? walk_id[ep->exit_switch] : CS_NONE;
    }
    free(walk_id);
    free(kept);
    return 0;
fail:
    free(walk_id);
    free(kept);
    return -1;
}

static int route_failed(const struct sim_plan *p, uint32_t src_ep, uint32_t dst_ep,
                        struct cs_error *err)
{
    const struct cs_tracer *t = p->t;
    const struct cs_fabric *f = t->fabric;
    uint32_t src = p->ep[src_ep].port, dst = p->ep[dst_ep].port;
    const struct cs_port *s = &f->ports[src], *d = &f->ports[dst];
    struct cs_route_trace tr;
    if (cs_trace_route(t, src, d->lid, &tr, NULL, 0, err) < 0)
        return -1;
    if (tr.fault_node == CS_NONE)
        return cs_fail(err,
                       "no route from port %u of 0x%016" PRIx64 " ('%s') to LID 0x%04x ('%s'): %s",
                       s->num, f->nodes[s->node].guid, port_desc(f, src), d->lid, port_desc(f, dst),
                       cs_trace_outcome_name((enum cs_trace_outcome)tr.outcome));
    return cs_fail(err,
                   "no route from port %u of 0x%016" PRIx64 " ('%s') to LID 0x%04x ('%s'): %s at "
                   "switch 0x%016" PRIx64 " (entry %u)",
                   s->num, f->nodes[s->node].guid, port_desc(f, src), d->lid, port_desc(f, dst),
                   cs_trace_outcome_name((enum cs_trace_outcome)tr.outcome),
                   f->nodes[tr.fault_node].guid, tr.fault_entry);
}

/* Every route between two candidates of the group is delivered. Per destination, the routes
 * from every switch are resolved at once (O(switches)); then each switch a candidate enters the
 * fabric at is looked up. Destinations are split over threads; the failure reported is the one
 * of the first destination in candidate order, whatever the thread count. */
struct route_check {
    const struct sim_plan *p;
    const struct sim_group *g;
    const uint32_t *sources_at;  /* [switch] candidates entering there */
    const uint32_t *some_source; /* [switch] one of them */
    const uint32_t *entries;     /* switches some candidate enters at */
    const uint32_t *direct;      /* candidates cabled straight to a CA */
    uint32_t num_entries, num_direct;
};

struct route_check_part {
    const struct route_check *c;
    uint32_t first, last;        /* candidate positions checked as destinations */
    uint32_t fail_pos, fail_src; /* first failing destination position, a source failing it */
    uint32_t max_route;          /* links of the longest route checked */
    struct cs_error err;
    int rc;
    pthread_t thread;
    bool started;
};

static void *check_part(void *arg)
{
    struct route_check_part *part = arg;
    const struct route_check *c = part->c;
    const struct sim_plan *p = c->p;
    const struct sim_group *g = c->g;
    const struct cs_fabric *f = p->t->fabric;
    part->fail_pos = CS_NONE;
    struct cs_dest_routes dr;
    if (cs_dest_routes_init(&dr, p->t, &part->err) < 0) {
        part->rc = -1;
        return NULL;
    }
    for (uint32_t pos = part->first; pos < part->last && part->fail_pos == CS_NONE; pos++) {
        uint32_t d = g->cands[pos];
        cs_dest_routes_compute_from(&dr, p->t, f->ports[p->ep[d].port].lid,
                                    p->col + (size_t)d * p->num_switches);
        for (uint32_t k = 0; k < c->num_entries && part->fail_pos == CS_NONE; k++) {
            uint32_t sw = c->entries[k];
            if (dr.outcome[sw] == CS_TRACE_DELIVERED) {
                /* The source's own cable, then hops[] links from its switch. */
                if (1 + dr.hops[sw] > part->max_route)
                    part->max_route = 1 + dr.hops[sw];
                continue;
            }
            /* d itself is the only candidate entering there: d never sends to itself. */
            if (c->sources_at[sw] == 1 && c->some_source[sw] == d)
                continue;
            uint32_t src = c->some_source[sw] != d ? c->some_source[sw] : CS_NONE;
            for (uint32_t j = 0; src == CS_NONE && j < g->num_cands; j++)
                if (g->cands[j] != d && p->ep[g->cands[j]].entry_switch == sw)
                    src = g->cands[j];
            part->fail_pos = pos;
            part->fail_src = src;
        }
        for (uint32_t k = 0; k < c->num_direct && part->fail_pos == CS_NONE; k++)
            if (c->direct[k] != d && f->ports[p->ep[c->direct[k]].port].peer != p->ep[d].port) {
                part->fail_pos = pos;
                part->fail_src = c->direct[k];
            }
        if (c->num_direct && part->max_route < 1)
            part->max_route = 1; /* CA to CA: one cable */
    }
    cs_dest_routes_free(&dr);
    return NULL;
}

static int check_group_routes(struct sim_plan *p, const struct sim_group *g, unsigned threads,
                              struct cs_error *err)
{
    uint32_t S = p->num_switches;
    uint32_t *sources_at = cs_calloc_array(S, sizeof *sources_at, err);
    uint32_t *some_source = cs_calloc_array(S, sizeof *some_source, err);
    uint32_t *entries = cs_calloc_array(S, sizeof *entries, err);
    uint32_t *direct = cs_calloc_array(g->num_cands, sizeof *direct, err);
    if (threads > g->num_cands)
        threads = g->num_cands ? g->num_cands : 1;
    struct route_check_part *parts = cs_calloc_array(threads, sizeof *parts, err);
    int rc = -1;
    if (!sources_at || !some_source || !entries || !direct || !parts)
        goto done;
    struct route_check c = {p, g, sources_at, some_source, entries, direct, 0, 0};
    for (uint32_t i = 0; i < g->num_cands; i++) {
        uint32_t e = g->cands[i], sw = p->ep[e].entry_switch;
        if (sw == CS_NONE) {
            direct[c.num_direct++] = e;
            continue;
        }
        if (!sources_at[sw]++) {
            entries[c.num_entries++] = sw;
            some_source[sw] = e;
        }
    }
    for (unsigned i = 0; i < threads; i++) {
        parts[i].c = &c;
        parts[i].first = (uint32_t)((uint64_t)g->num_cands * i / threads);
        parts[i].last = (uint32_t)((uint64_t)g->num_cands * (i + 1) / threads);
    }
    for (unsigned i = 1; i < threads; i++)
        parts[i].started = pthread_create(&parts[i].thread, NULL, check_part, &parts[i]) == 0;
    check_part(&parts[0]);
    for (unsigned i = 1; i < threads; i++) {
        if (parts[i].started)
            pthread_join(parts[i].thread, NULL);
        else
            check_part(&parts[i]);
    }
    for (unsigned i = 0; i < threads; i++)
        if (parts[i].rc < 0) {
            *err = parts[i].err;
            goto done;
        }
    for (unsigned i = 0; i < threads; i++)
        if (parts[i].fail_pos != CS_NONE) { /* parts are in candidate order */
            route_failed(p, parts[i].fail_src, g->cands[parts[i].fail_pos], err);
            goto done;
        }
    for (unsigned i = 0; i < threads; i++)
        if (parts[i].max_route > p->max_route)
            p->max_route = parts[i].max_route;
    rc = 0;
done:
    free(sources_at);
    free(some_source);
    free(entries);
    free(direct);
    free(parts);
    return rc;
}

/* A pattern spec cs_pattern_init accepts (no ranks: nothing is allocated). */
static int check_spec(const struct cs_pattern_spec *spec, struct cs_error *err)
{
    struct cs_pattern probe;
    int rc = cs_pattern_init(&probe, spec, 0, NULL, err);
    cs_pattern_free(&probe);
    return rc;
}

/* with_routes: also the route rows and the delivery check (on `threads` threads). */
static int plan_build(struct sim_plan *p, const struct cs_tracer *t,
                      const struct cs_sim_options *opt, bool with_routes, unsigned threads,
                      struct cs_error *err)
{
    memset(p, 0, sizeof *p);
    p->t = t;
    p->opt = opt;
    p->num_switches = t->num_switches;
    p->versus = opt->versus;
    p->split = opt->split;
    p->random = opt->select == CS_SELECT_RANDOM;
    const struct cs_fabric *f = t->fabric;
    if (opt->split && !opt->versus)
        return cs_fail(err, "a split group needs an aggressor pattern");
    if ((unsigned)opt->select > CS_SELECT_GUID_DESC)
        return cs_fail(err, "unknown rank selection %d", (int)opt->select);

    uint32_t slots = f->num_port_slots;
    p->ep_of_port = cs_calloc_array(slots, sizeof *p->ep_of_port, err);
    uint32_t *seen = cs_calloc_array(slots, sizeof *seen, err);
    /* At most every end port once per group. */
    uint64_t max_ep =
        (uint64_t)(opt->victim.ports ? opt->victim.num_ports : slots) +
        (opt->versus && !opt->split ? (opt->aggressor.ports ? opt->aggressor.num_ports : slots)
                                    : 0);
    p->ep = cs_calloc_array(max_ep < slots ? max_ep : slots, sizeof *p->ep, err);
    if (!p->ep_of_port || !seen || !p->ep) {
        free(seen);
        return -1;
    }
    for (uint32_t i = 0; i < slots; i++)
        p->ep_of_port[i] = CS_NONE;

    int rc = build_group(p, &p->victim, &opt->victim, p->versus ? "victim group" : "group", seen, 1,
                         err);
    if (rc == 0 && p->versus && !p->split)
        rc = build_group(p, &p->aggressor, &opt->aggressor, "aggressor group", seen, 2, err);
    free(seen);
    if (rc < 0)
        return -1;

    /* Ranks per run. */
    if (p->split) {
        uint32_t total = p->victim.num_cands;
        uint32_t v = opt->victim.commsize;
        if (v == 0 || v >= total)
            return cs_fail(err,
                           "split group: the victim takes %u of %u ports; it needs at least 1 "
                           "and must leave some for the aggressor",
                           v, total);
        uint32_t a = opt->aggressor.commsize ? opt->aggressor.commsize : total - v;
        if (a > total - v)
            return cs_fail(err, "split group: %u victim + %u aggressor ranks, but %u ports", v, a,
                           total);
        p->victim.ranks = v;
        p->aggressor.spec = opt->aggressor.pattern;
        p->aggressor.ranks = a;
    } else {
        if (opt->victim.commsize > p->victim.num_cands)
            return cs_fail(err, "commsize %u exceeds the %u ports of the %s", opt->victim.commsize,
                           p->victim.num_cands, p->versus ? "victim group" : "group");
        p->victim.ranks = opt->victim.commsize ? opt->victim.commsize : p->victim.num_cands;
        if (p->versus) {
            if (opt->aggressor.commsize > p->aggressor.num_cands)
                return cs_fail(err, "commsize %u exceeds the %u ports of the aggressor group",
                               opt->aggressor.commsize, p->aggressor.num_cands);
            p->aggressor.ranks =
                opt->aggressor.commsize ? opt->aggressor.commsize : p->aggressor.num_cands;
        }
    }

    /* Levels: the victim's; with an aggressor of A levels, whole aggressor cycles. */
    if (check_spec(&p->victim.spec, err) < 0)
        return -1;
    p->victim_levels = cs_pattern_count_levels(&p->victim.spec, p->victim.ranks);
    p->levels = p->victim_levels;
    if (p->versus) {
        if (check_spec(&p->aggressor.spec, err) < 0)
            return -1;
        p->aggressor_levels = cs_pattern_count_levels(&p->aggressor.spec, p->aggressor.ranks);
        uint32_t a = p->aggressor_levels;
        if (a) {
            uint32_t cycles = (p->victim_levels + a - 1) / a;
            p->levels = (cycles ? cycles : 1) * a;
        }
    }

    if (!with_routes)
        return 0;
    p->hop = cs_calloc_array(slots, sizeof *p->hop, err);
    if (!p->hop)
        return -1;
    for (uint32_t i = 0; i < slots; i++) {
        p->hop[i].link = t->links.out[i];
        p->hop[i].next_switch = t->peer_switch[i];
    }
    if (fill_rows(p, err) < 0)
        return -1;
    if (check_group_routes(p, &p->victim, threads, err) < 0)
        return -1;
    if (p->versus && !p->split && check_group_routes(p, &p->aggressor, threads, err) < 0)
        return -1;
    if (find_exits(p, err) < 0)
        return -1;
    return compact_rows(p, err);
}

/* A group's candidates in run order: pinned ones, then (random selection) a uniform shuffle of
 * the rest, of which only the first `need` positions are drawn (forward Fisher-Yates). */
static void order_group(const struct sim_plan *p, const struct sim_group *g, uint32_t need,
                        uint32_t *out, struct cs_rng *rng)
{
    memcpy(out, g->cands, (size_t)g->num_cands * sizeof *out);
    if (!p->random)
        return;
    for (uint32_t i = g->pinned; i < need && i + 1 < g->num_cands; i++) {
        uint32_t j = i + cs_rng_below(rng, g->num_cands - i);
        uint32_t tmp = out[i];
        out[i] = out[j];
        out[j] = tmp;
    }
}

/* ---- Workers ---- */

struct sim_worker {
    const struct sim_plan *p;
    struct cs_sim_result *r;
    atomic_uint *next_run;
    pthread_t thread;
    bool started;

    struct cs_pattern vp, ap;
    uint32_t *vorder, *aorder;
    const uint32_t *vrank, *arank; /* rank -> endpoint */

    uint32_t *load;
    uint32_t *touched;
    uint32_t num_touched;
    uint32_t level_max; /* the largest load of the level so far */
    struct cs_pair *pairs;
    /* The victim's routes of the level when kept (up to SIM_STORE_FLOWS flows, room for
     * store_flows), then one batch's (the aggressor's, a level too big to keep): flow i's links
     * at route[i * max_route], route_len[i] of them. */
    uint32_t *route;
    uint32_t *route_len;
    uint32_t store_flows;

    uint32_t *run_hist; /* [w] victim flows of weight w in this run */
    uint32_t run_hist_cap, run_hist_top;
    uint64_t *hist; /* summed over this worker's runs */
    uint32_t hist_cap, hist_len;

    /* A level's stamp is stamp_base + level + 1, stamp_base growing by the levels of every
     * run, so that stamps of earlier runs never match and nothing is cleared between runs. */
    uint32_t stamp_base;
    uint64_t *finish[2];     /* [rank] end of the first pair it received, by level parity */
    uint32_t *recv_stamp[2]; /* [rank] the level's stamp of that pair */
    uint32_t *send_stamp;    /* [rank] the level's stamp of its first send */

    uint32_t *link_max;
    uint64_t *link_sum;

    struct cs_error err;
    int rc;
};

/* The routes of `count` (<= SIM_WALK_BATCH) pairs: route i's links (host links unless excluded)
 * go to out[i * max_route ..], their number to len[i]. A walk is a chain of dependent loads (row
 * entry, then hop record, then the next switch's row entry), often cache misses on a big fabric;
 * walking several routes a hop each per round lets those misses overlap. Counting is left to
 * count_routes: incrementing loads here, at addresses known late, stalled the walks (measured:
 * 15% slower). */
static void walk_batch(const struct sim_worker *w, const uint32_t *rank,
                       const struct cs_pair *pairs, uint32_t count, uint32_t *out, uint32_t *len)
{
    const struct sim_plan *p = w->p;
    const uint32_t *first = p->walk_first;
    const struct sim_hop *hop = p->hop;
    bool host_links = !p->opt->exclude_host_links;
    uint32_t stride = p->max_route;
    const uint8_t *row[SIM_WALK_BATCH];
    uint32_t sw[SIM_WALK_BATCH], last[SIM_WALK_BATCH], down[SIM_WALK_BATCH], active = 0;
#define SIM_TAKE(i, l) (out[(size_t)(i)*stride + len[i]++] = (l))
    for (uint32_t i = 0; i < count; i++) {
        const struct sim_endpoint *src = &p->ep[rank[pairs[i].src]];
        const struct sim_endpoint *dst = &p->ep[rank[pairs[i].dst]];
        row[i] = p->col + (size_t)rank[pairs[i].dst] * p->num_cols;
        last[i] = dst->walk_entry;
        down[i] = dst->down_link;
        len[i] = 0;
        if (host_links)
            SIM_TAKE(i, src->up_link);
        sw[i] = src->walk_entry;
        if (src->walk_exit != CS_NONE && sw[i] != last[i]) {
            SIM_TAKE(i, src->exit_link);
            sw[i] = src->walk_exit;
        }
        active += sw[i] != CS_NONE;
    }
    /* The check made every route deliver, so it meets the destination's switch once, as its
     * last switch: the link from there is known too (no row lookup), and every hop before it
     * leads to another switch. */
    while (active) {
        for (uint32_t i = 0; i < count; i++) {
            if (sw[i] == CS_NONE)
                continue;
            if (sw[i] == last[i]) {
                if (host_links)
                    SIM_TAKE(i, down[i]);
                sw[i] = CS_NONE;
                active--;
                continue;
            }
            const struct sim_hop *h = &hop[first[sw[i]] + row[i][sw[i]]];
            SIM_TAKE(i, h->link);
            sw[i] = h->next_switch;
        }
    }
#undef SIM_TAKE
}

/* Count `count` routes (as walk_batch leaves them) on the links. The touched list gets every
 * link going from 0 to 1, without a branch: whether a link is new is a coin toss the branch
 * predictor loses (measured: a third of the simulation time went to it); touched[] has room
 * for one more than the links. */
static void count_routes(struct sim_worker *w, const uint32_t *routes, const uint32_t *len,
                         uint32_t count)
{
    uint32_t stride = w->p->max_route;
    uint32_t *load = w->load, *touched = w->touched, num_touched = w->num_touched;
    uint32_t level_max = w->level_max;
    for (uint32_t i = 0; i < count; i++) {
        const uint32_t *links = routes + (size_t)i * stride;
        for (uint32_t k = 0; k < len[i]; k++) {
            uint32_t now = ++load[links[k]];
            touched[num_touched] = links[k];
            num_touched += now == 1;
            level_max = now > level_max ? now : level_max;
        }
    }
    w->num_touched = num_touched;
    w->level_max = level_max;
}

/* Make a zero-filled counter array hold index `need`. */
#define GROW_TO_INDEX(a, cap, need, err)                                                           \
    cs_grow_zeroed((void **)(a), (cap), (uint64_t)(need) + 1, sizeof **(a), (err))

struct run_acc {
    uint32_t max_congestion;
    uint64_t sum_max;
    uint64_t delay;
};

/* Pass 1 over one group's flows of a level: walk and count. With `store`, the routes are kept
 * (flow q's at route[q * max_route]); the level has at most SIM_STORE_FLOWS flows then. */
static void count_flows(struct sim_worker *w, const struct cs_pattern *pat, uint32_t level,
                        uint64_t size, const uint32_t *rank, bool store)
{
    uint32_t stride = w->p->max_route;
    for (uint64_t first = 0; first < size; first += SIM_PAIR_CHUNK) {
        uint32_t count = (uint32_t)(size - first < SIM_PAIR_CHUNK ? size - first : SIM_PAIR_CHUNK);
        cs_pattern_pairs(pat, level, first, count, w->pairs);
        for (uint32_t q = 0; q < count; q += SIM_WALK_BATCH) {
            uint32_t k = count - q < SIM_WALK_BATCH ? count - q : SIM_WALK_BATCH;
            uint64_t at = store ? first + q : w->store_flows; /* or each batch over the last */
            walk_batch(w, rank, w->pairs + q, k, w->route + at * stride, w->route_len + at);
            count_routes(w, w->route + at * stride, w->route_len + at, k);
        }
    }
}

/* Pass 2: the victim's flow weights, the weight histogram and the delay forest. */
static int weigh_victim(struct sim_worker *w, uint32_t level, uint64_t size, bool stored,
                        struct run_acc *acc)
{
    const struct sim_plan *p = w->p;
    uint32_t stamp = w->stamp_base + level + 1, level_max = 0;
    uint64_t *cur_finish = w->finish[level & 1], *prev_finish = w->finish[(level + 1) & 1];
    uint32_t *cur_recv = w->recv_stamp[level & 1], *prev_recv = w->recv_stamp[(level + 1) & 1];
    uint32_t stride = p->max_route;
    const uint32_t *load = w->load;
    for (uint64_t first = 0; first < size; first += SIM_PAIR_CHUNK) {
        uint32_t count = (uint32_t)(size - first < SIM_PAIR_CHUNK ? size - first : SIM_PAIR_CHUNK);
        cs_pattern_pairs(&w->vp, level, first, count, w->pairs);
        for (uint32_t q = 0; q < count; q++) {
            uint32_t s = w->pairs[q].src, d = w->pairs[q].dst;
            uint64_t at = first + q;
            if (!stored) { /* walked again, a batch at a time */
                uint32_t i = q % SIM_WALK_BATCH;
                if (i == 0)
                    walk_batch(w, w->vrank, w->pairs + q,
                               count - q < SIM_WALK_BATCH ? count - q : SIM_WALK_BATCH,
                               w->route + (uint64_t)w->store_flows * stride,
                               w->route_len + w->store_flows);
                at = w->store_flows + i;
            }
            const uint32_t *links = w->route + at * stride;
            uint32_t n = w->route_len[at];
            uint32_t weight = 1;
            for (uint32_t k = 0; k < n; k++)
                if (load[links[k]] > weight)
                    weight = load[links[k]];
            if (weight >= w->run_hist_cap &&
                GROW_TO_INDEX(&w->run_hist, &w->run_hist_cap, weight, &w->err) < 0)
                return -1;
            w->run_hist[weight]++;
            if (weight > w->run_hist_top)
                w->run_hist_top = weight;
            if (weight > level_max)
                level_max = weight;

            /* ORCS's dependency forest: only a rank's first send of the level waits for its first
             * receive of the previous level. */
            uint64_t start = 0;
            if (w->send_stamp[s] != stamp) {
                w->send_stamp[s] = stamp;
                if (level > 0 && prev_recv[s] == stamp - 1)
                    start = prev_finish[s];
            }
            uint64_t end = start + weight;
            if (end > acc->delay)
                acc->delay = end;
            if (cur_recv[d] != stamp) {
                cur_recv[d] = stamp;
                cur_finish[d] = end;
            }
        }
    }
    acc->sum_max += level_max;
    return 0;
}

static int simulate_level(struct sim_worker *w, uint32_t level, struct run_acc *acc)
{
    const struct sim_plan *p = w->p;
    uint64_t vsize = level < p->victim_levels ? cs_pattern_level_size(&w->vp, level) : 0;
    uint32_t alevel = p->aggressor_levels ? level % p->aggressor_levels : 0;
    uint64_t asize = p->aggressor_levels ? cs_pattern_level_size(&w->ap, alevel) : 0;
    bool store = vsize <= w->store_flows;
    w->level_max = 0;
    count_flows(w, &w->vp, level, vsize, w->vrank, store);
    count_flows(w, &w->ap, alevel, asize, w->arank, false);
    if (w->level_max > acc->max_congestion)
        acc->max_congestion = w->level_max;
    if (vsize && weigh_victim(w, level, vsize, store, acc) < 0)
        return -1;
    uint32_t *load = w->load;
    const uint32_t *touched = w->touched;
    if (w->link_sum)
        for (uint32_t i = 0; i < w->num_touched; i++) {
            uint32_t l = touched[i];
            w->link_sum[l] += load[l];
            if (load[l] > w->link_max[l])
                w->link_max[l] = load[l];
        }
    /* Clearing costs the links touched; when that is most of them, one memset is cheaper than
     * as many scattered stores. */
    if (w->num_touched > p->t->links.count / 8)
        memset(load, 0, (size_t)p->t->links.count * sizeof *load);
    else
        for (uint32_t i = 0; i < w->num_touched; i++)
            load[touched[i]] = 0;
    w->num_touched = 0;
    return 0;
}

static int simulate_run(struct sim_worker *w, uint32_t run)
{
    const struct sim_plan *p = w->p;
    struct cs_rng rng;
    cs_rng_seed(&rng, cs_sim_run_seed(p->opt->seed, run));
    if (p->split) {
        order_group(p, &p->victim, p->victim.ranks + p->aggressor.ranks, w->vorder, &rng);
        w->vrank = w->vorder;
        w->arank = w->vorder + p->victim.ranks;
    } else {
        order_group(p, &p->victim, p->victim.ranks, w->vorder, &rng);
        w->vrank = w->vorder;
        if (p->versus) {
            order_group(p, &p->aggressor, p->aggressor.ranks, w->aorder, &rng);
            w->arank = w->aorder;
        }
    }
    cs_pattern_draw(&w->vp, &rng);
    if (p->versus)
        cs_pattern_draw(&w->ap, &rng);

    if (w->stamp_base > UINT32_MAX - p->levels - 1) { /* stamps would wrap: start over */
        uint32_t vr = p->victim.ranks;
        for (int i = 0; i < 2; i++)
            memset(w->recv_stamp[i], 0, (size_t)vr * sizeof *w->recv_stamp[i]);
        memset(w->send_stamp, 0, (size_t)vr * sizeof *w->send_stamp);
        w->stamp_base = 0;
    }

    struct run_acc acc = {0, 0, 0};
    for (uint32_t level = 0; level < p->levels; level++)
        if (simulate_level(w, level, &acc) < 0)
            return -1;
    w->stamp_base += p->levels;

    /* Effective bandwidth from the run's histogram: the sum in weight order does not depend on
     * the order the flows came in. */
    double inverse = 0;
    uint64_t flows = 0;
    for (uint32_t x = 1; x <= w->run_hist_top; x++) {
        if (!w->run_hist[x])
            continue;
        inverse += (double)w->run_hist[x] / x;
        flows += w->run_hist[x];
    }
    if (w->run_hist_top && GROW_TO_INDEX(&w->hist, &w->hist_cap, w->run_hist_top, &w->err) < 0)
        return -1;
    for (uint32_t x = 1; x <= w->run_hist_top; x++) {
        w->hist[x] += w->run_hist[x];
        w->run_hist[x] = 0;
    }
    if (w->run_hist_top && w->run_hist_top + 1 > w->hist_len)
        w->hist_len = w->run_hist_top + 1;
    w->run_hist_top = 0;

    struct cs_sim_result *r = w->r;
    r->effective_bandwidth[run] = flows ? inverse / (double)flows : NAN;
    r->max_congestion[run] = acc.max_congestion;
    r->sum_max_congestion[run] = acc.sum_max;
    r->max_delay[run] = acc.delay;
    return 0;
}

static void *worker_main(void *arg)
{
    struct sim_worker *w = arg;
    for (;;) {
        unsigned run = atomic_fetch_add(w->next_run, 1);
        if (run >= w->r->runs)
            break;
        if (simulate_run(w, run) < 0) {
            w->rc = -1;
            atomic_store(w->next_run, w->r->runs); /* the others stop too */
            break;
        }
    }
    return NULL;
}

static void worker_free(struct sim_worker *w)
{
    cs_pattern_free(&w->vp);
    cs_pattern_free(&w->ap);
    free(w->vorder);
    free(w->aorder);
    free(w->load);
    free(w->touched);
    free(w->pairs);
    free(w->route);
    free(w->route_len);
    free(w->run_hist);
    free(w->hist);
    for (int i = 0; i < 2; i++) {
        free(w->finish[i]);
        free(w->recv_stamp[i]);
    }
    free(w->send_stamp);
    free(w->link_max);
    free(w->link_sum);
}

static int worker_init(struct sim_worker *w, const struct sim_plan *p, struct cs_sim_result *r,
                       atomic_uint *next_run, struct cs_error *err)
{
    memset(w, 0, sizeof *w);
    w->p = p;
    w->r = r;
    w->next_run = next_run;
    /* A throwaway generator: every run draws the patterns again from its own. */
    struct cs_rng rng;
    cs_rng_seed(&rng, 0);
    if (cs_pattern_init(&w->vp, &p->victim.spec, p->victim.ranks, &rng, err) < 0)
        return -1;
    if (p->versus && cs_pattern_init(&w->ap, &p->aggressor.spec, p->aggressor.ranks, &rng, err) < 0)
        return -1;
    uint32_t links = p->t->links.count, vr = p->victim.ranks;
    w->vorder = cs_calloc_array(p->victim.num_cands, sizeof *w->vorder, err);
    w->aorder = cs_calloc_array(p->aggressor.num_cands, sizeof *w->aorder, err);
    w->load = cs_calloc_array(links, sizeof *w->load, err);
    w->touched = cs_calloc_array((size_t)links + 1, sizeof *w->touched, err);
    w->pairs = cs_calloc_array(SIM_PAIR_CHUNK, sizeof *w->pairs, err);
    /* Room to keep the victim's largest level, if it is small enough, and one batch. */
    for (uint32_t l = 0; l < p->victim_levels; l++) {
        uint64_t size = cs_pattern_level_size(&w->vp, l);
        if (size > w->store_flows)
            w->store_flows = size < SIM_STORE_FLOWS ? (uint32_t)size : SIM_STORE_FLOWS;
    }
    size_t routes = (size_t)w->store_flows + SIM_WALK_BATCH;
    w->route = cs_calloc_array(routes * (p->max_route ? p->max_route : 1), sizeof *w->route, err);
    w->route_len = cs_calloc_array(routes, sizeof *w->route_len, err);
    w->send_stamp = cs_calloc_array(vr, sizeof *w->send_stamp, err);
    for (int i = 0; i < 2; i++) {
        w->finish[i] = cs_calloc_array(vr, sizeof *w->finish[i], err);
        w->recv_stamp[i] = cs_calloc_array(vr, sizeof *w->recv_stamp[i], err);
    }
    if (!w->vorder || !w->aorder || !w->load || !w->touched || !w->pairs || !w->route ||
        !w->route_len || !w->send_stamp || !w->finish[0] || !w->finish[1] || !w->recv_stamp[0] ||
        !w->recv_stamp[1])
        return -1;
    if (GROW_TO_INDEX(&w->run_hist, &w->run_hist_cap, 64, err) < 0)
        return -1;
    if (p->opt->link_stats) {
        w->link_max = cs_calloc_array(links, sizeof *w->link_max, err);
        w->link_sum = cs_calloc_array(links, sizeof *w->link_sum, err);
        if (!w->link_max || !w->link_sum)
            return -1;
    }
    return 0;
}

/* Threads asked for (0: one per online CPU). Runs use at most one each; the route check at
 * set-up splits destinations, so it may use more threads than there are runs. */
static unsigned pick_threads(const struct cs_sim_options *opt)
{
    unsigned threads = opt->threads;
    if (!threads)
        threads = cs_cpu_count();
    return threads > SIM_MAX_THREADS ? SIM_MAX_THREADS : threads;
}

void cs_sim_result_free(struct cs_sim_result *r)
{
    free(r->effective_bandwidth);
    free(r->max_congestion);
    free(r->sum_max_congestion);
    free(r->max_delay);
    free(r->weight_histogram);
    free(r->link_max);
    free(r->link_sum);
    memset(r, 0, sizeof *r);
}

static uint64_t aggressor_flows_per_run(const struct sim_plan *p, const struct sim_worker *w)
{
    uint64_t total = 0;
    for (uint32_t l = 0; p->aggressor_levels && l < p->levels; l++)
        total += cs_pattern_level_size(&w->ap, l % p->aggressor_levels);
    return total;
}

static int merge(struct cs_sim_result *r, struct sim_worker *workers, unsigned threads,
                 bool link_stats, struct cs_error *err)
{
    uint32_t len = 1;
    for (unsigned i = 0; i < threads; i++)
        if (workers[i].hist_len > len)
            len = workers[i].hist_len;
    r->weight_histogram = cs_calloc_array(len, sizeof *r->weight_histogram, err);
    if (!r->weight_histogram)
        return -1;
    r->weight_histogram_len = len;
    for (unsigned i = 0; i < threads; i++)
        for (uint32_t x = 0; x < workers[i].hist_len; x++)
            r->weight_histogram[x] += workers[i].hist[x];
    if (link_stats) {
        r->link_max = cs_calloc_array(r->num_links, sizeof *r->link_max, err);
        r->link_sum = cs_calloc_array(r->num_links, sizeof *r->link_sum, err);
        if (!r->link_max || !r->link_sum)
            return -1;
        for (unsigned i = 0; i < threads; i++)
            for (uint32_t l = 0; l < r->num_links; l++) {
                r->link_sum[l] += workers[i].link_sum[l];
                if (workers[i].link_max[l] > r->link_max[l])
                    r->link_max[l] = workers[i].link_max[l];
            }
    }
    double *values = cs_calloc_array(r->runs, sizeof *values, err);
    if (!values)
        return -1;
    cs_sim_stat_compute(r->effective_bandwidth, r->runs, &r->effective_bandwidth_stat);
    for (uint32_t i = 0; i < r->runs; i++)
        values[i] = r->max_congestion[i];
    cs_sim_stat_compute(values, r->runs, &r->max_congestion_stat);
    for (uint32_t i = 0; i < r->runs; i++)
        values[i] = (double)r->sum_max_congestion[i];
    cs_sim_stat_compute(values, r->runs, &r->sum_max_congestion_stat);
    for (uint32_t i = 0; i < r->runs; i++)
        values[i] = (double)r->max_delay[i];
    cs_sim_stat_compute(values, r->runs, &r->max_delay_stat);
    free(values);
    return 0;
}

int cs_simulate(const struct cs_tracer *t, const struct cs_sim_options *opt,
                struct cs_sim_result *r, struct cs_error *err)
{
    memset(r, 0, sizeof *r);
    if (opt->runs == 0)
        return cs_fail(err, "the number of runs must be at least 1");
    struct sim_plan p;
    unsigned threads = pick_threads(opt);
    if (plan_build(&p, t, opt, true, threads, err) < 0) {
        plan_free(&p);
        return -1;
    }
    if (threads > opt->runs)
        threads = opt->runs;
    struct sim_worker *workers = cs_calloc_array(threads, sizeof *workers, err);
    atomic_uint next_run;
    atomic_init(&next_run, 0);
    int rc = -1;
    unsigned ready = 0;
    if (!workers)
        goto done;
    r->runs = opt->runs;
    r->threads_used = threads;
    r->victim_ranks = p.victim.ranks;
    r->aggressor_ranks = p.versus ? p.aggressor.ranks : 0;
    r->victim_levels = p.victim_levels;
    r->aggressor_levels = p.aggressor_levels;
    r->levels = p.levels;
    r->num_links = t->links.count;
    r->effective_bandwidth = cs_calloc_array(opt->runs, sizeof *r->effective_bandwidth, err);
    r->max_congestion = cs_calloc_array(opt->runs, sizeof *r->max_congestion, err);
    r->sum_max_congestion = cs_calloc_array(opt->runs, sizeof *r->sum_max_congestion, err);
    r->max_delay = cs_calloc_array(opt->runs, sizeof *r->max_delay, err);
    if (!r->effective_bandwidth || !r->max_congestion || !r->sum_max_congestion || !r->max_delay)
        goto done;
    for (; ready < threads; ready++)
        if (worker_init(&workers[ready], &p, r, &next_run, err) < 0) {
            ready++;
            goto done;
        }
    r->victim_flows = cs_pattern_total_pairs(&workers[0].vp);
    r->aggressor_flows = aggressor_flows_per_run(&p, &workers[0]);
    for (unsigned i = 1; i < threads; i++)
        workers[i].started =
            pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]) == 0;
    worker_main(&workers[0]);
    for (unsigned i = 1; i < threads; i++) {
        if (workers[i].started)
            pthread_join(workers[i].thread, NULL);
        else
            worker_main(&workers[i]); /* no thread: do its share here */
    }
    for (unsigned i = 0; i < threads; i++)
        if (workers[i].rc < 0) {
            *err = workers[i].err;
            goto done;
        }
    if (merge(r, workers, threads, opt->link_stats, err) < 0)
        goto done;
    rc = 0;
done:
    for (unsigned i = 0; i < ready; i++)
        worker_free(&workers[i]);
    free(workers);
    plan_free(&p);
    if (rc < 0)
        cs_sim_result_free(r);
    return rc;
}

int cs_sim_ranks(const struct cs_tracer *t, const struct cs_sim_options *opt, uint32_t run,
                 uint32_t *victim, uint32_t *victim_count, uint32_t *aggressor,
                 uint32_t *aggressor_count, struct cs_error *err)
{
    struct sim_plan p;
    *victim_count = 0;
    if (aggressor_count)
        *aggressor_count = 0;
    if (plan_build(&p, t, opt, false, 1, err) < 0) {
        plan_free(&p);
        return -1;
    }
    struct cs_rng rng;
    cs_rng_seed(&rng, cs_sim_run_seed(opt->seed, run));
    uint32_t *vorder = cs_calloc_array(p.victim.num_cands, sizeof *vorder, err);
    uint32_t *aorder = cs_calloc_array(p.aggressor.num_cands, sizeof *aorder, err);
    int rc = -1;
    if (!vorder || !aorder)
        goto done;
    const uint32_t *arank = NULL;
    if (p.split) {
        order_group(&p, &p.victim, p.victim.ranks + p.aggressor.ranks, vorder, &rng);
        arank = vorder + p.victim.ranks;
    } else {
        order_group(&p, &p.victim, p.victim.ranks, vorder, &rng);
        if (p.versus) {
            order_group(&p, &p.aggressor, p.aggressor.ranks, aorder, &rng);
            arank = aorder;
        }
    }
    for (uint32_t i = 0; i < p.victim.ranks; i++)
        victim[i] = p.ep[vorder[i]].port;
    *victim_count = p.victim.ranks;
    if (arank && aggressor) {
        for (uint32_t i = 0; i < p.aggressor.ranks; i++)
            aggressor[i] = p.ep[arank[i]].port;
        if (aggressor_count)
            *aggressor_count = p.aggressor.ranks;
    }
    rc = 0;
done:
    free(vorder);
    free(aorder);
    plan_free(&p);
    return rc;
}

int cs_sim_write_links_csv(FILE *out, const struct cs_tracer *t, const struct cs_sim_result *r,
                           struct cs_error *err)
{
    if (!r->link_max)
        return cs_fail(err, "the simulation kept no per-link figures (link_stats)");
    struct cs_outbuf o;
    if (cs_outbuf_init(&o, out, err) < 0)
        return -1;
    cs_outbuf_str(&o, CS_LINK_CSV_ENDS ",max_congestion,sum_congestion\n");
    for (uint32_t l = 0; l < r->num_links && l < t->links.count; l++) {
        cs_link_csv_ends(&o, t, l);
        cs_outbuf_char(&o, ',');
        cs_outbuf_dec(&o, r->link_max[l]);
        cs_outbuf_char(&o, ',');
        cs_outbuf_dec(&o, r->link_sum[l]);
        cs_outbuf_char(&o, '\n');
    }
    return cs_outbuf_finish(&o, "the per-link CSV", err);
}
