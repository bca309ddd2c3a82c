/*
 * test_femgf.c — FEM Green's functions (femgf.h, MATH.md §1) and the GF file
 * layout (gf_layout.h, gf.h): every column of a small model satisfies the one
 * boundary relation S u = M_s p with the condensed stiffness S computed
 * independently (a second factorization, of the interior), in both traction
 * models, free and fixed columns alike (measured: 1e-14 relative); and a GF file written and read back
 * gives the same layout and the same rows, bit for bit in double precision;
 * a failing sink stops the solve with its own status and message.
 */
#include "helpers.h"

#include <lapacke.h>

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
    ep_gf_sink sink = {put_rows, NULL, &cap};
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

/* A sink that refuses its third block: the solver stops handing blocks
 * over and returns the sink's status and message (the writer thread's
 * error reaches the caller; nothing waits on a buffer forever). */
static int put_refuse_third(void *ctx, long row0, long nrows, const double *rows)
{
    (void)row0, (void)nrows, (void)rows;
    int *calls = ctx;
    return ++*calls == 3 ? ep_fail(EP_EIO, "test sink: disk full at block %d", *calls) : EP_OK;
}

static void sink_failure(void **state)
{
    (void)state;
    ep_mesh m;
    ep_gf_layout L;
    char *fixed;
    ep_femgf_stats stats;
    ep_material mat = test_material(1e6, 0.3, NAN);
    int calls = 0;
    cube_model(&m, &fixed, &L);
    ep_femgf_opts o = {.lumped = 1, .block = 3};
    ep_gf_sink sink = {put_refuse_third, NULL, &calls};
    assert_int_equal(ep_femgf_solve(&m, &mat, fixed, &L, &o, &sink, NULL, &stats), EP_EIO);
    assert_string_equal(ep_errmsg(), "test sink: disk full at block 3");
    assert_int_equal(calls, 3);
    free(fixed);
    ep_gf_layout_free(&L);
    ep_mesh_free(&m);
}

