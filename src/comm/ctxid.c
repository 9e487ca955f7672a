/* Context id agreement (see ctxid.h). */
#include "comm/ctxid.h"
#include "coll/coll.h"
#include "coll/sched.h"
#include "proto/proto.h"
#include "util/lock.h"
#include "util/log.h"

#include <string.h>

/* The ids in NSEG segments of SEG_WORDS words. */
#define NSEG 16
#define SEG_WORDS (COMM_ID_WORDS / NSEG)
#define ALL_SEGS ((1u << NSEG) - 1)
_Static_assert(COMM_ID_WORDS % NSEG == 0 && NSEG < 32, "segments");
/* a->held: the segments, and whether the round is the main one */
#define HELD_MAIN (1u << 31)
/* An offer's bit of id 0, MPI_COMM_WORLD's, which no process ever has
 * free: set when the round held every segment. */
#define OFFER_ALL 1u

static uint32_t ids_free[COMM_ID_WORDS]; /* bit set: id free here */
static uint32_t segs_held;               /* segments some agreement's round holds */
static int main_held;                    /* a later round (main) runs */
static ctxid_agree_t *waiting;           /* agreements past round 0 */

void ctxid_init(void)
{
    memset(ids_free, 0xff, sizeof ids_free);
    segs_held = 0;
    main_held = 0;
    waiting = NULL;
}

void ctxid_reserve(int id)
{
    ids_free[id / 32] &= ~(1u << (id % 32));
}

void ctxid_release(int id)
{
    ids_free[id / 32] |= 1u << (id % 32);
}

ctxid_key_t ctxid_key_next(comm_t *c)
{
    return (ctxid_key_t){.hi = (uint64_t)(c->ctx / 2) << 32 | c->ctxid_seq++, .lo = 0};
}

ctxid_key_t ctxid_key_pair(ctxid_key_t a, ctxid_key_t b)
{
    /* keys of ctxid_key_next have lo 0 and hi below 2^43: the top bit keeps
     * a pair apart from every single key */
    uint64_t x = a.hi < b.hi ? a.hi : b.hi, y = a.hi < b.hi ? b.hi : a.hi;
    return (ctxid_key_t){.hi = x, .lo = y | (uint64_t)1 << 63};
}

static int key_less(ctxid_key_t a, ctxid_key_t b)
{
    return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo);
}

/* Round 0's segment: the same wherever the key is. Ids come from the
 * segments in turn, so a parent's id says much about its place: parents
 * in different segments, or at different places (up to 16 apart) in one,
 * and creations in a row on one parent, start on different segments. */
static uint32_t key_mix(uint64_t k)
{
    uint32_t id = (uint32_t)(k >> 32) & 0x7fffffffu, seq = (uint32_t)k;
    return id / (COMM_MAX_IDS / NSEG) + 5 * (id % (COMM_MAX_IDS / NSEG)) + seq;
}

static int key_segment(ctxid_key_t k)
{
    return (int)((key_mix(k.hi) + key_mix(k.lo)) % NSEG);
}

void ctxid_begin(ctxid_agree_t *a, ctxid_key_t key, int member, int nids)
{
    /* buf is filled by every offer */
    a->key = key;
    a->member = member;
    a->nids = nids;
    a->round = a->waiting = 0;
    a->held = 0;
    a->next = NULL;
}

static int lowest_waiting(const ctxid_agree_t *a)
{
    for (const ctxid_agree_t *w = waiting; w; w = w->next)
        if (w != a && key_less(w->key, a->key))
            return 0;
    return 1;
}

static void unqueue(ctxid_agree_t *a)
{
    if (!a->waiting)
        return;
    for (ctxid_agree_t **p = &waiting; *p; p = &(*p)->next)
        if (*p == a) {
            *p = a->next;
            break;
        }
    a->waiting = 0;
}

static void drop(ctxid_agree_t *a)
{
    segs_held &= ~(a->held & ALL_SEGS);
    if (a->held & HELD_MAIN)
        main_held = 0;
    a->held = 0;
}

