/*
 * nnls.c — Lawson-Hanson and the greedy of An et al. on a Cholesky-factored
 * Gram matrix of the set (nnls.h).
 */
#include "nnls.h"
#include "err.h"
#include "rng.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define COL(s, j) ((s)->A + (size_t)(j) * (size_t)(s)->ld)

int ep_nnls_init(ep_nnls *s, const double *A, int m, int ld, int ncol, const double *b, int cap)
{
    memset(s, 0, sizeof *s);
    if (cap < 1)
        return ep_fail(EP_EUSAGE, "NNLS: at least one column must be allowed");
    cap = cap < ncol ? cap : ncol;
    s->A = A, s->b = b, s->m = m, s->ld = ld, s->ncol = ncol, s->cap = cap;
    s->bnorm = cblas_dnrm2(m, b, 1);
    if (!(s->bnorm > 0))
        return ep_fail(EP_EUSAGE, "NNLS: the right-hand side is zero");
    s->set = ep_malloc((size_t)cap + 1, sizeof *s->set);
    s->w = ep_calloc((size_t)cap + 1, sizeof *s->w);
    s->G = ep_calloc((size_t)cap * cap + 1, sizeof *s->G);
    s->L = ep_calloc((size_t)cap * cap + 1, sizeof *s->L);
    s->atb = ep_malloc((size_t)cap + 1, sizeof *s->atb);
    s->z = ep_malloc((size_t)cap + 1, sizeof *s->z);
    s->res = ep_malloc((size_t)m + 1, sizeof *s->res);
    s->grad = ep_malloc((size_t)ncol + 1, sizeof *s->grad);
    s->norm = ep_malloc((size_t)ncol + 1, sizeof *s->norm);
    s->state = ep_calloc((size_t)ncol + 1, 1);
    if (!s->set || !s->w || !s->G || !s->L || !s->atb || !s->z || !s->res || !s->grad || !s->norm || !s->state)
        return EP_ECOMPUTE;
    for (int j = 0; j < ncol; j++)
        s->norm[j] = cblas_dnrm2(m, COL(s, j), 1);
    memcpy(s->res, b, (size_t)m * sizeof *b);
    s->resid = 1;
    return EP_OK;
}

void ep_nnls_free(ep_nnls *s)
{
    free(s->set), free(s->w), free(s->G), free(s->L), free(s->atb), free(s->z), free(s->res), free(s->grad);
    free(s->norm), free(s->state);
    memset(s, 0, sizeof *s);
}

/* res = b - A_set w, resid = |res| / |b|.  m k flops. */
static void residual(ep_nnls *s)
{
    memcpy(s->res, s->b, (size_t)s->m * sizeof *s->res);
    for (int i = 0; i < s->k; i++)
        cblas_daxpy(s->m, -s->w[i], COL(s, s->set[i]), 1, s->res, 1);
    s->resid = cblas_dnrm2(s->m, s->res, 1) / s->bnorm;
}

/* Column j joins the set (weight 0): its Gram row, one row of the factor.
 * Returns 0, or 1 when j is nearly dependent on the set (refused). */
static int append(ep_nnls *s, int j)
{
    int k = s->k, cap = s->cap;
    const double *a = COL(s, j);
    double *g = s->G + (size_t)k * cap, *l = s->L + (size_t)k * cap;
    for (int i = 0; i < k; i++)
        g[i] = s->G[(size_t)i * cap + k] = cblas_ddot(s->m, COL(s, s->set[i]), 1, a, 1);
    g[k] = s->norm[j] * s->norm[j];
    memcpy(l, g, (size_t)k * sizeof *l);
    if (k)
        cblas_dtrsv(CblasRowMajor, CblasLower, CblasNoTrans, CblasNonUnit, k, s->L, cap, l, 1);
    double d = g[k] - (k ? cblas_ddot(k, l, 1, l, 1) : 0);
    if (!(d > 1e-20 * g[k])) { /* pivot below 1e-10 of the column's norm */
        s->state[j] = 2;
        return 1;
    }
    l[k] = sqrt(d);
    s->atb[k] = cblas_ddot(s->m, a, 1, s->b, 1);
    s->set[k] = j, s->w[k] = 0, s->state[j] = 1;
    s->k = k + 1;
    s->iterations++;
    return 0;
}

