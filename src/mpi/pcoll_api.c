/* Persistent collective bindings (MPI-4.0 MPI_*_init): the bodies of the
 * nonblocking forms (nbc_api.c) with the schedule kept behind an inactive
 * persistent request that MPI_Start runs; the info argument is accepted and
 * not examined. int and large-count (_c) forms. */
#include "mpi/nbc.h"

RM_ALIAS(Barrier_init)
int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    return nbc_ibarrier("MPI_Barrier_init", comm, request, 1);
}

RM_ALIAS(Bcast_init)
int PMPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                    MPI_Info info, MPI_Request *request)
{
    (void)info;
    return nbc_ibcast("MPI_Bcast_init", buffer, count, datatype, root, comm, request, 1);
}

RM_ALIAS(Bcast_init_c)
int PMPI_Bcast_init_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                      MPI_Info info, MPI_Request *request)
{
    (void)info;
    return nbc_ibcast("MPI_Bcast_init_c", buffer, count, datatype, root, comm, request, 1);
}

RM_ALIAS(Gather_init)
int PMPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request *request)
{
    (void)info;
    return nbc_gather("MPI_Gather_init", sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL,
                      recvtype, root, comm, request, 1);
}

RM_ALIAS(Gather_init_c)
int PMPI_Gather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    return nbc_gather("MPI_Gather_init_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL,
                      recvtype, root, comm, request, 1);
}

RM_ALIAS(Gatherv_init)
int PMPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                      MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    coll_vec_t *rv = COLL_VEC_INT(recvcounts, displs);
    VEC_CALL(nbc_gather("MPI_Gatherv_init", sendbuf, sendcount, sendtype, recvbuf, 0, rv, recvtype,
                        root, comm, request, 1), rv);
}

RM_ALIAS(Gatherv_init_c)
int PMPI_Gatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                        MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request)
{
    (void)info;
    coll_vec_t *rv = COLL_VEC_C(recvcounts, displs);
    return nbc_gather("MPI_Gatherv_init_c", sendbuf, sendcount, sendtype, recvbuf, 0, rv, recvtype,
                      root, comm, request, 1);
}

RM_ALIAS(Scatter_init)
int PMPI_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                      MPI_Request *request)
{
    (void)info;
    return nbc_scatter("MPI_Scatter_init", sendbuf, sendcount, NULL, sendtype, recvbuf, recvcount,
                       recvtype, root, comm, request, 1);
}

RM_ALIAS(Scatter_init_c)
int PMPI_Scatter_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                        MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    return nbc_scatter("MPI_Scatter_init_c", sendbuf, sendcount, NULL, sendtype, recvbuf, recvcount,
                       recvtype, root, comm, request, 1);
}

RM_ALIAS(Scatterv_init)
int PMPI_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[],
                       MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                       int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    coll_vec_t *sv = COLL_VEC_INT(sendcounts, displs);
    VEC_CALL(nbc_scatter("MPI_Scatterv_init", sendbuf, 0, sv, sendtype, recvbuf, recvcount,
                         recvtype, root, comm, request, 1), sv);
}

RM_ALIAS(Scatterv_init_c)
int PMPI_Scatterv_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                         MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                         MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                         MPI_Request *request)
{
    (void)info;
    coll_vec_t *sv = COLL_VEC_C(sendcounts, displs);
    return nbc_scatter("MPI_Scatterv_init_c", sendbuf, 0, sv, sendtype, recvbuf, recvcount,
                       recvtype, root, comm, request, 1);
}

RM_ALIAS(Allgather_init)
int PMPI_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request)
{
    (void)info;
    return nbc_allgather("MPI_Allgather_init", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                         NULL, recvtype, comm, request, 1);
}

RM_ALIAS(Allgather_init_c)
int PMPI_Allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                          MPI_Info info, MPI_Request *request)
{
    (void)info;
    return nbc_allgather("MPI_Allgather_init_c", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                         NULL, recvtype, comm, request, 1);
}

RM_ALIAS(Allgatherv_init)
int PMPI_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                         MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    coll_vec_t *rv = COLL_VEC_INT(recvcounts, displs);
    VEC_CALL(nbc_allgather("MPI_Allgatherv_init", sendbuf, sendcount, sendtype, recvbuf, 0, rv,
                           recvtype, comm, request, 1), rv);
}

RM_ALIAS(Allgatherv_init_c)
int PMPI_Allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                           MPI_Request *request)
{
    (void)info;
    coll_vec_t *rv = COLL_VEC_C(recvcounts, displs);
    return nbc_allgather("MPI_Allgatherv_init_c", sendbuf, sendcount, sendtype, recvbuf, 0, rv,
                         recvtype, comm, request, 1);
}

RM_ALIAS(Alltoall_init)
int PMPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request)
{
    (void)info;
    return nbc_alltoall("MPI_Alltoall_init", sendbuf, sendcount, NULL, sendtype, recvbuf, recvcount,
                        NULL, recvtype, comm, request, 1);
}

RM_ALIAS(Alltoall_init_c)
int PMPI_Alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                         MPI_Info info, MPI_Request *request)
{
    (void)info;
    return nbc_alltoall("MPI_Alltoall_init_c", sendbuf, sendcount, NULL, sendtype, recvbuf,
                        recvcount, NULL, recvtype, comm, request, 1);
}

