/*
 * cma.c — capacitance matrix algorithm on dense or wavelet GFs (cma.h;
 * MATH.md §7, 000 §2.2–2.3, §3.3, §4.2).
 *
 * Matrices are row-major; a node's three rows/columns are adjacent, so the
 * (i, j) 3x3 block of a matrix X with leading dimension ld is
 * X[(3i + b) ld + 3j + a].  C^-1 keeps ld = 3 cap: adding a node writes its
 * rows and columns next to the others and removing one swaps it with the
 * last, so neither copies the s^2 entries (at s = 100 a copy costs as much
 * as the update's arithmetic).  The symmetric form's Cholesky factor L
 * lives in the same array, column j of L in row j (LAPACK's column-major
 * lower triangle), so LAPACK and the kernels below read it in place and a
 * node's rows are appended in the same room; a removal moves the entries
 * after the node up and left (a factor's order cannot be swapped).
 */
#include "cma.h"

#include <assert.h>
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "kernel.h"
#include "sort.h"
#include "worker.h"

/* ---- small dense helpers ---------------------------------------------------------- */

/* Inverse of a 3x3 matrix; 0, or EP_ECOMPUTE when singular to working precision. */
static int inv3(const double A[9], double X[9])
{
    double c0 = A[4] * A[8] - A[5] * A[7], c1 = A[5] * A[6] - A[3] * A[8], c2 = A[3] * A[7] - A[4] * A[6];
    double det = A[0] * c0 + A[1] * c1 + A[2] * c2, scale = 0;
    for (int i = 0; i < 9; i++)
        scale = fmax(scale, fabs(A[i]));
    if (!(fabs(det) > 1e-14 * scale * scale * scale))
        return ep_fail(EP_ECOMPUTE, "capacitance update: a 3x3 pivot block is singular");
    X[0] = c0 / det, X[3] = c1 / det, X[6] = c2 / det;
    X[1] = (A[2] * A[7] - A[1] * A[8]) / det;
    X[4] = (A[0] * A[8] - A[2] * A[6]) / det;
    X[7] = (A[1] * A[6] - A[0] * A[7]) / det;
    X[2] = (A[1] * A[5] - A[2] * A[4]) / det;
    X[5] = (A[2] * A[3] - A[0] * A[5]) / det;
    X[8] = (A[0] * A[4] - A[1] * A[3]) / det;
    return EP_OK;
}

/* y = M x for a 3x3 M (row-major); y may not alias x. */
static void times3(const double M[9], const double x[3], double y[3])
{
    for (int a = 0; a < 3; a++)
        y[a] = M[3 * a] * x[0] + M[3 * a + 1] * x[1] + M[3 * a + 2] * x[2];
}

/* 3 max |M_ij| of a 3x3: above its 2-norm (the LDL^T's pivot size). */
static double norm3(const double M[9])
{
    double n = 0;
    for (int q = 0; q < 9; q++)
        n = fmax(n, 3 * fabs(M[q]));
    return n;
}

/* The kernels below make the passes over C^-1 that decide an update's cost
 * (at s = 100 it is 720 KB, beyond L2).  BLAS has no operation that fuses
 * them: six dgemv calls and a k = 3 dgemm read C^-1 seven times and pack it
 * twice.  Their speed is set by loads and stores rather than flops, so rows
 * go in pairs where the registers allow, to share each load of the
 * vectors.  The pending update is a pass of its own: inside the products'
 * loop it ran out of registers, and an addition took no less time. */

/* y = A b and x += c A over rows [i0, i1) of A.
 * in: b[3][N], c[3][N], A (N x N, row-major, leading dimension ld); out:
 * y[N][3] (y[i][a] = sum_k A[i][k] b[a][k]) for those rows; in/out:
 * x[3][N] (x[a][k] += sum_{i0 <= i < i1} c[a][i] A[i][k]).
 * 12 N (i1 - i0) flops. */
EP_KERNEL static void products(int N, int i0, int i1, const double *restrict b, const double *restrict c,
                               const double *restrict A, int ld, double *restrict y, double *restrict x)
{
    const double *b0 = b, *b1 = b + N, *b2 = b + 2 * N;
    double *x0 = x, *x1 = x + N, *x2 = x + 2 * N;
    for (int i = i0; i < i1; i += 2) {
        int j = i + 1 < i1 ? i + 1 : i; /* an odd last row pairs with itself at weight 0 */
        const double *a = A + (size_t)i * ld, *e = A + (size_t)j * ld;
        double w = j > i, p0 = 0, p1 = 0, p2 = 0, q0 = 0, q1 = 0, q2 = 0;
        double c0 = c[i], c1 = c[N + i], c2 = c[2 * N + i], d0 = w * c[j], d1 = w * c[N + j], d2 = w * c[2 * N + j];
#pragma omp simd reduction(+ : p0, p1, p2, q0, q1, q2)
        for (int k = 0; k < N; k++) {
            p0 += a[k] * b0[k], p1 += a[k] * b1[k], p2 += a[k] * b2[k];
            q0 += e[k] * b0[k], q1 += e[k] * b1[k], q2 += e[k] * b2[k];
            x0[k] += c0 * a[k] + d0 * e[k], x1[k] += c1 * a[k] + d1 * e[k], x2[k] += c2 * a[k] + d2 * e[k];
        }
        y[3 * i] = p0, y[3 * i + 1] = p1, y[3 * i + 2] = p2;
        if (j > i)
            y[3 * j] = q0, y[3 * j + 1] = q1, y[3 * j + 2] = q2;
    }
}

/* A += U V for a rank k of 3 (rows in pairs) or 6, over rows [i0, i1) of A.
 * in: U (N x k, row stride ldu), V (k x N, row stride ldv); in/out: A (N x N,
 * ld).  2 k N (i1 - i0) flops. */
EP_KERNEL static void rank_update(int N, int i0, int i1, int k, const double *restrict U, int ldu,
                                  const double *restrict V, int ldv, double *restrict A, int ld)
{
    const double *v0 = V, *v1 = v0 + ldv, *v2 = v1 + ldv, *v3 = v2 + ldv, *v4 = v3 + ldv, *v5 = v4 + ldv;
    for (int i = i0; i < i1; i++) {
        double *a = A + (size_t)i * ld;
        const double *u = U + (size_t)i * ldu;
        double u0 = u[0], u1 = u[1], u2 = u[2];
        if (k == 6) {
            double u3 = u[3], u4 = u[4], u5 = u[5];
#pragma omp simd
            for (int j = 0; j < N; j++)
                a[j] += u0 * v0[j] + u1 * v1[j] + u2 * v2[j] + u3 * v3[j] + u4 * v4[j] + u5 * v5[j];
        } else if (i + 1 < i1) {
            double *e = a + ld, t0 = u[ldu], t1 = u[ldu + 1], t2 = u[ldu + 2];
#pragma omp simd
            for (int j = 0; j < N; j++) {
                a[j] += u0 * v0[j] + u1 * v1[j] + u2 * v2[j];
                e[j] += t0 * v0[j] + t1 * v1[j] + t2 * v2[j];
            }
            i++;
        } else {
#pragma omp simd
            for (int j = 0; j < N; j++)
                a[j] += u0 * v0[j] + u1 * v1[j] + u2 * v2[j];
        }
    }
}

/* One update's work on the rows of C^-1: with b, the pending update U V
 * (when U is not NULL, rank 3) and the products; without, rank_update.  Two
 * threads share the rows in chunks: the caller takes them from the first
 * row on, the helper from the last row back, until together they have
 * claimed all (*claimed counts).  Evenly matched, each keeps the rows it
 * wrote last time, in its own cache (a row moved to the other core is a
 * transfer between the two); a helper that starts late or runs slower on a
 * shared core takes fewer. */
typedef struct pass {
    int N, k, ldu, ldv, ld;
    const double *U, *V, *b, *cc;
    double *A, *y, *x; /* x: this thread's part of the products' x */
    atomic_int *claimed;
    int from_end;
} pass;

static void run_pass(void *arg)
{
    enum { CHUNK = 16 }; /* rows: even, for the pairs of the kernels */
    const pass *p = arg;
    int N = p->N, chunks = (N + CHUNK - 1) / CHUNK;
    if (p->b)
        memset(p->x, 0, 3 * (size_t)N * sizeof *p->x);
    for (int mine = 0; atomic_fetch_add(p->claimed, 1) < chunks; mine++) {
        int i0 = (p->from_end ? chunks - 1 - mine : mine) * CHUNK, i1 = i0 + CHUNK < N ? i0 + CHUNK : N;
        if (p->b && p->U)
            rank_update(N, i0, i1, 3, p->U, 3, p->V, p->ldv, p->A, p->ld);
        if (p->b)
            products(N, i0, i1, p->b, p->cc, p->A, p->ld, p->y, p->x);
        else
            rank_update(N, i0, i1, p->k, p->U, p->ldu, p->V, p->ldv, p->A, p->ld);
    }
}

/* Run pass p over all N rows, with the helper thread when there is one.
 * xh[3N]: the helper's part of p->x. */
static void split_pass(const ep_cma *c, pass *p, double *xh)
{
    enum { MIN_ROWS = 96 }; /* below, handing off costs more than it saves */
    atomic_int claimed = 0;
    p->claimed = &claimed;
    p->from_end = 0;
    if (!c->helper || p->N < MIN_ROWS) {
        run_pass(p);
        return;
    }
    pass h = *p;
    h.x = xh, h.from_end = 1;
    ep_worker_run(c->helper, run_pass, &h);
    run_pass(p);
    ep_worker_wait(c->helper);
    for (int i = 0; p->b && i < 3 * p->N; i++)
        p->x[i] += xh[i];
}

/* C = alpha A B for the update's thin products (m, n or k is 3): a BLAS
 * call spends microseconds in dispatch and packing, the loop well under one.
 * in: A (m x k, lda), B (k x n, ldb); out: C (m x n, ldc). */
