/* Multicast spanning trees and their MFTs (include/cloudsm/mft.h, src/route/mcast_tree.c,
 * src/core/mft.c) and their programming (cs_sm_program_mfts on the SMA model). A tree is checked
 * by flooding: a packet a member sends must reach every other member exactly once and visit no
 * switch twice. The root rule is OpenSM's (tests/integration/cloudsmd_mcast.sh compares every
 * switch's MFT with OpenSM's on ibsim). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/mft.h"
#include "sa_rig.h"

#define MLID_INDEX 3

static bool mft_has(const struct cs_mfts *t, uint32_t node, uint32_t index, unsigned port)
{
    uint32_t sw = cs_mfts_switch(t, node);
    return sw != CS_NONE &&
           (cs_mfts_entry(t, sw, index)[port / CS_MFT_POSITION] >> (port % CS_MFT_POSITION)) & 1;
}

/* Flood from member port `from`: copies[k] counts what member k receives; false on a loop (a
 * switch reached twice). */
static bool flood(const struct cs_fabric *f, const struct cs_mfts *t, uint32_t index,
                  const uint32_t *members, uint32_t count, uint32_t from, unsigned *copies)
{
    memset(copies, 0, count * sizeof *copies);
    uint32_t *queue_node = calloc(f->num_nodes, sizeof *queue_node);
    unsigned *queue_in = calloc(f->num_nodes, sizeof *queue_in);
    bool *seen = calloc(f->num_nodes, sizeof *seen);
    const struct cs_port *fp = &f->ports[from];
    uint32_t head = 0, tail = 0;
    if (cs_node_is_switch(&f->nodes[fp->node])) {
        queue_node[tail] = fp->node;
        queue_in[tail++] = 0;
    } else {
        queue_node[tail] = f->ports[fp->peer].node;
        queue_in[tail++] = f->ports[fp->peer].num;
    }
    seen[queue_node[0]] = true;
    bool ok = true;
    while (head < tail && ok) {
        uint32_t n = queue_node[head];
        unsigned in = queue_in[head++];
        const struct cs_node *node = &f->nodes[n];
        for (unsigned p = 0; p <= node->num_ports; p++) {
            if (p == in || !mft_has(t, n, index, p))
                continue;
            uint32_t to = p == 0 ? node->first_port : f->ports[node->first_port + p].peer;
            if (to == CS_NONE)
                continue;
            uint32_t m = f->ports[to].node;
            if (p != 0 && cs_node_is_switch(&f->nodes[m])) {
                if (seen[m])
                    ok = false;
                seen[m] = true;
                queue_node[tail] = m;
                queue_in[tail++] = f->ports[to].num;
                continue;
            }
            for (uint32_t k = 0; k < count; k++)
                copies[k] += members[k] == to;
        }
    }
    free(queue_node);
    free(queue_in);
    free(seen);
    return ok;
}

/* Every member reaches every other member exactly once, without a loop. */
static void assert_tree_delivers(const struct cs_fabric *f, const struct cs_mfts *t,
                                 const uint32_t *members, uint32_t count)
{
    unsigned copies[64];
    for (uint32_t s = 0; s < count; s++) {
        assert_true(flood(f, t, MLID_INDEX, members, count, members[s], copies));
        for (uint32_t k = 0; k < count; k++)
            assert_int_equal(copies[k], k == s ? 0 : 1);
    }
}

static uint32_t host_port(const struct cs_fabric *f, unsigned host)
{
    return f->nodes[host].first_port + 1; /* hosts are nodes 0.. in gen_kary */
}

static uint32_t entries(const struct cs_mfts *t, uint32_t index)
{
    uint32_t n = 0;
    for (uint32_t sw = 0; sw < t->num_switches; sw++)
        for (unsigned p = 0; p < CS_MFT_POSITIONS_MAX; p++)
            n += (uint32_t)__builtin_popcount(cs_mfts_entry(t, sw, index)[p]);
    return n;
}

/* 4-ary-3-tree: 64 hosts (4 per leaf, 16 per pod), 48 switches (nodes 64.. : 16 leaves, 16
 * middle, 16 roots). */
