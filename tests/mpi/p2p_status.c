/* ranks: 1 2 4 */
/* status.MPI_ERROR (MPI-3.1 3.2.5, 3.7.5): calls that return one status never
 * write it; the multiple-completion calls write it in every status if and
 * only if they return MPI_ERR_IN_STATUS. Every call that fills a status gets
 * a status preset to a sentinel. */
#include <mpi.h>

#include "check.h"
#include <string.h>

static int rank, size;

#define SENTINEL 4242

static void preset(MPI_Status *s)
{
    memset(s, 0x5a, sizeof *s);
    s->MPI_ERROR = SENTINEL;
}

#define KEPT(s, what) CHECK((s).MPI_ERROR == SENTINEL, "%s wrote MPI_ERROR = %d", what, (s).MPI_ERROR)

static void check_env(const MPI_Status *s, int src, int tag, int bytes, const char *what)
{
    int n = -1;
    MPI_Get_count(s, MPI_BYTE, &n);
    CHECK(s->MPI_SOURCE == src && s->MPI_TAG == tag && n == bytes,
          "%s: status (%d, %d, %d), expected (%d, %d, %d)", what, s->MPI_SOURCE, s->MPI_TAG, n, src,
          tag, bytes);
}

/* Probes, receives and single completions of messages from `from` (every
 * rank sends a few messages to `to` and receives from `from`). */
