/*
 * rtcubature.c — a cubature file run as a runtime runs it (rtcubature.h).
 */
#include "rtcubature.h"
#include "cubature.h"
#include "cubature_file.h"
#include "err.h"
#include "model.h"
#include "reduced.h"
#include "rng.h"
#include "stats.h"

#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    ep_mesh m;
    ep_cubature_file cf;
    ep_cubature c;
    double *w, *R, *K, *Rp, *Rm, *G, *q, *d;
} run;

static void run_free(run *X)
{
    ep_cubature_free(&X->c);
    ep_cubature_file_free(&X->cf);
    ep_mesh_free(&X->m);
    free(X->w), free(X->R), free(X->K), free(X->Rp), free(X->Rm), free(X->G), free(X->q), free(X->d);
}

/* rms and largest |R~ - g| / |g| over the held-out poses. */
static int heldout(run *X, double *rms, double *worst)
{
    int r = X->c.r, H = X->cf.H, st;
    double sum = 0;
    *worst = 0;
    if ((st = ep_cubature_contributions(&X->m, X->m.material, X->c.law, X->cf.U, r, NULL, 0, X->cf.heldout_q, H, NULL,
                                        X->G)))
        return st;
    for (int t = 0; t < H; t++) {
        const double *g = X->G + (size_t)t * r;
        double e2 = 0, g2 = 0;
        ep_cubature_eval(&X->c, X->cf.heldout_q + (size_t)t * r, X->R, NULL, X->w);
        for (int i = 0; i < r; i++)
            e2 += (X->R[i] - g[i]) * (X->R[i] - g[i]), g2 += g[i] * g[i];
        double rel = g2 > 0 ? sqrt(e2 / g2) : NAN;
        sum += rel * rel;
        *worst = ep_rtreport_worst(*worst, rel);
    }
    *rms = H ? sqrt(sum / H) : NAN;
    return EP_OK;
}

/* max |K d - (R(q + h d) - R(q - h d)) / 2h| / |K d| at pose q, d random. */
static double tangent_error(run *X, const double *q0, unsigned long seed)
{
    int r = X->c.r;
    ep_rng g = ep_rng_seed(seed, 9);
    double qn = 0, h, kd2 = 0, e2 = 0;
    for (int i = 0; i < r; i++)
        X->d[i] = 2 * ep_rng_uniform(&g) - 1, qn = fmax(qn, fabs(q0[i]));
    h = 1e-6 * (qn > 0 ? qn : 1);
    ep_cubature_eval(&X->c, q0, NULL, X->K, X->w);
    for (int i = 0; i < r; i++)
        X->q[i] = q0[i] + h * X->d[i];
    ep_cubature_eval(&X->c, X->q, X->Rp, NULL, X->w);
    for (int i = 0; i < r; i++)
        X->q[i] = q0[i] - h * X->d[i];
    ep_cubature_eval(&X->c, X->q, X->Rm, NULL, X->w);
    for (int i = 0; i < r; i++) {
        double kd = 0;
        for (int j = 0; j < r; j++)
            kd += X->K[(size_t)i * r + j] * X->d[j];
        kd2 += kd * kd;
        e2 += (kd - (X->Rp[i] - X->Rm[i]) / (2 * h)) * (kd - (X->Rp[i] - X->Rm[i]) / (2 * h));
    }
    return kd2 > 0 ? sqrt(e2 / kd2) : NAN;
}

/* The release from q0: steps of dt = 1/20 of the fastest period of K(0);
 * the time per step, and 1 when the state stayed finite. */
static int release(run *X, const double *q0, long steps, double *step_us, int *finite)
{
    int r = X->c.r, st;
    double *ev = X->Rp;
    memset(X->q, 0, (size_t)r * sizeof *X->q);
    ep_cubature_eval(&X->c, X->q, NULL, X->K, X->w);
    if (LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'U', r, X->K, r, ev))
        return ep_fail(EP_ECOMPUTE, "eigenvalues of K(0) failed");
    if (!(ev[r - 1] > 0))
        return ep_fail(EP_EINPUT, "the cubature's K(0) has no positive eigenvalue");
    ep_reduced n = {0};
    double dt = 2 * M_PI / sqrt(ev[r - 1]) / 20;
    if ((st = ep_reduced_init_cubature(&n, &X->c, dt, 0, 0)))
        return st;
    ep_reduced_start(&n, q0, NULL, NULL);
    double t0 = ep_now();
    for (long k = 0; !st && k < steps; k++)
        st = ep_reduced_step(&n, NULL);
    *step_us = steps ? 1e6 * (ep_now() - t0) / (double)steps : 0;
    *finite = 1;
    for (int i = 0; i < r; i++)
        *finite &= isfinite(n.q[i]) && isfinite(n.qd[i]);
    ep_reduced_free(&n);
    return st;
}

