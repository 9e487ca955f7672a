/* ranks: 1 2 3 4 */
/* Every operation under every synchronisation mode: each rank works on the
 * window of the next rank in a ring (itself with one rank) and checks the
 * result. Modes: fence, post/start/complete/wait, exclusive lock, shared
 * lock, lock_all with flush, and the request forms under lock_all. A put
 * and a get of 1 MiB cross many frames. */
#include <mpi.h>

#include "check.h"
#include <stdlib.h>
#include <string.h>

static int rank, size;

#define N 64
#define BIG (1 << 20)

enum { M_FENCE, M_PSCW, M_LOCK_EXCL, M_LOCK_SHARED, M_LOCK_ALL, M_REQ, NMODES };
static const char *mode_name[] = {"fence", "pscw", "lock-excl", "lock-shared", "lock_all", "requests"};

static MPI_Win win;
static int *mem; /* the window: N ints, then BIG bytes */
static MPI_Group world_group, next_group, prev_group;
static int next, prev;

static void open_epoch(int mode)
{
    switch (mode) {
    case M_FENCE: MPI_Win_fence(0, win); break;
    case M_PSCW:
        MPI_Win_post(prev_group, 0, win);
        MPI_Win_start(next_group, 0, win);
        break;
    case M_LOCK_EXCL: MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next, 0, win); break;
    case M_LOCK_SHARED: MPI_Win_lock(MPI_LOCK_SHARED, next, 0, win); break;
    default: MPI_Win_lock_all(0, win);
    }
}

static void close_epoch(int mode)
{
    switch (mode) {
    case M_FENCE: MPI_Win_fence(0, win); break;
    case M_PSCW:
        MPI_Win_complete(win);
        MPI_Win_wait(win);
        break;
    case M_LOCK_EXCL:
    case M_LOCK_SHARED: MPI_Win_unlock(next, win); break;
    case M_LOCK_ALL:
        MPI_Win_flush(next, win);
        MPI_Win_unlock_all(win);
        break;
    default: MPI_Win_unlock_all(win);
    }
    /* passive modes: the target's memory is read after everyone is done */
    MPI_Barrier(MPI_COMM_WORLD);
}