static void single_calls(int to, int from)
{
    int v = rank, got = -1, flag = 0;
    MPI_Status s;
    MPI_Request q, sq;
    MPI_Message m;

    MPI_Send(&v, 1, MPI_INT, to, 1, MPI_COMM_WORLD);
    preset(&s);
    MPI_Probe(from, 1, MPI_COMM_WORLD, &s);
    KEPT(s, "MPI_Probe");
    check_env(&s, from, 1, 4, "MPI_Probe");
    preset(&s);
    flag = 0;
    while (!flag)
        MPI_Iprobe(from, 1, MPI_COMM_WORLD, &flag, &s);
    KEPT(s, "MPI_Iprobe");
    check_env(&s, from, 1, 4, "MPI_Iprobe");
    preset(&s);
    MPI_Recv(&got, 1, MPI_INT, from, 1, MPI_COMM_WORLD, &s);
    KEPT(s, "MPI_Recv");
    CHECK(got == from, "MPI_Recv got %d", got);

    MPI_Send(&v, 1, MPI_INT, to, 2, MPI_COMM_WORLD);
    preset(&s);
    MPI_Mprobe(from, 2, MPI_COMM_WORLD, &m, &s);
    KEPT(s, "MPI_Mprobe");
    check_env(&s, from, 2, 4, "MPI_Mprobe");
    preset(&s);
    MPI_Mrecv(&got, 1, MPI_INT, &m, &s);
    KEPT(s, "MPI_Mrecv");

    MPI_Send(&v, 1, MPI_INT, to, 3, MPI_COMM_WORLD);
    preset(&s);
    flag = 0;
    while (!flag)
        MPI_Improbe(from, 3, MPI_COMM_WORLD, &flag, &m, &s);
    KEPT(s, "MPI_Improbe");
    check_env(&s, from, 3, 4, "MPI_Improbe");
    MPI_Imrecv(&got, 1, MPI_INT, &m, &q);
    preset(&s);
    MPI_Wait(&q, &s);
    KEPT(s, "MPI_Wait (Imrecv)");
    check_env(&s, from, 3, 4, "MPI_Imrecv");

    /* Test, Request_get_status */
    MPI_Irecv(&got, 1, MPI_INT, from, 4, MPI_COMM_WORLD, &q);
    MPI_Send(&v, 1, MPI_INT, to, 4, MPI_COMM_WORLD);
    flag = 0;
    while (!flag) {
        preset(&s);
        MPI_Request_get_status(q, &flag, &s);
    }
    KEPT(s, "MPI_Request_get_status");
    check_env(&s, from, 4, 4, "MPI_Request_get_status");
    flag = 0;
    while (!flag) {
        preset(&s);
        MPI_Test(&q, &flag, &s);
    }
    KEPT(s, "MPI_Test");
    check_env(&s, from, 4, 4, "MPI_Test");

    /* Waitany / Testany: one status, so no MPI_ERROR either (3.2.5) */
    MPI_Request a[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    int idx;
    MPI_Irecv(&got, 1, MPI_INT, from, 5, MPI_COMM_WORLD, &a[1]);
    MPI_Send(&v, 1, MPI_INT, to, 5, MPI_COMM_WORLD);
    preset(&s);
    MPI_Waitany(2, a, &idx, &s);
    KEPT(s, "MPI_Waitany");
    CHECK(idx == 1, "Waitany index %d", idx);
    check_env(&s, from, 5, 4, "MPI_Waitany");
    MPI_Irecv(&got, 1, MPI_INT, from, 6, MPI_COMM_WORLD, &a[0]);
    MPI_Send(&v, 1, MPI_INT, to, 6, MPI_COMM_WORLD);
    flag = 0;
    while (!flag) {
        preset(&s);
        MPI_Testany(2, a, &idx, &flag, &s);
    }
    KEPT(s, "MPI_Testany");
    check_env(&s, from, 6, 4, "MPI_Testany");
    /* nothing active: an empty status, MPI_ERROR still left alone */
    preset(&s);
    MPI_Waitany(2, a, &idx, &s);
    KEPT(s, "MPI_Waitany (no active request)");
    CHECK(idx == MPI_UNDEFINED, "Waitany of nulls gave %d", idx);
    preset(&s);
    MPI_Wait(&a[0], &s);
    KEPT(s, "MPI_Wait (MPI_REQUEST_NULL)");
    check_env(&s, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, "MPI_Wait (MPI_REQUEST_NULL)");
    preset(&s);
    flag = 0;
    MPI_Test(&a[0], &flag, &s);
    KEPT(s, "MPI_Test (MPI_REQUEST_NULL)");
    CHECK(flag, "Test of MPI_REQUEST_NULL");

    /* Sendrecv, Sendrecv_replace */
    int w = rank;
    preset(&s);
    MPI_Sendrecv(&v, 1, MPI_INT, to, 7, &got, 1, MPI_INT, from, 7, MPI_COMM_WORLD, &s);
    KEPT(s, "MPI_Sendrecv");
    check_env(&s, from, 7, 4, "MPI_Sendrecv");
    preset(&s);
    MPI_Sendrecv_replace(&w, 1, MPI_INT, to, 8, from, 8, MPI_COMM_WORLD, &s);
    KEPT(s, "MPI_Sendrecv_replace");
    CHECK(w == from, "Sendrecv_replace got %d", w);

    /* a send's status through Wait */
    MPI_Isend(&v, 1, MPI_INT, to, 9, MPI_COMM_WORLD, &sq);
    MPI_Recv(&got, 1, MPI_INT, from, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    preset(&s);
    MPI_Wait(&sq, &s);
    KEPT(s, "MPI_Wait (send)");

    /* persistent receive: active and inactive */
    MPI_Recv_init(&got, 1, MPI_INT, from, 10, MPI_COMM_WORLD, &q);
    MPI_Start(&q);
    MPI_Send(&v, 1, MPI_INT, to, 10, MPI_COMM_WORLD);
    preset(&s);
    MPI_Wait(&q, &s);
    KEPT(s, "MPI_Wait (persistent)");
    check_env(&s, from, 10, 4, "MPI_Wait (persistent)");
    preset(&s);
    MPI_Wait(&q, &s);
    KEPT(s, "MPI_Wait (inactive persistent)");
    preset(&s);
    MPI_Request_get_status(q, &flag, &s);
    KEPT(s, "MPI_Request_get_status (inactive)");
    MPI_Request_free(&q);

    /* a cancelled receive */
    MPI_Irecv(&got, 1, MPI_INT, from, 11, MPI_COMM_WORLD, &q);
    MPI_Cancel(&q);
    preset(&s);
    MPI_Wait(&q, &s);
    KEPT(s, "MPI_Wait (cancelled receive)");
    MPI_Test_cancelled(&s, &flag);
    CHECK(flag, "receive not cancelled");
}

static void proc_null_calls(void)
{
    int x = 0, flag = 0;
    MPI_Status s;
    MPI_Request q;
    MPI_Message m;
    preset(&s);
    MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &s);
    KEPT(s, "MPI_Recv (PROC_NULL)");
    check_env(&s, MPI_PROC_NULL, MPI_ANY_TAG, 0, "MPI_Recv (PROC_NULL)");
    preset(&s);
    MPI_Probe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &s);
    KEPT(s, "MPI_Probe (PROC_NULL)");
    check_env(&s, MPI_PROC_NULL, MPI_ANY_TAG, 0, "MPI_Probe (PROC_NULL)");
    preset(&s);
    MPI_Iprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &s);
    KEPT(s, "MPI_Iprobe (PROC_NULL)");
    CHECK(flag, "Iprobe of PROC_NULL");
    preset(&s);
    MPI_Improbe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &m, &s);
    KEPT(s, "MPI_Improbe (PROC_NULL)");
    CHECK(flag && m == MPI_MESSAGE_NO_PROC, "Improbe of PROC_NULL");
    preset(&s);
    MPI_Mrecv(&x, 1, MPI_INT, &m, &s);
    KEPT(s, "MPI_Mrecv (NO_PROC)");
    check_env(&s, MPI_PROC_NULL, MPI_ANY_TAG, 0, "MPI_Mrecv (NO_PROC)");
    preset(&s);
    MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &m, &s);
    KEPT(s, "MPI_Mprobe (PROC_NULL)");
    MPI_Imrecv(&x, 1, MPI_INT, &m, &q);
    preset(&s);
    MPI_Wait(&q, &s);
    KEPT(s, "MPI_Wait (Imrecv NO_PROC)");
    check_env(&s, MPI_PROC_NULL, MPI_ANY_TAG, 0, "MPI_Imrecv (NO_PROC)");
    MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &q);
    preset(&s);
    MPI_Wait(&q, &s);
    KEPT(s, "MPI_Wait (Irecv PROC_NULL)");
    check_env(&s, MPI_PROC_NULL, MPI_ANY_TAG, 0, "MPI_Irecv (PROC_NULL)");
    preset(&s);
    MPI_Sendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, &x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &s);
    KEPT(s, "MPI_Sendrecv (PROC_NULL)");
    check_env(&s, MPI_PROC_NULL, MPI_ANY_TAG, 0, "MPI_Sendrecv (PROC_NULL)");
    preset(&s);
    MPI_Sendrecv_replace(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &s);
    KEPT(s, "MPI_Sendrecv_replace (PROC_NULL)");
    check_env(&s, MPI_PROC_NULL, MPI_ANY_TAG, 0, "MPI_Sendrecv_replace (PROC_NULL)");
    MPI_Isend(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &q);
    preset(&s);
    MPI_Wait(&q, &s);
    KEPT(s, "MPI_Wait (Isend PROC_NULL)");
    MPI_Ibsend(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &q);
    preset(&s);
    MPI_Wait(&q, &s);
    KEPT(s, "MPI_Wait (Ibsend PROC_NULL)");
}

