/* MPI_Cancel. A posted receive is taken off the posted queue at once. A
 * send is withdrawn by its receiver: the sender sends PF_CANCEL_REQ naming
 * the message (its request id), the receiver removes the envelope from its
 * unexpected queue if it is still there (an eager message or a rendezvous
 * RTS nobody has matched) and answers PF_CANCEL_ACK with whether it did.
 * Both are ordinary sequenced frames on the channel, so the request comes
 * after the message it names: when it is handled the message has been
 * delivered, i.e. either matched or sitting in the unexpected queue, never
 * still in flight; resends after a failover and duplicates are the
 * channel's business as for any frame.
 *
 * Until the answer comes the send is not complete (MPI_Wait waits for it),
 * even when its protocol part finished (an eager message is complete once
 * copied out): the answer alone says whether it was cancelled. A withdrawn
 * message gets no CTS, FIN or SYNC_ACK, so its protocol part ends here. */
#include "proto/engine.h"

#include <stdlib.h>

static rm_status_t proto_cancel_ctl(int world, int type, uint64_t id, uint64_t aux)
{
    proto_hdr_t h = {.type = (uint8_t)type, .size = aux, .id = id};
    rm_status_t st = rail_channel_send(proto_chan(world), &h, sizeof h, NULL, 0, 0, NULL, NULL);
    return st == RM_INPROGRESS ? RM_OK : st;
}

/* Whether the receiver may still hold message `m` unmatched: a send that is
 * complete was matched, unless it is a standard eager one, which completes
 * as soon as it is copied out. */
static int proto_cancel_possible(const request_t *m)
{
    if (!m->done)
        return 1;
    /* a completed send may still be unmatched when its data went ahead of
     * any answer: eager, or a network rendezvous that fit its window (sent
     * with the RTS, its end from a copy) */
    if (m->err < 0 || m->mode == PROTO_SYNC)
        return 0;
    return m->bytes <= proto_eng.eager_max ||
           (m->bytes <= proto_eng.rndv_window && !rail_channel_local_path(proto_chan(m->world_peer)));
}

rm_status_t proto_cancel(request_t *r)
{
    if (r->kind == REQ_RECV) {
        if (!r->done && match_remove_posted(&proto_eng.mq, r)) {
            r->cancelled = 1;
            r->status.MPI_SOURCE = MPI_ANY_SOURCE;
            r->status.MPI_TAG = MPI_ANY_TAG;
            proto_request_complete(r);
        }
        return RM_OK;
    }
    if (r->kind != REQ_SEND || r->peer == MPI_PROC_NULL || r->cancel_pending || r->cancelled)
        return RM_OK;
    /* a buffered send's message is its internal send's */
    request_t *m = r->mode == PROTO_BUFFERED ? r->inner : r;
    if (!m || !proto_cancel_possible(m))
        return RM_OK;
    r->cancel_pending = 1;
    r->cancel_held = (uint8_t)r->done;
    r->done = 0;
    r->refs++; /* the cancel's, until the answer */
    rm_status_t st = proto_cancel_ctl(m->world_peer, PF_CANCEL_REQ, m->id, r->id);
    if (st < 0 && r->cancel_pending) {
        /* the channel has failed: the send stays as it is and reports that */
        r->cancel_pending = 0;
        r->done = r->cancel_held;
        r->cancel_held = 0;
        proto_request_release(r);
    }
    return RM_OK;
}

void proto_cancel_req_recv(rail_channel_t *ch, const proto_hdr_t *h)
{
    int peer = rail_channel_peer(ch);
    unexp_t *u = match_take_unexp_by_sender(&proto_eng.mq, peer, h->id);
    int withdrawn = u != NULL;
    if (u) {
        /* what the message held of the sender's credit, or of its window,
         * is given back */
        if (u->type == PF_EAGER)
            proto_credit_consumed(u->world_src, proto_credit_cost(u->size));
        else if (u->win)
            proto_early_drop(u->world_src, u->sid);
        match_unexp_free(u);
    }
    /* a reply that cannot go means the channel failed: the sender learns
     * that from its own side */
    proto_cancel_ctl(peer, PF_CANCEL_ACK, h->size ? h->size : h->id, (uint64_t)withdrawn);
}

void proto_cancel_ack_recv(const proto_hdr_t *h)
{
    request_t *r = proto_request_by_id(h->id);
    if (r && r->cancel_pending)
        proto_cancel_settle(r, h->size != 0, RM_OK);
}

void proto_cancel_settle(request_t *r, int withdrawn, rm_status_t err)
{
    r->cancel_pending = 0;
    if (err < 0)
        r->err = err;
    if (withdrawn) {
        r->cancelled = 1;
        if (r->inner) {
            /* its block in the attached buffer is free again */
            r->inner->cancelled = 1;
            if (!r->inner->done)
                proto_request_complete(r->inner);
        }
    }
    if (r->cancel_held)
        r->done = 1;
    else if (withdrawn || err < 0)
        proto_request_complete(r); /* nothing will answer a withdrawn message or a lost peer */
    /* else: matched; the protocol completes the send as usual */
    r->cancel_held = 0;
    proto_request_release(r); /* the cancel's reference */
}
