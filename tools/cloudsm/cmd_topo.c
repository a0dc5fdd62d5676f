/* cloudsm topo gen | info | lids */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cloudsm/fabric.h"
#include "cloudsm/fabric_diff.h"
#include "cloudsm/json.h"
#include "cloudsm/lid.h"
#include "cloudsm/mutate.h"
#include "cloudsm/summary.h"
#include "cloudsm/topo_gen.h"
#include "cloudsm/topo_io.h"
#include "routed.h"
#include "summary_print.h"

/* ---- topo gen ---- */

static const char gen_help[] =
    "usage: cloudsm topo gen kary K N            [options]\n"
    "       cloudsm topo gen xgft \"H;m1,..,mH;w1,..,wH\"        [options]\n"
    "       cloudsm topo gen pgft \"H;m1,..,mH;w1,..,wH;p1,..,pH\" [options]\n"
    "       cloudsm topo gen preset NAME [--vswitch V] [--lids] [-o FILE]\n"
    "\n"
    "Generate a fat-tree and write it in ibnetdiscover form (ibsim loads it and keeps\n"
    "every GUID; OpenSM-side tools read it).\n"
    "\n"
    "  kary K N   k-ary-n-tree: K^N hosts, N*K^(N-1) switches of 2K ports\n"
    "  xgft SPEC  XGFT(H; m; w): level 0 = hosts, level H = roots; m_i children per\n"
    "             level-i node, w_i parents per level-(i-1) node (w1 = 1: one leaf per host)\n"
    "  pgft SPEC  PGFT(H; m; w; p): XGFT with p_i parallel links between levels i-1 and i\n"
    "  preset NAME  an example fabric from the papers (list below)\n"
    "\n"
    "options:\n"
    "  --vswitch V         every host is a hypervisor in SR-IOV vSwitch mode: a switch\n"
    "                      \"hyp-<i>\" (port 1 = uplink; its LID is the PF's) with V one-port\n"
    "                      VF CAs \"hyp-<i> vf-<k>\" on its ports k+1; V from 1 to 126; needs\n"
    "                      single-port hosts (w1*p1 = 1). Order: each vSwitch, then its VFs,\n"
    "                      then the tree's switches, so --lids gives hypervisor i's PF\n"
    "                      i*(V+1)+1 and its VFs the next V LIDs\n"
    "  --plain-hosts N     with --vswitch: the last N hosts stay plain hosts \"host-<i>\" (a\n"
    "                      management node, say the SM's, in a fabric of hypervisors)\n"
    "  --hosts N           keep only the first N hosts (after --hosts-per-leaf)\n"
    "  --hosts-per-leaf N  keep only N hosts under each leaf (N <= m1)\n"
    "  --radix N           ports per switch (default: the fewest that fit)\n"
    "  --lids              assign LIDs (switches and hosts in fabric order, from 1)\n"
    "  -o, --output FILE   write here (atomically) instead of standard output\n"
    "\n"
    "Port numbering: down ports first, child by child, then up ports. GUIDs: host i is\n"
    "0x0010000000000000 + (i << 8), its port p that + p; switch j of level l is\n"
    "0x0020000000000000 + (l << 32) + j; VF k of hypervisor i is 0x0030000000000000 +\n"
    "(i << 16) + (k << 8). See docs/topology-generators.md.\n"
    "\n"
    "examples:\n"
    "  cloudsm topo gen kary 4 3 -o k4n3.topo            # 64 hosts, 48 switches\n"
    "  cloudsm topo gen xgft \"3;18,18,36;1,18,18\" -o big.topo   # 11664 hosts, 1620 switches\n"
    "  cloudsm topo gen pgft \"2;4,4;1,2;1,2\" --hosts-per-leaf 3  # parallel spine links\n"
    "  cloudsm topo gen kary 2 2 --vswitch 3 --lids  # 4 hypervisors x 3 VFs, LIDs 1..20\n"
    "  cloudsm topo gen preset vswitch-fig3 --lids   # PFs 1, 5, 9; VFs 2-4, 6-8, 10-12\n"
    "\n"
    "presets (--vswitch V overrides their VF count):\n"
    "@PRESETS@\n";

