/* Path modifications of a re-routing: which (source CA port, destination LID) pairs get another
 * route, and which (switch, destination) entries change (lft_diff.h).
 *
 * Comparing every pair hop by hop costs pairs x hops (136 M pairs on an 11664-host tree). Routing
 * is destination based, so per destination the route from each switch is a chain through the
 * switches (cs_dest_routes, O(switches)), and "the route from switch s is the same in both" is
 * decided once per switch, nearest the destination first: s's two entries are equal, both forward
 * to the same next switch (by GUID) and the route from there is the same, or both hand the packet
 * to the destination port. Sources are counted per switch they are cabled to. A destination thus
 * costs O(switches) and the whole diff O(destinations x switches), split over threads in
 * contiguous LID ranges; every total is an integer sum, so the result does not depend on the
 * number of threads.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/analyze.h"
#include "cloudsm/key_index.h"
#include "cloudsm/lft_diff.h"
#include "core/cpu.h"

/* Below this many (destination x switch) steps a second thread costs more than it saves. */
#define PATH_DIFF_MIN_WORK_PER_THREAD 2000000u
#define PATH_DIFF_MAX_THREADS 64u

/* What the route from a switch of the new fabric does, compared with the old tables. */
enum route_state {
    ROUTE_SAME,    /* both deliver, along the same switches and ports */
    ROUTE_CHANGED, /* both deliver along different ones, or only one delivers */
    ROUTE_NEITHER, /* neither delivers */
};

/* A source whose route starts at another switch in the old fabric (or that the old fabric
 * lacks): every pair of it that either set delivers changed. */
struct moved_source {
    uint32_t port;      /* in the new fabric */
    uint32_t new_entry; /* new tracer's switch it is cabled to */
    uint32_t old_entry; /* old tracer's switch it was cabled to, CS_NONE */
};

struct plan {
    const struct cs_tracer *old_t, *new_t;
    const uint32_t *old_switch; /* [new switch] the old tracer's switch of that GUID, CS_NONE */
    const uint32_t *dests;      /* destination LIDs, ascending */
    uint32_t num_dests;
    const uint32_t *entry_switches; /* new switches some unmoved source is cabled to */
    uint32_t num_entry_switches;
    const uint32_t *entry_sources; /* [new switch] unmoved sources cabled to it */
    const uint32_t *port_entry;    /* [new port] switch an unmoved source at it is cabled to,
                                      CS_NONE (not a source, or moved) */
    const struct moved_source *moved;
    uint32_t num_moved;
};

struct worker {
    const struct plan *p;
    uint32_t first, last; /* dests[first..last) */
    pthread_t thread;
    bool started;
    struct cs_path_diff sum;
    struct cs_dest_routes dn, dold;
    uint8_t *state;               /* [new switch] enum route_state */
    uint8_t *cols_new, *cols_old; /* one 64-LID block of entries, transposed */
};

static bool delivered(const struct cs_dest_routes *d, uint32_t s)
{
    return s != CS_NONE && d->outcome[s] == CS_TRACE_DELIVERED;
}

static void diff_destination(struct worker *w, uint32_t lid, const uint8_t *en, const uint8_t *eo)
{
    const struct plan *p = w->p;
    const struct cs_tracer *nt = p->new_t, *ot = p->old_t;
    struct cs_dest_routes *dn = &w->dn, *dold = &w->dold;
    cs_dest_routes_compute_from(dn, nt, lid, en);
    cs_dest_routes_compute_from(dold, ot, lid, eo);
    uint8_t *state = w->state;

    /* The same destination port in both fabrics, or no route can stay the same. */
    uint32_t owner = dn->owner_port;
    bool same_owner = dold->owner_port != CS_NONE &&
                      ot->fabric->ports[dold->owner_port].guid == nt->fabric->ports[owner].guid;

    for (uint32_t s = 0; s < nt->num_switches; s++) {
        uint32_t os = p->old_switch[s];
        uint8_t before = os == CS_NONE ? CS_LFT_NO_ROUTE : eo[os];
        w->sum.entries_changed += en[s] != before;
        if (dn->outcome[s] != CS_TRACE_DELIVERED)
            state[s] = delivered(dold, os) ? ROUTE_CHANGED : ROUTE_NEITHER;
    }
    /* Nearest the destination first: the next switch's state is known. */
    for (uint32_t k = dn->num_delivered; k-- > 0;) {
        uint32_t s = dn->order[k];
        uint32_t os = p->old_switch[s];
        uint8_t st = ROUTE_CHANGED;
        if (same_owner && delivered(dold, os) && en[s] == eo[os]) {
            uint32_t next = dn->next_switch[s], old_next = dold->next_switch[os];
            if (next == CS_NONE ? old_next == CS_NONE
                                : old_next != CS_NONE && old_next == p->old_switch[next] &&
                                      state[next] == ROUTE_SAME)
                st = ROUTE_SAME;
        }
        state[s] = st;
    }

    uint32_t own_entry = p->port_entry[owner];
    uint64_t changed = 0;
    for (uint32_t k = 0; k < p->num_entry_switches; k++) {
        uint32_t s = p->entry_switches[k];
        uint64_t count = p->entry_sources[s] - (s == own_entry);
        w->sum.pairs += count;
        if (state[s] == ROUTE_CHANGED)
            changed += count;
        if (!delivered(dn, s))
            w->sum.undelivered_new += count;
        if (!delivered(dold, p->old_switch[s]))
            w->sum.undelivered_old += count;
    }
    for (uint32_t k = 0; k < p->num_moved; k++) {
        const struct moved_source *m = &p->moved[k];
        if (m->port == owner)
            continue;
        bool now = delivered(dn, m->new_entry), before = delivered(dold, m->old_entry);
        w->sum.pairs++;
        changed += now || before;
        w->sum.undelivered_new += !now;
        w->sum.undelivered_old += !before;
    }
    w->sum.paths_changed += changed;
    w->sum.destinations_changed += changed != 0;
}

