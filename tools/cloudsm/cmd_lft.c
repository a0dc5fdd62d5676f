/* cloudsm lft diff | convert | check */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cloudsm/analyze.h"
#include "cloudsm/atomic_file.h"
#include "cloudsm/json.h"
#include "cloudsm/lft.h"
#include "cloudsm/lft_diff.h"
#include "cloudsm/lft_io.h"
#include "cloudsm/lid.h"
#include "cloudsm/topo_io.h"
#include "routed.h"

/* Exit status of a command that found differences (diff) or problems (check); scripts rely on it
 * matching `topo diff`. */
enum { EXIT_DIFFERENT = 3 };

/* ---- lft diff ---- */

static const char diff_help[] =
    "usage: cloudsm lft diff OLD NEW [--json] [--per-switch] [--t-smp MS]\n"
    "                        [--topology FILE [--old-topology FILE] [--guid2lid FILE]]\n"
    "\n"
    "Compare two LFT dumps (OpenSM's opensm-lfts.dump or ibroute/dump_fts output, in any\n"
    "mix) and count what a subnet manager would send to go from OLD to NEW: one\n"
    "LinearForwardingTable SMP per switch and 64-LID block that differs.\n"
    "\n"
    "Switches are matched by GUID. A switch only in NEW costs every block holding a route;\n"
    "one only in OLD is reported as removed and costs nothing.\n"
    "\n"
    "With --topology (the fabric NEW routes), also the path modifications: every CA port\n"
    "with a LID is a source, every CA port LID a destination, and a (source, destination)\n"
    "pair's path changed when its route (the switches and output ports from the source's\n"
    "switch on) differs between OLD and NEW, or when one delivers it and the other does\n"
    "not. OLD is traced over --old-topology (the fabric it routed; default: the same\n"
    "fabric). Sources and destinations only OLD's fabric has (hosts shut down) are not\n"
    "counted. LIDs come from --guid2lid, else from each topology, else from each dump's\n"
    "comments (without --old-topology, OLD is traced with NEW's LIDs).\n"
    "\n"
    "  --json              one JSON object: switches_old, switches_new, switches_changed,\n"
    "                      switches_added, switches_removed, blocks_changed,\n"
    "                      entries_changed (and per_switch with --per-switch); with\n"
    "                      --topology: sources, destinations, pairs, paths_changed,\n"
    "                      destinations_changed, destination_entries_changed (the\n"
    "                      (switch, destination) entries that differ), undelivered_old,\n"
    "                      undelivered_new, sources_moved; with --t-smp: t_smp_ms,\n"
    "                      predicted_ms\n"
    "  --per-switch        list every switch that changed: GUID, blocks, entries\n"
    "  --topology FILE     the fabric NEW routes: count path modifications\n"
    "  --old-topology FILE\n"
    "                      the fabric OLD routed (cut cables, hosts that were there)\n"
    "  --guid2lid FILE     LIDs from OpenSM's guid2lid file (both fabrics)\n"
    "  --t-smp MS          time of one SMP in ms: print the predicted distribution time,\n"
    "                      blocks x MS (Eq. 1 of Compact Network Reconfiguration in\n"
    "                      Fat-Trees; docs/reconfiguration.md says how to measure MS)\n"
    "\n"
    "exit status: 0 identical routes, 3 different, 1 failed (unreadable input), 2 bad usage\n"
    "\n"
    "examples:\n"
    "  cloudsm lft diff ftree/opensm-lfts.dump minhop/opensm-lfts.dump --per-switch\n"
    "  cloudsm lft diff before.lfts after.lfts --topology cut.topo --old-topology k4n3.topo\n";

static const char *presence_name(uint8_t presence)
{
    switch (presence) {
    case CS_LFT_ONLY_OLD:
        return "removed";
    case CS_LFT_ONLY_NEW:
        return "added";
    default:
        return "changed";
    }
}

/* What lft diff computed: the block diff, and the path diff when a topology was given. */
struct diff_report {
    const struct cs_lft_diff *d;
    const struct cs_path_diff *paths; /* NULL without a topology */
    double t_smp_ms;                  /* 0: not given */
    bool per_switch;
};

