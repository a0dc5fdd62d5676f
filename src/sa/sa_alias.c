/* Alias GUIDs in the SA (include/cloudsm/alias_guids.h): SubnAdmSet and SubnAdmDelete of a
 * GUIDInfoRecord, answered by OpenSM 3.3.23's rules (osm_sa_guidinfo_record.c; facts only, the
 * code is ours; docs/sm/sa.md "Alias GUIDs" lists them with what was measured on ibsim), and the
 * lookups GUIDInfoRecords and PathRecords make through the store.
 *
 * The port is the one the record's LID names (any LID of its range); the requester must share a
 * P_Key with it, else nothing is answered. The block must lie within the port's GUIDCap (else
 * NO_RECORDS); entry 0 of block 0 is the port GUID and may not be named (REQ_INVALID). A Set
 * names the entries to set in the component mask: a GUID is taken unless a port or another alias
 * has it (a duplicate leaves the entry as it was); GUID 0 keeps what the entry holds, else gives
 * back what the SM assigned there before, else a new assigned GUID. A Delete clears the entries
 * named. Either way the reply is the request's record with the block as it stands afterwards: an
 * entry that did not take what was asked shows what it holds (0 if nothing), which is how a
 * host learns that its GUID was refused (IBA RefID 4714).
 */
#include "sa/sa_internal.h"

uint32_t sa_guid_port(const struct cs_sa_db *db, uint64_t guid)
{
    uint32_t port = cs_key_index_find(&db->end_port_by_guid, guid);
    uint64_t base;
    unsigned index;
    if (port == CS_NONE && db->opt.aliases &&
        cs_alias_guids_find(db->opt.aliases, guid, &base, &index))
        port = cs_key_index_find(&db->end_port_by_guid, base);
    return port;
}

void sa_guid_block(const struct cs_sa_db *db, uint32_t port, unsigned block,
                   uint64_t out[CS_ALIAS_GUIDS_PER_BLOCK])
{
    uint64_t guid = db->fabric->ports[port].guid;
    if (db->opt.aliases) {
        cs_alias_guids_block(db->opt.aliases, guid, block, out);
        return;
    }
    for (unsigned i = 0; i < CS_ALIAS_GUIDS_PER_BLOCK; i++)
        out[i] = block == 0 && i == 0 ? guid : 0;
}

/* A GUID that a port of the subnet has as its own (the store knows its aliases itself). */
static bool port_guid_taken(void *arg, uint64_t guid)
{
    const struct cs_sa_db *db = arg;
    return cs_key_index_find(&db->end_port_by_guid, guid) != CS_NONE;
}

/* One entry of a Set (OpenSM's set_guidinfo, per index): 0 done (taken or refused), or a status
 * for the whole reply. */
static uint16_t set_entry(const struct cs_sa_db *db, uint64_t port_guid, unsigned cap,
                          unsigned index, uint64_t want)
{
    struct cs_alias_guids *a = db->opt.aliases;
    struct cs_error err;
    uint64_t have[CS_ALIAS_GUIDS_PER_BLOCK];
    cs_alias_guids_block(a, port_guid, index / CS_ALIAS_GUIDS_PER_BLOCK, have);
    uint64_t now = have[index % CS_ALIAS_GUIDS_PER_BLOCK];
    if (want == 0) {
        if (now != 0)
            return 0; /* the entry keeps its GUID */
        want = cs_alias_guids_assigned(a, port_guid, index);
        if (want == 0) {
            int got = cs_alias_guids_assign(a, port_guid, cap, index, port_guid_taken, (void *)db,
                                            &want, &err);
            if (got < 0)
                return CS_SA_STATUS_NO_RESOURCES;
            if (got == 0)
                return 0; /* every try was taken: the entry stays empty */
        }
    }
    uint64_t owner;
    unsigned at;
    if (port_guid_taken((void *)db, want))
        return 0; /* a port's own GUID: refused */
    if (cs_alias_guids_find(a, want, &owner, &at))
        return 0; /* registered already: refused elsewhere, nothing to do here */
    return cs_alias_guids_put(a, port_guid, index, want, &err) < 0 ? CS_SA_STATUS_NO_RESOURCES : 0;
}

uint16_t sa_guid_info_change(const struct cs_sa_db *db, uint32_t requester,
                             const struct cs_sa_header *h, uint8_t *record, bool *silent)
{
    struct cs_alias_guids *a = db->opt.aliases;
    *silent = false;
    struct cs_sa_guid_info_record r;
    cs_sa_guid_info_record_decode(record, &r);
    uint32_t port = cs_tracer_owner(&db->tracer, r.lid);
    if (port == CS_NONE)
        return CS_SA_STATUS_NO_RECORDS;
    if (requester != CS_NONE && !sa_share_pkey(db, requester, port)) {
        *silent = true; /* OpenSM answers nothing */
        return 0;
    }
    uint64_t port_guid = db->fabric->ports[port].guid;
    unsigned cap = db->sweep->port_info_valid[port] ? db->sweep->port_info[port].guid_cap : 0;
    unsigned blocks = (cap + CS_ALIAS_GUIDS_PER_BLOCK - 1) / CS_ALIAS_GUIDS_PER_BLOCK;
    bool set = h->method == CS_SA_METHOD_SET;
    bool has_table = cs_alias_guids_capacity(a, port_guid) != 0;
    if (!set && !has_table)
        return 0; /* nothing registered: the request comes back as it was */
    if (r.block >= blocks)
        return CS_SA_STATUS_NO_RECORDS;
    struct cs_error err;
    if (set && cs_alias_guids_open(a, port_guid, cap, &err) < 0)
        return CS_SA_STATUS_NO_RESOURCES;
    unsigned first = r.block * CS_ALIAS_GUIDS_PER_BLOCK, end = first + CS_ALIAS_GUIDS_PER_BLOCK;
    if (end > cap)
        end = cap;
    if (first == 0 && (h->component_mask & CS_SA_GIR_GUID(0)))
        return CS_SA_STATUS_REQ_INVALID; /* the port GUID is read-only */
    for (unsigned i = first; i < end; i++) {
        if (!(h->component_mask & CS_SA_GIR_GUID(i % CS_ALIAS_GUIDS_PER_BLOCK)))
            continue;
        if (!set) {
            cs_alias_guids_remove(a, port_guid, i);
            continue;
        }
        uint16_t status =
            set_entry(db, port_guid, cap, i, r.guids.guid[i % CS_ALIAS_GUIDS_PER_BLOCK]);
        if (status != 0)
            return status;
    }
    /* The request's record with the block as it stands now (reserved bytes as they came). */
    uint64_t now[CS_ALIAS_GUIDS_PER_BLOCK];
    sa_guid_block(db, port, r.block, now);
    for (unsigned i = 0; i < CS_ALIAS_GUIDS_PER_BLOCK; i++)
        cs_bits_set(record, 64 + 64 * i, 64, now[i]);
    return 0;
}
