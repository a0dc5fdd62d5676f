/* vftree: vSwitchFatTree (Paper V, Algorithm 1; docs/routing/vftree.md), ftree for fabrics of
 * SR-IOV hypervisors in vSwitch mode. The machinery's walk with no policy; what vftree adds is
 * its target list, its unit, and one step after the walk:
 *
 *  - the VMs, physical leaf by physical leaf (in the machinery's leaf order); on each, its
 *    vSwitches in increasing number of running VMs (equal counts: ascending vSwitch node GUID,
 *    an order no re-cabling changes); on each vSwitch its VMs in VF port order, each weighing
 *    1/(its vSwitch's VMs), so every vSwitch with VMs weighs 1 in all;
 *  - the CA ports that are not VFs (none in a pure vSwitch fabric), weight 1;
 *  - the PF LIDs (each vSwitch's own LID), in the vSwitch order of the VMs, on counted main
 *    paths of weight 1 ("to balance vSwitch to vSwitch paths");
 *  - the other switch LIDs as ftree routes them (secondary paths);
 *  - after the walk, a VF with a LID but no VM (prepopulated LIDs, a VM state that leaves it
 *    idle) gets its PF's path: what a VM booted there gets under dynamic LIDs.
 *
 * Loads are exact: the unit is the least common multiple of the VM counts, so 1/k is unit/k. */
#include "cloudsm/route.h"

#include <stdlib.h>
#include <string.h>

#include "cloudsm/guid_list.h"
#include "cloudsm/key_index.h"
#include "cloudsm/vswitch.h"
#include "core/grow.h"
#include "route/fattree.h"

/* The unit when the exact one would not fit the loads (VM counts with many large primes):
 * weights are then rounded down, and said so in docs/routing/vftree.md. */
#define ROUNDED_UNIT ((cs_ft_load)1 << 32)

/* What the VM state (or its absence) says about the fabric. */
struct plan {
    struct cs_hypervisors hyps;
    uint16_t *vm_lid;  /* per VF (hyps.vf_port order): the LID of its VM, 0 if it runs none */
    uint32_t *num_vms; /* per hypervisor: its running VMs */
    cs_ft_load unit;
    bool idle_vfs_routed; /* a VF with a LID and no VM is routed (prepopulated, VM state) */
};

/* One leaf of the machinery: a vSwitch, or a physical leaf with CAs of its own. */
struct host_switch {
    uint32_t sw;       /* machinery switch index */
    uint32_t hv;       /* hypervisor index, CS_NONE for a plain leaf */
    uint32_t position; /* its physical leaf's place in the machinery's leaf order */
    uint32_t num_vms;
    uint64_t guid;
};

