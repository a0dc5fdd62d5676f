/* MCMemberRecords in the SA (include/cloudsm/mcast.h, sa.h): the record's codec, joins (Set),
 * leaves (Delete) and queries (Get, GetTable), by OpenSM 3.3.23's rules
 * (osm_sa_mcmember_record.c, osm_multicast.c; facts only, the code is ours). docs/sm/sa.md
 * "Multicast groups" lists them.
 */
#include <string.h>

#include "cloudsm/informs.h"
#include "cloudsm/mft.h"
#include "sa/sa_internal.h"

void cs_sa_mcmember_record_encode(const struct cs_mcmember_record *in,
                                  uint8_t out[CS_SA_MCMEMBER_RECORD_SIZE])
{
    memset(out, 0, CS_SA_MCMEMBER_RECORD_SIZE);
    memcpy(out, in->mgid, 16);
    memcpy(out + 16, in->port_gid, 16);
    cs_bits_set(out, 256, 32, in->qkey);
    cs_bits_set(out, 288, 16, in->mlid);
    out[38] = in->mtu;
    out[39] = in->tclass;
    cs_bits_set(out, 320, 16, in->pkey);
    out[42] = in->rate;
    out[43] = in->packet_life;
    cs_bits_set(out, 352, 4, in->sl);
    cs_bits_set(out, 356, 20, in->flow_label);
    out[47] = in->hop_limit;
    out[48] = in->scope_state;
    cs_bits_set(out, 392, 1, in->proxy_join);
}

void cs_sa_mcmember_record_decode(const uint8_t in[CS_SA_MCMEMBER_RECORD_SIZE],
                                  struct cs_mcmember_record *out)
{
    memcpy(out->mgid, in, 16);
    memcpy(out->port_gid, in + 16, 16);
    out->qkey = (uint32_t)cs_bits_get(in, 256, 32);
    out->mlid = (uint16_t)cs_bits_get(in, 288, 16);
    out->mtu = in[38];
    out->tclass = in[39];
    out->pkey = (uint16_t)cs_bits_get(in, 320, 16);
    out->rate = in[42];
    out->packet_life = in[43];
    out->sl = (uint8_t)cs_bits_get(in, 352, 4);
    out->flow_label = (uint32_t)cs_bits_get(in, 356, 20);
    out->hop_limit = in[47];
    out->scope_state = in[48];
    out->proxy_join = (uint8_t)cs_bits_get(in, 392, 1);
}

static uint64_t gid_guid(const uint8_t gid[16])
{
    return cs_bits_get(gid, 64, 64);
}

/* Every reply carries the selectors of MTU, rate and packet lifetime as 2 (exactly). */
static void exactly(struct cs_mcmember_record *r)
{
    r->mtu = (uint8_t)((r->mtu & 0x3f) | (CS_SA_SELECTOR_EXACTLY << 6));
    r->rate = (uint8_t)((r->rate & 0x3f) | (CS_SA_SELECTOR_EXACTLY << 6));
    r->packet_life = (uint8_t)((r->packet_life & 0x3f) | (CS_SA_SELECTOR_EXACTLY << 6));
}

/* A value under a selector: 0 greater than, 1 less than, 2 exactly, 3 anything. */
static bool selected(uint8_t selector, uint8_t want, uint8_t have)
{
    switch (selector) {
    case CS_SA_SELECTOR_GREATER:
        return have > want;
    case CS_SA_SELECTOR_LESS:
        return have < want;
    case CS_SA_SELECTOR_EXACTLY:
        return have == want;
    default:
        return true;
    }
}

/* OpenSM's validate_more_comp_fields: the request's MTU and rate selectors hold for the group
 * (a selector counts when its bit is in the mask; the packet lifetime is not checked). */
static bool selectors_hold(const struct cs_mcast_group *group, const struct cs_mcmember_record *r,
                           uint64_t mask)
{
    if ((mask & CS_SA_MCR_MTU_SELECTOR) &&
        !selected(r->mtu >> 6, r->mtu & 0x3f, group->rec.mtu & 0x3f))
        return false;
    return !(mask & CS_SA_MCR_RATE_SELECTOR) ||
           selected(r->rate >> 6, r->rate & 0x3f, group->rec.rate & 0x3f);
}

