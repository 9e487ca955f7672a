/* The tcp transport's rate readings (net/tcp_info.c, tcp_rate_filter): a
 * token bucket's burst read as the rail's rate is not passed on, a lasting
 * change of rate is (a fall at once, a rise within three readings), and
 * readings taken while the sender had too little to send are not kept. */
#include "net/tcp_info.h"

#include <stdio.h>
#include <stdlib.h>

static int fails;

static void expect(const char *what, double got, double want)
{
    if (got != want) {
        printf("FAIL: %s: %.1f, expected %.1f\n", what, got, want);
        fails++;
    }
}

int main(void)
{
    /* a 0.5 Gbit/s rail as the kernel read it under tc tbf (MB/s) */
    tcp_rate_t r = {{0}};
    double slow[] = {60, 97, 543, 60, 620, 84, 3103, 60};
    double want[] = {60, 60, 60, 60, 60, 60, 84, 60}; /* never a burst: at most a real reading */
    for (int i = 0; i < 8; i++) {
        char what[64];
        snprintf(what, sizeof what, "reading %d of the shaped rail", i);
        expect(what, tcp_rate_filter(&r, slow[i], 0), want[i]);
    }
    /* the rail gets faster: the third reading at the new rate passes */
    tcp_rate_t u = {{0}};
    tcp_rate_filter(&u, 60, 0);
    tcp_rate_filter(&u, 60, 0);
    expect("first reading after the rise", tcp_rate_filter(&u, 200, 0), 60);
    expect("second reading after the rise", tcp_rate_filter(&u, 200, 0), 60);
    expect("third reading after the rise", tcp_rate_filter(&u, 200, 0), 200);
    /* and slower again: at once */
    expect("a fall", tcp_rate_filter(&u, 50, 0), 50);
    /* app-limited readings: reported no higher than the path's recent
     * rate, and not kept */
    tcp_rate_t a = {{0}};
    tcp_rate_filter(&a, 100, 0);
    expect("a limited burst", tcp_rate_filter(&a, 3000, 1), 100);
    for (int i = 0; i < 4; i++)
        expect("a limited low reading", tcp_rate_filter(&a, 5, 1), 5);
    expect("the path's rate after limited readings", tcp_rate_filter(&a, 100, 0), 100);
    /* no reading: nothing */
    tcp_rate_t z = {{0}};
    expect("no reading", tcp_rate_filter(&z, 0, 0), 0);
    expect("first reading", tcp_rate_filter(&z, 70, 0), 70);
    if (fails)
        return 1;
    printf("OK\n");
    return 0;
}
