/* The SA's records of the switches' and ports' tables (src/sa/sa_tables.c, the codecs in
 * src/sa/sa_mad.c): SwitchInfoRecord, LFTRecord, SL2VLTableRecord, P_KeyTableRecord,
 * VLArbitrationTableRecord on
 * the rig's ibsim view of the PGFT (sa_rig.h): which records, in which order, narrowed by which
 * components, who may see them; and the codecs' round trips and byte layouts. The answers
 * against OpenSM 3.3.23's on ibsim: tests/integration/cloudsmd_sa_tables.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/rng.h"
#include "sa_rig.h"

/* ---- Codecs ---- */

static void test_codecs_round_trip(void **state)
{
    (void)state;
    struct cs_rng rng;
    cs_rng_seed(&rng, 7);
    for (int i = 0; i < 200; i++) {
        uint8_t b[CS_SA_LFT_RECORD_SIZE];
        struct cs_sa_switch_info_record si = {.lid = (uint16_t)cs_rng_next(&rng)}, si2;
        si.switch_info.linear_fdb_cap = (uint16_t)cs_rng_next(&rng);
        si.switch_info.linear_fdb_top = (uint16_t)cs_rng_next(&rng);
        si.switch_info.life_time_value = (uint8_t)(cs_rng_next(&rng) & 31);
        si.switch_info.partition_enforcement_cap = (uint16_t)cs_rng_next(&rng);
        si.switch_info.multicast_fdb_top = (uint16_t)cs_rng_next(&rng);
        cs_sa_switch_info_record_encode(&si, b);
        cs_sa_switch_info_record_decode(b, &si2);
        assert_int_equal(si.lid, si2.lid);
        assert_int_equal(si.switch_info.linear_fdb_cap, si2.switch_info.linear_fdb_cap);
        assert_int_equal(si.switch_info.linear_fdb_top, si2.switch_info.linear_fdb_top);
        assert_int_equal(si.switch_info.life_time_value, si2.switch_info.life_time_value);
        assert_int_equal(si.switch_info.partition_enforcement_cap,
                         si2.switch_info.partition_enforcement_cap);
        assert_int_equal(si.switch_info.multicast_fdb_top, si2.switch_info.multicast_fdb_top);

        struct cs_sa_lft_record l = {.lid = (uint16_t)cs_rng_next(&rng),
                                     .block = (uint16_t)cs_rng_next(&rng)},
                                l2;
        for (int k = 0; k < CS_LFT_PORTS_PER_BLOCK; k++)
            l.lft.port[k] = (uint8_t)cs_rng_next(&rng);
        cs_sa_lft_record_encode(&l, b);
        cs_sa_lft_record_decode(b, &l2);
        assert_int_equal(l.lid, l2.lid);
        assert_int_equal(l.block, l2.block);
        assert_memory_equal(l.lft.port, l2.lft.port, sizeof l.lft.port);

        struct cs_sa_sl2vl_record q = {.lid = (uint16_t)cs_rng_next(&rng),
                                       .in_port = (uint8_t)cs_rng_next(&rng),
                                       .out_port = (uint8_t)cs_rng_next(&rng)},
                                  q2;
        for (int k = 0; k < CS_SL2VL_ENTRIES; k++)
            q.sl2vl.vl[k] = (uint8_t)(cs_rng_next(&rng) & 15);
        cs_sa_sl2vl_record_encode(&q, b);
        cs_sa_sl2vl_record_decode(b, &q2);
        assert_int_equal(q.lid, q2.lid);
        assert_int_equal(q.in_port, q2.in_port);
        assert_int_equal(q.out_port, q2.out_port);
        assert_memory_equal(q.sl2vl.vl, q2.sl2vl.vl, sizeof q.sl2vl.vl);

        struct cs_sa_pkey_table_record p = {.lid = (uint16_t)cs_rng_next(&rng),
                                            .block = (uint16_t)cs_rng_next(&rng),
                                            .port_num = (uint8_t)cs_rng_next(&rng)},
                                       p2;
        for (int k = 0; k < CS_PKEYS_PER_BLOCK; k++)
            p.pkeys.pkey[k] = (uint16_t)cs_rng_next(&rng);
        cs_sa_pkey_table_record_encode(&p, b);
        cs_sa_pkey_table_record_decode(b, &p2);
        assert_int_equal(p.lid, p2.lid);
        assert_int_equal(p.block, p2.block);
        assert_int_equal(p.port_num, p2.port_num);
        assert_memory_equal(p.pkeys.pkey, p2.pkeys.pkey, sizeof p.pkeys.pkey);

        struct cs_sa_vl_arb_record v = {.lid = (uint16_t)cs_rng_next(&rng),
                                        .port_num = (uint8_t)cs_rng_next(&rng),
                                        .block = (uint8_t)cs_rng_next(&rng)},
                                   v2;
        for (int k = 0; k < CS_SA_VL_ARB_ENTRIES; k++)
            v.entry[k] = (struct cs_sa_vl_arb_entry){(uint8_t)(cs_rng_next(&rng) & 15),
                                                     (uint8_t)cs_rng_next(&rng)};
        cs_sa_vl_arb_record_encode(&v, b);
        cs_sa_vl_arb_record_decode(b, &v2);
        assert_int_equal(v.lid, v2.lid);
        assert_int_equal(v.port_num, v2.port_num);
        assert_int_equal(v.block, v2.block);
        assert_memory_equal(v.entry, v2.entry, sizeof v.entry);
    }
}

