/* The collective schedule engine (see sched.h). */
#include "coll/sched.h"
#include "coll/coll.h"
#include "util/log.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { STEP_SEND = 1, STEP_RECV, STEP_COPY, STEP_REDUCE };

/* Tags of schedules on the collective context: above the fixed tags used
 * there outside schedules (comm/inter.c 60..), below those of schedules
 * with tags of their own (COLL_SCHED_TAG_OWN); 2^8 per schedule (the count
 * wraps after 2^16 schedules), of which a step may choose one (its `sub`)
 * to tell apart two messages between the same pair of ranks that the order
 * of posting would not. */
#define SCHED_TAG_BASE (1 << 24)
_Static_assert(SCHED_TAG_BASE + (0x10000 << 8) <= COLL_SCHED_TAG_OWN, "schedule tags overlap");
#define SCHED_SEQ_MASK 0xffff
#define SCHED_SUB_MASK 0xff

/* Scratch room inside each schedule for small buffers (coll_sched_bytes). */
#define SCHED_SMALL 256

typedef struct sched_step {
    uint8_t kind;
    int round;
    const void *sbuf;
    void *rbuf;
    MPI_Count sn, rn;
    dtype_t *sdt, *rdt;
    op_t *op;
    int peer;
    int tag;
    comm_t *comm; /* the schedule's, or an intercommunicator's local one */
    request_t *req;
} sched_step_t;

struct coll_sched {
    comm_t *comm;
    comm_t *on;   /* where the next steps' messages go (coll_sched_use) */
    int tag;
    sched_step_t *steps;
    int nsteps, cap;
    int nrounds;  /* rounds closed so far while building; the open one is nrounds */
    int cur;      /* round running: steps [first, next) */
    int first, next;
    rm_status_t err;
    struct sched_tmp {
        void *p;
        size_t cap;
    } *tmps;
    int ntmps, tmpcap;
    request_t *req; /* nonblocking: the application's request */
    uint8_t persistent; /* kept after it completes, to be started again */
    uint8_t running;    /* persistent: started, not yet completed */
    uint8_t orphan;     /* persistent: its request was freed while running */
    coll_sched_t *spare_next;
    size_t small_used;  /* bytes of small[] handed out */
    _Alignas(16) unsigned char small[SCHED_SMALL];
};

/* Finished schedules are kept for the next ones with their step and scratch
 * arrays (when those are small): a small collective is a handful of steps,
 * and allocating the schedule, growing its arrays and freeing it all again
 * cost more than its messages. Small scratch buffers come from the
 * schedule's own room (small[]). Owned by whoever holds the global lock. */
#define SCHED_SPARE_MAX 8
#define SCHED_SPARE_STEPS 64
static coll_sched_t *sched_spare;
static int sched_nspare;

coll_sched_t *coll_sched_new(comm_t *c)
{
    coll_sched_t *s = sched_spare;
    if (s) {
        sched_spare = s->spare_next;
        sched_nspare--;
        sched_step_t *steps = s->steps;
        struct sched_tmp *tmps = s->tmps;
        int cap = s->cap, tmpcap = s->tmpcap;
        memset(s, 0, offsetof(coll_sched_t, small));
        s->steps = steps;
        s->cap = cap;
        s->tmps = tmps;
        s->tmpcap = tmpcap;
    } else if (!(s = calloc(1, sizeof *s))) {
        return NULL;
    }
    s->comm = s->on = c;
    c->refcount++;
    unsigned seq = (unsigned)c->coll_seq;
    c->coll_seq = (int)((seq + 1) & SCHED_SEQ_MASK); /* never overflows the int */
    s->tag = SCHED_TAG_BASE + (int)(seq << 8);
    return s;
}

coll_sched_t *coll_sched_new_tagged(comm_t *c, uint32_t id)
{
    int seq = c->coll_seq; /* the count stays as it was */
    coll_sched_t *s = coll_sched_new(c);
    c->coll_seq = seq;
    if (s)
        s->tag = COLL_SCHED_TAG_OWN + (int)((id & SCHED_SEQ_MASK) << 8);
    return s;
}

