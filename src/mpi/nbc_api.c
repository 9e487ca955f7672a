/* Nonblocking collective bindings (MPI-3.1 §5.12), on intra- and
 * intercommunicators: the checks of the blocking forms, then a schedule
 * (src/coll/sched.h) started as a request, or kept behind a persistent one
 * (the MPI-4.0 persistent forms, pcoll_api.c). MPI_Alltoallw (blocking)
 * lives here too, as it has no other implementation than its schedule.
 * One body per call in MPI_Count behind the int and the large-count (_c)
 * forms. */
#include "coll/build.h"
#include "mpi/nbc.h"

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
        CHECK_ARG(c, request, "request is NULL");                                    \
    } while (0)


int nbc_ibarrier(const char *fn_name_, MPI_Comm comm, MPI_Request *request, int persist)
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

int nbc_ibcast(const char *fn_name_, void *buffer, MPI_Count count, MPI_Datatype datatype,
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

int nbc_gather(const char *fn_name_, const void *sendbuf, MPI_Count sendcount,
               MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, coll_vec_t *rv,
               MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request, int persist)
{
    MPI_BEGIN_SHARED();
    comm_t *c = NULL;
    dtype_t *sdt = NULL, *rdt = NULL;
    coll_sched_t *s;
    CHECK_NBC_COMM(c, comm, request);
    MPI_CHECKED(coll_rooted_checks(fn_name_, c, root, sendbuf, sendcount, sendtype, &sdt, recvbuf,
                                   recvcount, rv, "recvcounts", recvtype, &rdt));
    NBC_NEW(c, s);
    const MPI_Count *cnt = rv ? rv->counts : NULL;
    const MPI_Aint *dsp = rv ? rv->displs : NULL;
    if (comm_is_inter(c))
        coll_build_inter_gatherv(s, sendbuf, sendcount, sdt, recvbuf, recvcount, cnt, dsp, rdt,
                                 root, c);
    else if (rv)
        coll_build_gatherv(s, sendbuf, sendcount, sdt, recvbuf, recvcount, cnt, dsp, rdt, root, c);
    else
        coll_build_gather(s, sendbuf, sendcount, sdt, recvbuf, recvcount, rdt, root, c);
    NBC_START(c, s, request);
    MPI_END();
}

int nbc_scatter(const char *fn_name_, const void *sendbuf, MPI_Count sendcount, coll_vec_t *sv,
                MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                int root, MPI_Comm comm, MPI_Request *request, int persist)
{
    MPI_BEGIN_SHARED();
    comm_t *c = NULL;
    dtype_t *sdt = NULL, *rdt = NULL;
    coll_sched_t *s;
    CHECK_NBC_COMM(c, comm, request);
    MPI_CHECKED(coll_rooted_checks(fn_name_, c, root, recvbuf, recvcount, recvtype, &rdt, sendbuf,
                                   sendcount, sv, "sendcounts", sendtype, &sdt));
    NBC_NEW(c, s);
    const MPI_Count *cnt = sv ? sv->counts : NULL;
    const MPI_Aint *dsp = sv ? sv->displs : NULL;
    if (comm_is_inter(c))
        coll_build_inter_scatterv(s, sendbuf, sendcount, cnt, dsp, sdt, recvbuf, recvcount, rdt,
                                  root, c);
    else if (sv)
        coll_build_scatterv(s, sendbuf, sendcount, cnt, dsp, sdt, recvbuf, recvcount, rdt, root, c);
    else
        coll_build_scatter(s, sendbuf, sendcount, sdt, recvbuf, recvcount, rdt, root, c);
    NBC_START(c, s, request);
    MPI_END();
}

int nbc_allgather(const char *fn_name_, const void *sendbuf, MPI_Count sendcount,
                  MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, coll_vec_t *rv,
                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request, int persist)
{
    MPI_BEGIN_SHARED();
    comm_t *c = NULL;
    dtype_t *sdt = NULL, *rdt = NULL;
    coll_sched_t *s;
    CHECK_NBC_COMM(c, comm, request);
    MPI_CHECKED(coll_allgather_checks(fn_name_, c, sendbuf, sendcount, sendtype, &sdt, recvbuf,
                                      recvcount, rv, recvtype, &rdt));
    NBC_NEW(c, s);
    const MPI_Count *cnt = rv ? rv->counts : NULL;
    const MPI_Aint *dsp = rv ? rv->displs : NULL;
    if (comm_is_inter(c)) {
        /* the whole send buffer to every remote process */
        int n = comm_peer_size(c);
        MPI_Aint *zeros = coll_sched_bytes(s, sizeof *zeros * (size_t)n);
        if (zeros)
            memset(zeros, 0, sizeof *zeros * (size_t)n);
        coll_blocks_t sb = {.n = n, .count = sendcount, .bdispls = zeros, .dt = sdt};
        coll_blocks_t rb = {.n = n, .count = recvcount, .counts = cnt, .displs = dsp, .dt = rdt};
        if (zeros)
            coll_build_exchange(s, sendbuf, &sb, recvbuf, &rb);
    } else {
        coll_build_allgatherv(s, sendbuf, sendcount, sdt, recvbuf, recvcount, cnt, dsp, rdt, c);
    }
    NBC_START(c, s, request);
    MPI_END();
}

int nbc_alltoall(const char *fn_name_, const void *sendbuf, MPI_Count sendcount, coll_vec_t *sv,
                 MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, coll_vec_t *rv,
                 MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request, int persist)
{
    MPI_BEGIN_SHARED();
    comm_t *c = NULL;
    dtype_t *sdt = NULL, *rdt = NULL;
    coll_sched_t *s;
    CHECK_NBC_COMM(c, comm, request);
    MPI_CHECKED(coll_alltoall_checks(fn_name_, c, sendbuf, sendcount, sv, sendtype, &sdt, recvbuf,
                                     recvcount, rv, recvtype, &rdt));
    NBC_NEW(c, s);
    int n = comm_peer_size(c);
    coll_blocks_t sb = {.n = n, .count = sendcount, .counts = sv ? sv->counts : NULL,
                        .displs = sv ? sv->displs : NULL, .dt = sdt};
    coll_blocks_t rb = {.n = n, .count = recvcount, .counts = rv ? rv->counts : NULL,
                        .displs = rv ? rv->displs : NULL, .dt = rdt};
    coll_build_alltoall(s, sendbuf, &sb, recvbuf, &rb, c);
    NBC_START(c, s, request);
    MPI_END();
}

/* ---- reductions -------------------------------------------------------- */

int nbc_reduce(const char *fn_name_, int kind, const void *sendbuf, void *recvbuf,
               MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
               MPI_Request *request, int persist)
{
    MPI_BEGIN_SHARED();
    comm_t *c = NULL;
    dtype_t *dt = NULL;
    op_t *o = NULL;
    coll_sched_t *s;
    CHECK_NBC_COMM(c, comm, request);
    int rooted = kind == RED_REDUCE ? 1 : kind == RED_SCAN || kind == RED_EXSCAN ? 2 : 0;
    MPI_CHECKED(coll_reduce_checks(fn_name_, c, sendbuf, recvbuf, count, datatype, op, rooted,
                                   root, &dt, &o));
    NBC_NEW(c, s);
    int inter = comm_is_inter(c);
    switch (kind) {
    case RED_REDUCE:
        if (inter)
            coll_build_inter_reduce(s, sendbuf, recvbuf, count, dt, o, root, c);
        else
            coll_build_reduce(s, sendbuf, recvbuf, count, dt, o, root, c);
        break;
    case RED_ALLREDUCE:
        if (inter)
            coll_build_inter_allreduce(s, sendbuf, recvbuf, count, dt, o, c);
        else
            coll_build_allreduce(s, sendbuf, recvbuf, count, dt, o, c);
        break;
    case RED_SCAN:
    case RED_EXSCAN:
        coll_build_scan(s, sendbuf, recvbuf, count, dt, o, kind == RED_EXSCAN, c);
        break;
    default:
        if (inter)
            coll_build_inter_reduce_scatter(s, sendbuf, recvbuf, count, NULL, dt, o, c);
        else
            coll_build_reduce_scatter(s, sendbuf, recvbuf, count, NULL, dt, o, c);
        break;
    }
    NBC_START(c, s, request);
    MPI_END();
}

int nbc_reduce_scatter(const char *fn_name_, const void *sendbuf, void *recvbuf, coll_vec_t *rv,
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request,
                       int persist)
{
    MPI_BEGIN_SHARED();
    comm_t *c = NULL;
    dtype_t *dt = NULL;
    op_t *o = NULL;
    coll_sched_t *s;
    CHECK_NBC_COMM(c, comm, request);
    MPI_CHECKED(coll_reduce_scatter_checks(fn_name_, c, sendbuf, rv, datatype, op, &dt, &o));
    NBC_NEW(c, s);
    if (comm_is_inter(c))
        coll_build_inter_reduce_scatter(s, sendbuf, recvbuf, 0, rv->counts, dt, o, c);
    else
        coll_build_reduce_scatter(s, sendbuf, recvbuf, 0, rv->counts, dt, o, c);
    NBC_START(c, s, request);
    MPI_END();
}

/* ---- all-to-all with a type per block ---------------------------------- */

int nbc_alltoallw(const char *fn_name_, const void *sendbuf, coll_vec_t *sv,
                  const MPI_Datatype *sendtypes, void *recvbuf, coll_vec_t *rv,
                  const MPI_Datatype *recvtypes, MPI_Comm comm, MPI_Request *request, int nb,
                  int persist)
{
    MPI_BEGIN_SHARED();
    comm_t *c = NULL;
    coll_sched_t *s = NULL;
    dtype_t **dts = NULL;
    if (nb)
        CHECK_NBC_COMM(c, comm, request);
    else
        CHECK_COMM(c, comm);
    CHECK_NOT_IN_PLACE(c, sendbuf);
    int n = comm_peer_size(c);
    if (!(dts = malloc(sizeof *dts * 2 * (size_t)n + 1)))
        MPI_FAIL(c, MPI_ERR_NO_MEM, "out of memory");
    if (sendbuf != MPI_IN_PLACE) {
        MPI_CHECKED(coll_vec_check(fn_name_, c, sv, n, "sendcounts", "sdispls"));
        CHECK_ARG(c, sendtypes, "sendtypes is NULL");
        for (int i = 0; i < n; i++)
            CHECK_DTYPE(c, dts[i], sendtypes[i]);
    }
    MPI_CHECKED(coll_vec_check(fn_name_, c, rv, n, "recvcounts", "rdispls"));
    CHECK_ARG(c, recvtypes, "recvtypes is NULL");
    for (int i = 0; i < n; i++)
        CHECK_DTYPE(c, dts[n + i], recvtypes[i]);
    coll_blocks_t sb = {.n = n, .counts = sv->counts, .bdispls = sv->displs, .dts = dts};
    coll_blocks_t rb = {.n = n, .counts = rv->counts, .bdispls = rv->displs, .dts = dts + n};
    NBC_NEW(c, s);
    coll_build_alltoall(s, sendbuf, &sb, recvbuf, &rb, c);
    if (nb)
        NBC_START(c, s, request);
    else
        MPI_CHECK_STATUS(c, coll_sched_run(s));
    goto fn_exit;
fn_exit:
    free(dts);
    rm_unlock();
    return err;
}

/* ---- the public forms: int counts, and large counts (_c, MPI-4.x) --------- */

RM_ALIAS(Ibarrier)
int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    return nbc_ibarrier("MPI_Ibarrier", comm, request, 0);
}

