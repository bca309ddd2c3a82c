/*
 * loads.h — the loads of a full-space run (fullsim(1), its load file in
 * elastoprep(5)): forces on vertex sets and gravity, each with a time
 * function, and an initial displacement and velocity (a scaled mode).
 *
 * The load file, one item a line ('#' comments):
 *   force SET FX FY FZ [TIME]    a total force (N) shared equally by the
 *                                vertices of SET
 *   gravity GX GY GZ [TIME]      a body force: the consistent (or lumped)
 *                                mass times the acceleration (m/s^2)
 *   displacement mode FILE I S   initial displacement S psi_I (psi_I mode I,
 *   velocity mode FILE I S       1-based, of a moddesc output; FILE relative
 *                                to the load file's folder)
 * SET: vertex ID (1-based) | box X0 Y0 Z0 X1 Y1 Z1 | region NAME | ids FILE
 * TIME: constant (default) | ramp T (t/T up to T, then 1) |
 *       impulse T0 T1 (1 for T0 < t < T1, 1/2 at T0 > 0 and at T1 (to 1e-9
 *       of T1 - T0), 1 at T0 <= 0, else 0: Newmark's
 *       trapezoidal rule integrates it exactly, F (T1 - T0), when T0 and T1
 *       are multiples of the time step).
 * A static solve takes every load at its full value (time functions 1).
 */
#ifndef EP_LOADS_H
#define EP_LOADS_H

#include "elastic.h"
#include "mesh.h"

typedef enum { EP_LOADS_CONSTANT, EP_LOADS_RAMP, EP_LOADS_IMPULSE } ep_loads_time;

typedef struct ep_loads_item {
    int gravity;          /* 1: gravity, 0: force on ids */
    int *ids, n;          /* the set's vertices (0-based, ascending) */
    double F[3];          /* total force, or the acceleration */
    ep_loads_time fn;
    double t0, t1;        /* ramp: T in t1; impulse: [t0, t1] */
} ep_loads_item;

typedef struct ep_loads_initial {
    int given, mode;      /* mode: 1-based */
    double scale;
    char path[4096];      /* the modes file as the loads name it, resolved */
} ep_loads_initial;

typedef struct ep_loads {
    ep_loads_item *item;
    int nitem;
    ep_loads_initial u0, v0;
    double *base;         /* [nitem][3nv] after ep_loads_bind: each item's force at factor 1 */
    int nv;
} ep_loads;

/* Read the load file path for mesh m.  Errors name file and line: a vertex
 * not in 1..nv, an empty set, a bad time function (T <= 0, T1 <= T0), NaN.
 * 0, EP_EINPUT, EP_EIO.  Free with ep_loads_free in every case. */
int ep_loads_read(ep_loads *L, const char *path, const ep_mesh *m);
void ep_loads_free(ep_loads *L);

/* Form each item's force vector at factor 1 (gravity: M g over the body's
 * unknowns; zero at fixed vertices).  Cost O(nnz(M)) per gravity item.
 * 0 or EP_ECOMPUTE. */
int ep_loads_bind(ep_loads *L, const ep_elastic *b);

/* The time function of item i at t (static != 0: 1). */
double ep_loads_factor(const ep_loads_item *it, double t, int is_static);

/* f_ext(t) = sum_i factor_i(t) base_i, f [3nv].  Cost O(nitem nv). */
void ep_loads_eval(const ep_loads *L, double t, int is_static, double *f);

#endif
