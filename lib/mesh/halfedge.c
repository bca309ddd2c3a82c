/*
 * halfedge.c — the edge table of a triangle list (halfedge.h).
 */
#include "halfedge.h"
#include "err.h"
#include "mem.h"

#include <stdlib.h>

/* By ends, then triangle and side: a total order, so the table is the same
 * whatever qsort does with ties. */
static int order(int x, int y) { return (x > y) - (x < y); }

static int cmp_halfedge(const void *x, const void *y)
{
    const ep_halfedge *a = x, *b = y;
    int c = order(a->lo, b->lo);
    c = c ? c : order(a->hi, b->hi);
    c = c ? c : order(a->t, b->t);
    return c ? c : order(a->k, b->k);
}

int ep_halfedge_table(const int *tri, int nf, const char *keep, ep_halfedge **h, size_t *n)
{
    size_t c = 0;
    for (int t = 0; t < nf; t++)
        c += !keep || keep[t];
    *n = 0;
    if (!(*h = ep_malloc(3 * c + 1, sizeof **h)))
        return EP_ECOMPUTE;
    c = 0;
    for (int t = 0; t < nf; t++)
        if (!keep || keep[t])
            for (int k = 0; k < 3; k++) {
                int a = tri[3 * t + k], b = tri[3 * t + (k + 1) % 3];
                (*h)[c++] = (ep_halfedge){a < b ? a : b, a < b ? b : a, t, k};
            }
    qsort(*h, c, sizeof **h, cmp_halfedge);
    *n = c;
    return EP_OK;
}

static uint64_t directed_key(int from, int to) { return (uint64_t)(uint32_t)from << 32 | (uint32_t)to; }

static int cmp_dedge(const void *x, const void *y)
{
    uint64_t a = ((const ep_dedge *)x)->key, b = ((const ep_dedge *)y)->key;
    return (a > b) - (a < b);
}

ep_dedge *ep_halfedge_directed(const int *tri, int nt)
{
    ep_dedge *e = ep_malloc(3 * (size_t)nt + 1, sizeof *e);
    if (!e)
        return NULL;
    for (long t = 0; t < nt; t++)
        for (int k = 0; k < 3; k++)
            e[3 * t + k] = (ep_dedge){directed_key(tri[3 * t + k], tri[3 * t + (k + 1) % 3]), 3 * t + k};
    qsort(e, 3 * (size_t)nt, sizeof *e, cmp_dedge);
    return e;
}

long ep_halfedge_directed_find(const ep_dedge *e, long n, int from, int to)
{
    uint64_t k = directed_key(from, to);
    long lo = 0, hi = n - 1;
    while (lo <= hi) {
        long mid = lo + (hi - lo) / 2;
        if (e[mid].key == k)
            return mid;
        if (e[mid].key < k)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

size_t ep_halfedge_run_end(const ep_halfedge *h, size_t n, size_t i)
{
    size_t j = i + 1;
    while (j < n && h[j].lo == h[i].lo && h[j].hi == h[i].hi)
        j++;
    return j;
}

size_t ep_halfedge_find(const ep_halfedge *h, size_t n, int a, int b)
{
    ep_halfedge probe = {a < b ? a : b, a < b ? b : a, -1, 0};
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (cmp_halfedge(&h[mid], &probe) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && h[lo].lo == probe.lo && h[lo].hi == probe.hi ? lo : n;
}
