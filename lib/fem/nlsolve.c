/*
 * nlsolve.c — Newton on the static or Newmark potential, with load steps,
 * a line search and shifted refactorizations (nlsolve.h).
 */
#include "nlsolve.h"
#include "chol.h"
#include "err.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The potential of one step (nlsolve.h): H = cM M + cK K(0), b, f_ext,
 * all over the unknowns. */
typedef struct {
    double cM, cK;
    const double *xn, *bv, *fe;
} potential;

/* Work of a run: full-length u and f, and vectors over the unknowns. */
typedef struct {
    double *uf, *ff;                  /* [3nv] */
    double *f, *r, *d, *hd, *delta, *xt, *t1, *t2; /* [ndof] */
    cholmod_dense *rhs;
} work;

static double dot(const double *x, const double *y, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}

/* y = (cM M + cK K0) x. */
static void h_times(const ep_elastic *b, double cM, double cK, const double *x, double *y, double *t)
{
    if (cM != 0)
        ep_elastic_symv(b, b->Mx, x, y);
    for (int i = 0; i < b->ndof; i++)
        y[i] = cM != 0 ? cM * y[i] : 0;
    if (cK != 0) {
        ep_elastic_symv(b, b->K0x, x, t);
        for (int i = 0; i < b->ndof; i++)
            y[i] += cK * t[i];
    }
}

/* Phi, r and the scale of convergence at x; the tangent into b->K.
 * *scale: the sum of Phi's terms' magnitudes (what round-off acts on). */
static int evaluate(ep_nlsolve *s, const potential *P, const double *x, work *w, double *phi, double *ref,
                    double *scale, double *W)
{
    ep_elastic *b = s->b;
    int n = b->ndof, st;
    ep_elastic_scatter(b, x, w->uf);
    if ((st = ep_elastic_eval(b, w->uf, W, w->ff, 1)))
        return st;
    ep_elastic_gather(b, w->ff, w->f);
    for (int i = 0; i < n; i++)
        w->d[i] = x[i] - P->xn[i];
    h_times(b, P->cM, P->cK, w->d, w->hd, w->t1);
    double fx = dot(P->fe, x, n), dhd = 0.5 * dot(w->d, w->hd, n), bd = P->bv ? dot(P->bv, w->d, n) : 0;
    *phi = *W - fx + dhd + bd;
    *scale = fabs(*W) + fabs(fx) + fabs(dhd) + fabs(bd);
    for (int i = 0; i < n; i++) {
        w->t1[i] = w->hd[i] + (P->bv ? P->bv[i] : 0);
        w->r[i] = w->f[i] - P->fe[i] + w->t1[i];
    }
    /* the terms apart: H d and b cancel where the body turns (round-off of each counts) */
    double bb = P->bv ? sqrt(dot(P->bv, P->bv, n)) : 0;
    *ref = fmax(fmax(sqrt(dot(P->fe, P->fe, n)), sqrt(dot(w->f, w->f, n))), fmax(sqrt(dot(w->hd, w->hd, n)), bb));
    return EP_OK;
}

/* Factor A = K(u) + H, shifted by tau diag(K(0)) when not positive
 * definite.  *tau: the shift used (0: none). */
static int factor(ep_nlsolve *s, const potential *P, long step, double *tau)
{
    ep_elastic *b = s->b;
    const int *Ap = s->A->p;
    double *Ax = s->A->x, *Kx = b->K->x, t0 = ep_now();
    int nnz = Ap[b->ndof], st = EP_OK;
    *tau = 0;
    /* a linear law's tangent is K(0) at every u: the factor of the same
     * cM, cK serves again (one factorization for a linear run) */
    if (b->law == EP_LAW_LINEAR && s->held && s->held_cM == P->cM && s->held_cK == P->cK)
        return EP_OK;
    s->held = 0;
    for (;; *tau = *tau ? 10 * *tau : 1e-3) {
        for (int p = 0; p < nnz; p++) /* statics: no mass term (a model without density has M NaN) */
            Ax[p] = Kx[p] + (P->cM != 0 ? P->cM * b->Mx[p] : 0) + (P->cK != 0 ? P->cK * b->K0x[p] : 0);
        for (int j = 0; j < b->ndof && *tau > 0; j++)
            Ax[Ap[j + 1] - 1] += *tau * b->K0x[Ap[j + 1] - 1]; /* the diagonal: last of its (upper) column */
        s->nfactor++;
        if (!(st = ep_chol_factorize(s->A, s->F, "the iteration matrix", &b->c)))
            break;
        if (*tau >= 1e3) {
            st = ep_fail(EP_ECOMPUTE, "step %ld: the iteration matrix stays indefinite with a shift of 1e3 diag K(0)",
                         step);
            break;
        }
    }
    s->nshift += *tau > 0;
    s->t_factor += ep_now() - t0;
    s->held = !st && *tau == 0, s->held_cM = P->cM, s->held_cK = P->cK;
    return st;
}

