/* cloudsm route: run a routing engine on a topology and write the LFTs. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cloudsm/guid_list.h"
#include "cloudsm/json.h"
#include "cloudsm/lft_io.h"
#include "cloudsm/lid.h"
#include "cloudsm/route.h"
#include "cloudsm/subtree.h"
#include "cloudsm/topo_io.h"
#include "routed.h"

static const char route_help[] =
    "usage: cloudsm route -R ENGINE TOPOLOGY [options]\n"
    "\n"
    "Compute the linear forwarding tables of every switch and write them as an LFT dump\n"
    "that OpenSM loads (opensm -R file -U FILE) and `cloudsm lft check` verifies.\n"
    "\n"
    "engines (the fat-tree ones fall back to minhop on a fabric that is not a pure\n"
    "fat-tree, as OpenSM does):\n"
    "@ENGINES@\n"
    "\n"
    "options:\n"
    "  -R, --engine NAME     the engine (required)\n"
    "  --guid2lid FILE       use these LIDs (OpenSM's cache file), e.g. to compare with OpenSM;\n"
    "                        ports it does not name get LIDs by cloudsm's rule (topo lids)\n"
    "  --lmc N               LMC for ports that get new LIDs (default 0)\n"
    "  --root-guids FILE     root switches by node GUID, one per line (OpenSM's -a)\n"
    "  --cn-guids FILE       compute nodes by port GUID (OpenSM's -u); other CA ports are\n"
    "                        routed after them\n"
    "  --order FILE          node order for noftree: port GUIDs, one per line, most\n"
    "                        important first (docs/routing/noftree.md)\n"
    "  --weights FILE        node weights for the weighted engines: port GUID and weight per\n"
    "                        line (docs/formats/weights.md; `cloudsm weights learn` makes one)\n"
    "  --partitions FILE     partitions.conf with isolation policies, for the partition-aware\n"
    "                        engines (docs/formats/partitions.md)\n"
    "  --vms FILE            the VMs that run, for vftree (docs/formats/vms.md); without it\n"
    "                        every VF with a LID runs one (docs/routing/vftree.md)\n"
    "  --previous FILE       the LFTs in use (an LFT dump, either form), for what starts from\n"
    "                        them: sub-tree re-routing (--subtree); slimupdate keeps their\n"
    "                        routes while balanced (docs/routing/slimupdate.md)\n"
    "  --subtree NODES       fast hybrid re-routing (docs/routing/hybrid.md): route again only\n"
    "                        the smallest sub-tree (of two levels at least) that holds these\n"
    "                        nodes, all nodes on its leaves, inside it; write only its\n"
    "                        switches' tables and keep every other entry as --previous (required)\n"
    "                        has it. NODES: CA port or node GUIDs or CA names, comma-separated,\n"
    "                        or @FILE (GUIDs, one per line). Engines: ftree, noftree, wftree\n"
    "  --metabase FILE       mftree: keep phase I's spanning trees in this SQLite file; a\n"
    "                        routing of the same topology loads them instead of computing\n"
    "                        them (docs/routing/mftree.md)\n"
    "  --paths N|disjoint    mftree: spanning trees per leaf (default: every different one\n"
    "                        a leaf can use, at most the fullest leaf's nodes; disjoint: as\n"
    "                        many as there are disjoint ones)\n"
    "  --connect-roots       also route between root switches (OpenSM's -z)\n"
    "  --no-fallback         fail instead of falling back to minhop\n"
    "  -o, --output FILE     write the LFTs here (atomically); default: standard output,\n"
    "                        unless --json is given\n"
    "  --format osm|ibroute  opensm-lfts.dump (default) or ibroute/dump_fts form\n"
    "  --json                print what was done as JSON: engine, requested, fell_back,\n"
    "                        fallback_reason, route_ms (engine time only), build_ms (of it,\n"
    "                        building the engine's view: the fat-tree machinery, mftree's\n"
    "                        phase I), build_kept (that view was kept or loaded, not\n"
    "                        computed), lids, max_lid, switches, lft_blocks, scope_switches\n"
    "                        (--subtree; 0: all); violations (isolation policies not met)\n"
    "                        and, for an engine that assigns them (pftree), partitions:\n"
    "                        name, pkey, isolation and the SL of each\n"
    "\n"
    "examples:\n"
    "  cloudsm topo gen kary 4 3 -o k4n3.topo\n"
    "  cloudsm route -R ftree k4n3.topo -o k4n3.lfts --json\n"
    "  cloudsm route -R ftree fabric.topo --guid2lid /var/cache/opensm/guid2lid -o lfts.dump\n"
    "  cloudsm lft check k4n3.topo k4n3.lfts\n"
    "  # the hybrid paper's testbed: ftree, then CN1's sub-tree again by noftree, CN1 and CN3\n"
    "  # first (their port GUIDs in the order file)\n"
    "  cloudsm topo gen preset hybrid-testbed --lids -o tb.topo\n"
    "  cloudsm route -R ftree tb.topo -o ftree.lfts\n"
    "  printf '0x0010000000000001\\n0x0010000000000201\\n' > order\n"
    "  cloudsm route -R noftree tb.topo --previous ftree.lfts --subtree CN1,CN3 --order order \\\n"
    "      -o hybrid.lfts\n"
    "  cloudsm lft diff ftree.lfts hybrid.lfts --per-switch   # S2 only: to CN2, CN3\n"
    "  # mftree: phase I kept in a file; a later routing (a node order) only assigns paths\n"
    "  cloudsm route -R mftree k4n3.topo --metabase k4n3.mb --paths disjoint -o k4n3.lfts\n"
    "  cloudsm route -R mftree k4n3.topo --metabase k4n3.mb --order mpi.guids -o k4n3.lfts\n";

/* --subtree's NODES: "@FILE" (a GUID list), or comma-separated GUIDs and CA names. */
static int subtree_nodes(const struct cs_fabric *f, const char *text, struct cs_guid_list *out,
                         struct cs_error *err)
{
    if (text[0] == '@')
        return cs_guid_list_read(out, text + 1, err);
    const char *p = text;
    for (;;) {
        size_t len = strcspn(p, ",");
        char item[CS_DESC_MAX + 1];
        if (len == 0 || len > CS_DESC_MAX)
            return cs_fail(err, "--subtree: '%s': an empty or overlong name", text);
        memcpy(item, p, len);
        item[len] = '\0';
        uint64_t guid = 0;
        if (!cli_parse_u64(item, &guid) || guid == 0) {
            uint32_t found = CS_NONE;
            for (uint32_t n = 0; n < f->num_nodes; n++) {
                if (strcmp(f->nodes[n].desc, item) != 0)
                    continue;
                if (f->nodes[n].type != CS_NODE_CA)
                    return cs_fail(err, "--subtree: '%s' is a switch: name the nodes (CAs)", item);
                if (found != CS_NONE)
                    return cs_fail(err, "--subtree: two CAs are named '%s': give a GUID", item);
                found = n;
            }
            if (found == CS_NONE)
                return cs_fail(err, "--subtree: '%s' is neither a GUID nor the name of a CA", item);
            guid = f->nodes[found].guid;
        }
        uint64_t *grown = realloc(out->guids, (out->count + 1) * sizeof *grown);
        if (!grown)
            return cs_fail(err, "out of memory");
        out->guids = grown;
        out->guids[out->count++] = guid;
        if (p[len] == '\0')
            return 0;
        p += len + 1;
    }
}

