#include "rail/channel.h"
#include "util/log.h"

#include <stdlib.h>
#include <string.h>

static rail_deliver_fn rail_deliver;
static rail_policy_t rail_policy = RAIL_POLICY_ADAPTIVE;
static int rail_local_rank;
static double rail_weight[RAIL_MAX_PATHS];

void rail_configure(rail_policy_t policy, int local_rank, const double *weights, int nweights)
{
    rail_policy = policy;
    rail_local_rank = local_rank;
    for (int i = 0; i < RAIL_MAX_PATHS; i++)
        rail_weight[i] = weights && i < nweights && weights[i] > 0 ? weights[i] : 1.0;
}
rail_channel_t *rail_flush_list;

void rail_set_deliver(rail_deliver_fn fn)
{
    rail_deliver = fn;
}

static void rail_q_push(rail_frame_q_t *q, rail_frame_t *f)
{
    f->next = NULL;
    if (q->tail)
        q->tail->next = f;
    else
        q->head = f;
    q->tail = f;
    q->n++;
}

static rail_frame_t *rail_q_pop(rail_frame_q_t *q)
{
    rail_frame_t *f = q->head;
    if (f) {
        q->head = f->next;
        if (!q->head)
            q->tail = NULL;
        q->n--;
    }
    return f;
}

static void rail_frame_free(rail_frame_t *f)
{
    free(f->copy);
    free(f);
}

void rail_channel_init(rail_channel_t *ch, int peer)
{
    memset(ch, 0, sizeof *ch);
    ch->peer = peer;
    ch->recv_next = 1;
}

void rail_channel_destroy(rail_channel_t *ch)
{
    rail_frame_t *f;
    while ((f = rail_q_pop(&ch->pending)))
        rail_frame_free(f);
    while ((f = rail_q_pop(&ch->unacked)))
        rail_frame_free(f);
    while ((f = rail_q_pop(&ch->ooo)))
        rail_frame_free(f);
    for (int i = 0; i < ch->npaths; i++)
        if (ch->paths[i].np)
            ch->paths[i].ops->path_close(ch->paths[i].np);
    ch->npaths = 0;
}

rm_status_t rail_channel_add_path(rail_channel_t *ch, const net_ops_t *ops, net_iface_t *ifc,
                                  net_path_t *np, int rail)
{
    if (ch->npaths >= RAIL_MAX_PATHS)
        return RM_ERR_NO_RESOURCE;
    rail_path_t *p = &ch->paths[ch->npaths++];
    memset(p, 0, sizeof *p);
    p->ops = ops;
    p->ifc = ifc;
    p->np = np;
    p->rail = rail;
    p->caps = ops->caps;
    p->state = RAIL_PATH_UP;
    if (!(p->caps & NET_CAP_RELIABLE))
        ch->lossy = 1;
    return RM_OK;
}

rail_path_t *rail_channel_local_path(rail_channel_t *ch)
{
    for (int i = 0; i < ch->npaths; i++)
        if ((ch->paths[i].caps & NET_CAP_LOCAL) && ch->paths[i].state == RAIL_PATH_UP)
            return &ch->paths[i];
    return NULL;
}

/* The path for the next frame: the policy decides among the UP paths.
 * Chunks of striped messages (NET_F_UNORDERED) are spread by the policy;
 * ordered frames use the primary (first UP) path, except under round-robin
 * and binding, which place whole messages. */
static rail_path_t *rail_channel_pick_for(rail_channel_t *ch, uint16_t flags, size_t len)
{
    if (ch->npaths == 1)
        return ch->paths[0].state == RAIL_PATH_UP ? &ch->paths[0] : NULL;
    rail_sched_path_t sp[RAIL_MAX_PATHS];
    int striped = (flags & NET_F_UNORDERED) != 0;
    for (int i = 0; i < ch->npaths; i++) {
        rail_path_t *p = &ch->paths[i];
        sp[i].usable = p->state == RAIL_PATH_UP;
        sp[i].bw = rail_weight[p->rail < RAIL_MAX_PATHS ? p->rail : 0];
        sp[i].lat = 0;
        sp[i].queued = striped && rail_policy == RAIL_POLICY_ADAPTIVE && sp[i].usable && p->ops->queued
                           ? p->ops->queued(p->np)
                           : 0;
    }
    int k;
    if (striped)
        k = rail_sched_pick_chunk(rail_policy, sp, ch->npaths, len, ch->turn++, rail_local_rank, ch->wrr);
    else if (rail_policy == RAIL_POLICY_ROUND_ROBIN || rail_policy == RAIL_POLICY_BINDING)
        k = rail_sched_pick(rail_policy, sp, ch->npaths, ch->turn++, rail_local_rank);
    else
        k = rail_sched_pick(RAIL_POLICY_FIRST, sp, ch->npaths, 0, 0);
    return k >= 0 ? &ch->paths[k] : NULL;
}

static rail_path_t *rail_channel_pick(rail_channel_t *ch)
{
    return rail_channel_pick_for(ch, 0, 0);
}