void ctxid_offer(ctxid_agree_t *a)
{
    uint32_t *m = a->buf;
    if (!a->member) { /* needs no id: agrees to any */
        memset(m, 0xff, sizeof a->buf);
        return;
    }
    memset(m, 0, sizeof a->buf);
    if (a->round == 0) {
        uint32_t seg = 1u << key_segment(a->key);
        a->held = segs_held & seg ? 0 : seg;
    } else {
        if (!a->waiting) {
            a->waiting = 1;
            a->next = waiting;
            waiting = a;
        }
        if (!main_held && lowest_waiting(a)) {
            a->held = HELD_MAIN | (ALL_SEGS & ~segs_held);
            main_held = 1;
        }
    }
    int all = (a->held & ALL_SEGS) == ALL_SEGS;
    segs_held |= a->held & ALL_SEGS;
    for (uint32_t segs = a->held & ALL_SEGS; segs; segs &= segs - 1) {
        int g = __builtin_ctz(segs);
        memcpy(m + g * SEG_WORDS, ids_free + g * SEG_WORDS, sizeof(uint32_t) * SEG_WORDS);
    }
    m[0] |= all ? OFFER_ALL : 0;
}

int ctxid_settle(ctxid_agree_t *a, int *ids)
{
    uint32_t flags = a->buf[0] & OFFER_ALL;
    a->buf[0] &= ~OFFER_ALL;
    /* the AND has ids only in segments every member held: a member looks
     * in its own (in ascending order, so all find the same) */
    int found = 0;
    uint32_t segs = a->member ? a->held & ALL_SEGS : ALL_SEGS;
    for (; segs && found < a->nids; segs &= segs - 1) {
        int g = __builtin_ctz(segs);
        for (int w = g * SEG_WORDS; w < (g + 1) * SEG_WORDS && found < a->nids; w++)
            for (uint32_t bits = a->buf[w]; bits && found < a->nids; bits &= bits - 1)
                ids[found++] = w * 32 + __builtin_ctz(bits);
    }
    if (found == a->nids) {
        /* a member offered only ids of segments it holds, which nothing
         * else here takes meanwhile: they are still free */
        for (int k = 0; a->member && k < found; k++)
            ctxid_reserve(ids[k]);
        drop(a);
        unqueue(a);
        return 1;
    }
    drop(a);
    a->round++;
    if (flags & OFFER_ALL) { /* everyone offered all it had */
        unqueue(a);
        return RM_ERR_NO_RESOURCE;
    }
    if (a->round % 1024 == 0)
        rm_log_debug("context id agreement: %d rounds without an id all hold", a->round);
    return 0;
}

void ctxid_cancel(ctxid_agree_t *a)
{
    drop(a);
    unqueue(a);
}

rm_status_t ctxid_agree(ctxid_key_t key, int member, int nids, ctxid_exchange_fn exchange, void *arg,
                        int *ids)
{
    ctxid_agree_t a;
    ctxid_begin(&a, key, member, nids);
    for (;;) {
        ctxid_offer(&a);
        rm_status_t st = exchange(a.buf, arg);
        if (st < 0) {
            ctxid_cancel(&a);
            return st;
        }
        int r = ctxid_settle(&a, ids);
        if (r)
            return r < 0 ? r : RM_OK;
        /* What holds the ids here may be a nonblocking agreement that needs
         * progress, or another thread that needs the lock: a round among
         * few processes (one, on a communicator of one) does not wait for
         * messages, so it would not give either a chance. */
        proto_progress();
        rm_lock_yield();
    }
}

/* ---- the exchange over a communicator ----------------------------------- */

/* buf = the AND of buf over local (recursive doubling, the ranks past the
 * largest power of two folded in first and answered last). */
