/*
 * test_pscontact.c — pointshell / distance-field contact (pscontact.h):
 * the traversal equals brute force over the levels it reached (with and
 * without a node budget), forces and torques are the gradients of the
 * penalty energy and the derivatives those of the forces (central
 * differences; normals set to the field's gradient, where the multiplane
 * model is exact), the reduced force is U^T of the full-space force to
 * 1e-12, the flat-plate force converges under refinement (001 §3.5.1),
 * and the rigid case r = 0; the file round trip (pointshell_file.h); a
 * pointshell bound to hexes.
 */
#include "helpers.h"

#include "embed.h"
#include "h5.h"
#include "hex.h"
#include "pointshell.h"
#include "pointshell_file.h"
#include "pscontact.h"
#include "sort.h"
#include "tet.h"
#include "vec3.h"

/* A field of the half-space z > z0 + tx x (inside negative): d = (z0 + tx x
 * - z) / sqrt(1 + tx^2), exact at the grid points of [-1, 2]^3. */
static void plane_field(ep_sdf *s, double z0, double tx)
{
    memset(s, 0, sizeof *s);
    s->n = 48;
    s->h = 3.0 / s->n;
    s->inv_h = 1 / s->h;
    s->origin[0] = s->origin[1] = s->origin[2] = -1;
    long m = s->n + 1;
    s->value = malloc(sizeof *s->value * (size_t)(m * m * m));
    s->d_boundary = -INFINITY;
    for (long k = 0; k < m; k++)
        for (long j = 0; j < m; j++)
            for (long i = 0; i < m; i++) {
                double x = -1 + i * s->h, z = -1 + k * s->h;
                s->value[i + m * (j + m * k)] = (float)((z0 + tx * x - z) / sqrt(1 + tx * tx));
            }
    s->d_boundary = -3; /* no query leaves the box here */
}

/* The unit cube's surface, 3 levels, bound to its tets with r random
 * smooth fields (a quadratic each), into ps. */
static double *cube_points(ep_pointshell *ps_, ep_mesh *m, int r, int levels, int first)
{
    ep_pointshell ps;
    assert_int_equal(ep_model_read(m, "data/cube.msh"), EP_OK);
    ep_pointshell_opts o = {.levels = levels, .first = first, .iterations = 20, .seed = 5, .threads = 2};
    assert_int_equal(ep_pointshell_sample(&ps, m, &o), EP_OK);
    assert_int_equal(ep_pointshell_tree(&ps), EP_OK);
    double *U = NULL;
    if (r) {
        ep_rng g = ep_rng_seed(9, 1);
        U = malloc(sizeof *U * (size_t)r * 3 * m->nv);
        for (int j = 0; j < r; j++) {
            double a[3][3];
            for (int i = 0; i < 9; i++)
                a[i / 3][i % 3] = ep_rng_uniform(&g) - 0.5;
            for (int v = 0; v < m->nv; v++) {
                const double *x = &m->vertices[3 * v];
                for (int i = 0; i < 3; i++)
                    U[(size_t)j * 3 * m->nv + 3 * v + i] = a[i][0] * x[0] * x[1] + a[i][1] * x[2] * x[2] + a[i][2] * x[0];
            }
        }
        assert_int_equal(ep_pointshell_bind(&ps, m, U, r, ep_mesh_diameter(m)), EP_OK);
    }
    *ps_ = ps;
    return U;
}

/* cube_points adopted by c. */
static double *cube_shell(ep_pscontact *c, ep_mesh *m, int r, int levels, int first)
{
    ep_pointshell ps;
    double *U = cube_points(&ps, m, r, levels, first);
    assert_int_equal(ep_pscontact_adopt(c, &ps), EP_OK);
    return U;
}

static void pose_random(ep_pscontact_pose *p, ep_rng *g, double amount)
{
    ep_pscontact_pose_identity(p);
    double w[3], th;
    for (int i = 0; i < 3; i++)
        w[i] = ep_rng_uniform(g) - 0.5;
    th = amount * ep_vec3_norm(w);
    double n[3] = {w[0] / ep_vec3_norm(w), w[1] / ep_vec3_norm(w), w[2] / ep_vec3_norm(w)}, cs = cos(th), sn = sin(th);
    for (int a = 0; a < 3; a++) /* Rodrigues */
        for (int b = 0; b < 3; b++) {
            double k = a == b ? 0 : (a + 1) % 3 == b ? -n[3 - a - b] : n[3 - a - b];
            p->Rf[3 * a + b] = (a == b) * cs + sn * k + (1 - cs) * n[a] * n[b];
        }
    for (int i = 0; i < 3; i++)
        p->tf[i] = amount * (ep_rng_uniform(g) - 0.5);
    p->xc[0] = p->xc[1] = p->xc[2] = 0.5;
}

/* A contact scene as a fixture (helpers.h): the cube's pointshell with
 * r fields (cube_shell) and, unless z0 is NaN, the plane field z0, tx
 * (plane_field); the test's prestate is its scene_opts, and it reads
 * scene *x = *state. */
typedef struct {
    int r, levels, first;
    double z0, tx;
} scene_opts;

