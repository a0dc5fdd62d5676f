/* SMInfoRecords (IBA 15.2.5.6) with OpenSM 3.3.23's rules (docs/sm/sa.md "SMInfoRecords"): the
 * SM itself first, then the other SMs it polled last (cs_sm_identity.known), each with its port's
 * base LID.
 *
 *   - With LID in the mask, only the SM on the port of that base LID (none: no records).
 *   - GUID, Priority and SMState in the mask must match; the other components are not looked at.
 *   - Our own record needs a requester that shares a partition with our port: otherwise OpenSM
 *     answers nothing at all (its ERR 2805), and so does cloudsm (every port is at least a
 *     limited member of the default partition, ours a full one: a guard). The others are shown
 *     to all.
 *   - SM_Key reads 0 (OpenSM never fills it in); ActCount is our SMPs sent, the others' as they
 *     answered.
 */
#include <string.h>

#include "sa/sa_internal.h"

static bool matches(const struct sa_query *q, const struct cs_smp_sm_info *sm)
{
    uint8_t asked[CS_SMP_DATA_SIZE] = {0};
    memcpy(asked, q->record + 4, CS_SA_SM_INFO_RECORD_SIZE - 4);
    struct cs_smp_sm_info want;
    cs_smp_sm_info_decode(asked, &want);
    return (!(q->mask & CS_SA_SMIR_GUID) || want.guid == sm->guid) &&
           (!(q->mask & CS_SA_SMIR_PRIORITY) || want.priority == sm->priority) &&
           (!(q->mask & CS_SA_SMIR_STATE) || want.sm_state == sm->sm_state);
}

static void emit_sm(struct sa_query *q, uint16_t lid, const struct cs_smp_sm_info *sm)
{
    uint8_t info[CS_SMP_DATA_SIZE];
    struct cs_smp_sm_info shown = *sm;
    shown.sm_key = 0;
    cs_smp_sm_info_encode(&shown, info);
    uint8_t record[CS_SA_SM_INFO_RECORD_SIZE] = {0};
    cs_bits_set(record, 0, 16, lid);
    memcpy(record + 4, info, CS_SA_SM_INFO_RECORD_SIZE - 4);
    sa_emit(q->emit, record);
}

int sa_sm_info_records(struct sa_query *q)
{
    const struct cs_sa_db *db = q->db;
    const struct cs_sm_identity *me = db->opt.sm;
    uint32_t own = cs_key_index_find(&db->end_port_by_guid, me->guid);
    if (own == CS_NONE)
        return -1;           /* OpenSM's ERR 2809: our port is not in the subnet */
    uint32_t only = CS_NONE; /* with LID in the mask: that port */
    if (q->mask & CS_SA_SMIR_LID) {
        uint16_t lid = (uint16_t)cs_bits_get(q->record, 0, 16);
        only = cs_tracer_owner(&db->tracer, lid);
        if (only == CS_NONE || sa_port_base_lid(db, only) != lid)
            return 0;
    }
    if (only == CS_NONE || only == own) {
        if (!sa_requester_sees(q, own))
            return -1;
        struct cs_smp_sm_info us = {
            .guid = me->guid,
            .act_count = me->pipe ? (uint32_t)cs_smp_pipe_stats(me->pipe).sent : 0,
            .priority = me->priority,
            .sm_state = me->state,
        };
        if (matches(q, &us))
            emit_sm(q, sa_port_base_lid(db, own), &us);
    }
    for (unsigned i = 0; i < me->num_known && !sa_emit_done(q->emit); i++) {
        const struct cs_smp_sm_info *other = &me->known[i];
        uint32_t port = cs_key_index_find(&db->end_port_by_guid, other->guid);
        if (port == CS_NONE || port == own || (only != CS_NONE && port != only) ||
            !matches(q, other))
            continue;
        emit_sm(q, sa_port_base_lid(db, port), other);
    }
    return 0;
}