void coll_sched_use(coll_sched_t *s, comm_t *c)
{
    s->on = c;
}

void coll_sched_fail(coll_sched_t *s, rm_status_t st)
{
    if (s->err >= 0)
        s->err = st;
}

static sched_step_t *sched_add(coll_sched_t *s, int kind)
{
    if (s->err < 0)
        return NULL;
    if (s->nsteps == s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        sched_step_t *n = realloc(s->steps, sizeof *n * (size_t)cap);
        if (!n) {
            s->err = RM_ERR_NOMEM;
            return NULL;
        }
        s->steps = n;
        s->cap = cap;
    }
    sched_step_t *st = &s->steps[s->nsteps++];
    memset(st, 0, sizeof *st);
    st->kind = (uint8_t)kind;
    st->round = s->nrounds;
    st->comm = s->on;
    return st;
}

static void sched_hold(dtype_t *dt)
{
    if (dt)
        dt->refcount++;
}

void coll_sched_send_sub(coll_sched_t *s, const void *buf, MPI_Count n, dtype_t *dt, int peer,
                         int sub)
{
    sched_step_t *st = sched_add(s, STEP_SEND);
    if (!st)
        return;
    st->tag = s->tag + (sub & SCHED_SUB_MASK);
    st->sbuf = buf;
    st->sn = n;
    st->sdt = dt;
    st->peer = peer;
    sched_hold(dt);
}

void coll_sched_recv_sub(coll_sched_t *s, void *buf, MPI_Count n, dtype_t *dt, int peer, int sub)
{
    sched_step_t *st = sched_add(s, STEP_RECV);
    if (!st)
        return;
    st->tag = s->tag + (sub & SCHED_SUB_MASK);
    st->rbuf = buf;
    st->rn = n;
    st->rdt = dt;
    st->peer = peer;
    sched_hold(dt);
}

void coll_sched_send(coll_sched_t *s, const void *buf, MPI_Count n, dtype_t *dt, int peer)
{
    coll_sched_send_sub(s, buf, n, dt, peer, 0);
}

void coll_sched_recv(coll_sched_t *s, void *buf, MPI_Count n, dtype_t *dt, int peer)
{
    coll_sched_recv_sub(s, buf, n, dt, peer, 0);
}

void coll_sched_copy(coll_sched_t *s, const void *sbuf, MPI_Count sn, dtype_t *sdt, void *rbuf,
                     MPI_Count rn, dtype_t *rdt)
{
    if (sbuf == rbuf && sdt == rdt && sn == rn)
        return;
    sched_step_t *st = sched_add(s, STEP_COPY);
    if (!st)
        return;
    st->sbuf = sbuf;
    st->sn = sn;
    st->sdt = sdt;
    st->rbuf = rbuf;
    st->rn = rn;
    st->rdt = rdt;
    sched_hold(sdt);
    sched_hold(rdt);
}

void coll_sched_reduce(coll_sched_t *s, const void *in, void *inout, MPI_Count n, dtype_t *dt,
                       op_t *op)
{
    sched_step_t *st = sched_add(s, STEP_REDUCE);
    if (!st)
        return;
    st->sbuf = in;
    st->rbuf = inout;
    st->sn = n;
    st->sdt = dt;
    st->op = op;
    sched_hold(dt);
    if (!op->builtin)
        op->refcount++;
}

void coll_sched_barrier(coll_sched_t *s)
{
    /* an empty round needs no closing */
    if (s->nsteps && s->steps[s->nsteps - 1].round == s->nrounds)
        s->nrounds++;
}

/* Large scratch buffers outlive their schedule here for the next one: a
 * fresh 1 MiB malloc is a new mapping whose pages fault in on first touch,
 * which cost a large reduction about as much as its arithmetic. Owned by
 * whoever holds the global lock, as every schedule is. */
