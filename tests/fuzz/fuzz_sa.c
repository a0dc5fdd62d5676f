/* The SA on arbitrary request bytes: a fixed small subnet (the PGFT of sm_fixtures.h as ibsim
 * shows it, routed by ftree, two partitions, the caching flag on) answers whatever arrives. No
 * crash, no leak, and every reply is sane: nothing or a response MAD echoing the request's
 * transaction id; a single MAD is CS_SA_MAD_SIZE bytes, a longer reply is a successful
 * GetTableResp of whole records marked as one RMPP transfer; a reply never exceeds the room.
 *
 * Input: byte 0 picks the requester LID (mod 32: the subnet's LIDs are 1..28, 0 is a local
 * caller, the rest unknown), the rest is the request MAD (any length). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/sa_fixtures.h"
#include "cloudsm/lid.h"
#include "cloudsm/partitions.h"
#include "cloudsm/route.h"
#include "cloudsm/sa.h"
#include "cloudsm/topo_gen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ROOM (1u << 20)

static const char PARTITIONS[] =
    "Default=0x7fff, ipoib : ALL, SELF=full ;\n"
    "P1=0x0001 : 0x0010000000000001=full, 0x0010000000000101=full ;\n"
    "P2=0x0002 : 0x0010000000000201=full, 0x0010000000000301, 0x0010000000000401=both ;\n";

static struct {
    struct cs_sm_sweep sweep;
    struct cs_lfts lfts;
    struct cs_partitions parts;
    struct cs_partition_set set;
    struct cs_sa_db *db;
    uint8_t *resp;
} subnet;

static void build_subnet(void)
{
    struct cs_error err;
    struct cs_fabric f;
    struct cs_pgft_spec s = {.levels = 3, .m = {2, 2, 3}, .w = {1, 2, 2}, .p = {1, 2, 1}};
    cs_fabric_init(&f);
    struct cs_route_options ropt = {0};
    struct cs_route_stats st;
    struct cs_partition_resolve_options ro = {.sm_port_guid = UINT64_C(0x0010000000000001)};
    if (cs_pgft_generate(&f, &s, &err) != 0 || cs_lids_assign(&f, 0, &err) != 0 ||
        sa_ibsim_sweep(&subnet.sweep, &f, cs_fabric_port(&f, 0, 1), UINT64_C(0xfe80000000000000),
                       &err) != 0 ||
        cs_route("ftree", &subnet.sweep.fabric, &ropt, &subnet.lfts, &st, &err) != 0 ||
        cs_partitions_parse(&subnet.parts, PARTITIONS, strlen(PARTITIONS), "p", &err) != 0 ||
        cs_partitions_resolve(&subnet.parts, &subnet.sweep.fabric, &ro, &subnet.set, &err) != 0)
        abort();
    cs_fabric_free(&f);
    struct cs_sa_options opt = {
        .subnet_prefix = UINT64_C(0xfe80000000000000),
        .sm_key = 0x5,
        .path_caching = true,
        .subnet_timeout = CS_SA_DEFAULT_SUBNET_TIMEOUT,
    };
    if (cs_sa_db_build(&subnet.sweep, &subnet.lfts, &subnet.set, &opt, &subnet.db, &err) != 0)
        abort();
    subnet.resp = malloc(ROOM);
    if (!subnet.resp || cs_sa_response_bound(subnet.db) > ROOM)
        abort();
}

static size_t stride_of(uint16_t attr_id)
{
    switch (attr_id) {
    case CS_SA_ATTR_NODE_RECORD:
        return cs_sa_record_stride(CS_SA_NODE_RECORD_SIZE);
    case CS_SA_ATTR_PORT_INFO_RECORD:
        return cs_sa_record_stride(CS_SA_PORT_INFO_RECORD_SIZE);
    case CS_SA_ATTR_LINK_RECORD:
        return cs_sa_record_stride(CS_SA_LINK_RECORD_SIZE);
    case CS_SA_ATTR_GUID_INFO_RECORD:
        return cs_sa_record_stride(CS_SA_GUID_INFO_RECORD_SIZE);
    case CS_SA_ATTR_PATH_RECORD:
        return CS_SA_PATH_RECORD_SIZE;
    default:
        return 0;
    }
}

static void check_reply(const uint8_t *req, size_t req_len, int rc, const uint8_t *resp, size_t len,
                        size_t room)
{
    if (rc == 0) {
        if (len != 0)
            abort();
        return;
    }
    if (rc != 1 || len < CS_SA_HEADER_SIZE || len > room || req_len < 24)
        abort();
    struct cs_sa_header h;
    cs_sa_header_decode(resp, &h);
    if (!(h.method & CS_SA_METHOD_RESPONSE) || h.sm_key != 0 || memcmp(resp + 8, req + 8, 8) != 0 ||
        h.mgmt_class != CS_SA_CLASS)
        abort();
    if (len == CS_SA_MAD_SIZE)
        return;
    /* Anything else is a successful table of whole records. */
    size_t stride = stride_of(h.attr_id);
    if (h.method != CS_SA_METHOD_GET_TABLE_RESP || h.status != 0 || stride == 0 ||
        (len - CS_SA_HEADER_SIZE) % stride != 0 ||
        h.rmpp_flags != (CS_RMPP_FLAG_ACTIVE | CS_RMPP_FLAG_FIRST | CS_RMPP_FLAG_LAST) ||
        h.rmpp_payload_length != len - CS_SA_PAYLOAD_BASE ||
        (len > CS_SA_HEADER_SIZE && h.attr_offset * 8u != stride))
        abort();
    /* Every PathRecord carries the caching flag. */
    if (h.attr_id == CS_SA_ATTR_PATH_RECORD)
        for (size_t at = CS_SA_HEADER_SIZE; at < len; at += stride)
            if ((resp[at + 44] & 0x70) != 0x40)
                abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!subnet.db)
        build_subnet();
    if (size < 1)
        return 0;
    uint16_t requester = data[0] % 32;
    const uint8_t *req = data + 1;
    size_t req_len = size - 1;
    size_t len = 12345;
    int rc = cs_sa_answer(subnet.db, requester, req, req_len, subnet.resp, ROOM, &len);
    check_reply(req, req_len, rc, subnet.resp, len, ROOM);
    /* With only one MAD of room, a table that does not fit is refused, never cut. */
    rc = cs_sa_answer(subnet.db, requester, req, req_len, subnet.resp, CS_SA_MAD_SIZE, &len);
    check_reply(req, req_len, rc, subnet.resp, len, CS_SA_MAD_SIZE);
    return 0;
}
