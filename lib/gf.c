/*
 * gf.c — Green's function layout and the streaming /gf writer (gf.h).
 */
#include "gf.h"
#include "err.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void ep_gf_layout_free(ep_gf_layout *L)
{
    free(L->row_vertex);
    free(L->row_fixed);
    free(L->col_vertex);
    memset(L, 0, sizeof *L);
}

int ep_gf_layout_build(const ep_mesh *m, const char *fixed, int all_columns, const int *cols, int ncols,
                       ep_gf_layout *L)
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

int ep_gf_layout_triangles(const ep_mesh *m, const char *fixed, int all_columns, ep_gf_layout *L)
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

int ep_gf_select_columns(const ep_mesh *m, const ep_vsel *spec, int **cols, int *ncols)
{
    char *onb = ep_calloc((size_t)m->nv, 1), *take = ep_calloc((size_t)m->nv, 1);
    int *ids = NULL, n = 0, st = EP_OK;
    if (!onb || !take) {
        st = EP_ECOMPUTE;
        goto out;
    }
    for (int j = 0; j < m->nb; j++)
        onb[m->boundary[j]] = 1;
    if (spec->ids_file) {
        if ((st = ep_vsel_read_ids(spec->ids_file, m->nv, &ids, &n)))
            goto out;
        for (int i = 0; i < n; i++) {
            if (!onb[ids[i]]) {
                st = ep_fail(EP_EINPUT, "%s: column vertex %d is not a boundary vertex", spec->ids_file, ids[i] + 1);
                goto out;
            }
            take[ids[i]] = 1;
        }
        free(ids);
        ids = NULL;
    }
    if (spec->has_box || spec->region) {
        ep_vsel geo = *spec;
        geo.ids_file = NULL;
        if ((st = ep_vsel_apply(m, &geo, "column vertex", &ids, &n)))
            goto out;
        for (int i = 0; i < n; i++)
            take[ids[i]] |= onb[ids[i]];
        free(ids);
        ids = NULL;
    }
    if ((st = ep_vsel_mask_ids(take, m->nv, cols, ncols)))
        goto out;
    if (*ncols == 0)
        st = ep_fail(EP_EINPUT, "%s: no boundary vertex selected for columns", m->source);
out:
    free(ids);
    free(onb);
    free(take);
    return st;
}

int ep_gf_column_option(ep_gf_columns *c, int code, const char *arg)
{
    switch (code) {
    case EP_OPT_COLUMNS:
        if (strcmp(arg, "free") && strcmp(arg, "all"))
            return ep_fail(EP_EUSAGE, "option --columns: expected free or all, got \"%s\"", arg);
        c->all = !strcmp(arg, "all");
        return EP_OK;
    case EP_OPT_COL_IDS:
        c->sel.ids_file = arg;
        return EP_OK;
    case EP_OPT_COL_BOX:
        return ep_vsel_parse_box(&c->sel, "--col-box", arg);
    case EP_OPT_COL_REGION:
        c->sel.region = arg;
        return EP_OK;
    }
    return -1;
}

int ep_gf_write_layout(ep_h5 *f, const ep_gf_layout *L, const char *method, const char *traction)
{
    hsize_t d[1] = {(hsize_t)L->m};
    int st;
    if ((st = ep_h5_write(f, "/gf/col_vertex", EP_I32, 1, d, L->col_vertex)))
        return st;
    d[0] = (hsize_t)L->n;
    if ((st = ep_h5_write(f, "/gf/row_vertex", EP_I32, 1, d, L->row_vertex)) ||
        (st = ep_h5_write(f, "/gf/row_fixed", EP_I8, 1, d, L->row_fixed)) ||
        (st = ep_h5_set_attr_string(f, "/gf", "method", method)) ||
        (st = ep_h5_set_attr_string(f, "/gf", "traction", traction)) ||
        (st = ep_h5_set_attr_string(f, "/gf", "entity", L->entity)))
        return st;
    return EP_OK;
}

int ep_gf_writer_open(ep_gf_writer *w, ep_h5 *f, const ep_gf_layout *L, const char *method, int single)
{
    hsize_t d[2];
    int st;
    memset(w, 0, sizeof *w);
    w->f = f;
    w->xi = H5I_INVALID_HID;
    w->ncols = 3L * L->n;
    if ((st = ep_gf_write_layout(f, L, method, strcmp(L->entity, "triangle") ? "hat" : "constant")))
        return st;
    d[0] = 3 * (hsize_t)L->m;
    d[1] = 3 * (hsize_t)L->n;
    hid_t s = H5Screate_simple(2, d, NULL);
    w->xi = H5Dcreate2(f->id, "/gf/xi", single ? H5T_IEEE_F32LE : H5T_IEEE_F64LE, s, H5P_DEFAULT, H5P_DEFAULT,
                       H5P_DEFAULT);
    H5Sclose(s);
    if (w->xi < 0)
        return ep_fail(EP_EIO, "%s: cannot create /gf/xi", f->path);
    return EP_OK;
}