static void test_codec_layouts(void **state)
{
    (void)state;
    uint8_t b[CS_SA_LFT_RECORD_SIZE];
    /* LFTRecord: LID, BlockNum big-endian, 4 reserved bytes, the ports. */
    struct cs_sa_lft_record l = {.lid = 0x0102, .block = 0x0304};
    l.lft.port[0] = 7;
    l.lft.port[63] = 9;
    cs_sa_lft_record_encode(&l, b);
    static const uint8_t lft_head[] = {1, 2, 3, 4, 0, 0, 0, 0, 7};
    assert_memory_equal(b, lft_head, sizeof lft_head);
    assert_int_equal(b[71], 9);
    /* P_KeyTableRecord: BlockNum as OpenSM answers it (least significant byte first), PortNum at
     * byte 4, the P_Keys big-endian from byte 8; a request's block in the IBA's order. */
    struct cs_sa_pkey_table_record p = {.lid = 0x0001, .block = 1, .port_num = 3};
    p.pkeys.pkey[0] = 0xffff;
    p.pkeys.pkey[1] = 0x8001;
    cs_sa_pkey_table_record_encode(&p, b);
    static const uint8_t pkey_head[] = {0, 1, 1, 0, 3, 0, 0, 0, 0xff, 0xff, 0x80, 0x01};
    assert_memory_equal(b, pkey_head, sizeof pkey_head);
    b[2] = 0;
    b[3] = 2;
    assert_int_equal(cs_sa_pkey_table_request_block(b), 2);
    /* VLArbTableRecord: LID, port, block, 4 reserved bytes, entries of 4 reserved bits, VL,
     * weight. */
    struct cs_sa_vl_arb_record v = {.lid = 5, .port_num = 2, .block = 3};
    v.entry[0] = (struct cs_sa_vl_arb_entry){.vl = 0xa, .weight = 0x40};
    cs_sa_vl_arb_record_encode(&v, b);
    static const uint8_t vla_head[] = {0, 5, 2, 3, 0, 0, 0, 0, 0x0a, 0x40};
    assert_memory_equal(b, vla_head, sizeof vla_head);
    /* SwitchInfoRecord: LID, 2 reserved bytes, SwitchInfo from byte 4. */
    struct cs_sa_switch_info_record si = {.lid = 2};
    si.switch_info.linear_fdb_cap = 0x7800;
    si.switch_info.multicast_fdb_top = 0xc001;
    uint8_t s[CS_SA_SWITCH_INFO_RECORD_SIZE];
    cs_sa_switch_info_record_encode(&si, s);
    static const uint8_t swir_head[] = {0, 2, 0, 0, 0x78, 0};
    assert_memory_equal(s, swir_head, sizeof swir_head);
    assert_int_equal(s[22], 0xc0);
    assert_int_equal(s[23], 0x01);
}

/* ---- Answers ---- */

