/* The SM core's VMs (include/cloudsm/sm_core.h, docs/sm/vms.md): VM LIDs in sweeps, VM routes
 * that survive sweeps, and live VM operations planned by src/reconf and sent in batches. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/alias_guids.h"
#include "cloudsm/clock.h"
#include "cloudsm/key_index.h"
#include "core/grow.h"
#include "sm/core_internal.h"

#define LID_SPACE (CS_LID_UCAST_MAX + 1u)

static const struct cs_vm_state *state_of(const struct cs_sm_core *c)
{
    return &c->files.route.vms;
}

const struct cs_vm_state *cs_sm_core_vms(const struct cs_sm_core *c)
{
    return state_of(c);
}

enum cs_lid_policy cs_sm_core_vm_policy(const struct cs_sm_core *c)
{
    if (c->files.route.has_vms && state_of(c)->count > 0)
        return state_of(c)->lid_policy;
    return (enum cs_lid_policy)c->cfg.vm_lid_policy;
}

/* The port of the VF a VM runs on in this sweep, CS_NONE when its hypervisor (or VF) is away. */
static uint32_t vm_port(const struct cs_sm_core *c, const struct cs_vm *vm)
{
    uint32_t hyp = cs_hypervisor_by_guid(&c->hyps, &c->sweep.fabric, vm->hypervisor);
    return hyp == CS_NONE ? CS_NONE : cs_hypervisor_vf_port(&c->hyps, hyp, vm->vf);
}

static int add_entry(struct cs_guid2lid *g, uint64_t guid, uint16_t min_lid, uint16_t max_lid,
                     struct cs_error *err)
{
    if (cs_grow((void **)&g->entries, &g->capacity, (uint64_t)g->count + 1, sizeof *g->entries,
                err) < 0)
        return -1;
    g->entries[g->count++] = (struct cs_guid2lid_entry){guid, min_lid, max_lid};
    return 0;
}

/* ---- Sweeps ---------------------------------------------------------------------------------- */

int cs_sm_core_vms_before_lids(struct cs_sm_core *c, struct cs_guid2lid *pinned,
                               struct cs_error *err)
{
    struct cs_fabric *f = &c->sweep.fabric;
    memset(pinned, 0, sizeof *pinned);
    cs_hypervisors_free(&c->hyps);
    if (cs_hypervisors_find(f, &c->hyps, err) < 0)
        return -1;
    const struct cs_vm_state *s = state_of(c);
    bool *has_vm = cs_calloc_array(f->num_port_slots + 1u, sizeof *has_vm, err);
    uint8_t *vm_lid = cs_calloc_array(LID_SPACE, 1, err);
    int rc = has_vm && vm_lid ? 0 : -1;
    for (uint32_t i = 0; rc == 0 && i < s->count; i++) {
        const struct cs_vm *vm = &s->vms[i];
        uint32_t port = vm_port(c, vm);
        vm_lid[vm->lid] = 1;
        if (port != CS_NONE) {
            has_vm[port] = true;
            rc = add_entry(pinned, f->ports[port].guid, vm->lid, vm->lid, err);
        } else {
            /* Its vGUID stands for the VF while the hypervisor is away: the LID is held for it
             * as for any absent port, and its routes are left alone. */
            cs_logf(&c->log, CS_LOG_WARN,
                    "vms: VM '%s': hypervisor 0x%016" PRIx64 " VF %u is not in the fabric: "
                    "LID %u held for it",
                    vm->name, vm->hypervisor, vm->vf, vm->lid);
            rc = add_entry(pinned, vm->vguid, vm->lid, vm->lid, err);
        }
    }
    /* The stored entries, but for VFs that run a VM (pinned above) and LIDs a VM has (a VF's
     * stored LID that a VM took elsewhere: a crash between the VM state and guid2lid). */
    struct cs_key_index vm_ports;
    cs_key_index_init(&vm_ports);
    for (uint32_t p = 0; rc == 0 && p < f->num_port_slots; p++)
        if (has_vm[p])
            rc = cs_key_index_add(&vm_ports, f->ports[p].guid, p, err);
    cs_key_index_sort(&vm_ports);
    for (uint32_t i = 0; rc == 0 && i < c->guid2lid.count; i++) {
        const struct cs_guid2lid_entry *e = &c->guid2lid.entries[i];
        bool taken = cs_key_index_find(&vm_ports, e->guid) != CS_NONE;
        for (uint32_t lid = e->min_lid; lid <= e->max_lid && lid < LID_SPACE; lid++)
            taken |= vm_lid[lid] != 0;
        if (!taken)
            rc = add_entry(pinned, e->guid, e->min_lid, e->max_lid, err);
    }
    cs_key_index_free(&vm_ports);
    free(c->sweep.lid_withheld);
    c->sweep.lid_withheld = NULL;
    if (rc == 0 && cs_sm_core_vm_policy(c) == CS_LID_DYNAMIC && c->hyps.num_vfs) {
        c->sweep.lid_withheld = cs_calloc_array(f->num_port_slots + 1u, sizeof(bool), err);
        if (c->sweep.lid_withheld == NULL)
            rc = -1;
        /* The SM's own port keeps its LID even on a VF (on ibsim the SM runs on a CA of the
         * file, which in a vSwitch fabric is a VF). */
        for (uint32_t i = 0; rc == 0 && i < c->hyps.num_vfs; i++)
            c->sweep.lid_withheld[c->hyps.vf_port[i]] =
                !has_vm[c->hyps.vf_port[i]] && c->hyps.vf_port[i] != c->sweep.sm_port;
    }
    free(has_vm);
    free(vm_lid);
    if (rc < 0)
        cs_guid2lid_free(pinned);
    return rc;
}

