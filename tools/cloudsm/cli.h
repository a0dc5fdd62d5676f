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
extern const struct cli_command cli_saflood_commands[];
/* cloudsm vm sim (cmd_vm_sim.c), listed with the vm commands. */
extern const char cli_vm_sim_help[];
int cli_vm_sim(int argc, char **argv);

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
/* Print a command's help text; a line "@ENGINES@" becomes the routing engines with their
 * summaries and "@ENGINE_NAMES@" their names ("ftree, noftree, ..."), from the registry; a line
 * "@PRESETS@" becomes the topology presets (cs_topo_presets) with their summaries. */
void cli_print_help(FILE *out, const char *help);
/* Before long work, whether its outputs can be written, so that minutes of work are not lost
 * to a typo: a file's directory must exist and be writable; a directory (dir true) is created
 * if missing (not its parents) and must be writable. */
int cli_check_output(const char *path, bool dir, struct cs_error *err);
/* True if the argument list asks for help (-h / --help anywhere). */
bool cli_wants_help(int argc, char **argv);

#endif