/* Assign LIDs if asked, write, and free the fabric. */
static int write_generated(const char *who, struct cs_fabric *f, int assign_lids,
                           const char *output)
{
    struct cs_error err;
    int rc = EXIT_OK;
    if ((assign_lids && cs_lids_assign(f, 0, &err) < 0) ||
        (output ? cs_topo_write_file(output, f, &err) : cs_topo_write(stdout, f, &err)))
        rc = cli_fail(who, &err);
    cs_fabric_free(f);
    return rc;
}

static int topo_gen(int argc, char **argv)
{
    const char *who = argv[0];
    const char *output = NULL;
    unsigned hosts_per_leaf = 0, radix = 0, hosts = 0, vfs = 0, plain_hosts = 0;
    int assign_lids = 0;
    static const struct option options[] = {
        {"vswitch", required_argument, NULL, 'v'}, {"plain-hosts", required_argument, NULL, 'P'},
        {"hosts", required_argument, NULL, 'H'},   {"hosts-per-leaf", required_argument, NULL, 'l'},
        {"radix", required_argument, NULL, 'r'},   {"lids", no_argument, NULL, 'L'},
        {"output", required_argument, NULL, 'o'},  {NULL, 0, NULL, 0},
    };
    int opt;
    while ((opt = getopt_long(argc, argv, "o:", options, NULL)) != -1) {
        switch (opt) {
        case 'v':
            if (!cli_parse_uint(optarg, 1, CS_VFS_MAX, &vfs))
                return cli_usage(who,
                                 "--vswitch wants the VFs per hypervisor, 1 to %d "
                                 "(ConnectX-3's maximum), not '%s'",
                                 CS_VFS_MAX, optarg);
            break;
        case 'P':
            if (!cli_parse_uint(optarg, 1, UINT32_MAX - 1, &plain_hosts))
                return cli_usage(who, "--plain-hosts wants a count of at least 1, not '%s'",
                                 optarg);
            break;
        case 'H':
            if (!cli_parse_uint(optarg, 1, UINT32_MAX - 1, &hosts))
                return cli_usage(who, "--hosts wants a count of at least 1, not '%s'", optarg);
            break;
        case 'l':
            if (!cli_parse_uint(optarg, 1, CS_MAX_PORTS, &hosts_per_leaf))
                return cli_usage(who, "--hosts-per-leaf wants a number from 1 to %d, not '%s'",
                                 CS_MAX_PORTS, optarg);
            break;
        case 'r':
            if (!cli_parse_uint(optarg, 1, CS_MAX_PORTS, &radix))
                return cli_usage(who, "--radix wants a number from 1 to %d, not '%s'", CS_MAX_PORTS,
                                 optarg);
            break;
        case 'L':
            assign_lids = 1;
            break;
        case 'o':
            output = optarg;
            break;
        default:
            return cli_usage(who, "unknown option");
        }
    }
    int rest = argc - optind;
    char **args = argv + optind;
    if (rest < 1)
        return cli_usage(who, "which kind of tree? kary, xgft, pgft or preset");

    struct cs_error err;
    struct cs_pgft_spec spec;
    struct cs_fabric f;
    cs_fabric_init(&f);
    if (strcmp(args[0], "preset") == 0) {
        if (rest != 2)
            return cli_usage(who, "preset wants one name (see --help for the list)");
        if (hosts || hosts_per_leaf || radix || plain_hosts)
            return cli_usage(who, "a preset fixes its tree: only --vswitch, --lids and -o apply");
        if (cs_topo_preset_generate(&f, args[1], vfs, &err) < 0)
            return cli_usage(who, "%s", err.msg);
        return write_generated(who, &f, assign_lids, output);
    }
    if (strcmp(args[0], "kary") == 0) {
        unsigned k, n;
        if (rest != 3)
            return cli_usage(who,
                             "kary wants two numbers: K (half the switch radix) and N (levels)");
        if (!cli_parse_uint(args[1], 1, CS_MAX_PORTS, &k) ||
            !cli_parse_uint(args[2], 1, CS_PGFT_MAX_LEVELS, &n))
            return cli_usage(who, "kary K N: K from 1 to %d, N from 1 to %d", CS_MAX_PORTS,
                             CS_PGFT_MAX_LEVELS);
        if (cs_pgft_kary(&spec, k, n, &err) < 0)
            return cli_fail(who, &err);
    } else if (strcmp(args[0], "xgft") == 0 || strcmp(args[0], "pgft") == 0) {
        bool parallel = strcmp(args[0], "pgft") == 0;
        if (rest != 2)
            return cli_usage(who, "%s wants one quoted spec, e.g. \"%s\"", args[0],
                             parallel ? "2;4,4;1,2;1,2" : "2;18,18;1,18");
        if (cs_pgft_parse(&spec, args[1], parallel, &err) < 0)
            return cli_usage(who, "%s", err.msg);
    } else {
        return cli_usage(who, "'%s' is not a tree kind (kary, xgft, pgft, preset)", args[0]);
    }
    spec.hosts_per_leaf = hosts_per_leaf;
    spec.radix = radix;
    spec.hosts = hosts;
    spec.vfs_per_hypervisor = vfs;
    spec.plain_hosts = plain_hosts;

    if (cs_pgft_generate(&f, &spec, &err) < 0)
        return cli_fail(who, &err);
    return write_generated(who, &f, assign_lids, output);
}

