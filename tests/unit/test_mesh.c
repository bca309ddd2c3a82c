/*
 * test_mesh.c — mesh readers on good and bad files, derived data (boundary,
 * vertex areas, tet gradients) against exact geometric facts.
 */
#include "model.h"
#include "helpers.h"

#include <math.h>

#include "halfedge.h"
#include "mesh.h"
#include "tet.h"

static double tet_volume_sum(const ep_mesh *m)
{
    double total = 0;
    for (int e = 0; e < m->ne; e++) {
        double x[4][3], vol, g[4][3];
        for (int k = 0; k < 4; k++)
            memcpy(x[k], &m->vertices[3 * m->tets[4 * e + k]], sizeof x[k]);
        ep_tet_gradients(x, &vol, g);
        total += vol;
    }
    return total;
}

/* A unit cube from any reader: total tet volume 1, closed outward boundary of
 * area 6 enclosing volume 1, vertex areas summing to the area. */
static void check_unit_cube(const char *path)
{
    ep_mesh m;
    double area, vol, asum = 0;
    assert_int_equal(ep_model_read(&m, path), EP_OK);
    assert_true(m.ne > 10);
    assert_true(fabs(tet_volume_sum(&m) - 1.0) < 1e-12);
    assert_int_equal(ep_mesh_check_closed(&m), EP_OK);
    ep_mesh_surface_measures(&m, &area, &vol);
    assert_true(fabs(area - 6.0) < 1e-12);
    assert_true(fabs(vol - 1.0) < 1e-12);
    for (int j = 0; j < m.nb; j++)
        asum += m.vertex_area[j];
    assert_true(fabs(asum - 6.0) < 1e-12);
    for (int j = 0; j < m.nb; j++) { /* boundary vertices lie on the cube's faces */
        const double *x = &m.vertices[3 * m.boundary[j]];
        int on = 0;
        for (int a = 0; a < 3; a++)
            on |= fabs(x[a]) < 1e-12 || fabs(x[a] - 1) < 1e-12;
        assert_true(on);
        assert_true(j == 0 || m.boundary[j] > m.boundary[j - 1]);
    }
    ep_mesh_free(&m);
}

/* The spatial order is a permutation of vertices and of tets, and it is
 * Morton's: the top bit is z's, so every vertex below the cube's mid-plane
 * comes before every vertex above it (and likewise for tet centroids). */
static void spatial_order(void **s)
{
    (void)s;
    ep_mesh m;
    assert_int_equal(ep_model_read(&m, "data/cube.msh"), EP_OK);
    int *vrank = malloc(sizeof *vrank * (size_t)m.nv), *eorder = malloc(sizeof *eorder * (size_t)m.ne);
    int *seen = calloc((size_t)(m.nv > m.ne ? m.nv : m.ne), sizeof *seen);
    assert_int_equal(ep_mesh_spatial_order(&m, vrank, eorder), EP_OK);
    for (int v = 0; v < m.nv; v++)
        assert_int_equal(seen[vrank[v]]++, 0);
    memset(seen, 0, sizeof *seen * (size_t)m.nv);
    for (int e = 0; e < m.ne; e++)
        assert_int_equal(seen[eorder[e]]++, 0);
    int last_below = -1, first_above = m.nv;
    for (int v = 0; v < m.nv; v++) {
        double z = m.vertices[3 * v + 2];
        if (z < 0.5 - 1e-9)
            last_below = vrank[v] > last_below ? vrank[v] : last_below;
        else if (z > 0.5 + 1e-9)
            first_above = vrank[v] < first_above ? vrank[v] : first_above;
    }
    assert_true(last_below >= 0 && first_above < m.nv && last_below < first_above);
    double zprev = -1;
    int crossings = 0;
    for (int i = 0; i < m.ne; i++) {
        const int *t = &m.tets[4 * eorder[i]];
        double z = 0.25 * (m.vertices[3 * t[0] + 2] + m.vertices[3 * t[1] + 2] + m.vertices[3 * t[2] + 2] +
                           m.vertices[3 * t[3] + 2]);
        crossings += i > 0 && (zprev < 0.5) != (z < 0.5);
        zprev = z;
    }
    assert_int_equal(crossings, 1);
    free(vrank), free(eorder), free(seen);
    ep_mesh_free(&m);
}

