/*
 * test_worker.c — the spinning helper thread (worker.c): every posted job
 * runs exactly once, whether the helper takes it or the waiter takes it
 * back, with the helper spinning or asleep.
 */
#include "helpers.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "worker.h"

typedef struct {
    atomic_long runs;
    long value, by_caller;
    pthread_t caller;
} job;

static void bump(void *p)
{
    job *j = p;
    atomic_fetch_add(&j->runs, 1);
    j->value++;
    j->by_caller += pthread_equal(pthread_self(), j->caller) != 0;
}

/* Posted and waited for back to back, jobs race the helper's claim against
 * the waiter's (the waiter wins some); posted with a pause before the wait,
 * the helper runs them.  A job lost or run twice changes the counts. */
static void each_job_runs_once(void **s)
{
    (void)s;
    enum { JOBS = 100000, PAUSED = 20 };
    ep_worker *w;
    assert_int_equal(ep_worker_start(&w), EP_OK);
    assert_non_null(w);
    job j = {.caller = pthread_self()};
    for (long k = 0; k < JOBS; k++) {
        ep_worker_run(w, bump, &j);
        ep_worker_wait(w);
        assert_int_equal(j.value, k + 1); /* the run's writes are visible */
    }
    long by_caller = j.by_caller;
    assert_true(by_caller > 0);
    for (int k = 0; k < PAUSED; k++) {
        /* the caller leaves the core to the helper until it has run the job
         * (at most 10 s: a loaded machine may not schedule the helper within
         * a fixed few milliseconds, which made this test flaky) */
        struct timespec pause = {0, 1000 * 1000};
        long want = JOBS + k + 1;
        ep_worker_run(w, bump, &j);
        for (int ms = 0; ms < 10000 && atomic_load(&j.runs) < want; ms++)
            nanosleep(&pause, NULL);
        ep_worker_wait(w);
    }
    assert_int_equal(atomic_load(&j.runs), JOBS + PAUSED);
    assert_int_equal(j.by_caller, by_caller); /* the helper took every paused job */
    ep_worker_stop(w);
}

/* After a long idle spell the helper sleeps; a job posted then is run once,
 * by whichever thread gets to it. */
static void jobs_after_sleep(void **s)
{
    (void)s;
    ep_worker *w;
    assert_int_equal(ep_worker_start(&w), EP_OK);
    assert_non_null(w);
    job j = {.caller = pthread_self()};
    for (int k = 0; k < 3; k++) {
        struct timespec idle = {0, 200 * 1000 * 1000}; /* longer than the helper spins */
        nanosleep(&idle, NULL);
        ep_worker_run(w, bump, &j);
        ep_worker_wait(w);
    }
    assert_int_equal(atomic_load(&j.runs), 3);
    assert_int_equal(j.value, 3);
    ep_worker_stop(w);
    ep_worker_stop(NULL);
}

EP_TEST_MAIN("worker", cmocka_unit_test(each_job_runs_once), cmocka_unit_test(jobs_after_sleep))
