#include "rail/channel.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/pool.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static rail_deliver_fn rail_deliver;
static rail_failed_fn rail_failed;
rail_policy_t rail_policy = RAIL_POLICY_ADAPTIVE;
int rail_ft = 1;
static rail_place_fn rail_place;
static int rail_local_rank;
static double rail_weight[RAIL_MAX_PATHS];
rail_channel_t *rail_flush_list;
rail_channel_t *rail_net_list;

void rail_configure(rail_policy_t policy, int local_rank, const double *weights, int nweights,
                    int ft)
{
    rail_policy = policy;
    rail_local_rank = local_rank;
    rail_ft = ft;
    for (int i = 0; i < RAIL_MAX_PATHS; i++)
        rail_weight[i] = weights && i < nweights && weights[i] > 0 ? weights[i] : 1.0;
}

rm_status_t rail_set_policy(rail_policy_t policy)
{
    /* failover keeps standby paths ARMED: entering or leaving it would have
     * to re-arm or release paths under traffic */
    if (policy != rail_policy && (policy == RAIL_POLICY_FAILOVER || rail_policy == RAIL_POLICY_FAILOVER))
        return RM_ERR_UNSUPPORTED;
    rail_policy = policy;
    return RM_OK;
}

void rail_set_deliver(rail_deliver_fn fn)
{
    rail_deliver = fn;
}

void rail_set_failed(rail_failed_fn fn)
{
    rail_failed = fn;
}

static rail_notify_fn rail_notify_hook;

void rail_set_notify(rail_notify_fn fn)
{
    __atomic_store_n(&rail_notify_hook, fn, __ATOMIC_RELEASE);
}

void rail_notify(const rail_channel_t *ch, const rail_path_t *p, int kind, int why)
{
    rail_notify_fn fn = __atomic_load_n(&rail_notify_hook, __ATOMIC_ACQUIRE);
    if (fn)
        fn(kind, ch->peer, p ? p->rail : -1, why);
}

void rail_event(const rail_channel_t *ch, const rail_path_t *p, const char *fmt, ...)
{
    if (rm_log_level < RM_LOG_INFO)
        return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* "rail event TIME peer P rail K: EVENT (detail) on NAME": the event
     * word is always the sixth field, for scripts that line events up */
    if (p) {
        rm_log(RM_LOG_INFO, "rail event %.6f peer %d rail %d: %s on %s", rm_wall(), ch->peer, p->rail,
               msg, p->ops->rail_name ? p->ops->rail_name(p->ifc) : p->ops->name);
    } else {
        char rails[64] = "";
        size_t l = 0;
        for (int i = 0; i < ch->npaths && l < sizeof rails; i++) {
            int n = snprintf(rails + l, sizeof rails - l, "%s%d", i ? "," : "", ch->paths[i].rail);
            if (n > 0)
                l += (size_t)n;
        }
        rm_log(RM_LOG_INFO, "rail event %.6f peer %d rails %s: %s", rm_wall(), ch->peer, rails, msg);
    }
}

