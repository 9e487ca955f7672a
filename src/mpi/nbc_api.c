/* Nonblocking collective bindings (MPI-3.1 §5.12), on intra- and
 * intercommunicators: the checks of the blocking forms, then a schedule
 * (src/coll/sched.h) started as a request. MPI_Alltoallw (blocking) lives
 * here too, as it has no other implementation than its schedule. */
#include "coll/build.h"
#include "mpi/coll_check.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The schedule's outcome, reported when the application completes it. */
static int nbc_query(void *state, MPI_Status *status)
{
    (void)status;
    return mpi_err_from_status((rm_status_t)(intptr_t)state);
}

static int pcoll_query(void *state, MPI_Status *status)
{
    (void)status;
    return mpi_err_from_status(coll_sched_status(state));
}

static int pcoll_free(void *state)
{
    coll_sched_release(state);
    return MPI_SUCCESS;
}

static rm_status_t nbc_start(coll_sched_t *s, request_t **out, int persist)
{
    rm_status_t st = persist ? coll_sched_persist(s, out) : coll_sched_start(s, out);
    if (st >= 0) {
        (*out)->gq = persist ? pcoll_query : nbc_query;
        (*out)->gf = persist ? pcoll_free : NULL;
    }
    return st;
}

#define NBC_NEW(c, s)                                                                \
    do {                                                                             \
        if (!((s) = coll_sched_new(c)))                                              \
            MPI_FAIL((c), MPI_ERR_NO_MEM, "out of memory");                          \
    } while (0)

/* Start the schedule, or keep it behind a persistent request (`persist`). */
#define NBC_START(c, s, request)                                                     \
    do {                                                                             \
        request_t *r_;                                                               \
        MPI_CHECK_STATUS((c), nbc_start((s), &r_, persist));                         \
        *(request) = r_->handle;                                                     \
    } while (0)

#define CHECK_NBC_COMM(c, comm, request)                                             \
    do {                                                                             \
        CHECK_COMM(c, comm);                                                         \
        CHECK_COLL_FT(c);                                                            \
        CHECK_ARG(c, request, "request is NULL");                                    \
    } while (0)

static int nbc_ibarrier(const char *fn_name_, MPI_Comm comm, MPI_Request *request, int persist)
{
    MPI_BEGIN_SHARED();
    comm_t *c = NULL;
    coll_sched_t *s;
    CHECK_NBC_COMM(c, comm, request);
    NBC_NEW(c, s);
    if (comm_is_inter(c))
        coll_build_inter_barrier(s, c);
    else
        coll_build_barrier(s, c);
    NBC_START(c, s, request);
    MPI_END();
}

static int nbc_ibcast(const char *fn_name_, void *buffer, int count, MPI_Datatype datatype,
                      int root, MPI_Comm comm, MPI_Request *request, int persist)
{
    MPI_BEGIN_SHARED();
    comm_t *c = NULL;
    dtype_t *dt = NULL;
    coll_sched_t *s;
    CHECK_NBC_COMM(c, comm, request);
    MPI_CHECKED(coll_bcast_checks(fn_name_, c, buffer, count, datatype, root, &dt));
    NBC_NEW(c, s);
    if (comm_is_inter(c))
        coll_build_inter_bcast(s, buffer, count, dt, root, c);
    else
        coll_build_bcast(s, buffer, count, dt, root, c);
    NBC_START(c, s, request);
    MPI_END();
}

