/* SMP and SMP attribute encode/decode (include/cloudsm/smp.h).
 *
 * Attributes are described by tables of (bit offset, bit width, struct member) rows, so the offsets
 * can be checked against the IBA tables line by line and one pair of loops does the packing. */
#include "cloudsm/smp.h"

#include <stddef.h>
#include <string.h>

uint64_t cs_bits_get(const uint8_t *buf, unsigned bit_offset, unsigned bit_count)
{
    uint64_t value = 0;
    /* Bit by bit is fast enough for 64-byte attributes and has no alignment cases to get wrong;
     * whole bytes take the shortcut because GUIDs and keys are most of the volume. */
    unsigned bit = bit_offset, end = bit_offset + bit_count;
    while (bit < end) {
        if ((bit & 7) == 0 && end - bit >= 8) {
            value = (value << 8) | buf[bit >> 3];
            bit += 8;
        } else {
            value = (value << 1) | ((buf[bit >> 3] >> (7 - (bit & 7))) & 1u);
            bit++;
        }
    }
    return value;
}

void cs_bits_set(uint8_t *buf, unsigned bit_offset, unsigned bit_count, uint64_t value)
{
    /* Fill from the least significant end: the last bit of the range takes bit 0 of value. */
    unsigned bit = bit_offset + bit_count;
    while (bit > bit_offset) {
        if ((bit & 7) == 0 && bit - bit_offset >= 8) {
            buf[(bit >> 3) - 1] = (uint8_t)value;
            value >>= 8;
            bit -= 8;
        } else {
            bit--;
            uint8_t mask = (uint8_t)(1u << (7 - (bit & 7)));
            if (value & 1u)
                buf[bit >> 3] |= mask;
            else
                buf[bit >> 3] &= (uint8_t)~mask;
            value >>= 1;
        }
    }
}

/* Byte offsets of the common MAD header (IBA 13.4.2) and the rest of an SMP (14.2.1.1 /
 * 14.2.1.2). */
enum {
    MAD_OFF_BASE_VERSION = 0,
    MAD_OFF_MGMT_CLASS = 1,
    MAD_OFF_CLASS_VERSION = 2,
    MAD_OFF_METHOD = 3,
    MAD_OFF_STATUS = 4,
    MAD_OFF_CLASS_SPECIFIC = 6, /* an SMP's hop pointer (6) and hop count (7) */
    MAD_OFF_TRANSACTION_ID = 8,
    MAD_OFF_ATTR_ID = 16,
    MAD_OFF_ATTR_MOD = 20, /* bytes 18..19 are reserved */
    SMP_OFF_M_KEY = 24,
    SMP_OFF_DR_SLID = 32,
    SMP_OFF_DR_DLID = 34, /* bytes 36..63 are reserved */
    SMP_OFF_DATA = 64,
    SMP_OFF_INITIAL_PATH = 128,
    SMP_OFF_RETURN_PATH = 192,
};

void cs_mad_header_encode(const struct cs_mad_header *h, uint8_t out[CS_MAD_HEADER_SIZE])
{
    memset(out, 0, CS_MAD_HEADER_SIZE);
    out[MAD_OFF_BASE_VERSION] = h->base_version;
    out[MAD_OFF_MGMT_CLASS] = h->mgmt_class;
    out[MAD_OFF_CLASS_VERSION] = h->class_version;
    out[MAD_OFF_METHOD] = h->method;
    cs_bits_set(out, MAD_OFF_STATUS * 8, 16, h->status);
    cs_bits_set(out, MAD_OFF_CLASS_SPECIFIC * 8, 16, h->class_specific);
    cs_bits_set(out, MAD_OFF_TRANSACTION_ID * 8, 64, h->transaction_id);
    cs_bits_set(out, MAD_OFF_ATTR_ID * 8, 16, h->attr_id);
    cs_bits_set(out, MAD_OFF_ATTR_MOD * 8, 32, h->attr_mod);
}