/* ---- Queries ---- */

void sa_mcmember_records(const struct cs_sa_db *db, uint32_t requester, bool trusted, uint64_t mask,
                         const uint8_t *request, struct sa_emit *e)
{
    const struct cs_mcast_groups *g = db->opt.mcast;
    struct cs_mcmember_record q;
    cs_sa_mcmember_record_decode(request, &q);
    uint8_t state_mask = (uint8_t)(((mask & CS_SA_MCR_SCOPE) ? 0xf0 : 0) |
                                   ((mask & CS_SA_MCR_JOIN_STATE) ? 0x0f : 0));
    uint8_t out[CS_SA_MCMEMBER_RECORD_SIZE];
    for (uint32_t i = 0; i < cs_mcast_groups_count(g) && !sa_emit_done(e); i++) {
        const struct cs_mcast_group *group = cs_mcast_groups_at(g, i);
        const struct cs_mcmember_record *gr = &group->rec;
        if (((mask & CS_SA_MCR_MGID) && memcmp(q.mgid, gr->mgid, 16) != 0) ||
            ((mask & CS_SA_MCR_MLID) && q.mlid != gr->mlid))
            continue;
        /* A requester sees only the groups of its partitions. */
        if (requester != CS_NONE && !sa_port_has_pkey(db, requester, gr->pkey))
            continue;
        if (((mask & CS_SA_MCR_QKEY) && q.qkey != gr->qkey) ||
            ((mask & CS_SA_MCR_PKEY) && q.pkey != gr->pkey) ||
            ((mask & CS_SA_MCR_TCLASS) && q.tclass != gr->tclass) ||
            ((mask & CS_SA_MCR_SL) && q.sl != gr->sl) ||
            ((mask & CS_SA_MCR_FLOW_LABEL) && q.flow_label != gr->flow_label) ||
            ((mask & CS_SA_MCR_HOP_LIMIT) && q.hop_limit != gr->hop_limit) ||
            ((mask & CS_SA_MCR_PROXY_JOIN) && q.proxy_join != gr->proxy_join) ||
            !selectors_hold(group, &q, mask))
            continue;
        struct cs_mcmember_record r = *gr;
        if (trusted && !(mask & CS_SA_MCR_PORT_GID)) {
            /* A trusted requester gets every member that matches. */
            for (uint32_t k = 0; k < group->num_members && !sa_emit_done(e); k++) {
                const struct cs_mcast_member *m = &group->members[k];
                if ((state_mask & q.scope_state) != (state_mask & m->scope_state))
                    continue;
                r.scope_state = m->scope_state;
                memcpy(r.port_gid, m->port_gid, 16);
                r.proxy_join = m->proxy;
                cs_sa_mcmember_record_encode(&r, out);
                sa_emit(e, out);
            }
            continue;
        }
        if (mask & CS_SA_MCR_PORT_GID) {
            const struct cs_mcast_member *m = cs_mcast_group_member(group, gid_guid(q.port_gid));
            if (m == NULL)
                continue;
            r.scope_state = m->scope_state;
            memcpy(r.port_gid, m->port_gid, 16);
            r.proxy_join = m->proxy;
        }
        if ((state_mask & q.scope_state) != (state_mask & r.scope_state))
            continue;
        if (!trusted) { /* IBA p923: PortGID, JoinState and ProxyJoin are zero */
            memset(r.port_gid, 0, 16);
            r.scope_state &= 0xf0;
            r.proxy_join = 0;
        }
        cs_sa_mcmember_record_encode(&r, out);
        sa_emit(e, out);
    }
}

/* ---- MulticastForwardingTableRecords ---- */

/* OpenSM's osm_mftr_rcv: switches in its order that the requester shares a P_Key with and that
 * do multicast, every block up to the last in use times every position (or the ones the mask
 * names). */