typedef struct {
    ep_pscontact c;
    ep_mesh m;
    ep_sdf s;
    double *U;
} scene;

static void scene_open(scene *x, void *opts)
{
    const scene_opts *o = opts;
    x->U = cube_shell(&x->c, &x->m, o->r, o->levels, o->first);
    memset(&x->s, 0, sizeof x->s);
    if (!isnan(o->z0))
        plane_field(&x->s, o->z0, o->tx);
}

static void scene_close(scene *x)
{
    free(x->U);
    ep_sdf_free(&x->s);
    ep_pscontact_free(&x->c);
    ep_mesh_free(&x->m);
}

EP_FIXTURE(scene, scene, scene_open, scene_close)
/* Test f on the scene f_scene (a scene_opts). */
#define SCENE_TEST(f) EP_FIXTURE_TEST(f, scene, &f##_scene)

static const scene_opts test_traversal_brute_scene = {3, 3, 12, 0.9, 0.1};
/* Traversal = brute force to the depth it reached, exactly (same contact
 * set, same order of sums); under a budget the depth shrinks. */
static void test_traversal_brute(void **state)
{
    scene *x = *state;
    int r = x->c.ps.r;
    double q[3], g1[3], g2[3];
    ep_rng g = ep_rng_seed(1, 2);
    long visited = 0, all = 0;
    for (int trial = 0; trial < 50; trial++) {
        ep_pscontact_pose p;
        pose_random(&p, &g, 0.2);
        for (int j = 0; j < r; j++)
            q[j] = 0.05 * (ep_rng_uniform(&g) - 0.5);
        ep_pscontact_out a = {.g = g1}, b = {.g = g2};
        x->c.warm = trial % 2 ? 0 : 40;
        assert_int_equal(ep_pscontact_cycle(&x->c, &x->s, q, &p, &a), EP_OK);
        assert_int_equal(ep_pscontact_brute(&x->c, &x->s, q, &p, a.depth, &b), EP_OK);
        assert_int_equal(a.contacts, b.contacts);
        for (int i = 0; i < 3; i++) {
            assert_true(a.F[i] == b.F[i]);
            assert_true(a.T[i] == b.T[i]);
        }
        for (int j = 0; j < r; j++)
            assert_true(g1[j] == g2[j]);
        if (!x->c.warm) {
            assert_int_equal(a.depth, 3);
            visited += a.traversed;
            all += x->c.ps.nn;
        }
    }
    assert_true(visited < all); /* the tree culled something */
}

/* The cycle's answer (the four-point path where the CPU has AVX2, on
 * tets) against the scalar functions: every point of levels 1..3 moved by
 * ep_pscontact_point, looked up by ep_sdf_value, its normal by
 * ep_pscontact_normal.  The contact sets agree (but for points within
 * 1e-12 of the surface) and F, T to 1e-12 of the sum of |f_s|, T's terms
 * taken about x_c.  Every other pose pushes part of the cube past the
 * field box's face x = 2, so that fours mix points inside the box and
 * outside (eq. 3.14's bound, with the fixture's d_boundary = -3). */
static void scalar_path(scene *x)
{
    int r = x->c.ps.r, N = x->c.ps.level_start[3], outside = 0, contacts = 0;
    double q[3] = {0.02, -0.01, 0.015}, g1[3];
    ep_rng g = ep_rng_seed(6, 1);
    char *in = malloc((size_t)N);
    x->c.lc = 0;
    for (int trial = 0; trial < 6; trial++) {
        ep_pscontact_pose p;
        pose_random(&p, &g, 0.2);
        if (trial % 2)
            p.tf[0] = -1.4;
        ep_pscontact_out a = {.g = r ? g1 : NULL};
        assert_int_equal(ep_pscontact_brute(&x->c, &x->s, q, &p, 3, &a), EP_OK);
        memset(in, 0, (size_t)N);
        for (int e = 0; e < a.contacts; e++)
            in[x->c.contact[e]] = 1;
        double F[3] = {0, 0, 0}, T[3] = {0, 0, 0}, size = 0;
        for (int s = 0; s < N; s++) {
            double xw[3], y[3], z[3], w[3], n[3];
            ep_pscontact_point(&x->c, s, q, &p, xw);
            for (int i = 0; i < 3; i++)
                z[i] = xw[i] - p.tf[i];
            for (int i = 0; i < 3; i++)
                y[i] = p.Rf[i] * z[0] + p.Rf[3 + i] * z[1] + p.Rf[6 + i] * z[2];
            double d = ep_sdf_value(&x->s, y);
            outside += ep_sdf_voxel(&x->s, y, w) < 0;
            if (!in[s]) {
                assert_true(d > -1e-12);
                continue;
            }
            assert_true(d < 1e-12);
            ep_pscontact_normal(&x->c, s, q, n);
            double f[3], c[3];
            for (int i = 0; i < 3; i++)
                f[i] = -x->c.kc * d * (p.Rp[3 * i] * n[0] + p.Rp[3 * i + 1] * n[1] + p.Rp[3 * i + 2] * n[2]);
            for (int i = 0; i < 3; i++)
                c[i] = xw[i] - p.xc[i];
            for (int i = 0; i < 3; i++) {
                F[i] += f[i];
                T[i] += c[(i + 1) % 3] * f[(i + 2) % 3] - c[(i + 2) % 3] * f[(i + 1) % 3];
            }
            size += ep_vec3_norm(f) * (1 + ep_vec3_norm(c));
        }
        contacts += a.contacts;
        for (int i = 0; i < 3; i++) {
            assert_true(fabs(F[i] - a.F[i]) <= 1e-12 * size);
            assert_true(fabs(T[i] - a.T[i]) <= 1e-12 * size);
        }
    }
    assert_true(contacts > 0 && outside > 0);
    free(in);
}

