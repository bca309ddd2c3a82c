/*
 * err.h — status codes and the error message shared by every elastoprep routine.
 *
 * Library routines never print and never exit.  A routine that fails records one
 * line of text with ep_fail() and returns the status; the tool that called it
 * prints "tool: message" and exits with that status (DESIGN.md, command-line
 * conventions).  The message buffer is thread-local, so OpenMP workers may fail
 * independently; the caller reports the first failure it sees.
 */
#ifndef EP_ERR_H
#define EP_ERR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exit statuses of every tool (man pages, EXIT STATUS). */
enum {
    EP_OK = 0,       /* success */
    EP_ECOMPUTE = 1, /* computation failed: singular, not converged, out of memory */
    EP_EUSAGE = 2,   /* bad command line */
    EP_EINPUT = 3,   /* invalid input data */
    EP_EIO = 4       /* cannot read or write a file */
};

/* Record a printf-style message and return status (for "return ep_fail(...)").
 * Control characters (a newline in a file name) are recorded as '?', so the
 * message is one line. */
int ep_fail(int status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Bytes of a recorded message, its terminator included. */
#define EP_ERRMSG_MAX 1024

/* The last message recorded by this thread ("" if none). */
const char *ep_errmsg(void);

/* The first failure of a team of threads: an OpenMP worker's message is in
 * its own buffer, which the thread that reports cannot read.
 * ep_team_fail records a worker's status and message, the first one only
 * (thread-safe); ep_team_status returns 0, or records that message on the
 * calling thread and returns that status.  Zero-initialize. */
typedef struct ep_team_error {
    int status;
    char msg[EP_ERRMSG_MAX]; /* as long as a message can be */
} ep_team_error;
void ep_team_fail(ep_team_error *e, int status);
int ep_team_status(const ep_team_error *e);

/* Overflow-checked calloc of n*size bytes.  On failure records
 * "out of memory (... bytes)" and returns NULL; the caller returns EP_ECOMPUTE. */
void *ep_calloc(size_t n, size_t size);

/* As ep_calloc but without zeroing; n*size overflow also fails. */
void *ep_malloc(size_t n, size_t size);

/* Mark the 2 MiB-aligned pages inside p[bytes] for transparent huge pages
 * (madvise; a block holding no whole one is left alone).  Why: on the 2-core
 * machine a first touch of fresh memory costs seconds a GiB in 4 KiB pages
 * and a tenth of a second in 2 MiB pages (`membw touch`, tests/bench, and
 * voxelize.sh's machine line print both), and Debian's kernel gives huge
 * pages only where asked (transparent_hugepage=madvise).  ep_malloc,
 * ep_calloc and ep_grow call it; CHOLMOD's allocations go through it too
 * (chol.h).  Cost: one system call per large block. */
void ep_huge_pages(void *p, size_t bytes);

/* As ep_malloc, for a large array read at scattered places (a runtime's
 * gathers): 2 MB aligned and marked for transparent huge pages, so a gather
 * of blocks from many columns is not also a walk through as many page
 * tables.  Freed with free(). */
void *ep_malloc_huge(size_t n, size_t size);

/* Wall-clock seconds (monotonic), for the stage timings tools report. */
double ep_now(void);

/* Progress of a long loop, for a tool to show (the library never prints):
 * a routine calls ep_progress_report(what, done, total) every
 * EP_PROGRESS_EVERY steps or so and once with done == total; nothing
 * happens until ep_progress_hook installs a callback (lib/cli does, for
 * every tool; fn NULL removes it).  Call it from one thread.  Cost: a test
 * when no hook is set, else the callback's. */
#define EP_PROGRESS_EVERY 65536
void ep_progress_hook(void (*fn)(void *ctx, const char *what, long done, long total), void *ctx);
void ep_progress_report(const char *what, long done, long total);

/* Grow *p to hold n elements of size bytes (realloc); 0 or EP_ECOMPUTE. */
int ep_grow(void *p, size_t n, size_t size);

/* The growable array: make *p, of capacity *cap elements, hold need of
 * them, doubling (from 64) so n appends cost O(n); *cap updated.  0 or
 * EP_ECOMPUTE (*p and *cap unchanged). */
int ep_grow_to(void *p, size_t *cap, size_t need, size_t size);

#ifdef __cplusplus
}
#endif

#endif
