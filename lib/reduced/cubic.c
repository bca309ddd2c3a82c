/*
 * cubic.c — reduced StVK cubic polynomials by the quartic-energy route
 * (cubic.h), over tets (strain rows) and hexes (their tensors over corner
 * pairs).
 */
#include "cubic.h"
#include "hex.h"
#include "hexenergy.h"
#include "tet.h"
#include "err.h"
#include "kernel.h"
#include "worker.h"

#include <assert.h>
#include <cblas.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

long ep_cubic_npairs(int r) { return (long)r * (r + 1) / 2; }
long ep_cubic_ntriples(int r) { return (long)r * (r + 1) * (r + 2) / 6; }

long ep_cubic_pair(int r, int i, int j)
{
    assert(0 <= i && i <= j && j < r);
    /* pairs (0,0..r-1), (1,1..r-1), ...: rows before i hold r + (r-1) + ... */
    return (long)i * r - (long)i * (i - 1) / 2 + (j - i);
}

long ep_cubic_triple(int r, int i, int j, int k)
{
    assert(0 <= i && i <= j && j <= k && k < r);
    /* triples with first index below i, then pairs (j, k) of indices i..r-1 */
    long before = ep_cubic_ntriples(r) - ep_cubic_ntriples(r - i);
    return before + ep_cubic_pair(r - i, j - i, k - i);
}

int ep_cubic_alloc(ep_cubic *c, int r)
{
    memset(c, 0, sizeof *c);
    c->r = r;
    c->P = ep_calloc((size_t)r * r, sizeof *c->P);
    c->Q = ep_calloc((size_t)ep_cubic_npairs(r) * r, sizeof *c->Q);
    c->S = ep_calloc((size_t)ep_cubic_ntriples(r) * r, sizeof *c->S);
    if (!c->P || !c->Q || !c->S) {
        ep_cubic_free(c);
        return EP_ECOMPUTE;
    }
    return EP_OK;
}

void ep_cubic_free(ep_cubic *c)
{
    free(c->P);
    free(c->Q);
    free(c->S);
    memset(c, 0, sizeof *c);
}

long ep_cubic_runtime_bytes(int r)
{
    long np = ep_cubic_npairs(r), nt = ep_cubic_ntriples(r);
    return 8 * ((long)r * (r + np + nt) + np * (1 + r + np));
}

#define ROWS 7             /* energy components per integration point: 6 (mu) + 1 (lambda) */
#define CHUNK_ROWS 2048    /* rows a thread stacks per BLAS-3 product (7.9 MB at r = 30) */
#define HEX_DOFS EP_HEXENERGY_DOFS
#define HEX_PAIRS EP_HEXENERGY_PAIRS
#define HEX_RANK EP_HEXENERGY_RANK

static const int comp_ij[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};

/* Columns l of lmask of the displacement gradients of the r basis vectors
 * at a point with shape gradients g of the k corners c:
 * X[l][i][j] = du_i/dx_l of basis vector j = sum_a g[a][l] Ut[c[a]][i][j],
 * Ut the basis by vertex ([nv][3][r]).  3 k r flops per column. */
EP_KERNEL static void gradient_columns(int r, const double *restrict Ut, const int *c, int k, const double (*g)[3],
                                       int lmask, double *restrict X)
{
    int r3 = 3 * r;
    for (int l = 0; l < 3; l++) {
        if (!(lmask >> l & 1))
            continue;
        double *restrict Xl = X + (size_t)l * r3;
        memset(Xl, 0, sizeof(double) * (size_t)r3);
        for (int a = 0; a < k; a++) {
            const double *restrict u = Ut + (size_t)c[a] * r3;
            double ga = g[a][l];
#pragma omp simd
            for (int t = 0; t < r3; t++)
                Xl[t] += ga * u[t];
        }
    }
}

/* The q_j q_k parts (pairs j <= k in the order of ep_cubic_pair) of a
 * diagonal entry (D^T D / 2)_aa, scaled by s: with X = column a of the
 * gradients (X[i][j] = du_i/dx_a of vector j), s (1 - d_jk / 2) sum_i
 * X[i][j] X[i][k].  3 np flops (np pairs), vectorized along k. */
