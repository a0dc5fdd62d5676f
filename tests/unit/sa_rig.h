/* The SA test rig (test_sa.c, test_sa_alias.c): the PGFT(3; 2,2,3; 1,2,2; 1,2,1) of
 * sm_fixtures.h (12 hosts, 16 switches, 48 links) under an SA db, in two views:
 *
 *   rig_model   the SM core brought up on the in-process SMA model (discover, LIDs, ftree, LFTs,
 *               activate), as cloudsmd does: port_info is what the agents answered
 *   rig_ibsim   the same fabric as ibsim 0.10 presents it to OpenSM 3.3.23 (sa_fixtures.h), with
 *               OpenSM's LIDs: the answers must equal what OpenSM answered there
 *
 * and the helpers that send requests to it and read the replies. Include after cmocka.h. */
#ifndef CLOUDSM_TEST_SA_RIG_H
#define CLOUDSM_TEST_SA_RIG_H

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/analyze.h"
#include "cloudsm/lid.h"
#include "cloudsm/partitions.h"
#include "cloudsm/route.h"
#include "cloudsm/sa.h"
#include "cloudsm/sm.h"
#include "cloudsm/sma_model.h"
#include "sa_fixtures.h"
#include "sm_fixtures.h"

#define LINK_LOCAL UINT64_C(0xfe80000000000000)
#define HOST_GUID(k) (UINT64_C(0x0010000000000000) + (uint64_t)(k)*0x100)
#define HOST_PORT_GUID(k) (HOST_GUID(k) + 1)
#define RESP_CAP (1u << 20)

/* OpenSM's LIDs on this fabric (its guid2lid after `opensm -R ftree` on ibsim). */
static const char OPENSM_GUID2LID[] = "0x0010000000000001 0x0001 0x0001\n"
                                      "0x0010000000000101 0x0008 0x0008\n"
                                      "0x0010000000000201 0x0009 0x0009\n"
                                      "0x0010000000000301 0x000a 0x000a\n"
                                      "0x0010000000000401 0x000b 0x000b\n"
                                      "0x0010000000000501 0x000c 0x000c\n"
                                      "0x0010000000000601 0x000d 0x000d\n"
                                      "0x0010000000000701 0x000e 0x000e\n"
                                      "0x0010000000000801 0x000f 0x000f\n"
                                      "0x0010000000000901 0x0010 0x0010\n"
                                      "0x0010000000000a01 0x0011 0x0011\n"
                                      "0x0010000000000b01 0x0012 0x0012\n"
                                      "0x0020000100000000 0x0002 0x0002\n"
                                      "0x0020000100000001 0x0005 0x0005\n"
                                      "0x0020000100000002 0x0013 0x0013\n"
                                      "0x0020000100000003 0x0016 0x0016\n"
                                      "0x0020000100000004 0x0019 0x0019\n"
                                      "0x0020000100000005 0x001b 0x001b\n"
                                      "0x0020000200000000 0x0003 0x0003\n"
                                      "0x0020000200000001 0x0006 0x0006\n"
                                      "0x0020000200000002 0x0014 0x0014\n"
                                      "0x0020000200000003 0x0017 0x0017\n"
                                      "0x0020000200000004 0x001a 0x001a\n"
                                      "0x0020000200000005 0x001c 0x001c\n"
                                      "0x0020000300000000 0x0004 0x0004\n"
                                      "0x0020000300000001 0x0007 0x0007\n"
                                      "0x0020000300000002 0x0015 0x0015\n"
                                      "0x0020000300000003 0x0018 0x0018\n";

/* ---- An SA over a sweep ---- */

struct rig {
    struct cs_sma_model *m; /* the model rig only */
    struct cs_smp_pipe *pipe;
    struct cs_sm_sweep s;
    struct cs_lfts lfts;
    struct cs_partitions parts;
    struct cs_partition_set set;
    bool partitioned;
    struct cs_sa_options opt;
    struct cs_sa_db *db;
    uint8_t *resp;
    size_t resp_len;
};

static inline void rig_build_db(struct rig *r)
{
    struct cs_error err;
    cs_sa_db_free(r->db);
    r->db = NULL;
    if (cs_sa_db_build(&r->s, &r->lfts, r->partitioned ? &r->set : NULL, &r->opt, &r->db, &err))
        fail_msg("db: %s", err.msg);
}

