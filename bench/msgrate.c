/* Small-message latency and message rate, osu_latency / osu_mbw_mr style.
 * Ranks pair up: rank 2k sends to rank 2k+1 (2 ranks: one pair, 4 ranks:
 * two pairs running at the same time).
 *   lat:  ping-pong between ranks 0 and 1 (other pairs idle), half round trip.
 *   rate: every sender posts a window of non-blocking sends, its receiver
 *         the matching receives, then the receiver answers with 1 byte;
 *         all pairs' messages per second of the slowest pair's time.
 *   unexp: the same, but every message arrives before its receive is
 *         posted: the sender follows its window with a 1-byte token on
 *         another tag, and the receiver posts the window's receives only
 *         once the token is in (messages between two ranks arrive in
 *         order), so each is matched out of the unexpected queue.
 * Output from rank 0: "lat SIZE USEC", "rate SIZE MSGS_PER_S" and
 * "unexp SIZE MSGS_PER_S" lines.
 * Usage: msgrate [lat_max] [rate_max] [window] [iters] [unexp_max (rate_max)] */
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
    long lat_max = argc > 1 ? atol(argv[1]) : 1024;
    long rate_max = argc > 2 ? atol(argv[2]) : 4096;
    int window = argc > 3 ? atoi(argv[3]) : 64;
    int iters = argc > 4 ? atoi(argv[4]) : 2000;
    long unexp_max = argc > 5 ? atol(argv[5]) : rate_max;
    if (size < 2 || size % 2 || window < 1 || iters < 1) {
        if (!rank)
            fprintf(stderr, "msgrate needs an even number of ranks, a window and iterations\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long max = lat_max > rate_max ? lat_max : rate_max;
    if (unexp_max > max)
        max = unexp_max;
    int sender = rank % 2 == 0, peer = sender ? rank + 1 : rank - 1;
    char *buf = malloc((size_t)max * (size_t)window + 1);
    memset(buf, 1, (size_t)max * (size_t)window + 1);
    MPI_Request *req = malloc(sizeof *req * (size_t)window);
    char ack = 0;

    for (long n = 1; n <= lat_max; n *= 2) {
        int it = iters * 10, warm = it / 10;
        double t0 = 0;
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank < 2) {
            for (int i = 0; i < it + warm; i++) {
                if (i == warm)
                    t0 = MPI_Wtime();
                if (sender) {
                    MPI_Send(buf, (int)n, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
                    MPI_Recv(buf, (int)n, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv(buf, (int)n, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(buf, (int)n, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
                }
            }
            if (!rank)
                printf("lat %ld %.3f\n", n, (MPI_Wtime() - t0) / it / 2 * 1e6);
        }
    }

    /* the windowed rate, then the same with every message unexpected */
    for (int unexp = 0; unexp < 2; unexp++) {
        for (long n = 1; n <= (unexp ? unexp_max : rate_max); n *= 2) {
            int it = n <= 1024 ? iters : iters / 4, warm = it / 10;
            double t0 = 0;
            for (int i = 0; i < it + warm; i++) {
                if (i == warm) {
                    MPI_Barrier(MPI_COMM_WORLD);
                    t0 = MPI_Wtime();
                }
                if (unexp && !sender) /* the window is in once its token is */
                    MPI_Recv(&ack, 1, MPI_CHAR, peer, 102, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                for (int w = 0; w < window; w++) {
                    char *p = buf + (size_t)w * (size_t)n;
                    if (sender)
                        MPI_Isend(p, (int)n, MPI_CHAR, peer, 100, MPI_COMM_WORLD, &req[w]);
                    else
                        MPI_Irecv(p, (int)n, MPI_CHAR, peer, 100, MPI_COMM_WORLD, &req[w]);
                }
                if (unexp && sender)
                    MPI_Send(&ack, 1, MPI_CHAR, peer, 102, MPI_COMM_WORLD);
                MPI_Waitall(window, req, MPI_STATUSES_IGNORE);
                if (sender)
                    MPI_Recv(&ack, 1, MPI_CHAR, peer, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                else
                    MPI_Send(&ack, 1, MPI_CHAR, peer, 101, MPI_COMM_WORLD);
            }
            /* all messages over the slowest pair's time: pairs that did not
             * overlap (one descheduled while the other ran) are not counted twice */
            double t = MPI_Wtime() - t0, tmax = 0;
            MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
            if (!rank)
                printf("%s %ld %.0f\n", unexp ? "unexp" : "rate", n, (double)window * it * (size / 2) / tmax);
        }
    }
    free(req);
    free(buf);
    MPI_Finalize();
    return 0;
}
