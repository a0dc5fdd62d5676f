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
#include "cloudsm/log.h"
#include "cloudsm/partitions.h"
#include "cloudsm/vm.h"
#include "cloudsm/weights.h"

struct cs_route_options {
    /* Root switches by node GUID (OpenSM's root_guid_file, -a). NULL: auto-detect. */
    const struct cs_guid_list *root_guids;
    /* Compute nodes by port GUID (OpenSM's cn_guid_file, -u). NULL: every CA port. */
    const struct cs_guid_list *cn_guids;
    /* Route root switches' LIDs between roots too (OpenSM's -z / connect_roots). */
    bool connect_roots;
    /* Fail instead of falling back to minhop. */
    bool no_fallback;
    /* Fat-tree engines: route a fat-tree with missing cables or switches. OpenSM's ftree refuses
     * one unless root GUIDs are given (its regularity checks, ERR AB09-AB0C); ranks still come
     * from the CA-attached switches. slimupdate, made for re-routing after faults, always does. */
    bool tolerate_degraded;
};

/* What an engine may read besides the fabric and the options: the files an operator names
 * (cs_route_inputs_load reads them). Every field may be NULL; an engine ignores what it does not
 * use. */
struct cs_route_inputs {
    const struct cs_node_weights *weights;  /* node weights (wftree) */
    const struct cs_guid_list *node_order;  /* port GUIDs, most important first (noftree) */
    const struct cs_partitions *partitions; /* partitions with isolation policies (pftree) */
    const struct cs_lfts *previous;         /* the tables in use (slimupdate, re-routing) */
    /* Sub-tree re-routing (fast hybrid reconfiguration): the fabric node indices of the switches
     * whose tables may change, NULL: all. A fat-tree engine routes only the nodes on the leaves
     * among them, inside them, and keeps every other entry as `previous` has it (required). */
    const uint32_t *scope_switches;
    uint32_t num_scope_switches;
    const char *metabase_file; /* mftree: the SQLite metabase (NULL: kept in memory only) */
    uint32_t metabase_paths;   /* mftree: spanning trees per leaf (0: every different one a leaf
                                  can use, at most its nodes;
                                  CS_METABASE_PATHS_DISJOINT: the disjoint count) */
    /* Kept between routings of the same fabric by a caller that routes again (cloudsmd): the
     * built fat-tree machinery, the loaded metabase. NULL: everything is built afresh. */
    struct cs_route_state *state;
    const struct cs_guid_list *later_vms; /* VM port GUIDs to route ahead of time (vftree) */
    const struct cs_vm_state *vms; /* the VMs that run (vftree); NULL: one on every VF with a LID */
    const struct cs_log *log;      /* where warnings go (NULL: nowhere) */
};

/* inputs->metabase_paths asking for as many paths per leaf as there are disjoint trees. */
#define CS_METABASE_PATHS_DISJOINT UINT32_MAX

/* What an engine says besides the tables (cs_route_result_free releases it). */
struct cs_route_result {
    uint8_t *partition_sl; /* per partition of inputs->partitions: its SL/VL; NULL: all 0 */
    uint32_t num_partitions;
    uint32_t violations; /* policy requirements the engine could not meet (each one logged) */
    double build_ms;     /* of the engine's time: building its view of the fabric (0: none) */
    bool build_kept;     /* the view kept in inputs->state was reused, not rebuilt */
    bool scoped; /* the engine kept to inputs->scope_switches (cs_route_with refuses an engine
                    that ignores a scope) */
};

void cs_route_result_free(struct cs_route_result *r);

/* What engines keep between routings of one fabric (opaque; see cs_route_inputs.state). An
 * engine checks that the fabric is the one its kept view was built from and rebuilds if not. */
struct cs_route_state;
struct cs_route_state *cs_route_state_new(void);
void cs_route_state_free(struct cs_route_state *s);

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
                           const struct cs_route_inputs *in, struct cs_lfts *lfts,
                           struct cs_route_result *res, struct cs_error *err);

