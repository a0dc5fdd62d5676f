/* An in-process fabric of SMAs (include/cloudsm/sma_model.h).
 *
 * Each port slot keeps the PortInfo attribute it would answer (everything but LocalPortNum,
 * which depends on who asks); each switch keeps its SwitchInfo and an LFT that grows to the
 * highest block ever written, so a model of thousands of switches costs what the SM programs,
 * not 48 KB per switch. Routing follows ibsim 0.10 (ibsim/sim_mad.c): the facts are cited where
 * they matter, the code is ours.
 */
#include "cloudsm/sma_model.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/lft.h"
#include "cloudsm/mcast.h"
#include "cloudsm/mft.h"
#include "cloudsm/rng.h"
#include "cloudsm/sa.h"
#include "core/grow.h"

#define SWITCH_LINEAR_FDB_CAP 49152   /* ibsim's maxlinearcap: every unicast LID */
#define SWITCH_MULTICAST_FDB_CAP 1024 /* ibsim's maxmcastcap */
#define LFT_MAX_BLOCK 767             /* ibsim rejects LFT blocks above this with 0x1c */
#define LID_ROUTE_MAX_HOPS 64         /* ibsim's MAXHOPS */
#define NODE_INFO_REVISION 0xa1       /* what ibsim's CAs report */
/* Capability masks as ibsim 0.10 answers them under umad2sim (captured in tests/unit/test_smp.c
 * for a CA port); switch port 0 carries its own, external switch ports none. */
#define CA_CAPABILITY_MASK 0x0050c048u
#define SWITCH_PORT0_CAPABILITY_MASK 0x00000248u
#define DEFAULT_SUBNET_PREFIX UINT64_C(0xfe80000000000000) /* the IBA default GID prefix */
#define VL_CAP_VL0_7 4
#define MTU_2048 4
#define PHYS_POLLING 2

enum { METHOD_SLOT_OTHER, METHOD_SLOT_GET, METHOD_SLOT_SET, METHOD_SLOTS };
#define ATTR_SLOTS 257 /* attribute ids 0..255, and one slot for all larger (vendor) ids */

struct model_port {
    struct cs_smp_port_info info; /* as answered, but LocalPortNum */
    uint16_t *pkeys;              /* NULL until the first Set: entry 0 is 0xffff, others 0; else
                                     the table rounded up to whole blocks */
    uint8_t *sl2vl;               /* NULL until the first SL2VL Set: ibsim's default table; else
                                     CS_SL2VL_ENTRIES VLs per output port (a switch's input port
                                     holds one per output port 0..n, a CA port one) */
    struct cs_smp_vlarb *vlarb;   /* NULL until the first VLArbitration Set: ibsim's default;
                                     else the 4 blocks (low 0-31, low 32-63, high 0-31, 32-63) */
    uint64_t *guids;              /* NULL until the first GUIDInfo Set: the port GUID at entry 0,
                                     0 elsewhere; else GUIDCap entries rounded up to blocks */
    bool sm_answers;              /* an SM on this port answers SMInfo with sm (set_sm) */
    struct cs_smp_sm_info sm;
    unsigned sm_gets_left; /* set_sm_next: Gets (answered or refused) before next takes over */
    bool sm_changes, sm_next_answers;
    struct cs_smp_sm_info sm_next;
    uint8_t sm_control;          /* the AttributeModifier of the last SMInfo Set it took; 0: none */
    struct cs_sma_model_pma pma; /* its performance counters (external switch ports, CA ports) */
    unsigned client_reregisters; /* PortInfo Sets with ClientReregister the port supported */
    unsigned reports;            /* SubnAdmReports that reached the port's SA client */
    uint8_t last_report[CS_SMP_SIZE - CS_SA_HEADER_SIZE]; /* the last one's data (its Notice) */
    bool reports_unanswered; /* its client does not acknowledge them (set_report_silent) */
};

struct model_switch {
    struct cs_smp_switch_info info;
    uint8_t *lft; /* lft_size entries; entries beyond read as CS_LFT_NO_ROUTE */
    uint32_t lft_size;
    uint16_t *mft; /* NULL until the first MFT Set; else MulticastFDBCap entries of
                      CS_MFT_POSITIONS_MAX port masks (all 0 at reset, as ibsim's) */
};

struct queued_reply {
    uint8_t mad[CS_SMP_SIZE];
    uint16_t slid;
};

struct cs_sma_model {
    struct cs_fabric fabric;
    struct model_port *ports;      /* one per port slot */
    struct model_switch *switches; /* one per node; used only for switches */
    bool *unresponsive;            /* one per node */
    uint16_t *partition_cap;       /* one per node: NodeInfo PartitionCap */
    bool *no_sl2vl;                /* one per node: SL2VL refused (set_sl2vl_unsupported) */
    bool *no_pma_ext;              /* one per node: PortCountersExtended refused */
    uint32_t sm_node;
    uint32_t sm_port; /* port slot index */

    double drop_probability;
    struct cs_rng drop_rng;
    bool shuffle;
    struct cs_rng shuffle_rng;

    uint64_t clock_us;          /* the transport's clock: moves only while recv waits for nothing */
    struct queued_reply *queue; /* [queue_head, queue_count) are waiting for recv */
    uint32_t queue_head, queue_count, queue_capacity;

    struct cs_sma_model_stats stats;
    uint64_t counts[METHOD_SLOTS][ATTR_SLOTS];
};

static bool is_switch(const struct cs_sma_model *m, uint32_t node)
{
    return m->fabric.nodes[node].type == CS_NODE_SWITCH;
}

static uint32_t port_slot(const struct cs_sma_model *m, uint32_t node, unsigned num)
{
    return m->fabric.nodes[node].first_port + num;
}

static bool link_up(const struct cs_sma_model *m, uint32_t port)
{
    return m->ports[port].info.port_physical_state == CS_SMP_PORT_PHYS_LINK_UP;
}

static void init_port_info(struct cs_sma_model *m, uint32_t slot)
{
    const struct cs_port *p = &m->fabric.ports[slot];
    bool sw = is_switch(m, p->node);
    struct cs_smp_port_info *pi = &m->ports[slot].info;
    memset(pi, 0, sizeof *pi);
    pi->subnet_prefix = DEFAULT_SUBNET_PREFIX;
    if (sw && p->num == 0)
        pi->capability_mask = SWITCH_PORT0_CAPABILITY_MASK;
    else if (!sw)
        pi->capability_mask = CA_CAPABILITY_MASK;

    uint8_t width_code = cs_smp_width_to_active(p->width);
    pi->link_width_supported = 1 | 2 | 8 | width_code; /* 1x, 4x, 12x and whatever is active */
    pi->link_width_enabled = pi->link_width_supported;
    pi->link_width_active = width_code;
    cs_smp_speed_to_active((enum cs_link_speed)p->speed, &pi->link_speed_active,
                           &pi->link_speed_ext_active);
    pi->link_speed_supported = 1 | 2 | 4; /* SDR, DDR, QDR */
    pi->link_speed_enabled = pi->link_speed_supported;
    if (pi->link_speed_ext_active) {
        pi->link_speed_ext_supported = (uint8_t)(0x7 | pi->link_speed_ext_active);
        pi->link_speed_ext_enabled = pi->link_speed_ext_supported;
    }

    if (sw && p->num == 0) {
        pi->port_state = CS_SMP_PORT_STATE_ACTIVE; /* ibsim: the SMA port is always up */
        pi->port_physical_state = CS_SMP_PORT_PHYS_LINK_UP;
    } else if (p->peer != CS_NONE) {
        pi->port_state = CS_SMP_PORT_STATE_INIT;
        pi->port_physical_state = CS_SMP_PORT_PHYS_LINK_UP;
    } else {
        pi->port_state = CS_SMP_PORT_STATE_DOWN;
        pi->port_physical_state = PHYS_POLLING;
    }
    pi->link_down_default_state = PHYS_POLLING;
    pi->neighbor_mtu = MTU_2048;
    pi->mtu_cap = MTU_2048;
    pi->vl_cap = VL_CAP_VL0_7;
    pi->operational_vls = VL_CAP_VL0_7;
    pi->vl_arbitration_high_cap = 8;
    pi->vl_arbitration_low_cap = 8;
    pi->vl_stall_count = 7;
    pi->hoq_life = 31;
    pi->guid_cap = (!sw || p->num == 0) ? 1 : 0;
    pi->resp_time_value = 8;
}

