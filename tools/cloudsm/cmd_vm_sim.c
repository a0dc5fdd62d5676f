/* cloudsm vm sim: the VM migration simulator (include/cloudsm/vmsim.h). Options and output only. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cloudsm/atomic_file.h"
#include "cloudsm/clock.h"
#include "cloudsm/json.h"
#include "cloudsm/vmsim.h"
#include "plot.h"

const char cli_vm_sim_help[] =
    "usage: cloudsm vm sim --xgft SPEC [options]\n"
    "       cloudsm vm sim --paper [--runs N] [--seed S] [--threads N] [--csv FILE] [--json]\n"
    "\n"
    "Paper V's migration simulator (vSwitchMigrationSim): a fat tree whose host slots are\n"
    "vSwitch hypervisors with prepopulated VF LIDs, VMs on some of the VFs, routed by vftree;\n"
    "then the migrations of a pattern, each planned with ItRC and with FTreeMinRC (the switches\n"
    "each updates are recorded), and after every 1/N of them the FTreeMinRC tables evaluated with\n"
    "the bisect pattern over the VMs, beside the same placement routed from scratch by vftree\n"
    "(Fig. 8). Deterministic for a seed, whatever the thread count. docs/vswitch.md.\n"
    "\n"
    "  --xgft SPEC         one simulation on XGFT(SPEC), our notation (\"h;m1,..;w1,..\", m1 = "
    "hosts\n"
    "                      per leaf)\n"
    "  --paper             Paper V's 126: its six Table 4 topologies x 21 scenarios (random "
    "start:\n"
    "                      random, consolidate, grouping, to-uniform; uniform start: the first\n"
    "                      three; each at 25, 50, 75% of 4 VFs)\n"
    "  --vfs N             VFs per hypervisor (default 4)\n"
    "  --distribution D    initial placement: random (default) or uniform\n"
    "  --population P      percent of the VFs that run a VM (default 50)\n"
    "  --pattern P         random (default; 2 x hypervisors migrations), consolidate, grouping,\n"
    "                      to-uniform\n"
    "  --groups G          grouping: how many groups (default 2)\n"
    "  --snapshots N       evaluate after every 1/N of the migrations (default 10)\n"
    "  --runs N            bisect runs per evaluation (default 10000; 0: no evaluation)\n"
    "  --seed S            random seed (default 1; --paper: simulation i uses S + i)\n"
    "  --threads N         workers (default: one per CPU)\n"
    "  --csv FILE          one line per snapshot (topology, distribution, population, pattern,\n"
    "                      moves, snapshot, moves_done, ebb_minrc, ebb_vftree)\n"
    "  --json              one JSON object: per simulation its settings, switches updated per\n"
    "                      migration (mean, max) for itrc and ftreeminrc, LFT SMPs, snapshots\n"
    "  --plot DIR          --paper: Fig. 8 as SVG in DIR: fig8a.svg (switches updated per\n"
    "                      migration, ItRC and FTreeMinRC, per topology) and fig8b..h.svg (bisect\n"
    "                      bandwidth over the migrations, FTreeMinRC and vftree, per topology)\n"
    "\n"
    "examples:\n"
    "  cloudsm vm sim --xgft \"3;8,8,16;1,8,8\" --population 75 --pattern to-uniform\n"
    "  cloudsm vm sim --paper --runs 1000 --csv fig8.csv --plot fig8\n";

struct summary {
    double mean_itrc, mean_minrc;
    uint32_t max_itrc, max_minrc;
};

static struct summary summarize(const struct cs_vmsim_result *r)
{
    struct summary s = {0, 0, 0, 0};
    for (uint32_t k = 0; k < r->moves; k++) {
        s.mean_itrc += r->switches_itrc[k];
        s.mean_minrc += r->switches_minrc[k];
        s.max_itrc = r->switches_itrc[k] > s.max_itrc ? r->switches_itrc[k] : s.max_itrc;
        s.max_minrc = r->switches_minrc[k] > s.max_minrc ? r->switches_minrc[k] : s.max_minrc;
    }
    if (r->moves) {
        s.mean_itrc /= r->moves;
        s.mean_minrc /= r->moves;
    }
    return s;
}

struct batch {
    const struct cs_vmsim_config *configs;
    const struct cs_vmsim_result *results;
    unsigned n;
};

static int write_csv(FILE *out, const void *ctx, struct cs_error *err)
{
    (void)err;
    const struct batch *b = ctx;
    fprintf(out, "topology,distribution,population,pattern,moves,snapshot,moves_done,ebb_minrc,"
                 "ebb_vftree\n");
    for (unsigned i = 0; i < b->n; i++) {
        const struct cs_vmsim_config *c = &b->configs[i];
        const struct cs_vmsim_result *r = &b->results[i];
        for (uint32_t s = 0; s < r->num_snapshots; s++)
            fprintf(out, "\"%s\",%s,%u,%s,%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",%.6f,%.6f\n", c->xgft,
                    cs_vm_distribution_name(c->distribution), c->population,
                    cs_vm_pattern_name(c->pattern), r->moves, s, r->snapshots[s].moves_done,
                    r->snapshots[s].ebb_minrc, r->snapshots[s].ebb_vftree);
    }
    return ferror(out) ? -1 : 0;
}

static void print_json(const struct batch *b)
{
    struct cs_json j;
    cs_json_init(&j, stdout);
    cs_json_object_begin(&j, NULL);
    cs_json_array_begin(&j, "simulations");
    for (unsigned i = 0; i < b->n; i++) {
        const struct cs_vmsim_config *c = &b->configs[i];
        const struct cs_vmsim_result *r = &b->results[i];
        struct summary s = summarize(r);
        cs_json_object_begin(&j, NULL);
        cs_json_str(&j, "xgft", c->xgft);
        cs_json_u64(&j, "vfs", c->vfs);
        cs_json_str(&j, "distribution", cs_vm_distribution_name(c->distribution));
        cs_json_u64(&j, "population", c->population);
        cs_json_str(&j, "pattern", cs_vm_pattern_name(c->pattern));
        cs_json_u64(&j, "seed", c->seed);
        cs_json_u64(&j, "hypervisors", r->hypervisors);
        cs_json_u64(&j, "switches", r->switches);
        cs_json_u64(&j, "vms", r->vms);
        cs_json_u64(&j, "moves", r->moves);
        cs_json_object_begin(&j, "itrc");
        cs_json_double(&j, "switches_mean", s.mean_itrc);
        cs_json_u64(&j, "switches_max", s.max_itrc);
        cs_json_u64(&j, "lft_smps", r->lft_smps_itrc);
        cs_json_object_end(&j);
        cs_json_object_begin(&j, "ftreeminrc");
        cs_json_double(&j, "switches_mean", s.mean_minrc);
        cs_json_u64(&j, "switches_max", s.max_minrc);
        cs_json_u64(&j, "lft_smps", r->lft_smps_minrc);
        cs_json_object_end(&j);
        cs_json_array_begin(&j, "snapshots");
        for (uint32_t k = 0; k < r->num_snapshots; k++) {
            cs_json_object_begin(&j, NULL);
            cs_json_u64(&j, "moves_done", r->snapshots[k].moves_done);
            cs_json_double(&j, "ebb_minrc", r->snapshots[k].ebb_minrc);
            cs_json_double(&j, "ebb_vftree", r->snapshots[k].ebb_vftree);
            cs_json_object_end(&j);
        }
        cs_json_array_end(&j);
        cs_json_double(&j, "route_ms", r->route_ms);
        cs_json_double(&j, "plan_ms", r->plan_ms);
        cs_json_double(&j, "evaluate_ms", r->evaluate_ms);
        cs_json_object_end(&j);
    }
    cs_json_array_end(&j);
    cs_json_object_end(&j);
    cs_json_finish(&j);
}

/* One line per simulation: the switches each method updated, and the last snapshot's
 * bandwidths with FTreeMinRC's gap to vftree. */
