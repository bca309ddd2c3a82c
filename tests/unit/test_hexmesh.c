/*
 * test_hexmesh.c — hexahedral meshes in and out: Vega .veg CUBIC and Gmsh
 * 8-node hexahedra (msh 2.2 and 4.1), /mesh/hexes in .h5, the .veg writer,
 * the boundary of a hex mesh and its vertex areas against the closed-form
 * integrals of the bilinear hats, and the refusals (inverted and non-box
 * CUBIC elements, tets mixed with hexes).
 */
#include "helpers.h"

#include <math.h>

#include "hex.h"
#include "meshio.h"
#include "output.h"

/* A .veg CUBIC grid of nx x ny x nz boxes of edges h, the vertex at grid
 * point (i, j, k) numbered 1 + i + (nx+1)(j + (ny+1)k); tail appended
 * (materials, regions).  Returns the path. */
static const char *grid_veg(const char *name, int nx, int ny, int nz, const double h[3], const char *tail)
{
    static char text[1 << 16];
    int nv = (nx + 1) * (ny + 1) * (nz + 1), n = 0;
    n += snprintf(text + n, sizeof text - n, "# a box grid\n*VERTICES\n%d 3 0 0\n", nv);
    for (int k = 0, id = 1; k <= nz; k++)
        for (int j = 0; j <= ny; j++)
            for (int i = 0; i <= nx; i++, id++)
                n += snprintf(text + n, sizeof text - n, "%d %.17g %.17g %.17g\n", id, 0.5 + i * h[0], -1 + j * h[1],
                              2 + k * h[2]);
    n += snprintf(text + n, sizeof text - n, "*ELEMENTS\nCUBIC\n%d 8 0\n", nx * ny * nz);
    for (int k = 0, e = 1; k < nz; k++)
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++, e++) {
                n += snprintf(text + n, sizeof text - n, "%d", e);
                for (int a = 0; a < 8; a++) {
                    int I = i + (ep_hex_corner[a][0] > 0), J = j + (ep_hex_corner[a][1] > 0),
                        K = k + (ep_hex_corner[a][2] > 0);
                    n += snprintf(text + n, sizeof text - n, " %d", 1 + I + (nx + 1) * (J + (ny + 1) * K));
                }
                n += snprintf(text + n, sizeof text - n, "\n");
            }
    snprintf(text + n, sizeof text - n, "%s", tail);
    return write_scratch(name, text, -1);
}

/* Boundary of a box grid: closed, outward, area and volume of the block; the
 * vertex areas are the bilinear hats' integrals, a quarter of each adjacent
 * boundary face (a split into triangles would give 1/3 or 1/6 of a face). */
static void veg_cubic_boundary(void **s)
{
    (void)s;
    const double h[3] = {1.0, 0.5, 2.0};
    const int nx = 3, ny = 2, nz = 2;
    ep_mesh m;
    assert_int_equal(ep_model_read(&m, grid_veg("grid.veg", nx, ny, nz, h, "")), EP_OK);
    assert_null(m.tets);
    assert_int_equal(m.nh, nx * ny * nz);
    assert_int_equal(ep_mesh_nelements(&m), nx * ny * nz);
    int nquads = 2 * (nx * ny + ny * nz + nx * nz);
    assert_int_equal(m.nf, 2 * nquads);
    assert_int_equal(ep_mesh_check_closed(&m), EP_OK);
    double area, vol, X = nx * h[0], Y = ny * h[1], Z = nz * h[2];
    ep_mesh_surface_measures(&m, &area, &vol);
    assert_true(fabs(area - 2 * (X * Y + Y * Z + X * Z)) < 1e-12 * area);
    assert_true(fabs(vol - X * Y * Z) < 1e-12 * vol);
    int interior = (nx - 1) * (ny - 1) * (nz - 1);
    assert_int_equal(m.nb, m.nv - interior);
    for (int j = 0; j < m.nb; j++) {
        const double *x = &m.vertices[3 * m.boundary[j]];
        double lo[3] = {0.5, -1, 2}, len[3] = {X, Y, Z}, a = 0;
        for (int c = 0; c < 3; c++) { /* on face c = lo or hi: the faces' quarter boxes around the vertex */
            double t = x[c] - lo[c];
            if (fabs(t) > 1e-9 && fabs(t - len[c]) > 1e-9)
                continue;
            int c1 = (c + 1) % 3, c2 = (c + 2) % 3;
            double t1 = x[c1] - lo[c1], t2 = x[c2] - lo[c2];
            int n1 = (t1 > 1e-9) + (t1 < len[c1] - 1e-9), n2 = (t2 > 1e-9) + (t2 < len[c2] - 1e-9);
            a += n1 * n2 * h[c1] * h[c2] / 4;
        }
        assert_true(fabs(m.vertex_area[j] - a) < 1e-12 * a);
    }
    /* the quads: triangles 2q, 2q+1 share their first vertex and a diagonal */
    for (int q = 0; q < m.nf / 2; q++) {
        int v[4];
        ep_mesh_quad(&m, q, v);
        assert_int_equal(m.triangles[6 * q + 3], v[0]);
        assert_int_equal(m.triangles[6 * q + 4], v[2]);
    }
    ep_mesh_free(&m);
}

