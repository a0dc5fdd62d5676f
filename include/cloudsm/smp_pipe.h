/* The SMP pipeline: many SMPs (and PerfMgt GMPs) in flight at once, matched to their replies by
 * transaction id, with timeouts and retries, over any transport that can send and receive
 * 256-byte MADs.
 *
 * A subnet manager spends nearly all of its time waiting for replies. OpenSM keeps at most 4
 * SMPs outstanding (max_wire_smps); the pipe keeps a configurable window of them in flight and
 * queues the rest in submission order, so that a sweep or an LFT push costs about one round
 * trip per window instead of one per SMP.
 *
 * Single-threaded and callback driven: cs_smp_pipe_submit queues a request; cs_smp_pipe_run
 * sends, receives and calls each request's completion callback (from inside run), and returns
 * when nothing is queued or in flight. Callbacks may submit more requests (a breadth-first
 * discovery does exactly that). Transaction ids use only the low 32 bits: the kernel (and
 * ibsim's umad2sim) put the agent id into bits 32..47 of every request it sends.
 *
 * The transport is a pair of functions so that the same pipeline runs over libibumad (cloudsmd)
 * and over an in-process fabric model (the unit tests).
 */
#ifndef CLOUDSM_SMP_PIPE_H
#define CLOUDSM_SMP_PIPE_H

#include <stdbool.h>
#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/smp.h"

/* How a MAD travels. For a directed-route SMP dlid is CS_SMP_PERMISSIVE_LID; for a LID-routed
 * SMP it is the destination LID. */
struct cs_smp_transport {
    void *ctx;
    /* Hand one MAD to the fabric. -1 (with err) only for a local failure that will not heal. */
    int (*send)(void *ctx, const uint8_t mad[CS_SMP_SIZE], uint16_t dlid, struct cs_error *err);
    /* Wait up to timeout_ms (0 = just poll) for one MAD. 1 = got one into mad (and the sender's
     * LID into *slid, 0 if unknown), 0 = nothing arrived in time, -1 (with err) = local failure. */
    int (*recv)(void *ctx, uint8_t mad[CS_SMP_SIZE], uint16_t *slid, int timeout_ms,
                struct cs_error *err);
    /* The clock deadlines are judged by, in microseconds; NULL: the monotonic clock (a real
     * fabric). A simulated fabric gives its own, which moves only while recv waits with nothing
     * to deliver: then a request is lost only when its fabric dropped it, never because the
     * process was descheduled, and SMP counts do not depend on the machine's load. */
    uint64_t (*now_us)(void *ctx);
};

/* How a request ended. */
enum cs_smp_result {
    CS_SMP_OK = 0,  /* a GetResp arrived with status 0 */
    CS_SMP_STATUS,  /* a GetResp arrived with a non-zero status (see reply->status) */
    CS_SMP_TIMEOUT, /* no reply after all retries */
};

/* Called once per submitted request from inside cs_smp_pipe_run. request is the SMP as sent
 * (its transaction id is the pipe's); reply is NULL on CS_SMP_TIMEOUT. Return -1 with err to
 * stop the run (cs_smp_pipe_run then returns -1 with that error). */
typedef int (*cs_smp_done_fn)(void *arg, enum cs_smp_result result, const struct cs_smp *request,
                              const struct cs_smp *reply, struct cs_error *err);

/* The same for a MAD of another class (cs_smp_pipe_submit_mad): request and reply are the
 * CS_SMP_SIZE bytes as they went out and came back (reply NULL on CS_SMP_TIMEOUT). */
typedef int (*cs_mad_done_fn)(void *arg, enum cs_smp_result result, const uint8_t *request,
                              const uint8_t *reply, struct cs_error *err);

/* Called for a MAD that is not a reply to us (another SM's SMInfo Get, a trap). If it returns 1
 * with *answer filled, the pipe sends answer back: directed-route answers to the permissive LID,
 * LID-routed ones to the sender's LID. */
