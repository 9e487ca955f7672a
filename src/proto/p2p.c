/* Eager and rendezvous protocols over the per-peer channel.
 *
 * Eager: the envelope and the whole message travel in one frame; the
 * receiver copies into the posted buffer or keeps it as unexpected.
 * Rendezvous: an RTS carries the envelope and, when the sender's data is
 * contiguous and single copy is allowed, its address; on a match the
 * receiver reads it straight into the user buffer (process_vm_readv) and
 * answers FIN. Otherwise the receiver answers CTS and the sender streams
 * DATA chunks that are placed by offset; over network rails the first
 * bytes (the window) go right behind the RTS as RDATA, without waiting for
 * the CTS (proto/flow.c). What is sent ahead of the receive costs credit
 * with the receiver (flow.c); without credit a message goes by rendezvous. */
#include "proto/engine.h"
#include "util/copy.h"
#include "util/log.h"

#include <stdlib.h>
#include <string.h>

proto_engine_t proto_eng;


static inline rail_channel_t *proto_channel(int world)
{
    return proto_chan(world);
}

/* A control frame with no payload. */
static rm_status_t proto_ctl_send(int world, int type, uint64_t id, uint64_t aux)
{
    proto_hdr_t h;
    proto_hdr_make(&h, type, 0, 0, 0, 0, aux, id);
    rm_status_t st = rail_channel_send(proto_channel(world), &h, sizeof h, NULL, 0, 0, NULL, NULL);
    return st == RM_INPROGRESS ? RM_OK : st;
}

/* ---- placing data into a receive buffer ------------------------------- */

static inline size_t proto_recv_capacity(const request_t *r)
{
    return (size_t)r->count * (size_t)r->dt->size;
}

static void proto_place(request_t *r, size_t off, const void *data, size_t len)
{
    size_t cap = proto_recv_capacity(r);
    if (off >= cap || !len)
        return; /* an empty message's data may be NULL */
    if (len > cap - off)
        len = cap - off;
    if (dtype_is_contig(r->dt, r->count)) {
        char *dst = (char *)r->buf + r->dt->true_lb + off;
        if (dst != data) /* else the transport received it in place */
            rm_copy_small(dst, data, len);
    } else {
        dtype_unpack(r->buf, r->count, r->dt, off, data, len);
    }
}

/* Zero-copy receive (rail_place_fn): a rendezvous chunk may land straight in
 * the receive buffer when that buffer is contiguous and holds the whole chunk
 * and the receive is still live. Everything else is staged by the transport
 * and placed by proto_place as before: a noncontiguous buffer (unpacked), a
 * chunk reaching past a short buffer (truncated), a chunk for a receive that
 * completed or an id that is no longer live (dropped). The rail layer
 * places a chunk through one path at a time (a copy resent meanwhile is
 * dropped, rail_channel_place), and the receive completes only when the
 * chunk has been handed up, so nothing writes into a completed receive. */
void *proto_data_locate(rail_channel_t *ch, const void *upper, size_t len)
{
    proto_hdr_t h;
    memcpy(&h, upper, sizeof h);
    if (h.type == PF_RDATA)
        return proto_early_locate(rail_channel_peer(ch), &h, len);
    if (h.type == PF_AMDATA)
        return proto_am_data_locate(ch, upper, len);
    if (h.type != PF_DATA)
        return NULL;
    request_t *r = proto_request_by_id(h.id);
    if (!r || r->done || r->kind != REQ_RECV || r->world_peer != rail_channel_peer(ch) ||
        !dtype_is_contig(r->dt, r->count))
        return NULL;
    size_t cap = proto_recv_capacity(r);
    if (h.size > cap || len > cap - (size_t)h.size)
        return NULL;
    return (char *)r->buf + r->dt->true_lb + (size_t)h.size;
}

static void proto_recv_finish(request_t *r, size_t msg_bytes)
{
    size_t cap = proto_recv_capacity(r);
    r->recvd = msg_bytes < cap ? msg_bytes : cap;
    if (msg_bytes > cap)
        r->err = RM_ERR_TRUNCATE;
    proto_request_complete(r);
}

/* A pipelined rendezvous receive has all of its bytes. Its sender completes
 * on the ack of the last chunk, and the receiving rank's next moves (reading
 * the data, the next receive) would hold a piggybacked ack back: it goes
 * out at once. */
