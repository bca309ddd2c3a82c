/*
 * pseudonormal.c — closed-manifold check and angle-weighted pseudonormals
 * (pseudonormal.h).
 */
#include "pseudonormal.h"
#include "closest.h"
#include "err.h"
#include "halfedge.h"
#include "vec3.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The edges, each directed one with its reverse, and one fan a vertex. */
static int check_edges(const int *tri, int nv, int nt, const ep_dedge *e)
{
    long ne = 3 * (long)nt;
    for (long i = 0; i < ne; i++) {
        int a = (int)(e[i].key >> 32), b = (int)(uint32_t)e[i].key;
        if (i + 1 < ne && e[i + 1].key == e[i].key)
            return ep_fail(EP_EINPUT, "edge %d-%d is used twice in the same direction: not a consistently "
                           "oriented manifold", a + 1, b + 1);
        if (ep_halfedge_directed_find(e, ne, b, a) < 0)
            return ep_fail(EP_EINPUT, "edge %d-%d has no opposite: the surface is open", a + 1, b + 1);
    }
    int *deg = ep_calloc((size_t)nv + 1, sizeof *deg);
    char *seen = ep_calloc((size_t)nv + 1, 1);
    int st = deg && seen ? EP_OK : EP_ECOMPUTE;
    for (long i = 0; i < ne && !st; i++)
        deg[e[i].key >> 32]++;
    /* Walk around a from the corner (t, j): the triangle's edge (c, a)
     * reversed, (a, c), leaves a in the next triangle of the fan. */
    for (long cn = 0; cn < ne && !st; cn++) {
        int a = tri[cn];
        if (seen[a])
            continue;
        seen[a] = 1;
        long cur = cn;
        int len = 0;
        do {
            long t = cur / 3;
            int c = tri[3 * t + (cur % 3 + 2) % 3];
            cur = e[ep_halfedge_directed_find(e, ne, a, c)].corner;
            len++;
        } while (cur != cn && len <= deg[a]);
        if (len != deg[a])
            st = ep_fail(EP_EINPUT, "vertex %d joins more than one fan of triangles: not a manifold", a + 1);
    }
    free(deg);
    free(seen);
    return st;
}

/* Whether segment p q meets box (lo, hi) (slabs). */
static int segment_box(const double *p, const double *q, const double *lo, const double *hi)
{
    double t0 = 0, t1 = 1;
    for (int a = 0; a < 3; a++) {
        double d = q[a] - p[a];
        if (d == 0) {
            if (p[a] < lo[a] || p[a] > hi[a])
                return 0;
            continue;
        }
        double s0 = (lo[a] - p[a]) / d, s1 = (hi[a] - p[a]) / d;
        t0 = fmax(t0, fmin(s0, s1));
        t1 = fmin(t1, fmax(s0, s1));
        if (t0 > t1)
            return 0;
    }
    return 1;
}

/* check_crossings' walk: the edge a b of the surface (x, tri). */
typedef struct {
    const double *x;
    const int *tri;
    int a, b;
} edge_walk;

static int edge_enter(void *arg, int id, const ep_closest_node *n)
{
    const edge_walk *w = arg;
    (void)id;
    return segment_box(&w->x[3 * w->a], &w->x[3 * w->b], n->lo, n->hi);
}

/* EP_EINPUT when the edge crosses triangle t (the walk ends). */
static int edge_leaf(void *arg, int t)
{
    const edge_walk *w = arg;
    const int *f = &w->tri[3 * t];
    const double *x = w->x;
    int a = w->a, b = w->b;
    double s;
    if (f[0] == a || f[1] == a || f[2] == a || f[0] == b || f[1] == b || f[2] == b)
        return EP_OK;
    if (ep_closest_segment_hit(&x[3 * a], &x[3 * b], &x[3 * f[0]], &x[3 * f[1]], &x[3 * f[2]], &s))
        return ep_fail(EP_EINPUT, "edge %d-%d crosses triangle %d: the surface intersects itself", a + 1, b + 1,
                       t + 1);
    return EP_OK;
}

/* The first triangle edge that crosses a triangle sharing no vertex with
 * it: two triangles that cut through each other have one such edge. */
