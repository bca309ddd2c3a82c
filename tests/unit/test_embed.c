/*
 * test_embed.c — render vertices bound to tet and hex meshes: weights sum to
 * 1, affine fields reproduced exactly inside and outside, inside vertices
 * inside their element, outside vertices bound at the distance an
 * independent search finds (closest point on the tet mesh's boundary; box
 * distances over every hex), the render basis W U of coordinate fields is
 * the render positions, and a vertex beyond the limit is refused.
 */
#include "helpers.h"

#include <math.h>

#include "closest.h"
#include "embed.h"
#include "embed_file.h"
#include "h5.h"
#include "model.h"
#include "hex.h"
#include "voxel.h"

static double urand(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (double)((*s >> 8) & 0xffffff) / 0x1000000;
}

/* np random points in the bounding box of x grown by margin on every side. */
static double *points(const double *x, int nv, int np, double margin, unsigned seed)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int v = 0; v < nv; v++)
        for (int i = 0; i < 3; i++) {
            lo[i] = fmin(lo[i], x[3 * v + i]);
            hi[i] = fmax(hi[i], x[3 * v + i]);
        }
    double *p = malloc(sizeof(double) * 3 * (size_t)np);
    for (int k = 0; k < 3 * np; k++)
        p[k] = lo[k % 3] - margin + (hi[k % 3] - lo[k % 3] + 2 * margin) * urand(&seed);
    return p;
}

/* Properties every embedding has: weights sum to 1, W reproduces an affine
 * field to rounding, and W U of the coordinate fields gives the points. */
static void check_common(const ep_embed *b, const double *x, int nv, const double *p)
{
    for (int i = 0; i < b->nr; i++) {
        double sum = 0;
        for (int a = 0; a < b->k; a++)
            sum += b->w[b->k * i + a];
        assert_true(fabs(sum - 1) < 1e-13);
        if (b->dist[i] == 0)
            for (int a = 0; a < b->k; a++)
                assert_true(b->w[b->k * i + a] > -1e-12);
    }
    assert_true(ep_embed_affine_error(b, x, p, 1) < 1e-13);
    assert_true(ep_embed_affine_error(b, x, p, 2) < 1e-13);
    double *U = calloc(3 * 3 * (size_t)nv, sizeof *U), *Ub = malloc(sizeof(double) * 9 * (size_t)b->nr);
    for (int j = 0; j < 3; j++) /* field j moves every vertex by its coordinate j along axis j */
        for (int v = 0; v < nv; v++)
            U[(size_t)j * 3 * nv + 3 * v + j] = x[3 * v + j];
    ep_embed_apply(b, U, nv, 3, Ub);
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < b->nr; i++)
            for (int c = 0; c < 3; c++) {
                double want = c == j ? p[3 * i + j] : 0;
                assert_true(fabs(Ub[(size_t)j * 3 * b->nr + 3 * i + c] - want) < 1e-12);
            }
    free(U);
    free(Ub);
}

/* Tets: points in and around the tetrahedralized cube. */
static void tet_mesh(void **s)
{
    (void)s;
    ep_mesh m;
    ep_embed b;
    ep_closest cl;
    assert_int_equal(ep_model_read(&m, "data/cube.msh"), 0);
    double size = ep_mesh_diameter(&m);
    int np = 3000;
    double *p = points(m.vertices, m.nv, np, 0.3 * size, 11);
    assert_int_equal(ep_embed_build(&b, m.vertices, m.nv, m.tets, m.ne, 4, p, np, size), 0);
    assert_true(b.noutside > 100 && b.noutside < np - 100);
    check_common(&b, m.vertices, m.nv, p);
    assert_int_equal(ep_closest_build(&cl, &m), 0);
    for (int i = 0; i < np; i++) {
        double q[3], d2;
        int tri;
        ep_closest_query(&cl, &p[3 * i], q, &tri, &d2);
        if (b.dist[i] > 0) /* outside: the distance to the surface */
            assert_true(fabs(b.dist[i] - sqrt(d2)) < 1e-12 * size);
    }
    assert_true(b.maxdist > 0.2 * size);
    ep_closest_free(&cl);
    ep_embed_free(&b);
    free(p);
    ep_mesh_free(&m);
}

/* Hexes: a voxelized box-with-a-notch (so that outside points also lie in
 * concave places); outside distances equal the smallest box distance over
 * every hex. */
