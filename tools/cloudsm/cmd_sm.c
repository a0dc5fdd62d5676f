/* cloudsm sm: ask a running cloudsmd through its control socket (include/cloudsm/sm_control.h).
 *
 * The daemon formats every answer (text or JSON); this side checks the command line with the
 * same parser the daemon uses, so that a typo is a usage error before anything connects, sends
 * one request, turns the status line into the exit code and copies the body out. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cloudsm/atomic_file.h"
#include "cloudsm/sm_config.h"
#include "cloudsm/sm_control.h"

static const char status_help[] =
    "usage: cloudsm sm status [options]\n"
    "\n"
    "What the running subnet manager is doing: its state (master), its port (GUID, LID),\n"
    "uptime, the last sweep (when, how long, SMPs sent), the fabric it holds (nodes,\n"
    "switches, CAs, links), the routing engine in use (and the fallback, if it fell back),\n"
    "and how many sweeps it has done.\n"
    "\n" CLI_CONTROL_OPTIONS_HELP "\n"
    "examples:\n"
    "  cloudsm sm status\n"
    "  cloudsm sm status --json | jq .last_sweep\n"
    "  cloudsm sm status --state-dir ./state      # a cloudsmd run with -d ./state (ibsim)\n";

static const char topology_help[] =
    "usage: cloudsm sm topology [options]\n"
    "\n"
    "A summary of the fabric as the SM swept it, like `cloudsm topo info` on a topology\n"
    "file: nodes, switches and CAs, links, ports by width and speed, switch levels.\n"
    "\n" CLI_CONTROL_OPTIONS_HELP "\n"
    "example:\n"
    "  cloudsm sm topology --json\n";

static const char lfts_help[] =
    "usage: cloudsm sm lfts [options]\n"
    "\n"
    "The linear forwarding tables cloudsmd holds (what it programmed into the switches), in\n"
    "OpenSM's opensm-lfts.dump format: `cloudsm lft check` verifies it, `opensm -R file -U`\n"
    "loads it, and it compares with `dump_fts` output. Large fabrics give large dumps\n"
    "(tens of MB): cloudsmd drops a reader that stops reading for 2 s, so write to a file\n"
    "with -o rather than into a pager.\n"
    "\n" CLI_CONTROL_OPTIONS_HELP "\n"
    "examples:\n"
    "  cloudsm sm lfts -o live.lfts\n"
    "  cloudsm lft check fabric.topo live.lfts\n";

static const char reroute_help[] =
    "usage: cloudsm sm reroute ENGINE [--subtree NODES] [--order FILE] [options]\n"
    "\n"
    "Route the fabric again now with ENGINE and program only the LFT blocks that differ\n"
    "from what the switches hold. The answer says which engine routed (ftree falls back\n"
    "to minhop on a fabric that is not a fat-tree), how many routes and LFT entries\n"
    "changed, the blocks sent, and the phases' times (build, route, distribute). The\n"
    "engine stays in use until the next reroute or restart; sweeps after a fault use\n"
    "reconfig_engine if the configuration sets one.\n"
    "\n"
    "  --subtree NODES  fast hybrid reconfiguration: re-route only the sub-tree of the\n"
    "                   nodes' common ancestor (every node on its leaves, inside it;\n"
    "                   only its switches are written; docs/routing/hybrid.md). NODES:\n"
    "                   port or node GUIDs of CAs, comma-separated, at most 13 (two on\n"
    "                   leaves at the sub-tree's corners are enough)\n"
    "  --order FILE     a node order (port GUIDs, one per line) for engines that take one\n"
    "                   (noftree, mftree); kept with the engine until the next reroute\n"
    "\n"
    "engines:\n"
    "@ENGINES@\n"
    "\n" CLI_CONTROL_OPTIONS_HELP "\n"
    "examples:\n"
    "  cloudsm sm reroute slimupdate --json\n"
    "  cloudsm sm reroute noftree --subtree 0x0010000000000001,0x0010000000000301 \\\n"
    "      --order hot.guids\n";

static const char log_level_help[] =
    "usage: cloudsm sm log-level LEVEL [options]\n"
    "\n"
    "Change cloudsmd's log level now, without a restart: error, warn, info or debug (as\n"
    "cloudsmd --log-level). Until cloudsmd restarts; the configuration file is not changed.\n"
    "\n" CLI_CONTROL_OPTIONS_HELP "\n"
    "example:\n"
    "  cloudsm sm log-level debug     # then: tail -f /var/log/cloudsmd.log\n";

static const char sweep_help[] =
    "usage: cloudsm sm sweep [on|off] [options]\n"
    "\n"
    "Without an argument, a heavy sweep now: discover the whole fabric again, give new ports\n"
    "LIDs, re-route if it changed and program the differences. The answer comes when the\n"
    "sweep is done and says what it found and sent.\n"
    "\n"
    "With off, cloudsmd stops its periodic light sweeps (every sweep_interval seconds) from now\n"
    "on, as OpenSM's console `sweep off`; traps and `cloudsm sm resweep` still sweep. on starts\n"
    "them again. Until cloudsmd restarts. The answer says whether they were on.\n"
    "\n" CLI_CONTROL_OPTIONS_HELP "\n"
    "examples:\n"
    "  cloudsm sm sweep && cloudsm sm status\n"
    "  cloudsm sm sweep off      # maintenance: no periodic sweeps until `sweep on`\n";

static const char priority_help[] =
    "usage: cloudsm sm priority [N] [options]\n"
    "\n"
    "The SM priority cloudsmd answers SMInfo with (what other SMs' elections and `sminfo`\n"
    "see), as OpenSM's console `priority`. With N (0..15), that priority from now on, until\n"
    "a SIGHUP or restart sets sm_priority from the configuration again.\n"
    "\n" CLI_CONTROL_OPTIONS_HELP "\n"
    "examples:\n"
    "  cloudsm sm priority\n"
    "  cloudsm sm priority 15 --json\n";

static const char resweep_help[] =
    "usage: cloudsm sm resweep light|heavy [options]\n"
    "\n"
    "A sweep now, as OpenSM's console `resweep`. light: ask every switch whether a port\n"
    "changed (SwitchInfo's PortStateChange), and sweep heavy if one did; heavy: discover the\n"
    "whole fabric again, route and program what differs. The answer comes when the sweep is\n"
    "done: the switches the light sweep found changed, whether a heavy sweep ran, its nodes\n"
    "and failures.\n"
    "\n" CLI_CONTROL_OPTIONS_HELP "\n"
    "example:\n"
    "  cloudsm sm resweep light --json\n";

static const char querylid_help[] =
    "usage: cloudsm sm querylid LID [options]\n"
    "\n"
    "What cloudsmd knows of the port that holds LID (a CA or router port, or a switch's port\n"
    "0), as OpenSM's console `querylid`: the port GUID, node GUID, node description and type,\n"
    "the number of ports, and for each port of the node its state (port and physical), width,\n"
    "speed and neighbour (node GUID, port, description). LID is decimal or 0x hex.\n"
    "\n" CLI_CONTROL_OPTIONS_HELP "\n"
    "examples:\n"
    "  cloudsm sm querylid 1\n"
    "  cloudsm sm querylid 0x1f --json | jq '.ports[] | {port, state, neighbour}'\n";

static const char portstatus_help[] =
    "usage: cloudsm sm portstatus [ca|switch|router] [options]\n"
    "\n"
    "The ports of the fabric as the last heavy sweep read them, laid out as OpenSM's console\n"
    "`portstatus`: the ports and nodes counted (every switch port 1..N, every CA port the\n"
    "sweep arrived on; only nodes of one type if given), how many are down, init, armed and\n"
    "active, the ports that are not down by width (1X, 4X, ...) and by lane speed (2.5 Gbps\n"
    "for SDR up to 25.78125 Gbps for EDR, ...), and then the ports that look wrong: disabled,\n"
    "a width or speed below the widest enabled one (reduced), none of the enabled ones\n"
    "(unenabled) or not known, each with its node GUID, port and description.\n"
    "\n" CLI_CONTROL_OPTIONS_HELP "\n"
    "examples:\n"
    "  cloudsm sm portstatus\n"
    "  cloudsm sm portstatus switch --json | jq .issues\n";

static const char lidbalance_help[] =
    "usage: cloudsm sm lidbalance [SWITCH_GUID] [options]\n"
    "\n"
    "For every switch (or the one with node GUID SWITCH_GUID), how many CA and router LIDs\n"
    "its forwarding table sends out of each port, from the tables cloudsmd routed. The text is\n"
    "OpenSM's console `switchbalance verbose`: a line per switch, \"Unbalanced\" when the\n"
    "ports towards other switches carry more than one LID more or less than each other, then\n"
    "those ports with their LIDs. --json gives every port, with min and max per switch.\n"
    "(OpenSM's `lidbalance` checks how the several LIDs of one port with LMC > 0 spread over\n"
    "the ports; cloudsm gives every port one LID, so that report would be empty.)\n"
    "\n" CLI_CONTROL_OPTIONS_HELP "\n"
    "examples:\n"
    "  cloudsm sm lidbalance | grep -A8 Unbalanced\n"
    "  cloudsm sm lidbalance 0x0020000100000000 --json\n";

int cli_control_command(const char *who, const char *prefix)
{
    const char *name = strchr(who, ' ');
    name = name ? name + 1 : who;
    size_t plen = strlen(prefix);
    for (int c = 0; c < CS_SM_CMD_COUNT; c++)
        if (strncmp(cs_sm_commands[c].name, prefix, plen) == 0 &&
            strcmp(cs_sm_commands[c].name + plen, name) == 0)
            return c;
    return -1;
}

int cli_control_build(const char *who, int command, int argc, char **argv, bool json,
                      struct cs_sm_request *req)
{
    if (command < 0 || command >= CS_SM_CMD_COUNT) /* a subcommand cli_control_command missed */
        return cli_usage(who, "is not a cloudsmd command");
    char line[CS_SM_REQUEST_MAX];
    size_t used = (size_t)snprintf(line, sizeof line, "%s", cs_sm_commands[command].name);
    for (int i = 0; i < argc; i++) {
        size_t len = strlen(argv[i]);
        if (used + 1 + len >= sizeof line)
            return cli_usage(who, "arguments longer than %d bytes", CS_SM_REQUEST_MAX - 1);
        line[used++] = ' ';
        memcpy(line + used, argv[i], len + 1);
        used += len;
    }
    struct cs_error err;
    if (cs_sm_request_parse(req, line, used, &err) < 0)
        return cli_usage(who, "%s", err.msg);
    req->json = json;
    return EXIT_OK;
}

