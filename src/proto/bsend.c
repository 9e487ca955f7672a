/* Buffered sends: the message is packed into a buffered-send buffer and sent
 * from there, so MPI_Bsend returns at once. A buffer is an object of its own
 * (bsend_buf_t): the process has one slot (MPI_Buffer_attach), every
 * communicator one more (MPI_Comm_attach_buffer), and a send uses its
 * communicator's buffer if one is attached, else the process's.
 *
 * A user buffer is carved first-fit into blocks; each costs
 * MPI_BSEND_OVERHEAD bytes on top of its data, as the standard's
 * MPI_Pack_size + MPI_BSEND_OVERHEAD rule says. An automatic buffer
 * (MPI_BUFFER_AUTOMATIC) allocates every block on its own and never runs
 * out short of memory.
 *
 * A buffer detached while messages from it are in flight is flushed first; a
 * communicator freed with its buffer attached leaves the buffer behind,
 * unattached, until its last message is out (reaped by later buffered sends,
 * flushed at MPI_Finalize, which runs proto_bsend_finalize again once the
 * communicators are gone to free what they left). */
#include "proto/engine.h"
#include "util/log.h"

#include <stdlib.h>
#include <string.h>

typedef struct bsend_blk {
    struct bsend_blk *next; /* by address in a user buffer */
    size_t off, len;        /* within a user buffer, overhead included */
    char *data;             /* the packed message */
    request_t *req;         /* the internal send from this block */
} bsend_blk_t;

struct bsend_buf {
    char *buf; /* an automatic buffer's: the token it was attached with */
    size_t size;
    int automatic;
    int attached; /* 0: left behind by a freed communicator */
    bsend_blk_t *blocks;
    struct bsend_buf *next; /* every buffer that exists (bsend_all) */
};

static bsend_buf_t *bsend_proc; /* MPI_Buffer_attach's */
static bsend_buf_t *bsend_all;

/* The buffer a buffered send on comm uses: the communicator's, its
 * session's, the process's. */
static bsend_buf_t *bsend_pick(const comm_t *comm)
{
    if (comm->bsend)
        return comm->bsend;
    if (comm->bshare && comm->bshare->buf)
        return comm->bshare->buf;
    return bsend_proc;
}

/* Release blocks whose sends have completed. */
static void bsend_reap(bsend_buf_t *b)
{
    bsend_blk_t **pp = &b->blocks;
    while (*pp) {
        bsend_blk_t *k = *pp;
        if (k->req->done) {
            *pp = k->next;
            proto_request_release(k->req);
            free(k);
        } else {
            pp = &k->next;
        }
    }
}

static void bsend_unlist(bsend_buf_t *b)
{
    for (bsend_buf_t **pp = &bsend_all; *pp; pp = &(*pp)->next) {
        if (*pp == b) {
            *pp = b->next;
            return;
        }
    }
}

/* Reap every buffer; free those left behind once empty. */
static void bsend_reap_all(void)
{
    bsend_buf_t *b = bsend_all;
    while (b) {
        bsend_buf_t *next = b->next;
        bsend_reap(b);
        if (!b->attached && !b->blocks) {
            bsend_unlist(b);
            free(b);
        }
        b = next;
    }
}

static bsend_blk_t *bsend_alloc(bsend_buf_t *buf, size_t need)
{
    size_t len = need + MPI_BSEND_OVERHEAD;
    if (buf->automatic) {
        bsend_blk_t *b = malloc(sizeof *b + need);
        if (!b)
            return NULL;
        b->off = 0;
        b->len = len;
        b->data = (char *)(b + 1);
        b->req = NULL;
        b->next = buf->blocks;
        buf->blocks = b;
        return b;
    }
    size_t at = 0;
    bsend_blk_t **pp = &buf->blocks;
    for (;;) {
        size_t end = *pp ? (*pp)->off : buf->size;
        if (end >= at && end - at >= len)
            break;
        if (!*pp)
            return NULL;
        at = (*pp)->off + (*pp)->len;
        pp = &(*pp)->next;
    }
    bsend_blk_t *b = malloc(sizeof *b);
    if (!b)
        return NULL;
    b->off = at;
    b->len = len;
    b->data = buf->buf + at + MPI_BSEND_OVERHEAD;
    b->req = NULL;
    b->next = *pp;
    *pp = b;
    return b;
}

static void bsend_unlink(bsend_buf_t *buf, bsend_blk_t *blk)
{
    for (bsend_blk_t **pp = &buf->blocks; *pp; pp = &(*pp)->next) {
        if (*pp == blk) {
            *pp = blk->next;
            free(blk);
            return;
        }
    }
}

/* Wait until every message from b has been sent. */
static rm_status_t bsend_flush(bsend_buf_t *b)
{
    while (b->blocks) {
        for (bsend_blk_t *k = b->blocks; k; k = k->next) {
            if (!k->req->done) {
                proto_wait(k->req);
                break;
            }
        }
        bsend_reap(b);
    }
    return RM_OK;
}

bsend_buf_t **proto_bsend_proc_slot(void)
{
    return &bsend_proc;
}

rm_status_t proto_bsend_attach(bsend_buf_t **slot, void *buf, size_t size, int automatic)
{
    if (*slot)
        return RM_ERR_INVALID; /* one buffer per slot */
    bsend_buf_t *b = calloc(1, sizeof *b);
    if (!b)
        return RM_ERR_NOMEM;
    b->automatic = automatic;
    b->buf = buf;
    b->size = automatic ? 0 : size;
    b->attached = 1;
    b->next = bsend_all;
    bsend_all = b;
    *slot = b;
    return RM_OK;
}

