/* ranks: 2 3 4 5 */
/* The intercommunicator forms of the blocking collectives (MPI-3.1 §5.2.2):
 * each group receives what the other group contributed; rooted calls take
 * MPI_ROOT / MPI_PROC_NULL in the root's group and the root's remote rank
 * in the other. Groups are unequal for odd counts. Bad input: MPI_IN_PLACE,
 * a bad root, scans on an intercommunicator. */
#include <mpi.h>

#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static int err_class(int code)
{
    int cls;
    MPI_Error_class(code, &cls);
    return cls;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* group 0: world ranks 0 .. size/2 - 1; group 1: the rest */
    int half = size / 2, color = rank >= half;
    int nl = color ? size - half : half, nr = size - nl;
    MPI_Comm local, ic;
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, color ? 0 : half, 11, &ic);
    int me;
    MPI_Comm_rank(ic, &me);
    int rbase = color ? 0 : half; /* world rank of remote rank 0 */
#define RW(j) (rbase + (j))
    int sum_rw = 0;
    for (int j = 0; j < nr; j++)
        sum_rw += RW(j);
    int big = 2 * size * size + 8;
    int *sb = malloc(sizeof(int) * (size_t)big), *rb = malloc(sizeof(int) * (size_t)big);
    int *cnt = malloc(sizeof(int) * (size_t)size), *dsp = malloc(sizeof(int) * (size_t)size);
    int *cnt2 = malloc(sizeof(int) * (size_t)size), *dsp2 = malloc(sizeof(int) * (size_t)size);

    MPI_Barrier(ic);

    /* Bcast from group 0's local rank 0, then from group 1's last rank */
    for (int from = 0; from < 2; from++) {
        int root_local = from ? (size - half) - 1 : 0;
        int v[4] = {-1, -1, -1, -1};
        int root;
        if (color == from) {
            root = me == root_local ? MPI_ROOT : MPI_PROC_NULL;
            if (root == MPI_ROOT)
                for (int i = 0; i < 4; i++)
                    v[i] = 1000 * from + i;
        } else {
            root = root_local;
        }
        MPI_Bcast(v, 4, MPI_INT, root, ic);
        for (int i = 0; i < 4; i++) {
            int want = color == from ? (root == MPI_ROOT ? 1000 * from + i : -1) : 1000 * from + i;
            CHECK(v[i] == want, "bcast from group %d: v[%d] = %d, want %d", from, i, v[i], want);
        }
    }

    /* Gather / Gatherv to group 1's local rank 0 */
    {
        int root = color ? (me == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
        int s[2] = {rank, 10 * rank};
        for (int i = 0; i < big; i++)
            rb[i] = -1;
        MPI_Gather(s, 2, MPI_INT, rb, 2, MPI_INT, root, ic);
        if (root == MPI_ROOT)
            for (int j = 0; j < nr; j++)
                CHECK(rb[2 * j] == RW(j) && rb[2 * j + 1] == 10 * RW(j), "gather block %d", j);
        /* remote j sends j + 1 ints; blocks land in reverse order */
        int off = 0;
        for (int j = nr - 1; j >= 0; j--) {
            cnt[j] = j + 1;
            dsp[j] = off;
            off += j + 1;
        }
        for (int i = 0; i < me + 1; i++)
            sb[i] = rank * 100 + i;
        for (int i = 0; i < big; i++)
            rb[i] = -1;
        MPI_Gatherv(sb, me + 1, MPI_INT, rb, cnt, dsp, MPI_INT, root, ic);
        if (root == MPI_ROOT)
            for (int j = 0; j < nr; j++)
                for (int i = 0; i <= j; i++)
                    CHECK(rb[dsp[j] + i] == RW(j) * 100 + i, "gatherv block %d item %d", j, i);
    }

    /* Scatter / Scatterv from group 0's local rank 0 */
    {
        int root = !color ? (me == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
        if (root == MPI_ROOT)
            for (int j = 0; j < nr; j++) {
                sb[2 * j] = 7 * j;
                sb[2 * j + 1] = RW(j);
            }
        int r[2] = {-1, -1};
        MPI_Scatter(sb, 2, MPI_INT, r, 2, MPI_INT, root, ic);
        if (color)
            CHECK(r[0] == 7 * me && r[1] == rank, "scatter got %d %d", r[0], r[1]);
        else
            CHECK(r[0] == -1, "scatter touched a buffer in the root's group");
        if (root == MPI_ROOT)
            for (int j = 0; j < nr; j++) {
                cnt[j] = j + 1;
                dsp[j] = 3 * j;
                for (int i = 0; i <= j; i++)
                    sb[dsp[j] + i] = RW(j) + 50 * i;
            }
        for (int i = 0; i < big; i++)
            rb[i] = -1;
        MPI_Scatterv(sb, cnt, dsp, MPI_INT, rb, color ? me + 1 : 0, MPI_INT, root, ic);
        if (color)
            for (int i = 0; i <= me; i++)
                CHECK(rb[i] == rank + 50 * i, "scatterv item %d = %d", i, rb[i]);
    }

    /* Allgather / Allgatherv: each group gets the other's contributions */
    {
        int s[2] = {rank, -rank};
        MPI_Allgather(s, 2, MPI_INT, rb, 2, MPI_INT, ic);
        for (int j = 0; j < nr; j++)
            CHECK(rb[2 * j] == RW(j) && rb[2 * j + 1] == -RW(j), "allgather block %d", j);
        int off = 0;
        for (int j = 0; j < nr; j++) {
            cnt[j] = j + 1;
            dsp[j] = off + 1; /* a gap before each block */
            off += j + 2;
        }
        for (int i = 0; i < me + 1; i++)
            sb[i] = rank * 1000 + i;
        for (int i = 0; i < big; i++)
            rb[i] = -1;
        MPI_Allgatherv(sb, me + 1, MPI_INT, rb, cnt, dsp, MPI_INT, ic);
        for (int j = 0; j < nr; j++) {
            CHECK(rb[dsp[j] - 1] == -1, "allgatherv wrote into the gap before block %d", j);
            for (int i = 0; i <= j; i++)
                CHECK(rb[dsp[j] + i] == RW(j) * 1000 + i, "allgatherv block %d item %d", j, i);
        }
    }

    /* Alltoall / Alltoallv: block j goes to remote j */
    {
        for (int j = 0; j < nr; j++)
            sb[j] = rank * 100 + j;
        MPI_Alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, ic);
        for (int j = 0; j < nr; j++)
            CHECK(rb[j] == RW(j) * 100 + me, "alltoall from remote %d: %d", j, rb[j]);
        /* me sends 1 + (me + j) % 2 ints to remote j, at stride 2 */
        for (int j = 0; j < nr; j++) {
            cnt[j] = 1 + (me + j) % 2;
            dsp[j] = 2 * j;
            sb[2 * j] = rank;
            sb[2 * j + 1] = rank + j;
            cnt2[j] = 1 + (me + j) % 2;
            dsp2[j] = 2 * (nr - 1 - j);
        }
        for (int i = 0; i < big; i++)
            rb[i] = -1;
        MPI_Alltoallv(sb, cnt, dsp, MPI_INT, rb, cnt2, dsp2, MPI_INT, ic);
        for (int j = 0; j < nr; j++) {
            CHECK(rb[dsp2[j]] == RW(j), "alltoallv from remote %d", j);
            if (cnt2[j] == 2)
                CHECK(rb[dsp2[j] + 1] == RW(j) + me, "alltoallv second item from %d", j);
            else
                CHECK(rb[dsp2[j] + 1] == -1, "alltoallv wrote past the block from %d", j);
        }
    }

    /* Reduce to group 0's last rank, then to group 1's rank 0 */
    for (int to = 0; to < 2; to++) {
        int root_local = to ? 0 : half - 1;
        int root = color == to ? (me == root_local ? MPI_ROOT : MPI_PROC_NULL) : root_local;
        int s[3] = {rank, 1, rank * rank}, r[3] = {-1, -1, -1};
        MPI_Reduce(s, r, 3, MPI_INT, MPI_SUM, root, ic);
        if (root == MPI_ROOT) {
            int sq = 0;
            for (int j = 0; j < nr; j++)
                sq += RW(j) * RW(j);
            CHECK(r[0] == sum_rw && r[1] == nr && r[2] == sq, "reduce to group %d: %d %d %d", to,
                  r[0], r[1], r[2]);
        } else {
            CHECK(r[0] == -1, "reduce wrote at a non-root");
        }
        MPI_Reduce(s, r, 1, MPI_INT, MPI_MAX, root, ic);
        if (root == MPI_ROOT)
            CHECK(r[0] == RW(nr - 1), "max reduce %d", r[0]);
    }

    /* Allreduce: the other group's sum */
    {
        int s[2] = {rank, 1}, r[2];
        MPI_Allreduce(s, r, 2, MPI_INT, MPI_SUM, ic);
        CHECK(r[0] == sum_rw && r[1] == nr, "allreduce %d %d, want %d %d", r[0], r[1], sum_rw, nr);
    }

    /* Reduce_scatter_block: both groups reduce nl * nr items; this group's
     * blocks are nr items each */
    {
        int total = nl * nr;
        for (int e = 0; e < total; e++)
            sb[e] = rank + e;
        for (int i = 0; i < big; i++)
            rb[i] = -1;
        MPI_Reduce_scatter_block(sb, rb, nr, MPI_INT, MPI_SUM, ic);
        for (int i = 0; i < nr; i++) {
            int e = me * nr + i;
            CHECK(rb[i] == sum_rw + nr * e, "reduce_scatter_block item %d = %d", i, rb[i]);
        }
        CHECK(rb[nr] == -1, "reduce_scatter_block wrote past its block");
        /* Reduce_scatter: the same total in uneven blocks */
        for (int i = 0; i < nl; i++)
            cnt[i] = nr;
        if (nl > 1) {
            cnt[0] -= 1;
            cnt[nl - 1] += 1;
        }
        int first = 0;
        for (int i = 0; i < me; i++)
            first += cnt[i];
        for (int i = 0; i < big; i++)
            rb[i] = -1;
        MPI_Reduce_scatter(sb, rb, cnt, MPI_INT, MPI_SUM, ic);
        for (int i = 0; i < cnt[me]; i++)
            CHECK(rb[i] == sum_rw + nr * (first + i), "reduce_scatter item %d = %d", i, rb[i]);
        CHECK(rb[cnt[me]] == -1, "reduce_scatter wrote past its block");
    }

    /* a derived datatype through the linear path: pairs at stride 3 */
    {
        MPI_Datatype vec;
        MPI_Type_vector(2, 1, 3, MPI_INT, &vec);
        MPI_Type_commit(&vec);
        int s[4] = {rank, -7, -7, rank + 1};
        for (int i = 0; i < big; i++)
            rb[i] = -1;
        MPI_Allgather(s, 1, vec, rb, 2, MPI_INT, ic);
        for (int j = 0; j < nr; j++)
            CHECK(rb[2 * j] == RW(j) && rb[2 * j + 1] == RW(j) + 1, "typed allgather block %d", j);
        MPI_Type_free(&vec);
    }

    /* bad input */
    MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
    int dummy = 0, rc;
    rc = MPI_Allgather(MPI_IN_PLACE, 1, MPI_INT, rb, 1, MPI_INT, ic);
    CHECK(err_class(rc) == MPI_ERR_BUFFER, "MPI_IN_PLACE allgather: class %d", err_class(rc));
    rc = MPI_Allreduce(MPI_IN_PLACE, rb, 1, MPI_INT, MPI_SUM, ic);
    CHECK(err_class(rc) == MPI_ERR_BUFFER, "MPI_IN_PLACE allreduce: class %d", err_class(rc));
    rc = MPI_Bcast(&dummy, 1, MPI_INT, nr, ic);
    CHECK(err_class(rc) == MPI_ERR_ROOT, "bcast root %d of remote size %d: class %d", nr, nr,
          err_class(rc));
    rc = MPI_Reduce(&dummy, rb, 1, MPI_INT, MPI_SUM, -7, ic);
    CHECK(err_class(rc) == MPI_ERR_ROOT, "reduce root -7: class %d", err_class(rc));
    rc = MPI_Scan(&dummy, rb, 1, MPI_INT, MPI_SUM, ic);
    CHECK(err_class(rc) == MPI_ERR_COMM, "scan on an intercommunicator: class %d", err_class(rc));
    rc = MPI_Exscan(&dummy, rb, 1, MPI_INT, MPI_SUM, ic);
    CHECK(err_class(rc) == MPI_ERR_COMM, "exscan on an intercommunicator: class %d", err_class(rc));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* errors tied to no object (MPI-4.1 9.3) */
    rc = MPI_Bcast(&dummy, 1, MPI_INT, MPI_ROOT, MPI_COMM_WORLD);
    CHECK(err_class(rc) == MPI_ERR_ROOT, "MPI_ROOT on an intracommunicator: class %d", err_class(rc));

    MPI_Barrier(ic);
    MPI_Comm_free(&ic);
    MPI_Comm_free(&local);
    free(sb);
    free(rb);
    free(cnt);
    free(dsp);
    free(cnt2);
    free(dsp2);
    if (rank == 0)
        printf("intercomm_coll OK\n");
    MPI_Finalize();
    return 0;
}
