/*
 * supernodal.c — the numeric supernodal Cholesky factorization on all cores,
 * into CHOLMOD's factor (supernodal.h says why).
 *
 * CHOLMOD's supernodal layout: supernode s holds the columns super[s] ..
 * super[s+1]-1, its rows are Ls[pi[s] .. pi[s+1]) (its own columns first,
 * then ascending), its values column-major at Lx + px[s] with leading
 * dimension the row count.  A descendant d updates s with its rows that
 * fall in s's columns; those and all d's rows after them are rows of s.
 */
#include "supernodal.h"
#include "blas.h"
#include "err.h"
#include "sort.h"

#include <cblas.h>
#include <lapacke.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* Descendant d's rows r1 .. r2-1 (places in its row list) lie in the
 * columns of the supernode whose list holds this entry. */
typedef struct {
    int d, r1, r2;
} update;

/* One factorization: the pattern, P A P^T, the update lists and the tree. */
typedef struct {
    int n, nsuper;
    const int *super, *pi, *px, *Ls; /* borrowed: L's */
    double *Lx;                      /* borrowed: L's values */
    const int *Ap, *Ai;              /* borrowed: P A P^T, lower triangle */
    const double *Ax;
    int *uptr;        /* [nsuper + 2] updates into s: up[uptr[s] .. uptr[s+1]) */
    update *up;       /* by descendant, ascending */
    int *first;       /* [2 nsuper] first supernode of s's subtree (postorder); then phase 1's roots */
    int *cptr, *kids; /* [nsuper + 3], [nsuper]: children of s: kids[cptr[s] ..); s = nsuper: the roots */
    char *bad;        /* [nsuper] 1: s or a descendant not positive definite */
    double *work;     /* [nsuper] flops of s's subtree (a schedule's estimate) */
    char *top;        /* [nsuper] 1: s's subtree is heavy, s is done in phase 2 on all threads */
    int **map;        /* [threads][n + 1 + max nsrow]: row of s's block for each row of s; then assemble_rows's rel */
    double **C;       /* [threads] an update (workspace_sizes) */
    int minor;        /* first failed column, or n */
} factor;

/* Update lists: for every descendant d, its rows after its own columns, in
 * runs that fall in one supernode's columns; each run is an update of that
 * supernode.  Two passes (count, fill) keep each list in ascending d.
 * Cost O(nnz of L's row lists). */
static int build_updates(factor *f, const int *snode)
{
    int ns = f->nsuper;
    for (int pass = 0; pass < 2; pass++) {
        for (int d = 0; d < ns; d++) {
            const int *rows = f->Ls + f->pi[d];
            int nrow = f->pi[d + 1] - f->pi[d];
            for (int i = f->super[d + 1] - f->super[d]; i < nrow;) {
                int t = snode[rows[i]], j = i;
                while (j < nrow && rows[j] < f->super[t + 1])
                    j++;
                if (pass)
                    f->up[f->uptr[t + 1]++] = (update){d, i, j};
                else
                    f->uptr[t + 2]++;
                i = j;
            }
        }
        if (!pass) { /* counts at t + 2 -> starts at t + 1, filled up to t + 2's */
            for (int t = 0; t < ns; t++)
                f->uptr[t + 2] += f->uptr[t + 1];
            if (!(f->up = ep_malloc((size_t)f->uptr[ns + 1] + 1, sizeof *f->up)))
                return EP_ECOMPUTE;
        }
    }
    return EP_OK;
}

/* The supernodal elimination tree: children lists (roots under the
 * virtual node nsuper), each subtree's first supernode and flops.  A
 * light subtree runs on one thread as the range first[s] .. s, so the tree
 * must be postordered (cholmod_analyze's default); if it is not, every
 * supernode is top, done in column order (still children before parents).
 * size: [nsuper] workspace.  Cost O(nsuper). */
