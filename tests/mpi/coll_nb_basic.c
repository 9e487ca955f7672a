/* ranks: 1 2 3 4 8 */
/* Every nonblocking collective against the blocking one (or the value
 * computed here): regular and v forms, MPI_IN_PLACE, a derived datatype, a
 * non-commutative user op (2x2 matrix product), zero counts, several
 * operations in flight at once, and the error classes of bad arguments. */
#include "check.h"

#include <stdlib.h>
#include <string.h>

static int rank, size;

#define MOD 10007
/* inout = in x inout, element by element over 2x2 matrices */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    int *a = in, *b = inout;
    for (int k = 0; k < *len; k++, a += 4, b += 4) {
        int r[4] = {(a[0] * b[0] + a[1] * b[2]) % MOD, (a[0] * b[1] + a[1] * b[3]) % MOD,
                    (a[2] * b[0] + a[3] * b[2]) % MOD, (a[2] * b[1] + a[3] * b[3]) % MOD};
        memcpy(b, r, sizeof r);
    }
}

static void mat_of(int r, int k, int *m)
{
    m[0] = r + 1 + k;
    m[1] = 2 * r + 1;
    m[2] = k % 5;
    m[3] = r + 2;
}

static void wait1(MPI_Request *rq)
{
    CHECK(MPI_Wait(rq, MPI_STATUS_IGNORE) == MPI_SUCCESS, "wait failed");
    CHECK(*rq == MPI_REQUEST_NULL, "request not freed");
}

