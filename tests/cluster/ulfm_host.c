/* A resilient loop (tests/fault/proc_ft_host.sh kills a whole host under
 * it): an allreduce per step, whose success every rank agrees on
 * (MPIX_Comm_agree); a failed step revokes the communicator and shrinks it
 * to the survivors, whose later steps must sum to their number. Rank 0
 * prints "ready" once the loop runs; rank 0 of the survivors' communicator
 * "OK ulfm_host N" at the end. */
#include <mpi.h>

#define CHECK_ENDS_THIS_PROCESS
#include "../mpi/check.h"
#include <stdio.h>
#include <unistd.h>

static int rank;

int main(int argc, char **argv)
{
    int size, rc;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm work;
    MPI_Comm_dup(MPI_COMM_WORLD, &work);
    int shrinks = 0, after = 0, steps = 0;
    double t0 = MPI_Wtime();
    while (MPI_Wtime() - t0 < 40) {
        int one = 1, sum = 0, n;
        MPI_Comm_size(work, &n);
        rc = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, work);
        int ok = rc == MPI_SUCCESS;
        CHECK(!ok || sum == n, "step %d: sum %d over %d ranks", steps, sum, n);
        rc = MPIX_Comm_agree(work, &ok);
        if (rc == MPI_SUCCESS && ok) {
            if (++steps == 20 && rank == 0) {
                printf("ready\n");
                fflush(stdout);
            }
            if (shrinks && ++after >= 50)
                break;
            usleep(5000);
            continue;
        }
        MPIX_Comm_revoke(work); /* wake whoever still waits on it */
        MPI_Comm s;
        rc = MPIX_Comm_shrink(work, &s);
        CHECK(rc == MPI_SUCCESS, "shrink: %d", rc);
        MPI_Comm_free(&work);
        work = s;
        MPI_Comm_set_errhandler(work, MPI_ERRORS_RETURN);
        shrinks++;
        MPI_Comm_size(work, &n);
        printf("rank %d: shrunk to %d ranks after step %d\n", rank, n, steps);
        fflush(stdout);
    }
    CHECK(shrinks >= 1 && after >= 50, "%d shrinks, %d steps after them (%.1f s)", shrinks, after, MPI_Wtime() - t0);
    int n, sum = 0, one = 1, wr;
    MPI_Comm_size(work, &n);
    MPI_Comm_rank(work, &wr);
    rc = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, work);
    CHECK(rc == MPI_SUCCESS && sum == n, "the survivors' allreduce: rc %d sum %d of %d", rc, sum, n);
    MPI_Comm_free(&work);
    MPI_Finalize();
    if (wr == 0)
        printf("OK ulfm_host %d\n", n);
    return 0;
}
