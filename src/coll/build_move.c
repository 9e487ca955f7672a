/* Schedules that move data without reducing: dissemination barrier,
 * binomial broadcast (scatter + ring allgather for large vectors), binomial
 * gather/scatter of small blocks and linear ones at the root for large, Bruck allgather(v) for small vectors and ring
 * for large ones, and the general block exchange behind the all-to-all
 * family (every message of it posted in one round, receives first), or
 * Bruck for small alltoall blocks and pairwise rounds for large ones
 * (alltoallv/w too). */
#include "coll/build.h"
#include "util/config.h"

#include <stdlib.h>

void coll_build_barrier(coll_sched_t *s, comm_t *c)
{
    dtype_t *byte = dtype_get(MPI_BYTE);
    if (coll_build_barrier_hier(s, c))
        return;
    for (int k = 1; k < c->size; k <<= 1) {
        coll_sched_recv(s, NULL, 0, byte, (c->rank - k + c->size) % c->size);
        coll_sched_send(s, NULL, 0, byte, (c->rank + k) % c->size);
        coll_sched_barrier(s);
    }
}

/* Large broadcasts: the root sends block i of the vector to rank i, then a
 * ring allgather passes the blocks round; each rank sends and receives
 * about the vector once instead of log2(n) times at the tree's inner nodes. */
static void bcast_scatter_ring(coll_sched_t *s, void *buf, MPI_Count count, dtype_t *dt, int root,
                               comm_t *c)
{
    int n = c->size, me = c->rank, left = (me - 1 + n) % n, right = (me + 1) % n;
    MPI_Count base = count / n, extra = count % n;
#define BCNT(i) (base + ((i) < extra))
#define BAT(i) ((char *)buf + (MPI_Aint)((i) * base + ((i) < extra ? (i) : extra)) * dt->extent)
    if (me == root) {
        for (int i = 0; i < n; i++)
            if (i != root)
                coll_sched_send(s, BAT(i), BCNT(i), dt, i);
    } else {
        coll_sched_recv(s, BAT(me), BCNT(me), dt, root);
    }
    coll_sched_barrier(s);
    for (int k = 0; k < n - 1; k++) {
        int sb = (me - k + n) % n, rb = (me - k - 1 + n) % n;
        coll_sched_recv(s, BAT(rb), BCNT(rb), dt, left);
        coll_sched_send(s, BAT(sb), BCNT(sb), dt, right);
        coll_sched_barrier(s);
    }
#undef BCNT
#undef BAT
}

/* Large broadcasts among the ranks of one host: a chain from the root
 * through the ranks in order, the vector in segments, each rank passing
 * segment k on while it takes in k + 1. Each rank reads the vector once
 * (single copy, from its neighbour's buffer, where the segment is still in
 * the cache), the root serves one reader instead of all, and a rank waits
 * only for its neighbours, which on a host with fewer cores than ranks is
 * what keeps the waiting short. 0: not used here. */
static int bcast_chain(coll_sched_t *s, void *buf, MPI_Count count, dtype_t *dt, int root,
                       comm_t *c)
{
    uint64_t bytes = (uint64_t)count * (uint64_t)dt->size;
    if (c->remote_group || dt->size == 0 || bytes < (uint64_t)RM_CFG(coll_bcast_chain_min))
        return 0;
    const comm_hosts_t *h = coll_hosts(c);
    if (!h || h->nlead != 1)
        return 0;
    int n = c->size, rel = (c->rank - root + n) % n;
    int prev = rel > 0 ? (c->rank - 1 + n) % n : -1, next = rel + 1 < n ? (c->rank + 1) % n : -1;
    MPI_Count seg = (MPI_Count)((uint64_t)RM_CFG(coll_bcast_chain_seg) / dt->size);
    if (seg < 1)
        seg = 1;
    MPI_Count nseg = (count + seg - 1) / seg;
#define SEG_AT(k) ((char *)buf + (MPI_Aint)((k) * seg) * dt->extent)
#define SEG_N(k) ((k) == nseg - 1 ? count - (k) * seg : seg)
    for (MPI_Count k = 0; k <= nseg; k++) {
        if (prev >= 0 && k < nseg)
            coll_sched_recv(s, SEG_AT(k), SEG_N(k), dt, prev);
        if (next >= 0 && k > 0)
            coll_sched_send(s, SEG_AT(k - 1), SEG_N(k - 1), dt, next);
        coll_sched_barrier(s);
    }
#undef SEG_AT
#undef SEG_N
    return 1;
}