static void print_text(const struct batch *b, const unsigned *topology, double seconds)
{
    unsigned count;
    const struct cs_vmsim_topology *t = cs_vmsim_paper_topologies(&count);
    printf("%-20s %-7s %-3s %-11s %5s | %-15s %-15s | %-8s %-8s %s\n", "topology", "start", "pop",
           "pattern", "moves", "itrc mean/max", "minrc mean/max", "ebb rc", "ebb vftree", "gap");
    for (unsigned i = 0; i < b->n; i++) {
        const struct cs_vmsim_config *c = &b->configs[i];
        const struct cs_vmsim_result *r = &b->results[i];
        struct summary s = summarize(r);
        const struct cs_vmsim_snapshot *last = &r->snapshots[r->num_snapshots - 1];
        char itrc[32], minrc[32];
        snprintf(itrc, sizeof itrc, "%.2f/%" PRIu32, s.mean_itrc, s.max_itrc);
        snprintf(minrc, sizeof minrc, "%.2f/%" PRIu32, s.mean_minrc, s.max_minrc);
        printf("%-20s %-7s %2u%% %-11s %5" PRIu32 " | %-15s %-15s | %.4f   %.4f     %+.1f%%\n",
               topology ? t[topology[i]].name : c->xgft, cs_vm_distribution_name(c->distribution),
               c->population, cs_vm_pattern_name(c->pattern), r->moves, itrc, minrc,
               last->ebb_minrc, last->ebb_vftree,
               last->ebb_vftree > 0 ? 100 * (last->ebb_minrc - last->ebb_vftree) / last->ebb_vftree
                                    : 0.0);
    }
    printf("%u simulation%s in %.1f s\n", b->n, b->n == 1 ? "" : "s", seconds);
}

