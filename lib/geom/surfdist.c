/*
 * surfdist.c — sampled distances, angles, opposed normals and genus of a
 * fitted surface (surfdist.h).
 */
#include "surfdist.h"
#include "err.h"
#include "vec3.h"
#include "sort.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void corner(const ep_mesh *m, int t, int k, const double **p) { *p = &m->vertices[3 * m->triangles[3 * t + k]]; }

static void normal_of(const double *x, const int *f, double *n) { ep_vec3_normal(&x[3 * f[0]], &x[3 * f[1]], &x[3 * f[2]], n); }

static double area_of(const ep_mesh *m, int t)
{
    double n[3];
    normal_of(m->vertices, &m->triangles[3 * t], n);
    return 0.5 * sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
}

/* Angle-weighted vertex normals (Thuermer & Wuethrich 1998), unit:
 * n [nv][3] zeroed by the caller. */
static void angle_weighted_normals(const ep_mesh *m, double *n)
{
    for (int t = 0; t < m->nf; t++) {
        const int *f = &m->triangles[3 * t];
        double fn[3];
        normal_of(m->vertices, f, fn);
        double l = sqrt(fn[0] * fn[0] + fn[1] * fn[1] + fn[2] * fn[2]);
        if (!(l > 0))
            continue;
        for (int k = 0; k < 3; k++) {
            const double *p = &m->vertices[3 * f[k]], *a = &m->vertices[3 * f[(k + 1) % 3]], *b = &m->vertices[3 * f[(k + 2) % 3]];
            double u[3] = {a[0] - p[0], a[1] - p[1], a[2] - p[2]}, v[3] = {b[0] - p[0], b[1] - p[1], b[2] - p[2]};
            double c[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
            double ang = atan2(sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]), u[0] * v[0] + u[1] * v[1] + u[2] * v[2]);
            for (int d = 0; d < 3; d++)
                n[3 * f[k] + d] += ang * fn[d] / l;
        }
    }
}


/* One-sided distances from the samples of a to the surface of tree b:
 * maximum and area-weighted mean square.  Returns the number of samples. */
static long one_sided(const ep_mesh *a, const ep_closest *b, double mean_area, int density, double *dmax,
                      double *ms)
{
    double mx = 0, sum = 0, wsum = 0;
    long count = 0;
#pragma omp parallel for schedule(dynamic, 256) reduction(max : mx) reduction(+ : sum, wsum, count)
    for (int t = 0; t < a->nf; t++) {
        const double *p0, *p1, *p2;
        corner(a, t, 0, &p0);
        corner(a, t, 1, &p1);
        corner(a, t, 2, &p2);
        double area = area_of(a, t);
        int s = (int)ceil(sqrt(density * area / mean_area));
        s = s < 1 ? 1 : s > 64 ? 64 : s;
        /* Centroids of the s^2 triangles of a regular split: barycentric
         * (i + 1/3, j + 1/3) / s for the upright ones, (i + 2/3, j + 2/3) / s
         * for the inverted ones. */
        for (int i = 0; i < s; i++)
            for (int j = 0; i + j < s; j++)
                for (int up = 0; up < 2; up++) {
                    if (!up && i + j + 1 >= s)
                        continue;
                    double u = (i + (up ? 1.0 / 3 : 2.0 / 3)) / s, v = (j + (up ? 1.0 / 3 : 2.0 / 3)) / s, w = 1 - u - v;
                    double p[3], q[3], d2;
                    int tri;
                    for (int k = 0; k < 3; k++)
                        p[k] = w * p0[k] + u * p1[k] + v * p2[k];
                    ep_closest_query(b, p, q, &tri, &d2);
                    mx = d2 > mx ? d2 : mx;
                    sum += d2 * area / (s * s);
                    wsum += area / (s * s);
                    count++;
                }
    }
    /* Vertices: where the largest distances of a fit usually are. */
#pragma omp parallel for schedule(static) reduction(max : mx) reduction(+ : count)
    for (int v = 0; v < a->nb; v++) {
        double q[3], d2;
        int tri;
        ep_closest_query(b, &a->vertices[3 * a->boundary[v]], q, &tri, &d2);
        mx = d2 > mx ? d2 : mx;
        count++;
    }
    *dmax = sqrt(mx);
    *ms = wsum > 0 ? sum / wsum : 0;
    return count;
}

