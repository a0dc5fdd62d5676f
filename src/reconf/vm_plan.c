/* VM create, destroy and migrate on a vSwitch fabric: the new LFTs, VM state and SMP list
 * (include/cloudsm/vm_plan.h, docs/vswitch.md "Reconfiguration").
 *
 * Paper II, section V-C (thesis lines 3489-3521): a migration is (a) "one SMP is sent to each of
 * the hypervisors that participate in the live migration, instructing them to set/unset the LID
 * to the corresponding VF", plus one to the destination "to set the vGUID", then (b) the LFT
 * blocks of the physical switches. With port-255 invalidation the invalidation SMPs go first,
 * "before the reconfiguration" (section VI-C).
 */
#include "cloudsm/vm_plan.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/grow.h"

/* Where a VM is or goes: a hypervisor, a VF, its CA port, the node its hypervisor SMPs go to
 * (the vSwitch; shared-port: the HCA, whose port is the VM's). */
struct place {
    uint32_t hyp;
    uint8_t vf;
    uint32_t port;
    uint32_t node;
};

static int find_place(const struct cs_fabric *f, const struct cs_hypervisors *h, uint64_t guid,
                      uint8_t vf, struct place *p, struct cs_error *err)
{
    p->hyp = cs_hypervisor_by_guid(h, f, guid);
    if (p->hyp == CS_NONE)
        return cs_fail(err, "0x%016" PRIx64 " is not a hypervisor (vSwitch) of the fabric", guid);
    p->vf = vf;
    p->node = h->items[p->hyp].node;
    p->port = cs_hypervisor_vf_port(h, p->hyp, vf);
    if (p->port == CS_NONE)
        return cs_fail(err, "hypervisor 0x%016" PRIx64 " ('%s') has no VF %u (it has %u)", guid,
                       f->nodes[h->items[p->hyp].node].desc, vf, h->items[p->hyp].num_vfs);
    return 0;
}

static uint32_t vm_at(const struct cs_vm_state *s, uint64_t hyp_guid, uint8_t vf)
{
    for (uint32_t i = 0; i < s->count; i++)
        if (s->vms[i].hypervisor == hyp_guid && s->vms[i].vf == vf)
            return i;
    return CS_NONE;
}

/* The destination of a create or migrate: the VF asked for (free), or the lowest free one. */
static int destination(const struct cs_fabric *f, const struct cs_hypervisors *h,
                       const struct cs_vm_state *s, const struct cs_vm_request *req,
                       struct place *p, struct cs_error *err)
{
    uint32_t hyp = cs_hypervisor_by_guid(h, f, req->hypervisor);
    if (hyp == CS_NONE)
        return cs_fail(err, "0x%016" PRIx64 " is not a hypervisor (vSwitch) of the fabric",
                       req->hypervisor);
    uint8_t vf = req->vf;
    for (unsigned k = 1; !vf && k <= h->items[hyp].num_vfs; k++)
        if (vm_at(s, req->hypervisor, (uint8_t)k) == CS_NONE)
            vf = (uint8_t)k;
    if (!vf)
        return cs_fail(err, "hypervisor 0x%016" PRIx64 " ('%s') has no free VF (all %u run a VM)",
                       req->hypervisor, f->nodes[h->items[hyp].node].desc, h->items[hyp].num_vfs);
    if (find_place(f, h, req->hypervisor, vf, p, err) < 0)
        return -1;
    uint32_t other = vm_at(s, req->hypervisor, vf);
    if (other != CS_NONE)
        return cs_fail(err, "VF %u of hypervisor 0x%016" PRIx64 " runs VM '%s'", vf,
                       req->hypervisor, s->vms[other].name);
    return 0;
}

static uint16_t pf_lid(const struct cs_fabric *f, const struct cs_hypervisors *h, uint32_t hyp)
{
    return f->ports[cs_fabric_port(f, h->items[hyp].node, 0)].lid;
}

/* A vSwitch's table (if the set has one) for lid: the VF port when one of its VFs owns lid,
 * else its uplink (or 255 when nothing owns it any more). Changed by the hypervisor SMPs. */