void cs_sm_core_vms_drop_vguids(const struct cs_sm_core *c, struct cs_guid2lid *g)
{
    const struct cs_vm_state *s = state_of(c);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < g->count; i++) {
        bool vguid = false;
        for (uint32_t v = 0; v < s->count && !vguid; v++)
            vguid = s->vms[v].vguid == g->entries[i].guid;
        if (!vguid)
            g->entries[kept++] = g->entries[i];
    }
    g->count = kept;
}

/* Dynamic LIDs: the tables cover every LID a VM can be given before the next sweep (the LIDs in
 * use plus one per idle VF, within what every switch forwards), so that a create needs no
 * LinearFDBTop change; every vSwitch sends each LID that is not its VFs' to its uplink, as vSwitch
 * hardware does by itself, so that a create changes the two ends only. */
static int dynamic_tables(struct cs_sm_core *c, struct cs_error *err)
{
    const struct cs_fabric *f = &c->sweep.fabric;
    uint32_t in_use = 0, idle = 0;
    for (uint32_t p = 0; p < f->num_port_slots; p++)
        in_use += f->ports[p].lid != 0;
    for (uint32_t i = 0; i < c->hyps.num_vfs; i++)
        idle += f->ports[c->hyps.vf_port[i]].lid == 0;
    uint32_t ceiling = in_use + idle;
    uint16_t limit = cs_sm_lid_limit(&c->sweep, NULL);
    if (ceiling > limit)
        ceiling = limit;
    if (ceiling > c->lfts.max_lid && cs_lfts_grow(&c->lfts, (uint16_t)ceiling, err) < 0)
        return -1;
    for (uint32_t i = 0; i < c->hyps.count; i++) {
        const struct cs_hypervisor *h = &c->hyps.items[i];
        uint32_t table = CS_NONE;
        for (uint32_t t = 0; t < c->lfts.num_switches && table == CS_NONE; t++)
            if (c->lfts.switches[t].node == h->node)
                table = t;
        if (table == CS_NONE)
            continue;
        uint8_t *entries = cs_lfts_table(&c->lfts, table);
        for (uint32_t lid = 1; lid <= c->lfts.max_lid; lid++)
            if (entries[lid] == CS_LFT_NO_ROUTE)
                entries[lid] = h->uplink;
    }
    return 0;
}

/* Write the VM state to its file (atomically) and note it as the SM's own, so that a SIGHUP does
 * not take the SM's write for someone else's change. */
static int write_vm_state(struct cs_sm_core *c, struct cs_error *err)
{
    if (cs_vm_state_write_file(c->vm_state_path, state_of(c), err) < 0)
        return -1;
    return cs_sm_files_note_written(&c->files, CS_SM_FILE_VM_STATE, c->vm_state_path, err);
}

/* Keep the live routes (the VM state's live_routes: set by live reconfigurations) as the
 * switches hold them where they still lead to the LID's owner: the tables stay what the
 * reconfigurations made them. A live route that no longer does is the engine's again, and leaves
 * the set (written back). */
static int keep_vm_routes(struct cs_sm_core *c, struct cs_error *err)
{
    struct cs_vm_state *s = &c->files.route.vms;
    bool *kept = cs_calloc_array(s->num_live_routes + 1u, sizeof *kept, err);
    int n =
        kept ? cs_sm_core_keep_held_routes(c, s->live_routes, s->num_live_routes, kept, err) : -1;
    uint32_t replaced = 0, next = 0;
    for (uint32_t i = 0; n >= 0 && i < s->num_live_routes; i++) {
        if (kept[i])
            s->live_routes[next++] = s->live_routes[i];
        else
            replaced++;
    }
    if (n >= 0)
        s->num_live_routes = next;
    free(kept);
    if (n < 0)
        return -1;
    if (n || replaced)
        cs_logf(&c->log, CS_LOG_INFO,
                "vms: %d live routes kept as the switches hold them, %u routed by the engine "
                "again (they no longer led to their LID's owner)",
                n, replaced);
    return replaced ? write_vm_state(c, err) : 0;
}

int cs_sm_core_vms_shape_tables(struct cs_sm_core *c, struct cs_error *err)
{
    if (c->hyps.count == 0 || cs_sm_core_vm_policy(c) != CS_LID_DYNAMIC)
        return 0;
    return dynamic_tables(c, err);
}

int cs_sm_core_vms_keep_routes(struct cs_sm_core *c, struct cs_sm_lft_counts *reads,
                               struct cs_error *err)
{
    if (state_of(c)->num_live_routes == 0)
        return 0;
    /* What the switches hold must be known to be kept: a restart reads it back here (the
     * programming that follows then reads nothing twice). */
    if (cs_sm_core_read_held(c, reads, err) < 0)
        return -1;
    return keep_vm_routes(c, err);
}