rm_status_t proto_bsend_detach(bsend_buf_t **slot, void **buf, size_t *size, int *automatic)
{
    bsend_buf_t *b = *slot;
    if (!b)
        return RM_ERR_INVALID;
    bsend_flush(b);
    *buf = b->buf;
    *size = b->size;
    *automatic = b->automatic;
    *slot = NULL;
    bsend_unlist(b);
    free(b);
    return RM_OK;
}

void proto_bsend_orphan(bsend_buf_t **slot)
{
    bsend_buf_t *b = *slot;
    if (!b)
        return;
    *slot = NULL;
    /* freed by the next reap once empty: not here, as this runs when a send's
     * last reference goes, inside a reap of this very buffer */
    b->attached = 0;
}

bsend_share_t *proto_bsend_share_new(void)
{
    bsend_share_t *s = calloc(1, sizeof *s);
    if (s)
        s->refs = 1;
    return s;
}

bsend_share_t *proto_bsend_share_hold(bsend_share_t *s)
{
    if (s)
        s->refs++;
    return s;
}

void proto_bsend_share_drop(bsend_share_t *s)
{
    if (!s || --s->refs > 0)
        return;
    proto_bsend_orphan(&s->buf);
    free(s);
}

rm_status_t proto_bsend_flush(bsend_buf_t *b)
{
    return b ? bsend_flush(b) : RM_OK;
}

/* MPI_Buffer_iflush and friends: the messages in flight when the call was
 * made, each held by a reference, and the request that completes with the
 * last of them. The progress pass that watches them owns this state. */
typedef struct bsend_iflush {
    request_t *req;
    int n;
    request_t *sends[];
} bsend_iflush_t;

static int bsend_iflush_poll(void *arg)
{
    bsend_iflush_t *f = arg;
    for (int i = 0; i < f->n; i++)
        if (!f->sends[i]->done)
            return 0;
    for (int i = 0; i < f->n; i++)
        proto_request_release(f->sends[i]);
    proto_request_complete(f->req); /* drops the watcher's reference */
    free(f);
    return 1;
}

rm_status_t proto_bsend_iflush(bsend_buf_t *b, request_t **out)
{
    *out = NULL;
    int n = 0;
    if (b) {
        bsend_reap(b);
        for (bsend_blk_t *k = b->blocks; k; k = k->next)
            n++;
    }
    bsend_iflush_t *f = malloc(sizeof *f + (size_t)n * sizeof f->sends[0]);
    request_t *r = f ? proto_request_alloc(REQ_GREQ) : NULL;
    if (!r) {
        free(f);
        return RM_ERR_NOMEM;
    }
    f->req = r;
    f->n = 0;
    if (b) {
        for (bsend_blk_t *k = b->blocks; k; k = k->next) {
            k->req->refs++;
            f->sends[f->n++] = k->req;
        }
    }
    r->refs++; /* the watcher's */
    if (!bsend_iflush_poll(f) && proto_poll_add(bsend_iflush_poll, f) < 0)
        while (!bsend_iflush_poll(f))
            proto_progress();
    *out = r;
    return RM_OK;
}

void proto_bsend_finalize(void)
{
    if (bsend_proc) {
        void *buf;
        size_t size;
        int automatic;
        proto_bsend_detach(&bsend_proc, &buf, &size, &automatic);
    }
    for (bsend_buf_t *b = bsend_all; b; b = b->next)
        bsend_flush(b); /* may orphan buffers, which leaves the list as it is */
    bsend_reap_all();
}

rm_status_t proto_bsend(const void *buf, MPI_Count count, dtype_t *dt, int dst, int tag,
                        comm_t *comm, request_t **out)
{
    size_t bytes = (size_t)count * (size_t)dt->size;
    bsend_reap_all();
    if (dst == MPI_PROC_NULL) {
        *out = NULL;
        return RM_OK;
    }
    bsend_buf_t *bb = bsend_pick(comm);
    bsend_blk_t *b = bb ? bsend_alloc(bb, bytes) : NULL;
    if (!b) {
        if (bb && bb->automatic)
            return RM_ERR_NOMEM;
        /* let pending sends drain once before declaring the buffer too small */
        proto_progress();
        if (bb)
            bsend_reap(bb);
        b = bb ? bsend_alloc(bb, bytes) : NULL;
        if (!b) {
            rm_log_debug("bsend: %zu bytes do not fit in the attached buffer of %zu bytes", bytes,
                         bb ? bb->size : 0);
            return RM_ERR_NO_RESOURCE;
        }
    }
    dtype_pack(buf, count, dt, 0, b->data, bytes);
    dtype_t *byte = dtype_get(MPI_BYTE);
    request_t *r;
    rm_status_t st = proto_isend(b->data, (MPI_Count)bytes, byte, dst, tag, comm, comm->ctx,
                                 PROTO_STD, &r);
    if (st < 0) {
        proto_request_release(r);
        bsend_unlink(bb, b);
        return st;
    }
    b->req = r;
    r->refs++; /* the block's reference; the caller gets its own */
    r->bsend_blk = b;
    *out = r;
    return RM_OK;
}
