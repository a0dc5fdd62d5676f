/* Fat-tree generators: PGFT, with XGFT and k-ary-n-trees as special cases.
 *
 * PGFT(h; m1..mh; w1..wh; p1..ph) in the standard notation: level 0 holds the hosts, level h the
 * roots; a level-i node has m_i children, a level-(i-1) node has w_i parents, and p_i parallel
 * links join each such pair. XGFT is PGFT with every p_i = 1; a k-ary-n-tree is
 * XGFT(n; k..k; 1, k..k). Host and switch counts: N_0 = prod(m_i); N_l = prod_{i<=l} w_i *
 * prod_{i>l} m_i.
 *
 * Numbering, port and GUID rules (all deterministic) are in docs/topology-generators.md:
 *  - a node's label is (a_h..a_{l+1}, b_l..b_1) with a_i < m_i, b_i < w_i; its index within the
 *    level is that label read as a mixed-radix number, most significant digit first;
 *  - fabric order: hosts, then switches level 1 (leaves) up to level h (roots);
 *  - switch ports: down ports first (child by child, p_l parallel ports each), then up ports
 *    (parent by parent, p_{l+1} each); every switch gets the same port count, the largest any
 *    level needs (or --radix);
 *  - GUIDs: host i has node GUID 0x0010000000000000 + (i << 8) and port GUIDs node GUID + port;
 *    switch j of level l has node GUID 0x0020000000000000 + (l << 32) + j.
 *
 * vSwitch hypervisors (vfs_per_hypervisor = V > 0): every host slot i becomes a hypervisor in
 * SR-IOV vSwitch mode, modelled as a SWITCH node (the vSwitch, node GUID and place of host i,
 * description "hyp-<i>", V+1 ports) whose port 1 is cabled where host i's port 1 was, and whose
 * port k+1 is cabled to VF k (1..V): a one-port CA with node GUID
 * 0x0030000000000000 + (i << 16) + (k << 8), port GUID node GUID + 1, description
 * "hyp-<i> vf-<k>". Fabric order: each hypervisor's vSwitch then its VFs 1..V, hypervisor by
 * hypervisor, then the physical switches. The vSwitch's LID (switch port 0) is the PF's, so a
 * hypervisor needs V+1 LIDs.
 */
#ifndef CLOUDSM_TOPO_GEN_H
#define CLOUDSM_TOPO_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/fabric.h"
#include "cloudsm/vswitch.h" /* CS_VFS_MAX */

#define CS_PGFT_MAX_LEVELS 8
#define CS_GUID_HOST_BASE UINT64_C(0x0010000000000000)
#define CS_GUID_SWITCH_BASE UINT64_C(0x0020000000000000)
#define CS_GUID_VF_BASE UINT64_C(0x0030000000000000)

struct cs_pgft_spec {
    unsigned levels;                /* h, 1..CS_PGFT_MAX_LEVELS */
    unsigned m[CS_PGFT_MAX_LEVELS]; /* m[i-1] = m_i */
    unsigned w[CS_PGFT_MAX_LEVELS]; /* w[i-1] = w_i */
    unsigned p[CS_PGFT_MAX_LEVELS]; /* p[i-1] = p_i (all 1 for XGFT) */
    unsigned hosts_per_leaf;        /* hosts kept under each leaf; 0 = m_1 (all) */
    unsigned radix;                 /* ports per switch; 0 = the smallest that fits */
    unsigned hosts;                 /* keep only host slots 0..hosts-1 (after hosts_per_leaf);
                                     * 0 = all. Switches are never removed. */
    unsigned vfs_per_hypervisor;    /* 0: plain hosts; 1..CS_VFS_MAX: every host slot
                                     * is a vSwitch hypervisor with that many VFs (needs
                                     * w1*p1 = 1) */
    unsigned plain_hosts;           /* with VFs: the last this many host slots stay plain
                                     * hosts (a management node, the SM's) */
};

struct cs_pgft_counts {
    uint64_t hosts;    /* host slots in use (= hypervisors with vSwitches) */
    uint64_t switches; /* the tree's switches (vSwitches not included) */
    uint64_t per_level[CS_PGFT_MAX_LEVELS + 1]; /* [0] hosts, [l] switches of level l */
    uint64_t links;                             /* cables, parallel links counted each */
    unsigned switch_ports;                      /* port count given to every switch */
    unsigned host_ports;                        /* port count of every host (w1 * p1) */
    uint64_t hypervisors;                       /* vSwitch nodes: hosts - plain_hosts, or 0 */
    uint64_t vfs;                               /* VF nodes: hypervisors * vfs_per_hypervisor */
    uint64_t lids;                              /* unicast LIDs the fabric needs (LMC 0) */
};

/* k-ary-n-tree = XGFT(n; k..k; 1, k..k). */
int cs_pgft_kary(struct cs_pgft_spec *s, unsigned k, unsigned n, struct cs_error *err);
/* Parse "h;m1,..,mh;w1,..,wh" (xgft, with_parallel = false) or "h;m..;w..;p.." (pgft). */
int cs_pgft_parse(struct cs_pgft_spec *s, const char *text, bool with_parallel,
                  struct cs_error *err);
/* Validate and count; fails (with a reason) on a spec that cannot be built as one subnet. */
int cs_pgft_count(const struct cs_pgft_spec *s, struct cs_pgft_counts *c, struct cs_error *err);
/* Build into an initialised, empty fabric. */
int cs_pgft_generate(struct cs_fabric *f, const struct cs_pgft_spec *s, struct cs_error *err);
/* "XGFT(3;18,18,36;1,18,18)" or "PGFT(...;p..)" for messages and node descriptions. */
void cs_pgft_format(const struct cs_pgft_spec *s, char *buf, size_t size);

/* Example fabrics from the papers: a tree spec, a vSwitch VF count and switch naming; built by
 * the generator above. The list is in docs/topology-generators.md. */
struct cs_topo_preset {
    const char *name;               /* "vswitch-fig3" */
    const char *summary;            /* one line for --help */
    const char *xgft;               /* the tree, as cs_pgft_parse's XGFT text */
    unsigned hosts;                 /* host slots kept (cs_pgft_spec.hosts); 0 = all */
    unsigned default_vfs;           /* VFs per hypervisor when the caller gives none */
    const unsigned *switch_numbers; /* NULL, or the paper's number of each tree switch in fabric
                                     * order: switch j is described "sw-<switch_numbers[j]>" */
    unsigned num_switch_numbers;    /* entries in switch_numbers: the tree's switch count */
    const char *switch_prefix;      /* with switch_numbers: switch j is described
                                     * "<switch_prefix><switch_numbers[j]>"; NULL: "sw-" */
    const char *host_prefix;        /* NULL: the generator's names; else (plain hosts only)
                                     * host i is described "<host_prefix><i+1>" */
};

/* The presets, in a fixed order; *count is set to their number. */
const struct cs_topo_preset *cs_topo_presets(size_t *count);
/* Build preset `name` into an initialised, empty fabric; vfs_per_hypervisor 0 = its default.
 * An unknown name fails with the list of known ones. */
int cs_topo_preset_generate(struct cs_fabric *f, const char *name, unsigned vfs_per_hypervisor,
                            struct cs_error *err);

#endif
