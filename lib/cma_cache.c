/*
 * cma_cache.c — capacitance inverses kept for node sets that come back
 * (cma_cache.h).
 */
#include "cma_cache.h"
#include "err.h"
#include "sort.h"

#include <stdlib.h>
#include <string.h>

void ep_cma_cache_init(ep_cma_cache *k, double limit_bytes)
{
    memset(k, 0, sizeof *k);
    k->limit = limit_bytes;
}

void ep_cma_cache_free(ep_cma_cache *k)
{
    for (int i = 0; i < k->n; i++)
        free(k->e[i].nodes), free(k->e[i].Cinv);
    free(k->e);
    memset(k, 0, sizeof *k);
}

static double entry_bytes(int s) { return 9.0 * s * s * sizeof(double) + s * sizeof(int) + sizeof(ep_cma_cache_entry); }

static int find(const ep_cma_cache *k, const int *sorted, int s)
{
    for (int i = 0; i < k->n; i++)
        if (k->e[i].s == s && !memcmp(k->e[i].nodes, sorted, (size_t)s * sizeof *sorted))
            return i;
    return -1;
}

int ep_cma_cache_get(ep_cma_cache *k, ep_cma *c, const int *nodes, int s)
{
    int *sorted = c->cols; /* n >= s ints of scratch */
    memcpy(sorted, nodes, (size_t)s * sizeof *sorted);
    ep_sort_ints(sorted, (size_t)s);
    int i = find(k, sorted, s);
    if (i < 0 || ep_cma_load(c, k->e[i].nodes, s, k->e[i].Cinv)) {
        k->misses++;
        return 0;
    }
    k->hits++;
    k->e[i].stamp = ++k->clock;
    return 1;
}

int ep_cma_cache_put(ep_cma_cache *k, const ep_cma *c)
{
    int s = c->s, N = 3 * s, *perm = c->cols;
    double need = entry_bytes(s);
    if (need > k->limit)
        return EP_OK; /* larger than the whole cache: not kept */
    /* sort positions by node: perm[i] = position in c->S of the i-th smallest node */
    for (int i = 0; i < s; i++)
        perm[i] = i;
    for (int i = 1; i < s; i++) /* insertion sort: s is small and nearly sorted */
        for (int j = i; j > 0 && c->S[perm[j - 1]] > c->S[perm[j]]; j--) {
            int t = perm[j];
            perm[j] = perm[j - 1];
            perm[j - 1] = t;
        }
    ep_cma_cache_entry e = {s, ep_malloc((size_t)s + 1, sizeof(int)), ep_malloc(9 * (size_t)s * s + 1, sizeof(double)),
                      ++k->clock};
    double *inv = ep_malloc(9 * (size_t)s * s + 1, sizeof *inv);
    if (!e.nodes || !e.Cinv || !inv) {
        free(e.nodes), free(e.Cinv), free(inv);
        return EP_ECOMPUTE;
    }
    ep_cma_inverse(c, inv);
    for (int i = 0; i < s; i++) {
        e.nodes[i] = c->S[perm[i]];
        for (int b = 0; b < 3; b++)
            for (int j = 0; j < s; j++)
                memcpy(&e.Cinv[(size_t)(3 * i + b) * N + 3 * j], &inv[(size_t)(3 * perm[i] + b) * N + 3 * perm[j]],
                       3 * sizeof(double));
    }
    free(inv);
    int at = find(k, e.nodes, s);
    if (at >= 0) { /* refresh */
        free(k->e[at].nodes), free(k->e[at].Cinv);
        k->e[at] = e;
        return EP_OK;
    }
    while (k->n && k->bytes + need > k->limit) { /* drop the least recently used */
        int old = 0;
        for (int i = 1; i < k->n; i++)
            old = k->e[i].stamp < k->e[old].stamp ? i : old;
        k->bytes -= entry_bytes(k->e[old].s);
        free(k->e[old].nodes), free(k->e[old].Cinv);
        k->e[old] = k->e[--k->n];
    }
    if (k->n == k->cap && ep_grow(&k->e, (size_t)(k->cap = 2 * k->cap + 8), sizeof *k->e)) {
        free(e.nodes), free(e.Cinv);
        return EP_ECOMPUTE;
    }
    k->e[k->n++] = e;
    k->bytes += need;
    return EP_OK;
}
