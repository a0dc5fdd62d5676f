/* What `cloudsm topo info` reports about a fabric. */
#ifndef CLOUDSM_SUMMARY_H
#define CLOUDSM_SUMMARY_H

#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/fabric.h"

struct cs_fabric_summary {
    uint32_t switches;
    uint32_t cas; /* CA nodes */
    uint32_t routers;
    uint32_t hosts;              /* distinct system image GUIDs among CA nodes (a server with two
                                    HCAs is one host) */
    uint32_t links;              /* cables, each counted once */
    uint32_t switch_links;       /* cables between two switches */
    uint32_t levels;             /* switch levels: 1 + the largest switch distance from a leaf */
    uint32_t leaves;             /* switches with at least one CA attached */
    uint32_t hosts_per_leaf_min; /* CA ports attached per leaf switch */
    uint32_t hosts_per_leaf_max;
    uint32_t unreachable_switches; /* switches with no path to any leaf */
    uint32_t lids;                 /* LIDs an SM needs (switch port 0 + connected CA/router ports,
                                      2^lmc each) */
    uint32_t lft_blocks_min;       /* blocks per switch with LIDs packed 1..lids: lids / 64 + 1 */
    uint16_t max_lid;              /* highest LID already assigned in the fabric, 0 if none */
    /* vSwitch hypervisors (include/cloudsm/vswitch.h; all 0 without any). The counts above see
     * a vSwitch as a switch and a VF as a CA; these see the physical fabric. */
    struct {
        uint32_t hypervisors, vfs, vfs_min, vfs_max; /* VFs in all, per hypervisor */
        uint32_t physical_switches;
        uint64_t lids_prepopulated; /* LIDs with every VF's prepopulated */
        uint64_t lids_dynamic_boot; /* LIDs at boot with dynamic VM LIDs (+1 per running VM) */
        uint64_t max_hypervisors;   /* prepopulated, vfs_max VFs each, next to the physical */
        uint64_t max_vms;           /* switches and other ports: the subnet's limit */
        uint64_t shared_port_max_hypervisors; /* the same in shared-port mode (one LID per HCA, */
        uint64_t shared_port_max_vms;         /* lids_dynamic_boot LIDs in all), for contrast */
    } vswitch;
};

/* lmc: the LMC the LID count assumes (0 in the usual case). */
int cs_fabric_summarize(const struct cs_fabric *f, unsigned lmc, struct cs_fabric_summary *s,
                        struct cs_error *err);

/* Switch ranks as the summary counts levels: distance[n] = switch n's hop count over
 * switch-to-switch cables to the nearest leaf (a switch with a CA cabled to it); CS_NONE for
 * switches no leaf reaches and for CAs and routers. distance has f->num_nodes entries. */
int cs_fabric_leaf_distances(const struct cs_fabric *f, uint32_t *distance, struct cs_error *err);

#endif
