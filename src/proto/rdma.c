/* Rendezvous by remote reads over network rails that have them (the ofi
 * transport where the provider has FI_RMA): the sender registers its data
 * on each such rail and sends the keys with the RTS; the receiver, once the
 * message matched a contiguous receive, reads the data straight into the
 * receive buffer, in chunks striped over those rails, and answers FIN, on
 * which the send completes and its registrations go. No byte is copied on
 * either side, and the sender's process does nothing while it moves.
 *
 * Faults. A read whose path fails is read again on a surviving rail, once
 * per failure. The failed read may still land (the provider is not asked to
 * cancel it, and rxm over tcp could not): it writes the same bytes, since
 * the sender's buffer stays as it is until FIN, and the receive completes
 * and FIN goes only once the provider has handed back every read it was
 * given, so nothing writes into a completed receive. When no rail with
 * remote reads is usable and none of the receive's reads is out, the
 * receiver falls back to the copy path: it answers CTS and the sender
 * streams the whole message as DATA chunks (proto/flow.c). */
#include "proto/engine.h"
#include "util/clock.h"
#include "util/log.h"

#include <stdlib.h>
#include <string.h>

#define PROTO_RDMA_DEPTH 4                   /* reads per path in the provider */
#define PROTO_RDMA_CHUNK_MAX ((size_t)1 << 20)
#define PROTO_RDMA_CHUNK_MIN ((size_t)64 << 10)
/* after the channel failed for good: how long the reads still out may take
 * before the receive completes with the error anyway */
#define PROTO_RDMA_GIVEUP_NS 10000000000ull

/* Sender: the registrations of a send's data, one per rail offered. */
typedef struct proto_rdma_send {
    int n;
    const net_ops_t *ops[PROTO_RDMA_KEYS_MAX];
    net_mr_t *mr[PROTO_RDMA_KEYS_MAX];
} proto_rdma_send_t;

enum { CH_TODO, CH_OUT, CH_DONE };

/* Receiver: one message being read. */
typedef struct proto_rdma_recv {
    request_t *r;     /* NULL once completed (reads may still be out) */
    int world;
    uint64_t sid;
    char *dst;
    size_t len, msg;  /* bytes to read (the receive's capacity at most), message bytes */
    size_t chunk;
    int nchunks, next, ndone;
    uint8_t *state;
    int out;          /* reads the providers still hold, abandoned ones too */
    int nkeys;
    proto_rdma_key_t key[PROTO_RDMA_KEYS_MAX];
    /* the receive buffer's registration, per path of the channel */
    net_mr_t *lmr[RAIL_MAX_PATHS];
    int per_path[RAIL_MAX_PATHS];
    uint8_t bad[RAIL_MAX_PATHS]; /* the receive buffer cannot be registered there */
    int turn;
    uint64_t redone;
    uint64_t failed_at;
} proto_rdma_recv_t;

typedef struct proto_rdma_op {
    proto_rdma_recv_t *rd;
    int chunk, path;
    size_t len;
    int abandoned;
} proto_rdma_op_t;

/* ---- sender ------------------------------------------------------------ */

int proto_rdma_offer(request_t *s, rail_channel_t *ch, proto_rdma_key_t *keys)
{
    if (!proto_eng.rdma_min || s->bytes < proto_eng.rdma_min || s->world_peer >= proto_proc.world_size ||
        rail_channel_local_path(ch))
        return 0;
    proto_rdma_send_t *rs = calloc(1, sizeof *rs);
    if (!rs)
        return 0;
    for (int i = 0; i < ch->npaths && rs->n < PROTO_RDMA_KEYS_MAX; i++) {
        rail_path_t *p = &ch->paths[i];
        if (!p->ops->mr_reg || !p->ops->rma_read)
            continue;
        int dup = 0; /* one registration per interface */
        for (int k = 0; k < rs->n; k++)
            dup |= keys[k].rail == (uint32_t)p->rail;
        net_mr_t *mr;
        if (dup || p->ops->mr_reg(p->ifc, (void *)s->sdata, s->bytes, 1, &mr) != RM_OK)
            continue;
        proto_rdma_key_t *k = &keys[rs->n];
        memset(k, 0, sizeof *k);
        k->rail = (uint32_t)p->rail;
        p->ops->mr_remote(mr, &k->key, &k->base);
        rs->ops[rs->n] = p->ops;
        rs->mr[rs->n++] = mr;
    }
    if (!rs->n) {
        free(rs);
        return 0;
    }
    s->rdma = rs;
    return rs->n;
}

void proto_rdma_release(request_t *s)
{
    proto_rdma_send_t *rs = s->rdma;
    s->rdma = NULL;
    for (int i = 0; i < rs->n; i++)
        rs->ops[i]->mr_dereg(rs->mr[i]);
    free(rs);
}

