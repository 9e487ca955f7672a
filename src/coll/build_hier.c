/* Collectives on communicators that span hosts, in two levels: the ranks
 * of one host combine through shared memory at one of them (its leader,
 * the lowest rank there), only the leaders talk across the network (where
 * the engine stripes each message over the rails), and each leader hands
 * the result to its host's ranks. A host's ranks then cross the network
 * once per host instead of once each. Reductions only for commutative ops
 * (the hosts' ranks need not be contiguous, so the order of the ranks is
 * not kept). */
#include "coll/build.h"
#include "util/config.h"

#include <stdlib.h>
#include <string.h>

typedef comm_hosts_t hier_t;

/* Where the ranks of c live, worked out once per communicator in one pass
 * (a job's collectives on a large communicator must not redo it each call;
 * build.h). */
const comm_hosts_t *coll_hosts(comm_t *c)
{
    if (c->hosts)
        return c->hosts;
    int n = c->size, me = c->rank, nn = proto_proc.nnodes;
    for (int r = 0; r < n; r++)
        if (c->group->world[r] < 0 || c->group->world[r] >= proto_proc.world_size)
            return NULL;
    hier_t *h = malloc(sizeof *h + sizeof(int) * (2 * (size_t)n + (size_t)nn));
    if (!h)
        return NULL;
    h->local = (int *)(h + 1);
    h->leads = h->local + n;
    int *seen = h->leads + n; /* host -> whether it has a leader yet */
    memset(seen, 0, sizeof(int) * (size_t)nn);
    h->nlocal = h->nlead = 0;
    h->lead_idx = -1;
#define HOST(r) (proto_proc.node_of[c->group->world[r]])
    int mine = HOST(me);
    for (int r = 0; r < n; r++) {
        int host = HOST(r);
        if (!seen[host]) {
            seen[host] = 1;
            if (r == me)
                h->lead_idx = h->nlead;
            h->leads[h->nlead++] = r;
        }
        if (host == mine)
            h->local[h->nlocal++] = r;
    }
#undef HOST
    h->leader = h->local[0];
    h->two_level = h->nlead > 1 && h->nlead < n;
    c->hosts = h;
    return h;
}

/* Two levels on c: more than one host, and some host with more than one
 * rank; 0 when not. The arrays live as long as the communicator. */
static int hier_plan(const comm_t *c, hier_t *h)
{
    if (comm_is_inter(c) || c->size < 3 || !RM_CFG(coll_hierarchical))
        return 0;
    const hier_t *k = coll_hosts((comm_t *)c);
    if (!k || !k->two_level)
        return 0;
    *h = *k;
    return 1;
}

static int hier_root_leads(coll_sched_t *s, hier_t *h, const comm_t *c, int root, int *root_lead);

/* Allreduce among the leaders on buf: a ring when every leader gets at
 * least one item (each block is reduced at one leader, so all end with the
 * same bits), else every leader sends its vector to every other and each
 * reduces them all in leader order (the same order everywhere). */
