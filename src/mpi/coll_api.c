/* Collective bindings: argument checks, then src/coll. */
#include "coll/coll.h"
#include "coll/inter.h"
#include "mpi/coll_check.h"

RM_ALIAS(Barrier)
int PMPI_Barrier(MPI_Comm comm)
{
    MPI_BEGIN("MPI_Barrier");
    comm_t *c = NULL;
    CHECK_COMM(c, comm);
    MPI_CHECK_STATUS(c, comm_is_inter(c) ? coll_inter_barrier(c) : coll_barrier(c));
    MPI_END();
}

RM_ALIAS(Bcast)
int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    MPI_BEGIN("MPI_Bcast");
    comm_t *c = NULL;
    dtype_t *dt = NULL;
    CHECK_COMM(c, comm);
    CHECK_COUNT(c, count);
    CHECK_DTYPE(c, dt, datatype);
    CHECK_ROOT(c, root);
    if (root != MPI_PROC_NULL)
        CHECK_BUF(c, buffer, count, dt);
    MPI_CHECK_STATUS(c, comm_is_inter(c) ? coll_inter_bcast(buffer, count, dt, root, c)
                                         : coll_bcast(buffer, count, dt, root, c));
    MPI_END();
}

RM_ALIAS(Gather)
int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    MPI_BEGIN("MPI_Gather");
    comm_t *c = NULL;
    dtype_t *sdt = NULL, *rdt = NULL;
    CHECK_COMM(c, comm);
    CHECK_ROOT(c, root);
    if (sendbuf == MPI_IN_PLACE && NON_ROOT(c, root))
        MPI_FAIL(c, MPI_ERR_BUFFER, "MPI_IN_PLACE is only valid at the root of an intracommunicator");
    if (sendbuf != MPI_IN_PLACE && (NON_ROOT(c, root) || !comm_is_inter(c))) {
        CHECK_COUNT(c, sendcount);
        CHECK_DTYPE(c, sdt, sendtype);
        CHECK_BUF(c, sendbuf, sendcount, sdt);
    }
    if (AT_ROOT(c, root)) {
        CHECK_COUNT(c, recvcount);
        CHECK_DTYPE(c, rdt, recvtype);
        CHECK_BUF(c, recvbuf, recvcount, rdt);
        if (!comm_is_inter(c)) /* the root of an intercommunicator sends nothing */
            CHECK_ALIAS(c, sendbuf, recvbuf, recvcount);
    }
    MPI_CHECK_STATUS(c, comm_is_inter(c) ? coll_inter_gatherv(sendbuf, sendcount, sdt, recvbuf, recvcount,
                                                              NULL, NULL, rdt, root, c)
                                         : coll_gather(sendbuf, sendcount, sdt, recvbuf, recvcount,
                                                       rdt, root, c));
    MPI_END();
}

RM_ALIAS(Gatherv)
int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm)
{
    MPI_BEGIN("MPI_Gatherv");
    comm_t *c = NULL;
    dtype_t *sdt = NULL, *rdt = NULL;
    CHECK_COMM(c, comm);
    CHECK_ROOT(c, root);
    if (sendbuf == MPI_IN_PLACE && NON_ROOT(c, root))
        MPI_FAIL(c, MPI_ERR_BUFFER, "MPI_IN_PLACE is only valid at the root of an intracommunicator");
    if (sendbuf != MPI_IN_PLACE && (NON_ROOT(c, root) || !comm_is_inter(c))) {
        CHECK_COUNT(c, sendcount);
        CHECK_DTYPE(c, sdt, sendtype);
        CHECK_BUF(c, sendbuf, sendcount, sdt);
    }
    if (AT_ROOT(c, root)) {
        CHECK_DTYPE(c, rdt, recvtype);
        CHECK_COUNTS(c, recvcounts, comm_peer_size(c));
        CHECK_ARG(c, displs, "displs is NULL");
    }
    MPI_CHECK_STATUS(c, comm_is_inter(c) ? coll_inter_gatherv(sendbuf, sendcount, sdt, recvbuf, 0,
                                                              recvcounts, displs, rdt, root, c)
                                         : coll_gatherv(sendbuf, sendcount, sdt, recvbuf, recvcounts,
                                                        displs, rdt, root, c));
    MPI_END();
}

