/* What every programming phase of the SM core (src/sm/) needs around the SMP pipe: submitting a
 * directed-route request, and reporting one that was refused or got no answer in the same words
 * wherever it happens. Internal to the library. */
#ifndef CLOUDSM_SM_PHASE_H
#define CLOUDSM_SM_PHASE_H

#include <stdbool.h>
#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/sm.h"
#include "cloudsm/smp.h"
#include "cloudsm/smp_pipe.h"

/* Queue a directed-route request along path: data is the attribute of a Set (NULL for a Get). */
int cs_sm_submit_dr(struct cs_smp_pipe *pipe, uint8_t method, uint16_t attr, uint32_t mod,
                    const struct cs_dr_path *path, const uint8_t *data, cs_smp_done_fn done,
                    void *arg, struct cs_error *err);

/* True when the request failed (refused or no answer); it is then logged at WARN with the node
 * it was for (a node index of s->fabric) and its DR path. The caller counts it. */
bool cs_sm_smp_failed(const struct cs_sm_sweep *s, const struct cs_log *log, uint32_t node,
                      enum cs_smp_result result, const struct cs_smp *req,
                      const struct cs_smp *reply);

/* A port of the sweep that OpenSM's port table would hold (an end port, with a GUID of its own): a
 * CA or router port the sweep reached, or a switch's port 0. */
bool cs_sm_end_port(const struct cs_sm_sweep *s, uint32_t slot);

#endif
