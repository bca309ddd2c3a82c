/*
 * snapshots.h — displacement fields a basis is formed from besides modes and
 * derivatives (moddesc --snapshots, --sketch; MATH.md §13, 001 §2.8.2):
 * the stored states of fullsim trajectories, and the sketch: static
 * solutions under the loads of a load file.
 */
#ifndef EP_SNAPSHOTS_H
#define EP_SNAPSHOTS_H

#include "material.h"
#include "mesh.h"

/* The states u of the trajectories paths[n] (kind trajectory) of the model
 * of m (the same vertices, to the bit), zero states left out: *X [*ns][3nv]
 * appended to what *X holds (*ns vectors; both 0/NULL at first; caller
 * frees).  0, EP_EINPUT (another mesh, no state), EP_EIO, EP_ECOMPUTE. */
int ep_snapshots_read(const ep_mesh *m, const char *const *paths, int n, double **X, int *ns);

/* The sketch of a load file (loads.h): for each of its loads alone, the
 * static StVK solutions at steps/steps, .., 1 of it (fullsim --static
 * --load-steps steps) with the model's support fixed[nv] (held vertices)
 * and mass (gravity), appended to *X as ep_snapshots_read does.  Cost
 * nitem static solves.  0, EP_EINPUT (the load file), EP_ECOMPUTE (Newton
 * did not converge), EP_EIO. */
int ep_snapshots_sketch(const ep_mesh *m, const ep_material *mat, const char *fixed, int lumped, const char *loads,
                        int steps, double **X, int *ns);

#endif
