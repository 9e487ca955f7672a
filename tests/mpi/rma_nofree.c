/* ranks: 1 2 */
/* Windows the program never frees (allocated, shared, dynamic with memory
 * attached, created) are dropped at MPI_Finalize without a leak (the
 * sanitizer build checks) and without disturbing the shutdown, one of them
 * just after a large get from it (tests/cluster/rma_hosts.sh runs this
 * across hosts too). */
#include <mpi.h>

#include "check.h"
#include <stdlib.h>

static int rank;

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size, *b, *s, own[4], att[4];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win w1, w2, w3, w4;
    MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &b, &w1);
    /* across hosts a shared window is refused (MPI_ERR_RMA_SHARED) */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* errors tied to no object (MPI-4.1 9.3) */
    int shared_rc = MPI_Win_allocate_shared(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &s, &w2);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    int eclass = MPI_SUCCESS;
    MPI_Error_class(shared_rc, &eclass);
    CHECK(eclass == MPI_SUCCESS || eclass == MPI_ERR_RMA_SHARED, "allocate_shared: class %d", eclass);
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
    /* a large get: across hosts its answer is sent from the target's
     * window memory and kept by the channel until acknowledged */
    MPI_Win w5;
    char *big, *got = malloc(1 << 17);
    CHECK(got != NULL, "out of memory");
    MPI_Win_allocate(1 << 17, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &big, &w5);
    for (int i = 0; i < 1 << 17; i++)
        big[i] = (char)(rank + i);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, (rank + 1) % size, 0, w5);
    MPI_Get(got, 1 << 17, MPI_CHAR, (rank + 1) % size, 0, 1 << 17, MPI_CHAR, w5);
    MPI_Win_unlock((rank + 1) % size, w5);
    for (int i = 0; i < 1 << 17; i++)
        CHECK(got[i] == (char)((rank + 1) % size + i), "get: byte %d", i);
    free(got);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(b[0] == 5, "put: %d", b[0]);
    MPI_Finalize();
    if (rank == 0)
        printf("OK\n");
    return 0;
}
