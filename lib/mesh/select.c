/*
 * select.c — vertex selections (select.h).
 */
#include "select.h"
#include "err.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ep_select_given(const ep_select *s)
{
    return s->ids_file || s->has_box || s->region;
}

int ep_select_parse_box(ep_select *s, const char *opt, const char *arg)
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

int ep_select_mask_ids(const char *mask, int nv, int **ids, int *n)
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

int ep_select_read_ids(const char *path, int nv, int **ids, int *n)
{
    ep_text t;
    int *v = NULL, st = ep_text_open(&t, path, '#');
    size_t cnt = 0, cap = 0;
    if (st)
        return st;
    while (!(st = ep_text_next(&t)) && !t.eof)
        while (ep_text_more(&t)) {
            long id;
            if ((st = ep_text_long(&t, &id)))
                goto out;
            if (id < 1 || id > nv) {
                st = ep_text_fail(&t, EP_EINPUT, "vertex id %ld out of range (1..%d)", id, nv);
                goto out;
            }
            /* doubling: one realloc per id made 200k ids quadratic (456 s under
             * ASan, where every realloc copies; issue 22, class 14) */
            if ((st = ep_grow_to(&v, &cap, cnt + 1, sizeof *v)))
                goto out;
            v[cnt++] = (int)id - 1;
        }
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

/* Mark the selected vertices in mark[nv].  With onb (the boundary vertices
 * marked), an id file may name only boundary vertices and a box or group
 * contributes only its boundary vertices. */
static int mark_selected(const ep_select *s, const ep_mesh *m, const char *what, const char *onb, char *mark)
{
    int *ids = NULL, n = 0, st;
    if (s->ids_file) {
        if ((st = ep_select_read_ids(s->ids_file, m->nv, &ids, &n)))
            return st;
        for (int i = 0; i < n; i++) {
            if (onb && !onb[ids[i]]) {
                st = ep_fail(EP_EINPUT, "%s: %s vertex %d is not a boundary vertex", s->ids_file, what, ids[i] + 1);
                free(ids);
                return st;
            }
            mark[ids[i]] = 1;
        }
        free(ids);
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
            mark[v] |= (char)(in && (!onb || onb[v]));
        }
    }
    if (s->region) {
        const ep_group *g = ep_mesh_find_group(m, s->region);
        if (!g)
            return ep_fail(EP_EUSAGE, "%s has no physical group or set \"%s\" (%s%s region)", m->source,
                           s->region, what, onb ? " vertex" : "");
        for (int i = 0; i < g->nv; i++)
            mark[g->v[i]] |= (char)(!onb || onb[g->v[i]]);
    }
    return EP_OK;
}

static int apply(const ep_select *s, const ep_mesh *m, const char *what, int boundary, int **sel, int *nsel)
{
    char *mark = ep_calloc((size_t)m->nv, 1), *onb = boundary ? ep_calloc((size_t)m->nv, 1) : NULL;
    int st;
    if (!mark || (boundary && !onb)) {
        st = EP_ECOMPUTE;
        goto out;
    }
    for (int j = 0; boundary && j < m->nb; j++)
        onb[m->boundary[j]] = 1;
    if ((st = mark_selected(s, m, what, onb, mark)) || (st = ep_select_mask_ids(mark, m->nv, sel, nsel)))
        goto out;
    if (*nsel == 0)
        st = boundary ? ep_fail(EP_EINPUT, "%s: no boundary vertex selected for %ss", m->source, what)
                      : ep_fail(EP_EINPUT, "%s: no %s selected", m->source, what);
out:
    free(mark);
    free(onb);
    return st;
}

int ep_select_apply(const ep_select *s, const ep_mesh *m, const char *what, int **sel, int *nsel)
{
    return apply(s, m, what, 0, sel, nsel);
}

int ep_select_boundary(const ep_select *s, const ep_mesh *m, const char *what, int **sel, int *nsel)
{
    return apply(s, m, what, 1, sel, nsel);
}
