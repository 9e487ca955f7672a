/* Collective timings, the same program built with each MPI (bench/coll.sh).
 *   coll [-o barrier,bcast,reduce,allreduce,allgather,alltoall,reduce_scatter] [-s 8,1024,...]
 *        [-T seconds per point]
 *   coll -O [-W] [-s bytes] [-T seconds]     the overlap measure
 * Prints "op bytes usec" per point: the mean time of one call over a run of
 * calls that lasts about -T seconds (default 0.15), the slowest rank's, the
 * best of three such runs. bytes is the vector of bcast/reduce/allreduce
 * and each rank's block of allgather/alltoall/reduce_scatter (block form;
 * so alltoall of 1 MiB moves 1 MiB to every rank); floats, MPI_SUM; reduce and bcast at root 0.
 * -O: MPI_Iallreduce of -s bytes (default 1 MiB) with a compute loop that
 * lasts as long as the allreduce alone, waited for after the compute; prints
 * "overlap bytes comm_us compute_us both_us ratio", ratio = both / the
 * longer of the other two (1.0: perfect overlap, 2.0: none). With -W the
 * "compute" sleeps instead (a rank waiting for a device or the disk, its
 * core free): whether the collective advances without the caller at all,
 * apart from the cores the computation takes. */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int rank, size;
static float *sbuf, *rbuf;

static void one(const char *op, int bytes)
{
    int n = bytes / (int)sizeof(float);
    if (!strcmp(op, "barrier"))
        MPI_Barrier(MPI_COMM_WORLD);
    else if (!strcmp(op, "bcast"))
        MPI_Bcast(sbuf, bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
    else if (!strcmp(op, "reduce"))
        MPI_Reduce(sbuf, rbuf, n, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);
    else if (!strcmp(op, "allreduce"))
        MPI_Allreduce(sbuf, rbuf, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    else if (!strcmp(op, "allgather"))
        MPI_Allgather(sbuf, bytes, MPI_BYTE, rbuf, bytes, MPI_BYTE, MPI_COMM_WORLD);
    else if (!strcmp(op, "alltoall"))
        MPI_Alltoall(sbuf, bytes, MPI_BYTE, rbuf, bytes, MPI_BYTE, MPI_COMM_WORLD);
    else if (!strcmp(op, "reduce_scatter"))
        MPI_Reduce_scatter_block(sbuf, rbuf, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
}

/* Mean time of one call, the slowest rank's, over iters calls. */
static double run(const char *op, int bytes, int iters)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    for (int i = 0; i < iters; i++)
        one(op, bytes);
    t = (MPI_Wtime() - t) / iters, MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return t;
}

/* How many calls fill `secs`, agreed by everyone. */
static int calibrate(const char *op, int bytes, double secs)
{
    int iters = 1;
    for (;;) {
        double t = run(op, bytes, iters);
        if (t * iters >= secs / 8 || iters >= 1 << 20) {
            int k = (int)(secs / (t > 0 ? t : 1e-7));
            return k < 1 ? 1 : k;
        }
        iters *= 4;
    }
}

static volatile double sink;
static int idle_compute;
static void compute(long loops)
{
    if (idle_compute) { /* loops nanoseconds */
        struct timespec ts = {loops / 1000000000L, loops % 1000000000L};
        while (nanosleep(&ts, &ts))
            ;
        return;
    }
    double x = 1.0;
    for (long i = 0; i < loops; i++)
        x = x * 1.0000001 + 1e-9;
    sink = x;
}

static void overlap(int bytes, double secs)
{
    int n = bytes / (int)sizeof(float);
    MPI_Request r;
    /* the allreduce alone, waited for at once */
    double comm = 1e9, comp = 1e9, both = 1e9;
    for (int i = 0; i < 5; i++) {
        MPI_Iallreduce(sbuf, rbuf, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    int reps = 0;
    for (double spent = 0; spent < secs || reps < 3; reps++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t = MPI_Wtime();
        MPI_Iallreduce(sbuf, rbuf, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        t = MPI_Wtime() - t;
        MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        comm = t < comm ? t : comm;
        spent += t;
    }
    /* a compute loop as long as that (each rank measures its own speed) */
    long loops = 1000;
    for (;;) {
        double t = MPI_Wtime();
        compute(loops);
        t = MPI_Wtime() - t;
        if (t > 0.01) {
            loops = (long)(loops * comm / t);
            break;
        }
        loops *= 2;
    }
    /* every rank computing at once (they share the cores): rescale until
     * the compute takes as long as the allreduce */
    for (int round = 0; round < 3; round++) {
        comp = 1e9;
        for (int i = 0; i < reps; i++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t = MPI_Wtime();
            compute(loops);
            t = MPI_Wtime() - t;
            MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            comp = t < comp ? t : comp;
        }
        if (round < 2)
            loops = (long)(loops * comm / comp);
    }
    for (int i = 0; i < reps; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t = MPI_Wtime();
        MPI_Iallreduce(sbuf, rbuf, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &r);
        compute(loops);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        t = MPI_Wtime() - t;
        MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        both = t < both ? t : both;
    }
    if (rank == 0)
        printf("%s %d %.1f %.1f %.1f %.2f\n", idle_compute ? "overlap-wait" : "overlap", bytes, comm * 1e6, comp * 1e6, both * 1e6,
               both / (comm > comp ? comm : comp));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char ops[256] = "barrier,bcast,reduce,allreduce,allgather,alltoall", sizes[256] = "8,1024,65536,1048576";
    double secs = 0.15;
    int ov = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc)
            snprintf(ops, sizeof ops, "%s", argv[++i]);
        else if (!strcmp(argv[i], "-s") && i + 1 < argc)
            snprintf(sizes, sizeof sizes, "%s", argv[++i]);
        else if (!strcmp(argv[i], "-T") && i + 1 < argc)
            secs = atof(argv[++i]);
        else if (!strcmp(argv[i], "-O"))
            ov = 1;
        else if (!strcmp(argv[i], "-W"))
            idle_compute = 1;
    }
    int most = 0;
    for (char *p = sizes; *p;) {
        int b = atoi(p);
        most = b > most ? b : most;
        p = strchr(p, ',') ? strchr(p, ',') + 1 : p + strlen(p);
    }
    sbuf = malloc((size_t)most * size + 64);
    rbuf = malloc((size_t)most * size + 64);
    memset(sbuf, 1, (size_t)most * size + 64);
    memset(rbuf, 0, (size_t)most * size + 64);
    if (ov) {
        overlap(most, secs * 10);
        MPI_Finalize();
        return 0;
    }
    for (char *o = strtok(ops, ","); o; o = strtok(NULL, ",")) {
        for (char *p = sizes; *p;) {
            int b = atoi(p);
            p = strchr(p, ',') ? strchr(p, ',') + 1 : p + strlen(p);
            if (!strcmp(o, "barrier") && b != atoi(sizes))
                continue; /* one point */
            int iters = calibrate(o, b, secs / 3);
            double best = 1e9;
            for (int k = 0; k < 3; k++) {
                double t = run(o, b, iters);
                best = t < best ? t : best;
            }
            if (rank == 0)
                printf("%s %d %.2f\n", o, !strcmp(o, "barrier") ? 0 : b, best * 1e6);
            fflush(stdout);
        }
    }
    free(sbuf), free(rbuf);
    MPI_Finalize();
    return 0;
}