EP_KERNEL static void pairs_diagonal(int r, const double *restrict X, double s, double *restrict out)
{
    const double *X0 = X, *X1 = X + r, *X2 = X + 2 * r;
    for (int j = 0; j < r; j++) {
        double x0 = s * X0[j], x1 = s * X1[j], x2 = s * X2[j], *restrict o = out - j;
#pragma omp simd
        for (int k = j; k < r; k++)
            o[k] = x0 * X0[k] + x1 * X1[k] + x2 * X2[k];
        o[j] *= 0.5;
        out += r - j;
    }
}

/* The same for an off-diagonal entry sym(D^T D / 2)_ab from the columns X
 * (a) and Y (b): s (1 - d_jk / 2) / 2 sum_i (X[i][j] Y[i][k] + Y[i][j]
 * X[i][k]).  6 np flops. */
EP_KERNEL static void pairs_offdiagonal(int r, const double *restrict X, const double *restrict Y, double s,
                                        double *restrict out)
{
    const double *X0 = X, *X1 = X + r, *X2 = X + 2 * r, *Y0 = Y, *Y1 = Y + r, *Y2 = Y + 2 * r;
    s *= 0.5;
    for (int j = 0; j < r; j++) {
        double x0 = s * X0[j], x1 = s * X1[j], x2 = s * X2[j], y0 = s * Y0[j], y1 = s * Y1[j], y2 = s * Y2[j];
        double *restrict o = out - j;
#pragma omp simd
        for (int k = j; k < r; k++)
            o[k] = x0 * Y0[k] + x1 * Y1[k] + x2 * Y2[k] + y0 * X0[k] + y1 * X1[k] + y2 * X2[k];
        o[j] *= 0.5;
        out += r - j;
    }
}

/* Row of Green strain component c (0..5: 11, 22, 33, 12, 13, 23) scaled by
 * s: [s sym(D_j)_c for j < r | s (the q_j q_k part of (D^T D / 2)_c) for
 * the pairs], from the gradient columns X (all three, or those c needs). */
static void strain_row(int r, const double *X, int c, double s, double *row)
{
    int a = comp_ij[c][0], b = comp_ij[c][1], r3 = 3 * r;
    const double *Xa = X + (size_t)a * r3, *Xb = X + (size_t)b * r3;
    if (a == b) {
        for (int j = 0; j < r; j++)
            row[j] = s * Xa[(size_t)a * r + j]; /* du_a/dx_a */
        pairs_diagonal(r, Xa, s, row + r);
    } else {
        for (int j = 0; j < r; j++) /* (du_a/dx_b + du_b/dx_a) / 2 */
            row[j] = 0.5 * s * (Xb[(size_t)a * r + j] + Xa[(size_t)b * r + j]);
        pairs_offdiagonal(r, Xa, Xb, s, row + r);
    }
}

/* Rows of one integration point of weight w: sqrt(mu w) (E11, E22, E33,
 * sqrt2 E12, sqrt2 E13, sqrt2 E23) and sqrt(lambda w / 2) tr E, each row
 * [the part linear in q | the part in the pairs q_j q_k], row stride n =
 * r + np.  part: 0 all rows, 1 the lambda row only, 2 the mu rows only
 * (zeros elsewhere). */
static void point_rows(double lambda, double mu, double w, int part, const double *X, int r, double *rows, long n)
{
    double sm = part == 1 ? 0 : sqrt(mu * w), sl = part == 2 ? 0 : sqrt(lambda * w / 2);
    for (int c = 0; c < 3; c++)
        strain_row(r, X, c, 1.0, rows + c * n);
    for (long t = 0; t < n; t++) { /* tr E, then the diagonal rows scaled */
        rows[6 * n + t] = sl * (rows[t] + rows[n + t] + rows[2 * n + t]);
        rows[t] *= sm, rows[n + t] *= sm, rows[2 * n + t] *= sm;
    }
    for (int c = 3; c < 6; c++)
        strain_row(r, X, c, sm * sqrt(2.0), rows + c * n);
}

/* Per-thread workspace: tets the gradient columns and a chunk of rows;
 * hexes a chunk's U_e and K U_e [ne][24][r], U_e^T V [r][36 ne], P_e
 * [ne][36][np] and G P_e [ne][28][np]; both the thread's sums. */
typedef struct {
    double *X;    /* [3][3][r] */
    double *A;    /* [chunk rows][n] (tets), G P_e (hexes) */
    double *Ue, *KU, *T, *Pe;
    double *acc;  /* [n][n], upper triangle */
    ep_hexenergy ht;
} rows_work;