static void relation(void **s)
{
    (void)s;
    for (int lumped = 0; lumped < 2; lumped++)
        relation_holds(lumped);
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

/* Restricted solves (chol.h) against CHOLMOD's full solve on the cube's
 * stiffness, support held: wanted rows (the boundary DOFs) agree to 1e-12
 * relative for loads at a few DOFs and for a dense column; the sparse block
 * skips flops the dense one does. */
static void restricted_solve(void **state)
{
    (void)state;
    ep_mesh m;
    ep_gf_layout L;
    char *fixed, *keep;
    int *fmap, nf;
    ep_material mat = test_material(1e6, 0.3, NAN);
    cholmod_common c;
    ep_chol_rplan plan;
    cube_model(&m, &fixed, &L);
    ep_chol_start(&c);
    keep = malloc((size_t)m.nv);
    for (int v = 0; v < m.nv; v++)
        keep[v] = !fixed[v];
    assert_int_equal(ep_fem_dofmap(&m, keep, &fmap, &nf), EP_OK);
    cholmod_sparse *K = ep_fem_assemble(&m, &mat, EP_FEM_STIFFNESS, fmap, nf, fmap, nf, 1, &c);
    cholmod_factor *F = cholmod_analyze(K, &c);
    assert_non_null(F);
    assert_int_equal(ep_chol_factorize(K, F, "the cube", &c), EP_OK);
    char *want = calloc((size_t)nf, 1);
    for (int j = 0; j < m.nb; j++)
        for (int a = 0; a < 3 && fmap[m.boundary[j]] >= 0; a++)
            want[fmap[m.boundary[j]] + a] = 1;
    assert_int_equal(ep_chol_rplan_init(&plan, F, want), EP_OK);
    enum { k = 5 };
    cholmod_dense *B = cholmod_zeros((size_t)nf, k, CHOLMOD_REAL, &c);
    double *b = B->x, flops[2];
    for (int pass = 0; pass < 2; pass++) {
        memset(b, 0, sizeof(double) * (size_t)nf * k);
        for (int col = 0; col < k; col++)
            if (pass) /* dense: every DOF loaded */
                for (int i = 0; i < nf; i++)
                    b[(size_t)col * nf + i] = sin(1.0 + i + 7.0 * col);
            else /* a load at one free boundary vertex, two components */
                for (int j = col, done = 0; j < m.nb && !done; j++)
                    if (fmap[m.boundary[j]] >= 0) {
                        b[(size_t)col * nf + fmap[m.boundary[j]]] = 1;
                        b[(size_t)col * nf + fmap[m.boundary[j]] + 2] = -0.5;
                        done = 1;
                    }
        cholmod_dense *R = cholmod_solve(CHOLMOD_A, F, B, &c);
        double *X = malloc(sizeof(double) * (size_t)nf * k), *work = ep_chol_rsolve_work(&plan, k);
        assert_non_null(R);
        flops[pass] = ep_chol_rsolve(&plan, b, X, k, work);
        double err = 0, scale = 0, *r = R->x;
        for (size_t i = 0; i < (size_t)nf * k; i++)
            if (want[i % (size_t)nf]) {
                err = fmax(err, fabs(X[i] - r[i]));
                scale = fmax(scale, fabs(r[i]));
            }
        if (!(err <= 1e-12 * scale))
            fail_msg("pass %d: restricted solve differs by %g of %g", pass, err, scale);
        /* the same in another layout (unknown i at place 2i + 1 of columns
         * ld = 2 nf + 2 apart), negated and in place, as moddesc calls it:
         * bit for bit the solve of -b (chol.h) */
        size_t ld = 2 * (size_t)nf + 2;
        int *place = malloc(sizeof(int) * (size_t)nf);
        double *Y = calloc(ld * k, sizeof(double));
        for (int i = 0; i < nf; i++)
            place[i] = 2 * i + 1;
        for (size_t i = 0; i < (size_t)nf * k; i++)
            Y[i / nf * ld + (size_t)place[i % nf]] = b[i], b[i] = -b[i];
        ep_chol_rsolve(&plan, b, X, k, work);
        ep_chol_rsolve_rows(&plan, place, ld, -1.0, Y, Y, k, work);
        for (size_t i = 0; i < (size_t)nf * k; i++)
            if (want[i % (size_t)nf] && memcmp(&X[i], &Y[i / nf * ld + (size_t)place[i % nf]], sizeof *X))
                fail_msg("pass %d: rows in place, negated: unknown %zu differs from the solve of -b", pass, i);
        /* and in the factor's own layout (row plan.pos[i] of a row-major
         * block, as femgf builds its loads): bit for bit the same solve */
        double *Z = calloc((size_t)nf * k, sizeof(double));
        for (size_t i = 0; i < (size_t)nf * k; i++)
            Z[(size_t)plan.pos[i % nf] * k + i / nf] = b[i];
        ep_chol_rsolve_ordered(&plan, Z, k, work);
        for (size_t i = 0; i < (size_t)nf * k; i++)
            if (want[i % (size_t)nf] && memcmp(&X[i], &Z[(size_t)plan.pos[i % nf] * k + i / nf], sizeof *X))
                fail_msg("pass %d: the factor's layout: unknown %zu differs from the column-major solve", pass, i);
        /* and by its two halves, the loaded supernodes given as femgf
         * marks them: bit for bit again */
        char *loaded = calloc((size_t)plan.nsuper, 1);
        memset(Z, 0, sizeof(double) * (size_t)nf * k);
        for (size_t i = 0; i < (size_t)nf * k; i++)
            if ((Z[(size_t)plan.pos[i % nf] * k + i / nf] = b[i]) != 0)
                loaded[plan.snode[plan.pos[i % nf]]] = 1;
        ep_chol_rforward(&plan, Z, k, work, loaded);
        ep_chol_rbackward(&plan, Z, k, work);
        for (size_t i = 0; i < (size_t)nf * k; i++)
            if (want[i % (size_t)nf] && memcmp(&X[i], &Z[(size_t)plan.pos[i % nf] * k + i / nf], sizeof *X))
                fail_msg("pass %d: the two halves, loads marked: unknown %zu differs", pass, i);
        free(place), free(Y), free(Z), free(loaded);
        cholmod_free_dense(&R, &c);
        free(X), free(work);
    }
    if (!(flops[0] < 0.9 * flops[1]))
        fail_msg("loads at single vertices skip nothing: %g flops against %g dense", flops[0], flops[1]);
    ep_chol_rplan_free(&plan);
    cholmod_free_dense(&B, &c);
    cholmod_free_factor(&F, &c);
    cholmod_free_sparse(&K, &c);
    cholmod_finish(&c);
    free(want), free(keep), free(fmap), free(fixed);
    ep_gf_layout_free(&L);
    ep_mesh_free(&m);
}


/* Dense copy of a CHOLMOD block (nr x nc, any storage but symmetric-upper)
 * into D (row-major, leading dimension ld) at (r0, c0), times sign; with
 * mass (nb x nb scalar, boundary positions), its entries expanded to the
 * three axes through the vertex DOF maps rmap/cmap. */
static void dense_add(double *D, int ld, int r0, int c0, const cholmod_sparse *A, double sign)
{
    for (size_t j = 0; j < A->ncol; j++)
        for (int p = ((int *)A->p)[j]; p < ((int *)A->p)[j + 1]; p++)
            D[(size_t)(r0 + ((int *)A->i)[p]) * ld + c0 + (int)j] += sign * ((double *)A->x)[p];
}

/* Body-force rows (MATH.md §12) against a direct solve of the coupled
 * system with the body load (one dense LU, no Woodbury, no restricted
 * solve):  [K_ff  -M_fc; -K_cf  M_cc] [u_f; p_c] = [f_f; -f_c],  f the
 * lumped mass's diagonal (rho V / 4 a tet vertex) in direction a.  Both
 * traction models (the consistent one has a support border), block sizes
 * 1 (three blocks) and 7. */
static void body_matches_direct(int lumped, int block)
{
    ep_mesh m;
    ep_gf_layout L;
    char *fixed, *keep;
    int *fmap, *cmap, nf, nc;
    ep_femgf_stats stats;
    cholmod_common c;
    ep_material mat = test_material(1e6, 0.3, 1000);
    cube_model(&m, &fixed, &L);
    ep_chol_start(&c);
    long n3 = 3L * L.n;
    double *body = calloc(3 * (size_t)n3, sizeof *body);
    capture cap = {calloc(9 * (size_t)L.m * L.n, sizeof(double)), n3, 0};
    ep_femgf_opts o = {.lumped = lumped, .block = block, .body = body};
    ep_gf_sink sink = {put_rows, NULL, &cap};
    assert_int_equal(ep_femgf_solve(&m, &mat, fixed, &L, &o, &sink, NULL, &stats), EP_OK);

    keep = malloc((size_t)m.nv);
    for (int v = 0; v < m.nv; v++)
        keep[v] = !fixed[v];
    assert_int_equal(ep_fem_dofmap(&m, keep, &fmap, &nf), EP_OK);
    int *bidx = malloc(sizeof(int) * (size_t)m.nv);
    for (int v = 0; v < m.nv; v++)
        bidx[v] = -1;
    for (int j = 0; j < m.nb; j++)
        bidx[m.boundary[j]] = j;
    for (int v = 0; v < m.nv; v++)
        keep[v] = fixed[v] && bidx[v] >= 0;
    assert_int_equal(ep_fem_dofmap(&m, keep, &cmap, &nc), EP_OK);
    int N = nf + nc;
    double *A = calloc((size_t)N * N, sizeof *A), *f = calloc(3 * (size_t)N, sizeof *f);
    cholmod_sparse *Kff = ep_fem_assemble(&m, &mat, EP_FEM_STIFFNESS, fmap, nf, fmap, nf, 0, &c),
                   *Kcf = ep_fem_assemble(&m, &mat, EP_FEM_STIFFNESS, cmap, nc, fmap, nf, 0, &c),
                   *Mf = ep_fem_assemble(&m, &mat, EP_FEM_MASS_LUMPED, fmap, nf, fmap, nf, 0, &c),
                   *Mc = ep_fem_assemble(&m, &mat, EP_FEM_MASS_LUMPED, cmap, nc, cmap, nc, 0, &c);
    double *Ms = surface_mass(&m, lumped);
    dense_add(A, N, 0, 0, Kff, 1);
    dense_add(A, N, nf, 0, Kcf, -1);
    for (int j = 0; j < m.nb; j++) /* the surface mass's couplings to the fixed vertices' tractions */
        for (int k = 0; k < m.nb; k++) {
            int vj = m.boundary[j], vk = m.boundary[k];
            double x = Ms[(size_t)j * m.nb + k];
            if (x == 0 || cmap[vk] < 0)
                continue;
            for (int b = 0; b < 3; b++) {
                if (fmap[vj] >= 0)
                    A[(size_t)(fmap[vj] + b) * N + nf + cmap[vk] + b] -= x;
                else if (cmap[vj] >= 0)
                    A[(size_t)(nf + cmap[vj] + b) * N + nf + cmap[vk] + b] += x;
            }
        }
    for (int a = 0; a < 3; a++) { /* right-hand sides, row-major N x 3 */
        for (int j = 0; j < nf; j++)
            for (int p = ((int *)Mf->p)[j]; p < ((int *)Mf->p)[j + 1]; p++)
                if (j % 3 == a)
                    f[(size_t)j * 3 + a] += ((double *)Mf->x)[p];
        for (int j = 0; j < nc; j++)
            for (int p = ((int *)Mc->p)[j]; p < ((int *)Mc->p)[j + 1]; p++)
                if (j % 3 == a)
                    f[(size_t)(nf + j) * 3 + a] -= ((double *)Mc->x)[p];
    }
    lapack_int *ipiv = malloc(sizeof(lapack_int) * (size_t)N);
    assert_int_equal(LAPACKE_dgesv(LAPACK_ROW_MAJOR, N, 3, A, N, ipiv, f, 3), 0);
    double err = 0, scale[2] = {0, 0};
    for (int a = 0; a < 3; a++)
        for (int j = 0; j < L.n; j++) {
            int v = L.row_vertex[j], fx = L.row_fixed[j];
            for (int b = 0; b < 3; b++)
                scale[fx] = fmax(scale[fx], fabs(f[(size_t)((fx ? nf + cmap[v] : fmap[v]) + b) * 3 + a]));
        }
    for (int a = 0; a < 3; a++)
        for (int j = 0; j < L.n; j++) {
            int v = L.row_vertex[j], fx = L.row_fixed[j];
            for (int b = 0; b < 3; b++) {
                double ref = f[(size_t)((fx ? nf + cmap[v] : fmap[v]) + b) * 3 + a];
                err = fmax(err, fabs(body[a * n3 + 3 * j + b] - ref) / scale[fx]);
            }
        }
    if (!(err <= 1e-12) || !(scale[0] > 0) || !(scale[1] > 0))
        fail_msg("%s traction, block %d: body-force rows differ from the direct solve by %.3g (scales %g, %g)",
                 lumped ? "lumped" : "consistent", block, err, scale[0], scale[1]);
    cholmod_free_sparse(&Kff, &c), cholmod_free_sparse(&Kcf, &c), cholmod_free_sparse(&Mf, &c);
    cholmod_free_sparse(&Mc, &c);
    cholmod_finish(&c);
    free(A), free(f), free(ipiv), free(Ms), free(keep), free(fmap), free(cmap), free(bidx), free(body);
    free(cap.xi), free(fixed);
    ep_gf_layout_free(&L);
    ep_mesh_free(&m);
}

static void body_force(void **s)
{
    (void)s;
    for (int lumped = 0; lumped < 2; lumped++) {
        body_matches_direct(lumped, 7);
        body_matches_direct(lumped, 1);
    }
}

EP_TEST_MAIN("femgf", cmocka_unit_test(body_force), cmocka_unit_test(relation), cmocka_unit_test(layout_round_trip),
             cmocka_unit_test(restricted_solve), cmocka_unit_test(sink_failure))
