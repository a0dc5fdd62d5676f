/* SA MAD header and record encode/decode (include/cloudsm/sa.h). The attributes embedded in the
 * records (NodeInfo, NodeDescription, PortInfo, GUIDInfo) go through smp.h's own encoders, so
 * that one table per attribute describes its layout. */
#include <string.h>

#include "cloudsm/sa.h"

/* Byte offsets after the common MAD header (cs_mad_header_encode, IBA 13.4.2): the RMPP header
 * (13.6.2.1) and the SA header (15.2.1.1). Bytes 46..47 are reserved. */
enum {
    OFF_RMPP_VERSION = 24,
    OFF_RMPP_TYPE = 25,
    OFF_RMPP_TIME_FLAGS = 26, /* RRespTime (5 bits) then RMPPFlags (3 bits) */
    OFF_RMPP_STATUS = 27,
    OFF_RMPP_SEGMENT = 28,
    OFF_RMPP_PAYLOAD = 32,
    OFF_SM_KEY = 36,
    OFF_ATTR_OFFSET = 44,
    OFF_COMPONENT_MASK = 48,
};

void cs_sa_mad_encode(const struct cs_sa_header *h, const void *record, size_t size,
                      uint8_t out[CS_SA_MAD_SIZE])
{
    struct cs_sa_header full = *h;
    full.base_version = CS_SA_BASE_VERSION;
    full.mgmt_class = CS_SA_CLASS;
    full.class_version = CS_SA_CLASS_VERSION;
    memset(out, 0, CS_SA_MAD_SIZE);
    cs_sa_header_encode(&full, out);
    if (record)
        memcpy(out + CS_SA_HEADER_SIZE, record, size < CS_SA_DATA_SIZE ? size : CS_SA_DATA_SIZE);
}

void cs_sa_header_encode(const struct cs_sa_header *in, uint8_t out[CS_SA_HEADER_SIZE])
{
    memset(out, 0, CS_SA_HEADER_SIZE);
    struct cs_mad_header h = {
        .base_version = in->base_version,
        .mgmt_class = in->mgmt_class,
        .class_version = in->class_version,
        .method = in->method,
        .status = in->status,
        .class_specific = in->class_specific,
        .transaction_id = in->transaction_id,
        .attr_id = in->attr_id,
        .attr_mod = in->attr_mod,
    };
    cs_mad_header_encode(&h, out);
    out[OFF_RMPP_VERSION] = in->rmpp_version;
    out[OFF_RMPP_TYPE] = in->rmpp_type;
    cs_bits_set(out, OFF_RMPP_TIME_FLAGS * 8, 5, in->rmpp_resp_time);
    cs_bits_set(out, OFF_RMPP_TIME_FLAGS * 8 + 5, 3, in->rmpp_flags);
    out[OFF_RMPP_STATUS] = in->rmpp_status;
    cs_bits_set(out, OFF_RMPP_SEGMENT * 8, 32, in->rmpp_segment);
    cs_bits_set(out, OFF_RMPP_PAYLOAD * 8, 32, in->rmpp_payload_length);
    cs_bits_set(out, OFF_SM_KEY * 8, 64, in->sm_key);
    cs_bits_set(out, OFF_ATTR_OFFSET * 8, 16, in->attr_offset);
    cs_bits_set(out, OFF_COMPONENT_MASK * 8, 64, in->component_mask);
}

