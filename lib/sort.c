/*
 * sort.c — ascending sorts of plain arrays (sort.h).
 */
#include "sort.h"

#include <stdlib.h>

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* qsort's array must not be NULL, even when empty (C11 7.22.5) */
void ep_sort_ints(int *v, size_t n)
{
    if (n > 1)
        qsort(v, n, sizeof *v, cmp_int);
}

void ep_sort_doubles(double *v, size_t n)
{
    if (n > 1)
        qsort(v, n, sizeof *v, cmp_double);
}
