/*
 * rtpshell.h — pointshell / distance-field contact run and checked
 * (rtcheck(1) on a pointshell file with a distfield file and, optionally,
 * the cubic file of the reduced model the pointshell is bound to; 001
 * §3.5-3.10, MATH.md §11):
 *
 *   scripted trajectory  the field object lowered onto the pointshell
 *                        object until it touches, pushed in by 2 % of the
 *                        pointshell's size, then slid sideways by 25 %
 *                        (as 001 Fig. 3.26), one contact cycle a step, with
 *                        the reduced Newmark step under the reduced force in
 *                        the loop when a cubic file is given: per-cycle
 *                        time, nodes traversed, contacts; every cycle's
 *                        force, torque and reduced force against brute
 *                        force over all points (equal: the same contact set),
 *                        after the run, so the cycles run back to back with
 *                        warm caches as a haptic loop's do
 *   temporal coherence   the trajectory again with the q of the first pass
 *                        and vmax the largest motion of a point relative
 *                        to the field in one cycle (the field's step plus
 *                        max |U_s| |dq|): the node visits skipped, and
 *                        every cycle's answer against brute force (equal)
 *   refinement           at the deepest pose, the force of levels 2..L
 *   budget               the same pose under a warm threshold of a tenth of
 *                        the nodes a full traversal visits: the level
 *                        reached and its force, which equals brute force
 *                        to that level (graceful degradation)
 *   sphere bound         every point within every ancestor's sphere
 *                        R_i,0 + sum a_ij |q_j| for random q, half of them
 *                        moving the model by 20 % of its size
 *   normals              (with the cubic file) the deformed normals n_s
 *                        (eq. 3.8) against the normals of the deformed
 *                        source surface (its vertices embedded in the
 *                        simulation mesh), at q moving the model by 5 %
 *                        (001 Fig. 3.7: at most 5.2 degrees there)
 *   speed                brute force's time over the traversal's at the
 *                        deepest pose; nodes traversed per microsecond
 */
#ifndef EP_RTPSHELL_H
#define EP_RTPSHELL_H

#include "h5.h"
#include "mesh.h"
#include "pscontact.h"
#include "rtreport.h"

/* The trajectory's frame (also tests/bench/pscycle.c): the pointshell's
 * rest box lo..hi and size (its diagonal), the field object's box
 * flo..fhi (its model's vertices), and z0, the height of the field
 * object's lowest point at which it first touches the pointshell object at
 * q (bisection on brute force over every point). */
typedef struct ep_rtpshell_frame {
    double lo[3], hi[3], flo[3], fhi[3], size, z0;
} ep_rtpshell_frame;

/* The frame of the pointshell c and the field s of the model fm, at q.
 * Cost 40 brute-force passes (ep_pscontact_brute). */
void ep_rtpshell_frame_init(ep_rtpshell_frame *f, ep_pscontact *c, const ep_sdf *s, const ep_mesh *fm,
                            const double *q);

/* The field object's pose in f: its box centred over the pointshell's,
 * its lowest point at height z, shifted by dx along x; x_c the centre of
 * the pointshell's box.  The trajectory's deepest pose is z = f->z0 - 0.02
 * f->size, dx = 0.125 f->size. */
void ep_rtpshell_place(const ep_rtpshell_frame *f, double z, double dx, ep_pscontact_pose *p);

typedef struct ep_rtpshell_opts {
    long cycles;        /* trajectory cycles (>= 10) */
    long trials;        /* random q of the sphere bound */
    unsigned long seed;
} ep_rtpshell_opts;

/* Run the above on the open pointshell file ps, distfield file df and
 * (NULL or) cubic file cf into rep.  Returns 0 (the verdict is in rep);
 * EP_EINPUT (inconsistent files: a cubic basis of another size than the
 * binding); EP_ECOMPUTE. */
int ep_rtpshell_run(ep_rtreport *rep, ep_h5 *ps, ep_h5 *df, ep_h5 *cf, const ep_rtpshell_opts *o);

#endif
