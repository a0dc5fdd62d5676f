/* Linear forwarding tables of a set of switches.
 *
 * Each switch has one contiguous byte array indexed by LID: the output port for that LID,
 * CS_LFT_NO_ROUTE (255) where there is none, 0 for the switch itself. All switches of a set share
 * one capacity, a multiple of CS_LFT_BLOCK (64) LIDs: an LFT block is what one SubnSet
 * (LinearForwardingTable) SMP carries, so programming a switch costs one SMP per changed block.
 * A per-switch bitmap marks the blocks written since it was last cleared (cs_lfts_set marks;
 * bulk writers can mark with cs_lfts_mark_all).
 *
 * A set does not need a fabric: a dump read from disk names its switches by GUID and carries,
 * per LID, what the dump's comments say is behind it (cs_lid_target). Writers use that.
 */
#ifndef CLOUDSM_LFT_H
#define CLOUDSM_LFT_H

#include <stdbool.h>
#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/fabric.h"

#define CS_LFT_BLOCK 64
#define CS_LFT_NO_ROUTE 255
#define CS_LID_UCAST_MAX 0xBFFF                                   /* 49151: highest unicast LID */
#define CS_LFT_MAX_BLOCKS ((CS_LID_UCAST_MAX + 1) / CS_LFT_BLOCK) /* 768 */

struct cs_lft_switch {
    uint64_t guid; /* switch node GUID (= port 0 GUID) */
    uint32_t node; /* index in the fabric the set was made for, CS_NONE if read from a file */
    uint16_t lid;  /* switch LID, 0 if unknown */
    char desc[CS_DESC_MAX + 1];
};

/* What a LID leads to, as the dump comments describe it. type 0 = unknown LID. */
struct cs_lid_target {
    uint64_t port_guid;
    uint8_t type; /* enum cs_node_type, 0 if unknown */
    char desc[CS_DESC_MAX + 1];
};

struct cs_lfts {
    struct cs_lft_switch *switches;
    uint8_t *ports;                /* num_switches * capacity entries */
    uint64_t *dirty;               /* num_switches * dirty_words bits, one per block */
    struct cs_lid_target *targets; /* capacity entries, indexed by LID */
    uint32_t num_switches;
    uint32_t switch_capacity;
    uint32_t capacity;    /* LIDs per switch, multiple of CS_LFT_BLOCK */
    uint32_t dirty_words; /* 64-bit words of dirty bitmap per switch */
    uint16_t max_lid;     /* highest LID the set covers (OpenSM's "Unicast lids [0-max]") */
};

/* An empty set able to hold LIDs 0..max_lid (capacity is rounded up to whole blocks). */
int cs_lfts_init(struct cs_lfts *t, uint16_t max_lid, struct cs_error *err);
void cs_lfts_free(struct cs_lfts *t);
/* dst (initialised here) gets src's switches, tables and targets (not the dirty bits). */
int cs_lfts_copy(struct cs_lfts *dst, const struct cs_lfts *src, struct cs_error *err);

/* Add a switch whose table is all CS_LFT_NO_ROUTE. Returns its index in the set or CS_NONE. */
uint32_t cs_lfts_add_switch(struct cs_lfts *t, uint64_t guid, uint16_t lid, const char *desc,
                            uint32_t node, struct cs_error *err);

/* Grow every table so that it holds LIDs 0..max_lid (new entries: no route). */
int cs_lfts_grow(struct cs_lfts *t, uint16_t max_lid, struct cs_error *err);

/* A set with one table per switch of f, in fabric order, all entries CS_LFT_NO_ROUTE, max_lid
 * the highest LID used in f, and targets filled from f's ports and nodes. */
int cs_lfts_for_fabric(struct cs_lfts *t, const struct cs_fabric *f, struct cs_error *err);

/* Set index of the switch with this GUID, or CS_NONE (linear scan; callers needing many lookups
 * build their own index). */
uint32_t cs_lfts_find(const struct cs_lfts *t, uint64_t guid);

static inline uint8_t *cs_lfts_table(const struct cs_lfts *t, uint32_t sw)
{
    return t->ports + (size_t)sw * t->capacity;
}

static inline uint8_t cs_lfts_get(const struct cs_lfts *t, uint32_t sw, uint32_t lid)
{
    return lid < t->capacity ? t->ports[(size_t)sw * t->capacity + lid] : CS_LFT_NO_ROUTE;
}

/* Set one entry and mark its block dirty. lid must be < capacity. */
static inline void cs_lfts_set(struct cs_lfts *t, uint32_t sw, uint32_t lid, uint8_t port)
{
    uint32_t block = lid / CS_LFT_BLOCK;
    t->ports[(size_t)sw * t->capacity + lid] = port;
    t->dirty[(size_t)sw * t->dirty_words + block / 64] |= UINT64_C(1) << (block % 64);
}

static inline bool cs_lfts_block_dirty(const struct cs_lfts *t, uint32_t sw, uint32_t block)
{
    return (t->dirty[(size_t)sw * t->dirty_words + block / 64] >> (block % 64)) & 1;
}

/* Set or clear one block's dirty bit. */
static inline void cs_lfts_mark_block(struct cs_lfts *t, uint32_t sw, uint32_t block, bool dirty)
{
    uint64_t *word = &t->dirty[(size_t)sw * t->dirty_words + block / 64];
    uint64_t bit = UINT64_C(1) << (block % 64);
    *word = dirty ? *word | bit : *word & ~bit;
}

/* A fingerprint of the entries 0..max_lid of every table, the tables taken in switch GUID
 * order (the same for the same tables in any order). */
uint64_t cs_lfts_digest(const struct cs_lfts *t);

void cs_lfts_clear_dirty(struct cs_lfts *t);
void cs_lfts_mark_all(struct cs_lfts *t);

/* Number of blocks a full table of this set has: max_lid / 64 + 1, as OpenSM counts them. */
static inline uint32_t cs_lfts_blocks(const struct cs_lfts *t)
{
    return (uint32_t)t->max_lid / CS_LFT_BLOCK + 1;
}

#endif