/* Fig. 8's panels (b)-(h): an initial distribution, a pattern and a population each (Paper V,
 * thesis lines 6832-6838). */
static const struct panel {
    char letter;
    enum cs_vm_distribution start;
    enum cs_vm_pattern pattern;
    unsigned population;
} panels[] = {
    {'b', CS_VM_DIST_RANDOM, CS_VM_PATTERN_GROUPING, 25},
    {'c', CS_VM_DIST_RANDOM, CS_VM_PATTERN_TO_UNIFORM, 25},
    {'d', CS_VM_DIST_UNIFORM, CS_VM_PATTERN_RANDOM, 25},
    {'e', CS_VM_DIST_RANDOM, CS_VM_PATTERN_CONSOLIDATE, 50},
    {'f', CS_VM_DIST_UNIFORM, CS_VM_PATTERN_CONSOLIDATE, 50},
    {'g', CS_VM_DIST_RANDOM, CS_VM_PATTERN_TO_UNIFORM, 75},
    {'h', CS_VM_DIST_UNIFORM, CS_VM_PATTERN_RANDOM, 75},
};

struct svg {
    const struct plot_scatter *plot;
};

static int write_svg(FILE *out, const void *ctx, struct cs_error *err)
{
    (void)err;
    return plot_scatter_svg(out, ((const struct svg *)ctx)->plot);
}

#define PLOT_MAX_TOPOLOGIES 8

