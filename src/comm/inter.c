/* Intercommunicators: two disjoint groups and one context id both agree on.
 * Each group first agrees inside itself (its local communicator), then the
 * two leaders exchange what their group decided (group lists, free context
 * ids, flags) and each leader broadcasts the other side's answer to its own
 * group. The leaders talk over the peer communicator at creation and over
 * the intercommunicator's collective context afterwards. */
#include "coll/inter.h"
#include "comm/comm.h"
#include "comm/ctxid.h"
#include "proto/proto.h"

#include <stdlib.h>
#include <string.h>

/* tags on an intercommunicator's collective context (schedules, coll/sched.c, use 2^24..) */
enum { TAG_C_MERGE = 61, TAG_C_CREATE, TAG_C_SPLIT };

/* A bridge between the two leaders: over `ctx` of `via`, to rank `peer`. */
typedef struct bridge {
    comm_t *via;
    uint32_t ctx;
    int peer, tag;
    int fd; /* >= 0: a socket to the other leader instead (dynamic processes) */
} bridge_t;

static bridge_t inter_bridge(comm_t *c, int tag)
{
    return (bridge_t){.via = c, .ctx = c->ctx + 1, .peer = 0, .tag = tag, .fd = -1};
}

/* The leader swaps its n items of `type` for the other leader's m; its
 * group gets them too. */
static rm_status_t inter_swap(comm_t *local, int leader, const bridge_t *b, const void *mine,
                              int n, void *theirs, int m, MPI_Datatype type)
{
    dtype_t *dt = dtype_get(type);
    rm_status_t st = RM_OK;
    if (local->rank == leader && b->fd >= 0)
        st = proto_fd_swap(b->fd, mine, (size_t)n * dt->size, theirs, (size_t)m * dt->size);
    else if (local->rank == leader)
        st = coll_inter_sendrecv(b->via, b->ctx, b->peer, b->tag, mine, n, dt, theirs, m, dt);
    /* the group follows its leader even when the leader failed: a flag
     * in front would cost a round, and a failed exchange is fatal anyway */
    rm_status_t st2 = coll_bcast(theirs, m, dt, leader, local);
    return st < 0 ? st : st2;
}

/* A context id agreement's exchange (src/comm/ctxid.c) across a bridge:
 * the AND over the local group, swapped by the leaders. */
typedef struct bridge_round {
    comm_t *local;
    int leader;
    const bridge_t *b;
} bridge_round_t;

static rm_status_t inter_id_exchange(uint32_t *buf, void *arg)
{
    const bridge_round_t *r = arg;
    uint32_t other[CTXID_LEN];
    dtype_t *u32 = dtype_get(MPI_UINT32_T);
    rm_status_t st = coll_allreduce(MPI_IN_PLACE, buf, CTXID_LEN, u32, op_get(MPI_BAND), r->local);
    if (st >= 0)
        st = inter_swap(r->local, r->leader, r->b, buf, CTXID_LEN, other, CTXID_LEN, MPI_UINT32_T);
    for (int i = 0; st >= 0 && i < CTXID_LEN; i++)
        buf[i] &= other[i];
    return st;
}

/* An id for a new intercommunicator between local's group and the one at
 * the other end of the bridge: both sides' creation keys are swapped first
 * so that both order the agreement alike among others. */
static rm_status_t inter_id_agree(comm_t *local, int leader, const bridge_t *b, int *id)
{
    ctxid_key_t mine = ctxid_key_next(local), theirs;
    rm_status_t st = inter_swap(local, leader, b, &mine, 2, &theirs, 2, MPI_UINT64_T);
    if (st < 0)
        return st;
    bridge_round_t r = {local, leader, b};
    return ctxid_agree(ctxid_key_pair(mine, theirs), 1, 1, inter_id_exchange, &r, id);
}

static group_t *inter_group(const int *world, int n)
{
    group_t *g = group_new(n, 0);
    if (g)
        memcpy(g->world, world, sizeof(int) * (size_t)n);
    return g;
}

/* A new intercommunicator from `parent` (an intercommunicator): id agreed
 * by both groups, its own local communicator made from the parent's.
 * Non-members (lg NULL) take part and get *out = NULL. Takes over lg, rg. */
