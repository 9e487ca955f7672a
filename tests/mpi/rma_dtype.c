/* ranks: 1 2 3 4 */
/* Derived datatypes on the origin and the target: a vector target written
 * from a contiguous origin, an indexed origin into a resized struct-free
 * target, a get into a strided origin, accumulates through a vector of
 * doubles and an hindexed target, a get_accumulate with three different
 * layouts, and a target type larger than one frame (many pieces). */
#include <mpi.h>

#include "check.h"
#include <stdlib.h>
#include <string.h>

static int rank, size;

#define W 65536 /* doubles in the window */

static void run(double *mem, MPI_Win win)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    /* target: every third double of 10 blocks of 2 */
    MPI_Datatype vec, idx, vec_d, hidx, big;
    MPI_Type_vector(10, 2, 3, MPI_DOUBLE, &vec);
    MPI_Type_commit(&vec);
    int blens[3] = {3, 1, 16}, displs[3] = {5, 0, 20};
    MPI_Type_indexed(3, blens, displs, MPI_DOUBLE, &idx); /* 20 doubles, out of order */
    MPI_Type_commit(&idx);

    for (int i = 0; i < W; i++)
        mem[i] = -1;
    double src[64], got[64];
    for (int i = 0; i < 64; i++)
        src[i] = rank * 100 + i;
    MPI_Win_fence(0, win);
    MPI_Put(src, 20, MPI_DOUBLE, next, 0, 1, vec, win);
    MPI_Win_fence(0, win);
    for (int b = 0, k = 0; b < 10; b++)
        for (int j = 0; j < 3; j++) {
            double want = j < 2 ? prev * 100 + k++ : -1;
            CHECK(mem[3 * b + j] == want, "vector put: mem[%d] = %g, want %g", 3 * b + j, mem[3 * b + j], want);
        }

    /* indexed origin into the vector target: data order follows the indexed map */
    MPI_Win_fence(0, win);
    MPI_Put(src, 1, idx, next, 100, 1, vec, win);
    MPI_Win_fence(0, win);
    {
        int order[20], k = 0;
        for (int i = 0; i < 3; i++)
            order[k++] = 5 + i;
        order[k++] = 0;
        for (int i = 0; i < 16; i++)
            order[k++] = 20 + i;
        for (int b = 0, q = 0; b < 10; b++)
            for (int j = 0; j < 2; j++, q++)
                CHECK(mem[100 + 3 * b + j] == prev * 100 + order[q], "indexed->vector: element %d = %g", q,
                      mem[100 + 3 * b + j]);
    }

    /* get the vector target back into the same layout */
    for (int i = 0; i < 64; i++)
        got[i] = -7;
    MPI_Win_fence(0, win);
    MPI_Get(got, 1, vec, next, 0, 1, vec, win);
    MPI_Win_fence(0, win);
    for (int q = 0; q < 20; q++) {
        int b = q / 2, j = q % 2;
        CHECK(got[3 * b + j] == (double)(rank * 100 + q), "vector get: %d = %g", q, got[3 * b + j]);
    }
    CHECK(got[2] == -7, "vector get wrote a gap");

    /* accumulate through an hvector of doubles and an hindexed target */
    MPI_Type_create_hvector(8, 1, 2 * sizeof(double), MPI_DOUBLE, &vec_d);
    MPI_Type_commit(&vec_d);
    MPI_Aint hd[2] = {0, 40 * sizeof(double)};
    int hb[2] = {4, 4};
    MPI_Type_create_hindexed(2, hb, hd, MPI_DOUBLE, &hidx);
    MPI_Type_commit(&hidx);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    for (int i = 0; i < W; i++)
        mem[i] = 1;
    MPI_Win_unlock(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    /* every rank adds to rank 0: 8 values at every other double of 1000.. */
    MPI_Accumulate(src, 1, vec_d, 0, 1000, 1, hidx, MPI_SUM, win);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        for (int q = 0; q < 8; q++) {
            int at = 1000 + (q < 4 ? q : 40 + q - 4);
            double want = 1;
            for (int r = 0; r < size; r++)
                want += r * 100 + 2 * q;
            CHECK(mem[at] == want, "hvector->hindexed accumulate: mem[%d] = %g, want %g", at, mem[at], want);
        }
        CHECK(mem[1004] == 1, "accumulate wrote a gap");
    }

    /* get_accumulate: origin contiguous, result vector, target indexed */
    MPI_Barrier(MPI_COMM_WORLD);
    double res[64];
    for (int i = 0; i < 64; i++)
        res[i] = 0;
    MPI_Win_lock(MPI_LOCK_SHARED, next, 0, win);
    MPI_Get_accumulate(src, 20, MPI_DOUBLE, res, 1, vec, next, 2000, 1, idx, MPI_MAX, win);
    MPI_Win_unlock(next, win);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int q = 0; q < 20; q++)
        CHECK(res[3 * (q / 2) + q % 2] == 1, "get_accumulate old value %d = %g", q, res[3 * (q / 2) + q % 2]);
    {
        int order[20], k = 0;
        for (int i = 0; i < 3; i++)
            order[k++] = 5 + i;
        order[k++] = 0;
        for (int i = 0; i < 16; i++)
            order[k++] = 20 + i;
        for (int q = 0; q < 20; q++)
            CHECK(mem[2000 + order[q]] == (prev * 100 + q > 1 ? prev * 100 + q : 1), "get_accumulate max: mem[%d] = %g", 2000 + order[q],
                  mem[2000 + order[q]]);
    }

    /* a target type spanning most of the window, moved in many frames */
    MPI_Type_vector(W / 2, 1, 2, MPI_DOUBLE, &big);
    MPI_Type_commit(&big);
    double *bsrc = malloc(W / 2 * sizeof(double));
    for (int i = 0; i < W / 2; i++)
        bsrc[i] = rank + i * 0.5;
    MPI_Win_fence(0, win);
    MPI_Put(bsrc, W / 2, MPI_DOUBLE, next, 0, 1, big, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < W / 2; i++)
        CHECK(mem[2 * i] == prev + i * 0.5, "big vector put: %d", i);
    MPI_Win_fence(0, win);
    MPI_Accumulate(bsrc, W / 2, MPI_DOUBLE, next, 0, 1, big, MPI_SUM, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    for (int i = 0; i < W / 2; i++)
        CHECK(mem[2 * i] == 2 * (prev + i * 0.5), "big vector accumulate: %d = %g", i, mem[2 * i]);
    free(bsrc);

    MPI_Type_free(&vec);
    MPI_Type_free(&idx);
    MPI_Type_free(&vec_d);
    MPI_Type_free(&hidx);
    MPI_Type_free(&big);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double *mem;
    MPI_Win win;
    /* the program's memory: on one host too the derived types travel to the
     * target as descriptions */
    MPI_Alloc_mem(W * sizeof(double), MPI_INFO_NULL, &mem);
    MPI_Win_create(mem, W * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    run(mem, win);
    MPI_Win_free(&win);
    MPI_Free_mem(mem);
    /* MPI_Win_allocate: on one host one shared segment, the datatypes
     * applied by the origin straight on the target's part */
    MPI_Win_allocate(W * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    run(mem, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    if (rank == 0)
        printf("OK\n");
    return 0;
}
