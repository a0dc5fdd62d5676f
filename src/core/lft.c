#include "cloudsm/lft.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/lid.h"
#include "core/hash.h"

static uint32_t capacity_for(uint16_t max_lid)
{
    return ((uint32_t)max_lid / CS_LFT_BLOCK + 1) * CS_LFT_BLOCK;
}

static uint32_t dirty_words_for(uint32_t capacity)
{
    return (capacity / CS_LFT_BLOCK + 63) / 64;
}

int cs_lfts_init(struct cs_lfts *t, uint16_t max_lid, struct cs_error *err)
{
    memset(t, 0, sizeof *t);
    if (max_lid > CS_LID_UCAST_MAX)
        return cs_fail(err, "LID %u is beyond the unicast range (1..%u)", max_lid,
                       CS_LID_UCAST_MAX);
    t->capacity = capacity_for(max_lid);
    t->dirty_words = dirty_words_for(t->capacity);
    t->max_lid = max_lid;
    t->targets = calloc(t->capacity, sizeof *t->targets);
    if (!t->targets)
        return cs_fail(err, "out of memory for LFTs");
    return 0;
}

void cs_lfts_free(struct cs_lfts *t)
{
    free(t->switches);
    free(t->ports);
    free(t->dirty);
    free(t->targets);
    memset(t, 0, sizeof *t);
}

int cs_lfts_copy(struct cs_lfts *dst, const struct cs_lfts *src, struct cs_error *err)
{
    if (cs_lfts_init(dst, src->max_lid, err) < 0)
        return -1;
    for (uint32_t s = 0; s < src->num_switches; s++) {
        const struct cs_lft_switch *sw = &src->switches[s];
        if (cs_lfts_add_switch(dst, sw->guid, sw->lid, sw->desc, sw->node, err) == CS_NONE) {
            cs_lfts_free(dst);
            return -1;
        }
        memcpy(cs_lfts_table(dst, s), cs_lfts_table(src, s), src->capacity);
    }
    memcpy(dst->targets, src->targets, src->capacity * sizeof *dst->targets);
    return 0;
}

static int reserve_switches(struct cs_lfts *t, uint32_t needed, struct cs_error *err)
{
    if (needed <= t->switch_capacity)
        return 0;
    uint32_t cap = t->switch_capacity ? t->switch_capacity : 16;
    while (cap < needed)
        cap *= 2;
    struct cs_lft_switch *sw = realloc(t->switches, (size_t)cap * sizeof *sw);
    if (!sw)
        return cs_fail(err, "out of memory for LFTs");
    t->switches = sw;
    uint8_t *ports = realloc(t->ports, (size_t)cap * t->capacity);
    if (!ports)
        return cs_fail(err, "out of memory for LFTs of %u switches", cap);
    t->ports = ports;
    uint64_t *dirty = realloc(t->dirty, (size_t)cap * t->dirty_words * sizeof *dirty);
    if (!dirty)
        return cs_fail(err, "out of memory for LFTs");
    t->dirty = dirty;
    t->switch_capacity = cap;
    return 0;
}

uint32_t cs_lfts_add_switch(struct cs_lfts *t, uint64_t guid, uint16_t lid, const char *desc,
                            uint32_t node, struct cs_error *err)
{
    if (reserve_switches(t, t->num_switches + 1, err) < 0)
        return CS_NONE;
    uint32_t sw = t->num_switches++;
    struct cs_lft_switch *s = &t->switches[sw];
    memset(s, 0, sizeof *s);
    s->guid = guid;
    s->lid = lid;
    s->node = node;
    if (desc) {
        size_t len = strnlen(desc, CS_DESC_MAX);
        memcpy(s->desc, desc, len);
    }
    memset(cs_lfts_table(t, sw), CS_LFT_NO_ROUTE, t->capacity);
    memset(t->dirty + (size_t)sw * t->dirty_words, 0, t->dirty_words * sizeof *t->dirty);
    return sw;
}

