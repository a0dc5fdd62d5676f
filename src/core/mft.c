/* MulticastForwardingTables in memory (include/cloudsm/mft.h). */
#include <stdlib.h>
#include <string.h>

#include "cloudsm/mft.h"

int cs_mfts_init(struct cs_mfts *t, const struct cs_fabric *f, struct cs_error *err)
{
    memset(t, 0, sizeof *t);
    uint32_t n = 0;
    for (uint32_t i = 0; i < f->num_nodes; i++)
        n += cs_node_is_switch(&f->nodes[i]);
    t->switches = calloc(n ? n : 1, sizeof *t->switches);
    if (t->switches == NULL)
        return cs_fail(err, "out of memory for the multicast tables");
    for (uint32_t i = 0; i < f->num_nodes; i++) {
        if (!cs_node_is_switch(&f->nodes[i]))
            continue;
        struct cs_mft_switch *s = &t->switches[t->num_switches++];
        s->node = i;
        s->guid = f->nodes[i].guid;
        s->last_block_used = -1;
        s->positions =
            (uint8_t)((f->nodes[i].num_ports + 1u + CS_MFT_POSITION - 1) / CS_MFT_POSITION);
    }
    return 0;
}

void cs_mfts_free(struct cs_mfts *t)
{
    free(t->switches);
    free(t->masks);
    free(t->known);
    memset(t, 0, sizeof *t);
}

uint32_t cs_mfts_blocks(const struct cs_mfts *t)
{
    return t->mlid_count / CS_MFT_BLOCK;
}

int cs_mfts_reserve(struct cs_mfts *t, uint32_t count, struct cs_error *err)
{
    uint32_t want = (count + CS_MFT_BLOCK - 1) / CS_MFT_BLOCK * CS_MFT_BLOCK;
    if (want <= t->mlid_count)
        return 0;
    uint32_t old_blocks = cs_mfts_blocks(t), blocks = want / CS_MFT_BLOCK;
    size_t masks = (size_t)t->num_switches * want * CS_MFT_POSITIONS_MAX;
    size_t known = (size_t)t->num_switches * blocks * CS_MFT_POSITIONS_MAX;
    uint16_t *m = calloc(masks ? masks : 1, sizeof *m);
    bool *k = calloc(known ? known : 1, sizeof *k);
    if (m == NULL || k == NULL) {
        free(m);
        free(k);
        return cs_fail(err, "out of memory for the multicast tables (%u MLIDs)", want);
    }
    for (uint32_t sw = 0; sw < t->num_switches; sw++) {
        if (t->mlid_count)
            memcpy(&m[(size_t)sw * want * CS_MFT_POSITIONS_MAX],
                   &t->masks[(size_t)sw * t->mlid_count * CS_MFT_POSITIONS_MAX],
                   (size_t)t->mlid_count * CS_MFT_POSITIONS_MAX * sizeof *m);
        if (old_blocks)
            memcpy(&k[(size_t)sw * blocks * CS_MFT_POSITIONS_MAX],
                   &t->known[(size_t)sw * old_blocks * CS_MFT_POSITIONS_MAX],
                   (size_t)old_blocks * CS_MFT_POSITIONS_MAX * sizeof *k);
    }
    free(t->masks);
    free(t->known);
    t->masks = m;
    t->known = k;
    t->mlid_count = want;
    return 0;
}

uint16_t *cs_mfts_entry(const struct cs_mfts *t, uint32_t sw, uint32_t mlid_index)
{
    return &t->masks[((size_t)sw * t->mlid_count + mlid_index) * CS_MFT_POSITIONS_MAX];
}

bool *cs_mfts_known(const struct cs_mfts *t, uint32_t sw, uint32_t block, uint32_t position)
{
    return &t->known[((size_t)sw * cs_mfts_blocks(t) + block) * CS_MFT_POSITIONS_MAX + position];
}

uint32_t cs_mfts_switch(const struct cs_mfts *t, uint32_t node)
{
    uint32_t lo = 0, hi = t->num_switches;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (t->switches[mid].node == node)
            return mid;
        if (t->switches[mid].node < node)
            lo = mid + 1;
        else
            hi = mid;
    }
    return CS_NONE;
}

void cs_mfts_get_block(const struct cs_mfts *t, uint32_t sw, uint32_t block, uint32_t position,
                       uint16_t out[CS_MFT_BLOCK])
{
    for (uint32_t i = 0; i < CS_MFT_BLOCK; i++)
        out[i] = cs_mfts_entry(t, sw, block * CS_MFT_BLOCK + i)[position];
}

void cs_mfts_set_block(struct cs_mfts *t, uint32_t sw, uint32_t block, uint32_t position,
                       const uint16_t in[CS_MFT_BLOCK])
{
    for (uint32_t i = 0; i < CS_MFT_BLOCK; i++)
        cs_mfts_entry(t, sw, block * CS_MFT_BLOCK + i)[position] = in[i];
}

bool cs_mfts_block_equal(const struct cs_mfts *a, const struct cs_mfts *b, uint32_t sw,
                         uint32_t block, uint32_t position)
{
    for (uint32_t i = 0; i < CS_MFT_BLOCK; i++) {
        uint32_t m = block * CS_MFT_BLOCK + i;
        uint16_t x = m < a->mlid_count ? cs_mfts_entry(a, sw, m)[position] : 0;
        uint16_t y = m < b->mlid_count ? cs_mfts_entry(b, sw, m)[position] : 0;
        if (x != y)
            return false;
    }
    return true;
}

void cs_mfts_carry_usage(struct cs_mfts *t, const struct cs_mfts *old)
{
    if (old->num_switches == 0)
        return;
    for (uint32_t i = 0, k = 0; i < t->num_switches; i++) {
        /* Both lists are in node order; a sweep usually finds the nodes in the same order. */
        uint32_t tried = 0;
        while (tried < old->num_switches && old->switches[k].guid != t->switches[i].guid) {
            k = (k + 1) % old->num_switches;
            tried++;
        }
        if (tried < old->num_switches)
            t->switches[i].last_block_used = old->switches[k].last_block_used;
    }
}
