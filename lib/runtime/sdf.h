/*
 * sdf.h — the runtime lookup of a signed distance field (kind
 * "distfield", distfield_file.h; 001 §3.11, MATH.md §10): what the
 * distance-field side of 6-DoF contact queries at every traversed
 * pointshell point (001 §3.10).  libelastoprep(3), ep_sdf(3).
 *
 *   inside the box   trilinear interpolation of the eight grid values of
 *                    the voxel holding p (001 eq. 3.10), in double;
 *                    the voxel by truncation (eq. 3.15 without the
 *                    float-bit trick, which measured no faster:
 *                    doc/DECISIONS.md); inline in the caller
 *   outside the box  the conservative bound d(p) >= d_box(p) + d_boundary
 *                    of 001 eq. 3.14: never above the true distance when
 *                    the object lies inside the box
 *
 * The object is read-only after ep_sdf_open: any number of threads may
 * query it at once.  ep_sdf_value runs two wide in SSE2 (every x86-64,
 * no flag needed); ep_sdf_values takes four points at a time with AVX2
 * gathers where the CPU has them; every path gives the same bits.
 */
#ifndef EP_SDF_H
#define EP_SDF_H

#include "distfield.h"

#if defined(__SSE2__) && defined(__x86_64__) && defined(__GNUC__) && !defined(EP_SDF_NO_SSE2)
#include <emmintrin.h>
#define EP_SDF_SSE2 1 /* the packed single lookup (SSE2: every x86-64) */
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ep_sdf {
    int n;              /* cells a side */
    float *value;       /* owned: [(n+1)^3], x fastest */
    double origin[3];   /* the box's lower corner */
    double h, inv_h;    /* spacing and its inverse */
    double d_boundary;  /* smallest value on the box's faces (001 eq. 3.14) */
    int sign;           /* EP_DISTFIELD_* */
} ep_sdf;

/* Open the distfield file path (any elastoprep .h5 of kind "distfield").
 *   Cost       reads (n+1)^3 floats.
 *   Returns    0; EP_EIO; EP_EINPUT (not a distfield, or checks of
 *              ep_distfield_file_read); EP_ECOMPUTE. */
int ep_sdf_open(ep_sdf *s, const char *path);

/* Take over a computed field g (its values move to s; g is left empty). */
void ep_sdf_adopt(ep_sdf *s, ep_distfield *g);

void ep_sdf_free(ep_sdf *s);

/* ep_sdf_value at the n points p [n][3] into d [n], the same bits.  With
 * AVX2 (and a field under 2^31 points) four points a step: the voxel step
 * in four-wide double, the corners by 64-bit gathers, the interpolation
 * in four-wide double, in ep_sdf_trilinear's order; a step with a point
 * outside the box goes point by point.  The voxels of the next queries
 * are prefetched, so random points cost about one memory latency per
 * several queries instead of each, and the points 64 queries on, so a
 * long run of coherent points does not wait on its own stream.  No
 * workspace.  Cost O(n): with AVX2 about 15-18 cycles a coherent point,
 * without it ep_sdf_value's (tests/bench/sdf.c prints both in cycles).
 * Random points are bound by memory: tests/bench/sdf.c prints their
 * corner loads alone beside the batch.  Thread-safe: a large random batch
 * split between threads, one call each, overlaps each core's misses. */
void ep_sdf_values(const ep_sdf *s, const double *p, long n, double *d);

/* The distance from p to the box (0 inside).  Cost O(1). */
double ep_sdf_box_distance(const ep_sdf *s, const double p[3]);

/* The voxel of p: the index of its first grid point (the eight are id,
 * id + 1, id + m, id + m + 1 and the same plus m^2, m = n + 1) and p's
 * weights w in it; -1 outside the box (or p not finite).  Inline, for the
 * loops that prefetch a voxel before they read it (ep_sdf_values,
 * pscontact.c).  Scalar arithmetic, no arrays (the compiler keeps every
 * quantity in a register).  Cost O(1): three conversions. */
