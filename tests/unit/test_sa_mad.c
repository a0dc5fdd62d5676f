/* SA MAD codec (src/sa/sa_mad.c): the header and every record against bytes OpenSM 3.3.23 sent
 * on ibsim 0.10, and round trips of random values.
 *
 * The golden replies were captured with a small libibumad client under umad2sim (send one SA MAD
 * to LID 1, print the reply) against `opensm -R ftree` on the PGFT(3; 2,2,3; 1,2,2; 1,2,1) of
 * `cloudsm topo gen pgft "3;2,2,3;1,2,2;1,2,1"` (sm_fixtures.h's gen_pgft); OpenSM's LIDs: host-0
 * 1, sw-L1-0 2, host-1 8, host-11 18. The transaction id was 0x1234; the 1 in its bits 48..55 is
 * the agent number umad2sim put there. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/rng.h"
#include "cloudsm/sa.h"
#include "sa_fixtures.h"

/* SubnAdmGetResp(NodeRecord) for LID 8, component mask LID. */
static const char NODE_RECORD_REPLY[] =
    "01030281 00000000 00010000 00001234 00110000 00000000 00000000 00000000"
    "00000000 00000000 00000000 000e0000 00000000 00000001 00080000 01010101"
    "00100000 00000100 00100000 00000100 00100000 00000101 00400000 000000a1"
    "01000000 686f7374 2d310000 00000000";

/* SubnAdmGetResp(PathRecord) from LID 1 to LID 18, component mask SLID|DLID. */
static const char PATH_RECORD_REPLY[] =
    "01030281 00000000 00010000 00001234 00350000 00000000 00000000 00000000"
    "00000000 00000000 00000000 00080000 00000000 00000030 00000000 00000000"
    "fe800000 00000000 00100000 00000b01 fe800000 00000000 00100000 00000001"
    "00120001 00000000 0080ffff 00008490 92000000 00000000";

/* SubnAdmGetResp(PortInfoRecord) for LID 1 (host-0's port, the SM's). */
static const char PORT_INFO_RECORD[] =
    "00010100 00000000 00000000 fe800000 00000000 00010001 0050c04a 00000ff9"
    "01031f02 74520047 40400008 0804e040 00000000 0000201f 00000000 00000000"
    "00302703";

/* The first two LinkRecords of SubnAdmGetTableResp(LinkRecord) from LID 2, with their padding. */
static const char LINK_RECORDS[] = "00020101 00010000 00020201 00080000";

/* SubnAdmGetResp(GUIDInfoRecord) for LID 2. */
static const char GUID_INFO_RECORD[] = "00020000 00000000 00200001 00000000";

/* The header of SubnAdmGetTableResp(NodeRecord) as OpenSM hands it to its transport. */
static const char GET_TABLE_HEADER[] =
    "01030292 00000000 00010000 00001234 00110000 00000000 00000100 00000000"
    "00000000 00000000 00000000 000e0000 00000000 00000000";

static void test_header_golden(void **state)
{
    (void)state;
    uint8_t wire[CS_SA_MAD_SIZE] = {0};
    assert_int_equal(sa_hex(GET_TABLE_HEADER, wire, sizeof wire), CS_SA_HEADER_SIZE);
    struct cs_sa_header h;
    cs_sa_header_decode(wire, &h);
    assert_int_equal(h.base_version, 1);
    assert_int_equal(h.mgmt_class, CS_SA_CLASS);
    assert_int_equal(h.class_version, 2);
    assert_int_equal(h.method, CS_SA_METHOD_GET_TABLE_RESP);
    assert_int_equal(h.status, 0);
    assert_true(h.transaction_id == UINT64_C(0x0001000000001234));
    assert_int_equal(h.attr_id, CS_SA_ATTR_NODE_RECORD);
    assert_int_equal(h.rmpp_version, 0);
    assert_int_equal(h.rmpp_type, 0);
    assert_int_equal(h.rmpp_flags, CS_RMPP_FLAG_ACTIVE); /* OpenSM leaves the rest to the kernel */
    assert_int_equal(h.attr_offset, 14);                 /* a NodeRecord takes 112 bytes */
    assert_true(h.component_mask == 0);
    uint8_t again[CS_SA_HEADER_SIZE];
    cs_sa_header_encode(&h, again);
    assert_memory_equal(again, wire, CS_SA_HEADER_SIZE);
}

