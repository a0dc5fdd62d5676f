/* The SMP pipeline (include/cloudsm/smp_pipe.h).
 *
 * Requests are kept as the bytes they go out as: an SMP is encoded once when it is submitted,
 * any other class (PerfMgt) is taken as it is, and only the transaction id (bytes 8..15, where
 * every MAD class has it) is written at each attempt. Replies are matched, timed and retried
 * the same way whatever their class; only the completion differs (an SMP's callback gets the
 * request and reply decoded).
 *
 * In-flight requests live in a fixed array of window slots. A request's transaction id is
 * (sequence << SLOT_BITS) | slot, so a reply finds its slot without a search and a late reply to
 * an earlier attempt (older sequence) is told apart from the current one. Slots in flight are also
 * on a list in send order; every attempt has the same timeout, so the list head always carries
 * the earliest deadline and timeouts cost O(1) per reply instead of a scan of the window.
 */
#include "cloudsm/smp_pipe.h"

#include <stdlib.h>
#include <string.h>

#include "cloudsm/clock.h"
#include "core/grow.h"

#define SLOT_BITS 12 /* CS_SMP_PIPE_MAX_WINDOW == 1 << SLOT_BITS */
#define SLOT_MASK ((1u << SLOT_BITS) - 1)
#define SEQ_MASK (UINT32_MAX >> SLOT_BITS)
#define NO_SLOT UINT32_MAX

struct request {
    uint8_t mad[CS_SMP_SIZE]; /* as sent; the transaction id is set at each attempt */
    uint16_t dlid;
    cs_smp_done_fn smp_done; /* an SMP's completion, or */
    cs_mad_done_fn mad_done; /* another class's (at most one of the two is set) */
    void *arg;
};

struct slot {
    struct request req;
    uint64_t deadline_us;
    uint32_t tid; /* low 32 bits of the transaction id of the current attempt */
    uint32_t prev, next;
    unsigned attempts;
    bool busy;
};

struct cs_smp_pipe {
    struct cs_smp_transport transport;
    struct cs_smp_pipe_options opt;
    struct slot *slots;
    uint32_t *free_slots; /* stack of idle slot indices */
    uint32_t num_free;
    uint32_t oldest, newest; /* the in-flight list, in send order */
    uint32_t seq;
    struct request *queue; /* FIFO: [queue_head, queue_count) */
    uint32_t queue_head, queue_count, queue_capacity;
    cs_smp_unsolicited_fn unsolicited;
    void *unsolicited_arg;
    struct cs_smp_pipe_stats stats;
};

static uint64_t now_us(const struct cs_smp_pipe *pipe)
{
    if (pipe->transport.now_us != NULL)
        return pipe->transport.now_us(pipe->transport.ctx);
    return (uint64_t)(cs_clock_ms() * 1000.0);
}

struct cs_smp_pipe *cs_smp_pipe_create(const struct cs_smp_transport *transport,
                                       const struct cs_smp_pipe_options *opt, struct cs_error *err)
{
    struct cs_smp_pipe_options o = opt ? *opt : (struct cs_smp_pipe_options){0};
    if (o.window == 0)
        o.window = CS_SMP_PIPE_DEFAULT_WINDOW;
    if (o.timeout_ms == 0)
        o.timeout_ms = CS_SMP_PIPE_DEFAULT_TIMEOUT_MS;
    if (o.window > CS_SMP_PIPE_MAX_WINDOW) {
        cs_fail(err, "SMP window %u is larger than %u", o.window, CS_SMP_PIPE_MAX_WINDOW);
        return NULL;
    }
    struct cs_smp_pipe *pipe = cs_calloc_array(1, sizeof(*pipe), err);
    if (pipe == NULL)
        return NULL;
    pipe->slots = cs_calloc_array(o.window, sizeof(*pipe->slots), err);
    pipe->free_slots = cs_calloc_array(o.window, sizeof(uint32_t), err);
    if (pipe->slots == NULL || pipe->free_slots == NULL) {
        cs_smp_pipe_destroy(pipe);
        return NULL;
    }
    pipe->transport = *transport;
    pipe->opt = o;
    for (uint32_t i = 0; i < o.window; i++)
        pipe->free_slots[i] = o.window - 1 - i; /* slot 0 is used first */
    pipe->num_free = o.window;
    pipe->oldest = pipe->newest = NO_SLOT;
    return pipe;
}