void cs_sa_header_decode(const uint8_t in[CS_SA_HEADER_SIZE], struct cs_sa_header *out)
{
    memset(out, 0, sizeof *out);
    struct cs_mad_header h;
    cs_mad_header_decode(in, &h);
    out->base_version = h.base_version;
    out->mgmt_class = h.mgmt_class;
    out->class_version = h.class_version;
    out->method = h.method;
    out->status = h.status;
    out->class_specific = h.class_specific;
    out->transaction_id = h.transaction_id;
    out->attr_id = h.attr_id;
    out->attr_mod = h.attr_mod;
    out->rmpp_version = in[OFF_RMPP_VERSION];
    out->rmpp_type = in[OFF_RMPP_TYPE];
    out->rmpp_resp_time = (uint8_t)cs_bits_get(in, OFF_RMPP_TIME_FLAGS * 8, 5);
    out->rmpp_flags = (uint8_t)cs_bits_get(in, OFF_RMPP_TIME_FLAGS * 8 + 5, 3);
    out->rmpp_status = in[OFF_RMPP_STATUS];
    out->rmpp_segment = (uint32_t)cs_bits_get(in, OFF_RMPP_SEGMENT * 8, 32);
    out->rmpp_payload_length = (uint32_t)cs_bits_get(in, OFF_RMPP_PAYLOAD * 8, 32);
    out->sm_key = cs_bits_get(in, OFF_SM_KEY * 8, 64);
    out->attr_offset = (uint16_t)cs_bits_get(in, OFF_ATTR_OFFSET * 8, 16);
    out->component_mask = cs_bits_get(in, OFF_COMPONENT_MASK * 8, 64);
}

/* ---- NodeRecord: LID, reserved 16 bits, NodeInfo (40 bytes), NodeDescription (64 bytes) ---- */

enum { NODE_RECORD_NODE_INFO = 4, NODE_INFO_SIZE = 40, NODE_RECORD_DESCRIPTION = 44 };

void cs_sa_node_record_encode(const struct cs_sa_node_record *in,
                              uint8_t out[CS_SA_NODE_RECORD_SIZE])
{
    uint8_t attribute[CS_SMP_DATA_SIZE];
    memset(out, 0, CS_SA_NODE_RECORD_SIZE);
    cs_bits_set(out, 0, 16, in->lid);
    cs_smp_node_info_encode(&in->node_info, attribute);
    memcpy(out + NODE_RECORD_NODE_INFO, attribute, NODE_INFO_SIZE);
    cs_smp_node_description_encode(&in->node_description, attribute);
    memcpy(out + NODE_RECORD_DESCRIPTION, attribute, CS_SMP_DATA_SIZE);
}

void cs_sa_node_record_decode(const uint8_t in[CS_SA_NODE_RECORD_SIZE],
                              struct cs_sa_node_record *out)
{
    uint8_t attribute[CS_SMP_DATA_SIZE] = {0};
    out->lid = (uint16_t)cs_bits_get(in, 0, 16);
    memcpy(attribute, in + NODE_RECORD_NODE_INFO, NODE_INFO_SIZE);
    cs_smp_node_info_decode(attribute, &out->node_info);
    cs_smp_node_description_decode(in + NODE_RECORD_DESCRIPTION, &out->node_description);
}

/* ---- PortInfoRecord: EndportLID, PortNum, Options, PortInfo (64 bytes) ---- */

enum { PORT_INFO_RECORD_PORT_INFO = 4 };

void cs_sa_port_info_record_encode(const struct cs_sa_port_info_record *in,
                                   uint8_t out[CS_SA_PORT_INFO_RECORD_SIZE])
{
    cs_bits_set(out, 0, 16, in->lid);
    out[2] = in->port_num;
    out[3] = in->options;
    cs_smp_port_info_encode(&in->port_info, out + PORT_INFO_RECORD_PORT_INFO);
}

void cs_sa_port_info_record_decode(const uint8_t in[CS_SA_PORT_INFO_RECORD_SIZE],
                                   struct cs_sa_port_info_record *out)
{
    out->lid = (uint16_t)cs_bits_get(in, 0, 16);
    out->port_num = in[2];
    out->options = in[3];
    cs_smp_port_info_decode(in + PORT_INFO_RECORD_PORT_INFO, &out->port_info);
}

/* ---- LinkRecord: FromLID, FromPort, ToPort, ToLID ---- */

