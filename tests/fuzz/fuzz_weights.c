/* Node-weights parser: never crashes; what it accepts survives write -> parse unchanged. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/weights.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cs_node_weights a, b;
    struct cs_error err;
    if (cs_node_weights_parse(&a, (const char *)data, size, "fuzz", &err) < 0) {
        if (a.count != 0 || a.entries)
            abort(); /* a failed parse leaves nothing behind */
        return 0;
    }
    for (uint32_t i = 0; i < a.count; i++)
        if (a.entries[i].guid == 0 || a.entries[i].weight < 1 ||
            a.entries[i].weight > CS_WEIGHT_MAX ||
            (i && a.entries[i - 1].guid >= a.entries[i].guid) ||
            cs_node_weights_find(&a, a.entries[i].guid) != a.entries[i].weight)
            abort();
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out || cs_node_weights_write(out, &a, &err) < 0)
        abort();
    fclose(out);
    if (cs_node_weights_parse(&b, text, len, "again", &err) < 0 || a.count != b.count)
        abort();
    for (uint32_t i = 0; i < a.count; i++)
        if (a.entries[i].guid != b.entries[i].guid || a.entries[i].weight != b.entries[i].weight)
            abort();
    free(text);
    cs_node_weights_free(&a);
    cs_node_weights_free(&b);
    return 0;
}
