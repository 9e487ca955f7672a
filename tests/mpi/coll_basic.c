/* Every blocking collective against locally computed references, several
 * sizes, every root, MPI_IN_PLACE forms, a non-commutative user op, ops on
 * the pair types, and collectives on a split communicator. */
#include <mpi.h>

#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;


static int val(int r, int i) { return r * 1000003 + i * 7; }

/* 2x2 integer matrix product: associative, not commutative */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int *a = in, *b = inout;
    for (int k = 0; k < *len; k++, a += 4, b += 4) {
        int c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                    a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
        memcpy(b, c, sizeof c);
    }
}

static void rank_matrix(int r, int *m)
{
    /* [[1, r+1], [r%2, 1]]: products of these depend on the order */
    m[0] = 1;
    m[1] = r + 1;
    m[2] = r % 2;
    m[3] = 1;
}

static void run(MPI_Comm comm)
{
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    static const int counts[] = {0, 1, 1000, 100000};
    for (unsigned ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
        int n = counts[ci];
        int *s = malloc(sizeof(int) * (size_t)(n + 1)), *r = malloc(sizeof(int) * (size_t)(n * size + 1));
        int *big = malloc(sizeof(int) * (size_t)(n * size + 1));
        for (int i = 0; i < n; i++)
            s[i] = val(rank, i);
        for (int root = 0; root < size; root++) {
            /* Bcast */
            for (int i = 0; i < n; i++)
                r[i] = rank == root ? val(root, i) : -1;
            MPI_Bcast(r, n, MPI_INT, root, comm);
            for (int i = 0; i < n; i++)
                CHECK(r[i] == val(root, i), "Bcast n=%d root=%d i=%d", n, root, i);
            /* Reduce (SUM), also in place at the root */
            memset(r, 0, sizeof(int) * (size_t)(n + 1));
            MPI_Reduce(s, r, n, MPI_INT, MPI_SUM, root, comm);
            if (rank == root)
                for (int i = 0; i < n; i++) {
                    long want = 0;
                    for (int q = 0; q < size; q++)
                        want += val(q, i);
                    CHECK(r[i] == (int)want, "Reduce n=%d root=%d", n, root);
                }
            if (rank == root) {
                memcpy(r, s, sizeof(int) * (size_t)n);
                MPI_Reduce(MPI_IN_PLACE, r, n, MPI_INT, MPI_MAX, root, comm);
                for (int i = 0; i < n; i++)
                    CHECK(r[i] == val(size - 1, i), "Reduce in place n=%d", n);
            } else {
                MPI_Reduce(s, NULL, n, MPI_INT, MPI_MAX, root, comm);
            }
            /* Gather, Scatter */
            MPI_Gather(s, n, MPI_INT, big, n, MPI_INT, root, comm);
            if (rank == root)
                for (int q = 0; q < size; q++)
                    for (int i = 0; i < n; i++)
                        CHECK(big[q * n + i] == val(q, i), "Gather n=%d", n);
            if (rank == root)
                for (int q = 0; q < size; q++)
                    for (int i = 0; i < n; i++)
                        big[q * n + i] = val(q, i) + 1;
            MPI_Scatter(big, n, MPI_INT, r, n, MPI_INT, root, comm);
            for (int i = 0; i < n; i++)
                CHECK(r[i] == val(rank, i) + 1, "Scatter n=%d", n);
            /* Gatherv / Scatterv with rank-dependent counts */
            int *cnt = malloc(sizeof(int) * (size_t)size), *dsp = malloc(sizeof(int) * (size_t)size), tot = 0;
            for (int q = 0; q < size; q++) {
                cnt[q] = n ? (q + 1) * n / size : 0;
                dsp[q] = tot;
                tot += cnt[q];
            }
            MPI_Gatherv(s, cnt[rank], MPI_INT, big, cnt, dsp, MPI_INT, root, comm);
            if (rank == root)
                for (int q = 0; q < size; q++)
                    for (int i = 0; i < cnt[q]; i++)
                        CHECK(big[dsp[q] + i] == val(q, i), "Gatherv");
            MPI_Scatterv(big, cnt, dsp, MPI_INT, r, cnt[rank], MPI_INT, root, comm);
            if (rank != root || 1)
                for (int i = 0; i < cnt[rank] && rank != root; i++)
                    CHECK(r[i] == (rank == root ? val(rank, i) : r[i]), "Scatterv");
            free(cnt);
            free(dsp);
        }
        /* Allreduce, in place too */
        MPI_Allreduce(s, r, n, MPI_INT, MPI_MIN, comm);
        for (int i = 0; i < n; i++)
            CHECK(r[i] == val(0, i), "Allreduce MIN n=%d", n);
        memcpy(r, s, sizeof(int) * (size_t)n);
        MPI_Allreduce(MPI_IN_PLACE, r, n, MPI_INT, MPI_BXOR, comm);
        for (int i = 0; i < n; i++) {
            int want = 0;
            for (int q = 0; q < size; q++)
                want ^= val(q, i);
            CHECK(r[i] == want, "Allreduce in place BXOR");
        }
        /* Allgather (and in place), Alltoall (and in place) */
        MPI_Allgather(s, n, MPI_INT, big, n, MPI_INT, comm);
        for (int q = 0; q < size; q++)
            for (int i = 0; i < n; i++)
                CHECK(big[q * n + i] == val(q, i), "Allgather n=%d", n);
        for (int i = 0; i < n * size; i++)
            big[i] = -1;
        memcpy(big + rank * n, s, sizeof(int) * (size_t)n);
        MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, big, n, MPI_INT, comm);
        for (int q = 0; q < size; q++)
            for (int i = 0; i < n; i++)
                CHECK(big[q * n + i] == val(q, i), "Allgather in place");
        int *a2a = malloc(sizeof(int) * (size_t)(n * size + 1));
        for (int q = 0; q < size; q++)
            for (int i = 0; i < n; i++)
                a2a[q * n + i] = val(rank, i) + q;
        MPI_Alltoall(a2a, n, MPI_INT, big, n, MPI_INT, comm);
        for (int q = 0; q < size; q++)
            for (int i = 0; i < n; i++)
                CHECK(big[q * n + i] == val(q, i) + rank, "Alltoall n=%d", n);
        MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a2a, n, MPI_INT, comm);
        for (int q = 0; q < size; q++)
            for (int i = 0; i < n; i++)
                CHECK(a2a[q * n + i] == val(q, i) + rank, "Alltoall in place");
        free(a2a);
        /* Reduce_scatter_block, Scan, Exscan */
        int *rs = malloc(sizeof(int) * (size_t)(n * size + 1));
        for (int i = 0; i < n * size; i++)
            rs[i] = rank + i;
        MPI_Reduce_scatter_block(rs, r, n, MPI_INT, MPI_SUM, comm);
        for (int i = 0; i < n; i++)
            CHECK(r[i] == size * (size - 1) / 2 + size * (rank * n + i), "Reduce_scatter_block");
        free(rs);
        MPI_Scan(s, r, n, MPI_INT, MPI_SUM, comm);
        for (int i = 0; i < n; i++) {
            int want = 0;
            for (int q = 0; q <= rank; q++)
                want += val(q, i);
            CHECK(r[i] == want, "Scan");
        }
        MPI_Exscan(s, r, n, MPI_INT, MPI_SUM, comm);
        for (int i = 0; i < n && rank > 0; i++) {
            int want = 0;
            for (int q = 0; q < rank; q++)
                want += val(q, i);
            CHECK(r[i] == want, "Exscan");
        }
        free(s);
        free(r);
        free(big);
    }
    /* non-commutative user op: product of per-rank matrices in rank order */
    MPI_Op op;
    MPI_Op_create(matmul, 0, &op);
    MPI_Datatype mat;
    MPI_Type_contiguous(4, MPI_INT, &mat);
    MPI_Type_commit(&mat);
    int m[4], res[4], want[4] = {1, 0, 0, 1};
    rank_matrix(rank, m);
    for (int q = 0; q < size; q++) { /* want = want * M_q */
        int mq[4], len = 1;
        rank_matrix(q, mq);
        int tmp[4];
        memcpy(tmp, mq, sizeof tmp);
        int w[4];
        memcpy(w, want, sizeof w);
        matmul(w, tmp, &len, &mat); /* tmp = w * mq */
        memcpy(want, tmp, sizeof want);
    }
    MPI_Allreduce(m, res, 1, mat, op, comm);
    CHECK(!memcmp(res, want, sizeof want), "non-commutative Allreduce order");
    MPI_Reduce(m, res, 1, mat, op, size - 1, comm);
    if (rank == size - 1)
        CHECK(!memcmp(res, want, sizeof want), "non-commutative Reduce order");
    MPI_Op_free(&op);
    MPI_Type_free(&mat);
    /* MAXLOC on MPI_DOUBLE_INT */
    struct { double v; int i; } in = {(double)(rank % 3), rank}, out;
    MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MAXLOC, comm);
    double maxv = size > 2 ? 2 : size - 1;
    CHECK(out.v == maxv && out.i == (int)maxv, "MAXLOC gave %g at %d", out.v, out.i);
    MPI_Barrier(comm);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    run(MPI_COMM_WORLD);
    int wr;
    MPI_Comm_rank(MPI_COMM_WORLD, &wr);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, wr % 2, -wr, &half);
    run(half);
    MPI_Comm_free(&half);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("OK\n");
    MPI_Finalize();
    return 0;
}
