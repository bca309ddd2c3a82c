/*
 * cubature.c — reduced forces and tangents by cubature, and the
 * per-element contributions they are fitted to (cubature.h; MATH.md §14).
 */
#include "cubature.h"
#include "blas.h"
#include "chol.h"
#include "err.h"
#include "fem.h"
#include "kernel.h"
#include "nnls.h"
#include "rng.h"
#include "sort.h"
#include "tet.h"

#include <cblas.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

enum { GEO = 16 }; /* doubles of element data: wV, lambda, mu, spare, g[4][3] */

/* B [9][r] = G_e U_e, the displacement gradient of every basis vector on
 * tet e: row 3i + j is sum_a g_a,j U[3 v_a + i][:] (MATH.md §1), with the
 * basis by vertex Ut [3nv][r] (Ut) or as given, U [r][3nv] (U). */
static void gradient_rows(const ep_mesh *m, int e, const double *g, const double *Ut, const double *U, int r,
                          double *B)
{
    size_t n3 = 3 * (size_t)m->nv;
    memset(B, 0, sizeof *B * 9 * (size_t)r);
    for (int a = 0; a < 4; a++) {
        size_t v = (size_t)m->tets[4 * (size_t)e + a];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                double gj = g[3 * a + j], *row = B + (size_t)(3 * i + j) * r;
                if (Ut) {
                    const double *u = Ut + (3 * v + i) * r;
                    for (int k = 0; k < r; k++)
                        row[k] += gj * u[k];
                } else
                    for (int k = 0; k < r; k++)
                        row[k] += gj * U[(size_t)k * n3 + 3 * v + i];
            }
    }
}

/* z [9][r] = C [9][9] B [9][r]: 162 r flops. */
EP_KERNEL static void times9(int r, const double *restrict C, const double *restrict B, double *restrict z)
{
    for (int p = 0; p < 9; p++) {
        double *zp = z + (size_t)p * r;
        const double *cp = C + 9 * p;
#pragma omp simd
        for (int j = 0; j < r; j++)
            zp[j] = cp[0] * B[j] + cp[1] * B[r + j] + cp[2] * B[2 * r + j] + cp[3] * B[3 * r + j] +
                    cp[4] * B[4 * r + j] + cp[5] * B[5 * r + j] + cp[6] * B[6 * r + j] + cp[7] * B[7 * r + j] +
                    cp[8] * B[8 * r + j];
    }
}

/* D [9] = B [9][r] q [r]: 18 r flops. */
EP_KERNEL static void rows_times(int r, const double *restrict B, const double *restrict q, double *restrict D)
{
    for (int p = 0; p < 9; p++) {
        const double *row = B + (size_t)p * r;
        double s = 0;
#pragma omp simd reduction(+ : s)
        for (int j = 0; j < r; j++)
            s += row[j] * q[j];
        D[p] = s;
    }
}

/* c [r] (+)= B^T P: 18 r flops; add: accumulate into c, else overwrite. */
EP_KERNEL static void rows_transposed(int r, const double *restrict B, const double *restrict P, double *restrict c,
                                      int add)
{
#pragma omp simd
    for (int j = 0; j < r; j++)
        c[j] = (add ? c[j] : 0) + P[0] * B[j] + P[1] * B[r + j] + P[2] * B[2 * r + j] + P[3] * B[3 * r + j] +
               P[4] * B[4 * r + j] + P[5] * B[5 * r + j] + P[6] * B[6 * r + j] + P[7] * B[7 * r + j] +
               P[8] * B[8 * r + j];
}

/* The law at the gradient D [9] with geo's Lame parameters: wV P into
 * P [9], and wV C into C [9][9] when C is not NULL (wV = geo[0]). */
static void law_scaled(ep_law_kind law, const double *geo, const double *D, double *P, double *C)
{
    double Dm[3][3], Pm[3][3], Cm[9][9];
    memcpy(Dm, D, sizeof Dm);
    ep_law_eval(law, geo[1], geo[2], (const double(*)[3])Dm, Pm, C ? Cm : NULL);
    for (int p = 0; p < 9; p++)
        P[p] = geo[0] * Pm[p / 3][p % 3];
    if (C)
        for (int p = 0; p < 81; p++)
            C[p] = geo[0] * Cm[p / 9][p % 9];
}

/* geo[GEO] of tet e with weight w: wV, lambda, mu, 0, g.  Returns 1
 * when the tet is degenerate (records nothing: threads call it). */
