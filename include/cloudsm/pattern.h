/* Communication patterns for the congestion simulator (sim.h), ORCS-style.
 *
 * A pattern over n ranks (0..n-1) is a sequence of levels, communication phases that run one
 * after the other; a level is a list of (source rank, destination rank) pairs that are all in
 * flight at once. Which port a rank is, is the simulator's business (rank selection, sim.h).
 * Every generator is a closed formula for "pair q of level l", so a level of 136 M pairs
 * (all-to-all on 11664 ranks) is produced in chunks and never held in memory.
 *
 * The pairs, for n ranks (fewer than 2 ranks: no level at all, for every pattern). Where ORCS
 * (Schneider/Hoefler, pattern_generator.cpp) has the pattern, ours gives the same pairs in the
 * same order unless a difference is named:
 *
 *   null            no level.
 *   shift           n-1 levels; level l (shift s = l+1): rank i -> (i+s) mod n, i = 0..n-1.
 *                   (ORCS has no shift; it is all-to-all done as n-1 permutations.)
 *   alltoall        1 level of n(n-1) pairs: for i = 0..n-1, for s = 1..n-1: i -> (i+s) mod n.
 *                   All pairs at once: the dense noise of the pFTree experiments (ORCS has
 *                   none; the paper's extension uses it as the interfering pattern).
 *   bisect          1 level: 2i -> 2i+1 for i < n/2 (an odd last rank idles). With the ranks
 *                   shuffled every run this is a random perfect matching: the effective
 *                   bisection bandwidth test. ORCS's direction is compiler-defined
 *                   (pair(counter, counter++)); ours is fixed.
 *   bisect_fb_sym   1 level: 2i -> 2i+1 and 2i+1 -> 2i, in that order, for i < n/2.
 *   rand            1 level: i -> perm[i] for every i, perm a uniformly random permutation
 *                   without fixed points (drawn again each run; cs_pattern_draw).
 *   bruck           ceil(log2 n) levels; level l: i -> (i + 2^l) mod n for every i.
 *   recdbl          recursive doubling, both directions. p = the largest power of two <= n,
 *                   e = n - p. Exchange level with distance d: i -> i XOR d for i = 0..p-1
 *                   (i and its partner each send). n = p: log2(p) exchange levels, d = 1, 2,
 *                   4, ... When e > 0, as MPI's recursive doubling does, the e extra ranks first
 *                   fold into the low ranks (level 0: p+j -> j, j < e), then come the log2(p)
 *                   exchange levels, then the low ranks hand the result back (last level:
 *                   j -> p+j). ORCS has the final level but not the first.
 *   ring            n levels of one pair; level l: l -> (l+1) mod n.
 *   tree            binomial broadcast from rank 0, ceil(log2 n) levels; level l: i -> i + 2^l
 *                   for i < 2^l and i + 2^l < n (as ORCS).
 *   gather          1 level: i -> 0 for i = 1..n-1.
 *   scatter         1 level: 0 -> i for i = 1..n-1.
 *   neighbor(k)     1 level (ORCS's definition): the ranks are cut into consecutive groups of
 *                   K = min(k, n-1) + 1 (the last group may be smaller), and every rank sends to
 *                   every other rank of its group: groups in order, ranks ascending, each to its
 *                   partners ascending. So each rank has k neighbours, both ways. (ORCS finds
 *                   the same pairs with a greedy search.)
 *   receivers(k)    1 level, k hot spots: k' = min(k, n/2) receivers are ranks 0..k'-1; every
 *                   other rank r (r >= k') sends to receiver (r - k') mod k'. ORCS (later
 *                   versions) deals the senders to the receivers round robin in random order;
 *                   with randomly selected ranks that is the same distribution, so ours is fixed.
 */
#ifndef CLOUDSM_PATTERN_H
#define CLOUDSM_PATTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/rng.h"

enum cs_pattern_kind {
    CS_PATTERN_NULL,
    CS_PATTERN_SHIFT,
    CS_PATTERN_ALLTOALL,
    CS_PATTERN_BISECT,
    CS_PATTERN_BISECT_FB_SYM,
    CS_PATTERN_RAND,
    CS_PATTERN_BRUCK,
    CS_PATTERN_RECDBL,
    CS_PATTERN_RING,
    CS_PATTERN_TREE,
    CS_PATTERN_GATHER,
    CS_PATTERN_SCATTER,
    CS_PATTERN_NEIGHBOR,
    CS_PATTERN_RECEIVERS,
    CS_PATTERN_KINDS
};

/* A pattern by name, before it meets a rank count. */
struct cs_pattern_spec {
    enum cs_pattern_kind kind;
    uint32_t arg; /* neighbor(k), receivers(k): k >= 1; 0 for the others */
};

struct cs_pair {
    uint32_t src, dst; /* ranks */
};

/* "shift", "alltoall", "neighbor", ... (the names cs_pattern_parse takes). */
const char *cs_pattern_kind_name(enum cs_pattern_kind kind);
/* Whether the pattern takes a count in parentheses (neighbor, receivers). */
bool cs_pattern_kind_takes_arg(enum cs_pattern_kind kind);

/* Parse "shift", "neighbor(4)", "receivers(2)", ... Also accepted: "all-to-all" for alltoall,
 * "bisect-fb-sym" for bisect_fb_sym. Errors name the text and say what is expected. */
int cs_pattern_parse(struct cs_pattern_spec *spec, const char *text, struct cs_error *err);
/* "neighbor(4)"; returns what snprintf returns. */
int cs_pattern_format(const struct cs_pattern_spec *spec, char *buf, size_t size);

/* A pattern for n ranks, with its random choices (rand) drawn. */
struct cs_pattern {
    struct cs_pattern_spec spec;
    uint32_t ranks;
    uint32_t levels;
    uint32_t *perm; /* rand: perm[i] = destination of rank i; NULL for the others */
    /* derived once: */
    uint32_t pow2;  /* recdbl: largest power of two <= ranks */
    uint32_t extra; /* recdbl: ranks - pow2 */
    uint32_t group; /* neighbor: group size K; receivers: k' */
};

/* Number of levels of a pattern on n ranks (as cs_pattern_init sets it). */
uint32_t cs_pattern_count_levels(const struct cs_pattern_spec *spec, uint32_t ranks);

/* Set p up for n ranks. rng is needed by random patterns (rand) and ignored by the others
 * (may be NULL for them). Fails for a bad spec or rand without rng. */
int cs_pattern_init(struct cs_pattern *p, const struct cs_pattern_spec *spec, uint32_t ranks,
                    struct cs_rng *rng, struct cs_error *err);
/* Draw the random choices again (rand: a new permutation); no-op for the others. */
void cs_pattern_draw(struct cs_pattern *p, struct cs_rng *rng);
void cs_pattern_free(struct cs_pattern *p);

/* Pairs in a level (0 for level >= levels). */
uint64_t cs_pattern_level_size(const struct cs_pattern *p, uint32_t level);
/* Pairs first .. first+count-1 of a level, in the order above; first + count must not exceed
 * the level's size. */
void cs_pattern_pairs(const struct cs_pattern *p, uint32_t level, uint64_t first, uint32_t count,
                      struct cs_pair *out);
/* Pairs over all levels. */
uint64_t cs_pattern_total_pairs(const struct cs_pattern *p);

#endif
