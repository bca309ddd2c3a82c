/*
 * test_repair.c — surface clean-up: injected defects are repaired to exactly
 * the clean surface; the dragon scan's fin is dropped; each refusal names
 * its element with EP_EINPUT; a clean surface is left as it was.
 */
#include "surfaces.h"

#include "repair.h"

/* a and b hold the same vertices and triangles, in the same order. */
static void assert_same_surface(const ep_mesh *a, const ep_mesh *b)
{
    assert_int_equal(a->nv, b->nv);
    assert_int_equal(a->nf, b->nf);
    assert_memory_equal(a->vertices, b->vertices, 3 * sizeof(double) * (size_t)a->nv);
    assert_memory_equal(a->triangles, b->triangles, 3 * sizeof(int) * (size_t)a->nf);
}

static void repair_ok(ep_mesh *m, ep_repair_report *r)
{
    ep_repair_report_init(r);
    int st = ep_repair_surface(m, EP_REPAIR_WELD_TOL, r);
    if (st)
        fail_msg("repair failed: %s", ep_errmsg());
    assert_int_equal(ep_mesh_check_closed(m), EP_OK);
}

/* Every defect kind on a sphere, a torus and a genus-2 surface: the repair
 * gives back the clean arrays, and the counts are those injected. */
static void injected_defects_restore_clean(void **s)
{
    (void)s;
    for (int kind = 0; kind < 3; kind++) {
        ep_mesh clean, bad;
        ep_repair_report r;
        make_of_genus(&clean, kind, 0);
        inject_defects(&bad, &clean);
        int nf = clean.nf, flipped = 0, copies = 0, dup = 0, zero = 0;
        for (int t = 0; t < nf; t++) {
            flipped += t % 7 == 0;
            copies += t % 5 == 0 ? 3 : 0;
            dup += t % 11 == 0;
            zero += t % 13 == 0;
        }
        repair_ok(&bad, &r);
        assert_same_surface(&bad, &clean);
        assert_int_equal(r.flipped, flipped);
        assert_int_equal(r.welded, copies);
        assert_int_equal(r.duplicate, dup);
        assert_int_equal(r.degenerate, zero);
        assert_int_equal(r.fins + r.caps + r.unused, 0);
        assert_int_equal(r.parts, 1);
        /* The log has one line per change, and the summary names them. */
        int lines = 0;
        for (const char *p = r.log; p && *p; p++)
            lines += *p == '\n';
        assert_int_equal(lines, copies + dup + zero + 1 /* one line for the reversed faces */);
        char sum[256];
        ep_repair_summary(&r, sum, sizeof sum);
        assert_non_null(strstr(sum, "welded"));
        assert_non_null(strstr(sum, "reversed"));
        ep_repair_report_free(&r);
        ep_mesh_free(&bad);
        ep_mesh_free(&clean);
    }
}

/* A clean surface is left bit for bit as it was, and says so. */
static void clean_surface_unchanged(void **s)
{
    (void)s;
    ep_mesh a, b;
    ep_repair_report r;
    make_torus(&a, 16, 8, 1.0, 0.3);
    copy_surface(&b, &a);
    repair_ok(&b, &r);
    assert_same_surface(&a, &b);
    char sum[256];
    ep_repair_summary(&r, sum, sizeof sum);
    assert_string_equal(sum, "nothing to repair");
    assert_null(r.log);
    ep_repair_report_free(&r);
    ep_mesh_free(&a);
    ep_mesh_free(&b);
}

/* Every face reversed: the whole part is turned outward (positive volume). */
static void inside_out_turned(void **s)
{
    ep_mesh *m = *s; /* a sphere, 2 levels */
    ep_repair_report r;
    double area, vol;
    for (int t = 0; t < m->nf; t++) {
        int x = m->triangles[3 * t + 1];
        m->triangles[3 * t + 1] = m->triangles[3 * t + 2];
        m->triangles[3 * t + 2] = x;
    }
    ep_mesh_surface_measures(m, &area, &vol);
    assert_true(vol < 0);
    repair_ok(m, &r);
    ep_mesh_surface_measures(m, &area, &vol);
    assert_true(vol > 0);
    assert_int_equal(r.flipped, m->nf);
    ep_repair_report_free(&r);
}

