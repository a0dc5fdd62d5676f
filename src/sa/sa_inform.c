/* Event subscriptions and Reports (IBA 13.4.8.3, 13.4.9, 15.2.5.12; the store:
 * include/cloudsm/informs.h), with OpenSM 3.3.23's rules (docs/sm/sa.md "Event subscriptions"):
 *
 *   - Set(InformInfo) subscribes (Subscribe 1) or unsubscribes (0) the requester: its port GID
 *     is the SubscriberGID, Enum is 0, and its QPN replaces the one the InformInfo names. A
 *     subscription by GID needs that port to exist and share a partition with the requester; by
 *     LID range (LIDRangeBegin not 0xFFFF), every port in the range must (o13-14.1.1). The same
 *     subscription again replaces the old one. Refusals (Subscribe above 1, access, unsubscribing
 *     what is not there) answer REQ_INVALID with Subscribe 0 (o13-13.1.1); success answers the
 *     request's InformInfo as it came.
 *   - InformInfoRecords match SubscriberGID and Enum only, and show the requester the
 *     subscribers it shares a partition with.
 *   - A notice goes to the subscriptions whose filters it passes (GID, or else LID range;
 *     IsGeneric; Type, TrapNumber and ProducerType unless 0xFFFF...) and whose subscriber may see
 *     its source: for traps 66 and 67 the subscriber has the group's P_Key; for the others it
 *     shares a partition with the port the notice is about, and a LID-range subscription that
 *     does not is removed (o13-17.1.2).
 */
#include <string.h>

#include "cloudsm/informs.h"
#include "cloudsm/mcast.h"
#include "sa/sa_internal.h"

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

enum { II_SUBSCRIBE_OFFSET = 23 };

static bool gid_is_zero(const uint8_t gid[16])
{
    static const uint8_t zero[16];
    return memcmp(gid, zero, 16) == 0;
}

static uint32_t port_of_guid(const struct cs_sa_db *db, uint64_t guid)
{
    return cs_key_index_find(&db->end_port_by_guid, guid);
}

static uint32_t port_of_gid(const struct cs_sa_db *db, const uint8_t gid[16])
{
    return port_of_guid(db, cs_bits_get(gid, 64, 64));
}

/* o13-14.1.1 as OpenSM checks it (validate_ports_access_rights). */
static bool may_subscribe(const struct cs_sa_db *db, uint32_t requester,
                          const struct cs_inform_info *ii)
{
    if (!gid_is_zero(ii->gid)) {
        uint32_t port = port_of_gid(db, ii->gid);
        return port != CS_NONE && sa_share_pkey(db, port, requester);
    }
    if (ii->lid_range_begin == CS_INFORM_ALL_LIDS)
        return true;
    uint32_t limit = db->tracer.lid_limit; /* the highest LID + 1: OpenSM's LID table's size */
    uint32_t begin = ii->lid_range_begin, end = ii->lid_range_end;
    if (end == 0)
        end = begin;
    else if (end >= limit)
        end = limit - 1;
    if (begin >= limit)
        return false;
    for (uint32_t lid = begin; lid <= end; lid++) {
        uint32_t port = cs_tracer_owner(&db->tracer, lid);
        if (port != CS_NONE && !sa_share_pkey(db, port, requester))
            return false;
    }
    return true;
}

uint16_t sa_inform_info_set(const struct cs_sa_db *db, uint32_t requester,
                            const struct cs_sa_address *from, uint8_t *record)
{
    struct cs_informs *s = db->opt.informs;
    if (requester == CS_NONE)
        return CS_SA_STATUS_REQ_INVALID; /* a subscriber is a port Reports can reach */
    struct cs_subscription sub = {
        .subscriber_guid = db->fabric->ports[requester].guid,
        .to = *from,
    };
    cs_inform_info_decode(record, &sub.info);
    if (sub.info.subscribe > 1)
        return CS_SA_STATUS_REQ_INVALID;
    if (sub.info.subscribe)
        sub.info.qpn = from->qpn & 0xffffff;
    uint32_t i = cs_informs_find(s, &sub);
    if (sub.info.subscribe) {
        struct cs_error err;
        if (!may_subscribe(db, requester, &sub.info)) {
            record[II_SUBSCRIBE_OFFSET] = 0;
            return CS_SA_STATUS_REQ_INVALID;
        }
        if (i != UINT32_MAX) {
            cs_informs_replace(s, i, &sub);
        } else if (cs_informs_add(s, &sub, &err) < 0) {
            record[II_SUBSCRIBE_OFFSET] = 0;
            return CS_SA_STATUS_NO_RESOURCES;
        }
        return 0;
    }
    if (i == UINT32_MAX) {
        record[II_SUBSCRIBE_OFFSET] = 0;
        return CS_SA_STATUS_REQ_INVALID;
    }
    cs_informs_remove(s, i);
    return 0;
}

static const struct sa_component inform_record_components[] = {{0, 0, 128}, {1, 128, 16}};

void sa_inform_info_records(struct sa_query *q)
{
    const struct cs_informs *s = q->db->opt.informs;
    if (s == NULL)
        return;
    for (uint32_t i = 0; i < cs_informs_count(s) && !sa_emit_done(q->emit); i++) {
        const struct cs_subscription *sub = cs_informs_at(s, i);
        uint8_t encoded[CS_SA_INFORM_INFO_RECORD_SIZE] = {0};
        cs_bits_set(encoded, 0, 64, q->db->opt.subnet_prefix);
        cs_bits_set(encoded, 64, 64, sub->subscriber_guid);
        cs_bits_set(encoded, 128, 16, sub->subscriber_enum);
        cs_inform_info_encode(&sub->info, encoded + 24);
        if (!sa_components_match(inform_record_components, COUNT(inform_record_components), q->mask,
                                 q->record, encoded))
            continue;
        uint32_t subscriber = port_of_gid(q->db, encoded);
        if (subscriber == CS_NONE ||
            (q->requester != CS_NONE && !sa_share_pkey(q->db, q->requester, subscriber)))
            continue;
        sa_emit(q->emit, encoded);
    }
}

