/*
 * bem.c — Kelvin kernels and triangle quadrature (bem.h).
 */
#include "bem.h"

#include <math.h>
#include <string.h>

/* MATH.md §6 with G = 1:
 * u*_lk = [(3 - 4 nu) delta_lk / r + r_l r_k / r^3] / (16 pi (1 - nu)),
 * p*_lk = -[dr/dn ((1 - 2 nu) delta_lk + 3 d_l d_k) - (1 - 2 nu)(d_l n_k - d_k n_l)]
 *         / (8 pi (1 - nu) r^2),  d = r / |r|.  The (1 - 2 nu) of the printed
 * form cancels: nu = 0.5 is allowed. */
void ep_bem_kelvin(const double r[3], const double n[3], double nu, double us[3][3], double ps[3][3])
{
    double rr = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]), inv = 1.0 / rr, d[3];
    for (int i = 0; i < 3; i++)
        d[i] = r[i] * inv;
    double drdn = d[0] * n[0] + d[1] * n[1] + d[2] * n[2], k = 1.0 / (1.0 - nu);
    double cu = k * inv / (16.0 * M_PI), cp = -k * inv * inv / (8.0 * M_PI);
    double a = 1.0 - 2.0 * nu, b = 3.0 - 4.0 * nu;
    for (int l = 0; l < 3; l++)
        for (int m = 0; m < 3; m++) {
            double dl = l == m;
            us[l][m] = cu * (b * dl + d[l] * d[m]);
            ps[l][m] = cp * (drdn * (a * dl + 3.0 * d[l] * d[m]) - a * (d[l] * n[m] - d[m] * n[l]));
        }
}

/* Dunavant's degree-5 rule: barycentric points and weights (sum 1). */
static const double rule7[7][4] = {
    {1.0 / 3, 1.0 / 3, 1.0 / 3, 0.225},
    {0.0597158717897698, 0.4701420641051151, 0.4701420641051151, 0.1323941527885062},
    {0.4701420641051151, 0.0597158717897698, 0.4701420641051151, 0.1323941527885062},
    {0.4701420641051151, 0.4701420641051151, 0.0597158717897698, 0.1323941527885062},
    {0.7974269853530873, 0.1012865073234563, 0.1012865073234563, 0.1259391805448271},
    {0.1012865073234563, 0.7974269853530873, 0.1012865073234563, 0.1259391805448271},
    {0.1012865073234563, 0.1012865073234563, 0.7974269853530873, 0.1259391805448271},
};

/* Strang-Fix degree-2 rule. */
static const double rule3[3][4] = {
    {2.0 / 3, 1.0 / 6, 1.0 / 6, 1.0 / 3},
    {1.0 / 6, 2.0 / 3, 1.0 / 6, 1.0 / 3},
    {1.0 / 6, 1.0 / 6, 2.0 / 3, 1.0 / 3},
};

/* 8-point Gauss-Legendre on [0, 1]. */
static const double gl8x[8] = {0.0198550717512319, 0.1016667612931866, 0.2372337950418355, 0.4082826787521751,
                               0.5917173212478249, 0.7627662049581645, 0.8983332387068134, 0.9801449282487681};
static const double gl8w[8] = {0.0506142681451881, 0.1111905172266872, 0.1568533229389436, 0.1813418916891810,
                               0.1813418916891810, 0.1568533229389436, 0.1111905172266872, 0.0506142681451881};

#define MAX_DEPTH 8

typedef struct {
    const double *x;
    const double (*v)[3]; /* the element's corners */
    double n[3];          /* outward unit normal */
    double nu;
    double (*g)[3][3], (*h)[3][3];
} quad;

