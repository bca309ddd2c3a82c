/*
 * gf_layout.c — which vertices are a GF file's block rows and block columns
 * (gf_layout.h).
 */
#include "gf_layout.h"
#include "err.h"
#include "sort.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

void ep_gf_layout_free(ep_gf_layout *L)
{
    free(L->row_vertex);
    free(L->row_fixed);
    free(L->col_vertex);
    free(L->load_ptr);
    free(L->load_vertex);
    free(L->load_weight);
    free(L->col_area);
    memset(L, 0, sizeof *L);
}

int ep_gf_layout_columns(ep_gf_layout *sub, const ep_gf_layout *L, int c0, int c1)
{
    memset(sub, 0, sizeof *sub);
    sub->entity = L->entity;
    sub->n = L->n;
    sub->m = c1 - c0;
    sub->row_vertex = ep_malloc((size_t)L->n, sizeof *sub->row_vertex);
    sub->row_fixed = ep_malloc((size_t)L->n, sizeof *sub->row_fixed);
    sub->col_vertex = ep_malloc((size_t)(sub->m ? sub->m : 1), sizeof *sub->col_vertex);
    if (!sub->row_vertex || !sub->row_fixed || !sub->col_vertex) {
        ep_gf_layout_free(sub);
        return EP_ECOMPUTE;
    }
    memcpy(sub->row_vertex, L->row_vertex, sizeof(int) * (size_t)L->n);
    memcpy(sub->row_fixed, L->row_fixed, (size_t)L->n);
    memcpy(sub->col_vertex, L->col_vertex + c0, sizeof(int) * (size_t)sub->m);
    if (L->load_ptr) { /* hat loads (gfhier.h): the range's loads, offsets from 0 */
        int k0 = L->load_ptr[c0], nk = L->load_ptr[c1] - k0;
        sub->load_ptr = ep_malloc((size_t)sub->m + 1, sizeof *sub->load_ptr);
        sub->load_vertex = ep_malloc((size_t)(nk ? nk : 1), sizeof *sub->load_vertex);
        sub->load_weight = ep_malloc((size_t)(nk ? nk : 1), sizeof *sub->load_weight);
        if (!sub->load_ptr || !sub->load_vertex || !sub->load_weight) {
            ep_gf_layout_free(sub);
            return EP_ECOMPUTE;
        }
        for (int c = 0; c <= sub->m; c++)
            sub->load_ptr[c] = L->load_ptr[c0 + c] - k0;
        memcpy(sub->load_vertex, L->load_vertex + k0, sizeof(int) * (size_t)nk);
        memcpy(sub->load_weight, L->load_weight + k0, sizeof(double) * (size_t)nk);
    }
    if (L->col_area) {
        if (!(sub->col_area = ep_malloc((size_t)(sub->m ? sub->m : 1), sizeof *sub->col_area))) {
            ep_gf_layout_free(sub);
            return EP_ECOMPUTE;
        }
        memcpy(sub->col_area, L->col_area + c0, sizeof(double) * (size_t)sub->m);
    }
    return EP_OK;
}

int ep_gf_layout_build(ep_gf_layout *L, const ep_mesh *m, const char *fixed, int all_columns, const int *cols,
                       int ncols)
{
    char *onb = ep_calloc((size_t)m->nv, 1);
    memset(L, 0, sizeof *L);
    L->entity = "vertex";
    L->n = m->nb;
    L->row_vertex = ep_malloc((size_t)m->nb, sizeof *L->row_vertex);
    L->row_fixed = ep_malloc((size_t)m->nb, sizeof *L->row_fixed);
    L->col_vertex = ep_malloc(cols ? (size_t)ncols : (size_t)m->nb, sizeof *L->col_vertex);
    if (!onb || !L->row_vertex || !L->row_fixed || !L->col_vertex) {
        free(onb);
        ep_gf_layout_free(L);
        return EP_ECOMPUTE;
    }
    for (int j = 0; j < m->nb; j++) {
        int v = m->boundary[j];
        onb[v] = 1;
        L->row_vertex[j] = v;
        L->row_fixed[j] = fixed[v] != 0;
        if (!cols && (all_columns || !fixed[v]))
            L->col_vertex[L->m++] = v;
    }
    for (int k = 0; cols && k < ncols; k++) {
        if (cols[k] < 0 || cols[k] >= m->nv || !onb[cols[k]]) {
            free(onb);
            ep_gf_layout_free(L);
            return ep_fail(EP_EINPUT, "%s: column vertex %d is not a boundary vertex", m->source, cols[k] + 1);
        }
        L->col_vertex[L->m++] = cols[k];
    }
    free(onb);
    if (L->m == 0) {
        ep_gf_layout_free(L);
        return ep_fail(EP_EINPUT, "%s: no Green's function column to compute (every boundary vertex is fixed)",
                       m->source);
    }
    return EP_OK;
}