static void test_header_fields(void **state)
{
    (void)state;
    struct cs_sa_header h = {
        .base_version = 1,
        .mgmt_class = 3,
        .class_version = 2,
        .method = 0x92,
        .status = 0x0300,
        .class_specific = 0xbeef,
        .transaction_id = UINT64_C(0x0102030405060708),
        .attr_id = 0x0035,
        .attr_mod = 0x80000001u,
        .rmpp_version = 1,
        .rmpp_type = 1,
        .rmpp_resp_time = 0x1f,
        .rmpp_flags = 7,
        .rmpp_status = 0x76,
        .rmpp_segment = 1,
        .rmpp_payload_length = 0x1234,
        .sm_key = UINT64_C(0x1122334455667788),
        .attr_offset = 8,
        .component_mask = UINT64_C(0x30),
    };
    uint8_t wire[CS_SA_HEADER_SIZE];
    cs_sa_header_encode(&h, wire);
    /* RRespTime is the upper five bits of byte 26, the flags the lower three. */
    assert_int_equal(wire[26], 0xff);
    assert_int_equal(wire[24], 1);
    assert_int_equal(wire[3], 0x92);
    assert_int_equal(wire[4], 0x03);
    assert_int_equal(wire[35], 0x34);
    assert_int_equal(wire[44], 0);
    assert_int_equal(wire[45], 8);
    assert_int_equal(wire[55], 0x30);
    assert_int_equal(wire[18] | wire[19] | wire[46] | wire[47], 0); /* reserved */
    struct cs_sa_header back;
    cs_sa_header_decode(wire, &back);
    assert_true(back.transaction_id == h.transaction_id);
    assert_true(back.sm_key == h.sm_key);
    assert_true(back.component_mask == h.component_mask);
    assert_int_equal(back.rmpp_resp_time, 0x1f);
    assert_int_equal(back.rmpp_flags, 7);
    assert_int_equal(back.rmpp_payload_length, 0x1234);
    assert_int_equal(back.attr_mod, 0x80000001u);
    assert_int_equal(back.class_specific, 0xbeef);
    uint8_t again[CS_SA_HEADER_SIZE];
    cs_sa_header_encode(&back, again);
    assert_memory_equal(again, wire, sizeof wire);
}

static void test_node_record_golden(void **state)
{
    (void)state;
    uint8_t reply[CS_SA_MAD_SIZE] = {0};
    sa_hex(NODE_RECORD_REPLY, reply, sizeof reply);
    struct cs_sa_node_record r;
    cs_sa_node_record_decode(reply + CS_SA_HEADER_SIZE, &r);
    assert_int_equal(r.lid, 8);
    assert_int_equal(r.node_info.base_version, 1);
    assert_int_equal(r.node_info.class_version, 1);
    assert_int_equal(r.node_info.node_type, CS_SMP_NODE_TYPE_CA);
    assert_int_equal(r.node_info.num_ports, 1);
    assert_true(r.node_info.system_image_guid == UINT64_C(0x0010000000000100));
    assert_true(r.node_info.node_guid == UINT64_C(0x0010000000000100));
    assert_true(r.node_info.port_guid == UINT64_C(0x0010000000000101));
    assert_int_equal(r.node_info.partition_cap, 0x40);
    assert_int_equal(r.node_info.revision, 0xa1);
    assert_int_equal(r.node_info.local_port_num, 1);
    assert_string_equal(r.node_description.text, "host-1");
    uint8_t again[CS_SA_NODE_RECORD_SIZE];
    cs_sa_node_record_encode(&r, again);
    assert_memory_equal(again, reply + CS_SA_HEADER_SIZE, CS_SA_NODE_RECORD_SIZE);
}

