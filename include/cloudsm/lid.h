/* LID assignment and OpenSM's guid2lid file.
 *
 * guid2lid (OpenSM's $OSM_CACHE_DIR/guid2lid) maps port GUIDs to a LID range:
 *
 *     0x0002c90000001001 0x0003 0x0003
 *     <blank line>
 *
 * Deterministic rule (cs_lids_assign): every port that needs a LID (switch port 0, connected
 * CA and router ports) and has none gets the lowest free, 2^lmc-aligned range of 2^lmc LIDs,
 * visiting ports in fabric order (node index, then port number). A switch's base port 0 takes
 * a single LID whatever the LMC (as in OpenSM; only an enhanced port 0 takes 2^lmc). LIDs already
 * present in the fabric (from a topology file or a guid2lid file) are kept and never handed out
 * twice.
 */
#ifndef CLOUDSM_LID_H
#define CLOUDSM_LID_H

#include <stddef.h>
#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/fabric.h"

struct cs_guid2lid_entry {
    uint64_t guid;
    uint16_t min_lid;
    uint16_t max_lid;
};

struct cs_guid2lid {
    struct cs_guid2lid_entry *entries;
    uint32_t count;
    uint32_t capacity;
};

void cs_guid2lid_free(struct cs_guid2lid *g);

/* Parse guid2lid text. name is used in error messages ("name:line: ..."). */
int cs_guid2lid_parse(struct cs_guid2lid *g, const char *text, size_t len, const char *name,
                      struct cs_error *err);
int cs_guid2lid_read(struct cs_guid2lid *g, const char *path, struct cs_error *err);

/* The LIDs of f's ports that have one, in fabric order. */
int cs_guid2lid_from_fabric(struct cs_guid2lid *g, const struct cs_fabric *f, struct cs_error *err);

/* Write in OpenSM's format. The file variant is atomic: a temporary file renamed into place. */
int cs_guid2lid_write(FILE *out, const struct cs_guid2lid *g, struct cs_error *err);
int cs_guid2lid_write_file(const char *path, const struct cs_guid2lid *g, struct cs_error *err);

/* Give each port of f whose GUID appears in g that LID (and the LMC the range implies). GUIDs of
 * g that are not in f are ignored, as OpenSM does with stale entries; a LID given to two ports
 * is an error. Returns the number of ports set, or -1. */
int cs_guid2lid_apply(const struct cs_guid2lid *g, struct cs_fabric *f, struct cs_error *err);

/* Check existing LIDs (range, overlap) and assign the missing ones by the rule above. */
int cs_lids_assign(struct cs_fabric *f, unsigned lmc, struct cs_error *err);
/* The same rule with new LIDs taken only from 1..max_lid (the highest LID every switch can
 * forward) and never from a LID whose reserved[lid] is set (reserved may be NULL; else it has
 * CS_LID_UCAST_MAX + 1 entries). LIDs ports already have are kept wherever they are; a port
 * whose withheld[port] is set (withheld may be NULL) gets none. */
int cs_lids_assign_within(struct cs_fabric *f, unsigned lmc, const uint8_t *reserved,
                          uint16_t max_lid, const bool *withheld, struct cs_error *err);

/* Highest LID used by any port of f (0 if none). */
uint16_t cs_fabric_max_lid(const struct cs_fabric *f);

#endif