#define POOL_N 4
#define POOL_MIN ((size_t)64 << 10)  /* smaller ones come from the heap cheaply */
#define POOL_MAX ((size_t)64 << 20)
static struct sched_tmp sched_pool[POOL_N];

static void *pool_take(size_t bytes, size_t *cap)
{
    int best = -1;
    for (int i = 0; i < POOL_N; i++)
        if (sched_pool[i].p && sched_pool[i].cap >= bytes &&
            (best < 0 || sched_pool[i].cap < sched_pool[best].cap))
            best = i;
    if (best < 0) {
        *cap = bytes;
        return malloc(bytes);
    }
    void *p = sched_pool[best].p;
    *cap = sched_pool[best].cap;
    sched_pool[best].p = NULL;
    return p;
}

static void pool_give(void *p, size_t cap)
{
    if (cap >= POOL_MIN && cap <= POOL_MAX) {
        int small = -1;
        for (int i = 0; i < POOL_N; i++) {
            if (!sched_pool[i].p) {
                sched_pool[i] = (struct sched_tmp){p, cap};
                return;
            }
            if (small < 0 || sched_pool[i].cap < sched_pool[small].cap)
                small = i;
        }
        if (sched_pool[small].cap < cap) { /* keep the larger */
            void *old = sched_pool[small].p;
            sched_pool[small] = (struct sched_tmp){p, cap};
            p = old;
        }
    }
    free(p);
}

void *coll_sched_bytes(coll_sched_t *s, size_t bytes)
{
    if (s->err < 0)
        return NULL;
    size_t room = bytes ? (bytes + 15) & ~(size_t)15 : 16; /* distinct pointers, 16-aligned */
    if (room <= SCHED_SMALL - s->small_used) {
        void *p = s->small + s->small_used;
        s->small_used += room;
        return p;
    }
    if (s->ntmps == s->tmpcap) {
        int cap = s->tmpcap ? 2 * s->tmpcap : 4;
        struct sched_tmp *n = realloc(s->tmps, sizeof *n * (size_t)cap);
        if (!n) {
            s->err = RM_ERR_NOMEM;
            return NULL;
        }
        s->tmps = n;
        s->tmpcap = cap;
    }
    size_t cap;
    void *p = bytes >= POOL_MIN ? pool_take(bytes, &cap) : malloc(bytes ? bytes : 1);
    if (!p) {
        s->err = RM_ERR_NOMEM;
        return NULL;
    }
    s->tmps[s->ntmps++] = (struct sched_tmp){p, bytes >= POOL_MIN ? cap : 0};
    return p;
}

void *coll_sched_tmp(coll_sched_t *s, MPI_Count n, const dtype_t *dt)
{
    MPI_Aint span = n ? (dt->true_ub - dt->true_lb) + (MPI_Aint)(n - 1) * dt->extent : 0;
    char *p = coll_sched_bytes(s, span > 0 ? (size_t)span : 1);
    return p ? p - dt->true_lb : NULL;
}

static void sched_free(coll_sched_t *s)
{
    for (int i = 0; i < s->nsteps; i++) {
        sched_step_t *st = &s->steps[i];
        if (st->req)
            proto_request_release(st->req);
        if (st->sdt)
            dtype_release(st->sdt);
        if (st->rdt)
            dtype_release(st->rdt);
        if (st->op)
            op_release(st->op);
    }
    for (int i = 0; i < s->ntmps; i++)
        pool_give(s->tmps[i].p, s->tmps[i].cap);
    comm_release(s->comm);
    if (sched_nspare < SCHED_SPARE_MAX && s->cap <= SCHED_SPARE_STEPS && s->tmpcap <= 16) {
        s->spare_next = sched_spare;
        sched_spare = s;
        sched_nspare++;
        return;
    }
    free(s->tmps);
    free(s->steps);
    free(s);
}

void coll_finalize(void)
{
    while (sched_spare) {
        coll_sched_t *s = sched_spare;
        sched_spare = s->spare_next;
        free(s->tmps);
        free(s->steps);
        free(s);
    }
    sched_nspare = 0;
    for (int i = 0; i < POOL_N; i++) {
        free(sched_pool[i].p);
        sched_pool[i] = (struct sched_tmp){NULL, 0};
    }
}

