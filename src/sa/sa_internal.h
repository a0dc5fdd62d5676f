/* The SA's internals (src/sa only): the index cs_sa_db_build makes, the record emitter the
 * answers write through, and component-mask matching. */
#ifndef CLOUDSM_SA_INTERNAL_H
#define CLOUDSM_SA_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cloudsm/analyze.h"
#include "cloudsm/key_index.h"
#include "cloudsm/sa.h"

/* One P_Key table entry of a port, as OpenSM keeps them: ordered by `order`, the 15-bit key with
 * its bytes swapped (OpenSM's table is a map keyed by the network-order key, which a
 * little-endian host sorts that way; the first shared key found in that order is the one a
 * PathRecord carries). */
struct sa_pkey {
    uint16_t order;
    uint16_t pkey;      /* 15-bit id */
    uint8_t membership; /* CS_MEMBER_LIMITED and/or CS_MEMBER_FULL */
    uint8_t sl;         /* the partition's SL (cs_sa_options.partition_sl) */
};

struct cs_sa_db {
    const struct cs_sm_sweep *sweep;
    const struct cs_fabric *fabric;
    struct cs_sa_options opt;
    const struct cs_smp_node_info *node_info; /* [node] the sweep's, or NULL */
    struct cs_tracer tracer;                  /* LID -> port (lid_owner) and the routes */
    struct cs_key_index
        end_port_by_guid; /* end ports: CA/router ports with a GUID, switch port 0 */
    struct cs_key_index node_by_guid;
    /* OpenSM walks its node and port tables in the order of the network-order GUIDs read as
     * host integers (byte-swapped GUIDs on little-endian hosts); whole-table answers follow it
     * so that the first records of a reply are the same. */
    uint32_t *node_order;
    uint32_t *end_port_order;
    uint32_t num_end_ports;
    uint8_t *mtu_cap; /* [port] PortInfo:MTUCap */
    uint8_t *rate;    /* [port] the IBA rate code of its active width and speed */
    /* Partitions: pkeys[pkey_first[p] .. pkey_first[p + 1]) of port p, in OpenSM's order. No
     * partition set: everyone is a full member of the default partition. */
    bool default_only;
    uint32_t *pkey_first;
    struct sa_pkey *pkeys;
    size_t max_reply; /* opt.max_reply, or the default */
    size_t response_bound;
};

/* A port OpenSM would have a physical-port object for: every port of a switch, a CA or router
 * port the sweep reached (it has a GUID and PortInfo). */
bool sa_port_present(const struct cs_sa_db *db, uint32_t port);
/* Base LID and LMC of a port as records carry them: a switch's port 0 LID for all its ports. */
uint16_t sa_port_base_lid(const struct cs_sa_db *db, uint32_t port);
uint8_t sa_port_lmc(const struct cs_sa_db *db, uint32_t port);
static inline bool sa_lid_in_range(uint32_t lid, uint16_t base, uint8_t lmc)
{
    return base != 0 && lid >= base && lid < (uint32_t)base + (1u << (lmc & 7));
}

/* Partition rules (OpenSM osm_pkey.c): two ports share a P_Key when both have it and at least
 * one is a full member. sa_share_pkey: any shared key, or either port has no P_Key table (OpenSM
 * lets those through). sa_common_pkey: the first shared key in OpenSM's order as a's table holds
 * it (full bit included), 0 if none. sa_share_this_pkey: this key (any membership bit). */
bool sa_share_pkey(const struct cs_sa_db *db, uint32_t a, uint32_t b);
uint16_t sa_common_pkey(const struct cs_sa_db *db, uint32_t a, uint32_t b);
bool sa_share_this_pkey(const struct cs_sa_db *db, uint32_t a, uint32_t b, uint16_t pkey);
/* The port's P_Key table holds pkey, with either membership bit (OpenSM's osm_physp_has_pkey). */
bool sa_port_has_pkey(const struct cs_sa_db *db, uint32_t port, uint16_t pkey);
/* The SL of the partition of pkey that a and b share (0 without partition SLs). */
uint8_t sa_pkey_sl(const struct cs_sa_db *db, uint32_t a, uint32_t b, uint16_t pkey);

/* Where the records of an answer go: straight into the response buffer, stride apart. A Get keeps
 * the first record and only counts the rest (two are enough to say "too many"). */
struct sa_emit {
    uint8_t *base;
    size_t room; /* bytes for records */
    size_t size, stride;
    uint32_t count;
    bool get;
    bool overflow;
};

static inline bool sa_emit_done(const struct sa_emit *e)
{
    return e->overflow || (e->get && e->count >= 2);
}

void sa_emit(struct sa_emit *e, const uint8_t *record);

/* One component of a record: ComponentMask bit `bit` covers bit_count bits at bit_offset. */
struct sa_component {
    uint8_t bit;
    uint16_t bit_offset;
    uint16_t bit_count;
};