static int plot_fig8(const char *dir, const struct batch *b, const unsigned *topology,
                     struct cs_error *err)
{
    unsigned count;
    const struct cs_vmsim_topology *t = cs_vmsim_paper_topologies(&count);
    if (count > PLOT_MAX_TOPOLOGIES)
        return cs_fail(err, "plot: more topologies than the plot has room for");
    char path[4096], labels[2 * PLOT_MAX_TOPOLOGIES][64];
    /* (a): mean switches updated per migration over each topology's simulations. */
    double x[PLOT_MAX_TOPOLOGIES], itrc[PLOT_MAX_TOPOLOGIES], minrc[PLOT_MAX_TOPOLOGIES];
    for (unsigned i = 0; i < count; i++) {
        double sum_itrc = 0, sum_minrc = 0, moves = 0;
        for (unsigned k = 0; k < b->n; k++) {
            if (topology[k] != i)
                continue;
            for (uint32_t m = 0; m < b->results[k].moves; m++) {
                sum_itrc += b->results[k].switches_itrc[m];
                sum_minrc += b->results[k].switches_minrc[m];
            }
            moves += b->results[k].moves;
        }
        x[i] = i + 1;
        itrc[i] = moves ? sum_itrc / moves : 0;
        minrc[i] = moves ? sum_minrc / moves : 0;
    }
    struct plot_series a_series[2] = {{"ItRC", x, itrc, count}, {"FTreeMinRC", x, minrc, count}};
    struct plot_scatter a = {"Fig. 8(a): switches updated per migration (1 = 4-ary-2-full ... 6 = "
                             "8-ary-3-full)",
                             "topology (Paper V Table 4 order)",
                             "mean switches updated",
                             a_series,
                             2,
                             0,
                             0,
                             NULL,
                             0,
                             NULL,
                             0};
    snprintf(path, sizeof path, "%s/fig8a.svg", dir);
    if (cs_atomic_write(path, write_svg, &(struct svg){&a}, err) < 0)
        return -1;
    /* (b)-(h): bisect bandwidth against the share of migrations done. */
    for (unsigned p = 0; p < sizeof panels / sizeof panels[0]; p++) {
        struct plot_series series[2 * PLOT_MAX_TOPOLOGIES];
        double xs[2 * PLOT_MAX_TOPOLOGIES][64], ys[2 * PLOT_MAX_TOPOLOGIES][64];
        unsigned n = 0;
        for (unsigned k = 0; k < b->n; k++) {
            const struct cs_vmsim_config *c = &b->configs[k];
            const struct cs_vmsim_result *r = &b->results[k];
            if (c->distribution != panels[p].start || c->pattern != panels[p].pattern ||
                c->population != panels[p].population || r->num_snapshots > 64 ||
                n + 2 > 2 * PLOT_MAX_TOPOLOGIES)
                continue;
            for (unsigned which = 0; which < 2; which++, n++) {
                for (uint32_t s = 0; s < r->num_snapshots; s++) {
                    xs[n][s] = r->moves ? 100.0 * r->snapshots[s].moves_done / r->moves : 0;
                    ys[n][s] = which ? r->snapshots[s].ebb_vftree : r->snapshots[s].ebb_minrc;
                }
                snprintf(labels[n], sizeof labels[n], "%s %s", t[topology[k]].name,
                         which ? "vftree" : "FTreeMinRC");
                series[n] = (struct plot_series){labels[n], xs[n], ys[n], r->num_snapshots};
            }
        }
        char title[128];
        snprintf(title, sizeof title, "Fig. 8(%c): %s -> %s, %u%% of the VFs", panels[p].letter,
                 cs_vm_distribution_name(panels[p].start), cs_vm_pattern_name(panels[p].pattern),
                 panels[p].population);
        struct plot_scatter plot = {title,
                                    "migrations done (%)",
                                    "effective bisection bandwidth",
                                    series,
                                    n,
                                    0,
                                    0,
                                    NULL,
                                    0,
                                    NULL,
                                    0};
        snprintf(path, sizeof path, "%s/fig8%c.svg", dir, panels[p].letter);
        if (cs_atomic_write(path, write_svg, &(struct svg){&plot}, err) < 0)
            return -1;
    }
    return 0;
}

static void progress(void *ctx, unsigned done, unsigned total)
{
    (void)ctx;
    fprintf(stderr, "\rvm sim: %u/%u", done, total);
    if (done == total)
        fputc('\n', stderr);
}

