/*
 * team.c — a whole triangular solve of a narrow block shared by threads
 * (team.h says how the work is split), built on narrow.c's supernode
 * kernels and chol.c's restricted-solve plan.
 */
#include "team.h"
#include "chol.h"
#include "err.h"
#include "narrow.h"
#include "sort.h"

#include <assert.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* A light subtree's share of the factor's entries, at most: 1/16 leaves the
 * dragon's top separators heavy and a dozen or more subtrees to balance
 * over the threads. */
enum { LIGHT_SHARE = 16 };

/* t->xrows for light subtree i (root r, supernodes first .. r): rows of r's
 * columns or below as they are, the others (r's off-diagonal rows, a
 * superset of its subtree's) as rows n + boff[i] + their place in r's
 * list.  Returns 0, or -1 when a row is not in r's list (not an
 * elimination tree's factor). */
static int move_outside(ep_team_plan *t, int i)
{
    const cholmod_factor *L = t->p->L;
    const int *super = L->super, *pi = L->pi, *Ls = L->s;
    int r = t->light[i], end = super[r + 1], nr = pi[r + 1] - pi[r] - (end - super[r]);
    const int *R = Ls + pi[r] + (end - super[r]);
    for (int s = t->first[i]; s <= r; s++)
        for (int q = pi[s] + super[s + 1] - super[s]; q < pi[s + 1]; q++) {
            int row = Ls[q];
            if (row < end)
                continue;
            int lo = (int)EP_SORT_LOWER_BOUND(R, (size_t)nr, row); /* R ascending */
            if (lo == nr || R[lo] != row)
                return -1;
            t->xrows[q] = t->p->n + t->boff[i] + lo;
        }
    return 0;
}

int ep_team_plan_init(ep_team_plan *t, const ep_chol_rplan *p)
{
    const cholmod_factor *L = p->L;
    const int *super = L->super, *pi = L->pi, *Ls = L->s;
    int ns = p->nsuper, st = EP_ECOMPUTE, postorder = 1;
    memset(t, 0, sizeof *t);
    t->p = p;
    double *w = ep_calloc((size_t)ns + 1, sizeof *w), total = 0;
    int *first = ep_malloc((size_t)ns + 1, sizeof *first), *count = ep_calloc((size_t)ns + 1, sizeof *count);
    int *roots = ep_malloc((size_t)ns + 1, sizeof *roots);
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
            roots[nlight++] = s;
    }
    ep_sort_heaviest(roots, (size_t)nlight, w);
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
        int r = roots[i];
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
        ep_team_plan_free(t);
    return st;
}

void ep_team_plan_free(ep_team_plan *t)
{
    free(t->light); /* the block holding first, boff, heavy and xrows too */
    memset(t, 0, sizeof *t);
}

double *ep_team_work(const ep_team_plan *t, int k)
{
    return ep_malloc(((size_t)t->p->n + (size_t)t->nbuf) * (size_t)k, sizeof(double));
}

/* Columns c0 .. c0+3 of Z's rows of the light subtrees' outside rows +=
 * their rows after n, the subtrees in the plan's order (fixed: the sums'
 * order does not depend on the threads). */
static void add_outside(const ep_team_plan *t, double *Z, int k, int c0)
{
    const cholmod_factor *L = t->p->L;
    const int *super = L->super, *pi = L->pi, *Ls = L->s;
    size_t uk = (size_t)k;
    for (int i = 0; i < t->nlight; i++) {
        int r = t->light[i], nscol = super[r + 1] - super[r];
        for (int j = 0; j < pi[r + 1] - pi[r] - nscol; j++) {
            double *z = Z + (size_t)Ls[pi[r] + nscol + j] * uk + c0;
            const double *e = Z + ((size_t)t->p->n + (size_t)t->boff[i] + (size_t)j) * uk + c0;
            for (int c = 0; c < 4; c++)
                z[c] += e[c];
        }
    }
}

/* Thread me's share [*i0, *i1) of n items, in whole pieces of `piece`
 * (the transposes' tiles). */
static void share(int n, int piece, int me, int nth, int *i0, int *i1)
{
    int pieces = (n + piece - 1) / piece, g = (pieces + nth - 1) / nth;
    *i0 = me * g * piece < n ? me * g * piece : n;
    *i1 = (me + 1) * g * piece < n ? (me + 1) * g * piece : n;
}

double ep_team_solve(const ep_team_plan *t, const double *B, double *X, int k, double *work, int threads)
{
    const ep_chol_rplan *p = t->p;
    const cholmod_factor *L = p->L;
    const int *super = L->super, *pi = L->pi, *px = L->px, *Ls = L->s;
    const double *Lx = L->x;
    const int n = p->n;
    const size_t uk = (size_t)k;
    double *Z = work;
    assert(ep_narrow_takes(k));
#pragma omp parallel num_threads(threads)
    {
        int me = omp_get_thread_num(), nth = omp_get_num_threads(), a, b;
        share(n, EP_CHOL_TILE, me, nth, &a, &b);
        ep_chol_rgather(p, NULL, (size_t)n, 1.0, B, Z, k, a, b);
        share(t->nbuf, 1, me, nth, &a, &b);
        memset(Z + ((size_t)n + (size_t)a) * uk, 0, sizeof *Z * (size_t)(b - a) * uk);
#pragma omp barrier
        /* forward: the light subtrees whole */
#pragma omp for schedule(dynamic, 1)
        for (int i = 0; i < t->nlight; i++)
            for (int s = t->first[i]; s <= t->light[i]; s++) {
                int k1 = super[s], nscol = super[s + 1] - k1;
                ep_narrow_forward(k, k, nscol, pi[s + 1] - pi[s], Lx + px[s], t->xrows + pi[s] + nscol,
                                  Z + (size_t)k1 * uk, Z);
            }
        /* the subtrees' outside rows added, then the heavy supernodes
         * forward and back, by groups of 4 columns: no group waits for
         * another */
#pragma omp for schedule(static, 1)
        for (int g = 0; g < k / 4; g++) {
            add_outside(t, Z, k, 4 * g);
            for (int h = 0; h < t->nheavy; h++) {
                int s = t->heavy[h], k1 = super[s], nscol = super[s + 1] - k1;
                ep_narrow_forward(4, k, nscol, pi[s + 1] - pi[s], Lx + px[s], Ls + pi[s] + nscol,
                                  Z + (size_t)k1 * uk + 4 * g, Z + 4 * g);
            }
            for (int h = t->nheavy - 1; h >= 0; h--) {
                int s = t->heavy[h], k1 = super[s], nscol = super[s + 1] - k1;
                ep_narrow_backward(4, k, nscol, pi[s + 1] - pi[s], Lx + px[s], Ls + pi[s] + nscol,
                                   Z + (size_t)k1 * uk + 4 * g, Z + 4 * g);
            }
        }
        /* backward: the light subtrees whole (the rows above are final) */
#pragma omp for schedule(dynamic, 1)
        for (int i = 0; i < t->nlight; i++)
            for (int s = t->light[i]; s >= t->first[i]; s--) {
                int k1 = super[s], nscol = super[s + 1] - k1;
                ep_narrow_backward(k, k, nscol, pi[s + 1] - pi[s], Lx + px[s], Ls + pi[s] + nscol,
                                   Z + (size_t)k1 * uk, Z);
            }
        share(n, EP_CHOL_TILE, me, nth, &a, &b);
        ep_chol_rscatter(p, NULL, (size_t)n, Z, X, k, a, b);
    }
    return t->flops * k;
}