RM_ALIAS(Scatter)
int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    MPI_BEGIN("MPI_Scatter");
    comm_t *c = NULL;
    dtype_t *sdt = NULL, *rdt = NULL;
    CHECK_COMM(c, comm);
    CHECK_ROOT(c, root);
    if (recvbuf == MPI_IN_PLACE && NON_ROOT(c, root))
        MPI_FAIL(c, MPI_ERR_BUFFER, "MPI_IN_PLACE is only valid at the root of an intracommunicator");
    if (AT_ROOT(c, root)) {
        CHECK_COUNT(c, sendcount);
        CHECK_DTYPE(c, sdt, sendtype);
        CHECK_BUF(c, sendbuf, sendcount, sdt);
        if (!comm_is_inter(c)) /* the root of an intercommunicator receives nothing */
            CHECK_ALIAS(c, sendbuf, recvbuf, sendcount);
    }
    if (recvbuf != MPI_IN_PLACE && (NON_ROOT(c, root) || !comm_is_inter(c))) {
        CHECK_COUNT(c, recvcount);
        CHECK_DTYPE(c, rdt, recvtype);
        CHECK_BUF(c, recvbuf, recvcount, rdt);
    }
    MPI_CHECK_STATUS(c, comm_is_inter(c) ? coll_inter_scatterv(sendbuf, sendcount, NULL, NULL, sdt, recvbuf,
                                                               recvcount, rdt, root, c)
                                         : coll_scatter(sendbuf, sendcount, sdt, recvbuf, recvcount,
                                                        rdt, root, c));
    MPI_END();
}

RM_ALIAS(Scatterv)
int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm)
{
    MPI_BEGIN("MPI_Scatterv");
    comm_t *c = NULL;
    dtype_t *sdt = NULL, *rdt = NULL;
    CHECK_COMM(c, comm);
    CHECK_ROOT(c, root);
    if (recvbuf == MPI_IN_PLACE && NON_ROOT(c, root))
        MPI_FAIL(c, MPI_ERR_BUFFER, "MPI_IN_PLACE is only valid at the root of an intracommunicator");
    if (AT_ROOT(c, root)) {
        CHECK_DTYPE(c, sdt, sendtype);
        CHECK_COUNTS(c, sendcounts, comm_peer_size(c));
        CHECK_ARG(c, displs, "displs is NULL");
    }
    if (recvbuf != MPI_IN_PLACE && (NON_ROOT(c, root) || !comm_is_inter(c))) {
        CHECK_COUNT(c, recvcount);
        CHECK_DTYPE(c, rdt, recvtype);
        CHECK_BUF(c, recvbuf, recvcount, rdt);
    }
    MPI_CHECK_STATUS(c, comm_is_inter(c) ? coll_inter_scatterv(sendbuf, 0, sendcounts, displs, sdt, recvbuf,
                                                               recvcount, rdt, root, c)
                                         : coll_scatterv(sendbuf, sendcounts, displs, sdt, recvbuf,
                                                         recvcount, rdt, root, c));
    MPI_END();
}

RM_ALIAS(Allgather)
int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    MPI_BEGIN("MPI_Allgather");
    comm_t *c = NULL;
    dtype_t *sdt = NULL, *rdt;
    CHECK_COMM(c, comm);
    CHECK_NOT_IN_PLACE(c, sendbuf);
    if (sendbuf != MPI_IN_PLACE) {
        CHECK_COUNT(c, sendcount);
        CHECK_DTYPE(c, sdt, sendtype);
        CHECK_BUF(c, sendbuf, sendcount, sdt);
    }
    CHECK_COUNT(c, recvcount);
    CHECK_DTYPE(c, rdt, recvtype);
    CHECK_BUF(c, recvbuf, recvcount, rdt);
    CHECK_ALIAS(c, sendbuf, recvbuf, recvcount);
    MPI_CHECK_STATUS(c, comm_is_inter(c) ? coll_inter_alltoallv(sendbuf, sendcount, NULL, NULL, sdt, recvbuf,
                                                                recvcount, NULL, NULL, rdt, 0, c)
                                         : coll_allgather(sendbuf, sendcount, sdt, recvbuf, recvcount,
                                                          rdt, c));
    MPI_END();
}

RM_ALIAS(Allgatherv)
int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    MPI_BEGIN("MPI_Allgatherv");
    comm_t *c = NULL;
    dtype_t *sdt = NULL, *rdt;
    CHECK_COMM(c, comm);
    CHECK_NOT_IN_PLACE(c, sendbuf);
    if (sendbuf != MPI_IN_PLACE) {
        CHECK_COUNT(c, sendcount);
        CHECK_DTYPE(c, sdt, sendtype);
        CHECK_BUF(c, sendbuf, sendcount, sdt);
    }
    CHECK_DTYPE(c, rdt, recvtype);
    CHECK_COUNTS(c, recvcounts, comm_peer_size(c));
    CHECK_ARG(c, displs, "displs is NULL");
    MPI_CHECK_STATUS(c, comm_is_inter(c) ? coll_inter_alltoallv(sendbuf, sendcount, NULL, NULL, sdt, recvbuf,
                                                                0, recvcounts, displs, rdt, 0, c)
                                         : coll_allgatherv(sendbuf, sendcount, sdt, recvbuf, recvcounts,
                                                           displs, rdt, c));
    MPI_END();
}

