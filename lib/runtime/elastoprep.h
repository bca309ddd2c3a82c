/*
 * elastoprep.h — the runtime API a simulator links (libelastoprep,
 * pkg-config elastoprep; libelastoprep(3)): the files elastoprep's tools
 * write, read as a runtime reads them, and the two runtimes rtcheck proves
 * fast.
 *
 *   gfsrc.h      boundary Green's functions, dense (kind "gf") or wavelet
 *                compressed ("gf-wavelet"): blocks and weighted column sums
 *   cma.h        capacitance-matrix contact on them (000 Ch. 2-4)
 *   cma_cache.h  inverses (or factors) kept for contact sets that come back
 *   bond.h       zones' GFs bonded at their seams, chains in their own frames
 *   cubic_file.h the cubic polynomials of reduced StVK forces ("cubic")
 *   cubic.h      their evaluation: force, tangent stiffness
 *   cubature_file.h  a cubature of reduced forces ("cubature", MATH.md §14)
 *   cubature.h   its evaluation: force, tangent stiffness, any law
 *   reduced.h    reduced implicit Newmark on either (001 §2.7)
 *   sdf.h        signed distance fields ("distfield"): trilinear lookups,
 *                the eq. 3.14 bound outside the box (001 §3.11)
 *   pscontact.h  pointshell / distance-field contact: the nested tree's
 *                time-critical traversal, penalty forces, torques, the
 *                reduced force and derivatives (001 §3.5-3.10, Ch. 4)
 *   mg_file.h    multigrid hierarchies ("multigrid") and sparse matrices
 *   vcycle.h     the V-cycle on them (002 §2.4-2.5)
 *   warp.h       the corotated step: rotations, warped stiffness (002 §2.3.6)
 *   h5.h, model.h  opening any elastoprep file, its mesh and material
 *   err.h        statuses and the message of the last failure
 *
 * Every header it reaches declares its names extern "C" under C++.
 * Installed as PREFIX/include/elastoprep/; include it as
 * <elastoprep/elastoprep.h> with the flags of `pkg-config --cflags
 * elastoprep`.
 */
#ifndef EP_ELASTOPREP_H
#define EP_ELASTOPREP_H

#include "err.h"
#include "h5.h"
#include "model.h"
#include "gfsrc.h"
#include "cma.h"
#include "cma_cache.h"
#include "bond.h"
#include "cubic.h"
#include "cubic_file.h"
#include "cubature.h"
#include "cubature_file.h"
#include "reduced.h"
#include "sdf.h"
#include "pscontact.h"
#include "mg_file.h"
#include "vcycle.h"
#include "warp.h"

#endif
