/*
 * trajectory.c — the trajectory file, written as a run goes and read back
 * (trajectory.h).
 */
#include "trajectory.h"
#include "err.h"
#include "modes_file.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int ep_trajectory_begin(ep_trajectory_writer *w, ep_h5 *f, int nv, const ep_trajectory_info *info,
                        const ep_loads *L)
{
    const char *g = "/trajectory";
    hsize_t n3 = 3 * (hsize_t)nv, row[2] = {0, n3}, one[1] = {0}, five[2] = {0, EP_NLSOLVE_NENERGY};
    int st;
    memset(w, 0, sizeof *w);
    w->f = f, w->nv = nv;
    if ((st = ep_h5_stream_open(&w->step, f, "/trajectory/step", EP_I32, 1, one)) ||
        (st = ep_h5_stream_open(&w->time, f, "/trajectory/time", EP_F64, 1, one)) ||
        (st = ep_h5_stream_open(&w->u, f, "/trajectory/u", EP_F64, 2, row)) ||
        (st = ep_h5_stream_open(&w->v, f, "/trajectory/v", EP_F64, 2, row)) ||
        (st = ep_h5_stream_open(&w->fext, f, "/trajectory/f_ext", EP_F64, 2, row)) ||
        (st = ep_h5_stream_open(&w->energy, f, "/trajectory/energy", EP_F64, 2, five)) ||
        (st = ep_h5_stream_open(&w->iters, f, "/trajectory/iterations", EP_I32, 1, one)) ||
        (st = ep_h5_set_attr_string(f, g, "mode", info->dynamic ? "dynamic" : "static")) ||
        (st = ep_h5_set_attr_string(f, g, "law", info->law)) ||
        (st = ep_h5_set_attr_string(f, g, "mass", info->lumped ? "lumped" : "consistent")) ||
        (st = ep_h5_set_attr_double(f, g, "dt", info->dt)) || (st = ep_h5_set_attr_double(f, g, "alpha", info->alpha)) ||
        (st = ep_h5_set_attr_double(f, g, "beta", info->beta)) || (st = ep_h5_set_attr_double(f, g, "tol", info->tol)) ||
        (st = ep_h5_set_attr_int(f, g, "every", info->every)) || (st = ep_h5_set_attr_int(f, g, "steps", info->steps)))
        return st;
    double *tf = ep_malloc(3 * (size_t)L->nitem + 1, sizeof *tf);
    if (!tf)
        return EP_ECOMPUTE;
    for (int i = 0; i < L->nitem; i++)
        tf[3 * i] = L->item[i].fn, tf[3 * i + 1] = L->item[i].t0, tf[3 * i + 2] = L->item[i].t1;
    hsize_t db[2] = {(hsize_t)L->nitem, n3}, dt[2] = {(hsize_t)L->nitem, 3};
    st = ep_h5_write(f, "/loads/base", EP_F64, 2, db, L->base);
    if (!st)
        st = ep_h5_write(f, "/loads/time", EP_F64, 2, dt, tf);
    free(tf);
    return st;
}

int ep_trajectory_append(ep_trajectory_writer *w, const ep_nlsolve_state *s)
{
    int step = (int)s->step, it = s->iterations, st;
    if ((st = ep_h5_stream_append(&w->step, 1, &step)) || (st = ep_h5_stream_append(&w->time, 1, &s->t)) ||
        (st = ep_h5_stream_append(&w->u, 1, s->u)) || (st = ep_h5_stream_append(&w->v, 1, s->v)) ||
        (st = ep_h5_stream_append(&w->fext, 1, s->f_ext)) || (st = ep_h5_stream_append(&w->energy, 1, s->energy)) ||
        (st = ep_h5_stream_append(&w->iters, 1, &it)))
        return st;
    w->n++;
    return EP_OK;
}

