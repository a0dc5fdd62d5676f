/* The VM migration simulator (include/cloudsm/vmsim.h, docs/vswitch.md). */
#include "cloudsm/vmsim.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/clock.h"
#include "cloudsm/lid.h"
#include "cloudsm/route.h"
#include "cloudsm/sim.h"
#include "cloudsm/topo_gen.h"
#include "cloudsm/vm_plan.h"
#include "core/cpu.h"
#include "core/grow.h"

static const struct cs_vmsim_topology paper_topologies[] = {
    {"4-ary-2-full", "XGFT(2;8,4;4,1)", "2;4,8;1,4"},
    {"8-ary-2", "XGFT(2;8,8;8,1)", "2;8,8;1,8"},
    {"4-ary-3-full", "XGFT(3;8,4,4;4,4,1)", "3;4,4,8;1,4,4"},
    {"16-ary-2", "XGFT(2;16,16;16,1)", "2;16,16;1,16"},
    {"8-ary-3", "XGFT(3;8,8,8;8,8,1)", "3;8,8,8;1,8,8"},
    {"8-ary-3-full", "XGFT(3;16,8,8;8,8,1)", "3;8,8,16;1,8,8"},
};

const struct cs_vmsim_topology *cs_vmsim_paper_topologies(unsigned *count)
{
    *count = sizeof paper_topologies / sizeof paper_topologies[0];
    return paper_topologies;
}

void cs_vmsim_result_free(struct cs_vmsim_result *r)
{
    free(r->switches_itrc);
    free(r->switches_minrc);
    free(r->snapshots);
    memset(r, 0, sizeof *r);
}

/* One copy of everything a reconfiguration method changes. */
struct world {
    struct cs_fabric fabric; /* port LIDs follow the LIDs that move */
    struct cs_lfts lfts;
    struct cs_vm_state vms;
    struct cs_switch_tree tree;
    bool has_tree;
};

static void world_free(struct world *w)
{
    if (w->has_tree)
        cs_switch_tree_free(&w->tree);
    cs_vm_state_free(&w->vms);
    cs_lfts_free(&w->lfts);
    cs_fabric_free(&w->fabric);
}

static int world_copy(struct world *dst, const struct world *src, const struct cs_hypervisors *h,
                      struct cs_error *err)
{
    memset(dst, 0, sizeof *dst);
    cs_fabric_init(&dst->fabric);
    cs_vm_state_init(&dst->vms);
    if (cs_fabric_copy(&dst->fabric, &src->fabric, err) < 0 ||
        cs_lfts_copy(&dst->lfts, &src->lfts, err) < 0 ||
        cs_vm_state_copy(&dst->vms, &src->vms, err) < 0)
        return -1;
    if (cs_switch_tree_init(&dst->tree, &dst->fabric, h, &dst->lfts, err) < 0)
        return -1;
    dst->has_tree = true;
    return 0;
}

static int route_vftree(const struct world *w, struct cs_lfts *out, double *ms,
                        struct cs_error *err)
{
    struct cs_route_options opt = {.no_fallback = true};
    struct cs_route_inputs in = {.vms = &w->vms};
    struct cs_route_stats stats;
    struct cs_route_result res;
    int rc = cs_route_with("vftree", &w->fabric, &opt, &in, out, &stats, &res, err);
    if (rc == 0)
        cs_route_result_free(&res);
    if (ms)
        *ms = stats.route_ms;
    return rc;
}

/* Mean effective bisection bandwidth over the running VMs' ports on (fabric, tables). */
static int bisect(const struct world *w, const struct cs_lfts *lfts, const struct cs_hypervisors *h,
                  const struct cs_vmsim_config *c, uint64_t seed, double *ebb, struct cs_error *err)
{
    uint32_t *ports = cs_calloc_array(w->vms.count + 1, sizeof *ports, err);
    if (!ports)
        return -1;
    for (uint32_t i = 0; i < w->vms.count; i++) {
        const struct cs_vm *vm = &w->vms.vms[i];
        ports[i] =
            cs_hypervisor_vf_port(h, cs_hypervisor_by_guid(h, &w->fabric, vm->hypervisor), vm->vf);
    }
    struct cs_tracer tracer;
    int rc = cs_tracer_init(&tracer, &w->fabric, lfts, err);
    if (rc == 0) {
        struct cs_sim_options opt = {
            .victim = {.pattern = {.kind = CS_PATTERN_BISECT},
                       .ports = ports,
                       .num_ports = w->vms.count},
            .select = CS_SELECT_RANDOM,
            .runs = c->bisect_runs,
            .seed = seed,
            .threads = c->threads,
        };
        struct cs_sim_result res;
        rc = cs_simulate(&tracer, &opt, &res, err);
        if (rc == 0) {
            *ebb = res.effective_bandwidth_stat.mean;
            cs_sim_result_free(&res);
        }
        cs_tracer_free(&tracer);
    }
    free(ports);
    return rc;
}

