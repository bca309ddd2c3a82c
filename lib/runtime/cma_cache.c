/*
 * cma_cache.c — capacitance inverses (or factors) kept for node sets that come back
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

static void entry_free(ep_cma_cache_entry *e) { free(e->key), free(e->nodes), free(e->state); }

void ep_cma_cache_free(ep_cma_cache *k)
{
    for (int i = 0; i < k->n; i++)
        entry_free(&k->e[i]);
    free(k->e);
    memset(k, 0, sizeof *k);
}

static double entry_bytes(int s)
{
    return 9.0 * s * s * sizeof(double) + 2.0 * s * sizeof(int) + sizeof(ep_cma_cache_entry);
}

static int find(const ep_cma_cache *k, const int *sorted, int s)
{
    for (int i = 0; i < k->n; i++)
        if (k->e[i].s == s && !memcmp(k->e[i].key, sorted, (size_t)s * sizeof *sorted))
            return i;
    return -1;
}

int ep_cma_cache_get(ep_cma_cache *k, ep_cma *c, const int *nodes, int s)
{
    int *sorted = c->cols; /* n >= s ints of scratch */
    memcpy(sorted, nodes, (size_t)s * sizeof *sorted);
    ep_sort_ints(sorted, (size_t)s);
    int i = find(k, sorted, s);
    if (i < 0 || ep_cma_restore(c, k->e[i].nodes, s, k->e[i].form, k->e[i].state)) {
        k->misses++;
        return 0;
    }
    k->hits++;
    k->e[i].stamp = ++k->clock;
    return 1;
}

/* The factor cannot be permuted into a sorted order, so an entry keeps
 * its nodes in the state's order and a sorted copy as its key. */
int ep_cma_cache_put(ep_cma_cache *k, const ep_cma *c)
{
    int s = c->s;
    double need = entry_bytes(s);
    if (need > k->limit)
        return EP_OK; /* larger than the whole cache: not kept */
    ep_cma_cache_entry e = {s, ep_malloc((size_t)s + 1, sizeof(int)), ep_malloc((size_t)s + 1, sizeof(int)), c->form,
                            ep_malloc(9 * (size_t)s * s + 1, sizeof(double)), ++k->clock};
    if (!e.key || !e.nodes || !e.state) {
        entry_free(&e);
        return EP_ECOMPUTE;
    }
    memcpy(e.nodes, c->S, (size_t)s * sizeof *e.nodes);
    memcpy(e.key, c->S, (size_t)s * sizeof *e.key);
    ep_sort_ints(e.key, (size_t)s);
    ep_cma_save(c, e.state);
    int at = find(k, e.key, s);
    if (at >= 0) { /* refresh */
        entry_free(&k->e[at]);
        k->e[at] = e;
        return EP_OK;
    }
    while (k->n && k->bytes + need > k->limit) { /* drop the least recently used */
        int old = 0;
        for (int i = 1; i < k->n; i++)
            old = k->e[i].stamp < k->e[old].stamp ? i : old;
        k->bytes -= entry_bytes(k->e[old].s);
        entry_free(&k->e[old]);
        k->e[old] = k->e[--k->n];
    }
    if (k->n == k->cap) { /* the capacity grows only with the array */
        if (ep_grow(&k->e, 2 * (size_t)k->cap + 8, sizeof *k->e)) {
            entry_free(&e);
            return EP_ECOMPUTE;
        }
        k->cap = 2 * k->cap + 8;
    }
    k->e[k->n++] = e;
    k->bytes += need;
    return EP_OK;
}