static const scene_opts test_scalar_path_scene = {3, 3, 12, 0.9, 0.1};
static void test_scalar_path(void **state)
{
    scalar_path(*state);
}

static const scene_opts test_scalar_path_rigid_scene = {0, 3, 12, 0.9, 0.1};
static void test_scalar_path_rigid(void **state)
{
    scalar_path(*state);
}

static const scene_opts test_coherence_scene = {3, 3, 12, 0.95, 0.1};
/* Temporal coherence: the field slides by a known step a cycle (vmax the
 * step), the deformation frozen; every cycle equals brute force, and the
 * cycles skip nodes, visiting fewer than without coherence. */
static void test_coherence(void **state)
{
    scene *x = *state;
    double q[3] = {0.01, -0.01, 0.02}, g1[3], g2[3], step = 0.002;
    long with = 0, without = 0, skipped = 0;
    for (int pass = 0; pass < 2; pass++) {
        x->c.vmax = pass ? step : 0;
        for (int k = 0; k < 100; k++) {
            ep_pscontact_pose p;
            ep_pscontact_pose_identity(&p);
            p.tf[0] = -0.1 + step * k / sqrt(1.25), p.tf[2] = -0.02 + 0.5 * step * k / sqrt(1.25); /* step a cycle */
            ep_pscontact_out a = {.g = g1}, b = {.g = g2};
            assert_int_equal(ep_pscontact_cycle(&x->c, &x->s, q, &p, &a), EP_OK);
            assert_int_equal(ep_pscontact_brute(&x->c, &x->s, q, &p, 3, &b), EP_OK);
            assert_int_equal(a.contacts, b.contacts);
            for (int i = 0; i < 3; i++)
                assert_true(a.F[i] == b.F[i] && a.T[i] == b.T[i] && g1[i] == g2[i]);
            *(pass ? &with : &without) += a.traversed;
            skipped += a.skipped;
        }
    }
    print_message("nodes visited: %ld without coherence, %ld with (%ld skipped)\n", without, with, skipped);
    assert_true(skipped > 0 && with < without);
}

static const scene_opts test_gradients_scene = {3, 2, 24, 0.93, 0};
/* Normals = grad d (the multiplane model is then exact): F = dE/dt_f,
 * T = dE/dw_f, g = -dE/dq, and the derivatives by central differences. */
