/* The Performance Management agent's counters (IBA 1.3 chapter 16.1, the PerfMgt class): the
 * requests a performance manager sends, the replies decoded, and the difference between two
 * readings of a counter, saturation and resets included. Wire order is big-endian throughout;
 * the attribute starts at byte 64 of the 256-byte MAD (the common header, then 40 reserved
 * bytes).
 *
 * PortCounters (attribute 0x0012), byte offsets within the attribute:
 *    1 PortSelect  2 CounterSelect(16)  4 SymbolErrorCounter(16)  6 LinkErrorRecoveryCounter(8)
 *    7 LinkDownedCounter(8)  8 PortRcvErrors(16)  10 PortRcvRemotePhysicalErrors(16)
 *   12 PortRcvSwitchRelayErrors(16)  14 PortXmitDiscards(16)  16 PortXmitConstraintErrors(8)
 *   17 PortRcvConstraintErrors(8)  19 LocalLinkIntegrityErrors(high 4 bits),
 *      ExcessiveBufferOverrunErrors(low 4 bits)  22 VL15Dropped(16)  24 PortXmitData(32)
 *   28 PortRcvData(32)  32 PortXmitPkts(32)  36 PortRcvPkts(32)  40 PortXmitWait(32)
 * These counters stop at their largest value (they saturate: IBA 16.1.3.5) until reset.
 *
 * PortCountersExtended (0x001D): 1 PortSelect  2 CounterSelect(16)  8 PortXmitData(64)
 *   16 PortRcvData  24 PortXmitPkts  32 PortRcvPkts  40 PortUnicastXmitPkts
 *   48 PortUnicastRcvPkts  56 PortMulticastXmitPkts  64 PortMulticastRcvPkts (all 64-bit).
 *
 * Data counters count octets divided by 4.
 */
#ifndef CLOUDSM_PMA_H
#define CLOUDSM_PMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cloudsm/error.h"

#define CS_PMA_CLASS 0x04
#define CS_PMA_CLASS_VERSION 1
#define CS_PMA_ATTR_CLASS_PORT_INFO 0x0001
#define CS_PMA_ATTR_PORT_COUNTERS 0x0012
#define CS_PMA_ATTR_PORT_COUNTERS_EXT 0x001D
#define CS_PMA_MAD_SIZE 256
#define CS_PMA_DATA_OFFSET 64
/* ClassPortInfo CapabilityMask bits. */
#define CS_PMA_CAP_EXTENDED_COUNTERS (1u << 9) /* PortCountersExtended */
#define CS_PMA_CAP_XMIT_WAIT (1u << 12)        /* PortXmitWait */

struct cs_pma_port_counters {
    uint8_t port_select;
    uint16_t counter_select;
    uint16_t symbol_errors;
    uint8_t link_error_recovery;
    uint8_t link_downed;
    uint16_t rcv_errors;
    uint16_t rcv_remote_physical_errors;
    uint16_t rcv_switch_relay_errors;
    uint16_t xmit_discards;
    uint8_t xmit_constraint_errors;
    uint8_t rcv_constraint_errors;
    uint8_t local_link_integrity_errors; /* 4 bits */
    uint8_t excessive_buffer_overruns;   /* 4 bits */
    uint16_t vl15_dropped;
    uint32_t xmit_data; /* octets / 4 */
    uint32_t rcv_data;  /* octets / 4 */
    uint32_t xmit_pkts;
    uint32_t rcv_pkts;
    uint32_t xmit_wait;
};

struct cs_pma_port_counters_ext {
    uint8_t port_select;
    uint16_t counter_select;
    uint64_t xmit_data; /* octets / 4 */
    uint64_t rcv_data;  /* octets / 4 */
    uint64_t xmit_pkts;
    uint64_t rcv_pkts;
    uint64_t unicast_xmit_pkts;
    uint64_t unicast_rcv_pkts;
    uint64_t multicast_xmit_pkts;
    uint64_t multicast_rcv_pkts;
};

/* A Get of attr for port (PortSelect; 0xFF: all ports, where the agent allows it) into mad
 * (CS_PMA_MAD_SIZE bytes): the common header with transaction id tid, the rest zero. */
void cs_pma_get_request(uint8_t mad[CS_PMA_MAD_SIZE], uint16_t attr, uint8_t port, uint64_t tid);

/* Decode a GetResp of len bytes: the class, method, status and attribute are checked (err says
 * which does not fit: "status 0x001c", "attribute 0x0013, not PortCounters", "14 bytes, too short
 * for a PortCounters reply"). */
int cs_pma_decode_port_counters(const uint8_t *mad, size_t len, struct cs_pma_port_counters *out,
                                struct cs_error *err);
int cs_pma_decode_port_counters_ext(const uint8_t *mad, size_t len,
                                    struct cs_pma_port_counters_ext *out, struct cs_error *err);
/* The attributes' encoders (the agent's side: a test's model, the fuzz target's round trip), into
 * the attribute bytes at mad + CS_PMA_DATA_OFFSET. */
void cs_pma_encode_port_counters(const struct cs_pma_port_counters *in,
                                 uint8_t mad[CS_PMA_MAD_SIZE]);
void cs_pma_encode_port_counters_ext(const struct cs_pma_port_counters_ext *in,
                                     uint8_t mad[CS_PMA_MAD_SIZE]);

/* What changed between two readings of a counter `bits` wide (8, 16, 32 or 64). */
enum cs_pma_change {
    CS_PMA_COUNTED,   /* delta = now - before */
    CS_PMA_SATURATED, /* now is the largest value: the counter stopped; delta is a lower bound */
    CS_PMA_RESET,     /* now < before: reset in between (a saturating counter cannot go down,
                         and a 64-bit one does not wrap in practice); delta = now, a lower bound */
};
enum cs_pma_change cs_pma_delta(uint64_t before, uint64_t now, unsigned bits, uint64_t *delta);

#endif
