/* LFT differences counted in SMPs: one per (switch, 64-LID block) whose contents change, the
 * way OpenSM's set_lft_block() skips a block whose new contents equal the old ones.
 *
 * Most blocks of a re-routed fabric are unchanged, so each block pair is compared with one
 * memcmp and only differing blocks are examined entry by entry.
 */
#include "cloudsm/lft_diff.h"

#include <stdlib.h>
#include <string.h>

#include "cloudsm/key_index.h"

/* Block b of a switch's table, or NULL when the block lies beyond the set's capacity (all "no
 * route") or the switch is not in the set. */
static const uint8_t *block_of(const struct cs_lfts *t, uint32_t sw, uint32_t b)
{
    if (sw == CS_NONE || (size_t)b * CS_LFT_BLOCK >= t->capacity)
        return NULL;
    return cs_lfts_table(t, sw) + (size_t)b * CS_LFT_BLOCK;
}

static uint32_t routes_in(const uint8_t *block)
{
    uint32_t routes = 0;
    for (uint32_t i = 0; i < CS_LFT_BLOCK; i++)
        routes += block[i] != CS_LFT_NO_ROUTE;
    return routes;
}

static void compare_tables(const struct cs_lfts *old_set, uint32_t old_sw,
                           const struct cs_lfts *new_set, uint32_t new_sw, uint32_t blocks,
                           struct cs_lft_switch_diff *out)
{
    for (uint32_t b = 0; b < blocks; b++) {
        const uint8_t *before = block_of(old_set, old_sw, b);
        const uint8_t *after = block_of(new_set, new_sw, b);
        uint32_t differing = 0;
        if (before && after) {
            if (memcmp(before, after, CS_LFT_BLOCK) == 0)
                continue;
            for (uint32_t i = 0; i < CS_LFT_BLOCK; i++)
                differing += before[i] != after[i];
        } else if (before || after) {
            differing = routes_in(before ? before : after);
        }
        if (differing) {
            out->blocks_changed++;
            out->entries_changed += differing;
        }
    }
}

static void copy_desc(char *dst, const char *src)
{
    size_t len = strnlen(src, CS_DESC_MAX);
    memcpy(dst, src, len);
    dst[len] = '\0';
}

int cs_lft_diff(const struct cs_lfts *old_set, const struct cs_lfts *new_set, struct cs_lft_diff *d,
                struct cs_error *err)
{
    memset(d, 0, sizeof *d);
    uint32_t total = old_set->num_switches + new_set->num_switches;
    struct cs_key_index old_index;
    cs_key_index_init(&old_index);
    bool *old_matched = calloc(old_set->num_switches + 1, sizeof *old_matched);
    d->per_switch = calloc(total ? total : 1, sizeof *d->per_switch);
    if (!old_matched || !d->per_switch ||
        cs_key_index_reserve(&old_index, old_set->num_switches, err) < 0) {
        free(old_matched);
        cs_lft_diff_free(d);
        cs_key_index_free(&old_index);
        return cs_fail(err, "out of memory comparing LFTs");
    }
    for (uint32_t i = 0; i < old_set->num_switches; i++)
        cs_key_index_add(&old_index, old_set->switches[i].guid, i, err);
    cs_key_index_sort(&old_index);

    uint32_t capacity =
        old_set->capacity > new_set->capacity ? old_set->capacity : new_set->capacity;
    uint32_t blocks = capacity / CS_LFT_BLOCK;
    d->switches_old = old_set->num_switches;
    d->switches_new = new_set->num_switches;

    for (uint32_t sw = 0; sw < new_set->num_switches; sw++) {
        struct cs_lft_switch_diff *out = &d->per_switch[d->num_per_switch++];
        const struct cs_lft_switch *s = &new_set->switches[sw];
        out->guid = s->guid;
        copy_desc(out->desc, s->desc);
        uint32_t old_sw = cs_key_index_find(&old_index, s->guid);
        if (old_sw != CS_NONE && old_matched[old_sw])
            old_sw = CS_NONE; /* a GUID listed twice in the new set matches once */
        if (old_sw != CS_NONE) {
            old_matched[old_sw] = true;
            out->presence = CS_LFT_IN_BOTH;
        } else {
            out->presence = CS_LFT_ONLY_NEW;
            d->switches_added++;
        }
        compare_tables(old_set, old_sw, new_set, sw, blocks, out);
        d->switches_changed += out->blocks_changed > 0;
        d->blocks_changed += out->blocks_changed;
        d->entries_changed += out->entries_changed;
    }
    for (uint32_t sw = 0; sw < old_set->num_switches; sw++) {
        if (old_matched[sw])
            continue;
        struct cs_lft_switch_diff *out = &d->per_switch[d->num_per_switch++];
        out->guid = old_set->switches[sw].guid;
        copy_desc(out->desc, old_set->switches[sw].desc);
        out->presence = CS_LFT_ONLY_OLD;
        d->switches_removed++;
    }
    cs_key_index_free(&old_index);
    free(old_matched);
    return 0;
}

void cs_lft_diff_free(struct cs_lft_diff *d)
{
    free(d->per_switch);
    memset(d, 0, sizeof *d);
}