/* Rows [row0, row0 + nrows) of the [*][ncols] dataset xi to or from rows
 * (double in memory; HDF5 converts to the stored type). */
static herr_t xi_rows(hid_t xi, long row0, long nrows, long ncols, double *rows, int write)
{
    hsize_t start[2] = {(hsize_t)row0, 0}, count[2] = {(hsize_t)nrows, (hsize_t)ncols};
    hid_t fs = H5Dget_space(xi), ms = H5Screate_simple(2, count, NULL);
    herr_t r = H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
    if (r >= 0)
        r = write ? H5Dwrite(xi, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, rows)
                  : H5Dread(xi, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, rows);
    H5Sclose(ms);
    H5Sclose(fs);
    return r;
}

int ep_gf_writer_put(ep_gf_writer *w, long row0, long nrows, const double *rows)
{
    herr_t r = xi_rows(w->xi, row0, nrows, w->ncols, (double *)rows, 1);
    return r < 0 ? ep_fail(EP_EIO, "%s: cannot write /gf/xi rows %ld..%ld", w->f->path, row0, row0 + nrows - 1)
                 : EP_OK;
}

int ep_gf_writer_close(ep_gf_writer *w)
{
    int st = EP_OK;
    if (w->xi >= 0 && H5Dclose(w->xi) < 0)
        st = ep_fail(EP_EIO, "%s: cannot close /gf/xi", w->f->path);
    w->xi = H5I_INVALID_HID;
    return st;
}

/* ---- reading ---------------------------------------------------------------- */

int *ep_gf_column_rows(const ep_gf_layout *L)
{
    int nid = 0;
    for (int r = 0; r < L->n; r++)
        nid = L->row_vertex[r] + 1 > nid ? L->row_vertex[r] + 1 : nid;
    for (int c = 0; c < L->m; c++)
        nid = L->col_vertex[c] + 1 > nid ? L->col_vertex[c] + 1 : nid;
    int *at = ep_malloc((size_t)nid + 1, sizeof *at), *col_row = ep_malloc((size_t)L->m + 1, sizeof *col_row);
    if (!at || !col_row) {
        free(at), free(col_row);
        return NULL;
    }
    for (int v = 0; v < nid; v++)
        at[v] = -1;
    for (int r = 0; r < L->n; r++)
        at[L->row_vertex[r]] = r;
    for (int c = 0; c < L->m; c++)
        col_row[c] = at[L->col_vertex[c]];
    free(at);
    return col_row;
}

int ep_gf_row_areas(const ep_gf_file *g, double **area)
{
    const ep_mesh *m = &g->mesh;
    if (!(*area = ep_malloc((size_t)g->L.n, sizeof **area)))
        return EP_ECOMPUTE;
    for (int r = 0; r < g->L.n; r++) { /* boundary ids ascending: binary search */
        int v = g->L.row_vertex[r], lo = 0, hi = m->nb - 1;
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (m->boundary[mid] < v)
                lo = mid + 1;
            else
                hi = mid;
        }
        (*area)[r] = m->vertex_area[lo];
    }
    return EP_OK;
}

static int check_layout(ep_gf_file *g)
{
    const ep_mesh *m = &g->mesh;
    ep_gf_layout *L = &g->L;
    int tri = !strcmp(g->entity, "triangle"), lim = tri ? m->nf : m->nv, st = EP_OK;
    char *seen = ep_calloc((size_t)lim + 1, 1);
    if (!seen)
        return EP_ECOMPUTE;
    if (!tri)
        for (int j = 0; j < m->nb; j++)
            seen[m->boundary[j]] = 2; /* 2: boundary vertex not yet a row */
    for (int r = 0; r < L->n && !st; r++) {
        int v = L->row_vertex[r];
        if (v < 0 || v >= lim || seen[v] == 1 || (!tri && !seen[v]))
            st = ep_fail(EP_EINPUT, "%s: /gf/row_vertex: row %d names %s %d, which is %s", g->f.path, r,
                         g->entity, v + 1, v < 0 || v >= lim ? "out of range" : seen[v] == 1 ? "repeated"
                                                                                           : "not on the boundary");
        else if (L->row_fixed[r] != 0 && L->row_fixed[r] != 1)
            st = ep_fail(EP_EINPUT, "%s: /gf/row_fixed: value %d at row %d (expected 0 or 1)", g->f.path,
                         L->row_fixed[r], r);
        else
            seen[v] = 1;
    }
    for (int c = 0; c < L->m && !st; c++) {
        int v = L->col_vertex[c];
        if (v < 0 || v >= lim || seen[v] != 1)
            st = ep_fail(EP_EINPUT, "%s: /gf/col_vertex: column %d names %s %d, which is no row", g->f.path, c,
                         g->entity, v + 1);
    }
    free(seen);
    return st;
}

