/* cloudsm analyze: congestion simulation of communication patterns on routed fabrics. */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cloudsm/atomic_file.h"
#include "cloudsm/guid_list.h"
#include "cloudsm/json.h"
#include "cloudsm/key_index.h"
#include "cloudsm/partitions.h"
#include "cloudsm/sim.h"
#include "cloudsm/static_metrics.h"
#include "plot.h"
#include "routed.h"

static const char analyze_help[] =
    "usage: cloudsm analyze TOPOLOGY LFTS --pattern P [options]\n"
    "\n"
    "Simulate a communication pattern on a routed fabric, ORCS-style: per level\n"
    "(communication phase) the congestion of a directed link is the number of the level's\n"
    "flows crossing it, and a flow's weight is the largest congestion on its route (1 = its\n"
    "links are unshared). Effective bandwidth = mean over flows of 1/weight (for bisect: the\n"
    "effective bisection bandwidth). Results over runs: min, mean, max, 99% confidence\n"
    "interval of the mean. docs/simulation.md defines every pattern and metric.\n"
    "\n"
    "patterns: shift, alltoall, bisect, bisect_fb_sym, rand, bruck, recdbl, ring, tree,\n"
    "          gather, scatter, neighbor(K), receivers(K), null\n"
    "\n"
    "options:\n"
    "  --pattern P             the (victim) pattern (required)\n"
    "  --runs N                simulation runs (default 1)\n"
    "  --seed S                random seed (default 1); same seed, same results, any --threads\n"
    "  --threads N             worker threads (default: one per CPU)\n"
    "  --select HOW            ranks from CA ports: random (reshuffled every run; default),\n"
    "                          linear (fabric order), guid-asc, guid-desc (port GUIDs)\n"
    "  --order FILE            these GUIDs (one per line) take the first ranks, in order\n"
    "  --commsize N            use only the first N ranks (default: all)\n"
    "  --partitions FILE       OpenSM partitions.conf; with --partition PKEY the pattern runs\n"
    "  --partition PKEY        on that partition's CA ports only\n"
    "  --versus P              an aggressor pattern running alongside (pattern versus pattern);\n"
    "                          the metrics are the victim's, congestion counts both\n"
    "  --aggressor-partition PKEY   the aggressor's ports (default: all CA ports not in the\n"
    "                          victim's group)\n"
    "  --exclude-host-links    count congestion on switch-to-switch links only\n"
    "  --guid2lid FILE         LIDs (default: the topology's, else the dump's comments)\n"
    "  --allow-extra           accept (and ignore) LFTs for switches not in the topology\n"
    "  --json                  one JSON object: pattern, runs, seed, effective_bandwidth,\n"
    "                          max_congestion, sum_max_congestion, dep_max_delay (each with\n"
    "                          min, mean, max, stddev, ci99), weight_histogram, ...\n"
    "  --csv FILE              one line per run\n"
    "  --links FILE            per directed link: largest congestion and sum over all runs\n"
    "  --plot FILE.svg         histogram over runs (SVG); --plot-of bandwidth (default) or\n"
    "                          congestion (max link congestion)\n"
    "\n"
    "static analysis (no pattern; every pair of members of a partition is a flow):\n"
    "  --static                per directed link: flows and partitions using it; load max,\n"
    "                          mean, spread per direction; inter-partition interference (with\n"
    "                          --partitions); with --receivers FILE (port GUIDs): contention\n"
    "                          and contended links as the pFTree paper defines them; --links\n"
    "                          FILE writes the per-link table; --json for machines\n"
    "  --dot FILE              ORCS-compatible graph: hosts H-<port GUID>, each directed edge's\n"
    "                          comment lists the hosts routed over it\n"
    "\n"
    "examples:\n"
    "  cloudsm route -R ftree k8n3.topo -o k8n3.lfts\n"
    "  cloudsm analyze k8n3.topo k8n3.lfts --pattern bisect --runs 10000 --plot ebb.svg\n"
    "  cloudsm analyze t.topo t.lfts --partitions p.conf --partition 0x8001 --pattern alltoall \\\n"
    "      --versus alltoall --aggressor-partition 0x8002 --runs 100 --json\n"
    "  cloudsm analyze t.topo t.lfts --static --partitions p.conf --receivers hot.guids\n"
    "  cloudsm analyze t.topo t.lfts --dot fabric.dot    # for ORCS\n";

