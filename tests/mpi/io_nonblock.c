/* ranks: 2 4 */
/* Nonblocking data access runs in the background (MPI-3.1 13.4.2, 13.4.5):
 * - an iread_at in atomic mode that waits for another process's fcntl lock
 *   is still pending after the call returns (MPI_Test says so), other
 *   requests started after it complete first (Waitany, Testsome) with the
 *   right data and counts, and when the lock holder writes and lets go the
 *   read returns what it wrote;
 * - iwrite_all / iread_all never wait for the other processes: a rank that
 *   starts one and then receives from a rank that sends (synchronously)
 *   before starting its own does not deadlock; the data lands where the
 *   interleaved views say;
 * - iwrite_shared / iread_shared move the shared pointer at the call;
 * - a request freed before it completes still writes its data;
 * - an access that fails in the background reports its class at completion
 *   through the file's error handler.
 * Code that did the transfer at the call fails the first part (rank 1 stops
 * waiting after 20 s) and deadlocks in the second (ended by alarm). */
static int rank, size;

#include "io_common.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <time.h>

#define LOCKED 4096
#define K 4
#define BLK 65536
#define NB 64 /* ints per block of the interleaved view */
#define NBLK 32

static void timed_out(int sig)
{
    (void)sig;
    static const char msg[] = "FAIL: io_nonblock timed out (a nonblocking call waited)\n";
    (void)!write(1, msg, sizeof msg - 1);
    _exit(1);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void background_under_lock(void)
{
    char lpath[512], fpath[512];
    io_path(lpath, sizeof lpath, "locked.dat");
    io_path(fpath, sizeof fpath, "free.dat");
    MPI_File lf;
    CHECK(MPI_File_open(MPI_COMM_WORLD, lpath, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &lf) ==
              MPI_SUCCESS, "open %s", lpath);
    CHECK(MPI_File_set_atomicity(lf, 1) == MPI_SUCCESS, "set_atomicity");
    char *old = malloc(LOCKED);
    memset(old, 'a', LOCKED);
    if (rank == 0)
        CHECK(MPI_File_write_at(lf, 0, old, LOCKED, MPI_BYTE, MPI_STATUS_IGNORE) == MPI_SUCCESS, "write_at");
    MPI_File_sync(lf);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(lf);
    int pfd = -1;
    if (rank == 1) {
        pfd = open(lpath, O_RDWR);
        CHECK(pfd >= 0, "open %s", lpath);
        struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = LOCKED};
        CHECK(fcntl(pfd, F_SETLKW, &fl) == 0, "fcntl lock");
    }
    MPI_Barrier(MPI_COMM_WORLD); /* rank 1 holds the lock */
    if (rank == 0) {
        char *got = malloc(LOCKED);
        memset(got, 0, LOCKED);
        MPI_Request req[1 + K];
        CHECK(MPI_File_iread_at(lf, 0, got, LOCKED, MPI_BYTE, &req[0]) == MPI_SUCCESS, "iread_at");
        int flag = 1;
        MPI_Status st;
        CHECK(MPI_Test(&req[0], &flag, &st) == MPI_SUCCESS && !flag, "iread_at under a lock completed");
        /* a second file, not atomic: writes of K blocks, then reads of them */
        MPI_File ff;
        CHECK(MPI_File_open(MPI_COMM_SELF, fpath, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &ff) ==
                  MPI_SUCCESS, "open %s", fpath);
        int *w = malloc(sizeof(int) * K * BLK), *r = malloc(sizeof(int) * K * BLK);
        for (int i = 0; i < K * BLK; i++)
            w[i] = i * 7 + 1;
        for (int k = 0; k < K; k++)
            CHECK(MPI_File_iwrite_at(ff, (MPI_Offset)k * BLK * sizeof(int), w + (size_t)k * BLK, BLK, MPI_INT,
                                     &req[1 + k]) == MPI_SUCCESS, "iwrite_at %d", k);
        int seen[1 + K] = {0};
        for (int k = 0; k < K; k++) {
            int idx = -1;
            CHECK(MPI_Waitany(1 + K, req, &idx, &st) == MPI_SUCCESS, "waitany");
            CHECK(idx >= 1 && idx <= K && !seen[idx], "waitany gave %d before the free writes", idx);
            seen[idx] = 1;
            int cnt = -1;
            MPI_Get_count(&st, MPI_INT, &cnt);
            CHECK(cnt == BLK, "write count %d", cnt);
        }
        CHECK(req[0] != MPI_REQUEST_NULL, "locked read freed");
        /* read the blocks back in reverse order through the individual
         * pointer (moved at each call) and complete them with Testsome */
        memset(r, 0, sizeof(int) * K * BLK);
        MPI_Request rq[K];
        for (int k = 0; k < K; k++) {
            MPI_File_seek(ff, (MPI_Offset)(K - 1 - k) * BLK * sizeof(int), MPI_SEEK_SET);
            CHECK(MPI_File_iread(ff, r + (size_t)(K - 1 - k) * BLK, BLK, MPI_INT, &rq[k]) == MPI_SUCCESS,
                  "iread %d", k);
        }
        MPI_Offset pos;
        MPI_File_get_position(ff, &pos);
        CHECK(pos == (MPI_Offset)BLK * sizeof(int), "individual pointer %lld after the ireads", (long long)pos);
        int left = K, outc, idx[K];
        MPI_Status sts[K];
        double t0 = now();
        while (left > 0) {
            CHECK(MPI_Testsome(K, rq, &outc, idx, sts) == MPI_SUCCESS, "testsome");
            CHECK(outc != MPI_UNDEFINED, "testsome: nothing active with %d left", left);
            for (int i = 0; i < outc; i++) {
                MPI_Count el = -1;
                MPI_Get_elements_x(&sts[i], MPI_INT, &el);
                CHECK(el == BLK, "read elements %lld", (long long)el);
            }
            left -= outc;
            CHECK(now() - t0 < 60, "ireads not done after 60 s");
        }
        CHECK(!memcmp(r, w, sizeof(int) * K * BLK), "read back other data");
        CHECK(MPI_File_close(&ff) == MPI_SUCCESS, "close");
        CHECK(MPI_Test(&req[0], &flag, &st) == MPI_SUCCESS && !flag, "iread_at under a lock completed");
        int go = 1;
        MPI_Send(&go, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
        CHECK(MPI_Wait(&req[0], &st) == MPI_SUCCESS, "wait");
        int cnt = -1;
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        CHECK(cnt == LOCKED, "locked read count %d", cnt);
        for (int i = 0; i < LOCKED; i++)
            CHECK(got[i] == 'b', "byte %d is %c: the read did not wait for the lock", i, got[i]);
        free(got);
        free(w);
        free(r);
    } else if (rank == 1) {
        int go = 0;
        MPI_Request rq;
        MPI_Irecv(&go, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &rq);
        int flag = 0;
        double t0 = now();
        while (!flag && now() - t0 < 20) {
            MPI_Test(&rq, &flag, MPI_STATUS_IGNORE);
            if (!flag)
                usleep(1000);
        }
        if (flag) {
            memset(old, 'b', LOCKED);
            CHECK(pwrite(pfd, old, LOCKED, 0) == LOCKED, "pwrite");
        }
        close(pfd); /* drops the lock */
        CHECK(flag, "rank 0 did not return from MPI_File_iread_at while the range was locked");
    }
    free(old);
    CHECK(MPI_File_close(&lf) == MPI_SUCCESS, "close");
}

/* Rank r of a pair (r even, r + 1) starts the collective before it receives;
 * r + 1 sends synchronously before it starts its own. */
static void pair_talk(int phase)
{
    int tok = phase * 100 + rank;
    if (rank % 2 && rank > 0) {
        MPI_Ssend(&tok, 1, MPI_INT, rank - 1, 9, MPI_COMM_WORLD);
    } else if (rank + 1 < size) {
        int got = -1;
        MPI_Recv(&got, 1, MPI_INT, rank + 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(got == phase * 100 + rank + 1, "token %d", got);
    }
}

static void collective_with_p2p(void)
{
    char path[512];
    io_path(path, sizeof path, "coll.dat");
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "romio_cb_read", "enable");
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh) == MPI_SUCCESS,
          "open");
    MPI_Info_free(&info);
    MPI_Datatype vec, ft;
    MPI_Type_vector(NBLK, NB, NB * size, MPI_INT, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)sizeof(int) * NB * NBLK * size, &ft);
    MPI_Type_commit(&ft);
    MPI_Type_free(&vec);
    CHECK(MPI_File_set_view(fh, (MPI_Offset)sizeof(int) * NB * rank, MPI_INT, ft, "native", MPI_INFO_NULL) ==
              MPI_SUCCESS, "set_view");
    int n = NB * NBLK;
    int *w = malloc(sizeof(int) * n), *r = malloc(sizeof(int) * n);
    for (int i = 0; i < n; i++)
        w[i] = rank * 1000000 + i;
    MPI_Request req;
    if (rank % 2 && rank > 0)
        pair_talk(1);
    CHECK(MPI_File_iwrite_all(fh, w, n, MPI_INT, &req) == MPI_SUCCESS, "iwrite_all");
    if (!(rank % 2 && rank > 0))
        pair_talk(1);
    MPI_Status st;
    CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS, "wait iwrite_all");
    int cnt = -1;
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(cnt == n, "iwrite_all count %d", cnt);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    memset(r, 0xff, sizeof(int) * n);
    /* the file of the next rank, through an explicit offset */
    MPI_File_set_view(fh, (MPI_Offset)sizeof(int) * NB * ((rank + 1) % size), MPI_INT, ft, "native",
                      MPI_INFO_NULL);
    if (rank % 2 && rank > 0)
        pair_talk(2);
    CHECK(MPI_File_iread_at_all(fh, 0, r, n, MPI_INT, &req) == MPI_SUCCESS, "iread_at_all");
    if (!(rank % 2 && rank > 0))
        pair_talk(2);
    CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS, "wait iread_at_all");
    MPI_Count el = -1;
    MPI_Get_elements_x(&st, MPI_INT, &el);
    CHECK(el == n, "iread_at_all elements %lld", (long long)el);
    int next = (rank + 1) % size;
    for (int i = 0; i < n; i++)
        CHECK(r[i] == next * 1000000 + i, "element %d of rank %d's data is %d", i, next, r[i]);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS, "close");
    MPI_Type_free(&ft);
    if (rank == 0) {
        long len;
        int *all = (int *)io_slurp(path, &len);
        CHECK(len == (long)sizeof(int) * n * size, "file length %ld", len);
        for (int b = 0; b < NBLK * size; b++)
            for (int i = 0; i < NB; i++) {
                int owner = b % size, v = all[b * NB + i];
                CHECK(v == owner * 1000000 + (b / size) * NB + i, "file int %d is %d", b * NB + i, v);
            }
        free(all);
    }
    free(w);
    free(r);
}