static void vswitch_entry(const struct cs_fabric *f, const struct cs_hypervisors *h,
                          const struct cs_switch_tree *tr, struct cs_lfts *t, uint32_t hyp,
                          uint16_t lid, uint32_t owner_port)
{
    uint32_t table = tr->table_of_node[h->items[hyp].node];
    if (table == CS_NONE || lid >= t->capacity)
        return;
    uint8_t port = owner_port == CS_NONE ? CS_LFT_NO_ROUTE : h->items[hyp].uplink;
    if (owner_port != CS_NONE && h->vf_of_port[owner_port] != CS_NONE &&
        f->ports[f->ports[owner_port].peer].node == h->items[hyp].node)
        port = f->ports[f->ports[owner_port].peer].num;
    if (cs_lfts_get(t, table, lid) != port)
        cs_lfts_set(t, table, lid, port);
}

/* Every vSwitch table for lid, now owned by owner_port (a VF). */
static void vswitch_entries(const struct cs_fabric *f, const struct cs_hypervisors *h,
                            const struct cs_switch_tree *tr, struct cs_lfts *t, uint16_t lid,
                            uint32_t owner_port)
{
    for (uint32_t i = 0; i < h->count; i++)
        vswitch_entry(f, h, tr, t, i, lid, owner_port);
}

static void set_owner(struct cs_fabric *f, struct cs_lfts *t, uint16_t lid, uint32_t port)
{
    if (port != CS_NONE)
        f->ports[port].lid = lid;
    if (lid >= t->capacity)
        return;
    struct cs_lid_target *target = &t->targets[lid];
    memset(target, 0, sizeof *target);
    if (port == CS_NONE)
        return;
    const struct cs_node *node = &f->nodes[f->ports[port].node];
    target->port_guid = f->ports[port].guid;
    target->type = node->type;
    memcpy(target->desc, node->desc, sizeof target->desc);
}

static struct cs_plan_smp hyp_smp(enum cs_plan_smp_kind kind, const struct place *p, uint16_t lid,
                                  uint64_t vguid)
{
    return (struct cs_plan_smp){.kind = (uint8_t)kind,
                                .vf = p->vf,
                                .lid = lid,
                                .table = CS_NONE,
                                .node = p->node,
                                .vguid = vguid};
}

/* Put the hypervisor SMPs after the invalidations (if any) and before the new LFT blocks. */
static int insert_hypervisor_smps(struct cs_plan *plan, uint32_t at, const struct cs_plan_smp *smps,
                                  uint32_t n, struct cs_error *err)
{
    if (!n)
        return 0;
    if (cs_grow((void **)&plan->smps, &plan->capacity, (uint64_t)plan->count + n,
                sizeof *plan->smps, err) < 0)
        return -1;
    while (at < plan->count && plan->smps[at].kind == CS_PLAN_SMP_PORT255)
        at++;
    memmove(plan->smps + at + n, plan->smps + at, (plan->count - at) * sizeof *plan->smps);
    memcpy(plan->smps + at, smps, n * sizeof *smps);
    plan->count += n;
    plan->hypervisor_smps += n;
    return 0;
}

/* The lowest unicast LID that no port, VM or table target holds. */
static uint16_t free_lid(const struct cs_fabric *f, const struct cs_vm_state *s,
                         const struct cs_lfts *t, struct cs_error *err)
{
    uint8_t *used = cs_calloc_array(CS_LID_UCAST_MAX + 1u, 1, err);
    if (!used)
        return 0;
    for (uint32_t p = 0; p < f->num_port_slots; p++) {
        const struct cs_port *port = &f->ports[p];
        for (uint32_t k = 0; port->lid && k < (1u << port->lmc); k++)
            if (port->lid + k <= CS_LID_UCAST_MAX)
                used[port->lid + k] = 1;
    }
    for (uint32_t i = 0; i < s->count; i++)
        used[s->vms[i].lid] = 1;
    for (uint32_t lid = 1; lid < t->capacity && lid <= CS_LID_UCAST_MAX; lid++)
        if (t->targets[lid].type)
            used[lid] = 1;
    uint16_t lid = 1;
    while (lid <= CS_LID_UCAST_MAX && used[lid])
        lid++;
    free(used);
    if (lid > CS_LID_UCAST_MAX) {
        cs_fail(err, "no free unicast LID: all %u are taken", CS_UNICAST_LIDS);
        return 0;
    }
    return lid;
}

