/*
 * mem.h — the machine's memory, for the guards that refuse a run before it
 * starts rather than after the kernel's out-of-memory killer ends it.
 *
 * A base module (doc/MODULES.md): every layer may use it, the file readers
 * (to bound what a file may make them allocate) as well as the solvers.
 */
#ifndef EP_MEM_H
#define EP_MEM_H

/* Byte units of messages and limits (powers of 1024). */
#define EP_MEM_KIB 1024.0
#define EP_MEM_MIB 1048576.0
#define EP_MEM_GIB 1073741824.0
#define EP_MEM_TIB 1099511627776.0

/* Physical memory of the machine in bytes (0 if unknown). */
double ep_mem_total(void);

/* The memory a run may use: limit (--max-memory) when given (> 0), else 90%
 * of the machine's or of the address-space limit (ulimit -v), the lower. */
double ep_mem_limit(double limit);

/* Peak resident memory of this process so far, bytes (getrusage). */
double ep_mem_peak(void);

/* bytes as "512 bytes", "21.3 KiB", "2.3 GiB" (3 significant digits, the
 * unit that keeps them above 1: no "0.00 GiB", issue 22 class 13).  A
 * thread-local buffer of eight, so one message may hold eight sizes. */
const char *ep_mem_text(double bytes);

#endif
