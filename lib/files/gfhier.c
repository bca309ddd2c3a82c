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
static int match_rows(const ep_mesh *m, const ep_gf_layout *L, const char *source, ep_gfhier *H)
{
    const ep_mesh *h = H->h;
    int n = L->n, st = EP_OK, *order = ep_malloc((size_t)h->nv + 1, sizeof *order);
    char *used = ep_calloc((size_t)h->nv + 1, 1);
    double tol = 1e-6 * ep_mesh_diameter(h), tol2 = tol * tol;
    if (!order || !used) {
        st = EP_ECOMPUTE;
        goto out;
    }
    if (n != h->nv) {
        st = ep_fail(EP_EINPUT, "%s: %d boundary rows, but the hierarchy %s has %d vertices (mismatched mesh)",
                     source, n, h->source, h->nv);
        goto out;
    }
    for (int v = 0; v < h->nv; v++)
        order[v] = v;
    qsort_r(order, (size_t)h->nv, sizeof *order, cmp_x, h->vertices);
    for (int r = 0; r < n && !st; r++) {
        const double *x = &m->vertices[3 * (size_t)L->row_vertex[r]];
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
                         "(mismatched mesh)", source, L->row_vertex[r] + 1, x[0], x[1], x[2], h->source);
        else
            used[hit] = 1, H->row_h[r] = hit;
    }
out:
    free(order), free(used);
    return st;
}

int ep_gfhier_build(ep_gfhier *H, const ep_mesh *m, const ep_gf_layout *L, const char *source, const char *path)
{
    int st;
    memset(H, 0, sizeof *H);
    H->h = m;
    if (!(H->row_h = ep_malloc((size_t)L->n, sizeof *H->row_h)))
        return EP_ECOMPUTE;
    if (strcmp(L->entity, "vertex"))
        return ep_fail(EP_EINPUT, "%s: GFs of constant elements (entity triangle) have no vertex hierarchy; "
                       "use vertex-based GFs", source);
    if (path) {
        if ((st = ep_model_read(&H->own, path)))
            return st;
        H->h = &H->own;
        if (H->own.tets)
            return ep_fail(EP_EINPUT, "%s: --hierarchy wants the loopsub surface, not a tet mesh", path);
    }
    if (!H->h->level)
        return ep_fail(EP_EINPUT, "%s: the mesh has no level data (/mesh/level); make the surface with loopsub%s",
                       path ? path : source, path ? "" : ", or name it with --hierarchy SURFACE.h5");
    if (!path) {
        if (H->h->nv != L->n)
            return ep_fail(EP_EINPUT, "%s: the mesh has level data but %d of its %d vertices are no GF row; "
                           "give the surface with --hierarchy", source, H->h->nv - L->n, H->h->nv);
        for (int r = 0; r < L->n; r++)
            H->row_h[r] = L->row_vertex[r];
    } else if ((st = match_rows(m, L, source, H)))
        return st;
    for (int v = 0; v < H->h->nv; v++)
        H->levels = H->h->level[v] + 1 > H->levels ? H->h->level[v] + 1 : H->levels;
    return EP_OK;
}

int ep_gfhier_load(ep_gfhier *H, const ep_gf_file *g, const char *path)
{
    return ep_gfhier_build(H, &g->mesh, &g->L, g->f.path, path);
}

void ep_gfhier_free(ep_gfhier *H)
{
    ep_mesh_free(&H->own);
    free(H->row_h);
    memset(H, 0, sizeof *H);
}

