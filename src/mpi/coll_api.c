/* Collective bindings: argument checks, then src/coll. Each call has one
 * body in MPI_Count (and MPI_Aint displacements) behind its int and its
 * large-count (_c) entry point; the int forms' arrays are widened by the
 * checks (coll_vec_t, coll_check.h). */
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

static int coll_bcast_any(const char *fn_name_, void *buffer, MPI_Count count,
                          MPI_Datatype datatype, int root, MPI_Comm comm)
{
    MPI_BEGIN_SHARED();
    comm_t *c = NULL;
    dtype_t *dt = NULL;
    CHECK_COMM(c, comm);
    MPI_CHECKED(coll_bcast_checks(fn_name_, c, buffer, count, datatype, root, &dt));
    MPI_CHECK_STATUS(c, comm_is_inter(c) ? coll_inter_bcast(buffer, count, dt, root, c)
                                         : coll_bcast(buffer, count, dt, root, c));
    MPI_END();
}

/* Gather and Gatherv (rv: the v form's counts and displacements). */
static int coll_gather_any(const char *fn_name_, const void *sendbuf, MPI_Count sendcount,
                           MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                           coll_vec_t *rv, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    MPI_BEGIN_SHARED();
    comm_t *c = NULL;
    dtype_t *sdt = NULL, *rdt = NULL;
    CHECK_COMM(c, comm);
    MPI_CHECKED(coll_rooted_checks(fn_name_, c, root, sendbuf, sendcount, sendtype, &sdt, recvbuf,
                                   recvcount, rv, "recvcounts", recvtype, &rdt));
    const MPI_Count *cnt = rv ? rv->counts : NULL;
    const MPI_Aint *dsp = rv ? rv->displs : NULL;
    if (comm_is_inter(c))
        MPI_CHECK_STATUS(c, coll_inter_gatherv(sendbuf, sendcount, sdt, recvbuf, recvcount, cnt,
                                               dsp, rdt, root, c));
    else if (rv)
        MPI_CHECK_STATUS(c, coll_gatherv(sendbuf, sendcount, sdt, recvbuf, cnt, dsp, rdt, root, c));
    else
        MPI_CHECK_STATUS(c, coll_gather(sendbuf, sendcount, sdt, recvbuf, recvcount, rdt, root, c));
    MPI_END();
}

static int coll_scatter_any(const char *fn_name_, const void *sendbuf, MPI_Count sendcount,
                            coll_vec_t *sv, MPI_Datatype sendtype, void *recvbuf,
                            MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    MPI_BEGIN_SHARED();
    comm_t *c = NULL;
    dtype_t *sdt = NULL, *rdt = NULL;
    CHECK_COMM(c, comm);
    MPI_CHECKED(coll_rooted_checks(fn_name_, c, root, recvbuf, recvcount, recvtype, &rdt, sendbuf,
                                   sendcount, sv, "sendcounts", sendtype, &sdt));
    const MPI_Count *cnt = sv ? sv->counts : NULL;
    const MPI_Aint *dsp = sv ? sv->displs : NULL;
    if (comm_is_inter(c))
        MPI_CHECK_STATUS(c, coll_inter_scatterv(sendbuf, sendcount, cnt, dsp, sdt, recvbuf,
                                                recvcount, rdt, root, c));
    else if (sv)
        MPI_CHECK_STATUS(c, coll_scatterv(sendbuf, cnt, dsp, sdt, recvbuf, recvcount, rdt, root, c));
    else
        MPI_CHECK_STATUS(c, coll_scatter(sendbuf, sendcount, sdt, recvbuf, recvcount, rdt, root, c));
    MPI_END();
}

