/* Communicator creations that agree on a context id without a collective
 * over the whole parent: MPI_Comm_create_group (only the group's members
 * talk) and MPI_Comm_idup (nonblocking, finished by the progress engine;
 * on intra- and intercommunicators).
 * Their messages travel on contexts no communicator owns, so they can never
 * match application or collective traffic. */
#include "comm/commgrp.h"
#include "comm/topo.h"
#include "proto/proto.h"
#include "util/log.h"

#include <stdlib.h>
#include <string.h>

#define WORDS (COMM_MAX_IDS / 32)
/* context ids of communicators stay below 2 * COMM_MAX_IDS */
#define CTX_CREATE_GROUP 0x40000000u
#define CTX_IDUP 0x20000000u
/* candidates an idup reserves in its first round */
#define IDUP_CANDIDATES 64

static int commgrp_lowest(const uint32_t *mask)
{
    for (int i = 0; i < COMM_MAX_IDS; i++)
        if (mask[i / 32] & (1u << (i % 32)))
            return i;
    return -1;
}

/* ---- MPI_Comm_create_group ---------------------------------------------- */

rm_status_t comm_create_group(comm_t *parent, group_t *g, int tag, comm_t **out)
{
    *out = NULL;
    int n = g->size, me = -1;
    int *prank = malloc(sizeof(int) * (size_t)n);
    uint32_t mask[WORDS], in[WORDS];
    if (!prank)
        return RM_ERR_NOMEM;
    /* members' ranks in the parent, which carries the messages */
    for (int i = 0; i < n; i++) {
        prank[i] = -1;
        for (int j = 0; j < parent->size && prank[i] < 0; j++)
            if (parent->group->world[j] == g->world[i])
                prank[i] = j;
        if (g->world[i] == comm_world_rank(parent, parent->rank))
            me = i;
    }
    comm_ids_snapshot(mask);
    uint32_t ctx = CTX_CREATE_GROUP | parent->ctx;
    dtype_t *u32 = dtype_get(MPI_UINT32_T);
    rm_status_t st = RM_OK;
    /* binomial reduction (AND) to member 0, then binomial broadcast back */
    int mask_bit = 1;
    for (; mask_bit < n; mask_bit <<= 1) {
        if (me & mask_bit) {
            st = proto_send(mask, WORDS, u32, prank[me - mask_bit], tag, parent, ctx, PROTO_STD);
            break;
        }
        if (me + mask_bit < n) {
            st = proto_recv(in, WORDS, u32, prank[me + mask_bit], tag, parent, ctx, MPI_STATUS_IGNORE);
            if (st < 0)
                break;
            for (int w = 0; w < WORDS; w++)
                mask[w] &= in[w];
        }
    }
    if (st >= 0 && me) {
        /* the parent in the broadcast tree is the one reduced into */
        int low = me & -me;
        st = proto_recv(mask, WORDS, u32, prank[me - low], tag, parent, ctx, MPI_STATUS_IGNORE);
        mask_bit = low;
    }
    for (mask_bit >>= 1; st >= 0 && mask_bit > 0; mask_bit >>= 1)
        if (me + mask_bit < n)
            st = proto_send(mask, WORDS, u32, prank[me + mask_bit], tag, parent, ctx, PROTO_STD);
    free(prank);
    if (st < 0)
        return st;
    int id = commgrp_lowest(mask);
    if (id < 0)
        return RM_ERR_NO_RESOURCE;
    comm_id_take(id);
    st = comm_create_with_id(parent, g, id, out);
    if (st < 0)
        comm_id_give(id);
    return st;
}

/* ---- MPI_Comm_idup ------------------------------------------------------ */

/* Each member reserves some free ids and sends them to every other process
 * that must agree as soon as the call starts; nothing later waits on
 * another step, so the agreement finishes from progress alone. When the
 * first round's 64 candidates have too few in common, a second round
 * offers every free id.
 *
 * On an intercommunicator (MPI-3.1 §6.4.2: the duplicate has the same
 * groups) every process of both groups must agree, as the new context
 * carries traffic between them: each sends its set to the other members
 * of its group (over the local communicator) and to every remote process
 * (over the intercommunicator itself). Two ids are taken from what all
 * have in common, the lower for the intercommunicator and the next for
 * the local communicator of each group (the two groups are disjoint, so
 * they can share it). */
typedef struct idup_peer {
    comm_t *via;  /* the communicator the set travels on */
    int rank;     /* the peer's rank there (a remote rank on an intercommunicator) */
} idup_peer_t;