/* Two Gmsh hexes whose shared and outer faces are planar trapezoids: the
 * vertex areas of bilinear hats sum to the surface area (exact for planar
 * quads); a physical surface of quadrangles gives a vertex group, the
 * physical volume the region tags. */
#define HEX_NODES                                                                                                 \
    "1 0 0 0\n2 1 0 0\n3 1 1 0\n4 0 1 0\n5 0 0 1\n6 1.2 0 1\n7 1.2 1 1\n8 0 1 1\n9 2 0 0\n10 2 1 0\n11 2.5 0 1\n" \
    "12 2.5 1 1\n"
static void gmsh_hexes(void **s)
{
    (void)s;
    const char *v22 = write_scratch("hex22.msh",
        "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n2\n2 7 \"left\"\n3 9 \"body\"\n$EndPhysicalNames\n"
        "$Nodes\n12\n" HEX_NODES "$EndNodes\n$Elements\n3\n"
        "1 3 2 7 1 1 4 8 5\n2 5 2 9 1 1 2 3 4 5 6 7 8\n3 5 2 9 1 2 9 10 3 6 11 12 7\n$EndElements\n", -1);
    const char *v41 = write_scratch("hex41.msh",
        "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$PhysicalNames\n2\n2 7 \"left\"\n3 9 \"body\"\n$EndPhysicalNames\n"
        "$Entities\n0 0 1 1\n1 0 0 0 0 1 1 1 7 0\n1 0 0 0 2.5 1 1 1 9 0\n$EndEntities\n"
        "$Nodes\n1 12 1 12\n3 1 0 12\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n"
        "0 0 0\n1 0 0\n1 1 0\n0 1 0\n0 0 1\n1.2 0 1\n1.2 1 1\n0 1 1\n2 0 0\n2 1 0\n2.5 0 1\n2.5 1 1\n$EndNodes\n"
        "$Elements\n2 3 1 3\n2 1 3 1\n1 1 4 8 5\n3 1 5 2\n2 1 2 3 4 5 6 7 8\n3 2 9 10 3 6 11 12 7\n$EndElements\n", -1);
    const char *paths[2] = {v22, v41};
    for (int f = 0; f < 2; f++) {
        ep_mesh m;
        assert_int_equal(ep_model_read(&m, paths[f]), EP_OK);
        assert_int_equal(m.nh, 2);
        assert_int_equal(m.nv, 12);
        assert_int_equal(m.nf, 2 * 10);
        assert_int_equal(ep_mesh_check_closed(&m), EP_OK);
        assert_int_equal(m.region[0], 9);
        assert_int_equal(m.region[1], 9);
        double area, vol, asum = 0;
        ep_mesh_surface_measures(&m, &area, &vol);
        assert_true(fabs(vol - (1.1 + 1.15)) < 1e-12); /* two prisms of trapezoid section */
        for (int j = 0; j < m.nb; j++)
            asum += m.vertex_area[j];
        assert_true(fabs(asum - area) < 1e-12 * area);
        const ep_group *g = ep_mesh_find_group(&m, "left");
        assert_non_null(g);
        assert_int_equal(g->nv, 4);
        ep_mesh_free(&m);
    }
}

