/*
 * rtzones.h — zones bonded at seams, checked and timed (rtcheck --zones;
 * bond.h, 000 §5.1, MATH.md §12): the zones' GF files are loaded and
 * bonded, loads, gravity and contacts applied, each zone in a random frame
 * of its own, and the answer checked by plain GF sums in every zone
 * (continuity of the seam in the world, balance of the seam forces, the
 * contacts' displacements), against one common frame (the answer in each
 * zone's frame must not change), the chain's block tridiagonal factor
 * against one dense factor, and with --reference the GFs of the whole model
 * (same mesh: the bonded columns must reproduce them).
 */
#ifndef EP_RTZONES_H
#define EP_RTZONES_H

#include "rtreport.h"

typedef struct ep_rtzones_opts {
    int contacts;           /* contact nodes in the first zone (0: none) */
    long trials;            /* load cases */
    unsigned long seed;
    const char *reference;  /* GFs of the whole model, or NULL */
    double reference_tol;
} ep_rtzones_opts;

/* Run the checks on the zone files paths[nz] into rep.  Cost per trial:
 * one seam factor and solve (bond.h) and each zone's GF sum, twice; with
 * --reference one bonded solve per column of the whole model.  Returns 0
 * (the verdict is in rep); EP_EUSAGE, EP_EINPUT (files that do not bond:
 * bond.h), EP_EIO or EP_ECOMPUTE. */
int ep_rtzones_run(ep_rtreport *rep, char *const *paths, int nz, const ep_rtzones_opts *o);

#endif
