/* ranks: 2 4 */
/* Communicators created concurrently from several threads, each thread on
 * a parent of its own (MPI_THREAD_MULTIPLE): every thread duplicates
 * MPI_COMM_WORLD once, then loops over MPI_Comm_group, MPI_Comm_create, a
 * barrier and a check on the new communicator, and a free. Every other
 * pass uses another constructor instead (dup, split, create_group, idup,
 * cart_create, split_type, dup_with_info, intercomm_create then merge), so
 * all of them run against each other. Concurrent creations must never
 * agree on one context: each new communicator carries a ring exchange and
 * an allreduce whose values name the thread and the pass, which two
 * communicators sharing a context would mix (or truncate). Then blocking
 * duplicates in crossed orders: even ranks duplicate two parents from two
 * threads at once, odd ranks one after the other, the second parent first;
 * one agreement waiting for a late process must not hold up the other. */
#include "check.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#define NTHREADS 8
#define PASSES 16
#define KINDS 9

static int rank, size;
static MPI_Comm own[NTHREADS];

static void ok(int rc, int id, int pass, const char *what)
{
    CHECK(rc == MPI_SUCCESS, "thread %d pass %d: %s returned %d", id, pass, what, rc);
}

/* A ring exchange and an allreduce on c (an intracommunicator of n ranks),
 * with values only this thread and pass use. */
static void use(MPI_Comm c, int n, int id, int pass)
{
    int me, sz, val = id * 1000 + pass, got = -1, sum = -1;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &sz);
    CHECK(sz == n, "thread %d pass %d: size %d, expected %d", id, pass, sz, n);
    ok(MPI_Barrier(c), id, pass, "MPI_Barrier");
    ok(MPI_Sendrecv(&val, 1, MPI_INT, (me + 1) % sz, 3, &got, 1, MPI_INT, (me + sz - 1) % sz, 3, c,
                    MPI_STATUS_IGNORE),
       id, pass, "MPI_Sendrecv");
    CHECK(got == val, "thread %d pass %d: ring received %d, expected %d", id, pass, got, val);
    ok(MPI_Allreduce(&val, &sum, 1, MPI_INT, MPI_SUM, c), id, pass, "MPI_Allreduce");
    CHECK(sum == val * sz, "thread %d pass %d: allreduce gave %d, expected %d", id, pass, sum, val * sz);
}

static void pass_once(MPI_Comm p, int id, int pass)
{
    MPI_Comm c = MPI_COMM_NULL;
    MPI_Group g;
    int kind = pass % 2 ? (pass / 2 + id) % KINDS : 0;
    switch (kind) {
    case 0:
        ok(MPI_Comm_group(p, &g), id, pass, "MPI_Comm_group");
        ok(MPI_Comm_create(p, g, &c), id, pass, "MPI_Comm_create");
        MPI_Group_free(&g);
        use(c, size, id, pass);
        break;
    case 1:
        ok(MPI_Comm_dup(p, &c), id, pass, "MPI_Comm_dup");
        use(c, size, id, pass);
        break;
    case 2: /* halves by parity */
        ok(MPI_Comm_split(p, rank % 2, -rank, &c), id, pass, "MPI_Comm_split");
        use(c, (size + 1 - rank % 2) / 2, id, pass);
        break;
    case 3:
        ok(MPI_Comm_group(p, &g), id, pass, "MPI_Comm_group");
        ok(MPI_Comm_create_group(p, g, id, &c), id, pass, "MPI_Comm_create_group");
        MPI_Group_free(&g);
        use(c, size, id, pass);
        break;
    case 4: {
        MPI_Request r;
        ok(MPI_Comm_idup(p, &c, &r), id, pass, "MPI_Comm_idup");
        ok(MPI_Wait(&r, MPI_STATUS_IGNORE), id, pass, "MPI_Wait on MPI_Comm_idup");
        use(c, size, id, pass);
        break;
    }
    case 5: {
        int dims[1] = {size}, periods[1] = {1};
        ok(MPI_Cart_create(p, 1, dims, periods, 0, &c), id, pass, "MPI_Cart_create");
        use(c, size, id, pass);
        break;
    }
    case 6:
        ok(MPI_Comm_split_type(p, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c), id, pass,
           "MPI_Comm_split_type");
        MPI_Comm_size(c, &kind);
        use(c, kind, id, pass);
        break;
    case 7:
        ok(MPI_Comm_dup_with_info(p, MPI_INFO_NULL, &c), id, pass, "MPI_Comm_dup_with_info");
        use(c, size, id, pass);
        break;
    default: { /* even ranks face odd ranks */
        MPI_Comm half, inter;
        ok(MPI_Comm_split(p, rank % 2, rank, &half), id, pass, "MPI_Comm_split");
        ok(MPI_Intercomm_create(half, 0, p, 1 - rank % 2, 40 + id, &inter), id, pass,
           "MPI_Intercomm_create");
        ok(MPI_Intercomm_merge(inter, rank % 2, &c), id, pass, "MPI_Intercomm_merge");
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
        use(c, size, id, pass);
        break;
    }
    }
    ok(MPI_Comm_free(&c), id, pass, "MPI_Comm_free");
}

static void *crossed(void *arg)
{
    int id = (int)(intptr_t)arg;
    MPI_Comm c;
    ok(MPI_Comm_dup(own[id], &c), id, -1, "MPI_Comm_dup");
    use(c, size, id, PASSES);
    ok(MPI_Comm_free(&c), id, -1, "MPI_Comm_free");
    return NULL;
}

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    for (int pass = 0; pass < PASSES; pass++)
        pass_once(own[id], id, pass);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    for (int i = 0; i < NTHREADS; i++) {
        MPI_Comm_dup(MPI_COMM_WORLD, &own[i]);
        MPI_Comm_set_errhandler(own[i], MPI_ERRORS_RETURN);
    }
    pthread_t t[NTHREADS];
    for (int i = 0; i < NTHREADS; i++)
        CHECK(pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i) == 0, "pthread_create");
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(t[i], NULL);
    for (int rep = 0; rep < 8; rep++) {
        if (rank % 2 == 0) {
            for (int i = 0; i < 2; i++)
                CHECK(pthread_create(&t[i], NULL, crossed, (void *)(intptr_t)i) == 0, "pthread_create");
            for (int i = 0; i < 2; i++)
                pthread_join(t[i], NULL);
        } else {
            crossed((void *)(intptr_t)1);
            crossed((void *)(intptr_t)0);
        }
    }
    for (int i = 0; i < NTHREADS; i++)
        MPI_Comm_free(&own[i]);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("comm_create_threads: %d threads x %d creations on %d ranks\n", NTHREADS, PASSES, size);
    MPI_Finalize();
    return 0;
}
