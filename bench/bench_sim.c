/* Congestion simulator speed (sim.h): bisect runs per second on two ftree-routed fat trees,
 * with 1 and 2 threads, median of REPS repetitions each (set-up included: route rows and the
 * all-pairs delivery check are built inside every cs_simulate call), and the 1 -> 2 thread
 * scaling. Targets (issue 4): 10,000 runs on the 8-ary-3-tree (512 hosts) under 2 s, 1,000 runs
 * on XGFT(3;18,18,36;1,18,18) (11664 hosts) under 20 s.
 *
 * Then the VM-migration simulator's workload: XGFT(3;8,8,16;1,8,8) with 4-VF vSwitch
 * hypervisors (4096 VFs), 10,000 bisect runs over a group of 3072 VF ports (each hypervisor's
 * first three VFs), with the tracer's and cs_simulate's set-up timed apart.
 *
 * usage: bench_sim [REPS]   (default 3)
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "cloudsm/analyze.h"
#include "cloudsm/lid.h"
#include "cloudsm/route.h"
#include "cloudsm/sim.h"
#include "cloudsm/topo_gen.h"

struct routed {
    struct cs_fabric f;
    struct cs_lfts lfts;
    struct cs_tracer tr;
    double route_s, tracer_s;
};

static void build(struct routed *r, const char *xgft, unsigned vfs)
{
    struct cs_pgft_spec spec;
    struct cs_error err = {{0}};
    if (cs_pgft_parse(&spec, xgft, false, &err) < 0)
        bench_die("bench_sim", xgft, &err);
    spec.vfs_per_hypervisor = vfs;
    cs_fabric_init(&r->f);
    if (cs_pgft_generate(&r->f, &spec, &err) < 0 || cs_lids_assign(&r->f, 0, &err) < 0)
        bench_die("bench_sim", xgft, &err);
    struct cs_route_stats st;
    double t0 = bench_now_s();
    if (cs_route("ftree", &r->f, NULL, &r->lfts, &st, &err) < 0)
        bench_die("bench_sim", "ftree", &err);
    r->route_s = bench_now_s() - t0;
    if (strcmp(st.engine, "ftree") != 0) {
        fprintf(stderr, "bench_sim: ftree fell back to %s\n", st.engine);
        exit(1);
    }
    t0 = bench_now_s();
    if (cs_tracer_init(&r->tr, &r->f, &r->lfts, &err) < 0)
        bench_die("bench_sim", "tracer", &err);
    r->tracer_s = bench_now_s() - t0;
}

static void routed_free(struct routed *r)
{
    cs_tracer_free(&r->tr);
    cs_lfts_free(&r->lfts);
    cs_fabric_free(&r->f);
}

/* Seconds for `runs` bisect runs (median of reps); also prints the mean effective bandwidth. */
static double time_runs(const struct routed *r, const uint32_t *ports, uint32_t num_ports,
                        uint32_t runs, unsigned threads, int reps, double *bandwidth)
{
    double *t = calloc((size_t)reps, sizeof *t);
    for (int i = 0; i < reps; i++) {
        struct cs_sim_options opt;
        memset(&opt, 0, sizeof opt);
        opt.victim.pattern.kind = CS_PATTERN_BISECT;
        opt.victim.ports = ports;
        opt.victim.num_ports = num_ports;
        opt.select = CS_SELECT_RANDOM;
        opt.runs = runs;
        opt.seed = 1;
        opt.threads = threads;
        struct cs_sim_result res;
        struct cs_error err = {{0}};
        double t0 = bench_now_s();
        if (cs_simulate(&r->tr, &opt, &res, &err) < 0)
            bench_die("bench_sim", "simulate", &err);
        t[i] = bench_now_s() - t0;
        *bandwidth = res.effective_bandwidth_stat.mean;
        cs_sim_result_free(&res);
    }
    double m = bench_median(t, reps);
    free(t);
    return m;
}

