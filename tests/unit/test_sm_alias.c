/* Alias GUIDs on the SM's side: the store (src/sm/alias_guids.c) and the GUIDInfo programming
 * (src/sm/guid_info.c), on the in-process SMA model of tests/data/lft/ft2x2.net with the SM on
 * spine0's port 0. Hosts register through the SA (cs_sa_answer, as cloudsmd receives them); the
 * model keeps what a GUIDInfo Set writes, so the tests count the Sets and read the tables back. */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/alias_guids.h"
#include "cloudsm/route.h"
#include "cloudsm/sa.h"
#include "cloudsm/sm.h"
#include "cloudsm/sma_model.h"
#include "sa_fixtures.h"
#include "sm_fixtures.h"

#define SPINE0 UINT64_C(0x0002c90000000201)
#define HOST(i) (UINT64_C(0x0002c90000001000) + 0x10u * (i)) /* node GUID; port 1 = +1 */
#define ASSIGNED(n) (UINT64_C(0x0014050000000000) + (n))

struct rig {
    struct cs_fabric f;
    struct cs_sma_model *m;
    struct cs_smp_pipe *pipe;
    struct cs_sm_sweep s;
    struct cs_lfts lfts;
    struct cs_alias_guids *a;
    struct cs_sa_db *db;
    struct log_capture lc;
    struct cs_log log;
    uint8_t resp[CS_SA_MAD_SIZE];
};

/* Port 1 of host i: in the model's fabric (for the model's calls) and in the sweep's (whose node
 * order is the discovery's). */
static uint32_t host_port(const struct rig *r, unsigned i)
{
    return fx_port(r->m, HOST(i), 1);
}

static uint32_t swept_host_port(const struct rig *r, unsigned i)
{
    for (uint32_t n = 0; n < r->s.fabric.num_nodes; n++)
        if (r->s.fabric.nodes[n].guid == HOST(i))
            return r->s.fabric.nodes[n].first_port + 1;
    fail_msg("host %u is not in the sweep", i);
    return CS_NONE;
}

/* Discover, number, route; an SA db on the store. */
static void rig_sweep(struct rig *r)
{
    struct cs_error err = {""};
    cs_sa_db_free(r->db);
    r->db = NULL;
    cs_lfts_free(&r->lfts);
    if (cs_sm_discover(r->pipe, &r->log, &r->s, &err) != 0)
        fail_msg("%s", err.msg);
    assert_true(cs_sm_assign_lids(&r->s, NULL, false, &r->log, &err) >= 0);
    struct cs_route_stats st;
    struct cs_route_options ro = {0};
    if (cs_route("minhop", &r->s.fabric, &ro, &r->lfts, &st, &err) != 0)
        fail_msg("%s", err.msg);
    cs_alias_guids_sync(r->a, &r->s, &r->log);
    struct cs_sa_options opt = {.subnet_prefix = UINT64_C(0xfe80000000000000),
                                .subnet_timeout = CS_SA_DEFAULT_SUBNET_TIMEOUT,
                                .aliases = r->a};
    if (cs_sa_db_build(&r->s, &r->lfts, NULL, &opt, &r->db, &err) != 0)
        fail_msg("%s", err.msg);
}

static void rig_open(struct rig *r)
{
    struct cs_error err = {""};
    memset(r, 0, sizeof *r);
    r->m = fx_model_ft2x2(&r->f, SPINE0);
    for (unsigned i = 0; i < 6; i++) /* ibsim's CAs */
        assert_int_equal(cs_sma_model_set_guid_cap(r->m, host_port(r, i), 32, &err), 0);
    struct cs_smp_transport t = cs_sma_model_transport(r->m);
    struct cs_smp_pipe_options po = {.window = 16, .timeout_ms = 2, .retries = 1};
    r->pipe = cs_smp_pipe_create(&t, &po, &err);
    assert_non_null(r->pipe);
    r->log = (struct cs_log){capture_log, &r->lc};
    cs_sm_sweep_init(&r->s);
    r->a = cs_alias_guids_create(&err);
    assert_non_null(r->a);
    rig_sweep(r);
    cs_sma_model_reset_counts(r->m);
}

