/* Topology files: ibnetdiscover output and ibsim net files (one reader), ibnetdiscover form
 * (one writer).
 *
 * The reader takes what infiniband-diags' ibnetdiscover prints and what ibsim loads: node lines
 * `Switch|Ca|Hca|Rt <nports> "<id>"` with an optional `# "<desc>"` comment (`base|enhanced port 0
 * lid N lmc M` on switches), GUID lines (`switchguid=`, `caguid=`, `hcaguids=`, `rtguid=`,
 * `sysimgguid=`, `vendid=`, `devid=`), port lines `[p](portguid) "<remote id>"[rp](rguid)
 * w=W s=S # ... lid N 4xQDR`, and `#` comments. Nodes without a GUID line get GUIDs by ibsim's
 * sequential rule. See docs/formats/topology.md.
 *
 * The writer emits the ibnetdiscover form with a GUID line before every node, so that ibsim
 * keeps every GUID and the reader gives back an identical fabric.
 */
#ifndef CLOUDSM_TOPO_IO_H
#define CLOUDSM_TOPO_IO_H

#include <stddef.h>
#include <stdio.h>

#include "cloudsm/error.h"
#include "cloudsm/fabric.h"

/* Parse topology text into an empty (initialised) fabric. name is used in error messages. On
 * failure f is left empty and err says "name:line: what is wrong". */
int cs_topo_parse(struct cs_fabric *f, const char *text, size_t len, const char *name,
                  struct cs_error *err);
int cs_topo_read(struct cs_fabric *f, const char *path, struct cs_error *err);

int cs_topo_write(FILE *out, const struct cs_fabric *f, struct cs_error *err);
/* Atomic: written to a temporary file in the same directory, then renamed. */
int cs_topo_write_file(const char *path, const struct cs_fabric *f, struct cs_error *err);

#endif
