/* Node-order re-routing (Compact Network Reconfiguration in Fat-Trees, Sect. 8, Table 4): the
 * mean effective bandwidth of MPI collectives over random node orders, ftree (one routing, the
 * ranks in each order) against mftree (the tables re-generated for each order from the kept
 * metabase: phase II only, Algorithm 5). Run by bench/metabase, which prints the table beside the
 * paper's figures.
 *
 * Topologies: Table 4's k-ary-n-trees (4-ary-2, 6-ary-2, 8-ary-2, 4-ary-3, 16-ary-2 (the table's
 * "16-ary-3" row has 256 nodes: a 16-ary-2-tree), 8-ary-3), each with 1..4 nodes per leaf port
 * (oversubscription o: m_1 = o*k). Patterns bruck, neighbor(2), neighbor(4), neighbor(6), recdbl
 * (pattern.h). Order r is drawn from splitmix64 seeded with cs_sim_run_seed(seed, r), in one of
 * three models; rank i is the i-th node of the order, for both engines:
 *   random  a uniform shuffle of all compute nodes;
 *   leaves  the leaves in a random order, each leaf's nodes in a random order, ranks given leaf
 *           by leaf (a scheduler that allocates whole leaves and numbers ranks on each leaf
 *           without regard to port numbers).
 *
 * The metric is the congestion simulator's (sim.h): per level, a flow's weight is the largest
 * number of the level's flows on a link of its route (host links included), effective bandwidth
 * the mean of 1/weight over the flows of all levels. The per-order loop here traces the flows
 * itself, because cs_simulate checks every pair of the tables first, which for 10,000 table
 * sets would dominate; the first order of every topology is also run through cs_simulate and
 * the two must agree, or the bench stops.
 *
 *   tuple   the leaves in the fabric's (tuple) order, each leaf's nodes in a random order: rank
 *           blocks on consecutive leaves, as a scheduler that places a job leaf by leaf would;
 *           not in bench/metabase's table (both engines reach 1.0 for Bruck and recursive
 *           doubling there: the order model, not the engine, makes the paper's contrast).
 *
 * usage: bench_node_order [--orders N] [--seed S] [--only K,N] [--model random|leaves|tuple]
 * Prints one line per topology, pattern and engine: k n o nodes model pattern engine mean min
 * max.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "cloudsm/analyze.h"
#include "cloudsm/lid.h"
#include "cloudsm/pattern.h"
#include "cloudsm/rng.h"
#include "cloudsm/route.h"
#include "cloudsm/sim.h"
#include "cloudsm/topo_gen.h"

#define NUM_PATTERNS 5
static const char *const pattern_names[NUM_PATTERNS] = {"bruck", "neighbor(2)", "neighbor(4)",
                                                        "neighbor(6)", "recdbl"};

struct evaluator {
    uint32_t *congestion; /* [link] flows of the level */
    uint32_t *routes;     /* per flow of the level: MAX_HOPS link ids */
    uint32_t *hops;       /* per flow: links on its route */
    struct cs_pair *pairs;
    uint32_t capacity; /* flows */
};

#define MAX_HOPS 16

/* Effective bandwidth of pattern p with rank i at ports[i] on tracer t. */
static double effective_bandwidth(struct evaluator *ev, const struct cs_tracer *t,
                                  const struct cs_pattern *p, const uint32_t *ports)
{
    const struct cs_fabric *f = t->fabric;
    double sum = 0;
    uint64_t flows = 0;
    for (uint32_t level = 0; level < p->levels; level++) {
        uint64_t size = cs_pattern_level_size(p, level);
        if (size > ev->capacity) {
            fprintf(stderr, "bench_node_order: a level of %llu flows\n", (unsigned long long)size);
            exit(1);
        }
        cs_pattern_pairs(p, level, 0, (uint32_t)size, ev->pairs);
        for (uint32_t i = 0; i < size; i++) {
            struct cs_route_trace tr;
            struct cs_error err = {{0}};
            uint32_t *links = ev->routes + (size_t)i * MAX_HOPS;
            if (cs_trace_route(t, ports[ev->pairs[i].src], f->ports[ports[ev->pairs[i].dst]].lid,
                               &tr, links, MAX_HOPS, &err) < 0 ||
                tr.outcome != CS_TRACE_DELIVERED || tr.hops > MAX_HOPS) {
                fprintf(stderr, "bench_node_order: a route is not delivered\n");
                exit(1);
            }
            ev->hops[i] = tr.hops;
            for (uint32_t h = 0; h < tr.hops; h++)
                ev->congestion[links[h]]++;
        }
        for (uint32_t i = 0; i < size; i++) {
            uint32_t weight = 1;
            const uint32_t *links = ev->routes + (size_t)i * MAX_HOPS;
            for (uint32_t h = 0; h < ev->hops[i]; h++)
                if (ev->congestion[links[h]] > weight)
                    weight = ev->congestion[links[h]];
            sum += 1.0 / weight;
        }
        for (uint32_t i = 0; i < size; i++)
            for (uint32_t h = 0; h < ev->hops[i]; h++)
                ev->congestion[ev->routes[(size_t)i * MAX_HOPS + h]] = 0;
        flows += size;
    }
    return flows ? sum / (double)flows : NAN;
}