/* A sphere inside a sphere (a hollow ball): the inner wall faces the
 * cavity, whatever the input orientation. */
static void cavity_faces_inward(void **s)
{
    const ep_mesh *a = *s; /* a sphere, 2 levels */
    ep_mesh m;
    ep_repair_report r;
    make_pair(&m, a, 0.5, 0); /* the inner sphere outward: wrong for a cavity */
    repair_ok(&m, &r);
    assert_int_equal(r.parts, 2);
    assert_int_equal(r.flipped, a->nf);
    double area, vol;
    ep_mesh_surface_measures(&m, &area, &vol);
    assert_true(fabs(vol - (1 - 0.125) * 4.0 / 3 * M_PI) < 0.15 * vol); /* shell volume */
    ep_repair_report_free(&r);
    ep_mesh_free(&m);
}

/* The shipped dragon scan: one face stored with both orientations on edge
 * (23470 23486), its third vertex on nothing else — a fin; dropping both
 * copies and the vertex leaves a closed sphere-like surface. */
static void dragon_fin(void **s)
{
    ep_mesh *m = *s; /* the shipped dragon's .obj */
    ep_repair_report r;
    expect_error(ep_mesh_check_closed(m), EP_EINPUT, "edge (23470 23486) has 4 faces", NULL);
    repair_ok(m, &r);
    assert_int_equal(r.fins, 2);
    assert_int_equal(r.unused, 1);
    assert_int_equal(r.welded + r.duplicate + r.degenerate + r.caps + r.flipped, 0);
    assert_non_null(strstr(r.log, "vertex 23455"));
    assert_int_equal(m->nv, 25001);
    assert_int_equal(m->nf, 49998);
    assert_int_equal(m->nv - m->nf / 2, 2); /* V - E + F of a sphere */
    ep_repair_report_free(&r);
}

/* A zero-area face with three distinct vertices (a vertex on the opposite
 * edge): the neighbour across the long edge is split there. */
static void cap_absorbed(void **s)
{
    (void)s;
    /* Tetrahedron (0 1 2 3) whose edge (0 1) has vertex 4 at its middle;
     * face (0 1 2) is split into (0 4 2), (4 1 2) and the cap (0 1 4) is
     * added, so edge (0 1) has faces (0 1 4) and (1 0 3). */
    const char *obj = "v 0 0 0\nv 2 0 0\nv 1 2 0\nv 1 0.7 1.5\nv 1 0 0\n"
                      "f 1 5 3\nf 5 2 3\nf 1 2 5\nf 2 1 4\nf 1 3 4\nf 3 2 4\n";
    ep_mesh m;
    ep_repair_report r;
    assert_int_equal(ep_model_read(&m, write_scratch("cap.obj", obj, -1)), EP_OK);
    repair_ok(&m, &r);
    assert_int_equal(r.caps, 1);
    assert_int_equal(m.nf, 6);
    int first;
    assert_int_equal(ep_mesh_count_degenerate(&m, &first), 0);
    ep_repair_report_free(&r);
    ep_mesh_free(&m);
}