static int solve(ep_nlsolve *s, work *w)
{
    double t0 = ep_now(), *rx = w->rhs->x;
    int n = s->b->ndof;
    for (int i = 0; i < n; i++)
        rx[i] = -w->r[i];
    cholmod_dense *X = cholmod_solve(CHOLMOD_A, s->F, w->rhs, &s->b->c);
    if (!X)
        return ep_chol_fail("the Newton solve", &s->b->c);
    memcpy(w->delta, X->x, (size_t)n * sizeof *w->delta);
    cholmod_free_dense(&X, &s->b->c);
    s->t_solve += ep_now() - t0;
    return EP_OK;
}

static int record(ep_nlsolve *s, long step, int iter, double res, double length, double shift)
{
    if (!(s->nhist & (s->nhist - 1)) || !s->nhist) { /* grow at powers of two */
        ep_nlsolve_iter *h = realloc(s->hist, sizeof *h * (size_t)(s->nhist ? 2 * s->nhist : 16));
        if (!h)
            return ep_fail(EP_ECOMPUTE, "out of memory (Newton history)");
        s->hist = h;
    }
    s->hist[s->nhist++] = (ep_nlsolve_iter){step, iter, res, length, shift};
    return EP_OK;
}

/* Newton with a line search from x (out: the solution) on P.  *W: E(x),
 * *iters, *rel: iterations and the final relative residual. */
static int newton(ep_nlsolve *s, const potential *P, long step, double *x, work *w, double *W, int *iters,
                  double *rel)
{
    int n = s->b->ndof, st;
    double phi, ref, scale;
    if ((st = evaluate(s, P, x, w, &phi, &ref, &scale, W)))
        return st;
    for (int it = 1;; it++) {
        double res = sqrt(dot(w->r, w->r, n));
        *rel = s->last_residual = ref > 0 ? res / ref : 0;
        *iters = it - 1;
        if (*rel <= s->o.tol)
            return EP_OK;
        if (it > s->o.max_iter)
            return ep_fail(EP_ECOMPUTE,
                           "step %ld: Newton did not converge in %d iterations (residual %.3g, relative %.3g > %g)",
                           step, s->o.max_iter, res, *rel, s->o.tol);
        double tau, length = 1;
        if ((st = factor(s, P, step, &tau)) || (st = solve(s, w)))
            return st;
        double slope = dot(w->r, w->delta, n), phit, reft, scalet, Wt;
        for (int tries = 0;; tries++, length *= 0.5) {
            for (int i = 0; i < n; i++)
                w->xt[i] = x[i] + length * w->delta[i];
            if ((st = evaluate(s, P, w->xt, w, &phit, &reft, &scalet, &Wt)))
                return st;
            if (phit <= phi + 1e-4 * length * slope + 1e-12 * fmax(scale, scalet))
                break;
            if (tries == 40)
                return ep_fail(EP_ECOMPUTE, "step %ld: the line search found no decrease (residual %.3g)", step,
                               *rel);
        }
        if ((st = record(s, step, it, *rel, length, tau)))
            return st;
        memcpy(x, w->xt, (size_t)n * sizeof *x);
        phi = phit, ref = reft, scale = scalet, *W = Wt;
    }
}

int ep_nlsolve_init(ep_nlsolve *s, ep_elastic *b, const ep_loads *L, const ep_nlsolve_opts *o)
{
    memset(s, 0, sizeof *s);
    s->b = b, s->L = L, s->o = *o;
    s->A = cholmod_copy_sparse(b->K, &b->c);
    if (!s->A)
        return ep_chol_fail("a copy of the stiffness", &b->c);
    s->F = ep_chol_analyze(s->A, 3, &b->c);
    s->fl = b->c.fl, s->lnz = b->c.lnz;
    return s->F ? EP_OK : ep_chol_fail("the symbolic analysis of the stiffness", &b->c);
}

