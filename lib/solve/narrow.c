/*
 * narrow.c — triangular solves of narrow blocks on a supernodal factor
 * (narrow.h says why, and how a whole solve is shared).
 *
 * The loops read L in place, in contiguous column streams, with the k
 * values of 8 / (k / 4) columns in registers: 2 k flops per entry of L.
 * moddesc's modes stage on the R = 128 voxel dragon: 11.2 s -> 7.3 s
 * against dtrsm and dgemm (doc/DECISIONS.md).
 */
#include "narrow.h"
#include "kernel.h"

#include <assert.h>
#include <stddef.h>

int ep_narrow_takes(int k) { return k == 4 || k == 8; }

/* Columns of L a pass keeps in registers with their K values: 8 vectors. */
static inline int group_cols(int K) { return 8 / (K / 4); }

/* Row r of a row-major block of S values a row: Z's row rows[r], or the
 * r-th row from Z when rows is NULL. */
static inline ep_v4d *narrow_row(double *Z, const int *rows, int r, int S)
{
    return (ep_v4d *)(Z + (size_t)(rows ? rows[r] : r) * S);
}

/* Z[row r] -= sum_c L21[r][c] Y[c] for r < nr, c0 <= c < c0 + CB (L21
 * column-major, ld; Y and Z row-major, K values at the start of rows S
 * apart): CB contiguous streams (reading a few rows across the columns is
 * a stride of ld the prefetcher does not follow: twice the time), the CB
 * rows of Y in registers, two sums in flight per row of Z. */
static inline __attribute__((always_inline)) void forward_cols(int K, int CB, int c0, int S, int nr,
                                                                const double *L21, int ld, const double *Y,
                                                                const int *rows, double *Z)
{
    enum { KV_MAX = 2 };
    const int KV = K / 4;
    const double *l = L21 + (size_t)c0 * ld;
    ep_v4d y[8][KV_MAX];
    Y += (size_t)c0 * S;
#pragma GCC unroll 8
    for (int j = 0; j < CB; j++)
#pragma GCC unroll 2
        for (int v = 0; v < KV; v++)
            y[j][v] = ((const ep_v4d *)(Y + (size_t)j * S))[v];
    for (int r = 0; r < nr; r++) {
        ep_v4d *z = narrow_row(Z, rows, r, S), a[2][KV_MAX];
#pragma GCC unroll 2
        for (int v = 0; v < KV; v++)
            a[0][v] = z[v], a[1][v] = (ep_v4d){0, 0, 0, 0};
#pragma GCC unroll 8
        for (int j = 0; j < CB; j++)
#pragma GCC unroll 2
            for (int v = 0; v < KV; v++)
                a[j & 1][v] -= l[r + (size_t)j * ld] * y[j][v];
#pragma GCC unroll 2
        for (int v = 0; v < KV; v++)
            z[v] = a[0][v] + a[1][v];
    }
}

/* X[c] -= sum_r L21[r][c] Z[row r] for c0 <= c < c0 + CB, r < nr: CB sums
 * of K values in registers. */
static inline __attribute__((always_inline)) void backward_cols(int K, int CB, int c0, int S, int nr,
                                                                 const double *L21, int ld, const double *Z,
                                                                 const int *rows, double *X)
{
    enum { KV_MAX = 2 };
    const int KV = K / 4;
    const double *l = L21 + (size_t)c0 * ld;
    ep_v4d a[8][KV_MAX] = {{{0}}};
    X += (size_t)c0 * S;
    for (int r = 0; r < nr; r++) {
        const ep_v4d *z = narrow_row((double *)Z, rows, r, S);
#pragma GCC unroll 8
        for (int j = 0; j < CB; j++)
#pragma GCC unroll 2
            for (int v = 0; v < KV; v++)
                a[j][v] += l[r + (size_t)j * ld] * z[v];
    }
#pragma GCC unroll 8
    for (int j = 0; j < CB; j++)
#pragma GCC unroll 2
        for (int v = 0; v < KV; v++)
            ((ep_v4d *)(X + (size_t)j * S))[v] -= a[j][v];
}

