/* The monitoring store on the command line: the options that name the store and a window of it
 * (--store, --state-dir, --since, --until) with --json, --csv and -o, and output written whole or
 * not at all. Shared by `cloudsm sm counters|events` (cmd_sm_store.c, where they are defined)
 * and `cloudsm adapt simulate` (cmd_adapt.c). */
#ifndef CLOUDSM_CLI_STORE_CLI_H
#define CLOUDSM_CLI_STORE_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cloudsm/atomic_file.h"
#include "cloudsm/error.h"
#include "cloudsm/monitor.h"
#include "cloudsm/sm_config.h"

/* The help lines of the store and its window. */
#define CLI_STORE_WINDOW_HELP                                                                      \
    "  --since T             from T: a duration back from now (30s, 5m, 2h, 1d, 1h30m), an\n"      \
    "                        ISO 8601 time with a zone (2026-11-27T08:00:00Z, ...+01:00), or\n"    \
    "                        seconds since the epoch\n"                                            \
    "  --until T             to T, the same forms (default now)\n"                                 \
    "  --store FILE          the monitoring store (default STATE_DIR/" CS_MONITOR_STORE_NAME ")\n" \
    "  -d, --state-dir DIR   cloudsmd's state directory (default " CS_SM_CONFIG_DEFAULT_STATE_DIR  \
    ")\n"                                                                                          \
    "  -c, --config FILE     the state directory is FILE's state_dir (cloudsmd's -c FILE)\n"

enum cli_format { CLI_FORMAT_TEXT, CLI_FORMAT_JSON, CLI_FORMAT_CSV };

struct cli_store_options {
    const char *store, *state_dir, *output, *since_text, *until_text;
    const char *config_path; /* -c: state_dir from cloudsmd's configuration file */
    double since, until;     /* (after cli_store_check) */
    enum cli_format format;
};

enum {
    CLI_STORE_OPT_STORE = 0x100,
    CLI_STORE_OPT_SINCE,
    CLI_STORE_OPT_UNTIL,
    CLI_STORE_OPT_JSON,
    CLI_STORE_OPT_CSV,
    CLI_STORE_OPT_OWN /* a command's own options from here */
};

/* The store, the window, --json and -o; a command that writes CSV adds CLI_STORE_CSV_OPTION. */
#define CLI_STORE_LONG_OPTIONS                                                                     \
    {"store", required_argument, NULL, CLI_STORE_OPT_STORE},                                       \
        {"state-dir", required_argument, NULL, 'd'}, {"config", required_argument, NULL, 'c'},     \
        {"since", required_argument, NULL, CLI_STORE_OPT_SINCE},                                   \
        {"until", required_argument, NULL, CLI_STORE_OPT_UNTIL},                                   \
        {"json", no_argument, NULL, CLI_STORE_OPT_JSON},                                           \
    {                                                                                              \
        "output", required_argument, NULL, 'o'                                                     \
    }
#define CLI_STORE_CSV_OPTION                                                                       \
    {                                                                                              \
        "csv", no_argument, NULL, CLI_STORE_OPT_CSV                                                \
    }

struct option;
/* getopt_long over the store options and a command's own: the next option of its own, -1 at the
 * end, or -2 with *rc the usage exit code (a missing value, an unknown option, --json with
 * --csv). */
int cli_store_getopt(int argc, char **argv, const struct option *options,
                     struct cli_store_options *o, const char *who, int *rc);
/* After the options: the command's operands (argv[optind..]) must be `operands` many (0: "takes
 * options only"); then the window (since: default_since unless --since) and the store's path
 * (into path). EXIT_OK or the usage exit code. */
int cli_store_check(struct cli_store_options *o, int argc, char **argv, int operands,
                    const char *who, const char *default_since, char *path, size_t size);

/* Where the output goes: standard output, or a temporary file renamed over -o at the end. */
struct cli_output {
    struct cs_atomic_file af;
    bool atomic;
    FILE *fp;
};
int cli_output_open(struct cli_output *out, const char *path, struct cs_error *err);
/* Ends the output: committed if rc is EXIT_OK, else the old file is kept. Returns the exit
 * code. */
int cli_output_close(struct cli_output *out, const char *who, int rc);

#endif
