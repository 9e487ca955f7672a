/* Intercommunicator bindings (MPI-3.1 §6.6). */
#include "mpi/mpiimpl.h"

RM_ALIAS(Comm_test_inter)
int PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    MPI_BEGIN("MPI_Comm_test_inter");
    comm_t *c;
    CHECK_COMM(c, comm);
    CHECK_ARG(c, flag, "flag is NULL");
    *flag = comm_is_inter(c);
    MPI_END();
}

#define CHECK_INTER(c)                                                               \
    do {                                                                             \
        if (!comm_is_inter(c))                                                       \
            MPI_FAIL((c), MPI_ERR_COMM, "not an intercommunicator");                 \
    } while (0)

RM_ALIAS(Comm_remote_size)
int PMPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    MPI_BEGIN("MPI_Comm_remote_size");
    comm_t *c;
    CHECK_COMM(c, comm);
    CHECK_INTER(c);
    CHECK_ARG(c, size, "size is NULL");
    *size = c->remote_group->size;
    MPI_END();
}

RM_ALIAS(Comm_remote_group)
int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    MPI_BEGIN("MPI_Comm_remote_group");
    comm_t *c;
    CHECK_COMM(c, comm);
    CHECK_INTER(c);
    CHECK_ARG(c, group, "group is NULL");
    group_t *g = comm_group_copy(c->remote_group);
    if (!g || !group_register(g)) {
        group_release(g);
        MPI_FAIL(c, MPI_ERR_NO_MEM, "out of memory");
    }
    g->rank = MPI_UNDEFINED; /* the groups are disjoint */
    *group = g->handle;
    MPI_END();
}

RM_ALIAS(Intercomm_create)
int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                          int remote_leader, int tag, MPI_Comm *newintercomm)
{
    MPI_BEGIN("MPI_Intercomm_create");
    comm_t *c, *n = NULL;
    CHECK_COMM(c, local_comm);
    CHECK_INTRA(c);
    CHECK_ARG(c, newintercomm, "newintercomm is NULL");
    if (local_leader < 0 || local_leader >= c->size)
        MPI_FAIL(c, MPI_ERR_RANK, "invalid local_leader %d (communicator size %d)", local_leader,
                 c->size);
    /* peer_comm, remote_leader and tag matter at the local leader only; what
     * it finds wrong there is reported by the whole local group */
    comm_t *peer = NULL;
    int leader_err = MPI_SUCCESS;
    if (c->rank == local_leader) {
        if (!(peer = comm_get(peer_comm)))
            leader_err = MPI_ERR_COMM;
        else if (remote_leader < 0 || remote_leader >= comm_peer_size(peer))
            leader_err = MPI_ERR_RANK;
        else if (tag < 0 || tag > RM_TAG_UB)
            leader_err = MPI_ERR_TAG;
    }
    int errclass;
    MPI_CHECK_STATUS(c, comm_inter_create(c, local_leader, peer, remote_leader, tag, leader_err,
                                          &errclass, &n));
    if (errclass != MPI_SUCCESS)
        MPI_FAIL(c, errclass, "%s",
                 errclass == MPI_ERR_COMM   ? "peer_comm is invalid at the local leader, or the "
                                              "local and remote groups overlap"
                 : errclass == MPI_ERR_RANK ? "remote_leader is not a rank of peer_comm"
                 : errclass == MPI_ERR_TAG  ? "invalid tag at the local leader"
                                            : "the local leader failed");
    *newintercomm = n->handle;
    MPI_END();
}

RM_ALIAS(Intercomm_merge)
int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    MPI_BEGIN("MPI_Intercomm_merge");
    comm_t *c, *n = NULL;
    CHECK_COMM(c, intercomm);
    CHECK_INTER(c);
    CHECK_ARG(c, newintracomm, "newintracomm is NULL");
    MPI_CHECK_STATUS(c, comm_inter_merge(c, high, &n));
    *newintracomm = n->handle;
    MPI_END();
}
