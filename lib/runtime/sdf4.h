/*
 * sdf4.h — four distance-field lookups a vector (AVX2): the voxel step and
 * the trilinear interpolation of sdf.h on four points held one coordinate
 * a register, lane by lane the same double operations as ep_sdf_voxel and
 * ep_sdf_trilinear (so the same bits).  Shared by ep_sdf_values (sdf.c)
 * and the contact cycle's four-point move (pscontact.c).  Internal: no
 * public header includes it.
 *
 * It takes the field's members, not sdf.h's ep_sdf (sdf.c includes this
 * header: no include circle).  Every function is static inline and
 * target("avx2"): a caller includes it in a function of that target (or a
 * superset) chosen at run time by __builtin_cpu_supports("avx2").  EP_SDF4 is 1 where the compiler takes
 * the attribute (GCC on x86-64 ELF), 0 elsewhere (the callers' scalar
 * paths then).  The voxel indices are 32-bit: a caller checks
 * ep_sdf4_fits (the field under 2^31 points) before it takes this path.
 */
#ifndef EP_SDF4_H
#define EP_SDF4_H

#include <limits.h>

/* Whether the grid point indices of a field of n cells a side fit the
 * 32-bit gather indices.  Cost O(1). */
static inline int ep_sdf4_fits(int n)
{
    long m = n + 1;
    return m * m * m <= INT_MAX;
}

/* Prefetch the four lines of the voxel id (the corners' x pairs) of the
 * values [(n+1)^3]. */
static inline void ep_sdf4_prefetch(const float *value, int n, long id)
{
    long m = n + 1, mm = m * m;
    const float *v = value + id;
    __builtin_prefetch(v);
    __builtin_prefetch(v + m);
    __builtin_prefetch(v + mm);
    __builtin_prefetch(v + mm + m);
}
#if defined(__x86_64__) && defined(__GNUC__) && defined(__ELF__) && !defined(EP_NO_CLONES)
#define EP_SDF4 1
#include <immintrin.h>

#define EP_SDF4_FN __attribute__((target("avx2"))) static inline

/* Four points' voxels: first grid points id (in-box lanes), weights w
 * (one register a coordinate), and in: all ones in the lanes inside the
 * box (001 eq. 3.15's test). */
typedef struct ep_sdf4_vox {
    __m128i id;
    __m256d w[3];
    __m256d in;
} ep_sdf4_vox;

/* The constants of a field, broadcast once (ep_sdf4_init). */
typedef struct ep_sdf4_k {
    __m256d o[3], inv_h, n;
    __m128i last, m, mm;
} ep_sdf4_k;

/* The constants of a field of n cells a side, its box's lower corner
 * origin, 1 / its spacing inv_h (ep_sdf's fields). */
EP_SDF4_FN void ep_sdf4_init(int n, const double origin[3], double inv_h, ep_sdf4_k *k)
{
    int mi = n + 1;
    k->inv_h = _mm256_set1_pd(inv_h);
    k->n = _mm256_set1_pd(n);
    k->last = _mm_set1_epi32(n - 1);
    k->m = _mm_set1_epi32(mi);
    k->mm = _mm_set1_epi32(mi * mi);
    for (int e = 0; e < 3; e++)
        k->o[e] = _mm256_set1_pd(origin[e]);
}

/* The points p[0..3] (AoS, 12 doubles) as x, y, z registers: three loads,
 * six shuffles. */
EP_SDF4_FN void ep_sdf4_transpose(const double *p, __m256d x[3])
{
    __m256d r0 = _mm256_loadu_pd(p), r1 = _mm256_loadu_pd(p + 4), r2 = _mm256_loadu_pd(p + 8);
    __m256d a = _mm256_permute2f128_pd(r0, r1, 0x30); /* x0 y0 x2 y2 */
    __m256d b = _mm256_permute2f128_pd(r0, r2, 0x21); /* z0 x1 z2 x3 */
    __m256d c = _mm256_permute2f128_pd(r1, r2, 0x30); /* y1 z1 y3 z3 */
    x[0] = _mm256_shuffle_pd(a, b, 10);
    x[1] = _mm256_shuffle_pd(a, c, 5);
    x[2] = _mm256_shuffle_pd(b, c, 10);
}

/* ep_sdf_voxel of four field-frame points p (x, y, z registers), in the
 * same double operations (so the same weights).  Lanes outside the box
 * (or not finite) have in = 0 and an undefined id.  Cost ~25
 * instructions. */