static void shared_pointer(void)
{
    char path[512];
    io_path(path, sizeof path, "shared.dat");
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh) ==
              MPI_SUCCESS, "open");
    int w[NB], r[NB];
    for (int i = 0; i < NB; i++)
        w[i] = rank * NB + i;
    MPI_Request req;
    CHECK(MPI_File_iwrite_shared(fh, w, NB, MPI_INT, &req) == MPI_SUCCESS, "iwrite_shared");
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "wait");
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    MPI_Offset sz;
    MPI_File_get_size(fh, &sz);
    CHECK(sz == (MPI_Offset)sizeof(int) * NB * size, "size %lld", (long long)sz);
    MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
    CHECK(MPI_File_iread_shared(fh, r, NB, MPI_INT, &req) == MPI_SUCCESS, "iread_shared");
    MPI_Status st;
    CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS, "wait");
    int cnt;
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(cnt == NB, "count %d", cnt);
    /* some process's block, whole */
    CHECK(r[0] % NB == 0 && r[0] / NB < size, "first int %d", r[0]);
    for (int i = 0; i < NB; i++)
        CHECK(r[i] == r[0] + i, "int %d is %d", i, r[i]);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS, "close");
}

/* A request freed before it completes: the access still happens (close
 * waits for it), and nothing leaks or is freed twice (ASan build). */