/* Compare two models exactly: vertices, elements, regions, material. */
static void assert_same_model(const ep_mesh *a, const ep_mesh *b)
{
    assert_int_equal(a->nv, b->nv);
    assert_int_equal(a->ne, b->ne);
    assert_int_equal(a->nh, b->nh);
    assert_memory_equal(a->vertices, b->vertices, 3 * sizeof(double) * a->nv);
    if (a->tets)
        assert_memory_equal(a->tets, b->tets, 4 * sizeof(int) * a->ne);
    if (a->hexes)
        assert_memory_equal(a->hexes, b->hexes, 8 * sizeof(int) * a->nh);
    assert_int_equal(a->nf, b->nf);
    assert_memory_equal(a->triangles, b->triangles, 3 * sizeof(int) * a->nf);
    assert_memory_equal(a->vertex_area, b->vertex_area, sizeof(double) * a->nb);
    assert_int_equal(!a->region, !b->region);
    if (a->region)
        assert_memory_equal(a->region, b->region, sizeof(int) * ep_mesh_nelements(a));
    assert_int_equal(!a->material, !b->material);
    if (a->material) {
        const ep_material *p = a->material, *q = b->material;
        assert_int_equal(p->ne, q->ne);
        for (int e = 0; e < (p->ne ? p->ne : 1); e++) {
            assert_true(ep_material_E(p, e) == ep_material_E(q, e));
            assert_true(ep_material_nu(p, e) == ep_material_nu(q, e));
            assert_true(ep_material_rho(p, e) == ep_material_rho(q, e));
        }
    }
}

static void write_h5(const ep_mesh *m, const char *path)
{
    ep_h5 f = {0};
    assert_int_equal(ep_h5_create(&f, path, "mesh", "test_hexmesh", "test"), EP_OK);
    assert_int_equal(ep_model_write(&f, m, NULL, NULL), EP_OK);
    ep_h5_close(&f);
}

static void write_veg(const ep_mesh *m, const char *path)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(ep_meshio_write(f, m, ep_meshio_format(path)), EP_OK);
    assert_int_equal(fclose(f), 0);
}

/* .veg -> .h5 -> .veg -> .h5 keeps every number; the second .veg is the
 * first byte for byte.  Hexes with two materials in two regions, and the
 * tets of a shipped Vega model. */
static void round_trips(void **s)
{
    (void)s;
    const double h[3] = {0.1, 0.2, 0.3};
    const char *in[2] = {grid_veg("mat.veg", 3, 2, 1, h,
                                  "*MATERIAL soft\nENU, 1000, 1e6, 0.3\n*MATERIAL hard\nENU, 2000, 1e9, 0.25\n"
                                  "*SET right\n3, 6,\n*REGION\nallElements, soft\nright, hard\n"),
                         "data/models/beam3/beam3_tet.veg"};
    for (int t = 0; t < 2; t++) {
        ep_mesh a, b, c;
        assert_int_equal(ep_model_read(&a, in[t]), EP_OK);
        write_h5(&a, scratch("a.h5"));
        assert_int_equal(ep_model_read(&b, scratch("a.h5")), EP_OK);
        assert_same_model(&a, &b);
        write_veg(&b, scratch("b.veg"));
        assert_int_equal(ep_model_read(&c, scratch("b.veg")), EP_OK);
        assert_same_model(&b, &c);
        write_veg(&c, scratch("c.veg"));
        char cmd[1200];
        snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s'", scratch("b.veg"), scratch("c.veg"));
        assert_int_equal(system(cmd), 0);
        if (t == 0) {
            assert_int_equal(a.material->ne, 6);
            assert_true(a.material->e_E[2] == 1e9 && a.material->e_E[1] == 1e6);
            assert_int_equal(a.region[5], 2);
        }
        ep_mesh_free(&a);
        ep_mesh_free(&b);
        ep_mesh_free(&c);
    }
}

