/*
 * sort.c — sorts of plain arrays (sort.h).
 */
#define _GNU_SOURCE /* qsort_r */
#include "sort.h"

#include <stdlib.h>
#include <string.h>

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* qsort's array must not be NULL, even when empty (C11 7.22.5) */
void ep_sort_ints(int *v, size_t n)
{
    if (n > 1)
        qsort(v, n, sizeof *v, cmp_int);
}

void ep_sort_ints_radix(int *v, size_t n, int *tmp)
{
    int big = 0;
    for (size_t i = 0; i < n; i++)
        big = v[i] > big ? v[i] : big;
    int *src = v, *dst = tmp;
    for (int shift = 0; shift < 32 && (big >> shift); shift += 8) {
        size_t count[257] = {0};
        for (size_t i = 0; i < n; i++)
            count[((unsigned)src[i] >> shift & 255) + 1]++;
        for (int b = 0; b < 256; b++)
            count[b + 1] += count[b];
        for (size_t i = 0; i < n; i++) /* stable: the lower bytes' order kept */
            dst[count[(unsigned)src[i] >> shift & 255]++] = src[i];
        int *t = src;
        src = dst, dst = t;
    }
    if (src != v)
        memcpy(v, src, n * sizeof *v);
}

void ep_sort_doubles(double *v, size_t n)
{
    if (n > 1)
        qsort(v, n, sizeof *v, cmp_double);
}

/* Heavier first, then the lower item; arg: the weights. */
static int cmp_heavier(const void *a, const void *b, void *arg)
{
    const double *w = arg;
    int x = *(const int *)a, y = *(const int *)b;
    return w[x] != w[y] ? (w[x] < w[y]) - (w[x] > w[y]) : (x > y) - (x < y);
}

void ep_sort_heaviest(int *items, size_t n, const double *weight)
{
    if (n > 1)
        qsort_r(items, n, sizeof *items, cmp_heavier, (void *)weight);
}

/* The lower key first; arg: the keys. */
static int cmp_key(const void *a, const void *b, void *arg)
{
    const int *k = arg;
    int x = k[*(const int *)a], y = k[*(const int *)b];
    return (x > y) - (x < y);
}

void ep_sort_by_key(int *items, size_t n, const int *key)
{
    if (n > 1)
        qsort_r(items, n, sizeof *items, cmp_key, (void *)key);
}

/* By key, then by id. */
static int cmp_pair(const void *a, const void *b)
{
    const ep_sort_pair *x = a, *y = b;
    return x->key != y->key ? (x->key > y->key) - (x->key < y->key) : (x->id > y->id) - (x->id < y->id);
}

void ep_sort_pairs(ep_sort_pair *v, size_t n)
{
    if (n > 1)
        qsort(v, n, sizeof *v, cmp_pair);
}

/* By key alone: bsearch's key against an element. */
static int cmp_pair_key(const void *key, const void *elem)
{
    int64_t x = *(const int64_t *)key, y = ((const ep_sort_pair *)elem)->key;
    return (x > y) - (x < y);
}

const ep_sort_pair *ep_sort_pairs_find(const ep_sort_pair *v, size_t n, int64_t key)
{
    return n ? bsearch(&key, v, n, sizeof *v, cmp_pair_key) : NULL;
}