void cs_mad_header_decode(const uint8_t in[CS_MAD_HEADER_SIZE], struct cs_mad_header *h)
{
    h->base_version = in[MAD_OFF_BASE_VERSION];
    h->mgmt_class = in[MAD_OFF_MGMT_CLASS];
    h->class_version = in[MAD_OFF_CLASS_VERSION];
    h->method = in[MAD_OFF_METHOD];
    h->status = (uint16_t)cs_bits_get(in, MAD_OFF_STATUS * 8, 16);
    h->class_specific = (uint16_t)cs_bits_get(in, MAD_OFF_CLASS_SPECIFIC * 8, 16);
    h->transaction_id = cs_bits_get(in, MAD_OFF_TRANSACTION_ID * 8, 64);
    h->attr_id = (uint16_t)cs_bits_get(in, MAD_OFF_ATTR_ID * 8, 16);
    h->attr_mod = (uint32_t)cs_bits_get(in, MAD_OFF_ATTR_MOD * 8, 32);
}

void cs_smp_encode(const struct cs_smp *smp, uint8_t wire[CS_SMP_SIZE])
{
    memset(wire, 0, CS_SMP_SIZE);
    struct cs_mad_header h = {
        .base_version = smp->base_version,
        .mgmt_class = smp->mgmt_class,
        .class_version = smp->class_version,
        .method = smp->method,
        .status = smp->status,
        .class_specific = (uint16_t)(smp->hop_pointer << 8 | smp->hop_count),
        .transaction_id = smp->transaction_id,
        .attr_id = smp->attr_id,
        .attr_mod = smp->attr_mod,
    };
    cs_mad_header_encode(&h, wire);
    cs_bits_set(wire, SMP_OFF_M_KEY * 8, 64, smp->m_key);
    cs_bits_set(wire, SMP_OFF_DR_SLID * 8, 16, smp->dr_slid);
    cs_bits_set(wire, SMP_OFF_DR_DLID * 8, 16, smp->dr_dlid);
    memcpy(wire + SMP_OFF_DATA, smp->data, CS_SMP_DATA_SIZE);
    memcpy(wire + SMP_OFF_INITIAL_PATH, smp->initial_path, CS_SMP_PATH_SIZE);
    memcpy(wire + SMP_OFF_RETURN_PATH, smp->return_path, CS_SMP_PATH_SIZE);
}

void cs_smp_decode(const uint8_t wire[CS_SMP_SIZE], struct cs_smp *smp)
{
    memset(smp, 0, sizeof *smp);
    struct cs_mad_header h;
    cs_mad_header_decode(wire, &h);
    smp->base_version = h.base_version;
    smp->mgmt_class = h.mgmt_class;
    smp->class_version = h.class_version;
    smp->method = h.method;
    smp->status = h.status;
    smp->hop_pointer = (uint8_t)(h.class_specific >> 8);
    smp->hop_count = (uint8_t)h.class_specific;
    smp->transaction_id = h.transaction_id;
    smp->attr_id = h.attr_id;
    smp->attr_mod = h.attr_mod;
    smp->m_key = cs_bits_get(wire, SMP_OFF_M_KEY * 8, 64);
    smp->dr_slid = (uint16_t)cs_bits_get(wire, SMP_OFF_DR_SLID * 8, 16);
    smp->dr_dlid = (uint16_t)cs_bits_get(wire, SMP_OFF_DR_DLID * 8, 16);
    memcpy(smp->data, wire + SMP_OFF_DATA, CS_SMP_DATA_SIZE);
    memcpy(smp->initial_path, wire + SMP_OFF_INITIAL_PATH, CS_SMP_PATH_SIZE);
    memcpy(smp->return_path, wire + SMP_OFF_RETURN_PATH, CS_SMP_PATH_SIZE);
}

static void smp_init_common(struct cs_smp *smp, uint8_t mgmt_class, uint8_t method,
                            uint16_t attr_id, uint32_t attr_mod, uint64_t transaction_id)
{
    memset(smp, 0, sizeof *smp);
    smp->base_version = CS_SMP_BASE_VERSION;
    smp->mgmt_class = mgmt_class;
    smp->class_version = CS_SMP_CLASS_VERSION;
    smp->method = method;
    smp->transaction_id = transaction_id;
    smp->attr_id = attr_id;
    smp->attr_mod = attr_mod;
}

