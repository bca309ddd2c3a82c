/*
 * pointshell.c — nested pointshells, their tree and binding (pointshell.h;
 * 001 §3.6-3.9, MATH.md §11).
 */
#include "pointshell.h"
#include "closest.h"
#include "distfield.h"
#include "embed.h"
#include "err.h"
#include "hex.h"
#include "pseudonormal.h"
#include "rng.h"
#include "tet.h"
#include "vec3.h"

#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const ep_pointshell_order_name[3] = {"repulsion", "farthest", "vertices"};

/* Loops over fewer points run on one thread: a parallel region costs more
 * than their work, and far more when the cores are shared. */
#define EP_POINTSHELL_SERIAL 2048

/* ---- the level set T: projection and inward normal ---- */

typedef struct {
    const ep_mesh *m;
    ep_closest tree;
    ep_pseudonormal pn; /* closed input */
    double D, eps;      /* offset (0: the zero set) and Newton's tolerance */
    ep_distfield g;     /* offset: the unsigned field and its flood mask */
    unsigned char *outer;
} levelset;

/* Project x onto T: p, the inward unit normal n; 0, or -1 when the point is
 * on a removed (interior) component of an offset surface. */
static int project(const levelset *T, const double x[3], double p[3], double n[3])
{
    double c[3], d2, y[3];
    int t;
    memcpy(y, x, sizeof y);
    if (T->D == 0) { /* MATH.md §11: Newton on the exact signed distance lands on c at once */
        ep_closest_query(&T->tree, y, c, &t, &d2);
        const int *f = &T->m->triangles[3 * t];
        const double *X = T->m->vertices;
        double q[3];
        int feat = ep_closest_on_triangle_feature(y, &X[3 * f[0]], &X[3 * f[1]], &X[3 * f[2]], q);
        const double *pn = ep_pseudonormal_of(&T->pn, T->m->triangles, t, feat);
        double l = ep_vec3_norm(pn), fn[3];
        if (!(l > 0)) { /* a degenerate triangle's feature: the direction to the point, or any unit */
            ep_vec3_sub(c, y, fn);
            l = ep_vec3_norm(fn);
            if (!(l > 0))
                fn[0] = 1, fn[1] = fn[2] = 0, l = 1;
            pn = fn, l = -l;
        }
        for (int i = 0; i < 3; i++) {
            p[i] = c[i];
            n[i] = -pn[i] / l;
        }
        return 0;
    }
    for (int it = 0; it < 30; it++) { /* x <- x - (phi - D) grad phi, grad phi = (x - c) / |x - c| */
        ep_closest_query(&T->tree, y, c, &t, &d2);
        double d = sqrt(d2), dir[3];
        if (d > 1e-12 * T->D)
            for (int i = 0; i < 3; i++)
                dir[i] = (y[i] - c[i]) / d;
        else {
            const int *f = &T->m->triangles[3 * t];
            const double *X = T->m->vertices;
            ep_vec3_normal(&X[3 * f[0]], &X[3 * f[1]], &X[3 * f[2]], dir);
            double l = ep_vec3_norm(dir);
            for (int i = 0; i < 3; i++)
                dir[i] /= l;
        }
        for (int i = 0; i < 3; i++) {
            n[i] = -dir[i];
            y[i] = c[i] + T->D * dir[i];
        }
        if (fabs(d - T->D) < T->eps)
            break;
    }
    memcpy(p, y, sizeof y);
    /* kept when a cell's step outward reaches the flooded outside */
    const ep_distfield *g = &T->g;
    long m1 = g->n + 1, ix[3];
    for (int i = 0; i < 3; i++) {
        double v = (p[i] - g->h * n[i] - g->origin[i]) / g->h;
        if (!(v >= 0 && v < g->n))
            return 0;
        ix[i] = (long)v;
    }
    for (int k = 0; k < 8; k++)
        if (T->outer[(ix[0] + (k & 1)) + m1 * ((ix[1] + (k >> 1 & 1)) + m1 * (ix[2] + (k >> 2)))])
            return 0;
    return -1;
}

/* The grid points of d > D connected to the box's faces (6-neighbours). */
static int flood(levelset *T)
{
    const ep_distfield *g = &T->g;
    long m1 = g->n + 1, np = m1 * m1 * m1, head = 0, tail = 0;
    long *queue = ep_malloc((size_t)np, sizeof *queue);
    if (!queue || !(T->outer = ep_calloc((size_t)np, 1))) {
        free(queue);
        return EP_ECOMPUTE;
    }
    for (long id = 0; id < np; id++) {
        long i = id % m1, j = id / m1 % m1, k = id / (m1 * m1);
        int face = i == 0 || j == 0 || k == 0 || i == g->n || j == g->n || k == g->n;
        if (face && g->value[id] > T->D) {
            T->outer[id] = 1;
            queue[tail++] = id;
        }
    }
    const long step[6] = {1, -1, m1, -m1, m1 * m1, -m1 * m1};
    while (head < tail) {
        long id = queue[head++], c[3] = {id % m1, id / m1 % m1, id / (m1 * m1)};
        for (int s = 0; s < 6; s++) {
            long a = c[s / 2] + (s & 1 ? -1 : 1);
            if (a < 0 || a > g->n)
                continue;
            long nb = id + step[s];
            if (!T->outer[nb] && g->value[nb] > T->D) {
                T->outer[nb] = 1;
                queue[tail++] = nb;
            }
        }
    }
    free(queue);
    return EP_OK;
}

