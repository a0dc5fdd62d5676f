/* The SA client (include/cloudsm/sa_client.h): PathRecord queries in flight, matched by
 * transaction id, retried on timeouts; the reply decoder; GID text. */
#include "cloudsm/sa_client.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/clock.h"

/* A transaction id is (sequence << 16 | slot): the slot finds the query in O(1), the sequence
 * tells a late reply to an earlier occupant of the slot from the current one. */
#define SLOT_BITS 16
#define NO_SLOT UINT32_MAX

struct pending {
    bool busy;
    uint32_t tid;
    uint64_t deadline_us; /* of the current attempt */
    uint64_t sent_us;     /* the current attempt's send */
    unsigned attempts;
    cs_sa_path_done_fn done;
    void *arg;
    uint32_t prev, next; /* the in-flight list, by deadline (every attempt has the same timeout,
                            so send order is deadline order) */
    uint8_t mad[CS_SA_MAD_SIZE];
};

struct cs_sa_client {
    struct cs_gmp_transport t;
    struct cs_sa_client_options opt;
    struct pending *slots;
    uint32_t num_slots, cap_slots;
    uint32_t free_head;   /* free slots chained through next */
    uint32_t first, last; /* in flight, earliest deadline first */
    unsigned outstanding;
    uint32_t sequence;
    struct cs_sa_path_record *records; /* decode buffer for replies */
    uint32_t records_cap;
    struct cs_sa_client_stats stats;
};

uint64_t cs_sa_client_now_us(const struct cs_sa_client *c)
{
    if (c->t.now_us)
        return c->t.now_us(c->t.ctx);
    return (uint64_t)(cs_clock_ms() * 1000.0);
}

int cs_sa_client_create(const struct cs_gmp_transport *transport,
                        const struct cs_sa_client_options *opt, struct cs_sa_client **out,
                        struct cs_error *err)
{
    *out = NULL;
    if (!transport || !transport->send)
        return cs_fail(err, "SA client: the transport has no send function");
    struct cs_sa_client *c = calloc(1, sizeof *c);
    if (!c)
        return cs_fail(err, "out of memory");
    c->t = *transport;
    if (opt)
        c->opt = *opt;
    if (c->opt.timeout_ms == 0)
        c->opt.timeout_ms = CS_SA_CLIENT_DEFAULT_TIMEOUT_MS;
    c->free_head = c->first = c->last = NO_SLOT;
    *out = c;
    return 0;
}

void cs_sa_client_destroy(struct cs_sa_client *c)
{
    if (!c)
        return;
    free(c->slots);
    free(c->records);
    free(c);
}

static void list_append(struct cs_sa_client *c, uint32_t i)
{
    struct pending *p = &c->slots[i];
    p->prev = c->last;
    p->next = NO_SLOT;
    if (c->last != NO_SLOT)
        c->slots[c->last].next = i;
    else
        c->first = i;
    c->last = i;
}

static void list_remove(struct cs_sa_client *c, uint32_t i)
{
    struct pending *p = &c->slots[i];
    if (p->prev != NO_SLOT)
        c->slots[p->prev].next = p->next;
    else
        c->first = p->next;
    if (p->next != NO_SLOT)
        c->slots[p->next].prev = p->prev;
    else
        c->last = p->prev;
}

static int take_slot(struct cs_sa_client *c, uint32_t *out, struct cs_error *err)
{
    if (c->free_head != NO_SLOT) {
        *out = c->free_head;
        c->free_head = c->slots[*out].next;
        return 0;
    }
    if (c->num_slots == CS_SA_CLIENT_MAX_OUTSTANDING)
        return cs_fail(err, "SA client: %u queries in flight already",
                       CS_SA_CLIENT_MAX_OUTSTANDING);
    if (c->num_slots == c->cap_slots) {
        uint32_t cap = c->cap_slots ? 2 * c->cap_slots : 16;
        if (cap > CS_SA_CLIENT_MAX_OUTSTANDING)
            cap = CS_SA_CLIENT_MAX_OUTSTANDING;
        struct pending *grown = realloc(c->slots, cap * sizeof *grown);
        if (!grown)
            return cs_fail(err, "out of memory");
        c->slots = grown;
        c->cap_slots = cap;
    }
    *out = c->num_slots++;
    return 0;
}