static void init_switch(struct cs_sma_model *m, uint32_t node)
{
    struct cs_smp_switch_info *si = &m->switches[node].info;
    memset(si, 0, sizeof *si);
    si->linear_fdb_cap = SWITCH_LINEAR_FDB_CAP;
    si->multicast_fdb_cap = SWITCH_MULTICAST_FDB_CAP;
    si->partition_enforcement_cap = CS_SMA_MODEL_PKEY_ENTRIES; /* ibsim's; no In/Outbound cap */
    si->filter_raw_inbound_cap = 1;
    si->filter_raw_outbound_cap = 1;
    si->enhanced_port0 = m->fabric.nodes[node].enhanced_port0;
    /* ibsim raises PortStateChange whenever it links a port of the switch. */
    const struct cs_node *n = &m->fabric.nodes[node];
    for (unsigned p = 1; p <= n->num_ports; p++)
        if (m->fabric.ports[n->first_port + p].peer != CS_NONE)
            si->port_state_change = 1;
}

struct cs_sma_model *cs_sma_model_create(const struct cs_fabric *f, uint32_t sm_node,
                                         unsigned sm_port, struct cs_error *err)
{
    if (sm_node >= f->num_nodes) {
        cs_fail(err, "SM node %u: the fabric has %u nodes", sm_node, f->num_nodes);
        return NULL;
    }
    const struct cs_node *sn = &f->nodes[sm_node];
    bool sm_on_switch = sn->type == CS_NODE_SWITCH;
    if (sm_on_switch ? sm_port != 0 : (sm_port < 1 || sm_port > sn->num_ports)) {
        cs_fail(err, "SM port %u of node 0x%016" PRIx64 ": use %s", sm_port, sn->guid,
                sm_on_switch ? "port 0 on a switch" : "an existing port on a CA");
        return NULL;
    }
    struct cs_sma_model *m = cs_calloc_array(1, sizeof *m, err);
    if (m == NULL)
        return NULL;
    if (cs_fabric_copy(&m->fabric, f, err) < 0) {
        free(m);
        return NULL;
    }
    m->ports = cs_calloc_array(f->num_port_slots, sizeof *m->ports, err);
    m->switches = cs_calloc_array(f->num_nodes, sizeof *m->switches, err);
    m->unresponsive = cs_calloc_array(f->num_nodes, sizeof *m->unresponsive, err);
    m->partition_cap = cs_calloc_array(f->num_nodes, sizeof *m->partition_cap, err);
    m->no_sl2vl = cs_calloc_array(f->num_nodes, sizeof *m->no_sl2vl, err);
    m->no_pma_ext = cs_calloc_array(f->num_nodes, sizeof *m->no_pma_ext, err);
    if (m->ports == NULL || m->switches == NULL || m->unresponsive == NULL ||
        m->partition_cap == NULL || m->no_sl2vl == NULL || m->no_pma_ext == NULL) {
        cs_sma_model_destroy(m);
        return NULL;
    }
    m->sm_node = sm_node;
    m->sm_port = sn->first_port + sm_port;
    for (uint32_t i = 0; i < f->num_port_slots; i++)
        init_port_info(m, i);
    for (uint32_t n = 0; n < f->num_nodes; n++) {
        m->partition_cap[n] =
            is_switch(m, n) ? CS_SMA_MODEL_SWITCH_PKEY_ENTRIES : CS_SMA_MODEL_PKEY_ENTRIES;
        if (is_switch(m, n))
            init_switch(m, n);
    }
    return m;
}

void cs_sma_model_destroy(struct cs_sma_model *m)
{
    if (m == NULL)
        return;
    if (m->ports)
        for (uint32_t i = 0; i < m->fabric.num_port_slots; i++) {
            free(m->ports[i].pkeys);
            free(m->ports[i].sl2vl);
            free(m->ports[i].vlarb);
            free(m->ports[i].guids);
        }
    if (m->switches)
        for (uint32_t n = 0; n < m->fabric.num_nodes; n++) {
            free(m->switches[n].lft);
            free(m->switches[n].mft);
        }
    free(m->ports);
    free(m->switches);
    free(m->unresponsive);
    free(m->partition_cap);
    free(m->no_sl2vl);
    free(m->no_pma_ext);
    free(m->queue);
    cs_fabric_free(&m->fabric);
    free(m);
}

const struct cs_fabric *cs_sma_model_fabric(const struct cs_sma_model *m)
{
    return &m->fabric;
}

/* ---- Faults ---- */

int cs_sma_model_unlink(struct cs_sma_model *m, uint32_t port, struct cs_error *err)
{
    if (port >= m->fabric.num_port_slots || m->fabric.ports[port].peer == CS_NONE)
        return cs_fail(err, "unlink: port index %u is not linked", port);
    uint32_t ends[2] = {port, m->fabric.ports[port].peer};
    for (int i = 0; i < 2; i++) {
        struct cs_port *p = &m->fabric.ports[ends[i]];
        p->peer = CS_NONE;
        m->ports[ends[i]].info.port_state = CS_SMP_PORT_STATE_DOWN;
        m->ports[ends[i]].info.port_physical_state = PHYS_POLLING;
        if (is_switch(m, p->node))
            m->switches[p->node].info.port_state_change = 1;
    }
    return 0;
}

void cs_sma_model_set_unresponsive(struct cs_sma_model *m, uint32_t node, bool unresponsive)
{
    if (node < m->fabric.num_nodes)
        m->unresponsive[node] = unresponsive;
}

void cs_sma_model_set_drop(struct cs_sma_model *m, double probability, uint64_t seed)
{
    m->drop_probability = probability;
    cs_rng_seed(&m->drop_rng, seed);
}

void cs_sma_model_shuffle_replies(struct cs_sma_model *m, uint64_t seed)
{
    m->shuffle = seed != 0;
    cs_rng_seed(&m->shuffle_rng, seed);
}

static bool drop_now(struct cs_sma_model *m)
{
    if (m->drop_probability <= 0)
        return false;
    /* 53 random bits as a fraction in [0, 1). */
    double draw = (double)(cs_rng_next(&m->drop_rng) >> 11) * 0x1p-53;
    if (draw >= m->drop_probability)
        return false;
    m->stats.dropped++;
    return true;
}

/* ---- Partitions ---- */

/* The size of a port's P_Key table: SwitchInfo PartitionEnforcementCap on a switch's external
 * ports, NodeInfo PartitionCap elsewhere (ibsim's do_pkeytbl). */
static uint16_t pkey_capacity(const struct cs_sma_model *m, uint32_t slot)
{
    const struct cs_port *p = &m->fabric.ports[slot];
    if (is_switch(m, p->node) && p->num != 0)
        return m->switches[p->node].info.partition_enforcement_cap;
    return m->partition_cap[p->node];
}

int cs_sma_model_set_partition_caps(struct cs_sma_model *m, uint32_t node,
                                    const struct cs_sma_model_partition_caps *caps,
                                    struct cs_error *err)
{
    if (node >= m->fabric.num_nodes)
        return cs_fail(err, "set_partition_caps: no node index %u", node);
    m->partition_cap[node] = caps->partition_cap;
    if (is_switch(m, node)) {
        struct cs_smp_switch_info *si = &m->switches[node].info;
        si->partition_enforcement_cap = caps->enforcement_cap;
        si->inbound_enforcement_cap = caps->inbound;
        si->outbound_enforcement_cap = caps->outbound;
    }
    /* Tables sized for the old capabilities go; the ports hold the default again. */
    const struct cs_node *n = &m->fabric.nodes[node];
    for (unsigned num = 0; num <= n->num_ports; num++) {
        struct model_port *mp = &m->ports[n->first_port + num];
        free(mp->pkeys);
        mp->pkeys = NULL;
    }
    return 0;
}

int cs_sma_model_set_linear_fdb_cap(struct cs_sma_model *m, uint32_t node, uint16_t cap,
                                    struct cs_error *err)
{
    if (node >= m->fabric.num_nodes || !is_switch(m, node))
        return cs_fail(err, "set_linear_fdb_cap: node index %u is not a switch", node);
    if (cap == 0 || cap > SWITCH_LINEAR_FDB_CAP)
        return cs_fail(err, "set_linear_fdb_cap: %u is not a capacity (1..%u)", cap,
                       SWITCH_LINEAR_FDB_CAP);
    m->switches[node].info.linear_fdb_cap = cap;
    return 0;
}

