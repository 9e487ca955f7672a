/* Rendezvous by remote writes over network rails that have them (the ofi
 * transport where the provider has FI_RMA). The sender's RTS says it can
 * write (PFF_RDMA); the receiver, once the message matched a contiguous
 * receive, registers the receive buffer on each such rail and answers RTR
 * with the keys; the sender writes the data straight from its buffer into
 * the receive buffer, in chunks striped over those rails, and when every
 * chunk is confirmed in place (delivery complete) says WDONE; the receiver
 * removes its registrations, completes the receive and answers FIN, on
 * which the send completes. No byte is copied on either side.
 *
 * Faults. A write whose path fails is written again on a surviving rail,
 * once per failure. The failed write may still be carried out (the
 * provider is not asked to cancel it, and rxm over tcp could not): while
 * the receive buffer is registered it writes the same bytes, since the
 * sender's buffer stays as it is until FIN; once the receiver removed its
 * registrations (before it completes the receive) a provider that checks
 * every packet against them (RDMA hardware) places nothing more. A provider
 * that carries writes in TCP streams checks the key only when a write
 * begins and would place the rest of one caught by an outage whenever the
 * connection resumes: the sender knows which of its paths may still carry
 * such a write (net_ops_t.rma_stuck) and names them in WDONE; the receiver
 * fences them (path_fence: the ofi transport leaves that endpoint for a
 * new one) before it lets go. So neither side waits for a write stuck on a
 * dead path. WDONE waits for every write on a live path. When no rail
 * with remote writes is usable and none of the send's writes is out, the
 * sender falls back to the copy path: WDONE with PFF_COPY (and the
 * fences), the receiver answers CTS, and the sender streams the whole
 * message as DATA chunks (proto/flow.c), which complete the receive as any
 * other rendezvous. A receive buffer that cannot be registered gets CTS
 * instead of RTR, the copy path from the start. */
#include "proto/engine.h"
#include "util/clock.h"
#include "util/config.h"
#include "util/log.h"

#include <stdlib.h>
#include <string.h>

/* Writes in the provider per path, all messages together: the frames of
 * the path (heartbeats too) queue behind them in a provider that carries
 * both in one stream (rxm over tcp), so what is queued must drain in well
 * under a heartbeat interval (4 x 1 MiB: 17 ms at 2 Gbit/s). Without a
 * cap across messages, 64 sends of 4 MiB in flight queued 256 MiB on a
 * path, its heartbeats stood still for a second, and the peer judged it
 * dead. */
#define PROTO_RDMA_DEPTH 4
#define PROTO_RDMA_CHUNK_MAX ((size_t)1 << 20)
#define PROTO_RDMA_CHUNK_MIN ((size_t)64 << 10)
/* A path whose write has been out this many times as long as its writes
 * usually take, and half a path timeout at least, while another path would
 * do it in under half that: too slow (a long delay, a rail throttled to a
 * trickle; slow is not dead). Its writes are given up and made on the
 * others, and it takes none for a pause that doubles while it repeats. */
#define PROTO_RDMA_STALL_FACTOR 8
#define PROTO_RDMA_SLOW_PAUSE_NS 1000000000ull
#define PROTO_RDMA_SLOW_PAUSE_MAX_NS 8000000000ull

/* The RTR's payload: the bytes to write (the receive's capacity at most),
 * then `n` keys. */
typedef struct proto_rtr {
    uint64_t len;
    uint64_t n;
} proto_rtr_t;

enum { CH_TODO, CH_OUT, CH_DONE };

/* Sender: one message being written. */
typedef struct proto_rdma_send {
    request_t *s;     /* NULL once the send completed (writes may still be out) */
    int world;
    const char *src;
    size_t len;       /* bytes to write */
    size_t chunk;
    int nchunks, next, ndone;
    uint8_t *state;
    uint64_t *out_at; /* per chunk: when its live write was issued */
    uint8_t *out_path; /* per chunk: the path it went on */
    int out;          /* writes the providers still hold, abandoned ones too */
    int polling, started, finished;
    int nkeys;
    proto_rdma_key_t key[PROTO_RDMA_KEYS_MAX];
    net_mr_t *lmr[RAIL_MAX_PATHS]; /* the send buffer's registration, per path */
    uint8_t bad[RAIL_MAX_PATHS];   /* it cannot be registered there */
    int per_path[RAIL_MAX_PATHS];  /* writes out there, not counting abandoned ones */
    int held[RAIL_MAX_PATHS];      /* abandoned writes the provider still holds there */
    int turn;
    uint64_t redone;
} proto_rdma_send_t;