int ep_trajectory_end(ep_trajectory_writer *w, int complete, const char *message, const ep_nlsolve_iter *hist,
                      long nhist, double step_seconds)
{
    ep_h5_stream *s[] = {&w->step, &w->time, &w->u, &w->v, &w->fext, &w->energy, &w->iters};
    int st = EP_OK;
    for (size_t i = 0; i < sizeof s / sizeof *s; i++) {
        int c = ep_h5_stream_close(s[i]);
        st = st ? st : c;
    }
    double *h = ep_malloc(5 * (size_t)nhist + 1, sizeof *h);
    if (!h)
        return EP_ECOMPUTE;
    for (long i = 0; i < nhist; i++) {
        double *r = h + 5 * i;
        r[0] = (double)hist[i].step, r[1] = hist[i].iter, r[2] = hist[i].residual, r[3] = hist[i].length,
        r[4] = hist[i].shift;
    }
    hsize_t dh[2] = {(hsize_t)nhist, 5};
    if (!st)
        st = ep_h5_write(w->f, "/newton/history", EP_F64, 2, dh, h);
    free(h);
    if (!st)
        st = ep_h5_set_attr_int(w->f, "/trajectory", "complete", complete);
    if (!st)
        st = ep_h5_set_attr_double(w->f, "/trajectory", "step_seconds", step_seconds);
    if (!st && message)
        st = ep_h5_set_attr_string(w->f, "/trajectory", "message", message);
    return st;
}

int ep_trajectory_read(ep_trajectory *t, ep_h5 *f, int nv)
{
    const char *g = "/trajectory";
    hsize_t n3 = 3 * (hsize_t)nv, d1[1] = {0}, d2[2] = {0, n3}, de[2] = {0, EP_NLSOLVE_NENERGY}, db[2] = {0, n3},
            dt[2] = {0, 3};
    char mode[16];
    double every, complete, steps;
    int st;
    memset(t, 0, sizeof *t);
    t->nv = nv;
    if ((st = ep_h5_get_attr_string(f, g, "mode", mode, sizeof mode)) ||
        (st = ep_h5_get_attr_string(f, g, "law", t->law, sizeof t->law)) ||
        (st = ep_h5_get_attr_string(f, g, "mass", t->mass, sizeof t->mass)) ||
        (st = ep_h5_get_attr_double(f, g, "dt", &t->dt)) || (st = ep_h5_get_attr_double(f, g, "alpha", &t->alpha)) ||
        (st = ep_h5_get_attr_double(f, g, "beta", &t->beta)) || (st = ep_h5_get_attr_double(f, g, "every", &every)) ||
        (st = ep_h5_get_attr_double(f, g, "complete", &complete)) ||
        (st = ep_h5_get_attr_double(f, g, "steps", &steps)) ||
        (ep_h5_attr_exists(f, g, "step_seconds") && (st = ep_h5_get_attr_double(f, g, "step_seconds", &t->step_seconds))) ||
        (st = ep_h5_read(f, "/trajectory/time", EP_F64, 1, d1, (void **)&t->time)))
        return st;
    t->dynamic = !strcmp(mode, "dynamic"), t->complete = complete != 0; /* every: converted once checked */
    t->T = (int)d1[0];
    d2[0] = de[0] = d1[0];
    if ((st = ep_h5_read(f, "/trajectory/step", EP_I32, 1, d1, (void **)&t->step)) ||
        (st = ep_h5_read(f, "/trajectory/u", EP_F64, 2, d2, (void **)&t->u)) ||
        (st = ep_h5_read(f, "/trajectory/v", EP_F64, 2, d2, (void **)&t->v)) ||
        (st = ep_h5_read(f, "/trajectory/f_ext", EP_F64, 2, d2, (void **)&t->fext)) ||
        (st = ep_h5_read(f, "/trajectory/energy", EP_F64, 2, de, (void **)&t->energy)) ||
        (st = ep_h5_read(f, "/loads/base", EP_F64, 2, db, (void **)&t->base)) ||
        (dt[0] = db[0], st = ep_h5_read(f, "/loads/time", EP_F64, 2, dt, (void **)&t->tfun)))
        return st;
    t->nitem = (int)db[0];
    if (t->T < 1)
        return ep_fail(EP_EINPUT, "%s: /trajectory: no state", f->path);
    if (strcmp(mode, "dynamic") && strcmp(mode, "static"))
        return ep_fail(EP_EINPUT, "%s: /trajectory: mode \"%s\", expected static or dynamic", f->path, mode);
    if (strcmp(t->mass, "consistent") && strcmp(t->mass, "lumped"))
        return ep_fail(EP_EINPUT, "%s: /trajectory: mass \"%s\", expected consistent or lumped", f->path, t->mass);
    if (t->dynamic && !(t->dt > 0))
        return ep_fail(EP_EINPUT, "%s: /trajectory: dt must be > 0", f->path);
    if (!(every >= 1 && every <= 1e9 && every == floor(every)) || !(steps >= 0 && steps <= 1e9 && steps == floor(steps)))
        return ep_fail(EP_EINPUT, "%s: /trajectory: every %.17g and steps %.17g, expected whole numbers up to 1e9",
                       f->path, every, steps);
    t->every = (long)every;
    /* the writer's states (fullsim): steps 0, every, 2 every, .., then the
     * last one (steps, or the last multiple before a failure); what a
     * reader replays (rtcheck --reference) is bounded by them */
    for (int s = 0; s < t->T; s++) {
        long k = t->step[s], lo = s ? (long)(s - 1) * t->every : 0, hi = (long)s * t->every;
        if (s < t->T - 1 ? k != hi : k < lo + (s > 0) || k > hi || k > (long)steps)
            return ep_fail(EP_EINPUT, "%s: /trajectory/step: step %ld at row %d does not follow every %ld up to steps %.0f",
                           f->path, k, s, t->every, steps);
    }
    for (int i = 0; i < t->nitem; i++)
        if (t->tfun[3 * i] < 0 || t->tfun[3 * i] > EP_LOADS_IMPULSE)
            return ep_fail(EP_EINPUT, "%s: /loads/time: unknown time function at row %d", f->path, i);
    return EP_OK;
}

