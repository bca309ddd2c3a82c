/*
 * gf.c — GF files: the streaming /gf writer and the reader (gf.h).
 */
#include "gf.h"
#include "err.h"
#include "f32.h"
#include "model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int ep_gf_write_layout(ep_h5 *f, const ep_gf_layout *L, const char *method, const char *traction,
                       const char *traction_model)
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
    d[0] = (hsize_t)L->m;
    if (L->col_area && (st = ep_h5_write(f, "/gf/col_area", EP_F64, 1, d, L->col_area)))
        return st;
    return traction_model && *traction_model ? ep_h5_set_attr_string(f, "/gf", "traction_model", traction_model)
                                             : EP_OK;
}

int ep_gf_writer_open(ep_gf_writer *w, ep_h5 *f, const ep_gf_layout *L, const char *method,
                      const char *traction_model, int single)
{
    hsize_t d[2];
    int st;
    memset(w, 0, sizeof *w);
    w->f = f;
    w->xi = H5I_INVALID_HID;
    w->ncols = 3L * L->n;
    w->single = single;
    w->row_fixed = L->row_fixed;
    if ((st = ep_gf_write_layout(f, L, method, strcmp(L->entity, "triangle") ? "hat" : "constant", traction_model)))
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

int ep_gf_write_body(ep_h5 *f, const ep_gf_layout *L, const double *body)
{
    hsize_t d[2] = {3, 3 * (hsize_t)L->n};
    return ep_h5_write(f, "/gf/body", EP_F64, 2, d, body);
}

int ep_gf_write_interior(ep_h5 *f, const ep_gf_layout *L, const double *points, int np, const double *rows,
                         int body)
{
    hsize_t d[2] = {(hsize_t)np, 3};
    int st;
    if ((st = ep_h5_write(f, "/gf/interior_points", EP_F64, 2, d, points)))
        return st;
    d[0] = 3 * (hsize_t)L->m, d[1] = 9 * (hsize_t)np;
    if ((st = ep_h5_write(f, "/gf/interior", EP_F64, 2, d, rows)) || !body)
        return st;
    d[0] = 3;
    return ep_h5_write(f, "/gf/interior_body", EP_F64, 2, d, rows + 27 * (size_t)L->m * (size_t)np);
}

int ep_gf_write_extras(ep_h5 *f, const ep_gf_file *g, int interior)
{
    int st = g->body ? ep_gf_write_body(f, &g->L, g->body) : EP_OK;
    if (st || !interior || !g->np)
        return st;
    hsize_t d[2] = {(hsize_t)g->np, 3};
    if ((st = ep_h5_write(f, "/gf/interior_points", EP_F64, 2, d, g->points)))
        return st;
    d[0] = 3 * (hsize_t)g->L.m, d[1] = 9 * (hsize_t)g->np;
    if ((st = ep_h5_write(f, "/gf/interior", EP_F64, 2, d, g->interior)) || !g->interior_body)
        return st;
    d[0] = 3;
    return ep_h5_write(f, "/gf/interior_body", EP_F64, 2, d, g->interior_body);
}

/* Rows [row0, row0 + nrows) of the [*][ncols] dataset xi to or from rows
 * (double in memory; HDF5 converts to the stored type). */
static herr_t xi_rows(hid_t xi, long row0, long nrows, long ncols, double *rows, int write, hid_t dxpl)
{
    hsize_t start[2] = {(hsize_t)row0, 0}, count[2] = {(hsize_t)(nrows ? nrows : 1), (hsize_t)ncols};
    hid_t fs = H5Dget_space(xi), ms = H5Screate_simple(2, count, NULL);
    herr_t r = nrows ? H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL)
                     : (H5Sselect_none(fs) < 0 ? -1 : H5Sselect_none(ms));
    dxpl = dxpl > 0 ? dxpl : H5P_DEFAULT;
    if (r >= 0)
        r = write ? H5Dwrite(xi, H5T_NATIVE_DOUBLE, ms, fs, dxpl, rows)
                  : H5Dread(xi, H5T_NATIVE_DOUBLE, ms, fs, dxpl, rows);
    H5Sclose(ms);
    H5Sclose(fs);
    return r;
}

