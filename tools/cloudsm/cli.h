/* Shared pieces of the cloudsm command-line tool. Unlike the library, this layer prints and
 * decides exit codes: 0 success, 1 the work failed (bad input file, I/O error), 2 bad usage. */
#ifndef CLOUDSM_CLI_H
#define CLOUDSM_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cloudsm/error.h"

enum { EXIT_OK = 0, EXIT_FAILED = 1, EXIT_USAGE = 2 };

struct cli_command {
    const char *group;                 /* "topo", "lft", ... */
    const char *name;                  /* "gen", "info", ... */
    const char *summary;               /* one line for `cloudsm help` */
    const char *help;                  /* full text for `cloudsm GROUP NAME --help` */
    int (*run)(int argc, char **argv); /* argv[0] is "GROUP NAME" */
};

extern const struct cli_command cli_topo_commands[];
extern const struct cli_command cli_lft_commands[];
extern const struct cli_command cli_route_commands[];
extern const struct cli_command cli_analyze_commands[];
extern const struct cli_command cli_delay_commands[];
extern const struct cli_command cli_sm_commands[];
extern const struct cli_command cli_weights_commands[];
extern const struct cli_command cli_vm_commands[];
extern const struct cli_command cli_pathcache_commands[];
extern const struct cli_command cli_pma_commands[];
extern const struct cli_command cli_saflood_commands[];
extern const struct cli_command cli_adapt_commands[];
/* cloudsm sm counters|events (cmd_sm_store.c): the monitoring store, listed with the sm
 * commands. */
extern const char cli_sm_counters_help[], cli_sm_events_help[];
int cli_sm_counters(int argc, char **argv);
int cli_sm_events(int argc, char **argv);
/* cloudsm vm sim (cmd_vm_sim.c), listed with the vm commands. */
extern const char cli_vm_sim_help[];
int cli_vm_sim(int argc, char **argv);
/* cloudsm vm create|migrate|destroy|list (cmd_vm_live.c): the running cloudsmd's VMs. */
extern const char cli_vm_create_help[], cli_vm_migrate_help[], cli_vm_destroy_help[],
    cli_vm_list_help[];
int cli_vm_live(int argc, char **argv);

/* Print "cloudsm GROUP NAME: <message>" on stderr; returns EXIT_FAILED. */
int cli_fail(const char *who, const struct cs_error *err);
/* Print a usage error and the hint to use --help; returns EXIT_USAGE. */
int cli_usage(const char *who, const char *fmt, ...) CS_PRINTF(2, 3);
/* Parse a whole unsigned decimal number in [min, max]. */
bool cli_parse_uint(const char *text, unsigned min, unsigned max, unsigned *out);
/* A 64-bit whole number, 0x hex or decimal, no sign, no overflow (seeds, GUIDs). */
bool cli_parse_u64(const char *text, uint64_t *out);
/* A positive, finite number (seconds, a duration). */
bool cli_parse_seconds(const char *text, double *out);
/* The wall clock in seconds since the epoch (date +%s.%N), for times other processes compare
 * with; durations use the monotonic cs_clock_ms. */
double cli_wall_clock_s(void);
/* Print a command's help text; a line "@ENGINES@" becomes the routing engines with their
 * summaries and "@ENGINE_NAMES@" their names ("ftree, noftree, ..."), from the registry; a line
 * "@PRESETS@" becomes the topology presets (cs_topo_presets) with their summaries. */
void cli_print_help(FILE *out, const char *help);
/* Before long work, whether its outputs can be written, so that minutes of work are not lost
 * to a typo: a file's directory must exist and be writable; a directory (dir true) is created
 * if missing (not its parents) and must be writable. */
int cli_check_output(const char *path, bool dir, struct cs_error *err);
/* ---- Talking to a running cloudsmd (cmd_sm.c): `cloudsm sm ...` and `cloudsm vm create ...` */

#define CLI_CONTROL_DEFAULT_TIMEOUT_S 60

