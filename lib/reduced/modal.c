/*
 * modal.c — shift-invert modes (block Krylov-Schur, ARPACK as fallback),
 * modal derivatives, mass-PCA basis (modal.h).
 */
#include "modal.h"
#include "blas.h"
#include "chol.h"
#include "err.h"
#include "fem.h"
#include "mem.h"
#include "team.h"
#include "vec3.h"

#include <arpack/arpack.h>
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

static const char *basis_names[] = {"pca", "gram-schmidt", "linear"};

const char *ep_modal_basis_name(ep_modal_basis_kind kind) { return basis_names[kind]; }

int ep_modal_basis_from_name(const char *name, ep_modal_basis_kind *kind)
{
    for (int i = 0; i < 3; i++)
        if (!strcmp(name, basis_names[i])) {
            *kind = (ep_modal_basis_kind)i;
            return EP_OK;
        }
    return EP_EINPUT;
}

/* Full-length [3nv] <-> unknowns [ndof]. */
static void gather(const ep_modal *s, const double *full, double *red)
{
    for (int v = 0; v < s->m->nv; v++)
        if (s->map[v] >= 0)
            memcpy(&red[s->map[v]], &full[3 * v], 3 * sizeof *red);
}

static void scatter(const ep_modal *s, const double *red, double *full)
{
    for (int v = 0; v < s->m->nv; v++) {
        if (s->map[v] >= 0)
            memcpy(&full[3 * v], &red[s->map[v]], 3 * sizeof *full);
        else
            full[3 * v] = full[3 * v + 1] = full[3 * v + 2] = 0;
    }
}

/* Zero the vertices without unknowns (s->map < 0) in the full-length
 * vectors X[nvec][ld]: what a product, a solve or an input leaves there is
 * not the model's.  Cost O(nv + nvec x those vertices). */
static void zero_without_unknowns(const ep_modal *s, double *X, size_t ld, int nvec)
{
    for (int v = 0; v < s->m->nv; v++)
        for (int q = 0; s->map[v] < 0 && q < nvec; q++)
            memset(X + (size_t)q * ld + 3 * (size_t)v, 0, 3 * sizeof *X);
}

/* Y = A X for nvec reduced vectors (A symmetric, upper stored), the
 * vectors split over two threads (cholmod_sdmult runs on one), the second
 * on a cholmod_common of its own.  sdmult takes the columns in loops of 1
 * to 4 that do each column's sums in the same order (its source), so the
 * split changes no bit; it falls at a multiple of 4 all the same. */
static int apply(ep_modal *s, cholmod_sparse *A, const double *X, double *Y, int nvec)
{
    int parts = s->threads > 1 && nvec >= 8 ? 2 : 1, half = (nvec / 2 + 3) / 4 * 4, ok = 1;
    cholmod_common c2;
    if (parts > 1)
        ep_chol_start(&c2);
#pragma omp parallel for num_threads(parts) reduction(&& : ok)
    for (int q = 0; q < parts; q++) {
        int j0 = q ? half : 0, j1 = parts == 1 || q ? nvec : half;
        double one[2] = {1, 0}, zero[2] = {0, 0};
        size_t n = (size_t)s->ndof;
        cholmod_dense x = {.nrow = n, .ncol = (size_t)(j1 - j0), .nzmax = n * (size_t)(j1 - j0), .d = n,
                           .x = (void *)(X + (size_t)j0 * n), .xtype = CHOLMOD_REAL, .dtype = CHOLMOD_DOUBLE};
        cholmod_dense y = x;
        y.x = Y + (size_t)j0 * n;
        ok = cholmod_sdmult(A, 0, one, zero, &x, &y, q ? &c2 : &s->c);
    }
    if (parts > 1) {
        if (!ok && s->c.status == CHOLMOD_OK)
            s->c.status = c2.status;
        cholmod_finish(&c2);
    }
    return ok ? EP_OK : ep_chol_fail("sparse product", &s->c);
}

/* Y = M X for nvec vectors through the scalar vertex matrix:
 * y_(3v+i) = sum_w m_vw x_(3w+i); reduced vectors [ndof] (full 0), or
 * full-length ones [3nv] (full 1: rows and columns through the vertices'
 * places s->vfull, s->mfi; y is 0 at the vertices without unknowns and x is
 * not read there).  One parallel region for all the vectors: ARPACK asks for
 * hundreds of single products, the basis for a few hundred at once. */
static int mass_apply_to(ep_modal *s, int full, const double *X, double *Y, int nvec)
{
    int nv = s->ndof / 3, nvall = s->m->nv;
    size_t ld = full ? 3 * (size_t)nvall : (size_t)s->ndof;
    const int *col = full ? s->mfi : s->mi;
    if (full)
        zero_without_unknowns(s, Y, ld, nvec);
#pragma omp parallel if (nv > 20000) num_threads(s->threads)
    for (int q = 0; q < nvec; q++) {
        const double *x = X + (size_t)q * ld;
        double *y = Y + (size_t)q * ld;
#pragma omp for schedule(static) nowait
        for (int v = 0; v < nv; v++) {
            double a = 0, b = 0, c = 0;
            for (int p = s->mp[v]; p < s->mp[v + 1]; p++) {
                const double *xw = &x[3 * (size_t)col[p]];
                a += s->mx[p] * xw[0];
                b += s->mx[p] * xw[1];
                c += s->mx[p] * xw[2];
            }
            double *yv = &y[3 * (size_t)(full ? s->vfull[v] : v)];
            yv[0] = a, yv[1] = b, yv[2] = c;
        }
    }
    return EP_OK;
}

static int mass_apply(ep_modal *s, const double *X, double *Y, int nvec) { return mass_apply_to(s, 0, X, Y, nvec); }

/* The scalar vertex matrix of M: the (x, x) entries of its 3x3 blocks. */
static int mass_scalar(ep_modal *s)
{
    const int *Mp = s->M->p, *Mi = s->M->i;
    const double *Mx = s->M->x;
    int nv = s->ndof / 3;
    size_t nnz = 0;
    s->mp = ep_calloc((size_t)nv + 1, sizeof *s->mp);
    if (!s->mp)
        return EP_ECOMPUTE;
    for (int w = 0; w < nv; w++) /* upper storage: count both triangles */
        for (int p = Mp[3 * w]; p < Mp[3 * w + 1]; p++)
            if (Mi[p] % 3 == 0) {
                s->mp[w + 1]++;
                if (Mi[p] / 3 != w)
                    s->mp[Mi[p] / 3 + 1]++;
            }
    for (int v = 0; v < nv; v++)
        s->mp[v + 1] += s->mp[v];
    nnz = (size_t)s->mp[nv];
    s->mi = ep_malloc(nnz, sizeof *s->mi);
    s->mx = ep_malloc(nnz, sizeof *s->mx);
    int *fill = ep_malloc((size_t)nv, sizeof *fill);
    if (!s->mi || !s->mx || !fill) {
        free(fill);
        return EP_ECOMPUTE;
    }
    memcpy(fill, s->mp, sizeof(int) * (size_t)nv);
    for (int w = 0; w < nv; w++)
        for (int p = Mp[3 * w]; p < Mp[3 * w + 1]; p++)
            if (Mi[p] % 3 == 0) {
                int v = Mi[p] / 3;
                s->mi[fill[w]] = v;
                s->mx[fill[w]++] = Mx[p];
                if (v != w) {
                    s->mi[fill[v]] = w;
                    s->mx[fill[v]++] = Mx[p];
                }
            }
    free(fill);
    /* the same matrix in full-length places (ep_modal_mass_times, the basis) */
    s->vfull = ep_malloc((size_t)nv + 1, sizeof *s->vfull);
    s->mfi = ep_malloc(nnz + 1, sizeof *s->mfi);
    if (!s->vfull || !s->mfi)
        return EP_ECOMPUTE;
    for (int v = 0; v < s->m->nv; v++)
        if (s->map[v] >= 0)
            s->vfull[s->map[v] / 3] = v;
    for (size_t p = 0; p < nnz; p++)
        s->mfi[p] = s->vfull[s->mi[p]];
    return EP_OK;
}