/* Rows of tet e: one point, seven components.  rows: the tet's slot, row
 * stride n = r + np.  Ut: the basis by vertex. */
static void tet_rows(const ep_mesh *m, const ep_material *mat, const double *Ut, int r, int e, int part,
                     rows_work *wk, double *rows, long n)
{
    const int *c = &m->tets[4 * (size_t)e];
    double lambda, mu, x[4][3], vol, g[4][3];
    ep_material_lame(mat, e, &lambda, &mu);
    for (int a = 0; a < 4; a++)
        memcpy(x[a], &m->vertices[3 * (size_t)c[a]], sizeof x[a]);
    ep_tet_gradients(x, &vol, g);
    assert(vol > 0); /* every mesh passed ep_mesh_check_tets */
    gradient_columns(r, Ut, c, 4, g, 7, wk->X);
    point_rows(lambda, mu, vol, part, wk->X, r, rows, n);
}

/* Adds the hexes e0 <= e < e0 + ne to the thread's sums by their tensors
 * (hexenergy.h).  In a basis u = U_e q and W = P_e w, P_e [36][np] the
 * pairs of U_e's rows, so a hex adds U_e^T K U_e to BB, U_e^T V P_e to BC
 * and the 28 rows G P_e to CC: 28 rows of np, where sampling its strain
 * takes 63 rows of r + np (the fewest for a box) or 189.  Per hex K U_e
 * and U_e^T V (small dgemms), P_e (8 x 3 np + 28 x 6 np = 192 np flops) and G P_e (2
 * 28 36 np flops); then for the chunk BB += [U_e]^T [K U_e], BC += [U_e^T
 * V] [P_e] and CC += [G P_e]^T [G P_e], one dsyrk of 28 ne rows (np (np +
 * 1) flops a row).  Returns 0, EP_EINPUT or EP_ECOMPUTE. */
static int hex_chunk(const ep_mesh *m, const ep_material *mat, const double *Ut, int r, int e0, int ne, int part,
                     rows_work *wk, long n)
{
    long np = n - r, r3 = 3L * r;
    for (int v = 0; v < ne; v++) {
        int st = ep_hexenergy_of(&wk->ht, m, mat, e0 + v, part, EP_HEX_RULE_STVK);
        if (st)
            return st;
        const int *c = &m->hexes[8 * (size_t)(e0 + v)];
        double *Ue = wk->Ue + (size_t)v * HEX_DOFS * r, *Pe = wk->Pe + (size_t)v * HEX_PAIRS * np;
        for (int a = 0; a < 8; a++) /* rows 3a + i: Ut[c_a][i] */
            memcpy(Ue + a * r3, Ut + (size_t)c[a] * r3, sizeof(double) * (size_t)r3);
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, HEX_DOFS, r, HEX_DOFS, 1.0, wk->ht.K, HEX_DOFS, Ue, r,
                    0.0, wk->KU + (size_t)v * HEX_DOFS * r, r);
        cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, r, HEX_PAIRS, HEX_DOFS, 1.0, Ue, r, wk->ht.V, HEX_PAIRS,
                    0.0, wk->T + (size_t)v * HEX_PAIRS, HEX_PAIRS * ne);
        /* P_e[(a,b)]: the coefficients of q_j q_k (j <= k) in u_a . u_b
         * (scale 2: the kernels are written for D^T D / 2) */
        for (int a = 0; a < 8; a++)
            for (int b = a; b < 8; b++) {
                double *row = Pe + ep_cubic_pair(8, a, b) * np;
                if (a == b)
                    pairs_diagonal(r, Ue + a * r3, 2.0, row);
                else
                    pairs_offdiagonal(r, Ue + a * r3, Ue + b * r3, 2.0, row);
            }
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, HEX_RANK, (int)np, HEX_PAIRS, 1.0, wk->ht.G, HEX_PAIRS,
                    Pe, (int)np, 0.0, wk->A + (size_t)v * HEX_RANK * np, (int)np);
    }
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, r, r, HEX_DOFS * ne, 1.0, wk->Ue, r, wk->KU, r, 1.0, wk->acc,
                (int)n);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, r, (int)np, HEX_PAIRS * ne, 1.0, wk->T, HEX_PAIRS * ne,
                wk->Pe, (int)np, 1.0, wk->acc + r, (int)n);
    cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, (int)np, HEX_RANK * ne, 1.0, wk->A, (int)np, 1.0,
                wk->acc + (size_t)r * n + r, (int)n);
    return EP_OK;
}

