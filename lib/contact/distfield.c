/*
 * distfield.c — exact signed distance fields on a cubic grid (distfield.h).
 */
#include "distfield.h"
#include "closest.h"
#include "closest4.h"
#include "err.h"
#include "pseudonormal.h"
#include "vec3.h"
#include "winding.h"

#include <embree3/rtcore.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const ep_distfield_sign_name[3] = {"unsigned", "pseudonormal", "winding"};

long ep_distfield_points(int n)
{
    long m = (long)n + 1;
    return m * m * m;
}

int ep_distfield_setup(ep_distfield *g, const ep_mesh *m, int n, double expand,
                       const double *box)
{
    const double *x = m->vertices;
    const int *tri = m->triangles, nt = m->nf, nv = m->nv;
    memset(g, 0, sizeof *g);
    if (nt < 1)
        return ep_fail(EP_EINPUT, "no triangles: nothing to measure a distance to");
    if (n < 1 || n > EP_DISTFIELD_MAX_RES)
        return ep_fail(EP_EINPUT, "resolution %d: expected 1 to %d cells a side", n, EP_DISTFIELD_MAX_RES);
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (long i = 0; i < 3 * (long)nt; i++) {
        if (tri[i] < 0 || tri[i] >= nv)
            return ep_fail(EP_EINPUT, "triangle %ld: vertex %d out of range", i / 3 + 1, tri[i] + 1);
        const double *p = &x[3 * tri[i]];
        for (int k = 0; k < 3; k++) {
            if (!isfinite(p[k]))
                return ep_fail(EP_EINPUT, "vertex %d: coordinate %d is not finite", tri[i] + 1, k + 1);
            lo[k] = fmin(lo[k], p[k]);
            hi[k] = fmax(hi[k], p[k]);
        }
    }
    double side = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
    if (!(side > 0))
        return ep_fail(EP_EINPUT, "the triangles have zero size (every vertex at one point)");
    g->n = n;
    if (box) {
        if (!(box[3] > 0) || !isfinite(box[0] + box[1] + box[2] + box[3]))
            return ep_fail(EP_EINPUT, "box: the side must be finite and > 0");
        memcpy(g->origin, box, 3 * sizeof *box);
        g->h = box[3] / n;
        return EP_OK;
    }
    if (!(expand >= 1) || !isfinite(expand))
        return ep_fail(EP_EINPUT, "expansion %g: expected a factor >= 1", expand);
    side *= expand;
    for (int k = 0; k < 3; k++)
        g->origin[k] = 0.5 * (lo[k] + hi[k]) - 0.5 * side;
    g->h = side / n;
    return EP_OK;
}

double ep_distfield_bytes(int n, int nt, int nv)
{
    double pts = (double)ep_distfield_points(n);
    /* the field; the fill's bits (two sets when a region is re-signed);
     * per triangle: its box (48), the wide hierarchy (about 120) and its
     * build's binary tree, boxes and centres (about 230; Embree's BVH
     * and float copy, about 150, when EP_DISTFIELD_EMBREE is set),
     * the winding tree's hierarchy and sums (two nodes of 64 + 56) or the
     * pseudonormals (96), the ids (12); per vertex: its float copy and
     * vertex normal (36) */
    return 4 * pts + pts / 4 + (48.0 + 350 + 240 + 12) * nt + 36.0 * nv;
}

static double tri_dist2(const ep_mesh *m, int t, const double *p)
{
    const int *f = &m->triangles[3 * t];
    const double *x = m->vertices;
    double q[3];
    ep_closest_on_triangle(p, &x[3 * f[0]], &x[3 * f[1]], &x[3 * f[2]], q);
    return ep_vec3_dist2(p, q);
}

double ep_distfield_band_error(const ep_distfield *g)
{
    return g->band > 0 ? 0.5 * sqrt(3.0) * EP_DISTFIELD_COARSE * g->h : 0;
}

double ep_distfield_brute(const ep_mesh *m, const double p[3])
{
    double best = INFINITY;
    for (int t = 0; t < m->nf; t++)
        best = fmin(best, tri_dist2(m, t, p));
    return sqrt(best);
}

void ep_distfield_free(ep_distfield *g)
{
    free(g->value);
    memset(g, 0, sizeof *g);
}

