/*
 * err.c — the thread-local error message and checked allocation (see err.h).
 */
#include "err.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

static _Thread_local char errbuf[EP_ERRMSG_MAX];

int ep_fail(int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(errbuf, sizeof errbuf, fmt, ap);
    va_end(ap);
    /* one line, whatever a file name or a quoted token holds: a newline or
     * other control byte is shown as '?' (issue 22, class 13: names with a
     * newline and quoted text with \r made two-line errors) */
    for (char *c = errbuf; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    return status;
}

const char *ep_errmsg(void) { return errbuf; }

void ep_team_fail(ep_team_error *e, int status)
{
#pragma omp critical(ep_team_fail)
    if (!e->status) {
        e->status = status;
        snprintf(e->msg, sizeof e->msg, "%s", errbuf);
    }
}

int ep_team_status(const ep_team_error *e) { return e->status ? ep_fail(e->status, "%s", e->msg) : EP_OK; }

static int overflows(size_t n, size_t size)
{
    return size != 0 && n > SIZE_MAX / size;
}

void ep_huge_pages(void *p, size_t bytes)
{
    enum { PAGE = 2 << 20 };
    if (!p)
        return;
    uintptr_t lo = ((uintptr_t)p + PAGE - 1) / PAGE * PAGE, hi = ((uintptr_t)p + bytes) / PAGE * PAGE;
    if (hi > lo)
        madvise((void *)lo, hi - lo, MADV_HUGEPAGE); /* a hint: refused, 4 KiB pages as before */
}

void *ep_calloc(size_t n, size_t size)
{
    void *p = overflows(n, size) ? NULL : calloc(n ? n : 1, size ? size : 1);
    if (!p)
        ep_fail(EP_ECOMPUTE, "out of memory (%zu x %zu bytes)", n, size);
    ep_huge_pages(p, n * size); /* glibc maps a large calloc fresh: nothing touched yet */
    return p;
}

void *ep_malloc(size_t n, size_t size)
{
    void *p = overflows(n, size) ? NULL : malloc(n && size ? n * size : 1);
    if (!p)
        ep_fail(EP_ECOMPUTE, "out of memory (%zu x %zu bytes)", n, size);
    ep_huge_pages(p, n * size);
    return p;
}

void *ep_malloc_huge(size_t n, size_t size)
{
    enum { HUGE = 2 << 20 };
    void *p = NULL;
    if (overflows(n, size) || n * size < HUGE)
        return ep_malloc(n, size);
    size_t bytes = (n * size + HUGE - 1) / HUGE * HUGE;
    if (posix_memalign(&p, HUGE, bytes)) {
        ep_fail(EP_ECOMPUTE, "out of memory (%zu x %zu bytes)", n, size);
        return NULL;
    }
    ep_huge_pages(p, bytes);
    return p;
}

int ep_grow(void *p, size_t n, size_t size)
{
    void **pp = p;
    void *q = overflows(n, size) ? NULL : realloc(*pp, n && size ? n * size : 1);
    if (!q)
        return ep_fail(EP_ECOMPUTE, "out of memory (%zu x %zu bytes)", n, size);
    ep_huge_pages(q, n * size);
    *pp = q;
    return EP_OK;
}

int ep_grow_to(void *p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return EP_OK;
    size_t c = *cap ? *cap : 64;
    while (c < need)
        c = c > SIZE_MAX / 2 ? need : 2 * c;
    if (ep_grow(p, c, size))
        return EP_ECOMPUTE;
    *cap = c;
    return EP_OK;
}

static void (*progress_fn)(void *ctx, const char *what, long done, long total);
static void *progress_ctx;

void ep_progress_hook(void (*fn)(void *ctx, const char *what, long done, long total), void *ctx)
{
    progress_fn = fn;
    progress_ctx = ctx;
}

void ep_progress_report(const char *what, long done, long total)
{
    if (progress_fn)
        progress_fn(progress_ctx, what, done, total);
}

double ep_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