/* Snapshot s: the reconfigured tables, and the same placement routed by vftree. */
static int evaluate(const struct world *minrc, const struct cs_hypervisors *h,
                    const struct cs_vmsim_config *c, uint32_t index, struct cs_vmsim_snapshot *snap,
                    struct cs_error *err)
{
    if (c->bisect_runs == 0) {
        snap->ebb_minrc = snap->ebb_vftree = 0;
        return 0;
    }
    /* Both with the same draws: the difference is the routing's. */
    uint64_t seed = c->seed * UINT64_C(0x9e3779b97f4a7c15) + index + 1;
    struct cs_lfts fresh;
    if (bisect(minrc, &minrc->lfts, h, c, seed, &snap->ebb_minrc, err) < 0 ||
        route_vftree(minrc, &fresh, NULL, err) < 0)
        return -1;
    int rc = bisect(minrc, &fresh, h, c, seed, &snap->ebb_vftree, err);
    cs_lfts_free(&fresh);
    return rc;
}

static int check_config(const struct cs_vmsim_config *c, struct cs_error *err)
{
    if (!c->xgft)
        return cs_fail(err, "vmsim: no topology");
    if (c->vfs < 1 || c->vfs > CS_VFS_MAX)
        return cs_fail(err, "vmsim: %u VFs per hypervisor (1..%u)", c->vfs, CS_VFS_MAX);
    if (c->population < 1 || c->population > 100)
        return cs_fail(err, "vmsim: population %u%% (1..100)", c->population);
    if (c->snapshots < 1)
        return cs_fail(err, "vmsim: at least one snapshot");
    return 0;
}

/* The fabric, its LIDs, its hypervisors and the placed VMs with their state. */
static int build(const struct cs_vmsim_config *c, struct world *w, struct cs_hypervisors *h,
                 struct cs_vm_placement *placement, struct cs_rng *rng, struct cs_error *err)
{
    struct cs_pgft_spec spec;
    if (cs_pgft_parse(&spec, c->xgft, false, err) < 0)
        return -1;
    spec.vfs_per_hypervisor = c->vfs;
    if (cs_pgft_generate(&w->fabric, &spec, err) < 0 || cs_lids_assign(&w->fabric, 0, err) < 0 ||
        cs_hypervisors_find(&w->fabric, h, err) < 0)
        return -1;
    uint32_t vms = (uint32_t)((uint64_t)h->count * c->vfs * c->population / 100);
    if (cs_vm_place(placement, h->count, c->vfs, vms, c->distribution, rng, err) < 0)
        return -1;
    w->vms.lid_policy = CS_LID_PREPOPULATED;
    for (uint32_t i = 0; i < vms; i++) {
        uint32_t hv = placement->hypervisor_of[i];
        unsigned vf = placement->vf_of[i];
        struct cs_vm vm = {.vguid = UINT64_C(0x0200000000000000) + i + 1,
                           .hypervisor = w->fabric.nodes[h->items[hv].node].guid,
                           .vf = (uint8_t)vf,
                           .lid = w->fabric.ports[cs_hypervisor_vf_port(h, hv, vf)].lid};
        snprintf(vm.name, sizeof vm.name, "vm-%" PRIu32, i);
        /* Appended directly: names, vGUIDs, LIDs and places are unique by construction (the
         * checked add compares with every VM already there). */
        if (cs_grow((void **)&w->vms.vms, &w->vms.capacity, (uint64_t)w->vms.count + 1,
                    sizeof *w->vms.vms, err) < 0)
            return -1;
        w->vms.vms[w->vms.count++] = vm;
    }
    return 0;
}

