/*
 * rng.h — the one pseudo-random generator of the project: reproducible
 * scenarios for the runtime checks (rtcheck --seed), test data and
 * benchmarks.  A 64-bit linear congruential generator (Knuth's MMIX
 * constants) read from its top 53 bits: statistical quality far beyond what
 * a probe's landing spot or a test matrix needs, one multiply per draw, and
 * the same sequence on every machine.  Base layer, inline.
 */
#ifndef EP_RNG_H
#define EP_RNG_H

#include <stdint.h>

typedef struct ep_rng {
    uint64_t s;
} ep_rng;

/* A generator for seed; stream tells apart generators of the same seed. */
static inline ep_rng ep_rng_seed(unsigned long seed, unsigned long stream)
{
    ep_rng r = {(uint64_t)seed * 2654435761u + stream};
    return r;
}

/* Uniform in [0, 1). */
static inline double ep_rng_uniform(ep_rng *r)
{
    r->s = r->s * 6364136223846793005u + 1442695040888963407u;
    return (double)(r->s >> 11) / 9007199254740992.0;
}

/* Uniform integer in [0, n), n > 0. */
static inline int ep_rng_below(ep_rng *r, int n) { return (int)(ep_rng_uniform(r) * n) % n; }

#endif