int cs_smp_init_directed(struct cs_smp *smp, uint8_t method, uint16_t attr_id, uint32_t attr_mod,
                         const uint8_t *path, unsigned hop_count, uint64_t transaction_id,
                         struct cs_error *err)
{
    if (hop_count > CS_SMP_MAX_HOPS)
        return cs_fail(err, "directed route of %u hops: at most %d fit in an SMP", hop_count,
                       CS_SMP_MAX_HOPS);
    for (unsigned hop = 1; hop <= hop_count; hop++)
        if (path[hop] == 0)
            return cs_fail(err, "directed route: port 0 at hop %u", hop);
    smp_init_common(smp, CS_SMP_CLASS_DIRECTED_ROUTE, method, attr_id, attr_mod, transaction_id);
    smp->hop_count = (uint8_t)hop_count;
    /* Purely directed: the request leaves by its initial path and the switches record the
     * return path themselves (IBA 14.2.2.2). */
    smp->dr_slid = CS_SMP_PERMISSIVE_LID;
    smp->dr_dlid = CS_SMP_PERMISSIVE_LID;
    for (unsigned hop = 1; hop <= hop_count; hop++)
        smp->initial_path[hop] = path[hop];
    return 0;
}

void cs_smp_init_lid_routed(struct cs_smp *smp, uint8_t method, uint16_t attr_id, uint32_t attr_mod,
                            uint64_t transaction_id)
{
    smp_init_common(smp, CS_SMP_CLASS_LID_ROUTED, method, attr_id, attr_mod, transaction_id);
}

/* One attribute field: where it lives on the wire and which struct member holds it. */
struct smp_field {
    uint16_t bit_offset;
    uint8_t bit_count;
    uint8_t member_size;
    uint16_t member_offset;
};

#define FIELD(type, member, offset, count)                                                         \
    {                                                                                              \
        (offset), (count), sizeof(((type *)0)->member), offsetof(type, member)                     \
    }

static void fields_encode(const struct smp_field *fields, size_t count, const void *in,
                          uint8_t data[CS_SMP_DATA_SIZE])
{
    memset(data, 0, CS_SMP_DATA_SIZE);
    for (size_t i = 0; i < count; i++) {
        const uint8_t *member = (const uint8_t *)in + fields[i].member_offset;
        uint64_t value = 0;
        switch (fields[i].member_size) {
        case 1:
            value = *member;
            break;
        case 2: {
            uint16_t v;
            memcpy(&v, member, 2);
            value = v;
            break;
        }
        case 4: {
            uint32_t v;
            memcpy(&v, member, 4);
            value = v;
            break;
        }
        default:
            memcpy(&value, member, 8);
            break;
        }
        cs_bits_set(data, fields[i].bit_offset, fields[i].bit_count, value);
    }
}

static void fields_decode(const struct smp_field *fields, size_t count,
                          const uint8_t data[CS_SMP_DATA_SIZE], void *out)
{
    for (size_t i = 0; i < count; i++) {
        uint8_t *member = (uint8_t *)out + fields[i].member_offset;
        uint64_t value = cs_bits_get(data, fields[i].bit_offset, fields[i].bit_count);
        switch (fields[i].member_size) {
        case 1:
            *member = (uint8_t)value;
            break;
        case 2: {
            uint16_t v = (uint16_t)value;
            memcpy(member, &v, 2);
            break;
        }
        case 4: {
            uint32_t v = (uint32_t)value;
            memcpy(member, &v, 4);
            break;
        }
        default:
            memcpy(member, &value, 8);
            break;
        }
    }
}

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

