/* Partitioned communication (MPI-4.0 chapter 4) over the point-to-point
 * engine.
 *
 * Each partition of the sender is a "piece": it travels as an ordinary
 * message (eager, or rendezvous striped over the rails like any large
 * message) the moment MPI_Pready marks it, on a context of its own
 * (CTX_PART_DATA | ctx) with the tag tagbase + piece. The receiver learns
 * the sender's layout from a small hello the sender sends at
 * MPI_Psend_init (CTX_PART_HELLO | ctx, the user's tag): hellos between
 * two ranks with one tag are non-overtaking, so the n-th partitioned send
 * initialised towards a rank matches the n-th partitioned receive
 * initialised from it, as the standard orders them. The tag base is drawn
 * by the sender from a counter, so concurrent partitioned operations
 * between the same pair never share a tag (until 2^31 pieces later).
 *
 * The receiver posts one receive per piece at each MPI_Start (once the hello
 * is in), straight into its buffer at the piece's byte offset; its own
 * partitions may be cut differently, and MPI_Parrived(p) answers whether
 * every piece overlapping partition p has landed. Completion is tracked by
 * a progress poll, so MPI_Wait/Test see r->done like any request. Everything
 * runs under the global lock of the bindings; the per-partition ready flags
 * are atomic so a second MPI_Pready of one partition is caught whichever
 * thread made the first. */
#include "proto/engine.h"
#include "util/log.h"

#include <stdlib.h>
#include <string.h>

/* context bits above any communicator's (comm ids stay far below) and
 * beside those of comm/commgrp.c */
#define CTX_PART_HELLO 0x10000000u
#define CTX_PART_DATA 0x08000000u
#define PART_HELLO_WORDS 3 /* pieces, bytes per piece, tag base */
#define PART_TAG_MAX 0x7fffffff

struct part {
    int send;
    int nparts;   /* this side's partitions */
    size_t pbytes; /* bytes of one of this side's partitions */
    size_t total;
    int npieces;  /* the sender's partitions: messages per cycle; receiver: -1 before the hello */
    size_t piece; /* bytes per piece */
    int tagbase;
    int staged;   /* receiver: pieces land in r->tmp and are unpacked (noncontiguous type
                   * whose elements a piece boundary cuts) */
    int scan;     /* pieces [0, scan) are finished this cycle */
    int polled;   /* a progress poll holds a reference on the request */
    rm_status_t failed; /* receiver: the hello did not fit; every cycle fails so */
    request_t *hello;
    request_t **subs;       /* per piece: its message this cycle */
    unsigned char *fin;     /* per piece: finished this cycle (placed, released) */
    _Atomic unsigned char *ready; /* sender, per partition: marked in this cycle */
};

static int part_next_tag;

static rm_status_t part_new(request_t **out, int kind, const void *buf, int partitions,
                            MPI_Count count, dtype_t *dt, int peer, int tag, comm_t *comm)
{
    request_t *r = proto_request_alloc(kind);
    if (!r)
        return RM_ERR_NOMEM;
    struct part *p = calloc(1, sizeof *p);
    if (!p) {
        proto_request_release(r);
        return RM_ERR_NOMEM;
    }
    r->part = p;
    proto_request_setup(r, (void *)buf, count, dt, peer, tag, comm, comm->ctx);
    r->persistent = 1;
    r->world_peer = -1;
    p->send = kind == REQ_PSEND;
    p->nparts = partitions;
    p->pbytes = (size_t)count * (size_t)dt->size;
    p->total = p->pbytes * (size_t)partitions;
    p->npieces = -1;
    *out = r;
    return RM_OK;
}

/* Per-piece state, once the number of pieces is known. */
static rm_status_t part_arrays(struct part *p, int npieces)
{
    size_t n = npieces > 0 ? (size_t)npieces : 1;
    p->subs = calloc(n, sizeof *p->subs);
    p->fin = calloc(n, 1);
    if (p->send)
        p->ready = calloc(n, sizeof *p->ready);
    if (!p->subs || !p->fin || (p->send && !p->ready))
        return RM_ERR_NOMEM;
    p->npieces = npieces;
    return RM_OK;
}

rm_status_t proto_psend_init(const void *buf, int partitions, MPI_Count count, dtype_t *dt,
                             int dst, int tag, comm_t *comm, request_t **out)
{
    request_t *r;
    rm_status_t st = part_new(&r, REQ_PSEND, buf, partitions, count, dt, dst, tag, comm);
    if (st < 0)
        return st;
    struct part *p = r->part;
    p->piece = p->pbytes;
    if ((st = part_arrays(p, partitions)) < 0)
        goto fail;
    if (dst != MPI_PROC_NULL) {
        if (part_next_tag > PART_TAG_MAX - partitions)
            part_next_tag = 0;
        p->tagbase = part_next_tag;
        part_next_tag += partitions;
        uint64_t *hello = malloc(PART_HELLO_WORDS * sizeof *hello);
        if (!hello) {
            st = RM_ERR_NOMEM;
            goto fail;
        }
        hello[0] = (uint64_t)partitions;
        hello[1] = p->piece;
        hello[2] = (uint64_t)p->tagbase;
        st = proto_isend(hello, PART_HELLO_WORDS * sizeof *hello, dtype_get(MPI_BYTE), dst, tag,
                         comm, CTX_PART_HELLO | comm->ctx, PROTO_STD, &p->hello);
        if (st < 0) {
            free(hello);
            goto fail;
        }
    }
    *out = r;
    return RM_OK;
fail:
    proto_request_release(r);
    return st;
}

