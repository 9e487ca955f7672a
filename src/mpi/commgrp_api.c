/* MPI_Comm_create_group and MPI_Comm_idup bindings (src/comm/commgrp.c). */
#include "comm/attr.h"
#include "comm/commgrp.h"
#include "comm/topo.h"
#include "mpi/mpiimpl.h"

#include <stdint.h>
#include <string.h>

RM_ALIAS(Comm_create_group)
int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    MPI_BEGIN("MPI_Comm_create_group");
    comm_t *c, *n = NULL;
    group_t *g;
    CHECK_COMM(c, comm);
    CHECK_INTRA(c);
    CHECK_ARG(c, newcomm, "newcomm is NULL");
    if (!(g = group_get(group)))
        MPI_FAIL(c, MPI_ERR_GROUP, "invalid group 0x%x", (unsigned)group);
    CHECK_SEND_TAG(c, tag);
    int me = comm_world_rank(c, c->rank), member = 0;
    for (int i = 0; i < g->size; i++) {
        int in_parent = 0;
        for (int j = 0; j < c->size && !in_parent; j++)
            in_parent = c->group->world[j] == g->world[i];
        if (!in_parent)
            MPI_FAIL(c, MPI_ERR_GROUP, "group member %d is not in the communicator", i);
        member |= g->world[i] == me;
    }
    if (!member) {
        /* as MPICH: a process outside the group gets no communicator */
        *newcomm = MPI_COMM_NULL;
        goto fn_exit;
    }
    group_t *ng = group_new(g->size, 0);
    if (!ng)
        MPI_FAIL(c, MPI_ERR_NO_MEM, "out of memory");
    memcpy(ng->world, g->world, sizeof(int) * (size_t)g->size);
    rm_status_t st = comm_create_group(c, ng, tag, &n);
    if (st < 0)
        group_release(ng);
    MPI_CHECK_STATUS(c, st);
    *newcomm = n->handle;
    MPI_END();
}

/* The idup's outcome, reported when the application completes the request. */
static int idup_query(void *state, MPI_Status *status)
{
    (void)status;
    return mpi_err_from_status((rm_status_t)(intptr_t)state);
}

/* MPI_Comm_idup and MPI_Comm_idup_with_info: what the duplicate inherits is
 * fixed at the call, as for MPI_Comm_dup; with_info: the hints are exactly
 * those of info. */
static int comm_idup_common(const char *fn_name_, MPI_Comm comm, int with_info, MPI_Info info,
                            MPI_Comm *newcomm, MPI_Request *request)
{
    MPI_BEGIN_SHARED();
    comm_t *c;
    CHECK_COMM(c, comm);
    CHECK_ARG(c, newcomm && request, "newcomm or request is NULL");
    comm_idup_extra_t ex = {0};
    if (with_info && (err = mpi_info_hints(info, &ex.hints)) != MPI_SUCCESS)
        MPI_FAIL(c, err, err == MPI_ERR_INFO ? "invalid info 0x%x" : "out of memory (info 0x%x)",
                 (unsigned)info);
    if ((c->topo && !(ex.topo = topo_dup(c->topo))) ||
        (!with_info && comm_hints_copy(c->hints, &ex.hints) < 0)) {
        comm_idup_extra_free(&ex);
        MPI_FAIL(c, MPI_ERR_NO_MEM, "out of memory");
    }
    if ((err = attr_copy_all(&c->attrs, &ex.attrs, ATTR_COMM, comm)) != MPI_SUCCESS) {
        comm_idup_extra_free(&ex);
        MPI_FAIL(c, err, "an attribute copy callback failed");
    }
    request_t *r;
    rm_status_t st = comm_idup_start(c, &ex, newcomm, &r);
    MPI_CHECK_STATUS(c, st);
    r->gq = idup_query;
    *request = r->handle;
    MPI_END();
}

RM_ALIAS(Comm_idup)
int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    return comm_idup_common("MPI_Comm_idup", comm, 0, MPI_INFO_NULL, newcomm, request);
}

RM_ALIAS(Comm_idup_with_info)
int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm,
                             MPI_Request *request)
{
    return comm_idup_common("MPI_Comm_idup_with_info", comm, 1, info, newcomm, request);
}
