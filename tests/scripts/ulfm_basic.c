/* Process fault tolerance on one host (tests/scripts/ulfm_basic.sh): 4 ranks,
 * rank 3 kills itself (SIGKILL) after a barrier; the survivors check that
 *  - a blocked receive from the dead rank ends with MPIX_ERR_PROC_FAILED
 *    within a second or two, so do sends to it (small, synchronous, large,
 *    and a large one pending when it died),
 *  - a receive from MPI_ANY_SOURCE reports MPIX_ERR_PROC_FAILED_PENDING
 *    while the failure is not acknowledged (MPI_Wait, MPI_Test, MPI_Waitany,
 *    MPI_Waitall, MPI_Waitsome, MPI_Testall), stays pending, and matches a
 *    message once it is,
 *  - MPIX_Comm_get_failed / failure_get_acked / ack_failed name rank 3,
 *  - a collective on MPI_COMM_WORLD fails instead of waiting,
 *  - MPIX_Comm_revoke reaches ranks blocked in a receive on the revoked
 *    communicator, and every later operation on it fails with
 *    MPIX_ERR_REVOKED; it can still be shrunk (to a working communicator
 *    of the 3 survivors) and freed,
 *  - point-to-point between survivors goes on, and MPI_Finalize returns.
 * Rank 0 prints "OK ulfm_basic" at the end. */
#include <mpi.h>

#define CHECK_ENDS_THIS_PROCESS
#include "../mpi/check.h"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int rank;

/* The failed group of comm holds exactly world rank 3. */
static void check_failed_group(MPI_Group g, const char *what)
{
    int n, three = -1, zero = 0;
    MPI_Group wg;
    MPI_Group_size(g, &n);
    CHECK(n == 1, "%s: %d failed processes, expected 1", what, n);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_translate_ranks(g, 1, &zero, wg, &three);
    CHECK(three == 3, "%s: the failed process is world rank %d, not 3", what, three);
    MPI_Group_free(&wg);
}

