/* Flow control between two ranks, and the pipelined rendezvous over
 * network rails: its windows (both ends) and the sender's chunks.
 *
 * Credit. Whatever a sender sends before the receiver has a receive for it
 * (an eager message, the window of a rendezvous) may have to be held by the
 * receiver. Each sender may have at most RAILMPI_PEER_BUFFER bytes of that
 * (counted with proto_credit_cost) not yet consumed by the receiver: a
 * message is consumed when a receive takes it. The receiver reports what it
 * has consumed, cumulatively, in a PF_CREDIT frame whenever a quarter of the
 * buffer more has been; a sender without credit sends the message by
 * rendezvous, an RTS that waits for the receive, so a flood holds senders
 * back instead of growing the receiver. A receiver holds at most
 * RAILMPI_PEER_BUFFER of message data per peer, plus one envelope for
 * each rendezvous send the peer has started. Sends to oneself are exempt.
 *
 * Rendezvous windows. Over network rails a rendezvous sends its first bytes
 * (up to RAILMPI_RNDV_WINDOW, within the credit) right behind the RTS as
 * PF_RDATA, and only the rest after the receiver's CTS: the handshake's round
 * trip and the receiver's time between receives overlap with data on the
 * wire. The window's chunks are striped (unordered), so they may arrive
 * before their RTS; a record per message keyed by the sender's request id
 * collects them: staged while no receive has been matched (or once staging
 * began), else placed straight into the receive buffer. A record lives until
 * every window byte has arrived and a receive took them. */
#include "proto/engine.h"
#include "util/clock.h"
#include "util/lock.h"
#include "util/log.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

rm_status_t proto_flow_init(int world_size)
{
    proto_eng.peer = calloc((size_t)world_size, sizeof *proto_eng.peer);
    return proto_eng.peer ? RM_OK : RM_ERR_NOMEM;
}

void proto_flow_destroy(void)
{
    if (!proto_eng.peer)
        return;
    for (int w = 0; w < proto_proc.world_size; w++)
        proto_early_drop_all(w);
    free(proto_eng.peer);
    proto_eng.peer = NULL;
}

/* The receiver reports what it has consumed once an eighth of the buffer
 * more has been (proto_credit_consumed, engine.h): a sender at the limit
 * sees credit come back in steps of at most a window's size
 * (proto_credit_await waits for a whole window), yet one PF_CREDIT frame
 * covers many small messages. */
void proto_credit_report(int world)
{
    proto_peer_t *p = &proto_eng.peer[world];
    proto_hdr_t h = {.type = PF_CREDIT, .id = p->consumed};
    rm_status_t st = rail_channel_send(proto_chan(world), &h, sizeof h, NULL, 0, 0, NULL, NULL);
    if (st >= 0)
        p->reported = p->consumed;
}

void proto_credit_granted(int world, uint64_t consumed)
{
    if (world >= proto_proc.world_size)
        return;
    proto_peer_t *p = &proto_eng.peer[world];
    if (consumed > p->granted)
        p->granted = consumed;
}

uint64_t proto_peer_short_windows(int world)
{
    return proto_eng.peer && world >= 0 && world < proto_proc.world_size ? proto_eng.peer[world].short_windows : 0;
}

/* A blocking send about to start a rendezvous of `bytes` over network rails
 * waits a little for the credit of its whole window. In a stream of large
 * blocking sends the credit is what bounds the sender, and it comes back as
 * the receiver takes earlier messages; a request sent with a shorter window
 * instead has the rest of its data wait for the receiver's CTS, which comes
 * only once every message before it has been received: the rails drain
 * meanwhile, and so does the pipeline behind the blocked send. A receiver
 * that takes nothing (it waits for something else first) gets the request
 * with a shorter window after RAILMPI_RNDV_CREDIT_WAIT_US, and sends to it
 * wait no more until it reports credit again. */
