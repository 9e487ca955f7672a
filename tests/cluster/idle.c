/* An idle job for the health-cost tests: every rank connects to every other
 * (one MPI_Alltoall, and a round of point-to-point messages on every rail's
 * paths), says so, then computes nothing for SECONDS outside MPI, and ends.
 *   idle SECONDS
 * Rank 0 prints "connected UNIXTIME" when everyone is; every rank prints
 * "rank R pid P" first, so a test can find a rank's process. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    setvbuf(stdout, NULL, _IOLBF, 0);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    printf("rank %d pid %d\n", rank, (int)getpid());
    double secs = argc > 1 ? atof(argv[1]) : 10;
    int *out = calloc((size_t)size, sizeof *out), *in = calloc((size_t)size, sizeof *in);
    for (int i = 0; i < size; i++)
        out[i] = rank * size + i;
    MPI_Alltoall(out, 1, MPI_INT, in, 1, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < size; i++)
        if (in[i] != i * size + rank) {
            printf("FAIL: alltoall from %d\n", i);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    /* large messages are striped: every rail's path to every peer carries one */
    enum { BIG = 1 << 20 };
    char *sb = calloc(BIG, 1), *rb = calloc(BIG, 1);
    for (int d = 1; d < size; d++) {
        int to = (rank + d) % size, from = (rank - d + size) % size;
        MPI_Sendrecv(sb, BIG, MPI_CHAR, to, 0, rb, BIG, MPI_CHAR, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("connected %ld\n", (long)time(NULL));
    struct timespec ts = {(time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9)};
    while (nanosleep(&ts, &ts) != 0)
        ;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("OK: idle %.1f s\n", secs);
    free(out), free(in), free(sb), free(rb);
    MPI_Finalize();
    return 0;
}