static void cube_msh41(void **s) { (void)s; check_unit_cube("data/cube.msh"); }
static void cube_msh22(void **s) { (void)s; check_unit_cube("data/cube-v22.msh"); }
static void cube_tetgen(void **s) { (void)s; check_unit_cube("data/cube-tetgen.ele"); }

/* Physical groups: "bottom" (tag 1) is exactly the boundary vertices at z = 0,
 * in both msh versions. */
static void msh_groups(void **s)
{
    (void)s;
    const char *files[] = {"data/cube.msh", "data/cube-v22.msh"};
    for (int i = 0; i < 2; i++) {
        ep_mesh m;
        assert_int_equal(ep_model_read(&m, files[i]), EP_OK);
        const ep_group *g = ep_mesh_find_group(&m, "bottom"), *g1 = ep_mesh_find_group(&m, "1");
        assert_non_null(g);
        assert_ptr_equal(g, g1);
        assert_int_equal(g->dim, 2);
        int nz = 0;
        for (int j = 0; j < m.nb; j++)
            nz += fabs(m.vertices[3 * m.boundary[j] + 2]) < 1e-12;
        assert_int_equal(g->nv, nz);
        for (int k = 0; k < g->nv; k++)
            assert_true(fabs(m.vertices[3 * g->v[k] + 2]) < 1e-12);
        assert_non_null(m.region);
        for (int e = 0; e < m.ne; e++)
            assert_int_equal(m.region[e], 3); /* Physical Volume("body", 3) */
        assert_null(ep_mesh_find_group(&m, "nonexistent"));
        ep_mesh_free(&m);
    }
}

/* Vega: materials through *MATERIAL / *REGION and sets through *SET. */
static void veg_material(void **s)
{
    (void)s;
    ep_mesh m;
    assert_int_equal(ep_model_read(&m, "data/models/beam3/beam3_tet.veg"), EP_OK);
    assert_int_equal(m.nv, 208);
    assert_int_equal(m.ne, 450);
    assert_non_null(m.material);
    assert_int_equal(m.material->ne, 0); /* one material: homogeneous */
    assert_true(m.material->E == 1e7 && m.material->nu == 0.45 && m.material->rho == 1000);
    ep_mesh_free(&m);

    const char *veg = write_scratch("two.veg",
        "*VERTICES\n5 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 1 1 1\n"
        "*ELEMENTS\nTETS\n2 4 0\n1 1 2 3 4\n2 2 3 4 5\n\n"
        "*MATERIAL soft\nENU, 1000, 1e6, 0.3\n*MATERIAL hard\nENU, 2000, 1e9, 0.25\n"
        "*SET second\n2\n*REGION\nallElements, soft\nsecond, hard\n", -1);
    assert_int_equal(ep_model_read(&m, veg), EP_OK);
    assert_int_equal(m.material->ne, 2);
    assert_true(m.material->e_E[0] == 1e6 && m.material->e_E[1] == 1e9);
    assert_true(m.material->e_rho[1] == 2000 && m.material->e_nu[1] == 0.25);
    assert_int_equal(m.region[0], 1);
    assert_int_equal(m.region[1], 2);
    const ep_group *g = ep_mesh_find_group(&m, "second");
    assert_non_null(g);
    assert_int_equal(g->nv, 4);
    assert_int_equal(g->v[0], 1);
    assert_int_equal(g->v[3], 4);
    ep_mesh_free(&m);
}

/* *INCLUDE pulls a file relative to the including one. */
static void veg_include(void **s)
{
    (void)s;
    ep_mesh m;
    write_scratch("part.veg", "*ELEMENTS\nTETS\n1 4 0\n1 1 2 3 4\n", -1);
    const char *veg = write_scratch("main.veg",
        "*VERTICES\n4 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n*INCLUDE part.veg\n", -1);
    assert_int_equal(ep_model_read(&m, veg), EP_OK);
    assert_int_equal(m.ne, 1);
    assert_int_equal(m.nf, 4);
    assert_null(m.material);
    ep_mesh_free(&m);
}

