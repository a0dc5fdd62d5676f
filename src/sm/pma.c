/* The PerfMgt counters (include/cloudsm/pma.h). Each attribute is a table of fields (bit offset
 * and width within the attribute, and where the value lives in the struct), so that one
 * description serves decoding and encoding. */
#include "cloudsm/pma.h"

#include <stddef.h>
#include <string.h>

#include "cloudsm/smp.h"

#define METHOD_GET 0x01
#define METHOD_GET_RESP 0x81

struct field {
    uint16_t bit;   /* offset within the attribute */
    uint8_t width;  /* bits */
    uint8_t size;   /* bytes of the struct member */
    uint16_t place; /* offsetof the member */
};

#define F(bit, width, type, member)                                                                \
    {                                                                                              \
        bit, width, (uint8_t)sizeof(((type *)0)->member), (uint16_t)offsetof(type, member)         \
    }

static const struct field port_counters[] = {
    F(8, 8, struct cs_pma_port_counters, port_select),
    F(16, 16, struct cs_pma_port_counters, counter_select),
    F(32, 16, struct cs_pma_port_counters, symbol_errors),
    F(48, 8, struct cs_pma_port_counters, link_error_recovery),
    F(56, 8, struct cs_pma_port_counters, link_downed),
    F(64, 16, struct cs_pma_port_counters, rcv_errors),
    F(80, 16, struct cs_pma_port_counters, rcv_remote_physical_errors),
    F(96, 16, struct cs_pma_port_counters, rcv_switch_relay_errors),
    F(112, 16, struct cs_pma_port_counters, xmit_discards),
    F(128, 8, struct cs_pma_port_counters, xmit_constraint_errors),
    F(136, 8, struct cs_pma_port_counters, rcv_constraint_errors),
    F(152, 4, struct cs_pma_port_counters, local_link_integrity_errors),
    F(156, 4, struct cs_pma_port_counters, excessive_buffer_overruns),
    F(176, 16, struct cs_pma_port_counters, vl15_dropped),
    F(192, 32, struct cs_pma_port_counters, xmit_data),
    F(224, 32, struct cs_pma_port_counters, rcv_data),
    F(256, 32, struct cs_pma_port_counters, xmit_pkts),
    F(288, 32, struct cs_pma_port_counters, rcv_pkts),
    F(320, 32, struct cs_pma_port_counters, xmit_wait),
};

static const struct field port_counters_ext[] = {
    F(8, 8, struct cs_pma_port_counters_ext, port_select),
    F(16, 16, struct cs_pma_port_counters_ext, counter_select),
    F(64, 64, struct cs_pma_port_counters_ext, xmit_data),
    F(128, 64, struct cs_pma_port_counters_ext, rcv_data),
    F(192, 64, struct cs_pma_port_counters_ext, xmit_pkts),
    F(256, 64, struct cs_pma_port_counters_ext, rcv_pkts),
    F(320, 64, struct cs_pma_port_counters_ext, unicast_xmit_pkts),
    F(384, 64, struct cs_pma_port_counters_ext, unicast_rcv_pkts),
    F(448, 64, struct cs_pma_port_counters_ext, multicast_xmit_pkts),
    F(512, 64, struct cs_pma_port_counters_ext, multicast_rcv_pkts),
};

#define COUNT(a) (sizeof a / sizeof a[0])

/* Bytes of the attribute the table reaches. */
static size_t attribute_size(const struct field *fields, size_t n)
{
    const struct field *last = &fields[n - 1];
    return (last->bit + last->width + 7u) / 8u;
}

static void decode_fields(const uint8_t *attr, const struct field *fields, size_t n, void *out)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t v = cs_bits_get(attr, fields[i].bit, fields[i].width);
        uint8_t *member = (uint8_t *)out + fields[i].place;
        switch (fields[i].size) {
        case 1:
            *member = (uint8_t)v;
            break;
        case 2: {
            uint16_t x = (uint16_t)v;
            memcpy(member, &x, 2);
            break;
        }
        case 4: {
            uint32_t x = (uint32_t)v;
            memcpy(member, &x, 4);
            break;
        }
        default:
            memcpy(member, &v, 8);
            break;
        }
    }
}

