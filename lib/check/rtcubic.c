/*
 * rtcubic.c — reduced dynamics on a cubic file, checked and timed
 * (rtcubic.h).
 */
#include "rtcubic.h"
#include "cubic.h"
#include "cubic_file.h"
#include "err.h"
#include "mesh.h"
#include "model.h"
#include "reduced.h"
#include "rng.h"
#include "stats.h"
#include "stvk.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The state of one run: the file's model and polynomials, and r-vectors. */
typedef struct {
    const ep_rtcubic_opts *o;
    ep_mesh m;
    ep_cubic c;
    ep_cubic_tangent t;
    ep_stvk sv;
    double *U;              /* [r][3nv] the basis */
    int r, nv;
    double diameter;
    double *u, *fu;         /* [3nv] a displacement and its StVK force */
    double *w;              /* polynomial and tangent workspace */
    double *K, *Kfd;        /* [r][r] tangents */
    double *q, *R, *Rf, *R2, *Rp, *Rm; /* [r] each */
    double w1, wmax;        /* the basis's slowest and fastest angular frequencies */
} run;

static void run_free(run *X)
{
    ep_stvk_free(&X->sv);
    ep_cubic_tangent_free(&X->t);
    ep_cubic_free(&X->c);
    ep_mesh_free(&X->m);
    free(X->U), free(X->u), free(X->fu), free(X->w), free(X->K), free(X->q);
}

/* Read the model (tets or hexes, and material) and the polynomials; prepare the
 * runtime polynomial and the StVK reference. */
static int run_open(run *X, ep_h5 *f, const ep_rtcubic_opts *o)
{
    int st;
    X->o = o;
    if ((st = ep_model_load(&X->m, f)))
        return st;
    if (!ep_mesh_nelements(&X->m) || !X->m.material)
        return ep_fail(EP_EINPUT, "%s: a cubic file carries the volumetric mesh and its material", f->path);
    if ((st = ep_material_check(X->m.material, 0.5, f->path)) || (st = ep_cubic_file_read(&X->c, f, X->m.nv, &X->U)) ||
        (st = ep_cubic_tangent_prepare(&X->t, &X->c)) || (st = ep_cubic_tangent_threads(&X->t, o->threads)) ||
        (st = ep_stvk_init(&X->sv, &X->m, X->m.material)))
        return st;
    int r = X->r = X->c.r;
    X->nv = X->m.nv;
    X->diameter = ep_mesh_diameter(&X->m);
    size_t nw = (size_t)(ep_cubic_npairs(r) + ep_cubic_ntriples(r) + ep_cubic_tangent_work(r) + 8 * r);
    if (!(X->u = ep_malloc(3 * (size_t)X->nv, sizeof *X->u)) || !(X->fu = ep_malloc(3 * (size_t)X->nv, sizeof *X->fu)) ||
        !(X->w = ep_malloc(nw, sizeof *X->w)) || !(X->K = ep_malloc(2 * (size_t)r * r, sizeof *X->K)) ||
        !(X->q = ep_malloc(6 * (size_t)r, sizeof *X->q)))
        return EP_ECOMPUTE;
    X->Kfd = X->K + (size_t)r * r;
    X->R = X->q + r, X->Rf = X->R + r, X->R2 = X->Rf + r, X->Rp = X->R2 + r, X->Rm = X->Rp + r;
    return EP_OK;
}

/* Largest vertex displacement of u = U^T q (u overwritten). */
static double max_disp(const run *X, const double *q, double *u)
{
    int nv = X->nv;
    double m = 0;
    memset(u, 0, 3 * (size_t)nv * sizeof *u);
    for (int i = 0; i < X->r; i++)
        cblas_daxpy(3 * nv, q[i], &X->U[(size_t)i * 3 * nv], 1, u, 1);
    for (int v = 0; v < nv; v++)
        m = ep_rtreport_worst(m, sqrt(u[3 * v] * u[3 * v] + u[3 * v + 1] * u[3 * v + 1] + u[3 * v + 2] * u[3 * v + 2]));
    return m;
}

/* R(q) against U f(U^T q) at random q of 10 % model-size displacement; the
 * runtime polynomial against the coefficients; its tangent against central
 * differences of R. */