void rail_set_place(rail_place_fn fn)
{
    rail_place = fn;
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

/* Frames come from a pool of size classes (util/pool.h): a message kept
 * until acknowledged (a lossy rail) or queued behind a full ring must not
 * cost a malloc and a free. A frame with no copy, or a copy of up to 256
 * bytes, is of the smallest class; larger copies take the class of the next
 * power of two up to 16 KiB (the largest eager message by default: above 1
 * KiB glibc's malloc leaves its per-thread cache, and a stream of 2 KiB
 * messages over a TCP rail spent 3-4 % of the sender's time in malloc and
 * free); each class keeps at most 1 MiB of frames for reuse (2849 small
 * ones on x86-64; 4096 of them before). */
static rm_pool_t rail_frame_pool = RM_POOL_INIT(sizeof(rail_frame_t), 8, 7, 1u << 20);

static void rail_frame_free(rail_frame_t *f)
{
    rm_pool_put(&rail_frame_pool, f, f->pooled);
}

/* A frame's memory, for a payload copy of `extra` bytes; NULL when out of
 * memory. */
static rail_frame_t *rail_frame_alloc(size_t extra)
{
    int cls;
    rail_frame_t *f = rm_pool_get(&rail_frame_pool, extra, &cls);
    if (f)
        f->pooled = cls;
    return f;
}

/* Fill a frame: a copy of the payload (in the same allocation, of
 * rail_frame_alloc's size), or a reference the sender keeps alive until
 * `sent` runs. */
static void rail_frame_fill(rail_frame_t *f, const net_frame_hdr_t *hdr, const void *upper,
                            const void *payload, int copy, rail_sent_fn sent, void *arg)
{
    f->hdr = *hdr;
    memcpy(f->upper, upper, hdr->hlen);
    f->copied = copy && hdr->len;
    f->payload = payload;
    if (f->copied) {
        memcpy(f->copy, payload, hdr->len);
        f->payload = f->copy;
    }
    f->delivered = 0;
    f->path = -1;
    f->sent = copy ? NULL : sent;
    f->arg = arg;
}

/* A frame the channel keeps (rail_frame_fill); NULL when out of memory. */
static rail_frame_t *rail_frame_new(const net_frame_hdr_t *hdr, const void *upper,
                                    const void *payload, int copy, rail_sent_fn sent, void *arg)
{
    rail_frame_t *f = rail_frame_alloc(copy ? hdr->len : 0);
    if (f)
        rail_frame_fill(f, hdr, upper, payload, copy, sent, arg);
    return f;
}

void rail_channel_init(rail_channel_t *ch, int peer)
{
    memset(ch, 0, sizeof *ch);
    ch->peer = peer;
    ch->recv_next = 1;
}

static void rail_list_remove(rail_channel_t **head, rail_channel_t *ch, size_t link_off)
{
    for (rail_channel_t **pp = head; *pp; pp = (rail_channel_t **)((char *)*pp + link_off)) {
        if (*pp == ch) {
            *pp = *(rail_channel_t **)((char *)ch + link_off);
            return;
        }
    }
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
    if (ch->on_flush_list)
        rail_list_remove(&rail_flush_list, ch, offsetof(rail_channel_t, flush_next));
    if (ch->lossy)
        rail_list_remove(&rail_net_list, ch, offsetof(rail_channel_t, net_next));
    ch->on_flush_list = 0;
    ch->lossy = 0;
    ch->npaths = 0;
    /* the last channel to go leaves no pooled frame behind */
    rm_pool_drain(&rail_frame_pool);
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
    /* frames kept until acknowledged, and no round trip from the transport */
    p->reports = rail_ft && !(p->caps & (NET_CAP_RELIABLE | NET_CAP_MEASURED));
    if (rail_policy == RAIL_POLICY_FAILOVER && ch->npaths > 1 && !(p->caps & NET_CAP_RELIABLE)) {
        /* APM's alternate path: connected and probed, carrying nothing */
        p->state = RAIL_PATH_ARMED;
        p->standby = 1;
    }
    if (!(p->caps & NET_CAP_RELIABLE) && !ch->lossy) {
        ch->lossy = 1;
        ch->keep = rail_ft;
        ch->net_next = rail_net_list;
        rail_net_list = ch;
    }
    return RM_OK;
}

rail_path_t *rail_channel_local_path(rail_channel_t *ch)
{
    for (int i = 0; i < ch->npaths; i++)
        if ((ch->paths[i].caps & NET_CAP_LOCAL) && ch->paths[i].state == RAIL_PATH_UP)
            return &ch->paths[i];
    return NULL;
}

rail_path_t *rail_path_of(rail_channel_t *ch, int rail)
{
    for (int i = 0; i < ch->npaths; i++)
        if (ch->paths[i].rail == rail)
            return &ch->paths[i];
    return NULL;
}

int rail_channel_usable(const rail_channel_t *ch)
{
    for (int i = 0; i < ch->npaths; i++)
        if (ch->paths[i].state == RAIL_PATH_UP)
            return 1;
    return 0;
}

void rail_channel_promote(rail_channel_t *ch)
{
    if (rail_channel_usable(ch))
        return;
    /* a standby first, a rail migrated off only as the last resort */
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < ch->npaths; i++) {
            rail_path_t *p = &ch->paths[i];
            if (p->state == RAIL_PATH_ARMED && p->probed && p->migrated == pass) {
                p->state = RAIL_PATH_UP;
                p->standby = 0;
                rail_event(ch, p, "migrated (traffic moved to this %s rail)",
                           pass ? "migrated-off" : "standby");
                rail_notify(ch, p, RAIL_EV_MIGRATED, RAIL_WHY_FAILOVER);
                return;
            }
        }
    }
}

/* The path for the next frame: the policy decides among the UP paths.
 * Chunks of striped messages (NET_F_UNORDERED) are spread by the policy;
 * ordered frames use the primary (first UP) path, except under round-robin
 * and binding, which place whole messages. */
