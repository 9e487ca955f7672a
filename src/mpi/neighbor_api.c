/* Neighbourhood collective bindings (MPI-3.1 §7.6 and §7.7), blocking and
 * nonblocking: checks, then a block exchange over the topology's neighbour
 * lists (src/coll/build_neighbor.c) run at once or started as a request. */
#include "coll/build.h"
#include "mpi/coll_check.h"

#include <stdint.h>
#include <stdlib.h>

enum { NB_ALLGATHER, NB_ALLGATHERV, NB_ALLTOALL, NB_ALLTOALLV, NB_ALLTOALLW };

/* One side's arguments (send or receive); v: the v and w forms' counts
 * and displacements (in bytes for the w forms). */
typedef struct nbr_side {
    const void *buf;
    MPI_Count count;
    coll_vec_t *v;
    MPI_Datatype type;
    const MPI_Datatype *types;
} nbr_side_t;

static int nbr_query(void *state, MPI_Status *status)
{
    (void)status;
    return mpi_err_from_status((rm_status_t)(intptr_t)state);
}

static int nbr_pquery(void *state, MPI_Status *status)
{
    (void)status;
    return mpi_err_from_status(coll_sched_status(state));
}

static int nbr_pfree(void *state)
{
    coll_sched_release(state);
    return MPI_SUCCESS;
}

/* Check one side of n blocks and describe it; `same`: every block is the
 * one buffer (allgather's send side). */
static int nbr_side_check(const char *fn_name_, comm_t *c, int kind, const nbr_side_t *a, int n,
                          const int *peers, const int *subs, int same, int send, dtype_t **dts,
                          MPI_Aint *zeros, coll_blocks_t *b)
{
    int err = MPI_SUCCESS;
    *b = (coll_blocks_t){.n = n, .peers = peers, .subs = subs};
    int vec = kind == NB_ALLTOALLV || kind == NB_ALLTOALLW || (kind == NB_ALLGATHERV && !same);
    if (vec) {
        const char *dname = kind == NB_ALLGATHERV ? "displs" : send ? "sdispls" : "rdispls";
        if ((err = coll_vec_check(fn_name_, c, a->v, n, send ? "sendcounts" : "recvcounts",
                                  dname)) != MPI_SUCCESS)
            goto fn_exit;
        b->counts = a->v->counts;
        if (kind == NB_ALLTOALLW)
            b->bdispls = a->v->displs;
        else
            b->displs = a->v->displs;
    } else {
        CHECK_COUNT(c, a->count);
        b->count = a->count;
        if (same)
            b->bdispls = zeros;
    }
    if (kind == NB_ALLTOALLW) {
        CHECK_ARG(c, a->types, "the datatype array is NULL");
        for (int i = 0; i < n; i++)
            CHECK_DTYPE(c, dts[i], a->types[i]);
        b->dts = dts;
    } else {
        CHECK_DTYPE(c, b->dt, a->type);
        if (!vec)
            CHECK_BUF(c, a->buf, a->count, b->dt);
    }
fn_exit:
    return err;
}