/* y = K x for full-length vectors. */
static int stiffness_full(ep_modal *s, const double *x, double *y, int nvec)
{
    double *a = ep_malloc((size_t)s->ndof * nvec, sizeof *a), *b = ep_malloc((size_t)s->ndof * nvec, sizeof *b);
    int st = a && b ? EP_OK : EP_ECOMPUTE;
    for (int q = 0; !st && q < nvec; q++)
        gather(s, x + (size_t)q * 3 * s->m->nv, a + (size_t)q * s->ndof);
    if (!st && !(st = apply(s, s->K, a, b, nvec)))
        for (int q = 0; q < nvec; q++)
            scatter(s, b + (size_t)q * s->ndof, y + (size_t)q * 3 * s->m->nv);
    free(a);
    free(b);
    return st;
}

int ep_modal_mass_times(ep_modal *s, const double *x, double *y, int nvec) { return mass_apply_to(s, 1, x, y, nvec); }

int ep_modal_stiffness_times(ep_modal *s, const double *x, double *y, int nvec)
{
    return stiffness_full(s, x, y, nvec);
}

void ep_modal_free(ep_modal *s)
{
    if (s->m) {
        cholmod_free_sparse(&s->K, &s->c);
        cholmod_free_sparse(&s->M, &s->c);
        cholmod_free_factor(&s->F, &s->c);
        cholmod_finish(&s->c);
    }
    ep_stvk_free(&s->stvk);
    free(s->mp);
    free(s->mi);
    free(s->mx);
    free(s->vfull);
    free(s->mfi);
    free(s->map);
    free(s->R);
    free(s->MR);
    memset(s, 0, sizeof *s);
}

/* The DOF map, M and its scalar form (ep_modal_setup_mass); keep[nv] is
 * workspace.  t0 starts the assembly clock. */
static int setup_mass(ep_modal *s, const ep_mesh *m, const ep_material *mat, const char *fixed, int lumped_mass,
                      char *keep)
{
    int st = EP_OK, nfixed = 0;
    memset(s, 0, sizeof *s);
    s->m = m;
    s->mat = mat;
    s->threads = omp_get_max_threads();
    ep_chol_start(&s->c);
    for (int v = 0; v < m->nv; v++) {
        keep[v] = !fixed || !fixed[v];
        nfixed += !keep[v];
    }
    s->free = nfixed == 0;
    if ((!s->free && (st = ep_mesh_check_support(m, fixed, 0))) || (st = ep_fem_dofmap(m, keep, &s->map, &s->ndof)))
        return st;
    s->M = ep_fem_assemble(m, mat, lumped_mass ? EP_FEM_MASS_LUMPED : EP_FEM_MASS, s->map, s->ndof, s->map,
                           s->ndof, 1, &s->c);
    if (!s->M)
        return EP_ECOMPUTE;
    return mass_scalar(s);
}

int ep_modal_setup_mass(ep_modal *s, const ep_mesh *m, const ep_material *mat, const char *fixed, int lumped_mass)
{
    char *keep = ep_malloc((size_t)m->nv, 1);
    memset(s, 0, sizeof *s);
    int st = keep ? setup_mass(s, m, mat, fixed, lumped_mass, keep) : EP_ECOMPUTE;
    free(keep);
    if (st)
        ep_modal_free(s);
    return st;
}

/* The model's stretches run OpenBLAS on one thread (ep_blas_serial and
 * ep_blas_restore around each; a stretch inside another leaves it on one).  Why: the
 * model's dense work runs either in fixed pieces over its own threads
 * (fixed_dgemm below), or as small calls where a team of OpenBLAS threads
 * would meet at a barrier in each, and OpenBLAS's threads split a product
 * by their count (the modes and the basis must not depend on it: dpotrf
 * runs threaded from n = 64). */

/* Columns of the basis's panels: the mass products of this many list
 * vectors at a time (a reused buffer of 3nv x 128 doubles, 108 MB on the
 * dragon), each panel's part of the Gram matrix one fixed_dgemm per piece. */
#define PANEL 128

/* Dense products on tall blocks [n][w] in fixed pieces shared over the
 * model's threads, each piece with one BLAS thread: the same bits on any
 * thread count, where OpenBLAS's own threads split a product by their
 * count (the modes and parts' hashes must not depend on it).  Pieces of
 * FIXED_ROWS rows, or FIXED_COLS columns. */
enum { FIXED_ROWS = 4096, FIXED_COLS = PANEL / 2, FIXED_GRAM = 16384 };

/* Length of piece q of n items in pieces of chunk. */
static int piece_len(int q, int chunk, int n) { return n - q * chunk < chunk ? n - q * chunk : chunk; }

/* C = alpha op(A) B + beta C (column-major; C m x n, op(A) m x k, B k x n)
 * in pieces of C's rows (by_rows) or columns.  2 m n k flops, no
 * workspace. */
static void fixed_dgemm(const ep_modal *s, int by_rows, CBLAS_TRANSPOSE ta, int m, int n, int k, double alpha,
                        const double *A, int lda, const double *B, int ldb, double beta, double *C, int ldc)
{
    int chunk = by_rows ? FIXED_ROWS : FIXED_COLS, count = ((by_rows ? m : n) + chunk - 1) / chunk;
    ep_blas_threads b = ep_blas_serial();
#pragma omp parallel for schedule(dynamic, 1) num_threads(s->threads)
    for (int q = 0; q < count; q++) {
        int lo = q * chunk, len = piece_len(q, chunk, by_rows ? m : n);
        if (by_rows)
            cblas_dgemm(CblasColMajor, ta, CblasNoTrans, len, n, k, alpha,
                        ta == CblasNoTrans ? A + lo : A + (size_t)lo * lda, lda, B, ldb, beta, C + lo, ldc);
        else
            cblas_dgemm(CblasColMajor, ta, CblasNoTrans, m, len, k, alpha, A, lda, B + (size_t)lo * ldb, ldb, beta,
                        C + (size_t)lo * ldc, ldc);
    }
    ep_blas_restore(b);
}

/* Doubles of fixed_gram's work for C [m][w] over n rows. */
static size_t fixed_gram_work(int n, int m, int w) { return (size_t)(n + FIXED_GRAM - 1) / FIXED_GRAM * m * w; }

/* C [m][w] = A^T B for A [n][m], B [n][w] (leading dimension n): the
 * products of FIXED_GRAM-row pieces, added in order (a single product would
 * run on one core: C is too small to split).  2 m w n flops; work holds
 * fixed_gram_work(n, m, w) doubles. */
