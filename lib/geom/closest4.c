/*
 * closest4.c — exact closest-triangle queries on a 4-wide box hierarchy
 * (closest4.h).
 */
#define _GNU_SOURCE /* qsort_r */
#include "closest4.h"
#include "err.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const ep_closest *c;
    ep_closest4 *w;
} builder;

static double area(const ep_closest_node *n)
{
    double e0 = n->hi[0] - n->lo[0], e1 = n->hi[1] - n->lo[1], e2 = n->hi[2] - n->lo[2];
    return e0 * e1 + e1 * e2 + e2 * e0;
}

/* The leaf of binary leaf b: its triangles' corners, the last repeated,
 * and what the test would otherwise divide by. */
static int make_leaf(builder *B, const ep_closest_node *b)
{
    const ep_closest *c = B->c;
    int id = B->w->nleaves++;
    ep_closest4_leaf *l = &B->w->leaf[id];
    for (int k = 0; k < 4; k++) {
        int t = c->perm[b->first + (k < b->count ? k : b->count - 1)];
        l->tri[k] = t;
        for (int v = 0; v < 3; v++)
            for (int a = 0; a < 3; a++)
                l->v[3 * v + a][k] = c->x[3 * c->tri[3 * t + v] + a];
        double ab[3], bc[3], ca[3], n[3];
        for (int a = 0; a < 3; a++) {
            ab[a] = l->v[3 + a][k] - l->v[a][k];
            bc[a] = l->v[6 + a][k] - l->v[3 + a][k];
            ca[a] = l->v[a][k] - l->v[6 + a][k];
        }
        /* n = ab x ac = ca x ab */
        n[0] = ca[1] * ab[2] - ca[2] * ab[1];
        n[1] = ca[2] * ab[0] - ca[0] * ab[2];
        n[2] = ca[0] * ab[1] - ca[1] * ab[0];
        double ab2 = ab[0] * ab[0] + ab[1] * ab[1] + ab[2] * ab[2], bc2 = bc[0] * bc[0] + bc[1] * bc[1] + bc[2] * bc[2],
               ca2 = ca[0] * ca[0] + ca[1] * ca[1] + ca[2] * ca[2], nn = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
        for (int a = 0; a < 3; a++)
            l->n[a][k] = n[a];
        /* no face region when sin(angle at a)^2 <= 1e-12 (closest4.h) */
        l->inv[0][k] = ab2 > 0 ? 1 / ab2 : 0;
        l->inv[1][k] = bc2 > 0 ? 1 / bc2 : 0;
        l->inv[2][k] = ca2 > 0 ? 1 / ca2 : 0;
        l->inv[3][k] = nn > 1e-12 * ab2 * ca2 ? 1 / nn : 0;
    }
    return id;
}

/* The wide node of binary inner node b: its two children, then the
 * children of the inner child of largest box area, until eight. */
static int collapse(builder *B, int b)
{
    const ep_closest_node *bn = B->c->node;
    int kid[8] = {bn[b].left, bn[b].right}, nk = 2;
    while (nk < 8) {
        int pick = -1;
        double best = -1;
        for (int i = 0; i < nk; i++)
            if (!bn[kid[i]].count && area(&bn[kid[i]]) > best) {
                best = area(&bn[kid[i]]);
                pick = i;
            }
        if (pick < 0)
            break;
        int in = kid[pick];
        kid[pick] = bn[in].left;
        kid[nk++] = bn[in].right;
    }
    int id = B->w->nnodes++;
    for (int i = 0; i < 8; i++) {
        int child = 0;
        if (i < nk)
            child = bn[kid[i]].count ? -1 - make_leaf(B, &bn[kid[i]]) : collapse(B, kid[i]);
        ep_closest4_node *n = &B->w->node[id]; /* node[] does not move */
        n->child[i] = i < nk ? child : 0;
        for (int a = 0; a < 3; a++) {
            n->lo[a][i] = i < nk ? bn[kid[i]].lo[a] : INFINITY;
            n->hi[a][i] = i < nk ? bn[kid[i]].hi[a] : -INFINITY;
        }
    }
    return id;
}