/* Change the LFTs for u between two ends and put the hypervisor SMPs in their place: the
 * destination's (to_dst) after the invalidations, the source's (to_src) after the LFT blocks. */
static int update_lfts(struct cs_switch_tree *tr, struct cs_lfts *t, enum cs_plan_method method,
                       const struct cs_plan_ends *ends, const struct cs_lid_update *u, bool port255,
                       const struct cs_plan_smp *to_dst, uint32_t num_dst,
                       const struct cs_plan_smp *to_src, uint32_t num_src, struct cs_plan *plan,
                       struct cs_error *err)
{
    uint32_t *tables = cs_calloc_array(t->num_switches + 1u, sizeof *tables, err);
    if (!tables)
        return -1;
    uint32_t active, at = plan->count;
    uint32_t count = cs_plan_select(tr, method, t, ends, tables, &active);
    plan->switches_selected += count;
    plan->switches_active += active;
    int rc = cs_lid_update_apply(t, u, tables, count, active, port255, method == CS_PLAN_ITRC, plan,
                                 err);
    free(tables);
    if (rc < 0 || insert_hypervisor_smps(plan, at, to_dst, num_dst, err) < 0)
        return -1;
    return insert_hypervisor_smps(plan, plan->count, to_src, num_src, err);
}

static int migrate(struct cs_fabric *f, const struct cs_hypervisors *h, struct cs_switch_tree *tr,
                   struct cs_lfts *t, struct cs_vm_state *s, uint32_t vm_index,
                   const struct cs_vm_request *req, const struct cs_vm_plan_options *opt,
                   struct cs_plan *plan, struct cs_error *err)
{
    struct cs_vm *vm = &s->vms[vm_index];
    struct place src, dst;
    if (find_place(f, h, vm->hypervisor, vm->vf, &src, err) < 0 ||
        destination(f, h, s, req, &dst, err) < 0)
        return -1;
    if (f->ports[src.port].lid != vm->lid)
        return cs_fail(err,
                       "VM '%s' has LID %u but its VF's port has LID %u: the state and the "
                       "LIDs in use disagree",
                       vm->name, vm->lid, f->ports[src.port].lid);
    struct cs_plan_ends ends = {.src_leaf = h->items[src.hyp].leaf,
                                .dst_leaf = h->items[dst.hyp].leaf,
                                .lid_at_src = vm->lid};
    struct cs_lid_update u = {.lid = vm->lid};
    struct cs_plan_smp hyp[3]; /* source, destination, vGUID */
    if (s->lid_policy == CS_LID_PREPOPULATED) {
        /* The VM keeps its LID; the VF it leaves takes the destination VF's. */
        uint16_t dst_lid = f->ports[dst.port].lid;
        if (!dst_lid)
            return cs_fail(err,
                           "VF %u of hypervisor 0x%016" PRIx64 " has no LID (prepopulated "
                           "VF LIDs: every VF has one)",
                           dst.vf, req->hypervisor);
        u.kind = CS_LID_SWAP;
        u.other = dst_lid;
        ends.lid_at_dst = dst_lid;
        hyp[0] = hyp_smp(CS_PLAN_SMP_LID_SET, &src, dst_lid, 0);
        hyp[1] = hyp_smp(CS_PLAN_SMP_LID_SET, &dst, vm->lid, 0);
    } else {
        u.kind = CS_LID_COPY;
        u.other = pf_lid(f, h, dst.hyp);
        ends.lid_at_dst = u.other;
        hyp[0] = hyp_smp(CS_PLAN_SMP_LID_UNSET, &src, vm->lid, 0);
        hyp[1] = hyp_smp(CS_PLAN_SMP_LID_SET, &dst, vm->lid, 0);
    }
    hyp[2] = hyp_smp(CS_PLAN_SMP_VGUID_SET, &dst, 0, vm->vguid);
    if (update_lfts(tr, t, (enum cs_plan_method)opt->method, &ends, &u, opt->port255, hyp + 1, 2,
                    hyp, 1, plan, err) < 0)
        return -1;
    /* Only the two ends' vSwitch tables change: every other vSwitch sends both LIDs to its
     * uplink before the move and after it. */
    if (u.kind == CS_LID_SWAP) {
        set_owner(f, t, u.other, src.port);
        vswitch_entry(f, h, tr, t, src.hyp, u.other, src.port);
        vswitch_entry(f, h, tr, t, dst.hyp, u.other, src.port);
    } else {
        f->ports[src.port].lid = 0;
    }
    set_owner(f, t, vm->lid, dst.port);
    vswitch_entry(f, h, tr, t, src.hyp, vm->lid, dst.port);
    vswitch_entry(f, h, tr, t, dst.hyp, vm->lid, dst.port);
    vm->hypervisor = req->hypervisor;
    vm->vf = dst.vf;
    return 0;
}

