/* Port counter snapshot parser (perfquery -x output or CSV): never crashes; what it accepts is
 * sorted with each port once, and learning from the snapshot against itself weighs every port a
 * (no port received anything more than another). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/counters.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* LIDs 1..5 (those of the seed captured on ibsim) and an LMC range 8..15, so that perfquery
 * records can resolve. */
static const char guid2lid_text[] = "0x0002c9000a000101 0x0001 0x0001\n\n"
                                    "0x0002c9000b000101 0x0002 0x0002\n\n"
                                    "0x0002c9000b000201 0x0003 0x0003\n\n"
                                    "0x0002c9000b000301 0x0004 0x0004\n\n"
                                    "0x0002c9000b000401 0x0005 0x0005\n\n"
                                    "0x0002c9000b000501 0x0008 0x000f\n\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct cs_guid2lid lids;
    static int loaded;
    struct cs_error err;
    if (!loaded) {
        if (cs_guid2lid_parse(&lids, guid2lid_text, strlen(guid2lid_text), "lids", &err) < 0)
            abort();
        loaded = 1;
    }
    struct cs_counter_snapshot s;
    if (cs_counter_snapshot_parse(&s, (const char *)data, size, "fuzz", &lids, &err) < 0) {
        if (s.count != 0 || s.ports || s.name)
            abort();
        return 0;
    }
    if (s.count == 0)
        abort();
    for (uint32_t i = 1; i < s.count; i++)
        if (s.ports[i - 1].guid >= s.ports[i].guid)
            abort();
    struct cs_node_weights w;
    uint64_t *received;
    if (cs_node_weights_learn(&w, &received, &s, &s, 7, 9, &err) < 0 || w.count != s.count)
        abort();
    for (uint32_t i = 0; i < w.count; i++)
        if (w.entries[i].guid != s.ports[i].guid || w.entries[i].weight != 7 || received[i] != 0)
            abort();
    free(received);
    cs_node_weights_free(&w);
    cs_counter_snapshot_free(&s);
    return 0;
}
