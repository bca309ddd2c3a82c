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

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    long k, r;
    int free, lumped;
    int basis; /* ep_modal_basis_kind */
} opts;

/* The output: the model, then modes, derivatives and basis. */
static int write_output(ep_cli *cli, const opts *o, const ep_mesh *m, const ep_material *mat, const char *fixed,
                        const double *lambda, const double *U, const int *pairs, const double *Phi, const double *B,
                        const double *sigma, int nsigma)
{
    static const char *basis_name[] = {"pca", "gram-schmidt", "linear"};
    ep_h5 *f;
    int st, k = (int)o->k, np = k * (k + 1) / 2;
    hsize_t n3 = 3 * (hsize_t)m->nv, dk[2] = {(hsize_t)k, n3}, dp[2] = {(hsize_t)np, 2}, dphi[2] = {(hsize_t)np, n3},
            dr[2] = {(hsize_t)o->r, n3}, ds[1] = {(hsize_t)nsigma};
    if ((st = ep_cli_create_h5(cli, "modes", &f)) || (st = ep_model_write(f, m, mat, fixed)) ||
        (st = ep_h5_write(f, "/modes/eigenvalues", EP_F64, 1, dk, lambda)) ||
        (st = ep_h5_write(f, "/modes/U", EP_F64, 2, dk, U)) ||
        (st = ep_h5_set_attr_int(f, "/modes", "free", o->free)) ||
        (st = ep_h5_set_attr_string(f, "/modes", "mass", o->lumped ? "lumped" : "consistent")) ||
        (st = ep_h5_write(f, "/derivatives/pairs", EP_I32, 2, dp, pairs)) ||
        (st = ep_h5_write(f, "/derivatives/Phi", EP_F64, 2, dphi, Phi)) ||
        (st = ep_h5_write(f, "/basis/U", EP_F64, 2, dr, B)) ||
        (st = ep_h5_write(f, "/basis/sigma", EP_F64, 1, ds, sigma)) ||
        (st = ep_h5_set_attr_string(f, "/basis", "method", basis_name[o->basis])))
        return st;
    return ep_output_commit(&cli->out);
}