static void hex_mesh(void **s)
{
    (void)s;
    ep_mesh soup;
    ep_voxel g;
    ep_mesh_init(&soup);
    /* an L-shaped prism as a soup: the unit cube's voxels minus a corner */
    const double V[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
    soup.vertices = malloc(sizeof V);
    memcpy(soup.vertices, V, sizeof V);
    soup.nv = 8;
    soup.triangles = malloc(sizeof(int) * 36);
    for (int f = 0; f < 6; f++) {
        const int *q = ep_hex_face[f];
        int t[6] = {q[0], q[1], q[2], q[0], q[2], q[3]};
        memcpy(&soup.triangles[6 * f], t, sizeof t);
    }
    soup.nf = 12;
    assert_int_equal(ep_voxel_setup(&g, &soup, 6), 0);
    assert_int_equal(ep_voxel_surface(&g, &soup), 0);
    assert_int_equal(ep_voxel_fill(&g), 0);
    for (long c = 0; c < g.ncells; c++) { /* cut the notch */
        long i = c % 6, j = c / 6 % 6;
        if (i >= 3 && j >= 3)
            g.cell[c] = EP_VOXEL_OUTSIDE;
    }
    assert_int_equal(ep_voxel_components(&g, 0), 0);
    double *x;
    int *hx, nv, nh;
    assert_int_equal(ep_voxel_mesh(&g, 0, &x, &nv, &hx, &nh), 0);
    assert_int_equal(nh, 216 - 54);
    int np = 3000;
    double *p = points(x, nv, np, 0.3, 5);
    ep_embed b;
    assert_int_equal(ep_embed_build(&b, x, nv, hx, nh, 8, p, np, 2.0), 0);
    check_common(&b, x, nv, p);
    int notch = 0;
    for (int i = 0; i < np; i++) {
        double best = INFINITY;
        for (int e = 0; e < nh; e++) {
            double d2 = 0;
            for (int c = 0; c < 3; c++) {
                double lo = x[3 * hx[8 * e] + c], hi = x[3 * hx[8 * e + 6] + c];
                double t = p[3 * i + c] < lo ? lo - p[3 * i + c] : p[3 * i + c] > hi ? p[3 * i + c] - hi : 0;
                d2 += t * t;
            }
            best = fmin(best, sqrt(d2));
        }
        assert_true(fabs(b.dist[i] - best) < 1e-12);
        notch += p[3 * i] > 0.55 && p[3 * i + 1] > 0.55 && p[3 * i + 2] > 0 && p[3 * i + 2] < 1;
    }
    assert_true(notch > 50);
    ep_embed_free(&b);
    /* a point farther than the limit is refused, naming it (1-based) */
    p[3 * 7] = 10;
    assert_int_equal(ep_embed_build(&b, x, nv, hx, nh, 8, p, np, 2.0), EP_EINPUT);
    assert_non_null(strstr(ep_errmsg(), "render vertex 8 "));
    assert_null(b.w);
    free(p);
    free(x);
    free(hx);
    ep_voxel_free(&g);
    ep_mesh_free(&soup);
}

/* The embedding file: written and read back bit for bit (W, elements,
 * distances, render vertices, Ubar), and refused when a row, a column or an
 * element is out of place. */
static void file_round_trip(void **s)
{
    (void)s;
    ep_mesh m, ren;
    ep_embed b, r;
    ep_h5 f = {0};
    assert_int_equal(ep_model_read(&m, "data/cube.msh"), 0);
    int np = 200;
    double *p = points(m.vertices, m.nv, np, 0.2, 3), *U = malloc(sizeof(double) * 2 * 3 * (size_t)m.nv);
    double *Ub = malloc(sizeof(double) * 2 * 3 * (size_t)np), *p2, *Ub2;
    for (int i = 0; i < 2 * 3 * m.nv; i++)
        U[i] = sin(0.37 * i);
    assert_int_equal(ep_embed_build(&b, m.vertices, m.nv, m.tets, m.ne, 4, p, np, 2.0), 0);
    ep_embed_apply(&b, U, m.nv, 2, Ub);
    ep_mesh_init(&ren);
    ren.vertices = p, ren.nv = np;
    const char *path = scratch("e.h5");
    assert_int_equal(ep_h5_create(&f, path, "embedding", "test", "test"), 0);
    assert_int_equal(ep_model_write(&f, &m, NULL, NULL), 0);
    assert_int_equal(ep_embed_file_write(&f, &b, &ren, 2.0, Ub, 2), 0);
    assert_int_equal(ep_h5_close(&f), 0);
    int rr;
    assert_int_equal(ep_h5_open(&f, path, "embedding"), 0);
    assert_int_equal(ep_embed_file_read(&r, &p2, &Ub2, &rr, &f, m.nv, m.ne), 0);
    assert_int_equal(r.nr, np);
    assert_int_equal(r.k, 4);
    assert_int_equal(rr, 2);
    assert_int_equal(r.noutside, b.noutside);
    assert_memory_equal(r.col, b.col, sizeof(int) * 4 * (size_t)np);
    assert_memory_equal(r.w, b.w, sizeof(double) * 4 * (size_t)np);
    assert_memory_equal(r.element, b.element, sizeof(int) * (size_t)np);
    assert_memory_equal(r.dist, b.dist, sizeof(double) * (size_t)np);
    assert_memory_equal(p2, p, sizeof(double) * 3 * (size_t)np);
    assert_memory_equal(Ub2, Ub, sizeof(double) * 6 * (size_t)np);
    ep_embed_free(&r);
    free(p2), free(Ub2);
    /* a mesh of fewer vertices or elements than the file names */
    expect_error(ep_embed_file_read(&r, &p2, NULL, &rr, &f, 5, m.ne), EP_EINPUT, "/embedding/columns: vertex", NULL);
    ep_embed_free(&r), free(p2);
    expect_error(ep_embed_file_read(&r, &p2, NULL, &rr, &f, m.nv, 1), EP_EINPUT, "/embedding/element: element", NULL);
    ep_embed_free(&r), free(p2);
    ep_h5_close(&f);
    ep_embed_free(&b);
    free(U), free(Ub);
    ren.vertices = NULL; /* p, freed below */
    ep_mesh_free(&ren);
    free(p);
    ep_mesh_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(tet_mesh), cmocka_unit_test(hex_mesh),
                                       cmocka_unit_test(file_round_trip)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
