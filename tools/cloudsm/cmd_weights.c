/* cloudsm weights learn: from two counter snapshots or from the monitoring store, one path from
 * the learned weights to the file. */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "cloudsm/counters.h"
#include "cloudsm/json.h"
#include "cloudsm/learn.h"
#include "cloudsm/lid.h"
#include "cloudsm/monitor.h"
#include "cloudsm/time_point.h"
#include "cloudsm/weights.h"

static const char learn_help[] =
    "usage: cloudsm weights learn BEFORE AFTER [-a A] [-b B] [--seconds S]\n"
    "                             [--guid2lid FILE] [-o FILE] [--json]\n"
    "       cloudsm weights learn --store FILE --since T [--until T] [-a A] [-b B]\n"
    "                             [-o FILE] [--json]\n"
    "\n"
    "Make a node-weights file (for the weighted fat-tree engines) from what the end ports\n"
    "received while the fabric carried its usual traffic: two snapshots of their receive data\n"
    "counters (PortRcvData) taken some time apart, or the rates cloudsmd keeps in its\n"
    "monitoring store over a window. Each port's weight is the min-max map of how much it\n"
    "received onto [A, B]:\n"
    "\n"
    "  W(x) = (x - min) * (B - A) / (max - min) + A, rounded to the nearest whole number\n"
    "         (halves up); if every port received the same, every weight is A\n"
    "\n"
    "A snapshot is `perfquery -x LID PORT` output for every end port, concatenated (records\n"
    "name ports by LID: --guid2lid maps them to port GUIDs), or a CSV of port_guid,rcv_data\n"
    "lines (docs/formats/weights.md). Both snapshots must count the same ports, and no counter\n"
    "may go down (a reset between the snapshots is an error naming the port).\n"
    "\n"
    "  -a A              lightest weight, for the port that received least (default 1)\n"
    "  -b B              heaviest weight, for the port that received most (default 100)\n"
    "  --seconds S       time between the snapshots: reports receive bandwidths (bytes/s)\n"
    "                    with --json; the weights do not depend on it\n"
    "  --guid2lid FILE   OpenSM's guid2lid file, for perfquery snapshots\n"
    "  -o, --output FILE write the weights here (atomically) instead of standard output\n"
    "  --store FILE      learn from the monitoring store (STATE_DIR/monitor.sqlite; read-only,\n"
    "                    works while cloudsmd runs) instead of snapshots: the bytes each CA\n"
    "                    port received in the window (its rcv_bytes rates times the seconds\n"
    "                    they cover); ports without data there are left out (they weigh 1)\n"
    "  --since T         the window's start: a duration back from now (30s, 5m, 2h, 1d), an\n"
    "                    ISO 8601 time with a zone (2026-11-27T08:00:00Z) or epoch seconds\n"
    "  --until T         the window's end, the same forms (default now)\n"
    "  --json            one JSON object on standard output: a, b, ports, rcv_data_min,\n"
    "                    rcv_data_max (counter increases, octets / 4), seconds and\n"
    "                    bytes_per_second_min/max with --seconds, and per_port [{guid,\n"
    "                    rcv_data, bytes_per_second, weight}]; from a store rcv_bytes_min,\n"
    "                    rcv_bytes_max and per_port rcv_bytes (bytes), seconds = the window\n"
    "\n"
    "examples:\n"
    "  cloudsm weights learn before.csv after.csv -o weights.txt\n"
    "  for lid in 3 4; do perfquery -x $lid 1; done > before.txt   # ... an hour later:\n"
    "  for lid in 3 4; do perfquery -x $lid 1; done > after.txt\n"
    "  cloudsm weights learn before.txt after.txt --guid2lid /var/cache/opensm/guid2lid \\\n"
    "      --seconds 3600 -o weights.txt --json\n"
    "  cloudsm weights learn --store /var/lib/cloudsm/monitor.sqlite --since 1d -o weights.txt\n";

/* What the amounts learned from are: counter increases (PortRcvData counts octets / 4) from
 * snapshots, or bytes from the store. */