static void test_trees_deliver(void **state)
{
    (void)state;
    struct cs_fabric f;
    struct cs_error err;
    gen_kary(&f, 4, 3);
    static const unsigned sets[][6] = {
        {0, 1, 2, 3, 99, 99},    /* one leaf */
        {0, 5, 26, 63, 99, 99},  /* three pods */
        {0, 17, 34, 51, 99, 99}, /* four pods */
        {7, 8, 9, 10, 40, 41},   /* mixed */
    };
    for (size_t s = 0; s < sizeof sets / sizeof *sets; s++) {
        struct cs_mfts t;
        assert_int_equal(cs_mfts_init(&t, &f, &err), 0);
        assert_int_equal(cs_mfts_reserve(&t, 64, &err), 0);
        uint32_t members[6], count = 0;
        for (int k = 0; k < 6 && sets[s][k] != 99; k++)
            members[count++] = host_port(&f, sets[s][k]);
        uint32_t root;
        struct cs_mcast_router *router = cs_mcast_router_create(&f, NULL, &err);
        assert_non_null(router);
        assert_int_equal(cs_mcast_tree(router, members, count, MLID_INDEX, &t, &root, &err),
                         (int)count);
        cs_mcast_router_destroy(router);
        assert_tree_delivers(&f, &t, members, count);
        /* Nothing at other MLIDs. */
        assert_int_equal(entries(&t, MLID_INDEX + 1), 0);
        cs_mfts_free(&t);
    }
    cs_fabric_free(&f);
}

/* OpenSM's root: the smallest largest distance to a member; on a tie, the first switch by
 * byte-swapped node GUID. */
static void test_root_choice(void **state)
{
    (void)state;
    struct cs_fabric f;
    struct cs_error err;
    gen_kary(&f, 4, 3);
    struct cs_mfts t;
    assert_int_equal(cs_mfts_init(&t, &f, &err), 0);
    assert_int_equal(cs_mfts_reserve(&t, 64, &err), 0);
    uint32_t members[2] = {host_port(&f, 0), host_port(&f, 1)}, root;
    struct cs_mcast_router *router = cs_mcast_router_create(&f, NULL, &err);
    assert_non_null(router);
    assert_int_equal(cs_mcast_tree(router, members, 2, MLID_INDEX, &t, &root, &err), 2);
    assert_int_equal(root, f.ports[f.ports[members[0]].peer].node); /* their leaf */
    /* One switch only: the leaf forwards to its two hosts, no other switch has an entry. */
    assert_int_equal(entries(&t, MLID_INDEX), 2);
    /* Hosts in different pods: a root switch (top level), the first by byte-swapped GUID. */
    members[1] = host_port(&f, 63);
    assert_int_equal(cs_mcast_tree(router, members, 2, MLID_INDEX + 1, &t, &root, &err), 2);
    uint32_t expect = CS_NONE;
    for (uint32_t n = 0; n < f.num_nodes; n++) {
        if (!cs_node_is_switch(&f.nodes[n]) || n < 64 + 32)
            continue; /* the 16 roots are the last switches */
        if (expect == CS_NONE ||
            __builtin_bswap64(f.nodes[n].guid) < __builtin_bswap64(f.nodes[expect].guid))
            expect = n;
    }
    assert_int_equal(root, expect);
    /* Fewer than two members: no tree (OpenSM: nothing to do). */
    assert_int_equal(cs_mcast_tree(router, members, 1, MLID_INDEX + 2, &t, &root, &err), 0);
    assert_int_equal(root, CS_NONE);
    assert_int_equal(entries(&t, MLID_INDEX + 2), 0);
    /* A switch that is not multicast-capable is never the root. */
    bool *capable = calloc(f.num_nodes, sizeof *capable);
    for (uint32_t n = 0; n < f.num_nodes; n++)
        capable[n] = cs_node_is_switch(&f.nodes[n]) && n != expect;
    struct cs_mcast_router *partial = cs_mcast_router_create(&f, capable, &err);
    assert_non_null(partial);
    assert_int_equal(cs_mcast_tree(partial, members, 2, MLID_INDEX + 3, &t, &root, &err), 2);
    assert_true(root != expect && root != CS_NONE);
    cs_mcast_router_destroy(partial);
    cs_mcast_router_destroy(router);
    free(capable);
    cs_mfts_free(&t);
    cs_fabric_free(&f);
}

/* Programming on the SMA model: the switches end up holding the trees; a second run sends
 * nothing; a new view of the same switches reads back and sends nothing; a changed group sends
 * only its MLID's blocks; a group gone clears its entries. */