static int copy_reply(const char *who, struct cs_sm_control_client *cl, const char *output)
{
    struct cs_error err;
    if (!output) {
        if (cs_sm_control_client_body(cl, stdout, &err) < 0)
            return cli_fail(who, &err);
        return EXIT_OK;
    }
    struct cs_atomic_file af;
    if (cs_atomic_open(&af, output, &err) < 0)
        return cli_fail(who, &err);
    if (cs_sm_control_client_body(cl, af.fp, &err) < 0) {
        cs_atomic_abort(&af);
        return cli_fail(who, &err);
    }
    if (cs_atomic_commit(&af, &err) < 0)
        return cli_fail(who, &err);
    return EXIT_OK;
}

int cli_control_request(const char *who, const struct cli_control *o,
                        const struct cs_sm_request *req)
{
    struct cs_error err;
    char path[CS_SM_CONTROL_PATH_MAX];
    const char *socket_path = o->socket_path;
    if (!socket_path) {
        char dir[CS_SM_CONFIG_PATH_MAX];
        if (cli_state_dir(o->state_dir, o->config_path, dir, sizeof dir, &err) < 0 ||
            cs_sm_control_path(dir, path, sizeof path, &err) < 0)
            return cli_fail(who, &err);
        socket_path = path;
    }
    struct cs_sm_control_client cl;
    int timeout_ms = o->timeout_s ? (int)o->timeout_s * 1000 : -1;
    if (cs_sm_control_call(&cl, socket_path, req, timeout_ms, &err) < 0) {
        cs_sm_control_client_close(&cl);
        return cli_fail(who, &err);
    }
    int rc;
    if (!cl.ok) {
        fprintf(stderr, "cloudsm %s: %s\n", who, cl.message);
        rc = EXIT_FAILED;
    } else {
        rc = copy_reply(who, &cl, o->output);
    }
    cs_sm_control_client_close(&cl);
    return rc;
}

