/* The per-peer channel: one ordered, exactly-once stream of frames between
 * two ranks over one or more paths. Every sequenced frame carries a 64-bit
 * sequence number; the receiver delivers in sequence order through an
 * out-of-order queue and drops duplicates. Acknowledgements are cumulative
 * and piggybacked; frames sent on a path that can lose them (no
 * NET_CAP_RELIABLE) are kept until acknowledged, so a failed path's frames
 * are sent again on the survivors. Path health (heartbeats, failure,
 * recovery, partitions) is src/rail/health.c. */
#ifndef RM_RAIL_CHANNEL_H
#define RM_RAIL_CHANNEL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "net/net.h"
#include "rail/sched.h"
#include "util/status.h"

/* CONNECTING -> UP <-> SUSPECT -> DOWN -> RECOVERING -> ARMED -> UP
 * (DESIGN.md). Only UP paths carry new data; ARMED paths are connected and
 * probed but held back: a recovering path until its probe is answered, a
 * standby under the failover policy, a rail migrated off by request. */
enum rail_path_state {
    RAIL_PATH_CONNECTING = 0,
    RAIL_PATH_UP,
    RAIL_PATH_SUSPECT,
    RAIL_PATH_DOWN,
    RAIL_PATH_RECOVERING,
    RAIL_PATH_ARMED,
};

#define RAIL_MAX_PATHS 8

/* Health ticks without ack progress (no path suspect) before everything kept
 * is sent again: a path timeout. */
#define RAIL_ACK_STALL_TICKS 12

/* Send times remembered per path, for round trips from delivery reports. */
#define RAIL_SENT_RING 16

typedef struct rail_path {
    const net_ops_t *ops;
    net_iface_t *ifc;
    net_path_t *np;
    int rail;
    int state;
    unsigned caps;
    int standby;           /* held ARMED while another path carries traffic */
    int migrated;          /* moved off by request (MPIX_Rail_migrate) */
    int probed;            /* ARMED: our probe was answered */
    int gated;             /* DOWN with its host's rail: reconnects when the host's turn comes */
    int peer_closed;       /* its connection was ended from the peer's side (EOF, reset), not by
                            * silence; until it is connected again (rail_channel_peer_gone) */
    /* health: progress counters sampled by the health tick */
    uint64_t rx_seen, frames_seen;
    uint64_t last_rx;      /* ns: last time the path showed life */
    uint64_t down_since;   /* ns: when it failed */
    uint64_t retry_at, backoff; /* ns: next reconnection attempt, current backoff */
    /* counters (RAILMPI_STATS, MPI_T performance variables) */
    uint64_t frames, bytes, resent, failures, downtime;
    uint64_t rx_frames, rx_bytes; /* sequenced and unsequenced frames received */
    uint64_t recoveries;   /* came back after a failure (probe answered) */
    uint64_t suspects;     /* turned suspect: heartbeats missed for half the timeout */
    /* zero-copy receive: the frame being received in place on this path */
    uint64_t zc_seq;
    const void *zc_at;
    uint64_t zc_bytes;     /* payload bytes received straight into place */
    uint64_t unplaced;     /* places withdrawn: a copy of the frame came first by another path */
    uint64_t rma_bytes;    /* bytes written into the peer's memory over this path (proto/rdma.c) */
    int rma_out;           /* remote writes of any message in the provider on this path, abandoned ones not counted */
    double rma_nspb;       /* ns per byte a write took here, issue to completion (smoothed; 0: none yet) */
    uint64_t rma_slow_until; /* ns: its writes were given up as too slow: no new ones before then */
    uint64_t rma_backoff;  /* ns: the next such pause (doubles while it repeats) */
    uint64_t addr_sent_at; /* ns: this side's renewed address last went over another path (NET_F_ADDR) */
    /* path repository: what the transport measured (0 until it has; see
     * rail_path_measure); the adaptive policy schedules by these */
    double bw;             /* bytes per second, smoothed */
    double rtt;            /* seconds */
    int proven;            /* bw was measured while the path was busy, not only as a floor */
    /* Delivery reports, for a path whose transport measures no round trip
     * (no NET_CAP_MEASURED; rail/report.c): the receiver tells which frames
     * each path brought, the sender measures the path from that. */
    int reports;           /* this path is measured by reports (set when it is added) */
    uint64_t rx_hi;        /* receiver: highest sequence number that came by this path */
    uint64_t rx_hi_at;     /* receiver: ns, when it came */
    uint64_t rx_hi_told;   /* receiver: rx_hi in the last report */
    size_t kept;           /* sender: bytes of kept frames that went out on this path */
    size_t kept_dlv;       /* of those, reported delivered (not yet acknowledged) */
    uint64_t dlv_bytes;    /* sender: bytes known delivered, reported or acknowledged */
    uint64_t dlv_seen;     /* dlv_bytes at the last measure */
    size_t inflight_seen;  /* kept - kept_dlv at the last measure */
    uint64_t measured_at;  /* ns: the last measure */
    uint64_t rtt_win[2];   /* ns: least round trip sampled this window and the last (0: none) */
    int rtt_ticks;         /* measures in the current window */
    uint64_t rtt_probe_at; /* ns: a probe went out for a round trip (no frame gave one) */
    uint64_t net_probe_at; /* ns: a probe went out to ask the silent peer's network (rail_path_net_answers) */
    net_acks_t net_acks;   /* the transport's net_acks when it did */
    int net_kept;          /* silent past the timeout, kept because the peer's network answers */
    uint64_t dlv_hi;       /* sender: highest sequence number reported delivered */
    unsigned reports_in, reports_seen; /* sender: the channel's reports taken in, all in all / at the last measure */
    uint64_t slow_hi;      /* sender: frames up to here were taken off as too slow or stalled;
                            * no new chunks until the peer reports or acknowledges them
                            * (rail_channel_reroute, rail_channel_resend_all) */
    struct {
        uint64_t seq, at;
    } sent_ring[RAIL_SENT_RING]; /* recent kept frames' send times, for round trips */
    unsigned sent_next;
} rail_path_t;

