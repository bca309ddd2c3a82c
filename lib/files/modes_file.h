/*
 * modes_file.h — files of kind "modes" (elastoprep(5)): /modes (the linear
 * modes and their attributes), /derivatives and /basis.  Written by moddesc
 * and by epmerge (which forms a split run's basis), read by moddesc
 * --modes FILE (a part reusing the modes another run computed).
 */
#ifndef EP_MODES_FILE_H
#define EP_MODES_FILE_H

#include "h5.h"
#include "modal.h"

/* Write /modes/eigenvalues [k], /modes/U [k][3nv] and the attributes free
 * and mass ("consistent" or "lumped").  0 or EP_EIO. */
int ep_modes_file_write_modes(ep_h5 *f, const double *lambda, const double *U, int k, int nv, int free, int lumped);

/* Read the first k modes of f (k 0: all; more than f holds: EP_EUSAGE)
 * of a model of nv vertices: *lambda [*k], *U [*k][3nv] (allocated; caller
 * frees), *lumped from the attribute mass.  Values must be finite.
 * 0, EP_EINPUT, EP_EUSAGE. */
int ep_modes_file_read_modes(ep_h5 *f, int nv, int k, double **lambda, double **U, int *kout, int *lumped);

/* Write /derivatives/pairs [np][2] and /derivatives/Phi [np][3nv].  0 or
 * EP_EIO. */
int ep_modes_file_write_derivatives(ep_h5 *f, const int *pairs, const double *Phi, int np, int nv);

/* Write /basis/U [r][3nv], /basis/sigma [nsigma] and the attribute method
 * (the name of kind).  0 or EP_EIO. */
int ep_modes_file_write_basis(ep_h5 *f, const double *B, int r, int nv, const double *sigma, int nsigma,
                              ep_modal_basis_kind kind);

#endif
