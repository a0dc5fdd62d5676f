/* guid2lid reader on arbitrary bytes: never crash; what it accepts is written and read back to
 * the same entries. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/lid.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cs_guid2lid g, back;
    struct cs_error err;
    if (cs_guid2lid_parse(&g, (const char *)data, size, "fuzz", &err) != 0)
        return 0;
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    if (!out) {
        cs_guid2lid_free(&g);
        return 0;
    }
    if (cs_guid2lid_write(out, &g, &err) != 0)
        abort();
    fclose(out);
    if (cs_guid2lid_parse(&back, buf, len, "written", &err) != 0)
        abort();
    if (back.count != g.count)
        abort();
    for (uint32_t i = 0; i < g.count; i++) /* field by field: the struct has padding */
        if (back.entries[i].guid != g.entries[i].guid ||
            back.entries[i].min_lid != g.entries[i].min_lid ||
            back.entries[i].max_lid != g.entries[i].max_lid)
            abort();
    cs_guid2lid_free(&back);
    cs_guid2lid_free(&g);
    free(buf);
    return 0;
}