/* IBA 14.2.5.3, Table 148. */
#define NI struct cs_smp_node_info
static const struct smp_field node_info_fields[] = {
    FIELD(NI, base_version, 0, 8),        FIELD(NI, class_version, 8, 8),
    FIELD(NI, node_type, 16, 8),          FIELD(NI, num_ports, 24, 8),
    FIELD(NI, system_image_guid, 32, 64), FIELD(NI, node_guid, 96, 64),
    FIELD(NI, port_guid, 160, 64),        FIELD(NI, partition_cap, 224, 16),
    FIELD(NI, device_id, 240, 16),        FIELD(NI, revision, 256, 32),
    FIELD(NI, local_port_num, 288, 8),    FIELD(NI, vendor_id, 296, 24),
};
#undef NI

/* IBA 14.2.5.4, Table 149 (MulticastFDBTop from IBA 1.2.1). */
#define SI struct cs_smp_switch_info
static const struct smp_field switch_info_fields[] = {
    FIELD(SI, linear_fdb_cap, 0, 16),
    FIELD(SI, random_fdb_cap, 16, 16),
    FIELD(SI, multicast_fdb_cap, 32, 16),
    FIELD(SI, linear_fdb_top, 48, 16),
    FIELD(SI, default_port, 64, 8),
    FIELD(SI, default_multicast_primary_port, 72, 8),
    FIELD(SI, default_multicast_not_primary_port, 80, 8),
    FIELD(SI, life_time_value, 88, 5),
    FIELD(SI, port_state_change, 93, 1),
    FIELD(SI, optimized_sl2vl, 94, 2),
    FIELD(SI, lids_per_port, 96, 16),
    FIELD(SI, partition_enforcement_cap, 112, 16),
    FIELD(SI, inbound_enforcement_cap, 128, 1),
    FIELD(SI, outbound_enforcement_cap, 129, 1),
    FIELD(SI, filter_raw_inbound_cap, 130, 1),
    FIELD(SI, filter_raw_outbound_cap, 131, 1),
    FIELD(SI, enhanced_port0, 132, 1),
    FIELD(SI, multicast_fdb_top, 144, 16),
};
#undef SI

/* IBA 14.2.5.6, Table 151 (CapabilityMask2 and the extended speeds from IBA 1.2.1/1.3). */
#define PI struct cs_smp_port_info
static const struct smp_field port_info_fields[] = {
    FIELD(PI, m_key, 0, 64),
    FIELD(PI, subnet_prefix, 64, 64),
    FIELD(PI, lid, 128, 16),
    FIELD(PI, master_sm_lid, 144, 16),
    FIELD(PI, capability_mask, 160, 32),
    FIELD(PI, diag_code, 192, 16),
    FIELD(PI, m_key_lease_period, 208, 16),
    FIELD(PI, local_port_num, 224, 8),
    FIELD(PI, link_width_enabled, 232, 8),
    FIELD(PI, link_width_supported, 240, 8),
    FIELD(PI, link_width_active, 248, 8),
    FIELD(PI, link_speed_supported, 256, 4),
    FIELD(PI, port_state, 260, 4),
    FIELD(PI, port_physical_state, 264, 4),
    FIELD(PI, link_down_default_state, 268, 4),
    FIELD(PI, m_key_protect_bits, 272, 2),
    FIELD(PI, lmc, 277, 3),
    FIELD(PI, link_speed_active, 280, 4),
    FIELD(PI, link_speed_enabled, 284, 4),
    FIELD(PI, neighbor_mtu, 288, 4),
    FIELD(PI, master_sm_sl, 292, 4),
    FIELD(PI, vl_cap, 296, 4),
    FIELD(PI, init_type, 300, 4),
    FIELD(PI, vl_high_limit, 304, 8),
    FIELD(PI, vl_arbitration_high_cap, 312, 8),
    FIELD(PI, vl_arbitration_low_cap, 320, 8),
    FIELD(PI, init_type_reply, 328, 4),
    FIELD(PI, mtu_cap, 332, 4),
    FIELD(PI, vl_stall_count, 336, 3),
    FIELD(PI, hoq_life, 339, 5),
    FIELD(PI, operational_vls, 344, 4),
    FIELD(PI, partition_enforcement_inbound, 348, 1),
    FIELD(PI, partition_enforcement_outbound, 349, 1),
    FIELD(PI, filter_raw_inbound, 350, 1),
    FIELD(PI, filter_raw_outbound, 351, 1),
    FIELD(PI, m_key_violations, 352, 16),
    FIELD(PI, p_key_violations, 368, 16),
    FIELD(PI, q_key_violations, 384, 16),
    FIELD(PI, guid_cap, 400, 8),
    FIELD(PI, client_reregister, 408, 1),
    FIELD(PI, multicast_pkey_trap_suppression, 409, 2),
    FIELD(PI, subnet_timeout, 411, 5),
    FIELD(PI, resp_time_value, 419, 5),
    FIELD(PI, local_phy_errors, 424, 4),
    FIELD(PI, overrun_errors, 428, 4),
    FIELD(PI, max_credit_hint, 432, 16),
    FIELD(PI, link_round_trip_latency, 456, 24),
    FIELD(PI, capability_mask2, 480, 16),
    FIELD(PI, link_speed_ext_active, 496, 4),
    FIELD(PI, link_speed_ext_supported, 500, 4),
    FIELD(PI, link_speed_ext_enabled, 507, 5),
};
#undef PI

