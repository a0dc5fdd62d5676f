/* Subnet management packets (SMPs): the 256-byte MADs a subnet manager sends, and the attributes
 * it reads and writes, encoded to and decoded from wire order.
 *
 * Pure data conversion: no I/O, no allocation. Layouts follow the InfiniBand Architecture
 * Specification (IBA) volume 1, 14.2.1.1 (LID-routed SMP), 14.2.1.2 (directed-route SMP) and
 * 14.2.5 (attributes). Every multi-byte field is big-endian on the wire. Attribute fields are
 * addressed as the IBA tables give them: a bit offset from the start of the attribute, bit 0 being
 * the most significant bit of byte 0, and a width in bits (cs_bits_get/cs_bits_set).
 *
 * Encoders write every defined field and zero every reserved bit; decoders read every defined
 * field. So decode(encode(x)) == x for any struct whose values fit their field widths (wider
 * values are truncated to the field), and encode(decode(b)) == b for any buffer whose reserved
 * bits are zero. docs/sm/mad.md describes the layouts and the captured test vectors.
 */
#ifndef CLOUDSM_SMP_H
#define CLOUDSM_SMP_H

#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/fabric.h"

#define CS_SMP_SIZE 256     /* every SMP is exactly one 256-byte MAD */
#define CS_SMP_DATA_SIZE 64 /* the attribute area, bytes 64..127 */
#define CS_SMP_PATH_SIZE 64 /* initial and return path, one byte per hop */
#define CS_SMP_MAX_HOPS 63  /* path[0] is unused, so 63 hops fit in 64 bytes */

/* Management classes (IBA 13.4.4). */
#define CS_SMP_CLASS_LID_ROUTED 0x01
#define CS_SMP_CLASS_DIRECTED_ROUTE 0x81

#define CS_SMP_BASE_VERSION 1
#define CS_SMP_CLASS_VERSION 1

/* Methods (IBA 13.4.5, 14.2.2). */
#define CS_SMP_METHOD_GET 0x01
#define CS_SMP_METHOD_SET 0x02
#define CS_SMP_METHOD_GET_RESP 0x81
#define CS_SMP_METHOD_TRAP 0x05
#define CS_SMP_METHOD_TRAP_REPRESS 0x07

/* Status (IBA 13.4.7). In a directed-route SMP the top bit is the D (direction) bit: set on the
 * way back from the destination; the code itself is the low 15 bits. */
#define CS_SMP_STATUS_DIRECTION 0x8000u
#define CS_SMP_STATUS_CODE_MASK 0x7fffu
#define CS_SMP_STATUS_BUSY 0x0001u
#define CS_SMP_STATUS_REDIRECT 0x0002u
#define CS_SMP_STATUS_BAD_VERSION 0x0004u
#define CS_SMP_STATUS_METHOD_UNSUPPORTED 0x0008u
#define CS_SMP_STATUS_ATTR_UNSUPPORTED 0x000cu
#define CS_SMP_STATUS_INVALID_FIELD 0x001cu

/* The permissive LID: DR SLID/DLID of a purely directed-route SMP (IBA 14.2.2.1). */
#define CS_SMP_PERMISSIVE_LID 0xffffu

/* Attribute ids (IBA 14.2.5, Table 145). */
#define CS_SMP_ATTR_NOTICE 0x0002
#define CS_SMP_ATTR_NODE_DESCRIPTION 0x0010
#define CS_SMP_ATTR_NODE_INFO 0x0011
#define CS_SMP_ATTR_SWITCH_INFO 0x0012
#define CS_SMP_ATTR_GUID_INFO 0x0014
#define CS_SMP_ATTR_PORT_INFO 0x0015
#define CS_SMP_ATTR_PKEY_TABLE 0x0016
#define CS_SMP_ATTR_SL2VL_TABLE 0x0017
#define CS_SMP_ATTR_VL_ARBITRATION 0x0018 /* modifier: block (1..4) << 16 | port (vlarb.h) */
#define CS_SMP_ATTR_LINEAR_FT 0x0019
#define CS_SMP_ATTR_MCAST_FT 0x001B /* modifier: position << 28 | block (mft.h) */
#define CS_SMP_ATTR_SM_INFO 0x0020