static void rig_close(struct rig *r)
{
    cs_sa_db_free(r->db);
    cs_alias_guids_destroy(r->a);
    cs_lfts_free(&r->lfts);
    cs_sm_sweep_free(&r->s);
    cs_smp_pipe_destroy(r->pipe);
    cs_sma_model_destroy(r->m);
    cs_fabric_free(&r->f);
    free(r->lc.text);
}

/* A host registers (Set) or removes (Delete) entries of a block of host i's table: the status. */
static uint16_t change(struct rig *r, uint8_t method, unsigned host, unsigned block,
                       uint8_t entries, uint64_t guid)
{
    struct cs_sa_guid_info_record g = {.lid = r->s.fabric.ports[swept_host_port(r, host)].lid,
                                       .block = (uint8_t)block};
    uint64_t mask = CS_SA_GIR_LID | CS_SA_GIR_BLOCK;
    for (unsigned i = 0; i < 8; i++)
        if (entries & (1u << i)) {
            mask |= CS_SA_GIR_GUID(i);
            g.guids.guid[i] = guid ? guid + i : 0;
        }
    uint8_t rec[CS_SA_GUID_INFO_RECORD_SIZE], req[CS_SA_MAD_SIZE];
    cs_sa_guid_info_record_encode(&g, rec);
    sa_request(method, CS_SA_ATTR_GUID_INFO_RECORD, mask, 0, 1, rec, sizeof rec, req);
    size_t len;
    assert_int_equal(cs_sa_answer(r->db, 0, req, sizeof req, r->resp, sizeof r->resp, &len), 1);
    return (uint16_t)(r->resp[4] << 8 | r->resp[5]);
}

static struct cs_sm_alias_counts program(struct rig *r)
{
    struct cs_error err = {""};
    struct cs_sm_alias_counts c;
    if (cs_sm_program_alias_guids(r->pipe, &r->s, r->a, &r->log, &c, &err) != 0)
        fail_msg("%s", err.msg);
    return c;
}

static uint64_t guid_sets(struct rig *r)
{
    uint64_t n = cs_sma_model_count(r->m, CS_SMP_ATTR_GUID_INFO, CS_SMP_METHOD_SET);
    cs_sma_model_reset_counts(r->m);
    return n;
}

/* The ports hold what the SA took, one Set per changed block, nothing twice. */
static void test_program_changed_blocks(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r);
    /* Nothing registered: nothing sent. */
    struct cs_sm_alias_counts c = program(&r);
    assert_int_equal(c.blocks_sent, 0);
    assert_int_equal(guid_sets(&r), 0);

    /* host0: entries 1..3 of block 0, in two requests; host3: entry 8 (block 1). */
    assert_int_equal(change(&r, CS_SA_METHOD_SET, 0, 0, 0x06, 0xa000), 0);
    assert_int_equal(change(&r, CS_SA_METHOD_SET, 0, 0, 0x08, 0), 0);
    assert_int_equal(change(&r, CS_SA_METHOD_SET, 3, 1, 0x01, 0), 0);
    assert_true(cs_alias_guids_pending(r.a));
    c = program(&r);
    assert_int_equal(c.blocks_sent, 2); /* the two requests on host0's block 0 make one Set */
    assert_int_equal(c.failures, 0);
    assert_int_equal(c.differing, 0);
    assert_int_equal(guid_sets(&r), 2);
    assert_false(cs_alias_guids_pending(r.a));
    uint32_t h0 = host_port(&r, 0), h3 = host_port(&r, 3);
    assert_true(cs_sma_model_guid(r.m, h0, 0) == HOST(0) + 1);
    assert_true(cs_sma_model_guid(r.m, h0, 1) == 0xa001);
    assert_true(cs_sma_model_guid(r.m, h0, 2) == 0xa002);
    assert_true(cs_sma_model_guid(r.m, h0, 3) == ASSIGNED(1));
    assert_true(cs_sma_model_guid(r.m, h3, 8) == ASSIGNED(2));
    /* Again: nothing changed, nothing sent. */
    c = program(&r);
    assert_int_equal(c.blocks_sent, 0);
    assert_int_equal(guid_sets(&r), 0);

    /* A refused duplicate and a Set of what is there change nothing: no Set. */
    assert_int_equal(change(&r, CS_SA_METHOD_SET, 1, 0, 0x02, 0xa000), 0);
    assert_int_equal(change(&r, CS_SA_METHOD_SET, 0, 0, 0x08, 0), 0);
    c = program(&r);
    assert_int_equal(c.blocks_sent, 0);
    /* A Delete is a Set of the block without the entry. */
    assert_int_equal(change(&r, CS_SA_METHOD_DELETE, 0, 0, 0x02, 0), 0);
    c = program(&r);
    assert_int_equal(c.blocks_sent, 1);
    assert_int_equal(guid_sets(&r), 1);
    assert_true(cs_sma_model_guid(r.m, h0, 1) == 0);
    assert_true(cs_sma_model_guid(r.m, h0, 2) == 0xa002);
    rig_close(&r);
}