static struct rig *ibsim_rig(void)
{
    struct rig *r = calloc(1, sizeof *r);
    struct cs_fabric f;
    assert_non_null(r);
    gen_pgft(&f);
    rig_ibsim(r, &f);
    cs_fabric_free(&f);
    /* What the SM would have set: each switch's LinearFDBTop at the highest LID. */
    for (uint32_t n = 0; n < r->s.fabric.num_nodes; n++)
        if (cs_node_is_switch(&r->s.fabric.nodes[n])) {
            r->s.switch_info[n].linear_fdb_top = 28;
            r->s.switch_info[n].linear_fdb_cap = 0x7800;
        }
    rig_build_db(r);
    return r;
}

static void free_rig(struct rig *r)
{
    rig_close(r);
    free(r);
}

static uint32_t node_of_lid(const struct rig *r, uint16_t lid)
{
    for (uint32_t p = 0; p < r->s.fabric.num_port_slots; p++)
        if (r->s.fabric.ports[p].lid == lid)
            return r->s.fabric.ports[p].node;
    fail_msg("no LID %u", lid);
    return CS_NONE;
}

static void test_switch_info_records(void **state)
{
    (void)state;
    struct rig *r = ibsim_rig();
    uint8_t rec[CS_SA_SWITCH_INFO_RECORD_SIZE] = {0};
    /* Every switch once, in OpenSM's switch table order: sw-L1-0 (LID 2) first, then the
     * byte-swapped GUID order puts sw-L2-0 (3) and sw-L3-0 (4) before sw-L1-1 (5). */
    assert_int_equal(table(r, 1, CS_SA_ATTR_SWITCH_INFO_RECORD, 0, 0, rec, sizeof rec), 16);
    struct cs_sa_switch_info_record got;
    uint16_t lids[3];
    for (int i = 0; i < 3; i++) {
        cs_sa_switch_info_record_decode(record_at(r, sizeof rec, (uint32_t)i), &got);
        lids[i] = got.lid;
        assert_int_equal(got.switch_info.linear_fdb_top, 28);
        assert_int_equal(got.switch_info.linear_fdb_cap, 0x7800);
    }
    assert_int_equal(lids[0], 2);
    assert_int_equal(lids[1], 3);
    assert_int_equal(lids[2], 4);
    /* By LID: the switch's record; a host's LID or LID 0 has none. */
    struct cs_sa_switch_info_record want = {.lid = 5};
    cs_sa_switch_info_record_encode(&want, rec);
    assert_int_equal(query(r, 1, CS_SA_METHOD_GET, CS_SA_ATTR_SWITCH_INFO_RECORD, CS_SA_SWIR_LID, 0,
                           rec, sizeof rec),
                     0);
    cs_sa_switch_info_record_decode(record_at(r, sizeof rec, 0), &got);
    assert_int_equal(got.lid, 5);
    want.lid = 8;
    cs_sa_switch_info_record_encode(&want, rec);
    assert_int_equal(query(r, 1, CS_SA_METHOD_GET, CS_SA_ATTR_SWITCH_INFO_RECORD, CS_SA_SWIR_LID, 0,
                           rec, sizeof rec),
                     CS_SA_STATUS_NO_RECORDS);
    want.lid = 0;
    cs_sa_switch_info_record_encode(&want, rec);
    assert_int_equal(table(r, 1, CS_SA_ATTR_SWITCH_INFO_RECORD, CS_SA_SWIR_LID, 0, rec, sizeof rec),
                     0);
    /* Without the LID in the mask, a Get finds too many. */
    assert_int_equal(
        query(r, 1, CS_SA_METHOD_GET, CS_SA_ATTR_SWITCH_INFO_RECORD, 0, 0, rec, sizeof rec),
        CS_SA_STATUS_TOO_MANY_RECORDS);
    free_rig(r);
}

