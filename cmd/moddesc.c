/*
 * moddesc — vibration modes, modal derivatives and the mass-orthonormal
 * reduced basis of a tetrahedral St. Venant-Kirchhoff model.  See moddesc(1).
 */
#include "cli.h"
#include "err.h"
#include "h5.h"
#include "mesh.h"
#include "model.h"
#include "modal.h"
#include "modes_file.h"
#include "part.h"
#include "snapshots.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    long k, r, block;
    int free, lumped, k_given;
    int basis;         /* ep_modal_basis_kind */
    ep_part part;
    const char *modes; /* --modes FILE */
    const char *snaps[64], *sketch; /* --snapshots FILE..., --sketch LOADS */
    int nsnaps;
} opts;

/* --snapshots FILE, repeatable. */
static int snapshots_arg(void *target, const char *opt, const char *arg)
{
    opts *o = target;
    if (o->nsnaps == 64)
        return ep_fail(EP_EUSAGE, "option %s: at most 64 files", opt);
    o->snaps[o->nsnaps++] = arg;
    return EP_OK;
}

/* -k/--modes: a count, or the file to take the modes from. */
static int modes_arg(void *target, const char *opt, const char *arg)
{
    opts *o = target;
    if (arg[strspn(arg, "0123456789")] != '\0') {
        o->modes = arg;
        return EP_OK;
    }
    o->k_given = 1;
    return ep_cli_int(opt, arg, 1, 1000, &o->k);
}

/* The output: the model, then modes, derivatives and basis (a part: its
 * derivatives, no basis, and /part with what epmerge needs for the basis). */
static int write_output(ep_cli *cli, const opts *o, const ep_mesh *m, const ep_material *mat, const char *fixed,
                        int k, const double *lambda, const double *U, const int *pairs, const double *Phi, int np,
                        const double *B, const double *sigma, int nsigma)
{
    ep_h5 *f;
    int st;
    if ((st = ep_cli_create_h5(cli, "modes", &f)) || (st = ep_model_write(f, m, mat, fixed)) ||
        (st = ep_modes_file_write_modes(f, lambda, U, k, m->nv, o->free, o->lumped)) ||
        (st = ep_modes_file_write_derivatives(f, pairs, Phi, np, m->nv)))
        return st;
    if (o->part.count) {
        if ((st = ep_part_write(f, &o->part)) ||
            (st = ep_h5_set_attr_string(f, "/part", "basis", ep_modal_basis_name(o->basis))) ||
            (st = ep_h5_set_attr_int(f, "/part", "basis_size", o->r)))
            return st;
    } else if ((st = ep_modes_file_write_basis(f, B, (int)o->r, m->nv, sigma, nsigma, o->basis))) {
        return st;
    }
    return ep_output_commit(&cli->out);
}

/* -r within the vectors the basis is formed from.  0 or EP_EUSAGE. */
static int check_basis_size(const opts *o, int k)
{
    int nsigma = o->basis == EP_MODAL_BASIS_LINEAR ? k : k + k * (k + 1) / 2;
    if (o->r > nsigma)
        return ep_fail(EP_EUSAGE, "-r %ld exceeds the %d %s", o->r, nsigma,
                       o->basis == EP_MODAL_BASIS_LINEAR ? "modes (--basis linear)" : "modes and modal derivatives");
    return EP_OK;
}

/* parse_command_line: the options and --help of cmd/spec/moddesc.json (scripts/toolspec.py). */
#include "moddesc_spec.h"

