/* What the C benchmarks share: a monotonic clock, the median of repeated timings, and the exit
 * on a library error. */
#ifndef CLOUDSM_BENCH_UTIL_H
#define CLOUDSM_BENCH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cloudsm/error.h"

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

#endif