void proto_credit_await(int world, size_t bytes)
{
    if (proto_flow_exempt(world) || !proto_eng.credit_wait || !proto_eng.rndv_window)
        return;
    proto_peer_t *p = &proto_eng.peer[world];
    size_t need = proto_credit_cost(bytes < proto_eng.rndv_window ? bytes : proto_eng.rndv_window);
    if (need > proto_eng.peer_buffer || proto_credit_avail(world) >= need ||
        p->wait_failed == p->granted + 1 || rail_channel_local_path(proto_chan(world)) ||
        proto_rdma_possible(world, bytes))
        return; /* remote writes send no window */
    uint64_t deadline = rm_now() + proto_eng.credit_wait;
    int idle = 0;
    while (proto_credit_avail(world) < need) {
        if (rail_channel_failure(proto_chan(world)))
            return;
        if (proto_progress()) {
            idle = 0;
        } else if (proto_idle_due(&idle)) {
            if (rm_now() > deadline) {
                p->wait_failed = p->granted + 1;
                return;
            }
            rm_lock_yield();
        }
    }
}

/* ---- rendezvous windows, receiver side --------------------------------- */

static proto_early_t *proto_early_find(int world, uint64_t sid)
{
    for (proto_early_t *e = proto_eng.peer[world].early; e; e = e->next)
        if (e->sid == sid)
            return e;
    return NULL;
}

/* The record of a window whose chunks arrive before the receive is known:
 * created staging. */
static proto_early_t *proto_early_get(int world, uint64_t sid, size_t win)
{
    proto_early_t *e = proto_early_find(world, sid);
    if (e)
        return e;
    e = calloc(1, sizeof *e);
    if (!e || !(e->stage = malloc(win ? win : 1))) {
        rm_log_error("out of memory staging %zu bytes of a message from rank %d; aborting", win, world);
        abort();
    }
    e->sid = sid;
    e->win = win;
    e->next = proto_eng.peer[world].early;
    proto_eng.peer[world].early = e;
    return e;
}

static void proto_early_free(int world, proto_early_t *e)
{
    for (proto_early_t **pp = &proto_eng.peer[world].early; *pp; pp = &(*pp)->next) {
        if (*pp == e) {
            *pp = e->next;
            break;
        }
    }
    free(e->stage);
    free(e);
}

static inline size_t proto_early_cap(const request_t *r)
{
    return (size_t)r->count * (size_t)r->dt->size;
}

/* Every window byte has arrived and a receive has them: the record goes,
 * the credit returns, and the receive may be complete. */
static void proto_early_settle(int world, proto_early_t *e)
{
    request_t *r = e->r;
    if (!r || e->got < e->win)
        return;
    if (e->stage) {
        /* placed like any chunk: unpacked, or cut at the receive's end */
        size_t cap = proto_early_cap(r), n = e->win < cap ? e->win : cap;
        if (dtype_is_contig(r->dt, r->count))
            memcpy((char *)r->buf + r->dt->true_lb, e->stage, n);
        else
            dtype_unpack(r->buf, r->count, r->dt, 0, e->stage, n);
        r->done_bytes += e->win;
    }
    size_t win = e->win;
    proto_early_free(world, e);
    proto_credit_consumed(world, proto_credit_cost(win));
    if (r->done_bytes >= r->bytes)
        proto_recv_done(r);
}

void *proto_early_locate(int world, const proto_hdr_t *h, size_t len)
{
    size_t win = h->ctx, off = (size_t)h->size;
    if (off > win || len > win - off)
        return NULL;
    proto_early_t *e = proto_early_find(world, h->id);
    if (!e)
        e = proto_early_get(world, h->id, win);
    if (e->stage)
        return e->stage + off;
    request_t *r = e->r;
    if (!dtype_is_contig(r->dt, r->count))
        return NULL;
    size_t cap = proto_early_cap(r);
    if (off > cap || len > cap - off)
        return NULL;
    return (char *)r->buf + r->dt->true_lb + off;
}

void proto_early_deliver(int world, const proto_hdr_t *h, const void *payload, size_t len)
{
    size_t win = h->ctx, off = (size_t)h->size;
    if (off > win || len > win - off) {
        rm_log_error("dropping a malformed window chunk from rank %d", world);
        return;
    }
    proto_early_t *e = proto_early_find(world, h->id);
    if (!e)
        e = proto_early_get(world, h->id, win);
    if (e->stage) {
        if (e->stage + off != payload)
            memcpy(e->stage + off, payload, len);
    } else {
        request_t *r = e->r;
        size_t cap = proto_early_cap(r);
        if (off < cap) {
            size_t n = len < cap - off ? len : cap - off;
            if (dtype_is_contig(r->dt, r->count)) {
                char *dst = (char *)r->buf + r->dt->true_lb + off;
                if (dst != payload)
                    memcpy(dst, payload, n);
            } else {
                dtype_unpack(r->buf, r->count, r->dt, off, payload, n);
            }
        }
        r->done_bytes += len;
    }
    e->got += len;
    proto_early_settle(world, e);
}