static void gemm_thin(int m, int n, int k, double alpha, const double *A, int lda, const double *B, int ldb, double *C,
                      int ldc)
{
    for (int i = 0; i < m; i++) {
        double *c = C + (size_t)i * ldc;
        memset(c, 0, (size_t)n * sizeof *c);
        for (int l = 0; l < k; l++) {
            double a = alpha * A[(size_t)i * lda + l];
            const double *b = B + (size_t)l * ldb;
            for (int j = 0; j < n; j++)
                c[j] += a * b[j];
        }
    }
}

/* ---- kernels of the Cholesky factor ------------------------------------------------ */

/* The factor L (lower, N x N, column-major, leading dimension ld: L(i, j)
 * = L[j ld + i]) takes the place of C^-1's product: an addition solves
 * L X = B for three right-hand sides, a contact solve L y = e and
 * L^T z = y.  With three columns or one, OpenBLAS's dtrsm and dtrsv spend
 * their time packing and dispatching.  The kernels go by tiles of 8 rows
 * (or columns), whose sums with what is already solved share each load of
 * L in 4-wide registers; the tile's own triangle is then substitution. */

/* Rows [i0, i1) of L X = B after the columns left of i0 were subtracted:
 * x[a][i] = (x[a][i] - sum_{i0 <= j < i} L(i, j) x[a][j]) / L(i, i). */
static inline void lower_tile(int i0, int i1, const double *L, int ld, int k, double *x, int ldx)
{
    for (int j = i0; j < i1; j++) {
        const double *l = L + (size_t)j * ld;
        for (int a = 0; a < k; a++) {
            double *y = x + (size_t)a * ldx, v = y[j] /= l[j];
            for (int i = j + 1; i < i1; i++)
                y[i] -= l[i] * v;
        }
    }
}

/* L X = B in place for k = 1 or 3 right-hand sides, the rows x[a][N] (row
 * stride ldx).  The first N mod 8 rows have no columns to their left;
 * then each tile of 8 subtracts the columns left of it in six chains of
 * 4-wide sums (FMA latency: fewer would wait): two a right-hand side, or
 * for one, two a column of three in turn.  k N^2 flops. */
static inline __attribute__((always_inline)) void lower_solve_k(int N, const double *L, int ld, int k, double *x,
                                                                int ldx)
{
    enum { T = 8 };
    int i0 = N % T;
    lower_tile(0, i0, L, ld, k, x, ldx);
    for (; i0 < N; i0 += T) {
        ep_v4d sum[3][2] = {{{0}}};
        int j = 0;
        if (k == 1)
            for (; j + 3 <= i0; j += 3)
#pragma GCC unroll 3
                for (int q = 0; q < 3; q++) {
                    const ep_v4d *l = (const ep_v4d *)(L + (size_t)(j + q) * ld + i0);
                    sum[q][0] += l[0] * x[j + q], sum[q][1] += l[1] * x[j + q];
                }
        for (; j < i0; j++) {
            const ep_v4d *l = (const ep_v4d *)(L + (size_t)j * ld + i0);
            ep_v4d l0 = l[0], l1 = l[1];
#pragma GCC unroll 3
            for (int a = 0; a < k; a++) {
                double v = x[(size_t)a * ldx + j];
                sum[a][0] += l0 * v, sum[a][1] += l1 * v;
            }
        }
        if (k == 1)
            sum[0][0] += sum[1][0] + sum[2][0], sum[0][1] += sum[1][1] + sum[2][1];
#pragma GCC unroll 3
        for (int a = 0; a < k; a++) {
            ep_v4d *y = (ep_v4d *)(x + (size_t)a * ldx + i0);
            y[0] -= sum[a][0], y[1] -= sum[a][1];
        }
        lower_tile(i0, i0 + T, L, ld, k, x, ldx);
    }
}

EP_KERNEL static void lower_solve1(int N, const double *L, int ld, double *x) { lower_solve_k(N, L, ld, 1, x, N); }

EP_KERNEL static void lower_solve3(int N, const double *L, int ld, double *x, int ldx)
{
    lower_solve_k(N, L, ld, 3, x, ldx);
}

/* L^T x = b in place (x[N]).  Column j of L is row j of L^T: from the
 * bottom, the last N mod 8 columns have nothing below them; each tile of 8
 * columns above takes its 8 dot products with the part of x solved below
 * it (one load of x for 8 columns), then its own triangle, each value
 * solved subtracted from the tile's others at once (dot products there
 * would chain).  N^2 flops. */
EP_KERNEL static void lower_tsolve(int N, const double *L, int ld, double *x)
{
    enum { T = 8 };
    double t[T] = {0};
    for (int j1 = N, j0 = N - N % T;; j1 = j0, j0 -= T) {
        for (int i = j1 - 1; i >= j0; i--) {
            double v = x[i] = (x[i] - t[i - j0]) / L[(size_t)i * ld + i];
            for (int j = j0; j < i; j++)
                t[j - j0] += L[(size_t)j * ld + i] * v;
        }
        if (j0 < T)
            return;
        ep_v4d acc[T] = {0};
        int i = j0;
        for (; i + 4 <= N; i += 4) {
            ep_v4d xv = *(const ep_v4d *)(x + i);
#pragma GCC unroll 8
            for (int q = 0; q < T; q++)
                acc[q] += *(const ep_v4d *)(L + (size_t)(j0 - T + q) * ld + i) * xv;
        }
        for (int q = 0; q < T; q++) {
            t[q] = (acc[q][0] + acc[q][1]) + (acc[q][2] + acc[q][3]);
            for (int r = i; r < N; r++)
                t[q] += L[(size_t)(j0 - T + q) * ld + r] * x[r];
        }
    }
}

/* L' L'^T = L L^T + w0 w0^T + w1 w1^T + w2 w2^T for L lower (m x m,
 * column-major, ld), in place (w[a][m] overwritten): LINPACK's dchud by
 * plane rotations, the three vectors at once so a column of L is read
 * once.  Column j's three rotations come from its diagonal in turn; each
 * element below then meets them in the same order.  A positive update:
 * stable, and L' keeps a positive diagonal.  About 9 m^2 flops. */
EP_KERNEL static void cholesky_update3(int m, double *L, int ld, double *restrict w0, double *restrict w1,
                                       double *restrict w2)
{
    for (int j = 0; j < m; j++) {
        double *restrict l = L + (size_t)j * ld, c[3], s[3], wj[3] = {w0[j], w1[j], w2[j]};
        for (int a = 0; a < 3; a++) {
            double r = hypot(l[j], wj[a]);
            c[a] = l[j] / r, s[a] = wj[a] / r;
            l[j] = r;
        }
#pragma omp simd
        for (int i = j + 1; i < m; i++) {
            double x = l[i], y0 = w0[i], y1 = w1[i], y2 = w2[i], t;
            t = c[0] * x + s[0] * y0, w0[i] = c[0] * y0 - s[0] * x, x = t;
            t = c[1] * x + s[1] * y1, w1[i] = c[1] * y1 - s[1] * x, x = t;
            t = c[2] * x + s[2] * y2, w2[i] = c[2] * y2 - s[2] * x, x = t;
            l[i] = x;
        }
    }
}

/* ---- kernels of the LDL^T factor --------------------------------------------------- */

/* Ahat = L D L^T by node blocks (cma.h): L unit lower with identity 3x3
 * diagonal blocks, stored like the Cholesky factor (ones on the diagonal,
 * zeros in a diagonal block's lower part, so the kernels above serve
 * both), and D's pivots piv[18 j] (D_j, then D_j^-1, row-major 3x3). */

/* X(r, c0 + a) = sum_q X(r, c0 + q) M[3 q + a] for rows [r0, r1) of the
 * three columns [c0, c0 + 3) of X (column-major, ld): a column block times
 * a 3x3 (a pivot's inverse, or a Cholesky block's).  15 (r1 - r0) flops. */
EP_KERNEL static void times_block(double *X, int ld, int c0, int r0, int r1, const double M[9])
{
    double *restrict x0 = X + (size_t)c0 * ld, *restrict x1 = x0 + ld, *restrict x2 = x1 + ld;
#pragma omp simd
    for (int r = r0; r < r1; r++) {
        double a = x0[r], b = x1[r], c = x2[r];
        x0[r] = a * M[0] + b * M[3] + c * M[6];
        x1[r] = a * M[1] + b * M[4] + c * M[7];
        x2[r] = a * M[2] + b * M[5] + c * M[8];
    }
}

/* acc[r] = sum_j |L(r, j)|^2 ||D_j|| over the node blocks j of rows
 * [0, m) (the diagonal block's identity included; ||.|| the max entry
 * times 3, above the 2-norm): the growth of L D L^T against Ahat, whose
 * largest entry is on its diagonal when it is near SPD.  Returns the
 * largest.  About 2 m^2 flops. */
EP_KERNEL static double ldlt_growth(int m, const double *L, int ld, const double *piv, double *restrict acc)
{
    double worst = 0;
    memset(acc, 0, sizeof(double) * (size_t)m);
    for (int j = 0; 3 * j < m; j++) {
        const double *l0 = L + (size_t)3 * j * ld, *l1 = l0 + ld, *l2 = l1 + ld;
        double dn = norm3(piv + 18 * (size_t)j);
        for (int a = 0; a < 3; a++)
            acc[3 * j + a] += dn;
#pragma omp simd
        for (int r = 3 * j + 3; r < m; r++)
            acc[r] += (l0[r] * l0[r] + l1[r] * l1[r] + l2[r] * l2[r]) * dn;
        for (int a = 0; a < 3; a++)
            worst = fmax(worst, acc[3 * j + a]);
    }
    return worst;
}

/* ---- the capacitance matrix --------------------------------------------------------- */

