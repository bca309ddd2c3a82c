/*
 * embed_file.c — files of kind "embedding" (embed_file.h).
 */
#include "embed_file.h"
#include "err.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int ep_embed_file_write(ep_h5 *f, const ep_embed *b, const ep_mesh *render, double limit, const double *Ubar, int r)
{
    size_t nnz = (size_t)b->nr * b->k;
    int64_t *rowptr = ep_malloc((size_t)b->nr + 1, sizeof *rowptr);
    int st;
    if (!rowptr)
        return EP_ECOMPUTE;
    for (int i = 0; i <= b->nr; i++)
        rowptr[i] = (int64_t)b->k * i;
    hsize_t dv[2] = {(hsize_t)render->nv, 3}, dt[2] = {(hsize_t)render->nf, 3}, dp = (hsize_t)b->nr + 1,
            dn = (hsize_t)nnz, dr = (hsize_t)b->nr, du[2] = {(hsize_t)r, 3 * (hsize_t)b->nr};
    if (!(st = ep_h5_write(f, "/render/vertices", EP_F64, 2, dv, render->vertices)) &&
        (render->nf < 1 || !(st = ep_h5_write(f, "/render/triangles", EP_I32, 2, dt, render->triangles))) &&
        !(st = ep_h5_write(f, "/embedding/rowptr", EP_I64, 1, &dp, rowptr)) &&
        !(st = ep_h5_write(f, "/embedding/columns", EP_I32, 1, &dn, b->col)) &&
        !(st = ep_h5_write(f, "/embedding/weights", EP_F64, 1, &dn, b->w)) &&
        !(st = ep_h5_write(f, "/embedding/element", EP_I32, 1, &dr, b->element)) &&
        !(st = ep_h5_write(f, "/embedding/distance", EP_F64, 1, &dr, b->dist)) &&
        !(st = ep_h5_set_attr_int(f, "/embedding", "element_vertices", b->k)) &&
        !(st = ep_h5_set_attr_int(f, "/embedding", "outside", b->noutside)) &&
        !(st = ep_h5_set_attr_double(f, "/embedding", "max_distance", b->maxdist)) &&
        !(st = ep_h5_set_attr_double(f, "/embedding", "limit", limit)) && Ubar)
        st = ep_h5_write(f, "/embedding/Ubar", EP_F64, 2, du, Ubar);
    free(rowptr);
    return st;
}

int ep_embed_file_read(ep_embed *b, double **p, double **Ubar, int *r, ep_h5 *f, int nv, int ne)
{
    hsize_t dv[2] = {0, 3}, d1;
    int64_t *rowptr = NULL;
    double k = 0;
    int st;
    memset(b, 0, sizeof *b);
    *p = NULL;
    if (Ubar)
        *Ubar = NULL, *r = 0;
    if ((st = ep_h5_read(f, "/render/vertices", EP_F64, 2, dv, (void **)p)))
        return st;
    if (dv[0] < 1 || dv[0] > INT32_MAX)
        return ep_fail(EP_EINPUT, "%s: /render/vertices: %llu vertices", f->path, (unsigned long long)dv[0]);
    int nr = b->nr = (int)dv[0]; /* every value finite: ep_h5_read refuses NaN and Inf */
    if (ep_h5_get_attr_double(f, "/embedding", "element_vertices", &k) || (k != 4 && k != 8))
        return ep_fail(EP_EINPUT, "%s: /embedding: attribute element_vertices must be 4 or 8", f->path);
    b->k = (int)k;
    size_t nnz = (size_t)nr * b->k;
    d1 = (hsize_t)nr + 1;
    if ((st = ep_h5_read(f, "/embedding/rowptr", EP_I64, 1, &d1, (void **)&rowptr)))
        return st;
    for (int i = 0; i <= nr && !st; i++)
        if (rowptr[i] != (int64_t)b->k * i)
            st = ep_fail(EP_EINPUT, "%s: /embedding/rowptr: render vertex %d does not hold %d entries", f->path, i + 1, b->k);
    free(rowptr);
    if (st)
        return st;
    d1 = (hsize_t)nnz;
    if ((st = ep_h5_read(f, "/embedding/columns", EP_I32, 1, &d1, (void **)&b->col)))
        return st;
    if ((st = ep_h5_read(f, "/embedding/weights", EP_F64, 1, &d1, (void **)&b->w)))
        return st;
    d1 = (hsize_t)nr;
    if ((st = ep_h5_read(f, "/embedding/element", EP_I32, 1, &d1, (void **)&b->element)))
        return st;
    if ((st = ep_h5_read(f, "/embedding/distance", EP_F64, 1, &d1, (void **)&b->dist)))
        return st;
    for (size_t j = 0; j < nnz; j++)
        if (b->col[j] < 0 || b->col[j] >= nv)
            return ep_fail(EP_EINPUT, "%s: /embedding/columns: vertex %d of render vertex %zu is not in the mesh of %d",
                           f->path, b->col[j], j / b->k + 1, nv);
    for (int i = 0; i < nr; i++) {
        if (b->element[i] < 0 || b->element[i] >= ne)
            return ep_fail(EP_EINPUT, "%s: /embedding/element: element %d of render vertex %d is not in the mesh of %d",
                           f->path, b->element[i], i + 1, ne);
        if (!(b->dist[i] >= 0))
            return ep_fail(EP_EINPUT, "%s: /embedding/distance: negative at render vertex %d", f->path, i + 1);
        b->noutside += b->dist[i] > 0;
        b->maxdist = fmax(b->maxdist, b->dist[i]);
    }
    if (!Ubar || !ep_h5_exists(f, "/embedding/Ubar"))
        return EP_OK;
    hsize_t du[2] = {0, 3 * (hsize_t)nr};
    if ((st = ep_h5_read(f, "/embedding/Ubar", EP_F64, 2, du, (void **)Ubar)))
        return st;
    if (du[0] < 1 || du[0] > 100000)
        return ep_fail(EP_EINPUT, "%s: /embedding/Ubar: %llu fields", f->path, (unsigned long long)du[0]);
    *r = (int)du[0];
    return EP_OK;
}

void ep_embed_file_write_interp(FILE *out, const ep_embed *b)
{
    for (int i = 0; i < b->nr; i++) {
        fprintf(out, "%d", i);
        for (int a = 0; a < b->k; a++)
            fprintf(out, " %d %.17g", b->col[(size_t)b->k * i + a], b->w[(size_t)b->k * i + a]);
        fputc('\n', out);
    }
}