/* An engine's warnings (e.g. an order naming a node it does not route) on stderr. */
static void warn_on_stderr(void *arg, enum cs_log_level level, const char *msg)
{
    (void)arg;
    if (level <= CS_LOG_WARN)
        fprintf(stderr, "cloudsm route: %s: %s\n", level == CS_LOG_ERROR ? "error" : "warning",
                msg);
}

static int route_main(int argc, char **argv)
{
    const char *who = argv[0];
    const char *engine = NULL, *guid2lid = NULL, *roots_file = NULL, *cns_file = NULL;
    const char *output = NULL, *previous_file = NULL, *subtree = NULL;
    int format = CS_LFT_FORMAT_OSM;
    unsigned lmc = 0;
    bool as_json = false;
    struct cs_route_options ropt = {0};
    static const struct option options[] = {
        {"engine", required_argument, NULL, 'R'},
        {"guid2lid", required_argument, NULL, 'g'},
        {"lmc", required_argument, NULL, 'm'},
        {"root-guids", required_argument, NULL, 'a'},
        {"cn-guids", required_argument, NULL, 'u'},
        {"order", required_argument, NULL, 'O'},
        {"weights", required_argument, NULL, 'W'},
        {"partitions", required_argument, NULL, 'P'},
        {"vms", required_argument, NULL, 'V'},
        {"previous", required_argument, NULL, 'p'},
        {"subtree", required_argument, NULL, 's'},
        {"metabase", required_argument, NULL, 'M'},
        {"paths", required_argument, NULL, 'K'},
        {"connect-roots", no_argument, NULL, 'z'},
        {"no-fallback", no_argument, NULL, 'n'},
        {"output", required_argument, NULL, 'o'},
        {"format", required_argument, NULL, 'f'},
        {"json", no_argument, NULL, 'j'},
        {NULL, 0, NULL, 0},
    };
    struct cs_route_files files = {0};
    const char *metabase = NULL;
    uint32_t paths = 0;
    int opt;
    while ((opt = getopt_long(argc, argv, "R:o:", options, NULL)) != -1) {
        switch (opt) {
        case 'R':
            engine = optarg;
            break;
        case 'g':
            guid2lid = optarg;
            break;
        case 'm':
            if (!cli_parse_uint(optarg, 0, 7, &lmc))
                return cli_usage(who, "--lmc wants 0 to 7, not '%s'", optarg);
            break;
        case 'a':
            roots_file = optarg;
            break;
        case 'u':
            cns_file = optarg;
            break;
        case 'O':
            files.node_order_file = optarg;
            break;
        case 'W':
            files.node_weights_file = optarg;
            break;
        case 'P':
            files.partitions_file = optarg;
            break;
        case 'V':
            files.vm_state_file = optarg;
            break;
        case 'p':
            previous_file = optarg;
            break;
        case 's':
            subtree = optarg;
            break;
        case 'M':
            metabase = optarg;
            break;
        case 'K': {
            unsigned n;
            if (strcmp(optarg, "disjoint") == 0)
                paths = CS_METABASE_PATHS_DISJOINT;
            else if (cli_parse_uint(optarg, 1, 65535, &n))
                paths = n;
            else
                return cli_usage(who, "--paths wants 1 to 65535 or 'disjoint', not '%s'", optarg);
            break;
        }
        case 'z':
            ropt.connect_roots = true;
            break;
        case 'n':
            ropt.no_fallback = true;
            break;
        case 'o':
            output = optarg;
            break;
        case 'f':
            format = cs_lft_format_parse(optarg);
            if (format < 0)
                return cli_usage(who, "--format is osm or ibroute, not '%s'", optarg);
            break;
        case 'j':
            as_json = true;
            break;
        default:
            return cli_usage(who, "unknown option");
        }
    }
    char names[128];
    cs_route_engine_names(names, sizeof names);
    if (!engine)
        return cli_usage(who, "which engine? -R %s", names);
    if (!cs_route_engine_find(engine))
        return cli_usage(who, "no engine '%s' (%s)", engine, names);
    if (argc - optind != 1)
        return cli_usage(who, "wants exactly one topology file");
    if (subtree && !previous_file)
        return cli_usage(who, "--subtree re-routes from the tables in use: give --previous FILE");

    struct cs_error err;
    struct cs_fabric f;
    struct cs_guid_list roots = {0}, cns = {0};
    struct cs_lfts lfts = {0};
    struct cs_route_stats stats;
    struct cs_route_loaded loaded = {0};
    struct cs_route_result result = {0};
    struct cs_lfts previous = {0};
    struct cs_guid_list subtree_guids = {0};
    struct cs_subtree sub = {0};
    struct cs_route_state *state = NULL;
    struct cs_route_inputs inputs = {.log = &(struct cs_log){warn_on_stderr, NULL}};
    cs_fabric_init(&f);
    int rc = EXIT_OK;
    if (load_topology_with_lids(&f, argv[optind], guid2lid, lmc, &err) < 0 ||
        (roots_file && cs_guid_list_read(&roots, roots_file, &err) < 0) ||
        (cns_file && cs_guid_list_read(&cns, cns_file, &err) < 0) ||
        cs_route_files_load(&files, &loaded, &err) < 0 ||
        (previous_file && cs_lfts_read(&previous, previous_file, &err) < 0)) {
        rc = cli_fail(who, &err);
        goto done;
    }
    cs_route_loaded_inputs(&loaded, &inputs);
    inputs.metabase_file = metabase;
    inputs.metabase_paths = paths;
    ropt.root_guids = roots_file ? &roots : NULL;
    ropt.cn_guids = cns_file ? &cns : NULL;
    if (previous_file)
        inputs.previous = &previous;
    if (subtree) {
        /* The selection builds the fat-tree view; the routing reuses it. */
        state = cs_route_state_new();
        inputs.state = state;
        if ((!state && cs_fail(&err, "out of memory") < 0) ||
            subtree_nodes(&f, subtree, &subtree_guids, &err) < 0 ||
            cs_subtree_select(&f, &ropt, state, subtree_guids.guids, subtree_guids.count, &sub,
                              &err) < 0) {
            rc = cli_fail(who, &err);
            goto done;
        }
        inputs.scope_switches = sub.switches;
        inputs.num_scope_switches = sub.num_switches;
    }
    if (cs_route_with(engine, &f, &ropt, &inputs, &lfts, &stats, &result, &err) < 0) {
        rc = cli_fail(who, &err);
        goto done;
    }
    if (output) {
        if (cs_lfts_write_file(output, &lfts, (enum cs_lft_format)format, &err) < 0) {
            rc = cli_fail(who, &err);
            goto done;
        }
    } else if (!as_json && cs_lfts_write(stdout, &lfts, (enum cs_lft_format)format, &err) < 0) {
        rc = cli_fail(who, &err);
        goto done;
    }
    if (as_json) {
        struct cs_json j;
        cs_json_init(&j, stdout);
        cs_json_object_begin(&j, NULL);
        cs_json_str(&j, "engine", stats.engine);
        cs_json_str(&j, "requested", stats.requested);
        cs_json_bool(&j, "fell_back", stats.fell_back);
        cs_json_str(&j, "fallback_reason", stats.fallback_reason);
        cs_json_double(&j, "route_ms", stats.route_ms);
        cs_json_double(&j, "build_ms", result.build_ms);
        cs_json_bool(&j, "build_kept", result.build_kept);
        cs_json_u64(&j, "lids", stats.lids);
        cs_json_u64(&j, "max_lid", stats.max_lid);
        cs_json_u64(&j, "switches", stats.switches);
        cs_json_u64(&j, "lft_blocks", stats.lft_blocks);
        cs_json_u64(&j, "scope_switches", sub.num_switches);
        cs_json_u64(&j, "violations", result.violations);
        if (result.partition_sl && inputs.partitions) {
            cs_json_array_begin(&j, "partitions");
            for (uint32_t i = 0; i < result.num_partitions; i++) {
                const struct cs_partition *part = &inputs.partitions->partitions[i];
                cs_json_object_begin(&j, NULL);
                cs_json_str(&j, "name", part->name);
                cs_json_u64(&j, "pkey", part->pkey);
                cs_json_str(&j, "isolation", cs_isolation_name(part->isolation));
                cs_json_u64(&j, "sl", result.partition_sl[i]);
                cs_json_object_end(&j);
            }
            cs_json_array_end(&j);
        }
        cs_json_object_end(&j);
        cs_json_finish(&j);
    } else if (output) {
        printf("%s: %u switches, %u LIDs (max %u), %" PRIu64 " LFT blocks, %.1f ms%s%s\n",
               stats.engine, stats.switches, stats.lids, stats.max_lid, stats.lft_blocks,
               stats.route_ms, stats.fell_back ? "; fell back from " : "",
               stats.fell_back ? stats.requested : "");
        if (subtree)
            printf("sub-tree: %u switches (%u of %u levels), %u leaves, %u nodes re-routed; "
                   "other tables as %s\n",
                   sub.num_switches, sub.levels, sub.tree_levels, sub.num_leaves, sub.num_ca_ports,
                   previous_file);
    }
    if (stats.fell_back)
        fprintf(stderr, "cloudsm route: %s fell back to %s: %s\n", stats.requested, stats.engine,
                stats.fallback_reason);
done:
    cs_route_result_free(&result);
    cs_lfts_free(&lfts);
    cs_lfts_free(&previous);
    cs_guid_list_free(&subtree_guids);
    cs_subtree_free(&sub);
    cs_route_state_free(state);
    cs_guid_list_free(&roots);
    cs_guid_list_free(&cns);
    cs_route_loaded_free(&loaded);
    cs_fabric_free(&f);
    return rc;
}

const struct cli_command cli_route_commands[] = {
    {"route", "", "compute LFTs with a routing engine", route_help, route_main},
    {"route", NULL, NULL, NULL, NULL},
};
