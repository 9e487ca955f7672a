/* Deaths found by the ranks themselves, with no launcher that reports them
 * (tests/scripts/ulfm_detect.sh; docs/ulfm.md, "Launchers"). The last rank
 * kills itself (SIGKILL) once every pair of ranks has exchanged a message;
 * the survivors check that
 *  - rank 0, blocked in a receive from it, gets MPIX_ERR_PROC_FAILED within
 *    a few seconds,
 *  - the others, outside MPI but for MPIX_Comm_get_failed every
 *    millisecond, see it in the failed group within a few seconds,
 *  - MPIX_Comm_shrink gives a communicator of the survivors that works;
 *    with an argument, they keep working on it (100 rounds of an allreduce
 *    and 10 ms of sleep per second asked): whether the launcher lets the
 *    survivors live.
 * Rank 0 prints "OK ulfm_detect" at the end. */
#include <mpi.h>

#define CHECK_ENDS_THIS_PROCESS
#include "../mpi/check.h"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int rank;

int main(int argc, char **argv)
{
    int size, x = 0, victim;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 3, "run with at least 3 ranks, not %d", size);
    victim = size - 1;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* every pair talks once, so that every channel has its paths */
    for (int d = 1; d < size; d++) {
        int to = (rank + d) % size, from = (rank - d + size) % size, y = -1;
        MPI_Sendrecv(&rank, 1, MPI_INT, to, 5, &y, 1, MPI_INT, from, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(y == from, "pair exchange: got %d from %d", y, from);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == victim)
        raise(SIGKILL);

    double t0 = MPI_Wtime();
    if (rank == 0) {
        int rc = MPI_Recv(&x, 1, MPI_INT, victim, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        double took = MPI_Wtime() - t0;
        CHECK(check_class(rc) == MPIX_ERR_PROC_FAILED, "receive from the dead rank: class %d, not %d", check_class(rc),
              MPIX_ERR_PROC_FAILED);
        CHECK(took < 5.0, "the receive from the dead rank took %.2f s", took);
        printf("rank 0: receive from the dead rank failed after %.3f s\n", took);
        fflush(stdout);
    }
    int n = 0;
    MPI_Group g = MPI_GROUP_EMPTY;
    while (n == 0 && MPI_Wtime() - t0 < 10) {
        if (g != MPI_GROUP_EMPTY)
            MPI_Group_free(&g);
        MPIX_Comm_get_failed(MPI_COMM_WORLD, &g);
        MPI_Group_size(g, &n);
        if (n == 0)
            usleep(1000);
    }
    double took = MPI_Wtime() - t0;
    CHECK(n == 1 && took < 5.0, "%d failed processes known %.2f s after the kill", n, took);
    MPI_Group wg;
    int zero = 0, who = -1;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_translate_ranks(g, 1, &zero, wg, &who);
    CHECK(who == victim, "the failed process is world rank %d, not %d", who, victim);
    MPI_Group_free(&wg);
    MPI_Group_free(&g);
    if (rank != 0)
        printf("rank %d: the death known after %.3f s\n", rank, took);
    fflush(stdout);

    MPI_Comm s;
    int rc = MPIX_Comm_shrink(MPI_COMM_WORLD, &s);
    CHECK(rc == MPI_SUCCESS, "MPIX_Comm_shrink: %d", rc);
    int ssize, one = 1, sum = 0;
    MPI_Comm_size(s, &ssize);
    CHECK(ssize == size - 1, "the shrunk communicator has %d ranks, not %d", ssize, size - 1);
    rc = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, s);
    CHECK(rc == MPI_SUCCESS && sum == size - 1, "allreduce on the survivors: rc %d sum %d", rc, sum);
    /* the same number of rounds everywhere, whatever each clock says */
    double keep = argc > 1 ? atof(argv[1]) : 0, t1 = MPI_Wtime();
    for (int round = 0; round < (int)(keep * 100); round++) {
        rc = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, s);
        CHECK(rc == MPI_SUCCESS && sum == size - 1, "allreduce on the survivors, %.1f s on: rc %d sum %d",
              MPI_Wtime() - t1, rc, sum);
        usleep(10000);
    }
    if (keep > 0 && rank == 0)
        printf("rank 0: the survivors worked on for %.0f rounds (%.1f s)\n", keep * 100, MPI_Wtime() - t1);
    MPI_Comm_free(&s);
    MPI_Finalize();
    if (rank == 0) {
        printf("OK ulfm_detect\n");
        fflush(stdout);
    }
    return 0;
}