/* The basis by vertex, Ut[v][i][j] = U[j][3v + i], for the vertices of the
 * elements e0 <= e < e1 (the rest untouched: a part reads its own). */
static double *basis_by_vertex(const ep_mesh *m, const double *U, int r, int e0, int e1)
{
    const int *el;
    int k;
    ep_mesh_elements(m, &el, &k);
    size_t n3 = 3 * (size_t)m->nv;
    double *Ut = ep_malloc(n3 * (size_t)r, sizeof *Ut);
    unsigned char *done = ep_calloc((size_t)m->nv, 1);
    if (!Ut || !done) {
        free(Ut);
        free(done);
        return NULL;
    }
    for (size_t t = (size_t)k * e0; t < (size_t)k * e1; t++) {
        int v = el[t];
        if (done[v])
            continue;
        done[v] = 1;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < r; j++)
                Ut[((size_t)v * 3 + i) * r + j] = U[(size_t)j * n3 + 3 * (size_t)v + i];
    }
    free(done);
    return Ut;
}

static void rows_work_free(rows_work *wk, int nt, double *keep)
{
    for (int t = 0; wk && t < nt; t++) {
        free(wk[t].X);
        free(wk[t].A);
        free(wk[t].Ue);
        free(wk[t].KU);
        free(wk[t].T);
        free(wk[t].Pe);
        if (wk[t].acc != keep)
            free(wk[t].acc);
    }
    free(wk);
}

/* ACC (n x n, upper triangle; n = r + np) = sum over the elements
 * e_lo <= e < e_hi of the products R^T R of their rows R = [B | C]: BB =
 * B^T B, BC = B^T C and CC = C^T C, for tets in one dsyrk of their rows
 * (n(n+1) flops a row), for hexes from their tensors (hex_chunk).
 * Each thread fills chunks of about CHUNK_ROWS rows and adds their products
 * to its own sums with a one-thread BLAS (OpenBLAS runs one thread inside a
 * parallel region), so filling and multiplying overlap on the cores and no
 * thread waits; chunk c goes to thread c mod nt and the threads' sums are
 * added in thread order at the end: the result is the same in every run
 * with the same thread count.  (The buffers take 2 MB pages, ep_malloc: a
 * part of a split run would pay ~20 us per 4 KB page again.) */
