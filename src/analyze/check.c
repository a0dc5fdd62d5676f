/* The all-pairs LFT check: reachability, hop counts, per-link route counts and the channel
 * dependency graph, for every (CA port, destination LID) pair.
 *
 * Tracing every pair one by one costs CA^2 x hops (136 M pairs on an 11664-host tree). Routing
 * is destination based, so per destination LID each switch's route is computed once
 * (cs_dest_routes, O(switches)); sources are grouped by the switch they are cabled to; the number
 * of routes through each switch (and so over each link) is accumulated walking the switches
 * farthest first. A destination therefore costs O(switches), not O(CAs x hops), and the whole
 * check O(LIDs x switches). Destinations are split into contiguous LID ranges over threads;
 * every total is an integer sum (or a bitwise OR), so the result does not depend on the number
 * of threads.
 */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/link_csv.h"
#include "cloudsm/analyze.h"
#include "cloudsm/key_index.h"
#include "cloudsm/lid.h"
#include "core/cpu.h"
#include "core/grow.h"
#include "io/outbuf.h"

/* Below this many (destination x switch) steps a second thread costs more than it saves. */
#define CHECK_MIN_WORK_PER_THREAD 2000000u
#define CHECK_MAX_THREADS 64u

struct check_example {
    uint32_t src_port;
    uint32_t lid;
};

/* Read-only inputs shared by the workers. */
struct check_plan {
    const struct cs_tracer *t;
    const uint32_t *dests; /* destination LIDs, ascending */
    uint32_t num_dests;
    const uint32_t *sources; /* source CA ports, ascending */
    uint32_t num_sources;
    const uint32_t *source_of_port; /* [port] index in sources[], CS_NONE */
    const uint32_t *source_entry;   /* [source] switch its cable leads to, CS_NONE if none */
    const uint32_t *entry_switches; /* switches some source is cabled to, ascending */
    uint32_t num_entry_switches;
    const uint32_t *entry_sources;  /* [switch] sources cabled to it */
    const uint32_t *direct_sources; /* sources cabled to a CA or router, not a switch */
    uint32_t num_direct_sources;
    const uint64_t *turn_offset; /* [switch] first bit of its (in port, out port) matrix */
    uint64_t turn_words;
    uint32_t max_examples;
    const struct cs_lfts *transition_from;
};

/* One thread's share: a contiguous range of destinations and its own totals. */
struct check_worker {
    const struct check_plan *plan;
    uint32_t first, last; /* dests[first..last) */
    pthread_t thread;
    bool started;

    uint64_t *link_routes;   /* [link] */
    uint64_t *entry_reached; /* [switch] destinations reached from it: its sources' host links */
    uint32_t *self_reached;  /* [source] own LIDs among them (not a route: subtracted) */
    uint64_t *turns;         /* CDG edges as turn bits */
    uint64_t *hist;          /* [hops] */
    uint64_t outcomes[CS_TRACE_OUTCOMES];
    uint64_t pairs;
    struct check_example *examples;
    uint32_t num_examples;

    struct cs_dest_routes d;
    uint64_t *weight; /* [switch] sources whose route to the current LID crosses it */
    uint8_t *columns; /* LFT entries of one 64-LID block, transposed */
};

static inline void set_turn(const struct check_plan *p, uint64_t *turns, uint32_t sw,
                            unsigned in_port, unsigned out_port)
{
    unsigned width = p->t->switch_ports[sw] + 1u;
    uint64_t bit = p->turn_offset[sw] + (uint64_t)in_port * width + out_port;
    turns[bit / 64] |= UINT64_C(1) << (bit % 64);
}

