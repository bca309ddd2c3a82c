/*
 * test_voxel.c — voxelizing triangle soups: the triangle-box test against
 * polygon clipping (an independent exact method), the voxelized sphere's
 * volume within one voxel layer, a sphere with holes smaller than a voxel
 * still solid (and one with a large hole not), components, the hex mesh of
 * an aligned cube, refused resolutions and soups, the passes' progress.
 */
#include "helpers.h"

#include <math.h>

#include "hex.h"
#include "voxel.h"

/* Clip the polygon p[n] against the half-space s * (x_i - c) <= 0 (closed,
 * widened by tol); returns the new vertex count (Sutherland-Hodgman). */
static int clip(double p[][3], int n, int i, double c, double s, double tol)
{
    double out[16][3];
    int m = 0;
    for (int k = 0; k < n; k++) {
        const double *a = p[k], *b = p[(k + 1) % n];
        double da = s * (a[i] - c) - tol, db = s * (b[i] - c) - tol;
        if (da <= 0)
            memcpy(out[m++], a, sizeof out[0]);
        if ((da < 0 && db > 0) || (da > 0 && db < 0)) {
            double t = da / (da - db);
            for (int j = 0; j < 3; j++)
                out[m][j] = a[j] + t * (b[j] - a[j]);
            m++;
        }
    }
    memcpy(p, out, sizeof out[0] * (size_t)m);
    return m;
}

static int overlap_by_clipping(const double t[3][3], const double c0[3], const double hs[3], double tol)
{
    double p[16][3];
    int n = 3;
    memcpy(p, t, sizeof(double) * 9);
    for (int i = 0; i < 3 && n; i++) {
        n = clip(p, n, i, c0[i] + hs[i], 1, tol);
        if (n)
            n = clip(p, n, i, c0[i] - hs[i], -1, tol);
    }
    return n > 0;
}

static double urand(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (double)((*s >> 8) & 0xffffff) / 0x1000000;
}

/* The separating-axis test agrees with clipping the triangle by the box on
 * random pairs (near-touching pairs, where the two tolerances disagree,
 * excepted); exact touching counts as meeting. */
static void triangle_box(void **s)
{
    (void)s;
    unsigned seed = 7;
    int hits = 0, misses = 0;
    const double c0[3] = {0, 0, 0}, hs[3] = {0.5, 0.3, 0.4};
    for (int k = 0; k < 20000; k++) {
        double t[3][3];
        for (int v = 0; v < 3; v++)
            for (int i = 0; i < 3; i++)
                t[v][i] = 2.4 * urand(&seed) - 1.2;
        if (k % 3 == 0) /* small triangles near the box's edges and corners */
            for (int v = 1; v < 3; v++)
                for (int i = 0; i < 3; i++)
                    t[v][i] = t[0][i] + 0.3 * (urand(&seed) - 0.5);
        int in = overlap_by_clipping(t, c0, hs, 1e-9), out = overlap_by_clipping(t, c0, hs, -1e-9);
        int sat = ep_voxel_triangle_box(t[0], t[1], t[2], c0, hs);
        if (in == out)
            assert_int_equal(sat, in);
        hits += in && out;
        misses += !in && !out;
    }
    assert_true(hits > 1000 && misses > 1000);
    /* a triangle in the plane of a face touches the box; one just off does not */
    double a[3] = {0.5, -1, -1}, b[3] = {0.5, 1, -1}, c[3] = {0.5, 0, 1};
    assert_true(ep_voxel_triangle_box(a, b, c, c0, hs));
    a[0] = b[0] = c[0] = 0.5 + 1e-12;
    assert_false(ep_voxel_triangle_box(a, b, c, c0, hs));
}

/* The icosphere of radius 1 after `levels` subdivisions (vertices on the
 * sphere; outward triangles). */
