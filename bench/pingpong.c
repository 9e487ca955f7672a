/* Ping-pong latency, osu_latency style: one-way time (half the round trip)
 * for each size, after warm-up, iterations scaled down for large sizes.
 * Output: "size usec" lines from rank 0. Usage: pingpong [max_bytes] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long max = argc > 1 ? atol(argv[1]) : 1 << 20;
    if (size != 2) {
        if (!rank)
            fprintf(stderr, "pingpong needs exactly 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char *buf = malloc((size_t)max + 1);
    memset(buf, 1, (size_t)max + 1);
    for (long n = 0; n <= max; n = n ? n * 2 : 1) {
        int iters = n <= 8192 ? 20000 : n <= 262144 ? 2000 : 200, warm = iters / 10;
        double t0 = 0;
        for (int i = 0; i < iters + warm; i++) {
            if (i == warm) {
                MPI_Barrier(MPI_COMM_WORLD);
                t0 = MPI_Wtime();
            }
            if (rank == 0) {
                MPI_Send(buf, (int)n, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
                MPI_Recv(buf, (int)n, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, (int)n, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, (int)n, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
            }
        }
        double us = (MPI_Wtime() - t0) / iters / 2 * 1e6;
        if (!rank)
            printf("%ld %.3f\n", n, us);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