/* One of the control options: 1 (*rc set if its value is bad), 0 when it is not one. */
static int control_option(struct cli_control *o, int opt, const char *who, int *rc)
{
    switch (opt) {
    case CLI_CONTROL_OPT_SOCKET:
        o->socket_path = optarg;
        return 1;
    case 'd':
        o->state_dir = optarg;
        return 1;
    case 'c':
        o->config_path = optarg;
        return 1;
    case CLI_CONTROL_OPT_JSON:
        o->json = true;
        return 1;
    case 'o':
        o->output = optarg;
        return 1;
    case CLI_CONTROL_OPT_TIMEOUT:
        if (!cli_parse_uint(optarg, 0, 86400, &o->timeout_s))
            *rc = cli_usage(who, "--timeout wants seconds, 0 to 86400, not '%s'", optarg);
        return 1;
    }
    return 0;
}

int cli_control_getopt(int argc, char **argv, const struct option *options, struct cli_control *o,
                       const char *who, int *rc)
{
    opterr = 0;
    for (;;) {
        int opt = getopt_long(argc, argv, ":" CLI_CONTROL_SHORT_OPTIONS, options, NULL);
        if (opt == -1)
            return -1;
        if (control_option(o, opt, who, rc)) {
            if (*rc != EXIT_OK)
                return CLI_CONTROL_BAD;
            continue;
        }
        if (opt == ':') {
            *rc = cli_usage(who, "option '%s' needs a value", argv[optind - 1]);
            return CLI_CONTROL_BAD;
        }
        if (opt == '?') {
            *rc = cli_usage(who, "unknown option '%s'", argv[optind - 1]);
            return CLI_CONTROL_BAD;
        }
        return opt;
    }
}

