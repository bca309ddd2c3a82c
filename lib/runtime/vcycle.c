/*
 * vcycle.c — V-cycles on a multigrid hierarchy (vcycle.h).
 */
#include "vcycle.h"
#include "err.h"
#include "kernel.h"

#include <cholmod.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The coarsest level: its operator's upper triangle, the factor, and
 * cholmod_solve2's workspace (reused from cycle to cycle). */
struct ep_vcycle_coarse {
    cholmod_common c;
    cholmod_sparse *Kc;
    cholmod_factor *L;
    cholmod_dense *X, *Y, *E, *B;
};

/* Inverse of a symmetric positive definite 3 x 3 block (cofactors); 0 when
 * singular. */
static int inverse3(const double *A, double *B)
{
    double c[9] = {A[4] * A[8] - A[5] * A[7], A[5] * A[6] - A[3] * A[8], A[3] * A[7] - A[4] * A[6],
                   A[2] * A[7] - A[1] * A[8], A[0] * A[8] - A[2] * A[6], A[1] * A[6] - A[0] * A[7],
                   A[1] * A[5] - A[2] * A[4], A[2] * A[3] - A[0] * A[5], A[0] * A[4] - A[1] * A[3]};
    double det = A[0] * c[0] + A[1] * c[1] + A[2] * c[2];
    if (!(fabs(det) > 0) || !isfinite(det))
        return 0;
    for (int i = 0; i < 3; i++) /* B = adj(A) / det, adj = cof^T */
        for (int j = 0; j < 3; j++)
            B[3 * i + j] = c[3 * j + i] / det;
    return 1;
}

static int diagonal_inverses(ep_vcycle *v)
{
    for (int l = 0; l + 1 < v->h->nlevels; l++) {
        const ep_bsr *K = &v->h->level[l].K;
        for (int I = 0; I < K->n; I++) {
            long k = ep_bsr_find(K, I, I);
            if (k < 0 || !inverse3(&K->val[9 * k], &v->Dinv[l][9 * (size_t)I]))
                return ep_fail(EP_ECOMPUTE, "level %d: the diagonal block of vertex %d is singular", l, I + 1);
        }
    }
    return EP_OK;
}

static int coarse_factor(ep_vcycle *v)
{
    const ep_bsr *K = &v->h->level[v->h->nlevels - 1].K;
    struct ep_vcycle_coarse *C = v->coarse;
    cholmod_free_sparse(&C->Kc, &C->c);
    if (!(C->Kc = ep_bsr_to_cholmod(K, 1, &C->c)))
        return EP_ECOMPUTE;
    if (!C->L && !(C->L = cholmod_analyze(C->Kc, &C->c)))
        return ep_fail(EP_ECOMPUTE, "the coarsest operator (%d vertices): CHOLMOD's analysis failed (status %d)", K->n,
                       C->c.status);
    if (!cholmod_factorize(C->Kc, C->L, &C->c) || C->c.status != CHOLMOD_OK)
        return ep_fail(EP_ECOMPUTE, "the coarsest operator (%d vertices) is not positive definite (CHOLMOD status %d)",
                       K->n, C->c.status);
    return EP_OK;
}

