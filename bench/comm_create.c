/* Communicator creation timings, the same program built with each MPI
 * (bench/comm_create.sh).
 *   comm_create [-n most calls per point] [-T seconds per point]
 * Prints "op usec" per point: the mean time of one creation followed by its
 * MPI_Comm_free, the slowest rank's, over as many calls as take about -T
 * seconds (default 0.3; counted from a first run of 16) and at most -n
 * (default 2000).
 *   dup      MPI_Comm_dup of MPI_COMM_WORLD
 *   create   MPI_Comm_create with MPI_COMM_WORLD's group
 *   split    MPI_Comm_split by parity
 *   idup     MPI_Comm_idup of MPI_COMM_WORLD, then MPI_Wait
 *   idup4x   four MPI_Comm_idup at once on four parents, started in
 *            opposite orders on even and odd ranks, then MPI_Waitall (per
 *            creation) */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

/* The slowest rank's mean time of one creation over n. */
static double run(const char *op, int n, MPI_Comm *par, MPI_Group g)
{
    MPI_Comm c[4];
    MPI_Request r[4];
    MPI_Status st[4];
    int per = !strcmp(op, "idup4x") ? 4 : 1;
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    for (int i = 0; i < n; i += per) {
        if (!strcmp(op, "dup")) {
            MPI_Comm_dup(MPI_COMM_WORLD, &c[0]);
        } else if (!strcmp(op, "create")) {
            MPI_Comm_create(MPI_COMM_WORLD, g, &c[0]);
        } else if (!strcmp(op, "split")) {
            MPI_Comm_split(MPI_COMM_WORLD, rank % 2, 0, &c[0]);
        } else if (!strcmp(op, "idup")) {
            MPI_Comm_idup(MPI_COMM_WORLD, &c[0], &r[0]);
            MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        } else {
            for (int k = 0; k < 4; k++) {
                int p = rank % 2 ? 3 - k : k;
                MPI_Comm_idup(par[p], &c[p], &r[k]);
            }
            MPI_Waitall(4, r, st);
        }
        for (int k = 0; k < per; k++)
            MPI_Comm_free(&c[k]);
    }
    double us = (MPI_Wtime() - t) / n * 1e6, worst;
    MPI_Allreduce(&us, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

static void point(const char *op, int most, double secs, MPI_Comm *par)
{
    MPI_Group g;
    MPI_Comm_group(MPI_COMM_WORLD, &g);
    double first = run(op, 16, par, g);
    int n = (int)(secs * 1e6 / (first > 0.01 ? first : 0.01));
    n = n < 16 ? 16 : n > most ? most : n;
    double us = run(op, (n + 3) / 4 * 4, par, g);
    MPI_Group_free(&g);
    if (rank == 0) {
        printf("%s %.3f\n", op, us);
        fflush(stdout); /* kept if a later point fails */
    }
}

int main(int argc, char **argv)
{
    int n = 2000;
    double secs = 0.3;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "-n") && i + 1 < argc)
            n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-T") && i + 1 < argc)
            secs = atof(argv[++i]);
    MPI_Comm par[4];
    for (int k = 0; k < 4; k++)
        MPI_Comm_dup(MPI_COMM_WORLD, &par[k]);
    const char *ops[] = {"dup", "create", "split", "idup", "idup4x"};
    for (int i = 0; i < 5; i++)
        point(ops[i], n, secs, par);
    for (int k = 0; k < 4; k++)
        MPI_Comm_free(&par[k]);
    MPI_Finalize();
    return 0;
}