/* Receiver: the receive buffer's registrations, one per rail. */
typedef struct proto_rdma_recv {
    int n;
    const net_ops_t *ops[PROTO_RDMA_KEYS_MAX];
    net_mr_t *mr[PROTO_RDMA_KEYS_MAX];
} proto_rdma_recv_t;

typedef struct proto_rdma_op {
    proto_rdma_send_t *ws;
    int chunk, path;
    size_t len;
    int abandoned;
    uint64_t t0;      /* issued */
} proto_rdma_op_t;

static int proto_rdma_capable(const rail_path_t *p)
{
    return p->ops->mr_reg && p->ops->rma_write;
}

/* ---- sender ------------------------------------------------------------ */

int proto_rdma_possible(int world, size_t bytes)
{
    if (!proto_eng.rdma_min || bytes < proto_eng.rdma_min || world >= proto_proc.world_size)
        return 0;
    rail_channel_t *ch = proto_chan(world);
    if (rail_channel_local_path(ch))
        return 0;
    for (int i = 0; i < ch->npaths; i++)
        if (proto_rdma_capable(&ch->paths[i]))
            return 1;
    return 0;
}

int proto_rdma_offer(request_t *s, rail_channel_t *ch)
{
    (void)ch;
    if (!proto_rdma_possible(s->world_peer, s->bytes))
        return 0;
    proto_rdma_send_t *ws = calloc(1, sizeof *ws);
    if (!ws)
        return 0;
    ws->s = s;
    ws->world = s->world_peer;
    ws->src = s->sdata;
    s->rdma = ws;
    return 1;
}

static void proto_rdma_send_free(proto_rdma_send_t *ws)
{
    rail_channel_t *ch = proto_chan(ws->world);
    for (int i = 0; i < ch->npaths; i++)
        if (ws->lmr[i])
            ch->paths[i].ops->mr_dereg(ws->lmr[i]);
    free(ws->state);
    free(ws->out_at);
    free(ws->out_path);
    free(ws);
}

static void proto_rdma_write_done(void *arg, rm_status_t st, int over)
{
    proto_rdma_op_t *op = arg;
    proto_rdma_send_t *ws = op->ws;
    if (!over) {
        /* the path went: write the chunk elsewhere */
        op->abandoned = 1;
        ws->per_path[op->path]--;
        ws->held[op->path]++;
        proto_chan(ws->world)->paths[op->path].rma_out--;
        if (ws->state[op->chunk] == CH_OUT) {
            ws->state[op->chunk] = CH_TODO;
            ws->redone++;
        }
        return;
    }
    if (!op->abandoned) {
        ws->per_path[op->path]--;
        proto_chan(ws->world)->paths[op->path].rma_out--;
    } else {
        ws->held[op->path]--;
    }
    ws->out--;
    if (st == RM_OK) {
        rail_path_t *p = &proto_chan(ws->world)->paths[op->path];
        p->rma_bytes += op->len;
        if (!op->abandoned) {
            double nspb = (double)(rm_now() - op->t0) / (double)op->len;
            p->rma_nspb = p->rma_nspb > 0 ? 0.75 * p->rma_nspb + 0.25 * nspb : nspb;
            p->rma_backoff = 0;
        }
        if (ws->state[op->chunk] != CH_DONE) {
            ws->state[op->chunk] = CH_DONE;
            ws->ndone++;
        }
    } else if (!op->abandoned && ws->state[op->chunk] == CH_OUT) {
        ws->state[op->chunk] = CH_TODO;
        ws->redone++;
    }
    free(op);
}

static const proto_rdma_key_t *proto_rdma_key_of(const proto_rdma_send_t *ws, int rail)
{
    for (int k = 0; k < ws->nkeys; k++)
        if (ws->key[k].rail == (uint32_t)rail)
            return &ws->key[k];
    return NULL;
}