RM_ALIAS(Alltoallv_init)
int PMPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request)
{
    (void)info;
    coll_vec_t *sv = COLL_VEC_INT(sendcounts, sdispls), *rv = COLL_VEC_INT(recvcounts, rdispls);
    VEC_CALL(nbc_alltoall("MPI_Alltoallv_init", sendbuf, 0, sv, sendtype, recvbuf, 0, rv, recvtype,
                          comm, request, 1), sv, rv);
}

RM_ALIAS(Alltoallv_init_c)
int PMPI_Alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                          const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                          const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    coll_vec_t *sv = COLL_VEC_C(sendcounts, sdispls), *rv = COLL_VEC_C(recvcounts, rdispls);
    return nbc_alltoall("MPI_Alltoallv_init_c", sendbuf, 0, sv, sendtype, recvbuf, 0, rv, recvtype,
                        comm, request, 1);
}

RM_ALIAS(Alltoallw_init)
int PMPI_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                        const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                        MPI_Info info, MPI_Request *request)
{
    (void)info;
    coll_vec_t *sv = COLL_VEC_INT(sendcounts, sdispls), *rv = COLL_VEC_INT(recvcounts, rdispls);
    VEC_CALL(nbc_alltoallw("MPI_Alltoallw_init", sendbuf, sv, sendtypes, recvbuf, rv, recvtypes,
                           comm, request, 1, 1), sv, rv);
}

RM_ALIAS(Alltoallw_init_c)
int PMPI_Alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                          const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                          const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                          const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                          MPI_Request *request)
{
    (void)info;
    coll_vec_t *sv = COLL_VEC_C(sendcounts, sdispls), *rv = COLL_VEC_C(recvcounts, rdispls);
    return nbc_alltoallw("MPI_Alltoallw_init_c", sendbuf, sv, sendtypes, recvbuf, rv, recvtypes,
                         comm, request, 1, 1);
}

RM_ALIAS(Reduce_init)
int PMPI_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    return nbc_reduce("MPI_Reduce_init", RED_REDUCE, sendbuf, recvbuf, count, datatype, op, root,
                      comm, request, 1);
}

RM_ALIAS(Reduce_init_c)
int PMPI_Reduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    return nbc_reduce("MPI_Reduce_init_c", RED_REDUCE, sendbuf, recvbuf, count, datatype, op, root,
                      comm, request, 1);
}

RM_ALIAS(Allreduce_init)
int PMPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    return nbc_reduce("MPI_Allreduce_init", RED_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, 0,
                      comm, request, 1);
}

RM_ALIAS(Allreduce_init_c)
int PMPI_Allreduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                          MPI_Request *request)
{
    (void)info;
    return nbc_reduce("MPI_Allreduce_init_c", RED_ALLREDUCE, sendbuf, recvbuf, count, datatype, op,
                      0, comm, request, 1);
}

RM_ALIAS(Reduce_scatter_block_init)
int PMPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount,
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request)
{
    (void)info;
    return nbc_reduce("MPI_Reduce_scatter_block_init", RED_SCATTER_BLOCK, sendbuf, recvbuf,
                      recvcount, datatype, op, 0, comm, request, 1);
}

RM_ALIAS(Reduce_scatter_block_init_c)
int PMPI_Reduce_scatter_block_init_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                     MPI_Request *request)
{
    (void)info;
    return nbc_reduce("MPI_Reduce_scatter_block_init_c", RED_SCATTER_BLOCK, sendbuf, recvbuf,
                      recvcount, datatype, op, 0, comm, request, 1);
}

RM_ALIAS(Reduce_scatter_init)
int PMPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[],
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                             MPI_Request *request)
{
    (void)info;
    coll_vec_t *rv = COLL_VEC_INT(recvcounts, NULL);
    VEC_CALL(nbc_reduce_scatter("MPI_Reduce_scatter_init", sendbuf, recvbuf, rv, datatype, op, comm,
                                request, 1), rv);
}

RM_ALIAS(Reduce_scatter_init_c)
int PMPI_Reduce_scatter_init_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                               MPI_Request *request)
{
    (void)info;
    coll_vec_t *rv = COLL_VEC_C(recvcounts, NULL);
    return nbc_reduce_scatter("MPI_Reduce_scatter_init_c", sendbuf, recvbuf, rv, datatype, op, comm,
                              request, 1);
}

RM_ALIAS(Scan_init)
int PMPI_Scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    return nbc_reduce("MPI_Scan_init", RED_SCAN, sendbuf, recvbuf, count, datatype, op, 0, comm,
                      request, 1);
}

RM_ALIAS(Scan_init_c)
int PMPI_Scan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    return nbc_reduce("MPI_Scan_init_c", RED_SCAN, sendbuf, recvbuf, count, datatype, op, 0, comm,
                      request, 1);
}

RM_ALIAS(Exscan_init)
int PMPI_Exscan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    return nbc_reduce("MPI_Exscan_init", RED_EXSCAN, sendbuf, recvbuf, count, datatype, op, 0, comm,
                      request, 1);
}

RM_ALIAS(Exscan_init_c)
int PMPI_Exscan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    return nbc_reduce("MPI_Exscan_init_c", RED_EXSCAN, sendbuf, recvbuf, count, datatype, op, 0,
                      comm, request, 1);
}