void cs_smp_pipe_destroy(struct cs_smp_pipe *pipe)
{
    if (pipe == NULL)
        return;
    free(pipe->slots);
    free(pipe->free_slots);
    free(pipe->queue);
    free(pipe);
}

void cs_smp_pipe_set_unsolicited(struct cs_smp_pipe *pipe, cs_smp_unsolicited_fn fn, void *arg)
{
    pipe->unsolicited = fn;
    pipe->unsolicited_arg = arg;
}

uint64_t cs_smp_pipe_now_us(const struct cs_smp_pipe *pipe)
{
    return now_us(pipe);
}

struct cs_smp_pipe_stats cs_smp_pipe_stats(const struct cs_smp_pipe *pipe)
{
    return pipe->stats;
}

struct cs_smp_pipe_stats cs_smp_pipe_stats_since(const struct cs_smp_pipe_stats *now,
                                                 const struct cs_smp_pipe_stats *before)
{
    return (struct cs_smp_pipe_stats){
        .sent = now->sent - before->sent,
        .completed = now->completed - before->completed,
        .timeouts = now->timeouts - before->timeouts,
        .retries = now->retries - before->retries,
        .bad_status = now->bad_status - before->bad_status,
        .stray = now->stray - before->stray,
        .unsolicited = now->unsolicited - before->unsolicited,
        .gets = now->gets - before->gets,
        .sets = now->sets - before->sets,
    };
}

static struct request *queue_slot(struct cs_smp_pipe *pipe, struct cs_error *err)
{
    /* Reclaim the consumed front before growing, so a long-running pipe stays small. */
    if (pipe->queue_head == pipe->queue_count) {
        pipe->queue_head = pipe->queue_count = 0;
    } else if (pipe->queue_count == pipe->queue_capacity && pipe->queue_head > 0) {
        memmove(pipe->queue, pipe->queue + pipe->queue_head,
                (pipe->queue_count - pipe->queue_head) * sizeof(*pipe->queue));
        pipe->queue_count -= pipe->queue_head;
        pipe->queue_head = 0;
    }
    if (cs_grow((void **)&pipe->queue, &pipe->queue_capacity, pipe->queue_count + 1,
                sizeof(*pipe->queue), err) < 0)
        return NULL;
    return &pipe->queue[pipe->queue_count++];
}

int cs_smp_pipe_submit(struct cs_smp_pipe *pipe, const struct cs_smp *smp, uint16_t dlid,
                       cs_smp_done_fn done, void *arg, struct cs_error *err)
{
    struct request *r = queue_slot(pipe, err);
    if (r == NULL)
        return -1;
    cs_smp_encode(smp, r->mad);
    r->dlid = dlid;
    r->smp_done = done;
    r->mad_done = NULL;
    r->arg = arg;
    return 0;
}

int cs_smp_pipe_submit_mad(struct cs_smp_pipe *pipe, const uint8_t mad[CS_SMP_SIZE], uint16_t dlid,
                           cs_mad_done_fn done, void *arg, struct cs_error *err)
{
    struct request *r = queue_slot(pipe, err);
    if (r == NULL)
        return -1;
    memcpy(r->mad, mad, CS_SMP_SIZE);
    r->dlid = dlid;
    r->smp_done = NULL;
    r->mad_done = done;
    r->arg = arg;
    return 0;
}

static void list_remove(struct cs_smp_pipe *pipe, uint32_t i)
{
    struct slot *s = &pipe->slots[i];
    if (s->prev != NO_SLOT)
        pipe->slots[s->prev].next = s->next;
    else
        pipe->oldest = s->next;
    if (s->next != NO_SLOT)
        pipe->slots[s->next].prev = s->prev;
    else
        pipe->newest = s->prev;
}

static void list_append(struct cs_smp_pipe *pipe, uint32_t i)
{
    struct slot *s = &pipe->slots[i];
    s->next = NO_SLOT;
    s->prev = pipe->newest;
    if (pipe->newest != NO_SLOT)
        pipe->slots[pipe->newest].next = i;
    else
        pipe->oldest = i;
    pipe->newest = i;
}