static int migrate(struct world *w, const struct cs_hypervisors *h, const struct cs_vm_move *m,
                   enum cs_plan_method method, uint32_t *switches, uint64_t *lft_smps,
                   struct cs_error *err)
{
    char name[CS_VM_NAME_MAX + 1];
    snprintf(name, sizeof name, "vm-%" PRIu32, m->vm);
    struct cs_vm_request req = {.op = CS_VM_MIGRATE,
                                .name = name,
                                .hypervisor = w->fabric.nodes[h->items[m->to].node].guid,
                                .vf = m->to_vf};
    struct cs_vm_plan_options opt = {.method = (uint8_t)method};
    struct cs_plan plan;
    cs_plan_init(&plan);
    int rc = cs_vm_plan_run(&w->fabric, h, &w->tree, &w->lfts, &w->vms, &req, &opt, &plan, err);
    if (rc == 0) {
        *switches = plan.switches_updated;
        *lft_smps += plan.lft_smps;
    }
    cs_plan_free(&plan);
    return rc;
}

int cs_vmsim_run(const struct cs_vmsim_config *c, struct cs_vmsim_result *r, struct cs_error *err)
{
    memset(r, 0, sizeof *r);
    if (check_config(c, err) < 0)
        return -1;
    struct world minrc, itrc;
    memset(&minrc, 0, sizeof minrc);
    memset(&itrc, 0, sizeof itrc);
    cs_fabric_init(&minrc.fabric);
    cs_fabric_init(&itrc.fabric);
    cs_vm_state_init(&minrc.vms);
    cs_vm_state_init(&itrc.vms);
    struct cs_hypervisors h;
    memset(&h, 0, sizeof h);
    struct cs_vm_placement placement;
    memset(&placement, 0, sizeof placement);
    struct cs_vm_moves moves;
    memset(&moves, 0, sizeof moves);
    struct cs_rng rng;
    cs_rng_seed(&rng, c->seed);

    int rc = build(c, &minrc, &h, &placement, &rng, err);
    if (rc == 0)
        rc = route_vftree(&minrc, &minrc.lfts, &r->route_ms, err);
    if (rc == 0 && cs_switch_tree_init(&minrc.tree, &minrc.fabric, &h, &minrc.lfts, err) == 0)
        minrc.has_tree = true;
    else if (rc == 0)
        rc = -1;
    if (rc == 0)
        rc = world_copy(&itrc, &minrc, &h, err);
    if (rc == 0)
        rc = cs_vm_pattern_moves(&placement, c->pattern, c->groups, &rng, &moves, err);
    if (rc == 0) {
        r->hypervisors = h.count;
        r->vms = placement.vms;
        r->switches = minrc.tree.num_physical;
        r->moves = moves.count;
        r->num_snapshots = c->snapshots + 1;
        r->switches_itrc = cs_calloc_array(moves.count + 1, sizeof *r->switches_itrc, err);
        r->switches_minrc = cs_calloc_array(moves.count + 1, sizeof *r->switches_minrc, err);
        r->snapshots = cs_calloc_array(r->num_snapshots, sizeof *r->snapshots, err);
        if (!r->switches_itrc || !r->switches_minrc || !r->snapshots)
            rc = -1;
    }
    double t0 = cs_clock_ms();
    if (rc == 0)
        rc = evaluate(&minrc, &h, c, 0, &r->snapshots[0], err);
    r->evaluate_ms += cs_clock_ms() - t0;
    uint32_t next = 1; /* the next snapshot to take */
    for (; rc == 0 && next <= c->snapshots && (uint64_t)moves.count * next / c->snapshots == 0;
         next++)
        r->snapshots[next] = r->snapshots[0]; /* fewer moves than snapshots: nothing moved yet */
    for (uint32_t k = 0; rc == 0 && k < moves.count; k++) {
        t0 = cs_clock_ms();
        rc = migrate(&itrc, &h, &moves.items[k], CS_PLAN_ITRC, &r->switches_itrc[k],
                     &r->lft_smps_itrc, err);
        if (rc == 0)
            rc = migrate(&minrc, &h, &moves.items[k], CS_PLAN_FTREEMINRC, &r->switches_minrc[k],
                         &r->lft_smps_minrc, err);
        r->plan_ms += cs_clock_ms() - t0;
        t0 = cs_clock_ms();
        /* Snapshot j is taken after floor(moves * j / snapshots) moves. */
        for (; rc == 0 && next <= c->snapshots &&
               (uint64_t)moves.count * next / c->snapshots == (uint64_t)k + 1;
             next++) {
            r->snapshots[next].moves_done = k + 1;
            if (next > 1 && r->snapshots[next - 1].moves_done == k + 1)
                r->snapshots[next] = r->snapshots[next - 1]; /* fewer moves than snapshots */
            else
                rc = evaluate(&minrc, &h, c, next, &r->snapshots[next], err);
        }
        r->evaluate_ms += cs_clock_ms() - t0;
    }
    cs_vm_moves_free(&moves);
    cs_vm_placement_free(&placement);
    cs_hypervisors_free(&h);
    world_free(&itrc);
    world_free(&minrc);
    if (rc < 0)
        cs_vmsim_result_free(r);
    return rc;
}