rm_status_t proto_precv_init(void *buf, int partitions, MPI_Count count, dtype_t *dt, int src,
                             int tag, comm_t *comm, request_t **out)
{
    request_t *r;
    rm_status_t st = part_new(&r, REQ_PRECV, buf, partitions, count, dt, src, tag, comm);
    if (st < 0)
        return st;
    struct part *p = r->part;
    if (src == MPI_PROC_NULL) {
        p->npieces = 0;
    } else {
        uint64_t *hello = malloc(PART_HELLO_WORDS * sizeof *hello);
        st = hello ? proto_irecv(hello, PART_HELLO_WORDS * sizeof *hello, dtype_get(MPI_BYTE), src,
                                 tag, comm, CTX_PART_HELLO | comm->ctx, &p->hello)
                   : RM_ERR_NOMEM;
        if (st < 0) {
            free(hello);
            proto_request_release(r);
            return st;
        }
    }
    *out = r;
    return RM_OK;
}

/* The hello's buffer goes with it once the engine is done with it. */
static int part_hello_reap(void *arg)
{
    request_t *h = arg;
    if (!h->done)
        return 0;
    free(h->buf);
    proto_request_release(h);
    return 1;
}

static void part_hello_drop(struct part *p)
{
    request_t *h = p->hello;
    p->hello = NULL;
    if (!h->done && h->kind == REQ_RECV)
        proto_cancel(h); /* a receive still posted goes at once */
    if (part_hello_reap(h) == 0 && proto_poll_add(part_hello_reap, h) < 0)
        rm_log_warn("proto: a partitioned request's hello is kept until the end");
}

void proto_part_release(request_t *r)
{
    struct part *p = r->part;
    if (p->hello)
        part_hello_drop(p);
    for (int s = 0; s < p->npieces; s++)
        if (p->subs[s])
            proto_request_release(p->subs[s]);
    free(p->subs);
    free(p->fin);
    free((void *)p->ready);
    free(p);
    r->part = NULL;
}

/* Receiver: take the sender's layout from its hello. 1 once known. */
static int part_hello_take(request_t *r)
{
    struct part *p = r->part;
    if (p->npieces >= 0)
        return 1;
    if (!p->hello->done)
        return 0;
    uint64_t *h = p->hello->buf;
    rm_status_t st = p->hello->err;
    uint64_t n = h[0], piece = h[1];
    if (st >= 0 && n * piece != p->total) {
        rm_log_debug("proto: partitioned receive of %zu bytes matched a send of %llu x %llu",
                     p->total, (unsigned long long)n, (unsigned long long)piece);
        st = n * piece > p->total ? RM_ERR_TRUNCATE : RM_ERR_INVALID;
    }
    if (st >= 0) {
        p->piece = piece;
        p->tagbase = (int)h[2];
        dtype_t *dt = r->dt;
        MPI_Count items = r->count * p->nparts;
        if (!dtype_is_contig(dt, items) && (dt->size == 0 || piece % (size_t)dt->size)) {
            p->staged = 1;
            if (!(r->tmp = malloc(p->total ? p->total : 1)))
                st = RM_ERR_NOMEM;
        }
    }
    if (st >= 0)
        st = part_arrays(p, (int)n);
    part_hello_drop(p);
    if (st < 0) {
        /* every cycle of this request fails; no message is waited for */
        r->err = p->failed = st;
        p->npieces = 0;
    }
    return 1;
}

/* Receiver: post this cycle's receive of every piece. */
static void part_post(request_t *r)
{
    struct part *p = r->part;
    dtype_t *dt = r->dt, *byte = dtype_get(MPI_BYTE);
    uint32_t ctx = CTX_PART_DATA | r->ctx;
    for (int s = 0; s < p->npieces; s++) {
        size_t off = (size_t)s * p->piece;
        rm_status_t st;
        if (p->staged)
            st = proto_irecv((char *)r->tmp + off, (MPI_Count)p->piece, byte, r->peer,
                             p->tagbase + s, r->comm, ctx, &p->subs[s]);
        else if (dtype_is_contig(dt, r->count * p->nparts))
            st = proto_irecv((char *)r->buf + dt->true_lb + off, (MPI_Count)p->piece, byte,
                             r->peer, p->tagbase + s, r->comm, ctx, &p->subs[s]);
        else
            st = proto_irecv((char *)r->buf + (MPI_Aint)(off / (size_t)dt->size) * dt->extent,
                             (MPI_Count)(p->piece / (size_t)dt->size), dt, r->peer,
                             p->tagbase + s, r->comm, ctx, &p->subs[s]);
        if (st < 0) {
            p->subs[s] = NULL;
            p->fin[s] = 1;
            if (r->err >= 0)
                r->err = st;
        }
    }
}

