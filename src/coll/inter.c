/* Intercommunicator collectives. Rooted operations and the all-to-all
 * family talk to each remote process directly (linear); the reductions,
 * broadcast and barrier reduce or meet inside each group first (local
 * communicator, the intracommunicator algorithms of coll.c) and let the two
 * leaders (local rank 0) exchange the result. Tags here are disjoint from
 * the ones src/comm/inter.c uses on the same context. */
#include "coll/inter.h"
#include "proto/proto.h"

#include <stdlib.h>
#include <string.h>

enum { TAG_I_BARRIER = 40, TAG_I_BCAST, TAG_I_GATHER, TAG_I_SCATTER, TAG_I_ALLTOALL,
       TAG_I_REDUCE, TAG_I_ALLREDUCE, TAG_I_RSCATTER };

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

/* Room for `count` items of dt, shifted by the true lower bound. */
static void *ci_tmp(MPI_Count count, const dtype_t *dt, void **alloc)
{
    MPI_Aint span = count ? (dt->true_ub - dt->true_lb) + (MPI_Aint)(count - 1) * dt->extent : 0;
    *alloc = malloc(span > 0 ? (size_t)span : 1);
    return *alloc ? (char *)*alloc - dt->true_lb : NULL;
}

static char *ci_block(const void *buf, MPI_Count count, const int *displs, int i, const dtype_t *dt)
{
    MPI_Aint off = displs ? (MPI_Aint)displs[i] : (MPI_Aint)i * (MPI_Aint)count;
    return (char *)buf + off * dt->extent;
}

static rm_status_t ci_waitall(int n, request_t **reqs)
{
    rm_status_t st = RM_OK;
    for (int i = 0; i < n; i++) {
        if (!reqs[i])
            continue;
        rm_status_t s = proto_wait(reqs[i]);
        if (st >= 0)
            st = s < 0 ? s : reqs[i]->err;
        proto_request_release(reqs[i]);
    }
    return st;
}

rm_status_t coll_inter_barrier(comm_t *c)
{
    char s = 0, r = 0;
    dtype_t *byte = dtype_get(MPI_BYTE);
    rm_status_t st = coll_barrier(c->local_comm);
    if (st >= 0 && c->rank == 0)
        st = coll_inter_sendrecv(c, c->ctx + 1, 0, TAG_I_BARRIER, &s, 1, byte, &r, 1, byte);
    /* nobody leaves before its leader has heard that the other group entered */
    if (st >= 0)
        st = coll_bcast(&r, 1, byte, 0, c->local_comm);
    return st;
}

rm_status_t coll_inter_bcast(void *buf, MPI_Count count, dtype_t *dt, int root, comm_t *c)
{
    if (root == MPI_PROC_NULL)
        return RM_OK;
    if (root == MPI_ROOT)
        return proto_send(buf, count, dt, 0, TAG_I_BCAST, c, c->ctx + 1, PROTO_STD);
    rm_status_t st = RM_OK;
    if (c->rank == 0)
        st = proto_recv(buf, count, dt, root, TAG_I_BCAST, c, c->ctx + 1, MPI_STATUS_IGNORE);
    return st < 0 ? st : coll_bcast(buf, count, dt, 0, c->local_comm);
}

rm_status_t coll_inter_gatherv(const void *sbuf, MPI_Count scount, dtype_t *sdt, void *rbuf,
                               MPI_Count rcount, const int *rcounts, const int *displs,
                               dtype_t *rdt, int root, comm_t *c)
{
    if (root == MPI_PROC_NULL)
        return RM_OK;
    if (root != MPI_ROOT)
        return proto_send(sbuf, scount, sdt, root, TAG_I_GATHER, c, c->ctx + 1, PROTO_STD);
    int n = c->remote_group->size;
    request_t **reqs = calloc((size_t)n, sizeof *reqs);
    if (!reqs)
        return RM_ERR_NOMEM;
    rm_status_t st = RM_OK;
    for (int i = 0; i < n && st >= 0; i++)
        st = proto_irecv(ci_block(rbuf, rcount, displs, i, rdt), rcounts ? rcounts[i] : rcount,
                         rdt, i, TAG_I_GATHER, c, c->ctx + 1, &reqs[i]);
    rm_status_t st2 = ci_waitall(n, reqs);
    free(reqs);
    return st < 0 ? st : st2;
}

rm_status_t coll_inter_scatterv(const void *sbuf, MPI_Count scount, const int *scounts,
                                const int *displs, dtype_t *sdt, void *rbuf, MPI_Count rcount,
                                dtype_t *rdt, int root, comm_t *c)
{
    if (root == MPI_PROC_NULL)
        return RM_OK;
    if (root != MPI_ROOT)
        return proto_recv(rbuf, rcount, rdt, root, TAG_I_SCATTER, c, c->ctx + 1,
                          MPI_STATUS_IGNORE);
    int n = c->remote_group->size;
    request_t **reqs = calloc((size_t)n, sizeof *reqs);
    if (!reqs)
        return RM_ERR_NOMEM;
    rm_status_t st = RM_OK;
    for (int i = 0; i < n && st >= 0; i++)
        st = proto_isend(ci_block(sbuf, scount, displs, i, sdt), scounts ? scounts[i] : scount,
                         sdt, i, TAG_I_SCATTER, c, c->ctx + 1, PROTO_STD, &reqs[i]);
    rm_status_t st2 = ci_waitall(n, reqs);
    free(reqs);
    return st < 0 ? st : st2;
}

