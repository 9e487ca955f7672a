/* Windowed bandwidth, osu_bw style: rank 0 posts a window of 64
 * non-blocking sends, rank 1 the matching receives, then a 1-byte ack.
 * Output: "size MB/s" lines from rank 0 (MB = 1e6 bytes).
 * Usage: bw [max_bytes] [window] */
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
    long max = argc > 1 ? atol(argv[1]) : 4 << 20;
    int window = argc > 2 ? atoi(argv[2]) : 64;
    if (size != 2) {
        if (!rank)
            fprintf(stderr, "bw needs exactly 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char *buf = malloc((size_t)max * (size_t)window);
    memset(buf, 1, (size_t)max * (size_t)window);
    MPI_Request *req = malloc(sizeof *req * (size_t)window);
    char ack;
    for (long n = 1; n <= max; n *= 2) {
        int iters = n <= 65536 ? 100 : 20, warm = n <= 65536 ? 10 : 2;
        double t0 = 0;
        for (int i = 0; i < iters + warm; i++) {
            if (i == warm) {
                MPI_Barrier(MPI_COMM_WORLD);
                t0 = MPI_Wtime();
            }
            for (int w = 0; w < window; w++) {
                char *p = buf + (size_t)w * (size_t)n;
                if (rank == 0)
                    MPI_Isend(p, (int)n, MPI_CHAR, 1, 100, MPI_COMM_WORLD, &req[w]);
                else
                    MPI_Irecv(p, (int)n, MPI_CHAR, 0, 100, MPI_COMM_WORLD, &req[w]);
            }
            MPI_Waitall(window, req, MPI_STATUSES_IGNORE);
            if (rank == 0)
                MPI_Recv(&ack, 1, MPI_CHAR, 1, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            else
                MPI_Send(&ack, 1, MPI_CHAR, 0, 101, MPI_COMM_WORLD);
        }
        double t = MPI_Wtime() - t0;
        if (!rank)
            printf("%ld %.1f\n", n, (double)n * window * iters / t / 1e6);
    }
    free(req);
    free(buf);
    MPI_Finalize();
    return 0;
}
