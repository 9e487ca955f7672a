/* railbench: MPI-level latency, bandwidth and bidirectional bandwidth between
 * ranks 0 and 1, as the papers' tests measure them (window of non-blocking
 * operations, warm-up, iterations), with a per-iteration mode that prints
 * one timestamped line per iteration for plotting bandwidth over time.
 * Per-rail figures: run it with RAILMPI_TCP_RAILS naming one rail. */
#include <mpi.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { T_LAT, T_BW, T_BIBW } test_t;

static void usage(void)
{
    fprintf(stderr,
            "usage: mpiexec -n 2 railbench [options]\n"
            "  -t lat|bw|bibw   test (default bw)\n"
            "  -m MIN:MAX       message sizes in bytes, doubling (default 1:4194304)\n"
            "  -w N             window of outstanding messages for bw/bibw (default 64)\n"
            "  -i N             iterations per size (default 100; latency 10000)\n"
            "  -x N             warm-up iterations (default 10)\n"
            "  -T SECONDS       per-iteration mode: run the largest size for this long and print\n"
            "                   'time_s MB/s' for every iteration (bandwidth over time)\n");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    test_t test = T_BW;
    long min = 1, max = 4 << 20;
    int window = 64, iters = -1, warm = 10, opt;
    double timeline = 0;
    while ((opt = getopt(argc, argv, "t:m:w:i:x:T:h")) != -1) {
        switch (opt) {
        case 't':
            test = !strcmp(optarg, "lat") ? T_LAT : !strcmp(optarg, "bibw") ? T_BIBW : T_BW;
            if (strcmp(optarg, "lat") && strcmp(optarg, "bw") && strcmp(optarg, "bibw"))
                goto bad;
            break;
        case 'm':
            if (sscanf(optarg, "%ld:%ld", &min, &max) != 2 || min < 0 || max < min)
                goto bad;
            break;
        case 'w': window = atoi(optarg); break;
        case 'i': iters = atoi(optarg); break;
        case 'x': warm = atoi(optarg); break;
        case 'T': timeline = atof(optarg); break;
        default:
        bad:
            if (!rank)
                usage();
            MPI_Finalize();
            return 2;
        }
    }
    if (size < 2 || window < 1 || warm < 0) {
        if (!rank)
            fprintf(stderr, "railbench: needs 2 ranks and a positive window\n");
        MPI_Finalize();
        return 2;
    }
    if (iters < 0)
        iters = test == T_LAT ? 10000 : 100;
    if (rank > 1) { /* extra ranks only keep the collectives company */
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Finalize();
        return 0;
    }
    size_t bufsize = (size_t)(max ? max : 1) * (size_t)window;
    char *sbuf = malloc(bufsize), *rbuf = malloc(bufsize);
    memset(sbuf, 1, bufsize);
    MPI_Request *req = malloc(sizeof *req * 2 * (size_t)window);
    int peer = !rank;
    if (!rank && !timeline)
        printf("# railbench %s, window %d, %d iterations, %d warm-up\n# size %s\n",
               test == T_LAT ? "latency" : test == T_BW ? "bandwidth" : "bidirectional bandwidth", window,
               iters, warm, test == T_LAT ? "usec" : "MB/s");
    for (long n = timeline ? max : min; n <= max; n = n ? n * 2 : 1) {
        double t0 = 0, start = MPI_Wtime();
        long done = 0;
        for (int it = 0;; it++) {
            int more = it < iters + warm;
            if (timeline) { /* rank 0's clock decides for both */
                if (!rank) {
                    more = MPI_Wtime() - start < timeline;
                    MPI_Send(&more, 1, MPI_INT, 1, 4, MPI_COMM_WORLD);
                } else {
                    MPI_Recv(&more, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                }
            }
            if (!more)
                break;
            if (it == warm && !timeline) {
                /* ranks 0 and 1 only: extra ranks wait in the final barrier */
                char z = 0;
                MPI_Sendrecv(&z, 1, MPI_CHAR, peer, 5, &z, 1, MPI_CHAR, peer, 5, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
                t0 = MPI_Wtime();
            }
            double ti = MPI_Wtime();
            if (test == T_LAT) {
                if (!rank) {
                    MPI_Send(sbuf, (int)n, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
                    MPI_Recv(rbuf, (int)n, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv(rbuf, (int)n, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(sbuf, (int)n, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
                }
            } else {
                int k = 0;
                int sends = test == T_BIBW || !rank, recvs = test == T_BIBW || rank;
                for (int w = 0; w < window; w++) {
                    if (recvs)
                        MPI_Irecv(rbuf + (size_t)w * (size_t)n, (int)n, MPI_CHAR, peer, 2, MPI_COMM_WORLD, &req[k++]);
                    if (sends)
                        MPI_Isend(sbuf + (size_t)w * (size_t)n, (int)n, MPI_CHAR, peer, 2, MPI_COMM_WORLD, &req[k++]);
                }
                MPI_Waitall(k, req, MPI_STATUSES_IGNORE);
                char ack = 0;
                if (!rank)
                    MPI_Recv(&ack, 1, MPI_CHAR, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                else
                    MPI_Send(&ack, 1, MPI_CHAR, peer, 3, MPI_COMM_WORLD);
            }
            if (timeline && !rank) {
                double now = MPI_Wtime(), dt = now - ti;
                double bytes = test == T_LAT ? 2.0 * (double)n : (double)n * window * (test == T_BIBW ? 2 : 1);
                printf("%.6f %.1f\n", now - start, bytes / dt / 1e6);
                fflush(stdout);
            }
            if (it >= warm || timeline)
                done++;
        }
        if (timeline) {
            /* both ranks must leave the loop together */
            break;
        }
        double t = MPI_Wtime() - t0;
        if (!rank) {
            if (test == T_LAT)
                printf("%ld %.3f\n", n, t / (double)done / 2 * 1e6);
            else
                printf("%ld %.1f\n", n, (double)n * window * (double)done * (test == T_BIBW ? 2 : 1) / t / 1e6);
        }
        if (n == 0 && max == 0)
            break;
    }
    free(sbuf);
    free(rbuf);
    free(req);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