/* ---- topo info ---- */

static const char info_help[] =
    "usage: cloudsm topo info TOPOLOGY [--json] [--lmc N]\n"
    "\n"
    "Summarize a topology (ibnetdiscover output or ibsim net file): switches, CAs, hosts,\n"
    "links, switch levels, hosts per leaf, the LIDs an SM needs and the smallest LFT a\n"
    "switch then holds (in 64-LID blocks: one SMP each).\n"
    "\n"
    "  --json    one JSON object: switches, cas, routers, hosts, links, switch_links, levels,\n"
    "            leaves, hosts_per_leaf {min,max}, unreachable_switches, lids, lft_blocks_min,\n"
    "            max_lid\n"
    "  --lmc N   count 2^N LIDs per port (default 0)\n"
    "\n"
    "Definitions: hosts = distinct system image GUIDs among CAs; levels = 1 + the largest\n"
    "switch-to-switch distance from a leaf (a switch with a CA); lids = switches + connected\n"
    "CA and router ports (times 2^lmc); lft_blocks_min = lids / 64 + 1.\n"
    "\n"
    "example:\n"
    "  cloudsm topo gen kary 16 3 | cloudsm topo info /dev/stdin --json\n";

static int topo_info(int argc, char **argv)
{
    const char *who = argv[0];
    int as_json = 0;
    unsigned lmc = 0;
    static const struct option options[] = {
        {"json", no_argument, NULL, 'j'},
        {"lmc", required_argument, NULL, 'm'},
        {NULL, 0, NULL, 0},
    };
    int opt;
    while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (opt) {
        case 'j':
            as_json = 1;
            break;
        case 'm':
            if (!cli_parse_uint(optarg, 0, 7, &lmc))
                return cli_usage(who, "--lmc wants 0 to 7, not '%s'", optarg);
            break;
        default:
            return cli_usage(who, "unknown option");
        }
    }
    if (argc - optind != 1)
        return cli_usage(who, "wants exactly one topology file");
    const char *path = argv[optind];

    struct cs_error err;
    struct cs_fabric f;
    cs_fabric_init(&f);
    struct cs_fabric_summary s;
    if (cs_topo_read(&f, path, &err) < 0 || cs_fabric_summarize(&f, lmc, &s, &err) < 0) {
        cs_fabric_free(&f);
        return cli_fail(who, &err);
    }
    cs_fabric_free(&f);

    summary_print(stdout, path, &s, lmc, as_json);
    return EXIT_OK;
}

