/* LFT dump reader on arbitrary bytes: it must never crash, and whatever it accepts must survive
 * being written in either layout and read back (same switches, LIDs, tables and, for routed LIDs,
 * the same destinations). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/lft_io.h"

static void check_same(const struct cs_lfts *a, const struct cs_lfts *b, bool with_desc)
{
    if (a->num_switches != b->num_switches || a->max_lid != b->max_lid)
        abort();
    uint32_t lids = a->capacity > b->capacity ? a->capacity : b->capacity;
    for (uint32_t sw = 0; sw < a->num_switches; sw++) {
        const struct cs_lft_switch *x = &a->switches[sw], *y = &b->switches[sw];
        if (x->guid != y->guid || x->lid != y->lid)
            abort();
        /* ibroute's "(desc)" cannot tell a quoted description from OpenSM's "('desc')" */
        if (with_desc && strcmp(x->desc, y->desc) != 0)
            abort();
        for (uint32_t lid = 0; lid < lids; lid++)
            if (cs_lfts_get(a, sw, lid) != cs_lfts_get(b, sw, lid))
                abort();
    }
    for (uint32_t lid = 0; lid <= a->max_lid; lid++) {
        bool routed = false;
        for (uint32_t sw = 0; sw < a->num_switches && !routed; sw++)
            routed = cs_lfts_get(a, sw, lid) != CS_LFT_NO_ROUTE;
        const struct cs_lid_target *x = &a->targets[lid], *y = &b->targets[lid];
        if (routed &&
            (x->port_guid != y->port_guid || x->type != y->type || strcmp(x->desc, y->desc) != 0))
            abort();
    }
}

static void round_trip(const struct cs_lfts *t, enum cs_lft_format format)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    if (!out)
        return;
    struct cs_error err;
    int rc = cs_lfts_write(out, t, format, &err);
    fclose(out);
    if (rc != 0)
        abort(); /* writing to memory cannot fail */
    struct cs_lfts back;
    if (cs_lfts_parse(&back, buf, len, "written", &err) != 0)
        abort();
    check_same(t, &back, format == CS_LFT_FORMAT_OSM);
    cs_lfts_free(&back);
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cs_lfts t;
    struct cs_error err;
    if (cs_lfts_parse(&t, (const char *)data, size, "fuzz", &err) != 0)
        return 0;
    round_trip(&t, CS_LFT_FORMAT_OSM);
    round_trip(&t, CS_LFT_FORMAT_IBROUTE);
    cs_lfts_free(&t);
    return 0;
}
