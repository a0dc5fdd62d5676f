/* CPU demand traces of virtual machines, for workload delay and consolidation (delay.h).
 *
 * A trace holds, for each VM, its vCore count and a series of CPU demand samples on one common
 * time grid: demand[vm * steps + t] is the VM's demand during step t in percent of ONE core
 * (100 = one core fully busy; a 4-vCore VM can ask up to 400). NaN marks a missing sample until
 * cs_trace_clean has dealt with it. See docs/formats/trace.md and docs/delay.md.
 */
#ifndef CLOUDSM_TRACE_H
#define CLOUDSM_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cloudsm/error.h"

#define CS_TRACE_NAME_MAX 63

struct cs_trace_vm {
    char name[CS_TRACE_NAME_MAX + 1];
    uint32_t vcores;
};

struct cs_trace {
    struct cs_trace_vm *vms;
    float *demand; /* num_vms * steps, percent of one core; NaN = missing */
    uint32_t num_vms;
    uint32_t steps;        /* samples per VM */
    uint32_t step_seconds; /* length of one step (60 by default) */
};

void cs_trace_free(struct cs_trace *t);

static inline float *cs_trace_vm_demand(const struct cs_trace *t, uint32_t vm)
{
    return t->demand + (size_t)vm * t->steps;
}

/* Largest trace the readers build (num_vms * steps samples, 4 bytes each): 2^28 samples = 1 GiB.
 * The paper's data set is 405 x 18720 = 7.6 M samples. */
#define CS_TRACE_MAX_SAMPLES (UINT64_C(1) << 28)

/* ---- Native CSV (docs/formats/trace.md) ----
 * Optional "# cloudsm-trace step_seconds=S steps=N" line, then the required header
 * "vm,vcores,t,cpu_pct", then one row per sample: VM name, its vCore count (the same on every
 * row of that VM), 0-based step index, demand in percent of one core (empty or "nan": missing).
 * Rows may come in any order; VMs are numbered in order of first appearance; a (vm, t) that has
 * no row is NaN. Errors are "name:line: ...". */
int cs_trace_parse_csv(struct cs_trace *t, const char *text, size_t len, const char *name,
                       struct cs_error *err);
int cs_trace_read_csv(struct cs_trace *t, const char *path, struct cs_error *err);
/* Every sample of every VM, VM by VM, t ascending; missing samples as an empty field. Values
 * are printed with the fewest digits that read back to the same float. */
int cs_trace_write_csv(FILE *out, const struct cs_trace *t, struct cs_error *err);
int cs_trace_write_csv_file(const char *path, const struct cs_trace *t, struct cs_error *err);

/* ---- PlanetLab / CoMon directory (CloudSim's workload/planetlab/<date>/) ----
 * One file per VM (VMs in byte order of file name, hidden files skipped), one integer percent
 * per line, one line per 5 minutes. Each sample is repeated 300 / step_seconds times. Shorter
 * files are padded with NaN (missing) up to the longest one. */
struct cs_planetlab_options {
    uint32_t vcores;       /* vCores of every VM; 0 = 1 */
    uint32_t step_seconds; /* step of the resulting trace, must divide 300; 0 = 60 */
};
int cs_trace_read_planetlab(struct cs_trace *t, const char *dir,
                            const struct cs_planetlab_options *opt, struct cs_error *err);

/* ---- Synthetic data set like the paper's UiO trace (docs/formats/trace.md#synthetic) ---- */
struct cs_synthetic_options {
    uint32_t vms;           /* 405 */
    uint32_t total_vcores;  /* 1030 */
    uint32_t days;          /* 13 */
    uint32_t steps_per_day; /* 1440 (1-minute steps) */
    uint64_t seed;          /* 1 */
    double heavy_fraction;  /* share of heavily used VMs, 0.05 */
    double mean_vcore_pct;  /* mean demand per vCore in percent, 5400/1030 = 5.24 (spec §2:
                               aggregate 5000-5900% over 1030 vCores); series are scaled to it;
                               0 = no scaling */
};
/* The paper's values (405 VMs, 1030 vCores, 13 x 1440 steps, seed 1). */
void cs_synthetic_defaults(struct cs_synthetic_options *o);
/* Deterministic for given options; opt NULL = defaults. */
int cs_trace_synthetic(struct cs_trace *t, const struct cs_synthetic_options *opt,
                       struct cs_error *err);

/* ---- Cleaning (docs/formats/trace.md#cleaning) ----
 * A sample is bad when it is missing (NaN), negative or above 100 * vcores. A run of at most
 * max_fill_steps bad samples is filled with the last good value before it (the first good value
 * after it at the start of the series); a VM with a longer run, or with no good sample, is
 * dropped. max_fill_steps = 0 is the paper's policy: drop every VM with a bad sample. */
struct cs_trace_clean_options {
    uint32_t max_fill_steps; /* default 5: one 5-minute sampling period */
};
void cs_trace_clean_defaults(struct cs_trace_clean_options *o);

enum cs_trace_verdict {
    CS_TRACE_KEPT = 0,     /* possibly with filled samples */
    CS_TRACE_DROPPED_GAP,  /* a bad run longer than max_fill_steps */
    CS_TRACE_DROPPED_EMPTY /* no good sample at all */
};

struct cs_trace_clean_vm {
    char name[CS_TRACE_NAME_MAX + 1];
    uint32_t vcores;
    uint32_t missing;       /* NaN samples */
    uint32_t negative;      /* samples < 0 */
    uint32_t over_capacity; /* samples > 100 * vcores */
    uint32_t filled;        /* bad samples replaced (kept VMs only) */
    uint32_t longest_bad_run;
    enum cs_trace_verdict verdict;
};

struct cs_trace_clean_report {
    struct cs_trace_clean_vm *vms; /* one per input VM, input order */
    uint32_t vms_in, vms_kept;
    uint64_t vcores_in, vcores_kept;
    uint32_t dropped_gap, dropped_empty;               /* VMs per verdict */
    uint64_t missing, negative, over_capacity, filled; /* samples, over all input VMs */
};

/* Clean t in place (dropped VMs are removed, order kept) and describe what was done in *report
 * (free with cs_trace_clean_report_free). opt NULL = defaults. */
int cs_trace_clean(struct cs_trace *t, const struct cs_trace_clean_options *opt,
                   struct cs_trace_clean_report *report, struct cs_error *err);
void cs_trace_clean_report_free(struct cs_trace_clean_report *r);
const char *cs_trace_verdict_name(enum cs_trace_verdict v);

#endif
