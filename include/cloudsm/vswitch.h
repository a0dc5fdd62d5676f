/* SR-IOV hypervisors, their VMs, and the LIDs they take (docs/vswitch.md).
 *
 * vSwitch mode (Papers II and V, docs/references.md): each VF of
 * an HCA is a complete vHCA with its own LID, GUID and QP space, and the HCA looks to the SM
 * like a switch with the VFs behind it. In the fabric: a hypervisor is a switch node (the
 * vSwitch) with exactly one port cabled to another switch (its uplink, the seeds' discovery rule,
 * "the distinct property of having only one upward link") and its other cabled ports each to a
 * one-port CA, a VF. The vSwitch's own LID (switch port 0) is the PF's: a hypervisor with V VFs
 * takes V + 1 LIDs when VF LIDs are prepopulated, 1 + its running VMs when they are dynamic.
 * `cloudsm topo gen --vswitch V` builds such fabrics: VF k on vSwitch port k + 1.
 *
 * Shared-port mode (what hardware offers, modelled for contrast): the HCA is one CA port and its
 * VMs share its LID and QP space, each with a GID (vGUID) of its own; such a hypervisor is a plain
 * CA (cs_shared_port_of), its VFs are invisible to the SM, and the LID policy CS_LID_SHARED_PORT.
 *
 * A physical leaf switch with a single uplink and only CAs below it meets the same rule; fabrics
 * built that way are outside the model (as in the seeds).
 */
#ifndef CLOUDSM_VSWITCH_H
#define CLOUDSM_VSWITCH_H

#include <stdbool.h>
#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/fabric.h"
#include "cloudsm/key_index.h"

/* Unicast LIDs: 1..0xBFFF (IBA; "only 49151 (0x0001-0xBFFF) can be used as unicast"). */
#define CS_UNICAST_LIDS 49151u
/* VFs per HCA: ConnectX-3 supports up to 126 (16 enabled by default). */
#define CS_VFS_MAX 126u

struct cs_hypervisor {
    uint32_t node;     /* the vSwitch (a switch node) */
    uint32_t leaf;     /* the physical switch its uplink reaches */
    uint8_t uplink;    /* the vSwitch's port number of that cable */
    uint8_t leaf_port; /* the leaf's port number of that cable */
    uint8_t num_vfs;
    uint32_t first_vf; /* VF k (1..num_vfs) is vf_port[first_vf + k - 1] */
};

struct cs_hypervisors {
    struct cs_hypervisor *items; /* in fabric node order */
    uint32_t count;
    uint32_t *vf_port;    /* fabric port index of each VF's CA port, hypervisor by hypervisor */
    uint8_t *vf_num;      /* the vSwitch port number each VF hangs from (k + 1 when generated) */
    uint32_t num_vfs;     /* total over the hypervisors */
    uint32_t *of_node;    /* [fabric node] hypervisor index, CS_NONE if the node is not one */
    uint32_t *vf_of_port; /* [fabric port] index into vf_port, CS_NONE if the port is not a VF */
    struct cs_key_index by_guid; /* vSwitch node GUID -> hypervisor index */
};

/* Find the hypervisors of f. A fabric without any is not an error (count 0). */
int cs_hypervisors_find(const struct cs_fabric *f, struct cs_hypervisors *h, struct cs_error *err);
void cs_hypervisors_free(struct cs_hypervisors *h);
/* Index of the hypervisor whose vSwitch has this node GUID, or CS_NONE (binary search). */
uint32_t cs_hypervisor_by_guid(const struct cs_hypervisors *h, const struct cs_fabric *f,
                               uint64_t node_guid);
/* Fabric port index of VF k (1-based) of hypervisor i, or CS_NONE if k is out of range. */
uint32_t cs_hypervisor_vf_port(const struct cs_hypervisors *h, uint32_t i, unsigned k);

/* How VM LIDs are given out (Paper II, section V-B; docs/vswitch.md):
 *  - prepopulated: every VF has a LID from boot, routed with the rest; a VM takes its VF's LID,
 *    a migration swaps the VM's LID with the destination VF's (1 or 2 LFT blocks per switch);
 *  - dynamic: only PFs and switches have LIDs at boot; a VM takes a free LID when created (each
 *    switch copies the PF's entry, one block), keeps it through migrations (copied from the new
 *    PF), frees it when destroyed;
 *  - shared-port: no vSwitch; a VM has its HCA's LID, and a migration changes it to the
 *    destination HCA's ("a migrating VM will have its LID changed to the LID of the destination
 *    hypervisor"): no LFT changes, but every peer's path to the VM is stale. */
enum cs_lid_policy { CS_LID_PREPOPULATED, CS_LID_DYNAMIC, CS_LID_SHARED_PORT };

/* "prepopulated", "dynamic", "shared-port". */
const char *cs_lid_policy_name(enum cs_lid_policy p);
/* One of the names above; -1 for anything else. */
int cs_lid_policy_parse(const char *text, enum cs_lid_policy *p);

/* What takes a LID in a subnet of SR-IOV hypervisors. */
struct cs_lid_demand {
    uint64_t switches;    /* physical switches */
    uint64_t others;      /* routers, dedicated SM nodes, CA ports that are not VFs */
    uint64_t hypervisors; /* each takes one LID for its PF (shared with its vSwitch) */
    uint64_t vfs;         /* VFs over all hypervisors */
    uint64_t running_vms; /* VMs that hold a LID now (dynamic) */
};

/* LIDs the policy needs: prepopulated, switches + others + hypervisors + vfs ("H(V+1) + S + R +
 * M <= 49151"); dynamic, switches + others + hypervisors + running_vms ("only active VFs plus
 * physical nodes"); shared-port, switches + others + hypervisors (one LID per HCA, "the LID space
 * is only consumed by physical machines and switches"). */
uint64_t cs_lid_demand_total(const struct cs_lid_demand *d, enum cs_lid_policy p);
/* The demand must fit the unicast LIDs: an error naming the total, its parts, and by how many
 * LIDs it is over 49151. */
int cs_lid_demand_check(const struct cs_lid_demand *d, enum cs_lid_policy p, struct cs_error *err);

/* The largest subnet of hypervisors with `vfs` VFs each, next to `fixed` other LIDs (switches,
 * routers, SM nodes), every VF running a VM:
 *  - prepopulated and dynamic (each VM holds a LID): floor((49151 - fixed) / (vfs + 1))
 *    hypervisors and vfs times that many VMs; Paper II's example: 16 VFs, fixed 0 -> 2891
 *    hypervisors, 46256 VMs;
 *  - shared-port (one LID per HCA): 49151 - fixed hypervisors, vfs times that many VMs. */
struct cs_vswitch_limits {
    uint64_t max_hypervisors;
    uint64_t max_vms;
};
struct cs_vswitch_limits cs_vswitch_limits(enum cs_lid_policy p, unsigned vfs, uint64_t fixed);

/* The LID demand of a fabric as it is: its switches other than vSwitches, its hypervisors and
 * VFs, its other CA/router ports; running_vms is the caller's. */
void cs_lid_demand_of_fabric(const struct cs_fabric *f, const struct cs_hypervisors *h,
                             struct cs_lid_demand *d);

/* Shared-port mode: the port of the HCA (a CA node, found by its node GUID in `nodes`, built by
 * cs_key_index_nodes) that its VMs share: its lowest-numbered cabled port. CS_NONE if the GUID
 * is not a CA of f or none of its ports is cabled. */
uint32_t cs_shared_port_of(const struct cs_fabric *f, const struct cs_key_index *nodes,
                           uint64_t node_guid);

#endif
