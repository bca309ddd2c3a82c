/*
 * voxel.c — triangle soup to voxel hexahedra (voxel.h).
 */
#include "voxel.h"
#include "err.h"
#include "hex.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int ep_voxel_setup(ep_voxel *g, const ep_mesh *m, int res)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, L = 0;
    memset(g, 0, sizeof *g);
    if (res < 1)
        return ep_fail(EP_EINPUT, "resolution %d: must be at least 1", res);
    if (m->nf < 1)
        return ep_fail(EP_EINPUT, "%s: no triangles to voxelize", m->source);
    for (long k = 0; k < 3L * m->nf; k++)
        for (int i = 0; i < 3; i++) {
            double x = m->vertices[3 * (size_t)m->triangles[k] + i];
            lo[i] = fmin(lo[i], x);
            hi[i] = fmax(hi[i], x);
        }
    for (int i = 0; i < 3; i++)
        L = fmax(L, hi[i] - lo[i]);
    if (!(L > 0) || !isfinite(L))
        return ep_fail(EP_EINPUT, "%s: the triangles span no volume (bounding box of size %g)", m->source, L);
    g->res = res;
    g->h = L / res;
    double cells = 1, corners = 1;
    for (int i = 0; i < 3; i++) {
        /* the longest side takes res cells; 1e-9 keeps a side that is a whole
         * number of cells from taking one more for rounding */
        double n = fmax(1, ceil((hi[i] - lo[i]) / g->h - 1e-9));
        cells *= n;
        corners *= n + 1;
        g->n[i] = n < INT_MAX ? (int)n : INT_MAX;
        g->origin[i] = 0.5 * (lo[i] + hi[i]) - 0.5 * n * g->h;
    }
    if (corners >= INT_MAX)
        return ep_fail(EP_EINPUT, "resolution %d: %.3g grid cells, more than int32 ids can number", res, cells);
    g->ncells = (long)cells;
    return EP_OK;
}

void ep_voxel_free(ep_voxel *g)
{
    free(g->cell);
    free(g->label);
    free(g->comp_size);
    memset(g, 0, sizeof *g);
}

double ep_voxel_grid_bytes(const ep_voxel *g)
{
    /* state (1) + fill or component queue (4) + label (4) per cell, corner ids (4) */
    double corners = (g->n[0] + 1.0) * (g->n[1] + 1.0) * (g->n[2] + 1.0);
    return 9.0 * (double)g->ncells + 4.0 * corners;
}

double ep_voxel_mesh_bytes(long nh)
{
    /* hex (32) and about one vertex (24) per cell; the boundary a tool
     * derives: up to six face records of 24 bytes and their sort (x 2) */
    return (32.0 + 24.0 + 2 * 6 * 24.0) * (double)nh;
}

/* Projections of the triangle (v[3], centred on the box) onto axis a are
 * apart from the box's, radius hs |a|. */
static int separated(const double v[3][3], const double a[3], const double hs[3])
{
    double p0 = v[0][0] * a[0] + v[0][1] * a[1] + v[0][2] * a[2];
    double p1 = v[1][0] * a[0] + v[1][1] * a[1] + v[1][2] * a[2];
    double p2 = v[2][0] * a[0] + v[2][1] * a[1] + v[2][2] * a[2];
    double r = hs[0] * fabs(a[0]) + hs[1] * fabs(a[1]) + hs[2] * fabs(a[2]);
    double mn = fmin(p0, fmin(p1, p2)), mx = fmax(p0, fmax(p1, p2));
    return mn > r || mx < -r;
}