static rm_status_t sched_copy(const sched_step_t *st)
{
    size_t bytes = (size_t)st->sn * (size_t)st->sdt->size;
    if (bytes > (size_t)st->rn * (size_t)st->rdt->size)
        return RM_ERR_TRUNCATE;
    if (!bytes)
        return RM_OK;
    if (dtype_is_contig(st->sdt, st->sn) && dtype_is_contig(st->rdt, st->rn)) {
        memmove((char *)st->rbuf + st->rdt->true_lb, (const char *)st->sbuf + st->sdt->true_lb, bytes);
        return RM_OK;
    }
    void *tmp = malloc(bytes);
    if (!tmp)
        return RM_ERR_NOMEM;
    dtype_pack(st->sbuf, st->sn, st->sdt, 0, tmp, bytes);
    dtype_unpack(st->rbuf, st->rn, st->rdt, 0, tmp, bytes);
    free(tmp);
    return RM_OK;
}

/* Begin round s->cur: local steps, then the messages. */
static void sched_round_begin(coll_sched_t *s)
{
    int i = s->first;
    while (i < s->nsteps && s->steps[i].round == s->cur)
        i++;
    s->next = i;
    for (i = s->first; i < s->next && s->err >= 0; i++) {
        sched_step_t *st = &s->steps[i];
        if (st->kind == STEP_COPY)
            s->err = sched_copy(st);
        else if (st->kind == STEP_REDUCE && op_apply(st->op, st->sbuf, st->rbuf, st->sn, st->sdt) != MPI_SUCCESS)
            s->err = RM_ERR_INVALID;
    }
    for (i = s->first; i < s->next && s->err >= 0; i++) {
        sched_step_t *st = &s->steps[i];
        /* a dead member, or a revoke: the peer may have left the collective */
        if (st->kind == STEP_RECV && __builtin_expect(proto_ft_nfailed | st->comm->revoked, 0) &&
            (s->err = proto_ft_comm_check(st->comm)) < 0)
            break;
        if (st->kind == STEP_RECV)
            s->err = proto_irecv(st->rbuf, st->rn, st->rdt, st->peer, st->tag, st->comm,
                                 st->comm->ctx + 1, &st->req);
    }
    for (i = s->first; i < s->next && s->err >= 0; i++) {
        sched_step_t *st = &s->steps[i];
        if (st->kind == STEP_SEND)
            s->err = proto_isend(st->sbuf, st->sn, st->sdt, st->peer, st->tag, st->comm,
                                 st->comm->ctx + 1, PROTO_STD, &st->req);
    }
}

/* Whether every message of the running round has completed (errors are
 * collected then). */
static int sched_round_done(coll_sched_t *s)
{
    for (int i = s->first; i < s->next; i++) {
        sched_step_t *st = &s->steps[i];
        if (st->req && !st->req->done)
            return 0;
    }
    for (int i = s->first; i < s->next; i++) {
        sched_step_t *st = &s->steps[i];
        if (!st->req)
            continue;
        if (st->req->err < 0 && s->err >= 0)
            s->err = st->req->err;
        proto_request_release(st->req);
        st->req = NULL;
    }
    return 1;
}

/* Move the schedule as far as it goes now; 1 when it has ended. */
static int sched_advance(coll_sched_t *s)
{
    for (;;) {
        if (s->cur >= 0 && !sched_round_done(s))
            return 0;
        if (s->cur >= 0)
            s->first = s->next;
        /* after an error nothing new starts; what was posted has finished */
        if (s->err < 0 || s->first >= s->nsteps)
            return 1;
        s->cur = s->steps[s->first].round;
        sched_round_begin(s);
    }
}

