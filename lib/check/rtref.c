/*
 * rtref.c — a reduced model run along a full-space trajectory (rtref.h).
 */
#include "rtref.h"
#include "cubature.h"
#include "cubature_file.h"
#include "cubic.h"
#include "cubic_file.h"
#include "err.h"
#include "fem.h"
#include "modal.h"
#include "model.h"
#include "modes_file.h"
#include "reduced.h"
#include "trajectory.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { NFREQ = 5 }; /* frequencies reported */

typedef struct {
    ep_mesh m, mm;         /* the trajectory's model, the reduced model's mesh */
    ep_trajectory tr;
    ep_cubic c;
    ep_cubic_tangent t;
    ep_cubature cub;       /* a cubature file's (cub.n > 0 or is_cub) */
    int is_cub;
    double *P0;            /* [r][r] K(0): c.P, or the cubature's K at 0 */
    double *U;             /* [r][3nv] */
    int r, nv;
    cholmod_common cc;
    cholmod_sparse *M;     /* the mass over every vertex (upper) */
    double *x, *mx, *f, *q, *fr;
} run;

/* y = M x over every vertex (full-length). */
static void mass_times(run *X, const double *x, double *y)
{
    cholmod_dense xd = {(size_t)3 * X->nv, 1, (size_t)3 * X->nv, (size_t)3 * X->nv, (void *)x, NULL,
                        CHOLMOD_REAL, CHOLMOD_DOUBLE};
    cholmod_dense yd = xd;
    double one[2] = {1, 0}, zero[2] = {0, 0};
    yd.x = y;
    cholmod_sdmult(X->M, 0, one, zero, &xd, &yd, &X->cc);
}

/* The reduced model of f: a cubic file, or the linear modes of a modes file. */
static int read_model(run *X, ep_h5 *f)
{
    int st;
    if ((st = ep_model_load(&X->mm, f)))
        return st;
    if (X->mm.nv != X->nv || ep_mesh_nelements(&X->mm) != ep_mesh_nelements(&X->m) ||
        memcmp(X->mm.vertices, X->m.vertices, sizeof(double) * 3 * (size_t)X->nv))
        return ep_fail(EP_EINPUT, "%s: the model of another mesh than the trajectory's", f->path);
    if (!strcmp(f->kind, "cubic"))
        return ep_cubic_file_read(&X->c, f, X->nv, &X->U);
    if (!strcmp(f->kind, "cubature")) { /* R, K from the cubature on the trajectory's model (its material) */
        ep_cubature_file cf = {0};
        if (!(st = ep_cubature_file_read(&cf, f, X->nv, X->m.ne)) && strcmp(ep_law_name(cf.law), X->tr.law))
            st = ep_fail(EP_EINPUT, "%s: a cubature of law %s, the trajectory's law is %s", f->path,
                         ep_law_name(cf.law), X->tr.law);
        if (!st && !(st = ep_cubature_prepare(&X->cub, &X->m, X->m.material, cf.law, cf.U, cf.r, cf.elem, cf.w, cf.n)))
            X->is_cub = 1, X->U = cf.U, cf.U = NULL, X->c.r = cf.r;
        ep_cubature_file_free(&cf);
        return st;
    }
    if (strcmp(f->kind, "modes"))
        return ep_fail(EP_EINPUT, "%s: a reduced model is a cubic, cubature or modes file, not \"%s\"", f->path,
                       f->kind);
    double *lambda = NULL;
    int k, lumped;
    if (!(st = ep_modes_file_read_modes(f, X->nv, 0, &lambda, &X->U, &k, &lumped)) && !(st = ep_cubic_alloc(&X->c, k)))
        for (int i = 0; i < k; i++) /* psi^T K psi = lambda for M-orthonormal modes */
            X->c.P[(size_t)i * k + i] = lambda[i];
    free(lambda);
    return st;
}

/* The lowest full and reduced frequencies (Hz), up to NFREQ of each. */
static int frequencies(run *X, ep_h5 *traj, double *full, double *red, int *n)
{
    int r = X->r, nf = r < NFREQ ? r : NFREQ, st, nfixed = 0, *fixed = NULL;
    double *P = ep_malloc((size_t)r * r, sizeof *P), *w = ep_malloc((size_t)r, sizeof *w);
    if (!P || !w) {
        free(P), free(w);
        return EP_ECOMPUTE;
    }
    memcpy(P, X->P0, sizeof *P * (size_t)r * r);
    st = LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'U', r, P, r, w) ? ep_fail(EP_ECOMPUTE, "eigenvalues of P failed") : 0;
    for (int i = 0; !st && i < nf; i++)
        red[i] = sqrt(fmax(w[i], 0)) / (2 * M_PI);
    free(P), free(w);
    ep_modal s = {0};
    char *mask = ep_calloc((size_t)X->nv + 1, 1);
    double *lam = ep_malloc((size_t)nf, sizeof *lam), *V = ep_malloc((size_t)nf * 3 * X->nv, sizeof *V);
    if (!st && (!mask || !lam || !V))
        st = EP_ECOMPUTE;
    if (!st && ep_h5_exists(traj, "/constraints/fixed") && !(st = ep_model_read_fixed(traj, X->nv, &fixed, &nfixed)))
        for (int i = 0; i < nfixed; i++)
            mask[fixed[i]] = 1;
    if (!st && !(st = ep_modal_setup(&s, &X->m, X->m.material, nfixed ? mask : NULL, !strcmp(X->tr.mass, "lumped"))) &&
        !(st = ep_modal_eigs(&s, nf, lam, V)))
        for (int i = 0; i < nf; i++)
            full[i] = sqrt(fmax(lam[i], 0)) / (2 * M_PI);
    *n = nf;
    ep_modal_free(&s);
    free(mask), free(lam), free(V), free(fixed);
    return st;
}