/* ---- receiver ---------------------------------------------------------- */

static const proto_rdma_key_t *proto_rdma_key_of(const proto_rdma_recv_t *rd, int rail)
{
    for (int k = 0; k < rd->nkeys; k++)
        if (rd->key[k].rail == (uint32_t)rail)
            return &rd->key[k];
    return NULL;
}

static int proto_rdma_usable(const proto_rdma_recv_t *rd, const rail_channel_t *ch, int i)
{
    const rail_path_t *p = &ch->paths[i];
    return p->state == RAIL_PATH_UP && p->ops->rma_read && !rd->bad[i] && proto_rdma_key_of(rd, p->rail);
}

static void proto_rdma_read_done(void *arg, rm_status_t st, int over)
{
    proto_rdma_op_t *op = arg;
    proto_rdma_recv_t *rd = op->rd;
    if (!over) {
        /* the path went: read the chunk elsewhere, this read may still land */
        op->abandoned = 1;
        rd->per_path[op->path]--;
        if (rd->state[op->chunk] == CH_OUT) {
            rd->state[op->chunk] = CH_TODO;
            rd->redone++;
        }
        return;
    }
    if (!op->abandoned)
        rd->per_path[op->path]--;
    rd->out--;
    if (st == RM_OK) {
        proto_chan(rd->world)->paths[op->path].rma_bytes += op->len;
        if (rd->state[op->chunk] != CH_DONE) {
            rd->state[op->chunk] = CH_DONE;
            rd->ndone++;
        }
    } else if (!op->abandoned && rd->state[op->chunk] == CH_OUT) {
        rd->state[op->chunk] = CH_TODO;
        rd->redone++;
    }
    free(op);
}

/* The next chunk to read and a path for it; 0: none now. */
static int proto_rdma_issue(proto_rdma_recv_t *rd, rail_channel_t *ch)
{
    int issued = 0;
    for (int tries = 0; tries < rd->nchunks && rd->ndone < rd->nchunks;) {
        if (rd->state[rd->next] != CH_TODO) {
            rd->next = (rd->next + 1) % rd->nchunks;
            tries++;
            continue;
        }
        rail_path_t *p = NULL;
        int pi = -1;
        for (int j = 0; j < ch->npaths && !p; j++) {
            int i = (rd->turn + j) % ch->npaths;
            if (proto_rdma_usable(rd, ch, i) && rd->per_path[i] < PROTO_RDMA_DEPTH) {
                p = &ch->paths[i];
                pi = i;
            }
        }
        if (!p)
            return issued;
        if (!rd->lmr[pi] && p->ops->mr_reg(p->ifc, rd->dst, rd->len, 0, &rd->lmr[pi]) != RM_OK) {
            rd->lmr[pi] = NULL;
            rd->bad[pi] = 1;
            continue;
        }
        proto_rdma_op_t *op = calloc(1, sizeof *op);
        if (!op)
            return issued;
        int c = rd->next;
        size_t off = (size_t)c * rd->chunk, n = rd->len - off < rd->chunk ? rd->len - off : rd->chunk;
        const proto_rdma_key_t *k = proto_rdma_key_of(rd, p->rail);
        op->rd = rd;
        op->chunk = c;
        op->path = pi;
        op->len = n;
        rm_status_t st = p->ops->rma_read(p->np, rd->dst + off, rd->lmr[pi], n, k->base + off, k->key,
                                          proto_rdma_read_done, op);
        if (st != RM_OK) {
            free(op);
            /* full now, or broken (its failure reaches the rail layer on
             * its own): the next pass tries again */
            rd->turn = (pi + 1) % ch->npaths;
            if (st != RM_ERR_NO_RESOURCE || ++tries >= ch->npaths)
                return issued;
            continue;
        }
        rd->state[c] = CH_OUT;
        rd->out++;
        rd->per_path[pi]++;
        rd->turn = (pi + 1) % ch->npaths;
        rd->next = (c + 1) % rd->nchunks;
        issued++;
    }
    return issued;
}

static int proto_rdma_any_usable(const proto_rdma_recv_t *rd, rail_channel_t *ch)
{
    for (int i = 0; i < ch->npaths; i++)
        if (proto_rdma_usable(rd, ch, i))
            return 1;
    return 0;
}

static void proto_rdma_free(proto_rdma_recv_t *rd, rail_channel_t *ch)
{
    for (int i = 0; i < ch->npaths; i++)
        if (rd->lmr[i])
            ch->paths[i].ops->mr_dereg(rd->lmr[i]);
    free(rd->state);
    free(rd);
}