int cli_state_dir(const char *dir, const char *config, char *buf, size_t size, struct cs_error *err)
{
    if (!dir && config) {
        struct cs_sm_config *c = malloc(sizeof *c); /* 40 KB of paths: not on the stack */
        if (!c)
            return cs_fail(err, "out of memory");
        int rc = cs_sm_config_read(c, config, NULL, err);
        if (rc == 0)
            snprintf(buf, size, "%s", c->state_dir);
        free(c);
        return rc;
    }
    snprintf(buf, size, "%s", dir ? dir : CS_SM_CONFIG_DEFAULT_STATE_DIR);
    return 0;
}

int cli_control_check(const struct cli_control *o, const char *who)
{
    if (!!o->socket_path + !!o->state_dir + !!o->config_path > 1)
        return cli_usage(who, "give one of --socket, --state-dir and --config");
    return EXIT_OK;
}

static int sm_main(int argc, char **argv)
{
    const char *who = argv[0];
    struct cli_control o = CLI_CONTROL_DEFAULTS;
    static const struct option options[] = {CLI_CONTROL_LONG_OPTIONS, {NULL, 0, NULL, 0}};
    int rc = EXIT_OK;
    if (cli_control_getopt(argc, argv, options, &o, who, &rc) == CLI_CONTROL_BAD)
        return rc;
    if ((rc = cli_control_check(&o, who)) != EXIT_OK)
        return rc;
    struct cs_sm_request req;
    rc = cli_control_build(who, cli_control_command(who, ""), argc - optind, argv + optind, o.json,
                           &req);
    if (rc != EXIT_OK)
        return rc;
    return cli_control_request(who, &o, &req);
}

/* reroute: --subtree and --order become the request's subtree= and order= (an absolute path:
 * the daemon's working directory is not ours). */
