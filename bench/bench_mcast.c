/* bench_mcast RUNS: multicast spanning trees (cs_mcast_tree) on the 11664-host tree
 * (hybrid-18-3-1-full: XGFT(3;18,18,36;1,18,18), 1620 switches), against a fresh ftree routing of
 * the same fabric measured in the same run (the anchor: the SM's other computation per sweep).
 *
 *   broadcast tree    the IPoIB broadcast group with every host a member: what a heavy sweep
 *                     builds for it (with the router: switch graph, one BFS per leaf), and what
 *                     one join or leave rebuilds (distances known)
 *   small groups      64 groups of 16 hosts at random: a sweep with many application groups
 *
 * Medians of RUNS. */
#include <stdio.h>
#include <stdlib.h>

#include "bench_util.h"
#include "cloudsm/lid.h"
#include "cloudsm/mft.h"
#include "cloudsm/route.h"
#include "cloudsm/topo_gen.h"

#define MAX_RUNS 50
#define SMALL_GROUPS 64
#define SMALL_SIZE 16

static const char bench[] = "bench_mcast";

int main(int argc, char **argv)
{
    int runs = bench_runs(bench, argc, argv, MAX_RUNS);
    struct cs_fabric f;
    struct cs_error err;
    bench_big_tree(bench, &f);
    uint32_t *hosts = malloc(f.num_nodes * sizeof *hosts), num_hosts = 0, switches = 0;
    for (uint32_t n = 0; n < f.num_nodes; n++) {
        if (cs_node_is_switch(&f.nodes[n]))
            switches++;
        else
            hosts[num_hosts++] = f.nodes[n].first_port + 1;
    }
    double ftree_ms[MAX_RUNS], first_ms[MAX_RUNS], bcast_ms[MAX_RUNS], small_ms[MAX_RUNS];
    uint32_t entries = 0;
    srand(7);
    for (int r = 0; r < runs; r++) {
        ftree_ms[r] = bench_ftree_ms(bench, &f);

        struct cs_mfts t;
        if (cs_mfts_init(&t, &f, &err) < 0 || cs_mfts_reserve(&t, SMALL_GROUPS + 1, &err) < 0)
            bench_die(bench, "mfts", &err);
        uint32_t root;
        double start = bench_now_ms();
        struct cs_mcast_router *router = cs_mcast_router_create(&f, NULL, &err);
        if (router == NULL)
            bench_die(bench, "router", &err);
        int reached = cs_mcast_tree(router, hosts, num_hosts, 0, &t, &root, &err);
        first_ms[r] = bench_now_ms() - start;
        if (reached != (int)num_hosts)
            bench_die(bench, "broadcast tree", &err);
        /* A join or leave: the same group again, distances known. */
        start = bench_now_ms();
        reached = cs_mcast_tree(router, hosts, num_hosts, 0, &t, &root, &err);
        bcast_ms[r] = bench_now_ms() - start;
        if (reached != (int)num_hosts)
            bench_die(bench, "broadcast tree", &err);
        entries = 0;
        for (uint32_t sw = 0; sw < t.num_switches; sw++)
            for (unsigned p = 0; p < CS_MFT_POSITIONS_MAX; p++)
                entries += (uint32_t)__builtin_popcount(cs_mfts_entry(&t, sw, 0)[p]);

        uint32_t members[SMALL_SIZE];
        start = bench_now_ms();
        for (uint32_t g = 1; g <= SMALL_GROUPS; g++) {
            for (uint32_t k = 0; k < SMALL_SIZE; k++)
                members[k] = hosts[(uint32_t)rand() % num_hosts];
            if (cs_mcast_tree(router, members, SMALL_SIZE, g, &t, &root, &err) < 0)
                bench_die(bench, "small tree", &err);
        }
        small_ms[r] = bench_now_ms() - start;
        cs_mcast_router_destroy(router);
        cs_mfts_free(&t);
    }
    double ftree = bench_median(ftree_ms, runs), bcast = bench_median(bcast_ms, runs),
           small = bench_median(small_ms, runs), first = bench_median(first_ms, runs);
    printf("hybrid-18-3-1-full (%u hosts, %u switches); medians of %d runs\n", num_hosts, switches,
           runs);
    printf("  anchor: ftree routing        %8.1f ms\n", ftree);
    printf("  broadcast tree after a sweep %8.1f ms  (%.3f of the anchor: the switch graph and a "
           "BFS per leaf included)\n",
           first, first / ftree);
    printf("  the same after a join       %8.1f ms  (%.4f of the anchor; %u MFT port bits)\n",
           bcast, bcast / ftree, entries);
    printf("  %d trees of %d members      %8.1f ms  (%.2f ms a tree, %.4f of the anchor)\n",
           SMALL_GROUPS, SMALL_SIZE, small, small / SMALL_GROUPS, small / SMALL_GROUPS / ftree);
    free(hosts);
    cs_fabric_free(&f);
    return 0;
}
