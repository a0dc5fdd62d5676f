/* cloudsmd's command line (options.h). */
#include "options.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/route.h"

enum {
    OPT_MAX_OUTSTANDING = 256,
    OPT_TIMEOUT,
    OPT_RETRIES,
    OPT_LOG_LEVEL,
    OPT_ROOT_GUIDS,
    OPT_CN_GUIDS,
    OPT_NODE_ORDER,
    OPT_NODE_WEIGHTS,
    OPT_DUMP_CONFIG,
    OPT_VERSION,
    OPT_PID_FILE,
};

static const struct option long_options[] = {
    {"config", required_argument, NULL, 'c'},
    {"once", no_argument, NULL, 'o'},
    {"routing-engine", required_argument, NULL, 'R'},
    {"port-guid", required_argument, NULL, 'g'},
    {"priority", required_argument, NULL, 'p'},
    {"state-dir", required_argument, NULL, 'd'},
    {"max-outstanding", required_argument, NULL, OPT_MAX_OUTSTANDING},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"retries", required_argument, NULL, OPT_RETRIES},
    {"log-level", required_argument, NULL, OPT_LOG_LEVEL},
    {"log-file", required_argument, NULL, 'f'},
    {"root-guids", required_argument, NULL, OPT_ROOT_GUIDS},
    {"cn-guids", required_argument, NULL, OPT_CN_GUIDS},
    {"node-order", required_argument, NULL, OPT_NODE_ORDER},
    {"node-weights", required_argument, NULL, OPT_NODE_WEIGHTS},
    {"connect-roots", no_argument, NULL, 'z'},
    {"reassign-lids", no_argument, NULL, 'r'},
    {"dump-config", no_argument, NULL, OPT_DUMP_CONFIG},
    {"daemon", no_argument, NULL, 'B'},
    {"pid-file", required_argument, NULL, OPT_PID_FILE},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0},
};

/* ':' first: a missing value comes back as ':' so that we word the message ourselves. */
static const char short_options[] = ":c:oBR:g:p:d:f:zrh";

/* A flag that sets a configuration key: the key, and the flag's name for messages. */
struct flag_key {
    int option;
    const char *flag;
    const char *key;
    const char *fixed_value; /* for a flag without a value: what it sets the key to */
};

static const struct flag_key flag_keys[] = {
    {'R', "--routing-engine", "routing_engine", NULL},
    {'g', "--port-guid", "guid", NULL},
    {'p', "--priority", "sm_priority", NULL},
    {'d', "--state-dir", "state_dir", NULL},
    {OPT_MAX_OUTSTANDING, "--max-outstanding", "max_wire_smps", NULL},
    {OPT_TIMEOUT, "--timeout", "transaction_timeout", NULL},
    {OPT_RETRIES, "--retries", "transaction_retries", NULL},
    {OPT_LOG_LEVEL, "--log-level", "log_level", NULL},
    {'f', "--log-file", "log_file", NULL},
    {OPT_ROOT_GUIDS, "--root-guids", "root_guid_file", NULL},
    {OPT_CN_GUIDS, "--cn-guids", "cn_guid_file", NULL},
    {OPT_NODE_ORDER, "--node-order", "node_order_file", NULL},
    {OPT_NODE_WEIGHTS, "--node-weights", "node_weights_file", NULL},
    {'z', "--connect-roots", "connect_roots", "TRUE"},
    {'r', "--reassign-lids", "reassign_lids", "TRUE"},
};

static const struct flag_key *find_flag(int option)
{
    for (size_t i = 0; i < sizeof flag_keys / sizeof flag_keys[0]; i++)
        if (flag_keys[i].option == option)
            return &flag_keys[i];
    return NULL;
}

/* A flag as given, applied after the file. */
struct flag_setting {
    const struct flag_key *flag;
    const char *value;
};

