/* Delay-based consolidation speed: the full Fig. 7 grid (cores {12,16,32} x thresholds
 * {70..100%} x accepted {1,10,100,1000} min/day x 13 leave-one-day-out folds = 624 packings) on
 * the default synthetic trace (405 VMs, 13 x 1440 minutes), with 1..THREADS worker threads.
 * Also times the Fig. 6 grid (utilization packing, 312 packings). Target (issue 5): Fig. 7 under
 * 60 s on 2 cores. Prints the Table II rows so a run can be sanity-checked.
 *
 * usage: bench_delay [THREADS]   (default 2)
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_util.h"
#include "cloudsm/delay.h"
#include "cloudsm/trace.h"

int main(int argc, char **argv)
{
    unsigned threads = argc > 1 ? (unsigned)atoi(argv[1]) : 2;
    struct cs_trace t;
    struct cs_error err;
    if (cs_trace_synthetic(&t, NULL, &err))
        bench_die("bench_delay", "synthetic trace", &err);
    struct cs_demand d = cs_demand_of_trace(&t);
    double mean = 0;
    for (size_t i = 0; i < (size_t)t.num_vms * t.steps; i++)
        mean += t.demand[i];
    printf("trace: %u VMs, %u steps, mean aggregate demand %.0f%%\n", t.num_vms, t.steps,
           mean / t.steps);

    uint32_t cores[3] = {12, 16, 32};
    double th6[8] = {0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0};
    double th7[4] = {0.7, 0.8, 0.9, 1.0}, acc[4] = {1, 10, 100, 1000};
    struct cs_experiment e6 = {
        CS_PACK_UTIL, CS_FIT_FIRST, CS_DELAY_DRAIN_TIME, true, 0, cores, 3, th6, 8, NULL, 0,
        threads};
    struct cs_experiment e7 = {
        CS_PACK_DELAY, CS_FIT_FIRST, CS_DELAY_DRAIN_TIME, true, 0, cores, 3, th7, 4, acc, 4,
        threads};
    struct cs_experiment_result r;
    double t0 = bench_now_s();
    if (cs_experiment_run(&d, &e6, &r, &err))
        bench_die("bench_delay", "fig6", &err);
    double t6 = bench_now_s() - t0;
    printf("fig6 grid (312 utilization packings), %u threads: %.2f s, %zu bins\n", threads, t6,
           r.num_bins);
    cs_experiment_result_free(&r);
    t0 = bench_now_s();
    if (cs_experiment_run(&d, &e7, &r, &err))
        bench_die("bench_delay", "fig7", &err);
    double t7 = bench_now_s() - t0;
    printf("fig7 grid (624 delay packings), %u threads: %.2f s, %zu bins\n", threads, t7,
           r.num_bins);
    printf("accepted threshold  avg_delay  med_delay  max_delay  avg_fill  max_fill  bins\n");
    for (int a = 0; a < 4; a++)
        for (int h = 0; h < 4; h++) {
            struct cs_table_row row;
            if (cs_experiment_table_row(&r, th7[h], acc[a], &row, &err))
                bench_die("bench_delay", "table", &err);
            printf("%8g %8.0f%% %10.2f %10.2f %10.2f %8.2f%% %8.2f%% %5zu\n", acc[a], th7[h] * 100,
                   row.avg_delay, row.med_delay, row.max_delay, row.avg_filling * 100,
                   row.max_filling * 100, row.bins);
        }
    cs_experiment_result_free(&r);
    cs_trace_free(&t);
    return 0;
}