void cs_sa_link_record_encode(const struct cs_sa_link_record *in,
                              uint8_t out[CS_SA_LINK_RECORD_SIZE])
{
    cs_bits_set(out, 0, 16, in->from_lid);
    out[2] = in->from_port;
    out[3] = in->to_port;
    cs_bits_set(out, 32, 16, in->to_lid);
}

void cs_sa_link_record_decode(const uint8_t in[CS_SA_LINK_RECORD_SIZE],
                              struct cs_sa_link_record *out)
{
    out->from_lid = (uint16_t)cs_bits_get(in, 0, 16);
    out->from_port = in[2];
    out->to_port = in[3];
    out->to_lid = (uint16_t)cs_bits_get(in, 32, 16);
}

/* ---- GUIDInfoRecord: LID, BlockNum, 8 + 32 reserved bits, GUIDInfo (64 bytes) ---- */

enum { GUID_INFO_RECORD_GUIDS = 8 };

void cs_sa_guid_info_record_encode(const struct cs_sa_guid_info_record *in,
                                   uint8_t out[CS_SA_GUID_INFO_RECORD_SIZE])
{
    memset(out, 0, GUID_INFO_RECORD_GUIDS);
    cs_bits_set(out, 0, 16, in->lid);
    out[2] = in->block;
    cs_smp_guid_block_encode(&in->guids, out + GUID_INFO_RECORD_GUIDS);
}

void cs_sa_guid_info_record_decode(const uint8_t in[CS_SA_GUID_INFO_RECORD_SIZE],
                                   struct cs_sa_guid_info_record *out)
{
    out->lid = (uint16_t)cs_bits_get(in, 0, 16);
    out->block = in[2];
    cs_smp_guid_block_decode(in + GUID_INFO_RECORD_GUIDS, &out->guids);
}

/* ---- PathRecord (bit offsets of IBA Table 209, 1.2.1 layout) ---- */

void cs_sa_path_record_encode(const struct cs_sa_path_record *in,
                              uint8_t out[CS_SA_PATH_RECORD_SIZE])
{
    memset(out, 0, CS_SA_PATH_RECORD_SIZE);
    cs_bits_set(out, 0, 64, in->service_id);
    memcpy(out + 8, in->dgid, 16);
    memcpy(out + 24, in->sgid, 16);
    cs_bits_set(out, 320, 16, in->dlid);
    cs_bits_set(out, 336, 16, in->slid);
    cs_bits_set(out, 352, 1, in->raw_traffic);
    cs_bits_set(out, 353, 3, in->reserved_353);
    cs_bits_set(out, 356, 20, in->flow_label);
    cs_bits_set(out, 376, 8, in->hop_limit);
    cs_bits_set(out, 384, 8, in->traffic_class);
    cs_bits_set(out, 392, 1, in->reversible);
    cs_bits_set(out, 393, 7, in->numb_path);
    cs_bits_set(out, 400, 16, in->pkey);
    cs_bits_set(out, 416, 12, in->qos_class);
    cs_bits_set(out, 428, 4, in->sl);
    cs_bits_set(out, 432, 2, in->mtu_selector);
    cs_bits_set(out, 434, 6, in->mtu);
    cs_bits_set(out, 440, 2, in->rate_selector);
    cs_bits_set(out, 442, 6, in->rate);
    cs_bits_set(out, 448, 2, in->packet_life_selector);
    cs_bits_set(out, 450, 6, in->packet_life);
    cs_bits_set(out, 456, 8, in->preference);
}

