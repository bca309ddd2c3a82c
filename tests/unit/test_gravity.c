/*
 * test_gravity.c — body-force rows (MATH.md §12; femgf.h, bemgf.h) against
 * what holds without them: a bar hanging under its own weight with nu = 0
 * is exactly one-dimensional, u_x = rho g (L x - x^2 / 2) / E, u_y = u_z =
 * 0; the FEM's and the BEM's rows converge to it under refinement and
 * towards each other on the same surface; the FEM's support tractions
 * carry the whole weight exactly (sum a_j p_j = -rho V g, lumped traction),
 * the BEM's along the bar to 1%; the tip's transverse deflection of both
 * rises towards beam theory's q L^4 / 8 E I = 0.15 (FEM 0.083, 0.127; BEM
 * 0.117, 0.141).
 * The runtime under gravity (ep_cma_gravity) and its interior state
 * (ep_cma_interior) equal a dense direct solve of the switched problem
 * with the body load.  The FEM rows against a direct solve are
 * test_femgf's body_force.
 */
#include "helpers.h"

#include "bemgf.h"
#include "chol.h"
#include "cma.h"
#include "fem.h"
#include "femgf.h"
#include "gf.h"
#include "gfsrc.h"
#include "h5.h"
#include "tet.h"

#include <lapacke.h>
#include "vec3.h"

static const double E = 1e6, RHO = 1000, LEN = 1.0; /* the beam meshes: [0, 1] x [0, 0.1]^2, fixed at x = 0 */

/* The body-force rows of the beam mesh path, by the FEM (bem 0, lumped
 * traction) or the BEM; one GF column (the solvers need one) at the tip. */
typedef struct {
    ep_mesh m;
    ep_gf_layout L;
    char *fixed;
    double *body; /* [3][3n] */
} hanging;

static int no_rows(void *ctx, long row0, long nrows, const double *rows)
{
    (void)ctx, (void)row0, (void)nrows, (void)rows;
    return EP_OK;
}

static void hang(hanging *h, const char *path, int bem)
{
    ep_material mat = test_material(E, 0.0, RHO);
    ep_gf_sink sink = {.put = no_rows};
    assert_int_equal(ep_model_read(&h->m, path), EP_OK);
    h->fixed = region_mask(&h->m, "fixed");
    int tip = -1;
    for (int j = 0; j < h->m.nb; j++)
        if (h->m.vertices[3 * h->m.boundary[j]] > LEN - 1e-9)
            tip = h->m.boundary[j];
    assert_true(tip >= 0);
    assert_int_equal(ep_gf_layout_build(&h->L, &h->m, h->fixed, 0, &tip, 1), EP_OK);
    h->body = calloc(9 * (size_t)h->L.n, sizeof *h->body);
    if (bem) {
        ep_bemgf_stats st;
        ep_bemgf_opts o = {.E = E, .nu = 0.0, .rho = RHO, .body = h->body};
        assert_int_equal(ep_bemgf_solve(&h->m, &h->L, &o, &sink, &st), EP_OK);
    } else {
        ep_femgf_stats st;
        ep_femgf_opts o = {.lumped = 1, .block = 4, .body = h->body};
        assert_int_equal(ep_femgf_solve(&h->m, &mat, h->fixed, &h->L, &o, &sink, NULL, &st), EP_OK);
    }
}

static void unhang(hanging *h)
{
    free(h->body), free(h->fixed);
    ep_gf_layout_free(&h->L);
    ep_mesh_free(&h->m);
}

/* Largest error of row 0 (gravity along the bar) at the free rows against
 * the 1-D solution, relative to its tip value; *off the largest transverse
 * displacement (relative too). */
static double bar_error(const hanging *h, double *off)
{
    double tip = RHO * LEN * LEN / (2 * E), err = 0;
    *off = 0;
    for (int j = 0; j < h->L.n; j++) {
        if (h->L.row_fixed[j])
            continue;
        double x = h->m.vertices[3 * h->L.row_vertex[j]], ref = RHO * (LEN * x - x * x / 2) / E;
        const double *u = h->body + 3 * j;
        err = fmax(err, fabs(u[0] - ref) / tip);
        *off = fmax(*off, fmax(fabs(u[1]), fabs(u[2])) / tip);
    }
    return err;
}