/* Send the slot's request under a fresh transaction id and put it at the end of the deadline
 * list. */
static int send_attempt(struct cs_smp_pipe *pipe, uint32_t i, struct cs_error *err)
{
    struct slot *s = &pipe->slots[i];
    pipe->seq = (pipe->seq + 1) & SEQ_MASK;
    if (pipe->seq == 0)
        pipe->seq = 1; /* never transaction id 0: some agents treat it as unset */
    s->tid = (pipe->seq << SLOT_BITS) | i;
    /* Bytes 8..15, big-endian; the high 32 bits stay 0 (the kernel's agent id goes there). */
    memset(s->req.mad + 8, 0, 4);
    for (int b = 0; b < 4; b++)
        s->req.mad[12 + b] = (uint8_t)(s->tid >> (24 - 8 * b));
    s->attempts++;
    s->deadline_us = now_us(pipe) + (uint64_t)pipe->opt.timeout_ms * 1000u;
    list_append(pipe, i);
    pipe->stats.sent++;
    return pipe->transport.send(pipe->transport.ctx, s->req.mad, s->req.dlid, err);
}

static int start_queued(struct cs_smp_pipe *pipe, struct cs_error *err)
{
    while (pipe->num_free > 0 && pipe->queue_head < pipe->queue_count) {
        uint32_t i = pipe->free_slots[--pipe->num_free];
        struct slot *s = &pipe->slots[i];
        s->req = pipe->queue[pipe->queue_head++];
        s->attempts = 0;
        s->busy = true;
        if (s->req.mad[3] == CS_SMP_METHOD_SET)
            pipe->stats.sets++;
        else
            pipe->stats.gets++;
        if (send_attempt(pipe, i, err) < 0)
            return -1;
    }
    return 0;
}

/* Free slot i and call its request's callback. The request is copied out first: the callback
 * may submit, and a later start_queued may reuse the slot. */
static int finish(struct cs_smp_pipe *pipe, uint32_t i, enum cs_smp_result result,
                  const uint8_t *reply, struct cs_error *err)
{
    struct slot *s = &pipe->slots[i];
    struct request req = s->req;
    list_remove(pipe, i);
    s->busy = false;
    pipe->free_slots[pipe->num_free++] = i;
    if (req.mad_done != NULL)
        return req.mad_done(req.arg, result, req.mad, reply, err);
    if (req.smp_done == NULL)
        return 0;
    struct cs_smp request, answer;
    cs_smp_decode(req.mad, &request);
    if (reply != NULL)
        cs_smp_decode(reply, &answer);
    return req.smp_done(req.arg, result, &request, reply != NULL ? &answer : NULL, err);
}

static int expire(struct cs_smp_pipe *pipe, struct cs_error *err)
{
    uint64_t now = now_us(pipe);
    while (pipe->oldest != NO_SLOT && pipe->slots[pipe->oldest].deadline_us <= now) {
        uint32_t i = pipe->oldest;
        if (pipe->slots[i].attempts <= pipe->opt.retries) {
            list_remove(pipe, i);
            pipe->stats.retries++;
            if (send_attempt(pipe, i, err) < 0)
                return -1;
        } else {
            pipe->stats.timeouts++;
            if (finish(pipe, i, CS_SMP_TIMEOUT, NULL, err) < 0)
                return -1;
        }
    }
    return 0;
}

static int answer_unsolicited(struct cs_smp_pipe *pipe, const struct cs_smp *mad, uint16_t slid,
                              struct cs_error *err)
{
    pipe->stats.unsolicited++;
    if (pipe->unsolicited == NULL)
        return 0;
    struct cs_smp answer;
    if (pipe->unsolicited(pipe->unsolicited_arg, mad, &answer) != 1)
        return 0;
    uint16_t dlid = answer.mgmt_class == CS_SMP_CLASS_DIRECTED_ROUTE ? CS_SMP_PERMISSIVE_LID : slid;
    uint8_t wire[CS_SMP_SIZE];
    cs_smp_encode(&answer, wire);
    pipe->stats.sent++;
    return pipe->transport.send(pipe->transport.ctx, wire, dlid, err);
}

