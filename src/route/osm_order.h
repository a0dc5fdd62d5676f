/* OpenSM's table order (internal), which its engines' results depend on.
 *
 * OpenSM keeps switches and CAs in cl_qmaps keyed by the node GUID as stored on the wire (big
 * endian) and compares keys as host integers, so on x86 its tables iterate in the order of the
 * byte-swapped GUID, not the numeric one. Engines that must match OpenSM entry for entry (ftree,
 * minhop, updn) sort by this key. */
#ifndef CLOUDSM_ROUTE_OSM_ORDER_H
#define CLOUDSM_ROUTE_OSM_ORDER_H

#include <stdint.h>

static inline uint64_t cs_osm_map_key(uint64_t guid)
{
    return __builtin_bswap64(guid);
}

#endif
