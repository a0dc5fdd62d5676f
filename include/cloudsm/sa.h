/* Subnet Administration (SA): the answers a subnet manager gives to SubnAdm MADs (class 0x03,
 * GMPs on QP1), as a pure library. No I/O: cloudsmd receives a request MAD, hands its bytes to
 * cs_sa_answer and sends back the bytes it returns.
 *
 *   cs_sa_db_build   an index over one sweep (LIDs, GUIDs, routes, partitions), built once per
 *                    sweep and read by every answer
 *   cs_sa_answer     request bytes -> complete response bytes (or nothing to send)
 *
 * Methods: SubnAdmGet (exactly one record, else status NO_RECORDS / TOO_MANY_RECORDS) and
 * SubnAdmGetTable (zero or more records, a GetTableResp marked as one RMPP DATA transfer), and
 * SubnAdmSet / SubnAdmDelete of a GUIDInfoRecord (alias GUIDs, alias_guids.h) and of a
 * ServiceRecord (services.h), when the db has the store. Attributes: ClassPortInfo, NodeRecord,
 * PortInfoRecord, LinkRecord, GUIDInfoRecord, PathRecord, SwitchInfoRecord, LFTRecord,
 * SL2VLTableRecord, P_KeyTableRecord, VLArbitrationTableRecord and ServiceRecord (IBA 15.2.5).
 * docs/sm/sa.md has every rule, the component masks honoured, and the facts measured on
 * OpenSM 3.3.23 that the answers follow (and where they deliberately differ).
 *
 * Layouts follow the IBA (volume 1, 13.4 MAD header, 13.6.2 RMPP header, 15.2.1 SA header,
 * 15.2.5 records), big-endian, fields addressed as bit offsets from the start of the record with
 * cs_bits_get/cs_bits_set. Record encoders write every defined field and zero every reserved bit
 * (except the PathRecord's reserved field at bit 353, which carries the path caching flag);
 * decoders read every defined field. One exception to big-endian: a P_KeyTableRecord's BlockNum,
 * as OpenSM 3.3.23 answers it (below).
 */
#ifndef CLOUDSM_SA_H
#define CLOUDSM_SA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cloudsm/alias_guids.h"
#include "cloudsm/clock.h"
#include "cloudsm/error.h"
#include "cloudsm/lft.h"
#include "cloudsm/mcast.h"
#include "cloudsm/partitions.h"
#include "cloudsm/qos_policy.h"
#include "cloudsm/sm.h"
#include "cloudsm/smp.h"

#define CS_SA_MAD_SIZE 256    /* one MAD; larger GetTable replies travel as RMPP segments */
#define CS_SA_HEADER_SIZE 56  /* MAD header 24 + RMPP header 12 + SA header 20 */
#define CS_SA_DATA_SIZE 200   /* the data area of one MAD */
#define CS_SA_RMPP_OFFSET 24  /* where the RMPP header starts */
#define CS_SA_SA_OFFSET 36    /* where the SA header (SM_Key, AttributeOffset, ...) starts */
#define CS_SA_PAYLOAD_BASE 36 /* RMPP PayloadLength counts from here: SA header + records */

#define CS_SA_CLASS 0x03
#define CS_SA_BASE_VERSION 1
#define CS_SA_CLASS_VERSION 2

/* Methods (IBA 13.4.5, 15.2.2). Bit 7 marks a response. */
#define CS_SA_METHOD_GET 0x01
#define CS_SA_METHOD_SET 0x02
#define CS_SA_METHOD_SEND 0x03
#define CS_SA_METHOD_TRAP 0x05
#define CS_SA_METHOD_REPORT 0x06
#define CS_SA_METHOD_TRAP_REPRESS 0x07
#define CS_SA_METHOD_GET_TABLE 0x12
#define CS_SA_METHOD_GET_TRACE_TABLE 0x13
#define CS_SA_METHOD_GET_MULTI 0x14
#define CS_SA_METHOD_DELETE 0x15
#define CS_SA_METHOD_RESPONSE 0x80
#define CS_SA_METHOD_GET_RESP 0x81
#define CS_SA_METHOD_GET_TABLE_RESP 0x92
#define CS_SA_METHOD_DELETE_RESP 0x95

/* Attribute ids (IBA 15.2.5, Table 204). */
#define CS_SA_ATTR_CLASS_PORT_INFO 0x0001
#define CS_SA_ATTR_NODE_RECORD 0x0011
#define CS_SA_ATTR_PORT_INFO_RECORD 0x0012
#define CS_SA_ATTR_SL2VL_TABLE_RECORD 0x0013
#define CS_SA_ATTR_SWITCH_INFO_RECORD 0x0014
#define CS_SA_ATTR_LFT_RECORD 0x0015
#define CS_SA_ATTR_LINK_RECORD 0x0020
#define CS_SA_ATTR_GUID_INFO_RECORD 0x0030
#define CS_SA_ATTR_SERVICE_RECORD 0x0031
#define CS_SA_ATTR_PKEY_TABLE_RECORD 0x0033
#define CS_SA_ATTR_PATH_RECORD 0x0035
#define CS_SA_ATTR_VL_ARB_TABLE_RECORD 0x0036
#define CS_SA_ATTR_MCMEMBER_RECORD 0x0038
#define CS_SA_ATTR_MFT_RECORD 0x0017
#define CS_SA_ATTR_SM_INFO_RECORD 0x0018