static void test_gradients(void **state)
{
    scene *x = *state;
    int r = x->c.ps.r;
    double q[3] = {0.01, -0.02, 0.015}, g0[3], dgq[9], dgt[9];
    for (int i = 0; i < x->c.ps.S; i++) { /* grad d = (0, 0, -1), in the runtime's point lines too */
        x->c.ps.N[3 * i] = x->c.ps.N[3 * i + 1] = 0, x->c.ps.N[3 * i + 2] = -1;
        x->c.pt[16 * (size_t)i + 6].f = x->c.pt[16 * (size_t)i + 7].f = 0, x->c.pt[16 * (size_t)i + 8].f = -1;
    }
    for (int e = 0; e < x->c.ps.nbe; e++) /* the runtime's gradients: its normals are N_s */
        for (int i = 0; i < 3 * x->c.ps.k; i++)
            x->c.rec[(size_t)4 * x->c.ps.k * e + x->c.ps.k + i].f = 0;
    x->c.kc = 7;
    ep_pscontact_pose p;
    ep_pscontact_pose_identity(&p);
    p.xc[0] = 0.3, p.xc[1] = 0.6, p.xc[2] = 0.2;
    ep_pscontact_out o = {.g = g0, .derivatives = 1, .dg_dq = dgq, .dg_dt = dgt};
    assert_int_equal(ep_pscontact_brute(&x->c, &x->s, q, &p, 2, &o), EP_OK);
    assert_true(o.contacts > 10); /* so the L / l scaling is on */
    double h = 1e-6, tol = 1e-6 * (fabs(o.F[2]) + 1);
    for (int a = 0; a < 3; a++) {
        ep_pscontact_pose pp = p, pm = p;
        pp.tf[a] += h, pm.tf[a] -= h;
        double Ep = ep_pscontact_energy(&x->c, &x->s, q, &pp, 2), Em = ep_pscontact_energy(&x->c, &x->s, q, &pm, 2);
        assert_true(fabs((Ep - Em) / (2 * h) - o.F[a]) < tol);
        ep_pscontact_out op = {0}, om = {0};
        ep_pscontact_brute(&x->c, &x->s, q, &pp, 2, &op);
        ep_pscontact_brute(&x->c, &x->s, q, &pm, 2, &om);
        for (int i = 0; i < 3; i++) {
            assert_true(fabs((op.F[i] - om.F[i]) / (2 * h) - o.dF_dt[3 * i + a]) < 1e-4 * x->c.kc);
            assert_true(fabs((op.T[i] - om.T[i]) / (2 * h) - o.dT_dt[3 * i + a]) < 1e-4 * x->c.kc);
        }
        /* a rotation of the field about x_c by h about axis a */
        double R[9];
        for (int sg = -1; sg <= 1; sg += 2) {
            double cs = cos(h), sn = sg * sin(h);
            memset(R, 0, sizeof R);
            int b = (a + 1) % 3, d = (a + 2) % 3;
            R[3 * a + a] = 1, R[3 * b + b] = cs, R[3 * d + d] = cs, R[3 * b + d] = -sn, R[3 * d + b] = sn;
            ep_pscontact_pose *t = sg > 0 ? &pp : &pm;
            *t = p;
            for (int i = 0; i < 3; i++) {
                double z[3] = {p.tf[0] - p.xc[0], p.tf[1] - p.xc[1], p.tf[2] - p.xc[2]};
                t->tf[i] = R[3 * i] * z[0] + R[3 * i + 1] * z[1] + R[3 * i + 2] * z[2] + p.xc[i];
                for (int k = 0; k < 3; k++)
                    t->Rf[3 * i + k] = R[3 * i] * p.Rf[k] + R[3 * i + 1] * p.Rf[3 + k] + R[3 * i + 2] * p.Rf[6 + k];
            }
        }
        Ep = ep_pscontact_energy(&x->c, &x->s, q, &pp, 2), Em = ep_pscontact_energy(&x->c, &x->s, q, &pm, 2);
        assert_true(fabs((Ep - Em) / (2 * h) - o.T[a]) < tol);
        ep_pscontact_brute(&x->c, &x->s, q, &pp, 2, &op);
        ep_pscontact_brute(&x->c, &x->s, q, &pm, 2, &om);
        for (int i = 0; i < 3; i++) {
            assert_true(fabs((op.F[i] - om.F[i]) / (2 * h) - o.dF_dw[3 * i + a]) < 1e-4 * x->c.kc);
            assert_true(fabs((op.T[i] - om.T[i]) / (2 * h) - o.dT_dw[3 * i + a]) < 1e-4 * x->c.kc);
        }
    }
    for (int j = 0; j < r; j++) { /* g = -dE/dq; dg/dq */
        double qp[3], qm[3], gp[3], gm[3];
        memcpy(qp, q, sizeof qp), memcpy(qm, q, sizeof qm);
        qp[j] += h, qm[j] -= h;
        double Ep = ep_pscontact_energy(&x->c, &x->s, qp, &p, 2), Em = ep_pscontact_energy(&x->c, &x->s, qm, &p, 2);
        assert_true(fabs(-(Ep - Em) / (2 * h) - g0[j]) < tol);
        ep_pscontact_out op = {.g = gp}, om = {.g = gm};
        ep_pscontact_brute(&x->c, &x->s, qp, &p, 2, &op);
        ep_pscontact_brute(&x->c, &x->s, qm, &p, 2, &om);
        for (int i = 0; i < r; i++)
            assert_true(fabs((gp[i] - gm[i]) / (2 * h) - dgq[i * r + j]) < 1e-4 * x->c.kc);
    }
}

/* The deformed normal of point s (in the adopted numbering) at q from the
 * double basis and the mesh: F = I + G, G = sum_c u_c grad phi_c^T over
 * the tet the binding chose (its mesh vertices), n = cof(F) N = det(F)
 * F^-T N (unnormalized), by the inverse (not the runtime's cross
 * products). */
