/*
 * mem.c — the machine's memory (mem.h).
 */
#include "mem.h"

#include <sys/resource.h>
#include <unistd.h>

double ep_mem_total(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && size > 0 ? (double)pages * (double)size : 0.0;
}

double ep_mem_limit(double limit)
{
    return limit > 0 ? limit : 0.9 * ep_mem_total();
}

double ep_mem_peak(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? EP_MEM_KIB * (double)ru.ru_maxrss : 0.0;
}
