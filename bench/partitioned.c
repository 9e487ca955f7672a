/* Partitioned communication against one send after the compute: rank 0's
 * four threads fill a 16 MiB buffer partition by partition, with some
 * compute per element; rank 1 receives it. "part": each partition is
 * marked ready (MPI_Pready) as soon as its thread has filled it; "isend":
 * the threads finish, then one MPI_Isend sends the whole buffer. The figure
 * is the time from the sender's start (after a common barrier) to the
 * last byte at the receiver (MPI_Wait returning there), read on the host's
 * monotonic clock (both ranks on one host), the best of the repetitions,
 * in microseconds; also the fill time alone on the sender.
 * Built with -DBENCH_NO_PARTITIONED for an MPI without MPI-4 partitioned
 * communication (Debian's Open MPI 4.1): only "isend" runs, "part" is -1.
 *   partitioned [PARTITIONS [WORK [REPS]]]   (defaults 64, 20, 10) */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NT 4
#define BYTES (16 << 20)

static double *buf;
static int nparts, work;
static long per; /* doubles per partition */
static MPI_Request req;
static int use_part;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *fill(void *arg)
{
    int t = (int)(long)arg;
    for (int q = t * (nparts / NT); q < (t + 1) * (nparts / NT); q++) {
        for (long i = q * per; i < (q + 1) * per; i++) {
            double x = (double)i;
            for (int k = 0; k < work; k++)
                x = x * 0.999999 + 1.0;
            buf[i] = x;
        }
#ifndef BENCH_NO_PARTITIONED
        if (use_part)
            MPI_Pready(q, req);
#endif
    }
    return NULL;
}

static double run(int rank, int part)
{
#ifdef BENCH_NO_PARTITIONED
    if (part)
        return -1e-6;
#endif
    pthread_t th[NT];
    use_part = part;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now();
    if (rank == 0) {
        if (part)
            MPI_Start(&req);
        for (long t = 0; t < NT; t++)
            pthread_create(&th[t], NULL, fill, (void *)t);
        for (int t = 0; t < NT; t++)
            pthread_join(th[t], NULL);
        if (part) {
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else {
            MPI_Request r;
            MPI_Isend(buf, BYTES / 8, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        }
    } else if (part) {
        MPI_Start(&req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(buf, BYTES / 8, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    double t1 = now();
    /* the sender's start is the reference */
    if (rank == 0)
        MPI_Send(&t0, 1, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD);
    else if (rank == 1)
        MPI_Recv(&t0, 1, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double t = t1 - t0;
    if (rank == 1)
        for (long i = 0; i < BYTES / 8; i += per) /* spot check */
            if (buf[i] == 0.0) {
                fprintf(stderr, "partitioned: element %ld not received\n", i);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
    return t;
}

int main(int argc, char **argv)
{
    int provided, rank, reps;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    nparts = argc > 1 ? atoi(argv[1]) : 64;
    work = argc > 2 ? atoi(argv[2]) : 20;
    reps = argc > 3 ? atoi(argv[3]) : 10;
    if (provided < MPI_THREAD_MULTIPLE || nparts % NT) {
        if (rank == 0)
            fprintf(stderr, "partitioned: needs MPI_THREAD_MULTIPLE and partitions %% %d == 0\n", NT);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    per = BYTES / 8 / nparts;
    buf = calloc(BYTES / 8, 8);
#ifndef BENCH_NO_PARTITIONED
    if (rank == 0)
        MPI_Psend_init(buf, nparts, per, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    else if (rank == 1)
        MPI_Precv_init(buf, nparts, per, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
#endif
    double best_part = 1e30, best_isend = 1e30, best_fill = 1e30;
    for (int r = 0; r < reps; r++) {
        double tp = run(rank, 1), ti = run(rank, 0);
        best_part = tp < best_part ? tp : best_part;
        best_isend = ti < best_isend ? ti : best_isend;
    }
    /* the fill alone, for reference */
    if (rank == 0)
        for (int r = 0; r < reps; r++) {
            pthread_t th[NT];
            use_part = 0;
            double t0 = now();
            for (long t = 0; t < NT; t++)
                pthread_create(&th[t], NULL, fill, (void *)t);
            for (int t = 0; t < NT; t++)
                pthread_join(th[t], NULL);
            double t = now() - t0;
            best_fill = t < best_fill ? t : best_fill;
        }
    MPI_Bcast(&best_fill, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 1)
        printf("part %.0f\nisend %.0f\nfill %.0f\n", best_part * 1e6, best_isend * 1e6,
               best_fill * 1e6);
#ifndef BENCH_NO_PARTITIONED
    if (rank < 2)
        MPI_Request_free(&req);
#endif
    free(buf);
    MPI_Finalize();
    return 0;
}
