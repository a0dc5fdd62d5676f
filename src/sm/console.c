/* The operator's reports over a sweep: portstatus, querylid, lidbalance
 * (include/cloudsm/sm_console.h). */
#include "cloudsm/sm_console.h"

#include <stdlib.h>
#include <string.h>

#include "cloudsm/smp.h"
#include "core/grow.h"

/* PortInfo:CapabilityMask bit 14, IsExtendedSpeedsSupported (IBA 14.2.5.6). */
#define CAP_HAS_EXT_SPEEDS (1u << 14)
/* LinkSpeedExtEnabled 30: extended speeds disabled (IBA 14.2.5.6). */
#define EXT_SPEEDS_DISABLED 30

const uint8_t cs_port_width_lanes[CS_PORT_WIDTHS] = {1, 2, 4, 8, 12};

static const char *const issue_names[CS_PORT_ISSUE_COUNT] = {
    [CS_PORT_DISABLED] = "disabled",
    [CS_PORT_UNENABLED_WIDTH] = "with unenabled width",
    [CS_PORT_REDUCED_WIDTH] = "with reduced width",
    [CS_PORT_UNKNOWN_WIDTH] = "with unknown width",
    [CS_PORT_UNENABLED_SPEED] = "with unenabled speed",
    [CS_PORT_REDUCED_SPEED] = "with reduced speed",
    [CS_PORT_UNKNOWN_SPEED] = "with unknown speed",
};

const char *cs_port_issue_name(enum cs_port_issue issue)
{
    return (unsigned)issue < CS_PORT_ISSUE_COUNT ? issue_names[issue] : "?";
}

const char *cs_port_state_name(uint8_t state)
{
    static const char *const names[] = {"NOP", "DOWN", "INIT", "ARMED", "ACTIVE"};
    return state < sizeof names / sizeof names[0] ? names[state] : "?";
}

const char *cs_port_phys_state_name(uint8_t phys)
{
    static const char *const names[] = {
        "NoStateChange",     "Sleep",  "Polling", "Disabled", "PortConfigurationTraining", "LinkUp",
        "LinkErrorRecovery", "PhyTest"};
    return phys < sizeof names / sizeof names[0] ? names[phys] : "?";
}

static int note_issue(struct cs_port_status *st, enum cs_port_issue issue, uint32_t node,
                      uint8_t port, struct cs_error *err)
{
    if (cs_grow((void **)&st->list, &st->capacity, (uint64_t)st->count + 1, sizeof *st->list, err) <
        0)
        return -1;
    st->list[st->count++] = (struct cs_port_issue_entry){(uint8_t)issue, port, node};
    st->issues[issue]++;
    return 0;
}

/* A rate below what is enabled: the active bit is none of the enabled ones (unenabled), or an
 * enabled bit above it is set (reduced). The IBA's rate fields are bit masks, lowest rate in
 * bit 0, so "above" is a plain comparison. 0: fine. */
static int rate_issue(uint8_t active, uint8_t enabled, enum cs_port_issue unenabled)
{
    if (!(active & enabled))
        return (int)unenabled;
    if ((uint8_t)(enabled ^ active) > active)
        return (int)unenabled + 1; /* the REDUCED_ that follows each UNENABLED_ */
    return -1;
}

/* One port not down: its width, its speed and what is wrong with them. cap is the capability
 * mask that says whether extended speeds exist (a switch's port 0, else the port's own). */
static int count_rates(struct cs_port_status *st, const struct cs_smp_port_info *pi, uint32_t cap,
                       uint32_t node, uint8_t port, struct cs_error *err)
{
    int issue = rate_issue(pi->link_width_active, pi->link_width_enabled, CS_PORT_UNENABLED_WIDTH);
    if (issue >= 0 && note_issue(st, (enum cs_port_issue)issue, node, port, err) < 0)
        return -1;
    uint8_t lanes = cs_smp_width_from_active(pi->link_width_active);
    bool width_known = false;
    for (unsigned w = 0; w < CS_PORT_WIDTHS; w++)
        if (lanes && cs_port_width_lanes[w] == lanes) {
            st->by_width[w]++;
            width_known = true;
        }
    if (!width_known && note_issue(st, CS_PORT_UNKNOWN_WIDTH, node, port, err) < 0)
        return -1;

    issue = rate_issue(pi->link_speed_active, pi->link_speed_enabled, CS_PORT_UNENABLED_SPEED);
    bool ext = (cap & CAP_HAS_EXT_SPEEDS) && pi->link_speed_ext_supported &&
               pi->link_speed_ext_enabled != EXT_SPEEDS_DISABLED && pi->link_speed_active == 4;
    if (ext && pi->link_speed_ext_active) /* running an extended speed: judge that one */
        issue = rate_issue(pi->link_speed_ext_active, pi->link_speed_ext_enabled,
                           CS_PORT_UNENABLED_SPEED);
    if (issue >= 0 && note_issue(st, (enum cs_port_issue)issue, node, port, err) < 0)
        return -1;
    enum cs_link_speed speed = cs_smp_speed_from_active(
        pi->link_speed_active, (cap & CAP_HAS_EXT_SPEEDS) ? pi->link_speed_ext_active : 0);
    if (speed == CS_SPEED_UNKNOWN || speed > CS_SPEED_XDR)
        return note_issue(st, CS_PORT_UNKNOWN_SPEED, node, port, err);
    st->by_speed[speed]++;
    return 0;
}

