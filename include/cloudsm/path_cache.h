/* A client-side SA PathRecord cache: Paper I's caching scheme ("A Novel Query Caching Scheme for
 * Dynamic InfiniBand Subnets", its Algorithm 2, thesis lines 2634-2636 and 2677-2714), as a
 * library any SA client can use, plus what a real client needs beyond the paper, each switched
 * off by default so that the paper's behaviour is what an unconfigured cache does.
 *
 * The paper's semantics, exactly:
 *   - The cache is keyed by the destination GID (DGID) alone and holds the whole PathRecord the
 *     SA returned, which the caller uses as is to connect.
 *   - One flag, SA_PathCachingEnabled, starts false. The first PathRecord response whose 3-bit
 *     reserved field at bit 353 is non-zero (the SM runs with subnet_supports_sa_path_caching,
 *     sa.h's CS_SA_PATH_CACHING_FLAG) sets it, and nothing ever clears it: it is sticky.
 *   - Lookups happen only while the flag is set; before that every (re)connection queries the SA.
 *   - Only flagged responses are inserted; an unflagged one after the flag was set is used for
 *     that connection and not kept, and leaves the flag and the entries as they are.
 *   - Nothing is evicted or invalidated: no TTL, no size limit, no reaction to SM changes or
 *     failed connections. Its correctness rests on the fabric keeping a moved VM's addresses
 *     (LID, GUID, GID) and the path's characteristics (Paper I's LIDtracker, thesis lines
 *     2496-2539): a cache on a fabric that does not keep them makes the peers reconnect to stale
 *     paths forever, which is what Paper I warns of (thesis lines 2617-2633) and what the
 *     tests show.
 *
 * The extras (struct cs_path_cache_options):
 *   invalidate_on_failure  a connection over a cached record that fails drops that DGID's entry
 *                          (cs_path_cache_connect_failed), so the next attempt asks the SA
 *   flush_on_sm_change     an SM change or a client reregister (cs_path_cache_sm_changed) drops
 *                          every entry and forgets the flag, which the next response teaches
 *                          again: a new SM's policy is learned afresh
 *
 * cs_path_resolve runs the whole of Algorithm 2 but the connect: cache lookup, else one SA query
 * (through cs_sa_client), learn from the response, hand the record back.
 *
 * Memory: an entry is the decoded record (sizeof(struct cs_sa_path_record), see
 * cs_path_cache_entry_bytes) in an open-addressing table kept at most 3/4 full. Paper I counts 71
 * bytes per entry (the packed members of Linux's struct ib_sa_path_rec, whose sizeof is 80;
 * thesis lines 2724-2733), 3.33 MiB for 49150 peers.
 */
#ifndef CLOUDSM_PATH_CACHE_H
#define CLOUDSM_PATH_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/sa.h"
#include "cloudsm/sa_client.h"

/* Paper I's bytes per entry (thesis lines 2724-2733) and the peers of a full subnet. */
#define CS_PATH_CACHE_PAPER_ENTRY_BYTES 71
#define CS_PATH_CACHE_MAX_PEERS 49150

struct cs_path_cache_options {
    bool invalidate_on_failure;
    bool flush_on_sm_change;
};

struct cs_path_cache_stats {
    bool enabled;         /* SA_PathCachingEnabled */
    uint64_t entries;     /* records held now */
    uint64_t lookups;     /* lookups made (only while enabled) */
    uint64_t hits;        /* lookups that found the DGID: SA queries saved */
    uint64_t responses;   /* responses handed to cs_path_cache_learn */
    uint64_t flagged;     /* ... carrying the caching flag */
    uint64_t inserted;    /* records inserted */
    uint64_t invalidated; /* entries dropped after a failed connection (extra) */
    uint64_t sm_changes;  /* cs_path_cache_sm_changed calls */
    uint64_t flushed;     /* entries dropped by them (extra) */
    size_t table_bytes;   /* memory of the table now */
};

struct cs_path_cache;

/* opt NULL: the paper's cache (no extras). */
int cs_path_cache_create(const struct cs_path_cache_options *opt, struct cs_path_cache **out,
                         struct cs_error *err);
void cs_path_cache_destroy(struct cs_path_cache *c);

/* Whether the response carries Paper I's flag: the reserved field at bit 353 is non-zero. */
static inline bool cs_path_record_caching_flag(const struct cs_sa_path_record *r)
{
    return r->reserved_353 != 0;
}

bool cs_path_cache_enabled(const struct cs_path_cache *c);

/* Algorithm 2 lines 18-23: the record cached for dgid, or NULL when caching is not enabled or
 * the DGID was never inserted. The pointer is valid until the next insert, drop or flush. */
const struct cs_sa_path_record *cs_path_cache_lookup(struct cs_path_cache *c,
                                                     const uint8_t dgid[16]);

/* Algorithm 2 lines 38-44, for a response the SA gave: a flagged one sets the flag and is inserted
 * under its DGID (unless that DGID is held already: the paper appends only on a miss). Returns 1
 * if it was inserted, 0 if not, -1 with err when out of memory. */
int cs_path_cache_learn(struct cs_path_cache *c, const struct cs_sa_path_record *response,
                        struct cs_error *err);

/* A connection over the path to dgid failed. With invalidate_on_failure the entry is dropped
 * (1 returned); without it (the paper) nothing changes (0). */
int cs_path_cache_connect_failed(struct cs_path_cache *c, const uint8_t dgid[16]);

/* The SM changed (another master SM LID) or asked its clients to reregister. With
 * flush_on_sm_change every entry is dropped and the flag forgotten (the number dropped is
 * returned); without it (the paper) nothing changes (0). */
unsigned cs_path_cache_sm_changed(struct cs_path_cache *c);

struct cs_path_cache_stats cs_path_cache_stats(const struct cs_path_cache *c);

/* Bytes one entry takes in the table (sizeof the decoded record). */
size_t cs_path_cache_entry_bytes(void);

/* ---- Algorithm 2: (RE-)CONNECTIONESTABLISHMENT(DGID) up to connect_to ------------------- */

enum cs_path_source {
    CS_PATH_FROM_CACHE, /* a cache hit: no SA query sent */
    CS_PATH_FROM_SA,    /* the SA answered (status 0, a record) */
    CS_PATH_NONE,       /* the SA was asked and gave no record: sa.result says why */
};

struct cs_path_resolution {
    enum cs_path_source source;
    struct cs_sa_path_record record; /* CS_PATH_FROM_CACHE / CS_PATH_FROM_SA */
    bool inserted;                   /* the response went into the cache */
    struct cs_sa_path_reply sa;      /* the SA's reply (records/error pointers not kept) */
};

typedef void (*cs_path_resolved_fn)(void *arg, const struct cs_path_resolution *r);

/* Resolve the path q asks for (a SubnAdmGet; q->method is ignored). With a cache (cache may be
 * NULL: the unmodified client, which always asks) and q naming a DGID (CS_SA_PR_DGID in its
 * mask), a hit calls done before returning, with no SA query; otherwise one query goes to the SA
 * and done runs from the client's loop when it is answered, after the response went through
 * cs_path_cache_learn. A query that names only a DLID is never looked up (there is no key yet);
 * its response is learned under the DGID it carries. -1 with err if the query could not be sent
 * (done is then not called). */
int cs_path_resolve(struct cs_path_cache *cache, struct cs_sa_client *sa,
                    const struct cs_sa_path_query *q, cs_path_resolved_fn done, void *arg,
                    struct cs_error *err);

#endif