void cloudsmd_print_help(FILE *out)
{
    struct cs_sm_config d;
    cs_sm_config_defaults(&d);
    char engines[128] = "";
    size_t used = 0;
    for (const struct cs_route_engine *e = cs_route_engines; e->name; e++)
        used += (size_t)snprintf(engines + used, sizeof engines - used, "%s%s", used ? ", " : "",
                                 e->name);
    fprintf(out,
            "usage: cloudsmd [options]\n"
            "\n"
            "cloudsmd is cloudsm's InfiniBand subnet manager. From a port of this host it\n"
            "discovers the fabric with directed-route SMPs, gives every port a LID (keeping\n"
            "those in STATE_DIR/guid2lid, OpenSM's format), computes the forwarding tables\n"
            "with a cloudsm routing engine, programs the switches (only the 64-LID blocks\n"
            "that differ from what they hold), programs P_Key tables from partitions.conf,\n"
            "brings the ports to ACTIVE and runs as the master SM. With -o it then exits.\n"
            "Otherwise it answers SA queries (saquery works), sweeps every sweep_interval\n"
            "seconds and on traps, re-programs what changed, and takes orders on\n"
            "STATE_DIR/cloudsmd.sock (`cloudsm sm status|lfts|reroute|sweep|...`). When\n"
            "another SM is master or takes precedence (a higher priority, or the same one\n"
            "and a lower port GUID) it stands by: it polls the master every\n"
            "sminfo_polling_timeout ms and takes over when the master is gone or hands\n"
            "over (with -o it exits, status 1, instead).\n"
            "\n"
            "Options (a flag wins over the configuration file, wherever it appears):\n"
            "  -c, --config FILE          settings in opensm.conf syntax (default: none)\n"
            "  -o, --once                 route once and exit, like opensm -o\n"
            "  -R, --routing-engine NAME  %s (default %s; ftree falls\n"
            "                             back to minhop on a fabric that is not a fat-tree)\n"
            "  -g, --port-guid GUID       port to run on (default 0: the first active port)\n"
            "  -p, --priority N           SM priority 0..15 (default %u)\n"
            "  -d, --state-dir DIR        state kept across restarts, guid2lid (default\n"
            "                             %s)\n"
            "      --max-outstanding N    SMPs in flight 1..%u (default %u; OpenSM's is 4)\n"
            "      --timeout MS           wait for an SMP reply before resending (default %u)\n"
            "      --retries N            resends of an unanswered SMP 0..%u (default %u)\n"
            "      --root-guids FILE      root switch node GUIDs, one per line (default: "
            "detect)\n"
            "      --cn-guids FILE        compute node port GUIDs (default: every CA port)\n"
            "      --node-order FILE      noftree's node order: port GUIDs, most important\n"
            "                             first (default: none)\n"
            "      --node-weights FILE    node weights for wftree and pftree: port GUID and\n"
            "                             weight per line (default: every node weighs 1)\n"
            "  -z, --connect-roots        route root switches' LIDs between roots too\n"
            "  -r, --reassign-lids        forget guid2lid and the LIDs ports hold: number\n"
            "                             every port afresh (OpenSM -r)\n"
            "      --log-level LEVEL      error, warn, info or debug (default %s)\n"
            "  -f, --log-file FILE        append the log to FILE (default: standard error)\n"
            "  -B, --daemon               run in the background, as opensm -B: exits 0 once\n"
            "                             cloudsmd serves (1 if it fails first); give -f\n"
            "      --pid-file FILE        write the daemon's pid to FILE (removed at exit)\n"
            "      --dump-config          print the effective configuration (defaults, file,\n"
            "                             flags) in configuration file syntax and exit\n"
            "  -h, --help                 this text\n"
            "      --version              print the version\n"
            "\n"
            "Configuration file: one `key value` per line, `#` comments, OpenSM's key names\n"
            "(guid, routing_engine, sm_priority, subnet_prefix, m_key, m_key_lease_period,\n"
            "max_wire_smps, transaction_timeout, transaction_retries, root_guid_file,\n"
            "cn_guid_file, log_file, lmc, sweep_interval, partition_config_file,\n"
            "part_enforce, sm_assigned_guid, ...) plus state_dir, log_level, node_order_file,\n"
            "node_weights_file, vm_state_file, subnet_supports_sa_path_caching and\n"
            "reconfig_engine (the engine sweeps re-route with once the subnet is up:\n"
            "slimupdate keeps the routes the switches hold). An\n"
            "existing opensm.conf works: OpenSM keys cloudsm does not use are ignored\n"
            "(each logged as a warning with FILE:LINE), but its `max_wire_smps 4` does\n"
            "slow cloudsmd down.\n"
            "`cloudsmd --dump-config` prints a complete file to start from.\n"
            "docs/sm/cloudsmd.md has the details.\n"
            "\n"
            "Files: partition_config_file, root_guid_file, cn_guid_file, node_order_file,\n"
            "node_weights_file, vm_state_file and (with qos TRUE) qos_policy_file are read\n"
            "and checked before the fabric is touched: a bad one is FILE:LINE and exit 1.\n"
            "A partitions.conf that does not exist means Default only, a missing\n"
            "qos-policy.conf no QoS policy, as in OpenSM.\n"
            "\n"
            "Signals: SIGTERM or SIGINT stop cloudsmd. SIGHUP reopens the log file, reads\n"
            "the configuration and its files again (flags still win) and applies what\n"
            "changed: partitions, routing, log level, sweep interval, ...; keys that need a\n"
            "restart (guid, state_dir, subnet_prefix, m_key, the SMP window and timeouts)\n"
            "keep their value, with a warning; a file that does not load is logged and\n"
            "the running configuration kept. SIGUSR1 reopens the log file only (logrotate).\n"
            "Neither ends cloudsmd in any phase (before it serves they wait for it), and\n"
            "SIGTERM during the first sweep stops it when the sweep is done.\n"
            "\n"
            "systemd: cloudsmd.service (Type=notify): READY=1 once cloudsmd serves, STATUS=\n"
            "lines, STOPPING=1 at stop, on $NOTIFY_SOCKET; with standard error on the\n"
            "journal ($JOURNAL_STREAM) log lines carry sd-daemon <N> levels, not times.\n"
            "\n"
            "Log: one line per event, `2026-11-22T05:31:02.123Z INFO  discover: ...`, with\n"
            "the time and SMPs of every phase.\n"
            "\n"
            "Example:\n"
            "  cloudsmd -o -R ftree --state-dir /var/lib/cloudsm\n"
            "\n"
            "On ibsim (no hardware), from a writable directory (umad2sim creates ./sys-PID):\n"
            "  IBSIM_SOCKNAME=sim1 ibsim -s -n fabric.net &\n"
            "  IBSIM_SOCKNAME=sim1 \\\n"
            "    LD_PRELOAD=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so \\\n"
            "    cloudsmd -o --state-dir ./state\n"
            "\n"
            "Exit status: %d ok, %d failed (no port, fabric or file error), %d bad usage.\n",
            engines, d.routing_engine, d.sm_priority, d.state_dir, CS_SMP_PIPE_MAX_WINDOW,
            d.smp_window, d.timeout_ms, CS_SM_CONFIG_MAX_RETRIES, d.retries,
            cs_log_level_name(d.log_level), EXIT_OK, EXIT_FAILED, EXIT_USAGE);
}

