/* The metabase of mftree (internal): phase I's leaf-to-leaf spanning trees, what identifies the
 * fabric they were computed for, and their SQLite store. See docs/routing/mftree.md.
 *
 * Layout. Columns are "path ids" (Compact Network Reconfiguration in Fat-Trees, Sect. 7.2: "Each
 * path is assigned a path id, which acts as a dummy LID"): column leaf * paths + k is path k of
 * leaf `leaf` (k < leaf_paths[leaf]; the others are all CS_LFT_NO_ROUTE), then one column per
 * "rest" target (a CA port that is not a compute node, a switch LID: routed as ftree routes
 * them, after the paths, so they depend on the topology only). The entries are stored switch by
 * switch: row s (num_columns bytes) holds switch s's egress port for every column, so phase II
 * writes each table front to back. A leaf's entry in its own paths is meaningless (phase II
 * points it at the node's port).
 */
#ifndef CLOUDSM_ROUTE_METABASE_H
#define CLOUDSM_ROUTE_METABASE_H

#include <stdbool.h>
#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/fabric.h"
#include "cloudsm/log.h"
#include "cloudsm/route.h"
#include "route/fattree.h"

/* Bumped when the meaning of a stored metabase changes: an older file is rebuilt. */
#define CS_METABASE_VERSION 1

struct cs_metabase {
    uint64_t fingerprint; /* cs_metabase_fingerprint of the fabric and options */
    uint32_t paths;       /* K: columns reserved per leaf */
    uint32_t num_switches;
    uint32_t num_leaves;
    uint32_t num_rest;
    uint64_t *switch_guids; /* [switch] node GUID, row order */
    uint64_t *leaf_guids;   /* [leaf] node GUID, in OpenSM's leaf order */
    uint32_t *leaf_paths;   /* [leaf] paths it has (<= paths; fewer on a degraded tree) */
    uint64_t *rest_guids;   /* [rest] port GUID (a switch: its port 0 = node GUID) */
    uint8_t *rows;          /* num_switches rows of num_columns entries */
    /* Phase I's chains, only after a build (not stored): per path, the fabric port index of the
     * up port taken at each hop, CS_NONE past the top (depth entries per path). */
    uint32_t *chains;
    uint32_t depth;
};

static inline uint32_t cs_metabase_columns(const struct cs_metabase *mb)
{
    return mb->num_leaves * mb->paths + mb->num_rest;
}

static inline const uint8_t *cs_metabase_row(const struct cs_metabase *mb, uint32_t s)
{
    return mb->rows + (size_t)s * cs_metabase_columns(mb);
}

/* Free what mb holds (mb stays, zeroed); delete: that and mb itself (NULL: nothing). */
void cs_metabase_free(struct cs_metabase *mb);
void cs_metabase_delete(struct cs_metabase *mb);

/* What identifies the fabric for phase I: the switches (node GUIDs), every switch-to-switch cable
 * with its port numbers, which switches have compute nodes and which have other CA ports (the
 * other CA ports themselves, by port GUID and where they are cabled), the root list, -z and the
 * requested path count. Compute nodes may come, go and move between ports of those switches
 * without changing it. */
int cs_metabase_fingerprint(const struct cs_fabric *f, const struct cs_route_options *opt,
                            uint32_t requested_paths, uint64_t *out, struct cs_error *err);

/* Up-chains from every switch of a built fat-tree to the top (1 at a top switch, saturating):
 * chains[s] = sum over s's up groups of cables * chains[remote]. */
int cs_ft_chain_counts(const struct cs_ft *ft, uint64_t **chains, struct cs_error *err);

/* spanning.h's counts of a built fat-tree, from its chain counts. */
void cs_ft_spanning_counts(const struct cs_ft *ft, const uint64_t *chains, uint64_t *different,
                           uint64_t *disjoint, uint64_t *fewest);

/* Phase I: build the fat-tree view and compute the metabase (K from requested_paths: 0 = every
 * different tree a leaf can use (at most the fullest leaf's compute nodes),
 * CS_METABASE_PATHS_DISJOINT = the disjoint count, else that many, capped per leaf). Returns 0, -1
 * or CS_ROUTE_UNSUITABLE. */
int cs_metabase_build(const struct cs_fabric *f, const struct cs_route_options *opt,
                      uint32_t requested_paths, uint64_t fingerprint, struct cs_metabase *mb,
                      struct cs_error *err);

/* The SQLite store (metabase_db.c). load: 1 and *mb filled when the file holds a metabase of this
 * fingerprint; 0 when it does not exist, holds another fabric's, or holds one that does not
 * check out (the reason logged as a warning naming the file: it is then rebuilt and replaced);
 * -1 (err names the file) when the file cannot be read as SQLite or is a database that is not a
 * metabase: it is never overwritten. save: replace the file's metabase in one transaction. */
int cs_metabase_load(const char *path, uint64_t fingerprint, const struct cs_log *log,
                     struct cs_metabase *mb, struct cs_error *err);
int cs_metabase_save(const char *path, const struct cs_metabase *mb, struct cs_error *err);

#endif
