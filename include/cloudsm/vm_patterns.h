/* VM placements and migration patterns: the workload of the migration simulator (Paper V's
 * vSwitchMigrationSim; the Tasoulas thesis, lines 1352-1384 and 6795-6807). docs/vswitch.md.
 *
 * Hypervisors are 0..H-1 in fabric order, which in a generated fat tree is left to right, each
 * with `slots` VFs (1..slots). A placement says where each VM is; a pattern is a sequence of
 * moves, each valid when it is made (the VM is where the move says, the VF it goes to is free).
 *
 * Initial distributions:
 *  - random: each VM on a free VF drawn uniformly among all free VFs;
 *  - uniform: VM i on hypervisor i mod H (so every hypervisor has floor or ceil(vms / H)).
 * Patterns (the thesis: "not designed to be optimal ... what we care to study is the resulting
 * routing"):
 *  - random: 2 x H migrations, each a VM drawn at random to a different hypervisor drawn among
 *    those with a free VF ("2 . num_nodes_in_topology random migrations");
 *  - consolidate: pack the VMs to the left on the fewest hypervisors: repeatedly the VM on the
 *    rightmost occupied hypervisor moves to the leftmost free VF, while that is further left;
 *  - grouping: the VMs are dealt at random into `groups` groups of equal size (+-1); group g
 *    gets the neighbouring hypervisors after group g-1's (its block), as many as its VMs
 *    need; each group is consolidated into its block by consolidate's rule: the rightmost VM
 *    outside its block moves to the block's leftmost free VF (VMs in another group's block
 *    before VMs outside every block); a hypervisor ends with VMs of one group only (when
 *    every waiting VM's block is full, a VM of another group in the way is evicted first, to
 *    the leftmost free VF outside every block, else anywhere outside that block);
 *  - to-uniform: while some hypervisor holds more than ceil(vms / H) or fewer than
 *    floor(vms / H), the last VM of the fullest (rightmost on a tie) moves to the emptiest
 *    (leftmost on a tie).
 * Every choice goes through the seeded generator: a seed gives the same moves.
 */
#ifndef CLOUDSM_VM_PATTERNS_H
#define CLOUDSM_VM_PATTERNS_H

#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/rng.h"

struct cs_vm_placement {
    uint32_t hypervisors; /* H */
    uint32_t slots;       /* VFs per hypervisor */
    uint32_t vms;
    uint32_t *hypervisor_of; /* [vm] */
    uint8_t *vf_of;          /* [vm] 1..slots */
    uint32_t *vm_at;         /* [hypervisor * slots + vf - 1] VM, or CS_NONE if free */
    uint32_t *load;          /* [hypervisor] VMs on it */
};

enum cs_vm_distribution { CS_VM_DIST_RANDOM, CS_VM_DIST_UNIFORM };
enum cs_vm_pattern {
    CS_VM_PATTERN_RANDOM,
    CS_VM_PATTERN_CONSOLIDATE,
    CS_VM_PATTERN_GROUPING,
    CS_VM_PATTERN_TO_UNIFORM
};

/* "random", "uniform"; "random", "consolidate", "grouping", "to-uniform". -1 if unknown. */
int cs_vm_distribution_parse(const char *text, enum cs_vm_distribution *d);
int cs_vm_pattern_parse(const char *text, enum cs_vm_pattern *p);
const char *cs_vm_distribution_name(enum cs_vm_distribution d);
const char *cs_vm_pattern_name(enum cs_vm_pattern p);

/* vms VMs on hypervisors x slots VFs (vms <= hypervisors * slots). */
int cs_vm_place(struct cs_vm_placement *p, uint32_t hypervisors, uint32_t slots, uint32_t vms,
                enum cs_vm_distribution d, struct cs_rng *rng, struct cs_error *err);
void cs_vm_placement_free(struct cs_vm_placement *p);
int cs_vm_placement_copy(struct cs_vm_placement *dst, const struct cs_vm_placement *src,
                         struct cs_error *err);

struct cs_vm_move {
    uint32_t vm;
    uint32_t from, to; /* hypervisors */
    uint8_t from_vf, to_vf;
};

/* Make the move on the placement (it must be valid: checked, -1 if not). */
int cs_vm_placement_apply(struct cs_vm_placement *p, const struct cs_vm_move *m,
                          struct cs_error *err);

struct cs_vm_moves {
    struct cs_vm_move *items;
    uint32_t count, capacity;
    uint32_t *group_of; /* grouping: [vm] the group it was dealt to; NULL for the others */
};
void cs_vm_moves_free(struct cs_vm_moves *m);

/* The moves of a pattern from placement p (p itself is left as it was). groups: for grouping
 * (2 in Paper V), ignored otherwise. */
int cs_vm_pattern_moves(const struct cs_vm_placement *p, enum cs_vm_pattern pattern,
                        unsigned groups, struct cs_rng *rng, struct cs_vm_moves *out,
                        struct cs_error *err);

#endif
