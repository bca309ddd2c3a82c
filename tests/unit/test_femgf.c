/*
 * test_femgf.c — FEM Green's functions (femgf.h, MATH.md §1) and the GF file
 * layout (gf_layout.h, gf.h): every column of a small model satisfies the one
 * boundary relation S u = M_s p with the condensed stiffness S computed
 * independently (a second factorization, of the interior), in both traction
 * models, free and fixed columns alike (measured: 1e-14 relative); and a GF file written and read back
 * gives the same layout and the same rows, bit for bit in double precision.
 */
#include "helpers.h"

#include "chol.h"
#include "fem.h"
#include "femgf.h"
#include "gf.h"
#include "h5.h"

/* Every row the solver hands over, kept in memory. */
typedef struct {
    double *xi; /* [3m][3n] */
    long n3;
    int calls;
} capture;

static int put_rows(void *ctx, long row0, long nrows, const double *rows)
{
    capture *c = ctx;
    memcpy(c->xi + row0 * c->n3, rows, (size_t)(nrows * c->n3) * sizeof *rows);
    c->calls++;
    return EP_OK;
}

/* The cube with its "bottom" group held, and the layout with every boundary
 * vertex as a column (free and fixed columns). */
static void cube_model(ep_mesh *m, char **fixed, ep_gf_layout *L)
{
    assert_int_equal(ep_model_read(m, "data/cube.msh"), EP_OK);
    *fixed = region_mask(m, "bottom");
    assert_int_equal(ep_gf_layout_build(L, m, *fixed, 1, NULL, 0), EP_OK);
}

/* M_s (fem.h) as a dense nb x nb matrix. */
static double *surface_mass(const ep_mesh *m, int lumped)
{
    cholmod_common c;
    ep_chol_start(&c);
    cholmod_sparse *M = ep_fem_surface_mass(m, lumped, &c);
    double *D = calloc((size_t)m->nb * m->nb, sizeof *D);
    assert_non_null(M);
    assert_non_null(D);
    for (int j = 0; j < m->nb; j++)
        for (int p = ((int *)M->p)[j]; p < ((int *)M->p)[j + 1]; p++)
            D[(size_t)((int *)M->i)[p] * m->nb + j] = ((double *)M->x)[p];
    cholmod_free_sparse(&M, &c);
    cholmod_finish(&c);
    return D;
}

/* Column q = 3c + a: u_b and p over the boundary DOFs from its GF row (a
 * free column is a unit traction at its vertex, a fixed one a unit
 * displacement), then |S u_b - M_s p| against |S u_b|. */
static void relation_holds(int lumped)
{
    ep_mesh m;
    ep_gf_layout L;
    char *fixed;
    double *S = NULL;
    ep_femgf_stats stats;
    ep_material mat = test_material(1e6, 0.3, NAN);
    cube_model(&m, &fixed, &L);
    assert_int_equal(L.n, m.nb);
    capture cap = {calloc(9 * (size_t)L.m * L.n, sizeof(double)), 3L * L.n, 0};
    ep_femgf_opts o = {.lumped = lumped, .block = 7, .condensed = 1};
    ep_femgf_sink sink = {put_rows, NULL, &cap};
    assert_int_equal(ep_femgf_solve(&m, &mat, fixed, &L, &o, &sink, &S, &stats), EP_OK);
    assert_non_null(S);
    assert_true(cap.calls >= 3L * L.m / 7);

    long n3 = 3L * L.n;
    double *Ms = surface_mass(&m, lumped);
    double *u = malloc(n3 * sizeof *u), *p = malloc(n3 * sizeof *p), *Su = malloc(n3 * sizeof *Su),
           *Mp = malloc(n3 * sizeof *Mp), worst = 0;
    for (long q = 0; q < 3L * L.m; q += 5) { /* every fifth column: free and fixed, all axes */
        int c = (int)(q / 3), a = (int)(q % 3), v = L.col_vertex[c];
        const double *row = cap.xi + q * n3;
        for (int j = 0; j < L.n; j++)
            for (int b = 0; b < 3; b++) {
                int k = 3 * j + b, unit = L.row_vertex[j] == v && b == a;
                u[k] = L.row_fixed[j] ? unit : row[k];
                p[k] = L.row_fixed[j] ? row[k] : unit;
            }
        for (long i = 0; i < n3; i++) {
            Su[i] = 0;
            for (long k = 0; k < n3; k++)
                Su[i] += S[i * n3 + k] * u[k];
        }
        for (int i = 0; i < L.n; i++) /* (M_s (x) I3) p */
            for (int b = 0; b < 3; b++) {
                Mp[3 * i + b] = 0;
                for (int j = 0; j < L.n; j++)
                    Mp[3 * i + b] += Ms[(size_t)i * L.n + j] * p[3 * j + b];
            }
        double r = 0, size = maxabs(Su, (size_t)n3);
        for (long i = 0; i < n3; i++)
            r = fmax(r, fabs(Su[i] - Mp[i]));
        worst = fmax(worst, r / size);
    }
    if (worst > 1e-9)
        fail_msg("%s traction: max |S u - M p| / |S u| = %.3g", lumped ? "lumped" : "consistent", worst);
    free(Ms), free(u), free(p), free(Su), free(Mp), free(S), free(cap.xi), free(fixed);
    ep_gf_layout_free(&L);
    ep_mesh_free(&m);
}