int main(int argc, char **argv)
{
    opts o = {20, 30, 0, 0, EP_MODAL_BASIS_PCA};
    const ep_cli_opt options[] = {
        {"modes", 'k', EP_CLI_INT, &o.k, 1, 1000, .arg = "K", .help = "linear modes (default 20)"},
        {"basis-size", 'r', EP_CLI_INT, &o.r, 1, 100000, .arg = "R",
         .help = "basis vectors (default 30; at most K + K(K+1)/2)"},
        {"free", 0, EP_CLI_FLAG, &o.free, .help = "free-flying model: no support, six rigid modes excluded"},
        {"mass", 0, EP_CLI_CHOICE, &o.lumped, .arg = "consistent|lumped", .help = "mass matrix (default consistent)"},
        {"basis", 0, EP_CLI_CHOICE, &o.basis, .arg = "pca|gram-schmidt|linear",
         .help = "basis from modes and derivatives: mass-PCA (default),\n"
                 "mass-Gram-Schmidt in order, or the first R modes alone"},
        {0}};
    ep_tool tool = {
        .name = "moddesc",
        .synopsis = "MESH --fixed-...|--free [-E PA --nu V --rho KG_PER_M3 | -m FILE] [options] -o MODES.h5",
        .purpose = "Vibration modes, modal derivatives and a mass-orthonormal reduced basis of a tetrahedral\n"
                   "St. Venant-Kirchhoff model (ARPACK shift-invert on a CHOLMOD factor).",
        .common = EP_CLI_MATERIAL | EP_CLI_FIXED,
        .options = options, .min_inputs = 1, .max_inputs = 1, .need_output = 1,
    };
    ep_cli cli;
    ep_mesh m = {0};
    ep_material mat = {0};
    ep_modal s = {0};
    char *fixed = NULL;
    int st, nfixed = 0, *pairs = NULL;
    double *lambda = NULL, *U = NULL, *Phi = NULL, *B = NULL, *sigma = NULL, t0 = ep_now(), t;

    ep_cli_parse_or_exit(&cli, &tool, argc, argv);
    int k = (int)o.k, np = k * (k + 1) / 2, nsigma = o.basis == EP_MODAL_BASIS_LINEAR ? k : k + np;
    if (o.r > nsigma)
        ep_cli_exit(ep_fail(EP_EUSAGE, "-r %ld exceeds the %d %s", o.r, nsigma,
                            o.basis == EP_MODAL_BASIS_LINEAR ? "modes (--basis linear)"
                                                              : "modes and modal derivatives"));
    if (o.free && ep_select_given(&cli.fixed))
        ep_cli_exit(ep_fail(EP_EUSAGE, "--free and --fixed-... exclude each other"));

    /* read -> validate */
    if ((st = ep_model_read(&m, cli.inputs[0])))
        goto out;
    if (!ep_mesh_nelements(&m)) {
        st = ep_fail(EP_EINPUT, "%s: not a volumetric mesh (moddesc needs tets or hexes)", m.source);
        goto out;
    }
    if ((st = ep_cli_material(&cli, &m, 0.5, &mat)))
        goto out;
    for (int e = 0; e < (mat.ne ? mat.ne : 1); e++)
        if (isnan(ep_material_rho(&mat, e))) {
            st = ep_fail(EP_EUSAGE, "no density: give --rho (modes need a mass)");
            goto out;
        }
    if (!o.free && (st = ep_cli_fixed(&cli, &m, &fixed, &nfixed)))
        goto out;

    /* compute */
    lambda = ep_malloc((size_t)k, sizeof *lambda);
    U = ep_malloc((size_t)k * 3 * m.nv, sizeof *U);
    pairs = ep_malloc(2 * (size_t)np, sizeof *pairs);
    Phi = ep_malloc((size_t)np * 3 * m.nv, sizeof *Phi);
    B = ep_malloc((size_t)o.r * 3 * m.nv, sizeof *B);
    sigma = ep_calloc((size_t)nsigma, sizeof *sigma);
    if (!lambda || !U || !pairs || !Phi || !B || !sigma) {
        st = EP_ECOMPUTE;
        goto out;
    }
    if ((st = ep_modal_setup(&s, &m, &mat, fixed, o.lumped)))
        goto out;
    t = ep_now();
    if ((st = ep_modal_eigs(&s, k, lambda, U)))
        goto out;
    double t_eig = ep_now() - t;
    t = ep_now();
    if ((st = ep_modal_derivatives(&s, U, k, pairs, Phi)))
        goto out;
    double t_der = ep_now() - t;
    t = ep_now();
    if ((st = ep_modal_basis(&s, o.basis, lambda, U, k, Phi, (int)o.r, B, sigma)))
        goto out;
    double t_basis = ep_now() - t;

    /* write */
    if ((st = write_output(&cli, &o, &m, &mat, fixed, lambda, U, pairs, Phi, B, sigma, nsigma)))
        goto out;
    if (!cli.quiet) {
        printf("moddesc: %s: %d modes, %d derivatives, %ld basis vectors of %d unknowns (%s, %s mass%s)\n",
               cli.output, k, np, o.r, s.ndof, o.free ? "free-flying, 6 rigid modes excluded" : "constrained",
               o.lumped ? "lumped" : "consistent", "");
        printf("moddesc: frequencies (Hz):");
        for (int i = 0; i < k; i++)
            printf(" %.5g", sqrt(fmax(lambda[i], 0)) / (2 * M_PI));
        printf("\nmoddesc: assemble %.2f s, factor %.2f s (%.3g nonzeros), modes %.2f s, derivatives %.2f s "
               "(right-hand sides %.2f s, solves %.2f s at %.1f GFlop/s), basis %.2f s; total %.2f s\n",
               s.t_assemble, s.t_factor, s.lnz, t_eig, t_der, s.t_rhs, s.t_solve,
               s.free || s.t_solve <= 0 ? 0.0 : 4.0 * s.lnz * np / s.t_solve / 1e9, t_basis, ep_now() - t0);
    }
out:
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