/* cs_simulate's answer for the same order: the cross-check. */
static double simulated(const struct cs_tracer *t, const struct cs_pattern_spec *spec,
                        const uint64_t *guids, uint32_t n)
{
    struct cs_sim_options opt = {.victim = {.pattern = *spec},
                                 .select = CS_SELECT_LINEAR,
                                 .order = guids,
                                 .order_count = n,
                                 .runs = 1,
                                 .threads = 1};
    struct cs_sim_result r;
    struct cs_error err = {{0}};
    if (cs_simulate(t, &opt, &r, &err) < 0)
        bench_die("bench_node_order", "simulate", &err);
    double v = r.effective_bandwidth[0];
    cs_sim_result_free(&r);
    return v;
}

struct stats {
    double sum, min, max;
};

static void add(struct stats *s, double v)
{
    s->sum += v;
    s->min = v < s->min ? v : s->min;
    s->max = v > s->max ? v : s->max;
}

/* Node order r of the model into ports (cn: the nodes in fabric order, hosts leaf by leaf, per
 * leaf nodes_per_leaf of them, as topo_gen.h numbers them). */
enum order_model { MODEL_RANDOM, MODEL_LEAVES, MODEL_TUPLE };
static const char *const model_names[] = {"random", "leaves", "tuple"};

static void draw_order(enum order_model model, const uint32_t *cn, uint32_t nodes,
                       uint32_t per_leaf, struct cs_rng *rng, uint32_t *ports, uint32_t *scratch)
{
    if (model == MODEL_RANDOM) {
        memcpy(ports, cn, nodes * sizeof *ports);
        cs_rng_shuffle(rng, ports, nodes);
        return;
    }
    uint32_t leaves = nodes / per_leaf;
    for (uint32_t l = 0; l < leaves; l++)
        scratch[l] = l;
    if (model == MODEL_LEAVES)
        cs_rng_shuffle(rng, scratch, leaves);
    for (uint32_t l = 0; l < leaves; l++) {
        memcpy(ports + l * per_leaf, cn + scratch[l] * per_leaf, per_leaf * sizeof *ports);
        cs_rng_shuffle(rng, ports + l * per_leaf, per_leaf);
    }
}

static void run_topology(unsigned k, unsigned n, unsigned o, uint32_t orders, uint64_t seed,
                         enum order_model model)
{
    struct cs_pgft_spec spec;
    struct cs_error err = {{0}};
    struct cs_fabric f;
    if (cs_pgft_kary(&spec, k, n, &err) < 0)
        bench_die("bench_node_order", "spec", &err);
    spec.m[0] *= o;
    cs_fabric_init(&f);
    if (cs_pgft_generate(&f, &spec, &err) < 0 || cs_lids_assign(&f, 0, &err) < 0)
        bench_die("bench_node_order", "generate", &err);
    /* The compute nodes: every connected CA port, fabric order. */
    uint32_t nodes = 0;
    uint32_t *cn = calloc(f.num_port_slots, sizeof *cn);
    for (uint32_t p = 0; p < f.num_port_slots; p++)
        if (f.nodes[f.ports[p].node].type == CS_NODE_CA && f.ports[p].peer != CS_NONE &&
            f.ports[p].lid)
            cn[nodes++] = p;
    uint32_t *ports = calloc(nodes, sizeof *ports), *scratch = calloc(nodes, sizeof *scratch);
    struct cs_guid_list order = {calloc(nodes, sizeof(uint64_t)), nodes, nodes};

    struct cs_lfts ft_lfts, mf_lfts;
    struct cs_route_stats st;
    struct cs_route_state *state = cs_route_state_new();
    struct cs_route_inputs in = {.state = state, .node_order = &order};
    struct cs_tracer ft_tracer, mf_tracer;
    if (cs_route("ftree", &f, NULL, &ft_lfts, &st, &err) < 0 || st.fell_back ||
        cs_tracer_init(&ft_tracer, &f, &ft_lfts, &err) < 0)
        bench_die("bench_node_order", "ftree", &err);

    struct cs_pattern patterns[NUM_PATTERNS];
    uint32_t most = 0;
    for (int i = 0; i < NUM_PATTERNS; i++) {
        struct cs_pattern_spec ps;
        if (cs_pattern_parse(&ps, pattern_names[i], &err) < 0 ||
            cs_pattern_init(&patterns[i], &ps, nodes, NULL, &err) < 0)
            bench_die("bench_node_order", pattern_names[i], &err);
        for (uint32_t l = 0; l < patterns[i].levels; l++)
            if (cs_pattern_level_size(&patterns[i], l) > most)
                most = (uint32_t)cs_pattern_level_size(&patterns[i], l);
    }
    struct evaluator ev = {.capacity = most};
    ev.congestion = calloc(ft_tracer.links.count + 1, sizeof *ev.congestion);
    ev.routes = calloc((size_t)most * MAX_HOPS, sizeof *ev.routes);
    ev.hops = calloc(most, sizeof *ev.hops);
    ev.pairs = calloc(most, sizeof *ev.pairs);

