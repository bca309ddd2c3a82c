/*
 * vega.c — Vega FEM's .U and .cub files (vega.h).
 */
#include "vega.h"
#include "err.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- little-endian scalars ------------------------------------------------------ */

static int host_is_little(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 1;
}

/* Write n items of size bytes from p in little-endian order. */
static void put(FILE *f, const void *p, size_t size, size_t n)
{
    if (host_is_little()) {
        fwrite(p, size, n, f);
        return;
    }
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        for (size_t k = size; k-- > 0;)
            fputc(b[i * size + k], f);
}

/* Read n items of size bytes into p from little-endian order; 0 or -1 at a
 * short read. */
static int get(FILE *f, void *p, size_t size, size_t n)
{
    if (fread(p, size, n, f) != n)
        return -1;
    if (!host_is_little()) {
        unsigned char *b = p;
        for (size_t i = 0; i < n; i++)
            for (size_t k = 0; k < size / 2; k++) {
                unsigned char t = b[i * size + k];
                b[i * size + k] = b[i * size + size - 1 - k];
                b[i * size + size - 1 - k] = t;
            }
    }
    return 0;
}

static void put_int(FILE *f, long v)
{
    int32_t x = (int32_t)v;
    put(f, &x, 4, 1);
}

/* Open path for reading and find its size. */
static int open_sized(const char *path, FILE **f, long long *bytes)
{
    struct stat sb;
    if (!(*f = fopen(path, "rb")))
        return ep_fail(EP_EIO, "%s: cannot open: %s", path, strerror(errno));
    if (fstat(fileno(*f), &sb) != 0 || !S_ISREG(sb.st_mode)) {
        fclose(*f);
        *f = NULL;
        return ep_fail(EP_EIO, "%s: not a regular file", path);
    }
    *bytes = (long long)sb.st_size;
    return EP_OK;
}

/* Read n doubles into a new array, checked finite. */
static int get_doubles(FILE *f, const char *path, const char *what, size_t n, double **out)
{
    double *v = ep_malloc(n ? n : 1, sizeof *v);
    *out = NULL;
    if (!v)
        return EP_ECOMPUTE;
    if (get(f, v, 8, n)) {
        free(v);
        return ep_fail(EP_EIO, "%s: cannot read the %s", path, what);
    }
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i])) {
            free(v);
            return ep_fail(EP_EINPUT, "%s: %s value %zu is not finite", path, what, i + 1);
        }
    *out = v;
    return EP_OK;
}

/* ---- .U: Vega's ModalMatrix ----------------------------------------------------------- */

void ep_vega_write_basis(FILE *f, const double *U, int r, long len)
{
    put_int(f, len);
    put_int(f, r);
    put(f, U, 8, (size_t)r * (size_t)len); /* row i of [r][len] = column i, column-major */
}

int ep_vega_read_basis(const char *path, double **U, int *r, long *len)
{
    FILE *f;
    long long bytes;
    int32_t h[2];
    int st;
    *U = NULL;
    *r = 0;
    *len = 0;
    if ((st = open_sized(path, &f, &bytes)))
        return st;
    if (get(f, h, 4, 2)) {
        fclose(f);
        return ep_fail(EP_EINPUT, "%s: shorter than the 8-byte header of a Vega .U matrix", path);
    }
    if (h[0] <= 0 || h[1] <= 0 || h[0] % 3) {
        fclose(f);
        return ep_fail(EP_EINPUT, "%s: header %d x %d is not a Vega basis (3nv rows, r > 0 columns)", path, h[0], h[1]);
    }
    long long want = 8 + 8LL * h[0] * h[1];
    if (bytes != want) {
        fclose(f);
        return ep_fail(EP_EINPUT, "%s: %lld bytes, a %d x %d Vega matrix has %lld", path, bytes, h[0], h[1], want);
    }
    st = get_doubles(f, path, "basis", (size_t)h[0] * (size_t)h[1], U);
    fclose(f);
    if (!st) {
        *r = h[1];
        *len = h[0];
    }
    return st;
}

/* ---- .cub: Vega's StVKReducedInternalForces ----------------------------------------- */

/* dst[r][rows] = src[rows][r]^T */
static void transpose(double *dst, const double *src, long rows, int r)
{
    for (long t = 0; t < rows; t++)
        for (int o = 0; o < r; o++)
            dst[(size_t)o * (size_t)rows + (size_t)t] = src[(size_t)t * (size_t)r + (size_t)o];
}

int ep_vega_write_cubic(FILE *f, const ep_cubic *c)
{
    int r = c->r;
    long sizes[3] = {r, ep_cubic_npairs(r), ep_cubic_ntriples(r)};
    const double *src[3] = {c->P, c->Q, c->S};
    double *t = ep_malloc((size_t)r * (size_t)sizes[2], sizeof *t);
    if (!t)
        return EP_ECOMPUTE;
    put_int(f, r);
    for (int k = 0; k < 3; k++)
        put_int(f, sizes[k]);
    for (int k = 0; k < 3; k++) {
        transpose(t, src[k], sizes[k], r);
        put(f, t, 8, (size_t)r * (size_t)sizes[k]);
    }
    free(t);
    return EP_OK;
}

int ep_vega_read_cubic(const char *path, ep_cubic *c)
{
    FILE *f;
    long long bytes;
    int32_t h[4];
    int st;
    memset(c, 0, sizeof *c);
    if ((st = open_sized(path, &f, &bytes)))
        return st;
    if (get(f, h, 4, 4)) {
        fclose(f);
        return ep_fail(EP_EINPUT, "%s: shorter than the 16-byte header of a Vega .cub file", path);
    }
    int r = h[0];
    if (r <= 0 || r > 10000 || h[1] != r || h[2] != ep_cubic_npairs(r) || h[3] != ep_cubic_ntriples(r)) {
        fclose(f);
        return ep_fail(EP_EINPUT, "%s: header %d %d %d %d is not r, r, r(r+1)/2, r(r+1)(r+2)/6 of one r > 0", path,
                       h[0], h[1], h[2], h[3]);
    }
    long long want = 16 + 8LL * r * ((long long)h[1] + h[2] + h[3]);
    if (bytes != want) {
        fclose(f);
        return ep_fail(EP_EINPUT, "%s: %lld bytes, the polynomials of r = %d have %lld", path, bytes, r, want);
    }
    if ((st = ep_cubic_alloc(c, r))) {
        fclose(f);
        return st;
    }
    double *dst[3] = {c->P, c->Q, c->S};
    const char *what[3] = {"linear coefficient", "quadratic coefficient", "cubic coefficient"};
    for (int k = 0; k < 3 && !st; k++) {
        double *v;
        if (!(st = get_doubles(f, path, what[k], (size_t)r * (size_t)h[1 + k], &v))) {
            transpose(dst[k], v, r, h[1 + k]); /* [r][size] back to [size][r] */
            free(v);
        }
    }
    fclose(f);
    return st;
}