static inline void rig_partition(struct rig *r, const char *text)
{
    struct cs_error err;
    if (r->partitioned) {
        cs_partition_set_free(&r->set);
        cs_partitions_free(&r->parts);
    }
    assert_int_equal(cs_partitions_parse(&r->parts, text, strlen(text), "partitions.conf", &err),
                     0);
    struct cs_partition_resolve_options ro = {.sm_port_guid = r->s.fabric.ports[r->s.sm_port].guid};
    if (cs_partitions_resolve(&r->parts, &r->s.fabric, &ro, &r->set, &err) != 0)
        fail_msg("resolve: %s", err.msg);
    r->partitioned = true;
    rig_build_db(r);
}

static inline void rig_route(struct rig *r)
{
    struct cs_error err;
    struct cs_route_stats st;
    struct cs_route_options ropt = {0};
    if (cs_route("ftree", &r->s.fabric, &ropt, &r->lfts, &st, &err) != 0)
        fail_msg("route: %s", err.msg);
}

/* The SM core on the model, as cloudsmd's bring_up. */
static inline void rig_model(struct rig *r, const struct cs_fabric *f)
{
    struct cs_error err;
    memset(r, 0, sizeof *r);
    r->resp = malloc(RESP_CAP);
    assert_non_null(r->resp);
    r->m = cs_sma_model_create(f, 0, 1, &err);
    assert_non_null(r->m);
    struct cs_smp_transport t = cs_sma_model_transport(r->m);
    struct cs_smp_pipe_options po = {.window = 16, .timeout_ms = 2, .retries = 1};
    r->pipe = cs_smp_pipe_create(&t, &po, &err);
    assert_non_null(r->pipe);
    cs_sm_sweep_init(&r->s);
    struct cs_log log = {0};
    if (cs_sm_discover(r->pipe, &log, &r->s, &err) != 0)
        fail_msg("discover: %s", err.msg);
    assert_true(cs_sm_assign_lids(&r->s, NULL, false, &log, &err) >= 0);
    struct cs_sm_port_settings set = {
        .sm_lid = r->s.fabric.ports[r->s.sm_port].lid,
        .subnet_prefix = LINK_LOCAL,
    };
    assert_int_equal(cs_sm_set_lids(r->pipe, &r->s, &set, &log, &err), 0);
    rig_route(r);
    struct cs_sm_lft_counts counts;
    assert_int_equal(cs_sm_program_lfts(r->pipe, &r->s, &r->lfts, NULL, &log, &counts, &err), 0);
    unsigned activated;
    assert_int_equal(cs_sm_activate(r->pipe, &r->s, &log, &activated, &err), 0);

    r->opt = (struct cs_sa_options){.subnet_prefix = LINK_LOCAL,
                                    .subnet_timeout = CS_SA_DEFAULT_SUBNET_TIMEOUT};
    rig_build_db(r);
}

/* The fabric as ibsim shows it to OpenSM, with OpenSM's LIDs, the SM on host-0. */
static inline void rig_ibsim(struct rig *r, const struct cs_fabric *f)
{
    struct cs_error err;
    memset(r, 0, sizeof *r);
    r->resp = malloc(RESP_CAP);
    assert_non_null(r->resp);
    struct cs_fabric lids;
    assert_int_equal(cs_fabric_copy(&lids, f, &err), 0);
    struct cs_guid2lid g = {0};
    assert_int_equal(
        cs_guid2lid_parse(&g, OPENSM_GUID2LID, strlen(OPENSM_GUID2LID), "guid2lid", &err), 0);
    assert_int_equal(cs_guid2lid_apply(&g, &lids, &err), 28);
    cs_guid2lid_free(&g);
    assert_int_equal(sa_ibsim_sweep(&r->s, &lids, cs_fabric_port(&lids, 0, 1), LINK_LOCAL, &err),
                     0);
    cs_fabric_free(&lids);
    rig_route(r);
    r->opt = (struct cs_sa_options){.subnet_prefix = LINK_LOCAL,
                                    .subnet_timeout = CS_SA_DEFAULT_SUBNET_TIMEOUT};
    rig_build_db(r);
}

static inline void rig_close(struct rig *r)
{
    cs_sa_db_free(r->db);
    if (r->partitioned) {
        cs_partition_set_free(&r->set);
        cs_partitions_free(&r->parts);
    }
    cs_lfts_free(&r->lfts);
    cs_sm_sweep_free(&r->s);
    if (r->pipe)
        cs_smp_pipe_destroy(r->pipe);
    if (r->m)
        cs_sma_model_destroy(r->m);
    free(r->resp);
}