static void levelset_free(levelset *T)
{
    ep_closest_free(&T->tree);
    ep_pseudonormal_free(&T->pn);
    ep_distfield_free(&T->g);
    free(T->outer);
}

static int levelset_build(levelset *T, const ep_mesh *m, const ep_pointshell_opts *o, int threads)
{
    int st;
    memset(T, 0, sizeof *T);
    T->m = m;
    T->D = o->offset;
    T->eps = 1e-9 * ep_mesh_diameter(m);
    if (m->nf < 1)
        return ep_fail(EP_EINPUT, "%s: no triangles to sample", m->source);
    for (long i = 0; i < 3L * m->nv; i++)
        if (!isfinite(m->vertices[i]))
            return ep_fail(EP_EINPUT, "%s: vertex %ld is not finite", m->source, i / 3 + 1);
    if (T->D == 0) {
        /* closed and oriented (the closest feature's pseudonormal is then
         * defined); a scan that passes through itself is accepted: its
         * points lie on it, and only signs far from it would need more */
        if ((st = ep_mesh_check_closed(m))) {
            if (st == EP_EINPUT) {
                char why[EP_ERRMSG_MAX];
                snprintf(why, sizeof why, "%s", ep_errmsg());
                return ep_fail(EP_EINPUT, "%s: %s (the zero set needs a closed, oriented manifold; give --offset D)",
                               m->source, why);
            }
            return st;
        }
        if ((st = ep_pseudonormal_build(&T->pn, m->vertices, m->nv, m->triangles, m->nf)))
            return st;
    } else {
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, box[4], ext = 0;
        for (int v = 0; v < m->nv; v++)
            for (int i = 0; i < 3; i++) {
                lo[i] = fmin(lo[i], m->vertices[3 * v + i]);
                hi[i] = fmax(hi[i], m->vertices[3 * v + i]);
            }
        for (int i = 0; i < 3; i++)
            ext = fmax(ext, hi[i] - lo[i]);
        box[3] = 1.2 * (ext + 2 * T->D);
        for (int i = 0; i < 3; i++)
            box[i] = 0.5 * (lo[i] + hi[i]) - 0.5 * box[3];
        if ((st = ep_distfield_setup(&T->g, m, o->res, 1.5, box)) ||
            (st = ep_distfield_compute(&T->g, m, EP_DISTFIELD_UNSIGNED, 0, 0, threads)) || (st = flood(T)))
            return st;
    }
    if ((st = ep_closest_build(&T->tree, m)))
        return st;
    return EP_OK;
}

/* ---- a hash grid over points ---- */

typedef struct {
    double lo[3], cell;
    unsigned mask;
    int *start, *item; /* start[mask + 2], item[n] */
} hgrid;

static unsigned hkey(long i, long j, long k, unsigned mask)
{
    return (unsigned)((unsigned long)(i * 73856093L) ^ (unsigned long)(j * 19349663L) ^
                      (unsigned long)(k * 83492791L)) & mask;
}

static void hcell(const hgrid *G, const double *x, long c[3])
{
    for (int i = 0; i < 3; i++)
        c[i] = (long)floor((x[i] - G->lo[i]) / G->cell);
}

static void hgrid_free(hgrid *G)
{
    free(G->start);
    free(G->item);
    G->start = G->item = NULL;
}

/* Bucket the points x [n][3] by cells of edge cell. */
static int hgrid_build(hgrid *G, const double *x, int n, double cell)
{
    unsigned size = 1;
    while (size < 2u * (unsigned)(n + 1))
        size <<= 1;
    hgrid_free(G);
    G->mask = size - 1;
    G->cell = cell;
    G->lo[0] = G->lo[1] = G->lo[2] = 0;
    if (!(G->start = ep_calloc((size_t)size + 1, sizeof *G->start)) ||
        !(G->item = ep_malloc((size_t)n + 1, sizeof *G->item)))
        return EP_ECOMPUTE;
    unsigned *key = ep_malloc((size_t)n + 1, sizeof *key);
    if (!key)
        return EP_ECOMPUTE;
    for (int s = 0; s < n; s++) {
        long c[3];
        hcell(G, &x[3 * (size_t)s], c);
        key[s] = hkey(c[0], c[1], c[2], G->mask);
        G->start[key[s] + 1]++;
    }
    for (unsigned b = 0; b < size; b++)
        G->start[b + 1] += G->start[b];
    int *fill = ep_malloc((size_t)size, sizeof *fill);
    if (!fill) {
        free(key);
        return EP_ECOMPUTE;
    }
    memcpy(fill, G->start, size * sizeof *fill);
    for (int s = 0; s < n; s++)
        G->item[fill[key[s]]++] = s;
    free(fill);
    free(key);
    return EP_OK;
}

