/* Blocking large messages, the way halo exchanges and pipelines send them.
 *
 *   stream   rank 0 calls MPI_Send with one message after another; rank 1
 *            MPI_Recv's each and reads every byte of it (checks the pattern)
 *            before posting the next receive. One message in flight.
 *   pingpong rank 0 sends, rank 1 receives and sends the same size back;
 *            half the round trip is the one-way time.
 *
 * Output (rank 0): "stream SIZE MB/s" and "pingpong SIZE us" lines (MB = 1e6
 * bytes), plus "bad N" when any received byte was wrong (then exit 1).
 * Usage: stream [seconds per size (default 2)] [sizes... (default 64k 256k 1m 4m)]
 * A size may end in k or m (powers of 1024). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long parse_size(const char *s)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*end == 'k' || *end == 'K')
        v <<= 10;
    else if (*end == 'm' || *end == 'M')
        v <<= 20;
    return v;
}

/* Every message carries its index in every 8-byte word, so a stale, reordered
 * or corrupted message is caught by the receiver's read of every byte. */
static void fill(uint64_t *p, size_t words, uint64_t idx)
{
    for (size_t i = 0; i < words; i++)
        p[i] = idx * 0x9e3779b97f4a7c15ull + i;
}

static long check(const uint64_t *p, size_t words, uint64_t idx)
{
    long bad = 0;
    for (size_t i = 0; i < words; i++)
        bad += p[i] != idx * 0x9e3779b97f4a7c15ull + i;
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (nranks != 2) {
        if (!rank)
            fprintf(stderr, "stream needs exactly 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double secs = argc > 1 ? atof(argv[1]) : 2.0;
    long def[] = {64 << 10, 256 << 10, 1 << 20, 4 << 20};
    int nsizes = argc > 2 ? argc - 2 : 4;
    long total_bad = 0;
    for (int si = 0; si < nsizes; si++) {
        long n = argc > 2 ? parse_size(argv[2 + si]) : def[si];
        size_t words = (size_t)n / 8;
        uint64_t *buf = malloc((size_t)n);
        /* rank 0 prepares a few messages ahead so filling them costs the
         * stream nothing; the receiver's check is part of what is measured */
        enum { NPRE = 4 };
        uint64_t *pre[NPRE];
        for (int k = 0; k < NPRE; k++) {
            pre[k] = malloc((size_t)n);
            fill(pre[k], words, (uint64_t)k);
        }
        /* how many messages make `secs` seconds: a 0.3 s probe at 100 MB/s */
        long iters = (long)(secs * 400e6 / (double)n);
        if (iters < 8)
            iters = 8;
        if (iters > 20000)
            iters = 20000;
        /* ---- stream ---- */
        long bad = 0;
        int warm = 4;
        double t0 = 0;
        for (long i = 0; i < iters + warm; i++) {
            if (i == warm) {
                MPI_Barrier(MPI_COMM_WORLD);
                t0 = MPI_Wtime();
            }
            if (rank == 0) {
                MPI_Send(pre[i % NPRE], (int)n, MPI_BYTE, 1, 7, MPI_COMM_WORLD);
            } else {
                MPI_Recv(buf, (int)n, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                bad += check(buf, words, (uint64_t)(i % NPRE));
            }
        }
        /* the stream ends when the receiver has read the last message */
        char z = 0;
        if (rank == 1)
            MPI_Send(&z, 1, MPI_CHAR, 0, 8, MPI_COMM_WORLD);
        else
            MPI_Recv(&z, 1, MPI_CHAR, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        double t = MPI_Wtime() - t0;
        if (!rank)
            printf("stream %ld %.1f\n", n, (double)n * (double)iters / t / 1e6);
        /* ---- ping-pong ---- */
        long pp = iters / 4 < 8 ? 8 : iters / 4;
        for (long i = 0; i < pp + warm; i++) {
            if (i == warm) {
                MPI_Barrier(MPI_COMM_WORLD);
                t0 = MPI_Wtime();
            }
            if (rank == 0) {
                MPI_Send(pre[i % NPRE], (int)n, MPI_BYTE, 1, 9, MPI_COMM_WORLD);
                MPI_Recv(buf, (int)n, MPI_BYTE, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, (int)n, MPI_BYTE, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, (int)n, MPI_BYTE, 0, 9, MPI_COMM_WORLD);
            }
        }
        t = MPI_Wtime() - t0;
        if (!rank) {
            bad += check(buf, words, (uint64_t)((pp + warm - 1) % NPRE));
            printf("pingpong %ld %.1f\n", n, t / (double)pp / 2 * 1e6);
        }
        MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        total_bad += bad;
        for (int k = 0; k < NPRE; k++)
            free(pre[k]);
        free(buf);
        fflush(stdout);
    }
    if (!rank && total_bad)
        printf("bad %ld\n", total_bad);
    MPI_Finalize();
    return total_bad ? 1 : 0;
}