int ep_cma_init(ep_cma *c, ep_gfsrc *g)
{
    memset(c, 0, sizeof *c);
    c->g = g;
    c->cap = 16;
    c->S = ep_malloc((size_t)c->cap, sizeof *c->S);
    c->ld = 3 * c->cap;
    c->Cinv = ep_malloc(9 * (size_t)c->cap * c->cap, sizeof *c->Cinv);
    c->work = ep_malloc(9 * (size_t)c->cap * c->cap + 48 * (size_t)c->cap + 6 * (size_t)g->n + 64,
                        sizeof *c->work);
    c->cols = ep_malloc(2 * (size_t)g->n + 1, sizeof *c->cols);
    c->U = ep_malloc(9 * (size_t)c->cap, sizeof *c->U);
    c->V = ep_malloc(3 * (size_t)c->ld, sizeof *c->V);
    c->D = ep_malloc(18 * (size_t)c->cap, sizeof *c->D);
    c->sym = g->symmetric;
    c->both = g->symmetric && g->wavelet;
    c->form = c->sym ? EP_CMA_CHOLESKY : EP_CMA_INVERSE;
    c->factor = c->sym ? "cholesky" : "lu";
    return c->S && c->Cinv && c->work && c->cols && c->U && c->V && c->D ? EP_OK : EP_ECOMPUTE;
}

void ep_cma_free(ep_cma *c)
{
    ep_worker_stop(c->helper);
    free(c->S), free(c->Cinv), free(c->work), free(c->cols), free(c->U), free(c->V), free(c->D), free(c->gv);
    memset(c, 0, sizeof *c);
}

int ep_cma_gravity(ep_cma *c, const double beta[3])
{
    if (!beta || (beta[0] == 0 && beta[1] == 0 && beta[2] == 0)) {
        free(c->gv);
        c->gv = NULL;
        memset(c->beta, 0, sizeof c->beta);
        return EP_OK;
    }
    memcpy(c->beta, beta, sizeof c->beta);
    if (!c->gv && !(c->gv = ep_malloc(3 * (size_t)c->g->n, sizeof *c->gv)))
        return EP_ECOMPUTE;
    int st = ep_gfsrc_gravity(c->g, beta, c->gv);
    if (st) {
        free(c->gv);
        c->gv = NULL;
        memset(c->beta, 0, sizeof c->beta);
    }
    return st;
}

int ep_cma_threads(ep_cma *c, int threads) { return ep_worker_use(&c->helper, threads); }

void ep_cma_use_lu(ep_cma *c)
{
    c->sym = 0;
    c->form = EP_CMA_INVERSE;
    c->factor = "lu";
}

/* Room for s nodes: a larger capacity moves C^-1 to the new leading
 * dimension. */
static int reserve(ep_cma *c, int s)
{
    if (s <= c->cap)
        return EP_OK;
    int cap = 2 * s, ld = 3 * cap, N = 3 * c->s;
    double *M = ep_malloc(9 * (size_t)cap * cap, sizeof *M), *V = ep_malloc(3 * (size_t)ld, sizeof *V);
    if (!M || !V || ep_grow(&c->S, (size_t)cap, sizeof *c->S) || ep_grow(&c->U, 9 * (size_t)cap, sizeof *c->U) ||
        ep_grow(&c->D, 18 * (size_t)cap, sizeof *c->D) ||
        ep_grow(&c->work, 9 * (size_t)cap * cap + 48 * (size_t)cap + 6 * (size_t)c->g->n + 64, sizeof *c->work)) {
        free(M), free(V);
        return EP_ECOMPUTE;
    }
    for (int i = 0; i < N; i++)
        memcpy(&M[(size_t)i * ld], &c->Cinv[(size_t)i * c->ld], (size_t)N * sizeof *M);
    for (int a = 0; a < 3; a++)
        memcpy(&V[(size_t)a * ld], &c->V[(size_t)a * c->ld], (size_t)N * sizeof *V);
    free(c->Cinv), free(c->V);
    c->Cinv = M, c->V = V;
    c->cap = cap;
    c->ld = ld;
    return EP_OK;
}

/* Row i of C^-1 with the pending update: out[3s]. */
static void inverse_row(const ep_cma *c, int i, double *out)
{
    int N = 3 * c->s, ld = c->ld;
    memcpy(out, &c->Cinv[(size_t)i * ld], (size_t)N * sizeof *out);
    if (c->pending)
        for (int a = 0; a < 3; a++)
            cblas_daxpy(N, c->U[3 * i + a], &c->V[(size_t)a * ld], 1, out, 1);
}

static int check_node(const ep_cma *c, int node)
{
    const ep_gfsrc *g = c->g;
    if (node < 0 || node >= g->n || g->col_of_row[node] < 0 || g->file->L.row_fixed[node])
        return ep_fail(EP_EINPUT, "contact node %d is not a free node with a GF column", node);
    return EP_OK;
}

static int position(const ep_cma *c, int node)
{
    for (int i = 0; i < c->s; i++)
        if (c->S[i] == node)
            return i;
    return -1;
}

static void put_block(double *X, int ld, int i, int j, double sign, const double B[9])
{
    for (int b = 0; b < 3; b++)
        for (int a = 0; a < 3; a++)
            X[(size_t)(3 * i + b) * ld + 3 * j + a] = sign * B[3 * b + a];
}

/* X[(3i+b) ld + 3j+a] = Xi(rows[i], col of crow[j]), through g->col, which
 * holds g->batch n blocks (nr <= n): as many columns a call as fit, so a
 * dense gather prefetches across them (gfsrc.c).  From wavelet columns,
 * selective extraction (a recursion over the row's dependency cone) for
 * each block would cost more than an addition's arithmetic: one row takes
 * the row's synthesis weights once and finds them in each column's index
 * of kept blocks, several rows a partial synthesis of the columns at those
 * rows (gfsrc.h). */
static void gather(ep_gfsrc *g, const int *rows, int nr, const int *crow, int nc, double *X, int ld)
{
    double *t = g->col;
    assert(g->batch > 0);
    if (nr == 0 || nc == 0)
        return;
    if (g->wavelet && nr == 1 && nc > 1) {
        ep_gfsrc_node_row(g, rows[0], nc, crow, t);
        for (int j = 0; j < nc; j++)
            put_block(X, ld, 0, j, 1.0, t + 9 * (size_t)j);
        return;
    }
    ep_gfsrc_plan(g, rows, nr);
    int step = (int)((size_t)g->batch * g->n / (size_t)nr);
    for (int j0 = 0; j0 < nc; j0 += step) {
        int k = nc - j0 < step ? nc - j0 : step;
        ep_gfsrc_node_columns(g, k, crow + j0, nr, rows, t);
        for (int j = 0; j < k; j++)
            for (int i = 0; i < nr; i++)
                put_block(X, ld, i, j0 + j, 1.0, t + 9 * ((size_t)j * nr + i));
    }
}

/* The symmetric form's Ahat for nodes[s] (cma.h), X[3s][3s] row-major with
 * leading dimension ld, symmetric.  Nodes go by id: the column of the
 * k-th lowest brings the blocks of the k - 1 below it and its diagonal
 * block (one column read once: a wavelet column is synthesized once),
 * written at (i, j) and transposed at (j, i).  Wavelet columns come
 * g->batch at a time, with the rows below the batch's highest node
 * (g->batch - 1 blocks a column more than needed).  With c->both (lossy
 * GFs) each column brings all s rows instead: those above the column's node
 * write half of their pair in place, those below add the other half to
 * it, at the mirror place (its column came first), and write both. */
static void sym_form(ep_cma *c, const int *nodes, int s, double *X, int ld)
{
    ep_gfsrc *g = c->g;
    int *pos = c->cols, *rows = c->cols + s; /* c->cols[2n + 1]: s <= n */
    double *t = g->col;                     /* [batch][s][9] within [batch][n][9] */
    assert(g->batch > 0);
    for (int i = 0; i < s; i++)
        pos[i] = i;
    ep_sort_by_key(pos, (size_t)s, nodes);
    for (int k = 0; k < s; k++)
        rows[k] = nodes[pos[k]];
    ep_gfsrc_plan(g, rows, s);
    for (int k0 = 0; k0 < s; k0 += g->batch) {
        int nb = s - k0 < g->batch ? s - k0 : g->batch, nr = c->both ? s : k0 + nb;
        ep_gfsrc_node_columns(g, nb, rows + k0, nr, rows, t);
        for (int k = k0; k < k0 + nb; k++) {
            const double *col = t + 9 * (size_t)(k - k0) * nr, *D = col + 9 * (size_t)k;
            int j = pos[k];
            double w = 1 / g->area[rows[k]], half = c->both ? 0.5 * w : w;
            for (int r = 0; r < (c->both ? nr : k); r++) {
                const double *B = col + 9 * (size_t)r; /* Xi(rows[r], rows[k]), B[3b + a] */
                int i = pos[r], add = r < k && c->both;
                if (r == k)
                    continue;
                for (int b = 0; b < 3; b++)
                    for (int a = 0; a < 3; a++) {
                        double *x = &X[(size_t)(3 * i + b) * ld + 3 * j + a], *xt = &X[(size_t)(3 * j + a) * ld + 3 * i + b];
                        if (!c->both)
                            *x = *xt = w * B[3 * b + a];
                        else if (add) /* the pair's first half waits at the mirror place */
                            *x = *xt = *xt + half * B[3 * b + a];
                        else
                            *x = half * B[3 * b + a];
                    }
            }
            for (int b = 0; b < 3; b++)
                for (int a = 0; a < 3; a++)
                    X[(size_t)(3 * j + b) * ld + 3 * j + a] = 0.5 * w * (D[3 * b + a] + D[3 * a + b]);
        }
    }
}

/* The blocks an addition of node d reads, in the symmetric form (cma.h):
 * B1D[3s][3] = Xihat(S, d), BD1[3][3s] = Xihat(d, S), XiDD = Xihat(d, d);
 * column d for the nodes below d, row d of their columns for those above;
 * with c->both, column d and row d whole, each pair's two halves averaged.
 * t1[9s], t2[9s]: scratch. */
