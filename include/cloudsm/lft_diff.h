/* Differences between two LFT sets, counted the way a subnet manager pays for them: one SMP per
 * (switch, 64-LID block) that differs (OpenSM's set_lft_block skips identical blocks).
 *
 * Switches are matched by GUID. A LID beyond one set's capacity counts as "no route" there. A
 * switch only in the new set costs every block that holds a route; a switch only in the old set
 * costs nothing (it is gone) but is reported.
 */
#ifndef CLOUDSM_LFT_DIFF_H
#define CLOUDSM_LFT_DIFF_H

#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/lft.h"

enum cs_lft_presence {
    CS_LFT_IN_BOTH,
    CS_LFT_ONLY_OLD,
    CS_LFT_ONLY_NEW,
};

struct cs_lft_switch_diff {
    uint64_t guid;
    uint32_t blocks_changed;
    uint32_t entries_changed;
    uint8_t presence; /* enum cs_lft_presence */
    char desc[CS_DESC_MAX + 1];
};

struct cs_lft_diff {
    uint32_t switches_old;
    uint32_t switches_new;
    uint32_t switches_changed; /* switches with at least one changed block (incl. added ones) */
    uint32_t switches_added;
    uint32_t switches_removed;
    uint64_t blocks_changed; /* = LFT SMPs a real SM sends */
    uint64_t entries_changed;
    struct cs_lft_switch_diff *per_switch; /* every switch of either set: new order, then removed */
    uint32_t num_per_switch;
};

int cs_lft_diff(const struct cs_lfts *old_set, const struct cs_lfts *new_set, struct cs_lft_diff *d,
                struct cs_error *err);
void cs_lft_diff_free(struct cs_lft_diff *d);

#endif
