/* ServiceRecords (IBA 15.2.5.14; the store: include/cloudsm/services.h): SubnAdmSet registers
 * or replaces one, SubnAdmDelete removes one, Get and GetTable find them, with OpenSM 3.3.23's
 * rules (docs/sm/sa.md "Services"):
 *
 *   - Set and Delete: with ServiceP_Key in the mask, the requester's P_Key table must hold it,
 *     and with ServiceGID too, the table of the port that GID names; else REQ_INVALID. A Set must
 *     name ServiceID and ServiceGID (REQ_INVALID); without ServiceLease the lease is infinite.
 *     ServiceID, ServiceGID and ServiceP_Key identify the record (whatever the mask says of the
 *     P_Key); a Delete of none answers NO_RECORDS.
 *   - Get: every component but the lease matches exactly; a record with a valid ServiceP_Key is
 *     shown only to requesters whose table holds it.
 *   - ServiceKey reads 0 in every answer to a request without the SM_Key. A Set's answer carries
 *     P_Key 0xffff when the request did not name one.
 */
#include <string.h>

#include "cloudsm/services.h"
#include "sa/sa_internal.h"

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

/* Every component but the reserved bit 3 and the lease (OpenSM does not match leases). */
static const struct sa_component service_components[] = {
    {0, 0, 64},     {1, 64, 128},   {2, 192, 16},   {5, 256, 128},  {6, 384, 512},  {7, 896, 8},
    {8, 904, 8},    {9, 912, 8},    {10, 920, 8},   {11, 928, 8},   {12, 936, 8},   {13, 944, 8},
    {14, 952, 8},   {15, 960, 8},   {16, 968, 8},   {17, 976, 8},   {18, 984, 8},   {19, 992, 8},
    {20, 1000, 8},  {21, 1008, 8},  {22, 1016, 8},  {23, 1024, 16}, {24, 1040, 16}, {25, 1056, 16},
    {26, 1072, 16}, {27, 1088, 16}, {28, 1104, 16}, {29, 1120, 16}, {30, 1136, 16}, {31, 1152, 32},
    {32, 1184, 32}, {33, 1216, 32}, {34, 1248, 32}, {35, 1280, 64}, {36, 1344, 64}};

enum { SR_KEY_OFFSET = 32 };

static double now_ms(const struct cs_sa_db *db)
{
    return db->opt.clock_ms ? db->opt.clock_ms() : cs_clock_ms();
}

void sa_service_records(struct sa_query *q)
{
    struct cs_services *s = q->db->opt.services;
    if (s == NULL)
        return;
    cs_services_expire(s, now_ms(q->db));
    for (uint32_t i = 0; i < cs_services_count(s) && !sa_emit_done(q->emit); i++) {
        const struct cs_sa_service_record *r = cs_services_at(s, i);
        if ((r->pkey & CS_PKEY_MASK) != 0 && q->requester != CS_NONE &&
            !sa_port_has_pkey(q->db, q->requester, r->pkey))
            continue;
        uint8_t encoded[CS_SA_SERVICE_RECORD_SIZE];
        cs_sa_service_record_encode(r, encoded);
        if (!sa_components_match(service_components, COUNT(service_components), q->mask, q->record,
                                 encoded))
            continue;
        if (!q->trusted)
            memset(encoded + SR_KEY_OFFSET, 0, sizeof r->key);
        sa_emit(q->emit, encoded);
    }
}

/* OpenSM's check of a Set's or Delete's P_Key: the requester has it, and so does the port the
 * ServiceGID names when the mask has both. */
static bool pkey_allowed(const struct cs_sa_db *db, uint32_t requester, uint64_t mask,
                         const struct cs_sa_service_record *r)
{
    if (!(mask & CS_SA_SR_PKEY))
        return true;
    if (requester != CS_NONE && !sa_port_has_pkey(db, requester, r->pkey))
        return false;
    if (!(mask & CS_SA_SR_GID))
        return true;
    uint32_t port = cs_key_index_find(&db->end_port_by_guid, cs_bits_get(r->gid, 64, 64));
    return port != CS_NONE && sa_port_has_pkey(db, port, r->pkey);
}

uint16_t sa_service_change(const struct cs_sa_db *db, uint32_t requester,
                           const struct cs_sa_header *h, uint8_t *record)
{
    struct cs_services *s = db->opt.services;
    struct cs_sa_service_record r;
    cs_sa_service_record_decode(record, &r);
    uint64_t mask = h->component_mask;
    if (!pkey_allowed(db, requester, mask, &r))
        return CS_SA_STATUS_REQ_INVALID;
    if (h->method == CS_SA_METHOD_DELETE) {
        if (cs_services_delete(s, &r, now_ms(db), &r) == 0)
            return CS_SA_STATUS_NO_RECORDS;
    } else {
        if ((mask & (CS_SA_SR_ID | CS_SA_SR_GID)) != (CS_SA_SR_ID | CS_SA_SR_GID))
            return CS_SA_STATUS_REQ_INVALID;
        if (!(mask & CS_SA_SR_LEASE))
            r.lease = CS_SA_SERVICE_LEASE_INFINITE;
        struct cs_error err;
        if (cs_services_set(s, &r, now_ms(db), &err) < 0)
            return CS_SA_STATUS_NO_RESOURCES;
        if (!(mask & CS_SA_SR_PKEY))
            r.pkey = CS_PKEY_FULL_BIT | CS_PKEY_DEFAULT;
    }
    if (h->sm_key == 0)
        memset(r.key, 0, sizeof r.key);
    cs_sa_service_record_encode(&r, record);
    return 0;
}
