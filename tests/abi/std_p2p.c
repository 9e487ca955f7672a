/* Point-to-point through the standard ABI: statuses in the ABI's layout
 * (MPI_SOURCE, MPI_TAG, counts), MPI_STATUS(ES)_IGNORE, the wildcards,
 * MPI_PROC_NULL and MPI_MESSAGE_NO_PROC, request arrays. 2 ranks. */
#include <mpi.h>
#include <string.h>
#include "std_check.h"

/* a generalized request: the query function fills the ABI's status */
static int greq_freed;

static int greq_query(void *extra, MPI_Status *st)
{
    CHECK(extra == &greq_freed, "query: extra_state");
    st->MPI_SOURCE = MPI_PROC_NULL;
    st->MPI_TAG = 77;
    MPI_Status_set_elements(st, MPI_INT, 3);
    MPI_Status_set_cancelled(st, 0);
    return MPI_SUCCESS;
}

static int greq_free(void *extra)
{
    (*(int *)extra)++;
    return MPI_SUCCESS;
}

static int greq_cancel(void *extra, int complete)
{
    (void)extra, (void)complete;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    int size, buf[8], got[8];
    MPI_Status st, sts[2];
    MPI_Request rq[2];
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &std_rank));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size == 2, "needs 2 ranks, has %d", size);
    int peer = 1 - std_rank;
    for (int i = 0; i < 8; i++)
        buf[i] = 100 * std_rank + i;

    /* send/recv: the status in the ABI's layout */
    if (std_rank == 0) {
        OK(MPI_Send(buf, 5, MPI_INT, 1, 5, MPI_COMM_WORLD));
    } else {
        memset(&st, 0xff, sizeof st);
        OK(MPI_Recv(got, 8, MPI_INT, 0, 5, MPI_COMM_WORLD, &st));
        int n = -1;
        OK(MPI_Get_count(&st, MPI_INT, &n));
        CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 5 && n == 5, "status %d %d count %d", st.MPI_SOURCE, st.MPI_TAG, n);
        OK(MPI_Get_elements(&st, MPI_BYTE, &n));
        CHECK(n == 5 * (int)sizeof(int), "elements %d", n);
        CHECK(got[4] == 4, "data %d", got[4]);
    }
    /* wildcards and MPI_STATUS_IGNORE */
    if (std_rank == 1) {
        OK(MPI_Send(buf, 2, MPI_INT, 0, 9, MPI_COMM_WORLD));
        OK(MPI_Send(buf, 1, MPI_INT, 0, 10, MPI_COMM_WORLD));
    } else {
        OK(MPI_Recv(got, 8, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        CHECK(st.MPI_SOURCE == 1 && st.MPI_TAG == 9, "wildcard status %d %d", st.MPI_SOURCE, st.MPI_TAG);
        OK(MPI_Recv(got, 8, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(got[0] == 100, "data %d", got[0]);
    }
    /* MPI_PROC_NULL: an empty status naming MPI_PROC_NULL and MPI_ANY_TAG;
     * a receive leaves MPI_ERROR as it was */
    st.MPI_ERROR = 12345;
    OK(MPI_Recv(got, 8, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_ERROR == 12345, "MPI_Recv changed MPI_ERROR to %d", st.MPI_ERROR);
    int n = -1;
    OK(MPI_Get_count(&st, MPI_INT, &n));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && n == 0,
          "PROC_NULL status %d %d %d", st.MPI_SOURCE, st.MPI_TAG, n);
    OK(MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
    MPI_Message msg;
    OK(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &msg, &st));
    CHECK(msg == MPI_MESSAGE_NO_PROC, "Mprobe on MPI_PROC_NULL: not MPI_MESSAGE_NO_PROC");
    OK(MPI_Mrecv(got, 1, MPI_INT, &msg, MPI_STATUS_IGNORE));
    CHECK(msg == MPI_MESSAGE_NULL, "Mrecv left the message");

    /* isend/irecv/waitall: an array of requests and of statuses */
    OK(MPI_Irecv(got, 8, MPI_INT, peer, 20, MPI_COMM_WORLD, &rq[0]));
    OK(MPI_Isend(buf, 3 + std_rank, MPI_INT, peer, 20, MPI_COMM_WORLD, &rq[1]));
    CHECK(rq[0] != MPI_REQUEST_NULL && rq[1] != MPI_REQUEST_NULL, "requests are null");
    memset(sts, 0xff, sizeof sts);
    sts[0].MPI_ERROR = sts[1].MPI_ERROR = 12345;
    OK(MPI_Waitall(2, rq, sts));
    CHECK(rq[0] == MPI_REQUEST_NULL && rq[1] == MPI_REQUEST_NULL, "Waitall left requests");
    /* without an error, MPI_Waitall sets no MPI_ERROR */
    CHECK(sts[0].MPI_ERROR == 12345 && sts[1].MPI_ERROR == 12345, "Waitall wrote MPI_ERROR %d %d",
          sts[0].MPI_ERROR, sts[1].MPI_ERROR);
    OK(MPI_Get_count(&sts[0], MPI_INT, &n));
    CHECK(sts[0].MPI_SOURCE == peer && sts[0].MPI_TAG == 20 && n == 3 + peer, "Waitall status %d %d %d",
          sts[0].MPI_SOURCE, sts[0].MPI_TAG, n);
    CHECK(got[0] == 100 * peer, "data %d", got[0]);
    /* waitany, testall with MPI_STATUSES_IGNORE */
    OK(MPI_Isend(buf, 1, MPI_INT, peer, 21, MPI_COMM_WORLD, &rq[0]));
    OK(MPI_Irecv(got, 1, MPI_INT, peer, 21, MPI_COMM_WORLD, &rq[1]));
    int idx = -1, flag = 0;
    OK(MPI_Waitany(2, rq, &idx, &st));
    CHECK(idx == 0 || idx == 1, "Waitany index %d", idx);
    CHECK(rq[idx] == MPI_REQUEST_NULL, "Waitany left request %d", idx);
    while (!flag)
        OK(MPI_Testall(2, rq, &flag, MPI_STATUSES_IGNORE));
    OK(MPI_Waitany(2, rq, &idx, &st));
    CHECK(idx == MPI_UNDEFINED, "Waitany on null requests: %d", idx);
    /* probe, sendrecv */
    if (std_rank == 0)
        OK(MPI_Send(buf, 7, MPI_INT, 1, 30, MPI_COMM_WORLD));
    else {
        OK(MPI_Probe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        OK(MPI_Get_count(&st, MPI_INT, &n));
        CHECK(n == 7 && st.MPI_TAG == 30, "Probe %d %d", n, st.MPI_TAG);
        OK(MPI_Recv(got, 7, MPI_INT, 0, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    OK(MPI_Sendrecv(buf, 2, MPI_INT, peer, 40, got, 2, MPI_INT, peer, 40, MPI_COMM_WORLD, &st));
#if MPI_VERSION >= 4
    /* a large-count form: MPI_Count arguments, the same status */
    MPI_Count cn = -1;
    if (std_rank == 0) {
        OK(MPI_Send_c(buf, (MPI_Count)6, MPI_INT, 1, 41, MPI_COMM_WORLD));
    } else {
        OK(MPI_Recv_c(got, (MPI_Count)8, MPI_INT, 0, 41, MPI_COMM_WORLD, &st));
        OK(MPI_Get_count_c(&st, MPI_INT, &cn));
        CHECK(cn == 6 && st.MPI_TAG == 41 && st.MPI_SOURCE == 0, "Recv_c count %lld", (long long)cn);
    }
#endif
    CHECK(st.MPI_SOURCE == peer && got[1] == 100 * peer + 1, "Sendrecv %d %d", st.MPI_SOURCE, got[1]);
    /* status accessors on the ABI's status */
    OK(MPI_Status_set_elements(&st, MPI_INT, 6));
    OK(MPI_Get_count(&st, MPI_INT, &n));
    CHECK(n == 6, "set_elements %d", n);
    OK(MPI_Status_set_cancelled(&st, 1));
    OK(MPI_Test_cancelled(&st, &flag));
    CHECK(flag, "set_cancelled");
    MPI_Request g;
    OK(MPI_Grequest_start(greq_query, greq_free, greq_cancel, &greq_freed, &g));
    OK(MPI_Test(&g, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag && greq_freed == 0, "generalized request done before MPI_Grequest_complete");
    OK(MPI_Grequest_complete(g));
    OK(MPI_Wait(&g, &st));
    OK(MPI_Get_count(&st, MPI_INT, &n));
    CHECK(g == MPI_REQUEST_NULL && greq_freed == 1, "generalized request: not freed once (%d)", greq_freed);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == 77 && n == 3, "generalized status %d %d %d",
          st.MPI_SOURCE, st.MPI_TAG, n);
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (std_rank == 0)
        printf("OK\n");
    OK(MPI_Finalize());
    return 0;
}