static void freed_request(void)
{
    char path[512];
    io_path(path, sizeof path, "freed.dat");
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh) ==
              MPI_SUCCESS, "open");
    static int w[BLK];
    for (int i = 0; i < BLK; i++)
        w[i] = rank * BLK + i;
    MPI_Request req;
    CHECK(MPI_File_iwrite_at(fh, (MPI_Offset)rank * sizeof w, w, BLK, MPI_INT, &req) == MPI_SUCCESS,
          "iwrite_at");
    CHECK(MPI_Request_free(&req) == MPI_SUCCESS && req == MPI_REQUEST_NULL, "request_free");
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS, "close");
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        long len;
        int *all = (int *)io_slurp(path, &len);
        CHECK(len == (long)sizeof w * size, "length %ld", len);
        for (int i = 0; i < BLK * size; i++)
            CHECK(all[i] == i, "int %d is %d", i, all[i]);
        free(all);
    }
}

static int handler_calls, handler_class;

static void count_errors(MPI_File *fh, int *code, ...)
{
    (void)fh;
    handler_calls++;
    MPI_Error_class(*code, &handler_class);
}

/* An access that fails in the background (past a file size limit: EFBIG)
 * completes its request with MPI_ERR_NO_SPACE, through the file's error
 * handler (MPI_ERRORS_RETURN by default, not MPI_COMM_WORLD's fatal one). */