/* True if every component whose mask bit is set (and that the table lists) holds the same value
 * in the request's record and the candidate. */
bool sa_components_match(const struct sa_component *table, size_t count, uint64_t mask,
                         const uint8_t *request, const uint8_t *candidate);

/* What a query asks for and who asks. */
struct sa_query {
    const struct cs_sa_db *db;
    const uint8_t *record; /* the request's record (data area, zero-padded) */
    uint64_t mask;
    uint32_t attr_mod;
    uint32_t requester; /* port index, CS_NONE for a local caller */
    bool trusted;       /* presented the SM_Key */
    struct sa_emit *emit;
};

/* Whether the requester may see a record about this port: a local caller sees everything,
 * others the ports they share a partition with. */
static inline bool sa_requester_sees(const struct sa_query *q, uint32_t port)
{
    return q->requester == CS_NONE || sa_share_pkey(q->db, q->requester, port);
}

/* The records of the switches' and ports' tables (sa_tables.c): SwitchInfoRecord,
 * LFTRecord, SL2VLTableRecord, P_KeyTableRecord (0 or a status for the reply: an untrusted
 * requester is refused with REQ_INVALID), VLArbitrationTableRecord. */
void sa_switch_info_records(struct sa_query *q);
void sa_sl2vl_records(struct sa_query *q);
void sa_lft_records(struct sa_query *q);
uint16_t sa_pkey_table_records(struct sa_query *q);
void sa_vl_arb_records(struct sa_query *q);

/* ServiceRecords (sa_service.c). sa_service_records: Get and GetTable. sa_service_change:
 * SubnAdmSet or SubnAdmDelete of the ServiceRecord `record` (the request's, changed in place to
 * the reply's): 0 or a status for the reply. */
void sa_service_records(struct sa_query *q);
uint16_t sa_service_change(const struct cs_sa_db *db, uint32_t requester,
                           const struct cs_sa_header *h, uint8_t *record);

/* Alias GUIDs (sa_alias.c). The end port a GUID names (its own GUID or one of its aliases), or
 * CS_NONE. */
uint32_t sa_guid_port(const struct cs_sa_db *db, uint64_t guid);
/* Block `block` of a port's GUID table as the SA shows it. */
void sa_guid_block(const struct cs_sa_db *db, uint32_t port, unsigned block,
                   uint64_t out[CS_ALIAS_GUIDS_PER_BLOCK]);
/* SubnAdmSet or SubnAdmDelete of the GUIDInfoRecord `record` (the request's, changed in place to
 * the reply's). Returns 0 or a status for the reply; *silent when nothing is to be answered. */
uint16_t sa_guid_info_change(const struct cs_sa_db *db, uint32_t requester,
                             const struct cs_sa_header *h, uint8_t *record, bool *silent);

/* SMInfoRecords (sa_sm_info.c): 0, or -1 when nothing is to be answered (as OpenSM: our own
 * port unknown, or a requester that may not see it asking for our record). */
int sa_sm_info_records(struct sa_query *q);

/* Event subscriptions (sa_inform.c). sa_inform_info_set: SubnAdmSet of the InformInfo `record`
 * from requester at address from (the request's, changed in place: Subscribe 0 on a refusal):
 * 0 or a status for the reply. sa_inform_info_records: Get and GetTable of InformInfoRecords.
 * sa_report_group_trap: trap 66 or 67 about the group mgid of P_Key pkey (the group may be gone
 * already), as cs_sa_report_port_trap reports 64 and 65. */
uint16_t sa_inform_info_set(const struct cs_sa_db *db, uint32_t requester,
                            const struct cs_sa_address *from, uint8_t *record);
void sa_inform_info_records(struct sa_query *q);
int sa_report_group_trap(const struct cs_sa_db *db, uint16_t trap, const uint8_t mgid[16],
                         uint16_t pkey, struct cs_error *err);

/* MCMemberRecords (sa_mcast.c): the answers of a Get or GetTable into e, and a Set (join) or a
 * Delete (leave) of the record (the request's, changed in place to the reply's). */
void sa_mcmember_records(const struct cs_sa_db *db, uint32_t requester, bool trusted, uint64_t mask,
                         const uint8_t *request, struct sa_emit *e);
uint16_t sa_mcmember_change(const struct cs_sa_db *db, uint32_t requester,
                            const struct cs_sa_header *h, uint8_t *record, bool *silent);
/* MulticastForwardingTableRecords (sa_mcast.c), from db->opt.mfts. */
void sa_mft_records(const struct cs_sa_db *db, uint32_t requester, uint64_t mask,
                    const uint8_t *request, struct sa_emit *e);

/* PathRecord answers (sa_path.c). Returns 0, or a status for the whole reply (REQ_INVALID for an
 * invalid MTU or rate under a selector). */
uint16_t sa_path_records(const struct cs_sa_db *db, uint32_t requester, bool get,
                         const struct cs_sa_header *h, const uint8_t *request, struct sa_emit *e);

#endif