/* Igather/Igatherv: rcounts NULL for the regular form. */
static int nbc_gather(const char *fn_name_, const void *sendbuf, int sendcount,
                      MPI_Datatype sendtype, void *recvbuf, int recvcount, const int *recvcounts,
                      const int *displs, MPI_Datatype recvtype, int root, MPI_Comm comm,
                      MPI_Request *request, int v, int persist)
{
    MPI_BEGIN_SHARED();
    comm_t *c = NULL;
    dtype_t *sdt = NULL, *rdt = NULL;
    coll_sched_t *s;
    CHECK_NBC_COMM(c, comm, request);
    MPI_CHECKED(coll_rooted_checks(fn_name_, c, v, root, sendbuf, sendcount, sendtype, &sdt, recvbuf,
                                   recvcount, recvcounts, displs, recvtype, &rdt));
    NBC_NEW(c, s);
    if (comm_is_inter(c))
        coll_build_inter_gatherv(s, sendbuf, sendcount, sdt, recvbuf, recvcount,
                                 v ? recvcounts : NULL, v ? displs : NULL, rdt, root, c);
    else if (v)
        coll_build_gatherv(s, sendbuf, sendcount, sdt, recvbuf, recvcount, recvcounts, displs, rdt,
                           root, c);
    else
        coll_build_gather(s, sendbuf, sendcount, sdt, recvbuf, recvcount, rdt, root, c);
    NBC_START(c, s, request);
    MPI_END();
}

static int nbc_scatter(const char *fn_name_, const void *sendbuf, int sendcount,
                       const int *sendcounts, const int *displs, MPI_Datatype sendtype,
                       void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm, MPI_Request *request, int v, int persist)
{
    MPI_BEGIN_SHARED();
    comm_t *c = NULL;
    dtype_t *sdt = NULL, *rdt = NULL;
    coll_sched_t *s;
    CHECK_NBC_COMM(c, comm, request);
    MPI_CHECKED(coll_rooted_checks(fn_name_, c, v, root, recvbuf, recvcount, recvtype, &rdt, sendbuf,
                                   sendcount, sendcounts, displs, sendtype, &sdt));
    NBC_NEW(c, s);
    if (comm_is_inter(c))
        coll_build_inter_scatterv(s, sendbuf, sendcount, v ? sendcounts : NULL, v ? displs : NULL,
                                  sdt, recvbuf, recvcount, rdt, root, c);
    else if (v)
        coll_build_scatterv(s, sendbuf, sendcount, sendcounts, displs, sdt, recvbuf, recvcount, rdt,
                            root, c);
    else
        coll_build_scatter(s, sendbuf, sendcount, sdt, recvbuf, recvcount, rdt, root, c);
    NBC_START(c, s, request);
    MPI_END();
}

static int nbc_allgather(const char *fn_name_, const void *sendbuf, int sendcount,
                         MPI_Datatype sendtype, void *recvbuf, int recvcount,
                         const int *recvcounts, const int *displs, MPI_Datatype recvtype,
                         MPI_Comm comm, MPI_Request *request, int v, int persist)
{
    MPI_BEGIN_SHARED();
    comm_t *c = NULL;
    dtype_t *sdt = NULL, *rdt = NULL;
    coll_sched_t *s;
    CHECK_NBC_COMM(c, comm, request);
    MPI_CHECKED(coll_allgather_checks(fn_name_, c, v, sendbuf, sendcount, sendtype, &sdt, recvbuf,
                                      recvcount, recvcounts, displs, recvtype, &rdt));
    NBC_NEW(c, s);
    if (comm_is_inter(c)) {
        /* the whole send buffer to every remote process */
        int n = comm_peer_size(c);
        MPI_Aint *zeros = coll_sched_bytes(s, sizeof *zeros * (size_t)n);
        if (zeros)
            memset(zeros, 0, sizeof *zeros * (size_t)n);
        coll_blocks_t sb = {.n = n, .count = sendcount, .bdispls = zeros, .dt = sdt};
        coll_blocks_t rb = {.n = n, .count = recvcount, .counts = v ? recvcounts : NULL,
                            .displs = v ? displs : NULL, .dt = rdt};
        if (zeros)
            coll_build_exchange(s, sendbuf, &sb, recvbuf, &rb);
    } else {
        coll_build_allgatherv(s, sendbuf, sendcount, sdt, recvbuf, recvcount,
                              v ? recvcounts : NULL, v ? displs : NULL, rdt, c);
    }
    NBC_START(c, s, request);
    MPI_END();
}

