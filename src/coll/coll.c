/* Blocking collectives over point-to-point on the communicator's collective
 * context (ctx + 1), so they never match user messages. Algorithms:
 * dissemination barrier, binomial broadcast and (commutative) reduction,
 * in-order reduction for non-commutative ops, ring allgather, pairwise
 * all-to-all, linear rooted gather/scatter, chained scans. */
#include "coll/coll.h"
#include "proto/proto.h"

#include <stdlib.h>
#include <string.h>

enum { TAG_BARRIER = 1, TAG_BCAST, TAG_GATHER, TAG_SCATTER, TAG_ALLGATHER, TAG_ALLTOALL,
       TAG_REDUCE, TAG_SCAN };

static rm_status_t c_send(const void *b, MPI_Count n, dtype_t *dt, int to, int tag, comm_t *c)
{
    return proto_send(b, n, dt, to, tag, c, c->ctx + 1, PROTO_STD);
}

static rm_status_t c_recv(void *b, MPI_Count n, dtype_t *dt, int from, int tag, comm_t *c)
{
    return proto_recv(b, n, dt, from, tag, c, c->ctx + 1, MPI_STATUS_IGNORE);
}

static rm_status_t c_sendrecv(const void *sb, MPI_Count sn, dtype_t *sdt, int to, void *rb,
                              MPI_Count rn, dtype_t *rdt, int from, int tag, comm_t *c)
{
    request_t *r, *s;
    rm_status_t st = proto_irecv(rb, rn, rdt, from, tag, c, c->ctx + 1, &r);
    if (st < 0)
        return st;
    st = proto_isend(sb, sn, sdt, to, tag, c, c->ctx + 1, PROTO_STD, &s);
    if (st >= 0)
        st = proto_wait(s);
    if (s)
        proto_request_release(s);
    rm_status_t st2 = proto_wait(r);
    if (st >= 0)
        st = st2 < 0 ? st2 : r->err;
    proto_request_release(r);
    return st;
}

/* Room for `count` items of dt; returns the pointer to use as the buffer
 * (shifted by the true lower bound) and the allocation to free. */
static void *c_tmp(MPI_Count count, const dtype_t *dt, void **alloc)
{
    MPI_Aint span = count ? (dt->true_ub - dt->true_lb) + (MPI_Aint)(count - 1) * dt->extent : 0;
    *alloc = malloc(span > 0 ? (size_t)span : 1);
    return *alloc ? (char *)*alloc - dt->true_lb : NULL;
}

/* Local copy between two typed buffers of the same signature. */
static rm_status_t c_copy(const void *sb, MPI_Count sn, dtype_t *sdt, void *rb, MPI_Count rn,
                          dtype_t *rdt)
{
    size_t bytes = (size_t)sn * (size_t)sdt->size, cap = (size_t)rn * (size_t)rdt->size;
    if (bytes > cap)
        return RM_ERR_TRUNCATE;
    if (!bytes)
        return RM_OK;
    if (dtype_is_contig(sdt, sn) && dtype_is_contig(rdt, rn)) {
        memmove((char *)rb + rdt->true_lb, (const char *)sb + sdt->true_lb, bytes);
        return RM_OK;
    }
    void *tmp = malloc(bytes);
    if (!tmp)
        return RM_ERR_NOMEM;
    dtype_pack(sb, sn, sdt, 0, tmp, bytes);
    dtype_unpack(rb, rn, rdt, 0, tmp, bytes);
    free(tmp);
    return RM_OK;
}

#define AT(buf, i, n, dt) ((char *)(buf) + (MPI_Aint)(i) * (MPI_Aint)(n) * (dt)->extent)

rm_status_t coll_barrier(comm_t *c)
{
    char s = 0, r;
    dtype_t *byte = dtype_get(MPI_BYTE);
    for (int k = 1; k < c->size; k <<= 1) {
        rm_status_t st = c_sendrecv(&s, 1, byte, (c->rank + k) % c->size, &r, 1, byte,
                                    (c->rank - k + c->size) % c->size, TAG_BARRIER, c);
        if (st < 0)
            return st;
    }
    return RM_OK;
}