static void encode_fields(uint8_t *attr, const struct field *fields, size_t n, const void *in)
{
    for (size_t i = 0; i < n; i++) {
        const uint8_t *member = (const uint8_t *)in + fields[i].place;
        uint64_t v;
        switch (fields[i].size) {
        case 1:
            v = *member;
            break;
        case 2: {
            uint16_t x;
            memcpy(&x, member, 2);
            v = x;
            break;
        }
        case 4: {
            uint32_t x;
            memcpy(&x, member, 4);
            v = x;
            break;
        }
        default:
            memcpy(&v, member, 8);
            break;
        }
        cs_bits_set(attr, fields[i].bit, fields[i].width, v);
    }
}

void cs_pma_get_request(uint8_t mad[CS_PMA_MAD_SIZE], uint16_t attr, uint8_t port, uint64_t tid)
{
    memset(mad, 0, CS_PMA_MAD_SIZE);
    struct cs_mad_header h = {.base_version = 1,
                              .mgmt_class = CS_PMA_CLASS,
                              .class_version = CS_PMA_CLASS_VERSION,
                              .method = METHOD_GET,
                              .transaction_id = tid,
                              .attr_id = attr};
    cs_mad_header_encode(&h, mad);
    if (attr != CS_PMA_ATTR_CLASS_PORT_INFO)
        mad[CS_PMA_DATA_OFFSET + 1] = port; /* PortSelect */
}

/* The checks every reply passes before its attribute is read. */
static int check_reply(const uint8_t *mad, size_t len, uint16_t attr, const char *name,
                       size_t attr_size, struct cs_error *err)
{
    if (len < CS_PMA_DATA_OFFSET + attr_size)
        return cs_fail(err, "%zu bytes, too short for a %s reply", len, name);
    struct cs_mad_header h;
    cs_mad_header_decode(mad, &h);
    if (h.mgmt_class != CS_PMA_CLASS)
        return cs_fail(err, "management class 0x%02x, not PerfMgt", h.mgmt_class);
    if (h.method != METHOD_GET_RESP)
        return cs_fail(err, "method 0x%02x, not GetResp", h.method);
    if (h.status != 0)
        return cs_fail(err, "status 0x%04x", h.status);
    if (h.attr_id != attr)
        return cs_fail(err, "attribute 0x%04x, not %s", h.attr_id, name);
    return 0;
}

int cs_pma_decode_port_counters(const uint8_t *mad, size_t len, struct cs_pma_port_counters *out,
                                struct cs_error *err)
{
    memset(out, 0, sizeof *out);
    if (check_reply(mad, len, CS_PMA_ATTR_PORT_COUNTERS, "PortCounters",
                    attribute_size(port_counters, COUNT(port_counters)), err) < 0)
        return -1;
    decode_fields(mad + CS_PMA_DATA_OFFSET, port_counters, COUNT(port_counters), out);
    return 0;
}

int cs_pma_decode_port_counters_ext(const uint8_t *mad, size_t len,
                                    struct cs_pma_port_counters_ext *out, struct cs_error *err)
{
    memset(out, 0, sizeof *out);
    if (check_reply(mad, len, CS_PMA_ATTR_PORT_COUNTERS_EXT, "PortCountersExtended",
                    attribute_size(port_counters_ext, COUNT(port_counters_ext)), err) < 0)
        return -1;
    decode_fields(mad + CS_PMA_DATA_OFFSET, port_counters_ext, COUNT(port_counters_ext), out);
    return 0;
}

void cs_pma_encode_port_counters(const struct cs_pma_port_counters *in,
                                 uint8_t mad[CS_PMA_MAD_SIZE])
{
    encode_fields(mad + CS_PMA_DATA_OFFSET, port_counters, COUNT(port_counters), in);
}

void cs_pma_encode_port_counters_ext(const struct cs_pma_port_counters_ext *in,
                                     uint8_t mad[CS_PMA_MAD_SIZE])
{
    encode_fields(mad + CS_PMA_DATA_OFFSET, port_counters_ext, COUNT(port_counters_ext), in);
}

enum cs_pma_change cs_pma_delta(uint64_t before, uint64_t now, unsigned bits, uint64_t *delta)
{
    uint64_t largest = bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    if (now < before) {
        *delta = now;
        return CS_PMA_RESET;
    }
    *delta = now - before;
    return bits < 64 && now == largest ? CS_PMA_SATURATED : CS_PMA_COUNTED;
}