/* ---- binned SAH build of the binary tree ------------------------------------------ */

#define BINS 16
#define SAH_DEPTH 48 /* deeper: median splits, so the depth stays below SAH_DEPTH + log2(nt) */

typedef struct {
    ep_closest *c;  /* the binary tree being built (closest.h's nodes) */
    const double *tb; /* [nt][6] triangle boxes (lo, hi) */
    const double *cen; /* [nt][3] box centres */
} sah_ctx;

/* Box (lo, hi) grown to hold box (blo, bhi); empty: lo = +inf, hi = -inf. */
static void grow(double *lo, double *hi, const double *blo, const double *bhi)
{
    for (int a = 0; a < 3; a++) {
        lo[a] = fmin(lo[a], blo[a]);
        hi[a] = fmax(hi[a], bhi[a]);
    }
}

static void empty(double *lo, double *hi)
{
    for (int a = 0; a < 3; a++) {
        lo[a] = INFINITY;
        hi[a] = -INFINITY;
    }
}

static double half_area(const double *lo, const double *hi)
{
    double e0 = hi[0] - lo[0], e1 = hi[1] - lo[1], e2 = hi[2] - lo[2];
    return e0 * e1 + e1 * e2 + e2 * e0;
}

static int cmp_key(const void *x, const void *y, void *arg)
{
    const double *k = arg;
    double a = k[*(const int *)x], b = k[*(const int *)y];
    return (a > b) - (a < b);
}

/* Node of perm[first .. first + count): a leaf of up to 4 triangles, else
 * split at the best of 15 bin boundaries on each axis by the surface area
 * heuristic (median split when every centre is at one place, or deep). */
static int sah(sah_ctx *S, int first, int count, int depth, double *key)
{
    ep_closest *c = S->c;
    int id = c->nnodes++, *perm = c->perm;
    ep_closest_node *n = &c->node[id];
    double clo[3], chi[3]; /* the box of the centres */
    empty(n->lo, n->hi);
    empty(clo, chi);
    for (int i = first; i < first + count; i++) {
        grow(n->lo, n->hi, &S->tb[6 * perm[i]], &S->tb[6 * perm[i] + 3]);
        grow(clo, chi, &S->cen[3 * perm[i]], &S->cen[3 * perm[i]]);
    }
    n->first = first;
    n->count = count;
    if (count <= 4)
        return id;
    int axis = -1, split = 0;
    double best = INFINITY;
    for (int a = 0; a < 3 && depth < SAH_DEPTH; a++) {
        double ext = chi[a] - clo[a];
        if (!(ext > 0))
            continue;
        int cnt[BINS] = {0};
        double blo[BINS][3], bhi[BINS][3], rarea[BINS];
        for (int b = 0; b < BINS; b++)
            empty(blo[b], bhi[b]);
        for (int i = first; i < first + count; i++) {
            int b = (int)((S->cen[3 * perm[i] + a] - clo[a]) / ext * BINS);
            b = b < 0 ? 0 : b >= BINS ? BINS - 1 : b;
            cnt[b]++;
            grow(blo[b], bhi[b], &S->tb[6 * perm[i]], &S->tb[6 * perm[i] + 3]);
        }
        double lo[3], hi[3];
        int rc[BINS], nr = 0;
        empty(lo, hi);
        for (int b = BINS - 1; b > 0; b--) { /* right side of boundary b: bins b .. */
            if (cnt[b])
                grow(lo, hi, blo[b], bhi[b]);
            nr += cnt[b];
            rc[b] = nr;
            rarea[b] = nr ? half_area(lo, hi) : 0;
        }
        empty(lo, hi);
        int nl = 0;
        for (int b = 1; b < BINS; b++) { /* left of boundary b: bins .. b-1 */
            if (cnt[b - 1])
                grow(lo, hi, blo[b - 1], bhi[b - 1]);
            nl += cnt[b - 1];
            if (!nl || !rc[b])
                continue;
            double cost = half_area(lo, hi) * nl + rarea[b] * rc[b];
            if (cost < best) {
                best = cost;
                axis = a;
                split = b;
            }
        }
    }
    int nleft;
    if (axis >= 0) {
        double ext = chi[axis] - clo[axis];
        int i = first, j = first + count - 1;
        while (i <= j) {
            int b = (int)((S->cen[3 * perm[i] + axis] - clo[axis]) / ext * BINS);
            b = b < 0 ? 0 : b >= BINS ? BINS - 1 : b;
            if (b < split)
                i++;
            else {
                int t = perm[i];
                perm[i] = perm[j];
                perm[j--] = t;
            }
        }
        nleft = i - first;
    } else { /* median of the centres on the longest axis */
        axis = 0;
        for (int a = 1; a < 3; a++)
            if (chi[a] - clo[a] > chi[axis] - clo[axis])
                axis = a;
        for (int i = first; i < first + count; i++)
            key[perm[i]] = S->cen[3 * perm[i] + axis];
        qsort_r(perm + first, (size_t)count, sizeof *perm, cmp_key, key);
        nleft = count / 2;
    }
    n->count = 0;
    int l = sah(S, first, nleft, depth + 1, key);
    int r = sah(S, first + nleft, count - nleft, depth + 1, key);
    c->node[id].left = l; /* node[] does not move: allocated for 2 nt nodes */
    c->node[id].right = r;
    return id;
}