int ep_voxel_triangle_box(const double a[3], const double b[3], const double c[3], const double c0[3],
                          const double hs[3])
{
    double v[3][3], e[3][3];
    for (int i = 0; i < 3; i++) {
        v[0][i] = a[i] - c0[i];
        v[1][i] = b[i] - c0[i];
        v[2][i] = c[i] - c0[i];
    }
    for (int i = 0; i < 3; i++) /* the box's face normals: bounding boxes */
        if (fmin(v[0][i], fmin(v[1][i], v[2][i])) > hs[i] || fmax(v[0][i], fmax(v[1][i], v[2][i])) < -hs[i])
            return 0;
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < 3; i++)
            e[k][i] = v[(k + 1) % 3][i] - v[k][i];
    double n[3] = {e[0][1] * e[1][2] - e[0][2] * e[1][1], e[0][2] * e[1][0] - e[0][0] * e[1][2],
                   e[0][0] * e[1][1] - e[0][1] * e[1][0]};
    if (separated(v, n, hs)) /* the triangle's plane */
        return 0;
    for (int k = 0; k < 3; k++) /* edge x box axis */
        for (int i = 0; i < 3; i++) {
            double ax[3] = {0, 0, 0};
            ax[(i + 1) % 3] = -e[k][(i + 2) % 3]; /* unit_i x e_k */
            ax[(i + 2) % 3] = e[k][(i + 1) % 3];
            if (separated(v, ax, hs))
                return 0;
        }
    return 1;
}

/* Report progress every EP_PROGRESS_EVERY steps and at done == total. */
static void report(const ep_voxel *g, const char *what, long done, long total)
{
    (void)g;
    if (done % EP_PROGRESS_EVERY == 0 || done >= total)
        ep_progress_report(what, done < total ? done : total, total);
}

static long cell_index(const ep_voxel *g, int i, int j, int k)
{
    return i + (long)g->n[0] * (j + (long)g->n[1] * k);
}

/* Cell range [lo, hi] along axis i covering coordinates [a, b], clamped. */
static void cell_range(const ep_voxel *g, int i, double a, double b, int *lo, int *hi)
{
    double fa = floor((a - g->origin[i]) / g->h), fb = floor((b - g->origin[i]) / g->h);
    *lo = fa < 0 ? 0 : fa > g->n[i] - 1 ? g->n[i] - 1 : (int)fa;
    *hi = fb < 0 ? 0 : fb > g->n[i] - 1 ? g->n[i] - 1 : (int)fb;
}

/* Mark the cells of the block lo..hi (inclusive, per axis) that triangle
 * p meets: the block as one box first (a box around its cells, widened as
 * they are, a little more for rounding), halved along its longest side
 * while the triangle meets it, each cell tested as before at the end.  The
 * blocks tested are those the triangle meets at each of about log2(res)
 * sizes, so the work is near linear in the cells the triangle covers: a box
 * of cells around a huge triangle tested every cell of its bounding box
 * (res^3 per triangle; issue 37, class 6). */
static void mark_block(ep_voxel *g, const double *const p[3], const int lo[3], const int hi[3], const double hs[3])
{
    int n[3] = {hi[0] - lo[0] + 1, hi[1] - lo[1] + 1, hi[2] - lo[2] + 1};
    if (n[0] == 1 && n[1] == 1 && n[2] == 1) {
        long c = cell_index(g, lo[0], lo[1], lo[2]);
        if (g->cell[c] == EP_VOXEL_SURFACE)
            return;
        double c0[3] = {g->origin[0] + (lo[0] + 0.5) * g->h, g->origin[1] + (lo[1] + 0.5) * g->h,
                        g->origin[2] + (lo[2] + 0.5) * g->h};
        if (ep_voxel_triangle_box(p[0], p[1], p[2], c0, hs)) {
            g->cell[c] = EP_VOXEL_SURFACE;
            g->nsurface++;
        }
        return;
    }
    double c0[3], bh[3];
    for (int i = 0; i < 3; i++) {
        c0[i] = g->origin[i] + 0.5 * (lo[i] + hi[i] + 1) * g->h;
        bh[i] = 0.5 * n[i] * g->h + (hs[i] - 0.5 * g->h) + 1e-7 * g->h * n[i];
    }
    if (!ep_voxel_triangle_box(p[0], p[1], p[2], c0, bh))
        return;
    int a = n[0] >= n[1] && n[0] >= n[2] ? 0 : n[1] >= n[2] ? 1 : 2, mid = lo[a] + n[a] / 2;
    int lo2[3] = {lo[0], lo[1], lo[2]}, hi1[3] = {hi[0], hi[1], hi[2]};
    hi1[a] = mid - 1;
    lo2[a] = mid;
    mark_block(g, p, lo, hi1, hs);
    mark_block(g, p, lo2, hi, hs);
}

