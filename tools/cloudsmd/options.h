/* cloudsmd's command line, on top of its configuration file (include/cloudsm/sm_config.h).
 *
 * The effective configuration is: the defaults, then the file given with -c, then every flag,
 * wherever it appears on the line (`cloudsmd -p 5 -c sm.conf` runs with priority 5 even if the
 * file says otherwise). A flag and its file key accept the same values (cs_sm_config_set).
 */
#ifndef CLOUDSMD_OPTIONS_H
#define CLOUDSMD_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

#include "../cloudsm/cli.h" /* EXIT_OK, EXIT_FAILED, EXIT_USAGE: the same as cloudsm's */
#include "cloudsm/sm_config.h"

#ifndef CLOUDSM_VERSION
#define CLOUDSM_VERSION "0.1.0"
#endif

struct cloudsmd_options {
    struct cs_sm_config config;
    bool once;                               /* -o: route once and exit */
    bool dump_config;                        /* --dump-config (already done when parse
                                                returns CLOUDSMD_OPTIONS_HANDLED) */
    char config_path[CS_SM_CONFIG_PATH_MAX]; /* -c FILE; "" = none */
    bool daemon;                             /* -B: into the background (service.h) */
    char pid_file[CS_SM_CONFIG_PATH_MAX];    /* --pid-file FILE; "" = none */
    struct cs_sm_config_warnings warnings;   /* what the file (and -R) did not use: log them
                                                with cloudsmd_log_config_warnings */
};

/* Returned by cloudsmd_options_parse when it has done what was asked (--help, --version,
 * --dump-config printed to out): exit with EXIT_OK without running. */
#define CLOUDSMD_OPTIONS_HANDLED (-1)

/* Parse argv into o (always initialised; free with cloudsmd_options_free). Returns
 *   EXIT_OK                    run with o
 *   CLOUDSMD_OPTIONS_HANDLED   help, version or configuration printed to out: exit 0
 *   EXIT_USAGE                 bad command line: "cloudsmd: ..." and a hint printed to err_out
 *   EXIT_FAILED                the configuration file is unreadable or wrong, or --dump-config
 *                              could not write: "cloudsmd: FILE:LINE: ..." printed to err_out */
int cloudsmd_options_parse(int argc, char **argv, struct cloudsmd_options *o, FILE *out,
                           FILE *err_out);
void cloudsmd_options_free(struct cloudsmd_options *o);

/* SIGHUP: the same command line parsed again into o, so that the configuration file is read
 * afresh and the flags still win over it. Fails with the first message parsing printed (the
 * file's "name:line: ..."). */
int cloudsmd_options_reparse(int argc, char **argv, struct cloudsmd_options *o,
                             struct cs_error *err);

void cloudsmd_print_help(FILE *out);

#endif