/* The nearest point to y among the gridded x other than self: its id (or -1)
 * and distance, by growing cubes of cells until the best is inside. */
static int hgrid_nearest(const hgrid *G, const double *x, int n, const double y[3], int self, double *dist)
{
    long c[3];
    int best = -1;
    *dist = INFINITY;
    if (n < 1)
        return -1;
    hcell(G, y, c);
    double b2 = INFINITY;
    for (long k = 1; k < 1L << 20; k *= 2) {
        for (long i = c[0] - k; i <= c[0] + k; i++)
            for (long j = c[1] - k; j <= c[1] + k; j++)
                for (long l = c[2] - k; l <= c[2] + k; l++) {
                    unsigned h = hkey(i, j, l, G->mask);
                    for (int e = G->start[h]; e < G->start[h + 1]; e++) {
                        int s = G->item[e];
                        double d2 = ep_vec3_dist2(&x[3 * (size_t)s], y);
                        if (s != self && (d2 < b2 || (d2 == b2 && s < best))) {
                            b2 = d2;
                            best = s;
                        }
                    }
                }
        if (sqrt(b2) <= k * G->cell)
            break;
        if (best < 0 && (double)(2 * k + 1) * (2 * k + 1) * (2 * k + 1) > 8.0 * G->mask && n > 0) {
            /* sparse far away: brute force */
            for (int s = 0; s < n; s++) {
                double d2 = ep_vec3_dist2(&x[3 * (size_t)s], y);
                if (s != self && d2 < b2) {
                    b2 = d2;
                    best = s;
                }
            }
            break;
        }
    }
    *dist = sqrt(b2);
    return best;
}

/* ---- sampling ---- */

/* Stratified, area-weighted samples of the triangles (001 §3.8.1, [Tur92]):
 * sample i falls in the triangle of cumulative area (i + u) / n. */
static void surface_sample(const ep_mesh *m, const double *cum, ep_rng *rng, int i, int n, double x[3], double nrm[3])
{
    double u = (i + ep_rng_uniform(rng)) / n * cum[m->nf];
    int lo = 0, hi = m->nf - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (cum[mid + 1] < u)
            lo = mid + 1;
        else
            hi = mid;
    }
    const int *f = &m->triangles[3 * lo];
    const double *a = &m->vertices[3 * f[0]], *b = &m->vertices[3 * f[1]], *c = &m->vertices[3 * f[2]];
    double r1 = sqrt(ep_rng_uniform(rng)), r2 = ep_rng_uniform(rng);
    for (int k = 0; k < 3; k++)
        x[k] = (1 - r1) * a[k] + r1 * (1 - r2) * b[k] + r1 * r2 * c[k];
    ep_vec3_normal(a, b, c, nrm);
    double l = ep_vec3_norm(nrm);
    for (int k = 0; k < 3; k++)
        nrm[k] /= l > 0 ? l : 1;
}

/* A candidate on T: a sample, pushed off the surface to a random side by D. */
static int candidate(const levelset *T, const double *cum, ep_rng *rng, int i, int n, double p[3], double nrm[3])
{
    double x[3], fn[3];
    surface_sample(T->m, cum, rng, i, n, x, fn);
    double side = ep_rng_uniform(rng) < 0.5 ? -1 : 1;
    for (int k = 0; k < 3; k++)
        x[k] += side * T->D * fn[k];
    return project(T, x, p, nrm);
}

/* Fill points [from, to) of ps with candidates on T (stratified over the
 * triangles, those on removed components drawn again). */
static int inject(ep_pointshell *ps, const levelset *T, const double *cum, ep_rng *rng, int from, int to)
{
    int n = to - from, got = 0;
    for (long tries = 0; got < n; tries++) {
        if (tries > 50L * n + 1000)
            return ep_fail(EP_EINPUT, "%s: no point of the offset surface at %g survives the removal of interior "
                           "components", T->m->source, T->D);
        int s = from + got;
        if (candidate(T, cum, rng, (int)(tries % n), n, &ps->P[3 * (size_t)s], &ps->N[3 * (size_t)s]) == 0)
            got++;
    }
    return EP_OK;
}

/* One level of particle repulsion (001 §3.8.1; MATH.md §11): points
 * [from, to) free, [0, from) frozen. */
