/* Reduction schedules: binomial reduce (commutative ops; ring
 * reduce-scatter + gather from RAILMPI_COLL_REDUCE_RSG_MIN), in-rank-order
 * reduce at the root (non-commutative ops); allreduce as a ring for large
 * vectors and commutative ops (RAILMPI_COLL_RING_MIN), Rabenseifner for
 * mid sizes (RAILMPI_COLL_RSAG_MIN), recursive doubling otherwise (any op:
 * the lower ranks' data stays on the left); reduce_scatter as the ring's
 * first half (commutative ops, large vectors), by recursive halving
 * (commutative) or pairwise (non-commutative); scans by recursive doubling.
 * The doubling and halving algorithms are in build_halving.c. */
#include "coll/build.h"
#include "util/config.h"

#include <stdlib.h>

/* Whether n items of dt at a and m at b share bytes. */
static int ranges_overlap(const void *a, MPI_Count n, const void *b, MPI_Count m, const dtype_t *dt)
{
    if (!n || !m)
        return 0;
    const char *a0 = (const char *)a + dt->true_lb, *b0 = (const char *)b + dt->true_lb;
    const char *a1 = (const char *)a + (MPI_Aint)(n - 1) * dt->extent + dt->true_ub;
    const char *b1 = (const char *)b + (MPI_Aint)(m - 1) * dt->extent + dt->true_ub;
    return a0 < b1 && b0 < a1;
}

static void reduce_scatter_ring(coll_sched_t *s, const void *in, void *rbuf, const MPI_Count *cnt,
                                const MPI_Aint *dsp, MPI_Count total, dtype_t *dt, op_t *op, comm_t *c);

/* Large reductions to a root: the ring's reduce-scatter half leaves block
 * i of the result at rank i, which the root gathers; every rank sends and
 * adds about the vector once instead of the root receiving and adding it
 * log2(n) times. Commutative ops; count >= n. */
static void reduce_rsg(coll_sched_t *s, const void *sbuf, void *rbuf, MPI_Count count, dtype_t *dt,
                       op_t *op, int root, comm_t *c)
{
    int n = c->size, me = c->rank;
    MPI_Count *cnt = coll_sched_bytes(s, sizeof *cnt * (size_t)n);
    MPI_Aint *dsp = coll_sched_bytes(s, sizeof *dsp * (size_t)n);
    if (!cnt || !dsp)
        return;
    MPI_Count base = count / n, extra = count % n;
    for (int i = 0; i < n; i++) {
        cnt[i] = base + (i < extra);
        dsp[i] = (MPI_Aint)(i * base + (i < extra ? i : extra));
    }
    char *mine = me == root ? (char *)rbuf + (MPI_Aint)dsp[me] * dt->extent
                            : coll_sched_tmp(s, cnt[me], dt);
    if (!mine)
        return;
    reduce_scatter_ring(s, sbuf, mine, cnt, dsp, count, dt, op, c);
    coll_build_gatherv(s, mine, cnt[me], dt, rbuf, 0, cnt, dsp, dt, root, c);
}

