/* The per-peer channel: one ordered, exactly-once stream of frames between
 * two ranks over one or more paths. Every sequenced frame carries a 64-bit
 * sequence number; the receiver delivers in sequence order through an
 * out-of-order queue and drops duplicates. Acknowledgements are cumulative
 * and piggybacked; frames sent on a path that can lose them (no
 * NET_CAP_RELIABLE) are kept until acknowledged so a failed path can hand
 * them to the survivors. */
#ifndef RM_RAIL_CHANNEL_H
#define RM_RAIL_CHANNEL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "net/net.h"
#include "rail/sched.h"
#include "util/status.h"

enum rail_path_state {
    RAIL_PATH_CONNECTING = 0,
    RAIL_PATH_UP,
    RAIL_PATH_SUSPECT,
    RAIL_PATH_DOWN,
    RAIL_PATH_RECOVERING,
    RAIL_PATH_ARMED,
};

#define RAIL_MAX_PATHS 8

typedef struct rail_path {
    const net_ops_t *ops;
    net_iface_t *ifc;
    net_path_t *np;
    int rail;
    int state;
    unsigned caps;
    uint64_t frames, bytes;
} rail_path_t;

typedef void (*rail_sent_fn)(void *arg);

/* A frame kept by the channel: waiting for room on a path, or sent on a
 * lossy path and not yet acknowledged. */
typedef struct rail_frame {
    struct rail_frame *next;
    net_frame_hdr_t hdr;
    unsigned char upper[NET_UPPER_MAX];
    const void *payload;   /* caller's memory (pending) or `copy` */
    void *copy;            /* owned copy for retransmission */
    int delivered;         /* ooo: an unordered frame already handed up */
    rail_sent_fn sent;
    void *arg;
} rail_frame_t;

typedef struct rail_frame_q {
    rail_frame_t *head, *tail;
    size_t n;
} rail_frame_q_t;

typedef struct rail_channel {
    int peer;              /* world rank */
    uint64_t send_seq;     /* last sequence number assigned */
    uint64_t recv_next;    /* next sequence number to deliver */
    uint64_t acked;        /* everything <= acked was received by the peer */
    uint64_t ack_sent;     /* last cumulative ack we told the peer */
    int npaths;
    rail_path_t paths[RAIL_MAX_PATHS];
    uint64_t turn;         /* frames/chunks scheduled (round-robin, even striping) */
    double wrr[RAIL_MAX_PATHS]; /* weighted striping state */
    rail_frame_q_t pending;  /* not yet handed to a transport, in order */
    rail_frame_q_t unacked;  /* sent on a lossy path, awaiting ack */
    rail_frame_q_t ooo;      /* received ahead of recv_next, sorted by seq */
    int lossy;             /* some path may lose frames: acks are needed */
    int ack_owed;          /* delivered frames not yet acknowledged to the peer */
    int on_flush_list;
    struct rail_channel *flush_next;
    uint64_t dups_dropped, ooo_queued;
} rail_channel_t;

/* Delivery of in-order frames to the layer above. */
typedef void (*rail_deliver_fn)(rail_channel_t *ch, const void *upper, const void *payload,
                                size_t len);

void rail_set_deliver(rail_deliver_fn fn);
/* The scheduling policy for every channel; weights by rail index (NULL: equal). */
void rail_configure(rail_policy_t policy, int local_rank, const double *weights, int nweights);

void rail_channel_init(rail_channel_t *ch, int peer);
void rail_channel_destroy(rail_channel_t *ch);
rm_status_t rail_channel_add_path(rail_channel_t *ch, const net_ops_t *ops, net_iface_t *ifc,
                                  net_path_t *np, int rail);

/* Send one sequenced frame. RM_OK: handed to a transport now, the caller's
 * memory may be reused and `sent` is NOT called. RM_INPROGRESS: queued; the
 * header is copied but `payload` must stay valid until `sent(arg)` runs from
 * progress; with `sent` NULL the channel copies the payload instead, so small
 * control frames can live on the caller's stack. Negative: the channel cannot
 * carry frames (no usable path). */
rm_status_t rail_channel_send(rail_channel_t *ch, const void *upper, uint16_t hlen,
                              const void *payload, size_t len, uint16_t flags, rail_sent_fn sent,
                              void *arg);

/* Upcall from a transport (net_upcalls_t.recv); `owner` is the channel. */
void rail_channel_recv(void *owner, const net_frame_hdr_t *hdr, const void *upper,
                       const void *payload);
/* Upcall from a transport (net_upcalls_t.error). */
void rail_channel_error(void *owner, int rail, rm_status_t why);

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

/* The channel's path with NET_CAP_LOCAL, for single-copy reads, or NULL. */
rail_path_t *rail_channel_local_path(rail_channel_t *ch);

#endif