/* Entries per table block: the attribute modifier selects the block. */
#define CS_LFT_PORTS_PER_BLOCK 64
#define CS_PKEYS_PER_BLOCK 32
#define CS_GUIDS_PER_BLOCK 8
#define CS_SL2VL_ENTRIES 16
#define CS_VLARB_ENTRIES 32 /* per VLArbitration block */

/* Read a big-endian bit range of 1..64 bits starting bit_offset bits after the most significant
 * bit of buf[0]. The one field accessor every attribute uses. */
uint64_t cs_bits_get(const uint8_t *buf, unsigned bit_offset, unsigned bit_count);
/* Write the low bit_count bits of value into that range, leaving all other bits unchanged. */
void cs_bits_set(uint8_t *buf, unsigned bit_offset, unsigned bit_count, uint64_t value);

/* The common MAD header (IBA 13.4.2), bytes 0..23 of every MAD: SMPs and GMPs (the SA) alike.
 * class_specific is bytes 6..7: a directed-route SMP's hop pointer and hop count. */
#define CS_MAD_HEADER_SIZE 24
struct cs_mad_header {
    uint8_t base_version;
    uint8_t mgmt_class;
    uint8_t class_version;
    uint8_t method;
    uint16_t status;
    uint16_t class_specific;
    uint64_t transaction_id;
    uint16_t attr_id;
    uint32_t attr_mod;
};
/* Write bytes 0..23 (reserved bytes 18..19 zeroed); read them back. */
void cs_mad_header_encode(const struct cs_mad_header *h, uint8_t out[CS_MAD_HEADER_SIZE]);
void cs_mad_header_decode(const uint8_t in[CS_MAD_HEADER_SIZE], struct cs_mad_header *h);

/* One SMP. The same struct serves both routings: in a LID-routed SMP (mgmt_class 0x01), bytes
 * 6..7 (hop pointer/count), 32..35 (DR SLID/DLID) and 128..255 (paths) are reserved; they are
 * still carried through so that decode/encode is exact. */
struct cs_smp {
    uint8_t base_version;
    uint8_t mgmt_class;
    uint8_t class_version;
    uint8_t method; /* including the response bit 0x80 */
    uint16_t status;
    uint8_t hop_pointer;
    uint8_t hop_count;
    uint64_t transaction_id;
    uint16_t attr_id;
    uint32_t attr_mod;
    uint64_t m_key;
    uint16_t dr_slid;
    uint16_t dr_dlid;
    uint8_t data[CS_SMP_DATA_SIZE];
    uint8_t initial_path[CS_SMP_PATH_SIZE]; /* [1..hop_count]: output port at each hop */
    uint8_t return_path[CS_SMP_PATH_SIZE];  /* filled by the switches on the way out */
};

void cs_smp_encode(const struct cs_smp *smp, uint8_t wire[CS_SMP_SIZE]);
void cs_smp_decode(const uint8_t wire[CS_SMP_SIZE], struct cs_smp *smp);

/* A directed-route request from the SM port: path[1..hop_count] are the output ports at each hop
 * (path[0] is ignored, as in the IBA). hop_count 0 addresses the local node. Permissive DR
 * SLID/DLID, hop pointer 0, data zeroed (fill smp->data for a Set). Fails when hop_count exceeds
 * CS_SMP_MAX_HOPS or path[1..hop_count] holds port 0 (port 0 is never an output port on a path:
 * a switch forwards only to external ports 1..254, IBA 14.2.2.2). */
int cs_smp_init_directed(struct cs_smp *smp, uint8_t method, uint16_t attr_id, uint32_t attr_mod,
                         const uint8_t *path, unsigned hop_count, uint64_t transaction_id,
                         struct cs_error *err);
/* A LID-routed request (the destination LID goes in the transport header, not in the SMP). */
void cs_smp_init_lid_routed(struct cs_smp *smp, uint8_t method, uint16_t attr_id, uint32_t attr_mod,
                            uint64_t transaction_id);