int cs_lfts_grow(struct cs_lfts *t, uint16_t max_lid, struct cs_error *err)
{
    if (max_lid > CS_LID_UCAST_MAX)
        return cs_fail(err, "LID %u is beyond the unicast range (1..%u)", max_lid,
                       CS_LID_UCAST_MAX);
    if (max_lid <= t->max_lid)
        return 0;
    uint32_t capacity = capacity_for(max_lid);
    if (capacity == t->capacity) {
        t->max_lid = max_lid;
        return 0;
    }
    uint32_t words = dirty_words_for(capacity);
    uint32_t slots = t->switch_capacity ? t->switch_capacity : 1;
    uint8_t *ports = malloc((size_t)slots * capacity);
    uint64_t *dirty = calloc((size_t)slots * words, sizeof *dirty);
    struct cs_lid_target *targets = calloc(capacity, sizeof *targets);
    if (!ports || !dirty || !targets) {
        free(ports);
        free(dirty);
        free(targets);
        return cs_fail(err, "out of memory growing LFTs to LID %u", max_lid);
    }
    for (uint32_t sw = 0; sw < t->num_switches; sw++) {
        uint8_t *dst = ports + (size_t)sw * capacity;
        memcpy(dst, cs_lfts_table(t, sw), t->capacity);
        memset(dst + t->capacity, CS_LFT_NO_ROUTE, capacity - t->capacity);
        memcpy(dirty + (size_t)sw * words, t->dirty + (size_t)sw * t->dirty_words,
               t->dirty_words * sizeof *dirty);
    }
    memcpy(targets, t->targets, t->capacity * sizeof *targets);
    free(t->ports);
    free(t->dirty);
    free(t->targets);
    t->ports = ports;
    t->dirty = dirty;
    t->targets = targets;
    t->capacity = capacity;
    t->dirty_words = words;
    t->max_lid = max_lid;
    return 0;
}

int cs_lfts_for_fabric(struct cs_lfts *t, const struct cs_fabric *f, struct cs_error *err)
{
    if (cs_lfts_init(t, cs_fabric_max_lid(f), err) < 0)
        return -1;
    uint32_t switches = 0;
    for (uint32_t n = 0; n < f->num_nodes; n++)
        switches += cs_node_is_switch(&f->nodes[n]);
    if (reserve_switches(t, switches, err) < 0)
        goto fail;
    for (uint32_t n = 0; n < f->num_nodes; n++) {
        const struct cs_node *node = &f->nodes[n];
        if (cs_node_is_switch(node) &&
            cs_lfts_add_switch(t, node->guid, f->ports[node->first_port].lid, node->desc, n, err) ==
                CS_NONE)
            goto fail;
    }
    for (uint32_t i = 0; i < f->num_port_slots; i++) {
        const struct cs_port *p = &f->ports[i];
        if (!p->lid)
            continue;
        const struct cs_node *node = &f->nodes[p->node];
        uint32_t count = 1u << p->lmc;
        for (uint32_t k = 0; k < count && p->lid + k < t->capacity; k++) {
            struct cs_lid_target *target = &t->targets[p->lid + k];
            target->port_guid = p->guid;
            target->type = node->type;
            memcpy(target->desc, node->desc, sizeof target->desc);
        }
    }
    return 0;
fail:
    cs_lfts_free(t);
    return -1;
}

uint32_t cs_lfts_find(const struct cs_lfts *t, uint64_t guid)
{
    for (uint32_t i = 0; i < t->num_switches; i++)
        if (t->switches[i].guid == guid)
            return i;
    return CS_NONE;
}

void cs_lfts_clear_dirty(struct cs_lfts *t)
{
    if (t->dirty)
        memset(t->dirty, 0, (size_t)t->num_switches * t->dirty_words * sizeof *t->dirty);
}

void cs_lfts_mark_all(struct cs_lfts *t)
{
    uint32_t blocks = t->capacity / CS_LFT_BLOCK;
    for (uint32_t sw = 0; sw < t->num_switches; sw++) {
        uint64_t *words = t->dirty + (size_t)sw * t->dirty_words;
        for (uint32_t b = 0; b < blocks; b++)
            words[b / 64] |= UINT64_C(1) << (b % 64);
    }
}

static int by_switch_guid(const void *a, const void *b, void *arg)
{
    const struct cs_lfts *t = arg;
    uint64_t x = t->switches[*(const uint32_t *)a].guid, y = t->switches[*(const uint32_t *)b].guid;
    return (x > y) - (x < y);
}

uint64_t cs_lfts_digest(const struct cs_lfts *t)
{
    uint64_t h = cs_fnv1a64(CS_FNV1A64_START, &t->max_lid, sizeof t->max_lid);
    uint32_t *order = malloc((t->num_switches + 1u) * sizeof *order);
    if (!order)
        return 0; /* no memory: a digest nothing equals */
    for (uint32_t i = 0; i < t->num_switches; i++)
        order[i] = i;
    qsort_r(order, t->num_switches, sizeof *order, by_switch_guid, (void *)t);
    for (uint32_t i = 0; i < t->num_switches; i++) {
        h = cs_fnv1a64(h, &t->switches[order[i]].guid, sizeof t->switches[order[i]].guid);
        h = cs_fnv1a64(h, cs_lfts_table(t, order[i]), (size_t)t->max_lid + 1);
    }
    free(order);
    return h;
}
