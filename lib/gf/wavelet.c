/*
 * wavelet.c — lifted linear and Butterfly wavelets on subdivision surfaces
 * (MATH.md §8; 000 §3.1.3–3.1.5).  See wavelet.h.
 *
 * The filters are built on the hierarchy's coarse triangles, recovered level
 * by level from the finest triangles: 1-to-4 subdivision leaves one "centre"
 * triangle (x, y, z) of odd vertices per coarse triangle (a, b, c), and the
 * parents of its vertices name the coarse corners.  Butterfly stencils and the
 * nearest-aunt fallback look up opposite vertices of coarse edges there.
 */
#include "wavelet.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "halfedge.h"
#include "sort.h"

/* ---- coarse triangles and opposite vertices ------------------------------ */

/* The triangles of one level and their directed sides (halfedge.h). */
typedef struct {
    const int *tri;
    const ep_dedge *e;
    long ne;
} level_edges;

/* Opposite vertex of directed edge u -> v: the third corner of the
 * triangle it leaves from, or -1. */
static int opposite(const level_edges *le, int u, int v)
{
    long i = u < 0 || v < 0 ? -1 : ep_halfedge_directed_find(le->e, le->ne, u, v);
    if (i < 0)
        return -1;
    long c = le->e[i].corner;
    return le->tri[3 * (c / 3) + (c % 3 + 2) % 3];
}

static int common_parent(const int *par, int x, int y)
{
    const int *p = &par[2 * x], *q = &par[2 * y];
    for (int i = 0; i < 2; i++)
        if (p[i] == q[0] || p[i] == q[1])
            return p[i];
    return -1;
}

/* The triangles of level j from those of level j + 1 (centre triangles);
 * *nc receives their count.  NULL with EP_EINPUT recorded when the level data
 * is not 1-to-4 subdivision connectivity. */
static int *coarsen(const ep_mesh *h, const int *fine, int nfine, int j, int *nc, int *status)
{
    int *c = ep_malloc((size_t)nfine / 4 + 1, 3 * sizeof *c), k = 0;
    *status = EP_ECOMPUTE;
    if (!c)
        return NULL;
    for (int t = 0; t < nfine; t++) {
        const int *f = &fine[3 * t];
        if (h->level[f[0]] != j + 1 || h->level[f[1]] != j + 1 || h->level[f[2]] != j + 1)
            continue;
        if (k == nfine / 4)
            goto bad;
        int a = common_parent(h->parents, f[0], f[2]), b = common_parent(h->parents, f[0], f[1]),
            d = common_parent(h->parents, f[1], f[2]);
        if (a < 0 || b < 0 || d < 0 || a == b || b == d || a == d)
            goto bad;
        c[3 * k] = a;
        c[3 * k + 1] = b;
        c[3 * k + 2] = d;
        k++;
    }
    if (4 * k != nfine)
        goto bad;
    *nc = k;
    *status = EP_OK;
    return c;
bad:
    free(c);
    *status = ep_fail(EP_EINPUT, "%s: the level data does not describe 1-to-4 subdivision at level %d "
                      "(make the surface with loopsub)", h->source, j + 1);
    return NULL;
}

/* ---- filters ---------------------------------------------------------------- */

static double dist2(const double *x, const double *y)
{
    double d0 = x[0] - y[0], d1 = x[1] - y[1], d2 = x[2] - y[2];
    return d0 * d0 + d1 * d1 + d2 * d2;
}

/* Predict stencil of odd vertex v in domain d (000 §3.1.3, §3.1.5): Butterfly
 * when all eight points are in the domain, else linear, else the single aunt,
 * else the nearest opposite vertex of the coarse edge, else nothing.
 * Returns the stencil length; sv/sw receive vertex ids and weights. */