/* IBA 14.4.1, Table 187. */
#define SM struct cs_smp_sm_info
static const struct smp_field sm_info_fields[] = {
    FIELD(SM, guid, 0, 64),      FIELD(SM, sm_key, 64, 64),   FIELD(SM, act_count, 128, 32),
    FIELD(SM, priority, 160, 4), FIELD(SM, sm_state, 164, 4),
};
#undef SM

void cs_smp_node_info_encode(const struct cs_smp_node_info *in, uint8_t data[CS_SMP_DATA_SIZE])
{
    fields_encode(node_info_fields, COUNT(node_info_fields), in, data);
}

void cs_smp_node_info_decode(const uint8_t data[CS_SMP_DATA_SIZE], struct cs_smp_node_info *out)
{
    memset(out, 0, sizeof *out);
    fields_decode(node_info_fields, COUNT(node_info_fields), data, out);
}

void cs_smp_switch_info_encode(const struct cs_smp_switch_info *in, uint8_t data[CS_SMP_DATA_SIZE])
{
    fields_encode(switch_info_fields, COUNT(switch_info_fields), in, data);
}

void cs_smp_switch_info_decode(const uint8_t data[CS_SMP_DATA_SIZE], struct cs_smp_switch_info *out)
{
    memset(out, 0, sizeof *out);
    fields_decode(switch_info_fields, COUNT(switch_info_fields), data, out);
}

void cs_smp_port_info_encode(const struct cs_smp_port_info *in, uint8_t data[CS_SMP_DATA_SIZE])
{
    fields_encode(port_info_fields, COUNT(port_info_fields), in, data);
}

void cs_smp_port_info_decode(const uint8_t data[CS_SMP_DATA_SIZE], struct cs_smp_port_info *out)
{
    memset(out, 0, sizeof *out);
    fields_decode(port_info_fields, COUNT(port_info_fields), data, out);
}

void cs_smp_sm_info_encode(const struct cs_smp_sm_info *in, uint8_t data[CS_SMP_DATA_SIZE])
{
    fields_encode(sm_info_fields, COUNT(sm_info_fields), in, data);
}

void cs_smp_sm_info_decode(const uint8_t data[CS_SMP_DATA_SIZE], struct cs_smp_sm_info *out)
{
    memset(out, 0, sizeof *out);
    fields_decode(sm_info_fields, COUNT(sm_info_fields), data, out);
}

void cs_smp_node_description_encode(const struct cs_smp_node_description *in,
                                    uint8_t data[CS_SMP_DATA_SIZE])
{
    memset(data, 0, CS_SMP_DATA_SIZE);
    size_t length = 0;
    while (length < CS_SMP_DATA_SIZE && in->text[length] != '\0')
        length++;
    memcpy(data, in->text, length);
}