void ep_nlsolve_free(ep_nlsolve *s)
{
    if (s->b) {
        cholmod_free_sparse(&s->A, &s->b->c);
        cholmod_free_factor(&s->F, &s->b->c);
    }
    free(s->hist);
    memset(s, 0, sizeof *s);
}

static int work_open(work *w, const ep_elastic *b)
{
    size_t n3 = 3 * (size_t)b->m->nv, n = (size_t)b->ndof + 1;
    memset(w, 0, sizeof *w);
    w->uf = ep_malloc(n3, sizeof(double)), w->ff = ep_malloc(n3, sizeof(double));
    double **v[] = {&w->f, &w->r, &w->d, &w->hd, &w->delta, &w->xt, &w->t1, &w->t2};
    int ok = w->uf && w->ff;
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        ok = (*v[i] = ep_calloc(n, sizeof(double))) && ok;
    w->rhs = cholmod_allocate_dense((size_t)b->ndof, 1, (size_t)b->ndof, CHOLMOD_REAL, (cholmod_common *)&b->c);
    return ok && w->rhs ? EP_OK : ep_fail(EP_ECOMPUTE, "out of memory (Newton work)");
}

static void work_close(work *w, ep_elastic *b)
{
    free(w->uf), free(w->ff), free(w->f), free(w->r), free(w->d), free(w->hd), free(w->delta), free(w->xt);
    free(w->t1), free(w->t2);
    cholmod_free_dense(&w->rhs, &b->c);
}

/* The run's state vectors over the unknowns. */
typedef struct {
    double *x, *vx, *ax, *xn, *fe, *fe0, *bv, *full_v, *full_f;
} state;

static int report_state(ep_nlsolve *s, ep_nlsolve_report report, void *ctx, work *w, state *z, long step,
                        double t, double *energy, int iters, double rel)
{
    ep_elastic *b = s->b;
    ep_nlsolve_state rs = {step, t, w->uf, z->full_v, z->full_f, {0}, iters, rel};
    ep_elastic_scatter(b, z->x, w->uf);
    ep_elastic_scatter(b, z->vx, z->full_v);
    ep_elastic_scatter(b, z->fe, z->full_f);
    if (s->o.dt > 0) {
        ep_elastic_symv(b, b->Mx, z->vx, w->t2);
        energy[EP_NLSOLVE_KINETIC] = 0.5 * dot(z->vx, w->t2, b->ndof);
    }
    energy[EP_NLSOLVE_TOTAL] = energy[EP_NLSOLVE_KINETIC] + energy[EP_NLSOLVE_ELASTIC] - energy[EP_NLSOLVE_WORK] +
                               energy[EP_NLSOLVE_DAMPING];
    memcpy(rs.energy, energy, sizeof rs.energy);
    s->last_step = step;
    return report ? report(ctx, &rs) : EP_OK;
}

/* D x = alpha M x + beta K0 x. */
static void d_times(const ep_nlsolve *s, const double *x, double *y, double *t)
{
    h_times(s->b, s->o.alpha, s->o.beta, x, y, t);
}

/* f_ext(t) over the unknowns (static: scaled by t). */
static void external(const ep_nlsolve *s, double t, double *full, double *fe)
{
    int stat = !(s->o.dt > 0);
    ep_loads_eval(s->L, t, stat, full);
    ep_elastic_gather(s->b, full, fe);
    for (int i = 0; stat && i < s->b->ndof; i++)
        fe[i] *= t;
}

