/* Fast hybrid reconfiguration timings ("Fast Hybrid Network Reconfiguration for Large-Scale
 * Lossless Interconnection Networks", Sect. V, Figs. 9 and 10; docs/routing/hybrid.md), run by
 * bench/hybrid.
 *
 * Per tree (a preset: the testbed, the 16 Table I trees), medians of RUNS runs:
 *  (i)   a fresh ftree routing: build the fat-tree view ("Build LID Matrices") + route ("Route
 *        CNs"), what OpenSM does on every full reconfiguration;
 *  (ii)  the whole fabric re-routed by ftree on the machinery kept from the last routing (reset,
 *        not rebuilt: the paper's right bar);
 *  (iii) the first pod (the two-level sub-tree of the first node) re-routed by noftree, its nodes
 *        in reverse order, from the tables of (i), on the kept machinery: selection + routing
 *        (the paper's middle bar).
 * Times are the engine's (cs_route_with's route_ms: table set-up included, file I/O excluded);
 * build is its build_ms. Output: one line per tree, "key=value" fields, for bench/hybrid.
 *
 * usage: bench_hybrid RUNS PRESET...
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "cloudsm/guid_list.h"
#include "cloudsm/lid.h"
#include "cloudsm/route.h"
#include "cloudsm/subtree.h"
#include "cloudsm/topo_gen.h"

#define MAX_RUNS 101

static const char *bench = "bench_hybrid";

/* One routing; returns the engine's time (ms) and its build part. */
static double route_once(const char *engine, const struct cs_fabric *f,
                         const struct cs_route_inputs *in, struct cs_lfts *out, double *build_ms,
                         bool *kept)
{
    struct cs_lfts t;
    struct cs_route_stats stats;
    struct cs_route_result res;
    struct cs_error err;
    if (cs_route_with(engine, f, NULL, in, &t, &stats, &res, &err) < 0)
        bench_die(bench, engine, &err);
    if (stats.fell_back) {
        fprintf(stderr, "%s: %s fell back: %s\n", bench, engine, stats.fallback_reason);
        exit(1);
    }
    *build_ms = res.build_ms;
    if (kept)
        *kept = res.build_kept;
    cs_route_result_free(&res);
    if (out)
        *out = t;
    else
        cs_lfts_free(&t);
    return stats.route_ms;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s RUNS PRESET...\n", bench);
        return 2;
    }
    int runs = atoi(argv[1]);
    if (runs < 1 || runs > MAX_RUNS) {
        fprintf(stderr, "%s: RUNS is 1..%d\n", bench, MAX_RUNS);
        return 2;
    }
    for (int a = 2; a < argc; a++) {
        struct cs_fabric f;
        struct cs_error err;
        cs_fabric_init(&f);
        if (cs_topo_preset_generate(&f, argv[a], 0, &err) < 0 || cs_lids_assign(&f, 0, &err) < 0)
            bench_die(bench, argv[a], &err);
        uint32_t hosts = 0, switches = 0;
        for (uint32_t n = 0; n < f.num_nodes; n++) {
            hosts += f.nodes[n].type == CS_NODE_CA;
            switches += cs_node_is_switch(&f.nodes[n]);
        }
        double fresh[MAX_RUNS], fresh_build[MAX_RUNS], whole[MAX_RUNS], whole_build[MAX_RUNS],
            sub_total[MAX_RUNS], sub_select[MAX_RUNS], sub_build[MAX_RUNS];

        /* The tables in use before the re-routings, and the machinery kept from that routing. */
        struct cs_lfts previous;
        struct cs_route_inputs none = {0};
        struct cs_route_state *state = cs_route_state_new();
        if (!state)
            return 1;
        struct cs_route_inputs kept_in = {.state = state};
        double ignored;
        bool kept;
        route_once("ftree", &f, &kept_in, &previous, &ignored, &kept);
        uint64_t first = f.ports[cs_fabric_port(&f, 0, 1)].guid;
        struct cs_subtree sub = {0};
        uint64_t *order = NULL;
        /* The three interleaved, run by run, so that each sees the same load on the machine. */
        for (int r = 0; r < runs; r++) {
            /* (i) fresh: no state, a build every time. */
            fresh[r] = route_once("ftree", &f, &none, NULL, &fresh_build[r], NULL);

            /* (ii) the whole fabric on the kept machinery. */
            whole[r] = route_once("ftree", &f, &kept_in, NULL, &whole_build[r], &kept);
            if (!kept) {
                fprintf(stderr, "%s: %s: the kept machinery was rebuilt\n", bench, argv[a]);
                return 1;
            }

            /* (iii) the first node's sub-tree, its nodes in reverse order, by noftree. */
            cs_subtree_free(&sub);
            double start = bench_now_ms();
            if (cs_subtree_select(&f, NULL, state, &first, 1, &sub, &err) < 0)
                bench_die(bench, "sub-tree", &err);
            sub_select[r] = bench_now_ms() - start;
            free(order);
            order = calloc(sub.num_ca_ports, sizeof *order);
            if (!order)
                return 1;
            for (uint32_t i = 0; i < sub.num_ca_ports; i++)
                order[i] = f.ports[sub.ca_ports[sub.num_ca_ports - 1 - i]].guid;
            struct cs_guid_list list = {.guids = order, .count = sub.num_ca_ports};
            struct cs_route_inputs in = {.state = state,
                                         .previous = &previous,
                                         .scope_switches = sub.switches,
                                         .num_scope_switches = sub.num_switches,
                                         .node_order = &list};
            sub_total[r] =
                sub_select[r] + route_once("noftree", &f, &in, NULL, &sub_build[r], &kept);
        }
        printf("tree=%s nodes=%u switches=%u runs=%d sub_switches=%u sub_nodes=%u "
               "fresh_ms=%.3f fresh_build_ms=%.3f whole_ms=%.3f whole_build_ms=%.3f "
               "sub_ms=%.3f sub_select_ms=%.3f sub_build_ms=%.3f\n",
               argv[a], hosts, switches, runs, sub.num_switches, sub.num_ca_ports,
               bench_median(fresh, runs), bench_median(fresh_build, runs),
               bench_median(whole, runs), bench_median(whole_build, runs),
               bench_median(sub_total, runs), bench_median(sub_select, runs),
               bench_median(sub_build, runs));
        fflush(stdout);
        free(order);
        cs_subtree_free(&sub);
        cs_lfts_free(&previous);
        cs_route_state_free(state);
        cs_fabric_free(&f);
    }
    return 0;
}
