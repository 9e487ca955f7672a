/* Reductions by recursive doubling and halving, on any number of ranks:
 * with p the largest power of two <= n and rem = n - p, the first 2 rem
 * ranks fold in pairs (the even one hands its vector to the odd one above
 * it, which combines them as lower op higher), so p "virtual" ranks in
 * rank order take part in the power-of-two algorithm; at the end the odd
 * ones hand the result back. Virtual rank v is real rank 2v + 1 below rem,
 * v + rem above. */
#include "coll/build.h"

#include <stdlib.h>

typedef struct fold {
    int p, rem;
    int v; /* my virtual rank, -1 when folded away */
} fold_t;

static fold_t fold_of(const comm_t *c)
{
    fold_t f;
    f.p = 1;
    while (f.p * 2 <= c->size)
        f.p *= 2;
    f.rem = c->size - f.p;
    int me = c->rank;
    f.v = me < 2 * f.rem ? (me % 2 ? me / 2 : -1) : me - f.rem;
    return f;
}

static int fold_real(const fold_t *f, int v)
{
    return v < f->rem ? 2 * v + 1 : v + f->rem;
}

/* buf = mine; the even ranks of the folded pairs send, the odd combine
 * (the even one's data on the left). tmp holds count items. */
static void fold_in(coll_sched_t *s, void *buf, void *tmp, MPI_Count count, dtype_t *dt, op_t *op,
                    const fold_t *f, comm_t *c)
{
    int me = c->rank;
    if (me >= 2 * f->rem)
        return;
    if (f->v < 0) {
        coll_sched_send(s, buf, count, dt, me + 1);
        coll_sched_barrier(s);
    } else {
        coll_sched_recv(s, tmp, count, dt, me - 1);
        coll_sched_barrier(s);
        coll_sched_reduce(s, tmp, buf, count, dt, op);
    }
}

static void fold_out(coll_sched_t *s, void *buf, MPI_Count count, dtype_t *dt, const fold_t *f,
                     comm_t *c)
{
    int me = c->rank;
    if (me >= 2 * f->rem)
        return;
    if (f->v < 0)
        coll_sched_recv(s, buf, count, dt, me + 1);
    else
        coll_sched_send(s, buf, count, dt, me - 1);
    coll_sched_barrier(s);
}

/* Recursive doubling: log2(p) exchanges of the whole vector; the lower
 * virtual rank's data stays on the left, so any op keeps its order. */
void coll_build_allreduce_rd(coll_sched_t *s, const void *sbuf, void *rbuf, MPI_Count count,
                             dtype_t *dt, op_t *op, comm_t *c)
{
    fold_t f = fold_of(c);
    char *tmp = coll_sched_tmp(s, count, dt);
    if (!tmp)
        return;
    if (sbuf != MPI_IN_PLACE)
        coll_sched_copy(s, sbuf, count, dt, rbuf, count, dt);
    fold_in(s, rbuf, tmp, count, dt, op, &f, c);
    if (f.v >= 0) {
        for (int mask = 1; mask < f.p; mask <<= 1) {
            int pv = f.v ^ mask, peer = fold_real(&f, pv);
            coll_sched_recv(s, tmp, count, dt, peer);
            coll_sched_send(s, rbuf, count, dt, peer);
            coll_sched_barrier(s);
            if (pv < f.v || op->commute) {
                coll_sched_reduce(s, tmp, rbuf, count, dt, op); /* peer's op mine */
            } else {
                coll_sched_reduce(s, rbuf, tmp, count, dt, op); /* mine op peer's */
                coll_sched_copy(s, tmp, count, dt, rbuf, count, dt);
            }
        }
    }
    coll_sched_barrier(s);
    fold_out(s, rbuf, count, dt, &f, c);
}

/* Recursive halving over the p virtual ranks (commutative ops): work holds
 * the vector, cut into p virtual blocks at vdsp[0..p] (items); in each step
 * a rank keeps half of its range, sends the other half to the partner that
 * keeps it and adds what that partner sends for its own half. At the end
 * virtual rank v holds block v complete. */
static void halving(coll_sched_t *s, char *work, char *tmp, const MPI_Count *vdsp, dtype_t *dt,
                    op_t *op, const fold_t *f, comm_t *c)
{
    int lo = 0, hi = f->p;
    MPI_Aint ext = dt->extent;
    for (int mask = f->p / 2; mask > 0; mask >>= 1) {
        int pv = f->v ^ mask, peer = fold_real(f, pv), mid = lo + (hi - lo) / 2;
        int klo = f->v & mask ? mid : lo, khi = f->v & mask ? hi : mid; /* kept */
        int slo = f->v & mask ? lo : mid, shi = f->v & mask ? mid : hi; /* sent */
        coll_sched_recv(s, tmp, vdsp[khi] - vdsp[klo], dt, peer);
        coll_sched_send(s, work + vdsp[slo] * ext, vdsp[shi] - vdsp[slo], dt, peer);
        coll_sched_barrier(s);
        coll_sched_reduce(s, tmp, work + vdsp[klo] * ext, vdsp[khi] - vdsp[klo], dt, op);
        lo = klo;
        hi = khi;
    }
}

/* Rabenseifner: recursive halving leaves each virtual rank one block of
 * the reduced vector, recursive doubling gathers the blocks everywhere.
 * Each rank moves about 2x the vector in 2 log2(p) messages. Commutative
 * ops; count >= p. */