static inline uint32_t port_of(const struct rig *r, uint64_t guid)
{
    for (uint32_t p = 0; p < r->s.fabric.num_port_slots; p++)
        if (r->s.fabric.ports[p].guid == guid)
            return p;
    fail_msg("no port 0x%016" PRIx64, guid);
    return CS_NONE;
}

static inline uint16_t lid_of(const struct rig *r, uint64_t port_guid)
{
    return r->s.fabric.ports[port_of(r, port_guid)].lid;
}

/* ---- Asking ---- */

/* Send one request; returns cs_sa_answer's result, the reply in r->resp[0..r->resp_len). */
static inline int ask(struct rig *r, uint16_t requester, const uint8_t *req, size_t len)
{
    return cs_sa_answer(r->db, requester, req, len, r->resp, RESP_CAP, &r->resp_len);
}

static inline struct cs_sa_header reply_header(const struct rig *r)
{
    struct cs_sa_header h;
    cs_sa_header_decode(r->resp, &h);
    return h;
}

/* A request carrying a record; the reply's status (and the answer must be a reply). */
static inline uint16_t query(struct rig *r, uint16_t requester, uint8_t method, uint16_t attr,
                             uint64_t mask, uint32_t mod, const uint8_t *record, size_t size)
{
    uint8_t req[CS_SA_MAD_SIZE];
    sa_request(method, attr, mask, mod, 0x42, record, size, req);
    assert_int_equal(ask(r, requester, req, sizeof req), 1);
    struct cs_sa_header h = reply_header(r);
    assert_true(h.transaction_id == 0x42);
    assert_int_equal(h.attr_id, attr);
    return h.status;
}

/* Records of the last reply. */
static inline uint32_t reply_records(const struct rig *r, size_t size)
{
    struct cs_sa_header h = reply_header(r);
    if (h.status != 0 || h.attr_offset == 0)
        return 0;
    assert_int_equal(h.attr_offset * 8, cs_sa_record_stride(size));
    if (h.method == CS_SA_METHOD_GET_RESP)
        return 1;
    return (uint32_t)((r->resp_len - CS_SA_HEADER_SIZE) / cs_sa_record_stride(size));
}

static inline const uint8_t *record_at(const struct rig *r, size_t size, uint32_t i)
{
    return r->resp + CS_SA_HEADER_SIZE + i * cs_sa_record_stride(size);
}

static inline uint16_t path_query(struct rig *r, uint16_t requester, uint8_t method, uint64_t mask,
                                  const struct cs_sa_path_record *want,
                                  struct cs_sa_path_record *got)
{
    uint8_t rec[CS_SA_PATH_RECORD_SIZE];
    cs_sa_path_record_encode(want, rec);
    uint16_t status = query(r, requester, method, CS_SA_ATTR_PATH_RECORD, mask, 0, rec, sizeof rec);
    if (status == 0 && got && reply_records(r, CS_SA_PATH_RECORD_SIZE) > 0)
        cs_sa_path_record_decode(record_at(r, CS_SA_PATH_RECORD_SIZE, 0), got);
    return status;
}

/* SubnAdmGet(PathRecord) by SLID/DLID. */
static inline uint16_t path(struct rig *r, uint16_t requester, uint16_t slid, uint16_t dlid,
                            struct cs_sa_path_record *got)
{
    struct cs_sa_path_record want = {.slid = slid, .dlid = dlid};
    return path_query(r, requester, CS_SA_METHOD_GET, CS_SA_PR_SLID | CS_SA_PR_DLID, &want, got);
}

static inline uint16_t node_record_by_lid(struct rig *r, uint16_t requester, uint16_t lid,
                                          struct cs_sa_node_record *got)
{
    struct cs_sa_node_record want = {.lid = lid};
    uint8_t rec[CS_SA_NODE_RECORD_SIZE];
    cs_sa_node_record_encode(&want, rec);
    uint16_t status =
        query(r, requester, CS_SA_METHOD_GET, CS_SA_ATTR_NODE_RECORD, 1, 0, rec, sizeof rec);
    if (status == 0 && got)
        cs_sa_node_record_decode(record_at(r, CS_SA_NODE_RECORD_SIZE, 0), got);
    return status;
}

/* GetTable records for a mask and record. */
static inline uint32_t table(struct rig *r, uint16_t requester, uint16_t attr, uint64_t mask,
                             uint32_t mod, const uint8_t *record, size_t size)
{
    assert_int_equal(query(r, requester, CS_SA_METHOD_GET_TABLE, attr, mask, mod, record, size), 0);
    return reply_records(r, size);
}

#endif