static void icosphere(ep_mesh *m, int levels)
{
    const double p = (1 + sqrt(5.0)) / 2;
    const double v0[12][3] = {{-1, p, 0}, {1, p, 0}, {-1, -p, 0}, {1, -p, 0}, {0, -1, p}, {0, 1, p},
                              {0, -1, -p}, {0, 1, -p}, {p, 0, -1}, {p, 0, 1}, {-p, 0, -1}, {-p, 0, 1}};
    const int f0[20][3] = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
                           {11, 10, 2}, {10, 7, 6}, {7, 1, 8},  {3, 9, 4},  {3, 4, 2},   {3, 2, 6}, {3, 6, 8},
                           {3, 8, 9},  {4, 9, 5},  {2, 4, 11}, {6, 2, 10}, {8, 6, 7},   {9, 8, 1}};
    int nf = 20, nv = 12;
    for (int l = 0; l < levels; l++)
        nv += 3 * nf / 2, nf *= 4;
    ep_mesh_init(m);
    snprintf(m->source, sizeof m->source, "icosphere");
    m->vertices = malloc(sizeof(double) * 3 * (size_t)nv);
    m->triangles = malloc(sizeof(int) * 3 * (size_t)nf);
    int *tmp = malloc(sizeof(int) * 3 * (size_t)nf);
    memcpy(m->vertices, v0, sizeof v0);
    memcpy(m->triangles, f0, sizeof f0);
    m->nv = 12, m->nf = 20;
    for (int l = 0; l < levels; l++) {
        int n = 0, nf0 = m->nf;
        for (int t = 0; t < nf0; t++) {
            int c[3], *v = &m->triangles[3 * t];
            for (int e = 0; e < 3; e++) { /* midpoints, found again by search (small meshes) */
                int a = v[e], b = v[(e + 1) % 3], found = -1;
                double mid[3];
                for (int i = 0; i < 3; i++)
                    mid[i] = 0.5 * (m->vertices[3 * a + i] + m->vertices[3 * b + i]);
                for (int w = 12; w < m->nv && found < 0; w++)
                    if (fabs(m->vertices[3 * w] - mid[0]) + fabs(m->vertices[3 * w + 1] - mid[1]) +
                            fabs(m->vertices[3 * w + 2] - mid[2]) <
                        1e-12)
                        found = w;
                if (found < 0) {
                    found = m->nv++;
                    memcpy(&m->vertices[3 * found], mid, sizeof mid);
                }
                c[e] = found;
            }
            int q[4][3] = {{v[0], c[0], c[2]}, {v[1], c[1], c[0]}, {v[2], c[2], c[1]}, {c[0], c[1], c[2]}};
            memcpy(&tmp[3 * n], q, sizeof q);
            n += 4;
        }
        memcpy(m->triangles, tmp, sizeof(int) * 3 * (size_t)n);
        m->nf = n;
    }
    free(tmp);
    for (int w = 0; w < m->nv; w++) {
        double *x = &m->vertices[3 * w], r = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
        for (int i = 0; i < 3; i++)
            x[i] /= r;
    }
}

/* Voxelize m at res; returns the solid cell count, g left for inspection. */
static long voxelize(ep_voxel *g, const ep_mesh *m, int res, int shell)
{
    assert_int_equal(ep_voxel_setup(g, m, res), 0);
    assert_int_equal(ep_voxel_surface(g, m), 0);
    assert_int_equal(ep_voxel_fill(g), 0);
    assert_int_equal(ep_voxel_components(g, shell), 0);
    return g->nsurface + (shell ? 0 : g->ninside);
}

static long cell_at(const ep_voxel *g, const double p[3])
{
    int ijk[3];
    for (int i = 0; i < 3; i++)
        ijk[i] = (int)floor((p[i] - g->origin[i]) / g->h);
    return ijk[0] + (long)g->n[0] * (ijk[1] + (long)g->n[1] * ijk[2]);
}

/* The voxelized sphere holds the polyhedron (every cell meeting it is
 * touched or enclosed) and exceeds it by less than one voxel layer
 * (area x h), at three resolutions. */
static void sphere_volume(void **s)
{
    (void)s;
    ep_mesh m;
    double area, volume;
    icosphere(&m, 4);
    ep_mesh_surface_measures(&m, &area, &volume);
    for (int res = 8; res <= 32; res *= 2) {
        ep_voxel g;
        long n = voxelize(&g, &m, res, 0);
        double V = (double)n * g.h * g.h * g.h;
        assert_int_equal(g.n[0], res);
        assert_true(V >= volume);
        assert_true(V - volume < area * g.h);
        assert_int_equal(g.ncomp, 1);
        const double centre[3] = {0, 0, 0};
        assert_int_equal(g.cell[cell_at(&g, centre)], EP_VOXEL_INSIDE);
        ep_voxel_free(&g);
    }
    ep_mesh_free(&m);
}

/* Holes smaller than a voxel (single triangles of a fine sphere removed)
 * leave the solid solid; a hole of several voxels lets the fill in. */