int rail_channel_pick_for(rail_channel_t *ch, uint16_t flags, size_t len)
{
    if (ch->npaths == 1)
        return ch->paths[0].state == RAIL_PATH_UP || ch->paths[0].state == RAIL_PATH_SUSPECT ? 0 : -1;
    rail_sched_path_t sp[RAIL_MAX_PATHS];
    int striped = (flags & NET_F_UNORDERED) != 0;
    /* a SUSPECT path is still better than waiting when nothing is UP */
    int want = rail_channel_usable(ch) ? RAIL_PATH_UP : RAIL_PATH_SUSPECT;
    /* adaptive: by the measured figures once every usable path has them,
     * by the static weights until then; a figure counts once the path was
     * measured busy (proven): one taken while it was given too little is a
     * floor, and a path the figures starve would never get the traffic to
     * show more (ofi's second rail got no chunk at all that way) */
    int measured = rail_policy == RAIL_POLICY_ADAPTIVE;
    /* a path whose frames were taken off as too slow or stalled takes no
     * new frames until the peer has them, while another path can */
    int slow = 0, fine = 0;
    for (int i = 0; i < ch->npaths; i++) {
        const rail_path_t *p = &ch->paths[i];
        if (p->state != want)
            continue;
        if (!p->proven) /* proven implies a positive rate */
            measured = 0;
        p->slow_hi > p->dlv_hi ? slow++ : fine++;
    }
    for (int i = 0; i < ch->npaths; i++) {
        rail_path_t *p = &ch->paths[i];
        sp[i].usable = p->state == want && !(slow && fine && p->slow_hi > p->dlv_hi);
        sp[i].bw = measured ? p->bw : rail_weight[p->rail < RAIL_MAX_PATHS ? p->rail : 0];
        sp[i].lat = measured ? p->rtt / 2 : 0;
        sp[i].queued = 0;
        if (striped && rail_policy == RAIL_POLICY_ADAPTIVE && sp[i].usable) {
            if (p->ops->queued)
                sp[i].queued = p->ops->queued(p->np);
            /* measured by reports: what it took and has not delivered yet */
            if (p->reports && p->kept - p->kept_dlv > sp[i].queued)
                sp[i].queued = p->kept - p->kept_dlv;
        }
    }
    if (striped)
        return rail_sched_pick_chunk(rail_policy, sp, ch->npaths, len, ch->turn++, rail_local_rank,
                                     ch->wrr);
    if (rail_policy == RAIL_POLICY_ROUND_ROBIN || rail_policy == RAIL_POLICY_BINDING)
        return rail_sched_pick(rail_policy, sp, ch->npaths, ch->turn++, rail_local_rank);
    return rail_sched_pick(RAIL_POLICY_FIRST, sp, ch->npaths, 0, 0);
}

/* Hand one frame to a path, with the current cumulative ack. */
rm_status_t rail_path_emit(rail_channel_t *ch, rail_path_t *p, net_frame_hdr_t *hdr,
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
    return RM_OK;
}

rm_status_t rail_path_emit_ctl(rail_channel_t *ch, rail_path_t *p, uint16_t flags)
{
    static const unsigned char none[1];
    net_frame_hdr_t hdr = {.seq = 0, .len = 0, .hlen = 0, .flags = flags};
    return rail_path_emit(ch, p, &hdr, none, none);
}

static void rail_channel_want_flush(rail_channel_t *ch)
{
    if (!ch->on_flush_list) {
        ch->on_flush_list = 1;
        ch->flush_next = rail_flush_list;
        rail_flush_list = ch;
    }
}

/* Whether a frame that went out on path p must be kept until acked. */
static inline int rail_keeps(const rail_channel_t *ch, const rail_path_t *p)
{
    return ch->keep && !(p->caps & NET_CAP_RELIABLE);
}

/* A kept frame went out on path k: counted in the path's backlog, and its
 * send time remembered where delivery reports measure the path. */
static void rail_kept_on(rail_channel_t *ch, rail_frame_t *f, int k)
{
    rail_path_t *p = &ch->paths[k];
    f->path = k;
    f->reported = 0;
    p->kept += f->hdr.len;
    if (p->reports) {
        unsigned i = p->sent_next++ % RAIL_SENT_RING;
        f->sent_at = rm_now();
        p->sent_ring[i].seq = f->hdr.seq;
        p->sent_ring[i].at = f->sent_at;
    }
}

/* A kept frame leaves its path's backlog: acknowledged (delivered = 1), or
 * to be sent again. */
static void rail_kept_off(rail_channel_t *ch, rail_frame_t *f, int delivered)
{
    if (f->path < 0)
        return;
    rail_path_t *p = &ch->paths[f->path];
    p->kept -= f->hdr.len;
    if (f->reported)
        p->kept_dlv -= f->hdr.len;
    else if (delivered)
        p->dlv_bytes += f->hdr.len;
    f->reported = 0;
    f->path = -1;
}

