/*
 * sdf.c — runtime lookup of a distance field (sdf.h).
 */
#include "sdf.h"
#include "distfield_file.h"
#include "err.h"
#include "h5.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__) && defined(__ELF__) && !defined(EP_NO_CLONES)
#include <immintrin.h>
#define SDF_AVX2 1
#endif

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

/* Prefetch the four lines of the voxel id (the corners' x pairs). */
static inline void prefetch_voxel(const ep_sdf *s, long id)
{
    long m = s->n + 1, mm = m * m;
    const float *v = s->value + id;
    __builtin_prefetch(v);
    __builtin_prefetch(v + m);
    __builtin_prefetch(v + mm);
    __builtin_prefetch(v + mm + m);
}

/* ep_sdf_values one point at a time, the voxels AHEAD queries on
 * prefetched: the baseline path, and the AVX2 path's rest. */
static void values_scalar(const ep_sdf *s, const double *p, long n, double *d)
{
    double w[3];
    for (long i = 0; i < n; i++) {
        if (i + AHEAD < n) {
            long id = ep_sdf_voxel(s, &p[3 * (i + AHEAD)], w);
            if (id >= 0)
                prefetch_voxel(s, id);
        }
        d[i] = ep_sdf_value(s, &p[3 * i]);
    }
}

#ifdef SDF_AVX2
/* Four points' voxels: first grid points id, weights w (one register a
 * coordinate), and whether all four lie in the box. */
typedef struct {
    __m128i id;
    __m256d w[3];
    int in;
} quad;

/* The constants of a batch, broadcast once. */
typedef struct {
    __m256d o[3], inv_h, n;
    __m128i last, m, mm;
} quad_k;

/* ep_sdf_voxel of the points p[0..3] (AoS, 12 doubles), in the same
 * double operations (so the same weights): three loads transposed to
 * x, y, z by six shuffles, one conversion each.  Cost ~30 instructions. */
__attribute__((target("avx2"))) static inline quad quad_voxel(const quad_k *k, const double *p)
{
    __m256d r0 = _mm256_loadu_pd(p), r1 = _mm256_loadu_pd(p + 4), r2 = _mm256_loadu_pd(p + 8);
    __m256d a = _mm256_permute2f128_pd(r0, r1, 0x30); /* x0 y0 x2 y2 */
    __m256d b = _mm256_permute2f128_pd(r0, r2, 0x21); /* z0 x1 z2 x3 */
    __m256d c = _mm256_permute2f128_pd(r1, r2, 0x30); /* y1 z1 y3 z3 */
    __m256d x[3] = {_mm256_shuffle_pd(a, b, 10), _mm256_shuffle_pd(a, c, 5), _mm256_shuffle_pd(b, c, 10)};
    __m256d in = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
    __m128i ijk[3];
    quad q;
    for (int e = 0; e < 3; e++) {
        x[e] = _mm256_mul_pd(_mm256_sub_pd(x[e], k->o[e]), k->inv_h);
        in = _mm256_and_pd(in, _mm256_and_pd(_mm256_cmp_pd(x[e], _mm256_setzero_pd(), _CMP_GE_OQ),
                                             _mm256_cmp_pd(x[e], k->n, _CMP_LE_OQ)));
        ijk[e] = _mm_min_epi32(_mm256_cvttpd_epi32(x[e]), k->last); /* 001 eq. 3.15 */
        q.w[e] = _mm256_sub_pd(x[e], _mm256_cvtepi32_pd(ijk[e]));
    }
    q.in = _mm256_movemask_pd(in) == 15;
    q.id = _mm_add_epi32(ijk[0], _mm_add_epi32(_mm_mullo_epi32(ijk[1], k->m), _mm_mullo_epi32(ijk[2], k->mm)));
    return q;
}

/* ep_sdf_lerp on four lanes, the product rounded on its own. */
__attribute__((target("avx2"))) static inline __m256d lerp4(__m256d a, __m256d d, __m256d w)
{
    __m256d t = _mm256_mul_pd(w, d);
    __asm__("" : "+x"(t));
    return _mm256_add_pd(a, t);
}

/* Two of a voxel's x lerps at four points: g and h hold the corner pairs
 * (x, x + 1) of two rows as 64-bit lanes; the x differences in float (as
 * ep_sdf_trilinear takes them), the rest in double.  lo: the first row's
 * results then the second's for points 0 1, hi: for points 2 3. */