int ep_distfield_detect_sign(const ep_mesh *m, int *sign, char *why, size_t cap)
{
    int st = ep_pseudonormal_check(m->vertices, m->nv, m->triangles, m->nf);
    if (st == EP_ECOMPUTE)
        return st;
    *sign = st ? EP_DISTFIELD_WINDING : EP_DISTFIELD_PSEUDONORMAL;
    snprintf(why, cap, "%s", st ? ep_errmsg() : "");
    return EP_OK;
}

/* ---- the exact pass ----------------------------------------------------------- */

/* Cells a side of the blocks of grid points searched together: each point's
 * search starts from the closest triangle of the point before it, which a
 * block keeps near (DECISIONS "Distance fields"). */
#define BLOCK 4

typedef struct {
    const ep_mesh *m;
    const ep_pseudonormal *pn; /* NULL: no sign in this pass */
    ep_distfield *g;
    int stride;                /* 1, or EP_DISTFIELD_COARSE for the band's coarse points */
    int interpolate;           /* the band's fine pass: interpolate where allowed */
    double *tbox;              /* [nt][6] each triangle's box (lo, hi) */
    RTCScene scene;            /* the triangles in float, for the queries */
    double slack;              /* what float rounding may move a box: added to the query radius */
    const ep_closest4 *w;      /* non-NULL: the wide hierarchy answers the queries */
    int lists;                 /* with w: through each block's list of leaves near (ep_closest4_near) */
} pass_ctx;


/* Squared distance between boxes (lo, hi) and (blo, bhi). */
static double gap2(const double *lo, const double *hi, const double *blo, const double *bhi)
{
    double d2 = 0;
    for (int a = 0; a < 3; a++) {
        double d = lo[a] > bhi[a] ? lo[a] - bhi[a] : blo[a] > hi[a] ? blo[a] - hi[a] : 0;
        d2 += d * d;
    }
    return d2;
}

/* One query's state for Embree's callback. */
typedef struct {
    const pass_ctx *x;
    double p[3], best; /* squared distance of the best triangle so far */
    int bt;
    double tests;
} query;

/* Embree calls this for each triangle whose (float) box meets the query
 * sphere: the triangle's exact box, then its exact distance, in double;
 * the sphere shrinks to the best distance plus the float slack. */
static bool visit(struct RTCPointQueryFunctionArguments *a)
{
    query *q = a->userPtr;
    const pass_ctx *x = q->x;
    int t = (int)a->primID;
    if (t == q->bt || gap2(&x->tbox[6 * t], &x->tbox[6 * t + 3], q->p, q->p) >= q->best)
        return false;
    double d = tri_dist2(x->m, t, q->p);
    q->tests += 1;
    if (d >= q->best)
        return false;
    q->best = d;
    q->bt = t;
    a->query->radius = (float)(sqrt(d) + x->slack);
    return true;
}

/* The closest triangle to p (the wide hierarchy's query: over the
 * block's list of leaves near when list is non-NULL, else the tree; or
 * Embree's point query, rtcPointQuery), the first bound the distance to
 * the hint triangle, or without one (hint < 0) the given upper bound
 * bound2 of the squared distance (INFINITY: none).  Squared distance,
 * *tri. */
static double closest(const pass_ctx *x, const ep_closest4_list *list, const double p[3], int hint, double bound2,
                      int *tri, double *tests)
{
    if (x->w) {
        double d2 = bound2;
        *tri = hint;
        if (hint >= 0) {
            d2 = tri_dist2(x->m, hint, p);
            *tests += 1;
        }
        if (list) {
            ep_closest4_query_list(x->w, list, p, tri, &d2, tests);
            if (*tri >= 0)
                return d2;
            d2 = INFINITY; /* no triangle under the bound (rounding): the whole tree */
        }
        ep_closest4_query(x->w, p, tri, &d2, tests);
        return d2;
    }
    query q = {x, {p[0], p[1], p[2]}, INFINITY, -1, 0};
    if (hint >= 0) {
        q.best = tri_dist2(x->m, hint, p);
        q.bt = hint;
        q.tests = 1;
    }
    struct RTCPointQuery pq = {(float)p[0], (float)p[1], (float)p[2], 0,
                               hint >= 0 ? (float)(sqrt(q.best) + x->slack) : INFINITY};
    struct RTCPointQueryContext ctx;
    rtcInitPointQueryContext(&ctx);
    rtcPointQuery(x->scene, &pq, &ctx, visit, &q);
    *tests += q.tests;
    *tri = q.bt;
    return q.best;
}