struct amounts {
    const char *key; /* "rcv_data" or "rcv_bytes" */
    double bytes_per_unit;
    const uint64_t *values; /* parallel to the weights' entries */
};

static void print_json(const struct cs_node_weights *w, const struct amounts *am, uint32_t a,
                       uint32_t b, double seconds)
{
    uint64_t min = UINT64_MAX, max = 0;
    for (uint32_t i = 0; i < w->count; i++) {
        min = am->values[i] < min ? am->values[i] : min;
        max = am->values[i] > max ? am->values[i] : max;
    }
    char key[32];
    struct cs_json j;
    cs_json_init(&j, stdout);
    cs_json_object_begin(&j, NULL);
    cs_json_u64(&j, "a", a);
    cs_json_u64(&j, "b", b);
    cs_json_u64(&j, "ports", w->count);
    snprintf(key, sizeof key, "%s_min", am->key);
    cs_json_u64(&j, key, min);
    snprintf(key, sizeof key, "%s_max", am->key);
    cs_json_u64(&j, key, max);
    if (seconds > 0) {
        cs_json_double(&j, "seconds", seconds);
        cs_json_double(&j, "bytes_per_second_min", am->bytes_per_unit * (double)min / seconds);
        cs_json_double(&j, "bytes_per_second_max", am->bytes_per_unit * (double)max / seconds);
    }
    cs_json_array_begin(&j, "per_port");
    for (uint32_t i = 0; i < w->count; i++) {
        cs_json_object_begin(&j, NULL);
        cs_json_guid(&j, "guid", w->entries[i].guid);
        cs_json_u64(&j, am->key, am->values[i]);
        if (seconds > 0)
            cs_json_double(&j, "bytes_per_second",
                           am->bytes_per_unit * (double)am->values[i] / seconds);
        cs_json_u64(&j, "weight", w->entries[i].weight);
        cs_json_object_end(&j);
    }
    cs_json_array_end(&j);
    cs_json_object_end(&j);
    cs_json_finish(&j);
}

/* From two snapshot files. */
static int learn_from_snapshots(const char *before_path, const char *after_path,
                                const char *guid2lid_path, uint32_t a, uint32_t b,
                                struct cs_node_weights *w, uint64_t **received,
                                struct cs_error *err)
{
    struct cs_guid2lid lids = {0};
    struct cs_counter_snapshot before = {0}, after = {0};
    int rc = -1;
    cs_node_weights_init(w);
    if ((!guid2lid_path || cs_guid2lid_read(&lids, guid2lid_path, err) == 0) &&
        cs_counter_snapshot_read(&before, before_path, guid2lid_path ? &lids : NULL, err) == 0 &&
        cs_counter_snapshot_read(&after, after_path, guid2lid_path ? &lids : NULL, err) == 0)
        rc = cs_node_weights_learn(w, received, &before, &after, a, b, err);
    cs_counter_snapshot_free(&before);
    cs_counter_snapshot_free(&after);
    cs_guid2lid_free(&lids);
    return rc;
}

/* From the monitoring store, over [since, until]. */
static int learn_from_store(const char *path, double since, double until, uint32_t a, uint32_t b,
                            struct cs_node_weights *w, uint64_t **received, struct cs_error *err)
{
    struct cs_monitor *mon = NULL;
    cs_node_weights_init(w);
    if (cs_monitor_open(path, CS_MONITOR_READ_ONLY, &mon, err) < 0)
        return -1;
    int rc = cs_monitor_learn_weights(mon, since, until, a, b, w, received, err);
    cs_monitor_close(mon);
    return rc;
}

