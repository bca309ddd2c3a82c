/*
 * embed.c — render vertices bound to simulation elements (embed.h).
 */
#include "embed.h"
#include "closest.h"
#include "err.h"
#include "hex.h"
#include "mesh.h"
#include "tet.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Buckets over the simulation mesh: element lists in CSR form. */
typedef struct {
    double lo[3], cs; /* lower corner, bucket edge */
    int n[3];
    int *ptr, *elem;  /* ptr[nbuckets + 1], elem[ptr[nbuckets]] */
    double *box;      /* [ne][6] each element's bounding box: lo, hi */
} buckets;

typedef struct {
    const double *x;
    const int *elem;
    int k;
} simmesh;

static void corners(const simmesh *s, int e, double c[8][3])
{
    for (int a = 0; a < s->k; a++)
        memcpy(c[a], &s->x[3 * (size_t)s->elem[(size_t)s->k * e + a]], sizeof c[a]);
}

static void bounds(const simmesh *s, int e, double lo[3], double hi[3])
{
    double c[8][3];
    corners(s, e, c);
    for (int i = 0; i < 3; i++) {
        lo[i] = hi[i] = c[0][i];
        for (int a = 1; a < s->k; a++) {
            lo[i] = fmin(lo[i], c[a][i]);
            hi[i] = fmax(hi[i], c[a][i]);
        }
    }
}

static int bucket_coord(const buckets *B, int i, double v)
{
    double f = floor((v - B->lo[i]) / B->cs);
    return f < 0 ? 0 : f >= B->n[i] ? B->n[i] - 1 : (int)f;
}

static int buckets_build(buckets *B, const simmesh *s, int nv, int ne)
{
    double hi[3];
    memset(B, 0, sizeof *B);
    for (int i = 0; i < 3; i++) {
        B->lo[i] = INFINITY;
        hi[i] = -INFINITY;
    }
    for (int v = 0; v < nv; v++)
        for (int i = 0; i < 3; i++) {
            B->lo[i] = fmin(B->lo[i], s->x[3 * (size_t)v + i]);
            hi[i] = fmax(hi[i], s->x[3 * (size_t)v + i]);
        }
    double ext = fmax(hi[0] - B->lo[0], fmax(hi[1] - B->lo[1], hi[2] - B->lo[2])), mean = 0;
    if (!(B->box = ep_malloc((size_t)ne, 6 * sizeof *B->box)))
        return EP_ECOMPUTE;
    double vol = fmax(hi[0] - B->lo[0], 1e-3 * ext) * fmax(hi[1] - B->lo[1], 1e-3 * ext) *
                 fmax(hi[2] - B->lo[2], 1e-3 * ext);
    for (int e = 0; e < ne; e++) {
        double *lo = &B->box[6 * (size_t)e], *up = lo + 3;
        bounds(s, e, lo, up);
        mean += fmax(up[0] - lo[0], fmax(up[1] - lo[1], up[2] - lo[2])) / ne;
    }
    /* buckets the size of an element's box, so an element meets at most
     * eight and a bucket lists a few, however much of the bounding box the
     * model leaves empty; at most 8 ne buckets, about 1000 a side */
    B->cs = fmax(mean, fmax(cbrt(vol / (8.0 * ne)), ext / 1000));
    for (int i = 0; i < 3; i++) /* covering every vertex: bucket boxes bound distances */
        B->n[i] = 1 + (int)((hi[i] - B->lo[i]) / B->cs);
    size_t nb = (size_t)B->n[0] * B->n[1] * B->n[2];
    B->ptr = ep_calloc(nb + 1, sizeof *B->ptr);
    if (!B->ptr)
        return EP_ECOMPUTE;
    for (int pass = 0; pass < 2; pass++) {
        for (int e = 0; e < ne; e++) {
            const double *lo = &B->box[6 * (size_t)e], *up = lo + 3;
            int a[3], b[3];
            for (int i = 0; i < 3; i++) {
                a[i] = bucket_coord(B, i, lo[i]);
                b[i] = bucket_coord(B, i, up[i]);
            }
            for (int z = a[2]; z <= b[2]; z++)
                for (int y = a[1]; y <= b[1]; y++)
                    for (int xx = a[0]; xx <= b[0]; xx++) {
                        size_t c = xx + (size_t)B->n[0] * (y + (size_t)B->n[1] * z);
                        if (pass == 0)
                            B->ptr[c + 1]++;
                        else
                            B->elem[B->ptr[c]++] = e;
                    }
        }
        if (pass == 0) {
            for (size_t c = 0; c < nb; c++) {
                if (B->ptr[c + 1] > INT_MAX - B->ptr[c])
                    return ep_fail(EP_ECOMPUTE, "too many bucket entries");
                B->ptr[c + 1] += B->ptr[c];
            }
            B->elem = ep_malloc((size_t)B->ptr[nb] + 1, sizeof *B->elem);
            if (!B->elem)
                return EP_ECOMPUTE;
        } else { /* the fill advanced each start to the next bucket's */
            memmove(B->ptr + 1, B->ptr, nb * sizeof *B->ptr);
            B->ptr[0] = 0;
        }
    }
    return EP_OK;
}

