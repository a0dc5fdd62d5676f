/* Writers for LFT dumps in OpenSM's and ibroute's layouts.
 *
 * The OSM layout reproduces dump_ucast_lfts() of OpenSM 3.3.23 (osm_dump.c) byte for byte:
 *   "Unicast lids [0-%u] of switch Lid %u guid 0x%016llx ('%s'):"
 *   "0x%04x %03u # %s portguid 0x%016llx: '%s'"   or "0x%04x %03u # unknown node and type"
 *   "%u lids dumped"   (OpenSM prints the table's max LID here, not the number of lines)
 * The IBROUTE layout reproduces dump_unicast_tables() of ibroute/dump_fts, with the switch
 * addressed by LID:
 *   "Unicast lids [0x0-0x%x] of switch Lid %u guid 0x%016llx (%s):"
 *   "  Lid  Out   Destination" / "       Port     Info "
 *   "0x%04x %03u : (%s portguid 0x%016llx: '%s')"   or "0x%04x %03u : (unknown node and type)"
 *   "%d valid lids dumped "
 *
 * A dump of a large fabric is ~1 GB, so the text of every LID's line is formatted once (its
 * comment does not depend on the switch) and each switch only copies those lines and patches the
 * three port digits into a large buffer.
 */
#include "cloudsm/lft_io.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/atomic_file.h"
#include "io/outbuf.h"

/* Longest line: "0x0000 000 : (Channel Adapter portguid 0x<16>: '<64>')\n" is 127 bytes. */
#define LINE_MAX_LEN 160
#define PORT_DIGITS_AT 7 /* "0x0000 " */

struct line_templates {
    char *text;
    uint32_t *offset; /* per LID */
    uint8_t *length;  /* per LID */
};

static bool target_known(const struct cs_lid_target *target)
{
    return target->port_guid || target->type || target->desc[0];
}

static int build_templates(struct line_templates *lt, const struct cs_lfts *t,
                           enum cs_lft_format format, struct cs_error *err)
{
    uint32_t count = (uint32_t)t->max_lid + 1;
    lt->text = malloc((size_t)count * LINE_MAX_LEN);
    lt->offset = malloc(count * sizeof *lt->offset);
    lt->length = malloc(count * sizeof *lt->length);
    if (!lt->text || !lt->offset || !lt->length)
        return cs_fail(err, "out of memory writing LFTs");
    uint32_t used = 0;
    bool osm = format == CS_LFT_FORMAT_OSM;
    for (uint32_t lid = 0; lid < count; lid++) {
        const struct cs_lid_target *target = t->targets ? &t->targets[lid] : NULL;
        char *line = lt->text + used;
        int n;
        if (!target || !target_known(target))
            n = snprintf(line, LINE_MAX_LEN, "0x%04x 000 %s\n", lid,
                         osm ? "# unknown node and type" : ": (unknown node and type)");
        else
            n = snprintf(line, LINE_MAX_LEN,
                         "0x%04x 000 %s%s portguid 0x%016" PRIx64 ": '%.*s'%s\n", lid,
                         osm ? "# " : ": (",
                         cs_node_type_long_name((enum cs_node_type)target->type), target->port_guid,
                         (int)strnlen(target->desc, CS_DESC_MAX), target->desc, osm ? "" : ")");
        if (n < 0 || n >= LINE_MAX_LEN)
            return cs_fail(err, "LFT line of LID %u does not fit", lid);
        lt->offset[lid] = used;
        lt->length[lid] = (uint8_t)n;
        used += (uint32_t)n;
    }
    return 0;
}

static void free_templates(struct line_templates *lt)
{
    free(lt->text);
    free(lt->offset);
    free(lt->length);
}

/* Lines of one switch; returns how many were written. */
static uint32_t write_entries(struct cs_outbuf *o, const struct line_templates *lt,
                              const uint8_t *table, uint32_t max_lid)
{
    uint32_t written = 0;
    for (uint32_t lid = 0; lid <= max_lid; lid++) {
        unsigned port = table[lid];
        if (port == CS_LFT_NO_ROUTE)
            continue;
        size_t len = lt->length[lid];
        char *at = cs_outbuf_reserve(o, len);
        memcpy(at, lt->text + lt->offset[lid], len);
        at[PORT_DIGITS_AT] = (char)('0' + port / 100);
        at[PORT_DIGITS_AT + 1] = (char)('0' + port / 10 % 10);
        at[PORT_DIGITS_AT + 2] = (char)('0' + port % 10);
        o->used += len;
        written++;
    }
    return written;
}

int cs_lfts_write(FILE *out, const struct cs_lfts *t, enum cs_lft_format format,
                  struct cs_error *err)
{
    if (format != CS_LFT_FORMAT_OSM && format != CS_LFT_FORMAT_IBROUTE)
        return cs_fail(err, "unknown LFT format %d", (int)format);
    struct line_templates lt = {0};
    if (build_templates(&lt, t, format, err) < 0) {
        free_templates(&lt);
        return -1;
    }
    struct cs_outbuf o;
    if (cs_outbuf_init(&o, out, err) < 0) {
        free_templates(&lt);
        return -1;
    }
    for (uint32_t sw = 0; sw < t->num_switches; sw++) {
        const struct cs_lft_switch *s = &t->switches[sw];
        int desc_len = (int)strnlen(s->desc, CS_DESC_MAX);
        if (format == CS_LFT_FORMAT_OSM) {
            cs_outbuf_printf(
                &o, "Unicast lids [0-%u] of switch Lid %u guid 0x%016" PRIx64 " ('%.*s'):\n",
                t->max_lid, s->lid, s->guid, desc_len, s->desc);
            write_entries(&o, &lt, cs_lfts_table(t, sw), t->max_lid);
            cs_outbuf_printf(&o, "%u lids dumped\n", t->max_lid);
        } else {
            cs_outbuf_printf(&o,
                             "Unicast lids [0x0-0x%x] of switch Lid %u guid 0x%016" PRIx64
                             " (%.*s):\n"
                             "  Lid  Out   Destination\n"
                             "       Port     Info \n",
                             t->max_lid, s->lid, s->guid, desc_len, s->desc);
            uint32_t n = write_entries(&o, &lt, cs_lfts_table(t, sw), t->max_lid);
            cs_outbuf_printf(&o, "%u valid lids dumped \n", n);
        }
    }
    free_templates(&lt);
    return cs_outbuf_finish(&o, "writing LFTs", err);
}

struct write_request {
    const struct cs_lfts *t;
    enum cs_lft_format format;
};

static int write_request(FILE *out, const void *ctx, struct cs_error *err)
{
    const struct write_request *req = ctx;
    return cs_lfts_write(out, req->t, req->format, err);
}

int cs_lfts_write_file(const char *path, const struct cs_lfts *t, enum cs_lft_format format,
                       struct cs_error *err)
{
    struct write_request req = {t, format};
    return cs_atomic_write(path, write_request, &req, err);
}

int cs_lft_format_parse(const char *name)
{
    if (!strcmp(name, "osm"))
        return CS_LFT_FORMAT_OSM;
    if (!strcmp(name, "ibroute"))
        return CS_LFT_FORMAT_IBROUTE;
    return -1;
}