/* cols (forward_cols or backward_cols) over the nscol columns of L21 in
 * groups of 8 / (K / 4), the registers' worth, and the last few as one
 * group of their own: one pass over Z's rows for the remainder too.  The
 * dragon's supernodes are vertices' columns, multiples of 3, mostly 9 to 64
 * wide, so nearly all end in a remainder; a pass per remainder column was a
 * quarter of the forward solve's samples (perf). */
#define NARROW_GROUPS(K, nscol, cols, ...)                                                                            \
    do {                                                                                                              \
        const int CB_ = group_cols(K);                                                                                \
        int c_ = 0;                                                                                                   \
        for (; c_ + CB_ <= (nscol); c_ += CB_)                                                                        \
            cols(K, CB_, c_, __VA_ARGS__);                                                                            \
        switch ((nscol) - c_) {                                                                                       \
        case 7: cols(K, 7, c_, __VA_ARGS__); break;                                                                   \
        case 6: cols(K, 6, c_, __VA_ARGS__); break;                                                                   \
        case 5: cols(K, 5, c_, __VA_ARGS__); break;                                                                   \
        case 4: cols(K, 4, c_, __VA_ARGS__); break;                                                                   \
        case 3: cols(K, 3, c_, __VA_ARGS__); break;                                                                   \
        case 2: cols(K, 2, c_, __VA_ARGS__); break;                                                                   \
        case 1: cols(K, 1, c_, __VA_ARGS__); break;                                                                   \
        }                                                                                                             \
    } while (0)

/* Z[row r] -= sum_c L21[r][c] Y[c] for r < nr, c < nscol. */
static inline __attribute__((always_inline)) void narrow_forward_k(int K, int S, int nr, int nscol, const double *L21,
                                                                    int ld, const double *Y, const int *rows,
                                                                    double *Z)
{
    NARROW_GROUPS(K, nscol, forward_cols, S, nr, L21, ld, Y, rows, Z);
}

/* X[c] -= sum_r L21[r][c] Z[row r] for c < nscol, r < nr. */
static inline __attribute__((always_inline)) void narrow_backward_k(int K, int S, int nr, int nscol,
                                                                     const double *L21, int ld, const double *Z,
                                                                     const int *rows, double *X)
{
    NARROW_GROUPS(K, nscol, backward_cols, S, nr, L21, ld, Z, rows, X);
}

/* Panels of the diagonal block's triangular solves: the triangle of a panel
 * by substitution, the rest of the block by the loops above. */
enum { NARROW_PANEL = 32 };

/* y = (y - sum_j l[j step] Y[j]) / d over the rows j of Y in [j0, j1):
 * one unknown of a panel's substitution. */
static inline __attribute__((always_inline)) void narrow_substitute(int K, int S, double *y, const double *Y, int j0,
                                                                     int j1, const double *l, size_t step, double d)
{
    enum { KV_MAX = 2 };
    const int KV = K / 4;
    ep_v4d a[KV_MAX];
#pragma GCC unroll 2
    for (int v = 0; v < KV; v++)
        a[v] = ((ep_v4d *)y)[v];
    for (int j = j0; j < j1; j++)
#pragma GCC unroll 2
        for (int v = 0; v < KV; v++)
            a[v] -= l[(size_t)j * step] * ((const ep_v4d *)(Y + (size_t)j * S))[v];
#pragma GCC unroll 2
    for (int v = 0; v < KV; v++)
        ((ep_v4d *)y)[v] = a[v] / d;
}

/* Y = L11^-1 Y (L11 lower triangular nscol x nscol, column-major, ld;
 * Y's rows S apart): per panel, substitution, then the rows below it. */