/* Status. The common MAD codes are smp.h's CS_SMP_STATUS_* (0x0004 bad version, 0x0008 method
 * not supported, 0x000c method/attribute not supported, 0x001c invalid field); the SA's own
 * codes sit in the class-specific bits 8..15 (IBA 15.2.1.1, Table 186). */
#define CS_SA_STATUS_NO_RESOURCES 0x0100
#define CS_SA_STATUS_REQ_INVALID 0x0200
#define CS_SA_STATUS_NO_RECORDS 0x0300
#define CS_SA_STATUS_TOO_MANY_RECORDS 0x0400
#define CS_SA_STATUS_INVALID_GID 0x0500
#define CS_SA_STATUS_INSUFFICIENT_COMPONENTS 0x0600
#define CS_SA_STATUS_DENIED 0x0700

/* RMPP header (IBA 13.6.2.1). */
#define CS_RMPP_VERSION 1
#define CS_RMPP_TYPE_DATA 1
#define CS_RMPP_FLAG_ACTIVE 0x01
#define CS_RMPP_FLAG_FIRST 0x02
#define CS_RMPP_FLAG_LAST 0x04

/* Where a MAD came from (a request) or goes to (a Report): the LID, QP, SL and P_Key index of
 * the other end (IBA 13.5.1: a response goes back there, with the QP1 Q_Key). */
struct cs_sa_address {
    uint16_t lid;
    uint32_t qpn;
    uint8_t sl;
    uint16_t pkey_index;
};

/* The first 56 bytes of every SA MAD. */
struct cs_sa_header {
    uint8_t base_version;
    uint8_t mgmt_class;
    uint8_t class_version;
    uint8_t method;
    uint16_t status;
    uint16_t class_specific;
    uint64_t transaction_id;
    uint16_t attr_id;
    uint32_t attr_mod;
    uint8_t rmpp_version;
    uint8_t rmpp_type;
    uint8_t rmpp_resp_time; /* 5 bits */
    uint8_t rmpp_flags;     /* 3 bits: CS_RMPP_FLAG_* */
    uint8_t rmpp_status;
    uint32_t rmpp_segment;        /* SegmentNumber */
    uint32_t rmpp_payload_length; /* PayloadLength / NewWindowLast */
    uint64_t sm_key;
    uint16_t attr_offset; /* record stride in 8-byte words */
    uint64_t component_mask;
};

void cs_sa_header_encode(const struct cs_sa_header *in, uint8_t out[CS_SA_HEADER_SIZE]);
/* A whole SA MAD to send (a request, a Report): the header h with the SA's base version, class
 * and class version filled in, then record[0..size) (NULL: nothing; at most CS_SA_DATA_SIZE
 * bytes) in the data area, zeros elsewhere. */
void cs_sa_mad_encode(const struct cs_sa_header *h, const void *record, size_t size,
                      uint8_t out[CS_SA_MAD_SIZE]);
void cs_sa_header_decode(const uint8_t in[CS_SA_HEADER_SIZE], struct cs_sa_header *out);

/* Records travel back to back, AttributeOffset * 8 bytes apart: the record size rounded up to
 * whole 8-byte words (a 108-byte NodeRecord takes 112). */
static inline size_t cs_sa_record_stride(size_t record_size)
{
    return (record_size + 7) & ~(size_t)7;
}

/* NodeRecord (IBA 15.2.5.2): 108 bytes. */
#define CS_SA_NODE_RECORD_SIZE 108
struct cs_sa_node_record {
    uint16_t lid;
    struct cs_smp_node_info node_info;
    struct cs_smp_node_description node_description;
};
void cs_sa_node_record_encode(const struct cs_sa_node_record *in,
                              uint8_t out[CS_SA_NODE_RECORD_SIZE]);
void cs_sa_node_record_decode(const uint8_t in[CS_SA_NODE_RECORD_SIZE],
                              struct cs_sa_node_record *out);

/* PortInfoRecord (IBA 15.2.5.3): 68 bytes. */
#define CS_SA_PORT_INFO_RECORD_SIZE 68
struct cs_sa_port_info_record {
    uint16_t lid; /* EndportLID: a CA port's LID, a switch's port 0 LID for all its ports */
    uint8_t port_num;
    uint8_t options;
    struct cs_smp_port_info port_info;
};
void cs_sa_port_info_record_encode(const struct cs_sa_port_info_record *in,
                                   uint8_t out[CS_SA_PORT_INFO_RECORD_SIZE]);