/* Called once a frame's memory is no longer needed by the channel: RM_OK
 * when it was delivered (acknowledged, or handed to a reliable path), an
 * error when the channel failed for good. */
typedef void (*rail_sent_fn)(void *arg, rm_status_t st);

/* A frame kept by the channel: waiting for room on a path, or sent on a
 * lossy path and not yet acknowledged. */
typedef struct rail_frame {
    struct rail_frame *next;
    net_frame_hdr_t hdr;
    unsigned char upper[NET_UPPER_MAX];
    const void *payload;   /* caller's memory (referenced) or `copy` */
    int copied;            /* payload is `copy`, allocated with the frame */
    int delivered;         /* ooo: an unordered frame already handed up */
    int path;              /* unacked: the path it went out on, -1 = to be sent again */
    int pooled;            /* its size class in the frame pool (channel.c) */
    int reported;          /* unacked: the peer reported it delivered (path->kept_dlv) */
    uint64_t sent_at;      /* unacked: ns, when it went out on a path measured by reports */
    rail_sent_fn sent;
    void *arg;
    unsigned char copy[];  /* the payload's copy, when the frame keeps one */
} rail_frame_t;

typedef struct rail_frame_q {
    rail_frame_t *head, *tail;
    size_t n;
} rail_frame_q_t;

typedef struct rail_channel {
    int peer;              /* process index: world rank, or past the world (another job) */
    /* Who reconnects a lost path: 0 by world rank (the higher one), else
     * agreed when the peer of another job was added: 1 we do, -1 it does */
    int order;
    uint64_t send_seq;     /* last sequence number assigned */
    uint64_t recv_next;    /* next sequence number to deliver */
    uint64_t acked;        /* everything <= acked was received by the peer */
    uint64_t ack_sent;     /* last cumulative ack we told the peer */
    int npaths;
    rail_path_t paths[RAIL_MAX_PATHS];
    uint64_t turn;         /* frames/chunks scheduled (round-robin, even striping) */
    double wrr[RAIL_MAX_PATHS]; /* weighted striping state */
    rail_frame_q_t pending;  /* not yet handed to a transport, in order */
    rail_frame_q_t unacked;  /* sent on a lossy path, awaiting ack, in sequence order */
    rail_frame_q_t ooo;      /* received ahead of recv_next, sorted by seq */
    int lossy;             /* some path may lose frames: acks and health checks run */
    int keep;              /* lossy and fault tolerant: frames are kept until acked */
    int ack_owed;          /* delivered frames not yet acknowledged to the peer */
    uint64_t rx_seq;       /* the sequenced frame being handed up */
    uint64_t ack_urgent;   /* acknowledge alone once everything up to this has arrived */
    int resend;            /* some unacked frame waits to be sent again */
    int on_flush_list;
    struct rail_channel *flush_next;
    struct rail_channel *net_next; /* the health tick's list of lossy channels */
    /* whole-channel state */
    int closing;           /* the peer said goodbye: its paths ending is no failure */
    int bye;               /* the goodbye itself came (closing may also come from an EOF) */
    rm_status_t failed;    /* < 0: failed for good; sends are refused */
    int fail_reported;     /* the layer above has been told */
    int lost_reported;     /* past the partition timeout, handed to rail_set_lost's hook */
    uint64_t partitioned_since; /* ns, 0 = some path is usable */
    uint64_t partitioned_ns;    /* partitions that ended, in all */
    uint64_t acked_seen;   /* health tick: acked at the last tick */
    uint64_t recv_seen;    /* health tick: recv_next at the last tick */
    int ack_stall;         /* ticks with frames kept and no ack progress */
    uint64_t dups_dropped, ooo_queued;
} rail_channel_t;

