/*
 * tet.h — one linear tetrahedron (MATH.md §1): its volume and the
 * gradients of its barycentric (shape) functions, which the FEM, StVK and
 * cubic-polynomial modules and the mesh checks all build on.
 */
#ifndef EP_TET_H
#define EP_TET_H

/* Volume and shape gradients of one tet (MATH.md §1).
 *   Inputs   x[4][3] corners
 *   Outputs  *vol = det(Dm)/6, Dm = [x1-x0, x2-x0, x3-x0]; g[4][3] the
 *            gradients of the barycentric functions (rows of Dm^-1,
 *            g0 = -(g1+g2+g3)); g untouched when vol <= 0.
 *   Cost     O(1). */
void ep_tet_gradients(const double x[4][3], double *vol, double g[4][3]);

#endif
