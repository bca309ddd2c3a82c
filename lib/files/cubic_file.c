/*
 * cubic_file.c — files of kind "cubic" (cubic_file.h).
 */
#include "cubic_file.h"
#include "err.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ep_cubic_file_write(ep_h5 *f, const char *group, const ep_cubic *c)
{
    char name[64];
    hsize_t d[2] = {(hsize_t)c->r, (hsize_t)c->r};
    int st;
    snprintf(name, sizeof name, "%s/P", group);
    if ((st = ep_h5_write(f, name, EP_F64, 2, d, c->P)))
        return st;
    d[0] = (hsize_t)ep_cubic_npairs(c->r);
    snprintf(name, sizeof name, "%s/Q", group);
    if ((st = ep_h5_write(f, name, EP_F64, 2, d, c->Q)))
        return st;
    d[0] = (hsize_t)ep_cubic_ntriples(c->r);
    snprintf(name, sizeof name, "%s/S", group);
    return ep_h5_write(f, name, EP_F64, 2, d, c->S);
}

int ep_cubic_file_read(ep_cubic *c, ep_h5 *f, int nv, double **U)
{
    hsize_t d[2] = {0, 0};
    void *p;
    int st;
    memset(c, 0, sizeof *c);
    *U = NULL;
    if ((st = ep_h5_read(f, "/cubic/P", EP_F64, 2, d, &p)))
        return st;
    c->P = p;
    int r = c->r = (int)d[0];
    if (r < 1 || d[1] != (hsize_t)r)
        return ep_fail(EP_EINPUT, "%s: /cubic/P is not square", f->path);
    d[0] = (hsize_t)ep_cubic_npairs(r), d[1] = (hsize_t)r;
    if ((st = ep_h5_read(f, "/cubic/Q", EP_F64, 2, d, &p)))
        return st;
    c->Q = p;
    d[0] = (hsize_t)ep_cubic_ntriples(r), d[1] = (hsize_t)r;
    if ((st = ep_h5_read(f, "/cubic/S", EP_F64, 2, d, &p)))
        return st;
    c->S = p;
    d[0] = (hsize_t)r, d[1] = 3 * (hsize_t)nv;
    if ((st = ep_h5_read(f, "/basis/U", EP_F64, 2, d, &p)))
        return st;
    *U = p; /* every value finite: ep_h5_read refuses NaN and Inf */
    return EP_OK;
}

int ep_cubic_file_basis(ep_h5 *f, const char *dataset, int nv, int rows, double **U, int *r)
{
    hsize_t d[2] = {0, 3 * (hsize_t)nv};
    void *p;
    int st;
    *U = NULL;
    if (!ep_h5_exists(f, dataset))
        return ep_fail(EP_EINPUT, "%s: no basis %s (run moddesc, or name one with --basis)", f->path, dataset);
    if ((st = ep_h5_read(f, dataset, EP_F64, 2, d, &p)))
        return st;
    *U = p;
    if (d[0] == 0) /* polycoef wrote an empty cubic file (issue 22, class 6) */
        return ep_fail(EP_EINPUT, "%s: the basis %s is empty", f->path, dataset);
    *r = rows ? rows : (int)d[0];
    if (*r > (int)d[0])
        return ep_fail(EP_EUSAGE, "-r %d: the basis %s has %d vectors", *r, dataset, (int)d[0]);
    return EP_OK;
}