/* The filters of OpenSM's match_notice_to_inf_rec. */
static bool passes_filters(const struct cs_inform_info *ii, const struct cs_notice *n)
{
    if (!gid_is_zero(ii->gid)) {
        if (memcmp(ii->gid, n->issuer_gid, 16) != 0)
            return false;
    } else if (ii->lid_range_begin != CS_INFORM_ALL_LIDS &&
               (ii->lid_range_begin > n->issuer_lid || n->issuer_lid > ii->lid_range_end)) {
        return false;
    }
    if ((ii->is_generic != 0) != n->is_generic)
        return false;
    if (ii->type != CS_INFORM_ANY_16 && ii->type != n->type)
        return false;
    if (ii->trap_number != CS_INFORM_ANY_16 && ii->trap_number != n->trap_number)
        return false;
    return ii->producer_type == CS_INFORM_ANY_PRODUCER || ii->producer_type == n->producer_type;
}

static int report_notice(const struct cs_sa_db *db, const struct cs_notice *n, int32_t group_pkey,
                         struct cs_error *err)
{
    struct cs_informs *s = db->opt.informs;
    if (s == NULL)
        return 0;
    bool group_trap =
        n->trap_number == CS_TRAP_MGID_CREATED || n->trap_number == CS_TRAP_MGID_DESTROYED;
    const uint8_t *source_gid = cs_notice_source_gid(n);
    if (group_trap && group_pkey < 0 && db->opt.mcast != NULL) {
        const struct cs_mcast_group *g = cs_mcast_groups_find(db->opt.mcast, source_gid);
        if (g != NULL)
            group_pkey = g->rec.pkey;
    }
    uint32_t source = group_trap ? CS_NONE : port_of_gid(db, source_gid);
    int queued = 0;
    for (uint32_t i = 0; i < cs_informs_count(s);) {
        const struct cs_subscription *sub = cs_informs_at(s, i);
        uint32_t dest = cs_tracer_owner(&db->tracer, sub->to.lid);
        if (!passes_filters(&sub->info, n) || dest == CS_NONE) {
            i++;
            continue;
        }
        if (group_trap) {
            if (group_pkey < 0 || !sa_port_has_pkey(db, dest, (uint16_t)group_pkey)) {
                i++;
                continue;
            }
        } else if (source == CS_NONE) {
            i++;
            continue;
        } else if (!sa_share_pkey(db, source, dest)) {
            if (sub->info.lid_range_begin != CS_INFORM_ALL_LIDS)
                cs_informs_remove(s, i); /* o13-17.1.2: it may not see what it asked for */
            else
                i++;
            continue;
        }
        struct cs_report r = {.to = sub->to, .subscriber_guid = sub->subscriber_guid, .notice = *n};
        if (cs_informs_queue_report(s, &r, err) < 0)
            return -1;
        queued++;
        i++;
    }
    return queued;
}

int cs_sa_report_notice(const struct cs_sa_db *db, const struct cs_notice *n, struct cs_error *err)
{
    return report_notice(db, n, -1, err);
}

/* A trap the SM issues, about gid: the notice names the SM's port as its issuer (db->opt). */
static int report_sm_trap(const struct cs_sa_db *db, uint16_t trap, const uint8_t gid[16],
                          int32_t group_pkey, struct cs_error *err)
{
    uint64_t sm_guid = db->opt.sm ? db->opt.sm->guid : 0;
    uint32_t sm_port = sm_guid ? port_of_guid(db, sm_guid) : CS_NONE;
    struct cs_notice n;
    cs_notice_from_sm(trap, sm_port != CS_NONE ? sa_port_base_lid(db, sm_port) : 0,
                      db->opt.subnet_prefix, sm_guid, gid, &n);
    return report_notice(db, &n, group_pkey, err);
}

int cs_sa_report_port_trap(const struct cs_sa_db *db, uint16_t trap, uint64_t port_guid,
                           struct cs_error *err)
{
    uint8_t gid[16];
    cs_bits_set(gid, 0, 64, db->opt.subnet_prefix);
    cs_bits_set(gid, 64, 64, port_guid);
    return report_sm_trap(db, trap, gid, -1, err);
}

int sa_report_group_trap(const struct cs_sa_db *db, uint16_t trap, const uint8_t mgid[16],
                         uint16_t pkey, struct cs_error *err)
{
    return report_sm_trap(db, trap, mgid, pkey, err);
}

int cs_sa_report_trap(const struct cs_sa_db *db, struct cs_notice *n, struct cs_error *err)
{
    /* Traps 129 to 131 (a port's error counters) are the SM's to act on, not to forward. */
    if (n->is_generic && n->trap_number >= 129 && n->trap_number <= 131)
        return 0;
    uint32_t issuer = cs_tracer_owner(&db->tracer, n->issuer_lid);
    if (issuer == CS_NONE)
        return 0;
    cs_bits_set(n->issuer_gid, 0, 64, db->opt.subnet_prefix);
    cs_bits_set(n->issuer_gid, 64, 64, db->fabric->ports[issuer].guid);
    return cs_sa_report_notice(db, n, err);
}
