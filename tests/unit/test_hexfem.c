/*
 * test_hexfem.c — the numerics of hex meshes: the assembled patch test (an
 * affine displacement gives zero interior forces, linear and St.
 * Venant-Kirchhoff, on distorted hexes), a hex's energy tensors
 * (hexenergy.h) against the Green strain integrated, assembled element
 * matrices against hex.h's, the surface mass of the bilinear quads, the
 * tangent and Hessian products against differences of the force, the cubic
 * polynomials against the direct projection U^T f(U q) (boxes of one size
 * sharing their tensors, distorted hexes each with its own), and a voxel
 * cantilever whose lowest frequency converges towards Euler-Bernoulli's
 * and the tet beam's.
 */
#include "helpers.h"

#include <math.h>

#include "cubic.h"
#include "fem.h"
#include "hex.h"
#include "hexenergy.h"
#include "modal.h"
#include "stvk.h"

/* A grid of nx x ny x nz hexes over [0, L] x [0, W] x [0, H]; interior
 * vertices moved by up to jitter of a cell (0: boxes).  Completed (boundary,
 * areas); vertex (i, j, k) is i + (nx+1)(j + (ny+1)k). */
static void hex_grid(ep_mesh *m, int nx, int ny, int nz, double L, double W, double H, double jitter)
{
    ep_mesh_init(m);
    snprintf(m->source, sizeof m->source, "grid");
    m->nv = (nx + 1) * (ny + 1) * (nz + 1);
    m->nh = nx * ny * nz;
    m->vertices = malloc(3 * sizeof(double) * m->nv);
    m->hexes = malloc(8 * sizeof(int) * m->nh);
    for (int k = 0, v = 0; k <= nz; k++)
        for (int j = 0; j <= ny; j++)
            for (int i = 0; i <= nx; i++, v++) {
                int inner = i > 0 && i < nx && j > 0 && j < ny && k > 0 && k < nz;
                double d = inner ? jitter : 0;
                m->vertices[3 * v] = (i + d * sin(7.0 * v)) * L / nx;
                m->vertices[3 * v + 1] = (j + d * cos(5.0 * v)) * W / ny;
                m->vertices[3 * v + 2] = (k + d * sin(3.0 * v + 1)) * H / nz;
            }
    for (int k = 0, e = 0; k < nz; k++)
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++, e++)
                for (int a = 0; a < 8; a++)
                    m->hexes[8 * e + a] = i + (ep_hex_corner[a][0] > 0) +
                                          (nx + 1) * (j + (ep_hex_corner[a][1] > 0) + (ny + 1) * (k + (ep_hex_corner[a][2] > 0)));
    assert_int_equal(ep_mesh_complete(m), EP_OK);
}

/* y = A x for a CHOLMOD matrix stored whole (stype 0). */
static void spmv(const cholmod_sparse *A, const double *x, double *y)
{
    const int *p = A->p, *i = A->i;
    const double *v = A->x;
    memset(y, 0, sizeof(double) * A->nrow);
    for (size_t j = 0; j < A->ncol; j++)
        for (int q = p[j]; q < p[j + 1]; q++)
            y[i[q]] += v[q] * x[j];
}

static int on_boundary(const ep_mesh *m, int v)
{
    for (int j = 0; j < m->nb; j++)
        if (m->boundary[j] == v)
            return 1;
    return 0;
}

/* Affine displacements: K u and the StVK force f(u) (a large one: the
 * stress is constant but not small) vanish at the interior vertices of a
 * distorted mesh (the rules integrate det J grad N_a exactly), and the
 * forces balance. */