int ep_vcycle_init(ep_vcycle *v, ep_mghier *h, const ep_vcycle_opts *o)
{
    int n = h->nlevels;
    memset(v, 0, sizeof *v);
    v->h = h;
    v->o = o ? *o : (ep_vcycle_opts){EP_VCYCLE_GAUSS_SEIDEL, 1, 1, 0.6, 1};
    struct ep_vcycle_coarse *C = v->coarse = ep_calloc(1, sizeof *v->coarse);
    if (!C)
        return EP_ECOMPUTE;
    cholmod_start(&C->c);
    C->c.print = 0;
    /* simplicial: the coarsest solve is small, and a supernodal one calls
     * BLAS, whose OpenMP team spins on a loaded machine (10x the cycle) */
    C->c.supernodal = CHOLMOD_SIMPLICIAL;
    v->Pt = ep_calloc((size_t)n, sizeof *v->Pt);
    v->Dinv = ep_calloc((size_t)n, sizeof *v->Dinv);
    v->b = ep_calloc((size_t)n, sizeof *v->b);
    v->x = ep_calloc((size_t)n, sizeof *v->x);
    v->r = ep_calloc((size_t)n, sizeof *v->r);
    if (!v->Pt || !v->Dinv || !v->b || !v->x || !v->r)
        return EP_ECOMPUTE;
    for (int l = 0; l < n; l++) {
        size_t nv = (size_t)h->level[l].K.n;
        if (!(v->b[l] = ep_calloc(3 * nv, sizeof(double))) || !(v->x[l] = ep_calloc(3 * nv, sizeof(double))) ||
            !(v->r[l] = ep_calloc(3 * nv, sizeof(double))) || !(v->Dinv[l] = ep_calloc(9 * nv, sizeof(double))))
            return EP_ECOMPUTE;
        if (l + 1 < n && ep_csr_transpose(&v->Pt[l], &h->level[l].P))
            return EP_ECOMPUTE;
    }
    if (!(v->pcg = ep_malloc(12 * (size_t)h->level[0].K.n + 1, sizeof *v->pcg)))
        return EP_ECOMPUTE;
    size_t nc1 = n > 1 ? (size_t)h->level[1].K.n : 1;
    if (!(v->gwork = ep_calloc(9 * nc1, sizeof *v->gwork)) || !(v->gwhere = ep_calloc(nc1, sizeof *v->gwhere)))
        return EP_ECOMPUTE;
    size_t ncoarse = 3 * (size_t)h->level[n - 1].K.n;
    if (!(C->B = cholmod_zeros(ncoarse, 1, CHOLMOD_REAL, &C->c)))
        return ep_fail(EP_ECOMPUTE, "out of memory (coarsest right-hand side)");
    int st = diagonal_inverses(v);
    return st ? st : coarse_factor(v);
}

void ep_vcycle_free(ep_vcycle *v)
{
    int n = v->h ? v->h->nlevels : 0;
    for (int l = 0; l < n; l++) {
        if (v->Pt)
            ep_csr_free(&v->Pt[l]);
        if (v->Dinv)
            free(v->Dinv[l]);
        if (v->b)
            free(v->b[l]);
        if (v->x)
            free(v->x[l]);
        if (v->r)
            free(v->r[l]);
    }
    free(v->Pt), free(v->Dinv), free(v->b), free(v->x), free(v->r), free(v->gwork), free(v->gwhere), free(v->pcg);
    struct ep_vcycle_coarse *C = v->coarse;
    if (C) {
        cholmod_free_sparse(&C->Kc, &C->c);
        cholmod_free_factor(&C->L, &C->c);
        cholmod_free_dense(&C->X, &C->c), cholmod_free_dense(&C->Y, &C->c);
        cholmod_free_dense(&C->E, &C->c), cholmod_free_dense(&C->B, &C->c);
        cholmod_finish(&C->c);
        free(C);
    }
    memset(v, 0, sizeof *v);
}

int ep_vcycle_update(ep_vcycle *v)
{
    ep_mghier *h = v->h;
    for (int l = 1; l < h->nlevels; l++) {
        ep_bsr_galerkin_values(&h->level[l].K, &h->level[l - 1].K, &h->level[l - 1].P, &v->Pt[l - 1], v->gwork,
                               v->gwhere);
        ep_bsr_fill_empty_diagonal(&h->level[l].K);
    }
    int st = diagonal_inverses(v);
    return st ? st : coarse_factor(v);
}

/* The sweeps below and bsr.c's products are EP_KERNEL (kernel.h): built
 * for x86-64-v3 beside the baseline.  A dragon cycle took 3-10% less CPU
 * time in alternating runs at load 22-29 (the whole file at -O3
 * -march=native 10-15%): memory traffic decides most of it (DECISIONS,
 * issue 44).
 *
 * One block Gauss-Seidel sweep (forward or backward): x_I += D_I^-1 (b - K x)_I
 * with the x of the rows already visited.  Reads K once. */
EP_KERNEL static void gauss_seidel(const ep_bsr *K, const double *Dinv, const double *b, double *x, int forward)
{
    for (int t = 0; t < K->n; t++) {
        int I = forward ? t : K->n - 1 - t;
        double s0 = b[3 * I], s1 = b[3 * I + 1], s2 = b[3 * I + 2];
        for (int k = K->rowptr[I]; k < K->rowptr[I + 1]; k++) {
            const double *B = &K->val[9 * (size_t)k], *y = &x[3 * (size_t)K->col[k]];
            s0 -= B[0] * y[0] + B[1] * y[1] + B[2] * y[2];
            s1 -= B[3] * y[0] + B[4] * y[1] + B[5] * y[2];
            s2 -= B[6] * y[0] + B[7] * y[1] + B[8] * y[2];
        }
        const double *D = &Dinv[9 * (size_t)I];
        x[3 * I] += D[0] * s0 + D[1] * s1 + D[2] * s2;
        x[3 * I + 1] += D[3] * s0 + D[4] * s1 + D[5] * s2;
        x[3 * I + 2] += D[6] * s0 + D[7] * s1 + D[8] * s2;
    }
}