static void sym_pairs(ep_cma *c, int d, double *B1D, double *BD1, double XiDD[9], double *t1, double *t2)
{
    ep_gfsrc *g = c->g;
    int s = c->s, N1 = 3 * s, *lo = c->cols, *hi = c->cols + g->n, nlo = 0, nhi;
    double ad = g->area[d], D[9];
    ep_gfsrc_block(g, d, g->col_of_row[d], D);
    for (int b = 0; b < 3; b++)
        for (int a = 0; a < 3; a++)
            XiDD[3 * b + a] = 0.5 * (D[3 * b + a] + D[3 * a + b]);
    if (c->both) {
        gather(g, c->S, s, &d, 1, t1, 3);      /* t1[9i + 3b + a] = Xi(S_i, d) */
        gather(g, &d, 1, c->S, s, t2, 3 * s); /* t2[3s b + 3i + a] = Xi(d, S_i) */
        for (int i = 0; i < s; i++) { /* Xihat(S_i, d) = (Xi(S_i, d) + Xi(d, S_i)^T a_d / a_i) / 2 */
            double ai = g->area[c->S[i]];
            for (int b = 0; b < 3; b++)
                for (int a = 0; a < 3; a++) {
                    double x = 0.5 * (t1[9 * i + 3 * b + a] + t2[(size_t)N1 * a + 3 * i + b] * ad / ai);
                    B1D[(3 * i + b) * 3 + a] = x, BD1[(size_t)a * N1 + 3 * i + b] = x * ai / ad;
                }
        }
        return;
    }
    for (int i = 0; i < s; i++)
        if (c->S[i] < d)
            lo[nlo++] = c->S[i];
        else
            *--hi = c->S[i]; /* from the end of cols[n + 1] back: s <= n */
    nhi = s - nlo;
    gather(g, lo, nlo, &d, 1, t1, 3);        /* t1[9k + 3b + a] = Xi(lo[k], d) */
    gather(g, &d, 1, hi, nhi, t2, 3 * nhi); /* t2[3 nhi b + 3k + a] = Xi(d, hi[k]) */
    for (int i = 0, kl = 0, kh = nhi - 1; i < s; i++) { /* hi holds them last first */
        double ai = g->area[c->S[i]];
        for (int b = 0; b < 3; b++)
            for (int a = 0; a < 3; a++)
                if (c->S[i] < d) { /* Xihat(d, S_i) = Ahat(S_i, d)^T a_i = Xi(S_i, d)^T a_i / a_d */
                    double x = t1[9 * kl + 3 * b + a];
                    B1D[(3 * i + b) * 3 + a] = x, BD1[(size_t)a * N1 + 3 * i + b] = x * ai / ad;
                } else {
                    double x = t2[3 * (size_t)nhi * b + 3 * kh + a];
                    BD1[(size_t)b * N1 + 3 * i + a] = x, B1D[(3 * i + a) * 3 + b] = x * ad / ai;
                }
        c->S[i] < d ? kl++ : kh--;
    }
}

void ep_cma_matrix(ep_cma *c, const int *nodes, int s, double *X, int ld)
{
    if (!c->sym) {
        gather(c->g, nodes, s, nodes, s, X, ld);
        return;
    }
    sym_form(c, nodes, s, X, ld); /* Xihat = Ahat D */
    for (int i = 0; i < 3 * s; i++)
        for (int j = 0; j < 3 * s; j++)
            X[(size_t)i * ld + j] *= c->g->area[nodes[j / 3]];
}

/* L^-1 in place for the lower triangle L (n x n, column-major, ld), by
 * halves: [[L11, 0], [L21, L22]]^-1 = [[X11, 0], [-X22 L21 X11, X22]], the
 * halves inverted first and the off-diagonal block then by two dtrmm.
 * (n^3)/3 flops, all but the leaves in level-3 calls (OpenBLAS's dtrtri,
 * inside dpotri, was slower at n ~ 300 on one core).  Used where the
 * factor must become C^-1 (ep_cma_inverse, an indefinite addition). */
static void tri_inverse(int n, double *L, int ld)
{
    enum { LEAF = 32 };
    if (n <= LEAF) {
        LAPACKE_dtrtri_work(LAPACK_COL_MAJOR, 'L', 'N', n, L, ld); /* nonsingular: a Cholesky factor */
        return;
    }
    int n1 = n / 2, n2 = n - n1;
    double *L11 = L, *L21 = L + n1, *L22 = L + n1 + (size_t)n1 * ld;
    tri_inverse(n1, L11, ld);
    tri_inverse(n2, L22, ld);
    cblas_dtrmm(CblasColMajor, CblasRight, CblasLower, CblasNoTrans, CblasNonUnit, n2, n1, 1.0, L11, ld, L21, ld);
    cblas_dtrmm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, n2, n1, -1.0, L22, ld, L21, ld);
}

/* sum[j] = sum_i |X_ij| for X (N x N, row-major, ld): by rows, so the
 * additions into sum[] are independent and vectorize (a column's sum in
 * one accumulator waits on each addition). */
EP_KERNEL static void abs_column_sums(const double *restrict X, int N, int ld, double *restrict sum)
{
    memset(sum, 0, sizeof(double) * (size_t)N);
    for (int i = 0; i < N; i++)
#pragma omp simd
        for (int j = 0; j < N; j++)
            sum[j] += fabs(X[(size_t)i * ld + j]);
}

/* C^-1 = -D^-1 Ahat^-1 (row-major, ld) from Ahat^-1's upper triangle
 * (row-major, ld) for nodes[s]: row r scaled by -1 / a of its node, by
 * tiles, so a tile's mirrored writes stay in L1 (a row at a time, every row
 * writes a whole column). */
EP_KERNEL static void scale_rows(double *X, int s, int ld, const double *area, const int *nodes)
{
    enum { TILE = 32 };
    int N = 3 * s;
    for (int r0 = 0; r0 < N; r0 += TILE)
        for (int q0 = r0; q0 < N; q0 += TILE)
            for (int r = r0; r < r0 + TILE && r < N; r++) {
                double wr = -1 / area[nodes[r / 3]];
                for (int q = q0 > r ? q0 : r; q < q0 + TILE && q < N; q++) {
                    double v = X[(size_t)r * ld + q];
                    X[(size_t)r * ld + q] = wr * v, X[(size_t)q * ld + r] = -v / area[nodes[q / 3]];
                }
            }
}

/* Not positive definite, or an LDL^T that grew: what set_factor,
 * border_factor and cholesky_to_ldlt report beside the EP_* statuses, a third outcome (the
 * caller goes on with the next form). */
enum { NOT_DEFINITE = -1 };

/* The symmetric form's C^-1 from c's factor, copied into X (Cinv's
 * layout, ld), in place: L^-1 by halves, then L^-T L^-1 (dpotri's second
 * step) or with the LDL^T L^-T (D^-1 L^-1) through Y[(3s)^2] (column-major:
 * D^-1 L^-1, then Ahat^-1), the rows scaled.  2 (3s)^3 / 3 flops;
 * (3s)^3 / 3 + (3s)^3 from the LDL^T. */
static void factor_to_inverse(const ep_cma *c, double *X, int ld, double *Y)
{
    int N = 3 * c->s;
    if (!N)
        return; /* LAPACK would print about ld = 0 */
    tri_inverse(N, X, ld);
    if (c->form == EP_CMA_CHOLESKY)
        (void)LAPACKE_dlauum_work(LAPACK_COL_MAJOR, 'L', N, X, ld); /* fails only on arguments out of range */
    else {
        for (int j = 0; j < N; j++) {
            double *y = Y + (size_t)j * N;
            const double *x = X + (size_t)j * ld;
            memset(y, 0, (size_t)N * sizeof *y);
            for (int k = j / 3; k < c->s; k++) {
                const double *Di = c->D + 18 * (size_t)k + 9;
                double xk[3];
                for (int b = 0; b < 3; b++) /* L^-1 is zero above row j (X holds other things there) */
                    xk[b] = 3 * k + b >= j ? x[3 * k + b] : 0;
                times3(Di, xk, y + 3 * k);
            }
        }
        cblas_dtrmm(CblasColMajor, CblasLeft, CblasLower, CblasTrans, CblasUnit, N, N, 1.0, X, ld, Y, N);
        for (int j = 0; j < N; j++) /* symmetric: either layout */
            memcpy(X + (size_t)j * ld, Y + (size_t)j * N, (size_t)N * sizeof *X);
    }
    scale_rows(X, c->s, ld, c->g->area, c->S);
}

/* c's factor made the explicit inverse (an addition the factor cannot
 * take: cma.h); an LDL^T's needs (3s)^2 doubles besides (c->work holds
 * the addition's blocks).  0 or EP_ECOMPUTE (memory; c unchanged). */
static int factor_to_explicit(ep_cma *c)
{
    double *Y = c->form == EP_CMA_LDLT ? ep_malloc(9 * (size_t)c->s * c->s + 1, sizeof *Y) : NULL;
    if (c->form == EP_CMA_LDLT && !Y)
        return EP_ECOMPUTE;
    factor_to_inverse(c, c->Cinv, c->ld, Y);
    free(Y);
    c->form = EP_CMA_INVERSE;
    return EP_OK;
}

/* The Cholesky factor made the LDL^T of the same Ahat: node j's columns
 * times C_j^-1 for C_j their diagonal block (lower, a positive diagonal:
 * inverted by substitution), D_j = C_j C_j^T (an addition the Cholesky
 * factor cannot take).  The pivots first: one singular to working
 * precision (inv3) leaves the factor as it was, NOT_DEFINITE.  About
 * 15 (3s)^2 / 2 flops. */