static void patch_test(void **s)
{
    (void)s;
    ep_mesh m;
    hex_grid(&m, 3, 3, 3, 1, 1.2, 0.9, 0.2);
    ep_material mat = test_material(3.0, 0.3, 1.0);
    cholmod_common c;
    cholmod_start(&c);
    int *map, n;
    assert_int_equal(ep_fem_dofmap(&m, NULL, &map, &n), EP_OK);
    assert_int_equal(n, 3 * m.nv);
    cholmod_sparse *K = ep_fem_assemble(&m, &mat, EP_FEM_STIFFNESS, map, n, map, n, 0, &c);
    assert_non_null(K);
    double *u = malloc(sizeof(double) * n), *f = malloc(sizeof(double) * n), *g = malloc(sizeof(double) * n);
    const double A[3][3] = {{0.2, 0.1, -0.3}, {0.15, -0.1, 0.05}, {0.2, 0.1, 0.3}};
    for (int v = 0; v < m.nv; v++)
        for (int i = 0; i < 3; i++)
            u[3 * v + i] = 0.1 * (i == 2) + A[i][0] * m.vertices[3 * v] + A[i][1] * m.vertices[3 * v + 1] +
                           A[i][2] * m.vertices[3 * v + 2];
    spmv(K, u, f);
    ep_stvk sv;
    assert_int_equal(ep_stvk_init(&sv, &m, &mat), EP_OK);
    assert_int_equal(ep_stvk_force(&sv, u, g), EP_OK);
    double fmax_ = maxabs(f, n), gmax = maxabs(g, n), fint = 0, gint = 0, tf[3] = {0}, tg[3] = {0};
    int ninner = 0;
    for (int v = 0; v < m.nv; v++) {
        for (int i = 0; i < 3; i++)
            tf[i] += f[3 * v + i], tg[i] += g[3 * v + i];
        if (on_boundary(&m, v))
            continue;
        ninner++;
        for (int i = 0; i < 3; i++)
            fint = fmax(fint, fabs(f[3 * v + i])), gint = fmax(gint, fabs(g[3 * v + i]));
    }
    assert_int_equal(ninner, 8);
    assert_true(fmax_ > 1e-2 && gmax > 1e-2);
    assert_true(fint < 1e-13 * fmax_);
    assert_true(gint < 1e-13 * gmax);
    for (int i = 0; i < 3; i++)
        assert_true(fabs(tf[i]) < 1e-13 * fmax_ && fabs(tg[i]) < 1e-13 * gmax);
    ep_stvk_free(&sv);
    cholmod_free_sparse(&K, &c);
    cholmod_finish(&c);
    free(map), free(u), free(f), free(g);
    ep_mesh_free(&m);
}

/* The assembly of m's K, M and lumped M against the sums of each hex's
 * ep_fem_hex_element at its vertices, dense, to 1e-14 of the largest
 * entry; and vertex 0's columns alone the same (on a mesh of eight hexes
 * or more, below an eighth of them: each rule where it is needed, not
 * fem.c's table of rules). */
static void assembly_equals_element_sums(const ep_mesh *m, const ep_material *mat, cholmod_common *c)
{
    double lambda, mu;
    ep_material_lame(mat, 0, &lambda, &mu);
    int *map, n, *one = malloc(sizeof(int) * m->nv);
    ep_fem_dofmap(m, NULL, &map, &n);
    for (int v = 0; v < m->nv; v++)
        one[v] = v == 0 ? 0 : -1;
    double *D = malloc(sizeof(double) * n * n), *e = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n);
    for (int kind = 0; kind < 3; kind++) {
        memset(D, 0, sizeof(double) * n * n);
        for (int t = 0; t < m->nh; t++) {
            double x[8][3], Ae[24][24];
            for (int a = 0; a < 8; a++)
                memcpy(x[a], &m->vertices[3 * m->hexes[8 * t + a]], sizeof x[a]);
            ep_fem_hex_element((ep_fem_kind)kind, x, lambda, mu, ep_material_rho(mat, 0), Ae);
            for (int a = 0; a < 24; a++)
                for (int b = 0; b < 24; b++)
                    D[(size_t)(map[m->hexes[8 * t + a / 3]] + a % 3) * n + map[m->hexes[8 * t + b / 3]] + b % 3] +=
                        Ae[a][b];
        }
        double worst = 0, big = 0;
        for (int part = 0; part < 2; part++) { /* all columns, then vertex 0's */
            int ncol = part ? 3 : n;
            cholmod_sparse *A = ep_fem_assemble(m, mat, (ep_fem_kind)kind, map, n, part ? one : map, ncol, 0, c);
            assert_non_null(A);
            for (int col = 0; col < ncol; col++) {
                memset(e, 0, sizeof(double) * ncol);
                e[col] = 1;
                spmv(A, e, y);
                for (int r = 0; r < n; r++) {
                    double want = D[(size_t)r * n + (part ? map[0] : 0) + col];
                    worst = nan_max(worst, fabs(y[r] - want));
                    big = nan_max(big, fabs(want));
                }
            }
            cholmod_free_sparse(&A, c);
        }
        assert_true(big > 0 && worst <= 1e-14 * big);
    }
    free(D), free(e), free(y), free(map), free(one);
}