void coll_build_reduce(coll_sched_t *s, const void *sbuf, void *rbuf, MPI_Count count, dtype_t *dt,
                       op_t *op, int root, comm_t *c)
{
    int n = c->size, me = c->rank;
    if (sbuf == MPI_IN_PLACE)
        sbuf = rbuf; /* only the root may pass MPI_IN_PLACE */
    if (!op->commute) {
        if (me != root) {
            coll_sched_send(s, sbuf, count, dt, root);
            coll_sched_barrier(s);
            return;
        }
        /* everyone's data at the root, folded from the top:
         * x0 op (x1 op (... op x(n-1))) */
        char **in = malloc(sizeof *in * (size_t)n);
        char *acc = coll_sched_tmp(s, count, dt);
        if (!in || !acc) {
            free(in);
            coll_sched_fail(s, RM_ERR_NOMEM);
            return;
        }
        for (int r = 0; r < n; r++) {
            in[r] = r == me ? (char *)sbuf : coll_sched_tmp(s, count, dt);
            if (!in[r]) {
                free(in);
                return;
            }
            if (r != me)
                coll_sched_recv(s, in[r], count, dt, r);
        }
        coll_sched_barrier(s);
        coll_sched_copy(s, in[n - 1], count, dt, acc, count, dt);
        for (int r = n - 2; r >= 0; r--)
            coll_sched_reduce(s, in[r], acc, count, dt, op);
        coll_sched_copy(s, acc, count, dt, rbuf, count, dt);
        coll_sched_barrier(s);
        free(in);
        return;
    }
    if (coll_build_reduce_hier(s, sbuf, rbuf, count, dt, op, root, c))
        return;
    if (n > 1 && count >= n &&
        (uint64_t)count * (uint64_t)dt->size >= (uint64_t)RM_CFG(coll_reduce_rsg_min)) {
        reduce_rsg(s, sbuf, rbuf, count, dt, op, root, c);
        return;
    }
    int rel = (me - root + n) % n;
    if (rel & 1) { /* a leaf: its own vector goes up as it is */
        coll_sched_send(s, sbuf, count, dt, (rel - 1 + root) % n);
        coll_sched_barrier(s);
        return;
    }
    /* The root adds into its result buffer, inner nodes into scratch. The
     * first child's vector is received straight into that sum and my own
     * added to it (commutative), so my vector is never copied (unless in
     * place, where it already is the sum); later children's come through
     * tmp. A node whose children are all done sends its sum (or, with no
     * children, its own vector as it is). */
    char *acc = me == root ? rbuf : coll_sched_tmp(s, count, dt), *tmp = NULL;
    if (!acc)
        return;
    int summing = 0; /* acc holds my vector plus what came so far */
    if (ranges_overlap(sbuf, count, acc, count, dt)) {
        coll_sched_copy(s, sbuf, count, dt, acc, count, dt); /* nothing to copy in place */
        summing = 1;
    }
    for (int mask = 1; mask < n; mask <<= 1) {
        if (rel & mask) {
            coll_sched_send(s, summing ? acc : sbuf, count, dt, (rel - mask + root) % n);
            coll_sched_barrier(s);
            return;
        }
        if (rel + mask < n) {
            int child = (rel + mask + root) % n;
            if (!summing) {
                coll_sched_recv(s, acc, count, dt, child);
                coll_sched_barrier(s);
                coll_sched_reduce(s, sbuf, acc, count, dt, op);
                summing = 1;
                continue;
            }
            if (!tmp && !(tmp = coll_sched_tmp(s, count, dt)))
                return;
            coll_sched_recv(s, tmp, count, dt, child);
            coll_sched_barrier(s);
            coll_sched_reduce(s, tmp, acc, count, dt, op); /* runs before tmp is reused */
        }
    }
    if (!summing) /* the root alone */
        coll_sched_copy(s, sbuf, count, dt, rbuf, count, dt);
    coll_sched_barrier(s);
}

/* Ring allreduce: n - 1 steps of reduce-scatter (each passes on the block
 * it has just added its own data to) leave block me + 1 complete here, then
 * n - 1 steps of allgather pass the complete blocks round. Every rank sends
 * and receives about 2 (n - 1) / n of the vector, and the op runs on 1/n
 * of it per step; each block's result is computed once, so every rank ends
 * with the same bits. */
