#include "proto/match.h"

#include <stdlib.h>
#include <string.h>

/* One FIFO per (ctx, src, tag) key. Buckets are chained in a hash table and
 * freed when they empty, so many distinct tags do not accumulate. */
struct mq_bucket {
    mq_bucket_t *chain;
    uint32_t ctx;
    int src, tag;
    void *head, *tail;
};

static inline unsigned mq_hash(const match_state_t *m, uint32_t ctx, int src, int tag)
{
    uint64_t k = ((uint64_t)ctx << 40) ^ ((uint64_t)(uint32_t)src << 20) ^ (uint64_t)(uint32_t)tag;
    k *= 0x9e3779b97f4a7c15ull;
    return (unsigned)(k >> 40) & (m->nbuckets - 1);
}

static mq_bucket_t *mq_lookup(mq_bucket_t **tab, unsigned h, uint32_t ctx, int src, int tag)
{
    for (mq_bucket_t *b = tab[h]; b; b = b->chain)
        if (b->ctx == ctx && b->src == src && b->tag == tag)
            return b;
    return NULL;
}

/* Emptied buckets are recycled: a message per key is the common pattern and
 * must not cost a malloc/free pair. */
#define MQ_SPARE_MAX 1024
static mq_bucket_t *mq_spare;
static int mq_nspare;

static mq_bucket_t *mq_get(mq_bucket_t **tab, unsigned h, uint32_t ctx, int src, int tag)
{
    mq_bucket_t *b = mq_lookup(tab, h, ctx, src, tag);
    if (b)
        return b;
    if (mq_spare) {
        b = mq_spare;
        mq_spare = b->chain;
        mq_nspare--;
        b->head = b->tail = NULL;
    } else if (!(b = calloc(1, sizeof *b))) {
        return NULL;
    }
    b->ctx = ctx;
    b->src = src;
    b->tag = tag;
    b->chain = tab[h];
    tab[h] = b;
    return b;
}

static void mq_unlink(match_state_t *m, mq_bucket_t **tab, mq_bucket_t *b)
{
    for (mq_bucket_t **pp = &tab[mq_hash(m, b->ctx, b->src, b->tag)]; *pp; pp = &(*pp)->chain) {
        if (*pp == b) {
            *pp = b->chain;
            if (mq_nspare < MQ_SPARE_MAX) {
                b->chain = mq_spare;
                mq_spare = b;
                mq_nspare++;
            } else {
                free(b);
            }
            return;
        }
    }
}

/* The bucket that emptied last stays in its table: the next receive or
 * message with the same envelope (a ping-pong, a stream of windows) finds
 * it there instead of linking a spare in again. Only one empty bucket per
 * table lingers; the one before goes when another empties. */
static void mq_drop_if_empty(match_state_t *m, mq_bucket_t **tab, mq_bucket_t **idle, mq_bucket_t *b)
{
    if (b->head || *idle == b)
        return;
    mq_bucket_t *old = *idle;
    *idle = b;
    if (old && !old->head)
        mq_unlink(m, tab, old);
}

/* Unexpected messages' entries, each with its payload after it, from a pool
 * of size classes (util/pool.h): payload room by powers of two from 128 bytes
 * to 16 KiB (the largest eager message by default), so a message that
 * arrives before its receive is posted costs no malloc and free (with every
 * message unexpected, malloc, free and glibc's consolidation of freed chunks
 * above 1 KiB took 15 % of a receiver's time). Powers of two waste at most
 * half an entry: one class of 4 KiB for every message of 257 B-4 KiB slowed
 * 512-byte messages down, their entries spread over eight times the memory.
 * Flow control charges a message at least the block its entry takes
 * (match_unexp_bytes), so RAILMPI_PEER_BUFFER still bounds what they hold.
 * At most 256 KiB of each class wait for reuse (2 MiB for all eight: a
 * flood's entries go back to the system once it is over; how many are alive
 * at once is bounded by the senders' credit, not here). */
static rm_pool_t mq_unexp_pool = RM_POOL_INIT(sizeof(unexp_t), MQ_UNEXP_MIN_SHIFT, MQ_UNEXP_CLASSES, 256u << 10);

unexp_t *match_unexp_new(size_t len)
{
    int cls;
    unexp_t *u = rm_pool_get(&mq_unexp_pool, len, &cls);
    if (!u)
        return NULL;
    u->cls = cls;
    u->data = (unsigned char *)(u + 1);
    return u;
}

