/* ranks: 2 3 4 */
/* Nonblocking collectives and MPI_Alltoallw on an intercommunicator (the
 * even and the odd ranks of MPI_COMM_WORLD, of different sizes with 3
 * ranks), each against its blocking form. */
#include "check.h"

#include <stdlib.h>
#include <string.h>

static int rank, size;

static void wait1(MPI_Request *rq)
{
    CHECK(MPI_Wait(rq, MPI_STATUS_IGNORE) == MPI_SUCCESS && *rq == MPI_REQUEST_NULL, "wait");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm local, inter;
    int color = rank % 2;
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, 7, &inter);
    int lr, ln, rn;
    MPI_Comm_rank(inter, &lr);
    MPI_Comm_size(inter, &ln);
    MPI_Comm_remote_size(inter, &rn);
    enum { N = 3 };
    int big = (ln > rn ? ln : rn) * N;
    if (big < ln * rn)
        big = ln * rn; /* reduce_scatter_block below sends ln blocks of rn */
    int *s = malloc(sizeof(int) * (size_t)big), *a = malloc(sizeof(int) * (size_t)big),
        *b = malloc(sizeof(int) * (size_t)big);
    for (int i = 0; i < big; i++)
        s[i] = 100 * rank + i;
    MPI_Request rq;
    MPI_Ibarrier(inter, &rq);
    wait1(&rq);
    /* rooted: group 0's local rank 0 is the root, in turn for bcast/gather */
    for (int g = 0; g < 2; g++) {
        int root = color == g ? (lr == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
        memcpy(a, s, sizeof(int) * N);
        memcpy(b, s, sizeof(int) * N);
        MPI_Bcast(a, N, MPI_INT, root, inter);
        MPI_Ibcast(b, N, MPI_INT, root, inter, &rq);
        wait1(&rq);
        CHECK(!memcmp(a, b, sizeof(int) * N), "ibcast group %d", g);
        memset(a, 0, sizeof(int) * (size_t)big);
        memset(b, 0, sizeof(int) * (size_t)big);
        MPI_Gather(s, N, MPI_INT, a, N, MPI_INT, root, inter);
        MPI_Igather(s, N, MPI_INT, b, N, MPI_INT, root, inter, &rq);
        wait1(&rq);
        CHECK(!memcmp(a, b, sizeof(int) * (size_t)big), "igather group %d", g);
        MPI_Scatter(s, N, MPI_INT, a, N, MPI_INT, root, inter);
        MPI_Iscatter(s, N, MPI_INT, b, N, MPI_INT, root, inter, &rq);
        wait1(&rq);
        CHECK(!memcmp(a, b, sizeof(int) * N), "iscatter group %d", g);
        MPI_Reduce(s, a, N, MPI_INT, MPI_SUM, root, inter);
        MPI_Ireduce(s, b, N, MPI_INT, MPI_SUM, root, inter, &rq);
        wait1(&rq);
        if (root == MPI_ROOT)
            CHECK(!memcmp(a, b, sizeof(int) * N), "ireduce group %d", g);
    }
    memset(a, 0, sizeof(int) * (size_t)big);
    memset(b, 0, sizeof(int) * (size_t)big);
    MPI_Allgather(s, N, MPI_INT, a, N, MPI_INT, inter);
    MPI_Iallgather(s, N, MPI_INT, b, N, MPI_INT, inter, &rq);
    wait1(&rq);
    CHECK(!memcmp(a, b, sizeof(int) * (size_t)big), "iallgather");
    MPI_Alltoall(s, 1, MPI_INT, a, 1, MPI_INT, inter);
    MPI_Ialltoall(s, 1, MPI_INT, b, 1, MPI_INT, inter, &rq);
    wait1(&rq);
    CHECK(!memcmp(a, b, sizeof(int) * (size_t)rn), "ialltoall");
    /* alltoallw: one int from/to each remote process, at stride 2 */
    int *cnt = malloc(sizeof(int) * (size_t)big), *dsp = malloc(sizeof(int) * (size_t)big);
    MPI_Datatype *ty = malloc(sizeof *ty * (size_t)big);
    for (int i = 0; i < rn; i++) {
        cnt[i] = 1;
        dsp[i] = 2 * i * (int)sizeof(int);
        ty[i] = MPI_INT;
    }
    int *w = calloc((size_t)(2 * rn), sizeof(int));
    MPI_Alltoallw(s, cnt, dsp, ty, w, cnt, dsp, ty, inter);
    for (int i = 0; i < rn; i++) {
        int from = 2 * i + (1 - color); /* world rank of remote i */
        CHECK(w[2 * i] == 100 * from + 2 * lr && w[2 * i + 1] == 0, "alltoallw from %d: %d", i, w[2 * i]);
    }
    memset(w, 0, sizeof(int) * (size_t)(2 * rn));
    MPI_Ialltoallw(s, cnt, dsp, ty, w, cnt, dsp, ty, inter, &rq);
    wait1(&rq);
    for (int i = 0; i < rn; i++)
        CHECK(w[2 * i] == 100 * (2 * i + 1 - color) + 2 * lr, "ialltoallw from %d: %d", i, w[2 * i]);
    MPI_Allreduce(s, a, N, MPI_INT, MPI_SUM, inter);
    MPI_Iallreduce(s, b, N, MPI_INT, MPI_SUM, inter, &rq);
    wait1(&rq);
    CHECK(!memcmp(a, b, sizeof(int) * N), "iallreduce");
    /* both groups reduce vectors of the same length: 2 per process of the
     * smaller group... use blocks summing to ln * rn on either side */
    MPI_Reduce_scatter_block(s, a, rn, MPI_INT, MPI_SUM, inter);
    MPI_Ireduce_scatter_block(s, b, rn, MPI_INT, MPI_SUM, inter, &rq);
    wait1(&rq);
    CHECK(!memcmp(a, b, sizeof(int) * (size_t)rn), "ireduce_scatter_block");
    int cls, e;
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    e = MPI_Iallreduce(MPI_IN_PLACE, b, N, MPI_INT, MPI_SUM, inter, &rq);
    MPI_Error_class(e, &cls);
    CHECK(cls == MPI_ERR_BUFFER, "in place on an intercommunicator: class %d", cls);
    e = MPI_Iscan(s, b, N, MPI_INT, MPI_SUM, inter, &rq);
    MPI_Error_class(e, &cls);
    CHECK(cls == MPI_ERR_COMM, "iscan on an intercommunicator: class %d", cls);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("coll_nb_inter: OK (%d ranks)\n", size);
    free(s);
    free(a);
    free(b);
    free(cnt);
    free(dsp);
    free(ty);
    free(w);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    MPI_Finalize();
    return 0;
}
