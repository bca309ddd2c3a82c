/*
 * pointshell_file.c — files of kind "pointshell" (pointshell_file.h).
 */
#include "pointshell_file.h"
#include "err.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* /pointshell/dN: ps->dN, or made again from the element records when
 * the shell has none (read from a file, or taken by ep_pscontact_adopt).
 * 0, EP_EIO or EP_ECOMPUTE. */
static int write_dn(ep_h5 *f, const ep_pointshell *ps, const hsize_t du[3])
{
    if (ps->dN)
        return ep_h5_write(f, "/pointshell/dN", EP_F64, 3, du, ps->dN);
    double *dN = ep_malloc((size_t)ps->S * 3 * ps->r + 1, sizeof *dN);
    if (!dN)
        return EP_ECOMPUTE;
    ep_pointshell_dn(ps, dN);
    int st = ep_h5_write(f, "/pointshell/dN", EP_F64, 3, du, dN);
    free(dN);
    return st;
}

int ep_pointshell_file_write(ep_h5 *f, const ep_pointshell *ps)
{
    int S = ps->S, L = ps->L, r = ps->r, st;
    int8_t *level = ep_malloc((size_t)S + 1, sizeof *level);
    int *cells = ep_malloc((size_t)S + 1, sizeof *cells);
    if (!level || !cells) {
        free(level), free(cells);
        return EP_ECOMPUTE;
    }
    for (int l = 1; l <= L; l++)
        for (int s = ps->level_start[l - 1]; s < ps->level_start[l]; s++)
            level[s] = (int8_t)l;
    for (int s = 0; s < S; s++)
        cells[s] = s;
    hsize_t d3[2] = {(hsize_t)S, 3}, dS = (hsize_t)S, dL1 = (hsize_t)L + 1, dL = (hsize_t)L, dn = (hsize_t)ps->nn,
            du[3] = {(hsize_t)S, 3, (hsize_t)r}, da[2] = {(hsize_t)ps->nn, (hsize_t)r};
    if (!(st = ep_h5_write(f, "/pointshell/points", EP_F64, 2, d3, ps->P)) &&
        !(st = ep_h5_write(f, "/pointshell/normals", EP_F64, 2, d3, ps->N)) &&
        !(st = ep_h5_write(f, "/pointshell/level", EP_I8, 1, &dS, level)) &&
        !(st = ep_h5_write(f, "/pointshell/level_start", EP_I32, 1, &dL1, ps->level_start)) &&
        !(st = ep_h5_write(f, "/pointshell/spacing", EP_F64, 1, &dL, ps->spacing)) &&
        !(st = ep_h5_write(f, "/pointshell/parent", EP_I32, 1, &dS, ps->parent)) &&
        !(st = ep_h5_write(f, "/pointshell/cells", EP_I32, 1, &dS, cells)) &&
        !(st = ep_h5_write(f, "/pointshell/tree/start", EP_I32, 1, &dL1, ps->node_start)) &&
        !(st = ep_h5_write(f, "/pointshell/tree/point", EP_I32, 1, &dn, ps->node_point)) &&
        !(st = ep_h5_write(f, "/pointshell/tree/first", EP_I32, 1, &dn, ps->node_first)) &&
        !(st = ep_h5_write(f, "/pointshell/tree/count", EP_I32, 1, &dn, ps->node_count)) &&
        !(st = ep_h5_write(f, "/pointshell/tree/radius", EP_F64, 1, &dn, ps->R0)) &&
        !(st = ep_h5_set_attr_int(f, "/pointshell", "levels", L)) &&
        !(st = ep_h5_set_attr_int(f, "/pointshell", "r", r)) &&
        !(st = ep_h5_set_attr_string(f, "/pointshell", "order", ep_pointshell_order_name[ps->order])) &&
        !(st = ep_h5_set_attr_double(f, "/pointshell", "offset", ps->offset)) &&
        !(st = ep_h5_set_attr_double(f, "/pointshell", "area", ps->area)) &&
        !(st = ep_h5_set_attr_double(f, "/pointshell", "max_embed", ps->max_embed)) && r > 0 &&
        !(st = ep_h5_write(f, "/pointshell/U", EP_F64, 3, du, ps->U)) &&
        !(st = write_dn(f, ps, du)) &&
        !(st = ep_h5_write(f, "/pointshell/tree/a", EP_F64, 2, da, ps->a))) {
        hsize_t dv = (hsize_t)ps->nbv, duv[3] = {dv, 3, (hsize_t)r}, dw[2] = {(hsize_t)S, (hsize_t)ps->k},
                dc[2] = {(hsize_t)ps->nbe, (hsize_t)ps->k}, dg[3] = {(hsize_t)ps->nbe, (hsize_t)ps->k, 3};
        if (!(st = ep_h5_write(f, "/pointshell/bind/vertex", EP_I32, 1, &dv, ps->bvert)) &&
            !(st = ep_h5_write(f, "/pointshell/bind/Uv", EP_F64, 3, duv, ps->Uv)) &&
            !(st = ep_h5_write(f, "/pointshell/bind/element", EP_I32, 1, &dS, ps->belem)) &&
            !(st = ep_h5_write(f, "/pointshell/bind/weight", EP_F64, 2, dw, ps->bw)) &&
            !(st = ep_h5_write(f, "/pointshell/bind/corner", EP_I32, 2, dc, ps->corner)))
            st = ep_h5_write(f, "/pointshell/bind/gradient", EP_F64, 3, dg, ps->grad);
    }
    free(level), free(cells);
    return st;
}

