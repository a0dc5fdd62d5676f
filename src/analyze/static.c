/* Static route metrics per directed link: partition flows, contention of receivers, and
 * inter-partition interference (include/cloudsm/static_metrics.h, docs/analysis.md).
 *
 * Like the all-pairs check, the work is per destination: for one destination LID every switch
 * has one next hop (cs_dest_routes), so the flows of a partition towards it are counted by giving
 * each switch the number of the partition's members cabled to it (their routes start there) and
 * passing the counts along the chains (cs_dest_routes_load). A destination costs O(switches) per
 * partition it is in, not O(members x hops). A member's own cable into the fabric carries one
 * flow per destination its switch reaches, so those are counted per switch and added at the end.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/link_csv.h"
#include "cloudsm/static_metrics.h"
#include "core/grow.h"
#include "io/outbuf.h"

struct counted {
    uint16_t pkey;
    uint32_t set_index;
    const struct cs_partition_port *members;
    uint32_t count;
};

/* A port's membership in one counted partition. */
struct membership {
    uint32_t partition;
    bool full;
};

struct work {
    const struct cs_tracer *t;
    struct counted *parts;
    uint32_t num_parts;
    struct cs_partition_port *implicit; /* the all-CA partition's members, when no set is given */
    uint32_t *entry;                    /* [port] switch its routes start at (CS_NONE if none) */
    uint32_t *member_first;             /* [port] first entry in memberships[], CSR */
    struct membership *memberships;
    uint32_t *dests; /* member ports, by base LID */
    uint32_t num_dests;
    uint32_t *w_all, *w_full;             /* [p * S + s] members (full members) starting at s */
    uint32_t *reached_all, *reached_full; /* [p * S + s] destinations (full ones) s delivers */
    struct cs_partition_port **direct;    /* [p] members cabled to a CA or router, no switch */
    uint32_t *num_direct, *direct_capacity;
    uint8_t *self_delivered; /* [port] its own switch delivers its LID */
    uint8_t *receiver;       /* [port] a receiver */
    uint32_t *stamp;         /* [link] serial of the last receiver counted on it */
    uint64_t *weight;        /* [switch] */
    uint8_t *columns;        /* LFT entries of one 64-LID block, transposed */
    struct cs_dest_routes d;
};

static void work_free(struct work *w)
{
    free(w->parts);
    free(w->implicit);
    free(w->entry);
    free(w->member_first);
    free(w->memberships);
    free(w->dests);
    free(w->w_all);
    free(w->w_full);
    free(w->reached_all);
    free(w->reached_full);
    if (w->direct)
        for (uint32_t p = 0; p < w->num_parts; p++)
            free(w->direct[p]);
    free(w->direct);
    free(w->num_direct);
    free(w->direct_capacity);
    free(w->self_delivered);
    free(w->receiver);
    free(w->stamp);
    free(w->weight);
    free(w->columns);
    cs_dest_routes_free(&w->d);
}

/* The partitions to count. */
static int choose_partitions(struct work *w, const struct cs_static_options *opt,
                             struct cs_error *err)
{
    const struct cs_fabric *f = w->t->fabric;
    const struct cs_partition_set *set = opt->partitions;
    w->parts = cs_calloc_array(set ? set->count + 1 : 1, sizeof *w->parts, err);
    if (!w->parts)
        return -1;
    if (set) {
        for (uint32_t i = 0; i < set->count; i++) {
            const struct cs_resolved_partition *rp = &set->partitions[i];
            if (rp->pkey == CS_PKEY_DEFAULT && !opt->include_default)
                continue;
            w->parts[w->num_parts++] =
                (struct counted){rp->pkey, i, set->ports + rp->first, rp->count};
        }
        return 0;
    }
    w->implicit = cs_calloc_array(f->num_port_slots, sizeof *w->implicit, err);
    if (!w->implicit)
        return -1;
    uint32_t n = 0;
    for (uint32_t i = 0; i < f->num_port_slots; i++) {
        const struct cs_port *p = &f->ports[i];
        if (f->nodes[p->node].type == CS_NODE_CA && p->num && p->peer != CS_NONE)
            w->implicit[n++] = (struct cs_partition_port){i, CS_MEMBER_FULL};
    }
    w->parts[w->num_parts++] = (struct counted){0, CS_NONE, w->implicit, n};
    return 0;
}

