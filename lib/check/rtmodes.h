/*
 * rtmodes.h — the checks rtcheck(1) makes on the files that feed the
 * runtimes without being run by them: modes files (kind modes: eigen
 * residuals and mass-orthonormality against an independent assembly of K
 * and M) and surface meshes (kind mesh: degenerate triangles, closedness).
 */
#ifndef EP_RTMODES_H
#define EP_RTMODES_H

#include "h5.h"
#include "rtreport.h"

/* The modes file f: |K psi - lambda M psi| / (lambda |M psi|) for every mode,
 * and U^T M U = I for the modes and for the basis.  Cost one assembly and
 * factorization (ep_modal_setup) and O(k^2 nv) products.  0 (the verdict is
 * in rep), EP_EINPUT, EP_ECOMPUTE. */
int ep_rtmodes_run(ep_rtreport *rep, ep_h5 *f);

/* The mesh file f: vertex and triangle counts, levels, degenerate
 * triangles, and for a surface whether it is a closed oriented manifold.
 * Cost O(nf log nf).  0, EP_EINPUT, EP_ECOMPUTE. */
int ep_rtmodes_mesh(ep_rtreport *rep, ep_h5 *f);

#endif