static int nbr_coll(const char *fn_name_, int kind, const nbr_side_t *snd, const nbr_side_t *rcv,
                    MPI_Comm comm, MPI_Request *request, int nb, int persist)
{
    MPI_BEGIN_SHARED();
    comm_t *c = NULL;
    coll_nbrs_t nbrs = {0};
    dtype_t **dts = NULL;
    MPI_Aint *zeros = NULL;
    coll_sched_t *s = NULL;
    CHECK_COMM(c, comm);
    if (nb)
        CHECK_ARG(c, request, "request is NULL");
    if (!c->topo || comm_is_inter(c))
        MPI_FAIL(c, MPI_ERR_TOPOLOGY, "the communicator has no process topology");
    if (snd->buf == MPI_IN_PLACE)
        MPI_FAIL(c, MPI_ERR_BUFFER, "MPI_IN_PLACE is not valid in neighbourhood collectives");
    rm_status_t st = coll_nbrs_get(c, &nbrs);
    MPI_CHECK_STATUS(c, st);
    dts = calloc((size_t)(nbrs.nin + nbrs.nout) + 1, sizeof *dts);
    zeros = calloc((size_t)nbrs.nout + 1, sizeof *zeros);
    if (!dts || !zeros)
        MPI_FAIL(c, MPI_ERR_NO_MEM, "out of memory");
    coll_blocks_t sb, rb;
    int same = kind == NB_ALLGATHER || kind == NB_ALLGATHERV;
    if ((err = nbr_side_check(fn_name_, c, kind, snd, nbrs.nout, nbrs.out, nbrs.outsub, same, 1,
                              dts, zeros, &sb)) != MPI_SUCCESS ||
        (err = nbr_side_check(fn_name_, c, kind, rcv, nbrs.nin, nbrs.in, nbrs.insub, 0, 0,
                              dts + nbrs.nout, NULL, &rb)) != MPI_SUCCESS)
        goto fn_exit;
    if (!(s = coll_sched_new(c)))
        MPI_FAIL(c, MPI_ERR_NO_MEM, "out of memory");
    coll_build_exchange(s, snd->buf, &sb, (void *)rcv->buf, &rb);
    if (nb) {
        request_t *r;
        MPI_CHECK_STATUS(c, persist ? coll_sched_persist(s, &r) : coll_sched_start(s, &r));
        r->gq = persist ? nbr_pquery : nbr_query;
        r->gf = persist ? nbr_pfree : NULL;
        *request = r->handle;
    } else {
        MPI_CHECK_STATUS(c, coll_sched_run(s));
    }
    goto fn_exit;
fn_exit:
    coll_nbrs_free(&nbrs);
    free(dts);
    free(zeros);
    rm_unlock();
    return err;
}

#define SIDE_REG(b, n, t) (&(nbr_side_t){.buf = (b), .count = (n), .type = (t)})
#define SIDE_V(b, vec, t) (&(nbr_side_t){.buf = (b), .v = (vec), .type = (t)})
#define SIDE_W(b, vec, t) (&(nbr_side_t){.buf = (b), .v = (vec), .types = (t)})
/* The w forms' displacements are MPI_Aint in both forms. */
#define VEC_W_INT(cnt, dsp) (&(coll_vec_t){.icounts = (cnt), .displs = (dsp)})

/* ---- the public forms: blocking, nonblocking and persistent (MPI-4.0; the
 * info argument is accepted and not examined), each with int counts and with
 * large counts (_c, MPI-4.x) --------------------------------------------------- */

RM_ALIAS(Neighbor_allgather)
int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return nbr_coll("MPI_Neighbor_allgather", NB_ALLGATHER, SIDE_REG(sendbuf, sendcount, sendtype),
                    SIDE_REG(recvbuf, recvcount, recvtype), comm, NULL, 0, 0);
}

RM_ALIAS(Neighbor_allgather_c)
int PMPI_Neighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm)
{
    return nbr_coll("MPI_Neighbor_allgather_c", NB_ALLGATHER,
                    SIDE_REG(sendbuf, sendcount, sendtype), SIDE_REG(recvbuf, recvcount, recvtype),
                    comm, NULL, 0, 0);
}

RM_ALIAS(Ineighbor_allgather)
int PMPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    return nbr_coll("MPI_Ineighbor_allgather", NB_ALLGATHER, SIDE_REG(sendbuf, sendcount, sendtype),
                    SIDE_REG(recvbuf, recvcount, recvtype), comm, request, 1, 0);
}

RM_ALIAS(Ineighbor_allgather_c)
int PMPI_Ineighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                               MPI_Comm comm, MPI_Request *request)
{
    return nbr_coll("MPI_Ineighbor_allgather_c", NB_ALLGATHER,
                    SIDE_REG(sendbuf, sendcount, sendtype), SIDE_REG(recvbuf, recvcount, recvtype),
                    comm, request, 1, 0);
}

RM_ALIAS(Neighbor_allgather_init)
int PMPI_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Info info, MPI_Request *request)
{
    (void)info;
    return nbr_coll("MPI_Neighbor_allgather_init", NB_ALLGATHER,
                    SIDE_REG(sendbuf, sendcount, sendtype), SIDE_REG(recvbuf, recvcount, recvtype),
                    comm, request, 1, 1);
}