static void test_lft_records(void **state)
{
    (void)state;
    struct rig *r = ibsim_rig();
    uint8_t rec[CS_SA_LFT_RECORD_SIZE] = {0};
    /* LinearFDBTop 28: block 0 of each of the 16 switches. */
    assert_int_equal(table(r, 1, CS_SA_ATTR_LFT_RECORD, 0, 0, rec, sizeof rec), 16);
    struct cs_sa_lft_record want = {.lid = 3, .block = 0}, got;
    cs_sa_lft_record_encode(&want, rec);
    assert_int_equal(query(r, 1, CS_SA_METHOD_GET, CS_SA_ATTR_LFT_RECORD,
                           CS_SA_LFTR_LID | CS_SA_LFTR_BLOCK, 0, rec, sizeof rec),
                     0);
    cs_sa_lft_record_decode(record_at(r, sizeof rec, 0), &got);
    assert_int_equal(got.lid, 3);
    assert_int_equal(got.block, 0);
    uint32_t sw = cs_lfts_find(&r->lfts, r->s.fabric.nodes[node_of_lid(r, 3)].guid);
    assert_int_not_equal(sw, CS_NONE);
    for (uint32_t lid = 0; lid < CS_LFT_PORTS_PER_BLOCK; lid++)
        assert_int_equal(got.lft.port[lid], cs_lfts_get(&r->lfts, sw, lid));
    assert_int_equal(got.lft.port[3], 0);                /* itself */
    assert_int_equal(got.lft.port[29], CS_LFT_NO_ROUTE); /* beyond the highest LID */
    /* A block beyond the top, a host's LID: nothing. */
    want.block = 1;
    cs_sa_lft_record_encode(&want, rec);
    assert_int_equal(
        table(r, 1, CS_SA_ATTR_LFT_RECORD, CS_SA_LFTR_LID | CS_SA_LFTR_BLOCK, 0, rec, sizeof rec),
        0);
    want = (struct cs_sa_lft_record){.lid = 1};
    cs_sa_lft_record_encode(&want, rec);
    assert_int_equal(table(r, 1, CS_SA_ATTR_LFT_RECORD, CS_SA_LFTR_LID, 0, rec, sizeof rec), 0);
    free_rig(r);
}

static void test_vl_arb_records(void **state)
{
    (void)state;
    struct rig *r = ibsim_rig();
    uint8_t rec[CS_SA_VL_ARB_RECORD_SIZE] = {0};
    /* A host: its own port, blocks 1..4, whatever port the request names. */
    struct cs_sa_vl_arb_record want = {.lid = 8, .port_num = 7}, got;
    cs_sa_vl_arb_record_encode(&want, rec);
    assert_int_equal(table(r, 1, CS_SA_ATTR_VL_ARB_TABLE_RECORD,
                           CS_SA_VLAR_LID | CS_SA_VLAR_OUT_PORT, 0, rec, sizeof rec),
                     4);
    for (uint32_t i = 0; i < 4; i++) {
        cs_sa_vl_arb_record_decode(record_at(r, sizeof rec, i), &got);
        assert_int_equal(got.lid, 8);
        assert_int_equal(got.port_num, 1);
        assert_int_equal(got.block, i + 1);
        /* The SM neither reads nor programs VL arbitration: no entry known. */
        for (int k = 0; k < CS_SA_VL_ARB_ENTRIES; k++)
            assert_int_equal(got.entry[k].weight, 0);
    }
    /* A switch (sw-L1-0: 3 ports): every port 0..3, four blocks each; one port; one block. */
    want = (struct cs_sa_vl_arb_record){.lid = 2, .port_num = 2, .block = 3};
    cs_sa_vl_arb_record_encode(&want, rec);
    uint32_t ports = r->s.fabric.nodes[node_of_lid(r, 2)].num_ports;
    assert_int_equal(
        table(r, 1, CS_SA_ATTR_VL_ARB_TABLE_RECORD, CS_SA_VLAR_LID, 0, rec, sizeof rec),
        (ports + 1) * 4);
    assert_int_equal(table(r, 1, CS_SA_ATTR_VL_ARB_TABLE_RECORD,
                           CS_SA_VLAR_LID | CS_SA_VLAR_OUT_PORT, 0, rec, sizeof rec),
                     4);
    assert_int_equal(query(r, 1, CS_SA_METHOD_GET, CS_SA_ATTR_VL_ARB_TABLE_RECORD,
                           CS_SA_VLAR_LID | CS_SA_VLAR_OUT_PORT | CS_SA_VLAR_BLOCK, 0, rec,
                           sizeof rec),
                     0);
    cs_sa_vl_arb_record_decode(record_at(r, sizeof rec, 0), &got);
    assert_int_equal(got.port_num, 2);
    assert_int_equal(got.block, 3);
    /* Block 5 and a port beyond the switch's: nothing. */
    want.block = 5;
    cs_sa_vl_arb_record_encode(&want, rec);
    assert_int_equal(table(r, 1, CS_SA_ATTR_VL_ARB_TABLE_RECORD, CS_SA_VLAR_LID | CS_SA_VLAR_BLOCK,
                           0, rec, sizeof rec),
                     0);
    want = (struct cs_sa_vl_arb_record){.lid = 2, .port_num = (uint8_t)(ports + 1)};
    cs_sa_vl_arb_record_encode(&want, rec);
    assert_int_equal(table(r, 1, CS_SA_ATTR_VL_ARB_TABLE_RECORD,
                           CS_SA_VLAR_LID | CS_SA_VLAR_OUT_PORT, 0, rec, sizeof rec),
                     0);
    free_rig(r);
}