static void buckets_free(buckets *B)
{
    free(B->ptr);
    free(B->elem);
    free(B->box);
}

/* Weights of p in element e (barycentric or trilinear, extrapolated outside)
 * and how far inside it is: min barycentric coordinate, or 1 - max |xi|
 * (negative outside).  Returns 0, or 1 when no coordinates exist. */
static int coordinates(const simmesh *s, int e, const double p[3], double w[8], double *inside)
{
    double c[8][3];
    corners(s, e, c);
    if (s->k == 4) {
        double vol, g[4][3], d[3] = {p[0] - c[0][0], p[1] - c[0][1], p[2] - c[0][2]};
        ep_tet_gradients(c, &vol, g);
        if (!(vol > 0))
            return 1;
        w[0] = 1;
        for (int a = 1; a < 4; a++) { /* lambda_a = g_a . (p - x_0), lambda_0 = 1 - the rest */
            w[a] = g[a][0] * d[0] + g[a][1] * d[1] + g[a][2] * d[2];
            w[0] -= w[a];
        }
        *inside = fmin(fmin(w[0], w[1]), fmin(w[2], w[3]));
        return 0;
    }
    double xi[3];
    if (ep_hex_local(c, p, xi))
        return 1;
    ep_hex_shape(xi, w, NULL);
    *inside = 1 - fmax(fabs(xi[0]), fmax(fabs(xi[1]), fabs(xi[2])));
    return 0;
}

int ep_embed_depth(const double *x, const int *elem, int k, int e, const double p[3], double *inside)
{
    simmesh s = {x, elem, k};
    double w[8];
    return coordinates(&s, e, p, w, inside) ? EP_ECOMPUTE : 0;
}

