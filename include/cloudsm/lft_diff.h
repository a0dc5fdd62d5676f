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

/* Eq. 1 of "Compact Network Reconfiguration in Fat-Trees" (Zahid et al., 2016): the time to
 * distribute new tables is the sum over the switches of the blocks they get times the time of
 * one SMP, t_smp. The paper estimates a switch's blocks as its modified entries / q (q: the mean
 * modifications per block); blocks_changed counts them exactly. t_smp_ms is what the SM's "lfts"
 * phase takes per SMP (docs/reconfiguration.md says how to measure it). */
static inline double cs_lft_diff_predicted_ms(const struct cs_lft_diff *d, double t_smp_ms)
{
    return (double)d->blocks_changed * t_smp_ms;
}

/* ---- What a re-routing changes for the routes between CA ports ----
 *
 * cs_lft_diff counts what the SM sends; cs_path_diff counts what the traffic sees. Sources are
 * the CA ports of the new fabric that have a LID and are cabled to a switch; destinations are
 * their LIDs (2^LMC each); a pair is a source and a destination LID the source does not own.
 * The route of a pair under a set of tables is the sequence of (switch, output port) from the
 * switch the source is cabled to until the packet is delivered (analyze.h's forwarding rule).
 * The old tables are traced over the old fabric, the new ones over the new fabric (the two
 * tracers may share one fabric); switches are matched by node GUID, ports by number, sources and
 * destination owners by port GUID.
 *
 * A pair's path changed when both tables deliver it along different sequences (a source cabled
 * to another switch in the old fabric, or absent from it, starts elsewhere), or to different
 * ports, or when one set delivers it and the other does not. A pair neither delivers is not a
 * change (undelivered_old and undelivered_new count the pairs each set loses). Sources and
 * destinations only the old fabric has (hosts shut down) are not pairs.
 *
 * The cost is O(switches) per destination, not O(pairs x hops): per destination, "the route from
 * switch s is the same" is decided once per switch, nearest the destination first (the entries
 * are equal, the next switch is the same one and its route is the same), and sources are counted
 * per switch they are cabled to. */
struct cs_tracer;

struct cs_path_diff {
    uint32_t sources;      /* CA ports of the new fabric with a LID, cabled to a switch */
    uint32_t destinations; /* their LIDs */
    uint64_t pairs;        /* sources x destinations, a port's own LIDs excluded */
    uint64_t paths_changed;
    uint32_t destinations_changed; /* destination LIDs with at least one changed pair */
    /* (switch, destination LID) entries that differ, over the new fabric's switches (a switch
     * the old tables lack: every entry holding a route): the LFT writes the re-routing makes
     * for the live CAs, leaving out switch LIDs and the LIDs of ports that are gone. */
    uint64_t entries_changed;
    uint64_t undelivered_old; /* pairs the old tables do not deliver (over the old fabric) */
    uint64_t undelivered_new; /* pairs the new tables do not deliver */
    uint32_t sources_moved;   /* sources cabled to another switch in the old fabric, or absent */
};

int cs_path_diff(const struct cs_tracer *old_routes, const struct cs_tracer *new_routes,
                 struct cs_path_diff *d, struct cs_error *err);

#endif
