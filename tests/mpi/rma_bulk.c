/* ranks: 1 2 4 */
/* Large puts and gets (several MiB, at odd offsets and lengths, so pieces
 * are cut anywhere) from and into contiguous and strided buffers, under
 * lock_all + flush, fence and Rput. Across hosts these travel as plain data
 * sent from the origin buffer and landing in the target's memory: the
 * origin buffer is overwritten as soon as a completion call allows it
 * (flush_local, fence, unlock_all, a completed Rput), so data still read
 * from it afterwards would arrive corrupted. tests/cluster/rma_hosts.sh runs
 * it across hosts and checks that the data was received in place. */
#include <mpi.h>

#include "check.h"
#include <stdlib.h>
#include <string.h>

static int rank, size;

#define N ((4 << 20) + 4099) /* bytes per put: not a multiple of any piece */
#define OFF 5                /* byte displacement in the window */

static unsigned char pat(int who, int round, size_t i)
{
    return (unsigned char)(who * 31 + round * 7 + i * 13 + (i >> 12));
}

static void fill(unsigned char *b, int who, int round)
{
    for (size_t i = 0; i < N; i++)
        b[i] = pat(who, round, i);
}

static void expect(const unsigned char *b, int who, int round, const char *what)
{
    for (size_t i = 0; i < N; i++)
        CHECK(b[i] == pat(who, round, i), "%s: byte %zu is %u, not %u (from rank %d, round %d)", what,
              i, b[i], pat(who, round, i), who, round);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Aint wlen = N + 2 * OFF;
    unsigned char *mem = malloc((size_t)wlen), *src = malloc(N), *dst = malloc(N);
    unsigned char *wide = malloc(2 * (size_t)N); /* every other byte */
    CHECK(mem && src && dst && wide, "out of memory");
    memset(mem, 0, (size_t)wlen);
    MPI_Win win;
    MPI_Win_create(mem, wlen, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);

    /* lock_all: put to the right, flush_local, spoil the buffer, flush */
    fill(src, rank, 1);
    MPI_Win_lock_all(0, win);
    MPI_Put(src, N, MPI_BYTE, right, OFF, N, MPI_BYTE, win);
    MPI_Win_flush_local(right, win);
    memset(src, 0xee, N);
    MPI_Win_flush(right, win);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    expect(mem + OFF, left, 1, "put, lock_all");
    CHECK(mem[OFF - 1] == 0 && mem[OFF + N] == 0, "put wrote outside its range");

    /* get it back from the right into a contiguous buffer, then into every
     * other byte of a strided one */
    MPI_Win_lock_all(0, win);
    MPI_Get(dst, N, MPI_BYTE, right, OFF, N, MPI_BYTE, win);
    MPI_Win_flush(right, win);
    expect(dst, rank, 1, "get, contiguous");
    MPI_Datatype every2;
    MPI_Type_vector(N, 1, 2, MPI_BYTE, &every2);
    MPI_Type_commit(&every2);
    memset(wide, 0, 2 * (size_t)N);
    MPI_Get(wide, 1, every2, right, OFF, N, MPI_BYTE, win);
    MPI_Win_unlock_all(win);
    for (size_t i = 0; i < N; i++)
        dst[i] = wide[2 * i];
    expect(dst, rank, 1, "get, strided");
    MPI_Barrier(MPI_COMM_WORLD);

    /* fence: a strided origin, a contiguous derived target type */
    MPI_Datatype kib;
    MPI_Type_contiguous(1024, MPI_BYTE, &kib);
    MPI_Type_commit(&kib);
    fill(dst, rank, 2);
    for (size_t i = 0; i < N; i++)
        wide[2 * i] = dst[i];
    MPI_Win_fence(0, win);
    MPI_Datatype every2k;
    MPI_Type_vector(N / 1024 * 1024, 1, 2, MPI_BYTE, &every2k);
    MPI_Type_commit(&every2k);
    MPI_Put(wide, 1, every2k, right, OFF, N / 1024, kib, win);
    MPI_Win_fence(0, win);
    memset(wide, 0xee, 2 * (size_t)N);
    /* the bytes past the last whole KiB kept round 1's values */
    for (size_t i = 0; i < N; i++)
        CHECK(mem[OFF + i] == pat(left, i < N / 1024 * 1024 ? 2 : 1, i), "put, fence: byte %zu", i);
    MPI_Win_fence(0, win);
    MPI_Get(dst, N / 1024, kib, right, OFF, N / 1024, kib, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    for (size_t i = 0; i < N / 1024 * 1024; i++)
        CHECK(dst[i] == pat(rank, 2, i), "get, fence: byte %zu", i);

    /* Rput completes at once: its buffer is the program's on return */
    fill(src, rank, 3);
    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
    MPI_Request rq;
    MPI_Rput(src, N, MPI_BYTE, right, OFF, N, MPI_BYTE, win, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    memset(src, 0xee, N);
    MPI_Win_unlock(right, win);
    MPI_Barrier(MPI_COMM_WORLD);
    expect(mem + OFF, left, 3, "rput");

    /* many puts in one epoch, then unlock_all spoils nothing */
    MPI_Barrier(MPI_COMM_WORLD);
    fill(src, rank, 4);
    MPI_Win_lock_all(0, win);
    for (size_t at = 0; at < N; at += 300000) {
        int n = N - at < 300000 ? (int)(N - at) : 300000;
        MPI_Put(src + at, n, MPI_BYTE, right, (MPI_Aint)(OFF + at), n, MPI_BYTE, win);
    }
    MPI_Win_unlock_all(win);
    memset(src, 0xee, N);
    MPI_Barrier(MPI_COMM_WORLD);
    expect(mem + OFF, left, 4, "puts, unlock_all");

    MPI_Type_free(&every2);
    MPI_Type_free(&kib);
    MPI_Type_free(&every2k);
    MPI_Win_free(&win);
    free(mem);
    free(src);
    free(dst);
    free(wide);
    if (rank == 0)
        printf("rma_bulk: OK\n");
    MPI_Finalize();
    return 0;
}
