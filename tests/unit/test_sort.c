/*
 * test_sort.c — the sorts and searches of plain arrays (sort.h) against
 * brute force.
 */
#include "helpers.h"

#include "sort.h"

#include <stdint.h>

/* EP_SORT_LOWER_BOUND against a linear scan: empty arrays, runs of equal
 * values, values below, between and above all, for int and 64-bit keys. */
static void lower_bound(void **s)
{
    (void)s;
    ep_rng r = ep_rng_seed(11, 0);
    int v[64];
    uint64_t k[64];
    assert_int_equal(EP_SORT_LOWER_BOUND(v, 0, 5), 0);
    for (int trial = 0; trial < 200; trial++) {
        size_t n = (size_t)(ep_rng_uniform(&r) * 64);
        for (size_t i = 0; i < n; i++)
            v[i] = (int)(ep_rng_uniform(&r) * 20) - 10;
        ep_sort_ints(v, n);
        for (size_t i = 0; i < n; i++)
            k[i] = (uint64_t)(v[i] + 10) << 32 | 7u;
        for (int x = -12; x <= 12; x++) {
            size_t want = 0;
            while (want < n && v[want] < x)
                want++;
            assert_int_equal(EP_SORT_LOWER_BOUND(v, n, x), want);
            if (x >= -10) /* (v + 10) << 32 | 7 >= (x + 10) << 32 exactly when v >= x */
                assert_int_equal(EP_SORT_LOWER_BOUND(k, n, (uint64_t)(x + 10) << 32), want);
        }
    }
}

/* ep_sort_pairs against counting: runs of equal keys (ids distinct, given
 * in descending order so that the tie rule shows), keys near +-2^62; each
 * key found with its own key, an absent one not. */
static void pairs(void **s)
{
    (void)s;
    ep_rng r = ep_rng_seed(12, 0);
    ep_sort_pair v[48];
    assert_null(ep_sort_pairs_find(NULL, 0, 3));
    ep_sort_pairs(NULL, 0);
    for (int trial = 0; trial < 200; trial++) {
        size_t n = (size_t)ep_rng_below(&r, 48);
        for (size_t i = 0; i < n; i++) {
            int64_t k = ep_rng_below(&r, 9) - 4;
            v[i].key = k * ((int64_t)1 << 60) + 2 * k, v[i].id = (int)(n - i);
        }
        ep_sort_pairs(v, n);
        for (size_t i = 1; i < n; i++)
            assert_true(v[i - 1].key < v[i].key || (v[i - 1].key == v[i].key && v[i - 1].id < v[i].id));
        int seen[49] = {0};
        for (size_t i = 0; i < n; i++) /* a permutation of the ids 1..n */
            assert_int_equal(seen[v[i].id]++, 0);
        for (size_t i = 0; i < n; i++) {
            const ep_sort_pair *hit = ep_sort_pairs_find(v, n, v[i].key);
            assert_non_null(hit);
            assert_true(hit->key == v[i].key);
        }
        assert_null(ep_sort_pairs_find(v, n, 1)); /* no key is 1: 2^60 k + 2k is even */
    }
}

EP_TEST_MAIN("sort", cmocka_unit_test(lower_bound), cmocka_unit_test(pairs))