enum plot_of { PLOT_BANDWIDTH, PLOT_CONGESTION };

static bool parse_pkey(const char *text, uint16_t *pkey)
{
    char *end;
    unsigned long v = strtoul(text, &end, 0);
    if (!*text || *end || v > 0xffff)
        return false;
    *pkey = (uint16_t)(v & 0x7fff);
    return true;
}

/* CA and router ports of a partition (switch port 0 members cannot run a pattern). */
static int partition_ports(const struct cs_partition_set *set, const struct cs_fabric *f,
                           uint16_t pkey, uint32_t **ports, uint32_t *count, struct cs_error *err)
{
    uint32_t p = cs_partition_set_find(set, pkey);
    if (p == CS_NONE)
        return cs_fail(err, "partition 0x%04x has no member in this fabric", pkey);
    const struct cs_resolved_partition *part = &set->partitions[p];
    *ports = malloc((part->count ? part->count : 1) * sizeof **ports);
    if (!*ports)
        return cs_fail(err, "out of memory");
    *count = 0;
    for (uint32_t i = 0; i < part->count; i++) {
        uint32_t port = set->ports[part->first + i].port;
        if (!cs_node_is_switch(&f->nodes[f->ports[port].node]))
            (*ports)[(*count)++] = port;
    }
    if (*count < 2)
        return cs_fail(err, "partition 0x%04x has %u CA port%s: a pattern needs two", pkey, *count,
                       *count == 1 ? "" : "s");
    return 0;
}

/* Connected CA/router ports with a LID that are not in `taken` (sorted ascending). */
static int other_ports(const struct cs_fabric *f, const uint32_t *taken, uint32_t taken_count,
                       uint32_t **ports, uint32_t *count, struct cs_error *err)
{
    *ports = malloc((f->num_port_slots ? f->num_port_slots : 1) * sizeof **ports);
    if (!*ports)
        return cs_fail(err, "out of memory");
    *count = 0;
    uint32_t t = 0;
    for (uint32_t i = 0; i < f->num_port_slots; i++) {
        while (t < taken_count && taken[t] < i)
            t++;
        bool is_taken = t < taken_count && taken[t] == i;
        const struct cs_port *port = &f->ports[i];
        if (!is_taken && port->num && port->peer != CS_NONE && port->lid &&
            !cs_node_is_switch(&f->nodes[port->node]))
            (*ports)[(*count)++] = i;
    }
    return 0;
}

static void json_stat(struct cs_json *j, const char *key, const struct cs_sim_stat *s)
{
    cs_json_object_begin(j, key);
    cs_json_double(j, "min", s->min);
    cs_json_double(j, "mean", s->mean);
    cs_json_double(j, "max", s->max);
    cs_json_double(j, "stddev", s->stddev);
    cs_json_double(j, "ci99", s->ci99);
    cs_json_object_end(j);
}

static void print_json(const struct cs_sim_result *r, const char *pattern, const char *versus,
                       const struct cs_sim_options *o)
{
    struct cs_json j;
    cs_json_init(&j, stdout);
    cs_json_object_begin(&j, NULL);
    cs_json_str(&j, "pattern", pattern);
    if (versus)
        cs_json_str(&j, "versus", versus);
    cs_json_u64(&j, "runs", r->runs);
    cs_json_u64(&j, "seed", o->seed);
    cs_json_str(&j, "select", cs_select_name(o->select));
    cs_json_u64(&j, "threads", r->threads_used);
    cs_json_u64(&j, "ranks", r->victim_ranks);
    cs_json_u64(&j, "aggressor_ranks", r->aggressor_ranks);
    cs_json_u64(&j, "levels", r->levels);
    cs_json_u64(&j, "flows_per_run", r->victim_flows);
    cs_json_bool(&j, "exclude_host_links", o->exclude_host_links);
    json_stat(&j, "effective_bandwidth", &r->effective_bandwidth_stat);
    json_stat(&j, "max_congestion", &r->max_congestion_stat);
    json_stat(&j, "sum_max_congestion", &r->sum_max_congestion_stat);
    json_stat(&j, "dep_max_delay", &r->max_delay_stat);
    cs_json_array_begin(&j, "weight_histogram");
    for (uint32_t w = 1; w < r->weight_histogram_len; w++)
        cs_json_u64(&j, NULL, r->weight_histogram[w]);
    cs_json_array_end(&j);
    uint64_t bins[CS_SIM_BAND_BINS];
    cs_sim_histogram(r->effective_bandwidth, r->runs, CS_SIM_BAND_LOW, CS_SIM_BAND_HIGH,
                     CS_SIM_BAND_BINS, bins);
    cs_json_array_begin(&j, "bandwidth_histogram");
    for (uint32_t b = 0; b < CS_SIM_BAND_BINS; b++)
        cs_json_u64(&j, NULL, bins[b]);
    cs_json_array_end(&j);
    cs_json_object_end(&j);
    cs_json_finish(&j);
}