static int cholesky_to_ldlt(ep_cma *c)
{
    int N = 3 * c->s, ld = c->ld;
    double *X = c->Cinv;
    for (int j = 0; j < c->s; j++) {
        const double *x = X + (size_t)3 * j * ld + 3 * j; /* C(a, b) = x[b ld + a], a >= b */
        double *Dj = c->D + 18 * (size_t)j;
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) {
                double t = 0;
                for (int q = 0; q <= (a < b ? a : b); q++)
                    t += x[(size_t)q * ld + a] * x[(size_t)q * ld + b];
                Dj[3 * a + b] = t;
            }
        if (inv3(Dj, Dj + 9))
            return NOT_DEFINITE;
    }
    for (int j = 0; j < c->s; j++) {
        int c0 = 3 * j;
        double *x = X + (size_t)c0 * ld + c0, C[9] = {0}, Ci[9] = {0};
        for (int a = 0; a < 3; a++)
            for (int b = 0; b <= a; b++)
                C[3 * a + b] = x[(size_t)b * ld + a];
        for (int b = 0; b < 3; b++) /* C Ci = I, column b of Ci by forward substitution */
            for (int a = b; a < 3; a++) {
                double t = a == b;
                for (int q = b; q < a; q++)
                    t -= C[3 * a + q] * Ci[3 * q + b];
                Ci[3 * a + b] = t / C[4 * a];
            }
        times_block(X, ld, c0, c0 + 3, N, Ci);
        for (int a = 0; a < 3; a++)
            for (int b = a; b < 3; b++)
                x[(size_t)a * ld + b] = a == b;
    }
    c->form = EP_CMA_LDLT;
    c->indefinite = 1;
    return EP_OK;
}

/* Sets whose C is singular to working precision are refused: lossy wavelet
 * GFs can make a node's columns a combination of its neighbours' (rtcheck
 * met a condition number of 5.6e18 on the demo's wavelet file), and C^-1
 * is then noise.  LU: dgecon's estimate; the factor: its diagonal, since
 * kappa_2(Ahat) >= (max L_ii / min L_ii)^2 (free, where dpocon would cost
 * several triangular solves). */
#define RCOND_MIN 1e-12

static int singular(ep_cma *c, int s, double rcond)
{
    c->s = 0;
    return ep_fail(EP_ECOMPUTE, "the capacitance matrix of %d contact nodes is singular (reciprocal condition %.1e)", s,
                   rcond);
}

/* The LDL^T's growth bound (cma.h): its backward error is below about
 * 3s u GROWTH_MAX max |Ahat_ii| (MATH.md §7); for an SPD Ahat the growth
 * measure is about Ahat_rr itself. */
#define GROWTH_MAX 1e3

/* The LDL^T of the diagonal block of k <= LDLT_LEAF nodes (X, column-major,
 * ld; lower triangle) by node columns, right-looking: pivot, the rows below
 * it times its inverse, the trailing lower triangle updated.  0 or
 * NOT_DEFINITE (a singular pivot).  About (3k)^3 / 3 flops. */
enum { LDLT_LEAF = 8 };

static int ldlt_leaf(int k, double *X, int ld, double *piv)
{
    int M = 3 * k;
    for (int j = 0; j < k; j++) {
        int c0 = 3 * j, r1 = c0 + 3;
        double *Dj = piv + 18 * (size_t)j, W[3][3 * LDLT_LEAF];
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                Dj[3 * a + b] = X[(size_t)(c0 + (a < b ? a : b)) * ld + c0 + (a < b ? b : a)];
        if (inv3(Dj, Dj + 9))
            return NOT_DEFINITE;
        for (int a = 0; a < 3; a++) /* W = L D_j, kept for the update */
            memcpy(W[a], X + (size_t)(c0 + a) * ld + r1, (size_t)(M - r1) * sizeof(double));
        times_block(X, ld, c0, r1, M, Dj + 9);
        const double *l0 = X + (size_t)c0 * ld, *l1 = l0 + ld, *l2 = l1 + ld;
        for (int c = r1; c < M; c++) {
            double *x = X + (size_t)c * ld, v0 = W[0][c - r1], v1 = W[1][c - r1], v2 = W[2][c - r1];
            for (int r = c; r < M; r++)
                x[r] -= l0[r] * v0 + l1[r] * v1 + l2[r] * v2;
        }
        for (int a = 0; a < 3; a++) /* the identity block, lower part */
            for (int b = a; b < 3; b++)
                X[(size_t)(c0 + a) * ld + c0 + b] = a == b;
    }
    return EP_OK;
}

/* A22 -= L21 W21^T, lower triangle only (no dgemmt in the BLAS we have):
 * L21, W21 (m2 x m1; ld, ldw), by halves of A22's rows, the block below
 * the diagonal in one dgemm; a triangle of at most LEAF rows through
 * buf[LEAF^2], so the upper triangle stays as it was (Ahat, should the LU
 * path need it).  m2^2 m1 flops, and LEAF m2 m1 / 2 more. */
static void lower_update(int m2, int m1, const double *L21, int ld, const double *W21, int ldw, double *A22,
                         double *buf)
{
    enum { LEAF = 48 };
    if (m2 <= LEAF) {
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, m2, m2, m1, 1.0, L21, ld, W21, ldw, 0.0, buf, m2);
        for (int c = 0; c < m2; c++)
            for (int r = c; r < m2; r++)
                A22[(size_t)c * ld + r] -= buf[c * m2 + r];
        return;
    }
    int h = m2 / 2;
    lower_update(h, m1, L21, ld, W21, ldw, A22, buf);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, m2 - h, h, m1, -1.0, L21 + h, ld, W21, ldw, 1.0, A22 + h, ld);
    lower_update(m2 - h, m1, L21 + h, ld, W21 + h, ldw, A22 + (size_t)h * ld + h, buf);
}

/* Ahat = L D L^T for k nodes in place (X, column-major, ld: Ahat's lower
 * triangle in, L out; the upper triangle untouched), pivots piv[k][18], by
 * halves: the first half's LDL^T, W21 = A21 L11^-T (dtrsm), L21 = W21
 * D1^-1, A22 -= L21 W21^T, the second half's.  work[(3k)^2 / 4 + 2304].
 * 0 or NOT_DEFINITE (a singular pivot).  (3k)^3 / 3 flops, all but the
 * leaves in level-3 calls. */
static int ldlt_factor(int k, double *X, int ld, double *piv, double *work)
{
    if (k <= LDLT_LEAF)
        return ldlt_leaf(k, X, ld, piv);
    int k1 = k / 2, m1 = 3 * k1, m2 = 3 * (k - k1);
    double *A21 = X + m1, *A22 = X + (size_t)m1 * ld + m1, *W21 = work;
    if (ldlt_factor(k1, X, ld, piv, work))
        return NOT_DEFINITE;
    cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasUnit, m2, m1, 1.0, X, ld, A21, ld);
    for (int c = 0; c < m1; c++)
        memcpy(W21 + (size_t)c * m2, A21 + (size_t)c * ld, (size_t)m2 * sizeof *W21);
    for (int j = 0; j < k1; j++)
        times_block(A21, ld, 3 * j, 0, m2, piv + 18 * (size_t)j + 9);
    lower_update(m2, m1, A21, ld, W21, m2, A22, W21 + (size_t)m1 * m2);
    return ldlt_factor(k - k1, A22, ld, piv + 18 * (size_t)k1, work);
}

/* An LDL^T kept only if it did not grow and its pivots are not singular
 * to working precision (min 1 / ||D_j^-1|| against max ||D_j||, as the
 * Cholesky factor's diagonal): else NOT_DEFINITE, and LU decides.
 * work[3s]. */
static int ldlt_usable(const ep_cma *c, int s, double *work)
{
    double lo = INFINITY, hi = 0;
    for (int j = 0; j < s; j++) {
        double d = 0, di = 0;
        for (int q = 0; q < 9; q++)
            d = fmax(d, fabs(c->D[18 * j + q])), di = fmax(di, fabs(c->D[18 * j + 9 + q]));
        lo = fmin(lo, 1 / di), hi = fmax(hi, d);
    }
    if (!(lo > RCOND_MIN * hi) || !(ldlt_growth(3 * s, c->Cinv, c->ld, c->D, work) <= GROWTH_MAX * c->scale))
        return NOT_DEFINITE;
    return EP_OK;
}

/* Ahat's lower triangle back from its upper one and the diagonal saved
 * in diag[N] (a factorization that failed wrote only the lower one). */
static void restore_lower(double *X, int ld, int N, const double *diag)
{
    for (int i = 0; i < N; i++) {
        X[(size_t)i * ld + i] = diag[i];
        for (int j = 0; j < i; j++)
            X[(size_t)j * ld + i] = X[(size_t)i * ld + j];
    }
}

/* The symmetric form's factor into c->Cinv: Cholesky, or the LDL^T where
 * Ahat is not positive definite (straight away once a set's was not).  0,
 * EP_ECOMPUTE (singular), or NOT_DEFINITE, c->Cinv then holding Ahat
 * again (dpotrf leaves one triangle as it was, and the diagonal is kept:
 * the LU path need not gather the GF blocks a second time).  Symmetric,
 * Ahat is the same row-major or column-major. */
static int set_factor(ep_cma *c, const int *nodes, int s)
{
    int N = 3 * s, ld = c->ld;
    double *X = c->Cinv, *diag = c->work, *w = diag + N;
    sym_form(c, nodes, s, X, ld);
    c->scale = 0;
    for (int i = 0; i < N; i++)
        diag[i] = X[(size_t)i * ld + i], c->scale = fmax(c->scale, fabs(diag[i]));
    if (!c->indefinite) {
        if (LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', N, X, ld) == 0) {
            double lo = INFINITY, hi = 0;
            for (int i = 0; i < N; i++)
                lo = fmin(lo, X[(size_t)i * ld + i]), hi = fmax(hi, X[(size_t)i * ld + i]);
            if (!(lo * lo > RCOND_MIN * hi * hi))
                return singular(c, s, lo * lo / (hi * hi));
            c->form = EP_CMA_CHOLESKY;
            c->factor = "cholesky";
            return EP_OK;
        }
        restore_lower(X, ld, N, diag);
        c->indefinite = 1;
    }
    if (!ldlt_factor(s, X, ld, c->D, w) && !ldlt_usable(c, s, w)) {
        c->form = EP_CMA_LDLT;
        c->factor = "ldlt";
        return EP_OK;
    }
    restore_lower(X, ld, N, diag);
    return NOT_DEFINITE;
}

