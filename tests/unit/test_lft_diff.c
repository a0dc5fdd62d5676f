/* LFT differences counted as LFT-block SMPs (one per switch and changed 64-LID block). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/lft_diff.h"
#include "cloudsm/lft_io.h"

#define DATA CLOUDSM_TEST_DATA "/lft/"

/* Switches 0xA and 0xB, max LID 200 (blocks 0..3), a few routes. */
static void build(struct cs_lfts *t, uint16_t max_lid)
{
    struct cs_error err;
    assert_int_equal(cs_lfts_init(t, max_lid, &err), 0);
    assert_int_equal(cs_lfts_add_switch(t, 0xA, 1, "swA", CS_NONE, &err), 0);
    assert_int_equal(cs_lfts_add_switch(t, 0xB, 2, "swB", CS_NONE, &err), 1);
    for (uint32_t lid = 1; lid <= 200 && lid <= max_lid; lid++) {
        cs_lfts_set(t, 0, lid, (uint8_t)(1 + lid % 4));
        cs_lfts_set(t, 1, lid, (uint8_t)(1 + lid % 3));
    }
}

static void diff_ok(const struct cs_lfts *a, const struct cs_lfts *b, struct cs_lft_diff *d)
{
    struct cs_error err = {""};
    if (cs_lft_diff(a, b, d, &err) != 0)
        fail_msg("%s", err.msg);
}

static const struct cs_lft_switch_diff *find(const struct cs_lft_diff *d, uint64_t guid)
{
    for (uint32_t i = 0; i < d->num_per_switch; i++)
        if (d->per_switch[i].guid == guid)
            return &d->per_switch[i];
    fail_msg("switch %llx not in the diff", (unsigned long long)guid);
    return NULL;
}

static void test_identical(void **state)
{
    (void)state;
    struct cs_lfts a, b;
    struct cs_lft_diff d;
    build(&a, 200);
    build(&b, 200);
    diff_ok(&a, &b, &d);
    assert_int_equal(d.switches_changed, 0);
    assert_int_equal(d.blocks_changed, 0);
    assert_int_equal(d.entries_changed, 0);
    assert_int_equal(d.switches_old, 2);
    assert_int_equal(d.switches_new, 2);
    assert_int_equal(d.num_per_switch, 2);
    assert_int_equal(d.per_switch[0].presence, CS_LFT_IN_BOTH);
    assert_string_equal(d.per_switch[1].desc, "swB");
    cs_lft_diff_free(&d);
    cs_lfts_free(&a);
    cs_lfts_free(&b);
}

static void test_entries_and_blocks(void **state)
{
    (void)state;
    struct cs_lfts a, b;
    struct cs_lft_diff d;
    build(&a, 200);
    build(&b, 200);

    /* one entry */
    cs_lfts_set(&b, 0, 70, 9);
    diff_ok(&a, &b, &d);
    assert_int_equal(d.blocks_changed, 1);
    assert_int_equal(d.entries_changed, 1);
    assert_int_equal(d.switches_changed, 1);
    assert_int_equal(find(&d, 0xA)->blocks_changed, 1);
    assert_int_equal(find(&d, 0xB)->blocks_changed, 0);
    cs_lft_diff_free(&d);

    /* a second entry of the same block (64..127) is still one SMP */
    cs_lfts_set(&b, 0, 127, 9);
    diff_ok(&a, &b, &d);
    assert_int_equal(d.blocks_changed, 1);
    assert_int_equal(d.entries_changed, 2);
    cs_lft_diff_free(&d);

    /* LID 128 starts block 2; on switch B, LIDs 0 and 200 are blocks 0 and 3 */
    cs_lfts_set(&b, 0, 128, 9);
    cs_lfts_set(&b, 1, 0, 0);
    cs_lfts_set(&b, 1, 200, CS_LFT_NO_ROUTE);
    diff_ok(&a, &b, &d);
    assert_int_equal(find(&d, 0xA)->blocks_changed, 2);
    assert_int_equal(find(&d, 0xA)->entries_changed, 3);
    assert_int_equal(find(&d, 0xB)->blocks_changed, 2);
    assert_int_equal(find(&d, 0xB)->entries_changed, 2);
    assert_int_equal(d.blocks_changed, 4);
    assert_int_equal(d.entries_changed, 5);
    assert_int_equal(d.switches_changed, 2);
    cs_lft_diff_free(&d);
    cs_lfts_free(&a);
    cs_lfts_free(&b);
}