static void build_tree(factor *f, const int *snode, int *size, int threads)
{
    int ns = f->nsuper, *parent = f->first; /* first holds the parents until the end */
    double total = 0;
    for (int s = 0; s < ns; s++) {
        int nscol = f->super[s + 1] - f->super[s], nsrow = f->pi[s + 1] - f->pi[s];
        parent[s] = nsrow > nscol ? snode[f->Ls[f->pi[s] + nscol]] : ns;
        f->cptr[parent[s] + 2]++;
        f->work[s] = (double)nsrow * nsrow * nscol; /* the right-looking count of its columns */
        total += f->work[s];
        size[s] = 1;
    }
    for (int s = 0; s <= ns; s++) /* counts at p + 2 -> starts at p + 1, filled up to p + 2's */
        f->cptr[s + 2] += f->cptr[s + 1];
    for (int s = 0; s < ns; s++) {
        f->kids[f->cptr[parent[s] + 1]++] = s;
        if (parent[s] < ns) { /* children precede parents: one pass sums the subtrees */
            f->work[parent[s]] += f->work[s];
            size[parent[s]] += size[s];
        }
    }
    int postorder = 1;
    for (int s = 0; s < ns; s++)
        f->first[s] = s - size[s] + 1; /* parent[s] is read no more */
    for (int s = 0; s < ns; s++) { /* the children's ranges tile first[s] .. s-1 */
        int next = f->first[s];
        for (int k = f->cptr[s]; k < f->cptr[s + 1]; k++) /* children ascending */
            postorder = postorder && f->first[f->kids[k]] == next, next = f->kids[k] + 1;
        postorder = postorder && next == s;
    }
    for (int s = 0; s < ns; s++) /* light: under 1/32 of a thread's share */
        f->top[s] = !postorder || f->work[s] * 32.0 * threads >= total;
}

/* Supernodes of BIG columns or more are done in blocks of TILE rows and
 * tiles of TILE columns: shared over the threads at the top (the
 * separators, done when no other subtree is left to run beside them), on
 * one thread in a light subtree.  The blocks are fixed by the supernode's
 * size alone, so the arithmetic, and the factor, are the same on any
 * number of threads. */
enum { BIG = EP_SUPERNODAL_BIG, TILE = EP_SUPERNODAL_TILE };

/* First of d's rows (places in drows[0 .. m), in s's rows ascending) whose
 * row of s is b or after. */
static int first_row_at(const int *map, const int *drows, int m, int b)
{
    int lo = 0, hi = m;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (map[drows[mid]] < b)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Rows b0 .. b1-1 of supernode s (all its columns): P A P^T's entries minus
 * every descendant's update, in the update lists' order.  map: row of s of
 * each row of s.  C: workspace (workspace_sizes); rel: workspace [nsrow]
 * of the largest descendant.  The whole block (b0 = 0,
 * b1 = nsrow) takes an update's triangle by dsyrk; a row block, whose
 * triangle is at most TILE^2 / 2 of its product, by one dgemm. */
static void assemble_rows(factor *f, int s, const int *map, int b0, int b1, double *C, int *rel)
{
    int k1 = f->super[s], nscol = f->super[s + 1] - k1, nsrow = f->pi[s + 1] - f->pi[s];
    int whole = b0 == 0 && b1 == nsrow;
    double *S = f->Lx + f->px[s];
    for (int j = 0; j < nscol; j++) {
        double *col = S + (size_t)j * nsrow;
        memset(col + b0, 0, sizeof *col * (size_t)(b1 - b0));
        for (int p = f->Ap[k1 + j]; p < f->Ap[k1 + j + 1]; p++) {
            int i = map[f->Ai[p]];
            if (i >= b0 && i < b1)
                col[i] += f->Ax[p];
        }
    }
    for (int k = f->uptr[s]; k < f->uptr[s + 1]; k++) {
        const update *u = &f->up[k];
        int d = u->d, dcol = f->super[d + 1] - f->super[d], drow = f->pi[d + 1] - f->pi[d];
        int m = drow - u->r1, n1 = u->r2 - u->r1;
        const double *D = f->Lx + f->px[d] + u->r1;
        const int *drows = f->Ls + f->pi[d] + u->r1;
        /* d's rows a0 .. a1-1 fall in the block; C = D[a0:a1, :] D[0:c, :]^T,
         * c = min(n1, a1): no column after the block's last row */
        int a0 = whole ? 0 : first_row_at(map, drows, m, b0), a1 = whole ? m : first_row_at(map, drows, m, b1);
        int c = n1 < a1 ? n1 : a1, ld = a1 - a0;
        if (a0 == a1)
            continue;
        if (whole) {
            cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, n1, dcol, 1.0, D, drow, 0.0, C, m);
            if (m > n1)
                cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, m - n1, n1, dcol, 1.0, D + n1, drow, D, drow,
                            0.0, C + n1, m);
        } else
            cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, ld, c, dcol, 1.0, D + a0, drow, D, drow, 0.0, C, ld);
        /* C's rows' places in s, once for all its columns; d's rows in one
         * run of s's rows (ascending, so first and last tell) subtract as
         * one vector loop (the scatter through map per entry was 17% of the
         * dragon's factor: perf) */
        for (int ii = a0; ii < a1; ii++)
            rel[ii - a0] = map[drows[ii]];
        int run = rel[ld - 1] - rel[0] == ld - 1;
        for (int jj = 0; jj < c; jj++) { /* the lower triangle: rows from the column's own on */
            double *col = S + (size_t)(drows[jj] - k1) * nsrow;
            const double *cj = C + (size_t)jj * ld;
            int i0 = (jj > a0 ? jj : a0) - a0;
            if (run) {
                double *to = col + rel[0];
                for (int ii = i0; ii < ld; ii++)
                    to[ii] -= cj[ii];
            } else
                for (int ii = i0; ii < ld; ii++)
                    col[rel[ii]] -= cj[ii];
        }
    }
}

