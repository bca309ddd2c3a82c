/*
 * rtref.h — the error of a reduced model against a full-space trajectory
 * under the same loads (rtcheck --reference TRAJ.h5 MODEL.h5; MATH.md §13,
 * 001 §2.13, Fig. 2.3, Table 2.1).
 *
 * The reduced model (a cubic file: polycoef's polynomials; a cubature
 * file: cubature(1)'s weighted elements under its law, on the
 * trajectory's material, MATH.md §14; or a modes file: its linear modes,
 * R(q) = diag(lambda) q) is run as a simulator runs
 * it (reduced.h: implicit Newmark, its Newton iterated to convergence, the
 * trajectory's time step and Rayleigh factors; statics: ep_reduced_static
 * at each load factor), started from the mass projection of the full
 * initial state, q0 = U^T M u0, under f~(t) = U^T f_ext(t) (the loads stored
 * in the trajectory).  At each stored state
 *   e(t) = |u(t) - U q(t)|_M / max_t |u(t)|_M,
 * and the report gives e_max (a check against the tolerance), e at the end,
 * the reduced and full small-amplitude frequencies (sqrt of the eigenvalues
 * of P, and of the full model's K psi = lambda M psi, ep_modal_eigs) and the
 * mean time per step of each (the full one: the trajectory's
 * step_seconds).  The reduced damping is alpha I + beta K~(q), the full
 * one's beta K(0): equal at small amplitude.
 */
#ifndef EP_RTREF_H
#define EP_RTREF_H

#include "h5.h"
#include "rtreport.h"

/* Run the reduced model of the open file model (kind cubic, cubature or modes) along
 * the open trajectory traj into rep; tol: the allowed e_max.  Cost: the
 * reduced steps, T mass products O(nnz(M)), one factorization and eigen
 * solve of the full model for its lowest frequencies.  0 (the verdict in
 * rep), EP_EINPUT (models of different meshes, a trajectory without
 * states), EP_ECOMPUTE. */
int ep_rtref_run(ep_rtreport *rep, ep_h5 *traj, ep_h5 *model, double tol);

#endif