/* Add w * kernels(y) * phi_a(y) for barycentric b of the element. */
static void accumulate(quad *q, const double b[3], double w, int skip_h)
{
    double y[3], r[3], us[3][3], ps[3][3];
    for (int i = 0; i < 3; i++) {
        y[i] = b[0] * q->v[0][i] + b[1] * q->v[1][i] + b[2] * q->v[2][i];
        r[i] = y[i] - q->x[i];
    }
    ep_bem_kelvin(r, q->n, q->nu, us, ps);
    const double *u = &us[0][0], *p = &ps[0][0];
    for (int a = 0; a < 3; a++) {
        double wa = w * b[a], *restrict g = &q->g[a][0][0], *restrict h = &q->h[a][0][0];
        for (int k = 0; k < 9; k++)
            g[k] += wa * u[k];
        if (a != skip_h)
            for (int k = 0; k < 9; k++)
                h[k] += wa * p[k];
    }
}

/* Sub-triangle c[3][3] (barycentric corners of the element v): *d2 the
 * squared distance of its centroid from x, *h2 its longest edge squared. */
static void reach(const double *x, const double (*v)[3], const double c[3][3], double *d2, double *h2)
{
    double cen[3] = {0, 0, 0}, p[3][3];
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++)
            p[j][i] = c[j][0] * v[0][i] + c[j][1] * v[1][i] + c[j][2] * v[2][i];
    for (int i = 0; i < 3; i++)
        cen[i] = (p[0][i] + p[1][i] + p[2][i]) / 3.0 - x[i];
    *h2 = 0;
    for (int j = 0; j < 3; j++) {
        double e = 0;
        for (int i = 0; i < 3; i++)
            e += (p[(j + 1) % 3][i] - p[j][i]) * (p[(j + 1) % 3][i] - p[j][i]);
        *h2 = e > *h2 ? e : *h2;
    }
    *d2 = cen[0] * cen[0] + cen[1] * cen[1] + cen[2] * cen[2];
}

/* The four children of sub-triangle c, split at its edge midpoints. */
static void split4(const double c[3][3], double sub[4][3][3])
{
    double m[3][3];
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++)
            m[j][i] = 0.5 * (c[j][i] + c[(j + 1) % 3][i]);
    for (int i = 0; i < 3; i++) {
        sub[0][0][i] = c[0][i], sub[0][1][i] = m[0][i], sub[0][2][i] = m[2][i];
        sub[1][0][i] = m[0][i], sub[1][1][i] = c[1][i], sub[1][2][i] = m[1][i];
        sub[2][0][i] = m[2][i], sub[2][1][i] = m[1][i], sub[2][2][i] = c[2][i];
        sub[3][0][i] = m[0][i], sub[3][1][i] = m[1][i], sub[3][2][i] = m[2][i];
    }
}

/* The rule a sub-triangle at squared distance d2 takes: the degree-2 one
 * beyond ten diameters, else the degree-5 one; *n its points. */
static const double (*rule_for(double d2, double h2, int *n))[4]
{
    int far = d2 > 100.0 * h2; /* ten diameters */
    *n = far ? 3 : 7;
    return far ? rule3 : rule7;
}

/* Sub-triangle with barycentric corners c[3][3] of the element v, of
 * weight (area) wt: four children while x is within sqrt(near2) of its
 * diameters (at most maxdepth deep), else the quadrature rule, each point's
 * kernels added by add(q, barycentric, weight). */
static void subdivide(const double *x, const double (*v)[3], const double c[3][3], double wt, int depth, double near2,
                      int maxdepth, void (*add)(void *, const double[3], double), void *q)
{
    double d2, h2;
    reach(x, v, c, &d2, &h2);
    if (d2 < near2 * h2 && depth < maxdepth) { /* near-singular: split at edge midpoints */
        double sub[4][3][3];
        split4(c, sub);
        for (int s = 0; s < 4; s++)
            subdivide(x, v, (const double(*)[3])sub[s], wt / 4.0, depth + 1, near2, maxdepth, add, q);
        return;
    }
    /* Far from x the integrand is smooth: the degree-2 rule is as accurate as
     * the degree-5 one is near (the Kelvin-field and rigid-rotation tests
     * check that the order and the residual still fall). */
    int n;
    const double(*rule)[4] = rule_for(d2, h2, &n);
    for (int k = 0; k < n; k++) {
        double b[3];
        for (int i = 0; i < 3; i++)
            b[i] = rule[k][0] * c[0][i] + rule[k][1] * c[1][i] + rule[k][2] * c[2][i];
        add(q, b, rule[k][3] * wt);
    }
}