static int coll_allgather_any(const char *fn_name_, const void *sendbuf, MPI_Count sendcount,
                              MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                              coll_vec_t *rv, MPI_Datatype recvtype, MPI_Comm comm)
{
    MPI_BEGIN_SHARED();
    comm_t *c = NULL;
    dtype_t *sdt = NULL, *rdt;
    CHECK_COMM(c, comm);
    MPI_CHECKED(coll_allgather_checks(fn_name_, c, sendbuf, sendcount, sendtype, &sdt, recvbuf,
                                      recvcount, rv, recvtype, &rdt));
    const MPI_Count *cnt = rv ? rv->counts : NULL;
    const MPI_Aint *dsp = rv ? rv->displs : NULL;
    if (comm_is_inter(c))
        MPI_CHECK_STATUS(c, coll_inter_alltoallv(sendbuf, sendcount, NULL, NULL, sdt, recvbuf,
                                                 recvcount, cnt, dsp, rdt, 0, c));
    else if (rv)
        MPI_CHECK_STATUS(c, coll_allgatherv(sendbuf, sendcount, sdt, recvbuf, cnt, dsp, rdt, c));
    else
        MPI_CHECK_STATUS(c, coll_allgather(sendbuf, sendcount, sdt, recvbuf, recvcount, rdt, c));
    MPI_END();
}

static int coll_alltoall_any(const char *fn_name_, const void *sendbuf, MPI_Count sendcount,
                             coll_vec_t *sv, MPI_Datatype sendtype, void *recvbuf,
                             MPI_Count recvcount, coll_vec_t *rv, MPI_Datatype recvtype,
                             MPI_Comm comm)
{
    MPI_BEGIN_SHARED();
    comm_t *c = NULL;
    dtype_t *sdt = NULL, *rdt;
    CHECK_COMM(c, comm);
    MPI_CHECKED(coll_alltoall_checks(fn_name_, c, sendbuf, sendcount, sv, sendtype, &sdt, recvbuf,
                                     recvcount, rv, recvtype, &rdt));
    if (comm_is_inter(c))
        MPI_CHECK_STATUS(c, coll_inter_alltoallv(sendbuf, sendcount, sv ? sv->counts : NULL,
                                                 sv ? sv->displs : NULL, sdt, recvbuf, recvcount,
                                                 rv ? rv->counts : NULL, rv ? rv->displs : NULL,
                                                 rdt, 1, c));
    else if (rv)
        MPI_CHECK_STATUS(c, coll_alltoallv(sendbuf, sv ? sv->counts : NULL, sv ? sv->displs : NULL,
                                           sdt, recvbuf, rv->counts, rv->displs, rdt, c));
    else
        MPI_CHECK_STATUS(c, coll_alltoall(sendbuf, sendcount, sdt, recvbuf, recvcount, rdt, c));
    MPI_END();
}

/* The reductions with one count: which one by `kind`. */
static int coll_reduce_any(const char *fn_name_, int kind, const void *sendbuf, void *recvbuf,
                           MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root,
                           MPI_Comm comm)
{
    MPI_BEGIN_SHARED();
    comm_t *c = NULL;
    dtype_t *dt = NULL;
    op_t *o = NULL;
    CHECK_COMM(c, comm);
    int rooted = kind == RED_REDUCE ? 1 : kind == RED_SCAN || kind == RED_EXSCAN ? 2 : 0;
    MPI_CHECKED(coll_reduce_checks(fn_name_, c, sendbuf, recvbuf, count, datatype, op, rooted,
                                   root, &dt, &o));
    int inter = comm_is_inter(c);
    rm_status_t st;
    switch (kind) {
    case RED_REDUCE:
        st = inter ? coll_inter_reduce(sendbuf, recvbuf, count, dt, o, root, c)
                   : coll_reduce(sendbuf, recvbuf, count, dt, o, root, c);
        break;
    case RED_ALLREDUCE:
        st = inter ? coll_inter_allreduce(sendbuf, recvbuf, count, dt, o, c)
                   : coll_allreduce(sendbuf, recvbuf, count, dt, o, c);
        break;
    case RED_SCAN:
        st = coll_scan(sendbuf, recvbuf, count, dt, o, c);
        break;
    case RED_EXSCAN:
        st = coll_exscan(sendbuf, recvbuf, count, dt, o, c);
        break;
    default:
        st = inter ? coll_inter_reduce_scatter(sendbuf, recvbuf, count, NULL, dt, o, c)
                   : coll_reduce_scatter_block(sendbuf, recvbuf, count, dt, o, c);
        break;
    }
    MPI_CHECK_STATUS(c, st);
    MPI_END();
}

