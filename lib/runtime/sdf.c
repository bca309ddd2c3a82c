/*
 * sdf.c — runtime lookup of a distance field (sdf.h).
 */
#include "sdf.h"
#include "distfield_file.h"
#include "err.h"
#include "h5.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void ep_sdf_free(ep_sdf *s)
{
    free(s->value);
    memset(s, 0, sizeof *s);
}

void ep_sdf_adopt(ep_sdf *s, ep_distfield *g)
{
    memset(s, 0, sizeof *s);
    s->n = g->n;
    s->value = g->value;
    memcpy(s->origin, g->origin, sizeof s->origin);
    s->h = g->h;
    s->inv_h = 1 / g->h;
    s->d_boundary = g->d_boundary;
    s->sign = g->sign;
    g->value = NULL;
}

int ep_sdf_open(ep_sdf *s, const char *path)
{
    ep_h5 f = {0};
    ep_distfield g = {0};
    memset(s, 0, sizeof *s);
    int st = ep_h5_open(&f, path, "distfield");
    if (!st && !(st = ep_distfield_file_read(&g, &f, NULL)))
        ep_sdf_adopt(s, &g);
    ep_distfield_free(&g);
    int cst = ep_h5_close(&f);
    return st ? st : cst;
}

double ep_sdf_box_distance(const ep_sdf *s, const double p[3])
{
    double side = s->n * s->h, d2 = 0;
    for (int a = 0; a < 3; a++) {
        double lo = s->origin[a], hi = lo + side;
        double d = p[a] < lo ? lo - p[a] : p[a] > hi ? p[a] - hi : 0;
        d2 += d * d;
    }
    return sqrt(d2);
}

/* The voxel of p: its first grid point's index and the weights in it, or
 * -1 outside the box (or p not finite). */
static inline long voxel(const ep_sdf *s, const double p[3], double w[3])
{
    int ijk[3];
    for (int a = 0; a < 3; a++) {
        double x = (p[a] - s->origin[a]) * s->inv_h;
        if (!(x >= 0 && x <= s->n))
            return -1;
        int i = (int)x; /* 001 eq. 3.15 */
        i -= i == s->n;
        ijk[a] = i;
        w[a] = x - i;
    }
    long m = s->n + 1;
    return ijk[0] + m * (ijk[1] + m * (long)ijk[2]);
}

/* Trilinear interpolation in the voxel at id (001 eq. 3.10). */
static inline double trilinear(const ep_sdf *s, long id, const double w[3])
{
    long m = s->n + 1, mm = m * m;
    const float *v = s->value + id;
    double x0 = v[0] + w[0] * (v[1] - v[0]), x1 = v[m] + w[0] * (v[m + 1] - v[m]);
    double x2 = v[mm] + w[0] * (v[mm + 1] - v[mm]), x3 = v[mm + m] + w[0] * (v[mm + m + 1] - v[mm + m]);
    double y0 = x0 + w[1] * (x1 - x0), y1 = x2 + w[1] * (x3 - x2);
    return y0 + w[2] * (y1 - y0);
}

double ep_sdf_value(const ep_sdf *s, const double p[3])
{
    double w[3];
    long id = voxel(s, p, w);
    if (id < 0) /* 001 eq. 3.14 */
        return ep_sdf_box_distance(s, p) + s->d_boundary;
    return trilinear(s, id, w);
}

/* Queries ahead whose voxels are prefetched. */
#define AHEAD 8

void ep_sdf_values(const ep_sdf *s, const double *p, long n, double *d)
{
    long m = s->n + 1, mm = m * m;
    double w[3];
    for (long i = 0; i < n; i++) {
        if (i + AHEAD < n) {
            long id = voxel(s, &p[3 * (i + AHEAD)], w);
            if (id >= 0) {
                const float *v = s->value + id;
                __builtin_prefetch(v);
                __builtin_prefetch(v + m);
                __builtin_prefetch(v + mm);
                __builtin_prefetch(v + mm + m);
            }
        }
        d[i] = ep_sdf_value(s, &p[3 * i]);
    }
}
