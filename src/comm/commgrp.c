/* Communicator creations that agree on a context id without a blocking
 * collective over the whole parent: MPI_Comm_create_group (only the group's
 * members talk, on a context no communicator owns) and MPI_Comm_idup
 * (nonblocking, finished by the progress engine; on intra- and
 * intercommunicators; its rounds carry tags of their own on the parent's
 * collective context, src/comm/ctxid.c). */
#include "comm/commgrp.h"
#include "comm/ctxid.h"
#include "comm/topo.h"
#include "proto/proto.h"
#include "util/log.h"

#include <stdlib.h>
#include <string.h>

/* context ids of communicators stay below 2 * COMM_MAX_IDS */
#define CTX_CREATE_GROUP 0x40000000u
#define CTX_FROM_GROUP 0x20000000u

/* ---- MPI_Comm_create_group ---------------------------------------------- */

/* The members' ranks in the parent, which carries the messages. */
typedef struct group_round {
    comm_t *parent;
    int n, me, tag;
    uint32_t ctx; /* the context on parent the rounds use */
    const int *prank;
} group_round_t;

/* A context id agreement's exchange among the members only: a binomial
 * reduction (AND) to member 0, then a binomial broadcast back, on a context
 * of the parent's that only these agreements use. */
static rm_status_t group_exchange(uint32_t *mask, void *arg)
{
    const group_round_t *r = arg;
    int n = r->n, me = r->me;
    uint32_t in[CTXID_LEN];
    uint32_t ctx = r->ctx;
    dtype_t *u32 = dtype_get(MPI_UINT32_T);
    rm_status_t st = RM_OK;
    int mask_bit = 1;
    for (; mask_bit < n; mask_bit <<= 1) {
        if (me & mask_bit) {
            st = proto_send(mask, CTXID_LEN, u32, r->prank[me - mask_bit], r->tag, r->parent, ctx,
                            PROTO_STD);
            break;
        }
        if (me + mask_bit < n) {
            st = proto_recv(in, CTXID_LEN, u32, r->prank[me + mask_bit], r->tag, r->parent, ctx,
                            MPI_STATUS_IGNORE);
            if (st < 0)
                break;
            for (int w = 0; w < CTXID_LEN; w++)
                mask[w] &= in[w];
        }
    }
    if (st >= 0 && me) {
        /* the parent in the broadcast tree is the one reduced into */
        int low = me & -me;
        st = proto_recv(mask, CTXID_LEN, u32, r->prank[me - low], r->tag, r->parent, ctx,
                        MPI_STATUS_IGNORE);
        mask_bit = low;
    }
    for (mask_bit >>= 1; st >= 0 && mask_bit > 0; mask_bit >>= 1)
        if (me + mask_bit < n)
            st = proto_send(mask, CTXID_LEN, u32, r->prank[me + mask_bit], r->tag, r->parent, ctx,
                            PROTO_STD);
    return st;
}

rm_status_t comm_create_group(comm_t *parent, group_t *g, int tag, comm_t **out)
{
    *out = NULL;
    int n = g->size, me = -1;
    int *prank = malloc(sizeof(int) * (size_t)n);
    if (!prank)
        return RM_ERR_NOMEM;
    for (int i = 0; i < n; i++) {
        prank[i] = -1;
        for (int j = 0; j < parent->size && prank[i] < 0; j++)
            if (parent->group->world[j] == g->world[i])
                prank[i] = j;
        if (g->world[i] == comm_world_rank(parent, parent->rank))
            me = i;
    }
    /* the same key at every member: the parent and the tag, which MPI
     * requires to tell apart creations running at once on one parent */
    ctxid_key_t key = {.hi = (uint64_t)(parent->ctx / 2) << 32 | (uint32_t)tag, .lo = 1};
    group_round_t r = {parent, n, me, tag, CTX_CREATE_GROUP | parent->ctx, prank};
    int id;
    rm_status_t st = ctxid_agree(key, 1, 1, group_exchange, &r, &id);
    free(prank);
    if (st < 0)
        return st;
    return comm_create_with_id(parent, g, id, out);
}

/* FNV-1a over bytes, continuing from h. */
static uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

/* An id agreed among the processes world[0..n) (the caller one of them),
 * keyed by them, the string tag and what the id is for (kind), which are
 * the same at every one of them. */
static rm_status_t from_group_agree(const int *world, int n, const char *stag, uint64_t kind, int *id)
{
    comm_t *wc = comm_world;
    int me = -1;
    for (int i = 0; i < n && me < 0; i++)
        if (world[i] == wc->rank)
            me = i;
    if (me < 0)
        return RM_ERR_INVALID;
    /* Creations at once must differ in their processes or their tag
     * (MPI-4.0 11.3.2), so their keys and message tags differ. */
    uint64_t h = hash_bytes(0xcbf29ce484222325ull, world, sizeof(int) * (size_t)n);
    uint64_t t = hash_bytes(0xcbf29ce484222325ull, stag, strlen(stag));
    h = hash_bytes(h, &t, sizeof t);
    h = hash_bytes(h, &kind, sizeof kind);
    /* lo 2 and up: apart from every key of ctxid_key_next (lo 0), pairs
     * (top bit) and MPI_Comm_create_group (lo 1) */
    ctxid_key_t key = {.hi = h, .lo = 2 + kind};
    group_round_t r = {wc, n, me, (int)((h ^ (h >> 32)) & 0x7fffffff), CTX_FROM_GROUP | wc->ctx, world};
    return ctxid_agree(key, 1, 1, group_exchange, &r, id);
}