RM_ALIAS(Neighbor_allgather_init_c)
int PMPI_Neighbor_allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                   void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    return nbr_coll("MPI_Neighbor_allgather_init_c", NB_ALLGATHER,
                    SIDE_REG(sendbuf, sendcount, sendtype), SIDE_REG(recvbuf, recvcount, recvtype),
                    comm, request, 1, 1);
}

RM_ALIAS(Neighbor_allgatherv)
int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm)
{
    coll_vec_t *rv = COLL_VEC_INT(recvcounts, displs);
    VEC_CALL(nbr_coll("MPI_Neighbor_allgatherv", NB_ALLGATHERV,
                      SIDE_REG(sendbuf, sendcount, sendtype), SIDE_V(recvbuf, rv, recvtype), comm,
                      NULL, 0, 0), rv);
}

RM_ALIAS(Neighbor_allgatherv_c)
int PMPI_Neighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                               MPI_Datatype recvtype, MPI_Comm comm)
{
    coll_vec_t *rv = COLL_VEC_C(recvcounts, displs);
    return nbr_coll("MPI_Neighbor_allgatherv_c", NB_ALLGATHERV,
                    SIDE_REG(sendbuf, sendcount, sendtype), SIDE_V(recvbuf, rv, recvtype), comm,
                    NULL, 0, 0);
}

RM_ALIAS(Ineighbor_allgatherv)
int PMPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, const int recvcounts[], const int displs[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    coll_vec_t *rv = COLL_VEC_INT(recvcounts, displs);
    VEC_CALL(nbr_coll("MPI_Ineighbor_allgatherv", NB_ALLGATHERV,
                      SIDE_REG(sendbuf, sendcount, sendtype), SIDE_V(recvbuf, rv, recvtype), comm,
                      request, 1, 0), rv);
}

RM_ALIAS(Ineighbor_allgatherv_c)
int PMPI_Ineighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                void *recvbuf, const MPI_Count recvcounts[],
                                const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Request *request)
{
    coll_vec_t *rv = COLL_VEC_C(recvcounts, displs);
    return nbr_coll("MPI_Ineighbor_allgatherv_c", NB_ALLGATHERV,
                    SIDE_REG(sendbuf, sendcount, sendtype), SIDE_V(recvbuf, rv, recvtype), comm,
                    request, 1, 0);
}

RM_ALIAS(Neighbor_allgatherv_init)
int PMPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, const int recvcounts[], const int displs[],
                                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request)
{
    (void)info;
    coll_vec_t *rv = COLL_VEC_INT(recvcounts, displs);
    VEC_CALL(nbr_coll("MPI_Neighbor_allgatherv_init", NB_ALLGATHERV,
                      SIDE_REG(sendbuf, sendcount, sendtype), SIDE_V(recvbuf, rv, recvtype), comm,
                      request, 1, 1), rv);
}

RM_ALIAS(Neighbor_allgatherv_init_c)
int PMPI_Neighbor_allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                    void *recvbuf, const MPI_Count recvcounts[],
                                    const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                    MPI_Info info, MPI_Request *request)
{
    (void)info;
    coll_vec_t *rv = COLL_VEC_C(recvcounts, displs);
    return nbr_coll("MPI_Neighbor_allgatherv_init_c", NB_ALLGATHERV,
                    SIDE_REG(sendbuf, sendcount, sendtype), SIDE_V(recvbuf, rv, recvtype), comm,
                    request, 1, 1);
}

RM_ALIAS(Neighbor_alltoall)
int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return nbr_coll("MPI_Neighbor_alltoall", NB_ALLTOALL, SIDE_REG(sendbuf, sendcount, sendtype),
                    SIDE_REG(recvbuf, recvcount, recvtype), comm, NULL, 0, 0);
}

RM_ALIAS(Neighbor_alltoall_c)
int PMPI_Neighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm)
{
    return nbr_coll("MPI_Neighbor_alltoall_c", NB_ALLTOALL, SIDE_REG(sendbuf, sendcount, sendtype),
                    SIDE_REG(recvbuf, recvcount, recvtype), comm, NULL, 0, 0);
}