void sa_mft_records(const struct cs_sa_db *db, uint32_t requester, uint64_t mask,
                    const uint8_t *request, struct sa_emit *e)
{
    const struct cs_mfts *t = db->opt.mfts;
    const struct cs_fabric *f = db->fabric;
    uint16_t lid = (uint16_t)cs_bits_get(request, 0, 16);
    unsigned want_position = (unsigned)cs_bits_get(request, 16, 4);
    uint32_t want_block = (uint32_t)cs_bits_get(request, 23, 9);
    for (uint32_t i = 0; i < f->num_nodes && !sa_emit_done(e); i++) {
        uint32_t node = db->node_order[i];
        uint32_t port0 = f->nodes[node].first_port;
        uint32_t sw = cs_mfts_switch(t, node);
        if (!cs_node_is_switch(&f->nodes[node]) || sw == CS_NONE ||
            (requester != CS_NONE && !sa_share_pkey(db, requester, port0)))
            continue;
        if ((mask & CS_SA_MFTR_LID) &&
            !sa_lid_in_range(lid, sa_port_base_lid(db, port0), sa_port_lmc(db, port0)))
            continue;
        int32_t last = t->switches[sw].last_block_used;
        if (db->sweep->switch_info[node].multicast_fdb_cap == 0 || last < 0)
            continue;
        uint32_t first_block = 0, last_block = (uint32_t)last;
        if (mask & CS_SA_MFTR_BLOCK) {
            if (want_block > last_block)
                continue;
            first_block = last_block = want_block;
        }
        unsigned first_position = 0, last_position = t->switches[sw].positions - 1u;
        if (mask & CS_SA_MFTR_POSITION) {
            if (want_position > last_position)
                continue;
            first_position = last_position = want_position;
        }
        for (uint32_t b = first_block; b <= last_block && !sa_emit_done(e); b++)
            for (unsigned pos = first_position; pos <= last_position && !sa_emit_done(e); pos++) {
                uint8_t out[CS_SA_MFT_RECORD_SIZE] = {0};
                cs_bits_set(out, 0, 16, sa_port_base_lid(db, port0));
                cs_bits_set(out, 16, 4, pos);
                cs_bits_set(out, 23, 9, b);
                uint16_t masks[CS_MFT_BLOCK];
                cs_mfts_get_block(t, sw, b, pos, masks);
                for (unsigned k = 0; k < CS_MFT_BLOCK; k++)
                    cs_bits_set(out, 64 + 16 * k, 16, masks[k]);
                sa_emit(e, out);
            }
    }
}

/* ---- Join and leave ---- */

#define JOIN_MASK (CS_SA_MCR_MGID | CS_SA_MCR_PORT_GID | CS_SA_MCR_JOIN_STATE)
#define CREATE_MASK                                                                                \
    (JOIN_MASK | CS_SA_MCR_QKEY | CS_SA_MCR_TCLASS | CS_SA_MCR_PKEY | CS_SA_MCR_FLOW_LABEL |       \
     CS_SA_MCR_SL)

/* OpenSM's mgrp_request_is_realizable for a creator on port: the MTU and rate the group gets
 * (the port's when the request names none or asks for the largest), or false. */
static bool realizable(const struct cs_sa_db *db, uint32_t port, uint64_t mask,
                       struct cs_mcmember_record *r)
{
    uint8_t port_value[2] = {db->mtu_cap[port], db->rate[port]};
    uint8_t *field[2] = {&r->mtu, &r->rate};
    const uint64_t value_bit[2] = {CS_SA_MCR_MTU, CS_SA_MCR_RATE};
    const uint64_t selector_bit[2] = {CS_SA_MCR_MTU_SELECTOR, CS_SA_MCR_RATE_SELECTOR};
    const uint8_t lowest[2] = {1, 2}, highest[2] = {5, 22};
    const uint8_t fallback[2] = {CS_MCAST_DEFAULT_MTU, CS_MCAST_DEFAULT_RATE};
    for (int i = 0; i < 2; i++) {
        uint8_t selector = CS_SA_SELECTOR_EXACTLY, have = port_value[i], value;
        if (!(mask & value_bit[i]) || !(mask & selector_bit[i]) ||
            (selector = *field[i] >> 6) == CS_SA_SELECTOR_BEST) {
            value = have ? have : fallback[i];
        } else {
            uint8_t want = *field[i] & 0x3f;
            value = want;
            if (selector == CS_SA_SELECTOR_GREATER) {
                if (have && want >= have)
                    return false;
                value = have ? have : (uint8_t)(want + 1);
            } else if (selector == CS_SA_SELECTOR_LESS) {
                value = have && want > have ? have : (uint8_t)(want - 1);
            }
            if (value < lowest[i] || value > highest[i])
                return false;
        }
        *field[i] = (uint8_t)(selector << 6 | value);
    }
    return true;
}

