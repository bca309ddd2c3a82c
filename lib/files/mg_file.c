/*
 * mg_file.c — sparse matrices and multigrid hierarchies in HDF5
 * (mg_file.h).
 */
#include "mg_file.h"
#include "err.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The three datasets and attributes of a sparse group. */
static int write_sparse(ep_h5 *f, const char *name, int n, int m, const int *rowptr, const int *col,
                        const double *val, int block)
{
    char p[256];
    size_t nnz = (size_t)rowptr[n];
    int64_t *rp = ep_malloc((size_t)n + 1, sizeof *rp);
    int st;
    if (!rp)
        return EP_ECOMPUTE;
    for (int i = 0; i <= n; i++)
        rp[i] = rowptr[i];
    hsize_t d1 = (hsize_t)n + 1, dn = nnz, dv[3] = {nnz, 3, 3};
    snprintf(p, sizeof p, "%s/rowptr", name);
    st = ep_h5_write(f, p, EP_I64, 1, &d1, rp);
    free(rp);
    snprintf(p, sizeof p, "%s/columns", name);
    if (!st)
        st = ep_h5_write(f, p, EP_I32, 1, &dn, col);
    snprintf(p, sizeof p, "%s/values", name);
    if (!st)
        st = ep_h5_write(f, p, EP_F64, block == 3 ? 3 : 1, dv, val);
    if (!st && !(st = ep_h5_set_attr_int(f, name, "rows", n)) && !(st = ep_h5_set_attr_int(f, name, "cols", m)))
        st = ep_h5_set_attr_int(f, name, "block", block);
    return st;
}

int ep_mg_file_write_csr(ep_h5 *f, const char *name, const ep_csr *P)
{
    return write_sparse(f, name, P->n, P->m, P->rowptr, P->col, P->val, 1);
}

int ep_mg_file_write_bsr(ep_h5 *f, const char *name, const ep_bsr *A)
{
    return write_sparse(f, name, A->n, A->m, A->rowptr, A->col, A->val, 3);
}

/* Read and check a sparse group; *rowptr, *col, *val allocated. */
static int read_sparse(ep_h5 *f, const char *name, int block, int *n, int *m, int **rowptr, int **col, double **val)
{
    char p[256];
    double a;
    void *v = NULL;
    int st;
    *rowptr = *col = NULL, *val = NULL;
    if (!ep_h5_exists(f, name))
        return ep_fail(EP_EINPUT, "%s: %s: missing", f->path, name);
    if ((st = ep_h5_get_attr_double(f, name, "rows", &a)))
        return st;
    if (!(a >= 0 && a <= INT32_MAX / 3 && a == (int)a) || (*n >= 0 && a != *n))
        return ep_fail(EP_EINPUT, "%s: %s: rows %.17g, expected %d", f->path, name, a, *n);
    *n = (int)a;
    if ((st = ep_h5_get_attr_double(f, name, "cols", &a)))
        return st;
    if (!(a >= 0 && a <= INT32_MAX / 3 && a == (int)a) || (*m >= 0 && a != *m))
        return ep_fail(EP_EINPUT, "%s: %s: cols %.17g, expected %d", f->path, name, a, *m);
    *m = (int)a;
    hsize_t d1 = (hsize_t)*n + 1;
    snprintf(p, sizeof p, "%s/rowptr", name);
    if ((st = ep_h5_read(f, p, EP_I64, 1, &d1, &v)))
        return st;
    const int64_t *rp = v;
    if (!(*rowptr = ep_malloc(d1, sizeof **rowptr))) {
        free(v);
        return EP_ECOMPUTE;
    }
    for (hsize_t i = 0; i < d1; i++) {
        if (rp[i] < (i ? rp[i - 1] : 0) || rp[i] > INT32_MAX / 9 || (i == 0 && rp[0] != 0)) {
            free(v);
            return ep_fail(EP_EINPUT, "%s: %s: row %llu starts at %lld, before the row above or past the range",
                           f->path, p, (unsigned long long)i, (long long)rp[i]);
        }
        (*rowptr)[i] = (int)rp[i];
    }
    free(v);
    hsize_t nnz = (hsize_t)(*rowptr)[*n], dv[3] = {nnz, 3, 3};
    snprintf(p, sizeof p, "%s/columns", name);
    if ((st = ep_h5_read(f, p, EP_I32, 1, &nnz, (void **)col)))
        return st;
    for (int i = 0; i < *n; i++)
        for (int k = (*rowptr)[i]; k < (*rowptr)[i + 1]; k++)
            if ((*col)[k] < 0 || (*col)[k] >= *m || (k > (*rowptr)[i] && (*col)[k] <= (*col)[k - 1]))
                return ep_fail(EP_EINPUT, "%s: %s: entry %d (row %d): column %d out of range or not ascending", f->path,
                               p, k, i, (*col)[k]);
    snprintf(p, sizeof p, "%s/values", name);
    return ep_h5_read(f, p, EP_F64, block == 3 ? 3 : 1, dv, (void **)val); /* finite: ep_h5_read checks */
}