static int coll_reduce_scatter_any(const char *fn_name_, const void *sendbuf, void *recvbuf,
                                   coll_vec_t *rv, MPI_Datatype datatype, MPI_Op op,
                                   MPI_Comm comm)
{
    MPI_BEGIN_SHARED();
    comm_t *c = NULL;
    dtype_t *dt = NULL;
    op_t *o = NULL;
    CHECK_COMM(c, comm);
    MPI_CHECKED(coll_reduce_scatter_checks(fn_name_, c, sendbuf, rv, datatype, op, &dt, &o));
    MPI_CHECK_STATUS(c, comm_is_inter(c)
                            ? coll_inter_reduce_scatter(sendbuf, recvbuf, 0, rv->counts, dt, o, c)
                            : coll_reduce_scatter(sendbuf, recvbuf, rv->counts, dt, o, c));
    MPI_END();
}

/* ---- the public forms: int counts, and large counts (_c, MPI-4.x) ---------- */

RM_ALIAS(Bcast)
int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    return coll_bcast_any("MPI_Bcast", buffer, count, datatype, root, comm);
}

RM_ALIAS(Bcast_c)
int PMPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    return coll_bcast_any("MPI_Bcast_c", buffer, count, datatype, root, comm);
}

RM_ALIAS(Gather)
int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return coll_gather_any("MPI_Gather", sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL,
                           recvtype, root, comm);
}

RM_ALIAS(Gather_c)
int PMPI_Gather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return coll_gather_any("MPI_Gather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL,
                           recvtype, root, comm);
}

RM_ALIAS(Gatherv)
int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm)
{
    coll_vec_t *rv = COLL_VEC_INT(recvcounts, displs);
    VEC_CALL(coll_gather_any("MPI_Gatherv", sendbuf, sendcount, sendtype, recvbuf, 0, rv,
                             recvtype, root, comm), rv);
}

RM_ALIAS(Gatherv_c)
int PMPI_Gatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                   int root, MPI_Comm comm)
{
    return coll_gather_any("MPI_Gatherv_c", sendbuf, sendcount, sendtype, recvbuf, 0,
                           COLL_VEC_C(recvcounts, displs), recvtype, root, comm);
}

RM_ALIAS(Scatter)
int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return coll_scatter_any("MPI_Scatter", sendbuf, sendcount, NULL, sendtype, recvbuf, recvcount,
                            recvtype, root, comm);
}

RM_ALIAS(Scatter_c)
int PMPI_Scatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return coll_scatter_any("MPI_Scatter_c", sendbuf, sendcount, NULL, sendtype, recvbuf,
                            recvcount, recvtype, root, comm);
}

RM_ALIAS(Scatterv)
int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm)
{
    coll_vec_t *sv = COLL_VEC_INT(sendcounts, displs);
    VEC_CALL(coll_scatter_any("MPI_Scatterv", sendbuf, 0, sv, sendtype, recvbuf, recvcount,
                              recvtype, root, comm), sv);
}

RM_ALIAS(Scatterv_c)
int PMPI_Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return coll_scatter_any("MPI_Scatterv_c", sendbuf, 0, COLL_VEC_C(sendcounts, displs), sendtype,
                            recvbuf, recvcount, recvtype, root, comm);
}

RM_ALIAS(Allgather)
int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return coll_allgather_any("MPI_Allgather", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                              NULL, recvtype, comm);
}

RM_ALIAS(Allgather_c)
int PMPI_Allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                     void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return coll_allgather_any("MPI_Allgather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                              NULL, recvtype, comm);
}

RM_ALIAS(Allgatherv)
int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    coll_vec_t *rv = COLL_VEC_INT(recvcounts, displs);
    VEC_CALL(coll_allgather_any("MPI_Allgatherv", sendbuf, sendcount, sendtype, recvbuf, 0, rv,
                                recvtype, comm), rv);
}

RM_ALIAS(Allgatherv_c)
int PMPI_Allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                      MPI_Datatype recvtype, MPI_Comm comm)
{
    return coll_allgather_any("MPI_Allgatherv_c", sendbuf, sendcount, sendtype, recvbuf, 0,
                              COLL_VEC_C(recvcounts, displs), recvtype, comm);
}