/* What cannot be read or written: one message naming the element. */
static void refusals(void **s)
{
    (void)s;
    ep_mesh m;
    const double h[3] = {1, 1, 1};
    /* inverted: corners 0..3 swapped with 4..7 */
    const char *p = grid_veg("inverted.veg", 1, 1, 1, h, "");
    char text[4096];
    FILE *f = fopen(p, "r");
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    char *el = strstr(text, "1 1 2 4 3 5 6 8 7");
    assert_non_null(el);
    memcpy(el, "1 5 6 8 7 1 2 4 3", 17);
    expect_error(ep_model_read(&m, write_scratch("inverted.veg", text, -1)), EP_EINPUT, "inverted.veg",
                 "element 1: inverted", NULL);
    memcpy(el, "1 2 1 4 3 6 5 8 7", 17); /* mirrored: inverted too */
    expect_error(ep_model_read(&m, write_scratch("mirror.veg", text, -1)), EP_EINPUT, "element 1: inverted", NULL);
    memcpy(el, "1 2 4 3 1 6 8 7 5", 17); /* rotated a quarter turn: positive, but not Vega's order */
    expect_error(ep_model_read(&m, write_scratch("turned.veg", text, -1)), EP_EINPUT,
                 "element 1: not an axis-aligned box", NULL);
    /* a sheared box: positive, and a fine Gmsh hex, but not a voxel */
    const char *sheared = write_scratch("sheared.veg",
        "*VERTICES\n8 3 0 0\n1 0 0 0\n2 1 0 0\n3 1.3 1 0\n4 0.3 1 0\n5 0 0 1\n6 1 0 1\n7 1.3 1 1\n8 0.3 1 1\n"
        "*ELEMENTS\nCUBIC\n1 8 0\n1 1 2 3 4 5 6 7 8\n", -1);
    expect_error(ep_model_read(&m, sheared), EP_EINPUT, "sheared.veg", "element 1: not an axis-aligned box", NULL);
    expect_error(ep_model_read(&m, write_scratch("four.veg", "*VERTICES\n1 3 0 0\n1 0 0 0\n*ELEMENTS\nCUBIC\n1 4 0\n",
                                                 -1)),
                 EP_EINPUT, ":6: 4 vertices per element (8 expected)", NULL);
    /* tets and hexes together */
    const char *mixed = write_scratch("mixed.msh",
        "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n12\n" HEX_NODES "$EndNodes\n$Elements\n2\n"
        "1 5 2 9 1 1 2 3 4 5 6 7 8\n2 4 2 9 1 2 9 10 11\n$EndElements\n", -1);
    expect_error(ep_model_read(&m, mixed), EP_EINPUT, "mixed.msh:", "one kind", NULL);
    /* a non-box hex mesh cannot be written as CUBIC; nothing is written */
    const char *v22 = write_scratch("one.msh", "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n12\n" HEX_NODES
                                               "$EndNodes\n$Elements\n1\n1 5 2 9 1 1 2 3 4 5 6 7 8\n$EndElements\n",
                                    -1);
    assert_int_equal(ep_model_read(&m, v22), EP_OK);
    f = fopen(scratch("no.veg"), "w");
    expect_error(ep_meshio_write(f, &m, EP_MESHIO_VEG), EP_EINPUT, "element 1: not an axis-aligned box", NULL);
    assert_int_equal(ftell(f), 0);
    fclose(f);
    /* an .h5 with both kinds */
    ep_h5 hf = {0};
    assert_int_equal(ep_h5_create(&hf, scratch("both.h5"), "mesh", "test_hexmesh", "test"), EP_OK);
    assert_int_equal(ep_model_write(&hf, &m, NULL, NULL), EP_OK);
    hsize_t d[2] = {1, 4};
    int tet[4] = {0, 1, 2, 4};
    assert_int_equal(ep_h5_write(&hf, "/mesh/tets", EP_I32, 2, d, tet), EP_OK);
    ep_h5_close(&hf);
    ep_mesh_free(&m);
    expect_error(ep_model_read(&m, scratch("both.h5")), EP_EINPUT, "both.h5", "one kind", NULL);
}

EP_TEST_MAIN("hexmesh", cmocka_unit_test(veg_cubic_boundary), cmocka_unit_test(gmsh_hexes),
             cmocka_unit_test(round_trips), cmocka_unit_test(refusals))