/* Everything one destination contributes. */
static void check_destination(struct check_worker *w, uint32_t lid, const uint8_t *entries)
{
    const struct check_plan *p = w->plan;
    const struct cs_tracer *t = p->t;
    const struct cs_fabric *f = t->fabric;
    struct cs_dest_routes *d = &w->d;
    cs_dest_routes_compute_from(d, t, lid, entries);

    uint32_t own = d->owner_port != CS_NONE ? p->source_of_port[d->owner_port] : CS_NONE;
    uint32_t own_entry = own != CS_NONE ? p->source_entry[own] : CS_NONE;
    w->pairs += p->num_sources - (own != CS_NONE);
    bool failed = false;

    memset(w->weight, 0, (size_t)t->num_switches * sizeof *w->weight);
    for (uint32_t k = 0; k < p->num_entry_switches; k++) {
        uint32_t s = p->entry_switches[k];
        uint64_t count = p->entry_sources[s] - (s == own_entry);
        if (d->outcome[s] == CS_TRACE_DELIVERED) {
            w->entry_reached[s]++;
            w->weight[s] = count;
            w->hist[d->hops[s] + 1] += count;
            w->outcomes[CS_TRACE_DELIVERED] += count;
        } else if (count) {
            w->outcomes[d->outcome[s]] += count;
            failed = true;
        }
    }
    if (own_entry != CS_NONE && d->outcome[own_entry] == CS_TRACE_DELIVERED)
        w->self_reached[own]++;

    for (uint32_t k = 0; k < p->num_direct_sources; k++) {
        uint32_t src = p->direct_sources[k];
        if (src == d->owner_port)
            continue;
        if (f->ports[src].peer == d->owner_port) {
            w->outcomes[CS_TRACE_DELIVERED]++;
            w->hist[1]++;
            w->link_routes[t->links.out[src]]++;
        } else {
            w->outcomes[CS_TRACE_WRONG_DELIVERY]++;
            failed = true;
        }
    }

    /* Farthest first: a switch's weight is complete before it is passed on. This is
     * cs_dest_routes_load with the CDG turns recorded in the same pass (a second pass over the
     * switches for the turns made the check 7% slower). */
    for (uint32_t k = 0; k < d->num_delivered; k++) {
        uint32_t s = d->order[k];
        uint64_t weight = w->weight[s];
        uint32_t link = d->next_link[s];
        if (!weight || link == CS_NONE)
            continue;
        w->link_routes[link] += weight;
        uint32_t next = d->next_switch[s];
        if (next == CS_NONE)
            continue;
        w->weight[next] += weight;
        if (d->next_switch[next] != CS_NONE) {
            uint32_t first = t->switch_first_port[next];
            set_turn(p, w->turns, next, cs_link_to(f, &t->links, link) - first,
                     t->links.from[d->next_link[next]] - first);
        }
    }

    /* Failing pairs in source order, while examples are wanted. */
    for (uint32_t k = 0; failed && k < p->num_sources && w->num_examples < p->max_examples; k++) {
        uint32_t src = p->sources[k];
        if (src == d->owner_port)
            continue;
        uint32_t entry = p->source_entry[k];
        bool ok = entry != CS_NONE ? d->outcome[entry] == CS_TRACE_DELIVERED
                                   : f->ports[src].peer == d->owner_port;
        if (!ok)
            w->examples[w->num_examples++] = (struct check_example){src, lid};
    }
}

static void *check_worker_run(void *arg)
{
    struct check_worker *w = arg;
    const struct check_plan *p = w->plan;
    uint32_t block_first = UINT32_MAX;
    for (uint32_t i = w->first; i < w->last; i++) {
        uint32_t lid = p->dests[i];
        uint32_t first = lid - lid % CS_LFT_BLOCK;
        if (first != block_first) {
            cs_tracer_lft_columns(p->t, first, CS_LFT_BLOCK, w->columns);
            block_first = first;
        }
        check_destination(w, lid, w->columns + (size_t)(lid - first) * p->t->num_switches);
    }
    return NULL;
}

static void worker_free(struct check_worker *w)
{
    free(w->link_routes);
    free(w->entry_reached);
    free(w->self_reached);
    free(w->turns);
    free(w->hist);
    free(w->examples);
    cs_dest_routes_free(&w->d);
    free(w->weight);
    free(w->columns);
}

static int worker_init(struct check_worker *w, const struct check_plan *p, struct cs_error *err)
{
    const struct cs_tracer *t = p->t;
    size_t switches = t->num_switches ? t->num_switches : 1;
    memset(w, 0, sizeof *w);
    w->plan = p;
    w->link_routes = calloc(t->links.count ? t->links.count : 1, sizeof *w->link_routes);
    w->entry_reached = calloc(switches, sizeof *w->entry_reached);
    w->self_reached = calloc(p->num_sources ? p->num_sources : 1, sizeof *w->self_reached);
    w->turns = calloc(p->turn_words ? p->turn_words : 1, sizeof *w->turns);
    w->hist = calloc(switches + 2, sizeof *w->hist);
    w->examples = calloc(p->max_examples ? p->max_examples : 1, sizeof *w->examples);
    w->weight = calloc(switches, sizeof *w->weight);
    w->columns = malloc(switches * CS_LFT_BLOCK);
    if (!w->link_routes || !w->entry_reached || !w->self_reached || !w->turns || !w->hist ||
        !w->examples || !w->weight || !w->columns) {
        worker_free(w);
        return cs_fail(err, "out of memory for the LFT check");
    }
    if (cs_dest_routes_init(&w->d, t, err) < 0) {
        worker_free(w);
        return -1;
    }
    return 0;
}

