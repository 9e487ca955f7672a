/* One-sided benchmarks, osu_put/get style, between ranks 0 (origin) and 1
 * (target), which waits in MPI_Barrier (inside MPI) meanwhile:
 *   put_lat / get_lat   lock_all once; per iteration one put (get) + flush: usec
 *   fence_lat           fence, put, fence on both ranks: usec per epoch
 *   sr_lat              the send/receive equivalent of put + flush: a send of
 *                       the data and a zero-byte acknowledgement back: usec
 *   put_bw / get_bw     64 operations per flush: MB/s
 *   fput_bw / fget_bw   64 operations per fence epoch (fence on both ranks): MB/s
 *   acc_rate            8-byte MPI_SUM accumulates, 64 per flush: thousand ops/s
 * Sizes 8, 64, 512 ... (times 8) up to max_bytes, and max_bytes itself.
 * Output: "test size value" lines from rank 0.
 * Usage: rma [max_bytes [bw]]   (bw: only the bandwidth figures, at max_bytes) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank;
static MPI_Win win;
static char *buf, *wmem;

static int iters_for(long n)
{
    return n <= 8192 ? 5000 : n <= 262144 ? 500 : 50;
}

static void lat(const char *name, long n, int get)
{
    int iters = iters_for(n), warm = iters / 10;
    double t0 = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock_all(0, win);
        for (int i = 0; i < iters + warm; i++) {
            if (i == warm)
                t0 = MPI_Wtime();
            if (get)
                MPI_Get(buf, (int)n, MPI_BYTE, 1, 0, (int)n, MPI_BYTE, win);
            else
                MPI_Put(buf, (int)n, MPI_BYTE, 1, 0, (int)n, MPI_BYTE, win);
            MPI_Win_flush(1, win);
        }
        double t = MPI_Wtime() - t0;
        MPI_Win_unlock_all(win);
        printf("%s %ld %.2f\n", name, n, t * 1e6 / iters);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void bw(const char *name, long n, int get)
{
    int iters = n <= 65536 ? 100 : n <= 1048576 ? 10 : 3, window = 64, warm = 2;
    if ((long)window * n > (64L << 20))
        window = (int)((64L << 20) / n);
    double t0 = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock_all(0, win);
        for (int i = 0; i < iters + warm; i++) {
            if (i == warm)
                t0 = MPI_Wtime();
            for (int k = 0; k < window; k++) {
                if (get)
                    MPI_Get(buf + (size_t)k * n, (int)n, MPI_BYTE, 1, k * n, (int)n, MPI_BYTE, win);
                else
                    MPI_Put(buf + (size_t)k * n, (int)n, MPI_BYTE, 1, k * n, (int)n, MPI_BYTE, win);
            }
            MPI_Win_flush(1, win);
        }
        double t = MPI_Wtime() - t0;
        MPI_Win_unlock_all(win);
        printf("%s %ld %.1f\n", name, n, (double)n * window * iters / t / 1e6);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void fence_bw(const char *name, long n, int get)
{
    int iters = n <= 65536 ? 100 : n <= 1048576 ? 10 : 3, window = 64, warm = 2;
    if ((long)window * n > (64L << 20))
        window = (int)((64L << 20) / n);
    double t0 = 0;
    MPI_Win_fence(0, win);
    for (int i = 0; i < iters + warm; i++) {
        if (i == warm)
            t0 = MPI_Wtime();
        if (rank == 0)
            for (int k = 0; k < window; k++) {
                if (get)
                    MPI_Get(buf + (size_t)k * n, (int)n, MPI_BYTE, 1, k * n, (int)n, MPI_BYTE, win);
                else
                    MPI_Put(buf + (size_t)k * n, (int)n, MPI_BYTE, 1, k * n, (int)n, MPI_BYTE, win);
            }
        MPI_Win_fence(0, win);
    }
    double t = MPI_Wtime() - t0;
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    if (rank == 0)
        printf("%s %ld %.1f\n", name, n, (double)n * window * iters / t / 1e6);
}

static void fence_lat(long n)
{
    int iters = iters_for(n) / 5 + 10, warm = 5;
    double t0 = 0;
    MPI_Win_fence(0, win);
    for (int i = 0; i < iters + warm; i++) {
        if (i == warm)
            t0 = MPI_Wtime();
        if (rank == 0)
            MPI_Put(buf, (int)n, MPI_BYTE, 1, 0, (int)n, MPI_BYTE, win);
        MPI_Win_fence(0, win);
    }
    double t = MPI_Wtime() - t0;
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    if (rank == 0)
        printf("fence_lat %ld %.2f\n", n, t * 1e6 / iters);
}

static void sr_lat(long n)
{
    int iters = iters_for(n), warm = iters / 10;
    double t0 = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < iters + warm; i++) {
        if (i == warm)
            t0 = MPI_Wtime();
        if (rank == 0) {
            MPI_Send(buf, (int)n, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(NULL, 0, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(wmem, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(NULL, 0, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
        }
    }
    if (rank == 0)
        printf("sr_lat %ld %.2f\n", n, (MPI_Wtime() - t0) * 1e6 / iters);
}

static void acc_rate(void)
{
    int iters = 500, window = 64;
    double v = 1.0, t0 = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win_lock_all(0, win);
        for (int i = 0; i < iters + 10; i++) {
            if (i == 10)
                t0 = MPI_Wtime();
            for (int k = 0; k < window; k++)
                MPI_Accumulate(&v, 1, MPI_DOUBLE, 1, k * 8, 1, MPI_DOUBLE, MPI_SUM, win);
            MPI_Win_flush(1, win);
        }
        double t = MPI_Wtime() - t0;
        MPI_Win_unlock_all(win);
        printf("acc_rate 8 %.1f\n", (double)iters * window / t / 1e3);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long max = argc > 1 ? atol(argv[1]) : 4 << 20;
    int bw_only = argc > 2 && !strcmp(argv[2], "bw");
    if (size != 2) {
        if (!rank)
            fprintf(stderr, "rma needs exactly 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long wsize = 64L << 20;
    if (wsize < 64 * max)
        wsize = 64 * max;
    buf = malloc((size_t)wsize);
    memset(buf, 1, (size_t)wsize);
    MPI_Win_allocate(wsize, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wmem, &win);
    for (long n = bw_only ? max + 1 : 8; n <= max; n = n * 8 > max && n < max ? max : n * 8) {
        lat("put_lat", n, 0);
        lat("get_lat", n, 1);
        sr_lat(n);
        fence_lat(n);
    }
    for (long n = bw_only ? max : 8; n <= max; n = n * 8 > max && n < max ? max : n * 8) {
        bw("put_bw", n, 0);
        bw("get_bw", n, 1);
        fence_bw("fput_bw", n, 0);
        fence_bw("fget_bw", n, 1);
    }
    if (!bw_only)
        acc_rate();
    MPI_Win_free(&win);
    free(buf);
    MPI_Finalize();
    return 0;
}