static int nbc_ialltoall(const char *fn_name_, const void *sendbuf, int sendcount,
                         MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                         MPI_Comm comm, MPI_Request *request, int persist)
{
    MPI_BEGIN_SHARED();
    comm_t *c = NULL;
    dtype_t *sdt = NULL, *rdt = NULL;
    coll_sched_t *s;
    CHECK_NBC_COMM(c, comm, request);
    MPI_CHECKED(coll_alltoall_checks(fn_name_, c, 0, sendbuf, sendcount, NULL, NULL, sendtype, &sdt,
                                     recvbuf, recvcount, NULL, NULL, recvtype, &rdt));
    NBC_NEW(c, s);
    coll_blocks_t sb = {.n = comm_peer_size(c), .count = sendcount, .dt = sdt};
    coll_blocks_t rb = {.n = comm_peer_size(c), .count = recvcount, .dt = rdt};
    coll_build_alltoall(s, sendbuf, &sb, recvbuf, &rb, c);
    NBC_START(c, s, request);
    MPI_END();
}

static int nbc_ialltoallv(const char *fn_name_, const void *sendbuf, const int sendcounts[],
                          const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                          const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                          MPI_Comm comm, MPI_Request *request, int persist)
{
    MPI_BEGIN_SHARED();
    comm_t *c = NULL;
    dtype_t *sdt = NULL, *rdt = NULL;
    coll_sched_t *s;
    CHECK_NBC_COMM(c, comm, request);
    MPI_CHECKED(coll_alltoall_checks(fn_name_, c, 1, sendbuf, 0, sendcounts, sdispls, sendtype, &sdt,
                                     recvbuf, 0, recvcounts, rdispls, recvtype, &rdt));
    NBC_NEW(c, s);
    coll_blocks_t sb = {.n = comm_peer_size(c), .counts = sendcounts, .displs = sdispls, .dt = sdt};
    coll_blocks_t rb = {.n = comm_peer_size(c), .counts = recvcounts, .displs = rdispls, .dt = rdt};
    coll_build_alltoall(s, sendbuf, &sb, recvbuf, &rb, c);
    NBC_START(c, s, request);
    MPI_END();
}

/* ---- reductions -------------------------------------------------------- */

#define NBC_REDUCE_BEGIN(rooted, root)                                                \
    MPI_BEGIN_SHARED();                                                              \
    comm_t *c = NULL;                                                                \
    dtype_t *dt = NULL;                                                              \
    op_t *o = NULL;                                                                  \
    coll_sched_t *s;                                                                 \
    CHECK_NBC_COMM(c, comm, request);                                                \
    MPI_CHECKED(coll_reduce_checks(fn_name_, c, sendbuf, recvbuf, count, datatype, op, rooted, \
                                   root, &dt, &o));                                  \
    NBC_NEW(c, s)

static int nbc_ireduce(const char *fn_name_, const void *sendbuf, void *recvbuf, int count,
                       MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                       MPI_Request *request, int persist)
{
    NBC_REDUCE_BEGIN(1, root);
    if (comm_is_inter(c))
        coll_build_inter_reduce(s, sendbuf, recvbuf, count, dt, o, root, c);
    else
        coll_build_reduce(s, sendbuf, recvbuf, count, dt, o, root, c);
    NBC_START(c, s, request);
    MPI_END();
}

static int nbc_iallreduce(const char *fn_name_, const void *sendbuf, void *recvbuf, int count,
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request,
                          int persist)
{
    NBC_REDUCE_BEGIN(0, 0);
    if (comm_is_inter(c))
        coll_build_inter_allreduce(s, sendbuf, recvbuf, count, dt, o, c);
    else
        coll_build_allreduce(s, sendbuf, recvbuf, count, dt, o, c);
    NBC_START(c, s, request);
    MPI_END();
}

static int nbc_iscan(const char *fn_name_, const void *sendbuf, void *recvbuf, int count,
                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request,
                     int persist)
{
    NBC_REDUCE_BEGIN(2, 0);
    coll_build_scan(s, sendbuf, recvbuf, count, dt, o, 0, c);
    NBC_START(c, s, request);
    MPI_END();
}

static int nbc_iexscan(const char *fn_name_, const void *sendbuf, void *recvbuf, int count,
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request,
                       int persist)
{
    NBC_REDUCE_BEGIN(2, 0);
    coll_build_scan(s, sendbuf, recvbuf, count, dt, o, 1, c);
    NBC_START(c, s, request);
    MPI_END();
}