static int tet_geometry(const ep_mesh *m, const ep_material *mat, int e, double w, double *geo)
{
    double x[4][3], V, g[4][3];
    ep_mesh_tet_corners(m, e, x);
    ep_tet_gradients(x, &V, g);
    if (!(V > 0) || !isfinite(V))
        return 1;
    geo[0] = w * V;
    ep_material_lame(mat, e, &geo[1], &geo[2]);
    geo[3] = 0;
    memcpy(geo + 4, g, sizeof g);
    return 0;
}

static int element_geometry(const ep_mesh *m, const ep_material *mat, int e, double w, double *geo)
{
    if (tet_geometry(m, mat, e, w, geo))
        return ep_fail(EP_EINPUT, "%s: element %d is degenerate", m->source, e + 1);
    return EP_OK;
}

int ep_cubature_prepare(ep_cubature *c, const ep_mesh *m, const ep_material *mat, ep_law_kind law, const double *U,
                        int r, const int *elem, const double *w, int n)
{
    memset(c, 0, sizeof *c);
    if (!m->tets || !m->ne)
        return ep_fail(EP_EINPUT, "%s: a cubature needs a tet mesh", m->source);
    c->r = r, c->n = n, c->law = law;
    c->elem = ep_malloc((size_t)n + 1, sizeof *c->elem);
    c->w = ep_malloc((size_t)n + 1, sizeof *c->w);
    c->geo = ep_malloc((size_t)n * GEO + 1, sizeof *c->geo);
    c->B = ep_malloc((size_t)n * 9 * r + 1, sizeof *c->B);
    if (!c->elem || !c->w || !c->geo || !c->B)
        return EP_ECOMPUTE;
    for (int k = 0; k < n; k++) {
        int e = elem[k], st;
        if (e < 0 || e >= m->ne)
            return ep_fail(EP_EINPUT, "cubature element %d of %d is out of range (the mesh has %d)", e + 1, n, m->ne);
        if (!(w[k] >= 0) || !isfinite(w[k]))
            return ep_fail(EP_EINPUT, "cubature weight %d (element %d) is %g, not a finite number >= 0", k + 1, e + 1,
                           w[k]);
        if ((st = element_geometry(m, mat, e, w[k], c->geo + (size_t)k * GEO)))
            return st;
        c->elem[k] = e, c->w[k] = w[k];
        gradient_rows(m, e, c->geo + (size_t)k * GEO + 4, NULL, U, r, c->B + (size_t)k * 9 * r);
    }
    return EP_OK;
}

void ep_cubature_free(ep_cubature *c)
{
    free(c->elem), free(c->w), free(c->geo), free(c->B);
    memset(c, 0, sizeof *c);
}

long ep_cubature_work(const ep_cubature *c) { return 9L * c->n * (c->r + 2) + 9; }

double ep_cubature_flops(const ep_cubature *c)
{
    double n = c->n, r = c->r;
    return n * (2 * 9 * r + 2 * 9 * r + 2 * 81 * r + 1500) + 2 * 9 * n * r * r;
}

long ep_cubature_runtime_bytes(const ep_cubature *c) { return 8L * c->n * (9L * c->r + GEO + 1) + 4L * c->n; }

void ep_cubature_eval(const ep_cubature *c, const double *q, double *R, double *K, double *w)
{
    int r = c->r, n = c->n;
    double *D = w, *P = D + 9 * (size_t)n, *Z = P + 9 * (size_t)n;
    if (!n) {
        if (R)
            memset(R, 0, (size_t)r * sizeof *R);
        if (K)
            memset(K, 0, (size_t)r * r * sizeof *K);
        return;
    }
    cblas_dgemv(CblasRowMajor, CblasNoTrans, 9 * n, r, 1.0, c->B, r, q, 1, 0.0, D, 1); /* D_e = B_e q */
    for (int k = 0; k < n; k++) {
        double C[81];
        law_scaled(c->law, c->geo + (size_t)k * GEO, D + 9 * (size_t)k, P + 9 * (size_t)k, K ? C : NULL);
        if (K) /* Z_e = (w_e V_e C_e) B_e, 9 x 9 times 9 x r */
            times9(r, C, c->B + (size_t)k * 9 * r, Z + (size_t)k * 9 * r);
    }
    if (R) /* R = sum_e B_e^T (w_e V_e P_e) */
        cblas_dgemv(CblasRowMajor, CblasTrans, 9 * n, r, 1.0, c->B, r, P, 1, 0.0, R, 1);
    if (K) /* K = sum_e B_e^T Z_e: one product over the stacked elements */
        cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, r, r, 9 * n, 1.0, c->B, r, Z, r, 0.0, K, r);
}

