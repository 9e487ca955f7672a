/* ranks: 2 3 4 */
/* With the default settings on one host, a nonblocking (and a persistent)
 * collective advances while a rank computes without calling MPI: the last
 * rank starts an MPI_Iallreduce of 1 MiB (a ring: several rounds, each
 * waiting for the one before) and then spins on the CPU for a second; the
 * other ranks' waits end long before that second is over, and every rank
 * gets the exact sums. The same with MPI_Allreduce_init + MPI_Start. */
#include "check.h"

#include <stdlib.h>
#include <time.h>

#define BUSY_S 1.0
#define LIMIT_S 0.5

static int rank, size;
static volatile double sink;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* compute without entering MPI */
static void busy(double secs)
{
    double t0 = now(), x = 1.0;
    while (now() - t0 < secs)
        for (int i = 0; i < 10000; i++)
            x = x * 1.0000001 + 1e-9;
    sink = x;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    enum { N = 1 << 18 }; /* 1 MiB of ints */
    int *x = calloc(N, sizeof(int)), *y = calloc(N, sizeof(int));
    int busier = size - 1;
    /* first contact between the ranks outside the timed rounds */
    MPI_Allreduce(MPI_IN_PLACE, x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Request prq;
    MPI_Allreduce_init(x, y, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &prq);
    for (int round = 0; round < 4; round++) {
        int persistent = round >= 2;
        for (int i = 0; i < N; i++) {
            x[i] = (rank + 1) * (i % 1000) + round;
            y[i] = -1;
        }
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Request rq;
        double t0 = now();
        if (persistent)
            MPI_Start(&prq);
        else
            MPI_Iallreduce(x, y, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq);
        if (rank == busier)
            busy(BUSY_S);
        MPI_Wait(persistent ? &prq : &rq, MPI_STATUS_IGNORE);
        double dt = now() - t0;
        for (int i = 0; i < N; i++)
            CHECK(y[i] == size * (size + 1) / 2 * (i % 1000) + size * round,
                  "round %d: [%d] = %d", round, i, y[i]);
        CHECK(rank == busier || dt < LIMIT_S,
              "round %d (%s): rank %d waited %.3f s while rank %d computed %.1f s outside MPI", round,
              persistent ? "persistent" : "nonblocking", rank, dt, busier, BUSY_S);
    }
    MPI_Request_free(&prq);
    free(x);
    free(y);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("coll_nb_progress: OK (%d ranks)\n", size);
    MPI_Finalize();
    return 0;
}
