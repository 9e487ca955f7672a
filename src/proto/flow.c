/* Flow control between two ranks, and the receiving end of rendezvous
 * windows.
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

static inline int proto_flow_exempt(int world)
{
    return !proto_eng.peer_buffer || world == proto_proc.world_rank;
}

size_t proto_credit_avail(int world)
{
    if (proto_flow_exempt(world))
        return SIZE_MAX;
    const proto_peer_t *p = &proto_eng.peer[world];
    uint64_t used = p->sent - p->granted;
    return used >= proto_eng.peer_buffer ? 0 : proto_eng.peer_buffer - (size_t)used;
}

int proto_credit_take(int world, size_t cost)
{
    if (proto_flow_exempt(world))
        return 1;
    if (proto_credit_avail(world) < cost)
        return 0;
    proto_eng.peer[world].sent += cost;
    return 1;
}

void proto_credit_consumed(int world, size_t cost)
{
    if (proto_flow_exempt(world))
        return;
    proto_peer_t *p = &proto_eng.peer[world];
    p->consumed += cost;
    if (p->consumed - p->reported < proto_eng.peer_buffer / 4)
        return;
    proto_hdr_t h = {.type = PF_CREDIT, .id = p->consumed};
    rm_status_t st = rail_channel_send(&proto_eng.ch[world], &h, sizeof h, NULL, 0, 0, NULL, NULL);
    if (st >= 0)
        p->reported = p->consumed;
}

void proto_credit_granted(int world, uint64_t consumed)
{
    proto_peer_t *p = &proto_eng.peer[world];
    if (consumed > p->granted)
        p->granted = consumed;
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
    while (proto_eng.peer[world].early)
        proto_early_free(world, proto_eng.peer[world].early);
}