static int predict_stencil(const ep_mesh *h, const level_edges *le, const int *vdom, int d, int v,
                           ep_wavelet_kind kind, int sv[8], double sw[8])
{
    int p1 = h->parents[2 * v], p2 = h->parents[2 * v + 1];
    int f1 = opposite(le, p1, p2), f2 = opposite(le, p2, p1);
#define IN(x) ((x) >= 0 && vdom[x] == d)
    if (kind == EP_WAVELET_BUTTERFLY) {
        int pts[8] = {p1, p2, f1, f2, opposite(le, f1, p2), opposite(le, p1, f1), opposite(le, f2, p1),
                      opposite(le, p2, f2)};
        static const double w[8] = {0.5, 0.5, 0.125, 0.125, -0.0625, -0.0625, -0.0625, -0.0625};
        int ok = 1;
        for (int i = 0; i < 8; i++)
            ok = ok && IN(pts[i]);
        if (ok) {
            memcpy(sv, pts, sizeof pts);
            memcpy(sw, w, sizeof w);
            return 8;
        }
    }
    if (IN(p1) && IN(p2)) {
        sv[0] = p1, sv[1] = p2, sw[0] = sw[1] = 0.5;
        return 2;
    }
    if (IN(p1) || IN(p2)) {
        sv[0] = IN(p1) ? p1 : p2, sw[0] = 1;
        return 1;
    }
    const double *x = &h->vertices[3 * v];
    int best = -1;
    if (IN(f1))
        best = f1;
    if (IN(f2) && (best < 0 || dist2(x, &h->vertices[3 * f2]) < dist2(x, &h->vertices[3 * best])))
        best = f2;
    if (best < 0)
        return 0;
    sv[0] = best, sw[0] = 1;
    return 1;
#undef IN
}

/* What the phases of ep_wavelet_build share. */
typedef struct {
    const ep_mesh *h;       /* the hierarchy */
    const int *row_vertex;  /* [n] */
    int L;                  /* finest level */
    int *vdom, *vslot;      /* [h->nv] domain and slot of the vertex of each row, else -1 */
    double *I;              /* [n] scaling-function integrals in slot order */
} build;

/* Slots: rows bucketed by (domain, level), stable in row order; the finest
 * integrals are the rows' hat areas.  O(n + nv). */
static int assign_slots(ep_wavelet *W, build *b, const int8_t *row_domain, const double *row_area, int ndom)
{
    const ep_mesh *h = b->h;
    int n = W->n, L = b->L, *count = ep_calloc((size_t)ndom * (L + 1) + 1, sizeof *count);
    if (!count)
        return EP_ECOMPUTE;
    for (int v = 0; v < h->nv; v++)
        b->vdom[v] = b->vslot[v] = -1;
    for (int r = 0; r < n; r++) {
        b->vdom[b->row_vertex[r]] = row_domain[r];
        count[row_domain[r] * (L + 1) + h->level[b->row_vertex[r]] + 1]++;
    }
    for (int k = 1; k <= ndom * (L + 1); k++)
        count[k] += count[k - 1];
    for (int r = 0; r < n; r++) {
        int v = b->row_vertex[r], s = count[row_domain[r] * (L + 1) + h->level[v]]++;
        W->slot_row[s] = r;
        W->row_slot[r] = s;
        W->slot_level[s] = h->level[v];
        b->vslot[v] = s;
        b->I[s] = row_area[r];
    }
    free(count);
    return EP_OK;
}

/* Predict stencils in slot order: an odd vertex of level j + 1 looks up the
 * coarse edges of level j, whose triangles are found level by level from
 * the finest.  O(nf log nf) for the edge tables. */
static int predict_filters(ep_wavelet *W, const build *b, ep_wavelet_kind kind)
{
    const ep_mesh *h = b->h;
    int L = b->L, st = EP_ECOMPUTE, **tri = ep_calloc((size_t)L + 1, sizeof *tri);
    int *ntri = ep_calloc((size_t)L + 1, sizeof *ntri);
    ep_dedge **e = ep_calloc((size_t)L + 1, sizeof *e);
    if (!tri || !ntri || !e)
        goto out;
    tri[L] = h->triangles, ntri[L] = h->nf;
    for (int j = L - 1; j >= 0; j--)
        if (!(tri[j] = coarsen(h, tri[j + 1], ntri[j + 1], j, &ntri[j], &st)))
            goto out;
    st = EP_ECOMPUTE;
    for (int j = 0; j < L; j++)
        if (!(e[j] = ep_halfedge_directed(tri[j], ntri[j])))
            goto out;
    for (int s = 0, np = 0; s < W->n; s++) {
        int v = b->row_vertex[W->slot_row[s]], j = W->slot_level[s] - 1, sv[8], k = 0;
        double sw[8];
        if (j >= 0) {
            level_edges le = {tri[j], e[j], 3 * (long)ntri[j]};
            k = predict_stencil(h, &le, b->vdom, b->vdom[v], v, kind, sv, sw);
        }
        for (int i = 0; i < k; i++, np++)
            W->pred_slot[np] = b->vslot[sv[i]], W->pred_w[np] = sw[i];
        W->pred_ptr[s + 1] = np;
    }
    st = EP_OK;
out:
    for (int j = 0; tri && e && j < L; j++)
        free(tri[j]), free(e[j]);
    free(tri), free(ntri), free(e);
    return st;
}