uint16_t cs_sma_model_pkey(const struct cs_sma_model *m, uint32_t port, unsigned index)
{
    if (port >= m->fabric.num_port_slots || index >= pkey_capacity(m, port))
        return 0;
    const uint16_t *t = m->ports[port].pkeys;
    return t ? t[index] : (index == 0 ? 0xffff : 0);
}

/* ---- GUIDInfo ---- */

uint64_t cs_sma_model_guid(const struct cs_sma_model *m, uint32_t port, unsigned index)
{
    if (port >= m->fabric.num_port_slots || index >= m->ports[port].info.guid_cap)
        return 0;
    const uint64_t *t = m->ports[port].guids;
    return t ? t[index] : (index == 0 ? m->fabric.ports[port].guid : 0);
}

/* A port with an identity of its own (an SM, a GUID table): a CA port, or a switch's port 0.
 * what names the caller in the error. */
static int check_end_port(const struct cs_sma_model *m, uint32_t port, const char *what,
                          struct cs_error *err)
{
    if (port >= m->fabric.num_port_slots)
        return cs_fail(err, "%s: no port index %u", what, port);
    const struct cs_port *p = &m->fabric.ports[port];
    if (is_switch(m, p->node) && p->num != 0)
        return cs_fail(err, "%s: on a switch that is port 0, not %u", what, p->num);
    return 0;
}

int cs_sma_model_set_guid_cap(struct cs_sma_model *m, uint32_t port, uint8_t guid_cap,
                              struct cs_error *err)
{
    if (check_end_port(m, port, "set_guid_cap", err) < 0)
        return -1;
    free(m->ports[port].guids);
    m->ports[port].guids = NULL;
    m->ports[port].info.guid_cap = guid_cap;
    return 0;
}

/* ---- SL to VL mapping ---- */

/* ibsim's table before any Set, as smpquery sl2vl reads it on every port: SL s -> VL s for SL
 * 0..14, SL 15 -> VL 7. */
static uint8_t sl2vl_default(unsigned sl)
{
    return sl < 15 ? (uint8_t)sl : 7;
}

/* Output ports a port slot keeps tables for: every port of its switch (0..n), or one on a CA. */
static unsigned sl2vl_tables(const struct cs_sma_model *m, uint32_t slot)
{
    uint32_t node = m->fabric.ports[slot].node;
    return is_switch(m, node) ? m->fabric.nodes[node].num_ports + 1u : 1u;
}

uint8_t cs_sma_model_sl2vl(const struct cs_sma_model *m, uint32_t port, unsigned out, unsigned sl)
{
    if (port >= m->fabric.num_port_slots || sl >= CS_SL2VL_ENTRIES || out >= sl2vl_tables(m, port))
        return 0;
    const uint8_t *t = m->ports[port].sl2vl;
    return t ? t[(size_t)out * CS_SL2VL_ENTRIES + sl] : sl2vl_default(sl);
}

int cs_sma_model_set_sl2vl_unsupported(struct cs_sma_model *m, uint32_t node, bool unsupported,
                                       struct cs_error *err)
{
    if (node >= m->fabric.num_nodes)
        return cs_fail(err, "set_sl2vl_unsupported: no node index %u", node);
    m->no_sl2vl[node] = unsupported;
    return 0;
}

/* ---- VL arbitration ---- */

#define VLARB_BLOCKS 4

/* ibsim's tables before any Set, as smpquery vlarb reads them: entry i holds VL i, weight 4 for
 * VLs 1..14 in the low table and for VL 0 in the high one (OpenSM's defaults). */
static void vlarb_default(unsigned block, struct cs_smp_vlarb *out)
{
    memset(out, 0, sizeof *out);
    for (unsigned i = 0; block % 2 == 0 && i < 15; i++) {
        out->vl[i] = (uint8_t)i;
        out->weight[i] = (block < 2) == (i != 0) ? 4 : 0;
    }
}

/* Entries of block (0..3) that exist on a port: its low or high cap, 32 to a block. */
static unsigned vlarb_block_size(const struct cs_smp_port_info *pi, unsigned block)
{
    unsigned cap = block < 2 ? pi->vl_arbitration_low_cap : pi->vl_arbitration_high_cap;
    unsigned first = block % 2 * CS_VLARB_ENTRIES;
    if (cap <= first)
        return 0;
    return cap - first < CS_VLARB_ENTRIES ? cap - first : CS_VLARB_ENTRIES;
}

int cs_sma_model_vlarb(const struct cs_sma_model *m, uint32_t port, unsigned block,
                       struct cs_smp_vlarb *out)
{
    memset(out, 0, sizeof *out);
    if (port >= m->fabric.num_port_slots || block >= VLARB_BLOCKS)
        return -1;
    const struct model_port *p = &m->ports[port];
    unsigned size = vlarb_block_size(&p->info, block);
    if (size == 0)
        return -1;
    struct cs_smp_vlarb all;
    if (p->vlarb)
        all = p->vlarb[block];
    else
        vlarb_default(block, &all);
    memcpy(out->vl, all.vl, size);
    memcpy(out->weight, all.weight, size);
    return 0;
}

int cs_sma_model_set_vlarb_caps(struct cs_sma_model *m, uint32_t port, uint8_t low_cap,
                                uint8_t high_cap, struct cs_error *err)
{
    if (port >= m->fabric.num_port_slots)
        return cs_fail(err, "set_vlarb_caps: no port index %u", port);
    m->ports[port].info.vl_arbitration_low_cap = low_cap;
    m->ports[port].info.vl_arbitration_high_cap = high_cap;
    return 0;
}

/* ---- Other SMs ---- */

int cs_sma_model_set_sm(struct cs_sma_model *m, uint32_t port, const struct cs_smp_sm_info *info,
                        struct cs_error *err)
{
    if (check_end_port(m, port, "set_sm", err) < 0)
        return -1;
    struct model_port *mp = &m->ports[port];
    mp->info.capability_mask |= CS_SMP_PORT_CAP_IS_SM;
    mp->sm_answers = info != NULL;
    if (info != NULL)
        mp->sm = *info;
    mp->sm_changes = false;
    mp->sm_control = 0;
    return 0;
}

int cs_sma_model_get_sm(const struct cs_sma_model *m, uint32_t port, struct cs_smp_sm_info *info,
                        uint8_t *last_control)
{
    if (port >= m->fabric.num_port_slots ||
        !(m->ports[port].info.capability_mask & CS_SMP_PORT_CAP_IS_SM))
        return -1;
    *info = m->ports[port].sm;
    if (last_control != NULL)
        *last_control = m->ports[port].sm_control;
    return 0;
}

int cs_sma_model_set_sm_next(struct cs_sma_model *m, uint32_t port, unsigned gets,
                             const struct cs_smp_sm_info *next, struct cs_error *err)
{
    if (port >= m->fabric.num_port_slots ||
        !(m->ports[port].info.capability_mask & CS_SMP_PORT_CAP_IS_SM))
        return cs_fail(err, "set_sm_next: no SM on port index %u", port);
    struct model_port *mp = &m->ports[port];
    mp->sm_changes = true;
    mp->sm_gets_left = gets;
    mp->sm_next_answers = next != NULL;
    if (next != NULL)
        mp->sm_next = *next;
    return 0;
}

/* ---- Counters and state ---- */

static unsigned method_slot(uint8_t method)
{
    return method == CS_SMP_METHOD_GET   ? METHOD_SLOT_GET
           : method == CS_SMP_METHOD_SET ? METHOD_SLOT_SET
                                         : METHOD_SLOT_OTHER;
}

static unsigned attr_slot(uint16_t attr_id)
{
    return attr_id < ATTR_SLOTS - 1 ? attr_id : ATTR_SLOTS - 1;
}

struct cs_sma_model_stats cs_sma_model_stats(const struct cs_sma_model *m)
{
    return m->stats;
}

uint64_t cs_sma_model_count(const struct cs_sma_model *m, uint16_t attr_id, uint8_t method)
{
    return m->counts[method_slot(method)][attr_slot(attr_id)];
}

void cs_sma_model_reset_counts(struct cs_sma_model *m)
{
    memset(m->counts, 0, sizeof m->counts);
    memset(&m->stats, 0, sizeof m->stats);
}

void cs_sma_model_port_info(const struct cs_sma_model *m, uint32_t port,
                            struct cs_smp_port_info *out)
{
    *out = m->ports[port].info;
    const struct cs_port *p = &m->fabric.ports[port];
    out->local_port_num = is_switch(m, p->node) ? 0 : p->num;
}

