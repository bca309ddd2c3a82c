/*
 * vcycle.c — V-cycles on a multigrid hierarchy (vcycle.h).
 */
#include "vcycle.h"
#include "err.h"
#include "kernel.h"
#include "sgs.h"

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

/* Gauss-Seidel: each level but the coarsest in its Cuthill-McKee
 * order (sgs.h), its compact copy, and the transfers in those orders. */
static int sweep_copies(ep_vcycle *v)
{
    const ep_mghier *h = v->h;
    int n = h->nlevels, *perm = NULL, *inv = NULL, st = EP_ECOMPUTE;
    if (!(v->sgs = ep_calloc((size_t)n, sizeof *v->sgs)) || !(v->Pc = ep_calloc((size_t)n, sizeof *v->Pc)) ||
        !(v->Ptc = ep_calloc((size_t)n, sizeof *v->Ptc)))
        return EP_ECOMPUTE;
    for (int l = 0; l + 1 < n; l++) {
        const ep_bsr *K = &h->level[l].K;
        free(perm);
        if (!(perm = ep_malloc((size_t)K->n + 1, sizeof *perm)) || ep_sgs_order(K, perm) ||
            ep_sgs_build(&v->sgs[l], K, v->Dinv[l], perm))
            goto out;
    }
    for (int l = 0; l + 1 < n; l++) { /* P_l: rows in level l's order, columns in level l + 1's */
        const ep_sgs *coarse = l + 2 < n ? &v->sgs[l + 1] : NULL;
        free(inv);
        if (!(inv = ep_malloc((size_t)h->level[l + 1].K.n + 1, sizeof *inv)))
            goto out;
        for (int J = 0; coarse && J < coarse->n; J++)
            inv[coarse->perm[J]] = J;
        if (ep_csr_permute(&v->Pc[l], &h->level[l].P, v->sgs[l].perm, coarse ? inv : NULL) ||
            ep_csr_transpose(&v->Ptc[l], &v->Pc[l]))
            goto out;
    }
    st = EP_OK;
out:
    free(perm), free(inv);
    return st;
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
    if (!(v->pcg = ep_malloc(15 * (size_t)h->level[0].K.n + 1, sizeof *v->pcg)))
        return EP_ECOMPUTE;
    size_t nc1 = n > 1 ? (size_t)h->level[1].K.n : 1;
    if (!(v->gwork = ep_calloc(9 * nc1, sizeof *v->gwork)) || !(v->gwhere = ep_calloc(nc1, sizeof *v->gwhere)))
        return EP_ECOMPUTE;
    size_t ncoarse = 3 * (size_t)h->level[n - 1].K.n;
    if (!(C->B = cholmod_zeros(ncoarse, 1, CHOLMOD_REAL, &C->c)))
        return ep_fail(EP_ECOMPUTE, "out of memory (coarsest right-hand side)");
    int st = diagonal_inverses(v);
    if (!st && v->o.smoother == EP_VCYCLE_GAUSS_SEIDEL)
        st = sweep_copies(v);
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
        if (v->sgs)
            ep_sgs_free(&v->sgs[l]);
        if (v->Pc)
            ep_csr_free(&v->Pc[l]);
        if (v->Ptc)
            ep_csr_free(&v->Ptc[l]);
    }
    free(v->sgs), free(v->Pc), free(v->Ptc);
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
    for (int l = 0; !st && v->sgs && l + 1 < h->nlevels; l++)
        ep_sgs_values(&v->sgs[l], &h->level[l].K, v->Dinv[l]);
    return st ? st : coarse_factor(v);
}


/* Damped block Jacobi, x += omega D^-1 (b - K x), on the double operator,
 * r as workspace (zero: x = 0, r = b without reading K).  The Gauss-Seidel
 * sweeps are sgs.h's, on the compact copies. */
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

static void coarse_solve(ep_vcycle *v, const double *b, double *x)
{
    struct ep_vcycle_coarse *C = v->coarse;
    size_t n = C->B->nrow;
    memcpy(C->B->x, b, n * sizeof *b);
    cholmod_solve2(CHOLMOD_A, C->L, C->B, NULL, &C->X, NULL, &C->Y, &C->E, &C->c);
    memcpy(x, C->X->x, n * sizeof *x);
}

/* One cycle on level l from x = 0 (x set here).  Gauss-Seidel: each
 * forward sweep leaves the residual (sgs.h), the first from zero reads only
 * the compact lower triangle, and each backward sweep reads it once: a
 * V(1,1) cycle reads each level's copy twice (DECISIONS, issue 44). */
static void cycle(ep_vcycle *v, int l, const double *b, double *x)
{
    size_t n = 3 * (size_t)v->h->level[l].K.n;
    if (l == v->h->nlevels - 1) {
        coarse_solve(v, b, x);
        return;
    }
    const ep_mghier_level *L = &v->h->level[l];
    int gs = v->sgs != NULL, post = l ? v->o.coarse_post : v->o.post;
    const ep_csr *P = gs ? &v->Pc[l] : &L->P, *Pt = gs ? &v->Ptc[l] : &v->Pt[l];
    double *r = v->r[l];
    memset(x, 0, n * sizeof *x);
    for (int s = 0; s < v->o.pre; s++) /* Gauss-Seidel: the last sweep leaves the residual */
        if (gs)
            ep_sgs_forward(&v->sgs[l], b, x, r, s == 0);
        else
            jacobi(&L->K, v->Dinv[l], b, x, r, v->o.omega, s == 0);
    if (!v->o.pre)
        memcpy(r, b, n * sizeof *b);
    else if (!gs)
        ep_bsr_residual(&L->K, b, x, r);
    ep_csr_restrict(Pt, r, v->b[l + 1]);
    cycle(v, l + 1, v->b[l + 1], v->x[l + 1]);
    ep_csr_prolong(P, v->x[l + 1], x);
    for (int s = 0; s < post; s++)
        if (gs)
            ep_sgs_backward(&v->sgs[l], b, x, r);
        else
            jacobi(&L->K, v->Dinv[l], b, x, r, v->o.omega, 0);
}