static void print_diff_json(const struct diff_report *r)
{
    const struct cs_lft_diff *d = r->d;
    struct cs_json j;
    cs_json_init(&j, stdout);
    cs_json_object_begin(&j, NULL);
    cs_json_u64(&j, "switches_old", d->switches_old);
    cs_json_u64(&j, "switches_new", d->switches_new);
    cs_json_u64(&j, "switches_changed", d->switches_changed);
    cs_json_u64(&j, "switches_added", d->switches_added);
    cs_json_u64(&j, "switches_removed", d->switches_removed);
    cs_json_u64(&j, "blocks_changed", d->blocks_changed);
    cs_json_u64(&j, "entries_changed", d->entries_changed);
    if (r->paths) {
        const struct cs_path_diff *p = r->paths;
        cs_json_u64(&j, "sources", p->sources);
        cs_json_u64(&j, "destinations", p->destinations);
        cs_json_u64(&j, "pairs", p->pairs);
        cs_json_u64(&j, "paths_changed", p->paths_changed);
        cs_json_u64(&j, "destinations_changed", p->destinations_changed);
        cs_json_u64(&j, "destination_entries_changed", p->entries_changed);
        cs_json_u64(&j, "undelivered_old", p->undelivered_old);
        cs_json_u64(&j, "undelivered_new", p->undelivered_new);
        cs_json_u64(&j, "sources_moved", p->sources_moved);
    }
    if (r->t_smp_ms > 0) {
        cs_json_double(&j, "t_smp_ms", r->t_smp_ms);
        cs_json_double(&j, "predicted_ms", cs_lft_diff_predicted_ms(d, r->t_smp_ms));
    }
    if (r->per_switch) {
        cs_json_array_begin(&j, "per_switch");
        for (uint32_t i = 0; i < d->num_per_switch; i++) {
            const struct cs_lft_switch_diff *s = &d->per_switch[i];
            if (s->presence == CS_LFT_IN_BOTH && !s->blocks_changed)
                continue;
            cs_json_object_begin(&j, NULL);
            cs_json_guid(&j, "guid", s->guid);
            cs_json_str(&j, "desc", s->desc);
            cs_json_str(&j, "change", presence_name(s->presence));
            cs_json_u64(&j, "blocks_changed", s->blocks_changed);
            cs_json_u64(&j, "entries_changed", s->entries_changed);
            cs_json_object_end(&j);
        }
        cs_json_array_end(&j);
    }
    cs_json_object_end(&j);
    cs_json_finish(&j);
}

static void print_diff_text(const struct diff_report *r)
{
    const struct cs_lft_diff *d = r->d;
    printf("switches  %u old, %u new: %u changed (%u added, %u removed)\n", d->switches_old,
           d->switches_new, d->switches_changed, d->switches_added, d->switches_removed);
    printf("blocks    %" PRIu64 " changed (= LFT SMPs to send)\n", d->blocks_changed);
    printf("entries   %" PRIu64 " changed\n", d->entries_changed);
    if (r->paths) {
        const struct cs_path_diff *p = r->paths;
        printf("paths     %" PRIu64 " of %" PRIu64 " CA pairs changed (%u sources",
               p->paths_changed, p->pairs, p->sources);
        if (p->sources_moved)
            printf(", %u cabled elsewhere or absent before", p->sources_moved);
        printf(")\n");
        printf("dests     %u of %u destination LIDs changed; %" PRIu64
               " (switch, destination) entries changed\n",
               p->destinations_changed, p->destinations, p->entries_changed);
        if (p->undelivered_old || p->undelivered_new)
            printf("lost      %" PRIu64 " pairs not delivered by OLD, %" PRIu64 " by NEW\n",
                   p->undelivered_old, p->undelivered_new);
    }
    if (r->t_smp_ms > 0)
        printf("predicted %.3f ms to send them (Eq. 1: %" PRIu64 " blocks x %g ms per SMP)\n",
               cs_lft_diff_predicted_ms(d, r->t_smp_ms), d->blocks_changed, r->t_smp_ms);
    if (!r->per_switch)
        return;
    for (uint32_t i = 0; i < d->num_per_switch; i++) {
        const struct cs_lft_switch_diff *s = &d->per_switch[i];
        if (s->presence == CS_LFT_IN_BOTH && !s->blocks_changed)
            continue;
        printf("  0x%016" PRIx64 " %-7s blocks %4u entries %6u  '%s'\n", s->guid,
               presence_name(s->presence), s->blocks_changed, s->entries_changed, s->desc);
    }
}