static int create(struct cs_fabric *f, const struct cs_hypervisors *h, struct cs_switch_tree *tr,
                  struct cs_lfts *t, struct cs_vm_state *s, const struct cs_vm_request *req,
                  struct cs_plan *plan, struct cs_error *err)
{
    struct place dst;
    if (destination(f, h, s, req, &dst, err) < 0)
        return -1;
    struct cs_vm vm = {.vguid = req->vguid, .hypervisor = req->hypervisor, .vf = dst.vf};
    memcpy(vm.name, req->name, strlen(req->name) + 1);
    struct cs_plan_smp vguid = hyp_smp(CS_PLAN_SMP_VGUID_SET, &dst, 0, req->vguid);
    if (s->lid_policy == CS_LID_PREPOPULATED) {
        vm.lid = f->ports[dst.port].lid;
        if (!vm.lid)
            return cs_fail(err,
                           "VF %u of hypervisor 0x%016" PRIx64 " has no LID (prepopulated "
                           "VF LIDs: every VF has one)",
                           dst.vf, req->hypervisor);
        if (cs_vm_state_add(s, &vm, err) < 0)
            return -1;
        return insert_hypervisor_smps(plan, plan->count, &vguid, 1, err);
    }
    /* Dynamic: a new LID, reachable from everywhere: every physical switch copies the PF's
     * entry, whatever the method (a new LID has no old place to limit the update to). */
    vm.lid = free_lid(f, s, t, err);
    if (!vm.lid || cs_lfts_grow(t, vm.lid, err) < 0 || cs_vm_state_add(s, &vm, err) < 0)
        return -1;
    struct cs_plan_smp hyp[2] = {hyp_smp(CS_PLAN_SMP_LID_SET, &dst, vm.lid, 0), vguid};
    struct cs_plan_ends ends = {.src_leaf = h->items[dst.hyp].leaf,
                                .dst_leaf = h->items[dst.hyp].leaf,
                                .lid_at_src = pf_lid(f, h, dst.hyp),
                                .lid_at_dst = pf_lid(f, h, dst.hyp)};
    struct cs_lid_update u = {.kind = CS_LID_COPY, .lid = vm.lid, .other = pf_lid(f, h, dst.hyp)};
    if (update_lfts(tr, t, CS_PLAN_ITRC, &ends, &u, false, hyp, 2, NULL, 0, plan, err) < 0) {
        cs_vm_state_remove(s, s->count - 1);
        return -1;
    }
    set_owner(f, t, vm.lid, dst.port);
    /* Every vSwitch forwards a LID that is not its VFs' to its uplink. */
    vswitch_entries(f, h, tr, t, vm.lid, dst.port);
    return 0;
}

