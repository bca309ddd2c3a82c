/*
 * kernel.h — marking the few loops that decide a runtime's latency.
 *
 * The library is built for any x86-64 (SSE2, no FMA), which is right for
 * everything but the per-step kernels of the runtimes, where a 4-wide FMA
 * does the work of several baseline instructions.  EP_KERNEL builds a
 * function twice, for x86-64-v3 (AVX2 + FMA) and for the baseline, and the
 * dynamic loader picks the clone the CPU runs (GCC/Clang function
 * multi-versioning through an ifunc).  Elsewhere it is empty and the code is
 * built as usual; so with Clang (make fuzz), whose clones of an external
 * function (ep_narrow_forward, ep_gfw_row) other files' calls do not find
 * at link time (Clang 14: "undefined reference").  Loops inside say
 * `#pragma omp simd` so reductions vectorize without -ffast-math.
 */
#ifndef EP_KERNEL_H
#define EP_KERNEL_H

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__ELF__) && !defined(EP_NO_CLONES)
#define EP_KERNEL __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define EP_KERNEL
#endif

/* Four doubles in one AVX register, loaded from any 8-byte boundary: the
 * kernels' vector type (GCC/Clang vector extensions). */
typedef double ep_v4d __attribute__((vector_size(32), aligned(8)));

#endif