int cs_port_status(const struct cs_sm_sweep *s, uint8_t node_type, struct cs_port_status *out,
                   struct cs_error *err)
{
    memset(out, 0, sizeof *out);
    out->node_type = node_type;
    const struct cs_fabric *f = &s->fabric;
    for (uint32_t n = 0; n < f->num_nodes; n++) {
        const struct cs_node *node = &f->nodes[n];
        if (node_type && node->type != node_type)
            continue;
        out->nodes++;
        const struct cs_smp_port_info *pi0 = NULL;
        if (node->type == CS_NODE_SWITCH && s->port_info_valid[node->first_port])
            pi0 = &s->port_info[node->first_port];
        for (unsigned num = 1; num <= node->num_ports; num++) {
            uint32_t p = node->first_port + num;
            if (!s->port_info_valid[p])
                continue; /* a CA port the sweep did not arrive on: unknown, as in OpenSM */
            const struct cs_smp_port_info *pi = &s->port_info[p];
            out->ports++;
            if (pi->port_state < sizeof out->by_state / sizeof out->by_state[0])
                out->by_state[pi->port_state]++;
            if (pi->port_physical_state == 3 &&
                note_issue(out, CS_PORT_DISABLED, n, (uint8_t)num, err) < 0)
                goto fail;
            if (pi->port_state == CS_SMP_PORT_STATE_DOWN)
                continue;
            uint32_t cap = (pi0 ? pi0 : pi)->capability_mask;
            if (count_rates(out, pi, cap, n, (uint8_t)num, err) < 0)
                goto fail;
        }
    }
    return 0;
fail:
    cs_port_status_free(out);
    return -1;
}

void cs_port_status_free(struct cs_port_status *st)
{
    free(st->list);
    st->list = NULL;
    st->count = st->capacity = 0;
}

uint32_t cs_sweep_port_by_lid(const struct cs_sm_sweep *s, uint16_t lid)
{
    const struct cs_fabric *f = &s->fabric;
    if (lid == 0)
        return CS_NONE;
    for (uint32_t n = 0; n < f->num_nodes; n++) {
        const struct cs_node *node = &f->nodes[n];
        unsigned first = node->type == CS_NODE_SWITCH ? 0 : 1,
                 last = node->type == CS_NODE_SWITCH ? 0 : node->num_ports;
        for (unsigned num = first; num <= last; num++) {
            const struct cs_port *p = &f->ports[node->first_port + num];
            uint32_t span = 1u << p->lmc;
            if (p->lid && lid >= p->lid && lid < p->lid + span)
                return node->first_port + num;
        }
    }
    return CS_NONE;
}

void cs_port_view(const struct cs_sm_sweep *s, uint32_t port, struct cs_port_view *out)
{
    memset(out, 0, sizeof *out);
    const struct cs_port *p = &s->fabric.ports[port];
    out->num = p->num;
    out->peer = p->peer;
    if (!s->port_info_valid[port])
        return;
    const struct cs_smp_port_info *pi = &s->port_info[port];
    out->known = true;
    out->state = pi->port_state;
    out->phys = pi->port_physical_state;
    if (pi->port_state != CS_SMP_PORT_STATE_DOWN) {
        out->width = cs_smp_width_from_active(pi->link_width_active);
        out->speed =
            (uint8_t)cs_smp_speed_from_active(pi->link_speed_active, pi->link_speed_ext_active);
    }
}

void cs_lid_balance(const struct cs_sm_sweep *s, const struct cs_lfts *lfts, uint32_t sw,
                    struct cs_lid_balance *out)
{
    const struct cs_fabric *f = &s->fabric;
    memset(out, 0, sizeof *out);
    uint32_t node = lfts->switches[sw].node;
    out->node = node;
    if (node >= f->num_nodes)
        return;
    const struct cs_node *swn = &f->nodes[node];
    out->num_ports = swn->num_ports;
    for (unsigned num = 1; num <= swn->num_ports; num++) {
        uint32_t p = swn->first_port + num;
        uint32_t peer = f->ports[p].peer;
        struct cs_lid_balance_port *bp = &out->ports[num - 1];
        bp->port = (uint8_t)num;
        /* As OpenSM: a healthy link to a switch is up for balancing; one to a CA is not. */
        bp->to_switch = peer != CS_NONE && f->nodes[f->ports[peer].node].type == CS_NODE_SWITCH &&
                        s->port_info_valid[p] &&
                        s->port_info[p].port_state == CS_SMP_PORT_STATE_ACTIVE;
    }
    /* Every LID of every CA and router port: switches' own LIDs do not count. */
    for (uint32_t n = 0; n < f->num_nodes; n++) {
        const struct cs_node *end = &f->nodes[n];
        if (end->type == CS_NODE_SWITCH)
            continue;
        for (unsigned num = 1; num <= end->num_ports; num++) {
            const struct cs_port *p = &f->ports[end->first_port + num];
            for (uint32_t lid = p->lid; p->lid && lid < p->lid + (1u << p->lmc); lid++) {
                if (lid > lfts->max_lid)
                    break;
                uint8_t out_port = cs_lfts_get(lfts, sw, lid);
                if (out_port >= 1 && out_port <= swn->num_ports)
                    out->ports[out_port - 1].lids++;
            }
        }
    }
    bool any = false;
    for (unsigned i = 0; i < out->num_ports; i++) {
        const struct cs_lid_balance_port *bp = &out->ports[i];
        if (!bp->to_switch)
            continue;
        if (!any || bp->lids < out->min)
            out->min = bp->lids;
        if (!any || bp->lids > out->max)
            out->max = bp->lids;
        any = true;
    }
    out->unbalanced = out->max - out->min > 1;
}