void proto_recv_done(request_t *r)
{
    proto_recv_finish(r, r->bytes);
    rail_channel_ack_soon(proto_channel(r->world_peer));
}

/* ---- rendezvous, receiver side ---------------------------------------- */

static rm_status_t proto_cma_read(request_t *r, rail_path_t *p, uint64_t addr, size_t n)
{
    if (dtype_is_contig(r->dt, r->count))
        return p->ops->read_remote(p->np, (char *)r->buf + r->dt->true_lb, addr, n);
    size_t blen = n < (size_t)256 << 10 ? n : (size_t)256 << 10;
    void *bounce = malloc(blen);
    if (!bounce)
        return RM_ERR_NOMEM;
    rm_status_t st = RM_OK;
    for (size_t off = 0; off < n && st == RM_OK; off += blen) {
        size_t len = n - off < blen ? n - off : blen;
        st = p->ops->read_remote(p->np, bounce, addr + off, len);
        if (st == RM_OK)
            dtype_unpack(r->buf, r->count, r->dt, off, bounce, len);
    }
    free(bounce);
    return st;
}

static void proto_rndv_matched(request_t *r, int world_src, uint64_t sid, size_t size, uint64_t addr,
                               size_t win, int rdma)
{
    r->bytes = size;
    r->world_peer = world_src;
    r->matched = 1;
    r->peer_id = sid;
    if (rdma && proto_rdma_accept(r, size))
        return; /* the sender writes it (proto/rdma.c) */
    rail_channel_t *ch = proto_channel(world_src);
    rail_path_t *lp = addr && proto_eng.cma ? rail_channel_local_path(ch) : NULL;
    if (lp && lp->ops->read_remote) {
        size_t cap = proto_recv_capacity(r);
        rm_status_t st = proto_cma_read(r, lp, addr, size < cap ? size : cap);
        if (st == RM_OK || st != RM_ERR_UNSUPPORTED) {
            if (st != RM_OK) {
                rm_log_error("single-copy read of %zu bytes from rank %d failed: %s", size,
                             world_src, rm_status_str(st));
                r->err = st;
            }
            proto_ctl_send(world_src, PF_FIN, sid, 0);
            proto_recv_finish(r, size);
            return;
        }
        if (proto_eng.cma_required)
            rm_log_error("RAILMPI_SHM_CMA=on but process_vm_readv is refused; using pipelined copies");
        else
            rm_log_info("single copy refused by the kernel; using pipelined copies");
        proto_eng.cma = 0;
    }
    r->done_bytes = 0;
    if (win && proto_early_attach(world_src, sid, win, r) >= size)
        return; /* the window was the whole message, and it is here */
    if (win >= size)
        return; /* the window is the whole message: no CTS, it completes the receive */
    rm_status_t st = proto_ctl_send(world_src, PF_CTS, sid, r->id);
    if (st < 0) {
        r->err = st;
        proto_request_complete(r);
    }
}

/* Deliver a matched unexpected message into a receive request. */
static void proto_recv_matched(request_t *r, unexp_t *u)
{
    r->status.MPI_SOURCE = u->src;
    r->status.MPI_TAG = u->tag;
    if (u->type == PF_EAGER) {
        proto_place(r, 0, u->data, u->size);
        if (u->flags & PFF_SYNC)
            proto_ctl_send(u->world_src, PF_SYNC_ACK, u->sid, 0);
        proto_credit_consumed(u->world_src, proto_credit_cost(u->size));
        proto_recv_finish(r, u->size);
    } else {
        proto_rndv_matched(r, u->world_src, u->sid, u->size, u->addr, u->win, u->flags & PFF_RDMA);
    }
    match_unexp_free(u);
}

/* ---- incoming frames -------------------------------------------------- */

static void proto_unexp_add(rail_channel_t *ch, const proto_hdr_t *h, const void *payload,
                            size_t len)
{
    unexp_t *u = match_unexp_new(h->type == PF_EAGER ? len : 0);
    if (!u)
        goto nomem;
    u->ctx = h->ctx;
    u->src = h->src;
    u->tag = h->tag;
    u->type = h->type;
    u->flags = h->flags;
    u->world_src = rail_channel_peer(ch);
    u->size = (size_t)h->size;
    u->sid = h->id;
    u->addr = 0;
    u->win = 0;
    if (h->type == PF_EAGER) {
        if (len)
            memcpy(u->data, payload, len);
    } else {
        proto_rts_t rts;
        memcpy(&rts, payload, sizeof rts);
        u->addr = rts.addr;
        u->win = (size_t)rts.win;
    }
    if (match_add_unexp(&proto_eng.mq, u) == RM_OK)
        return;
    match_unexp_free(u);
nomem:
    rm_log_error("out of memory queueing an unexpected message from rank %d; aborting", rail_channel_peer(ch));
    abort();
}

