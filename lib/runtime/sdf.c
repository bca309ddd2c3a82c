/*
 * sdf.c — runtime lookup of a distance field (sdf.h).
 */
#include "sdf.h"
#include "sdf4.h"
#include "distfield_file.h"
#include "err.h"
#include "h5.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


/* The external definitions of sdf.h's inline functions (C99 6.7.4). */
extern inline long ep_sdf_voxel(const ep_sdf *s, const double p[3], double w[3]);
extern inline double ep_sdf_lerp(double a, double d, double w);
extern inline double ep_sdf_trilinear(const ep_sdf *s, long id, const double w[3]);
extern inline double ep_sdf_value(const ep_sdf *s, const double p[3]);

double ep_sdf_value_scalar(const ep_sdf *s, const double p[3])
{
    double w[3];
    long id = ep_sdf_voxel(s, p, w);
    if (id < 0) /* 001 eq. 3.14 */
        return ep_sdf_box_distance(s, p) + s->d_boundary;
    return ep_sdf_trilinear(s, id, w);
}

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

/* Queries ahead whose voxels are prefetched. */
#define AHEAD 8
/* Steps of four ahead whose points ep_sdf_values prefetches (1.5 KiB):
 * on a long coherent run the points, not the field, come from memory. */
#ifndef PAHEAD
#define PAHEAD 16
#endif

/* ep_sdf_values one point at a time, the voxels AHEAD queries on
 * prefetched: the baseline path, and the AVX2 path's rest. */
static void values_scalar(const ep_sdf *s, const double *p, long n, double *d)
{
    double w[3];
    for (long i = 0; i < n; i++) {
        if (i + AHEAD < n) {
            long id = ep_sdf_voxel(s, &p[3 * (i + AHEAD)], w);
            if (id >= 0)
                ep_sdf4_prefetch(s->value, s->n, id);
        }
        d[i] = ep_sdf_value(s, &p[3 * i]);
    }
}

#if EP_SDF4
/* The four points p[0..3] (AoS) through sdf4.h's voxel step. */
__attribute__((target("avx2"))) static inline ep_sdf4_vox quad_voxel(const ep_sdf4_k *k, const double *p)
{
    __m256d x[3];
    ep_sdf4_transpose(p, x);
    return ep_sdf4_voxel(k, x);
}

/* ep_sdf_values four points at a time (sdf4.h), the voxels of the four
 * two steps on prefetched; a four with a point outside the box goes one by
 * one. */
__attribute__((target("avx2"))) static void values_avx2(const ep_sdf *s, const double *p, long n, double *d)
{
    ep_sdf4_k k;
    ep_sdf4_init(s->n, s->origin, s->inv_h, &k);
    long quads = n / 4;
    ep_sdf4_vox q0 = {0}, q1 = {0};
    if (quads > 0)
        q0 = quad_voxel(&k, p);
    if (quads > 1)
        q1 = quad_voxel(&k, p + 12);
    for (long i = 0; i < quads; i++) {
        ep_sdf4_vox q = q0;
        q0 = q1;
        if (i + PAHEAD < quads) { /* 96 bytes of points a step: two lines */
            __builtin_prefetch(p + 12 * (i + PAHEAD));
            __builtin_prefetch(p + 12 * (i + PAHEAD) + 8);
        }
        if (i + 2 < quads) {
            q1 = quad_voxel(&k, p + 12 * (i + 2));
            if (_mm256_movemask_pd(q1.in) == 15) {
                int id[4];
                _mm_storeu_si128((__m128i *)(void *)id, q1.id);
                for (int e = 0; e < 4; e++)
                    ep_sdf4_prefetch(s->value, s->n, id[e]);
            }
        }
        if (_mm256_movemask_pd(q.in) == 15)
            _mm256_storeu_pd(d + 4 * i, ep_sdf4_trilinear(s->value, &k, &q));
        else
            for (int e = 0; e < 4; e++)
                d[4 * i + e] = ep_sdf_value(s, p + 12 * i + 3 * e);
    }
    values_scalar(s, p + 12 * quads, n - 4 * quads, d + 4 * quads);
}
#endif

void ep_sdf_values(const ep_sdf *s, const double *p, long n, double *d)
{
    if (n <= 0)
        return;
#if EP_SDF4
    if (ep_sdf4_fits(s->n) && __builtin_cpu_supports("avx2")) { /* 32-bit gather indices */
        values_avx2(s, p, n, d);
        return;
    }
#endif
    values_scalar(s, p, n, d);
}