int cs_sm_core_vms_forget_live_routes(struct cs_sm_core *c, struct cs_error *err)
{
    struct cs_vm_state *s = &c->files.route.vms;
    if (s->num_live_routes == 0)
        return 0;
    cs_logf(&c->log, CS_LOG_INFO, "vms: %u live routes replaced by the engine's",
            s->num_live_routes);
    s->num_live_routes = 0;
    return write_vm_state(c, err);
}

int cs_sm_core_vms_tables_changed(struct cs_sm_core *c, struct cs_error *err)
{
    if (c->tree_ready)
        cs_switch_tree_free(&c->tree);
    c->tree_ready = false;
    if (cs_switch_tree_init(&c->tree, &c->sweep.fabric, &c->hyps, &c->lfts, err) < 0)
        return -1;
    c->tree_ready = true;
    return 0;
}

void cs_sm_core_vms_free(struct cs_sm_core *c)
{
    if (c->tree_ready)
        cs_switch_tree_free(&c->tree);
    c->tree_ready = false;
    cs_hypervisors_free(&c->hyps);
}

/* ---- vGUIDs: a VM's virtual port GUID is an alias GUID of its VF's port (alias_guids.h) ---- */

/* Register vguid on the VF port p (its entry 1, or the first free one): wherever it was
 * registered before (the VF the VM left), it is removed there first. 0 when the port's GUIDCap
 * leaves no room for it (logged), -1 with err on no memory. The GUIDInfo blocks that change go
 * out with cs_sm_program_alias_guids. */
static int vguid_register(struct cs_sm_core *c, uint32_t p, uint64_t vguid, struct cs_error *err)
{
    struct cs_alias_guids *a = c->aliases;
    const struct cs_fabric *f = &c->sweep.fabric;
    uint64_t port_guid = f->ports[p].guid, at;
    unsigned index;
    if (cs_alias_guids_find(a, vguid, &at, &index)) {
        if (at == port_guid)
            return 0;
        cs_alias_guids_remove(a, at, index);
    }
    unsigned cap = c->sweep.port_info_valid[p] ? c->sweep.port_info[p].guid_cap : 0;
    if (cap < 2) {
        cs_logf(&c->log, CS_LOG_WARN,
                "vms: port 0x%016" PRIx64 " has GUIDCap %u: no room for vGUID 0x%016" PRIx64
                " (the SA does not resolve it)",
                port_guid, cap, vguid);
        return 0;
    }
    if (cs_alias_guids_open(a, port_guid, cap, err) < 0)
        return -1;
    uint64_t block[CS_ALIAS_GUIDS_PER_BLOCK];
    for (unsigned i = 1; i < cap; i++) {
        cs_alias_guids_block(a, port_guid, i / CS_ALIAS_GUIDS_PER_BLOCK, block);
        if (block[i % CS_ALIAS_GUIDS_PER_BLOCK] == 0)
            return cs_alias_guids_put(a, port_guid, i, vguid, err);
    }
    cs_logf(&c->log, CS_LOG_WARN,
            "vms: port 0x%016" PRIx64 " has no free GUIDInfo entry for vGUID 0x%016" PRIx64,
            port_guid, vguid);
    return 0;
}

static void vguid_unregister(struct cs_sm_core *c, uint64_t vguid)
{
    uint64_t at;
    unsigned index;
    if (cs_alias_guids_find(c->aliases, vguid, &at, &index))
        cs_alias_guids_remove(c->aliases, at, index);
}

int cs_sm_core_vms_register_vguids(struct cs_sm_core *c, struct cs_error *err)
{
    const struct cs_vm_state *s = state_of(c);
    for (uint32_t i = 0; i < s->count; i++) {
        uint32_t p = vm_port(c, &s->vms[i]);
        if (p != CS_NONE && vguid_register(c, p, s->vms[i].vguid, err) < 0)
            return -1;
    }
    return 0;
}

/* ---- Live operations ------------------------------------------------------------------------ */

/* The VF a create or migration goes to, chosen here rather than by the planner: the lowest free
 * one that is not the SM's own port (on ibsim the SM runs on a VF). -1 with err when there is
 * none, or when the one asked for is the SM's. */
static int choose_vf(const struct cs_sm_core *c, struct cs_vm_request *req, struct cs_error *err)
{
    if (req->op == CS_VM_DESTROY)
        return 0;
    uint32_t hyp = cs_hypervisor_by_guid(&c->hyps, &c->sweep.fabric, req->hypervisor);
    if (hyp == CS_NONE)
        return 0; /* the planner says what is wrong */
    const struct cs_vm_state *s = state_of(c);
    if (req->vf) {
        if (cs_hypervisor_vf_port(&c->hyps, hyp, req->vf) == c->sweep.sm_port)
            return cs_fail(err, "VF %u of hypervisor 0x%016" PRIx64 " is the SM's own port",
                           req->vf, req->hypervisor);
        return 0;
    }
    bool sm_here = false;
    for (unsigned k = 1; k <= c->hyps.items[hyp].num_vfs; k++) {
        if (cs_hypervisor_vf_port(&c->hyps, hyp, k) == c->sweep.sm_port) {
            sm_here = true;
            continue;
        }
        bool taken = false;
        for (uint32_t v = 0; v < s->count && !taken; v++)
            taken = s->vms[v].hypervisor == req->hypervisor && s->vms[v].vf == k;
        if (!taken) {
            req->vf = (uint8_t)k;
            return 0;
        }
    }
    return cs_fail(err, "hypervisor 0x%016" PRIx64 " has no free VF (its %u VFs run VMs%s)",
                   req->hypervisor, c->hyps.items[hyp].num_vfs,
                   sm_here ? " or hold the SM's own port" : "");
}

