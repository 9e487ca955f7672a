/* Process fault tolerance, for bench/ulfm.sh (run under mpiexec
 * -disable-auto-cleanup): the latency of MPIX_Comm_agree against an
 * MPI_Allreduce of one int (the slowest rank's mean, us), then the time
 * from a rank's death to a working shrunk communicator: the last rank
 * notes the time, tells rank 0 and kills itself (SIGKILL); the survivors
 * run barriers until one fails, shrink, and run a barrier on the new
 * communicator. MPI_Wtime is CLOCK_MONOTONIC, one clock for all the ranks
 * of a machine (virtual hosts included). Output from rank 0:
 *   agree US allreduce US
 *   death RANKS detected MS shrunk MS   (the slowest survivor, from the death)
 * Usage: ulfm [ITERATIONS] */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, iters = argc > 1 ? atoi(argv[1]) : 2000;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    double t[2], tmax[2];
    for (int warm = 0; warm < 2; warm++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++) {
            int flag = 1;
            MPIX_Comm_agree(MPI_COMM_WORLD, &flag);
        }
        t[0] = (MPI_Wtime() - t0) / iters * 1e6;
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++) {
            int one = 1, sum;
            MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        }
        t[1] = (MPI_Wtime() - t0) / iters * 1e6;
    }
    MPI_Reduce(t, tmax, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("agree %.2f allreduce %.2f\n", tmax[0], tmax[1]);
        fflush(stdout);
    }

    double killed = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == size - 1) {
        killed = MPI_Wtime();
        MPI_Send(&killed, 1, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD);
        raise(SIGKILL);
    }
    if (rank == 0 && MPI_Recv(&killed, 1, MPI_DOUBLE, size - 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
        printf("death: the victim's time did not arrive\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    while (MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS)
        ;
    double seen = MPI_Wtime();
    MPI_Comm s;
    if (MPIX_Comm_shrink(MPI_COMM_WORLD, &s) != MPI_SUCCESS || MPI_Barrier(s) != MPI_SUCCESS) {
        printf("rank %d: shrink failed\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double done[2] = {seen, MPI_Wtime()}, last[2];
    MPI_Reduce(done, last, 2, MPI_DOUBLE, MPI_MAX, 0, s);
    if (rank == 0)
        printf("death %d detected %.2f shrunk %.2f\n", size, (last[0] - killed) * 1e3, (last[1] - killed) * 1e3);
    MPI_Comm_free(&s);
    MPI_Finalize();
    return 0;
}
