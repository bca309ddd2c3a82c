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
    ep_gf_sink sink = {.put = put_rows, .ctx = &cap};
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
        worst = nan_max(worst, r / size);
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
    ep_gf_sink sink = {.put = put_refuse_third, .ctx = &calls};
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

/* The plan's runs of rows (chol.h run_ptr, run_len): an in-place
 * supernode's runs cover its off-diagonal rows, each run consecutive and
 * ending where the rows break; some supernode of the plan takes that path,
 * so the solves compared with CHOLMOD's go through it. */
static void check_runs(const ep_chol_rplan *p)
{
    const int *super = p->L->super, *pi = p->L->pi, *Ls = p->L->s;
    for (int s = 0; s < p->nsuper; s++) {
        int nscol = super[s + 1] - super[s], nr = pi[s + 1] - pi[s] - nscol, r = 0;
        const int *rows = Ls + pi[s] + nscol;
        for (int q = p->run_ptr[s]; q < p->run_ptr[s + 1]; q++) {
            for (int i = 1; i < p->run_len[q]; i++)
                assert_int_equal(rows[r + i], rows[r] + i);
            r += p->run_len[q];
            assert_true(r == nr || rows[r] != rows[r - 1] + 1);
        }
        assert_true(r == 0 || (r == nr && 16 * (p->run_ptr[s + 1] - p->run_ptr[s]) <= nr));
    }
    assert_true(p->run_ptr[p->nsuper] > 0);
}

/* Restricted solves (chol.h) against CHOLMOD's full solve on the cube's
 * stiffness, support held: wanted rows (the boundary DOFs) agree to 1e-12
 * relative for loads at a few DOFs and for a dense column, on a plan whose
 * runs of rows are right (check_runs); the sparse block skips flops the
 * dense one does. */
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
    check_runs(&plan);
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

/* Barycentric weights w[4] of point p in the tet x[4][3] (a 4 x 4 solve). */
static void barycentric(const double x[4][3], const double p[3], double w[4])
{
    double A[16], b[4] = {p[0], p[1], p[2], 1};
    lapack_int ipiv[4];
    for (int t = 0; t < 4; t++) {
        for (int j = 0; j < 3; j++)
            A[4 * j + t] = x[t][j];
        A[12 + t] = 1;
    }
    assert_int_equal(LAPACKE_dgesv(LAPACK_ROW_MAJOR, 4, 1, A, 4, ipiv, b, 1), 0);
    memcpy(w, b, sizeof b);
}

/* The field U (U(v, b): component b at vertex v) at p in tet x/vt: the
 * displacement u[3] by its barycentric weights, the stress s[6] (xx yy zz
 * yz xz xy) of Hooke's law on the strain by central differences of u
 * (exact on the linear field). */
typedef double (*vertex_field)(void *ctx, int v, int b);
static void field_at(const double x[4][3], const int vt[4], const double p[3], double lambda, double mu,
                     vertex_field U, void *ctx, double u[3], double s[6])
{
    double w[4], g[3][3], h = 1e-4 * fabs(x[1][0] - x[0][0] + x[2][1] - x[0][1] + x[3][2] - x[0][2]) + 1e-6;
    barycentric(x, p, w);
    for (int b = 0; b < 3; b++) {
        u[b] = 0;
        for (int t = 0; t < 4; t++)
            u[b] += w[t] * U(ctx, vt[t], b);
    }
    for (int j = 0; j < 3; j++) {
        double pp[3] = {p[0], p[1], p[2]}, pm[3] = {p[0], p[1], p[2]}, wp[4], wm[4];
        pp[j] += h, pm[j] -= h;
        barycentric(x, pp, wp), barycentric(x, pm, wm);
        for (int b = 0; b < 3; b++) {
            g[b][j] = 0;
            for (int t = 0; t < 4; t++)
                g[b][j] += (wp[t] - wm[t]) * U(ctx, vt[t], b) / (2 * h);
        }
    }
    double tr = lambda * (g[0][0] + g[1][1] + g[2][2]);
    for (int b = 0; b < 3; b++)
        s[b] = tr + 2 * mu * g[b][b];
    s[3] = mu * (g[1][2] + g[2][1]), s[4] = mu * (g[0][2] + g[2][0]), s[5] = mu * (g[0][1] + g[1][0]);
}

/* The direct solution's displacement: column col of the dense solve X
 * (row-major, NR columns) at free DOFs; at fixed vertices the column's own
 * unit displacement (uv, ua) or 0. */
typedef struct {
    const double *X;
    const int *fmap;
    int NR, col, uv, ua;
} direct_field;

static double direct_u(void *ctx, int v, int b)
{
    const direct_field *d = ctx;
    return d->fmap[v] >= 0 ? d->X[(size_t)(d->fmap[v] + b) * d->NR + d->col] : (v == d->uv && b == d->ua);
}

