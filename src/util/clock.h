/* Clocks: monotonic time for timers (heartbeats, backoff, partition
 * timeouts) and wall-clock time for event lines a person lines up with
 * other logs. */
#ifndef RM_UTIL_CLOCK_H
#define RM_UTIL_CLOCK_H

#include <stdint.h>
#include <time.h>

#define RM_MS ((uint64_t)1000000)
#define RM_SEC ((uint64_t)1000000000)

/* Nanoseconds since an arbitrary start; never goes back. */
static inline uint64_t rm_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * RM_SEC + (uint64_t)ts.tv_nsec;
}

/* A cheaper clock for the per-message path, where rm_now's
 * clock_gettime (80-odd cycles on a virtual machine) is a measurable part of
 * a small message's cost: the x86 time-stamp counter where it runs at a
 * constant rate (CPUID's invariant TSC), else rm_now's nanoseconds. Only
 * differences of two readings in one process mean anything, turned into or
 * out of nanoseconds with rm_ticks_of_ns; counters that differ between
 * cores can make an interval look longer or below zero (a huge unsigned
 * difference), never shorter, so callers read a short interval as "just
 * now" and anything else as "a while ago". */
#if defined(__x86_64__) || defined(__i386__)
extern int rm_ticks_tsc; /* the time-stamp counter is in use (rm_ticks_init) */
static inline uint64_t rm_ticks(void)
{
    return rm_ticks_tsc ? __builtin_ia32_rdtsc() : rm_now();
}
#else
static inline uint64_t rm_ticks(void)
{
    return rm_now();
}
#endif
/* Calibrates once (about 200 us, the first call); later calls are free. */
void rm_ticks_init(void);
/* Ticks in `ns` nanoseconds (rm_ticks_init first). */
uint64_t rm_ticks_of_ns(uint64_t ns);

/* A short wait inside a polling loop that tells the core so (x86 PAUSE,
 * Arm YIELD): tens of nanoseconds, an exact length it does not promise. */
static inline void rm_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
    __asm__ __volatile__("yield" ::: "memory");
#else
    __asm__ __volatile__("" ::: "memory");
#endif
}

/* Seconds since the Unix epoch, with microseconds. */
static inline double rm_wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)(ts.tv_nsec / 1000) * 1e-6;
}

#endif