static void reset(int v)
{
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    for (int i = 0; i < N; i++)
        mem[i] = v + i;
    MPI_Win_unlock(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void wait_req(MPI_Request *r, int mode)
{
    if (mode == M_REQ)
        MPI_Wait(r, MPI_STATUS_IGNORE);
}

static void run(int mode)
{
    int buf[N], res[N];
    MPI_Request rq = MPI_REQUEST_NULL;
    const char *m = mode_name[mode];
    int req = mode == M_REQ;

    /* put */
    reset(0);
    for (int i = 0; i < N; i++)
        buf[i] = 1000 * rank + i;
    open_epoch(mode);
    if (req)
        MPI_Rput(buf, N, MPI_INT, next, 0, N, MPI_INT, win, &rq);
    else
        MPI_Put(buf, N, MPI_INT, next, 0, N, MPI_INT, win);
    wait_req(&rq, mode);
    close_epoch(mode);
    for (int i = 0; i < N; i++)
        CHECK(mem[i] == 1000 * prev + i, "%s put: mem[%d] = %d", m, i, mem[i]);

    /* get */
    reset(100 * rank);
    memset(res, 0xff, sizeof res);
    open_epoch(mode);
    if (req)
        MPI_Rget(res, N, MPI_INT, next, 0, N, MPI_INT, win, &rq);
    else
        MPI_Get(res, N, MPI_INT, next, 0, N, MPI_INT, win);
    wait_req(&rq, mode);
    close_epoch(mode);
    for (int i = 0; i < N; i++)
        CHECK(res[i] == 100 * next + i, "%s get: res[%d] = %d", m, i, res[i]);

    /* accumulate (sum), then replace on half */
    reset(1);
    for (int i = 0; i < N; i++)
        buf[i] = rank + 2 * i;
    open_epoch(mode);
    if (req) {
        MPI_Raccumulate(buf, N, MPI_INT, next, 0, N, MPI_INT, MPI_SUM, win, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        MPI_Raccumulate(buf, N / 2, MPI_INT, next, 0, N / 2, MPI_INT, MPI_REPLACE, win, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    } else {
        MPI_Accumulate(buf, N, MPI_INT, next, 0, N, MPI_INT, MPI_SUM, win);
        MPI_Accumulate(buf, N / 2, MPI_INT, next, 0, N / 2, MPI_INT, MPI_REPLACE, win);
    }
    close_epoch(mode);
    for (int i = 0; i < N; i++) {
        int want = i < N / 2 ? prev + 2 * i : 1 + i + prev + 2 * i;
        CHECK(mem[i] == want, "%s accumulate: mem[%d] = %d, want %d", m, i, mem[i], want);
    }

    /* get_accumulate (max), fetch_and_op (sum, no_op), compare_and_swap */
    reset(10);
    for (int i = 0; i < N; i++)
        buf[i] = i % 2 ? 1000 : 0;
    memset(res, 0, sizeof res);
    int one = 5, old = -1, old2 = -1, cmp = 10, swap = 77, cold = -1;
    open_epoch(mode);
    if (req) {
        MPI_Rget_accumulate(buf, N, MPI_INT, res, N, MPI_INT, next, 0, N, MPI_INT, MPI_MAX, win, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    } else {
        MPI_Get_accumulate(buf, N, MPI_INT, res, N, MPI_INT, next, 0, N, MPI_INT, MPI_MAX, win);
    }
    if (mode != M_FENCE && mode != M_PSCW)
        MPI_Win_flush(next, win);
    else {
        close_epoch(mode);
        open_epoch(mode);
    }
    MPI_Fetch_and_op(&one, &old, MPI_INT, next, 1, MPI_SUM, win);
    MPI_Compare_and_swap(&swap, &cmp, &cold, MPI_INT, next, 0, win);
    if (mode != M_FENCE && mode != M_PSCW)
        MPI_Win_flush(next, win);
    else {
        close_epoch(mode);
        open_epoch(mode);
    }
    MPI_Fetch_and_op(NULL, &old2, MPI_INT, next, 1, MPI_NO_OP, win);
    close_epoch(mode);
    for (int i = 0; i < N; i++) {
        CHECK(res[i] == 10 + i, "%s get_accumulate result[%d] = %d", m, i, res[i]);
        int want = i == 0 ? 77 : i == 1 ? 1000 + 5 : i % 2 ? 1000 : 10 + i;
        CHECK(mem[i] == want, "%s get_accumulate/fop/cas: mem[%d] = %d, want %d", m, i, mem[i], want);
    }
    CHECK(old == 1000, "%s fetch_and_op old %d", m, old);
    CHECK(old2 == 1005, "%s fetch_and_op no_op %d", m, old2);
    CHECK(cold == 10, "%s compare_and_swap old %d", m, cold);

    /* 1 MiB each way: many frames */
    if (mode == M_FENCE || mode == M_LOCK_ALL) {
        char *big = malloc(BIG), *back = malloc(BIG);
        for (int i = 0; i < BIG; i++)
            big[i] = (char)(i * 7 + rank);
        open_epoch(mode);
        MPI_Put(big, BIG, MPI_BYTE, next, N, BIG, MPI_BYTE, win);
        close_epoch(mode);
        char *dst = (char *)(mem + N);
        for (int i = 0; i < BIG; i++)
            CHECK(dst[i] == (char)(i * 7 + prev), "%s big put: byte %d", m, i);
        open_epoch(mode);
        MPI_Get(back, BIG, MPI_BYTE, next, N, BIG, MPI_BYTE, win);
        close_epoch(mode);
        CHECK(!memcmp(back, big, BIG), "%s big get differs", m);
        free(big);
        free(back);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    MPI_Group_incl(world_group, 1, &next, &next_group);
    MPI_Group_incl(world_group, 1, &prev, &prev_group);
    /* MPI_Win_allocate (on one host: one shared segment, every operation a
     * direct copy) and MPI_Win_create on the program's memory (on one host:
     * cross-process copies for put and get, active messages for the rest) */
    for (int flavor = 0; flavor < 2; flavor++) {
        void *own = NULL;
        if (flavor == 0) {
            MPI_Win_allocate(N * sizeof(int) + BIG, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
        } else {
            own = malloc(N * sizeof(int) + BIG);
            mem = own;
            MPI_Win_create(mem, N * sizeof(int) + BIG, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        }
        CHECK(win != MPI_WIN_NULL, "no window");
        for (int mode = 0; mode < NMODES; mode++)
            run(mode);
        MPI_Win_free(&win);
        CHECK(win == MPI_WIN_NULL, "Win_free leaves the handle");
        free(own);
    }

    /* the same through MPI_Win_create on the program's memory */
    int *own = calloc(N, sizeof(int));
    MPI_Win_create(own, N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    int v[N];
    for (int i = 0; i < N; i++)
        v[i] = rank * 3 + i;
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    MPI_Put(v, N, MPI_INT, next, 0, N, MPI_INT, win);
    MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOSUCCEED, win);
    for (int i = 0; i < N; i++)
        CHECK(own[i] == prev * 3 + i, "Win_create put: own[%d] = %d", i, own[i]);
    MPI_Win_free(&win);
    free(own);
    MPI_Group_free(&next_group);
    MPI_Group_free(&prev_group);
    MPI_Group_free(&world_group);
    MPI_Finalize();
    if (rank == 0)
        printf("OK\n");
    return 0;
}