static int destroy(struct cs_fabric *f, const struct cs_hypervisors *h, struct cs_switch_tree *tr,
                   struct cs_lfts *t, struct cs_vm_state *s, uint32_t vm_index,
                   struct cs_plan *plan, struct cs_error *err)
{
    struct cs_vm vm = s->vms[vm_index];
    struct place src;
    if (find_place(f, h, vm.hypervisor, vm.vf, &src, err) < 0)
        return -1;
    struct cs_plan_smp hyp[2];
    uint32_t n = 0;
    if (s->lid_policy == CS_LID_DYNAMIC)
        hyp[n++] = hyp_smp(CS_PLAN_SMP_LID_UNSET, &src, vm.lid, 0);
    hyp[n++] = hyp_smp(CS_PLAN_SMP_VGUID_UNSET, &src, 0, vm.vguid);
    if (insert_hypervisor_smps(plan, plan->count, hyp, n, err) < 0)
        return -1;
    if (s->lid_policy == CS_LID_DYNAMIC) {
        /* The LID is free again. The physical switches keep their entries (no LFT SMP): they lead
         * to the vSwitch, which drops the LID once its VF has none. A later create copies over
         * them where they differ. */
        vswitch_entry(f, h, tr, t, src.hyp, vm.lid, CS_NONE);
        f->ports[src.port].lid = 0;
        set_owner(f, t, vm.lid, CS_NONE);
    }
    cs_vm_state_remove(s, vm_index);
    return 0;
}

uint32_t cs_vm_plan_drop_idle_vf_lids(struct cs_fabric *f, const struct cs_hypervisors *h,
                                      const struct cs_vm_state *s, struct cs_lfts *t)
{
    uint32_t dropped = 0;
    for (uint32_t i = 0; i < h->count; i++)
        for (unsigned k = 1; k <= h->items[i].num_vfs; k++) {
            uint32_t port = cs_hypervisor_vf_port(h, i, k);
            uint16_t lid = f->ports[port].lid;
            if (!lid || vm_at(s, f->nodes[h->items[i].node].guid, (uint8_t)k) != CS_NONE)
                continue;
            f->ports[port].lid = 0;
            if (lid < t->capacity && t->targets[lid].port_guid == f->ports[port].guid)
                memset(&t->targets[lid], 0, sizeof t->targets[lid]);
            dropped++;
        }
    return dropped;
}

/* ---- Shared port: the VMs of an HCA share its port and LID --------------------------------- */

static int shared_port_place(const struct cs_fabric *f, const struct cs_key_index *nodes,
                             uint64_t guid, uint8_t vf, struct place *p, struct cs_error *err)
{
    p->port = cs_shared_port_of(f, nodes, guid);
    if (p->port == CS_NONE)
        return cs_fail(err, "0x%016" PRIx64 " is not a cabled CA (HCA) of the fabric", guid);
    if (!f->ports[p->port].lid)
        return cs_fail(err, "HCA 0x%016" PRIx64 " has no LID", guid);
    p->hyp = CS_NONE;
    p->node = f->ports[p->port].node;
    p->vf = vf;
    return 0;
}

static int shared_port_run(const struct cs_fabric *f, struct cs_vm_state *s, uint32_t vm_index,
                           const struct cs_vm_request *req, struct cs_plan *plan,
                           struct cs_error *err)
{
    struct cs_key_index nodes;
    cs_key_index_init(&nodes);
    struct place src = {0}, dst = {0}; /* (set before use: gcc -O3 cannot see it) */
    struct cs_plan_smp smps[2];
    uint32_t n = 0;
    int rc = cs_key_index_nodes(&nodes, f, err);
    if (rc == 0 && req->op != CS_VM_CREATE) {
        const struct cs_vm *vm = &s->vms[vm_index];
        rc = shared_port_place(f, &nodes, vm->hypervisor, vm->vf, &src, err);
    }
    if (rc == 0 && req->op != CS_VM_DESTROY) {
        /* The VF asked for, or the lowest one no VM of the HCA holds. */
        uint8_t vf = req->vf;
        for (unsigned k = 1; !vf && k <= CS_VFS_MAX; k++)
            if (vm_at(s, req->hypervisor, (uint8_t)k) == CS_NONE)
                vf = (uint8_t)k;
        uint32_t other = vf ? vm_at(s, req->hypervisor, vf) : CS_NONE;
        if (!vf)
            rc = cs_fail(err, "HCA 0x%016" PRIx64 " has no free VF (all %u run a VM)",
                         req->hypervisor, CS_VFS_MAX);
        else if (other != CS_NONE)
            rc = cs_fail(err, "VF %u of HCA 0x%016" PRIx64 " runs VM '%s'", vf, req->hypervisor,
                         s->vms[other].name);
        else
            rc = shared_port_place(f, &nodes, req->hypervisor, vf, &dst, err);
    }
    cs_key_index_free(&nodes);
    if (rc < 0)
        return -1;
    if (req->op == CS_VM_CREATE) {
        struct cs_vm vm = {.vguid = req->vguid,
                           .lid = f->ports[dst.port].lid,
                           .hypervisor = req->hypervisor,
                           .vf = dst.vf};
        memcpy(vm.name, req->name, strlen(req->name) + 1);
        if (cs_vm_state_add(s, &vm, err) < 0)
            return -1;
        smps[n++] = hyp_smp(CS_PLAN_SMP_VGUID_SET, &dst, 0, req->vguid);
    } else if (req->op == CS_VM_DESTROY) {
        smps[n++] = hyp_smp(CS_PLAN_SMP_VGUID_UNSET, &src, 0, s->vms[vm_index].vguid);
        cs_vm_state_remove(s, vm_index);
    } else {
        /* The destination answers for the vGUID first; the VM takes its HCA's LID. */
        struct cs_vm *vm = &s->vms[vm_index];
        smps[n++] = hyp_smp(CS_PLAN_SMP_VGUID_SET, &dst, 0, vm->vguid);
        smps[n++] = hyp_smp(CS_PLAN_SMP_VGUID_UNSET, &src, 0, vm->vguid);
        vm->lid = f->ports[dst.port].lid;
        vm->hypervisor = req->hypervisor;
        vm->vf = dst.vf;
    }
    return insert_hypervisor_smps(plan, plan->count, smps, n, err);
}