static int repel(ep_pointshell *ps, const levelset *T, int from, int to, double s, int iterations, int threads)
{
    double R = 2 * s, eta = s / 8, cap = s / 4;
    hgrid G = {0};
    double *nx = ep_malloc((size_t)(to - from) * 6 + 1, sizeof *nx);
    int st = EP_OK;
    if (!nx)
        return EP_ECOMPUTE;
    for (int it = 0; it < iterations && !st; it++) {
        if ((st = hgrid_build(&G, ps->P, to, R)))
            break;
#pragma omp parallel for schedule(dynamic, 256) num_threads(threads) if (to - from > EP_POINTSHELL_SERIAL)
        for (int a = from; a < to; a++) {
            const double *x = &ps->P[3 * (size_t)a];
            double f[3] = {0, 0, 0}, y[3];
            long c[3];
            hcell(&G, x, c);
            for (long i = c[0] - 1; i <= c[0] + 1; i++)
                for (long j = c[1] - 1; j <= c[1] + 1; j++)
                    for (long k = c[2] - 1; k <= c[2] + 1; k++) {
                        unsigned h = hkey(i, j, k, G.mask);
                        for (int e = G.start[h]; e < G.start[h + 1]; e++) {
                            int b = G.item[e];
                            if (b == a)
                                continue;
                            double dx[3];
                            ep_vec3_sub(x, &ps->P[3 * (size_t)b], dx);
                            double d = ep_vec3_norm(dx), t = d / R;
                            if (t >= 1 || d == 0)
                                continue;
                            /* (2t^3 - 3t^2 + 1) / t: a smooth cut-off at R that grows
                             * as two points meet, so no pair is left close (the
                             * bounded kernel left pairs at s/4, see DECISIONS) */
                            double g = ((2 * t - 3) * t * t + 1) / fmax(t, 0.05);
                            for (int q = 0; q < 3; q++)
                                f[q] += g * dx[q] / d;
                        }
                    }
            double step = eta * ep_vec3_norm(f), sc = step > cap ? cap / step : 1;
            for (int q = 0; q < 3; q++)
                y[q] = x[q] + sc * eta * f[q];
            double *out = &nx[6 * (size_t)(a - from)];
            if (project(T, y, out, out + 3)) { /* stepped onto a removed component: stay */
                memcpy(out, x, 3 * sizeof *x);
                memcpy(out + 3, &ps->N[3 * (size_t)a], 3 * sizeof *x);
            }
        }
        for (int a = from; a < to; a++) {
            memcpy(&ps->P[3 * (size_t)a], &nx[6 * (size_t)(a - from)], 3 * sizeof *nx);
            memcpy(&ps->N[3 * (size_t)a], &nx[6 * (size_t)(a - from) + 3], 3 * sizeof *nx);
        }
    }
    hgrid_free(&G);
    free(nx);
    return st;
}

/* Order points [0, n) of ps farthest first (001 §3.9.1), from point 0. */
static int farthest_order(ep_pointshell *ps, int n, int threads)
{
    double *d = ep_malloc((size_t)n + 1, sizeof *d), *tmp = ep_malloc(6 * (size_t)n + 1, sizeof *tmp);
    int *ord = ep_malloc((size_t)n + 1, sizeof *ord);
    char *used = ep_calloc((size_t)n + 1, 1);
    if (!d || !tmp || !ord || !used) {
        free(d), free(tmp), free(ord), free(used);
        return EP_ECOMPUTE;
    }
    for (int i = 0; i < n; i++)
        d[i] = INFINITY;
    int pick = 0;
    for (int k = 0; k < n; k++) {
        ord[k] = pick;
        used[pick] = 1;
        const double *p = &ps->P[3 * (size_t)pick];
        double best = -1;
        int arg = -1;
#pragma omp parallel num_threads(threads) if (n > EP_POINTSHELL_SERIAL)
        {
            double lb = -1;
            int la = -1;
#pragma omp for schedule(static)
            for (int i = 0; i < n; i++) {
                if (used[i])
                    continue;
                double e = ep_vec3_dist2(&ps->P[3 * (size_t)i], p);
                if (e < d[i])
                    d[i] = e;
                if (d[i] > lb || (d[i] == lb && i < la)) {
                    lb = d[i];
                    la = i;
                }
            }
#pragma omp critical
            if (la >= 0 && (lb > best || (lb == best && la < arg))) {
                best = lb;
                arg = la;
            }
        }
        pick = arg;
    }
    for (int k = 0; k < n; k++) {
        memcpy(&tmp[6 * (size_t)k], &ps->P[3 * (size_t)ord[k]], 3 * sizeof *tmp);
        memcpy(&tmp[6 * (size_t)k + 3], &ps->N[3 * (size_t)ord[k]], 3 * sizeof *tmp);
    }
    for (int k = 0; k < n; k++) {
        memcpy(&ps->P[3 * (size_t)k], &tmp[6 * (size_t)k], 3 * sizeof *tmp);
        memcpy(&ps->N[3 * (size_t)k], &tmp[6 * (size_t)k + 3], 3 * sizeof *tmp);
    }
    free(d), free(tmp), free(ord), free(used);
    return EP_OK;
}

double ep_pointshell_count(const ep_pointshell_opts *o, int nv)
{
    if (o->order == EP_POINTSHELL_VERTICES)
        return nv;
    return (double)o->first * (pow(4, o->levels) - 1) / 3; /* n1 (1 + 4 + ... + 4^(L-1)) */
}

double ep_pointshell_bytes(const ep_pointshell_opts *o, int nv, int r)
{
    double S = ep_pointshell_count(o, nv), nodes = 4.0 / 3 * S + o->levels;
    double grid = o->offset > 0 ? 13.0 * pow(o->res + 1.0, 3) : 0;
    return S * (6 * 8 + 3 * 4 + 48 * (double)r + 8 * 6 + 16) + nodes * (3 * 4 + 8 + 8 * (double)r) + grid;
}