void ep_trajectory_free(ep_trajectory *t)
{
    free(t->step), free(t->time), free(t->u), free(t->v), free(t->fext), free(t->energy), free(t->base);
    free(t->tfun);
    memset(t, 0, sizeof *t);
}

void ep_trajectory_force(const ep_trajectory *t, double time, double *f)
{
    size_t n3 = 3 * (size_t)t->nv;
    memset(f, 0, n3 * sizeof *f);
    for (int i = 0; i < t->nitem; i++) {
        ep_loads_item it = {.fn = (ep_loads_time)t->tfun[3 * i], .t0 = t->tfun[3 * i + 1], .t1 = t->tfun[3 * i + 2]};
        double s = ep_loads_factor(&it, time, !t->dynamic);
        for (size_t k = 0; s != 0 && k < n3; k++)
            f[k] += s * t->base[(size_t)i * n3 + k];
    }
}

int ep_trajectory_initial(const ep_loads_initial *in, int nv, double *out)
{
    ep_h5 f = {0};
    double *lambda = NULL, *U = NULL;
    int st, k, lumped;
    memset(out, 0, 3 * (size_t)nv * sizeof *out);
    if (!in->given)
        return EP_OK;
    if (!(st = ep_h5_open(&f, in->path, "modes")) &&
        !(st = ep_modes_file_read_modes(&f, nv, 0, &lambda, &U, &k, &lumped))) {
        if (in->mode > k)
            st = ep_fail(EP_EINPUT, "%s: mode %d asked, the file holds %d", in->path, in->mode, k);
        else
            for (size_t i = 0; i < 3 * (size_t)nv; i++)
                out[i] = in->scale * U[(size_t)(in->mode - 1) * 3 * nv + i];
    }
    free(lambda), free(U);
    ep_h5_close(&f);
    return st;
}