/* ---- Plan: sources, destinations, turn matrices ---- */

struct plan_storage {
    uint32_t *dests, *sources, *source_of_port, *source_entry, *entry_switches, *entry_sources,
        *direct_sources;
    uint64_t *turn_offset;
};

static void plan_storage_free(struct plan_storage *s)
{
    free(s->dests);
    free(s->sources);
    free(s->source_of_port);
    free(s->source_entry);
    free(s->entry_switches);
    free(s->entry_sources);
    free(s->direct_sources);
    free(s->turn_offset);
}

static int missing_lid(const struct cs_fabric *f, uint32_t port, struct cs_error *err)
{
    const struct cs_port *p = &f->ports[port];
    const struct cs_node *n = &f->nodes[p->node];
    return cs_fail(err,
                   "CA port %u of 0x%016" PRIx64 " ('%s') has no LID: the check needs every CA"
                   " port's LID (a topology with LIDs, a guid2lid file, or a dump that names the"
                   " ports)",
                   p->num, n->guid, n->desc);
}

static int make_plan(struct check_plan *p, struct plan_storage *st, const struct cs_tracer *t,
                     const struct cs_check_options *opt, struct cs_error *err)
{
    const struct cs_fabric *f = t->fabric;
    memset(p, 0, sizeof *p);
    memset(st, 0, sizeof *st);
    p->t = t;
    p->max_examples = opt->max_failures ? opt->max_failures : CS_CHECK_DEFAULT_FAILURES;
    p->transition_from = opt->transition_from;
    size_t switches = t->num_switches ? t->num_switches : 1;
    size_t slots = f->num_port_slots ? f->num_port_slots : 1;
    st->source_of_port = malloc(slots * sizeof *st->source_of_port);
    st->sources = malloc(slots * sizeof *st->sources);
    st->source_entry = malloc(slots * sizeof *st->source_entry);
    st->direct_sources = malloc(slots * sizeof *st->direct_sources);
    st->entry_sources = calloc(switches, sizeof *st->entry_sources);
    st->entry_switches = malloc(switches * sizeof *st->entry_switches);
    st->turn_offset = malloc(switches * sizeof *st->turn_offset);
    st->dests = malloc((t->lid_limit ? t->lid_limit : 1) * sizeof *st->dests);
    if (!st->source_of_port || !st->sources || !st->source_entry || !st->direct_sources ||
        !st->entry_sources || !st->entry_switches || !st->turn_offset || !st->dests)
        return cs_fail(err, "out of memory for the LFT check");

    for (uint32_t i = 0; i < f->num_port_slots; i++) {
        const struct cs_port *port = &f->ports[i];
        st->source_of_port[i] = CS_NONE;
        if (f->nodes[port->node].type != CS_NODE_CA || port->num == 0 || port->peer == CS_NONE)
            continue;
        if (!port->lid && opt->skip_ports_without_lid)
            continue;
        if (!port->lid)
            return missing_lid(f, i, err);
        uint32_t k = p->num_sources++;
        st->source_of_port[i] = k;
        st->sources[k] = i;
        uint32_t entry = cs_tracer_entry_switch(t, i);
        st->source_entry[k] = entry;
        if (entry == CS_NONE)
            st->direct_sources[p->num_direct_sources++] = i;
        else
            st->entry_sources[entry]++;
    }
    for (uint32_t s = 0; s < t->num_switches; s++)
        if (st->entry_sources[s])
            st->entry_switches[p->num_entry_switches++] = s;

    for (uint32_t lid = 1; lid < t->lid_limit; lid++) {
        uint32_t owner = t->lid_owner[lid];
        if (owner == CS_NONE)
            continue;
        const struct cs_port *port = &f->ports[owner];
        bool wanted =
            st->source_of_port[owner] != CS_NONE ||
            (opt->all_lids && (cs_node_is_switch(&f->nodes[port->node]) || port->peer != CS_NONE));
        if (wanted)
            st->dests[p->num_dests++] = lid;
    }

    uint64_t bits = 0;
    for (uint32_t s = 0; s < t->num_switches; s++) {
        uint64_t width = f->nodes[t->switch_node[s]].num_ports + 1u;
        st->turn_offset[s] = bits;
        bits += width * width;
    }
    p->turn_words = (bits + 63) / 64;

    p->dests = st->dests;
    p->sources = st->sources;
    p->source_of_port = st->source_of_port;
    p->source_entry = st->source_entry;
    p->entry_switches = st->entry_switches;
    p->entry_sources = st->entry_sources;
    p->direct_sources = st->direct_sources;
    p->turn_offset = st->turn_offset;
    return 0;
}