/* Body-force rows (MATH.md §12) against a direct solve of the coupled
 * system with the body load (one dense LU, no Woodbury, no restricted
 * solve):  [K_ff  -M_fc; -K_cf  M_cc] [u_f; p_c] = [f_f; -f_c],  f the
 * lumped mass's diagonal (rho V / 4 a tet vertex) in direction a.  Both
 * traction models (the consistent one has a support border), block sizes
 * 1 (the body rows beside one GF row: a block of 4, narrow loops), 4 (the
 * same, then blocks of 4), 7 (BLAS) and 8 (narrow loops of 8).  The body
 * rows ride in the first block (femgf.c solve_block: their forward alone
 * where its GF loads do not reach, chol.h ep_chol_rforward_lead).  With them, the interior rows (MATH.md §12, 000
 * eq. 2.22) at points inside tets: displacement and stress of the direct
 * solution there (barycentric weights by a 4 x 4 solve, the strain by
 * central differences) for the body rows, two free GF columns (right-hand
 * sides M_s e_j) and a fixed one (u_c = e_j: -K_fc e_j, K_cc e_j). */
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
    enum { P = 12 };
    int ptet[P];
    double pw[4 * P], *irows = calloc((3 * (size_t)L.m + 3) * 9 * P, sizeof *irows);
    for (int k = 0; k < P; k++) { /* points inside tets spread over the mesh, near faces too */
        double w[4] = {1 + k % 4, 2, 3 + (k % 3 == 0 ? 20 : 0), 4 + k % 5}, sum = w[0] + w[1] + w[2] + w[3];
        ptet[k] = (int)((long)k * 7919 % m.ne);
        for (int t = 0; t < 4; t++)
            pw[4 * k + t] = w[t] / sum;
    }
    ep_femgf_opts o = {.lumped = lumped, .block = block, .body = body, .npoints = P, .point_tet = ptet,
                       .point_weight = pw, .interior = irows};
    ep_gf_sink sink = {.put = put_rows, .ctx = &cap};
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
    int N = nf + nc, cols[3] = {-1, -1, -1}, NR = 12; /* the body rows, then 3 GF columns */
    for (int cc = 0; cc < L.m; cc++) { /* two free columns far apart, one fixed */
        int fr = fmap[L.col_vertex[cc]] >= 0;
        if (fr && cols[0] < 0)
            cols[0] = cc;
        else if (fr && cc > L.m / 2 && cols[1] < 0)
            cols[1] = cc;
        else if (!fr && cols[2] < 0)
            cols[2] = cc;
    }
    assert_true(cols[0] >= 0 && cols[1] >= 0 && cols[2] >= 0);
    double *A = calloc((size_t)N * N, sizeof *A), *f = calloc((size_t)NR * N, sizeof *f);
    cholmod_sparse *Kff = ep_fem_assemble(&m, &mat, EP_FEM_STIFFNESS, fmap, nf, fmap, nf, 0, &c),
                   *Kcf = ep_fem_assemble(&m, &mat, EP_FEM_STIFFNESS, cmap, nc, fmap, nf, 0, &c),
                   *Mf = ep_fem_assemble(&m, &mat, EP_FEM_MASS_LUMPED, fmap, nf, fmap, nf, 0, &c),
                   *Mc = ep_fem_assemble(&m, &mat, EP_FEM_MASS_LUMPED, cmap, nc, cmap, nc, 0, &c),
                   *Kcc = ep_fem_assemble(&m, &mat, EP_FEM_STIFFNESS, cmap, nc, cmap, nc, 0, &c);
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
    for (int a = 0; a < 3; a++) { /* right-hand sides, row-major N x NR */
        for (int j = 0; j < nf; j++)
            for (int p = ((int *)Mf->p)[j]; p < ((int *)Mf->p)[j + 1]; p++)
                if (j % 3 == a)
                    f[(size_t)j * NR + a] += ((double *)Mf->x)[p];
        for (int j = 0; j < nc; j++)
            for (int p = ((int *)Mc->p)[j]; p < ((int *)Mc->p)[j + 1]; p++)
                if (j % 3 == a)
                    f[(size_t)(nf + j) * NR + a] -= ((double *)Mc->x)[p];
        for (int i = 0; i < 3; i++) {
            int v = L.col_vertex[cols[i]], r = 3 + 3 * i + a, jv = bidx[v];
            if (fmap[v] >= 0) { /* a unit traction: M_s e_j at free rows, -M_cj at fixed ones */
                for (int ju = 0; ju < m.nb; ju++) {
                    int u = m.boundary[ju];
                    double x = Ms[(size_t)ju * m.nb + jv];
                    if (fmap[u] >= 0)
                        f[(size_t)(fmap[u] + a) * NR + r] += x;
                    else if (cmap[u] >= 0)
                        f[(size_t)(nf + cmap[u] + a) * NR + r] -= x;
                }
            } else { /* a unit displacement: -K_fc e_j, K_cc e_j */
                int j = cmap[v] + a;
                for (int q = 0; q < nf; q++)
                    for (int p = ((int *)Kcf->p)[q]; p < ((int *)Kcf->p)[q + 1]; p++)
                        if (((int *)Kcf->i)[p] == j)
                            f[(size_t)q * NR + r] -= ((double *)Kcf->x)[p];
                for (int p = ((int *)Kcc->p)[j]; p < ((int *)Kcc->p)[j + 1]; p++)
                    f[(size_t)(nf + ((int *)Kcc->i)[p]) * NR + r] += ((double *)Kcc->x)[p];
            }
        }
    }
    lapack_int *ipiv = malloc(sizeof(lapack_int) * (size_t)N);
    assert_int_equal(LAPACKE_dgesv(LAPACK_ROW_MAJOR, N, NR, A, N, ipiv, f, NR), 0);
    double err = 0, scale[2] = {0, 0};
    for (int a = 0; a < 3; a++)
        for (int j = 0; j < L.n; j++) {
            int v = L.row_vertex[j], fx = L.row_fixed[j];
            for (int b = 0; b < 3; b++)
                scale[fx] = fmax(scale[fx], fabs(f[(size_t)((fx ? nf + cmap[v] : fmap[v]) + b) * NR + a]));
        }
    for (int a = 0; a < 3; a++)
        for (int j = 0; j < L.n; j++) {
            int v = L.row_vertex[j], fx = L.row_fixed[j];
            for (int b = 0; b < 3; b++) {
                double ref = f[(size_t)((fx ? nf + cmap[v] : fmap[v]) + b) * NR + a];
                err = fmax(err, fabs(body[a * n3 + 3 * j + b] - ref) / scale[fx]);
            }
        }
    if (!(err <= 1e-12) || !(scale[0] > 0) || !(scale[1] > 0))
        fail_msg("%s traction, block %d: body-force rows differ from the direct solve by %.3g (scales %g, %g)",
                 lumped ? "lumped" : "consistent", block, err, scale[0], scale[1]);
    /* interior rows against the direct solution */
    double ierr[2] = {0, 0}, iscale[2] = {0, 0}, lambda, mu;
    ep_material_lame(&mat, 0, &lambda, &mu);
    for (int r = 0; r < NR; r++) {
        int a = r % 3, i = r / 3 - 1;
        long q = r < 3 ? 3L * L.m + a : 3L * cols[i] + a;
        direct_field d = {f, fmap, NR, r, r < 3 || fmap[L.col_vertex[cols[i]]] >= 0 ? -1 : L.col_vertex[cols[i]], a};
        for (int k = 0; k < P; k++) {
            double x[4][3], p[3] = {0, 0, 0}, u[3], sg[6];
            const int *vt = &m.tets[4 * (size_t)ptet[k]];
            for (int t = 0; t < 4; t++)
                for (int j = 0; j < 3; j++) {
                    x[t][j] = m.vertices[3 * (size_t)vt[t] + j];
                    p[j] += pw[4 * k + t] * x[t][j];
                }
            field_at(x, vt, p, lambda, mu, direct_u, &d, u, sg);
            const double *got = irows + (size_t)q * 9 * P + 9 * k;
            for (int j = 0; j < 9; j++) {
                double ref = j < 3 ? u[j] : sg[j - 3];
                ierr[j >= 3] = fmax(ierr[j >= 3], fabs(got[j] - ref));
                iscale[j >= 3] = fmax(iscale[j >= 3], fabs(ref));
            }
        }
    }
    /* measured 5e-15 and 4e-12 (the strain by differences: exact on a linear field but for round-off) */
    if (!(ierr[0] <= 1e-12 * iscale[0]) || !(ierr[1] <= 1e-9 * iscale[1]))
        fail_msg("%s traction: interior rows differ from the direct solution: displacement %.3g of %.3g, stress "
                 "%.3g of %.3g", lumped ? "lumped" : "consistent", ierr[0], iscale[0], ierr[1], iscale[1]);
    cholmod_free_sparse(&Kff, &c), cholmod_free_sparse(&Kcf, &c), cholmod_free_sparse(&Mf, &c);
    cholmod_free_sparse(&Mc, &c), cholmod_free_sparse(&Kcc, &c);
    free(irows);
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
        body_matches_direct(lumped, 4);
        body_matches_direct(lumped, 8);
    }
}

EP_TEST_MAIN("femgf", cmocka_unit_test(body_force), cmocka_unit_test(relation), cmocka_unit_test(layout_round_trip),
             cmocka_unit_test(restricted_solve), cmocka_unit_test(sink_failure))