void match_unexp_free(unexp_t *u)
{
    if (u)
        rm_pool_put(&mq_unexp_pool, u, u->cls);
}

size_t match_unexp_kept(int cls)
{
    return rm_pool_kept(&mq_unexp_pool, cls);
}

rm_status_t match_init(match_state_t *m, unsigned nbuckets)
{
    memset(m, 0, sizeof *m);
    unsigned n = 1;
    while (n < nbuckets)
        n <<= 1;
    m->nbuckets = n;
    m->posted_tab = calloc(n, sizeof *m->posted_tab);
    m->unexp_tab = calloc(n, sizeof *m->unexp_tab);
    if (!m->posted_tab || !m->unexp_tab) {
        free(m->posted_tab);
        free(m->unexp_tab);
        return RM_ERR_NOMEM;
    }
    return RM_OK;
}

void match_destroy(match_state_t *m)
{
    for (unsigned i = 0; i < m->nbuckets; i++) {
        for (mq_bucket_t *b = m->posted_tab[i], *n; b; b = n) {
            n = b->chain;
            free(b);
        }
        for (mq_bucket_t *b = m->unexp_tab[i], *n; b; b = n) {
            n = b->chain;
            free(b);
        }
    }
    for (unexp_t *u = m->arr_head, *n; u; u = n) {
        n = u->anext;
        free(u);
    }
    free(m->posted_tab);
    free(m->unexp_tab);
    memset(m, 0, sizeof *m);
    while (mq_spare) {
        mq_bucket_t *b = mq_spare;
        mq_spare = b->chain;
        free(b);
    }
    mq_nspare = 0;
    rm_pool_drain(&mq_unexp_pool);
}

/* ---- posted receives -------------------------------------------------- */

static inline int match_env(const request_t *r, uint32_t ctx, int src, int tag)
{
    return r->ctx == ctx && (r->peer == MPI_ANY_SOURCE || r->peer == src) &&
           (r->tag == MPI_ANY_TAG || r->tag == tag);
}

rm_status_t match_post(match_state_t *m, request_t *r)
{
    r->post_seq = ++m->post_seq;
    r->next = NULL;
    if (r->peer == MPI_ANY_SOURCE || r->tag == MPI_ANY_TAG) {
        r->prev = m->wild_tail;
        if (m->wild_tail)
            m->wild_tail->next = r;
        else
            m->wild_head = r;
        m->wild_tail = r;
    } else {
        unsigned h = mq_hash(m, r->ctx, r->peer, r->tag);
        mq_bucket_t *b = mq_get(m->posted_tab, h, r->ctx, r->peer, r->tag);
        if (!b)
            return RM_ERR_NOMEM;
        r->prev = b->tail;
        if (b->tail)
            ((request_t *)b->tail)->next = r;
        else
            b->head = r;
        b->tail = r;
    }
    m->nposted++;
    return RM_OK;
}

static void match_unlink_wild(match_state_t *m, request_t *r)
{
    if (r->prev)
        r->prev->next = r->next;
    else
        m->wild_head = r->next;
    if (r->next)
        r->next->prev = r->prev;
    else
        m->wild_tail = r->prev;
    r->next = r->prev = NULL;
}

static void match_unlink_bucket(match_state_t *m, request_t *r)
{
    unsigned h = mq_hash(m, r->ctx, r->peer, r->tag);
    mq_bucket_t *b = mq_lookup(m->posted_tab, h, r->ctx, r->peer, r->tag);
    if (r->prev)
        r->prev->next = r->next;
    else
        b->head = r->next;
    if (r->next)
        r->next->prev = r->prev;
    else
        b->tail = r->prev;
    r->next = r->prev = NULL;
    mq_drop_if_empty(m, m->posted_tab, &m->posted_idle, b);
}

request_t *match_take_posted(match_state_t *m, uint32_t ctx, int src, int tag)
{
    request_t *best = NULL;
    if (m->nposted == 0)
        return NULL;
    unsigned h = mq_hash(m, ctx, src, tag);
    mq_bucket_t *b = mq_lookup(m->posted_tab, h, ctx, src, tag);
    if (b)
        best = b->head;
    for (request_t *w = m->wild_head; w; w = w->next) {
        if (best && w->post_seq > best->post_seq)
            break;
        if (match_env(w, ctx, src, tag)) {
            match_unlink_wild(m, w);
            m->nposted--;
            return w;
        }
    }
    if (best) {
        best->prev = NULL; /* it is the head */
        b->head = best->next;
        if (best->next)
            best->next->prev = NULL;
        else
            b->tail = NULL;
        best->next = NULL;
        mq_drop_if_empty(m, m->posted_tab, &m->posted_idle, b);
        m->nposted--;
    }
    return best;
}

