/* Buffered sends: the message is packed into the user-attached buffer and
 * sent from there, so MPI_Bsend returns at once. Blocks are carved first-fit
 * out of the attached buffer; each costs MPI_BSEND_OVERHEAD bytes on top of
 * its data, as the standard's MPI_Pack_size + MPI_BSEND_OVERHEAD rule says. */
#include "proto/engine.h"
#include "util/log.h"

#include <stdlib.h>
#include <string.h>

typedef struct bsend_blk {
    struct bsend_blk *next; /* by address */
    size_t off, len;        /* within the attached buffer, overhead included */
    request_t *req;         /* the internal send from this block */
} bsend_blk_t;

static struct {
    char *buf;
    size_t size;
    bsend_blk_t *blocks;
} proto_bsend_state;

/* Release blocks whose sends have completed. */
static void proto_bsend_reap(void)
{
    bsend_blk_t **pp = &proto_bsend_state.blocks;
    while (*pp) {
        bsend_blk_t *b = *pp;
        if (b->req->done) {
            *pp = b->next;
            proto_request_release(b->req);
            free(b);
        } else {
            pp = &b->next;
        }
    }
}

static bsend_blk_t *proto_bsend_alloc(size_t need)
{
    size_t len = need + MPI_BSEND_OVERHEAD;
    size_t at = 0;
    bsend_blk_t **pp = &proto_bsend_state.blocks;
    for (;;) {
        size_t end = *pp ? (*pp)->off : proto_bsend_state.size;
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
    b->req = NULL;
    b->next = *pp;
    *pp = b;
    return b;
}

static void proto_bsend_unlink(bsend_blk_t *blk)
{
    for (bsend_blk_t **pp = &proto_bsend_state.blocks; *pp; pp = &(*pp)->next) {
        if (*pp == blk) {
            *pp = blk->next;
            free(blk);
            return;
        }
    }
}

rm_status_t proto_bsend_attach(void *buf, size_t size)
{
    if (proto_bsend_state.buf)
        return RM_ERR_INVALID; /* only one buffer at a time */
    proto_bsend_state.buf = buf;
    proto_bsend_state.size = size;
    return RM_OK;
}

rm_status_t proto_bsend_detach(void **buf, size_t *size)
{
    /* detach blocks until every buffered message has been transmitted */
    while (proto_bsend_state.blocks) {
        for (bsend_blk_t *b = proto_bsend_state.blocks; b; b = b->next) {
            if (!b->req->done) {
                proto_wait(b->req);
                break;
            }
        }
        proto_bsend_reap();
    }
    *buf = proto_bsend_state.buf;
    *size = proto_bsend_state.size;
    proto_bsend_state.buf = NULL;
    proto_bsend_state.size = 0;
    return RM_OK;
}

rm_status_t proto_bsend(const void *buf, MPI_Count count, dtype_t *dt, int dst, int tag,
                        comm_t *comm, request_t **out)
{
    size_t bytes = (size_t)count * (size_t)dt->size;
    proto_bsend_reap();
    if (dst == MPI_PROC_NULL) {
        *out = NULL;
        return RM_OK;
    }
    bsend_blk_t *b = proto_bsend_state.buf ? proto_bsend_alloc(bytes) : NULL;
    if (!b) {
        /* let pending sends drain once before declaring the buffer too small */
        proto_progress();
        proto_bsend_reap();
        b = proto_bsend_state.buf ? proto_bsend_alloc(bytes) : NULL;
        if (!b) {
            rm_log_debug("bsend: %zu bytes do not fit in the attached buffer of %zu bytes", bytes,
                         proto_bsend_state.size);
            return RM_ERR_NO_RESOURCE;
        }
    }
    char *data = proto_bsend_state.buf + b->off + MPI_BSEND_OVERHEAD;
    dtype_pack(buf, count, dt, 0, data, bytes);
    dtype_t *byte = dtype_get(MPI_BYTE);
    request_t *r;
    rm_status_t st = proto_isend(data, (MPI_Count)bytes, byte, dst, tag, comm, comm->ctx, PROTO_STD, &r);
    if (st < 0) {
        proto_request_release(r);
        proto_bsend_unlink(b);
        return st;
    }
    b->req = r;
    r->refs++; /* the block's reference; the caller gets its own */
    r->bsend_blk = b;
    *out = r;
    return RM_OK;
}