int ep_closest4_build(ep_closest4 *w, const ep_mesh *m)
{
    int nt = m->nf;
    ep_closest c = {m->vertices, m->triangles, nt, NULL, NULL, 0};
    double *tb = NULL, *cen = NULL, *key = NULL;
    builder B = {&c, w};
    memset(w, 0, sizeof *w);
    if (nt < 1)
        return ep_fail(EP_EINPUT, "closest4: no triangles");
    c.perm = ep_malloc((size_t)nt, sizeof *c.perm);
    c.node = ep_malloc(2 * (size_t)nt, sizeof *c.node);
    tb = ep_malloc(6 * (size_t)nt, sizeof *tb);
    cen = ep_malloc(3 * (size_t)nt, sizeof *cen);
    key = ep_malloc((size_t)nt, sizeof *key);
    /* at most one 4-wide node an inner binary node, one leaf a binary leaf */
    w->node = ep_malloc((size_t)nt + 1, sizeof *w->node);
    w->leaf = ep_malloc((size_t)nt + 1, sizeof *w->leaf);
    int st = EP_OK;
    if (!c.perm || !c.node || !tb || !cen || !key || !w->node || !w->leaf) {
        st = EP_ECOMPUTE;
        goto out;
    }
    for (int t = 0; t < nt; t++) {
        c.perm[t] = t;
        for (int a = 0; a < 3; a++) {
            double u = m->vertices[3 * m->triangles[3 * t] + a], v = m->vertices[3 * m->triangles[3 * t + 1] + a],
                   z = m->vertices[3 * m->triangles[3 * t + 2] + a];
            tb[6 * t + a] = fmin(u, fmin(v, z));
            tb[6 * t + 3 + a] = fmax(u, fmax(v, z));
            cen[3 * t + a] = 0.5 * (tb[6 * t + a] + tb[6 * t + 3 + a]);
        }
    }
    sah_ctx S = {&c, tb, cen};
    sah(&S, 0, nt, 0, key);
    if (c.node[0].count) { /* the root is a leaf: one node above it */
        ep_closest4_node *n = &w->node[w->nnodes++];
        for (int i = 0; i < 8; i++) {
            n->child[i] = 0;
            for (int a = 0; a < 3; a++) {
                n->lo[a][i] = i ? INFINITY : c.node[0].lo[a];
                n->hi[a][i] = i ? -INFINITY : c.node[0].hi[a];
            }
        }
        n->child[0] = -1 - make_leaf(&B, &c.node[0]);
    } else
        collapse(&B, 0);
out:
    free(c.perm);
    free(c.node);
    free(tb);
    free(cen);
    free(key);
    if (st)
        ep_closest4_free(w);
    return st;
}