/* A port that does not answer: counted and logged, the SA's view stays; a block of a port the
 * sweep does not have is skipped. */
static void test_program_failures(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r);
    assert_int_equal(change(&r, CS_SA_METHOD_SET, 4, 0, 0x02, 0xb000), 0);
    cs_sma_model_set_unresponsive(r.m, fx_node(r.m, HOST(4)), true);
    struct cs_sm_alias_counts c = program(&r);
    assert_int_equal(c.blocks_sent, 1);
    assert_int_equal(c.failures, 1);
    assert_int_equal(log_count(&r.lc, "Set GUIDInfo(0) to"), 1);
    assert_int_equal(log_count(&r.lc, "no answer"), 1);
    uint64_t port_guid;
    unsigned index;
    assert_true(cs_alias_guids_find(r.a, 0xb001, &port_guid, &index));
    assert_true(port_guid == HOST(4) + 1);
    assert_int_equal(index, 1);
    /* Sent once: the next call does not try again. */
    c = program(&r);
    assert_int_equal(c.blocks_sent, 0);

    /* A port that is not in this sweep. */
    struct cs_error err;
    assert_int_equal(cs_alias_guids_open(r.a, 0x4242, 16, &err), 0);
    assert_int_equal(cs_alias_guids_put(r.a, 0x4242, 9, 0xc009, &err), 0);
    c = program(&r);
    assert_int_equal(c.blocks_sent, 0);
    assert_int_equal(c.skipped, 1);
    rig_close(&r);
}

/* After a sweep: the aliases of a port that is gone go with it; the GUIDs the SM assigned stay
 * for when it comes back; a port that reports a smaller GUIDCap keeps what fits; an alias that
 * is a port's own GUID now is dropped. */
static void test_sync(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r);
    assert_int_equal(change(&r, CS_SA_METHOD_SET, 0, 0, 0x06, 0), 0); /* assigned 1, 2 */
    assert_int_equal(change(&r, CS_SA_METHOD_SET, 0, 2, 0x01, 0), 0); /* 16: assigned 3 */
    assert_int_equal(change(&r, CS_SA_METHOD_SET, 5, 0, 0x02, 0), 0); /* assigned 4 */
    assert_int_equal(change(&r, CS_SA_METHOD_SET, 5, 0, 0x04, 0xd000), 0);
    assert_int_equal(cs_alias_guids_count(r.a), 5);
    (void)program(&r);

    /* host5's cable is pulled: the next sweep does not find it. */
    struct cs_error err;
    assert_int_equal(cs_sma_model_unlink(r.m, host_port(&r, 5), &err), 0);
    /* host0 now reports 12 GUIDs: entry 16 no longer exists. */
    assert_int_equal(cs_sma_model_set_guid_cap(r.m, host_port(&r, 0), 12, &err), 0);
    free(r.lc.text);
    r.lc = (struct log_capture){0};
    rig_sweep(&r);
    assert_int_equal(cs_alias_guids_count(r.a), 2);
    assert_int_equal(cs_alias_guids_capacity(r.a, HOST(5) + 1), 0);
    assert_int_equal(cs_alias_guids_capacity(r.a, HOST(0) + 1), 12);
    assert_int_equal(log_count(&r.lc, "is gone: 2 dropped"), 1);
    assert_int_equal(log_count(&r.lc, "has GUIDCap 12 now: 1 dropped"), 1);
    uint64_t block[8];
    assert_false(cs_alias_guids_block(r.a, HOST(5) + 1, 0, block));
    assert_true(block[0] == HOST(5) + 1 && block[1] == 0);
    /* Nothing left to send for the port that is gone. */
    assert_false(cs_alias_guids_pending(r.a));
    assert_true(cs_alias_guids_assigned(r.a, HOST(5) + 1, 1) == ASSIGNED(4));

    /* An alias that a port of the sweep has as its own GUID (registered behind the SA's back,
     * as a port that was away could have): the port wins. */
    assert_int_equal(cs_alias_guids_put(r.a, HOST(0) + 1, 5, HOST(3) + 1, &err), 0);
    (void)cs_alias_guids_take(r.a, &(uint64_t){0}, &(unsigned){0}, block);
    free(r.lc.text);
    r.lc = (struct log_capture){0};
    rig_sweep(&r);
    assert_int_equal(log_count(&r.lc, "is a port's own GUID now: dropped"), 1);
    assert_int_equal(cs_alias_guids_count(r.a), 2);
    assert_true(cs_alias_guids_pending(r.a)); /* host0's block 0 lost an entry: sent again */
    rig_close(&r);
}