void proto_deliver(rail_channel_t *ch, const void *upper, const void *payload, size_t len)
{
    proto_hdr_t h;
    memcpy(&h, upper, sizeof h);
    request_t *r;
    switch (h.type) {
    case PF_EAGER:
        r = match_take_posted(&proto_eng.mq, h.ctx, h.src, h.tag);
        if (!r) {
            proto_unexp_add(ch, &h, payload, len);
            return;
        }
        r->status.MPI_SOURCE = h.src;
        r->status.MPI_TAG = h.tag;
        proto_place(r, 0, payload, len);
        if (h.flags & PFF_SYNC)
            proto_ctl_send(rail_channel_peer(ch), PF_SYNC_ACK, h.id, 0);
        proto_credit_consumed(rail_channel_peer(ch), proto_credit_cost(len));
        proto_recv_finish(r, len);
        return;
    case PF_RTS:
        r = match_take_posted(&proto_eng.mq, h.ctx, h.src, h.tag);
        if (!r) {
            proto_unexp_add(ch, &h, payload, len);
            return;
        }
        r->status.MPI_SOURCE = h.src;
        r->status.MPI_TAG = h.tag;
        {
            proto_rts_t rts;
            memcpy(&rts, payload, sizeof rts);
            proto_rndv_matched(r, rail_channel_peer(ch), h.id, (size_t)h.size, rts.addr,
                               (size_t)rts.win, h.flags & PFF_RDMA);
        }
        return;
    case PF_CTS:
        if ((r = proto_request_by_id(h.id))) {
            r->peer_id = h.size;
            proto_rndv_stream(r);
        }
        return;
    case PF_DATA:
        if ((r = proto_request_by_id(h.id)) && !r->done) {
            proto_place(r, (size_t)h.size, payload, len);
            r->done_bytes += len;
            if (r->done_bytes >= r->bytes)
                proto_recv_done(r);
        }
        return;
    case PF_RDATA:
        proto_early_deliver(rail_channel_peer(ch), &h, payload, len);
        return;
    case PF_RTR:
        if ((r = proto_request_by_id(h.id)) && !r->done && r->kind == REQ_SEND) {
            r->peer_id = h.size;
            proto_rdma_rtr(r, payload, len);
        }
        return;
    case PF_WDONE:
        proto_rdma_wdone_recv(ch, &h, payload, len);
        return;
    case PF_CREDIT:
        proto_credit_granted(rail_channel_peer(ch), h.id);
        return;
    case PF_FIN:
    case PF_SYNC_ACK:
        if ((r = proto_request_by_id(h.id)) && !r->done)
            proto_request_complete(r);
        return;
    case PF_CANCEL_REQ:
        proto_cancel_req_recv(ch, &h);
        return;
    case PF_CANCEL_ACK:
        proto_cancel_ack_recv(&h);
        return;
    case PF_AM:
        proto_am_recv(ch, payload, len);
        return;
    case PF_REVOKE:
        proto_ft_revoke_recv(ch, &h);
        return;
    case PF_AGREE_Q:
        proto_ft_agree_query_recv(ch, &h);
        return;
    case PF_AGREE_R:
        proto_ft_agree_answer_recv(ch, &h, payload, len);
        return;
    case PF_DEAD:
        proto_ft_detect_heard(ch, &h);
        return;
    case PF_AMDATA:
        proto_am_data_recv(ch, &h, payload, len);
        return;
    default:
        rm_log_error("dropping a frame of unknown type %d from rank %d", h.type, rail_channel_peer(ch));
    }
}

/* ---- sending ---------------------------------------------------------- */

static void proto_eager_sent(void *arg, rm_status_t st)
{
    request_t *r = arg;
    if (st < 0)
        r->err = st;
    if (r->mode != PROTO_SYNC || st < 0)
        proto_request_complete(r);
}