static unsigned pick_threads(const struct check_plan *p, const struct cs_check_options *opt)
{
    return cs_threads_for(opt->threads, (uint64_t)p->num_dests * (p->t->num_switches + 1),
                          CHECK_MIN_WORK_PER_THREAD, CHECK_MAX_THREADS, p->num_dests);
}

/* ---- Credit loops: cycles in the channel dependency graph ---- */

struct cdg {
    const struct cs_tracer *t;
    const struct check_plan *p;
    const uint64_t *turns;
};

static inline bool turn_set(const struct cdg *g, uint32_t sw, unsigned in_port, unsigned out_port)
{
    unsigned width = g->t->switch_ports[sw] + 1u;
    uint64_t bit = g->p->turn_offset[sw] + (uint64_t)in_port * width + out_port;
    return (g->turns[bit / 64] >> (bit % 64)) & 1;
}

static bool between_switches(const struct cs_tracer *t, uint32_t link)
{
    uint8_t c = t->links.cls[link];
    return c == CS_LINK_UP || c == CS_LINK_DOWN || c == CS_LINK_FLAT;
}

/* Kahn's algorithm (no recursion: fabrics have 10^5 links), then, if links remain, one cycle
 * found by walking predecessors among them: every remaining link has a remaining predecessor,
 * so the walk must come back to a link it has seen. */
static int find_credit_loop(const struct cdg *g, struct cs_check_result *r, struct cs_error *err)
{
    const struct cs_tracer *t = g->t;
    const struct cs_fabric *f = t->fabric;
    uint32_t nlinks = t->links.count;
    uint32_t *indegree = calloc(nlinks ? nlinks : 1, sizeof *indegree);
    uint32_t *queue = malloc((nlinks ? nlinks : 1) * sizeof *queue);
    uint32_t *seen_at = NULL;
    int rc = -1;
    if (!indegree || !queue)
        goto oom;

    for (uint32_t s = 0; s < t->num_switches; s++) {
        const struct cs_node *node = &f->nodes[t->switch_node[s]];
        for (unsigned in = 1; in <= node->num_ports; in++)
            for (unsigned out = 1; out <= node->num_ports; out++)
                if (turn_set(g, s, in, out)) {
                    indegree[t->links.out[node->first_port + out]]++;
                    r->cdg_edges++;
                }
    }
    uint32_t head = 0, tail = 0;
    for (uint32_t l = 0; l < nlinks; l++) {
        if (!between_switches(t, l))
            continue;
        r->cdg_vertices++;
        if (!indegree[l])
            queue[tail++] = l;
    }
    while (head < tail) {
        uint32_t l = queue[head++];
        uint32_t to = cs_link_to(f, &t->links, l);
        uint32_t s = t->node_switch[f->ports[to].node];
        const struct cs_node *node = &f->nodes[t->switch_node[s]];
        unsigned in = f->ports[to].num;
        for (unsigned out = 1; out <= node->num_ports; out++)
            if (turn_set(g, s, in, out)) {
                uint32_t next = t->links.out[node->first_port + out];
                if (--indegree[next] == 0)
                    queue[tail++] = next;
            }
    }
    if (tail == r->cdg_vertices) {
        rc = 0;
        goto done;
    }

    r->credit_loop = true;
    uint32_t start = CS_NONE;
    for (uint32_t l = 0; l < nlinks && start == CS_NONE; l++)
        if (indegree[l])
            start = l;
    seen_at = malloc((nlinks ? nlinks : 1) * sizeof *seen_at);
    if (!seen_at)
        goto oom;
    for (uint32_t l = 0; l < nlinks; l++)
        seen_at[l] = CS_NONE;
    uint32_t *walk = queue; /* the queue is spent; reuse it */
    uint32_t len = 0, l = start;
    while (seen_at[l] == CS_NONE) {
        seen_at[l] = len;
        walk[len++] = l;
        /* l leaves switch s at port `out`: a predecessor enters s at a port `in` turning to it */
        uint32_t from = t->links.from[l];
        uint32_t s = t->node_switch[f->ports[from].node];
        const struct cs_node *node = &f->nodes[t->switch_node[s]];
        uint32_t pred = CS_NONE;
        for (unsigned in = 1; in <= node->num_ports && pred == CS_NONE; in++) {
            uint32_t peer = f->ports[node->first_port + in].peer;
            if (peer == CS_NONE || !turn_set(g, s, in, f->ports[from].num))
                continue;
            uint32_t candidate = t->links.out[peer];
            if (indegree[candidate])
                pred = candidate;
        }
        l = pred; /* never CS_NONE: see above */
    }
    /* walk[seen_at[l]..len) is the cycle against the dependency direction: reverse it. */
    uint32_t first = seen_at[l];
    r->credit_cycle_len = len - first;
    r->credit_cycle = malloc(r->credit_cycle_len * sizeof *r->credit_cycle);
    if (!r->credit_cycle)
        goto oom;
    for (uint32_t k = 0; k < r->credit_cycle_len; k++)
        r->credit_cycle[k] = walk[len - 1 - k];
    /* Start at the lowest link id, so that the cycle reads the same whatever the walk's start. */
    uint32_t lowest = 0;
    for (uint32_t k = 1; k < r->credit_cycle_len; k++)
        if (r->credit_cycle[k] < r->credit_cycle[lowest])
            lowest = k;
    for (uint32_t k = 0; k < r->credit_cycle_len; k++)
        queue[k] = r->credit_cycle[(lowest + k) % r->credit_cycle_len];
    memcpy(r->credit_cycle, queue, r->credit_cycle_len * sizeof *queue);
    rc = 0;
    goto done;
oom:
    cs_fail(err, "out of memory for the channel dependency graph of %u links", nlinks);
done:
    free(indegree);
    free(queue);
    free(seen_at);
    return rc;
}