RM_ALIAS(Alltoallw)
int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    coll_vec_t *sv = COLL_VEC_INT(sendcounts, sdispls), *rv = COLL_VEC_INT(recvcounts, rdispls);
    VEC_CALL(nbc_alltoallw("MPI_Alltoallw", sendbuf, sv, sendtypes, recvbuf, rv, recvtypes, comm,
                           NULL, 0, 0), sv, rv);
}

RM_ALIAS(Alltoallw_c)
int PMPI_Alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    coll_vec_t *sv = COLL_VEC_C(sendcounts, sdispls), *rv = COLL_VEC_C(recvcounts, rdispls);
    return nbc_alltoallw("MPI_Alltoallw_c", sendbuf, sv, sendtypes, recvbuf, rv, recvtypes, comm,
                         NULL, 0, 0);
}

RM_ALIAS(Ibcast)
int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                MPI_Request *request)
{
    return nbc_ibcast("MPI_Ibcast", buffer, count, datatype, root, comm, request, 0);
}

RM_ALIAS(Ibcast_c)
int PMPI_Ibcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    return nbc_ibcast("MPI_Ibcast_c", buffer, count, datatype, root, comm, request, 0);
}

RM_ALIAS(Igather)
int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request)
{
    return nbc_gather("MPI_Igather", sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL,
                      recvtype, root, comm, request, 0);
}