RM_ALIAS(Alltoall)
int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return coll_alltoall_any("MPI_Alltoall", sendbuf, sendcount, NULL, sendtype, recvbuf,
                             recvcount, NULL, recvtype, comm);
}

RM_ALIAS(Alltoall_c)
int PMPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                    void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return coll_alltoall_any("MPI_Alltoall_c", sendbuf, sendcount, NULL, sendtype, recvbuf,
                             recvcount, NULL, recvtype, comm);
}

RM_ALIAS(Alltoallv)
int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                   MPI_Datatype recvtype, MPI_Comm comm)
{
    coll_vec_t *sv = COLL_VEC_INT(sendcounts, sdispls), *rv = COLL_VEC_INT(recvcounts, rdispls);
    VEC_CALL(coll_alltoall_any("MPI_Alltoallv", sendbuf, 0, sv, sendtype, recvbuf, 0, rv,
                               recvtype, comm), sv, rv);
}

RM_ALIAS(Alltoallv_c)
int PMPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return coll_alltoall_any("MPI_Alltoallv_c", sendbuf, 0, COLL_VEC_C(sendcounts, sdispls),
                             sendtype, recvbuf, 0, COLL_VEC_C(recvcounts, rdispls), recvtype,
                             comm);
}

RM_ALIAS(Reduce)
int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm)
{
    return coll_reduce_any("MPI_Reduce", RED_REDUCE, sendbuf, recvbuf, count, datatype, op, root,
                           comm);
}

RM_ALIAS(Reduce_c)
int PMPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, int root, MPI_Comm comm)
{
    return coll_reduce_any("MPI_Reduce_c", RED_REDUCE, sendbuf, recvbuf, count, datatype, op, root,
                           comm);
}

RM_ALIAS(Allreduce)
int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm)
{
    return coll_reduce_any("MPI_Allreduce", RED_ALLREDUCE, sendbuf, recvbuf, count, datatype, op,
                           0, comm);
}

RM_ALIAS(Allreduce_c)
int PMPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm)
{
    return coll_reduce_any("MPI_Allreduce_c", RED_ALLREDUCE, sendbuf, recvbuf, count, datatype, op,
                           0, comm);
}

RM_ALIAS(Scan)
int PMPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm)
{
    return coll_reduce_any("MPI_Scan", RED_SCAN, sendbuf, recvbuf, count, datatype, op, 0, comm);
}

RM_ALIAS(Scan_c)
int PMPI_Scan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                MPI_Op op, MPI_Comm comm)
{
    return coll_reduce_any("MPI_Scan_c", RED_SCAN, sendbuf, recvbuf, count, datatype, op, 0, comm);
}

RM_ALIAS(Exscan)
int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm)
{
    return coll_reduce_any("MPI_Exscan", RED_EXSCAN, sendbuf, recvbuf, count, datatype, op, 0,
                           comm);
}

RM_ALIAS(Exscan_c)
int PMPI_Exscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm)
{
    return coll_reduce_any("MPI_Exscan_c", RED_EXSCAN, sendbuf, recvbuf, count, datatype, op, 0,
                           comm);
}

RM_ALIAS(Reduce_scatter_block)
int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return coll_reduce_any("MPI_Reduce_scatter_block", RED_SCATTER_BLOCK, sendbuf, recvbuf,
                           recvcount, datatype, op, 0, comm);
}

RM_ALIAS(Reduce_scatter_block_c)
int PMPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return coll_reduce_any("MPI_Reduce_scatter_block_c", RED_SCATTER_BLOCK, sendbuf, recvbuf,
                           recvcount, datatype, op, 0, comm);
}

RM_ALIAS(Reduce_scatter)
int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    coll_vec_t *rv = COLL_VEC_INT(recvcounts, NULL);
    VEC_CALL(coll_reduce_scatter_any("MPI_Reduce_scatter", sendbuf, recvbuf, rv, datatype, op,
                                     comm), rv);
}

RM_ALIAS(Reduce_scatter_c)
int PMPI_Reduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return coll_reduce_scatter_any("MPI_Reduce_scatter_c", sendbuf, recvbuf,
                                   COLL_VEC_C(recvcounts, NULL), datatype, op, comm);
}