static void release_slot(struct cs_sa_client *c, uint32_t i)
{
    list_remove(c, i);
    c->slots[i].busy = false;
    c->slots[i].next = c->free_head;
    c->free_head = i;
    c->outstanding--;
}

/* Send the slot's MAD (again) and put it at the end of the in-flight list. */
static int send_attempt(struct cs_sa_client *c, uint32_t i, struct cs_error *err)
{
    struct pending *p = &c->slots[i];
    if (c->t.send(c->t.ctx, p->mad, CS_SA_MAD_SIZE, err) < 0)
        return -1;
    c->stats.sent++;
    p->attempts++;
    p->sent_us = cs_sa_client_now_us(c);
    p->deadline_us = p->sent_us + (uint64_t)c->opt.timeout_ms * 1000;
    list_append(c, i);
    return 0;
}

void cs_sa_path_request_encode(const struct cs_sa_path_query *q, uint64_t tid, uint64_t sm_key,
                               uint8_t out[CS_SA_MAD_SIZE])
{
    struct cs_sa_header h = {
        .method = q->method,
        .transaction_id = tid,
        .attr_id = CS_SA_ATTR_PATH_RECORD,
        .sm_key = sm_key,
        .component_mask = q->component_mask,
    };
    cs_sa_mad_encode(&h, NULL, 0, out);
    cs_sa_path_record_encode(&q->record, out + CS_SA_HEADER_SIZE);
}

int cs_sa_client_submit(struct cs_sa_client *c, const struct cs_sa_path_query *q,
                        cs_sa_path_done_fn done, void *arg, struct cs_error *err)
{
    if (q->method != CS_SA_METHOD_GET && q->method != CS_SA_METHOD_GET_TABLE)
        return cs_fail(err, "SA client: method 0x%02x is not Get or GetTable", q->method);
    uint32_t i = NO_SLOT;
    if (take_slot(c, &i, err) < 0)
        return -1;
    struct pending *p = &c->slots[i];
    c->sequence = (c->sequence + 1) & 0xffff;
    *p = (struct pending){
        .busy = true,
        .tid = c->sequence << SLOT_BITS | i,
        .done = done,
        .arg = arg,
    };
    cs_sa_path_request_encode(q, p->tid, c->opt.sm_key, p->mad);
    c->outstanding++;
    if (send_attempt(c, i, err) < 0) {
        list_append(c, i); /* release_slot unlinks it */
        release_slot(c, i);
        return -1;
    }
    c->stats.queries++;
    return 0;
}

static void complete(struct cs_sa_client *c, uint32_t i, const struct cs_sa_path_reply *reply)
{
    struct pending done = c->slots[i];
    release_slot(c, i);
    if (done.done)
        done.done(done.arg, reply);
}

int cs_sa_client_deliver(struct cs_sa_client *c, const uint8_t *mad, size_t len)
{
    /* Match first, on the header alone: a MAD that is not ours is stray whatever it holds. */
    if (len < CS_MAD_HEADER_SIZE || mad[1] != CS_SA_CLASS || !(mad[3] & CS_SA_METHOD_RESPONSE)) {
        c->stats.stray++;
        return 0;
    }
    uint32_t tid = (uint32_t)cs_bits_get(mad, 8 * 8 + 32, 32);
    uint32_t i = tid & ((1u << SLOT_BITS) - 1);
    if (i >= c->num_slots || !c->slots[i].busy || c->slots[i].tid != tid) {
        c->stats.stray++;
        return 0;
    }
    struct pending *p = &c->slots[i];
    struct cs_sa_path_reply reply = {
        .attempts = p->attempts,
        .response_us = cs_sa_client_now_us(c) - p->sent_us,
    };
    /* Room for every record the reply can hold. */
    uint32_t need = len > CS_SA_HEADER_SIZE
                        ? (uint32_t)((len - CS_SA_HEADER_SIZE) / CS_SA_PATH_RECORD_SIZE) + 1
                        : 1;
    if (need > c->records_cap) {
        struct cs_sa_path_record *grown = realloc(c->records, need * sizeof *grown);
        if (grown) {
            c->records = grown;
            c->records_cap = need;
        }
    }
    struct cs_sa_header h;
    struct cs_error why;
    uint32_t count = 0;
    if (cs_sa_path_reply_decode(mad, len, &h, c->records, c->records_cap, &count, &why) < 0) {
        c->stats.malformed++;
        reply.result = CS_SA_MALFORMED;
        reply.error = why.msg;
    } else if (h.status != 0) {
        c->stats.status++;
        reply.result = CS_SA_STATUS;
        reply.status = h.status;
    } else {
        c->stats.answered++;
        reply.result = CS_SA_OK;
        reply.count = count;
        reply.records = c->records;
    }
    complete(c, i, &reply);
    return 1;
}