static void test_move(void)
{
    MPI_Request rq;
    int n = 5;
    int *a = malloc(sizeof(int) * (size_t)(n * size)), *b = malloc(sizeof(int) * (size_t)(n * size));
    int *c = malloc(sizeof(int) * (size_t)(n * size)), *mine = malloc(sizeof(int) * (size_t)(n * size));
    CHECK(MPI_Ibarrier(MPI_COMM_WORLD, &rq) == MPI_SUCCESS, "ibarrier");
    wait1(&rq);
    for (int root = 0; root < size; root++) {
        for (int i = 0; i < n; i++)
            a[i] = rank == root ? 100 * root + i : -1;
        MPI_Ibcast(a, n, MPI_INT, root, MPI_COMM_WORLD, &rq);
        wait1(&rq);
        for (int i = 0; i < n; i++)
            CHECK(a[i] == 100 * root + i, "ibcast root %d [%d] = %d", root, i, a[i]);
        /* gather / scatter (the v forms below send rank + 1 of these,
         * which is more than n from rank n on) */
        for (int i = 0; i < n * size; i++)
            mine[i] = 1000 * rank + i;
        memset(b, 0, sizeof(int) * (size_t)(n * size));
        MPI_Igather(mine, n, MPI_INT, b, n, MPI_INT, root, MPI_COMM_WORLD, &rq);
        wait1(&rq);
        if (rank == root)
            for (int i = 0; i < n * size; i++)
                CHECK(b[i] == 1000 * (i / n) + i % n, "igather [%d] = %d", i, b[i]);
        /* in place at the root, then scatter back out */
        if (rank == root) {
            for (int i = 0; i < n * size; i++)
                b[i] = (i / n == root) ? 1000 * root + i % n : -7;
            MPI_Igather(MPI_IN_PLACE, n, MPI_INT, b, n, MPI_INT, root, MPI_COMM_WORLD, &rq);
        } else {
            MPI_Igather(mine, n, MPI_INT, NULL, 0, MPI_INT, root, MPI_COMM_WORLD, &rq);
        }
        wait1(&rq);
        if (rank == root)
            for (int i = 0; i < n * size; i++)
                CHECK(b[i] == 1000 * (i / n) + i % n, "igather in place [%d] = %d", i, b[i]);
        memset(c, 0, sizeof(int) * (size_t)n);
        MPI_Iscatter(b, n, MPI_INT, c, n, MPI_INT, root, MPI_COMM_WORLD, &rq);
        wait1(&rq);
        for (int i = 0; i < n; i++)
            CHECK(c[i] == 1000 * rank + i, "iscatter [%d] = %d", i, c[i]);
        /* v forms: rank r contributes r + 1 items, stored in reverse rank order */
        int *cnt = malloc(sizeof(int) * (size_t)size), *dsp = malloc(sizeof(int) * (size_t)size);
        int tot = 0;
        for (int r = size - 1; r >= 0; r--) {
            cnt[r] = r + 1;
            dsp[r] = tot;
            tot += cnt[r];
        }
        int *v = calloc((size_t)tot, sizeof(int)), *w = calloc((size_t)tot, sizeof(int));
        MPI_Igatherv(mine, rank + 1, MPI_INT, v, cnt, dsp, MPI_INT, root, MPI_COMM_WORLD, &rq);
        wait1(&rq);
        if (rank == root) {
            MPI_Gatherv(MPI_IN_PLACE, 0, MPI_INT, w, cnt, dsp, MPI_INT, root, MPI_COMM_WORLD);
            memcpy(w + dsp[root], mine, sizeof(int) * (size_t)(root + 1));
        } else {
            MPI_Gatherv(mine, rank + 1, MPI_INT, NULL, NULL, NULL, MPI_INT, root, MPI_COMM_WORLD);
        }
        if (rank == root)
            CHECK(!memcmp(v, w, sizeof(int) * (size_t)tot), "igatherv differs from gatherv");
        memset(c, 0, sizeof(int) * (size_t)n);
        MPI_Iscatterv(v, cnt, dsp, MPI_INT, c, rank + 1, MPI_INT, root, MPI_COMM_WORLD, &rq);
        wait1(&rq);
        for (int i = 0; i <= rank; i++)
            CHECK(c[i] == 1000 * rank + i, "iscatterv [%d] = %d", i, c[i]);
        /* allgatherv (in place and not) */
        memset(v, 0, sizeof(int) * (size_t)tot);
        MPI_Iallgatherv(mine, rank + 1, MPI_INT, v, cnt, dsp, MPI_INT, MPI_COMM_WORLD, &rq);
        wait1(&rq);
        memset(w, 0, sizeof(int) * (size_t)tot);
        memcpy(w + dsp[rank], mine, sizeof(int) * (size_t)(rank + 1));
        MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_INT, w, cnt, dsp, MPI_INT, MPI_COMM_WORLD, &rq);
        wait1(&rq);
        for (int r = 0; r < size; r++)
            for (int i = 0; i <= r; i++)
                CHECK(v[dsp[r] + i] == 1000 * r + i && w[dsp[r] + i] == 1000 * r + i,
                      "iallgatherv block %d [%d] = %d / %d", r, i, v[dsp[r] + i], w[dsp[r] + i]);
        free(cnt);
        free(dsp);
        free(v);
        free(w);
    }
    /* allgather with a strided receive type */
    MPI_Datatype vec;
    MPI_Type_vector(n, 1, 2, MPI_INT, &vec);
    MPI_Datatype rvec;
    MPI_Type_create_resized(vec, 0, (MPI_Aint)(2 * n * sizeof(int)), &rvec);
    MPI_Type_commit(&rvec);
    int *big = calloc((size_t)(2 * n * size), sizeof(int));
    MPI_Iallgather(mine, n, MPI_INT, big, 1, rvec, MPI_COMM_WORLD, &rq);
    wait1(&rq);
    for (int r = 0; r < size; r++)
        for (int i = 0; i < n; i++)
            CHECK(big[2 * n * r + 2 * i] == 1000 * r + i && big[2 * n * r + 2 * i + 1] == 0,
                  "iallgather vector block %d [%d]", r, i);
    MPI_Type_free(&rvec);
    MPI_Type_free(&vec);
    free(big);
    /* alltoall: blocking, nonblocking, in place */
    for (int i = 0; i < n * size; i++)
        a[i] = 10000 * rank + i;
    MPI_Alltoall(a, n, MPI_INT, b, n, MPI_INT, MPI_COMM_WORLD);
    MPI_Ialltoall(a, n, MPI_INT, c, n, MPI_INT, MPI_COMM_WORLD, &rq);
    wait1(&rq);
    CHECK(!memcmp(b, c, sizeof(int) * (size_t)(n * size)), "ialltoall differs from alltoall");
    memcpy(c, a, sizeof(int) * (size_t)(n * size));
    MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, c, n, MPI_INT, MPI_COMM_WORLD, &rq);
    wait1(&rq);
    CHECK(!memcmp(b, c, sizeof(int) * (size_t)(n * size)), "in-place ialltoall differs");
    /* alltoallv: rank r sends (r + j) % 3 items to j */
    int *sc = malloc(sizeof(int) * 4 * (size_t)size), *sd = sc + size, *rc = sc + 2 * size, *rd = sc + 3 * size;
    for (int j = 0; j < size; j++) {
        sc[j] = (rank + j) % 3;
        sd[j] = n * j;
        rc[j] = (j + rank) % 3;
        rd[j] = n * (size - 1 - j);
    }
    memset(b, 0, sizeof(int) * (size_t)(n * size));
    memset(c, 0, sizeof(int) * (size_t)(n * size));
    MPI_Alltoallv(a, sc, sd, MPI_INT, b, rc, rd, MPI_INT, MPI_COMM_WORLD);
    MPI_Ialltoallv(a, sc, sd, MPI_INT, c, rc, rd, MPI_INT, MPI_COMM_WORLD, &rq);
    wait1(&rq);
    CHECK(!memcmp(b, c, sizeof(int) * (size_t)(n * size)), "ialltoallv differs from alltoallv");
    /* alltoallw with the same blocks (byte displacements) */
    MPI_Datatype *ty = malloc(sizeof *ty * (size_t)size);
    int *sdb = malloc(sizeof(int) * 2 * (size_t)size), *rdb = sdb + size;
    for (int j = 0; j < size; j++) {
        ty[j] = MPI_INT;
        sdb[j] = sd[j] * (int)sizeof(int);
        rdb[j] = rd[j] * (int)sizeof(int);
    }
    memset(c, 0, sizeof(int) * (size_t)(n * size));
    MPI_Alltoallw(a, sc, sdb, ty, c, rc, rdb, ty, MPI_COMM_WORLD);
    CHECK(!memcmp(b, c, sizeof(int) * (size_t)(n * size)), "alltoallw differs from alltoallv");
    memset(c, 0, sizeof(int) * (size_t)(n * size));
    MPI_Ialltoallw(a, sc, sdb, ty, c, rc, rdb, ty, MPI_COMM_WORLD, &rq);
    wait1(&rq);
    CHECK(!memcmp(b, c, sizeof(int) * (size_t)(n * size)), "ialltoallw differs from alltoallv");
    /* in place: symmetric counts */
    for (int j = 0; j < size; j++)
        sc[j] = rc[j] = 2;
    for (int i = 0; i < n * size; i++)
        c[i] = a[i];
    MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, c, rc, sdb, ty, MPI_COMM_WORLD);
    for (int j = 0; j < size; j++)
        for (int i = 0; i < 2; i++)
            CHECK(c[n * j + i] == 10000 * j + n * rank + i, "in-place alltoallw from %d [%d] = %d", j, i,
                  c[n * j + i]);
    free(ty);
    free(sdb);
    free(sc);
    free(a);
    free(b);
    free(c);
    free(mine);
}