static void print_stat(const char *name, const struct cs_sim_stat *s)
{
    printf("%-20s min %.4g  mean %.4g", name, s->min, s->mean);
    if (!isnan(s->ci99))
        printf(" +- %.3g", s->ci99);
    printf("  max %.4g\n", s->max);
}

static void print_text(const struct cs_sim_result *r, const char *pattern, const char *versus,
                       const struct cs_sim_options *o)
{
    printf("pattern             %s on %u ranks (%s), %u level%s, %" PRIu64 " flows per run\n",
           pattern, r->victim_ranks, cs_select_name(o->select), r->levels,
           r->levels == 1 ? "" : "s", r->victim_flows);
    if (versus)
        printf("versus              %s on %u ranks, %" PRIu64 " flows per run\n", versus,
               r->aggressor_ranks, r->aggressor_flows);
    printf("runs                %u (seed %" PRIu64 ", %u thread%s)%s\n", r->runs, o->seed,
           r->threads_used, r->threads_used == 1 ? "" : "s",
           o->exclude_host_links ? ", host links not counted" : "");
    print_stat("effective bandwidth", &r->effective_bandwidth_stat);
    print_stat("max congestion", &r->max_congestion_stat);
    print_stat("sum max congestion", &r->sum_max_congestion_stat);
    print_stat("dep max delay", &r->max_delay_stat);
    uint64_t total = 0;
    for (uint32_t w = 1; w < r->weight_histogram_len; w++)
        total += r->weight_histogram[w];
    printf("flow weights        ");
    for (uint32_t w = 1; w < r->weight_histogram_len; w++)
        if (r->weight_histogram[w])
            printf("%u: %.2f%%  ", w, 100.0 * (double)r->weight_histogram[w] / (double)total);
    printf("\n");
}

struct csv_ctx {
    const struct cs_sim_result *r;
    const struct cs_tracer *t;
};

static int write_runs_csv(FILE *out, const void *ctx, struct cs_error *err)
{
    const struct cs_sim_result *r = ((const struct csv_ctx *)ctx)->r;
    fprintf(out, "run,effective_bandwidth,max_congestion,sum_max_congestion,dep_max_delay\n");
    for (uint32_t i = 0; i < r->runs; i++)
        fprintf(out, "%u,%.6f,%u,%" PRIu64 ",%" PRIu64 "\n", i, r->effective_bandwidth[i],
                r->max_congestion[i], r->sum_max_congestion[i], r->max_delay[i]);
    return ferror(out) ? cs_fail(err, "writing the CSV failed") : 0;
}

static int write_links_csv(FILE *out, const void *ctx, struct cs_error *err)
{
    const struct csv_ctx *c = ctx;
    return cs_sim_write_links_csv(out, c->t, c->r, err);
}

struct plot_ctx {
    const struct cs_sim_result *r;
    enum plot_of of;
    const char *pattern;
};

