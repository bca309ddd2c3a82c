/*
 * test_fem.c — linear tet elements and their assembly: null space of rigid
 * motions, mass totals, the CHOLMOD assembly against a naive dense one, the
 * patch test (a linear field is reproduced exactly), support checks.
 */
#include "model.h"
#include "helpers.h"

#include <math.h>

#include "fem.h"
#include "mesh.h"
#include "tet.h"

static ep_material steel(void) { return test_material(2e11, 0.3, 7800); }

/* Rigid motions are in the null space of K (MATH.md §1); K is symmetric;
 * mass matrices carry rho V per axis. */
static void element_matrices(void **s)
{
    (void)s;
    double x[4][3] = {{0.1, 0.2, 0.3}, {1.3, 0.1, 0.2}, {0.2, 0.9, 0.1}, {0.3, 0.4, 1.7}}, K[12][12], M[12][12], vol, g[4][3];
    ep_tet_gradients(x, &vol, g);
    ep_fem_element(EP_FEM_STIFFNESS, x, 1.5, 0.7, 1, K);
    double norm = 0;
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 12; j++) {
            norm = fmax(norm, fabs(K[i][j]));
            assert_true(fabs(K[i][j] - K[j][i]) < 1e-14 * (1 + fabs(K[i][j])));
        }
    for (int mode = 0; mode < 6; mode++) {
        double u[12];
        rigid_motion(mode, &x[0][0], 4, u);
        assert_true(max_product(&K[0][0], u, 12) < 1e-13 * norm);
    }
    for (int kind = EP_FEM_MASS; kind <= EP_FEM_MASS_LUMPED; kind++) {
        ep_fem_element((ep_fem_kind)kind, x, 0, 0, 3.0, M);
        for (int i = 0; i < 3; i++) {
            double total = 0;
            for (int a = 0; a < 4; a++)
                for (int b = 0; b < 4; b++)
                    total += M[3 * a + i][3 * b + i];
            assert_true(fabs(total - 3.0 * vol) < 1e-14);
        }
    }
}

/* The gather assembly equals a naive scatter of element matrices into a dense
 * matrix, for the upper triangle and for an off-diagonal block. */
static void assembly_matches_dense(void **s)
{
    (void)s;
    ep_mesh m;
    ep_material mat = steel();
    cholmod_common c;
    int *all, n;
    assert_int_equal(ep_model_read(&m, "data/cube-tetgen.ele"), EP_OK);
    cholmod_start(&c);
    assert_int_equal(ep_fem_dofmap(&m, NULL, &all, &n), EP_OK);
    assert_int_equal(n, 3 * m.nv);
    double *D = calloc((size_t)n * (size_t)n, sizeof *D);
    for (int e = 0; e < m.ne; e++) {
        double x[4][3], K[12][12], lambda, mu;
        for (int a = 0; a < 4; a++)
            memcpy(x[a], &m.vertices[3 * m.tets[4 * e + a]], sizeof x[a]);
        ep_material_lame(&mat, e, &lambda, &mu);
        ep_fem_element(EP_FEM_STIFFNESS, x, lambda, mu, 0, K);
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 4; b++)
                for (int i = 0; i < 3; i++)
                    for (int j = 0; j < 3; j++)
                        D[(size_t)(3 * m.tets[4 * e + a] + i) * n + 3 * m.tets[4 * e + b] + j] += K[3 * a + i][3 * b + j];
    }
    cholmod_sparse *K = ep_fem_assemble(&m, &mat, EP_FEM_STIFFNESS, all, n, all, n, 1, &c);
    assert_non_null(K);
    assert_int_equal(K->stype, 1);
    double scale = 0;
    for (size_t i = 0; i < (size_t)n * n; i++)
        scale = fmax(scale, fabs(D[i]));
    int *Kp = K->p, *Ki = K->i;
    double *Kx = K->x, err = 0;
    size_t count = 0;
    for (int j = 0; j < n; j++)
        for (int p = Kp[j]; p < Kp[j + 1]; p++) {
            assert_true(Ki[p] <= j);
            assert_true(p == Kp[j] || Ki[p] > Ki[p - 1]); /* sorted */
            err = fmax(err, fabs(Kx[p] - D[(size_t)Ki[p] * n + j]));
            count++;
        }
    assert_true(err < 1e-13 * scale);
    size_t nnz_upper = 0; /* every nonzero of the dense upper triangle is stored */
    for (int j = 0; j < n; j++)
        for (int i = 0; i <= j; i++)
            nnz_upper += D[(size_t)i * n + j] != 0;
    assert_true(count >= nnz_upper);

    /* Off-diagonal block: rows of the vertices with z = 0, columns of the rest. */
    char *keep = calloc((size_t)m.nv, 1);
    for (int v = 0; v < m.nv; v++)
        keep[v] = m.vertices[3 * v + 2] == 0;
    int *rmap, *cmap, nr, nc;
    ep_fem_dofmap(&m, keep, &rmap, &nr);
    for (int v = 0; v < m.nv; v++)
        keep[v] = !keep[v];
    ep_fem_dofmap(&m, keep, &cmap, &nc);
    cholmod_sparse *B = ep_fem_assemble(&m, &mat, EP_FEM_STIFFNESS, rmap, nr, cmap, nc, 0, &c);
    assert_non_null(B);
    cholmod_dense *Bd = cholmod_sparse_to_dense(B, &c);
    err = 0;
    for (int v = 0; v < m.nv; v++)
        for (int w = 0; w < m.nv; w++)
            if (rmap[v] >= 0 && cmap[w] >= 0)
                for (int i = 0; i < 3; i++)
                    for (int j = 0; j < 3; j++)
                        err = fmax(err, fabs(((double *)Bd->x)[(size_t)(cmap[w] + j) * nr + rmap[v] + i] -
                                             D[(size_t)(3 * v + i) * n + 3 * w + j]));
    assert_true(err < 1e-13 * scale);
    cholmod_free_dense(&Bd, &c), cholmod_free_sparse(&B, &c), cholmod_free_sparse(&K, &c);
    cholmod_finish(&c);
    free(D), free(keep), free(all), free(rmap), free(cmap);
    ep_mesh_free(&m);
}