static void leaders_allreduce(coll_sched_t *s, void *buf, MPI_Count count, dtype_t *dt, op_t *op,
                              const hier_t *h)
{
    int L = h->nlead, me = h->lead_idx;
    if (count >= L) {
        int left = h->leads[(me - 1 + L) % L], right = h->leads[(me + 1) % L];
        MPI_Count base = count / L, extra = count % L;
#define BCNT(i) (base + ((i) < extra))
#define BAT(i) ((char *)buf + (MPI_Aint)((i) * base + ((i) < extra ? (i) : extra)) * dt->extent)
        char *tmp = coll_sched_tmp(s, base + (extra > 0), dt);
        if (!tmp)
            return;
        for (int k = 0; k < L - 1; k++) {
            int sb = (me - k + L) % L, rb = (me - k - 1 + L) % L;
            coll_sched_recv(s, tmp, BCNT(rb), dt, left);
            coll_sched_send(s, BAT(sb), BCNT(sb), dt, right);
            coll_sched_barrier(s);
            coll_sched_reduce(s, tmp, BAT(rb), BCNT(rb), dt, op);
        }
        for (int k = 0; k < L - 1; k++) {
            int sb = (me + 1 - k + L) % L, rb = (me - k + L) % L;
            coll_sched_recv(s, BAT(rb), BCNT(rb), dt, left);
            coll_sched_send(s, BAT(sb), BCNT(sb), dt, right);
            coll_sched_barrier(s);
        }
#undef BCNT
#undef BAT
        return;
    }
    char *mine = coll_sched_tmp(s, count, dt);
    char **in = malloc(sizeof *in * (size_t)L);
    if (!mine || !in) {
        free(in);
        coll_sched_fail(s, RM_ERR_NOMEM);
        return;
    }
    coll_sched_copy(s, buf, count, dt, mine, count, dt);
    for (int i = 0; i < L; i++) {
        in[i] = i == me ? mine : coll_sched_tmp(s, count, dt);
        if (!in[i]) {
            free(in);
            return;
        }
        if (i != me) {
            coll_sched_recv(s, in[i], count, dt, h->leads[i]);
            coll_sched_send(s, buf, count, dt, h->leads[i]);
        }
    }
    coll_sched_barrier(s);
    coll_sched_copy(s, in[L - 1], count, dt, buf, count, dt);
    for (int i = L - 2; i >= 0; i--)
        coll_sched_reduce(s, in[i], buf, count, dt, op);
    coll_sched_barrier(s);
    free(in);
}

int coll_build_allreduce_hier(coll_sched_t *s, const void *sbuf, void *rbuf, MPI_Count count,
                              dtype_t *dt, op_t *op, comm_t *c)
{
    hier_t h;
    if (!op->commute || !hier_plan(c, &h))
        return 0;
    int me = c->rank;
    const void *own = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    if (me != h.leader) {
        coll_sched_send(s, own, count, dt, h.leader);
        coll_sched_barrier(s);
        coll_sched_recv(s, rbuf, count, dt, h.leader);
        coll_sched_barrier(s);
        return 1;
    }
    coll_sched_copy(s, own, count, dt, rbuf, count, dt);
    if (h.nlocal > 1) {
        char **in = malloc(sizeof *in * (size_t)h.nlocal);
        if (!in) {
            coll_sched_fail(s, RM_ERR_NOMEM);
            return 1;
        }
        for (int i = 1; i < h.nlocal; i++) {
            in[i] = coll_sched_tmp(s, count, dt);
            if (!in[i]) {
                free(in);
                return 1;
            }
            coll_sched_recv(s, in[i], count, dt, h.local[i]);
        }
        coll_sched_barrier(s);
        for (int i = 1; i < h.nlocal; i++)
            coll_sched_reduce(s, in[i], rbuf, count, dt, op);
        free(in);
    }
    coll_sched_barrier(s);
    leaders_allreduce(s, rbuf, count, dt, op, &h);
    for (int i = 1; i < h.nlocal; i++)
        coll_sched_send(s, rbuf, count, dt, h.local[i]);
    coll_sched_barrier(s);
    return 1;
}

/* Broadcast: the root stands in for its host's leader; it sends to the
 * other leaders down a binomial tree over the leaders, then every leader
 * sends to its host's ranks. */