/* Surfaces: .obj with polygons and negative indices, .off. */
static void surfaces(void **s)
{
    (void)s;
    ep_mesh m;
    double area, vol;
    assert_int_equal(ep_model_read(&m, "data/octahedron.off"), EP_OK);
    assert_int_equal(m.nv, 6);
    assert_int_equal(m.nf, 8);
    assert_int_equal(ep_mesh_check_closed(&m), EP_OK);
    ep_mesh_surface_measures(&m, &area, &vol);
    assert_true(fabs(vol - 4.0 / 3.0) < 1e-14);        /* octahedron of radius 1 */
    assert_true(fabs(area - 4.0 * sqrt(3.0)) < 1e-14);
    ep_mesh_free(&m);

    const char *obj = write_scratch("quad.obj",
        "# a unit square as one quad and a tetrahedron with relative indices\n"
        "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvn 0 0 1\nf 1/1/1 2/2/1 3/3/1 4/4/1\n", -1);
    assert_int_equal(ep_model_read(&m, obj), EP_OK);
    assert_int_equal(m.nf, 2);
    assert_true(fabs(m.vertex_area[0] - 1.0 / 3.0) < 1e-15); /* fan: both triangles at vertex 1 */
    assert_true(fabs(m.vertex_area[1] - 1.0 / 6.0) < 1e-15);
    ep_mesh_free(&m);
    obj = write_scratch("rel.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf -3 -2 -1\n", -1);
    assert_int_equal(ep_model_read(&m, obj), EP_OK);
    assert_int_equal(m.triangles[0], 0);
    assert_int_equal(m.triangles[2], 2);
    ep_mesh_free(&m);
}

/* MATH.md §1: g_a are gradients of the barycentric functions:
 * sum_a g_a = 0 and g_a . x_b = delta_ab + const. */
static void tet_gradients(void **s)
{
    (void)s;
    double x[4][3] = {{0.1, 0.2, 0.3}, {1.3, 0.1, 0.2}, {0.2, 0.9, 0.1}, {0.3, 0.4, 1.7}}, vol, g[4][3];
    ep_tet_gradients(x, &vol, g);
    assert_true(vol > 0);
    for (int c = 0; c < 3; c++)
        assert_true(fabs(g[0][c] + g[1][c] + g[2][c] + g[3][c]) < 1e-14);
    for (int a = 0; a < 4; a++)
        for (int b = 1; b < 4; b++) {
            double d = 0;
            for (int c = 0; c < 3; c++)
                d += g[a][c] * (x[b][c] - x[0][c]);
            assert_true(fabs(d - ((a == b) - (a == 0))) < 1e-13);
        }
    /* Volume: det/6 of the edge vectors, here checked against the scalar triple product. */
    double e1[3], e2[3], e3[3];
    for (int c = 0; c < 3; c++) {
        e1[c] = x[1][c] - x[0][c];
        e2[c] = x[2][c] - x[0][c];
        e3[c] = x[3][c] - x[0][c];
    }
    double triple = e1[0] * (e2[1] * e3[2] - e2[2] * e3[1]) - e1[1] * (e2[0] * e3[2] - e2[2] * e3[0]) +
                    e1[2] * (e2[0] * e3[1] - e2[1] * e3[0]);
    assert_true(fabs(vol - triple / 6) < 1e-15);
}

/* ---- bad inputs: one status and one message naming file and line ---------- */

typedef struct {
    const char *name, *text;
    long len;
    int status;
    const char *frag; /* part of the expected message */
} bad_case;

static void check_bad(const bad_case *c)
{
    ep_mesh m;
    const char *path = write_scratch(c->name, c->text, c->len);
    int st = ep_model_read(&m, path);
    expect_error(st, c->status, c->name, c->frag, NULL);
}

static const char garbage[] = "\x89HDF\r\n\x1a\n\0\0\0\0\xff\xfe binary";

#define TET4 "*VERTICES\n4 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n*ELEMENTS\nTETS\n1 4 0\n"