/* The switches an operation may touch, as fabric nodes marked in a bitmap the batch shares:
 * FTreeMinRC's marked sub-trees and the two vSwitches; ItRC and a dynamic create, everything. */
struct footprint {
    bool everything;
    uint32_t count;
    uint32_t *nodes; /* room for every node */
};

static void footprint_of(struct cs_sm_core *c, const struct cs_sm_vm_job *job, struct footprint *fp)
{
    const struct cs_fabric *f = &c->sweep.fabric;
    const struct cs_vm_state *s = state_of(c);
    fp->everything = false;
    fp->count = 0;
    uint32_t vm = cs_vm_state_find(s, job->req.name);
    uint32_t src =
        vm == CS_NONE ? CS_NONE : cs_hypervisor_by_guid(&c->hyps, f, s->vms[vm].hypervisor);
    uint32_t dst = job->req.op == CS_VM_DESTROY
                       ? CS_NONE
                       : cs_hypervisor_by_guid(&c->hyps, f, job->req.hypervisor);
    bool dynamic = cs_sm_core_vm_policy(c) == CS_LID_DYNAMIC;
    if ((job->req.op == CS_VM_CREATE && dynamic) ||
        (job->req.op == CS_VM_MIGRATE && job->opt.method == CS_PLAN_ITRC)) {
        fp->everything = true;
        return;
    }
    if (job->req.op == CS_VM_MIGRATE && src != CS_NONE && dst != CS_NONE)
        fp->count =
            cs_minrc_mark(&c->tree, c->hyps.items[src].leaf, c->hyps.items[dst].leaf, fp->nodes);
    if (src != CS_NONE)
        fp->nodes[fp->count++] = c->hyps.items[src].node;
    if (dst != CS_NONE)
        fp->nodes[fp->count++] = c->hyps.items[dst].node;
}

/* Whether fp meets what the batch has claimed; claim it either way (a deferred job keeps the
 * later ones that conflict with it behind it). */
static bool claim(uint8_t *claimed, bool *everything_claimed, bool *anything_claimed,
                  const struct footprint *fp)
{
    bool conflict = *everything_claimed || (fp->everything && *anything_claimed);
    for (uint32_t i = 0; i < fp->count; i++)    /* all checked before any is marked: a node may */
        conflict |= claimed[fp->nodes[i]] != 0; /* be listed twice (a move within a hypervisor) */
    for (uint32_t i = 0; i < fp->count; i++)
        claimed[fp->nodes[i]] = 1;
    *everything_claimed |= fp->everything;
    *anything_claimed |= fp->everything || fp->count > 0;
    return conflict;
}

/* The stages a batch is sent in: each plan's SMPs in its own order, the plans side by side. */
enum stage {
    STAGE_INVALIDATE,  /* port-255 blocks */
    STAGE_DESTINATION, /* the destination hypervisor: the VF takes the LID */
    STAGE_LFTS,        /* the physical switches' new entries */
    STAGE_SOURCE,      /* the source hypervisor: the VF lets the LID go */
    STAGE_VSWITCHES,   /* any other vSwitch table that does not forward the LIDs as it should */
    STAGES
};

static enum stage stage_of(const struct cs_plan *plan, uint32_t i)
{
    const struct cs_plan_smp *smp = &plan->smps[i];
    if (smp->kind == CS_PLAN_SMP_PORT255)
        return STAGE_INVALIDATE;
    if (smp->kind == CS_PLAN_SMP_LFT_BLOCK)
        return STAGE_LFTS;
    bool before_lfts = false, any_lft = false;
    for (uint32_t j = 0; j < plan->count; j++)
        if (plan->smps[j].kind == CS_PLAN_SMP_LFT_BLOCK) {
            any_lft = true;
            before_lfts = i < j;
            break;
        }
    if (any_lft)
        return before_lfts ? STAGE_DESTINATION : STAGE_SOURCE;
    return smp->kind == CS_PLAN_SMP_LID_SET || smp->kind == CS_PLAN_SMP_VGUID_SET
               ? STAGE_DESTINATION
               : STAGE_SOURCE;
}

/* What one stage sends. */
struct stage_work {
    struct cs_sm_lft_write *writes;
    int32_t *content_slot; /* [write] its block in contents, -1: want's block */
    uint32_t num_writes, cap_writes, cap_slots;
    uint32_t *ports;
    uint32_t num_ports, cap_ports;
    uint8_t *contents; /* port-255 blocks: 64 bytes each, in writes order */
    uint32_t num_contents, cap_contents;
    uint32_t vguid_changes;              /* vGUIDs registered or removed: GUIDInfo blocks to send */
    struct cs_sm_alias_counts guid_info; /* what sending them did */
};

