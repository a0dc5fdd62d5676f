/* A small, fast, seeded pseudo-random generator (splitmix64). Every random choice in cloudsm
 * goes through one of these with a seed the user gave, so that results repeat exactly. */
#ifndef CLOUDSM_RNG_H
#define CLOUDSM_RNG_H

#include <stdint.h>

struct cs_rng {
    uint64_t state;
};

static inline void cs_rng_seed(struct cs_rng *r, uint64_t seed)
{
    r->state = seed;
}

static inline uint64_t cs_rng_next(struct cs_rng *r)
{
    uint64_t z = (r->state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* Uniform in [0, bound), bound > 0, without modulo bias (Lemire's multiply-and-reject). */
static inline uint32_t cs_rng_below(struct cs_rng *r, uint32_t bound)
{
    uint64_t m = (uint64_t)(uint32_t)cs_rng_next(r) * bound;
    if ((uint32_t)m < bound) {
        uint32_t threshold = (uint32_t)-bound % bound;
        while ((uint32_t)m < threshold)
            m = (uint64_t)(uint32_t)cs_rng_next(r) * bound;
    }
    return (uint32_t)(m >> 32);
}

/* Shuffle v[0..n) uniformly (Fisher-Yates from the top: for i = n..2, swap v[i-1] with a
 * uniform v[j], j < i). The draws are part of every seeded result that uses it: keep the order. */
static inline void cs_rng_shuffle(struct cs_rng *r, uint32_t *v, uint32_t n)
{
    for (uint32_t i = n; i > 1; i--) {
        uint32_t j = cs_rng_below(r, i);
        uint32_t x = v[i - 1];
        v[i - 1] = v[j];
        v[j] = x;
    }
}

#endif