#define BAD(what) ep_fail(EP_EINPUT, "%s: /pointshell%s", f->path, what)

/* The binding per element (r > 0): read, ids in range, and each point's
 * U_s equal to sum_c w_sc U_vc (what the runtime moves it by) to 1e-9 of
 * the largest row entry.  Cost O(S k r). */
static int read_bind(ep_pointshell *ps, ep_h5 *f)
{
    int S = ps->S, r = ps->r, st;
    hsize_t dv = 0, duv[3] = {0, 3, (hsize_t)r}, dS = (hsize_t)S, dw[2] = {(hsize_t)S, 0}, dc[2] = {0, 0},
            dg[3] = {0, 0, 3};
    if ((st = ep_h5_read(f, "/pointshell/bind/vertex", EP_I32, 1, &dv, (void **)&ps->bvert)) ||
        (st = ep_h5_read(f, "/pointshell/bind/weight", EP_F64, 2, dw, (void **)&ps->bw)))
        return st;
    if (dv < 1 || dv > INT32_MAX / 8 || (dw[1] != 4 && dw[1] != 8))
        return BAD("/bind/weight: 4 or 8 weights a point, and bound vertices");
    ps->nbv = (int)dv, ps->k = (int)dw[1], duv[0] = dv, dc[1] = dg[1] = dw[1];
    if ((st = ep_h5_read(f, "/pointshell/bind/Uv", EP_F64, 3, duv, (void **)&ps->Uv)) ||
        (st = ep_h5_read(f, "/pointshell/bind/element", EP_I32, 1, &dS, (void **)&ps->belem)) ||
        (st = ep_h5_read(f, "/pointshell/bind/corner", EP_I32, 2, dc, (void **)&ps->corner)))
        return st;
    if (dc[0] < 1 || dc[0] > INT32_MAX / 8)
        return BAD("/bind/corner: no element records, or too many");
    ps->nbe = (int)(dg[0] = dc[0]);
    if ((st = ep_h5_read(f, "/pointshell/bind/gradient", EP_F64, 3, dg, (void **)&ps->grad)))
        return st;
    int k = ps->k;
    for (int v = 0; v < ps->nbv; v++)
        if (ps->bvert[v] < 0)
            return BAD("/bind/vertex: a negative vertex");
    for (size_t i = 0; i < (size_t)ps->nbe * k; i++)
        if (ps->corner[i] < 0 || ps->corner[i] >= ps->nbv)
            return BAD("/bind/corner: a corner out of the bound vertices");
    double big = 0, worst = 0;
    for (size_t i = 0; i < (size_t)S * 3 * r; i++)
        big = fmax(big, fabs(ps->U[i]));
    for (int s = 0; s < S && worst <= 1e-9 * big; s++) {
        int e = ps->belem[s];
        if (e < 0 || e >= ps->nbe)
            return BAD("/bind/element: an element record out of range");
        for (int i = 0; i < 3 * r; i++) {
            double u = 0;
            for (int c = 0; c < k; c++)
                u += ps->bw[(size_t)k * s + c] * ps->Uv[(size_t)ps->corner[(size_t)k * e + c] * 3 * r + i];
            worst = fmax(worst, fabs(u - ps->U[(size_t)s * 3 * r + i]));
        }
    }
    if (!(worst <= 1e-9 * big))
        return BAD("/bind/Uv: a point's U_s is not the sum of its corners' rows by its weights");
    return EP_OK;
}

/* The structure of the tree (pointshell_file.h's list), the radii and
 * coefficients covering every subtree. */