void ep_closest4_free(ep_closest4 *w)
{
    free(w->node);
    free(w->leaf);
    memset(w, 0, sizeof *w);
}

/* The helpers below pass vectors by value but are always inlined, so no
 * call crosses the ABI GCC warns about for the baseline clone. */
#pragma GCC diagnostic ignored "-Wpsabi"

typedef long long v4i __attribute__((vector_size(32)));
typedef long long v8i __attribute__((vector_size(64)));

/* Lanes of a where m, of b elsewhere. */
static inline __attribute__((always_inline)) ep_v4d sel(v4i m, ep_v4d a, ep_v4d b)
{
    return (ep_v4d)(((v4i)a & m) | ((v4i)b & ~m));
}

static inline __attribute__((always_inline)) ep_v8d vmax8(ep_v8d a, ep_v8d b)
{
    return (ep_v8d)(((v8i)a & (a > b)) | ((v8i)b & ~(a > b)));
}

static inline __attribute__((always_inline)) ep_v4d vmin(ep_v4d a, ep_v4d b)
{
    return sel(a < b, a, b);
}

static inline __attribute__((always_inline)) ep_v4d vmax(ep_v4d a, ep_v4d b)
{
    return sel(a > b, a, b);
}

/* Squared distance from the origin (p moved there) to the segment from
 * u (relative to p) along e, ie = 1 / e.e (0 for a point-like edge): the
 * parameter clamped to [0, 1]. */
static inline __attribute__((always_inline)) ep_v4d seg2(ep_v4d ux, ep_v4d uy, ep_v4d uz, ep_v4d ex, ep_v4d ey,
                                                          ep_v4d ez, ep_v4d ie)
{
    const ep_v4d zero = {0, 0, 0, 0}, one = {1, 1, 1, 1};
    ep_v4d t = -(ux * ex + uy * ey + uz * ez) * ie;
    t = vmin(vmax(t, zero), one);
    ep_v4d qx = ux + t * ex, qy = uy + t * ey, qz = uz + t * ez;
    return qx * qx + qy * qy + qz * qz;
}

/* Squared distances from p to the four triangles of l, branch-free: the
 * minimum of the edges' segment distances and, when p projects inside,
 * the plane's (n . (e x (p - e's start)) >= 0 for each edge). */
static inline __attribute__((always_inline)) ep_v4d leaf_dist2(const ep_closest4_leaf *l, ep_v4d px, ep_v4d py,
                                                                ep_v4d pz)
{
    const ep_v4d zero = {0, 0, 0, 0}, inf = {INFINITY, INFINITY, INFINITY, INFINITY};
    /* corners relative to p */
    ep_v4d ax = l->v[0] - px, ay = l->v[1] - py, az = l->v[2] - pz;
    ep_v4d bx = l->v[3] - px, by = l->v[4] - py, bz = l->v[5] - pz;
    ep_v4d cx = l->v[6] - px, cy = l->v[7] - py, cz = l->v[8] - pz;
    /* edges from the stored corners (exact differences, independent of p) */
    ep_v4d abx = l->v[3] - l->v[0], aby = l->v[4] - l->v[1], abz = l->v[5] - l->v[2];
    ep_v4d bcx = l->v[6] - l->v[3], bcy = l->v[7] - l->v[4], bcz = l->v[8] - l->v[5];
    ep_v4d cax = l->v[0] - l->v[6], cay = l->v[1] - l->v[7], caz = l->v[2] - l->v[8];
    ep_v4d nx = l->n[0], ny = l->n[1], nz = l->n[2];
    /* inside: n . (e x (p - start)) = n . (start x e) with start relative to p */
    ep_v4d wab = nx * (ay * abz - az * aby) + ny * (az * abx - ax * abz) + nz * (ax * aby - ay * abx);
    ep_v4d wbc = nx * (by * bcz - bz * bcy) + ny * (bz * bcx - bx * bcz) + nz * (bx * bcy - by * bcx);
    ep_v4d wca = nx * (cy * caz - cz * cay) + ny * (cz * cax - cx * caz) + nz * (cx * cay - cy * cax);
    v4i inside = (wab >= zero) & (wbc >= zero) & (wca >= zero) & (l->inv[3] > zero);
    ep_v4d s = nx * ax + ny * ay + nz * az;
    ep_v4d plane = sel(inside, s * s * l->inv[3], inf);
    ep_v4d e = vmin(seg2(ax, ay, az, abx, aby, abz, l->inv[0]), seg2(bx, by, bz, bcx, bcy, bcz, l->inv[1]));
    return vmin(vmin(e, seg2(cx, cy, cz, cax, cay, caz, l->inv[2])), plane);
}

