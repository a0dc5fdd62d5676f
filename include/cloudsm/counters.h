/* Port counter snapshots: how much data each end port had received at one moment, and the node
 * weights learned from two of them (`cloudsm weights learn`, docs/formats/weights.md).
 *
 * A snapshot file is one of two forms (told apart by its content, never mixed):
 *
 *   - what `perfquery -x LID PORT` prints, for any number of ports concatenated: each record
 *     starts with "# Port extended counters: Lid N port P ..." and holds a
 *     "PortRcvData:....VALUE" line. Records name ports by LID, so reading them needs a guid2lid
 *     file (OpenSM's) that maps each LID to its port GUID.
 *   - a CSV: an optional header line "port_guid,rcv_data", then "GUID,VALUE" lines.
 *
 * VALUE is the 64-bit PortRcvData counter of PortCountersExtended: octets received divided by 4.
 * Blank lines and lines starting with '#' (other than perfquery's record headers) are skipped.
 */
#ifndef CLOUDSM_COUNTERS_H
#define CLOUDSM_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/lid.h"
#include "cloudsm/weights.h"

struct cs_port_counter {
    uint64_t guid;     /* port GUID */
    uint64_t rcv_data; /* PortRcvData: octets received / 4 */
    uint16_t lid;      /* perfquery records: the LID the record names (0 in a CSV) */
    unsigned line;     /* where the port's record (or CSV line) starts */
};

/* Sorted by GUID; a port appears once. */
struct cs_counter_snapshot {
    char *name; /* the file's name, for messages that compare two snapshots */
    struct cs_port_counter *ports;
    uint32_t count, capacity;
};

void cs_counter_snapshot_free(struct cs_counter_snapshot *s);

/* Parse text (name in error messages) into s (initialised here; empty on failure). lids maps the
 * LIDs of perfquery records to port GUIDs; it may be NULL for a CSV. Errors are "name:line: ...":
 * a port counted twice names both lines. */
int cs_counter_snapshot_parse(struct cs_counter_snapshot *s, const char *text, size_t len,
                              const char *name, const struct cs_guid2lid *lids,
                              struct cs_error *err);
/* Read a file (plain or gzip; streamed). */
int cs_counter_snapshot_read(struct cs_counter_snapshot *s, const char *path,
                             const struct cs_guid2lid *lids, struct cs_error *err);

/* Learn node weights from two snapshots of the same ports (src/core/weights_learn.c): each port's
 * PortRcvData increase from before to after, mapped onto [a, b] by cs_weight_scale. Both snapshots
 * must name the same ports, and no counter may go down (the 64-bit counters do not wrap in
 * practice: a smaller value means the counters were reset between the snapshots). 1 <= a <= b <=
 * CS_WEIGHT_MAX. w is initialised here, sorted by GUID; if received is not NULL, *received gets
 * the increase of each port, parallel to w->entries (free it). */
int cs_node_weights_learn(struct cs_node_weights *w, uint64_t **received,
                          const struct cs_counter_snapshot *before,
                          const struct cs_counter_snapshot *after, uint32_t a, uint32_t b,
                          struct cs_error *err);

#endif