/* Largest difference of the displacement rows of a and b (same surface)
 * over all three directions, relative to the largest of a. */
static double rows_diff(const hanging *a, const hanging *b)
{
    double d = 0, s = 0;
    assert_int_equal(a->L.n, b->L.n);
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < a->L.n; j++)
            for (int c = 0; c < 3 && !a->L.row_fixed[j]; c++) {
                d = fmax(d, fabs(a->body[3 * (size_t)a->L.n * k + 3 * j + c] -
                                 b->body[3 * (size_t)b->L.n * k + 3 * j + c]));
                s = fmax(s, fabs(a->body[3 * (size_t)a->L.n * k + 3 * j + c]));
            }
    return d / s;
}

/* The support's tractions times their areas carry the weight, sum_j a_j
 * p_j = -rho V e_k for directions k < nk: the FEM's (lumped traction) to
 * round-off (the stiffness's rows sum to zero on a translation), the BEM's
 * to tol along the bar.  (Across it, the BEM's clamped edge nodes share one
 * traction between the end face and the sides: their sum is 2 to 5 times
 * the load for ordinary GF columns too, 5.2 and 2.4 times a tip load's.) */
static void weight_carried(const hanging *h, double tol, int nk)
{
    double V = 0;
    for (int e = 0; e < h->m.ne; e++) {
        const int *t = &h->m.tets[4 * e];
        double x[4][3];
        for (int a = 0; a < 4; a++)
            for (int i = 0; i < 3; i++)
                x[a][i] = h->m.vertices[3 * t[a] + i];
        double u[3], v[3], w[3], c[3];
        ep_vec3_sub(x[1], x[0], u), ep_vec3_sub(x[2], x[0], v), ep_vec3_sub(x[3], x[0], w);
        ep_vec3_cross(u, v, c);
        V += fabs(ep_vec3_dot(c, w)) / 6;
    }
    double *area;
    assert_int_equal(ep_gf_layout_row_areas(&h->L, &h->m, &area), EP_OK);
    for (int k = 0; k < nk; k++) {
        double f[3] = {0, 0, 0};
        for (int j = 0; j < h->L.n; j++)
            for (int c = 0; c < 3 && h->L.row_fixed[j]; c++)
                f[c] += area[j] * h->body[3 * (size_t)h->L.n * k + 3 * j + c];
        for (int c = 0; c < 3; c++)
            if (!(fabs(f[c] + RHO * V * (c == k)) <= tol * RHO * V))
                fail_msg("direction %d: the support carries %g along %d, the weight is %g", k, f[c], c, RHO * V);
    }
    free(area);
}

static void hanging_bar(void **s)
{
    (void)s;
    const char *mesh[2] = {"data/beam-h0.05.msh", "data/beam-h0.025.msh"};
    double fem_err[2], bem_err[2], diff[2];
    for (int r = 0; r < 2; r++) {
        hanging f = {0}, b = {0};
        double off;
        hang(&f, mesh[r], 0);
        hang(&b, mesh[r], 1);
        weight_carried(&f, 1e-10, 3);
        weight_carried(&b, 0.01, 1); /* measured 0.0021, 0.0010 */
        fem_err[r] = bar_error(&f, &off);
        if (!(off < 0.05))
            fail_msg("%s: FEM transverse displacement %g of the tip's", mesh[r], off);
        bem_err[r] = bar_error(&b, &off);
        if (!(off < 0.05))
            fail_msg("%s: BEM transverse displacement %g of the tip's", mesh[r], off);
        diff[r] = rows_diff(&f, &b);

        print_message("%s: 1-D error FEM %.3g, BEM %.3g; |FEM - BEM| %.3g\n", mesh[r], fem_err[r], bem_err[r],
                      diff[r]);
        unhang(&f);
        unhang(&b);
    }
    /* measured: 1-D error FEM 0.0028, 0.00031; BEM 0.0041, 0.0026 (its
     * clamped edges: one nodal traction serves the end face and the sides);
     * FEM and BEM apart (bending under transverse gravity, where coarse
     * linear tets lock) 0.38, 0.11 */
    assert_true(fem_err[1] < 0.5 * fem_err[0] && fem_err[1] < 1e-3);
    assert_true(bem_err[1] < 0.8 * bem_err[0] && bem_err[1] < 5e-3);
    assert_true(diff[1] < 0.5 * diff[0] && diff[1] < 0.2);
}