/* Distance from p to element e (0 inside). */
static double distance(const simmesh *s, int e, const double p[3])
{
    double c[8][3], h[3], best = INFINITY, q[3];
    corners(s, e, c);
    if (s->k == 8 && ep_hex_is_box(c, 1e-12, h)) {
        double d2 = 0;
        for (int i = 0; i < 3; i++) {
            double t = fmin(fmax(p[i], c[0][i]), c[6][i]) - p[i];
            d2 += t * t;
        }
        return sqrt(d2);
    }
    /* the faces as triangles (a hex's bilinear faces split along a diagonal) */
    static const int tet_face[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
    int nt = s->k == 4 ? 4 : 12;
    for (int t = 0; t < nt; t++) {
        int a, b, d;
        if (s->k == 4)
            a = tet_face[t][0], b = tet_face[t][1], d = tet_face[t][2];
        else {
            const int *f = ep_hex_face[t / 2];
            a = f[0], b = f[1 + t % 2], d = f[2 + t % 2];
        }
        ep_closest_on_triangle(p, c[a], c[b], c[d], q);
        best = fmin(best, (q[0] - p[0]) * (q[0] - p[0]) + (q[1] - p[1]) * (q[1] - p[1]) + (q[2] - p[2]) * (q[2] - p[2]));
    }
    return sqrt(best);
}

/* Squared distance from p to bucket xyz: a lower bound for its elements'
 * parts inside it (an element is listed in every bucket its box meets, so
 * its closest point to p lies in a listed bucket). */
static double box_distance2(const buckets *B, const int xyz[3], const double p[3])
{
    double d2 = 0;
    for (int i = 0; i < 3; i++) {
        double lo = B->lo[i] + xyz[i] * B->cs, hi = lo + B->cs;
        double o = p[i] < lo ? lo - p[i] : p[i] > hi ? p[i] - hi : 0;
        d2 += o * o;
    }
    return d2;
}

/* Bind one point: element, weights, distance; 1 when nothing is within limit. */
static int bind(const buckets *B, const simmesh *s, const double p[3], double limit, int *elem, double w[8],
                double *dist)
{
    int cb[3], best = -1;
    double score = -INFINITY, wt[8], in;
    for (int i = 0; i < 3; i++)
        cb[i] = bucket_coord(B, i, p[i]);
    size_t c = cb[0] + (size_t)B->n[0] * (cb[1] + (size_t)B->n[1] * cb[2]);
    for (int t = B->ptr[c]; t < B->ptr[c + 1] && score <= 1e-12; t++) {
        int e = B->elem[t];
        const double *bx = &B->box[6 * (size_t)e];
        double tol = 1e-9 * (bx[3] - bx[0] + bx[4] - bx[1] + bx[5] - bx[2]);
        if (p[0] < bx[0] - tol || p[1] < bx[1] - tol || p[2] < bx[2] - tol || p[0] > bx[3] + tol ||
            p[1] > bx[4] + tol || p[2] > bx[5] + tol)
            continue; /* outside its box, so outside it: not the containing element */
        if (!coordinates(s, e, p, wt, &in) && in > score) {
            score = in;
            best = e;
            memcpy(w, wt, sizeof wt);
        }
    }
    if (best >= 0 && score >= -1e-12) {
        *elem = best;
        *dist = 0;
        return 0;
    }
    /* farther than limit from the buckets' box, so from every element: no
     * search (a far vertex walked every ring of the grid, O(buckets) each;
     * issue 37, class 6) */
    double out2 = 0;
    for (int i = 0; i < 3; i++) {
        double a = B->lo[i], b = B->lo[i] + B->n[i] * B->cs, o = p[i] < a ? a - p[i] : p[i] > b ? p[i] - b : 0;
        out2 += o * o;
    }
    if (!(out2 <= limit * limit))
        return 1;
    /* outside: rings of buckets around p's (clamped) bucket until the ring
     * is farther than the best element found, or than limit; each element is listed where
     * its closest point lies, and buckets beyond ring r are at least
     * r * cs away from the clamped point, itself no farther than p */
    double bd = INFINITY;
    best = -1;
    int rmax = B->n[0] > B->n[1] ? B->n[0] : B->n[1];
    rmax = rmax > B->n[2] ? rmax : B->n[2];
    for (int r = 0; r <= rmax && !(bd <= (r - 1) * B->cs) && !((r - 1) * B->cs > limit); r++)
        for (int z = cb[2] - r; z <= cb[2] + r; z++)
            for (int y = cb[1] - r; y <= cb[1] + r; y++) {
                if (z < 0 || y < 0 || z >= B->n[2] || y >= B->n[1])
                    continue;
                /* the ring's shell only: whole rows on its faces, else its two ends */
                int face = abs(z - cb[2]) == r || abs(y - cb[1]) == r, step = face || r == 0 ? 1 : 2 * r;
                for (int x = cb[0] - r; x <= cb[0] + r; x += step) {
                    if (x < 0 || x >= B->n[0])
                        continue;
                    const int xyz[3] = {x, y, z};
                    if (box_distance2(B, xyz, p) > bd * bd)
                        continue;
                    size_t cc = x + (size_t)B->n[0] * (y + (size_t)B->n[1] * z);
                    for (int t = B->ptr[cc]; t < B->ptr[cc + 1]; t++) {
                        double d = distance(s, B->elem[t], p);
                        if (d < bd || (d == bd && B->elem[t] < best)) {
                            bd = d;
                            best = B->elem[t];
                        }
                    }
                }
            }
    if (best < 0 || !(bd <= limit) || coordinates(s, best, p, w, &in))
        return 1;
    *elem = best;
    *dist = bd;
    return 0;
}

int ep_embed_build(ep_embed *b, const double *x, int nv, const int *elem, int ne, int k, const double *p, int np,
                   double limit)
{
    buckets B = {0}; /* zeroed: freed also when the allocations before its build fail */
    simmesh s = {x, elem, k};
    memset(b, 0, sizeof *b);
    b->nr = np;
    b->k = k;
    if (ne < 1)
        return ep_fail(EP_EINPUT, "the simulation mesh has no elements");
    b->element = ep_malloc((size_t)np + 1, sizeof *b->element);
    b->col = ep_malloc((size_t)np * k + 1, sizeof *b->col);
    b->w = ep_malloc((size_t)np * k + 1, sizeof *b->w);
    b->dist = ep_malloc((size_t)np + 1, sizeof *b->dist);
    int st = b->element && b->col && b->w && b->dist ? buckets_build(&B, &s, nv, ne) : EP_ECOMPUTE;
    if (st) {
        buckets_free(&B);
        ep_embed_free(b);
        return st;
    }
    int bad = INT_MAX, nout = 0;
    double dmax = 0;
#pragma omp parallel for schedule(dynamic, 256) reduction(min : bad) reduction(+ : nout) reduction(max : dmax)
    for (int i = 0; i < np; i++) {
        double w[8];
        if (bind(&B, &s, &p[3 * (size_t)i], limit, &b->element[i], w, &b->dist[i])) {
            bad = i < bad ? i : bad;
            continue;
        }
        for (int a = 0; a < k; a++) {
            b->col[(size_t)k * i + a] = elem[(size_t)k * b->element[i] + a];
            b->w[(size_t)k * i + a] = w[a];
        }
        nout += b->dist[i] > 0;
        dmax = fmax(dmax, b->dist[i]);
    }
    buckets_free(&B);
    if (bad < INT_MAX) {
        const double *q = &p[3 * (size_t)bad];
        ep_fail(EP_EINPUT, "render vertex %d (%g, %g, %g) is farther than %g from every element",
                bad + 1, q[0], q[1], q[2], limit);
        ep_embed_free(b);
        return EP_EINPUT;
    }
    b->noutside = nout;
    b->maxdist = dmax;
    return EP_OK;
}

double ep_embed_extrapolation(const ep_embed *b, double bound, int *count, int *vertex)
{
    double big = 0;
    *count = 0;
    *vertex = 0;
    for (int i = 0; i < b->nr; i++) {
        int out = 0;
        for (int a = 0; a < b->k; a++) {
            double w = b->w[(size_t)b->k * i + a];
            out |= w < -bound || w > 1 + bound;
            if (fabs(w) > fabs(big)) {
                big = w;
                *vertex = i;
            }
        }
        *count += out;
    }
    return big;
}

void ep_embed_free(ep_embed *b)
{
    free(b->element);
    free(b->col);
    free(b->w);
    free(b->dist);
    memset(b, 0, sizeof *b);
}

void ep_embed_apply(const ep_embed *b, const double *U, int nv, int r, double *Ubar)
{
    size_t n3 = 3 * (size_t)nv, m3 = 3 * (size_t)b->nr;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < b->nr; i++)
        for (int j = 0; j < r; j++) {
            const double *u = U + (size_t)j * n3;
            double s[3] = {0, 0, 0};
            for (int a = 0; a < b->k; a++) {
                const double *ua = u + 3 * (size_t)b->col[(size_t)b->k * i + a];
                double w = b->w[(size_t)b->k * i + a];
                s[0] += w * ua[0];
                s[1] += w * ua[1];
                s[2] += w * ua[2];
            }
            memcpy(Ubar + (size_t)j * m3 + 3 * (size_t)i, s, sizeof s);
        }
}