/* One unit cube through the assembly: K, M and lumped M equal hex.h's
 * element matrices (which test_hex holds to the closed forms to 1e-12);
 * the surface mass of the bilinear quads sums to the area, its rows to the
 * vertex areas (1/4 of each of a corner's three faces).  Then a distorted
 * grid's (below). */
static void assembled_matrices(void **s)
{
    (void)s;
    ep_mesh m;
    hex_grid(&m, 1, 1, 1, 1, 1, 1, 0);
    ep_material mat = test_material(2.0, 0.25, 3.0);
    cholmod_common c;
    cholmod_start(&c);
    assembly_equals_element_sums(&m, &mat, &c);
    cholmod_sparse *Ms = ep_fem_surface_mass(&m, 0, &c);
    double one[8] = {0}, rows[8], total = 0;
    for (int j = 0; j < m.nb; j++)
        one[j] = 1;
    spmv(Ms, one, rows);
    for (int j = 0; j < m.nb; j++) {
        total += rows[j];
        assert_true(fabs(rows[j] - m.vertex_area[j]) < 1e-15);
        assert_true(fabs(m.vertex_area[j] - 0.75) < 1e-15);
    }
    assert_true(fabs(total - 6) < 1e-14);
    cholmod_free_sparse(&Ms, &c);
    ep_mesh_free(&m);
    /* fem.c keeps each hex's rule once: on a distorted 3 x 2 x 2 grid,
     * where every hex's matrices differ, the element sums again (a rule
     * read for the wrong hex is off by the jitter, 10% of a cell), and
     * vertex 0's columns alone (one hex of twelve), which take each rule
     * where it is needed */
    hex_grid(&m, 3, 2, 2, 1.5, 1, 1, 0.1);
    mat = test_material(2.0, 0.3, 3.0);
    assembly_equals_element_sums(&m, &mat, &c);
    cholmod_finish(&c);
    ep_mesh_free(&m);
}

/* A deterministic field without structure: u_i = scale sin(i * phase). */
static void test_field(double *u, size_t n, double scale, double phase)
{
    for (size_t i = 0; i < n; i++)
        u[i] = scale * sin((double)(i + 1) * phase);
}

/* The even part's polarization f2(a + b) - f2(a) - f2(b) of the force,
 * f2(u) = (f(u) + f(-u)) / 2, into out (workspace w, fp, fm [n]). */
static void force_polarization(const ep_stvk *sv, const double *a, const double *b, size_t n, double *w, double *fp,
                               double *fm, double *out)
{
    const double sign[3] = {1, -1, -1};
    memset(out, 0, n * sizeof *out);
    for (int c = 0; c < 3; c++) {
        for (size_t i = 0; i < n; i++)
            w[i] = c == 0 ? a[i] + b[i] : c == 1 ? a[i] : b[i];
        ep_stvk_force(sv, w, fp);
        for (size_t i = 0; i < n; i++)
            w[i] = -w[i];
        ep_stvk_force(sv, w, fm);
        for (size_t i = 0; i < n; i++)
            out[i] += sign[c] * 0.5 * (fp[i] + fm[i]);
    }
}

/* The tangent against central differences of the force (f is cubic in u,
 * so the difference (f(u + t v) - f(u - t v)) / 2t has error t^2 f3[v,v,v]
 * alone), and the Hessian product against the even part of the force
 * (d2f[a, b] = f2(a + b) - f2(a) - f2(b), f2(u) = (f(u) + f(-u)) / 2). */
