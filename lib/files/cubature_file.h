/*
 * cubature_file.h — files of kind "cubature" (elastoprep(5)): a weighted
 * set of elements that integrates a basis's reduced forces (MATH.md §14,
 * cubature.h), written by cubature(1), read by the runtimes (rtcheck):
 *
 *   /cubature/elements    [n] int32 element ids (0-based rows of /mesh/tets)
 *   /cubature/weights     [n] float64, > 0
 *   /cubature/cell_weight [ne] float64: the weight of every element, 0 where
 *                         not chosen (the XDMF sidecar shows it)
 *   /cubature/heldout_q   [H][r] the held-out poses (rtcheck measures on them)
 *   /cubature attributes  law, method (lawson-hanson|greedy), training
 *                         (sampled|trajectory|poses), tau, r, poses,
 *                         heldout, training_error, heldout_error (rms of the
 *                         per-pose relative errors), heldout_max,
 *                         basis_sha256 (of /basis/U's bytes), seconds
 *   /basis/U              [r][3nv] the basis
 * and the model (/mesh, /material, /constraints) of every file.
 */
#ifndef EP_CUBATURE_FILE_H
#define EP_CUBATURE_FILE_H

#include "cubature.h"
#include "h5.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a cubature file holds besides the model. */
typedef struct ep_cubature_file {
    int n, r, H, poses;
    ep_law_kind law;
    int *elem;              /* [n] */
    double *w;              /* [n] */
    double *U;              /* [r][3nv] */
    double *heldout_q;      /* [H][r] */
    double tau, training_error, heldout_error, heldout_max, seconds;
    char method[32], training[32], sha256[65];
} ep_cubature_file;

/* SHA-256 of U [r][3nv]'s bytes as 64 hex digits into hex[65]. */
void ep_cubature_file_hash(const double *U, int r, int nv, char hex[65]);

/* Write c (and its cell weights over ne elements) into f; the caller
 * writes the model.  0 or EP_EIO. */
int ep_cubature_file_write(ep_h5 *f, const ep_cubature_file *c, int nv, int ne);

/* Read the cubature of the open file f for a model of nv vertices and ne
 * tets: element ids in range, weights finite and >= 0, the basis
 * [r][3nv] and its hash equal to basis_sha256.  0, EP_EINPUT naming file
 * and object.  Free with ep_cubature_file_free in every case. */
int ep_cubature_file_read(ep_cubature_file *c, ep_h5 *f, int nv, int ne);
void ep_cubature_file_free(ep_cubature_file *c);

/* Training poses from a text file: one pose a line, r numbers (blanks or
 * commas; '#' comments).  *Q [*T][r] (allocated; caller frees).  0,
 * EP_EINPUT ("FILE:LINE: ..." for a line of another length), EP_EIO. */
int ep_cubature_file_poses(const char *path, int r, double **Q, int *T);

#ifdef __cplusplus
}
#endif

#endif