/* Prepare the contiguous bytes a send transmits (packing if needed). */
static rm_status_t proto_send_data(request_t *r)
{
    if (dtype_is_contig(r->dt, r->count)) {
        r->sdata = (const char *)r->buf + r->dt->true_lb;
        return RM_OK;
    }
    if (r->bytes && !r->tmp) {
        if (!(r->tmp = malloc(r->bytes)))
            return RM_ERR_NOMEM;
    }
    dtype_pack(r->buf, r->count, r->dt, 0, r->tmp, r->bytes);
    r->sdata = r->tmp;
    return RM_OK;
}

/* WDONE, once what the sender gave up on is fenced (proto/rdma.c): the
 * registrations go (with the completion), then the sender may let go of
 * its buffer. PFF_COPY: no rail could write it all; the sender streams it
 * as DATA chunks once told (CTS). */
void proto_rdma_wdone_finish(rail_channel_t *ch, uint64_t rid, int flags)
{
    request_t *r = proto_request_by_id(rid);
    if (!r || r->done || r->kind != REQ_RECV || !r->rdma)
        return;
    uint64_t sid = r->peer_id;
    if (flags & PFF_COPY) {
        proto_ctl_send(rail_channel_peer(ch), PF_CTS, sid, r->id);
        return;
    }
    proto_recv_finish(r, r->bytes);
    proto_ctl_send(rail_channel_peer(ch), PF_FIN, sid, 0);
    rail_channel_ack_soon(ch);
}

static rm_status_t proto_send_start(request_t *r)
{
    r->done = 0;
    r->err = RM_OK;
    r->cancelled = 0;
    if (r->peer == MPI_PROC_NULL) {
        proto_request_complete(r);
        return RM_OK;
    }
    r->bytes = (size_t)r->count * (size_t)r->dt->size;
    r->world_peer = comm_peer_world(r->comm, r->peer);
    rm_status_t st = proto_send_data(r);
    if (st < 0)
        return st;
    rail_channel_t *ch = proto_channel(r->world_peer);
    proto_hdr_t h;
    if (r->bytes <= proto_eng.eager_max &&
        proto_credit_take(r->world_peer, proto_credit_cost(r->bytes))) {
        proto_hdr_make(&h, PF_EAGER, r->mode == PROTO_SYNC ? PFF_SYNC : 0, r->comm->rank, r->tag,
                       r->ctx, r->bytes, r->id);
        /* over a channel that keeps frames for retransmission an eager
         * message is copied and complete at once, not held until acked */
        st = rail_channel_send(ch, &h, sizeof h, r->sdata, r->bytes, 0,
                               rail_channel_keeps(ch) ? NULL : proto_eager_sent, r);
        if (st == RM_OK && r->mode != PROTO_SYNC)
            proto_request_complete(r);
        return st < 0 ? st : RM_OK;
    }
    proto_rts_t rts = {0};
    if (proto_eng.cma && rail_channel_local_path(ch))
        rts.addr = (uint64_t)(uintptr_t)r->sdata;
    /* written into the receive buffer where the rails can (proto/rdma.c):
     * no window then, the receiver answers RTR (or CTS: copies) */
    int rdma = !r->rdma && proto_rdma_offer(r, ch);
    rts.win = rdma ? 0 : proto_rndv_window(r, ch);
    r->done_bytes = rts.win;
    proto_hdr_make(&h, PF_RTS, rdma ? PFF_RDMA : 0, r->comm->rank, r->tag, r->ctx, r->bytes, r->id);
    st = rail_channel_send(ch, &h, sizeof h, &rts, sizeof rts, 0, NULL, NULL);
    if (st >= 0 && rts.win)
        proto_rndv_range(r, PF_RDATA, 0, rts.win,
                         rts.win == r->bytes ? proto_rndv_copy_at(r, ch) : rts.win);
    return st < 0 ? st : RM_OK;
}