static void fixed_gram(const ep_modal *s, int m, int w, int n, const double *A, const double *B, double *C,
                       double *work)
{
    int count = (n + FIXED_GRAM - 1) / FIXED_GRAM;
    size_t mw = (size_t)m * w;
    ep_blas_threads b = ep_blas_serial();
#pragma omp parallel for schedule(dynamic, 1) num_threads(s->threads)
    for (int q = 0; q < count; q++) {
        int lo = q * FIXED_GRAM, len = piece_len(q, FIXED_GRAM, n);
        cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, m, w, len, 1.0, A + lo, n, B + lo, n, 0.0,
                    work + q * mw, m);
    }
    ep_blas_restore(b);
    memcpy(C, work, sizeof(double) * mw);
    for (int q = 1; q < count; q++)
        for (size_t i = 0; i < mw; i++)
            C[i] += work[q * mw + i];
}

/* X [n][w] <- X R^-1, R [w][w] upper triangular, in pieces of rows.
 * n w^2 flops, no workspace. */
static void fixed_trsm_upper(const ep_modal *s, int n, int w, const double *R, double *X)
{
    int count = (n + FIXED_ROWS - 1) / FIXED_ROWS;
    ep_blas_threads b = ep_blas_serial();
#pragma omp parallel for schedule(dynamic, 1) num_threads(s->threads)
    for (int q = 0; q < count; q++) {
        int lo = q * FIXED_ROWS, len = piece_len(q, FIXED_ROWS, n);
        cblas_dtrsm(CblasColMajor, CblasRight, CblasUpper, CblasNoTrans, CblasNonUnit, len, w, 1.0, R, w, X + lo, n);
    }
    ep_blas_restore(b);
}

/* Free models: X -= B (A^T X) for nvec vectors [ndof], A and B [6][ndof].
 * With A = R, B = M R it removes a load's net force and moment (R^T b = 0
 * after: a load K can carry); with A = M R, B = R a displacement's rigid
 * motion (R^T M x = 0 after).  Cost 24 ndof flops a vector. */
static void remove_rigid(const ep_modal *s, const double *A, const double *B, double *X, int nvec)
{
    int n = s->ndof;
    for (int j = 0; j < nvec; j++) {
        double *x = X + (size_t)j * n;
        for (int q = 0; q < 6; q++)
            cblas_daxpy(n, -cblas_ddot(n, A + (size_t)q * n, 1, x, 1), B + (size_t)q * n, 1, x, 1);
    }
}

/* X = 0 at the six held DOFs, nvec vectors [ndof]. */
static void zero_held(const ep_modal *s, double *X, int nvec)
{
    for (int j = 0; j < nvec; j++)
        for (int q = 0; q < 6; q++)
            X[(size_t)j * s->ndof + s->pin[q]] = 0;
}

/* Free models: X = the free body's solution of K X = B for w loads B
 * [ndof] (in place allowed): the loads' net force and moment removed (B is
 * overwritten: a round-off remainder of them, held at six DOFs only, came
 * back amplified enough to fail the modes' residual check on the voxel
 * dragon), the held K's solution, zero at the held DOFs (the held K
 * decouples them: a load's value there would come back divided by the
 * diagonal), then without rigid motion.  The solve by ep_team_solve on
 * all threads when team is given (work its), else ep_chol_rsolve.  Returns
 * the flops of the solve. */
static double held_solve(const ep_modal *s, const ep_chol_rplan *plan, const ep_team_plan *team, double *B,
                         double *X, int w, double *work)
{
    remove_rigid(s, s->R, s->MR, B, w);
    double flops = team ? ep_team_solve(team, B, X, w, work, s->threads) : ep_chol_rsolve(plan, B, X, w, work);
    zero_held(s, X, w);
    remove_rigid(s, s->MR, s->R, X, w);
    return flops;
}

/* X = K^-1 B for w vectors [ndof] (in place allowed; B overwritten when
 * free): the eigen solves' operator after the mass product, held_solve for
 * free models; team and work as held_solve's.  Returns the flops. */
static double op_solve(const ep_modal *s, const ep_chol_rplan *plan, const ep_team_plan *team, double *B,
                       double *X, int w, double *work)
{
    if (s->free)
        return held_solve(s, plan, team, B, X, w, work);
    return team ? ep_team_solve(team, B, X, w, work, s->threads) : ep_chol_rsolve(plan, B, X, w, work);
}

static int m_orthonormalize(ep_modal *s, double *B, int r);

/* c = the mean of the mesh's vertices. */
static void vertex_mean(const ep_mesh *m, double c[3])
{
    c[0] = c[1] = c[2] = 0;
    for (int v = 0; v < m->nv; v++)
        for (int a = 0; a < 3; a++)
            c[a] += m->vertices[3 * (size_t)v + a] / m->nv;
}

/* s->R: the translations and the rotations about the vertices' mean, formed
 * full-length, M-orthonormalized (m_orthonormalize works on those) and
 * gathered to the unknowns; s->MR = M R. */
static int rigid_modes(ep_modal *s)
{
    const ep_mesh *m = s->m;
    size_t n3 = 3 * (size_t)m->nv;
    double c[3], *Rf = ep_calloc(6 * n3, sizeof *Rf);
    int st = EP_OK;
    s->R = ep_malloc(6 * (size_t)s->ndof, sizeof *s->R);
    s->MR = ep_malloc(6 * (size_t)s->ndof, sizeof *s->MR);
    if (!Rf || !s->R || !s->MR) {
        free(Rf);
        return EP_ECOMPUTE;
    }
    vertex_mean(m, c);
    for (int v = 0; v < m->nv; v++) {
        double r[3];
        ep_vec3_sub(&m->vertices[3 * (size_t)v], c, r);
        for (int a = 0; s->map[v] >= 0 && a < 3; a++) {
            double *t = Rf + (size_t)a * n3 + 3 * (size_t)v, *w = Rf + (size_t)(3 + a) * n3 + 3 * (size_t)v;
            t[a] = 1;                                         /* translation along a */
            w[(a + 1) % 3] = -r[(a + 2) % 3], w[(a + 2) % 3] = r[(a + 1) % 3]; /* e_a x r */
        }
    }
    if (!(st = m_orthonormalize(s, Rf, 6))) {
        for (int q = 0; q < 6; q++)
            gather(s, Rf + (size_t)q * n3, s->R + (size_t)q * s->ndof);
        st = mass_apply(s, s->R, s->MR, 6);
    }
    free(Rf);
    return st;
}

/* The vertex with unknowns farthest from the point o, or (d given) from
 * the line through o along d. */
static int farthest(const ep_modal *s, const double *o, const double *d)
{
    int best = 0;
    double fbest = -1;
    for (int v = 0; v < s->m->nv; v++) {
        const double *p = &s->m->vertices[3 * (size_t)v];
        double e[3], t[3], f = ep_vec3_dist2(p, o);
        if (d) {
            ep_vec3_sub(p, o, e);
            ep_vec3_cross(d, e, t);
            f = ep_vec3_dot(t, t);
        }
        if (s->map[v] >= 0 && f > fbest)
            best = v, fbest = f;
    }
    return best;
}

/* The six held DOFs (3-2-1) in s->pin: all three of the vertex a farthest
 * from the centroid; two of the vertex b farthest from a, across the axis
 * most along a-b (they stop the rotations about axes across a-b); of the
 * vertex c farthest from the line a-b, the one most along the normal of the
 * plane a, b, c (the rotation about a-b).  Statically determinate: a load
 * with no net force or moment meets no reaction there. */
