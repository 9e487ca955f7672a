/* ranks: 2 4 */
/* A passive-target accumulate storm: for SECONDS (argument; default 0.5)
 * every rank fetch-and-adds, round robin over every rank, both a counter
 * shared by all origins and its own counter there, and accumulates an
 * array, flushing each time. Nothing may be lost or applied twice: its own
 * counter must return 0, 1, 2, ... in order, a 64 KiB block put and read
 * back must be intact, and at the end every shared counter and array equal
 * what was sent to it. tests/fault/rma_storm.sh
 * runs it while a rail fails. */
#include <mpi.h>

#include "check.h"
#include <stdlib.h>
#include <time.h>

static int rank, size;

#define A 32
#define B 8192 /* longs per origin's block: puts and gets of 64 KiB */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double secs = argc > 1 ? atof(argv[1]) : 0.5;
    /* [0] shared counter, [1 + r] origin r's counter, the array, then a
     * block per origin */
    long n = 1 + size + A + (long)B * size;
    long *mem;
    MPI_Win win;
    MPI_Win_allocate(n * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    for (long i = 0; i < n; i++)
        mem[i] = 0;
    long *sent = calloc((size_t)size, sizeof(long)), *total = calloc((size_t)size, sizeof(long));
    long one = 1, old, arr[A];
    long *blk = malloc(B * sizeof(long)), *back = malloc(B * sizeof(long));
    MPI_Aint at = 1 + size + A + (MPI_Aint)B * rank;
    for (int i = 0; i < A; i++)
        arr[i] = i + 1;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    double t0 = now();
    long ops = 0;
    while (now() - t0 < secs) {
        for (int t = 0; t < size; t++) {
            MPI_Fetch_and_op(&one, &old, MPI_LONG, t, 1 + rank, MPI_SUM, win);
            MPI_Win_flush(t, win);
            CHECK(old == sent[t], "my counter at rank %d returned %ld after %ld adds", t, old, sent[t]);
            MPI_Fetch_and_op(&one, &old, MPI_LONG, t, 0, MPI_SUM, win);
            MPI_Accumulate(arr, A, MPI_LONG, t, 1 + size, A, MPI_LONG, MPI_SUM, win);
            MPI_Win_flush(t, win);
            /* puts and gets may overtake each other and go striped over
             * the rails; a flush orders them */
            for (int i = 0; i < B; i++)
                blk[i] = sent[t] * 1000003 + i + rank;
            MPI_Put(blk, B, MPI_LONG, t, at, B, MPI_LONG, win);
            MPI_Win_flush(t, win);
            MPI_Get(back, B, MPI_LONG, t, at, B, MPI_LONG, win);
            MPI_Win_flush(t, win);
            for (int i = 0; i < B; i++)
                CHECK(back[i] == blk[i], "block from rank %d: [%d] = %ld, want %ld", t, i, back[i], blk[i]);
            sent[t]++;
            ops += 5;
        }
    }
    MPI_Win_unlock_all(win);
    MPI_Allreduce(sent, total, size, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(mem[0] == total[rank], "shared counter %ld, want %ld", mem[0], total[rank]);
    for (int i = 0; i < A; i++)
        CHECK(mem[1 + size + i] == total[rank] * (i + 1), "array [%d] = %ld, want %ld", i,
              mem[1 + size + i], total[rank] * (i + 1));
    for (int r = 0; r < size; r++) {
        long from_r;
        MPI_Sendrecv(&sent[r], 1, MPI_LONG, r, 0, &from_r, 1, MPI_LONG, r, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        CHECK(mem[1 + r] == from_r, "counter of origin %d: %ld, want %ld", r, mem[1 + r], from_r);
    }
    long all_ops;
    MPI_Reduce(&ops, &all_ops, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Win_free(&win);
    free(sent);
    free(total);
    free(blk);
    free(back);
    MPI_Finalize();
    if (rank == 0)
        printf("rma_storm: %ld operations, exact sums: OK\n", all_ops);
    return 0;
}