int cli_vm_sim(int argc, char **argv)
{
    const char *who = "vm sim";
    struct cs_vmsim_config c = {.vfs = 4,
                                .distribution = CS_VM_DIST_RANDOM,
                                .population = 50,
                                .pattern = CS_VM_PATTERN_RANDOM,
                                .groups = 2,
                                .snapshots = 10,
                                .bisect_runs = 10000,
                                .seed = 1};
    bool paper = false, as_json = false;
    const char *csv = NULL, *plot_dir = NULL;
    unsigned value;
    static const struct option options[] = {
        {"xgft", required_argument, NULL, 'x'},
        {"paper", no_argument, NULL, 'P'},
        {"vfs", required_argument, NULL, 'v'},
        {"distribution", required_argument, NULL, 'd'},
        {"population", required_argument, NULL, 'p'},
        {"pattern", required_argument, NULL, 'a'},
        {"groups", required_argument, NULL, 'g'},
        {"snapshots", required_argument, NULL, 'n'},
        {"runs", required_argument, NULL, 'r'},
        {"seed", required_argument, NULL, 's'},
        {"threads", required_argument, NULL, 't'},
        {"csv", required_argument, NULL, 'c'},
        {"json", no_argument, NULL, 'j'},
        {"plot", required_argument, NULL, 'G'},
        {NULL, 0, NULL, 0},
    };
    int opt;
    while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (opt) {
        case 'x':
            c.xgft = optarg;
            break;
        case 'P':
            paper = true;
            break;
        case 'v':
            if (!cli_parse_uint(optarg, 1, 126, &c.vfs))
                return cli_usage(who, "--vfs wants 1 to 126, not '%s'", optarg);
            break;
        case 'd':
            if (cs_vm_distribution_parse(optarg, &c.distribution) < 0)
                return cli_usage(who, "--distribution wants random or uniform, not '%s'", optarg);
            break;
        case 'p':
            if (!cli_parse_uint(optarg, 1, 100, &c.population))
                return cli_usage(who, "--population wants 1 to 100 (percent), not '%s'", optarg);
            break;
        case 'a':
            if (cs_vm_pattern_parse(optarg, &c.pattern) < 0)
                return cli_usage(who,
                                 "--pattern wants random, consolidate, grouping or to-uniform, "
                                 "not '%s'",
                                 optarg);
            break;
        case 'g':
            if (!cli_parse_uint(optarg, 1, 1000, &c.groups))
                return cli_usage(who, "--groups wants 1 to 1000, not '%s'", optarg);
            break;
        case 'n':
            if (!cli_parse_uint(optarg, 1, 1000, &c.snapshots))
                return cli_usage(who, "--snapshots wants 1 to 1000, not '%s'", optarg);
            break;
        case 'r':
            if (!cli_parse_uint(optarg, 0, 100000000, &value))
                return cli_usage(who, "--runs wants 0 to 100000000, not '%s'", optarg);
            c.bisect_runs = value;
            break;
        case 's':
            if (!cli_parse_u64(optarg, &c.seed))
                return cli_usage(who, "--seed wants a whole number, not '%s'", optarg);
            break;
        case 't':
            if (!cli_parse_uint(optarg, 1, 1024, &c.threads))
                return cli_usage(who, "--threads wants 1 to 1024, not '%s'", optarg);
            break;
        case 'c':
            csv = optarg;
            break;
        case 'j':
            as_json = true;
            break;
        case 'G':
            plot_dir = optarg;
            break;
        default:
            return cli_usage(who, "unknown option");
        }
    }
    if (optind != argc)
        return cli_usage(who, "takes no operands ('%s')", argv[optind]);
    if (paper == (c.xgft != NULL))
        return cli_usage(who, "wants --xgft SPEC or --paper");
    if (plot_dir && !paper)
        return cli_usage(who, "--plot draws Fig. 8 of --paper");

    struct cs_error err;
    if ((csv && cli_check_output(csv, false, &err) < 0) ||
        (plot_dir && cli_check_output(plot_dir, true, &err) < 0))
        return cli_fail(who, &err);
    struct cs_vmsim_config configs[CS_VMSIM_PAPER_RUNS];
    unsigned topology[CS_VMSIM_PAPER_RUNS];
    unsigned n = 1;
    if (paper)
        n = cs_vmsim_paper_configs(&c, configs, topology);
    else
        configs[0] = c;
    struct cs_vmsim_result *results = calloc(n, sizeof *results);
    if (!results) {
        fprintf(stderr, "cloudsm %s: out of memory\n", who);
        return EXIT_FAILED;
    }
    double t0 = cs_clock_ms();
    int rc = paper ? cs_vmsim_run_many(configs, n, c.threads, results, progress, NULL, &err)
                   : cs_vmsim_run(&configs[0], &results[0], &err);
    double seconds = (cs_clock_ms() - t0) / 1e3;
    struct batch b = {configs, results, n};
    if (rc == 0 && csv)
        rc = cs_atomic_write(csv, write_csv, &b, &err);
    if (rc == 0 && plot_dir)
        rc = plot_fig8(plot_dir, &b, topology, &err);
    if (rc == 0) {
        if (as_json)
            print_json(&b);
        else
            print_text(&b, paper ? topology : NULL, seconds);
    }
    for (unsigned i = 0; rc == 0 && i < n; i++)
        cs_vmsim_result_free(&results[i]);
    free(results);
    return rc == 0 ? EXIT_OK : cli_fail(who, &err);
}