typedef struct idup_op {
    request_t *req;
    comm_t *parent;
    MPI_Comm *newcomm;
    comm_idup_extra_t extra; /* what the new communicator inherits */
    uint32_t seq;
    int round;
    int nids;          /* ids to agree: 1, or 2 for an intercommunicator */
    uint32_t mine[WORDS];
    int npeers;
    idup_peer_t *peers;
    uint32_t *theirs;  /* npeers * WORDS */
    request_t **reqs;  /* 2 * npeers */
    int nreqs;
} idup_op_t;

static rm_status_t idup_round_start(idup_op_t *op)
{
    uint32_t avail[WORDS];
    comm_ids_snapshot(avail);
    memset(op->mine, 0, sizeof op->mine);
    for (int i = 0, k = 0; i < COMM_MAX_IDS; i++) {
        if (!(avail[i / 32] & (1u << (i % 32))) || (op->round == 0 && k == IDUP_CANDIDATES))
            continue;
        comm_id_take(i);
        op->mine[i / 32] |= 1u << (i % 32);
        k++;
    }
    int tag = (int)((op->seq * 2u + (uint32_t)op->round) & 0x7fffffff);
    dtype_t *u32 = dtype_get(MPI_UINT32_T);
    op->nreqs = 0;
    for (int p = 0; p < op->npeers; p++) {
        comm_t *via = op->peers[p].via;
        uint32_t ctx = CTX_IDUP | via->ctx;
        rm_status_t st = proto_irecv(op->theirs + (size_t)p * WORDS, WORDS, u32, op->peers[p].rank,
                                     tag, via, ctx, &op->reqs[op->nreqs]);
        if (st < 0)
            return st;
        op->nreqs++;
        st = proto_isend(op->mine, WORDS, u32, op->peers[p].rank, tag, via, ctx, PROTO_STD,
                         &op->reqs[op->nreqs]);
        if (st < 0)
            return st;
        op->nreqs++;
    }
    return RM_OK;
}

static void idup_give_back(const uint32_t *mask, const int *keep, int nkeep)
{
    for (int i = 0; i < COMM_MAX_IDS; i++) {
        int kept = 0;
        for (int k = 0; k < nkeep; k++)
            kept |= keep[k] == i;
        if (!kept && (mask[i / 32] & (1u << (i % 32))))
            comm_id_give(i);
    }
}

static void idup_finish(idup_op_t *op, rm_status_t st)
{
    op->req->gstate = (void *)(intptr_t)st; /* the binding's query function reads it */
    for (int i = 0; i < op->nreqs; i++)
        if (op->reqs[i])
            proto_request_release(op->reqs[i]);
    comm_idup_extra_free(&op->extra);
    proto_request_complete(op->req);
    proto_request_release(op->req); /* the operation's own reference */
    comm_release(op->parent);
    free(op->theirs);
    free(op->reqs);
    free(op->peers);
    free(op);
}

static group_t *idup_group_copy(const group_t *from)
{
    group_t *g = group_new(from->size, 0);
    if (g)
        memcpy(g->world, from->world, sizeof(int) * (size_t)from->size);
    return g;
}

/* The new communicator on the agreed ids (taken; given back on failure). */
static rm_status_t idup_build(idup_op_t *op, const int *ids, comm_t **out)
{
    comm_t *c = op->parent;
    *out = NULL;
    group_t *g = idup_group_copy(c->group);
    if (!comm_is_inter(c)) {
        rm_status_t st = g ? comm_create_with_id(c, g, ids[0], out) : RM_ERR_NOMEM;
        if (st < 0) {
            if (g) /* comm_new gave the id back */
                group_release(g);
            else
                comm_id_give(ids[0]);
        }
        return st;
    }
    group_t *rg = idup_group_copy(c->remote_group), *lg = idup_group_copy(c->group);
    comm_t *lc = NULL;
    rm_status_t st = RM_ERR_NOMEM;
    if (!g || !rg || !lg) {
        comm_id_give(ids[0]);
        comm_id_give(ids[1]);
        goto fail;
    }
    if ((st = comm_new(lg, NULL, ids[1], c->local_comm->errh, 0, &lc)) < 0) {
        comm_id_give(ids[0]);
        goto fail;
    }
    lg = NULL;
    if ((st = comm_new(g, rg, ids[0], c->errh, 1, out)) < 0) {
        comm_release(lc); /* gives ids[1] back */
        goto fail;
    }
    (*out)->local_comm = lc;
    return RM_OK;
fail:
    group_release(g);
    group_release(rg);
    group_release(lg);
    return st;
}

