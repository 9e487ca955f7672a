/* The message fast path for bench/callcount.sh, run under valgrind's
 * callgrind, which counts instructions (the same count on a busy machine):
 * twice, rank 1 posts N receives of 1 byte, then rank 0 sends N 1-byte
 * messages with MPI_Isend and completes them with MPI_Wait (eager: done at
 * once). Each call's cost is deterministic: no call here waits for the peer.
 * Rank 1's waits are left out of the count (how many messages one progress
 * pass finds depends on timing; they ask for a status, and the standard
 * ABI's translation layer's own cost for that is exact). Then, twice, rank 0
 * sends N 1-byte messages with MPI_Send, which rank 1 receives with MPI_Recv
 * after a barrier, and both ranks run N MPI_Allreduce of one int: those
 * counts include what a progress pass finds, the layer's own cost does not
 * depend on it. */
#include <mpi.h>
#include <stdio.h>
#define N 1000
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    static char buf[N];
    static MPI_Request rq[N];
    for (int rep = 0; rep < 2; rep++) {
        if (rank == 1)
            for (int i = 0; i < N; i++)
                MPI_Irecv(&buf[i], 1, MPI_CHAR, 0, i, MPI_COMM_WORLD, &rq[i]);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            for (int i = 0; i < N; i++)
                MPI_Isend(&buf[i], 1, MPI_CHAR, 1, i, MPI_COMM_WORLD, &rq[i]);
            for (int i = 0; i < N; i++)
                MPI_Wait(&rq[i], MPI_STATUS_IGNORE);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1)
            for (int i = 0; i < N; i++) {
                MPI_Status st;
                MPI_Wait(&rq[i], &st);
            }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    for (int rep = 0; rep < 2; rep++) {
        if (rank == 0)
            for (int i = 0; i < N; i++)
                MPI_Send(&buf[i], 1, MPI_CHAR, 1, i, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1)
            for (int i = 0; i < N; i++)
                MPI_Recv(&buf[i], 1, MPI_CHAR, 0, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    for (int rep = 0; rep < 2; rep++)
        for (int i = 0; i < N; i++) {
            int in = i, out;
            MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        }
    MPI_Finalize();
    return 0;
}