int rail_channel_reroute(rail_channel_t *ch, rail_path_t *p)
{
    int n = 0, idx = (int)(p - ch->paths);
    for (rail_frame_t *f = ch->unacked.head; f; f = f->next) {
        if (f->path == idx && !f->reported) {
            if (f->hdr.seq > p->slow_hi)
                p->slow_hi = f->hdr.seq;
            rail_kept_off(ch, f, 0);
            n++;
        }
    }
    if (n) {
        ch->resend = 1;
        rail_channel_want_flush(ch);
    }
    return n;
}

int rail_channel_resend_all(rail_channel_t *ch)
{
    int n = 0;
    /* The oldest frame holds the cumulative ack back, so the path it went
     * out on is the one that stalls (a connection whose retransmissions back
     * off on a flapping link, while its probes still get through): like a
     * slow path, it takes no frames, the copies included, until the peer
     * has those it carried, while another path can. */
    int k = ch->unacked.head ? ch->unacked.head->path : -1;
    for (rail_frame_t *f = ch->unacked.head; f; f = f->next, n++) {
        if (k >= 0 && f->path == k && f->hdr.seq > ch->paths[k].slow_hi)
            ch->paths[k].slow_hi = f->hdr.seq;
        rail_kept_off(ch, f, 0);
    }
    if (n)
        ch->resend = 1;
    return n;
}

rm_status_t rail_channel_send(rail_channel_t *ch, const void *upper, uint16_t hlen,
                              const void *payload, size_t len, uint16_t flags, rail_sent_fn sent,
                              void *arg)
{
    if (ch->failed)
        return ch->failed;
    net_frame_hdr_t hdr = {.seq = ch->send_seq + 1, .len = (uint32_t)len, .flags = flags, .hlen = hlen};
    /* with a callback the sender's memory stays referenced until the frame
     * is released, so every chunk of a message completes it only once all
     * of them are safe */
    int copy = !sent;
    if (!ch->pending.head && !ch->resend) {
        int k = rail_channel_pick_for(ch, flags, len);
        if (k < 0 && !ch->keep)
            return RM_ERR_UNREACHABLE;
        if (k >= 0) {
            rail_path_t *p = &ch->paths[k];
            rail_frame_t *f = NULL;
            /* the memory first (the send must not go out unkept), the copy
             * after: a small message's answer need not wait for it */
            if (rail_keeps(ch, p) && !(f = rail_frame_alloc(copy ? len : 0)))
                return RM_ERR_NOMEM;
            rm_status_t st = rail_path_emit(ch, p, &hdr, upper, payload);
            if (st == RM_OK) {
                ch->send_seq++;
                if (!f)
                    return RM_OK;
                rail_frame_fill(f, &hdr, upper, payload, copy, sent, arg);
                rail_kept_on(ch, f, k);
                rail_q_push(&ch->unacked, f);
                return copy ? RM_OK : RM_INPROGRESS;
            }
            if (f)
                rail_frame_free(f);
            if (ch->failed)
                return ch->failed;
            /* NO_RESOURCE, or the path just failed (its upcall marked it
             * DOWN): the frame waits for room or another path */
        }
    }
    /* keep order: once anything waits, everything after it waits too */
    rail_frame_t *f = rail_frame_new(&hdr, upper, payload, copy, sent, arg);
    if (!f)
        return RM_ERR_NOMEM;
    ch->send_seq++;
    rail_q_push(&ch->pending, f);
    rail_channel_want_flush(ch);
    return copy ? RM_OK : RM_INPROGRESS;
}

/* A frame with no sequence number and no payload: only the cumulative ack. */
static void rail_channel_send_ack(rail_channel_t *ch)
{
    int k = rail_channel_pick_for(ch, 0, 0);
    if (k >= 0)
        rail_path_emit_ctl(ch, &ch->paths[k], 0);
}

/* Everything kept goes back to its sender with the channel's error; the
 * layer above fails what else waits on the peer. */
static void rail_channel_reap(rail_channel_t *ch)
{
    rail_frame_t *f;
    /* sequence order: a message's last chunk reports after its others */
    while ((f = rail_q_pop(&ch->unacked))) {
        rail_kept_off(ch, f, 0);
        if (f->sent)
            f->sent(f->arg, ch->failed);
        rail_frame_free(f);
    }
    while ((f = rail_q_pop(&ch->pending))) {
        if (f->sent)
            f->sent(f->arg, ch->failed);
        rail_frame_free(f);
    }
    while ((f = rail_q_pop(&ch->ooo)))
        rail_frame_free(f);
    ch->ack_owed = 0;
    ch->resend = 0;
    ch->fail_reported = 1;
    if (rail_failed)
        rail_failed(ch, ch->failed);
}