void cs_sa_port_info_record_decode(const uint8_t in[CS_SA_PORT_INFO_RECORD_SIZE],
                                   struct cs_sa_port_info_record *out);

/* LinkRecord (IBA 15.2.5.13): 6 bytes. */
#define CS_SA_LINK_RECORD_SIZE 6
struct cs_sa_link_record {
    uint16_t from_lid; /* base LID of the node (a switch's port 0 LID) */
    uint8_t from_port;
    uint8_t to_port;
    uint16_t to_lid;
};
void cs_sa_link_record_encode(const struct cs_sa_link_record *in,
                              uint8_t out[CS_SA_LINK_RECORD_SIZE]);
void cs_sa_link_record_decode(const uint8_t in[CS_SA_LINK_RECORD_SIZE],
                              struct cs_sa_link_record *out);

/* GUIDInfoRecord (IBA 15.2.5.18): 72 bytes. ComponentMask: LID bit 0, BlockNum bit 1, GUID n of
 * the block bit 4 + n. */
#define CS_SA_GUID_INFO_RECORD_SIZE 72
#define CS_SA_GIR_LID (UINT64_C(1) << 0)
#define CS_SA_GIR_BLOCK (UINT64_C(1) << 1)
#define CS_SA_GIR_GUID(n) (UINT64_C(1) << (4 + (n)))
struct cs_sa_guid_info_record {
    uint16_t lid;
    uint8_t block;
    struct cs_smp_guid_block guids;
};
void cs_sa_guid_info_record_encode(const struct cs_sa_guid_info_record *in,
                                   uint8_t out[CS_SA_GUID_INFO_RECORD_SIZE]);
void cs_sa_guid_info_record_decode(const uint8_t in[CS_SA_GUID_INFO_RECORD_SIZE],
                                   struct cs_sa_guid_info_record *out);

/* SwitchInfoRecord (IBA 15.2.5): LID, 16 reserved bits, SwitchInfo (its 20 defined bytes):
 * 24 bytes. ComponentMask: LID bit 0. */
#define CS_SA_SWITCH_INFO_RECORD_SIZE 24
#define CS_SA_SWIR_LID (UINT64_C(1) << 0)
struct cs_sa_switch_info_record {
    uint16_t lid; /* the switch's port 0 LID */
    struct cs_smp_switch_info switch_info;
};
void cs_sa_switch_info_record_encode(const struct cs_sa_switch_info_record *in,
                                     uint8_t out[CS_SA_SWITCH_INFO_RECORD_SIZE]);
void cs_sa_switch_info_record_decode(const uint8_t in[CS_SA_SWITCH_INFO_RECORD_SIZE],
                                     struct cs_sa_switch_info_record *out);

/* LinearForwardingTableRecord (IBA 15.2.5): LID, BlockNum (16 bits), 32 reserved bits, one
 * LFT block: 72 bytes. ComponentMask: LID bit 0, BlockNum bit 1. */
#define CS_SA_LFT_RECORD_SIZE 72
#define CS_SA_LFTR_LID (UINT64_C(1) << 0)
#define CS_SA_LFTR_BLOCK (UINT64_C(1) << 1)
struct cs_sa_lft_record {
    uint16_t lid;
    uint16_t block;
    struct cs_smp_lft_block lft;
};
void cs_sa_lft_record_encode(const struct cs_sa_lft_record *in, uint8_t out[CS_SA_LFT_RECORD_SIZE]);
void cs_sa_lft_record_decode(const uint8_t in[CS_SA_LFT_RECORD_SIZE], struct cs_sa_lft_record *out);

/* SLtoVLMappingTableRecord (IBA 15.2.5): LID, InputPortNum, OutputPortNum, 32 reserved bits,
 * the 16 VLs (4 bits each): 16 bytes. ComponentMask: LID bit 0, InputPortNum bit 1,
 * OutputPortNum bit 2. */
#define CS_SA_SL2VL_RECORD_SIZE 16
#define CS_SA_SL2VL_LID (UINT64_C(1) << 0)
#define CS_SA_SL2VL_IN_PORT (UINT64_C(1) << 1)
#define CS_SA_SL2VL_OUT_PORT (UINT64_C(1) << 2)
struct cs_sa_sl2vl_record {
    uint16_t lid;
    uint8_t in_port;
    uint8_t out_port;
    struct cs_smp_sl2vl sl2vl;
};
void cs_sa_sl2vl_record_encode(const struct cs_sa_sl2vl_record *in,
                               uint8_t out[CS_SA_SL2VL_RECORD_SIZE]);
void cs_sa_sl2vl_record_decode(const uint8_t in[CS_SA_SL2VL_RECORD_SIZE],
                               struct cs_sa_sl2vl_record *out);