/* The two tables with what they route: NEW over --topology; OLD over --old-topology, or over
 * NEW's fabric (its LIDs) without one. */
struct diff_inputs {
    struct routed_fabric new_routed, old_routed;
    bool have_new, have_old;
    struct cs_lfts old_set, new_set; /* without a topology, or OLD without its own */
    struct cs_tracer old_tracer;     /* OLD over NEW's fabric */
    bool have_old_tracer;
    const struct cs_lfts *old_lfts, *new_lfts;
    const struct cs_tracer *old_routes, *new_routes;
};

static int load_diff_inputs(struct diff_inputs *in, const char *old_path, const char *new_path,
                            const char *topology, const char *old_topology, const char *guid2lid,
                            struct cs_error *err)
{
    memset(in, 0, sizeof *in);
    if (!topology) {
        if (cs_lfts_read(&in->old_set, old_path, err) < 0 ||
            cs_lfts_read(&in->new_set, new_path, err) < 0)
            return -1;
        in->old_lfts = &in->old_set;
        in->new_lfts = &in->new_set;
        return 0;
    }
    if (routed_fabric_load(&in->new_routed, topology, new_path, guid2lid, false, err) < 0)
        return -1;
    in->have_new = true;
    in->new_lfts = &in->new_routed.lfts;
    in->new_routes = &in->new_routed.tracer;
    if (old_topology) {
        if (routed_fabric_load(&in->old_routed, old_topology, old_path, guid2lid, false, err) < 0)
            return -1;
        in->have_old = true;
        in->old_lfts = &in->old_routed.lfts;
        in->old_routes = &in->old_routed.tracer;
        return 0;
    }
    /* Tables of switches the fabric no longer has are expected here: they route nothing. */
    if (cs_lfts_read(&in->old_set, old_path, err) < 0 ||
        cs_tracer_init(&in->old_tracer, &in->new_routed.fabric, &in->old_set, err) < 0)
        return -1;
    in->have_old_tracer = true;
    in->old_lfts = &in->old_set;
    in->old_routes = &in->old_tracer;
    return 0;
}

static void free_diff_inputs(struct diff_inputs *in)
{
    if (in->have_old_tracer)
        cs_tracer_free(&in->old_tracer);
    if (in->have_old)
        routed_fabric_free(&in->old_routed);
    if (in->have_new)
        routed_fabric_free(&in->new_routed);
    cs_lfts_free(&in->old_set);
    cs_lfts_free(&in->new_set);
}