static void bench(const char *name, const char *xgft, uint32_t runs, double target_s, int reps)
{
    struct routed r;
    build(&r, xgft, 0);
    uint32_t hosts = 0;
    for (uint32_t n = 0; n < r.f.num_nodes; n++)
        hosts += r.f.nodes[n].type == CS_NODE_CA;
    double bw1, bw2, bw0;
    /* One run is almost only set-up (route rows, delivery check; the check uses the threads). */
    double setup1 = time_runs(&r, NULL, 0, 1, 1, reps, &bw0);
    double setup2 = time_runs(&r, NULL, 0, 1, 2, reps, &bw0);
    double t1 = time_runs(&r, NULL, 0, runs, 1, reps, &bw1);
    double t2 = time_runs(&r, NULL, 0, runs, 2, reps, &bw2);
    printf("%s: %u hosts, %u switches, %u directed links (ftree routing %.2f s)\n", name, hosts,
           r.tr.num_switches, r.tr.links.count, r.route_s);
    printf("  set-up (1 run)           %8.3f s (1 thread) %8.3f s (2 threads)\n", setup1, setup2);
    printf("  %u bisect runs, 1 thread   %8.3f s  %10.0f runs/s  (target %.0f s)%s\n", runs, t1,
           runs / t1, target_s, t1 < target_s ? "" : "  MISSED");
    printf("  %u bisect runs, 2 threads  %8.3f s  %10.0f runs/s  (target %.0f s)%s\n", runs, t2,
           runs / t2, target_s, t2 < target_s ? "" : "  MISSED");
    printf("  scaling 1 -> 2 threads   %.2fx; set-up %.2fx, runs without set-up %.2fx\n", t1 / t2,
           setup1 / setup2, (t1 - setup1) / (t2 - setup2));
    printf("  mean effective bisection bandwidth %.4f (1 thread) %.4f (2 threads)%s\n", bw1, bw2,
           bw1 == bw2 ? "" : "  DIFFER");
    routed_free(&r);
}

/* The VM simulator's shape: one fabric, a port group of most VFs, many cs_simulate calls. */
static void bench_vswitch(int reps)
{
    struct routed r;
    build(&r, "3;8,8,16;1,8,8", 4);
    uint32_t *ports = calloc(r.f.num_port_slots, sizeof *ports);
    uint32_t count = 0, vfs = 0;
    for (uint32_t n = 0; n < r.f.num_nodes; n++)
        if (r.f.nodes[n].type == CS_NODE_CA && vfs++ % 4 != 3)
            ports[count++] = cs_fabric_port(&r.f, n, 1);
    double bw1, bw2, bw0;
    double setup1 = time_runs(&r, ports, count, 1, 1, reps, &bw0);
    double setup2 = time_runs(&r, ports, count, 1, 2, reps, &bw0);
    double t1 = time_runs(&r, ports, count, 10000, 1, reps, &bw1);
    double t2 = time_runs(&r, ports, count, 10000, 2, reps, &bw2);
    printf("XGFT(3;8,8,16;1,8,8), 4-VF vSwitches: %u VFs, %u switches, %u directed links "
           "(ftree routing %.2f s, tracer %.3f s)\n",
           vfs, r.tr.num_switches, r.tr.links.count, r.route_s, r.tracer_s);
    printf("  group of %u VF ports; set-up (1 run) %.3f s (1 thread) %.3f s (2 threads)\n", count,
           setup1, setup2);
    printf("  10000 bisect runs, 1 thread   %8.3f s  %10.0f runs/s\n", t1, 10000 / t1);
    printf("  10000 bisect runs, 2 threads  %8.3f s  %10.0f runs/s\n", t2, 10000 / t2);
    printf("  mean effective bisection bandwidth %.6f (1 thread) %.6f (2 threads)%s\n", bw1, bw2,
           bw1 == bw2 ? "" : "  DIFFER");
    free(ports);
    routed_free(&r);
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 3;
    if (reps < 1 || reps > 50)
        reps = 3;
    printf("bench_sim: median of %d repetitions each\n", reps);
    bench("8-ary-3-tree", "3;8,8,8;1,8,8", 10000, 2.0, reps);
    bench("XGFT(3;18,18,36;1,18,18)", "3;18,18,36;1,18,18", 1000, 20.0, reps);
    bench_vswitch(reps);
    return 0;
}