const char *cs_vm_op_name(enum cs_vm_op op)
{
    return op == CS_VM_CREATE ? "create" : op == CS_VM_DESTROY ? "destroy" : "migrate";
}

int cs_vm_op_parse(const char *text, enum cs_vm_op *op)
{
    for (enum cs_vm_op o = CS_VM_CREATE; o <= CS_VM_MIGRATE; o++)
        if (strcmp(text, cs_vm_op_name(o)) == 0) {
            *op = o;
            return 0;
        }
    return -1;
}

int cs_vm_plan_run(struct cs_fabric *f, const struct cs_hypervisors *h, struct cs_switch_tree *tr,
                   struct cs_lfts *t, struct cs_vm_state *s, const struct cs_vm_request *req,
                   const struct cs_vm_plan_options *opt, struct cs_plan *plan, struct cs_error *err)
{
    if (req->op > CS_VM_MIGRATE)
        return cs_fail(err, "unknown VM operation %u", req->op);
    uint32_t vm = cs_vm_state_find(s, req->name);
    if (req->op == CS_VM_CREATE && vm != CS_NONE)
        return cs_fail(err, "VM '%s' exists already", req->name);
    if (req->op == CS_VM_CREATE && strlen(req->name) > CS_VM_NAME_MAX)
        return cs_fail(err, "VM name '%.20s...' is longer than %u characters", req->name,
                       CS_VM_NAME_MAX);
    if (req->op != CS_VM_CREATE && vm == CS_NONE)
        return cs_fail(err, "no VM '%s' in the state", req->name);
    if (req->op == CS_VM_MIGRATE && s->vms[vm].hypervisor == req->hypervisor &&
        (!req->vf || s->vms[vm].vf == req->vf))
        return cs_fail(err, "VM '%s' runs on hypervisor 0x%016" PRIx64 " already", req->name,
                       req->hypervisor);
    uint16_t before = vm != CS_NONE ? s->vms[vm].lid : 0;
    int rc;
    if (s->lid_policy == CS_LID_SHARED_PORT)
        rc = shared_port_run(f, s, vm, req, plan, err);
    else if (req->op == CS_VM_CREATE)
        rc = create(f, h, tr, t, s, req, plan, err);
    else if (req->op == CS_VM_DESTROY)
        rc = destroy(f, h, tr, t, s, vm, plan, err);
    else
        rc = migrate(f, h, tr, t, s, vm, req, opt, plan, err);
    if (rc < 0)
        return -1;
    uint32_t after = cs_vm_state_find(s, req->name);
    plan->vm_lid_before = before;
    plan->vm_lid_after = after != CS_NONE ? s->vms[after].lid : 0;
    return 0;
}
