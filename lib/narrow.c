/*
 * narrow.c — triangular solves of narrow blocks on a supernodal factor
 * (narrow.h says why and how they are shared).
 *
 * The loops read L in place, in contiguous column streams, with the k
 * values of 8 / (k / 4) columns in registers: 2 k flops per entry of L.
 * moddesc's modes stage on the R = 128 voxel dragon: 11.2 s -> 7.3 s
 * against dtrsm and dgemm (doc/DECISIONS.md).
 */
#include "narrow.h"
#include "err.h"
#include "kernel.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

int ep_narrow_takes(int k) { return k == 4 || k == 8; }

/* Columns of L a pass keeps in registers with their K values: 8 vectors. */
static inline int group_cols(int K) { return 8 / (K / 4); }

/* Row r of a row-major block of K values a row: Z's row rows[r], or the
 * r-th row from Z when rows is NULL. */
static inline ep_v4d *narrow_row(double *Z, const int *rows, int r, int K)
{
    return (ep_v4d *)(Z + (size_t)(rows ? rows[r] : r) * K);
}

/* Z[row r] -= sum_c L21[r][c] Y[c] for r < nr, c0 <= c < c0 + CB (L21
 * column-major, ld; Y and Z row-major, K values a row): CB contiguous
 * streams (reading a few rows across the columns is a stride of ld the
 * prefetcher does not follow: twice the time), the CB rows of Y in
 * registers, two sums in flight per row of Z. */
