/*
 * rtmodes.c — checks of modes and mesh files (rtmodes.h).
 */
#include "rtmodes.h"
#include "err.h"
#include "mesh.h"
#include "modal.h"
#include "model.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>

int ep_rtmodes_run(ep_rtreport *rep, ep_h5 *f)
{
    ep_mesh m = {0};
    ep_modal md = {0};
    hsize_t d[2] = {0, 0};
    void *p;
    double *lam = NULL, *U = NULL, *B = NULL, *MU = NULL;
    char *fixed = NULL;
    int st;
    rep->kind = "modes";
    if ((st = ep_model_load(&m, f)))
        goto out;
    if (!ep_mesh_nelements(&m) || !m.material) {
        st = ep_fail(EP_EINPUT, "%s: a modes file carries the volumetric mesh and its material", f->path);
        goto out;
    }
    if ((st = ep_h5_read(f, "/modes/eigenvalues", EP_F64, 1, d, &p)))
        goto out;
    lam = p;
    int k = (int)d[0];
    d[0] = (hsize_t)k, d[1] = 3 * (hsize_t)m.nv;
    if ((st = ep_h5_read(f, "/modes/U", EP_F64, 2, d, &p)))
        goto out;
    U = p;
    d[0] = 0;
    if ((st = ep_h5_read(f, "/basis/U", EP_F64, 2, d, &p)))
        goto out;
    B = p;
    int r = (int)d[0], nmax = k > r ? k : r;
    if (!(fixed = ep_calloc((size_t)m.nv, 1)) || !(MU = ep_malloc(3 * (size_t)m.nv * nmax, sizeof *MU))) {
        st = EP_ECOMPUTE;
        goto out;
    }
    for (int i = 0; i < m.nfixed; i++)
        fixed[m.fixed[i]] = 1;
    if ((st = ep_material_check(m.material, 0.5, f->path)) || (st = ep_modal_setup(&md, &m, m.material, fixed, 0)))
        goto out;
    const double *sets[2] = {U, B};
    int counts[2] = {k, r};
    double orth[2] = {0, 0}, resid = 0;
    for (int q = 0; q < 2; q++) {
        if ((st = ep_modal_mass_times(&md, sets[q], MU, counts[q])))
            goto out;
        for (int i = 0; i < counts[q]; i++)
            for (int j = 0; j < counts[q]; j++) {
                double dot = cblas_ddot(3 * m.nv, &sets[q][(size_t)i * 3 * m.nv], 1, &MU[(size_t)j * 3 * m.nv], 1);
                orth[q] = fmax(orth[q], fabs(dot - (i == j)));
            }
    }
    /* K psi - lambda M psi, relative to lambda |M psi| */
    double *KU = ep_malloc(3 * (size_t)m.nv * k, sizeof *KU);
    if (!KU || (st = ep_modal_stiffness_times(&md, U, KU, k)) || (st = ep_modal_mass_times(&md, U, MU, k))) {
        free(KU);
        st = st ? st : EP_ECOMPUTE;
        goto out;
    }
    for (int i = 0; i < k; i++) {
        double num = 0, den = 0;
        for (size_t e = 0; e < 3 * (size_t)m.nv; e++) {
            double mu = MU[(size_t)i * 3 * m.nv + e];
            num += (KU[(size_t)i * 3 * m.nv + e] - lam[i] * mu) * (KU[(size_t)i * 3 * m.nv + e] - lam[i] * mu);
            den += lam[i] * lam[i] * mu * mu;
        }
        resid = fmax(resid, sqrt(num / den));
    }
    free(KU);
    ep_rtreport_fact(rep, "modes", k);
    ep_rtreport_fact(rep, "basis vectors", r);
    ep_rtreport_fact(rep, "first frequency (Hz)", sqrt(fmax(lam[0], 0)) / (2 * M_PI));
    ep_rtreport_check_value(rep, "eigen residual |K psi - lambda M psi|", resid, 1e-6);
    ep_rtreport_check_value(rep, "modes M-orthonormal", orth[0], 1e-8);
    ep_rtreport_check_value(rep, "basis M-orthonormal", orth[1], 1e-8);
out:
    ep_modal_free(&md);
    ep_mesh_free(&m);
    free(lam), free(U), free(B), free(MU), free(fixed);
    return st;
}

int ep_rtmodes_mesh(ep_rtreport *rep, ep_h5 *f)
{
    ep_mesh m = {0};
    int st;
    rep->kind = "mesh";
    if ((st = ep_model_load(&m, f)))
        goto out;
    int first, deg = ep_mesh_count_degenerate(&m, &first);
    ep_rtreport_fact(rep, "vertices", m.nv);
    ep_rtreport_fact(rep, "triangles", m.nf);
    if (m.level) {
        int L = 0;
        for (int v = 0; v < m.nv; v++)
            L = m.level[v] > L ? m.level[v] : L;
        ep_rtreport_fact(rep, "subdivision levels", L + 1);
    }
    ep_rtreport_check_value(rep, "degenerate triangles", deg, 0);
    if (!ep_mesh_nelements(&m))
        ep_rtreport_check_value(rep, "closed manifold surface (0: yes)", ep_mesh_check_closed(&m) ? 1 : 0, 0);
out:
    ep_mesh_free(&m);
    return st;
}