static int nbc_ireduce_scatter_block(const char *fn_name_, const void *sendbuf, void *recvbuf,
                                     int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                     MPI_Request *request, int persist)
{
    int count = recvcount;
    NBC_REDUCE_BEGIN(0, 0);
    if (comm_is_inter(c))
        coll_build_inter_reduce_scatter(s, sendbuf, recvbuf, count, NULL, dt, o, c);
    else
        coll_build_reduce_scatter(s, sendbuf, recvbuf, count, NULL, dt, o, c);
    NBC_START(c, s, request);
    MPI_END();
}

static int nbc_ireduce_scatter(const char *fn_name_, const void *sendbuf, void *recvbuf,
                               const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                               MPI_Comm comm, MPI_Request *request, int persist)
{
    MPI_BEGIN_SHARED();
    comm_t *c = NULL;
    dtype_t *dt = NULL;
    op_t *o = NULL;
    coll_sched_t *s;
    CHECK_NBC_COMM(c, comm, request);
    MPI_CHECKED(coll_reduce_scatter_checks(fn_name_, c, sendbuf, recvcounts, datatype, op, &dt, &o));
    NBC_NEW(c, s);
    if (comm_is_inter(c))
        coll_build_inter_reduce_scatter(s, sendbuf, recvbuf, 0, recvcounts, dt, o, c);
    else
        coll_build_reduce_scatter(s, sendbuf, recvbuf, 0, recvcounts, dt, o, c);
    NBC_START(c, s, request);
    MPI_END();
}

/* ---- all-to-all with a type per block ---------------------------------- */

/* MPI_Alltoallw (nb 0; intercommunicators too) and MPI_Ialltoallw (nb 1). */
static int coll_alltoallw(const char *fn_name_, const void *sendbuf, const int *sendcounts,
                          const int *sdispls, const MPI_Datatype *sendtypes, void *recvbuf,
                          const int *recvcounts, const int *rdispls,
                          const MPI_Datatype *recvtypes, MPI_Comm comm, MPI_Request *request,
                          int nb, int persist)
{
    MPI_BEGIN_SHARED();
    comm_t *c = NULL;
    coll_sched_t *s = NULL;
    dtype_t **dts = NULL;
    MPI_Aint *dsp = NULL;
    if (nb)
        CHECK_NBC_COMM(c, comm, request);
    else
        CHECK_COMM(c, comm);
    CHECK_COLL_FT(c);
    CHECK_NOT_IN_PLACE(c, sendbuf);
    int n = comm_peer_size(c);
    if (!(dts = malloc(sizeof *dts * 2 * (size_t)n)) || !(dsp = malloc(sizeof *dsp * 2 * (size_t)n)))
        MPI_FAIL(c, MPI_ERR_NO_MEM, "out of memory");
    if (sendbuf != MPI_IN_PLACE) {
        CHECK_COUNTS(c, sendcounts, n);
        CHECK_ARG(c, sdispls && sendtypes, "sdispls or sendtypes is NULL");
        for (int i = 0; i < n; i++) {
            CHECK_DTYPE(c, dts[i], sendtypes[i]);
            dsp[i] = sdispls[i];
        }
    }
    CHECK_COUNTS(c, recvcounts, n);
    CHECK_ARG(c, rdispls && recvtypes, "rdispls or recvtypes is NULL");
    for (int i = 0; i < n; i++) {
        CHECK_DTYPE(c, dts[n + i], recvtypes[i]);
        dsp[n + i] = rdispls[i];
    }
    coll_blocks_t sb = {.n = n, .counts = sendcounts, .bdispls = dsp, .dts = dts};
    coll_blocks_t rb = {.n = n, .counts = recvcounts, .bdispls = dsp + n, .dts = dts + n};
    NBC_NEW(c, s);
    coll_build_alltoall(s, sendbuf, &sb, recvbuf, &rb, c);
    if (nb)
        NBC_START(c, s, request);
    else
        MPI_CHECK_STATUS(c, coll_sched_run(s));
    goto fn_exit;
fn_exit:
    free(dts);
    free(dsp);
    rm_unlock();
    return err;
}