int main(int argc, char **argv)
{
    int size, rc, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 4, "run with 4 ranks, not %d", size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm d; /* revoked later */
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    /* rank 2: a large send to rank 3 that rank 3 never receives, pending
     * when it dies */
    static char big2[1 << 20];
    MPI_Request pend = MPI_REQUEST_NULL;
    if (rank == 2)
        MPI_Isend(big2, sizeof big2, MPI_BYTE, 3, 99, MPI_COMM_WORLD, &pend);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 3)
        raise(SIGKILL);

    if (rank == 0) {
        /* a receive from the dead rank */
        double t0 = MPI_Wtime();
        rc = MPI_Recv(&x, 1, MPI_INT, 3, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        double took = MPI_Wtime() - t0;
        CHECK(check_class(rc) == MPIX_ERR_PROC_FAILED, "receive from the dead rank: class %d, not %d", check_class(rc),
              MPIX_ERR_PROC_FAILED);
        CHECK(took < 2.0, "the receive from the dead rank took %.2f s", took);
        printf("rank 0: receive from the dead rank failed after %.3f s\n", took);
        /* a send to it fails too (at once: the channel is gone), also a
         * synchronous one and a large one (rendezvous) */
        rc = MPI_Send(&x, 1, MPI_INT, 3, 1, MPI_COMM_WORLD);
        CHECK(check_class(rc) == MPIX_ERR_PROC_FAILED, "send to the dead rank: class %d", check_class(rc));
        rc = MPI_Ssend(&x, 1, MPI_INT, 3, 1, MPI_COMM_WORLD);
        CHECK(check_class(rc) == MPIX_ERR_PROC_FAILED, "synchronous send to the dead rank: class %d", check_class(rc));
        static char big[1 << 20];
        rc = MPI_Send(big, sizeof big, MPI_BYTE, 3, 1, MPI_COMM_WORLD);
        CHECK(check_class(rc) == MPIX_ERR_PROC_FAILED, "large send to the dead rank: class %d", check_class(rc));
    } else if (rank == 1) {
        /* a wildcard receive: pending until the failure is acknowledged */
        MPI_Request req;
        MPI_Status st;
        MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &req);
        rc = MPI_Wait(&req, &st);
        CHECK(check_class(rc) == MPIX_ERR_PROC_FAILED_PENDING, "wildcard wait: class %d, not %d", check_class(rc),
              MPIX_ERR_PROC_FAILED_PENDING);
        CHECK(req != MPI_REQUEST_NULL, "the pending receive's request was freed");
        int flag = 1;
        rc = MPI_Test(&req, &flag, &st);
        CHECK(check_class(rc) == MPIX_ERR_PROC_FAILED_PENDING && !flag, "wildcard test: class %d flag %d", check_class(rc),
              flag);
        int idx = -1;
        rc = MPI_Waitany(1, &req, &idx, &st);
        CHECK(check_class(rc) == MPIX_ERR_PROC_FAILED_PENDING && idx == 0 && req != MPI_REQUEST_NULL,
              "wildcard waitany: class %d index %d", check_class(rc), idx);
        int outc = -1, ind = -1, tflag = 1;
        rc = MPI_Waitsome(1, &req, &outc, &ind, &st);
        CHECK(rc == MPI_ERR_IN_STATUS && outc == 1 && ind == 0 && st.MPI_ERROR == MPIX_ERR_PROC_FAILED_PENDING &&
                  req != MPI_REQUEST_NULL,
              "wildcard waitsome: rc %d outcount %d index %d error %d", rc, outc, ind, st.MPI_ERROR);
        rc = MPI_Testall(1, &req, &tflag, MPI_STATUSES_IGNORE);
        CHECK(check_class(rc) == MPIX_ERR_PROC_FAILED_PENDING && !tflag && req != MPI_REQUEST_NULL,
              "wildcard testall: class %d flag %d", check_class(rc), tflag);
        /* waitall: the other request completes, the wildcard one stays */
        MPI_Request two[2];
        MPI_Status sts[2];
        int y = 5, z = 0;
        two[0] = req;
        MPI_Irecv(&z, 1, MPI_INT, 1, 11, MPI_COMM_WORLD, &two[1]);
        MPI_Send(&y, 1, MPI_INT, 1, 11, MPI_COMM_WORLD);
        rc = MPI_Waitall(2, two, sts);
        CHECK(rc == MPI_ERR_IN_STATUS && sts[0].MPI_ERROR == MPIX_ERR_PROC_FAILED_PENDING &&
                  sts[1].MPI_ERROR == MPI_SUCCESS && two[0] == req && two[1] == MPI_REQUEST_NULL && z == 5,
              "wildcard waitall: rc %d errors %d %d, z %d", rc, sts[0].MPI_ERROR, sts[1].MPI_ERROR, z);
        rc = MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &st);
        CHECK(check_class(rc) == MPIX_ERR_PROC_FAILED, "blocking wildcard receive: class %d", check_class(rc));
        MPI_Group g;
        MPIX_Comm_failure_get_acked(MPI_COMM_WORLD, &g);
        int n;
        MPI_Group_size(g, &n);
        CHECK(n == 0, "%d failures acknowledged before any acknowledgement", n);
        MPI_Group_free(&g);
        CHECK(MPIX_Comm_failure_ack(MPI_COMM_WORLD) == MPI_SUCCESS, "MPIX_Comm_failure_ack failed");
        MPIX_Comm_failure_get_acked(MPI_COMM_WORLD, &g);
        check_failed_group(g, "failure_get_acked");
        MPI_Group_free(&g);
        /* acknowledged: rank 2 may now send, and the same request matches */
        MPI_Send(&x, 1, MPI_INT, 2, 8, MPI_COMM_WORLD);
        rc = MPI_Wait(&req, &st);
        CHECK(rc == MPI_SUCCESS && st.MPI_SOURCE == 2 && x == 42, "the acknowledged wildcard receive: rc %d source %d x %d",
              rc, st.MPI_SOURCE, x);
    } else if (rank == 2) {
        /* the failure becomes known within a second or two */
        double t0 = MPI_Wtime();
        int n = 0;
        MPI_Group g = MPI_GROUP_EMPTY;
        while (n == 0 && MPI_Wtime() - t0 < 5) {
            if (g != MPI_GROUP_EMPTY)
                MPI_Group_free(&g);
            MPIX_Comm_get_failed(MPI_COMM_WORLD, &g);
            MPI_Group_size(g, &n);
            if (n == 0)
                usleep(1000);
        }
        double took = MPI_Wtime() - t0;
        CHECK(n == 1 && took < 2.0, "%d failed processes known %.2f s after the kill", n, took);
        rc = MPI_Wait(&pend, MPI_STATUS_IGNORE);
        CHECK(check_class(rc) == MPIX_ERR_PROC_FAILED, "the pending large send to the dead rank: class %d", check_class(rc));
        check_failed_group(g, "get_failed");
        MPI_Group_free(&g);
        rc = MPI_Recv(&x, 1, MPI_INT, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(rc == MPI_SUCCESS, "receive from a live rank: %d", rc);
        x = 42;
        MPI_Send(&x, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
    }

    /* a collective with a dead member fails; it does not wait */
    double t0 = MPI_Wtime();
    rc = MPI_Barrier(MPI_COMM_WORLD);
    CHECK(check_class(rc) == MPIX_ERR_PROC_FAILED, "barrier on a communicator with a dead member: class %d", check_class(rc));
    rc = MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(check_class(rc) == MPIX_ERR_PROC_FAILED, "allreduce with a dead member: class %d", check_class(rc));
    CHECK(MPI_Wtime() - t0 < 2.0, "the failing collectives took %.2f s", MPI_Wtime() - t0);

    /* revoke reaches ranks blocked in a receive on d */
    if (rank == 1) {
        usleep(200000); /* ranks 0 and 2 are in their receives by now */
        CHECK(MPIX_Comm_revoke(d) == MPI_SUCCESS, "MPIX_Comm_revoke failed");
    } else {
        t0 = MPI_Wtime();
        rc = MPI_Recv(&x, 1, MPI_INT, 1, 9, d, MPI_STATUS_IGNORE);
        CHECK(check_class(rc) == MPIX_ERR_REVOKED, "receive on the revoked communicator: class %d, not %d", check_class(rc),
              MPIX_ERR_REVOKED);
        CHECK(MPI_Wtime() - t0 < 5.0, "the revoke took %.2f s to arrive", MPI_Wtime() - t0);
    }
    int flag = 0;
    MPIX_Comm_is_revoked(d, &flag);
    CHECK(flag, "MPIX_Comm_is_revoked says no");
    MPIX_Comm_is_revoked(MPI_COMM_WORLD, &flag);
    CHECK(!flag, "MPI_COMM_WORLD is revoked too");
    rc = MPI_Send(&x, 1, MPI_INT, (rank + 1) % 3, 9, d);
    CHECK(check_class(rc) == MPIX_ERR_REVOKED, "send on the revoked communicator: class %d", check_class(rc));
    rc = MPI_Barrier(d);
    CHECK(check_class(rc) == MPIX_ERR_REVOKED, "barrier on the revoked communicator: class %d", check_class(rc));
    MPI_Comm s;
    rc = MPIX_Comm_shrink(d, &s);
    CHECK(rc == MPI_SUCCESS, "shrinking the revoked communicator: %d", rc);
    int ns, rs, total = 0;
    MPI_Comm_size(s, &ns);
    MPI_Comm_rank(s, &rs);
    MPIX_Comm_is_revoked(s, &flag);
    CHECK(ns == 3 && rs == rank && !flag, "the shrunk communicator: rank %d of %d, revoked %d", rs, ns, flag);
    rc = MPI_Allreduce(&rank, &total, 1, MPI_INT, MPI_SUM, s);
    CHECK(rc == MPI_SUCCESS && total == 3, "allreduce on the shrunk communicator: rc %d total %d", rc, total);
    MPI_Comm_free(&s);
    CHECK(MPI_Comm_free(&d) == MPI_SUCCESS, "freeing the revoked communicator failed");

    /* the ULFM queries on MPI_COMM_WORLD */
    MPI_Group g;
    MPIX_Comm_get_failed(MPI_COMM_WORLD, &g);
    check_failed_group(g, "get_failed");
    MPI_Group_free(&g);
    int acked = -1;
    MPIX_Comm_ack_failed(MPI_COMM_WORLD, 0, &acked);
    CHECK(acked == (rank == 1 ? 1 : 0), "ack_failed(0) says %d acknowledged", acked);
    MPIX_Comm_ack_failed(MPI_COMM_WORLD, 5, &acked);
    CHECK(acked == 1, "ack_failed(5) says %d acknowledged, expected 1", acked);
    rc = MPIX_Comm_ack_failed(MPI_COMM_WORLD, -1, &acked);
    CHECK(check_class(rc) == MPI_ERR_ARG, "ack_failed(-1): class %d", check_class(rc));

    /* survivors still talk */
    x = rank;
    int y = -1;
    rc = MPI_Sendrecv(&x, 1, MPI_INT, (rank + 1) % 3, 10, &y, 1, MPI_INT, (rank + 2) % 3, 10, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS && y == (rank + 2) % 3, "ring among the survivors: rc %d got %d", rc, y);

    rc = MPI_Finalize();
    CHECK(rc == MPI_SUCCESS, "MPI_Finalize: %d", rc);
    if (rank == 0)
        printf("OK ulfm_basic\n");
    return 0;
}