static void nanson_normal(const scene *sc, int s, const double *q, double n[3])
{
    const ep_pointshell *ps = &sc->c.ps;
    int r = ps->r, nv = sc->m.nv, t[4];
    double x[4][3], gr[4][3], vol, F[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (int c = 0; c < 4; c++)
        t[c] = ps->bvert[ps->corner[4 * (size_t)ps->belem[s] + c]];
    for (int c = 0; c < 4; c++)
        memcpy(x[c], &sc->m.vertices[3 * (size_t)t[c]], sizeof x[c]);
    ep_tet_gradients((const double(*)[3])x, &vol, gr);
    for (int c = 0; c < 4; c++)
        for (int a = 0; a < 3; a++) {
            double u = 0;
            for (int j = 0; j < r; j++)
                u += sc->U[(size_t)j * 3 * nv + 3 * (size_t)t[c] + a] * q[j];
            for (int m = 0; m < 3; m++)
                F[a][m] += u * gr[c][m];
        }
    double det = F[0][0] * (F[1][1] * F[2][2] - F[1][2] * F[2][1]) - F[0][1] * (F[1][0] * F[2][2] - F[1][2] * F[2][0]) +
                 F[0][2] * (F[1][0] * F[2][1] - F[1][1] * F[2][0]),
           Fi[3][3];
    for (int a = 0; a < 3; a++) /* F^-1 by cofactors, then n = det F^-T N */
        for (int b = 0; b < 3; b++) {
            int a1 = (a + 1) % 3, a2 = (a + 2) % 3, b1 = (b + 1) % 3, b2 = (b + 2) % 3;
            Fi[b][a] = (F[a1][b1] * F[a2][b2] - F[a1][b2] * F[a2][b1]) / det;
        }
    const double *N = &ps->N[3 * (size_t)s];
    for (int m = 0; m < 3; m++)
        n[m] = det * (Fi[0][m] * N[0] + Fi[1][m] * N[1] + Fi[2][m] * N[2]);
}

static const scene_opts test_reduced_force_scene = {4, 2, 24, 0.9, 0.2};
/* g = U^T f_full: the point forces spread to the simulation vertices by
 * the embedding's weights, then projected by the basis.  The runtime holds
 * U_v, w_sc and the gradients in single precision (pscontact.h), so g
 * equals it to float rounding (1e-6 of the largest entry: U_v is rounded
 * at 6e-8), and Σ U_s^T f_s over the runtime's own rows and normals
 * (ep_pscontact_modes, ep_pscontact_normal) to 1e-12. */
static void test_reduced_force(void **state)
{
    scene *sc = *state;
    int r = sc->c.ps.r;
    double *U = sc->U, q[4] = {0.02, 0.01, -0.03, 0.02}, g0[4], gf[4] = {0, 0, 0, 0};
    ep_pscontact_pose p;
    ep_rng g = ep_rng_seed(4, 4);
    pose_random(&p, &g, 0.1);
    for (int i = 0; i < 9; i++)
        p.Rp[i] = p.Rf[i]; /* the pointshell object rotated too */
    sc->c.lc = 0;
    ep_pscontact_out o = {.g = g0};
    assert_int_equal(ep_pscontact_brute(&sc->c, &sc->s, q, &p, 2, &o), EP_OK);
    assert_true(o.contacts > 0);
    ep_embed b;
    assert_int_equal(ep_embed_build(&b, sc->m.vertices, sc->m.nv, sc->m.tets, sc->m.ne, 4, sc->c.ps.P, sc->c.ps.S, 1), EP_OK);
    double *ff = calloc(3 * (size_t)sc->m.nv, sizeof *ff), scale = 0;
    for (int e = 0; e < o.contacts; e++) {
        int sp = sc->c.contact[e];
        double x[3], nb[3], n[3], y[3], z[3], nf[3];
        ep_pscontact_point(&sc->c, sp, q, &p, x);
        for (int i = 0; i < 3; i++)
            z[i] = x[i] - p.tf[i];
        for (int i = 0; i < 3; i++)
            y[i] = p.Rf[i] * z[0] + p.Rf[3 + i] * z[1] + p.Rf[6 + i] * z[2];
        double d = ep_sdf_value(&sc->s, y), Us[12];
        ep_pscontact_normal(&sc->c, sp, q, nf);
        nanson_normal(sc, sp, q, nb);
        ep_pscontact_modes(&sc->c, sp, Us);
        double l = ep_vec3_norm(nb), lf = 1;
        for (int i = 0; i < 3; i++)
            assert_true(fabs(nb[i] / l - nf[i]) < 1e-6); /* the runtime's normal, to float rounding */
        for (int i = 0; i < 3; i++)
            n[i] = -sc->c.kc * d * nb[i] / l; /* the body-frame force R_p^T f_s */
        for (int k = 0; k < 4; k++)
            for (int i = 0; i < 3; i++)
                ff[3 * b.col[4 * sp + k] + i] += b.w[4 * sp + k] * n[i];
        for (int j = 0; j < r; j++)
            for (int i = 0; i < 3; i++)
                gf[j] += Us[i * r + j] * -sc->c.kc * d * nf[i] / lf;
    }
    double v[4], big = 0;
    for (int j = 0; j < r; j++) {
        v[j] = 0;
        for (long i = 0; i < 3L * sc->m.nv; i++)
            v[j] += U[(size_t)j * 3 * sc->m.nv + i] * ff[i];
        big = fmax(big, fabs(v[j]));
    }
    for (int j = 0; j < r; j++) {
        scale = fmax(scale, fabs(v[j]));
        assert_true(fabs(v[j] - g0[j]) < 1e-6 * big);
        assert_true(fabs(gf[j] - g0[j]) < 1e-12 * (1 + fabs(gf[j])));
    }
    assert_true(scale > 0);
    free(ff);
    ep_embed_free(&b);
}

/* Flat plate (the cube's top) against a tilted plane: with the L / l
 * scaling the force converges under refinement (001 §3.5.1) to
 * k Lc (the integral of -d n over the contact area) / (the contact area),
 * the limit of a sampling uniform by area, here by a fine midpoint
 * quadrature over the cube's faces (the top and the side bands the plane
 * cuts): from level 3 (63 contacts) the error falls level by level, and
 * level 5 (about 1,000 contacts) is within 5 % (measured 9.8, 7.0, 3.8 %).
 * r = 0 (rigid). */
static void test_plate_refinement(void **state)
{
    (void)state;
    ep_pscontact c;
    ep_mesh m;
    ep_sdf s;
    cube_shell(&c, &m, 0, 5, 16);
    assert_int_equal(c.ps.r, 0);
    double z0 = 0.95, tx = 0.05, ct = 1 / sqrt(1 + tx * tx), F[3] = {0, 0, 0}, area = 0;
    plane_field(&s, z0, tx);
    int n = 1000;
    for (int face = 0; face < 6; face++) { /* axis face / 2 at 0 or 1; inward normal */
        int ax = face / 2, hi = face % 2;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                double x[3], nin[3] = {0, 0, 0};
                x[ax] = hi, x[(ax + 1) % 3] = (i + 0.5) / n, x[(ax + 2) % 3] = (j + 0.5) / n;
                nin[ax] = hi ? -1 : 1;
                double d = (z0 + tx * x[0] - x[2]) * ct;
                if (d < 0) {
                    area += 1;
                    for (int k = 0; k < 3; k++)
                        F[k] += -d * nin[k];
                }
            }
    }
    double limit = c.lc * F[2] / area; /* k = 1 */
    ep_pscontact_pose p;
    ep_pscontact_pose_identity(&p);
    double err = 0, prev = INFINITY;
    for (int l = 2; l <= 5; l++) {
        ep_pscontact_out o = {0};
        assert_int_equal(ep_pscontact_brute(&c, &s, NULL, &p, l, &o), EP_OK);
        assert_true(o.contacts > c.lc);
        err = fabs(o.F[2] - limit) / fabs(limit);
        print_message("level %d: %d contacts, force %.6g, limit %.6g, relative error %.3g\n", l, o.contacts, o.F[2],
                      limit, err);
        if (l > 3) /* level 2's few contacts land near the limit by chance */
            assert_true(err < prev);
        if (l > 2)
            prev = err;
    }
    assert_true(err < 0.05);
    ep_sdf_free(&s);
    ep_pscontact_free(&c);
    ep_mesh_free(&m);
}