/* The signed distance of p to its closest triangle t by the pseudonormal
 * of the closest feature (pseudonormal.h). */
static double pseudonormal_sign(const pass_ctx *x, const double p[3], int t, double d)
{
    const int *f = &x->m->triangles[3 * t];
    const double *v = x->m->vertices;
    double q[3], r[3];
    int feat = ep_closest_on_triangle_feature(p, &v[3 * f[0]], &v[3 * f[1]], &v[3 * f[2]], q);
    ep_vec3_sub(p, q, r);
    return ep_vec3_dot(r, ep_pseudonormal_of(x->pn, x->m->triangles, t, feat)) < 0 ? -d : d;
}

/* Whether the band lets point (i, j, k) be interpolated from its coarse
 * cell: every corner farther than band + the cell's diagonal. */
static int interpolated(const ep_distfield *g, int i, int j, int k, float *v)
{
    const int s = EP_DISTFIELD_COARSE;
    long m = g->n + 1;
    int i0 = i / s * s, j0 = j / s * s, k0 = k / s * s;
    if (i0 + s > g->n || j0 + s > g->n || k0 + s > g->n)
        return 0;
    double lim = g->band + sqrt(3.0) * s * g->h, u = (double)(i - i0) / s, w = (double)(j - j0) / s,
           z = (double)(k - k0) / s, sum = 0;
    for (int c = 0; c < 8; c++) {
        double val = g->value[(i0 + (c & 1) * s) + m * ((j0 + (c >> 1 & 1) * s) + m * (k0 + (c >> 2) * s))];
        if (!(fabs(val) > lim))
            return 0;
        sum += val * (c & 1 ? u : 1 - u) * (c >> 1 & 1 ? w : 1 - w) * (c >> 2 ? z : 1 - z);
    }
    *v = (float)sum;
    return 1;
}

/* A thread's workspace for its blocks: the list of leaves near, and
 * the closest triangle to the last block's centre (the next centre's
 * hint). */
typedef struct {
    ep_closest4_list list;
    int centre_tri;
} near_work;

/* The leaves near block [i0, i1] x [j0, j1] x [k0, k1] of grid points
 * (ep_closest4_near): those nearer to the block's box than the distance
 * d_c of its centre c plus the centre's distance R to the box's corners,
 * which bounds every point's distance (d_p <= d_c + |p - c|, Lipschitz);
 * *dc and c[] get d_c (rounded up) and c.  NULL (the tree answers)
 * without the wide hierarchy, when the list would be longer than
 * EP_DISTFIELD_LIST leaves (its walk would cost more than its points
 * save), or without memory. */
static const ep_closest4_list *near_leaves(const pass_ctx *x, near_work *work, int i0, int i1, int j0, int j1,
                                           int k0, int k1, double c[3], double *dc, double *tests)
{
    const ep_distfield *g = x->g;
    if (!x->w || !x->lists)
        return NULL;
    double lo[3] = {g->origin[0] + i0 * g->h, g->origin[1] + j0 * g->h, g->origin[2] + k0 * g->h},
           hi[3] = {g->origin[0] + i1 * g->h, g->origin[1] + j1 * g->h, g->origin[2] + k1 * g->h}, r2 = 0;
    for (int a = 0; a < 3; a++) {
        c[a] = 0.5 * (lo[a] + hi[a]);
        r2 += (hi[a] - c[a]) * (hi[a] - c[a]);
    }
    int t = work->centre_tri;
    double d2 = t >= 0 ? tri_dist2(x->m, t, c) : INFINITY;
    ep_closest4_query(x->w, c, &t, &d2, tests);
    work->centre_tri = t;
    /* the bounds, rounded up past any rounding of d_c, R and the box */
    double pad = 1e-12 * (fabs(c[0]) + fabs(c[1]) + fabs(c[2]) + g->h);
    *dc = sqrt(d2) * (1 + 1e-9) + pad;
    double r = (*dc + sqrt(r2)) * (1 + 1e-9) + pad;
    if (ep_closest4_near(&work->list, x->w, lo, hi, r * r, EP_DISTFIELD_LIST) || work->list.n < 0)
        return NULL;
    return &work->list;
}

