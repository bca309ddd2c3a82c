/*
 * distfield_file.c — files of kind "distfield" and Vega's .dist
 * (distfield_file.h).
 */
#include "distfield_file.h"
#include "err.h"
#include "mem.h"

#include <math.h>
#include <nettle/sha2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void hash_field(struct sha256_ctx *c, const char *name, const void *data, size_t n)
{
    uint64_t len = n;
    sha256_update(c, strlen(name) + 1, (const uint8_t *)name);
    sha256_update(c, sizeof len, (const uint8_t *)&len);
    if (n)
        sha256_update(c, n, data);
}

void ep_distfield_file_hash(const ep_mesh *m, char hash[EP_DISTFIELD_FILE_HASH])
{
    struct sha256_ctx c;
    uint8_t d[SHA256_DIGEST_SIZE];
    sha256_init(&c);
    hash_field(&c, "vertices", m->vertices, 3 * sizeof(double) * (size_t)m->nv);
    hash_field(&c, "triangles", m->triangles, 3 * sizeof(int) * (size_t)m->nf);
    sha256_digest(&c, sizeof d, d);
    for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
        snprintf(hash + 2 * i, 3, "%02x", d[i]);
}

int ep_distfield_file_write(ep_h5 *f, const ep_distfield *g, const char *hash)
{
    hsize_t m = (hsize_t)g->n + 1, dv[3] = {m, m, m}, d3 = 3;
    int st;
    if (!(st = ep_h5_write(f, "/distfield/values", EP_F32, 3, dv, g->value)) &&
        !(st = ep_h5_write(f, "/distfield/origin", EP_F64, 1, &d3, g->origin)) &&
        !(st = ep_h5_set_attr_int(f, "/distfield", "resolution", g->n)) &&
        !(st = ep_h5_set_attr_double(f, "/distfield", "spacing", g->h)) &&
        !(st = ep_h5_set_attr_double(f, "/distfield", "d_boundary", g->d_boundary)) &&
        !(st = ep_h5_set_attr_double(f, "/distfield", "offset", g->offset)) &&
        !(st = ep_h5_set_attr_double(f, "/distfield", "band", g->band)) &&
        !(st = ep_h5_set_attr_double(f, "/distfield", "band_error", ep_distfield_band_error(g))) &&
        !(st = ep_h5_set_attr_string(f, "/distfield", "sign", ep_distfield_sign_name[g->sign])))
        st = ep_h5_set_attr_string(f, "/distfield", "source_hash", hash);
    return st;
}

int ep_distfield_file_read(ep_distfield *g, ep_h5 *f, char hash[EP_DISTFIELD_FILE_HASH])
{
    double n = 0, v;
    char sign[32] = "";
    hsize_t d3 = 3;
    void *p = NULL;
    int st;
    memset(g, 0, sizeof *g);
    if (ep_h5_get_attr_double(f, "/distfield", "resolution", &n) || !(n >= 1 && n <= EP_DISTFIELD_MAX_RES) ||
        n != floor(n))
        return ep_fail(EP_EINPUT, "%s: /distfield: attribute resolution must be an integer 1 to %d", f->path,
                       EP_DISTFIELD_MAX_RES);
    g->n = (int)n;
    if (ep_h5_get_attr_double(f, "/distfield", "spacing", &g->h) || !(g->h > 0) || !isfinite(g->h))
        return ep_fail(EP_EINPUT, "%s: /distfield: attribute spacing must be finite and > 0", f->path);
    if (ep_h5_get_attr_double(f, "/distfield", "d_boundary", &g->d_boundary) || !isfinite(g->d_boundary))
        return ep_fail(EP_EINPUT, "%s: /distfield: attribute d_boundary must be finite", f->path);
    if (ep_h5_attr_exists(f, "/distfield", "offset") && !ep_h5_get_attr_double(f, "/distfield", "offset", &v))
        g->offset = v;
    if (ep_h5_attr_exists(f, "/distfield", "band") && !ep_h5_get_attr_double(f, "/distfield", "band", &v))
        g->band = v;
    if ((st = ep_h5_get_attr_string(f, "/distfield", "sign", sign, sizeof sign)))
        return st;
    g->sign = -1;
    for (int s = 0; s < 3; s++)
        if (!strcmp(sign, ep_distfield_sign_name[s]))
            g->sign = s;
    if (g->sign < 0)
        return ep_fail(EP_EINPUT, "%s: /distfield: attribute sign \"%s\" is not pseudonormal, winding or unsigned",
                       f->path, sign);
    if (hash && (st = ep_h5_get_attr_string(f, "/distfield", "source_hash", hash, EP_DISTFIELD_FILE_HASH)))
        return st;
    if ((st = ep_h5_read(f, "/distfield/origin", EP_F64, 1, &d3, &p)))
        return st;
    memcpy(g->origin, p, sizeof g->origin);
    free(p);
    hsize_t m = (hsize_t)g->n + 1, dv[3] = {m, m, m};
    if ((st = ep_h5_read(f, "/distfield/values", EP_F32, 3, dv, &p)))
        return st;
    g->value = p;
    return EP_OK;
}

