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

double ep_sdf_value(const ep_sdf *s, const double p[3])
{
    double w[3];
    long id = ep_sdf_voxel(s, p, w);
    if (id < 0) /* 001 eq. 3.14 */
        return ep_sdf_box_distance(s, p) + s->d_boundary;
    return ep_sdf_trilinear(s, id, w);
}

/* Queries ahead whose voxels are prefetched. */
#define AHEAD 8

void ep_sdf_values(const ep_sdf *s, const double *p, long n, double *d)
{
    long m = s->n + 1, mm = m * m;
    double w[3];
    for (long i = 0; i < n; i++) {
        if (i + AHEAD < n) {
            long id = ep_sdf_voxel(s, &p[3 * (i + AHEAD)], w);
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