int ep_cma_set(ep_cma *c, const int *nodes, int s)
{
    int st;
    if (s < 0)
        return ep_fail(EP_EUSAGE, "%d contact nodes", s);
    if ((st = reserve(c, s)))
        return st;
    for (int i = 0; i < s; i++) {
        if ((st = check_node(c, nodes[i])))
            return st;
        for (int j = 0; j < i; j++)
            if (nodes[j] == nodes[i])
                return ep_fail(EP_EINPUT, "contact node %d is listed twice", nodes[i]);
    }
    int N = 3 * s;
    c->s = s;
    c->pending = 0;
    c->form = c->sym ? EP_CMA_CHOLESKY : EP_CMA_INVERSE; /* an empty set grows as either */
    c->factor = c->sym ? "cholesky" : "lu";
    c->scale = 0;
    if (s == 0)
        return EP_OK;
    if (nodes != c->S)
        memcpy(c->S, nodes, (size_t)s * sizeof *nodes);
    int ld = c->ld;
    if (c->sym && (st = set_factor(c, nodes, s)) != NOT_DEFINITE)
        return st;
    c->form = EP_CMA_INVERSE;
    /* C = -E^T Xi E; in the symmetric form, what the Cholesky path refused
     * (Ahat not positive definite, as lossy GFs can make it): C = -Ahat D
     * from the Ahat it left */
    double *scale = c->work;
    if (!c->sym)
        ep_cma_matrix(c, nodes, s, c->Cinv, ld);
    for (int j = 0; j < N; j++)
        scale[j] = c->sym ? -c->g->area[nodes[j / 3]] : -1.0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            c->Cinv[(size_t)i * ld + j] *= scale[j];
    c->factor = "lu";
    /* Row-major C read column-major is C^T, and inv(C^T) read back row-major
     * is inv(C): the column-major routines skip LAPACKE's transposed copies. */
    lapack_int *ipiv = (lapack_int *)c->work;
    double *lw = c->work + N, rcond = 0;
    lapack_int lwork = (lapack_int)(9 * (size_t)c->cap * c->cap - N);
    double anorm = LAPACKE_dlange_work(LAPACK_COL_MAJOR, 'I', N, N, c->Cinv, ld, lw); /* ||C||_1 */
    if (LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, N, N, c->Cinv, ld, ipiv) != 0 ||
        LAPACKE_dgecon_work(LAPACK_COL_MAJOR, 'I', N, c->Cinv, ld, anorm, &rcond, lw,
                            (lapack_int *)(lw + 4 * (size_t)N)) != 0 ||
        !(rcond > RCOND_MIN) || LAPACKE_dgetri_work(LAPACK_COL_MAJOR, N, c->Cinv, ld, ipiv, lw, lwork) != 0)
        return singular(c, s, rcond);
    return EP_OK;
}

static int dependent_node(int node)
{
    return ep_fail(EP_ECOMPUTE, "contact node %d: the capacitance matrix with it is singular (its GFs are a "
                                "combination of the set's)", node);
}

/* c->scale, max |Ahat_ii| over the set, for the LDL^T's growth test:
 * after ep_cma_restore (0: a cache keeps the factor alone) from the
 * LDL^T, Ahat_ii = sum_j L(i, j) D_j L(i, j)^T by rows (a strided read,
 * once for a restored set).  About 6 (3s)^2 flops. */
static double ldlt_scale(ep_cma *c)
{
    int ld = c->ld;
    if (c->scale > 0)
        return c->scale;
    for (int i = 0; i < c->s; i++)
        for (int a = 0; a < 3; a++) {
            int r = 3 * i + a;
            double v = c->D[18 * (size_t)i + 4 * a]; /* its own block: the identity */
            for (int k = 0; k < i; k++) {
                const double *Dk = c->D + 18 * (size_t)k, *x = c->Cinv + (size_t)3 * k * ld + r;
                double l[3] = {x[0], x[ld], x[2 * (size_t)ld]};
                for (int b = 0; b < 3; b++)
                    v += l[b] * (Dk[3 * b] * l[0] + Dk[3 * b + 1] * l[1] + Dk[3 * b + 2] * l[2]);
            }
            c->scale = fmax(c->scale, fabs(v));
        }
    return c->scale;
}

/* Add node d to the factor: L bordered by the row block l^T and the new
 * diagonal block (cma.h), from B1D = Xihat(S, d) and XiDD = Xihat(d, d)
 * (sym_pairs).  w = L^-1 Ahat(S, d); with the Cholesky factor l = w and
 * the block the Cholesky factor of the Schur complement Ahat(d, d) -
 * w^T l, with the LDL^T l = D^-1 w, the block the identity and the
 * complement the pivot.  x[3][3s], y[3][3s]: scratch.  0, EP_ECOMPUTE
 * (dependent: the complement, -C_Delta / a_d, fails the explicit path's
 * two tests) or NOT_DEFINITE (the Cholesky's complement not positive
 * definite, or the LDL^T's row grown past GROWTH_MAX; nothing changed). */
static int border_factor(ep_cma *c, int d, const double *B1D, const double XiDD[9], double *x, double *y)
{
    int N = 3 * c->s, ld = c->ld, ldlt = c->form == EP_CMA_LDLT;
    double *X = c->Cinv, ad = c->g->area[d], S[9], big = 0, left = 0, grown[3] = {0, 0, 0};
    for (int j = 0; j < N; j++)
        for (int a = 0; a < 3; a++)
            x[(size_t)a * N + j] = B1D[3 * j + a] / ad;
    lower_solve3(N, X, ld, x, N);
    if (ldlt) /* y = D^-1 w, node by node; grown: the new rows' |l|^2 ||D|| (ldlt_growth) */
        for (int k = 0; k < c->s; k++) {
            const double *Dk = c->D + 18 * (size_t)k;
            double dn = norm3(Dk);
            for (int a = 0; a < 3; a++) {
                double *l = y + (size_t)a * N + 3 * k;
                times3(Dk + 9, x + (size_t)a * N + 3 * k, l);
                grown[a] += (l[0] * l[0] + l[1] * l[1] + l[2] * l[2]) * dn;
            }
        }
    const double *l = ldlt ? y : x;
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
            double t = XiDD[3 * a + b] / ad;
            for (int j = 0; j < N; j++)
                t -= x[(size_t)a * N + j] * l[(size_t)b * N + j];
            S[3 * a + b] = t;
            big = fmax(big, fabs(XiDD[3 * a + b] / ad)), left = fmax(left, fabs(t));
        }
    double Sinv[9], scale = 0, sn = 0;
    int st;
    if (!(left > 1e-12 * big))
        return dependent_node(d);
    if ((st = inv3(S, Sinv))) /* one direction dependent: the explicit path's test of C_Delta = -a_d S */
        return st;
    double m00 = S[0], m10 = 0, m20 = 0, m11 = 1, m21 = 0, m22 = 1; /* the new diagonal block, lower */
    if (ldlt) {
        scale = ldlt_scale(c);
        for (int a = 0; a < 3; a++)
            scale = fmax(scale, fabs(XiDD[4 * a] / ad));
        sn = norm3(S);
        for (int a = 0; a < 3; a++)
            if (!(grown[a] + sn <= GROWTH_MAX * scale))
                return NOT_DEFINITE;
        m00 = 1;
    } else { /* the 3x3 Cholesky factor */
        if (!(m00 > 0))
            return NOT_DEFINITE;
        m00 = sqrt(m00), m10 = S[3] / m00, m20 = S[6] / m00, m11 = S[4] - m10 * m10;
        if (!(m11 > 0))
            return NOT_DEFINITE;
        m11 = sqrt(m11), m21 = (S[7] - m20 * m10) / m11, m22 = S[8] - m20 * m20 - m21 * m21;
        if (!(m22 > 0))
            return NOT_DEFINITE;
        m22 = sqrt(m22);
    }
    for (int j = 0; j < N; j++) /* L(N + a, j) = l(j, a) */
        for (int a = 0; a < 3; a++)
            X[(size_t)j * ld + N + a] = l[(size_t)a * N + j];
    double *D = X + (size_t)N * ld + N; /* L(N + a, N + b) at D[b ld + a], a >= b */
    D[0] = m00, D[1] = m10, D[2] = m20, D[ld + 1] = m11, D[ld + 2] = m21, D[2 * (size_t)ld + 2] = m22;
    if (ldlt)
        memcpy(c->D + 18 * (size_t)c->s, S, sizeof S), memcpy(c->D + 18 * (size_t)c->s + 9, Sinv, sizeof Sinv);
    c->scale = scale; /* a Cholesky factor's 0: ldlt_scale finds it should the factor become an LDL^T */
    c->S[c->s++] = d;
    return EP_OK;
}

