/* ranks: 1 2 3 4 */
/* The ring reductions (commutative ops on large vectors), forced on for
 * every size here (RAILMPI_COLL_RING_MIN=1): allreduce over counts smaller
 * than, equal to and not a multiple of the number of ranks, in place or
 * not, blocking and nonblocking, a predefined and a user op, a strided
 * type; reduce_scatter with uneven and empty blocks, and
 * reduce_scatter_block. */
#include "check.h"

#include <stdlib.h>

static int rank, size;

static void maxabs(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    int *a = in, *b = inout;
    for (int i = 0; i < *len; i++)
        if (abs(a[i]) > abs(b[i]) || (abs(a[i]) == abs(b[i]) && a[i] > b[i]))
            b[i] = a[i]; /* ties to the larger: commutative */
}

static int val(int r, int i)
{
    return (r + 1) * (i % 97) - 3 * r;
}

static void one(int count, MPI_Op op, int user, int inplace, int nb)
{
    int *x = malloc(sizeof(int) * (size_t)(count + 1)), *y = malloc(sizeof(int) * (size_t)(count + 1));
    for (int i = 0; i < count; i++)
        x[i] = y[i] = val(rank, i);
    MPI_Request rq;
    const void *s = inplace ? MPI_IN_PLACE : x;
    if (nb) {
        MPI_Iallreduce(s, y, count, MPI_INT, op, MPI_COMM_WORLD, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    } else {
        MPI_Allreduce(s, y, count, MPI_INT, op, MPI_COMM_WORLD);
    }
    for (int i = 0; i < count; i++) {
        int want = val(0, i);
        for (int r = 1; r < size; r++)
            want = user ? (abs(val(r, i)) > abs(want) || (abs(val(r, i)) == abs(want) && val(r, i) > want)
                              ? val(r, i)
                              : want)
                        : want + val(r, i);
        CHECK(y[i] == want, "count %d %s%s%s: [%d] = %d, want %d", count, user ? "user op" : "sum",
              inplace ? " in place" : "", nb ? " nonblocking" : "", i, y[i], want);
    }
    free(x);
    free(y);
}

static void rscatter(int inplace, int nb, int block)
{
    int *cnt = malloc(sizeof(int) * (size_t)size), total = 0;
    for (int r = 0; r < size; r++)
        total += cnt[r] = block ? 3 : (r * 5) % 4; /* some blocks empty */
    int *x = malloc(sizeof(int) * (size_t)(total + 1)), *y = malloc(sizeof(int) * (size_t)(total + 1));
    for (int i = 0; i < total; i++)
        x[i] = y[i] = val(rank, i);
    const void *s = inplace ? MPI_IN_PLACE : x;
    MPI_Request rq;
    if (block && nb)
        MPI_Ireduce_scatter_block(s, y, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq);
    else if (block)
        MPI_Reduce_scatter_block(s, y, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    else if (nb)
        MPI_Ireduce_scatter(s, y, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq);
    else
        MPI_Reduce_scatter(s, y, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (nb)
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    int off = 0;
    for (int r = 0; r < rank; r++)
        off += cnt[r];
    for (int i = 0; i < cnt[rank]; i++) {
        int want = 0;
        for (int r = 0; r < size; r++)
            want += val(r, off + i);
        CHECK(y[i] == want, "reduce_scatter%s%s%s [%d] = %d, want %d", block ? "_block" : "",
              inplace ? " in place" : "", nb ? " nonblocking" : "", i, y[i], want);
    }
    free(cnt);
    free(x);
    free(y);
}

static void bcast(int count, int root, int nb, MPI_Datatype dt, int stride)
{
    int *x = malloc(sizeof(int) * (size_t)(stride * count + 1));
    for (int i = 0; i < stride * count; i++)
        x[i] = rank == root ? 7 * i + root : (i % stride ? -5 : -1);
    MPI_Request rq;
    if (nb) {
        MPI_Ibcast(x, count, dt, root, MPI_COMM_WORLD, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    } else {
        MPI_Bcast(x, count, dt, root, MPI_COMM_WORLD);
    }
    for (int i = 0; i < stride * count; i++)
        CHECK(x[i] == (i % stride && rank != root ? -5 : 7 * i + root), "bcast count %d root %d%s [%d] = %d",
              count, root, nb ? " nonblocking" : "", i, x[i]);
    free(x);
}

int main(int argc, char **argv)
{
    setenv("RAILMPI_COLL_RING_MIN", "1", 1);
    setenv("RAILMPI_COLL_BCAST_SCATTER_MIN", "1", 1);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Op mx;
    MPI_Op_create(maxabs, 1, &mx);
    int counts[] = {0, 1, size - 1, size, size + 1, 2 * size + 3, 1000, 65537};
    for (unsigned k = 0; k < sizeof counts / sizeof counts[0]; k++)
        for (int v = 0; v < 8; v++)
            one(counts[k], v & 1 ? mx : MPI_SUM, v & 1, (v >> 1) & 1, (v >> 2) & 1);
    MPI_Datatype pair; /* every other int of two */
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &pair);
    MPI_Type_commit(&pair);
    for (int root = 0; root < size; root++)
        for (unsigned k = 0; k < sizeof counts / sizeof counts[0]; k++) {
            bcast(counts[k], root, root % 2, MPI_INT, 1);
            if (counts[k] < 5000)
                bcast(counts[k], root, 1 - root % 2, pair, 2);
        }
    MPI_Type_free(&pair);
    for (int v = 0; v < 8; v++)
        rscatter(v & 1, (v >> 1) & 1, (v >> 2) & 1);
    /* a strided type: every other int of 2 * n */
    enum { N = 37 };
    MPI_Datatype every2;
    MPI_Type_vector(N, 1, 2, MPI_INT, &every2);
    MPI_Type_commit(&every2);
    int a[2 * N], b[2 * N];
    for (int i = 0; i < 2 * N; i++) {
        a[i] = rank + i;
        b[i] = -1;
    }
    MPI_Allreduce(a, b, 1, every2, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < 2 * N; i++)
        CHECK(b[i] == (i % 2 ? -1 : size * (size - 1) / 2 + size * i), "strided [%d] = %d", i, b[i]);
    MPI_Type_free(&every2);
    MPI_Op_free(&mx);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("coll_ring: OK (%d ranks)\n", size);
    MPI_Finalize();
    return 0;
}