static int check_forces(run *X, ep_rtreport *rep)
{
    int r = X->r, nv = X->nv, st;
    double *q = X->q, force_err = 0, tangent_err = 0, eval_err = 0;
    ep_rng rng = ep_rng_seed(X->o->seed, 7);
    for (long k = 0; k < X->o->trials && k < 5; k++) {
        for (int i = 0; i < r; i++)
            q[i] = ep_rng_uniform(&rng) - 0.5;
        double s = 0.1 * X->diameter / max_disp(X, q, X->u);
        for (int i = 0; i < r; i++)
            q[i] *= s;
        max_disp(X, q, X->u);
        if ((st = ep_stvk_force(&X->sv, X->u, X->fu)))
            return st;
        cblas_dgemv(CblasRowMajor, CblasNoTrans, r, 3 * nv, 1.0, X->U, 3 * nv, X->fu, 1, 0.0, X->Rf, 1);
        ep_cubic_force(&X->c, q, X->R, X->w);
        force_err = ep_rtreport_worst(force_err, ep_rtreport_rel_diff(X->R, X->Rf, (size_t)r));
        ep_cubic_tangent_eval(&X->t, q, X->R2, X->K, X->w);
        eval_err = ep_rtreport_worst(eval_err, ep_rtreport_rel_diff(X->R2, X->R, (size_t)r));
        double h = 1e-6 * s;
        for (int j = 0; j < r; j++) { /* tangent column j by central differences */
            double keep = q[j];
            q[j] = keep + h;
            ep_cubic_force(&X->c, q, X->Rp, X->w);
            q[j] = keep - h;
            ep_cubic_force(&X->c, q, X->Rm, X->w);
            q[j] = keep;
            for (int i = 0; i < r; i++)
                X->Kfd[(size_t)i * r + j] = (X->Rp[i] - X->Rm[i]) / (2 * h);
        }
        tangent_err = ep_rtreport_worst(tangent_err, ep_rtreport_rel_diff(X->K, X->Kfd, (size_t)r * r));
    }
    ep_rtreport_check_value(rep, "R(q) vs U f(U^T q), full StVK force", force_err, 1e-8);
    ep_rtreport_check_value(rep, "runtime R(q) vs coefficient R(q)", eval_err, 1e-10);
    ep_rtreport_check_value(rep, "runtime tangent vs differences of R", tangent_err, 1e-5);
    return EP_OK;
}

/* The basis's slowest and fastest frequencies (eigenvalues of P = U K U^T),
 * and q along the softest direction at 2 % of the model size. */
static int softest(run *X, const char *path)
{
    int r = X->r;
    double *Pc = ep_malloc((size_t)r * r + r, sizeof *Pc), *ev = Pc ? Pc + (size_t)r * r : NULL;
    if (!Pc)
        return EP_ECOMPUTE;
    memcpy(Pc, X->c.P, (size_t)r * r * sizeof *Pc);
    int bad = LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'V', 'U', r, Pc, r, ev);
    X->w1 = sqrt(fmax(ev[0], 0)), X->wmax = sqrt(fmax(ev[r - 1], 0));
    for (int i = 0; i < r; i++)
        X->q[i] = Pc[(size_t)i * r]; /* column 0: the softest direction */
    free(Pc);
    if (bad || !(X->w1 > 0))
        return ep_fail(EP_EINPUT, "%s: /cubic/P (= U K U^T) is not positive definite", path);
    double s0 = 0.02 * X->diameter / max_disp(X, X->q, X->u);
    for (int i = 0; i < r; i++)
        X->q[i] *= s0;
    return EP_OK;
}

/* Pull along the softest direction: the static solve must find that shape
 * again from rest, in 10 load steps (they keep Newton on the branch through
 * q = 0). */
static int check_static(run *X, ep_rtreport *rep)
{
    int r = X->r, iters = 0, st;
    double *qs = X->Rp, *fpull = X->Rm, *fk = X->R2;
    ep_cubic_force(&X->c, X->q, fpull, X->w);
    memset(qs, 0, (size_t)r * sizeof *qs);
    for (int k = 1; k <= 10; k++) {
        int it;
        for (int i = 0; i < r; i++)
            fk[i] = fpull[i] * k / 10;
        if ((st = ep_reduced_static(&X->t, fk, qs, 50, 1e-12, &it)))
            return st;
        iters += it;
    }
    ep_rtreport_check_value(rep, "static solve recovers the pulled shape", ep_rtreport_rel_diff(qs, X->q, (size_t)r),
                            1e-8);
    ep_rtreport_fact(rep, "static Newton iterations (10 load steps)", iters);
    return EP_OK;
}

