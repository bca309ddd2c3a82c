/*
 * snapshots.c — trajectory states and sketch solutions for a basis
 * (snapshots.h).
 */
#include "snapshots.h"
#include "err.h"
#include "h5.h"
#include "loads.h"
#include "model.h"
#include "nlsolve.h"
#include "trajectory.h"

#include <stdlib.h>
#include <string.h>

/* Append u [3nv] to *X unless it is zero. */
static int append(double **X, int *ns, const double *u, size_t n3)
{
    size_t i = 0;
    while (i < n3 && u[i] == 0)
        i++;
    if (i == n3)
        return EP_OK;
    double *g = realloc(*X, sizeof **X * n3 * (size_t)(*ns + 1));
    if (!g)
        return ep_fail(EP_ECOMPUTE, "out of memory (snapshots)");
    *X = g;
    memcpy(g + (size_t)(*ns)++ * n3, u, sizeof *g * n3);
    return EP_OK;
}

int ep_snapshots_read(const ep_mesh *m, const char *const *paths, int n, double **X, int *ns)
{
    size_t n3 = 3 * (size_t)m->nv;
    int st = EP_OK;
    for (int i = 0; i < n && !st; i++) {
        ep_h5 f = {0};
        ep_mesh fm = {0};
        ep_trajectory t = {0};
        if (!(st = ep_h5_open(&f, paths[i], "trajectory")) && !(st = ep_model_load(&fm, &f))) {
            if (fm.nv != m->nv || memcmp(fm.vertices, m->vertices, sizeof(double) * n3))
                st = ep_fail(EP_EINPUT, "%s: a trajectory of another mesh", paths[i]);
            else if (!(st = ep_trajectory_read(&t, &f, m->nv)))
                for (int s = 0; s < t.T && !st; s++)
                    st = append(X, ns, t.u + (size_t)s * n3, n3);
        }
        ep_trajectory_free(&t);
        ep_mesh_free(&fm);
        ep_h5_close(&f);
    }
    return st;
}

typedef struct {
    double **X;
    int *ns;
    size_t n3;
} sink;

static int keep(void *ctx, const ep_nlsolve_state *s)
{
    sink *k = ctx;
    return s->step ? append(k->X, k->ns, s->u, k->n3) : EP_OK;
}

int ep_snapshots_sketch(const ep_mesh *m, const ep_material *mat, const char *fixed, int lumped, const char *loads,
                        int steps, double **X, int *ns)
{
    ep_loads L = {0}, one;
    ep_elastic b = {0};
    size_t n3 = 3 * (size_t)m->nv;
    double *u = ep_calloc(n3, sizeof *u);
    int st = u ? ep_loads_read(&L, loads, m) : EP_ECOMPUTE;
    if (!st)
        st = ep_elastic_init(&b, m, mat, EP_LAW_STVK, fixed, lumped);
    if (!st)
        st = ep_loads_bind(&L, &b);
    for (int i = 0; !st && i < L.nitem; i++) { /* each load alone */
        ep_nlsolve s = {0};
        ep_nlsolve_opts o = {.tol = 1e-8, .max_iter = 50, .load_steps = steps};
        sink k = {X, ns, n3};
        one = L;
        one.item = &L.item[i], one.nitem = 1, one.base = L.base + (size_t)i * n3;
        memset(u, 0, n3 * sizeof *u);
        if (!(st = ep_nlsolve_init(&s, &b, &one, &o)))
            st = ep_nlsolve_run(&s, u, NULL, keep, &k);
        ep_nlsolve_free(&s);
        if (st)
            st = ep_fail(st, "%s: load %d: %s", loads, i + 1, ep_errmsg());
    }
    ep_elastic_free(&b);
    ep_loads_free(&L);
    free(u);
    return st;
}