static void tangent_hessian(void **s)
{
    (void)s;
    ep_mesh m;
    hex_grid(&m, 3, 2, 2, 1, 0.6, 0.5, 0.15);
    ep_material mat = test_material(1e4, 0.4, 1.0);
    ep_stvk sv;
    assert_int_equal(ep_stvk_init(&sv, &m, &mat), EP_OK);
    size_t n = 3 * (size_t)m.nv;
    double *u = malloc(n * sizeof *u), *v = malloc(n * sizeof *v), *w = malloc(n * sizeof *w),
           *kv = malloc(n * sizeof *kv), *fp = malloc(n * sizeof *fp), *fm = malloc(n * sizeof *fm);
    test_field(u, n, 0.05, 0.7);
    test_field(v, n, 0.05, 1.3);
    assert_int_equal(ep_stvk_tangent(&sv, u, v, kv), EP_OK);
    const double t = 1e-3;
    for (size_t i = 0; i < n; i++)
        w[i] = u[i] + t * v[i];
    ep_stvk_force(&sv, w, fp);
    for (size_t i = 0; i < n; i++)
        w[i] = u[i] - t * v[i];
    ep_stvk_force(&sv, w, fm);
    for (size_t i = 0; i < n; i++)
        fp[i] = (fp[i] - fm[i]) / (2 * t) - kv[i];
    assert_true(maxabs(fp, n) < 1e-5 * maxabs(kv, n));

    double *ab = malloc(2 * n * sizeof *ab), *h = malloc(n * sizeof *h), *f2 = malloc(n * sizeof *f2);
    memcpy(ab, u, n * sizeof *u);
    memcpy(ab + n, v, n * sizeof *v);
    int pair[2] = {0, 1};
    /* the 2-point rule is exact at u = 0 on parallelepipeds only: on the
     * distorted hexes the two rules differ by quadrature error, on boxes
     * (the second mesh, the same vertex count) by rounding */
    const double tol[2] = {5e-2, 1e-10};
    for (int t2 = 0; t2 < 2; t2++) {
        if (t2) {
            ep_stvk_free(&sv);
            ep_mesh_free(&m);
            hex_grid(&m, 3, 2, 2, 1, 0.6, 0.5, 0);
            assert_int_equal(ep_stvk_init(&sv, &m, &mat), EP_OK);
        }
        assert_int_equal(ep_stvk_hessian_pairs(&sv, ab, 2, pair, 1, h), EP_OK);
        force_polarization(&sv, u, v, n, w, fp, fm, f2);
        for (size_t i = 0; i < n; i++)
            f2[i] -= h[i];
        assert_true(maxabs(f2, n) < tol[t2] * maxabs(h, n));
    }
    ep_stvk_free(&sv);
    ep_mesh_free(&m);
    free(u), free(v), free(w), free(kv), free(fp), free(fm), free(ab), free(h), free(f2);
}

/* polycoef's polynomials of m under mat with r = 4 fields equal the direct
 * projection R(q) = U^T f(U q) to 1e-10 at three scales of q, and the
 * lambda and mu parts add up; what names the mesh in a failure. */