static void run_free(run *X)
{
    ep_cubic_tangent_free(&X->t);
    ep_cubic_free(&X->c);
    ep_cubature_free(&X->cub);
    free(X->P0);
    ep_trajectory_free(&X->tr);
    ep_mesh_free(&X->m), ep_mesh_free(&X->mm);
    if (X->M)
        cholmod_free_sparse(&X->M, &X->cc);
    cholmod_finish(&X->cc);
    free(X->U), free(X->x), free(X->mx), free(X->f), free(X->q);
}

/* q = U^T M x (U mass-orthonormal: the M-projection's coordinates). */
static void project(run *X, const double *x, double *q)
{
    mass_times(X, x, X->mx);
    cblas_dgemv(CblasRowMajor, CblasNoTrans, X->r, 3 * X->nv, 1.0, X->U, 3 * X->nv, X->mx, 1, 0.0, q, 1);
}

/* |u - U q|_M, and |u|_M into *norm. */
static double error(run *X, const double *u, const double *q, double *norm)
{
    size_t n3 = 3 * (size_t)X->nv;
    mass_times(X, u, X->mx);
    *norm = sqrt(cblas_ddot((int)n3, u, 1, X->mx, 1));
    memcpy(X->x, u, n3 * sizeof *X->x);
    cblas_dgemv(CblasRowMajor, CblasTrans, X->r, (int)n3, -1.0, X->U, (int)n3, q, 1, 1.0, X->x, 1);
    mass_times(X, X->x, X->mx);
    return sqrt(fmax(cblas_ddot((int)n3, X->x, 1, X->mx, 1), 0));
}

/* The reduced run along the trajectory: e at each stored state, the time per step. */
static int simulate(run *X, double *e, double *step_us)
{
    ep_trajectory *T = &X->tr;
    int r = X->r, st, it;
    size_t n3 = 3 * (size_t)X->nv;
    long last = T->step[T->T - 1];
    ep_reduced n = {0};
    double *qd = X->q + r, t_steps = 0;
    project(X, T->u, X->q);
    project(X, T->v, qd);
    if (T->dynamic && (st = X->is_cub ? ep_reduced_init_cubature(&n, &X->cub, T->dt, T->alpha, T->beta)
                                      : ep_reduced_init(&n, &X->t, T->dt, T->alpha, T->beta)))
        return st;
    n.iterations = 20, n.tol = 1e-12;
    ep_trajectory_force(T, 0, X->f);
    cblas_dgemv(CblasRowMajor, CblasNoTrans, r, (int)n3, 1.0, X->U, (int)n3, X->f, 1, 0.0, X->fr, 1);
    if (T->dynamic)
        ep_reduced_start(&n, X->q, qd, X->fr);
    double norm, unorm = 0;
    e[0] = error(X, T->u, X->q, &unorm);
    for (long k = 1, s = 1; k <= last; k++) {
        double time = T->dynamic ? k * T->dt : (double)k / (double)last;
        ep_trajectory_force(T, time, X->f);
        cblas_dgemv(CblasRowMajor, CblasNoTrans, r, (int)n3, 1.0, X->U, (int)n3, X->f, 1, 0.0, X->fr, 1);
        if (!T->dynamic)
            for (int i = 0; i < r; i++)
                X->fr[i] *= time;
        double t0 = ep_now();
        st = T->dynamic  ? ep_reduced_step(&n, X->fr)
             : X->is_cub ? ep_reduced_static_cubature(&X->cub, X->fr, X->q, 50, 1e-12, &it)
                         : ep_reduced_static(&X->t, X->fr, X->q, 50, 1e-12, &it);
        t_steps += ep_now() - t0;
        if (st)
            break;
        if (T->dynamic)
            memcpy(X->q, n.q, sizeof *X->q * (size_t)r);
        if (s < T->T && T->step[s] == k) {
            e[s] = error(X, T->u + (size_t)s * n3, X->q, &norm);
            unorm = fmax(unorm, norm);
            s++;
        }
    }
    ep_reduced_free(&n);
    for (int s = 0; s < T->T; s++)
        e[s] = unorm > 0 ? e[s] / unorm : e[s];
    *step_us = last ? 1e6 * t_steps / (double)last : 0;
    return st;
}