/* P_Key tables as the SM would hold them: one block on every CA port, 0xffff at index 0; the
 * SM's own port's table unknown (its read failed). */
static void hold_pkeys(struct rig *r, struct cs_sm_pkey_tables *t)
{
    uint32_t n = r->s.fabric.num_port_slots;
    cs_sm_pkey_tables_init(t);
    t->num_ports = n;
    t->capacity = calloc(n, sizeof *t->capacity);
    t->first = calloc(n, sizeof *t->first);
    t->known = calloc(n, sizeof *t->known);
    t->pkeys = calloc((size_t)n * CS_PKEYS_PER_BLOCK, sizeof *t->pkeys);
    assert_true(t->capacity && t->first && t->known && t->pkeys);
    for (uint32_t p = 0; p < n; p++) {
        const struct cs_port *port = &r->s.fabric.ports[p];
        if (cs_node_is_switch(&r->s.fabric.nodes[port->node]) || port->guid == 0)
            continue;
        t->capacity[p] = CS_PKEYS_PER_BLOCK;
        t->first[p] = (uint64_t)p * CS_PKEYS_PER_BLOCK;
        t->known[p] = p != r->s.sm_port;
        t->pkeys[t->first[p]] = 0xffff;
        t->pkeys[t->first[p] + 1] = (uint16_t)(0x8000 | p);
    }
}