void coll_build_allreduce_rsag(coll_sched_t *s, const void *sbuf, void *rbuf, MPI_Count count,
                               dtype_t *dt, op_t *op, comm_t *c)
{
    fold_t f = fold_of(c);
    char *tmp = coll_sched_tmp(s, count, dt);
    MPI_Count *vdsp = coll_sched_bytes(s, sizeof(MPI_Count) * (size_t)(f.p + 1));
    if (!tmp || !vdsp)
        return;
    MPI_Count base = count / f.p, extra = count % f.p;
    for (int v = 0; v <= f.p; v++)
        vdsp[v] = v * base + (v < extra ? v : extra);
    if (sbuf != MPI_IN_PLACE)
        coll_sched_copy(s, sbuf, count, dt, rbuf, count, dt);
    fold_in(s, rbuf, tmp, count, dt, op, &f, c);
    if (f.v >= 0) {
        coll_sched_barrier(s);
        halving(s, rbuf, tmp, vdsp, dt, op, &f, c);
        coll_sched_barrier(s);
        MPI_Aint ext = dt->extent;
        for (int mask = 1; mask < f.p; mask <<= 1) {
            int pv = f.v ^ mask, peer = fold_real(&f, pv);
            int mlo = f.v & ~(mask - 1), plo = pv & ~(mask - 1);
            coll_sched_recv(s, (char *)rbuf + vdsp[plo] * ext, vdsp[plo + mask] - vdsp[plo], dt, peer);
            coll_sched_send(s, (char *)rbuf + vdsp[mlo] * ext, vdsp[mlo + mask] - vdsp[mlo], dt, peer);
            coll_sched_barrier(s);
        }
    }
    coll_sched_barrier(s);
    fold_out(s, rbuf, count, dt, &f, c);
}

/* Reduce_scatter by recursive halving (commutative ops): virtual rank v's
 * block is the blocks of the real ranks it stands for (both of a folded
 * pair), so the halving ends with each virtual rank holding what its real
 * ranks receive; the odd rank of a pair passes the even one its part. */
void coll_build_reduce_scatter_halving(coll_sched_t *s, const void *in, void *rbuf,
                                       const MPI_Count *cnt, const MPI_Aint *dsp, MPI_Count total,
                                       dtype_t *dt, op_t *op, comm_t *c)
{
    fold_t f = fold_of(c);
    int me = c->rank;
    char *work = coll_sched_tmp(s, total, dt), *tmp = coll_sched_tmp(s, total, dt);
    MPI_Count *vdsp = coll_sched_bytes(s, sizeof(MPI_Count) * (size_t)(f.p + 1));
    if (!work || !tmp || !vdsp)
        return;
    for (int v = 0; v < f.p; v++)
        vdsp[v] = dsp[v < f.rem ? 2 * v : v + f.rem];
    vdsp[f.p] = total;
    MPI_Aint ext = dt->extent;
    coll_sched_copy(s, in, total, dt, work, total, dt);
    coll_sched_barrier(s);
    fold_in(s, work, tmp, total, dt, op, &f, c);
    if (f.v < 0) {
        coll_sched_recv(s, rbuf, cnt[me], dt, me + 1);
        coll_sched_barrier(s);
        return;
    }
    coll_sched_barrier(s);
    halving(s, work, tmp, vdsp, dt, op, &f, c);
    coll_sched_barrier(s);
    if (me < 2 * f.rem)
        coll_sched_send(s, work + (MPI_Aint)dsp[me - 1] * ext, cnt[me - 1], dt, me - 1);
    coll_sched_copy(s, work + (MPI_Aint)dsp[me] * ext, cnt[me], dt, rbuf, cnt[me], dt);
    coll_sched_barrier(s);
}

/* Pairwise reduce_scatter for any op: every rank sends block r of its
 * vector to rank r and receives every rank's contribution to its own
 * block, then folds them in rank order (x0 op (x1 op ...)), so the order
 * of a non-commutative op is kept and no rank reduces more than its block. */
void coll_build_reduce_scatter_pairwise(coll_sched_t *s, const void *in, void *rbuf,
                                        const MPI_Count *cnt, const MPI_Aint *dsp, dtype_t *dt, op_t *op,
                                        comm_t *c)
{
    int n = c->size, me = c->rank;
    MPI_Aint ext = dt->extent;
    char **part = malloc(sizeof *part * (size_t)n);
    char *acc = coll_sched_tmp(s, cnt[me], dt);
    if (!part || !acc) {
        free(part);
        coll_sched_fail(s, RM_ERR_NOMEM);
        return;
    }
    for (int k = 1; k < n; k++) {
        int from = (me - k + n) % n, to = (me + k) % n;
        part[from] = coll_sched_tmp(s, cnt[me], dt);
        if (!part[from]) {
            free(part);
            return;
        }
        coll_sched_recv(s, part[from], cnt[me], dt, from);
        coll_sched_send(s, (const char *)in + (MPI_Aint)dsp[to] * ext, cnt[to], dt, to);
    }
    part[me] = (char *)in + (MPI_Aint)dsp[me] * ext;
    coll_sched_barrier(s);
    coll_sched_copy(s, part[n - 1], cnt[me], dt, acc, cnt[me], dt);
    for (int r = n - 2; r >= 0; r--)
        coll_sched_reduce(s, part[r], acc, cnt[me], dt, op);
    coll_sched_copy(s, acc, cnt[me], dt, rbuf, cnt[me], dt);
    coll_sched_barrier(s);
    free(part);
}
