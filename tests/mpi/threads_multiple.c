/* ranks: 1 2 4 */
/* MPI_THREAD_MULTIPLE under load, with the asynchronous progress thread on
 * (RAILMPI_ASYNC_PROGRESS=on, so it runs on one host too): four threads per
 * rank send to the next rank and receive from the previous one at the same
 * time, each on its own tags, two on communicators of their own and two
 * sharing MPI_COMM_WORLD. Every round mixes nonblocking pairs completed by
 * MPI_Test, blocking receives found by MPI_Probe, MPI_Iprobe and
 * MPI_Improbe, eager and rendezvous sizes, and a receive cancelled before
 * any message could match it, then a collective on the thread's own
 * communicator or a buffered send. Meanwhile a fifth thread creates
 * communicators (the handle table grows), a sixth looks up a handle beyond
 * the table over and over, and a seventh polls MPI_Finalized until the
 * main thread's MPI_Finalize ends. Every payload and status is checked.
 * Under ThreadSanitizer (scripts/test.sh --tsan) any unsynchronised access
 * between these threads and the progress thread fails the run. */
#include <dirent.h>
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"

#define NTHREADS 4
#define ROUNDS 60
#define BIG 40000 /* ints: above every eager threshold */
#define TAG_NEVER 999

static int rank, size;
static MPI_Comm comms[NTHREADS], mgr_comm;

static double deadline;
static _Atomic int manager_done;

static int expect(int from, int id, int round, int step, int i)
{
    return (from * 7919 + id * 104729 + round * 31 + step * 5 + i) & 0x7fffffff;
}

static void fill(int *buf, int n, int id, int round, int step)
{
    for (int i = 0; i < n; i++)
        buf[i] = expect(rank, id, round, step, i);
}

static void verify(const int *buf, int n, int from, int id, int round, int step)
{
    for (int i = 0; i < n; i++)
        CHECK(buf[i] == expect(from, id, round, step, i),
              "thread %d round %d step %d: element %d is %d, expected %d", id, round, step, i, buf[i],
              expect(from, id, round, step, i));
}