static void test_program_differential(void **state)
{
    (void)state;
    struct cs_fabric f;
    struct cs_error err;
    gen_pgft(&f);
    struct rig r;
    rig_model(&r, &f);
    cs_fabric_free(&f);
    struct cs_mcast_groups *g = cs_mcast_groups_create(&err);
    assert_non_null(g);
    struct cs_mcmember_record rec = {
        .mgid = {0xff, 0x12, 0x40, 0x1b, 0xff, 0xff}, .mtu = 4, .rate = 3};
    uint16_t status;
    struct cs_mcast_group *group = cs_mcast_groups_add(g, &rec, &status);
    assert_non_null(group);
    static const uint8_t gid[16];
    for (unsigned h = 0; h < 12; h += 3)
        assert_true(cs_mcast_group_join(g, group, HOST_PORT_GUID(h), gid, 0x21, false) >= 0);
    struct cs_mfts want, held;
    assert_int_equal(cs_mfts_init(&want, &r.s.fabric, &err), 0);
    assert_int_equal(cs_mfts_init(&held, &r.s.fabric, &err), 0);
    struct cs_log log = {0};
    struct cs_sm_mft_counts c;
    bool *capable = cs_sm_multicast_capable(&r.s, &err);
    struct cs_mcast_router *router = cs_mcast_router_create(&r.s.fabric, capable, &err);
    assert_non_null(router);
    assert_int_equal(
        cs_sm_program_mfts(r.pipe, &r.s, g, router, NULL, 0, &want, &held, &log, &c, &err), 0);
    assert_int_equal(c.trees, 1);
    assert_true(c.blocks_sent > 0);
    assert_true(c.blocks_read >= c.blocks_sent); /* nothing known at first: all read back */
    /* The model holds want, entry for entry. */
    uint32_t with_entry = 0;
    for (uint32_t sw = 0; sw < want.num_switches; sw++) {
        uint32_t node = want.switches[sw].node;
        uint32_t model_node = fx_node(r.m, r.s.fabric.nodes[node].guid);
        uint16_t mask = cs_sma_model_mft_entry(r.m, model_node, 0xc000, 0);
        assert_int_equal(mask, cs_mfts_entry(&want, sw, 0)[0]);
        with_entry += mask != 0;
    }
    assert_true(with_entry >= 2);
    /* Again: nothing to read, nothing to send. */
    cs_sma_model_reset_counts(r.m);
    assert_int_equal(
        cs_sm_program_mfts(r.pipe, &r.s, g, router, NULL, 0, &want, &held, &log, &c, &err), 0);
    assert_int_equal(c.blocks_sent + c.blocks_read, 0);
    /* A fresh view (an SM restart): everything read back, nothing sent. */
    struct cs_mfts held2;
    assert_int_equal(cs_mfts_init(&held2, &r.s.fabric, &err), 0);
    assert_int_equal(
        cs_sm_program_mfts(r.pipe, &r.s, g, router, NULL, 0, &want, &held2, &log, &c, &err), 0);
    assert_true(c.blocks_read > 0);
    assert_int_equal(c.blocks_sent, 0);
    assert_int_equal(cs_sma_model_count(r.m, CS_SMP_ATTR_MCAST_FT, CS_SMP_METHOD_SET), 0);
    /* A member leaves: only MLID 0xc000's block changes, on the switches whose entries differ. */
    bool deleted;
    uint16_t dirty[4];
    assert_int_equal(cs_mcast_groups_take_dirty(g, dirty, 4), 1);
    cs_mcast_group_leave(g, group, cs_mcast_group_member(group, HOST_PORT_GUID(9)), 1, &deleted);
    assert_false(deleted);
    assert_int_equal(cs_mcast_groups_take_dirty(g, dirty, 4), 1);
    assert_int_equal(
        cs_sm_program_mfts(r.pipe, &r.s, g, router, dirty, 1, &want, &held2, &log, &c, &err), 0);
    assert_true(c.blocks_sent > 0);
    assert_int_equal(c.blocks_read, 0);
    assert_int_equal(cs_sma_model_count(r.m, CS_SMP_ATTR_MCAST_FT, CS_SMP_METHOD_SET),
                     c.blocks_sent);
    /* The last members leave: the group (not well known) goes, its entries are cleared. */
    for (unsigned h = 0; h < 9; h += 3) {
        group = (struct cs_mcast_group *)cs_mcast_groups_by_mlid(g, 0xc000);
        assert_non_null(group);
        cs_mcast_group_leave(g, group, cs_mcast_group_member(group, HOST_PORT_GUID(h)), 1,
                             &deleted);
    }
    assert_true(deleted);
    uint32_t n = cs_mcast_groups_take_dirty(g, dirty, 4);
    assert_int_equal(
        cs_sm_program_mfts(r.pipe, &r.s, g, router, dirty, n, &want, &held2, &log, &c, &err), 0);
    for (uint32_t sw = 0; sw < want.num_switches; sw++) {
        uint32_t model_node = fx_node(r.m, r.s.fabric.nodes[want.switches[sw].node].guid);
        assert_int_equal(cs_sma_model_mft_entry(r.m, model_node, 0xc000, 0), 0);
    }
    cs_mfts_free(&want);
    cs_mfts_free(&held);
    cs_mfts_free(&held2);
    cs_mcast_groups_destroy(g);
    cs_mcast_router_destroy(router);
    free(capable);
    rig_close(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trees_deliver),
        cmocka_unit_test(test_root_choice),
        cmocka_unit_test(test_program_differential),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