/* A LID beyond one set's capacity counts as "no route" there. */
static void test_capacity_mismatch(void **state)
{
    (void)state;
    struct cs_lfts small, big;
    struct cs_lft_diff d;
    struct cs_error err;
    build(&small, 100); /* capacity 128: blocks 0, 1 */
    build(&big, 100);
    assert_int_equal(cs_lfts_grow(&big, 1000, &err), 0); /* blocks 0..15, all new ones empty */
    diff_ok(&small, &big, &d);
    assert_int_equal(d.blocks_changed, 0);
    cs_lft_diff_free(&d);

    cs_lfts_set(&big, 1, 700, 3); /* block 10, beyond the small set */
    cs_lfts_set(&big, 1, 701, 3);
    diff_ok(&small, &big, &d);
    assert_int_equal(d.blocks_changed, 1);
    assert_int_equal(d.entries_changed, 2);
    assert_int_equal(find(&d, 0xB)->blocks_changed, 1);
    cs_lft_diff_free(&d);

    /* and the other way round: the route disappears */
    diff_ok(&big, &small, &d);
    assert_int_equal(d.blocks_changed, 1);
    assert_int_equal(d.entries_changed, 2);
    cs_lft_diff_free(&d);
    cs_lfts_free(&small);
    cs_lfts_free(&big);
}

static void test_added_and_removed_switches(void **state)
{
    (void)state;
    struct cs_lfts old_set, new_set;
    struct cs_lft_diff d;
    struct cs_error err;
    /* old: A, B. new: C (routes to LIDs 5, 6 and 130: blocks 0 and 2), then B, then an empty D. */
    build(&old_set, 200);
    assert_int_equal(cs_lfts_init(&new_set, 200, &err), 0);
    assert_int_equal(cs_lfts_add_switch(&new_set, 0xC, 3, "swC", CS_NONE, &err), 0);
    assert_int_equal(cs_lfts_add_switch(&new_set, 0xB, 2, "swB", CS_NONE, &err), 1);
    assert_int_equal(cs_lfts_add_switch(&new_set, 0xD, 4, "swD", CS_NONE, &err), 2);
    cs_lfts_set(&new_set, 0, 5, 1);
    cs_lfts_set(&new_set, 0, 6, 1);
    cs_lfts_set(&new_set, 0, 130, 2);
    memcpy(cs_lfts_table(&new_set, 1), cs_lfts_table(&old_set, 1), new_set.capacity);

    diff_ok(&old_set, &new_set, &d);
    assert_int_equal(d.num_per_switch, 4);
    /* new-set order, then the removed ones */
    assert_true(d.per_switch[0].guid == 0xC);
    assert_true(d.per_switch[1].guid == 0xB);
    assert_true(d.per_switch[2].guid == 0xD);
    assert_true(d.per_switch[3].guid == 0xA);
    assert_int_equal(d.per_switch[0].presence, CS_LFT_ONLY_NEW);
    assert_int_equal(d.per_switch[0].blocks_changed, 2);
    assert_int_equal(d.per_switch[0].entries_changed, 3);
    assert_int_equal(d.per_switch[1].presence, CS_LFT_IN_BOTH);
    assert_int_equal(d.per_switch[1].blocks_changed, 0);
    assert_int_equal(d.per_switch[2].presence, CS_LFT_ONLY_NEW);
    assert_int_equal(d.per_switch[2].blocks_changed, 0);
    assert_int_equal(d.per_switch[3].presence, CS_LFT_ONLY_OLD);
    assert_int_equal(d.per_switch[3].blocks_changed, 0);
    assert_int_equal(d.per_switch[3].entries_changed, 0);
    assert_string_equal(d.per_switch[3].desc, "swA");
    assert_int_equal(d.switches_added, 2);
    assert_int_equal(d.switches_removed, 1);
    assert_int_equal(d.switches_changed, 1);
    assert_int_equal(d.blocks_changed, 2);
    assert_int_equal(d.entries_changed, 3);
    assert_int_equal(d.switches_old, 2);
    assert_int_equal(d.switches_new, 3);
    cs_lft_diff_free(&d);
    cs_lfts_free(&old_set);
    cs_lfts_free(&new_set);
}

