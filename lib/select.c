/*
 * select.c — fixed-vertex selections (select.h).
 */
#include "select.h"
#include "err.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ep_vsel_given(const ep_vsel *s)
{
    return s->ids_file || s->has_box || s->region;
}

int ep_vsel_parse_box(ep_vsel *s, const char *opt, const char *arg)
{
    char *e;
    const char *p = arg;
    for (int k = 0; k < 6; k++) {
        s->box[k] = strtod(p, &e);
        if (e == p || (k < 5 ? *e != ',' : *e != '\0'))
            return ep_fail(EP_EUSAGE, "%s: expected x0,y0,z0,x1,y1,z1, got \"%s\"", opt, arg);
        p = e + 1;
    }
    for (int a = 0; a < 3; a++)
        if (!(s->box[a] <= s->box[a + 3]))
            return ep_fail(EP_EUSAGE, "%s: lower corner above upper corner in \"%s\"", opt, arg);
    s->has_box = 1;
    return EP_OK;
}

int ep_vsel_mask_ids(const char *mask, int nv, int **ids, int *n)
{
    int count = 0;
    for (int v = 0; v < nv; v++)
        count += mask[v] != 0;
    *ids = NULL;
    *n = 0;
    if (count == 0)
        return EP_OK;
    if (!(*ids = ep_malloc((size_t)count, sizeof **ids)))
        return EP_ECOMPUTE;
    for (int v = 0; v < nv; v++)
        if (mask[v])
            (*ids)[(*n)++] = v;
    return EP_OK;
}

int ep_vsel_read_ids(const char *path, int nv, int **ids, int *n)
{
    ep_text t;
    int *v = NULL, r, st = ep_text_open(&t, path, '#');
    size_t cnt = 0;
    if (st)
        return st;
    while ((r = ep_text_next(&t)) > 0)
        while (ep_text_more(&t)) {
            long id;
            if ((st = ep_text_long(&t, &id)))
                goto out;
            if (id < 1 || id > nv) {
                st = ep_text_fail(&t, EP_EINPUT, "vertex id %ld out of range (1..%d)", id, nv);
                goto out;
            }
            if ((st = ep_grow(&v, cnt + 1, sizeof *v)))
                goto out;
            v[cnt++] = (int)id - 1;
        }
    if (r < 0)
        st = -r;
out:
    ep_text_close(&t);
    if (st) {
        free(v);
        return st;
    }
    *ids = v;
    *n = (int)cnt;
    return EP_OK;
}

int ep_vsel_apply(const ep_mesh *m, const ep_vsel *s, const char *what, int **sel, int *nsel)
{
    char *mark = ep_calloc((size_t)m->nv, 1);
    int *ids = NULL, n = 0, st = EP_OK;
    if (!mark)
        return EP_ECOMPUTE;
    if (s->ids_file) {
        if ((st = ep_vsel_read_ids(s->ids_file, m->nv, &ids, &n)))
            goto out;
        for (int i = 0; i < n; i++)
            mark[ids[i]] = 1;
        free(ids);
        ids = NULL;
    }
    if (s->has_box) {
        /* Inclusive, with a tolerance relative to the model so a box drawn at
         * a face's coordinate catches that face despite round-off. */
        double tol = 1e-9 * ep_mesh_diameter(m);
        for (int v = 0; v < m->nv; v++) {
            const double *x = &m->vertices[3 * v];
            int in = 1;
            for (int a = 0; a < 3; a++)
                in &= x[a] >= s->box[a] - tol && x[a] <= s->box[a + 3] + tol;
            mark[v] |= (char)in;
        }
    }
    if (s->region) {
        const ep_group *g = ep_mesh_find_group(m, s->region);
        if (!g) {
            st = ep_fail(EP_EUSAGE, "%s has no physical group or set \"%s\" (%s region)", m->source,
                         s->region, what);
            goto out;
        }
        for (int i = 0; i < g->nv; i++)
            mark[g->v[i]] = 1;
    }
    if ((st = ep_vsel_mask_ids(mark, m->nv, sel, nsel)))
        goto out;
    if (*nsel == 0)
        st = ep_fail(EP_EINPUT, "%s: no %s selected", m->source, what);
out:
    free(mark);
    return st;
}