void cs_sa_path_record_decode(const uint8_t in[CS_SA_PATH_RECORD_SIZE],
                              struct cs_sa_path_record *out)
{
    memset(out, 0, sizeof *out);
    out->service_id = cs_bits_get(in, 0, 64);
    memcpy(out->dgid, in + 8, 16);
    memcpy(out->sgid, in + 24, 16);
    out->dlid = (uint16_t)cs_bits_get(in, 320, 16);
    out->slid = (uint16_t)cs_bits_get(in, 336, 16);
    out->raw_traffic = (uint8_t)cs_bits_get(in, 352, 1);
    out->reserved_353 = (uint8_t)cs_bits_get(in, 353, 3);
    out->flow_label = (uint32_t)cs_bits_get(in, 356, 20);
    out->hop_limit = (uint8_t)cs_bits_get(in, 376, 8);
    out->traffic_class = (uint8_t)cs_bits_get(in, 384, 8);
    out->reversible = (uint8_t)cs_bits_get(in, 392, 1);
    out->numb_path = (uint8_t)cs_bits_get(in, 393, 7);
    out->pkey = (uint16_t)cs_bits_get(in, 400, 16);
    out->qos_class = (uint16_t)cs_bits_get(in, 416, 12);
    out->sl = (uint8_t)cs_bits_get(in, 428, 4);
    out->mtu_selector = (uint8_t)cs_bits_get(in, 432, 2);
    out->mtu = (uint8_t)cs_bits_get(in, 434, 6);
    out->rate_selector = (uint8_t)cs_bits_get(in, 440, 2);
    out->rate = (uint8_t)cs_bits_get(in, 442, 6);
    out->packet_life_selector = (uint8_t)cs_bits_get(in, 448, 2);
    out->packet_life = (uint8_t)cs_bits_get(in, 450, 6);
    out->preference = (uint8_t)cs_bits_get(in, 456, 8);
}

/* ---- SwitchInfoRecord: LID, 16 reserved bits, SwitchInfo's first 20 bytes ---- */

enum { SWITCH_INFO_RECORD_INFO = 4 };

void cs_sa_switch_info_record_encode(const struct cs_sa_switch_info_record *in,
                                     uint8_t out[CS_SA_SWITCH_INFO_RECORD_SIZE])
{
    uint8_t attribute[CS_SMP_DATA_SIZE];
    memset(out, 0, CS_SA_SWITCH_INFO_RECORD_SIZE);
    cs_bits_set(out, 0, 16, in->lid);
    cs_smp_switch_info_encode(&in->switch_info, attribute);
    memcpy(out + SWITCH_INFO_RECORD_INFO, attribute,
           CS_SA_SWITCH_INFO_RECORD_SIZE - SWITCH_INFO_RECORD_INFO);
}

void cs_sa_switch_info_record_decode(const uint8_t in[CS_SA_SWITCH_INFO_RECORD_SIZE],
                                     struct cs_sa_switch_info_record *out)
{
    uint8_t attribute[CS_SMP_DATA_SIZE] = {0};
    out->lid = (uint16_t)cs_bits_get(in, 0, 16);
    memcpy(attribute, in + SWITCH_INFO_RECORD_INFO,
           CS_SA_SWITCH_INFO_RECORD_SIZE - SWITCH_INFO_RECORD_INFO);
    cs_smp_switch_info_decode(attribute, &out->switch_info);
}

/* ---- LFTRecord: LID, BlockNum, 32 reserved bits, 64 ports ---- */

enum { LFT_RECORD_BLOCK = 8 };

void cs_sa_lft_record_encode(const struct cs_sa_lft_record *in, uint8_t out[CS_SA_LFT_RECORD_SIZE])
{
    memset(out, 0, LFT_RECORD_BLOCK);
    cs_bits_set(out, 0, 16, in->lid);
    cs_bits_set(out, 16, 16, in->block);
    cs_smp_lft_block_encode(&in->lft, out + LFT_RECORD_BLOCK);
}

void cs_sa_lft_record_decode(const uint8_t in[CS_SA_LFT_RECORD_SIZE], struct cs_sa_lft_record *out)
{
    out->lid = (uint16_t)cs_bits_get(in, 0, 16);
    out->block = (uint16_t)cs_bits_get(in, 16, 16);
    cs_smp_lft_block_decode(in + LFT_RECORD_BLOCK, &out->lft);
}

/* ---- SL2VLTableRecord: LID, InputPortNum, OutputPortNum, 32 reserved bits, 16 VLs ---- */

enum { SL2VL_RECORD_TABLE = 8 };

