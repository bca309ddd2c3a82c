/*
 * rtcubic.h — what a reduced-dynamics runtime runs on a cubic file (kind
 * cubic: polycoef's polynomials), checked and timed (rtcheck(1); MATH.md
 * §4-5, 001 §2.6-2.9): the polynomial force against the full StVK force of
 * the mesh, the runtime stiffness polynomial against the coefficients and
 * against differences of the force, a static solve that must find a pulled
 * shape again, and the model released from that shape — damped, the energy
 * must decay; undamped, the integrator must keep it.
 */
#ifndef EP_RTCUBIC_H
#define EP_RTCUBIC_H

#include "h5.h"
#include "rtreport.h"

typedef struct ep_rtcubic_opts {
    long trials;         /* random force checks (at most 5 are made) */
    long steps;          /* Newmark steps of each release */
    int threads;         /* evaluation threads (1 or 2) */
    unsigned long seed;
    double dt;           /* time step; 0: 1/20 of the fastest basis period */
    double alpha;        /* Rayleigh mass factor */
    double beta;         /* Rayleigh stiffness factor; NaN: 1% damping of the slowest mode */
    double energy_tol;   /* allowed undamped energy drift */
} ep_rtcubic_opts;

/* Run the checks on the open cubic file f into rep.  Cost: up to 5 full
 * StVK force evaluations O(ne) and r + 1 polynomial forces each; 10 static
 * load steps; 2 x steps Newmark steps (one tangent evaluation, O(r^4 / 4),
 * per Newton iteration).  Returns 0 (the verdict is in rep); EP_EINPUT (a
 * file that is not a consistent cubic file, P not positive definite),
 * EP_ECOMPUTE. */
int ep_rtcubic_run(ep_rtreport *rep, ep_h5 *f, const ep_rtcubic_opts *o);

#endif