/* One cycle on level 0 from x = 0, b and x in the mesh's order: through
 * the sweeps' order when there is one (two permuted copies). */
static void cycle0(ep_vcycle *v, const double *b, double *x)
{
    const int *perm = v->sgs && v->h->nlevels > 1 ? v->sgs[0].perm : NULL;
    if (!perm) {
        cycle(v, 0, b, x);
        return;
    }
    double *bp = v->b[0], *xp = v->x[0];
    for (int i = 0; i < v->sgs[0].n; i++)
        memcpy(&bp[3 * i], &b[3 * (size_t)perm[i]], 3 * sizeof *b);
    cycle(v, 0, bp, xp);
    for (int i = 0; i < v->sgs[0].n; i++)
        memcpy(&x[3 * (size_t)perm[i]], &xp[3 * i], 3 * sizeof *x);
}

/* x += B (b - K x), B one cycle from zero: the same as a cycle from x (a
 * cycle is affine in x), but the residual is K's in double, so plain cycles
 * converge to K's answer, not that of the sweeps' float copy.  r, z: 3 nv
 * doubles of workspace. */
static void correct(ep_vcycle *v, const double *b, double *x, double *r, double *z, int have_r)
{
    size_t n = 3 * (size_t)v->h->level[0].K.n;
    if (!have_r)
        ep_bsr_residual(&v->h->level[0].K, b, x, r);
    cycle0(v, r, z);
    for (size_t i = 0; i < n; i++)
        x[i] += z[i];
}

void ep_vcycle_cycle(ep_vcycle *v, const double *b, double *x)
{
    size_t n = 3 * (size_t)v->h->level[0].K.n, i = 0;
    while (i < n && x[i] == 0) /* from zero (a preconditioner's use, a first cycle): no residual */
        i++;
    if (i == n)
        cycle0(v, b, x);
    else
        correct(v, b, x, v->pcg, v->pcg + n, 0);
}

int ep_vcycle_solve(ep_vcycle *v, const double *b, double *x, double tol, int maxcycles, double *res)
{
    const ep_bsr *K = &v->h->level[0].K;
    size_t n = 3 * (size_t)K->n;
    double nb = 0, nr, *r = v->pcg, *z = r + n;
    for (size_t i = 0; i < n; i++)
        nb += b[i] * b[i];
    nb = sqrt(nb);
    int it = 0;
    for (;; it++) {
        ep_bsr_residual(K, b, x, r);
        nr = 0;
        for (size_t i = 0; i < n; i++)
            nr += r[i] * r[i];
        nr = nb > 0 ? sqrt(nr) / nb : sqrt(nr);
        if (res)
            res[it] = nr;
        if (nr <= tol || it >= maxcycles)
            break;
        correct(v, b, x, r, z, 1);
    }
    return it;
}

void ep_vcycle_bytes(const ep_vcycle *v, double *once, double *shape)
{
    const ep_mghier *h = v->h;
    *once = *shape = 0;
    for (int l = 0; l + 1 < h->nlevels; l++) {
        int post = l ? v->o.coarse_post : v->o.post, pre = v->o.pre;
        double P = ep_csr_bytes(v->sgs ? &v->Pc[l] : &h->level[l].P) + ep_csr_bytes(v->sgs ? &v->Ptc[l] : &v->Pt[l]);
        double K = v->sgs ? ep_sgs_bytes(&v->sgs[l]) : ep_bsr_bytes(&h->level[l].K);
        *once += K + P;
        if (v->sgs) /* the first forward sweep from zero reads the copy once, the others twice */
            *shape += P + K * (pre ? 2 * pre - 1 : 0) + K * post;
        else /* Jacobi: the first sweep from zero reads no K, the residual after the last does */
            *shape += P + K * (pre ? pre : 0) + K * post;
    }
    const cholmod_factor *L = v->coarse->L;
    double f = 0;
    if (L && !L->is_super)
        for (size_t j = 0; j < L->n; j++)
            f += (double)((const int *)L->nz)[j] * (sizeof(double) + sizeof(int)) + 2 * sizeof(int);
    *once += f, *shape += 2 * f;
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
    double *r = v->pcg, *z = r + n, *p = z + n, *q = p + n, *zo = q + n, nb = sqrt(dot(b, b, n)), rz = 0;
    ep_bsr_residual(K, b, x, r);
    int it = 0;
    for (;; it++) {
        double nr = sqrt(dot(r, r, n));
        nr = nb > 0 ? nr / nb : nr;
        if (res)
            res[it] = nr;
        if (nr <= tol || it >= maxit)
            break;
        double *t = z; /* the last z kept in zo */
        z = zo, zo = t;
        cycle0(v, r, z); /* z = M^-1 r */
        /* Polak-Ribiere's beta, r^T (z - z_old) / rz: the cycle is symmetric
         * in exact arithmetic, but the coarsest solve of a thin part (the
         * gmsh beam of 2 levels) is so to 2e-5 only (w^T B u against
         * u^T B w), and Fletcher-Reeves' r^T z / rz lost its conjugacy in
         * one vertex order (100 iterations, 85 with this beta; 37 in the
         * order now used, ep_sgs_order) */
        double rz1 = dot(r, z, n), beta = it ? (rz1 - dot(r, zo, n)) / rz : 0;
        for (size_t i = 0; i < n; i++)
            p[i] = z[i] + beta * p[i];
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