static void projection_holds(const ep_mesh *m, const ep_material *mat, const char *what)
{
    enum { r = 4 };
    size_t n = 3 * (size_t)m->nv;
    double *U = malloc(r * n * sizeof *U), *u = malloc(n * sizeof *u), *f = malloc(n * sizeof *f);
    test_field(U, r * n, 0.1, 0.37);
    ep_cubic tot, lam, mu;
    assert_int_equal(ep_cubic_compute(&tot, &lam, &mu, m, mat, U, r), EP_OK);
    ep_stvk sv;
    assert_int_equal(ep_stvk_init(&sv, m, mat), EP_OK);
    long nw = ep_cubic_npairs(r) + ep_cubic_ntriples(r);
    double *wk = malloc(nw * sizeof *wk), R[r], Rl[r], Rm[r], D[r];
    for (int trial = 0; trial < 3; trial++) {
        double q[r];
        test_field(q, r, 0.5 + trial, 1.1 + trial);
        for (size_t i = 0; i < n; i++) {
            u[i] = 0;
            for (int j = 0; j < r; j++)
                u[i] += U[j * n + i] * q[j];
        }
        ep_stvk_force(&sv, u, f);
        double scale = 0, err = 0, split = 0;
        for (int j = 0; j < r; j++) {
            D[j] = 0;
            for (size_t i = 0; i < n; i++)
                D[j] += U[j * n + i] * f[i];
            scale = fmax(scale, fabs(D[j]));
        }
        ep_cubic_force(&tot, q, R, wk);
        ep_cubic_force(&lam, q, Rl, wk);
        ep_cubic_force(&mu, q, Rm, wk);
        for (int j = 0; j < r; j++)
            err = fmax(err, fabs(R[j] - D[j])), split = fmax(split, fabs(Rl[j] + Rm[j] - R[j]));
        assert_true(scale > 1);
        if (err > 1e-10 * scale)
            fail_msg("%s, q scale %d: |R - U^T f(Uq)| = %.3g of %.3g", what, trial, err, scale);
        assert_true(split < 1e-10 * scale);
    }
    ep_cubic_free(&tot), ep_cubic_free(&lam), ep_cubic_free(&mu);
    ep_stvk_free(&sv);
    free(U), free(u), free(f), free(wk);
}

/* polycoef's polynomials on hexes equal the direct projection
 * R(q) = U^T f(U q) to 1e-10, on voxels of one size and on distorted
 * hexes, both from the force's 27 Gauss points, with a heterogeneous
 * material (it changes every element: the kept tensors are energy_tensors'
 * test); the lambda and mu parts add up. */
static void cubic_projection(void **s)
{
    (void)s;
    const double jitter[2] = {0, 0.2};
    for (int t = 0; t < 2; t++) {
        ep_mesh m;
        hex_grid(&m, 3, 2, 2, 1, 0.5, 0.4, jitter[t]);
        int ne = m.nh;
        double *E = malloc(ne * sizeof *E), *nu = malloc(ne * sizeof *nu), *rho = malloc(ne * sizeof *rho);
        for (int e = 0; e < ne; e++)
            E[e] = 1e4 * (1 + e % 3), nu[e] = 0.3 + 0.05 * (e % 2), rho[e] = 1;
        ep_material mat;
        ep_material_init(&mat);
        ep_material_set_elements(&mat, ne, E, nu, rho);
        projection_holds(&m, &mat, t ? "distorted hexes" : "box hexes");
        ep_material_free(&mat);
        ep_mesh_free(&m);
    }
}

/* The hexes e of m with is_distorted[e] == distorted, on a copy of m's
 * vertices (no boundary: the forces need none). */
static void hex_subset(const ep_mesh *m, int distorted, const char *is_distorted, ep_mesh *out)
{
    ep_mesh_init(out);
    snprintf(out->source, sizeof out->source, "subset");
    out->nv = m->nv;
    out->vertices = malloc(3 * sizeof(double) * m->nv);
    memcpy(out->vertices, m->vertices, 3 * sizeof(double) * m->nv);
    out->hexes = malloc(8 * sizeof(int) * m->nh);
    for (int e = 0; e < m->nh; e++)
        if (is_distorted[e] == distorted)
            memcpy(out->hexes + 8 * out->nh++, m->hexes + 8 * e, 8 * sizeof(int));
}

/* A mesh that mixes boxes with distorted hexes, in turn along its element
 * order (the path where a hex that is not a box clears the kept box
 * tensors and the next box makes them again): polycoef's polynomials equal
 * the direct projection to 1e-10 (projection_holds), and the Hessian
 * products of the whole mesh equal those of its boxes plus those of its
 * distorted hexes to 1e-12 (the products add over elements; a box given
 * stale tensors would not). */