inline long ep_sdf_voxel(const ep_sdf *s, const double p[3], double w[3])
{
    int n = s->n;
    double dn = n, x = (p[0] - s->origin[0]) * s->inv_h, y = (p[1] - s->origin[1]) * s->inv_h,
           z = (p[2] - s->origin[2]) * s->inv_h;
    if (!((x >= 0) & (x <= dn) & (y >= 0) & (y <= dn) & (z >= 0) & (z <= dn)))
        return -1;
    int i = (int)x, j = (int)y, k = (int)z; /* 001 eq. 3.15 */
    i = i < n ? i : n - 1;                  /* p on the upper face: the last voxel */
    j = j < n ? j : n - 1;
    k = k < n ? k : n - 1;
    w[0] = x - i;
    w[1] = y - j;
    w[2] = z - k;
    long m = n + 1;
    return i + m * (j + m * (long)k);
}

/* One lerp a + w d (d = b - a), the product rounded on its own: the
 * empty asm keeps a compiler from fusing it into an FMA, so every build
 * (the baseline, ep_sdf_values' AVX2 path, a caller's -march=native)
 * rounds alike and single and batched lookups give the same bits. */
inline double ep_sdf_lerp(double a, double d, double w)
{
    double t = w * d;
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    __asm__("" : "+x"(t));
#endif
    return a + t;
}

/* Trilinear interpolation in the voxel id at weights w (001 eq. 3.10):
 * ep_sdf_value inside the box, in double (the corners' x differences
 * taken in float, as the values are stored).  Double on purpose: a float
 * interpolation rounds at 1e-7 relative, which central differences at
 * h = 1e-6 (pscontact's derivative checks) magnify past any tolerance
 * (doc/DECISIONS.md).  With SSE2 (every x86-64) the same operations in
 * the same order, two at a time: each row's corner pair (x, x + 1) one
 * 8-byte load, rows 0 and 2 and rows 1 and 3 paired by one shuffle each,
 * their x differences one float subtraction a pair, the x lerps and the y
 * lerps two wide in double, then the z lerp; the same bits as the scalar
 * code (#else).  Cost O(1): four loads, about 30 instructions. */
inline double ep_sdf_trilinear(const ep_sdf *s, long id, const double w[3])
{
    long m = s->n + 1, mm = m * m;
    const float *v = s->value + id;
#ifdef EP_SDF_SSE2
    __m128 r0 = _mm_castsi128_ps(_mm_loadl_epi64((const __m128i *)(const void *)v)); /* v[0] v[1] */
    __m128 r1 = _mm_castsi128_ps(_mm_loadl_epi64((const __m128i *)(const void *)(v + m)));
    __m128 r2 = _mm_castsi128_ps(_mm_loadl_epi64((const __m128i *)(const void *)(v + mm)));
    __m128 r3 = _mm_castsi128_ps(_mm_loadl_epi64((const __m128i *)(const void *)(v + mm + m)));
    __m128 a02 = _mm_unpacklo_ps(r0, r2), a13 = _mm_unpacklo_ps(r1, r3); /* v[0] v[mm] v[1] v[mm + 1] */
    __m128 d02 = _mm_sub_ps(_mm_movehl_ps(a02, a02), a02), d13 = _mm_sub_ps(_mm_movehl_ps(a13, a13), a13);
    __m128d wxy = _mm_loadu_pd(w), wx = _mm_unpacklo_pd(wxy, wxy);
    __m128d t02 = _mm_mul_pd(wx, _mm_cvtps_pd(d02)), t13 = _mm_mul_pd(wx, _mm_cvtps_pd(d13));
    __asm__("" : "+x"(t02), "+x"(t13)); /* no FMA (ep_sdf_lerp) */
    __m128d x02 = _mm_add_pd(_mm_cvtps_pd(a02), t02), x13 = _mm_add_pd(_mm_cvtps_pd(a13), t13);
    __m128d ty = _mm_mul_pd(_mm_unpackhi_pd(wxy, wxy), _mm_sub_pd(x13, x02));
    __asm__("" : "+x"(ty));
    __m128d y = _mm_add_pd(x02, ty); /* y0 y1 */
    double y0 = _mm_cvtsd_f64(y);
    return ep_sdf_lerp(y0, _mm_cvtsd_f64(_mm_unpackhi_pd(y, y)) - y0, w[2]);
#else
    double x0 = ep_sdf_lerp(v[0], v[1] - v[0], w[0]), x1 = ep_sdf_lerp(v[m], v[m + 1] - v[m], w[0]);
    double x2 = ep_sdf_lerp(v[mm], v[mm + 1] - v[mm], w[0]);
    double x3 = ep_sdf_lerp(v[mm + m], v[mm + m + 1] - v[mm + m], w[0]);
    double y0 = ep_sdf_lerp(x0, x1 - x0, w[1]), y1 = ep_sdf_lerp(x2, x3 - x2, w[1]);
    return ep_sdf_lerp(y0, y1 - y0, w[2]);
#endif
}

