/*
 * closest.c — closest point on a triangle surface through an AABB hierarchy
 * (closest.h).
 */
#define _GNU_SOURCE /* qsort_r */
#include "closest.h"
#include "err.h"
#include "vec3.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LEAF_SIZE 4


int ep_closest_on_triangle_feature(const double p[3], const double a[3], const double b[3], const double c[3],
                                   double q[3])
{
    double ab[3], ac[3], ap[3], bp[3], cp[3];
    for (int k = 0; k < 3; k++) {
        ab[k] = b[k] - a[k];
        ac[k] = c[k] - a[k];
        ap[k] = p[k] - a[k];
        bp[k] = p[k] - b[k];
        cp[k] = p[k] - c[k];
    }
    double d1 = ep_vec3_dot(ab, ap), d2 = ep_vec3_dot(ac, ap);
    if (d1 <= 0 && d2 <= 0) { /* vertex region a */
        memcpy(q, a, 3 * sizeof *q);
        return EP_CLOSEST_VERTEX0;
    }
    double d3 = ep_vec3_dot(ab, bp), d4 = ep_vec3_dot(ac, bp);
    if (d3 >= 0 && d4 <= d3) { /* vertex region b */
        memcpy(q, b, 3 * sizeof *q);
        return EP_CLOSEST_VERTEX1;
    }
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0) { /* edge ab */
        double v = d1 / (d1 - d3);
        for (int k = 0; k < 3; k++)
            q[k] = a[k] + v * ab[k];
        return EP_CLOSEST_EDGE0;
    }
    double d5 = ep_vec3_dot(ab, cp), d6 = ep_vec3_dot(ac, cp);
    if (d6 >= 0 && d5 <= d6) { /* vertex region c */
        memcpy(q, c, 3 * sizeof *q);
        return EP_CLOSEST_VERTEX2;
    }
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0) { /* edge ac */
        double w = d2 / (d2 - d6);
        for (int k = 0; k < 3; k++)
            q[k] = a[k] + w * ac[k];
        return EP_CLOSEST_EDGE2;
    }
    double va = d3 * d6 - d5 * d4;
    if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) { /* edge bc */
        double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        for (int k = 0; k < 3; k++)
            q[k] = b[k] + w * (c[k] - b[k]);
        return EP_CLOSEST_EDGE1;
    }
    double den = 1.0 / (va + vb + vc), v = vb * den, w = vc * den; /* interior */
    for (int k = 0; k < 3; k++)
        q[k] = a[k] + ab[k] * v + ac[k] * w;
    return EP_CLOSEST_FACE;
}

void ep_closest_on_triangle(const double p[3], const double a[3], const double b[3],
                            const double c[3], double q[3])
{
    ep_closest_on_triangle_feature(p, a, b, c, q);
}

typedef struct {
    ep_closest *c;
    double *cen; /* triangle centroids [nt][3] */
} builder;

static void tri_box(const ep_closest *c, int t, double *lo, double *hi)
{
    for (int k = 0; k < 3; k++) {
        const double *x = &c->x[3 * c->tri[3 * t + k]];
        for (int a = 0; a < 3; a++) {
            lo[a] = fmin(lo[a], x[a]);
            hi[a] = fmax(hi[a], x[a]);
        }
    }
}

struct sortctx {
    const double *cen;
    int axis;
};

static int cmp_centroid(const void *x, const void *y, void *arg)
{
    const struct sortctx *s = arg;
    double a = s->cen[3 * *(const int *)x + s->axis], b = s->cen[3 * *(const int *)y + s->axis];
    return (a > b) - (a < b);
}

static int build(builder *b, int first, int count)
{
    ep_closest *c = b->c;
    int id = c->nnodes++;
    ep_closest_node *n = &c->node[id];
    double clo[3] = {INFINITY, INFINITY, INFINITY}, chi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int a = 0; a < 3; a++) {
        n->lo[a] = INFINITY;
        n->hi[a] = -INFINITY;
    }
    for (int i = first; i < first + count; i++) {
        int t = c->perm[i];
        tri_box(c, t, n->lo, n->hi);
        for (int a = 0; a < 3; a++) {
            clo[a] = fmin(clo[a], b->cen[3 * t + a]);
            chi[a] = fmax(chi[a], b->cen[3 * t + a]);
        }
    }
    n->first = first;
    n->count = count;
    if (count <= LEAF_SIZE)
        return id;
    int axis = 0;
    for (int a = 1; a < 3; a++)
        if (chi[a] - clo[a] > chi[axis] - clo[axis])
            axis = a;
    /* Median split: depth stays below log2(nt) + 1, which bounds the query stack. */
    struct sortctx ctx = {b->cen, axis};
    qsort_r(c->perm + first, (size_t)count, sizeof *c->perm, cmp_centroid, &ctx);
    int nleft = count / 2;
    n->count = 0;
    int l = build(b, first, nleft);
    int r = build(b, first + nleft, count - nleft);
    c->node[id].left = l; /* node[] does not move: allocated for 2nt nodes */
    c->node[id].right = r;
    return id;
}

