/* The client side of Subnet Administration: PathRecord queries (SubnAdmGet, SubnAdmGetTable)
 * sent to the SA over any transport that moves GMPs, matched to their replies by transaction id,
 * retried on timeouts, and the replies decoded. No I/O of its own: the tools plug in libibumad
 * (tools/cloudsm/umad_client.c), the unit tests an in-process SA (cs_sa_answer on a sweep).
 *
 *   cs_sa_client_submit    send a query; its callback runs when the reply (or the last timeout)
 *                          comes. Many queries may be in flight at once.
 *   cs_sa_client_deliver   hand the client a MAD that arrived (a caller with its own event loop,
 *                          mixing SA replies with other traffic, receives and dispatches)
 *   cs_sa_client_expire    retry or give up the queries whose time is up
 *   cs_sa_client_wait      one step of the loop above through the transport's recv
 *   cs_sa_path_get         the synchronous form: one Get, its record or status
 *   cs_sa_path_reply_decode  reply bytes -> status and records (checked; fuzzed)
 *
 * Single-threaded; callbacks run from inside deliver/expire/wait and may submit more queries.
 * Transaction ids use the low 32 bits only: the kernel (and ibsim's umad2sim) put the agent id
 * into bits 32..47 of every request it sends. A reply whose id matches nothing outstanding (late,
 * duplicated) is counted as stray and dropped.
 */
#ifndef CLOUDSM_SA_CLIENT_H
#define CLOUDSM_SA_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/sa.h"

/* How GMPs travel between a client and the SA. */
struct cs_gmp_transport {
    void *ctx;
    /* Send one request MAD (len bytes, CS_SA_MAD_SIZE) to the SA: to the SM LID and SL the
     * local port's PortInfo names, QP1, Q_Key 0x80010000. -1 (with err) only for a local failure
     * that will not heal. */
    int (*send)(void *ctx, const uint8_t *mad, size_t len, struct cs_error *err);
    /* Wait up to timeout_ms (0 = just poll) for one MAD: 1 = *mad points at len bytes (a whole
     * RMPP transfer, reassembled; valid until the next recv), 0 = nothing arrived, -1 (with err)
     * = local failure. NULL for a caller that only ever delivers MADs itself. */
    int (*recv)(void *ctx, const uint8_t **mad, size_t *len, int timeout_ms, struct cs_error *err);
    /* The clock timeouts are judged by, in microseconds; NULL: the monotonic clock. An
     * in-process SA gives its own, which advances only while recv waits with nothing to deliver,
     * so that counts do not depend on how fast the test machine is. */
    uint64_t (*now_us)(void *ctx);
};

#define CS_SA_CLIENT_DEFAULT_TIMEOUT_MS 1000
#define CS_SA_CLIENT_MAX_OUTSTANDING 65536

struct cs_sa_client_options {
    unsigned timeout_ms; /* per attempt; 0 = CS_SA_CLIENT_DEFAULT_TIMEOUT_MS */
    unsigned retries;    /* resends after the first attempt times out (0: one attempt) */
    uint64_t sm_key;     /* SM_Key in every request (0: the untrusted default) */
};

/* Counters since creation. */
struct cs_sa_client_stats {
    uint64_t queries;   /* queries submitted (first attempts) */
    uint64_t sent;      /* MADs handed to the transport, retries included */
    uint64_t retries;   /* resends */
    uint64_t answered;  /* replies with status 0 */
    uint64_t status;    /* replies with a non-zero status (NO_RECORDS, ...) */
    uint64_t timeouts;  /* queries that got no reply after every attempt */
    uint64_t malformed; /* replies to one of our queries that did not decode: completed as
                           CS_SA_MALFORMED */
    uint64_t stray;     /* MADs that matched no outstanding query (late, duplicated, another
                           class) */
};

enum cs_sa_result {
    CS_SA_OK = 0,    /* status 0; records decoded (a Get: exactly one) */
    CS_SA_STATUS,    /* the SA answered with a non-zero status (reply->status) */
    CS_SA_TIMEOUT,   /* no reply after every attempt */
    CS_SA_MALFORMED, /* a reply came but was not a PathRecord reply (reply->error says why) */
};

/* One PathRecord query: the record's fields named by component_mask must match (sa.h's
 * CS_SA_PR_* bits). method: CS_SA_METHOD_GET (one record) or CS_SA_METHOD_GET_TABLE. */
struct cs_sa_path_query {
    uint8_t method;
    uint64_t component_mask;
    struct cs_sa_path_record record;
};

struct cs_sa_path_reply {
    enum cs_sa_result result;
    uint16_t status;                         /* the reply's MAD status (0 with CS_SA_OK) */
    uint32_t count;                          /* records decoded */
    const struct cs_sa_path_record *records; /* valid during the callback only */
    uint64_t response_us;                    /* last attempt's send to the reply (0 if none) */
    unsigned attempts;                       /* 1 + resends */
    const char *error;                       /* CS_SA_MALFORMED: why */
};