/* Release from q0 at rest for o->steps steps with `iterations` Newton
 * iterations per step (converged to 1e-10 when more than one): the largest
 * relative energy change from the start, the final energy over the start,
 * the largest |q| over |q0|, and the median seconds per step.  The steps are
 * timed in a run of their own, as a simulator's loop makes them: the energy
 * check reads the 1.2 MB force polynomial every step and would evict the
 * stiffness polynomial the step needs. */
static int release(run *X, double dt, double alpha, double beta, int iterations, double *change, double *final,
                   double *growth, double *sec)
{
    ep_reduced nm = {0};
    ep_stats ts = {0};
    const double *q0 = X->q;
    int r = X->r, st;
    double q0n = 0;
    if ((st = ep_reduced_init(&nm, &X->t, dt, alpha, beta)))
        goto out;
    nm.iterations = iterations;
    nm.tol = iterations > 1 ? 1e-10 : 0;
    ep_reduced_start(&nm, q0, NULL, NULL);
    for (long k = 0; k < X->o->steps && !st; k++) {
        double t0 = ep_now();
        if (!(st = ep_reduced_step(&nm, NULL)))
            st = ep_stats_add(&ts, ep_now() - t0);
    }
    ep_reduced_start(&nm, q0, NULL, NULL);
    double E0 = ep_reduced_energy(&X->c, q0, X->w);
    for (int i = 0; i < r; i++)
        q0n += q0[i] * q0[i];
    *change = 0, *growth = 0;
    for (long k = 0; k < X->o->steps && !st; k++) {
        st = ep_reduced_step(&nm, NULL);
        double E = ep_reduced_energy(&X->c, nm.q, X->w), qn = 0;
        for (int i = 0; i < r; i++)
            E += 0.5 * nm.qd[i] * nm.qd[i], qn += nm.q[i] * nm.q[i];
        *change = ep_rtreport_worst(*change, iterations > 1 ? fabs(E - E0) / E0 : (E - E0) / E0);
        *growth = ep_rtreport_worst(*growth, sqrt(qn / q0n));
        *final = E / E0;
    }
    *sec = ts.n ? ep_stats_median(&ts) : 0;
out:
    ep_reduced_free(&nm);
    ep_stats_free(&ts);
    return st;
}

/* With damping (one Newton iteration per step, as a runtime runs) the
 * energy decays; without, the integrator conserves it. */
static int check_release(run *X, ep_rtreport *rep)
{
    const ep_rtcubic_opts *o = X->o;
    double dt = o->dt > 0 ? o->dt : 2 * M_PI / X->wmax / 20, beta = isnan(o->beta) ? 0.02 / X->w1 : o->beta;
    double change, final, growth, sec;
    int st;
    ep_rtreport_fact(rep, "r", X->r);
    ep_rtreport_fact(rep, "evaluation threads", (double)o->threads);
    ep_rtreport_fact(rep, "slowest period (s)", 2 * M_PI / X->w1);
    ep_rtreport_fact(rep, "fastest period (s)", 2 * M_PI / X->wmax);
    ep_rtreport_fact(rep, "time step (s)", dt);
    ep_rtreport_fact(rep, "steps", (double)o->steps);
    if ((st = release(X, dt, o->alpha, beta, 1, &change, &final, &growth, &sec)))
        return st;
    ep_rtreport_fact(rep, "damped: final energy / initial", final);
    ep_rtreport_check_value(rep, "damped: energy never rises (relative)", change, 1e-6);
    ep_rtreport_check_value(rep, "damped: energy decays (final / initial)", final, 1 - 1e-3);
    ep_rtreport_check_value(rep, "damped: bounded, max |q| / |q0|", growth, 10);
    ep_rtreport_time(rep, "Newmark step, 1 Newton iteration", sec * 1e6);
    if ((st = release(X, dt, 0, 0, 10, &change, &final, &growth, &sec)))
        return st;
    ep_rtreport_check_value(rep, "undamped: energy drift (relative)", change, o->energy_tol);
    ep_rtreport_check_value(rep, "undamped: bounded, max |q| / |q0|", growth, 10);
    ep_rtreport_time(rep, "Newmark step, Newton converged", sec * 1e6);
    return EP_OK;
}

int ep_rtcubic_run(ep_rtreport *rep, ep_h5 *f, const ep_rtcubic_opts *o)
{
    run X;
    int st;
    memset(&X, 0, sizeof X);
    rep->kind = "cubic";
    if (!(st = run_open(&X, f, o)) && !(st = check_forces(&X, rep)) && !(st = softest(&X, f->path)) &&
        !(st = check_static(&X, rep)))
        st = check_release(&X, rep);
    run_free(&X);
    return st;
}