int ep_pointshell_sample(ep_pointshell *ps, const ep_mesh *m, const ep_pointshell_opts *o)
{
    levelset T;
    double *cum = NULL;
    int st, threads = o->threads < 1 ? omp_get_max_threads() : o->threads;
    memset(ps, 0, sizeof *ps);
    if (o->levels < 1 || o->levels > EP_POINTSHELL_MAX_LEVELS)
        return ep_fail(EP_EINPUT, "levels %d: expected 1 to %d", o->levels, EP_POINTSHELL_MAX_LEVELS);
    if (o->first < 1 || ep_pointshell_count(o, m->nv) > 1e9)
        return ep_fail(EP_EINPUT, "%d points on level 1 and %d levels: expected 1 to 1e9 points in all", o->first,
                       o->levels);
    if (o->order == EP_POINTSHELL_VERTICES && o->offset > 0)
        return ep_fail(EP_EUSAGE, "the vertex ordering takes the surface's own vertices: no offset");
    if (!(o->offset >= 0) || !isfinite(o->offset))
        return ep_fail(EP_EINPUT, "offset %g: expected a distance >= 0", o->offset);
    if ((st = levelset_build(&T, m, o, threads)))
        goto out;
    if (!(cum = ep_malloc((size_t)m->nf + 1, sizeof *cum))) {
        st = EP_ECOMPUTE;
        goto out;
    }
    cum[0] = 0;
    for (int t = 0; t < m->nf; t++) {
        double nrm[3];
        const int *f = &m->triangles[3 * t];
        ep_vec3_normal(&m->vertices[3 * f[0]], &m->vertices[3 * f[1]], &m->vertices[3 * f[2]], nrm);
        cum[t + 1] = cum[t] + 0.5 * ep_vec3_norm(nrm);
    }
    if (!(cum[m->nf] > 0) || !isfinite(cum[m->nf])) {
        st = ep_fail(EP_EINPUT, "%s: the surface has no area", m->source);
        goto out;
    }
    ep_rng rng = ep_rng_seed(o->seed, 39);
    ps->area = cum[m->nf];
    if (o->offset > 0) { /* the area of T: both sides of the triangles, less what the removal drops */
        int kept = 0, n = 4096;
        double p[3], nrm[3];
        for (int i = 0; i < n; i++)
            kept += candidate(&T, cum, &rng, i, n, p, nrm) == 0;
        if (!kept) {
            st = ep_fail(EP_EINPUT, "%s: no point of the offset surface at %g survives the removal of interior "
                         "components", m->source, o->offset);
            goto out;
        }
        ps->area = 2 * cum[m->nf] * kept / n;
    }
    ps->L = o->levels;
    ps->order = o->order;
    ps->offset = o->offset;
    int S = (int)ep_pointshell_count(o, m->nv);
    ps->S = S;
    if (!(ps->level_start = ep_calloc((size_t)ps->L + 1, sizeof *ps->level_start)) ||
        !(ps->spacing = ep_malloc((size_t)ps->L, sizeof *ps->spacing)) ||
        !(ps->P = ep_malloc(3 * (size_t)S, sizeof *ps->P)) || !(ps->N = ep_malloc(3 * (size_t)S, sizeof *ps->N))) {
        st = EP_ECOMPUTE;
        goto out;
    }
    for (int l = 1; l <= ps->L; l++) {
        double nl = (double)o->first * (pow(4, l) - 1) / 3; /* points of levels 1..l */
        ps->level_start[l] = l == ps->L ? S : (int)fmin(nl, S);
        ps->spacing[l - 1] = sqrt(2 * ps->area / (sqrt(3) * fmin(nl, S)));
    }
    if (o->order == EP_POINTSHELL_REPULSION)
        for (int l = 1; l <= ps->L && !st; l++) {
            if (!(st = inject(ps, &T, cum, &rng, ps->level_start[l - 1], ps->level_start[l])))
                st = repel(ps, &T, ps->level_start[l - 1], ps->level_start[l], ps->spacing[l - 1], o->iterations,
                           threads);
        }
    else {
        if (o->order == EP_POINTSHELL_VERTICES)
            for (int v = 0; v < S; v++)
                project(&T, &m->vertices[3 * (size_t)v], &ps->P[3 * (size_t)v], &ps->N[3 * (size_t)v]);
        else
            st = inject(ps, &T, cum, &rng, 0, S);
        if (!st) { /* a random first point */
            int f = ep_rng_below(&rng, S);
            for (int k = 0; k < 3; k++) {
                double t = ps->P[3 * (size_t)f + k];
                ps->P[3 * (size_t)f + k] = ps->P[k], ps->P[k] = t;
                t = ps->N[3 * (size_t)f + k];
                ps->N[3 * (size_t)f + k] = ps->N[k], ps->N[k] = t;
            }
            st = farthest_order(ps, S, threads);
        }
    }
out:
    free(cum);
    levelset_free(&T);
    return st;
}

/* ---- the nested tree ---- */