static void allreduce_ring(coll_sched_t *s, const void *sbuf, void *rbuf, MPI_Count count,
                           dtype_t *dt, op_t *op, comm_t *c)
{
    int n = c->size, me = c->rank, left = (me - 1 + n) % n, right = (me + 1) % n;
    MPI_Count base = count / n, extra = count % n;
#define BCNT(i) (base + ((i) < extra))
#define BAT(i) ((char *)rbuf + (MPI_Aint)((i) * base + ((i) < extra ? (i) : extra)) * dt->extent)
    if (sbuf != MPI_IN_PLACE && !ranges_overlap(sbuf, count, rbuf, count, dt)) {
        /* the partial sums are received into their own blocks of rbuf and
         * my input added there; the first block goes straight from sbuf
         * (no copy of the whole input, which the peer would then pull out
         * of this core's cache) */
#define SAT(i) ((const char *)sbuf + (MPI_Aint)((i) * base + ((i) < extra ? (i) : extra)) * dt->extent)
        for (int k = 0; k < n - 1; k++) {
            int sb = (me - k + n) % n, rb = (me - k - 1 + n) % n;
            coll_sched_recv(s, BAT(rb), BCNT(rb), dt, left);
            coll_sched_send(s, k ? BAT(sb) : SAT(sb), BCNT(sb), dt, right);
            coll_sched_barrier(s);
            coll_sched_reduce(s, SAT(rb), BAT(rb), BCNT(rb), dt, op); /* commutative */
        }
#undef SAT
    } else {
        char *tmp = coll_sched_tmp(s, base + (extra > 0), dt);
        if (!tmp)
            return;
        if (sbuf != MPI_IN_PLACE) {
            coll_sched_copy(s, sbuf, count, dt, rbuf, count, dt);
            coll_sched_barrier(s);
        }
        for (int k = 0; k < n - 1; k++) {
            int sb = (me - k + n) % n, rb = (me - k - 1 + n) % n;
            coll_sched_recv(s, tmp, BCNT(rb), dt, left);
            coll_sched_send(s, BAT(sb), BCNT(sb), dt, right);
            coll_sched_barrier(s);
            coll_sched_reduce(s, tmp, BAT(rb), BCNT(rb), dt, op); /* runs before tmp is reused */
        }
    }
    for (int k = 0; k < n - 1; k++) {
        int sb = (me + 1 - k + n) % n, rb = (me - k + n) % n;
        coll_sched_recv(s, BAT(rb), BCNT(rb), dt, left);
        coll_sched_send(s, BAT(sb), BCNT(sb), dt, right);
        coll_sched_barrier(s);
    }
#undef BCNT
#undef BAT
}

void coll_build_allreduce(coll_sched_t *s, const void *sbuf, void *rbuf, MPI_Count count,
                          dtype_t *dt, op_t *op, comm_t *c)
{
    int n = c->size, p = 1;
    while (p * 2 <= n)
        p *= 2;
    uint64_t bytes = (uint64_t)count * (uint64_t)dt->size;
    if (coll_build_allreduce_hier(s, sbuf, rbuf, count, dt, op, c))
        return;
    if (n > 1 && op->commute && count >= n && bytes >= (uint64_t)RM_CFG(coll_ring_min))
        allreduce_ring(s, sbuf, rbuf, count, dt, op, c);
    else if (n > 1 && op->commute && count >= p && bytes >= (uint64_t)RM_CFG(coll_rsag_min))
        coll_build_allreduce_rsag(s, sbuf, rbuf, count, dt, op, c);
    else
        coll_build_allreduce_rd(s, sbuf, rbuf, count, dt, op, c);
}

/* The ring's reduce-scatter (commutative ops): in step k each rank passes
 * its partial sum of one block to the right and adds its own input to the
 * partial sum of the next that comes from the left; after n - 1 steps the
 * sum of block me is complete here. The partial sums live in two scratch
 * blocks taking turns (the one being sent and the one being received), and
 * the first step sends straight from the input: the input is never copied
 * as a whole (a rank reading lines the other has just written pulls them
 * out of its cache one by one, and the copy itself cost as much). The last
 * partial sum is received into rbuf itself. When rbuf overlaps the input
 * (in place) the input is first copied aside as before. */
static void reduce_scatter_ring(coll_sched_t *s, const void *in, void *rbuf, const MPI_Count *cnt,
                                const MPI_Aint *dsp, MPI_Count total, dtype_t *dt, op_t *op, comm_t *c)
{
    int n = c->size, me = c->rank, left = (me - 1 + n) % n, right = (me + 1) % n;
    MPI_Count most = 0;
    for (int i = 0; i < n; i++)
        if (cnt[i] > most)
            most = cnt[i];
    MPI_Aint ext = dt->extent;
    const char *src = in;
    if (ranges_overlap(in, total, rbuf, cnt[me], dt)) {
        char *work = coll_sched_tmp(s, total, dt);
        if (!work)
            return;
        coll_sched_copy(s, in, total, dt, work, total, dt);
        coll_sched_barrier(s);
        src = work;
    }
#define IN(i) (src + (MPI_Aint)dsp[i] * ext)
    if (n == 1) {
        coll_sched_copy(s, IN(me), cnt[me], dt, rbuf, cnt[me], dt);
        coll_sched_barrier(s);
        return;
    }
    char *part[2] = {coll_sched_tmp(s, most, dt), n > 2 ? coll_sched_tmp(s, most, dt) : NULL};
    if (!part[0] || (n > 2 && !part[1]))
        return;
    for (int k = 0; k < n - 1; k++) {
        int sb = (me - k - 1 + n) % n, rb = (me - k - 2 + 2 * n) % n;
        char *into = k == n - 2 ? (char *)rbuf : part[k % 2];
        coll_sched_recv(s, into, cnt[rb], dt, left);
        coll_sched_send(s, k ? part[(k - 1) % 2] : IN(sb), cnt[sb], dt, right);
        coll_sched_barrier(s);
        coll_sched_reduce(s, IN(rb), into, cnt[rb], dt, op); /* commutative: either order */
    }
    coll_sched_barrier(s);
#undef IN
}