/* The BEM's interior rows of the body-force rows (MATH.md §12: u = u_p +
 * u_h, u_h by Somigliana's identity on the homogeneous problem's data) on
 * the hanging bar, nu = 0, at points on its axis: gravity along the bar
 * gives the 1-D u = rho (L x - x^2 / 2) / E and sigma_xx = rho (L - x),
 * the other stresses 0; both meshes, the finer closer in displacement. */
static void bem_interior_body(void **s)
{
    (void)s;
    const char *mesh[2] = {"data/beam-h0.05.msh", "data/beam-h0.025.msh"};
    const double pts[3][3] = {{0.25, 0.05, 0.05}, {0.5, 0.05, 0.05}, {0.75, 0.05, 0.05}};
    double uerr[2], serr[2];
    for (int r = 0; r < 2; r++) {
        hanging b = {0};
        ep_gf_sink sink = {.put = no_rows};
        assert_int_equal(ep_model_read(&b.m, mesh[r]), EP_OK);
        b.fixed = region_mask(&b.m, "fixed");
        int tip = -1;
        for (int j = 0; j < b.m.nb; j++)
            if (b.m.vertices[3 * b.m.boundary[j]] > LEN - 1e-9)
                tip = b.m.boundary[j];
        assert_int_equal(ep_gf_layout_build(&b.L, &b.m, b.fixed, 0, &tip, 1), EP_OK);
        b.body = calloc(9 * (size_t)b.L.n, sizeof *b.body);
        double *rows = calloc(6 * 27, sizeof *rows); /* 3 GF rows, then 3 body rows, 9 values at 3 points */
        ep_bemgf_stats st;
        ep_bemgf_opts o = {.E = E, .nu = 0.0, .rho = RHO, .body = b.body, .npoints = 3, .points = &pts[0][0],
                           .interior = rows};
        assert_int_equal(ep_bemgf_solve(&b.m, &b.L, &o, &sink, &st), EP_OK);
        uerr[r] = serr[r] = 0;
        for (int k = 0; k < 3; k++) {
            const double *v = rows + 3 * 27 + 9 * k; /* body row 0: gravity along the bar */
            double x = pts[k][0], u = RHO * (LEN * x - x * x / 2) / E, sxx = RHO * (LEN - x);
            uerr[r] = fmax(uerr[r], fabs(v[0] - u) / (RHO * LEN * LEN / (2 * E)));
            serr[r] = fmax(serr[r], fabs(v[3] - sxx) / (RHO * LEN));
            for (int c = 4; c < 9; c++)
                serr[r] = fmax(serr[r], fabs(v[c]) / (RHO * LEN));
        }
        print_message("%s: BEM interior body rows: displacement error %.3g of the tip's, stress %.3g of rho L\n",
                      mesh[r], uerr[r], serr[r]);
        free(rows);
        unhang(&b);
    }
    /* measured: displacement 1.1e-3, 9.0e-4 of the tip's; stress 1.7e-3, 1.8e-4 of rho L */
    assert_true(uerr[1] < uerr[0] && uerr[1] < 2e-3);
    assert_true(serr[1] < serr[0] && serr[1] < 1e-3);
}

/* Every GF row the solver hands over, kept (xi[3m][3n]). */
typedef struct {
    double *xi;
    long n3;
} kept;

static int keep_rows(void *ctx, long row0, long nrows, const double *rows)
{
    kept *k = ctx;
    memcpy(k->xi + row0 * k->n3, rows, (size_t)(nrows * k->n3) * sizeof *rows);
    return EP_OK;
}

/* The runtime under gravity (cma.h ep_cma_gravity, 000 eq. 2.38) against a
 * direct solve of the switched problem with the body load: the cube held
 * at its bottom, lumped-traction GFs with body-force rows written to a
 * file and read by ep_gfsrc_open; contact at s free nodes with prescribed
 * displacements; the reference is one dense solve of the whole stiffness
 * with the bottom and S held (K_UU u_U = f_U - K_UK u_K, f = the lumped
 * mass times beta), its displacements at the free rows and reactions /
 * vertex area at S and the bottom.  Both factor forms (Cholesky on the
 * symmetric GFs, LU). */