/* Hand one frame to a path; keep a copy when the path may lose it. */
static rm_status_t rail_path_emit(rail_channel_t *ch, rail_path_t *p, net_frame_hdr_t *hdr,
                                  const void *upper, const void *payload)
{
    hdr->ack = ch->recv_next - 1;
    struct iovec iov = {(void *)payload, hdr->len};
    rm_status_t st = p->ops->send(p->np, hdr, upper, &iov, hdr->len ? 1 : 0);
    if (st != RM_OK)
        return st;
    ch->ack_sent = hdr->ack;
    ch->ack_owed = 0;
    p->frames++;
    p->bytes += hdr->len;
    if (!(p->caps & NET_CAP_RELIABLE) && hdr->seq) {
        rail_frame_t *f = malloc(sizeof *f);
        void *copy = hdr->len ? malloc(hdr->len) : NULL;
        if (!f || (hdr->len && !copy)) {
            free(f);
            free(copy);
            rm_log_error("rail: out of memory keeping frame %llu for peer %d",
                         (unsigned long long)hdr->seq, ch->peer);
            return RM_ERR_NOMEM;
        }
        f->hdr = *hdr;
        memcpy(f->upper, upper, hdr->hlen);
        if (hdr->len)
            memcpy(copy, payload, hdr->len);
        f->copy = copy;
        f->payload = copy;
        f->sent = NULL;
        rail_q_push(&ch->unacked, f);
    }
    return RM_OK;
}

static void rail_channel_want_flush(rail_channel_t *ch)
{
    if (!ch->on_flush_list) {
        ch->on_flush_list = 1;
        ch->flush_next = rail_flush_list;
        rail_flush_list = ch;
    }
}

rm_status_t rail_channel_send(rail_channel_t *ch, const void *upper, uint16_t hlen,
                              const void *payload, size_t len, uint16_t flags, rail_sent_fn sent,
                              void *arg)
{
    net_frame_hdr_t hdr = {.seq = ch->send_seq + 1, .len = (uint32_t)len, .flags = flags, .hlen = hlen};
    if (!ch->pending.head) {
        rail_path_t *p = rail_channel_pick_for(ch, flags, len);
        if (!p)
            return RM_ERR_UNREACHABLE;
        rm_status_t st = rail_path_emit(ch, p, &hdr, upper, payload);
        if (st == RM_OK) {
            ch->send_seq++;
            return RM_OK;
        }
        if (st != RM_ERR_NO_RESOURCE)
            return st;
    }
    /* keep order: once anything waits, everything after it waits too */
    rail_frame_t *f = malloc(sizeof *f);
    if (!f)
        return RM_ERR_NOMEM;
    ch->send_seq++;
    f->hdr = hdr;
    memcpy(f->upper, upper, hlen);
    f->payload = payload;
    f->copy = NULL;
    if (!sent && len) {
        /* no completion callback: the caller's memory is not kept alive for us */
        if (!(f->copy = malloc(len))) {
            free(f);
            ch->send_seq--;
            return RM_ERR_NOMEM;
        }
        memcpy(f->copy, payload, len);
        f->payload = f->copy;
    }
    f->sent = sent;
    f->arg = arg;
    rail_q_push(&ch->pending, f);
    rail_channel_want_flush(ch);
    return RM_INPROGRESS;
}

/* A frame with no sequence number and no payload: only the cumulative ack. */
static void rail_channel_send_ack(rail_channel_t *ch)
{
    rail_path_t *p = rail_channel_pick(ch);
    if (!p)
        return;
    static const unsigned char none[1];
    net_frame_hdr_t hdr = {.seq = 0, .len = 0, .hlen = 0};
    if (rail_path_emit(ch, p, &hdr, none, none) == RM_OK)
        ch->ack_owed = 0;
}

int rail_channel_flush(rail_channel_t *ch, int acks)
{
    int n = 0;
    while (ch->pending.head) {
        rail_frame_t *f = ch->pending.head;
        rail_path_t *p = rail_channel_pick_for(ch, f->hdr.flags, f->hdr.len);
        if (!p)
            break;
        rm_status_t st = rail_path_emit(ch, p, &f->hdr, f->upper, f->payload);
        if (st != RM_OK)
            break; /* NO_RESOURCE: retry on the next pass; errors reach us via upcall */
        rail_q_pop(&ch->pending);
        if (f->sent)
            f->sent(f->arg);
        rail_frame_free(f);
        n++;
    }
    /* whatever reverse traffic there was has carried the ack by now */
    if (acks && ch->ack_owed && !ch->pending.head)
        rail_channel_send_ack(ch);
    return n;
}

int rail_flush_pending(int acks)
{
    int n = 0;
    rail_channel_t **pp = &rail_flush_list;
    while (*pp) {
        rail_channel_t *ch = *pp;
        n += rail_channel_flush(ch, acks);
        if (!ch->pending.head && !ch->ack_owed) {
            *pp = ch->flush_next;
            ch->on_flush_list = 0;
        } else {
            pp = &ch->flush_next;
        }
    }
    return n;
}