/* Delivery of in-order frames to the layer above. */
typedef void (*rail_deliver_fn)(rail_channel_t *ch, const void *upper, const void *payload,
                                size_t len);
/* The channel failed for good (partition timeout, or a path failure with
 * fault tolerance off): the layer above fails what waits on the peer. */
typedef void (*rail_failed_fn)(rail_channel_t *ch, rm_status_t why);

void rail_set_deliver(rail_deliver_fn fn);
void rail_set_failed(rail_failed_fn fn);
/* A channel reached the partition timeout (src/rail/health.c): the hook
 * (process fault tolerance) returns 1 when someone else decides the
 * peer's fate (the channel stays as it is, to be failed from above), 0 to
 * have the channel fail with RM_ERR_UNREACHABLE as without it. */
typedef int (*rail_lost_fn)(rail_channel_t *ch);
void rail_set_lost(rail_lost_fn fn);
/* The scheduling policy for every channel; weights by rail index (NULL:
 * equal); `ft` turns retransmission and recovery on. */
void rail_configure(rail_policy_t policy, int local_rank, const double *weights, int nweights,
                    int ft);
/* Change the policy while the job runs; RM_ERR_UNSUPPORTED into or out of
 * failover. */
rm_status_t rail_set_policy(rail_policy_t policy);

/* Where the layer above wants the `len`-byte payload of a frame it will be
 * handed (its upper header is `upper`), or NULL to have it staged. See
 * net_upcalls_t.place for what a non-NULL answer commits both sides to. */
typedef void *(*rail_place_fn)(rail_channel_t *ch, const void *upper, size_t len);

void rail_set_place(rail_place_fn fn);

void rail_channel_init(rail_channel_t *ch, int peer);

/* What the layers above may read of a channel. */
static inline int rail_channel_peer(const rail_channel_t *ch) { return ch->peer; }
/* 0, or why the channel failed for good (its operations fail with it) */
static inline rm_status_t rail_channel_failure(const rail_channel_t *ch) { return ch->failed; }
/* the peer said goodbye (it is finishing) */
static inline int rail_channel_closing(const rail_channel_t *ch) { return ch->closing; }
void rail_channel_destroy(rail_channel_t *ch);
rm_status_t rail_channel_add_path(rail_channel_t *ch, const net_ops_t *ops, net_iface_t *ifc,
                                  net_path_t *np, int rail);

/* Send one sequenced frame. RM_OK: done with the caller's memory (handed
 * to a transport, or copied), and `sent` is NOT called. RM_INPROGRESS: the
 * channel references `payload` until it calls `sent(arg, status)` from
 * progress — after the peer acknowledged it on a lossy path. With `sent`
 * NULL the channel copies whatever it must keep, so small control frames
 * can live on the caller's stack. Negative: the channel has failed. */
rm_status_t rail_channel_send(rail_channel_t *ch, const void *upper, uint16_t hlen,
                              const void *payload, size_t len, uint16_t flags, rail_sent_fn sent,
                              void *arg);

/* Upcalls from a transport (net_upcalls_t); `owner` is the channel. */
void rail_channel_recv(void *owner, int rail, const net_frame_hdr_t *hdr, const void *upper,
                       const void *payload);
