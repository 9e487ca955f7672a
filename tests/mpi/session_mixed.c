/* ranks: 2 4 */
/* Sessions inside an MPI_Init program, as a library would use them: a
 * communicator from mpi://WORLD has MPI_COMM_WORLD's processes in its order
 * (congruent) and its own context (traffic on both at once does not mix);
 * then, under MPI_THREAD_MULTIPLE, four threads each build communicators
 * from one group with distinct string tags at the same time (even ranks
 * start the threads in one order, odd ranks in the reverse) and run an
 * exchange on them whose values name the thread and the pass; two
 * creations sharing a context would mix them. The session ends before
 * MPI_Finalize, and a second one after it ends is new. A third one lives
 * on after MPI_Finalize, still builds a communicator that works, and its
 * end stops MPI: a session after that is refused. */
#include "check.h"

#include <pthread.h>
#include <string.h>

#define NTHREADS 4
#define PASSES 8

static int rank = -1, size;
static MPI_Group world_group;

static void *creator(void *arg)
{
    int t = (int)(long)arg;
    for (int pass = 0; pass < PASSES; pass++) {
        char tag[64];
        snprintf(tag, sizeof tag, "org.railmpi.test.thread%d.pass%d", t, pass);
        MPI_Comm c;
        CHECK(MPI_Comm_create_from_group(world_group, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c) ==
                  MPI_SUCCESS, "create %s", tag);
        int out = t * 1000 + pass * 10 + rank, in = -1;
        MPI_Sendrecv(&out, 1, MPI_INT, (rank + 1) % size, t, &in, 1, MPI_INT, (rank + size - 1) % size, t,
                     c, MPI_STATUS_IGNORE);
        CHECK(in == t * 1000 + pass * 10 + (rank + size - 1) % size, "thread %d pass %d got %d", t, pass,
              in);
        int v = t * 1000 + pass, mx = -1;
        MPI_Allreduce(&v, &mx, 1, MPI_INT, MPI_MAX, c);
        CHECK(mx == v, "thread %d pass %d allreduce %d", t, pass, mx);
        MPI_Comm_free(&c);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);

    MPI_Session s;
    CHECK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s) == MPI_SUCCESS, "session init");
    CHECK(MPI_Group_from_session_pset(s, "mpi://WORLD", &world_group) == MPI_SUCCESS, "group");
    MPI_Comm w;
    CHECK(MPI_Comm_create_from_group(world_group, "org.railmpi.test.lib", MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                     &w) == MPI_SUCCESS, "create");
    int cmp = -1;
    MPI_Comm_compare(w, MPI_COMM_WORLD, &cmp);
    CHECK(cmp == MPI_CONGRUENT, "compare says %d", cmp);
    /* same tag, same source, on both: each receive gets its own */
    int a = rank, b = rank + 100, ra = -1, rb = -1, to = (rank + 1) % size, from = (rank + size - 1) % size;
    MPI_Request rq[4];
    MPI_Irecv(&rb, 1, MPI_INT, from, 5, w, &rq[0]);
    MPI_Irecv(&ra, 1, MPI_INT, from, 5, MPI_COMM_WORLD, &rq[1]);
    MPI_Isend(&a, 1, MPI_INT, to, 5, MPI_COMM_WORLD, &rq[2]);
    MPI_Isend(&b, 1, MPI_INT, to, 5, w, &rq[3]);
    MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
    CHECK(ra == from && rb == from + 100, "world got %d, session comm got %d", ra, rb);
    MPI_Errhandler eh;
    MPI_Comm_get_errhandler(w, &eh);
    CHECK(eh == MPI_ERRORS_RETURN, "new communicator's handler 0x%x", (unsigned)eh);

    pthread_t th[NTHREADS];
    for (int i = 0; i < NTHREADS; i++) {
        long t = rank % 2 ? NTHREADS - 1 - i : i;
        pthread_create(&th[i], NULL, creator, (void *)t);
    }
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(th[i], NULL);

    MPI_Comm_free(&w);
    MPI_Group_free(&world_group);
    CHECK(MPI_Session_finalize(&s) == MPI_SUCCESS, "finalize");
    MPI_Session s2;
    CHECK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s2) == MPI_SUCCESS, "init again");
    int n = 0;
    CHECK(MPI_Session_get_num_psets(s2, MPI_INFO_NULL, &n) == MPI_SUCCESS && n >= 3, "psets %d", n);
    CHECK(MPI_Session_finalize(&s2) == MPI_SUCCESS, "finalize again");
    int flag = 0;
    MPI_Initialized(&flag);
    CHECK(flag, "MPI_Initialized says false");
    MPI_Session late;
    CHECK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &late) == MPI_SUCCESS, "late session");
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    MPI_Finalized(&flag);
    CHECK(flag, "MPI_Finalized says false");
    MPI_Group g;
    CHECK(MPI_Group_from_session_pset(late, "mpi://WORLD", &g) == MPI_SUCCESS, "group after finalize");
    CHECK(MPI_Comm_create_from_group(g, "org.railmpi.test.late", MPI_INFO_NULL, MPI_ERRORS_RETURN, &w) ==
              MPI_SUCCESS, "create after finalize");
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, w);
    CHECK(sum == size * (size - 1) / 2, "allreduce after finalize: %d", sum);
    MPI_Comm_free(&w);
    MPI_Group_free(&g);
    CHECK(MPI_Session_finalize(&late) == MPI_SUCCESS, "late finalize");
    CHECK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &late) == MPI_ERR_OTHER,
          "a session after MPI stopped");
    if (rank == 0)
        printf("OK\n");
    return 0;
}