#define MSH22_HEAD "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n$EndNodes\n"

/* Malformed files of every text format: one line naming the file (and the
 * line where there is one) and what is wrong, EP_EINPUT (EP_EIO for a
 * missing include). */
static void bad_files(void **s)
{
    (void)s;
    const bad_case cases[] = {
        /* OBJ */
        {"empty.obj", "", 0, EP_EINPUT, "no faces"},
        {"garbage.obj", garbage, sizeof garbage, EP_EINPUT, "not a text file"},
        {"range.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n", -1, EP_EINPUT, ":4: vertex index 4 out of range"},
        {"nan.obj", "v 0 0 0\nv nan 0 0\nv 0 1 0\nf 1 2 3\n", -1, EP_EINPUT, ":2: non-finite"},
        {"trunc.obj", "v 0 0 0\nv 1 0\n", -1, EP_EINPUT, ":2: expected a number"},
        {"twoface.obj", "v 0 0 0\nv 1 0 0\nf 1 2\n", -1, EP_EINPUT, ":3: face with fewer than 3"},
        /* OFF */
        {"empty.off", "", 0, EP_EINPUT, "unexpected end of file"},
        {"garbage.off", garbage, sizeof garbage, EP_EINPUT, "not a text file"},
        {"header.off", "PLY\n3 1 0\n", -1, EP_EINPUT, ":1: not an OFF file"},
        {"trunc.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n", -1, EP_EINPUT, "unexpected end of file"},
        {"range.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 3\n", -1, EP_EINPUT, ":6: vertex index 3 out of range"},
        {"nan.off", "OFF\n3 1 0\n0 0 0\n1 inf 0\n0 1 0\n3 0 1 2\n", -1, EP_EINPUT, ":4: non-finite"},
        {"count.off", "OFF\n-3 1 0\n", -1, EP_EINPUT, "impossible vertex count"},
        /* Vega .veg */
        {"empty.veg", "", 0, EP_EINPUT, "no *VERTICES"},
        {"garbage.veg", garbage, sizeof garbage, EP_EINPUT, "not a text file"},
        {"inverted.veg", TET4 "1 1 3 2 4\n", -1, EP_EINPUT, "element 1: non-positive volume"},
        {"flat.veg", "*VERTICES\n4 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 1 1 0\n*ELEMENTS\nTETS\n1 4 0\n1 1 2 3 4\n",
         -1, EP_EINPUT, "degenerate"},
        {"range.veg", TET4 "1 1 2 3 5\n", -1, EP_EINPUT, ":10: vertex index 5 out of range"},
        {"nan.veg", "*VERTICES\n2 3 0 0\n1 0 0 0\n2 NaN 0 0\n", -1, EP_EINPUT, ":4: non-finite"},
        {"trunc.veg", TET4, -1, EP_EINPUT, "unexpected end of file"},
        {"wedge.veg", "*VERTICES\n1 3 0 0\n1 0 0 0\n*ELEMENTS\nWEDGE\n", -1, EP_EINPUT, "WEDGE not supported"},
        {"region.veg", TET4 "1 1 2 3 4\n*MATERIAL m\nENU, 1, 1, 0.3\n*REGION\nnoset, m\n", -1, EP_EINPUT,
         "unknown set noset"},
        {"nomat.veg", TET4 "1 1 2 3 4\n*MATERIAL a\nENU, 1, 1, 0.3\n*MATERIAL b\nENU, 1, 1, 0.3\n", -1,
         EP_EINPUT, "element 1 has no material"},
        {"include.veg", "*INCLUDE missing.veg\n", -1, EP_EIO, ":1: *INCLUDE"},
        /* Gmsh .msh */
        {"empty.msh", "", 0, EP_EINPUT, "empty file"},
        {"garbage.msh", garbage, sizeof garbage, EP_EINPUT, "not a text file"},
        {"notgmsh.msh", "hello\n", -1, EP_EINPUT, ":1: expected a $Section"},
        {"binary.msh", "$MeshFormat\n4.1 1 8\n", -1, EP_EINPUT, ":2: binary .msh not supported"},
        {"version.msh", "$MeshFormat\n3.0 0 8\n$EndMeshFormat\n", -1, EP_EINPUT, "version 3 not supported"},
        {"inverted.msh", MSH22_HEAD "$Elements\n1\n1 4 2 0 1 1 3 2 4\n$EndElements\n", -1, EP_EINPUT,
         "element 1: non-positive volume"},
        {"range.msh", MSH22_HEAD "$Elements\n1\n1 4 2 0 1 1 2 3 9\n$EndElements\n", -1, EP_EINPUT,
         ":13: node 9 not defined"},
        {"nan.msh", "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n1\n1 0 nan 0\n", -1, EP_EINPUT, ":6: non-finite"},
        {"trunc.msh", MSH22_HEAD "$Elements\n2\n1 4 2 0 1 1 2 3 4\n", -1, EP_EINPUT, "unexpected end of file"},
        {"tet10.msh", MSH22_HEAD "$Elements\n1\n1 11 2 0 1 1 2 3 4 1 2 3 4 1 2\n$EndElements\n", -1, EP_EINPUT,
         "element type 11 not supported"},
        {"noelem.msh", MSH22_HEAD, -1, EP_EINPUT, "no tetrahedra, hexahedra or triangles"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_bad(&cases[i]);
}

static void bad_tetgen(void **s)
{
    (void)s;
    write_scratch("t1.node", "4 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n", -1);
    const char *ele = write_scratch("t1.ele", "1 4 0\n1 1 3 2 4\n", -1);
    ep_mesh m;
    expect_error(ep_model_read(&m, ele), EP_EINPUT, "element 1: non-positive volume", NULL);
    write_scratch("t2.node", "4 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 0 0 1\n", -1);
    ele = write_scratch("t2.ele", "1 4 0\n0 0 1 2 4\n", -1);
    expect_error(ep_model_read(&m, ele), EP_EINPUT, "t2.ele:2: node 4 out of range", NULL);
    write_scratch("t3.node", "4 3 0 0\n1 0 0 0\n", -1);
    ele = write_scratch("t3.ele", "1 4 0\n1 1 2 3 4\n", -1);
    expect_error(ep_model_read(&m, ele), EP_EINPUT, "t3.node:2: unexpected end of file", NULL);
    expect_error(ep_model_read(&m, scratch("none.ele")), EP_EIO, "none.node: cannot open", NULL);
    /* 0-based TetGen output with a region attribute */
    write_scratch("t4.node", "4 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 0 0 1\n", -1);
    ele = write_scratch("t4.ele", "1 4 1\n0 0 1 2 3 7\n", -1);
    assert_int_equal(ep_model_read(&m, ele), EP_OK);
    assert_int_equal(m.region[0], 7);
    ep_mesh_free(&m);
    /* region tags are integers: a fraction, or one past int, is refused */
    ele = write_scratch("t4.ele", "1 4 1\n0 0 1 2 3 7.5\n", -1);
    expect_error(ep_model_read(&m, ele), EP_EINPUT, "t4.ele:2: region attribute 7.5 is not an integer tag", NULL);
    ele = write_scratch("t4.ele", "1 4 1\n0 0 1 2 3 3222222222\n", -1);
    expect_error(ep_model_read(&m, ele), EP_EINPUT, "region attribute 3.22222e+09 is not an integer tag", NULL);
}

static void unknown_extension(void **s)
{
    (void)s;
    ep_mesh m;
    expect_error(ep_model_read(&m, "mesh.stl"), EP_EUSAGE, "unknown mesh format", NULL);
    expect_error(ep_model_read(&m, "/nonexistent/x.obj"), EP_EIO, "cannot open", NULL);
}

/* Closedness: an open surface and an inconsistently oriented one are refused. */
static void closed_surface(void **s)
{
    (void)s;
    ep_mesh m;
    const char *open = write_scratch("open.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 2 3 4\n", -1);
    assert_int_equal(ep_model_read(&m, open), EP_OK);
    expect_error(ep_mesh_check_closed(&m), EP_EINPUT, "open surface", NULL);
    ep_mesh_free(&m);
    const char *flip = write_scratch("flip.obj",
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 2 3 4\nf 1 4 3\nf 1 3 4\n", -1);
    assert_int_equal(ep_model_read(&m, flip), EP_OK);
    expect_error(ep_mesh_check_closed(&m), EP_EINPUT, "non-manifold", NULL);
    ep_mesh_free(&m);
    const char *bad = write_scratch("orient.obj",
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 2 3 4\nf 1 3 4\n", -1);
    assert_int_equal(ep_model_read(&m, bad), EP_OK);
    expect_error(ep_mesh_check_closed(&m), EP_EINPUT, "inconsistent orientation", NULL);
    ep_mesh_free(&m);
}

/* The edge table of a closed tetrahedron's surface: 6 edges of 2 sides,
 * sorted by ends, the two sides of each edge in opposite directions (an
 * oriented closed surface), found from either end; absent edges are not;
 * a kept subset holds only its faces' sides. */
static void halfedge_table(void **s)
{
    (void)s;
    const int tri[] = {0, 2, 1, 0, 1, 3, 1, 2, 3, 0, 3, 2};
    ep_halfedge *h;
    size_t n;
    assert_int_equal(ep_halfedge_table(tri, 4, NULL, &h, &n), EP_OK);
    assert_int_equal(n, 12);
    for (size_t i = 0; i < n; i += 2) {
        assert_int_equal(ep_halfedge_run_end(h, n, i), i + 2);
        assert_true(h[i].lo < h[i].hi && (i == 0 || h[i - 1].lo < h[i].lo ||
                                          (h[i - 1].lo == h[i].lo && h[i - 1].hi < h[i].hi)));
        assert_true(h[i].t < h[i + 1].t);
        assert_int_not_equal(ep_halfedge_forward(&h[i], tri), ep_halfedge_forward(&h[i + 1], tri));
        assert_int_equal(ep_halfedge_find(h, n, h[i].hi, h[i].lo), i);
    }
    assert_int_equal(ep_halfedge_find(h, n, 0, 4), n);
    free(h);
    const char keep[] = {0, 1, 0, 1};
    assert_int_equal(ep_halfedge_table(tri, 4, keep, &h, &n), EP_OK);
    assert_int_equal(n, 6);
    assert_int_equal(ep_halfedge_run_end(h, n, ep_halfedge_find(h, n, 0, 3)) - ep_halfedge_find(h, n, 0, 3), 2);
    assert_int_equal(ep_halfedge_find(h, n, 1, 2), n);
    free(h);
}

/* A tet mesh's boundary becomes a compact surface (renumbered vertices). */
static void to_surface(void **s)
{
    (void)s;
    ep_mesh m;
    int *old;
    assert_int_equal(ep_model_read(&m, "data/cube.msh"), EP_OK);
    int nb = m.nb, nf = m.nf;
    double x0[3];
    memcpy(x0, &m.vertices[3 * m.boundary[5]], sizeof x0);
    int b5 = m.boundary[5];
    assert_int_equal(ep_mesh_to_surface(&m, &old), EP_OK);
    assert_int_equal(m.nv, nb);
    assert_int_equal(m.nf, nf);
    assert_null(m.tets);
    assert_int_equal(old[5], b5);
    assert_memory_equal(&m.vertices[15], x0, sizeof x0);
    assert_int_equal(ep_mesh_check_closed(&m), EP_OK);
    free(old);
    ep_mesh_free(&m);
}

EP_TEST_MAIN("mesh", cmocka_unit_test(spatial_order), cmocka_unit_test(cube_msh41), cmocka_unit_test(cube_msh22),
             cmocka_unit_test(cube_tetgen), cmocka_unit_test(msh_groups), cmocka_unit_test(veg_material),
             cmocka_unit_test(veg_include), cmocka_unit_test(surfaces), cmocka_unit_test(tet_gradients),
             cmocka_unit_test(bad_files), cmocka_unit_test(bad_tetgen), cmocka_unit_test(unknown_extension),
             cmocka_unit_test(closed_surface), cmocka_unit_test(halfedge_table), cmocka_unit_test(to_surface))
