/* The PathRecord cache (src/sa/path_cache.c): Algorithm 2 of Paper I (thesis lines 2634-2636,
 * 2677-2714) on its own, then as a client side uses it against the library's SA on the SMA
 * model (sa_client_fixtures.h): a "connection" resolves its path (cache or SA query) and is up
 * when a LID-routed NodeInfo Get along the record's DLID reaches the peer's port, which is how
 * `cloudsm pathcache` probes. SA queries are counted where the SA receives them.
 *
 * R5 (thesis lines 1750-1753, 2987-2989): with caching on and addresses kept, exactly one SA
 * query per side per peer, however many (re)connections. F17 (thesis lines 2617-2633): caching
 * on with addresses not kept reconnects to stale paths forever; caching off behaves exactly as a
 * client without the cache. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/path_cache.h"
#include "cloudsm/rng.h"
#include "sa_client_fixtures.h"
#include "sm_fixtures.h"

/* ---- The cache alone ---- */

static struct cs_sa_path_record record_to(uint64_t guid, uint16_t dlid, bool flagged)
{
    struct cs_sa_path_record r = {.dlid = dlid, .slid = 1, .mtu = 4, .rate = 7, .pkey = 0xffff};
    cs_gid_make(r.dgid, FX_LINK_LOCAL, guid);
    cs_gid_make(r.sgid, FX_LINK_LOCAL, 0x99);
    r.reserved_353 = flagged ? CS_SA_PATH_CACHING_FLAG : 0;
    return r;
}

static void test_algorithm2_flag(void **state)
{
    (void)state;
    struct cs_path_cache *c;
    struct cs_error err;
    assert_int_equal(cs_path_cache_create(NULL, &c, &err), 0);
    struct cs_sa_path_record a = record_to(0xa, 10, false), b = record_to(0xb, 11, true);

    /* Lines 8-10: caching assumed off; lookups find nothing, and are not even made. */
    assert_false(cs_path_cache_enabled(c));
    assert_null(cs_path_cache_lookup(c, a.dgid));
    /* An unflagged response: not inserted, the flag stays off. */
    assert_int_equal(cs_path_cache_learn(c, &a, &err), 0);
    assert_false(cs_path_cache_enabled(c));
    assert_null(cs_path_cache_lookup(c, a.dgid));
    assert_int_equal(cs_path_cache_stats(c).lookups, 0);

    /* Lines 38-43: the first flagged response enables caching and is inserted, whole. */
    assert_int_equal(cs_path_cache_learn(c, &b, &err), 1);
    assert_true(cs_path_cache_enabled(c));
    const struct cs_sa_path_record *hit = cs_path_cache_lookup(c, b.dgid);
    assert_non_null(hit);
    assert_memory_equal(hit, &b, sizeof b);
    /* Never a second entry for a DGID (appended only on a miss). */
    struct cs_sa_path_record b2 = record_to(0xb, 99, true);
    assert_int_equal(cs_path_cache_learn(c, &b2, &err), 0);
    assert_int_equal(cs_path_cache_lookup(c, b.dgid)->dlid, 11);

    /* Sticky: a later unflagged response leaves the flag and the entries, and is not kept. */
    assert_int_equal(cs_path_cache_learn(c, &a, &err), 0);
    assert_true(cs_path_cache_enabled(c));
    assert_non_null(cs_path_cache_lookup(c, b.dgid));
    assert_null(cs_path_cache_lookup(c, a.dgid));

    /* Without the extras, nothing is ever dropped. */
    assert_int_equal(cs_path_cache_connect_failed(c, b.dgid), 0);
    assert_int_equal(cs_path_cache_sm_changed(c), 0);
    assert_true(cs_path_cache_enabled(c));
    assert_non_null(cs_path_cache_lookup(c, b.dgid));

    struct cs_path_cache_stats st = cs_path_cache_stats(c);
    assert_int_equal(st.entries, 1);
    assert_int_equal(st.responses, 4);
    assert_int_equal(st.flagged, 2);
    assert_int_equal(st.inserted, 1);
    assert_int_equal(st.lookups, 5);
    assert_int_equal(st.hits, 4);
    assert_int_equal(st.sm_changes, 1);
    assert_int_equal(st.invalidated + st.flushed, 0);
    cs_path_cache_destroy(c);
}