static void relation_consistent(void **s)
{
    (void)s;
    relation_holds(0);
}

static void relation_lumped(void **s)
{
    (void)s;
    relation_holds(1);
}

/* Write a layout and rows (double, then float32) and read them back. */
static void layout_round_trip(void **s)
{
    (void)s;
    ep_mesh m;
    ep_gf_layout L;
    char *fixed;
    cube_model(&m, &fixed, &L);
    long n3 = 3L * L.n, nrows = 3L * L.m;
    double *xi = malloc((size_t)(nrows * n3) * sizeof *xi), *back = malloc((size_t)(nrows * n3) * sizeof *back);
    for (long i = 0; i < nrows * n3; i++)
        xi[i] = sin(0.37 * (double)i) / (1 + (double)(i % 7));
    for (int single = 0; single < 2; single++) {
        const char *path = scratch(single ? "gf32.h5" : "gf64.h5");
        ep_h5 f;
        ep_gf_writer w = {0};
        ep_gf_file g = {0};
        assert_int_equal(ep_h5_create(&f, path, "gf", "test", "test"), EP_OK);
        assert_int_equal(ep_model_write(&f, &m, NULL, fixed), EP_OK);
        assert_int_equal(ep_gf_writer_open(&w, &f, &L, "fem-tet4", "consistent", single), EP_OK);
        assert_int_equal(ep_gf_writer_put(&w, 5, nrows - 5, xi + 5 * n3), EP_OK); /* any order */
        assert_int_equal(ep_gf_writer_put(&w, 0, 5, xi), EP_OK);
        assert_int_equal(ep_gf_writer_close(&w), EP_OK);
        assert_int_equal(ep_h5_close(&f), EP_OK);

        assert_int_equal(ep_gf_file_open(&g, path, "gf"), EP_OK);
        assert_string_equal(g.L.entity, "vertex");
        assert_int_equal(g.L.n, L.n);
        assert_int_equal(g.L.m, L.m);
        assert_memory_equal(g.L.row_vertex, L.row_vertex, (size_t)L.n * sizeof(int));
        assert_memory_equal(g.L.row_fixed, L.row_fixed, (size_t)L.n);
        assert_memory_equal(g.L.col_vertex, L.col_vertex, (size_t)L.m * sizeof(int));
        assert_string_equal(g.method, "fem-tet4");
        assert_string_equal(g.traction_model, "consistent");
        assert_int_equal(g.mesh.nv, m.nv);
        assert_int_equal(ep_gf_file_rows(&g, 0, nrows, back), EP_OK);
        for (long i = 0; i < nrows * n3; i++)
            if (back[i] != (single ? (double)(float)xi[i] : xi[i]))
                fail_msg("%s: entry %ld reads %.17g, written %.17g", path, i, back[i], xi[i]);
        ep_gf_file_close(&g);
    }
    free(xi), free(back), free(fixed);
    ep_gf_layout_free(&L);
    ep_mesh_free(&m);
}

EP_TEST_MAIN("femgf", cmocka_unit_test(relation_consistent), cmocka_unit_test(relation_lumped),
             cmocka_unit_test(layout_round_trip))