static void choose_pins(ep_modal *s)
{
    const double *x = s->m->vertices;
    double o[3], d[3], e[3], nrm[3];
    vertex_mean(s->m, o);
    int a = farthest(s, o, NULL), b = farthest(s, &x[3 * (size_t)a], NULL);
    ep_vec3_sub(&x[3 * (size_t)b], &x[3 * (size_t)a], d);
    int c = farthest(s, &x[3 * (size_t)a], d), along = 0, across = 0;
    ep_vec3_sub(&x[3 * (size_t)c], &x[3 * (size_t)a], e);
    ep_vec3_cross(d, e, nrm);
    for (int i = 1; i < 3; i++) {
        along = fabs(d[i]) > fabs(d[along]) ? i : along;
        across = fabs(nrm[i]) > fabs(nrm[across]) ? i : across;
    }
    for (int i = 0, k = 3; i < 3; i++) {
        s->pin[i] = s->map[a] + i;
        if (i != along)
            s->pin[k++] = s->map[b] + i;
    }
    s->pin[5] = s->map[c] + across;
}

/* A copy of K with the rows and columns of the six held DOFs (s->pin) zero
 * but for their diagonal (the same pattern: the same fill and cost as K's
 * factor); NULL if out of memory. */
static cholmod_sparse *held_stiffness(ep_modal *s)
{
    cholmod_sparse *A = cholmod_copy_sparse(s->K, &s->c);
    char *held = ep_calloc((size_t)s->ndof, 1);
    if (!A || !held) {
        cholmod_free_sparse(&A, &s->c);
        free(held);
        return NULL;
    }
    for (int q = 0; q < 6; q++)
        held[s->pin[q]] = 1;
    const int *Ap = A->p, *Ai = A->i;
    double *Ax = A->x;
    for (int j = 0; j < s->ndof; j++)
        for (int p = Ap[j]; p < Ap[j + 1]; p++)
            if ((held[j] || held[Ai[p]]) && Ai[p] != j)
                Ax[p] = 0;
    free(held);
    return A;
}

int ep_modal_setup(ep_modal *s, const ep_mesh *m, const ep_material *mat, const char *fixed, int lumped_mass)
{
    char *keep = ep_malloc((size_t)m->nv, 1);
    cholmod_sparse *A = NULL;
    int st = EP_OK;
    double t0 = ep_now();
    memset(s, 0, sizeof *s);
    if (!keep)
        return EP_ECOMPUTE;
    if ((st = setup_mass(s, m, mat, fixed, lumped_mass, keep)) || (st = ep_stvk_init(&s->stvk, m, mat)))
        goto out;
    s->K = ep_fem_assemble(m, mat, EP_FEM_STIFFNESS, s->map, s->ndof, s->map, s->ndof, 1, &s->c);
    if (!s->K) {
        st = EP_ECOMPUTE;
        goto out;
    }
    s->t_assemble = ep_now() - t0;
    t0 = ep_now();
    if (s->free && !(st = rigid_modes(s)))
        choose_pins(s);
    if (st)
        goto out;
    A = s->free ? held_stiffness(s) : s->K;
    if (!A || !(s->F = ep_chol_analyze(A, 3, &s->c))) {
        st = ep_chol_fail("ordering of the stiffness", &s->c);
        goto out;
    }
    s->lnz = s->c.lnz;
    s->fl = s->c.fl;
    st = ep_chol_factorize(A, s->F, s->free ? "the stiffness held at six DOFs (a free-flying mesh in pieces?)"
                                            : "the stiffness", &s->c);
    s->t_factor = ep_now() - t0;
out:
    if (A && A != s->K)
        cholmod_free_sparse(&A, &s->c);
    free(keep);
    if (st)
        ep_modal_free(s);
    return st;
}

/* The nev eigenpairs of K x = d M x nearest zero (ARPACK dsaupd and
 * dseupd, shift-invert mode 3, reverse communication with the factor; free
 * models through the rigid modes' projections, modal.h): d[nev]
 * ascending, Z[nev][ndof] M-orthonormal.  Allocates the Lanczos workspace,
 * O(ndof ncv) with ncv = max(3 nev, nev + 20). */
static int lanczos(ep_modal *s, int nev, double *d, double *Z)
{
    int n = s->ndof, st = EP_OK;
    int ncv = 3 * nev > nev + 20 ? 3 * nev : nev + 20;
    ncv = ncv > n ? n : ncv;
    a_int ido = 0, info = 0, iparam[11] = {0}, ipntr[14] = {0}, lworkl = ncv * (ncv + 8);
    double *resid = ep_malloc((size_t)n, sizeof *resid), *V = ep_malloc((size_t)n * ncv, sizeof *V);
    double *workd = ep_malloc(3 * (size_t)n, sizeof *workd), *workl = ep_malloc((size_t)lworkl, sizeof *workl);
    double *tmp = ep_malloc((size_t)n, sizeof *tmp), *work = NULL;
    a_int *select = ep_calloc((size_t)ncv, sizeof *select);
    ep_chol_rplan plan = {0};
    ep_blas_threads blas = ep_blas_serial();
    if (!resid || !V || !workd || !workl || !tmp || !select || (st = ep_chol_rplan_init(&plan, s->F, NULL)) ||
        !(work = ep_chol_rsolve_work(&plan, 1))) {
        st = st ? st : EP_ECOMPUTE;
        goto out;
    }
    /* One thread of BLAS (ep_blas_serial above): a single column's solve is
     * level-2 work bound by memory, and OpenBLAS's threads would meet at a
     * barrier for every supernode (on a loaded 2-core machine, one waits for
     * a time slice each time). */
    /* Ritz residuals to 1e-12 |theta|: the modes are held to 1e-8 eigen
     * residuals, and ARPACK's default (machine precision) costs a second
     * Lanczos cycle of solves for digits no one uses. */
    double tol = 1e-12;
    iparam[0] = 1;    /* exact shifts */
    iparam[2] = 3000; /* iterations */
    iparam[6] = 3;    /* shift-invert: OP = K^-1 M, B = M */
    for (;;) {
        dsaupd_c(&ido, "G", n, "LM", nev, tol, resid, ncv, V, n, iparam, ipntr, workd, workl, lworkl, &info);
        double *x = workd + ipntr[0] - 1, *y = workd + ipntr[1] - 1;
        if (ido == -1 || ido == 1) { /* y = OP x; M x given when ido is 1 */
            if (ido == 1)
                memcpy(tmp, workd + ipntr[2] - 1, sizeof(double) * (size_t)n);
            else if ((st = mass_apply(s, x, tmp, 1)))
                goto out;
            op_solve(s, &plan, NULL, tmp, y, 1, work);
            s->nsolve++;
        } else if (ido == 2) {
            if ((st = mass_apply(s, x, y, 1)))
                goto out;
        } else {
            break;
        }
    }
    if (info < 0 || info == 1) {
        st = ep_fail(EP_ECOMPUTE, "eigen solve did not converge (ARPACK dsaupd info %d, %d of %d converged)",
                     (int)info, (int)iparam[4], nev);
        goto out;
    }
    dseupd_c(1, "A", select, d, Z, n, 0.0, "G", n, "LM", nev, tol, resid, ncv, V, n, iparam, ipntr, workd,
             workl, lworkl, &info);
    if (info != 0)
        st = ep_fail(EP_ECOMPUTE, "eigenvector extraction failed (ARPACK dseupd info %d)", (int)info);
out:
    ep_blas_restore(blas);
    ep_chol_rplan_free(&plan);
    free(work);
    free(resid);
    free(V);
    free(workd);
    free(workl);
    free(tmp);
    free(select);
    return st;
}

/* The block eigen solve's columns per block: one solve of the block
 * shared by the threads (narrow.h), the same bits whatever their count
 * (parts hash the modes). */
#define EIG_BLOCK 8
_Static_assert(EIG_BLOCK == 4 || EIG_BLOCK == 8, "ep_team_solve takes blocks of 4 or 8");

