/* The client-side PathRecord cache (include/cloudsm/path_cache.h): Paper I's Algorithm 2 and the
 * switchable extras. The paper's "list with append" becomes an open-addressing table keyed by
 * the DGID (linear probing, at most 3/4 full): the same membership test in O(1). */
#include "cloudsm/path_cache.h"

#include <stdlib.h>
#include <string.h>

struct cs_path_cache {
    struct cs_path_cache_options opt;
    bool enabled;                    /* SA_PathCachingEnabled (Algorithm 2 line 1) */
    struct cs_sa_path_record *slots; /* keyed by slots[i].dgid */
    bool *used;
    size_t cap; /* a power of two, or 0 */
    size_t count;
    struct cs_path_cache_stats stats;
};

int cs_path_cache_create(const struct cs_path_cache_options *opt, struct cs_path_cache **out,
                         struct cs_error *err)
{
    /* Algorithm 2 lines 4-11: an empty table, caching assumed off until the SM says otherwise. */
    struct cs_path_cache *c = calloc(1, sizeof *c);
    if (!c) {
        *out = NULL;
        return cs_fail(err, "out of memory");
    }
    if (opt)
        c->opt = *opt;
    *out = c;
    return 0;
}

void cs_path_cache_destroy(struct cs_path_cache *c)
{
    if (!c)
        return;
    free(c->slots);
    free(c->used);
    free(c);
}

bool cs_path_cache_enabled(const struct cs_path_cache *c)
{
    return c->enabled;
}

size_t cs_path_cache_entry_bytes(void)
{
    return sizeof(struct cs_sa_path_record);
}

/* FNV-1a over the 16 bytes: DGIDs of one subnet share their first 8 bytes and often most of
 * their GUIDs, so every byte has to count. */
static size_t hash_gid(const uint8_t gid[16])
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (int i = 0; i < 16; i++)
        h = (h ^ gid[i]) * UINT64_C(0x100000001b3);
    return (size_t)(h ^ (h >> 32));
}

/* The slot holding dgid, or the empty slot where it would go. cap > 0. */
static size_t probe(const struct cs_path_cache *c, const uint8_t dgid[16])
{
    size_t mask = c->cap - 1, i = hash_gid(dgid) & mask;
    while (c->used[i] && memcmp(c->slots[i].dgid, dgid, 16) != 0)
        i = (i + 1) & mask;
    return i;
}

static int grow(struct cs_path_cache *c, struct cs_error *err)
{
    size_t cap = c->cap ? 2 * c->cap : 64;
    struct cs_sa_path_record *slots = calloc(cap, sizeof *slots);
    bool *used = calloc(cap, sizeof *used);
    if (!slots || !used) {
        free(slots);
        free(used);
        return cs_fail(err, "out of memory for %zu path cache entries", cap);
    }
    struct cs_path_cache old = *c;
    c->slots = slots;
    c->used = used;
    c->cap = cap;
    for (size_t i = 0; i < old.cap; i++)
        if (old.used[i]) {
            size_t at = probe(c, old.slots[i].dgid);
            c->slots[at] = old.slots[i];
            c->used[at] = true;
        }
    free(old.slots);
    free(old.used);
    return 0;
}

const struct cs_sa_path_record *cs_path_cache_lookup(struct cs_path_cache *c,
                                                     const uint8_t dgid[16])
{
    if (!c->enabled) /* line 18: the cache is used only if the SM enabled caching */
        return NULL;
    c->stats.lookups++;
    if (c->cap == 0)
        return NULL;
    size_t i = probe(c, dgid);
    if (!c->used[i])
        return NULL;
    c->stats.hits++;
    return &c->slots[i];
}

int cs_path_cache_learn(struct cs_path_cache *c, const struct cs_sa_path_record *response,
                        struct cs_error *err)
{
    c->stats.responses++;
    if (!cs_path_record_caching_flag(response)) /* line 38 */
        return 0;
    c->stats.flagged++;
    c->enabled = true; /* line 39, never undone by an unflagged response */
    if (4 * (c->count + 1) > 3 * c->cap && grow(c, err) < 0)
        return -1;
    size_t i = probe(c, response->dgid);
    if (c->used[i])
        return 0;            /* held already (a response to a query made while caching was off) */
    c->slots[i] = *response; /* lines 42-43: the whole record, keyed by its DGID */
    c->used[i] = true;
    c->count++;
    c->stats.inserted++;
    return 1;
}

