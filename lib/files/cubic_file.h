/*
 * cubic_file.h — files of kind "cubic" (elastoprep(5)): the coefficient sets
 * /cubic/P, Q, S (and the lambda and mu parts), and the reduced basis a
 * cubic or modes file carries (/basis/U).  Written by polycoef, read by the
 * runtimes (rtcheck).
 */
#ifndef EP_CUBIC_FILE_H
#define EP_CUBIC_FILE_H

#include "cubic.h"
#include "h5.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Write c as group/P [r][r], group/Q [npairs][r], group/S [ntriples][r]
 * ("/cubic", "/cubic/lambda", "/cubic/mu").  0 or EP_EIO. */
int ep_cubic_file_write(ep_h5 *f, const char *group, const ep_cubic *c);

/* Read /cubic/P, Q, S into c (allocated here; free with ep_cubic_free in
 * every case) and the basis they were computed for, /basis/U [r][3nv] of a
 * model of nv vertices, into *U (allocated; caller frees), checked for
 * shapes and finite values.  0, EP_EINPUT. */
int ep_cubic_file_read(ep_cubic *c, ep_h5 *f, int nv, double **U);

/* Read the basis dataset (as /basis/U) of length 3nv: all its rows when
 * rows is 0, else the first rows (a usage error when it has fewer); every
 * value finite.  *U [*r][3nv] (allocated; caller frees).  0, EP_EINPUT,
 * EP_EUSAGE. */
int ep_cubic_file_basis(ep_h5 *f, const char *dataset, int nv, int rows, double **U, int *r);

#ifdef __cplusplus
}
#endif

#endif