static int write_plot(FILE *out, const void *ctx, struct cs_error *err)
{
    const struct plot_ctx *p = ctx;
    char title[160];
    struct plot_histogram h = {.title = title, .y_label = "runs"};
    uint64_t band[CS_SIM_BAND_BINS];
    uint64_t *cong = NULL;
    if (p->of == PLOT_BANDWIDTH) {
        cs_sim_histogram(p->r->effective_bandwidth, p->r->runs, CS_SIM_BAND_LOW, CS_SIM_BAND_HIGH,
                         CS_SIM_BAND_BINS, band);
        snprintf(title, sizeof title, "%s: effective bandwidth, %u runs", p->pattern, p->r->runs);
        h.x_label = "fraction of full bandwidth";
        h.x_min = CS_SIM_BAND_LOW;
        h.bin_width = (CS_SIM_BAND_HIGH - CS_SIM_BAND_LOW) / CS_SIM_BAND_BINS;
        h.counts = band;
        h.bins = CS_SIM_BAND_BINS;
    } else {
        uint32_t top = 0;
        for (uint32_t i = 0; i < p->r->runs; i++)
            if (p->r->max_congestion[i] > top)
                top = p->r->max_congestion[i];
        cong = calloc(top + 1, sizeof *cong);
        if (!cong)
            return cs_fail(err, "out of memory");
        for (uint32_t i = 0; i < p->r->runs; i++)
            cong[p->r->max_congestion[i]]++;
        snprintf(title, sizeof title, "%s: max link congestion, %u runs", p->pattern, p->r->runs);
        h.x_label = "max link congestion";
        h.x_min = 0.5;
        h.bin_width = 1;
        h.counts = cong + 1;
        h.bins = top;
    }
    int rc = plot_histogram_svg(out, &h) < 0 ? cs_fail(err, "writing the plot failed") : 0;
    free(cong);
    return rc;
}

static void print_static_class(const char *name, const struct cs_static_class *c, bool receivers,
                               bool partitions)
{
    printf("  %-10s %6u links: flows max %" PRIu64 ", mean %.2f, spread %" PRIu64, name,
           c->flows.links, c->flows.max, c->flows.mean, c->flows.spread);
    if (receivers)
        printf("; contention %" PRIu64 " on %u links", c->contention, c->contended_links);
    if (partitions)
        printf("; interference %" PRIu64 " on %u shared links", c->interference, c->shared_links);
    printf("\n");
}

static void json_static_class(struct cs_json *j, const char *key, const struct cs_static_class *c)
{
    cs_json_object_begin(j, key);
    cs_json_u64(j, "links", c->flows.links);
    cs_json_u64(j, "max", c->flows.max);
    cs_json_double(j, "mean", c->flows.mean);
    cs_json_u64(j, "spread", c->flows.spread);
    cs_json_double(j, "stddev", c->flows.stddev);
    cs_json_u64(j, "contention", c->contention);
    cs_json_u64(j, "contended_links", c->contended_links);
    cs_json_u64(j, "interference", c->interference);
    cs_json_u64(j, "shared_links", c->shared_links);
    cs_json_object_end(j);
}

static void print_static(const struct cs_static_result *r, bool as_json)
{
    if (as_json) {
        struct cs_json j;
        cs_json_init(&j, stdout);
        cs_json_object_begin(&j, NULL);
        cs_json_u64(&j, "flows", r->flows);
        cs_json_u64(&j, "undelivered", r->undelivered);
        cs_json_u64(&j, "receivers", r->receivers);
        json_static_class(&j, "all", &r->all);
        json_static_class(&j, "switch_links", &r->switch_links);
        cs_json_object_begin(&j, "classes");
        for (int c = 0; c < CS_LINK_CLASSES; c++)
            json_static_class(&j, cs_link_class_name((enum cs_link_class)c), &r->classes[c]);
        cs_json_object_end(&j);
        cs_json_array_begin(&j, "partitions");
        for (uint32_t p = 0; p < r->num_partitions; p++) {
            const struct cs_static_partition *sp = &r->partitions[p];
            cs_json_object_begin(&j, NULL);
            cs_json_u64(&j, "pkey", sp->pkey);
            cs_json_u64(&j, "members", sp->members);
            cs_json_u64(&j, "flows", sp->flows);
            cs_json_u64(&j, "undelivered", sp->undelivered);
            cs_json_u64(&j, "links", sp->links);
            cs_json_u64(&j, "shared_links", sp->shared_links);
            cs_json_u64(&j, "interference", sp->interference);
            cs_json_object_end(&j);
        }
        cs_json_array_end(&j);
        cs_json_object_end(&j);
        cs_json_finish(&j);
        return;
    }
    printf("flows         %" PRIu64 " delivered, %" PRIu64 " undelivered\n", r->flows,
           r->undelivered);
    bool partitions = r->num_partitions > 1;
    print_static_class("all", &r->all, r->receivers, partitions);
    print_static_class("switch", &r->switch_links, r->receivers, partitions);
    for (int c = 0; c < CS_LINK_CLASSES; c++)
        if (r->classes[c].flows.links)
            print_static_class(cs_link_class_name((enum cs_link_class)c), &r->classes[c],
                               r->receivers, partitions);
    for (uint32_t p = 0; p < r->num_partitions && partitions; p++) {
        const struct cs_static_partition *sp = &r->partitions[p];
        printf("  partition 0x%04x: %u members, %" PRIu64 " flows on %u links, %u shared, "
               "interference %" PRIu64 "\n",
               sp->pkey, sp->members, sp->flows, sp->links, sp->shared_links, sp->interference);
    }
}