/* Spin on a request with MPI_Test, bounded. */
static void test_until_done(MPI_Request *r, MPI_Status *st, int id)
{
    int flag = 0;
    while (!flag) {
        MPI_Test(r, &flag, st);
        CHECK(flag || MPI_Wtime() < deadline, "thread %d: MPI_Test never completed", id);
    }
}

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Comm comm = comms[id];
    /* tags distinct per thread: threads 2 and 3 share MPI_COMM_WORLD */
    int tag = 100 + 10 * id;
    int *out = malloc(sizeof(int) * BIG), *in = malloc(sizeof(int) * BIG);
    CHECK(out && in, "out of memory");
    for (int round = 0; round < ROUNDS; round++) {
        int n = round % 10 == 3 ? BIG : 1 + round % 17;
        MPI_Status st;
        int count;

        /* step 0: a nonblocking pair, completed with MPI_Test */
        MPI_Request rr, sr;
        fill(out, n, id, round, 0);
        memset(in, 0xff, sizeof(int) * (size_t)n);
        MPI_Irecv(in, n, MPI_INT, left, tag, comm, &rr);
        MPI_Isend(out, n, MPI_INT, right, tag, comm, &sr);
        test_until_done(&rr, &st, id);
        test_until_done(&sr, MPI_STATUS_IGNORE, id);
        MPI_Get_count(&st, MPI_INT, &count);
        CHECK(count == n && st.MPI_SOURCE == left && st.MPI_TAG == tag, "thread %d round %d: status %d/%d/%d",
              id, round, count, st.MPI_SOURCE, st.MPI_TAG);
        verify(in, n, left, id, round, 0);

        /* step 1: MPI_Probe from any source, then a receive of what it found */
        fill(out, n, id, round, 1);
        MPI_Isend(out, n, MPI_INT, right, tag + 1, comm, &sr);
        MPI_Probe(MPI_ANY_SOURCE, tag + 1, comm, &st);
        MPI_Get_count(&st, MPI_INT, &count);
        CHECK(count == n && st.MPI_SOURCE == left, "thread %d round %d: probe found %d from %d", id, round,
              count, st.MPI_SOURCE);
        MPI_Recv(in, count, MPI_INT, st.MPI_SOURCE, tag + 1, comm, MPI_STATUS_IGNORE);
        verify(in, n, left, id, round, 1);
        MPI_Wait(&sr, MPI_STATUS_IGNORE);

        /* step 2: MPI_Iprobe until the message shows, any tag of this thread's */
        fill(out, n, id, round, 2);
        MPI_Isend(out, n, MPI_INT, right, tag + 2, comm, &sr);
        int flag = 0;
        while (!flag) {
            MPI_Iprobe(left, tag + 2, comm, &flag, &st);
            CHECK(flag || MPI_Wtime() < deadline, "thread %d round %d: MPI_Iprobe never found it", id, round);
        }
        CHECK(st.MPI_TAG == tag + 2, "thread %d: iprobe tag %d", id, st.MPI_TAG);
        MPI_Recv(in, n, MPI_INT, left, tag + 2, comm, &st);
        MPI_Get_count(&st, MPI_INT, &count);
        CHECK(count == n, "thread %d round %d: received %d of %d", id, round, count, n);
        verify(in, n, left, id, round, 2);
        MPI_Wait(&sr, MPI_STATUS_IGNORE);

        /* step 3: a matched probe (no other thread can take the message) */
        fill(out, n, id, round, 3);
        MPI_Isend(out, n, MPI_INT, right, tag + 3, comm, &sr);
        MPI_Message msg;
        flag = 0;
        while (!flag) {
            MPI_Improbe(left, tag + 3, comm, &flag, &msg, &st);
            CHECK(flag || MPI_Wtime() < deadline, "thread %d round %d: MPI_Improbe never found it", id, round);
        }
        MPI_Mrecv(in, n, MPI_INT, &msg, &st);
        CHECK(msg == MPI_MESSAGE_NULL, "thread %d: message handle not freed", id);
        verify(in, n, left, id, round, 3);
        MPI_Wait(&sr, MPI_STATUS_IGNORE);

        /* step 4: a handle lookup while the manager thread adds communicators */
        MPI_Info info;
        CHECK(MPI_Comm_get_info(comm, &info) == MPI_SUCCESS, "thread %d: MPI_Comm_get_info", id);
        MPI_Info_free(&info);

        /* step 5: a receive nothing will match, cancelled */
        if (round % 4 == id % 4) {
            int dummy;
            MPI_Irecv(&dummy, 1, MPI_INT, MPI_ANY_SOURCE, TAG_NEVER, comm, &rr);
            MPI_Cancel(&rr);
            MPI_Wait(&rr, &st);
            MPI_Test_cancelled(&st, &flag);
            CHECK(flag, "thread %d round %d: the receive was not cancelled", id, round);
        }

        /* step 6: a collective on a communicator of this thread's own, or a
         * buffered send (the attached buffer is shared by all threads) */
        if (id < 2) {
            int sum = 0, mine = rank + round;
            MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, comm);
            CHECK(sum == size * (size - 1) / 2 + size * round, "thread %d round %d: allreduce %d", id, round,
                  sum);
        } else {
            int v = expect(rank, id, round, 6, 0), got = -1;
            MPI_Bsend(&v, 1, MPI_INT, right, tag + 6, comm);
            MPI_Recv(&got, 1, MPI_INT, left, tag + 6, comm, MPI_STATUS_IGNORE);
            CHECK(got == expect(left, id, round, 6, 0), "thread %d round %d: bsend carried %d", id, round, got);
        }
    }
    free(out);
    free(in);
    return NULL;
}

/* Communicators come and go on their own parent: one new one per round,
 * all kept until the end, so the handle table grows while workers look
 * theirs up. */
static void *manager(void *arg)
{
    (void)arg;
    MPI_Comm kept[ROUNDS];
    for (int round = 0; round < ROUNDS; round++) {
        CHECK(MPI_Comm_dup(mgr_comm, &kept[round]) == MPI_SUCCESS, "manager: MPI_Comm_dup");
        int r;
        MPI_Comm_rank(kept[round], &r);
        CHECK(r == rank, "manager: rank %d in the duplicate", r);
    }
    manager_done = 1;
    for (int round = 0; round < ROUNDS; round++)
        MPI_Comm_free(&kept[round]);
    return NULL;
}

