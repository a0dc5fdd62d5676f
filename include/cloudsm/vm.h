/* VMs on vSwitch hypervisors, and the VM state file the offline tools and cloudsmd share
 * (docs/formats/vms.md, docs/vswitch.md).
 *
 *     # cloudsm VM state
 *     lid_policy prepopulated
 *     vm web-1 vguid=0x0200000000000001 lid=2 hypervisor=0x0010000000000000 vf=1
 *
 * A VM has a name, a virtual port GUID (vGUID) and a LID, which move with it, and a place: a
 * hypervisor (its vSwitch's node GUID) and a VF (1..126, VF k on vSwitch port k + 1 in generated
 * fabrics). `lid_policy` (include/cloudsm/vswitch.h) comes first if present (default
 * prepopulated). Names, vGUIDs, LIDs and places are unique (shared-port: the VMs of one HCA share
 * its LID, and the hypervisor is the HCA's node GUID); errors are `file:line: what`.
 *
 *     live_routes 2 7 11
 *
 * lists (after the VMs, 16 a line) the LIDs whose routes a live reconfiguration set: cloudsmd
 * keeps them as the switches hold them across sweeps and restarts, while they still lead to
 * their owner, instead of the routing engine's.
 */
#ifndef CLOUDSM_VM_H
#define CLOUDSM_VM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cloudsm/error.h"
#include "cloudsm/fabric.h"
#include "cloudsm/vswitch.h"

#define CS_VM_NAME_MAX 63

struct cs_vm {
    char name[CS_VM_NAME_MAX + 1]; /* letters, digits, '.', '_', '-' */
    uint64_t vguid;                /* virtual port GUID, not 0 */
    uint16_t lid;                  /* 1..0xBFFF */
    uint64_t hypervisor;           /* the vSwitch's node GUID (shared-port: the HCA's) */
    uint8_t vf;                    /* 1..CS_VFS_MAX */
    unsigned line;                 /* where it was read (0: made in memory) */
};

struct cs_vm_state {
    enum cs_lid_policy lid_policy;
    struct cs_vm *vms; /* in file (or creation) order */
    uint32_t count, capacity;
    uint16_t *live_routes; /* LIDs whose routes a live reconfiguration set, sorted, unique */
    uint32_t num_live_routes, live_routes_capacity;
};

/* Empty, prepopulated. */
void cs_vm_state_init(struct cs_vm_state *s);
void cs_vm_state_free(struct cs_vm_state *s);

/* Parse text (name in error messages) into s (initialised here; empty on failure). */
int cs_vm_state_parse(struct cs_vm_state *s, const char *text, size_t len, const char *name,
                      struct cs_error *err);
/* Read a file (plain or gzip). */
int cs_vm_state_read(struct cs_vm_state *s, const char *path, struct cs_error *err);

/* Add a VM; fails (naming the other VM) if its name, vGUID, LID or place is taken, or a field is
 * out of range. */
int cs_vm_state_add(struct cs_vm_state *s, const struct cs_vm *vm, struct cs_error *err);
/* Index of the VM with this name, or CS_NONE. */
uint32_t cs_vm_state_find(const struct cs_vm_state *s, const char *name);
/* Remove VM i (the order of the others is kept). */
void cs_vm_state_remove(struct cs_vm_state *s, uint32_t i);

/* dst (initialised here) becomes a copy of src. */
int cs_vm_state_copy(struct cs_vm_state *dst, const struct cs_vm_state *src, struct cs_error *err);

/* The live_routes set: whether lid is in it; add it (in order; once); take it out. */
bool cs_vm_state_route_is_live(const struct cs_vm_state *s, uint16_t lid);
int cs_vm_state_mark_route_live(struct cs_vm_state *s, uint16_t lid, struct cs_error *err);
void cs_vm_state_unmark_route_live(struct cs_vm_state *s, uint16_t lid);

/* Every VM against a fabric and its hypervisors: its hypervisor is a vSwitch there, its VF
 * exists; with prepopulated LIDs its LID is its VF's LID in the fabric. Shared-port: its
 * hypervisor is a cabled CA (cs_shared_port_of) and its LID that port's; the VF (1..126) is the
 * state's own bookkeeping, the SM does not see an HCA's VFs. name is the state's file name for
 * `file:line:` messages (NULL: none). */
int cs_vm_state_check(const struct cs_vm_state *s, const struct cs_fabric *f,
                      const struct cs_hypervisors *h, const char *name, struct cs_error *err);

int cs_vm_state_write(FILE *out, const struct cs_vm_state *s, struct cs_error *err);
/* Atomic: written to a temporary file, then renamed. */
int cs_vm_state_write_file(const char *path, const struct cs_vm_state *s, struct cs_error *err);

#endif