int ep_gf_writer_put(ep_gf_writer *w, long row0, long nrows, const double *rows)
{
    /* a solver's sink may call from a worker thread, and a thread-safe
     * libhdf5 keeps one error stack (and its printing) per thread */
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    for (long i = 0; w->single && i < nrows; i++) {
        double amax[2] = {0, 0}; /* displacements and tractions differ in units: each its own range */
        for (long j = 0; j < w->ncols; j++) {
            int d = w->row_fixed[j / 3] != 0;
            amax[d] = fmax(amax[d], fabs(rows[i * w->ncols + j]));
        }
        for (int d = 0; d < 2; d++) {
            int r = ep_f32_range(amax[d]);
            if (r)
                return ep_fail(EP_EINPUT, "%s: /gf/xi row %ld: largest %s value %.3g %s; write float64 (no --single)",
                               w->f->path, row0 + i, d ? "traction" : "displacement", amax[d], ep_f32_what(r));
        }
    }
    herr_t r = xi_rows(w->xi, row0, nrows, w->ncols, (double *)rows, 1, w->dxpl);
    if (r < 0)
        return ep_fail(EP_EIO, "%s: cannot write /gf/xi rows %ld..%ld", w->f->path, row0, row0 + nrows - 1);
    return ep_h5_drop_written(w->f, (double)nrows * (double)w->ncols * (w->single ? 4 : 8));
}

int ep_gf_writer_close(ep_gf_writer *w)
{
    int st = EP_OK;
    if (w->xi > 0 && H5Dclose(w->xi) < 0)
        st = ep_fail(EP_EIO, "%s: cannot close /gf/xi", w->f->path);
    w->xi = H5I_INVALID_HID;
    return st;
}

/* ---- reading ---------------------------------------------------------------- */

int ep_gf_row_areas(const ep_gf_file *g, double **area)
{
    int st, *col_row;
    if ((st = ep_gf_layout_row_areas(&g->L, &g->mesh, area)) || !g->L.col_area)
        return st;
    if ((st = ep_gf_layout_column_rows(&g->L, &col_row)))
        return st;
    for (int c = 0; c < g->L.m; c++)
        (*area)[col_row[c]] = g->L.col_area[c];
    free(col_row);
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
        if (v < 0 || v >= lim) /* the stored id: "vertex 0" for -1 misled (issue 22, class 13) */
            st = ep_fail(EP_EINPUT, "%s: /gf/row_vertex: row %d holds %d, out of the %s ids [0, %d)", g->f.path, r,
                         v, g->entity, lim);
        else if (seen[v] == 1 || (!tri && !seen[v]))
            st = ep_fail(EP_EINPUT, "%s: /gf/row_vertex: row %d names %s %d, which is %s", g->f.path, r,
                         g->entity, v + 1, seen[v] == 1 ? "repeated" : "not on the boundary");
        else if (L->row_fixed[r] != 0 && L->row_fixed[r] != 1)
            st = ep_fail(EP_EINPUT, "%s: /gf/row_fixed: value %d at row %d (expected 0 or 1)", g->f.path,
                         L->row_fixed[r], r);
        else
            seen[v] = 1;
    }
    for (int c = 0; c < L->m && !st; c++) {
        int v = L->col_vertex[c];
        if (v < 0 || v >= lim)
            st = ep_fail(EP_EINPUT, "%s: /gf/col_vertex: column %d holds %d, out of the %s ids [0, %d)", g->f.path,
                         c, v, g->entity, lim);
        else if (seen[v] != 1)
            st = ep_fail(EP_EINPUT, "%s: /gf/col_vertex: column %d names %s %d, which is no row", g->f.path, c,
                         g->entity, v + 1);
    }
    free(seen);
    return st;
}