/* Patch test (MATH.md §9): prescribe u = A x + c on the boundary; the interior
 * solution K_ii u_i = -K_ib u_b reproduces the linear field to round-off. */
static void patch_test(void **s)
{
    (void)s;
    const char *files[] = {"data/cube.msh", "data/cube-tetgen.ele"};
    for (int fi = 0; fi < 2; fi++) {
        ep_mesh m;
        ep_material mat = steel();
        cholmod_common c;
        const double A[3][3] = {{1e-3, 2e-4, -3e-4}, {5e-4, -1e-3, 1e-4}, {-2e-4, 3e-4, 7e-4}}, t[3] = {1e-3, -2e-3, 5e-4};
        assert_int_equal(ep_model_read(&m, files[fi]), EP_OK);
        char *inner = calloc((size_t)m.nv, 1);
        for (int v = 0; v < m.nv; v++)
            inner[v] = 1;
        for (int j = 0; j < m.nb; j++)
            inner[m.boundary[j]] = 0;
        int *imap, *bmap, ni, nb;
        ep_fem_dofmap(&m, inner, &imap, &ni);
        for (int v = 0; v < m.nv; v++)
            inner[v] = !inner[v];
        ep_fem_dofmap(&m, inner, &bmap, &nb);
        assert_true(ni > 0);
        cholmod_start(&c);
        cholmod_sparse *Kii = ep_fem_assemble(&m, &mat, EP_FEM_STIFFNESS, imap, ni, imap, ni, 1, &c);
        cholmod_sparse *Kib = ep_fem_assemble(&m, &mat, EP_FEM_STIFFNESS, imap, ni, bmap, nb, 0, &c);
        cholmod_dense *ub = cholmod_zeros((size_t)nb, 1, CHOLMOD_REAL, &c), *f = cholmod_zeros((size_t)ni, 1, CHOLMOD_REAL, &c);
        for (int v = 0; v < m.nv; v++)
            for (int i = 0; bmap[v] >= 0 && i < 3; i++)
                ((double *)ub->x)[bmap[v] + i] = A[i][0] * m.vertices[3 * v] + A[i][1] * m.vertices[3 * v + 1] +
                                                 A[i][2] * m.vertices[3 * v + 2] + t[i];
        double mone[2] = {-1, 0}, zero[2] = {0, 0};
        cholmod_sdmult(Kib, 0, mone, zero, ub, f, &c);
        cholmod_factor *L = cholmod_analyze(Kii, &c);
        cholmod_factorize(Kii, L, &c);
        assert_int_equal(c.status, CHOLMOD_OK);
        cholmod_dense *u = cholmod_solve(CHOLMOD_A, L, f, &c);
        double err = 0;
        for (int v = 0; v < m.nv; v++)
            for (int i = 0; imap[v] >= 0 && i < 3; i++) {
                double want = A[i][0] * m.vertices[3 * v] + A[i][1] * m.vertices[3 * v + 1] + A[i][2] * m.vertices[3 * v + 2] + t[i];
                err = fmax(err, fabs(((double *)u->x)[imap[v] + i] - want));
            }
        assert_true(err < 1e-12);
        cholmod_free_dense(&u, &c), cholmod_free_dense(&ub, &c), cholmod_free_dense(&f, &c);
        cholmod_free_factor(&L, &c), cholmod_free_sparse(&Kii, &c), cholmod_free_sparse(&Kib, &c);
        cholmod_finish(&c);
        free(inner), free(imap), free(bmap);
        ep_mesh_free(&m);
    }
}