double ep_embed_affine_error(const ep_embed *b, const double *x, const double *p, unsigned seed)
{
    double A[3][3], c[3], lo = INFINITY, hi = -INFINITY, err = 0;
    for (int i = 0; i < 12; i++) { /* a small LCG: reproducible, no global state */
        seed = seed * 1103515245u + 12345u;
        double v = (double)((seed >> 8) & 0xffff) / 0x10000 - 0.5;
        if (i < 9)
            A[i / 3][i % 3] = v;
        else
            c[i - 9] = v;
    }
    for (int i = 0; i < b->nr; i++) {
        const double *q = &p[3 * (size_t)i];
        for (int d = 0; d < 3; d++) {
            double f = A[d][0] * q[0] + A[d][1] * q[1] + A[d][2] * q[2] + c[d], g = 0;
            for (int a = 0; a < b->k; a++) {
                const double *xa = &x[3 * (size_t)b->col[(size_t)b->k * i + a]];
                g += b->w[(size_t)b->k * i + a] * (A[d][0] * xa[0] + A[d][1] * xa[1] + A[d][2] * xa[2] + c[d]);
            }
            err = fmax(err, fabs(g - f));
            lo = fmin(lo, f);
            hi = fmax(hi, f);
        }
    }
    return hi > lo ? err / (hi - lo) : err;
}