uint8_t cs_sma_model_port_state(const struct cs_sma_model *m, uint32_t port)
{
    return m->ports[port].info.port_state;
}

uint16_t cs_sma_model_port_lid(const struct cs_sma_model *m, uint32_t port)
{
    return m->ports[port].info.lid;
}

void cs_sma_model_switch_info(const struct cs_sma_model *m, uint32_t node,
                              struct cs_smp_switch_info *out)
{
    if (node < m->fabric.num_nodes && is_switch(m, node))
        *out = m->switches[node].info;
    else
        memset(out, 0, sizeof *out);
}

uint8_t cs_sma_model_lft_entry(const struct cs_sma_model *m, uint32_t node, uint32_t lid)
{
    if (node >= m->fabric.num_nodes || !is_switch(m, node) || lid >= m->switches[node].lft_size)
        return CS_LFT_NO_ROUTE;
    return m->switches[node].lft[lid];
}

uint16_t cs_sma_model_lft_top(const struct cs_sma_model *m, uint32_t node)
{
    if (node >= m->fabric.num_nodes || !is_switch(m, node))
        return 0;
    return m->switches[node].info.linear_fdb_top;
}

/* ---- Attributes ---- */

/* Where a request is being answered: the node and the port slot it arrived on. */
struct at {
    uint32_t node;
    uint32_t port;
};

static uint16_t do_node_info(struct cs_sma_model *m, struct at at, uint8_t method,
                             uint8_t data[CS_SMP_DATA_SIZE])
{
    const struct cs_node *n = &m->fabric.nodes[at.node];
    const struct cs_port *arrival = &m->fabric.ports[at.port];
    struct cs_smp_node_info ni = {
        .base_version = CS_SMP_BASE_VERSION,
        .class_version = CS_SMP_CLASS_VERSION,
        .node_type = n->type,
        .num_ports = n->num_ports,
        .system_image_guid = n->sysimg_guid,
        .node_guid = n->guid,
        /* ibsim: a switch answers with its one port GUID (port 0), a CA with the arrival port's */
        .port_guid =
            n->type == CS_NODE_SWITCH ? m->fabric.ports[n->first_port].guid : arrival->guid,
        .partition_cap = m->partition_cap[at.node],
        .device_id = (uint16_t)n->device_id,
        .revision = NODE_INFO_REVISION,
        .local_port_num = arrival->num,
        .vendor_id = n->vendor_id,
    };
    cs_smp_node_info_encode(&ni, data);
    return method == CS_SMP_METHOD_GET ? 0 : CS_SMP_STATUS_METHOD_UNSUPPORTED;
}

static uint16_t do_node_description(struct cs_sma_model *m, struct at at, uint8_t method,
                                    uint8_t data[CS_SMP_DATA_SIZE])
{
    struct cs_smp_node_description nd;
    memcpy(nd.text, m->fabric.nodes[at.node].desc, sizeof nd.text);
    cs_smp_node_description_encode(&nd, data);
    return method == CS_SMP_METHOD_GET ? 0 : CS_SMP_STATUS_METHOD_UNSUPPORTED;
}

static uint16_t do_switch_info(struct cs_sma_model *m, struct at at, uint8_t method,
                               uint8_t data[CS_SMP_DATA_SIZE])
{
    if (!is_switch(m, at.node))
        return CS_SMP_STATUS_ATTR_UNSUPPORTED;
    struct cs_smp_switch_info *si = &m->switches[at.node].info;
    if (method == CS_SMP_METHOD_SET) {
        struct cs_smp_switch_info in;
        cs_smp_switch_info_decode(data, &in);
        /* A top the table cannot hold is refused, and the Set changes nothing. */
        if (in.linear_fdb_top >= si->linear_fdb_cap)
            return CS_SMP_STATUS_INVALID_FIELD;
        if (in.port_state_change)
            si->port_state_change = 0;
        si->linear_fdb_top = in.linear_fdb_top;
        si->life_time_value = in.life_time_value;
    }
    cs_smp_switch_info_encode(si, data);
    return 0;
}

static uint16_t do_sm_info(struct cs_sma_model *m, struct at at, uint8_t method, uint32_t attr_mod,
                           uint8_t data[CS_SMP_DATA_SIZE])
{
    /* An SM on a CA listens on its own port; a switch's SM sits on port 0, whatever port the
     * SMP came in by. */
    uint32_t slot = is_switch(m, at.node) ? port_slot(m, at.node, 0) : at.port;
    struct model_port *p = &m->ports[slot];
    if (p->sm_changes) {
        if (p->sm_gets_left > 0) {
            p->sm_gets_left--;
        } else {
            p->sm_changes = false;
            p->sm_answers = p->sm_next_answers;
            p->sm = p->sm_next;
        }
    }
    if (!p->sm_answers)
        return CS_SMP_STATUS_ATTR_UNSUPPORTED;
    if (method == CS_SMP_METHOD_SET) {
        /* A control from another SM: answered with this SM's SMInfo as it was, then taken (a
         * model SM takes whatever it is told: the tests check what was sent, not its legality). */
        struct cs_smp_sm_info was = p->sm;
        p->sm_control = (uint8_t)attr_mod;
        static const int8_t to[] = {-1,
                                    CS_SMP_SM_STATE_MASTER,
                                    -1,
                                    CS_SMP_SM_STATE_NOT_ACTIVE,
                                    CS_SMP_SM_STATE_STANDBY,
                                    CS_SMP_SM_STATE_DISCOVERING};
        if (attr_mod < sizeof to && to[attr_mod] >= 0)
            p->sm.sm_state = (uint8_t)to[attr_mod];
        cs_smp_sm_info_encode(&was, data);
        return 0;
    }
    cs_smp_sm_info_encode(&p->sm, data);
    return 0;
}

static int state_distance(int a, int b)
{
    return a > b ? a - b : b - a;
}

static uint16_t port_info_set(struct cs_sma_model *m, uint32_t slot,
                              const struct cs_smp_port_info *in)
{
    struct cs_smp_port_info *pi = &m->ports[slot].info;
    uint32_t peer = m->fabric.ports[slot].peer;
    uint8_t new_state = in->port_state;

    /* Validate everything before changing anything. */
    if (new_state > CS_SMP_PORT_STATE_ACTIVE)
        return CS_SMP_STATUS_INVALID_FIELD;
    if (peer == CS_NONE && new_state > CS_SMP_PORT_STATE_DOWN)
        return CS_SMP_STATUS_INVALID_FIELD; /* ibsim: cannot change the state of a DOWN port */
    if (peer != CS_NONE && new_state >= CS_SMP_PORT_STATE_ARMED &&
        !(state_distance(m->ports[peer].info.port_state, new_state) <= 1 &&
          state_distance(pi->port_state, new_state) == 1))
        return CS_SMP_STATUS_INVALID_FIELD;
    /* ibsim compares with the VLCap written in the same Set, not with the port's own. */
    if (in->operational_vls > in->vl_cap)
        return CS_SMP_STATUS_INVALID_FIELD;

    pi->lid = in->lid;
    pi->master_sm_lid = in->master_sm_lid;
    pi->lmc = in->lmc;
    pi->subnet_prefix = in->subnet_prefix;
    pi->m_key = in->m_key;
    pi->m_key_protect_bits = in->m_key_protect_bits;
    pi->m_key_lease_period = in->m_key_lease_period;
    pi->hoq_life = in->hoq_life;
    uint32_t node = m->fabric.ports[slot].node;
    if (is_switch(m, node) && m->fabric.ports[slot].num != 0) {
        /* IBA 14.2.5.6: the bits mean something only where SwitchInfo says the switch can
         * enforce; ibsim stores neither. */
        const struct cs_smp_switch_info *si = &m->switches[node].info;
        if (si->inbound_enforcement_cap)
            pi->partition_enforcement_inbound = in->partition_enforcement_inbound;
        if (si->outbound_enforcement_cap)
            pi->partition_enforcement_outbound = in->partition_enforcement_outbound;
    }
    if (in->port_physical_state)
        pi->port_physical_state = in->port_physical_state;
    if (in->operational_vls)
        pi->operational_vls = in->operational_vls;
    if (peer != CS_NONE && new_state == CS_SMP_PORT_STATE_DOWN) {
        /* ibsim: DOWN re-initialises the link; both ends go to INIT, and the far switch notices
         * (the near one does not: no PortStateChange for a change the SM made itself). */
        pi->port_state = CS_SMP_PORT_STATE_INIT;
        m->ports[peer].info.port_state = CS_SMP_PORT_STATE_INIT;
        uint32_t peer_node = m->fabric.ports[peer].node;
        if (is_switch(m, peer_node))
            m->switches[peer_node].info.port_state_change = 1;
    } else if (peer != CS_NONE && new_state >= CS_SMP_PORT_STATE_ARMED) {
        pi->port_state = new_state;
    }
    return 0;
}

