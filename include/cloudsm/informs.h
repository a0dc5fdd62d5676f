/* Event subscriptions and the Reports they get.
 *
 * A host subscribes to events with SubnAdmSet(InformInfo) (IBA 13.4.8.3): a trap number (or
 * 0xFFFF for all), a type, a producer, and either an issuer GID or a range of issuer LIDs. When
 * the SM learns of an event (it issues traps 64 and 65 itself when an end port comes into or
 * goes out of service, 66 and 67 when a multicast group gets its first full member or loses its
 * last), the SA matches the Notice (IBA 13.4.8.2) against every subscription and sends each
 * subscriber that may see its source a SubnAdmReport(Notice) (IBA 13.4.9), which the subscriber
 * acknowledges with ReportResp. InformInfoRecords (IBA 15.2.5.12) list the subscriptions.
 *
 * One struct cs_informs lives as long as the SM, like the service store (services.h): the SA
 * changes it when it answers a Set, reads it for InformInfoRecords and queues Reports in its
 * outbox when it matches a notice (cs_sa_report_notice, src/sa/sa_inform.c with OpenSM 3.3.23's
 * rules); the SM takes them from the outbox and sends them with retries. Subscriptions are kept
 * newest first (OpenSM's order: it inserts at its list's head) and in memory only, as OpenSM's.
 */
#ifndef CLOUDSM_INFORMS_H
#define CLOUDSM_INFORMS_H

#include <stdbool.h>
#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/sa.h"

#define CS_SA_ATTR_NOTICE 0x0002
#define CS_SA_ATTR_INFORM_INFO 0x0003
#define CS_SA_ATTR_INFORM_INFO_RECORD 0x00F3
#define CS_SA_METHOD_REPORT_RESP 0x86

/* Traps the SM issues (IBA 14.2.5.1, Table 118), their Notice type (subnet management) and
 * producer (a class manager), as OpenSM fills them in. */
#define CS_TRAP_GID_IN_SERVICE 64
#define CS_TRAP_GID_OUT_OF_SERVICE 65
#define CS_TRAP_MGID_CREATED 66
#define CS_TRAP_MGID_DESTROYED 67
#define CS_NOTICE_TYPE_SUBNET_MANAGEMENT 3
#define CS_NOTICE_PRODUCER_CLASS_MANAGER 4

/* "Any" in an InformInfo's filters. */
#define CS_INFORM_ALL_LIDS 0xFFFF
#define CS_INFORM_ANY_16 0xFFFF
#define CS_INFORM_ANY_PRODUCER 0xFFFFFF

/* InformInfo (IBA 13.4.8.3): 36 bytes. GID 0..15, LIDRangeBegin 16, LIDRangeEnd 18, IsGeneric
 * 22, Subscribe 23, Type 24, TrapNumber/DeviceID 26, QPN (24 bits) and RespTimeValue (5 bits)
 * 28..31, ProducerType/VendorID (24 bits) 33..35. */
#define CS_INFORM_INFO_SIZE 36
struct cs_inform_info {
    uint8_t gid[16]; /* the issuer to match (all zero: match by LID range) */
    uint16_t lid_range_begin, lid_range_end;
    uint8_t is_generic;
    uint8_t subscribe; /* 1 subscribe, 0 unsubscribe */
    uint16_t type;
    uint16_t trap_number;   /* generic: TrapNumber; vendor: DeviceID */
    uint32_t qpn;           /* 24 bits */
    uint8_t resp_time;      /* RespTimeValue, 5 bits */
    uint32_t producer_type; /* generic: ProducerType; vendor: VendorID (24 bits) */
};
/* A subscription to every generic trap from anywhere: Subscribe 1, IsGeneric 1, LIDRangeBegin
 * 0xFFFF, Type, TrapNumber and ProducerType "any", QPN 1, RespTimeValue 18. */
struct cs_inform_info cs_inform_info_all(void);
void cs_inform_info_encode(const struct cs_inform_info *in, uint8_t out[CS_INFORM_INFO_SIZE]);
void cs_inform_info_decode(const uint8_t in[CS_INFORM_INFO_SIZE], struct cs_inform_info *out);

/* InformInfoRecord (IBA 15.2.5.12): SubscriberGID 0..15, Enum 16, reserved 18..23, the
 * InformInfo 24..59 (a 64-byte stride in tables). ComponentMask: SubscriberGID bit 0, Enum bit
 * 1 (the only components OpenSM matches). */
#define CS_SA_INFORM_INFO_RECORD_SIZE 60
#define CS_SA_IIR_SUBSCRIBER_GID (UINT64_C(1) << 0)
#define CS_SA_IIR_ENUM (UINT64_C(1) << 1)