int cs_sa_client_expire(struct cs_sa_client *c, struct cs_error *err)
{
    uint64_t now = cs_sa_client_now_us(c);
    int rc = 0;
    while (c->first != NO_SLOT && c->slots[c->first].deadline_us <= now) {
        uint32_t i = c->first;
        struct pending *p = &c->slots[i];
        if (p->attempts <= c->opt.retries) {
            list_remove(c, i);
            c->stats.retries++;
            if (send_attempt(c, i, err) == 0)
                continue;
            list_append(c, i); /* completed below as a timeout */
            rc = -1;
        }
        c->stats.timeouts++;
        struct cs_sa_path_reply reply = {.result = CS_SA_TIMEOUT, .attempts = p->attempts};
        complete(c, i, &reply);
        if (rc < 0)
            return -1;
    }
    return rc;
}

int64_t cs_sa_client_next_timeout_us(const struct cs_sa_client *c)
{
    if (c->first == NO_SLOT)
        return -1;
    uint64_t now = cs_sa_client_now_us(c), at = c->slots[c->first].deadline_us;
    return at > now ? (int64_t)(at - now) : 0;
}

unsigned cs_sa_client_outstanding(const struct cs_sa_client *c)
{
    return c->outstanding;
}

int cs_sa_client_wait(struct cs_sa_client *c, int timeout_ms, struct cs_error *err)
{
    if (!c->t.recv)
        return cs_fail(err, "SA client: the transport cannot receive");
    int64_t next = cs_sa_client_next_timeout_us(c);
    if (next >= 0 && (timeout_ms < 0 || next / 1000 < timeout_ms))
        timeout_ms = (int)((next + 999) / 1000);
    if (timeout_ms < 0)
        timeout_ms = 0;
    const uint8_t *mad;
    size_t len;
    int got = c->t.recv(c->t.ctx, &mad, &len, timeout_ms, err);
    if (got < 0)
        return -1;
    if (got > 0)
        cs_sa_client_deliver(c, mad, len);
    return cs_sa_client_expire(c, err);
}

int cs_sa_client_run(struct cs_sa_client *c, struct cs_error *err)
{
    while (c->outstanding > 0)
        if (cs_sa_client_wait(c, -1, err) < 0)
            return -1;
    return 0;
}

struct get_result {
    bool done;
    struct cs_sa_path_reply reply;
    struct cs_sa_path_record record;
    char error[CS_ERROR_MAX];
};

static void get_done(void *arg, const struct cs_sa_path_reply *reply)
{
    struct get_result *r = arg;
    r->done = true;
    r->reply = *reply;
    if (reply->result == CS_SA_OK && reply->count > 0)
        r->record = reply->records[0];
    if (reply->error)
        snprintf(r->error, sizeof r->error, "%s", reply->error);
    r->reply.records = NULL;
    r->reply.error = NULL;
}

int cs_sa_path_get(struct cs_sa_client *c, const struct cs_sa_path_query *q,
                   struct cs_sa_path_record *out, uint16_t *status, struct cs_error *err)
{
    struct cs_sa_path_query get = *q;
    get.method = CS_SA_METHOD_GET;
    struct get_result r = {0};
    if (cs_sa_client_submit(c, &get, get_done, &r, err) < 0)
        return -1;
    while (!r.done)
        if (cs_sa_client_wait(c, -1, err) < 0)
            return -1;
    if (status)
        *status = r.reply.status;
    switch (r.reply.result) {
    case CS_SA_OK:
        *out = r.record;
        return 0;
    case CS_SA_STATUS:
        return 1;
    case CS_SA_TIMEOUT:
        return cs_fail(err, "no PathRecord reply from the SA after %u attempt%s of %u ms",
                       r.reply.attempts, r.reply.attempts == 1 ? "" : "s", c->opt.timeout_ms);
    case CS_SA_MALFORMED:
        break;
    }
    return cs_fail(err, "the SA's PathRecord reply is malformed: %s", r.error);
}