int coll_build_bcast_hier(coll_sched_t *s, void *buf, MPI_Count count, dtype_t *dt, int root,
                          comm_t *c)
{
    hier_t h;
    if (!hier_plan(c, &h))
        return 0;
    int me = c->rank, root_lead;
    if (!hier_root_leads(s, &h, c, root, &root_lead))
        return 1;
    if (h.lead_idx >= 0) {
        int L = h.nlead, rel = (h.lead_idx - root_lead + L) % L, mask = 1;
        while (mask < L) {
            if (rel & mask) {
                coll_sched_recv(s, buf, count, dt, h.leads[(rel - mask + root_lead) % L]);
                coll_sched_barrier(s);
                break;
            }
            mask <<= 1;
        }
        for (mask >>= 1; mask > 0; mask >>= 1)
            if (rel + mask < L)
                coll_sched_send(s, buf, count, dt, h.leads[(rel + mask + root_lead) % L]);
        for (int i = 0; i < h.nlocal; i++)
            if (h.local[i] != me)
                coll_sched_send(s, buf, count, dt, h.local[i]);
    } else {
        coll_sched_recv(s, buf, count, dt, h.leader);
    }
    coll_sched_barrier(s);
    return 1;
}

/* The root stands in for its host's leader (hier_plan's lowest rank), in
 * the schedule's own copy of the leaders. 0: no memory (the schedule has
 * failed). */
static int hier_root_leads(coll_sched_t *s, hier_t *h, const comm_t *c, int root, int *root_lead)
{
    int me = c->rank;
    *root_lead = -1;
    int *leads = coll_sched_bytes(s, sizeof(int) * (size_t)h->nlead);
    if (!leads)
        return 0;
    memcpy(leads, h->leads, sizeof(int) * (size_t)h->nlead);
    h->leads = leads;
    for (int i = 0; i < h->nlead; i++)
        if (proto_proc.node_of[c->group->world[h->leads[i]]] ==
            proto_proc.node_of[c->group->world[root]]) {
            *root_lead = i;
            h->leads[i] = root;
        }
    if (proto_proc.node_of[c->group->world[me]] == proto_proc.node_of[c->group->world[root]]) {
        h->leader = root;
        h->lead_idx = me == root ? *root_lead : -1;
    }
    return 1;
}

/* Reduce (commutative ops): a host's ranks send to its leader (the root on
 * the root's host), which adds them; the leaders reduce to the root down a
 * binomial tree over the leaders. */
int coll_build_reduce_hier(coll_sched_t *s, const void *sbuf, void *rbuf, MPI_Count count,
                           dtype_t *dt, op_t *op, int root, comm_t *c)
{
    hier_t h;
    if (!op->commute || !hier_plan(c, &h))
        return 0;
    int me = c->rank, root_lead;
    if (!hier_root_leads(s, &h, c, root, &root_lead))
        return 1;
    if (h.lead_idx < 0) {
        coll_sched_send(s, sbuf, count, dt, h.leader);
        coll_sched_barrier(s);
        return 1;
    }
    char *acc = me == root ? rbuf : coll_sched_tmp(s, count, dt);
    char *tmp = coll_sched_tmp(s, count, dt);
    if (!acc || !tmp)
        return 1;
    coll_sched_copy(s, sbuf, count, dt, acc, count, dt);
    for (int i = 0; i < h.nlocal; i++) {
        if (h.local[i] == me)
            continue;
        coll_sched_recv(s, tmp, count, dt, h.local[i]);
        coll_sched_barrier(s);
        coll_sched_reduce(s, tmp, acc, count, dt, op); /* runs before tmp is reused */
    }
    int L = h.nlead, rel = (h.lead_idx - root_lead + L) % L;
    for (int mask = 1; mask < L; mask <<= 1) {
        if (rel & mask) {
            coll_sched_barrier(s);
            coll_sched_send(s, acc, count, dt, h.leads[(rel - mask + root_lead) % L]);
            break;
        }
        if (rel + mask < L) {
            coll_sched_barrier(s);
            coll_sched_recv(s, tmp, count, dt, h.leads[(rel + mask + root_lead) % L]);
            coll_sched_barrier(s);
            coll_sched_reduce(s, tmp, acc, count, dt, op);
        }
    }
    coll_sched_barrier(s);
    return 1;
}