RM_ALIAS(Ineighbor_alltoall)
int PMPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request)
{
    return nbr_coll("MPI_Ineighbor_alltoall", NB_ALLTOALL, SIDE_REG(sendbuf, sendcount, sendtype),
                    SIDE_REG(recvbuf, recvcount, recvtype), comm, request, 1, 0);
}

RM_ALIAS(Ineighbor_alltoall_c)
int PMPI_Ineighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm, MPI_Request *request)
{
    return nbr_coll("MPI_Ineighbor_alltoall_c", NB_ALLTOALL, SIDE_REG(sendbuf, sendcount, sendtype),
                    SIDE_REG(recvbuf, recvcount, recvtype), comm, request, 1, 0);
}

RM_ALIAS(Neighbor_alltoall_init)
int PMPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Info info, MPI_Request *request)
{
    (void)info;
    return nbr_coll("MPI_Neighbor_alltoall_init", NB_ALLTOALL,
                    SIDE_REG(sendbuf, sendcount, sendtype), SIDE_REG(recvbuf, recvcount, recvtype),
                    comm, request, 1, 1);
}

RM_ALIAS(Neighbor_alltoall_init_c)
int PMPI_Neighbor_alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    return nbr_coll("MPI_Neighbor_alltoall_init_c", NB_ALLTOALL,
                    SIDE_REG(sendbuf, sendcount, sendtype), SIDE_REG(recvbuf, recvcount, recvtype),
                    comm, request, 1, 1);
}

RM_ALIAS(Neighbor_alltoallv)
int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    coll_vec_t *sv = COLL_VEC_INT(sendcounts, sdispls), *rv = COLL_VEC_INT(recvcounts, rdispls);
    VEC_CALL(nbr_coll("MPI_Neighbor_alltoallv", NB_ALLTOALLV, SIDE_V(sendbuf, sv, sendtype),
                      SIDE_V(recvbuf, rv, recvtype), comm, NULL, 0, 0), sv, rv);
}

RM_ALIAS(Neighbor_alltoallv_c)
int PMPI_Neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                              const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              MPI_Datatype recvtype, MPI_Comm comm)
{
    coll_vec_t *sv = COLL_VEC_C(sendcounts, sdispls), *rv = COLL_VEC_C(recvcounts, rdispls);
    return nbr_coll("MPI_Neighbor_alltoallv_c", NB_ALLTOALLV, SIDE_V(sendbuf, sv, sendtype),
                    SIDE_V(recvbuf, rv, recvtype), comm, NULL, 0, 0);
}

RM_ALIAS(Ineighbor_alltoallv)
int PMPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    coll_vec_t *sv = COLL_VEC_INT(sendcounts, sdispls), *rv = COLL_VEC_INT(recvcounts, rdispls);
    VEC_CALL(nbr_coll("MPI_Ineighbor_alltoallv", NB_ALLTOALLV, SIDE_V(sendbuf, sv, sendtype),
                      SIDE_V(recvbuf, rv, recvtype), comm, request, 1, 0), sv, rv);
}

RM_ALIAS(Ineighbor_alltoallv_c)
int PMPI_Ineighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                               const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                               const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    coll_vec_t *sv = COLL_VEC_C(sendcounts, sdispls), *rv = COLL_VEC_C(recvcounts, rdispls);
    return nbr_coll("MPI_Ineighbor_alltoallv_c", NB_ALLTOALLV, SIDE_V(sendbuf, sv, sendtype),
                    SIDE_V(recvbuf, rv, recvtype), comm, request, 1, 0);
}

RM_ALIAS(Neighbor_alltoallv_init)
int PMPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                 MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                 const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Info info, MPI_Request *request)
{
    (void)info;
    coll_vec_t *sv = COLL_VEC_INT(sendcounts, sdispls), *rv = COLL_VEC_INT(recvcounts, rdispls);
    VEC_CALL(nbr_coll("MPI_Neighbor_alltoallv_init", NB_ALLTOALLV, SIDE_V(sendbuf, sv, sendtype),
                      SIDE_V(recvbuf, rv, recvtype), comm, request, 1, 1), sv, rv);
}

