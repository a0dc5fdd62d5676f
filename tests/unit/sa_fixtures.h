/* Shared by the SA tests (test_sa.c) and the SA fuzzer (tests/fuzz/fuzz_sa.c): a sweep as ibsim
 * 0.10 answers it, SA request MADs, hex. Header-only and free of cmocka: functions return -1
 * (with err) instead of failing a test.
 *
 * The ibsim sweep: what OpenSM reads from ibsim for every port, taken from `smpquery portinfo`
 * on ibsim 0.10 (tests/unit/test_sa.c has the captures): a CA port advertises extended speeds
 * (CapabilityMask 0x0050c048), MTUCap 2048 and GUIDCap 32; a switch's port 0 advertises extended
 * speeds too (0x0000c048) but runs 4x SDR with MTUCap 1024 and GUIDCap 1; a switch's external
 * ports have CapabilityMask 0 and MTUCap 2048. Active widths and speeds are the fabric's. */
#ifndef CLOUDSM_TEST_SA_FIXTURES_H
#define CLOUDSM_TEST_SA_FIXTURES_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/sa.h"
#include "cloudsm/sm.h"

#define IBSIM_CA_CAPABILITY_MASK 0x0050c048u
#define IBSIM_SWITCH_PORT0_CAPABILITY_MASK 0x0000c048u
#define IBSIM_CA_GUID_CAP 32
#define IBSIM_MTU_2048 4
#define IBSIM_MTU_1024 3

/* NodeInfo as ibsim answers it to OpenSM: PartitionCap 64 on CAs and 8 on switches, Revision
 * 0xa1, LocalPortNum 0 on a switch and the CA's first linked port. */
static inline struct cs_smp_node_info *sa_ibsim_node_info(const struct cs_fabric *f)
{
    struct cs_smp_node_info *ni = calloc(f->num_nodes + 1, sizeof *ni);
    if (!ni)
        return NULL;
    for (uint32_t n = 0; n < f->num_nodes; n++) {
        const struct cs_node *node = &f->nodes[n];
        bool sw = cs_node_is_switch(node);
        unsigned local = 0;
        for (unsigned num = 1; !sw && num <= node->num_ports && local == 0; num++)
            if (f->ports[node->first_port + num].peer != CS_NONE)
                local = num;
        ni[n] = (struct cs_smp_node_info){
            .base_version = 1,
            .class_version = 1,
            .node_type = node->type,
            .num_ports = node->num_ports,
            .system_image_guid = node->sysimg_guid,
            .node_guid = node->guid,
            .port_guid = f->ports[node->first_port + (sw ? 0 : local)].guid,
            .partition_cap = sw ? 8 : 64,
            .device_id = (uint16_t)node->device_id,
            .revision = 0xa1,
            .local_port_num = (uint8_t)local,
            .vendor_id = node->vendor_id,
        };
    }
    return ni;
}

/* A sweep of f (copied, LIDs included: assign them first) whose PortInfo and NodeInfo are
 * ibsim's, every linked port ACTIVE, the SM on sm_port (a port index of f). */
