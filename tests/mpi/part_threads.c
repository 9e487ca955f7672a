/* ranks: 2 4 */
/* MPI_THREAD_MULTIPLE partitioned communication: on the sending rank four
 * threads each fill and mark their own partitions (MPI_Pready, or
 * MPI_Pready_list for all of a thread's at once) while on the receiving
 * rank four threads poll MPI_Parrived on theirs and check the data as it
 * lands; the main threads start and complete every cycle. */
#include <mpi.h>
#include <pthread.h>
#include <stdlib.h>

static int rank;
#include "check.h"

#define NT 4
#define NP 16      /* partitions, NP / NT per thread */
#define PN 16384   /* ints per partition: 64 KiB */
#define CYCLES 20

static int *buf;
static MPI_Request req;
static int cycle;

static int val(int c, int i)
{
    return c * 999983 + i;
}

static void *sender(void *arg)
{
    int t = (int)(long)arg, mine[NP / NT];
    for (int k = 0; k < NP / NT; k++) {
        int q = t + k * NT;
        mine[k] = q;
        for (int i = q * PN; i < (q + 1) * PN; i++)
            buf[i] = val(cycle, i);
        if (cycle % 2 == 0)
            CHECK(MPI_Pready(q, req) == MPI_SUCCESS, "thread %d Pready %d", t, q);
    }
    if (cycle % 2)
        CHECK(MPI_Pready_list(NP / NT, mine, req) == MPI_SUCCESS, "thread %d Pready_list", t);
    return NULL;
}

static void *receiver(void *arg)
{
    int t = (int)(long)arg;
    for (int k = 0; k < NP / NT; k++) {
        int q = t + k * NT, flag = 0;
        while (!flag)
            CHECK(MPI_Parrived(req, q, &flag) == MPI_SUCCESS, "thread %d Parrived %d", t, q);
        for (int i = q * PN; i < (q + 1) * PN; i++)
            CHECK(buf[i] == val(cycle, i), "cycle %d partition %d [%d] = %d", cycle, q, i, buf[i]);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    int peer = rank ^ 1, me_sends = !(rank & 1);
    buf = calloc((size_t)NP * PN, sizeof(int));
    if (peer < size) {
        if (me_sends)
            MPI_Psend_init(buf, NP, PN, MPI_INT, peer, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
        else
            MPI_Precv_init(buf, NP, PN, MPI_INT, peer, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
        for (cycle = 0; cycle < CYCLES; cycle++) {
            pthread_t th[NT];
            MPI_Start(&req);
            for (long t = 0; t < NT; t++)
                pthread_create(&th[t], NULL, me_sends ? sender : receiver, (void *)t);
            for (int t = 0; t < NT; t++)
                pthread_join(th[t], NULL);
            CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "Wait cycle %d", cycle);
        }
        MPI_Request_free(&req);
    }
    free(buf);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("part_threads: OK\n");
    MPI_Finalize();
    return 0;
}
