/*
 * pointshell_file.h — files of kind "pointshell" (elastoprep(5)): a nested
 * multiresolution pointshell with inward normals, its nested point tree
 * and, bound to a reduced simulation mesh, the displacement modes U_s,
 * the normal corrections dN_s and the BD-tree coefficients a_ij
 * (pointshell.h; 001 §3.6-3.9, MATH.md §11).  The source surface goes in
 * /mesh (model.h); the XDMF sidecar shows the points coloured by level.
 *
 *   /pointshell/points       float64 [S][3] rest positions P_s, by level
 *   /pointshell/normals      float64 [S][3] unit inward normals N_s
 *   /pointshell/level        int8 [S] repulsion level (1-based)
 *   /pointshell/level_start  int32 [L+1] level l is points [start[l-1], start[l])
 *   /pointshell/spacing      float64 [L] nominal spacing of each level
 *   /pointshell/parent       int32 [S] nearest point of the levels above (-1 on level 1)
 *   /pointshell/cells        int32 [S] 0 .. S-1 (the XDMF Polyvertex cells)
 *   /pointshell/tree/start   int32 [L+1] tree level l is nodes [start[l-1], start[l])
 *   /pointshell/tree/point   int32 [nn] the node's point
 *   /pointshell/tree/first   int32 [nn] first child (-1 on the last level)
 *   /pointshell/tree/count   int32 [nn] children
 *   /pointshell/tree/radius  float64 [nn] rest radius R_i,0
 *   bound (attribute r > 0):
 *   /pointshell/U            float64 [S][3][r] U_s (001 eq. 3.6)
 *   /pointshell/dN           float64 [S][3][r] dN_s (eqs. 3.7-3.8; written, not read:
 *                            ep_pointshell_dn makes it from the records)
 *   /pointshell/tree/a       float64 [nn][r] a_ij (eq. 3.12)
 *   /pointshell/bind/vertex  int32 [nbv] the mesh vertex of each bound vertex
 *   /pointshell/bind/Uv      float64 [nbv][3][r] its basis rows U_v
 *   /pointshell/bind/element int32 [S] the point's element record
 *   /pointshell/bind/weight  float64 [S][k] its weights (k = 4 tets, 8 hexes)
 *   /pointshell/bind/corner  int32 [nbe][k] a record's corners (bound vertices)
 *   /pointshell/bind/gradient float64 [nbe][k][3] their grad phi_c (a tet's;
 *                            for hexes one record a point, at the point)
 *   /pointshell attributes: levels, r, order, offset, area, max_embed
 *
 * Files layer (doc/MODULES.md).
 */
#ifndef EP_POINTSHELL_FILE_H
#define EP_POINTSHELL_FILE_H

#include "h5.h"
#include "pointshell.h"

/* Write ps (sampled, with its tree; bound or not) into f.  0 or EP_EIO. */
int ep_pointshell_file_write(ep_h5 *f, const ep_pointshell *ps);

/* Read the pointshell of f into ps (allocated; ep_pointshell_free in every
 * case) but /pointshell/dN (ps->dN stays NULL: the runtime forms cof(F) N
 * from the element records, and a write-back makes dN again from them:
 * 92 MB not read at 256k points, r = 15), everything checked before use: shapes, levels 1..
 * EP_POINTSHELL_MAX_LEVELS, level and node ranges increasing and nested as
 * the tree says (tree level l has level_start[l] nodes, each point once,
 * the children of a node contiguous and next to those of the node before,
 * its first child its own copy), ids in range, radii and coefficients >= 0,
 * unit normals; values finite; bound: record and corner ids in range and
 * U_s = sum_c w_sc U_vc to 1e-9 of the largest entry.  Cost O(S k r + nn r).
 *   Returns    0; EP_EINPUT naming the file and dataset; EP_ECOMPUTE. */
int ep_pointshell_file_read(ep_pointshell *ps, ep_h5 *f);

#endif