static int compare_by_lid(const void *a, const void *b, void *ctx)
{
    const struct cs_fabric *f = ctx;
    uint32_t x = f->ports[*(const uint32_t *)a].lid, y = f->ports[*(const uint32_t *)b].lid;
    return (x > y) - (x < y);
}

static int no_lid(const struct cs_fabric *f, uint32_t port, uint16_t pkey, struct cs_error *err)
{
    const struct cs_port *p = &f->ports[port];
    const struct cs_node *n = &f->nodes[p->node];
    return cs_fail(err,
                   "port %u of 0x%016" PRIx64 " ('%s'), a member of partition 0x%04x, has no LID",
                   p->num, n->guid, n->desc, pkey);
}

/* Memberships per port, destinations by LID, member counts per starting switch. */
static int plan(struct work *w, const struct cs_static_options *opt, struct cs_error *err)
{
    const struct cs_tracer *t = w->t;
    const struct cs_fabric *f = t->fabric;
    size_t ports = f->num_port_slots, S = t->num_switches, P = w->num_parts;
    w->entry = cs_calloc_array(ports, sizeof *w->entry, err);
    w->member_first = cs_calloc_array(ports + 1, sizeof *w->member_first, err);
    w->dests = cs_calloc_array(ports, sizeof *w->dests, err);
    w->w_all = cs_calloc_array(P * S, sizeof *w->w_all, err);
    w->w_full = cs_calloc_array(P * S, sizeof *w->w_full, err);
    w->reached_all = cs_calloc_array(P * S, sizeof *w->reached_all, err);
    w->reached_full = cs_calloc_array(P * S, sizeof *w->reached_full, err);
    w->direct = cs_calloc_array(P, sizeof *w->direct, err);
    w->num_direct = cs_calloc_array(P, sizeof *w->num_direct, err);
    w->direct_capacity = cs_calloc_array(P, sizeof *w->direct_capacity, err);
    w->self_delivered = cs_calloc_array(ports, 1, err);
    w->receiver = cs_calloc_array(ports, 1, err);
    w->stamp = cs_calloc_array(t->links.count, sizeof *w->stamp, err);
    w->weight = cs_calloc_array(S, sizeof *w->weight, err);
    w->columns = cs_calloc_array(S * CS_LFT_BLOCK, 1, err);
    if (!w->entry || !w->member_first || !w->dests || !w->w_all || !w->w_full || !w->reached_all ||
        !w->reached_full || !w->direct || !w->num_direct || !w->direct_capacity ||
        !w->self_delivered || !w->receiver || !w->stamp || !w->weight || !w->columns ||
        cs_dest_routes_init(&w->d, t, err) < 0)
        return -1;
    for (size_t i = 0; i < ports; i++)
        w->entry[i] = cs_tracer_entry_switch(t, (uint32_t)i);

    uint64_t total = 0;
    for (uint32_t p = 0; p < P; p++) {
        const struct counted *c = &w->parts[p];
        total += c->count;
        for (uint32_t k = 0; k < c->count; k++) {
            uint32_t port = c->members[k].port;
            if (!f->ports[port].lid)
                return no_lid(f, port, c->pkey, err);
            w->member_first[port + 1]++;
            bool full = c->members[k].membership & CS_MEMBER_FULL;
            uint32_t s = w->entry[port];
            if (s != CS_NONE) {
                w->w_all[p * S + s]++;
                w->w_full[p * S + s] += full;
            } else if (f->ports[port].peer != CS_NONE) {
                if (cs_grow((void **)&w->direct[p], &w->direct_capacity[p],
                            (uint64_t)w->num_direct[p] + 1, sizeof **w->direct, err) < 0)
                    return -1;
                w->direct[p][w->num_direct[p]++] = c->members[k];
            }
        }
    }
    if (total > UINT32_MAX)
        return cs_fail(err, "too many partition memberships (%" PRIu64 ")", total);
    for (size_t i = 0; i < ports; i++) {
        if (w->member_first[i + 1])
            w->dests[w->num_dests++] = (uint32_t)i;
        w->member_first[i + 1] += w->member_first[i];
    }
    w->memberships = cs_calloc_array(total, sizeof *w->memberships, err);
    uint32_t *fill = cs_calloc_array(ports, sizeof *fill, err);
    if (!w->memberships || !fill) {
        free(fill);
        return -1;
    }
    for (uint32_t p = 0; p < P; p++)
        for (uint32_t k = 0; k < w->parts[p].count; k++) {
            const struct cs_partition_port *m = &w->parts[p].members[k];
            w->memberships[w->member_first[m->port] + fill[m->port]++] =
                (struct membership){p, (m->membership & CS_MEMBER_FULL) != 0};
        }
    free(fill);
    qsort_r(w->dests, w->num_dests, sizeof *w->dests, compare_by_lid, (void *)f);
    for (uint32_t i = 0; i < opt->num_receivers; i++)
        if (opt->receivers[i] < ports)
            w->receiver[opt->receivers[i]] = 1;
    return 0;
}

