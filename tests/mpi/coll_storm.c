/* ranks: 2 4 */
/* Large collectives back to back for SECONDS (argument; default 0.3):
 * every round an MPI_Allreduce of 1 MiB (ints, sum), an MPI_Alltoall of
 * 256 KiB per pair, and an MPI_Iallreduce of 1 MiB (max) waited for after
 * the alltoall was checked, each with values that change per round, so a
 * message lost, doubled, reordered or stale from an earlier round shows.
 * Every result must be exact. Rank 0 prints "progress UNIXTIME round R" per
 * round (a stall shows as a gap) and decides when to stop (broadcast, so all
 * ranks run the same rounds). tests/fault/coll_rail_down.sh runs it while a
 * rail fails. */
#include <mpi.h>

#include "check.h"
#include <stdlib.h>
#include <time.h>

static int rank, size;

#define N (1 << 18)  /* ints per allreduce: 1 MiB */
#define B (1 << 16)  /* ints per alltoall block: 256 KiB */

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double secs = argc > 1 ? atof(argv[1]) : 0.3;
    int *in = malloc(sizeof(int) * N), *out = malloc(sizeof(int) * N);
    int *xin = malloc(sizeof(int) * N), *xout = malloc(sizeof(int) * N);
    int *sb = malloc(sizeof(int) * (size_t)B * size), *rb = malloc(sizeof(int) * (size_t)B * size);
    CHECK(in && out && xin && xout && sb && rb, "out of memory");
    double t0 = MPI_Wtime();
    int stop = 0, round = 0;
    long nsum = (long)size * (size - 1) / 2;
    while (!stop) {
        for (int i = 0; i < N; i++) {
            in[i] = rank * 7 + i + round * 3;
            xin[i] = (i * 31 + rank * 17 + round) % 100003;
        }
        MPI_Request req;
        MPI_Iallreduce(xin, xout, N, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &req);
        MPI_Allreduce(in, out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        for (int i = 0; i < N; i++) {
            long want = 7 * nsum + (long)size * (i + round * 3);
            CHECK(out[i] == want, "round %d allreduce [%d] = %d, want %ld", round, i, out[i], want);
        }
        for (int t = 0; t < size; t++)
            for (int i = 0; i < B; i++)
                sb[(size_t)t * B + i] = ((rank * 64 + t) * 4096 + round) * 8 + (i & 7) + i;
        MPI_Alltoall(sb, B, MPI_INT, rb, B, MPI_INT, MPI_COMM_WORLD);
        for (int f = 0; f < size; f++)
            for (int i = 0; i < B; i++) {
                int want = ((f * 64 + rank) * 4096 + round) * 8 + (i & 7) + i;
                CHECK(rb[(size_t)f * B + i] == want, "round %d alltoall from %d [%d] = %d, want %d",
                      round, f, i, rb[(size_t)f * B + i], want);
            }
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        for (int i = 0; i < N; i++) {
            int want = 0;
            for (int r = 0; r < size; r++) {
                int v = (i * 31 + r * 17 + round) % 100003;
                want = v > want ? v : want;
            }
            CHECK(xout[i] == want, "round %d iallreduce [%d] = %d, want %d", round, i, xout[i], want);
        }
        round++;
        if (rank == 0) {
            printf("progress %.6f round %d\n", wall(), round);
            fflush(stdout);
            stop = MPI_Wtime() - t0 >= secs;
        }
        MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("coll_storm: %d rounds on %d ranks, every result exact: OK\n", round, size);
    free(in), free(out), free(xin), free(xout), free(sb), free(rb);
    MPI_Finalize();
    return 0;
}