static int weights_learn(int argc, char **argv)
{
    const char *who = argv[0];
    const char *output = NULL, *guid2lid_path = NULL, *store = NULL;
    const char *since_text = NULL, *until_text = NULL;
    unsigned a = 1, b = 100;
    double seconds = 0; /* 0: not given */
    bool as_json = false;
    enum { OPT_STORE = 0x100, OPT_SINCE, OPT_UNTIL };
    static const struct option options[] = {
        {"seconds", required_argument, NULL, 's'},
        {"guid2lid", required_argument, NULL, 'g'},
        {"output", required_argument, NULL, 'o'},
        {"json", no_argument, NULL, 'j'},
        {"store", required_argument, NULL, OPT_STORE},
        {"since", required_argument, NULL, OPT_SINCE},
        {"until", required_argument, NULL, OPT_UNTIL},
        {NULL, 0, NULL, 0},
    };
    int opt;
    while ((opt = getopt_long(argc, argv, "a:b:o:", options, NULL)) != -1) {
        switch (opt) {
        case 'a':
        case 'b':
            if (!cli_parse_uint(optarg, 1, CS_WEIGHT_MAX, opt == 'a' ? &a : &b))
                return cli_usage(who, "-%c is a whole number from 1 to %u, not '%s'", opt,
                                 CS_WEIGHT_MAX, optarg);
            break;
        case 's':
            if (!cli_parse_seconds(optarg, &seconds))
                return cli_usage(who, "--seconds is a positive number, not '%s'", optarg);
            break;
        case 'g':
            guid2lid_path = optarg;
            break;
        case 'o':
            output = optarg;
            break;
        case 'j':
            as_json = true;
            break;
        case OPT_STORE:
            store = optarg;
            break;
        case OPT_SINCE:
            since_text = optarg;
            break;
        case OPT_UNTIL:
            until_text = optarg;
            break;
        default:
            return cli_usage(who, "unknown option");
        }
    }
    if (a > b)
        return cli_usage(who, "-a %u is above -b %u: the lightest weight comes first", a, b);
    double since = 0, until = 0;
    if (store) {
        if (argc != optind)
            return cli_usage(who, "--store learns from the store: no snapshot files with it");
        if (guid2lid_path || seconds > 0)
            return cli_usage(who, "--guid2lid and --seconds are for snapshots, not --store");
        if (!since_text)
            return cli_usage(who, "--store wants --since: the window to learn from");
        double now = cli_wall_clock_s();
        struct cs_error terr;
        if (cs_time_point_parse(since_text, now, &since, &terr) < 0)
            return cli_usage(who, "--since %s", terr.msg);
        if (cs_time_point_parse(until_text ? until_text : "now", now, &until, &terr) < 0)
            return cli_usage(who, "--until %s", terr.msg);
        if (!(since < until))
            return cli_usage(who, "--since must come before --until");
    } else {
        if (argc - optind != 2)
            return cli_usage(who, "wants two snapshots: BEFORE AFTER (or --store FILE)");
        if (since_text || until_text)
            return cli_usage(who, "--since and --until go with --store");
    }

    struct cs_error err;
    struct cs_node_weights w;
    uint64_t *received = NULL;
    int rc = store ? learn_from_store(store, since, until, a, b, &w, &received, &err)
                   : learn_from_snapshots(argv[optind], argv[optind + 1], guid2lid_path, a, b, &w,
                                          &received, &err);
    if (rc < 0)
        rc = cli_fail(who, &err);
    else if (output && cs_node_weights_write_file(output, &w, &err) < 0)
        rc = cli_fail(who, &err);
    else if (!output && !as_json && cs_node_weights_write(stdout, &w, &err) < 0)
        rc = cli_fail(who, &err);
    else if (as_json) {
        struct amounts am = {store ? "rcv_bytes" : "rcv_data", store ? 1 : 4, received};
        print_json(&w, &am, a, b, store ? until - since : seconds);
        rc = EXIT_OK;
    } else
        rc = EXIT_OK;
    free(received);
    cs_node_weights_free(&w);
    return rc;
}

const struct cli_command cli_weights_commands[] = {
    {"weights", "learn",
     "node weights from port-counter snapshots or the monitoring store (min-max onto [a, b])",
     learn_help, weights_learn},
    {"weights", NULL, NULL, NULL, NULL},
};