/* Surface mass: entries sum to the area; consistent row sums are the vertex
 * areas, which the lumped model puts on the diagonal. */
static void surface_mass(void **s)
{
    ep_mesh *m = *s; /* data/cube.msh */
    cholmod_common c;
    cholmod_start(&c);
    cholmod_sparse *Mc = ep_fem_surface_mass(m, 0, &c), *Ml = ep_fem_surface_mass(m, 1, &c);
    cholmod_dense *dc = cholmod_sparse_to_dense(Mc, &c), *dl = cholmod_sparse_to_dense(Ml, &c);
    double total = 0;
    for (int j = 0; j < m->nb; j++) {
        double rc = 0, rl = 0;
        for (int k = 0; k < m->nb; k++) {
            rc += ((double *)dc->x)[(size_t)k * m->nb + j];
            rl += ((double *)dl->x)[(size_t)k * m->nb + j];
        }
        assert_true(fabs(rc - m->vertex_area[j]) < 1e-14 && fabs(rl - m->vertex_area[j]) < 1e-14);
        total += rc;
    }
    assert_true(fabs(total - 6.0) < 1e-12);
    cholmod_free_dense(&dc, &c);
    cholmod_free_dense(&dl, &c);
    cholmod_free_sparse(&Mc, &c);
    cholmod_free_sparse(&Ml, &c);
    cholmod_finish(&c);
}

/* The support must hold every part with three non-collinear vertices. */
static void support_check(void **s)
{
    (void)s;
    ep_mesh m;
    const char *two = write_scratch("two.veg",
        "*VERTICES\n8 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 5 0 0\n6 6 0 0\n7 5 1 0\n8 5 0 1\n"
        "*ELEMENTS\nTETS\n2 4 0\n1 1 2 3 4\n2 5 6 7 8\n", -1);
    assert_int_equal(ep_model_read(&m, two), EP_OK);
    char fixed[8] = {1, 1, 1, 0, 1, 1, 1, 0};
    assert_int_equal(ep_mesh_check_support(&m, fixed, 0), EP_OK);
    fixed[6] = 0;
    expect_error(ep_mesh_check_support(&m, fixed, 0), EP_EINPUT, "rigid motion", "vertex 5", NULL);
    fixed[5] = 0;
    expect_error(ep_mesh_check_support(&m, fixed, 0), EP_EINPUT, "has one fixed", NULL);
    fixed[4] = 0;
    expect_error(ep_mesh_check_support(&m, fixed, 0), EP_EINPUT, "has none fixed", NULL);
    ep_mesh_free(&m);
    const char *line = write_scratch("line.veg",
        "*VERTICES\n5 3 0 0\n1 0 0 0\n2 1 0 0\n3 2 0 0\n4 0 1 0\n5 0 0 1\n*ELEMENTS\nTETS\n2 4 0\n1 1 2 4 5\n2 2 3 4 5\n", -1);
    assert_int_equal(ep_model_read(&m, line), EP_OK);
    char col[5] = {1, 1, 1, 0, 0};
    expect_error(ep_mesh_check_support(&m, col, 0), EP_EINPUT, "only collinear ones", NULL);
    ep_mesh_free(&m);
}

EP_TEST_MAIN("fem", cmocka_unit_test(element_matrices), cmocka_unit_test(assembly_matches_dense),
             cmocka_unit_test(patch_test), EP_MODEL_TEST(surface_mass, "data/cube.msh"),
             cmocka_unit_test(support_check))
