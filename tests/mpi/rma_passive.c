/* ranks: 2 3 4 */
/* Passive-target progress: rank 0 is the target and, with the argument
 * "async", computes without calling MPI until the others' fetch-and-adds
 * and puts have all landed in its window (across hosts the asynchronous
 * progress thread serves them); it gives up after 20 s. Without the
 * argument (one host, no progress thread) rank 0 waits in a barrier. */
#include <mpi.h>

#include "check.h"
#include <string.h>
#include <time.h>

static int rank, size;

#define K 20

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
    int async = argc > 1 && !strcmp(argv[1], "async");
    long *mem;
    MPI_Win win;
    MPI_Win_allocate(64 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    memset(mem, 0, 64 * sizeof(long));
    MPI_Barrier(MPI_COMM_WORLD);
    long want = (long)K * (size - 1);
    if (rank == 0) {
        if (async) {
            volatile long *c = mem;
            double t0 = now();
            while (c[0] < want || c[1 + size - 1] == 0) {
                if (now() - t0 > 20)
                    break;
            }
            CHECK(c[0] == want, "counter %ld after %.1f s of computing, want %ld", c[0], now() - t0, want);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        for (int r = 1; r < size; r++)
            CHECK(mem[1 + r] == r * 11, "put from %d: %ld", r, mem[1 + r]);
        CHECK(mem[0] == want, "counter %ld", mem[0]);
    } else {
        long one = 1, old, v = rank * 11;
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        for (int i = 0; i < K; i++) {
            MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, 0, MPI_SUM, win);
            MPI_Win_flush(0, win);
            CHECK(old >= 0 && old < want, "fetched %ld", old);
        }
        MPI_Win_unlock(0, win);
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Put(&v, 1, MPI_LONG, 0, 1 + rank, 1, MPI_LONG, win);
        MPI_Win_unlock(0, win);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    if (rank == 0)
        printf("OK\n");
    return 0;
}