/* Integrals by the refinement relation (000 eq. 3.34), coarse levels from
 * fine, and with lifted wavelets the lifting weights against the level-j
 * integrals of the aunts (eqs. 3.33, 3.39).  O(n L). */
static void lift_filters(ep_wavelet *W, const build *b, int lifted)
{
    const ep_mesh *h = b->h;
    int n = W->n;
    double *I = b->I;
    for (int s = 0; s < 2 * n; s++)
        W->lift_slot[s] = -1;
    for (int j = b->L - 1; j >= 0; j--) {
        for (int s = 0; s < n; s++)
            if (W->slot_level[s] == j + 1)
                for (int i = W->pred_ptr[s]; i < W->pred_ptr[s + 1]; i++)
                    I[W->pred_slot[i]] += W->pred_w[i] * I[s];
        if (!lifted)
            continue;
        for (int s = 0; s < n; s++) {
            if (W->slot_level[s] != j + 1)
                continue;
            int v = b->row_vertex[W->slot_row[s]], a[2], na = 0;
            for (int i = 0; i < 2; i++) {
                int p = h->parents[2 * v + i];
                if (b->vdom[p] == b->vdom[v] && I[b->vslot[p]] > 0)
                    a[na++] = b->vslot[p];
            }
            for (int i = 0; i < na; i++) {
                W->lift_slot[2 * s + i] = a[i];
                W->lift_w[2 * s + i] = I[s] / (na * I[a[i]]);
            }
        }
    }
}

int ep_wavelet_build(ep_wavelet *W, const ep_mesh *h, int n, const int *row_vertex, const int8_t *row_domain,
                     const double *row_area, ep_wavelet_kind kind, int lifted)
{
    build b = {.h = h, .row_vertex = row_vertex};
    int st = EP_ECOMPUTE, ndom = 0;
    memset(W, 0, sizeof *W);
    for (int v = 0; v < h->nv; v++)
        b.L = h->level[v] > b.L ? h->level[v] : b.L;
    for (int r = 0; r < n; r++)
        ndom = row_domain[r] + 1 > ndom ? row_domain[r] + 1 : ndom;
    W->n = n;
    W->nlevels = b.L + 1;
    if ((b.vdom = ep_malloc((size_t)h->nv, sizeof *b.vdom)) && (b.vslot = ep_malloc((size_t)h->nv, sizeof *b.vslot)) &&
        (b.I = ep_malloc((size_t)n + 1, sizeof *b.I)) && (W->slot_row = ep_malloc((size_t)n, sizeof(int))) &&
        (W->row_slot = ep_malloc((size_t)n, sizeof(int))) && (W->slot_level = ep_malloc((size_t)n, 1)) &&
        (W->pred_ptr = ep_calloc((size_t)n + 1, sizeof(int))) &&
        (W->pred_slot = ep_malloc((size_t)8 * n + 1, sizeof(int))) &&
        (W->pred_w = ep_malloc((size_t)8 * n + 1, sizeof(double))) &&
        (W->lift_slot = ep_malloc((size_t)2 * n + 1, sizeof(int))) &&
        (W->lift_w = ep_calloc((size_t)2 * n + 1, sizeof(double))) &&
        !(st = assign_slots(W, &b, row_domain, row_area, ndom)) && !(st = predict_filters(W, &b, kind))) {
        lift_filters(W, &b, lifted);
        st = ep_wavelet_index(W);
    }
    free(b.I), free(b.vdom), free(b.vslot);
    if (st)
        ep_wavelet_free(W);
    return st;
}