static uint16_t do_port_info(struct cs_sma_model *m, struct at at, uint8_t method, uint32_t mod,
                             uint8_t data[CS_SMP_DATA_SIZE])
{
    const struct cs_node *n = &m->fabric.nodes[at.node];
    if (mod > n->num_ports)
        return CS_SMP_STATUS_INVALID_FIELD;
    unsigned num = mod;
    if (num == 0 && n->type != CS_NODE_SWITCH)
        num = m->fabric.ports[at.port].num; /* IBA 14.2.5.6: the port the SMP came in on */
    uint32_t slot = port_slot(m, at.node, num);
    if (method == CS_SMP_METHOD_SET) {
        if (n->type != CS_NODE_SWITCH && slot != at.port)
            return CS_SMP_STATUS_INVALID_FIELD; /* a CA sets only the port it is reached by */
        struct cs_smp_port_info in;
        cs_smp_port_info_decode(data, &in);
        uint16_t status = port_info_set(m, slot, &in);
        if (status)
            return status;
        /* The port's clients are told to register again; the bit itself is not kept. */
        if (in.client_reregister &&
            (m->ports[slot].info.capability_mask & CS_SMP_PORT_CAP_CLIENT_REREG))
            m->ports[slot].client_reregisters++;
    }
    struct cs_smp_port_info out;
    cs_sma_model_port_info(m, slot, &out);
    cs_smp_port_info_encode(&out, data);
    return 0;
}

static int lft_reserve(struct model_switch *sw, uint32_t entries)
{
    if (entries <= sw->lft_size)
        return 0;
    uint8_t *grown = realloc(sw->lft, entries);
    if (grown == NULL)
        return -1;
    memset(grown + sw->lft_size, CS_LFT_NO_ROUTE, entries - sw->lft_size);
    sw->lft = grown;
    sw->lft_size = entries;
    return 0;
}

static uint16_t do_lft(struct cs_sma_model *m, struct at at, uint8_t method, uint32_t block,
                       uint8_t data[CS_SMP_DATA_SIZE], struct cs_error *err, int *failed)
{
    if (!is_switch(m, at.node))
        return CS_SMP_STATUS_ATTR_UNSUPPORTED;
    struct model_switch *sw = &m->switches[at.node];
    if (block > LFT_MAX_BLOCK || block * CS_LFT_PORTS_PER_BLOCK >= sw->info.linear_fdb_cap)
        return CS_SMP_STATUS_INVALID_FIELD;
    uint32_t first = block * CS_LFT_PORTS_PER_BLOCK;
    struct cs_smp_lft_block b;
    if (method == CS_SMP_METHOD_SET) {
        if (lft_reserve(sw, first + CS_LFT_PORTS_PER_BLOCK) < 0) {
            *failed = cs_fail(err, "SMA model: no memory for an LFT block");
            return 0;
        }
        cs_smp_lft_block_decode(data, &b);
        memcpy(sw->lft + first, b.port, CS_LFT_PORTS_PER_BLOCK);
    }
    for (unsigned i = 0; i < CS_LFT_PORTS_PER_BLOCK; i++)
        b.port[i] = cs_sma_model_lft_entry(m, at.node, first + i);
    cs_smp_lft_block_encode(&b, data);
    return 0;
}

int cs_sma_model_set_capability_mask(struct cs_sma_model *m, uint32_t port, uint32_t mask,
                                     struct cs_error *err)
{
    if (port >= m->fabric.num_port_slots)
        return cs_fail(err, "set_capability_mask: port index %u out of range", port);
    m->ports[port].info.capability_mask = mask;
    return 0;
}

unsigned cs_sma_model_client_reregisters(const struct cs_sma_model *m, uint32_t port)
{
    return port < m->fabric.num_port_slots ? m->ports[port].client_reregisters : 0;
}

uint16_t cs_sma_model_mft_entry(const struct cs_sma_model *m, uint32_t node, uint16_t mlid,
                                unsigned position)
{
    if (node >= m->fabric.num_nodes || !is_switch(m, node) || m->switches[node].mft == NULL ||
        mlid < CS_MCAST_MLID_FIRST || position >= CS_MFT_POSITIONS_MAX ||
        (uint32_t)(mlid - CS_MCAST_MLID_FIRST) >= m->switches[node].info.multicast_fdb_cap)
        return 0;
    return m->switches[node]
        .mft[(size_t)(mlid - CS_MCAST_MLID_FIRST) * CS_MFT_POSITIONS_MAX + position];
}

/* MulticastForwardingTable (IBA 14.2.5.11): modifier bits 31..28 the position, 8..0 the block. */
static uint16_t do_mft(struct cs_sma_model *m, struct at at, uint8_t method, uint32_t mod,
                       uint8_t data[CS_SMP_DATA_SIZE], struct cs_error *err, int *failed)
{
    if (!is_switch(m, at.node))
        return CS_SMP_STATUS_ATTR_UNSUPPORTED;
    struct model_switch *sw = &m->switches[at.node];
    uint32_t block = mod & 0x1ff, position = mod >> 28;
    unsigned positions =
        (m->fabric.nodes[at.node].num_ports + 1u + CS_MFT_POSITION - 1) / CS_MFT_POSITION;
    if ((mod & 0x0ffffe00) || position >= positions ||
        block * CS_MFT_BLOCK >= sw->info.multicast_fdb_cap)
        return CS_SMP_STATUS_INVALID_FIELD;
    if (method == CS_SMP_METHOD_SET) {
        if (sw->mft == NULL &&
            (sw->mft = calloc((size_t)sw->info.multicast_fdb_cap * CS_MFT_POSITIONS_MAX,
                              sizeof *sw->mft)) == NULL) {
            *failed = cs_fail(err, "SMA model: no memory for an MFT");
            return 0;
        }
        for (unsigned i = 0; i < CS_MFT_BLOCK; i++)
            sw->mft[(size_t)(block * CS_MFT_BLOCK + i) * CS_MFT_POSITIONS_MAX + position] =
                (uint16_t)(data[2 * i] << 8 | data[2 * i + 1]);
    }
    memset(data, 0, CS_SMP_DATA_SIZE);
    for (unsigned i = 0; i < CS_MFT_BLOCK; i++) {
        uint16_t mask = cs_sma_model_mft_entry(
            m, at.node, (uint16_t)(CS_MCAST_MLID_FIRST + block * CS_MFT_BLOCK + i), position);
        data[2 * i] = (uint8_t)(mask >> 8);
        data[2 * i + 1] = (uint8_t)mask;
    }
    return 0;
}

static uint16_t do_pkey_table(struct cs_sma_model *m, struct at at, uint8_t method, uint32_t mod,
                              uint8_t data[CS_SMP_DATA_SIZE], struct cs_error *err, int *failed)
{
    unsigned block = mod & 0xffff, num = mod >> 16;
    uint32_t slot = at.port;
    if (is_switch(m, at.node)) {
        if (num > m->fabric.nodes[at.node].num_ports)
            return CS_SMP_STATUS_INVALID_FIELD;
        slot = port_slot(m, at.node, num);
    }
    uint16_t capacity = pkey_capacity(m, slot);
    if (block * CS_PKEYS_PER_BLOCK >= capacity)
        return CS_SMP_STATUS_INVALID_FIELD;
    struct model_port *p = &m->ports[slot];
    struct cs_smp_pkey_block b;
    unsigned first = block * CS_PKEYS_PER_BLOCK;
    unsigned size = capacity - first < CS_PKEYS_PER_BLOCK ? capacity - first : CS_PKEYS_PER_BLOCK;
    if (method == CS_SMP_METHOD_SET) {
        if (p->pkeys == NULL) {
            uint32_t entries = ((uint32_t)capacity + CS_PKEYS_PER_BLOCK - 1) / CS_PKEYS_PER_BLOCK *
                               CS_PKEYS_PER_BLOCK;
            p->pkeys = cs_calloc_array(entries, sizeof *p->pkeys, err);
            if (p->pkeys == NULL) {
                *failed = -1;
                return 0;
            }
            p->pkeys[0] = 0xffff;
        }
        cs_smp_pkey_block_decode(data, &b);
        memcpy(p->pkeys + first, b.pkey, size * sizeof *b.pkey); /* ibsim keeps what fits */
    }
    for (unsigned i = 0; i < CS_PKEYS_PER_BLOCK; i++)
        b.pkey[i] = i < size ? cs_sma_model_pkey(m, slot, first + i) : 0;
    cs_smp_pkey_block_encode(&b, data);
    return 0;
}