static int check_tree(const ep_pointshell *ps, ep_h5 *f)
{
    int S = ps->S, L = ps->L, r = ps->r, st = EP_OK;
    int *seen = ep_malloc((size_t)S + 1, sizeof *seen), *up = ep_malloc((size_t)ps->nn + 1, sizeof *up);
    if (!seen || !up) {
        free(seen), free(up);
        return EP_ECOMPUTE;
    }
    for (int s = 0; s < S; s++)
        seen[s] = 0;
    for (int i = 0; i < ps->node_start[1]; i++) {
        up[i] = -1;
        if (ps->node_point[i] != i) {
            st = BAD("/tree/point: the first level's nodes are not the first level's points");
            goto out;
        }
    }
    for (int l = 1; l <= L && !st; l++) {
        int next = ps->node_start[l];
        for (int i = ps->node_start[l - 1]; i < ps->node_start[l]; i++) {
            int p = ps->node_point[i];
            if (p < 0 || p >= ps->level_start[l] || seen[p] == l) {
                st = BAD("/tree/point: a point out of its tree level, or twice on it");
                goto out;
            }
            seen[p] = l;
            if (l == L) {
                if (ps->node_first[i] != -1 || ps->node_count[i] != 0) {
                    st = BAD("/tree/first: a node of the last level with children");
                    goto out;
                }
                continue;
            }
            int c0 = ps->node_first[i], nc = ps->node_count[i];
            if (c0 != next || nc < 1 || nc > ps->node_start[l + 1] - c0 || ps->node_point[c0] != p) {
                st = BAD("/tree/first: children not contiguous, or the first not the node's own copy");
                goto out;
            }
            for (int c = c0; c < c0 + nc; c++) {
                up[c] = i;
                int q = ps->node_point[c];
                if (c > c0 && (q < ps->level_start[l] || q >= ps->level_start[l + 1] || ps->parent[q] != p)) {
                    st = BAD("/tree/point: a child that is not a new point of the next level hanging under it");
                    goto out;
                }
            }
            next += nc;
        }
        if (l < L && next != ps->node_start[l + 1]) {
            st = BAD("/tree/count: the children do not make the next level");
            goto out;
        }
    }
    /* every point inside every ancestor's rest sphere and coefficients */
    for (int i = ps->node_start[L - 1]; i < ps->nn && !st; i++) {
        int s = ps->node_point[i];
        for (int a = up[i]; a >= 0; a = up[a]) {
            int p = ps->node_point[a];
            double d2 = 0;
            for (int k = 0; k < 3; k++)
                d2 += (ps->P[3 * (size_t)s + k] - ps->P[3 * (size_t)p + k]) *
                      (ps->P[3 * (size_t)s + k] - ps->P[3 * (size_t)p + k]);
            if (sqrt(d2) > ps->R0[a] * (1 + 1e-12) + 1e-300) {
                st = BAD("/tree/radius: a point outside its node's rest sphere");
                break;
            }
            for (int j = 0; j < r; j++) {
                const double *Us = &ps->U[(size_t)s * 3 * r], *Up = &ps->U[(size_t)p * 3 * r];
                double e = sqrt((Us[j] - Up[j]) * (Us[j] - Up[j]) + (Us[r + j] - Up[r + j]) * (Us[r + j] - Up[r + j]) +
                                (Us[2 * r + j] - Up[2 * r + j]) * (Us[2 * r + j] - Up[2 * r + j]));
                if (e > ps->a[(size_t)a * r + j] * (1 + 1e-12) + 1e-300) {
                    st = BAD("/tree/a: a coefficient below its subtree's spread (eq. 3.12)");
                    break;
                }
            }
            if (st)
                break;
        }
    }
out:
    free(seen), free(up);
    return st;
}

