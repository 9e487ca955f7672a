/* ranks: 1 2 3 */
/* A dynamic window's access may run from one attached region into an
 * adjacent one: the two halves of a 16384-int array attached separately take
 * a put, accumulate, get_accumulate and get of 9216 ints from the start of the
 * first half, and a chain of four regions one of 4000 ints and a strided type
 * across them. An access that touches a byte not attached (a gap between two
 * regions, past the last one, a detached half) is still MPI_ERR_RMA_RANGE
 * and writes nothing. */
#include <mpi.h>

#include "check.h"
#include <stdlib.h>
#include <string.h>

#define N 16384
#define HALF (N / 2)
#define M 9216 /* crosses from the first half into the second */
#define Q 1024 /* the pieces of the chain and of the gap */

static int rank, size;

static int cls_of(int rc)
{
    int c;
    MPI_Error_class(rc, &c);
    return c;
}

/* one operation on the target under a lock; the class the unlock reports */
static int put_ints(const int *v, int n, int target, MPI_Aint addr, MPI_Win win)
{
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win);
    int rc = MPI_Put(v, n, MPI_INT, target, addr, n, MPI_INT, win);
    CHECK(rc == MPI_SUCCESS, "MPI_Put: %d", rc);
    return cls_of(MPI_Win_unlock(target, win));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size;
    int *arr = calloc(N, sizeof *arr), *chain = calloc(4 * Q, sizeof *chain);
    int *gap = calloc(3 * Q, sizeof *gap), *v = malloc((N + 1) * sizeof *v), *res = malloc(N * sizeof *res);
    int *one = malloc(N * sizeof *one);
    CHECK(arr && chain && gap && v && res && one, "out of memory");
    for (int i = 0; i <= N; i++)
        v[i] = i + 1; /* N + 1: one more than the two halves hold */
    for (int i = 0; i < N; i++)
        one[i] = 1;
    MPI_Win win;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    /* the halves separately, the chain in four pieces (attached out of
     * order), the gap array without its middle piece */
    MPI_Win_attach(win, arr, HALF * sizeof(int));
    MPI_Win_attach(win, arr + HALF, HALF * sizeof(int));
    for (int p = 3; p >= 0; p--)
        MPI_Win_attach(win, chain + p * Q, Q * sizeof(int));
    MPI_Win_attach(win, gap, Q * sizeof(int));
    MPI_Win_attach(win, gap + 2 * Q, Q * sizeof(int));
    MPI_Aint mine[3], all[3 * 64];
    CHECK(size <= 64, "at most 64 ranks");
    MPI_Get_address(arr, &mine[0]);
    MPI_Get_address(chain, &mine[1]);
    MPI_Get_address(gap, &mine[2]);
    MPI_Allgather(mine, 3, MPI_AINT, all, 3, MPI_AINT, MPI_COMM_WORLD);
    MPI_Aint t_arr = all[3 * next], t_chain = all[3 * next + 1], t_gap = all[3 * next + 2];

    /* put across the two halves */
    CHECK(put_ints(v, M, next, t_arr, win) == MPI_SUCCESS, "a put across two adjacent regions was refused");
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < N; i++)
        CHECK(arr[i] == (i < M ? i + 1 : 0), "put: arr[%d] = %d", i, arr[i]);
    MPI_Barrier(MPI_COMM_WORLD);

    /* accumulate, then get_accumulate, across them; flush reports the class */
    MPI_Win_lock(MPI_LOCK_SHARED, next, 0, win);
    CHECK(MPI_Accumulate(one, M, MPI_INT, next, t_arr, M, MPI_INT, MPI_SUM, win) == MPI_SUCCESS, "accumulate");
    int rc = MPI_Win_flush(next, win);
    CHECK(rc == MPI_SUCCESS, "an accumulate across two adjacent regions: flush gives class %d", cls_of(rc));
    CHECK(MPI_Get_accumulate(one, M, MPI_INT, res, M, MPI_INT, next, t_arr, M, MPI_INT, MPI_SUM, win) ==
              MPI_SUCCESS,
          "get_accumulate");
    rc = MPI_Win_flush(next, win);
    CHECK(rc == MPI_SUCCESS, "a get_accumulate across two adjacent regions: flush gives class %d", cls_of(rc));
    for (int i = 0; i < M; i++)
        CHECK(res[i] == i + 2, "get_accumulate result[%d] = %d", i, res[i]);
    memset(res, 0, N * sizeof *res);
    CHECK(MPI_Get(res, M, MPI_INT, next, t_arr, M, MPI_INT, win) == MPI_SUCCESS, "get");
    rc = MPI_Win_unlock(next, win);
    CHECK(rc == MPI_SUCCESS, "a get across two adjacent regions: unlock gives class %d", cls_of(rc));
    for (int i = 0; i < M; i++)
        CHECK(res[i] == i + 3, "get result[%d] = %d", i, res[i]);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < N; i++)
        CHECK(arr[i] == (i < M ? i + 3 : 0), "accumulates: arr[%d] = %d", i, arr[i]);
    MPI_Barrier(MPI_COMM_WORLD);

    /* a chain of four regions: 4000 ints from int 50, and every third int of
     * 3900 from int 100 (a strided target type) */
    CHECK(put_ints(v, 4000, next, t_chain + 50 * (MPI_Aint)sizeof(int), win) == MPI_SUCCESS,
          "a put across a chain of four regions was refused");
    MPI_Datatype every3;
    MPI_Type_vector(1300, 1, 3, MPI_INT, &every3);
    MPI_Type_commit(&every3);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next, 0, win);
    CHECK(MPI_Accumulate(one, 1300, MPI_INT, next, t_chain + 100 * (MPI_Aint)sizeof(int), 1, every3, MPI_SUM,
                         win) == MPI_SUCCESS,
          "strided accumulate");
    rc = MPI_Win_unlock(next, win);
    CHECK(rc == MPI_SUCCESS, "a strided accumulate across four regions: class %d", cls_of(rc));
    MPI_Type_free(&every3);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 4 * Q; i++) {
        int want = i >= 50 && i < 4050 ? i - 49 : 0;
        if (i >= 100 && i < 100 + 3 * 1300 && (i - 100) % 3 == 0)
            want++;
        CHECK(chain[i] == want, "chain[%d] = %d, want %d", i, chain[i], want);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* refused: across the gap (its middle piece is not attached), past the
     * end of the second half, and into a detached half; nothing written */
    CHECK(put_ints(v, 3 * Q, next, t_gap, win) == MPI_ERR_RMA_RANGE, "a put across a gap was accepted");
    CHECK(put_ints(v, Q + 1, next, t_gap + (MPI_Aint)(Q * sizeof(int)) - (MPI_Aint)sizeof(int), win) ==
              MPI_ERR_RMA_RANGE,
          "a put into the gap was accepted");
    CHECK(put_ints(v, 2, next, t_gap + (MPI_Aint)(Q * sizeof(int)) - (MPI_Aint)sizeof(int), win) ==
              MPI_ERR_RMA_RANGE,
          "a put of one attached and one unattached int was accepted");
    MPI_Win_lock(MPI_LOCK_SHARED, next, 0, win);
    CHECK(MPI_Accumulate(one, 3 * Q, MPI_INT, next, t_gap, 3 * Q, MPI_INT, MPI_SUM, win) == MPI_SUCCESS, "acc");
    rc = MPI_Win_flush(next, win);
    CHECK(cls_of(rc) == MPI_ERR_RMA_RANGE, "an accumulate across a gap: class %d", cls_of(rc));
    MPI_Win_unlock(next, win);
    CHECK(put_ints(v, N + 1, next, t_arr, win) == MPI_ERR_RMA_RANGE, "a put past the second half was accepted");
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 3 * Q; i++)
        CHECK(gap[i] == 0, "a refused access wrote gap[%d] = %d", i, gap[i]);
    for (int i = 0; i < N; i++)
        CHECK(arr[i] == (i < M ? i + 3 : 0), "a refused access wrote arr[%d] = %d", i, arr[i]);
    MPI_Win_detach(win, arr + HALF);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(put_ints(one, M, next, t_arr, win) == MPI_ERR_RMA_RANGE, "a put into a detached half was accepted");
    CHECK(put_ints(one, HALF, next, t_arr, win) == MPI_SUCCESS, "a put into the attached half was refused");
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < N; i++)
        CHECK(arr[i] == (i < HALF ? 1 : i < M ? i + 3 : 0), "after the detach: arr[%d] = %d", i, arr[i]);

    MPI_Win_free(&win);
    free(arr);
    free(chain);
    free(gap);
    free(v);
    free(res);
    free(one);
    MPI_Finalize();
    if (rank == 0)
        printf("OK\n");
    return 0;
}
