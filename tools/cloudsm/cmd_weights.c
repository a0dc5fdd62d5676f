/* cloudsm weights learn */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "cloudsm/counters.h"
#include "cloudsm/lid.h"
#include "cloudsm/weights.h"
#include "json.h"

static const char learn_help[] =
    "usage: cloudsm weights learn BEFORE AFTER [-a A] [-b B] [--seconds S]\n"
    "                             [--guid2lid FILE] [-o FILE] [--json]\n"
    "\n"
    "Make a node-weights file (for the weighted fat-tree engines) from two snapshots of the\n"
    "receive data counters (PortRcvData) of the end ports, taken some time apart while the\n"
    "fabric carried its usual traffic. Each port's weight is the min-max map of how much it\n"
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
    "  --json            one JSON object on standard output: a, b, ports, rcv_data_min,\n"
    "                    rcv_data_max (counter increases, octets / 4), seconds and\n"
    "                    bytes_per_second_min/max with --seconds, and per_port [{guid,\n"
    "                    rcv_data, bytes_per_second, weight}]\n"
    "\n"
    "examples:\n"
    "  cloudsm weights learn before.csv after.csv -o weights.txt\n"
    "  for lid in 3 4; do perfquery -x $lid 1; done > before.txt   # ... an hour later:\n"
    "  for lid in 3 4; do perfquery -x $lid 1; done > after.txt\n"
    "  cloudsm weights learn before.txt after.txt --guid2lid /var/cache/opensm/guid2lid \\\n"
    "      --seconds 3600 -o weights.txt --json\n";

/* Bytes per second from a PortRcvData increase (which counts octets / 4). */
static double bytes_per_second(uint64_t rcv_data, double seconds)
{
    return 4.0 * (double)rcv_data / seconds;
}

static void print_json(const struct cs_node_weights *w, const uint64_t *received, uint32_t a,
                       uint32_t b, double seconds)
{
    uint64_t min = UINT64_MAX, max = 0;
    for (uint32_t i = 0; i < w->count; i++) {
        min = received[i] < min ? received[i] : min;
        max = received[i] > max ? received[i] : max;
    }
    struct json j;
    json_init(&j, stdout);
    json_object_begin(&j, NULL);
    json_u64(&j, "a", a);
    json_u64(&j, "b", b);
    json_u64(&j, "ports", w->count);
    json_u64(&j, "rcv_data_min", min);
    json_u64(&j, "rcv_data_max", max);
    if (seconds > 0) {
        json_double(&j, "seconds", seconds);
        json_double(&j, "bytes_per_second_min", bytes_per_second(min, seconds));
        json_double(&j, "bytes_per_second_max", bytes_per_second(max, seconds));
    }
    json_array_begin(&j, "per_port");
    for (uint32_t i = 0; i < w->count; i++) {
        json_object_begin(&j, NULL);
        json_guid(&j, "guid", w->entries[i].guid);
        json_u64(&j, "rcv_data", received[i]);
        if (seconds > 0)
            json_double(&j, "bytes_per_second", bytes_per_second(received[i], seconds));
        json_u64(&j, "weight", w->entries[i].weight);
        json_object_end(&j);
    }
    json_array_end(&j);
    json_object_end(&j);
    json_finish(&j);
}

static int weights_learn(int argc, char **argv)
{
    const char *who = argv[0];
    const char *output = NULL, *guid2lid_path = NULL;
    unsigned a = 1, b = 100;
    double seconds = 0; /* 0: not given */
    bool as_json = false;
    static const struct option options[] = {
        {"seconds", required_argument, NULL, 's'},
        {"guid2lid", required_argument, NULL, 'g'},
        {"output", required_argument, NULL, 'o'},
        {"json", no_argument, NULL, 'j'},
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
        default:
            return cli_usage(who, "unknown option");
        }
    }
    if (argc - optind != 2)
        return cli_usage(who, "wants two snapshots: BEFORE AFTER");
    if (a > b)
        return cli_usage(who, "-a %u is above -b %u: the lightest weight comes first", a, b);

    struct cs_error err;
    struct cs_guid2lid lids = {0};
    struct cs_counter_snapshot before = {0}, after = {0};
    struct cs_node_weights w;
    cs_node_weights_init(&w);
    uint64_t *received = NULL;
    int rc = EXIT_OK;
    if ((guid2lid_path && cs_guid2lid_read(&lids, guid2lid_path, &err) < 0) ||
        cs_counter_snapshot_read(&before, argv[optind], guid2lid_path ? &lids : NULL, &err) < 0 ||
        cs_counter_snapshot_read(&after, argv[optind + 1], guid2lid_path ? &lids : NULL, &err) <
            0 ||
        cs_node_weights_learn(&w, &received, &before, &after, a, b, &err) < 0)
        rc = cli_fail(who, &err);
    else if (output && cs_node_weights_write_file(output, &w, &err) < 0)
        rc = cli_fail(who, &err);
    else if (!output && !as_json && cs_node_weights_write(stdout, &w, &err) < 0)
        rc = cli_fail(who, &err);
    else if (as_json)
        print_json(&w, received, a, b, seconds);
    free(received);
    cs_node_weights_free(&w);
    cs_counter_snapshot_free(&before);
    cs_counter_snapshot_free(&after);
    cs_guid2lid_free(&lids);
    return rc;
}

const struct cli_command cli_weights_commands[] = {
    {"weights", "learn", "node weights from two port-counter snapshots (min-max onto [a, b])",
     learn_help, weights_learn},
    {"weights", NULL, NULL, NULL, NULL},
};
