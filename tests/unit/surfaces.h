/*
 * surfaces.h — closed test surfaces built in memory, with the analytic
 * shape they sample: a sphere (icosahedron refined and pushed onto the unit
 * sphere), a torus (parametric grid), a genus-2 slab (boundary of voxels
 * with two holes, smoothed), and the defects that surface clean-up repairs.
 * Shared by test_repair, test_simplify and test_fit.
 */
#ifndef EP_TEST_SURFACES_H
#define EP_TEST_SURFACES_H

#include "helpers.h"
#include "subdiv.h"

/* Unit sphere: the icosahedron refined `levels` times (midpoints), every
 * vertex scaled onto the sphere.  10 4^levels + 2 vertices. */
static inline void make_sphere(ep_mesh *m, int levels)
{
    assert_int_equal(ep_model_read(m, "data/icosahedron.obj"), EP_OK);
    for (int l = 0; l < levels; l++)
        assert_int_equal(ep_subdiv_refine(m, EP_SUBDIV_LINEAR, NULL), EP_OK);
    for (int v = 0; v < m->nv; v++) {
        double *x = &m->vertices[3 * v], r = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
        for (int k = 0; k < 3; k++)
            x[k] /= r;
    }
    free(m->level);
    free(m->parents);
    m->level = NULL;
    m->parents = NULL;
    assert_int_equal(ep_mesh_derive_boundary_data(m), EP_OK);
}

/* The sphere of make_sphere as a fixture (helpers.h):
 * EP_SPHERE_TEST(f, levels). */
static inline void sphere_open(ep_mesh *m, void *levels) { make_sphere(m, (int)(intptr_t)levels); }
EP_FIXTURE(sphere, ep_mesh, sphere_open, ep_mesh_free)
#define EP_SPHERE_TEST(f, levels) EP_FIXTURE_TEST(f, sphere, (intptr_t)(levels))

/* Two copies of surface a in one mesh: a itself, then a scaled by s and
 * moved by dx along x (a hollow ball, two crossing spheres...). */
static inline void make_pair(ep_mesh *m, const ep_mesh *a, double s, double dx)
{
    ep_mesh_init(m);
    snprintf(m->source, sizeof m->source, "pair");
    m->nv = 2 * a->nv;
    m->nf = 2 * a->nf;
    m->vertices = malloc(3 * sizeof(double) * (size_t)m->nv);
    m->triangles = malloc(3 * sizeof(int) * (size_t)m->nf);
    for (int v = 0; v < a->nv; v++)
        for (int c = 0; c < 3; c++) {
            m->vertices[3 * v + c] = a->vertices[3 * v + c];
            m->vertices[3 * (a->nv + v) + c] = s * a->vertices[3 * v + c] + (c == 0 ? dx : 0);
        }
    for (int t = 0; t < 3 * a->nf; t++) {
        m->triangles[t] = a->triangles[t];
        m->triangles[3 * a->nf + t] = a->nv + a->triangles[t];
    }
    assert_int_equal(ep_mesh_derive_boundary_data(m), EP_OK);
}

/* Distance of p from the torus of radii R (centre circle, in z = 0) and r. */
static inline double torus_distance(const double *p, double R, double r)
{
    double rho = sqrt(p[0] * p[0] + p[1] * p[1]) - R;
    return fabs(sqrt(rho * rho + p[2] * p[2]) - r);
}

/* Torus of radii R and r sampled on an nu x nw grid, outward faces. */
static inline void make_torus(ep_mesh *m, int nu, int nw, double R, double r)
{
    ep_mesh_init(m);
    snprintf(m->source, sizeof m->source, "torus");
    m->nv = nu * nw;
    m->nf = 2 * nu * nw;
    m->vertices = malloc(3 * sizeof(double) * (size_t)m->nv);
    m->triangles = malloc(3 * sizeof(int) * (size_t)m->nf);
    for (int i = 0; i < nu; i++)
        for (int j = 0; j < nw; j++) {
            double u = 2 * M_PI * i / nu, w = 2 * M_PI * j / nw, *x = &m->vertices[3 * (i * nw + j)];
            x[0] = (R + r * cos(w)) * cos(u);
            x[1] = (R + r * cos(w)) * sin(u);
            x[2] = r * sin(w);
        }
    for (int i = 0; i < nu; i++)
        for (int j = 0; j < nw; j++) {
            int a = i * nw + j, b = ((i + 1) % nu) * nw + j, c = ((i + 1) % nu) * nw + (j + 1) % nw,
                d = i * nw + (j + 1) % nw, *t = &m->triangles[6 * (i * nw + j)];
            t[0] = a, t[1] = b, t[2] = c; /* (u, w) is right-handed with the outward normal */
            t[3] = a, t[4] = c, t[5] = d;
        }
    assert_int_equal(ep_mesh_derive_boundary_data(m), EP_OK);
}