static void test_pkey_table_records(void **state)
{
    (void)state;
    struct rig *r = ibsim_rig();
    uint8_t req[CS_SA_MAD_SIZE], rec[CS_SA_PKEY_TABLE_RECORD_SIZE];
    struct cs_sa_pkey_table_record want = {.lid = 8}, got;
    cs_sa_pkey_table_record_encode(&want, rec);
    /* Without the SM's tables: none, even for a trusted requester. */
    r->opt.sm_key = 1;
    rig_build_db(r);
    sa_request(CS_SA_METHOD_GET_TABLE, CS_SA_ATTR_PKEY_TABLE_RECORD, CS_SA_PKTR_LID, 0, 0x42, rec,
               sizeof rec, req);
    cs_bits_set(req, 36 * 8, 64, 1); /* SM_Key */
    assert_int_equal(ask(r, 1, req, sizeof req), 1);
    assert_int_equal(reply_header(r).status, 0);
    assert_int_equal(reply_records(r, sizeof rec), 0);

    struct cs_sm_pkey_tables t;
    hold_pkeys(r, &t);
    r->opt.pkey_tables = &t;
    rig_build_db(r);
    assert_int_equal(ask(r, 1, req, sizeof req), 1);
    assert_int_equal(reply_header(r).status, 0);
    assert_int_equal(reply_records(r, sizeof rec), 1);
    cs_sa_pkey_table_record_decode(record_at(r, sizeof rec, 0), &got);
    uint32_t port = port_of(r, HOST_PORT_GUID(1));
    assert_int_equal(got.lid, 8);
    assert_int_equal(got.port_num, 1);
    assert_int_equal(got.block, 0);
    assert_int_equal(got.pkeys.pkey[0], 0xffff);
    assert_int_equal(got.pkeys.pkey[1], 0x8000 | port);
    /* Untrusted (no SM_Key): refused; a local caller is the SM itself. */
    cs_bits_set(req, 36 * 8, 64, 0);
    assert_int_equal(ask(r, 1, req, sizeof req), 1);
    assert_int_equal(reply_header(r).status, CS_SA_STATUS_REQ_INVALID);
    assert_int_equal(ask(r, 0, req, sizeof req), 1);
    assert_int_equal(reply_records(r, sizeof rec), 1);
    /* The whole table: one record per CA port whose table is known (the SM's is not). */
    sa_request(CS_SA_METHOD_GET_TABLE, CS_SA_ATTR_PKEY_TABLE_RECORD, 0, 0, 0x42, rec, sizeof rec,
               req);
    assert_int_equal(ask(r, 0, req, sizeof req), 1);
    assert_int_equal(reply_records(r, sizeof rec), 11);
    /* Block 1 (in the IBA's order in the request) does not exist; switches have no tables. */
    sa_request(CS_SA_METHOD_GET_TABLE, CS_SA_ATTR_PKEY_TABLE_RECORD,
               CS_SA_PKTR_LID | CS_SA_PKTR_BLOCK, 0, 0x42, rec, sizeof rec, req);
    req[CS_SA_HEADER_SIZE + 3] = 1;
    assert_int_equal(ask(r, 0, req, sizeof req), 1);
    assert_int_equal(reply_records(r, sizeof rec), 0);
    req[CS_SA_HEADER_SIZE + 3] = 0;
    assert_int_equal(ask(r, 0, req, sizeof req), 1);
    assert_int_equal(reply_records(r, sizeof rec), 1);
    req[CS_SA_HEADER_SIZE + 1] = 2; /* LID 2: sw-L1-0 */
    assert_int_equal(ask(r, 0, req, sizeof req), 1);
    assert_int_equal(reply_records(r, sizeof rec), 0);
    r->opt.pkey_tables = NULL;
    rig_build_db(r);
    free(t.capacity);
    free(t.first);
    free(t.known);
    free(t.pkeys);
    free_rig(r);
}

/* SL2VLTableRecords: the tables the SM holds, a CA's with ports 0/0, a switch's by output then
 * input port; none without them. */