/* ---- Transitions: old and new entries together ---- */

/* The link switch s forwards on through port, CS_NONE unless it leads to another switch. */
static uint32_t switch_link(const struct cs_tracer *t, uint32_t s, uint8_t port)
{
    if (port == 0 || port > t->switch_ports[s])
        return CS_NONE;
    uint32_t from = t->switch_first_port[s] + port;
    return t->peer_switch[from] != CS_NONE ? t->links.out[from] : CS_NONE;
}

/* For every destination whose entries differ between the old tables and the tracer's, the union
 * routing function (each switch may use either entry): breadth first over the links a packet
 * from a source's switch can take, recording each turn at the switch a link enters. */
static int add_transition_turns(const struct check_plan *p, uint64_t *turns,
                                struct cs_check_result *r, struct cs_error *err)
{
    const struct cs_tracer *t = p->t;
    const struct cs_fabric *f = t->fabric;
    const struct cs_lfts *old = p->transition_from;
    struct cs_key_index by_guid;
    cs_key_index_init(&by_guid);
    uint32_t *old_table = calloc(t->num_switches + 1u, sizeof *old_table);
    uint32_t *seen = calloc(t->links.count + 1u, sizeof *seen);
    uint32_t *queue = malloc((t->links.count + 1u) * sizeof *queue);
    int rc = -1;
    if (!old_table || !seen || !queue) {
        cs_fail(err, "out of memory for the transition check");
        goto done;
    }
    for (uint32_t k = 0; k < old->num_switches; k++)
        if (cs_key_index_add(&by_guid, old->switches[k].guid, k, err) < 0)
            goto done;
    cs_key_index_sort(&by_guid);
    for (uint32_t s = 0; s < t->num_switches; s++)
        old_table[s] = cs_key_index_find(&by_guid, f->nodes[t->switch_node[s]].guid);
    for (uint32_t i = 0; i < p->num_dests; i++) {
        uint32_t lid = p->dests[i];
        bool differs = false;
        for (uint32_t s = 0; s < t->num_switches && !differs; s++) {
            uint32_t table = t->switch_table[s];
            uint8_t now = table == CS_NONE ? CS_LFT_NO_ROUTE : cs_lfts_get(t->lfts, table, lid);
            uint8_t before =
                old_table[s] == CS_NONE ? CS_LFT_NO_ROUTE : cs_lfts_get(old, old_table[s], lid);
            differs = now != before;
        }
        if (!differs)
            continue;
        r->transition_lids++;
        uint32_t epoch = r->transition_lids, head = 0, tail = 0;
        for (uint32_t k = 0; k < p->num_entry_switches; k++) {
            uint32_t s = p->entry_switches[k];
            for (unsigned which = 0; which < 2; which++) {
                uint32_t table = which ? old_table[s] : t->switch_table[s];
                const struct cs_lfts *set = which ? old : t->lfts;
                uint32_t link =
                    table == CS_NONE ? CS_NONE : switch_link(t, s, cs_lfts_get(set, table, lid));
                if (link != CS_NONE && seen[link] != epoch) {
                    seen[link] = epoch;
                    queue[tail++] = link;
                }
            }
        }
        while (head < tail) {
            uint32_t link = queue[head++];
            uint32_t to = cs_link_to(f, &t->links, link);
            uint32_t s = t->node_switch[f->ports[to].node];
            for (unsigned which = 0; which < 2; which++) {
                uint32_t table = which ? old_table[s] : t->switch_table[s];
                const struct cs_lfts *set = which ? old : t->lfts;
                uint8_t port = table == CS_NONE ? CS_LFT_NO_ROUTE : cs_lfts_get(set, table, lid);
                uint32_t next = switch_link(t, s, port);
                if (next == CS_NONE)
                    continue;
                set_turn(p, turns, s, f->ports[to].num, port);
                if (seen[next] != epoch) {
                    seen[next] = epoch;
                    queue[tail++] = next;
                }
            }
        }
    }
    rc = 0;
done:
    cs_key_index_free(&by_guid);
    free(old_table);
    free(seen);
    free(queue);
    return rc;
}