/* Queue a write of a block: with want's content (slot -1), or contents' block slot. */
static int push_write(struct stage_work *w, uint32_t table, uint16_t block, int32_t slot,
                      struct cs_error *err)
{
    for (uint32_t i = 0; slot < 0 && i < w->num_writes; i++)
        if (w->writes[i].table == table && w->writes[i].block == block && w->content_slot[i] < 0)
            return 0; /* two plans' writes of one block carry the same final content */
    if (cs_grow((void **)&w->writes, &w->cap_writes, (uint64_t)w->num_writes + 1, sizeof *w->writes,
                err) < 0 ||
        cs_grow((void **)&w->content_slot, &w->cap_slots, (uint64_t)w->num_writes + 1,
                sizeof *w->content_slot, err) < 0)
        return -1;
    w->content_slot[w->num_writes] = slot;
    w->writes[w->num_writes++] = (struct cs_sm_lft_write){table, block, NULL};
    return 0;
}

static int push_port(struct stage_work *w, uint32_t port, struct cs_error *err)
{
    for (uint32_t i = 0; i < w->num_ports; i++)
        if (w->ports[i] == port)
            return 0;
    if (cs_grow((void **)&w->ports, &w->cap_ports, (uint64_t)w->num_ports + 1, sizeof *w->ports,
                err) < 0)
        return -1;
    w->ports[w->num_ports++] = port;
    return 0;
}

/* A vSwitch table's blocks holding lids that differ from what it holds. */
static int push_vswitch_blocks(struct cs_sm_core *c, struct stage_work *w, uint32_t node,
                               const uint16_t *lids, uint32_t num_lids, uint64_t *counted,
                               struct cs_error *err)
{
    uint32_t table = c->tree.table_of_node[node];
    if (table == CS_NONE)
        return 0;
    for (uint32_t i = 0; i < num_lids; i++) {
        uint32_t block = lids[i] / CS_LFT_BLOCK;
        if (block >= cs_lfts_blocks(&c->held) ||
            (!cs_lfts_block_dirty(&c->held, table, block) &&
             memcmp(cs_lfts_table(&c->held, table) + (size_t)block * CS_LFT_BLOCK,
                    cs_lfts_table(&c->lfts, table) + (size_t)block * CS_LFT_BLOCK,
                    CS_LFT_BLOCK) == 0))
            continue;
        uint32_t before = w->num_writes;
        if (push_write(w, table, (uint16_t)block, -1, err) < 0)
            return -1;
        *counted += w->num_writes - before;
    }
    return 0;
}

static void stage_work_free(struct stage_work *w)
{
    free(w->writes);
    free(w->content_slot);
    free(w->ports);
    free(w->contents);
    memset(w, 0, sizeof *w);
}

/* The port-255 block of a plan's invalidation: what the switch holds (or will, when unknown)
 * with the moved LID dropped. */
static int push_invalidation(struct cs_sm_core *c, struct stage_work *w,
                             const struct cs_plan_smp *smp, struct cs_error *err)
{
    if (cs_grow((void **)&w->contents, &w->cap_contents,
                ((uint64_t)w->num_contents + 1) * CS_LFT_BLOCK, 1, err) < 0)
        return -1;
    uint8_t *content = w->contents + (size_t)w->num_contents * CS_LFT_BLOCK;
    const struct cs_lfts *base =
        cs_lfts_block_dirty(&c->held, smp->table, smp->block) ? &c->lfts : &c->held;
    memcpy(content, cs_lfts_table(base, smp->table) + (size_t)smp->block * CS_LFT_BLOCK,
           CS_LFT_BLOCK);
    content[smp->lid % CS_LFT_BLOCK] = CS_LFT_NO_ROUTE;
    return push_write(w, smp->table, smp->block, (int32_t)w->num_contents++, err);
}

/* Point the writes with a content of their own at it (contents moved while it grew). */
static void bind_contents(struct stage_work *w)
{
    for (uint32_t i = 0; i < w->num_writes; i++)
        if (w->content_slot[i] >= 0)
            w->writes[i].content = w->contents + (size_t)w->content_slot[i] * CS_LFT_BLOCK;
}

/* Send one stage; returns its failures, or -1. */
static int send_stage(struct cs_sm_core *c, struct stage_work *w, struct cs_error *err)
{
    unsigned failures = 0;
    bind_contents(w);
    if (w->num_writes) {
        struct cs_sm_lft_counts lc;
        if (cs_sm_write_lft_blocks(c->pipe, &c->sweep, &c->lfts, &c->held, w->writes, w->num_writes,
                                   &c->log, &lc, err) < 0)
            return -1;
        failures += lc.failures;
    }
    if (w->num_ports) {
        const struct cs_fabric *f = &c->sweep.fabric;
        struct cs_sm_port_settings settings = {
            .sm_lid = f->ports[c->sweep.sm_port].lid,
            .subnet_prefix = c->cfg.subnet_prefix,
            .m_key = c->cfg.m_key,
            .m_key_lease_period = (uint16_t)c->cfg.m_key_lease_period,
        };
        int pf = cs_sm_set_port_lids(c->pipe, &c->sweep, &settings, w->ports, w->num_ports, &c->log,
                                     err);
        if (pf < 0)
            return -1;
        failures += (unsigned)pf;
    }
    /* vGUIDs: the GUIDInfo blocks of the VF ports. An agent that refuses GUIDInfo Sets (ibsim
     * takes none) is no reason to sweep again: the SA answers from the SM's view either way. */
    if (w->vguid_changes &&
        cs_sm_program_alias_guids(c->pipe, &c->sweep, c->aliases, &c->log, &w->guid_info, err) < 0)
        return -1;
    return (int)failures;
}

