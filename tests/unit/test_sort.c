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

EP_TEST_MAIN("sort", cmocka_unit_test(lower_bound))