/* ---- Results ---- */

void cs_link_stats_of(const struct cs_links *links, const uint64_t *values, unsigned class_mask,
                      struct cs_link_stats *out)
{
    memset(out, 0, sizeof *out);
    double sum = 0;
    for (uint32_t l = 0; l < links->count; l++) {
        if (!(class_mask & (1u << links->cls[l])))
            continue;
        uint64_t v = values[l];
        if (!out->links || v < out->min)
            out->min = v;
        if (v > out->max)
            out->max = v;
        out->links++;
        sum += (double)v;
    }
    if (!out->links)
        return;
    out->spread = out->max - out->min;
    out->mean = sum / out->links;
    double squares = 0;
    for (uint32_t l = 0; l < links->count; l++)
        if (class_mask & (1u << links->cls[l])) {
            double dev = (double)values[l] - out->mean;
            squares += dev * dev;
        }
    out->stddev = sqrt(squares / out->links);
}

static int describe_failures(struct cs_check_result *r, const struct cs_tracer *t,
                             const struct check_example *examples, uint32_t count,
                             struct cs_error *err)
{
    r->failures = calloc(count ? count : 1, sizeof *r->failures);
    if (!r->failures)
        return cs_fail(err, "out of memory for the check's failures");
    uint32_t loop_cap = 0;
    for (uint32_t i = 0; i < count; i++) {
        struct cs_check_failure *fl = &r->failures[i];
        fl->src_port = examples[i].src_port;
        fl->lid = examples[i].lid;
        if (cs_trace_route(t, fl->src_port, fl->lid, &fl->trace, NULL, 0, err) < 0)
            return -1;
        r->num_failures++;
        if (fl->trace.outcome != CS_TRACE_LOOP)
            continue;
        uint32_t len = cs_trace_loop(t, fl->lid, fl->trace.fault_node, NULL, 0);
        if (cs_grow((void **)&r->loop_nodes, &loop_cap, (uint64_t)r->num_loop_nodes + len,
                    sizeof *r->loop_nodes, err) < 0)
            return -1;
        fl->loop_first = r->num_loop_nodes;
        fl->loop_count =
            cs_trace_loop(t, fl->lid, fl->trace.fault_node, r->loop_nodes + r->num_loop_nodes, len);
        r->num_loop_nodes += fl->loop_count;
    }
    return 0;
}

