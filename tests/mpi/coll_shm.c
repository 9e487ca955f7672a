/* ranks: 2 3 4 8 */
/* The one-host collectives that go through a communicator's shared segment
 * (src/coll/shm.c), run back to back so that the slots of every rank
 * are reused thousands of times while some ranks run ahead: broadcasts
 * from a root that moves every call, reductions to a moving root with a
 * non-commutative user op, allreduce, allgather and alltoall (also in
 * place and with a vector type), barriers, on MPI_COMM_WORLD and on a split
 * communicator in between, at the size limit and one int over it (which
 * goes by messages), every result checked. Run as well with
 * RAILMPI_COLL_SHM_MAX=0 (messages only) by the test list. */
#include <mpi.h>

#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size;

/* 2x2 integer matrix product: associative, not commutative */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    int *a = in, *b = inout;
    for (int k = 0; k < *len; k++, a += 4, b += 4) {
        int c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                    a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
        memcpy(b, c, sizeof c);
    }
}

static void mat_of(int r, int it, int *m)
{
    m[0] = 1;
    m[1] = r + 1 + it % 3;
    m[2] = (r + it) % 2;
    m[3] = 1;
}

/* one round of every kind on comm, iteration it, n ints per rank */
static void round_of(MPI_Comm comm, int it, int n, MPI_Op mat, MPI_Datatype mat_t)
{
    int me, np;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    int root = it % np;
    int *b = malloc(sizeof(int) * (size_t)n * (size_t)np), *c = malloc(sizeof(int) * (size_t)n * (size_t)np);

    for (int i = 0; i < n; i++)
        b[i] = me == root ? it * 31 + i : -1;
    MPI_Bcast(b, n, MPI_INT, root, comm);
    for (int i = 0; i < n; i++)
        CHECK(b[i] == it * 31 + i, "it %d bcast[%d] = %d from root %d", it, i, b[i], root);

    for (int i = 0; i < n; i++)
        b[i] = me + i + it;
    MPI_Allreduce(MPI_IN_PLACE, b, n, MPI_INT, MPI_SUM, comm);
    for (int i = 0; i < n; i++)
        CHECK(b[i] == np * (np - 1) / 2 + np * (i + it), "it %d allreduce[%d] = %d", it, i, b[i]);

    int m[4], r[4] = {0, 0, 0, 0}, want[4] = {1, 0, 0, 1};
    mat_of(me, it, m);
    MPI_Reduce(me == root ? MPI_IN_PLACE : m, me == root ? m : r, 1, mat_t, mat, root, comm);
    if (me == root) {
        for (int q = np - 1; q >= 0; q--) {
            int a[4];
            mat_of(q, it, a);
            int len = 1;
            matmul(a, want, &len, NULL);
        }
        CHECK(!memcmp(m, want, sizeof m), "it %d reduce at root %d: [%d %d %d %d]", it, root, m[0], m[1],
              m[2], m[3]);
    }

    for (int i = 0; i < n; i++)
        b[me * n + i] = c[i] = me * 100 + i + it;
    MPI_Allgather(it % 2 ? MPI_IN_PLACE : c, n, MPI_INT, b, n, MPI_INT, comm);
    for (int q = 0; q < np; q++)
        for (int i = 0; i < n; i++)
            CHECK(b[q * n + i] == q * 100 + i + it, "it %d allgather[%d][%d] = %d", it, q, i, b[q * n + i]);

    for (int q = 0; q < np; q++)
        for (int i = 0; i < n; i++)
            b[q * n + i] = me * 10000 + q * 100 + i + it;
    if (it % 2)
        MPI_Alltoall(MPI_IN_PLACE, n, MPI_INT, b, n, MPI_INT, comm);
    else {
        MPI_Alltoall(b, n, MPI_INT, c, n, MPI_INT, comm);
        memcpy(b, c, sizeof(int) * (size_t)n * (size_t)np);
    }
    for (int q = 0; q < np; q++)
        for (int i = 0; i < n; i++)
            CHECK(b[q * n + i] == q * 10000 + me * 100 + i + it, "it %d alltoall[%d][%d] = %d", it, q, i,
                  b[q * n + i]);
    MPI_Barrier(comm);
    free(b);
    free(c);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Op mat;
    MPI_Op_create(matmul, 0, &mat);
    MPI_Datatype mat_t;
    MPI_Type_contiguous(4, MPI_INT, &mat_t);
    MPI_Type_commit(&mat_t);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half);

    /* 4 ints per rank in the alltoall's slot: well inside the default limit */
    for (int it = 0; it < 2000; it++) {
        round_of(MPI_COMM_WORLD, it, 4, mat, mat_t);
        if (it % 7 == 0)
            round_of(half, it, 3, mat, mat_t);
    }

    /* running ahead: a broadcast's root while the others sleep, then the
     * non-roots of a reduction while the root sleeps, 50 collectives each,
     * far more than the slots a rank has */
    for (int i = 0; i < 50; i++) {
        if (i == 0 && rank != 0)
            usleep(200000);
        int v = rank == 0 ? 1000 + i : -1;
        MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
        CHECK(v == 1000 + i, "run-ahead bcast %d = %d", i, v);
    }
    for (int i = 0; i < 50; i++) {
        if (i == 0 && rank == 0)
            usleep(200000);
        int v = rank * 3 + i, sum = -1;
        MPI_Reduce(&v, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0)
            CHECK(sum == 3 * size * (size - 1) / 2 + size * i, "run-ahead reduce %d = %d", i, sum);
    }

    /* running ahead with contributions that fit a cell (one int) and ones
     * that take a slot (64 ints) in turn: the cells and the slots are
     * reused at different depths */
    for (int i = 0; i < 100; i++) {
        if (i == 0 && rank != 0)
            usleep(200000);
        int n = i % 2 ? 64 : 1, v[64];
        for (int j = 0; j < n; j++)
            v[j] = rank == 0 ? 1000 * i + j : -1;
        MPI_Bcast(v, n, MPI_INT, 0, MPI_COMM_WORLD);
        for (int j = 0; j < n; j++)
            CHECK(v[j] == 1000 * i + j, "mixed run-ahead bcast %d [%d] = %d", i, j, v[j]);
    }

    /* at the limit and one int over it: the segment, then messages, in turn */
    const char *lim = getenv("RAILMPI_COLL_SHM_MAX");
    long max = lim && *lim ? atol(lim) : 4096;
    if (max >= (long)sizeof(int)) {
        int at = (int)(max / (long)sizeof(int));
        int *v = malloc(sizeof(int) * (size_t)(at + 1));
        for (int it = 0; it < 200; it++) {
            int n = at + it % 2, root = it % size;
            for (int i = 0; i < n; i++)
                v[i] = rank == root ? it + i : 0;
            MPI_Bcast(v, n, MPI_INT, root, MPI_COMM_WORLD);
            for (int i = 0; i < n; i++)
                CHECK(v[i] == it + i, "limit it %d bcast[%d] = %d", it, i, v[i]);
            for (int i = 0; i < n; i++)
                v[i] = rank + i;
            MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            for (int i = 0; i < n; i++)
                CHECK(v[i] == size - 1 + i, "limit it %d allreduce[%d] = %d", it, i, v[i]);
        }
        free(v);
    }

    /* a vector type on both sides: every other int of 6 (extent 6 ints) */
    MPI_Datatype vec, every2;
    MPI_Type_vector(3, 1, 2, MPI_INT, &vec);
    MPI_Type_create_resized(vec, 0, 6 * sizeof(int), &every2);
    MPI_Type_commit(&every2);
    MPI_Type_free(&vec);
    int *g = calloc((size_t)size * 6, sizeof(int)), s6[6];
    for (int it = 0; it < 100; it++) {
        for (int i = 0; i < 6; i++)
            s6[i] = i % 2 ? -1 : rank * 10 + i + it;
        MPI_Allgather(s6, 1, every2, g, 1, every2, MPI_COMM_WORLD);
        for (int q = 0; q < size; q++)
            for (int i = 0; i < 6; i += 2)
                CHECK(g[q * 6 + i] == q * 10 + i + it, "vector allgather it %d [%d][%d] = %d", it, q, i,
                      g[q * 6 + i]);
        int root = it % size;
        for (int i = 0; i < 6; i++)
            s6[i] = rank == root ? (i % 2 ? 7 : it + i) : (i % 2 ? 7 : -5);
        MPI_Bcast(s6, 1, every2, root, MPI_COMM_WORLD);
        for (int i = 0; i < 6; i++)
            CHECK(s6[i] == (i % 2 ? 7 : it + i), "vector bcast it %d [%d] = %d", it, i, s6[i]);
    }
    free(g);
    MPI_Type_free(&every2);
    MPI_Comm_free(&half);
    MPI_Type_free(&mat_t);
    MPI_Op_free(&mat);
    MPI_Finalize();
    if (rank == 0)
        printf("OK coll_shm\n");
    return 0;
}