/* First row of row tile i of a big supernode: the diagonal block's tiles
 * (as its column tiles, nt of them), then the rows below in tiles of their
 * own; rt tiles in all. */
static int tile_row(int i, int nt, int nscol) { return i < nt ? i * TILE : nscol + (i - nt) * TILE; }

/* Rows of row tile i (of rt) of a big supernode of nsrow rows. */
static int tile_rows(int i, int nt, int rt, int nscol, int nsrow)
{
    return (i + 1 < rt ? tile_row(i + 1, nt, nscol) : nsrow) - tile_row(i, nt, nscol);
}

/* Cholesky of a big supernode's nsrow x nscol block S (leading dimension
 * nsrow) in tiles, right-looking: per column tile k, dpotrf of its diagonal
 * tile, dtrsm of the tiles below it and the trailing tiles' dsyrk or dgemm,
 * each step's tiles shared over the threads.  Returns 0, or dpotrf's info
 * plus the column tile's first column (1-based column of the failed pivot). */
static int factor_tiles(double *S, int nsrow, int nscol, int threads)
{
    int nt = (nscol + TILE - 1) / TILE, rt = nt + (nsrow - nscol + TILE - 1) / TILE;
    for (int k = 0; k < nt; k++) {
        int c0 = k * TILE, cn = tile_rows(k, nt, rt, nscol, nsrow);
        double *Akk = S + c0 + (size_t)c0 * nsrow;
        int info = (int)LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', cn, Akk, nsrow);
        if (info > 0)
            return c0 + info;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) if (threads > 1)
        for (int i = k + 1; i < rt; i++)
            cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit,
                        tile_rows(i, nt, rt, nscol, nsrow), cn, 1.0, Akk, nsrow,
                        S + tile_row(i, nt, nscol) + (size_t)c0 * nsrow, nsrow);
#pragma omp parallel for collapse(2) num_threads(threads) schedule(dynamic, 1) if (threads > 1)
        for (int j = k + 1; j < nt; j++)
            for (int i = k + 1; i < rt; i++) {
                if (i < j)
                    continue;
                int r0 = tile_row(i, nt, nscol), cj = j * TILE, ri = tile_rows(i, nt, rt, nscol, nsrow);
                const double *Aik = S + r0 + (size_t)c0 * nsrow, *Ajk = S + cj + (size_t)c0 * nsrow;
                double *Aij = S + r0 + (size_t)cj * nsrow;
                if (i == j)
                    cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, ri, cn, -1.0, Aik, nsrow, 1.0, Aij, nsrow);
                else
                    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, ri, tile_rows(j, nt, rt, nscol, nsrow), cn,
                                -1.0, Aik, nsrow, Ajk, nsrow, 1.0, Aij, nsrow);
            }
    }
    return 0;
}

/* Factor supernode s: its block assembled (assemble_rows), then dpotrf on
 * the diagonal block and dtrsm below it; a big one in row blocks and tiles
 * shared over threads.  t: the calling thread's workspace (f->map[t],
 * f->C[t]).  Cost: the updates' products plus nscol^3 / 3 + (nsrow - nscol)
 * nscol^2 flops. */