int ep_surfdist_compare(ep_surfdist *d, const ep_mesh *m, const ep_closest *tm, const ep_mesh *ref,
                        const ep_closest *tref, int density)
{
    int st;
    memset(d, 0, sizeof *d);
    if ((st = ep_surfdist_genus(m, &d->genus)) || (st = ep_surfdist_genus(ref, &d->ref_genus)) ||
        (st = ep_surfdist_angles(m, &d->min_angle, &d->median_angle)))
        return st;
    double am, ar, diag = ep_mesh_diameter(ref), h1, h2, m1, m2;
    ep_mesh_surface_measures(m, &am, &(double){0});
    ep_mesh_surface_measures(ref, &ar, &(double){0});
    /* Sample spacing of the denser surface on both. */
    double mean = fmin(am / m->nf, ar / ref->nf);
    d->samples = one_sided(m, tref, mean, density, &h1, &m1) + one_sided(ref, tm, mean, density, &h2, &m2);
    d->hausdorff_to_ref = h1 / diag;
    d->hausdorff_from_ref = h2 / diag;
    d->rms_to_ref = sqrt(m1) / diag;
    d->rms_from_ref = sqrt(m2) / diag;
    d->hausdorff = fmax(d->hausdorff_to_ref, d->hausdorff_from_ref);
    d->rms = fmax(d->rms_to_ref, d->rms_from_ref);
    double *vn = ep_calloc(3 * (size_t)ref->nv, sizeof *vn);
    if (!vn)
        return EP_ECOMPUTE;
    angle_weighted_normals(ref, vn);
    int opposed = 0;
#pragma omp parallel for schedule(static) reduction(+ : opposed)
    for (int t = 0; t < m->nf; t++) {
        const int *f = &m->triangles[3 * t], *g;
        double c[3], q[3], d2, n[3], nr[3] = {0, 0, 0}, w[3];
        int tri;
        for (int k = 0; k < 3; k++)
            c[k] = (m->vertices[3 * f[0] + k] + m->vertices[3 * f[1] + k] + m->vertices[3 * f[2] + k]) / 3;
        ep_closest_query(tref, c, q, &tri, &d2);
        normal_of(m->vertices, f, n);
        g = &ref->triangles[3 * tri];
        ep_closest_barycentric(q, &ref->vertices[3 * g[0]], &ref->vertices[3 * g[1]], &ref->vertices[3 * g[2]], w);
        for (int k = 0; k < 3; k++)
            for (int a = 0; a < 3; a++)
                nr[a] += w[k] * vn[3 * g[k] + a];
        opposed += n[0] * nr[0] + n[1] * nr[1] + n[2] * nr[2] < 0;
    }
    free(vn);
    d->opposed = opposed;
    for (int t = 0; t < m->nf; t++) {
        const int *f = &m->triangles[3 * t];
        d->thin += ep_surfdist_min_angle(&m->vertices[3 * f[0]], &m->vertices[3 * f[1]], &m->vertices[3 * f[2]]) <
                   EP_SURFDIST_MIN_ANGLE;
    }
    if ((st = ep_surfdist_folds(m, NULL, &d->folded)))
        return st;
    return ep_surfdist_intersections(m, tm, NULL, NULL, &d->intersecting);
}

void ep_surfdist_unit_normals(const ep_mesh *m, double *fn, double *vn)
{
    memset(vn, 0, 3 * (size_t)m->nv * sizeof *vn);
    for (int t = 0; t < m->nf; t++) {
        double *n = &fn[3 * t];
        normal_of(m->vertices, &m->triangles[3 * t], n);
        double l = sqrt(ep_vec3_dot(n, n));
        for (int d = 0; d < 3; d++)
            n[d] = l > 0 ? n[d] / l : 0;
        for (int k = 0; k < 3; k++)
            for (int d = 0; d < 3; d++)
                vn[3 * m->triangles[3 * t + k] + d] += n[d];
    }
}

int ep_surfdist_folded(const double *n, const double *a, const double *b, const double *c)
{
    double s[3];
    for (int d = 0; d < 3; d++)
        s[d] = a[d] + b[d] + c[d] - 3 * n[d];
    return ep_vec3_dot(n, s) < 0;
}