static void add_kernels(void *q, const double b[3], double w) { accumulate(q, b, w, -1); }

/* The triangle's outward unit normal n; returns twice its area. */
static double unit_normal(const double v[3][3], double n[3])
{
    double e1[3], e2[3], nn[3];
    for (int i = 0; i < 3; i++) {
        e1[i] = v[1][i] - v[0][i];
        e2[i] = v[2][i] - v[0][i];
    }
    nn[0] = e1[1] * e2[2] - e1[2] * e2[1];
    nn[1] = e1[2] * e2[0] - e1[0] * e2[2];
    nn[2] = e1[0] * e2[1] - e1[1] * e2[0];
    double twice = sqrt(nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2]);
    for (int i = 0; i < 3; i++)
        n[i] = nn[i] / twice;
    return twice;
}

void ep_bem_triangle(const double x[3], const double v[3][3], int singular, double nu, double g[3][3][3],
                     double h[3][3][3])
{
    quad q = {x, v, {0, 0, 0}, nu, g, h};
    double twice = unit_normal(v, q.n), area = 0.5 * twice;
    memset(g, 0, 27 * sizeof(double));
    memset(h, 0, 27 * sizeof(double));
    if (singular < 0) {
        static const double corners[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
        subdivide(x, v, corners, area, 0, 4.0, MAX_DEPTH, add_kernels, &q);
        return;
    }
    /* Duffy at corner s: y = v_s + u [(v_a - v_s) + w (v_b - v_a)], dy = 2 A u du dw,
     * phi_s = 1 - u, phi_a = u (1 - w), phi_b = u w: the 1/r of u* and the
     * 1/r^2 of p* times phi_a, phi_b become bounded. */
    int s = singular, a = (s + 1) % 3, b = (s + 2) % 3;
    for (int iu = 0; iu < 8; iu++)
        for (int iw = 0; iw < 8; iw++) {
            double u = gl8x[iu], w = gl8x[iw], bc[3];
            bc[s] = 1.0 - u;
            bc[a] = u * (1.0 - w);
            bc[b] = u * w;
            accumulate(&q, bc, gl8w[iu] * gl8w[iw] * twice * u, s);
        }
}

void ep_bem_triangle_constant(const double x[3], const double v[3][3], int singular, double nu, double g[3][3],
                              double h[3][3])
{
    double ga[3][3][3], ha[3][3][3];
    memset(g, 0, 9 * sizeof(double));
    memset(h, 0, 9 * sizeof(double));
    /* x at the centroid: three sub-triangles with x at a corner, each by
     * Duffy; their p* part is left 0 (rigid-body trick). */
    for (int part = 0; part < (singular ? 3 : 1); part++) {
        double sub[3][3];
        if (singular) {
            memcpy(sub[0], x, sizeof sub[0]);
            memcpy(sub[1], v[part], sizeof sub[1]);
            memcpy(sub[2], v[(part + 1) % 3], sizeof sub[2]);
        } else {
            memcpy(sub, v, sizeof sub);
        }
        ep_bem_triangle(x, (const double(*)[3])sub, singular ? 0 : -1, nu, ga, ha);
        for (int a = 0; a < 3; a++) /* the hat functions sum to one */
            for (int l = 0; l < 3; l++)
                for (int k = 0; k < 3; k++) {
                    g[l][k] += ga[a][l][k];
                    if (!singular)
                        h[l][k] += ha[a][l][k];
                }
    }
}

/* The kernels' derivatives with respect to the load point x (r = y - x, so
 * d/dx_j = -d/dr_j), G = 1, in the notation of ep_bem_kelvin:
 *   u*_lk = cu [b delta_lk / r + r_l r_k / r^3],
 *   d u*_lk / dx_j = cu [b delta_lk r_j - delta_lj r_k - delta_kj r_l] / r^3 + 3 cu r_l r_k r_j / r^5;
 *   p*_lk = cp' [(r.n)(a delta_lk / r^3 + 3 r_l r_k / r^5) - a (r_l n_k - r_k n_l) / r^3],
 *   cp' = -1 / (8 pi (1 - nu)), differentiated term by term. */
void ep_bem_kelvin_grad(const double r[3], const double n[3], double nu, double dus[3][3][3], double dps[3][3][3])
{
    double r2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2], rr = sqrt(r2), i3 = 1.0 / (r2 * rr), i5 = i3 / r2,
           i7 = i5 / r2, rn = r[0] * n[0] + r[1] * n[1] + r[2] * n[2], k = 1.0 / (1.0 - nu);
    double cu = k / (16.0 * M_PI), cp = -k / (8.0 * M_PI), a = 1.0 - 2.0 * nu, b = 3.0 - 4.0 * nu;
    for (int j = 0; j < 3; j++)
        for (int l = 0; l < 3; l++)
            for (int m = 0; m < 3; m++) {
                double dlm = l == m, dlj = l == j, dmj = m == j;
                dus[j][l][m] = cu * ((b * dlm * r[j] - dlj * r[m] - dmj * r[l]) * i3 + 3.0 * r[l] * r[m] * r[j] * i5);
                double t1 = n[j] * (a * dlm * i3 + 3.0 * r[l] * r[m] * i5) +
                            rn * (-3.0 * a * dlm * r[j] * i5 + 3.0 * (dlj * r[m] + r[l] * dmj) * i5 -
                                  15.0 * r[l] * r[m] * r[j] * i7),
                       t2 = -a * ((dlj * n[m] - dmj * n[l]) * i3 - 3.0 * (r[l] * n[m] - r[m] * n[l]) * r[j] * i5);
                dps[j][l][m] = -cp * (t1 + t2);
            }
}

