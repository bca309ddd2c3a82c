/*
 * points.c — point lists, text or HDF5 (points.h).
 */
#include "points.h"
#include "err.h"
#include "h5.h"
#include "mem.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The readers: *x (allocated, also on failure: the caller frees it) and
 * *n the points read; 0 or the status. */
static int read_h5(const char *path, double **x, int *n)
{
    ep_h5 f = {.id = H5I_INVALID_HID};
    hsize_t d[2] = {0, 3};
    int fd, st = ep_text_open_regular(path, &fd); /* any HDF5 file: a FIFO is refused, not waited on */
    if (st)
        return st;
    close(fd);
    snprintf(f.path, sizeof f.path, "%s", path);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (H5Fis_hdf5(path) <= 0 || (f.id = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT)) < 0)
        st = ep_fail(EP_EINPUT, "%s: not a readable HDF5 file", path);
    else if (!ep_h5_exists(&f, "/points"))
        st = ep_fail(EP_EINPUT, "%s: no dataset /points", path);
    else if (!(st = ep_h5_read(&f, "/points", EP_F64, 2, d, (void **)x)) && d[0] == 0)
        st = ep_fail(EP_EINPUT, "%s: /points is empty", path);
    ep_h5_close(&f);
    *n = (int)d[0];
    return st;
}

static int read_text(const char *path, double **x, int *n)
{
    ep_text t;
    int st = ep_text_open(&t, path, '#'), cap = 64;
    if (st || !(*x = ep_malloc(3 * (size_t)cap, sizeof **x))) {
        ep_text_close(&t);
        return st ? st : EP_ECOMPUTE;
    }
    while (!(st = ep_text_next(&t)) && !t.eof) {
        if (*n == cap && ep_grow(x, 3 * (size_t)(cap *= 2), sizeof **x)) {
            st = EP_ECOMPUTE;
            break;
        }
        for (int a = 0; a < 3 && !st; a++)
            st = ep_text_double(&t, &(*x)[3 * (size_t)*n + a]);
        if (!st && ep_text_more(&t))
            st = ep_text_fail(&t, EP_EINPUT, "expected three coordinates \"x y z\"");
        if (st)
            break;
        (*n)++;
    }
    if (!st && !*n)
        st = ep_fail(EP_EINPUT, "%s: no points", path);
    ep_text_close(&t);
    return st;
}

int ep_points_read(const char *path, double **p, int *np)
{
    size_t len = strlen(path);
    double *x = NULL;
    int n = 0, st = len > 3 && !strcmp(path + len - 3, ".h5") ? read_h5(path, &x, &n) : read_text(path, &x, &n);
    if (st) {
        free(x);
        return st;
    }
    *p = x;
    *np = n;
    return EP_OK;
}