static inline void stamp_link(struct work *w, uint32_t link, uint32_t serial, uint32_t *count)
{
    if (link != CS_NONE && w->stamp[link] != serial) {
        w->stamp[link] = serial;
        count[link]++;
    }
}

/* Links the flows of partition p to the current destination cross, for a receiver. */
static void stamp_receiver(struct work *w, uint32_t p, uint32_t dest, bool dest_full,
                           uint32_t serial, uint32_t *receivers)
{
    const struct cs_tracer *t = w->t;
    const struct cs_dest_routes *d = &w->d;
    for (uint32_t k = 0; k < d->num_delivered; k++) {
        uint32_t s = d->order[k];
        if (w->weight[s])
            stamp_link(w, d->next_link[s], serial, receivers);
    }
    const struct counted *c = &w->parts[p];
    for (uint32_t k = 0; k < c->count; k++) {
        uint32_t src = c->members[k].port;
        bool src_full = c->members[k].membership & CS_MEMBER_FULL;
        if (src == dest || !(src_full || dest_full))
            continue;
        uint32_t e = w->entry[src];
        /* (A member cabled to no switch is delivered only to the port at its other end.) */
        bool delivered =
            e != CS_NONE ? d->outcome[e] == CS_TRACE_DELIVERED : t->fabric->ports[src].peer == dest;
        if (delivered)
            stamp_link(w, t->links.out[src], serial, receivers);
    }
}

/* Every flow towards one destination port (its LFT entries are in the current dest routes). */
static void count_destination(struct work *w, struct cs_static_result *r, uint32_t dest,
                              uint32_t serial)
{
    const struct cs_tracer *t = w->t;
    const struct cs_dest_routes *d = &w->d;
    size_t S = t->num_switches, L = t->links.count;
    uint32_t e_dest = w->entry[dest];
    w->self_delivered[dest] = e_dest != CS_NONE && d->outcome[e_dest] == CS_TRACE_DELIVERED;
    for (uint32_t k = w->member_first[dest]; k < w->member_first[dest + 1]; k++) {
        uint32_t p = w->memberships[k].partition;
        bool dest_full = w->memberships[k].full;
        struct cs_static_partition *sp = &r->partitions[p];
        uint64_t *load = r->partition_link_flows + p * L;
        /* A full destination hears from every member, a limited one from full members only
         * (limited members cannot talk to each other); not from itself. */
        const uint32_t *start = (dest_full ? w->w_all : w->w_full) + p * S;
        uint32_t *reached_all = w->reached_all + p * S, *reached_full = w->reached_full + p * S;
        for (size_t s = 0; s < S; s++) {
            uint64_t n = start[s] - (s == e_dest && dest_full);
            if (d->outcome[s] == CS_TRACE_DELIVERED) {
                w->weight[s] = n;
                sp->flows += n;
                reached_all[s]++;
                reached_full[s] += dest_full;
            } else {
                w->weight[s] = 0;
                sp->undelivered += n;
            }
        }
        cs_dest_routes_load(d, w->weight, load);
        for (uint32_t i = 0; i < w->num_direct[p]; i++) {
            const struct cs_partition_port *src = &w->direct[p][i];
            if (src->port == dest || !(dest_full || (src->membership & CS_MEMBER_FULL)))
                continue;
            if (t->fabric->ports[src->port].peer == dest) {
                load[t->links.out[src->port]]++;
                sp->flows++;
            } else {
                sp->undelivered++;
            }
        }
        if (w->receiver[dest] && r->link_receivers)
            stamp_receiver(w, p, dest, dest_full, serial, r->link_receivers);
    }
}