static int proto_rdma_usable(const proto_rdma_send_t *ws, const rail_channel_t *ch, int i)
{
    const rail_path_t *p = &ch->paths[i];
    return p->state == RAIL_PATH_UP && proto_rdma_capable(p) && !ws->bad[i] && proto_rdma_key_of(ws, p->rail);
}

/* Hand chunks to the providers, striped over the usable paths. */
static void proto_rdma_issue(proto_rdma_send_t *ws, rail_channel_t *ch)
{
    for (int tries = 0; tries < ws->nchunks && ws->ndone < ws->nchunks;) {
        if (ws->state[ws->next] != CH_TODO) {
            ws->next = (ws->next + 1) % ws->nchunks;
            tries++;
            continue;
        }
        /* the path that would finish it first, by how long its writes
         * took (one not measured yet first: it gets measured); one paused
         * as too slow only when no other is usable */
        uint64_t now = rm_now();
        int fast = 0;
        for (int i = 0; i < ch->npaths; i++)
            fast |= proto_rdma_usable(ws, ch, i) && ch->paths[i].rma_slow_until <= now;
        rail_path_t *p = NULL;
        int pi = -1;
        double best = 0;
        for (int j = 0; j < ch->npaths; j++) {
            int i = (ws->turn + j) % ch->npaths;
            rail_path_t *q = &ch->paths[i];
            if (!proto_rdma_usable(ws, ch, i) || q->rma_out >= PROTO_RDMA_DEPTH || (fast && q->rma_slow_until > now))
                continue;
            double t = (q->rma_out + 1) * q->rma_nspb;
            if (!p || t < best) {
                p = q;
                pi = i;
                best = t;
            }
        }
        if (!p)
            return;
        if (!ws->lmr[pi] && p->ops->mr_reg(p->ifc, (void *)ws->src, ws->len, 0, &ws->lmr[pi]) != RM_OK) {
            ws->lmr[pi] = NULL;
            ws->bad[pi] = 1;
            continue;
        }
        proto_rdma_op_t *op = calloc(1, sizeof *op);
        if (!op)
            return;
        int c = ws->next;
        size_t off = (size_t)c * ws->chunk, n = ws->len - off < ws->chunk ? ws->len - off : ws->chunk;
        const proto_rdma_key_t *k = proto_rdma_key_of(ws, p->rail);
        op->ws = ws;
        op->chunk = c;
        op->path = pi;
        op->len = n;
        op->t0 = now;
        ws->turn = (pi + 1) % ch->npaths;
        rm_status_t st = p->ops->rma_write(p->np, ws->src + off, ws->lmr[pi], n, k->base + off, k->key, k->inc,
                                           proto_rdma_write_done, op);
        if (st == RM_ERR_UNSUPPORTED) {
            /* the key is of another incarnation of the receiver's endpoint
             * than the path reaches: not this path for this message */
            free(op);
            ws->bad[pi] = 1;
            continue;
        }
        if (st != RM_OK) {
            /* full for now, or broken (its failure reaches the rail layer
             * on its own): the next pass tries again */
            free(op);
            if (st != RM_ERR_NO_RESOURCE || ++tries >= ch->npaths)
                return;
            continue;
        }
        ws->state[c] = CH_OUT;
        ws->out_at[c] = now;
        ws->out_path[c] = (uint8_t)pi;
        ws->out++;
        ws->per_path[pi]++;
        p->rma_out++;
        ws->next = (c + 1) % ws->nchunks;
    }
}

static int proto_rdma_any_usable(const proto_rdma_send_t *ws, const rail_channel_t *ch)
{
    for (int i = 0; i < ch->npaths; i++)
        if (proto_rdma_usable(ws, ch, i))
            return 1;
    return 0;
}

/* Writes out on live paths (abandoned ones not counted). */
static int proto_rdma_live(const proto_rdma_send_t *ws, const rail_channel_t *ch)
{
    int n = 0;
    for (int i = 0; i < ch->npaths; i++)
        n += ws->per_path[i];
    return n;
}

/* WDONE: the rails where a write of ours given up on may still be placed
 * (the receiver fences them before it lets go), `flags` PFF_COPY when the
 * message is to come as DATA chunks instead. */
