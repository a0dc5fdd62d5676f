/* The LFT model: capacity in whole blocks, dirty-block bookkeeping, growth, tables for a fabric. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/lft.h"
#include "cloudsm/lid.h"

static void test_capacity_and_blocks(void **state)
{
    (void)state;
    struct cs_lfts t;
    struct cs_error err;
    assert_int_equal(cs_lfts_init(&t, 63, &err), 0);
    assert_int_equal(t.capacity, 64);
    assert_int_equal(cs_lfts_blocks(&t), 1);
    cs_lfts_free(&t);
    assert_int_equal(cs_lfts_init(&t, 64, &err), 0);
    assert_int_equal(t.capacity, 128); /* LID 64 opens block 1 */
    assert_int_equal(cs_lfts_blocks(&t), 2);
    cs_lfts_free(&t);
    /* 4864 LIDs (16-ary-3-tree, spec anchors-opensm-ibsim-orcs.md section 6): 77 blocks. */
    assert_int_equal(cs_lfts_init(&t, 4864, &err), 0);
    assert_int_equal(cs_lfts_blocks(&t), 77);
    cs_lfts_free(&t);
    assert_int_equal(cs_lfts_init(&t, CS_LID_UCAST_MAX, &err), 0);
    assert_int_equal(cs_lfts_blocks(&t), 768);
    assert_int_equal(t.dirty_words, 12);
    cs_lfts_free(&t);
    assert_int_equal(cs_lfts_init(&t, CS_LID_UCAST_MAX + 1, &err), -1);
    assert_non_null(strstr(err.msg, "beyond the unicast range"));
}

static void test_dirty_blocks(void **state)
{
    (void)state;
    struct cs_lfts t;
    struct cs_error err;
    assert_int_equal(cs_lfts_init(&t, 700, &err), 0);
    uint32_t a = cs_lfts_add_switch(&t, 0x10, 1, "a", CS_NONE, &err);
    uint32_t b = cs_lfts_add_switch(&t, 0x20, 2, "b", CS_NONE, &err);
    assert_int_equal(cs_lfts_get(&t, a, 5), CS_LFT_NO_ROUTE);
    assert_int_equal(cs_lfts_get(&t, a, 100000), CS_LFT_NO_ROUTE); /* beyond capacity */
    cs_lfts_set(&t, a, 5, 3);
    cs_lfts_set(&t, a, 640, 4); /* block 10 */
    cs_lfts_set(&t, b, 63, 0);
    assert_int_equal(cs_lfts_get(&t, a, 5), 3);
    for (uint32_t blk = 0; blk < cs_lfts_blocks(&t); blk++) {
        assert_int_equal(cs_lfts_block_dirty(&t, a, blk), blk == 0 || blk == 10);
        assert_int_equal(cs_lfts_block_dirty(&t, b, blk), blk == 0);
    }
    cs_lfts_clear_dirty(&t);
    assert_false(cs_lfts_block_dirty(&t, a, 0));
    assert_int_equal(cs_lfts_get(&t, a, 640), 4); /* clearing marks keeps the entries */
    cs_lfts_mark_all(&t);
    assert_true(cs_lfts_block_dirty(&t, b, 10));
    assert_int_equal(cs_lfts_find(&t, 0x20), b);
    assert_int_equal(cs_lfts_find(&t, 0x30), CS_NONE);
    cs_lfts_free(&t);
}

static void test_grow_keeps_entries_and_marks(void **state)
{
    (void)state;
    struct cs_lfts t;
    struct cs_error err;
    assert_int_equal(cs_lfts_init(&t, 10, &err), 0);
    for (uint64_t g = 1; g <= 40; g++) /* more switches than the first allocation */
        assert_int_not_equal(cs_lfts_add_switch(&t, g, (uint16_t)g, "s", CS_NONE, &err), CS_NONE);
    cs_lfts_set(&t, 39, 7, 9);
    assert_int_equal(cs_lfts_grow(&t, 5000, &err), 0);
    assert_int_equal(t.max_lid, 5000);
    assert_int_equal(t.capacity, 5056);
    assert_int_equal(cs_lfts_get(&t, 39, 7), 9);
    assert_true(cs_lfts_block_dirty(&t, 39, 0));
    assert_false(cs_lfts_block_dirty(&t, 38, 0));
    assert_int_equal(cs_lfts_get(&t, 39, 5000), CS_LFT_NO_ROUTE);
    cs_lfts_set(&t, 0, 4999, 2);
    assert_true(cs_lfts_block_dirty(&t, 0, 78));
    assert_int_equal(cs_lfts_grow(&t, 100, &err), 0); /* never shrinks */
    assert_int_equal(t.max_lid, 5000);
    cs_lfts_free(&t);
}

static void test_for_fabric(void **state)
{
    (void)state;
    struct cs_fabric f;
    struct cs_error err;
    cs_fabric_init(&f);
    uint32_t ca = cs_fabric_add_node(&f, CS_NODE_CA, 0x1000, 1, "host", &err);
    uint32_t sw = cs_fabric_add_node(&f, CS_NODE_SWITCH, 0x100, 4, "leaf", &err);
    assert_int_equal(
        cs_fabric_connect(&f, cs_fabric_port(&f, ca, 1), cs_fabric_port(&f, sw, 1), &err), 0);
    f.ports[cs_fabric_port(&f, sw, 0)].lid = 1;
    f.ports[cs_fabric_port(&f, ca, 1)].lid = 4;
    f.ports[cs_fabric_port(&f, ca, 1)].lmc = 2; /* LIDs 4-7 */
    struct cs_lfts t;
    assert_int_equal(cs_lfts_for_fabric(&t, &f, &err), 0);
    assert_int_equal(t.num_switches, 1);
    assert_int_equal(t.switches[0].guid, 0x100);
    assert_int_equal(t.switches[0].node, sw);
    assert_int_equal(t.switches[0].lid, 1);
    assert_string_equal(t.switches[0].desc, "leaf");
    assert_int_equal(t.max_lid, 7);
    for (uint32_t lid = 4; lid <= 7; lid++) {
        assert_int_equal(t.targets[lid].port_guid, 0x1001);
        assert_int_equal(t.targets[lid].type, CS_NODE_CA);
        assert_string_equal(t.targets[lid].desc, "host");
    }
    assert_int_equal(t.targets[1].type, CS_NODE_SWITCH);
    assert_int_equal(t.targets[2].type, 0); /* unused LID */
    assert_int_equal(cs_lfts_get(&t, 0, 4), CS_LFT_NO_ROUTE);
    cs_lfts_free(&t);
    cs_fabric_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_capacity_and_blocks),
        cmocka_unit_test(test_dirty_blocks),
        cmocka_unit_test(test_grow_keeps_entries_and_marks),
        cmocka_unit_test(test_for_fabric),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
