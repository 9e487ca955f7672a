/* Agreement and shrink on an intercommunicator (tests/scripts/ulfm_basic.sh
 * runs it with process fault tolerance): 4 ranks, world ranks 0-1 one
 * group, 2-3 the other.
 *  1. Without failures MPIX_Comm_agree and MPIX_Comm_iagree give each group
 *     the AND of the other group's flags.
 *  2. World rank 3 (of the remote group, seen from 0 and 1) dies before the
 *     next agreement: every survivor, in both groups, gets
 *     MPIX_ERR_PROC_FAILED, the lower group rank 2's flag, rank 2 the lower
 *     group's AND; MPIX_Comm_get_failed and, after MPIX_Comm_failure_ack,
 *     MPIX_Comm_failure_get_acked name world rank 3; the next agreement
 *     succeeds.
 *  3. MPIX_Comm_shrink and MPIX_Comm_ishrink give intercommunicators of the
 *     survivors (2 ranks and 1), whose allreduce works.
 * World rank 0 prints "OK ulfm_inter" at the end. */
#include <mpi.h>

#define CHECK_ENDS_THIS_PROCESS
#include "../mpi/check.h"
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static int rank;

/* World ranks of a group's members, in its order (at most 4). */
static int world_of(MPI_Group g, int *w)
{
    MPI_Group wg;
    int n, r[4] = {0, 1, 2, 3};
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_size(g, &n);
    MPI_Group_translate_ranks(g, n, r, wg, w);
    MPI_Group_free(&wg);
    return n;
}

static void check_shrunk(MPI_Comm s, int lower, const char *what)
{
    int inter = 0, lsize, rsize;
    MPI_Comm_test_inter(s, &inter);
    MPI_Comm_size(s, &lsize);
    MPI_Comm_remote_size(s, &rsize);
    CHECK(inter && lsize == (lower ? 2 : 1) && rsize == (lower ? 1 : 2), "%s: inter %d, sizes %d and %d", what,
          inter, lsize, rsize);
    int v = rank + 1, sum = 0;
    int rc = MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, s);
    CHECK(rc == MPI_SUCCESS && sum == (lower ? 3 : 3), "%s: allreduce rc %d sum %d", what, rc, sum);
    /* the lower group reduces the upper's (3), the upper the lower's (1 + 2) */
}

int main(int argc, char **argv)
{
    int size, rc, flag;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 4, "run with 4 ranks, not %d", size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int lower = rank < 2;
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, lower, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, lower ? 2 : 0, 9, &inter);
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);

    /* 1: each rank clears its own bit */
    flag = 0xff & ~(1 << rank);
    rc = MPIX_Comm_agree(inter, &flag);
    CHECK(rc == MPI_SUCCESS && flag == (lower ? 0xf3 : 0xfc), "agreement: rc %d flag %#x", rc, flag);
    MPI_Request req;
    flag = 0xff & ~(0x10 << rank);
    rc = MPIX_Comm_iagree(inter, &flag, &req);
    CHECK(rc == MPI_SUCCESS, "iagree: rc %d", rc);
    rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS && flag == (lower ? 0x3f : 0xcf), "iagree: rc %d flag %#x", rc, flag);

    /* 2 */
    if (rank == 3)
        raise(SIGKILL);
    MPI_Group g;
    int n = 0, w[4];
    while (n == 0) { /* until the death is known */
        MPIX_Comm_get_failed(inter, &g);
        MPI_Group_size(g, &n);
        if (n)
            break;
        MPI_Group_free(&g);
        usleep(1000);
    }
    CHECK(n == 1 && world_of(g, w) == 1 && w[0] == 3, "get_failed: %d members, first world rank %d", n, w[0]);
    MPI_Group_free(&g);
    flag = rank == 0 ? 0x0e : rank == 1 ? 0x0d : 0x0b;
    rc = MPIX_Comm_agree(inter, &flag);
    CHECK(check_class(rc) == MPIX_ERR_PROC_FAILED, "agreement with a dead member not acknowledged: class %d",
          check_class(rc));
    CHECK(flag == (lower ? 0x0b : 0x0c), "agreement with a dead member: flag %#x", flag);
    CHECK(MPIX_Comm_failure_ack(inter) == MPI_SUCCESS, "failure_ack");
    MPIX_Comm_failure_get_acked(inter, &g);
    CHECK(world_of(g, w) == 1 && w[0] == 3, "get_acked does not name world rank 3");
    MPI_Group_free(&g);
    flag = rank == 2 ? 0x70 : 0x30;
    rc = MPIX_Comm_agree(inter, &flag);
    CHECK(rc == MPI_SUCCESS && flag == (lower ? 0x70 : 0x30), "agreement after the acknowledgement: rc %d flag %#x",
          rc, flag);

    /* 3 */
    MPI_Comm s1, s2 = MPI_COMM_NULL;
    rc = MPIX_Comm_shrink(inter, &s1);
    CHECK(rc == MPI_SUCCESS, "shrink: rc %d", rc);
    check_shrunk(s1, lower, "shrink");
    rc = MPIX_Comm_ishrink(inter, &s2, &req);
    CHECK(rc == MPI_SUCCESS, "ishrink: rc %d", rc);
    rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS && s2 != MPI_COMM_NULL, "ishrink wait: rc %d", rc);
    check_shrunk(s2, lower, "ishrink");
    MPI_Comm_free(&s1);
    MPI_Comm_free(&s2);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    if (rank == 0)
        printf("OK ulfm_inter\n");
    MPI_Finalize();
    return 0;
}