void rail_channel_fail(rail_channel_t *ch, rm_status_t why)
{
    if (ch->failed)
        return;
    ch->failed = why < 0 ? why : RM_ERR_UNREACHABLE;
    for (int i = 0; i < ch->npaths; i++) {
        rail_path_t *p = &ch->paths[i];
        if (!(p->caps & NET_CAP_RELIABLE) && p->state != RAIL_PATH_DOWN) {
            p->state = RAIL_PATH_DOWN;
            if (p->ops->path_reset)
                p->ops->path_reset(p->np);
        }
    }
    /* frames are released from progress, never from inside a transport call */
    rail_channel_want_flush(ch);
}

/* Send again what a failed path carried, in sequence order. */
static int rail_channel_resend(rail_channel_t *ch)
{
    int n = 0, left = 0;
    for (rail_frame_t *f = ch->unacked.head; f && !ch->failed; f = f->next) {
        if (f->path >= 0)
            continue;
        int k = rail_channel_pick_for(ch, f->hdr.flags, f->hdr.len);
        if (k < 0 || rail_path_emit(ch, &ch->paths[k], &f->hdr, f->upper, f->payload) != RM_OK) {
            left = 1;
            break;
        }
        rail_kept_on(ch, f, k);
        ch->paths[k].resent++;
        n++;
    }
    ch->resend = left;
    return n;
}

int rail_channel_flush(rail_channel_t *ch, int acks)
{
    int n = 0;
    if (!ch->failed && ch->resend)
        n += rail_channel_resend(ch);
    while (!ch->failed && !ch->resend && ch->pending.head) {
        rail_frame_t *f = ch->pending.head;
        int k = rail_channel_pick_for(ch, f->hdr.flags, f->hdr.len);
        if (k < 0)
            break;
        rail_path_t *p = &ch->paths[k];
        rm_status_t st = rail_path_emit(ch, p, &f->hdr, f->upper, f->payload);
        if (st != RM_OK)
            break; /* NO_RESOURCE: retry on the next pass; errors reach us via upcall */
        rail_q_pop(&ch->pending);
        n++;
        if (rail_keeps(ch, p)) {
            rail_kept_on(ch, f, k);
            rail_q_push(&ch->unacked, f);
            continue;
        }
        if (f->sent)
            f->sent(f->arg, RM_OK);
        rail_frame_free(f);
    }
    if (ch->failed) {
        if (!ch->fail_reported)
            rail_channel_reap(ch);
        return n;
    }
    /* whatever reverse traffic there was has carried the ack by now */
    if ((acks || (ch->ack_urgent && ch->recv_next > ch->ack_urgent)) && ch->ack_owed &&
        !ch->pending.head) {
        ch->ack_urgent = 0;
        rail_channel_send_ack(ch);
    }
    return n;
}

int rail_flush_pending(int acks)
{
    int n = 0;
    rail_channel_t **pp = &rail_flush_list;
    while (*pp) {
        rail_channel_t *ch = *pp;
        n += rail_channel_flush(ch, acks);
        if (!ch->pending.head && !ch->ack_owed && !ch->resend) {
            *pp = ch->flush_next;
            ch->on_flush_list = 0;
        } else {
            pp = &ch->flush_next;
        }
    }
    return n;
}

int rail_channel_idle(const rail_channel_t *ch)
{
    if (ch->failed || ch->closing)
        return 1;
    return !ch->pending.head && !ch->unacked.head && !ch->ack_owed;
}

void rail_channel_bye(rail_channel_t *ch)
{
    for (int i = 0; i < ch->npaths; i++) {
        rail_path_t *p = &ch->paths[i];
        if (!(p->caps & NET_CAP_RELIABLE) && (p->frames || p->rx_seen) &&
            (p->state == RAIL_PATH_UP || p->state == RAIL_PATH_SUSPECT || p->state == RAIL_PATH_ARMED))
            rail_path_emit_ctl(ch, p, NET_F_BYE);
    }
}