int ep_cubature_contributions(const ep_mesh *m, const ep_material *mat, ep_law_kind law, const double *U, int r,
                              const int *elems, int ne, const double *Q, int T, double *C, double *G)
{
    if (!m->tets || !m->ne)
        return ep_fail(EP_EINPUT, "%s: a cubature needs a tet mesh", m->source);
    if (!elems)
        ne = m->ne;
    size_t n3 = 3 * (size_t)m->nv, tr = (size_t)T * r;
    int nt = omp_get_max_threads(), bad = -1;
    double *Ut = ep_malloc(n3 * r + 1, sizeof *Ut); /* U by vertex: [3nv][r] */
    double *Gt = G ? ep_calloc((size_t)nt * tr + 1, sizeof *Gt) : NULL;
    double *Uall = ep_malloc((size_t)nt * 9 * r + 1, sizeof *Uall); /* each thread's B_e */
    if (!Ut || (G && !Gt) || !Uall) {
        free(Ut), free(Gt), free(Uall);
        return EP_ECOMPUTE;
    }
    for (int j = 0; j < r; j++)
        for (size_t i = 0; i < n3; i++)
            Ut[i * r + j] = U[(size_t)j * n3 + i];
#pragma omp parallel num_threads(nt)
    {
        int id = omp_get_thread_num(), nth = omp_get_num_threads();
        double *g = G ? Gt + (size_t)id * tr : NULL, *B = Uall + (size_t)id * 9 * r;
        long lo = (long)ne * id / nth, hi = (long)ne * (id + 1) / nth; /* a block per thread: fixed sums */
        for (long k = lo; k < hi; k++) {
            int e = elems ? elems[k] : (int)k;
            double geo[GEO], D[9], P[9];
            if (tet_geometry(m, mat, e, 1.0, geo)) {
#pragma omp critical
                bad = e;
                break;
            }
            gradient_rows(m, e, geo + 4, Ut, NULL, r, B);
            for (int t = 0; t < T; t++) {
                rows_times(r, B, Q + (size_t)t * r, D);
                law_scaled(law, geo, D, P, NULL);
                if (C)
                    rows_transposed(r, B, P, C + ((size_t)k * T + t) * r, 0);
                if (g)
                    rows_transposed(r, B, P, g + (size_t)t * r, 1);
            }
        }
    }
    if (G && bad == -1) {
        memcpy(G, Gt, tr * sizeof *G);
        for (int id = 1; id < nt; id++)
            for (size_t i = 0; i < tr; i++)
                G[i] += Gt[(size_t)id * tr + i];
    }
    free(Ut), free(Gt), free(Uall);
    if (bad >= 0)
        return ep_fail(EP_EINPUT, "%s: element %d is degenerate", m->source, bad + 1);
    return EP_OK;
}

int ep_cubature_sample(const ep_mesh *m, const ep_material *mat, const double *U, int r, int T, double amplitude,
                       unsigned long seed, double *Q)
{
    size_t n3 = 3 * (size_t)m->nv;
    double *Id = ep_calloc((size_t)r * r + 1, sizeof *Id), *K = ep_malloc((size_t)r * r + 1, sizeof *K);
    double *u = ep_malloc(n3 + 1, sizeof *u), *s = ep_malloc((size_t)r + 1, sizeof *s);
    int st = !Id || !K || !u || !s ? EP_ECOMPUTE : EP_OK;
    for (int i = 0; !st && i < r; i++)
        Id[(size_t)i * r + i] = 1;
    if (!st) /* G_i = U^T K U e_i under the linear law */
        st = ep_cubature_contributions(m, mat, EP_LAW_LINEAR, U, r, NULL, 0, Id, r, NULL, K);
    double kmin = INFINITY, kmax = 0, diam = ep_mesh_diameter(m);
    for (int i = 0; !st && i < r; i++)
        kmax = fmax(kmax, K[(size_t)i * r + i]);
    for (int i = 0; !st && i < r; i++) {
        double k = K[(size_t)i * r + i];
        if (!(k > 1e-12 * kmax))
            st = ep_fail(EP_EINPUT, "basis vector %d has no stiffness (a rigid motion?): k = %g", i + 1, k);
        kmin = fmin(kmin, k);
    }
    for (int i = 0; !st && i < r; i++)
        s[i] = sqrt(kmin / K[(size_t)i * r + i]);
    ep_rng g = ep_rng_seed(seed, 7);
    for (int t = 0; !st && t < T; t++) {
        double *q = Q + (size_t)t * r, dmax = 0;
        for (int i = 0; i < r; i++) { /* Box-Muller */
            double a = 1 - ep_rng_uniform(&g), b = ep_rng_uniform(&g);
            q[i] = s[i] * sqrt(-2 * log(a)) * cos(2 * M_PI * b);
        }
        cblas_dgemv(CblasRowMajor, CblasTrans, r, (int)n3, 1.0, U, (int)n3, q, 1, 0.0, u, 1);
        for (size_t v = 0; v < n3; v += 3)
            dmax = fmax(dmax, u[v] * u[v] + u[v + 1] * u[v + 1] + u[v + 2] * u[v + 2]);
        double rho = 1 - ep_rng_uniform(&g), scale = dmax > 0 ? rho * amplitude * diam / sqrt(dmax) : 0;
        for (int i = 0; i < r; i++)
            q[i] *= scale;
    }
    free(Id), free(K), free(u), free(s);
    return st;
}