static void test_extras(void **state)
{
    (void)state;
    struct cs_path_cache *c;
    struct cs_error err;
    struct cs_path_cache_options opt = {.invalidate_on_failure = true, .flush_on_sm_change = true};
    assert_int_equal(cs_path_cache_create(&opt, &c, &err), 0);
    struct cs_sa_path_record a = record_to(0xa, 10, true), b = record_to(0xb, 11, true);
    assert_int_equal(cs_path_cache_learn(c, &a, &err), 1);
    assert_int_equal(cs_path_cache_learn(c, &b, &err), 1);
    /* A failed connection drops its entry only. */
    assert_int_equal(cs_path_cache_connect_failed(c, a.dgid), 1);
    assert_int_equal(cs_path_cache_connect_failed(c, a.dgid), 0);
    assert_null(cs_path_cache_lookup(c, a.dgid));
    assert_non_null(cs_path_cache_lookup(c, b.dgid));
    assert_true(cs_path_cache_enabled(c));
    /* An SM change drops everything and forgets the flag, which the next response teaches. */
    assert_int_equal(cs_path_cache_learn(c, &a, &err), 1);
    assert_int_equal(cs_path_cache_sm_changed(c), 2);
    assert_false(cs_path_cache_enabled(c));
    assert_null(cs_path_cache_lookup(c, b.dgid));
    struct cs_sa_path_record unflagged = record_to(0xb, 11, false);
    assert_int_equal(cs_path_cache_learn(c, &unflagged, &err), 0);
    assert_false(cs_path_cache_enabled(c));
    struct cs_path_cache_stats st = cs_path_cache_stats(c);
    assert_int_equal(st.entries, 0);
    assert_int_equal(st.invalidated, 1);
    assert_int_equal(st.flushed, 2);
    cs_path_cache_destroy(c);
}

/* Many DGIDs in and out in a seeded random order: the table always holds exactly what a plain
 * list would (the paper's structure), across growth and deletions. */
static void test_table_against_a_list(void **state)
{
    (void)state;
    enum { N = 3000 };
    struct cs_path_cache *c;
    struct cs_error err;
    struct cs_path_cache_options opt = {.invalidate_on_failure = true};
    assert_int_equal(cs_path_cache_create(&opt, &c, &err), 0);
    static bool held[N];
    memset(held, 0, sizeof held);
    struct cs_rng rng;
    cs_rng_seed(&rng, 7);
    unsigned count = 0;
    for (unsigned step = 0; step < 20000; step++) {
        uint32_t i = cs_rng_below(&rng, N);
        /* GUIDs that differ in few bits, as a subnet's do. */
        struct cs_sa_path_record r =
            record_to(UINT64_C(0x0010000000000001) + i * 0x100, (uint16_t)(i + 1), true);
        if (cs_rng_below(&rng, 3) == 0) {
            assert_int_equal(cs_path_cache_connect_failed(c, r.dgid), held[i]);
            count -= held[i];
            held[i] = false;
        } else {
            assert_int_equal(cs_path_cache_learn(c, &r, &err), !held[i]);
            count += !held[i];
            held[i] = true;
        }
        if (step % 97 == 0)
            for (uint32_t j = 0; j < N; j++) {
                struct cs_sa_path_record q =
                    record_to(UINT64_C(0x0010000000000001) + j * 0x100, 0, true);
                const struct cs_sa_path_record *hit = cs_path_cache_lookup(c, q.dgid);
                assert_int_equal(hit != NULL, held[j]);
                if (hit)
                    assert_int_equal(hit->dlid, j + 1);
            }
    }
    struct cs_path_cache_stats st = cs_path_cache_stats(c);
    assert_int_equal(st.entries, count);
    assert_true(st.table_bytes >= count * cs_path_cache_entry_bytes());
    cs_path_cache_destroy(c);
}

/* R4 (thesis lines 2724-2733): 71 bytes per entry in the paper, 49150 * 71 = 3489650 bytes
 * (3.33 MiB) for a node talking to every other node of a full subnet; ours, the decoded record. */
static void test_entry_memory(void **state)
{
    (void)state;
    assert_int_equal(CS_PATH_CACHE_PAPER_ENTRY_BYTES * CS_PATH_CACHE_MAX_PEERS, 3489650);
    assert_int_equal((int)(3489650 / 1048576.0 * 100 + 0.5), 333);
    assert_int_equal(cs_path_cache_entry_bytes(), sizeof(struct cs_sa_path_record));
    /* The 64-byte wire record decodes into no more than the paper's packed struct needs. */
    assert_true(cs_path_cache_entry_bytes() >= CS_SA_PATH_RECORD_SIZE);
    assert_true(cs_path_cache_entry_bytes() <= CS_PATH_CACHE_PAPER_ENTRY_BYTES + 1);

    /* The paper's worst case held for real: 49150 peers in a table kept at most 3/4 full, 65536
     * slots of a record and a used flag. */
    struct cs_path_cache *c;
    struct cs_error err;
    assert_int_equal(cs_path_cache_create(NULL, &c, &err), 0);
    for (uint32_t i = 0; i < CS_PATH_CACHE_MAX_PEERS; i++) {
        struct cs_sa_path_record r =
            record_to(UINT64_C(0x0010000000000001) + (uint64_t)i * 0x100, (uint16_t)(i + 1), true);
        assert_int_equal(cs_path_cache_learn(c, &r, &err), 1);
    }
    struct cs_path_cache_stats st = cs_path_cache_stats(c);
    assert_int_equal(st.entries, CS_PATH_CACHE_MAX_PEERS);
    assert_int_equal(st.table_bytes, 65536 * (cs_path_cache_entry_bytes() + sizeof(bool)));
    cs_path_cache_destroy(c);
}