static int merge(struct cs_check_result *r, const struct check_plan *p,
                 struct check_worker *workers, unsigned threads, struct cs_error *err)
{
    const struct cs_tracer *t = p->t;
    struct check_worker *total = &workers[0];
    for (unsigned i = 1; i < threads; i++) {
        struct check_worker *w = &workers[i];
        for (uint32_t l = 0; l < t->links.count; l++)
            total->link_routes[l] += w->link_routes[l];
        for (uint32_t s = 0; s < t->num_switches; s++)
            total->entry_reached[s] += w->entry_reached[s];
        for (uint32_t k = 0; k < p->num_sources; k++)
            total->self_reached[k] += w->self_reached[k];
        for (uint64_t k = 0; k < p->turn_words; k++)
            total->turns[k] |= w->turns[k];
        for (uint32_t h = 0; h < t->num_switches + 2; h++)
            total->hist[h] += w->hist[h];
        for (unsigned o = 0; o < CS_TRACE_OUTCOMES; o++)
            total->outcomes[o] += w->outcomes[o];
        total->pairs += w->pairs;
        for (uint32_t k = 0; k < w->num_examples && total->num_examples < p->max_examples; k++)
            total->examples[total->num_examples++] = w->examples[k];
    }
    /* A source's host link carries a route to every destination its switch reaches, but its own
     * LIDs. */
    for (uint32_t k = 0; k < p->num_sources; k++) {
        uint32_t entry = p->source_entry[k];
        if (entry != CS_NONE)
            total->link_routes[t->links.out[p->sources[k]]] +=
                total->entry_reached[entry] - total->self_reached[k];
    }

    r->sources = p->num_sources;
    r->destinations = p->num_dests;
    r->pairs = total->pairs;
    memcpy(r->outcomes, total->outcomes, sizeof r->outcomes);
    r->delivered = r->outcomes[CS_TRACE_DELIVERED];
    r->loops = r->outcomes[CS_TRACE_LOOP];
    r->wrong_deliveries = r->outcomes[CS_TRACE_WRONG_DELIVERY];
    for (unsigned o = 0; o < CS_TRACE_OUTCOMES; o++)
        if (cs_trace_is_black_hole((enum cs_trace_outcome)o))
            r->black_holes += r->outcomes[o];
    r->unreachable = r->loops + r->black_holes + r->wrong_deliveries;

    uint32_t len = t->num_switches + 2;
    while (len && !total->hist[len - 1])
        len--;
    r->hops_histogram_len = len;
    r->hops_histogram = total->hist; /* taken over; worker_free must not free it */
    total->hist = NULL;
    double sum = 0;
    for (uint32_t h = 0; h < len; h++) {
        if (!r->hops_histogram[h])
            continue;
        if (!r->hops_max || h < r->hops_min)
            r->hops_min = h;
        r->hops_max = h;
        sum += (double)h * (double)r->hops_histogram[h];
    }
    r->hops_mean = r->delivered ? sum / (double)r->delivered : 0;

    r->num_links = t->links.count;
    r->link_routes = total->link_routes;
    total->link_routes = NULL;
    for (unsigned c = 0; c < CS_LINK_CLASSES; c++)
        cs_link_stats_of(&t->links, r->link_routes, 1u << c, &r->classes[c]);
    cs_link_stats_of(&t->links, r->link_routes,
                     (1u << CS_LINK_UP) | (1u << CS_LINK_DOWN) | (1u << CS_LINK_FLAT),
                     &r->switch_links);

    struct cdg g = {t, p, total->turns};
    if ((p->transition_from && add_transition_turns(p, total->turns, r, err) < 0) ||
        find_credit_loop(&g, r, err) < 0 ||
        describe_failures(r, t, total->examples, total->num_examples, err) < 0)
        return -1;
    r->ok = r->unreachable == 0 && !r->credit_loop;
    return 0;
}