rm_status_t coll_bcast(void *buf, MPI_Count count, dtype_t *dt, int root, comm_t *c)
{
    int n = c->size, rel = (c->rank - root + n) % n;
    rm_status_t st;
    int mask = 1;
    while (mask < n) {
        if (rel & mask) {
            if ((st = c_recv(buf, count, dt, (rel - mask + root) % n, TAG_BCAST, c)) < 0)
                return st;
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (rel + mask < n && (st = c_send(buf, count, dt, (rel + mask + root) % n, TAG_BCAST, c)) < 0)
            return st;
    return RM_OK;
}

rm_status_t coll_gatherv(const void *sbuf, MPI_Count scount, dtype_t *sdt, void *rbuf,
                         const int *rcounts, const int *displs, dtype_t *rdt, int root, comm_t *c)
{
    if (c->rank != root)
        return c_send(sbuf, scount, sdt, root, TAG_GATHER, c);
    request_t **rq = calloc((size_t)c->size, sizeof *rq);
    if (!rq)
        return RM_ERR_NOMEM;
    rm_status_t st = RM_OK;
    for (int r = 0; r < c->size && st >= 0; r++) {
        char *at = (char *)rbuf + (MPI_Aint)displs[r] * rdt->extent;
        if (r == root) {
            if (sbuf != MPI_IN_PLACE)
                st = c_copy(sbuf, scount, sdt, at, rcounts[r], rdt);
        } else {
            st = proto_irecv(at, rcounts[r], rdt, r, TAG_GATHER, c, c->ctx + 1, &rq[r]);
        }
    }
    for (int r = 0; r < c->size; r++) {
        if (!rq[r])
            continue;
        proto_wait(rq[r]);
        if (st >= 0 && rq[r]->err < 0)
            st = rq[r]->err;
        proto_request_release(rq[r]);
    }
    free(rq);
    return st;
}

rm_status_t coll_gather(const void *sbuf, MPI_Count scount, dtype_t *sdt, void *rbuf,
                        MPI_Count rcount, dtype_t *rdt, int root, comm_t *c)
{
    int *cnt = NULL, *dsp = NULL;
    if (c->rank == root) {
        cnt = malloc(sizeof(int) * (size_t)c->size);
        dsp = malloc(sizeof(int) * (size_t)c->size);
        if (!cnt || !dsp) {
            free(cnt);
            free(dsp);
            return RM_ERR_NOMEM;
        }
        for (int r = 0; r < c->size; r++) {
            cnt[r] = (int)rcount;
            dsp[r] = (int)(r * rcount);
        }
    }
    rm_status_t st = coll_gatherv(sbuf, scount, sdt, rbuf, cnt, dsp, rdt, root, c);
    free(cnt);
    free(dsp);
    return st;
}

rm_status_t coll_scatterv(const void *sbuf, const int *scounts, const int *displs, dtype_t *sdt,
                          void *rbuf, MPI_Count rcount, dtype_t *rdt, int root, comm_t *c)
{
    if (c->rank != root)
        return c_recv(rbuf, rcount, rdt, root, TAG_SCATTER, c);
    request_t **rq = calloc((size_t)c->size, sizeof *rq);
    if (!rq)
        return RM_ERR_NOMEM;
    rm_status_t st = RM_OK;
    for (int r = 0; r < c->size && st >= 0; r++) {
        const char *at = (const char *)sbuf + (MPI_Aint)displs[r] * sdt->extent;
        if (r == root) {
            if (rbuf != MPI_IN_PLACE)
                st = c_copy(at, scounts[r], sdt, rbuf, rcount, rdt);
        } else {
            st = proto_isend(at, scounts[r], sdt, r, TAG_SCATTER, c, c->ctx + 1, PROTO_STD, &rq[r]);
        }
    }
    for (int r = 0; r < c->size; r++) {
        if (!rq[r])
            continue;
        proto_wait(rq[r]);
        proto_request_release(rq[r]);
    }
    free(rq);
    return st;
}

rm_status_t coll_scatter(const void *sbuf, MPI_Count scount, dtype_t *sdt, void *rbuf,
                         MPI_Count rcount, dtype_t *rdt, int root, comm_t *c)
{
    int *cnt = NULL, *dsp = NULL;
    if (c->rank == root) {
        cnt = malloc(sizeof(int) * (size_t)c->size);
        dsp = malloc(sizeof(int) * (size_t)c->size);
        if (!cnt || !dsp) {
            free(cnt);
            free(dsp);
            return RM_ERR_NOMEM;
        }
        for (int r = 0; r < c->size; r++) {
            cnt[r] = (int)scount;
            dsp[r] = (int)(r * scount);
        }
    }
    rm_status_t st = coll_scatterv(sbuf, cnt, dsp, sdt, rbuf, rcount, rdt, root, c);
    free(cnt);
    free(dsp);
    return st;
}

rm_status_t coll_allgatherv(const void *sbuf, MPI_Count scount, dtype_t *sdt, void *rbuf,
                            const int *rcounts, const int *displs, dtype_t *rdt, comm_t *c)
{
    int n = c->size, me = c->rank;
    rm_status_t st;
    if (sbuf != MPI_IN_PLACE &&
        (st = c_copy(sbuf, scount, sdt, (char *)rbuf + (MPI_Aint)displs[me] * rdt->extent,
                     rcounts[me], rdt)) < 0)
        return st;
    /* ring: in step k pass on the block received in step k-1 */
    for (int k = 0; k < n - 1; k++) {
        int sb = (me - k + n) % n, rb = (me - k - 1 + n) % n;
        st = c_sendrecv((char *)rbuf + (MPI_Aint)displs[sb] * rdt->extent, rcounts[sb], rdt,
                        (me + 1) % n, (char *)rbuf + (MPI_Aint)displs[rb] * rdt->extent, rcounts[rb],
                        rdt, (me - 1 + n) % n, TAG_ALLGATHER, c);
        if (st < 0)
            return st;
    }
    return RM_OK;
}

rm_status_t coll_allgather(const void *sbuf, MPI_Count scount, dtype_t *sdt, void *rbuf,
                           MPI_Count rcount, dtype_t *rdt, comm_t *c)
{
    int *cnt = malloc(sizeof(int) * (size_t)c->size), *dsp = malloc(sizeof(int) * (size_t)c->size);
    if (!cnt || !dsp) {
        free(cnt);
        free(dsp);
        return RM_ERR_NOMEM;
    }
    for (int r = 0; r < c->size; r++) {
        cnt[r] = (int)rcount;
        dsp[r] = (int)(r * rcount);
    }
    rm_status_t st = coll_allgatherv(sbuf, scount, sdt, rbuf, cnt, dsp, rdt, c);
    free(cnt);
    free(dsp);
    return st;
}

rm_status_t coll_alltoallv(const void *sbuf, const int *scounts, const int *sdispls, dtype_t *sdt,
                           void *rbuf, const int *rcounts, const int *rdispls, dtype_t *rdt,
                           comm_t *c)
{
    int n = c->size;
    void *alloc = NULL;
    if (sbuf == MPI_IN_PLACE) {
        /* send from a copy of the receive buffer */
        MPI_Count span = 0;
        for (int r = 0; r < n; r++)
            if (rdispls[r] + rcounts[r] > span)
                span = rdispls[r] + rcounts[r];
        void *tmp = c_tmp(span, rdt, &alloc);
        if (!tmp)
            return RM_ERR_NOMEM;
        if (span)
            memcpy((char *)tmp + rdt->true_lb, (char *)rbuf + rdt->true_lb,
                   (size_t)((rdt->true_ub - rdt->true_lb) + (span - 1) * rdt->extent));
        sbuf = tmp;
        scounts = rcounts;
        sdispls = rdispls;
        sdt = rdt;
    }
    request_t **rq = calloc((size_t)(2 * n), sizeof *rq);
    if (!rq) {
        free(alloc);
        return RM_ERR_NOMEM;
    }
    rm_status_t st = RM_OK;
    for (int k = 0; k < n && st >= 0; k++) {
        int from = (c->rank - k + n) % n;
        st = proto_irecv((char *)rbuf + (MPI_Aint)rdispls[from] * rdt->extent, rcounts[from], rdt, from,
                         TAG_ALLTOALL, c, c->ctx + 1, &rq[from]);
    }
    for (int k = 0; k < n && st >= 0; k++) {
        int to = (c->rank + k) % n;
        st = proto_isend((const char *)sbuf + (MPI_Aint)sdispls[to] * sdt->extent, scounts[to], sdt, to,
                         TAG_ALLTOALL, c, c->ctx + 1, PROTO_STD, &rq[n + to]);
    }
    for (int i = 0; i < 2 * n; i++) {
        if (!rq[i])
            continue;
        proto_wait(rq[i]);
        if (st >= 0 && rq[i]->err < 0)
            st = rq[i]->err;
        proto_request_release(rq[i]);
    }
    free(rq);
    free(alloc);
    return st;
}

rm_status_t coll_alltoall(const void *sbuf, MPI_Count scount, dtype_t *sdt, void *rbuf,
                          MPI_Count rcount, dtype_t *rdt, comm_t *c)
{
    int n = c->size;
    int *v = malloc(sizeof(int) * 4 * (size_t)n);
    if (!v)
        return RM_ERR_NOMEM;
    for (int r = 0; r < n; r++) {
        v[r] = (int)scount;
        v[n + r] = (int)(r * scount);
        v[2 * n + r] = (int)rcount;
        v[3 * n + r] = (int)(r * rcount);
    }
    rm_status_t st = coll_alltoallv(sbuf, v, v + n, sdt, rbuf, v + 2 * n, v + 3 * n, rdt, c);
    free(v);
    return st;
}

/* ---- reductions -------------------------------------------------------- */

static rm_status_t c_apply(op_t *op, const void *in, void *io, MPI_Count n, dtype_t *dt)
{
    return op_apply(op, in, io, n, dt) == MPI_SUCCESS ? RM_OK : RM_ERR_INVALID;
}

rm_status_t coll_reduce(const void *sbuf, void *rbuf, MPI_Count count, dtype_t *dt, op_t *op,
                        int root, comm_t *c)
{
    int n = c->size, me = c->rank;
    rm_status_t st = RM_OK;
    if (sbuf == MPI_IN_PLACE)
        sbuf = rbuf; /* only the root may pass MPI_IN_PLACE */
    void *a_acc, *a_tmp;
    char *acc = c_tmp(count, dt, &a_acc), *tmp = c_tmp(count, dt, &a_tmp);
    if (!a_acc || !a_tmp) {
        free(a_acc);
        free(a_tmp);
        return RM_ERR_NOMEM;
    }
    if (op->commute) {
        /* binomial tree on ranks relative to the root */
        int rel = (me - root + n) % n;
        if ((st = c_copy(sbuf, count, dt, acc, count, dt)) < 0)
            goto out;
        for (int mask = 1; mask < n; mask <<= 1) {
            if (rel & mask) {
                st = c_send(acc, count, dt, (rel - mask + root) % n, TAG_REDUCE, c);
                goto out;
            }
            if (rel + mask < n) {
                if ((st = c_recv(tmp, count, dt, (rel + mask + root) % n, TAG_REDUCE, c)) < 0 ||
                    (st = c_apply(op, tmp, acc, count, dt)) < 0)
                    goto out;
            }
        }
    } else {
        /* in rank order: x0 op (x1 op (... op x(n-1))) folded from the top */
        if (me != root) {
            st = c_send(sbuf, count, dt, root, TAG_REDUCE, c);
            goto out;
        }
        for (int r = n - 1; r >= 0; r--) {
            if (r == me) {
                if ((st = c_copy(sbuf, count, dt, tmp, count, dt)) < 0)
                    goto out;
            } else if ((st = c_recv(tmp, count, dt, r, TAG_REDUCE, c)) < 0) {
                goto out;
            }
            if (r == n - 1)
                st = c_copy(tmp, count, dt, acc, count, dt);
            else
                st = c_apply(op, tmp, acc, count, dt); /* acc = x_r op acc */
            if (st < 0)
                goto out;
        }
    }
    if (me == root)
        st = c_copy(acc, count, dt, rbuf, count, dt);
out:
    free(a_acc);
    free(a_tmp);
    return st;
}

rm_status_t coll_allreduce(const void *sbuf, void *rbuf, MPI_Count count, dtype_t *dt, op_t *op,
                           comm_t *c)
{
    rm_status_t st = coll_reduce(sbuf == MPI_IN_PLACE && c->rank != 0 ? rbuf : sbuf, rbuf, count, dt,
                                 op, 0, c);
    if (st < 0)
        return st;
    return coll_bcast(rbuf, count, dt, 0, c);
}

rm_status_t coll_reduce_scatter(const void *sbuf, void *rbuf, const int *rcounts, dtype_t *dt,
                                op_t *op, comm_t *c)
{
    int n = c->size;
    MPI_Count total = 0;
    int *dsp = malloc(sizeof(int) * (size_t)n);
    if (!dsp)
        return RM_ERR_NOMEM;
    for (int r = 0; r < n; r++) {
        dsp[r] = (int)total;
        total += rcounts[r];
    }
    void *alloc;
    char *tmp = c_tmp(total, dt, &alloc);
    if (!alloc) {
        free(dsp);
        return RM_ERR_NOMEM;
    }
    rm_status_t st = coll_reduce(sbuf == MPI_IN_PLACE ? rbuf : sbuf, tmp, total, dt, op, 0, c);
    if (st >= 0)
        st = coll_scatterv(tmp, rcounts, dsp, dt, rbuf, rcounts[c->rank], dt, 0, c);
    free(alloc);
    free(dsp);
    return st;
}

rm_status_t coll_reduce_scatter_block(const void *sbuf, void *rbuf, MPI_Count rcount, dtype_t *dt,
                                      op_t *op, comm_t *c)
{
    int *cnt = malloc(sizeof(int) * (size_t)c->size);
    if (!cnt)
        return RM_ERR_NOMEM;
    for (int r = 0; r < c->size; r++)
        cnt[r] = (int)rcount;
    rm_status_t st = coll_reduce_scatter(sbuf, rbuf, cnt, dt, op, c);
    free(cnt);
    return st;
}

/* Prefix reductions along the rank chain: rank r receives x0..x(r-1). */
static rm_status_t coll_scan_common(const void *sbuf, void *rbuf, MPI_Count count, dtype_t *dt,
                                    op_t *op, comm_t *c, int exclusive)
{
    int me = c->rank;
    rm_status_t st = RM_OK;
    void *a_own, *a_pre;
    char *own = c_tmp(count, dt, &a_own), *pre = c_tmp(count, dt, &a_pre);
    if (!a_own || !a_pre) {
        free(a_own);
        free(a_pre);
        return RM_ERR_NOMEM;
    }
    if ((st = c_copy(sbuf == MPI_IN_PLACE ? rbuf : sbuf, count, dt, own, count, dt)) < 0)
        goto out;
    if (me > 0 && (st = c_recv(pre, count, dt, me - 1, TAG_SCAN, c)) < 0)
        goto out;
    if (exclusive) {
        if (me > 0 && (st = c_copy(pre, count, dt, rbuf, count, dt)) < 0)
            goto out;
        /* pass on prefix op own */
        if (me > 0 && (st = c_apply(op, pre, own, count, dt)) < 0)
            goto out;
    } else {
        if (me > 0 && (st = c_apply(op, pre, own, count, dt)) < 0)
            goto out;
        if ((st = c_copy(own, count, dt, rbuf, count, dt)) < 0)
            goto out;
    }
    if (me + 1 < c->size)
        st = c_send(own, count, dt, me + 1, TAG_SCAN, c);
out:
    free(a_own);
    free(a_pre);
    return st;
}

rm_status_t coll_scan(const void *sbuf, void *rbuf, MPI_Count count, dtype_t *dt, op_t *op,
                      comm_t *c)
{
    return coll_scan_common(sbuf, rbuf, count, dt, op, c, 0);
}

rm_status_t coll_exscan(const void *sbuf, void *rbuf, MPI_Count count, dtype_t *dt, op_t *op,
                        comm_t *c)
{
    return coll_scan_common(sbuf, rbuf, count, dt, op, c, 1);
}
