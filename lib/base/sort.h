/*
 * sort.h — sorts of plain arrays (vertex ids, samples, distances ascending;
 * items by weight), one comparator each for the whole library instead of
 * one per module.  Base layer.
 */
#ifndef EP_SORT_H
#define EP_SORT_H

#include <stddef.h>
#include <stdint.h>

/* Sort v[n] ascending in place (v may be NULL when n is 0).  Cost
 * O(n log n) (qsort). */
void ep_sort_ints(int *v, size_t n);

/* Sort the non-negative v[n] ascending in place, least significant byte
 * first (a counting pass a byte of the largest value).
 *   Workspace  tmp [n] (the caller's).
 *   Cost       O(n b) for b bytes of the largest value; no allocation. */
void ep_sort_ints_radix(int *v, size_t n, int *tmp);

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

/* A 64-bit key and the id it stands for: a Morton code and its point, a
 * Gmsh node tag and its vertex. */
typedef struct {
    int64_t key;
    int id;
} ep_sort_pair;

/* Sort v[n] by ascending key, equal keys by ascending id: an order that
 * the pairs alone fix, whatever qsort does with ties (v may be NULL when n
 * is 0).  Cost O(n log n) (qsort), no allocation. */
void ep_sort_pairs(ep_sort_pair *v, size_t n);

/* The pair of v[n] (sorted by ep_sort_pairs) whose key is key; NULL when
 * none (with equal keys, any of them).  Cost O(log n) (bsearch). */
const ep_sort_pair *ep_sort_pairs_find(const ep_sort_pair *v, size_t n, int64_t key);

/* The first position i (a size_t) of the ascending v[n] with v[i] >= x;
 * n when every value is smaller.  The binary search of the sorted ids of a
 * sparse column or row, the boundary vertices, 64-bit edge keys: any
 * element type with <, x converted to it; v, n and x evaluated once.  A
 * macro (GNU statement expression) so that it serves every type and
 * inlines into assembly loops.  Cost O(log n). */
#define EP_SORT_LOWER_BOUND(v, n, x)                                                                                 \
    __extension__({                                                                                                  \
        const __typeof__(*(v)) *ep_lb_v = (v);                                                                       \
        __typeof__(*(v)) ep_lb_x = (x);                                                                              \
        size_t ep_lb_lo = 0, ep_lb_hi = (n);                                                                         \
        while (ep_lb_lo < ep_lb_hi) {                                                                                \
            size_t ep_lb_mid = (ep_lb_lo + ep_lb_hi) / 2;                                                            \
            if (ep_lb_v[ep_lb_mid] < ep_lb_x)                                                                        \
                ep_lb_lo = ep_lb_mid + 1;                                                                            \
            else                                                                                                     \
                ep_lb_hi = ep_lb_mid;                                                                                \
        }                                                                                                            \
        ep_lb_lo;                                                                                                    \
    })

#endif