struct static_csv {
    const struct cs_tracer *t;
    const struct cs_static_result *r;
};

static int write_static_csv(FILE *out, const void *ctx, struct cs_error *err)
{
    const struct static_csv *c = ctx;
    return cs_static_write_links_csv(out, c->t, c->r, err);
}

static int write_dot(FILE *out, const void *ctx, struct cs_error *err)
{
    return cs_orcs_dot_write(out, ctx, err);
}

/* Port indices of the port GUIDs in a list (every GUID must name a port of f). */
static int ports_of_guids(const struct cs_fabric *f, const struct cs_guid_list *l, uint32_t **ports,
                          struct cs_error *err)
{
    struct cs_key_index ix;
    if (cs_key_index_ports(&ix, f, err) < 0)
        return -1;
    *ports = malloc((l->count ? l->count : 1) * sizeof **ports);
    int rc = *ports ? 0 : cs_fail(err, "out of memory");
    for (uint32_t i = 0; rc == 0 && i < l->count; i++) {
        (*ports)[i] = cs_key_index_find(&ix, l->guids[i]);
        if ((*ports)[i] == CS_NONE)
            rc = cs_fail(err, "receiver 0x%016" PRIx64 " is no port of the topology", l->guids[i]);
    }
    cs_key_index_free(&ix);
    return rc;
}