/* The points of block (bi, bj, bk) of the pass's stride, x fastest, each
 * search primed by the previous point's triangle (the first point's by
 * the centre's distance plus its own to the centre) and confined to the
 * block's leaves near. */
static void block(const pass_ctx *x, near_work *work, int bi, int bj, int bk, double *tests, long *nexact)
{
    ep_distfield *g = x->g;
    const int s = x->stride, span = BLOCK * s;
    long m = g->n + 1;
    int i0 = bi * span, j0 = bj * span, k0 = bk * span;
    int i1 = i0 + span < g->n ? i0 + span : g->n, j1 = j0 + span < g->n ? j0 + span : g->n,
        k1 = k0 + span < g->n ? k0 + span : g->n;
    int hint = -1;
    double c[3], dc = INFINITY;
    /* the block's points: up to i1 - s, or to i1 = n in the last block */
    const ep_closest4_list *list = near_leaves(x, work, i0, i1 == g->n ? i1 : i1 - s, j0, j1 == g->n ? j1 : j1 - s,
                                               k0, k1 == g->n ? k1 : k1 - s, c, &dc, tests);
    for (int k = k0; k <= k1; k += s) {
        if (k == k1 && k1 != g->n)
            continue; /* the next block's */
        for (int j = j0; j <= j1; j += s) {
            if (j == j1 && j1 != g->n)
                continue;
            for (int i = i0; i <= i1; i += s) {
                if (i == i1 && i1 != g->n)
                    continue;
                long id = i + m * (j + m * (long)k);
                if (x->interpolate) {
                    const int cs = EP_DISTFIELD_COARSE;
                    float v;
                    if (i % cs == 0 && j % cs == 0 && k % cs == 0)
                        continue; /* computed by the coarse pass */
                    if (interpolated(g, i, j, k, &v)) {
                        g->value[id] = v;
                        continue;
                    }
                }
                double p[3] = {g->origin[0] + i * g->h, g->origin[1] + j * g->h, g->origin[2] + k * g->h};
                double bound2 = INFINITY;
                if (list && hint < 0) {
                    double b = (dc + sqrt(ep_vec3_dist2(p, c))) * (1 + 1e-9);
                    bound2 = b * b;
                }
                int t;
                double d = sqrt(closest(x, list, p, hint, bound2, &t, tests));
                if (x->pn)
                    d = pseudonormal_sign(x, p, t, d);
                g->value[id] = (float)d;
                hint = t;
                ++*nexact;
            }
        }
    }
}

/* One pass over the grid: blocks shared among the threads. */
static int pass(const pass_ctx *x, int threads)
{
    ep_distfield *g = x->g;
    int span = BLOCK * x->stride, nb = (g->n + span - 1) / span;
    long nblocks = (long)nb * nb * nb;
    double tests = 0;
    long nexact = 0;
#pragma omp parallel num_threads(threads) reduction(+ : tests, nexact)
    {
        near_work work = {{0}, -1};
#pragma omp for schedule(dynamic, 8)
        for (long b = 0; b < nblocks; b++)
            block(x, &work, (int)(b % nb), (int)(b / nb % nb), (int)(b / ((long)nb * nb)), &tests, &nexact);
        ep_closest4_list_free(&work.list);
    }
    g->tests += tests;
    g->exact += nexact;
    return EP_OK;
}

/* ---- the sign by winding numbers ------------------------------------------------ */

/* A growing list of point ids; as the fill's queue, a[head .. n) waits.
 * The fill is breadth-first, so the queue holds one wavefront: O(n^2)
 * ids for the regions of a grid, where a depth-first stack may hold
 * O(n^3). */
typedef struct {
    long *a;
    long head, n, cap;
} stack;