static rm_status_t inter_build(comm_t *parent, group_t *lg, group_t *rg, comm_t **out)
{
    int id, member = lg != NULL;
    comm_t *lc = NULL, *local_parent = parent->local_comm;
    errhandler_t *errh = parent->errh;
    *out = NULL;
    rm_status_t st = ctxid_alloc(parent, member, 1, &id);
    int taken = st >= 0 && member;
    group_t *lcg = member ? inter_group(lg->world, lg->size) : NULL;
    if (st >= 0 && member && !lcg)
        st = RM_ERR_NOMEM; /* still join the local creation below so nobody waits */
    rm_status_t st2 = comm_create_internal(local_parent, st >= 0 ? lcg : NULL, 0, &lc);
    if (st2 < 0 || !lc)
        group_release(lcg);
    if (st >= 0)
        st = st2;
    if (st >= 0 && member) {
        taken = 0; /* comm_new gives it back if it fails */
        if ((st = comm_inherit(parent, comm_new(lg, rg, id, errh, 1, out), out)) >= 0) {
            (*out)->local_comm = lc;
            return RM_OK;
        }
    }
    if (taken)
        ctxid_release(id);
    if (lc)
        comm_release(lc);
    group_release(lg);
    group_release(rg);
    return st;
}

rm_status_t comm_inter_create_with_ids(comm_t *parent, group_t *lg, group_t *rg, const int *ids, comm_t **out)
{
    *out = NULL;
    group_t *lcg = inter_group(lg->world, lg->size);
    comm_t *lc = NULL;
    rm_status_t st = lcg ? comm_new(lcg, NULL, ids[1], parent->local_comm->errh, 0, &lc) : RM_ERR_NOMEM;
    if (st < 0) {
        ctxid_release(ids[0]);
        if (lcg)
            group_release(lcg); /* comm_new gave ids[1] back */
        else
            ctxid_release(ids[1]);
        return st;
    }
    if ((st = comm_inherit(parent, comm_new(lg, rg, ids[0], parent->errh, 1, out), out)) < 0) {
        comm_release(lc); /* gives ids[1] back */
        return st;
    }
    (*out)->local_comm = lc;
    return RM_OK;
}

static int inter_overlap(const group_t *a, const int *b, int nb)
{
    for (int i = 0; i < a->size; i++)
        for (int j = 0; j < nb; j++)
            if (a->world[i] == b[j])
                return 1;
    return 0;
}

/* The id agreement and the local communicator of a new intercommunicator
 * over `local`, the same leader and bridge. Takes over lg, rg. */
static rm_status_t inter_finish(comm_t *local, int local_leader, const bridge_t *b, group_t *lg,
                                group_t *rg, comm_t **out)
{
    int id;
    rm_status_t st;
    if ((st = inter_id_agree(local, local_leader, b, &id)) < 0) {
        group_release(lg);
        group_release(rg);
        return st;
    }
    comm_t *lc = NULL;
    group_t *lcg = inter_group(local->group->world, local->size);
    /* every member joins the local creation, even one short of memory */
    st = comm_create_internal(local, lcg, 0, &lc);
    if (st >= 0 && !lcg)
        st = RM_ERR_NOMEM;
    if (st >= 0) {
        if ((st = comm_inherit(local, comm_new(lg, rg, id, local->errh, 1, out), out)) >= 0) {
            (*out)->local_comm = lc;
            return RM_OK;
        }
    } else {
        ctxid_release(id);
    }
    if (lc)
        comm_release(lc);
    else
        group_release(lcg);
    group_release(lg);
    group_release(rg);
    return st;
}

/* `leader_err` is an MPI error class the local leader found in its own
 * arguments (peer communicator, remote leader, tag): it reaches the whole
 * group, which then fails with it. *errclass returns such a class. */