/* P_KeyTableRecord (IBA 15.2.5): LID, BlockNum (16 bits), PortNum, 24 reserved bits, one
 * block of 32 P_Keys: 72 bytes. ComponentMask: LID bit 0, BlockNum bit 1, PortNum bit 2.
 * In answers BlockNum is least significant byte first, as OpenSM 3.3.23 writes it and saquery
 * reads it (the codec's order); in requests it is in the IBA's order, as saquery writes it and
 * OpenSM reads it (cs_sa_pkey_table_request_block). src/sa/sa_mad.c. */
#define CS_SA_PKEY_TABLE_RECORD_SIZE 72
#define CS_SA_PKTR_LID (UINT64_C(1) << 0)
#define CS_SA_PKTR_BLOCK (UINT64_C(1) << 1)
#define CS_SA_PKTR_PORT (UINT64_C(1) << 2)
struct cs_sa_pkey_table_record {
    uint16_t lid;
    uint16_t block;
    uint8_t port_num;
    struct cs_smp_pkey_block pkeys;
};
void cs_sa_pkey_table_record_encode(const struct cs_sa_pkey_table_record *in,
                                    uint8_t out[CS_SA_PKEY_TABLE_RECORD_SIZE]);
void cs_sa_pkey_table_record_decode(const uint8_t in[CS_SA_PKEY_TABLE_RECORD_SIZE],
                                    struct cs_sa_pkey_table_record *out);
uint16_t cs_sa_pkey_table_request_block(const uint8_t in[CS_SA_PKEY_TABLE_RECORD_SIZE]);

/* VLArbitrationTableRecord (IBA 15.2.5): LID, OutputPortNum, BlockNum (1, 2: low priority
 * entries 0..31, 32..63; 3, 4: high priority), 32 reserved bits, 32 entries of 4 reserved bits,
 * VL (4 bits) and Weight (8 bits): 72 bytes. ComponentMask: LID bit 0, OutputPortNum bit 1,
 * BlockNum bit 2. */
#define CS_SA_VL_ARB_RECORD_SIZE 72
#define CS_SA_VL_ARB_ENTRIES 32
#define CS_SA_VLAR_LID (UINT64_C(1) << 0)
#define CS_SA_VLAR_OUT_PORT (UINT64_C(1) << 1)
#define CS_SA_VLAR_BLOCK (UINT64_C(1) << 2)
struct cs_sa_vl_arb_entry {
    uint8_t vl; /* 4 bits */
    uint8_t weight;
};
struct cs_sa_vl_arb_record {
    uint16_t lid;
    uint8_t port_num;
    uint8_t block;
    struct cs_sa_vl_arb_entry entry[CS_SA_VL_ARB_ENTRIES];
};
void cs_sa_vl_arb_record_encode(const struct cs_sa_vl_arb_record *in,
                                uint8_t out[CS_SA_VL_ARB_RECORD_SIZE]);
void cs_sa_vl_arb_record_decode(const uint8_t in[CS_SA_VL_ARB_RECORD_SIZE],
                                struct cs_sa_vl_arb_record *out);

/* ServiceRecord (IBA 15.2.5.14): 176 bytes. ComponentMask: ServiceID bit 0, ServiceGID 1,
 * ServiceP_Key 2, ServiceLease 4, ServiceKey 5, ServiceName 6, ServiceData8[i] 7 + i,
 * ServiceData16[i] 23 + i, ServiceData32[i] 31 + i, ServiceData64[i] 35 + i. */
#define CS_SA_SERVICE_RECORD_SIZE 176
#define CS_SA_SERVICE_NAME_SIZE 64
#define CS_SA_SR_ID (UINT64_C(1) << 0)
#define CS_SA_SR_GID (UINT64_C(1) << 1)
#define CS_SA_SR_PKEY (UINT64_C(1) << 2)
#define CS_SA_SR_LEASE (UINT64_C(1) << 4)
#define CS_SA_SR_KEY (UINT64_C(1) << 5)
#define CS_SA_SR_NAME (UINT64_C(1) << 6)
#define CS_SA_SR_DATA8(i) (UINT64_C(1) << (7 + (i)))
#define CS_SA_SR_DATA16(i) (UINT64_C(1) << (23 + (i)))
#define CS_SA_SR_DATA32(i) (UINT64_C(1) << (31 + (i)))
#define CS_SA_SR_DATA64(i) (UINT64_C(1) << (35 + (i)))
#define CS_SA_SERVICE_LEASE_INFINITE 0xffffffffu
struct cs_sa_service_record {
    uint64_t id;
    uint8_t gid[16];
    uint16_t pkey;
    uint32_t lease; /* seconds; CS_SA_SERVICE_LEASE_INFINITE: never expires */
    uint8_t key[16];
    uint8_t name[CS_SA_SERVICE_NAME_SIZE]; /* NUL-padded UTF-8, not necessarily terminated */
    uint8_t data8[16];
    uint16_t data16[8];
    uint32_t data32[4];
    uint64_t data64[2];
};
void cs_sa_service_record_encode(const struct cs_sa_service_record *in,
                                 uint8_t out[CS_SA_SERVICE_RECORD_SIZE]);