static void test_path_record_golden(void **state)
{
    (void)state;
    uint8_t reply[CS_SA_MAD_SIZE] = {0};
    assert_int_equal(sa_hex(PATH_RECORD_REPLY, reply, sizeof reply), 120);
    struct cs_sa_path_record r;
    cs_sa_path_record_decode(reply + CS_SA_HEADER_SIZE, &r);
    assert_int_equal(r.dlid, 18);
    assert_int_equal(r.slid, 1);
    assert_int_equal(r.dgid[0], 0xfe);
    assert_int_equal(r.dgid[15], 0x01);
    assert_int_equal(r.dgid[14], 0x0b);
    assert_int_equal(r.sgid[15], 0x01);
    assert_int_equal(r.reversible, 1);
    assert_int_equal(r.numb_path, 0);
    assert_int_equal(r.pkey, 0xffff);
    assert_int_equal(r.sl, 0);
    assert_int_equal(r.mtu_selector, CS_SA_SELECTOR_EXACTLY);
    assert_int_equal(r.mtu, 4);   /* 2048 */
    assert_int_equal(r.rate, 16); /* 100 Gb/s: 4x EDR */
    assert_int_equal(r.packet_life_selector, CS_SA_SELECTOR_EXACTLY);
    assert_int_equal(r.packet_life, 18);
    assert_int_equal(r.preference, 0);
    assert_int_equal(r.reserved_353, 0);
    uint8_t again[CS_SA_PATH_RECORD_SIZE];
    cs_sa_path_record_encode(&r, again);
    assert_memory_equal(again, reply + CS_SA_HEADER_SIZE, CS_SA_PATH_RECORD_SIZE);
}

/* The caching flag is the bit at offset 353: byte 44, mask 0x40, and nothing else moves. */
static void test_path_record_caching_flag(void **state)
{
    (void)state;
    struct cs_sa_path_record r = {.raw_traffic = 1, .flow_label = 0xfffff, .dlid = 5};
    uint8_t off[CS_SA_PATH_RECORD_SIZE], on[CS_SA_PATH_RECORD_SIZE];
    cs_sa_path_record_encode(&r, off);
    r.reserved_353 = CS_SA_PATH_CACHING_FLAG;
    cs_sa_path_record_encode(&r, on);
    assert_int_equal(off[44], 0x8f); /* RawTraffic, then FlowLabel's top four bits */
    assert_int_equal(on[44], 0x8f | 0x40);
    on[44] = off[44];
    assert_memory_equal(on, off, sizeof on);
    struct cs_sa_path_record back;
    r.raw_traffic = 0;
    r.flow_label = 0;
    cs_sa_path_record_encode(&r, on);
    assert_int_equal(on[44], 0x40);
    cs_sa_path_record_decode(on, &back);
    assert_int_equal(back.reserved_353, CS_SA_PATH_CACHING_FLAG);
}

static void test_port_info_record_golden(void **state)
{
    (void)state;
    uint8_t bytes[CS_SA_PORT_INFO_RECORD_SIZE] = {0};
    assert_int_equal(sa_hex(PORT_INFO_RECORD, bytes, sizeof bytes), CS_SA_PORT_INFO_RECORD_SIZE);
    struct cs_sa_port_info_record r;
    cs_sa_port_info_record_decode(bytes, &r);
    assert_int_equal(r.lid, 1);
    assert_int_equal(r.port_num, 1);
    assert_int_equal(r.options, 0);
    assert_true(r.port_info.subnet_prefix == UINT64_C(0xfe80000000000000));
    assert_int_equal(r.port_info.lid, 1);
    assert_int_equal(r.port_info.master_sm_lid, 1);
    assert_int_equal(r.port_info.capability_mask, 0x0050c04a);
    assert_int_equal(r.port_info.link_width_active, 2);
    assert_int_equal(r.port_info.port_state, CS_SMP_PORT_STATE_ACTIVE);
    assert_int_equal(r.port_info.link_speed_active, 4);
    assert_int_equal(r.port_info.mtu_cap, 4);
    assert_int_equal(r.port_info.guid_cap, 32);
    assert_int_equal(r.port_info.link_speed_ext_active, 2);
    uint8_t again[CS_SA_PORT_INFO_RECORD_SIZE];
    cs_sa_port_info_record_encode(&r, again);
    assert_memory_equal(again, bytes, sizeof bytes);
}