static int check_crossings(const double *x, int nv, const int *tri, int nt)
{
    ep_mesh view = {.nv = nv, .vertices = (double *)x, .nf = nt, .triangles = (int *)tri};
    ep_closest c;
    int st = ep_closest_build(&c, &view);
    for (long e = 0; e < 3 * (long)nt && !st; e++) {
        edge_walk w = {x, tri, tri[e], tri[3 * (e / 3) + (e % 3 + 1) % 3]};
        if (w.a < w.b) /* each edge once */
            st = ep_closest_walk(&c, edge_enter, edge_leaf, &w);
    }
    ep_closest_free(&c);
    return st;
}

int ep_pseudonormal_check(const double *x, int nv, const int *tri, int nt)
{
    if (nt < 4)
        return ep_fail(EP_EINPUT, "%d triangles cannot close a surface", nt);
    for (int t = 0; t < nt; t++) {
        const int *f = &tri[3 * t];
        double n[3];
        ep_vec3_normal(&x[3 * f[0]], &x[3 * f[1]], &x[3 * f[2]], n);
        if (f[0] == f[1] || f[1] == f[2] || f[2] == f[0] || !(ep_vec3_dot(n, n) > 0))
            return ep_fail(EP_EINPUT, "triangle %d has zero area", t + 1);
    }
    ep_dedge *e = ep_halfedge_directed(tri, nt);
    if (!e)
        return EP_ECOMPUTE;
    int st = check_edges(tri, nv, nt, e);
    free(e);
    return st ? st : check_crossings(x, nv, tri, nt);
}

void ep_pseudonormal_free(ep_pseudonormal *pn)
{
    free(pn->face);
    free(pn->edge);
    free(pn->vertex);
    memset(pn, 0, sizeof *pn);
}

int ep_pseudonormal_build(ep_pseudonormal *pn, const double *x, int nv, const int *tri, int nt)
{
    memset(pn, 0, sizeof *pn);
    pn->face = ep_malloc(3 * (size_t)nt + 3, sizeof *pn->face);
    pn->edge = ep_malloc(9 * (size_t)nt + 9, sizeof *pn->edge);
    pn->vertex = ep_calloc(3 * (size_t)nv + 3, sizeof *pn->vertex);
    ep_dedge *e = ep_halfedge_directed(tri, nt);
    if (!pn->face || !pn->edge || !pn->vertex || !e) {
        free(e);
        ep_pseudonormal_free(pn);
        return EP_ECOMPUTE;
    }
    for (int t = 0; t < nt; t++) {
        const int *f = &tri[3 * t];
        double *n = &pn->face[3 * t];
        ep_vec3_normal(&x[3 * f[0]], &x[3 * f[1]], &x[3 * f[2]], n);
        double len = ep_vec3_norm(n);
        for (int k = 0; k < 3; k++)
            n[k] = len > 0 ? n[k] / len : 0;
        for (int j = 0; j < 3; j++) { /* the angle at corner j */
            double u[3], v[3];
            ep_vec3_sub(&x[3 * f[(j + 1) % 3]], &x[3 * f[j]], u);
            ep_vec3_sub(&x[3 * f[(j + 2) % 3]], &x[3 * f[j]], v);
            double cr[3];
            ep_vec3_cross(u, v, cr);
            double ang = atan2(ep_vec3_norm(cr), ep_vec3_dot(u, v));
            for (int k = 0; k < 3; k++)
                pn->vertex[3 * f[j] + k] += ang * n[k];
        }
    }
    long ne = 3 * (long)nt;
    for (long c = 0; c < ne; c++) { /* edge c of triangle c / 3: its face plus the opposite one */
        long t = c / 3;
        int a = tri[c], b = tri[3 * t + (c % 3 + 1) % 3];
        long o = ep_halfedge_directed_find(e, ne, b, a);
        long to = o >= 0 ? e[o].corner / 3 : t;
        for (int k = 0; k < 3; k++)
            pn->edge[3 * c + k] = pn->face[3 * t + k] + pn->face[3 * to + k];
    }
    free(e);
    return EP_OK;
}

const double *ep_pseudonormal_of(const ep_pseudonormal *pn, const int *tri, int t, int feature)
{
    if (feature >= EP_CLOSEST_VERTEX0 && feature <= EP_CLOSEST_VERTEX2)
        return &pn->vertex[3 * tri[3 * t + feature - EP_CLOSEST_VERTEX0]];
    if (feature >= EP_CLOSEST_EDGE0 && feature <= EP_CLOSEST_EDGE2)
        return &pn->edge[3 * (3 * (long)t + feature - EP_CLOSEST_EDGE0)];
    return &pn->face[3 * (long)t];
}