void coll_build_bcast(coll_sched_t *s, void *buf, MPI_Count count, dtype_t *dt, int root, comm_t *c)
{
    int n = c->size, rel = (c->rank - root + n) % n, mask = 1;
    if (coll_build_bcast_hier(s, buf, count, dt, root, c))
        return;
    if (n > 2 && bcast_chain(s, buf, count, dt, root, c))
        return;
    if (n > 2 && count >= n &&
        (uint64_t)count * (uint64_t)dt->size >= (uint64_t)RM_CFG(coll_bcast_scatter_min)) {
        bcast_scatter_ring(s, buf, count, dt, root, c);
        return;
    }
    while (mask < n) {
        if (rel & mask) {
            coll_sched_recv(s, buf, count, dt, (rel - mask + root) % n);
            coll_sched_barrier(s);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (rel + mask < n)
            coll_sched_send(s, buf, count, dt, (rel + mask + root) % n);
    coll_sched_barrier(s);
}

static char *blk_at(const void *buf, MPI_Count count, const MPI_Aint *displs, int i, const dtype_t *dt)
{
    MPI_Aint off = displs ? (MPI_Aint)displs[i] : (MPI_Aint)i * (MPI_Aint)count;
    return (char *)buf + off * dt->extent;
}

/* Binomial gather and scatter of small blocks: relative rank rel holds the
 * blocks of rel .. rel + its subtree's size - 1, packed as bytes in
 * relative order, so each rank sends or receives its subtree's run in one
 * message and the root handles log2(n) messages instead of n - 1. Block
 * sizes agree everywhere (the standard's matching type signatures). */
static int subtree(int rel, int n)
{
    int mask = 1;
    while (mask < n && !(rel & mask))
        mask <<= 1;
    return rel + mask < n ? mask : n - rel; /* the root: mask >= n, n - 0 */
}

static void gather_binomial(coll_sched_t *s, const void *sbuf, MPI_Count scount, dtype_t *sdt,
                            void *rbuf, MPI_Count rcount, dtype_t *rdt, int root, comm_t *c,
                            size_t bb)
{
    int n = c->size, me = c->rank, rel = (me - root + n) % n, sz = subtree(rel, n);
    dtype_t *byte = dtype_get(MPI_BYTE);
    char *tmp = coll_sched_bytes(s, bb * (size_t)sz);
    if (!tmp)
        return;
    if (me != root)
        coll_sched_copy(s, sbuf, scount, sdt, tmp, (MPI_Count)bb, byte);
    for (int mask = 1; mask < sz; mask <<= 1) {
        int k = mask < sz - mask ? mask : sz - mask;
        coll_sched_recv(s, tmp + bb * (size_t)mask, (MPI_Count)(bb * (size_t)k), byte,
                        (rel + mask + root) % n);
    }
    coll_sched_barrier(s);
    if (me != root) {
        coll_sched_send(s, tmp, (MPI_Count)(bb * (size_t)sz), byte, (rel - (rel & -rel) + root) % n);
    } else {
        if (sbuf != MPI_IN_PLACE)
            coll_sched_copy(s, sbuf, scount, sdt, blk_at(rbuf, rcount, NULL, me, rdt), rcount, rdt);
        for (int j = 1; j < n; j++)
            coll_sched_copy(s, tmp + bb * (size_t)j, (MPI_Count)bb, byte,
                            blk_at(rbuf, rcount, NULL, (root + j) % n, rdt), rcount, rdt);
    }
    coll_sched_barrier(s);
}

static void scatter_binomial(coll_sched_t *s, const void *sbuf, MPI_Count scount, dtype_t *sdt,
                             void *rbuf, MPI_Count rcount, dtype_t *rdt, int root, comm_t *c,
                             size_t bb)
{
    int n = c->size, me = c->rank, rel = (me - root + n) % n, sz = subtree(rel, n);
    dtype_t *byte = dtype_get(MPI_BYTE);
    char *tmp = coll_sched_bytes(s, bb * (size_t)sz);
    if (!tmp)
        return;
    if (me == root) {
        for (int j = 1; j < n; j++)
            coll_sched_copy(s, blk_at(sbuf, scount, NULL, (root + j) % n, sdt), scount, sdt,
                            tmp + bb * (size_t)j, (MPI_Count)bb, byte);
        if (rbuf != MPI_IN_PLACE)
            coll_sched_copy(s, blk_at(sbuf, scount, NULL, me, sdt), scount, sdt, rbuf, rcount, rdt);
    } else {
        coll_sched_recv(s, tmp, (MPI_Count)(bb * (size_t)sz), byte, (rel - (rel & -rel) + root) % n);
        coll_sched_barrier(s);
        coll_sched_copy(s, tmp, (MPI_Count)bb, byte, rbuf, rcount, rdt);
    }
    for (int mask = 1; mask < sz; mask <<= 1) {
        int k = mask < sz - mask ? mask : sz - mask;
        coll_sched_send(s, tmp + bb * (size_t)mask, (MPI_Count)(bb * (size_t)k), byte,
                        (rel + mask + root) % n);
    }
    coll_sched_barrier(s);
}

void coll_build_gather(coll_sched_t *s, const void *sbuf, MPI_Count scount, dtype_t *sdt,
                       void *rbuf, MPI_Count rcount, dtype_t *rdt, int root, comm_t *c)
{
    size_t bb = c->rank == root ? (size_t)rcount * rdt->size : (size_t)scount * sdt->size;
    if (c->size > 2 && bb && bb < (size_t)RM_CFG(coll_binomial_gather_max))
        gather_binomial(s, sbuf, scount, sdt, rbuf, rcount, rdt, root, c, bb);
    else
        coll_build_gatherv(s, sbuf, scount, sdt, rbuf, rcount, NULL, NULL, rdt, root, c);
}

void coll_build_scatter(coll_sched_t *s, const void *sbuf, MPI_Count scount, dtype_t *sdt,
                        void *rbuf, MPI_Count rcount, dtype_t *rdt, int root, comm_t *c)
{
    size_t bb = c->rank == root ? (size_t)scount * sdt->size : (size_t)rcount * rdt->size;
    if (c->size > 2 && bb && bb < (size_t)RM_CFG(coll_binomial_gather_max))
        scatter_binomial(s, sbuf, scount, sdt, rbuf, rcount, rdt, root, c, bb);
    else
        coll_build_scatterv(s, sbuf, scount, NULL, NULL, sdt, rbuf, rcount, rdt, root, c);
}

void coll_build_gatherv(coll_sched_t *s, const void *sbuf, MPI_Count scount, dtype_t *sdt,
                        void *rbuf, MPI_Count rcount, const MPI_Count *rcounts, const MPI_Aint *displs,
                        dtype_t *rdt, int root, comm_t *c)
{
    if (c->rank != root) {
        coll_sched_send(s, sbuf, scount, sdt, root);
    } else {
        for (int r = 0; r < c->size; r++) {
            MPI_Count n = rcounts ? rcounts[r] : rcount;
            char *at = blk_at(rbuf, rcount, displs, r, rdt);
            if (r != root)
                coll_sched_recv(s, at, n, rdt, r);
            else if (sbuf != MPI_IN_PLACE)
                coll_sched_copy(s, sbuf, scount, sdt, at, n, rdt);
        }
    }
    coll_sched_barrier(s);
}

void coll_build_scatterv(coll_sched_t *s, const void *sbuf, MPI_Count scount, const MPI_Count *scounts,
                         const MPI_Aint *displs, dtype_t *sdt, void *rbuf, MPI_Count rcount,
                         dtype_t *rdt, int root, comm_t *c)
{
    if (c->rank != root) {
        coll_sched_recv(s, rbuf, rcount, rdt, root);
    } else {
        for (int r = 0; r < c->size; r++) {
            MPI_Count n = scounts ? scounts[r] : scount;
            const char *at = blk_at(sbuf, scount, displs, r, sdt);
            if (r != root)
                coll_sched_send(s, at, n, sdt, r);
            else if (rbuf != MPI_IN_PLACE)
                coll_sched_copy(s, at, n, sdt, rbuf, rcount, rdt);
        }
    }
    coll_sched_barrier(s);
}

/* Bruck: a scratch vector holds the blocks rotated so that mine comes
 * first (position j: rank me + j); in the step of distance d a rank sends
 * its first min(d, n - d) positions to me - d and receives as many from
 * me + d behind the d it has, so after ceil(log2 n) steps it has all n,
 * which a last round copies into place. The positions sent and received
 * are contiguous in the scratch vector whatever the counts. */
static void allgather_bruck(coll_sched_t *s, const void *sbuf, MPI_Count scount, dtype_t *sdt,
                            void *rbuf, MPI_Count rcount, const MPI_Count *rcounts, const MPI_Aint *displs,
                            dtype_t *rdt, comm_t *c)
{
    int n = c->size, me = c->rank;
#define CNT(i) (rcounts ? (MPI_Count)rcounts[i] : rcount)
    MPI_Count *off = coll_sched_bytes(s, sizeof(MPI_Count) * (size_t)(n + 1));
    if (!off)
        return;
    off[0] = 0;
    for (int j = 0; j < n; j++)
        off[j + 1] = off[j] + CNT((me + j) % n);
    char *tmp = coll_sched_tmp(s, off[n], rdt);
    if (!tmp)
        return;
    MPI_Aint ext = rdt->extent;
    if (sbuf != MPI_IN_PLACE)
        coll_sched_copy(s, sbuf, scount, sdt, tmp, CNT(me), rdt);
    else
        coll_sched_copy(s, blk_at(rbuf, rcount, displs, me, rdt), CNT(me), rdt, tmp, CNT(me), rdt);
    coll_sched_barrier(s);
    for (int d = 1; d < n; d <<= 1) {
        int k = d < n - d ? d : n - d;
        coll_sched_recv(s, tmp + off[d] * ext, off[d + k] - off[d], rdt, (me + d) % n);
        coll_sched_send(s, tmp, off[k], rdt, (me - d + n) % n);
        coll_sched_barrier(s);
    }
    for (int j = sbuf == MPI_IN_PLACE; j < n; j++) {
        int r = (me + j) % n;
        coll_sched_copy(s, tmp + off[j] * ext, CNT(r), rdt, blk_at(rbuf, rcount, displs, r, rdt), CNT(r),
                        rdt);
    }
    coll_sched_barrier(s);
#undef CNT
}

void coll_build_allgatherv(coll_sched_t *s, const void *sbuf, MPI_Count scount, dtype_t *sdt,
                           void *rbuf, MPI_Count rcount, const MPI_Count *rcounts, const MPI_Aint *displs,
                           dtype_t *rdt, comm_t *c)
{
    int n = c->size, me = c->rank;
#define CNT(i) (rcounts ? (MPI_Count)rcounts[i] : rcount)
    if (coll_build_allgather_hier(s, sbuf, scount, sdt, rbuf, rcount, rcounts, displs, rdt, c))
        return;
    if (n > 2) {
        uint64_t bytes = 0;
        for (int i = 0; i < n; i++)
            bytes += (uint64_t)CNT(i) * (uint64_t)rdt->size;
        if (bytes < (uint64_t)RM_CFG(coll_allgather_ring_min)) {
            allgather_bruck(s, sbuf, scount, sdt, rbuf, rcount, rcounts, displs, rdt, c);
            return;
        }
    }
    if (sbuf != MPI_IN_PLACE) {
        /* in the first step's round: a round's copies run before its sends */
        coll_sched_copy(s, sbuf, scount, sdt, blk_at(rbuf, rcount, displs, me, rdt), CNT(me), rdt);
    }
    /* ring: in step k pass on the block received in step k-1. The first
     * step sends my block from sbuf, not from the copy just written into
     * rbuf: a peer reading lines this core has just modified pulls them
     * out of its cache one by one (a 64 KiB exchange of 2 ranks took 14
     * us from the copy, 5 from sbuf). */
    for (int k = 0; k < n - 1; k++) {
        int sb = (me - k + n) % n, rb = (me - k - 1 + n) % n;
        coll_sched_recv(s, blk_at(rbuf, rcount, displs, rb, rdt), CNT(rb), rdt, (me - 1 + n) % n);
        if (k == 0 && sbuf != MPI_IN_PLACE)
            coll_sched_send(s, sbuf, scount, sdt, (me + 1) % n);
        else
            coll_sched_send(s, blk_at(rbuf, rcount, displs, sb, rdt), CNT(sb), rdt, (me + 1) % n);
        coll_sched_barrier(s);
    }
#undef CNT
}

static MPI_Count blocks_count(const coll_blocks_t *b, int i)
{
    return b->counts ? b->counts[i] : b->count;
}

static dtype_t *blocks_dt(const coll_blocks_t *b, int i)
{
    return b->dts ? b->dts[i] : b->dt;
}

static MPI_Aint blocks_off(const coll_blocks_t *b, int i)
{
    if (b->bdispls)
        return b->bdispls[i];
    MPI_Aint ext = blocks_dt(b, i)->extent;
    return b->displs ? (MPI_Aint)b->displs[i] * ext : (MPI_Aint)i * (MPI_Aint)b->count * ext;
}

static int blocks_peer(const coll_blocks_t *b, int i)
{
    return b->peers ? b->peers[i] : i;
}

static int blocks_sub(const coll_blocks_t *b, int i)
{
    return b->subs ? b->subs[i] : 0;
}

void coll_build_exchange(coll_sched_t *s, const void *sbuf, const coll_blocks_t *sb, void *rbuf,
                         const coll_blocks_t *rb)
{
    const char *src = sbuf;
    const coll_blocks_t *from = sb;
    if (sbuf == MPI_IN_PLACE) {
        /* send from a copy of the bytes the receive blocks cover */
        MPI_Aint lo = 0, hi = 0;
        int any = 0;
        for (int i = 0; i < rb->n; i++) {
            MPI_Count n = blocks_count(rb, i);
            dtype_t *dt = blocks_dt(rb, i);
            if (!n || !dt->size)
                continue;
            MPI_Aint a = blocks_off(rb, i) + dt->true_lb;
            MPI_Aint z = blocks_off(rb, i) + dt->true_ub + (MPI_Aint)(n - 1) * dt->extent;
            if (!any || a < lo)
                lo = a;
            if (!any || z > hi)
                hi = z;
            any = 1;
        }
        char *tmp = coll_sched_bytes(s, (size_t)(hi - lo));
        if (!tmp)
            return;
        if (any) {
            dtype_t *byte = dtype_get(MPI_BYTE);
            coll_sched_copy(s, (char *)rbuf + lo, hi - lo, byte, tmp, hi - lo, byte);
            coll_sched_barrier(s);
        }
        src = tmp - lo;
        from = rb;
    }
    for (int i = 0; i < rb->n; i++)
        coll_sched_recv_sub(s, (char *)rbuf + blocks_off(rb, i), blocks_count(rb, i),
                            blocks_dt(rb, i), blocks_peer(rb, i), blocks_sub(rb, i));
    for (int i = 0; i < from->n; i++)
        coll_sched_send_sub(s, src + blocks_off(from, i), blocks_count(from, i),
                            blocks_dt(from, i), blocks_peer(from, i), blocks_sub(from, i));
    coll_sched_barrier(s);
}

/* Bruck alltoall of equal blocks of bb bytes: a scratch vector holds my
 * blocks rotated (position j: the block for me + j); in the step of
 * distance d every position with bit d set goes to me + d, packed into one
 * message, and the same positions come back from me - d. After ceil(log2 n)
 * steps position j holds the block rank me - j sent me. Each rank sends
 * log2(n) messages of about n/2 blocks instead of n - 1 messages. */
static void alltoall_bruck(coll_sched_t *s, const void *sbuf, const coll_blocks_t *sb, void *rbuf,
                           const coll_blocks_t *rb, comm_t *c, size_t bb)
{
    int n = c->size, me = c->rank;
    dtype_t *byte = dtype_get(MPI_BYTE);
    const coll_blocks_t *from = sbuf == MPI_IN_PLACE ? rb : sb;
    const char *src = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    char *tmp = coll_sched_bytes(s, bb * (size_t)n);
    char *out = coll_sched_bytes(s, bb * (size_t)(n / 2 + 1));
    char *in = coll_sched_bytes(s, bb * (size_t)(n / 2 + 1));
    if (!tmp || !out || !in)
        return;
    /* the whole send side is read before anything lands in rbuf (in place) */
    for (int j = 0; j < n; j++) {
        int t = (me + j) % n;
        coll_sched_copy(s, src + blocks_off(from, t), blocks_count(from, t), blocks_dt(from, t),
                        tmp + bb * (size_t)j, (MPI_Count)bb, byte);
    }
    int prev = 0;
    for (int d = 1; d < n; d <<= 1) {
        /* unpack the last step's arrivals before packing this step's */
        for (int j = 1, k = 0; prev && j < n; j++)
            if (j & prev)
                coll_sched_copy(s, in + bb * (size_t)k++, (MPI_Count)bb, byte,
                                tmp + bb * (size_t)j, (MPI_Count)bb, byte);
        int k = 0;
        for (int j = 1; j < n; j++)
            if (j & d)
                coll_sched_copy(s, tmp + bb * (size_t)j, (MPI_Count)bb, byte, out + bb * (size_t)k++,
                                (MPI_Count)bb, byte);
        coll_sched_recv(s, in, (MPI_Count)(bb * (size_t)k), byte, (me - d + n) % n);
        coll_sched_send(s, out, (MPI_Count)(bb * (size_t)k), byte, (me + d) % n);
        coll_sched_barrier(s);
        prev = d;
    }
    for (int j = 1, k = 0; prev && j < n; j++)
        if (j & prev)
            coll_sched_copy(s, in + bb * (size_t)k++, (MPI_Count)bb, byte, tmp + bb * (size_t)j,
                            (MPI_Count)bb, byte);
    for (int j = 0; j < n; j++) {
        int f = (me - j + n) % n;
        coll_sched_copy(s, tmp + bb * (size_t)j, (MPI_Count)bb, byte, (char *)rbuf + blocks_off(rb, f),
                        blocks_count(rb, f), blocks_dt(rb, f));
    }
    coll_sched_barrier(s);
}

void coll_build_alltoall(coll_sched_t *s, const void *sbuf, const coll_blocks_t *sb, void *rbuf,
                         const coll_blocks_t *rb, comm_t *c)
{
    int n = c->size, me = c->rank;
    if (comm_is_inter(c) || sb->peers || rb->peers || n < 3) {
        coll_build_exchange(s, sbuf, sb, rbuf, rb);
        return;
    }
    /* MPI_Alltoall's blocks are all one size, alike on every rank (the
     * matching type signatures), so every rank chooses the same. For
     * alltoallv/w each rank judges by the mean of its receive blocks, and
     * ranks may choose differently: harmless, as each pair of ranks
     * exchanges one message each way either way, which match in any order
     * of posting, and a rank that posts everything at once never blocks a
     * pairwise one. */
    uint64_t bb = (uint64_t)blocks_count(rb, 0) * (uint64_t)blocks_dt(rb, 0)->size;
    if (rb->counts || rb->dts) {
        uint64_t sum = 0;
        for (int i = 0; i < n; i++)
            sum += (uint64_t)blocks_count(rb, i) * (uint64_t)blocks_dt(rb, i)->size;
        bb = sum / (uint64_t)n;
    }
    int plain = !rb->counts && !sb->counts && !rb->dts && !sb->dts;
    if (plain && coll_build_alltoall_hier(s, sbuf, sb, rbuf, rb, (size_t)bb, c))
        return;
    if (plain && bb && bb < (uint64_t)RM_CFG(coll_alltoall_bruck_max)) {
        alltoall_bruck(s, sbuf, sb, rbuf, rb, c, (size_t)bb);
        return;
    }
    if (sbuf == MPI_IN_PLACE || bb < (uint64_t)RM_CFG(coll_alltoall_pairwise_min)) {
        coll_build_exchange(s, sbuf, sb, rbuf, rb);
        return;
    }
    /* pairwise: in round k a rank sends to me + k and receives from me - k,
     * so each rank has one partner in each direction at a time instead of
     * n - 1 large messages contending for the same links and cores */
    coll_sched_copy(s, (const char *)sbuf + blocks_off(sb, me), blocks_count(sb, me), blocks_dt(sb, me),
                    (char *)rbuf + blocks_off(rb, me), blocks_count(rb, me), blocks_dt(rb, me));
    for (int k = 1; k < n; k++) {
        int to = (me + k) % n, from = (me - k + n) % n;
        coll_sched_recv(s, (char *)rbuf + blocks_off(rb, from), blocks_count(rb, from),
                        blocks_dt(rb, from), from);
        coll_sched_send(s, (const char *)sbuf + blocks_off(sb, to), blocks_count(sb, to),
                        blocks_dt(sb, to), to);
        coll_sched_barrier(s);
    }
    coll_sched_barrier(s);
}
