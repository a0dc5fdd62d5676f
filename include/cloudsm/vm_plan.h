/* VM lifecycle planning on vSwitch fabrics: which LFT entries change, on which switches, and
 * the SMPs that carry the change, computed offline and deterministically (docs/vswitch.md,
 * "Reconfiguration").
 *
 * Three layers:
 *  - LID level (cs_lid_update_apply): on a set of LFTs, swap two LIDs' entries (prepopulated
 *    VF LIDs, Paper II section V-C1) or copy one LID's entry from another (dynamic LIDs,
 *    section V-C2) on the switches a selection lists. A switch whose entries already agree is
 *    skipped (n' <= n); the others cost one SMP per changed 64-LID block (m' = 1 or 2 for a swap,
 *    1 for a copy). With port-255 invalidation every switch to be updated first gets the moved
 *    LID set to 255 (n' more SMPs), then its new entries (Paper II section VI-C).
 *  - Switch selection (cs_switch_tree, cs_plan_select): ItRC visits every physical switch
 *    (Algorithm 1 of Paper II, Paper V's name for it); FTreeMinRC visits the skyline of the
 *    sub-trees the migration touches (Paper V, thesis lines 6436-6463), the switches on the
 *    active routes between the two ends first.
 *  - VM level (cs_vm_plan_run): create, destroy or migrate a VM on a fabric, its hypervisors,
 *    LFTs and VM state; returns the new LFTs and state (changed in place) and the SMP list.
 *
 * Hypervisor vSwitches are not physical switches: their tables change through the hypervisor
 * SMPs (set or unset a VF's LID, set the vGUID), never through the LFT SMPs counted above.
 */
#ifndef CLOUDSM_VM_PLAN_H
#define CLOUDSM_VM_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/fabric.h"
#include "cloudsm/lft.h"
#include "cloudsm/vm.h"
#include "cloudsm/vswitch.h"

struct cs_switch_tree; /* below */

/* ---- The SMPs of a plan ---------------------------------------------------------------------- */

enum cs_plan_smp_kind {
    CS_PLAN_SMP_PORT255,   /* LFT block of a switch with the moved LID set to 255 */
    CS_PLAN_SMP_LFT_BLOCK, /* LFT block of a switch with its new entries */
    CS_PLAN_SMP_LID_UNSET, /* hypervisor: a VF gives up a LID (its vSwitch stops forwarding it) */
    CS_PLAN_SMP_LID_SET,   /* hypervisor: a VF takes a LID (its vSwitch forwards it to the VF) */
    CS_PLAN_SMP_VGUID_SET, /* hypervisor: the VM's vGUID on the VF it attaches to (shared-port:
                            * on the HCA's port, beside the other VMs' GUIDs) */
    CS_PLAN_SMP_VGUID_UNSET,
};

struct cs_plan_smp {
    uint8_t kind;      /* enum cs_plan_smp_kind */
    uint8_t entries;   /* LFT SMPs: entries of the block that change (1 or 2) */
    uint8_t vf;        /* hypervisor SMPs: the VF (1-based) */
    bool active_route; /* LFT SMPs: the switch is on an active route between the two ends */
    uint16_t block;    /* LFT SMPs: block number (LIDs 64 * block .. + 63) */
    uint16_t lid;      /* LFT SMPs: the moved LID; LID SMPs: the LID set or unset */
    uint32_t table;    /* LFT SMPs: index of the switch in the LFT set; else CS_NONE */
    uint32_t node;     /* hypervisor SMPs: the fabric node they go to, the vSwitch (or, in
                        * shared-port mode, the HCA); else CS_NONE */
    uint64_t vguid;    /* vGUID SMPs */
};

struct cs_plan {
    struct cs_plan_smp *smps; /* in the order they are sent */
    uint32_t count, capacity;
    uint32_t switches_selected; /* physical switches the method visits (n for ItRC) */
    uint32_t switches_active;   /* of those, on the active routes (FTreeMinRC; 0 for ItRC) */
    uint32_t switches_updated;  /* n': selected switches whose entries changed */
    uint64_t lft_smps;          /* LFT blocks with new entries: sum of m' over the n' switches */
    uint64_t port255_smps;      /* invalidation blocks: n' with --port255, else 0 */
    uint64_t hypervisor_smps;   /* LID set/unset and vGUID SMPs */
    uint16_t vm_lid_before;     /* the VM's LID before the plan and after it (0: none, as */
    uint16_t vm_lid_after;      /* before a create): they differ after a shared-port migration */
};

void cs_plan_init(struct cs_plan *p);
void cs_plan_free(struct cs_plan *p);
static inline uint64_t cs_plan_total_smps(const struct cs_plan *p)
{
    return p->lft_smps + p->port255_smps + p->hypervisor_smps;
}
/* "port255", "lft", "lid_unset", "lid_set", "vguid_set", "vguid_unset". */
const char *cs_plan_smp_kind_name(enum cs_plan_smp_kind k);

/* ---- LID level --------------------------------------------------------------------------- */