/* Build stage `st` of every planned job into w, counting each job's SMPs by kind. */
static int build_stage(struct cs_sm_core *c, struct cs_sm_vm_job *jobs, const struct cs_plan *plans,
                       const bool *planned, uint32_t count, enum stage st, const uint16_t *lids,
                       uint32_t num_lids, struct stage_work *w, struct cs_error *err)
{
    for (uint32_t j = 0; j < count; j++) {
        if (!planned[j])
            continue;
        const struct cs_plan *plan = &plans[j];
        struct cs_sm_vm_result *r = &jobs[j].result;
        for (uint32_t i = 0; i < plan->count; i++) {
            const struct cs_plan_smp *smp = &plan->smps[i];
            if (st == STAGE_VSWITCHES || stage_of(plan, i) != st)
                continue;
            uint32_t before = w->num_writes;
            switch ((enum cs_plan_smp_kind)smp->kind) {
            case CS_PLAN_SMP_PORT255:
                if (push_invalidation(c, w, smp, err) < 0)
                    return -1;
                r->port255_smps++;
                break;
            case CS_PLAN_SMP_LFT_BLOCK:
                if (push_write(w, smp->table, smp->block, -1, err) < 0)
                    return -1;
                r->lft_smps += w->num_writes - before;
                break;
            case CS_PLAN_SMP_LID_SET:
            case CS_PLAN_SMP_LID_UNSET: {
                uint32_t hyp = c->hyps.of_node[smp->node];
                uint32_t port = cs_hypervisor_vf_port(&c->hyps, hyp, smp->vf);
                uint32_t ports_before = w->num_ports;
                if (push_port(w, port, err) < 0 ||
                    push_vswitch_blocks(c, w, smp->node, lids, num_lids, &r->vswitch_lft_smps,
                                        err) < 0)
                    return -1;
                r->port_info_smps += w->num_ports - ports_before;
                break;
            }
            case CS_PLAN_SMP_VGUID_SET: {
                uint32_t hyp = c->hyps.of_node[smp->node];
                if (vguid_register(c, cs_hypervisor_vf_port(&c->hyps, hyp, smp->vf), smp->vguid,
                                   err) < 0)
                    return -1;
                w->vguid_changes++;
                break;
            }
            case CS_PLAN_SMP_VGUID_UNSET:
                vguid_unregister(c, smp->vguid);
                w->vguid_changes++;
                break;
            }
        }
    }
    if (st != STAGE_VSWITCHES)
        return 0;
    /* A migration leaves every other vSwitch forwarding its LIDs to the uplink, as before; only a
     * LID new to the subnet (a create under dynamic LIDs) may find a table that never had it. */
    bool new_lids = false;
    for (uint32_t j = 0; j < count; j++)
        new_lids |= planned[j] && jobs[j].req.op == CS_VM_CREATE &&
                    state_of(c)->lid_policy == CS_LID_DYNAMIC;
    if (!new_lids)
        return 0;
    /* Every vSwitch: a table that does not forward the batch's LIDs as planned (one that never
     * got an entry for a LID new to the subnet) is mended; the first job of the batch pays. */
    uint32_t first = 0;
    while (first < count && !planned[first])
        first++;
    for (uint32_t i = 0; first < count && i < c->hyps.count; i++)
        if (push_vswitch_blocks(c, w, c->hyps.items[i].node, lids, num_lids,
                                &jobs[first].result.vswitch_lft_smps, err) < 0)
            return -1;
    return 0;
}

/* The LIDs whose routes a plan sets live (the VM's and, for a swap, the VF's it swaps with; a
 * dynamic LID a destroy frees, whose entries the switches keep). */
static int mark_live_routes(struct cs_sm_core *c, const struct cs_plan *plan,
                            const struct cs_sm_vm_job *job, struct cs_error *err)
{
    struct cs_vm_state *s = &c->files.route.vms;
    if (job->req.op == CS_VM_DESTROY) /* a freed dynamic LID's entries stay as they are */
        return s->lid_policy == CS_LID_DYNAMIC
                   ? cs_vm_state_mark_route_live(s, plan->vm_lid_before, err)
                   : 0;
    for (uint32_t i = 0; i < plan->count; i++) {
        const struct cs_plan_smp *smp = &plan->smps[i];
        bool routes = smp->kind == CS_PLAN_SMP_LFT_BLOCK || smp->kind == CS_PLAN_SMP_LID_SET;
        if (routes && smp->lid && cs_vm_state_mark_route_live(s, smp->lid, err) < 0)
            return -1;
    }
    return 0;
}

/* Write the VM state as it is after the batch's plans (before any SMP: the commit point). The
 * ports' LIDs go to guid2lid after the SMPs (cs_sm_core_vm_settle): a crash in between leaves
 * the VM state pinning the VMs' LIDs and a stale guid2lid for VFs without a VM, which a restart
 * numbers consistently (a swapped VF keeps the LID its port holds, or gets a free one). */
static int commit(struct cs_sm_core *c, struct cs_error *err)
{
    if (write_vm_state(c, err) < 0)
        return -1;
    c->guid2lid_stale = true;
    return 0;
}

