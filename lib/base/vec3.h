/*
 * vec3.h — the few operations on 3-vectors that the geometry of every
 * module repeats (tet gradients, triangle normals and areas, closest points,
 * rigid motions).  Base layer: inline, no state, no failure.
 */
#ifndef EP_VEC3_H
#define EP_VEC3_H

#include <math.h>

/* c = a - b */
static inline void ep_vec3_sub(const double *a, const double *b, double *c)
{
    c[0] = a[0] - b[0];
    c[1] = a[1] - b[1];
    c[2] = a[2] - b[2];
}

/* c = a x b (c may not alias a or b) */
static inline void ep_vec3_cross(const double *a, const double *b, double *c)
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

static inline double ep_vec3_dot(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static inline double ep_vec3_norm(const double *a) { return sqrt(ep_vec3_dot(a, a)); }

/* |a - b|^2 */
static inline double ep_vec3_dist2(const double *a, const double *b)
{
    double d[3];
    ep_vec3_sub(a, b, d);
    return ep_vec3_dot(d, d);
}

/* n = (b - a) x (c - a): the normal of triangle (a b c), twice its area
 * long */
static inline void ep_vec3_normal(const double *a, const double *b, const double *c, double *n)
{
    double u[3], w[3];
    ep_vec3_sub(b, a, u);
    ep_vec3_sub(c, a, w);
    ep_vec3_cross(u, w, n);
}

#endif