int ep_voxel_surface(ep_voxel *g, const ep_mesh *m)
{
    free(g->cell);
    g->cell = ep_calloc((size_t)g->ncells, 1);
    if (!g->cell)
        return EP_ECOMPUTE;
    /* cells widened by 1e-9 of their size: a triangle in a grid plane (an
     * aligned model's face) touches the cells on both sides, not whichever
     * rounding of the cell centres favours */
    double hs[3] = {0.5 * g->h * (1 + 1e-9), 0.5 * g->h * (1 + 1e-9), 0.5 * g->h * (1 + 1e-9)};
    g->nsurface = 0;
    report(g, "touched cells", 0, m->nf);
    for (int t = 0; t < m->nf; t++) {
        const double *p[3];
        int lo[3], hi[3];
        for (int k = 0; k < 3; k++)
            p[k] = &m->vertices[3 * (size_t)m->triangles[3 * t + k]];
        for (int i = 0; i < 3; i++)
            cell_range(g, i, fmin(p[0][i], fmin(p[1][i], p[2][i])), fmax(p[0][i], fmax(p[1][i], p[2][i])), &lo[i],
                       &hi[i]);
        mark_block(g, p, lo, hi, hs);
        report(g, "touched cells", t + 1L, m->nf);
    }
    return EP_OK;
}

/* The face neighbours of cell c inside the grid; returns their number. */
static int neighbours(const ep_voxel *g, long c, long nb[6])
{
    long n0 = g->n[0], n01 = n0 * g->n[1];
    int i = (int)(c % n0), j = (int)(c / n0 % g->n[1]), k = (int)(c / n01), n = 0;
    if (i > 0)
        nb[n++] = c - 1;
    if (i < g->n[0] - 1)
        nb[n++] = c + 1;
    if (j > 0)
        nb[n++] = c - n0;
    if (j < g->n[1] - 1)
        nb[n++] = c + n0;
    if (k > 0)
        nb[n++] = c - n01;
    if (k < g->n[2] - 1)
        nb[n++] = c + n01;
    return n;
}

static int solid(const ep_voxel *g, long c, int shell)
{
    return g->cell[c] == EP_VOXEL_SURFACE || (!shell && g->cell[c] == EP_VOXEL_INSIDE);
}

int ep_voxel_fill(ep_voxel *g)
{
    int *q = ep_malloc((size_t)g->ncells, sizeof *q);
    long n = 0;
    if (!q)
        return EP_ECOMPUTE;
    for (int k = 0; k < g->n[2]; k++) /* the grid's boundary cells start the fill */
        for (int j = 0; j < g->n[1]; j++)
            for (int i = 0; i < g->n[0]; i++) {
                if (i > 0 && j > 0 && k > 0 && i < g->n[0] - 1 && j < g->n[1] - 1 && k < g->n[2] - 1)
                    i = g->n[0] - 1; /* skip the interior of this row */
                long c = cell_index(g, i, j, k);
                if (g->cell[c] == EP_VOXEL_UNKNOWN) {
                    g->cell[c] = EP_VOXEL_OUTSIDE;
                    q[n++] = (int)c;
                }
            }
    long untouched = g->ncells - g->nsurface; /* the most the fill can reach */
    for (long head = 0; head < n; head++) { /* breadth first through untouched cells */
        long nb[6];
        report(g, "outside cells", head, untouched);
        for (int s = neighbours(g, q[head], nb) - 1; s >= 0; s--)
            if (g->cell[nb[s]] == EP_VOXEL_UNKNOWN) {
                g->cell[nb[s]] = EP_VOXEL_OUTSIDE;
                q[n++] = (int)nb[s];
            }
    }
    free(q);
    report(g, "outside cells", untouched, untouched);
    g->ninside = 0;
    for (long c = 0; c < g->ncells; c++)
        if (g->cell[c] == EP_VOXEL_UNKNOWN) {
            g->cell[c] = EP_VOXEL_INSIDE;
            g->ninside++;
        }
    return EP_OK;
}