static void failed_access(void)
{
    char path[512];
    char name[32];
    snprintf(name, sizeof name, "err%d.dat", rank);
    io_path(path, sizeof path, name);
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh) ==
              MPI_SUCCESS, "open");
    struct rlimit old, rl;
    CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0, "getrlimit");
    signal(SIGXFSZ, SIG_IGN);
    rl = old;
    rl.rlim_cur = 65536;
    CHECK(setrlimit(RLIMIT_FSIZE, &rl) == 0, "setrlimit");
    static char b[4096];
    MPI_Request req;
    MPI_Status st;
    CHECK(MPI_File_iwrite_at(fh, 1 << 20, b, sizeof b, MPI_BYTE, &req) == MPI_SUCCESS, "iwrite_at");
    int err = MPI_Wait(&req, &st);
    CHECK(io_class(err) == MPI_ERR_NO_SPACE, "wait gave class %d", io_class(err));
    CHECK(req == MPI_REQUEST_NULL, "request not freed");
    MPI_Errhandler eh;
    MPI_File_create_errhandler(count_errors, &eh);
    MPI_File_set_errhandler(fh, eh);
    CHECK(MPI_File_iwrite_at(fh, 1 << 20, b, sizeof b, MPI_BYTE, &req) == MPI_SUCCESS, "iwrite_at");
    int flag = 0;
    double t0 = now();
    while (!flag) {
        err = MPI_Test(&req, &flag, &st);
        CHECK(now() - t0 < 60, "not done after 60 s");
    }
    CHECK(io_class(err) == MPI_ERR_NO_SPACE, "test gave class %d", io_class(err));
    CHECK(handler_calls == 1 && handler_class == MPI_ERR_NO_SPACE, "file handler called %d times (class %d)",
          handler_calls, handler_class);
    CHECK(setrlimit(RLIMIT_FSIZE, &old) == 0, "setrlimit");
    MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&eh);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS, "close");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    signal(SIGALRM, timed_out);
    alarm(120);
    io_dir_make();
    background_under_lock();
    collective_with_p2p();
    shared_pointer();
    freed_request();
    failed_access();
    io_dir_remove();
    if (rank == 0)
        printf("OK io_nonblock\n");
    MPI_Finalize();
    return 0;
}