static void test_sl2vl_records(void **state)
{
    (void)state;
    struct rig *r = ibsim_rig();
    uint8_t rec[CS_SA_SL2VL_RECORD_SIZE] = {0};
    assert_int_equal(table(r, 1, CS_SA_ATTR_SL2VL_TABLE_RECORD, 0, 0, rec, sizeof rec), 0);
    /* Host 1's port (LID 8), and sw-L1-0 (LID 2): output ports 1 and 2, inputs 0 and 2 / 1. */
    uint32_t host = port_of(r, HOST_PORT_GUID(1));
    uint32_t sw = r->s.fabric.nodes[node_of_lid(r, 2)].first_port;
    struct cs_sm_sl2vl_entry e[] = {
        {.out_port = sw + 1, .in_port = 0},
        {.out_port = sw + 1, .in_port = 2},
        {.out_port = sw + 2, .in_port = 1},
        {.out_port = host, .in_port = 0},
    };
    for (size_t i = 0; i < sizeof e / sizeof e[0]; i++)
        for (unsigned sl = 0; sl < CS_SL2VL_ENTRIES; sl++)
            e[i].table.vl[sl] = (uint8_t)((sl + i) & 15);
    if (e[3].out_port < e[0].out_port) { /* keep the order by output port slot */
        struct cs_sm_sl2vl_entry h = e[3];
        memmove(&e[1], &e[0], 3 * sizeof e[0]);
        e[0] = h;
    }
    struct cs_sm_sl2vl_tables t = {
        .entries = e, .count = 4, .num_ports = r->s.fabric.num_port_slots};
    r->opt.sl2vl_tables = &t;
    rig_build_db(r);
    struct cs_sa_sl2vl_record want = {.lid = 8, .in_port = 5, .out_port = 5}, got;
    cs_sa_sl2vl_record_encode(&want, rec);
    /* A CA: its one table, ports 0/0, whatever the request names. */
    assert_int_equal(query(r, 1, CS_SA_METHOD_GET, CS_SA_ATTR_SL2VL_TABLE_RECORD,
                           CS_SA_SL2VL_LID | CS_SA_SL2VL_IN_PORT | CS_SA_SL2VL_OUT_PORT, 0, rec,
                           sizeof rec),
                     0);
    cs_sa_sl2vl_record_decode(record_at(r, sizeof rec, 0), &got);
    assert_int_equal(got.lid, 8);
    assert_int_equal(got.in_port, 0);
    assert_int_equal(got.out_port, 0);
    for (size_t i = 0; i < 4; i++)
        if (e[i].out_port == host)
            assert_memory_equal(got.sl2vl.vl, e[i].table.vl, CS_SL2VL_ENTRIES);
    /* The switch: three tables, output 1 (inputs 0, 2) then output 2 (input 1). */
    want = (struct cs_sa_sl2vl_record){.lid = 2, .in_port = 2, .out_port = 1};
    cs_sa_sl2vl_record_encode(&want, rec);
    assert_int_equal(
        table(r, 1, CS_SA_ATTR_SL2VL_TABLE_RECORD, CS_SA_SL2VL_LID, 0, rec, sizeof rec), 3);
    static const uint8_t order[3][2] = {{0, 1}, {2, 1}, {1, 2}};
    for (uint32_t i = 0; i < 3; i++) {
        cs_sa_sl2vl_record_decode(record_at(r, sizeof rec, i), &got);
        assert_int_equal(got.in_port, order[i][0]);
        assert_int_equal(got.out_port, order[i][1]);
    }
    assert_int_equal(query(r, 1, CS_SA_METHOD_GET, CS_SA_ATTR_SL2VL_TABLE_RECORD,
                           CS_SA_SL2VL_LID | CS_SA_SL2VL_IN_PORT | CS_SA_SL2VL_OUT_PORT, 0, rec,
                           sizeof rec),
                     0);
    cs_sa_sl2vl_record_decode(record_at(r, sizeof rec, 0), &got);
    assert_int_equal(got.in_port, 2);
    assert_int_equal(got.out_port, 1);
    /* Everything: the four, a stale set (another fabric's slots): none. */
    assert_int_equal(table(r, 1, CS_SA_ATTR_SL2VL_TABLE_RECORD, 0, 0, rec, sizeof rec), 4);
    t.num_ports++;
    rig_build_db(r);
    assert_int_equal(table(r, 1, CS_SA_ATTR_SL2VL_TABLE_RECORD, 0, 0, rec, sizeof rec), 0);
    r->opt.sl2vl_tables = NULL;
    rig_build_db(r);
    free_rig(r);
}

/* A requester sees the switches' records only when it shares a partition with them. */
static void test_partitions_hide_switches(void **state)
{
    (void)state;
    struct rig *r = ibsim_rig();
    rig_partition(r, "Default=0x7fff : 0x0010000000000001=full ;\n"
                     "P1=0x0001 : 0x0010000000000101=full ;\n");
    uint8_t rec[CS_SA_LFT_RECORD_SIZE] = {0};
    assert_int_equal(
        table(r, 1, CS_SA_ATTR_SWITCH_INFO_RECORD, 0, 0, rec, CS_SA_SWITCH_INFO_RECORD_SIZE), 16);
    assert_int_equal(
        table(r, 8, CS_SA_ATTR_SWITCH_INFO_RECORD, 0, 0, rec, CS_SA_SWITCH_INFO_RECORD_SIZE), 0);
    assert_int_equal(table(r, 8, CS_SA_ATTR_LFT_RECORD, 0, 0, rec, sizeof rec), 0);
    free_rig(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_codecs_round_trip),   cmocka_unit_test(test_codec_layouts),
        cmocka_unit_test(test_switch_info_records), cmocka_unit_test(test_lft_records),
        cmocka_unit_test(test_vl_arb_records),      cmocka_unit_test(test_sl2vl_records),
        cmocka_unit_test(test_pkey_table_records),  cmocka_unit_test(test_partitions_hide_switches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