static void mixed_boxes(void **s)
{
    (void)s;
    ep_mesh m, part[2];
    hex_grid(&m, 4, 2, 2, 1, 0.5, 0.4, 0);
    const int v = 1 + 5 * (1 + 3 * 1); /* vertex (1, 1, 1): its 8 hexes are e = i + 4 j + 8 k, i, j, k < 2 */
    m.vertices[3 * v] += 0.03, m.vertices[3 * v + 1] -= 0.02, m.vertices[3 * v + 2] += 0.025;
    char is_distorted[16];
    for (int e = 0; e < m.nh; e++)
        is_distorted[e] = e % 4 < 2;
    ep_material mat = test_material(1e4, 0.35, 1.0);
    projection_holds(&m, &mat, "boxes and distorted hexes in turn");
    size_t n = 3 * (size_t)m.nv;
    double *ab = malloc(2 * n * sizeof *ab), *h = malloc(3 * n * sizeof *h);
    test_field(ab, 2 * n, 0.05, 0.9);
    int pairs[6] = {0, 0, 0, 1, 1, 1};
    double *hp = malloc(3 * 3 * n * sizeof *hp);
    ep_stvk sv;
    assert_int_equal(ep_stvk_init(&sv, &m, &mat), EP_OK);
    assert_int_equal(ep_stvk_hessian_pairs(&sv, ab, 2, pairs, 3, h), EP_OK);
    ep_stvk_free(&sv);
    for (int d = 0; d < 2; d++) {
        hex_subset(&m, d, is_distorted, &part[d]);
        assert_int_equal(part[d].nh, 8);
        assert_int_equal(ep_stvk_init(&sv, &part[d], &mat), EP_OK);
        assert_int_equal(ep_stvk_hessian_pairs(&sv, ab, 2, pairs, 3, hp + d * 3 * n), EP_OK);
        ep_stvk_free(&sv);
        ep_mesh_free(&part[d]);
    }
    double err = 0, scale = maxabs(h, 3 * n);
    for (size_t i = 0; i < 3 * n; i++)
        err = fmax(err, fabs(h[i] - hp[i] - hp[3 * n + i]));
    print_message("|H(mixed) - H(boxes) - H(distorted)| = %.2e of %.2e\n", err, scale);
    assert_true(scale > 0 && err <= 1e-12 * scale);
    free(ab), free(h), free(hp);
    ep_mesh_free(&m);
}

/* The first and second bending frequencies of a cantilever 1 x 0.1 x 0.1
 * (E = rho = 1, nu = 0.3, clamped at x = 0) over their Euler-Bernoulli
 * values beta^2 / (2 pi) sqrt(E I / (rho A)) / L^2, beta = 1.8751, 4.6941.
 * The square section makes each a pair: modes 0, 1 and 2, 3, equal on a
 * symmetric mesh (voxels; pairs set). */
static void cantilever_ratios(ep_mesh *m, int pairs, double ratio[2])
{
    ep_material mat = test_material(1.0, 0.3, 1.0);
    char *fixed = calloc(m->nv, 1);
    for (int v = 0; v < m->nv; v++)
        fixed[v] = m->vertices[3 * v] < 1e-9;
    ep_modal md;
    double lambda[4], *U = malloc(4 * 3 * sizeof(double) * m->nv);
    assert_int_equal(ep_modal_setup(&md, m, &mat, fixed, 0), EP_OK);
    assert_int_equal(ep_modal_eigs(&md, 4, lambda, U), EP_OK);
    ep_modal_free(&md);
    free(U), free(fixed);
    const double beta[2] = {1.8751, 4.6941};
    for (int i = 0; i < 2; i++) {
        double eb = beta[i] * beta[i] / (2 * M_PI) * sqrt(pow(0.1, 4) / 12 / 0.01);
        if (pairs)
            assert_true(fabs(lambda[2 * i + 1] - lambda[2 * i]) < 1e-6 * lambda[2 * i]);
        ratio[i] = sqrt(lambda[2 * i]) / (2 * M_PI) / eb;
    }
}

/* Voxel cantilevers of 1, 2 and 4 cells across: the two lowest bending
 * frequencies fall (trilinear hexes are stiff in bending, so from above)
 * towards Euler-Bernoulli's, the first to within 2%, the second within 5%
 * (at L/h = 10 shear and rotary inertia put the second below it), and
 * nearer the tet beam's (the shipped Gmsh beam of h = 0.025) than they
 * started. */