/* Y = K^-1 X (op_solve) for one block of EIG_BLOCK columns [ndof], reading
 * most of the factor once each way (ARPACK's single solves read it twice
 * per column, bound by memory); work: ep_team_work's. */
static void solve_block(ep_modal *s, const ep_chol_rplan *plan, const ep_team_plan *team, const double *X,
                        double *Y, double *work)
{
    memcpy(Y, X, sizeof(double) * (size_t)s->ndof * EIG_BLOCK); /* op_solve may overwrite its input */
    op_solve(s, plan, team, Y, Y, EIG_BLOCK, work);
    s->nsolve += EIG_BLOCK;
    s->nblock++;
}

/* W [ndof][b] <- W - V h, h = (M V)^T W over the first m columns of V, MV,
 * twice (classical Gram-Schmidt, twice is enough), the coefficients added
 * into h [ldh]; then W = Q R in the M inner product by Cholesky-QR, twice,
 * with MW = M Q kept (one mass product: R^-1 applied to both), R [b][b]
 * into r [ldh].  The products in fixed pieces on all threads (fixed_gram,
 * fixed_dgemm; work: fixed_gram's for m + b columns).  Returns 0, or 1 when
 * W is (numerically) dependent. */
static int m_extend(ep_modal *s, const double *V, const double *MV, int m, double *W, double *MW, int b, double *h,
                    double *r, int ldh, double *G, double *work)
{
    int n = s->ndof;
    for (int pass = 0; pass < 2 && m > 0; pass++) {
        fixed_gram(s, m, b, n, MV, W, G, work);
        fixed_dgemm(s, 1, CblasNoTrans, n, b, m, -1.0, V, n, G, m, 1.0, W, n);
        for (int j = 0; j < b; j++)
            for (int i = 0; i < m; i++)
                h[(size_t)j * ldh + i] += G[(size_t)j * m + i];
    }
    mass_apply(s, W, MW, b);
    for (int j = 0; j < b; j++)
        for (int i = 0; i < b; i++)
            r[(size_t)j * ldh + i] = i == j;
    for (int pass = 0; pass < 2; pass++) {
        fixed_gram(s, b, b, n, W, MW, G, work);
        if (LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'U', b, G, b) != 0)
            return 1;
        fixed_trsm_upper(s, n, b, G, W);
        fixed_trsm_upper(s, n, b, G, MW);
        /* R <- G R (upper triangular) */
        cblas_dtrmm(CblasColMajor, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, b, b, 1.0, G, b, r, ldh);
    }
    return 0;
}

/* The nev eigenpairs of K x = d M x nearest zero by a block Krylov
 * method on OP = K^-1 M (M-self-adjoint; free models modal.h's), with
 * thick restarts (Krylov-Schur): the basis V kept M-orthonormal in full (m_extend), the
 * projection H = V^T M OP V built from the orthogonalization coefficients,
 * Rayleigh-Ritz after every block, and the Ritz pairs (theta, y) accepted
 * when their residuals |H_(m+1, 1:m) y| are under 1e-12 theta (ARPACK's
 * test, at the tolerance lanczos gives it).  Why: ARPACK has no block
 * interface, and its single solves read the factor twice per column
 * (doc/DECISIONS.md).  The pairs are then checked against K and M:
 * |K x - d M x| <= 1e-8 d |M x| (what the modes are held to).
 * d[nev] ascending, Z[nev][ndof] M-orthonormal.  *fallback = 1 (and 0
 * returned) when the method does not apply (a small model), does not
 * converge or fails the check: the caller runs ARPACK.  Workspace about
 * 2 ndof (mmax + EIG_BLOCK) doubles, mmax = the basis's largest size. */
static int block_eigs(ep_modal *s, int nev, double *d, double *Z, int *fallback)
{
    int n = s->ndof, b = EIG_BLOCK, st = EP_OK, m = 0, done = 0;
    /* room for 6 blocks beyond the wanted pairs, 3 of them dropped at a
     * restart (the dragon at k = 20: 15 block solves, against 16 to 20 with
     * less room or smaller blocks and 11 of 16 columns, more column solves) */
    int mmax = (nev + 6 * b + b - 1) / b * b, keep = mmax - 3 * b;
    int ld = mmax + b;
    *fallback = 1;
    if (ld > n / 4)
        return EP_OK;
    ep_chol_rplan plan = {0};
    ep_team_plan team = {0};
    double *V = ep_malloc_huge((size_t)n * ld, sizeof *V), *MV = ep_malloc_huge((size_t)n * ld, sizeof *MV);
    double *H = ep_calloc((size_t)ld * ld, sizeof *H), *T = ep_malloc((size_t)mmax * mmax, sizeof *T);
    double *theta = ep_malloc((size_t)mmax, sizeof *theta), *G = ep_malloc((size_t)ld * b, sizeof *G);
    double *Ht = ep_malloc((size_t)ld * ld, sizeof *Ht), *tmp = ep_malloc_huge((size_t)n * mmax, sizeof *tmp);
    double *gw = ep_malloc(fixed_gram_work(n, ld, b), sizeof *gw);
    double *work = NULL;
    /* BLAS and LAPACK on one thread (the mass products, the block solves
     * and the tall products' fixed pieces share s->threads): the other
     * dense work is small calls, dsyevd of the projection after every block
     * above all, and a team of OpenBLAS threads meets at a barrier in each,
     * waiting for a time slice on a loaded machine.  OpenBLAS's setter
     * sets OpenMP's count too: both restored. */
    ep_blas_threads blas = ep_blas_serial();
    if (!V || !MV || !H || !T || !theta || !G || !Ht || !tmp || !gw || (st = ep_chol_rplan_init(&plan, s->F, NULL)) ||
        (st = ep_team_plan_init(&team, &plan)) || !(work = ep_team_work(&team, EIG_BLOCK))) {
        st = st ? st : EP_ECOMPUTE;
        goto out;
    }
    /* a start block the same on every machine: a hash of the entry's place */
    for (size_t i = 0; i < (size_t)n * b; i++) {
        unsigned long long x = (i + 1) * 0x9E3779B97F4A7C15ull;
        x ^= x >> 31, x *= 0xBF58476D1CE4E5B9ull, x ^= x >> 29;
        V[i] = (double)(x >> 11) / 9007199254740992.0 - 0.5;
    }
    if (s->free) /* OP's range: the rigid modes' complement */
        remove_rigid(s, s->MR, s->R, V, b);
    if (m_extend(s, V, MV, 0, V, MV, b, H, Ht, ld, G, gw)) /* Ht: R of the start, unused */
        goto out;
    memset(H, 0, sizeof(double) * (size_t)ld * ld);
    for (int cycle = 0; cycle < 100 && !done; cycle++) {
        while (m < mmax && !done) {
            /* the pending block V_(m..m+b) -> OP of it, extended into V_(m+b..m+2b) */
            double *Vn = V + (size_t)(m + b) * n, *MVn = MV + (size_t)(m + b) * n;
            solve_block(s, &plan, &team, MV + (size_t)m * n, Vn, work);
            if (m_extend(s, V, MV, m + b, Vn, MVn, b, H + (size_t)m * ld, H + (size_t)m * ld + m + b, ld, G, gw))
                goto out;
            m += b;
            if (m < nev)
                continue;
            /* Rayleigh-Ritz: T = sym H(0:m, 0:m), theta descending */
            for (int j = 0; j < m; j++)
                for (int i = 0; i < m; i++)
                    T[(size_t)j * m + i] = 0.5 * (H[(size_t)j * ld + i] + H[(size_t)i * ld + j]);
            if (LAPACKE_dsyevd(LAPACK_COL_MAJOR, 'V', 'U', m, T, m, theta) != 0)
                goto out;
            done = 1;
            for (int q = 0; q < nev && done; q++) {
                const double *y = T + (size_t)(m - 1 - q) * m;
                double r2 = 0;
                for (int i = 0; i < b; i++) {
                    double ri = 0;
                    for (int j = 0; j < m; j++)
                        ri += H[(size_t)j * ld + m + i] * y[j];
                    r2 += ri * ri;
                }
                done = theta[m - 1 - q] > 0 && sqrt(r2) <= 1e-12 * theta[m - 1 - q];
            }
        }
        if (done)
            break;
        /* thick restart: V_(0..keep) = V Y_keep (largest theta first), the
         * pending block moved after them, H = diag(theta) and the pending
         * block's coupling H(m+1, 0:m) Y_keep */
        for (int q = 0; q < keep; q++)
            memcpy(Ht + (size_t)q * m, T + (size_t)(m - 1 - q) * m, sizeof(double) * (size_t)m);
        fixed_dgemm(s, 1, CblasNoTrans, n, keep, m, 1.0, V, n, Ht, m, 0.0, tmp, n);
        memcpy(V, tmp, sizeof(double) * (size_t)n * keep);
        fixed_dgemm(s, 1, CblasNoTrans, n, keep, m, 1.0, MV, n, Ht, m, 0.0, tmp, n);
        memcpy(MV, tmp, sizeof(double) * (size_t)n * keep);
        memmove(V + (size_t)keep * n, V + (size_t)m * n, sizeof(double) * (size_t)n * b);
        memmove(MV + (size_t)keep * n, MV + (size_t)m * n, sizeof(double) * (size_t)n * b);
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, b, keep, m, 1.0, H + m, ld, Ht, m, 0.0, G, b);
        memset(H, 0, sizeof(double) * (size_t)ld * ld);
        for (int q = 0; q < keep; q++) {
            H[(size_t)q * ld + q] = theta[m - 1 - q];
            for (int i = 0; i < b; i++)
                H[(size_t)q * ld + keep + i] = G[(size_t)q * b + i];
        }
        m = keep;
    }
    if (!done)
        goto out;
    for (int q = 0; q < nev; q++) {
        memcpy(Ht + (size_t)q * m, T + (size_t)(m - 1 - q) * m, sizeof(double) * (size_t)m);
        d[q] = 1.0 / theta[m - 1 - q];
    }
    fixed_dgemm(s, 1, CblasNoTrans, n, nev, m, 1.0, V, n, Ht, m, 0.0, Z, n);
    /* the check against K and M, in tmp (K Z) and MV (M Z) */
    if ((st = apply(s, s->K, Z, tmp, nev)) || (st = mass_apply(s, Z, MV, nev)))
        goto out;
    for (int q = 0; q < nev; q++) {
        double *kz = tmp + (size_t)q * n, *mz = MV + (size_t)q * n, mn = cblas_dnrm2(n, mz, 1);
        cblas_daxpy(n, -d[q], mz, 1, kz, 1);
        if (!(cblas_dnrm2(n, kz, 1) <= 1e-8 * d[q] * mn))
            goto out;
    }
    *fallback = 0;
