/*
 * sdf.h — the runtime lookup of a signed distance field (kind
 * "distfield", distfield_file.h; 001 §3.11, MATH.md §10): what the
 * distance-field side of 6-DoF contact queries at every traversed
 * pointshell point (001 §3.10).  libelastoprep(3), ep_sdf(3).
 *
 *   inside the box   trilinear interpolation of the eight grid values of
 *                    the voxel holding p (001 eq. 3.10); the voxel by
 *                    truncation (eq. 3.15 without the float-bit trick, which
 *                    measured no faster: doc/DECISIONS.md)
 *   outside the box  the conservative bound d(p) >= d_box(p) + d_boundary
 *                    of 001 eq. 3.14: never above the true distance when
 *                    the object lies inside the box
 *
 * The object is read-only after ep_sdf_open: any number of threads may
 * query it at once.
 */
#ifndef EP_SDF_H
#define EP_SDF_H

#include "distfield.h"

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

/* The field at p: trilinear inside the box, the eq. 3.14 bound outside.
 * Cost O(1): eight loads.  Thread-safe. */
double ep_sdf_value(const ep_sdf *s, const double p[3]);

/* ep_sdf_value at the n points p [n][3] into d [n]; the voxels of the
 * next queries are prefetched, so random points cost about one memory
 * latency per several queries instead of each.  Thread-safe. */
void ep_sdf_values(const ep_sdf *s, const double *p, long n, double *d);

/* The distance from p to the box (0 inside).  Cost O(1). */
double ep_sdf_box_distance(const ep_sdf *s, const double p[3]);

/* The voxel of p: the index of its first grid point (the eight are id,
 * id + 1, id + m, id + m + 1 and the same plus m^2, m = n + 1) and p's
 * weights w in it; -1 outside the box (or p not finite).  Inline, for the
 * loops that prefetch a voxel before they read it (ep_sdf_values,
 * pscontact.c).  Cost O(1). */
static inline long ep_sdf_voxel(const ep_sdf *s, const double p[3], double w[3])
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

/* Trilinear interpolation in the voxel id at weights w (001 eq. 3.10):
 * ep_sdf_value inside the box.  Cost O(1): eight loads. */
static inline double ep_sdf_trilinear(const ep_sdf *s, long id, const double w[3])
{
    long m = s->n + 1, mm = m * m;
    const float *v = s->value + id;
    double x0 = v[0] + w[0] * (v[1] - v[0]), x1 = v[m] + w[0] * (v[m + 1] - v[m]);
    double x2 = v[mm] + w[0] * (v[mm + 1] - v[mm]), x3 = v[mm + m] + w[0] * (v[mm + m + 1] - v[mm + m]);
    double y0 = x0 + w[1] * (x1 - x0), y1 = x2 + w[1] * (x3 - x2);
    return y0 + w[2] * (y1 - y0);
}

#ifdef __cplusplus
}
#endif

#endif