RM_ALIAS(Neighbor_alltoallv_init_c)
int PMPI_Neighbor_alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                   const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                   const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request)
{
    (void)info;
    coll_vec_t *sv = COLL_VEC_C(sendcounts, sdispls), *rv = COLL_VEC_C(recvcounts, rdispls);
    return nbr_coll("MPI_Neighbor_alltoallv_init_c", NB_ALLTOALLV, SIDE_V(sendbuf, sv, sendtype),
                    SIDE_V(recvbuf, rv, recvtype), comm, request, 1, 1);
}

RM_ALIAS(Neighbor_alltoallw)
int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    coll_vec_t *sv = VEC_W_INT(sendcounts, sdispls), *rv = VEC_W_INT(recvcounts, rdispls);
    VEC_CALL(nbr_coll("MPI_Neighbor_alltoallw", NB_ALLTOALLW, SIDE_W(sendbuf, sv, sendtypes),
                      SIDE_W(recvbuf, rv, recvtypes), comm, NULL, 0, 0), sv, rv);
}

RM_ALIAS(Neighbor_alltoallw_c)
int PMPI_Neighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                              void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    coll_vec_t *sv = COLL_VEC_C(sendcounts, sdispls), *rv = COLL_VEC_C(recvcounts, rdispls);
    return nbr_coll("MPI_Neighbor_alltoallw_c", NB_ALLTOALLW, SIDE_W(sendbuf, sv, sendtypes),
                    SIDE_W(recvbuf, rv, recvtypes), comm, NULL, 0, 0);
}

RM_ALIAS(Ineighbor_alltoallw)
int PMPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                             const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                             MPI_Comm comm, MPI_Request *request)
{
    coll_vec_t *sv = VEC_W_INT(sendcounts, sdispls), *rv = VEC_W_INT(recvcounts, rdispls);
    VEC_CALL(nbr_coll("MPI_Ineighbor_alltoallw", NB_ALLTOALLW, SIDE_W(sendbuf, sv, sendtypes),
                      SIDE_W(recvbuf, rv, recvtypes), comm, request, 1, 0), sv, rv);
}

RM_ALIAS(Ineighbor_alltoallw_c)
int PMPI_Ineighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                               const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                               void *recvbuf, const MPI_Count recvcounts[],
                               const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                               MPI_Comm comm, MPI_Request *request)
{
    coll_vec_t *sv = COLL_VEC_C(sendcounts, sdispls), *rv = COLL_VEC_C(recvcounts, rdispls);
    return nbr_coll("MPI_Ineighbor_alltoallw_c", NB_ALLTOALLW, SIDE_W(sendbuf, sv, sendtypes),
                    SIDE_W(recvbuf, rv, recvtypes), comm, request, 1, 0);
}

RM_ALIAS(Neighbor_alltoallw_init)
int PMPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                 const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                 void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                 const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request)
{
    (void)info;
    coll_vec_t *sv = VEC_W_INT(sendcounts, sdispls), *rv = VEC_W_INT(recvcounts, rdispls);
    VEC_CALL(nbr_coll("MPI_Neighbor_alltoallw_init", NB_ALLTOALLW, SIDE_W(sendbuf, sv, sendtypes),
                      SIDE_W(recvbuf, rv, recvtypes), comm, request, 1, 1), sv, rv);
}

RM_ALIAS(Neighbor_alltoallw_init_c)
int PMPI_Neighbor_alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                   const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                   void *recvbuf, const MPI_Count recvcounts[],
                                   const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    coll_vec_t *sv = COLL_VEC_C(sendcounts, sdispls), *rv = COLL_VEC_C(recvcounts, rdispls);
    return nbr_coll("MPI_Neighbor_alltoallw_init_c", NB_ALLTOALLW, SIDE_W(sendbuf, sv, sendtypes),
                    SIDE_W(recvbuf, rv, recvtypes), comm, request, 1, 1);
}
