/* Bursts of small messages between two ranks on two hosts (tests/cluster/
 * bursts.sh). Part 1: ROUNDS windows of 64 MPI_Isend of 1 to 4096 bytes from
 * rank 0, then MPI_Waitall; rank 1 receives every message (checking every
 * byte and the order) and answers each window with one byte. Part 2, three
 * times: a burst of 16 sends, after which rank 0 computes for 1 s without
 * calling MPI: rank 1 must have all 16 long before (the frames a burst holds
 * back leave without the sender's next MPI call). Prints "OK bursts N" on
 * rank 0, and on rank 1 "burst wait S" (the longest of the three waits for
 * part 2's messages, in seconds).
 * Usage: bursts [rounds] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define WIN 64
#define MAXB 4096

static unsigned char val(int msg, int i)
{
    return (unsigned char)(msg * 131 + i * 7 + 3);
}

static int size_of(int msg)
{
    static const int sizes[] = {1, 8, 24, 64, 200, 1000, 2048, 4096};
    return sizes[msg % 8];
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, n, rounds = argc > 1 ? atoi(argv[1]) : 1000;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (n != 2) {
        if (!rank)
            fprintf(stderr, "bursts: needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    static unsigned char buf[WIN][MAXB];
    MPI_Request req[WIN];
    int bad = 0, msg = 0;
    for (int r = 0; r < rounds; r++) {
        if (rank == 0) {
            for (int w = 0; w < WIN; w++, msg++) {
                for (int i = 0; i < size_of(msg); i++)
                    buf[w][i] = val(msg, i);
                MPI_Isend(buf[w], size_of(msg), MPI_BYTE, 1, 7, MPI_COMM_WORLD, &req[w]);
            }
            MPI_Waitall(WIN, req, MPI_STATUSES_IGNORE);
            unsigned char a;
            MPI_Recv(&a, 1, MPI_BYTE, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            for (int w = 0; w < WIN; w++)
                MPI_Irecv(buf[w], MAXB, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &req[w]);
            MPI_Status st[WIN];
            MPI_Waitall(WIN, req, st);
            for (int w = 0; w < WIN; w++, msg++) {
                int got;
                MPI_Get_count(&st[w], MPI_BYTE, &got);
                if (got != size_of(msg)) {
                    if (bad++ < 5)
                        fprintf(stderr, "ERROR message %d: %d bytes, want %d (order?)\n", msg, got, size_of(msg));
                    continue;
                }
                for (int i = 0; i < got; i++)
                    if (buf[w][i] != val(msg, i)) {
                        if (bad++ < 5)
                            fprintf(stderr, "ERROR message %d byte %d: %u, want %u\n", msg, i, buf[w][i], val(msg, i));
                        break;
                    }
            }
            unsigned char a = 1;
            MPI_Send(&a, 1, MPI_BYTE, 0, 8, MPI_COMM_WORLD);
        }
    }
    /* part 2: a burst, then 1 s without MPI on the sender; three times */
    double longest = 0;
    for (int k = 0; k < 3; k++) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            for (int w = 0; w < 16; w++) {
                buf[w][0] = (unsigned char)(w + k);
                MPI_Isend(buf[w], 8, MPI_BYTE, 1, 9, MPI_COMM_WORLD, &req[w]);
            }
            struct timespec ts = {1, 0};
            nanosleep(&ts, NULL);
            MPI_Waitall(16, req, MPI_STATUSES_IGNORE);
        } else {
            for (int w = 0; w < 16; w++)
                MPI_Irecv(buf[w], 8, MPI_BYTE, 0, 9, MPI_COMM_WORLD, &req[w]);
            double t0 = MPI_Wtime();
            MPI_Waitall(16, req, MPI_STATUSES_IGNORE);
            double t = MPI_Wtime() - t0;
            longest = t > longest ? t : longest;
            for (int w = 0; w < 16; w++)
                if (buf[w][0] != w + k && bad++ < 5)
                    fprintf(stderr, "ERROR burst message %d holds %u\n", w, buf[w][0]);
        }
    }
    if (rank == 1)
        printf("burst wait %.3f\n", longest);
    int allbad;
    MPI_Allreduce(&bad, &allbad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && !allbad)
        printf("OK bursts %d\n", rounds * WIN);
    fflush(stdout);
    MPI_Finalize();
    return allbad != 0;
}