int ep_closest_build(ep_closest *c, const ep_mesh *m)
{
    builder b = {c, NULL};
    memset(c, 0, sizeof *c);
    c->x = m->vertices;
    c->tri = m->triangles;
    c->nt = m->nf;
    c->perm = ep_malloc((size_t)m->nf, sizeof *c->perm);
    c->node = ep_malloc(2 * (size_t)m->nf + 1, sizeof *c->node);
    b.cen = ep_malloc(3 * (size_t)m->nf, sizeof *b.cen);
    if (!c->perm || !c->node || !b.cen) {
        free(b.cen);
        ep_closest_free(c);
        return EP_ECOMPUTE;
    }
    for (int t = 0; t < m->nf; t++) {
        c->perm[t] = t;
        for (int a = 0; a < 3; a++)
            b.cen[3 * t + a] = (c->x[3 * c->tri[3 * t] + a] + c->x[3 * c->tri[3 * t + 1] + a] +
                                c->x[3 * c->tri[3 * t + 2] + a]) / 3.0;
    }
    if (m->nf)
        build(&b, 0, m->nf);
    free(b.cen);
    return EP_OK;
}

void ep_closest_refit(ep_closest *c)
{
    for (int id = c->nnodes - 1; id >= 0; id--) {
        ep_closest_node *n = &c->node[id];
        for (int a = 0; a < 3; a++)
            n->lo[a] = INFINITY, n->hi[a] = -INFINITY;
        if (n->count)
            for (int i = n->first; i < n->first + n->count; i++)
                tri_box(c, c->perm[i], n->lo, n->hi);
        else
            for (int a = 0; a < 3; a++) {
                n->lo[a] = fmin(c->node[n->left].lo[a], c->node[n->right].lo[a]);
                n->hi[a] = fmax(c->node[n->left].hi[a], c->node[n->right].hi[a]);
            }
    }
}

void ep_closest_free(ep_closest *c)
{
    free(c->perm);
    free(c->node);
    memset(c, 0, sizeof *c);
}

static double box_dist2(const ep_closest_node *n, const double *p)
{
    double d2 = 0;
    for (int a = 0; a < 3; a++) {
        double d = p[a] < n->lo[a] ? n->lo[a] - p[a] : p[a] > n->hi[a] ? p[a] - n->hi[a] : 0;
        d2 += d * d;
    }
    return d2;
}

/* Twice the area vector of triangle t of the hierarchy. */
static void tri_normal(const ep_closest *c, int t, double *n)
{
    const int *f = &c->tri[3 * t];
    double u[3], w[3];
    ep_vec3_sub(&c->x[3 * f[1]], &c->x[3 * f[0]], u);
    ep_vec3_sub(&c->x[3 * f[2]], &c->x[3 * f[0]], w);
    ep_vec3_cross(u, w, n);
}

/* The closest-point search, over every triangle or (facing non-NULL) over
 * those whose normal points within 90 degrees of facing. */
static void query(const ep_closest *c, const double p[3], const double *facing, double q[3], int *tri, double *d2)
{
    int stack[128], sp = 0;
    double best = INFINITY;
    *tri = -1;
    *d2 = INFINITY;
    if (c->nt == 0)
        return;
    stack[sp++] = 0;
    while (sp) {
        const ep_closest_node *n = &c->node[stack[--sp]];
        if (box_dist2(n, p) >= best)
            continue;
        if (n->count) {
            for (int i = n->first; i < n->first + n->count; i++) {
                int t = c->perm[i];
                double r[3], fn[3];
                if (facing) {
                    tri_normal(c, t, fn);
                    if (ep_vec3_dot(fn, facing) <= 0)
                        continue;
                }
                ep_closest_on_triangle(p, &c->x[3 * c->tri[3 * t]], &c->x[3 * c->tri[3 * t + 1]],
                                       &c->x[3 * c->tri[3 * t + 2]], r);
                double d = ep_vec3_dist2(r, p);
                if (d < best) {
                    best = d;
                    *tri = t;
                    memcpy(q, r, 3 * sizeof *q);
                }
            }
            continue;
        }
        /* Nearer child last, so it is searched first. */
        double dl = box_dist2(&c->node[n->left], p), dr = box_dist2(&c->node[n->right], p);
        stack[sp++] = dl < dr ? n->right : n->left;
        stack[sp++] = dl < dr ? n->left : n->right;
    }
    *d2 = best;
}