static int accumulate(const ep_mesh *m, const ep_material *mat, const double *Ut, int r, int part, int e_lo,
                      int e_hi, double *ACC)
{
    int hex = !m->tets, rows_e = hex ? HEX_RANK : ROWS, chunk = CHUNK_ROWS / rows_e;
    long np = ep_cubic_npairs(r), n = r + np, rows = (long)rows_e * chunk;
    int nchunks = (e_hi - e_lo + chunk - 1) / chunk, nt = omp_get_max_threads(), failed = 0;
    nt = nt < nchunks ? nt : nchunks > 0 ? nchunks : 1;
    rows_work *wks = ep_calloc((size_t)nt, sizeof *wks);
    memset(ACC, 0, sizeof(double) * (size_t)n * n);
    for (int t = 0; wks && t < nt && !failed; t++) {
        rows_work *w = &wks[t];
        ep_hexenergy_init(&w->ht);
        w->acc = t ? ep_calloc((size_t)n * n, sizeof(double)) : ACC;
        if (hex) {
            w->A = ep_malloc((size_t)rows * np, sizeof(double));
            w->Ue = ep_malloc((size_t)chunk * HEX_DOFS * r, sizeof(double));
            w->KU = ep_malloc((size_t)chunk * HEX_DOFS * r, sizeof(double));
            w->T = ep_malloc((size_t)chunk * HEX_PAIRS * r, sizeof(double));
            w->Pe = ep_malloc((size_t)chunk * HEX_PAIRS * np, sizeof(double));
            failed = !w->A || !w->Ue || !w->KU || !w->T || !w->Pe || !w->acc;
        } else {
            w->X = ep_malloc(9 * (size_t)r, sizeof(double));
            w->A = ep_malloc((size_t)rows * n, sizeof(double));
            failed = !w->X || !w->A || !w->acc;
        }
    }
    if (!wks || failed) {
        rows_work_free(wks, nt, ACC);
        return ep_fail(EP_ECOMPUTE, "out of memory (%ld rows of %ld per thread)", rows, n);
    }
    ep_team_error err = {0};
#pragma omp parallel num_threads(nt)
    {
        rows_work *wk = &wks[omp_get_thread_num()];
        int mine = EP_OK;
        /* chunks dealt round the team as it is (the runtime may give fewer than nt) */
        for (int ch = omp_get_thread_num(); ch < nchunks && !mine; ch += omp_get_num_threads()) {
            int e0 = e_lo + ch * chunk, ne = e_hi - e0 < chunk ? e_hi - e0 : chunk;
            if (hex) {
                mine = hex_chunk(m, mat, Ut, r, e0, ne, part, wk, n);
                continue;
            }
            for (int e = 0; e < ne; e++)
                tet_rows(m, mat, Ut, r, e0 + e, part, wk, wk->A + (size_t)ROWS * e * n, n);
            cblas_dsyrk(CblasRowMajor, CblasUpper, CblasTrans, (int)n, ROWS * ne, 1.0, wk->A, (int)n, 1.0, wk->acc,
                        (int)n);
        }
        if (mine)
            ep_team_fail(&err, mine);
    }
    int st = ep_team_status(&err);
    for (int t = 1; t < nt && !st; t++)
        for (size_t i = 0; i < (size_t)n * n; i++)
            ACC[i] += wks[t].acc[i];
    rows_work_free(wks, nt, ACC);
    return st == EP_EINPUT ? ep_fail(EP_ECOMPUTE, "a degenerate element") : st;
}

/* R = dE/dq of E = q^T BB q + 2 q^T BC w + w^T CC w, from the upper
 * triangle of ACC = [BB BC; . CC] (row-major, n = r + np). */
static void coefficients(int r, const double *ACC, ep_cubic *c)
{
    long np = ep_cubic_npairs(r), n = r + np;
    const double *BC = ACC + r, *CC = ACC + (size_t)r * n + r;
#define SYM(A, i, j) ((i) <= (j) ? (A)[(size_t)(i) * n + (j)] : (A)[(size_t)(j) * n + (i)])
#define PR(i, j) ((i) <= (j) ? ep_cubic_pair(r, i, j) : ep_cubic_pair(r, j, i))
    for (int i = 0; i < r; i++) /* linear: 2 BB q */
        for (int mm = 0; mm < r; mm++)
            c->P[(size_t)i * r + mm] = 2 * SYM(ACC, mm, i);
    /* quadratic: 2 BC[m,(a,b)] + 2 sum over (i,k) = (a,b),(b,a) of (1 + d_mk) BC[i,(m,k)] */
    for (int a = 0; a < r; a++)
        for (int b = a; b < r; b++) {
            double *row = c->Q + (size_t)ep_cubic_pair(r, a, b) * r;
            for (int mm = 0; mm < r; mm++) {
                double v = 2 * BC[(size_t)mm * n + ep_cubic_pair(r, a, b)];
                v += 2 * (1 + (mm == b)) * BC[(size_t)a * n + PR(mm, b)];
                if (a != b)
                    v += 2 * (1 + (mm == a)) * BC[(size_t)b * n + PR(mm, a)];
                row[mm] = v;
            }
        }
    /* cubic: for each distinct k of the monomial q_a q_b q_e, 2 (1 + d_mk) CC[(m,k), rest] */
    for (int a = 0; a < r; a++)
        for (int b = a; b < r; b++)
            for (int e = b; e < r; e++) {
                double *row = c->S + (size_t)ep_cubic_triple(r, a, b, e) * r;
                int ks[3] = {a, b, e};
                for (int mm = 0; mm < r; mm++) {
                    double v = 0;
                    for (int t = 0; t < 3; t++) {
                        if ((t == 1 && b == a) || (t == 2 && (e == b || e == a)))
                            continue; /* each distinct value once */
                        int k = ks[t], c1 = ks[(t + 1) % 3], c2 = ks[(t + 2) % 3];
                        v += 2 * (1 + (mm == k)) * SYM(CC, PR(mm, k), PR(c1, c2));
                    }
                    row[mm] = v;
                }
            }
#undef SYM
#undef PR
}