size_t proto_early_attach(int world, uint64_t sid, size_t win, request_t *r)
{
    proto_early_t *e = proto_early_find(world, sid);
    if (!e) {
        /* nothing arrived yet: the chunks go straight into the receive */
        e = calloc(1, sizeof *e);
        if (!e) {
            rm_log_error("out of memory receiving a message from rank %d; aborting", world);
            abort();
        }
        e->sid = sid;
        e->win = win;
        e->next = proto_eng.peer[world].early;
        proto_eng.peer[world].early = e;
    }
    e->r = r;
    proto_early_settle(world, e);
    return r->done_bytes;
}

void proto_early_drop(int world, uint64_t sid)
{
    proto_early_t *e = proto_early_find(world, sid);
    if (e) {
        size_t win = e->win;
        proto_early_free(world, e);
        proto_credit_consumed(world, proto_credit_cost(win));
    }
}

void proto_early_drop_all(int world)
{
    if (world >= proto_proc.world_size)
        return;
    while (proto_eng.peer[world].early)
        proto_early_free(world, proto_eng.peer[world].early);
}

/* ---- rendezvous, sender side ----------------------------------------- */

static void proto_chunk_sent(void *arg, rm_status_t st)
{
    /* user memory stays with the request until the last chunk */
    if (st < 0)
        ((request_t *)arg)->err = st;
}

static void proto_last_chunk_sent(void *arg, rm_status_t st)
{
    request_t *r = arg;
    if (st < 0)
        r->err = st;
    proto_request_complete(r);
}

/* The end of a rendezvous send, copied so that the send completes without
 * waiting for its acknowledgement (proto_rndv_copy_at). Freed when the last
 * chunk sent from it is acknowledged. */
typedef struct proto_tail {
    int refs;
    int world;
    size_t bytes;
    unsigned char data[];
} proto_tail_t;

static void proto_tail_sent(void *arg, rm_status_t st)
{
    (void)st; /* the send has completed; a failure shows on the channel */
    proto_tail_t *t = arg;
    if (--t->refs)
        return;
    proto_eng.peer[t->world].tail_out -= t->bytes;
    free(t);
}

/* Queue the chunks of bytes [from, to) of a rendezvous send at once; the
 * channel hands them to the rails as room appears. DATA chunks (after the
 * CTS) name the receive, RDATA chunks (the window, before it) the send.
 * Bytes from `copy_at` on go from a copy: the send completes once the
 * chunks before them are acknowledged, or at once when there are none. */
void proto_rndv_range(request_t *s, int type, size_t from, size_t to, size_t copy_at)
{
    rail_channel_t *ch = proto_chan(s->world_peer);
    int net = rail_channel_local_path(ch) == NULL;
    size_t chunk = net ? proto_eng.net_chunk : proto_eng.chunk;
    /* below the striping threshold a message travels whole, in order, on one rail */
    uint16_t fl = !net || s->bytes >= proto_eng.stripe_min ? NET_F_UNORDERED : 0;
    proto_tail_t *t = NULL;
    if (copy_at < to) {
        if (copy_at < from)
            copy_at = from;
        t = malloc(sizeof *t + (to - copy_at));
        if (t) {
            t->refs = 1; /* ours until every chunk is queued */
            t->world = s->world_peer;
            t->bytes = to - copy_at;
            memcpy(t->data, (const char *)s->sdata + copy_at, to - copy_at);
            proto_eng.peer[t->world].tail_out += t->bytes;
        } else {
            copy_at = to;
        }
    }
    int done = 0; /* the send completed */
    for (size_t off = from; off < to;) {
        size_t end = off < copy_at ? copy_at : to;
        size_t n = end - off < chunk ? end - off : chunk;
        int last = off + n >= (t ? copy_at : s->bytes) && !done && off < copy_at;
        proto_hdr_t h;
        if (type == PF_RDATA)
            proto_hdr_make(&h, PF_RDATA, 0, 0, 0, (uint32_t)to, off, s->id);
        else
            proto_hdr_make(&h, PF_DATA, 0, 0, 0, 0, off, s->peer_id);
        rm_status_t st;
        if (off >= copy_at) {
            t->refs++;
            st = rail_channel_send(ch, &h, sizeof h, t->data + (off - copy_at), n, fl, proto_tail_sent, t);
            if (st == RM_OK)
                t->refs--;
        } else {
            st = rail_channel_send(ch, &h, sizeof h, (const char *)s->sdata + off, n, fl,
                                   last ? proto_last_chunk_sent : proto_chunk_sent, s);
            if (st == RM_OK && last)
                done = 1;
        }
        if (st < 0) {
            if (off >= copy_at)
                t->refs--;
            s->err = st;
            if (!done && !s->done)
                proto_request_complete(s);
            done = 1;
            break;
        }
        if (last && st == RM_INPROGRESS)
            done = 1; /* completes on its ack */
        else if (last)
            proto_request_complete(s);
        off += n;
    }
    if (t) {
        if (!done && !s->done)
            proto_request_complete(s); /* all of it copied */
        proto_tail_sent(t, RM_OK);
    }
}