static inline __attribute__((always_inline)) void forward_cols(int K, int CB, int c0, int nr, const double *L21,
                                                                int ld, const double *Y, const int *rows, double *Z)
{
    enum { KV_MAX = 2 };
    const int KV = K / 4;
    const double *l = L21 + (size_t)c0 * ld;
    ep_v4d y[8][KV_MAX];
    Y += (size_t)c0 * K;
#pragma GCC unroll 8
    for (int j = 0; j < CB; j++)
#pragma GCC unroll 2
        for (int v = 0; v < KV; v++)
            y[j][v] = ((const ep_v4d *)(Y + (size_t)j * K))[v];
    for (int r = 0; r < nr; r++) {
        ep_v4d *z = narrow_row(Z, rows, r, K), a[2][KV_MAX];
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
static inline __attribute__((always_inline)) void backward_cols(int K, int CB, int c0, int nr, const double *L21,
                                                                 int ld, const double *Z, const int *rows, double *X)
{
    enum { KV_MAX = 2 };
    const int KV = K / 4;
    const double *l = L21 + (size_t)c0 * ld;
    ep_v4d a[8][KV_MAX] = {{{0}}};
    X += (size_t)c0 * K;
    for (int r = 0; r < nr; r++) {
        const ep_v4d *z = narrow_row((double *)Z, rows, r, K);
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
            ((ep_v4d *)(X + (size_t)j * K))[v] -= a[j][v];
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
static inline __attribute__((always_inline)) void narrow_forward_k(int K, int nr, int nscol, const double *L21, int ld,
                                                                    const double *Y, const int *rows, double *Z)
{
    NARROW_GROUPS(K, nscol, forward_cols, nr, L21, ld, Y, rows, Z);
}

/* X[c] -= sum_r L21[r][c] Z[row r] for c < nscol, r < nr. */
static inline __attribute__((always_inline)) void narrow_backward_k(int K, int nr, int nscol, const double *L21,
                                                                     int ld, double *Z, const int *rows, double *X)
{
    NARROW_GROUPS(K, nscol, backward_cols, nr, L21, ld, Z, rows, X);
}

/* Panels of the diagonal block's triangular solves: the triangle of a panel
 * by substitution, the rest of the block by the loops above. */
enum { NARROW_PANEL = 32 };

/* y = (y - sum_j l[j step] Y[j]) / d over the rows j of Y in [j0, j1):
 * one unknown of a panel's substitution. */
static inline __attribute__((always_inline)) void narrow_substitute(int K, double *y, const double *Y, int j0, int j1,
                                                                     const double *l, size_t step, double d)
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
            a[v] -= l[(size_t)j * step] * ((const ep_v4d *)(Y + (size_t)j * K))[v];
#pragma GCC unroll 2
    for (int v = 0; v < KV; v++)
        ((ep_v4d *)y)[v] = a[v] / d;
}

/* The team's barrier; none in a team of one (which may be one thread of
 * another team, solving alone). */
static inline void team_sync(int nth)
{
    if (nth > 1) {
#pragma omp barrier
    }
}

/* Thread me's rows [*r0, *r1) of n, in equal shares but the first, which
 * has at least `lead` (the rows thread 0 goes on with alone).  Any split
 * computes each row the same way. */
static void row_share(int n, int lead, int me, int nth, int *r0, int *r1)
{
    int a = (n + nth - 1) / nth, b;
    a = a > lead ? a : lead < n ? lead : n;
    b = nth > 1 ? (n - a + nth - 2) / (nth - 1) : 0;
    *r0 = me ? a + (me - 1) * b : 0;
    *r1 = me ? *r0 + b : a;
    *r0 = *r0 < n ? *r0 : n;
    *r1 = *r1 < n ? *r1 : n;
}

/* Thread me's columns [*c0, *c1) of n in whole groups of cb: each group
 * (and the remainder after the last) is summed as in one call. */
static void col_share(int n, int cb, int me, int nth, int *c0, int *c1)
{
    int groups = (n + cb - 1) / cb, g = (groups + nth - 1) / nth;
    *c0 = me * g * cb < n ? me * g * cb : n;
    *c1 = (me + 1) * g * cb < n ? (me + 1) * g * cb : n;
}

/* Substitution of Y's rows c0 .. c1-1 (a panel) through L11's rows. */
static inline __attribute__((always_inline)) void substitute_panel(int K, int c0, int c1, const double *L11, int ld,
                                                                    double *Y)
{
    for (int c = c0; c < c1; c++) /* row c of L11: entries ld apart */
        narrow_substitute(K, Y + (size_t)c * K, Y, c0, c, L11 + c, (size_t)ld, L11[c + (size_t)c * ld]);
}

/* Y = L11^-1 Y (L11 lower triangular nscol x nscol, column-major, ld) on
 * the team: per panel, the rows below it shared, thread 0 first updating
 * the next panel's rows, which it then substitutes while the others finish:
 * one barrier a panel. */
static inline __attribute__((always_inline)) void narrow_lsolve_k(int K, int nscol, const double *L11, int ld,
                                                                   double *Y, int me, int nth)
{
    if (me == 0)
        substitute_panel(K, 0, nscol < NARROW_PANEL ? nscol : NARROW_PANEL, L11, ld, Y);
    team_sync(nth);
    for (int c0 = 0; c0 < nscol; c0 += NARROW_PANEL) {
        int c1 = c0 + NARROW_PANEL < nscol ? c0 + NARROW_PANEL : nscol, r0, r1;
        row_share(nscol - c1, NARROW_PANEL, me, nth, &r0, &r1);
        narrow_forward_k(K, r1 - r0, c1 - c0, L11 + c1 + r0 + (size_t)c0 * ld, ld, Y + (size_t)c0 * K, NULL,
                         Y + (size_t)(c1 + r0) * K);
        if (me == 0 && c1 < nscol)
            substitute_panel(K, c1, c1 + NARROW_PANEL < nscol ? c1 + NARROW_PANEL : nscol, L11, ld, Y);
        team_sync(nth);
    }
}

/* Y = L11^-T Y on the team: per panel from the last, the update from the
 * rows below it shared by the panel's column groups, then thread 0's
 * substitution. */
static inline __attribute__((always_inline)) void narrow_ltsolve_k(int K, int nscol, const double *L11, int ld,
                                                                    double *Y, int me, int nth)
{
    for (int c1 = nscol; c1 > 0; c1 -= NARROW_PANEL) {
        int c0 = c1 - NARROW_PANEL > 0 ? c1 - NARROW_PANEL : 0, a, b;
        col_share(c1 - c0, group_cols(K), me, nth, &a, &b);
        if (c1 < nscol) /* not the last panel, whose rows another thread may still be writing (by L21) */
            narrow_backward_k(K, nscol - c1, b - a, L11 + c1 + (size_t)(c0 + a) * ld, ld, Y + (size_t)c1 * K, NULL,
                              Y + (size_t)(c0 + a) * K);
        team_sync(nth);
        for (int c = c1 - 1; c >= c0 && me == 0; c--) /* column c of L11: contiguous */
            narrow_substitute(K, Y + (size_t)c * K, Y, c + 1, c1, L11 + (size_t)c * ld, 1, L11[c + (size_t)c * ld]);
        team_sync(nth);
    }
}

/* ep_narrow_forward for K: the triangle, then L21's rows shared. */
static inline __attribute__((always_inline)) void narrow_forward_t(int K, int nscol, int nsrow, const double *Ld,
                                                                    const int *rows, double *Y1, double *Z, int me,
                                                                    int nth)
{
    int r0, r1;
    narrow_lsolve_k(K, nscol, Ld, nsrow, Y1, me, nth);
    row_share(nsrow - nscol, 0, me, nth, &r0, &r1);
    narrow_forward_k(K, r1 - r0, nscol, Ld + nscol + r0, nsrow, Y1, rows + r0, Z);
    team_sync(nth);
}

/* ep_narrow_backward for K: L21's column groups shared, then the triangle
 * (whose first barrier follows the last panel's update, before its
 * substitution reads what every thread added). */
static inline __attribute__((always_inline)) void narrow_backward_t(int K, int nscol, int nsrow, const double *Ld,
                                                                     const int *rows, double *X1, double *Z, int me,
                                                                     int nth)
{
    int c0, c1;
    col_share(nscol, group_cols(K), me, nth, &c0, &c1);
    narrow_backward_k(K, nsrow - nscol, c1 - c0, Ld + nscol + (size_t)c0 * nsrow, nsrow, Z, rows, X1 + (size_t)c0 * K);
    narrow_ltsolve_k(K, nscol, Ld, nsrow, X1, me, nth);
}

EP_KERNEL void ep_narrow_forward(int k, int nscol, int nsrow, const double *Ld, const int *rows, double *Y1, double *Z,
                                 int me, int nth)
{
    if (k == 4)
        narrow_forward_t(4, nscol, nsrow, Ld, rows, Y1, Z, me, nth);
    else
        narrow_forward_t(8, nscol, nsrow, Ld, rows, Y1, Z, me, nth);
}

EP_KERNEL void ep_narrow_backward(int k, int nscol, int nsrow, const double *Ld, const int *rows, double *X1, double *Z,
                                  int me, int nth)
{
    if (k == 4)
        narrow_backward_t(4, nscol, nsrow, Ld, rows, X1, Z, me, nth);
    else
        narrow_backward_t(8, nscol, nsrow, Ld, rows, X1, Z, me, nth);
}

/* A supernode's subtree weight (entries of L, for sorting the subtrees). */
typedef struct {
    double w;
    int s;
} weighed;

/* qsort's order: heavier first, then the lower supernode. */
static int heavier(const void *a, const void *b)
{
    const weighed *x = a, *y = b;
    return x->w != y->w ? (x->w < y->w) - (x->w > y->w) : (x->s > y->s) - (x->s < y->s);
}

/* A light subtree's share of the factor's entries, at most: 1/16 leaves the
 * dragon's top separators heavy and a dozen or more subtrees to balance
 * over the threads. */
enum { LIGHT_SHARE = 16 };

/* t->xrows for light subtree i (root r, supernodes first .. r): rows of r's
 * columns or below as they are, the others (r's off-diagonal rows, a
 * superset of its subtree's) as rows n + boff[i] + their place in r's
 * list.  Returns 0, or -1 when a row is not in r's list (not an
 * elimination tree's factor). */
static int move_outside(ep_narrow_plan *t, int i)
{
    const cholmod_factor *L = t->p->L;
    const int *super = L->super, *pi = L->pi, *Ls = L->s;
    int r = t->light[i], end = super[r + 1], nr = pi[r + 1] - pi[r] - (end - super[r]);
    const int *R = Ls + pi[r] + (end - super[r]);
    for (int s = t->first[i]; s <= r; s++)
        for (int q = pi[s] + super[s + 1] - super[s]; q < pi[s + 1]; q++) {
            int row = Ls[q], lo = 0, hi = nr;
            if (row < end)
                continue;
            while (lo < hi) { /* R ascending */
                int mid = lo + (hi - lo) / 2;
                if (R[mid] < row)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo == nr || R[lo] != row)
                return -1;
            t->xrows[q] = t->p->n + t->boff[i] + lo;
        }
    return 0;
}

int ep_narrow_plan_init(ep_narrow_plan *t, const ep_chol_rplan *p)
{
    const cholmod_factor *L = p->L;
    const int *super = L->super, *pi = L->pi, *Ls = L->s;
    int ns = p->nsuper, st = EP_ECOMPUTE, postorder = 1;
    memset(t, 0, sizeof *t);
    t->p = p;
    double *w = ep_calloc((size_t)ns + 1, sizeof *w), total = 0;
    int *first = ep_malloc((size_t)ns + 1, sizeof *first), *count = ep_calloc((size_t)ns + 1, sizeof *count);
    weighed *roots = ep_malloc((size_t)ns + 1, sizeof *roots);
    if (!w || !first || !count || !roots)
        goto out;
    /* subtree entries and ranges (children precede parents) */
    for (int s = 0; s < ns; s++)
        first[s] = s;
    for (int s = 0; s < ns; s++) {
        double nscol = super[s + 1] - super[s], nsrow = pi[s + 1] - pi[s];
        int par = p->parent[s];
        w[s] += nscol * nsrow;
        total += nscol * nsrow;
        count[s]++;
        t->flops += 2 * (nscol * nscol + 2 * (nsrow - nscol) * nscol);
        postorder &= count[s] == s - first[s] + 1;
        if (par >= 0) {
            w[par] += w[s], count[par] += count[s];
            first[par] = first[s] < first[par] ? first[s] : first[par];
        }
    }
    /* heavy: a subtree over the share (ancestors too); light roots below
     * them.  Not a postorder: every supernode heavy (right, slower). */
    int nlight = 0, nheavy = 0;
    for (int s = 0; s < ns; s++) {
        int heavy = !postorder || w[s] > total / LIGHT_SHARE, par = p->parent[s];
        nheavy += heavy;
        if (!heavy && (par < 0 || w[par] > total / LIGHT_SHARE))
            roots[nlight++] = (weighed){w[s], s};
    }
    qsort(roots, (size_t)nlight, sizeof *roots, heavier);
    size_t nrows = (size_t)pi[ns];
    if (!(t->light = ep_malloc(3 * (size_t)nlight + 1 + (size_t)nheavy + nrows, sizeof *t->light)))
        goto out;
    t->first = t->light + nlight;
    t->boff = t->first + nlight;
    t->heavy = t->boff + nlight + 1;
    t->xrows = t->heavy + nheavy;
    t->nlight = nlight;
    memcpy(t->xrows, Ls, nrows * sizeof *Ls);
    for (int s = 0; s < ns; s++)
        if (!postorder || w[s] > total / LIGHT_SHARE)
            t->heavy[t->nheavy++] = s;
    t->boff[0] = 0;
    for (int i = 0; i < nlight; i++) {
        int r = roots[i].s;
        t->light[i] = r;
        t->first[i] = first[r];
        t->boff[i + 1] = t->boff[i] + (pi[r + 1] - pi[r]) - (super[r + 1] - super[r]);
    }
    t->nbuf = t->boff[nlight];
    for (int i = 0; i < nlight; i++)
        if (move_outside(t, i)) {
            ep_fail(EP_ECOMPUTE, "the factor's row lists are not an elimination tree's (supernode %d)", t->light[i]);
            goto out;
        }
    st = EP_OK;
out:
    free(w);
    free(first);
    free(count);
    free(roots);
    if (st)
        ep_narrow_plan_free(t);
    return st;
}

void ep_narrow_plan_free(ep_narrow_plan *t)
{
    free(t->light); /* the block holding first, boff, heavy and xrows too */
    memset(t, 0, sizeof *t);
}

double *ep_narrow_work(const ep_narrow_plan *t, int k)
{
    return ep_malloc(((size_t)t->p->n + (size_t)t->nbuf) * (size_t)k, sizeof(double));
}

/* Z's rows of the light subtrees' outside rows += their rows after n, the
 * subtrees in the plan's order (fixed: the sums' order does not depend on
 * the threads). */
static void add_outside(const ep_narrow_plan *t, double *Z, int k)
{
    const cholmod_factor *L = t->p->L;
    const int *super = L->super, *pi = L->pi, *Ls = L->s;
    size_t uk = (size_t)k;
    for (int i = 0; i < t->nlight; i++) {
        int r = t->light[i], nscol = super[r + 1] - super[r];
        for (int j = 0; j < pi[r + 1] - pi[r] - nscol; j++) {
            double *z = Z + (size_t)Ls[pi[r] + nscol + j] * uk;
            const double *e = Z + ((size_t)t->p->n + (size_t)t->boff[i] + (size_t)j) * uk;
            for (size_t c = 0; c < uk; c++)
                z[c] += e[c];
        }
    }
}

/* Thread me's unknowns [*i0, *i1) of n for the transposes: whole tiles of
 * 32. */
static void tile_share(int n, int me, int nth, int *i0, int *i1)
{
    col_share(n, 32, me, nth, i0, i1);
}

double ep_narrow_solve(const ep_narrow_plan *t, const double *B, double *X, int k, double *work, int threads)
{
    const ep_chol_rplan *p = t->p;
    const cholmod_factor *L = p->L;
    const int *super = L->super, *pi = L->pi, *px = L->px, *Ls = L->s;
    const double *Lx = L->x;
    const int n = p->n;
    const size_t uk = (size_t)k;
    double *Z = work;
#pragma omp parallel num_threads(threads)
    {
        int me = omp_get_thread_num(), nth = omp_get_num_threads(), a, b;
        tile_share(n, me, nth, &a, &b);
        ep_chol_rgather(p, NULL, (size_t)n, 1.0, B, Z, k, a, b);
        row_share(t->nbuf, 0, me, nth, &a, &b);
        memset(Z + ((size_t)n + (size_t)a) * uk, 0, sizeof *Z * (size_t)(b - a) * uk);
#pragma omp barrier
        /* forward: the light subtrees whole, their outside rows added, then
         * the heavy supernodes by the team */
#pragma omp for schedule(dynamic, 1)
        for (int i = 0; i < t->nlight; i++)
            for (int s = t->first[i]; s <= t->light[i]; s++) {
                int k1 = super[s], nscol = super[s + 1] - k1;
                ep_narrow_forward(k, nscol, pi[s + 1] - pi[s], Lx + px[s], t->xrows + pi[s] + nscol,
                                  Z + (size_t)k1 * uk, Z, 0, 1);
            }
#pragma omp single
        add_outside(t, Z, k);
        for (int h = 0; h < t->nheavy; h++) {
            int s = t->heavy[h], k1 = super[s], nscol = super[s + 1] - k1;
            ep_narrow_forward(k, nscol, pi[s + 1] - pi[s], Lx + px[s], Ls + pi[s] + nscol, Z + (size_t)k1 * uk, Z,
                              me, nth);
        }
        /* backward: the heavy supernodes by the team, then the light
         * subtrees whole (they read the rows above, written by now) */
        for (int h = t->nheavy - 1; h >= 0; h--) {
            int s = t->heavy[h], k1 = super[s], nscol = super[s + 1] - k1;
            ep_narrow_backward(k, nscol, pi[s + 1] - pi[s], Lx + px[s], Ls + pi[s] + nscol, Z + (size_t)k1 * uk, Z,
                               me, nth);
        }
#pragma omp for schedule(dynamic, 1)
        for (int i = 0; i < t->nlight; i++)
            for (int s = t->light[i]; s >= t->first[i]; s--) {
                int k1 = super[s], nscol = super[s + 1] - k1;
                ep_narrow_backward(k, nscol, pi[s + 1] - pi[s], Lx + px[s], Ls + pi[s] + nscol,
                                   Z + (size_t)k1 * uk, Z, 0, 1);
            }
        tile_share(n, me, nth, &a, &b);
        ep_chol_rscatter(p, NULL, (size_t)n, Z, X, k, a, b);
    }
    return t->flops * k;
}