RM_ALIAS(Alltoall)
int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    MPI_BEGIN("MPI_Alltoall");
    comm_t *c = NULL;
    dtype_t *sdt = NULL, *rdt;
    CHECK_COMM(c, comm);
    CHECK_NOT_IN_PLACE(c, sendbuf);
    if (sendbuf != MPI_IN_PLACE) {
        CHECK_COUNT(c, sendcount);
        CHECK_DTYPE(c, sdt, sendtype);
        CHECK_BUF(c, sendbuf, sendcount, sdt);
    }
    CHECK_COUNT(c, recvcount);
    CHECK_DTYPE(c, rdt, recvtype);
    CHECK_BUF(c, recvbuf, recvcount, rdt);
    CHECK_ALIAS(c, sendbuf, recvbuf, recvcount);
    MPI_CHECK_STATUS(c, comm_is_inter(c) ? coll_inter_alltoallv(sendbuf, sendcount, NULL, NULL, sdt, recvbuf,
                                                                recvcount, NULL, NULL, rdt, 1, c)
                                         : coll_alltoall(sendbuf, sendcount, sdt, recvbuf, recvcount,
                                                         rdt, c));
    MPI_END();
}

RM_ALIAS(Alltoallv)
int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                   MPI_Datatype recvtype, MPI_Comm comm)
{
    MPI_BEGIN("MPI_Alltoallv");
    comm_t *c = NULL;
    dtype_t *sdt = NULL, *rdt;
    CHECK_COMM(c, comm);
    CHECK_NOT_IN_PLACE(c, sendbuf);
    if (sendbuf != MPI_IN_PLACE) {
        CHECK_DTYPE(c, sdt, sendtype);
        CHECK_COUNTS(c, sendcounts, comm_peer_size(c));
        CHECK_ARG(c, sdispls, "sdispls is NULL");
    }
    CHECK_DTYPE(c, rdt, recvtype);
    CHECK_COUNTS(c, recvcounts, comm_peer_size(c));
    CHECK_ARG(c, rdispls, "rdispls is NULL");
    MPI_CHECK_STATUS(c, comm_is_inter(c) ? coll_inter_alltoallv(sendbuf, 0, sendcounts, sdispls, sdt,
                                                                recvbuf, 0, recvcounts, rdispls, rdt,
                                                                1, c)
                                         : coll_alltoallv(sendbuf, sendcounts, sdispls, sdt, recvbuf,
                                                          recvcounts, rdispls, rdt, c));
    MPI_END();
}

int coll_reduce_checks(const char *fn_name_, const void *sendbuf, void *recvbuf, int count,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, int rooted, int root,
                              comm_t **cp, dtype_t **dtp, op_t **opp)
{
    MPI_BEGIN_SHARED();
    comm_t *c = NULL;
    dtype_t *dt = NULL;
    op_t *o = NULL;
    CHECK_COMM(c, comm);
    CHECK_COUNT(c, count);
    CHECK_DTYPE(c, dt, datatype);
    CHECK_OP(c, o, op, dt);
    if (rooted == 2)
        CHECK_INTRA(c); /* scans */
    if (rooted == 1)
        CHECK_ROOT(c, root);
    else
        CHECK_NOT_IN_PLACE(c, sendbuf);
    if (sendbuf == MPI_IN_PLACE && rooted == 1 && NON_ROOT(c, root))
        MPI_FAIL(c, MPI_ERR_BUFFER, "MPI_IN_PLACE is only valid at the root of an intracommunicator");
    if (sendbuf != MPI_IN_PLACE && (rooted != 1 || NON_ROOT(c, root) || !comm_is_inter(c)))
        CHECK_BUF(c, sendbuf, count, dt);
    if (rooted != 1 || AT_ROOT(c, root)) {
        CHECK_BUF(c, recvbuf, count, dt);
        if (rooted != 1 || !comm_is_inter(c))
            CHECK_ALIAS(c, sendbuf, recvbuf, count);
    }
    *cp = c;
    *dtp = dt;
    *opp = o;
    MPI_END();
}