/* Where a rendezvous send's copied end begins (its length is at most the
 * window, within RAILMPI_PEER_BUFFER of copies per peer): over a channel
 * that keeps frames until acknowledged, a send that waited for the ack of
 * its last byte would leave the rails idle for a round trip before the next
 * message; one whose end is copied returns while that end is still on the
 * wire. Not for a synchronous send, which completes only after the match
 * (the CTS, or the last chunk of a window that spans the message). */
size_t proto_rndv_copy_at(request_t *s, rail_channel_t *ch)
{
    /* processes of other jobs keep no per-peer account (proto_flow_exempt) */
    if (s->mode == PROTO_SYNC || !proto_eng.rndv_window || !rail_channel_keeps(ch) ||
        rail_channel_local_path(ch) || s->world_peer >= proto_proc.world_size)
        return s->bytes;
    size_t t = s->bytes < proto_eng.rndv_window ? s->bytes : proto_eng.rndv_window;
    size_t budget = proto_eng.peer_buffer ? proto_eng.peer_buffer : SIZE_MAX;
    if (proto_eng.peer[s->world_peer].tail_out + t > budget)
        return s->bytes;
    return s->bytes - t;
}

/* The CTS came: the rest of the message, past its window. */
void proto_rndv_stream(request_t *s)
{
    size_t from = s->done_bytes, copy_at = proto_rndv_copy_at(s, proto_chan(s->world_peer));
    if (from && copy_at <= from) {
        /* the window's chunks reference the send buffer and complete nothing:
         * one chunk of this part must, on its ack, which covers theirs */
        copy_at = s->bytes - from > proto_eng.net_chunk ? from + proto_eng.net_chunk : s->bytes;
    }
    proto_rndv_range(s, PF_DATA, from, s->bytes, copy_at);
}

/* Bytes of a rendezvous to send with its RTS: over network rails, up to the
 * window and within the receiver's credit (not worth it below a chunk). */
size_t proto_rndv_window(request_t *r, rail_channel_t *ch)
{
    if (!proto_eng.rndv_window || rail_channel_local_path(ch) || r->world_peer >= proto_proc.world_size)
        return 0; /* windows are kept per world rank at the receiver */
    size_t win = r->bytes < proto_eng.rndv_window ? r->bytes : proto_eng.rndv_window;
    size_t avail = proto_credit_avail(r->world_peer);
    if (avail < proto_credit_cost(win)) {
        size_t chunk = proto_eng.net_chunk;
        proto_eng.peer[r->world_peer].short_windows++;
        if (avail < proto_credit_cost(chunk))
            return 0;
        win = (avail - PROTO_CREDIT_OVERHEAD) / chunk * chunk;
    }
    /* a synchronous send completes on the CTS's data, after the match */
    if (r->mode == PROTO_SYNC && win >= r->bytes)
        win = r->bytes - 1;
    return proto_credit_take(r->world_peer, proto_credit_cost(win)) ? win : 0;
}