static const scene_opts test_file_scene = {2, 3, 12, NAN, 0};
/* The file: written and read back equal (the element records too); a
 * vertex row U_v off the points' U_s and a damaged tree are refused. */
static void test_file(void **state)
{
    scene *x = *state;
    ep_pscontact d;
    const char *path = scratch("ps.h5");
    ep_h5 f;
    assert_int_equal(ep_h5_create(&f, path, "pointshell", "test", ""), EP_OK);
    assert_int_equal(ep_pointshell_file_write(&f, &x->c.ps), EP_OK);
    assert_int_equal(ep_h5_close(&f), EP_OK);
    assert_int_equal(ep_pscontact_open(&d, path), EP_OK);
    assert_int_equal(d.ps.S, x->c.ps.S);
    assert_int_equal(d.ps.nn, x->c.ps.nn);
    assert_int_equal(d.ps.r, 2);
    assert_memory_equal(d.ps.P, x->c.ps.P, sizeof *x->c.ps.P * 3 * x->c.ps.S);
    assert_memory_equal(d.ps.U, x->c.ps.U, sizeof *x->c.ps.U * 3 * 2 * x->c.ps.S);
    assert_memory_equal(d.ps.a, x->c.ps.a, sizeof *x->c.ps.a * 2 * x->c.ps.nn);
    assert_memory_equal(d.ps.R0, x->c.ps.R0, sizeof *x->c.ps.R0 * x->c.ps.nn);
    /* the element records: read back as written, so the runtime's lines are the same */
    assert_int_equal(d.ps.nbv, x->c.ps.nbv);
    assert_int_equal(d.ps.nbe, x->c.ps.nbe);
    assert_memory_equal(d.ps.Uv, x->c.ps.Uv, sizeof *x->c.ps.Uv * 3 * 2 * x->c.ps.nbv);
    assert_memory_equal(d.ps.belem, x->c.ps.belem, sizeof *x->c.ps.belem * x->c.ps.S);
    assert_memory_equal(d.rec, x->c.rec, sizeof *x->c.rec * 16 * x->c.ps.nbe);
    assert_memory_equal(d.pt, x->c.pt, sizeof *x->c.pt * 16 * x->c.ps.S);
    ep_pscontact_free(&d);
    /* adopt drops dN; a write-back makes it again from the records, the
     * same bits as bind's (in the runtime's numbering) */
    {
        ep_pointshell ps, back;
        ep_pscontact e;
        ep_mesh m;
        free(cube_points(&ps, &m, 2, 3, 12));
        size_t n = (size_t)ps.S * 3 * 2;
        double *dN = malloc(n * sizeof *dN);
        memcpy(dN, ps.dN, n * sizeof *dN);
        assert_int_equal(ep_pscontact_adopt(&e, &ps), EP_OK);
        assert_null(e.ps.dN);
        assert_int_equal(ep_h5_create(&f, path, "pointshell", "test", ""), EP_OK);
        assert_int_equal(ep_pointshell_file_write(&f, &e.ps), EP_OK);
        assert_int_equal(ep_h5_close(&f), EP_OK);
        /* the reader leaves dN out (the runtime does not use it); the file holds it */
        double *fdN = NULL;
        hsize_t du[3] = {(hsize_t)e.ps.S, 3, 2};
        assert_int_equal(ep_h5_open(&f, path, "pointshell"), EP_OK);
        assert_int_equal(ep_pointshell_file_read(&back, &f), EP_OK);
        assert_null(back.dN);
        assert_int_equal(ep_h5_read(&f, "/pointshell/dN", EP_F64, 3, du, (void **)&fdN), EP_OK);
        assert_int_equal(ep_h5_close(&f), EP_OK);
        double big = 0;
        for (int s = 0; s < e.ps.S; s++)
            for (int i = 0; i < 6; i++) {
                assert_true(fdN[6 * (size_t)s + i] == dN[6 * (size_t)e.file_point[s] + i]);
                big = fmax(big, fabs(dN[6 * (size_t)s + i]));
            }
        assert_true(big > 0);
        /* nor does the runtime need it: a file without /pointshell/dN opens, the same lines */
        {
            hid_t h = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
            assert_true(h >= 0);
            assert_true(H5Ldelete(h, "/pointshell/dN", H5P_DEFAULT) >= 0);
            H5Fclose(h);
            ep_pscontact o;
            assert_int_equal(ep_pscontact_open(&o, path), EP_OK);
            assert_memory_equal(o.pt, e.pt, sizeof *e.pt * 16 * e.ps.S);
            assert_memory_equal(o.rec, e.rec, sizeof *e.rec * 16 * e.ps.nbe);
            ep_pscontact_free(&o);
        }
        free(dN), free(fdN);
        ep_pointshell_free(&back);
        ep_pscontact_free(&e);
        ep_mesh_free(&m);
    }
    /* a vertex row that is not what the points' U_s sum from: refused */
    x->c.ps.Uv[5] += 1e-3;
    assert_int_equal(ep_h5_create(&f, path, "pointshell", "test", ""), EP_OK);
    assert_int_equal(ep_pointshell_file_write(&f, &x->c.ps), EP_OK);
    assert_int_equal(ep_h5_close(&f), EP_OK);
    assert_int_equal(ep_pscontact_open(&d, path), EP_EINPUT);
    assert_non_null(strstr(ep_errmsg(), "/bind/Uv"));
    x->c.ps.Uv[5] -= 1e-3;
    /* a radius too small: refused */
    x->c.ps.R0[0] *= 0.5;
    assert_int_equal(ep_h5_create(&f, path, "pointshell", "test", ""), EP_OK);
    assert_int_equal(ep_pointshell_file_write(&f, &x->c.ps), EP_OK);
    assert_int_equal(ep_h5_close(&f), EP_OK);
    assert_int_equal(ep_pscontact_open(&d, path), EP_EINPUT);
    assert_non_null(strstr(ep_errmsg(), "/tree/radius"));
}

