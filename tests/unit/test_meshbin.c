/*
 * test_meshbin.c — the formats users have (issue 45 item 7): binary Gmsh
 * .msh 2.2 and 4.1 read as the same mesh as their ASCII form (data/cube-bin*
 * are gmsh's -bin saves of data/cube.msh and cube-v22.msh: scripts/make-data),
 * STL ASCII and binary as the same surface as an .obj, second-order
 * tetrahedra refused with how to export first order, and damaged binary
 * files refused naming the byte.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "helpers.h"
#include "meshio.h"

/* Every array and group of a and b equal, bit for bit. */
static void same_mesh(const ep_mesh *a, const ep_mesh *b)
{
    assert_int_equal(a->nv, b->nv);
    assert_int_equal(a->ne, b->ne);
    assert_int_equal(a->nf, b->nf);
    assert_memory_equal(a->vertices, b->vertices, sizeof(double) * 3 * (size_t)a->nv);
    assert_memory_equal(a->tets, b->tets, sizeof(int) * 4 * (size_t)a->ne);
    assert_memory_equal(a->triangles, b->triangles, sizeof(int) * 3 * (size_t)a->nf);
    assert_int_equal(!a->region, !b->region);
    if (a->region)
        assert_memory_equal(a->region, b->region, sizeof(int) * (size_t)a->ne);
    assert_int_equal(a->ngroups, b->ngroups);
    for (int g = 0; g < a->ngroups; g++) {
        assert_string_equal(a->groups[g].name, b->groups[g].name);
        assert_int_equal(a->groups[g].nv, b->groups[g].nv);
        assert_memory_equal(a->groups[g].v, b->groups[g].v, sizeof(int) * (size_t)a->groups[g].nv);
    }
}

static void binary_msh_as_ascii(void **s)
{
    (void)s;
    const char *pairs[2][2] = {{"data/cube.msh", "data/cube-bin41.msh"}, {"data/cube-v22.msh", "data/cube-bin22.msh"}};
    for (int k = 0; k < 2; k++) {
        ep_mesh a, b;
        assert_int_equal(ep_meshio_read(&a, pairs[k][0]), 0);
        if (ep_meshio_read(&b, pairs[k][1]))
            fail_msg("%s: %s", pairs[k][1], ep_errmsg());
        assert_true(a.ne > 1000 && a.ngroups == 3);
        same_mesh(&a, &b);
        ep_mesh_free(&a);
        ep_mesh_free(&b);
    }
}

/* Cut a binary file at every 97th byte, and flip its byte-order word: each
 * read fails with a status and a message, never past the end. */
static void binary_msh_damaged(void **s)
{
    (void)s;
    FILE *f = fopen("data/cube-bin41.msh", "rb");
    assert_non_null(f);
    static char buf[1 << 17];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    assert_true(n > 1000 && n < sizeof buf);
    ep_mesh m;
    for (size_t cut = 40; cut < n - 20; cut += 97) {
        const char *p = write_scratch("cut.msh", buf, (long)cut);
        int st = ep_meshio_read(&m, p);
        if (!st)
            fail_msg("a file cut at byte %zu was read", cut);
        assert_int_equal(st, EP_EINPUT);
    }
    char *one = strstr(buf, "4.1 1 8\n") + 8;
    one[0] = 0, one[3] = 1; /* the integer 1 in the other byte order */
    expect_error(ep_meshio_read(&m, write_scratch("swap.msh", buf, (long)n)), EP_EINPUT, "byte 24: ",
                 "another byte order", NULL);
}

static const char *order2 =
    "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n10\n"
    "1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 .5 0 0\n6 .5 .5 0\n7 0 .5 0\n8 0 0 .5\n9 0 .5 .5\n10 .5 0 .5\n"
    "$EndNodes\n$Elements\n1\n1 11 2 1 1 1 2 3 4 5 6 7 8 9 10\n$EndElements\n";

