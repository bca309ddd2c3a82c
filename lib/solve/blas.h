/*
 * blas.h — OpenBLAS on one thread for a stretch of calls, and back.
 *
 * OpenBLAS threads a call made outside a parallel region over OpenMP's
 * count, and on some kernels (SkylakeX's AVX-512 dgemm and dtrsm) that
 * split changes how entries round.  A result that must be the same bits on
 * any thread count (elastoprep(5): a split run equals the single run, on
 * machines of any size) makes its BLAS calls between ep_blas_serial and
 * ep_blas_restore, and shares the work over its own threads in fixed
 * pieces where it needs them.  Inside a parallel region OpenBLAS runs on
 * the calling thread anyway.
 */
#ifndef EP_BLAS_H
#define EP_BLAS_H

/* The thread counts to restore.  OpenBLAS's setter also sets OpenMP's
 * count, so both are kept. */
typedef struct ep_blas_threads {
    int blas, omp;
} ep_blas_threads;

/* Set OpenBLAS (and so OpenMP) to one thread; returns the counts before.
 * A stretch inside another leaves it on one.  Cost O(1). */
ep_blas_threads ep_blas_serial(void);

/* Put back the counts ep_blas_serial returned.  Cost O(1). */
void ep_blas_restore(ep_blas_threads b);

/* The OPENBLAS_CORETYPE this CPU should run when OpenBLAS fell back to its
 * generic Prescott kernels, or NULL (a kernel chosen already, by OpenBLAS
 * or by the environment).  OpenBLAS 0.3.21 (Debian 12) picks kernels by the
 * CPU's model number, and one it does not know (the 2-core machine's Xeon,
 * family 6 model 207, behind a hypervisor) gets the SSE3 kernels: dgemm
 * 6.5 GFlop/s there, 74 with SkylakeX's (tests/bench/dgemm, both cores).
 * The choice is by the instructions the CPU reports: SkylakeX for
 * AVX-512 F, BW, DQ and VL; Haswell for AVX2 and FMA.  OpenBLAS reads the
 * variable once, as it loads: a tool sets it and starts again
 * (ep_cli_restart).  Cost O(1). */
const char *ep_blas_kernels_for_cpu(void);

#endif
