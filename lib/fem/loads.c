/*
 * loads.c — the load file and f_ext(t) (loads.h).
 */
#include "loads.h"
#include "err.h"
#include "select.h"
#include "text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A path named in the load file: as given when absolute, else beside it. */
static int resolve(const ep_text *t, const char *name, char *out, size_t cap)
{
    const char *slash = strrchr(t->path, '/');
    int n = name[0] == '/' || !slash ? snprintf(out, cap, "%s", name)
                                     : snprintf(out, cap, "%.*s/%s", (int)(slash - t->path), t->path, name);
    return n < 0 || (size_t)n >= cap ? ep_text_fail(t, EP_EINPUT, "path too long") : EP_OK;
}

static int vec3(ep_text *t, double v[3])
{
    int st = EP_OK;
    for (int i = 0; i < 3 && !st; i++)
        st = ep_text_double(t, &v[i]);
    return st;
}

/* SET: vertex ID | box X0 Y0 Z0 X1 Y1 Z1 | region NAME | ids FILE. */
static int vertex_set(ep_text *t, const ep_mesh *m, ep_loads_item *it)
{
    char *w, *arg, path[4096];
    ep_select s = {0};
    long id;
    int st;
    if ((st = ep_text_word(t, &w)))
        return st;
    if (!strcmp(w, "vertex")) {
        if ((st = ep_text_long(t, &id)))
            return st;
        if (id < 1 || id > m->nv)
            return ep_text_fail(t, EP_EINPUT, "vertex %ld does not exist (the mesh has %d)", id, m->nv);
        if (!(it->ids = ep_malloc(1, sizeof *it->ids)))
            return EP_ECOMPUTE;
        it->ids[0] = (int)id - 1, it->n = 1;
        return EP_OK;
    }
    if (!strcmp(w, "box")) {
        s.has_box = 1;
        for (int i = 0; i < 6 && !st; i++)
            st = ep_text_double(t, &s.box[i]);
        if (!st && (s.box[0] > s.box[3] || s.box[1] > s.box[4] || s.box[2] > s.box[5]))
            return ep_text_fail(t, EP_EINPUT, "box corners out of order (X0 <= X1, Y0 <= Y1, Z0 <= Z1)");
    } else if (!strcmp(w, "region") || !strcmp(w, "ids")) {
        int region = w[0] == 'r';
        if ((st = ep_text_word(t, &arg)))
            return st;
        if (region)
            s.region = arg;
        else if (!(st = resolve(t, arg, path, sizeof path)))
            s.ids_file = path;
    } else {
        return ep_text_fail(t, EP_EINPUT, "expected a vertex set (vertex, box, region or ids), got \"%s\"", w);
    }
    if (!st && (st = ep_select_apply(&s, m, "loaded vertex", &it->ids, &it->n)))
        return ep_text_fail(t, st == EP_EUSAGE ? EP_EINPUT : st, "%s", ep_errmsg());
    return st;
}

/* [constant | ramp T | impulse T0 T1] at the end of the line. */
static int time_function(ep_text *t, ep_loads_item *it)
{
    char *w;
    int st;
    it->fn = EP_LOADS_CONSTANT;
    if (!ep_text_more(t))
        return EP_OK;
    if ((st = ep_text_word(t, &w)))
        return st;
    if (!strcmp(w, "ramp")) {
        it->fn = EP_LOADS_RAMP;
        if ((st = ep_text_double(t, &it->t1)))
            return st;
        if (!(it->t1 > 0))
            return ep_text_fail(t, EP_EINPUT, "ramp time must be > 0");
    } else if (!strcmp(w, "impulse")) {
        it->fn = EP_LOADS_IMPULSE;
        if ((st = ep_text_double(t, &it->t0)) || (st = ep_text_double(t, &it->t1)))
            return st;
        if (!(it->t1 > it->t0))
            return ep_text_fail(t, EP_EINPUT, "impulse needs T0 < T1");
    } else if (strcmp(w, "constant")) {
        return ep_text_fail(t, EP_EINPUT, "expected constant, ramp T or impulse T0 T1, got \"%s\"", w);
    }
    return ep_text_more(t) ? ep_text_fail(t, EP_EINPUT, "unexpected text at the end of the line") : EP_OK;
}

static int initial(ep_text *t, ep_loads_initial *in, const char *what)
{
    char *w;
    long i;
    int st;
    if (in->given)
        return ep_text_fail(t, EP_EINPUT, "a second initial %s", what);
    if ((st = ep_text_word(t, &w)))
        return st;
    if (strcmp(w, "mode"))
        return ep_text_fail(t, EP_EINPUT, "expected \"mode FILE I SCALE\" after %s", what);
    if ((st = ep_text_word(t, &w)) || (st = resolve(t, w, in->path, sizeof in->path)) || (st = ep_text_long(t, &i)) ||
        (st = ep_text_double(t, &in->scale)))
        return st;
    if (i < 1)
        return ep_text_fail(t, EP_EINPUT, "mode numbers start at 1");
    in->given = 1, in->mode = (int)i;
    return ep_text_more(t) ? ep_text_fail(t, EP_EINPUT, "unexpected text at the end of the line") : EP_OK;
}