struct cs_sa_client_stats cs_sa_client_stats(const struct cs_sa_client *c)
{
    return c->stats;
}

/* ---- The wire ---- */

int cs_sa_path_reply_decode(const uint8_t *mad, size_t len, struct cs_sa_header *hdr,
                            struct cs_sa_path_record *records, uint32_t cap, uint32_t *count,
                            struct cs_error *err)
{
    *count = 0;
    memset(hdr, 0, sizeof *hdr);
    if (len < CS_SA_HEADER_SIZE)
        return cs_fail(err, "%zu bytes, shorter than the SA header (%d)", len, CS_SA_HEADER_SIZE);
    cs_sa_header_decode(mad, hdr);
    if (hdr->mgmt_class != CS_SA_CLASS)
        return cs_fail(err, "management class 0x%02x, not SubnAdm (0x03)", hdr->mgmt_class);
    if (hdr->base_version != CS_SA_BASE_VERSION || hdr->class_version != CS_SA_CLASS_VERSION)
        return cs_fail(err, "base version %u, class version %u (want 1, 2)", hdr->base_version,
                       hdr->class_version);
    if (hdr->method != CS_SA_METHOD_GET_RESP && hdr->method != CS_SA_METHOD_GET_TABLE_RESP)
        return cs_fail(err, "method 0x%02x is not GetResp or GetTableResp", hdr->method);
    if (hdr->attr_id != CS_SA_ATTR_PATH_RECORD)
        return cs_fail(err, "attribute 0x%04x is not PathRecord", hdr->attr_id);
    if (hdr->status != 0)
        return 0;
    bool table = hdr->method == CS_SA_METHOD_GET_TABLE_RESP;
    if (table && hdr->attr_offset == 0)
        return 0; /* an empty table */
    size_t stride = (size_t)hdr->attr_offset * 8;
    if (stride < CS_SA_PATH_RECORD_SIZE)
        return cs_fail(err, "AttributeOffset %u (%zu bytes) is smaller than a PathRecord (64)",
                       hdr->attr_offset, stride);
    size_t data = len - CS_SA_HEADER_SIZE;
    if (!table) {
        if (data < CS_SA_PATH_RECORD_SIZE)
            return cs_fail(err, "GetResp of %zu bytes holds no whole PathRecord", len);
        if (cap > 0) {
            cs_sa_path_record_decode(mad + CS_SA_HEADER_SIZE, &records[0]);
            *count = 1;
        }
        return 0;
    }
    /* PayloadLength counts the SA header's 20 bytes and the records of the whole transfer. */
    if ((hdr->rmpp_flags & CS_RMPP_FLAG_ACTIVE) && hdr->rmpp_payload_length >= 20 &&
        hdr->rmpp_payload_length - 20 < data)
        data = hdr->rmpp_payload_length - 20;
    size_t n = data / stride;
    /* The last record needs only its 64 bytes, not a whole stride. */
    if (data - n * stride >= CS_SA_PATH_RECORD_SIZE)
        n++;
    if (n > cap)
        n = cap;
    for (size_t r = 0; r < n; r++)
        cs_sa_path_record_decode(mad + CS_SA_HEADER_SIZE + r * stride, &records[r]);
    *count = (uint32_t)n;
    return 0;
}

/* ---- GIDs ---- */

void cs_gid_make(uint8_t gid[16], uint64_t prefix, uint64_t guid)
{
    cs_bits_set(gid, 0, 64, prefix);
    cs_bits_set(gid, 64, 64, guid);
}

uint64_t cs_gid_prefix(const uint8_t gid[16])
{
    return cs_bits_get(gid, 0, 64);
}

uint64_t cs_gid_guid(const uint8_t gid[16])
{
    return cs_bits_get(gid, 64, 64);
}

int cs_gid_parse(const char *text, uint8_t gid[16], struct cs_error *err)
{
    if (inet_pton(AF_INET6, text, gid) != 1)
        return cs_fail(err, "'%s' is not a GID (IPv6 form, e.g. fe80::10:0:0:101)", text);
    return 0;
}

const char *cs_gid_format(const uint8_t gid[16], char *buf)
{
    if (!inet_ntop(AF_INET6, gid, buf, CS_GID_TEXT_SIZE))
        buf[0] = '\0';
    return buf;
}
