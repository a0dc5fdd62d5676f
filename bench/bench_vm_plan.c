/* VM migration planning on the papers' fat-trees (include/cloudsm/vm_plan.h).
 *
 * Table I of Paper II (thesis lines 4001-4043; Table 2 of Paper V): on the four trees of 36-port
 * switches, routed by ftree, one VM per compute node as the paper's emulation (a migration swaps
 * two compute nodes' LIDs): LIDs, LFT blocks per switch, SMPs of a full reconfiguration, and the
 * fewest and most SMPs a swap costs: the fewest a leaf-local migration with FTreeMinRC (the leaf
 * alone), the most the worst pair found for ItRC (every switch whose entries differ, 1 or 2
 * blocks). The search: a few sources (first host of the first, middle and last leaves), every
 * destination in another block and on another leaf; it stops at 2n, the bound.
 *
 * FTreeMinRC's switch marking (Paper V Table 3, thesis lines 6699-6711): the worst case, a
 * migration between the two edges of the tree (first and last leaf), median of RUNS runs, beside
 * the paper's times. The tree is built once (cs_switch_tree_init), as the SM keeps it.
 *
 * usage: bench_vm_plan [RUNS] [table1|marking|all]
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "cloudsm/lid.h"
#include "cloudsm/route.h"
#include "cloudsm/topo_gen.h"
#include "cloudsm/vm_plan.h"

static void generate(struct cs_fabric *f, const char *xgft)
{
    struct cs_error err;
    struct cs_pgft_spec spec;
    cs_fabric_init(f);
    if (cs_pgft_parse(&spec, xgft, false, &err) < 0 || cs_pgft_generate(f, &spec, &err) < 0 ||
        cs_lids_assign(f, 0, &err) < 0)
        bench_die("bench_vm_plan", "error", &err);
}

static uint32_t hosts_of(const struct cs_fabric *f)
{
    uint32_t hosts = 0;
    while (hosts < f->num_nodes && f->nodes[hosts].type == CS_NODE_CA)
        hosts++;
    return hosts;
}

static uint32_t leaf_of(const struct cs_fabric *f, uint32_t host)
{
    return f->ports[f->ports[cs_fabric_port(f, host, 1)].peer].node;
}

static uint16_t lid_of(const struct cs_fabric *f, uint32_t host)
{
    return f->ports[cs_fabric_port(f, host, 1)].lid;
}

/* What ItRC's swap of a and b sends: 1 or 2 blocks on every switch whose entries differ. */
static uint32_t swap_cost(const struct cs_lfts *t, uint16_t a, uint16_t b)
{
    uint32_t blocks = a / CS_LFT_BLOCK == b / CS_LFT_BLOCK ? 1 : 2, cost = 0;
    for (uint32_t s = 0; s < t->num_switches; s++)
        if (t->ports[(size_t)s * t->capacity + a] != t->ports[(size_t)s * t->capacity + b])
            cost += blocks;
    return cost;
}

struct table1_row {
    const char *xgft;
    unsigned nodes, switches, lids, blocks, full, max; /* the paper's */
};