int ep_loads_read(ep_loads *L, const char *path, const ep_mesh *m)
{
    ep_text t;
    int st;
    memset(L, 0, sizeof *L);
    L->nv = m->nv;
    if ((st = ep_text_open(&t, path, '#')))
        return st;
    while (!(st = ep_text_next(&t)) && !t.eof) {
        char *w;
        if ((st = ep_text_word(&t, &w)))
            break;
        if (!strcmp(w, "displacement") || !strcmp(w, "velocity")) {
            if ((st = initial(&t, w[0] == 'd' ? &L->u0 : &L->v0, w)))
                break;
            continue;
        }
        int gravity = !strcmp(w, "gravity");
        if (!gravity && strcmp(w, "force")) {
            st = ep_text_fail(&t, EP_EINPUT, "expected force, gravity, displacement or velocity, got \"%s\"", w);
            break;
        }
        ep_loads_item *grown = realloc(L->item, sizeof *L->item * (size_t)(L->nitem + 1));
        if (!grown) {
            st = ep_fail(EP_ECOMPUTE, "out of memory (loads)");
            break;
        }
        L->item = grown;
        ep_loads_item *it = memset(&L->item[L->nitem++], 0, sizeof *it);
        it->gravity = gravity;
        if ((!gravity && (st = vertex_set(&t, m, it))) || (st = vec3(&t, it->F)) || (st = time_function(&t, it)))
            break;
    }
    if (!st && !L->nitem && !L->u0.given && !L->v0.given)
        st = ep_fail(EP_EINPUT, "%s: no load and no initial state", path);
    ep_text_close(&t);
    return st;
}

void ep_loads_free(ep_loads *L)
{
    for (int i = 0; i < L->nitem; i++)
        free(L->item[i].ids);
    free(L->item);
    free(L->base);
    memset(L, 0, sizeof *L);
}

int ep_loads_bind(ep_loads *L, const ep_elastic *b)
{
    size_t n3 = 3 * (size_t)L->nv;
    double *g = ep_calloc((size_t)b->ndof + 1, sizeof *g), *mg = ep_malloc((size_t)b->ndof + 1, sizeof *mg);
    free(L->base);
    L->base = ep_calloc((size_t)L->nitem * n3 + 1, sizeof *L->base);
    if (!L->base || !g || !mg) {
        free(g), free(mg);
        return EP_ECOMPUTE;
    }
    for (int i = 0; i < L->nitem; i++) {
        const ep_loads_item *it = &L->item[i];
        double *f = L->base + (size_t)i * n3;
        if (!it->gravity) {
            for (int q = 0; q < it->n; q++)
                for (int a = 0; a < 3; a++)
                    f[3 * (size_t)it->ids[q] + a] = it->F[a] / it->n;
            continue;
        }
        for (int d = 0; d < b->ndof; d++)
            g[d] = it->F[d % 3];
        ep_elastic_symv(b, b->Mx, g, mg);
        ep_elastic_scatter(b, mg, f);
    }
    free(g), free(mg);
    return EP_OK;
}

double ep_loads_factor(const ep_loads_item *it, double t, int is_static)
{
    if (is_static || it->fn == EP_LOADS_CONSTANT)
        return 1;
    if (it->fn == EP_LOADS_RAMP)
        return t <= 0 ? 0 : t >= it->t1 ? 1 : t / it->t1;
    double eps = 1e-9 * (it->t1 - it->t0); /* k dt is T0 or T1 up to its round-off */
    if (fabs(t - it->t1) <= eps || (it->t0 > 0 && fabs(t - it->t0) <= eps))
        return 0.5; /* the mean of both sides; a pulse from the start (T0 <= 0) has one side there */
    return t >= it->t0 - eps && t < it->t1 ? 1 : 0;
}

void ep_loads_eval(const ep_loads *L, double t, int is_static, double *f)
{
    size_t n3 = 3 * (size_t)L->nv;
    memset(f, 0, n3 * sizeof *f);
    for (int i = 0; i < L->nitem; i++) {
        double s = ep_loads_factor(&L->item[i], t, is_static);
        const double *b = L->base + (size_t)i * n3;
        if (s != 0)
            for (size_t k = 0; k < n3; k++)
                f[k] += s * b[k];
    }
}