void ep_closest_query(const ep_closest *c, const double p[3], double q[3], int *tri, double *d2)
{
    query(c, p, NULL, q, tri, d2);
}

void ep_closest_query_facing(const ep_closest *c, const double p[3], const double n[3], double q[3], int *tri,
                             double *d2)
{
    query(c, p, n, q, tri, d2);
}

void ep_closest_barycentric(const double q[3], const double a[3], const double b[3], const double c[3], double w[3])
{
    double e0[3], e1[3], e2[3];
    ep_vec3_sub(b, a, e0);
    ep_vec3_sub(c, a, e1);
    ep_vec3_sub(q, a, e2);
    double d00 = ep_vec3_dot(e0, e0), d01 = ep_vec3_dot(e0, e1), d11 = ep_vec3_dot(e1, e1);
    double d20 = ep_vec3_dot(e2, e0), d21 = ep_vec3_dot(e2, e1), den = d00 * d11 - d01 * d01;
    w[1] = den > 0 ? (d11 * d20 - d01 * d21) / den : 0;
    w[2] = den > 0 ? (d00 * d21 - d01 * d20) / den : 0;
    w[0] = 1 - w[1] - w[2];
}

int ep_closest_segment_hit(const double p[3], const double q[3], const double a[3], const double b[3],
                           const double c[3], double *t)
{
    double d[3], e1[3], e2[3], pv[3], tv[3], qv[3];
    ep_vec3_sub(q, p, d);
    ep_vec3_sub(b, a, e1);
    ep_vec3_sub(c, a, e2);
    ep_vec3_sub(p, a, tv);
    ep_vec3_cross(d, e2, pv);
    double det = ep_vec3_dot(e1, pv);
    if (det == 0)
        return 0;
    double u = ep_vec3_dot(tv, pv) / det;
    if (u < 0 || u > 1)
        return 0;
    ep_vec3_cross(tv, e1, qv);
    double v = ep_vec3_dot(d, qv) / det;
    if (v < 0 || u + v > 1)
        return 0;
    *t = ep_vec3_dot(e2, qv) / det;
    return *t >= 0 && *t <= 1;
}

/* ep_closest_line's walk: the line p + s d, the segment a b of |s| <
 * reach, the nearest crossing so far (best, q, tri). */
typedef struct {
    const ep_closest *c;
    const double *p, *d;
    double a[3], b[3], reach, best, *q;
    int *tri, found;
} line_walk;

static int line_enter(void *arg, int id, const ep_closest_node *n)
{
    const line_walk *w = arg;
    const double *p = w->p, *d = w->d;
    double t0 = -w->best, t1 = w->best; /* slab test in the line parameter */
    (void)id;
    for (int k = 0; k < 3 && t0 <= t1; k++) {
        if (fabs(d[k]) < 1e-300) {
            if (p[k] < n->lo[k] || p[k] > n->hi[k])
                t0 = 1, t1 = 0;
            continue;
        }
        double s0 = (n->lo[k] - p[k]) / d[k], s1 = (n->hi[k] - p[k]) / d[k];
        t0 = fmax(t0, fmin(s0, s1));
        t1 = fmin(t1, fmax(s0, s1));
    }
    return !(t0 > t1 || (t0 > 0 ? t0 : t1 < 0 ? -t1 : 0) >= w->best);
}

static int line_leaf(void *arg, int t)
{
    line_walk *w = arg;
    const ep_closest *c = w->c;
    const int *f = &c->tri[3 * t];
    double s, fn[3];
    if (!ep_closest_segment_hit(w->a, w->b, &c->x[3 * f[0]], &c->x[3 * f[1]], &c->x[3 * f[2]], &s))
        return 0;
    double along = (2 * s - 1) * w->reach; /* back to p + along d */
    tri_normal(c, t, fn);
    if (fabs(along) >= w->best || ep_vec3_dot(fn, w->d) <= 0)
        return 0;
    w->best = fabs(along);
    for (int k = 0; k < 3; k++)
        w->q[k] = w->p[k] + along * w->d[k];
    *w->tri = t;
    w->found = 1;
    return 0;
}

int ep_closest_line(const ep_closest *c, const double p[3], const double d[3], double reach, double q[3], int *tri)
{
    line_walk w = {.c = c, .p = p, .d = d, .reach = reach, .best = reach, .q = q, .tri = tri};
    *tri = -1;
    for (int k = 0; k < 3; k++) { /* the segment p -+ reach d, parameter s in [0, 1] */
        w.a[k] = p[k] - reach * d[k];
        w.b[k] = p[k] + reach * d[k];
    }
    ep_closest_walk(c, line_enter, line_leaf, &w);
    return w.found;
}