/* Upcall from a transport (net_upcalls_t.place): answered only for frames
 * the channel will hand up on arrival, i.e. unordered data chunks that are
 * not duplicates, on a path that is UP; the layer above decides the rest. */
void *rail_channel_place(void *owner, int rail, const net_frame_hdr_t *hdr, const void *upper);
/* Upcall from a transport (net_upcalls_t.error). */
void rail_channel_error(void *owner, int rail, rm_status_t why);
void rail_channel_up(void *owner, int rail);

/* Acknowledge alone when this many frames arrived with no reverse traffic. */
#define RAIL_ACK_EVERY 32

/* Retry frames waiting for room and, with `acks`, send an owed ack alone;
 * returns frames handed over. */
int rail_channel_flush(rail_channel_t *ch, int acks);
/* Flush every channel that has pending frames or owes an ack; the check is
 * inline because progress calls it on every pass. Ack-only frames go only
 * when `acks` is set: progress sets it on a pass that found nothing else to
 * do, so a rank that answers at once (ping-pong) piggybacks the ack on its
 * answer instead of paying a second frame and syscall per message. */
extern rail_channel_t *rail_flush_list;
int rail_flush_pending(int acks);
static inline int rail_flush_all(int acks)
{
    return rail_flush_list ? rail_flush_pending(acks) : 0;
}

/* Acknowledge what has arrived at once, not with the next frame back: the
 * layer above completed something the peer waits on (it is acked as soon as
 * every frame before it has arrived too). */
static inline void rail_channel_ack_soon(rail_channel_t *ch)
{
    uint64_t upto = ch->rx_seq > ch->recv_next - 1 ? ch->rx_seq : ch->recv_next - 1;
    if (ch->lossy && upto > ch->ack_urgent)
        ch->ack_urgent = upto;
}

/* Frames on this channel are kept until the peer acknowledges them: a
 * sender that passes a callback completes only then, so small messages are
 * better sent without one (copied, complete at once). */
static inline int rail_channel_keeps(const rail_channel_t *ch)
{
    return ch->keep;
}

/* Nothing of ours still waits on this channel: no queued or unacknowledged
 * frame, no ack owed (a failed channel has nothing left to wait for). */
int rail_channel_idle(const rail_channel_t *ch);
/* Tell the peer we are closing, on every connected lossy path. */
void rail_channel_bye(rail_channel_t *ch);

/* Time the channel has spent partitioned, the current partition included. */
static inline uint64_t rail_channel_partitioned_ns(const rail_channel_t *ch, uint64_t now)
{
    return ch->partitioned_ns + (ch->partitioned_since ? now - ch->partitioned_since : 0);
}
/* Time a path has spent failed, the current failure included. */
static inline uint64_t rail_path_down_ns(const rail_path_t *p, uint64_t now)
{
    return p->downtime + (p->down_since ? now - p->down_since : 0);
}

/* Whether the peer's process is gone, as far as its connections and its
 * transports tell (process fault tolerance without a launcher that reports
 * deaths; health.c): over shared memory its process has exited; over the
 * network no path is usable, at least one was ended from the peer's side,
 * and the peer's listener on such a rail refuses a new connection. A rail
 * failure, a flapping rail or a partition never gives 1: they end no
 * connection from the peer's side, or its host does not answer, or
 * something still listens. 0 as well for a peer that said goodbye.
 * `waited`: the layer above waits on the peer (a pending receive from it or
 * send to it); a peer never heard from is then asked too (its listener), as
 * no connection of ours can end. */
int rail_channel_peer_gone(rail_channel_t *ch, int waited);

/* The channel's path with NET_CAP_LOCAL, for single-copy reads, or NULL. */
rail_path_t *rail_channel_local_path(rail_channel_t *ch);

/* ---- internal to src/rail (channel.c <-> health.c) ---- */
extern int rail_ft;
extern rail_policy_t rail_policy;
extern rail_channel_t *rail_net_list;
/* A probe or its answer arrived on a rail: a sign of life from the peer's
 * host, shared with every rank of this host at once (health.c). */
void rail_health_heard(rail_channel_t *ch, int rail);
/* Emit an unsequenced frame (ack, probe) on one path. */
rm_status_t rail_path_emit_ctl(rail_channel_t *ch, rail_path_t *p, uint16_t flags);
/* A path failed (transport error or heartbeat timeout): mark it DOWN and
 * send its unacknowledged frames again on the survivors. */