static int handle(struct cs_smp_pipe *pipe, const uint8_t wire[CS_SMP_SIZE], uint16_t slid,
                  struct cs_error *err)
{
    struct cs_mad_header h;
    cs_mad_header_decode(wire, &h);
    /* A request from another (Get, Set, Trap); TrapRepress has no response bit but answers our
     * own Trap, as a GetResp answers a Get. */
    if (!(h.method & 0x80) && h.method != CS_SMP_METHOD_TRAP_REPRESS) {
        struct cs_smp mad;
        cs_smp_decode(wire, &mad);
        return answer_unsolicited(pipe, &mad, slid, err);
    }
    uint32_t tid = (uint32_t)h.transaction_id;
    uint32_t i = tid & SLOT_MASK;
    if (i >= pipe->opt.window || !pipe->slots[i].busy || pipe->slots[i].tid != tid) {
        pipe->stats.stray++;
        return 0;
    }
    pipe->stats.completed++;
    uint16_t status = h.status;
    if (h.mgmt_class == CS_SMP_CLASS_DIRECTED_ROUTE)
        status &= CS_SMP_STATUS_CODE_MASK;
    if (status != 0)
        pipe->stats.bad_status++;
    return finish(pipe, i, status == 0 ? CS_SMP_OK : CS_SMP_STATUS, wire, err);
}

static int wait_ms_until(const struct cs_smp_pipe *pipe, uint64_t deadline_us)
{
    uint64_t now = now_us(pipe);
    if (deadline_us <= now)
        return 0;
    return (int)((deadline_us - now + 999) / 1000);
}

int cs_smp_pipe_run(struct cs_smp_pipe *pipe, struct cs_error *err)
{
    int rc = 0;
    /* Replies already waiting are taken before anything is declared lost: a process that was
     * descheduled past a deadline must not retry requests whose answers sit in its queue. The
     * deadlines are still checked at least once per window of replies, so that steady traffic
     * from others cannot hold a lost request forever. */
    unsigned since_expire = 0;
    for (;;) {
        if (start_queued(pipe, err) < 0) {
            rc = -1;
            break;
        }
        if (pipe->oldest == NO_SLOT)
            break; /* nothing in flight and nothing queued */
        uint8_t wire[CS_SMP_SIZE];
        uint16_t slid = 0;
        int got =
            pipe->transport.recv(pipe->transport.ctx, wire, &slid,
                                 wait_ms_until(pipe, pipe->slots[pipe->oldest].deadline_us), err);
        if (got < 0 || (got == 1 && handle(pipe, wire, slid, err) < 0)) {
            rc = -1;
            break;
        }
        if (got == 1 && ++since_expire < pipe->opt.window)
            continue;
        since_expire = 0;
        if (expire(pipe, err) < 0) {
            rc = -1;
            break;
        }
    }
    if (rc < 0) {
        /* Drop everything: the caller is going to report the error and give up. */
        while (pipe->oldest != NO_SLOT) {
            uint32_t i = pipe->oldest;
            list_remove(pipe, i);
            pipe->slots[i].busy = false;
            pipe->free_slots[pipe->num_free++] = i;
        }
        pipe->queue_head = pipe->queue_count = 0;
    }
    return rc;
}

int cs_smp_pipe_idle(struct cs_smp_pipe *pipe, int timeout_ms, struct cs_error *err)
{
    uint64_t deadline = now_us(pipe) + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000u;
    for (;;) {
        /* Requests left in flight (sent without a run) go on: started, retried, timed out. */
        if (start_queued(pipe, err) < 0)
            return -1;
        uint64_t wake = deadline;
        if (pipe->oldest != NO_SLOT && pipe->slots[pipe->oldest].deadline_us < wake)
            wake = pipe->slots[pipe->oldest].deadline_us;
        uint8_t wire[CS_SMP_SIZE];
        uint16_t slid = 0;
        int got =
            pipe->transport.recv(pipe->transport.ctx, wire, &slid, wait_ms_until(pipe, wake), err);
        if (got < 0)
            return -1;
        if (got == 1 && handle(pipe, wire, slid, err) < 0)
            return -1;
        if (expire(pipe, err) < 0)
            return -1;
        if (now_us(pipe) >= deadline)
            return 0;
    }
}