static int push(stack *s, long v)
{
    if (s->n == s->cap) {
        long keep = s->n - s->head, cap = keep + 1 > s->cap / 2 ? (s->cap ? 2 * s->cap : 4096) : s->cap;
        long *a = cap == s->cap ? s->a : ep_malloc((size_t)cap, sizeof *a);
        if (!a)
            return EP_ECOMPUTE;
        if (keep)
            memmove(a, s->a + s->head, (size_t)keep * sizeof *a);
        if (a != s->a)
            free(s->a);
        s->a = a;
        s->cap = cap;
        s->n = keep;
        s->head = 0;
    }
    s->a[s->n++] = v;
    return EP_OK;
}

static void point(const ep_distfield *g, long id, double p[3])
{
    long m = g->n + 1;
    p[0] = g->origin[0] + (double)(id % m) * g->h;
    p[1] = g->origin[1] + (double)(id / m % m) * g->h;
    p[2] = g->origin[2] + (double)(id / (m * m)) * g->h;
}

/* Sign the listed points ids[n] by their own winding numbers; with
 * expect >= 0 only count those whose inside-ness differs from it. */
static long sign_points(ep_distfield *g, const ep_winding *w, const long *ids, long n, int expect, int threads)
{
    long differ = 0;
#pragma omp parallel for schedule(dynamic, 256) num_threads(threads) reduction(+ : differ)
    for (long i = 0; i < n; i++) {
        double p[3];
        point(g, ids[i], p);
        int inside = ep_winding_eval(w, p) > 0.5;
        if (expect >= 0)
            differ += inside != expect;
        else if (inside)
            g->value[ids[i]] = -g->value[ids[i]];
    }
    return differ;
}

#define BIT(b, i) ((b)[(i) >> 6] >> ((i)&63) & 1)
#define SETBIT(b, i) ((b)[(i) >> 6] |= (uint64_t)1 << ((i)&63))

/* The far region of seed (unvisited, far): visited set, its points
 * negated when inside; samples gathered; mixed regions re-walked from
 * their seed with all their points signed one by one.  Scanline fill: a
 * popped point claims the run of unvisited far points along x through it,
 * and each run of candidates in the four neighbouring rows (y +- 1, z +- 1)
 * gets one seed in the queue, so a point costs a few bit tests and no
 * division; a seed claimed meanwhile by another run is passed over. */
static int fill(ep_distfield *g, const ep_winding *w, uint64_t *seen, long seed, double far, int mode, int inside,
                stack *st, stack *batch, int threads)
{
    long m = g->n + 1, mm = m * m;
    int s = EP_OK;
    float *v = g->value;
    st->n = st->head = batch->n = batch->head = 0;
    if ((s = push(st, seed)))
        return s;
    while (st->head < st->n) {
        long id = st->a[st->head++];
        if (BIT(seen, id))
            continue;
        long x = id % m, row = id - x, y = row / m % m, z = row / mm, x0 = x, x1 = x;
        while (x0 > 0 && !BIT(seen, row + x0 - 1) && fabsf(v[row + x0 - 1]) > far)
            x0--;
        while (x1 < g->n && !BIT(seen, row + x1 + 1) && fabsf(v[row + x1 + 1]) > far)
            x1++;
        int sample_row = y % EP_DISTFIELD_SAMPLE == 0 && z % EP_DISTFIELD_SAMPLE == 0;
        for (long i = row + x0; i <= row + x1; i++) {
            SETBIT(seen, i);
            if (inside)
                v[i] = -v[i]; /* mode 0: the region's sign; mode 1: undone */
            if (mode == 0) {
                if (sample_row && (i - row) % EP_DISTFIELD_SAMPLE == 0 && (s = push(batch, i)))
                    return s;
            } else {
                if ((s = push(batch, i)))
                    return s;
                if (batch->n == 65536) {
                    sign_points(g, w, batch->a, batch->n, -1, threads);
                    batch->n = batch->head = 0;
                }
            }
        }
        long nbr[4], nn = 0;
        if (y > 0)
            nbr[nn++] = row - m;
        if (y < g->n)
            nbr[nn++] = row + m;
        if (z > 0)
            nbr[nn++] = row - mm;
        if (z < g->n)
            nbr[nn++] = row + mm;
        for (long r = 0; r < nn; r++) {
            int open = 0; /* inside a run of candidates already seeded */
            for (long i = nbr[r] + x0; i <= nbr[r] + x1; i++) {
                int cand = !BIT(seen, i) && fabsf(v[i]) > far;
                if (cand && !open && (s = push(st, i)))
                    return s;
                open = cand;
            }
        }
    }
    if (mode == 1)
        sign_points(g, w, batch->a, batch->n, -1, threads);
    return EP_OK;
}