/* ---- topo lids ---- */

static const char lids_help[] =
    "usage: cloudsm topo lids TOPOLOGY [--guid2lid FILE] [--lmc N] [-o OUT]\n"
    "\n"
    "Assign LIDs and write them in OpenSM's guid2lid format (load it into OpenSM by\n"
    "putting it in OSM_CACHE_DIR).\n"
    "\n"
    "LIDs already in the topology file are kept; then those of --guid2lid (OpenSM's cache,\n"
    "matched by port GUID; entries for absent ports are ignored); every other port that\n"
    "needs one (switch port 0, connected CA and router ports) gets the lowest free\n"
    "2^lmc-aligned range, in file order.\n"
    "\n"
    "  --guid2lid FILE  honour these LIDs first\n"
    "  --lmc N          LMC for newly assigned ports (default 0)\n"
    "  -o, --output OUT write here (atomically) instead of standard output\n"
    "\n"
    "example:\n"
    "  cloudsm topo lids fabric.topo --guid2lid /var/cache/opensm/guid2lid -o guid2lid\n";

static int topo_lids(int argc, char **argv)
{
    const char *who = argv[0];
    const char *output = NULL, *preload = NULL;
    unsigned lmc = 0;
    static const struct option options[] = {
        {"guid2lid", required_argument, NULL, 'g'},
        {"lmc", required_argument, NULL, 'm'},
        {"output", required_argument, NULL, 'o'},
        {NULL, 0, NULL, 0},
    };
    int opt;
    while ((opt = getopt_long(argc, argv, "o:", options, NULL)) != -1) {
        switch (opt) {
        case 'g':
            preload = optarg;
            break;
        case 'm':
            if (!cli_parse_uint(optarg, 0, 7, &lmc))
                return cli_usage(who, "--lmc wants 0 to 7, not '%s'", optarg);
            break;
        case 'o':
            output = optarg;
            break;
        default:
            return cli_usage(who, "unknown option");
        }
    }
    if (argc - optind != 1)
        return cli_usage(who, "wants exactly one topology file");

    struct cs_error err;
    struct cs_fabric f;
    struct cs_guid2lid result = {0};
    cs_fabric_init(&f);
    int rc = EXIT_OK;
    if (load_topology_with_lids(&f, argv[optind], preload, lmc, &err) < 0 ||
        cs_guid2lid_from_fabric(&result, &f, &err) < 0 ||
        (output ? cs_guid2lid_write_file(output, &result, &err)
                : cs_guid2lid_write(stdout, &result, &err)) < 0)
        rc = cli_fail(who, &err);
    cs_guid2lid_free(&result);
    cs_fabric_free(&f);
    return rc;
}

/* ---- topo diff ---- */

static const char diff_help[] =
    "usage: cloudsm topo diff A B [--lids] [--rates] [--json]\n"
    "\n"
    "Compare two topologies by node GUID (file order does not matter): nodes in one only,\n"
    "nodes whose type, port count, system image GUID or description differ, port GUIDs that\n"
    "differ, and ports cabled elsewhere. Use it to check that what ibnetdiscover finds is\n"
    "what was planned.\n"
    "\n"
    "  --lids    also compare LIDs (off by default: the SM may have assigned new ones)\n"
    "  --rates   also compare link width and speed\n"
    "  --json    counts and the first differences as one JSON object: identical,\n"
    "            nodes_only_a, nodes_only_b, nodes_changed, ports_changed, ports_relinked,\n"
    "            differences, examples\n"
    "\n"
    "exit status: 0 identical, 3 different, 1 failed (unreadable input), 2 bad usage\n"
    "\n"
    "example:\n"
    "  ibnetdiscover > found.topo && cloudsm topo diff planned.topo found.topo\n";

enum { EXIT_DIFFERENT = 3 };

