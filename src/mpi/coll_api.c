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
    CHECK_COLL_FT(c);
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
    CHECK_COLL_FT(c);
    MPI_CHECKED(coll_bcast_checks(fn_name_, c, buffer, count, datatype, root, &dt));
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
    CHECK_COLL_FT(c);
    MPI_CHECKED(coll_rooted_checks(fn_name_, c, 0, root, sendbuf, sendcount, sendtype, &sdt, recvbuf,
                                   recvcount, NULL, NULL, recvtype, &rdt));
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
    CHECK_COLL_FT(c);
    MPI_CHECKED(coll_rooted_checks(fn_name_, c, 1, root, sendbuf, sendcount, sendtype, &sdt, recvbuf,
                                   0, recvcounts, displs, recvtype, &rdt));
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
    CHECK_COLL_FT(c);
    MPI_CHECKED(coll_rooted_checks(fn_name_, c, 0, root, recvbuf, recvcount, recvtype, &rdt, sendbuf,
                                   sendcount, NULL, NULL, sendtype, &sdt));
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
    CHECK_COLL_FT(c);
    MPI_CHECKED(coll_rooted_checks(fn_name_, c, 1, root, recvbuf, recvcount, recvtype, &rdt, sendbuf,
                                   0, sendcounts, displs, sendtype, &sdt));
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
    CHECK_COLL_FT(c);
    MPI_CHECKED(coll_allgather_checks(fn_name_, c, 0, sendbuf, sendcount, sendtype, &sdt, recvbuf,
                                      recvcount, NULL, NULL, recvtype, &rdt));
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
    CHECK_COLL_FT(c);
    MPI_CHECKED(coll_allgather_checks(fn_name_, c, 1, sendbuf, sendcount, sendtype, &sdt, recvbuf, 0,
                                      recvcounts, displs, recvtype, &rdt));
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
    CHECK_COLL_FT(c);
    MPI_CHECKED(coll_alltoall_checks(fn_name_, c, 0, sendbuf, sendcount, NULL, NULL, sendtype, &sdt,
                                     recvbuf, recvcount, NULL, NULL, recvtype, &rdt));
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
    CHECK_COLL_FT(c);
    MPI_CHECKED(coll_alltoall_checks(fn_name_, c, 1, sendbuf, 0, sendcounts, sdispls, sendtype, &sdt,
                                     recvbuf, 0, recvcounts, rdispls, recvtype, &rdt));
    MPI_CHECK_STATUS(c, comm_is_inter(c) ? coll_inter_alltoallv(sendbuf, 0, sendcounts, sdispls, sdt,
                                                                recvbuf, 0, recvcounts, rdispls, rdt,
                                                                1, c)
                                         : coll_alltoallv(sendbuf, sendcounts, sdispls, sdt, recvbuf,
                                                          recvcounts, rdispls, rdt, c));
    MPI_END();
}

RM_ALIAS(Reduce)
int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm)
{
    MPI_BEGIN("MPI_Reduce");
    comm_t *c = NULL;
    dtype_t *dt = NULL;
    op_t *o = NULL;
    CHECK_COMM(c, comm);
    CHECK_COLL_FT(c);
    MPI_CHECKED(coll_reduce_checks(fn_name_, c, sendbuf, recvbuf, count, datatype, op, 1, root, &dt,
                                   &o));
    MPI_CHECK_STATUS(c, comm_is_inter(c) ? coll_inter_reduce(sendbuf, recvbuf, count, dt, o, root, c)
                                         : coll_reduce(sendbuf, recvbuf, count, dt, o, root, c));
    MPI_END();
}

RM_ALIAS(Allreduce)
int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm)
{
    MPI_BEGIN("MPI_Allreduce");
    comm_t *c = NULL;
    dtype_t *dt = NULL;
    op_t *o = NULL;
    CHECK_COMM(c, comm);
    CHECK_COLL_FT(c);
    MPI_CHECKED(coll_reduce_checks(fn_name_, c, sendbuf, recvbuf, count, datatype, op, 0, 0, &dt, &o));
    MPI_CHECK_STATUS(c, comm_is_inter(c) ? coll_inter_allreduce(sendbuf, recvbuf, count, dt, o, c)
                                         : coll_allreduce(sendbuf, recvbuf, count, dt, o, c));
    MPI_END();
}

RM_ALIAS(Scan)
int PMPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm)
{
    MPI_BEGIN("MPI_Scan");
    comm_t *c = NULL;
    dtype_t *dt = NULL;
    op_t *o = NULL;
    CHECK_COMM(c, comm);
    CHECK_COLL_FT(c);
    MPI_CHECKED(coll_reduce_checks(fn_name_, c, sendbuf, recvbuf, count, datatype, op, 2, 0, &dt, &o));
    MPI_CHECK_STATUS(c, coll_scan(sendbuf, recvbuf, count, dt, o, c));
    MPI_END();
}

RM_ALIAS(Exscan)
int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm)
{
    MPI_BEGIN("MPI_Exscan");
    comm_t *c = NULL;
    dtype_t *dt = NULL;
    op_t *o = NULL;
    CHECK_COMM(c, comm);
    CHECK_COLL_FT(c);
    MPI_CHECKED(coll_reduce_checks(fn_name_, c, sendbuf, recvbuf, count, datatype, op, 2, 0, &dt, &o));
    MPI_CHECK_STATUS(c, coll_exscan(sendbuf, recvbuf, count, dt, o, c));
    MPI_END();
}

RM_ALIAS(Reduce_scatter_block)
int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    MPI_BEGIN("MPI_Reduce_scatter_block");
    comm_t *c = NULL;
    dtype_t *dt = NULL;
    op_t *o = NULL;
    CHECK_COMM(c, comm);
    CHECK_COLL_FT(c);
    MPI_CHECKED(coll_reduce_checks(fn_name_, c, sendbuf, recvbuf, recvcount, datatype, op, 0, 0, &dt,
                                   &o));
    MPI_CHECK_STATUS(c, comm_is_inter(c)
                            ? coll_inter_reduce_scatter(sendbuf, recvbuf, recvcount, NULL, dt, o, c)
                            : coll_reduce_scatter_block(sendbuf, recvbuf, recvcount, dt, o, c));
    MPI_END();
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
    CHECK_COLL_FT(c);
    MPI_CHECKED(coll_reduce_scatter_checks(fn_name_, c, sendbuf, recvcounts, datatype, op, &dt, &o));
    MPI_CHECK_STATUS(c, comm_is_inter(c) ? coll_inter_reduce_scatter(sendbuf, recvbuf, 0, recvcounts, dt, o, c)
                                         : coll_reduce_scatter(sendbuf, recvbuf, recvcounts, dt, o, c));
    MPI_END();
}
