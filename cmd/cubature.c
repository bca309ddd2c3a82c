/*
 * cubature — a weighted set of elements that integrates a basis's reduced
 * internal forces (optimized cubature, An, Kim & James 2008; MATH.md §14).
 * See cubature(1).
 */
#include "cli.h"
#include "cubature.h"
#include "cubature_file.h"
#include "cubic_file.h"
#include "err.h"
#include "h5.h"
#include "law.h"
#include "mesh.h"
#include "model.h"
#include "rng.h"
#include "trajectory.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *dataset, *trajectory, *poses_file;
    long r, poses, heldout, max_elements, sample, pool, seed;
    int law, method;
    double tau, amplitude, pool_bytes;
} opts;

/* The basis file's model must be a tet mesh with a material. */
static int check_model(const ep_mesh *m)
{
    if (!m->tets || !m->ne)
        return ep_fail(EP_EINPUT, "%s: no tetrahedra in /mesh (cubature needs the tet model)", m->source);
    if (!m->material)
        return ep_fail(EP_EINPUT, "%s: no /material", m->source);
    return ep_material_check(m->material, 0.5, m->source);
}

/* Poses from a fullsim trajectory of the same mesh: its states projected. */
static int trajectory_poses(const ep_mesh *m, const char *path, const double *U, int r, double **Q, int *T)
{
    ep_h5 f = {0};
    ep_mesh tm = {0};
    ep_trajectory tr = {0};
    int st;
    if (!(st = ep_h5_open(&f, path, "trajectory")) && !(st = ep_model_load(&tm, &f))) {
        if (tm.nv != m->nv || tm.ne != m->ne || memcmp(tm.vertices, m->vertices, 24 * (size_t)m->nv) ||
            (m->ne && (!tm.tets || memcmp(tm.tets, m->tets, 16 * (size_t)m->ne))))
            st = ep_fail(EP_EINPUT, "%s: the training data's mesh (%d vertices, %d tets) is not the basis's "
                         "(%s: %d vertices, %d tets)", path, tm.nv, tm.ne, m->source, m->nv, m->ne);
        else if (!(st = ep_trajectory_read(&tr, &f, m->nv))) {
            *T = tr.T;
            *Q = ep_malloc((size_t)tr.T * r + 1, sizeof **Q);
            st = *Q ? ep_cubature_project(m, m->material, !strcmp(tr.mass, "lumped"), U, r, tr.u, tr.T, *Q)
                    : EP_ECOMPUTE;
        }
    }
    ep_trajectory_free(&tr);
    ep_mesh_free(&tm);
    ep_h5_close(&f);
    return st;
}

/* Drop the poses at rest (q = 0: a trajectory's first state), which have
 * no force to normalize by; *T updated. */
static void drop_rest(double *Q, int *T, int r)
{
    int k = 0;
    for (int t = 0; t < *T; t++) {
        int zero = 1;
        for (int i = 0; i < r; i++)
            zero &= Q[(size_t)t * r + i] == 0;
        if (!zero)
            memmove(Q + (size_t)k++ * r, Q + (size_t)t * r, (size_t)r * sizeof *Q);
    }
    *T = k;
}

/* Move H poses chosen at random (seed) to the end: the held-out ones. */
static void hold_out(double *Q, int T, int r, int H, unsigned long seed)
{
    ep_rng g = ep_rng_seed(seed, 5);
    for (int k = T - 1; k >= T - H; k--) {
        int j = ep_rng_below(&g, k + 1);
        for (int i = 0; i < r; i++) {
            double x = Q[(size_t)k * r + i];
            Q[(size_t)k * r + i] = Q[(size_t)j * r + i], Q[(size_t)j * r + i] = x;
        }
    }
}

/* parse_command_line: the options and --help of cmd/spec/cubature.json (scripts/toolspec.py). */
#include "cubature_spec.h"

