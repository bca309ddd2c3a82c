/*
 * warp.c — the corotated step's assembly (warp.h).
 */
#include "warp.h"
#include "err.h"

#include <stdlib.h>
#include <string.h>

int ep_warp_init(ep_warp *w, const ep_corot *c, ep_bsr *K, const char *fixed)
{
    int k = c->k;
    memset(w, 0, sizeof *w);
    w->c = c, w->K = K, w->fixed = fixed;
    w->slot = ep_malloc((size_t)c->ne * k * k, sizeof *w->slot);
    w->R = ep_malloc(9 * (size_t)c->ne, sizeof *w->R);
    w->Kw = ep_malloc(9 * (size_t)k * k, sizeof *w->Kw);
    if (!w->slot || !w->R || !w->Kw)
        return EP_ECOMPUTE;
    if (K->n != c->nv)
        return ep_fail(EP_EINPUT, "the operator has %d vertices, the mesh %d", K->n, c->nv);
    for (int e = 0; e < c->ne; e++)
        for (int a = 0; a < k; a++)
            for (int b = 0; b < k; b++) {
                const int *v = &c->elem[(size_t)k * e];
                long s = ep_bsr_find(K, v[a], v[b]);
                if (s < 0)
                    return ep_fail(EP_EINPUT, "the operator has no block for vertices %d and %d of element %d", v[a] + 1,
                                   v[b] + 1, e + 1);
                w->slot[((size_t)e * k + a) * k + b] = s;
            }
    return EP_OK;
}

void ep_warp_free(ep_warp *w)
{
    free(w->slot), free(w->R), free(w->Kw);
    memset(w, 0, sizeof *w);
}

void ep_warp_assemble(ep_warp *w, const double *x, double *f)
{
    const ep_corot *c = w->c;
    int k = c->k, n3 = 3 * k;
    memset(w->K->val, 0, 9 * (size_t)w->K->rowptr[w->K->n] * sizeof *w->K->val);
    memset(f, 0, 3 * (size_t)c->nv * sizeof *f);
    for (int e = 0; e < c->ne; e++) {
        double F[3][3], fe[24], *R = &w->R[9 * (size_t)e];
        const int *v = &c->elem[(size_t)k * e];
        ep_corot_deformation(c, e, x, F);
        ep_corot_rotation(F, (double (*)[3])R);
        ep_corot_warp(c, e, (const double (*)[3])R, x, w->Kw, fe);
        const long *slot = &w->slot[(size_t)e * k * k];
        for (int a = 0; a < k; a++) {
            for (int i = 0; i < 3; i++)
                f[3 * (size_t)v[a] + i] += fe[3 * a + i];
            for (int b = 0; b < k; b++) {
                double *B = &w->K->val[9 * slot[a * k + b]];
                for (int i = 0; i < 3; i++)
                    for (int j = 0; j < 3; j++)
                        B[3 * i + j] += w->Kw[(3 * a + i) * n3 + 3 * b + j];
            }
        }
    }
    if (w->fixed) {
        ep_bsr_hold(w->K, w->fixed);
        for (int v = 0; v < c->nv; v++)
            if (w->fixed[v])
                f[3 * v] = f[3 * v + 1] = f[3 * v + 2] = 0;
    }
}