out:
    ep_blas_restore(blas);
    free(work);
    ep_team_plan_free(&team);
    ep_chol_rplan_free(&plan);
    free(V);
    free(MV);
    free(H);
    free(T);
    free(theta);
    free(G);
    free(Ht);
    free(tmp);
    free(gw);
    return st;
}

int ep_modal_eigs(ep_modal *s, int k, double *lambda, double *U)
{
    int n = s->ndof, st = EP_OK, fallback = 1;
    if (k < 1 || k + (s->free ? 6 : 0) >= n)
        return ep_fail(EP_EUSAGE, "%d modes asked, the model has %d unknowns%s", k, n,
                       s->free ? " (and 6 rigid modes)" : "");
    double *d = ep_malloc((size_t)k, sizeof *d), *Z = ep_malloc((size_t)n * k, sizeof *Z);
    if (!d || !Z)
        st = EP_ECOMPUTE;
    if (!st && s->eigensolver == EP_MODAL_EIGS_BLOCK)
        st = block_eigs(s, k, d, Z, &fallback);
    if (!st && (s->used_arpack = fallback))
        st = lanczos(s, k, d, Z);
    for (int i = 0; !st && i < k; i++) {
        /* the sign: the largest entry positive, whichever solver ran */
        double *z = Z + (size_t)i * n;
        if (z[cblas_idamax(n, z, 1)] < 0)
            cblas_dscal(n, -1.0, z, 1);
        lambda[i] = d[i];
        scatter(s, z, U + (size_t)i * 3 * s->m->nv);
    }
    free(d);
    free(Z);
    return st;
}

/* Phi = -K^-1 Phi for the columns p0 <= p < p1 of a run numbered from 0,
 * Phi [p1-p0][3nv] full-length, in place, in the whole run's blocks of
 * `block` columns (p0 a multiple of block: a part solves the same blocks).
 * The blocks are shared over the threads, each solved by one thread with
 * single-threaded BLAS (ep_chol_rsolve: row-major, one dtrsm and one dgemm
 * per supernode, whole cache lines gathered and scattered): a column's
 * round-off then depends on its block alone, not on the thread count, and no
 * BLAS call waits at a barrier for a core another process holds (CHOLMOD's
 * solve with OpenBLAS's threads ran at 0.6 GFlop/s under load).
 * Constrained, the solve reads and writes the unknowns' rows of Phi where
 * they are (ep_chol_rsolve_rows: gathering all right-hand sides into a
 * reduced copy and back cost 0.6 s on the dragon at k = 20, as long as the
 * solves); free-flying, a block is gathered, its loads' net force and moment
 * removed, solved with the held K, its rigid motion removed and scattered
 * (modal.h; held_solve).  Rows of no unknown are left as they are.  Cost 4
 * lnz flops a column; workspace (ndof + maxrow) block per thread (free:
 * ndof block more). */
static int solve_blocks(ep_modal *s, double *Phi, int p0, int p1, int block)
{
    ep_chol_rplan plan;
    int n = s->ndof, st = ep_chol_rplan_init(&plan, s->F, NULL), nb = (p1 - 1) / block - p0 / block + 1, failed = 0;
    size_t n3 = 3 * (size_t)s->m->nv;
    int *rows = ep_malloc((size_t)n, sizeof *rows);
    if (st || !rows) {
        ep_chol_rplan_free(&plan);
        free(rows);
        return st ? st : EP_ECOMPUTE;
    }
    for (int v = 0; v < n / 3; v++)
        for (int i = 0; i < 3; i++)
            rows[3 * v + i] = 3 * s->vfull[v] + i;
    s->solve_flops = 0;
#pragma omp parallel reduction(| : failed)
    {
        double *work = ep_chol_rsolve_work(&plan, block), flops = 0;
        double *Bb = s->free ? ep_malloc((size_t)n * block, sizeof *Bb) : NULL;
        failed = !work || (s->free && !Bb);
#pragma omp for schedule(dynamic, 1)
        for (int b = 0; b < nb; b++) {
            int q0 = (p0 / block + b) * block, q1 = q0 + block < p1 ? q0 + block : p1, w;
            q0 = q0 > p0 ? q0 : p0;
            w = q1 - q0;
            double *Pb = Phi + (size_t)(q0 - p0) * n3;
            if (failed)
                continue;
            if (!s->free) {
                flops += ep_chol_rsolve_rows(&plan, rows, n3, -1.0, Pb, Pb, w, work);
                continue;
            }
            for (int j = 0; j < w; j++)
                gather(s, Pb + j * n3, Bb + (size_t)j * n);
            cblas_dscal(n * w, -1.0, Bb, 1);
            flops += held_solve(s, &plan, NULL, Bb, Bb, w, work);
            for (int j = 0; j < w; j++)
                scatter(s, Bb + (size_t)j * n, Pb + j * n3);
        }
#pragma omp atomic
        s->solve_flops += flops;
        free(work);
        free(Bb);
    }
    ep_chol_rplan_free(&plan);
    free(rows);
    return failed ? ep_fail(EP_ECOMPUTE, "out of memory (derivative solves)") : EP_OK;
}

