/* Routing engines behind one interface.
 *
 * An engine is a pure function of a fabric (with LIDs assigned) and options: it fills the LFTs
 * of every switch and says what it did. Engines are looked up by name (`-R ENGINE`), as in
 * OpenSM. cs_route() is the one entry point: it prepares the tables (all "no route", each
 * switch's own LID on port 0), times the engine, and falls back to minhop when an engine finds
 * the topology unsuitable (ftree on a fabric that is not a pure fat-tree), as OpenSM does.
 */
#ifndef CLOUDSM_ROUTE_H
#define CLOUDSM_ROUTE_H

#include <stdbool.h>
#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/fabric.h"
#include "cloudsm/guid_list.h"
#include "cloudsm/lft.h"

struct cs_route_options {
    /* Root switches by node GUID (OpenSM's root_guid_file, -a). NULL: auto-detect. */
    const struct cs_guid_list *root_guids;
    /* Compute nodes by port GUID (OpenSM's cn_guid_file, -u). NULL: every CA port. */
    const struct cs_guid_list *cn_guids;
    /* Route root switches' LIDs between roots too (OpenSM's -z / connect_roots). */
    bool connect_roots;
    /* Fail instead of falling back to minhop. */
    bool no_fallback;
};

struct cs_route_stats {
    char requested[16]; /* engine asked for */
    char engine[16];    /* engine whose tables these are (differs after a fallback) */
    bool fell_back;
    char fallback_reason[CS_ERROR_MAX];
    double route_ms; /* engine time only: no file I/O */
    uint32_t switches;
    uint32_t lids; /* LIDs in use (ports with a LID, 2^lmc each) */
    uint16_t max_lid;
    uint64_t lft_blocks; /* blocks a full programming sends: switches * (max_lid / 64 + 1) */
};

/* What an engine returns besides 0 (done) and -1 (error, err set). */
#define CS_ROUTE_UNSUITABLE 1 /* topology not suitable; err says why; caller may fall back */

/* An engine fills `lfts` (prepared by cs_route: one table per switch in fabric order, all
 * CS_LFT_NO_ROUTE except each switch's own LID -> port 0). */
typedef int (*cs_route_fn)(const struct cs_fabric *f, const struct cs_route_options *opt,
                           struct cs_lfts *lfts, struct cs_error *err);

struct cs_route_engine {
    const char *name;
    const char *summary;
    cs_route_fn route;
};

/* All engines, ending with a {NULL} entry. */
extern const struct cs_route_engine cs_route_engines[];

const struct cs_route_engine *cs_route_engine_find(const char *name);
/* "ftree, minhop, updn": the engines' names for messages, cut to fit size. */
const char *cs_route_engine_names(char *buf, size_t size);

/* Route f with the named engine into an uninitialised lfts. The fabric must have LIDs (see
 * lid.h). On success lfts and stats are filled; on failure lfts is left empty. */
int cs_route(const char *engine, const struct cs_fabric *f, const struct cs_route_options *opt,
             struct cs_lfts *lfts, struct cs_route_stats *stats, struct cs_error *err);

/* The engines (src/route/). */
int cs_route_ftree(const struct cs_fabric *f, const struct cs_route_options *opt,
                   struct cs_lfts *lfts, struct cs_error *err);
int cs_route_minhop(const struct cs_fabric *f, const struct cs_route_options *opt,
                    struct cs_lfts *lfts, struct cs_error *err);
int cs_route_updn(const struct cs_fabric *f, const struct cs_route_options *opt,
                  struct cs_lfts *lfts, struct cs_error *err);

#endif
