/*
 * part.c — shares, /part and the run hash of split runs (part.h).
 */
#include "part.h"
#include "err.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ep_part_parse(ep_part *p, const char *opt, const char *arg)
{
    char *end;
    memset(p, 0, sizeof *p);
    errno = 0;
    long i = strtol(arg, &end, 10);
    if (end == arg || *end != '/' || errno)
        return ep_fail(EP_EUSAGE, "option %s: expected I/N (part I of N, 0 <= I < N), got \"%s\"", opt, arg);
    const char *s = end + 1;
    long n = strtol(s, &end, 10);
    if (end == s || *end || errno)
        return ep_fail(EP_EUSAGE, "option %s: expected I/N (part I of N, 0 <= I < N), got \"%s\"", opt, arg);
    if (n < 1 || n > 100000 || i < 0 || i >= n)
        return ep_fail(EP_EUSAGE, "option %s: %s: need 0 <= I < N <= 100000", opt, arg);
    p->index = (int)i;
    p->count = (int)n;
    return EP_OK;
}

void ep_part_share(ep_part *p, long total, long grain, const char *unit)
{
    p->total = total;
    snprintf(p->unit, sizeof p->unit, "%s", unit);
    if (p->count == 0) {
        p->lo = 0;
        p->hi = total;
        return;
    }
    long g = (total + grain - 1) / grain, g0 = (long)((double)p->index * g / p->count),
         g1 = (long)((double)(p->index + 1) * g / p->count);
    /* the products stay exact in double for any realistic g * N */
    p->lo = g0 * grain < total ? g0 * grain : total;
    p->hi = g1 * grain < total ? g1 * grain : total;
}

void ep_part_hash_init(ep_part_hash *h, const char *creator)
{
    sha256_init(&h->ctx);
    ep_part_hash_string(h, "creator", creator);
}

void ep_part_hash_bytes(ep_part_hash *h, const char *name, const void *data, size_t n)
{
    unsigned long long len = n;
    sha256_update(&h->ctx, strlen(name) + 1, (const uint8_t *)name);
    sha256_update(&h->ctx, sizeof len, (const uint8_t *)&len);
    if (n)
        sha256_update(&h->ctx, n, data);
}

void ep_part_hash_long(ep_part_hash *h, const char *name, long v) { ep_part_hash_bytes(h, name, &v, sizeof v); }

void ep_part_hash_double(ep_part_hash *h, const char *name, double v)
{
    ep_part_hash_bytes(h, name, &v, sizeof v);
}

void ep_part_hash_string(ep_part_hash *h, const char *name, const char *s)
{
    ep_part_hash_bytes(h, name, s ? s : "", s ? strlen(s) : 0);
}

static void hash_material(ep_part_hash *h, const ep_material *mat)
{
    if (!mat) {
        ep_part_hash_string(h, "material", "none");
        return;
    }
    ep_part_hash_double(h, "E", mat->E);
    ep_part_hash_double(h, "nu", mat->nu);
    ep_part_hash_double(h, "rho", mat->rho);
    ep_part_hash_long(h, "material ne", mat->ne);
    if (mat->ne) {
        ep_part_hash_bytes(h, "e_E", mat->e_E, sizeof(double) * (size_t)mat->ne);
        ep_part_hash_bytes(h, "e_nu", mat->e_nu, sizeof(double) * (size_t)mat->ne);
        ep_part_hash_bytes(h, "e_rho", mat->e_rho, sizeof(double) * (size_t)mat->ne);
    }
}

void ep_part_hash_model(ep_part_hash *h, const ep_mesh *m, const ep_material *mat, const char *fixed)
{
    ep_part_hash_bytes(h, "vertices", m->vertices, sizeof(double) * 3 * (size_t)m->nv);
    ep_part_hash_bytes(h, "tets", m->tets, m->tets ? sizeof(int) * 4 * (size_t)m->ne : 0);
    ep_part_hash_bytes(h, "hexes", m->hexes, m->hexes ? sizeof(int) * 8 * (size_t)m->nh : 0);
    ep_part_hash_bytes(h, "triangles", m->triangles, sizeof(int) * 3 * (size_t)m->nf);
    hash_material(h, mat ? mat : m->material);
    if (fixed) {
        ep_part_hash_bytes(h, "fixed mask", fixed, (size_t)m->nv);
    } else {
        /* the same mask as a list would give: hash the list as a mask */
        char *mask = ep_calloc((size_t)m->nv + 1, 1);
        for (int i = 0; mask && i < m->nfixed; i++)
            mask[m->fixed[i]] = 1;
        ep_part_hash_bytes(h, "fixed mask", mask, mask ? (size_t)m->nv : 0);
        free(mask);
    }
}

void ep_part_hash_layout(ep_part_hash *h, const ep_gf_layout *L)
{
    ep_part_hash_string(h, "entity", L->entity);
    ep_part_hash_bytes(h, "row_vertex", L->row_vertex, sizeof(int) * (size_t)L->n);
    ep_part_hash_bytes(h, "row_fixed", L->row_fixed, (size_t)L->n);
    ep_part_hash_bytes(h, "col_vertex", L->col_vertex, sizeof(int) * (size_t)L->m);
}

void ep_part_hash_final(ep_part_hash *h, ep_part *p)
{
    uint8_t d[SHA256_DIGEST_SIZE];
    sha256_digest(&h->ctx, sizeof d, d);
    for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
        snprintf(p->hash + 2 * i, 3, "%02x", d[i]);
}