int ep_gfhier_layout(ep_gf_layout *L2, const ep_gfhier *H, const ep_gf_layout *L, const double *row_area,
                     const char *source, int l)
{
    const ep_mesh *h = H->h;
    int *col_row = NULL, *row_of_h = NULL, st;
    double *hat = NULL;
    memset(L2, 0, sizeof *L2);
    L2->entity = L->entity;
    L2->n = L->n;
    if (l > H->levels - 1)
        return ep_fail(EP_EINPUT, "%s: --constraint-level %d: the hierarchy has levels 0..%d", source, l,
                       H->levels - 1);
    if (!(L2->row_vertex = ep_malloc((size_t)L->n, sizeof *L2->row_vertex)) ||
        !(L2->row_fixed = ep_malloc((size_t)L->n, sizeof *L2->row_fixed)) ||
        !(L2->col_vertex = ep_malloc((size_t)L->m, sizeof *L2->col_vertex)) ||
        !(L2->load_ptr = ep_calloc((size_t)L->m + 1, sizeof *L2->load_ptr)) ||
        !(L2->col_area = ep_calloc((size_t)L->m + 1, sizeof *L2->col_area)) ||
        !(row_of_h = ep_malloc((size_t)h->nv, sizeof *row_of_h)) || !(hat = ep_malloc((size_t)h->nv, sizeof *hat)))
        goto nomem;
    memcpy(L2->row_vertex, L->row_vertex, (size_t)L->n * sizeof *L2->row_vertex);
    memcpy(L2->row_fixed, L->row_fixed, (size_t)L->n * sizeof *L2->row_fixed);
    if ((st = ep_gf_layout_column_rows(L, &col_row)))
        goto out;
    for (int r = 0; r < L->n; r++) /* every hierarchy vertex is a row (ep_gfhier_build) */
        row_of_h[H->row_h[r]] = r;
    /* The level-l hat of each coarse column vertex in the finest hats; fixed
     * vertices carry no traction load and drop out. */
    size_t nload = 0, cap = 0;
    for (int c = 0; c < L->m; c++) {
        int v = H->row_h[col_row[c]];
        if (h->level[v] > l)
            continue;
        ep_wavelet_hat(h, l, v, hat);
        for (int u = 0; u < h->nv; u++) {
            int r = row_of_h[u];
            if (hat[u] == 0 || L->row_fixed[r])
                continue;
            if (nload == cap) {
                cap = cap ? 2 * cap : 1024;
                if (ep_grow(&L2->load_vertex, cap, sizeof *L2->load_vertex) ||
                    ep_grow(&L2->load_weight, cap, sizeof *L2->load_weight))
                    goto nomem;
            }
            L2->col_area[L2->m] += hat[u] * row_area[r];
            L2->load_vertex[nload] = L->row_vertex[r];
            L2->load_weight[nload++] = hat[u];
        }
        L2->col_vertex[L2->m++] = L->col_vertex[c];
        L2->load_ptr[L2->m] = (int)nload;
    }
    st = L2->m ? EP_OK : ep_fail(EP_EINPUT, "%s: no GF column at a vertex of level <= %d", source, l);
    goto out;
nomem:
    st = EP_ECOMPUTE;
out:
    free(col_row), free(row_of_h), free(hat);
    return st;
}

int ep_gfhier_columns(const ep_gf_layout *L2, ep_gf_file *g,
                      int (*put)(void *ctx, long row0, long nrows, const double *rows), void *ctx)
{
    int n = g->L.n, m = g->L.m, nid = g->mesh.nv, st = EP_OK;
    size_t n3 = 3 * (size_t)n;
    int *col_of = ep_malloc((size_t)nid, sizeof *col_of);
    double *acc = ep_malloc(3 * n3, sizeof *acc), *in = ep_malloc(3 * n3, sizeof *in);
    if (!col_of || !acc || !in) {
        st = EP_ECOMPUTE;
        goto out;
    }
    for (int v = 0; v < nid; v++)
        col_of[v] = -1;
    for (int c = 0; c < m; c++)
        col_of[g->L.col_vertex[c]] = c;
    for (int k = 0; k < L2->m && !st; k++) {
        memset(acc, 0, 3 * n3 * sizeof *acc);
        for (int q = L2->load_ptr[k]; q < L2->load_ptr[k + 1] && !st; q++) {
            int u = L2->load_vertex[q], cu = col_of[u];
            if (cu < 0)
                st = ep_fail(EP_EINPUT, "%s: the hat of vertex %d needs the GF column of free vertex %d, "
                             "which the file lacks (compute every free column)", g->f.path,
                             L2->col_vertex[k] + 1, u + 1);
            else if (!(st = ep_gf_file_rows(g, 3L * cu, 3, in)))
                for (size_t i = 0; i < 3 * n3; i++)
                    acc[i] += L2->load_weight[q] * in[i];
        }
        if (!st)
            st = put(ctx, 3L * k, 3, acc);
    }
out:
    free(col_of), free(acc), free(in);
    return st;
}
