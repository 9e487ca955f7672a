/* ranks: 2 4 */
/* MPI_THREAD_MULTIPLE: two threads per rank exchange messages on their own
 * tags with the partner rank at the same time, blocking and nonblocking. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, size;

static void *worker(void *arg)
{
    int id = (int)(long)arg, peer = rank ^ 1;
    int tag = 10 + id;
    for (int i = 0; i < 500; i++) {
        int out = rank * 100000 + id * 10000 + i, in = -1;
        long n = i % 50 == 0 ? 100000 : 1;
        int *big = malloc(sizeof(int) * (size_t)n), *got = malloc(sizeof(int) * (size_t)n);
        big[n - 1] = out;
        MPI_Request q[2];
        MPI_Irecv(got, (int)n, MPI_INT, peer, tag, MPI_COMM_WORLD, &q[0]);
        MPI_Isend(big, (int)n, MPI_INT, peer, tag, MPI_COMM_WORLD, &q[1]);
        MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
        in = got[n - 1];
        if (in != peer * 100000 + id * 10000 + i) {
            printf("FAIL: rank %d thread %d round %d got %d\n", rank, id, i, in);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        free(big);
        free(got);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided != MPI_THREAD_MULTIPLE) {
        printf("FAIL: no THREAD_MULTIPLE\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if ((rank ^ 1) < size) {
        pthread_t t[2];
        for (long i = 0; i < 2; i++)
            pthread_create(&t[i], NULL, worker, (void *)i);
        for (int i = 0; i < 2; i++)
            pthread_join(t[i], NULL);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("OK\n");
    MPI_Finalize();
    return 0;
}
