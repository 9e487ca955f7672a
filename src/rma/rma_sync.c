/* Synchronisation: fence, post/start/complete/wait, locks and flushes.
 *
 * Every sync request an origin sends (LOCK, UNLOCK, FLUSH) is answered by
 * one REPLY, counted per target: a wait is "answers == requests". Because
 * the channel delivers in order and the target applies operations as they
 * are delivered, a REPLY to FLUSH or UNLOCK leaves the target after every
 * operation sent before the request was applied, so it is their remote
 * completion; the same holds for COMPLETE before the target's MPI_Win_wait.
 * Lock requests wait at the target in arrival order; Win_lock blocks until
 * its grant, so operations never reach a target before their lock. */
#include "rma/rma.h"
#include "coll/coll.h"
#include "util/lock.h"
#include "util/log.h"

#include <stdlib.h>

#define RMA_SPIN 64

rm_status_t rma_progress_until(const comm_t *c, int (*done)(void *), void *arg, int world)
{
    int idle = 0;
    while (!done(arg)) {
        /* a revoke of the window's communicator arrives as any frame: the
         * answer waited for may never come (the peer has dropped the window) */
        if (c && c->revoked)
            return RM_ERR_REVOKED;
        rm_status_t f = world >= 0 ? proto_peer_failure(world) : RM_OK;
        if (f < 0)
            return f;
        if (proto_progress()) {
            idle = 0;
        } else if (++idle >= RMA_SPIN) {
            idle = 0;
            rm_lock_yield();
        }
    }
    return RM_OK;
}

typedef struct rma_wait_one {
    win_t *w;
    int rank;
    int answers; /* also wait for the sync answers */
} rma_wait_one_t;

static int rma_one_done(void *arg)
{
    rma_wait_one_t *o = arg;
    return o->w->pending[o->rank] == 0 && o->w->zc[o->rank] == 0 &&
           (!o->answers || o->w->answered[o->rank] == o->w->asked[o->rank]);
}

static rm_status_t rma_wait_rank(win_t *w, int rank, int answers)
{
    rma_wait_one_t o = {w, rank, answers};
    return rma_progress_until(w->comm, rma_one_done, &o, comm_world_rank(w->comm, rank));
}

/* Every rank answered (or its channel failed, which is reported). */
static rm_status_t rma_wait_all(win_t *w, int answers)
{
    rm_status_t st = RM_OK;
    for (int r = 0; r < w->size; r++) {
        rm_status_t s = rma_wait_rank(w, r, answers);
        if (s < 0 && st == RM_OK)
            st = s;
    }
    return st;
}

static rm_status_t rma_ask(win_t *w, int rank, int kind, int lock)
{
    rma_msg_t m = {.kind = (uint8_t)kind, .lock = (uint8_t)lock};
    w->asked[rank]++;
    rm_status_t st = rma_send(w, rank, &m, NULL, 0, NULL, 0);
    if (st < 0)
        w->asked[rank]--;
    return st;
}

rm_status_t rma_fence(win_t *w, int assert)
{
    rm_status_t st = rma_batch_flush(w, -1);
    for (int r = 0; r < w->size; r++)
        if (w->dirty[r]) {
            rm_status_t s = rma_ask(w, r, RMA_M_FLUSH, 0);
            if (s < 0 && st == RM_OK)
                st = s;
            w->dirty[r] = 0;
        }
    rm_status_t s = rma_wait_all(w, 1);
    if (st == RM_OK)
        st = s;
    /* after the barrier, everything aimed at this rank has been applied (on
     * one host the barrier meets in the communicator's shared segment,
     * src/coll/shm.c) */
    s = coll_barrier(w->comm);
    if (st == RM_OK)
        st = s;
    w->fence = !(assert & MPI_MODE_NOSUCCEED);
    return st;
}

/* Window ranks of a group's members; -1 for a process not in the window. */
static int *rma_ranks_of(win_t *w, group_t *g)
{
    int *out = malloc(sizeof *out * (size_t)(g->size ? g->size : 1));
    if (!out)
        return NULL;
    for (int i = 0; i < g->size; i++) {
        out[i] = -1;
        for (int r = 0; r < w->size; r++)
            if (comm_world_rank(w->comm, r) == g->world[i])
                out[i] = r;
    }
    return out;
}

rm_status_t rma_post(win_t *w, group_t *g)
{
    int *ranks = rma_ranks_of(w, g);
    if (!ranks)
        return RM_ERR_NOMEM;
    for (int i = 0; i < g->size; i++)
        if (ranks[i] < 0) {
            free(ranks);
            return RM_ERR_INVALID;
        }
    free(w->exp_ranks);
    w->exp_ranks = ranks;
    w->nexp = g->size;
    w->exposed = 1;
    rm_status_t st = RM_OK;
    for (int i = 0; i < g->size; i++) {
        rma_msg_t m = {.kind = RMA_M_POST};
        rm_status_t s = rma_send(w, ranks[i], &m, NULL, 0, NULL, 0);
        if (s < 0 && st == RM_OK)
            st = s;
    }
    return st;
}