/* NodeInfo (0x0011), IBA 14.2.5.3. */
#define CS_SMP_NODE_TYPE_CA 1
#define CS_SMP_NODE_TYPE_SWITCH 2
#define CS_SMP_NODE_TYPE_ROUTER 3
struct cs_smp_node_info {
    uint8_t base_version;
    uint8_t class_version;
    uint8_t node_type;
    uint8_t num_ports;
    uint64_t system_image_guid;
    uint64_t node_guid;
    uint64_t port_guid;
    uint16_t partition_cap;
    uint16_t device_id;
    uint32_t revision;
    uint8_t local_port_num;
    uint32_t vendor_id; /* 24 bits */
};

/* NodeDescription (0x0010), IBA 14.2.5.2: 64 bytes of UTF-8, NUL-padded. Decode takes the bytes
 * before the first NUL (all 64 if there is none) and always NUL-terminates text; encode writes
 * text up to its first NUL and zero-pads. */
struct cs_smp_node_description {
    char text[CS_SMP_DATA_SIZE + 1];
};

/* SwitchInfo (0x0012), IBA 14.2.5.4. */
struct cs_smp_switch_info {
    uint16_t linear_fdb_cap;
    uint16_t random_fdb_cap;
    uint16_t multicast_fdb_cap;
    uint16_t linear_fdb_top;
    uint8_t default_port;
    uint8_t default_multicast_primary_port;
    uint8_t default_multicast_not_primary_port;
    uint8_t life_time_value;   /* 5 bits */
    uint8_t port_state_change; /* 1 bit; write 1 to clear */
    uint8_t optimized_sl2vl;   /* 2 bits */
    uint16_t lids_per_port;
    uint16_t partition_enforcement_cap;
    uint8_t inbound_enforcement_cap;  /* 1 bit */
    uint8_t outbound_enforcement_cap; /* 1 bit */
    uint8_t filter_raw_inbound_cap;   /* 1 bit */
    uint8_t filter_raw_outbound_cap;  /* 1 bit */
    uint8_t enhanced_port0;           /* 1 bit */
    uint16_t multicast_fdb_top;
};

/* PortInfo (0x0015), IBA 14.2.5.6; attribute modifier = port number. */
#define CS_SMP_PORT_STATE_NO_CHANGE 0
#define CS_SMP_PORT_STATE_DOWN 1
#define CS_SMP_PORT_STATE_INIT 2
#define CS_SMP_PORT_STATE_ARMED 3
#define CS_SMP_PORT_STATE_ACTIVE 4
#define CS_SMP_PORT_PHYS_LINK_UP 5
#define CS_SMP_PORT_CAP_IS_SM 0x00000002u
#define CS_SMP_PORT_CAP_CLIENT_REREG 0x02000000u /* IsClientReregistrationSupported */
struct cs_smp_port_info {
    uint64_t m_key;
    uint64_t subnet_prefix;
    uint16_t lid;
    uint16_t master_sm_lid;
    uint32_t capability_mask;
    uint16_t diag_code;
    uint16_t m_key_lease_period;
    uint8_t local_port_num;
    uint8_t link_width_enabled;
    uint8_t link_width_supported;
    uint8_t link_width_active;
    uint8_t link_speed_supported;    /* 4 bits */
    uint8_t port_state;              /* 4 bits */
    uint8_t port_physical_state;     /* 4 bits */
    uint8_t link_down_default_state; /* 4 bits */
    uint8_t m_key_protect_bits;      /* 2 bits */
    uint8_t lmc;                     /* 3 bits */
    uint8_t link_speed_active;       /* 4 bits */
    uint8_t link_speed_enabled;      /* 4 bits */
    uint8_t neighbor_mtu;            /* 4 bits */
    uint8_t master_sm_sl;            /* 4 bits */
    uint8_t vl_cap;                  /* 4 bits */
    uint8_t init_type;               /* 4 bits */
    uint8_t vl_high_limit;
    uint8_t vl_arbitration_high_cap;
    uint8_t vl_arbitration_low_cap;
    uint8_t init_type_reply;                /* 4 bits */
    uint8_t mtu_cap;                        /* 4 bits */
    uint8_t vl_stall_count;                 /* 3 bits */
    uint8_t hoq_life;                       /* 5 bits */
    uint8_t operational_vls;                /* 4 bits */
    uint8_t partition_enforcement_inbound;  /* 1 bit */
    uint8_t partition_enforcement_outbound; /* 1 bit */
    uint8_t filter_raw_inbound;             /* 1 bit */
    uint8_t filter_raw_outbound;            /* 1 bit */
    uint16_t m_key_violations;
    uint16_t p_key_violations;
    uint16_t q_key_violations;
    uint8_t guid_cap;
    uint8_t client_reregister;               /* 1 bit */
    uint8_t multicast_pkey_trap_suppression; /* 2 bits */
    uint8_t subnet_timeout;                  /* 5 bits */
    uint8_t resp_time_value;                 /* 5 bits */
    uint8_t local_phy_errors;                /* 4 bits */
    uint8_t overrun_errors;                  /* 4 bits */
    uint16_t max_credit_hint;
    uint32_t link_round_trip_latency; /* 24 bits */
    uint16_t capability_mask2;
    uint8_t link_speed_ext_active;    /* 4 bits */
    uint8_t link_speed_ext_supported; /* 4 bits */
    uint8_t link_speed_ext_enabled;   /* 5 bits */
};