int ep_modal_block(int npairs)
{
    int nb = 4 * ((npairs + 511) / 512);
    return npairs > 0 ? (npairs + nb - 1) / nb : 1;
}

int ep_modal_derivatives(ep_modal *s, const double *U, int k, int p0, int p1, int block, int *pairs, double *Phi)
{
    int np = p1 - p0, st = EP_OK;
    size_t n3 = 3 * (size_t)s->m->nv;
    for (int i = 0, p = 0; i < k; i++)
        for (int j = i; j < k; j++, p++)
            if (p >= p0 && p < p1) {
                pairs[2 * (p - p0)] = i;
                pairs[2 * (p - p0) + 1] = j;
            }
    if (np <= 0)
        return EP_OK;
    /* Right-hand sides -(H:psi_j) psi_i, written into Phi, then solved in place. */
    double t0 = ep_now();
    if ((st = ep_stvk_hessian_pairs(&s->stvk, U, k, pairs, np, Phi)))
        return st;
    s->t_rhs = ep_now() - t0;
    t0 = ep_now();
    if ((st = solve_blocks(s, Phi, p0, p1, block)))
        return st;
    s->t_solve = ep_now() - t0;
    zero_without_unknowns(s, Phi, n3, np);
    return EP_OK;
}

/* B [r][3nv] <- B R^-1 with R^T R = B^T M B, twice: PCA divides by small
 * singular values, which costs orthogonality (about eps (sigma_1/sigma_r)^2);
 * Cholesky-QR in the M inner product restores it to round-off.  Full-length
 * vectors, 0 at the vertices without unknowns.  The products in fixed
 * pieces (fixed_gram, fixed_trsm_upper), dpotrf on one thread: the rigid
 * modes of a free model (r = 6) go into every mode, and the basis into
 * every reduced model, which must not depend on the thread count (parts
 * share them).  4 r^2 3nv flops; workspace r 3nv + r^2 ceil(3nv/16384)
 * doubles. */
static int m_orthonormalize(ep_modal *s, double *B, int r)
{
    int n3 = 3 * s->m->nv, st = EP_OK;
    ep_blas_threads blas = ep_blas_serial(); /* dpotrf too: threaded, it rounds by the count */
    double *MB = ep_malloc_huge((size_t)n3 * r, sizeof *MB), *G = ep_malloc((size_t)r * r, sizeof *G);
    double *work = ep_malloc(fixed_gram_work(n3, r, r), sizeof *work);
    for (int pass = 0; pass < 2 && MB && G && work && !st; pass++) {
        if ((st = mass_apply_to(s, 1, B, MB, r)))
            break;
        fixed_gram(s, r, r, n3, B, MB, G, work);
        if (LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'U', r, G, r) != 0)
            st = ep_fail(EP_ECOMPUTE, "basis vectors are linearly dependent");
        else
            fixed_trsm_upper(s, n3, r, G, B);
    }
    ep_blas_restore(blas);
    if (!MB || !G || !work)
        st = EP_ECOMPUTE;
    free(MB);
    free(G);
    free(work);
    return st;
}

/* Vector q of the basis's list (001 eq. 2.52, MATH.md §3): mode q < k, then
 * derivative q - k, full-length, as the caller holds them (no copy). */
static const double *list_vector(const ep_modal *s, const double *U, int k, const double *Phi, int q)
{
    size_t n3 = 3 * (size_t)s->m->nv;
    return q < k ? U + (size_t)q * n3 : Phi + (size_t)(q - k) * n3;
}

/* The scale of list vector q: lambda1/lambda_j for a mode, and
 * lambda1^2/(lambda_i lambda_j |Phi_ij|_M) for derivative (i, j), given its
 * mass norm nrm (0 for a zero derivative). */
static double list_scale(const double *lambda, int k, int q, double nrm)
{
    if (q < k)
        return lambda[0] / lambda[q];
    int i = 0, p = q - k;
    while (p >= k - i) /* pair (i, j) of derivative p */
        p -= k - i++;
    int j = i + p;
    return nrm > 0 ? lambda[0] * lambda[0] / (lambda[i] * lambda[j] * nrm) : 0;
}

/* Mass-PCA of the scaled list keeping r (MATH.md §3): G0 = X0^T M X0 of the
 * unscaled list X0 = [U Phi] (upper triangle, by panels: the list is read
 * where the caller holds it, and only a panel's mass products are stored),
 * then G = F G0 F with the scales F, G = V diag(sigma^2) V^T,
 * B = X0 (F V_r diag(1/sigma_r)) as two dgemms, M-orthonormalized to
 * round-off; sigma[mcount] descending.  Cost: mcount mass products,
 * about mcount^2 3nv for G0, mcount^3 for the eigen decomposition,
 * 2 mcount r 3nv for B; workspace 3nv PANEL + mcount^2 doubles. */
