/* ranks: 1 2 3 */
/* The large-count (_c) one-sided functions of MPI-4.1: windows made with an
 * MPI_Aint displacement unit (MPI_Win_create_c, _allocate_c,
 * _allocate_shared_c, MPI_Win_shared_query_c, one unit beyond an int), and
 * every operation's _c form on the next rank's window with its result
 * checked; counts beyond an int are not cut (a put of 2^32 + 4 bytes into
 * a 64-byte window is out of range, not a put of 4), and the error classes
 * of bad arguments. */
#include "check.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define N 64

static int rank, size;

static int errclass(int rc)
{
    int cls;
    MPI_Error_class(rc, &cls);
    return cls;
}

/* Every operation with counts of MPI_Count on a window of N longs. */
static void operations(MPI_Win win, long *mem, const char *what)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    long src[N], got[N], res[N];
    for (int i = 0; i < N; i++)
        mem[i] = -1, src[i] = rank * 1000 + i;
    MPI_Barrier(MPI_COMM_WORLD);

    /* fence: put the first half, get it back, accumulate the second half */
    MPI_Win_fence(0, win);
    CHECK(MPI_Put_c(src, N / 2, MPI_LONG, next, 0, N / 2, MPI_LONG, win) == MPI_SUCCESS,
          "%s: MPI_Put_c", what);
    MPI_Win_fence(0, win);
    for (int i = 0; i < N / 2; i++)
        CHECK(mem[i] == prev * 1000 + i, "%s: MPI_Put_c landed %ld at %d", what, mem[i], i);
    CHECK(MPI_Get_c(got, N / 2, MPI_LONG, next, 0, N / 2, MPI_LONG, win) == MPI_SUCCESS,
          "%s: MPI_Get_c", what);
    CHECK(MPI_Accumulate_c(src + N / 2, N / 2, MPI_LONG, next, N / 2, N / 2, MPI_LONG, MPI_SUM,
                           win) == MPI_SUCCESS,
          "%s: MPI_Accumulate_c", what);
    MPI_Win_fence(0, win);
    for (int i = 0; i < N / 2; i++)
        CHECK(got[i] == rank * 1000 + i, "%s: MPI_Get_c read %ld at %d", what, got[i], i);
    for (int i = N / 2; i < N; i++)
        CHECK(mem[i] == prev * 1000 + i - 1, "%s: MPI_Accumulate_c left %ld at %d", what, mem[i],
              i);
    CHECK(MPI_Get_accumulate_c(src, 4, MPI_LONG, res, 4, MPI_LONG, next, 0, 4, MPI_LONG, MPI_SUM,
                               win) == MPI_SUCCESS,
          "%s: MPI_Get_accumulate_c", what);
    MPI_Win_fence(0, win);
    for (int i = 0; i < 4; i++) {
        CHECK(res[i] == rank * 1000 + i, "%s: MPI_Get_accumulate_c fetched %ld", what, res[i]);
        CHECK(mem[i] == 2 * (prev * 1000 + i), "%s: MPI_Get_accumulate_c left %ld", what, mem[i]);
    }
    MPI_Win_fence(0, win);

    /* the request forms in a passive epoch */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    MPI_Request rq[4];
    long one[2] = {7, 8}, back[2] = {0, 0}, old[2] = {0, 0}, addv[2] = {100, 200};
    CHECK(MPI_Rput_c(one, 2, MPI_LONG, next, 10, 2, MPI_LONG, win, &rq[0]) == MPI_SUCCESS,
          "%s: MPI_Rput_c", what);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    MPI_Win_flush(next, win);
    CHECK(MPI_Rget_c(back, 2, MPI_LONG, next, 10, 2, MPI_LONG, win, &rq[1]) == MPI_SUCCESS,
          "%s: MPI_Rget_c", what);
    MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
    CHECK(back[0] == 7 && back[1] == 8, "%s: MPI_Rget_c read %ld %ld", what, back[0], back[1]);
    CHECK(MPI_Raccumulate_c(addv, 2, MPI_LONG, next, 10, 2, MPI_LONG, MPI_SUM, win, &rq[2]) ==
              MPI_SUCCESS,
          "%s: MPI_Raccumulate_c", what);
    MPI_Wait(&rq[2], MPI_STATUS_IGNORE);
    MPI_Win_flush(next, win);
    CHECK(MPI_Rget_accumulate_c(NULL, 0, MPI_LONG, old, 2, MPI_LONG, next, 10, 2, MPI_LONG,
                                MPI_NO_OP, win, &rq[3]) == MPI_SUCCESS,
          "%s: MPI_Rget_accumulate_c", what);
    MPI_Wait(&rq[3], MPI_STATUS_IGNORE);
    CHECK(old[0] == 107 && old[1] == 208, "%s: MPI_Rget_accumulate_c fetched %ld %ld", what,
          old[0], old[1]);

    /* a count no int holds is range-checked whole */
    int rc = MPI_Put_c(src, ((MPI_Count)1 << 32) + 4, MPI_BYTE, next, 0,
                       ((MPI_Count)1 << 32) + 4, MPI_BYTE, win);
    CHECK(errclass(rc) == MPI_ERR_RMA_RANGE, "%s: a put of 2^32 + 4 bytes: class %d", what,
          errclass(rc));
    rc = MPI_Put_c(src, -1, MPI_LONG, next, 0, 1, MPI_LONG, win);
    CHECK(errclass(rc) == MPI_ERR_COUNT, "%s: MPI_Put_c of -1: class %d", what, errclass(rc));
    rc = MPI_Get_c(got, 1, MPI_LONG, next, 0, -1, MPI_LONG, win);
    CHECK(errclass(rc) == MPI_ERR_COUNT, "%s: MPI_Get_c of -1: class %d", what, errclass(rc));
    rc = MPI_Accumulate_c(src, 1, MPI_LONG, next, 0, 1, MPI_LONG, MPI_OP_NULL, win);
    CHECK(errclass(rc) == MPI_ERR_OP, "%s: MPI_Accumulate_c without an op: class %d", what,
          errclass(rc));
    rc = MPI_Rput_c(src, 1, MPI_LONG, next, 0, 1, MPI_LONG, win, NULL);
    CHECK(errclass(rc) == MPI_ERR_ARG, "%s: MPI_Rput_c without a request: class %d", what,
          errclass(rc));
    rc = MPI_Rget_c(got, 1, MPI_DATATYPE_NULL, next, 0, 1, MPI_LONG, win, &rq[0]);
    CHECK(errclass(rc) == MPI_ERR_TYPE, "%s: MPI_Rget_c without a type: class %d", what,
          errclass(rc));
    rc = MPI_Raccumulate_c(src, 1, MPI_LONG, size, 0, 1, MPI_LONG, MPI_SUM, win, &rq[0]);
    CHECK(errclass(rc) == MPI_ERR_RANK, "%s: MPI_Raccumulate_c to rank %d: class %d", what, size,
          errclass(rc));
    rc = MPI_Rget_accumulate_c(src, -3, MPI_LONG, res, 1, MPI_LONG, next, 0, 1, MPI_LONG, MPI_SUM,
                               win, &rq[0]);
    CHECK(errclass(rc) == MPI_ERR_COUNT, "%s: MPI_Rget_accumulate_c of -3: class %d", what,
          errclass(rc));
    rc = MPI_Get_accumulate_c(src, 1, MPI_LONG, res, -1, MPI_LONG, next, 0, 1, MPI_LONG, MPI_SUM,
                              win);
    CHECK(errclass(rc) == MPI_ERR_COUNT, "%s: MPI_Get_accumulate_c of -1: class %d", what,
          errclass(rc));
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* errors tied to no object (MPI-4.1) */

    MPI_Win win;
    long *mem;
    CHECK(MPI_Win_allocate_c(N * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                             &win) == MPI_SUCCESS,
          "MPI_Win_allocate_c");
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int *unitp, flag;
    MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &unitp, &flag);
    CHECK(flag && *unitp == (int)sizeof(long), "MPI_WIN_DISP_UNIT of the allocated window");
    operations(win, mem, "MPI_Win_allocate_c");
    MPI_Aint sz, unit;
    void *base;
    int rc = MPI_Win_shared_query_c(win, 0, &sz, &unit, &base);
    CHECK(errclass(rc) == MPI_ERR_RMA_FLAVOR, "MPI_Win_shared_query_c of an allocated window: %d",
          errclass(rc));
    MPI_Win_free(&win);

    long local[N];
    CHECK(MPI_Win_create_c(local, sizeof local, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD,
                           &win) == MPI_SUCCESS,
          "MPI_Win_create_c");
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    operations(win, local, "MPI_Win_create_c");
    MPI_Win_free(&win);

    /* shared: a unit of 2^32 + 8 bytes (only displacement 0 lands inside), among
     * the ranks of this host (the job may span virtual hosts) */
    MPI_Comm shm;
    int ssize, srank;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm);
    MPI_Comm_size(shm, &ssize);
    MPI_Comm_rank(shm, &srank);
    MPI_Aint big_unit = ((MPI_Aint)1 << 32) + 8;
    CHECK(MPI_Win_allocate_shared_c(N * sizeof(long), big_unit, MPI_INFO_NULL, shm,
                                    &mem, &win) == MPI_SUCCESS,
          "MPI_Win_allocate_shared_c");
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    for (int r = 0; r < ssize; r++) {
        long *peer;
        CHECK(MPI_Win_shared_query_c(win, r, &sz, &unit, &peer) == MPI_SUCCESS &&
                  sz == N * (MPI_Aint)sizeof(long) && unit == big_unit && peer,
              "MPI_Win_shared_query_c of rank %d: size %ld unit %ld", r, (long)sz, (long)unit);
        int iunit;
        rc = MPI_Win_shared_query(win, r, &sz, &iunit, &peer);
        CHECK(errclass(rc) == MPI_ERR_VALUE_TOO_LARGE,
              "MPI_Win_shared_query with a unit beyond an int: class %d", errclass(rc));
    }
    mem[0] = -1;
    MPI_Win_fence(0, win);
    long v = 4242 + srank;
    MPI_Put_c(&v, 1, MPI_LONG, (srank + 1) % ssize, 0, 1, MPI_LONG, win);
    rc = MPI_Put_c(&v, 1, MPI_LONG, (srank + 1) % ssize, 1, 1, MPI_LONG, win);
    CHECK(errclass(rc) == MPI_ERR_RMA_RANGE, "a put one unit of 2^32 + 8 in: class %d",
          errclass(rc));
    MPI_Win_fence(0, win);
    CHECK(mem[0] == 4242 + (srank + ssize - 1) % ssize, "put through the shared window: %ld", mem[0]);
    rc = MPI_Win_shared_query_c(win, ssize, &sz, &unit, &base);
    CHECK(errclass(rc) == MPI_ERR_RANK, "MPI_Win_shared_query_c of rank %d: class %d", ssize,
          errclass(rc));
    rc = MPI_Win_shared_query_c(win, 0, &sz, NULL, &base);
    CHECK(errclass(rc) == MPI_ERR_ARG, "MPI_Win_shared_query_c without disp_unit: class %d",
          errclass(rc));
    MPI_Win_free(&win);

    /* creation errors */
    rc = MPI_Win_create_c(local, sizeof local, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    CHECK(errclass(rc) == MPI_ERR_DISP, "MPI_Win_create_c with unit 0: class %d", errclass(rc));
    rc = MPI_Win_allocate_c(-1, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    CHECK(errclass(rc) == MPI_ERR_SIZE, "MPI_Win_allocate_c of -1 bytes: class %d", errclass(rc));
    rc = MPI_Win_allocate_shared_c(8, -8, MPI_INFO_NULL, shm, &mem, &win);
    CHECK(errclass(rc) == MPI_ERR_DISP, "MPI_Win_allocate_shared_c with unit -8: class %d",
          errclass(rc));
    rc = MPI_Win_allocate_c(8, 8, MPI_INFO_NULL, MPI_COMM_NULL, &mem, &win);
    CHECK(errclass(rc) == MPI_ERR_COMM, "MPI_Win_allocate_c on MPI_COMM_NULL: class %d",
          errclass(rc));

    MPI_Comm_free(&shm);
    MPI_Finalize();
    if (rank == 0)
        printf("large_count_rma: OK\n");
    return 0;
}