int ep_wavelet_index(ep_wavelet *W)
{
    int n = W->n, nl = W->nlevels;
    if (!(W->level_ptr = ep_calloc((size_t)nl + 2, sizeof(int))) ||
        !(W->by_level = ep_malloc((size_t)n + 1, sizeof(int))) ||
        !(W->kid_ptr = ep_calloc((size_t)n + 2, sizeof(int))))
        return EP_ECOMPUTE;
    for (int s = 0; s < n; s++) {
        int l = W->slot_level[s];
        if (l < 0 || l >= nl)
            return ep_fail(EP_EINPUT, "wavelet slot %d: level %d out of range", s, l);
        if (W->slot_row[s] < 0 || W->slot_row[s] >= n || W->row_slot[W->slot_row[s]] != s)
            return ep_fail(EP_EINPUT, "wavelet slot %d: slot order is not a permutation of the rows", s);
        if (W->pred_ptr[s + 1] < W->pred_ptr[s] || (l == 0 && W->pred_ptr[s + 1] != W->pred_ptr[s]))
            return ep_fail(EP_EINPUT, "wavelet slot %d: bad predict stencil", s);
        for (int i = W->pred_ptr[s]; i < W->pred_ptr[s + 1]; i++) {
            int p = W->pred_slot[i];
            if (p < 0 || p >= n || W->slot_level[p] >= l || !isfinite(W->pred_w[i]))
                return ep_fail(EP_EINPUT, "wavelet slot %d: predict stencil names slot %d", s, p);
        }
        for (int i = 0; i < 2; i++) {
            int p = W->lift_slot[2 * s + i];
            if (p < -1 || p >= n || (p >= 0 && W->slot_level[p] >= l) || !isfinite(W->lift_w[2 * s + i]))
                return ep_fail(EP_EINPUT, "wavelet slot %d: lifting names slot %d", s, p);
            if (p >= 0)
                W->kid_ptr[p + 2]++;
        }
        W->level_ptr[l + 2]++;
    }
    for (int l = 2; l <= nl + 1; l++)
        W->level_ptr[l] += W->level_ptr[l - 1];
    for (int s = 0; s < n; s++)
        W->by_level[W->level_ptr[W->slot_level[s] + 1]++] = s;
    for (int s = 2; s <= n + 1; s++)
        W->kid_ptr[s] += W->kid_ptr[s - 1];
    int nk = W->kid_ptr[n + 1];
    if (!(W->kid_slot = ep_malloc((size_t)nk + 1, sizeof(int))) ||
        !(W->kid_w = ep_malloc((size_t)nk + 1, sizeof(double))))
        return EP_ECOMPUTE;
    /* Visit kids coarse to fine so each slot's kid list is sorted by level. */
    for (int q = 0; q < n; q++) {
        int s = W->by_level[q];
        for (int i = 0; i < 2; i++) {
            int p = W->lift_slot[2 * s + i];
            if (p >= 0) {
                int at = W->kid_ptr[p + 1]++;
                W->kid_slot[at] = s;
                W->kid_w[at] = W->lift_w[2 * s + i];
            }
        }
    }
    return EP_OK;
}

void ep_wavelet_free(ep_wavelet *W)
{
    free(W->slot_row), free(W->row_slot), free(W->slot_level);
    free(W->pred_ptr), free(W->pred_slot), free(W->pred_w);
    free(W->lift_slot), free(W->lift_w);
    free(W->by_level), free(W->level_ptr), free(W->kid_ptr), free(W->kid_slot), free(W->kid_w);
    memset(W, 0, sizeof *W);
}

/* ---- transforms ------------------------------------------------------------- */

/* x[s] += sign * prediction of slot s (000 eqs. 3.27: sign -1, analysis;
 * 3.28: sign +1, synthesis). */
static void predict_slot(const ep_wavelet *W, int s, int width, double *x, double sign)
{
    double *restrict y = &x[(size_t)s * width]; /* a stencil holds coarser slots, never s */
    for (int i = W->pred_ptr[s]; i < W->pred_ptr[s + 1]; i++) {
        const double *restrict p = &x[(size_t)W->pred_slot[i] * width];
        double w = sign * W->pred_w[i];
#pragma omp simd
        for (int c = 0; c < width; c++)
            y[c] += w * p[c];
    }
}

