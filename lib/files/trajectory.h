/*
 * trajectory.h — files of kind "trajectory" (elastoprep(5)): a full-space
 * run of fullsim(1), its states every k steps, the loads that drove it,
 * the energies and the Newton history (MATH.md §13), written as the run
 * goes so that a run that fails keeps the states before the failure (the
 * file then says complete = 0 and why).
 *
 *   /trajectory          attributes mode (static|dynamic), law, mass, dt
 *                        (load factor step for statics), alpha, beta, every,
 *                        tol, steps (asked), complete (0|1), message,
 *                        step_seconds (mean wall time of a step)
 *   /trajectory/step     [T] int32 step number of each stored state
 *   /trajectory/time     [T] time (statics: the load factor)
 *   /trajectory/u, v     [T][3nv] displacement and velocity
 *   /trajectory/f_ext    [T][3nv] external force
 *   /trajectory/energy   [T][5] kinetic, elastic, external work, damping
 *                        dissipation, total (nlsolve.h)
 *   /trajectory/iterations [T] int32 Newton iterations of the step
 *   /loads/base          [n][3nv] each load item at factor 1
 *   /loads/time          [n][3] its time function: kind (0 constant,
 *                        1 ramp, 2 impulse), t0, t1 (loads.h)
 *   /newton/history      [N][5] step, iteration, relative residual, line
 *                        search length, shift
 */
#ifndef EP_TRAJECTORY_H
#define EP_TRAJECTORY_H

#include "h5.h"
#include "loads.h"
#include "nlsolve.h"

/* The run's description as the writer stores it. */
typedef struct ep_trajectory_info {
    int dynamic, lumped;
    const char *law;
    double dt, alpha, beta, tol;
    long every, steps;
} ep_trajectory_info;

typedef struct ep_trajectory_writer {
    ep_h5 *f; /* borrowed */
    int nv;
    long n;   /* states written */
    ep_h5_stream step, time, u, v, fext, energy, iters;
} ep_trajectory_writer;

/* Start the groups in f (the model is the caller's) and write the loads and
 * the attributes (complete 0 until ep_trajectory_end).  0 or EP_EIO. */
int ep_trajectory_begin(ep_trajectory_writer *w, ep_h5 *f, int nv, const ep_trajectory_info *info,
                        const ep_loads *L);
/* Append one state.  0 or EP_EIO. */
int ep_trajectory_append(ep_trajectory_writer *w, const ep_nlsolve_state *s);
/* Close the streams, write the Newton history, the mean wall time of a
 * step (attribute step_seconds) and complete (1, or 0 with message: why
 * the run stopped).  0 or EP_EIO. */
int ep_trajectory_end(ep_trajectory_writer *w, int complete, const char *message, const ep_nlsolve_iter *hist,
                      long nhist, double step_seconds);

/* A trajectory read back. */
typedef struct ep_trajectory {
    int nv, T, nitem, dynamic, complete;
    double dt, alpha, beta, step_seconds;
    long every;
    int *step;                    /* [T] */
    double *time, *u, *v, *fext;  /* [T], [T][3nv] x3 */
    double *energy;               /* [T][5] */
    double *base, *tfun;          /* [nitem][3nv], [nitem][3] */
    char law[16], mass[16];
} ep_trajectory;

/* Read the trajectory of the open file f (kind trajectory) of a model of nv
 * vertices.  Values must be finite.  0, EP_EINPUT naming file and object,
 * EP_ECOMPUTE.  Free with ep_trajectory_free in every case. */
int ep_trajectory_read(ep_trajectory *t, ep_h5 *f, int nv);
void ep_trajectory_free(ep_trajectory *t);

/* f_ext at time `time` from the stored loads, f [3nv].  Cost O(nitem nv). */
void ep_trajectory_force(const ep_trajectory *t, double time, double *f);

/* An initial state of the loads (loads.h: S psi_I of a modes file) into
 * out [3nv]; zeros when not given.  0, EP_EINPUT (no such mode, another
 * mesh), EP_EIO. */
int ep_trajectory_initial(const ep_loads_initial *in, int nv, double *out);

#endif
