/*
 * rtgf.h — what a contact runtime runs on GF files (kind gf or gf-wavelet),
 * checked and timed (rtcheck(1); MATH.md §7, 000 Ch. 2 and 4): a probe lands
 * on the free boundary (its footprint's capacitance inverse from scratch,
 * from the cache, and by sequential additions), slides (one-node additions
 * and deletions), pushes in (contact solve, global solution, contact force)
 * and touches at a point through a pressure mask.  Every answer is compared
 * with an independent one: the from-scratch inverse, a direct dense solve,
 * the uncompressed GFs (--reference), GFs recomputed with the footprint
 * fixed (--switched).
 */
#ifndef EP_RTGF_H
#define EP_RTGF_H

#include "rtreport.h"

/* Safety factor of the update error model (rtgf.c, report; rtcheck(1)):
 * the measured error of --ops 100 updates reached 0.86 of the model
 * without it (beam3, S = 5; tests/cli/rtcheck.sh prints the margins). */
#define EP_RTGF_GROWTH 10.0

typedef struct ep_rtgf_opts {
    int contacts;             /* footprint size s */
    long trials;              /* landings */
    long ops;                 /* additions and deletions per landing */
    int threads;              /* update threads (1 or 2) */
    int lu;                   /* 1: LU on the GFs as stored even where Cholesky applies (cma.h) */
    unsigned long seed;
    double mask_radius;       /* 0: 5% of the model size */
    const char *reference;    /* uncompressed GFs with the same rows and columns, or NULL */
    double reference_tol;
    const char *switched;     /* GFs recomputed with more nodes fixed, or NULL */
} ep_rtgf_opts;

/* Run the checks on the GF file path into rep (checks, latencies, facts).
 * Cost per landing: one from-scratch inverse 2 (3s)^3, s sequential
 * additions O(s^2) each, o->ops updates O(s^2), a direct dense solve
 * (3s)^3 / 3, one global solution (a weighted sum of s GF columns).
 * Returns 0 (the checks' verdict is in rep); EP_EUSAGE (more contacts than
 * free nodes), EP_EINPUT, EP_EIO or EP_ECOMPUTE. */
int ep_rtgf_run(ep_rtreport *rep, const char *path, const ep_rtgf_opts *o);

#endif