int ep_gf_file_open(ep_gf_file *g, const char *path, const char *kind)
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
    if ((st = ep_model_load(&g->mesh, &g->f)) ||
        (st = ep_h5_get_attr_string(&g->f, "/gf", "method", g->method, sizeof g->method)) ||
        (st = ep_h5_get_attr_string(&g->f, "/gf", "traction", g->traction, sizeof g->traction)) ||
        (st = ep_h5_get_attr_string(&g->f, "/gf", "entity", g->entity, sizeof g->entity)))
        return st;
    if (strcmp(g->entity, "vertex") && strcmp(g->entity, "triangle"))
        return ep_fail(EP_EINPUT, "%s: /gf: entity \"%s\" (expected vertex or triangle)", path, g->entity);
    /* femcondense's traction model describes the columns (bemsolve files have none) */
    if (H5Aexists_by_name(g->f.id, "/gf", "traction_model", H5P_DEFAULT) > 0 &&
        (st = ep_h5_get_attr_string(&g->f, "/gf", "traction_model", g->traction_model, sizeof g->traction_model)))
        return st;
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
    /* hierarchical constraints (gfcompress or a solver --constraint-level) */
    double level = -1;
    if (H5Aexists_by_name(g->f.id, "/gf", "constraint_level", H5P_DEFAULT) > 0 &&
        (st = ep_h5_get_attr_double(&g->f, "/gf", "constraint_level", &level)))
        return st;
    g->constraint_level = (int)level;
    if (ep_h5_exists(&g->f, "/gf/col_area")) {
        d[0] = (hsize_t)g->L.m;
        if ((st = ep_h5_read(&g->f, "/gf/col_area", EP_F64, 1, d, &p)))
            return st;
        g->L.col_area = p;
        for (int c = 0; c < g->L.m; c++)
            if (!(g->L.col_area[c] > 0 && g->L.col_area[c] < INFINITY))
                return ep_fail(EP_EINPUT, "%s: /gf/col_area: value %g at column %d is not a positive area", path,
                               g->L.col_area[c], c);
    }
    if (ep_h5_exists(&g->f, "/gf/body")) {
        d[0] = 3, d[1] = 3 * (hsize_t)g->L.n;
        if ((st = ep_h5_read(&g->f, "/gf/body", EP_F64, 2, d, &p)))
            return st;
        g->body = p;
    }
    if (ep_h5_exists(&g->f, "/gf/interior_points")) {
        d[0] = 0, d[1] = 3;
        if ((st = ep_h5_read(&g->f, "/gf/interior_points", EP_F64, 2, d, &p)))
            return st;
        g->points = p;
        g->np = (int)d[0];
        d[0] = 3 * (hsize_t)g->L.m, d[1] = 9 * (hsize_t)g->np;
        if (!g->np || (st = ep_h5_read(&g->f, "/gf/interior", EP_F64, 2, d, &p)))
            return st ? st : ep_fail(EP_EINPUT, "%s: /gf/interior_points is empty", path);
        g->interior = p;
        d[0] = 3;
        if (ep_h5_exists(&g->f, "/gf/interior_body") &&
            (st = ep_h5_read(&g->f, "/gf/interior_body", EP_F64, 2, d, &p)))
            return st;
        g->interior_body = ep_h5_exists(&g->f, "/gf/interior_body") ? p : NULL;
    }
    if (strcmp(g->f.kind, "gf"))
        return EP_OK;
    /* read by rows later: opened here after the checks of every dataset
     * (type, shape against the layout, the bytes it stores) */
    d[0] = 3 * (hsize_t)g->L.m, d[1] = 3 * (hsize_t)g->L.n;
    return ep_h5_open_dataset(&g->f, "/gf/xi", EP_F64, 2, d, &g->xi);
}

int ep_gf_file_rows(ep_gf_file *g, long row0, long nrows, double *rows)
{
    size_t ncols = 3 * (size_t)g->L.n;
    if (xi_rows(g->xi, row0, nrows, (long)ncols, rows, 0, 0) < 0)
        return ep_fail(EP_EINPUT, "%s: cannot read /gf/xi rows %ld..%ld (damaged or truncated?)", g->f.path, row0,
                       row0 + nrows - 1);
    for (size_t i = 0; i < (size_t)nrows * ncols; i++)
        if (!isfinite(rows[i]))
            return ep_fail(EP_EINPUT, "%s: /gf/xi row %ld: value is not finite", g->f.path, row0 + (long)(i / ncols));
    return EP_OK;
}

void ep_gf_file_close(ep_gf_file *g)
{
    if (g->xi > 0)
        H5Dclose(g->xi);
    g->xi = H5I_INVALID_HID;
    ep_h5_close(&g->f);
    ep_mesh_free(&g->mesh);
    ep_gf_layout_free(&g->L);
    free(g->body), free(g->points), free(g->interior), free(g->interior_body);
    memset(g, 0, sizeof *g);
}