int ep_gf_file_open(const char *path, const char *kind, ep_gf_file *g)
{
    hsize_t d[2] = {0, 0};
    void *p;
    int st;
    memset(g, 0, sizeof *g);
    ep_mesh_init(&g->mesh);
    g->xi = H5I_INVALID_HID;
    g->f.id = H5I_INVALID_HID;
    if ((st = ep_h5_open(&g->f, path, kind)))
        return st;
    if (!kind && strcmp(g->f.kind, "gf") && strcmp(g->f.kind, "gf-wavelet"))
        return ep_fail(EP_EINPUT, "%s: kind is \"%s\", expected \"gf\" or \"gf-wavelet\"", path, g->f.kind);
    if ((st = ep_h5_read_mesh(&g->f, &g->mesh)) || (st = ep_mesh_complete(&g->mesh)) ||
        (st = ep_h5_get_attr_string(&g->f, "/gf", "method", g->method, sizeof g->method)) ||
        (st = ep_h5_get_attr_string(&g->f, "/gf", "traction", g->traction, sizeof g->traction)) ||
        (st = ep_h5_get_attr_string(&g->f, "/gf", "entity", g->entity, sizeof g->entity)))
        return st;
    if (strcmp(g->entity, "vertex") && strcmp(g->entity, "triangle"))
        return ep_fail(EP_EINPUT, "%s: /gf: entity \"%s\" (expected vertex or triangle)", path, g->entity);
    g->L.entity = g->entity;
    if ((st = ep_h5_read(&g->f, "/gf/row_vertex", EP_I32, 1, d, &p)))
        return st;
    g->L.row_vertex = p;
    g->L.n = (int)d[0];
    if ((st = ep_h5_read(&g->f, "/gf/row_fixed", EP_I8, 1, d, &p)))
        return st;
    g->L.row_fixed = p;
    d[0] = 0;
    if ((st = ep_h5_read(&g->f, "/gf/col_vertex", EP_I32, 1, d, &p)))
        return st;
    g->L.col_vertex = p;
    g->L.m = (int)d[0];
    if (g->L.n == 0 || g->L.m == 0)
        return ep_fail(EP_EINPUT, "%s: /gf has no rows or no columns", path);
    if ((st = check_layout(g)))
        return st;
    if (strcmp(g->f.kind, "gf"))
        return EP_OK;
    g->xi = H5Dopen2(g->f.id, "/gf/xi", H5P_DEFAULT);
    if (g->xi < 0)
        return ep_fail(EP_EINPUT, "%s: dataset /gf/xi is missing", path);
    hid_t s = H5Dget_space(g->xi), t = H5Dget_type(g->xi);
    int ok = H5Sget_simple_extent_ndims(s) == 2 && H5Tget_class(t) == H5T_FLOAT;
    if (ok)
        H5Sget_simple_extent_dims(s, d, NULL);
    H5Sclose(s);
    H5Tclose(t);
    if (!ok || d[0] != 3 * (hsize_t)g->L.m || d[1] != 3 * (hsize_t)g->L.n)
        return ep_fail(EP_EINPUT, "%s: dataset /gf/xi is not a float [%d][%d] array", path, 3 * g->L.m,
                       3 * g->L.n);
    return EP_OK;
}

int ep_gf_file_rows(ep_gf_file *g, long row0, long nrows, double *rows)
{
    size_t ncols = 3 * (size_t)g->L.n;
    if (xi_rows(g->xi, row0, nrows, (long)ncols, rows, 0) < 0)
        return ep_fail(EP_EINPUT, "%s: cannot read /gf/xi rows %ld..%ld (damaged or truncated?)", g->f.path, row0,
                       row0 + nrows - 1);
    for (size_t i = 0; i < (size_t)nrows * ncols; i++)
        if (!isfinite(rows[i]))
            return ep_fail(EP_EINPUT, "%s: /gf/xi row %ld: value is not finite", g->f.path, row0 + (long)(i / ncols));
    return EP_OK;
}

void ep_gf_file_close(ep_gf_file *g)
{
    if (g->xi >= 0)
        H5Dclose(g->xi);
    g->xi = H5I_INVALID_HID;
    ep_h5_close(&g->f);
    ep_mesh_free(&g->mesh);
    ep_gf_layout_free(&g->L);
}