/* OpenSM 3.3.23 on ibsim, ft2x2.net (2 leaves, 2 spines, 6 hosts, every leaf-spine link doubled),
 * with the guid2lid tests/data/lft/ft2x2.guid2lid loaded from OSM_CACHE_DIR by both runs so that
 * the LIDs are the same: `opensm -o -R ftree` and `opensm -o -R minhop`.
 *
 * LIDs and their blocks: leaf0 0x01, leaf1 0x02, host0 0x03 (block 0); spine0 0x40, spine1 0x41,
 * host1 0x42 (block 1); host2 0x80 (block 2); host3 0xc1, host4 0xc2 (block 3); host5 0x100
 * (block 4).
 *
 * Differences between ft2x2-ftree.dump and ft2x2-minhop.dump, read off the two files:
 *   leaf0:  0x41 6 -> 8                                    block 1             -> 1 block, 1 entry
 *   spine0: 0x01 1 -> 2, 0x02 3 -> 4                       block 0
 *           0x41 none -> 2 (ftree has no spine-to-spine
 *                entry; minhop routes via a leaf)          block 1
 *           0x80 2 -> 1                                    block 2
 *           0x100 4 -> 3                                   block 4             -> 4 blocks, 5
 * entries leaf1:  0x41 6 -> 8                                    block 1             -> 1 block, 1
 * entry spine1: 0x40 none -> 2, 0x42 1 -> 2                    block 1 0x80 2 -> 1 block 2 0xc2 3
 * -> 4                                    block 3 0x100 4 -> 3 block 4             -> 4 blocks, 5
 * entries Total: 4 switches, 10 blocks (SMPs), 12 entries. */
static void test_real_opensm_ftree_vs_minhop(void **state)
{
    (void)state;
    struct cs_lfts ftree, minhop;
    struct cs_error err = {""};
    if (cs_lfts_read(&ftree, DATA "ft2x2-ftree.dump", &err) != 0 ||
        cs_lfts_read(&minhop, DATA "ft2x2-minhop.dump", &err) != 0)
        fail_msg("%s", err.msg);
    struct cs_lft_diff d;
    diff_ok(&ftree, &minhop, &d);
    assert_int_equal(d.switches_changed, 4);
    assert_int_equal(d.blocks_changed, 10);
    assert_int_equal(d.entries_changed, 12);
    assert_int_equal(d.switches_added, 0);
    assert_int_equal(d.switches_removed, 0);
    const struct {
        uint64_t guid;
        uint32_t blocks, entries;
    } expected[] = {
        {UINT64_C(0x0002c90000000101), 1, 1}, /* leaf0 */
        {UINT64_C(0x0002c90000000201), 4, 5}, /* spine0 */
        {UINT64_C(0x0002c90000000102), 1, 1}, /* leaf1 */
        {UINT64_C(0x0002c90000000202), 4, 5}, /* spine1 */
    };
    for (size_t i = 0; i < 4; i++) {
        const struct cs_lft_switch_diff *s = find(&d, expected[i].guid);
        assert_int_equal(s->blocks_changed, expected[i].blocks);
        assert_int_equal(s->entries_changed, expected[i].entries);
    }
    cs_lft_diff_free(&d);

    /* The other direction costs the same. */
    diff_ok(&minhop, &ftree, &d);
    assert_int_equal(d.blocks_changed, 10);
    assert_int_equal(d.entries_changed, 12);
    cs_lft_diff_free(&d);

    /* dump_fts read the switches after the minhop run; it misses LID 0x100 (its last block is
     * ALIGN(0x100, 64) / 64 - 1 = 3), so against OpenSM's minhop dump each switch differs only in
     * block 4, by that one entry. */
    struct cs_lfts fts;
    if (cs_lfts_read(&fts, DATA "ft2x2-minhop-dump_fts.txt", &err) != 0)
        fail_msg("%s", err.msg);
    diff_ok(&minhop, &fts, &d);
    assert_int_equal(d.switches_changed, 4);
    assert_int_equal(d.blocks_changed, 4);
    assert_int_equal(d.entries_changed, 4);
    cs_lft_diff_free(&d);

    cs_lfts_free(&fts);
    cs_lfts_free(&ftree);
    cs_lfts_free(&minhop);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identical),
        cmocka_unit_test(test_entries_and_blocks),
        cmocka_unit_test(test_capacity_mismatch),
        cmocka_unit_test(test_added_and_removed_switches),
        cmocka_unit_test(test_real_opensm_ftree_vs_minhop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
