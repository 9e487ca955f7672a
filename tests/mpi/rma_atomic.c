/* ranks: 1 2 3 4 */
/* Atomicity under contention: every rank hammers rank 0 with fetch-and-add
 * (the fetched values must be all distinct and the final count exact),
 * with accumulates of whole arrays (element-wise atomic: exact sums), and
 * with read-modify-write sequences under exclusive locks (mutual
 * exclusion: no update lost), then a compare-and-swap spin lock. */
#include <mpi.h>

#include "check.h"
#include <stdlib.h>

static int rank, size;

#define K 500
#define A 256

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long *mem;
    MPI_Win win;
    MPI_Win_allocate((4 + A) * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    for (int i = 0; i < 4 + A; i++)
        mem[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);

    /* fetch-and-add from everyone, shared access */
    long one = 1, olds[K];
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < K; i++) {
        MPI_Fetch_and_op(&one, &olds[i], MPI_LONG, 0, 0, MPI_SUM, win);
        MPI_Win_flush(0, win);
    }
    MPI_Win_unlock_all(win);
    long *all = rank == 0 ? malloc(sizeof(long) * K * size) : NULL;
    MPI_Gather(olds, K, MPI_LONG, all, K, MPI_LONG, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        CHECK(mem[0] == (long)K * size, "counter %ld, want %ld", mem[0], (long)K * size);
        qsort(all, (size_t)K * size, sizeof(long), cmp_long);
        for (long i = 0; i < (long)K * size; i++)
            CHECK(all[i] == i, "fetched values are not 0..n-1: [%ld] = %ld", i, all[i]);
        free(all);
    }

    /* accumulates of whole arrays, no flush in between */
    long add[A];
    for (int i = 0; i < A; i++)
        add[i] = i + 1;
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < K / 10; i++)
        MPI_Accumulate(add, A, MPI_LONG, 0, 4, A, MPI_LONG, MPI_SUM, win);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        for (int i = 0; i < A; i++)
            CHECK(mem[4 + i] == (long)(K / 10) * size * (i + 1), "accumulate [%d] = %ld", i, mem[4 + i]);

    /* get, add, put under an exclusive lock: nothing lost */
    for (int i = 0; i < K / 5; i++) {
        long x;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Get(&x, 1, MPI_LONG, 0, 1, 1, MPI_LONG, win);
        MPI_Win_flush(0, win);
        x += 1;
        MPI_Put(&x, 1, MPI_LONG, 0, 1, 1, MPI_LONG, win);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        CHECK(mem[1] == (long)(K / 5) * size, "exclusive increments %ld", mem[1]);

    /* a spin lock built from compare_and_swap guarding a plain counter */
    for (int i = 0; i < K / 10; i++) {
        long zero = 0, me = rank + 1, got = -1;
        MPI_Win_lock_all(0, win);
        do {
            MPI_Compare_and_swap(&me, &zero, &got, MPI_LONG, 0, 2, win);
            MPI_Win_flush(0, win);
        } while (got != 0);
        long x;
        MPI_Get(&x, 1, MPI_LONG, 0, 3, 1, MPI_LONG, win);
        MPI_Win_flush(0, win);
        x++;
        MPI_Put(&x, 1, MPI_LONG, 0, 3, 1, MPI_LONG, win);
        MPI_Win_flush(0, win);
        MPI_Compare_and_swap(&zero, &me, &got, MPI_LONG, 0, 2, win);
        MPI_Win_unlock_all(win);
        CHECK(got == me, "the lock word was %ld, not mine", got);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        CHECK(mem[3] == (long)(K / 10) * size && mem[2] == 0, "CAS-locked counter %ld", mem[3]);
    MPI_Win_free(&win);
    MPI_Finalize();
    if (rank == 0)
        printf("OK\n");
    return 0;
}