static void *worker_run(void *arg)
{
    struct worker *w = arg;
    const struct plan *p = w->p;
    uint32_t ns = p->new_t->num_switches, os = p->old_t->num_switches;
    uint32_t block_first = UINT32_MAX;
    for (uint32_t i = w->first; i < w->last; i++) {
        uint32_t lid = p->dests[i];
        uint32_t first = lid - lid % CS_LFT_BLOCK;
        if (first != block_first) {
            cs_tracer_lft_columns(p->new_t, first, CS_LFT_BLOCK, w->cols_new);
            cs_tracer_lft_columns(p->old_t, first, CS_LFT_BLOCK, w->cols_old);
            block_first = first;
        }
        diff_destination(w, lid, w->cols_new + (size_t)(lid - first) * ns,
                         w->cols_old + (size_t)(lid - first) * os);
    }
    return NULL;
}

static void worker_free(struct worker *w)
{
    cs_dest_routes_free(&w->dn);
    cs_dest_routes_free(&w->dold);
    free(w->state);
    free(w->cols_new);
    free(w->cols_old);
}

static int worker_init(struct worker *w, const struct plan *p, struct cs_error *err)
{
    memset(w, 0, sizeof *w);
    w->p = p;
    size_t ns = p->new_t->num_switches ? p->new_t->num_switches : 1;
    size_t os = p->old_t->num_switches ? p->old_t->num_switches : 1;
    w->state = malloc(ns);
    w->cols_new = malloc(ns * CS_LFT_BLOCK);
    w->cols_old = malloc(os * CS_LFT_BLOCK);
    if (!w->state || !w->cols_new || !w->cols_old) {
        worker_free(w);
        return cs_fail(err, "out of memory comparing routes");
    }
    if (cs_dest_routes_init(&w->dn, p->new_t, err) < 0 ||
        cs_dest_routes_init(&w->dold, p->old_t, err) < 0) {
        worker_free(w);
        return -1;
    }
    return 0;
}

/* ---- Plan: switches matched by GUID, sources, destinations ---- */

struct plan_storage {
    uint32_t *old_switch, *dests, *entry_switches, *entry_sources, *port_entry;
    struct moved_source *moved;
};

static void plan_storage_free(struct plan_storage *st)
{
    free(st->old_switch);
    free(st->dests);
    free(st->entry_switches);
    free(st->entry_sources);
    free(st->port_entry);
    free(st->moved);
}

/* [new switch] -> old tracer's switch with its GUID. */
static int match_switches(const struct cs_tracer *old_t, const struct cs_tracer *new_t,
                          uint32_t *old_switch, struct cs_error *err)
{
    struct cs_key_index ix;
    cs_key_index_init(&ix);
    if (cs_key_index_reserve(&ix, old_t->num_switches, err) < 0)
        return -1;
    for (uint32_t s = 0; s < old_t->num_switches; s++)
        cs_key_index_add(&ix, old_t->fabric->nodes[old_t->switch_node[s]].guid, s, err);
    cs_key_index_sort(&ix);
    for (uint32_t s = 0; s < new_t->num_switches; s++)
        old_switch[s] = cs_key_index_find(&ix, new_t->fabric->nodes[new_t->switch_node[s]].guid);
    cs_key_index_free(&ix);
    return 0;
}