/* EP_KERNEL's clones and one for x86-64-v4 (AVX-512): its 32 vector
 * registers hold the leaf test without spilling (10-15% fewer CPU-s). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__ELF__) && !defined(EP_NO_CLONES)
#define CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define CLONES
#endif

CLONES void ep_closest4_query(const ep_closest4 *w, const double p[3], int *tri, double *d2, double *tests)
{
    struct {
        int id;
        double g;
    } st[512];
    int sp = 0, bt = *tri, id = 0;
    double best = *d2, ntest = 0;
    const ep_v4d px = {p[0], p[0], p[0], p[0]}, py = {p[1], p[1], p[1], p[1]}, pz = {p[2], p[2], p[2], p[2]};
    const ep_v8d px8 = {p[0], p[0], p[0], p[0], p[0], p[0], p[0], p[0]},
                 py8 = {p[1], p[1], p[1], p[1], p[1], p[1], p[1], p[1]},
                 pz8 = {p[2], p[2], p[2], p[2], p[2], p[2], p[2], p[2]}, zero8 = {0, 0, 0, 0, 0, 0, 0, 0};
    for (;;) {
        if (id < 0) {
            const ep_closest4_leaf *l = &w->leaf[-1 - id];
            ep_v4d d = leaf_dist2(l, px, py, pz);
            ntest += 4;
            for (int k = 0; k < 4; k++)
                if (d[k] < best) {
                    best = d[k];
                    bt = l->tri[k];
                }
        } else {
            const ep_closest4_node *n = &w->node[id];
            /* distance to a box: per axis the larger of lo - p and p - hi, if positive */
            ep_v8d dx = vmax8(vmax8(n->lo[0] - px8, px8 - n->hi[0]), zero8);
            ep_v8d dy = vmax8(vmax8(n->lo[1] - py8, py8 - n->hi[1]), zero8);
            ep_v8d dz = vmax8(vmax8(n->lo[2] - pz8, pz8 - n->hi[2]), zero8);
            ep_v8d g = dx * dx + dy * dy + dz * dz;
            ep_v8d bv = {best, best, best, best, best, best, best, best};
            v8i lt = g < bv;
            int bits = 0;
            for (int k = 0; k < 8; k++)
                bits |= (int)(lt[k] & (1 << k));
            if (bits) {
                /* the nearest child next; the others pushed, nearer last (popped first) */
                int o[8], m = 0;
                for (int k = 0; k < 8; k++) {
                    if (!(bits >> k & 1))
                        continue;
                    int j = m++;
                    while (j > 0 && g[o[j - 1]] < g[k]) {
                        o[j] = o[j - 1];
                        j--;
                    }
                    o[j] = k;
                }
                if (sp + m > (int)(sizeof st / sizeof *st))
                    m = 1; /* cannot happen: 7 a level, depth below SAH_DEPTH + 32 */
                for (int j = 0; j < m - 1; j++) {
                    st[sp].id = n->child[o[j]];
                    st[sp++].g = g[o[j]];
                }
                id = n->child[o[m - 1]];
                continue;
            }
        }
        /* the next node still nearer than best */
        while (sp && !(st[sp - 1].g < best))
            sp--;
        if (!sp)
            break;
        id = st[--sp].id;
    }
    *tri = bt;
    *d2 = best;
    *tests += ntest;
}