/* predict_slot for the odd slots of level l. */
static void predict(const ep_wavelet *W, int l, int width, double *x, double sign)
{
    for (int q = W->level_ptr[l]; q < W->level_ptr[l + 1]; q++)
        predict_slot(W, W->by_level[q], width, x, sign);
}

/* The aunts of the odd slots of level l take sign * s * gamma (000 eq. 3.35:
 * sign +1, analysis; 3.36: sign -1, synthesis). */
static void lift(const ep_wavelet *W, int l, int width, double *x, double sign)
{
    for (int q = W->level_ptr[l]; q < W->level_ptr[l + 1]; q++) {
        int s = W->by_level[q];
        for (int i = 0; i < 2 && W->lift_slot[2 * s + i] >= 0; i++) {
            double *p = &x[(size_t)W->lift_slot[2 * s + i] * width], w = sign * W->lift_w[2 * s + i];
            for (int c = 0; c < width; c++)
                p[c] += w * x[(size_t)s * width + c];
        }
    }
}

void ep_wavelet_forward(const ep_wavelet *W, int width, double *x)
{
    assert(width > 0);
    for (int l = W->nlevels - 1; l >= 1; l--) { /* fine to coarse: predict, then lift */
        predict(W, l, width, x, -1);
        lift(W, l, width, x, +1);
    }
}

void ep_wavelet_inverse(const ep_wavelet *W, int width, double *x)
{
    assert(width > 0);
    for (int l = 1; l < W->nlevels; l++) { /* coarse to fine: undo the lift, then predict */
        lift(W, l, width, x, -1);
        predict(W, l, width, x, +1);
    }
}

void ep_wavelet_to_slots(const ep_wavelet *W, int width, const double *x, double *y)
{
    for (int s = 0; s < W->n; s++)
        memcpy(&y[(size_t)s * width], &x[(size_t)W->slot_row[s] * width], width * sizeof *y);
}

void ep_wavelet_to_rows(const ep_wavelet *W, int width, const double *y, double *x)
{
    for (int s = 0; s < W->n; s++)
        memcpy(&x[(size_t)W->slot_row[s] * width], &y[(size_t)s * width], width * sizeof *x);
}

/* ---- selective reconstruction ------------------------------------------------ */

int ep_wavelet_ws_init(ep_wavelet_ws *ws, const ep_wavelet *W, int width)
{
    memset(ws, 0, sizeof *ws);
    ws->stamp = 1;
    ws->width = width;
    ws->mark = ep_calloc((size_t)W->n + 1, sizeof *ws->mark);
    ws->base = ep_malloc((size_t)W->n + 1, width * sizeof *ws->base);
    if (!ws->mark || !ws->base) {
        ep_wavelet_ws_free(ws);
        return EP_ECOMPUTE;
    }
    return EP_OK;
}

void ep_wavelet_ws_free(ep_wavelet_ws *ws)
{
    free(ws->mark), free(ws->base);
    ws->mark = NULL, ws->base = NULL;
}

typedef struct synth {
    const ep_wavelet *W;
    int (*coef)(void *, int, double *);
    void *ctx;
    ep_wavelet_ws *ws;
} synth;

/* Subtract the lifting of slot s by its kids of level <= upto (all: upto =
 * nlevels): undoing 000 eq. 3.35 for the synthesis steps up to that level. */
static void unlift(const synth *S, int s, int upto, double *v)
{
    const ep_wavelet *W = S->W;
    int w = S->ws->width;
    double g[16];
    for (int i = W->kid_ptr[s]; i < W->kid_ptr[s + 1] && W->slot_level[W->kid_slot[i]] <= upto; i++)
        if (S->coef(S->ctx, W->kid_slot[i], g))
            for (int c = 0; c < w; c++)
                v[c] -= W->kid_w[i] * g[c];
}

/* Value of slot s at its own level: its coefficient plus the prediction from
 * the coarser values of its stencil at that level (000 eq. 3.28). */