/* Waitall/Testall/Waitsome/Testsome: untouched on success; with an error,
 * MPI_ERR_IN_STATUS and every status's MPI_ERROR set. */
static void multiple_calls(int to, int from)
{
    int v[2] = {rank, rank}, got[2];
    MPI_Request q[3];
    MPI_Status ss[3];
    int flag, out, idx[3];

    MPI_Irecv(&got[0], 1, MPI_INT, from, 20, MPI_COMM_WORLD, &q[0]);
    MPI_Irecv(&got[1], 1, MPI_INT, from, 21, MPI_COMM_WORLD, &q[1]);
    q[2] = MPI_REQUEST_NULL;
    MPI_Send(&v[0], 1, MPI_INT, to, 20, MPI_COMM_WORLD);
    MPI_Send(&v[0], 1, MPI_INT, to, 21, MPI_COMM_WORLD);
    for (int i = 0; i < 3; i++)
        preset(&ss[i]);
    CHECK(MPI_Waitall(3, q, ss) == MPI_SUCCESS, "Waitall failed");
    for (int i = 0; i < 3; i++)
        KEPT(ss[i], "MPI_Waitall (no error)");
    check_env(&ss[1], from, 21, 4, "MPI_Waitall");
    check_env(&ss[2], MPI_ANY_SOURCE, MPI_ANY_TAG, 0, "MPI_Waitall (null request)");

    MPI_Irecv(&got[0], 1, MPI_INT, from, 22, MPI_COMM_WORLD, &q[0]);
    MPI_Irecv(&got[1], 1, MPI_INT, from, 23, MPI_COMM_WORLD, &q[1]);
    MPI_Send(&v[0], 1, MPI_INT, to, 22, MPI_COMM_WORLD);
    MPI_Send(&v[0], 1, MPI_INT, to, 23, MPI_COMM_WORLD);
    flag = 0;
    while (!flag) {
        for (int i = 0; i < 3; i++)
            preset(&ss[i]);
        MPI_Testall(3, q, &flag, ss);
    }
    for (int i = 0; i < 3; i++)
        KEPT(ss[i], "MPI_Testall (no error)");

    MPI_Irecv(&got[0], 1, MPI_INT, from, 24, MPI_COMM_WORLD, &q[0]);
    MPI_Send(&v[0], 1, MPI_INT, to, 24, MPI_COMM_WORLD);
    for (int i = 0; i < 3; i++)
        preset(&ss[i]);
    MPI_Waitsome(1, q, &out, idx, ss);
    CHECK(out == 1, "Waitsome outcount %d", out);
    KEPT(ss[0], "MPI_Waitsome (no error)");
    MPI_Irecv(&got[0], 1, MPI_INT, from, 25, MPI_COMM_WORLD, &q[0]);
    MPI_Send(&v[0], 1, MPI_INT, to, 25, MPI_COMM_WORLD);
    out = 0;
    while (out == 0) {
        preset(&ss[0]);
        MPI_Testsome(1, q, &out, idx, ss);
    }
    KEPT(ss[0], "MPI_Testsome (no error)");

    /* one request truncates: MPI_ERR_IN_STATUS, every status's error set */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* errors tied to no object (MPI-4.1 9.3) */
    MPI_Irecv(&got[0], 1, MPI_INT, from, 26, MPI_COMM_WORLD, &q[0]);
    MPI_Irecv(&got[1], 1, MPI_INT, from, 27, MPI_COMM_WORLD, &q[1]);
    q[2] = MPI_REQUEST_NULL;
    MPI_Send(v, 2, MPI_INT, to, 26, MPI_COMM_WORLD); /* too long for got[0] */
    MPI_Send(&v[0], 1, MPI_INT, to, 27, MPI_COMM_WORLD);
    for (int i = 0; i < 3; i++)
        preset(&ss[i]);
    int rc = MPI_Waitall(3, q, ss), cls;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_IN_STATUS, "Waitall with a truncation returned class %d", cls);
    MPI_Error_class(ss[0].MPI_ERROR, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE, "truncated request's MPI_ERROR class %d", cls);
    CHECK(ss[1].MPI_ERROR == MPI_SUCCESS, "good request's MPI_ERROR %d", ss[1].MPI_ERROR);
    CHECK(ss[2].MPI_ERROR == MPI_SUCCESS, "null request's MPI_ERROR %d", ss[2].MPI_ERROR);

    MPI_Irecv(&got[0], 1, MPI_INT, from, 28, MPI_COMM_WORLD, &q[0]);
    MPI_Irecv(&got[1], 1, MPI_INT, from, 29, MPI_COMM_WORLD, &q[1]);
    MPI_Send(&v[0], 1, MPI_INT, to, 28, MPI_COMM_WORLD);
    MPI_Send(v, 2, MPI_INT, to, 29, MPI_COMM_WORLD);
    /* they may complete in one call or two; a call that completes the
     * truncated one returns MPI_ERR_IN_STATUS, the other leaves MPI_ERROR */
    int total = 0;
    while (total < 2) {
        for (int i = 0; i < 3; i++)
            preset(&ss[i]);
        rc = MPI_Waitsome(2, q, &out, idx, ss);
        CHECK(out >= 1 && out <= 2 - total, "Waitsome outcount %d", out);
        int trunc = 0;
        for (int k = 0; k < out; k++)
            trunc |= idx[k] == 1;
        MPI_Error_class(rc, &cls);
        CHECK(cls == (trunc ? MPI_ERR_IN_STATUS : MPI_SUCCESS), "Waitsome returned class %d", cls);
        for (int k = 0; k < out; k++) {
            if (!trunc) {
                KEPT(ss[k], "MPI_Waitsome (no error)");
                continue;
            }
            MPI_Error_class(ss[k].MPI_ERROR, &cls);
            CHECK(cls == (idx[k] == 1 ? MPI_ERR_TRUNCATE : MPI_SUCCESS),
                  "Waitsome status %d (request %d) MPI_ERROR class %d", k, idx[k], cls);
        }
        total += out;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    single_calls(to, from);
    proc_null_calls();
    multiple_calls(to, from);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("p2p_status: OK\n");
    MPI_Finalize();
    return 0;
}