#define CLI_CONTROL_OPTIONS_HELP                                                                   \
    "options:\n"                                                                                   \
    "  --socket PATH         the control socket (default STATE_DIR/cloudsmd.sock)\n"               \
    "  -d, --state-dir DIR   cloudsmd's state directory (default /var/lib/cloudsm), when\n"        \
    "                        cloudsmd runs with --state-dir or state_dir\n"                        \
    "  -c, --config FILE     the state directory is FILE's state_dir (cloudsmd's -c FILE)\n"       \
    "  --json                one JSON object instead of text\n"                                    \
    "  -o, --output FILE     write the answer to FILE (atomically; only if cloudsmd said ok)\n"    \
    "  --timeout SECONDS     give up when cloudsmd is silent this long (default 60; 0 never)\n"    \
    "\n"                                                                                           \
    "The control socket is for root and the user cloudsmd runs as (mode 0600).\n"                  \
    "Exit status: 0 ok, 1 cloudsmd answered an error or is not running, 2 bad usage.\n"            \
    "Protocol and replies: docs/sm/control.md.\n"

struct cli_control {
    const char *socket_path, *state_dir, *output;
    const char *config_path; /* -c: state_dir from cloudsmd's configuration file */
    bool json;
    unsigned timeout_s;
};
#define CLI_CONTROL_DEFAULTS                                                                       \
    {                                                                                              \
        .timeout_s = CLI_CONTROL_DEFAULT_TIMEOUT_S                                                 \
    }
enum { CLI_CONTROL_OPT_SOCKET = 0x100, CLI_CONTROL_OPT_JSON, CLI_CONTROL_OPT_TIMEOUT };
#define CLI_CONTROL_SHORT_OPTIONS "c:d:o:"
#define CLI_CONTROL_LONG_OPTIONS                                                                   \
    {"socket", required_argument, NULL, CLI_CONTROL_OPT_SOCKET},                                   \
        {"state-dir", required_argument, NULL, 'd'}, {"config", required_argument, NULL, 'c'},     \
        {"json", no_argument, NULL, CLI_CONTROL_OPT_JSON},                                         \
        {"output", required_argument, NULL, 'o'},                                                  \
    {                                                                                              \
        "timeout", required_argument, NULL, CLI_CONTROL_OPT_TIMEOUT                                \
    }

struct cs_sm_request;
/* getopt_long over options (the control options above and the subcommand's own): the control
 * ones go into o; returns the next option of the subcommand's own, -1 at the end, or
 * CLI_CONTROL_BAD with *rc set to the usage exit code (a bad value, a missing value, an unknown
 * option). */
#define CLI_CONTROL_BAD (-2)
struct option;
int cli_control_getopt(int argc, char **argv, const struct option *options, struct cli_control *o,
                       const char *who, int *rc);
/* The state directory cloudsmd keeps its files in: dir if given, else config's state_dir (read
 * with cloudsmd's own parser) if given, else the default. -1 with err when config does not read. */
int cli_state_dir(const char *dir, const char *config, char *buf, size_t size,
                  struct cs_error *err);
/* After the options: a usage error if they contradict each other, else EXIT_OK. */
int cli_control_check(const struct cli_control *o, const char *who);
/* The control command a subcommand stands for: argv[0] is "GROUP NAME" and the command is
 * prefix NAME ("sm status": status; "vm migrate" with prefix "vm-": vm-migrate); -1 if none. */
int cli_control_command(const char *who, const char *prefix);
/* The request COMMAND ARGV..., checked by the daemon's own parser (a usage error if it does not
 * parse): EXIT_OK or the exit code. */
int cli_control_build(const char *who, int command, int argc, char **argv, bool json,
                      struct cs_sm_request *req);
/* Send req to cloudsmd and copy its answer to stdout (or o->output): the exit code. */
int cli_control_request(const char *who, const struct cli_control *o,
                        const struct cs_sm_request *req);

/* True if the argument list asks for help (-h / --help anywhere). */
bool cli_wants_help(int argc, char **argv);

#endif