int ep_voxel_components(ep_voxel *g, int shell)
{
    int *q = ep_malloc((size_t)g->ncells, sizeof *q);
    free(g->label);
    free(g->comp_size);
    g->comp_size = NULL;
    g->ncomp = g->largest = 0;
    g->label = ep_calloc((size_t)g->ncells, sizeof *g->label);
    if (!q || !g->label) {
        free(q);
        return EP_ECOMPUTE;
    }
    size_t cap = 0;
    for (long c = 0; c < g->ncells; c++) {
        report(g, "components", c, g->ncells);
        if (g->label[c] || !solid(g, c, shell))
            continue;
        if ((size_t)g->ncomp + 2 > cap) {
            cap = cap ? 2 * cap : 64;
            if (ep_grow(&g->comp_size, cap, sizeof *g->comp_size)) {
                free(q);
                return EP_ECOMPUTE;
            }
        }
        int lab = ++g->ncomp;
        long n = 1;
        g->label[c] = lab;
        q[0] = (int)c;
        for (long head = 0; head < n; head++) {
            long nb[6];
            for (int s = neighbours(g, q[head], nb) - 1; s >= 0; s--)
                if (!g->label[nb[s]] && solid(g, nb[s], shell)) {
                    g->label[nb[s]] = lab;
                    q[n++] = (int)nb[s];
                }
        }
        g->comp_size[lab] = n;
        if (!g->largest || g->comp_size[lab] > g->comp_size[g->largest])
            g->largest = lab;
    }
    free(q);
    report(g, "components", g->ncells, g->ncells);
    return EP_OK;
}

int ep_voxel_mesh(const ep_voxel *g, int comp, double **vertices, int *nv, int **hexes, int *nh)
{
    long c0 = g->n[0] + 1L, c1 = g->n[1] + 1L, ncorner = c0 * c1 * (g->n[2] + 1L), count = 0, nvert = 0;
    *vertices = NULL;
    *hexes = NULL;
    *nv = *nh = 0;
    for (long c = 0; c < g->ncells; c++)
        count += g->label[c] && (!comp || g->label[c] == comp);
    if (count == 0)
        return ep_fail(EP_EINPUT, "no solid cell at resolution %d", g->res);
    int *id = ep_malloc((size_t)ncorner, sizeof *id), *hx = ep_malloc((size_t)count, 8 * sizeof *hx);
    double *x = NULL;
    if (!id || !hx)
        goto fail;
    for (long k = 0; k < ncorner; k++)
        id[k] = -1;
    long off[8];
    for (int a = 0; a < 8; a++)
        off[a] = (ep_hex_corner[a][0] > 0) + c0 * ((ep_hex_corner[a][1] > 0) + c1 * (ep_hex_corner[a][2] > 0));
    for (long c = 0; c < g->ncells; c++) /* mark the corners used */
        if (g->label[c] && (!comp || g->label[c] == comp)) {
            long i = c % g->n[0], j = c / g->n[0] % g->n[1], k = c / g->n[0] / g->n[1], base = i + c0 * (j + c1 * k);
            for (int a = 0; a < 8; a++)
                id[base + off[a]] = 0;
        }
    for (long k = 0; k < ncorner; k++)
        if (id[k] == 0)
            id[k] = (int)++nvert; /* 1-based while numbering; -1 for unused */
    x = ep_malloc((size_t)nvert, 3 * sizeof *x);
    if (!x)
        goto fail;
    for (long k = 0; k < ncorner; k++)
        if (id[k] > 0) {
            long i = k % c0, j = k / c0 % c1, l = k / c0 / c1;
            double *p = &x[3 * (size_t)(id[k] - 1)];
            p[0] = g->origin[0] + (double)i * g->h;
            p[1] = g->origin[1] + (double)j * g->h;
            p[2] = g->origin[2] + (double)l * g->h;
        }
    long e = 0;
    for (long c = 0; c < g->ncells; c++) {
        report(g, "mesh", c, g->ncells);
        if (g->label[c] && (!comp || g->label[c] == comp)) {
            long i = c % g->n[0], j = c / g->n[0] % g->n[1], k = c / g->n[0] / g->n[1], base = i + c0 * (j + c1 * k);
            for (int a = 0; a < 8; a++)
                hx[8 * e + a] = id[base + off[a]] - 1;
            e++;
        }
    }
    report(g, "mesh", g->ncells, g->ncells);
    free(id);
    *vertices = x;
    *hexes = hx;
    *nv = (int)nvert;
    *nh = (int)count;
    return EP_OK;
fail:
    free(id);
    free(hx);
    free(x);
    return EP_ECOMPUTE;
}