int main(int argc, char **argv)
{
    opts o = {.k = 20, .r = 30, .basis = EP_MODAL_BASIS_PCA}; /* block 0: ep_modal_block's */
    ep_cli cli;
    ep_mesh m = {0};
    ep_material mat = {0};
    ep_modal s = {0};
    char *fixed = NULL;
    int st, nfixed = 0, *pairs = NULL, k = 0;
    double *lambda = NULL, *U = NULL, *Phi = NULL, *B = NULL, *sigma = NULL, *X = NULL, t0 = ep_now(), t; /* X: snapshots */

    parse_command_line(&cli, &o, argc, argv);
    if (o.free && ep_select_given(&cli.fixed))
        ep_cli_exit(ep_fail(EP_EUSAGE, "--free and --fixed-... exclude each other"));
    int nsnap = 0, snapped = o.nsnaps || o.sketch, pod = o.basis == EP_MODAL_BASIS_POD;
    if (!o.modes && !snapped && (st = check_basis_size(&o, (int)o.k)))
        ep_cli_exit(st);
    if (snapped ? o.part.count || (!pod && o.basis != EP_MODAL_BASIS_PCA) : pod)
        ep_cli_exit(ep_fail(EP_EUSAGE, "--snapshots and --sketch go with --basis pca or pod (not split), and pod with them"));

    /* read -> validate */
    if ((st = ep_cli_read_volume(&cli, &m, cli.inputs[0])))
        goto out;
    if ((st = ep_cli_material(&cli, &m, 0.5, &mat)))
        goto out;
    for (int e = 0; e < (mat.ne ? mat.ne : 1); e++)
        if (isnan(ep_material_rho(&mat, e))) {
            st = ep_fail(EP_EUSAGE, "no density: give --rho (modes need a mass)");
            goto out;
        }
    if (!o.free && (st = ep_cli_fixed(&cli, &m, &fixed, &nfixed)))
        goto out;
    if (o.modes && ((st = ep_part_model_modes(o.modes, &m, &mat, fixed, o.k_given ? (int)o.k : 0, o.lumped, &k, &lambda,
                                              &U)) || (!snapped && (st = check_basis_size(&o, k)))))
        goto out;
    if ((o.nsnaps && (st = ep_snapshots_read(&m, o.snaps, o.nsnaps, &X, &nsnap))) ||
        (o.sketch && (st = ep_snapshots_sketch(&m, &mat, fixed, o.lumped, o.sketch, 5, &X, &nsnap))))
        goto out;
    ep_cli_model_summary(&cli, &m, &mat);

    /* compute */
    o.k = k = o.modes ? k : (int)o.k;
    int np = pod ? 0 : k * (k + 1) / 2, nsigma = (o.basis == EP_MODAL_BASIS_LINEAR ? k : k + np) + nsnap;
    o.block = o.block ? o.block : ep_modal_block(np ? np : 1);
    ep_part_share(&o.part, np, o.block, "pairs");
    int nmine = (int)(o.part.hi - o.part.lo);
    if ((st = ep_modal_setup(&s, &m, &mat, fixed, o.lumped)) || (st = ep_modal_plan(&s, k, (int)o.r, o.basis)))
        goto out;
    if (!lambda) {
        lambda = ep_malloc((size_t)k, sizeof *lambda);
        U = ep_malloc((size_t)k * 3 * m.nv, sizeof *U);
    }
    pairs = ep_malloc(2 * (size_t)(nmine ? nmine : 1), sizeof *pairs);
    Phi = ep_malloc_huge((size_t)(nmine ? nmine : 1) * 3 * m.nv, sizeof *Phi);
    B = ep_malloc_huge((size_t)o.r * 3 * m.nv, sizeof *B);
    sigma = ep_calloc((size_t)nsigma, sizeof *sigma);
    if (!lambda || !U || !pairs || !Phi || !B || !sigma) {
        st = EP_ECOMPUTE;
        goto out;
    }
    t = ep_now();
    if (!o.modes && (st = ep_modal_eigs(&s, k, lambda, U)))
        goto out;
    double t_eig = ep_now() - t;
    long n_eig = s.nsolve, n_block = s.nblock;
    if (o.part.count) { /* the modes are an input of the derivatives: in the hash */
        char creator[64], optstr[128];
        ep_part_hash h;
        snprintf(creator, sizeof creator, "moddesc %s", EP_VERSION);
        snprintf(optstr, sizeof optstr, "k=%d mass=%d free=%d basis=%s r=%ld block=%ld", k, o.lumped, o.free,
                 ep_modal_basis_name(o.basis), o.r, o.block);
        ep_part_hash_init(&h, creator);
        ep_part_hash_model(&h, &m, &mat, fixed);
        ep_part_hash_string(&h, "options", optstr);
        ep_part_hash_bytes(&h, "eigenvalues", lambda, sizeof(double) * (size_t)k);
        ep_part_hash_bytes(&h, "modes", U, sizeof(double) * (size_t)k * 3 * m.nv);
        ep_part_hash_final(&h, &o.part);
    }
    t = ep_now();
    if (np && (st = ep_modal_derivatives(&s, U, k, (int)o.part.lo, (int)o.part.hi, (int)o.block, pairs, Phi)))
        goto out;
    double t_der = ep_now() - t;
    t = ep_now();
    if (!o.part.count && (st = snapped ? ep_modal_basis_snapshots(&s, lambda, U, pod ? 0 : k, Phi, np, X, nsnap,
                                                                  (int)o.r, B, sigma)
                                       : ep_modal_basis(&s, o.basis, lambda, U, k, Phi, (int)o.r, B, sigma)))
        goto out;
    double t_basis = ep_now() - t;

    /* write */
    if ((st = write_output(&cli, &o, &m, &mat, fixed, k, lambda, U, pairs, Phi, nmine, B, sigma, nsigma)))
        goto out;
    if (!cli.quiet) {
        if (o.part.count)
            printf("moddesc: %s: part %d of %d: derivatives %ld..%ld of %d%s (each part repeats the factorization)\n",
                   cli.output, o.part.index, o.part.count, o.part.lo, o.part.hi, np, o.modes ? ", modes read" : "");
        printf("moddesc: %s: %d modes, %d derivatives, %d snapshots, %ld basis vectors of %d unknowns (%s, %s mass)\n",
               cli.output, k, nmine, nsnap, o.part.count ? 0 : o.r, s.ndof,
               o.free ? "free-flying, 6 rigid modes excluded" : "constrained", o.lumped ? "lumped" : "consistent");
        printf("moddesc: frequencies (Hz):");
        for (int i = 0; i < k; i++)
            printf(" %.5g", sqrt(fmax(lambda[i], 0)) / (2 * M_PI));
        char blocks[64] = "";
        if (!o.modes && n_block)
            snprintf(blocks, sizeof blocks, " in %ld blocks", n_block);
        printf("\nmoddesc: assemble %.2f s, factor %.2f s (%.3g nonzeros, %.3g flops), modes %.2f s (%ld solves%s), derivatives "
               "%.2f s (right-hand sides %.2f s, solves %.2f s: %.2f GFlop at %.1f GFlop/s), basis %.2f s; total "
               "%.2f s\n", s.t_assemble, s.t_factor, s.lnz, s.fl, t_eig, o.modes ? 0 : n_eig, blocks, t_der, s.t_rhs,
               s.t_solve, s.solve_flops / 1e9, s.t_solve > 0 ? s.solve_flops / s.t_solve / 1e9 : 0.0, t_basis,
               ep_now() - t0);
    }
out:
    free(X);
    ep_modal_free(&s);
    free(lambda);
    free(U);
    free(pairs);
    free(Phi);
    free(B);
    free(sigma);
    free(fixed);
    ep_material_free(&mat);
    ep_mesh_free(&m);
    ep_cli_exit(st);
}
