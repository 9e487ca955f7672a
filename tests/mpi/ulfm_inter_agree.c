/* ranks: 2 4 */
/* MPIX_Comm_agree, MPIX_Comm_iagree, MPIX_Comm_shrink and MPIX_Comm_ishrink
 * on an intercommunicator, without failures (no RAILMPI_PROC_FT needed):
 * each group gets the AND of the other group's flags, the shrunk
 * intercommunicators keep both groups and work, and both still work once
 * the intercommunicator is revoked. Then 20 agreements in a row on
 * MPI_COMM_WORLD, each with other bits, all the AND of every rank's. */
#include "check.h"

#include <stdio.h>

static int rank;

static void check_inter(MPI_Comm s, int lsize, int rsize, const char *what)
{
    int inter = 0, l, r;
    MPI_Comm_test_inter(s, &inter);
    MPI_Comm_size(s, &l);
    MPI_Comm_remote_size(s, &r);
    CHECK(inter && l == lsize && r == rsize, "%s: inter %d, sizes %d and %d", what, inter, l, r);
    int v = 1, sum = 0;
    int rc = MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, s);
    CHECK(rc == MPI_SUCCESS && sum == rsize, "%s: allreduce rc %d sum %d", what, rc, sum);
}

int main(int argc, char **argv)
{
    int size, rc;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int half = size / 2, lower = rank < half;
    MPI_Comm local, inter;
    MPI_Comm_split(MPI_COMM_WORLD, lower, rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, lower ? half : 0, 3, &inter);
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    int lsize = lower ? half : size - half, rsize = size - lsize;

    /* each rank clears bit `rank`: a group reads the other's bits cleared */
    unsigned lowbits = (1u << half) - 1, all = (1u << size) - 1;
    unsigned want = 0xffffu & ~(lower ? all & ~lowbits : lowbits);
    int flag = (int)(0xffffu & ~(1u << rank));
    rc = MPIX_Comm_agree(inter, &flag);
    CHECK(rc == MPI_SUCCESS && (unsigned)flag == want, "agree: rc %d flag %#x, want %#x", rc, flag, want);
    MPI_Request req;
    flag = (int)(0xffffu & ~(1u << rank));
    CHECK(MPIX_Comm_iagree(inter, &flag, &req) == MPI_SUCCESS, "iagree");
    rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS && (unsigned)flag == want, "iagree: rc %d flag %#x, want %#x", rc, flag, want);
    MPI_Group g;
    MPIX_Comm_get_failed(inter, &g);
    int n;
    MPI_Group_size(g, &n);
    CHECK(n == 0, "get_failed: %d members", n);
    if (g != MPI_GROUP_EMPTY)
        MPI_Group_free(&g);

    MPI_Comm s1, s2;
    CHECK(MPIX_Comm_shrink(inter, &s1) == MPI_SUCCESS, "shrink");
    check_inter(s1, lsize, rsize, "shrink");
    CHECK(MPIX_Comm_ishrink(inter, &s2, &req) == MPI_SUCCESS, "ishrink");
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "ishrink wait");
    check_inter(s2, lsize, rsize, "ishrink");

    /* a revoked intercommunicator still agrees and shrinks */
    if (rank == 0)
        MPIX_Comm_revoke(inter);
    flag = 1;
    rc = MPIX_Comm_agree(inter, &flag);
    CHECK(rc == MPI_SUCCESS && flag == 1, "agree on the revoked intercommunicator: rc %d flag %d", rc, flag);
    int revoked = 0;
    while (!revoked) /* it reaches everyone (the test's timeout bounds the wait) */
        MPIX_Comm_is_revoked(inter, &revoked);
    MPI_Comm s3;
    CHECK(MPIX_Comm_shrink(inter, &s3) == MPI_SUCCESS, "shrink of the revoked intercommunicator");
    check_inter(s3, lsize, rsize, "shrink of the revoked intercommunicator");

    for (int i = 0; i < 20; i++) {
        unsigned mine = 0xffffffu & ~(1u << ((rank * 3 + i) % 24));
        unsigned w = 0xffffffu;
        for (int r = 0; r < size; r++)
            w &= ~(1u << ((r * 3 + i) % 24));
        flag = (int)mine;
        rc = MPIX_Comm_agree(MPI_COMM_WORLD, &flag);
        CHECK(rc == MPI_SUCCESS && (unsigned)flag == w, "world agreement %d: rc %d flag %#x, want %#x", i, rc, flag,
              w);
    }
    MPI_Comm_free(&s1);
    MPI_Comm_free(&s2);
    MPI_Comm_free(&s3);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    if (rank == 0)
        printf("OK ulfm_inter_agree\n");
    MPI_Finalize();
    return 0;
}