static void plan_free(struct plan *p)
{
    cs_hypervisors_free(&p->hyps);
    free(p->vm_lid);
    free(p->num_vms);
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/* The LIDs the walk routes for ports that are not VFs (switches, other CAs): under dynamic
 * LIDs a VM may take any other LID of the tables. */
static uint8_t *lids_not_of_vfs(const struct cs_fabric *f, const struct cs_hypervisors *h,
                                uint16_t max_lid, struct cs_error *err)
{
    uint8_t *taken = cs_calloc_array((size_t)max_lid + 1, 1, err);
    for (uint32_t p = 0; taken && p < f->num_port_slots; p++) {
        const struct cs_port *port = &f->ports[p];
        if (port->lid && port->lid <= max_lid && h->vf_of_port[p] == CS_NONE &&
            (port->peer != CS_NONE || cs_node_is_switch(&f->nodes[port->node])))
            taken[port->lid] = 1;
    }
    return taken;
}

static int make_plan(const struct cs_fabric *f, const struct cs_vm_state *vms,
                     const struct cs_lfts *lfts, struct plan *p, struct cs_error *err)
{
    memset(p, 0, sizeof *p);
    if (cs_hypervisors_find(f, &p->hyps, err) < 0)
        return -1;
    const struct cs_hypervisors *h = &p->hyps;
    p->vm_lid = cs_calloc_array(h->num_vfs + 1, sizeof *p->vm_lid, err);
    p->num_vms = cs_calloc_array(h->count + 1, sizeof *p->num_vms, err);
    if (!p->vm_lid || !p->num_vms)
        return -1;
    if (!vms) {
        for (uint32_t i = 0; i < h->num_vfs; i++)
            p->vm_lid[i] = f->ports[h->vf_port[i]].lid;
    } else {
        if (vms->lid_policy == CS_LID_SHARED_PORT)
            return cs_fail(err, "a shared-port VM state: its VMs have their HCAs' LIDs, no routes "
                                "of their own (route the fabric with ftree)");
        if (cs_vm_state_check(vms, f, h, NULL, err) < 0)
            return -1;
        p->idle_vfs_routed = vms->lid_policy == CS_LID_PREPOPULATED;
        uint8_t *taken = NULL;
        if (vms->lid_policy == CS_LID_DYNAMIC &&
            !(taken = lids_not_of_vfs(f, h, lfts->max_lid, err)))
            return -1;
        struct cs_key_index by_guid; /* hypervisors by vSwitch node GUID */
        cs_key_index_init(&by_guid);
        int rc = 0;
        for (uint32_t hv = 0; rc == 0 && hv < h->count; hv++)
            rc = cs_key_index_add(&by_guid, f->nodes[h->items[hv].node].guid, hv, err);
        cs_key_index_sort(&by_guid);
        for (uint32_t i = 0; rc == 0 && i < vms->count; i++) {
            const struct cs_vm *vm = &vms->vms[i];
            uint32_t hv = cs_key_index_find(&by_guid, vm->hypervisor);
            uint32_t port = cs_hypervisor_vf_port(h, hv, vm->vf);
            if (vm->lid > lfts->max_lid)
                rc = cs_fail(err, "VM '%s': LID %u is beyond the fabric's LIDs (1..%u)", vm->name,
                             vm->lid, lfts->max_lid);
            else if (taken && taken[vm->lid])
                rc = cs_fail(err, "VM '%s': LID %u belongs to a switch or a port of the fabric",
                             vm->name, vm->lid);
            else
                p->vm_lid[h->vf_of_port[port]] = vm->lid;
        }
        free(taken);
        cs_key_index_free(&by_guid);
        if (rc < 0)
            return rc;
    }
    uint64_t lcm = 1, bound = 2 * (uint64_t)h->count + f->num_port_slots + 1;
    bool exact = true;
    for (uint32_t hv = 0; hv < h->count; hv++) {
        const struct cs_hypervisor *hyp = &h->items[hv];
        for (uint32_t k = 0; k < hyp->num_vfs; k++)
            p->num_vms[hv] += p->vm_lid[hyp->first_vf + k] != 0;
        uint64_t n = p->num_vms[hv];
        if (n == 0 || !exact)
            continue;
        uint64_t step = n / gcd(lcm, n);
        if (lcm > CS_FT_LOAD_MAX / bound / step)
            exact = false; /* the loads (at most unit * bound) would not fit */
        else
            lcm *= step;
    }
    p->unit = exact ? lcm : ROUNDED_UNIT;
    return 0;
}

/* Physical leaf first (its place in the leaf order), then fewer VMs, then the vSwitch GUID. */
static int host_switch_order(const void *a, const void *b)
{
    const struct host_switch *x = a, *y = b;
    if (x->position != y->position)
        return x->position < y->position ? -1 : 1;
    if (x->num_vms != y->num_vms)
        return x->num_vms < y->num_vms ? -1 : 1;
    return (x->guid > y->guid) - (x->guid < y->guid);
}

/* The machinery's leaves as vftree routes them. */
static struct host_switch *order_host_switches(const struct cs_ft *ft, const struct plan *p,
                                               struct cs_error *err)
{
    const struct cs_fabric *f = ft->fabric;
    struct host_switch *hosts = cs_calloc_array(ft->num_leaves + 1, sizeof *hosts, err);
    uint32_t *position = cs_calloc_array(f->num_nodes + 1, sizeof *position, err);
    if (!hosts || !position) {
        free(hosts);
        free(position);
        return NULL;
    }
    for (uint32_t n = 0; n < f->num_nodes; n++)
        position[n] = CS_NONE;
    uint32_t next = 0;
    for (uint32_t i = 0; i < ft->num_leaves; i++) {
        uint32_t s = ft->leaves[i];
        uint32_t node = ft->sw[s].node;
        uint32_t hv = p->hyps.of_node[node];
        uint32_t leaf = hv == CS_NONE ? node : p->hyps.items[hv].leaf;
        if (position[leaf] == CS_NONE)
            position[leaf] = next++;
        hosts[i] = (struct host_switch){.sw = s,
                                        .hv = hv,
                                        .position = position[leaf],
                                        .num_vms = hv == CS_NONE ? 0 : p->num_vms[hv],
                                        .guid = f->nodes[node].guid};
    }
    free(position);
    qsort(hosts, ft->num_leaves, sizeof *hosts, host_switch_order);
    return hosts;
}

/* A host switch's routed ports: a vSwitch's VMs (VF port order), a plain leaf's compute
 * nodes (its down list, as ftree lists them; no dummies: vftree balances by weight). */
static int add_hosted(const struct cs_ft *ft, const struct plan *p, const struct host_switch *hs,
                      struct cs_ft_targets *list, struct cs_error *err)
{
    const struct cs_ft_switch *sw = &ft->sw[hs->sw];
    if (hs->hv == CS_NONE) {
        for (unsigned k = 0; k < sw->num_down; k++) {
            const struct cs_ft_group *g = cs_ft_group_at(ft, sw->down, k);
            if (!g->remote_is_ca || !g->is_cn)
                continue;
            struct cs_ft_target t = cs_ft_target_behind(ft, hs->sw, g, p->unit);
            if (cs_ft_targets_add(list, &t, err) < 0)
                return -1;
        }
        return 0;
    }
    const struct cs_hypervisor *hyp = &p->hyps.items[hs->hv];
    for (uint32_t k = 0; k < hyp->num_vfs; k++) {
        uint32_t vf = hyp->first_vf + k;
        if (!p->vm_lid[vf])
            continue;
        struct cs_ft_target t = {.weight = p->unit / hs->num_vms,
                                 .leaf = hs->sw,
                                 .port = p->hyps.vf_port[vf],
                                 .tag = hs->hv,
                                 .lid = p->vm_lid[vf],
                                 .leaf_port = p->hyps.vf_num[vf],
                                 .kind = CS_FT_TARGET_CA};
        if (cs_ft_targets_add(list, &t, err) < 0)
            return -1;
    }
    return 0;
}

static int vftree_targets(const struct cs_ft *ft, const struct plan *p, struct cs_ft_targets *list,
                          struct cs_error *err)
{
    struct host_switch *hosts = order_host_switches(ft, p, err);
    uint8_t *is_pf = cs_calloc_array(ft->num_sw + 1, 1, err);
    int rc = hosts && is_pf ? 0 : -1;
    for (uint32_t i = 0; rc == 0 && i < ft->num_leaves; i++)
        rc = add_hosted(ft, p, &hosts[i], list, err);
    for (uint32_t i = 0; rc == 0 && i < ft->num_ca_ports; i++) {
        const struct cs_ft_ca_port *cp = &ft->ca_ports[i];
        if (cp->is_cn || p->hyps.vf_of_port[cp->port] != CS_NONE)
            continue;
        struct cs_ft_target t = cs_ft_target_of_port(cp, p->unit);
        rc = cs_ft_targets_add(list, &t, err);
    }
    for (uint32_t i = 0; rc == 0 && i < ft->num_leaves; i++) {
        if (hosts[i].hv == CS_NONE)
            continue;
        uint32_t s = hosts[i].sw;
        is_pf[s] = 1;
        struct cs_ft_target t = {.weight = p->unit,
                                 .leaf = s,
                                 .port = CS_NONE,
                                 .tag = hosts[i].hv,
                                 .lid = ft->sw[s].lid,
                                 .kind = CS_FT_TARGET_SWITCH_MAIN};
        rc = cs_ft_targets_add(list, &t, err);
    }
    for (uint32_t s = 0; rc == 0 && s < ft->num_sw; s++) {
        if (is_pf[s])
            continue;
        struct cs_ft_target t = {.weight = p->unit,
                                 .leaf = s,
                                 .port = CS_NONE,
                                 .lid = ft->sw[s].lid,
                                 .kind = CS_FT_TARGET_SWITCH};
        rc = cs_ft_targets_add(list, &t, err);
    }
    free(hosts);
    free(is_pf);
    return rc;
}

/* Idle VFs with a LID take their PF's entry on every switch but their vSwitch, which sends
 * the LID down the VF's port. */
static void route_idle_vfs(const struct cs_fabric *f, const struct plan *p, struct cs_lfts *lfts)
{
    const struct cs_hypervisors *h = &p->hyps;
    for (uint32_t hv = 0; p->idle_vfs_routed && hv < h->count; hv++) {
        const struct cs_hypervisor *hyp = &h->items[hv];
        uint16_t pf_lid = f->ports[cs_fabric_port(f, hyp->node, 0)].lid;
        for (uint32_t k = 0; k < hyp->num_vfs; k++) {
            uint32_t vf = hyp->first_vf + k;
            uint16_t lid = f->ports[h->vf_port[vf]].lid;
            if (p->vm_lid[vf] || !lid || lid > lfts->max_lid)
                continue;
            for (uint32_t t = 0; t < lfts->num_switches; t++) {
                uint8_t *row = cs_lfts_table(lfts, t);
                row[lid] = lfts->switches[t].node == hyp->node ? h->vf_num[vf] : row[pf_lid];
            }
        }
    }
}

/* Whether the fabric has a cabled CA port that is not a VF. */
static bool has_other_cas(const struct cs_fabric *f, const struct cs_hypervisors *h)
{
    for (uint32_t p = 0; p < f->num_port_slots; p++)
        if (!cs_node_is_switch(&f->nodes[f->ports[p].node]) && f->ports[p].num != 0 &&
            f->ports[p].peer != CS_NONE && h->vf_of_port[p] == CS_NONE)
            return true;
    return false;
}

/* Whether switch n has a cabled CA on one of its ports. */
static bool holds_cas(const struct cs_fabric *f, uint32_t n)
{
    for (unsigned num = 1; num <= f->nodes[n].num_ports; num++) {
        uint32_t peer = f->ports[cs_fabric_port(f, n, num)].peer;
        if (peer != CS_NONE && !cs_node_is_switch(&f->nodes[f->ports[peer].node]))
            return true;
    }
    return false;
}

/* A fat tree's roots: the switches farthest (in switch hops) from its leaves, the vSwitches at
 * distance 0 and the physical switches that hold plain CAs at 1 (they are physical leaves, one
 * level above the vSwitches). Measured from the vSwitches alone, a leaf of plain hosts would be
 * as far from them as the roots are (up and down again) and be taken for one. A CA cabled above
 * the leaves (to a root, say) makes its switch a leaf here: such a fabric needs root_guid_file. */
static int farthest_from_leaves(const struct cs_fabric *f, const struct cs_hypervisors *h,
                                struct cs_guid_list *roots, struct cs_error *err)
{
    uint32_t *dist = cs_calloc_array(f->num_nodes + 1u, sizeof *dist, err);
    uint32_t *queue = cs_calloc_array(f->num_nodes + 1u, sizeof *queue, err);
    int rc = dist && queue ? 0 : -1;
    uint32_t head = 0, tail = 0, farthest = 0;
    for (uint32_t n = 0; rc == 0 && n < f->num_nodes; n++)
        dist[n] = CS_NONE;
    for (uint32_t i = 0; rc == 0 && i < h->count; i++) {
        dist[h->items[i].node] = 0;
        queue[tail++] = h->items[i].node;
    }
    /* After every distance 0 in the queue, so that it stays in order of distance. */
    for (uint32_t n = 0; rc == 0 && n < f->num_nodes; n++)
        if (dist[n] == CS_NONE && cs_node_is_switch(&f->nodes[n]) && holds_cas(f, n)) {
            dist[n] = 1;
            queue[tail++] = n;
        }
    while (rc == 0 && head < tail) {
        uint32_t n = queue[head++];
        farthest = dist[n] > farthest ? dist[n] : farthest;
        for (unsigned num = 1; num <= f->nodes[n].num_ports; num++) {
            uint32_t peer = f->ports[cs_fabric_port(f, n, num)].peer;
            uint32_t next = peer == CS_NONE ? CS_NONE : f->ports[peer].node;
            if (next == CS_NONE || !cs_node_is_switch(&f->nodes[next]) || dist[next] != CS_NONE)
                continue;
            dist[next] = dist[n] + 1;
            queue[tail++] = next;
        }
    }
    if (rc == 0) {
        roots->guids = cs_calloc_array(tail + 1u, sizeof *roots->guids, err);
        rc = roots->guids ? 0 : -1;
    }
    for (uint32_t i = 0; rc == 0 && i < tail; i++)
        if (dist[queue[i]] == farthest && farthest > 0)
            roots->guids[roots->count++] = f->nodes[queue[i]].guid;
    roots->capacity = roots->count;
    free(dist);
    free(queue);
    return rc;
}

int cs_route_vftree(const struct cs_fabric *f, const struct cs_route_options *opt,
                    const struct cs_route_inputs *in, struct cs_lfts *lfts,
                    struct cs_route_result *res, struct cs_error *err)
{
    (void)res;
    struct plan p = {0};
    struct cs_ft ft = {0};
    struct cs_ft_targets targets = {0};
    struct cs_route_options with_cns = opt ? *opt : (struct cs_route_options){0};
    struct cs_guid_list vfs = {0}, roots = {0};
    int rc = make_plan(f, in->vms, lfts, &p, err);
    /* In a fabric of hypervisors the compute nodes are the VFs: a CA of its own on a physical
     * leaf (a management node, the SM's) is routed as ftree routes non-compute CAs, and the
     * switches are ranked from the roots down (the switches farthest from the leaves), as
     * OpenSM's ftree does with a root GUID file, so that the tree's leaves (the vSwitches) keep
     * one rank. A CN list or root list given wins. */
    if (rc == 0 && p.hyps.count && has_other_cas(f, &p.hyps)) {
        if (!with_cns.cn_guids) {
            vfs.guids = cs_calloc_array(p.hyps.num_vfs + 1u, sizeof *vfs.guids, err);
            if (!vfs.guids)
                rc = -1;
            for (uint32_t i = 0; rc == 0 && i < p.hyps.num_vfs; i++)
                vfs.guids[vfs.count++] = f->ports[p.hyps.vf_port[i]].guid;
            vfs.capacity = vfs.count;
            with_cns.cn_guids = &vfs;
        }
        if (rc == 0 && !with_cns.root_guids) {
            rc = farthest_from_leaves(f, &p.hyps, &roots, err);
            with_cns.root_guids = &roots;
        }
    }
    if (rc == 0)
        rc = cs_ft_build(&ft, f, &with_cns, err);
    if (rc == 0) {
        ft.unit = p.unit;
        rc = cs_ft_bind(&ft, lfts, NULL, err);
    }
    if (rc == 0)
        rc = vftree_targets(&ft, &p, &targets, err);
    if (rc == 0) {
        cs_ft_route_targets(&ft, &targets);
        if (opt && opt->connect_roots)
            cs_ft_connect_roots(&ft);
        route_idle_vfs(f, &p, lfts);
        cs_lfts_mark_all(lfts);
    }
    cs_ft_targets_free(&targets);
    plan_free(&p);
    cs_ft_free(&ft);
    cs_guid_list_free(&vfs);
    cs_guid_list_free(&roots);
    return rc;
}