static void proto_rdma_wdone(proto_rdma_send_t *ws, rail_channel_t *ch, int flags)
{
    proto_fence_t f[RAIL_MAX_PATHS];
    int n = 0;
    for (int i = 0; i < ch->npaths; i++) {
        rail_path_t *p = &ch->paths[i];
        uint32_t inc;
        if (p->ops->rma_stuck && p->np && p->ops->rma_stuck(p->np, &inc)) {
            f[n].rail = (uint32_t)p->rail;
            f[n++].inc = inc;
            rm_log_debug("rdma: a write to rank %d given up on may still reach its rail %d (incarnation %u): "
                         "it fences it", ws->world, p->rail, inc);
        }
    }
    proto_hdr_t h;
    proto_hdr_make(&h, PF_WDONE, (uint8_t)flags, 0, 0, 0, 0, ws->s->peer_id);
    rail_channel_send(ch, &h, sizeof h, f, (size_t)n * sizeof f[0], 0, NULL, NULL);
    rail_channel_ack_soon(ch);
}

/* A chunk out too long on a path that another would serve much sooner:
 * that path's writes (every message's) are given up and made elsewhere
 * (PROTO_RDMA_STALL_FACTOR). */
static void proto_rdma_stalls(proto_rdma_send_t *ws, rail_channel_t *ch)
{
    if (!RM_CFG(ft))
        return; /* without failover a renewal would fail the rail's paths, and so the job */
    uint64_t now = rm_now(), floor = (uint64_t)RM_CFG(path_timeout_ms) * 500000ull;
    for (int c = 0; c < ws->nchunks; c++) {
        if (ws->state[c] != CH_OUT || now - ws->out_at[c] < floor)
            continue;
        rail_path_t *p = &ch->paths[ws->out_path[c]];
        double age = (double)(now - ws->out_at[c]), len = (double)ws->chunk;
        if (!p->rma_out || !p->ops->rma_giveup || /* up or suspect: a reset gave them up already */
            age < PROTO_RDMA_STALL_FACTOR * p->rma_nspb * len)
            continue;
        int faster = 0;
        for (int i = 0; i < ch->npaths && !faster; i++) {
            rail_path_t *q = &ch->paths[i];
            faster = q != p && proto_rdma_usable(ws, ch, i) && q->rma_slow_until <= now && q->rma_nspb > 0 &&
                     (q->rma_out + 1) * q->rma_nspb * len < age / 2;
        }
        if (!faster)
            continue;
        p->rma_backoff = p->rma_backoff ? p->rma_backoff * 2 : PROTO_RDMA_SLOW_PAUSE_NS;
        if (p->rma_backoff > PROTO_RDMA_SLOW_PAUSE_MAX_NS)
            p->rma_backoff = PROTO_RDMA_SLOW_PAUSE_MAX_NS;
        p->rma_slow_until = now + p->rma_backoff;
        rm_log_info("rdma: rail %d to rank %d is slow (a write out %.2f s, usually %.1f ms): its %d writes are "
                    "made on the other rails, none there for %.1f s", p->rail, ws->world, age / 1e9,
                    p->rma_nspb * len / 1e6, p->rma_out, (double)p->rma_backoff / 1e9);
        p->ops->rma_giveup(p->np);
    }
}

/* Writes of this message given up on that a provider still holds may read
 * the send buffer as long as they are there (over TCP streams, as the
 * connection allows): before the send may complete they are released
 * (net_ops_t.rma_release). Nonzero once none is held. */
static int proto_rdma_released(proto_rdma_send_t *ws, rail_channel_t *ch)
{
    int done = 1;
    for (int i = 0; i < ch->npaths; i++) {
        rail_path_t *p = &ch->paths[i];
        if (ws->held[i] && p->ops->rma_release && p->np && !p->ops->rma_release(p->np))
            done = 0;
    }
    return done;
}