static int usage(FILE *err_out, const char *fmt, ...) CS_PRINTF(2, 3);
static int usage(FILE *err_out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(err_out, "cloudsmd: ");
    vfprintf(err_out, fmt, ap);
    va_end(ap);
    fprintf(err_out, "\n(see: cloudsmd --help)\n");
    return EXIT_USAGE;
}

/* --help and --version win over everything else on the line, even over mistakes. */
static int wants(int argc, char **argv, const char *const *names)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return 0;
        for (const char *const *n = names; *n; n++)
            if (strcmp(argv[i], *n) == 0)
                return 1;
    }
    return 0;
}

/* Apply the flags in command-line order. */
static int apply_flags(struct cs_sm_config *c, const struct flag_setting *flags, int count,
                       struct cs_sm_config_warnings *warnings, FILE *err_out)
{
    for (int i = 0; i < count; i++) {
        struct cs_error why;
        if (cs_sm_config_set(c, flags[i].flag->key, flags[i].value, warnings, &why) < 0)
            return usage(err_out, "%s: %s", flags[i].flag->flag, why.msg);
    }
    return EXIT_OK;
}

/* Print what the file did not use, for --dump-config (a running cloudsmd logs it instead). */
static void print_warnings(FILE *err_out, const struct cs_sm_config_warnings *w)
{
    for (uint32_t i = 0; i < w->count; i++)
        if (w->items[i].kind != CS_SM_CONFIG_OPENSM_KEY)
            fprintf(err_out, "cloudsmd: warning: %s\n", w->items[i].msg);
    uint32_t opensm = cs_sm_config_warnings_count(w, CS_SM_CONFIG_OPENSM_KEY);
    if (opensm)
        fprintf(err_out, "cloudsmd: note: %" PRIu32 " OpenSM options are not used by cloudsm\n",
                opensm);
}