void cs_smp_node_description_decode(const uint8_t data[CS_SMP_DATA_SIZE],
                                    struct cs_smp_node_description *out)
{
    /* The description need not be NUL-terminated on the wire when it uses all 64 bytes. Bytes
     * after the first NUL are padding, dropped as the encoder drops them, so that decode and
     * encode agree on what the description is. */
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < CS_SMP_DATA_SIZE && data[i] != 0; i++)
        out->text[i] = (char)data[i];
}

/* The tables are arrays of equal-width entries packed from bit 0. */
void cs_smp_lft_block_encode(const struct cs_smp_lft_block *in, uint8_t data[CS_SMP_DATA_SIZE])
{
    for (unsigned i = 0; i < CS_LFT_PORTS_PER_BLOCK; i++)
        cs_bits_set(data, i * 8, 8, in->port[i]);
}

void cs_smp_lft_block_decode(const uint8_t data[CS_SMP_DATA_SIZE], struct cs_smp_lft_block *out)
{
    for (unsigned i = 0; i < CS_LFT_PORTS_PER_BLOCK; i++)
        out->port[i] = (uint8_t)cs_bits_get(data, i * 8, 8);
}

void cs_smp_pkey_block_encode(const struct cs_smp_pkey_block *in, uint8_t data[CS_SMP_DATA_SIZE])
{
    for (unsigned i = 0; i < CS_PKEYS_PER_BLOCK; i++)
        cs_bits_set(data, i * 16, 16, in->pkey[i]);
}

void cs_smp_pkey_block_decode(const uint8_t data[CS_SMP_DATA_SIZE], struct cs_smp_pkey_block *out)
{
    for (unsigned i = 0; i < CS_PKEYS_PER_BLOCK; i++)
        out->pkey[i] = (uint16_t)cs_bits_get(data, i * 16, 16);
}

void cs_smp_sl2vl_encode(const struct cs_smp_sl2vl *in, uint8_t data[CS_SMP_DATA_SIZE])
{
    /* Only the first 8 bytes carry entries; the rest of the area is reserved. */
    memset(data, 0, CS_SMP_DATA_SIZE);
    for (unsigned sl = 0; sl < CS_SL2VL_ENTRIES; sl++)
        cs_bits_set(data, sl * 4, 4, in->vl[sl]);
}

void cs_smp_sl2vl_decode(const uint8_t data[CS_SMP_DATA_SIZE], struct cs_smp_sl2vl *out)
{
    for (unsigned sl = 0; sl < CS_SL2VL_ENTRIES; sl++)
        out->vl[sl] = (uint8_t)cs_bits_get(data, sl * 4, 4);
}

/* Each entry is 16 bits: 4 reserved, the VL (4), the weight (8). */
void cs_smp_vlarb_encode(const struct cs_smp_vlarb *in, uint8_t data[CS_SMP_DATA_SIZE])
{
    memset(data, 0, CS_SMP_DATA_SIZE);
    for (unsigned i = 0; i < CS_VLARB_ENTRIES; i++) {
        cs_bits_set(data, i * 16 + 4, 4, in->vl[i]);
        cs_bits_set(data, i * 16 + 8, 8, in->weight[i]);
    }
}

void cs_smp_vlarb_decode(const uint8_t data[CS_SMP_DATA_SIZE], struct cs_smp_vlarb *out)
{
    for (unsigned i = 0; i < CS_VLARB_ENTRIES; i++) {
        out->vl[i] = (uint8_t)cs_bits_get(data, i * 16 + 4, 4);
        out->weight[i] = (uint8_t)cs_bits_get(data, i * 16 + 8, 8);
    }
}

void cs_smp_guid_block_encode(const struct cs_smp_guid_block *in, uint8_t data[CS_SMP_DATA_SIZE])
{
    for (unsigned i = 0; i < CS_GUIDS_PER_BLOCK; i++)
        cs_bits_set(data, i * 64, 64, in->guid[i]);
}

void cs_smp_guid_block_decode(const uint8_t data[CS_SMP_DATA_SIZE], struct cs_smp_guid_block *out)
{
    for (unsigned i = 0; i < CS_GUIDS_PER_BLOCK; i++)
        out->guid[i] = cs_bits_get(data, i * 64, 64);
}
