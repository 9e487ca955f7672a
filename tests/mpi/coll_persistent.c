/* ranks: 1 2 3 4 */
/* Persistent collectives (MPI-4.0, as MPICH 4 exports them): a schedule
 * built once by MPI_*_init and started many times with MPI_Start and
 * MPI_Startall, new data in the buffers each time; inactive requests
 * complete at once; MPI_Request_free ends them. */
#include "check.h"

#include <string.h>

static int rank, size;

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    enum { N = 5 };
    int x[N], sum[N], b[N];
    MPI_Request ar, br, bar;
    MPI_Allreduce_init(x, sum, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &ar);
    MPI_Bcast_init(b, N, MPI_INT, size - 1, MPI_COMM_WORLD, MPI_INFO_NULL, &br);
    MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &bar);
    /* not started yet: completes at once, stays allocated */
    CHECK(MPI_Wait(&ar, MPI_STATUS_IGNORE) == MPI_SUCCESS && ar != MPI_REQUEST_NULL, "inactive wait");
    for (int it = 0; it < 4; it++) {
        for (int i = 0; i < N; i++) {
            x[i] = (rank + 1) * (it + 1) + i;
            b[i] = rank == size - 1 ? 1000 * it + i : -1;
        }
        MPI_Request both[2] = {ar, br};
        MPI_Startall(2, both);
        MPI_Waitall(2, both, MPI_STATUSES_IGNORE);
        CHECK(both[0] == ar && both[1] == br, "persistent requests were freed by Waitall");
        for (int i = 0; i < N; i++) {
            CHECK(sum[i] == (it + 1) * size * (size + 1) / 2 + size * i, "iteration %d sum[%d] = %d", it,
                  i, sum[i]);
            CHECK(b[i] == 1000 * it + i, "iteration %d bcast[%d] = %d", it, i, b[i]);
        }
        MPI_Start(&bar);
        int flag = 0;
        while (!flag)
            MPI_Test(&bar, &flag, MPI_STATUS_IGNORE);
        CHECK(bar != MPI_REQUEST_NULL, "persistent barrier freed by Test");
    }
    /* a neighbourhood exchange on a periodic ring, started twice */
    MPI_Comm ring;
    int dims[1] = {size}, per[1] = {1};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, per, 0, &ring);
    int s[2], r[2];
    MPI_Request nr;
    MPI_Neighbor_alltoall_init(s, 1, MPI_INT, r, 1, MPI_INT, ring, MPI_INFO_NULL, &nr);
    for (int it = 0; it < 2; it++) {
        s[0] = 10 * rank + it;
        s[1] = 10 * rank + 5 + it;
        MPI_Start(&nr);
        MPI_Wait(&nr, MPI_STATUS_IGNORE);
        int left = (rank - 1 + size) % size, right = (rank + 1) % size;
        CHECK(r[0] == 10 * left + 5 + it && r[1] == 10 * right + it, "neighbour iteration %d: %d %d", it,
              r[0], r[1]);
    }
    /* alltoallw with a type per block */
    int ws[8], wr[8], cnt[8], dsp[8];
    MPI_Datatype ty[8];
    for (int j = 0; j < size; j++) {
        cnt[j] = 1;
        dsp[j] = j * (int)sizeof(int);
        ty[j] = MPI_INT;
        ws[j] = 100 * rank + j;
    }
    MPI_Request wq;
    MPI_Alltoallw_init(ws, cnt, dsp, ty, wr, cnt, dsp, ty, MPI_COMM_WORLD, MPI_INFO_NULL, &wq);
    MPI_Start(&wq);
    MPI_Wait(&wq, MPI_STATUS_IGNORE);
    for (int j = 0; j < size; j++)
        CHECK(wr[j] == 100 * j + rank, "alltoallw_init from %d: %d", j, wr[j]);
    /* errors: starting an active request */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* errors tied to no object (MPI-4.1 9.3) */
    MPI_Start(&wq);
    int e = MPI_Start(&wq), cls;
    MPI_Error_class(e, &cls);
    CHECK(cls == MPI_ERR_REQUEST, "start of an active request: class %d", cls);
    MPI_Wait(&wq, MPI_STATUS_IGNORE);
    MPI_Request_free(&wq);
    MPI_Request_free(&nr);
    MPI_Request_free(&ar);
    MPI_Request_free(&br);
    MPI_Request_free(&bar);
    CHECK(ar == MPI_REQUEST_NULL, "request_free");
    MPI_Comm_free(&ring);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("coll_persistent: OK (%d ranks)\n", size);
    MPI_Finalize();
    return 0;
}