void cs_sa_sl2vl_record_encode(const struct cs_sa_sl2vl_record *in,
                               uint8_t out[CS_SA_SL2VL_RECORD_SIZE])
{
    uint8_t attribute[CS_SMP_DATA_SIZE];
    memset(out, 0, SL2VL_RECORD_TABLE);
    cs_bits_set(out, 0, 16, in->lid);
    out[2] = in->in_port;
    out[3] = in->out_port;
    cs_smp_sl2vl_encode(&in->sl2vl, attribute);
    memcpy(out + SL2VL_RECORD_TABLE, attribute, CS_SA_SL2VL_RECORD_SIZE - SL2VL_RECORD_TABLE);
}

void cs_sa_sl2vl_record_decode(const uint8_t in[CS_SA_SL2VL_RECORD_SIZE],
                               struct cs_sa_sl2vl_record *out)
{
    uint8_t attribute[CS_SMP_DATA_SIZE] = {0};
    out->lid = (uint16_t)cs_bits_get(in, 0, 16);
    out->in_port = in[2];
    out->out_port = in[3];
    memcpy(attribute, in + SL2VL_RECORD_TABLE, CS_SA_SL2VL_RECORD_SIZE - SL2VL_RECORD_TABLE);
    cs_smp_sl2vl_decode(attribute, &out->sl2vl);
}

/* ---- PKeyTableRecord: LID, BlockNum, PortNum, 24 reserved bits, 32 P_Keys ----
 *
 * The records OpenSM 3.3.23 answers carry BlockNum least significant byte first (it stores its
 * host-order block number without a byte swap), and saquery prints it that way (on x86, where
 * both run): the encoder writes that order, the decoder reads it, so that every client of this
 * record reads the same numbers from cloudsm as from OpenSM. A request's BlockNum arrives in the
 * IBA's order (saquery swaps it; OpenSM reads it swapped): cs_sa_pkey_table_request_block. */

static void put_le16(uint8_t *out, uint16_t v)
{
    out[0] = (uint8_t)(v & 0xff);
    out[1] = (uint8_t)(v >> 8);
}

enum { PKEY_TABLE_RECORD_BLOCK = 8 };

void cs_sa_pkey_table_record_encode(const struct cs_sa_pkey_table_record *in,
                                    uint8_t out[CS_SA_PKEY_TABLE_RECORD_SIZE])
{
    memset(out, 0, PKEY_TABLE_RECORD_BLOCK);
    cs_bits_set(out, 0, 16, in->lid);
    put_le16(out + 2, in->block);
    out[4] = in->port_num;
    cs_smp_pkey_block_encode(&in->pkeys, out + PKEY_TABLE_RECORD_BLOCK);
}

void cs_sa_pkey_table_record_decode(const uint8_t in[CS_SA_PKEY_TABLE_RECORD_SIZE],
                                    struct cs_sa_pkey_table_record *out)
{
    out->lid = (uint16_t)cs_bits_get(in, 0, 16);
    out->block = (uint16_t)(in[2] | in[3] << 8);
    out->port_num = in[4];
    cs_smp_pkey_block_decode(in + PKEY_TABLE_RECORD_BLOCK, &out->pkeys);
}

uint16_t cs_sa_pkey_table_request_block(const uint8_t in[CS_SA_PKEY_TABLE_RECORD_SIZE])
{
    return (uint16_t)cs_bits_get(in, 16, 16);
}

/* ---- VLArbTableRecord: LID, OutputPortNum, BlockNum, 32 reserved bits, 32 entries ---- */

enum { VL_ARB_RECORD_TABLE = 8 };

void cs_sa_vl_arb_record_encode(const struct cs_sa_vl_arb_record *in,
                                uint8_t out[CS_SA_VL_ARB_RECORD_SIZE])
{
    memset(out, 0, CS_SA_VL_ARB_RECORD_SIZE);
    cs_bits_set(out, 0, 16, in->lid);
    out[2] = in->port_num;
    out[3] = in->block;
    for (unsigned i = 0; i < CS_SA_VL_ARB_ENTRIES; i++) {
        unsigned at = (VL_ARB_RECORD_TABLE + 2 * i) * 8;
        cs_bits_set(out, at + 4, 4, in->entry[i].vl);
        cs_bits_set(out, at + 8, 8, in->entry[i].weight);
    }
}