static inline __attribute__((always_inline)) void narrow_lsolve_k(int K, int S, int nscol, const double *L11, int ld,
                                                                   double *Y)
{
    for (int c0 = 0; c0 < nscol; c0 += NARROW_PANEL) {
        int c1 = c0 + NARROW_PANEL < nscol ? c0 + NARROW_PANEL : nscol;
        for (int c = c0; c < c1; c++) /* row c of L11: entries ld apart */
            narrow_substitute(K, S, Y + (size_t)c * S, Y, c0, c, L11 + c, (size_t)ld, L11[c + (size_t)c * ld]);
        narrow_forward_k(K, S, nscol - c1, c1 - c0, L11 + c1 + (size_t)c0 * ld, ld, Y + (size_t)c0 * S, NULL,
                         Y + (size_t)c1 * S);
    }
}

/* Y = L11^-T Y: per panel from the last, the update from the rows below
 * it, then substitution. */
static inline __attribute__((always_inline)) void narrow_ltsolve_k(int K, int S, int nscol, const double *L11, int ld,
                                                                    double *Y)
{
    for (int c1 = nscol; c1 > 0; c1 -= NARROW_PANEL) {
        int c0 = c1 - NARROW_PANEL > 0 ? c1 - NARROW_PANEL : 0;
        narrow_backward_k(K, S, nscol - c1, c1 - c0, L11 + c1 + (size_t)c0 * ld, ld, Y + (size_t)c1 * S, NULL,
                          Y + (size_t)c0 * S);
        for (int c = c1 - 1; c >= c0; c--) /* column c of L11: contiguous */
            narrow_substitute(K, S, Y + (size_t)c * S, Y, c + 1, c1, L11 + (size_t)c * ld, 1,
                              L11[c + (size_t)c * ld]);
    }
}

/* ep_narrow_forward for K values in rows of S. */
static inline __attribute__((always_inline)) void narrow_forward_t(int K, int S, int nscol, int nsrow,
                                                                    const double *Ld, const int *rows, double *Y1,
                                                                    double *Z)
{
    narrow_lsolve_k(K, S, nscol, Ld, nsrow, Y1);
    narrow_forward_k(K, S, nsrow - nscol, nscol, Ld + nscol, nsrow, Y1, rows, Z);
}

/* ep_narrow_backward for K values in rows of S. */
static inline __attribute__((always_inline)) void narrow_backward_t(int K, int S, int nscol, int nsrow,
                                                                     const double *Ld, const int *rows, double *X1,
                                                                     double *Z)
{
    narrow_backward_k(K, S, nsrow - nscol, nscol, Ld + nscol, nsrow, Z, rows, X1);
    narrow_ltsolve_k(K, S, nscol, Ld, nsrow, X1);
}

/* The shapes the loops are built for: k values in rows of k, or 4 of any
 * zs (8: a half of a block of 8; wider: the leading columns of a wide
 * block, chol.h ep_chol_rforward_lead). */
static inline int shape_ok(int k, int zs) { return ep_narrow_takes(k) && (zs == k || (k == 4 && zs > 4)); }

/* loop (narrow_forward_t or narrow_backward_t) instantiated for the shape
 * (k, zs) that shape_ok allows: 8 in rows of 8, 4 of 4, 4 of 8, 4 of zs
 * (the stride a run-time value). */
#define BY_SHAPE(loop, k, zs, ...)                                                                                     \
    ((k) == 8 ? loop(8, 8, __VA_ARGS__)                                                                                \
     : (zs) == 4 ? loop(4, 4, __VA_ARGS__)                                                                             \
     : (zs) == 8 ? loop(4, 8, __VA_ARGS__)                                                                             \
                 : loop(4, zs, __VA_ARGS__))

EP_KERNEL void ep_narrow_forward(int k, int zs, int nscol, int nsrow, const double *Ld, const int *rows, double *Y1,
                                 double *Z)
{
    assert(shape_ok(k, zs));
    BY_SHAPE(narrow_forward_t, k, zs, nscol, nsrow, Ld, rows, Y1, Z);
}

EP_KERNEL void ep_narrow_backward(int k, int zs, int nscol, int nsrow, const double *Ld, const int *rows, double *X1,
                                  double *Z)
{
    assert(shape_ok(k, zs));
    BY_SHAPE(narrow_backward_t, k, zs, nscol, nsrow, Ld, rows, X1, Z);
}
