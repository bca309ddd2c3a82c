/*
 * mem.c — the machine's memory (mem.h).
 */
#include "mem.h"

#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

double ep_mem_total(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && size > 0 ? (double)pages * (double)size : 0.0;
}

double ep_mem_limit(double limit)
{
    double m = 0.9 * ep_mem_total();
    struct rlimit rl;
    /* a cap on the address space (ulimit -v) bounds what malloc can give */
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && 0.9 * (double)rl.rlim_cur < m)
        m = 0.9 * (double)rl.rlim_cur;
    return limit > 0 ? limit : m;
}

double ep_mem_peak(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? EP_MEM_KIB * (double)ru.ru_maxrss : 0.0;
}

const char *ep_mem_text(double bytes)
{
    static __thread char buf[8][32];
    static __thread int next;
    char *b = buf[next++ & 7];
    static const char *unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (u < 4 && bytes >= 1024.0) {
        bytes /= 1024.0;
        u++;
    }
    snprintf(b, sizeof buf[0], u ? "%.3g %s" : "%.0f %s", bytes, unit[u]);
    return b;
}
