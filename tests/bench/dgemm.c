/*
 * dgemm — print the machine's dgemm rate (GFlop/s) measured now, for the
 * benchmark scripts to print beside their own rates (bench.h).
 */
#include "bench.h"

int main(void)
{
    printf("%.1f\n", bench_dgemm_gflops(2000));
    return 0;
}
