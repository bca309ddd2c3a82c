/*
 * rtdist.c — a distance field checked against brute force, its lookups
 * timed (rtdist.h).
 */
#include "rtdist.h"
#include "closest.h"
#include "distfield_file.h"
#include "err.h"
#include "mesh.h"
#include "model.h"
#include "rng.h"
#include "sdf.h"
#include "vec3.h"
#include "winding.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The field's true value at p: the brute-force distance, signed by the
 * brute-force winding number (unless unsigned), minus the offset. */
static double truth(const ep_mesh *m, const ep_sdf *s, double offset, const double p[3], double *d)
{
    *d = ep_distfield_brute(m, p);
    int inside = s->sign != EP_DISTFIELD_UNSIGNED && ep_winding_brute(m->vertices, m->triangles, m->nf, p) > 0.5;
    return (inside ? -*d : *d) - offset;
}

/* Seconds per lookup of the n points p, batched (best of three). */
static double time_lookups(const ep_sdf *s, const double *p, long n, double *out)
{
    double best = INFINITY;
    for (int rep = 0; rep < 3; rep++) {
        double t0 = ep_now();
        ep_sdf_values(s, p, n, out);
        best = fmin(best, (ep_now() - t0) / n);
    }
    return best;
}

int ep_rtdist_run(ep_rtreport *rep, ep_h5 *f, long samples, unsigned long seed)
{
    ep_mesh m;
    ep_distfield g = {0};
    ep_sdf s = {0};
    char hash[EP_DISTFIELD_FILE_HASH], mine[EP_DISTFIELD_FILE_HASH];
    const long NT = 1 << 20;
    double *p = NULL, *out = NULL;
    int st;
    rep->kind = "distfield";
    if ((st = ep_model_load(&m, f)) || (st = ep_distfield_file_read(&g, f, hash)))
        goto out;
    if (m.nf < 1) {
        st = ep_fail(EP_EINPUT, "%s: /mesh has no triangles to check the field against", f->path);
        goto out;
    }
    double offset = g.offset, band = g.band, band_err = ep_distfield_band_error(&g);
    ep_distfield_file_hash(&m, mine);
    ep_sdf_adopt(&s, &g);
    long np = ep_distfield_points(s.n), m1 = s.n + 1;
    ep_rtreport_fact(rep, "resolution", s.n);
    ep_rtreport_fact(rep, "triangles", m.nf);
    ep_rtreport_fact(rep, "samples", (double)samples);
    ep_rtreport_check_value(rep, "source hash differs from /mesh", strcmp(hash, mine) != 0, 0);

    /* grid values and signs against brute force */
    ep_rng r = ep_rng_seed(seed, 38);
    double worst = 0, diag = sqrt(3.0) * s.h;
    long wrong_sign = 0, signed_checked = 0, above = 0, outside = 0;
    for (long k = 0; k < samples; k++) {
        long id = (long)(ep_rng_uniform(&r) * np) % np;
        double x[3] = {s.origin[0] + (double)(id % m1) * s.h, s.origin[1] + (double)(id / m1 % m1) * s.h,
                       s.origin[2] + (double)(id / (m1 * m1)) * s.h}, d;
        double want = truth(&m, &s, offset, x, &d), v = s.value[id] + offset;
        double err = fabs(fabs(v) - d) / fmax(d, 1e-3 * s.h);
        if (!(band > 0 && d > band))
            worst = ep_rtreport_worst(worst, err);
        else if (!(fabs(fabs(v) - d) <= band_err + 1e-6 * d)) /* NaN fails too */
            worst = ep_rtreport_worst(worst, INFINITY);
        if (s.sign != EP_DISTFIELD_UNSIGNED && d > diag) {
            signed_checked++;
            wrong_sign += (want + offset < 0) != (v < 0);
        }
    }
    ep_rtreport_check_value(rep, "grid value vs brute-force distance, relative", worst, 1e-6);
    ep_rtreport_fact(rep, "signs checked (farther than a cell diagonal)", (double)signed_checked);
    ep_rtreport_check_value(rep, "signs differing from the brute-force winding number", (double)wrong_sign, 0);

    /* the eq. 3.14 bound outside the box: up to one side away */
    double side = s.n * s.h;
    for (long k = 0; k < samples && s.d_boundary > 0; k++) {
        double x[3], d;
        for (int a = 0; a < 3; a++)
            x[a] = s.origin[a] + (3 * ep_rng_uniform(&r) - 1) * side;
        if (ep_sdf_box_distance(&s, x) == 0)
            continue;
        outside++;
        above += ep_sdf_value(&s, x) > truth(&m, &s, offset, x, &d) + 1e-9 * side;
    }
    ep_rtreport_fact(rep, "points outside the box", (double)outside);
    ep_rtreport_check_value(rep, "eq. 3.14 bounds above the true distance", (double)above, 0);

    /* lookups: uniform in the box (random), and a walk of steps h/4 (coherent) */
    p = ep_malloc(3 * (size_t)NT, sizeof *p);
    out = ep_malloc((size_t)NT, sizeof *out);
    if (!p || !out) {
        st = EP_ECOMPUTE;
        goto out;
    }
    for (long i = 0; i < NT; i++)
        for (int a = 0; a < 3; a++)
            p[3 * i + a] = s.origin[a] + ep_rng_uniform(&r) * side;
    ep_rtreport_time(rep, "lookup, random points", time_lookups(&s, p, NT, out) * 1e6);
    for (long i = 1; i < NT; i++)
        for (int a = 0; a < 3; a++) {
            double x = p[3 * (i - 1) + a] + (ep_rng_uniform(&r) - 0.5) * 0.5 * s.h;
            p[3 * i + a] = x < s.origin[a] ? s.origin[a] : x > s.origin[a] + side ? s.origin[a] + side : x;
        }
    ep_rtreport_time(rep, "lookup, coherent points (steps h/4)", time_lookups(&s, p, NT, out) * 1e6);
out:
    free(p);
    free(out);
    ep_sdf_free(&s);
    ep_distfield_free(&g);
    ep_mesh_free(&m);
    return st;
}
