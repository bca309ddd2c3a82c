/*
 * ffi.c — opaque handles over the runtime (ffi.h).
 */
#include "ffi.h"
#include "cma.h"
#include "cubic_file.h"
#include "err.h"
#include "gfsrc.h"
#include "h5.h"
#include "mem.h"
#include "model.h"
#include "reduced.h"

#include <stdlib.h>
#include <string.h>

struct ep_ffi_contact {
    ep_gfsrc g;
    ep_cma c;
};

ep_ffi_contact *ep_ffi_contact_open(const char *path)
{
    ep_ffi_contact *h = ep_calloc(1, sizeof *h);
    if (!h)
        return NULL;
    if (ep_gfsrc_open(&h->g, path) || ep_cma_init(&h->c, &h->g)) {
        ep_ffi_contact_close(h);
        return NULL;
    }
    return h;
}

void ep_ffi_contact_close(ep_ffi_contact *h)
{
    if (!h)
        return;
    ep_cma_free(&h->c);
    ep_gfsrc_close(&h->g);
    free(h);
}

int ep_ffi_contact_rows(const ep_ffi_contact *h) { return h->g.n; }
int ep_ffi_contact_columns(const ep_ffi_contact *h) { return h->g.m; }
int ep_ffi_contact_set(ep_ffi_contact *h, const int *nodes, int s) { return ep_cma_set(&h->c, nodes, s); }
int ep_ffi_contact_add(ep_ffi_contact *h, int node) { return ep_cma_add(&h->c, node); }
int ep_ffi_contact_remove(ep_ffi_contact *h, int node) { return ep_cma_remove(&h->c, node); }

int ep_ffi_contact_size(const ep_ffi_contact *h, int *out)
{
    if (out && h->c.s)
        memcpy(out, h->c.S, sizeof *out * (size_t)h->c.s);
    return h->c.s;
}

void ep_ffi_contact_solve(ep_ffi_contact *h, const double *uS, const double *vbar, double *pS, double *v)
{
    ep_cma_solve(&h->c, uS, vbar, pS, v);
}

void ep_ffi_contact_force(const ep_ffi_contact *h, const double *pS, double f[3]) { ep_cma_force(&h->c, pS, f); }

struct ep_ffi_newmark {
    ep_cubic c;
    ep_cubic_tangent t;
    ep_reduced n;
    double *U, *w;
    int nv;
};

ep_ffi_newmark *ep_ffi_newmark_open(const char *path, double dt, double alpha, double beta)
{
    ep_ffi_newmark *h = ep_calloc(1, sizeof *h);
    ep_h5 f = {0};
    ep_mesh m = {0};
    int st;
    if (!h)
        return NULL;
    st = ep_h5_open(&f, path, "cubic");
    if (!st && !(st = ep_model_load(&m, &f)))
        h->nv = m.nv;
    if (!st)
        st = ep_cubic_file_read(&h->c, &f, m.nv, &h->U);
    ep_mesh_free(&m);
    ep_h5_close(&f);
    if (!st && !(st = ep_cubic_tangent_prepare(&h->t, &h->c)) &&
        !(h->w = ep_malloc((size_t)(ep_cubic_npairs(h->c.r) + ep_cubic_ntriples(h->c.r) + 4 * h->c.r), sizeof *h->w)))
        st = EP_ECOMPUTE;
    if (!st)
        st = ep_reduced_init(&h->n, &h->t, dt, alpha, beta);
    if (st) {
        ep_ffi_newmark_close(h);
        return NULL;
    }
    return h;
}

void ep_ffi_newmark_close(ep_ffi_newmark *h)
{
    if (!h)
        return;
    ep_reduced_free(&h->n);
    ep_cubic_tangent_free(&h->t);
    ep_cubic_free(&h->c);
    free(h->U);
    free(h->w);
    free(h);
}

int ep_ffi_newmark_r(const ep_ffi_newmark *h) { return h->c.r; }
int ep_ffi_newmark_nv(const ep_ffi_newmark *h) { return h->nv; }

void ep_ffi_newmark_iterations(ep_ffi_newmark *h, int iterations, double tol)
{
    h->n.iterations = iterations;
    h->n.tol = tol;
}

void ep_ffi_newmark_start(ep_ffi_newmark *h, const double *q0, const double *qd0, const double *f)
{
    ep_reduced_start(&h->n, q0, qd0, f);
}

int ep_ffi_newmark_step(ep_ffi_newmark *h, const double *f) { return ep_reduced_step(&h->n, f); }

void ep_ffi_newmark_state(const ep_ffi_newmark *h, double *q, double *qd, double *qdd)
{
    size_t b = sizeof *q * (size_t)h->c.r;
    if (q)
        memcpy(q, h->n.q, b);
    if (qd)
        memcpy(qd, h->n.qd, b);
    if (qdd)
        memcpy(qdd, h->n.qdd, b);
}

const double *ep_ffi_newmark_basis(const ep_ffi_newmark *h) { return h->U; }

int ep_ffi_newmark_static(const ep_ffi_newmark *h, const double *f, double *q, int maxit, double tol, int *iterations)
{
    return ep_reduced_static(&h->t, f, q, maxit, tol, iterations);
}

double ep_ffi_newmark_energy(ep_ffi_newmark *h, const double *q) { return ep_reduced_energy(&h->c, q, h->w); }