int ep_surfdist_folds(const ep_mesh *m, char *flag, int *count)
{
    double *fn = ep_malloc(3 * (size_t)m->nf + 1, sizeof *fn), *vn = ep_malloc(3 * (size_t)m->nv + 1, sizeof *vn);
    int n = 0;
    if (!fn || !vn) {
        free(fn);
        free(vn);
        return EP_ECOMPUTE;
    }
    ep_surfdist_unit_normals(m, fn, vn);
    for (int t = 0; t < m->nf; t++) {
        const int *f = &m->triangles[3 * t];
        int x = ep_surfdist_folded(&fn[3 * t], &vn[3 * f[0]], &vn[3 * f[1]], &vn[3 * f[2]]);
        n += x;
        if (flag)
            flag[t] = (char)x;
    }
    *count = n;
    free(fn);
    free(vn);
    return EP_OK;
}

static int uf_find(int *p, int a)
{
    while (p[a] != a) {
        p[a] = p[p[a]];
        a = p[a];
    }
    return a;
}

int ep_surfdist_genus(const ep_mesh *m, int *genus)
{
    int st = ep_mesh_check_closed(m);
    if (st)
        return st;
    int *p = ep_malloc((size_t)m->nv, sizeof *p), parts = 0, used = 0;
    char *on = ep_calloc((size_t)m->nv, 1);
    if (!p || !on) {
        free(p);
        free(on);
        return EP_ECOMPUTE;
    }
    for (int v = 0; v < m->nv; v++)
        p[v] = v;
    for (int t = 0; t < m->nf; t++)
        for (int k = 0; k < 3; k++) {
            int a = uf_find(p, m->triangles[3 * t + k]), b = uf_find(p, m->triangles[3 * t + (k + 1) % 3]);
            p[a] = b;
            on[m->triangles[3 * t + k]] = 1;
        }
    for (int v = 0; v < m->nv; v++) {
        used += on[v];
        parts += on[v] && uf_find(p, v) == v;
    }
    /* Closed: every edge has two faces, E = 3F/2. */
    long chi = (long)used - 3L * m->nf / 2 + m->nf;
    *genus = (int)(parts - chi / 2);
    free(p);
    free(on);
    return EP_OK;
}

/* Angle at p of the triangle (p q r), degrees. */
static double corner_angle(const double *p, const double *q, const double *r)
{
    double u[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]}, v[3] = {r[0] - p[0], r[1] - p[1], r[2] - p[2]};
    double c[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    return atan2(sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]), u[0] * v[0] + u[1] * v[1] + u[2] * v[2]) * 180 / M_PI;
}

double ep_surfdist_min_angle(const double *a, const double *b, const double *c)
{
    return fmin(corner_angle(a, b, c), fmin(corner_angle(b, c, a), corner_angle(c, a, b)));
}

int ep_surfdist_angles(const ep_mesh *m, double *min_deg, double *median_deg)
{
    double *a = ep_malloc(3 * (size_t)m->nf + 1, sizeof *a);
    if (!a)
        return EP_ECOMPUTE;
    for (int t = 0; t < m->nf; t++)
        for (int k = 0; k < 3; k++) {
            const double *p, *q, *r;
            corner(m, t, k, &p);
            corner(m, t, (k + 1) % 3, &q);
            corner(m, t, (k + 2) % 3, &r);
            a[3 * t + k] = corner_angle(p, q, r);
        }
    size_t n = 3 * (size_t)m->nf;
    ep_sort_doubles(a, n);
    *min_deg = n ? a[0] : 0;
    *median_deg = n ? (n % 2 ? a[n / 2] : 0.5 * (a[n / 2 - 1] + a[n / 2])) : 0;
    free(a);
    return EP_OK;
}

/* Does segment p q cross triangle (a b c) at a parameter in (lo, hi)? */
static int segment_crosses(const double *p, const double *q, const double *a, const double *b, const double *c,
                           double lo, double hi)
{
    double t;
    return ep_closest_segment_hit(p, q, a, b, c, &t) && t > lo && t < hi;
}

/* Do triangles s and t of m cross?  Shared corners are left out of the
 * test: an edge from a shared corner is tested only away from it. */
