/* The client side of the SA on arbitrary reply bytes: the reply decoder, the SA client matching
 * replies to queries in flight (sa_client.h) and the path cache learning from what it decoded
 * (path_cache.h). No crash, no leak, and the client keeps its promises: every query completes
 * exactly once, a Get's success carries exactly one record, a table never more records than its
 * bytes hold, the cache holds only flagged records and only when enabled, and its lookups find
 * exactly what it inserted.
 *
 * Input: a sequence of replies, each 2 bytes of length (big-endian, taken mod 1024), 1 selector
 * byte and that many MAD bytes. The selector's low bits pick a query in flight whose transaction
 * id is written into the reply (so that most replies match; bit 7 set: the bytes are delivered as
 * they are), and every reply also goes to the decoder directly. Between replies the clock moves
 * on by the selector's bits 4..6 times 40 ms, so timeouts and resends happen too. Eight queries
 * (Gets and GetTables, with and without a DGID) are in flight at the start; each completion of a
 * resolution submits another while the input lasts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/path_cache.h"
#include "cloudsm/sa_client.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define IN_FLIGHT 64

struct fuzz_sa {
    uint64_t now_us;
    uint32_t tids[IN_FLIGHT]; /* requests sent, newest last */
    unsigned count;
};

static int fz_send(void *ctx, const uint8_t *mad, size_t len, struct cs_error *err)
{
    (void)err;
    struct fuzz_sa *f = ctx;
    if (len < CS_SA_MAD_SIZE)
        abort(); /* the client always sends whole MADs */
    if (f->count == IN_FLIGHT) {
        memmove(f->tids, f->tids + 1, (IN_FLIGHT - 1) * sizeof f->tids[0]);
        f->count--;
    }
    f->tids[f->count++] = (uint32_t)cs_bits_get(mad, 96, 32);
    return 0;
}

static uint64_t fz_now(void *ctx)
{
    return ((struct fuzz_sa *)ctx)->now_us;
}

struct state {
    struct cs_sa_client *sa;
    struct cs_path_cache *cache;
    unsigned submitted, completed;
    unsigned budget; /* more resolutions to submit */
};

static void submit(struct state *s, unsigned n);

static void resolved(void *arg, const struct cs_path_resolution *r)
{
    struct state *s = arg;
    s->completed++;
    if (r->source == CS_PATH_FROM_SA && r->sa.count == 0)
        abort(); /* a record from the SA means the reply had one */
    if (r->inserted && !cs_path_record_caching_flag(&r->record))
        abort();
    if (r->inserted && !cs_path_cache_lookup(s->cache, r->record.dgid))
        abort();
    if (s->budget > 0) {
        s->budget--;
        submit(s, s->submitted);
    }
}

static void table_reply(void *arg, const struct cs_sa_path_reply *r)
{
    unsigned *completed = arg;
    (*completed)++;
    if (r->result == CS_SA_OK && r->records == NULL && r->count > 0)
        abort();
    for (uint32_t i = 0; i < r->count; i++)
        if (r->records[i].mtu > 63 || r->records[i].sl > 15)
            abort(); /* decoded fields stay within their widths */
}

static void submit(struct state *s, unsigned n)
{
    struct cs_sa_path_query q = {.method = CS_SA_METHOD_GET};
    struct cs_error err;
    if (n % 4 == 3) {
        q.method = CS_SA_METHOD_GET_TABLE;
        q.component_mask = CS_SA_PR_SLID;
        q.record.slid = 1;
        if (cs_sa_client_submit(s->sa, &q, table_reply, &s->completed, &err) == 0)
            s->submitted++;
        return;
    }
    if (n % 4 == 2) {
        q.component_mask = CS_SA_PR_DLID | CS_SA_PR_SLID;
        q.record.dlid = (uint16_t)(n + 2);
        q.record.slid = 1;
    } else {
        q.component_mask = CS_SA_PR_DGID | CS_SA_PR_SGID;
        cs_gid_make(q.record.dgid, UINT64_C(0xfe80000000000000), 0x100 + n % 5);
        cs_gid_make(q.record.sgid, UINT64_C(0xfe80000000000000), 0x1);
    }
    s->submitted++;
    if (cs_path_resolve(s->cache, s->sa, &q, resolved, s, &err) < 0)
        s->submitted--;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_sa f = {0};
    struct cs_gmp_transport t = {.ctx = &f, .send = fz_send, .now_us = fz_now};
    struct cs_sa_client_options so = {.timeout_ms = 100, .retries = 1};
    struct cs_path_cache_options co = {.invalidate_on_failure = true};
    struct state s = {.budget = 32};
    struct cs_error err;
    if (cs_sa_client_create(&t, &so, &s.sa, &err) < 0 ||
        cs_path_cache_create(size % 2 ? &co : NULL, &s.cache, &err) < 0)
        abort();
    for (unsigned i = 0; i < 8; i++)
        submit(&s, i);
    uint8_t mad[1024];
    struct cs_sa_path_record records[20];
    size_t pos = 0;
    while (pos + 3 <= size) {
        size_t len = (size_t)(data[pos] << 8 | data[pos + 1]) % sizeof mad;
        uint8_t selector = data[pos + 2];
        pos += 3;
        if (len > size - pos)
            len = size - pos;
        memcpy(mad, data + pos, len);
        pos += len;

        /* The decoder alone. */
        struct cs_sa_header h;
        uint32_t n = 0;
        if (cs_sa_path_reply_decode(mad, len, &h, records, 20, &n, &err) == 0) {
            if (n > 20 || (len >= CS_SA_HEADER_SIZE &&
                           n > (len - CS_SA_HEADER_SIZE) / CS_SA_PATH_RECORD_SIZE + 1))
                abort();
            if (h.method == CS_SA_METHOD_GET_RESP && h.status == 0 && n != 1)
                abort();
        } else if (n != 0) {
            abort();
        }

        /* The client: most replies carry the id of a query in flight. */
        if (!(selector & 0x80) && f.count > 0 && len >= 16)
            cs_bits_set(mad, 96, 32, f.tids[(selector & 0x0f) % f.count]);
        cs_sa_client_deliver(s.sa, mad, len);
        f.now_us += (uint64_t)((selector >> 4) & 7) * 40000;
        if (cs_sa_client_expire(s.sa, &err) < 0)
            abort();
        if (selector == 0x3c && n > 0) /* now and then a connection over a record fails */
            cs_path_cache_connect_failed(s.cache, records[0].dgid);
    }
    /* Out of input: everything left times out, and every query completed exactly once. */
    s.budget = 0;
    while (cs_sa_client_outstanding(s.sa) > 0) {
        f.now_us += 200000;
        if (cs_sa_client_expire(s.sa, &err) < 0)
            abort();
    }
    if (s.completed != s.submitted)
        abort();
    struct cs_path_cache_stats st = cs_path_cache_stats(s.cache);
    if (st.entries > st.inserted || (st.entries > 0 && !st.enabled) || st.inserted > st.flagged)
        abort();
    struct cs_sa_client_stats cst = cs_sa_client_stats(s.sa);
    if (cst.answered + cst.status + cst.timeouts + cst.malformed != cst.queries)
        abort();
    cs_path_cache_destroy(s.cache);
    cs_sa_client_destroy(s.sa);
    return 0;
}