RM_ALIAS(Reduce)
int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm)
{
    comm_t *c = NULL;
    dtype_t *dt = NULL;
    op_t *o = NULL;
    int err = coll_reduce_checks("MPI_Reduce", sendbuf, recvbuf, count, datatype, op, comm, 1,
                                 root, &c, &dt, &o);
    if (err != MPI_SUCCESS)
        return err;
    rm_lock();
    rm_status_t st = comm_is_inter(c) ? coll_inter_reduce(sendbuf, recvbuf, count, dt, o, root, c)
                                      : coll_reduce(sendbuf, recvbuf, count, dt, o, root, c);
    rm_unlock();
    return st < 0 ? mpi_err_raise(c, mpi_err_from_status(st), "MPI_Reduce", "%s", rm_status_str(st))
                  : MPI_SUCCESS;
}

RM_ALIAS(Allreduce)
int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm)
{
    comm_t *c = NULL;
    dtype_t *dt = NULL;
    op_t *o = NULL;
    int err = coll_reduce_checks("MPI_Allreduce", sendbuf, recvbuf, count, datatype, op, comm, 0, 0,
                                 &c, &dt, &o);
    if (err != MPI_SUCCESS)
        return err;
    rm_lock();
    rm_status_t st = comm_is_inter(c) ? coll_inter_allreduce(sendbuf, recvbuf, count, dt, o, c)
                                      : coll_allreduce(sendbuf, recvbuf, count, dt, o, c);
    rm_unlock();
    return st < 0 ? mpi_err_raise(c, mpi_err_from_status(st), "MPI_Allreduce", "%s", rm_status_str(st))
                  : MPI_SUCCESS;
}

RM_ALIAS(Scan)
int PMPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm)
{
    comm_t *c = NULL;
    dtype_t *dt = NULL;
    op_t *o = NULL;
    int err = coll_reduce_checks("MPI_Scan", sendbuf, recvbuf, count, datatype, op, comm, 2, 0, &c,
                                 &dt, &o);
    if (err != MPI_SUCCESS)
        return err;
    rm_lock();
    rm_status_t st = coll_scan(sendbuf, recvbuf, count, dt, o, c);
    rm_unlock();
    return st < 0 ? mpi_err_raise(c, mpi_err_from_status(st), "MPI_Scan", "%s", rm_status_str(st))
                  : MPI_SUCCESS;
}

RM_ALIAS(Exscan)
int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm)
{
    comm_t *c = NULL;
    dtype_t *dt = NULL;
    op_t *o = NULL;
    int err = coll_reduce_checks("MPI_Exscan", sendbuf, recvbuf, count, datatype, op, comm, 2, 0, &c,
                                 &dt, &o);
    if (err != MPI_SUCCESS)
        return err;
    rm_lock();
    rm_status_t st = coll_exscan(sendbuf, recvbuf, count, dt, o, c);
    rm_unlock();
    return st < 0 ? mpi_err_raise(c, mpi_err_from_status(st), "MPI_Exscan", "%s", rm_status_str(st))
                  : MPI_SUCCESS;
}

RM_ALIAS(Reduce_scatter_block)
int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    comm_t *c = NULL;
    dtype_t *dt = NULL;
    op_t *o = NULL;
    int err = coll_reduce_checks("MPI_Reduce_scatter_block", sendbuf, recvbuf, recvcount, datatype,
                                 op, comm, 0, 0, &c, &dt, &o);
    if (err != MPI_SUCCESS)
        return err;
    rm_lock();
    rm_status_t st = comm_is_inter(c)
                         ? coll_inter_reduce_scatter(sendbuf, recvbuf, recvcount, NULL, dt, o, c)
                         : coll_reduce_scatter_block(sendbuf, recvbuf, recvcount, dt, o, c);
    rm_unlock();
    return st < 0 ? mpi_err_raise(c, mpi_err_from_status(st), "MPI_Reduce_scatter_block", "%s",
                                  rm_status_str(st))
                  : MPI_SUCCESS;
}

RM_ALIAS(Reduce_scatter)
int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    MPI_BEGIN("MPI_Reduce_scatter");
    comm_t *c = NULL;
    dtype_t *dt = NULL;
    op_t *o = NULL;
    CHECK_COMM(c, comm);
    CHECK_DTYPE(c, dt, datatype);
    CHECK_OP(c, o, op, dt);
    CHECK_NOT_IN_PLACE(c, sendbuf);
    CHECK_COUNTS(c, recvcounts, c->size);
    MPI_CHECK_STATUS(c, comm_is_inter(c) ? coll_inter_reduce_scatter(sendbuf, recvbuf, 0, recvcounts, dt, o, c)
                                         : coll_reduce_scatter(sendbuf, recvbuf, recvcounts, dt, o, c));
    MPI_END();
}
