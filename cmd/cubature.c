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

int main(int argc, char **argv)
{
    opts o = {.dataset = "/basis/U", .poses = 50, .heldout = 10, .max_elements = 2000, .sample = 400, .seed = 1,
              .tau = 1e-2, .amplitude = 0.1, .pool_bytes = 1 << 30};
    const ep_cli_opt options[] = {
        {"basis", 0, EP_CLI_STRING, &o.dataset, .arg = "DATASET", .help = "the basis, rows of length 3nv (default /basis/U)"},
        {"basis-size", 'r', EP_CLI_INT, &o.r, 1, 1000, .arg = "N", .help = "use the first N basis vectors (default: all)"},
        {"law", 0, EP_CLI_CHOICE, &o.law, .arg = EP_LAW_CHOICES, .help = "material law (default stvk)"},
        {"tau", 0, EP_CLI_DOUBLE, &o.tau, .arg = "TAU", .help = "relative training residual to reach (default 1e-2)"},
        {"method", 0, EP_CLI_CHOICE, &o.method, .arg = "greedy|lawson-hanson",
         .help = "greedy of An et al. with NNLS on the set (default),\nor Lawson-Hanson over every candidate"},
        {"poses", 0, EP_CLI_INT, &o.poses, 1, 100000, .arg = "T", .help = "sampled training poses (default 50)"},
        {"held-out", 0, EP_CLI_INT, &o.heldout, 0, 100000, .arg = "H", .help = "more poses held out to measure (default 10)"},
        {"amplitude", 0, EP_CLI_DOUBLE, &o.amplitude, 0, 10, .arg = "A",
         .help = "sampled poses move a vertex up to A times the\nmodel's diameter (default 0.1)"},
        {"trajectory", 0, EP_CLI_STRING, &o.trajectory, .arg = "TRAJ.h5",
         .help = "train on a fullsim trajectory's states projected\non the basis instead of sampled poses"},
        {"poses-file", 0, EP_CLI_STRING, &o.poses_file, .arg = "Q.txt", .help = "train on these poses (r numbers a line)"},
        {"max-elements", 0, EP_CLI_INT, &o.max_elements, 1, 10000000, .arg = "N", .help = "most elements kept (default 2000)"},
        {"sample", 0, EP_CLI_INT, &o.sample, 1, 100000000, .arg = "N", .help = "greedy: candidates drawn per step (default 400)"},
        {"pool", 0, EP_CLI_INT, &o.pool, 0, 2147483647, .arg = "N",
         .help = "candidate elements (default: all whose training\ncolumns fit in --pool-memory)"},
        {"pool-memory", 0, EP_CLI_BYTES, &o.pool_bytes, .arg = "SIZE", .help = "memory for the candidates (default 1G)"},
        {"seed", 0, EP_CLI_INT, &o.seed, 0, 2147483647, .arg = "N", .help = "random seed (default 1)"},
        {0}};
    ep_tool tool = {
        .name = "cubature",
        .synopsis = "BASIS.h5 [-r N] [--law LAW] [--tau TAU] [--method greedy|lawson-hanson]\n"
                    "       [--poses T --amplitude A | --trajectory TRAJ.h5 | --poses-file Q.txt] [--held-out H] -o CUB.h5",
        .purpose = "Weighted elements whose sum approximates the reduced internal force U^T f(U q) of a basis\n"
                   "(a moddesc or polycoef file) at any r and for any law: nonnegative least squares on\n"
                   "per-pose normalized element contributions, to a relative residual tau.",
        .options = options, .min_inputs = 1, .max_inputs = 1, .need_output = 1,
    };
    ep_cli cli;
    ep_mesh m = {0};
    ep_h5 in = {0}, *out;
    ep_cubature_fit fit = {0};
    double *U = NULL, *Q = NULL, t0 = ep_now();
    int st, r = 0, T = 0, H = (int)o.heldout;

    ep_cli_parse_or_exit(&cli, &tool, argc, argv);
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