/* One pass (proto_poll_add): nonzero once the record is gone. */
static int proto_rdma_poll(void *arg)
{
    proto_rdma_send_t *ws = arg;
    rail_channel_t *ch = proto_chan(ws->world);
    request_t *s = ws->s;
    if (s && !ws->finished && !rail_channel_failure(ch)) {
        if (ws->ndone < ws->nchunks) {
            proto_rdma_stalls(ws, ch);
            proto_rdma_issue(ws, ch);
        }
        /* every byte is in place, and no write on a live path is out (one
         * abandoned earlier may have finished its chunk while the chunk's
         * second write is still on its way): the receiver may let go */
        if (ws->ndone == ws->nchunks && !proto_rdma_live(ws, ch) && proto_rdma_released(ws, ch)) {
            ws->finished = 1;
            if (ws->redone)
                rm_log_debug("rdma: %zu bytes to rank %d written, %llu chunks again after a rail failure",
                             ws->len, ws->world, (unsigned long long)ws->redone);
            proto_rdma_wdone(ws, ch, 0);
        } else if (ws->ndone < ws->nchunks && !proto_rdma_live(ws, ch) && !proto_rdma_any_usable(ws, ch) &&
                   proto_rdma_released(ws, ch)) {
            /* no rail to write over: the copy path, the whole message, once
             * the receiver fenced what may still come (its CTS) */
            rm_log_info("rdma: no rail with remote writes to rank %d; a %zu-byte message goes as copies",
                        ws->world, ws->len);
            ws->finished = 1;
            s->done_bytes = 0;
            proto_rdma_wdone(ws, ch, PFF_COPY);
        }
    }
    if (ws->s || ws->out)
        return 0;
    proto_rdma_send_free(ws);
    return 1;
}

void proto_rdma_rtr(request_t *s, const void *payload, size_t len)
{
    proto_rdma_send_t *ws = s->rdma;
    proto_rtr_t rtr;
    if (!ws || ws->started || len < sizeof rtr)
        return;
    memcpy(&rtr, payload, sizeof rtr);
    size_t n = (len - sizeof rtr) / sizeof(proto_rdma_key_t);
    ws->nkeys = (int)(n < PROTO_RDMA_KEYS_MAX ? n : PROTO_RDMA_KEYS_MAX);
    memcpy(ws->key, (const char *)payload + sizeof rtr, (size_t)ws->nkeys * sizeof ws->key[0]);
    ws->len = rtr.len < s->bytes ? (size_t)rtr.len : s->bytes;
    ws->started = 1;
    int usable = 0;
    rail_channel_t *ch = proto_chan(ws->world);
    for (int i = 0; i < ch->npaths; i++)
        usable += proto_rdma_usable(ws, ch, i);
    /* at least two writes per rail in the provider, or fewer larger ones */
    size_t chunk = ws->len / (size_t)(2 * (usable ? usable : 1));
    chunk = (chunk + 4095) / 4096 * 4096;
    if (chunk < PROTO_RDMA_CHUNK_MIN)
        chunk = PROTO_RDMA_CHUNK_MIN;
    if (chunk > PROTO_RDMA_CHUNK_MAX)
        chunk = PROTO_RDMA_CHUNK_MAX;
    ws->chunk = chunk;
    ws->nchunks = (int)((ws->len + chunk - 1) / chunk);
    ws->turn = (int)(s->id % (uint64_t)ch->npaths);
    if (!ws->nchunks || !(ws->state = calloc((size_t)ws->nchunks, 1)) ||
        !(ws->out_at = calloc((size_t)ws->nchunks, sizeof *ws->out_at)) ||
        !(ws->out_path = calloc((size_t)ws->nchunks, 1))) {
        ws->finished = 1; /* nothing to write into, or no memory: the copy path */
        s->done_bytes = 0;
        proto_rndv_stream(s);
        return;
    }
    ws->polling = 1;
    if (!proto_rdma_poll(ws) && proto_poll_add(proto_rdma_poll, ws) < 0) {
        rm_log_error("out of memory sending a message to rank %d; aborting", ws->world);
        abort();
    }
}

/* ---- receiver ---------------------------------------------------------- */

