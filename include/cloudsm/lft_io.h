/* LFT dump files.
 *
 * Two text forms exist and OpenSM's `file` routing engine (-R file -U FILE) loads both:
 *  - CS_LFT_FORMAT_OSM: opensm-lfts.dump as OpenSM writes it
 *      Unicast lids [0-8] of switch Lid 1 guid 0x0000000000200000 ('L1'):
 *      0x0002 001 # Channel Adapter portguid 0x0000000000100001: 'H1'
 *      8 lids dumped
 *  - CS_LFT_FORMAT_IBROUTE: what ibroute and dump_fts print
 *      Unicast lids [0x0-0x8] of switch Lid 1 guid 0x0000000000200000 (L1):
 *        Lid  Out   Destination
 *             Port     Info
 *      0x0002 001 : (Channel Adapter portguid 0x0000000000100001: 'H1')
 *      8 valid lids dumped
 * The reader accepts either (and a file mixing them). See docs/formats/lft.md.
 */
#ifndef CLOUDSM_LFT_IO_H
#define CLOUDSM_LFT_IO_H

#include <stddef.h>
#include <stdio.h>

#include "cloudsm/error.h"
#include "cloudsm/lft.h"

enum cs_lft_format {
    CS_LFT_FORMAT_OSM,
    CS_LFT_FORMAT_IBROUTE,
};

/* Parse into an uninitialised set. name is used in error messages. */
int cs_lfts_parse(struct cs_lfts *t, const char *text, size_t len, const char *name,
                  struct cs_error *err);
int cs_lfts_read(struct cs_lfts *t, const char *path, struct cs_error *err);

int cs_lfts_write(FILE *out, const struct cs_lfts *t, enum cs_lft_format format,
                  struct cs_error *err);
/* Atomic: temporary file renamed into place. */
int cs_lfts_write_file(const char *path, const struct cs_lfts *t, enum cs_lft_format format,
                       struct cs_error *err);

/* "osm" or "ibroute" -> format; -1 if neither. */
int cs_lft_format_parse(const char *name);

#endif