rm_status_t comm_create_from_group(group_t *g, const char *stag, errhandler_t *errh, comm_t **out)
{
    *out = NULL;
    int id;
    rm_status_t st = from_group_agree(g->world, g->size, stag, 0, &id);
    if (st < 0)
        return st;
    return comm_new(g, NULL, id, errh, 1, out);
}

rm_status_t comm_inter_from_groups(group_t *lg, group_t *rg, const char *stag, errhandler_t *errh,
                                   comm_t **out)
{
    *out = NULL;
    /* both groups in one order every member sees: the one with the lower
     * first process first */
    int n = lg->size + rg->size, lfirst = lg->world[0] < rg->world[0];
    int *all = malloc(sizeof(int) * (size_t)n);
    group_t *lcg = group_new(lg->size, 0);
    if (!all || !lcg) {
        free(all);
        group_release(lcg);
        return RM_ERR_NOMEM;
    }
    const group_t *a = lfirst ? lg : rg, *b = lfirst ? rg : lg;
    memcpy(all, a->world, sizeof(int) * (size_t)a->size);
    memcpy(all + a->size, b->world, sizeof(int) * (size_t)b->size);
    memcpy(lcg->world, lg->world, sizeof(int) * (size_t)lg->size);
    int id, lid;
    rm_status_t st = from_group_agree(all, n, stag, 1, &id);
    free(all);
    if (st < 0) {
        group_release(lcg);
        return st;
    }
    /* the local communicator (no handle) runs the local phases */
    comm_t *lc = NULL;
    if ((st = from_group_agree(lg->world, lg->size, stag, 2, &lid)) < 0 ||
        (st = comm_new(lcg, NULL, lid, errh, 0, &lc)) < 0) {
        if (!lc)
            group_release(lcg);
        ctxid_release(id);
        return st;
    }
    if ((st = comm_new(lg, rg, id, errh, 1, out)) < 0) {
        comm_release(lc);
        return st;
    }
    (*out)->local_comm = lc;
    return RM_OK;
}

/* ---- MPI_Comm_idup ------------------------------------------------------ */

/* The agreement runs in rounds (src/comm/ctxid.c), each a schedule over
 * the parent that progress finishes; when one ends, the next starts from
 * progress until the ids are agreed.
 *
 * On an intercommunicator (MPI-3.1 §6.4.2: the duplicate has the same
 * groups) every process of both groups agrees, as the new context carries
 * traffic between them. Two ids are agreed, the lower for the
 * intercommunicator and the next for the local communicator of each group
 * (the two groups are disjoint, so they can share it). */
typedef struct idup_op {
    request_t *req;
    comm_t *parent;
    MPI_Comm *newcomm;
    comm_idup_extra_t extra; /* what the new communicator inherits */
    ctxid_agree_t agree;
    request_t *round;        /* the running round's schedule */
} idup_op_t;

static void idup_finish(idup_op_t *op, rm_status_t st)
{
    op->req->gstate = (void *)(intptr_t)st; /* the binding's query function reads it */
    if (op->round)
        proto_request_release(op->round);
    comm_idup_extra_free(&op->extra);
    proto_request_complete(op->req);
    proto_request_release(op->req); /* the operation's own reference */
    comm_release(op->parent);
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
                ctxid_release(ids[0]);
        }
        return st;
    }
    group_t *rg = idup_group_copy(c->remote_group), *lg = idup_group_copy(c->group);
    comm_t *lc = NULL;
    rm_status_t st = RM_ERR_NOMEM;
    if (!g || !rg || !lg) {
        ctxid_release(ids[0]);
        ctxid_release(ids[1]);
        goto fail;
    }
    if ((st = comm_new(lg, NULL, ids[1], c->local_comm->errh, 0, &lc)) < 0) {
        ctxid_release(ids[0]);
        goto fail;
    }
    lg = NULL;
    if ((st = comm_inherit(c, comm_new(g, rg, ids[0], c->errh, 1, out), out)) < 0) {
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
    if (!op->round->done)
        return 0;
    rm_status_t st = (rm_status_t)(intptr_t)op->round->gstate;
    proto_request_release(op->round);
    op->round = NULL;
    if (st < 0) {
        ctxid_cancel(&op->agree);
        idup_finish(op, st);
        return 1;
    }
    int ids[2];
    int r = ctxid_settle(&op->agree, ids);
    if (r == 0 && (st = ctxid_round_start(op->parent, &op->agree, &op->round)) >= 0)
        return 0;
    if (r <= 0) {
        idup_finish(op, r < 0 ? r : st);
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

rm_status_t comm_idup_start(comm_t *parent, comm_idup_extra_t *extra, MPI_Comm *newcomm,
                            request_t **out)
{
    *out = NULL;
    idup_op_t *op = calloc(1, sizeof *op);
    request_t *r = proto_request_alloc(REQ_GREQ);
    if (!op || !r) {
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
    *newcomm = MPI_COMM_NULL;
    ctxid_begin(&op->agree, ctxid_key_next(parent), 1, comm_is_inter(parent) ? 2 : 1);
    rm_status_t st = ctxid_round_start(parent, &op->agree, &op->round);
    if (st >= 0 && (st = proto_poll_add(idup_poll, op)) < 0) {
        while (!op->round->done) /* its schedule writes into op */
            proto_progress();
        ctxid_cancel(&op->agree);
    }
    if (st < 0) {
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