static void voxel_beam(void **s)
{
    (void)s;
    double r[3][2], rt[2];
    for (int l = 0; l < 3; l++) {
        ep_mesh m;
        int c = 1 << l;
        hex_grid(&m, 10 * c, c, c, 1, 0.1, 0.1, 0);
        cantilever_ratios(&m, 1, r[l]);
        ep_mesh_free(&m);
    }
    ep_mesh tet;
    assert_int_equal(ep_model_read(&tet, "data/beam-h0.025.msh"), EP_OK);
    cantilever_ratios(&tet, 0, rt);
    ep_mesh_free(&tet);
    for (int i = 0; i < 2; i++) {
        printf("    bending frequency %d / Euler-Bernoulli: voxels 1, 2, 4 across: %.4f %.4f %.4f; tets (h 0.025): "
               "%.4f\n", i + 1, r[0][i], r[1][i], r[2][i], rt[i]);
        assert_true(r[0][i] > r[1][i] && r[1][i] > r[2][i]);
        assert_true(fabs(r[2][i] - 1) < (i ? 0.05 : 0.02));
        assert_true(fabs(r[2][i] - rt[i]) < fabs(r[0][i] - rt[i]));
    }
}

/* The StVK energy of one hex at corner displacements u by n^3 Gauss
 * points, from the Green strain itself. */
static double hex_energy(const ep_mesh *m, int e, double lambda, double mu, const double u[24], int n)
{
    double x[8][3], w[64], g[64][8][3], W = 0;
    for (int a = 0; a < 8; a++)
        memcpy(x[a], &m->vertices[3 * m->hexes[8 * e + a]], sizeof x[a]);
    assert_int_equal(ep_hex_rule(x, n, w, g, NULL), EP_OK);
    for (int p = 0; p < n * n * n; p++) {
        double F[3][3], E[3][3], E2 = 0;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                F[i][j] = i == j;
                for (int a = 0; a < 8; a++)
                    F[i][j] += u[3 * a + i] * g[p][a][j];
            }
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                E[i][j] = 0.5 * (F[0][i] * F[0][j] + F[1][i] * F[1][j] + F[2][i] * F[2][j] - (i == j));
                E2 += E[i][j] * E[i][j];
            }
        double tr = E[0][0] + E[1][1] + E[2][2];
        W += w[p] * (mu * E2 + lambda / 2 * tr * tr);
    }
    return W;
}

/* The same from hexenergy.h's tensors: u^T K u + 2 u^T V W + |G W|^2. */
static double tensor_energy(const ep_hexenergy *t, const double u[24])
{
    double Wp[36], GW, E = 0;
    for (int a = 0, p = 0; a < 8; a++)
        for (int b = a; b < 8; b++, p++)
            Wp[p] = u[3 * a] * u[3 * b] + u[3 * a + 1] * u[3 * b + 1] + u[3 * a + 2] * u[3 * b + 2];
    for (int i = 0; i < 24; i++)
        for (int j = 0; j < 24; j++)
            E += u[i] * t->K[24 * i + j] * u[j];
    for (int i = 0; i < 24; i++)
        for (int p = 0; p < 36; p++)
            E += 2 * u[i] * t->V[36 * i + p] * Wp[p];
    for (int r = 0; r < 28; r++) {
        GW = 0;
        for (int p = 0; p < 36; p++)
            GW += t->G[36 * r + p] * Wp[p];
        E += GW * GW;
    }
    return E;
}

/* hexenergy.h: its tensors give the energy of large displacements as the
 * Green strain integrated by the same 27 points does, to 1e-12, on boxes
 * (where the 4 x 4 x 4 rule agrees: exact) and on distorted hexes (where it
 * does not); the lambda and mu parts add up; by the 2 x 2 x 2 rule 2 K is
 * the element stiffness (the same rule), and K and V are those of the
 * 3 x 3 x 3 rule on a box; boxes of another size are not served the kept
 * tensors. */