/* Invalid-handle lookups in a loop while the table grows: the lookup must
 * be as synchronised as the growth. The handle is in the MPICH ABI's range
 * of communicators the library allocates (direct, index 2^26 - 1), so it
 * is looked up in the table and found invalid. */
static void *looker(void *arg)
{
    (void)arg;
    const MPI_Comm beyond = (MPI_Comm)0x87ffffff;
    while (!manager_done) {
        MPI_Info info;
        int e = MPI_Comm_get_info(beyond, &info);
        CHECK(e != MPI_SUCCESS, "MPI_Comm_get_info accepted an invalid communicator");
        CHECK(MPI_Wtime() < deadline, "the manager thread never finished");
        nanosleep(&(struct timespec){0, 200000}, NULL); /* leave the cores to the communicating threads */
    }
    return NULL;
}

/* MPI_Finalized from another thread while MPI_Finalize runs (thread-safe in
 * MPICH; callable at any time). */
static volatile int watcher_saw_finalized;
static void *watcher(void *arg)
{
    (void)arg;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        int flag = 0, init = 0;
        MPI_Initialized(&init);
        MPI_Finalized(&flag);
        if (flag || !init) {
            watcher_saw_finalized = flag;
            return NULL;
        }
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (t.tv_sec - t0.tv_sec > 90)
            return NULL;
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
}

/* Whether the library's progress thread runs (Linux: /proc names it). */
static int progress_thread_runs(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return -1;
    int found = 0;
    struct dirent *e;
    while (!found && (e = readdir(d))) {
        char path[300], name[32] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (f) {
            found = fgets(name, sizeof name, f) && !strncmp(name, "railmpi-async", 13);
            fclose(f);
        }
    }
    closedir(d);
    return found;
}

int main(int argc, char **argv)
{
    /* before MPI_Init_thread: the library reads its settings there */
    setenv("RAILMPI_ASYNC_PROGRESS", "on", 1);
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    CHECK(progress_thread_runs() != 0, "RAILMPI_ASYNC_PROGRESS=on started no progress thread");
    deadline = MPI_Wtime() + 80;

    MPI_Comm_dup(MPI_COMM_WORLD, &mgr_comm);
    for (int i = 0; i < NTHREADS; i++) {
        if (i < 2)
            MPI_Comm_dup(MPI_COMM_WORLD, &comms[i]);
        else
            comms[i] = MPI_COMM_WORLD;
    }
    static char bsend_buf[64 * (sizeof(int) + MPI_BSEND_OVERHEAD)];
    MPI_Buffer_attach(bsend_buf, (int)sizeof bsend_buf);
    /* the lookups of the invalid handle return their error */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* errors tied to no object (MPI-4.1 9.3) */
    pthread_t t[NTHREADS], mgr, watch, look;
    CHECK(pthread_create(&watch, NULL, watcher, NULL) == 0, "pthread_create");
    CHECK(pthread_create(&look, NULL, looker, NULL) == 0, "pthread_create");
    CHECK(pthread_create(&mgr, NULL, manager, NULL) == 0, "pthread_create");
    for (int i = 0; i < NTHREADS; i++)
        CHECK(pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i) == 0, "pthread_create");
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(t[i], NULL);
    pthread_join(mgr, NULL);
    pthread_join(look, NULL);
    MPI_Comm_free(&mgr_comm);

    /* nothing may be left over: a stray message would show here */
    int flag;
    MPI_Status st;
    for (int i = 0; i < NTHREADS; i++) {
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comms[i], &flag, &st);
        CHECK(!flag, "a message (tag %d) is left on communicator %d", st.MPI_TAG, i);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    void *detached;
    int detached_size;
    MPI_Buffer_detach(&detached, &detached_size);
    for (int i = 0; i < 2; i++)
        MPI_Comm_free(&comms[i]);
    MPI_Finalize();
    pthread_join(watch, NULL);
    if (!watcher_saw_finalized) {
        printf("FAIL: rank %d: the watching thread never saw MPI_Finalized true\n", rank);
        return 1;
    }
    if (rank == 0)
        printf("OK\n");
    return 0;
}