int ep_rtcubature_run(ep_rtreport *rep, ep_h5 *f, const ep_rtcubature_opts *o)
{
    run X = {0};
    int st, r, finite = 0;
    if ((st = ep_model_load(&X.m, f)))
        goto out;
    if (!X.m.tets || !X.m.material) {
        st = ep_fail(EP_EINPUT, "%s: a cubature file carries its tet mesh and material", f->path);
        goto out;
    }
    if ((st = ep_cubature_file_read(&X.cf, f, X.m.nv, X.m.ne)) ||
        (st = ep_cubature_prepare(&X.c, &X.m, X.m.material, X.cf.law, X.cf.U, X.cf.r, X.cf.elem, X.cf.w, X.cf.n)))
        goto out;
    r = X.c.r;
    if (!X.cf.H) {
        st = ep_fail(EP_EINPUT, "%s: no held-out poses to check the cubature on", f->path);
        goto out;
    }
    X.w = ep_malloc((size_t)ep_cubature_work(&X.c) + 1, sizeof *X.w);
    X.R = ep_malloc((size_t)r, sizeof *X.R), X.Rp = ep_malloc((size_t)r, sizeof *X.Rp);
    X.Rm = ep_malloc((size_t)r, sizeof *X.Rm), X.K = ep_malloc((size_t)r * r, sizeof *X.K);
    X.G = ep_malloc((size_t)X.cf.H * r, sizeof *X.G), X.q = ep_malloc((size_t)r, sizeof *X.q);
    X.d = ep_malloc((size_t)r, sizeof *X.d);
    if (!X.w || !X.R || !X.Rp || !X.Rm || !X.K || !X.G || !X.q || !X.d) {
        st = EP_ECOMPUTE;
        goto out;
    }
    double rms, worst, step_us = 0;
    if ((st = heldout(&X, &rms, &worst)))
        goto out;
    double terr = tangent_error(&X, X.cf.heldout_q, o->seed);
    double t0 = ep_now(), c0 = ep_stats_thread_cpu();
    long evals = o->evals > 0 ? o->evals : 1;
    for (long k = 0; k < evals; k++)
        ep_cubature_eval(&X.c, X.cf.heldout_q + (size_t)(k % X.cf.H) * r, X.R, X.K, X.w);
    double us = 1e6 * (ep_now() - t0) / (double)evals, cpu_us = 1e6 * (ep_stats_thread_cpu() - c0) / (double)evals;
    if ((st = release(&X, X.cf.heldout_q, o->steps, &step_us, &finite)))
        goto out;
    rep->kind = "cubature";
    ep_rtreport_fact(rep, "basis vectors", r);
    ep_rtreport_fact(rep, "elements", X.c.n);
    ep_rtreport_fact(rep, "held-out poses", X.cf.H);
    ep_rtreport_fact(rep, "held-out force error (largest)", worst);
    ep_rtreport_fact(rep, "runtime data (KiB)", (double)ep_cubature_runtime_bytes(&X.c) / 1024.0);
    ep_rtreport_fact(rep, "R + K GFlop/s", ep_cubature_flops(&X.c) / us * 1e-3);
    ep_rtreport_fact(rep, "R + K GFlop/s per CPU second", ep_cubature_flops(&X.c) / cpu_us * 1e-3);
    ep_rtreport_check_value(rep, "held-out force error (rms) against U^T f(Uq), within 2 tau", rms, 2 * X.cf.tau);
    ep_rtreport_check_value(rep, "held-out error as the file states it (relative difference)",
                            fabs(rms - X.cf.heldout_error) / fmax(X.cf.heldout_error, 1e-300), 1e-6);
    ep_rtreport_check_value(rep, "tangent K against differences of R", terr, 1e-5);
    ep_rtreport_check_value(rep, "Newmark release stays finite (0: yes)", !finite, 0);
    ep_rtreport_time(rep, "R + K evaluation", us);
    ep_rtreport_time(rep, "R + K evaluation (thread CPU)", cpu_us);
    ep_rtreport_time(rep, "Newmark step (1 iteration)", step_us);
out:
    run_free(&X);
    return st;
}