/* SL2VLMappingTable (IBA 14.2.5.8): a switch addresses the table of (input port, output port) by
 * modifier bits 8..15 and 0..7; a CA answers for the port the SMP arrived on, whatever the
 * modifier (ibsim). */
static uint16_t do_sl2vl(struct cs_sma_model *m, struct at at, uint8_t method, uint32_t mod,
                         uint8_t data[CS_SMP_DATA_SIZE], struct cs_error *err, int *failed)
{
    if (m->no_sl2vl[at.node])
        return CS_SMP_STATUS_ATTR_UNSUPPORTED;
    uint32_t slot = at.port;
    unsigned out = 0;
    if (is_switch(m, at.node)) {
        unsigned in = (mod >> 8) & 0xff, ports = m->fabric.nodes[at.node].num_ports;
        out = mod & 0xff;
        if (in > ports || out > ports || (mod >> 16) != 0)
            return CS_SMP_STATUS_INVALID_FIELD;
        slot = port_slot(m, at.node, in);
    }
    struct model_port *p = &m->ports[slot];
    struct cs_smp_sl2vl t;
    if (method == CS_SMP_METHOD_SET) {
        if (p->sl2vl == NULL) {
            size_t entries = (size_t)sl2vl_tables(m, slot) * CS_SL2VL_ENTRIES;
            p->sl2vl = cs_calloc_array(entries, 1, err);
            if (p->sl2vl == NULL) {
                *failed = -1;
                return 0;
            }
            for (size_t i = 0; i < entries; i++)
                p->sl2vl[i] = sl2vl_default(i % CS_SL2VL_ENTRIES);
        }
        cs_smp_sl2vl_decode(data, &t);
        memcpy(p->sl2vl + (size_t)out * CS_SL2VL_ENTRIES, t.vl, CS_SL2VL_ENTRIES);
    }
    memset(data, 0, CS_SMP_DATA_SIZE);
    for (unsigned sl = 0; sl < CS_SL2VL_ENTRIES; sl++)
        t.vl[sl] = cs_sma_model_sl2vl(m, slot, out, sl);
    cs_smp_sl2vl_encode(&t, data);
    return 0;
}

/* VLArbitrationTable (IBA 14.2.5.9), as ibsim answers it: modifier bits 16..31 the block (1..4),
 * on a switch bits 0..15 the port; a CA answers for the port the SMP arrived on. A block past the
 * port's cap is refused; a Set keeps only the entries within the cap. */
static uint16_t do_vlarb(struct cs_sma_model *m, struct at at, uint8_t method, uint32_t mod,
                         uint8_t data[CS_SMP_DATA_SIZE], struct cs_error *err, int *failed)
{
    uint32_t slot = at.port;
    if (is_switch(m, at.node)) {
        if ((mod & 0xffff) > m->fabric.nodes[at.node].num_ports)
            return CS_SMP_STATUS_INVALID_FIELD;
        slot = port_slot(m, at.node, mod & 0xffff);
    }
    unsigned block = (mod >> 16) - 1;
    if ((mod >> 16) == 0 || block >= VLARB_BLOCKS)
        return CS_SMP_STATUS_INVALID_FIELD;
    struct model_port *p = &m->ports[slot];
    unsigned size = vlarb_block_size(&p->info, block);
    if (size == 0)
        return CS_SMP_STATUS_INVALID_FIELD;
    if (method == CS_SMP_METHOD_SET) {
        if (p->vlarb == NULL) {
            p->vlarb = cs_calloc_array(VLARB_BLOCKS, sizeof *p->vlarb, err);
            if (p->vlarb == NULL) {
                *failed = -1;
                return 0;
            }
            for (unsigned b = 0; b < VLARB_BLOCKS; b++)
                vlarb_default(b, &p->vlarb[b]);
        }
        struct cs_smp_vlarb in;
        cs_smp_vlarb_decode(data, &in);
        memcpy(p->vlarb[block].vl, in.vl, size);
        memcpy(p->vlarb[block].weight, in.weight, size);
    }
    struct cs_smp_vlarb out;
    cs_sma_model_vlarb(m, slot, block, &out);
    cs_smp_vlarb_encode(&out, data);
    return 0;
}

/* The port whose GUIDInfo an SMP that arrived at `at` reads: a switch has one, on port 0; a CA
 * answers for the port the SMP came in on. */
static uint32_t guid_info_port(const struct cs_sma_model *m, struct at at)
{
    return is_switch(m, at.node) ? port_slot(m, at.node, 0) : at.port;
}

static uint16_t do_guid_info(struct cs_sma_model *m, struct at at, uint8_t method, uint32_t block,
                             uint8_t data[CS_SMP_DATA_SIZE], struct cs_error *err, int *failed)
{
    uint32_t slot = guid_info_port(m, at);
    struct model_port *p = &m->ports[slot];
    unsigned cap = p->info.guid_cap;
    if (block >= (cap + CS_GUIDS_PER_BLOCK - 1) / CS_GUIDS_PER_BLOCK)
        return CS_SMP_STATUS_INVALID_FIELD;
    unsigned first = block * CS_GUIDS_PER_BLOCK;
    struct cs_smp_guid_block b;
    if (method == CS_SMP_METHOD_SET) {
        if (p->guids == NULL) {
            size_t entries =
                (cap + CS_GUIDS_PER_BLOCK - 1) / CS_GUIDS_PER_BLOCK * CS_GUIDS_PER_BLOCK;
            p->guids = cs_calloc_array(entries, sizeof *p->guids, err);
            if (p->guids == NULL) {
                *failed = -1;
                return 0;
            }
            p->guids[0] = m->fabric.ports[slot].guid;
        }
        cs_smp_guid_block_decode(data, &b);
        /* Entry 0 is the port GUID (read-only); entries beyond GUIDCap do not exist. */
        for (unsigned i = 0; i < CS_GUIDS_PER_BLOCK; i++)
            if (first + i != 0 && first + i < cap)
                p->guids[first + i] = b.guid[i];
    }
    for (unsigned i = 0; i < CS_GUIDS_PER_BLOCK; i++)
        b.guid[i] = cs_sma_model_guid(m, slot, first + i);
    cs_smp_guid_block_encode(&b, data);
    return 0;
}

/* Run the attribute handler; the status goes into the reply. *failed becomes -1 only when the
 * model itself cannot go on (no memory). */
static uint16_t answer(struct cs_sma_model *m, struct at at, const struct cs_smp *req,
                       uint8_t data[CS_SMP_DATA_SIZE], struct cs_error *err, int *failed)
{
    if (req->method != CS_SMP_METHOD_GET && req->method != CS_SMP_METHOD_SET)
        return CS_SMP_STATUS_METHOD_UNSUPPORTED;
    switch (req->attr_id) {
    case CS_SMP_ATTR_NODE_INFO:
        return do_node_info(m, at, req->method, data);
    case CS_SMP_ATTR_NODE_DESCRIPTION:
        return do_node_description(m, at, req->method, data);
    case CS_SMP_ATTR_SWITCH_INFO:
        return do_switch_info(m, at, req->method, data);
    case CS_SMP_ATTR_PORT_INFO:
        return do_port_info(m, at, req->method, req->attr_mod, data);
    case CS_SMP_ATTR_LINEAR_FT:
        return do_lft(m, at, req->method, req->attr_mod, data, err, failed);
    case CS_SMP_ATTR_MCAST_FT:
        return do_mft(m, at, req->method, req->attr_mod, data, err, failed);
    case CS_SMP_ATTR_PKEY_TABLE:
        return do_pkey_table(m, at, req->method, req->attr_mod, data, err, failed);
    case CS_SMP_ATTR_SL2VL_TABLE:
        return do_sl2vl(m, at, req->method, req->attr_mod, data, err, failed);
    case CS_SMP_ATTR_VL_ARBITRATION:
        return do_vlarb(m, at, req->method, req->attr_mod, data, err, failed);
    case CS_SMP_ATTR_GUID_INFO:
        return do_guid_info(m, at, req->method, req->attr_mod, data, err, failed);
    case CS_SMP_ATTR_SM_INFO:
        return do_sm_info(m, at, req->method, req->attr_mod, data);
    default:
        return CS_SMP_STATUS_ATTR_UNSUPPORTED;
    }
}