int cs_check_lfts(const struct cs_tracer *t, const struct cs_check_options *opt,
                  struct cs_check_result *r, struct cs_error *err)
{
    static const struct cs_check_options defaults = {0};
    memset(r, 0, sizeof *r);
    if (!opt)
        opt = &defaults;
    struct check_plan p;
    struct plan_storage st;
    if (make_plan(&p, &st, t, opt, err) < 0) {
        plan_storage_free(&st);
        return -1;
    }
    unsigned threads = pick_threads(&p, opt);
    struct check_worker *workers = calloc(threads, sizeof *workers);
    int rc = -1;
    unsigned ready = 0;
    if (!workers) {
        cs_fail(err, "out of memory for the LFT check");
        goto done;
    }
    for (; ready < threads; ready++) {
        if (worker_init(&workers[ready], &p, err) < 0)
            goto done;
        workers[ready].first = (uint32_t)((uint64_t)p.num_dests * ready / threads);
        workers[ready].last = (uint32_t)((uint64_t)p.num_dests * (ready + 1) / threads);
    }
    /* Worker 0 runs here; a thread that cannot be started runs here too (same result). */
    for (unsigned i = 1; i < threads; i++)
        workers[i].started =
            pthread_create(&workers[i].thread, NULL, check_worker_run, &workers[i]) == 0;
    check_worker_run(&workers[0]);
    for (unsigned i = 1; i < threads; i++) {
        if (workers[i].started)
            pthread_join(workers[i].thread, NULL);
        else
            check_worker_run(&workers[i]);
    }
    r->threads_used = threads;
    rc = merge(r, &p, workers, threads, err);
done:
    for (unsigned i = 0; i < ready; i++)
        worker_free(&workers[i]);
    free(workers);
    plan_storage_free(&st);
    if (rc < 0)
        cs_check_result_free(r);
    return rc;
}

void cs_check_result_free(struct cs_check_result *r)
{
    free(r->hops_histogram);
    free(r->link_routes);
    free(r->credit_cycle);
    free(r->failures);
    free(r->loop_nodes);
    memset(r, 0, sizeof *r);
}

int cs_check_write_links_csv(FILE *out, const struct cs_tracer *t, const struct cs_check_result *r,
                             struct cs_error *err)
{
    struct cs_outbuf o;
    if (cs_outbuf_init(&o, out, err) < 0)
        return -1;
    cs_outbuf_str(&o, CS_LINK_CSV_ENDS ",routes\n");
    for (uint32_t l = 0; l < r->num_links && l < t->links.count; l++) {
        cs_link_csv_ends(&o, t, l);
        cs_outbuf_char(&o, ',');
        cs_outbuf_dec(&o, r->link_routes[l]);
        cs_outbuf_char(&o, '\n');
    }
    return cs_outbuf_finish(&o, "the per-link CSV", err);
}

/* ---- LIDs from a dump ---- */

int cs_lids_from_lfts(struct cs_fabric *f, const struct cs_lfts *lfts, struct cs_error *err)
{
    struct cs_guid2lid map = {0};
    struct cs_key_index seen;
    cs_key_index_init(&seen);
    int rc = -1;
    /* Each LID's target, consecutive LIDs of one port merged into its range; then switch
     * headers for LIDs no comment names (ibroute headers carry no LID, OpenSM's do). */
    uint32_t limit =
        (uint32_t)lfts->max_lid + 1 < lfts->capacity ? (uint32_t)lfts->max_lid + 1 : lfts->capacity;
    for (uint32_t pass = 0; pass < 2; pass++) {
        uint32_t count = pass == 0 ? limit : lfts->num_switches;
        for (uint32_t i = 0; i < count; i++) {
            uint64_t guid;
            uint32_t lid;
            if (pass == 0) {
                guid = lfts->targets[i].port_guid;
                lid = i;
            } else {
                guid = lfts->switches[i].guid;
                lid = lfts->switches[i].lid;
                if (lid < limit && lfts->targets[lid].port_guid)
                    continue;
            }
            if (!guid || !lid)
                continue;
            struct cs_guid2lid_entry *last = map.count ? &map.entries[map.count - 1] : NULL;
            if (pass == 0 && last && last->guid == guid && last->max_lid + 1u == lid) {
                last->max_lid = (uint16_t)lid;
                continue;
            }
            if (cs_grow((void **)&map.entries, &map.capacity, (uint64_t)map.count + 1,
                        sizeof *map.entries, err) < 0 ||
                cs_key_index_add(&seen, guid, map.count, err) < 0)
                goto done;
            map.entries[map.count++] =
                (struct cs_guid2lid_entry){guid, (uint16_t)lid, (uint16_t)lid};
        }
    }
    cs_key_index_sort(&seen);
    uint64_t guid;
    uint32_t a, b;
    if (cs_key_index_duplicate(&seen, &guid, &a, &b)) {
        cs_fail(err, "the LFT dump names port 0x%016" PRIx64 " at LID 0x%04x and at LID 0x%04x",
                guid, map.entries[a].min_lid, map.entries[b].min_lid);
        goto done;
    }
    rc = cs_guid2lid_apply(&map, f, err);
done:
    cs_key_index_free(&seen);
    cs_guid2lid_free(&map);
    return rc;
}