static int run(ep_nlsolve *s, double *u, double *v, ep_nlsolve_report report, void *ctx, work *w, state *z)
{
    ep_elastic *b = s->b;
    int n = b->ndof, st, iters = 0, dyn = s->o.dt > 0;
    double energy[EP_NLSOLVE_NENERGY] = {0}, rel = 0, dt = s->o.dt;
    ep_elastic_gather(b, u, z->x);
    if (dyn)
        ep_elastic_gather(b, v, z->vx);
    external(s, 0, z->full_f, z->fe);
    if ((st = ep_elastic_eval(b, u, &energy[EP_NLSOLVE_ELASTIC], w->ff, 0)))
        return st;
    if (dyn) { /* M a0 = f_ext(0) - f(u0) - D v0, factored on the iteration matrix's analysis */
        ep_elastic_gather(b, w->ff, w->f);
        d_times(s, z->vx, w->t1, w->t2);
        for (int i = 0; i < n; i++)
            w->r[i] = -(z->fe[i] - w->f[i] - w->t1[i]);
        memcpy(s->A->x, b->Mx, sizeof(double) * (size_t)((int *)s->A->p)[n]);
        s->held = 0;
        if ((st = ep_chol_factorize(s->A, s->F, "the mass", &b->c)) || (st = solve(s, w)))
            return st;
        memcpy(z->ax, w->delta, sizeof(double) * (size_t)n);
    }
    if ((st = report_state(s, report, ctx, w, z, 0, 0, energy, 0, 0)))
        return st;
    long nsteps = dyn ? s->o.steps : s->o.load_steps;
    double a1 = 4 / (dt * dt), a2 = 4 / dt, a3 = 1, a4 = 2 / dt, a5 = -1, a6 = 0; /* MATH.md §5, beta 1/4, gamma 1/2 */
    for (long k = 1; k <= nsteps; k++) {
        double t = dyn ? k * dt : (double)k / (double)nsteps;
        memcpy(z->xn, z->x, sizeof(double) * (size_t)n);
        memcpy(z->fe0, z->fe, sizeof(double) * (size_t)n);
        external(s, t, z->full_f, z->fe);
        potential P = {0, 0, z->xn, NULL, z->fe};
        if (dyn) { /* b = -M (a2 v + a3 a) + D (a5 v + a6 a) */
            for (int i = 0; i < n; i++)
                w->t1[i] = a2 * z->vx[i] + a3 * z->ax[i], w->d[i] = a5 * z->vx[i] + a6 * z->ax[i];
            ep_elastic_symv(b, b->Mx, w->t1, z->bv);
            d_times(s, w->d, w->hd, w->t2);
            for (int i = 0; i < n; i++)
                z->bv[i] = w->hd[i] - z->bv[i];
            P = (potential){a1 + a4 * s->o.alpha, a4 * s->o.beta, z->xn, z->bv, z->fe};
        }
        if ((st = newton(s, &P, k, z->x, w, &energy[EP_NLSOLVE_ELASTIC], &iters, &rel)))
            return st;
        for (int i = 0; i < n; i++)
            w->d[i] = z->x[i] - z->xn[i], w->t1[i] = 0.5 * (z->fe0[i] + z->fe[i]);
        energy[EP_NLSOLVE_WORK] += dot(w->d, w->t1, n);
        if (dyn) {
            for (int i = 0; i < n; i++) {
                double vn = a4 * w->d[i] + a5 * z->vx[i] + a6 * z->ax[i];
                z->ax[i] = a1 * w->d[i] - a2 * z->vx[i] - a3 * z->ax[i];
                w->t1[i] = 0.5 * (vn + z->vx[i]);
                z->vx[i] = vn;
            }
            d_times(s, w->t1, w->hd, w->t2);
            energy[EP_NLSOLVE_DAMPING] += dot(w->d, w->hd, n);
        }
        if ((st = report_state(s, report, ctx, w, z, k, t, energy, iters, rel)))
            return st;
    }
    ep_elastic_scatter(b, z->x, u);
    if (dyn)
        ep_elastic_scatter(b, z->vx, v);
    return EP_OK;
}

int ep_nlsolve_run(ep_nlsolve *s, double *u, double *v, ep_nlsolve_report report, void *ctx)
{
    work w;
    state z = {0};
    size_t n = (size_t)s->b->ndof + 1, n3 = 3 * (size_t)s->b->m->nv;
    int st = work_open(&w, s->b);
    double **vs[] = {&z.x, &z.vx, &z.ax, &z.xn, &z.fe, &z.fe0, &z.bv};
    for (size_t i = 0; i < sizeof vs / sizeof *vs; i++)
        if (!(*vs[i] = ep_calloc(n, sizeof(double))))
            st = EP_ECOMPUTE;
    if (!(z.full_v = ep_calloc(n3, sizeof(double))) || !(z.full_f = ep_calloc(n3, sizeof(double))))
        st = EP_ECOMPUTE;
    if (!st)
        st = run(s, u, v, report, ctx, &w, &z);
    for (size_t i = 0; i < sizeof vs / sizeof *vs; i++)
        free(*vs[i]);
    free(z.full_v), free(z.full_f);
    work_close(&w, s->b);
    return st;
}
