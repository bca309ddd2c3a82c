/*
 * modes_file.c — /modes, /derivatives and /basis of modes files
 * (modes_file.h).
 */
#include "modes_file.h"
#include "err.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int ep_modes_file_write_modes(ep_h5 *f, const double *lambda, const double *U, int k, int nv, int free, int lumped)
{
    hsize_t dk[2] = {(hsize_t)k, 3 * (hsize_t)nv};
    int st;
    if ((st = ep_h5_write(f, "/modes/eigenvalues", EP_F64, 1, dk, lambda)) ||
        (st = ep_h5_write(f, "/modes/U", EP_F64, 2, dk, U)) || (st = ep_h5_set_attr_int(f, "/modes", "free", free)) ||
        (st = ep_h5_set_attr_string(f, "/modes", "mass", lumped ? "lumped" : "consistent")))
        return st;
    return EP_OK;
}

int ep_modes_file_read_modes(ep_h5 *f, int nv, int k, double **lambda, double **U, int *kout, int *lumped)
{
    hsize_t dl[1] = {0}, du[2] = {0, 3 * (hsize_t)nv};
    char mass[32];
    void *a = NULL, *b = NULL;
    int st;
    *lambda = *U = NULL;
    if ((st = ep_h5_get_attr_string(f, "/modes", "mass", mass, sizeof mass)) ||
        (st = ep_h5_read(f, "/modes/eigenvalues", EP_F64, 1, dl, &a)) ||
        (du[0] = dl[0], st = ep_h5_read(f, "/modes/U", EP_F64, 2, du, &b)))
        goto fail;
    if (k > (int)dl[0]) {
        st = ep_fail(EP_EUSAGE, "%s: holds %d modes, %d asked", f->path, (int)dl[0], k);
        goto fail;
    }
    *kout = k ? k : (int)dl[0];
    for (size_t i = 0; i < (size_t)*kout * du[1]; i++)
        if (!isfinite(((double *)b)[i]) || (i < (size_t)*kout && !isfinite(((double *)a)[i]))) {
            st = ep_fail(EP_EINPUT, "%s: /modes: value is not finite", f->path);
            goto fail;
        }
    *lumped = !strcmp(mass, "lumped");
    *lambda = a;
    *U = b;
    return EP_OK;
fail:
    free(a);
    free(b);
    return st;
}

int ep_modes_file_write_derivatives(ep_h5 *f, const int *pairs, const double *Phi, int np, int nv)
{
    hsize_t dp[2] = {(hsize_t)np, 2}, dphi[2] = {(hsize_t)np, 3 * (hsize_t)nv};
    int st;
    if ((st = ep_h5_write(f, "/derivatives/pairs", EP_I32, 2, dp, pairs)) ||
        (st = ep_h5_write(f, "/derivatives/Phi", EP_F64, 2, dphi, Phi)))
        return st;
    return EP_OK;
}

int ep_modes_file_write_basis(ep_h5 *f, const double *B, int r, int nv, const double *sigma, int nsigma,
                              ep_modal_basis_kind kind)
{
    hsize_t dr[2] = {(hsize_t)r, 3 * (hsize_t)nv}, ds[1] = {(hsize_t)nsigma};
    int st;
    if ((st = ep_h5_write(f, "/basis/U", EP_F64, 2, dr, B)) ||
        (st = ep_h5_write(f, "/basis/sigma", EP_F64, 1, ds, sigma)) ||
        (st = ep_h5_set_attr_string(f, "/basis", "method", ep_modal_basis_name(kind))))
        return st;
    return EP_OK;
}
