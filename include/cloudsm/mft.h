/* Multicast forwarding: the spanning tree of a group and the MulticastForwardingTables (MFTs)
 * that carry it (IBA 1.2.1 14.2.5.11, 18.2.4.3).
 *
 * An MFT maps an MLID (0xC000 + index) to the set of a switch's ports a packet for that MLID
 * leaves by. On the wire it travels in blocks: block b holds MLIDs 0xC000 + 32b .. + 31, and a
 * block is sent once per "position", 16 ports each (position p: ports 16p .. 16p + 15, bit i of
 * an entry = port 16p + i). struct cs_mfts holds every switch's table for the MLIDs below
 * mlid_count, and which (block, position) pairs are known (read back from the switch or
 * written to it), so that the SM sends only the pairs that differ.
 *
 * The tree (cs_mcast_tree) is OpenSM 3.3.23's (osm_mcast_mgr.c) on min-hop distances: its root is
 * the multicast-capable switch whose largest distance to a member is the smallest (a CA member
 * counts one hop beyond its switch; ties: the first switch in OpenSM's order, by byte-swapped
 * node GUID); from the root, the members are split among the ports that lead towards them, at each
 * switch the lowest-numbered port on a shortest path to the member's switch, so every switch is
 * reached once and the tree has no loop; every switch the tree passes forwards to its children
 * and, below the root, to the port it was reached by. A group of fewer than two member ports has
 * no tree (OpenSM: "nothing to do"). Send-only members are in the tree too, as in OpenSM.
 */
#ifndef CLOUDSM_MFT_H
#define CLOUDSM_MFT_H

#include <stdbool.h>
#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/fabric.h"

#define CS_MFT_BLOCK 32    /* MLIDs per block */
#define CS_MFT_POSITION 16 /* ports per position */
#define CS_MFT_POSITIONS_MAX 16

struct cs_mft_switch {
    uint32_t node;
    uint64_t guid;     /* its node GUID */
    uint8_t positions; /* (NumPorts + 1 + 15) / 16 */
    /* The highest block a tree ever set an entry in (-1: none), also once it is cleared again:
     * OpenSM's max_block_in_use, which its MFTRecords go up to. */
    int32_t last_block_used;
};

struct cs_mfts {
    struct cs_mft_switch *switches; /* the fabric's switches, in node order */
    uint32_t num_switches;
    uint32_t mlid_count; /* MLIDs 0xC000 .. 0xC000 + mlid_count - 1 held; a multiple of 32 */
    /* masks[(sw * mlid_count + mlid index) * CS_MFT_POSITIONS_MAX + position] */
    uint16_t *masks;
    /* known[(sw * blocks + block) * CS_MFT_POSITIONS_MAX + position]: the switch holds what
     * masks says (read back or written) */
    bool *known;
};

/* Empty tables (every entry 0, nothing known) for f's switches. */
int cs_mfts_init(struct cs_mfts *t, const struct cs_fabric *f, struct cs_error *err);
void cs_mfts_free(struct cs_mfts *t);
/* Room for MLIDs below 0xC000 + count (rounded up to a block); entries added are 0, unknown. */
int cs_mfts_reserve(struct cs_mfts *t, uint32_t count, struct cs_error *err);
uint32_t cs_mfts_blocks(const struct cs_mfts *t);
uint16_t *cs_mfts_entry(const struct cs_mfts *t, uint32_t sw, uint32_t mlid_index);
bool *cs_mfts_known(const struct cs_mfts *t, uint32_t sw, uint32_t block, uint32_t position);
/* Keep old's last_block_used for the switches of t with the same node GUIDs (t made after a
 * sweep, old before it). */
void cs_mfts_carry_usage(struct cs_mfts *t, const struct cs_mfts *old);
/* The switch index of node, or CS_NONE. */
uint32_t cs_mfts_switch(const struct cs_mfts *t, uint32_t node);
/* Block b, position p of switch sw as 32 masks, and the other way. */
void cs_mfts_get_block(const struct cs_mfts *t, uint32_t sw, uint32_t block, uint32_t position,
                       uint16_t out[CS_MFT_BLOCK]);
void cs_mfts_set_block(struct cs_mfts *t, uint32_t sw, uint32_t block, uint32_t position,
                       const uint16_t in[CS_MFT_BLOCK]);
bool cs_mfts_block_equal(const struct cs_mfts *a, const struct cs_mfts *b, uint32_t sw,
                         uint32_t block, uint32_t position);

/* What the trees of one fabric share: its switch graph (the min-hop machinery's), which switches
 * may carry multicast (multicast_capable[node], MulticastFDBCap > 0; NULL: all), OpenSM's switch
 * order, and the hop distances to every switch a member hangs off, computed once (one BFS each)
 * and kept: a tree rebuilt after a join needs no BFS. f must outlive the router unchanged. */
struct cs_mcast_router;
struct cs_mcast_router *cs_mcast_router_create(const struct cs_fabric *f,
                                               const bool *multicast_capable, struct cs_error *err);
void cs_mcast_router_destroy(struct cs_mcast_router *r);

/* Add the tree of the group with MLID mlid_index + 0xC000 and member ports members[0..count) (port
 * indices of the router's fabric: CA ports or switch port 0) to t (which must hold that MLID:
 * cs_mfts_reserve). Members with no switch to reach are left out. Returns the number of members
 * the tree reaches (0 with fewer than two), -1 out of memory. *root is the root switch's node
 * (CS_NONE: none). */
int cs_mcast_tree(struct cs_mcast_router *r, const uint32_t *members, uint32_t count,
                  uint32_t mlid_index, struct cs_mfts *t, uint32_t *root, struct cs_error *err);

#endif