RM_ALIAS(Igather_c)
int PMPI_Igather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                   MPI_Request *request)
{
    return nbc_gather("MPI_Igather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL,
                      recvtype, root, comm, request, 0);
}

RM_ALIAS(Igatherv)
int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                  MPI_Comm comm, MPI_Request *request)
{
    coll_vec_t *rv = COLL_VEC_INT(recvcounts, displs);
    VEC_CALL(nbc_gather("MPI_Igatherv", sendbuf, sendcount, sendtype, recvbuf, 0, rv, recvtype,
                        root, comm, request, 0), rv);
}

RM_ALIAS(Igatherv_c)
int PMPI_Igatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                    int root, MPI_Comm comm, MPI_Request *request)
{
    coll_vec_t *rv = COLL_VEC_C(recvcounts, displs);
    return nbc_gather("MPI_Igatherv_c", sendbuf, sendcount, sendtype, recvbuf, 0, rv, recvtype,
                      root, comm, request, 0);
}

RM_ALIAS(Iscatter)
int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    return nbc_scatter("MPI_Iscatter", sendbuf, sendcount, NULL, sendtype, recvbuf, recvcount,
                       recvtype, root, comm, request, 0);
}

RM_ALIAS(Iscatter_c)
int PMPI_Iscatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                    MPI_Request *request)
{
    return nbc_scatter("MPI_Iscatter_c", sendbuf, sendcount, NULL, sendtype, recvbuf, recvcount,
                       recvtype, root, comm, request, 0);
}