/* ep_sdf_value by the scalar voxel step (ep_sdf_voxel): the points that
 * ep_sdf_value's packed box test hands over (outside the box, not finite,
 * on the upper faces, a coordinate of -0 on a lower face), the same bits.
 * It reads s and p only (pure: a loop of lookups keeps s's fields in
 * registers).  Cost O(1).  Thread-safe. */
#ifdef __GNUC__
__attribute__((pure))
#endif
double ep_sdf_value_scalar(const ep_sdf *s, const double p[3]);

/* The field at p: trilinear inside the box (ep_sdf_trilinear), the
 * eq. 3.14 bound ep_sdf_box_distance(p) + d_boundary outside.  Inline in
 * the caller (C99 inline: sdf.c holds the library's external definition,
 * so a call the compiler does not inline finds it).  With SSE2 the voxel
 * step runs on x y in one register and z 0 in another: one subtraction
 * and one multiplication each, one truncation of x y, one of z.  The box
 * test is on those: every sign bit clear (one or, one movemask) and every
 * truncation below n, unsigned (NaN and overflow truncate to 2^31).  It is
 * strict, so no clamp of the last voxel is needed: a point on an upper
 * face, like one outside, not finite or with a -0 on a lower face, goes to
 * ep_sdf_value_scalar.  The same operations as ep_sdf_voxel's on the
 * points it keeps: the same bits on every path.  Cost O(1): four loads,
 * about 75 instructions in tests/bench/sdf.c's loop, the loop included
 * (objdump -d; 105 with the scalar voxel step).  Thread-safe. */
inline double ep_sdf_value(const ep_sdf *s, const double p[3])
{
#ifdef EP_SDF_SSE2
    __m128d ih = _mm_set1_pd(s->inv_h);
    __m128d xy = _mm_mul_pd(_mm_sub_pd(_mm_loadu_pd(p), _mm_loadu_pd(s->origin)), ih);
    __m128d z0 = _mm_mul_pd(_mm_sub_sd(_mm_load_sd(p + 2), _mm_load_sd(s->origin + 2)), ih);
    __m128i ij = _mm_cvttpd_epi32(xy); /* 001 eq. 3.15 */
    unsigned long long i2 = (unsigned long long)_mm_cvtsi128_si64(ij);
    unsigned i = (unsigned)i2, j = (unsigned)(i2 >> 32), k = (unsigned)_mm_cvttsd_si32(z0), n = (unsigned)s->n;
    if (__builtin_expect(_mm_movemask_pd(_mm_or_pd(xy, z0)) != 0, 0) || i >= n || j >= n || k >= n)
        return ep_sdf_value_scalar(s, p); /* 001 eq. 3.14 outside */
    double w[3];
    _mm_storeu_pd(w, _mm_sub_pd(xy, _mm_cvtepi32_pd(ij)));
    w[2] = _mm_cvtsd_f64(z0) - (double)(int)k;
    unsigned long m = (unsigned long)n + 1;
    return ep_sdf_trilinear(s, (long)(i + m * j + m * m * k), w);
#else
    return ep_sdf_value_scalar(s, p);
#endif
}

#ifdef __cplusplus
}
#endif

#endif
