/* Process fault tolerance (User-Level Failure Mitigation), MPICH's MPIX_
 * names: revoke, the failed-process queries and their acknowledgement. The
 * engine's side is src/proto/ft.c; docs/ulfm.md says what works. These
 * calls are allowed on a revoked communicator. */
#include "coll/coll.h"
#include "mpi/mpiimpl.h"

#include <string.h>

/* The members of c among the first `upto` deaths known, in the order they
 * became known, as a new group (MPI_GROUP_EMPTY when none). */
static int ulfm_failed_group(const char *fn_name_, comm_t *c, int upto, MPI_Group *out)
{
    int n = proto_ft_comm_nfailed(c, upto);
    if (n == 0) {
        *out = MPI_GROUP_EMPTY;
        return MPI_SUCCESS;
    }
    group_t *g = group_new(n, 0);
    if (!g || !group_register(g)) {
        if (g)
            group_release(g);
        return mpi_err_raise(c, MPI_ERR_NO_MEM, fn_name_, "out of memory");
    }
    int k = 0;
    for (int i = 0; i < upto && k < n; i++) {
        int w = proto_ft_nth(i);
        int in = 0;
        for (int r = 0; r < c->group->size && !in; r++)
            in = c->group->world[r] == w;
        for (int r = 0; c->remote_group && r < c->remote_group->size && !in; r++)
            in = c->remote_group->world[r] == w;
        if (in)
            g->world[k++] = w;
    }
    g->rank = MPI_UNDEFINED; /* a survivor is never in it */
    *out = g->handle;
    return MPI_SUCCESS;
}

RM_ALIASX(Comm_revoke)
int PMPIX_Comm_revoke(MPI_Comm comm)
{
    MPI_BEGIN("MPIX_Comm_revoke");
    comm_t *c;
    CHECK_COMM(c, comm);
    MPI_CHECK_STATUS(c, proto_ft_revoke(c));
    MPI_END();
}

RM_ALIASX(Comm_is_revoked)
int PMPIX_Comm_is_revoked(MPI_Comm comm, int *flag)
{
    MPI_BEGIN("MPIX_Comm_is_revoked");
    comm_t *c;
    CHECK_COMM(c, comm);
    CHECK_ARG(c, flag, "flag is NULL");
    proto_progress(); /* a revoke that has arrived counts */
    *flag = c->revoked != 0;
    MPI_END();
}

RM_ALIASX(Comm_failure_ack)
int PMPIX_Comm_failure_ack(MPI_Comm comm)
{
    MPI_BEGIN("MPIX_Comm_failure_ack");
    comm_t *c;
    CHECK_COMM(c, comm);
    c->ft_acked = proto_ft_nfailed;
    MPI_END();
}

RM_ALIASX(Comm_failure_get_acked)
int PMPIX_Comm_failure_get_acked(MPI_Comm comm, MPI_Group *failedgrp)
{
    MPI_BEGIN("MPIX_Comm_failure_get_acked");
    comm_t *c;
    CHECK_COMM(c, comm);
    CHECK_ARG(c, failedgrp, "failedgrp is NULL");
    err = ulfm_failed_group(fn_name_, c, c->ft_acked, failedgrp);
    MPI_END();
}

RM_ALIASX(Comm_get_failed)
int PMPIX_Comm_get_failed(MPI_Comm comm, MPI_Group *failedgrp)
{
    MPI_BEGIN("MPIX_Comm_get_failed");
    comm_t *c;
    CHECK_COMM(c, comm);
    CHECK_ARG(c, failedgrp, "failedgrp is NULL");
    proto_progress(); /* deaths the launcher has reported count */
    err = ulfm_failed_group(fn_name_, c, proto_ft_nfailed, failedgrp);
    MPI_END();
}

/* Acknowledges the first num_to_ack failed members in MPIX_Comm_get_failed's
 * order (never fewer than before); *num_acked: how many are acknowledged. */
RM_ALIASX(Comm_ack_failed)
int PMPIX_Comm_ack_failed(MPI_Comm comm, int num_to_ack, int *num_acked)
{
    MPI_BEGIN("MPIX_Comm_ack_failed");
    comm_t *c;
    CHECK_COMM(c, comm);
    CHECK_ARG(c, num_to_ack >= 0, "num_to_ack = %d is negative", num_to_ack);
    CHECK_ARG(c, num_acked, "num_acked is NULL");
    int upto = c->ft_acked, n = proto_ft_comm_nfailed(c, upto);
    while (n < num_to_ack && upto < proto_ft_nfailed) {
        upto++;
        n = proto_ft_comm_nfailed(c, upto);
    }
    c->ft_acked = upto;
    *num_acked = n;
    MPI_END();
}

/* Uniform among the survivors even when members die during it
 * (src/coll/agree.c); allowed on a revoked communicator. */
RM_ALIASX(Comm_agree)
int PMPIX_Comm_agree(MPI_Comm comm, int *flag)
{
    MPI_BEGIN("MPIX_Comm_agree");
    comm_t *c;
    CHECK_COMM(c, comm);
    CHECK_ARG(c, flag, "flag is NULL");
    rm_status_t st = coll_agree(c, flag);
    if (st == RM_ERR_PROC_FAILED)
        MPI_FAIL(c, MPIX_ERR_PROC_FAILED, "a member died during the agreement or a failure on the communicator "
                                           "is not acknowledged (flag = %d is still agreed)", *flag);
    MPI_CHECK_STATUS(c, st);
    MPI_END();
}

RM_ALIASX(Comm_shrink)
int PMPIX_Comm_shrink(MPI_Comm comm, MPI_Comm *newcomm)
{
    MPI_BEGIN("MPIX_Comm_shrink");
    comm_t *c, *n;
    CHECK_COMM(c, comm);
    CHECK_ARG(c, newcomm, "newcomm is NULL");
    MPI_CHECK_STATUS(c, coll_shrink(c, &n));
    *newcomm = n->handle;
    MPI_END();
}

/* The nonblocking forms: the request completes (as a nonblocking
 * collective's, its error the operation's) once *flag / *newcomm is set. */
static int ulfm_nb_query(void *state, MPI_Status *status)
{
    (void)status;
    return mpi_err_from_status((rm_status_t)(intptr_t)state);
}

RM_ALIASX(Comm_iagree)
int PMPIX_Comm_iagree(MPI_Comm comm, int *flag, MPI_Request *request)
{
    MPI_BEGIN("MPIX_Comm_iagree");
    comm_t *c;
    request_t *r;
    CHECK_COMM(c, comm);
    CHECK_ARG(c, flag, "flag is NULL");
    CHECK_ARG(c, request, "request is NULL");
    MPI_CHECK_STATUS(c, coll_iagree(c, flag, &r));
    r->gq = ulfm_nb_query;
    *request = r->handle;
    MPI_END();
}

RM_ALIASX(Comm_ishrink)
int PMPIX_Comm_ishrink(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    MPI_BEGIN("MPIX_Comm_ishrink");
    comm_t *c;
    request_t *r;
    CHECK_COMM(c, comm);
    CHECK_ARG(c, newcomm, "newcomm is NULL");
    CHECK_ARG(c, request, "request is NULL");
    *newcomm = MPI_COMM_NULL; /* until the request completes */
    MPI_CHECK_STATUS(c, coll_ishrink(c, newcomm, &r));
    r->gq = ulfm_nb_query;
    *request = r->handle;
    MPI_END();
}
