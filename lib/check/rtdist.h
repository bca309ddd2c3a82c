/*
 * rtdist.h — a distance field (kind distfield, distfield(1); 001 §3.11,
 * MATH.md §10) checked and its lookups timed (rtcheck(1)): at random grid
 * points the stored value against a brute-force O(F) distance to the
 * source surface in /mesh and, farther than a cell diagonal from it, the
 * sign against a brute-force winding number; the bound of 001 eq. 3.14
 * at random points outside the box never above the true distance; the
 * source hash; and the time per lookup (sdf.h), random and coherent.
 */
#ifndef EP_RTDIST_H
#define EP_RTDIST_H

#include "h5.h"
#include "rtreport.h"

/* Run the checks on the open distfield file f into rep: samples random
 * grid points and as many points outside the box (brute force: O(F)
 * each), then 2^20 timed lookups of each kind.  Returns 0 (the verdict is
 * in rep); EP_EINPUT (an inconsistent file); EP_ECOMPUTE. */
int ep_rtdist_run(ep_rtreport *rep, ep_h5 *f, long samples, unsigned long seed);

#endif
