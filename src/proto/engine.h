/* State shared by the point-to-point engine's files. */
#ifndef RM_PROTO_ENGINE_H
#define RM_PROTO_ENGINE_H

#include "net/net.h"
#include "proto/match.h"
#include "proto/proto.h"
#include "proto/wire.h"
#include "rail/channel.h"

#define PROTO_MAX_IFACES 8

typedef struct proto_iface {
    const net_ops_t *ops;
    net_iface_t *ifc;
    const int *work; /* transport's work hint, NULL: always poll */
} proto_iface_t;

/* A rendezvous window being received (src/proto/flow.c): the PF_RDATA
 * chunks of one message, by the sender's request id. Staged while no
 * receive has been matched to the message (or once staging began), else
 * placed straight into the receive. */
typedef struct proto_early {
    struct proto_early *next;
    uint64_t sid;
    size_t win, got;
    unsigned char *stage;
    request_t *r; /* the matched receive, NULL while the message is unexpected */
} proto_early_t;

/* Flow control with one peer (src/proto/flow.c). What a sender sends ahead
 * of the receiver's receives (eager messages, rendezvous windows) costs
 * credit; the receiver reports what it consumed, cumulatively. */
typedef struct proto_peer {
    uint64_t sent;     /* as sender: credit spent, cumulative */
    uint64_t granted;  /* as sender: credit the peer reported consumed */
    uint64_t consumed; /* as receiver: credit consumed, cumulative */
    uint64_t reported; /* as receiver: what we last told the peer */
    size_t tail_out;   /* as sender: bytes of copied message ends not yet acknowledged */
    uint64_t wait_failed; /* as sender: granted + 1 when a credit wait last ran out (0: never) */
    uint64_t short_windows; /* as sender: rendezvous sent with less than their window (MPI_T) */
    proto_early_t *early;
} proto_peer_t;

typedef struct proto_engine {
    match_state_t mq;
    rail_channel_t *ch; /* one per world rank */
    rail_channel_t **xch; /* processes of other jobs: index world_size + i */
    int nx, xcap;
    char (*xsecret)[56]; /* and each one's job secret and rank there */
    int *xrank;
    net_env_t env;      /* what the transports were opened with */
    int secret_shared;  /* job_secret is the job's (else drawn by this process) */
    proto_iface_t ifaces[PROTO_MAX_IFACES];
    int nifaces;
    int nrails;         /* network rails opened (TCP interfaces) */
    size_t eager_max;   /* largest eager payload */
    size_t chunk;       /* rendezvous pipeline chunk (shared memory) */
    size_t net_chunk;   /* rendezvous chunk over network rails */
    size_t stripe_min;  /* messages from this size on are striped over rails */
    size_t peer_buffer; /* credit per peer (RAILMPI_PEER_BUFFER), 0: unlimited */
    size_t rndv_window; /* bytes of a network rendezvous sent with its RTS */
    uint64_t credit_wait; /* ns a blocking send waits for a full window's credit */
    size_t rdma_min;    /* rendezvous by remote writes from this size on, 0: never */
    proto_peer_t *peer; /* one per world rank */
    int cma;            /* single-copy reads allowed: 1 yes, 0 no */
    int cma_required;   /* RAILMPI_SHM_CMA=on: refusal is an error */
    int spin_count;
    uint64_t spin_ticks; /* RAILMPI_SPIN_TIME_US in rm_ticks, 0: none */
    int idle_clock;     /* idle passes between clock reads of a timed spin (a power of two) */
    int catchup_relax;  /* RAILMPI_POLL_BACKOFF_NS as rm_cpu_relax() calls, 0: none */
    char job_id[128];
    char job_secret[56]; /* the TCP handshake's; fits tcp_hello_t's field */
} proto_engine_t;

extern proto_engine_t proto_eng;