/* One pass (proto_poll_add): read what can be read; nonzero once the
 * record is gone. */
static int proto_rdma_poll(void *arg)
{
    proto_rdma_recv_t *rd = arg;
    rail_channel_t *ch = proto_chan(rd->world);
    request_t *r = rd->r;
    if (r && rail_channel_failure(ch)) {
        if (!rd->failed_at)
            rd->failed_at = rm_now();
        if (!rd->out || rm_now() - rd->failed_at > PROTO_RDMA_GIVEUP_NS) {
            rd->r = NULL;
            r->rdma = NULL;
            r->err = rail_channel_failure(ch);
            proto_request_complete(r);
            proto_request_release(r); /* the record's reference */
        }
    } else if (r && rd->ndone < rd->nchunks) {
        proto_rdma_issue(rd, ch);
        if (!rd->out && rd->ndone < rd->nchunks && !proto_rdma_any_usable(rd, ch)) {
            /* no rail to read over: the copy path, the whole message */
            rm_log_info("rdma: no rail with remote reads to rank %d; the rest of a %zu-byte message "
                        "comes as copies", rd->world, rd->msg);
            rd->r = NULL;
            r->rdma = NULL;
            r->done_bytes = 0;
            rm_status_t st = rail_channel_send(ch, &(proto_hdr_t){.type = PF_CTS, .size = r->id, .id = rd->sid},
                                               sizeof(proto_hdr_t), NULL, 0, 0, NULL, NULL);
            if (st < 0) {
                r->err = st;
                proto_request_complete(r);
            }
            proto_request_release(r);
        }
    } else if (r && !rd->out) {
        if (rd->redone)
            rm_log_debug("rdma: %zu bytes from rank %d read, %llu chunks again after a rail failure",
                         rd->msg, rd->world, (unsigned long long)rd->redone);
        rd->r = NULL;
        r->rdma = NULL;
        proto_hdr_t h = {.type = PF_FIN, .id = rd->sid};
        rail_channel_send(ch, &h, sizeof h, NULL, 0, 0, NULL, NULL);
        size_t cap = (size_t)r->count * (size_t)r->dt->size;
        r->recvd = rd->msg < cap ? rd->msg : cap;
        if (rd->msg > cap)
            r->err = RM_ERR_TRUNCATE;
        proto_request_complete(r);
        rail_channel_ack_soon(ch);
        proto_request_release(r);
    }
    if (rd->r || rd->out)
        return 0;
    proto_rdma_free(rd, ch);
    return 1;
}

int proto_rdma_pull(request_t *r, const void *keys, int nkeys, size_t size)
{
    if (nkeys <= 0 || !dtype_is_contig(r->dt, r->count))
        return 0;
    rail_channel_t *ch = proto_chan(r->world_peer);
    size_t cap = (size_t)r->count * (size_t)r->dt->size, len = size < cap ? size : cap;
    proto_rdma_recv_t *rd = calloc(1, sizeof *rd);
    if (!rd)
        return 0;
    rd->nkeys = nkeys < PROTO_RDMA_KEYS_MAX ? nkeys : PROTO_RDMA_KEYS_MAX;
    memcpy(rd->key, keys, (size_t)rd->nkeys * sizeof rd->key[0]);
    int usable = 0;
    for (int i = 0; i < ch->npaths; i++)
        usable += proto_rdma_usable(rd, ch, i);
    if (!usable || !len) {
        free(rd);
        return 0;
    }
    /* at least two reads per rail in the provider, or fewer larger ones */
    size_t chunk = len / (size_t)(2 * usable);
    chunk = (chunk + 4095) / 4096 * 4096;
    if (chunk < PROTO_RDMA_CHUNK_MIN)
        chunk = PROTO_RDMA_CHUNK_MIN;
    if (chunk > PROTO_RDMA_CHUNK_MAX)
        chunk = PROTO_RDMA_CHUNK_MAX;
    rd->chunk = chunk;
    rd->nchunks = (int)((len + chunk - 1) / chunk);
    if (!(rd->state = calloc((size_t)rd->nchunks, 1))) {
        free(rd);
        return 0;
    }
    rd->r = r;
    rd->world = r->world_peer;
    rd->sid = r->peer_id;
    rd->dst = (char *)r->buf + r->dt->true_lb;
    rd->len = len;
    rd->msg = size;
    rd->turn = (int)(r->id % (uint64_t)ch->npaths);
    r->rdma = rd;
    r->refs++; /* the record's, until it completes the receive */
    if (proto_rdma_poll(rd))
        return 1;
    if (proto_poll_add(proto_rdma_poll, rd) < 0) {
        rm_log_error("out of memory receiving a message from rank %d; aborting", rd->world);
        abort();
    }
    return 1;
}