/* A forward block Gauss-Seidel sweep that also leaves r = b - K x of the
 * new x, in the same pass over K.  With d_I the change of x_I, row I's
 * residual after the sweep is -sum_{J>I} K_IJ d_J (its own part cancels:
 * K_II d_I = s_I), and K_IJ = K_JI^T: so row J, once d_J is known,
 * subtracts K_JI^T d_J from r_I for its blocks I < J, still in cache.
 * Reads K once where a sweep then a residual read it twice; from x = 0
 * (zero: the coarse levels, and every cycle of ep_vcycle_pcg) only the
 * blocks below the diagonal, about half of K. */
EP_KERNEL static void gauss_seidel_residual(const ep_bsr *K, const double *Dinv, const double *b, double *x, double *r,
                                            int zero)
{
    memset(r, 0, 3 * (size_t)K->n * sizeof *r);
    for (int J = 0; J < K->n; J++) {
        double s0 = b[3 * J], s1 = b[3 * J + 1], s2 = b[3 * J + 2];
        int k0 = K->rowptr[J], k1 = K->rowptr[J + 1];
        for (int k = k0; k < k1 && (!zero || K->col[k] < J); k++) { /* from x = 0: rows J.. still hold 0 */
            const double *B = &K->val[9 * (size_t)k], *y = &x[3 * (size_t)K->col[k]];
            s0 -= B[0] * y[0] + B[1] * y[1] + B[2] * y[2];
            s1 -= B[3] * y[0] + B[4] * y[1] + B[5] * y[2];
            s2 -= B[6] * y[0] + B[7] * y[1] + B[8] * y[2];
        }
        const double *D = &Dinv[9 * (size_t)J];
        double d0 = D[0] * s0 + D[1] * s1 + D[2] * s2, d1 = D[3] * s0 + D[4] * s1 + D[5] * s2,
               d2 = D[6] * s0 + D[7] * s1 + D[8] * s2;
        x[3 * J] += d0, x[3 * J + 1] += d1, x[3 * J + 2] += d2;
        for (int k = k0; k < k1 && K->col[k] < J; k++) {
            const double *B = &K->val[9 * (size_t)k];
            double *q = &r[3 * (size_t)K->col[k]];
            q[0] -= B[0] * d0 + B[3] * d1 + B[6] * d2;
            q[1] -= B[1] * d0 + B[4] * d1 + B[7] * d2;
            q[2] -= B[2] * d0 + B[5] * d1 + B[8] * d2;
        }
    }
}

/* x += omega D^-1 (b - K x), r as workspace (zero: x = 0, r = b without
 * reading K). */
EP_KERNEL static void jacobi(const ep_bsr *K, const double *Dinv, const double *b, double *x, double *r, double omega,
                            int zero)
{
    if (zero)
        memcpy(r, b, 3 * (size_t)K->n * sizeof *r);
    else
        ep_bsr_residual(K, b, x, r);
    for (int I = 0; I < K->n; I++) {
        const double *D = &Dinv[9 * (size_t)I], *s = &r[3 * (size_t)I];
        for (int i = 0; i < 3; i++)
            x[3 * I + i] += omega * (D[3 * i] * s[0] + D[3 * i + 1] * s[1] + D[3 * i + 2] * s[2]);
    }
}

static void smooth(ep_vcycle *v, int l, const double *b, double *x, int forward, int zero)
{
    const ep_bsr *K = &v->h->level[l].K;
    if (v->o.smoother == EP_VCYCLE_JACOBI)
        jacobi(K, v->Dinv[l], b, x, v->r[l], v->o.omega, zero);
    else
        gauss_seidel(K, v->Dinv[l], b, x, forward);
}

