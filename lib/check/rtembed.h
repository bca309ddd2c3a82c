/*
 * rtembed.h — what a renderer runs on an embedding file (kind embedding:
 * embed's binding of a render mesh to the simulation mesh), checked and
 * timed (rtcheck(1); 001 §2.12, Table 2.1): every render vertex bound to
 * the element whose vertices its row names, weights summing to 1, affine
 * fields (the render positions among them) reproduced exactly inside and
 * outside the simulation mesh, the distances of outside vertices; the
 * render basis against W U; and, given the cubic file of the same mesh,
 * the per-frame u_render = Ubar q beside the reduced Newmark step it
 * follows.
 */
#ifndef EP_RTEMBED_H
#define EP_RTEMBED_H

#include "h5.h"
#include "rtreport.h"

typedef struct ep_rtembed_opts {
    long frames;         /* timed u_render = Ubar q products */
    long steps;          /* timed Newmark steps */
    unsigned long seed;
} ep_rtembed_opts;

/* Run the checks on the open embedding file f into rep; cubic (NULL: none)
 * is the open cubic file of the same simulation mesh, whose basis must give
 * the file's Ubar (or, when it has none, Ubar = W U is formed here).
 * Cost O(k nr) for the checks, O(r nv nr / ...) for W U, and the timed
 * frames (3 nr r flops each) and steps (O(r^4 / 4) each).  Returns 0 (the
 * verdict is in rep); EP_EINPUT (an inconsistent file, a cubic file of
 * another mesh); EP_ECOMPUTE. */
int ep_rtembed_run(ep_rtreport *rep, ep_h5 *f, ep_h5 *cubic, const ep_rtembed_opts *o);

#endif