/* The requester's port GID as the SA sees it: the subnet prefix and its port GUID. */
static bool requester_is(const struct cs_sa_db *db, uint32_t requester, const uint8_t gid[16])
{
    return cs_bits_get(gid, 0, 64) == db->opt.subnet_prefix &&
           gid_guid(gid) == db->fabric->ports[requester].guid;
}

/* o15-0.2.1 (OpenSM's validate_modify): a membership someone joined for itself changes only at
 * its own request; one a proxy joined, at the request of a port of the group's partition. */
static bool may_modify(const struct cs_sa_db *db, uint32_t requester,
                       const struct cs_mcast_group *group, const struct cs_mcast_member *m)
{
    if (m == NULL || requester == CS_NONE)
        return true;
    return m->proxy ? sa_port_has_pkey(db, requester, group->rec.pkey)
                    : requester_is(db, requester, m->port_gid);
}

/* Traps 66 and 67 (OpenSM's mgrp_send_notice): a group got its first full member, or lost its
 * last. Out of memory the Report is lost; the join or leave stands. */
static void report_group(const struct cs_sa_db *db, uint16_t trap, const uint8_t mgid[16],
                         uint16_t pkey)
{
    struct cs_error err;
    (void)sa_report_group_trap(db, trap, mgid, pkey, &err);
}

static uint16_t leave(const struct cs_sa_db *db, uint32_t requester, struct cs_mcmember_record *r)
{
    struct cs_mcast_groups *g = db->opt.mcast;
    struct cs_mcast_group *group = cs_mcast_groups_find(g, r->mgid);
    if (group == NULL)
        return CS_SA_STATUS_REQ_INVALID;
    struct cs_mcast_member *m = cs_mcast_group_member(group, gid_guid(r->port_gid));
    uint8_t asked = r->scope_state & 0x0f;
    /* o15-0.1.14: a member, some of its bits, none it lacks, and the right requester. */
    if (m == NULL || !(asked & m->scope_state) ||
        (asked | (m->scope_state & 0x0f)) != (m->scope_state & 0x0f) ||
        !may_modify(db, requester, group, m))
        return CS_SA_STATUS_REQ_INVALID;
    bool deleted;
    uint32_t full_before = group->full_members;
    uint8_t mgid[16];
    memcpy(mgid, group->rec.mgid, 16);
    uint16_t pkey = group->rec.pkey;
    r->scope_state = cs_mcast_group_leave(g, group, m, asked, &deleted);
    if (full_before > 0 && (deleted || group->full_members == 0))
        report_group(db, CS_TRAP_MGID_DESTROYED, mgid, pkey);
    exactly(r);
    return 0;
}