typedef struct rma_start_wait {
    win_t *w;
    int *ranks, n;
} rma_start_wait_t;

static int rma_posts_done(void *arg)
{
    rma_start_wait_t *s = arg;
    for (int i = 0; i < s->n; i++)
        if (s->w->posts[s->ranks[i]] <= 0 && proto_peer_failure(comm_world_rank(s->w->comm, s->ranks[i])) == RM_OK)
            return 0;
    return 1;
}

/* A fence opens an epoch for whatever follows it; another kind of access
 * epoch ends that (as in MPICH): operations after it need their own
 * synchronisation. */
static void rma_fence_end(win_t *w)
{
    w->fence = 0;
}

rm_status_t rma_start(win_t *w, group_t *g)
{
    rma_fence_end(w);
    int *ranks = rma_ranks_of(w, g);
    if (!ranks)
        return RM_ERR_NOMEM;
    for (int i = 0; i < g->size; i++)
        if (ranks[i] < 0) {
            free(ranks);
            return RM_ERR_INVALID;
        }
    rma_start_wait_t s = {w, ranks, g->size};
    rm_status_t st = rma_progress_until(w->comm, rma_posts_done, &s, -1);
    for (int i = 0; i < g->size; i++) {
        rm_status_t f = proto_peer_failure(comm_world_rank(w->comm, ranks[i]));
        if (f < 0 && st == RM_OK)
            st = f;
        if (w->posts[ranks[i]] > 0)
            w->posts[ranks[i]]--;
    }
    if (st < 0) {
        free(ranks);
        return st;
    }
    free(w->acc_ranks);
    w->acc_ranks = ranks;
    w->nacc = g->size;
    return RM_OK;
}

rm_status_t rma_complete(win_t *w)
{
    rm_status_t st = rma_batch_flush(w, -1);
    for (int i = 0; i < w->nacc; i++) {
        int r = w->acc_ranks[i];
        rm_status_t s = rma_wait_rank(w, r, 0);
        rma_msg_t m = {.kind = RMA_M_COMPLETE};
        if (s >= 0)
            s = rma_send(w, r, &m, NULL, 0, NULL, 0);
        if (s < 0 && st == RM_OK)
            st = s;
        w->dirty[r] = 0;
    }
    free(w->acc_ranks);
    w->acc_ranks = NULL;
    w->nacc = 0;
    return st;
}

static int rma_completes_done(void *arg)
{
    win_t *w = arg;
    if (w->completes >= w->nexp)
        return 1;
    for (int i = 0; i < w->nexp; i++)
        if (proto_peer_failure(comm_world_rank(w->comm, w->exp_ranks[i])) < 0)
            return 1;
    return 0;
}

static void rma_exposure_end(win_t *w)
{
    w->completes -= w->nexp;
    w->exposed = 0;
    free(w->exp_ranks);
    w->exp_ranks = NULL;
    w->nexp = 0;
}

rm_status_t rma_wait(win_t *w)
{
    rm_status_t st = rma_progress_until(w->comm, rma_completes_done, w, -1);
    if (st >= 0 && w->completes < w->nexp) {
        for (int i = 0; i < w->nexp && st >= 0; i++)
            st = proto_peer_failure(comm_world_rank(w->comm, w->exp_ranks[i]));
        w->completes = w->nexp;
    }
    rma_exposure_end(w);
    return st;
}

int rma_test(win_t *w)
{
    if (w->completes < w->nexp)
        proto_progress();
    if (w->completes < w->nexp)
        return 0;
    rma_exposure_end(w);
    return 1;
}

rm_status_t rma_lock(win_t *w, int type, int rank)
{
    rma_fence_end(w);
    rm_status_t st = rma_ask(w, rank, RMA_M_LOCK, type);
    if (st >= 0)
        st = rma_wait_rank(w, rank, 1);
    if (st < 0)
        return st;
    w->lock[rank] = type;
    w->nlocks++;
    return RM_OK;
}

rm_status_t rma_unlock(win_t *w, int rank)
{
    rm_status_t st = rma_batch_flush(w, rank);
    if (st >= 0)
        st = rma_wait_rank(w, rank, 1);
    if (st >= 0)
        st = rma_ask(w, rank, RMA_M_UNLOCK, w->lock[rank] ? w->lock[rank] : MPI_LOCK_SHARED);
    if (st >= 0)
        st = rma_wait_rank(w, rank, 1);
    w->dirty[rank] = 0;
    w->lock[rank] = 0;
    w->nlocks--;
    return st;
}