    struct stats result[NUM_PATTERNS][2];
    for (int i = 0; i < NUM_PATTERNS; i++)
        for (int e = 0; e < 2; e++)
            result[i][e] = (struct stats){0, INFINITY, -INFINITY};
    double phase2_ms = 0;
    for (uint32_t r = 0; r < orders; r++) {
        struct cs_rng rng;
        cs_rng_seed(&rng, cs_sim_run_seed(seed, r));
        draw_order(model, cn, nodes, spec.m[0], &rng, ports, scratch);
        for (uint32_t i = 0; i < nodes; i++)
            order.guids[i] = f.ports[ports[i]].guid;
        double t0 = bench_now_ms();
        if (cs_route_with("mftree", &f, NULL, &in, &mf_lfts, &st, NULL, &err) < 0 || st.fell_back)
            bench_die("bench_node_order", "mftree", &err);
        phase2_ms += bench_now_ms() - t0;
        if (cs_tracer_init(&mf_tracer, &f, &mf_lfts, &err) < 0)
            bench_die("bench_node_order", "tracer", &err);
        for (int i = 0; i < NUM_PATTERNS; i++) {
            double ft = effective_bandwidth(&ev, &ft_tracer, &patterns[i], ports);
            double mf = effective_bandwidth(&ev, &mf_tracer, &patterns[i], ports);
            if (r == 0) {
                double ft_sim = simulated(&ft_tracer, &patterns[i].spec, order.guids, nodes);
                double mf_sim = simulated(&mf_tracer, &patterns[i].spec, order.guids, nodes);
                if (fabs(ft - ft_sim) > 1e-9 || fabs(mf - mf_sim) > 1e-9) {
                    fprintf(stderr,
                            "bench_node_order: %u-ary-%u x%u %s: the loop says %g/%g, the "
                            "simulator %g/%g\n",
                            k, n, o, pattern_names[i], ft, mf, ft_sim, mf_sim);
                    exit(1);
                }
            }
            add(&result[i][0], ft);
            add(&result[i][1], mf);
        }
        cs_tracer_free(&mf_tracer);
        cs_lfts_free(&mf_lfts);
    }
    for (int i = 0; i < NUM_PATTERNS; i++)
        for (int e = 0; e < 2; e++)
            printf("%u %u %u %u %s %s %s %.4f %.4f %.4f\n", k, n, o, nodes, model_names[model],
                   pattern_names[i], e ? "mftree" : "ftree", result[i][e].sum / orders,
                   result[i][e].min, result[i][e].max);
    fprintf(stderr,
            "bench_node_order: %u-ary-%u-tree x%u (%u nodes): %u orders, mftree phase II "
            "%.2f ms per order\n",
            k, n, o, nodes, orders, phase2_ms / orders);
    fflush(stdout);
    for (int i = 0; i < NUM_PATTERNS; i++)
        cs_pattern_free(&patterns[i]);
    free(ev.congestion);
    free(ev.routes);
    free(ev.hops);
    free(ev.pairs);
    cs_tracer_free(&ft_tracer);
    cs_lfts_free(&ft_lfts);
    cs_route_state_free(state);
    free(order.guids);
    free(ports);
    free(scratch);
    free(cn);
    cs_fabric_free(&f);
}

int main(int argc, char **argv)
{
    uint32_t orders = 1000;
    uint64_t seed = 1;
    unsigned only_k = 0, only_n = 0;
    enum order_model model = MODEL_RANDOM;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--orders") == 0 && i + 1 < argc)
            orders = (uint32_t)strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--model") == 0 && i + 1 < argc &&
                 (strcmp(argv[i + 1], "random") == 0 || strcmp(argv[i + 1], "leaves") == 0 ||
                  strcmp(argv[i + 1], "tuple") == 0))
            model = strcmp(argv[++i], "leaves") == 0 ? MODEL_LEAVES
                    : strcmp(argv[i], "tuple") == 0  ? MODEL_TUPLE
                                                     : MODEL_RANDOM;
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc &&
                 sscanf(argv[++i], "%u,%u", &only_k, &only_n) == 2)
            ;
        else {
            fprintf(stderr, "usage: bench_node_order [--orders N] [--seed S] [--only K,N] "
                            "[--model random|leaves|tuple]\n");
            return 2;
        }
    }
    if (orders == 0)
        orders = 1;
    static const unsigned topologies[][2] = {{4, 2}, {6, 2}, {8, 2}, {4, 3}, {16, 2}, {8, 3}};
    for (size_t t = 0; t < sizeof topologies / sizeof *topologies; t++) {
        unsigned k = topologies[t][0], n = topologies[t][1];
        if (only_k && (k != only_k || n != only_n))
            continue;
        for (unsigned o = 1; o <= 4; o++)
            run_topology(k, n, o, orders, seed, model);
    }
    return 0;
}
