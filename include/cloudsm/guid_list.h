/* GUID list files, as OpenSM reads root_guid_file, cn_guid_file, io_guid_file and the like
 * (complib's parse_node_map): one GUID per line in 0x hex or decimal, optionally followed by a
 * blank and a name; blank lines and `#` comments are skipped; leading blanks are allowed.
 *
 *     # roots of the spine
 *     0x0020000300000000 spine-0
 *     0x0020000300000001
 */
#ifndef CLOUDSM_GUID_LIST_H
#define CLOUDSM_GUID_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cloudsm/error.h"

struct cs_guid_list {
    uint64_t *guids; /* in file order */
    uint32_t count;
    uint32_t capacity;
};

void cs_guid_list_free(struct cs_guid_list *l);
/* Parse into an empty list; "name:line:" errors. A GUID listed twice is an error. */
int cs_guid_list_parse(struct cs_guid_list *l, const char *text, size_t len, const char *name,
                       struct cs_error *err);
int cs_guid_list_read(struct cs_guid_list *l, const char *path, struct cs_error *err);
int cs_guid_list_write(FILE *out, const struct cs_guid_list *l, struct cs_error *err);

#endif