/* LinearForwardingTable (0x0019), IBA 14.2.5.10: block b = attribute modifier holds the output
 * ports of LIDs 64b..64b+63. */
struct cs_smp_lft_block {
    uint8_t port[CS_LFT_PORTS_PER_BLOCK];
};

/* P_KeyTable (0x0016), IBA 14.2.5.7: modifier = block (low 16 bits) and, on a switch, the port
 * number (bits 16..23). */
struct cs_smp_pkey_block {
    uint16_t pkey[CS_PKEYS_PER_BLOCK];
};

/* SLtoVLMappingTable (0x0017), IBA 14.2.5.8: the VL (4 bits) of each SL. */
struct cs_smp_sl2vl {
    uint8_t vl[CS_SL2VL_ENTRIES];
};

/* VLArbitrationTable (0x0018), IBA 14.2.5.9: one block of 32 entries, each a VL (4 bits) and
 * its weight (8 bits). */
struct cs_smp_vlarb {
    uint8_t vl[CS_VLARB_ENTRIES];
    uint8_t weight[CS_VLARB_ENTRIES];
};

/* GUIDInfo (0x0014), IBA 14.2.5.5: modifier = block of 8 GUIDs. */
struct cs_smp_guid_block {
    uint64_t guid[CS_GUIDS_PER_BLOCK];
};

/* SMInfo (0x0020), IBA 14.4.1. */
#define CS_SMP_SM_STATE_NOT_ACTIVE 0
#define CS_SMP_SM_STATE_DISCOVERING 1
#define CS_SMP_SM_STATE_STANDBY 2
#define CS_SMP_SM_STATE_MASTER 3
/* SubnSet(SMInfo) AttributeModifier: the control one SM sends another (IBA 14.4.1, SMInfo's
 * AttributeModifier; the transitions each makes are in include/cloudsm/sm.h). */
#define CS_SMP_SM_HANDOVER 1    /* master -> the SM it hands mastership to */
#define CS_SMP_SM_ACKNOWLEDGE 2 /* the SM that took a HANDOVER -> the old master */
#define CS_SMP_SM_DISABLE 3     /* master -> a standby: become NOT-ACTIVE */
#define CS_SMP_SM_STANDBY 4     /* master -> a not-active SM: become STANDBY */
#define CS_SMP_SM_DISCOVER 5    /* master -> a standby: become DISCOVERING */
struct cs_smp_sm_info {
    uint64_t guid;
    uint64_t sm_key;
    uint32_t act_count;
    uint8_t priority; /* 4 bits */
    uint8_t sm_state; /* 4 bits */
};

