/*
 * winding.c — generalized winding numbers, brute force and through the
 * closest-point hierarchy (winding.h).
 */
#include "winding.h"
#include "err.h"
#include "vec3.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double ep_winding_solid_angle(const double p[3], const double a[3], const double b[3], const double c[3])
{
    double u[3], v[3], w[3], bc[3];
    ep_vec3_sub(a, p, u);
    ep_vec3_sub(b, p, v);
    ep_vec3_sub(c, p, w);
    double lu = ep_vec3_norm(u), lv = ep_vec3_norm(v), lw = ep_vec3_norm(w);
    ep_vec3_cross(v, w, bc);
    double det = ep_vec3_dot(u, bc); /* MATH.md §10: tan(Omega/2) = det / den */
    double den = lu * lv * lw + ep_vec3_dot(u, v) * lw + ep_vec3_dot(v, w) * lu + ep_vec3_dot(w, u) * lv;
    return 2 * atan2(det, den);
}

double ep_winding_brute(const double *x, const int *tri, int nt, const double p[3])
{
    double s = 0;
    for (int t = 0; t < nt; t++)
        s += ep_winding_solid_angle(p, &x[3 * tri[3 * t]], &x[3 * tri[3 * t + 1]], &x[3 * tri[3 * t + 2]]);
    return s / (4 * M_PI);
}

void ep_winding_free(ep_winding *w)
{
    free(w->area);
    free(w->centre);
    free(w->radius);
    memset(w, 0, sizeof *w);
}

int ep_winding_build(ep_winding *w, const ep_closest *tree)
{
    memset(w, 0, sizeof *w);
    w->tree = tree;
    size_t nn = (size_t)tree->nnodes;
    w->area = ep_calloc(3 * nn + 3, sizeof *w->area);
    w->centre = ep_calloc(3 * nn + 3, sizeof *w->centre);
    w->radius = ep_calloc(nn + 1, sizeof *w->radius);
    double *mass = ep_calloc(nn + 1, sizeof *mass); /* unsigned area of a node */
    if (!w->area || !w->centre || !w->radius || !mass) {
        free(mass);
        ep_winding_free(w);
        return EP_ECOMPUTE;
    }
    /* Children have larger ids than their parent (preorder): bottom-up. */
    for (int id = tree->nnodes - 1; id >= 0; id--) {
        const ep_closest_node *n = &tree->node[id];
        double *A = &w->area[3 * id], *C = &w->centre[3 * id];
        if (n->count) {
            for (int i = n->first; i < n->first + n->count; i++) {
                const int *f = &tree->tri[3 * tree->perm[i]];
                const double *a = &tree->x[3 * f[0]], *b = &tree->x[3 * f[1]], *c = &tree->x[3 * f[2]];
                double u[3], v[3], cr[3];
                ep_vec3_sub(b, a, u);
                ep_vec3_sub(c, a, v);
                ep_vec3_cross(u, v, cr);
                double ar = 0.5 * ep_vec3_norm(cr);
                for (int k = 0; k < 3; k++) {
                    A[k] += 0.5 * cr[k];
                    C[k] += ar * (a[k] + b[k] + c[k]) / 3;
                }
                mass[id] += ar;
            }
            if (mass[id] > 0)
                for (int k = 0; k < 3; k++)
                    C[k] /= mass[id];
            else
                for (int k = 0; k < 3; k++)
                    C[k] = 0.5 * (n->lo[k] + n->hi[k]);
            double r = 0;
            for (int i = n->first; i < n->first + n->count; i++)
                for (int j = 0; j < 3; j++)
                    r = fmax(r, ep_vec3_dist2(&tree->x[3 * tree->tri[3 * tree->perm[i] + j]], C));
            w->radius[id] = sqrt(r);
            continue;
        }
        int l = n->left, r = n->right;
        mass[id] = mass[l] + mass[r];
        for (int k = 0; k < 3; k++) {
            A[k] = w->area[3 * l + k] + w->area[3 * r + k];
            C[k] = mass[id] > 0 ? (mass[l] * w->centre[3 * l + k] + mass[r] * w->centre[3 * r + k]) / mass[id]
                                : 0.5 * (n->lo[k] + n->hi[k]);
        }
        w->radius[id] = fmax(sqrt(ep_vec3_dist2(C, &w->centre[3 * l])) + w->radius[l],
                             sqrt(ep_vec3_dist2(C, &w->centre[3 * r])) + w->radius[r]);
    }
    free(mass);
    return EP_OK;
}

/* ep_winding_eval's walk: the sum s of solid angles at p. */
typedef struct {
    const ep_winding *w;
    const double *p;
    double s;
} wind_walk;

/* A node far enough is one dipole, added here, and not entered. */
static int wind_enter(void *arg, int id, const ep_closest_node *n)
{
    wind_walk *a = arg;
    const ep_winding *w = a->w;
    double d[3];
    (void)n;
    ep_vec3_sub(&w->centre[3 * id], a->p, d);
    double r2 = ep_vec3_dot(d, d), rad = EP_WINDING_BETA * w->radius[id];
    if (r2 > rad * rad) { /* a dipole: the area vector's solid angle A . d / |d|^3 */
        a->s += ep_vec3_dot(&w->area[3 * id], d) / (r2 * sqrt(r2));
        return 0;
    }
    return 1;
}

static int wind_leaf(void *arg, int t)
{
    wind_walk *a = arg;
    const ep_closest *c = a->w->tree;
    const int *f = &c->tri[3 * t];
    a->s += ep_winding_solid_angle(a->p, &c->x[3 * f[0]], &c->x[3 * f[1]], &c->x[3 * f[2]]);
    return 0;
}

double ep_winding_eval(const ep_winding *w, const double p[3])
{
    wind_walk a = {w, p, 0};
    ep_closest_walk(w->tree, wind_enter, wind_leaf, &a);
    return a.s / (4 * M_PI);
}