/* Linear probing's deletion: shift back the entries after the hole that would no longer be
 * found past it. */
static void drop_slot(struct cs_path_cache *c, size_t hole)
{
    size_t mask = c->cap - 1;
    c->used[hole] = false;
    for (size_t i = (hole + 1) & mask; c->used[i]; i = (i + 1) & mask) {
        size_t home = hash_gid(c->slots[i].dgid) & mask;
        /* Movable when home lies cyclically outside (hole, i]. */
        bool outside = hole <= i ? (home <= hole || home > i) : (home <= hole && home > i);
        if (outside) {
            c->slots[hole] = c->slots[i];
            c->used[hole] = true;
            c->used[i] = false;
            hole = i;
        }
    }
    c->count--;
}

int cs_path_cache_connect_failed(struct cs_path_cache *c, const uint8_t dgid[16])
{
    if (!c->opt.invalidate_on_failure || c->cap == 0)
        return 0;
    size_t i = probe(c, dgid);
    if (!c->used[i])
        return 0;
    drop_slot(c, i);
    c->stats.invalidated++;
    return 1;
}

unsigned cs_path_cache_sm_changed(struct cs_path_cache *c)
{
    c->stats.sm_changes++;
    if (!c->opt.flush_on_sm_change)
        return 0;
    unsigned dropped = (unsigned)c->count;
    if (c->cap)
        memset(c->used, 0, c->cap * sizeof *c->used);
    c->count = 0;
    c->enabled = false;
    c->stats.flushed += dropped;
    return dropped;
}

struct cs_path_cache_stats cs_path_cache_stats(const struct cs_path_cache *c)
{
    struct cs_path_cache_stats s = c->stats;
    s.enabled = c->enabled;
    s.entries = c->count;
    s.table_bytes = c->cap * (sizeof *c->slots + sizeof *c->used);
    return s;
}

/* ---- Algorithm 2's procedure ---- */

struct resolving {
    struct cs_path_cache *cache;
    cs_path_resolved_fn done;
    void *arg;
};

static void resolved(void *arg, const struct cs_sa_path_reply *reply)
{
    struct resolving r = *(struct resolving *)arg;
    free(arg);
    struct cs_path_resolution res = {.source = CS_PATH_NONE, .sa = *reply};
    res.sa.records = NULL;
    res.sa.error = NULL;
    if (reply->result == CS_SA_OK && reply->count > 0) { /* line 33 */
        res.source = CS_PATH_FROM_SA;
        res.record = reply->records[0];
        /* Out of memory only costs the entry: the connection still gets its record. */
        if (r.cache)
            res.inserted = cs_path_cache_learn(r.cache, &res.record, NULL) == 1;
    }
    r.done(r.arg, &res);
}

int cs_path_resolve(struct cs_path_cache *cache, struct cs_sa_client *sa,
                    const struct cs_sa_path_query *q, cs_path_resolved_fn done, void *arg,
                    struct cs_error *err)
{
    if (cache && (q->component_mask & CS_SA_PR_DGID)) {
        const struct cs_sa_path_record *hit = cs_path_cache_lookup(cache, q->record.dgid);
        if (hit) {
            struct cs_path_resolution res = {.source = CS_PATH_FROM_CACHE, .record = *hit};
            done(arg, &res);
            return 0;
        }
    }
    struct resolving *r = malloc(sizeof *r); /* lines 30-33: one query, wait for its reply */
    if (!r)
        return cs_fail(err, "out of memory");
    *r = (struct resolving){cache, done, arg};
    struct cs_sa_path_query get = *q;
    get.method = CS_SA_METHOD_GET;
    if (cs_sa_client_submit(sa, &get, resolved, r, err) < 0) {
        free(r);
        return -1;
    }
    return 0;
}
