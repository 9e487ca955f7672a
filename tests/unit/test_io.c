/* The two-phase plan without processes or files: aggregators one per host
 * first (hosts interleaved or in blocks, cb_nodes below, at and above the
 * number of hosts), and file domains that cover the common range exactly,
 * in order, without overlap, aligned to striping_unit when it is set. */
#include "io/io.h"

#include <stdio.h>
#include <stdlib.h>

#define FAIL(...) do { printf("FAIL: " __VA_ARGS__); printf("\n"); exit(1); } while (0)

static void check_pick(const int *hostof, int size, int nhosts, int want, const int *expect, int n)
{
    int aggr[64];
    int got = io_tp_pick(hostof, size, nhosts, want, aggr);
    if (got != n)
        FAIL("pick(want %d): %d aggregators, want %d", want, got, n);
    for (int i = 0; i < n; i++)
        if (aggr[i] != expect[i])
            FAIL("pick(want %d): aggregator %d is rank %d, want %d", want, i, aggr[i], expect[i]);
}

static void check_domains(MPI_Offset gmin, MPI_Offset gmax, int naggr, MPI_Offset su)
{
    MPI_Offset base, fd, reach = gmin;
    io_tp_split(gmin, gmax, naggr, su, &base, &fd);
    for (int a = 0; a < naggr; a++) {
        MPI_Offset lo, hi;
        io_tp_domain_of(base, fd, gmin, gmax, a, &lo, &hi);
        if (lo == hi)
            continue;
        if (lo != reach)
            FAIL("[%ld,%ld) over %d su %ld: domain %d starts at %ld, want %ld", (long)gmin, (long)gmax,
                 naggr, (long)su, a, (long)lo, (long)reach);
        if (su > 0 && lo != gmin && lo % su)
            FAIL("domain %d starts at %ld, not a multiple of %ld", a, (long)lo, (long)su);
        if (hi - lo > fd)
            FAIL("domain %d is %ld bytes, more than %ld", a, (long)(hi - lo), (long)fd);
        reach = hi;
    }
    if (reach != gmax)
        FAIL("[%ld,%ld) over %d su %ld: domains end at %ld", (long)gmin, (long)gmax, naggr, (long)su,
             (long)reach);
}

int main(void)
{
    /* 2 hosts, ranks placed round-robin: 0 2 4 on host 0, 1 3 5 on host 1 */
    int rr[6] = {0, 1, 0, 1, 0, 1};
    check_pick(rr, 6, 2, 2, (int[]){0, 1}, 2);
    check_pick(rr, 6, 2, 1, (int[]){0}, 1);
    check_pick(rr, 6, 2, 3, (int[]){0, 1, 2}, 3);
    check_pick(rr, 6, 2, 99, (int[]){0, 1, 2, 3, 4, 5}, 6);
    /* 3 hosts in blocks of unequal size */
    int blk[7] = {0, 0, 0, 1, 1, 2, 2};
    check_pick(blk, 7, 3, 3, (int[]){0, 3, 5}, 3);
    check_pick(blk, 7, 3, 5, (int[]){0, 3, 5, 1, 4}, 5);
    check_pick(blk, 7, 3, 0, (int[]){0}, 1);
    /* one host */
    int one[4] = {0, 0, 0, 0};
    check_pick(one, 4, 1, 1, (int[]){0}, 1);

    for (int naggr = 1; naggr <= 5; naggr++) {
        check_domains(0, 1000, naggr, 0);
        check_domains(37, 1001, naggr, 0);
        check_domains(37, 1001, naggr, 64);
        check_domains(4096, 4097, naggr, 0);
        check_domains(100, 100 + 3 * 65536 + 5, naggr, 65536);
        check_domains(5, 9, naggr, 1 << 20);
    }
    printf("OK test_io\n");
    return 0;
}