static inline int sa_ibsim_sweep(struct cs_sm_sweep *s, const struct cs_fabric *f, uint32_t sm_port,
                                 uint64_t subnet_prefix, struct cs_error *err)
{
    cs_sm_sweep_init(s);
    if (cs_fabric_copy(&s->fabric, f, err) < 0)
        return -1;
    uint32_t slots = f->num_port_slots;
    s->port_info = calloc(slots + 1, sizeof *s->port_info);
    s->port_info_valid = calloc(slots + 1, sizeof *s->port_info_valid);
    s->switch_info = calloc(f->num_nodes + 1, sizeof *s->switch_info);
    s->path = calloc(f->num_nodes + 1, sizeof *s->path);
    s->node_info = sa_ibsim_node_info(f);
    if (!s->port_info || !s->port_info_valid || !s->switch_info || !s->path || !s->node_info) {
        cs_sm_sweep_free(s);
        return cs_fail(err, "out of memory");
    }
    s->sm_port = sm_port;
    s->sm_node = f->ports[sm_port].node;
    uint16_t sm_lid = f->ports[sm_port].lid;
    for (uint32_t p = 0; p < slots; p++) {
        const struct cs_port *port = &f->ports[p];
        const struct cs_node *node = &f->nodes[port->node];
        bool sw = cs_node_is_switch(node);
        if (!sw && (port->num == 0 || port->peer == CS_NONE))
            continue; /* a CA port the sweep never reaches */
        struct cs_smp_port_info *pi = &s->port_info[p];
        s->port_info_valid[p] = true;
        pi->local_port_num = sw ? 0 : port->num;
        pi->mtu_cap = IBSIM_MTU_2048;
        pi->neighbor_mtu = IBSIM_MTU_2048;
        pi->vl_cap = 4;
        pi->operational_vls = 4;
        if (!sw || port->num == 0) {
            pi->subnet_prefix = subnet_prefix;
            pi->lid = port->lid;
            pi->lmc = port->lmc;
            pi->master_sm_lid = sm_lid;
        }
        if (sw && port->num == 0) {
            pi->capability_mask = IBSIM_SWITCH_PORT0_CAPABILITY_MASK;
            pi->mtu_cap = IBSIM_MTU_1024;
            pi->neighbor_mtu = 1;
            pi->guid_cap = 1;
            pi->link_width_active = 2; /* 4x */
            pi->link_speed_active = 1; /* SDR */
            pi->port_state = CS_SMP_PORT_STATE_ACTIVE;
            pi->port_physical_state = CS_SMP_PORT_PHYS_LINK_UP;
            continue;
        }
        if (!sw) {
            pi->capability_mask = IBSIM_CA_CAPABILITY_MASK;
            pi->guid_cap = IBSIM_CA_GUID_CAP;
            if (p == sm_port)
                pi->capability_mask |= CS_SMP_PORT_CAP_IS_SM;
        }
        if (port->peer == CS_NONE) {
            pi->port_state = CS_SMP_PORT_STATE_DOWN;
            pi->port_physical_state = 2; /* Polling */
            continue;
        }
        pi->port_state = CS_SMP_PORT_STATE_ACTIVE;
        pi->port_physical_state = CS_SMP_PORT_PHYS_LINK_UP;
        pi->link_width_active = cs_smp_width_to_active(port->width);
        cs_smp_speed_to_active((enum cs_link_speed)port->speed, &pi->link_speed_active,
                               &pi->link_speed_ext_active);
    }
    return 0;
}

/* An SA request MAD: the header with transaction id tid, and the record (size bytes, may be
 * NULL) in the data area. */
static inline void sa_request(uint8_t method, uint16_t attr_id, uint64_t component_mask,
                              uint32_t attr_mod, uint64_t tid, const uint8_t *record, size_t size,
                              uint8_t out[CS_SA_MAD_SIZE])
{
    struct cs_sa_header h = {
        .method = method,
        .transaction_id = tid,
        .attr_id = attr_id,
        .attr_mod = attr_mod,
        .component_mask = component_mask,
    };
    cs_sa_mad_encode(&h, record, size, out);
}

/* Hex digits (spaces ignored) into out; returns the byte count. */
static inline size_t sa_hex(const char *hex, uint8_t *out, size_t cap)
{
    size_t n = 0;
    int high = -1;
    for (; *hex && n < cap; hex++) {
        int v;
        if (*hex >= '0' && *hex <= '9')
            v = *hex - '0';
        else if (*hex >= 'a' && *hex <= 'f')
            v = *hex - 'a' + 10;
        else if (*hex >= 'A' && *hex <= 'F')
            v = *hex - 'A' + 10;
        else
            continue;
        if (high < 0) {
            high = v;
        } else {
            out[n++] = (uint8_t)(high << 4 | v);
            high = -1;
        }
    }
    return n;
}

#endif