/* A pointshell bound to hexes (k = 8: a record a point, its gradients at
 * the point): the cube's surface in a 2 x 2 x 2 grid of boxes with r = 2
 * quadratic fields.  The runtime's rows equal the file's U_s to float
 * rounding, its normal is cof(I + G) N with G from the record (checked by
 * F's inverse in double), and the traversal equals brute force. */
static void test_hexes(void **state)
{
    (void)state;
    ep_mesh m, h;
    ep_pointshell ps;
    ep_pscontact c;
    ep_sdf s;
    int r = 2, n = 2;
    assert_int_equal(ep_model_read(&m, "data/cube.msh"), EP_OK);
    ep_pointshell_opts o = {.levels = 2, .first = 16, .iterations = 20, .seed = 5, .threads = 2};
    assert_int_equal(ep_pointshell_sample(&ps, &m, &o), EP_OK);
    assert_int_equal(ep_pointshell_tree(&ps), EP_OK);
    ep_mesh_init(&h);
    h.nv = (n + 1) * (n + 1) * (n + 1), h.nh = n * n * n;
    h.vertices = malloc(3 * sizeof(double) * h.nv);
    h.hexes = malloc(8 * sizeof(int) * h.nh);
    for (int k = 0, v = 0; k <= n; k++)
        for (int j = 0; j <= n; j++)
            for (int i = 0; i <= n; i++, v++)
                h.vertices[3 * v] = (double)i / n, h.vertices[3 * v + 1] = (double)j / n, h.vertices[3 * v + 2] = (double)k / n;
    for (int k = 0, e = 0; k < n; k++)
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++, e++)
                for (int a = 0; a < 8; a++)
                    h.hexes[8 * e + a] = i + (ep_hex_corner[a][0] > 0) +
                                         (n + 1) * (j + (ep_hex_corner[a][1] > 0) + (n + 1) * (k + (ep_hex_corner[a][2] > 0)));
    assert_int_equal(ep_mesh_complete(&h), EP_OK);
    double *U = malloc(sizeof *U * (size_t)r * 3 * h.nv);
    for (int j = 0; j < r; j++)
        for (int v = 0; v < h.nv; v++) {
            const double *x = &h.vertices[3 * v];
            for (int i = 0; i < 3; i++)
                U[(size_t)j * 3 * h.nv + 3 * v + i] = 0.3 * (j + 1) * (x[(i + j) % 3] * x[(i + 1) % 3] - 0.5 * x[2] * x[2]);
        }
    assert_int_equal(ep_pointshell_bind(&ps, &h, U, r, 1), EP_OK);
    assert_int_equal(ps.k, 8);
    assert_int_equal(ps.nbe, ps.S); /* a record a point */
    assert_int_equal(ep_pscontact_adopt(&c, &ps), EP_OK);
    double q[2] = {0.05, -0.04}, Us[6], worst = 0, big = 0;
    for (int p = 0; p < c.ps.S; p++) {
        ep_pscontact_modes(&c, p, Us);
        for (int i = 0; i < 3 * r; i++) {
            worst = nan_max(worst, fabs(Us[i] - c.ps.U[(size_t)p * 3 * r + i]));
            big = fmax(big, fabs(c.ps.U[(size_t)p * 3 * r + i]));
        }
        double F[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, Fi[3][3], nr[3], nf[3];
        const int *cn = &c.ps.corner[8 * (size_t)c.ps.belem[p]];
        for (int a = 0; a < 8; a++)
            for (int i = 0; i < 3; i++) {
                double u = 0;
                for (int j = 0; j < r; j++)
                    u += c.ps.Uv[((size_t)cn[a] * 3 + i) * r + j] * q[j];
                for (int t = 0; t < 3; t++)
                    F[i][t] += u * c.ps.grad[((size_t)8 * c.ps.belem[p] + a) * 3 + t];
            }
        double det = F[0][0] * (F[1][1] * F[2][2] - F[1][2] * F[2][1]) - F[0][1] * (F[1][0] * F[2][2] - F[1][2] * F[2][0]) +
                     F[0][2] * (F[1][0] * F[2][1] - F[1][1] * F[2][0]);
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                Fi[b][a] = (F[(a + 1) % 3][(b + 1) % 3] * F[(a + 2) % 3][(b + 2) % 3] -
                            F[(a + 1) % 3][(b + 2) % 3] * F[(a + 2) % 3][(b + 1) % 3]) / det;
        const double *N = &c.ps.N[3 * (size_t)p];
        for (int t = 0; t < 3; t++)
            nr[t] = det * (Fi[0][t] * N[0] + Fi[1][t] * N[1] + Fi[2][t] * N[2]);
        ep_pscontact_normal(&c, p, q, nf);
        for (int t = 0; t < 3; t++)
            assert_true(fabs(nr[t] / ep_vec3_norm(nr) - nf[t]) < 1e-6);
    }
    assert_true(big > 0 && worst < 1e-6 * big);
    plane_field(&s, 0.9, 0.1);
    ep_rng g = ep_rng_seed(3, 8);
    long touched = 0;
    for (int trial = 0; trial < 10; trial++) {
        ep_pscontact_pose p;
        pose_random(&p, &g, 0.2);
        double g1[2], g2[2];
        ep_pscontact_out a = {.g = g1}, b = {.g = g2};
        assert_int_equal(ep_pscontact_cycle(&c, &s, q, &p, &a), EP_OK);
        assert_int_equal(ep_pscontact_brute(&c, &s, q, &p, a.depth, &b), EP_OK);
        assert_int_equal(a.contacts, b.contacts);
        for (int i = 0; i < 3; i++)
            assert_true(a.F[i] == b.F[i] && a.T[i] == b.T[i]);
        assert_true(g1[0] == g2[0] && g1[1] == g2[1]);
        touched += a.contacts;
    }
    assert_true(touched > 0);
    free(U);
    ep_sdf_free(&s);
    ep_pscontact_free(&c);
    ep_mesh_free(&h);
    ep_mesh_free(&m);
}

