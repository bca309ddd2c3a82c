/*
 * gfhier.c — the hierarchy under a GF file and GFs of hierarchical
 * constraints (gfhier.h).
 */
#define _GNU_SOURCE /* qsort_r */
#include "gfhier.h"
#include "err.h"
#include "model.h"
#include "vec3.h"
#include "wavelet.h"

#include <stdlib.h>
#include <string.h>

static int cmp_x(const void *a, const void *b, void *ctx)
{
    const double *x = ctx;
    double u = x[3 * *(const int *)a], v = x[3 * *(const int *)b];
    return u < v ? -1 : u > v;
}

/* Match every GF row to the hierarchy vertex at the same position (within
 * 1e-6 of the model size): the GF mesh may be a tet mesh whose surface is the
 * loopsub surface, written by a mesher that kept the boundary vertices. */
static int match_rows(const ep_gf_file *g, ep_gfhier *H)
{
    const ep_mesh *h = H->h, *m = &g->mesh;
    int n = g->L.n, st = EP_OK, *order = ep_malloc((size_t)h->nv + 1, sizeof *order);
    char *used = ep_calloc((size_t)h->nv + 1, 1);
    double tol = 1e-6 * ep_mesh_diameter(h), tol2 = tol * tol;
    if (!order || !used) {
        st = EP_ECOMPUTE;
        goto out;
    }
    if (n != h->nv) {
        st = ep_fail(EP_EINPUT, "%s: %d boundary rows, but the hierarchy %s has %d vertices (mismatched mesh)",
                     g->f.path, n, h->source, h->nv);
        goto out;
    }
    for (int v = 0; v < h->nv; v++)
        order[v] = v;
    qsort_r(order, (size_t)h->nv, sizeof *order, cmp_x, h->vertices);
    for (int r = 0; r < n && !st; r++) {
        const double *x = &m->vertices[3 * (size_t)g->L.row_vertex[r]];
        int lo = 0, hi = h->nv, hit = -1;
        while (lo < hi) { /* first candidate with xh >= x - tol */
            int mid = (lo + hi) / 2;
            if (h->vertices[3 * (size_t)order[mid]] < x[0] - tol)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (int i = lo; i < h->nv && h->vertices[3 * (size_t)order[i]] <= x[0] + tol; i++) {
            if (ep_vec3_dist2(x, &h->vertices[3 * (size_t)order[i]]) <= tol2 && !used[order[i]])
                hit = order[i];
        }
        if (hit < 0)
            st = ep_fail(EP_EINPUT, "%s: boundary vertex %d (%g, %g, %g) has no vertex of the hierarchy %s "
                         "(mismatched mesh)", g->f.path, g->L.row_vertex[r] + 1, x[0], x[1], x[2], h->source);
        else
            used[hit] = 1, H->row_h[r] = hit;
    }
out:
    free(order), free(used);
    return st;
}

int ep_gfhier_load(ep_gfhier *H, const ep_gf_file *g, const char *path)
{
    int st;
    memset(H, 0, sizeof *H);
    H->h = &g->mesh;
    if (!(H->row_h = ep_malloc((size_t)g->L.n, sizeof *H->row_h)))
        return EP_ECOMPUTE;
    if (strcmp(g->entity, "vertex"))
        return ep_fail(EP_EINPUT, "%s: GFs of constant elements (entity triangle) have no vertex hierarchy; "
                       "compress vertex-based GFs", g->f.path);
    if (path) {
        if ((st = ep_model_read(&H->own, path)))
            return st;
        H->h = &H->own;
        if (H->own.tets)
            return ep_fail(EP_EINPUT, "%s: --hierarchy wants the loopsub surface, not a tet mesh", path);
    }
    if (!H->h->level)
        return ep_fail(EP_EINPUT, "%s: the mesh has no level data (/mesh/level); make the surface with loopsub%s",
                       path ? path : g->f.path, path ? "" : ", or name it with --hierarchy SURFACE.h5");
    if (!path) {
        if (H->h->nv != g->L.n)
            return ep_fail(EP_EINPUT, "%s: the mesh has level data but %d of its %d vertices are no GF row; "
                           "give the surface with --hierarchy", g->f.path, H->h->nv - g->L.n, H->h->nv);
        for (int r = 0; r < g->L.n; r++)
            H->row_h[r] = g->L.row_vertex[r];
    } else if ((st = match_rows(g, H)))
        return st;
    for (int v = 0; v < H->h->nv; v++)
        H->levels = H->h->level[v] + 1 > H->levels ? H->h->level[v] + 1 : H->levels;
    return EP_OK;
}

void ep_gfhier_free(ep_gfhier *H)
{
    ep_mesh_free(&H->own);
    free(H->row_h);
    memset(H, 0, sizeof *H);
}

int ep_gfhier_layout(ep_gf_layout *L2, const ep_gfhier *H, const ep_gf_file *g, int l)
{
    const ep_gf_layout *L = &g->L;
    int *col_row = NULL, st;
    memset(L2, 0, sizeof *L2);
    L2->entity = L->entity;
    L2->n = L->n;
    if (!(L2->row_vertex = ep_malloc((size_t)L->n, sizeof *L2->row_vertex)) ||
        !(L2->row_fixed = ep_malloc((size_t)L->n, sizeof *L2->row_fixed)) ||
        !(L2->col_vertex = ep_malloc((size_t)L->m, sizeof *L2->col_vertex)))
        return EP_ECOMPUTE;
    memcpy(L2->row_vertex, L->row_vertex, (size_t)L->n * sizeof *L2->row_vertex);
    memcpy(L2->row_fixed, L->row_fixed, (size_t)L->n * sizeof *L2->row_fixed);
    if ((st = ep_gf_layout_column_rows(L, &col_row)))
        return st;
    for (int c = 0; c < L->m; c++)
        if (H->h->level[H->row_h[col_row[c]]] <= l)
            L2->col_vertex[L2->m++] = L->col_vertex[c];
    free(col_row);
    if (L2->m == 0)
        return ep_fail(EP_EINPUT, "%s: no GF column at a vertex of level <= %d", g->f.path, l);
    return EP_OK;
}

int ep_gfhier_columns(const ep_gfhier *H, ep_gf_file *g, int l,
                      int (*put)(void *ctx, long row0, long nrows, const double *rows), void *ctx)
{
    const ep_mesh *h = H->h;
    int n = g->L.n, m = g->L.m, st;
    size_t n3 = 3 * (size_t)n;
    int *col_of_h = ep_malloc((size_t)h->nv, sizeof *col_of_h), *col_row = NULL,
        *row_of_h = ep_malloc((size_t)h->nv, sizeof *row_of_h);
    double *hat = ep_malloc((size_t)h->nv, sizeof *hat), *acc = ep_malloc(3 * n3, sizeof *acc),
           *in = ep_malloc(3 * n3, sizeof *in);
    if (!col_of_h || !row_of_h || !hat || !acc || !in) {
        st = EP_ECOMPUTE;
        goto out;
    }
    if ((st = ep_gf_layout_column_rows(&g->L, &col_row)))
        goto out;
    for (int v = 0; v < h->nv; v++)
        col_of_h[v] = -1;
    for (int r = 0; r < n; r++) /* every hierarchy vertex is a row (ep_gfhier_load) */
        row_of_h[H->row_h[r]] = r;
    for (int c = 0; c < m; c++)
        col_of_h[H->row_h[col_row[c]]] = c;
    for (int c = 0, k = 0; c < m && !st; c++) {
        int v = H->row_h[col_row[c]];
        if (h->level[v] > l)
            continue;
        ep_wavelet_hat(h, l, v, hat);
        memset(acc, 0, 3 * n3 * sizeof *acc);
        for (int u = 0; u < h->nv && !st; u++) {
            int cu = col_of_h[u], r = row_of_h[u];
            if (hat[u] == 0 || g->L.row_fixed[r])
                continue;
            if (cu < 0)
                st = ep_fail(EP_EINPUT, "%s: the level-%d hat of vertex %d needs the GF column of free vertex %d, "
                             "which the file lacks (compute every free column)", g->f.path, l,
                             g->L.col_vertex[c] + 1, g->L.row_vertex[r] + 1);
            else if (!(st = ep_gf_file_rows(g, 3L * cu, 3, in)))
                for (size_t i = 0; i < 3 * n3; i++)
                    acc[i] += hat[u] * in[i];
        }
        if (!st)
            st = put(ctx, 3L * k++, 3, acc);
    }
out:
    free(col_of_h), free(col_row), free(row_of_h), free(hat), free(acc), free(in);
    return st;
}