/* Each member's cable into the fabric carries one flow per destination its switch delivers
 * that it may talk to, but itself. */
static void count_host_links(struct work *w, struct cs_static_result *r)
{
    const struct cs_tracer *t = w->t;
    size_t S = t->num_switches, L = t->links.count;
    for (uint32_t p = 0; p < w->num_parts; p++) {
        const struct counted *c = &w->parts[p];
        for (uint32_t k = 0; k < c->count; k++) {
            uint32_t port = c->members[k].port, e = w->entry[port], link = t->links.out[port];
            if (e == CS_NONE || link == CS_NONE)
                continue; /* switch port 0 (routes start inside), or handled as direct */
            bool full = c->members[k].membership & CS_MEMBER_FULL;
            uint64_t n = full ? w->reached_all[p * S + e] - w->self_delivered[port]
                              : w->reached_full[p * S + e];
            r->partition_link_flows[p * L + link] += n;
        }
    }
}

static void summarize(const struct cs_tracer *t, const struct cs_static_result *r, unsigned mask,
                      struct cs_static_class *out)
{
    memset(out, 0, sizeof *out);
    cs_link_stats_of(&t->links, r->link_flows, mask, &out->flows);
    for (uint32_t l = 0; l < r->num_links; l++) {
        if (!(mask & (1u << t->links.cls[l])))
            continue;
        uint32_t receivers = r->link_receivers ? r->link_receivers[l] : 0;
        if (receivers >= 2) {
            out->contention += receivers - 1;
            out->contended_links++;
        }
        if (r->link_partitions[l] >= 2) {
            out->interference += r->link_flows[l];
            out->shared_links++;
        }
    }
}

static void totals(const struct cs_tracer *t, struct cs_static_result *r)
{
    size_t L = r->num_links;
    for (uint32_t p = 0; p < r->num_partitions; p++) {
        const uint64_t *load = r->partition_link_flows + p * L;
        for (size_t l = 0; l < L; l++) {
            r->link_flows[l] += load[l];
            r->link_partitions[l] += load[l] != 0;
        }
    }
    for (uint32_t p = 0; p < r->num_partitions; p++) {
        struct cs_static_partition *sp = &r->partitions[p];
        const uint64_t *load = r->partition_link_flows + p * L;
        for (size_t l = 0; l < L; l++) {
            if (!load[l])
                continue;
            sp->links++;
            if (r->link_partitions[l] >= 2) {
                sp->shared_links++;
                sp->interference += load[l];
            }
        }
        r->flows += sp->flows;
        r->undelivered += sp->undelivered;
    }
    for (unsigned c = 0; c < CS_LINK_CLASSES; c++)
        summarize(t, r, 1u << c, &r->classes[c]);
    summarize(t, r, (1u << CS_LINK_UP) | (1u << CS_LINK_DOWN) | (1u << CS_LINK_FLAT),
              &r->switch_links);
    summarize(t, r, (1u << CS_LINK_CLASSES) - 1, &r->all);
}