/* Cumulative ack: release every kept frame the peer has confirmed. */
static void rail_channel_ack(rail_channel_t *ch, uint64_t ack)
{
    if (ack <= ch->acked)
        return;
    ch->acked = ack;
    while (ch->unacked.head && ch->unacked.head->hdr.seq <= ack) {
        rail_frame_t *f = rail_q_pop(&ch->unacked);
        rail_kept_off(ch, f, 1);
        if (f->sent)
            f->sent(f->arg, RM_OK);
        rail_frame_free(f);
    }
    if (!ch->unacked.head)
        ch->resend = 0;
    /* a path held back as slow waits no more once everything it held is
     * acknowledged, whichever path brought it: its own report may never
     * come (frames that never left the rail layer's queue for it) */
    for (int i = 0; i < ch->npaths; i++)
        if (ch->paths[i].slow_hi && ack >= ch->paths[i].slow_hi)
            ch->paths[i].slow_hi = 0;
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
    rail_frame_t *f = rail_frame_new(hdr, upper, payload, !marker, NULL, NULL);
    if (!f) {
        /* dropping is safe: the sender keeps the frame until acknowledged */
        rm_log_error("rail: out of memory queueing frame %llu from peer %d",
                     (unsigned long long)hdr->seq, ch->peer);
        return 0;
    }
    if (marker) {
        f->payload = NULL;
        f->hdr.len = 0;
    }
    f->delivered = marker;
    f->next = *pp;
    *pp = f;
    if (!f->next)
        ch->ooo.tail = f;
    ch->ooo.n++;
    ch->ooo_queued++;
    return 1;
}

/* An unsequenced frame of the path health protocol. */
static void rail_channel_ctl(rail_channel_t *ch, int rail, const net_frame_hdr_t *hdr)
{
    rail_path_t *p = rail_path_of(ch, rail);
    if (!p)
        return;
    if (hdr->flags & NET_F_PROBE)
        rail_path_emit_ctl(ch, p, NET_F_PROBE_ACK);
    if ((hdr->flags & NET_F_PROBE_ACK) && p->rtt_probe_at) {
        uint64_t t = rm_now() - p->rtt_probe_at;
        if (!p->rtt_win[0] || t < p->rtt_win[0])
            p->rtt_win[0] = t;
        p->rtt_probe_at = 0;
    }
    if ((hdr->flags & NET_F_PROBE_ACK) && p->state == RAIL_PATH_ARMED && !p->probed) {
        p->probed = 1;
        uint64_t now = rm_now();
        if (p->down_since) {
            p->downtime += now - p->down_since;
            p->recoveries++;
        }
        if (rail_policy == RAIL_POLICY_FAILOVER && rail_channel_usable(ch))
            p->standby = 1; /* another rail carries the traffic: this one stands by */
        if (p->standby || p->migrated) {
            rail_event(ch, p, "armed (connected and probed, standing by)");
        } else {
            p->state = RAIL_PATH_UP;
            rail_event(ch, p, "up (recovered after %.2f s)",
                       p->down_since ? (double)(now - p->down_since) / 1e9 : 0.0);
            rail_notify(ch, p, RAIL_EV_UP, RAIL_WHY_PROBED);
            rail_channel_want_flush(ch);
        }
        p->down_since = 0;
    }
    if (hdr->flags & NET_F_BYE)
        ch->closing = ch->bye = 1;
}

/* Whether a path is receiving frame `seq` in place right now. */
static int rail_placing(const rail_channel_t *ch, uint64_t seq)
{
    for (int i = 0; i < ch->npaths; i++)
        if (ch->paths[i].zc_at && ch->paths[i].zc_seq == seq)
            return 1;
    return 0;
}

/* A copy of frame `seq` arrived whole while a path still receives it in
 * place: that path stalls (the sender sent the frame again because its acks
 * stalled, or took it off a slow path), perhaps for seconds (a connection
 * whose retransmissions back off on a flapping link). The place is withdrawn
 * (net_ops_t.unplace: the stalled path writes nothing more there and drops
 * the rest of its copy), so the one that came can be handed up; 0 when a
 * transport cannot withdraw it: the copy is dropped and the first path
 * completes the frame (or fails, and the sender sends it again). */
static int rail_unplace(rail_channel_t *ch, uint64_t seq)
{
    for (int i = 0; i < ch->npaths; i++) {
        rail_path_t *p = &ch->paths[i];
        if (!p->zc_at || p->zc_seq != seq)
            continue;
        if (!p->ops->unplace)
            return 0;
        p->ops->unplace(p->np, p->zc_at);
        p->zc_at = NULL;
        p->unplaced++;
    }
    return 1;
}