/* ---- A client side: connections over the library's SA ---- */

struct side {
    struct sa_loop loop;
    struct cs_gmp_transport t;
    struct cs_sa_client *sa;
    struct cs_path_cache *cache; /* NULL: the client without the cache */
    uint64_t guid;
};

static void side_open(struct side *s, struct sa_fabric *x, uint64_t guid, bool with_cache,
                      const struct cs_path_cache_options *opt)
{
    struct cs_error err;
    memset(s, 0, sizeof *s);
    s->guid = guid;
    sa_loop_init(&s->loop, x, guid);
    s->t = sa_loop_transport(&s->loop);
    assert_int_equal(cs_sa_client_create(&s->t, NULL, &s->sa, &err), 0);
    if (with_cache)
        assert_int_equal(cs_path_cache_create(opt, &s->cache, &err), 0);
}

static void side_close(struct side *s)
{
    cs_path_cache_destroy(s->cache);
    cs_sa_client_destroy(s->sa);
    sa_loop_free(&s->loop);
}

/* The PGFT brought up with an SA (the caching flag on or off) and a client side on host 3. */
struct world {
    struct cs_fabric f;
    struct sa_fabric x;
    struct side client;
};

static void world_up(struct world *w, bool caching, bool with_cache,
                     const struct cs_path_cache_options *opt)
{
    gen_pgft(&w->f);
    sa_fabric_up(&w->x, &w->f, caching);
    side_open(&w->client, &w->x, FX_HOST_PORT_GUID(3), with_cache, opt);
}

static void world_down(struct world *w)
{
    side_close(&w->client);
    sa_fabric_down(&w->x);
    cs_fabric_free(&w->f);
}

struct resolved {
    bool done;
    struct cs_path_resolution r;
};

static void on_resolved(void *arg, const struct cs_path_resolution *r)
{
    struct resolved *out = arg;
    out->done = true;
    out->r = *r;
}

/* One (re)connection attempt from s to peer, as Algorithm 2 (RE-)CONNECTIONESTABLISHMENT:
 * resolve, then connect_to = probe along the record's DLID. Returns whether the connection is
 * up; *from_cache tells where the record came from. */
static bool connect_once(struct side *s, struct sa_fabric *x, uint64_t peer, bool *from_cache)
{
    struct cs_error err;
    struct cs_sa_path_query q = {.method = CS_SA_METHOD_GET};
    q.component_mask = CS_SA_PR_DGID | CS_SA_PR_SGID | CS_SA_PR_REVERSIBLE | CS_SA_PR_NUMB_PATH;
    cs_gid_make(q.record.sgid, FX_LINK_LOCAL, s->guid);
    cs_gid_make(q.record.dgid, FX_LINK_LOCAL, peer);
    q.record.reversible = 1;
    q.record.numb_path = 1;
    struct resolved got = {0};
    assert_int_equal(cs_path_resolve(s->cache, s->sa, &q, on_resolved, &got, &err), 0);
    assert_int_equal(cs_sa_client_run(s->sa, &err), 0);
    assert_true(got.done);
    assert_int_not_equal(got.r.source, CS_PATH_NONE);
    if (from_cache)
        *from_cache = got.r.source == CS_PATH_FROM_CACHE;
    bool up = sa_fabric_probe(x, got.r.record.dlid) == peer;
    if (!up && s->cache)
        cs_path_cache_connect_failed(s->cache, q.record.dgid);
    return up;
}

/* R5: a client (host 3) and a server (host 9) that each (re)connect 20 times to the other: with
 * the SM's flag, one SA query per side for the whole run and 19 saved; the cache holds one entry
 * per side. */