/* ---- Routing ---- */

/* A directed route walked out from the SM port: the links it crossed (their far-end port slots)
 * so that the reply can check them again on the way back. */
struct dr_walk {
    struct at dest;
    uint32_t crossed[CS_SMP_PATH_SIZE];
    unsigned hops;
};

/* Leave node `node` through port number `out` (ibsim's next_port): the port must exist, be
 * linked, and be LinkUp at both ends, and the far node must be responsive. Returns the far port
 * slot or CS_NONE. */
static uint32_t cross(const struct cs_sma_model *m, uint32_t node, unsigned out)
{
    const struct cs_node *n = &m->fabric.nodes[node];
    if (out < 1 || out > n->num_ports)
        return CS_NONE;
    uint32_t slot = n->first_port + out;
    uint32_t peer = m->fabric.ports[slot].peer;
    if (peer == CS_NONE || !link_up(m, slot) || !link_up(m, peer))
        return CS_NONE;
    if (m->unresponsive[m->fabric.ports[peer].node])
        return CS_NONE;
    return peer;
}

static bool walk_out(const struct cs_sma_model *m, struct cs_smp *smp, struct dr_walk *w)
{
    struct at at = {m->sm_node, m->sm_port};
    if (m->unresponsive[at.node])
        return false;
    smp->return_path[0] = m->fabric.ports[at.port].num;
    for (unsigned hop = 1; hop <= smp->hop_count; hop++) {
        unsigned out = smp->initial_path[hop];
        if (!is_switch(m, at.node)) {
            /* A CA forwards nothing, and its own SMPs leave only by the port they were given
             * to. */
            if (hop > 1 || out != m->fabric.ports[at.port].num)
                return false;
        }
        uint32_t far = cross(m, at.node, out);
        if (far == CS_NONE)
            return false;
        at.node = m->fabric.ports[far].node;
        at.port = far;
        w->crossed[hop - 1] = far;
        smp->return_path[hop] = m->fabric.ports[far].num;
    }
    w->dest = at;
    w->hops = smp->hop_count;
    return true;
}

/* The reply retraces the links: a Set may have taken one of them down. */
static bool walk_back(const struct cs_sma_model *m, const struct dr_walk *w)
{
    for (unsigned i = 0; i < w->hops; i++) {
        uint32_t far = w->crossed[i];
        uint32_t near = m->fabric.ports[far].peer;
        if (near == CS_NONE || !link_up(m, far) || !link_up(m, near))
            return false;
    }
    return true;
}

static bool port_has_lid(const struct cs_sma_model *m, uint32_t slot, uint32_t lid)
{
    const struct cs_smp_port_info *pi = &m->ports[slot].info;
    return pi->lid != 0 && lid >= pi->lid && lid < (uint32_t)pi->lid + (1u << (pi->lmc & 7));
}

/* ibsim's link_valid: a LID-routed packet crosses only ports that are LinkUp and ACTIVE. */
static bool lid_link_valid(const struct cs_sma_model *m, uint32_t slot)
{
    return link_up(m, slot) && m->ports[slot].info.port_state == CS_SMP_PORT_STATE_ACTIVE;
}

/* Route a LID-routed packet that enters at port slot `from` to LID `lid` (ibsim's
 * lid_route_MAD). Returns where it arrives, or false when it is lost. */
static bool lid_route(const struct cs_sma_model *m, uint32_t from, uint32_t lid, struct at *dest)
{
    uint32_t node = m->fabric.ports[from].node, port = from;
    if (lid == 0 || m->unresponsive[node])
        return false;
    if (port_has_lid(m, port, lid)) {
        *dest = (struct at){node, port};
        return true;
    }
    if (!is_switch(m, node)) {
        /* A CA hands the packet to its link; ibsim checks this first link no further. */
        uint32_t peer = m->fabric.ports[port].peer;
        if (peer == CS_NONE || !link_up(m, port) || !link_up(m, peer))
            return false;
        port = peer;
        node = m->fabric.ports[peer].node;
        if (m->unresponsive[node])
            return false;
    }
    for (unsigned hop = 0; hop < LID_ROUTE_MAX_HOPS; hop++) {
        if (port_has_lid(m, port, lid)) {
            *dest = (struct at){node, port};
            return true;
        }
        if (!is_switch(m, node) || lid > m->switches[node].info.linear_fdb_top)
            return false;
        unsigned out = cs_sma_model_lft_entry(m, node, lid);
        if (out > m->fabric.nodes[node].num_ports)
            return false;
        uint32_t out_slot = port_slot(m, node, out);
        if (!lid_link_valid(m, out_slot))
            return false;
        if (port_has_lid(m, out_slot, lid)) {
            *dest = (struct at){node, out_slot}; /* port 0: the switch itself */
            return true;
        }
        uint32_t peer = m->fabric.ports[out_slot].peer;
        if (peer == CS_NONE || !lid_link_valid(m, peer))
            return false;
        port = peer;
        node = m->fabric.ports[peer].node;
        if (m->unresponsive[node])
            return false;
    }
    return false;
}

/* ---- Performance management agents ---- */

struct cs_sma_model_pma *cs_sma_model_pma(struct cs_sma_model *m, uint32_t port)
{
    return port < m->fabric.num_port_slots ? &m->ports[port].pma : NULL;
}

int cs_sma_model_set_pma_extended(struct cs_sma_model *m, uint32_t node, bool supported,
                                  struct cs_error *err)
{
    if (node >= m->fabric.num_nodes)
        return cs_fail(err, "set_pma_extended: no node index %u", node);
    m->no_pma_ext[node] = !supported;
    return 0;
}

/* The status a node's PMA answers a request with, and the attribute it fills in reply. */
static uint16_t answer_pma(struct cs_sma_model *m, uint32_t node, const struct cs_mad_header *h,
                           uint8_t port_select, uint8_t reply[CS_SMP_SIZE])
{
    if (h->method != CS_SMP_METHOD_GET)
        return 0x08; /* the model's agents take Gets only (no counter clearing) */
    if (h->attr_id != CS_PMA_ATTR_PORT_COUNTERS && h->attr_id != CS_PMA_ATTR_PORT_COUNTERS_EXT)
        return 0x0c;
    if (h->attr_id == CS_PMA_ATTR_PORT_COUNTERS_EXT && m->no_pma_ext[node])
        return 0x0c;
    uint32_t slot = cs_fabric_port(&m->fabric, node, port_select);
    if (port_select == 0 || slot == CS_NONE)
        return 0x1c;
    struct cs_sma_model_pma *c = &m->ports[slot].pma;
    if (h->attr_id == CS_PMA_ATTR_PORT_COUNTERS) {
        struct cs_pma_port_counters pc = c->counters;
        pc.port_select = port_select;
        cs_pma_encode_port_counters(&pc, reply);
    } else {
        struct cs_pma_port_counters_ext pe = c->extended;
        pe.port_select = port_select;
        cs_pma_encode_port_counters_ext(&pe, reply);
    }
    return 0;
}

/* A GMP's reply from dest (the port that had dlid) back to the SM's port, LID-routed as the
 * request came: 1 when it arrives, 0 when the fabric loses it. */
static int reply_to_sm(struct cs_sma_model *m, struct at dest, uint16_t dlid, uint16_t *reply_slid)
{
    struct at back;
    if (!lid_route(m, dest.port, m->ports[m->sm_port].info.lid, &back) || back.node != m->sm_node) {
        m->stats.lost++;
        return 0;
    }
    if (drop_now(m))
        return 0;
    *reply_slid = dlid;
    m->stats.answered++;
    return 1;
}

/* A PerfMgt request, LID-routed to the PMA of the node that has dlid, and its reply routed back
 * to the SM port the same way an SMP's is. */