static int analyze_main(int argc, char **argv)
{
    const char *who = argv[0];
    const char *pattern = NULL, *versus = NULL, *order_file = NULL, *partitions_file = NULL;
    const char *guid2lid = NULL, *csv = NULL, *links = NULL, *plot = NULL;
    const char *receivers_file = NULL, *dot = NULL;
    bool static_metrics = false, allow_extra = false;
    bool as_json = false, has_pkey = false, has_aggressor_pkey = false;
    uint16_t pkey = 0, aggressor_pkey = 0;
    enum plot_of plot_of = PLOT_BANDWIDTH;
    struct cs_sim_options o = {.runs = 1, .seed = 1, .select = CS_SELECT_RANDOM};
    struct cs_error err;
    unsigned value;
    static const struct option options[] = {
        {"pattern", required_argument, NULL, 'p'},
        {"runs", required_argument, NULL, 'r'},
        {"seed", required_argument, NULL, 's'},
        {"threads", required_argument, NULL, 't'},
        {"select", required_argument, NULL, 'S'},
        {"order", required_argument, NULL, 'O'},
        {"commsize", required_argument, NULL, 'c'},
        {"partitions", required_argument, NULL, 'P'},
        {"partition", required_argument, NULL, 'k'},
        {"versus", required_argument, NULL, 'v'},
        {"aggressor-partition", required_argument, NULL, 'K'},
        {"exclude-host-links", no_argument, NULL, 'x'},
        {"guid2lid", required_argument, NULL, 'g'},
        {"allow-extra", no_argument, NULL, 'X'},
        {"json", no_argument, NULL, 'j'},
        {"csv", required_argument, NULL, 'C'},
        {"links", required_argument, NULL, 'L'},
        {"plot", required_argument, NULL, 'G'},
        {"plot-of", required_argument, NULL, 'F'},
        {"static", no_argument, NULL, 'A'},
        {"receivers", required_argument, NULL, 'R'},
        {"dot", required_argument, NULL, 'D'},
        {NULL, 0, NULL, 0},
    };
    int opt;
    while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (opt) {
        case 'p':
            pattern = optarg;
            break;
        case 'r':
            if (!cli_parse_uint(optarg, 1, 100000000, &o.runs))
                return cli_usage(who, "--runs wants 1 or more, not '%s'", optarg);
            break;
        case 's':
            if (!cli_parse_uint(optarg, 0, UINT32_MAX - 1, &value))
                return cli_usage(who, "--seed wants a number, not '%s'", optarg);
            o.seed = value;
            break;
        case 't':
            if (!cli_parse_uint(optarg, 1, 1024, &o.threads))
                return cli_usage(who, "--threads wants 1 to 1024, not '%s'", optarg);
            break;
        case 'S':
            if (cs_select_parse(&o.select, optarg, &err) < 0)
                return cli_usage(who, "%s", err.msg);
            break;
        case 'O':
            order_file = optarg;
            break;
        case 'X':
            allow_extra = true;
            break;
        case 'c':
            if (!cli_parse_uint(optarg, 2, UINT32_MAX - 1, &o.victim.commsize))
                return cli_usage(who, "--commsize wants 2 or more, not '%s'", optarg);
            break;
        case 'P':
            partitions_file = optarg;
            break;
        case 'k':
            if (!parse_pkey(optarg, &pkey))
                return cli_usage(who, "--partition wants a P_Key (e.g. 0x8001), not '%s'", optarg);
            has_pkey = true;
            break;
        case 'v':
            versus = optarg;
            break;
        case 'K':
            if (!parse_pkey(optarg, &aggressor_pkey))
                return cli_usage(who, "--aggressor-partition wants a P_Key, not '%s'", optarg);
            has_aggressor_pkey = true;
            break;
        case 'x':
            o.exclude_host_links = true;
            break;
        case 'g':
            guid2lid = optarg;
            break;
        case 'j':
            as_json = true;
            break;
        case 'C':
            csv = optarg;
            break;
        case 'L':
            links = optarg;
            break;
        case 'G':
            plot = optarg;
            break;
        case 'F':
            if (strcmp(optarg, "bandwidth") == 0)
                plot_of = PLOT_BANDWIDTH;
            else if (strcmp(optarg, "congestion") == 0)
                plot_of = PLOT_CONGESTION;
            else
                return cli_usage(who, "--plot-of is bandwidth or congestion, not '%s'", optarg);
            break;
        case 'A':
            static_metrics = true;
            break;
        case 'R':
            receivers_file = optarg;
            break;
        case 'D':
            dot = optarg;
            break;
        default:
            return cli_usage(who, "unknown option");
        }
    }
    if (argc - optind != 2)
        return cli_usage(who, "wants a topology and an LFT dump");
    if (!pattern && !static_metrics && !dot)
        return cli_usage(who, "which pattern? --pattern bisect, shift, alltoall, ... (or --static, "
                              "--dot)");
    if (pattern && static_metrics)
        return cli_usage(who, "--static and --pattern are separate analyses: one at a time");
    if (receivers_file && !static_metrics)
        return cli_usage(who, "--receivers goes with --static");
    if (pattern && cs_pattern_parse(&o.victim.pattern, pattern, &err) < 0)
        return cli_usage(who, "%s", err.msg);
    if (versus && cs_pattern_parse(&o.aggressor.pattern, versus, &err) < 0)
        return cli_usage(who, "%s", err.msg);
    if ((has_pkey || has_aggressor_pkey) && !partitions_file)
        return cli_usage(who, "--partition needs --partitions FILE");
    if (has_aggressor_pkey && !versus)
        return cli_usage(who, "--aggressor-partition needs --versus PATTERN");
    o.versus = versus != NULL;
    o.link_stats = links != NULL;

    struct routed_fabric routed;
    struct cs_partitions parts;
    struct cs_partition_set set = {0};
    struct cs_guid_list order = {0};
    struct cs_sim_result result = {0};
    uint32_t *victim_ports = NULL, *aggressor_ports = NULL, *receiver_ports = NULL;
    struct cs_guid_list receivers = {0};
    struct cs_static_result static_result = {0};
    bool have_parts = false;
    int rc = EXIT_OK;
    if (routed_fabric_load(&routed, argv[optind], argv[optind + 1], guid2lid, allow_extra, &err) <
        0)
        return cli_fail(who, &err);
    const struct cs_fabric *f = &routed.fabric;
    if (order_file) {
        if (cs_guid_list_read(&order, order_file, &err) < 0)
            goto failed;
        o.order = order.guids;
        o.order_count = order.count;
    }
    if (partitions_file) {
        if (cs_partitions_read(&parts, partitions_file, &err) < 0)
            goto failed;
        have_parts = true;
        if (cs_partitions_resolve(&parts, f, NULL, &set, &err) < 0)
            goto failed;
    }
    if (has_pkey) {
        if (partition_ports(&set, f, pkey, &victim_ports, &o.victim.num_ports, &err) < 0)
            goto failed;
        o.victim.ports = victim_ports;
    }
    if (versus) {
        if (has_aggressor_pkey) {
            if (partition_ports(&set, f, aggressor_pkey, &aggressor_ports, &o.aggressor.num_ports,
                                &err) < 0)
                goto failed;
        } else if (victim_ports) {
            if (other_ports(f, victim_ports, o.victim.num_ports, &aggressor_ports,
                            &o.aggressor.num_ports, &err) < 0)
                goto failed;
        } else {
            cs_fail(&err, "--versus needs the victim on a partition (--partition) or "
                          "--aggressor-partition: the two groups must differ");
            goto failed;
        }
        o.aggressor.ports = aggressor_ports;
    }
    if (dot && cs_atomic_write(dot, write_dot, &routed.tracer, &err) < 0)
        goto failed;
    if (static_metrics) {
        struct cs_static_options so = {.partitions = partitions_file ? &set : NULL};
        if (receivers_file) {
            if (cs_guid_list_read(&receivers, receivers_file, &err) < 0 ||
                ports_of_guids(f, &receivers, &receiver_ports, &err) < 0)
                goto failed;
            so.receivers = receiver_ports;
            so.num_receivers = receivers.count;
        }
        struct static_csv sctx = {&routed.tracer, &static_result};
        if (cs_static_metrics(&routed.tracer, &so, &static_result, &err) < 0 ||
            (links && cs_atomic_write(links, write_static_csv, &sctx, &err) < 0))
            goto failed;
        print_static(&static_result, as_json);
        goto done;
    }
    if (!pattern)
        goto done; /* --dot only */
    if (cs_simulate(&routed.tracer, &o, &result, &err) < 0)
        goto failed;

    struct csv_ctx cctx = {&result, &routed.tracer};
    struct plot_ctx pctx = {&result, plot_of, pattern};
    if ((csv && cs_atomic_write(csv, write_runs_csv, &cctx, &err) < 0) ||
        (links && cs_atomic_write(links, write_links_csv, &cctx, &err) < 0) ||
        (plot && cs_atomic_write(plot, write_plot, &pctx, &err) < 0))
        goto failed;
    if (as_json)
        print_json(&result, pattern, versus, &o);
    else
        print_text(&result, pattern, versus, &o);
    goto done;
failed:
    rc = cli_fail(who, &err);
done:
    cs_sim_result_free(&result);
    cs_static_result_free(&static_result);
    cs_guid_list_free(&receivers);
    free(receiver_ports);
    free(victim_ports);
    free(aggressor_ports);
    cs_guid_list_free(&order);
    cs_partition_set_free(&set);
    if (have_parts)
        cs_partitions_free(&parts);
    routed_fabric_free(&routed);
    return rc;
}

const struct cli_command cli_analyze_commands[] = {
    {"analyze", "", "simulate traffic patterns on routed fabrics (ORCS-class)", analyze_help,
     analyze_main},
    {"analyze", NULL, NULL, NULL, NULL},
};