/* Attribute data area (64 bytes) <-> struct. Encoders zero the whole area first. */
void cs_smp_node_info_encode(const struct cs_smp_node_info *in, uint8_t data[CS_SMP_DATA_SIZE]);
void cs_smp_node_info_decode(const uint8_t data[CS_SMP_DATA_SIZE], struct cs_smp_node_info *out);
void cs_smp_node_description_encode(const struct cs_smp_node_description *in,
                                    uint8_t data[CS_SMP_DATA_SIZE]);
void cs_smp_node_description_decode(const uint8_t data[CS_SMP_DATA_SIZE],
                                    struct cs_smp_node_description *out);
void cs_smp_switch_info_encode(const struct cs_smp_switch_info *in, uint8_t data[CS_SMP_DATA_SIZE]);
void cs_smp_switch_info_decode(const uint8_t data[CS_SMP_DATA_SIZE],
                               struct cs_smp_switch_info *out);
void cs_smp_port_info_encode(const struct cs_smp_port_info *in, uint8_t data[CS_SMP_DATA_SIZE]);
void cs_smp_port_info_decode(const uint8_t data[CS_SMP_DATA_SIZE], struct cs_smp_port_info *out);
void cs_smp_lft_block_encode(const struct cs_smp_lft_block *in, uint8_t data[CS_SMP_DATA_SIZE]);
void cs_smp_lft_block_decode(const uint8_t data[CS_SMP_DATA_SIZE], struct cs_smp_lft_block *out);
void cs_smp_pkey_block_encode(const struct cs_smp_pkey_block *in, uint8_t data[CS_SMP_DATA_SIZE]);
void cs_smp_pkey_block_decode(const uint8_t data[CS_SMP_DATA_SIZE], struct cs_smp_pkey_block *out);
void cs_smp_sl2vl_encode(const struct cs_smp_sl2vl *in, uint8_t data[CS_SMP_DATA_SIZE]);
void cs_smp_sl2vl_decode(const uint8_t data[CS_SMP_DATA_SIZE], struct cs_smp_sl2vl *out);
void cs_smp_vlarb_encode(const struct cs_smp_vlarb *in, uint8_t data[CS_SMP_DATA_SIZE]);
void cs_smp_vlarb_decode(const uint8_t data[CS_SMP_DATA_SIZE], struct cs_smp_vlarb *out);
void cs_smp_guid_block_encode(const struct cs_smp_guid_block *in, uint8_t data[CS_SMP_DATA_SIZE]);
void cs_smp_guid_block_decode(const uint8_t data[CS_SMP_DATA_SIZE], struct cs_smp_guid_block *out);
void cs_smp_sm_info_encode(const struct cs_smp_sm_info *in, uint8_t data[CS_SMP_DATA_SIZE]);
void cs_smp_sm_info_decode(const uint8_t data[CS_SMP_DATA_SIZE], struct cs_smp_sm_info *out);

/* PortInfo link rate fields <-> the fabric model's lane count and enum cs_link_speed
 * (src/sm/smp_rate.c). LinkWidthActive is a one-bit code: 1 = 1x, 2 = 4x, 4 = 8x, 8 = 12x,
 * 16 = 2x. LinkSpeedActive: 1 = SDR, 2 = DDR, 4 = QDR; when LinkSpeedExtActive is non-zero it
 * gives the speed instead: 1 = FDR, 2 = EDR, 4 = HDR, 8 = NDR (and LinkSpeedActive then reads
 * QDR, as real FDR/EDR ports report it). FDR10 (a vendor extension) is written as QDR and XDR
 * (not in these fields) as unknown, so both read back differently. Unknown codes read as 0 /
 * CS_SPEED_UNKNOWN. */
uint8_t cs_smp_width_from_active(uint8_t link_width_active);
uint8_t cs_smp_width_to_active(uint8_t width);
enum cs_link_speed cs_smp_speed_from_active(uint8_t link_speed_active,
                                            uint8_t link_speed_ext_active);
void cs_smp_speed_to_active(enum cs_link_speed speed, uint8_t *link_speed_active,
                            uint8_t *link_speed_ext_active);

#endif
