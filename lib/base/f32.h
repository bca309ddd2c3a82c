/*
 * f32.h — storing float64 results as float32 (gf --single, gf-wavelet
 * blocks): the magnitudes a set of values may have so that float32 keeps
 * their relative accuracy.
 *
 * A base module (doc/MODULES.md), header only.  Issue 22, class 7:
 * extreme units wrote +inf, or flushed 86% of a GF to zero, with exit 0.
 */
#ifndef EP_F32_H
#define EP_F32_H

#include <float.h>

/* Where a set of values whose largest magnitude is amax stands for float32:
 * 0 it fits; 1 amax overflows (> FLT_MAX); -1 it underflows: amax below
 * FLT_MIN / FLT_EPSILON (about 1e-31), so the values within float32's
 * relative precision of amax fall below the normal range and lose digits
 * (or vanish).  amax = 0 (all zero) fits. */
static inline int ep_f32_range(double amax)
{
    return amax > FLT_MAX ? 1 : amax > 0 && amax < (double)FLT_MIN / FLT_EPSILON ? -1 : 0;
}

/* The words of a message for ep_f32_range's answer r. */
static inline const char *ep_f32_what(int r)
{
    return r > 0 ? "exceeds float32's range" : "underflows float32 (its relative accuracy would be lost)";
}

#endif
