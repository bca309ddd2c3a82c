/*
 * closest.c — closest point on a triangle surface through an AABB hierarchy
 * (closest.h).
 */
#define _GNU_SOURCE /* qsort_r */
#include "closest.h"
#include "err.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LEAF_SIZE 4

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

void ep_closest_on_triangle(const double p[3], const double a[3], const double b[3],
                            const double c[3], double q[3])
{
    double ab[3], ac[3], ap[3], bp[3], cp[3];
    for (int k = 0; k < 3; k++) {
        ab[k] = b[k] - a[k];
        ac[k] = c[k] - a[k];
        ap[k] = p[k] - a[k];
        bp[k] = p[k] - b[k];
        cp[k] = p[k] - c[k];
    }
    double d1 = dot3(ab, ap), d2 = dot3(ac, ap);
    if (d1 <= 0 && d2 <= 0) { /* vertex region a */
        memcpy(q, a, 3 * sizeof *q);
        return;
    }
    double d3 = dot3(ab, bp), d4 = dot3(ac, bp);
    if (d3 >= 0 && d4 <= d3) { /* vertex region b */
        memcpy(q, b, 3 * sizeof *q);
        return;
    }
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0) { /* edge ab */
        double v = d1 / (d1 - d3);
        for (int k = 0; k < 3; k++)
            q[k] = a[k] + v * ab[k];
        return;
    }
    double d5 = dot3(ab, cp), d6 = dot3(ac, cp);
    if (d6 >= 0 && d5 <= d6) { /* vertex region c */
        memcpy(q, c, 3 * sizeof *q);
        return;
    }
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0) { /* edge ac */
        double w = d2 / (d2 - d6);
        for (int k = 0; k < 3; k++)
            q[k] = a[k] + w * ac[k];
        return;
    }
    double va = d3 * d6 - d5 * d4;
    if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) { /* edge bc */
        double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        for (int k = 0; k < 3; k++)
            q[k] = b[k] + w * (c[k] - b[k]);
        return;
    }
    double den = 1.0 / (va + vb + vc), v = vb * den, w = vc * den; /* interior */
    for (int k = 0; k < 3; k++)
        q[k] = a[k] + ab[k] * v + ac[k] * w;
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

void ep_closest_query(const ep_closest *c, const double p[3], double q[3], int *tri, double *d2)
{
    int stack[128], sp = 0;
    double best = INFINITY;
    *tri = -1;
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
                double r[3];
                ep_closest_on_triangle(p, &c->x[3 * c->tri[3 * t]], &c->x[3 * c->tri[3 * t + 1]],
                                       &c->x[3 * c->tri[3 * t + 2]], r);
                double d = (r[0] - p[0]) * (r[0] - p[0]) + (r[1] - p[1]) * (r[1] - p[1]) +
                           (r[2] - p[2]) * (r[2] - p[2]);
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
