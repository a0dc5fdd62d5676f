/* cloudsm lft diff | convert */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cloudsm/lft.h"
#include "cloudsm/lft_diff.h"
#include "cloudsm/lft_io.h"
#include "json.h"

/* ---- lft diff ---- */

static const char diff_help[] =
    "usage: cloudsm lft diff OLD NEW [--json] [--per-switch]\n"
    "\n"
    "Compare two LFT dumps (OpenSM's opensm-lfts.dump or ibroute/dump_fts output, in any\n"
    "mix) and count what a subnet manager would send to go from OLD to NEW: one\n"
    "LinearForwardingTable SMP per switch and 64-LID block that differs.\n"
    "\n"
    "Switches are matched by GUID. A switch only in NEW costs every block holding a route;\n"
    "one only in OLD is reported as removed and costs nothing.\n"
    "\n"
    "  --json        one JSON object: switches_old, switches_new, switches_changed,\n"
    "                switches_added, switches_removed, blocks_changed, entries_changed\n"
    "                (and per_switch with --per-switch)\n"
    "  --per-switch  list every switch that changed: GUID, blocks, entries\n"
    "\n"
    "example:\n"
    "  cloudsm lft diff ftree/opensm-lfts.dump minhop/opensm-lfts.dump --per-switch\n";

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

static void print_diff_json(const struct cs_lft_diff *d, bool per_switch)
{
    struct json j;
    json_init(&j, stdout);
    json_object_begin(&j, NULL);
    json_u64(&j, "switches_old", d->switches_old);
    json_u64(&j, "switches_new", d->switches_new);
    json_u64(&j, "switches_changed", d->switches_changed);
    json_u64(&j, "switches_added", d->switches_added);
    json_u64(&j, "switches_removed", d->switches_removed);
    json_u64(&j, "blocks_changed", d->blocks_changed);
    json_u64(&j, "entries_changed", d->entries_changed);
    if (per_switch) {
        json_array_begin(&j, "per_switch");
        for (uint32_t i = 0; i < d->num_per_switch; i++) {
            const struct cs_lft_switch_diff *s = &d->per_switch[i];
            if (s->presence == CS_LFT_IN_BOTH && !s->blocks_changed)
                continue;
            json_object_begin(&j, NULL);
            json_guid(&j, "guid", s->guid);
            json_str(&j, "desc", s->desc);
            json_str(&j, "change", presence_name(s->presence));
            json_u64(&j, "blocks_changed", s->blocks_changed);
            json_u64(&j, "entries_changed", s->entries_changed);
            json_object_end(&j);
        }
        json_array_end(&j);
    }
    json_object_end(&j);
    json_finish(&j);
}

static void print_diff_text(const struct cs_lft_diff *d, bool per_switch)
{
    printf("switches  %u old, %u new: %u changed (%u added, %u removed)\n", d->switches_old,
           d->switches_new, d->switches_changed, d->switches_added, d->switches_removed);
    printf("blocks    %" PRIu64 " changed (= LFT SMPs to send)\n", d->blocks_changed);
    printf("entries   %" PRIu64 " changed\n", d->entries_changed);
    if (!per_switch)
        return;
    for (uint32_t i = 0; i < d->num_per_switch; i++) {
        const struct cs_lft_switch_diff *s = &d->per_switch[i];
        if (s->presence == CS_LFT_IN_BOTH && !s->blocks_changed)
            continue;
        printf("  0x%016" PRIx64 " %-7s blocks %4u entries %6u  '%s'\n", s->guid,
               presence_name(s->presence), s->blocks_changed, s->entries_changed, s->desc);
    }
}

static int lft_diff(int argc, char **argv)
{
    const char *who = argv[0];
    bool as_json = false, per_switch = false;
    static const struct option options[] = {
        {"json", no_argument, NULL, 'j'},
        {"per-switch", no_argument, NULL, 's'},
        {NULL, 0, NULL, 0},
    };
    int opt;
    while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (opt) {
        case 'j':
            as_json = true;
            break;
        case 's':
            per_switch = true;
            break;
        default:
            return cli_usage(who, "unknown option");
        }
    }
    if (argc - optind != 2)
        return cli_usage(who, "wants two LFT dumps: OLD NEW");

    struct cs_error err;
    struct cs_lfts old_set = {0}, new_set = {0};
    struct cs_lft_diff d = {0};
    int rc = EXIT_OK;
    if (cs_lfts_read(&old_set, argv[optind], &err) < 0 ||
        cs_lfts_read(&new_set, argv[optind + 1], &err) < 0 ||
        cs_lft_diff(&old_set, &new_set, &d, &err) < 0) {
        rc = cli_fail(who, &err);
    } else if (as_json) {
        print_diff_json(&d, per_switch);
    } else {
        print_diff_text(&d, per_switch);
    }
    cs_lft_diff_free(&d);
    cs_lfts_free(&old_set);
    cs_lfts_free(&new_set);
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

const struct cli_command cli_lft_commands[] = {
    {"lft", "diff", "count the LFT blocks (SMPs) between two dumps", diff_help, lft_diff},
    {"lft", "convert", "convert between opensm-lfts.dump and ibroute form", convert_help,
     lft_convert},
    {"lft", NULL, NULL, NULL, NULL},
};