static int reroute_main(int argc, char **argv)
{
    const char *who = argv[0];
    struct cli_control o = CLI_CONTROL_DEFAULTS;
    enum { OPT_SUBTREE = 0x200, OPT_ORDER };
    static const struct option options[] = {CLI_CONTROL_LONG_OPTIONS,
                                            {"subtree", required_argument, NULL, OPT_SUBTREE},
                                            {"order", required_argument, NULL, OPT_ORDER},
                                            {NULL, 0, NULL, 0}};
    const char *subtree = NULL, *order = NULL;
    int opt, rc = EXIT_OK;
    while ((opt = cli_control_getopt(argc, argv, options, &o, who, &rc)) >= 0) {
        if (opt == OPT_SUBTREE)
            subtree = optarg;
        else
            order = optarg;
    }
    if (opt == CLI_CONTROL_BAD || (rc = cli_control_check(&o, who)) != EXIT_OK)
        return rc;
    char subtree_arg[CS_SM_REQUEST_ARG_MAX + 16], order_arg[PATH_MAX + 8];
    char *args[CS_SM_REQUEST_MAX_ARGS];
    int n = 0;
    for (int i = optind; i < argc && n < CS_SM_REQUEST_MAX_ARGS - 2; i++)
        args[n++] = argv[i];
    if (subtree) {
        snprintf(subtree_arg, sizeof subtree_arg, "subtree=%.*s", CS_SM_REQUEST_ARG_MAX, subtree);
        args[n++] = subtree_arg;
    }
    if (order) {
        char resolved[PATH_MAX];
        if (!realpath(order, resolved))
            return cli_usage(who, "--order %s: %s", order, strerror(errno));
        snprintf(order_arg, sizeof order_arg, "order=%s", resolved);
        args[n++] = order_arg;
    }
    struct cs_sm_request req;
    rc = cli_control_build(who, cli_control_command(who, ""), n, args, o.json, &req);
    if (rc != EXIT_OK)
        return rc;
    return cli_control_request(who, &o, &req);
}

static const char adapt_help[] =
    "usage: cloudsm sm adapt [on|off|dry-run] [options]\n"
    "\n"
    "The adaptation loop of the running cloudsmd: its mode and where the mode comes from, the\n"
    "rules file, the counter polls, how many rules fired and how many of their decisions were\n"
    "carried out, the LFT SMPs adaptations sent in the last hour, and each rule's status at the\n"
    "last step (false, holding, fired, in cooldown, undefined) with the values it saw.\n"
    "\n"
    "With a mode, the loop runs in it from now on (until cloudsmd restarts, or a SIGHUP that\n"
    "changes adapt_mode): off is the kill switch (rules are not evaluated, nothing is sent),\n"
    "dry-run decides and records every decision without sending anything, on carries them out.\n"
    "Each decision is an 'adapt' event in the monitoring store (cloudsm sm events --kind adapt).\n"
    "\n" CLI_CONTROL_OPTIONS_HELP "\n"
    "examples:\n"
    "  cloudsm sm adapt\n"
    "  cloudsm sm adapt off                  # stop adapting now\n"
    "  cloudsm sm adapt --json | jq '.rules[] | {name, status}'\n";

const struct cli_command cli_sm_commands[] = {
    {"sm", "status", "ask the running cloudsmd: state, port, last sweep, fabric, routing",
     status_help, sm_main},
    {"sm", "topology", "the fabric cloudsmd swept, summarised", topology_help, sm_main},
    {"sm", "lfts", "the LFTs cloudsmd programmed (opensm-lfts.dump)", lfts_help, sm_main},
    {"sm", "reroute",
     "route again now with an engine (a sub-tree, an order); program the differences", reroute_help,
     reroute_main},
    {"sm", "log-level", "change cloudsmd's log level now", log_level_help, sm_main},
    {"sm", "sweep", "a heavy sweep now; on|off: periodic light sweeps", sweep_help, sm_main},
    {"sm", "priority", "show or set the SM priority (SMInfo's)", priority_help, sm_main},
    {"sm", "resweep", "a light or heavy sweep now", resweep_help, sm_main},
    {"sm", "querylid", "what cloudsmd knows of the port with a LID", querylid_help, sm_main},
    {"sm", "portstatus", "ports by state, width and speed; the odd ones", portstatus_help, sm_main},
    {"sm", "lidbalance", "per switch, the CA LIDs routed out of each port", lidbalance_help,
     sm_main},
    {"sm", "adapt", "the adaptation loop: mode, rules, decisions; on, off or dry-run", adapt_help,
     sm_main},
    {"sm", "counters", "the port rates cloudsmd stored (read from its monitoring store)",
     cli_sm_counters_help, cli_sm_counters},
    {"sm", "events", "the fabric's events cloudsmd stored: sweeps, faults, adaptations",
     cli_sm_events_help, cli_sm_events},
    {"sm", NULL, NULL, NULL, NULL},
};