/* Runs on every progress pass until it returns 1. */
static int idup_poll(void *arg)
{
    idup_op_t *op = arg;
    for (int i = 0; i < op->nreqs; i++)
        if (!op->reqs[i]->done)
            return 0;
    rm_status_t st = RM_OK;
    for (int i = 0; i < op->nreqs; i++) {
        if (op->reqs[i]->err < 0)
            st = op->reqs[i]->err;
        proto_request_release(op->reqs[i]);
        op->reqs[i] = NULL;
    }
    op->nreqs = 0;
    if (st < 0) {
        idup_give_back(op->mine, NULL, 0);
        idup_finish(op, st);
        return 1;
    }
    uint32_t common[WORDS];
    memcpy(common, op->mine, sizeof common);
    for (int p = 0; p < op->npeers; p++)
        for (int w = 0; w < WORDS; w++)
            common[w] &= op->theirs[(size_t)p * WORDS + w];
    /* every process sees the same sets, so all pick the same ids */
    int ids[2] = {-1, -1}, found = 0;
    for (int i = 0; i < COMM_MAX_IDS && found < op->nids; i++)
        if (common[i / 32] & (1u << (i % 32)))
            ids[found++] = i;
    idup_give_back(op->mine, ids, found == op->nids ? found : 0);
    if (found < op->nids) {
        if (op->round == 0) {
            rm_log_debug("MPI_Comm_idup: the first %d candidate ids have too few in common; "
                         "offering every free id", IDUP_CANDIDATES);
            op->round = 1;
            st = idup_round_start(op);
            if (st >= 0)
                return 0;
        }
        idup_finish(op, st < 0 ? st : RM_ERR_NO_RESOURCE);
        return 1;
    }
    comm_t *nc;
    if ((st = idup_build(op, ids, &nc)) < 0) {
        idup_finish(op, st);
        return 1;
    }
    nc->topo = op->extra.topo;
    nc->hints = op->extra.hints;
    nc->attrs = op->extra.attrs;
    memset(&op->extra, 0, sizeof op->extra);
    *op->newcomm = nc->handle;
    idup_finish(op, RM_OK);
    return 1;
}

/* Who the caller exchanges its set with: the other members of its group,
 * and on an intercommunicator every remote process too. */
static rm_status_t idup_peers(idup_op_t *op, comm_t *parent)
{
    int inter = comm_is_inter(parent);
    comm_t *local = inter ? parent->local_comm : parent;
    int n = local->size - 1 + (inter ? parent->remote_group->size : 0);
    op->nids = inter ? 2 : 1;
    op->peers = calloc((size_t)(n ? n : 1), sizeof *op->peers);
    op->theirs = calloc((size_t)(n ? n : 1) * WORDS, sizeof(uint32_t));
    op->reqs = calloc((size_t)(2 * (n ? n : 1)), sizeof(request_t *));
    if (!op->peers || !op->theirs || !op->reqs)
        return RM_ERR_NOMEM;
    for (int p = 0; p < local->size; p++)
        if (p != local->rank)
            op->peers[op->npeers++] = (idup_peer_t){.via = local, .rank = p};
    for (int p = 0; inter && p < parent->remote_group->size; p++)
        op->peers[op->npeers++] = (idup_peer_t){.via = parent, .rank = p};
    return RM_OK;
}

rm_status_t comm_idup_start(comm_t *parent, comm_idup_extra_t *extra, MPI_Comm *newcomm,
                            request_t **out)
{
    *out = NULL;
    idup_op_t *op = calloc(1, sizeof *op);
    request_t *r = proto_request_alloc(REQ_GREQ);
    if (!op || !r || idup_peers(op, parent) < 0) {
        if (op) {
            free(op->theirs);
            free(op->reqs);
            free(op->peers);
        }
        free(op);
        if (r)
            proto_request_release(r);
        return RM_ERR_NOMEM;
    }
    r->gstate = (void *)(intptr_t)RM_OK;
    r->comm = parent;
    parent->refcount++;     /* the request's, released with it */
    r->refs += 2;           /* in flight, and the operation's own */
    op->req = r;
    op->parent = parent;
    parent->refcount++;     /* the operation's */
    op->newcomm = newcomm;
    op->extra = *extra;
    memset(extra, 0, sizeof *extra);
    op->seq = parent->idup_seq++;
    *newcomm = MPI_COMM_NULL;
    rm_status_t st = idup_round_start(op);
    if (st >= 0)
        st = proto_poll_add(idup_poll, op);
    if (st < 0) {
        idup_give_back(op->mine, NULL, 0);
        r->refs--; /* the caller never sees it: complete and drop the handle too */
        idup_finish(op, st);
        return st;
    }
    *out = r;
    return RM_OK;
}

void comm_idup_extra_free(comm_idup_extra_t *e)
{
    topo_free(e->topo);
    comm_hints_free(&e->hints);
    /* attributes were copied by the binding; a failed idup drops them
     * without their delete callbacks, as no communicator ever held them */
    e->attrs = NULL;
    e->topo = NULL;
}
