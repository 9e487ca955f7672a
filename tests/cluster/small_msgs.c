/* Small messages between two ranks on different hosts, the RDMA fast path's
 * traffic: a ping-pong of every size from 0 to 2100 bytes (across the
 * ring slot's capacity, so that frames alternate between the ring and
 * posted receives), then windows of 64 messages of mixed sizes each way at
 * once, then a burst of 5000 one-way messages that overruns the ring's
 * slots. Every byte is checked, and the order: MPI keeps messages of one
 * sender and tag in order, whichever way each frame travelled.
 * Prints "OK small" on rank 0. Usage: small_msgs [rounds] */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char val(int msg, int i)
{
    return (unsigned char)(msg * 131 + i * 7 + (i >> 8));
}

static int check(const unsigned char *b, int n, int msg, const char *what, int rank)
{
    for (int i = 0; i < n; i++)
        if (b[i] != val(msg, i)) {
            fprintf(stderr, "ERROR rank %d %s message %d (%d bytes): byte %d is %u, not %u\n", rank, what, msg, n,
                    i, b[i], val(msg, i));
            return 1;
        }
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, errors = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (!rank)
            fprintf(stderr, "ERROR: needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int rounds = argc > 1 ? atoi(argv[1]) : 2;
    int other = 1 - rank;
    enum { MAX = 2100, WIN = 64, BURST = 5000 };
    unsigned char *sb = malloc((size_t)MAX * WIN), *rb = malloc((size_t)MAX * WIN);
    MPI_Request rq[2 * WIN];
    for (int round = 0; round < rounds; round++) {
        /* ping-pong, every size */
        for (int n = 0; n <= MAX; n++) {
            int msg = round * 10000 + n;
            MPI_Status st;
            int cnt;
            if (rank == 0) {
                for (int i = 0; i < n; i++)
                    sb[i] = val(msg, i);
                MPI_Send(sb, n, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
                MPI_Recv(rb, MAX, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &st);
            } else {
                MPI_Recv(rb, MAX, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &st);
                MPI_Send(rb, n, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
            }
            MPI_Get_count(&st, MPI_BYTE, &cnt);
            if (cnt != n) {
                fprintf(stderr, "ERROR rank %d ping-pong: %d bytes, not %d\n", rank, cnt, n);
                errors++;
            }
            errors += check(rb, n, msg, "ping-pong", rank);
            if (errors)
                break;
        }
        /* windows both ways at once, mixed sizes, one tag: order matters */
        for (int w = 0; w < 20 && !errors; w++) {
            for (int k = 0; k < WIN; k++) {
                int msg = round * 100000 + w * WIN + k, n = (k * 397 + w * 31) % MAX;
                MPI_Irecv(rb + (size_t)k * MAX, MAX, MPI_BYTE, other, 3, MPI_COMM_WORLD, &rq[k]);
                for (int i = 0; i < n; i++)
                    sb[(size_t)k * MAX + i] = val(msg, i);
                MPI_Isend(sb + (size_t)k * MAX, n, MPI_BYTE, other, 3, MPI_COMM_WORLD, &rq[WIN + k]);
            }
            MPI_Status st[2 * WIN];
            MPI_Waitall(2 * WIN, rq, st);
            for (int k = 0; k < WIN; k++) {
                int msg = round * 100000 + w * WIN + k, n = (k * 397 + w * 31) % MAX, cnt;
                MPI_Get_count(&st[k], MPI_BYTE, &cnt);
                if (cnt != n) {
                    fprintf(stderr, "ERROR rank %d window %d message %d: %d bytes, not %d\n", rank, w, k, cnt, n);
                    errors++;
                    break;
                }
                if ((errors += check(rb + (size_t)k * MAX, n, msg, "window", rank)))
                    break;
            }
        }
        /* a one-way burst, far more than a ring holds */
        if (!errors) {
            if (rank == 0) {
                for (int k = 0; k < BURST; k++) {
                    int n = 1 + k % 200;
                    for (int i = 0; i < n; i++)
                        sb[i] = val(k + round, i);
                    MPI_Send(sb, n, MPI_BYTE, 1, 4, MPI_COMM_WORLD);
                }
            } else {
                for (int k = 0; k < BURST && !errors; k++) {
                    MPI_Recv(rb, MAX, MPI_BYTE, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    errors += check(rb, 1 + k % 200, k + round, "burst", rank);
                }
            }
        }
        MPI_Allreduce(MPI_IN_PLACE, &errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (errors)
            break;
    }
    if (!rank && !errors)
        printf("OK small rounds %d\n", rounds);
    free(sb);
    free(rb);
    MPI_Finalize();
    return errors ? 1 : 0;
}