EP_SDF4_FN ep_sdf4_vox ep_sdf4_voxel(const ep_sdf4_k *k, const __m256d p[3])
{
    __m256d in = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
    __m128i ijk[3];
    ep_sdf4_vox q;
    for (int e = 0; e < 3; e++) {
        __m256d x = _mm256_mul_pd(_mm256_sub_pd(p[e], k->o[e]), k->inv_h);
        in = _mm256_and_pd(in, _mm256_and_pd(_mm256_cmp_pd(x, _mm256_setzero_pd(), _CMP_GE_OQ),
                                             _mm256_cmp_pd(x, k->n, _CMP_LE_OQ)));
        ijk[e] = _mm_min_epi32(_mm256_cvttpd_epi32(x), k->last); /* 001 eq. 3.15 */
        q.w[e] = _mm256_sub_pd(x, _mm256_cvtepi32_pd(ijk[e]));
    }
    q.in = in;
    q.id = _mm_add_epi32(ijk[0], _mm_add_epi32(_mm_mullo_epi32(ijk[1], k->m), _mm_mullo_epi32(ijk[2], k->mm)));
    return q;
}

/* ep_sdf_lerp on four lanes, the product rounded on its own. */
EP_SDF4_FN __m256d ep_sdf4_lerp(__m256d a, __m256d d, __m256d w)
{
    __m256d t = _mm256_mul_pd(w, d);
    __asm__("" : "+x"(t));
    return _mm256_add_pd(a, t);
}

/* Two of a voxel's x lerps at four points: g and h hold the corner pairs
 * (x, x + 1) of two rows as 64-bit lanes; the x differences in float (as
 * ep_sdf_trilinear takes them), the rest in double.  lo: the first row's
 * results then the second's for points 0 1, hi: for points 2 3. */
EP_SDF4_FN void ep_sdf4_x_lerps(__m256 g, __m256 h, __m256d wlo, __m256d whi, __m256d *lo, __m256d *hi)
{
    __m256 a = _mm256_shuffle_ps(g, h, 0x88), d = _mm256_sub_ps(_mm256_shuffle_ps(g, h, 0xDD), a);
    *lo = ep_sdf4_lerp(_mm256_cvtps_pd(_mm256_castps256_ps128(a)), _mm256_cvtps_pd(_mm256_castps256_ps128(d)), wlo);
    *hi = ep_sdf4_lerp(_mm256_cvtps_pd(_mm256_extractf128_ps(a, 1)), _mm256_cvtps_pd(_mm256_extractf128_ps(d, 1)), whi);
}

/* ep_sdf_trilinear at four in-box points of the values [(n+1)^3], the same operations in the same
 * order: each corner pair (x, x + 1) one 64-bit lane of four gathers.
 * Cost ~45 instructions and 16 loads. */
EP_SDF4_FN __m256d ep_sdf4_trilinear(const float *value, const ep_sdf4_k *k, const ep_sdf4_vox *q)
{
    const long long *v = (const long long *)(const void *)value;
    __m128i id1 = _mm_add_epi32(q->id, k->m), id2 = _mm_add_epi32(q->id, k->mm), id3 = _mm_add_epi32(id2, k->m);
    __m256 g0 = _mm256_castsi256_ps(_mm256_i32gather_epi64(v, q->id, 4)); /* v0 v1 of points 0..3 */
    __m256 g1 = _mm256_castsi256_ps(_mm256_i32gather_epi64(v, id1, 4));   /* v[m] v[m + 1] */
    __m256 g2 = _mm256_castsi256_ps(_mm256_i32gather_epi64(v, id2, 4));   /* v[mm] v[mm + 1] */
    __m256 g3 = _mm256_castsi256_ps(_mm256_i32gather_epi64(v, id3, 4));   /* v[mm + m] v[mm + m + 1] */
    __m256d wlo = _mm256_permute4x64_pd(q->w[0], 0x44), whi = _mm256_permute4x64_pd(q->w[0], 0xEE);
    __m256d a, b, c, d; /* a: x0 x0 x1 x1 of points 0 1 0 1, b: of 2 3 2 3; c, d: x2 x3 */
    ep_sdf4_x_lerps(g0, g1, wlo, whi, &a, &b);
    ep_sdf4_x_lerps(g2, g3, wlo, whi, &c, &d);
    __m256d x0 = _mm256_permute2f128_pd(a, b, 0x20), x1 = _mm256_permute2f128_pd(a, b, 0x31);
    __m256d x2 = _mm256_permute2f128_pd(c, d, 0x20), x3 = _mm256_permute2f128_pd(c, d, 0x31);
    __m256d y0 = ep_sdf4_lerp(x0, _mm256_sub_pd(x1, x0), q->w[1]), y1 = ep_sdf4_lerp(x2, _mm256_sub_pd(x3, x2), q->w[1]);
    return ep_sdf4_lerp(y0, _mm256_sub_pd(y1, y0), q->w[2]);
}

#else
#define EP_SDF4 0
#endif

#endif