void coll_build_reduce_scatter(coll_sched_t *s, const void *sbuf, void *rbuf, MPI_Count rcount,
                               const MPI_Count *rcounts, dtype_t *dt, op_t *op, comm_t *c)
{
    int n = c->size;
    MPI_Count *cnt = malloc(sizeof *cnt * (size_t)n);
    MPI_Aint *dsp = malloc(sizeof *dsp * (size_t)n);
    if (!cnt || !dsp) {
        free(cnt);
        free(dsp);
        coll_sched_fail(s, RM_ERR_NOMEM);
        return;
    }
    MPI_Count total = 0;
    for (int r = 0; r < n; r++) {
        cnt[r] = rcounts ? rcounts[r] : rcount;
        dsp[r] = (MPI_Aint)total;
        total += cnt[r];
    }
    const void *in = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    if (coll_build_reduce_scatter_hier(s, in, rbuf, cnt, dsp, total, dt, op, c))
        goto done;
    if (n > 1 && op->commute &&
        (uint64_t)total * (uint64_t)dt->size >= (uint64_t)RM_CFG(coll_ring_min))
        reduce_scatter_ring(s, in, rbuf, cnt, dsp, total, dt, op, c);
    else if (op->commute)
        coll_build_reduce_scatter_halving(s, in, rbuf, cnt, dsp, total, dt, op, c);
    else
        coll_build_reduce_scatter_pairwise(s, in, rbuf, cnt, dsp, dt, op, c);
done:
    free(cnt);
    free(dsp);
}

/* Recursive doubling: `part` holds the reduction over a run of ranks that
 * ends at me and doubles each step; what comes from a lower partner goes on
 * the left of both part and the result, from a higher one on the right of
 * part only, so the order of a non-commutative op is kept at any size. */
void coll_build_scan(coll_sched_t *s, const void *sbuf, void *rbuf, MPI_Count count, dtype_t *dt,
                     op_t *op, int exclusive, comm_t *c)
{
    int n = c->size, me = c->rank, have = !exclusive;
    char *part = coll_sched_tmp(s, count, dt), *tmp = coll_sched_tmp(s, count, dt);
    if (!part || !tmp)
        return;
    const void *own = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    coll_sched_copy(s, own, count, dt, part, count, dt);
    if (!exclusive)
        coll_sched_copy(s, own, count, dt, rbuf, count, dt);
    coll_sched_barrier(s);
    for (int mask = 1; mask < n; mask <<= 1) {
        int peer = me ^ mask;
        if (peer >= n)
            continue;
        coll_sched_recv(s, tmp, count, dt, peer);
        coll_sched_send(s, part, count, dt, peer);
        coll_sched_barrier(s);
        if (peer < me) {
            if (have) {
                coll_sched_reduce(s, tmp, rbuf, count, dt, op);
            } else {
                coll_sched_copy(s, tmp, count, dt, rbuf, count, dt);
                have = 1;
            }
            coll_sched_reduce(s, tmp, part, count, dt, op); /* theirs op mine */
        } else if (op->commute) {
            coll_sched_reduce(s, tmp, part, count, dt, op);
        } else {
            coll_sched_reduce(s, part, tmp, count, dt, op); /* mine op theirs */
            coll_sched_copy(s, tmp, count, dt, part, count, dt);
        }
    }
    coll_sched_barrier(s);
}