static void sphere_with_holes(void **s)
{
    (void)s;
    ep_mesh m;
    ep_voxel g;
    icosphere(&m, 5); /* edges about 0.06, voxels 0.125 at res 16 */
    long closed = voxelize(&g, &m, 16, 0);
    ep_voxel_free(&g);
    int keep = 0, removed = 0;
    for (int t = 0; t < m.nf; t++) { /* every 97th triangle goes */
        if (t % 97 == 0) {
            removed++;
            continue;
        }
        memmove(&m.triangles[3 * keep], &m.triangles[3 * t], 3 * sizeof(int));
        keep++;
    }
    m.nf = keep;
    long holes = voxelize(&g, &m, 16, 0);
    const double centre[3] = {0, 0, 0};
    assert_int_equal(g.cell[cell_at(&g, centre)], EP_VOXEL_INSIDE);
    assert_true(labs(holes - closed) <= removed);
    assert_int_equal(g.ncomp, 1);
    ep_voxel_free(&g);
    /* a cap of radius 0.5 (4 voxels across) removed: the fill gets in */
    keep = 0;
    for (int t = 0; t < m.nf; t++) {
        const double *x = &m.vertices[3 * m.triangles[3 * t]];
        if (x[2] > 0.87)
            continue;
        memmove(&m.triangles[3 * keep], &m.triangles[3 * t], 3 * sizeof(int));
        keep++;
    }
    m.nf = keep;
    long open = voxelize(&g, &m, 16, 0);
    assert_int_equal(g.cell[cell_at(&g, centre)], EP_VOXEL_OUTSIDE);
    assert_int_equal(g.ninside, 0);
    assert_true(open < closed / 2);
    ep_voxel_free(&g);
    ep_mesh_free(&m);
}

/* Axis-aligned boxes as soups: the quads of box b at (lo, hi). */
static void add_box(ep_mesh *m, const double lo[3], const double hi[3])
{
    int base = m->nv;
    m->vertices = realloc(m->vertices, sizeof(double) * 3 * (size_t)(m->nv + 8));
    m->triangles = realloc(m->triangles, sizeof(int) * 3 * (size_t)(m->nf + 12));
    for (int a = 0; a < 8; a++)
        for (int i = 0; i < 3; i++)
            m->vertices[3 * (base + a) + i] = ep_hex_corner[a][i] > 0 ? hi[i] : lo[i];
    for (int f = 0; f < 6; f++) {
        const int *q = ep_hex_face[f];
        int t[6] = {q[0], q[1], q[2], q[0], q[2], q[3]};
        for (int k = 0; k < 6; k++)
            m->triangles[3 * m->nf + k] = base + t[k];
        m->nf += 2;
    }
    m->nv += 8;
}

/* Two separate boxes: two components, the larger found; the unit cube at
 * res 4 is exactly 64 box hexes on 125 vertices, corners in hex.h's order. */
static void components_and_mesh(void **s)
{
    (void)s;
    ep_mesh m;
    ep_voxel g;
    ep_mesh_init(&m);
    const double lo1[3] = {0, 0, 0}, hi1[3] = {1, 1, 1}, lo2[3] = {2.1, 0.1, 0.1}, hi2[3] = {2.6, 0.6, 0.6};
    add_box(&m, lo1, hi1);
    voxelize(&g, &m, 4, 0);
    double *x;
    int *hx, nv, nh;
    assert_int_equal(ep_voxel_mesh(&g, 0, &x, &nv, &hx, &nh), 0);
    assert_int_equal(nh, 64);
    assert_int_equal(nv, 125);
    for (int e = 0; e < nh; e++) {
        double c[8][3], h[3];
        for (int a = 0; a < 8; a++)
            memcpy(c[a], &x[3 * hx[8 * e + a]], sizeof c[a]);
        assert_int_equal(ep_hex_is_box(c, 1e-12, h), 1);
        assert_true(fabs(h[0] - 0.25) < 1e-15 && fabs(h[1] - 0.25) < 1e-15 && fabs(h[2] - 0.25) < 1e-15);
    }
    free(x);
    free(hx);
    ep_voxel_free(&g);
    /* shell: the touched cells are the 56 boundary cells of the 4 x 4 x 4 */
    assert_int_equal(voxelize(&g, &m, 4, 1), 56);
    ep_voxel_free(&g);
    /* h = 0.26: the first box takes 4 x 4 x 4 cells, the second 2 x 3 x 3 */
    add_box(&m, lo2, hi2);
    voxelize(&g, &m, 10, 0);
    assert_int_equal(g.ncomp, 2);
    assert_int_equal(g.comp_size[g.largest], 64);
    assert_int_equal(g.comp_size[3 - g.largest], 18);
    assert_int_equal(ep_voxel_mesh(&g, g.largest, &x, &nv, &hx, &nh), 0);
    assert_int_equal(nh, 64);
    free(x);
    free(hx);
    ep_voxel_free(&g);
    ep_mesh_free(&m);
}