enum cs_lid_update_kind {
    CS_LID_SWAP, /* entries of lid and other exchange places */
    CS_LID_COPY, /* lid's entry := other's entry */
};

struct cs_lid_update {
    uint8_t kind;   /* enum cs_lid_update_kind */
    uint16_t lid;   /* the VM's LID */
    uint16_t other; /* swap: the destination VF's LID; copy: the destination PF's LID */
};

/* Apply u to the tables tables[0..count) of t (set indices, in selection order; active_count:
 * how many of the first are on active routes), appending their SMPs to plan: with port255, one
 * invalidation SMP per switch to update, all before any new entry; then the changed blocks. ItRC
 * (block_major) sends them block by block, each block on every switch (Algorithm 1, lines
 * 14-15); FTreeMinRC switch by switch, in selection order. Both LIDs must be < t->capacity. */
int cs_lid_update_apply(struct cs_lfts *t, const struct cs_lid_update *u, const uint32_t *tables,
                        uint32_t count, uint32_t active_count, bool port255, bool block_major,
                        struct cs_plan *plan, struct cs_error *err);

/* ---- The states a plan passes through ------------------------------------------------- */

/* A plan's SMPs fall into phases of one kind each, in order: the invalidations (port255), the
 * destination hypervisor's SMPs, the LFT blocks, the source hypervisor's. Within a phase the SMPs
 * land in any order (they travel in parallel), so while a phase is under way any mix of its old
 * and new entries is in use. Writes the index one past each phase's last SMP to ends (room for
 * plan->count) and returns the number of phases. */
uint32_t cs_plan_phases(const struct cs_plan *plan, uint32_t *ends);

/* Replay the plan's first `upto` SMPs on t, a copy of the old tables: an invalidation sets its
 * LID to 255, an LFT block takes the block of new_set, a hypervisor SMP makes its vSwitch's
 * table (tr->table_of_node) new_set's. With every SMP replayed t equals new_set on the plan's
 * switches. */
void cs_plan_replay(const struct cs_plan *plan, uint32_t upto, const struct cs_lfts *new_set,
                    const struct cs_switch_tree *tr, struct cs_lfts *t);

/* Check every phase of a plan for credit loops (cs_check_options.transition_from): the tables
 * before the phase and after it, old and new entries together. f has the LIDs after the plan,
 * s the VMs after it. Traced: the traffic there is, between CA ports that are not VFs and VFs
 * that run a VM of s (a free VF's LID, prepopulated, has no traffic to deadlock). */
struct cs_plan_transition {
    uint32_t phases;
    uint32_t loop_phase;    /* the first phase that can close a credit loop, CS_NONE if none */
    uint32_t lids_changing; /* destination LIDs whose entries change, summed over the phases */
    uint64_t cdg_edges;     /* of the phase with the loop, else of the last phase */
};
int cs_plan_check_transition(const struct cs_fabric *f, const struct cs_hypervisors *h,
                             const struct cs_switch_tree *tr, const struct cs_lfts *old_set,
                             const struct cs_lfts *new_set, const struct cs_plan *plan,
                             const struct cs_vm_state *s, struct cs_plan_transition *out,
                             struct cs_error *err);

/* ---- Switch selection -------------------------------------------------------------------- */

enum cs_plan_method { CS_PLAN_ITRC, CS_PLAN_FTREEMINRC };

const char *cs_plan_method_name(enum cs_plan_method m);
/* "itrc" or "ftreeminrc"; -1 otherwise. */
int cs_plan_method_parse(const char *text, enum cs_plan_method *m);

/* The physical switches of a fabric by level, matched to the tables of an LFT set (t may be NULL
 * for the marking alone): what both methods read. Levels count from the leaves (0: a physical
 * switch cabled to a CA or a hypervisor's vSwitch) by shortest distance; a switch's up-neighbours
 * are the physical switches one level higher. Built once per fabric; FTreeMinRC's marking then
 * costs only the switches it marks. */
struct cs_switch_tree {
    const struct cs_fabric *fabric;
    uint32_t *level;    /* [node] CS_NONE for CAs, routers, vSwitches, unreachable switches */
    uint32_t *up_first; /* [node] up[up_first[n] .. up_first[n + 1]) are n's up-neighbours */
    uint32_t *up;
    uint32_t *table_of_node; /* [node] index in the LFT set, CS_NONE when it has no table */
    uint32_t *physical;      /* set indices of the tables of physical switches, set order */
    uint32_t num_physical;
    /* Scratch for the marking, so that it allocates nothing: [node] the epoch a node was last
     * marked, reached from the source side, from the destination side, listed in a selection;
     * the frontiers (current and next, per side) and the marked nodes. */
    uint32_t *marked_in, *src_side_in, *dst_side_in, *listed_in;
    uint32_t *frontier[4], *marked;
    uint32_t epoch;
};

int cs_switch_tree_init(struct cs_switch_tree *tr, const struct cs_fabric *f,
                        const struct cs_hypervisors *h, const struct cs_lfts *t,
                        struct cs_error *err);
