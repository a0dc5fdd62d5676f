/* The fabric summary as `cloudsm topo info` prints it, text or JSON. Shared with cloudsmd, whose
 * control socket answers `topology` with the same lines. */
#ifndef CLOUDSM_CLI_SUMMARY_PRINT_H
#define CLOUDSM_CLI_SUMMARY_PRINT_H

#include <stdbool.h>
#include <stdio.h>

#include "cloudsm/summary.h"

/* name: what was summarised (a file name, "live fabric"); lmc: the LMC the LID count assumed. */
void summary_print(FILE *out, const char *name, const struct cs_fabric_summary *s, unsigned lmc,
                   bool as_json);

#endif
