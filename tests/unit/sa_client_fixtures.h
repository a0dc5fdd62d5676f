/* Shared by the tests of the SA client side (test_sa_client.c, test_path_cache.c,
 * test_sa_flood.c): the library's own SA as the far end of a GMP transport, over a fabric the SM
 * core brought up on the in-process SMA model, as cloudsmd does. Header-only, cmocka.
 *
 *   struct sa_fabric   the SMA model, the SM core's sweep and LFTs, and an SA db over them
 *                      (sa_fabric_up); LIDs can be moved as a migration without LIDtracker moves
 *                      them (sa_fabric_swap_lids), and a LID-routed NodeInfo Get tells which port
 *                      a LID reaches now (sa_fabric_probe)
 *   struct sa_loop     a cs_gmp_transport whose SA is cs_sa_answer on a db: every request is
 *                      counted, answered at once into a queue, and recv hands the replies out.
 *                      Its clock is its own: a reply costs service_us of it, an empty wait the
 *                      whole timeout, so counts and times do not depend on the machine.
 */
#ifndef CLOUDSM_TEST_SA_CLIENT_FIXTURES_H
#define CLOUDSM_TEST_SA_CLIENT_FIXTURES_H

#include <stdlib.h>
#include <string.h>

#include "cloudsm/route.h"
#include "cloudsm/sa.h"
#include "cloudsm/sa_client.h"
#include "cloudsm/sm.h"
#include "cloudsm/sma_model.h"

#define FX_LINK_LOCAL UINT64_C(0xfe80000000000000)
/* The PGFT of sm_fixtures.h's gen_pgft: host k's node GUID and port GUID. */
#define FX_HOST_GUID(k) (UINT64_C(0x0010000000000000) + (uint64_t)(k)*0x100)
#define FX_HOST_PORT_GUID(k) (FX_HOST_GUID(k) + 1)

/* ---- The fabric and its SA ---- */

struct sa_fabric {
    struct cs_sma_model *m;
    struct cs_smp_pipe *pipe;
    struct cs_sm_sweep s;
    struct cs_lfts lfts;
    struct cs_sa_options opt;
    struct cs_sa_db *db;
};

static inline void sa_fabric_build_db(struct sa_fabric *x)
{
    struct cs_error err;
    cs_sa_db_free(x->db);
    x->db = NULL;
    if (cs_sa_db_build(&x->s, &x->lfts, NULL, &x->opt, &x->db, &err))
        fail_msg("db: %s", err.msg);
}

static inline void sa_fabric_route(struct sa_fabric *x)
{
    struct cs_error err;
    struct cs_route_stats st;
    struct cs_route_options ropt = {0};
    struct cs_log log = {0};
    cs_lfts_free(&x->lfts);
    if (cs_route("ftree", &x->s.fabric, &ropt, &x->lfts, &st, &err) != 0)
        fail_msg("route: %s", err.msg);
    struct cs_sm_lft_counts counts;
    if (cs_sm_program_lfts(x->pipe, &x->s, &x->lfts, NULL, &log, &counts, &err) != 0)
        fail_msg("program: %s", err.msg);
}

/* Discover f from host 0 (the SM), LIDs, ftree, LFTs, activate; an SA whose PathRecords carry
 * the caching flag when `caching` (subnet_supports_sa_path_caching). */
static inline void sa_fabric_up(struct sa_fabric *x, const struct cs_fabric *f, bool caching)
{
    struct cs_error err;
    struct cs_log log = {0};
    memset(x, 0, sizeof *x);
    x->m = cs_sma_model_create(f, 0, 1, &err);
    assert_non_null(x->m);
    struct cs_smp_transport t = cs_sma_model_transport(x->m);
    struct cs_smp_pipe_options po = {.window = 16, .timeout_ms = 2, .retries = 1};
    x->pipe = cs_smp_pipe_create(&t, &po, &err);
    assert_non_null(x->pipe);
    cs_sm_sweep_init(&x->s);
    if (cs_sm_discover(x->pipe, &log, &x->s, &err) != 0)
        fail_msg("discover: %s", err.msg);
    assert_true(cs_sm_assign_lids(&x->s, NULL, false, &log, &err) >= 0);
    struct cs_sm_port_settings set = {
        .sm_lid = x->s.fabric.ports[x->s.sm_port].lid,
        .subnet_prefix = FX_LINK_LOCAL,
    };
    assert_int_equal(cs_sm_set_lids(x->pipe, &x->s, &set, &log, &err), 0);
    sa_fabric_route(x);
    unsigned activated;
    assert_int_equal(cs_sm_activate(x->pipe, &x->s, &log, &activated, &err), 0);
    x->opt = (struct cs_sa_options){.subnet_prefix = FX_LINK_LOCAL,
                                    .subnet_timeout = CS_SA_DEFAULT_SUBNET_TIMEOUT,
                                    .path_caching = caching};
    sa_fabric_build_db(x);
}

/* The SM restarted with or without subnet_supports_sa_path_caching. */
static inline void sa_fabric_set_caching(struct sa_fabric *x, bool caching)
{
    x->opt.path_caching = caching;
    sa_fabric_build_db(x);
}

static inline void sa_fabric_down(struct sa_fabric *x)
{
    cs_sa_db_free(x->db);
    cs_lfts_free(&x->lfts);
    cs_sm_sweep_free(&x->s);
    cs_smp_pipe_destroy(x->pipe);
    cs_sma_model_destroy(x->m);
}

static inline uint32_t sa_fabric_port(const struct sa_fabric *x, uint64_t port_guid)
{
    for (uint32_t p = 0; p < x->s.fabric.num_port_slots; p++)
        if (x->s.fabric.ports[p].guid == port_guid)
            return p;
    fail_msg("no port 0x%016llx", (unsigned long long)port_guid);
    return CS_NONE;
}