static int lft_diff(int argc, char **argv)
{
    const char *who = argv[0];
    const char *topology = NULL, *old_topology = NULL, *guid2lid = NULL;
    struct diff_report report = {0};
    bool as_json = false;
    static const struct option options[] = {
        {"json", no_argument, NULL, 'j'},
        {"per-switch", no_argument, NULL, 's'},
        {"topology", required_argument, NULL, 't'},
        {"old-topology", required_argument, NULL, 'O'},
        {"guid2lid", required_argument, NULL, 'g'},
        {"t-smp", required_argument, NULL, 'T'},
        {NULL, 0, NULL, 0},
    };
    int opt;
    while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (opt) {
        case 'j':
            as_json = true;
            break;
        case 's':
            report.per_switch = true;
            break;
        case 't':
            topology = optarg;
            break;
        case 'O':
            old_topology = optarg;
            break;
        case 'g':
            guid2lid = optarg;
            break;
        case 'T':
            if (!cli_parse_seconds(optarg, &report.t_smp_ms))
                return cli_usage(who, "--t-smp wants a time in ms above 0, not '%s'", optarg);
            break;
        default:
            return cli_usage(who, "unknown option");
        }
    }
    if (argc - optind != 2)
        return cli_usage(who, "wants two LFT dumps: OLD NEW");
    if ((old_topology || guid2lid) && !topology)
        return cli_usage(who, "--%s goes with --topology",
                         old_topology ? "old-topology" : "guid2lid");

    struct cs_error err;
    struct diff_inputs in;
    struct cs_lft_diff d = {0};
    struct cs_path_diff paths;
    int rc = EXIT_OK;
    if (load_diff_inputs(&in, argv[optind], argv[optind + 1], topology, old_topology, guid2lid,
                         &err) < 0 ||
        cs_lft_diff(in.old_lfts, in.new_lfts, &d, &err) < 0 ||
        (topology && cs_path_diff(in.old_routes, in.new_routes, &paths, &err) < 0)) {
        rc = cli_fail(who, &err);
    } else {
        report.d = &d;
        report.paths = topology ? &paths : NULL;
        if (as_json)
            print_diff_json(&report);
        else
            print_diff_text(&report);
        bool different = d.switches_changed || d.switches_added || d.switches_removed ||
                         d.entries_changed || (topology && paths.paths_changed);
        rc = different ? EXIT_DIFFERENT : EXIT_OK;
    }
    cs_lft_diff_free(&d);
    free_diff_inputs(&in);
    return rc;
}

/* ---- lft convert ---- */

static const char convert_help[] =
    "usage: cloudsm lft convert IN [--format osm|ibroute] [-o OUT]\n"
    "\n"
    "Read an LFT dump in either form and write it in the chosen one:\n"
    "  osm      OpenSM's opensm-lfts.dump (default)\n"
    "  ibroute  ibroute / dump_fts output\n"
    "OpenSM loads both with `opensm -R file -U FILE`.\n"
    "\n"
    "  -o, --output OUT  write here (atomically) instead of standard output\n"
    "\n"
    "example:\n"
    "  dump_fts > fts.txt && cloudsm lft convert fts.txt -o opensm-lfts.dump\n";

static int lft_convert(int argc, char **argv)
{
    const char *who = argv[0];
    const char *output = NULL;
    int format = CS_LFT_FORMAT_OSM;
    static const struct option options[] = {
        {"format", required_argument, NULL, 'f'},
        {"output", required_argument, NULL, 'o'},
        {NULL, 0, NULL, 0},
    };
    int opt;
    while ((opt = getopt_long(argc, argv, "o:", options, NULL)) != -1) {
        switch (opt) {
        case 'f':
            format = cs_lft_format_parse(optarg);
            if (format < 0)
                return cli_usage(who, "--format is osm or ibroute, not '%s'", optarg);
            break;
        case 'o':
            output = optarg;
            break;
        default:
            return cli_usage(who, "unknown option");
        }
    }
    if (argc - optind != 1)
        return cli_usage(who, "wants one LFT dump");

    struct cs_error err;
    struct cs_lfts set = {0};
    int rc = EXIT_OK;
    if (cs_lfts_read(&set, argv[optind], &err) < 0 ||
        (output ? cs_lfts_write_file(output, &set, (enum cs_lft_format)format, &err)
                : cs_lfts_write(stdout, &set, (enum cs_lft_format)format, &err)) < 0)
        rc = cli_fail(who, &err);
    cs_lfts_free(&set);
    return rc;
}

/* ---- lft check ---- */

