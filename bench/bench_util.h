/* What the C benchmarks share: a monotonic clock, the median of repeated timings, and the exit
 * on a library error. */
#ifndef CLOUDSM_BENCH_UTIL_H
#define CLOUDSM_BENCH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cloudsm/error.h"
#include "cloudsm/lid.h"
#include "cloudsm/route.h"
#include "cloudsm/topo_gen.h"

/* Seconds on the monotonic clock. */
static inline double bench_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static inline double bench_now_ms(void)
{
    return bench_now_s() * 1e3;
}

static int bench_compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median of v[0..n) (sorts v). */
static inline double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_compare_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* "BENCH: WHAT: message" on stderr, exit 1. */
_Noreturn static inline void bench_die(const char *bench, const char *what,
                                       const struct cs_error *err)
{
    fprintf(stderr, "%s: %s: %s\n", bench, what, err->msg);
    exit(1);
}

/* The anchor the benchmarks on the big tree share: a fresh ftree routing of f, in ms (timed
 * inside each run, so that anchor and subject see the same load on the machine). */
static inline double bench_ftree_ms(const char *bench, const struct cs_fabric *f)
{
    struct cs_lfts fresh;
    struct cs_route_stats st;
    struct cs_error err;
    double start = bench_now_ms();
    if (cs_route_with("ftree", f, NULL, NULL, &fresh, &st, NULL, &err) < 0)
        bench_die(bench, "ftree", &err);
    double ms = bench_now_ms() - start;
    cs_lfts_free(&fresh);
    return ms;
}

/* The RUNS argument (1..max), or the usage line and exit 2. */
static inline int bench_runs(const char *bench, int argc, char **argv, int max)
{
    int runs = argc == 2 ? atoi(argv[1]) : 0;
    if (runs < 1 || runs > max) {
        fprintf(stderr, "usage: %s RUNS (1..%d)\n", bench, max);
        exit(2);
    }
    return runs;
}

/* The 11664-host tree the larger benchmarks run on (Table I's hybrid-18-3-1-full:
 * XGFT(3;18,18,36;1,18,18), 1620 switches), with LIDs. */
static inline void bench_big_tree(const char *bench, struct cs_fabric *f)
{
    struct cs_error err;
    cs_fabric_init(f);
    if (cs_topo_preset_generate(f, "hybrid-18-3-1-full", 0, &err) < 0 ||
        cs_lids_assign(f, 0, &err) < 0)
        bench_die(bench, "hybrid-18-3-1-full", &err);
}

#endif
