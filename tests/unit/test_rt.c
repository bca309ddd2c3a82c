/*
 * test_rt.c — the pieces a runtime check is made of: latency medians and
 * best, and a thread's CPU time (stats.h), the one random generator (rng.h), the report and its verdict
 * (rtreport.h).
 */
#include "helpers.h"

#include "rng.h"
#include "rtreport.h"
#include "stats.h"

#include <time.h>

static void median(void **s)
{
    (void)s;
    ep_stats t = {0};
    assert_true(ep_stats_median(&t) == 0);
    assert_true(ep_stats_min(&t) == 0);
    const double v[] = {5, 1, 4, 2, 3};
    for (int i = 0; i < 5; i++)
        assert_int_equal(ep_stats_add(&t, v[i]), EP_OK);
    assert_true(ep_stats_min(&t) == 1); /* unsorted: the median has not run yet */
    assert_true(ep_stats_median(&t) == 3);
    assert_int_equal(ep_stats_add(&t, 100), EP_OK); /* an outlier moves it by half a step only */
    assert_true(ep_stats_median(&t) == 3.5);
    for (int i = 0; i < 1000; i++) /* growth past any initial capacity */
        assert_int_equal(ep_stats_add(&t, 7), EP_OK);
    assert_int_equal((int)t.n, 1006);
    assert_true(ep_stats_median(&t) == 7);
    ep_stats_free(&t);
    ep_stats_free(&t);
}

/* The thread's CPU clock advances with work done on it, and only then:
 * a sleep of 50 ms adds far less than it (the clock is not the wall's). */
static void thread_cpu(void **s)
{
    (void)s;
    double c0 = ep_stats_thread_cpu(), x = 0;
    for (long i = 0; i < 20000000; i++)
        x += 1.0 / (double)(i + 1);
    double c1 = ep_stats_thread_cpu();
    assert_true(x > 1 && c1 > c0);
    struct timespec nap = {0, 50000000};
    nanosleep(&nap, NULL);
    assert_true(ep_stats_thread_cpu() - c1 < 0.025);
}

/* Reproducible for a seed, distinct streams, in [0, 1), and uniform enough
 * that 10^5 draws put 10% +- 1% in each tenth. */
static void generator(void **s)
{
    (void)s;
    ep_rng a = ep_rng_seed(42, 1), b = ep_rng_seed(42, 1), c = ep_rng_seed(42, 7);
    int same = 1, differ = 0, bins[10] = {0};
    for (int i = 0; i < 100000; i++) {
        double x = ep_rng_uniform(&a), y = ep_rng_uniform(&b), z = ep_rng_uniform(&c);
        same &= x == y;
        differ += x != z;
        assert_true(x >= 0 && x < 1);
        bins[(int)(10 * x)]++;
    }
    assert_true(same);
    assert_true(differ > 99990);
    for (int k = 0; k < 10; k++)
        assert_true(bins[k] > 9000 && bins[k] < 11000);
    for (int i = 0; i < 1000; i++) {
        int k = ep_rng_below(&a, 3);
        assert_true(k >= 0 && k < 3);
    }
}

/* The relative differences the checks take (max-norm and 2-norm): their
 * values, and NaN (so a failed check) when an answer or the reference
 * holds a NaN, where fmax would drop it. */
static void rel_diff(void **s)
{
    (void)s;
    double b[3] = {1, -4, 2}, a[3] = {1, -4.002, 2.001};
    assert_true(fabs(ep_rtreport_rel_diff(a, b, 3) - 0.002 / 4) < 1e-15);
    double z[2] = {0, 0}, y[2] = {0, 1e-3};
    assert_true(ep_rtreport_rel_diff(y, z, 2) == 1e-3); /* b = 0: the absolute difference */
    for (int i = 0; i < 3; i++) {
        double an[3] = {1, -4, 2}, bn[3] = {1, -4, 2};
        an[i] = NAN;
        assert_true(isnan(ep_rtreport_rel_diff(an, b, 3)));
        bn[i] = NAN;
        assert_true(isnan(ep_rtreport_rel_diff(a, bn, 3)));
    }
    assert_true(isnan(ep_rtreport_worst(ep_rtreport_worst(0, NAN), 1)));
    double c[2] = {3, 4}, e[2] = {3, 4.5};
    assert_true(fabs(ep_rtreport_rel_norm(e, c, 2) - 0.1) < 1e-15); /* ||(0, 0.5)|| / ||(3, 4)|| */
    assert_true(ep_rtreport_rel_norm(y, z, 2) == 1e-3);
    e[0] = NAN;
    assert_true(isnan(ep_rtreport_rel_norm(e, c, 2)));
    assert_true(isnan(ep_rtreport_rel_norm(c, e, 2)));
}

static void report(void **s)
{
    (void)s;
    ep_rtreport r = {.path = "f.h5", .kind = "gf"};
    ep_rtreport_check_value(&r, "small", 1e-12, 1e-10);
    assert_int_equal(ep_rtreport_verdict(&r), EP_OK);
    ep_rtreport_check_value(&r, "large", 1.0, 1e-10);
    ep_rtreport_check_value(&r, "not a number", NAN, 1e-10); /* NaN fails */
    ep_rtreport_fact(&r, "n", 3);
    ep_rtreport_time(&r, "step", 1.5);
    assert_int_equal(r.failed, 2);
    expect_error(ep_rtreport_verdict(&r), EP_ECOMPUTE, "f.h5: 2 checks failed: large; not a number", NULL);
    char buf[4096] = "";
    FILE *f = fmemopen(buf, sizeof buf, "w");
    ep_rtreport_print(&r, f, 1);
    fclose(f);
    assert_non_null(strstr(buf, "\"pass\": false"));
    assert_non_null(strstr(buf, "\"name\": \"not a number\", \"value\": -1")); /* JSON has no NaN */
    assert_non_null(strstr(buf, "\"timings_us\": {\"step\": 1.5}"));
    for (int i = 0; i < 2 * EP_RTREPORT_MAX; i++) /* a full list drops, never overflows */
        ep_rtreport_fact(&r, "more", i);
    assert_int_equal(r.nfacts, EP_RTREPORT_MAX);
}

EP_TEST_MAIN("rt", cmocka_unit_test(median), cmocka_unit_test(thread_cpu), cmocka_unit_test(generator),
             cmocka_unit_test(rel_diff), cmocka_unit_test(report))