/* The contact set's radix sort against qsort: values of one to four bytes,
 * duplicates, zeros, the empty and one-element arrays. */
static void test_radix_sort(void **state)
{
    (void)state;
    enum { N = 5000 };
    static int v[N], w[N], tmp[N];
    unsigned long x = 12345;
    for (int bytes = 1; bytes <= 4; bytes++)
        for (int n = 0; n <= N; n = n ? 5 * n : 1) {
            for (int i = 0; i < n; i++) {
                x = x * 6364136223846793005UL + 1442695040888963407UL;
                v[i] = w[i] = (int)((x >> 33) & (bytes == 4 ? 0x7fffffffu : (1u << (8 * bytes)) - 1));
                if (i % 7 == 0)
                    v[i] = w[i] = 0;
            }
            ep_sort_ints_radix(v, (size_t)n, tmp);
            ep_sort_ints(w, (size_t)n);
            if (n)
                assert_memory_equal(v, w, (size_t)n * sizeof *v);
        }
}

EP_TEST_MAIN("pscontact", cmocka_unit_test(test_radix_sort), SCENE_TEST(test_traversal_brute),
             SCENE_TEST(test_scalar_path), SCENE_TEST(test_scalar_path_rigid),
             SCENE_TEST(test_coherence), SCENE_TEST(test_gradients), SCENE_TEST(test_reduced_force),
             cmocka_unit_test(test_plate_refinement), SCENE_TEST(test_file), cmocka_unit_test(test_hexes))