/* What a progress callback saw: each pass's name, calls, last done, total. */
typedef struct seen {
    int npass, bad;
    char pass[8][32];
    long calls[8], done[8], total[8];
} seen;

static void record(void *ctx, const char *what, long done, long total)
{
    seen *r = ctx;
    if (!r->npass || strcmp(r->pass[r->npass - 1], what)) {
        if (r->npass == 8) {
            r->bad = 1;
            return;
        }
        snprintf(r->pass[r->npass], sizeof r->pass[0], "%s", what);
        r->total[r->npass++] = total;
        r->done[r->npass - 1] = -1;
    }
    int k = r->npass - 1;
    if (done < r->done[k] || done > total || total != r->total[k] || r->done[k] == total)
        r->bad = 1; /* done goes back, past total, total changes, or a call after the end */
    r->done[k] = done;
    r->calls[k]++;
}

/* The passes report progress (issue 45, point 6): touched cells over the
 * triangles, outside cells, components and mesh over the cells, each once,
 * in that order, done rising to total, every EP_PROGRESS_EVERY steps (a call
 * count that bounds the cost), and the result is the one without. */
static void progress(void **s)
{
    (void)s;
    ep_mesh m;
    ep_voxel g, h;
    seen r = {0};
    icosphere(&m, 4);
    long plain = voxelize(&h, &m, 80, 0);
    assert_int_equal(ep_voxel_setup(&g, &m, 80), 0);
    ep_progress_hook(record, &r);
    assert_int_equal(ep_voxel_surface(&g, &m), 0);
    assert_int_equal(ep_voxel_fill(&g), 0);
    assert_int_equal(ep_voxel_components(&g, 0), 0);
    double *x;
    int *hx, nv, nh;
    assert_int_equal(ep_voxel_mesh(&g, 0, &x, &nv, &hx, &nh), 0);
    ep_progress_hook(NULL, NULL);
    assert_int_equal(r.bad, 0);
    assert_int_equal(r.npass, 4);
    const char *want[4] = {"touched cells", "outside cells", "components", "mesh"};
    long total[4] = {m.nf, g.ncells - g.nsurface, g.ncells, g.ncells};
    for (int k = 0; k < 4; k++) {
        assert_string_equal(r.pass[k], want[k]);
        assert_int_equal(r.total[k], total[k]);
        assert_int_equal(r.done[k], total[k]);
        assert_true(r.calls[k] >= 2 && r.calls[k] <= total[k] / EP_PROGRESS_EVERY + 2);
    }
    assert_true(g.ncells > 4 * EP_PROGRESS_EVERY); /* several reports in a pass */
    assert_int_equal(nh, plain);
    assert_int_equal(g.nsurface + g.ninside, plain);
    free(x);
    free(hx);
    ep_voxel_free(&g);
    ep_voxel_free(&h);
    ep_mesh_free(&m);
}

/* Refused before any allocation: resolution 0, no triangles, zero size,
 * more cells than int32 ids. */
static void refusals(void **s)
{
    (void)s;
    ep_mesh m;
    ep_voxel g;
    icosphere(&m, 0);
    assert_int_equal(ep_voxel_setup(&g, &m, 0), EP_EINPUT);
    assert_non_null(strstr(ep_errmsg(), "resolution 0"));
    assert_int_equal(ep_voxel_setup(&g, &m, 2000), EP_EINPUT);
    assert_non_null(strstr(ep_errmsg(), "int32"));
    assert_int_equal(ep_voxel_setup(&g, &m, 100), 0);
    assert_true(ep_voxel_grid_bytes(&g) > 9e6);
    for (int w = 0; w < m.nv; w++)
        for (int i = 0; i < 3; i++)
            m.vertices[3 * w + i] = 1;
    assert_int_equal(ep_voxel_setup(&g, &m, 10), EP_EINPUT);
    assert_non_null(strstr(ep_errmsg(), "no volume"));
    m.nf = 0;
    assert_int_equal(ep_voxel_setup(&g, &m, 10), EP_EINPUT);
    assert_non_null(strstr(ep_errmsg(), "no triangles"));
    ep_mesh_free(&m);
}

EP_TEST_MAIN("voxel", cmocka_unit_test(triangle_box), cmocka_unit_test(sphere_volume),
             cmocka_unit_test(sphere_with_holes), cmocka_unit_test(components_and_mesh), cmocka_unit_test(refusals),
             cmocka_unit_test(progress))