/* Refusals: each names the element, status EP_EINPUT, mesh untouched. */
static void refusals(void **s)
{
    (void)s;
    const struct {
        const char *obj, *frag1, *frag2;
    } cases[] = {
        /* Three tetrahedra sharing edge (1 2): 3 distinct faces on it... */
        {"v 0 0 0\nv 0 0 1\nv 1 0 0\nv -1 1 0\nv -1 -1 0\n"
         "f 1 2 3\nf 1 3 4\nf 1 2 4\nf 2 4 3\n"
         "f 1 5 2\nf 1 3 5\nf 2 5 3\n",
         "edge (1 2) has 3 faces", NULL},
        /* An open surface: a tetrahedron without one face. */
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 2 3 4\n", "open surface: 3 boundary edges",
         "edge (1 3)"},
        /* Two tetrahedra touching at vertex 1: a pinch. */
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nv -1 0 0\nv 0 -1 0\nv 0 0 -1\n"
         "f 1 3 2\nf 1 2 4\nf 2 3 4\nf 1 4 3\nf 1 5 6\nf 1 6 7\nf 5 7 6\nf 1 7 5\n",
         "non-manifold vertex 1", NULL},
        /* The real projective plane (6 vertices, 10 faces): no orientation. */
        {"v 1 0 0\nv 0 1 0\nv 0 0 1\nv -1 0 0\nv 0 -1 0\nv 0 0 -1\n"
         "f 1 2 3\nf 1 3 4\nf 1 4 5\nf 1 5 6\nf 1 6 2\nf 2 3 5\nf 3 4 6\nf 4 5 2\nf 5 6 3\nf 6 2 4\n",
         "non-orientable surface", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        ep_mesh m;
        ep_repair_report r;
        ep_repair_report_init(&r);
        assert_int_equal(ep_model_read(&m, write_scratch("refuse.obj", cases[i].obj, -1)), EP_OK);
        int nv = m.nv, nf = m.nf, *tri = malloc(3 * sizeof(int) * (size_t)nf);
        memcpy(tri, m.triangles, 3 * sizeof(int) * (size_t)nf);
        expect_error(ep_repair_surface(&m, EP_REPAIR_WELD_TOL, &r), EP_EINPUT, "refuse.obj", cases[i].frag1,
                     cases[i].frag2, NULL);
        assert_int_equal(m.nv, nv);
        assert_memory_equal(m.triangles, tri, 3 * sizeof(int) * (size_t)nf);
        free(tri);
        ep_repair_report_free(&r);
        ep_mesh_free(&m);
    }
    /* A non-finite coordinate, in a mesh not read from text (the text
     * readers refuse it first, at its line). */
    ep_mesh m;
    ep_repair_report r;
    ep_repair_report_init(&r);
    make_sphere(&m, 1);
    m.vertices[3 * 7 + 1] = NAN;
    expect_error(ep_repair_surface(&m, EP_REPAIR_WELD_TOL, &r), EP_EINPUT, "vertex 8 has a non-finite coordinate",
                 NULL);
    ep_mesh_free(&m);
    expect_error(ep_model_read(&m, write_scratch("nan.obj", "v 0 0 0\nv nan 0 0\nv 0 1 0\nf 1 2 3\n", -1)),
                 EP_EINPUT, "nan.obj:2", "non-finite", NULL);
    ep_repair_report_free(&r);
}

/* Vertices apart by less than the weld distance merge; farther ones not. */
static void weld_tolerance(void **s)
{
    const ep_mesh *a = *s; /* a sphere, 2 levels */
    ep_mesh b;
    ep_repair_report r;
    inject_defects(&b, a);
    double h = ep_mesh_diameter(a);
    for (int v = a->nv; v < b.nv; v++) /* copies off by 1/10 of the weld distance */
        b.vertices[3 * v] += 0.1 * EP_REPAIR_WELD_TOL * h;
    repair_ok(&b, &r);
    assert_int_equal(b.nv, a->nv);
    ep_repair_report_free(&r);
    ep_mesh_free(&b);
    inject_defects(&b, a);
    for (int v = a->nv; v < b.nv; v++) /* 10 weld distances: separate vertices, open seams */
        b.vertices[3 * v] += 10 * EP_REPAIR_WELD_TOL * h;
    ep_repair_report_init(&r);
    expect_error(ep_repair_surface(&b, EP_REPAIR_WELD_TOL, &r), EP_EINPUT, NULL);
    ep_repair_report_free(&r);
    ep_mesh_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(injected_defects_restore_clean),
        cmocka_unit_test(clean_surface_unchanged),
        EP_SPHERE_TEST(inside_out_turned, 2),
        EP_SPHERE_TEST(cavity_faces_inward, 2),
        EP_MODEL_TEST(dragon_fin, "data/models/asianDragon/asianDragon.obj"),
        cmocka_unit_test(cap_absorbed),
        cmocka_unit_test(refusals),
        EP_SPHERE_TEST(weld_tolerance, 2),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
