/*
 * test_select.c — fixed-vertex selections and material files.
 */
#include "model.h"
#include "helpers.h"

#include <math.h>

#include "material.h"
#include "mesh.h"
#include "select.h"

static void select_box_ids_region(void **s)
{
    (void)s;
    ep_mesh m;
    ep_select spec = {0};
    int *fx, n;
    assert_int_equal(ep_model_read(&m, "data/cube.msh"), EP_OK);

    /* Box z <= 0: the same vertices as the physical surface "bottom". */
    assert_int_equal(ep_select_parse_box(&spec, "--fixed-box", "-1,-1,-1,2,2,0"), EP_OK);
    assert_int_equal(ep_select_apply(&spec, &m, "fixed vertex", &fx, &n), EP_OK);
    const ep_group *g = ep_mesh_find_group(&m, "bottom");
    assert_int_equal(n, g->nv);
    assert_memory_equal(fx, g->v, sizeof(int) * (size_t)n);
    free(fx);
    spec.has_box = 0;
    spec.region = "bottom";
    assert_int_equal(ep_select_apply(&spec, &m, "fixed vertex", &fx, &n), EP_OK);
    assert_int_equal(n, g->nv);
    free(fx);

    /* Ids file (1-based, commas and blanks, comments) united with the region. */
    spec.ids_file = write_scratch("ids.bou", "# fixed\n1, 2,\n3\n", -1);
    assert_int_equal(ep_select_apply(&spec, &m, "fixed vertex", &fx, &n), EP_OK);
    int extra = 0;
    for (int v = 0; v < 3; v++) {
        int in = 0;
        for (int k = 0; k < g->nv; k++)
            in |= g->v[k] == v;
        extra += !in;
    }
    assert_int_equal(n, g->nv + extra);
    for (int k = 1; k < n; k++)
        assert_true(fx[k] > fx[k - 1]);
    free(fx);

    /* Errors: id out of range (file and line), unknown region, empty selection, bad box. */
    spec.region = NULL;
    spec.ids_file = write_scratch("bad.bou", "1\n2\n99999\n", -1);
    expect_error(ep_select_apply(&spec, &m, "fixed vertex", &fx, &n), EP_EINPUT, "bad.bou:3: vertex id 99999 out of range", NULL);
    spec.ids_file = NULL;
    spec.region = "nowhere";
    expect_error(ep_select_apply(&spec, &m, "fixed vertex", &fx, &n), EP_EUSAGE, "no physical group or set \"nowhere\" (fixed vertex region)", NULL);
    spec.region = NULL;
    assert_int_equal(ep_select_parse_box(&spec, "--fixed-box", "5,5,5,6,6,6"), EP_OK);
    expect_error(ep_select_apply(&spec, &m, "fixed vertex", &fx, &n), EP_EINPUT, "no fixed vertex", NULL);
    expect_error(ep_select_parse_box(&spec, "--fixed-box", "0,0,0,1,1"), EP_EUSAGE, "expected x0,y0,z0,x1,y1,z1", NULL);
    expect_error(ep_select_parse_box(&spec, "--fixed-box", "1,0,0,0,1,1"), EP_EUSAGE, "lower corner above upper", NULL);
    ep_mesh_free(&m);
}

/* The shipped .bou of beam3 selects the vertices at y = 0 (its clamped end). */
static void select_bou(void **s)
{
    (void)s;
    ep_mesh m;
    ep_select spec = {.ids_file = "data/models/beam3/beam3.bou"};
    int *fx, n;
    assert_int_equal(ep_model_read(&m, "data/models/beam3/beam3_tet.veg"), EP_OK);
    assert_int_equal(ep_select_apply(&spec, &m, "fixed vertex", &fx, &n), EP_OK);
    assert_int_equal(n, 8);
    assert_int_equal(fx[0], 50); /* "51," in the file, 1-based */
    free(fx);
    ep_mesh_free(&m);
}

static void material_file(void **s)
{
    (void)s;
    ep_material mat;
    int region[4] = {1, 2, 2, 5};
    ep_material_init(&mat);
    const char *f = write_scratch("mat.txt", "# tag E nu rho\n1 1e6 0.3 1000\n2 2e6 0.35 1100\ndefault 3e6 0.4 1200\n", -1);
    assert_int_equal(ep_material_read(&mat, f, 4, region), EP_OK);
    assert_int_equal(mat.ne, 4);
    assert_true(ep_material_E(&mat, 0) == 1e6 && ep_material_E(&mat, 2) == 2e6 && ep_material_E(&mat, 3) == 3e6);
    assert_true(ep_material_rho(&mat, 1) == 1100 && ep_material_nu(&mat, 3) == 0.4);
    double lambda, mu;
    ep_material_lame(&mat, 0, &lambda, &mu);
    assert_true(fabs(mu - 1e6 / 2.6) < 1e-9 && fabs(lambda - 1e6 * 0.3 / (1.3 * 0.4)) < 1e-6);
    assert_int_equal(ep_material_check(&mat, 0.5, "mat.txt"), EP_OK);
    ep_material_free(&mat);

    const char *g = write_scratch("mat2.txt", "1 1e6 0.3 1000\n", -1);
    expect_error(ep_material_read(&mat, g, 4, region), EP_EINPUT, "no material for element 2 (region 2)", NULL);
    const char *h = write_scratch("mat3.txt", "1 1e6 0.3\n", -1);
    expect_error(ep_material_read(&mat, h, 4, region), EP_EINPUT, "mat3.txt:1: expected a number", NULL);

    /* nu = 0.5 is refused for FEM (nu_max 0.5) and allowed for BEM (nu_max just above). */
    ep_material_init(&mat);
    mat.E = 1e6;
    mat.nu = 0.5;
    expect_error(ep_material_check(&mat, 0.5, "cli"), EP_EINPUT, "Poisson's ratio must lie in (-1, 0.5)", NULL);
    assert_int_equal(ep_material_check(&mat, 0.5 + 1e-12, "cli"), EP_OK);
    mat.E = -1;
    expect_error(ep_material_check(&mat, 0.5 + 1e-12, "cli"), EP_EINPUT, "Young's modulus must be positive", NULL);
}

EP_TEST_MAIN("select", cmocka_unit_test(select_box_ids_region), cmocka_unit_test(select_bou),
             cmocka_unit_test(material_file))