/* ---- the public forms: nonblocking, and persistent (MPI-4.0; the info
 * argument is accepted and not examined) ---------------------------------- */

RM_ALIAS(Alltoallw)
int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    return coll_alltoallw("MPI_Alltoallw", sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                          recvcounts, rdispls, recvtypes, comm, NULL, 0, 0);
}

RM_ALIAS(Ibarrier)
int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    return nbc_ibarrier("MPI_Ibarrier", comm, request, 0);
}

RM_ALIAS(Barrier_init)
int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    return nbc_ibarrier("MPI_Barrier_init", comm, request, 1);
}

RM_ALIAS(Ibcast)
int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                MPI_Request *request)
{
    return nbc_ibcast("MPI_Ibcast", buffer, count, datatype, root, comm, request, 0);
}

RM_ALIAS(Bcast_init)
int PMPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                    MPI_Info info, MPI_Request *request)
{
    (void)info;
    return nbc_ibcast("MPI_Bcast_init", buffer, count, datatype, root, comm, request, 1);
}

RM_ALIAS(Igather)
int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request)
{
    return nbc_gather("MPI_Igather", sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL,
        recvtype, root, comm, request, 0, 0);
}

RM_ALIAS(Gather_init)
int PMPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request *request)
{
    (void)info;
    return nbc_gather("MPI_Gather_init", sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL,
        NULL, recvtype, root, comm, request, 0, 1);
}

RM_ALIAS(Igatherv)
int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                  MPI_Comm comm, MPI_Request *request)
{
    return nbc_gather("MPI_Igatherv", sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs,
        recvtype, root, comm, request, 1, 0);
}

RM_ALIAS(Gatherv_init)
int PMPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                      MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    return nbc_gather("MPI_Gatherv_init", sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts,
        displs, recvtype, root, comm, request, 1, 1);
}

RM_ALIAS(Iscatter)
int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    return nbc_scatter("MPI_Iscatter", sendbuf, sendcount, NULL, NULL, sendtype, recvbuf,
        recvcount, recvtype, root, comm, request, 0, 0);
}

RM_ALIAS(Scatter_init)
int PMPI_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                      MPI_Request *request)
{
    (void)info;
    return nbc_scatter("MPI_Scatter_init", sendbuf, sendcount, NULL, NULL, sendtype, recvbuf,
        recvcount, recvtype, root, comm, request, 0, 1);
}

RM_ALIAS(Iscatterv)
int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                   MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm, MPI_Request *request)
{
    return nbc_scatter("MPI_Iscatterv", sendbuf, 0, sendcounts, displs, sendtype, recvbuf,
        recvcount, recvtype, root, comm, request, 1, 0);
}

RM_ALIAS(Scatterv_init)
int PMPI_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[],
                       MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                       int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    return nbc_scatter("MPI_Scatterv_init", sendbuf, 0, sendcounts, displs, sendtype, recvbuf,
        recvcount, recvtype, root, comm, request, 1, 1);
}

RM_ALIAS(Iallgather)
int PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return nbc_allgather("MPI_Iallgather", sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL,
        NULL, recvtype, comm, request, 0, 0);
}

RM_ALIAS(Allgather_init)
int PMPI_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request)
{
    (void)info;
    return nbc_allgather("MPI_Allgather_init", sendbuf, sendcount, sendtype, recvbuf, recvcount,
        NULL, NULL, recvtype, comm, request, 0, 1);
}

RM_ALIAS(Iallgatherv)
int PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                     MPI_Comm comm, MPI_Request *request)
{
    return nbc_allgather("MPI_Iallgatherv", sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts,
        displs, recvtype, comm, request, 1, 0);
}

RM_ALIAS(Allgatherv_init)
int PMPI_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                         MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    return nbc_allgather("MPI_Allgatherv_init", sendbuf, sendcount, sendtype, recvbuf, 0,
        recvcounts, displs, recvtype, comm, request, 1, 1);
}

RM_ALIAS(Ialltoall)
int PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return nbc_ialltoall("MPI_Ialltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount,
        recvtype, comm, request, 0);
}