rm_status_t comm_inter_create(comm_t *local, int local_leader, comm_t *peer, int remote_leader,
                              int tag, int leader_err, int *errclass, comm_t **out)
{
    *out = NULL;
    *errclass = MPI_SUCCESS;
    bridge_t b = {.via = peer, .ctx = peer ? peer->ctx : 0, .peer = remote_leader, .tag = tag, .fd = -1};
    dtype_t *ints = dtype_get(MPI_INT);
    int hdr[2] = {leader_err, 0}; /* error class, remote size */
    rm_status_t st = RM_OK;
    if (local->rank == local_leader && !leader_err) {
        int n = local->size;
        st = coll_inter_sendrecv(peer, b.ctx, remote_leader, tag, &n, 1, ints, &hdr[1], 1, ints);
    }
    rm_status_t st2 = coll_bcast(hdr, 2, ints, local_leader, local);
    if (st < 0 || st2 < 0)
        return st < 0 ? st : st2;
    if (hdr[0] != MPI_SUCCESS) {
        *errclass = hdr[0];
        return RM_OK;
    }
    int *remote = malloc(sizeof(int) * (size_t)(hdr[1] ? hdr[1] : 1));
    if (!remote)
        return RM_ERR_NOMEM;
    if ((st = inter_swap(local, local_leader, &b, local->group->world, local->size, remote,
                         hdr[1], MPI_INT)) < 0) {
        free(remote);
        return st;
    }
    /* every member sees the same lists, so all fail alike */
    if (inter_overlap(local->group, remote, hdr[1])) {
        free(remote);
        *errclass = MPI_ERR_COMM;
        return RM_OK;
    }
    group_t *lg = inter_group(local->group->world, local->size), *rg = inter_group(remote, hdr[1]);
    free(remote);
    if (!lg || !rg) {
        group_release(lg);
        group_release(rg);
        return RM_ERR_NOMEM;
    }
    return inter_finish(local, local_leader, &b, lg, rg, out);
}

/* MPI-3.1 §10.4 (MPI_Comm_accept, MPI_Comm_connect, MPI_Comm_join): the
 * other group's process indices are known at every member, its leader is
 * at the other end of `fd` (valid at `leader` only). */
rm_status_t comm_inter_from_socket(comm_t *local, int leader, int fd, const int *remote, int nremote,
                                   comm_t **out)
{
    *out = NULL;
    bridge_t b = {.fd = fd};
    group_t *lg = inter_group(local->group->world, local->size), *rg = inter_group(remote, nremote);
    if (!lg || !rg) {
        group_release(lg);
        group_release(rg);
        return RM_ERR_NOMEM;
    }
    return inter_finish(local, leader, &b, lg, rg, out);
}

/* MPI-3.1 §6.6.2: the group that passed high = false comes first; when
 * both passed the same, the group holding the lower world rank in its
 * local rank 0 does (an arbitrary, but agreed, order). */
rm_status_t comm_inter_merge(comm_t *c, int high, comm_t **out)
{
    int mine = high ? 1 : 0, theirs = 0;
    bridge_t b = inter_bridge(c, TAG_C_MERGE);
    rm_status_t st = inter_swap(c->local_comm, 0, &b, &mine, 1, &theirs, 1, MPI_INT);
    if (st < 0)
        return st;
    group_t *l = c->group, *r = c->remote_group;
    int first = mine != theirs ? !mine : proto_proc_before(l->world[0], r->world[0]);
    const group_t *a = first ? l : r, *z = first ? r : l;
    group_t *g = group_new(a->size + z->size, 0);
    if (!g)
        return RM_ERR_NOMEM;
    memcpy(g->world, a->world, sizeof(int) * (size_t)a->size);
    memcpy(g->world + a->size, z->world, sizeof(int) * (size_t)z->size);
    st = comm_create_from(c, g, out);
    if (st < 0)
        group_release(g);
    return st;
}

rm_status_t comm_inter_dup(comm_t *c, comm_t **out)
{
    group_t *lg = inter_group(c->group->world, c->size);
    group_t *rg = inter_group(c->remote_group->world, c->remote_group->size);
    if (!lg || !rg) {
        /* stay in step with the rest: take part as a non-member */
        group_release(lg);
        group_release(rg);
        rm_status_t st = inter_build(c, NULL, NULL, out);
        return st < 0 ? st : RM_ERR_NOMEM;
    }
    return inter_build(c, lg, rg, out);
}

