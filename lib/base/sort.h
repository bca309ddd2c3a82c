/*
 * sort.h — sorts of plain arrays (vertex ids, samples, distances ascending;
 * items by weight), one comparator each for the whole library instead of
 * one per module.  Base layer.
 */
#ifndef EP_SORT_H
#define EP_SORT_H

#include <stddef.h>

/* Sort v[n] ascending in place (v may be NULL when n is 0).  Cost
 * O(n log n) (qsort). */
void ep_sort_ints(int *v, size_t n);

/* Sort v[n] ascending in place (v may be NULL when n is 0); NaNs, which
 * the readers refuse before anything is sorted, would land anywhere.  Cost
 * O(n log n) (qsort). */
void ep_sort_doubles(double *v, size_t n);

/* Sort items[n] (indices into weight) heaviest first, equal weights by
 * ascending index: an order that depends on the weights alone (the
 * factor's and the solves' subtrees, scheduled heaviest first).  Cost
 * O(n log n) (glibc's qsort_r), no allocation. */
void ep_sort_heaviest(int *items, size_t n, const double *weight);

/* Sort items[n] (indices into key) by ascending key, for distinct keys
 * (the capacitance matrix's nodes by id).  Cost O(n log n) (qsort_r), no
 * allocation. */
void ep_sort_by_key(int *items, size_t n, const int *key);

#endif