void cs_sa_service_record_decode(const uint8_t in[CS_SA_SERVICE_RECORD_SIZE],
                                 struct cs_sa_service_record *out);

/* PathRecord (IBA 15.2.5.16, 1.2.1 layout): 64 bytes. Selectors: 0 greater than, 1 less than,
 * 2 exactly, 3 largest available (smallest for the packet lifetime). MTU: 1 = 256 .. 5 = 4096.
 * Rate: the IBA code (2 = 2.5, 3 = 10, 7 = 40, 16 = 100 Gb/s, ...). */
#define CS_SA_PATH_RECORD_SIZE 64
/* The caching flag (Paper I, subnet_supports_sa_path_caching): the value of the 3-bit reserved
 * field at bit offset 353 that sets the bit at 353 itself, i.e. byte 44 of the record |= 0x40.
 * A client tests the field for non-zero. */
#define CS_SA_PATH_CACHING_FLAG 4
#define CS_SA_SELECTOR_GREATER 0
#define CS_SA_SELECTOR_LESS 1
#define CS_SA_SELECTOR_EXACTLY 2
#define CS_SA_SELECTOR_BEST 3
struct cs_sa_path_record {
    uint64_t service_id;
    uint8_t dgid[16];
    uint8_t sgid[16];
    uint16_t dlid;
    uint16_t slid;
    uint8_t raw_traffic;  /* 1 bit */
    uint8_t reserved_353; /* 3 bits: the caching flag */
    uint32_t flow_label;  /* 20 bits */
    uint8_t hop_limit;
    uint8_t traffic_class;
    uint8_t reversible; /* 1 bit */
    uint8_t numb_path;  /* 7 bits */
    uint16_t pkey;
    uint16_t qos_class; /* 12 bits */
    uint8_t sl;         /* 4 bits */
    uint8_t mtu_selector;
    uint8_t mtu; /* 6 bits */
    uint8_t rate_selector;
    uint8_t rate; /* 6 bits */
    uint8_t packet_life_selector;
    uint8_t packet_life; /* 6 bits */
    uint8_t preference;
};
void cs_sa_path_record_encode(const struct cs_sa_path_record *in,
                              uint8_t out[CS_SA_PATH_RECORD_SIZE]);
void cs_sa_path_record_decode(const uint8_t in[CS_SA_PATH_RECORD_SIZE],
                              struct cs_sa_path_record *out);

/* PathRecord ComponentMask bits (IBA Table 210; ServiceID takes two bits from the 1.1 layout). */
#define CS_SA_PR_SERVICE_ID (UINT64_C(3) << 0)
#define CS_SA_PR_DGID (UINT64_C(1) << 2)
#define CS_SA_PR_SGID (UINT64_C(1) << 3)
#define CS_SA_PR_DLID (UINT64_C(1) << 4)
#define CS_SA_PR_SLID (UINT64_C(1) << 5)
#define CS_SA_PR_RAW_TRAFFIC (UINT64_C(1) << 6)
#define CS_SA_PR_FLOW_LABEL (UINT64_C(1) << 8)
#define CS_SA_PR_HOP_LIMIT (UINT64_C(1) << 9)
#define CS_SA_PR_TCLASS (UINT64_C(1) << 10)
#define CS_SA_PR_REVERSIBLE (UINT64_C(1) << 11)
#define CS_SA_PR_NUMB_PATH (UINT64_C(1) << 12)
#define CS_SA_PR_PKEY (UINT64_C(1) << 13)
#define CS_SA_PR_QOS_CLASS (UINT64_C(1) << 14)
#define CS_SA_PR_SL (UINT64_C(1) << 15)
#define CS_SA_PR_MTU_SELECTOR (UINT64_C(1) << 16)
#define CS_SA_PR_MTU (UINT64_C(1) << 17)
#define CS_SA_PR_RATE_SELECTOR (UINT64_C(1) << 18)
#define CS_SA_PR_RATE (UINT64_C(1) << 19)
#define CS_SA_PR_PACKET_LIFE_SELECTOR (UINT64_C(1) << 20)
#define CS_SA_PR_PACKET_LIFE (UINT64_C(1) << 21)
#define CS_SA_PR_PREFERENCE (UINT64_C(1) << 22)

/* MCMemberRecord (IBA 15.2.5.17): 52 bytes; the fields are mcast.h's struct cs_mcmember_record.
 * ComponentMask bits 0..17 in field order: MGID, PortGID, Q_Key, MLID, MTUSelector, MTU, TClass,
 * P_Key, RateSelector, Rate, PacketLifeTimeSelector, PacketLifeTime, SL, FlowLabel, HopLimit,
 * Scope, JoinState, ProxyJoin. */
