/* Collectives on communicators that span hosts, in two levels: the ranks
 * of one host combine through shared memory at one of them (its leader,
 * the lowest rank there), only the leaders talk across the network (where
 * the engine stripes each message over the rails), and each leader hands
 * the result to its host's ranks. A host's ranks then cross the network
 * once per host instead of once each. Used for commutative ops (the hosts'
 * ranks need not be contiguous, so the order of the ranks is not kept). */
#include "coll/build.h"
#include "util/config.h"

#include <stdlib.h>

typedef struct hier {
    int leader;   /* my host's leader (a comm rank) */
    int nlocal;   /* ranks on my host, the leader first */
    int *local;
    int nlead;    /* one leader per host, ascending */
    int *leads;
    int lead_idx; /* my index in leads, -1 when not a leader */
} hier_t;

/* Two levels on c: more than one host, and some host with more than one
 * rank; 0 when not (or for processes outside the world, whose hosts this
 * process does not know). The arrays live as long as the schedule. */
static int hier_plan(coll_sched_t *s, const comm_t *c, hier_t *h)
{
    int n = c->size, me = c->rank;
    if (comm_is_inter(c) || n < 3 || !RM_CFG(coll_hierarchical))
        return 0;
    for (int r = 0; r < n; r++)
        if (c->group->world[r] < 0 || c->group->world[r] >= proto_proc.world_size)
            return 0;
#define HOST(r) (proto_proc.node_of[c->group->world[r]])
    int *a = coll_sched_bytes(s, sizeof(int) * 2 * (size_t)n);
    if (!a)
        return 0;
    h->local = a;
    h->leads = a + n;
    h->nlocal = h->nlead = 0;
    h->lead_idx = -1;
    for (int r = 0; r < n; r++) {
        int first = 1;
        for (int q = 0; q < r && first; q++)
            first = HOST(q) != HOST(r);
        if (first) {
            if (r == me)
                h->lead_idx = h->nlead;
            h->leads[h->nlead++] = r;
        }
        if (HOST(r) == HOST(me))
            h->local[h->nlocal++] = r;
    }
#undef HOST
    h->leader = h->local[0];
    return h->nlead > 1 && h->nlead < n;
}

static void hier_root_leads(hier_t *h, const comm_t *c, int root, int *root_lead);

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
    if (!op->commute || !hier_plan(s, c, &h))
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
    if (!hier_plan(s, c, &h))
        return 0;
    int me = c->rank, root_lead;
    hier_root_leads(&h, c, root, &root_lead);
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

/* The root stands in for its host's leader (hier_plan's lowest rank). */
static void hier_root_leads(hier_t *h, const comm_t *c, int root, int *root_lead)
{
    int me = c->rank;
    *root_lead = -1;
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
}

/* Reduce (commutative ops): a host's ranks send to its leader (the root on
 * the root's host), which adds them; the leaders reduce to the root down a
 * binomial tree over the leaders. */
int coll_build_reduce_hier(coll_sched_t *s, const void *sbuf, void *rbuf, MPI_Count count,
                           dtype_t *dt, op_t *op, int root, comm_t *c)
{
    hier_t h;
    if (!op->commute || !hier_plan(s, c, &h))
        return 0;
    int me = c->rank, root_lead;
    hier_root_leads(&h, c, root, &root_lead);
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
    if (!hier_plan(s, c, &h))
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

/* Allgather (equal blocks, fewer bytes in all than
 * RAILMPI_COLL_ALLGATHER_RING_MIN): a host's ranks send their blocks to its
 * leader, which places them in rbuf; the leaders exchange their hosts'
 * blocks (one message per block, in rank order, so the receiver knows
 * where each lands); each leader sends the whole vector to its host. */
int coll_build_allgather_hier(coll_sched_t *s, const void *sbuf, MPI_Count scount, dtype_t *sdt,
                              void *rbuf, MPI_Count rcount, dtype_t *rdt, comm_t *c)
{
    hier_t h;
    int n = c->size, me = c->rank;
    /* large vectors go round the ring instead: a leader handing the whole
     * vector to each of its host's ranks in turn would be the bottleneck */
    if (!rcount || !rdt->size ||
        (uint64_t)rcount * rdt->size * (uint64_t)n >= (uint64_t)RM_CFG(coll_allgather_ring_min) ||
        !hier_plan(s, c, &h))
        return 0;
#define BLK(r) ((char *)rbuf + (MPI_Aint)(r) * (MPI_Aint)rcount * rdt->extent)
#define HOST(r) (proto_proc.node_of[c->group->world[r]])
    if (h.lead_idx < 0) {
        if (sbuf == MPI_IN_PLACE)
            coll_sched_send(s, BLK(me), rcount, rdt, h.leader);
        else
            coll_sched_send(s, sbuf, scount, sdt, h.leader);
        coll_sched_barrier(s);
        coll_sched_recv(s, rbuf, rcount * n, rdt, h.leader);
        coll_sched_barrier(s);
        return 1;
    }
    if (sbuf != MPI_IN_PLACE)
        coll_sched_copy(s, sbuf, scount, sdt, BLK(me), rcount, rdt);
    for (int i = 1; i < h.nlocal; i++)
        coll_sched_recv(s, BLK(h.local[i]), rcount, rdt, h.local[i]);
    coll_sched_barrier(s);
    for (int l = 0; l < h.nlead; l++) {
        int peer = h.leads[l];
        if (peer == me)
            continue;
        for (int r = 0; r < n; r++)
            if (HOST(r) == HOST(peer))
                coll_sched_recv(s, BLK(r), rcount, rdt, peer);
        for (int i = 0; i < h.nlocal; i++)
            coll_sched_send(s, BLK(h.local[i]), rcount, rdt, peer);
    }
    coll_sched_barrier(s);
    for (int i = 1; i < h.nlocal; i++)
        coll_sched_send(s, rbuf, rcount * n, rdt, h.local[i]);
    coll_sched_barrier(s);
#undef BLK
#undef HOST
    return 1;
}
