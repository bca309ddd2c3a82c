/*
 * cubature_file.c — files of kind "cubature" (cubature_file.h).
 */
#include "cubature_file.h"
#include "err.h"
#include "text.h"

#include <math.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ep_cubature_file_hash(const double *U, int r, int nv, char hex[65])
{
    struct sha256_ctx h;
    uint8_t d[SHA256_DIGEST_SIZE];
    sha256_init(&h);
    sha256_update(&h, sizeof(double) * (size_t)r * 3 * (size_t)nv, (const uint8_t *)U);
    sha256_digest(&h, sizeof d, d);
    for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

int ep_cubature_file_write(ep_h5 *f, const ep_cubature_file *c, int nv, int ne)
{
    const char *g = "/cubature";
    char hex[65];
    int st;
    double *cw = ep_calloc((size_t)ne + 1, sizeof *cw);
    if (!cw)
        return EP_ECOMPUTE;
    for (int k = 0; k < c->n; k++)
        cw[c->elem[k]] = c->w[k];
    hsize_t dn = (hsize_t)c->n, de = (hsize_t)ne, dq[2] = {(hsize_t)c->H, (hsize_t)c->r},
            du[2] = {(hsize_t)c->r, 3 * (hsize_t)nv};
    ep_cubature_file_hash(c->U, c->r, nv, hex);
    st = ep_h5_write(f, "/cubature/elements", EP_I32, 1, &dn, c->elem);
    st = st ? st : ep_h5_write(f, "/cubature/weights", EP_F64, 1, &dn, c->w);
    st = st ? st : ep_h5_write(f, "/cubature/cell_weight", EP_F64, 1, &de, cw);
    st = st ? st : ep_h5_write(f, "/cubature/heldout_q", EP_F64, 2, dq, c->heldout_q);
    st = st ? st : ep_h5_write(f, "/basis/U", EP_F64, 2, du, c->U);
    st = st ? st : ep_h5_set_attr_string(f, g, "law", ep_law_name(c->law));
    st = st ? st : ep_h5_set_attr_string(f, g, "method", c->method);
    st = st ? st : ep_h5_set_attr_string(f, g, "training", c->training);
    st = st ? st : ep_h5_set_attr_string(f, g, "basis_sha256", hex);
    st = st ? st : ep_h5_set_attr_int(f, g, "r", c->r);
    st = st ? st : ep_h5_set_attr_int(f, g, "poses", c->poses);
    st = st ? st : ep_h5_set_attr_int(f, g, "heldout", c->H);
    st = st ? st : ep_h5_set_attr_double(f, g, "tau", c->tau);
    st = st ? st : ep_h5_set_attr_double(f, g, "training_error", c->training_error);
    st = st ? st : ep_h5_set_attr_double(f, g, "heldout_error", c->heldout_error);
    st = st ? st : ep_h5_set_attr_double(f, g, "heldout_max", c->heldout_max);
    st = st ? st : ep_h5_set_attr_double(f, g, "seconds", c->seconds);
    free(cw);
    return st;
}

int ep_cubature_file_read(ep_cubature_file *c, ep_h5 *f, int nv, int ne)
{
    const char *g = "/cubature";
    char law[32], hex[65];
    hsize_t dn = 0, dw = 0, du[2] = {0, 3 * (hsize_t)nv}, dq[2] = {0, 0};
    void *p;
    double v;
    int st;
    memset(c, 0, sizeof *c);
    if ((st = ep_h5_read(f, "/cubature/elements", EP_I32, 1, &dn, &p)))
        return st;
    c->elem = p, c->n = (int)dn, dw = dn;
    if ((st = ep_h5_read(f, "/cubature/weights", EP_F64, 1, &dw, &p)))
        return st;
    c->w = p;
    for (int k = 0; k < c->n; k++) {
        if (c->elem[k] < 0 || c->elem[k] >= ne)
            return ep_fail(EP_EINPUT, "%s: /cubature/elements: entry %d is %d, not an element id in 0..%d", f->path,
                           k + 1, c->elem[k], ne - 1);
        if (!(c->w[k] >= 0))
            return ep_fail(EP_EINPUT, "%s: /cubature/weights: entry %d is %g, not >= 0", f->path, k + 1, c->w[k]);
    }
    if ((st = ep_h5_read(f, "/basis/U", EP_F64, 2, du, &p)))
        return st;
    c->U = p, c->r = (int)du[0];
    if (c->r < 1)
        return ep_fail(EP_EINPUT, "%s: the basis /basis/U is empty", f->path);
    dq[1] = (hsize_t)c->r;
    if ((st = ep_h5_read(f, "/cubature/heldout_q", EP_F64, 2, dq, &p)))
        return st;
    c->heldout_q = p, c->H = (int)dq[0];
    if ((st = ep_h5_get_attr_string(f, g, "law", law, sizeof law)) ||
        (st = ep_h5_get_attr_string(f, g, "method", c->method, sizeof c->method)) ||
        (st = ep_h5_get_attr_string(f, g, "training", c->training, sizeof c->training)) ||
        (st = ep_h5_get_attr_string(f, g, "basis_sha256", c->sha256, sizeof c->sha256)) ||
        (st = ep_h5_get_attr_double(f, g, "tau", &c->tau)) ||
        (st = ep_h5_get_attr_double(f, g, "training_error", &c->training_error)) ||
        (st = ep_h5_get_attr_double(f, g, "heldout_error", &c->heldout_error)) ||
        (st = ep_h5_get_attr_double(f, g, "heldout_max", &c->heldout_max)) ||
        (st = ep_h5_get_attr_double(f, g, "seconds", &c->seconds)) ||
        (st = ep_h5_get_attr_double(f, g, "poses", &v)))
        return st;
    c->poses = (int)v;
    if (ep_law_from_name(law, &c->law))
        return ep_fail(EP_EINPUT, "%s: /cubature: law \"%s\" is not one of %s", f->path, law, EP_LAW_CHOICES);
    ep_cubature_file_hash(c->U, c->r, nv, hex);
    if (strcmp(hex, c->sha256))
        return ep_fail(EP_EINPUT, "%s: /basis/U is not the basis the cubature was fitted to (basis_sha256 differs)",
                       f->path);
    return EP_OK;
}

void ep_cubature_file_free(ep_cubature_file *c)
{
    free(c->elem), free(c->w), free(c->U), free(c->heldout_q);
    memset(c, 0, sizeof *c);
}

int ep_cubature_file_poses(const char *path, int r, double **Q, int *T)
{
    ep_text t;
    int st, n = 0;
    size_t cap = 0;
    double *q = NULL;
    *Q = NULL, *T = 0;
    if ((st = ep_text_open(&t, path, '#')))
        return st;
    while (!(st = ep_text_next(&t)) && !t.eof) {
        if ((st = ep_grow_to(&q, &cap, (size_t)(n + 1) * r, sizeof *q)))
            break;
        int k = 0;
        while (!st && ep_text_more(&t) && k < r)
            st = ep_text_double(&t, &q[(size_t)n * r + k++]);
        if (!st && (k < r || ep_text_more(&t)))
            st = ep_text_fail(&t, EP_EINPUT, "a pose of %s numbers, the basis has r = %d", k < r ? "fewer" : "more",
                              r);
        if (st)
            break;
        n++;
    }
    ep_text_close(&t);
    if (!st && !n)
        st = ep_fail(EP_EINPUT, "%s: no poses", path);
    if (st) {
        free(q);
        return st;
    }
    *Q = q, *T = n;
    return EP_OK;
}