int ep_cma_add(ep_cma *c, int node)
{
    int st, s = c->s, N1 = 3 * s, d = node;
    if ((st = check_node(c, node)))
        return st;
    if (position(c, node) >= 0)
        return ep_fail(EP_EINPUT, "contact node %d is already in the set", node);
    if ((st = reserve(c, s + 1)))
        return st;
    int ld = c->ld;
    double *B1D = c->work, *BD1 = B1D + 3 * N1, *D1D = BD1 + 3 * N1, *X = D1D + 3 * N1, *DD1 = X + 3 * N1,
           *B1Dt = DD1 + 3 * N1, XiDD[9], DDD[9], CD[9], CDinv[9];
    /* B_ab = E_a^T (I + Xi) E_b: off the diagonal only Xi (000 eq. 2.64) */
    if (c->sym)
        sym_pairs(c, d, B1D, BD1, XiDD, D1D, X); /* D1D and X are written below */
    else {
        gather(c->g, c->S, s, &d, 1, B1D, 3);
        gather(c->g, &d, 1, c->S, s, BD1, N1);
        gather(c->g, &d, 1, &d, 1, XiDD, 3);
    }
    if (c->form == EP_CMA_CHOLESKY && (st = border_factor(c, d, B1D, XiDD, D1D, X)) != NOT_DEFINITE)
        return st;
    /* the Cholesky factor made the LDL^T, unless a pivot will not invert or
     * its rows grow past the bound (the conversion scales them by C_j^-1) */
    if (c->form == EP_CMA_CHOLESKY &&
        (cholesky_to_ldlt(c) == NOT_DEFINITE ||
         !(ldlt_growth(N1, c->Cinv, ld, c->D, c->work + 18 * (size_t)N1) <= GROWTH_MAX * ldlt_scale(c))) &&
        (st = factor_to_explicit(c)))
        return st;
    if (c->form == EP_CMA_LDLT) {
        if ((st = border_factor(c, d, B1D, XiDD, D1D, X)) != NOT_DEFINITE || (st = factor_to_explicit(c)))
            return st;
    }
    memset(DDD, 0, sizeof DDD);
    if (s) { /* the pending update applied, D_1D = C1^-1 B_1D and X = B_D1 C1^-1, each thread on its rows */
        for (int k = 0; k < N1; k++)
            for (int a = 0; a < 3; a++)
                B1Dt[(size_t)a * N1 + k] = B1D[3 * k + a];
        pass p = {.N = N1, .U = c->pending ? c->U : NULL, .V = c->V, .ldv = ld, .b = B1Dt, .cc = BD1,
                  .A = c->Cinv, .ld = ld, .y = D1D, .x = X};
        split_pass(c, &p, B1Dt + 3 * N1);
        gemm_thin(3, 3, N1, 1.0, BD1, N1, D1D, 3, DDD, 3);
    }
    /* C_Delta = I - B_DD - D_DD = -Xi_DD - D_DD (MATH.md §7 erratum of eq. 2.68).
     * When the node's response is a combination of the set's (lossy GFs:
     * a wavelet file's fine vertex whose details were dropped, beside its
     * parents), the two terms cancel to rounding and C2 is singular. */
    double big = 0, left = 0;
    for (int i = 0; i < 9; i++) {
        CD[i] = -XiDD[i] - DDD[i];
        big = fmax(big, fabs(XiDD[i])), left = fmax(left, fabs(CD[i]));
    }
    c->pending = 0; /* the pass applied it */
    if (!(left > 1e-12 * big))
        return dependent_node(node);
    if ((st = inv3(CD, CDinv)))
        return st;
    /* C2^-1 = [[C1^-1 + D_1D D_D1, D_1D C_D^-1], [D_D1, C_D^-1]] (eq. 2.70),
     * D_D1 = C_D^-1 X with X = B_D1 C1^-1: the new rows and columns are
     * written, the update of C1^-1 is left pending (U = D_1D, V = D_D1) */
    if (s) {
        gemm_thin(3, N1, 3, 1.0, CDinv, 3, X, N1, DD1, N1);
        gemm_thin(N1, 3, 3, 1.0, D1D, 3, CDinv, 3, &c->Cinv[N1], ld);
        memcpy(c->U, D1D, 3 * (size_t)N1 * sizeof *D1D);
    }
    memset(&c->U[3 * N1], 0, 9 * sizeof *c->U);
    for (int b = 0; b < 3; b++) {
        memcpy(&c->Cinv[(size_t)(N1 + b) * ld], &DD1[(size_t)b * N1], (size_t)N1 * sizeof *DD1);
        memcpy(&c->Cinv[(size_t)(N1 + b) * ld + N1], &CDinv[3 * b], 3 * sizeof *CDinv);
        memcpy(&c->V[(size_t)b * ld], &DD1[(size_t)b * N1], (size_t)N1 * sizeof *DD1);
        memset(&c->V[(size_t)b * ld + N1], 0, 3 * sizeof *c->V);
    }
    c->pending = s > 0;
    c->S[c->s++] = node;
    return EP_OK;
}

/* Swap nodes i and j of C^-1 (their three rows and three columns) and of S. */
static void swap_nodes(ep_cma *c, int i, int j)
{
    int N = 3 * c->s, ld = c->ld, t = c->S[i];
    c->S[i] = c->S[j];
    c->S[j] = t;
    for (int b = 0; b < 3; b++) {
        cblas_dswap(N, &c->Cinv[(size_t)(3 * i + b) * ld], 1, &c->Cinv[(size_t)(3 * j + b) * ld], 1);
        cblas_dswap(N, &c->Cinv[3 * i + b], ld, &c->Cinv[3 * j + b], ld);
    }
    if (c->pending) /* C^-1 = Cinv + U V stays true under the permutation */
        for (int b = 0; b < 3; b++) {
            cblas_dswap(3, &c->U[3 * (3 * i + b)], 1, &c->U[3 * (3 * j + b)], 1);
            cblas_dswap(3, &c->V[3 * i + b], ld, &c->V[3 * j + b], ld);
        }
}

/* Node p leaves the Cholesky factor: with L's rows and columns in blocks
 * 1, p and 3, Ahat without p is [[L11, 0], [L31, L33']] [..]^T with
 * L33' L33'^T = L33 L33^T + L3p L3p^T, so L3p's three columns update L33
 * (rotations) and the blocks after p move up and left by 3 (column by
 * column, each one to a place already read).  About 9 m^2 flops for the m
 * rows after p, and the moves.  (The LDL^T's analogue, Bennett's update,
 * is not backward stable with indefinite pivots: doc/DECISIONS.md.) */
static void factor_remove(ep_cma *c, int p)
{
    int N = 3 * c->s, ld = c->ld, q0 = 3 * p, q1 = q0 + 3, m = N - q1;
    double *X = c->Cinv;
    if (m)
        cholesky_update3(m, X + (size_t)q1 * ld + q1, ld, X + (size_t)q0 * ld + q1, X + (size_t)(q0 + 1) * ld + q1,
                         X + (size_t)(q0 + 2) * ld + q1);
    for (int j = 0; j < q0; j++)
        memmove(X + (size_t)j * ld + q0, X + (size_t)j * ld + q1, (size_t)m * sizeof *X);
    for (int j = q1; j < N; j++)
        memmove(X + (size_t)(j - 3) * ld + j - 3, X + (size_t)j * ld + j, (size_t)(N - j) * sizeof *X);
    memmove(&c->S[p], &c->S[p + 1], (size_t)(c->s - p - 1) * sizeof *c->S);
    c->s--;
}

int ep_cma_remove(ep_cma *c, int node)
{
    int p = position(c, node), s = c->s, ld = c->ld, M = 3 * s - 3, st;
    if (p < 0)
        return ep_fail(EP_EINPUT, "contact node %d is not in the set", node);
    if (c->form == EP_CMA_CHOLESKY) {
        factor_remove(c, p);
        return EP_OK;
    }
    if (c->form == EP_CMA_LDLT) { /* the rest factored again (cma.h) */
        memmove(&c->S[p], &c->S[p + 1], (size_t)(s - p - 1) * sizeof *c->S);
        return ep_cma_set(c, c->S, s - 1);
    }
    if (p != s - 1)
        swap_nodes(c, p, s - 1);
    /* partition [[P, q], [r, d]] of C^-1 with the node last: C1^-1 = P - q d^-1 r,
     * applied with whatever is pending in one rank-6 pass */
    int N = M + 3, k = c->pending ? 6 : 3;
    double *r = c->work, *Uk = r + 3 * (size_t)N, *Vk = Uk + 6 * (size_t)M, dd[9], dinv[9];
    for (int a = 0; a < 3; a++)
        inverse_row(c, M + a, &r[(size_t)a * N]);
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            dd[3 * a + b] = r[(size_t)a * N + M + b];
    if ((st = inv3(dd, dinv)))
        return st;
    for (int i = 0; i < M; i++) { /* Uk = [U, q], with q the true column block */
        double *u = &Uk[(size_t)k * i], *q = u + k - 3;
        for (int b = 0; b < 3; b++)
            q[b] = c->Cinv[(size_t)i * ld + M + b];
        if (c->pending)
            for (int a = 0; a < 3; a++) {
                u[a] = c->U[3 * i + a];
                for (int b = 0; b < 3; b++)
                    q[b] += u[a] * c->V[(size_t)a * ld + M + b];
            }
    }
    for (int a = 0; a < 3 && c->pending; a++) /* Vk = [V; -d^-1 r] */
        memcpy(&Vk[(size_t)a * M], &c->V[(size_t)a * ld], (size_t)M * sizeof *Vk);
    if (M) {
        gemm_thin(3, M, 3, -1.0, dinv, 3, r, N, &Vk[(size_t)(k - 3) * M], M);
        pass drop = {.N = M, .k = k, .U = Uk, .ldu = k, .V = Vk, .ldv = M, .A = c->Cinv, .ld = ld};
        split_pass(c, &drop, NULL);
    }
    c->pending = 0;
    c->s--;
    return EP_OK;
}

/* Cinv's rows [3s] copied out compactly, out[3s][3s]. */
static void copy_rows(const ep_cma *c, double *out)
{
    int N = 3 * c->s;
    for (int i = 0; i < N; i++)
        memcpy(&out[(size_t)i * N], &c->Cinv[(size_t)i * c->ld], (size_t)N * sizeof *out);
}

void ep_cma_inverse(const ep_cma *c, double *out)
{
    int N = 3 * c->s;
    if (c->form != EP_CMA_INVERSE) {
        copy_rows(c, out);
        factor_to_inverse(c, out, N, c->work);
        return;
    }
    for (int i = 0; i < N; i++)
        inverse_row(c, i, &out[(size_t)i * N]);
}

