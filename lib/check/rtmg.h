/*
 * rtmg.h — what a corotated multigrid simulator runs on a multigrid file
 * (kind multigrid: mghier's hierarchy), checked and timed (rtcheck(1);
 * MATH.md §16; 002 Tables 2.8, 2.9, 2.12):
 *   - V-cycles on the file's operators under the model's gravity load:
 *     the residual reduction of each of the first 20 cycles (the worst
 *     after the first below 0.95; the first may raise the residual's
 *     2-norm while the energy norm of the error falls); then CG
 *     preconditioned by the same cycle (ep_vcycle_pcg) to the tolerance
 *     within the cycle limit, its solution against CHOLMOD's on the same K;
 *   - a corotated step at a rigid rotation Q of the rest shape: every
 *     element's polar rotation equals Q, the elastic force vanishes (to
 *     1e-8 of the linear force K (Q X - X) of the same displacement: the
 *     load's scale made steel's rounding a failure), and
 *     the warped system's solution under the rotated load is Q times the
 *     linear one;
 *   - the times of a V-cycle, of the corotated assembly, the update of the
 *     hierarchy and a solve of three V-cycles, beside 002's per tet.
 */
#ifndef EP_RTMG_H
#define EP_RTMG_H

#include "h5.h"
#include "rtreport.h"

typedef struct ep_rtmg_opts {
    double tol;     /* relative residual the V-cycles run to, and the CHOLMOD comparison's tolerance */
    long cycles;    /* most iterations of the preconditioned CG (one V-cycle each) */
    long trials;    /* timed repetitions (the median is reported) */
} ep_rtmg_opts;

/* Run the checks on the open multigrid file f into rep.
 *   Cost      the CHOLMOD factor of level 0, the V-cycles, two corotated
 *             assemblies and updates, the timed trials
 *   Returns   0 (the verdict is in rep); EP_EINPUT (an inconsistent file);
 *             EP_ECOMPUTE. */
int ep_rtmg_run(ep_rtreport *rep, ep_h5 *f, const ep_rtmg_opts *o);

#endif
