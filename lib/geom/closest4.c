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

/* Lanes of a where m, of b elsewhere; the smaller, the larger: for four
 * or eight lanes (GNU statement expressions and __typeof__, so one body
 * serves both widths). */
#define VSEL(m, a, b) ((__typeof__(a))(((__typeof__(m))(a) & (m)) | ((__typeof__(m))(b) & ~(m))))
#define VMIN(a, b) VSEL((a) < (b), a, b)
#define VMAX(a, b) VSEL((a) > (b), a, b)

static inline __attribute__((always_inline)) ep_v8d vmax8(ep_v8d a, ep_v8d b)
{
    return VMAX(a, b);
}

/* Squared distance from the origin (p moved there) to the segment from
 * u (relative to p) along e, ie = 1 / e.e (0 for a point-like edge): the
 * parameter clamped to [0, 1]. */
#define SEG2(ux, uy, uz, ex, ey, ez, ie)                                                                               \
    ({                                                                                                                 \
        const __typeof__((ux) + 0) s0_ = {0};                                                                          \
        __typeof__((ux) + 0) t_ = -((ux) * (ex) + (uy) * (ey) + (uz) * (ez)) * (ie);                                   \
        t_ = VMIN(VMAX(t_, s0_), s0_ + 1);                                                                             \
        __typeof__((ux) + 0) qx_ = (ux) + t_ * (ex), qy_ = (uy) + t_ * (ey), qz_ = (uz) + t_ * (ez);                   \
        qx_ * qx_ + qy_ * qy_ + qz_ * qz_;                                                                             \
    })

/* Squared distances from p to the triangles of a leaf (four lanes) or two
 * (eight), branch-free: the minimum of the edges' segment distances and,
 * when p projects inside, the plane's (n . (e x (p - e's start)) >= 0 for
 * each edge).  v[9], n[3], inv[4] as in ep_closest4_leaf, of type V. */
#define LEAF_DIST2(V, v, n, inv, px, py, pz)                                                                           \
    ({                                                                                                                 \
        const V z_ = {0}, inf_ = z_ + INFINITY;                                                                        \
        /* corners relative to p */                                                                                    \
        V ax = v[0] - (px), ay = v[1] - (py), az = v[2] - (pz);                                                        \
        V bx = v[3] - (px), by = v[4] - (py), bz = v[5] - (pz);                                                        \
        V cx = v[6] - (px), cy = v[7] - (py), cz = v[8] - (pz);                                                        \
        /* edges from the stored corners (exact differences, independent of p) */                                      \
        V abx = v[3] - v[0], aby = v[4] - v[1], abz = v[5] - v[2];                                                     \
        V bcx = v[6] - v[3], bcy = v[7] - v[4], bcz = v[8] - v[5];                                                     \
        V cax = v[0] - v[6], cay = v[1] - v[7], caz = v[2] - v[8];                                                     \
        V nx = n[0], ny = n[1], nz = n[2];                                                                             \
        /* inside: n . (e x (p - start)) = n . (start x e) with start relative to p */                                 \
        V wab = nx * (ay * abz - az * aby) + ny * (az * abx - ax * abz) + nz * (ax * aby - ay * abx);                  \
        V wbc = nx * (by * bcz - bz * bcy) + ny * (bz * bcx - bx * bcz) + nz * (bx * bcy - by * bcx);                  \
        V wca = nx * (cy * caz - cz * cay) + ny * (cz * cax - cx * caz) + nz * (cx * cay - cy * cax);                  \
        __typeof__(wab < z_) inside = (z_ <= wab) & (z_ <= wbc) & (z_ <= wca) & (z_ < inv[3]);                         \
        V s = nx * ax + ny * ay + nz * az;                                                                             \
        V plane = VSEL(inside, s * s * inv[3], inf_);                                                                  \
        V e = VMIN(SEG2(ax, ay, az, abx, aby, abz, inv[0]), SEG2(bx, by, bz, bcx, bcy, bcz, inv[1]));                  \
        VMIN(VMIN(e, SEG2(cx, cy, cz, cax, cay, caz, inv[2])), plane);                                                 \
    })

static inline __attribute__((always_inline)) ep_v4d leaf_dist2(const ep_closest4_leaf *l, ep_v4d px, ep_v4d py,
                                                                ep_v4d pz)
{
    return LEAF_DIST2(ep_v4d, l->v, l->n, l->inv, px, py, pz);
}