/* Zero-copy receive. Only a frame that will be handed up the moment it
 * arrives may land in the layer above's memory: an unordered chunk not seen
 * before. An ordered frame may have to wait in the out-of-order queue, and a
 * duplicate is dropped, so both are staged. A path that is not UP gets no
 * placement: what it carries may also come again on another path. A second
 * copy of a chunk that one path is still writing in place (the sender sent it
 * again when acks stalled) is staged; on arrival the first path's place is
 * withdrawn before it is handed up (rail_unplace): else the receive could
 * complete while the first path still writes into the buffer. */
void *rail_channel_place(void *owner, int rail, const net_frame_hdr_t *hdr, const void *upper)
{
    rail_channel_t *ch = owner;
    if (!rail_place || !(hdr->flags & NET_F_UNORDERED) || !hdr->seq || !hdr->hlen ||
        hdr->seq < ch->recv_next || rail_placing(ch, hdr->seq))
        return NULL;
    for (const rail_frame_t *f = ch->ooo.head; f && f->hdr.seq <= hdr->seq; f = f->next)
        if (f->hdr.seq == hdr->seq)
            return NULL; /* already handed up: a duplicate */
    rail_path_t *p = NULL;
    for (int i = 0; i < ch->npaths && !p; i++)
        if (ch->paths[i].rail == rail && ch->paths[i].state == RAIL_PATH_UP)
            p = &ch->paths[i];
    if (!p)
        return NULL;
    void *at = rail_place(ch, upper, hdr->len);
    if (at) {
        p->zc_seq = hdr->seq;
        p->zc_at = at;
    }
    return at;
}

/* Count a payload that arrived in place (recv does not say which path
 * carried it; the placement record does). */
static void rail_channel_placed(rail_channel_t *ch, const net_frame_hdr_t *hdr, const void *payload)
{
    for (int i = 0; i < ch->npaths; i++) {
        rail_path_t *p = &ch->paths[i];
        if (p->zc_at == payload && p->zc_seq == hdr->seq) {
            p->zc_bytes += hdr->len;
            p->zc_at = NULL;
            return;
        }
    }
}

void rail_channel_recv(void *owner, int rail, const net_frame_hdr_t *hdr, const void *upper,
                       const void *payload)
{
    rail_channel_t *ch = owner;
    /* the common case on a reliable path (shm): the next frame in order,
     * nothing waiting out of order, no ack to take, none to owe */
    if (hdr->seq == ch->recv_next && !hdr->ack && !ch->lossy && !ch->ooo.head && !ch->failed &&
        !(hdr->flags & NET_F_UNORDERED)) {
        ch->recv_next++;
        rail_deliver(ch, upper, payload, hdr->len);
        return;
    }
    /* counted for MPI_T: only lossy (network) paths are rails */
    rail_path_t *rp = rail_path_of(ch, rail);
    if (rp) {
        rp->rx_frames++;
        rp->rx_bytes += hdr->len;
        if (rp->reports && hdr->seq > rp->rx_hi) {
            rp->rx_hi = hdr->seq;
            rp->rx_hi_at = rm_now();
        }
    }
    if ((hdr->flags & NET_F_UNORDERED) && payload)
        rail_channel_placed(ch, hdr, payload);
    if (hdr->ack)
        rail_channel_ack(ch, hdr->ack);
    if (!hdr->seq) {
        /* unsequenced: pure ack, probe, goodbye */
        if (hdr->flags & NET_F_REPORT)
            rail_channel_report_in(ch, payload, hdr->len);
        else if (hdr->flags & NET_F_ADDR)
            rail_channel_addr_in(ch, payload, hdr->len);
        else if (hdr->flags & (NET_F_PROBE | NET_F_PROBE_ACK | NET_F_BYE)) {
            if (ch->lossy)
                rail_health_heard(ch, rail);
            rail_channel_ctl(ch, rail, hdr);
        }
        else if (hdr->hlen)
            rail_deliver(ch, upper, payload, hdr->len);
        return;
    }
    if (ch->failed)
        return;
    if (hdr->seq < ch->recv_next) {
        ch->dups_dropped++;
        /* sent again: our ack may have been lost with a failed path, and
         * no heartbeat per rank pair carries it any more; say it again,
         * and at once on the path the copy came by: it works at least from
         * the peer to us, while the path our acks usually take may be dead
         * one way only (a connection the peer's side lost that ours still
         * sends into; the peer's probes keep it looking alive here) */
        if (ch->lossy) {
            if (rp && rp->state == RAIL_PATH_UP)
                rail_path_emit_ctl(ch, rp, 0);
            ch->ack_owed = 1;
            rail_channel_want_flush(ch);
        }
        return;
    }
    if ((hdr->flags & NET_F_UNORDERED) && rail_placing(ch, hdr->seq) && !rail_unplace(ch, hdr->seq)) {
        /* a copy of a chunk another path is receiving in place, which its
         * transport cannot take back: that one completes it; if that path
         * fails instead, the sender sends the chunk again (not acknowledged) */
        ch->dups_dropped++;
        return;
    }
    ch->rx_seq = hdr->seq;
    if (hdr->seq > ch->recv_next) {
        if (rail_ooo_insert(ch, hdr, upper, payload) && (hdr->flags & NET_F_UNORDERED))
            rail_deliver(ch, upper, payload, hdr->len);
        return;
    }
    ch->recv_next++;
    rail_deliver(ch, upper, payload, hdr->len);
    while (ch->ooo.head && ch->ooo.head->hdr.seq <= ch->recv_next) {
        rail_frame_t *f = rail_q_pop(&ch->ooo);
        if (f->hdr.seq == ch->recv_next) {
            ch->recv_next++;
            ch->rx_seq = f->hdr.seq;
            if (!f->delivered)
                rail_deliver(ch, f->upper, f->payload, f->hdr.len);
        } else {
            ch->dups_dropped++;
        }
        rail_frame_free(f);
    }
    if (ch->lossy) {
        ch->ack_owed = 1;
        if (ch->recv_next - 1 - ch->ack_sent >= RAIL_ACK_EVERY ||
            (ch->ack_urgent && ch->recv_next > ch->ack_urgent)) {
            ch->ack_urgent = 0;
            rail_channel_send_ack(ch);
        }
        else
            rail_channel_want_flush(ch);
    }
}