static int make_plan(struct plan *p, struct plan_storage *st, const struct cs_tracer *old_t,
                     const struct cs_tracer *new_t, struct cs_path_diff *d, struct cs_error *err)
{
    const struct cs_fabric *nf = new_t->fabric, *of = old_t->fabric;
    bool one_fabric = nf == of;
    memset(p, 0, sizeof *p);
    memset(st, 0, sizeof *st);
    p->old_t = old_t;
    p->new_t = new_t;
    size_t switches = new_t->num_switches ? new_t->num_switches : 1;
    size_t slots = nf->num_port_slots ? nf->num_port_slots : 1;
    st->old_switch = malloc(switches * sizeof *st->old_switch);
    st->entry_switches = malloc(switches * sizeof *st->entry_switches);
    st->entry_sources = calloc(switches, sizeof *st->entry_sources);
    st->port_entry = malloc(slots * sizeof *st->port_entry);
    st->moved = malloc(slots * sizeof *st->moved);
    st->dests = malloc((new_t->lid_limit ? new_t->lid_limit : 1) * sizeof *st->dests);
    bool *source = calloc(slots, sizeof *source);
    struct cs_key_index old_ports;
    cs_key_index_init(&old_ports);
    int rc = -1;
    if (!st->old_switch || !st->entry_switches || !st->entry_sources || !st->port_entry ||
        !st->moved || !st->dests || !source) {
        cs_fail(err, "out of memory comparing routes");
        goto done;
    }
    if (match_switches(old_t, new_t, st->old_switch, err) < 0 ||
        (!one_fabric && cs_key_index_ports(&old_ports, of, err) < 0))
        goto done;

    for (uint32_t i = 0; i < nf->num_port_slots; i++) {
        const struct cs_port *port = &nf->ports[i];
        st->port_entry[i] = CS_NONE;
        if (nf->nodes[port->node].type != CS_NODE_CA || port->num == 0 || !port->lid)
            continue;
        uint32_t entry = cs_tracer_entry_switch(new_t, i);
        if (entry == CS_NONE)
            continue; /* unconnected, or cabled to a CA */
        source[i] = true;
        d->sources++;
        uint32_t old_port = one_fabric ? i : cs_key_index_find(&old_ports, port->guid);
        uint32_t old_entry =
            old_port == CS_NONE ? CS_NONE : cs_tracer_entry_switch(old_t, old_port);
        if (old_entry != CS_NONE && old_entry == st->old_switch[entry]) {
            st->port_entry[i] = entry;
            st->entry_sources[entry]++;
        } else {
            st->moved[p->num_moved++] = (struct moved_source){i, entry, old_entry};
        }
    }
    d->sources_moved = p->num_moved;
    for (uint32_t s = 0; s < new_t->num_switches; s++)
        if (st->entry_sources[s])
            st->entry_switches[p->num_entry_switches++] = s;
    for (uint32_t lid = 1; lid < new_t->lid_limit; lid++)
        if (new_t->lid_owner[lid] != CS_NONE && source[new_t->lid_owner[lid]])
            st->dests[p->num_dests++] = lid;
    d->destinations = p->num_dests;

    p->old_switch = st->old_switch;
    p->dests = st->dests;
    p->entry_switches = st->entry_switches;
    p->entry_sources = st->entry_sources;
    p->port_entry = st->port_entry;
    p->moved = st->moved;
    rc = 0;
done:
    free(source);
    cs_key_index_free(&old_ports);
    return rc;
}

static unsigned pick_threads(const struct plan *p)
{
    uint64_t work = (uint64_t)p->num_dests *
                    (p->new_t->num_switches + p->old_t->num_switches + p->num_moved + 1);
    return cs_threads_for(0, work, PATH_DIFF_MIN_WORK_PER_THREAD, PATH_DIFF_MAX_THREADS,
                          p->num_dests);
}

int cs_path_diff(const struct cs_tracer *old_t, const struct cs_tracer *new_t,
                 struct cs_path_diff *d, struct cs_error *err)
{
    memset(d, 0, sizeof *d);
    struct plan p;
    struct plan_storage st;
    struct worker *workers = NULL;
    unsigned threads = 0;
    int rc = -1;
    if (make_plan(&p, &st, old_t, new_t, d, err) < 0)
        goto done;
    threads = pick_threads(&p);
    workers = calloc(threads, sizeof *workers);
    if (!workers) {
        cs_fail(err, "out of memory comparing routes");
        goto done;
    }
    for (unsigned i = 0; i < threads; i++) {
        if (worker_init(&workers[i], &p, err) < 0) {
            threads = i;
            goto done;
        }
        workers[i].first = (uint32_t)((uint64_t)p.num_dests * i / threads);
        workers[i].last = (uint32_t)((uint64_t)p.num_dests * (i + 1) / threads);
    }
    for (unsigned i = 1; i < threads; i++)
        workers[i].started = pthread_create(&workers[i].thread, NULL, worker_run, &workers[i]) == 0;
    worker_run(&workers[0]);
    for (unsigned i = 1; i < threads; i++) {
        if (workers[i].started)
            pthread_join(workers[i].thread, NULL);
        else
            worker_run(&workers[i]); /* no thread to be had: do its share here */
    }
    for (unsigned i = 0; i < threads; i++) {
        const struct cs_path_diff *s = &workers[i].sum;
        d->pairs += s->pairs;
        d->paths_changed += s->paths_changed;
        d->destinations_changed += s->destinations_changed;
        d->entries_changed += s->entries_changed;
        d->undelivered_old += s->undelivered_old;
        d->undelivered_new += s->undelivered_new;
    }
    rc = 0;
done:
    for (unsigned i = 0; i < threads; i++)
        worker_free(&workers[i]);
    free(workers);
    plan_storage_free(&st);
    return rc;
}