/* all = 0: every remote process gets the whole send buffer (allgather(v));
 * all = 1: remote process j gets block j (alltoall(v)). Block i of the
 * receive buffer comes from remote process i either way. */
rm_status_t coll_inter_alltoallv(const void *sbuf, MPI_Count scount, const int *scounts,
                                 const int *sdispls, dtype_t *sdt, void *rbuf, MPI_Count rcount,
                                 const int *rcounts, const int *rdispls, dtype_t *rdt, int all,
                                 comm_t *c)
{
    int n = c->remote_group->size;
    request_t **reqs = calloc((size_t)(2 * n), sizeof *reqs);
    if (!reqs)
        return RM_ERR_NOMEM;
    rm_status_t st = RM_OK;
    for (int i = 0; i < n && st >= 0; i++)
        st = proto_irecv(ci_block(rbuf, rcount, rdispls, i, rdt), rcounts ? rcounts[i] : rcount,
                         rdt, i, TAG_I_ALLTOALL, c, c->ctx + 1, &reqs[i]);
    /* start with the peer of the same rank so that not everyone hits remote 0 first */
    for (int k = 0; k < n && st >= 0; k++) {
        int j = (c->rank + k) % n;
        const void *b = all ? ci_block(sbuf, scount, sdispls, j, sdt) : sbuf;
        MPI_Count cnt = all && scounts ? scounts[j] : scount;
        st = proto_isend(b, cnt, sdt, j, TAG_I_ALLTOALL, c, c->ctx + 1, PROTO_STD, &reqs[n + j]);
    }
    rm_status_t st2 = ci_waitall(2 * n, reqs);
    free(reqs);
    return st < 0 ? st : st2;
}

/* Reduce this group's contributions into a buffer at local rank 0 (*acc;
 * NULL elsewhere). */
static rm_status_t ci_reduce_local(const void *sbuf, MPI_Count count, dtype_t *dt, op_t *op,
                                   comm_t *c, char **acc, void **alloc)
{
    *acc = NULL;
    *alloc = NULL;
    if (c->rank == 0 && !(*acc = ci_tmp(count, dt, alloc)))
        return RM_ERR_NOMEM;
    return coll_reduce(sbuf, *acc, count, dt, op, 0, c->local_comm);
}

rm_status_t coll_inter_reduce(const void *sbuf, void *rbuf, MPI_Count count, dtype_t *dt,
                              op_t *op, int root, comm_t *c)
{
    if (root == MPI_PROC_NULL)
        return RM_OK;
    if (root == MPI_ROOT)
        return proto_recv(rbuf, count, dt, 0, TAG_I_REDUCE, c, c->ctx + 1, MPI_STATUS_IGNORE);
    char *acc;
    void *alloc;
    rm_status_t st = ci_reduce_local(sbuf, count, dt, op, c, &acc, &alloc);
    if (st >= 0 && c->rank == 0)
        st = proto_send(acc, count, dt, root, TAG_I_REDUCE, c, c->ctx + 1, PROTO_STD);
    free(alloc);
    return st;
}

rm_status_t coll_inter_allreduce(const void *sbuf, void *rbuf, MPI_Count count, dtype_t *dt,
                                 op_t *op, comm_t *c)
{
    char *acc;
    void *alloc;
    rm_status_t st = ci_reduce_local(sbuf, count, dt, op, c, &acc, &alloc);
    if (st >= 0 && c->rank == 0)
        st = coll_inter_sendrecv(c, c->ctx + 1, 0, TAG_I_ALLREDUCE, acc, count, dt, rbuf, count,
                                 dt);
    free(alloc);
    return st < 0 ? st : coll_bcast(rbuf, count, dt, 0, c->local_comm);
}

/* The other group's reduced vector is scattered over this group in blocks
 * of rcounts[i] (or rcount); both groups reduce vectors of the same length,
 * the sum of their own blocks (MPI-3.1 §5.10). */
rm_status_t coll_inter_reduce_scatter(const void *sbuf, void *rbuf, MPI_Count rcount,
                                      const int *rcounts, dtype_t *dt, op_t *op, comm_t *c)
{
    int n = c->size;
    MPI_Count total = 0;
    int *counts = malloc(sizeof(int) * 2 * (size_t)n);
    if (!counts)
        return RM_ERR_NOMEM;
    for (int i = 0; i < n; i++) {
        counts[i] = rcounts ? rcounts[i] : (int)rcount;
        counts[n + i] = (int)total;
        total += counts[i];
    }
    char *acc, *res = NULL;
    void *alloc, *res_alloc = NULL;
    rm_status_t st = ci_reduce_local(sbuf, total, dt, op, c, &acc, &alloc);
    if (st >= 0 && c->rank == 0) {
        if (!(res = ci_tmp(total, dt, &res_alloc)))
            st = RM_ERR_NOMEM;
        else
            st = coll_inter_sendrecv(c, c->ctx + 1, 0, TAG_I_RSCATTER, acc, total, dt, res, total,
                                     dt);
    }
    if (st >= 0)
        st = coll_scatterv(res, counts, counts + n, dt, rbuf, counts[c->rank], dt, 0,
                           c->local_comm);
    free(alloc);
    free(res_alloc);
    free(counts);
    return st;
}