void cs_sa_vl_arb_record_decode(const uint8_t in[CS_SA_VL_ARB_RECORD_SIZE],
                                struct cs_sa_vl_arb_record *out)
{
    out->lid = (uint16_t)cs_bits_get(in, 0, 16);
    out->port_num = in[2];
    out->block = in[3];
    for (unsigned i = 0; i < CS_SA_VL_ARB_ENTRIES; i++) {
        unsigned at = (VL_ARB_RECORD_TABLE + 2 * i) * 8;
        out->entry[i].vl = (uint8_t)cs_bits_get(in, at + 4, 4);
        out->entry[i].weight = (uint8_t)cs_bits_get(in, at + 8, 8);
    }
}

/* ---- ServiceRecord: ID, GID, P_Key, 16 reserved bits, lease, key, name, data ---- */

enum {
    SR_GID = 8,
    SR_PKEY = 24,
    SR_LEASE = 28,
    SR_KEY = 32,
    SR_NAME = 48,
    SR_DATA8 = 112,
    SR_DATA16 = 128,
    SR_DATA32 = 144,
    SR_DATA64 = 160,
};

void cs_sa_service_record_encode(const struct cs_sa_service_record *in,
                                 uint8_t out[CS_SA_SERVICE_RECORD_SIZE])
{
    memset(out, 0, CS_SA_SERVICE_RECORD_SIZE);
    cs_bits_set(out, 0, 64, in->id);
    memcpy(out + SR_GID, in->gid, 16);
    cs_bits_set(out, SR_PKEY * 8, 16, in->pkey);
    cs_bits_set(out, SR_LEASE * 8, 32, in->lease);
    memcpy(out + SR_KEY, in->key, 16);
    memcpy(out + SR_NAME, in->name, CS_SA_SERVICE_NAME_SIZE);
    memcpy(out + SR_DATA8, in->data8, 16);
    for (unsigned i = 0; i < 8; i++)
        cs_bits_set(out, (SR_DATA16 + 2 * i) * 8, 16, in->data16[i]);
    for (unsigned i = 0; i < 4; i++)
        cs_bits_set(out, (SR_DATA32 + 4 * i) * 8, 32, in->data32[i]);
    for (unsigned i = 0; i < 2; i++)
        cs_bits_set(out, (SR_DATA64 + 8 * i) * 8, 64, in->data64[i]);
}

void cs_sa_service_record_decode(const uint8_t in[CS_SA_SERVICE_RECORD_SIZE],
                                 struct cs_sa_service_record *out)
{
    memset(out, 0, sizeof *out);
    out->id = cs_bits_get(in, 0, 64);
    memcpy(out->gid, in + SR_GID, 16);
    out->pkey = (uint16_t)cs_bits_get(in, SR_PKEY * 8, 16);
    out->lease = (uint32_t)cs_bits_get(in, SR_LEASE * 8, 32);
    memcpy(out->key, in + SR_KEY, 16);
    memcpy(out->name, in + SR_NAME, CS_SA_SERVICE_NAME_SIZE);
    memcpy(out->data8, in + SR_DATA8, 16);
    for (unsigned i = 0; i < 8; i++)
        out->data16[i] = (uint16_t)cs_bits_get(in, (SR_DATA16 + 2 * i) * 8, 16);
    for (unsigned i = 0; i < 4; i++)
        out->data32[i] = (uint32_t)cs_bits_get(in, (SR_DATA32 + 4 * i) * 8, 32);
    for (unsigned i = 0; i < 2; i++)
        out->data64[i] = cs_bits_get(in, (SR_DATA64 + 8 * i) * 8, 64);
}
