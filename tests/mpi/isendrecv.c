/* ranks: 1 2 4 */
/* MPI_Isendrecv and MPI_Isendrecv_replace (MPI-4.0): a ring exchange, small
 * and past the eager size, completes through MPI_Wait/MPI_Test with the
 * receive's status; other traffic (a blocking MPI_Sendrecv, a barrier) runs
 * while the pair is pending; the replace form with a strided type exchanges
 * only the described elements and leaves the gaps alone; MPI_PROC_NULL gives
 * the empty status; a short receive buffer is MPI_ERR_TRUNCATE at
 * completion; bad arguments fail at the call with the standard's classes. */
#include <mpi.h>

#include "check.h"
#include <stdlib.h>
#include <string.h>

static int rank, size;

static void ring(int n)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int *out = malloc(sizeof(int) * (size_t)n), *in = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++) {
        out[i] = rank * 1000003 + i;
        in[i] = -1;
    }
    MPI_Request r;
    MPI_Status st;
    CHECK(MPI_Isendrecv(out, n, MPI_INT, right, 7, in, n, MPI_INT, left, 7, MPI_COMM_WORLD, &r) ==
              MPI_SUCCESS, "MPI_Isendrecv failed");
    CHECK(r != MPI_REQUEST_NULL, "no request");
    /* more traffic on the same communicator while the pair is pending */
    int a = rank, b = -1;
    MPI_Sendrecv(&a, 1, MPI_INT, left, 8, &b, 1, MPI_INT, right, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(b == right, "blocking sendrecv beside the pending pair got %d", b);
    MPI_Barrier(MPI_COMM_WORLD);
    int flag = 0;
    while (!flag)
        MPI_Test(&r, &flag, &st);
    CHECK(r == MPI_REQUEST_NULL, "completed request not freed");
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 7, "status source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
    int cnt;
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(cnt == n, "count %d, want %d", cnt, n);
    for (int i = 0; i < n; i++)
        CHECK(in[i] == left * 1000003 + i, "n=%d: element %d is %d", n, i, in[i]);
    free(out);
    free(in);
}

static void replace_strided(int n)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    /* every other int, n of them, in a buffer of 2n */
    MPI_Datatype vec;
    MPI_Type_vector(n, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int *buf = malloc(sizeof(int) * 2 * (size_t)n);
    for (int i = 0; i < 2 * n; i++)
        buf[i] = i % 2 ? -7 : rank * 100 + i / 2;
    MPI_Request r;
    MPI_Status st;
    CHECK(MPI_Isendrecv_replace(buf, 1, vec, right, 3, left, 3, MPI_COMM_WORLD, &r) == MPI_SUCCESS,
          "MPI_Isendrecv_replace failed");
    MPI_Wait(&r, &st);
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 3, "replace status source %d tag %d", st.MPI_SOURCE,
          st.MPI_TAG);
    int cnt;
    MPI_Get_count(&st, vec, &cnt);
    CHECK(cnt == 1, "replace count %d", cnt);
    for (int i = 0; i < 2 * n; i++)
        CHECK(buf[i] == (i % 2 ? -7 : left * 100 + i / 2), "replace n=%d: element %d is %d", n, i, buf[i]);
    free(buf);
    MPI_Type_free(&vec);
}

static void proc_null(void)
{
    int x = 5, y = 9;
    MPI_Request r;
    MPI_Status st;
    MPI_Isendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, &y, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, &st);
    int cnt;
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && cnt == 0 && y == 9,
          "MPI_PROC_NULL: source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, cnt);
    MPI_Isendrecv_replace(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, &st);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && x == 5, "replace with MPI_PROC_NULL changed the buffer");
}

static void truncated(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out[4] = {1, 2, 3, 4}, in[2] = {0, 0};
    MPI_Request r;
    MPI_Isendrecv(out, 4, MPI_INT, right, 11, in, 2, MPI_INT, left, 11, MPI_COMM_WORLD, &r);
    int rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE, "short receive buffer: class %d, want MPI_ERR_TRUNCATE", cls);
    /* in MPI_Waitall the error is in the status */
    MPI_Status sts[1];
    MPI_Isendrecv(out, 4, MPI_INT, right, 12, in, 2, MPI_INT, left, 12, MPI_COMM_WORLD, &r);
    rc = MPI_Waitall(1, &r, sts);
    CHECK(rc == MPI_ERR_IN_STATUS && sts[0].MPI_ERROR != MPI_SUCCESS, "Waitall: %d, status error %d",
          rc, sts[0].MPI_ERROR);
    MPI_Error_class(sts[0].MPI_ERROR, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE, "Waitall status error class %d", cls);
}

static void expect(int rc, int want, const char *what)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == want, "%s: class %d, want %d", what, cls, want);
}

static void bad_args(void)
{
    int x = 0, y = 0;
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Comm w = MPI_COMM_WORLD;
    expect(MPI_Isendrecv(&x, 1, MPI_INT, size, 0, &y, 1, MPI_INT, 0, 0, w, &r), MPI_ERR_RANK, "dest out of range");
    expect(MPI_Isendrecv(&x, 1, MPI_INT, 0, 0, &y, 1, MPI_INT, size, 0, w, &r), MPI_ERR_RANK, "source out of range");
    expect(MPI_Isendrecv(&x, 1, MPI_INT, 0, -3, &y, 1, MPI_INT, 0, 0, w, &r), MPI_ERR_TAG, "negative send tag");
    expect(MPI_Isendrecv(&x, 1, MPI_INT, 0, 0, &y, 1, MPI_INT, 0, -5, w, &r), MPI_ERR_TAG, "bad receive tag");
    expect(MPI_Isendrecv(&x, -1, MPI_INT, 0, 0, &y, 1, MPI_INT, 0, 0, w, &r), MPI_ERR_COUNT, "negative count");
    expect(MPI_Isendrecv(&x, 1, MPI_DATATYPE_NULL, 0, 0, &y, 1, MPI_INT, 0, 0, w, &r), MPI_ERR_TYPE, "null type");
    expect(MPI_Isendrecv(&x, 1, MPI_INT, 0, 0, &y, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &r), MPI_ERR_COMM, "null comm");
    expect(MPI_Isendrecv(&x, 1, MPI_INT, 0, 0, &y, 1, MPI_INT, 0, 0, w, NULL), MPI_ERR_ARG, "NULL request");
    expect(MPI_Isendrecv_replace(&x, 1, MPI_INT, size, 0, 0, 0, w, &r), MPI_ERR_RANK, "replace: dest");
    expect(MPI_Isendrecv_replace(&x, 1, MPI_INT, 0, 0, 0, MPI_ANY_TAG - 1, w, &r), MPI_ERR_TAG, "replace: tag");
    expect(MPI_Isendrecv_replace(&x, -2, MPI_INT, 0, 0, 0, 0, w, &r), MPI_ERR_COUNT, "replace: count");
    expect(MPI_Isendrecv_replace(&x, 1, MPI_INT, 0, 0, 0, 0, w, NULL), MPI_ERR_ARG, "replace: NULL request");
    CHECK(r == MPI_REQUEST_NULL, "a failed call handed out a request");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ring(1);
    ring(300000); /* rendezvous */
    replace_strided(5);
    replace_strided(200000);
    proc_null();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* errors tied to no object (MPI-4.1 9.3) */
    truncated();
    bad_args();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("OK\n");
    MPI_Finalize();
    return 0;
}
