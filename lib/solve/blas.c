/*
 * blas.c — OpenBLAS's thread count for a stretch (blas.h).
 */
#include "blas.h"

#include <cblas.h>
#include <omp.h>
#include <stdlib.h>
#include <strings.h>

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

const char *ep_blas_kernels_for_cpu(void)
{
    const char *core = openblas_get_corename();
    if (getenv("OPENBLAS_CORETYPE") || !core || strcasecmp(core, "prescott"))
        return NULL;
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
        return "SkylakeX";
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return "Haswell";
    return NULL;
}