static const double *base_value(const synth *S, int s)
{
    const ep_wavelet *W = S->W;
    ep_wavelet_ws *ws = S->ws;
    int w = ws->width, l = W->slot_level[s];
    double *b = &ws->base[(size_t)s * w];
    if (ws->mark[s] == ws->stamp)
        return b;
    if (!S->coef(S->ctx, s, b))
        memset(b, 0, w * sizeof *b);
    for (int i = W->pred_ptr[s]; i < W->pred_ptr[s + 1]; i++) {
        double v[16];
        int k = W->pred_slot[i];
        memcpy(v, base_value(S, k), w * sizeof *v);
        unlift(S, k, l, v);
        for (int c = 0; c < w; c++)
            b[c] += W->pred_w[i] * v[c];
    }
    ws->mark[s] = ws->stamp;
    return b;
}

void ep_wavelet_value_at(const ep_wavelet *W, int slot, int (*coef)(void *ctx, int slot, double *out),
                         void *ctx, ep_wavelet_ws *ws, double *out)
{
    synth S = {W, coef, ctx, ws};
    if (++ws->stamp == 0) { /* wrapped: clear the memo */
        memset(ws->mark, 0, (size_t)W->n * sizeof *ws->mark);
        ws->stamp = 1;
    }
    memcpy(out, base_value(&S, slot), ws->width * sizeof *out);
    unlift(&S, slot, W->nlevels, out);
}

/* ---- partial synthesis ------------------------------------------------------------ */

int ep_wavelet_subset_init(ep_wavelet_subset *u, const ep_wavelet *W)
{
    memset(u, 0, sizeof *u);
    u->slot = ep_malloc((size_t)W->n + 1, sizeof *u->slot);
    u->lev = ep_malloc((size_t)W->nlevels + 2, sizeof *u->lev);
    u->in = ep_calloc((size_t)W->n + 1, 1);
    u->reach = ep_calloc((size_t)W->n + 1, 1);
    u->next = ep_malloc((size_t)W->n + 1, sizeof *u->next);
    u->seen = ep_calloc((size_t)W->n + 1, 1);
    return u->slot && u->lev && u->in && u->reach && u->next && u->seen ? EP_OK : EP_ECOMPUTE;
}

void ep_wavelet_subset_free(ep_wavelet_subset *u)
{
    free(u->slot), free(u->lev), free(u->in), free(u->reach), free(u->next), free(u->seen);
    memset(u, 0, sizeof *u);
}

/* reach[] over the closure slot[0 .. n) and their kids set to v. */
static void mark_reach(ep_wavelet_subset *u, const ep_wavelet *W, char v)
{
    for (int k = 0; k < u->n; k++) {
        int t = u->slot[k];
        u->reach[t] = v;
        for (int i = W->kid_ptr[t]; i < W->kid_ptr[t + 1]; i++)
            u->reach[W->kid_slot[i]] = v;
    }
}

void ep_wavelet_subset_set(ep_wavelet_subset *u, const ep_wavelet *W, const int *slots, int nk)
{
    mark_reach(u, W, 0);
    for (int k = 0; k < u->n; k++)
        u->in[u->slot[k]] = 0;
    u->n = 0;
    for (int k = 0; k < nk; k++)
        if (!u->in[slots[k]])
            u->in[slots[k]] = 1, u->slot[u->n++] = slots[k];
    for (int k = 0; k < u->n; k++) /* the list grows as stencils are added */
        for (int i = W->pred_ptr[u->slot[k]]; i < W->pred_ptr[u->slot[k] + 1]; i++)
            if (!u->in[W->pred_slot[i]])
                u->in[W->pred_slot[i]] = 1, u->slot[u->n++] = W->pred_slot[i];
    /* coarse to fine: a counting sort by level */
    int L = W->nlevels;
    memset(u->lev, 0, ((size_t)L + 2) * sizeof *u->lev);
    for (int k = 0; k < u->n; k++)
        u->lev[W->slot_level[u->slot[k]] + 1]++;
    for (int l = 0; l < L; l++)
        u->lev[l + 1] += u->lev[l];
    int *at = u->next; /* placed through next (scratch): O(closure), where a pass over by_level is O(n) */
    for (int k = 0; k < u->n; k++)
        at[k] = u->slot[k];
    for (int k = 0; k < u->n; k++)
        u->slot[u->lev[W->slot_level[at[k]]]++] = at[k];
    for (int l = L; l > 0; l--) /* lev[l] now ends level l: shift back */
        u->lev[l] = u->lev[l - 1];
    u->lev[0] = 0;
    mark_reach(u, W, 1);
}