static void test_link_and_guid_records_golden(void **state)
{
    (void)state;
    uint8_t links[16];
    assert_int_equal(sa_hex(LINK_RECORDS, links, sizeof links), 16);
    assert_int_equal(cs_sa_record_stride(CS_SA_LINK_RECORD_SIZE), 8);
    struct cs_sa_link_record l;
    cs_sa_link_record_decode(links + 8, &l);
    assert_int_equal(l.from_lid, 2);
    assert_int_equal(l.from_port, 2);
    assert_int_equal(l.to_port, 1);
    assert_int_equal(l.to_lid, 8);
    uint8_t again[CS_SA_LINK_RECORD_SIZE];
    cs_sa_link_record_encode(&l, again);
    assert_memory_equal(again, links + 8, sizeof again);

    uint8_t guids[CS_SA_GUID_INFO_RECORD_SIZE] = {0};
    sa_hex(GUID_INFO_RECORD, guids, sizeof guids);
    struct cs_sa_guid_info_record g;
    cs_sa_guid_info_record_decode(guids, &g);
    assert_int_equal(g.lid, 2);
    assert_int_equal(g.block, 0);
    assert_true(g.guids.guid[0] == UINT64_C(0x0020000100000000));
    assert_true(g.guids.guid[7] == 0);
    uint8_t g_again[CS_SA_GUID_INFO_RECORD_SIZE];
    cs_sa_guid_info_record_encode(&g, g_again);
    assert_memory_equal(g_again, guids, sizeof guids);
}

/* Random records survive encode/decode/encode: every field at its own offset and width. */
static void test_round_trips(void **state)
{
    (void)state;
    struct cs_rng rng;
    cs_rng_seed(&rng, 7);
    for (int i = 0; i < 200; i++) {
        uint8_t a[CS_SA_PATH_RECORD_SIZE], b[CS_SA_PATH_RECORD_SIZE];
        for (size_t k = 0; k < sizeof a; k++)
            a[k] = (uint8_t)cs_rng_next(&rng);
        memset(a + 58, 0, 6); /* reserved tail */
        struct cs_sa_path_record r;
        cs_sa_path_record_decode(a, &r);
        cs_sa_path_record_encode(&r, b);
        assert_memory_equal(a, b, sizeof a);

        uint8_t n[CS_SA_NODE_RECORD_SIZE], n2[CS_SA_NODE_RECORD_SIZE];
        for (size_t k = 0; k < sizeof n; k++)
            n[k] = (uint8_t)(cs_rng_next(&rng) % 95 + 32); /* no NUL: the description is full */
        n[2] = n[3] = 0;                                   /* reserved */
        struct cs_sa_node_record nr;
        cs_sa_node_record_decode(n, &nr);
        cs_sa_node_record_encode(&nr, n2);
        assert_memory_equal(n, n2, sizeof n);

        uint8_t h[CS_SA_HEADER_SIZE], h2[CS_SA_HEADER_SIZE];
        for (size_t k = 0; k < sizeof h; k++)
            h[k] = (uint8_t)cs_rng_next(&rng);
        h[18] = h[19] = h[46] = h[47] = 0;
        struct cs_sa_header hd;
        cs_sa_header_decode(h, &hd);
        cs_sa_header_encode(&hd, h2);
        assert_memory_equal(h, h2, sizeof h);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header_golden),
        cmocka_unit_test(test_header_fields),
        cmocka_unit_test(test_node_record_golden),
        cmocka_unit_test(test_path_record_golden),
        cmocka_unit_test(test_path_record_caching_flag),
        cmocka_unit_test(test_port_info_record_golden),
        cmocka_unit_test(test_link_and_guid_records_golden),
        cmocka_unit_test(test_round_trips),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
