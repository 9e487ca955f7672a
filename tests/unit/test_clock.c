/* rm_ticks (src/util/clock.h): the tick clock the tcp transport times bursts
 * of small frames with. Once calibrated, rm_ticks_of_ns turns nanoseconds
 * into ticks at the rate the clock really runs (checked against
 * CLOCK_MONOTONIC over sleeps of 2 and 20 ms), readings do not go back in
 * one thread, and a short interval stays short: what tcp_send's "within
 * RAILMPI_TCP_BURST_NS of the last send" needs. */
#include "util/clock.h"

#include <stdio.h>
#include <time.h>

static int fails;

/* one measurement: ticks counted over a sleep of ms against the ticks
 * expected from CLOCK_MONOTONIC, as a ratio */
static double rate_once(long ms, uint64_t *ns)
{
    struct timespec d = {0, ms * 1000000L};
    uint64_t n0 = rm_now(), t0 = rm_ticks();
    nanosleep(&d, NULL);
    uint64_t t1 = rm_ticks(), n1 = rm_now();
    *ns = n1 - n0;
    return (double)(t1 - t0) / (double)rm_ticks_of_ns(n1 - n0);
}

static void rate_check(long ms)
{
    /* the two clocks are read a few hundred nanoseconds apart at each end,
     * unless the process is preempted in between: the best of three tries */
    double best = 0;
    uint64_t ns = 0;
    for (int i = 0; i < 3; i++) {
        uint64_t n;
        double r = rate_once(ms, &n);
        if (i == 0 || (r > 1 ? r - 1 : 1 - r) < (best > 1 ? best - 1 : 1 - best)) {
            best = r;
            ns = n;
        }
    }
    if (best < 0.97 || best > 1.03) {
        printf("FAIL: %ld ms slept: %.3f x the ticks expected from %llu ns\n", ms, best, (unsigned long long)ns);
        fails++;
    }
}

int main(void)
{
    rm_ticks_init();
    rm_ticks_init(); /* a second call changes nothing */
    uint64_t per_us = rm_ticks_of_ns(1000);
    if (per_us < 1) {
        printf("FAIL: a microsecond is %llu ticks\n", (unsigned long long)per_us);
        fails++;
    }
    if (rm_ticks_of_ns(0) != 0 || rm_ticks_of_ns(2000000) < 1999 * per_us ||
        rm_ticks_of_ns(2000000) > 2001 * per_us) {
        printf("FAIL: rm_ticks_of_ns is not linear (1 us: %llu ticks, 2 ms: %llu)\n",
               (unsigned long long)per_us, (unsigned long long)rm_ticks_of_ns(2000000));
        fails++;
    }
    rate_check(2);
    rate_check(20);
    uint64_t prev = rm_ticks();
    for (int i = 0; i < 1000000; i++) {
        uint64_t t = rm_ticks();
        if (t < prev) {
            printf("FAIL: the tick clock went back by %llu\n", (unsigned long long)(prev - t));
            fails++;
            break;
        }
        prev = t;
    }
    /* back-to-back readings are far apart from a burst window of 1 us; the
     * closest of many pairs, since a shared machine may preempt between any two */
    uint64_t gap = UINT64_MAX;
    for (int i = 0; i < 1000; i++) {
        uint64_t a = rm_ticks(), b = rm_ticks();
        if (b - a < gap)
            gap = b - a;
    }
    if (gap >= rm_ticks_of_ns(1000)) {
        printf("FAIL: two readings in a row are at best %llu ticks apart (1 us: %llu)\n",
               (unsigned long long)gap, (unsigned long long)rm_ticks_of_ns(1000));
        fails++;
    }
    printf("tick clock: %s, %llu ticks per microsecond\n",
#if defined(__x86_64__) || defined(__i386__)
           rm_ticks_tsc ? "time-stamp counter" : "CLOCK_MONOTONIC",
#else
           "CLOCK_MONOTONIC",
#endif
           (unsigned long long)per_us);
    if (fails)
        printf("%d check(s) failed\n", fails);
    else
        printf("all clock checks passed\n");
    return fails != 0;
}