int ep_cubature_project(const ep_mesh *m, const ep_material *mat, int lumped, const double *U, int r,
                        const double *X, int T, double *Q)
{
    cholmod_common cc;
    int *all = NULL, ndof, st;
    size_t n3 = 3 * (size_t)m->nv;
    ep_chol_start(&cc);
    cholmod_sparse *M = NULL;
    double *mx = ep_malloc(n3 + 1, sizeof *mx);
    if (!(st = mx ? ep_fem_dofmap(m, NULL, &all, &ndof) : EP_ECOMPUTE) &&
        !(M = ep_fem_assemble(m, mat, lumped ? EP_FEM_MASS_LUMPED : EP_FEM_MASS, all, ndof, all, ndof, 1, &cc)))
        st = EP_ECOMPUTE;
    for (int t = 0; !st && t < T; t++) {
        cholmod_dense xd = {n3, 1, n3, n3, (void *)(X + (size_t)t * n3), NULL, CHOLMOD_REAL, CHOLMOD_DOUBLE}, yd = xd;
        double one[2] = {1, 0}, zero[2] = {0, 0};
        yd.x = mx;
        if ((size_t)ndof != n3) { /* a vertex in no element: the mass has no row for it */
            st = ep_fail(EP_EINPUT, "%s: a vertex belongs to no element", m->source);
            break;
        }
        cholmod_sdmult(M, 0, one, zero, &xd, &yd, &cc);
        cblas_dgemv(CblasRowMajor, CblasNoTrans, r, (int)n3, 1.0, U, (int)n3, mx, 1, 0.0, Q + (size_t)t * r, 1);
    }
    if (M)
        cholmod_free_sparse(&M, &cc);
    cholmod_finish(&cc);
    free(all), free(mx);
    return st;
}

void ep_cubature_fit_free(ep_cubature_fit *fit)
{
    free(fit->elem), free(fit->w);
    memset(fit, 0, sizeof *fit);
}