/* Refactor the Gram of the set (LAPACK dpotrf: row-major lower is
 * column-major upper).  0 or 1 (not positive definite). */
static int refactor(ep_nnls *s)
{
    int k = s->k, cap = s->cap;
    for (int i = 0; i < k; i++)
        memcpy(s->L + (size_t)i * cap, s->G + (size_t)i * cap, (size_t)(i + 1) * sizeof *s->L);
    return k && LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'U', k, s->L, cap) != 0;
}

/* Members whose weight is at most 0 leave the set: the Gram's lower
 * triangle closed up in place (kept index keep[a] >= a, so a row is read
 * before it is overwritten), then the factor is rebuilt. */
static int drop_zeros(ep_nnls *s)
{
    int cap = s->cap, k = 0, *keep = s->set; /* reuse: keep[] written behind its reads */
    int ids[s->k > 0 ? s->k : 1];
    for (int i = 0; i < s->k; i++) {
        if (s->w[i] > 0) {
            ids[k++] = i;
            continue;
        }
        s->state[s->set[i]] = 0;
        s->removals++;
    }
    for (int a = 0; a < k; a++) {
        int i = ids[a];
        for (int b = 0; b <= a; b++)
            s->G[(size_t)a * cap + b] = s->G[(size_t)i * cap + ids[b]];
        keep[a] = s->set[i], s->w[a] = s->w[i], s->atb[a] = s->atb[i];
    }
    s->k = k;
    return refactor(s);
}

/* z = the least-squares weights on the set: L L^T z = A_set^T b. */
static int solve(ep_nnls *s)
{
    memcpy(s->z, s->atb, (size_t)s->k * sizeof *s->z);
    return LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'U', s->k, 1, s->L, s->cap, s->z, s->k) != 0;
}

/* Lawson-Hanson's inner loop after column set[k-1] entered: solve; while a
 * weight is not positive, step from w towards z to the first weight that
 * reaches 0 and drop it.  0, 1 (the entering column made no progress: it
 * is refused), or -1 (a factorization failed). */
static int inner(ep_nnls *s)
{
    for (int pass = 0;; pass++) {
        if (solve(s))
            return -1;
        int k = s->k, neg = 0;
        for (int i = 0; i < k; i++)
            neg |= !(s->z[i] > 0);
        if (!neg) {
            memcpy(s->w, s->z, (size_t)k * sizeof *s->w);
            return 0;
        }
        if (pass == 0 && !(s->z[k - 1] > 0)) { /* the new column cannot enter */
            s->state[s->set[k - 1]] = 2;
            s->k = k - 1; /* the factor's leading block stays valid */
            s->iterations--;
            return 1;
        }
        double alpha = 1;
        for (int i = 0; i < k; i++)
            if (!(s->z[i] > 0) && s->w[i] - s->z[i] > 0)
                alpha = fmin(alpha, s->w[i] / (s->w[i] - s->z[i]));
        for (int i = 0; i < k; i++) {
            s->w[i] += alpha * (s->z[i] - s->w[i]);
            if (!(s->z[i] > 0) && s->w[i] <= 1e-15 * fabs(s->z[i]))
                s->w[i] = 0;
        }
        int any = 0;
        for (int i = 0; i < k; i++)
            any |= s->w[i] <= 0;
        if (!any) /* round-off kept them all: drop the smallest ratio's */
            for (int i = 0, first = 1; i < k && first; i++)
                if (!(s->z[i] > 0))
                    s->w[i] = 0, first = 0;
        if (drop_zeros(s))
            return -1;
        if (!s->k) {
            memset(s->w, 0, (size_t)s->cap * sizeof *s->w);
            return 0;
        }
    }
}