static void factor_supernode(factor *f, int s, int t, int threads)
{
    int *map = f->map[t];
    int k1 = f->super[s], nscol = f->super[s + 1] - k1, nsrow = f->pi[s + 1] - f->pi[s], info;
    const int *rows = f->Ls + f->pi[s];
    double *S = f->Lx + f->px[s];
    for (int k = f->uptr[s]; k < f->uptr[s + 1] && !f->bad[s]; k++)
        f->bad[s] = f->bad[f->up[k].d];
    if (f->bad[s])
        return;
    for (int i = 0; i < nsrow; i++)
        map[rows[i]] = i;
    if (nscol < BIG) {
        assemble_rows(f, s, map, 0, nsrow, f->C[t], map + f->n + 1);
        info = (int)LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', nscol, S, nsrow);
        if (!info && nsrow > nscol)
            cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, nsrow - nscol, nscol, 1.0,
                        S, nsrow, S + nscol, nsrow);
    } else {
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) if (threads > 1)
        for (int b0 = 0; b0 < nsrow; b0 += TILE) {
            int me = threads > 1 ? omp_get_thread_num() : t;
            assemble_rows(f, s, map, b0, b0 + TILE < nsrow ? b0 + TILE : nsrow, f->C[me], f->map[me] + f->n + 1);
        }
        info = factor_tiles(S, nsrow, nscol, threads);
    }
    if (info > 0) {
        f->bad[s] = 1;
#pragma omp critical(ep_supernodal_minor)
        f->minor = k1 + info - 1 < f->minor ? k1 + info - 1 : f->minor;
    }
}

/* Values of C each thread needs: thread 0 runs the top supernodes below
 * BIG columns whole (c0), every thread the light subtrees' and the big
 * supernodes' row blocks (call: at most TILE of a descendant's rows).
 * Cost O(updates). */
static void workspace_sizes(const factor *f, size_t *c0, size_t *call)
{
    *c0 = *call = 1;
    for (int t = 0; t < f->nsuper; t++) {
        int big = f->super[t + 1] - f->super[t] >= BIG;
        for (int k = f->uptr[t]; k < f->uptr[t + 1]; k++) {
            const update *u = &f->up[k];
            size_t m = (size_t)(f->pi[u->d + 1] - f->pi[u->d] - u->r1), n1 = (size_t)(u->r2 - u->r1);
            size_t need = (big && m > TILE ? TILE : m) * n1;
            *c0 = need > *c0 ? need : *c0;
            if (big || !f->top[t])
                *call = need > *call ? need : *call;
        }
    }
}

/* The two phases: the light subtrees below the top (each a range on one
 * thread, the heaviest first), then the top supernodes in order, each on
 * all threads.  Subtree roots: the light children of top supernodes (and
 * of the virtual root). */
static void factor_phases(factor *f, int threads)
{
    int ns = f->nsuper, nroots = 0, *roots = f->first + ns; /* first's second half */
    for (int t = 0; t <= ns; t++)
        if (t == ns || f->top[t])
            for (int k = f->cptr[t]; k < f->cptr[t + 1]; k++)
                if (!f->top[f->kids[k]])
                    roots[nroots++] = f->kids[k];
    ep_sort_heaviest(roots, (size_t)nroots, f->work);
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
    for (int i = 0; i < nroots; i++) {
        int t = omp_get_thread_num();
        for (int r = f->first[roots[i]]; r <= roots[i]; r++)
            factor_supernode(f, r, t, 1);
    }
    for (int s = 0; s < ns; s++)
        if (f->top[s])
            factor_supernode(f, s, 0, threads);
}

int ep_supernodal_takes(const cholmod_factor *L, const cholmod_sparse *A)
{
    return L->is_super && L->itype == CHOLMOD_INT && (L->xtype == CHOLMOD_PATTERN || L->xtype == CHOLMOD_REAL) &&
           A->xtype == CHOLMOD_REAL && A->itype == CHOLMOD_INT && A->stype != 0 && A->nrow == L->n &&
           A->ncol == L->n;
}

/* P A P^T as its lower triangle, packed (CHOLMOD's transposes, as
 * cholmod_factorize makes it): NULL with the message. */