int ep_cubature_fit_weights(ep_cubature_fit *fit, const ep_mesh *m, const ep_material *mat, ep_law_kind law,
                            const double *U, int r, const double *Q, int T, int H, const ep_cubature_fit_opts *o)
{
    memset(fit, 0, sizeof *fit);
    int ne = m->ne, Tt = T - H, st;
    size_t tr = (size_t)T * r;
    if (Tt < 1)
        return ep_fail(EP_EINPUT, "%d poses and %d held out leave none to train on", T, H);
    long pool = o->pool ? o->pool : (long)(o->pool_bytes / (8.0 * (double)tr));
    pool = pool < 1 ? 1 : pool > ne ? ne : pool;
    fit->pool = (int)pool;
    double t0 = ep_now();
    double *G = ep_malloc(tr + 1, sizeof *G), *C = ep_malloc((size_t)pool * tr + 1, sizeof *C);
    double *b = ep_malloc(tr + 1, sizeof *b), *gn = ep_malloc((size_t)T + 1, sizeof *gn);
    int *cand = ep_malloc((size_t)ne + 1, sizeof *cand);
    ep_nnls s = {0};
    if (!G || !C || !b || !gn || !cand) {
        st = EP_ECOMPUTE;
        goto out;
    }
    for (int e = 0; e < ne; e++)
        cand[e] = e;
    ep_rng g = ep_rng_seed(o->seed, 3);
    for (long k = 0; pool < ne && k < pool; k++) { /* a random pool: partial Fisher-Yates */
        int j = (int)k + ep_rng_below(&g, ne - (int)k), x = cand[k];
        cand[k] = cand[j], cand[j] = x;
    }
    if (pool < ne) { /* ascending ids: the gathers walk the mesh in order */
        int *cnt = ep_calloc((size_t)ne + 1, sizeof *cnt);
        if (!cnt) {
            st = EP_ECOMPUTE;
            goto out;
        }
        for (long k = 0; k < pool; k++)
            cnt[cand[k]] = 1;
        for (int e = 0, k = 0; e < ne; e++)
            if (cnt[e])
                cand[k++] = e;
        free(cnt);
    }
    if ((st = ep_cubature_contributions(m, mat, law, U, r, cand, (int)pool, Q, T, C, pool == ne ? G : NULL)) ||
        (pool < ne && (st = ep_cubature_contributions(m, mat, law, U, r, NULL, 0, Q, T, NULL, G))))
        goto out;
    fit->t_forces = ep_now() - t0;
    for (int t = 0; t < T; t++) { /* per-pose normalization (MATH.md §14) */
        gn[t] = cblas_dnrm2(r, G + (size_t)t * r, 1);
        if (!(gn[t] > 0)) {
            st = ep_fail(EP_EINPUT, "pose %d has no force (q = 0?): it cannot be normalized", t + 1);
            goto out;
        }
        for (int i = 0; i < r; i++)
            b[(size_t)t * r + i] = G[(size_t)t * r + i] / gn[t];
    }
#pragma omp parallel for schedule(static)
    for (long k = 0; k < pool; k++)
        for (int t = 0; t < T; t++)
            cblas_dscal(r, 1 / gn[t], C + (size_t)k * tr + (size_t)t * r, 1);
    t0 = ep_now();
    /* the NNLS on one thread: thousands of small BLAS calls, each a team's
     * fork and join on more (seconds each on a shared machine), and the
     * same bits on any thread count */
    ep_blas_threads bt = ep_blas_serial();
    if (!(st = ep_nnls_init(&s, C, Tt * r, (int)tr, (int)pool, b, o->max_elements)))
        st = o->greedy ? ep_nnls_greedy(&s, o->tau, o->sample, o->seed) : ep_nnls_lawson_hanson(&s, o->tau);
    ep_blas_restore(bt);
    if (st)
        goto out;
    fit->t_fit = ep_now() - t0;
    fit->entered = s.iterations, fit->removed = s.removals, fit->training_error = s.resid;
    fit->elem = ep_malloc((size_t)s.k + 1, sizeof *fit->elem), fit->w = ep_malloc((size_t)s.k + 1, sizeof *fit->w);
    if (!fit->elem || !fit->w) {
        st = EP_ECOMPUTE;
        goto out;
    }
    for (int i = 0; i < s.k; i++) /* ascending element ids */
        fit->elem[i] = s.set[i];
    ep_sort_ints(fit->elem, (size_t)s.k);
    for (int i = 0; i < s.k; i++)
        for (int j = 0; j < s.k; j++)
            if (s.set[j] == fit->elem[i])
                fit->w[i] = s.w[j];
    fit->n = s.k;
    double sum2 = 0;
    for (int t = Tt; t < T; t++) { /* held out: |sum_k w_k c_k,t - g_t| / |g_t| (normalized columns) */
        double e2 = 0;
        for (int i = 0; i < r; i++) {
            double a = 0;
            for (int k = 0; k < fit->n; k++)
                a += fit->w[k] * C[(size_t)fit->elem[k] * tr + (size_t)t * r + i];
            e2 += (a - b[(size_t)t * r + i]) * (a - b[(size_t)t * r + i]);
        }
        sum2 += e2;
        fit->heldout_max = fmax(fit->heldout_max, sqrt(e2));
    }
    fit->heldout_error = H ? sqrt(sum2 / H) : NAN;
    if (!H)
        fit->heldout_max = NAN;
    for (int k = 0; k < fit->n; k++) /* column positions to element ids */
        fit->elem[k] = cand[fit->elem[k]];
    if (s.resid > o->tau)
        st = ep_fail(EP_ECOMPUTE, "the training residual is %.3g with %d elements, above tau = %g (more "
                     "--max-elements, a larger --pool, or a larger tau)", s.resid, s.k, o->tau);
out:
    ep_nnls_free(&s);
    free(G), free(C), free(b), free(gn), free(cand);
    return st;
}