static void energy_tensors(void **s)
{
    (void)s;
    const double lambda = 2.3, mu = 0.8;
    ep_material mat = test_material(mu * (3 * lambda + 2 * mu) / (lambda + mu), lambda / (2 * (lambda + mu)), 1);
    for (int t = 0; t < 2; t++) {
        ep_mesh m;
        if (t == 0)
            hex_grid(&m, 2, 1, 1, 1.4, 0.5, 0.6, 0); /* two boxes 0.7 x 0.5 x 0.6 */
        else
            hex_grid(&m, 2, 2, 2, 1, 1, 1, 0.3); /* the centre vertex moved: 8 distorted hexes */
        ep_hexenergy h, hl, hm, h2;
        ep_hexenergy_init(&h), ep_hexenergy_init(&hl), ep_hexenergy_init(&hm), ep_hexenergy_init(&h2);
        for (int e = 0; e < m.nh; e++) {
            double u[24], x[8][3], Ks[24][24];
            test_field(u, 24, 0.3, 0.7 + e);
            assert_int_equal(ep_hexenergy_of(&h, &m, &mat, e, 0, 3), EP_OK);
            assert_int_equal(ep_hexenergy_of(&hl, &m, &mat, e, 1, 3), EP_OK);
            assert_int_equal(ep_hexenergy_of(&hm, &m, &mat, e, 2, 3), EP_OK);
            double ref = hex_energy(&m, e, lambda, mu, u, 3), four = hex_energy(&m, e, lambda, mu, u, 4);
            double te = tensor_energy(&h, u), split = tensor_energy(&hl, u) + tensor_energy(&hm, u);
            if (!(fabs(te - ref) <= 1e-12 * ref))
                fail_msg("hex %d (%s): tensors %.15g, Gauss points %.15g", e, t ? "distorted" : "box", te, ref);
            assert_true(fabs(split - te) <= 1e-12 * ref);
            if (t == 0)
                assert_true(fabs(four - ref) <= 1e-12 * ref);
            else
                assert_true(fabs(four - ref) > 1e-9 * ref);
            for (int a = 0; a < 8; a++)
                memcpy(x[a], &m.vertices[3 * m.hexes[8 * e + a]], sizeof x[a]);
            ep_fem_hex_element(EP_FEM_STIFFNESS, x, lambda, mu, 1, Ks); /* 2 x 2 x 2 points */
            assert_int_equal(ep_hexenergy_of(&h2, &m, &mat, e, 0, 2), EP_OK);
            double dk = 0, sk = 0;
            for (int i = 0; i < 24 * 24; i++)
                dk = fmax(dk, fabs(2 * h2.K[i] - Ks[i / 24][i % 24])), sk = fmax(sk, fabs(Ks[i / 24][i % 24]));
            assert_true(dk <= 1e-12 * sk);
            for (int i = 0; i < 24 * 24 && t == 0; i++)
                assert_true(fabs(h2.K[i] - h.K[i]) <= 1e-12 * sk);
            for (int i = 0; i < 24 * 36 && t == 0; i++)
                assert_true(fabs(h2.V[i] - h.V[i]) <= 1e-12 * sk);
        }
        if (t == 0) { /* a box twice as long next: computed anew, not the kept one */
            long made = h.made;
            for (int v = 0; v < m.nv; v++)
                m.vertices[3 * v] *= 2;
            assert_int_equal(ep_hexenergy_of(&h, &m, &mat, 0, 0, 3), EP_OK);
            assert_int_equal(h.made, made + 1);
            assert_int_equal(ep_hexenergy_of(&h, &m, &mat, 1, 0, 3), EP_OK);
            assert_int_equal(h.made, made + 1);
        }
        ep_mesh_free(&m);
    }
}

EP_TEST_MAIN("hexfem", cmocka_unit_test(patch_test), cmocka_unit_test(assembled_matrices),
             cmocka_unit_test(tangent_hessian), cmocka_unit_test(cubic_projection), cmocka_unit_test(voxel_beam),
             cmocka_unit_test(energy_tensors), cmocka_unit_test(mixed_boxes))