static const char check_help[] =
    "usage: cloudsm lft check TOPOLOGY LFTS [--json] [--per-link FILE.csv] [--guid2lid FILE]\n"
    "                         [--all-lids] [--threads N] [--show N] [--allow-extra]\n"
    "                         [--skip-ports-without-lid]\n"
    "\n"
    "Trace every route the LFTs define between the CA ports of the topology (every ordered\n"
    "pair, CAs on one leaf included) and report what is wrong:\n"
    "  loop           the route comes back to a switch it crossed\n"
    "  black hole     a switch without a table, entry 255, an entry naming a port the switch\n"
    "                 lacks or that is unconnected, entry 0 on a switch that is not the\n"
    "                 destination\n"
    "  wrong delivery the route leaves the fabric at a CA port that does not own the LID\n"
    "and also hop counts (links crossed, host links included), routes per directed link by\n"
    "direction class (host_up, host_down, up, down, flat; max, mean, spread = max - min), and\n"
    "credit loops: cycles in the channel dependency graph of the links between switches.\n"
    "\n"
    "LFTS is opensm-lfts.dump or ibroute/dump_fts output; switches are matched by GUID. LIDs\n"
    "come from --guid2lid if given, else from the topology if it has any, else from the\n"
    "dump's comments (the port GUID behind each LID). Tables for switches the topology does\n"
    "not have mean the files describe different fabrics: an error unless --allow-extra. A\n"
    "check that finds no CA pair to trace (no CA, or no CA with a LID) fails: it proves\n"
    "nothing.\n"
    "\n"
    "  --json            one JSON object: pairs, delivered, unreachable, loops, black_holes,\n"
    "                    wrong_deliveries, hops {min,mean,max,histogram}, credit_loops (0 or\n"
    "                    1: the check reports one cycle), credit_cycle, cdg, links\n"
    "                    {links,min,max,mean,spread,stddev} (between switches), link_classes,\n"
    "                    failures, ok\n"
    "  --per-link FILE   write one CSV line per directed link (atomically): from_guid,\n"
    "                    from_port,to_guid,to_port,class,routes\n"
    "  --guid2lid FILE   LIDs from OpenSM's guid2lid file\n"
    "  --all-lids        trace to switch LIDs too, not only CA LIDs\n"
    "  --threads N       worker threads (default: one per CPU when the fabric is big)\n"
    "  --show N          failing pairs to describe (default 10)\n"
    "  --allow-extra     accept (and ignore) tables for switches not in the topology\n"
    "  --skip-ports-without-lid\n"
    "                    trace from and to the CA ports that have a LID only (a vSwitch\n"
    "                    fabric with dynamic VM LIDs: a VF without a VM has none); without\n"
    "                    it a CA port without a LID is an error\n"
    "\n"
    "exit status: 0 all routes fine, 3 problems found, 1 failed (unreadable input, nothing to\n"
    "check), 2 bad usage\n"
    "\n"
    "examples:\n"
    "  cloudsm lft check fabric.topo /var/log/opensm-lfts.dump\n"
    "  cloudsm lft check ft.topo lfts.dump --guid2lid guid2lid --json --per-link links.csv\n";

struct links_csv {
    const struct cs_tracer *tracer;
    const struct cs_check_result *result;
};

static int write_links_csv(FILE *out, const void *ctx, struct cs_error *err)
{
    const struct links_csv *c = ctx;
    return cs_check_write_links_csv(out, c->tracer, c->result, err);
}

static void json_link_stats(struct cs_json *j, const char *key, const struct cs_link_stats *s)
{
    cs_json_object_begin(j, key);
    cs_json_u64(j, "links", s->links);
    cs_json_u64(j, "min", s->min);
    cs_json_u64(j, "max", s->max);
    cs_json_double(j, "mean", s->mean);
    cs_json_u64(j, "spread", s->spread);
    cs_json_double(j, "stddev", s->stddev);
    cs_json_object_end(j);
}

static void json_port(struct cs_json *j, const char *key, const struct cs_fabric *f, uint32_t port)
{
    const struct cs_port *p = &f->ports[port];
    cs_json_object_begin(j, key);
    cs_json_guid(j, "guid", f->nodes[p->node].guid);
    cs_json_u64(j, "port", p->num);
    cs_json_str(j, "desc", f->nodes[p->node].desc);
    cs_json_object_end(j);
}

