/* ranks: 1 2 3 4 */
/* Bad input gets the standard's error class and changes no memory:
 * MPI_ERR_RMA_RANGE for a target range outside the window (checked at the
 * origin from the exchanged sizes, and at the target for dynamic windows,
 * reported at the next synchronisation), MPI_ERR_RMA_SYNC for operations
 * outside an epoch and mismatched synchronisation, MPI_ERR_WIN for a freed
 * or invalid window, and the other argument classes. */
#include <mpi.h>

#include "check.h"
#include <string.h>

static int rank, size;

static int cls_of(int rc)
{
    int c;
    MPI_Error_class(rc, &c);
    return c;
}

#define EXPECT(call, want)                                                           \
    do {                                                                             \
        int c_ = cls_of(call);                                                       \
        CHECK(c_ == (want), "%s: class %d, want %d (%s)", #call, c_, (want), #want); \
    } while (0)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* errors tied to no object (MPI-4.1 9.3) */
    int next = (rank + 1) % size;
    int *mem, v[8] = {1, 2, 3, 4, 5, 6, 7, 8}, r[8];
    MPI_Win win;
    MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    for (int i = 0; i < 8; i++)
        mem[i] = -i;
    MPI_Barrier(MPI_COMM_WORLD);

    /* outside any epoch */
    EXPECT(MPI_Put(v, 1, MPI_INT, next, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Get(r, 1, MPI_INT, next, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Accumulate(v, 1, MPI_INT, next, 0, 1, MPI_INT, MPI_SUM, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_unlock(next, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_unlock_all(win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_complete(win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_wait(win), MPI_ERR_RMA_SYNC);
    int flag;
    EXPECT(MPI_Win_test(win, &flag), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_flush(next, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_flush_all(win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_flush_local(next, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_flush_local_all(win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_lock(12345, next, 0, win), MPI_ERR_LOCKTYPE);
    EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, size, 0, win), MPI_ERR_RANK);
    EXPECT(MPI_Win_fence(0x7, win), MPI_ERR_ASSERT);

    /* ranges, checked at the origin: nothing is sent */
    MPI_Win_fence(0, win);
    EXPECT(MPI_Put(v, 2, MPI_INT, next, 7, 2, MPI_INT, win), MPI_ERR_RMA_RANGE);
    EXPECT(MPI_Put(v, 1, MPI_INT, next, -1, 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
    EXPECT(MPI_Get(r, 1, MPI_INT, next, 8, 1, MPI_INT, win), MPI_ERR_RMA_RANGE);
    EXPECT(MPI_Accumulate(v, 8, MPI_INT, next, 1, 8, MPI_INT, MPI_SUM, win), MPI_ERR_RMA_RANGE);
    EXPECT(MPI_Fetch_and_op(v, r, MPI_INT, next, 100, MPI_SUM, win), MPI_ERR_RMA_RANGE);
    EXPECT(MPI_Compare_and_swap(v, v, r, MPI_INT, next, 8, win), MPI_ERR_RMA_RANGE);
    EXPECT(MPI_Put(v, 1, MPI_INT, size, 0, 1, MPI_INT, win), MPI_ERR_RANK);
    EXPECT(MPI_Put(v, -1, MPI_INT, next, 0, 1, MPI_INT, win), MPI_ERR_COUNT);
    EXPECT(MPI_Put(v, 1, MPI_DATATYPE_NULL, next, 0, 1, MPI_INT, win), MPI_ERR_TYPE);
    EXPECT(MPI_Put(v, 2, MPI_INT, next, 0, 1, MPI_INT, win), MPI_ERR_TYPE);
    EXPECT(MPI_Accumulate(v, 1, MPI_INT, next, 0, 1, MPI_INT, MPI_OP_NULL, win), MPI_ERR_OP);
    EXPECT(MPI_Accumulate(v, 1, MPI_INT, next, 0, 1, MPI_INT, MPI_NO_OP, win), MPI_ERR_OP);
    EXPECT(MPI_Accumulate(v, 1, MPI_INT, next, 0, 1, MPI_FLOAT, MPI_SUM, win), MPI_ERR_TYPE);
    EXPECT(MPI_Compare_and_swap(v, v, r, MPI_FLOAT, next, 0, win), MPI_ERR_TYPE);
    MPI_Request rq;
    EXPECT(MPI_Rput(v, 1, MPI_INT, next, 0, 1, MPI_INT, win, &rq), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, next, 0, win), MPI_SUCCESS); /* after a fence: allowed */
    EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, next, 0, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_free(&win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_unlock(next, win), MPI_SUCCESS);
    MPI_Win_fence(0, win);
    for (int i = 0; i < 8; i++)
        CHECK(mem[i] == -i, "memory changed by a refused operation: mem[%d] = %d", i, mem[i]);

    /* post/start mismatches */
    MPI_Group world, none;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 0, NULL, &none);
    EXPECT(MPI_Win_post(none, 0, win), MPI_SUCCESS);
    EXPECT(MPI_Win_post(none, 0, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_start(none, 0, win), MPI_SUCCESS);
    EXPECT(MPI_Win_start(none, 0, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Put(v, 1, MPI_INT, next, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC); /* not in the group */
    EXPECT(MPI_Win_fence(0, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_complete(win), MPI_SUCCESS);
    EXPECT(MPI_Win_wait(win), MPI_SUCCESS);
    EXPECT(MPI_Win_start(MPI_GROUP_NULL, 0, win), MPI_ERR_GROUP);
    MPI_Group_free(&none);
    MPI_Group_free(&world);

    /* a dynamic window: the target checks, the origin hears at the unlock */
    MPI_Win dyn;
    int att[4] = {0, 0, 0, 0};
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dyn);
    MPI_Win_set_errhandler(dyn, MPI_ERRORS_RETURN);
    MPI_Win_attach(dyn, att, sizeof att);
    MPI_Aint addr, addrs[4];
    MPI_Get_address(att, &addr);
    MPI_Allgather(&addr, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next, 0, dyn);
    EXPECT(MPI_Put(v, 4, MPI_INT, next, addrs[next], 4, MPI_INT, dyn), MPI_SUCCESS);
    EXPECT(MPI_Win_unlock(next, dyn), MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(att[0] == 1 && att[3] == 4, "dynamic put: %d %d", att[0], att[3]);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next, 0, dyn);
    EXPECT(MPI_Put(v, 5, MPI_INT, next, addrs[next], 5, MPI_INT, dyn), MPI_SUCCESS);
    EXPECT(MPI_Win_unlock(next, dyn), MPI_ERR_RMA_RANGE);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next, 0, dyn);
    r[0] = 99;
    EXPECT(MPI_Get(r, 1, MPI_INT, next, addrs[next] - 64, 1, MPI_INT, dyn), MPI_SUCCESS);
    EXPECT(MPI_Win_flush(next, dyn), MPI_ERR_RMA_RANGE);
    CHECK(r[0] == 99, "a refused get wrote the origin buffer");
    EXPECT(MPI_Win_unlock(next, dyn), MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    att[0] = 42;
    MPI_Win_detach(dyn, att);
    EXPECT(MPI_Win_detach(dyn, att), MPI_ERR_RMA_ATTACH);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next, 0, dyn);
    EXPECT(MPI_Put(v, 1, MPI_INT, next, addrs[next], 1, MPI_INT, dyn), MPI_SUCCESS);
    EXPECT(MPI_Win_unlock(next, dyn), MPI_ERR_RMA_RANGE);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(att[0] == 42, "a put into detached memory landed: %d", att[0]);
    EXPECT(MPI_Win_attach(win, att, 4), MPI_ERR_RMA_FLAVOR);
    MPI_Win_free(&dyn);

    /* freed and invalid windows */
    MPI_Win stale = win;
    EXPECT(MPI_Win_free(&win), MPI_SUCCESS);
    CHECK(win == MPI_WIN_NULL, "handle not reset");
    EXPECT(MPI_Put(v, 1, MPI_INT, next, 0, 1, MPI_INT, stale), MPI_ERR_WIN);
    EXPECT(MPI_Win_fence(0, stale), MPI_ERR_WIN);
    EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, stale), MPI_ERR_WIN);
    EXPECT(MPI_Win_free(&stale), MPI_ERR_WIN);
    EXPECT(MPI_Win_fence(0, MPI_WIN_NULL), MPI_ERR_WIN);
    EXPECT(MPI_Win_fence(0, (MPI_Win)MPI_COMM_WORLD), MPI_ERR_WIN);
    MPI_Win w2;
    EXPECT(MPI_Win_create(mem, -1, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w2), MPI_ERR_SIZE);
    EXPECT(MPI_Win_create(mem, 8, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &w2), MPI_ERR_DISP);
    EXPECT(MPI_Win_create(mem, 8, 1, MPI_INFO_NULL, MPI_COMM_NULL, &w2), MPI_ERR_COMM);
    MPI_Finalize();
    if (rank == 0)
        printf("OK\n");
    return 0;
}