#define CS_SA_MCMEMBER_RECORD_SIZE 52
#define CS_SA_MCR_MGID (UINT64_C(1) << 0)
#define CS_SA_MCR_PORT_GID (UINT64_C(1) << 1)
#define CS_SA_MCR_QKEY (UINT64_C(1) << 2)
#define CS_SA_MCR_MLID (UINT64_C(1) << 3)
#define CS_SA_MCR_MTU_SELECTOR (UINT64_C(1) << 4)
#define CS_SA_MCR_MTU (UINT64_C(1) << 5)
#define CS_SA_MCR_TCLASS (UINT64_C(1) << 6)
#define CS_SA_MCR_PKEY (UINT64_C(1) << 7)
#define CS_SA_MCR_RATE_SELECTOR (UINT64_C(1) << 8)
#define CS_SA_MCR_RATE (UINT64_C(1) << 9)
#define CS_SA_MCR_LIFE_SELECTOR (UINT64_C(1) << 10)
#define CS_SA_MCR_LIFE (UINT64_C(1) << 11)
#define CS_SA_MCR_SL (UINT64_C(1) << 12)
#define CS_SA_MCR_FLOW_LABEL (UINT64_C(1) << 13)
#define CS_SA_MCR_HOP_LIMIT (UINT64_C(1) << 14)
#define CS_SA_MCR_SCOPE (UINT64_C(1) << 15)
#define CS_SA_MCR_JOIN_STATE (UINT64_C(1) << 16)
#define CS_SA_MCR_PROXY_JOIN (UINT64_C(1) << 17)
void cs_sa_mcmember_record_encode(const struct cs_mcmember_record *in,
                                  uint8_t out[CS_SA_MCMEMBER_RECORD_SIZE]);
void cs_sa_mcmember_record_decode(const uint8_t in[CS_SA_MCMEMBER_RECORD_SIZE],
                                  struct cs_mcmember_record *out);

/* MulticastForwardingTableRecord (IBA 15.2.5.8): 72 bytes: LID (16 bits), Position (4),
 * reserved (3), BlockNum (9), reserved (32), then the block's 32 port masks (mft.h). ComponentMask:
 * LID bit 0, Position bit 1, BlockNum bit 3. */
#define CS_SA_MFT_RECORD_SIZE 72
#define CS_SA_MFTR_LID (UINT64_C(1) << 0)
#define CS_SA_MFTR_POSITION (UINT64_C(1) << 1)
#define CS_SA_MFTR_BLOCK (UINT64_C(1) << 3)

/* SMInfoRecord (IBA 15.2.5.6): 25 bytes: LID (16 bits), reserved (16), then SMInfo (smp.h: GUID,
 * SM_Key, ActCount, Priority and SMState). ComponentMask: LID bit 0, GUID bit 2, Priority bit 5,
 * SMState bit 6 (the ones OpenSM matches). */
#define CS_SA_SM_INFO_RECORD_SIZE 25
#define CS_SA_SMIR_LID (UINT64_C(1) << 0)
#define CS_SA_SMIR_GUID (UINT64_C(1) << 2)
#define CS_SA_SMIR_PRIORITY (UINT64_C(1) << 5)
#define CS_SA_SMIR_STATE (UINT64_C(1) << 6)

/* ---- The SA of one sweep ----------------------------------------------------------------- */

/* OpenSM's default subnet_timeout, which is also its PathRecord PacketLifeTime. */
#define CS_SA_DEFAULT_SUBNET_TIMEOUT 18

/* The largest reply the SA builds, in bytes, unless cs_sa_options.max_reply says otherwise: a
 * GetTable that would be larger is answered NO_RESOURCES, after the SA filled this much (the
 * PathRecord table of every pair: one million 64-byte records, about 1 s of the SM's time;
 * docs/sm/sa.md "The table of every path"). */
#define CS_SA_DEFAULT_MAX_REPLY (UINT64_C(64) << 20)