static void coarse_solve(ep_vcycle *v, const double *b, double *x)
{
    struct ep_vcycle_coarse *C = v->coarse;
    size_t n = C->B->nrow;
    memcpy(C->B->x, b, n * sizeof *b);
    cholmod_solve2(CHOLMOD_A, C->L, C->B, NULL, &C->X, NULL, &C->Y, &C->E, &C->c);
    memcpy(x, C->X->x, n * sizeof *x);
}

/* One cycle on level l; zero: x is 0 on entry (the coarse levels always). */
static void cycle(ep_vcycle *v, int l, const double *b, double *x, int zero)
{
    if (l == v->h->nlevels - 1) {
        coarse_solve(v, b, x);
        return;
    }
    const ep_mghier_level *L = &v->h->level[l];
    int fused = v->o.smoother == EP_VCYCLE_GAUSS_SEIDEL && v->o.pre > 0;
    for (int s = 0; s < v->o.pre - fused; s++, zero = 0)
        smooth(v, l, b, x, 1, zero);
    if (fused) /* the last sweep leaves the residual */
        gauss_seidel_residual(&L->K, v->Dinv[l], b, x, v->r[l], zero);
    else if (zero) /* no sweep before (pre = 0) */
        memcpy(v->r[l], b, 3 * (size_t)L->K.n * sizeof *b);
    else
        ep_bsr_residual(&L->K, b, x, v->r[l]);
    ep_csr_restrict(&v->Pt[l], v->r[l], v->b[l + 1]);
    memset(v->x[l + 1], 0, 3 * (size_t)v->h->level[l + 1].K.n * sizeof(double));
    cycle(v, l + 1, v->b[l + 1], v->x[l + 1], 1);
    ep_csr_prolong(&L->P, v->x[l + 1], x);
    for (int s = 0; s < (l ? v->o.coarse_post : v->o.post); s++)
        smooth(v, l, b, x, 0, 0);
}

void ep_vcycle_cycle(ep_vcycle *v, const double *b, double *x)
{
    size_t n = 3 * (size_t)v->h->level[0].K.n, i = 0;
    while (i < n && x[i] == 0) /* from zero (a preconditioner's use, a first cycle): half the first sweep */
        i++;
    cycle(v, 0, b, x, i == n);
}

int ep_vcycle_solve(ep_vcycle *v, const double *b, double *x, double tol, int maxcycles, double *res)
{
    const ep_bsr *K = &v->h->level[0].K;
    size_t n = 3 * (size_t)K->n;
    double nb = 0, nr;
    for (size_t i = 0; i < n; i++)
        nb += b[i] * b[i];
    nb = sqrt(nb);
    int it = 0;
    for (;; it++) {
        ep_bsr_residual(K, b, x, v->r[0]);
        nr = 0;
        for (size_t i = 0; i < n; i++)
            nr += v->r[0][i] * v->r[0][i];
        nr = nb > 0 ? sqrt(nr) / nb : sqrt(nr);
        if (res)
            res[it] = nr;
        if (nr <= tol || it >= maxcycles)
            break;
        cycle(v, 0, b, x, 0);
    }
    return it;
}

static double dot(const double *a, const double *b, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

int ep_vcycle_pcg(ep_vcycle *v, const double *b, double *x, double tol, int maxit, double *res)
{
    const ep_bsr *K = &v->h->level[0].K;
    size_t n = 3 * (size_t)K->n;
    double *r = v->pcg, *z = r + n, *p = z + n, *q = p + n, nb = sqrt(dot(b, b, n)), rz = 0;
    ep_bsr_residual(K, b, x, r);
    int it = 0;
    for (;; it++) {
        double nr = sqrt(dot(r, r, n));
        nr = nb > 0 ? nr / nb : nr;
        if (res)
            res[it] = nr;
        if (nr <= tol || it >= maxit)
            break;
        memset(z, 0, n * sizeof *z);
        cycle(v, 0, r, z, 1); /* z = M^-1 r */
        double rz1 = dot(r, z, n);
        for (size_t i = 0; i < n; i++)
            p[i] = it ? z[i] + rz1 / rz * p[i] : z[i];
        rz = rz1;
        ep_bsr_mult(K, p, q);
        double pq = dot(p, q, n), alpha = pq > 0 ? rz / pq : 0;
        if (!(pq > 0)) /* p = 0: r = 0 to rounding */
            break;
        for (size_t i = 0; i < n; i++)
            x[i] += alpha * p[i], r[i] -= alpha * q[i];
    }
    return it;
}
