/* cloudsmd's answers to the control socket's OpenSM console commands: priority, resweep,
 * sweep on|off, querylid, portstatus, lidbalance (docs/sm/control.md). The reports come from the
 * library (include/cloudsm/sm_console.h, sm_core.h); this file acts on the core and prints them,
 * as text laid out like OpenSM's console or as one JSON object. */
#ifndef CLOUDSMD_CONSOLE_H
#define CLOUDSMD_CONSOLE_H

#include <stdbool.h>
#include <stdio.h>

#include "cloudsm/error.h"
#include "cloudsm/sm_control.h"
#include "cloudsm/sm_core.h"
#include "cloudsmd/log.h"

/* Whether req is one of the commands below (sweep only with on|off). */
bool cloudsmd_console_handles(const struct cs_sm_request *req);
/* Serve req: 0 with the reply written to out, or -1 with err (the client gets "error: ..."). */
int cloudsmd_console_serve(struct cs_sm_core *core, struct cloudsmd_log *log,
                           const struct cs_sm_request *req, FILE *out, struct cs_error *err);

#endif