int ep_part_gf_share(ep_part *p, ep_gf_layout *sub, const char *creator, const ep_mesh *m, const ep_material *mat,
                     const char *fixed, const ep_gf_layout *L, const char *options, long grain)
{
    ep_part_share(p, L->m, grain, "columns");
    if (p->count) {
        ep_part_hash h;
        ep_part_hash_init(&h, creator);
        ep_part_hash_model(&h, m, mat, fixed);
        ep_part_hash_layout(&h, L);
        ep_part_hash_string(&h, "options", options);
        ep_part_hash_final(&h, p);
        snprintf(p->creator, sizeof p->creator, "%s", creator);
    }
    return ep_gf_layout_columns(sub, L, (int)p->lo, (int)p->hi);
}

int ep_part_write(ep_h5 *f, const ep_part *p)
{
    hid_t g = H5Gcreate2(f->id, "/part", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        return ep_fail(EP_EIO, "%s: cannot create /part", f->path);
    H5Gclose(g);
    int st;
    if ((st = ep_h5_set_attr_int(f, "/part", "index", p->index)) ||
        (st = ep_h5_set_attr_int(f, "/part", "count", p->count)) ||
        (st = ep_h5_set_attr_int(f, "/part", "lo", p->lo)) ||
        (st = ep_h5_set_attr_int(f, "/part", "hi", p->hi)) ||
        (st = ep_h5_set_attr_int(f, "/part", "total", p->total)) ||
        (st = ep_h5_set_attr_string(f, "/part", "unit", p->unit)) ||
        (st = ep_h5_set_attr_string(f, "/part", "hash", p->hash)))
        return st;
    return EP_OK;
}

int ep_part_read(ep_part *p, ep_h5 *f)
{
    double v[5];
    static const char *num[5] = {"index", "count", "lo", "hi", "total"};
    int st;
    memset(p, 0, sizeof *p);
    if (!ep_h5_exists(f, "/part"))
        return ep_fail(EP_EINPUT, "%s: no /part: not a part file (made without --part)", f->path);
    for (int i = 0; i < 5; i++)
        if ((st = ep_h5_get_attr_double(f, "/part", num[i], &v[i])))
            return st;
    if ((st = ep_h5_get_attr_string(f, "/part", "unit", p->unit, sizeof p->unit)) ||
        (st = ep_h5_get_attr_string(f, "/part", "hash", p->hash, sizeof p->hash)) ||
        (st = ep_h5_get_attr_string(f, "/", "creator", p->creator, sizeof p->creator)))
        return st;
    p->index = (int)v[0];
    p->count = (int)v[1];
    p->lo = (long)v[2];
    p->hi = (long)v[3];
    p->total = (long)v[4];
    if (p->count < 1 || p->index < 0 || p->index >= p->count || p->lo < 0 || p->lo > p->hi || p->hi > p->total)
        return ep_fail(EP_EINPUT, "%s: /part: part %d of %d holding %s %ld..%ld of %ld is inconsistent", f->path,
                       p->index, p->count, p->unit, p->lo, p->hi, p->total);
    return EP_OK;
}

int ep_part_check_set(const ep_part *parts, const char *const *paths, int n, int *order)
{
    const ep_part *a = &parts[0];
    int count = a->count;
    for (int i = 1; i < n; i++) {
        const ep_part *b = &parts[i];
        if (strcmp(b->creator, a->creator))
            return ep_fail(EP_EINPUT, "%s: made by %s, %s by %s", paths[i], b->creator, paths[0], a->creator);
        if (b->count != count)
            return ep_fail(EP_EINPUT, "%s: a part of %d, %s a part of %d", paths[i], b->count, paths[0], count);
        if (strcmp(b->hash, a->hash) || strcmp(b->unit, a->unit) || b->total != a->total)
            return ep_fail(EP_EINPUT, "%s: not a part of the run of %s (different mesh, material, options or "
                           "tool version)", paths[i], paths[0]);
    }
    int *who = ep_malloc((size_t)count, sizeof *who);
    if (!who)
        return EP_ECOMPUTE;
    for (int j = 0; j < count; j++)
        who[j] = -1;
    for (int i = 0; i < n; i++) {
        int j = parts[i].index;
        if (who[j] >= 0) {
            int st = ep_fail(EP_EINPUT, "%s and %s: both part %d of %d", paths[who[j]], paths[i], j, count);
            free(who);
            return st;
        }
        who[j] = i;
    }
    char msg[512] = "";
    int missing = 0;
    size_t len = 0;
    for (int j = 0; j < count; j++)
        if (who[j] < 0) {
            if (missing < 20 && len < sizeof msg - 16)
                len += (size_t)snprintf(msg + len, sizeof msg - len, "%s%d", missing ? ", " : "", j);
            else if (missing == 20)
                len += (size_t)snprintf(msg + len, sizeof msg - len, ", ...");
            missing++;
        }
    if (missing) {
        free(who);
        return ep_fail(EP_EINPUT, "part%s %s of %d missing (%d of %d given)", missing > 1 ? "s" : "", msg, count, n,
                       count);
    }
    /* every index once: the ranges must follow each other */
    long at = 0;
    for (int j = 0; j < count; j++) {
        const ep_part *p = &parts[who[j]];
        if (p->lo != at) {
            int st = ep_fail(EP_EINPUT, "%s: part %d holds %s %ld..%ld, expected from %ld", paths[who[j]], j,
                             p->unit, p->lo, p->hi, at);
            free(who);
            return st;
        }
        at = p->hi;
        order[j] = who[j];
    }
    free(who);
    if (at != a->total)
        return ep_fail(EP_EINPUT, "the parts hold %s 0..%ld of %ld", a->unit, at, a->total);
    return EP_OK;
}