int cs_static_metrics(const struct cs_tracer *t, const struct cs_static_options *opt,
                      struct cs_static_result *r, struct cs_error *err)
{
    static const struct cs_static_options defaults = {0};
    if (!opt)
        opt = &defaults;
    memset(r, 0, sizeof *r);
    struct work w = {.t = t};
    int rc = -1;
    if (choose_partitions(&w, opt, err) < 0)
        goto done;
    size_t L = t->links.count;
    if ((uint64_t)w.num_parts * L > CS_STATIC_MAX_COUNTERS) {
        cs_fail(err, "%u partitions x %zu links is too many counters for the static metrics",
                w.num_parts, L);
        goto done;
    }
    r->num_links = t->links.count;
    r->num_partitions = w.num_parts;
    r->partitions = cs_calloc_array(w.num_parts, sizeof *r->partitions, err);
    r->link_flows = cs_calloc_array(L, sizeof *r->link_flows, err);
    r->partition_link_flows = cs_calloc_array((size_t)w.num_parts * L, sizeof *r->link_flows, err);
    r->link_partitions = cs_calloc_array(L, sizeof *r->link_partitions, err);
    if (opt->num_receivers)
        r->link_receivers = cs_calloc_array(L, sizeof *r->link_receivers, err);
    if (!r->partitions || !r->link_flows || !r->partition_link_flows || !r->link_partitions ||
        (opt->num_receivers && !r->link_receivers) || plan(&w, opt, err) < 0)
        goto done;
    for (uint32_t p = 0; p < w.num_parts; p++)
        r->partitions[p] = (struct cs_static_partition){.pkey = w.parts[p].pkey,
                                                        .set_index = w.parts[p].set_index,
                                                        .members = w.parts[p].count};

    uint32_t block_first = UINT32_MAX, serial = 0;
    size_t S = t->num_switches;
    for (uint32_t i = 0; i < w.num_dests; i++) {
        uint32_t dest = w.dests[i], lid = t->fabric->ports[dest].lid;
        uint32_t first = lid - lid % CS_LFT_BLOCK;
        if (first != block_first) {
            cs_tracer_lft_columns(t, first, CS_LFT_BLOCK, w.columns);
            block_first = first;
        }
        cs_dest_routes_compute_from(&w.d, t, lid, w.columns + (size_t)(lid - first) * S);
        if (w.receiver[dest]) {
            serial++;
            r->receivers++;
        }
        count_destination(&w, r, dest, serial);
    }
    count_host_links(&w, r);
    totals(t, r);
    rc = 0;
done:
    work_free(&w);
    if (rc < 0)
        cs_static_result_free(r);
    return rc;
}

void cs_static_result_free(struct cs_static_result *r)
{
    free(r->partitions);
    free(r->link_flows);
    free(r->partition_link_flows);
    free(r->link_partitions);
    free(r->link_receivers);
    memset(r, 0, sizeof *r);
}

int cs_static_write_links_csv(FILE *out, const struct cs_tracer *t,
                              const struct cs_static_result *r, struct cs_error *err)
{
    struct cs_outbuf o;
    if (cs_outbuf_init(&o, out, err) < 0)
        return -1;
    cs_outbuf_str(&o, CS_LINK_CSV_ENDS ",flows,partitions,receivers,pkeys\n");
    for (uint32_t l = 0; l < r->num_links && l < t->links.count; l++) {
        cs_link_csv_ends(&o, t, l);
        cs_outbuf_char(&o, ',');
        cs_outbuf_dec(&o, r->link_flows[l]);
        cs_outbuf_char(&o, ',');
        cs_outbuf_dec(&o, r->link_partitions[l]);
        cs_outbuf_char(&o, ',');
        cs_outbuf_dec(&o, r->link_receivers ? r->link_receivers[l] : 0);
        cs_outbuf_char(&o, ',');
        bool first = true;
        for (uint32_t p = 0; p < r->num_partitions; p++) {
            if (!r->partition_link_flows[(size_t)p * r->num_links + l])
                continue;
            if (!first)
                cs_outbuf_char(&o, ' ');
            cs_outbuf_str(&o, "0x");
            cs_outbuf_hex(&o, r->partitions[p].pkey, 4);
            first = false;
        }
        cs_outbuf_char(&o, '\n');
    }
    return cs_outbuf_finish(&o, "the per-link metrics CSV", err);
}