/* Piece s has finished this cycle: placed (receiver) or sent. */
static int part_piece_finish(request_t *r, int s)
{
    struct part *p = r->part;
    if (p->fin[s])
        return 1;
    request_t *m = p->subs[s];
    if (!m || !m->done)
        return 0;
    if (m->err < 0 && r->err >= 0)
        r->err = m->err;
    if (p->staged) {
        size_t off = (size_t)s * p->piece;
        dtype_unpack(r->buf, r->count * p->nparts, r->dt, off, (char *)r->tmp + off, p->piece);
    }
    proto_request_release(m);
    p->subs[s] = NULL;
    p->fin[s] = 1;
    return 1;
}

/* Move the cycle on; 1 once it is complete. */
static int part_advance(request_t *r)
{
    struct part *p = r->part;
    if (r->done)
        return 1;
    if (!p->send) {
        if (!part_hello_take(r))
            return 0;
        if (p->scan == 0 && p->npieces > 0 && !p->subs[0] && !p->fin[0])
            part_post(r);
    }
    while (p->scan < p->npieces && part_piece_finish(r, p->scan))
        p->scan++;
    if (p->scan < p->npieces)
        return 0;
    r->status.MPI_SOURCE = r->peer;
    r->status.MPI_TAG = r->peer == MPI_PROC_NULL ? MPI_ANY_TAG : r->tag;
    if (!p->send && r->peer != MPI_PROC_NULL)
        r->recvd = r->err < 0 ? 0 : p->total;
    r->done = 1;
    return 1;
}

static int part_poll(void *arg)
{
    request_t *r = arg;
    if (!part_advance(r))
        return 0;
    r->part->polled = 0;
    proto_request_release(r);
    return 1;
}

rm_status_t proto_part_start(request_t *r)
{
    struct part *p = r->part;
    r->active = 1;
    r->done = 0;
    r->recvd = 0;
    r->cancelled = 0;
    r->err = p->failed;
    p->scan = 0;
    if (p->npieces > 0) {
        memset(p->fin, 0, (size_t)p->npieces);
        if (p->send)
            for (int s = 0; s < p->npieces; s++)
                atomic_store_explicit(&p->ready[s], 0, memory_order_relaxed);
    }
    /* a send to MPI_PROC_NULL completes with the marking of its last partition */
    if (part_advance(r) || r->peer == MPI_PROC_NULL)
        return RM_OK;
    if (!p->polled) {
        /* the poll's reference first: the progress thread this may start
         * runs the poll at once */
        p->polled = 1;
        r->refs++;
        rm_status_t st = proto_poll_add(part_poll, r);
        if (st < 0) {
            p->polled = 0;
            r->refs--;
            return st;
        }
    }
    return RM_OK;
}

int proto_part_count(const request_t *r)
{
    return r->part->nparts;
}

int proto_part_is_ready(const request_t *r, int q)
{
    return atomic_load_explicit(&r->part->ready[q], memory_order_relaxed) != 0;
}

rm_status_t proto_pready(request_t *r, int q)
{
    struct part *p = r->part;
    if (atomic_exchange_explicit(&p->ready[q], 1, memory_order_acq_rel))
        return RM_ERR_INVALID;
    if (r->peer == MPI_PROC_NULL) {
        p->fin[q] = 1;
        part_advance(r);
        return RM_OK;
    }
    rm_status_t st = proto_isend((const char *)r->buf + (MPI_Aint)q * r->count * r->dt->extent,
                                 r->count, r->dt, r->peer, p->tagbase + q, r->comm,
                                 CTX_PART_DATA | r->ctx, PROTO_STD, &p->subs[q]);
    if (st < 0) {
        p->subs[q] = NULL;
        p->fin[q] = 1;
        if (r->err >= 0)
            r->err = st;
    }
    return st;
}

int proto_parrived(request_t *r, int q)
{
    struct part *p = r->part;
    if (r->done)
        return 1;
    proto_progress();
    if (part_advance(r))
        return 1;
    if (p->npieces < 0)
        return 0;
    if (p->pbytes == 0 || p->npieces == 0)
        return 1;
    size_t lo = (size_t)q * p->pbytes, hi = lo + p->pbytes - 1;
    for (size_t s = lo / p->piece; s <= hi / p->piece; s++)
        if (!part_piece_finish(r, (int)s))
            return 0;
    return 1;
}