static rm_status_t proto_recv_start(request_t *r)
{
    r->done = 0;
    r->err = RM_OK;
    r->cancelled = 0;
    r->recvd = 0;
    r->matched = 0;
    if (r->peer == MPI_PROC_NULL) {
        r->status.MPI_SOURCE = MPI_PROC_NULL;
        r->status.MPI_TAG = MPI_ANY_TAG;
        proto_request_complete(r);
        return RM_OK;
    }
    unexp_t *u = match_find_unexp(&proto_eng.mq, r->ctx, r->peer, r->tag, 1);
    if (u) {
        proto_recv_matched(r, u);
        return RM_OK;
    }
    if (r->peer != MPI_ANY_SOURCE) {
        rail_channel_t *ch = proto_channel(comm_peer_world(r->comm, r->peer));
        if (rail_channel_failure(ch))
            return rail_channel_failure(ch); /* that peer can no longer be reached */
    }
    return match_post(&proto_eng.mq, r);
}

/* ---- a peer lost for good --------------------------------------------- */

static int proto_comm_has(comm_t *c, int world)
{
    for (int i = 0; i < comm_peer_size(c); i++)
        if (comm_peer_world(c, i) == world)
            return 1;
    return 0;
}

static void proto_fail_one(request_t *r, void *arg)
{
    const rail_channel_t *ch = arg;
    if (r->done || !r->active || (r->kind != REQ_SEND && r->kind != REQ_RECV && r->kind != REQ_RMA))
        return;
    int involved;
    if (r->kind == REQ_SEND || r->kind == REQ_RMA || r->matched)
        involved = r->world_peer == rail_channel_peer(ch);
    else if (r->peer == MPI_ANY_SOURCE)
        involved = proto_comm_has(r->comm, rail_channel_peer(ch)); /* it may be waiting for that peer */
    else
        involved = r->peer != MPI_PROC_NULL && comm_peer_world(r->comm, r->peer) == rail_channel_peer(ch);
    if (!involved)
        return;
    if (r->kind == REQ_RECV && !r->matched && r->peer == MPI_ANY_SOURCE &&
        rail_channel_failure(ch) == RM_ERR_PROC_FAILED)
        return; /* stays posted: its waits report the failure until acknowledged (ft.c) */
    if (r->cancel_pending) {
        proto_cancel_settle(r, 0, rail_channel_failure(ch));
        return;
    }
    if (r->kind == REQ_RECV && !r->matched && !match_remove_posted(&proto_eng.mq, r))
        return;
    r->err = rail_channel_failure(ch);
    proto_request_complete(r);
}

/* The channel to a peer failed for good: every operation waiting on it
 * completes with the error, which the bindings raise through the
 * communicator's error handler. */
void proto_peer_failed(rail_channel_t *ch, rm_status_t why)
{
    (void)why;
    proto_request_foreach(proto_fail_one, ch);
    proto_early_drop_all(rail_channel_peer(ch));
}

rm_status_t proto_start(request_t *r)
{
    if (r->kind == REQ_PSEND || r->kind == REQ_PRECV)
        return proto_part_start(r);
    if (r->kind == REQ_SEND && r->mode == PROTO_BUFFERED) {
        /* a buffered send completes as soon as the data is copied; it keeps
         * the internal send, which MPI_Cancel withdraws */
        request_t *inner = NULL;
        rm_status_t st = proto_bsend(r->buf, r->count, r->dt, r->peer, r->tag, r->comm, &inner);
        if (r->inner)
            proto_request_release(r->inner);
        r->inner = st >= 0 ? inner : NULL;
        r->world_peer = r->inner ? r->inner->world_peer : -1;
        r->cancelled = 0;
        r->refs++;
        r->active = 1;
        r->err = st < 0 ? st : RM_OK;
        proto_request_complete(r);
        return st;
    }
    r->refs++; /* in flight */
    r->active = 1;
    rm_status_t st = r->kind == REQ_SEND ? proto_send_start(r) : proto_recv_start(r);
    if (st < 0) {
        r->err = st;
        if (!r->done)
            proto_request_complete(r);
    }
    return st;
}

/* The eager path of a nonblocking standard or ready send, without the
 * general start: the frame goes to the channel at once and the request is
 * complete unless the channel still references the data (it then completes
 * from proto_eager_sent, like proto_send_start's). */
