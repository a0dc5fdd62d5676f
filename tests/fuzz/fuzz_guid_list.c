/* GUID list parser: never crashes; what it accepts survives write -> parse unchanged. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/guid_list.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cs_guid_list a, b;
    struct cs_error err;
    if (cs_guid_list_parse(&a, (const char *)data, size, "fuzz", &err) < 0)
        return 0;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out || cs_guid_list_write(out, &a, &err) < 0)
        abort();
    fclose(out);
    if (cs_guid_list_parse(&b, text, len, "again", &err) < 0 || a.count != b.count ||
        (a.count && memcmp(a.guids, b.guids, a.count * sizeof *a.guids) != 0))
        abort();
    free(text);
    cs_guid_list_free(&a);
    cs_guid_list_free(&b);
    return 0;
}
