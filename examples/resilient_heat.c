/* A heat-equation solver (explicit finite differences on a 1-D rod) that
 * survives the death of ranks, with railmpi's process fault tolerance
 * (docs/ulfm.md):
 *
 *   mpiexec -n 4 -disable-auto-cleanup ./resilient_heat [CELLS [STEPS [EVERY]]]
 *
 * The rod is cut into one block per rank; every step exchanges the blocks'
 * edge cells with the neighbours (the halo) and updates each cell from its
 * neighbours. Every EVERY steps the whole rod is gathered by every rank (an
 * in-memory checkpoint) and the ranks agree (MPIX_Comm_agree) that the
 * interval went well everywhere; only then does the checkpoint count. When
 * a rank dies, the survivors' operations fail, they revoke the
 * communicator (so that no one stays blocked in it), agree that the
 * interval failed, shrink the communicator to the survivors, cut the rod
 * anew from the last checkpoint and go on. Each cell's update depends only
 * on the cells, never on how the rod is cut, so the final rod is the same,
 * bit for bit, however many ranks die: rank 0 prints its checksum. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long cells = 1L << 16, steps = 20000, every = 500;

/* The block of rank r of n: [*lo, *lo + *len). */
static void block(int r, int n, long *lo, long *len)
{
    long base = cells / n, extra = cells % n;
    *lo = r * base + (r < extra ? r : extra);
    *len = base + (r < extra);
}

/* Steps [from, to) on this rank's block u[1..len] (u[0] and u[len+1] are
 * the halo; the rod's ends are held at 0). */
static int advance(MPI_Comm c, double *u, double *v, long len, long from, long to)
{
    int rank, n;
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &n);
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL, right = rank < n - 1 ? rank + 1 : MPI_PROC_NULL;
    for (long s = from; s < to; s++) {
        u[0] = u[len + 1] = 0.0;
        int rc = MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 1, &u[len + 1], 1, MPI_DOUBLE, right, 1, c,
                              MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS)
            rc = MPI_Sendrecv(&u[len], 1, MPI_DOUBLE, right, 2, &u[0], 1, MPI_DOUBLE, left, 2, c,
                              MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return rc;
        for (long i = 1; i <= len; i++)
            v[i] = u[i] + 0.25 * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
        memcpy(&u[1], &v[1], sizeof(double) * (size_t)len);
    }
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc > 1)
        cells = atol(argv[1]);
    if (argc > 2)
        steps = atol(argv[2]);
    if (argc > 3)
        every = atol(argv[3]);
    int wrank;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    printf("rank %d pid %d\n", wrank, (int)getpid());
    fflush(stdout);

    /* the committed checkpoint: the whole rod at step `done` */
    double *ckpt = malloc(sizeof(double) * (size_t)cells), *next = malloc(sizeof(double) * (size_t)cells);
    for (long i = 0; i < cells; i++) /* a hot spot in the middle */
        ckpt[i] = i > cells / 3 && i < 2 * cells / 3 ? 100.0 : 0.0;
    long done = 0;
    int recoveries = 0;
    MPI_Comm work;
    MPI_Comm_dup(MPI_COMM_WORLD, &work);
    while (done < steps) {
        int rank, n;
        MPI_Comm_rank(work, &rank);
        MPI_Comm_size(work, &n);
        long lo, len;
        block(rank, n, &lo, &len);
        double *u = malloc(sizeof(double) * (size_t)(len + 2)), *v = malloc(sizeof(double) * (size_t)(len + 2));
        memcpy(&u[1], &ckpt[lo], sizeof(double) * (size_t)len);
        long to = done + every < steps ? done + every : steps;
        int rc = advance(work, u, v, len, done, to);
        if (rc == MPI_SUCCESS) {
            int *counts = malloc(sizeof(int) * (size_t)n), *displs = malloc(sizeof(int) * (size_t)n);
            for (int r = 0; r < n; r++) {
                long l, k;
                block(r, n, &l, &k);
                displs[r] = (int)l;
                counts[r] = (int)k;
            }
            rc = MPI_Allgatherv(&u[1], (int)len, MPI_DOUBLE, next, counts, displs, MPI_DOUBLE, work);
            free(counts);
            free(displs);
        }
        free(u);
        free(v);
        int ok = rc == MPI_SUCCESS;
        if (!ok)
            MPIX_Comm_revoke(work); /* no survivor stays blocked in this interval */
        rc = MPIX_Comm_agree(work, &ok);
        if (rc == MPI_SUCCESS && ok) {
            double *t = ckpt; /* the interval counts everywhere */
            ckpt = next;
            next = t;
            done = to;
            if (rank == 0 && done % (every * 10) == 0) {
                printf("checkpoint at step %ld on %d ranks\n", done, n);
                fflush(stdout);
            }
            continue;
        }
        /* someone died: start again from the checkpoint on the survivors */
        MPI_Comm survivors;
        MPIX_Comm_shrink(work, &survivors);
        MPI_Comm_free(&work);
        work = survivors;
        MPI_Comm_set_errhandler(work, MPI_ERRORS_RETURN);
        recoveries++;
        int m;
        MPI_Comm_size(work, &m);
        MPI_Comm_rank(work, &rank);
        if (rank == 0) {
            printf("recovered: %d ranks go on from step %ld\n", m, done);
            fflush(stdout);
        }
    }
    int rank;
    MPI_Comm_rank(work, &rank);
    if (rank == 0) {
        double sum = 0.0, weighted = 0.0;
        for (long i = 0; i < cells; i++) {
            sum += ckpt[i];
            weighted += ckpt[i] * (double)(i % 97);
        }
        printf("result: %ld cells, %ld steps, checksum %.17g %.17g (%d recoveries)\n", cells, steps, sum, weighted,
               recoveries);
    }
    MPI_Comm_free(&work);
    free(ckpt);
    free(next);
    MPI_Finalize();
    return 0;
}