/* The same for two leaves a and b at once: lanes 0-3 a's, 4-7 b's
 * (AVX-512 only: elsewhere two leaf_dist2 cost the same). */
#define LEAF_PAIR_DIST2(a, b, px, py, pz)                                                                              \
    ({                                                                                                                 \
        ep_v8d v_[9], n_[3], inv_[4];                                                                                  \
        for (int i_ = 0; i_ < 9; i_++)                                                                                 \
            v_[i_] = __builtin_shufflevector((a)->v[i_], (b)->v[i_], 0, 1, 2, 3, 4, 5, 6, 7);                          \
        for (int i_ = 0; i_ < 3; i_++)                                                                                 \
            n_[i_] = __builtin_shufflevector((a)->n[i_], (b)->n[i_], 0, 1, 2, 3, 4, 5, 6, 7);                          \
        for (int i_ = 0; i_ < 4; i_++)                                                                                 \
            inv_[i_] = __builtin_shufflevector((a)->inv[i_], (b)->inv[i_], 0, 1, 2, 3, 4, 5, 6, 7);                    \
        LEAF_DIST2(ep_v8d, v_, n_, inv_, px, py, pz);                                                                  \
    })

/* EP_KERNEL's clones and one for x86-64-v4 (AVX-512): its 32 vector
 * registers hold the leaf test without spilling (10-15% fewer CPU-s). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__ELF__) && !defined(EP_NO_CLONES)
#define CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define CLONES
#endif

/* Squared gaps between the eight boxes (lo, hi) and the box [qlo, qhi]
 * (a point: qlo = qhi = p), by axis: per axis the larger of lo - qhi and
 * qlo - hi, if positive (max: vmax8, or the same in one instruction). */
static inline __attribute__((always_inline)) ep_v8d box_gap2(const ep_v8d *lo, const ep_v8d *hi, const ep_v8d *qlo,
                                                              const ep_v8d *qhi, ep_v8d (*max)(ep_v8d, ep_v8d))
{
    const ep_v8d zero = {0, 0, 0, 0, 0, 0, 0, 0};
    ep_v8d dx = max(max(lo[0] - qhi[0], qlo[0] - hi[0]), zero);
    ep_v8d dy = max(max(lo[1] - qhi[1], qlo[1] - hi[1]), zero);
    ep_v8d dz = max(max(lo[2] - qhi[2], qlo[2] - hi[2]), zero);
    return dx * dx + dy * dy + dz * dz;
}

/* Leaf l's four triangles against the best so far (*best, *bt): the
 * earlier lane keeps a tie. */
static inline __attribute__((always_inline)) void leaf_update(const ep_closest4_leaf *l, ep_v4d px, ep_v4d py,
                                                              ep_v4d pz, double *best, int *bt)
{
    ep_v4d d = leaf_dist2(l, px, py, pz), b = {*best, *best, *best, *best};
    v4i lt = d < b;
    if (!((lt[0] | lt[1]) | (lt[2] | lt[3]))) /* mostly: the hint stands */
        return;
    for (int k = 0; k < 4; k++)
        if (d[k] < *best) {
            *best = d[k];
            *bt = l->tri[k];
        }
}

