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
#include <string.h>

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
    /* NaN values are refused by the reader; an empty set would leave the
     * checks below nothing to look at (issue 22, class 6) */
    if (k == 0) {
        st = ep_fail(EP_EINPUT, "%s: /modes/eigenvalues is empty", f->path);
        goto out;
    }
    for (int i = 0; i < k; i++)
        if (!(lam[i] > 0) || (i > 0 && lam[i] < lam[i - 1])) {
            st = ep_fail(EP_EINPUT, "%s: /modes/eigenvalues: %g at %d (expected positive, ascending)", f->path,
                         lam[i], i);
            goto out;
        }
    if (!(isfinite(m.material->rho) && m.material->rho > 0) && !m.material->ne) {
        st = ep_fail(EP_EINPUT, "%s: /material: a modes file needs a positive density (rho = %g)", f->path,
                     m.material->rho);
        goto out;
    }
    d[0] = (hsize_t)k, d[1] = 3 * (hsize_t)m.nv;
    if ((st = ep_h5_read(f, "/modes/U", EP_F64, 2, d, &p)))
        goto out;
    U = p;
    d[0] = 0;
    if ((st = ep_h5_read(f, "/basis/U", EP_F64, 2, d, &p)))
        goto out;
    B = p;
    int r = (int)d[0], nmax = k > r ? k : r;
    if (r == 0) {
        st = ep_fail(EP_EINPUT, "%s: /basis/U is empty", f->path);
        goto out;
    }
    if (!(fixed = ep_calloc((size_t)m.nv, 1)) || !(MU = ep_malloc(3 * (size_t)m.nv * nmax, sizeof *MU))) {
        st = EP_ECOMPUTE;
        goto out;
    }
    for (int i = 0; i < m.nfixed; i++)
        fixed[m.fixed[i]] = 1;
    /* the mass the modes were computed with (moddesc writes /modes mass) */
    char mass[32] = "";
    if (ep_h5_get_attr_string(f, "/modes", "mass", mass, sizeof mass))
        mass[0] = '\0'; /* absent: consistent */
    if ((st = ep_material_check(m.material, 0.5, f->path)) ||
        (st = ep_modal_setup(&md, &m, m.material, fixed, !strcmp(mass, "lumped"))))
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
                orth[q] = ep_rtreport_worst(orth[q], fabs(dot - (i == j)));
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
        resid = ep_rtreport_worst(resid, sqrt(num / den));
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