int ep_pointshell_tree(ep_pointshell *ps)
{
    int S = ps->S, L = ps->L, st = EP_OK;
    hgrid G = {0};
    int *nodeof = NULL, *bucket = NULL, *order = NULL, *up = NULL;
    free(ps->parent);
    if (!(ps->parent = ep_malloc((size_t)S + 1, sizeof *ps->parent)))
        return EP_ECOMPUTE;
    for (int s = 0; s < ps->level_start[1]; s++)
        ps->parent[s] = -1;
    for (int l = 2; l <= L && !st; l++) { /* the nearest point of the levels above */
        int above = ps->level_start[l - 1];
        if ((st = hgrid_build(&G, ps->P, above, ps->spacing[l - 2])))
            break;
#pragma omp parallel for schedule(dynamic, 256) if (ps->level_start[l] - above > EP_POINTSHELL_SERIAL)
        for (int s = above; s < ps->level_start[l]; s++) {
            double d;
            ps->parent[s] = hgrid_nearest(&G, ps->P, above, &ps->P[3 * (size_t)s], -1, &d);
        }
    }
    hgrid_free(&G);
    if (st)
        return st;
    ps->nn = 0;
    free(ps->node_start);
    if (!(ps->node_start = ep_calloc((size_t)L + 1, sizeof *ps->node_start)))
        return EP_ECOMPUTE;
    for (int l = 1; l <= L; l++) {
        ps->node_start[l] = ps->node_start[l - 1] + ps->level_start[l];
    }
    int nn = ps->nn = ps->node_start[L];
    free(ps->node_point), free(ps->node_first), free(ps->node_count), free(ps->R0);
    ps->node_first = ps->node_count = NULL;
    ps->R0 = NULL;
    if (!(ps->node_point = ep_malloc((size_t)nn, sizeof *ps->node_point)) ||
        !(ps->node_first = ep_malloc((size_t)nn, sizeof *ps->node_first)) ||
        !(ps->node_count = ep_calloc((size_t)nn, sizeof *ps->node_count)) ||
        !(ps->R0 = ep_calloc((size_t)nn, sizeof *ps->R0)) || !(nodeof = ep_malloc((size_t)S + 1, sizeof *nodeof)) ||
        !(bucket = ep_calloc((size_t)S + 2, sizeof *bucket)) || !(order = ep_malloc((size_t)S + 1, sizeof *order)) ||
        !(up = ep_malloc((size_t)nn, sizeof *up))) {
        st = EP_ECOMPUTE;
        goto out;
    }
    for (int s = 0; s < ps->level_start[1]; s++) {
        ps->node_point[s] = s;
        nodeof[s] = s;
        up[s] = -1;
    }
    for (int l = 1; l < L; l++) { /* children of level l's nodes: the copy, then the new points nearest to it */
        int b0 = ps->node_start[l - 1], nb = ps->level_start[l], n0 = ps->level_start[l], n1 = ps->level_start[l + 1];
        memset(bucket, 0, ((size_t)nb + 2) * sizeof *bucket);
        for (int s = n0; s < n1; s++)
            bucket[nodeof[ps->parent[s]] - b0 + 2]++;
        for (int b = 0; b < nb; b++)
            bucket[b + 2] += bucket[b + 1];
        for (int s = n0; s < n1; s++) /* bucket[b + 1] ends as the start of bucket b + 1 */
            order[bucket[nodeof[ps->parent[s]] - b0 + 1]++] = s;
        int next = ps->node_start[l];
        for (int i = b0; i < b0 + nb; i++) {
            int p = ps->node_point[i], b = i - b0;
            ps->node_first[i] = next;
            ps->node_point[next] = p;
            up[next] = i;
            next++;
            for (int e = bucket[b]; e < bucket[b + 1]; e++) {
                ps->node_point[next] = order[e];
                up[next] = i;
                next++;
            }
            ps->node_count[i] = next - ps->node_first[i];
        }
        for (int i = ps->node_start[l]; i < next; i++)
            nodeof[ps->node_point[i]] = i;
    }
    for (int i = ps->node_start[L - 1]; i < nn; i++)
        ps->node_first[i] = -1;
    /* rest radii over every leaf's ancestors (eq. 3.12's R_i,0): exact maxima */
    for (int i = ps->node_start[L - 1]; i < nn; i++) {
        const double *x = &ps->P[3 * (size_t)ps->node_point[i]];
        for (int a = up[i]; a >= 0; a = up[a]) {
            double d = sqrt(ep_vec3_dist2(x, &ps->P[3 * (size_t)ps->node_point[a]]));
            if (d > ps->R0[a])
                ps->R0[a] = d;
        }
    }
out:
    free(nodeof), free(bucket), free(order), free(up);
    return st;
}

/* ---- the binding ---- */

/* The shape-function gradients g [k][3] of the element of corners ev
 * (k = 4: a tet's constants; 8: a hex's at the point P).  Cost O(k). */
static void element_gradients(const ep_mesh *sim, const int *ev, int k, const double P[3], double g[8][3])
{
    double x[8][3], xi[3] = {0, 0, 0}, vol;
    for (int c = 0; c < k; c++)
        memcpy(x[c], &sim->vertices[3 * (size_t)ev[c]], sizeof x[c]);
    if (k == 4)
        ep_tet_gradients((const double(*)[3])x, &vol, g);
    else {
        if (ep_hex_local((const double(*)[3])x, P, xi))
            xi[0] = xi[1] = xi[2] = 0;
        ep_hex_gradients((const double(*)[3])x, xi, g);
    }
}