/* A host that comes back registers 0 at the same entry and gets the same GUID. */
static void test_assigned_guid_comes_back(void **state)
{
    (void)state;
    struct rig r;
    rig_open(&r);
    assert_int_equal(change(&r, CS_SA_METHOD_SET, 2, 0, 0x02, 0), 0);
    assert_true(r.resp[CS_SA_HEADER_SIZE + 16 + 7] == 1); /* entry 1 = ASSIGNED(1) */
    uint32_t h2 = swept_host_port(&r, 2);
    struct cs_sm_sweep kept = r.s; /* the sweep with host2, kept for its return */
    cs_sm_sweep_init(&r.s);
    struct cs_sm_sweep without;
    cs_sm_sweep_init(&without);
    struct cs_error err;
    /* A sweep without host2: a copy of the fabric where its port has no GUID (not reached). */
    assert_int_equal(cs_fabric_copy(&without.fabric, &kept.fabric, &err), 0);
    without.port_info = kept.port_info;
    without.port_info_valid = kept.port_info_valid;
    without.fabric.ports[h2].guid = 0;
    assert_int_equal(cs_alias_guids_sync(r.a, &without, &r.log), 1);
    cs_fabric_free(&without.fabric);
    assert_int_equal(cs_alias_guids_count(r.a), 0);
    /* Back: a new assigned GUID elsewhere first, then host2's 0 gets its old one. */
    r.s = kept;
    assert_int_equal(cs_alias_guids_sync(r.a, &r.s, &r.log), 0);
    assert_int_equal(change(&r, CS_SA_METHOD_SET, 1, 0, 0x02, 0), 0); /* ASSIGNED(2) */
    assert_int_equal(change(&r, CS_SA_METHOD_SET, 2, 0, 0x02, 0), 0);
    assert_true(cs_alias_guids_assigned(r.a, HOST(2) + 1, 1) == ASSIGNED(1));
    uint64_t port;
    unsigned index;
    assert_true(cs_alias_guids_find(r.a, ASSIGNED(1), &port, &index));
    assert_true(port == HOST(2) + 1);
    rig_close(&r);
}

/* ---- The store alone ---- */

static bool taken_odd(void *arg, uint64_t guid)
{
    (*(unsigned *)arg)++;
    return guid & 1;
}