static void test_one_query_per_side_per_peer(void **state)
{
    (void)state;
    struct world w;
    world_up(&w, true, true, NULL);
    struct sa_fabric *x = &w.x;
    struct side *client = &w.client, server;
    side_open(&server, x, FX_HOST_PORT_GUID(9), true, NULL);
    for (int i = 0; i < 20; i++) {
        bool cached;
        assert_true(connect_once(client, x, server.guid, &cached));
        assert_int_equal(cached, i > 0);
        assert_true(connect_once(&server, x, client->guid, &cached));
        assert_int_equal(cached, i > 0);
    }
    assert_int_equal(client->loop.requests, 1);
    assert_int_equal(server.loop.requests, 1);
    struct cs_path_cache_stats cst = cs_path_cache_stats(client->cache),
                               sst = cs_path_cache_stats(server.cache);
    assert_int_equal(cst.hits, 19);
    assert_int_equal(sst.hits, 19);
    assert_int_equal(cst.entries, 1);
    assert_true(cst.enabled && sst.enabled);

    /* More peers: one more query each, never more. */
    for (int i = 0; i < 5; i++)
        for (unsigned h = 4; h < 8; h++)
            assert_true(connect_once(client, x, FX_HOST_PORT_GUID(h), NULL));
    assert_int_equal(client->loop.requests, 1 + 4);
    assert_int_equal(cs_path_cache_stats(client->cache).entries, 5);

    /* A migration that keeps the addresses (LIDtracker): the SM re-sweeps and restarts, the
     * cached records still reach the peers, no query. */
    sa_fabric_route(x);
    sa_fabric_set_caching(x, true);
    for (int i = 0; i < 5; i++)
        assert_true(connect_once(client, x, server.guid, NULL));
    assert_int_equal(client->loop.requests, 5);
    side_close(&server);
    world_down(&w);
}

/* F17, caching off: an SM without the flag leaves the cache off, and the client behaves exactly
 * as one without the cache: a query per (re)connection, the same records. */
static void test_cache_off_is_the_original(void **state)
{
    (void)state;
    struct world w;
    world_up(&w, false, true, NULL);
    struct sa_fabric *x = &w.x;
    struct side *patched = &w.client, original;
    side_open(&original, x, FX_HOST_PORT_GUID(3), false, NULL);
    for (int i = 0; i < 10; i++) {
        bool cached;
        assert_true(connect_once(patched, x, FX_HOST_PORT_GUID(9), &cached));
        assert_false(cached);
        assert_true(connect_once(&original, x, FX_HOST_PORT_GUID(9), &cached));
        assert_false(cached);
    }
    assert_int_equal(patched->loop.requests, 10);
    assert_int_equal(original.loop.requests, 10);
    assert_memory_equal(patched->loop.last_request, original.loop.last_request, CS_SA_MAD_SIZE);
    struct cs_path_cache_stats st = cs_path_cache_stats(patched->cache);
    assert_false(st.enabled);
    assert_int_equal(st.entries, 0);
    assert_int_equal(st.lookups, 0);
    assert_int_equal(st.responses, 10);
    assert_int_equal(st.flagged, 0);
    side_close(&original);
    world_down(&w);
}

/* F17, caching on without LIDtracker: the server moves (its LID swaps with host 10's), the
 * client's cached record now leads to the wrong port, and the paper's cache never recovers: every
 * reconnection uses it again, no query goes to the SA. With invalidate_on_failure the failed
 * attempt drops the entry and the next one asks the SA: one query, connected again. */
static void test_stale_cache_without_lidtracker(void **state)
{
    (void)state;
    for (int extra = 0; extra < 2; extra++) {
        struct cs_path_cache_options opt = {.invalidate_on_failure = extra};
        struct world w;
        world_up(&w, true, true, &opt);
        struct sa_fabric *x = &w.x;
        struct side *client = &w.client;
        uint64_t server = FX_HOST_PORT_GUID(9);
        for (int i = 0; i < 3; i++)
            assert_true(connect_once(client, x, server, NULL));
        assert_int_equal(client->loop.requests, 1);

        uint16_t before = sa_fabric_lid(x, server);
        sa_fabric_swap_lids(x, server, FX_HOST_PORT_GUID(10));
        assert_int_not_equal(sa_fabric_lid(x, server), before);
        assert_true(sa_fabric_probe(x, before) == FX_HOST_PORT_GUID(10));

        int failures = 0;
        bool up = false;
        for (int i = 0; i < 10 && !up; i++) {
            bool cached;
            up = connect_once(client, x, server, &cached);
            failures += !up;
            if (!up)
                assert_true(cached); /* stale, from the cache */
        }
        if (extra) {
            assert_true(up);
            assert_int_equal(failures, 1);
            assert_int_equal(client->loop.requests, 2);
            assert_int_equal(cs_path_cache_stats(client->cache).invalidated, 1);
        } else {
            assert_false(up);
            assert_int_equal(failures, 10);
            assert_int_equal(client->loop.requests, 1);
        }
        /* Without the cache the same move costs one query and works at once. */
        struct side plain;
        side_open(&plain, x, FX_HOST_PORT_GUID(4), false, NULL);
        assert_true(connect_once(&plain, x, server, NULL));
        assert_int_equal(plain.loop.requests, 1);
        side_close(&plain);
        world_down(&w);
    }
}