struct cs_route_engine {
    const char *name;
    const char *summary;
    cs_route_fn route;
    /* Re-routes a sub-tree (inputs->scope_switches): the engines that run through the fat-tree
     * machinery's cs_ft_run. cs_route_with refuses a scope for the others. */
    bool subtree;
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
/* cs_route with inputs (NULL: none) and a result (NULL: not wanted; else filled, free it with
 * cs_route_result_free). */
int cs_route_with(const char *engine, const struct cs_fabric *f, const struct cs_route_options *opt,
                  const struct cs_route_inputs *in, struct cs_lfts *lfts,
                  struct cs_route_stats *stats, struct cs_route_result *res, struct cs_error *err);

/* The files that feed engines: one loader for `cloudsm route` (options) and cloudsmd
 * (configuration keys, src/sm/sm_files.c). */
struct cs_route_files {
    const char *node_order_file;   /* --order, node_order_file: a GUID list (guid_list.h) */
    const char *node_weights_file; /* --weights, node_weights_file: node weights (weights.h) */
    const char *partitions_file;   /* --partitions (cloudsmd: partition_config_file, loaded
                                      with the other SM files) */
    const char *vm_state_file;     /* --vms, vm_state_file: the VM state (vm.h) */
};
struct cs_route_loaded {
    struct cs_guid_list node_order;
    bool has_node_order;
    struct cs_node_weights weights;
    bool has_weights;
    struct cs_partitions partitions;
    bool has_partitions;
    struct cs_vm_state vms;
    bool has_vms;
};
/* Read every file paths names (NULL: not given) into loaded, which starts zeroed; a file it
 * already holds is not named twice. On error (err: "file:line: what") loaded keeps what it had
 * read before: free it either way. */
int cs_route_files_load(const struct cs_route_files *paths, struct cs_route_loaded *loaded,
                        struct cs_error *err);
void cs_route_loaded_free(struct cs_route_loaded *loaded);
/* Point in's file fields at what loaded holds (fields of files not loaded are left alone). */
void cs_route_loaded_inputs(const struct cs_route_loaded *loaded, struct cs_route_inputs *in);

/* The engines (src/route/), each a cs_route_fn. */
int cs_route_ftree(const struct cs_fabric *f, const struct cs_route_options *opt,
                   const struct cs_route_inputs *in, struct cs_lfts *lfts,
                   struct cs_route_result *res, struct cs_error *err);
int cs_route_noftree(const struct cs_fabric *f, const struct cs_route_options *opt,
                     const struct cs_route_inputs *in, struct cs_lfts *lfts,
                     struct cs_route_result *res, struct cs_error *err);
int cs_route_wftree(const struct cs_fabric *f, const struct cs_route_options *opt,
                    const struct cs_route_inputs *in, struct cs_lfts *lfts,
                    struct cs_route_result *res, struct cs_error *err);
/* pftree fills res->partition_sl (indexed like inputs->partitions->partitions) and
 * res->violations; strict isolation it cannot meet is an error (docs/routing/pftree.md). */
int cs_route_pftree(const struct cs_fabric *f, const struct cs_route_options *opt,
                    const struct cs_route_inputs *in, struct cs_lfts *lfts,
                    struct cs_route_result *res, struct cs_error *err);
int cs_route_minhop(const struct cs_fabric *f, const struct cs_route_options *opt,
                    const struct cs_route_inputs *in, struct cs_lfts *lfts,
                    struct cs_route_result *res, struct cs_error *err);
/* vftree routes the VMs of inputs->vms (docs/routing/vftree.md). */
int cs_route_vftree(const struct cs_fabric *f, const struct cs_route_options *opt,
                    const struct cs_route_inputs *in, struct cs_lfts *lfts,
                    struct cs_route_result *res, struct cs_error *err);
/* slimupdate re-routes keeping inputs->previous's routes (docs/routing/slimupdate.md). */
int cs_route_slimupdate(const struct cs_fabric *f, const struct cs_route_options *opt,
                        const struct cs_route_inputs *in, struct cs_lfts *lfts,
                        struct cs_route_result *res, struct cs_error *err);
/* mftree: metabase-aided two-phase routing; reads inputs->metabase_file, metabase_paths, state,
 * node_order and weights (docs/routing/mftree.md). */
int cs_route_mftree(const struct cs_fabric *f, const struct cs_route_options *opt,
                    const struct cs_route_inputs *in, struct cs_lfts *lfts,
                    struct cs_route_result *res, struct cs_error *err);
int cs_route_updn(const struct cs_fabric *f, const struct cs_route_options *opt,
                  const struct cs_route_inputs *in, struct cs_lfts *lfts,
                  struct cs_route_result *res, struct cs_error *err);

#endif