RM_ALIAS(Iscatterv)
int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                   MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm, MPI_Request *request)
{
    coll_vec_t *sv = COLL_VEC_INT(sendcounts, displs);
    VEC_CALL(nbc_scatter("MPI_Iscatterv", sendbuf, 0, sv, sendtype, recvbuf, recvcount, recvtype,
                         root, comm, request, 0), sv);
}

RM_ALIAS(Iscatterv_c)
int PMPI_Iscatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                     MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    coll_vec_t *sv = COLL_VEC_C(sendcounts, displs);
    return nbc_scatter("MPI_Iscatterv_c", sendbuf, 0, sv, sendtype, recvbuf, recvcount, recvtype,
                       root, comm, request, 0);
}

RM_ALIAS(Iallgather)
int PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return nbc_allgather("MPI_Iallgather", sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL,
                         recvtype, comm, request, 0);
}

RM_ALIAS(Iallgather_c)
int PMPI_Iallgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Request *request)
{
    return nbc_allgather("MPI_Iallgather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL,
                         recvtype, comm, request, 0);
}

RM_ALIAS(Iallgatherv)
int PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                     MPI_Comm comm, MPI_Request *request)
{
    coll_vec_t *rv = COLL_VEC_INT(recvcounts, displs);
    VEC_CALL(nbc_allgather("MPI_Iallgatherv", sendbuf, sendcount, sendtype, recvbuf, 0, rv,
                           recvtype, comm, request, 0), rv);
}

RM_ALIAS(Iallgatherv_c)
int PMPI_Iallgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    coll_vec_t *rv = COLL_VEC_C(recvcounts, displs);
    return nbc_allgather("MPI_Iallgatherv_c", sendbuf, sendcount, sendtype, recvbuf, 0, rv,
                         recvtype, comm, request, 0);
}

RM_ALIAS(Ialltoall)
int PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return nbc_alltoall("MPI_Ialltoall", sendbuf, sendcount, NULL, sendtype, recvbuf, recvcount,
                        NULL, recvtype, comm, request, 0);
}

RM_ALIAS(Ialltoall_c)
int PMPI_Ialltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request *request)
{
    return nbc_alltoall("MPI_Ialltoall_c", sendbuf, sendcount, NULL, sendtype, recvbuf, recvcount,
                        NULL, recvtype, comm, request, 0);
}

RM_ALIAS(Ialltoallv)
int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    coll_vec_t *sv = COLL_VEC_INT(sendcounts, sdispls), *rv = COLL_VEC_INT(recvcounts, rdispls);
    VEC_CALL(nbc_alltoall("MPI_Ialltoallv", sendbuf, 0, sv, sendtype, recvbuf, 0, rv, recvtype,
                          comm, request, 0), sv, rv);
}