int ep_cubic_compute(ep_cubic *total, ep_cubic *lam, ep_cubic *mu, const ep_mesh *m, const ep_material *mat,
                     const double *U, int r)
{
    return ep_cubic_compute_elements(total, lam, mu, m, mat, U, r, 0, ep_mesh_nelements(m));
}

int ep_cubic_compute_elements(ep_cubic *total, ep_cubic *lam, ep_cubic *mu, const ep_mesh *m,
                              const ep_material *mat, const double *U, int r, int e0, int e1)
{
    long n = r + ep_cubic_npairs(r);
    double *ACC = ep_malloc((size_t)n * n, sizeof *ACC), *Ut = basis_by_vertex(m, U, r, e0, e1);
    int st = ACC && Ut ? EP_OK : EP_ECOMPUTE;
    ep_cubic *out[3] = {total, lam, mu};
    for (int part = 0; part < 3 && !st; part++) {
        if (!out[part])
            continue;
        if ((st = ep_cubic_alloc(out[part], r)) || (st = accumulate(m, mat, Ut, r, part, e0, e1, ACC)))
            break;
        coefficients(r, ACC, out[part]);
    }
    free(ACC);
    free(Ut);
    return st;
}

void ep_cubic_force(const ep_cubic *c, const double *q, double *R, double *w)
{
    int r = c->r;
    long np = ep_cubic_npairs(r), nt = ep_cubic_ntriples(r);
    double *w3 = w + np;
    for (int i = 0, p = 0, t = 0; i < r; i++)
        for (int j = i; j < r; j++, p++) {
            w[p] = q[i] * q[j];
            for (int k = j; k < r; k++, t++)
                w3[t] = q[i] * q[j] * q[k];
        }
    cblas_dgemv(CblasRowMajor, CblasTrans, r, r, 1.0, c->P, r, q, 1, 0.0, R, 1);
    cblas_dgemv(CblasRowMajor, CblasTrans, (int)np, r, 1.0, c->Q, r, w, 1, 1.0, R, 1);
    cblas_dgemv(CblasRowMajor, CblasTrans, (int)nt, r, 1.0, c->S, r, w3, 1, 1.0, R, 1);
}

void ep_cubic_stiffness(const ep_cubic *c, const double *q, double *K)
{
    int r = c->r;
    /* K[m][a] = P[a][m] + sum_b Q[(a,b)][m] q_b (1 + d_ab)
     *         + sum over triples containing a: S[t][m] d(q_i q_j q_k)/dq_a */
    for (int mm = 0; mm < r; mm++)
        for (int a = 0; a < r; a++)
            K[(size_t)mm * r + a] = c->P[(size_t)a * r + mm];
    for (int i = 0; i < r; i++)
        for (int j = i; j < r; j++) {
            const double *row = c->Q + (size_t)ep_cubic_pair(r, i, j) * r;
            for (int mm = 0; mm < r; mm++) { /* d(q_i q_j)/dq_i = q_j, /dq_j = q_i */
                K[(size_t)mm * r + i] += row[mm] * q[j];
                K[(size_t)mm * r + j] += row[mm] * q[i];
            }
        }
    for (int i = 0, t = 0; i < r; i++)
        for (int j = i; j < r; j++)
            for (int k = j; k < r; k++, t++) {
                const double *row = c->S + (size_t)t * r;
                double di = q[j] * q[k], dj = q[i] * q[k], dk = q[i] * q[j];
                for (int mm = 0; mm < r; mm++) {
                    K[(size_t)mm * r + i] += row[mm] * di;
                    K[(size_t)mm * r + j] += row[mm] * dj;
                    K[(size_t)mm * r + k] += row[mm] * dk;
                }
            }
}

/* Start of the panel of rows p..p+3 (p a multiple of 4): the panels above
 * hold 4 (np - i) entries each, i = 0, 4, .., p - 4. */
static long panel_offset(int np, int p) { return (long)p * np - (long)p * (p - 4) / 2; }

/* Where the panel storage keeps entry (i, j) of T: in the diagonal blocks
 * both halves, elsewhere the upper one; within a panel, 4 x 4 blocks of
 * four row pieces of four. */