/* Little-endian bytes of an int32 and a float64 (IEEE, the host's format). */
static void put_i32(FILE *fp, int32_t v)
{
    uint8_t b[4];
    for (int i = 0; i < 4; i++)
        b[i] = (uint8_t)((uint32_t)v >> (8 * i));
    fwrite(b, 1, 4, fp);
}

static void put_f64(FILE *fp, double v)
{
    uint64_t u;
    uint8_t b[8];
    memcpy(&u, &v, 8);
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(u >> (8 * i));
    fwrite(b, 1, 8, fp);
}

void ep_distfield_file_write_vega(FILE *fp, const ep_distfield *g)
{
    put_i32(fp, -g->n); /* Vega: a negative x resolution marks float data */
    put_i32(fp, g->n);
    put_i32(fp, g->n);
    for (int k = 0; k < 3; k++)
        put_f64(fp, g->origin[k]);
    for (int k = 0; k < 3; k++)
        put_f64(fp, g->origin[k] + g->n * g->h);
    long np = ep_distfield_points(g->n);
    uint8_t buf[4096];
    for (long i = 0; i < np;) {
        int k = 0;
        for (; k < 1024 && i < np; k++, i++) {
            uint32_t u;
            memcpy(&u, &g->value[i], 4);
            for (int b = 0; b < 4; b++)
                buf[4 * k + b] = (uint8_t)(u >> (8 * b));
        }
        fwrite(buf, 4, (size_t)k, fp);
    }
}

static uint32_t get_u32(const uint8_t *b) { return b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24; }

int ep_distfield_file_read_vega(ep_distfield *g, const char *path)
{
    uint8_t head[60];
    memset(g, 0, sizeof *g);
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return ep_fail(EP_EIO, "%s: cannot open", path);
    int st = EP_OK;
    if (fread(head, 1, sizeof head, fp) != sizeof head) {
        st = ep_fail(EP_EINPUT, "%s: shorter than the 60-byte header of a .dist", path);
        goto out;
    }
    int32_t r[3];
    double box[6];
    for (int i = 0; i < 3; i++)
        r[i] = (int32_t)get_u32(head + 4 * i);
    for (int i = 0; i < 6; i++) {
        uint64_t u = get_u32(head + 12 + 8 * i) | (uint64_t)get_u32(head + 16 + 8 * i) << 32;
        memcpy(&box[i], &u, 8);
    }
    if (r[0] >= 0 || -(int64_t)r[0] != r[1] || r[1] != r[2] || r[1] < 1 || r[1] > EP_DISTFIELD_MAX_RES) {
        st = ep_fail(EP_EINPUT, "%s: resolution %d %d %d: expected -N N N (a cube of float data)", path, r[0], r[1],
                     r[2]);
        goto out;
    }
    g->n = r[1];
    for (int k = 0; k < 3; k++)
        g->origin[k] = box[k];
    g->h = (box[3] - box[0]) / g->n;
    if (!(g->h > 0) || !isfinite(g->h) || !isfinite(box[1] + box[2])) {
        st = ep_fail(EP_EINPUT, "%s: the box is empty or not finite", path);
        goto out;
    }
    long np = ep_distfield_points(g->n);
    if (!(g->value = ep_malloc((size_t)np, sizeof *g->value))) {
        st = EP_ECOMPUTE;
        goto out;
    }
    uint8_t buf[4096];
    for (long i = 0; i < np;) {
        size_t want = (size_t)(np - i < 1024 ? np - i : 1024);
        if (fread(buf, 4, want, fp) != want) {
            st = ep_fail(EP_EINPUT, "%s: %ld values, expected %ld", path, i, np);
            goto out;
        }
        for (size_t k = 0; k < want; k++, i++) {
            uint32_t u = get_u32(buf + 4 * k);
            memcpy(&g->value[i], &u, 4);
        }
    }
    if (fgetc(fp) != EOF)
        st = ep_fail(EP_EINPUT, "%s: bytes after the %ld values", path, np);
out:
    fclose(fp);
    return st;
}