CLONES void ep_closest4_query(const ep_closest4 *w, const double p[3], int *tri, double *d2, double *tests)
{
    struct {
        int id;
        double g;
    } st[512];
    int sp = 0, bt = *tri, id = 0;
    double best = *d2, ntest = 0;
    const ep_v4d px = {p[0], p[0], p[0], p[0]}, py = {p[1], p[1], p[1], p[1]}, pz = {p[2], p[2], p[2], p[2]};
    const ep_v8d p8[3] = {{p[0], p[0], p[0], p[0], p[0], p[0], p[0], p[0]},
                          {p[1], p[1], p[1], p[1], p[1], p[1], p[1], p[1]},
                          {p[2], p[2], p[2], p[2], p[2], p[2], p[2], p[2]}};
    for (;;) {
        if (id < 0) {
            leaf_update(&w->leaf[-1 - id], px, py, pz, &best, &bt);
            ntest += 4;
        } else {
            const ep_closest4_node *n = &w->node[id];
            ep_v8d g = box_gap2(n->lo, n->hi, p8, p8, vmax8);
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

/* ---- a block's list of leaves ------------------------------------------------------ */

void ep_closest4_list_free(ep_closest4_list *l)
{
    free(l->leaf);
    free(l->gap);
    free(l->lo);
    free(l->hi);
    free(l->tmp);
    free(l->order);
    memset(l, 0, sizeof *l);
}

/* The bits of a < b, lane k at bit k: AVX-512's mask, AVX's two
 * movemasks, or lane by lane. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__ELF__) && !defined(EP_NO_CLONES)
#include <immintrin.h>
#define LIST_TARGETS 1
__attribute__((target("avx512f"))) static inline int mask_v4(ep_v8d a, ep_v8d b)
{
    return _mm512_cmp_pd_mask((__m512d)a, (__m512d)b, _CMP_LT_OQ);
}

__attribute__((target("avx"))) static inline int mask_v3(ep_v8d a, ep_v8d b)
{
    __m256d alo = {a[0], a[1], a[2], a[3]}, ahi = {a[4], a[5], a[6], a[7]}, blo = {b[0], b[1], b[2], b[3]},
            bhi = {b[4], b[5], b[6], b[7]};
    return _mm256_movemask_pd(_mm256_cmp_pd(alo, blo, _CMP_LT_OQ)) |
           _mm256_movemask_pd(_mm256_cmp_pd(ahi, bhi, _CMP_LT_OQ)) << 4;
}

/* vmax8 in one instruction: (a > b) ? a : b, as vmax8, on every input. */
__attribute__((target("avx512f"))) static inline ep_v8d max_v4(ep_v8d a, ep_v8d b)
{
    return (ep_v8d)_mm512_max_pd((__m512d)a, (__m512d)b);
}

#endif

static inline int mask_base(ep_v8d a, ep_v8d b)
{
    int bits = 0;
    for (int k = 0; k < 8; k++)
        bits |= (a[k] < b[k]) << k;
    return bits;
}

/* A listed leaf before its bucket: its squared gap to the block, id and box. */
typedef struct ep_closest4_near_leaf {
    double gap, lo[3], hi[3];
    int leaf;
} near_leaf;

#define NEAR_BUCKETS 32

/* ep_closest4_near's walk: the listed leaves into l->tmp, their number
 * into *nl; the mask of a vector compare given. */
static inline __attribute__((always_inline)) int near_walk(ep_closest4_list *l, const ep_closest4 *w,
                                                           const double lo[3], const double hi[3], double r2,
                                                           int most, int *nl, int (*mask)(ep_v8d, ep_v8d),
                                                           ep_v8d (*max)(ep_v8d, ep_v8d))
{
    const ep_v8d r2v = {r2, r2, r2, r2, r2, r2, r2, r2};
    ep_v8d qlo[3], qhi[3];
    for (int a = 0; a < 3; a++)
        for (int k = 0; k < 8; k++) {
            qlo[a][k] = lo[a];
            qhi[a][k] = hi[a];
        }
    int st[512], sp = 0, n = 0;
    st[sp++] = 0;
    while (sp) {
        const ep_closest4_node *nd = &w->node[st[--sp]];
        ep_v8d g = box_gap2(nd->lo, nd->hi, qlo, qhi, max);
        int bits = mask(g, r2v); /* an empty slot's gap is infinite */
        while (bits) {
            int k = __builtin_ctz((unsigned)bits);
            bits &= bits - 1;
            if (nd->child[k] >= 0) {
                if (sp < (int)(sizeof st / sizeof *st)) /* 7 a level: cannot fill */
                    st[sp++] = nd->child[k];
                continue;
            }
            if (n == most) {
                *nl = -1;
                return EP_OK;
            }
            if ((size_t)n == l->ntmp && ep_grow_to(&l->tmp, &l->ntmp, (size_t)n + 1, sizeof *l->tmp))
                return EP_ECOMPUTE;
            near_leaf *e = &l->tmp[n++];
            e->gap = g[k];
            e->leaf = -1 - nd->child[k];
            for (int a = 0; a < 3; a++) {
                e->lo[a] = nd->lo[a][k];
                e->hi[a] = nd->hi[a][k];
            }
        }
    }
    *nl = n;
    return EP_OK;
}

#ifdef LIST_TARGETS
__attribute__((target("arch=x86-64-v4"))) static int near_v4(ep_closest4_list *l, const ep_closest4 *w,
                                                             const double lo[3], const double hi[3], double r2,
                                                             int most, int *nl)
{
    return near_walk(l, w, lo, hi, r2, most, nl, mask_v4, max_v4);
}

__attribute__((target("arch=x86-64-v3"))) static int near_v3(ep_closest4_list *l, const ep_closest4 *w,
                                                             const double lo[3], const double hi[3], double r2,
                                                             int most, int *nl)
{
    return near_walk(l, w, lo, hi, r2, most, nl, mask_v3, vmax8);
}
#endif

int ep_closest4_near(ep_closest4_list *l, const ep_closest4 *w, const double lo[3], const double hi[3], double r2,
                     int most)
{
    int n = 0, st;
    l->n = 0;
#ifdef LIST_TARGETS
    if (__builtin_cpu_supports("x86-64-v4"))
        st = near_v4(l, w, lo, hi, r2, most, &n);
    else if (__builtin_cpu_supports("x86-64-v3"))
        st = near_v3(l, w, lo, hi, r2, most, &n);
    else
#endif
        st = near_walk(l, w, lo, hi, r2, most, &n, mask_base, vmax8);
    if (st || n < 0) {
        l->n = n < 0 ? -1 : 0;
        return st;
    }
    size_t cap = ((size_t)n + 7) / 8 * 8;
    if (cap > l->cap) {
        if (ep_grow(&l->leaf, cap, sizeof *l->leaf) || ep_grow(&l->gap, cap / 8, sizeof *l->gap) ||
            ep_grow(&l->lo, 3 * cap / 8, sizeof *l->lo) || ep_grow(&l->hi, 3 * cap / 8, sizeof *l->hi) ||
            ep_grow(&l->order, cap, sizeof *l->order))
            return EP_ECOMPUTE;
        l->cap = cap;
    }
    /* nearest to the box first, by buckets of the gap (a counting sort):
     * a point stops at the first chunk whose later gaps are all past its best */
    int count[NEAR_BUCKETS + 1] = {0};
    double scale = NEAR_BUCKETS / sqrt(r2);
    for (int i = 0; i < n; i++) {
        int b = (int)(sqrt(l->tmp[i].gap) * scale);
        count[1 + (b < NEAR_BUCKETS ? b : NEAR_BUCKETS - 1)]++;
    }
    for (int b = 1; b <= NEAR_BUCKETS; b++)
        count[b] += count[b - 1];
    for (int i = 0; i < n; i++) {
        int b = (int)(sqrt(l->tmp[i].gap) * scale);
        l->order[count[b < NEAR_BUCKETS ? b : NEAR_BUCKETS - 1]++] = i;
    }
    for (size_t i = 0; i < cap; i++) {
        size_t c = i / 8, j = i % 8;
        const near_leaf *e = i < (size_t)n ? &l->tmp[l->order[i]] : NULL;
        l->leaf[i] = e ? e->leaf : 0;
        for (int a = 0; a < 3; a++) {
            l->lo[3 * c + a][j] = e ? e->lo[a] : INFINITY;
            l->hi[3 * c + a][j] = e ? e->hi[a] : -INFINITY;
        }
    }
    /* gap[c]: the smallest gap of chunks c and after, below any rounding of
     * the points' box tests */
    double low = INFINITY;
    for (size_t i = cap; i-- > 0;) {
        if (i < (size_t)n)
            low = fmin(low, l->tmp[l->order[i]].gap * (1 - 1e-12));
        if (i % 8 == 0)
            l->gap[i / 8] = low;
    }
    l->n = n;
    return EP_OK;
}

/* ep_closest4_query_list's body, for each target: MASK(a, b) the bits
 * of a < b, PAIR(a, b) the test of leaves a and b in this order (with
 * AVX-512 in one vector), MAX vmax8 or its one instruction.  A macro, not an inline function: GCC lowers
 * an inline function's eight-wide compares for the function's own
 * target before inlining it, lane by lane for the baseline. */
#define LIST_QUERY(MASK, PAIR, MAX)                                                                                    \
    {                                                                                                                  \
        int bt = *tri;                                                                                                 \
        double best = *d2, ntest = 0;                                                                                  \
        const ep_v4d px = {p[0], p[0], p[0], p[0]}, py = {p[1], p[1], p[1], p[1]}, pz = {p[2], p[2], p[2], p[2]};      \
        const ep_v8d px8 = {p[0], p[0], p[0], p[0], p[0], p[0], p[0], p[0]},                                           \
                     py8 = {p[1], p[1], p[1], p[1], p[1], p[1], p[1], p[1]},                                           \
                     pz8 = {p[2], p[2], p[2], p[2], p[2], p[2], p[2], p[2]}, p8[3] = {px8, py8, pz8};                  \
        const ep_closest4_leaf *wait = NULL; /* a leaf waiting for a second to share its test */                       \
        for (int c = 0; 8 * c < l->n && l->gap[c] < best; c++) {                                                       \
            ep_v8d g = box_gap2(&l->lo[3 * c], &l->hi[3 * c], p8, p8, MAX);                                           \
            ep_v8d bv = {best, best, best, best, best, best, best, best};                                              \
            int bits = MASK(g, bv);                                                                                    \
            while (bits) {                                                                                             \
                int k = __builtin_ctz((unsigned)bits);                                                                 \
                bits &= bits - 1;                                                                                      \
                if (!(g[k] < best))                                                                                    \
                    continue;                                                                                          \
                const ep_closest4_leaf *lf = &w->leaf[l->leaf[8 * c + k]];                                             \
                if (!wait) {                                                                                           \
                    wait = lf;                                                                                         \
                    continue;                                                                                          \
                }                                                                                                      \
                PAIR(wait, lf);                                                                                        \
                wait = NULL;                                                                                           \
                ntest += 8;                                                                                            \
            }                                                                                                          \
        }                                                                                                              \
        if (wait) {                                                                                                    \
            leaf_update(wait, px, py, pz, &best, &bt);                                                                 \
            ntest += 4;                                                                                                \
        }                                                                                                              \
        *tri = bt;                                                                                                     \
        *d2 = best;                                                                                                    \
        *tests += ntest;                                                                                               \
    }

/* Two leaves one after the other. */
#define PAIR_SEQ(a, b) (leaf_update(a, px, py, pz, &best, &bt), leaf_update(b, px, py, pz, &best, &bt))

#ifdef LIST_TARGETS
/* Leaves a and b in one eight-wide test, the lanes then taken in order. */
__attribute__((target("arch=x86-64-v4"), always_inline)) static inline void pair_v4(const ep_closest4_leaf *a,
                                                                     const ep_closest4_leaf *b, ep_v8d px, ep_v8d py,
                                                                     ep_v8d pz, double *best, int *bt)
{
    ep_v8d d = LEAF_PAIR_DIST2(a, b, px, py, pz), bv = {*best, *best, *best, *best, *best, *best, *best, *best};
    int bits = mask_v4(d, bv);
    while (bits) {
        int k = __builtin_ctz((unsigned)bits);
        bits &= bits - 1;
        if (d[k] < *best) {
            *best = d[k];
            *bt = (k < 4 ? a : b)->tri[k & 3];
        }
    }
}
#define PAIR_V4(a, b) pair_v4(a, b, px8, py8, pz8, &best, &bt)

__attribute__((target("arch=x86-64-v4"))) static void query_list_v4(const ep_closest4 *w, const ep_closest4_list *l,
                                                                    const double p[3], int *tri, double *d2,
                                                                    double *tests)
LIST_QUERY(mask_v4, PAIR_V4, max_v4)

__attribute__((target("arch=x86-64-v3"))) static void query_list_v3(const ep_closest4 *w, const ep_closest4_list *l,
                                                                    const double p[3], int *tri, double *d2,
                                                                    double *tests)
LIST_QUERY(mask_v3, PAIR_SEQ, vmax8)
#endif

static void query_list_base(const ep_closest4 *w, const ep_closest4_list *l, const double p[3], int *tri, double *d2,
                            double *tests)
LIST_QUERY(mask_base, PAIR_SEQ, vmax8)

void ep_closest4_query_list(const ep_closest4 *w, const ep_closest4_list *l, const double p[3], int *tri, double *d2,
                            double *tests)
{
#ifdef LIST_TARGETS
    if (__builtin_cpu_supports("x86-64-v4"))
        query_list_v4(w, l, p, tri, d2, tests);
    else if (__builtin_cpu_supports("x86-64-v3"))
        query_list_v3(w, l, p, tri, d2, tests);
    else
#endif
        query_list_base(w, l, p, tri, d2, tests);
}