int ep_cma_rcond(ep_cma *c, double *rcond)
{
    int N = 3 * c->s;
    double *X = ep_malloc((size_t)N * N + 1, sizeof *X), *Y = ep_malloc((size_t)N * N + 1, sizeof *Y),
           *sum = ep_malloc((size_t)N + 1, sizeof *sum), cn = 0, in = 0;
    if (!X || !Y || !sum) {
        free(X), free(Y), free(sum);
        return EP_ECOMPUTE;
    }
    ep_cma_matrix(c, c->S, c->s, X, N); /* -C */
    ep_cma_inverse(c, Y);
    abs_column_sums(X, N, N, sum);
    for (int j = 0; j < N; j++)
        cn = fmax(cn, sum[j]);
    abs_column_sums(Y, N, N, sum);
    for (int j = 0; j < N; j++)
        in = fmax(in, sum[j]);
    *rcond = N ? 1 / (cn * in) : 1;
    free(X), free(Y), free(sum);
    return EP_OK;
}

void ep_cma_save(const ep_cma *c, double *out)
{
    int N = 3 * c->s;
    if (c->form == EP_CMA_INVERSE) {
        ep_cma_inverse(c, out);
        return;
    }
    copy_rows(c, out);
    for (int j = 0; j < N; j++) /* row j holds L(i, j), i >= j; the rest is not L */
        memset(&out[(size_t)j * N], 0, (size_t)j * sizeof *out);
    if (c->form == EP_CMA_LDLT) /* the pivots in place of the identity blocks */
        for (int k = 0; k < c->s; k++)
            for (int q = 0; q < 9; q++)
                out[(size_t)(3 * k + q / 3) * N + 3 * k + q % 3] = c->D[18 * (size_t)k + q];
}

int ep_cma_restore(ep_cma *c, const int *nodes, int s, int form, const double *state)
{
    if (form != EP_CMA_INVERSE && form != EP_CMA_CHOLESKY && form != EP_CMA_LDLT)
        return ep_fail(EP_EINPUT, "capacitance state of unknown form %d", form);
    if (form != EP_CMA_INVERSE && !c->sym)
        return ep_fail(EP_EINPUT, "a factor for capacitance matrices without the symmetric form");
    if (reserve(c, s))
        return EP_ECOMPUTE;
    int N = 3 * s, ld = c->ld;
    c->s = s;
    c->pending = 0;
    c->form = form;
    c->factor = form == EP_CMA_CHOLESKY ? "cholesky" : form == EP_CMA_LDLT ? "ldlt" : "lu";
    c->scale = 0; /* not known: ldlt_scale */
    c->indefinite |= form == EP_CMA_LDLT;
    memcpy(c->S, nodes, (size_t)s * sizeof *c->S);
    for (int r = 0; r < N; r++)
        memcpy(&c->Cinv[(size_t)r * ld], &state[(size_t)r * N], (size_t)N * sizeof *c->Cinv);
    for (int k = 0; k < s && form == EP_CMA_LDLT; k++) {
        double *Dk = c->D + 18 * (size_t)k, *X = c->Cinv + (size_t)3 * k * ld + 3 * k;
        for (int q = 0; q < 9; q++)
            Dk[q] = X[(size_t)(q / 3) * ld + q % 3], X[(size_t)(q / 3) * ld + q % 3] = q % 4 == 0;
        if (inv3(Dk, Dk + 9)) { /* what ep_cma_save gave out has the inverses */
            c->s = 0;
            return EP_ECOMPUTE;
        }
    }
    return EP_OK;
}

/* The applied tractions away from S: vbar restricted to free non-S nodes
 * with columns, as c->cols[k] and loads[k][3] (room for 4n doubles: the
 * mask of S goes after the loads); k returned.  No vbar: none, without
 * the mask's O(n). */
static int rest_loads(ep_cma *c, const double *vbar, double *loads)
{
    ep_gfsrc *g = c->g;
    int k = 0;
    if (!vbar)
        return 0;
    int8_t *inS = (int8_t *)(loads + 3 * (size_t)g->n);
    memset(inS, 0, (size_t)g->n);
    for (int i = 0; i < c->s; i++)
        inS[c->S[i]] = 1;
    for (int j = 0; j < g->n; j++) {
        const double *b = &vbar[3 * j];
        if (inS[j] || g->file->L.row_fixed[j] || g->col_of_row[j] < 0 || (b[0] == 0 && b[1] == 0 && b[2] == 0))
            continue;
        c->cols[k] = g->col_of_row[j];
        memcpy(&loads[3 * k++], b, 3 * sizeof *loads);
    }
    return k;
}

int ep_cma_interior(ep_cma *c, const double *vbar, const double *pS, double *out)
{
    double *loads = c->work + 3 * (size_t)c->s;
    int k = rest_loads(c, vbar, loads);
    for (int i = 0; i < c->s; i++) {
        c->cols[k] = c->g->col_of_row[c->S[i]];
        memcpy(&loads[3 * k++], &pS[3 * i], 3 * sizeof *loads);
    }
    return ep_gfsrc_interior(c->g, k, c->cols, loads, c->gv ? c->beta : NULL, out);
}

void ep_cma_solve(ep_cma *c, const double *uS, const double *vbar, double *pS, double *v)
{
    ep_gfsrc *g = c->g;
    int s = c->s, N = 3 * s;
    double *e = c->work, *loads = e + N;
    int k = rest_loads(c, vbar, loads);
    /* E^T v0 = E^T (Xi vbar_rest + (A^-1 B) beta) - uS (000 eqs. 2.36, 2.38) */
    for (int i = 0; i < s; i++) {
        double *ei = &e[3 * i], B[9];
        for (int b = 0; b < 3; b++)
            ei[b] = (c->gv ? c->gv[3 * (size_t)c->S[i] + b] : 0) - uS[3 * i + b];
        for (int q = 0; q < k; q++) {
            ep_gfsrc_block(g, c->S[i], c->cols[q], B);
            for (int b = 0; b < 3; b++)
                ei[b] += B[3 * b] * loads[3 * q] + B[3 * b + 1] * loads[3 * q + 1] + B[3 * b + 2] * loads[3 * q + 2];
        }
    }
    /* pS = C^-1 E^T v0: the unspecified values at S are its tractions */
    if (s && c->form != EP_CMA_INVERSE) { /* -D_a^-1 L^-T L^-1 e, with the LDL^T L^-T D^-1 L^-1 */
        memcpy(pS, e, (size_t)N * sizeof *pS);
        lower_solve1(N, c->Cinv, c->ld, pS);
        for (int i = 0; i < s && c->form == EP_CMA_LDLT; i++) {
            double t[3] = {pS[3 * i], pS[3 * i + 1], pS[3 * i + 2]};
            times3(c->D + 18 * (size_t)i + 9, t, pS + 3 * i);
        }
        lower_tsolve(N, c->Cinv, c->ld, pS);
        for (int i = 0; i < N; i++)
            pS[i] /= -g->area[c->S[i / 3]];
    } else if (s)
        cblas_dgemv(CblasRowMajor, CblasNoTrans, N, N, 1.0, c->Cinv, c->ld, e, 1, 0.0, pS, 1);
    if (s && c->pending) { /* + U (V e) */
        double Ve[3];
        cblas_dgemv(CblasRowMajor, CblasNoTrans, 3, N, 1.0, c->V, c->ld, e, 1, 0.0, Ve, 1);
        cblas_dgemv(CblasRowMajor, CblasNoTrans, N, 3, 1.0, c->U, 3, Ve, 1, 1.0, pS, 1);
    }
    if (!v)
        return;
    /* v = Xi (vbar_rest + E pS), then S takes its tractions (eqs. 3.63–3.65) */
    for (int i = 0; i < s; i++) {
        c->cols[k] = g->col_of_row[c->S[i]];
        memcpy(&loads[3 * k++], &pS[3 * i], 3 * sizeof *loads);
    }
    ep_gfsrc_sum(g, k, c->cols, loads, v);
    for (size_t i = 0; c->gv && i < 3 * (size_t)g->n; i++)
        v[i] += c->gv[i];
    for (int i = 0; i < s; i++)
        memcpy(&v[3 * c->S[i]], &pS[3 * i], 3 * sizeof *v);
}

void ep_cma_force(const ep_cma *c, const double *pS, double f[3])
{
    f[0] = f[1] = f[2] = 0;
    for (int i = 0; i < c->s; i++)
        for (int b = 0; b < 3; b++)
            f[b] += c->g->area[c->S[i]] * pS[3 * i + b];
}

/* ---- point contact with pressure masks ---------------------------------------------------- */

int ep_cma_mask(const ep_gfsrc *g, int i, double radius, int *idx, double *rho)
{
    const ep_mesh *m = &g->file->mesh;
    const double *xi = &m->vertices[3 * (size_t)g->file->L.row_vertex[i]];
    double total = 0;
    int k = 0;
    for (int j = 0; j < g->n; j++) {
        if (g->col_of_row[j] < 0 || g->file->L.row_fixed[j])
            continue;
        const double *xj = &m->vertices[3 * (size_t)g->file->L.row_vertex[j]];
        double d = sqrt((xj[0] - xi[0]) * (xj[0] - xi[0]) + (xj[1] - xi[1]) * (xj[1] - xi[1]) +
                        (xj[2] - xi[2]) * (xj[2] - xi[2]));
        double w = radius > 0 ? 1 - d / radius : j == i; /* eq. 4.24; radius 0: the node alone */
        if (w <= 0)
            continue;
        idx[k] = j;
        rho[k++] = w;
        total += w * g->area[j];
    }
    for (int q = 0; q < k; q++) /* a^T rho = 1 (eq. 4.23) */
        rho[q] /= total;
    return k;
}

int ep_cma_mask_stiffness(ep_gfsrc *g, int i, int k, const int *idx, const double *rho, double K[9])
{
    double sum[9] = {0}, B[9];
    for (int q = 0; q < k; q++) {
        ep_gfsrc_block(g, i, g->col_of_row[idx[q]], B);
        for (int e = 0; e < 9; e++)
            sum[e] += rho[q] * B[e];
    }
    return inv3(sum, K);
}