static int parse(int argc, char **argv, struct cloudsmd_options *o, struct flag_setting *flags,
                 FILE *out, FILE *err_out)
{
    static const char *const help_names[] = {"-h", "--help", NULL};
    static const char *const version_names[] = {"--version", NULL};
    if (wants(argc, argv, help_names)) {
        cloudsmd_print_help(out);
        return CLOUDSMD_OPTIONS_HANDLED;
    }
    if (wants(argc, argv, version_names)) {
        fprintf(out, "cloudsmd %s\n", CLOUDSM_VERSION);
        return CLOUDSMD_OPTIONS_HANDLED;
    }

    int flag_count = 0;
    opterr = 0;
    optind = 0; /* glibc: start over, so that parsing twice (tests) works */
    for (;;) {
        int c = getopt_long(argc, argv, short_options, long_options, NULL);
        if (c == -1)
            break;
        const struct flag_key *fk = find_flag(c);
        if (fk) {
            flags[flag_count].flag = fk;
            flags[flag_count].value = fk->fixed_value ? fk->fixed_value : optarg;
            flag_count++;
            continue;
        }
        switch (c) {
        case 'c':
            if (strlen(optarg) >= sizeof o->config_path)
                return usage(err_out, "--config: the path is too long");
            snprintf(o->config_path, sizeof o->config_path, "%s", optarg);
            break;
        case 'o':
            o->once = true;
            break;
        case OPT_DUMP_CONFIG:
            o->dump_config = true;
            break;
        case 'B':
            o->daemon = true;
            break;
        case OPT_PID_FILE:
            if (strlen(optarg) >= sizeof o->pid_file || !optarg[0])
                return usage(err_out, "--pid-file: a path, shorter than %zu bytes",
                             sizeof o->pid_file);
            snprintf(o->pid_file, sizeof o->pid_file, "%s", optarg);
            break;
        default: {
            /* getopt's optopt is the option's value even for a long option: name a long option
             * by what was typed, a short one by its letter (it may sit in a cluster, "-ox"). */
            const char *typed = argv[optind - 1];
            bool long_form = strncmp(typed, "--", 2) == 0;
            if (c == ':')
                return long_form ? usage(err_out, "option '%s' needs a value", typed)
                                 : usage(err_out, "option '-%c' needs a value", optopt);
            if (long_form)
                return optopt ? usage(err_out, "option '%s' takes no value", typed)
                              : usage(err_out, "unknown option '%s'", typed);
            return usage(err_out, "unknown option '-%c'", optopt);
        }
        }
    }
    if (optind < argc)
        return usage(err_out, "unexpected argument '%s' (cloudsmd takes options only)",
                     argv[optind]);
    if (o->daemon && o->once)
        return usage(err_out, "--daemon and --once do not go together: -o runs in the "
                              "foreground and exits");

    /* Flags first against the defaults: a bad flag is bad usage whatever the file holds. */
    struct cs_sm_config *scratch = malloc(sizeof *scratch);
    if (!scratch) {
        fprintf(err_out, "cloudsmd: out of memory\n");
        return EXIT_FAILED;
    }
    cs_sm_config_defaults(scratch);
    int rc = apply_flags(scratch, flags, flag_count, NULL, err_out);
    free(scratch);
    if (rc != EXIT_OK)
        return rc;

    struct cs_error err;
    if (o->config_path[0] &&
        cs_sm_config_read(&o->config, o->config_path, &o->warnings, &err) < 0) {
        fprintf(err_out, "cloudsmd: %s\n", err.msg);
        return EXIT_FAILED;
    }
    rc = apply_flags(&o->config, flags, flag_count, &o->warnings, err_out);
    if (rc != EXIT_OK)
        return rc;

    if (o->dump_config) {
        print_warnings(err_out, &o->warnings);
        if (cs_sm_config_write(out, &o->config, &err) < 0) {
            fprintf(err_out, "cloudsmd: --dump-config: %s\n", err.msg);
            return EXIT_FAILED;
        }
        return CLOUDSMD_OPTIONS_HANDLED;
    }
    return EXIT_OK;
}

int cloudsmd_options_parse(int argc, char **argv, struct cloudsmd_options *o, FILE *out,
                           FILE *err_out)
{
    memset(o, 0, sizeof *o);
    cs_sm_config_defaults(&o->config);
    /* At most one setting per argument. */
    struct flag_setting *flags = calloc((size_t)(argc > 0 ? argc : 1), sizeof *flags);
    if (!flags) {
        fprintf(err_out, "cloudsmd: out of memory\n");
        return EXIT_FAILED;
    }
    int rc = parse(argc, argv, o, flags, out, err_out);
    free(flags);
    return rc;
}

void cloudsmd_options_free(struct cloudsmd_options *o)
{
    cs_sm_config_warnings_free(&o->warnings);
}

int cloudsmd_options_reparse(int argc, char **argv, struct cloudsmd_options *o,
                             struct cs_error *err)
{
    char *text = NULL;
    size_t len = 0;
    FILE *messages = open_memstream(&text, &len);
    if (!messages)
        return cs_fail(err, "out of memory reading the configuration");
    int rc = cloudsmd_options_parse(argc, argv, o, messages, messages);
    fclose(messages);
    if (rc != EXIT_OK) {
        const char *msg = text && strncmp(text, "cloudsmd: ", 10) == 0 ? text + 10 : text;
        size_t line = msg ? strcspn(msg, "\n") : 0;
        cs_fail(err, "%.*s", (int)(line < 1000 ? line : 1000), msg ? msg : "");
        cloudsmd_options_free(o);
    }
    free(text);
    return rc == EXIT_OK ? 0 : -1;
}