int cs_sm_core_vm_settle(struct cs_sm_core *c, struct cs_error *err)
{
    if (!c->guid2lid_stale)
        return 0;
    cs_logf(&c->log, CS_LOG_DEBUG, "vms: guid2lid written (LIDs the VM operations moved)");
    struct cs_guid2lid kept;
    if (cs_sm_guid2lid_update(&c->sweep, &c->guid2lid, &kept, err) < 0)
        return -1;
    cs_sm_core_vms_drop_vguids(c, &kept);
    cs_guid2lid_free(&c->guid2lid);
    c->guid2lid = kept;
    c->guid2lid_stale = false;
    return cs_guid2lid_write_file(c->guid2lid_path, &c->guid2lid, err);
}

/* The VF ports whose LIDs the plans change (their LID SMPs), for the SA's view. */
static int moved_ports(const struct cs_sm_core *c, const struct cs_plan *plans, const bool *planned,
                       uint32_t count, uint32_t **out, uint32_t *n, struct cs_error *err)
{
    uint32_t cap = 0;
    *out = NULL;
    *n = 0;
    for (uint32_t j = 0; j < count; j++)
        for (uint32_t i = 0; planned[j] && i < plans[j].count; i++) {
            const struct cs_plan_smp *smp = &plans[j].smps[i];
            if (smp->kind != CS_PLAN_SMP_LID_SET && smp->kind != CS_PLAN_SMP_LID_UNSET)
                continue;
            uint32_t port = cs_hypervisor_vf_port(&c->hyps, c->hyps.of_node[smp->node], smp->vf);
            if (cs_grow((void **)out, &cap, (uint64_t)*n + 1, sizeof **out, err) < 0)
                return -1;
            (*out)[(*n)++] = port;
        }
    return 0;
}

static void result_of_plan(const struct cs_sm_core *c, const struct cs_plan *plan,
                           struct cs_sm_vm_job *job)
{
    struct cs_sm_vm_result *r = &job->result;
    const struct cs_vm_state *s = state_of(c);
    uint32_t vm = cs_vm_state_find(s, job->req.name);
    r->lid = plan->vm_lid_after ? plan->vm_lid_after : plan->vm_lid_before;
    if (vm != CS_NONE) {
        r->vf = s->vms[vm].vf;
        r->hypervisor = s->vms[vm].hypervisor;
    }
    r->switches_selected = plan->switches_selected;
    r->switches_updated = plan->switches_updated;
    r->planned_smps = cs_plan_total_smps(plan);
}