static double *panel_entry(const ep_cubic_tangent *t, long i, long j)
{
    if (i / 4 != j / 4 && j < i) {
        long k = i;
        i = j, j = k;
    }
    long p = i / 4 * 4;
    return &t->T[panel_offset(t->np, (int)p) + (j - p) / 4 * 16 + (i - p) * 4 + (j - p) % 4];
}

/* The entries of T (cubic.h): with e = (m, a), m <= a < r,
 *   K[m][a] = P[a][m] + sum_b (1 + d_ab) Q[(a,b)][m] q_b
 *           + sum_{b<=c} count_a(abc) S[sort(a,b,c)][m] q_b q_c,
 * so T[e][(r,r)] = P[a][m], T[e][(b,r)] = (1 + d_ab) Q[(a,b)][m] / 2 (w is
 * 2 q_b there), and T[e][(b,c)] the last coefficient over (2 - d_bc), which
 * is symmetric under swapping the pairs (m,a) and (b,c) (both are
 * derivatives of one quartic energy).  The block of the pairs (i, r) holds
 * P, so that H_(i,r) = (the part of R_i of degree 2, from the Q entries
 * above by symmetry) + 2 (P q)_i. */
int ep_cubic_tangent_prepare(ep_cubic_tangent *t, const ep_cubic *c)
{
    int r = c->r;
    long nr = ep_cubic_npairs(r), ns = ep_cubic_npairs(r + 1);
    memset(t, 0, sizeof *t);
    t->r = r;
    t->np = (int)((ns + 3) / 4 * 4);
    size_t nT = (size_t)panel_offset(t->np, t->np);
    if (!(t->T = aligned_alloc(64, (nT * sizeof *t->T + 63) / 64 * 64)))
        return ep_fail(EP_ECOMPUTE, "out of memory (%zu bytes)", nT * sizeof *t->T);
    memset(t->T, 0, nT * sizeof *t->T); /* the padding rows and columns stay 0 */
    while (t->split < t->np && 2 * ((long)nT - panel_offset(t->np, t->split)) > (long)nT)
        t->split += 4; /* with a helper: it takes the panels from split on, half the bytes */
    for (int m = 0; m < r; m++)
        for (int a = m; a < r; a++) {
            long e = ep_cubic_pair(r, m, a);
            *panel_entry(t, e, nr + r) = *panel_entry(t, nr + r, e) = c->P[(size_t)a * r + m];
            for (int b = 0; b < r; b++)
                *panel_entry(t, e, nr + b) = *panel_entry(t, nr + b, e) =
                    (1 + (a == b)) * c->Q[(size_t)(a <= b ? ep_cubic_pair(r, a, b) : ep_cubic_pair(r, b, a)) * r + m] / 2;
            for (int b = 0; b < r; b++)
                for (int cc = b; cc < r; cc++) {
                    long p = ep_cubic_pair(r, b, cc);
                    if (p > e)
                        continue; /* (e, p) is set with (p, e) */
                    int s[3] = {a, b, cc}, tmp;
                    if (s[0] > s[1]) tmp = s[0], s[0] = s[1], s[1] = tmp;
                    if (s[1] > s[2]) tmp = s[1], s[1] = s[2], s[2] = tmp;
                    if (s[0] > s[1]) tmp = s[0], s[0] = s[1], s[1] = tmp;
                    int count = (a == b) + (a == cc) + 1;
                    double k2 = count * c->S[(size_t)ep_cubic_triple(r, s[0], s[1], s[2]) * r + m];
                    *panel_entry(t, p, e) = *panel_entry(t, e, p) = k2 / (2 - (b == cc));
                }
        }
    for (int i = 0; i < r; i++)
        for (int k = i; k < r; k++)
            *panel_entry(t, nr + i, nr + k) = *panel_entry(t, nr + k, nr + i) = c->P[(size_t)i * r + k];
    return EP_OK;
}

void ep_cubic_tangent_free(ep_cubic_tangent *t)
{
    ep_worker_stop(t->helper);
    free(t->T);
    memset(t, 0, sizeof *t);
}

long ep_cubic_tangent_bytes(int r)
{
    long np = (ep_cubic_npairs(r + 1) + 3) / 4 * 4;
    return 8 * panel_offset((int)np, (int)np);
}

long ep_cubic_tangent_work(int r) { return 3 * ((ep_cubic_npairs(r + 1) + 3) / 4 * 4); }

