/* ranks: 1 2 3 4 */
/* MPI_Win_allocate_shared: the ranks of one host share one segment and load
 * and store each other's parts directly (unified model, MPI_Win_sync);
 * MPI_Win_shared_query finds every part (MPI_PROC_NULL: the first that is
 * not empty); one-sided operations work on the same window; a rank with
 * size 0 is allowed; a segment the machine cannot hold is MPI_ERR_NO_MEM. */
#include <mpi.h>

#include "check.h"
#include <stdint.h>

static int rank, size;

static MPI_Aint part_ints(int r)
{
    return r == 1 ? 0 : 16 + 4 * r; /* rank 1 contributes nothing */
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *mine;
    MPI_Win win;
    CHECK(MPI_Win_allocate_shared(part_ints(rank) * sizeof(int), sizeof(int), MPI_INFO_NULL,
                                  MPI_COMM_WORLD, &mine, &win) == MPI_SUCCESS, "allocate_shared");
    int *flavor, *model, flag;
    MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
    CHECK(flag && *flavor == MPI_WIN_FLAVOR_SHARED, "flavor");
    MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag);
    CHECK(flag && *model == MPI_WIN_UNIFIED, "model");

    int *part[4];
    for (int r = 0; r < size; r++) {
        MPI_Aint sz;
        int du;
        MPI_Win_shared_query(win, r, &sz, &du, &part[r]);
        CHECK(sz == part_ints(r) * (MPI_Aint)sizeof(int), "query size of %d: %ld", r, (long)sz);
        CHECK(du == sizeof(int), "disp unit %d", du);
        CHECK((sz == 0) == (part[r] == NULL), "base of %d", r);
        if (r == rank && sz)
            CHECK(part[r] == mine, "my own part is where allocate put it");
        if (sz)
            CHECK(((uintptr_t)part[r] & 7) == 0, "alignment");
    }
    {
        MPI_Aint sz;
        int du;
        int *first;
        MPI_Win_shared_query(win, MPI_PROC_NULL, &sz, &du, &first);
        CHECK(first == part[0] && sz == part_ints(0) * (MPI_Aint)sizeof(int), "MPI_PROC_NULL query");
    }

    /* direct stores into the next rank's part, passive target + Win_sync */
    int next = (rank + 1) % size; /* rank 1 has no memory: nobody writes there */
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < part_ints(next); i++)
        part[next][i] = rank * 1000 + i;
    MPI_Win_sync(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(win);
    for (int r = 0; r < size; r++) {
        int nx = (r + 1) % size;
        if (nx == rank && part_ints(rank))
            for (int i = 0; i < part_ints(rank); i++)
                CHECK(mine[i] == r * 1000 + i, "direct store from %d: [%d] = %d", r, i, mine[i]);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* one-sided operations on the shared window, seen by direct loads */
    int one = 1, old;
    MPI_Fetch_and_op(&one, &old, MPI_INT, 0, 0, MPI_SUM, win);
    MPI_Win_flush(0, win);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(part[0][0] == (size - 1) * 1000 + size, "fetch_and_op seen by load: %d", part[0][0]);
    CHECK(old >= (size - 1) * 1000 && old < (size - 1) * 1000 + size, "fetch_and_op old %d", old);
    MPI_Win_fence(0, win);
    if (rank == 0 && size > 2) {
        int v[4] = {9, 8, 7, 6};
        MPI_Put(v, 4, MPI_INT, 2, 1, 4, MPI_INT, win);
    }
    MPI_Win_fence(0, win);
    if (size > 2)
        CHECK(part[2][1] == 9 && part[2][4] == 6, "put seen by load: %d %d", part[2][1], part[2][4]);
    MPI_Win_free(&win);

    /* MPI_Win_shared_query on a window that is not shared */
    MPI_Win w2;
    int *b2;
    MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &b2, &w2);
    MPI_Win_set_errhandler(w2, MPI_ERRORS_RETURN);
    MPI_Aint sz;
    int du, cls;
    void *bp;
    MPI_Error_class(MPI_Win_shared_query(w2, 0, &sz, &du, &bp), &cls);
    CHECK(cls == MPI_ERR_RMA_FLAVOR, "shared_query on an allocated window: %d", cls);
    MPI_Win_free(&w2);

    /* a segment larger than the machine's shared memory (reserved at once,
     * so the tmpfs refuses it): MPI_ERR_NO_MEM on every rank, no window,
     * and the job goes on */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* errors tied to no object (MPI-4.1 9.3) */
    MPI_Win w3 = MPI_WIN_NULL;
    int *b3 = NULL;
    int rc = MPI_Win_allocate_shared((MPI_Aint)1 << 50, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &b3, &w3);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_NO_MEM, "a shared window of 1 PiB: class %d", cls);
    CHECK(w3 == MPI_WIN_NULL, "a window came back from a failed allocation");
    int alive = 1, sum = 0;
    MPI_Allreduce(&alive, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(sum == size, "allreduce after the failed allocation: %d", sum);
    MPI_Finalize();
    if (rank == 0)
        printf("OK\n");
    return 0;
}