/* Barrier: a host's ranks report to its leader, the leaders run the
 * dissemination barrier among themselves, and each leader releases its
 * host. ceil(log2 hosts) network rounds instead of ceil(log2 ranks). */
int coll_build_barrier_hier(coll_sched_t *s, comm_t *c)
{
    hier_t h;
    if (!hier_plan(c, &h))
        return 0;
    dtype_t *byte = dtype_get(MPI_BYTE);
    if (h.lead_idx < 0) {
        coll_sched_send(s, NULL, 0, byte, h.leader);
        coll_sched_barrier(s);
        coll_sched_recv(s, NULL, 0, byte, h.leader);
        coll_sched_barrier(s);
        return 1;
    }
    for (int i = 1; i < h.nlocal; i++)
        coll_sched_recv(s, NULL, 0, byte, h.local[i]);
    coll_sched_barrier(s);
    int L = h.nlead, me = h.lead_idx;
    for (int k = 1; k < L; k <<= 1) {
        coll_sched_recv(s, NULL, 0, byte, h.leads[(me - k + L) % L]);
        coll_sched_send(s, NULL, 0, byte, h.leads[(me + k) % L]);
        coll_sched_barrier(s);
    }
    for (int i = 1; i < h.nlocal; i++)
        coll_sched_send(s, NULL, 0, byte, h.local[i]);
    coll_sched_barrier(s);
    return 1;
}

/* Allgather(v) (fewer bytes in all than RAILMPI_COLL_ALLGATHER_RING_MIN):
 * a host's ranks send their blocks to its leader, which places them in
 * rbuf; the leaders exchange their hosts' blocks (one message per block, in
 * rank order, so the receiver knows where each lands); each leader sends
 * its host's ranks the vector: whole when the blocks are equal and packed
 * (rcounts and displs NULL), else block by block (a rank's own and empty
 * blocks skipped alike on both sides; every rank knows every count). */
int coll_build_allgather_hier(coll_sched_t *s, const void *sbuf, MPI_Count scount, dtype_t *sdt,
                              void *rbuf, MPI_Count rcount, const MPI_Count *rcounts, const MPI_Aint *displs,
                              dtype_t *rdt, comm_t *c)
{
    hier_t h;
    int n = c->size, me = c->rank;
    uint64_t bytes = 0;
    for (int r = 0; r < n; r++)
        bytes += (uint64_t)(rcounts ? (MPI_Count)rcounts[r] : rcount) * rdt->size;
    /* large vectors go round the ring instead: a leader handing the whole
     * vector to each of its host's ranks in turn would be the bottleneck */
    if (!bytes || bytes >= (uint64_t)RM_CFG(coll_allgather_ring_min) || !hier_plan(c, &h))
        return 0;
    int whole = !rcounts && !displs;
#define CNT(r) (rcounts ? (MPI_Count)rcounts[r] : rcount)
#define BLK(r) ((char *)rbuf + (displs ? (MPI_Aint)displs[r] : (MPI_Aint)(r) * (MPI_Aint)rcount) * rdt->extent)
#define HOST(r) (proto_proc.node_of[c->group->world[r]])
    if (h.lead_idx < 0) {
        if (sbuf == MPI_IN_PLACE)
            coll_sched_send(s, BLK(me), CNT(me), rdt, h.leader);
        else
            coll_sched_send(s, sbuf, scount, sdt, h.leader);
        coll_sched_barrier(s);
        if (whole)
            coll_sched_recv(s, rbuf, rcount * n, rdt, h.leader);
        else if (sbuf != MPI_IN_PLACE)
            coll_sched_copy(s, sbuf, scount, sdt, BLK(me), CNT(me), rdt);
        for (int r = 0; r < n && !whole; r++)
            if (r != me && CNT(r))
                coll_sched_recv(s, BLK(r), CNT(r), rdt, h.leader);
        coll_sched_barrier(s);
        return 1;
    }
    if (sbuf != MPI_IN_PLACE)
        coll_sched_copy(s, sbuf, scount, sdt, BLK(me), CNT(me), rdt);
    for (int i = 1; i < h.nlocal; i++)
        coll_sched_recv(s, BLK(h.local[i]), CNT(h.local[i]), rdt, h.local[i]);
    coll_sched_barrier(s);
    for (int l = 0; l < h.nlead; l++) {
        int peer = h.leads[l];
        if (peer == me)
            continue;
        for (int r = 0; r < n; r++)
            if (HOST(r) == HOST(peer) && CNT(r))
                coll_sched_recv(s, BLK(r), CNT(r), rdt, peer);
        for (int i = 0; i < h.nlocal; i++)
            if (CNT(h.local[i]))
                coll_sched_send(s, BLK(h.local[i]), CNT(h.local[i]), rdt, peer);
    }
    coll_sched_barrier(s);
    for (int i = 1; i < h.nlocal; i++) {
        if (whole) {
            coll_sched_send(s, rbuf, rcount * n, rdt, h.local[i]);
            continue;
        }
        for (int r = 0; r < n; r++)
            if (r != h.local[i] && CNT(r))
                coll_sched_send(s, BLK(r), CNT(r), rdt, h.local[i]);
    }
    coll_sched_barrier(s);
#undef CNT
#undef BLK
#undef HOST
    return 1;
}