static void round_allreduce(coll_sched_t *s, comm_t *local, uint32_t *buf, dtype_t *u32, op_t *band)
{
    int n = local->size, me = local->rank, p2 = 1;
    while (2 * p2 <= n)
        p2 *= 2;
    coll_sched_use(s, local);
    if (me >= p2) {
        coll_sched_send(s, buf, CTXID_LEN, u32, me - p2);
        coll_sched_barrier(s);
        coll_sched_recv(s, buf, CTXID_LEN, u32, me - p2);
        coll_sched_barrier(s);
        return;
    }
    uint32_t *tmp = coll_sched_bytes(s, sizeof(uint32_t) * CTXID_LEN);
    if (me + p2 < n) {
        coll_sched_recv(s, tmp, CTXID_LEN, u32, me + p2);
        coll_sched_barrier(s);
        coll_sched_reduce(s, tmp, buf, CTXID_LEN, u32, band);
    }
    for (int mask = 1; mask < p2; mask <<= 1) {
        coll_sched_send(s, buf, CTXID_LEN, u32, me ^ mask);
        coll_sched_recv(s, tmp, CTXID_LEN, u32, me ^ mask);
        coll_sched_barrier(s);
        coll_sched_reduce(s, tmp, buf, CTXID_LEN, u32, band);
    }
    if (me + p2 < n)
        coll_sched_send(s, buf, CTXID_LEN, u32, me + p2);
    coll_sched_barrier(s);
}

/* buf = the AND of every process's buf, over c: on an intercommunicator
 * each group's, swapped by the leaders (local rank 0) and ANDed, then
 * broadcast from them in a binomial tree. */
static void round_steps(coll_sched_t *s, comm_t *c, uint32_t *buf)
{
    dtype_t *u32 = dtype_get(MPI_UINT32_T);
    op_t *band = op_get(MPI_BAND);
    if (!comm_is_inter(c)) {
        round_allreduce(s, c, buf, u32, band);
        return;
    }
    comm_t *local = c->local_comm;
    int me = local->rank, n = local->size, low = me & -me;
    round_allreduce(s, local, buf, u32, band);
    if (me == 0) {
        uint32_t *tmp = coll_sched_bytes(s, sizeof(uint32_t) * CTXID_LEN);
        coll_sched_use(s, c);
        coll_sched_send(s, buf, CTXID_LEN, u32, 0);
        coll_sched_recv(s, tmp, CTXID_LEN, u32, 0);
        coll_sched_barrier(s);
        coll_sched_reduce(s, tmp, buf, CTXID_LEN, u32, band);
        coll_sched_use(s, local);
        low = 1;
        while (low < n)
            low <<= 1;
    } else {
        coll_sched_recv(s, buf, CTXID_LEN, u32, me - low);
        coll_sched_barrier(s);
    }
    for (int mask = low >> 1; mask > 0; mask >>= 1)
        if (me + mask < n)
            coll_sched_send(s, buf, CTXID_LEN, u32, me + mask);
}

static rm_status_t comm_exchange(uint32_t *buf, void *arg)
{
    comm_t *c = arg;
    if (!comm_is_inter(c)) /* a blocking creation: the collective's own best way */
        return coll_allreduce(MPI_IN_PLACE, buf, CTXID_LEN, dtype_get(MPI_UINT32_T), op_get(MPI_BAND), c);
    coll_sched_t *s = coll_sched_new(c);
    if (s)
        round_steps(s, c, buf);
    return coll_sched_run(s);
}

rm_status_t ctxid_alloc(comm_t *c, int member, int nids, int *ids)
{
    return ctxid_agree(ctxid_key_next(c), member, nids, comm_exchange, c, ids);
}

rm_status_t ctxid_round_start(comm_t *c, ctxid_agree_t *a, request_t **req)
{
    ctxid_offer(a);
    /* the agreement's count on c tells it from others running there */
    coll_sched_t *s = coll_sched_new_tagged(c, (uint32_t)a->key.hi);
    if (s)
        round_steps(s, c, a->buf);
    rm_status_t st = coll_sched_start(s, req);
    if (st < 0)
        ctxid_cancel(a);
    return st;
}
