/*
 * fem_file.c — files of kind fem (fem_file.h).
 */
#include "fem_file.h"
#include "err.h"
#include "mg_file.h"

int ep_fem_file_write_matrix(ep_h5 *f, const char *name, const cholmod_sparse *A)
{
    ep_csr P = {(int)A->nrow, (int)A->ncol, A->p, A->i, A->x}; /* borrowed view */
    return ep_mg_file_write_csr(f, name, &P);
}

int ep_fem_file_write_elements(ep_h5 *f, const ep_corot *c)
{
    hsize_t n3 = 3 * (hsize_t)c->k, d1 = (hsize_t)c->ne, dg[3] = {d1, (hsize_t)c->k, 3}, dk[3] = {d1, n3, n3};
    int st;
    if ((st = ep_h5_write(f, "/fem/elements/volume", EP_F64, 1, &d1, c->vol)) ||
        (st = ep_h5_write(f, "/fem/elements/gradient", EP_F64, 3, dg, c->grad)) ||
        (st = ep_h5_write(f, "/fem/elements/K", EP_F64, 3, dk, c->Ke)) ||
        (st = ep_h5_write(f, "/fem/elements/M", EP_F64, 3, dk, c->Me)))
        return st;
    return ep_h5_set_attr_int(f, "/fem/elements", "element_vertices", c->k);
}

int ep_fem_file_write_reduced(ep_h5 *f, const double *Mr, const double *G, int r, int lumped)
{
    hsize_t dm[2] = {(hsize_t)r, (hsize_t)r}, dg[2] = {(hsize_t)r, 3};
    int st;
    if ((st = ep_h5_write(f, "/reduced/M", EP_F64, 2, dm, Mr)) ||
        (st = ep_h5_write(f, "/reduced/gravity", EP_F64, 2, dg, G)))
        return st;
    return ep_h5_set_attr_string(f, "/reduced", "mass", lumped ? "lumped" : "consistent");
}

int ep_fem_file_write_rigid(ep_h5 *f, const ep_massprop *p)
{
    hsize_t d1 = 3, d2[2] = {3, 3};
    int st;
    if ((st = ep_h5_write(f, "/rigid/center", EP_F64, 1, &d1, p->center)) ||
        (st = ep_h5_write(f, "/rigid/inertia", EP_F64, 2, d2, p->inertia)))
        return st;
    return ep_h5_set_attr_double(f, "/rigid", "mass", p->mass);
}
