/*
 * tet.c — one linear tetrahedron (tet.h).
 */
#include "tet.h"
#include "vec3.h"


/* MATH.md §1: Dm = [x1-x0, x2-x0, x3-x0] (columns); g1..g3 = rows of Dm^-1. */
void ep_tet_gradients(const double x[4][3], double *vol, double g[4][3])
{
    double d[3][3], c[3][3];
    for (int k = 0; k < 3; k++)
        ep_vec3_sub(x[k + 1], x[0], d[k]); /* d[k] = column k of Dm */
    /* Rows of Dm^-1 are (d1 x d2, d2 x d0, d0 x d1) / det. */
    ep_vec3_cross(d[1], d[2], c[0]);
    ep_vec3_cross(d[2], d[0], c[1]);
    ep_vec3_cross(d[0], d[1], c[2]);
    double det = ep_vec3_dot(d[0], c[0]);
    *vol = det / 6.0;
    if (!(det > 0))
        return;
    for (int a = 0; a < 3; a++) {
        g[0][a] = 0;
        for (int k = 0; k < 3; k++) {
            g[k + 1][a] = c[k][a] / det;
            g[0][a] -= g[k + 1][a];
        }
    }
}