static inline void proto_hdr_make(proto_hdr_t *h, int type, int flags, int src, int tag,
                                  uint32_t ctx, uint64_t size, uint64_t id)
{
    h->type = (uint8_t)type;
    h->flags = (uint8_t)flags;
    h->rsvd = 0;
    h->src = src;
    h->tag = tag;
    h->ctx = ctx;
    h->size = size;
    h->id = id;
}

/* The channel to a process index (a world rank, or past the world). */
static inline rail_channel_t *proto_chan(int idx)
{
    return idx < proto_proc.world_size ? &proto_eng.ch[idx] : proto_eng.xch[idx - proto_proc.world_size];
}

void proto_deliver(rail_channel_t *ch, const void *upper, const void *payload, size_t len);
/* A PF_DEAD frame arrived (ft_detect.c). */
void proto_ft_detect_heard(rail_channel_t *ch, const proto_hdr_t *h);
/* A PF_REVOKE frame arrived (ft.c). */
void proto_ft_revoke_recv(rail_channel_t *ch, const proto_hdr_t *h);
/* PF_AGREE_Q and PF_AGREE_R frames arrived (ft.c). */
void proto_ft_agree_query_recv(rail_channel_t *ch, const proto_hdr_t *h);
void proto_ft_agree_answer_recv(rail_channel_t *ch, const proto_hdr_t *h, const void *payload, size_t len);
void proto_peer_failed(rail_channel_t *ch, rm_status_t why);
void *proto_data_locate(rail_channel_t *ch, const void *upper, size_t len);

/* Send cancellation (cancel.c): the receiver's side of PF_CANCEL_REQ, the
 * sender's of PF_CANCEL_ACK, and the end of a cancel whose answer will not
 * come (the peer is lost: `err` < 0). */
void proto_cancel_req_recv(rail_channel_t *ch, const proto_hdr_t *h);
void proto_cancel_ack_recv(const proto_hdr_t *h);
void proto_cancel_settle(request_t *r, int withdrawn, rm_status_t err);
/* A PF_AM frame arrived (am.c). */
void proto_am_recv(rail_channel_t *ch, const void *payload, size_t len);
void proto_am_data_recv(rail_channel_t *ch, const void *upper, const void *payload, size_t len);
void *proto_am_data_locate(rail_channel_t *ch, const void *upper, size_t len);

/* ---- flow control and rendezvous windows (flow.c) ---- */
/* What a message of `len` bytes held by the receiver costs: its bytes and
 * the bookkeeping around them, or the block an unexpected message takes
 * from match.c's size classes where that is more (a payload just past a
 * power of two: up to twice its bytes). */
#define PROTO_CREDIT_OVERHEAD 256
static inline size_t proto_credit_cost(size_t len)
{
    size_t held = match_unexp_bytes(len);
    return held > len + PROTO_CREDIT_OVERHEAD ? held : len + PROTO_CREDIT_OVERHEAD;
}
rm_status_t proto_flow_init(int world_size);
void proto_flow_destroy(void);
/* Peers that keep no credit account: oneself, processes of other jobs
 * (past the world: the per-peer state is sized by the world), and all of
 * them when flow control is off. */
static inline int proto_flow_exempt(int world)
{
    return !proto_eng.peer_buffer || world == proto_proc.world_rank || world >= proto_proc.world_size;
}
/* Credit the sender may still spend on `world` (SIZE_MAX: no limit). */
static inline size_t proto_credit_avail(int world)
{
    if (proto_flow_exempt(world))
        return SIZE_MAX;
    uint64_t used = proto_eng.peer[world].sent - proto_eng.peer[world].granted;
    return used >= proto_eng.peer_buffer ? 0 : proto_eng.peer_buffer - (size_t)used;
}
/* Spend `cost` if available: 1, else 0 (the message then goes by rendezvous
 * and waits for the receive). Inline: every eager send asks. */
static inline int proto_credit_take(int world, size_t cost)
{
    if (proto_flow_exempt(world))
        return 1;
    if (proto_credit_avail(world) < cost)
        return 0;
    proto_eng.peer[world].sent += cost;
    return 1;
}
/* The receiver consumed `cost` of what `world` sent ahead; it reports once
 * an eighth of the buffer more has been (proto_credit_report). */