static int triangles_cross(const ep_mesh *m, int s, int t)
{
    const int *f = &m->triangles[3 * s], *g = &m->triangles[3 * t];
    int shared = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            shared += f[i] == g[j];
    if (shared >= 2)
        return 0;
    const double eps = 1e-9;
    for (int pass = 0; pass < 2; pass++) {
        const int *e = pass ? g : f, *o = pass ? f : g;
        const double *a = &m->vertices[3 * o[0]], *b = &m->vertices[3 * o[1]], *c = &m->vertices[3 * o[2]];
        for (int k = 0; k < 3; k++) {
            int p = e[k], q = e[(k + 1) % 3];
            int ps = p == o[0] || p == o[1] || p == o[2], qs = q == o[0] || q == o[1] || q == o[2];
            if (segment_crosses(&m->vertices[3 * p], &m->vertices[3 * q], a, b, c, ps ? eps : 0, qs ? 1 - eps : 1))
                return 1;
        }
    }
    return 0;
}

static int boxes_overlap(const double *lo, const double *hi, const double *lo2, const double *hi2)
{
    return lo[0] <= hi2[0] && lo2[0] <= hi[0] && lo[1] <= hi2[1] && lo2[1] <= hi[1] && lo[2] <= hi2[2] && lo2[2] <= hi[2];
}

/* The crossing search's walk for triangle s of m: its box (lo, hi) and
 * the pairs (s, t), t > s, found so far (mine[2 nm], room for cm). */
typedef struct {
    const ep_mesh *m;
    const char *only; /* NULL, or the flagged triangles */
    int s;
    double lo[3], hi[3];
    int *mine;
    long nm, cm;
} cross_walk;

static int cross_enter(void *arg, int id, const ep_closest_node *nd)
{
    const cross_walk *w = arg;
    (void)id;
    return boxes_overlap(w->lo, w->hi, nd->lo, nd->hi);
}

/* 1 when out of memory (the walk ends). */
static int cross_leaf(void *arg, int t)
{
    cross_walk *w = arg;
    /* each pair once: from its lower triangle, or from the flagged one */
    if ((t <= w->s && (!w->only || w->only[t])) || !triangles_cross(w->m, w->s, t))
        return 0;
    if (w->nm == w->cm) {
        w->cm = w->cm ? 2 * w->cm : 64;
        int *p = realloc(w->mine, 2 * sizeof *w->mine * (size_t)w->cm);
        if (!p)
            return 1;
        w->mine = p;
    }
    w->mine[2 * w->nm] = t < w->s ? t : w->s, w->mine[2 * w->nm + 1] = t < w->s ? w->s : t;
    w->nm++;
    return 0;
}

int ep_surfdist_intersections(const ep_mesh *m, const ep_closest *tm, const char *only, int **pairs, long *npairs)
{
    long n = 0, cap = 0;
    int *out = NULL, st = EP_OK;
    *npairs = 0;
    if (pairs)
        *pairs = NULL;
    if (!tm->nt)
        return EP_OK;
#pragma omp parallel
    {
        cross_walk w = {.m = m, .only = only};
        int oom = 0;
#pragma omp for schedule(dynamic, 256)
        for (int s = 0; s < m->nf; s++) {
            if (only && !only[s])
                continue;
            w.s = s;
            for (int a = 0; a < 3; a++) {
                w.lo[a] = INFINITY, w.hi[a] = -INFINITY;
                for (int k = 0; k < 3; k++) {
                    double x = m->vertices[3 * m->triangles[3 * s + k] + a];
                    w.lo[a] = fmin(w.lo[a], x), w.hi[a] = fmax(w.hi[a], x);
                }
            }
            oom |= ep_closest_walk(tm, cross_enter, cross_leaf, &w);
        }
        int *mine = w.mine;
        long nm = w.nm;
#pragma omp critical
        {
            if (oom)
                st = EP_ECOMPUTE;
            if (nm && pairs && !st) {
                if (n + nm > cap) {
                    cap = 2 * (n + nm);
                    if (ep_grow(&out, 2 * (size_t)cap, sizeof *out))
                        st = EP_ECOMPUTE;
                }
                if (!st)
                    memcpy(&out[2 * n], mine, 2 * sizeof *mine * (size_t)nm);
            }
            n += nm;
        }
        free(mine);
    }
    if (st) { /* the message here: a worker's is its own thread's */
        free(out);
        return ep_fail(st, "out of memory: the list of crossing triangles");
    }
    *npairs = n;
    if (pairs)
        *pairs = out;
    else
        free(out);
    return EP_OK;
}