struct cs_sa_options {
    uint64_t subnet_prefix; /* GID prefix of every port (SGID/DGID checks and answers) */
    /* A request whose SM_Key is non-zero and differs from this is dropped (IBA C15-0.1.5); one
     * that presents it is trusted and sees M_Keys in PortInfoRecords (zeroed otherwise). OpenSM
     * calls it sa_key (default 0x1, separate from its sm_key). */
    uint64_t sm_key;
    bool path_caching;      /* subnet_supports_sa_path_caching: the flag in every PathRecord */
    uint8_t subnet_timeout; /* PathRecord PacketLifeTime (0 on loopback paths), as OpenSM */
    /* [node] NodeInfo for the NodeRecords; NULL: sweep->node_info. Referenced like the sweep. */
    const struct cs_smp_node_info *node_info;
    /* The SL of each partition, by its index in the cs_partitions the set was resolved from
     * (cs_resolved_partition.config_index; a routing engine's cs_route_result.partition_sl),
     * num_partition_sl entries, referenced like the sweep. A PathRecord carries the SL of the
     * partition of its P_Key, and a request that asks for another SL finds no path. NULL: every
     * path SL 0, or the SL a request asks for. */
    const uint8_t *partition_sl;
    uint32_t num_partition_sl;
    /* OpenSM's QoS policy (qos_policy.h; the SM passes it with qos TRUE only, as OpenSM consults
     * it only then), referenced like the sweep. With one, a PathRecord's SL is the policy's for
     * its request and ports (the first rule that matches, else the default), whatever the
     * partition's SL; a request that asks for another SL finds no path, and a path whose reverse
     * direction would have another SL is not reversible (osm_sa_path_record.c). NULL: the
     * partitions' SLs. */
    const struct cs_qos_policy *qos_policy;
    /* Alias GUIDs (alias_guids.h): the SM's store, which SubnAdmSet/SubnAdmDelete of a
     * GUIDInfoRecord change and which GUIDInfoRecords and PathRecords read (a GID whose
     * interface id is an alias names the alias's port). Referenced, not copied: it must outlive
     * the db, and outlives many (each sweep builds a new db on it). NULL: no alias GUIDs (Set
     * and Delete are refused with 0x0008 like those of any other attribute, and ClassPortInfo
     * does not advertise IsAdditionalGUIDsSupported). */
    struct cs_alias_guids *aliases;
    /* The P_Key tables the ports hold as the SM last read and programmed them (cs_sm_read_pkeys,
     * cs_sm_program_pkeys) for this sweep's fabric, which P_KeyTableRecords show: a port whose
     * table is unknown or that has none has no records. Referenced like the sweep. NULL (or
     * made for another fabric): no P_KeyTableRecords. */
    const struct cs_sm_pkey_tables *pkey_tables;
    /* The SL2VL tables the SM read and programmed (cs_sm_program_sl2vl) for this sweep's fabric,
     * which SL2VLTableRecords show; referenced like the sweep. NULL (or made for another
     * fabric): no SL2VLTableRecords. */
    const struct cs_sm_sl2vl_tables *sl2vl_tables;
    /* Services (services.h): the SM's store, which SubnAdmSet/SubnAdmDelete of a ServiceRecord
     * change and ServiceRecord Gets read. Referenced like aliases: it outlives every db. NULL: no
     * services (Set and Delete refused with 0x0008, Get finds none). */
    struct cs_services *services;
    /* The clock service leases run on, in ms (NULL: cs_clock_ms). */
    double (*clock_ms)(void);
    /* Multicast groups (mcast.h): the SM's store, which SubnAdmSet/SubnAdmDelete of an
     * MCMemberRecord change (join, leave) and its Get/GetTable read. Referenced like aliases.
     * NULL: no multicast (MCMemberRecord requests get 0x000c like an unknown attribute). */
    struct cs_mcast_groups *mcast;
    /* The MFTs the groups' trees ask the switches to hold (the SM's, for the sweep's fabric):
     * what MFTRecords show. Referenced and read as it changes. NULL: MFTRecord requests get
     * 0x000c. */
    const struct cs_mfts *mfts;
    /* Event subscriptions (informs.h): the SM's store, which SubnAdmSet of an InformInfo
     * changes, InformInfoRecords read and notices queue Reports in. Referenced like aliases.
     * NULL: InformInfo and InformInfoRecord requests get 0x000c like an unknown attribute. */
    struct cs_informs *informs;
    /* The SM's identity (sm.h: GUID, priority, state, the pipe whose SMPs are its ActCount, the
     * other SMs it polled last), referenced and read at every request: the issuer of the
     * notices the SA makes (its port, found by the GUID, gives their IssuerLID), and what
     * SMInfoRecords show. NULL: SMInfoRecord requests get 0x000c, notices name GUID and LID 0. */
    const struct cs_sm_identity *sm;
    /* The largest reply in bytes (0: CS_SA_DEFAULT_MAX_REPLY; at least CS_SA_MAD_SIZE). */
    size_t max_reply;
};

struct cs_sa_db;
struct cs_services;

/* Index sweep (with its LIDs assigned), routed by lfts, with these partitions (NULL: everyone a
 * full member of the default partition, P_Key 0xffff, as OpenSM without partitions.conf; the
 * set must be resolved against sweep->fabric). NodeRecords carry the NodeInfo each node answered
 * (opt->node_info, else sweep->node_info: PartitionCap, Revision, LocalPortNum are in no other
 * place); without either those are 0 (LocalPortNum: the record's port on a CA). sweep and lfts are
 * referenced, not copied: they must outlive the db unchanged. Build a new db after every sweep or
 * re-route. */
int cs_sa_db_build(const struct cs_sm_sweep *sweep, const struct cs_lfts *lfts,
                   const struct cs_partition_set *partitions, const struct cs_sa_options *opt,
                   struct cs_sa_db **out, struct cs_error *err);