/* Cumulative ack: drop every kept frame the peer has confirmed. */
static void rail_channel_ack(rail_channel_t *ch, uint64_t ack)
{
    if (ack <= ch->acked)
        return;
    ch->acked = ack;
    while (ch->unacked.head && ch->unacked.head->hdr.seq <= ack)
        rail_frame_free(rail_q_pop(&ch->unacked));
}

/* Keep a frame that arrived ahead of sequence. An unordered frame is handed
 * up at once and leaves only a marker, so it is neither copied nor delivered
 * twice. Returns 1 if the frame is new. */
static int rail_ooo_insert(rail_channel_t *ch, const net_frame_hdr_t *hdr, const void *upper,
                           const void *payload)
{
    rail_frame_t **pp = &ch->ooo.head;
    while (*pp && (*pp)->hdr.seq < hdr->seq)
        pp = &(*pp)->next;
    if (*pp && (*pp)->hdr.seq == hdr->seq) {
        ch->dups_dropped++;
        return 0;
    }
    int marker = (hdr->flags & NET_F_UNORDERED) != 0;
    rail_frame_t *f = malloc(sizeof *f);
    void *copy = hdr->len && !marker ? malloc(hdr->len) : NULL;
    if (!f || (hdr->len && !marker && !copy)) {
        free(f);
        free(copy);
        /* dropping is safe: the sender keeps the frame until acknowledged */
        rm_log_error("rail: out of memory queueing frame %llu from peer %d",
                     (unsigned long long)hdr->seq, ch->peer);
        return 0;
    }
    f->hdr = *hdr;
    memcpy(f->upper, upper, hdr->hlen);
    if (copy)
        memcpy(copy, payload, hdr->len);
    f->copy = copy;
    f->payload = copy;
    f->sent = NULL;
    f->delivered = marker;
    f->next = *pp;
    *pp = f;
    if (!f->next)
        ch->ooo.tail = f;
    ch->ooo.n++;
    ch->ooo_queued++;
    return 1;
}

void rail_channel_recv(void *owner, const net_frame_hdr_t *hdr, const void *upper,
                       const void *payload)
{
    rail_channel_t *ch = owner;
    if (hdr->ack)
        rail_channel_ack(ch, hdr->ack);
    if (!hdr->seq) {
        /* unsequenced control frame (pure ack, probe) */
        if (hdr->hlen)
            rail_deliver(ch, upper, payload, hdr->len);
        return;
    }
    if (hdr->seq < ch->recv_next) {
        ch->dups_dropped++;
        return;
    }
    if (hdr->seq > ch->recv_next) {
        if (rail_ooo_insert(ch, hdr, upper, payload) && (hdr->flags & NET_F_UNORDERED))
            rail_deliver(ch, upper, payload, hdr->len);
        return;
    }
    ch->recv_next++;
    rail_deliver(ch, upper, payload, hdr->len);
    if (ch->lossy) {
        ch->ack_owed = 1;
        if (ch->recv_next - 1 - ch->ack_sent >= RAIL_ACK_EVERY)
            rail_channel_send_ack(ch);
        else
            rail_channel_want_flush(ch);
    }
    while (ch->ooo.head && ch->ooo.head->hdr.seq <= ch->recv_next) {
        rail_frame_t *f = rail_q_pop(&ch->ooo);
        if (f->hdr.seq == ch->recv_next) {
            ch->recv_next++;
            if (!f->delivered)
                rail_deliver(ch, f->upper, f->payload, f->hdr.len);
        } else {
            ch->dups_dropped++;
        }
        rail_frame_free(f);
    }
}

void rail_channel_error(void *owner, int rail, rm_status_t why)
{
    rail_channel_t *ch = owner;
    for (int i = 0; i < ch->npaths; i++) {
        rail_path_t *p = &ch->paths[i];
        if (p->rail == rail && p->state == RAIL_PATH_UP) {
            p->state = RAIL_PATH_DOWN;
            /* an event, not an error: peers closing at MPI_Finalize look the
             * same; a send that finds no path left reports the error */
            rm_log_info("rail: path to rank %d on rail %d failed: %s", ch->peer, rail,
                        rm_status_str(why));
        }
    }
    /* hand what the failed path may have lost back to the surviving paths */
    if (ch->unacked.head && rail_channel_pick(ch)) {
        rail_frame_q_t resend = ch->unacked;
        memset(&ch->unacked, 0, sizeof ch->unacked);
        rail_frame_t *f;
        while ((f = rail_q_pop(&resend))) {
            rail_path_t *p = rail_channel_pick(ch);
            if (!p || rail_path_emit(ch, p, &f->hdr, f->upper, f->payload) != RM_OK) {
                rail_q_push(&ch->unacked, f); /* stays kept; recovery resends it */
                continue;
            }
            rail_frame_free(f);
        }
    }
}