/* Called once per submitted query from inside deliver, expire or wait. */
typedef void (*cs_sa_path_done_fn)(void *arg, const struct cs_sa_path_reply *reply);

struct cs_sa_client;

int cs_sa_client_create(const struct cs_gmp_transport *transport,
                        const struct cs_sa_client_options *opt, struct cs_sa_client **out,
                        struct cs_error *err);
void cs_sa_client_destroy(struct cs_sa_client *c);

/* Send a query now. -1 with err on a transport failure, a method other than Get/GetTable, or
 * CS_SA_CLIENT_MAX_OUTSTANDING queries in flight; the callback is then never called. */
int cs_sa_client_submit(struct cs_sa_client *c, const struct cs_sa_path_query *q,
                        cs_sa_path_done_fn done, void *arg, struct cs_error *err);

/* A MAD that arrived: 1 if it was the reply to one of our queries (its callback has run), 0 if
 * not (counted as stray). */
int cs_sa_client_deliver(struct cs_sa_client *c, const uint8_t *mad, size_t len);

/* Resend or give up every query whose attempt has timed out by now. -1 on a transport failure
 * while resending (the query is then completed as a timeout). */
int cs_sa_client_expire(struct cs_sa_client *c, struct cs_error *err);

/* Microseconds until the next attempt times out (0 if one already has), or -1 with nothing in
 * flight. */
int64_t cs_sa_client_next_timeout_us(const struct cs_sa_client *c);
unsigned cs_sa_client_outstanding(const struct cs_sa_client *c);
/* The client's clock (the transport's, else monotonic), in microseconds. */
uint64_t cs_sa_client_now_us(const struct cs_sa_client *c);

/* Through the transport's recv: wait up to timeout_ms (bounded by the next query timeout) for
 * one MAD, deliver it, expire what is due. 0, or -1 on a transport failure. */
int cs_sa_client_wait(struct cs_sa_client *c, int timeout_ms, struct cs_error *err);
/* Wait until nothing is in flight. */
int cs_sa_client_run(struct cs_sa_client *c, struct cs_error *err);

/* One SubnAdmGet (q->method is ignored), synchronously: 0 with the record in *out, 1 when the SA
 * answered a non-zero status (in *status: NO_RECORDS, ...), -1 with err on a timeout, a malformed
 * reply or a transport failure. Other queries in flight keep running meanwhile. */
int cs_sa_path_get(struct cs_sa_client *c, const struct cs_sa_path_query *q,
                   struct cs_sa_path_record *out, uint16_t *status, struct cs_error *err);

struct cs_sa_client_stats cs_sa_client_stats(const struct cs_sa_client *c);

/* ---- The wire ----------------------------------------------------------------------------- */

/* The request MAD of a query (CS_SA_MAD_SIZE bytes): SubnAdm class version 2, PathRecord, the
 * record in the data area, transaction id tid. */
void cs_sa_path_request_encode(const struct cs_sa_path_query *q, uint64_t tid, uint64_t sm_key,
                               uint8_t out[CS_SA_MAD_SIZE]);

/* Decode a reply of len bytes: its header into *hdr, and, with status 0, up to cap records
 * into records (*count of them). 0 when it is a well-formed PathRecord reply (GetResp or
 * GetTableResp, any status), -1 with err when it is not: shorter than the SA header, another
 * class, base or class version, not a response method, another attribute, an AttributeOffset
 * smaller than a PathRecord, a GetResp without a whole record. A GetResp carries exactly one
 * record; a GetTableResp as many whole records as its length holds (within the RMPP
 * PayloadLength when that is set: a transport that delivers only a first segment pads it with
 * zeros), at most cap; a GetTableResp with status 0 and AttributeOffset 0 is an empty table. */
int cs_sa_path_reply_decode(const uint8_t *mad, size_t len, struct cs_sa_header *hdr,
                            struct cs_sa_path_record *records, uint32_t cap, uint32_t *count,
                            struct cs_error *err);

/* ---- GIDs --------------------------------------------------------------------------------- */

/* A GID from its subnet prefix and interface id (a port GUID), big-endian bytes. */
void cs_gid_make(uint8_t gid[16], uint64_t prefix, uint64_t guid);
uint64_t cs_gid_prefix(const uint8_t gid[16]);
uint64_t cs_gid_guid(const uint8_t gid[16]);
/* Parse an IPv6-style GID ("fe80::2:c903:0:1", "fe80:0:0:0:0010:0000:0000:0101"): 0, or -1 with
 * err naming the text. */
int cs_gid_parse(const char *text, uint8_t gid[16], struct cs_error *err);
/* Format as eight groups without leading zeros, "::" for the longest run of zero groups (RFC
 * 5952, as saquery and the kernel's sysfs print GIDs). buf: at least CS_GID_TEXT_SIZE. */
#define CS_GID_TEXT_SIZE 40
const char *cs_gid_format(const uint8_t gid[16], char *buf);

#endif