int proto_rdma_accept(request_t *r, size_t size)
{
    if (!dtype_is_contig(r->dt, r->count))
        return 0;
    rail_channel_t *ch = proto_chan(r->world_peer);
    size_t cap = (size_t)r->count * (size_t)r->dt->size, len = size < cap ? size : cap;
    if (!len)
        return 0;
    proto_rdma_recv_t *rd = calloc(1, sizeof *rd);
    if (!rd)
        return 0;
    struct {
        proto_rtr_t rtr;
        proto_rdma_key_t keys[PROTO_RDMA_KEYS_MAX];
    } m;
    void *dst = (char *)r->buf + r->dt->true_lb;
    for (int i = 0; i < ch->npaths && rd->n < PROTO_RDMA_KEYS_MAX; i++) {
        rail_path_t *p = &ch->paths[i];
        if (!proto_rdma_capable(p))
            continue;
        int dup = 0; /* one registration per rail */
        for (int k = 0; k < rd->n; k++)
            dup |= m.keys[k].rail == (uint32_t)p->rail;
        net_mr_t *mr;
        if (dup || p->ops->mr_reg(p->ifc, dst, len, 1, &mr) != RM_OK)
            continue;
        proto_rdma_key_t *k = &m.keys[rd->n];
        memset(k, 0, sizeof *k);
        k->rail = (uint32_t)p->rail;
        p->ops->mr_remote(mr, &k->key, &k->base, &k->inc);
        rd->ops[rd->n] = p->ops;
        rd->mr[rd->n++] = mr;
    }
    if (!rd->n) {
        free(rd);
        return 0;
    }
    r->rdma = rd;
    r->done_bytes = 0; /* counted only if the sender falls back to DATA chunks */
    m.rtr.len = len;
    m.rtr.n = (uint64_t)rd->n;
    proto_hdr_t h;
    proto_hdr_make(&h, PF_RTR, 0, 0, 0, 0, r->id, r->peer_id);
    rm_status_t st = rail_channel_send(ch, &h, sizeof h, &m, sizeof m.rtr + (size_t)rd->n * sizeof m.keys[0], 0,
                                       NULL, NULL);
    if (st < 0) {
        r->err = st;
        proto_request_complete(r);
    }
    return 1;
}

/* A WDONE waiting for its fences. */
typedef struct proto_rdma_fenced {
    int world;
    uint64_t rid;
    int flags, n;
    proto_fence_t f[RAIL_MAX_PATHS];
} proto_rdma_fenced_t;

/* Nonzero once every fence is in place. */
static int proto_rdma_fences(rail_channel_t *ch, const proto_fence_t *f, int n)
{
    int done = 1;
    for (int k = 0; k < n; k++)
        for (int i = 0; i < ch->npaths; i++) {
            rail_path_t *p = &ch->paths[i];
            if (p->rail == (int)f[k].rail && p->np && p->ops->path_fence && !p->ops->path_fence(p->np, f[k].inc))
                done = 0;
        }
    return done;
}

static int proto_rdma_fenced_poll(void *arg)
{
    proto_rdma_fenced_t *w = arg;
    rail_channel_t *ch = proto_chan(w->world);
    if (!proto_rdma_fences(ch, w->f, w->n))
        return 0;
    proto_rdma_wdone_finish(ch, w->rid, w->flags);
    free(w);
    return 1;
}

void proto_rdma_wdone_recv(rail_channel_t *ch, const proto_hdr_t *h, const void *payload, size_t len)
{
    proto_rdma_fenced_t w = {.world = rail_channel_peer(ch), .rid = h->id, .flags = h->flags};
    for (size_t off = 0; off + sizeof(proto_fence_t) <= len && w.n < RAIL_MAX_PATHS; off += sizeof(proto_fence_t))
        memcpy(&w.f[w.n++], (const char *)payload + off, sizeof w.f[0]);
    if (proto_rdma_fences(ch, w.f, w.n)) {
        proto_rdma_wdone_finish(ch, w.rid, w.flags);
        return;
    }
    proto_rdma_fenced_t *d = malloc(sizeof *d);
    if (d)
        *d = w;
    if (!d || proto_poll_add(proto_rdma_fenced_poll, d) < 0) {
        rm_log_error("out of memory completing a message from rank %d; aborting", w.world);
        abort();
    }
}

void proto_rdma_release(request_t *r)
{
    if (r->kind == REQ_SEND) {
        proto_rdma_send_t *ws = r->rdma;
        r->rdma = NULL;
        ws->s = NULL;
        if (!ws->polling)
            proto_rdma_send_free(ws); /* never started: nothing out */
        return;
    }
    /* from here on no write of the sender's lands in the receive buffer */
    proto_rdma_recv_t *rd = r->rdma;
    r->rdma = NULL;
    for (int i = 0; i < rd->n; i++)
        rd->ops[i]->mr_dereg(rd->mr[i]);
    free(rd);
}
