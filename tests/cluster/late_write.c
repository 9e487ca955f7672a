/* Late remote writes: rank 0 sends 4 MiB messages to rank 1, one at a time,
 * for SECONDS; large messages go by remote writes into rank 1's receive
 * buffer. Rank 1 checks each message, then fills its buffer with 0xEE
 * (a byte no message carries). A message that took over 100 ms was in
 * flight when a rail failed: a write of it may have been given up and done
 * again on another rail while the first is still on its way. Its buffer is
 * kept aside, never used again, and checked once more at the end: any byte
 * that is no longer 0xEE was placed after the receive completed. The other
 * buffers are reused at once (the next message fills them anyway).
 * Prints "progress N" lines while it runs (the fault scripts time their
 * faults from the first), "OK messages N kept K" at the end; exit 1 on a
 * wrong or late byte. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MSG (4u << 20)
#define KEPT_MAX 64
#define POISON 0xEE

static unsigned char pattern(uint32_t seq, size_t i)
{
    return (unsigned char)((seq * 31u + i * 7u) % 200u); /* never 0xEE */
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double secs = argc > 1 ? atof(argv[1]) : 20;
    if (size != 2 || secs <= 0) {
        if (rank == 0)
            fprintf(stderr, "usage: 2 ranks, late_write SECONDS\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    unsigned char *buf = malloc(MSG);
    unsigned char *kept[KEPT_MAX];
    uint32_t kept_seq[KEPT_MAX];
    int nkept = 0, bad = 0;
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 3);
    double t0 = MPI_Wtime(), last_progress = t0;
    uint32_t seq = 0;
    for (int more = 1; more; seq++) {
        if (rank == 0) {
            more = MPI_Wtime() - t0 < secs;
            for (size_t i = 0; i < MSG; i++)
                buf[i] = pattern(seq, i);
            /* tag 1: another follows; tag 2: the last */
            MPI_Send(buf, MSG, MPI_BYTE, 1, more ? 1 : 2, MPI_COMM_WORLD);
        } else {
            double t = MPI_Wtime();
            MPI_Status st;
            MPI_Recv(buf, MSG, MPI_BYTE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            double took = MPI_Wtime() - t;
            more = st.MPI_TAG == 1;
            for (size_t i = 0; i < MSG; i++)
                if (buf[i] != pattern(seq, i)) {
                    printf("FAIL: message %u: byte %zu is %u, not %u\n", seq, i, buf[i], pattern(seq, i));
                    bad = 1;
                    break;
                }
            memset(buf, POISON, MSG);
            if (took > 0.1 && nkept < KEPT_MAX) {
                printf("message %u took %.3f s: its buffer is kept and checked at the end\n", seq, took);
                kept[nkept] = buf;
                kept_seq[nkept++] = seq;
                buf = malloc(MSG);
                if (!buf)
                    MPI_Abort(MPI_COMM_WORLD, 3);
            }
        }
        if (rank == 1 && MPI_Wtime() - last_progress >= 1) {
            last_progress = MPI_Wtime();
            printf("progress %u\n", seq);
            fflush(stdout);
        }
    }
    if (rank == 1) {
        for (int k = 0; k < nkept; k++) {
            size_t changed = 0, first = 0;
            for (size_t i = 0; i < MSG; i++)
                if (kept[k][i] != POISON && !changed++)
                    first = i;
            if (changed) {
                printf("FAIL: message %u: %zu bytes of its buffer changed after the receive completed "
                       "(the first at %zu)\n", kept_seq[k], changed, first);
                bad = 1;
            }
            free(kept[k]);
        }
        if (!bad)
            printf("OK messages %u kept %d\n", seq, nkept);
    }
    free(buf);
    MPI_Finalize();
    return bad;
}