void proto_credit_report(int world);
static inline void proto_credit_consumed(int world, size_t cost)
{
    if (proto_flow_exempt(world))
        return;
    proto_peer_t *p = &proto_eng.peer[world];
    p->consumed += cost;
    if (p->consumed - p->reported >= proto_eng.peer_buffer / 8)
        proto_credit_report(world);
}
void proto_credit_granted(int world, uint64_t consumed);
/* Receiver side of PF_RDATA: where a chunk lands, and its arrival. */
void *proto_early_locate(int world, const proto_hdr_t *h, size_t len);
void proto_early_deliver(int world, const proto_hdr_t *h, const void *payload, size_t len);
/* A receive matched a message whose first `win` bytes come as PF_RDATA:
 * takes what has arrived; returns the bytes placed in r so far. */
size_t proto_early_attach(int world, uint64_t sid, size_t win, request_t *r);
/* Drop a message's window (its send was withdrawn, or the peer is lost). */
void proto_early_drop(int world, uint64_t sid);
void proto_early_drop_all(int world);
/* Sender side of the pipelined rendezvous (flow.c): queue bytes [from, to)
 * as DATA (after the CTS) or RDATA (the window) chunks, those from copy_at on
 * from a copy; the window to send with an RTS; where a send's copied end
 * begins; the rest of a message once its CTS came. */
void proto_rndv_range(request_t *s, int type, size_t from, size_t to, size_t copy_at);
size_t proto_rndv_window(request_t *r, rail_channel_t *ch);
void proto_credit_await(int world, size_t bytes);
size_t proto_rndv_copy_at(request_t *s, rail_channel_t *ch);
void proto_rndv_stream(request_t *s);
/* Rendezvous by remote writes (rdma.c). proto_rdma_offer: the send may go
 * by remote writes on this channel (its RTS says so); proto_rdma_rtr: the
 * receiver's RTR came, write. proto_rdma_accept: a receive matched such a
 * message: register it and answer RTR; 0: not possible here (the caller
 * answers CTS). proto_rdma_release: the request completed (or goes). */
int proto_rdma_offer(request_t *s, rail_channel_t *ch);
/* A send of `bytes` to `world` would go by remote writes (no window). */
int proto_rdma_possible(int world, size_t bytes);
void proto_rdma_rtr(request_t *s, const void *payload, size_t len);
int proto_rdma_accept(request_t *r, size_t size);
void proto_rdma_release(request_t *r);
/* The operation of a request: buffer, datatype and communicator (both
 * referenced), peer, tag, context. Inline: it is on every MPI_Isend's and
 * MPI_Irecv's path (out of line it cost 26 instructions a call more). */
static inline void proto_request_setup(request_t *r, void *buf, MPI_Count count, dtype_t *dt, int peer,
                                       int tag, comm_t *comm, uint32_t ctx)
{
    r->buf = buf;
    r->count = count;
    r->dt = dt;
    if (!dt->builtin)
        dtype_addref(dt);
    r->comm = comm;
    comm->refcount++;
    r->peer = peer;
    r->tag = tag;
    r->ctx = ctx;
}
/* Start a cycle of a partitioned request (proto_start for REQ_PSEND/PRECV). */
rm_status_t proto_part_start(request_t *r);
/* WDONE: its fences (proto_fence_t, net_ops_t.path_fence) first, then
 * proto_rdma_wdone_finish (proto/p2p.c) completes the receive or answers
 * CTS (PFF_COPY). */
void proto_rdma_wdone_recv(rail_channel_t *ch, const proto_hdr_t *h, const void *payload, size_t len);
void proto_rdma_wdone_finish(rail_channel_t *ch, uint64_t rid, int flags);
/* A receive got all of its bytes (proto/p2p.c). */
void proto_recv_done(request_t *r);

#endif
