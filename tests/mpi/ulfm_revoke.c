/* ranks: 2 4 */
/* MPIX_Comm_revoke without any failure (no RAILMPI_PROC_FT needed): a revoke
 * of an intracommunicator reaches the ranks blocked in a receive and a
 * collective on it, every later operation fails with MPIX_ERR_REVOKED while
 * the others' communicators go on; the same across an intercommunicator
 * (revoked from one group, seen by the other). */
#include "check.h"

#include <stdio.h>
#include <unistd.h>

static int rank;

static int eclass(int rc)
{
    int c;
    MPI_Error_class(rc, &c);
    return c;
}

int main(int argc, char **argv)
{
    int size, rc, x = 0, flag;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm d;
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    if (rank == 0) {
        usleep(100000); /* the others are blocked by now */
        CHECK(MPIX_Comm_revoke(d) == MPI_SUCCESS, "revoke failed");
    } else if (rank == 1) {
        rc = MPI_Recv(&x, 1, MPI_INT, 0, 5, d, MPI_STATUS_IGNORE);
        CHECK(eclass(rc) == MPIX_ERR_REVOKED, "blocked receive: class %d", eclass(rc));
    } else {
        rc = MPI_Barrier(d); /* rank 0 never enters it */
        CHECK(eclass(rc) == MPIX_ERR_REVOKED, "blocked barrier: class %d", eclass(rc));
    }
    MPIX_Comm_is_revoked(d, &flag);
    CHECK(flag, "not revoked");
    rc = MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, d);
    CHECK(eclass(rc) == MPIX_ERR_REVOKED, "allreduce after the revoke: class %d", eclass(rc));
    rc = MPI_Send(&x, 1, MPI_INT, 0, 5, d);
    CHECK(eclass(rc) == MPIX_ERR_REVOKED, "send after the revoke: class %d", eclass(rc));
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS, "MPI_COMM_WORLD stopped working");
    CHECK(MPI_Comm_free(&d) == MPI_SUCCESS, "free failed");

    /* an intercommunicator between the lower and the upper half */
    MPI_Comm half, inter;
    int lower = rank < size / 2;
    MPI_Comm_split(MPI_COMM_WORLD, lower, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, lower ? size / 2 : 0, 7, &inter);
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    if (rank == 0) {
        usleep(100000);
        CHECK(MPIX_Comm_revoke(inter) == MPI_SUCCESS, "intercommunicator revoke failed");
    } else if (!lower) {
        int hr;
        MPI_Comm_rank(half, &hr);
        rc = MPI_Recv(&x, 1, MPI_INT, hr, 6, inter, MPI_STATUS_IGNORE); /* from the other group */
        CHECK(eclass(rc) == MPIX_ERR_REVOKED, "blocked intercommunicator receive: class %d", eclass(rc));
    }
    flag = 0;
    while (!flag)
        MPIX_Comm_is_revoked(inter, &flag);
    rc = MPI_Send(&x, 1, MPI_INT, 0, 6, inter);
    CHECK(eclass(rc) == MPIX_ERR_REVOKED, "intercommunicator send after the revoke: class %d", eclass(rc));
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    MPI_Finalize();
    if (rank == 0)
        printf("OK ulfm_revoke\n");
    return 0;
}