static rm_status_t proto_isend_eager(request_t *r, size_t bytes)
{
    rail_channel_t *ch = proto_channel(r->world_peer);
    proto_hdr_t h;
    proto_hdr_make(&h, PF_EAGER, 0, r->comm->rank, r->tag, r->ctx, bytes, r->id);
    r->bytes = bytes;
    r->sdata = (const char *)r->buf + r->dt->true_lb;
    r->active = 1;
    r->refs++; /* in flight */
    rm_status_t st = rail_channel_send(ch, &h, sizeof h, r->sdata, bytes, 0,
                                       rail_channel_keeps(ch) ? NULL : proto_eager_sent, r);
    if (st == RM_INPROGRESS)
        return RM_OK;
    if (st < 0)
        r->err = st;
    r->done = 1;
    r->refs--;
    return st < 0 ? st : RM_OK;
}

rm_status_t proto_isend(const void *buf, MPI_Count count, dtype_t *dt, int dst, int tag,
                        comm_t *comm, uint32_t ctx, int mode, request_t **out)
{
    *out = NULL;
    request_t *r = proto_request_alloc(REQ_SEND);
    if (!r)
        return RM_ERR_NOMEM;
    proto_request_setup(r, (void *)buf, count, dt, dst, tag, comm, ctx);
    r->mode = (uint8_t)mode;
    *out = r;
    size_t bytes = (size_t)count * (size_t)dt->size;
    if ((mode == PROTO_STD || mode == PROTO_READY) && dst != MPI_PROC_NULL &&
        bytes <= proto_eng.eager_max && dtype_is_contig(dt, count)) {
        /* without credit the message goes by rendezvous (proto_start) */
        int world = comm_peer_world(comm, dst);
        if (proto_credit_take(world, proto_credit_cost(bytes))) {
            r->world_peer = world;
            return proto_isend_eager(r, bytes);
        }
    }
    return proto_start(r);
}

rm_status_t proto_irecv(void *buf, MPI_Count count, dtype_t *dt, int src, int tag, comm_t *comm,
                        uint32_t ctx, request_t **out)
{
    *out = NULL;
    request_t *r = proto_request_alloc(REQ_RECV);
    if (!r)
        return RM_ERR_NOMEM;
    proto_request_setup(r, buf, count, dt, src, tag, comm, ctx);
    *out = r;
    /* the common case without proto_start: nothing unexpected waits, so the
     * receive is posted (a fresh request needs none of its resets) */
    if (src >= 0 && proto_eng.mq.nunexp == 0) {
        rail_channel_t *ch = proto_channel(comm_peer_world(comm, src));
        if (!rail_channel_failure(ch)) {
            r->refs++; /* in flight */
            r->active = 1;
            rm_status_t st = match_post(&proto_eng.mq, r);
            if (st < 0) {
                r->err = st;
                proto_request_complete(r);
            }
            return st;
        }
    }
    return proto_start(r);
}

rm_status_t proto_send_init(const void *buf, MPI_Count count, dtype_t *dt, int dst, int tag,
                            comm_t *comm, int mode, request_t **out)
{
    request_t *r = proto_request_alloc(REQ_SEND);
    if (!r)
        return RM_ERR_NOMEM;
    proto_request_setup(r, (void *)buf, count, dt, dst, tag, comm, comm->ctx);
    r->mode = (uint8_t)mode;
    r->persistent = 1;
    r->done = 1; /* an inactive persistent request counts as complete */
    *out = r;
    return RM_OK;
}

rm_status_t proto_recv_init(void *buf, MPI_Count count, dtype_t *dt, int src, int tag,
                            comm_t *comm, request_t **out)
{
    request_t *r = proto_request_alloc(REQ_RECV);
    if (!r)
        return RM_ERR_NOMEM;
    proto_request_setup(r, buf, count, dt, src, tag, comm, comm->ctx);
    r->persistent = 1;
    r->done = 1;
    *out = r;
    return RM_OK;
}

rm_status_t proto_send(const void *buf, MPI_Count count, dtype_t *dt, int dst, int tag,
                       comm_t *comm, uint32_t ctx, int mode)
{
    if (dst == MPI_PROC_NULL)
        return RM_OK;
    size_t bytes = (size_t)count * (size_t)dt->size;
    if (mode != PROTO_SYNC && bytes <= proto_eng.eager_max && dtype_is_contig(dt, count)) {
        int world = comm_peer_world(comm, dst);
        if (proto_credit_take(world, proto_credit_cost(bytes))) {
            proto_hdr_t h;
            proto_hdr_make(&h, PF_EAGER, 0, comm->rank, tag, ctx, bytes, 0);
            /* no callback: if the frame must wait, the channel keeps a copy */
            rm_status_t st = rail_channel_send(proto_channel(world), &h, sizeof h,
                                               (const char *)buf + dt->true_lb, bytes, 0, NULL, NULL);
            return st < 0 ? st : RM_OK;
        }
    }
    if (bytes > proto_eng.eager_max)
        proto_credit_await(comm_peer_world(comm, dst), bytes);
    request_t *r;
    rm_status_t st = proto_isend(buf, count, dt, dst, tag, comm, ctx, mode, &r);
    if (!r)
        return st;
    if (st >= 0)
        st = proto_wait(r);
    if (st >= 0 && r->err < 0)
        st = r->err;
    proto_request_release(r);
    return st;
}

