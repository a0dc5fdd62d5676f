/* SMP decoding on arbitrary bytes: the input (zero-padded or cut to 256 bytes) is decoded as an
 * SMP and its data area as every attribute; each must re-encode and re-decode to the same thing.
 * Aborts on any mismatch. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/smp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK_ATTRIBUTE(type, name, area)                                                          \
    do {                                                                                           \
        type first, second;                                                                        \
        uint8_t attr_encoded[CS_SMP_DATA_SIZE], attr_again[CS_SMP_DATA_SIZE];                      \
        cs_smp_##name##_decode((area), &first);                                                    \
        cs_smp_##name##_encode(&first, attr_encoded);                                              \
        cs_smp_##name##_decode(attr_encoded, &second);                                             \
        if (memcmp(&first, &second, sizeof first) != 0)                                            \
            abort();                                                                               \
        cs_smp_##name##_encode(&second, attr_again);                                               \
        if (memcmp(attr_encoded, attr_again, sizeof attr_again) != 0)                              \
            abort();                                                                               \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t wire[CS_SMP_SIZE] = {0};
    memcpy(wire, data, size < CS_SMP_SIZE ? size : CS_SMP_SIZE);

    struct cs_smp smp, smp_again;
    uint8_t encoded[CS_SMP_SIZE];
    cs_smp_decode(wire, &smp);
    cs_smp_encode(&smp, encoded);
    /* Everything but the reserved header bytes (18..19, 36..63) survives unchanged. */
    memset(wire + 18, 0, 2);
    memset(wire + 36, 0, 28);
    if (memcmp(wire, encoded, CS_SMP_SIZE) != 0)
        abort();
    cs_smp_decode(encoded, &smp_again);
    if (memcmp(&smp, &smp_again, sizeof smp) != 0)
        abort();

    CHECK_ATTRIBUTE(struct cs_smp_node_info, node_info, smp.data);
    CHECK_ATTRIBUTE(struct cs_smp_node_description, node_description, smp.data);
    CHECK_ATTRIBUTE(struct cs_smp_switch_info, switch_info, smp.data);
    CHECK_ATTRIBUTE(struct cs_smp_port_info, port_info, smp.data);
    CHECK_ATTRIBUTE(struct cs_smp_lft_block, lft_block, smp.data);
    CHECK_ATTRIBUTE(struct cs_smp_pkey_block, pkey_block, smp.data);
    CHECK_ATTRIBUTE(struct cs_smp_sl2vl, sl2vl, smp.data);
    CHECK_ATTRIBUTE(struct cs_smp_vlarb, vlarb, smp.data);
    CHECK_ATTRIBUTE(struct cs_smp_guid_block, guid_block, smp.data);
    CHECK_ATTRIBUTE(struct cs_smp_sm_info, sm_info, smp.data);

    /* The initial path of the input as a directed route: accepted exactly when it fits and has
     * no port 0, and then it is carried verbatim. */
    struct cs_smp request;
    struct cs_error err;
    unsigned hops = smp.hop_count;
    int valid = hops <= CS_SMP_MAX_HOPS;
    for (unsigned hop = 1; valid && hop <= hops; hop++)
        valid = smp.initial_path[hop] != 0;
    int rc = cs_smp_init_directed(&request, smp.method, smp.attr_id, smp.attr_mod, smp.initial_path,
                                  hops, smp.transaction_id, &err);
    if ((rc == 0) != valid)
        abort();
    if (rc == 0 && (request.hop_count != hops ||
                    memcmp(request.initial_path + 1, smp.initial_path + 1, hops) != 0))
        abort();
    return 0;
}