typedef int (*cs_smp_unsolicited_fn)(void *arg, const struct cs_smp *mad, struct cs_smp *answer);

struct cs_smp_pipe_options {
    unsigned window;     /* SMPs in flight at most; 0 = CS_SMP_PIPE_DEFAULT_WINDOW */
    unsigned timeout_ms; /* per attempt; 0 = CS_SMP_PIPE_DEFAULT_TIMEOUT_MS */
    unsigned retries;    /* resends after the first attempt times out */
};
#define CS_SMP_PIPE_DEFAULT_WINDOW 64
#define CS_SMP_PIPE_DEFAULT_TIMEOUT_MS 200 /* OpenSM's transaction_timeout */
#define CS_SMP_PIPE_DEFAULT_RETRIES 3      /* OpenSM's transaction_retries */
#define CS_SMP_PIPE_MAX_WINDOW 4096

/* Counters since creation. The caller takes differences around a phase to log SMPs per phase. */
struct cs_smp_pipe_stats {
    uint64_t sent;        /* MADs handed to the transport, retries included */
    uint64_t completed;   /* requests that got a reply (any status) */
    uint64_t timeouts;    /* requests that gave up */
    uint64_t retries;     /* resends */
    uint64_t bad_status;  /* replies with a non-zero status */
    uint64_t stray;       /* replies nobody waited for (late, duplicated, unknown tid) */
    uint64_t unsolicited; /* requests from others */
    uint64_t gets;        /* first attempts by method, to report reads and writes apart */
    uint64_t sets;
};

struct cs_smp_pipe;

struct cs_smp_pipe *cs_smp_pipe_create(const struct cs_smp_transport *transport,
                                       const struct cs_smp_pipe_options *opt, struct cs_error *err);
void cs_smp_pipe_destroy(struct cs_smp_pipe *pipe);

void cs_smp_pipe_set_unsolicited(struct cs_smp_pipe *pipe, cs_smp_unsolicited_fn fn, void *arg);

/* Queue one request. The pipe assigns the transaction id. dlid as in the transport. */
int cs_smp_pipe_submit(struct cs_smp_pipe *pipe, const struct cs_smp *smp, uint16_t dlid,
                       cs_smp_done_fn done, void *arg, struct cs_error *err);

/* Queue a MAD of another class (a PerfMgt Get: LID-routed, to dlid) through the same window,
 * timeouts and retries. The pipe writes the transaction id; the transport tells classes apart by
 * byte 1 (the management class). */
int cs_smp_pipe_submit_mad(struct cs_smp_pipe *pipe, const uint8_t mad[CS_SMP_SIZE], uint16_t dlid,
                           cs_mad_done_fn done, void *arg, struct cs_error *err);

/* Send, receive and complete until nothing is queued or in flight. -1 on a transport failure or
 * when a callback returned -1; requests still queued are then dropped without their callback. */
int cs_smp_pipe_run(struct cs_smp_pipe *pipe, struct cs_error *err);

/* Wait up to timeout_ms for MADs from others (a running SM between sweeps). Requests submitted
 * and not run (an SM's Reports to subscribers, which nothing waits for) go on meanwhile: sent,
 * completed by their replies, retried and timed out, their callbacks called from here. Returns
 * 0, or -1 on a transport failure. */
int cs_smp_pipe_idle(struct cs_smp_pipe *pipe, int timeout_ms, struct cs_error *err);

struct cs_smp_pipe_stats cs_smp_pipe_stats(const struct cs_smp_pipe *pipe);
/* The clock the pipe judges deadlines by (the transport's, or the monotonic one), in
 * microseconds: what a caller measures intervals between replies with. */
uint64_t cs_smp_pipe_now_us(const struct cs_smp_pipe *pipe);
/* now - before, counter by counter: the SMPs of one phase. */
struct cs_smp_pipe_stats cs_smp_pipe_stats_since(const struct cs_smp_pipe_stats *now,
                                                 const struct cs_smp_pipe_stats *before);

#endif
