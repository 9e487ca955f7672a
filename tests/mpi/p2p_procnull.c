/* ranks: 1 2 */
/* MPI_PROC_NULL with count 0 and MPI_DATATYPE_NULL is accepted by every
 * point-to-point call and gives the empty status (source MPI_PROC_NULL, tag
 * MPI_ANY_TAG, count 0); as in MPICH, a zero count with MPI_DATATYPE_NULL
 * also goes to a real rank, while a nonzero count with MPI_DATATYPE_NULL is
 * MPI_ERR_TYPE. */
#include <mpi.h>

#include "check.h"
#include <string.h>

static int rank, size;

static void expect_ok(int rc, const char *what)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (rc != MPI_SUCCESS)
        MPI_Error_string(rc, msg, &len);
    msg[len] = 0;
    CHECK(rc == MPI_SUCCESS, "%s refused: %s", what, msg);
}

static void expect_type_err(int rc, const char *what)
{
    int cls = MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TYPE, "%s gave class %d, expected MPI_ERR_TYPE", what, cls);
}

static void empty_from_proc_null(const MPI_Status *s, const char *what)
{
    int n = -1;
    MPI_Get_count(s, MPI_INT, &n);
    CHECK(s->MPI_SOURCE == MPI_PROC_NULL && s->MPI_TAG == MPI_ANY_TAG && n == 0,
          "%s: status (%d, %d, %d) is not the PROC_NULL status", what, s->MPI_SOURCE, s->MPI_TAG, n);
    int flag = 1;
    MPI_Test_cancelled(s, &flag);
    CHECK(!flag, "%s: status says cancelled", what);
}

static void preset(MPI_Status *s)
{
    memset(s, 0x5a, sizeof *s);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* errors tied to no object (MPI-4.1 9.3) */
    const MPI_Comm w = MPI_COMM_WORLD;
    const MPI_Datatype dn = MPI_DATATYPE_NULL;
    const int pn = MPI_PROC_NULL;
    MPI_Status s;
    MPI_Request q;
    MPI_Message m;
    int flag = 0, buf[4] = {0};

    preset(&s);
    expect_ok(MPI_Recv(NULL, 0, dn, pn, 1, w, &s), "Recv(PROC_NULL, 0, DATATYPE_NULL)");
    empty_from_proc_null(&s, "Recv");
    expect_ok(MPI_Irecv(NULL, 0, dn, pn, 1, w, &q), "Irecv(PROC_NULL, 0, DATATYPE_NULL)");
    preset(&s);
    expect_ok(MPI_Wait(&q, &s), "Wait(Irecv PROC_NULL)");
    empty_from_proc_null(&s, "Irecv");
    expect_ok(MPI_Send(NULL, 0, dn, pn, 1, w), "Send(PROC_NULL, 0, DATATYPE_NULL)");
    expect_ok(MPI_Ssend(NULL, 0, dn, pn, 1, w), "Ssend(PROC_NULL, 0, DATATYPE_NULL)");
    expect_ok(MPI_Isend(NULL, 0, dn, pn, 1, w, &q), "Isend(PROC_NULL, 0, DATATYPE_NULL)");
    expect_ok(MPI_Wait(&q, MPI_STATUS_IGNORE), "Wait(Isend PROC_NULL)");
    preset(&s);
    expect_ok(MPI_Sendrecv(NULL, 0, dn, pn, 1, NULL, 0, dn, pn, 1, w, &s),
              "Sendrecv(PROC_NULL, 0, DATATYPE_NULL)");
    empty_from_proc_null(&s, "Sendrecv");
    preset(&s);
    expect_ok(MPI_Sendrecv_replace(NULL, 0, dn, pn, 1, pn, 1, w, &s),
              "Sendrecv_replace(PROC_NULL, 0, DATATYPE_NULL)");
    empty_from_proc_null(&s, "Sendrecv_replace");
    expect_ok(MPI_Recv_init(NULL, 0, dn, pn, 1, w, &q), "Recv_init(PROC_NULL, 0, DATATYPE_NULL)");
    expect_ok(MPI_Start(&q), "Start");
    preset(&s);
    expect_ok(MPI_Wait(&q, &s), "Wait(Recv_init)");
    empty_from_proc_null(&s, "Recv_init");
    MPI_Request_free(&q);
    expect_ok(MPI_Send_init(NULL, 0, dn, pn, 1, w, &q), "Send_init(PROC_NULL, 0, DATATYPE_NULL)");
    expect_ok(MPI_Start(&q), "Start");
    expect_ok(MPI_Wait(&q, MPI_STATUS_IGNORE), "Wait(Send_init)");
    MPI_Request_free(&q);
    preset(&s);
    expect_ok(MPI_Probe(pn, 1, w, &s), "Probe(PROC_NULL)");
    empty_from_proc_null(&s, "Probe");
    preset(&s);
    expect_ok(MPI_Iprobe(pn, 1, w, &flag, &s), "Iprobe(PROC_NULL)");
    CHECK(flag, "Iprobe(PROC_NULL) found nothing");
    empty_from_proc_null(&s, "Iprobe");
    preset(&s);
    expect_ok(MPI_Mprobe(pn, 1, w, &m, &s), "Mprobe(PROC_NULL)");
    empty_from_proc_null(&s, "Mprobe");
    preset(&s);
    expect_ok(MPI_Mrecv(NULL, 0, dn, &m, &s), "Mrecv(NO_PROC, 0, DATATYPE_NULL)");
    empty_from_proc_null(&s, "Mrecv");

    /* a nonzero count needs a datatype, MPI_PROC_NULL or not (as MPICH) */
    expect_type_err(MPI_Recv(buf, 2, dn, pn, 1, w, &s), "Recv(PROC_NULL, 2, DATATYPE_NULL)");
    expect_type_err(MPI_Irecv(buf, 2, dn, pn, 1, w, &q), "Irecv(PROC_NULL, 2, DATATYPE_NULL)");
    expect_type_err(MPI_Send(buf, 2, dn, pn, 1, w), "Send(PROC_NULL, 2, DATATYPE_NULL)");
    expect_type_err(MPI_Sendrecv(buf, 1, dn, pn, 1, buf, 0, dn, pn, 1, w, &s),
                    "Sendrecv(PROC_NULL, 1, DATATYPE_NULL)");
    expect_type_err(MPI_Send(buf, 1, dn, 0, 1, w), "Send(0, 1, DATATYPE_NULL)");

    /* an empty message with MPI_DATATYPE_NULL to a real rank (MPICH accepts it) */
    int peer = size > 1 ? 1 - rank : rank;
    MPI_Request rq;
    expect_ok(MPI_Irecv(NULL, 0, dn, peer, 3, w, &rq), "Irecv(peer, 0, DATATYPE_NULL)");
    expect_ok(MPI_Send(NULL, 0, dn, peer, 3, w), "Send(peer, 0, DATATYPE_NULL)");
    preset(&s);
    expect_ok(MPI_Wait(&rq, &s), "Wait(Irecv peer)");
    int n = -1;
    MPI_Get_count(&s, MPI_INT, &n);
    CHECK(s.MPI_SOURCE == peer && s.MPI_TAG == 3 && n == 0, "empty message status (%d, %d, %d)",
          s.MPI_SOURCE, s.MPI_TAG, n);

    MPI_Barrier(w);
    if (rank == 0)
        printf("p2p_procnull: OK\n");
    MPI_Finalize();
    return 0;
}
