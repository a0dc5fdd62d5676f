/* FNV-1a, 64 bits: the fingerprint of files (io/text.c) and of LFT sets (core/lft.c). Internal
 * to the library. Not cryptographic: it tells an unchanged input from a changed one. */
#ifndef CLOUDSM_CORE_HASH_H
#define CLOUDSM_CORE_HASH_H

#include <stddef.h>
#include <stdint.h>

#define CS_FNV1A64_START UINT64_C(0xcbf29ce484222325)

static inline uint64_t cs_fnv1a64(uint64_t h, const void *bytes, size_t len)
{
    const uint8_t *p = bytes;
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * UINT64_C(0x100000001b3);
    return h;
}

#endif