int ep_pointshell_file_read(ep_pointshell *ps, ep_h5 *f)
{
    double levels = 0, r = 0, order = -1;
    char name[32] = "";
    int8_t *level = NULL;
    int st;
    memset(ps, 0, sizeof *ps);
    if (ep_h5_get_attr_double(f, "/pointshell", "levels", &levels) || levels < 1 ||
        levels > EP_POINTSHELL_MAX_LEVELS || levels != floor(levels))
        return BAD(": attribute levels must be 1 to 12");
    if (ep_h5_get_attr_double(f, "/pointshell", "r", &r) || r < 0 || r > 100000 || r != floor(r))
        return BAD(": attribute r must be an integer >= 0");
    if ((st = ep_h5_get_attr_string(f, "/pointshell", "order", name, sizeof name)))
        return st;
    for (int k = 0; k < 3; k++)
        if (!strcmp(name, ep_pointshell_order_name[k]))
            order = k;
    if (order < 0)
        return BAD(": attribute order is not repulsion, farthest or vertices");
    ps->L = (int)levels, ps->r = (int)r, ps->order = (int)order;
    if ((st = ep_h5_get_attr_double(f, "/pointshell", "offset", &ps->offset)) ||
        (st = ep_h5_get_attr_double(f, "/pointshell", "area", &ps->area)) ||
        (st = ep_h5_get_attr_double(f, "/pointshell", "max_embed", &ps->max_embed)))
        return st;
    hsize_t d3[2] = {0, 3}, dL1 = (hsize_t)ps->L + 1, dL = (hsize_t)ps->L;
    if ((st = ep_h5_read(f, "/pointshell/points", EP_F64, 2, d3, (void **)&ps->P)))
        return st;
    if (d3[0] < 1 || d3[0] > INT32_MAX / 8)
        return BAD("/points: no points, or too many");
    int S = ps->S = (int)d3[0];
    hsize_t dS = (hsize_t)S;
    if ((st = ep_h5_read(f, "/pointshell/normals", EP_F64, 2, d3, (void **)&ps->N)) ||
        (st = ep_h5_read(f, "/pointshell/level", EP_I8, 1, &dS, (void **)&level)) ||
        (st = ep_h5_read(f, "/pointshell/level_start", EP_I32, 1, &dL1, (void **)&ps->level_start)) ||
        (st = ep_h5_read(f, "/pointshell/spacing", EP_F64, 1, &dL, (void **)&ps->spacing)) ||
        (st = ep_h5_read(f, "/pointshell/parent", EP_I32, 1, &dS, (void **)&ps->parent)) ||
        (st = ep_h5_read(f, "/pointshell/tree/start", EP_I32, 1, &dL1, (void **)&ps->node_start)))
        goto out;
    if (ps->level_start[0] != 0 || ps->level_start[1] < 1 || ps->level_start[ps->L] != S || ps->node_start[0] != 0) {
        st = BAD("/level_start: must run from 0 to the points, level 1 not empty");
        goto out;
    }
    for (int l = 1; l <= ps->L; l++) {
        if (ps->level_start[l] < ps->level_start[l - 1] ||
            (long)ps->node_start[l] != (long)ps->node_start[l - 1] + ps->level_start[l] || ps->node_start[l] < 0) {
            st = BAD("/tree/start: tree level l must hold every point of levels <= l");
            goto out;
        }
        for (int s = ps->level_start[l - 1]; s < ps->level_start[l]; s++)
            if (level[s] != l || (l == 1 ? ps->parent[s] != -1 : ps->parent[s] < 0 || ps->parent[s] >= ps->level_start[l - 1])) {
                st = BAD("/level, /parent: a point's level or parent out of range");
                goto out;
            }
    }
    for (int s = 0; s < S; s++) {
        const double *n = &ps->N[3 * (size_t)s];
        if (fabs(n[0] * n[0] + n[1] * n[1] + n[2] * n[2] - 1) > 1e-6) {
            st = BAD("/normals: a normal is not of unit length");
            goto out;
        }
    }
    ps->nn = ps->node_start[ps->L];
    hsize_t dn = (hsize_t)ps->nn, du[3] = {(hsize_t)S, 3, (hsize_t)ps->r}, da[2] = {dn, (hsize_t)ps->r};
    if ((st = ep_h5_read(f, "/pointshell/tree/point", EP_I32, 1, &dn, (void **)&ps->node_point)) ||
        (st = ep_h5_read(f, "/pointshell/tree/first", EP_I32, 1, &dn, (void **)&ps->node_first)) ||
        (st = ep_h5_read(f, "/pointshell/tree/count", EP_I32, 1, &dn, (void **)&ps->node_count)) ||
        (st = ep_h5_read(f, "/pointshell/tree/radius", EP_F64, 1, &dn, (void **)&ps->R0)))
        goto out;
    if (ps->r > 0 && ((st = ep_h5_read(f, "/pointshell/U", EP_F64, 3, du, (void **)&ps->U)) ||
                      (st = ep_h5_read(f, "/pointshell/tree/a", EP_F64, 2, da, (void **)&ps->a)) ||
                      (st = read_bind(ps, f))))
        goto out;
    for (int i = 0; i < ps->nn; i++)
        if (!(ps->R0[i] >= 0)) {
            st = BAD("/tree/radius: a negative radius");
            goto out;
        }
    st = check_tree(ps, f);
out:
    free(level);
    return st;
}