static void table1(void)
{
    static const struct table1_row rows[] = {
        {"2;18,18;1,18", 324, 36, 360, 6, 216, 72},
        {"2;18,36;1,18", 648, 54, 702, 11, 594, 108},
        {"3;18,18,18;1,18,18", 5832, 972, 6804, 107, 104004, 1944},
        {"3;18,18,36;1,18,18", 11664, 1620, 13284, 208, 336960, 3240},
    };
    printf("Table I (Paper II; thesis lines 4001-4043): ours / paper's\n");
    printf("%-25s %11s %9s %11s %7s %13s %5s %11s %9s\n", "tree", "nodes", "switches", "LIDs",
           "blocks", "full RC SMPs", "min", "max", "ftree ms");
    for (unsigned i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const struct table1_row *row = &rows[i];
        struct cs_error err;
        struct cs_fabric f;
        struct cs_lfts t;
        struct cs_route_stats st;
        generate(&f, row->xgft);
        double t0 = bench_now_ms();
        if (cs_route("ftree", &f, NULL, &t, &st, &err) < 0)
            bench_die("bench_vm_plan", "error", &err);
        double route_ms = bench_now_ms() - t0;
        uint32_t hosts = hosts_of(&f);

        /* min: a leaf-local migration with FTreeMinRC */
        struct cs_switch_tree tr;
        if (cs_switch_tree_init(&tr, &f, NULL, &t, &err) < 0)
            bench_die("bench_vm_plan", "error", &err);
        uint32_t *tables = malloc(t.num_switches * sizeof *tables), active;
        struct cs_plan_ends ends = {leaf_of(&f, 0), leaf_of(&f, 1), lid_of(&f, 0), lid_of(&f, 1)};
        uint32_t count = cs_plan_select(&tr, CS_PLAN_FTREEMINRC, &t, &ends, tables, &active);
        struct cs_plan plan;
        cs_plan_init(&plan);
        struct cs_lid_update u = {CS_LID_SWAP, lid_of(&f, 0), lid_of(&f, 1)};
        if (cs_lid_update_apply(&t, &u, tables, count, active, false, false, &plan, &err) < 0)
            bench_die("bench_vm_plan", "error", &err);
        uint64_t min = cs_plan_total_smps(&plan);
        cs_plan_free(&plan);
        cs_plan_init(&plan); /* swap back */
        if (cs_lid_update_apply(&t, &u, tables, count, active, false, false, &plan, &err) < 0)
            bench_die("bench_vm_plan", "error", &err);
        cs_plan_free(&plan);

        /* max: the worst ItRC swap found */
        uint32_t worst = 0, leaf_hosts = 0;
        while (leaf_hosts < hosts && leaf_of(&f, leaf_hosts) == leaf_of(&f, 0))
            leaf_hosts++;
        uint32_t sources[3] = {0, (hosts / leaf_hosts / 2) * leaf_hosts, hosts - leaf_hosts};
        for (unsigned k = 0; k < 3 && worst < 2 * t.num_switches; k++) {
            uint32_t a = sources[k];
            for (uint32_t b = 0; b < hosts && worst < 2 * t.num_switches; b++) {
                if (lid_of(&f, a) / CS_LFT_BLOCK == lid_of(&f, b) / CS_LFT_BLOCK ||
                    leaf_of(&f, a) == leaf_of(&f, b))
                    continue;
                uint32_t cost = swap_cost(&t, lid_of(&f, a), lid_of(&f, b));
                if (cost > worst)
                    worst = cost;
            }
        }
        char name[40], nodes[32], sws[32], lids[32], blocks[32], full[32], max[32];
        snprintf(name, sizeof name, "XGFT(%s)", row->xgft);
        snprintf(nodes, sizeof nodes, "%u/%u", hosts, row->nodes);
        snprintf(sws, sizeof sws, "%u/%u", t.num_switches, row->switches);
        snprintf(lids, sizeof lids, "%u/%u", cs_fabric_max_lid(&f), row->lids);
        snprintf(blocks, sizeof blocks, "%u/%u", cs_lfts_blocks(&t), row->blocks);
        snprintf(full, sizeof full, "%u/%u", t.num_switches * cs_lfts_blocks(&t), row->full);
        snprintf(max, sizeof max, "%u/%u", worst, row->max);
        printf("%-25s %11s %9s %11s %7s %13s %3lu/1 %11s %9.1f\n", name, nodes, sws, lids, blocks,
               full, (unsigned long)min, max, route_ms);
        free(tables);
        cs_switch_tree_free(&tr);
        cs_lfts_free(&t);
        cs_fabric_free(&f);
    }
}

struct marking_row {
    const char *xgft, *name;
    double paper_ms;
};

static void marking(int runs)
{
    static const struct marking_row rows[] = {
        {"3;18,18,18;1,18,18", "3 levels: 972 switches/5832 nodes", 3.0},
        {"3;18,18,36;1,18,18", "3 levels: 1620 switches/11664 nodes", 3.4},
        {"4;12,12,12,12;1,12,12,12", "4 levels: 6912 switches/20736 nodes", 79.0},
    };
    printf("FTreeMinRC switch marking, worst case (first leaf to last leaf), median of %d runs\n",
           runs);
    printf("%-38s %8s %12s %12s %9s\n", "tree (Paper V Table 3)", "marked", "ours ms", "paper ms",
           "speed-up");
    double *times = malloc((size_t)runs * sizeof *times);
    for (unsigned i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct cs_error err;
        struct cs_fabric f;
        generate(&f, rows[i].xgft);
        struct cs_switch_tree tr;
        if (cs_switch_tree_init(&tr, &f, NULL, NULL, &err) < 0)
            bench_die("bench_vm_plan", "error", &err);
        uint32_t hosts = hosts_of(&f);
        uint32_t *out = malloc(f.num_nodes * sizeof *out), marked = 0;
        for (int r = 0; r < runs; r++) {
            double t0 = bench_now_ms();
            marked = cs_minrc_mark(&tr, leaf_of(&f, 0), leaf_of(&f, hosts - 1), out);
            times[r] = bench_now_ms() - t0;
        }
        double ours = bench_median(times, runs);
        printf("%-38s %8u %12.4f %12.1f %8.0fx\n", rows[i].name, marked, ours, rows[i].paper_ms,
               rows[i].paper_ms / ours);
        free(out);
        cs_switch_tree_free(&tr);
        cs_fabric_free(&f);
    }
    free(times);
}

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 101;
    const char *what = argc > 2 ? argv[2] : "all";
    if (runs < 1 || runs > 100000)
        runs = 101;
    if (strcmp(what, "table1") == 0 || strcmp(what, "all") == 0)
        table1();
    if (strcmp(what, "marking") == 0 || strcmp(what, "all") == 0)
        marking(runs);
    return 0;
}