rm_status_t coll_sched_run(coll_sched_t *s)
{
    if (!s)
        return RM_ERR_NOMEM;
    if (s->err >= 0) {
        s->cur = -1;
        /* wait as point-to-point waits (spin, then yield the core) */
        while (!sched_advance(s))
            for (int i = s->first; i < s->next; i++)
                if (s->steps[i].req && !s->steps[i].req->done) {
                    proto_wait(s->steps[i].req);
                    break;
                }
    }
    rm_status_t st = s->err;
    sched_free(s);
    return st;
}

static void sched_finish(coll_sched_t *s)
{
    request_t *r = s->req;
    if (s->persistent) {
        /* the request's gstate is the schedule; its query reads s->err */
        s->running = 0;
        if (s->orphan)
            sched_free(s);
    } else {
        r->gstate = (void *)(intptr_t)(s->err < 0 ? s->err : RM_OK);
        sched_free(s);
    }
    proto_request_complete(r); /* drops the schedule's reference */
}

static int sched_poll(void *arg)
{
    coll_sched_t *s = arg;
    if (!sched_advance(s))
        return 0;
    sched_finish(s);
    return 1;
}

/* The request a schedule completes, holding its communicator; NULL (the
 * schedule freed, *st the reason) when the schedule failed to build or no
 * request is left. */
static request_t *sched_request(coll_sched_t *s, rm_status_t *st)
{
    request_t *r = s->err >= 0 ? proto_request_alloc(REQ_GREQ) : NULL;
    if (!r) {
        *st = s->err < 0 ? s->err : RM_ERR_NOMEM;
        sched_free(s);
        return NULL;
    }
    r->comm = s->comm;
    s->comm->refcount++; /* the request's, released with it */
    return r;
}

/* Advance a started schedule as far as it goes now and leave the rest to
 * progress (finished here if progress cannot take it). 1 if it ended at
 * once (one rank, or only local steps), with *err its status. */
static int sched_run(coll_sched_t *s, rm_status_t *err)
{
    if (sched_advance(s)) {
        *err = s->err;
        sched_finish(s);
        return 1;
    }
    if (proto_poll_add(sched_poll, s) < 0) {
        while (!sched_advance(s))
            proto_progress();
        sched_finish(s);
    }
    return 0;
}

rm_status_t coll_sched_start(coll_sched_t *s, request_t **out)
{
    *out = NULL;
    if (!s)
        return RM_ERR_NOMEM;
    rm_status_t st;
    request_t *r = sched_request(s, &st);
    if (!r)
        return st;
    r->refs++; /* the schedule's, dropped when it completes */
    r->gstate = (void *)(intptr_t)RM_OK;
    s->req = r;
    s->cur = -1;
    if (sched_run(s, &st) && st < 0) {
        proto_request_release(r);
        return st;
    }
    *out = r;
    return RM_OK;
}

rm_status_t coll_sched_persist(coll_sched_t *s, request_t **out)
{
    *out = NULL;
    if (!s)
        return RM_ERR_NOMEM;
    rm_status_t st;
    request_t *r = sched_request(s, &st);
    if (!r)
        return st;
    r->persistent = 1;
    r->gstate = s;
    s->persistent = 1;
    s->req = r;
    *out = r;
    return RM_OK;
}

rm_status_t coll_sched_restart(request_t *r)
{
    coll_sched_t *s = r->gstate;
    for (int i = 0; i < s->nsteps; i++)
        s->steps[i].req = NULL; /* released when their round completed */
    s->err = RM_OK;
    s->cur = -1;
    s->first = s->next = 0;
    s->running = 1;
    r->done = 0;
    r->active = 1;
    r->refs++; /* the schedule's while it runs */
    rm_status_t st; /* a failure shows in the request's status */
    sched_run(s, &st);
    return RM_OK;
}

rm_status_t coll_sched_status(const void *gstate)
{
    const coll_sched_t *s = gstate;
    return s->err < 0 ? s->err : RM_OK;
}

void coll_sched_release(void *gstate)
{
    coll_sched_t *s = gstate;
    if (s->running)
        s->orphan = 1; /* freed when it completes */
    else
        sched_free(s);
}