/* The LIDs of ports[0..count) changed in the sweep's fabric since the db was built (VFs taking
 * or giving up LIDs in a live VM operation): the db follows without a rebuild. -1 when it cannot
 * (a LID beyond those it was built for, or one a port not listed still owns): rebuild it. */
int cs_sa_db_ports_lids_changed(struct cs_sa_db *db, const uint32_t *ports, uint32_t count);

void cs_sa_db_free(struct cs_sa_db *db);

/* Bytes the largest reply can take (the PathRecord table of every pair, counting every alias GUID
 * the ports' GUIDCaps allow), capped at the db's max_reply: a buffer this large (at least
 * CS_SA_MAD_SIZE) never makes an answer fail for room. */
size_t cs_sa_response_bound(const struct cs_sa_db *db);

/* Answer one request MAD of req_len bytes that arrived from requester_lid (the LRH source LID;
 * 0 = a local caller, exempt from the partition checks). Returns 1 with the complete response in
 * resp[0..*resp_len) (resp_cap must be at least CS_SA_MAD_SIZE), or 0 when nothing is to be sent:
 * a response MAD, a method without a response (Send, Trap, TrapRepress), another class, an
 * unknown SM_Key, a requester LID the subnet does not have, fewer than 24 bytes.
 *
 * A single-MAD response is CS_SA_MAD_SIZE bytes, zero-padded. A GetTableResp is exactly
 * CS_SA_HEADER_SIZE + records * stride bytes, its RMPP header DATA, version 1, flags
 * ACTIVE|FIRST|LAST, segment 1, PayloadLength = 20 + records * stride: what a transport sends
 * as one RMPP transfer (the kernel's RMPP agent segments it and rewrites the RMPP header of each
 * segment). A GetTableResp that would not fit resp_cap is replaced by status NO_RESOURCES.
 * Errors: GetResp/GetTableResp/DeleteResp (Set answers as GetResp) carrying the request's bytes,
 * SM_Key 0, and the status: bad base or class version 0x0004, a method other than Get/GetTable
 * (and Set/Delete of a GUIDInfoRecord or a ServiceRecord with its store) 0x0008, an unknown
 * attribute 0x000c, a request shorter than the SA header 0x001c, an invalid MTU or rate under a
 * selector or a GID and a LID of different ports REQ_INVALID, a GetTable beyond max_reply
 * NO_RESOURCES. Get finding no record answers NO_RECORDS, more than one TOO_MANY_RECORDS. A Set or
 * Delete of a GUIDInfoRecord changes the db's alias store, of a ServiceRecord its service store
 * (the db is const, the stores it points to are not), and answers one record (src/sa/sa_alias.c,
 * src/sa/sa_service.c; docs/sm/sa.md "Alias GUIDs", "Services"). A P_KeyTableRecord request
 * without the SM_Key is refused with REQ_INVALID. req and resp may be the same buffer. */
int cs_sa_answer(const struct cs_sa_db *db, uint16_t requester_lid, const uint8_t *req,
                 size_t req_len, uint8_t *resp, size_t resp_cap, size_t *resp_len);
/* cs_sa_answer for a request that came from `from` (NULL or LID 0: a local caller): what a
 * Set(InformInfo) keeps as the subscription's report address. cs_sa_answer is this with QP1. */
int cs_sa_answer_from(const struct cs_sa_db *db, const struct cs_sa_address *from,
                      const uint8_t *req, size_t req_len, uint8_t *resp, size_t resp_cap,
                      size_t *resp_len);

struct cs_notice;
/* Match a notice against opt.informs's subscriptions (OpenSM 3.3.23's rules, src/sa/sa_inform.c)
 * and queue a Report in the store's outbox for every subscriber it passes the filters of and
 * that may see the port (or group) it is about; subscriptions by LID range whose subscriber may
 * not are removed (IBA o13-17.1.2). Returns the Reports queued, or -1 with err when out of
 * memory. */
int cs_sa_report_notice(const struct cs_sa_db *db, const struct cs_notice *n, struct cs_error *err);
/* Trap 64 (GID in service) or 65 (GID out of service) about the end port port_guid, issued by
 * the SM (opt.sm: its port's GUID and LID) and reported as cs_sa_report_notice does. */
int cs_sa_report_port_trap(const struct cs_sa_db *db, uint16_t trap, uint64_t port_guid,
                           struct cs_error *err);
/* A trap a port sent the SM (the Notice its SMP carried, IssuerGID unset), forwarded as OpenSM
 * forwards traps: IssuerGID becomes the GID of the port that owns IssuerLID (none: not
 * reported), traps 129 to 131 (a port's error counters) are not reported, and the rest goes to
 * cs_sa_report_notice. */
int cs_sa_report_trap(const struct cs_sa_db *db, struct cs_notice *n, struct cs_error *err);

#endif