static void contact_under_gravity(void **st)
{
    (void)st;
    ep_mesh m;
    ep_gf_layout L;
    ep_femgf_stats stats;
    ep_material mat = test_material(1e6, 0.3, 1000);
    char *fixed;
    assert_int_equal(ep_model_read(&m, "data/cube.msh"), EP_OK);
    fixed = region_mask(&m, "bottom");
    assert_int_equal(ep_gf_layout_build(&L, &m, fixed, 0, NULL, 0), EP_OK);
    long n3 = 3L * L.n;
    kept k = {calloc(9 * (size_t)L.m * L.n, sizeof(double)), n3};
    double *body = calloc(3 * (size_t)n3, sizeof *body);
    enum { P = 9 };
    int ptet[P];
    double pw[4 * P], *irows = calloc((3 * (size_t)L.m + 3) * 9 * P, sizeof *irows);
    for (int q = 0; q < P; q++) {
        ptet[q] = (int)((long)q * 4421 % m.ne);
        for (int t = 0; t < 4; t++)
            pw[4 * q + t] = (t + 1.0 + q % 3) / (10.0 + 4 * (q % 3));
    }
    ep_femgf_opts o = {.lumped = 1, .block = 16, .body = body, .npoints = P, .point_tet = ptet, .point_weight = pw,
                       .interior = irows};
    ep_gf_sink sink = {.put = keep_rows, .ctx = &k};
    assert_int_equal(ep_femgf_solve(&m, &mat, fixed, &L, &o, &sink, NULL, &stats), EP_OK);
    const char *path = scratch("gravity.h5");
    ep_h5 f;
    ep_gf_writer w = {0};
    assert_int_equal(ep_h5_create(&f, path, "gf", "test", "test"), EP_OK);
    assert_int_equal(ep_model_write(&f, &m, &mat, fixed), EP_OK);
    assert_int_equal(ep_gf_writer_open(&w, &f, &L, "fem-tet4", "lumped", 0), EP_OK);
    assert_int_equal(ep_gf_writer_put(&w, 0, 3L * L.m, k.xi), EP_OK);
    assert_int_equal(ep_gf_writer_close(&w), EP_OK);
    assert_int_equal(ep_gf_write_body(&f, &L, body), EP_OK);
    double pts[3 * P];
    for (int q = 0; q < P; q++)
        for (int j = 0; j < 3; j++) {
            pts[3 * q + j] = 0;
            for (int t = 0; t < 4; t++)
                pts[3 * q + j] += pw[4 * q + t] * m.vertices[3 * (size_t)m.tets[4 * (size_t)ptet[q] + t] + j];
        }
    assert_int_equal(ep_gf_write_interior(&f, &L, pts, P, irows, 1), EP_OK);
    assert_int_equal(ep_h5_close(&f), EP_OK);

    /* the direct solve: all vertices' DOFs, dense */
    cholmod_common c;
    ep_chol_start(&c);
    char *all = malloc((size_t)m.nv);
    int *map, N;
    memset(all, 1, (size_t)m.nv);
    assert_int_equal(ep_fem_dofmap(&m, all, &map, &N), EP_OK);
    cholmod_sparse *K = ep_fem_assemble(&m, &mat, EP_FEM_STIFFNESS, map, N, map, N, 0, &c),
                   *M = ep_fem_assemble(&m, &mat, EP_FEM_MASS_LUMPED, map, N, map, N, 0, &c);
    double *Kd = calloc((size_t)N * N, sizeof *Kd), *mass = calloc((size_t)N, sizeof *mass);
    for (int j = 0; j < N; j++) {
        for (int p = ((int *)K->p)[j]; p < ((int *)K->p)[j + 1]; p++)
            Kd[(size_t)((int *)K->i)[p] * N + j] = ((double *)K->x)[p];
        for (int p = ((int *)M->p)[j]; p < ((int *)M->p)[j + 1]; p++)
            mass[j] += ((double *)M->x)[p];
    }
    double *area;
    assert_int_equal(ep_gf_layout_row_areas(&L, &m, &area), EP_OK);

    enum { S_N = 6 };
    const double beta[3] = {0.3, -9.81, 1.2};
    ep_rng rng = ep_rng_seed(40, 0);
    int S[S_N], s = 0;
    for (int j = L.n - 1; j >= 0 && s < S_N; j -= 7) /* free rows spread over the surface */
        if (!L.row_fixed[j])
            S[s++] = j;
    double uS[3 * S_N], pS[3 * S_N], *v = malloc(sizeof(double) * (size_t)n3);
    for (int i = 0; i < 3 * S_N; i++)
        uS[i] = 1e-3 * centered_uniform(&rng);
    /* known DOFs: the bottom's (0) and S's (uS) */
    char *known = calloc((size_t)N, 1);
    double *u = calloc((size_t)N, sizeof *u), *rhs = calloc((size_t)N, sizeof *rhs);
    for (int vtx = 0; vtx < m.nv; vtx++)
        for (int b = 0; b < 3 && fixed[vtx]; b++)
            known[map[vtx] + b] = 1;
    for (int i = 0; i < s; i++)
        for (int b = 0; b < 3; b++) {
            known[map[L.row_vertex[S[i]]] + b] = 1;
            u[map[L.row_vertex[S[i]]] + b] = uS[3 * i + b];
        }
    int nu = 0, *unk = malloc(sizeof(int) * (size_t)N);
    for (int i = 0; i < N; i++)
        if (!known[i])
            unk[nu++] = i;
    double *A = malloc(sizeof(double) * (size_t)nu * nu), *y = malloc(sizeof(double) * (size_t)nu);
    for (int r = 0; r < nu; r++) {
        y[r] = mass[unk[r]] * beta[unk[r] % 3];
        for (int j = 0; j < N; j++)
            if (known[j])
                y[r] -= Kd[(size_t)unk[r] * N + j] * u[j];
        for (int q = 0; q < nu; q++)
            A[(size_t)r * nu + q] = Kd[(size_t)unk[r] * N + unk[q]];
    }
    lapack_int *ipiv = malloc(sizeof(lapack_int) * (size_t)nu);
    assert_int_equal(LAPACKE_dgesv(LAPACK_ROW_MAJOR, nu, 1, A, nu, ipiv, y, 1), 0);
    for (int r = 0; r < nu; r++)
        u[unk[r]] = y[r];
    for (int i = 0; i < N; i++) { /* reactions at the known DOFs: K u - f */
        rhs[i] = -mass[i] * beta[i % 3];
        for (int j = 0; j < N && known[i]; j++)
            rhs[i] += Kd[(size_t)i * N + j] * u[j];
    }

    for (int form = 0; form < 2; form++) {
        ep_gfsrc g;
        ep_cma cm;
        assert_int_equal(ep_gfsrc_open(&g, path), EP_OK);
        assert_non_null(g.body);
        assert_int_equal(ep_cma_init(&cm, &g), EP_OK);
        if (form)
            ep_cma_use_lu(&cm);
        assert_int_equal(ep_cma_gravity(&cm, beta), EP_OK);
        assert_int_equal(ep_cma_set(&cm, S, s), EP_OK);
        ep_cma_solve(&cm, uS, NULL, pS, v);
        double err[2] = {0, 0}, scale[2] = {0, 0}; /* displacements, tractions */
        for (int j = 0; j < L.n; j++) {
            int vtx = L.row_vertex[j], trac = 0;
            for (int i = 0; i < s; i++)
                trac |= S[i] == j;
            trac |= fixed[vtx] != 0;
            for (int b = 0; b < 3; b++) {
                double ref = trac ? rhs[map[vtx] + b] / area[j] : u[map[vtx] + b];
                err[trac] = fmax(err[trac], fabs(v[3 * j + b] - ref));
                scale[trac] = fmax(scale[trac], fabs(ref));
            }
        }
        for (int i = 0; i < s; i++)
            for (int b = 0; b < 3; b++)
                err[1] = fmax(err[1], fabs(pS[3 * i + b] - rhs[map[L.row_vertex[S[i]]] + b] / area[S[i]]));
        /* the interior state (ep_cma_interior) against the direct field in the points' tets */
        double ist[9 * P], ierr[2] = {0, 0}, iscale[2] = {0, 0}, lambda, mu;
        ep_material_lame(&mat, 0, &lambda, &mu);
        assert_int_equal(ep_cma_interior(&cm, NULL, pS, ist), EP_OK);
        for (int q = 0; q < P; q++) {
            const int *vt = &m.tets[4 * (size_t)ptet[q]];
            double x[4][3], gr[4][3], vol, H[3][3] = {{0}}, ref[9] = {0};
            for (int t = 0; t < 4; t++)
                for (int j = 0; j < 3; j++)
                    x[t][j] = m.vertices[3 * (size_t)vt[t] + j];
            ep_tet_gradients(x, &vol, gr);
            for (int t = 0; t < 4; t++)
                for (int b = 0; b < 3; b++) {
                    ref[b] += pw[4 * q + t] * u[map[vt[t]] + b];
                    for (int j = 0; j < 3; j++)
                        H[b][j] += u[map[vt[t]] + b] * gr[t][j];
                }
            double tr = lambda * (H[0][0] + H[1][1] + H[2][2]);
            for (int b = 0; b < 3; b++)
                ref[3 + b] = tr + 2 * mu * H[b][b];
            ref[6] = mu * (H[1][2] + H[2][1]), ref[7] = mu * (H[0][2] + H[2][0]), ref[8] = mu * (H[0][1] + H[1][0]);
            for (int j = 0; j < 9; j++) {
                ierr[j >= 3] = fmax(ierr[j >= 3], fabs(ist[9 * q + j] - ref[j]));
                iscale[j >= 3] = fmax(iscale[j >= 3], fabs(ref[j]));
            }
        }
        print_message("%s: contact under gravity against the direct solve: displacements %.3g, tractions %.3g; "
                      "interior displacement %.3g, stress %.3g\n", cm.factor, err[0] / scale[0], err[1] / scale[1],
                      ierr[0] / iscale[0], ierr[1] / iscale[1]);
        if (!(ierr[0] <= 1e-9 * iscale[0] && ierr[1] <= 1e-9 * iscale[1]))
            fail_msg("%s: interior displacement off by %g of %g, stress by %g of %g", cm.factor, ierr[0], iscale[0],
                     ierr[1], iscale[1]);
        if (!(err[0] <= 1e-9 * scale[0] && err[1] <= 1e-9 * scale[1]))
            fail_msg("%s: displacements off by %g of %g, tractions by %g of %g", cm.factor, err[0], scale[0], err[1],
                     scale[1]);
        assert_int_equal(ep_cma_gravity(&cm, NULL), EP_OK); /* off again */
        assert_null(cm.gv);
        ep_cma_free(&cm);
        ep_gfsrc_close(&g);
    }
    cholmod_free_sparse(&K, &c), cholmod_free_sparse(&M, &c);
    cholmod_finish(&c);
    free(all), free(map), free(Kd), free(mass), free(area), free(v), free(known), free(u), free(rhs), free(unk);
    free(A), free(y), free(ipiv), free(k.xi), free(body), free(fixed), free(irows);
    ep_gf_layout_free(&L);
    ep_mesh_free(&m);
}