/* MPI-3.1 §6.4.2: g is a subgroup of the local group, the same at every
 * local process; the remote group is what the other side chose. */
rm_status_t comm_inter_create_sub(comm_t *c, group_t *g, comm_t **out)
{
    int n = g->size, m = 0;
    bridge_t b = inter_bridge(c, TAG_C_CREATE);
    rm_status_t st = inter_swap(c->local_comm, 0, &b, &n, 1, &m, 1, MPI_INT);
    if (st < 0)
        return st;
    int *remote = malloc(sizeof(int) * (size_t)(m ? m : 1));
    if (!remote)
        return RM_ERR_NOMEM;
    if ((st = inter_swap(c->local_comm, 0, &b, g->world, n, remote, m, MPI_INT)) < 0) {
        free(remote);
        return st;
    }
    int member = 0;
    for (int i = 0; i < n; i++)
        member |= g->world[i] == proto_proc.world_rank;
    *out = NULL;
    if (!n || !m) { /* an empty side: MPI_COMM_NULL everywhere, nothing to agree */
        free(remote);
        return RM_OK;
    }
    group_t *lg = member ? inter_group(g->world, n) : NULL;
    group_t *rg = member ? inter_group(remote, m) : NULL;
    free(remote);
    if (member && (!lg || !rg)) {
        group_release(lg);
        group_release(rg);
        lg = rg = NULL;
        st = RM_ERR_NOMEM;
    }
    rm_status_t st2 = inter_build(c, lg, rg, out);
    return st < 0 ? st : st2;
}

/* The members of `all` (color, key pairs by rank) with `color`, ordered by
 * key then rank, as world ranks of g. */
static int inter_pick(const int *all, const group_t *g, int color, int *out)
{
    int k = 0;
    if (color == MPI_UNDEFINED)
        return 0;
    for (int r = 0; r < g->size; r++)
        if (all[2 * r] == color)
            out[k++] = r;
    for (int i = 1; i < k; i++) { /* stable insertion sort by key */
        int v = out[i], j = i - 1;
        while (j >= 0 && all[2 * out[j] + 1] > all[2 * v + 1]) {
            out[j + 1] = out[j];
            j--;
        }
        out[j + 1] = v;
    }
    for (int i = 0; i < k; i++)
        out[i] = g->world[out[i]];
    return k;
}

/* MPI-3.1 §6.4.2: the local processes of one color face the remote
 * processes of the same color; a color missing on either side gives
 * MPI_COMM_NULL. */
rm_status_t comm_inter_split(comm_t *c, int color, int key, comm_t **out)
{
    int n = c->size, m = c->remote_group->size, mine[2] = {color, key};
    int *all = malloc(sizeof(int) * 2 * (size_t)(n + m)), *lw = malloc(sizeof(int) * (size_t)(n + m));
    dtype_t *ints = dtype_get(MPI_INT);
    *out = NULL;
    if (!all || !lw) {
        free(all);
        free(lw);
        return RM_ERR_NOMEM;
    }
    int *rall = all + 2 * n;
    bridge_t b = inter_bridge(c, TAG_C_SPLIT);
    rm_status_t st = coll_allgather(mine, 2, ints, all, 2, ints, c->local_comm);
    if (st >= 0)
        st = inter_swap(c->local_comm, 0, &b, all, 2 * n, rall, 2 * m, MPI_INT);
    if (st < 0) {
        free(all);
        free(lw);
        return st;
    }
    int nl = inter_pick(all, c->group, color, lw);
    int nr = inter_pick(rall, c->remote_group, color, lw + nl);
    group_t *lg = NULL, *rg = NULL;
    if (nl && nr) {
        lg = inter_group(lw, nl);
        rg = inter_group(lw + nl, nr);
        if (!lg || !rg) {
            group_release(lg);
            group_release(rg);
            lg = rg = NULL;
            st = RM_ERR_NOMEM;
        }
    }
    free(all);
    free(lw);
    rm_status_t st2 = inter_build(c, lg, rg, out);
    return st < 0 ? st : st2;
}