RM_ALIAS(Ialltoallv_c)
int PMPI_Ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                      const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Request *request)
{
    coll_vec_t *sv = COLL_VEC_C(sendcounts, sdispls), *rv = COLL_VEC_C(recvcounts, rdispls);
    return nbc_alltoall("MPI_Ialltoallv_c", sendbuf, 0, sv, sendtype, recvbuf, 0, rv, recvtype,
                        comm, request, 0);
}

RM_ALIAS(Ialltoallw)
int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                    const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                    MPI_Request *request)
{
    coll_vec_t *sv = COLL_VEC_INT(sendcounts, sdispls), *rv = COLL_VEC_INT(recvcounts, rdispls);
    VEC_CALL(nbc_alltoallw("MPI_Ialltoallw", sendbuf, sv, sendtypes, recvbuf, rv, recvtypes, comm,
                           request, 1, 0), sv, rv);
}

RM_ALIAS(Ialltoallw_c)
int PMPI_Ialltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                      const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                      MPI_Request *request)
{
    coll_vec_t *sv = COLL_VEC_C(sendcounts, sdispls), *rv = COLL_VEC_C(recvcounts, rdispls);
    return nbc_alltoallw("MPI_Ialltoallw_c", sendbuf, sv, sendtypes, recvbuf, rv, recvtypes, comm,
                         request, 1, 0);
}

RM_ALIAS(Ireduce)
int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 int root, MPI_Comm comm, MPI_Request *request)
{
    return nbc_reduce("MPI_Ireduce", RED_REDUCE, sendbuf, recvbuf, count, datatype, op, root, comm,
                      request, 0);
}

RM_ALIAS(Ireduce_c)
int PMPI_Ireduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                   MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
{
    return nbc_reduce("MPI_Ireduce_c", RED_REDUCE, sendbuf, recvbuf, count, datatype, op, root,
                      comm, request, 0);
}

RM_ALIAS(Iallreduce)
int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm, MPI_Request *request)
{
    return nbc_reduce("MPI_Iallreduce", RED_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, 0,
                      comm, request, 0);
}

RM_ALIAS(Iallreduce_c)
int PMPI_Iallreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return nbc_reduce("MPI_Iallreduce_c", RED_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, 0,
                      comm, request, 0);
}

RM_ALIAS(Ireduce_scatter_block)
int PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                               MPI_Request *request)
{
    return nbc_reduce("MPI_Ireduce_scatter_block", RED_SCATTER_BLOCK, sendbuf, recvbuf, recvcount,
                      datatype, op, 0, comm, request, 0);
}

RM_ALIAS(Ireduce_scatter_block_c)
int PMPI_Ireduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                 MPI_Request *request)
{
    return nbc_reduce("MPI_Ireduce_scatter_block_c", RED_SCATTER_BLOCK, sendbuf, recvbuf, recvcount,
                      datatype, op, 0, comm, request, 0);
}

RM_ALIAS(Ireduce_scatter)
int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    coll_vec_t *rv = COLL_VEC_INT(recvcounts, NULL);
    VEC_CALL(nbc_reduce_scatter("MPI_Ireduce_scatter", sendbuf, recvbuf, rv, datatype, op, comm,
                                request, 0), rv);
}

RM_ALIAS(Ireduce_scatter_c)
int PMPI_Ireduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    coll_vec_t *rv = COLL_VEC_C(recvcounts, NULL);
    return nbc_reduce_scatter("MPI_Ireduce_scatter_c", sendbuf, recvbuf, rv, datatype, op, comm,
                              request, 0);
}

RM_ALIAS(Iscan)
int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm, MPI_Request *request)
{
    return nbc_reduce("MPI_Iscan", RED_SCAN, sendbuf, recvbuf, count, datatype, op, 0, comm,
                      request, 0);
}

RM_ALIAS(Iscan_c)
int PMPI_Iscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return nbc_reduce("MPI_Iscan_c", RED_SCAN, sendbuf, recvbuf, count, datatype, op, 0, comm,
                      request, 0);
}

RM_ALIAS(Iexscan)
int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 MPI_Comm comm, MPI_Request *request)
{
    return nbc_reduce("MPI_Iexscan", RED_EXSCAN, sendbuf, recvbuf, count, datatype, op, 0, comm,
                      request, 0);
}

RM_ALIAS(Iexscan_c)
int PMPI_Iexscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return nbc_reduce("MPI_Iexscan_c", RED_EXSCAN, sendbuf, recvbuf, count, datatype, op, 0, comm,
                      request, 0);
}
