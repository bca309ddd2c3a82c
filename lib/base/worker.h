/*
 * worker.h — one helper thread for a runtime's per-step kernels.
 *
 * A step of a haptic or graphics loop lasts microseconds: OpenMP's fork and
 * join, and a sleeping thread's wake-up, cost as much.  The helper spins
 * (with pause) between jobs, so a job posted during a loop starts within a
 * cache-line transfer; after a while without work (2^18 pauses) it sleeps on a
 * condition variable, so an idle runtime does not hold the core.
 *
 * One job at a time: ep_worker_run posts fn(arg), ep_worker_wait returns when
 * it has been run.  The job must not call OpenBLAS: its OpenMP build starts
 * its own thread team, which then competes with the caller for the two
 * cores and stalls the step.
 */
#ifndef EP_WORKER_H
#define EP_WORKER_H

typedef struct ep_worker ep_worker;

/* Start the helper into *w.  0, or EP_ECOMPUTE (*w NULL) when no thread can
 * be had. */
int ep_worker_start(ep_worker **w);
/* Stop and join the helper (NULL: nothing). */
void ep_worker_stop(ep_worker *w);

/* What the threads options of the runtimes do: start a helper in *w when
 * threads > 1 and none runs, stop it (*w = NULL) when threads <= 1.
 * 0 or EP_ECOMPUTE (no thread to be had). */
int ep_worker_use(ep_worker **w, int threads);

/* Post fn(arg) to the helper; the caller goes on with its own share. */
void ep_worker_run(ep_worker *w, void (*fn)(void *), void *arg);
/* Return when the posted job has been run: by the helper (its writes are
 * then visible), or, if the helper has not started it by now, by the caller.
 * A helper whose core the scheduler has lent elsewhere would otherwise hold
 * the caller for a time slice, milliseconds.  So a job must give the same
 * result on either thread, and the caller's own share must not need the
 * helper's to finish first. */
void ep_worker_wait(ep_worker *w);

#endif