__attribute__((target("avx2"))) static inline void x_lerps(__m256 g, __m256 h, __m256d wlo, __m256d whi, __m256d *lo,
                                                          __m256d *hi)
{
    __m256 a = _mm256_shuffle_ps(g, h, 0x88), d = _mm256_sub_ps(_mm256_shuffle_ps(g, h, 0xDD), a);
    *lo = lerp4(_mm256_cvtps_pd(_mm256_castps256_ps128(a)), _mm256_cvtps_pd(_mm256_castps256_ps128(d)), wlo);
    *hi = lerp4(_mm256_cvtps_pd(_mm256_extractf128_ps(a, 1)), _mm256_cvtps_pd(_mm256_extractf128_ps(d, 1)), whi);
}

/* ep_sdf_trilinear at four points, the same operations in the same order:
 * each corner pair (x, x + 1) one 64-bit lane of four gathers.  Cost ~45
 * instructions and 16 loads. */
__attribute__((target("avx2"))) static inline __m256d quad_trilinear(const ep_sdf *s, const quad_k *k, const quad *q)
{
    const long long *v = (const long long *)(const void *)s->value;
    __m128i id1 = _mm_add_epi32(q->id, k->m), id2 = _mm_add_epi32(q->id, k->mm), id3 = _mm_add_epi32(id2, k->m);
    __m256 g0 = _mm256_castsi256_ps(_mm256_i32gather_epi64(v, q->id, 4)); /* v0 v1 of points 0..3 */
    __m256 g1 = _mm256_castsi256_ps(_mm256_i32gather_epi64(v, id1, 4));   /* v[m] v[m + 1] */
    __m256 g2 = _mm256_castsi256_ps(_mm256_i32gather_epi64(v, id2, 4));   /* v[mm] v[mm + 1] */
    __m256 g3 = _mm256_castsi256_ps(_mm256_i32gather_epi64(v, id3, 4));   /* v[mm + m] v[mm + m + 1] */
    __m256d wlo = _mm256_permute4x64_pd(q->w[0], 0x44), whi = _mm256_permute4x64_pd(q->w[0], 0xEE);
    __m256d a, b, c, d; /* a: x0 x0 x1 x1 of points 0 1 0 1, b: of 2 3 2 3; c, d: x2 x3 */
    x_lerps(g0, g1, wlo, whi, &a, &b);
    x_lerps(g2, g3, wlo, whi, &c, &d);
    __m256d x0 = _mm256_permute2f128_pd(a, b, 0x20), x1 = _mm256_permute2f128_pd(a, b, 0x31);
    __m256d x2 = _mm256_permute2f128_pd(c, d, 0x20), x3 = _mm256_permute2f128_pd(c, d, 0x31);
    __m256d y0 = lerp4(x0, _mm256_sub_pd(x1, x0), q->w[1]), y1 = lerp4(x2, _mm256_sub_pd(x3, x2), q->w[1]);
    return lerp4(y0, _mm256_sub_pd(y1, y0), q->w[2]);
}

/* ep_sdf_values four points at a time, the voxels of the four two steps
 * on prefetched; a four with a point outside the box goes one by one. */
__attribute__((target("avx2"))) static void values_avx2(const ep_sdf *s, const double *p, long n, double *d)
{
    int mi = s->n + 1;
    quad_k k = {.inv_h = _mm256_set1_pd(s->inv_h), .n = _mm256_set1_pd(s->n), .last = _mm_set1_epi32(s->n - 1),
                .m = _mm_set1_epi32(mi), .mm = _mm_set1_epi32(mi * mi)};
    for (int e = 0; e < 3; e++)
        k.o[e] = _mm256_set1_pd(s->origin[e]);
    long quads = n / 4;
    quad q0 = {0}, q1 = {0};
    if (quads > 0)
        q0 = quad_voxel(&k, p);
    if (quads > 1)
        q1 = quad_voxel(&k, p + 12);
    for (long i = 0; i < quads; i++) {
        quad q = q0;
        q0 = q1;
        if (i + PAHEAD < quads) { /* 96 bytes of points a step: two lines */
            __builtin_prefetch(p + 12 * (i + PAHEAD));
            __builtin_prefetch(p + 12 * (i + PAHEAD) + 8);
        }
        if (i + 2 < quads) {
            q1 = quad_voxel(&k, p + 12 * (i + 2));
            if (q1.in) {
                int id[4];
                _mm_storeu_si128((__m128i *)(void *)id, q1.id);
                for (int e = 0; e < 4; e++)
                    prefetch_voxel(s, id[e]);
            }
        }
        if (q.in)
            _mm256_storeu_pd(d + 4 * i, quad_trilinear(s, &k, &q));
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
#ifdef SDF_AVX2
    long m = s->n + 1;
    if (m * m * m <= INT_MAX && __builtin_cpu_supports("avx2")) { /* 32-bit gather indices */
        values_avx2(s, p, n, d);
        return;
    }
#endif
    values_scalar(s, p, n, d);
}