static int winding_sign(ep_distfield *g, const ep_closest *c, int threads)
{
    ep_winding w;
    long np = ep_distfield_points(g->n), nwords = (np + 63) / 64;
    double far = sqrt(3.0) * g->h; /* a cell diagonal */
    int s = ep_winding_build(&w, c);
    uint64_t *seen = s ? NULL : ep_calloc((size_t)nwords, sizeof *seen), *again = NULL;
    stack st = {0}, batch = {0};
    if (!s && !seen)
        s = EP_ECOMPUTE;
    /* near points: one winding number each */
    long nnear = 0;
    if (!s) {
#pragma omp parallel for schedule(dynamic, 4096) num_threads(threads) reduction(+ : nnear)
        for (long id = 0; id < np; id++) {
            if (!(g->value[id] <= far))
                continue;
            double p[3];
            point(g, id, p);
            if (ep_winding_eval(&w, p) > 0.5)
                g->value[id] = -g->value[id];
            nnear++;
        }
    }
    g->nnear = nnear;
    /* far regions: one winding number each, checked at samples */
    for (long id = 0; id < np && !s; id++) {
        if (BIT(seen, id) || !(g->value[id] > far))
            continue;
        double p[3];
        point(g, id, p);
        int inside = ep_winding_eval(&w, p) > 0.5;
        g->regions++;
        if ((s = fill(g, &w, seen, id, far, 0, inside, &st, &batch, threads)))
            break;
        if (!sign_points(g, &w, batch.a, batch.n, inside, threads))
            continue;
        g->mixed++;
        if (!again && !(again = ep_calloc((size_t)nwords, sizeof *again))) {
            s = EP_ECOMPUTE;
            break;
        }
        s = fill(g, &w, again, id, far, 1, inside, &st, &batch, threads);
    }
    free(st.a);
    free(batch.a);
    free(seen);
    free(again);
    ep_winding_free(&w);
    return s;
}

/* The triangles as an Embree scene (float vertices and indices). */
static int scene_build(RTCDevice *dev, RTCScene *scene, const ep_mesh *m, const char *config)
{
    if (!(*dev = rtcNewDevice(config)))
        return ep_fail(EP_ECOMPUTE, "Embree: no device (%s)", config);
    *scene = rtcNewScene(*dev);
    RTCGeometry geo = rtcNewGeometry(*dev, RTC_GEOMETRY_TYPE_TRIANGLE);
    float *v = rtcSetNewGeometryBuffer(geo, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3, 3 * sizeof(float),
                                       (size_t)m->nv);
    unsigned *t = rtcSetNewGeometryBuffer(geo, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3, 3 * sizeof(unsigned),
                                          (size_t)m->nf);
    if (v && t) {
        for (long i = 0; i < 3 * (long)m->nv; i++)
            v[i] = (float)m->vertices[i];
        for (long i = 0; i < 3 * (long)m->nf; i++)
            t[i] = (unsigned)m->triangles[i];
        rtcCommitGeometry(geo);
        rtcAttachGeometry(*scene, geo);
    }
    rtcReleaseGeometry(geo);
    rtcSetSceneBuildQuality(*scene, RTC_BUILD_QUALITY_HIGH);
    rtcCommitScene(*scene);
    enum RTCError e = rtcGetDeviceError(*dev);
    if (!v || !t || e != RTC_ERROR_NONE)
        return ep_fail(EP_ECOMPUTE, "Embree: cannot build the scene of %d triangles (error %d)", m->nf, (int)e);
    return EP_OK;
}

/* ---- the whole -------------------------------------------------------------------- */

