/*
 * blas.c — OpenBLAS's thread count for a stretch (blas.h).
 */
#include "blas.h"

#include <cblas.h>
#include <omp.h>

ep_blas_threads ep_blas_serial(void)
{
    ep_blas_threads b = {openblas_get_num_threads(), omp_get_max_threads()};
    openblas_set_num_threads(1);
    return b;
}

void ep_blas_restore(ep_blas_threads b)
{
    openblas_set_num_threads(b.blas);
    omp_set_num_threads(b.omp);
}