void rail_path_down(rail_channel_t *ch, rail_path_t *p, rm_status_t why, const char *detail);
/* Fail the channel for good: every kept frame's sender hears `why`. */
void rail_channel_fail(rail_channel_t *ch, rm_status_t why);
/* A usable path for traffic exists (or will, for the failover standby). */
int rail_channel_usable(const rail_channel_t *ch);
/* Promote a standby when no path carries traffic (failover policy). */
void rail_channel_promote(rail_channel_t *ch);
/* A path too slow for its backlog: its kept frames not reported delivered
 * are sent again on the other paths, and it takes no new chunks until
 * those it carries have arrived; returns how many. */
int rail_channel_reroute(rail_channel_t *ch, rail_path_t *p);
/* Every kept frame is to be sent again (acks stalled); the path the oldest
 * went out on is held back as slow (rail_channel_reroute); returns how many. */
int rail_channel_resend_all(rail_channel_t *ch);
/* One entry of a delivery report (NET_F_REPORT's payload): the highest
 * sequence number that came by a rail, and how long ago. */
typedef struct rail_report {
    uint32_t rail;
    uint32_t age_us;
    uint64_t hi;
} rail_report_t;

/* The health tick's delivery report to the peer (paths measured by reports
 * that brought frames since the last one); a report from it (report.c). */
void rail_channel_report_out(rail_channel_t *ch);
void rail_channel_report_in(rail_channel_t *ch, const void *payload, size_t len);
/* channel.c's, for report.c: the path of a rail; the path an unsequenced
 * frame of `len` bytes goes on (-1: none); sending one there */
rail_path_t *rail_path_of(rail_channel_t *ch, int rail);
int rail_channel_pick_for(rail_channel_t *ch, uint16_t flags, size_t len);
rm_status_t rail_path_emit(rail_channel_t *ch, rail_path_t *p, net_frame_hdr_t *hdr, const void *upper,
                           const void *payload);
/* A renewed endpoint's address over another path (NET_F_ADDR), for each
 * path whose transport says the peer may not know it and that is not up:
 * once per health tick, at most every 100 ms per path. */
void rail_channel_addr_out(rail_channel_t *ch);
/* Such an address from the peer, for its path's transport (report.c). */
void rail_channel_addr_in(rail_channel_t *ch, const void *payload, size_t len);
/* The path and peer events a tool can follow (MPI_T events, src/mpit/event.c):
 * what happened, and why. */
typedef enum {
    RAIL_EV_SUSPECT,     /* nothing heard for half the path timeout */
    RAIL_EV_FAILED,      /* the path failed; its traffic moved to the other rails */
    RAIL_EV_UP,          /* a suspect, failed or migrated-off path carries traffic again */
    RAIL_EV_MIGRATED,    /* traffic moved off this rail by request, or onto it as the last resort */
    RAIL_EV_PARTITIONED, /* no rail reaches the peer (rail -1) */
    RAIL_EV_RESUMED,     /* a rail reaches the peer again after a partition (rail -1) */
    RAIL_EV_KINDS
} rail_ev_kind_t;
typedef enum {
    RAIL_WHY_SILENCE,  /* nothing received from the peer on the path */
    RAIL_WHY_ERROR,    /* the transport reported an error (connection reset, link down) */
    RAIL_WHY_REQUEST,  /* MPIX_Rail_migrate or mpiexec -migrate */
    RAIL_WHY_PROBED,   /* reconnected, and the peer answered a probe */
    RAIL_WHY_ANSWERED, /* a suspect path was heard from again */
    RAIL_WHY_FAILOVER, /* a standby or migrated-off rail took over: no other rail was usable */
    RAIL_WHY_NO_RAIL,  /* every path to the peer is down */
    RAIL_WHY_RAIL_BACK,/* a path to the peer is up again */
    RAIL_WHY_COUNT
} rail_ev_why_t;
/* Called under the global lock from whichever thread runs the engine. */
typedef void (*rail_notify_fn)(int kind, int peer, int rail, int why);
void rail_set_notify(rail_notify_fn fn);
/* p NULL: an event of the peer, not of one rail. */
void rail_notify(const rail_channel_t *ch, const rail_path_t *p, int kind, int why);

/* One line per path event at RAILMPI_VERBOSE >= 1. */
void rail_event(const rail_channel_t *ch, const rail_path_t *p, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