/* The sticky flag against a real SA: the SM restarts without subnet_supports_sa_path_caching;
 * the client keeps using what it cached, and a new peer's unflagged response is used but not
 * cached. With flush_on_sm_change the restart (an SM change) empties the cache and turns it off
 * until a flagged response comes. */
static void test_sticky_across_sm_restart(void **state)
{
    (void)state;
    for (int extra = 0; extra < 2; extra++) {
        struct cs_path_cache_options opt = {.flush_on_sm_change = extra};
        struct world w;
        world_up(&w, true, true, &opt);
        struct sa_fabric *x = &w.x;
        struct side *client = &w.client;
        assert_true(connect_once(client, x, FX_HOST_PORT_GUID(9), NULL));
        assert_int_equal(client->loop.requests, 1);

        sa_fabric_set_caching(x, false);
        cs_path_cache_sm_changed(client->cache);
        bool cached;
        assert_true(connect_once(client, x, FX_HOST_PORT_GUID(9), &cached));
        assert_true(connect_once(client, x, FX_HOST_PORT_GUID(6), NULL));
        assert_true(connect_once(client, x, FX_HOST_PORT_GUID(6), NULL));
        struct cs_path_cache_stats st = cs_path_cache_stats(client->cache);
        if (extra) {
            assert_false(cached);
            assert_false(st.enabled);
            assert_int_equal(st.entries, 0);
            assert_int_equal(client->loop.requests, 4);
        } else {
            assert_true(cached);
            assert_true(st.enabled);
            assert_int_equal(st.entries, 1);
            assert_int_equal(client->loop.requests, 3);
        }
        world_down(&w);
    }
}

/* A peer named by LID only: the first query has no DGID to look up; its response is learned
 * under the DGID it carries, and later attempts by DGID hit. */
static void test_resolve_by_lid_then_gid(void **state)
{
    (void)state;
    struct world w;
    world_up(&w, true, true, NULL);
    struct sa_fabric *x = &w.x;
    struct side *client = &w.client;
    struct cs_error err;
    struct cs_sa_path_query q = {.method = CS_SA_METHOD_GET,
                                 .component_mask = CS_SA_PR_DLID | CS_SA_PR_SLID};
    q.record.dlid = sa_fabric_lid(x, FX_HOST_PORT_GUID(7));
    q.record.slid = sa_fabric_lid(x, FX_HOST_PORT_GUID(3));
    struct resolved got = {0};
    assert_int_equal(cs_path_resolve(client->cache, client->sa, &q, on_resolved, &got, &err), 0);
    assert_int_equal(cs_sa_client_run(client->sa, &err), 0);
    assert_int_equal(got.r.source, CS_PATH_FROM_SA);
    assert_true(got.r.inserted);
    assert_true(cs_gid_guid(got.r.record.dgid) == FX_HOST_PORT_GUID(7));
    /* By LID again: still no key, still a query. */
    memset(&got, 0, sizeof got);
    assert_int_equal(cs_path_resolve(client->cache, client->sa, &q, on_resolved, &got, &err), 0);
    assert_int_equal(cs_sa_client_run(client->sa, &err), 0);
    assert_int_equal(got.r.source, CS_PATH_FROM_SA);
    assert_false(got.r.inserted); /* held already */
    assert_int_equal(client->loop.requests, 2);
    /* By the DGID learned: a hit. */
    bool cached;
    assert_true(connect_once(client, x, FX_HOST_PORT_GUID(7), &cached));
    assert_true(cached);
    assert_int_equal(client->loop.requests, 2);
    world_down(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_algorithm2_flag),
        cmocka_unit_test(test_extras),
        cmocka_unit_test(test_table_against_a_list),
        cmocka_unit_test(test_entry_memory),
        cmocka_unit_test(test_one_query_per_side_per_peer),
        cmocka_unit_test(test_cache_off_is_the_original),
        cmocka_unit_test(test_stale_cache_without_lidtracker),
        cmocka_unit_test(test_sticky_across_sm_restart),
        cmocka_unit_test(test_resolve_by_lid_then_gid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