/* Smallest value on the box's six faces (001 eq. 3.14). */
static double boundary_min(const ep_distfield *g)
{
    long m = g->n + 1;
    double mn = INFINITY;
    for (long k = 0; k < m; k++)
        for (long j = 0; j < m; j++) {
            int face_kj = k == 0 || k == g->n || j == 0 || j == g->n;
            for (long i = 0; i < m; i += face_kj ? 1 : g->n)
                mn = fmin(mn, g->value[i + m * (j + m * k)]);
        }
    return mn;
}

int ep_distfield_compute(ep_distfield *g, const ep_mesh *m, int sign, double offset, double band, int threads)
{
    ep_closest c = {0};
    ep_closest4 c4 = {0};
    ep_pseudonormal pn = {0};
    double *tbox = NULL;
    RTCDevice dev = NULL;
    RTCScene scene = NULL;
    long np = ep_distfield_points(g->n);
    int st = EP_OK;
    if (threads < 1)
        threads = omp_get_max_threads();
    g->sign = sign;
    g->offset = offset;
    g->band = band > 0 ? band : 0;
    g->tests = 0;
    g->exact = g->nnear = g->regions = g->mixed = 0;
    if (sign == EP_DISTFIELD_PSEUDONORMAL &&
        ((st = ep_pseudonormal_check(m->vertices, m->nv, m->triangles, m->nf)) ||
         (st = ep_pseudonormal_build(&pn, m->vertices, m->nv, m->triangles, m->nf))))
        goto out;
    if (sign == EP_DISTFIELD_WINDING && (st = ep_closest_build(&c, m)))
        goto out;
    const char *env = getenv("EP_DISTFIELD_EMBREE"); /* the benchmark's comparison */
    int embree = env && strcmp(env, "0");
    if (!embree && (st = ep_closest4_build(&c4, m)))
        goto out;
    free(g->value);
    if (!(g->value = ep_malloc((size_t)np, sizeof *g->value)) ||
        (embree && !(tbox = ep_malloc(6 * (size_t)m->nf, sizeof *tbox)))) {
        st = EP_ECOMPUTE;
        goto out;
    }
    double big = fmax(fabs(g->origin[0]), fmax(fabs(g->origin[1]), fabs(g->origin[2]))) + g->n * g->h;
    for (int t = 0; embree && t < m->nf; t++) {
        const int *f = &m->triangles[3 * t];
        for (int a = 0; a < 3; a++) {
            double u = m->vertices[3 * f[0] + a], v = m->vertices[3 * f[1] + a], z = m->vertices[3 * f[2] + a];
            tbox[6 * t + a] = fmin(u, fmin(v, z));
            tbox[6 * t + 3 + a] = fmax(u, fmax(v, z));
            big = fmax(big, fmax(fabs(tbox[6 * t + a]), fabs(tbox[6 * t + 3 + a])));
        }
    }
    char config[32];
    snprintf(config, sizeof config, "threads=%d", threads);
    if (embree && (st = scene_build(&dev, &scene, m, config)))
        goto out;
    /* float rounding of a vertex or of the query point moves a box by at
     * most 2^-24 of the largest coordinate; 8 times that, three axes */
    pass_ctx x = {m, sign == EP_DISTFIELD_PSEUDONORMAL ? &pn : NULL, g, 1, 0, tbox, scene, 8 * 3 * big / 16777216.0,
                  c4.node ? &c4 : NULL, 1};
    env = getenv("EP_DISTFIELD_TREE"); /* the benchmark's comparison: every query walks the tree */
    x.lists = !(env && strcmp(env, "0"));
    if (g->band > 0) {
        x.stride = EP_DISTFIELD_COARSE;
        if ((st = pass(&x, threads)))
            goto out;
        x.stride = 1;
        x.interpolate = 1;
    }
    if ((st = pass(&x, threads)))
        goto out;
    if (sign == EP_DISTFIELD_WINDING && (st = winding_sign(g, &c, threads)))
        goto out;
    if (offset != 0)
        for (long i = 0; i < np; i++)
            g->value[i] = (float)((double)g->value[i] - offset);
    g->d_boundary = boundary_min(g);
out:
    if (scene)
        rtcReleaseScene(scene);
    if (dev)
        rtcReleaseDevice(dev);
    free(tbox);
    ep_closest4_free(&c4);
    ep_closest_free(&c);
    ep_pseudonormal_free(&pn);
    return st;
}