static void print_check_json(const struct cs_tracer *t, const struct cs_check_result *r,
                             const char *lid_source)
{
    const struct cs_fabric *f = t->fabric;
    struct cs_json j;
    cs_json_init(&j, stdout);
    cs_json_object_begin(&j, NULL);
    cs_json_str(&j, "lids_from", lid_source);
    cs_json_u64(&j, "switches", t->num_switches);
    cs_json_u64(&j, "switches_without_lft", t->switches_without_table);
    cs_json_u64(&j, "lfts_not_in_topology", t->tables_without_switch);
    cs_json_u64(&j, "sources", r->sources);
    cs_json_u64(&j, "destinations", r->destinations);
    cs_json_u64(&j, "pairs", r->pairs);
    cs_json_u64(&j, "delivered", r->delivered);
    cs_json_u64(&j, "unreachable", r->unreachable);
    cs_json_u64(&j, "loops", r->loops);
    cs_json_u64(&j, "black_holes", r->black_holes);
    cs_json_u64(&j, "wrong_deliveries", r->wrong_deliveries);
    cs_json_object_begin(&j, "outcomes");
    for (unsigned o = 0; o < CS_TRACE_OUTCOMES; o++)
        cs_json_u64(&j, cs_trace_outcome_id((enum cs_trace_outcome)o), r->outcomes[o]);
    cs_json_object_end(&j);
    cs_json_object_begin(&j, "hops");
    cs_json_u64(&j, "min", r->hops_min);
    cs_json_double(&j, "mean", r->hops_mean);
    cs_json_u64(&j, "max", r->hops_max);
    cs_json_object_begin(&j, "histogram");
    for (uint32_t h = 0; h < r->hops_histogram_len; h++) {
        char key[16];
        snprintf(key, sizeof key, "%u", h);
        if (r->hops_histogram[h])
            cs_json_u64(&j, key, r->hops_histogram[h]);
    }
    cs_json_object_end(&j);
    cs_json_object_end(&j);
    cs_json_u64(&j, "credit_loops", r->credit_loop ? 1 : 0);
    cs_json_array_begin(&j, "credit_cycle");
    for (uint32_t k = 0; k < r->credit_cycle_len; k++) {
        uint32_t from = t->links.from[r->credit_cycle[k]];
        cs_json_object_begin(&j, NULL);
        json_port(&j, "from", f, from);
        json_port(&j, "to", f, f->ports[from].peer);
        cs_json_object_end(&j);
    }
    cs_json_array_end(&j);
    cs_json_object_begin(&j, "cdg");
    cs_json_u64(&j, "vertices", r->cdg_vertices);
    cs_json_u64(&j, "edges", r->cdg_edges);
    cs_json_object_end(&j);
    json_link_stats(&j, "links", &r->switch_links);
    cs_json_object_begin(&j, "link_classes");
    for (unsigned c = 0; c < CS_LINK_CLASSES; c++)
        if (r->classes[c].links)
            json_link_stats(&j, cs_link_class_name((enum cs_link_class)c), &r->classes[c]);
    cs_json_object_end(&j);
    cs_json_array_begin(&j, "failures");
    for (uint32_t i = 0; i < r->num_failures; i++) {
        const struct cs_check_failure *fl = &r->failures[i];
        cs_json_object_begin(&j, NULL);
        json_port(&j, "source", f, fl->src_port);
        cs_json_u64(&j, "lid", fl->lid);
        cs_json_str(&j, "outcome", cs_trace_outcome_id((enum cs_trace_outcome)fl->trace.outcome));
        if (fl->trace.fault_node != CS_NONE) {
            cs_json_guid(&j, "switch", f->nodes[fl->trace.fault_node].guid);
            if (fl->trace.outcome != CS_TRACE_NO_TABLE)
                cs_json_u64(&j, "entry", fl->trace.fault_entry);
        }
        if (fl->trace.end_port != CS_NONE)
            json_port(&j, "reached", f, fl->trace.end_port);
        if (fl->loop_count) {
            cs_json_array_begin(&j, "loop");
            for (uint32_t k = 0; k < fl->loop_count; k++)
                cs_json_guid(&j, NULL, f->nodes[r->loop_nodes[fl->loop_first + k]].guid);
            cs_json_array_end(&j);
        }
        cs_json_object_end(&j);
    }
    cs_json_array_end(&j);
    cs_json_u64(&j, "threads", r->threads_used);
    cs_json_bool(&j, "ok", r->ok);
    cs_json_object_end(&j);
    cs_json_finish(&j);
}