void ep_pointshell_dn(const ep_pointshell *ps, double *dN)
{
    int k = ps->k, r = ps->r;
#pragma omp parallel for schedule(static) if (ps->S > EP_POINTSHELL_SERIAL)
    for (int s = 0; s < ps->S; s++) {
        const double *N = &ps->N[3 * (size_t)s];
        double *dNs = &dN[(size_t)s * 3 * r];
        for (int i = 0; i < 3 * r; i++)
            dNs[i] = 0;
        for (int c = 0; c < k; c++) {
            size_t v = (size_t)ps->corner[(size_t)k * ps->belem[s] + c];
            const double *g = &ps->grad[((size_t)k * ps->belem[s] + c) * 3];
            for (int j = 0; j < r; j++) {
                double u[3] = {ps->Uv[(v * 3) * r + j], ps->Uv[(v * 3 + 1) * r + j], ps->Uv[(v * 3 + 2) * r + j]};
                /* mode j's gradient G_j = sum_c u_c (x) grad phi_c (eq. 3.7);
                 * the normal turns by the first-order cofactor (Nanson):
                 * cof(I + G) N = N + (tr G) N - G^T N + O(G^2) */
                double trG = ep_vec3_dot(u, g), uN = ep_vec3_dot(u, N);
                for (int q = 0; q < 3; q++)
                    dNs[q * r + j] += trG * N[q] - uN * g[q]; /* eq. 3.8, see DECISIONS */
            }
        }
    }
}

/* The binding per element (pointshell.h: ps->k .. grad) from the embedding
 * b of the points into sim's elements elem [ne][k] and the basis U [r][3
 * sim->nv]: bound vertices numbered as the points first reach them, a
 * record for each tet holding points (its gradients are constants) or for
 * each point in a hex (the gradients at its local coordinates).  Cost
 * O(S k + nbv 3r + ne).  0 or EP_ECOMPUTE. */
static int bind_records(ep_pointshell *ps, const ep_embed *b, const ep_mesh *sim, const int *elem, int ne, int k,
                        const double *U, int r)
{
    int S = ps->S, nv = sim->nv, st = EP_OK;
    size_t nv3 = 3 * (size_t)nv;
    int *vmap = ep_malloc((size_t)nv + 1, sizeof *vmap), *emap = ep_malloc((size_t)ne + 1, sizeof *emap);
    ps->k = k, ps->nbv = ps->nbe = 0;
    if (!vmap || !emap || !(ps->bvert = ep_malloc((size_t)S * k + 1, sizeof *ps->bvert)) ||
        !(ps->belem = ep_malloc((size_t)S + 1, sizeof *ps->belem)) ||
        !(ps->bw = ep_malloc((size_t)S * k + 1, sizeof *ps->bw)) ||
        !(ps->corner = ep_malloc((size_t)(k == 4 ? (ne < S ? ne : S) : S) * k + 1, sizeof *ps->corner)) ||
        !(ps->grad = ep_malloc((size_t)(k == 4 ? (ne < S ? ne : S) : S) * k * 3 + 1, sizeof *ps->grad))) {
        st = EP_ECOMPUTE;
        goto out;
    }
    for (int v = 0; v < nv; v++)
        vmap[v] = -1;
    for (int e = 0; e < ne; e++)
        emap[e] = -1;
    for (int s = 0; s < S; s++) {
        int e = b->element[s], rec = k == 4 ? emap[e] : -1;
        const int *ev = &elem[(size_t)k * e];
        if (rec < 0) { /* a new record: its corners and gradients */
            double g[8][3];
            rec = ps->nbe++;
            if (k == 4)
                emap[e] = rec;
            for (int c = 0; c < k; c++) {
                if (vmap[ev[c]] < 0)
                    ps->bvert[vmap[ev[c]] = ps->nbv++] = ev[c];
                ps->corner[(size_t)k * rec + c] = vmap[ev[c]];
            }
            element_gradients(sim, ev, k, &ps->P[3 * (size_t)s], g);
            memcpy(&ps->grad[(size_t)rec * k * 3], g, (size_t)k * 3 * sizeof(double));
        }
        ps->belem[s] = rec;
        for (int c = 0; c < k; c++) { /* the weight of corner c (embed's columns in any order) */
            double w = 0;
            for (int t = 0; t < k; t++)
                if (b->col[(size_t)k * s + t] == ev[c])
                    w += b->w[(size_t)k * s + t];
            ps->bw[(size_t)k * s + c] = w;
        }
    }
    if (!(ps->Uv = ep_malloc((size_t)ps->nbv * 3 * r + 1, sizeof *ps->Uv))) {
        st = EP_ECOMPUTE;
        goto out;
    }
    for (int v = 0; v < ps->nbv; v++)
        for (int a = 0; a < 3; a++)
            for (int j = 0; j < r; j++)
                ps->Uv[((size_t)v * 3 + a) * r + j] = U[j * nv3 + 3 * (size_t)ps->bvert[v] + a];
out:
    free(vmap), free(emap);
    return st;
}