/* Reduce_scatter(_block) (commutative ops): a host's ranks send their
 * whole input to its leader, which adds them; in L - 1 pairwise rounds each
 * leader sends every other leader the blocks of that leader's host's ranks
 * (packed, in rank order) and adds what it receives to its own host's
 * blocks, so each block of the result is complete at one leader, which
 * hands it to its rank. cnt/dsp: each rank's block in items; `in` the
 * whole input (rbuf when in place). */
int coll_build_reduce_scatter_hier(coll_sched_t *s, const void *in, void *rbuf, const MPI_Count *cnt,
                                   const MPI_Aint *dsp, MPI_Count total, dtype_t *dt, op_t *op,
                                   comm_t *c)
{
    hier_t h;
    if (!op->commute || !hier_plan(c, &h))
        return 0;
    int n = c->size, me = c->rank;
    if (h.lead_idx < 0) {
        coll_sched_send(s, in, total, dt, h.leader);
        coll_sched_barrier(s);
        coll_sched_recv(s, rbuf, cnt[me], dt, h.leader);
        coll_sched_barrier(s);
        return 1;
    }
#define HOST(r) (proto_proc.node_of[c->group->world[r]])
#define BAT(b, i) ((char *)(b) + (MPI_Aint)dsp[i] * dt->extent)
    char *acc = coll_sched_tmp(s, total, dt);
    char **loc = malloc(sizeof *loc * (size_t)h.nlocal);
    if (!acc || !loc) {
        free(loc);
        coll_sched_fail(s, RM_ERR_NOMEM);
        return 1;
    }
    coll_sched_copy(s, in, total, dt, acc, total, dt);
    for (int i = 1; i < h.nlocal; i++) {
        loc[i] = coll_sched_tmp(s, total, dt);
        if (!loc[i]) {
            free(loc);
            return 1;
        }
        coll_sched_recv(s, loc[i], total, dt, h.local[i]);
    }
    coll_sched_barrier(s);
    for (int i = 1; i < h.nlocal; i++)
        coll_sched_reduce(s, loc[i], acc, total, dt, op);
    free(loc);
    /* the most any host's blocks hold, for one packed buffer each way */
    MPI_Count most = 0;
    for (int l = 0; l < h.nlead; l++) {
        MPI_Count sum = 0;
        for (int r = 0; r < n; r++)
            if (HOST(r) == HOST(h.leads[l]))
                sum += cnt[r];
        most = sum > most ? sum : most;
    }
    char *out = coll_sched_tmp(s, most, dt), *got = coll_sched_tmp(s, most, dt);
    if (!out || !got)
        return 1;
    int L = h.nlead;
    for (int k = 1; k < L; k++) {
        int to = h.leads[(h.lead_idx + k) % L], from = h.leads[(h.lead_idx - k + L) % L];
        coll_sched_barrier(s); /* the last round's sum is read before `out` is refilled */
        MPI_Count at = 0, mine = 0;
        for (int r = 0; r < n; r++)
            if (HOST(r) == HOST(to) && cnt[r]) {
                coll_sched_copy(s, BAT(acc, r), cnt[r], dt, out + (MPI_Aint)at * dt->extent, cnt[r], dt);
                at += cnt[r];
            }
        for (int i = 0; i < h.nlocal; i++)
            mine += cnt[h.local[i]];
        coll_sched_recv(s, got, mine, dt, from);
        coll_sched_send(s, out, at, dt, to);
        coll_sched_barrier(s);
        at = 0;
        for (int i = 0; i < h.nlocal; i++) {
            int r = h.local[i];
            if (!cnt[r])
                continue;
            coll_sched_reduce(s, got + (MPI_Aint)at * dt->extent, BAT(acc, r), cnt[r], dt, op);
            at += cnt[r];
        }
    }
    coll_sched_barrier(s);
    /* (ranks of a host ascend in h.local, as in the packing above) */
    coll_sched_copy(s, BAT(acc, me), cnt[me], dt, rbuf, cnt[me], dt);
    for (int i = 1; i < h.nlocal; i++)
        coll_sched_send(s, BAT(acc, h.local[i]), cnt[h.local[i]], dt, h.local[i]);
    coll_sched_barrier(s);
#undef BAT
#undef HOST
    return 1;
}