RM_ALIAS(Alltoall_init)
int PMPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request)
{
    (void)info;
    return nbc_ialltoall("MPI_Alltoall_init", sendbuf, sendcount, sendtype, recvbuf, recvcount,
        recvtype, comm, request, 1);
}

RM_ALIAS(Ialltoallv)
int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request *request)
{
    return nbc_ialltoallv("MPI_Ialltoallv", sendbuf, sendcounts, sdispls, sendtype, recvbuf,
        recvcounts, rdispls, recvtype, comm, request, 0);
}

RM_ALIAS(Alltoallv_init)
int PMPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request)
{
    (void)info;
    return nbc_ialltoallv("MPI_Alltoallv_init", sendbuf, sendcounts, sdispls, sendtype, recvbuf,
        recvcounts, rdispls, recvtype, comm, request, 1);
}

RM_ALIAS(Ialltoallw)
int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                    const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                    MPI_Request *request)
{
    return coll_alltoallw("MPI_Ialltoallw", sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
        recvcounts, rdispls, recvtypes, comm, request, 1, 0);
}

RM_ALIAS(Alltoallw_init)
int PMPI_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                        const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                        MPI_Info info, MPI_Request *request)
{
    (void)info;
    return coll_alltoallw("MPI_Alltoallw_init", sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
        recvcounts, rdispls, recvtypes, comm, request, 1, 1);
}

RM_ALIAS(Ireduce)
int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 int root, MPI_Comm comm, MPI_Request *request)
{
    return nbc_ireduce("MPI_Ireduce", sendbuf, recvbuf, count, datatype, op, root, comm, request,
        0);
}

RM_ALIAS(Reduce_init)
int PMPI_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    return nbc_ireduce("MPI_Reduce_init", sendbuf, recvbuf, count, datatype, op, root, comm,
        request, 1);
}

RM_ALIAS(Iallreduce)
int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                    MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return nbc_iallreduce("MPI_Iallreduce", sendbuf, recvbuf, count, datatype, op, comm, request,
        0);
}

RM_ALIAS(Allreduce_init)
int PMPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    return nbc_iallreduce("MPI_Allreduce_init", sendbuf, recvbuf, count, datatype, op, comm,
        request, 1);
}

RM_ALIAS(Ireduce_scatter_block)
int PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                               MPI_Request *request)
{
    return nbc_ireduce_scatter_block("MPI_Ireduce_scatter_block", sendbuf, recvbuf, recvcount,
        datatype, op, comm, request, 0);
}

RM_ALIAS(Reduce_scatter_block_init)
int PMPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount,
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request)
{
    (void)info;
    return nbc_ireduce_scatter_block("MPI_Reduce_scatter_block_init", sendbuf, recvbuf, recvcount,
        datatype, op, comm, request, 1);
}

RM_ALIAS(Ireduce_scatter)
int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return nbc_ireduce_scatter("MPI_Ireduce_scatter", sendbuf, recvbuf, recvcounts, datatype, op,
        comm, request, 0);
}

RM_ALIAS(Reduce_scatter_init)
int PMPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[],
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                             MPI_Request *request)
{
    (void)info;
    return nbc_ireduce_scatter("MPI_Reduce_scatter_init", sendbuf, recvbuf, recvcounts, datatype,
        op, comm, request, 1);
}

RM_ALIAS(Iscan)
int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm, MPI_Request *request)
{
    return nbc_iscan("MPI_Iscan", sendbuf, recvbuf, count, datatype, op, comm, request, 0);
}

RM_ALIAS(Scan_init)
int PMPI_Scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    return nbc_iscan("MPI_Scan_init", sendbuf, recvbuf, count, datatype, op, comm, request, 1);
}

RM_ALIAS(Iexscan)
int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 MPI_Comm comm, MPI_Request *request)
{
    return nbc_iexscan("MPI_Iexscan", sendbuf, recvbuf, count, datatype, op, comm, request, 0);
}

RM_ALIAS(Exscan_init)
int PMPI_Exscan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    return nbc_iexscan("MPI_Exscan_init", sendbuf, recvbuf, count, datatype, op, comm, request,
        1);
}