int main(int argc, char **argv)
{
    opts o = {.dataset = "/basis/U", .poses = 50, .heldout = 10, .max_elements = 2000, .sample = 400, .seed = 1,
              .tau = 1e-2, .amplitude = 0.1, .pool_bytes = 1 << 30};
    ep_cli cli;
    ep_mesh m = {0};
    ep_h5 in = {0}, *out;
    ep_cubature_fit fit = {0};
    double *U = NULL, *Q = NULL, t0 = ep_now();
    int st, r = 0, T = 0, H = (int)o.heldout;

    parse_command_line(&cli, &o, argc, argv);
    H = (int)o.heldout;
    if (o.trajectory && o.poses_file)
        ep_cli_exit(ep_fail(EP_EUSAGE, "give --trajectory or --poses-file, not both"));
    /* read -> validate */
    if (!(o.tau > 0)) {
        st = ep_fail(EP_EINPUT, "option --tau: %g: the tolerance must be > 0", o.tau);
        goto out;
    }
    if ((st = ep_model_read(&m, cli.inputs[0])) || (st = check_model(&m)) ||
        (st = ep_h5_open(&in, cli.inputs[0], NULL)) || (st = ep_cubic_file_basis(&in, o.dataset, m.nv, (int)o.r, &U, &r)))
        goto out;
    ep_cli_model_summary(&cli, &m, m.material);
    if (o.trajectory)
        st = trajectory_poses(&m, o.trajectory, U, r, &Q, &T);
    else if (o.poses_file)
        st = ep_cubature_file_poses(o.poses_file, r, &Q, &T);
    else if (!(Q = ep_malloc((size_t)(o.poses + H) * r, sizeof *Q)))
        st = EP_ECOMPUTE;
    else
        st = ep_cubature_sample(&m, m.material, U, r, T = (int)o.poses + H, o.amplitude, (unsigned long)o.seed, Q);
    if (st)
        goto out;
    if (o.trajectory || o.poses_file)
        drop_rest(Q, &T, r);
    if (T - H < 1) {
        st = ep_fail(EP_EINPUT, "%d poses and --held-out %d leave none to train on", T, H);
        goto out;
    }
    if (o.trajectory || o.poses_file)
        hold_out(Q, T, r, H, (unsigned long)o.seed);

    /* compute */
    ep_cubature_fit_opts fo = {o.method == 0, o.tau, (int)o.max_elements, (int)o.sample, o.pool, o.pool_bytes,
                               (unsigned long)o.seed};
    if ((st = ep_cubature_fit_weights(&fit, &m, m.material, (ep_law_kind)o.law, U, r, Q, T, H, &fo)))
        goto out;

    /* write: the model, the basis, the cubature */
    ep_cubature_file cf = {.n = fit.n, .r = r, .H = H, .poses = T - H, .law = (ep_law_kind)o.law, .elem = fit.elem,
                           .w = fit.w, .U = U, .heldout_q = Q + (size_t)(T - H) * r, .tau = o.tau,
                           .training_error = fit.training_error, .heldout_error = fit.heldout_error,
                           .heldout_max = fit.heldout_max, .seconds = ep_now() - t0};
    snprintf(cf.method, sizeof cf.method, "%s", o.method ? "lawson-hanson" : "greedy");
    snprintf(cf.training, sizeof cf.training, "%s", o.trajectory ? "trajectory" : o.poses_file ? "poses" : "sampled");
    if ((st = ep_cli_create_h5(&cli, "cubature", &out)) || (st = ep_model_write(out, &m, NULL, NULL)) ||
        (st = ep_cubature_file_write(out, &cf, m.nv, m.ne)) || (st = ep_output_commit(&cli.out)))
        goto out;
    if (!cli.quiet) {
        printf("cubature: %s: %s, r = %d, %s: %d of %d elements (%d candidates), %ld entered, %ld left; "
               "training error %.3g (tau %g), held-out error %.3g rms, %.3g max over %d poses\n",
               cli.output, ep_law_name((ep_law_kind)o.law), r, cf.method, fit.n, m.ne, fit.pool, fit.entered,
               fit.removed, fit.training_error, o.tau, fit.heldout_error, fit.heldout_max, H);
        printf("cubature: %s: %d training poses (%s); forces %.2f s, fit %.2f s, total %.2f s\n", cli.output, T - H,
               cf.training, fit.t_forces, fit.t_fit, ep_now() - t0);
    }
out:
    ep_cubature_fit_free(&fit);
    ep_h5_close(&in);
    free(U), free(Q);
    ep_mesh_free(&m);
    ep_cli_exit(st);
}