static void second_order_refused(void **s)
{
    (void)s;
    ep_mesh m;
    expect_error(ep_meshio_read(&m, write_scratch("o2.msh", order2, -1)), EP_EINPUT, "o2.msh:19: ",
                 "second-order elements (Gmsh type 11, 10-node tetrahedra)", "export first order",
                 "-order 1", NULL);
}

/* An STL of the octahedron (coordinates exact in float) as ASCII and as
 * binary (with a header starting "solid", as many exporters write): both
 * read as the .obj: 6 vertices, the same triangles on the same points. */
static void stl_ascii_and_binary(void **s)
{
    (void)s;
    static const float v[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    static const int t[8][3] = {{0, 2, 4}, {2, 1, 4}, {1, 3, 4}, {3, 0, 4}, {2, 0, 5}, {1, 2, 5}, {3, 1, 5}, {0, 3, 5}};
    char ascii[4096] = "solid octa\n";
    unsigned char bin[84 + 8 * 50] = "solid written by a binary exporter";
    uint32_t n = 8;
    memcpy(bin + 80, &n, 4);
    for (int f = 0; f < 8; f++) {
        size_t k = strlen(ascii);
        snprintf(ascii + k, sizeof ascii - k, " facet normal 0 0 0\n  outer loop\n");
        for (int c = 0; c < 3; c++) {
            k = strlen(ascii);
            snprintf(ascii + k, sizeof ascii - k, "   vertex %g %g %g\n", v[t[f][c]][0], v[t[f][c]][1], v[t[f][c]][2]);
            memcpy(bin + 84 + 50 * f + 12 + 12 * c, v[t[f][c]], 12);
        }
        k = strlen(ascii);
        snprintf(ascii + k, sizeof ascii - k, "  endloop\n endfacet\n");
    }
    strcat(ascii, "endsolid octa\n");
    const char *paths[2] = {write_scratch("a.stl", ascii, -1), write_scratch("b.stl", (const char *)bin, sizeof bin)};
    ep_mesh ref;
    assert_int_equal(ep_meshio_read(&ref, "data/octahedron.off"), 0);
    for (int k = 0; k < 2; k++) {
        ep_mesh m;
        if (ep_meshio_read(&m, paths[k]))
            fail_msg("%s: %s", paths[k], ep_errmsg());
        assert_int_equal(m.nv, 6);
        assert_int_equal(m.nf, 8);
        /* each triangle's corners are the .off's triangle's points, in order */
        for (int f = 0; f < 8; f++)
            for (int c = 0; c < 3; c++)
                for (int a = 0; a < 3; a++)
                    assert_true(m.vertices[3 * m.triangles[3 * f + c] + a] ==
                                ref.vertices[3 * ref.triangles[3 * f + c] + a]);
        assert_int_equal(ep_mesh_check_closed(&m), 0);
        ep_mesh_free(&m);
    }
    ep_mesh_free(&ref);
    ep_mesh m;
    expect_error(ep_meshio_read(&m, write_scratch("c.stl", (const char *)bin + 4, sizeof bin - 7)), EP_EINPUT,
                 "not an STL file", NULL);
    expect_error(ep_meshio_read(&m, write_scratch("d.stl", "solid x\n facet normal 0 0 1\n  outer loop\n   vertex 0 0 0\n"
                                                           "   vertex 1 0 0\n  endloop\nendsolid\n", -1)),
                 EP_EINPUT, "2 vertex lines, not a multiple of 3", NULL);
    expect_error(ep_meshio_read(&m, write_scratch("e.stl", "solid x\n facet normal 0 0 1\n  outer loop\n   vertex 0 0 nan\n", -1)),
                 EP_EINPUT, "e.stl:4:", NULL);
}

EP_TEST_MAIN("meshbin", cmocka_unit_test(binary_msh_as_ascii), cmocka_unit_test(binary_msh_damaged),
             cmocka_unit_test(second_order_refused), cmocka_unit_test(stl_ascii_and_binary))
