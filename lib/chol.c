/*
 * chol.c — CHOLMOD settings and a factorization safe on small machines (chol.h).
 */
#include "chol.h"
#include "err.h"

#include <cblas.h>
#include <omp.h>

void ep_chol_start(cholmod_common *c)
{
    cholmod_start(c);
    c->print = 0;
    c->supernodal = CHOLMOD_SUPERNODAL;
}

int ep_chol_fail(const char *what, const cholmod_common *c)
{
    if (c->status == CHOLMOD_OUT_OF_MEMORY)
        return ep_fail(EP_ECOMPUTE, "out of memory (%s)", what);
    return ep_fail(EP_ECOMPUTE, "%s failed (CHOLMOD status %d)", what, c->status);
}

int ep_chol_factorize(cholmod_sparse *A, cholmod_factor *L, const char *what, cholmod_common *c)
{
    /* OpenBLAS's setter also sets OpenMP's thread count: save both. */
    int dynamic = omp_get_dynamic(), blas = openblas_get_num_threads(), threads = omp_get_max_threads();
    openblas_set_num_threads(1);
    omp_set_dynamic(1);
    int ok = cholmod_factorize(A, L, c);
    omp_set_dynamic(dynamic);
    openblas_set_num_threads(blas);
    omp_set_num_threads(threads);
    if (!ok || c->status == CHOLMOD_OUT_OF_MEMORY)
        return ep_chol_fail(what, c);
    if (c->status == CHOLMOD_NOT_POSDEF)
        return ep_fail(EP_ECOMPUTE, "%s is not positive definite (pivot %d of %d): a part of the mesh is not "
                       "held, or elements are degenerate", what, (int)L->minor + 1, (int)L->n);
    return EP_OK;
}