static int process_pma(struct cs_sma_model *m, const uint8_t request[CS_SMP_SIZE], uint16_t dlid,
                       uint8_t reply[CS_SMP_SIZE], uint16_t *reply_slid)
{
    struct cs_mad_header h;
    cs_mad_header_decode(request, &h);
    m->stats.requests++;
    m->stats.pma_requests++;
    if (h.base_version != CS_SMP_BASE_VERSION || h.class_version != CS_PMA_CLASS_VERSION ||
        (h.method & 0x80) || dlid == CS_SMP_PERMISSIVE_LID) {
        m->stats.rejected++;
        return 0;
    }
    struct at dest;
    if (!lid_route(m, m->sm_port, dlid, &dest)) {
        m->stats.lost++;
        return 0;
    }
    if (drop_now(m))
        return 0;
    memset(reply, 0, CS_SMP_SIZE);
    h.status = answer_pma(m, dest.node, &h, request[CS_PMA_DATA_OFFSET + 1], reply);
    h.method = CS_SMP_METHOD_GET_RESP;
    cs_mad_header_encode(&h, reply);
    return reply_to_sm(m, dest, dlid, reply_slid);
}

/* An SA Report (SubnAdmReport, method 0x06) to the port that has dlid: its SA client takes it
 * and acknowledges it with ReportResp, the same MAD with the response method (unless silent). */
static int process_report(struct cs_sma_model *m, const uint8_t request[CS_SMP_SIZE], uint16_t dlid,
                          uint8_t reply[CS_SMP_SIZE], uint16_t *reply_slid)
{
    struct cs_mad_header h;
    cs_mad_header_decode(request, &h);
    m->stats.requests++;
    struct at dest;
    if (h.method != CS_SA_METHOD_REPORT || dlid == CS_SMP_PERMISSIVE_LID ||
        !lid_route(m, m->sm_port, dlid, &dest)) {
        m->stats.lost++;
        return 0;
    }
    if (drop_now(m))
        return 0;
    struct model_port *port = &m->ports[dest.port];
    port->reports++;
    memcpy(port->last_report, request + CS_SA_HEADER_SIZE, sizeof port->last_report);
    if (port->reports_unanswered)
        return 0;
    memcpy(reply, request, CS_SMP_SIZE);
    h.method = CS_SA_METHOD_RESPONSE | CS_SA_METHOD_REPORT;
    cs_mad_header_encode(&h, reply);
    return reply_to_sm(m, dest, dlid, reply_slid);
}

unsigned cs_sma_model_reports(const struct cs_sma_model *m, uint32_t port, uint8_t *last)
{
    if (port >= m->fabric.num_port_slots)
        return 0;
    if (last)
        memcpy(last, m->ports[port].last_report, sizeof m->ports[port].last_report);
    return m->ports[port].reports;
}

void cs_sma_model_set_report_silent(struct cs_sma_model *m, uint32_t port, bool silent)
{
    if (port < m->fabric.num_port_slots)
        m->ports[port].reports_unanswered = silent;
}

/* ---- One request ---- */

static bool request_acceptable(const struct cs_smp *req, uint16_t dlid)
{
    if (req->base_version != CS_SMP_BASE_VERSION || req->class_version != CS_SMP_CLASS_VERSION)
        return false;
    if (req->method & 0x80 || req->method == CS_SMP_METHOD_TRAP_REPRESS)
        return false; /* responses and trap represses are not for an SMA */
    if (req->mgmt_class == CS_SMP_CLASS_DIRECTED_ROUTE)
        /* ibsim supports only purely directed routes, sent from hop 0 */
        return dlid == CS_SMP_PERMISSIVE_LID && req->hop_pointer == 0 &&
               !(req->status & CS_SMP_STATUS_DIRECTION) && req->dr_slid == CS_SMP_PERMISSIVE_LID &&
               req->dr_dlid == CS_SMP_PERMISSIVE_LID && req->hop_count <= CS_SMP_MAX_HOPS;
    return req->mgmt_class == CS_SMP_CLASS_LID_ROUTED && dlid != CS_SMP_PERMISSIVE_LID;
}

static int process(struct cs_sma_model *m, const uint8_t request[CS_SMP_SIZE], uint16_t dlid,
                   uint8_t reply[CS_SMP_SIZE], uint16_t *reply_slid, struct cs_error *err)
{
    if (request[1] == CS_PMA_CLASS)
        return process_pma(m, request, dlid, reply, reply_slid);
    if (request[1] == CS_SA_CLASS)
        return process_report(m, request, dlid, reply, reply_slid);
    struct cs_smp smp;
    cs_smp_decode(request, &smp);
    m->stats.requests++;
    m->counts[method_slot(smp.method)][attr_slot(smp.attr_id)]++;
    if (!request_acceptable(&smp, dlid)) {
        m->stats.rejected++;
        return 0;
    }

    bool directed = smp.mgmt_class == CS_SMP_CLASS_DIRECTED_ROUTE;
    struct dr_walk walk = {0};
    struct at dest;
    if (directed) {
        if (!walk_out(m, &smp, &walk)) {
            m->stats.lost++;
            return 0;
        }
        dest = walk.dest;
    } else if (!lid_route(m, m->sm_port, dlid, &dest)) {
        m->stats.lost++;
        return 0;
    }
    if (drop_now(m))
        return 0;

    int failed = 0;
    uint16_t status = answer(m, dest, &smp, smp.data, err, &failed);
    if (failed < 0)
        return -1;

    smp.method = CS_SMP_METHOD_GET_RESP;
    if (directed) {
        smp.status = (uint16_t)(status | CS_SMP_STATUS_DIRECTION);
        if (!walk_back(m, &walk)) {
            m->stats.lost++;
            return 0;
        }
        *reply_slid = CS_SMP_PERMISSIVE_LID;
    } else {
        smp.status = status;
        struct at back;
        uint16_t sm_lid = m->ports[m->sm_port].info.lid;
        if (!lid_route(m, dest.port, sm_lid, &back) || back.node != m->sm_node) {
            m->stats.lost++;
            return 0;
        }
        *reply_slid = dlid; /* ibsim swaps the LIDs: the reply comes from the LID addressed */
    }
    if (drop_now(m))
        return 0;
    cs_smp_encode(&smp, reply);
    m->stats.answered++;
    return 1;
}

int cs_sma_model_process(struct cs_sma_model *m, const uint8_t request[CS_SMP_SIZE], uint16_t dlid,
                         uint8_t reply[CS_SMP_SIZE], uint16_t *reply_slid)
{
    struct cs_error ignored;
    return process(m, request, dlid, reply, reply_slid, &ignored) == 1;
}

/* ---- Transport ---- */

static int model_send(void *ctx, const uint8_t mad[CS_SMP_SIZE], uint16_t dlid,
                      struct cs_error *err)
{
    struct cs_sma_model *m = ctx;
    if (m->queue_head == m->queue_count)
        m->queue_head = m->queue_count = 0; /* drained: start over at the front */
    if (cs_grow((void **)&m->queue, &m->queue_capacity, (uint64_t)m->queue_count + 1,
                sizeof *m->queue, err) < 0)
        return -1;
    struct queued_reply *q = &m->queue[m->queue_count];
    int got = process(m, mad, dlid, q->mad, &q->slid, err);
    if (got < 0)
        return -1;
    if (got == 1)
        m->queue_count++;
    return 0;
}

static int model_recv(void *ctx, uint8_t mad[CS_SMP_SIZE], uint16_t *slid, int timeout_ms,
                      struct cs_error *err)
{
    (void)err;
    struct cs_sma_model *m = ctx;
    if (m->queue_head == m->queue_count) {
        /* Every answer is delivered: waiting now means waiting out the whole timeout. */
        m->clock_us += (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000u;
        return 0;
    }
    if (m->shuffle) {
        uint32_t pick =
            m->queue_head + cs_rng_below(&m->shuffle_rng, m->queue_count - m->queue_head);
        struct queued_reply tmp = m->queue[pick];
        m->queue[pick] = m->queue[m->queue_head];
        m->queue[m->queue_head] = tmp;
    }
    const struct queued_reply *q = &m->queue[m->queue_head++];
    memcpy(mad, q->mad, CS_SMP_SIZE);
    *slid = q->slid;
    return 1;
}

void cs_sma_model_advance_clock(struct cs_sma_model *m, uint64_t us)
{
    m->clock_us += us;
}

static uint64_t model_now_us(void *ctx)
{
    const struct cs_sma_model *m = ctx;
    return m->clock_us;
}

struct cs_smp_transport cs_sma_model_transport(struct cs_sma_model *m)
{
    return (struct cs_smp_transport){
        .ctx = m, .send = model_send, .recv = model_recv, .now_us = model_now_us};
}