/* Lawson-Hanson over the columns cols[n] (NULL: all). */
static int lawson_hanson(ep_nnls *s, const int *cols, int n, double tau)
{
    long guard = 10L * s->cap + 1000;
    if (!cols)
        n = s->ncol;
    while (guard-- > 0) {
        residual(s);
        if (s->resid <= tau || s->k >= s->cap)
            return EP_OK;
        if (!cols) /* every column's gradient: one pass over A */
            cblas_dgemv(CblasRowMajor, CblasNoTrans, s->ncol, s->m, 1.0, s->A, s->ld, s->res, 1, 0.0, s->grad, 1);
        int best = -1;
        double gbest = 0;
        for (int c = 0; c < n; c++) {
            int j = cols ? cols[c] : c;
            if (s->state[j])
                continue;
            double gj = cols ? cblas_ddot(s->m, COL(s, j), 1, s->res, 1) : s->grad[j];
            if (gj > gbest && gj > 1e-13 * s->bnorm * s->norm[j])
                gbest = gj, best = j;
        }
        if (best < 0)
            return EP_OK; /* the optimum over these columns */
        if (append(s, best))
            continue;
        int st = inner(s);
        if (st < 0)
            return ep_fail(EP_ECOMPUTE, "NNLS: the Gram matrix of %d columns is not positive definite", s->k);
    }
    return ep_fail(EP_ECOMPUTE, "NNLS: Lawson-Hanson did not settle in %ld iterations", 10L * s->cap + 1000);
}

int ep_nnls_lawson_hanson(ep_nnls *s, double tau) { return lawson_hanson(s, NULL, 0, tau); }

int ep_nnls_greedy(ep_nnls *s, double tau, int sample, unsigned long seed)
{
    int *allowed = ep_malloc((size_t)s->cap + 1, sizeof *allowed), na = 0, st = EP_OK;
    char *in = ep_calloc((size_t)s->ncol + 1, 1);
    int *pool = ep_malloc((size_t)s->ncol + 1, sizeof *pool);
    if (!allowed || !in || !pool) {
        free(allowed), free(in), free(pool);
        return EP_ECOMPUTE;
    }
    ep_rng rng = ep_rng_seed(seed, 42);
    int npool = s->ncol; /* the columns not yet allowed, first npool of pool (swap-removed) */
    for (int j = 0; j < s->ncol; j++)
        pool[j] = j;
    residual(s);
    int full = 0; /* after a sample without a useful column: look at all of them */
    while (s->resid > tau && na < s->cap && npool > 0) {
        int best = -1, draws = sample < npool && !full ? sample : npool;
        double sbest = 0;
        for (int d = 0; d < draws; d++) {
            int p = draws < npool ? d + ep_rng_below(&rng, npool - d) : d; /* partial Fisher-Yates */
            int j = pool[p];
            pool[p] = pool[d], pool[d] = j;
            if (s->state[j] == 2 || !(s->norm[j] > 0))
                continue;
            double sc = cblas_ddot(s->m, COL(s, j), 1, s->res, 1) / s->norm[j];
            if (sc > sbest && sc > 1e-13 * s->bnorm) /* above round-off */
                sbest = sc, best = d;
        }
        if (best < 0) {
            if (draws == npool)
                break; /* no column is left that could lower the residual */
            full = 1;
            continue;
        }
        full = 0;
        int j = pool[best];
        pool[best] = pool[--npool], pool[npool] = j;
        allowed[na++] = j, in[j] = 1;
        if ((st = lawson_hanson(s, allowed, na, tau)))
            break;
    }
    residual(s);
    free(allowed), free(in), free(pool);
    return st;
}