static void print_port(const struct cs_fabric *f, uint32_t port)
{
    const struct cs_port *p = &f->ports[port];
    printf("'%s' port %u (0x%016" PRIx64 ")", f->nodes[p->node].desc, p->num,
           f->nodes[p->node].guid);
}

static void print_failure(const struct cs_tracer *t, const struct cs_check_result *r,
                          const struct cs_check_failure *fl)
{
    const struct cs_fabric *f = t->fabric;
    printf("  ");
    print_port(f, fl->src_port);
    printf(" -> LID 0x%04x", fl->lid);
    uint32_t owner = cs_tracer_owner(t, fl->lid);
    if (owner != CS_NONE)
        printf(" ('%s')", f->nodes[f->ports[owner].node].desc);
    printf(": %s", cs_trace_outcome_name((enum cs_trace_outcome)fl->trace.outcome));
    if (fl->trace.fault_node != CS_NONE) {
        const struct cs_node *sw = &f->nodes[fl->trace.fault_node];
        printf(" at switch 0x%016" PRIx64 " ('%s')", sw->guid, sw->desc);
        if (fl->trace.outcome != CS_TRACE_NO_TABLE)
            printf(", entry %u", fl->trace.fault_entry);
    }
    if (fl->trace.outcome == CS_TRACE_WRONG_DELIVERY && fl->trace.end_port != CS_NONE) {
        printf(", reaches ");
        print_port(f, fl->trace.end_port);
    }
    if (fl->loop_count) {
        printf("; loop:");
        for (uint32_t k = 0; k < fl->loop_count; k++)
            printf(" 0x%016" PRIx64 " ->", f->nodes[r->loop_nodes[fl->loop_first + k]].guid);
        printf(" 0x%016" PRIx64, f->nodes[r->loop_nodes[fl->loop_first]].guid);
    }
    printf("\n");
}

static void print_link_stats(const char *name, const struct cs_link_stats *s)
{
    printf("  %-10s %6u links: max %" PRIu64 ", mean %.2f, spread %" PRIu64 " (min %" PRIu64
           ", stddev %.2f)\n",
           name, s->links, s->max, s->mean, s->spread, s->min, s->stddev);
}

static void print_check_text(const struct cs_tracer *t, const struct cs_check_result *r,
                             const char *lid_source)
{
    const struct cs_fabric *f = t->fabric;
    printf("pairs         %" PRIu64 " (%u CA ports to %u LIDs, LIDs from %s)\n", r->pairs,
           r->sources, r->destinations, lid_source);
    if (t->switches_without_table || t->tables_without_switch)
        printf("switches      %u without an LFT; %u LFTs for switches not in the topology\n",
               t->switches_without_table, t->tables_without_switch);
    printf("delivered     %" PRIu64 "\n", r->delivered);
    printf("unreachable   %" PRIu64 " (loops %" PRIu64 ", black holes %" PRIu64
           ", wrong deliveries %" PRIu64 ")\n",
           r->unreachable, r->loops, r->black_holes, r->wrong_deliveries);
    for (uint32_t i = 0; i < r->num_failures; i++)
        print_failure(t, r, &r->failures[i]);
    if (r->unreachable > r->num_failures)
        printf("  ... and %" PRIu64 " more\n", r->unreachable - r->num_failures);
    if (r->delivered) {
        printf("hops          min %u, mean %.3f, max %u  (", r->hops_min, r->hops_mean,
               r->hops_max);
        const char *sep = "";
        for (uint32_t h = 0; h < r->hops_histogram_len; h++)
            if (r->hops_histogram[h]) {
                printf("%s%u: %" PRIu64, sep, h, r->hops_histogram[h]);
                sep = ", ";
            }
        printf(")\n");
    }
    printf("credit loops  %s (CDG: %" PRIu64 " links, %" PRIu64 " dependencies)\n",
           r->credit_loop ? "FOUND" : "none", r->cdg_vertices, r->cdg_edges);
    for (uint32_t k = 0; k < r->credit_cycle_len; k++) {
        uint32_t from = t->links.from[r->credit_cycle[k]];
        printf("  ");
        print_port(f, from);
        printf(" -> ");
        print_port(f, f->ports[from].peer);
        printf("\n");
    }
    printf("routes/link   (delivered routes crossing each directed link)\n");
    print_link_stats("switch", &r->switch_links);
    for (unsigned c = 0; c < CS_LINK_CLASSES; c++)
        if (r->classes[c].links)
            print_link_stats(cs_link_class_name((enum cs_link_class)c), &r->classes[c]);
    printf("result        %s\n", r->ok ? "ok" : "PROBLEMS");
}