void rail_path_down(rail_channel_t *ch, rail_path_t *p, rm_status_t why, const char *detail)
{
    if (p->state == RAIL_PATH_DOWN || p->state == RAIL_PATH_RECOVERING)
        return; /* a reconnection attempt failed: the health tick retries */
    int idx = (int)(p - ch->paths);
    p->state = RAIL_PATH_DOWN;
    p->probed = 0;
    p->down_since = rm_now();
    p->backoff = 0;
    p->retry_at = 0;
    if (p->ops->path_reset)
        p->ops->path_reset(p->np);
    p->zc_at = NULL; /* its connection is gone: nothing writes in place any more */
    if (ch->closing || ch->failed) {
        rm_log_debug("rail: path to rank %d on rail %d closed (%s)", ch->peer, p->rail, detail);
        return;
    }
    p->failures++;
    p->slow_hi = 0; /* what it carried is lost or sent again: no wait for it */
    p->rtt_probe_at = 0;
    if (!ch->keep) {
        rm_log_error("rail %d to rank %d failed (%s: %s) and fault tolerance is off "
                     "(RAILMPI_FT=0): operations with rank %d fail with MPI_ERR_OTHER",
                     p->rail, ch->peer, detail, rm_status_str(why), ch->peer);
        rail_channel_fail(ch, why < 0 ? why : RM_ERR_CONN_RESET);
        return;
    }
    int n = 0;
    for (rail_frame_t *f = ch->unacked.head; f; f = f->next) {
        if (f->path == idx) {
            rail_kept_off(ch, f, 0);
            n++;
        }
    }
    if (n)
        ch->resend = 1;
    rail_event(ch, p, "failed (%s: %s); %d frames resent", detail, rm_status_str(why), n);
    rail_notify(ch, p, RAIL_EV_FAILED, why == RM_ERR_TIMED_OUT ? RAIL_WHY_SILENCE : RAIL_WHY_ERROR);
    rail_channel_promote(ch);
    rail_channel_want_flush(ch);
}

void rail_channel_error(void *owner, int rail, rm_status_t why)
{
    rail_channel_t *ch = owner;
    rail_path_t *p = rail_path_of(ch, rail);
    if (why == RM_ERR_CLOSED)
        ch->closing = 1; /* as good as a goodbye that may have been lost */
    if (p && (why == RM_ERR_CLOSED || why == RM_ERR_CONN_RESET))
        p->peer_closed = 1;
    if (p)
        rail_path_down(ch, p, why, "connection error");
}

void rail_channel_up(void *owner, int rail)
{
    rail_channel_t *ch = owner;
    rail_path_t *p = rail_path_of(ch, rail);
    if (!p || (p->state != RAIL_PATH_DOWN && p->state != RAIL_PATH_RECOVERING) || ch->failed)
        return;
    p->state = RAIL_PATH_ARMED;
    p->probed = 0;
    p->peer_closed = 0;
    p->last_rx = rm_now();
    rail_event(ch, p, "armed (connected again, probing)");
    rail_path_emit_ctl(ch, p, NET_F_PROBE);
}