static uint16_t join(const struct cs_sa_db *db, uint32_t requester, uint64_t mask,
                     struct cs_mcmember_record *r)
{
    struct cs_mcast_groups *g = db->opt.mcast;
    uint32_t port = sa_guid_port(db, gid_guid(r->port_gid));
    if (port == CS_NONE)
        return CS_SA_STATUS_REQ_INVALID;
    uint32_t from = requester == CS_NONE ? port : requester;
    bool proxy = from != port;
    if (proxy && !sa_share_pkey(db, port, from))
        return CS_SA_STATUS_REQ_INVALID;
    uint8_t join_state = r->scope_state & 0x0f;
    struct cs_mcast_group *group = cs_mcast_groups_find(g, r->mgid);
    bool created = false;
    if (group == NULL) {
        if (!(join_state & CS_MCAST_JOIN_ANY_FULL))
            return CS_SA_STATUS_REQ_INVALID; /* o15-0.1.9: only a full member creates */
        if ((mask & CREATE_MASK) != CREATE_MASK)
            return CS_SA_STATUS_INSUFFICIENT_COMPONENTS;
        struct cs_mcmember_record want = *r;
        static const uint8_t zero[16];
        if (memcmp(want.mgid, zero, 16) == 0) {
            uint8_t scope = (mask & CS_SA_MCR_SCOPE) ? (uint8_t)(want.scope_state >> 4)
                                                     : CS_MCAST_SCOPE_LINK_LOCAL;
            if (!cs_mcast_groups_new_mgid(g, scope, db->opt.subnet_prefix, want.mgid))
                return CS_SA_STATUS_NO_RESOURCES;
        } else if (!cs_mcast_mgid_valid(want.mgid)) {
            return CS_SA_STATUS_REQ_INVALID;
        }
        if (!realizable(db, port, mask, &want))
            return CS_SA_STATUS_REQ_INVALID;
        uint16_t status;
        group = cs_mcast_groups_add(g, &want, &status);
        if (group == NULL)
            return status;
        created = true;
    }
    /* The port must be in the group's partition (OpenSM's ERR 1B14). */
    if (!sa_port_has_pkey(db, port, group->rec.pkey)) {
        cs_mcast_group_cleanup(g, group);
        return CS_SA_STATUS_REQ_INVALID;
    }
    /* o15-0.2.4: the other components match the group, the port can take its MTU and rate. */
    if (!selectors_hold(group, r, mask) || db->mtu_cap[port] < (group->rec.mtu & 0x3f) ||
        db->rate[port] < (group->rec.rate & 0x3f) || join_state == 0) {
        cs_mcast_group_cleanup(g, group);
        return CS_SA_STATUS_REQ_INVALID;
    }
    uint64_t guid = gid_guid(r->port_gid);
    if (!created && !may_modify(db, requester, group, cs_mcast_group_member(group, guid)))
        return CS_SA_STATUS_REQ_INVALID;
    const struct cs_mcmember_record *gr = &group->rec;
    memcpy(r->mgid, gr->mgid, 16);
    r->qkey = gr->qkey;
    r->mlid = gr->mlid;
    r->tclass = gr->tclass;
    r->pkey = gr->pkey;
    r->sl = gr->sl;
    r->flow_label = gr->flow_label;
    r->hop_limit = gr->hop_limit;
    r->mtu = gr->mtu;
    r->rate = gr->rate;
    r->packet_life = gr->packet_life;
    uint32_t full_before = group->full_members;
    int state = cs_mcast_group_join(g, group, guid, r->port_gid, r->scope_state, proxy);
    if (state < 0) {
        cs_mcast_group_cleanup(g, group);
        return CS_SA_STATUS_NO_RESOURCES;
    }
    if (full_before == 0 && group->full_members > 0)
        report_group(db, CS_TRAP_MGID_CREATED, group->rec.mgid, group->rec.pkey);
    r->scope_state = (uint8_t)state;
    exactly(r);
    return 0;
}

uint16_t sa_mcmember_change(const struct cs_sa_db *db, uint32_t requester,
                            const struct cs_sa_header *h, uint8_t *record, bool *silent)
{
    *silent = false;
    if ((h->component_mask & JOIN_MASK) != JOIN_MASK)
        return CS_SA_STATUS_INSUFFICIENT_COMPONENTS;
    struct cs_mcmember_record r;
    cs_sa_mcmember_record_decode(record, &r);
    uint16_t status = h->method == CS_SA_METHOD_DELETE ? leave(db, requester, &r)
                                                       : join(db, requester, h->component_mask, &r);
    if (status == 0)
        cs_sa_mcmember_record_encode(&r, record);
    return status;
}
