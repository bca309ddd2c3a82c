/*
 * probe.c — a probe's footprint on the free boundary nodes (probe.h).
 */
#include "probe.h"
#include "err.h"
#include "vec3.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

int ep_probe_init(ep_probe *p, const ep_gfsrc *g)
{
    memset(p, 0, sizeof *p);
    p->g = g;
    if (!(p->free = ep_malloc((size_t)g->n + 1, sizeof *p->free)) ||
        !(p->order = ep_malloc((size_t)g->n + 1, sizeof *p->order)))
        return EP_ECOMPUTE;
    for (int r = 0; r < g->n; r++)
        if (g->col_of_row[r] >= 0 && !g->file->L.row_fixed[r])
            p->free[p->nfree++] = r;
    p->diameter = ep_mesh_diameter(&g->file->mesh);
    return EP_OK;
}

void ep_probe_free(ep_probe *p)
{
    free(p->free);
    free(p->order);
    memset(p, 0, sizeof *p);
}

/* By distance, then by position in the free list: the order qsort gave
 * before (ties keep the smaller index), whatever the sort does with ties. */
static int by_distance(const void *a, const void *b)
{
    const struct ep_probe_dist *x = a, *y = b;
    return x->d2 != y->d2 ? (x->d2 > y->d2) - (x->d2 < y->d2) : (x->i > y->i) - (x->i < y->i);
}

void ep_probe_footprint(ep_probe *p, int seed, int k, int *out)
{
    const ep_mesh *m = &p->g->file->mesh;
    const int *rv = p->g->file->L.row_vertex;
    const double *x0 = &m->vertices[3 * (size_t)rv[seed]];
    assert(k >= 1 && k <= p->nfree);
    for (int i = 0; i < p->nfree; i++) {
        p->order[i].d2 = ep_vec3_dist2(&m->vertices[3 * (size_t)rv[p->free[i]]], x0);
        p->order[i].i = i;
    }
    qsort(p->order, (size_t)p->nfree, sizeof *p->order, by_distance);
    for (int i = 0; i < k; i++)
        out[i] = p->free[p->order[i].i];
}