int ep_mg_file_read_csr(ep_csr *P, ep_h5 *f, const char *name, int n, int m)
{
    memset(P, 0, sizeof *P);
    P->n = n, P->m = m;
    return read_sparse(f, name, 1, &P->n, &P->m, &P->rowptr, &P->col, &P->val);
}

int ep_mg_file_read_bsr(ep_bsr *A, ep_h5 *f, const char *name, int n, int m)
{
    memset(A, 0, sizeof *A);
    A->n = n, A->m = m;
    return read_sparse(f, name, 3, &A->n, &A->m, &A->rowptr, &A->col, &A->val);
}

int ep_mg_file_write(ep_h5 *f, const ep_mghier *h)
{
    int st;
    hid_t g0 = H5Gcreate2(f->id, "/multigrid", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g0 < 0 || H5Gclose(g0) < 0)
        return ep_fail(EP_EIO, "%s: cannot create /multigrid", f->path);
    if ((st = ep_h5_set_attr_int(f, "/multigrid", "levels", h->nlevels)) ||
        (st = ep_h5_set_attr_int(f, "/multigrid", "nested", h->nested)))
        return st;
    for (int l = 0; l < h->nlevels; l++) {
        const ep_mghier_level *L = &h->level[l];
        char g[64], p[96];
        snprintf(g, sizeof g, "/multigrid/level%d", l);
        if (l > 0) {
            hsize_t dx[2] = {(hsize_t)L->nv, 3}, dt[2] = {(hsize_t)L->ne, 4};
            snprintf(p, sizeof p, "%s/vertices", g);
            if ((st = ep_h5_write(f, p, EP_F64, 2, dx, L->x)))
                return st;
            snprintf(p, sizeof p, "%s/tets", g);
            if ((st = ep_h5_write(f, p, EP_I32, 2, dt, L->tets)))
                return st;
        }
        snprintf(p, sizeof p, "%s/K", g);
        if ((st = ep_mg_file_write_bsr(f, p, &L->K)))
            return st;
        if (l + 1 < h->nlevels) {
            snprintf(p, sizeof p, "%s/P", g);
            if ((st = ep_mg_file_write_csr(f, p, &L->P)) || (st = ep_h5_set_attr_int(f, p, "outside", L->noutside)) ||
                (st = ep_h5_set_attr_double(f, p, "max_distance", L->maxdist)))
                return st;
        }
    }
    return EP_OK;
}

int ep_mg_file_read(ep_mghier *h, ep_h5 *f, int nv)
{
    double a;
    int st;
    memset(h, 0, sizeof *h);
    if (!ep_h5_exists(f, "/multigrid"))
        return ep_fail(EP_EINPUT, "%s: /multigrid: missing", f->path);
    if ((st = ep_h5_get_attr_double(f, "/multigrid", "levels", &a)))
        return st;
    if (!(a >= 1 && a <= EP_MG_FILE_MAX_LEVELS && a == (int)a))
        return ep_fail(EP_EINPUT, "%s: /multigrid: levels %.17g, expected 1 to %d", f->path, a, EP_MG_FILE_MAX_LEVELS);
    if ((st = ep_mghier_init(h, (int)a)))
        return st;
    if (!(st = ep_h5_get_attr_double(f, "/multigrid", "nested", &a)))
        h->nested = a != 0;
    h->level[0].nv = nv;
    for (int l = 0; !st && l < h->nlevels; l++) {
        ep_mghier_level *L = &h->level[l];
        char g[64], p[96];
        snprintf(g, sizeof g, "/multigrid/level%d", l);
        if (l > 0) {
            hsize_t dx[2] = {0, 3}, dt[2] = {0, 4};
            snprintf(p, sizeof p, "%s/vertices", g);
            if ((st = ep_h5_read(f, p, EP_F64, 2, dx, (void **)&L->x)))
                break;
            snprintf(p, sizeof p, "%s/tets", g);
            if ((st = ep_h5_read(f, p, EP_I32, 2, dt, (void **)&L->tets)))
                break;
            L->nv = (int)dx[0], L->ne = (int)dt[0];
            for (size_t i = 0; i < 4 * (size_t)L->ne; i++)
                if (L->tets[i] < 0 || L->tets[i] >= L->nv) {
                    st = ep_fail(EP_EINPUT, "%s: %s: vertex %d out of range (%d vertices)", f->path, p, L->tets[i],
                                 L->nv);
                    break;
                }
            if (!st && (st = ep_mg_file_read_csr(&h->level[l - 1].P, f, (snprintf(p, sizeof p, "/multigrid/level%d/P", l - 1), p),
                                                 h->level[l - 1].nv, L->nv)))
                break;
        }
        snprintf(p, sizeof p, "%s/K", g);
        if (!st)
            st = ep_mg_file_read_bsr(&L->K, f, p, L->nv, L->nv);
    }
    return st;
}