int ep_cubic_tangent_threads(ep_cubic_tangent *t, int threads) { return ep_worker_use(&t->helper, threads); }

/* y = the part of T x that the panels of rows [p0, p1) hold, in one
 * sequential pass: each 4 x 4 block right of a panel's diagonal block serves
 * its four rows (s) and, mirrored, four entries of y.  in: T (np), x[np]
 * (zero padded); out: y[np].  2 (entries of the panels) flops.  (One
 * stream the prefetcher follows, where dsymv on the same matrix reads four
 * row streams; tests/bench/cubic_eval times the whole evaluation.) */
EP_KERNEL static void panel_symv(int np, const double *restrict T, int p0, int p1, const double *restrict x,
                                 double *restrict y)
{
    memset(y, 0, sizeof(double) * (size_t)np);
    const ep_v4d *A = (const ep_v4d *)(T + panel_offset(np, p0));
    for (int p = p0; p < p1; p += 4, A += 4) {
        ep_v4d X = *(const ep_v4d *)(x + p), s0 = A[0] * X, s1 = A[1] * X, s2 = A[2] * X, s3 = A[3] * X;
        ep_v4d x0 = {x[p], x[p], x[p], x[p]}, x1 = {x[p + 1], x[p + 1], x[p + 1], x[p + 1]},
            x2 = {x[p + 2], x[p + 2], x[p + 2], x[p + 2]}, x3 = {x[p + 3], x[p + 3], x[p + 3], x[p + 3]};
        for (int k = p + 4; k < np; k += 4) {
            A += 4;
            ep_v4d Xk = *(const ep_v4d *)(x + k);
            s0 += A[0] * Xk, s1 += A[1] * Xk, s2 += A[2] * Xk, s3 += A[3] * Xk;
            *(ep_v4d *)(y + k) += (A[0] * x0 + A[1] * x1) + (A[2] * x2 + A[3] * x3);
        }
        y[p] += (s0[0] + s0[1]) + (s0[2] + s0[3]);
        y[p + 1] += (s1[0] + s1[1]) + (s1[2] + s1[3]);
        y[p + 2] += (s2[0] + s2[1]) + (s2[2] + s2[3]);
        y[p + 3] += (s3[0] + s3[1]) + (s3[2] + s3[3]);
    }
}

/* The helper's share of an evaluation: the panels from split on. */
typedef struct {
    const ep_cubic_tangent *t;
    const double *w2;
    double *y;
} share;

static void helper_share(void *p)
{
    const share *h = p;
    panel_symv(h->t->np, h->t->T, h->t->split, h->t->np, h->w2, h->y);
}

void ep_cubic_tangent_eval(const ep_cubic_tangent *t, const double *q, double *R, double *K, double *w)
{
    int r = t->r, np = t->np;
    long nr = ep_cubic_npairs(r);
    double *w2 = w, *y = w + np, *y1 = y + np;
    for (int i = 0, p = 0; i < r; i++)
        for (int j = i; j < r; j++, p++)
            w2[p] = q[i] * q[j] * (i == j ? 1.0 : 2.0); /* (2 - d_p) w_p */
    for (int k = 0; k < r; k++)
        w2[nr + k] = 2 * q[k]; /* pairs (k, r) with q_r = 1 */
    w2[nr + r] = 1;
    for (long p = nr + r + 1; p < np; p++)
        w2[p] = 0;
    if (t->helper) { /* each thread streams its half of T from its own L2 */
        share h = {t, w2, y1};
        ep_worker_run(t->helper, helper_share, &h);
        panel_symv(np, t->T, 0, t->split, w2, y);
        ep_worker_wait(t->helper);
        for (int e = 0; e < np; e++)
            y[e] += y1[e];
    } else
        panel_symv(np, t->T, 0, np, w2, y);
    for (int m = 0, e = 0; m < r; m++)
        for (int a = m; a < r; a++, e++)
            K[(size_t)m * r + a] = K[(size_t)a * r + m] = y[e];
    for (int i = 0; R && i < r; i++) { /* Euler: R_i = (sum_j K_ij q_j + H_(i,r)) / 3 */
        double s = y[nr + i];
        for (int j = 0; j < r; j++)
            s += K[(size_t)i * r + j] * q[j];
        R[i] = s / 3;
    }
}
