/* The fast paths of the standard ABI's and Open MPI's layers (this program
 * is built for each: abi.std_fastpath, abi.ompi_fastpath) and the cases they hand to the general
 * path: requests the engine writes in the caller's slot (MPI_Isend/Irecv),
 * completed to MPI_REQUEST_NULL or left as they are (persistent requests),
 * MPI_REQUEST_NULL handed to MPI_Wait, statuses written in place (with and
 * without wildcards, MPI_ERROR left alone), MPI_IN_PLACE in a collective,
 * errors translated to the ABI's classes. 2 ranks. */
#include <mpi.h>
#include <stdint.h>
#include <string.h>
#include "std_check.h"

int main(int argc, char **argv)
{
    int size, v = 0, w = 0, n = -1;
    MPI_Status st;
    MPI_Request rq, keep;
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &std_rank));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size == 2, "run with 2 ranks");
    int peer = 1 - std_rank;

    /* a created request is the engine's handle: its upper half is zero even
     * when the slot held something else before */
    memset(&rq, 0xa5, sizeof rq);
    v = 40 + std_rank;
    if (std_rank == 0) {
        OK(MPI_Isend(&v, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &rq));
    } else {
        OK(MPI_Irecv(&w, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &rq));
    }
    CHECK(rq != MPI_REQUEST_NULL && ((uintptr_t)rq >> 32) == 0, "request %p", (void *)rq);
    memset(&st, 0x5a, sizeof st);
    st.MPI_ERROR = 4321;
    OK(MPI_Wait(&rq, &st));
    CHECK(rq == MPI_REQUEST_NULL, "MPI_Wait left the request");
    CHECK(st.MPI_ERROR == 4321, "MPI_Wait changed MPI_ERROR to %d", st.MPI_ERROR);
    if (std_rank == 1) {
        OK(MPI_Get_count(&st, MPI_INT, &n));
        CHECK(w == 40 && st.MPI_SOURCE == 0 && st.MPI_TAG == 5 && n == 1,
              "received %d from %d tag %d count %d", w, st.MPI_SOURCE, st.MPI_TAG, n);
    }

    /* MPI_REQUEST_NULL: an empty status, the request stays null */
    rq = MPI_REQUEST_NULL;
    st.MPI_ERROR = 4321;
    OK(MPI_Wait(&rq, &st));
    OK(MPI_Get_count(&st, MPI_INT, &n));
    CHECK(rq == MPI_REQUEST_NULL && st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG &&
          n == 0 && st.MPI_ERROR == 4321, "empty status %d %d %d %d", st.MPI_SOURCE, st.MPI_TAG, n,
          st.MPI_ERROR);
    OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));

    /* wildcards go the general way; the status names the real sender */
    if (std_rank == 0) {
        v = 7;
        OK(MPI_Send(&v, 1, MPI_INT, peer, 9, MPI_COMM_WORLD));
    } else {
        OK(MPI_Recv(&w, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        CHECK(w == 7 && st.MPI_SOURCE == 0 && st.MPI_TAG == 9, "wildcard receive %d %d %d", w,
              st.MPI_SOURCE, st.MPI_TAG);
        OK(MPI_Irecv(&w, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq));
    }
    if (std_rank == 0) {
        v = 8;
        OK(MPI_Send(&v, 1, MPI_INT, peer, 10, MPI_COMM_WORLD));
    } else {
        OK(MPI_Wait(&rq, &st));
        CHECK(w == 8 && st.MPI_SOURCE == 0 && st.MPI_TAG == 10, "wildcard Irecv %d %d %d", w,
              st.MPI_SOURCE, st.MPI_TAG);
    }
    OK(MPI_Recv(&w, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG, "MPI_PROC_NULL status %d %d",
          st.MPI_SOURCE, st.MPI_TAG);

    /* a receive of a rank and tag fills the status (MPI_ERROR left alone),
     * also when a twin of the call takes it (Open MPI's layer) */
    int three[3] = {1, 2, 3}, got[3] = {0};
    if (std_rank == 0) {
        OK(MPI_Send(three, 3, MPI_INT, peer, 12, MPI_COMM_WORLD));
    } else {
        memset(&st, 0x5a, sizeof st);
        st.MPI_ERROR = 4321;
        OK(MPI_Recv(got, 3, MPI_INT, peer, 12, MPI_COMM_WORLD, &st));
        OK(MPI_Get_count(&st, MPI_INT, &n));
        int cancelled = -1;
        OK(MPI_Test_cancelled(&st, &cancelled));
        CHECK(got[2] == 3 && st.MPI_SOURCE == 0 && st.MPI_TAG == 12 && n == 3 && st.MPI_ERROR == 4321 &&
                  cancelled == 0,
              "MPI_Recv status %d %d count %d error %d cancelled %d", st.MPI_SOURCE, st.MPI_TAG, n,
              st.MPI_ERROR, cancelled);
    }
    /* a cancelled receive: its status says so */
    OK(MPI_Irecv(&w, 1, MPI_INT, peer, 77, MPI_COMM_WORLD, &rq));
    OK(MPI_Cancel(&rq));
    OK(MPI_Wait(&rq, &st));
    int cancelled = 0;
    OK(MPI_Test_cancelled(&st, &cancelled));
    CHECK(cancelled == 1 && rq == MPI_REQUEST_NULL, "a cancelled receive's status says %d", cancelled);

    /* a persistent request stays as it was through MPI_Start and MPI_Wait */
    if (std_rank == 0)
        OK(MPI_Send_init(&v, 1, MPI_INT, peer, 11, MPI_COMM_WORLD, &rq));
    else
        OK(MPI_Recv_init(&w, 1, MPI_INT, peer, 11, MPI_COMM_WORLD, &rq));
    keep = rq;
    for (int i = 0; i < 3; i++) {
        v = 100 + i;
        OK(MPI_Start(&rq));
        OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        CHECK(rq == keep, "persistent request changed in MPI_Wait");
        CHECK(std_rank == 0 || w == 100 + i, "persistent receive %d", w);
    }
    OK(MPI_Request_free(&rq));
    CHECK(rq == MPI_REQUEST_NULL, "MPI_Request_free left the request");

    /* a collective with and without MPI_IN_PLACE */
    v = std_rank + 1;
    OK(MPI_Allreduce(&v, &w, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(w == 3, "MPI_Allreduce %d", w);
    w = std_rank + 2;
    OK(MPI_Allreduce(MPI_IN_PLACE, &w, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(w == 5, "MPI_Allreduce in place %d", w);

    /* errors come back as the ABI's classes */
    OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int rc = MPI_Isend(&v, 1, MPI_INT, size, 0, MPI_COMM_WORLD, &rq), cls = -1;
    OK(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_RANK, "MPI_Isend to rank %d: class %d, not MPI_ERR_RANK", size, cls);
    rc = MPI_Send(&v, 1, MPI_INT, peer, -5, MPI_COMM_WORLD);
    OK(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_TAG, "MPI_Send with tag -5: class %d, not MPI_ERR_TAG", cls);
    rc = MPI_Irecv(&w, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, NULL);
    CHECK(rc != MPI_SUCCESS, "MPI_Irecv without a request succeeded");
    rc = MPI_Isend(&v, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, NULL);
    OK(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_ARG || cls == MPI_ERR_REQUEST, "MPI_Isend without a request: class %d", cls);
    rc = MPI_Allreduce(&v, &w, 1, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_WORLD);
    OK(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_TYPE, "MPI_Allreduce with MPI_DATATYPE_NULL: class %d", cls);

    OK(MPI_Finalize());
    if (std_rank == 0)
        printf("OK\n");
    return 0;
}