int cs_sm_core_vm_run(struct cs_sm_core *c, struct cs_sm_vm_job *jobs, uint32_t count,
                      struct cs_error *err)
{
    if (c->me.state != CS_SMP_SM_STATE_MASTER || !c->tree_ready)
        return cs_fail(err, "no fabric to act on yet (the SM is %s)",
                       c->me.state == CS_SMP_SM_STATE_MASTER ? "between sweeps"
                                                             : cs_sm_state_name(c->me.state));
    if (c->hyps.count == 0)
        return cs_fail(err, "the fabric has no vSwitch hypervisors (docs/vswitch.md)");
    double start = cs_clock_ms();
    const struct cs_fabric *f = &c->sweep.fabric;
    struct cs_route_loaded *route = &c->files.route;
    bool new_state = !route->has_vms;
    if (new_state) {
        cs_vm_state_init(&route->vms);
        route->vms.lid_policy = cs_sm_core_vm_policy(c);
        route->has_vms = true;
    } else if (route->vms.count == 0) {
        route->vms.lid_policy = cs_sm_core_vm_policy(c);
    }
    struct cs_plan *plans = cs_calloc_array(count + 1u, sizeof *plans, err);
    bool *planned = cs_calloc_array(count + 1u, sizeof *planned, err);
    uint8_t *claimed = cs_calloc_array(f->num_nodes + 1u, 1, err);
    struct footprint fp = {.nodes = cs_calloc_array(f->num_nodes + 2u, sizeof(uint32_t), err)};
    uint16_t *lids = cs_calloc_array(4u * count + 1u, sizeof *lids, err);
    int rc = plans && planned && claimed && fp.nodes && lids ? 0 : -1;
    bool everything = false, anything = false;
    uint32_t done = 0, batch = 0, num_lids = 0;
    for (uint32_t j = 0; rc == 0 && j < count; j++) {
        struct cs_sm_vm_job *job = &jobs[j];
        job->req.name = job->name;
        job->status = 0;
        memset(&job->result, 0, sizeof job->result);
        job->error.msg[0] = '\0';
        cs_plan_init(&plans[j]);
        footprint_of(c, job, &fp);
        if (claim(claimed, &everything, &anything, &fp)) {
            job->status = 1;
            continue;
        }
        if (choose_vf(c, &job->req, &job->error) < 0) {
            job->status = -1;
            done++;
            continue;
        }
        double t0 = cs_clock_ms();
        if (cs_vm_plan_run(&c->sweep.fabric, &c->hyps, &c->tree, &c->lfts, &route->vms, &job->req,
                           &job->opt, &plans[j], &job->error) < 0) {
            job->status = -1;
            done++;
            continue;
        }
        planned[j] = true;
        batch++;
        done++;
        result_of_plan(c, &plans[j], job);
        if (mark_live_routes(c, &plans[j], job, err) < 0) {
            rc = -1;
            break;
        }
        job->result.plan_ms = cs_clock_ms() - t0;
        for (uint32_t i = 0; i < plans[j].count && num_lids < 4u * count; i++) {
            bool seen = false;
            for (uint32_t k = 0; k < num_lids && !seen; k++)
                seen = lids[k] == plans[j].smps[i].lid;
            if (!seen && plans[j].smps[i].lid)
                lids[num_lids++] = plans[j].smps[i].lid;
        }
    }
    if (rc == 0 && batch == 0 && new_state && route->vms.count == 0) {
        cs_vm_state_free(&route->vms); /* nothing happened: no state yet */
        route->has_vms = false;
    }
    if (rc == 0 && batch > 0) {
        /* Held tables as large as the plans' (a LID past the programmed ones: unknown there). */
        if (c->lfts.max_lid > c->held.max_lid) {
            uint32_t old_blocks = cs_lfts_blocks(&c->held);
            if (cs_lfts_grow(&c->held, c->lfts.max_lid, err) < 0) {
                rc = -1;
            } else {
                for (uint32_t sw = 0; sw < c->held.num_switches; sw++)
                    for (uint32_t b = old_blocks; b < cs_lfts_blocks(&c->held); b++)
                        cs_lfts_mark_block(&c->held, sw, b, true);
                cs_logf(&c->log, CS_LOG_WARN,
                        "vms: LID %u is past the LIDs the switches were programmed for: a heavy "
                        "sweep follows",
                        c->lfts.max_lid);
                c->retry = true;
            }
        }
        /* The state first: a crash from here on restarts with the VMs where they are going. */
        double t0 = cs_clock_ms();
        if (rc == 0 && commit(c, err) < 0)
            rc = -1;
        double commit_ms = cs_clock_ms() - t0;
        /* The SA's view follows the LIDs that move (no rebuild: the VF ports' LIDs are the only
         * part of it that changes), before the SMPs go: a PathRecord answered meanwhile has the
         * new place of the VMs. */
        uint32_t *ports = NULL, num_ports = 0;
        if (rc == 0 && moved_ports(c, plans, planned, count, &ports, &num_ports, err) < 0)
            rc = -1;
        if (rc == 0 && c->sa && cs_sa_db_ports_lids_changed(c->sa, ports, num_ports) < 0) {
            cs_sa_db_free(c->sa); /* rebuilt below */
            c->sa = NULL;
        }
        free(ports);
        t0 = cs_clock_ms();
        unsigned failures = 0;
        struct cs_sm_alias_counts guid_info = {0};
        for (int st = 0; rc == 0 && st < STAGES; st++) {
            struct stage_work w = {0};
            int sf = build_stage(c, jobs, plans, planned, count, (enum stage)st, lids, num_lids, &w,
                                 err);
            if (sf == 0)
                sf = send_stage(c, &w, err);
            guid_info.blocks_sent += w.guid_info.blocks_sent;
            guid_info.failures += w.guid_info.failures;
            stage_work_free(&w);
            if (sf < 0)
                rc = -1;
            else
                failures += (unsigned)sf;
        }
        double program_ms = cs_clock_ms() - t0;
        if (failures)
            c->retry = true; /* the next turn sweeps and mends what did not land */
        for (uint32_t j = 0; j < count; j++) {
            if (!planned[j])
                continue;
            struct cs_sm_vm_result *r = &jobs[j].result;
            r->commit_ms = commit_ms;
            r->program_ms = program_ms;
            r->guid_info_smps = guid_info.blocks_sent;
            r->guid_info_refused = guid_info.failures;
            r->failures = failures;
            r->batch_size = batch;
            r->total_smps = r->lft_smps + r->port255_smps + r->port_info_smps +
                            r->vswitch_lft_smps + r->guid_info_smps;
            cs_sm_core_note(
                c, failures ? CS_LOG_WARN : CS_LOG_INFO, CS_MONITOR_EVENT_VM, jobs[j].name,
                "vm %s %s: LID %u, %" PRIu64 " SMPs (%" PRIu64 " LFT, %" PRIu64
                " port-255, %" PRIu64 " PortInfo, %" PRIu64 " vSwitch LFT, %" PRIu64
                " GUIDInfo, %" PRIu64 " of them refused), plan %.2f ms, "
                "commit %.2f ms, program %.2f ms, batch of %u%s",
                cs_vm_op_name((enum cs_vm_op)jobs[j].req.op), jobs[j].name, r->lid, r->total_smps,
                r->lft_smps, r->port255_smps, r->port_info_smps, r->vswitch_lft_smps,
                r->guid_info_smps, r->guid_info_refused, r->plan_ms, r->commit_ms, r->program_ms,
                batch, failures ? " (with failures: a heavy sweep follows)" : "");
        }
        c->vm_ops += batch;
        c->vm_batches++;
        c->last_vm_op_ms = cs_clock_ms();
        struct cs_error sa_err;
        if (c->sa == NULL && cs_sm_core_rebuild_sa(c, &sa_err) < 0 && rc == 0) {
            *err = sa_err;
            rc = -1;
        }
    }
    for (uint32_t j = 0; plans && j < count; j++)
        cs_plan_free(&plans[j]);
    free(plans);
    free(planned);
    free(claimed);
    free(fp.nodes);
    free(lids);
    if (rc < 0)
        return -1;
    cs_logf(&c->log, CS_LOG_DEBUG, "vms: %u of %u requests done or refused in %.2f ms", done, count,
            cs_clock_ms() - start);
    return (int)done;
}
