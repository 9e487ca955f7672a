/* ranks: 1 2 */
/* Windows the program never frees (allocated, shared, dynamic with memory
 * attached, created) are dropped at MPI_Finalize without a leak (the
 * sanitizer build checks) and without disturbing the shutdown. */
#include <mpi.h>

#include "check.h"

static int rank;

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size, *b, *s, own[4], att[4];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win w1, w2, w3, w4;
    MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &b, &w1);
    MPI_Win_allocate_shared(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &s, &w2);
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w3);
    MPI_Win_attach(w3, att, sizeof att);
    MPI_Win_create(own, sizeof own, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w4);
    MPI_Win_set_name(w4, "left behind");
    int v = 5;
    MPI_Win_lock_all(0, w1);
    MPI_Put(&v, 1, MPI_INT, (rank + 1) % size, 0, 1, MPI_INT, w1);
    MPI_Win_unlock_all(w1);
    MPI_Win_fence(0, w4);
    MPI_Accumulate(&v, 1, MPI_INT, (rank + 1) % size, 1, 1, MPI_INT, MPI_SUM, w4);
    MPI_Win_fence(0, w4);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(b[0] == 5, "put: %d", b[0]);
    MPI_Finalize();
    if (rank == 0)
        printf("OK\n");
    return 0;
}