int ep_rtref_run(ep_rtreport *rep, ep_h5 *traj, ep_h5 *model, double tol)
{
    run X = {0};
    int st, nf = 0;
    double full[NFREQ], red[NFREQ], step_us = 0, *e = NULL;
    static const char *fnames[NFREQ][2] = {
        {"full frequency 1 (Hz)", "reduced frequency 1 (Hz)"}, {"full frequency 2 (Hz)", "reduced frequency 2 (Hz)"},
        {"full frequency 3 (Hz)", "reduced frequency 3 (Hz)"}, {"full frequency 4 (Hz)", "reduced frequency 4 (Hz)"},
        {"full frequency 5 (Hz)", "reduced frequency 5 (Hz)"}};
    cholmod_start(&X.cc);
    X.cc.print = 0;
    if ((st = ep_model_load(&X.m, traj)))
        goto out;
    X.nv = X.m.nv;
    if (!ep_mesh_nelements(&X.m) || !X.m.material) {
        st = ep_fail(EP_EINPUT, "%s: a trajectory carries its volumetric mesh and material", traj->path);
        goto out;
    }
    if ((st = ep_trajectory_read(&X.tr, traj, X.nv)) || (st = read_model(&X, model)))
        goto out;
    X.r = X.c.r;
    int *all = NULL, ndof;
    if ((st = ep_fem_dofmap(&X.m, NULL, &all, &ndof)))
        goto out;
    X.M = ndof == 3 * X.nv ? ep_fem_assemble(&X.m, X.m.material, !strcmp(X.tr.mass, "lumped") ? EP_FEM_MASS_LUMPED
                                                                                               : EP_FEM_MASS,
                                              all, ndof, all, ndof, 1, &X.cc)
                           : NULL;
    free(all);
    size_t n3 = 3 * (size_t)X.nv;
    X.x = ep_malloc(n3, sizeof *X.x), X.mx = ep_malloc(n3, sizeof *X.mx), X.f = ep_malloc(n3, sizeof *X.f);
    X.q = ep_calloc(3 * (size_t)X.r + 1, sizeof *X.q), X.fr = X.q + 2 * X.r;
    e = ep_malloc((size_t)X.tr.T, sizeof *e);
    if (!X.M) {
        st = ep_fail(ndof == 3 * X.nv ? EP_ECOMPUTE : EP_EINPUT, "%s: a mesh whose every vertex is in an element",
                     traj->path);
        goto out;
    }
    if (!X.x || !X.mx || !X.f || !X.q || !e) {
        st = EP_ECOMPUTE;
        goto out;
    }
    X.P0 = ep_calloc((size_t)X.r * X.r + 1, sizeof *X.P0);
    if (!X.P0) {
        st = EP_ECOMPUTE;
        goto out;
    }
    if (X.is_cub) { /* K(0) from the cubature */
        double *w = ep_malloc((size_t)ep_cubature_work(&X.cub) + 1, sizeof *w);
        if (!w) {
            st = EP_ECOMPUTE;
            goto out;
        }
        ep_cubature_eval(&X.cub, X.q, NULL, X.P0, w); /* X.q is 0 here */
        free(w);
    } else
        memcpy(X.P0, X.c.P, sizeof *X.P0 * (size_t)X.r * X.r);
    if ((!X.is_cub && (st = ep_cubic_tangent_prepare(&X.t, &X.c))) || (st = simulate(&X, e, &step_us)) ||
        (st = frequencies(&X, traj, full, red, &nf)))
        goto out;
    double emax = 0;
    for (int s = 0; s < X.tr.T; s++)
        emax = ep_rtreport_worst(emax, e[s]);
    rep->kind = "trajectory";
    ep_rtreport_fact(rep, "basis vectors", X.r);
    ep_rtreport_fact(rep, "states compared", X.tr.T);
    ep_rtreport_fact(rep, "e at the end", e[X.tr.T - 1]);
    for (int i = 0; i < nf; i++) {
        ep_rtreport_fact(rep, fnames[i][0], full[i]);
        ep_rtreport_fact(rep, fnames[i][1], red[i]);
    }
    ep_rtreport_fact(rep, "reduced/full frequency 1", red[0] / full[0]);
    ep_rtreport_check_value(rep, "e_max = max |u - Uq|_M / max |u|_M", emax, tol);
    ep_rtreport_time(rep, "full step (fullsim)", 1e6 * X.tr.step_seconds);
    ep_rtreport_time(rep, "reduced step", step_us);
out:
    free(e);
    run_free(&X);
    return st;
}