/* Notice (IBA 13.4.8.2): 80 bytes. IsGeneric and Type 0, ProducerType/VendorID 1..3,
 * TrapNumber/DeviceID 4, IssuerLID 6, NoticeToggle and NoticeCount 8, DataDetails 10..63,
 * IssuerGID 64..79. Traps 64 to 67 carry a GID at DataDetails byte 6 (Table 119). */
#define CS_NOTICE_SIZE 80
#define CS_NOTICE_DETAILS_SIZE 54
#define CS_NOTICE_DETAILS_GID_OFFSET 6
struct cs_notice {
    bool is_generic;
    uint8_t type; /* 7 bits */
    uint32_t producer_type;
    uint16_t trap_number;
    uint16_t issuer_lid;
    bool toggle;
    uint16_t count; /* 15 bits */
    uint8_t details[CS_NOTICE_DETAILS_SIZE];
    uint8_t issuer_gid[16];
};
void cs_notice_encode(const struct cs_notice *in, uint8_t out[CS_NOTICE_SIZE]);
void cs_notice_decode(const uint8_t in[CS_NOTICE_SIZE], struct cs_notice *out);

/* The notice of a trap the SM issues (64 to 67): generic, subnet management, a class manager,
 * issued by the SM port (sm_lid, and subnet_prefix:sm_guid as IssuerGID), about gid (the port's
 * GID, or the group's MGID). */
void cs_notice_from_sm(uint16_t trap, uint16_t sm_lid, uint64_t subnet_prefix, uint64_t sm_guid,
                       const uint8_t gid[16], struct cs_notice *out);
/* The GID a notice is about for the access rules: DataDetails' for traps 64 to 67, else the
 * issuer's. */
const uint8_t *cs_notice_source_gid(const struct cs_notice *n);

struct cs_subscription {
    uint64_t subscriber_guid;   /* SubscriberGID: the subnet prefix and the requester's GUID */
    uint16_t subscriber_enum;   /* 0, as OpenSM's */
    struct cs_inform_info info; /* as set, its QPN the requester's (OpenSM keeps it so) */
    struct cs_sa_address to;    /* where Reports go: the address its Set came from (C13-32.1.2) */
};

/* One Report to send: the notice, to whom. */
struct cs_report {
    struct cs_sa_address to;
    uint64_t subscriber_guid;
    struct cs_notice notice;
};

struct cs_informs;

struct cs_informs *cs_informs_create(struct cs_error *err);
void cs_informs_destroy(struct cs_informs *s);

/* The subscriptions, newest first: count and the i-th (valid until the next change). */
uint32_t cs_informs_count(const struct cs_informs *s);
const struct cs_subscription *cs_informs_at(const struct cs_informs *s, uint32_t i);

/* The subscription that is `like` as OpenSM tells them apart (its match_inf_rec): the same
 * report address (LID and QP: OpenSM compares the P_Key index and SL too), the same GID (or,
 * with a zero GID, LID range), type, IsGeneric, trap number (device ID), QPN with RespTimeValue
 * and producer (vendor). Its index, or UINT32_MAX. */
uint32_t cs_informs_find(const struct cs_informs *s, const struct cs_subscription *like);
/* Add sub in front (0), or -1 when out of memory. */
int cs_informs_add(struct cs_informs *s, const struct cs_subscription *sub, struct cs_error *err);
/* Replace the i-th subscription's record (its place stays), or remove it. */
void cs_informs_replace(struct cs_informs *s, uint32_t i, const struct cs_subscription *sub);
void cs_informs_remove(struct cs_informs *s, uint32_t i);
/* Remove the subscriptions of the port with this GUID (a port gone from the fabric, as OpenSM's
 * drop manager does). Returns how many went. */
uint32_t cs_informs_drop_subscriber(struct cs_informs *s, uint64_t port_guid);

/* The outbox: Reports the SA matched and the SM has not taken yet, in the order they were
 * queued, CS_INFORMS_OUTBOX_MAX at most (every host subscribed to every host's traps, and all of
 * them rebooting at once, would queue hosts squared): beyond, a Report is counted and dropped.
 * queue: 0, or -1 when out of memory (the Report is lost and err says so). take: up to max of
 * them, oldest first, into out; returns how many (the rest stay). take_dropped: the Reports
 * dropped since the last call. */
#define CS_INFORMS_OUTBOX_MAX (1u << 18)
int cs_informs_queue_report(struct cs_informs *s, const struct cs_report *r, struct cs_error *err);
uint32_t cs_informs_pending(const struct cs_informs *s);
uint32_t cs_informs_take_reports(struct cs_informs *s, struct cs_report *out, uint32_t max);
uint64_t cs_informs_take_dropped(struct cs_informs *s);

#endif