static void test_reduce(void)
{
    MPI_Request rq[4];
    enum { N = 6 };
    int x[N], y[N], z[N], w[N];
    for (int i = 0; i < N; i++)
        x[i] = rank * 7 + i;
    for (int root = 0; root < size; root++) {
        MPI_Reduce(x, y, N, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
        MPI_Ireduce(x, z, N, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, &rq[0]);
        wait1(&rq[0]);
        if (rank == root) {
            CHECK(!memcmp(y, z, sizeof y), "ireduce root %d differs", root);
            memcpy(w, x, sizeof w);
            MPI_Ireduce(MPI_IN_PLACE, w, N, MPI_INT, MPI_MAX, root, MPI_COMM_WORLD, &rq[0]);
        } else {
            MPI_Ireduce(x, NULL, N, MPI_INT, MPI_MAX, root, MPI_COMM_WORLD, &rq[0]);
        }
        wait1(&rq[0]);
        if (rank == root)
            for (int i = 0; i < N; i++)
                CHECK(w[i] == (size - 1) * 7 + i, "ireduce max in place [%d] = %d", i, w[i]);
    }
    /* several at once, completed in reverse order */
    int s1[N], s2[N], s3[N], s4[N];
    MPI_Iallreduce(x, s1, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[0]);
    MPI_Iscan(x, s2, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[1]);
    MPI_Iexscan(x, s3, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[2]);
    memcpy(s4, x, sizeof s4);
    MPI_Iallreduce(MPI_IN_PLACE, s4, N, MPI_INT, MPI_MIN, MPI_COMM_WORLD, &rq[3]);
    for (int k = 3; k >= 0; k--)
        wait1(&rq[k]);
    for (int i = 0; i < N; i++) {
        int all = 7 * size * (size - 1) / 2 + size * i, pre = 7 * rank * (rank + 1) / 2 + (rank + 1) * i;
        CHECK(s1[i] == all, "iallreduce [%d] = %d, want %d", i, s1[i], all);
        CHECK(s2[i] == pre, "iscan [%d] = %d, want %d", i, s2[i], pre);
        if (rank > 0)
            CHECK(s3[i] == pre - x[i], "iexscan [%d] = %d, want %d", i, s3[i], pre - x[i]);
        CHECK(s4[i] == i, "iallreduce min in place [%d] = %d", i, s4[i]);
    }
    /* reduce_scatter(_block) against the blocking forms */
    int *cnt = malloc(sizeof(int) * (size_t)size), tot = 0;
    for (int r = 0; r < size; r++)
        tot += cnt[r] = r % 2 + 1;
    int *in = malloc(sizeof(int) * (size_t)(tot + 2 * size)), out1[3], out2[3];
    for (int i = 0; i < tot + 2 * size; i++)
        in[i] = rank + 3 * i;
    MPI_Reduce_scatter(in, out1, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Ireduce_scatter(in, out2, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[0]);
    wait1(&rq[0]);
    CHECK(!memcmp(out1, out2, sizeof(int) * (size_t)cnt[rank]), "ireduce_scatter differs");
    MPI_Reduce_scatter_block(in, out1, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Ireduce_scatter_block(MPI_IN_PLACE, in, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[0]);
    wait1(&rq[0]);
    CHECK(!memcmp(out1, in, sizeof(int) * 2), "in-place ireduce_scatter_block differs");
    free(in);
    free(cnt);
    /* non-commutative op over a derived type: rank order is kept */
    enum { K = 3 };
    MPI_Datatype mat;
    MPI_Type_contiguous(4, MPI_INT, &mat);
    MPI_Type_commit(&mat);
    MPI_Op op;
    MPI_Op_create(matmul, 0, &op);
    int m[K][4], r1[K][4], r2[K][4], want[K][4], pre[K][4];
    for (int k = 0; k < K; k++) {
        mat_of(rank, k, m[k]);
        mat_of(0, k, want[k]);
        for (int r = 1; r < size; r++) {
            int t[4];
            mat_of(r, k, t);
            int one = 1;
            /* want = want x t: matmul computes inout = in x inout */
            matmul(want[k], t, &one, NULL);
            memcpy(want[k], t, sizeof t);
            if (r == rank)
                memcpy(pre[k], want[k], sizeof t);
        }
        if (rank == 0)
            memcpy(pre[k], m[k], sizeof m[k]);
    }
    MPI_Iallreduce(m, r1, K, mat, op, MPI_COMM_WORLD, &rq[0]);
    MPI_Ireduce(m, r2, K, mat, op, size - 1, MPI_COMM_WORLD, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    CHECK(!memcmp(r1, want, sizeof want), "non-commutative iallreduce out of order");
    if (rank == size - 1)
        CHECK(!memcmp(r2, want, sizeof want), "non-commutative ireduce out of order");
    MPI_Iscan(m, r1, K, mat, op, MPI_COMM_WORLD, &rq[0]);
    wait1(&rq[0]);
    CHECK(!memcmp(r1, pre, sizeof pre), "non-commutative iscan out of order");
    /* exclusive: the product over the ranks below */
    int ex[K][4];
    for (int k = 0; k < K; k++) {
        mat_of(0, k, ex[k]);
        for (int r = 1; r < rank; r++) {
            int t[4], one = 1;
            mat_of(r, k, t);
            matmul(ex[k], t, &one, NULL);
            memcpy(ex[k], t, sizeof t);
        }
    }
    MPI_Iexscan(m, r1, K, mat, op, MPI_COMM_WORLD, &rq[0]);
    wait1(&rq[0]);
    if (rank > 0)
        CHECK(!memcmp(r1, ex, sizeof ex), "non-commutative iexscan out of order");
    memcpy(r2, m, sizeof m);
    MPI_Scan(MPI_IN_PLACE, r2, K, mat, op, MPI_COMM_WORLD);
    CHECK(!memcmp(r2, pre, sizeof pre), "non-commutative in-place scan out of order");
    MPI_Op_free(&op);
    MPI_Type_free(&mat);
    /* zero counts */
    MPI_Iallreduce(x, y, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[0]);
    MPI_Ialltoall(x, 0, MPI_INT, y, 0, MPI_INT, MPI_COMM_WORLD, &rq[1]);
    MPI_Ibcast(NULL, 0, MPI_INT, 0, MPI_COMM_WORLD, &rq[2]);
    MPI_Iscan(x, y, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[3]);
    CHECK(MPI_Waitall(4, rq, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "zero-count waitall");
}

static void test_errors(void)
{
    MPI_Request rq = MPI_REQUEST_NULL;
    int x = 0, cls, e;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* errors tied to no object (MPI-4.1 9.3) */
    e = MPI_Ibcast(&x, 1, MPI_INT, size, MPI_COMM_WORLD, &rq);
    MPI_Error_class(e, &cls);
    CHECK(cls == MPI_ERR_ROOT, "ibcast bad root: class %d", cls);
    e = MPI_Iallreduce(&x, &cls, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq);
    MPI_Error_class(e, &cls);
    CHECK(cls == MPI_ERR_COUNT, "iallreduce negative count: class %d", cls);
    e = MPI_Iallreduce(&x, &cls, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD, &rq);
    MPI_Error_class(e, &cls);
    CHECK(cls == MPI_ERR_OP, "iallreduce null op: class %d", cls);
    e = MPI_Ialltoall(&x, 1, MPI_DATATYPE_NULL, &cls, 1, MPI_INT, MPI_COMM_WORLD, &rq);
    MPI_Error_class(e, &cls);
    CHECK(cls == MPI_ERR_TYPE, "ialltoall null type: class %d", cls);
    e = MPI_Ibarrier(MPI_COMM_NULL, &rq);
    MPI_Error_class(e, &cls);
    CHECK(cls == MPI_ERR_COMM, "ibarrier null comm: class %d", cls);
    e = MPI_Ibarrier(MPI_COMM_WORLD, NULL);
    MPI_Error_class(e, &cls);
    CHECK(cls == MPI_ERR_ARG, "ibarrier null request: class %d", cls);
    CHECK(rq == MPI_REQUEST_NULL, "a failed call set the request");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    test_move();
    test_reduce();
    test_errors();
    /* a nonblocking and a blocking collective interleaved */
    int v = rank, sum = -1, b = rank == 0 ? 42 : 0;
    MPI_Request rq;
    MPI_Iallreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq);
    MPI_Bcast(&b, 1, MPI_INT, 0, MPI_COMM_WORLD);
    wait1(&rq);
    CHECK(sum == size * (size - 1) / 2 && b == 42, "interleaved: sum %d bcast %d", sum, b);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("coll_nb_basic: OK (%d ranks)\n", size);
    MPI_Finalize();
    return 0;
}