static int lft_check(int argc, char **argv)
{
    const char *who = argv[0];
    const char *per_link = NULL, *guid2lid = NULL;
    bool as_json = false, allow_extra = false;
    struct cs_check_options copt = {0};
    unsigned value;
    static const struct option options[] = {
        {"json", no_argument, NULL, 'j'},
        {"per-link", required_argument, NULL, 'p'},
        {"guid2lid", required_argument, NULL, 'g'},
        {"all-lids", no_argument, NULL, 'a'},
        {"threads", required_argument, NULL, 't'},
        {"show", required_argument, NULL, 's'},
        {"allow-extra", no_argument, NULL, 'x'},
        {"skip-ports-without-lid", no_argument, NULL, 'k'},
        {NULL, 0, NULL, 0},
    };
    int opt;
    while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (opt) {
        case 'j':
            as_json = true;
            break;
        case 'x':
            allow_extra = true;
            break;
        case 'k':
            copt.skip_ports_without_lid = true;
            break;
        case 'p':
            per_link = optarg;
            break;
        case 'g':
            guid2lid = optarg;
            break;
        case 'a':
            copt.all_lids = true;
            break;
        case 't':
            if (!cli_parse_uint(optarg, 1, 64, &value))
                return cli_usage(who, "--threads wants 1 to 64, not '%s'", optarg);
            copt.threads = value;
            break;
        case 's':
            if (!cli_parse_uint(optarg, 1, 100000, &value))
                return cli_usage(who, "--show wants 1 to 100000, not '%s'", optarg);
            copt.max_failures = value;
            break;
        default:
            return cli_usage(who, "unknown option");
        }
    }
    if (argc - optind != 2)
        return cli_usage(who, "wants a topology and an LFT dump: TOPOLOGY LFTS");

    struct cs_error err;
    struct routed_fabric routed;
    struct cs_check_result result = {0};
    int rc;
    if (routed_fabric_load(&routed, argv[optind], argv[optind + 1], guid2lid, allow_extra, &err) <
        0)
        return cli_fail(who, &err);
    const struct cs_tracer *tracer = &routed.tracer;
    if (cs_check_lfts(tracer, &copt, &result, &err) < 0) {
        rc = cli_fail(who, &err);
    } else if (result.pairs == 0) {
        /* Nothing traced is not "ok": say why there was nothing. */
        cs_fail(&err,
                "nothing to check: %u CA port%s with a LID as sources and %u destination LID%s "
                "(LIDs from %s) make no pair",
                result.sources, result.sources == 1 ? "" : "s", result.destinations,
                result.destinations == 1 ? "" : "s", routed.lid_source);
        rc = cli_fail(who, &err);
    } else {
        struct links_csv csv = {tracer, &result};
        if (per_link && cs_atomic_write(per_link, write_links_csv, &csv, &err) < 0) {
            rc = cli_fail(who, &err);
        } else {
            if (as_json)
                print_check_json(tracer, &result, routed.lid_source);
            else
                print_check_text(tracer, &result, routed.lid_source);
            rc = result.ok ? EXIT_OK : EXIT_DIFFERENT;
        }
    }
    cs_check_result_free(&result);
    routed_fabric_free(&routed);
    return rc;
}

const struct cli_command cli_lft_commands[] = {
    {"lft", "diff", "count the LFT blocks (SMPs) and the paths changed between two dumps",
     diff_help, lft_diff},
    {"lft", "convert", "convert between opensm-lfts.dump and ibroute form", convert_help,
     lft_convert},
    {"lft", "check", "trace every CA-to-CA route: loops, black holes, hops, credit loops",
     check_help, lft_check},
    {"lft", NULL, NULL, NULL, NULL},
};