unsigned cs_vmsim_paper_configs(const struct cs_vmsim_config *base, struct cs_vmsim_config *out,
                                unsigned *topology)
{
    static const enum cs_vm_pattern patterns[] = {CS_VM_PATTERN_RANDOM, CS_VM_PATTERN_CONSOLIDATE,
                                                  CS_VM_PATTERN_GROUPING, CS_VM_PATTERN_TO_UNIFORM};
    static const unsigned populations[] = {25, 50, 75};
    unsigned n = 0, count;
    const struct cs_vmsim_topology *t = cs_vmsim_paper_topologies(&count);
    for (unsigned i = 0; i < count; i++)
        for (unsigned d = 0; d < 2; d++)
            for (unsigned p = 0; p < 4; p++)
                for (unsigned pop = 0; pop < 3; pop++) {
                    if (d == CS_VM_DIST_UNIFORM && patterns[p] == CS_VM_PATTERN_TO_UNIFORM)
                        continue;
                    out[n] = *base;
                    out[n].xgft = t[i].xgft;
                    out[n].vfs = 4;
                    out[n].distribution = (enum cs_vm_distribution)d;
                    out[n].population = populations[pop];
                    out[n].pattern = patterns[p];
                    out[n].seed = base->seed + n;
                    topology[n++] = i;
                }
    return n;
}

/* ---- Many simulations on a few workers ---------------------------------------------------- */

struct pool {
    const struct cs_vmsim_config *configs;
    struct cs_vmsim_result *results;
    unsigned n, next, done;
    bool failed;
    struct cs_error err;
    void (*progress)(void *ctx, unsigned done, unsigned total);
    void *ctx;
    pthread_mutex_t lock;
};

static void *worker(void *arg)
{
    struct pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        unsigned i = p->failed ? p->n : p->next++;
        pthread_mutex_unlock(&p->lock);
        if (i >= p->n)
            return NULL;
        struct cs_vmsim_config c = p->configs[i];
        c.threads = 1;
        struct cs_error err = {{0}};
        int rc = cs_vmsim_run(&c, &p->results[i], &err);
        pthread_mutex_lock(&p->lock);
        if (rc < 0 && !p->failed) {
            p->failed = true;
            cs_fail(&p->err, "simulation %u (%s, %s, %u%%, %s): %s", i, c.xgft,
                    cs_vm_distribution_name(c.distribution), c.population,
                    cs_vm_pattern_name(c.pattern), err.msg);
        }
        p->done++;
        if (p->progress && !p->failed)
            p->progress(p->ctx, p->done, p->n);
        pthread_mutex_unlock(&p->lock);
    }
}

int cs_vmsim_run_many(const struct cs_vmsim_config *configs, unsigned n, unsigned threads,
                      struct cs_vmsim_result *results,
                      void (*progress)(void *ctx, unsigned done, unsigned total), void *ctx,
                      struct cs_error *err)
{
    memset(results, 0, n * sizeof *results);
    if (threads == 0)
        threads = cs_cpu_count();
    if (threads > n)
        threads = n ? n : 1;
    struct pool p = {
        .configs = configs, .results = results, .n = n, .progress = progress, .ctx = ctx};
    pthread_mutex_init(&p.lock, NULL);
    pthread_t *ids = cs_calloc_array(threads, sizeof *ids, err);
    bool *started = cs_calloc_array(threads, sizeof *started, err);
    if (!ids || !started) {
        free(ids);
        free(started);
        pthread_mutex_destroy(&p.lock);
        return -1;
    }
    for (unsigned t = 1; t < threads; t++)
        started[t] = pthread_create(&ids[t], NULL, worker, &p) == 0;
    worker(&p); /* this thread is worker 0 */
    for (unsigned t = 1; t < threads; t++)
        if (started[t])
            pthread_join(ids[t], NULL);
    free(ids);
    free(started);
    pthread_mutex_destroy(&p.lock);
    if (p.failed) {
        for (unsigned i = 0; i < n; i++)
            cs_vmsim_result_free(&results[i]);
        return cs_fail(err, "%s", p.err.msg);
    }
    return 0;
}
