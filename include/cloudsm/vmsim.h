/* The VM migration simulator: Paper V's vSwitchMigrationSim, in the library (docs/vswitch.md,
 * "The migration simulator").
 *
 * One simulation: a generated fat tree whose host slots are vSwitch hypervisors of `vfs` VFs
 * with prepopulated LIDs; VMs on `population` percent of the VFs, placed by a distribution
 * (vm_patterns.h); the tables vftree computes for them; then the moves of a migration pattern,
 * each planned twice on its own copy of fabric, tables and VM state (vm_plan.h): with ItRC and
 * with FTreeMinRC, recording the switches each updates. Every 1/snapshots of the moves (and at
 * the start) the FTreeMinRC tables are evaluated with the bisect pattern over the running VMs
 * (sim.h), next to the same placement routed from scratch by vftree: Paper V's Fig. 8.
 *
 * Deterministic for a seed: the placement, the moves and the bisect draws come from generators
 * seeded from it, and both tables of a snapshot are evaluated with the same draws.
 */
#ifndef CLOUDSM_VMSIM_H
#define CLOUDSM_VMSIM_H

#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/vm_patterns.h"

struct cs_vmsim_config {
    const char *xgft; /* "h;m1,..;w1,.." (our notation: m1 = hosts per leaf) */
    unsigned vfs;     /* VFs per hypervisor (Paper V: 4) */
    enum cs_vm_distribution distribution;
    unsigned population; /* percent of the VFs that run a VM, 1..100 */
    enum cs_vm_pattern pattern;
    unsigned groups;      /* grouping: the number of groups (Paper V: 2) */
    unsigned snapshots;   /* evaluations after every 1/snapshots of the moves (Paper V: 10) */
    uint32_t bisect_runs; /* bisect runs per evaluation (Paper V: 10000); 0: no evaluation */
    uint64_t seed;
    unsigned threads; /* for the bisect runs; 0: one per CPU */
};

struct cs_vmsim_snapshot {
    uint32_t moves_done;
    double ebb_minrc;  /* mean effective bisection bandwidth on the reconfigured tables */
    double ebb_vftree; /* on the tables vftree computes for the same placement */
};

struct cs_vmsim_result {
    uint32_t hypervisors, switches, vms;
    uint32_t moves;
    uint32_t *switches_itrc;  /* [move] physical switches ItRC updated (n') */
    uint32_t *switches_minrc; /* [move] physical switches FTreeMinRC updated */
    uint64_t lft_smps_itrc, lft_smps_minrc;
    struct cs_vmsim_snapshot *snapshots; /* snapshots + 1: at 0%, then every 1/snapshots */
    uint32_t num_snapshots;
    double route_ms;    /* vftree, the initial routing */
    double plan_ms;     /* all the planning (both methods) */
    double evaluate_ms; /* all the bisect evaluations and re-routings */
};

int cs_vmsim_run(const struct cs_vmsim_config *c, struct cs_vmsim_result *r, struct cs_error *err);
void cs_vmsim_result_free(struct cs_vmsim_result *r);

/* Run n simulations on `threads` workers (0: one per CPU), each simulation whole on one worker
 * (its bisect runs on one thread, whatever configs[i].threads says), so the results do not
 * depend on the thread count. results[i] is configs[i]'s. progress (may be NULL) is called,
 * one call at a time, after each simulation ends, with how many have. On the first error the
 * rest are not started, every result is freed and -1 returned (err: which simulation). */
int cs_vmsim_run_many(const struct cs_vmsim_config *configs, unsigned n, unsigned threads,
                      struct cs_vmsim_result *results,
                      void (*progress)(void *ctx, unsigned done, unsigned total), void *ctx,
                      struct cs_error *err);

/* Paper V's Table 4 topologies (thesis lines 6712-6762), in our notation: the paper lists m and w
 * from the roots down ("XGFT(2;8,4;4,1)"), we from the hosts up ("2;4,8;1,4"). */
struct cs_vmsim_topology {
    const char *name;  /* Paper V's description: "4-ary-2-full", ... */
    const char *paper; /* as the paper writes it */
    const char *xgft;  /* ours */
};
const struct cs_vmsim_topology *cs_vmsim_paper_topologies(unsigned *count);

/* Paper V's 21 simulations per topology (thesis lines 6787-6826): initial distribution random
 * (patterns random, consolidate, grouping, to-uniform) or uniform (the first three: "To-Uniform
 * pattern is only used for the random initial VM distribution"), each at 25, 50 and 75% of 4 VFs
 * per hypervisor; 126 in all. base gives runs, snapshots, groups and the seed (simulation i gets
 * seed + i); out has room for CS_VMSIM_PAPER_RUNS. topology[i] gets the index of simulation i's
 * topology. Returns how many. */
#define CS_VMSIM_PAPER_RUNS 126
unsigned cs_vmsim_paper_configs(const struct cs_vmsim_config *base, struct cs_vmsim_config *out,
                                unsigned *topology);

#endif
