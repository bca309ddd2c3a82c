/*
 * worker.c — a spinning helper thread (worker.h).
 *
 * Protocol: the poster writes the job, then increments seq; the helper
 * claims every new seq in taken and publishes it in done when the job has
 * returned.  A waiter that finds a job unclaimed claims it itself and runs
 * it.  Before sleeping the helper sets sleeping and rechecks seq under the
 * mutex; the poster signals under the same mutex when it sees sleeping, so
 * no wake-up is lost.
 */
#include "worker.h"
#include "err.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define cpu_relax() _mm_pause()
#else
#define cpu_relax() ((void)0)
#endif

struct ep_worker {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    void (*fn)(void *);
    void *arg;
    atomic_long seq, taken, done;
    atomic_int sleeping, quit;
};

enum { SPINS = 1 << 18 }; /* pause instructions before sleeping: far longer than a step */

static void *helper(void *p)
{
    ep_worker *w = p;
    long last = 0;
    for (;;) {
        long s = atomic_load(&w->seq);
        for (int i = 0; s == last && i < SPINS && !atomic_load(&w->quit); i++) {
            cpu_relax();
            s = atomic_load(&w->seq);
        }
        if (s == last) {
            pthread_mutex_lock(&w->mu);
            atomic_store(&w->sleeping, 1);
            while ((s = atomic_load(&w->seq)) == last && !atomic_load(&w->quit))
                pthread_cond_wait(&w->cv, &w->mu);
            atomic_store(&w->sleeping, 0);
            pthread_mutex_unlock(&w->mu);
        }
        if (atomic_load(&w->quit))
            return NULL;
        last = s;
        long prev = s - 1; /* jobs are posted one at a time: seq - 1 was claimed */
        if (atomic_compare_exchange_strong(&w->taken, &prev, s)) {
            w->fn(w->arg);
            atomic_store_explicit(&w->done, s, memory_order_release);
        }
    }
}

int ep_worker_start(ep_worker **out)
{
    ep_worker *w = ep_calloc(1, sizeof *w);
    *out = NULL;
    if (!w)
        return EP_ECOMPUTE;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    if (pthread_create(&w->thread, NULL, helper, w)) {
        pthread_mutex_destroy(&w->mu);
        pthread_cond_destroy(&w->cv);
        free(w);
        return ep_fail(EP_ECOMPUTE, "cannot start a helper thread");
    }
    *out = w;
    return EP_OK;
}

int ep_worker_use(ep_worker **w, int threads)
{
    int st;
    if (threads > 1 && !*w && (st = ep_worker_start(w)))
        return st;
    if (threads <= 1) {
        ep_worker_stop(*w);
        *w = NULL;
    }
    return EP_OK;
}

static void wake(ep_worker *w)
{
    if (atomic_load(&w->sleeping)) {
        pthread_mutex_lock(&w->mu);
        pthread_cond_signal(&w->cv);
        pthread_mutex_unlock(&w->mu);
    }
}

void ep_worker_stop(ep_worker *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->mu);
    atomic_store(&w->quit, 1);
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
    free(w);
}

void ep_worker_run(ep_worker *w, void (*fn)(void *), void *arg)
{
    w->fn = fn;
    w->arg = arg;
    atomic_fetch_add(&w->seq, 1);
    wake(w);
}

void ep_worker_wait(ep_worker *w)
{
    long s = atomic_load(&w->seq), prev = s - 1;
    if (atomic_compare_exchange_strong(&w->taken, &prev, s)) {
        w->fn(w->arg); /* the helper has not started it: not running, or asleep */
        return;
    }
    while (atomic_load_explicit(&w->done, memory_order_acquire) != s)
        cpu_relax();
}
