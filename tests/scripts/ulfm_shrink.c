/* Agreement and shrink with ranks dying (tests/scripts/ulfm_basic.sh runs
 * it with RAILMPI_PROC_FT=1): 4 ranks.
 *  1. MPIX_Comm_agree without failures: the AND of every flag, everywhere.
 *  2. Rank 3 dies (SIGKILL) as the others enter an agreement: every survivor
 *     gets MPIX_ERR_PROC_FAILED and the same flag.
 *  3. Acknowledged, the next agreement succeeds: the survivors' AND.
 *  4. MPIX_Comm_shrink: a communicator of ranks 0-2 whose collectives work;
 *     on it MPIX_Comm_iagree and MPIX_Comm_ishrink (no failure) complete
 *     through MPI_Wait with the AND and a working copy.
 *  5. On it, rank 0 (the agreement's coordinator) dies as the agreement
 *     starts: the other two still agree (coordinator 1 takes over), shrink
 *     again to 2 ranks and reduce over them; an MPIX_Comm_iagree on the
 *     communicator with the dead coordinator completes with
 *     MPIX_ERR_PROC_FAILED at both.
 *  6. World rank 2 dies as the last two enter a shrink: world rank 1 gets a
 *     communicator of itself alone.
 * World rank 1 prints "OK ulfm_shrink" at the end. Built with
 * -DULFM_BLOCKING_ONLY (against MPICH 4.0's header, which declares no
 * MPIX_Comm_iagree/ishrink) it leaves the nonblocking calls out. */
#include <mpi.h>

#define CHECK_ENDS_THIS_PROCESS
#include "../mpi/check.h"
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static int rank;

/* Every live rank of `ranks` (world ranks) sent its value to the first:
 * all equal. Point-to-point only: the collectives of a communicator with a
 * dead member fail. */
static void same_everywhere(int v, const int *ranks, int n, const char *what)
{
    if (rank == ranks[0]) {
        for (int i = 1; i < n; i++) {
            int o;
            int rc = MPI_Recv(&o, 1, MPI_INT, ranks[i], 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(rc == MPI_SUCCESS && o == v, "%s: rank %d has %#x, rank %d %#x (rc %d)", what, ranks[i], o,
                  rank, v, rc);
        }
    } else {
        MPI_Send(&v, 1, MPI_INT, ranks[0], 77, MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    int size, rc;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 4, "run with 4 ranks, not %d", size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* 1 */
    int flag = rank == 2 ? 0x0f : 0xff;
    rc = MPIX_Comm_agree(MPI_COMM_WORLD, &flag);
    CHECK(rc == MPI_SUCCESS && flag == 0x0f, "agreement without failures: rc %d flag %#x", rc, flag);

    /* 2 */
    if (rank == 3)
        raise(SIGKILL);
    flag = 0xf0 | (1 << rank);
    rc = MPIX_Comm_agree(MPI_COMM_WORLD, &flag);
    CHECK(check_class(rc) == MPIX_ERR_PROC_FAILED, "agreement while rank 3 dies: class %d, not %d", check_class(rc),
          MPIX_ERR_PROC_FAILED);
    int three[3] = {0, 1, 2};
    same_everywhere(flag, three, 3, "the flag of the agreement rank 3 died in");

    /* 3 */
    MPIX_Comm_failure_ack(MPI_COMM_WORLD);
    flag = rank == 1 ? 0x3c : 0x3f;
    rc = MPIX_Comm_agree(MPI_COMM_WORLD, &flag);
    CHECK(rc == MPI_SUCCESS && flag == 0x3c, "agreement after the acknowledgement: rc %d flag %#x", rc, flag);

    /* 4 */
    MPI_Comm s1;
    rc = MPIX_Comm_shrink(MPI_COMM_WORLD, &s1);
    CHECK(rc == MPI_SUCCESS, "shrink: rc %d", rc);
    int n1, r1;
    MPI_Comm_size(s1, &n1);
    MPI_Comm_rank(s1, &r1);
    CHECK(n1 == 3 && r1 == rank, "the shrunk communicator: rank %d of %d", r1, n1);
    int sum = 0, one = rank + 1;
    rc = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, s1);
    CHECK(rc == MPI_SUCCESS && sum == 6, "allreduce on the shrunk communicator: rc %d sum %d", rc, sum);
    MPI_Comm_set_errhandler(s1, MPI_ERRORS_RETURN);
#ifndef ULFM_BLOCKING_ONLY
    MPI_Request req;
    flag = rank == 0 ? 0x11 : 0x13;
    rc = MPIX_Comm_iagree(s1, &flag, &req);
    CHECK(rc == MPI_SUCCESS, "iagree: %d", rc);
    rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS && flag == 0x11, "iagree: rc %d flag %#x", rc, flag);
    MPI_Comm s1b;
    rc = MPIX_Comm_ishrink(s1, &s1b, &req);
    CHECK(rc == MPI_SUCCESS, "ishrink: %d", rc);
    rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS && s1b != MPI_COMM_NULL, "ishrink: rc %d", rc);
    MPI_Comm_size(s1b, &n1);
    sum = 0;
    rc = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, s1b);
    CHECK(n1 == 3 && rc == MPI_SUCCESS && sum == 6, "ishrink's communicator: %d ranks, sum %d", n1, sum);
    MPI_Comm_free(&s1b);
#endif

    /* 5 */
    if (r1 == 0)
        raise(SIGKILL);
    flag = 0x7;
    rc = MPIX_Comm_agree(s1, &flag);
    CHECK(check_class(rc) == MPIX_ERR_PROC_FAILED, "agreement while its coordinator dies: class %d", check_class(rc));
    CHECK(flag == 0x7, "agreement while its coordinator dies: flag %#x", flag);
    MPI_Comm s2;
    rc = MPIX_Comm_shrink(s1, &s2);
    CHECK(rc == MPI_SUCCESS, "second shrink: rc %d", rc);
    int n2, r2;
    MPI_Comm_size(s2, &n2);
    MPI_Comm_rank(s2, &r2);
    CHECK(n2 == 2 && r2 == rank - 1, "the second shrunk communicator: rank %d of %d", r2, n2);
    sum = 0;
    rc = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, s2);
    CHECK(rc == MPI_SUCCESS && sum == 5, "allreduce over the last two: rc %d sum %d", rc, sum);
    rc = MPI_Barrier(s2);
    CHECK(rc == MPI_SUCCESS, "barrier over the last two: rc %d", rc);
#ifndef ULFM_BLOCKING_ONLY
    flag = 1;
    rc = MPIX_Comm_iagree(s1, &flag, &req);
    CHECK(rc == MPI_SUCCESS, "iagree with a dead member: %d", rc);
    rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(check_class(rc) == MPIX_ERR_PROC_FAILED && flag == 1, "iagree with a dead member: class %d flag %d", check_class(rc),
          flag);
#endif
    /* 6 */
    if (rank == 2)
        raise(SIGKILL);
    MPI_Comm s3;
    rc = MPIX_Comm_shrink(s2, &s3);
    CHECK(rc == MPI_SUCCESS, "shrink while a member dies: rc %d", rc);
    int n3;
    MPI_Comm_size(s3, &n3);
    CHECK(n3 == 1, "the last shrink left %d ranks", n3);
    MPI_Comm_free(&s3);
    MPI_Comm_free(&s2);
    MPI_Comm_free(&s1);
    rc = MPI_Finalize();
    CHECK(rc == MPI_SUCCESS, "MPI_Finalize: %d", rc);
    if (rank == 1)
        printf("OK ulfm_shrink\n");
    return 0;
}