/* Genus 2: the boundary of a 5 x 3 x 1 slab of unit voxels without voxels
 * (1, 1) and (3, 1), each voxel face split into k x k squares, then `smooth`
 * steps of umbrella smoothing (which keep the connectivity). */
static inline void make_genus2(ep_mesh *m, int k, int smooth)
{
    enum { X = 5, Y = 3, Z = 1 };
    int nx = X * k + 1, ny = Y * k + 1, nz = Z * k + 1;
    int *id = malloc(sizeof(int) * (size_t)(nx * ny * nz)), nv = 0, nf = 0, cap = 0;
    for (int i = 0; i < nx * ny * nz; i++)
        id[i] = -1;
    ep_mesh_init(m);
    snprintf(m->source, sizeof m->source, "genus2");
    m->vertices = malloc(3 * sizeof(double) * (size_t)(nx * ny * nz));
#define FULL(x, y, z) ((x) >= 0 && (x) < X && (y) >= 0 && (y) < Y && (z) >= 0 && (z) < Z && !((y) == 1 && ((x) == 1 || (x) == 3)))
    static const int dir[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    for (int x = 0; x < X; x++)
        for (int y = 0; y < Y; y++)
            for (int z = 0; z < Z; z++)
                for (int d = 0; d < 6; d++) {
                    if (!FULL(x, y, z) || FULL(x + dir[d][0], y + dir[d][1], z + dir[d][2]))
                        continue;
                    /* Face with outward normal dir[d]: axis a fixed, tangent axes e1 x e2 = dir. */
                    int a = dir[d][0] ? 0 : dir[d][1] ? 1 : 2, s = dir[d][a] > 0;
                    int e1 = (a + 1) % 3, e2 = (a + 2) % 3;
                    if (!s) { /* reversed normal: swap the tangent axes */
                        int t = e1;
                        e1 = e2;
                        e2 = t;
                    }
                    for (int i = 0; i < k; i++)
                        for (int j = 0; j < k; j++) {
                            int q[4];
                            for (int c = 0; c < 4; c++) {
                                int g[3] = {x * k, y * k, z * k};
                                g[a] += s * k;
                                g[e1] += i + (c == 1 || c == 2);
                                g[e2] += j + (c >= 2);
                                int *slot = &id[(g[0] * ny + g[1]) * nz + g[2]];
                                if (*slot < 0) {
                                    *slot = nv;
                                    for (int e = 0; e < 3; e++)
                                        m->vertices[3 * nv + e] = (double)g[e] / k;
                                    nv++;
                                }
                                q[c] = *slot;
                            }
                            if (nf + 2 > cap) {
                                cap = cap ? 2 * cap : 1024;
                                m->triangles = realloc(m->triangles, 3 * sizeof(int) * (size_t)cap);
                            }
                            int *t = &m->triangles[3 * nf];
                            t[0] = q[0], t[1] = q[1], t[2] = q[2];
                            t[3] = q[0], t[4] = q[2], t[5] = q[3];
                            nf += 2;
                        }
                }
#undef FULL
    free(id);
    m->nv = nv;
    m->nf = nf;
    for (int it = 0; it < smooth; it++) { /* x += 0.5 (mean of neighbours - x), edges counted twice */
        double *sum = calloc(3 * (size_t)nv, sizeof *sum);
        int *cnt = calloc((size_t)nv, sizeof *cnt);
        for (int t = 0; t < nf; t++)
            for (int e = 0; e < 3; e++) {
                int p = m->triangles[3 * t + e], q = m->triangles[3 * t + (e + 1) % 3];
                for (int c = 0; c < 3; c++) {
                    sum[3 * p + c] += m->vertices[3 * q + c];
                    sum[3 * q + c] += m->vertices[3 * p + c];
                }
                cnt[p]++, cnt[q]++;
            }
        for (int v = 0; v < nv; v++)
            for (int c = 0; c < 3; c++)
                m->vertices[3 * v + c] += 0.5 * (sum[3 * v + c] / cnt[v] - m->vertices[3 * v + c]);
        free(sum);
        free(cnt);
    }
    assert_int_equal(ep_mesh_derive_boundary_data(m), EP_OK);
}

/* A closed surface of the given genus, 0 to 2 (a sphere, a torus of radii
 * 1 and 0.35, the genus-2 slab), coarse or fine: the topologies the
 * surface tools must keep. */
static inline void make_of_genus(ep_mesh *m, int genus, int fine)
{
    if (genus == 0)
        make_sphere(m, fine ? 4 : 3);
    else if (genus == 1)
        make_torus(m, fine ? 64 : 24, fine ? 24 : 12, 1.0, 0.35);
    else
        make_genus2(m, fine ? 4 : 3, fine ? 4 : 2);
}

/* Copy of surface a (vertices and triangles only). */
static inline void copy_surface(ep_mesh *b, const ep_mesh *a)
{
    ep_mesh_init(b);
    snprintf(b->source, sizeof b->source, "%s", a->source);
    b->nv = a->nv;
    b->nf = a->nf;
    b->vertices = malloc(3 * sizeof(double) * (size_t)a->nv);
    b->triangles = malloc(3 * sizeof(int) * (size_t)a->nf);
    memcpy(b->vertices, a->vertices, 3 * sizeof(double) * (size_t)a->nv);
    memcpy(b->triangles, a->triangles, 3 * sizeof(int) * (size_t)a->nf);
    assert_int_equal(ep_mesh_derive_boundary_data(b), EP_OK);
}

/* The defects clean-up repairs, added to a copy of a clean surface: every
 * 7th triangle reversed, a second copy of every vertex of every 5th
 * triangle (appended; that triangle then uses the copies), every 11th
 * triangle stored twice, and a zero-area face (v, copy of v, w) per 13th
 * triangle.  Extra vertices and faces go at the end, so a repair that
 * drops them restores the clean arrays exactly. */
static inline void inject_defects(ep_mesh *b, const ep_mesh *a)
{
    int nv = a->nv, nf = a->nf, extra_v = 0, extra_f = 0;
    for (int t = 0; t < nf; t++) {
        extra_v += t % 5 == 0 ? 3 : 0;
        extra_f += (t % 11 == 0) + (t % 13 == 0);
    }
    ep_mesh_init(b);
    snprintf(b->source, sizeof b->source, "%.1000s+defects", a->source);
    b->vertices = malloc(3 * sizeof(double) * (size_t)(nv + extra_v));
    b->triangles = malloc(3 * sizeof(int) * (size_t)(nf + extra_f));
    memcpy(b->vertices, a->vertices, 3 * sizeof(double) * (size_t)nv);
    memcpy(b->triangles, a->triangles, 3 * sizeof(int) * (size_t)nf);
    b->nv = nv;
    b->nf = nf;
    for (int t = 0; t < nf; t++) {
        int *f = &b->triangles[3 * t];
        if (t % 5 == 0)
            for (int k = 0; k < 3; k++) {
                memcpy(&b->vertices[3 * b->nv], &a->vertices[3 * f[k]], 3 * sizeof(double));
                f[k] = b->nv++;
            }
        if (t % 11 == 0) {
            memcpy(&b->triangles[3 * b->nf], f, 3 * sizeof(int));
            b->nf++;
        }
        if (t % 13 == 0) {
            int *z = &b->triangles[3 * b->nf++];
            z[0] = a->triangles[3 * t], z[1] = f[0], z[2] = a->triangles[3 * t + 1];
            if (z[0] == z[1]) /* f[0] not copied: repeat the vertex itself */
                z[1] = z[0];
        }
        if (t % 7 == 0) {
            int s = f[1];
            f[1] = f[2];
            f[2] = s;
        }
    }
    assert_int_equal(ep_mesh_derive_boundary_data(b), EP_OK);
}

#endif
