/*
 * cma_cache.h — capacitance inverses (or factors) kept for node sets that come
 * back (000 §2.3.8: keyed by the time they were last used, bounded in
 * memory; here the least recently used is dropped first rather than a random
 * older one).
 */
#ifndef EP_CMA_CACHE_H
#define EP_CMA_CACHE_H

#include "cma.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Cache of what an ep_cma holds for a node set (C^-1 or the symmetric
 * form's factor: ep_cma_save), keyed by the sorted node list,
 * time-stamped, bounded in bytes: the least recently used entries are
 * dropped to fit. */
typedef struct ep_cma_cache_entry {
    int s;
    int *key;        /* [s] the nodes, sorted */
    int *nodes;      /* [s] in the order of the state */
    int form;        /* the state's form (enum ep_cma_form, ep_cma_restore) */
    double *state;   /* [3s][3s] */
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
/* Restore c to the node set of nodes[s] (any order) when cached: 1 hit,
 * 0 miss.  c->S becomes the order it was stored in.  Cost O(s log s +
 * entries s) to find, O(s^2) to restore (ep_cma_restore). */
int ep_cma_cache_get(ep_cma_cache *k, ep_cma *c, const int *nodes, int s);
/* Store c's current state (ep_cma_save), dropping the least recently used
 * entries beyond the limit.  Cost O(s^2) copy plus O(entries).  0 or
 * EP_ECOMPUTE. */
int ep_cma_cache_put(ep_cma_cache *k, const ep_cma *c);

#ifdef __cplusplus
}
#endif

#endif
