/* The PerfMgt counter decoder (src/sm/pma.c): whatever bytes a reply holds, decoding never reads
 * past them or crashes; a reply it accepts encodes back to the same counters (every field read is
 * a field written), and a delta between two readings is never more than the later one allows. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/pma.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Exactly size bytes on the heap: ASan catches a read past the reply. */
    uint8_t *mad = malloc(size ? size : 1);
    if (!mad)
        return 0;
    memcpy(mad, data, size);
    struct cs_error err;
    struct cs_pma_port_counters pc, again;
    if (cs_pma_decode_port_counters(mad, size, &pc, &err) == 0) {
        uint8_t copy[CS_PMA_MAD_SIZE] = {0};
        memcpy(copy, mad, size < sizeof copy ? size : sizeof copy);
        cs_pma_encode_port_counters(&pc, copy);
        if (cs_pma_decode_port_counters(copy, sizeof copy, &again, &err) != 0 ||
            memcmp(&pc, &again, sizeof pc) != 0)
            abort();
    }
    struct cs_pma_port_counters_ext px, again_x;
    if (cs_pma_decode_port_counters_ext(mad, size, &px, &err) == 0) {
        uint8_t copy[CS_PMA_MAD_SIZE] = {0};
        memcpy(copy, mad, size < sizeof copy ? size : sizeof copy);
        cs_pma_encode_port_counters_ext(&px, copy);
        if (cs_pma_decode_port_counters_ext(copy, sizeof copy, &again_x, &err) != 0 ||
            memcmp(&px, &again_x, sizeof px) != 0)
            abort();
    }
    if (size >= 17) {
        uint64_t before, now, delta;
        memcpy(&before, data, 8);
        memcpy(&now, data + 8, 8);
        unsigned bits = (unsigned[]){8, 16, 32, 64}[data[16] % 4];
        if (bits < 64) {
            before &= (UINT64_C(1) << bits) - 1;
            now &= (UINT64_C(1) << bits) - 1;
        }
        enum cs_pma_change ch = cs_pma_delta(before, now, bits, &delta);
        if (delta > now || (ch == CS_PMA_COUNTED && before + delta != now))
            abort();
    }
    free(mad);
    return 0;
}