static int topo_diff(int argc, char **argv)
{
    const char *who = argv[0];
    struct cs_fabric_diff_options dopt = {false, false};
    bool as_json = false;
    static const struct option options[] = {
        {"lids", no_argument, NULL, 'l'},
        {"rates", no_argument, NULL, 'r'},
        {"json", no_argument, NULL, 'j'},
        {NULL, 0, NULL, 0},
    };
    int opt;
    while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (opt) {
        case 'l':
            dopt.lids = true;
            break;
        case 'r':
            dopt.rates = true;
            break;
        case 'j':
            as_json = true;
            break;
        default:
            return cli_usage(who, "unknown option");
        }
    }
    if (argc - optind != 2)
        return cli_usage(who, "wants two topology files: A B");

    struct cs_error err;
    struct cs_fabric a, b;
    struct cs_fabric_diff d;
    cs_fabric_init(&a);
    cs_fabric_init(&b);
    int rc;
    if (cs_topo_read(&a, argv[optind], &err) < 0 || cs_topo_read(&b, argv[optind + 1], &err) < 0 ||
        cs_fabric_diff(&a, &b, &dopt, &d, &err) < 0) {
        rc = cli_fail(who, &err);
    } else {
        rc = d.differences ? EXIT_DIFFERENT : EXIT_OK;
        if (as_json) {
            struct cs_json j;
            cs_json_init(&j, stdout);
            cs_json_object_begin(&j, NULL);
            cs_json_bool(&j, "identical", d.differences == 0);
            cs_json_u64(&j, "nodes_only_a", d.nodes_only_a);
            cs_json_u64(&j, "nodes_only_b", d.nodes_only_b);
            cs_json_u64(&j, "nodes_changed", d.nodes_changed);
            cs_json_u64(&j, "ports_changed", d.ports_changed);
            cs_json_u64(&j, "ports_relinked", d.ports_relinked);
            cs_json_u64(&j, "differences", d.differences);
            cs_json_array_begin(&j, "examples");
            for (uint32_t i = 0; i < d.num_examples; i++)
                cs_json_str(&j, NULL, d.examples[i]);
            cs_json_array_end(&j);
            cs_json_object_end(&j);
            cs_json_finish(&j);
        } else if (!d.differences) {
            printf("identical: %u nodes, %u port slots\n", a.num_nodes, a.num_port_slots);
        } else {
            printf("%u differences: %u nodes only in A, %u only in B, %u nodes changed, "
                   "%u ports changed, %u ports cabled differently\n",
                   d.differences, d.nodes_only_a, d.nodes_only_b, d.nodes_changed, d.ports_changed,
                   d.ports_relinked);
            for (uint32_t i = 0; i < d.num_examples; i++)
                printf("  %s\n", d.examples[i]);
            if (d.differences > d.num_examples)
                printf("  ... and %u more\n", d.differences - d.num_examples);
        }
    }
    cs_fabric_free(&a);
    cs_fabric_free(&b);
    return rc;
}

/* ---- topo mutate ---- */

static const char mutate_help[] =
    "usage: cloudsm topo mutate TOPOLOGY [--unlink N] [--shuffle-hosts] [--shutdown-hosts N]\n"
    "                           [--guid2lid FILE] [--seed S] [-o OUT]\n"
    "\n"
    "Damage or disorder a topology on purpose, repeatably (same seed, same result), to test\n"
    "how routing copes: cut cables, cable the hosts of every leaf in a random port order,\n"
    "shut hosts down. Mutating the result again with another seed adds to the damage: a\n"
    "sequence of failures, one step per run.\n"
    "\n"
    "  --unlink N          cut N switch-to-switch cables chosen at random\n"
    "  --shuffle-hosts     on every switch, permute which of its host-facing ports each host\n"
    "                      is cabled to (OpenSM's ftree routes hosts in leaf port order)\n"
    "  --shutdown-hosts N  remove N CA nodes chosen at random, with their cables (the fabric\n"
    "                      ibnetdiscover sees once they are down); every other port keeps\n"
    "                      its LID: ports without one get cloudsm's (topo lids) first, so\n"
    "                      the output always carries LIDs\n"
    "  --guid2lid FILE     LIDs from OpenSM's guid2lid file, written into the output\n"
    "  --seed S            random seed (default 1)\n"
    "  -o, --output OUT    write here (atomically) instead of standard output\n"
    "\n"
    "Done in this order: cut, shuffle, shut down.\n"
    "\n"
    "examples:\n"
    "  cloudsm topo gen kary 4 3 | cloudsm topo mutate /dev/stdin --unlink 2 --seed 7 -o "
    "cut.topo\n"
    "  cloudsm topo mutate k16.topo --shutdown-hosts 1 --seed 1 -o down1.topo\n"
    "  cloudsm topo mutate down1.topo --shutdown-hosts 1 --seed 2 -o down2.topo  # a second\n";