void ep_wavelet_subset_inverse(const ep_wavelet *W, ep_wavelet_subset *u, int width, double *x, const char *nz)
{
    int *next = u->next; /* each closure slot's next kid: kids run coarse to fine */
    for (int k = 0; k < u->n; k++)
        next[k] = W->kid_ptr[u->slot[k]];
    for (int l = 1; l < W->nlevels; l++) {
        /* undo level l's lift at the coarser closure slots (their kids' raw
         * coefficients), then predict level l's closure slots */
        for (int k = 0; k < u->lev[l]; k++) {
            int t = u->slot[k], i = next[k], end = W->kid_ptr[t + 1];
            double *restrict y = &x[(size_t)t * width];
            for (; i < end && W->slot_level[W->kid_slot[i]] <= l; i++) {
                if (nz && !nz[W->kid_slot[i]])
                    continue; /* most of a compressed column's coefficients are zero */
                const double *restrict g = &x[(size_t)W->kid_slot[i] * width]; /* a kid is not t */
                double w = W->kid_w[i];
#pragma omp simd
                for (int c = 0; c < width; c++)
                    y[c] -= w * g[c];
            }
            next[k] = i;
        }
        for (int k = u->lev[l]; k < u->lev[l + 1]; k++)
            predict_slot(W, u->slot[k], width, x, +1);
    }
}

/* y[s] += a, s listed in nz at its first touch (seen: zero between calls). */
static void add_weight(char *seen, int s, double a, double *y, int *nz, int *nw)
{
    if (!seen[s])
        seen[s] = 1, nz[(*nw)++] = s;
    y[s] += a;
}

int ep_wavelet_row_weights(const ep_wavelet *W, ep_wavelet_subset *u, int slot, double *y, int *nz, double *w)
{
    int nw = 0, *next = u->next;
    char *seen = u->seen;
    ep_wavelet_subset_set(u, W, &slot, 1);
    add_weight(seen, slot, 1, y, nz, &nw);
    for (int k = 0; k < u->n; k++) /* each closure slot's kids, taken from the finest back */
        next[k] = W->kid_ptr[u->slot[k] + 1];
    /* ep_wavelet_subset_inverse transposed: fine to coarse, level l's
     * predict (y of a closure slot to its stencil), then its lift undone
     * (y of a coarser closure slot to its kids of level l) */
    for (int l = W->nlevels - 1; l >= 1; l--) {
        for (int k = u->lev[l]; k < u->lev[l + 1]; k++) {
            int t = u->slot[k];
            for (int i = W->pred_ptr[t]; i < W->pred_ptr[t + 1] && y[t] != 0; i++)
                add_weight(seen, W->pred_slot[i], W->pred_w[i] * y[t], y, nz, &nw);
        }
        for (int k = 0; k < u->lev[l]; k++) {
            int t = u->slot[k], i = next[k];
            for (; i > W->kid_ptr[t] && W->slot_level[W->kid_slot[i - 1]] >= l; i--)
                if (y[t] != 0)
                    add_weight(seen, W->kid_slot[i - 1], -W->kid_w[i - 1] * y[t], y, nz, &nw);
            next[k] = i;
        }
    }
    ep_sort_ints(nz, (size_t)nw); /* ascending: the look-ups walk each column forward */
    for (int i = 0; i < nw; i++)
        w[i] = y[nz[i]], y[nz[i]] = 0, seen[nz[i]] = 0;
    return nw;
}

void ep_wavelet_hat(const ep_mesh *h, int l, int k, double *hat)
{
    memset(hat, 0, (size_t)h->nv * sizeof *hat);
    hat[k] = 1;
    for (int v = 0; v < h->nv; v++)
        if (h->level[v] > l)
            hat[v] = 0.5 * (hat[h->parents[2 * v]] + hat[h->parents[2 * v + 1]]);
}