/* von Mises: uniaxial stress is itself, pure shear sqrt(3) times, a
 * hydrostatic state nothing. */
static void von_mises(void **st)
{
    (void)st;
    const double uni[6] = {-7, 0, 0, 0, 0, 0}, shear[6] = {0, 0, 0, 0, 2, 0}, hydro[6] = {3, 3, 3, 0, 0, 0};
    assert_true(fabs(ep_gfsrc_von_mises(uni) - 7) < 1e-14);
    assert_true(fabs(ep_gfsrc_von_mises(shear) - 2 * sqrt(3)) < 1e-14);
    assert_true(ep_gfsrc_von_mises(hydro) == 0);
}

/* A runtime asked for gravity on GFs without body rows: EP_EINPUT. */
static void gravity_needs_rows(void **st)
{
    (void)st;
    ep_gfsrc g;
    ep_cma cm;
    double beta[3] = {0, 0, -9.81};
    assert_int_equal(ep_gfsrc_open(&g, scratch("gravity.h5")), EP_OK);
    g.body = NULL;
    assert_int_equal(ep_cma_init(&cm, &g), EP_OK);
    expect_error(ep_cma_gravity(&cm, beta), EP_EINPUT, "no body-force rows", NULL);
    assert_null(cm.gv);
    ep_cma_free(&cm);
    ep_gfsrc_close(&g);
}

EP_TEST_MAIN("gravity", cmocka_unit_test(hanging_bar), cmocka_unit_test(bem_interior_body), cmocka_unit_test(contact_under_gravity),
             cmocka_unit_test(gravity_needs_rows), cmocka_unit_test(von_mises))
