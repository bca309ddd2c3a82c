/*
 * cma_cache.h — inverse capacitance matrices kept for node sets that come
 * back (000 §2.3.8: keyed by the time they were last used, bounded in
 * memory; here the least recently used is dropped first rather than a random
 * older one).
 */
#ifndef EP_CMA_CACHE_H
#define EP_CMA_CACHE_H

#include "cma.h"

/* Cache of inverses keyed by sorted node lists, time-stamped, bounded in
 * bytes: the least recently used entries are dropped to fit. */
typedef struct ep_cma_cache_entry {
    int s;
    int *nodes;      /* sorted */
    double *Cinv;    /* in that node order */
    long stamp;
} ep_cma_cache_entry;

typedef struct ep_cma_cache {
    ep_cma_cache_entry *e;
    int n, cap;
    double bytes, limit;
    long clock, hits, misses;
} ep_cma_cache;

void ep_cma_cache_init(ep_cma_cache *k, double limit_bytes);
void ep_cma_cache_free(ep_cma_cache *k);
/* Load C^-1 for the node set of nodes[s] (any order) into c when cached: 1 hit,
 * 0 miss.  c->S becomes the sorted list. */
int ep_cma_cache_get(ep_cma_cache *k, ep_cma *c, const int *nodes, int s);
/* Store c's current inverse.  0 or EP_ECOMPUTE. */
int ep_cma_cache_put(ep_cma_cache *k, const ep_cma *c);

#endif