typedef struct {
    const double *x;
    const double (*v)[3];
    double n[3];
    double nu;
    double (*g)[3][3], (*h)[3][3];          /* [3 corners][3][3] */
    double (*gd)[3][3][3], (*hd)[3][3][3];  /* [3 corners][3 j][3][3] */
} quad_grad;

static void accumulate_grad(quad_grad *q, const double b[3], double w)
{
    double y[3], r[3], us[3][3], ps[3][3], dus[3][3][3], dps[3][3][3];
    for (int i = 0; i < 3; i++) {
        y[i] = b[0] * q->v[0][i] + b[1] * q->v[1][i] + b[2] * q->v[2][i];
        r[i] = y[i] - q->x[i];
    }
    ep_bem_kelvin(r, q->n, q->nu, us, ps);
    ep_bem_kelvin_grad(r, q->n, q->nu, dus, dps);
    for (int a = 0; a < 3; a++) {
        double wa = w * b[a], *g = &q->g[a][0][0], *h = &q->h[a][0][0], *gd = &q->gd[a][0][0][0],
               *hd = &q->hd[a][0][0][0];
        const double *u = &us[0][0], *p = &ps[0][0], *du = &dus[0][0][0], *dp = &dps[0][0][0];
        for (int k = 0; k < 9; k++)
            g[k] += wa * u[k], h[k] += wa * p[k];
        for (int k = 0; k < 27; k++)
            gd[k] += wa * du[k], hd[k] += wa * dp[k];
    }
}

static void add_grad(void *q, const double b[3], double w) { accumulate_grad(q, b, w); }

void ep_bem_triangle_grad(const double x[3], const double v[3][3], double nu, double g[3][3][3], double h[3][3][3],
                          double gd[3][3][3][3], double hd[3][3][3][3])
{
    quad_grad q = {x, v, {0, 0, 0}, nu, g, h, gd, hd};
    double twice = unit_normal(v, q.n);
    memset(g, 0, 27 * sizeof(double));
    memset(h, 0, 27 * sizeof(double));
    memset(gd, 0, 81 * sizeof(double));
    memset(hd, 0, 81 * sizeof(double));
    static const double corners[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    subdivide(x, v, corners, 0.5 * twice, 0, 16.0, EP_BEM_GRAD_DEPTH, add_grad, &q); /* four diameters */
}