static inline uint16_t sa_fabric_lid(const struct sa_fabric *x, uint64_t port_guid)
{
    return x->s.fabric.ports[sa_fabric_port(x, port_guid)].lid;
}

/* Ports a and b exchange their LIDs, as two VMs migrating into each other's place would when the
 * SM does not keep their addresses: the SM writes the new LIDs, re-routes, reprograms the
 * switches, and its SA answers from the new sweep. */
static inline void sa_fabric_swap_lids(struct sa_fabric *x, uint64_t a, uint64_t b)
{
    struct cs_error err;
    struct cs_log log = {0};
    uint32_t pa = sa_fabric_port(x, a), pb = sa_fabric_port(x, b);
    uint16_t la = x->s.fabric.ports[pa].lid;
    x->s.fabric.ports[pa].lid = x->s.fabric.ports[pb].lid;
    x->s.fabric.ports[pb].lid = la;
    struct cs_sm_port_settings set = {
        .sm_lid = x->s.fabric.ports[x->s.sm_port].lid,
        .subnet_prefix = FX_LINK_LOCAL,
    };
    assert_int_equal(cs_sm_set_lids(x->pipe, &x->s, &set, &log, &err), 0);
    sa_fabric_route(x);
    sa_fabric_build_db(x);
}

/* The port GUID that answers a LID-routed NodeInfo Get at dlid (what `cloudsm pathcache` probes
 * a connection with), 0 if nothing answers. */
static inline uint64_t sa_fabric_probe(struct sa_fabric *x, uint16_t dlid)
{
    struct cs_smp smp;
    uint8_t req[CS_SMP_SIZE], reply[CS_SMP_SIZE];
    cs_smp_init_lid_routed(&smp, CS_SMP_METHOD_GET, CS_SMP_ATTR_NODE_INFO, 0, 0x77);
    cs_smp_encode(&smp, req);
    uint16_t slid;
    if (!cs_sma_model_process(x->m, req, dlid, reply, &slid))
        return 0;
    struct cs_smp got;
    cs_smp_decode(reply, &got);
    if (got.status != 0)
        return 0;
    struct cs_smp_node_info ni;
    cs_smp_node_info_decode(got.data, &ni);
    return ni.port_guid;
}

/* ---- The SA as the far end of a GMP transport ---- */

#define SA_LOOP_QUEUE 4096

struct sa_loop {
    const struct sa_fabric *fabric; /* its db answers (the current one, after any change) */
    bool sm_down;                   /* no SA answers (the SM is gone) */
    uint64_t requester;             /* the client's port GUID: its LID goes in the LRH */
    uint64_t now_us;
    uint64_t service_us; /* clock cost of each reply handed out */
    unsigned drop;       /* lose this many of the next requests */
    uint64_t requests;   /* MADs that reached the SA (dropped ones included) */
    uint8_t last_request[CS_SA_MAD_SIZE];
    uint8_t *queue[SA_LOOP_QUEUE];
    size_t lens[SA_LOOP_QUEUE];
    unsigned head, count;
    uint8_t *current; /* the reply recv handed out last */
};

static inline int sa_loop_send(void *ctx, const uint8_t *mad, size_t len, struct cs_error *err)
{
    struct sa_loop *l = ctx;
    l->requests++;
    memcpy(l->last_request, mad, len < CS_SA_MAD_SIZE ? len : CS_SA_MAD_SIZE);
    if (l->drop > 0) {
        l->drop--;
        return 0;
    }
    if (l->sm_down)
        return 0;
    if (l->count == SA_LOOP_QUEUE)
        return cs_fail(err, "sa_loop: queue full");
    const struct cs_sa_db *db = l->fabric->db;
    size_t cap = cs_sa_response_bound(db);
    uint8_t *resp = malloc(cap);
    assert_non_null(resp);
    size_t resp_len;
    if (!cs_sa_answer(db, sa_fabric_lid(l->fabric, l->requester), mad, len, resp, cap, &resp_len)) {
        free(resp);
        return 0;
    }
    unsigned at = (l->head + l->count++) % SA_LOOP_QUEUE;
    l->queue[at] = resp;
    l->lens[at] = resp_len;
    return 0;
}

static inline int sa_loop_recv(void *ctx, const uint8_t **mad, size_t *len, int timeout_ms,
                               struct cs_error *err)
{
    (void)err;
    struct sa_loop *l = ctx;
    free(l->current);
    l->current = NULL;
    if (l->count == 0) {
        l->now_us += (uint64_t)timeout_ms * 1000;
        return 0;
    }
    l->current = l->queue[l->head];
    *mad = l->current;
    *len = l->lens[l->head];
    l->head = (l->head + 1) % SA_LOOP_QUEUE;
    l->count--;
    l->now_us += l->service_us;
    return 1;
}

static inline uint64_t sa_loop_now(void *ctx)
{
    return ((struct sa_loop *)ctx)->now_us;
}

static inline struct cs_gmp_transport sa_loop_transport(struct sa_loop *l)
{
    return (struct cs_gmp_transport){
        .ctx = l, .send = sa_loop_send, .recv = sa_loop_recv, .now_us = sa_loop_now};
}

static inline void sa_loop_init(struct sa_loop *l, const struct sa_fabric *x, uint64_t port_guid)
{
    memset(l, 0, sizeof *l);
    l->fabric = x;
    l->requester = port_guid;
}

static inline void sa_loop_free(struct sa_loop *l)
{
    while (l->count > 0) {
        free(l->queue[l->head]);
        l->head = (l->head + 1) % SA_LOOP_QUEUE;
        l->count--;
    }
    free(l->current);
    l->current = NULL;
}

#endif