void cs_switch_tree_free(struct cs_switch_tree *tr);

/* FTreeMinRC's switch marking between two leaf switches (fabric nodes): the same leaf marks only
 * it; otherwise both leaves, then, level by level, the up-neighbours of each side's frontier,
 * until the two frontiers are the same set (the top switches of the smallest sub-tree holding
 * both leaves: their common ancestors) or have no up-neighbours (the roots). Nodes in marking
 * order go to out (room for every switch); returns how many. */
uint32_t cs_minrc_mark(struct cs_switch_tree *tr, uint32_t src_leaf, uint32_t dst_leaf,
                       uint32_t *out);

/* What a selection needs to know about one change. */
struct cs_plan_ends {
    uint32_t src_leaf, dst_leaf; /* physical leaf switches (fabric nodes) of the two ends */
    uint16_t lid_at_src;         /* a LID the source end answers now (routes dst -> src) */
    uint16_t lid_at_dst;         /* a LID the destination end answers (routes src -> dst) */
};

/* The tables (set indices) a method visits, in order, into tables (room for every switch):
 * ItRC every physical switch in set order; FTreeMinRC the marked switches, those on the active
 * routes (the old tables' routes from src_leaf to lid_at_dst and from dst_leaf to lid_at_src)
 * first, in route order, then the rest in marking order. *active gets how many are on them. */
uint32_t cs_plan_select(struct cs_switch_tree *tr, enum cs_plan_method method,
                        const struct cs_lfts *t, const struct cs_plan_ends *ends, uint32_t *tables,
                        uint32_t *active);

/* ---- VM level ---------------------------------------------------------------------------- */

enum cs_vm_op { CS_VM_CREATE, CS_VM_DESTROY, CS_VM_MIGRATE };

const char *cs_vm_op_name(enum cs_vm_op op);
/* "create", "destroy" or "migrate"; -1 otherwise. */
int cs_vm_op_parse(const char *text, enum cs_vm_op *op);

struct cs_vm_request {
    uint8_t op;          /* enum cs_vm_op */
    const char *name;    /* the VM */
    uint64_t vguid;      /* create: its vGUID */
    uint64_t hypervisor; /* create, migrate: the destination vSwitch's node GUID */
    uint8_t vf;          /* create, migrate: the destination VF; 0 = the lowest free one */
};

struct cs_vm_plan_options {
    uint8_t method; /* enum cs_plan_method */
    bool port255;
};

/* SMP order: invalidations, then the destination hypervisor (its VF takes the LID: packets that
 * reach it are delivered from then on), the LFT blocks, the source hypervisor last (its VF lets
 * the LID go once no switch sends it there). docs/vswitch.md explains why.*/

/* Dynamic LIDs: a VF without a VM holds no LID. Take away any LID f gives such a VF (a fabric
 * routed with every VF numbered, as `topo gen --lids` does), and its target in t, so that they are
 * free for the next create. Returns how many were dropped. */
uint32_t cs_vm_plan_drop_idle_vf_lids(struct cs_fabric *f, const struct cs_hypervisors *h,
                                      const struct cs_vm_state *s, struct cs_lfts *t);

/* Plan one request against the fabric f (ports with the LIDs in use), its hypervisors h and
 * switch tree tr, on the LFTs t and the state s, which become the new ones (both unchanged when
 * the request fails; f's port LIDs and t's LID targets follow the LIDs that move):
 *  - prepopulated create: the VM takes the VF's LID; destroy: the VF keeps it; migrate: the
 *    VM's LID and the destination VF's swap entries (and owners: the VM keeps its LID);
 *  - dynamic create: the lowest unicast LID no port, VM or table target holds, every physical
 *    switch copies the host PF's entry (ItRC; FTreeMinRC has no source end to limit it to);
 *    destroy: the LID is freed and the switches' entries are left as they are (they lead to the
 *    vSwitch, which drops it once the VF has no LID: no LFT SMP); migrate: copy from the
 *    destination PF.
 * Hypervisor SMPs: LID unset at the source and set at the destination (only where the VF's LID
 * changes), vGUID unset/set.
 * Shared-port (s->lid_policy; h and tr unused, t unchanged): the hypervisor is an HCA
 * (cs_shared_port_of), the VF the lowest one no VM of that HCA holds (1..126) if not given.
 * Create: the VM gets the HCA's LID, one vGUID SMP; destroy: one vGUID SMP; migrate: vGUID set
 * at the destination, unset at the source, no LFT SMP, and the VM's LID becomes the destination
 * HCA's (plan->vm_lid_after). */
int cs_vm_plan_run(struct cs_fabric *f, const struct cs_hypervisors *h, struct cs_switch_tree *tr,
                   struct cs_lfts *t, struct cs_vm_state *s, const struct cs_vm_request *req,
                   const struct cs_vm_plan_options *opt, struct cs_plan *plan,
                   struct cs_error *err);

#endif
