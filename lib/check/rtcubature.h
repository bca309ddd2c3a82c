/*
 * rtcubature.h — what a reduced-dynamics runtime runs on a cubature file
 * (kind cubature: cubature(1)'s weighted elements; MATH.md §14), checked
 * and timed (rtcheck(1)): the cubature force R~(q) at the file's held-out
 * poses against the exact U^T f(U q) over every element (rms and largest
 * relative error, within 2 tau, and as the file states it), the tangent
 * K~(q) against central differences of R~, R~ + K~ evaluations timed with
 * their GFlop/s, and the model released from a held-out pose by the
 * reduced Newmark step (reduced.h).
 */
#ifndef EP_RTCUBATURE_H
#define EP_RTCUBATURE_H

#include "h5.h"
#include "rtreport.h"

typedef struct ep_rtcubature_opts {
    long steps;          /* Newmark steps of the release */
    long evals;          /* timed evaluations (R and K) */
    unsigned long seed;
} ep_rtcubature_opts;

/* Run the checks on the open cubature file f into rep.  Cost: H (held-out
 * poses) passes over every element, evals + 2 + steps cubature
 * evaluations.  0 (the verdict in rep), EP_EINPUT (not a consistent
 * cubature file), EP_ECOMPUTE. */
int ep_rtcubature_run(ep_rtreport *rep, ep_h5 *f, const ep_rtcubature_opts *o);

#endif