int ep_pointshell_bind(ep_pointshell *ps, const ep_mesh *sim, const double *U, int r, double limit)
{
    ep_embed b = {0};
    int k = sim->ne > 0 ? 4 : 8, ne = k == 4 ? sim->ne : sim->nh, st;
    const int *elem = k == 4 ? sim->tets : sim->hexes;
    size_t nv3 = 3 * (size_t)sim->nv;
    if (ne < 1)
        return ep_fail(EP_EINPUT, "%s: no tetrahedra or hexahedra to bind to", sim->source);
    if ((st = ep_embed_build(&b, sim->vertices, sim->nv, elem, ne, k, ps->P, ps->S, limit)))
        return st;
    free(ps->U), free(ps->dN), free(ps->a);
    free(ps->bvert), free(ps->Uv), free(ps->belem), free(ps->bw), free(ps->corner), free(ps->grad);
    ps->bvert = ps->belem = ps->corner = NULL, ps->Uv = ps->bw = ps->grad = NULL;
    ps->r = r;
    ps->dN = ps->a = NULL;
    if (!(ps->U = ep_calloc((size_t)ps->S * 3 * r + 1, sizeof *ps->U)) ||
        !(ps->dN = ep_calloc((size_t)ps->S * 3 * r + 1, sizeof *ps->dN)) ||
        !(ps->a = ep_calloc((size_t)ps->nn * r + 1, sizeof *ps->a))) {
        ep_embed_free(&b);
        return EP_ECOMPUTE;
    }
    ps->max_embed = b.maxdist;
#pragma omp parallel for schedule(static) if (ps->S > EP_POINTSHELL_SERIAL)
    for (int s = 0; s < ps->S; s++) {
        double *Us = &ps->U[(size_t)s * 3 * r];
        for (int c = 0; c < k; c++) {
            size_t v = (size_t)b.col[(size_t)k * s + c];
            double w = b.w[(size_t)k * s + c];
            for (int j = 0; j < r; j++) {
                const double *u = &U[j * nv3 + 3 * v];
                for (int q = 0; q < 3; q++)
                    Us[q * r + j] += w * u[q]; /* 001 eq. 3.6 */
            }
        }
    }
    st = bind_records(ps, &b, sim, elem, ne, k, U, r);
    ep_embed_free(&b);
    if (st)
        return st;
    ep_pointshell_dn(ps, ps->dN); /* from the records, as a write-back of an adopted shell does */
    /* a_ij = max over the subtree of |U_s,j - U_i,j| (eq. 3.12): every leaf up its ancestors */
    int L = ps->L;
    int *up = ep_malloc((size_t)ps->nn, sizeof *up);
    if (!up)
        return EP_ECOMPUTE;
    for (int i = 0; i < ps->node_start[1]; i++)
        up[i] = -1;
    for (int i = 0; i < ps->node_start[L - 1]; i++)
        for (int c = 0; c < ps->node_count[i]; c++)
            up[ps->node_first[i] + c] = i;
    for (int i = ps->node_start[L - 1]; i < ps->nn; i++) {
        const double *Us = &ps->U[(size_t)ps->node_point[i] * 3 * r];
        for (int a = up[i]; a >= 0; a = up[a]) {
            const double *Ua = &ps->U[(size_t)ps->node_point[a] * 3 * r];
            double *aa = &ps->a[(size_t)a * r];
            for (int j = 0; j < r; j++) {
                double d0 = Us[j] - Ua[j], d1 = Us[r + j] - Ua[r + j], d2 = Us[2 * r + j] - Ua[2 * r + j];
                double d = sqrt(d0 * d0 + d1 * d1 + d2 * d2);
                if (d > aa[j])
                    aa[j] = d;
            }
        }
    }
    free(up);
    return EP_OK;
}

int ep_pointshell_spacing(const ep_pointshell *ps, int l, double *nn)
{
    hgrid G = {0};
    int n = ps->level_start[l], st;
    if ((st = hgrid_build(&G, ps->P, n, ps->spacing[l - 1]))) {
        hgrid_free(&G);
        return st;
    }
#pragma omp parallel for schedule(dynamic, 256) if (n > EP_POINTSHELL_SERIAL)
    for (int s = 0; s < n; s++)
        hgrid_nearest(&G, ps->P, n, &ps->P[3 * (size_t)s], s, &nn[s]);
    hgrid_free(&G);
    return EP_OK;
}

void ep_pointshell_free(ep_pointshell *ps)
{
    free(ps->level_start), free(ps->P), free(ps->N), free(ps->parent), free(ps->spacing);
    free(ps->node_start), free(ps->node_point), free(ps->node_first), free(ps->node_count), free(ps->R0);
    free(ps->U), free(ps->dN), free(ps->a);
    free(ps->bvert), free(ps->Uv), free(ps->belem), free(ps->bw), free(ps->corner), free(ps->grad);
    memset(ps, 0, sizeof *ps);
}