static int topo_mutate(int argc, char **argv)
{
    const char *who = argv[0];
    const char *output = NULL, *guid2lid = NULL;
    struct cs_mutation m = {.seed = 1};
    static const struct option options[] = {
        {"unlink", required_argument, NULL, 'u'},
        {"shuffle-hosts", no_argument, NULL, 's'},
        {"shutdown-hosts", required_argument, NULL, 'd'},
        {"guid2lid", required_argument, NULL, 'g'},
        {"seed", required_argument, NULL, 'S'},
        {"output", required_argument, NULL, 'o'},
        {NULL, 0, NULL, 0},
    };
    int opt;
    unsigned value;
    while ((opt = getopt_long(argc, argv, "o:", options, NULL)) != -1) {
        switch (opt) {
        case 'u':
            if (!cli_parse_uint(optarg, 0, UINT32_MAX - 1, &value))
                return cli_usage(who, "--unlink wants a count, not '%s'", optarg);
            m.unlink_switch_links = value;
            break;
        case 's':
            m.shuffle_host_ports = true;
            break;
        case 'd':
            if (!cli_parse_uint(optarg, 0, UINT32_MAX - 1, &value))
                return cli_usage(who, "--shutdown-hosts wants a count, not '%s'", optarg);
            m.shutdown_hosts = value;
            break;
        case 'g':
            guid2lid = optarg;
            break;
        case 'S':
            if (!cli_parse_uint(optarg, 0, UINT32_MAX - 1, &value))
                return cli_usage(who, "--seed wants a number, not '%s'", optarg);
            m.seed = value;
            break;
        case 'o':
            output = optarg;
            break;
        default:
            return cli_usage(who, "unknown option");
        }
    }
    if (argc - optind != 1)
        return cli_usage(who, "wants exactly one topology file");

    struct cs_error err;
    struct cs_fabric f;
    cs_fabric_init(&f);
    int rc = EXIT_OK;
    if (cs_topo_read(&f, argv[optind], &err) < 0 ||
        (guid2lid && apply_guid2lid_file(&f, guid2lid, &err) < 0) ||
        cs_fabric_mutate(&f, &m, &err) < 0 ||
        (output ? cs_topo_write_file(output, &f, &err) : cs_topo_write(stdout, &f, &err)) < 0)
        rc = cli_fail(who, &err);
    cs_fabric_free(&f);
    return rc;
}

const struct cli_command cli_topo_commands[] = {
    {"topo", "gen", "generate a fat-tree (k-ary-n-tree, XGFT, PGFT, vSwitch, presets)", gen_help,
     topo_gen},
    {"topo", "info", "summarize a topology file", info_help, topo_info},
    {"topo", "lids", "assign LIDs, write OpenSM's guid2lid", lids_help, topo_lids},
    {"topo", "diff", "compare two topologies by GUID", diff_help, topo_diff},
    {"topo", "mutate", "cut cables, shuffle host cabling, shut hosts down; seeded", mutate_help,
     topo_mutate},
    {"topo", NULL, NULL, NULL, NULL},
};