/* Alltoall of equal blocks of bb bytes (below RAILMPI_COLL_ALLTOALL_HIER_MAX):
 * a host's ranks send their n blocks, packed, to its leader; each leader
 * sends every other leader one message holding the blocks its host's ranks
 * have for that leader's host (ordered by destination, then source, both in
 * rank order) and gets the like back; then it packs for each of its host's
 * ranks the n blocks addressed to it, in source order, and sends them.
 * L (L - 1) network messages instead of about n (n - 1). The send side is
 * read in the first round, before anything lands in rbuf (in place). */
int coll_build_alltoall_hier(coll_sched_t *s, const void *sbuf, const coll_blocks_t *sb,
                             void *rbuf, const coll_blocks_t *rb, size_t bb, comm_t *c)
{
    hier_t h;
    if (!bb || bb >= (size_t)RM_CFG(coll_alltoall_hier_max) || !hier_plan(c, &h))
        return 0;
    int n = c->size, L = h.nlead;
    dtype_t *byte = dtype_get(MPI_BYTE);
    const coll_blocks_t *from = sbuf == MPI_IN_PLACE ? rb : sb;
    const char *src = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
#define HOST(r) (proto_proc.node_of[c->group->world[r]])
#define BOFF(b, i) ((b)->bdispls ? (b)->bdispls[i] : (b)->displs ? (MPI_Aint)(b)->displs[i] * (b)->dt->extent \
                                                                 : (MPI_Aint)(i) * (MPI_Aint)(b)->count * (b)->dt->extent)
    /* mine: my n send blocks packed in destination order */
    char *mine = coll_sched_bytes(s, bb * (size_t)n), *all = coll_sched_bytes(s, bb * (size_t)n);
    if (!mine || !all)
        return 1;
    for (int t = 0; t < n; t++)
        coll_sched_copy(s, src + BOFF(from, t), from->count, from->dt, mine + bb * (size_t)t,
                        (MPI_Count)bb, byte);
    if (h.lead_idx < 0) {
        coll_sched_send(s, mine, (MPI_Count)(bb * (size_t)n), byte, h.leader);
        coll_sched_barrier(s);
        coll_sched_recv(s, all, (MPI_Count)(bb * (size_t)n), byte, h.leader);
        coll_sched_barrier(s);
    } else {
        int nl = h.nlocal;
        /* g + bb (i n + t): local rank i's block for rank t */
        char *g = coll_sched_bytes(s, bb * (size_t)nl * (size_t)n);
        int *hsz = coll_sched_bytes(s, sizeof(int) * (size_t)L);
        char **out = malloc(sizeof *out * 2 * (size_t)L), **in = out + L;
        if (!g || !hsz || !out) {
            free(out);
            coll_sched_fail(s, RM_ERR_NOMEM);
            return 1;
        }
        for (int l = 0; l < L; l++) {
            hsz[l] = 0;
            for (int r = 0; r < n; r++)
                hsz[l] += HOST(r) == HOST(h.leads[l]);
        }
        coll_sched_copy(s, mine, (MPI_Count)(bb * (size_t)n), byte, g, (MPI_Count)(bb * (size_t)n), byte);
        for (int i = 1; i < nl; i++)
            coll_sched_recv(s, g + bb * (size_t)i * (size_t)n, (MPI_Count)(bb * (size_t)n), byte,
                            h.local[i]);
        coll_sched_barrier(s);
        for (int l = 0; l < L; l++) {
            out[l] = in[l] = NULL;
            if (l == h.lead_idx)
                continue;
            size_t sz = bb * (size_t)nl * (size_t)hsz[l];
            out[l] = coll_sched_bytes(s, sz);
            in[l] = coll_sched_bytes(s, sz);
            if (!out[l] || !in[l]) {
                free(out);
                return 1;
            }
            size_t k = 0;
            for (int t = 0; t < n; t++)
                if (HOST(t) == HOST(h.leads[l]))
                    for (int i = 0; i < nl; i++, k++)
                        coll_sched_copy(s, g + bb * ((size_t)i * (size_t)n + (size_t)t), (MPI_Count)bb, byte,
                                        out[l] + bb * k, (MPI_Count)bb, byte);
            coll_sched_recv(s, in[l], (MPI_Count)sz, byte, h.leads[l]);
            coll_sched_send(s, out[l], (MPI_Count)sz, byte, h.leads[l]);
        }
        coll_sched_barrier(s);
        /* for local rank j, from source f: f on my host (local index i):
         * g's block (i, local[j]); else in[l] at (j's place among my host's
         * ranks, f's among l's), which is (j, f's index) */
        for (int j = 0; j < nl; j++) {
            char *dst = j == 0 ? all : coll_sched_bytes(s, bb * (size_t)n);
            if (!dst) {
                free(out);
                return 1;
            }
            for (int f = 0; f < n; f++) {
                const char *at = NULL;
                for (int i = 0; i < nl && !at; i++)
                    if (h.local[i] == f)
                        at = g + bb * ((size_t)i * (size_t)n + (size_t)h.local[j]);
                for (int l = 0; l < L && !at; l++) {
                    if (l == h.lead_idx || HOST(f) != HOST(h.leads[l]))
                        continue;
                    int fi = 0;
                    for (int q = 0; q < f; q++)
                        fi += HOST(q) == HOST(f);
                    at = in[l] + bb * ((size_t)j * (size_t)hsz[l] + (size_t)fi);
                }
                coll_sched_copy(s, at, (MPI_Count)bb, byte, dst + bb * (size_t)f, (MPI_Count)bb, byte);
            }
            if (j > 0)
                coll_sched_send(s, dst, (MPI_Count)(bb * (size_t)n), byte, h.local[j]);
        }
        free(out);
        coll_sched_barrier(s);
    }
    for (int f = 0; f < n; f++)
        coll_sched_copy(s, all + bb * (size_t)f, (MPI_Count)bb, byte, (char *)rbuf + BOFF(rb, f), rb->count,
                        rb->dt);
    coll_sched_barrier(s);
#undef BOFF
#undef HOST
    return 1;
}