static int basis_pca(ep_modal *s, const double *lambda, const double *U, int k, const double *Phi, int mcount, int r,
                     double *B, double *sigma)
{
    int n3 = 3 * s->m->nv, st = EP_OK;
    double *G = ep_malloc((size_t)mcount * mcount, sizeof *G), *w = ep_malloc((size_t)mcount, sizeof *w);
    double *f = ep_malloc((size_t)mcount, sizeof *f), *MX = ep_malloc_huge((size_t)n3 * PANEL, sizeof *MX);
    double *C = ep_malloc((size_t)mcount * r, sizeof *C);
    if (!G || !w || !f || !MX || !C) {
        st = EP_ECOMPUTE;
        goto out;
    }
    for (int j0 = 0; j0 < mcount; j0 += PANEL) {
        int jn = mcount - j0 < PANEL ? mcount - j0 : PANEL, j1 = j0 + jn;
        /* the panel's columns lie in U, in Phi, or in both */
        int nu = j0 < k ? (j1 < k ? jn : k - j0) : 0;
        if (nu && (st = mass_apply_to(s, 1, U + (size_t)j0 * n3, MX, nu)))
            goto out;
        if (jn > nu && (st = mass_apply_to(s, 1, Phi + (size_t)(j0 + nu - k) * n3, MX + (size_t)nu * n3, jn - nu)))
            goto out;
        /* rows 0..j1 of the panel: those of U, then those of Phi */
        int ru = j1 < k ? j1 : k, rp = j1 - ru;
        fixed_dgemm(s, 0, CblasTrans, ru, jn, n3, 1.0, U, n3, MX, n3, 0.0, G + (size_t)j0 * mcount, mcount);
        if (rp)
            fixed_dgemm(s, 0, CblasTrans, rp, jn, n3, 1.0, Phi, n3, MX, n3, 0.0, G + (size_t)j0 * mcount + k, mcount);
    }
    for (int q = 0; q < mcount; q++)
        f[q] = list_scale(lambda, k, q, sqrt(fmax(G[(size_t)q * mcount + q], 0)));
    for (int j = 0; j < mcount; j++)
        for (int i = 0; i <= j; i++)
            G[(size_t)j * mcount + i] *= f[i] * f[j];
    /* on one thread: dsyevd's reduction is ~2 mcount level-2 calls, and a
     * team of OpenBLAS threads meets at a barrier in each (on a loaded
     * machine, a time slice each: the k = 40 basis took 28 s instead of 2) */
    ep_blas_threads blas = ep_blas_serial();
    int lapack = LAPACKE_dsyevd(LAPACK_COL_MAJOR, 'V', 'U', mcount, G, mcount, w);
    ep_blas_restore(blas);
    if (lapack != 0) {
        st = ep_fail(EP_ECOMPUTE, "mass-PCA eigen decomposition failed");
        goto out;
    }
    for (int q = 0; q < mcount; q++) /* dsyevd ascends: descending singular values */
        sigma[q] = sqrt(fmax(w[mcount - 1 - q], 0));
    if (!(sigma[r - 1] > 1e-12 * sigma[0])) {
        st = ep_fail(EP_EUSAGE, "basis size r = %d exceeds the rank of modes and derivatives (sigma_r/sigma_1 "
                     "= %.1e)", r, sigma[r - 1] / sigma[0]);
        goto out;
    }
    for (int c = 0; c < r; c++) { /* C = F V_r diag(1/sigma_r), largest first */
        const double *v = G + (size_t)(mcount - 1 - c) * mcount;
        for (int q = 0; q < mcount; q++)
            C[(size_t)c * mcount + q] = f[q] * v[q] / sigma[c];
    }
    fixed_dgemm(s, 1, CblasNoTrans, n3, r, k, 1.0, U, n3, C, mcount, 0.0, B, n3);
    if (mcount > k)
        fixed_dgemm(s, 1, CblasNoTrans, n3, r, mcount - k, 1.0, Phi, n3, C + k, mcount, 1.0, B, n3);
    st = m_orthonormalize(s, B, r);
out:
    free(G);
    free(w);
    free(f);
    free(MX);
    free(C);
    return st;
}

/* Mass-Gram-Schmidt of the scaled list in order, keeping the first r
 * independent vectors in B [r][3nv]; sigma[q] is the norm of vector q after
 * orthogonalization.  Cost: about 4 r mcount 3nv plus a mass product per
 * vector and pass; workspace 2 3nv doubles. */
static int basis_gram_schmidt(ep_modal *s, const double *lambda, const double *U, int k, const double *Phi,
                              int mcount, int r, double *B, double *sigma)
{
    int n = 3 * s->m->nv, kept = 0, st = EP_OK;
    double *x = ep_malloc(2 * (size_t)n, sizeof *x), *mx = x + n;
    if (!x)
        return EP_ECOMPUTE;
    for (int q = 0; q < mcount && kept < r; q++) {
        memcpy(x, list_vector(s, U, k, Phi, q), sizeof(double) * (size_t)n);
        if ((st = mass_apply_to(s, 1, x, mx, 1)))
            break;
        double n0 = sqrt(fmax(cblas_ddot(n, x, 1, mx, 1), 0));
        cblas_dscal(n, list_scale(lambda, k, q, n0), x, 1);
        n0 *= list_scale(lambda, k, q, n0);
        for (int pass = 0; pass < 2 && !st; pass++) /* twice is enough (Kahan) */
            for (int b = 0; b < kept && !st; b++) {
                if ((st = mass_apply_to(s, 1, x, mx, 1)))
                    break;
                cblas_daxpy(n, -cblas_ddot(n, B + (size_t)b * n, 1, mx, 1), B + (size_t)b * n, 1, x, 1);
            }
        if (st || (st = mass_apply_to(s, 1, x, mx, 1)))
            break;
        double nrm = sqrt(fmax(cblas_ddot(n, x, 1, mx, 1), 0));
        sigma[q] = nrm;
        if (nrm <= 1e-8 * n0)
            continue; /* dependent on the kept ones */
        memcpy(B + (size_t)kept * n, x, sizeof(double) * (size_t)n);
        cblas_dscal(n, 1.0 / nrm, B + (size_t)kept * n, 1);
        kept++;
    }
    free(x);
    if (!st && kept < r)
        st = ep_fail(EP_EUSAGE, "basis size r = %d exceeds the %d independent modes and derivatives", r, kept);
    return st;
}

int ep_modal_basis(ep_modal *s, ep_modal_basis_kind kind, const double *lambda, const double *U, int k,
                   const double *Phi, int r, double *B, double *sigma)
{
    int np = k * (k + 1) / 2, mcount = kind == EP_MODAL_BASIS_LINEAR ? k : k + np, st = EP_OK;
    size_t n3 = 3 * (size_t)s->m->nv;
    if (r < 1 || r > mcount)
        return ep_fail(EP_EUSAGE, "basis size r = %d: must lie in 1..%d (%s)", r, mcount,
                       kind == EP_MODAL_BASIS_LINEAR ? "the number of modes" : "modes plus derivatives");
    if (kind == EP_MODAL_BASIS_PCA) {
        st = basis_pca(s, lambda, U, k, Phi, mcount, r, B, sigma);
    } else if (kind == EP_MODAL_BASIS_GRAM_SCHMIDT) {
        st = basis_gram_schmidt(s, lambda, U, k, Phi, mcount, r, B, sigma);
    } else { /* linear modes: already M-orthonormal */
        for (int q = 0; q < k; q++)
            sigma[q] = lambda[0] / lambda[q];
        memcpy(B, U, sizeof(double) * n3 * (size_t)r);
    }
    if (!st) /* whatever the input held there */
        zero_without_unknowns(s, B, n3, r);
    return st;
}

int ep_modal_plan(const ep_modal *s, int k, int r, ep_modal_basis_kind kind)
{
    int n = s->ndof, nev = k + (s->free ? 6 : 0);
    if (k < 1 || nev >= n)
        return ep_fail(EP_EUSAGE, "%d modes asked, the model has %d unknowns%s (at most %d modes)", k, n,
                       s->free ? " and 6 rigid modes" : "", n - 1 - (s->free ? 6 : 0));
    double np = 0.5 * k * (k + 1.0), nv3 = 3.0 * s->m->nv, ncv = fmin(fmax(3.0 * nev, nev + 20.0), n);
    double mmax = ceil((nev + 6.0 * EIG_BLOCK) / EIG_BLOCK) * EIG_BLOCK;
    double mcount = kind == EP_MODAL_BASIS_LINEAR ? k : k + np, basis = nv3 * (PANEL + r) + mcount * mcount;
    /* what the tool keeps, plus the largest stage: the eigen solve (the block
     * method's V, M V and restart buffer, or ARPACK's Lanczos vectors), the
     * derivatives' Hessian accumulator, the basis's panel and Gram matrix */
    double eigs = fmax(n * ncv, n * (3.0 * mmax + 2.0 * EIG_BLOCK));
    double bytes = 8.0 * (nv3 * (k + np + r) + fmax(fmax(eigs, nv3 * np), basis));
    if (bytes > ep_mem_limit(0))
        return ep_fail(EP_ECOMPUTE, "%d modes and their %.0f derivatives need about %s, more than the memory (%s)",
                       k, np, ep_mem_text(bytes), ep_mem_text(ep_mem_limit(0)));
    return EP_OK;
}