rm_status_t proto_recv(void *buf, MPI_Count count, dtype_t *dt, int src, int tag, comm_t *comm,
                       uint32_t ctx, MPI_Status *status)
{
    request_t *r;
    rm_status_t st = proto_irecv(buf, count, dt, src, tag, comm, ctx, &r);
    if (!r)
        return st;
    if (st >= 0)
        st = proto_wait_ft(r);
    if (st == RM_ERR_PROC_FAILED_PENDING) {
        /* a blocking wildcard receive whose potential sender died ends
         * with the failure (ULFM); one matched meanwhile goes on */
        if (match_remove_posted(&proto_eng.mq, r)) {
            proto_request_complete(r);
            proto_request_release(r);
            return RM_ERR_PROC_FAILED;
        }
        st = proto_wait(r);
    }
    if (st >= 0)
        st = r->err;
    proto_status_fill(status, r);
    proto_request_release(r);
    return st;
}

rm_status_t proto_iprobe(int src, int tag, comm_t *comm, uint32_t ctx, int *flag,
                         MPI_Status *status, request_t **msg)
{
    if (src == MPI_PROC_NULL) {
        *flag = 1;
        if (status && status != MPI_STATUS_IGNORE) {
            status->MPI_SOURCE = MPI_PROC_NULL;
            status->MPI_TAG = MPI_ANY_TAG;
            status->count_lo = 0;
            status->count_hi_and_cancelled = 0;
        }
        if (msg)
            *msg = NULL;
        return RM_OK;
    }
    unexp_t *u = match_find_unexp(&proto_eng.mq, ctx, src, tag, msg != NULL);
    *flag = u != NULL;
    if (!u)
        return RM_OK;
    if (status && status != MPI_STATUS_IGNORE) {
        status->MPI_SOURCE = u->src;
        status->MPI_TAG = u->tag;
        status->count_lo = (int)(uint32_t)u->size;
        status->count_hi_and_cancelled = (int)(((uint64_t)u->size >> 32) << 1);
    }
    if (msg) {
        request_t *m = proto_request_alloc(REQ_MSG);
        if (!m) {
            match_add_unexp(&proto_eng.mq, u);
            *flag = 0;
            return RM_ERR_NOMEM;
        }
        m->msg = u;
        m->comm = comm;
        comm->refcount++;
        *msg = m;
    }
    return RM_OK;
}

rm_status_t proto_imrecv(void *buf, MPI_Count count, dtype_t *dt, request_t *msg, request_t **out)
{
    request_t *r = proto_request_alloc(REQ_RECV);
    if (!r)
        return RM_ERR_NOMEM;
    unexp_t *u = msg->msg;
    proto_request_setup(r, buf, count, dt, u->src, u->tag, msg->comm, u->ctx);
    msg->msg = NULL;
    proto_request_release(msg);
    r->refs++;
    r->active = 1;
    proto_recv_matched(r, u);
    *out = r;
    return RM_OK;
}

void proto_status_fill(MPI_Status *st, const request_t *r)
{
    if (!st || st == MPI_STATUS_IGNORE)
        return;
    int recv = r->kind == REQ_RECV || r->kind == REQ_PRECV;
    if (recv) {
        st->MPI_SOURCE = r->status.MPI_SOURCE;
        st->MPI_TAG = r->status.MPI_TAG;
    }
    uint64_t n = recv ? r->recvd : 0;
    st->count_lo = (int)(uint32_t)n;
    st->count_hi_and_cancelled = (int)((n >> 32) << 1) | (r->cancelled ? 1 : 0);
    /* MPI_ERROR is only written by the multi-request calls (MPI standard 3.2.5) */
}
