/* ranks: 2 3 4 */
/* A rank that computes outside MPI after MPI_Iallreduce does not hold the
 * others back: with the asynchronous progress thread on, its schedule
 * advances while it sleeps, and the other ranks' waits end long before it
 * calls MPI again. */
#include "check.h"

#include <stdlib.h>
#include <time.h>

static int rank, size;

#define SLEEP_S 0.8
#define LIMIT_S 0.5

int main(int argc, char **argv)
{
    setenv("RAILMPI_ASYNC_PROGRESS", "on", 1);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    enum { N = 4096 };
    double *x = calloc(N, sizeof(double)), *y = calloc(N, sizeof(double));
    int sleeper = size - 1;
    /* first contact between the ranks (connections, single-copy set-up)
     * outside the timed rounds */
    MPI_Allreduce(x, y, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < N; i++)
            x[i] = rank + i;
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Request rq;
        double t0 = MPI_Wtime();
        MPI_Iallreduce(x, y, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &rq);
        if (rank == sleeper) {
            struct timespec ts = {0, (long)(SLEEP_S * 1e9)};
            while (nanosleep(&ts, &ts))
                ;
        }
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        double dt = MPI_Wtime() - t0;
        for (int i = 0; i < N; i++)
            CHECK(y[i] == size * (size - 1) / 2.0 + (double)size * i, "sum [%d] = %g", i, y[i]);
        if (rank != sleeper)
            CHECK(dt < LIMIT_S, "round %d: waited %.3f s for a rank that computes %.1f s", round, dt,
                  SLEEP_S);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("coll_nb_async: OK (%d ranks)\n", size);
    free(x);
    free(y);
    MPI_Finalize();
    return 0;
}