static cholmod_sparse *permuted_lower(cholmod_sparse *A, const cholmod_factor *L, cholmod_common *c)
{
    cholmod_sparse *T = cholmod_ptranspose(A, 2, L->Perm, NULL, 0, c), *U = NULL;
    if (T && T->stype > 0) { /* A was lower: P A P^T upper, once more transposed */
        U = cholmod_ptranspose(T, 2, NULL, NULL, 0, c);
        cholmod_free_sparse(&T, c);
        T = U;
    }
    if (!T)
        ep_fail(EP_ECOMPUTE, "out of memory (the permuted matrix of a factorization)");
    return T;
}

int ep_supernodal_factor(cholmod_factor *L, cholmod_sparse *A, int *minor, cholmod_common *c)
{
    /* called where nesting is spent (a parallel region's thread): one */
    int threads = omp_get_active_level() < omp_get_max_active_levels() ? omp_get_max_threads() : 1;
    int st = EP_ECOMPUTE, n = (int)L->n, ns = (int)L->nsuper;
    factor f = {.n = n, .nsuper = ns, .minor = n};
    cholmod_sparse *PA = permuted_lower(A, L, c);
    int *snode = ep_malloc((size_t)n + (size_t)ns + 1, sizeof *snode), *size = snode + n; /* [n], [nsuper] */
    if (!PA || !snode)
        goto out;
    if (L->xtype == CHOLMOD_PATTERN &&
        !cholmod_change_factor(CHOLMOD_REAL, 1, 1, 1, 1, L, c)) { /* allocates L->x, xsize values */
        ep_fail(EP_ECOMPUTE, "out of memory (a factor of %.3g entries)", (double)L->xsize);
        goto out;
    }
    L->is_ll = 1;
    f.super = L->super, f.pi = L->pi, f.px = L->px, f.Ls = L->s, f.Lx = L->x;
    f.Ap = PA->p, f.Ai = PA->i, f.Ax = PA->x;
    for (int s = 0; s < ns; s++)
        for (int j = f.super[s]; j < f.super[s + 1]; j++)
            snode[j] = s;
    f.uptr = ep_calloc((size_t)ns + 2, sizeof *f.uptr);
    f.first = ep_malloc(2 * (size_t)ns + 1, sizeof *f.first);
    f.top = ep_malloc((size_t)ns + 1, 1);
    f.cptr = ep_calloc((size_t)ns + 3, sizeof *f.cptr);
    f.kids = ep_malloc((size_t)ns + 1, sizeof *f.kids);
    f.bad = ep_calloc((size_t)ns + 1, 1);
    f.work = ep_malloc((size_t)ns + 1, sizeof *f.work);
    f.map = ep_calloc((size_t)threads, sizeof *f.map);
    f.C = ep_calloc((size_t)threads, sizeof *f.C);
    if (!f.uptr || !f.first || !f.cptr || !f.kids || !f.bad || !f.top || !f.work || !f.map || !f.C ||
        build_updates(&f, snode))
        goto out;
    build_tree(&f, snode, size, threads);
    size_t c0, call;
    int maxrow = 0;
    workspace_sizes(&f, &c0, &call);
    for (int s = 0; s < ns; s++)
        maxrow = f.pi[s + 1] - f.pi[s] > maxrow ? f.pi[s + 1] - f.pi[s] : maxrow;
    for (int t = 0; t < threads; t++)
        if (!(f.map[t] = ep_malloc((size_t)n + 1 + (size_t)maxrow, sizeof **f.map)) ||
            !(f.C[t] = ep_malloc(t ? call : c0, sizeof **f.C)))
            goto out;
    ep_blas_threads blas = ep_blas_serial(); /* each tile's call on one thread */
    factor_phases(&f, threads);
    ep_blas_restore(blas);
    *minor = f.minor;
    L->minor = (size_t)f.minor;
    st = EP_OK;
out:
    for (int t = 0; t < threads && f.map && f.C; t++) {
        free(f.map[t]);
        free(f.C[t]);
    }
    free(f.map);
    free(f.C);
    free(f.uptr);
    free(f.up);
    free(f.first);
    free(f.cptr);
    free(f.kids);
    free(f.bad);
    free(f.top);
    free(f.work);
    free(snode);
    cholmod_free_sparse(&PA, c);
    return st;
}