static void test_store(void **state)
{
    (void)state;
    struct cs_error err;
    struct cs_alias_guids *a = cs_alias_guids_create(&err);
    assert_non_null(a);
    /* No table: Put refuses; the block is the port GUID alone. */
    assert_int_equal(cs_alias_guids_put(a, 0x10, 1, 0x99, &err), -1);
    uint64_t b[8];
    assert_false(cs_alias_guids_block(a, 0x10, 0, b));
    assert_true(b[0] == 0x10);
    assert_int_equal(cs_alias_guids_open(a, 0x10, 0, &err), -1);
    assert_int_equal(cs_alias_guids_open(a, 0x10, 256, &err), -1);
    assert_int_equal(cs_alias_guids_open(a, 0x10, 10, &err), 0);
    assert_int_equal(cs_alias_guids_capacity(a, 0x10), 10);
    /* Index 0 and beyond the table: refused; 0 and a GUID registered already: refused. */
    assert_int_equal(cs_alias_guids_put(a, 0x10, 0, 0x99, &err), -1);
    assert_int_equal(cs_alias_guids_put(a, 0x10, 10, 0x99, &err), -1);
    assert_int_equal(cs_alias_guids_put(a, 0x10, 1, 0, &err), -1);
    /* Order: byte-swapped GUID ascending (0x0200 < 0x0100 < 0x0001 in that order: LSB first). */
    assert_int_equal(cs_alias_guids_put(a, 0x10, 1, UINT64_C(0x0100000000000000), &err), 0);
    assert_int_equal(cs_alias_guids_put(a, 0x10, 2, 0x0001, &err), 0);
    assert_int_equal(cs_alias_guids_put(a, 0x10, 9, UINT64_C(0x0200000000000000), &err), 0);
    assert_int_equal(cs_alias_guids_put(a, 0x10, 3, 0x0001, &err), -1);
    uint64_t g, port;
    static const uint64_t order[] = {UINT64_C(0x0100000000000000), UINT64_C(0x0200000000000000),
                                     0x0001};
    assert_int_equal(cs_alias_guids_count(a), 3);
    for (uint32_t i = 0; i < 3; i++) {
        cs_alias_guids_at(a, i, &g, &port);
        assert_true(g == order[i]);
        assert_true(port == 0x10);
    }
    uint64_t mine[CS_ALIAS_MAX_ENTRIES];
    assert_int_equal(cs_alias_guids_port_order(a, 0x10, mine), 4);
    assert_true(mine[0] == order[0] && mine[2] == 0x0001 && mine[3] == 0x10);
    /* Replacing an entry drops the old alias. */
    assert_int_equal(cs_alias_guids_put(a, 0x10, 2, 0x0003, &err), 0);
    unsigned index;
    assert_false(cs_alias_guids_find(a, 0x0001, &port, &index));
    assert_true(cs_alias_guids_find(a, 0x0003, &port, &index));
    assert_int_equal(index, 2);
    /* Entries of the last block beyond the table read 0. */
    assert_true(cs_alias_guids_block(a, 0x10, 1, b));
    assert_true(b[0] == 0 && b[1] == UINT64_C(0x0200000000000000) && b[2] == 0);
    /* Take: the lowest port, then the lowest block; each block once. */
    assert_int_equal(cs_alias_guids_open(a, 0x08, 8, &err), 0);
    assert_int_equal(cs_alias_guids_put(a, 0x08, 7, 0x0005, &err), 0);
    unsigned block;
    assert_true(cs_alias_guids_take(a, &port, &block, b));
    assert_true(port == 0x08 && block == 0 && b[7] == 0x0005);
    assert_true(cs_alias_guids_take(a, &port, &block, b));
    assert_true(port == 0x10 && block == 0 && b[2] == 0x0003);
    assert_true(cs_alias_guids_take(a, &port, &block, b));
    assert_true(port == 0x10 && block == 1);
    assert_false(cs_alias_guids_take(a, &port, &block, b));
    /* Remove. */
    assert_true(cs_alias_guids_remove(a, 0x10, 2));
    assert_false(cs_alias_guids_remove(a, 0x10, 2));
    assert_false(cs_alias_guids_remove(a, 0x99, 2));
    assert_true(cs_alias_guids_pending(a));
    /* Assign: the count runs on over taken GUIDs; each try is one count. */
    unsigned asked = 0;
    assert_int_equal(cs_alias_guids_assign(a, 0x10, 10, 4, taken_odd, &asked, &g, &err), 1);
    assert_true(g == UINT64_C(0x0014050000000002));
    assert_int_equal(asked, 2);
    assert_true(cs_alias_guids_assigned(a, 0x10, 4) == g);
    assert_true(cs_alias_guids_assigned(a, 0x10, 5) == 0);
    assert_int_equal(cs_alias_guids_assign(a, 0x10, 10, 10, NULL, NULL, &g, &err), -1);
    cs_alias_guids_set_assigned_byte(a, 0xfe);
    assert_int_equal(cs_alias_guids_assign(a, 0x30, 10, 1, NULL, NULL, &g, &err), 1);
    assert_true(g == UINT64_C(0x001405fe00000003));
    cs_alias_guids_destroy(a);
    cs_alias_guids_destroy(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_program_changed_blocks),
        cmocka_unit_test(test_program_failures),
        cmocka_unit_test(test_sync),
        cmocka_unit_test(test_assigned_guid_comes_back),
        cmocka_unit_test(test_store),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