int ep_gf_layout_triangles(ep_gf_layout *L, const ep_mesh *m, const char *fixed, int all_columns)
{
    int nfixed = 0;
    memset(L, 0, sizeof *L);
    L->entity = "triangle";
    L->n = m->nf;
    L->row_vertex = ep_malloc((size_t)m->nf, sizeof *L->row_vertex);
    L->row_fixed = ep_malloc((size_t)m->nf, sizeof *L->row_fixed);
    L->col_vertex = ep_malloc((size_t)m->nf, sizeof *L->col_vertex);
    if (!L->row_vertex || !L->row_fixed || !L->col_vertex) {
        ep_gf_layout_free(L);
        return EP_ECOMPUTE;
    }
    for (int t = 0; t < m->nf; t++) {
        const int *v = &m->triangles[3 * t];
        L->row_vertex[t] = t;
        L->row_fixed[t] = fixed[v[0]] && fixed[v[1]] && fixed[v[2]];
        nfixed += L->row_fixed[t];
        if (all_columns || !L->row_fixed[t])
            L->col_vertex[L->m++] = t;
    }
    if (nfixed == 0 || L->m == 0) {
        ep_gf_layout_free(L);
        return ep_fail(EP_EINPUT, "%s: %s (constant elements: a triangle is fixed when its three vertices are)",
                       m->source, nfixed ? "every triangle is fixed" : "no triangle has all three vertices fixed");
    }
    return EP_OK;
}

int ep_gf_layout_row_areas(const ep_gf_layout *L, const ep_mesh *m, double **area)
{
    if (!(*area = ep_malloc((size_t)L->n, sizeof **area)))
        return EP_ECOMPUTE;
    for (int r = 0; r < L->n; r++) /* boundary ids ascending; every row vertex is one of them */
        (*area)[r] = m->vertex_area[EP_SORT_LOWER_BOUND(m->boundary, (size_t)m->nb - 1, L->row_vertex[r])];
    return EP_OK;
}

int ep_gf_layout_column_rows(const ep_gf_layout *L, int **col_row_out)
{
    int nid = 0;
    for (int r = 0; r < L->n; r++)
        nid = L->row_vertex[r] + 1 > nid ? L->row_vertex[r] + 1 : nid;
    for (int c = 0; c < L->m; c++)
        nid = L->col_vertex[c] + 1 > nid ? L->col_vertex[c] + 1 : nid;
    int *at = ep_malloc((size_t)nid + 1, sizeof *at), *col_row = ep_malloc((size_t)L->m + 1, sizeof *col_row);
    *col_row_out = NULL;
    if (!at || !col_row) {
        free(at), free(col_row);
        return EP_ECOMPUTE;
    }
    for (int v = 0; v < nid; v++)
        at[v] = -1;
    for (int r = 0; r < L->n; r++)
        at[L->row_vertex[r]] = r;
    for (int c = 0; c < L->m; c++) {
        col_row[c] = at[L->col_vertex[c]];
        assert(col_row[c] >= 0); /* a column is a boundary vertex, so a row */
    }
    free(at);
    *col_row_out = col_row;
    return EP_OK;
}