rm_status_t rma_lock_all(win_t *w)
{
    rma_fence_end(w);
    rm_status_t st = RM_OK;
    for (int r = 0; r < w->size && st >= 0; r++)
        st = rma_ask(w, r, RMA_M_LOCK, MPI_LOCK_SHARED);
    rm_status_t s = rma_wait_all(w, 1);
    if (st >= 0)
        st = s;
    if (st >= 0)
        w->lock_all = 1;
    return st;
}

rm_status_t rma_unlock_all(win_t *w)
{
    rm_status_t st = rma_batch_flush(w, -1);
    rm_status_t b = rma_wait_all(w, 1);
    if (st >= 0)
        st = b;
    for (int r = 0; r < w->size; r++) {
        rm_status_t s = rma_ask(w, r, RMA_M_UNLOCK, MPI_LOCK_SHARED);
        if (s < 0 && st >= 0)
            st = s;
        w->dirty[r] = 0;
    }
    rm_status_t s = rma_wait_all(w, 1);
    if (st >= 0)
        st = s;
    w->lock_all = 0;
    return st;
}

rm_status_t rma_flush(win_t *w, int rank, int local)
{
    rm_status_t st = rma_batch_flush(w, rank); /* also for local completion: out of the way */
    for (int r = rank < 0 ? 0 : rank; r < (rank < 0 ? w->size : rank + 1); r++) {
        if (!local && w->dirty[r]) {
            rm_status_t s = rma_ask(w, r, RMA_M_FLUSH, 0);
            if (s < 0 && st == RM_OK)
                st = s;
            w->dirty[r] = 0;
        }
    }
    for (int r = rank < 0 ? 0 : rank; r < (rank < 0 ? w->size : rank + 1); r++) {
        /* data coming back is the only part of an operation that is not
         * complete at the origin once sent */
        rm_status_t s = rma_wait_rank(w, r, !local);
        if (s < 0 && st == RM_OK)
            st = s;
    }
    return st;
}

/* ---- the target side ---------------------------------------------------- */

static int rma_grantable(const win_t *w, int type)
{
    return !w->lk_excl && (type == MPI_LOCK_SHARED || !w->lk_shared);
}

static void rma_grant(win_t *w, int rank, int type)
{
    if (type == MPI_LOCK_EXCLUSIVE)
        w->lk_excl = 1;
    else
        w->lk_shared++;
    rma_msg_t m = {.kind = RMA_M_REPLY};
    if (rma_send(w, rank, &m, NULL, 0, NULL, 0) < 0)
        rm_log_debug("rma: lock grant to rank %d cannot go", rank);
}

void rma_sync_recv(win_t *w, const rma_msg_t *m)
{
    rma_msg_t reply = {.kind = RMA_M_REPLY};
    switch (m->kind) {
    case RMA_M_LOCK:
        /* first come, first served: a shared request waits behind a queued
         * exclusive one, so writers are not starved */
        if (!w->lk_head && rma_grantable(w, m->lock)) {
            rma_grant(w, m->rank, m->lock);
        } else {
            rma_lockreq_t *q = malloc(sizeof *q);
            if (!q) {
                rm_log_error("rma: no memory to queue a lock request from rank %d", m->rank);
                return;
            }
            *q = (rma_lockreq_t){.rank = m->rank, .type = m->lock};
            if (w->lk_tail)
                w->lk_tail->next = q;
            else
                w->lk_head = q;
            w->lk_tail = q;
        }
        return;
    case RMA_M_UNLOCK:
        if (m->lock == MPI_LOCK_EXCLUSIVE)
            w->lk_excl = 0;
        else if (w->lk_shared > 0)
            w->lk_shared--;
        rma_send(w, m->rank, &reply, NULL, 0, NULL, 0);
        while (w->lk_head && rma_grantable(w, w->lk_head->type)) {
            rma_lockreq_t *q = w->lk_head;
            if (!(w->lk_head = q->next))
                w->lk_tail = NULL;
            rma_grant(w, q->rank, q->type);
            free(q);
        }
        return;
    case RMA_M_FLUSH:
        rma_send(w, m->rank, &reply, NULL, 0, NULL, 0);
        return;
    case RMA_M_REPLY:
        w->answered[m->rank]++;
        return;
    case RMA_M_POST:
        w->posts[m->rank]++;
        return;
    case RMA_M_COMPLETE:
        w->completes++;
        return;
    default:
        rm_log_error("rma: unknown frame kind %d from rank %d", m->kind, m->rank);
    }
}
