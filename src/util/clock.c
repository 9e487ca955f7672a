/* The time-stamp counter's rate, measured once against CLOCK_MONOTONIC. */
#include "clock.h"

#include <stdint.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
int rm_ticks_tsc;
#endif

/* ticks per nanosecond: 1 until calibrated (rm_ticks is rm_now then);
 * only conversions of settings use it, never the per-message path */
static double rm_ticks_per_ns = 1.0;
static int rm_ticks_ready;

#if defined(__x86_64__) || defined(__i386__)
/* A reading of both clocks at one moment: the monotonic clock between two
 * counter readings, the closest of a few such pairs. One pair alone is off
 * by however late clock_gettime returns: the first call of a process under
 * ThreadSanitizer returned about 5 us late and made a 50 us calibration
 * 10 % short. */
static void rm_ticks_pair(uint64_t *ns, uint64_t *ticks)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 8; i++) {
        uint64_t a = __builtin_ia32_rdtsc(), n = rm_now(), b = __builtin_ia32_rdtsc();
        if (b >= a && b - a < best) {
            best = b - a;
            *ns = n;
            *ticks = a + (b - a) / 2;
        }
    }
}
#endif

void rm_ticks_init(void)
{
    if (rm_ticks_ready)
        return;
    rm_ticks_ready = 1;
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    /* CPUID 0x80000007 EDX bit 8: the counter runs at one rate in every
     * power state (an "invariant" TSC) */
    if (!__get_cpuid(0x80000007, &a, &b, &c, &d) || !(d & (1u << 8)))
        return;
    uint64_t n0 = 0, t0 = 0, n1 = 0, t1 = 0;
    rm_ticks_pair(&n0, &t0);
    do /* 200 us: the pairs' spread is tens of nanoseconds */
        rm_ticks_pair(&n1, &t1);
    while (n1 - n0 < 200000);
    if (t1 <= t0)
        return;
    rm_ticks_per_ns = (double)(t1 - t0) / (double)(n1 - n0);
    rm_ticks_tsc = 1;
#endif
}

uint64_t rm_ticks_of_ns(uint64_t ns)
{
    return (uint64_t)((double)ns * rm_ticks_per_ns + 0.5);
}
