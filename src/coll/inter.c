/* Blocking collectives on intercommunicators: the schedules of
 * build_inter.c (and the block exchange for the all-to-all family) run to
 * the end at once. coll_inter_sendrecv serves src/comm/inter.c, whose tags
 * (60..) on the collective context stay clear of the schedules'. */
#include "coll/inter.h"
#include "coll/build.h"
#include "proto/proto.h"

#define RUN(c, build)                                                                \
    do {                                                                             \
        coll_sched_t *s_ = coll_sched_new(c);                                        \
        if (!s_)                                                                     \
            return RM_ERR_NOMEM;                                                     \
        build;                                                                       \
        return coll_sched_run(s_);                                                   \
    } while (0)

rm_status_t coll_inter_sendrecv(comm_t *c, uint32_t ctx, int peer, int tag, const void *sb,
                                MPI_Count sn, dtype_t *sdt, void *rb, MPI_Count rn, dtype_t *rdt)
{
    request_t *r = NULL, *s = NULL;
    rm_status_t st = RM_OK;
    if (rdt && (st = proto_irecv(rb, rn, rdt, peer, tag, c, ctx, &r)) < 0)
        return st;
    if (sdt && (st = proto_isend(sb, sn, sdt, peer, tag, c, ctx, PROTO_STD, &s)) >= 0)
        st = proto_wait(s);
    if (st >= 0 && s && s->err < 0)
        st = s->err;
    if (s)
        proto_request_release(s);
    if (r) {
        rm_status_t st2 = proto_wait(r);
        if (st >= 0)
            st = st2 < 0 ? st2 : r->err;
        proto_request_release(r);
    }
    return st;
}

rm_status_t coll_inter_barrier(comm_t *c)
{
    RUN(c, coll_build_inter_barrier(s_, c));
}

rm_status_t coll_inter_bcast(void *buf, MPI_Count count, dtype_t *dt, int root, comm_t *c)
{
    RUN(c, coll_build_inter_bcast(s_, buf, count, dt, root, c));
}

rm_status_t coll_inter_gatherv(const void *sbuf, MPI_Count scount, dtype_t *sdt, void *rbuf,
                               MPI_Count rcount, const MPI_Count *rcounts, const MPI_Aint *displs,
                               dtype_t *rdt, int root, comm_t *c)
{
    RUN(c, coll_build_inter_gatherv(s_, sbuf, scount, sdt, rbuf, rcount, rcounts, displs, rdt,
                                    root, c));
}

rm_status_t coll_inter_scatterv(const void *sbuf, MPI_Count scount, const MPI_Count *scounts,
                                const MPI_Aint *displs, dtype_t *sdt, void *rbuf, MPI_Count rcount,
                                dtype_t *rdt, int root, comm_t *c)
{
    RUN(c, coll_build_inter_scatterv(s_, sbuf, scount, scounts, displs, sdt, rbuf, rcount, rdt,
                                     root, c));
}

/* all = 0: every remote process gets the whole send buffer (allgather(v));
 * all = 1: remote process j gets block j (alltoall(v)). Block i of the
 * receive buffer comes from remote process i either way. */
rm_status_t coll_inter_alltoallv(const void *sbuf, MPI_Count scount, const MPI_Count *scounts,
                                 const MPI_Aint *sdispls, dtype_t *sdt, void *rbuf, MPI_Count rcount,
                                 const MPI_Count *rcounts, const MPI_Aint *rdispls, dtype_t *rdt, int all,
                                 comm_t *c)
{
    int n = c->remote_group->size;
    coll_sched_t *s = coll_sched_new(c);
    if (!s)
        return RM_ERR_NOMEM;
    MPI_Aint *zeros = NULL;
    if (!all && (zeros = coll_sched_bytes(s, sizeof *zeros * (size_t)n)))
        for (int i = 0; i < n; i++)
            zeros[i] = 0;
    coll_blocks_t sb = {.n = n, .count = scount, .counts = all ? scounts : NULL,
                        .displs = all ? sdispls : NULL, .bdispls = zeros, .dt = sdt};
    coll_blocks_t rb = {.n = n, .count = rcount, .counts = rcounts, .displs = rdispls, .dt = rdt};
    if (all || zeros)
        coll_build_exchange(s, sbuf, &sb, rbuf, &rb);
    return coll_sched_run(s);
}

rm_status_t coll_inter_reduce(const void *sbuf, void *rbuf, MPI_Count count, dtype_t *dt,
                              op_t *op, int root, comm_t *c)
{
    RUN(c, coll_build_inter_reduce(s_, sbuf, rbuf, count, dt, op, root, c));
}

rm_status_t coll_inter_allreduce(const void *sbuf, void *rbuf, MPI_Count count, dtype_t *dt,
                                 op_t *op, comm_t *c)
{
    RUN(c, coll_build_inter_allreduce(s_, sbuf, rbuf, count, dt, op, c));
}

/* The other group's reduced vector is scattered over this group in blocks
 * of rcounts[i] (or rcount); both groups reduce vectors of the same length,
 * the sum of their own blocks (MPI-3.1 §5.10). */
rm_status_t coll_inter_reduce_scatter(const void *sbuf, void *rbuf, MPI_Count rcount,
                                      const MPI_Count *rcounts, dtype_t *dt, op_t *op, comm_t *c)
{
    RUN(c, coll_build_inter_reduce_scatter(s_, sbuf, rbuf, rcount, rcounts, dt, op, c));
}