int match_remove_posted(match_state_t *m, request_t *r)
{
    /* a posted request is either in the wildcard list or in its bucket */
    if (r->peer == MPI_ANY_SOURCE || r->tag == MPI_ANY_TAG) {
        for (request_t *w = m->wild_head; w; w = w->next) {
            if (w == r) {
                match_unlink_wild(m, r);
                m->nposted--;
                return 1;
            }
        }
        return 0;
    }
    unsigned h = mq_hash(m, r->ctx, r->peer, r->tag);
    mq_bucket_t *b = mq_lookup(m->posted_tab, h, r->ctx, r->peer, r->tag);
    if (!b)
        return 0;
    for (request_t *x = b->head; x; x = x->next) {
        if (x == r) {
            match_unlink_bucket(m, r);
            m->nposted--;
            return 1;
        }
    }
    return 0;
}

/* ---- unexpected messages ---------------------------------------------- */

rm_status_t match_add_unexp(match_state_t *m, unexp_t *u)
{
    unsigned h = mq_hash(m, u->ctx, u->src, u->tag);
    mq_bucket_t *b = mq_get(m->unexp_tab, h, u->ctx, u->src, u->tag);
    if (!b)
        return RM_ERR_NOMEM;
    u->bnext = NULL;
    u->bprev = b->tail;
    if (b->tail)
        ((unexp_t *)b->tail)->bnext = u;
    else
        b->head = u;
    b->tail = u;
    u->anext = NULL;
    u->aprev = m->arr_tail;
    if (m->arr_tail)
        m->arr_tail->anext = u;
    else
        m->arr_head = u;
    m->arr_tail = u;
    m->nunexp++;
    return RM_OK;
}

void match_remove_unexp(match_state_t *m, unexp_t *u)
{
    unsigned h = mq_hash(m, u->ctx, u->src, u->tag);
    mq_bucket_t *b = mq_lookup(m->unexp_tab, h, u->ctx, u->src, u->tag);
    if (u->bprev)
        u->bprev->bnext = u->bnext;
    else
        b->head = u->bnext;
    if (u->bnext)
        u->bnext->bprev = u->bprev;
    else
        b->tail = u->bprev;
    mq_drop_if_empty(m, m->unexp_tab, &m->unexp_idle, b);
    if (u->aprev)
        u->aprev->anext = u->anext;
    else
        m->arr_head = u->anext;
    if (u->anext)
        u->anext->aprev = u->aprev;
    else
        m->arr_tail = u->aprev;
    u->anext = u->aprev = u->bnext = u->bprev = NULL;
    m->nunexp--;
}

unexp_t *match_find_unexp(match_state_t *m, uint32_t ctx, int src, int tag, int take)
{
    unexp_t *u = NULL;
    if (m->nunexp == 0)
        return NULL;
    if (src != MPI_ANY_SOURCE && tag != MPI_ANY_TAG) {
        mq_bucket_t *b = mq_lookup(m->unexp_tab, mq_hash(m, ctx, src, tag), ctx, src, tag);
        u = b ? b->head : NULL;
    } else {
        for (unexp_t *x = m->arr_head; x; x = x->anext) {
            if (x->ctx == ctx && (src == MPI_ANY_SOURCE || x->src == src) &&
                (tag == MPI_ANY_TAG || x->tag == tag)) {
                u = x;
                break;
            }
        }
    }
    if (u && take)
        match_remove_unexp(m, u);
    return u;
}

unexp_t *match_take_unexp_by_sender(match_state_t *m, int world_src, uint64_t sid)
{
    /* newest first: a persistent send's earlier rounds carry the same id, and
     * an eager one may still sit here although it completed long ago; the
     * round being cancelled is the last one sent */
    for (unexp_t *x = m->arr_tail; x; x = x->aprev) {
        if (x->world_src == world_src && x->sid == sid) {
            match_remove_unexp(m, x);
            return x;
        }
    }
    return NULL;
}
