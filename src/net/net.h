/* The transport contract. A transport moves frames between this process and
 * one peer over one rail; it never decides policy: errors are reported to the
 * rail layer through the error callback (always with the rail index), and the
 * rail layer decides what to do.
 *
 * One ops table per transport, filled with designated initializers and
 * registered in the explicit list in net.c, which checks that every mandatory
 * op is present. Optional features are advertised by capability flags. */
#ifndef RM_NET_NET_H
#define RM_NET_NET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "util/status.h"

/* Every frame starts with this header. The rail layer fills it; transports
 * carry it unchanged (reliable transports may drop `ack`, which they never
 * need). `hlen` bytes of upper-layer header follow, then `len` bytes of
 * payload. */
typedef struct net_frame_hdr {
    uint64_t seq;   /* channel sequence number, 0 = unsequenced control frame */
    uint64_t ack;   /* cumulative acknowledgement, piggybacked */
    uint32_t len;   /* payload bytes */
    uint16_t flags;
    uint16_t hlen;  /* upper-layer header bytes, at most NET_UPPER_MAX */
} net_frame_hdr_t;

#define NET_UPPER_MAX 32

enum net_frame_flags {
    /* A data chunk placed by offset: the channel hands it up on arrival even
     * ahead of sequence order (it still counts in sequence for acks and
     * duplicate detection). */
    NET_F_UNORDERED = 1u << 0,
    /* Unsequenced frames of the rail layer's path health protocol: a probe
     * asks the peer to answer on the same path, the answer proves the path
     * works both ways; a goodbye says the peer is closing, so the end of its
     * connections is not a failure. */
    NET_F_PROBE = 1u << 1,
    NET_F_PROBE_ACK = 1u << 2,
    NET_F_BYE = 1u << 3,
    /* An unsequenced delivery report of the rail layer: for each path, the
     * highest sequence number it brought (payload: rail_report_t entries). */
    NET_F_REPORT = 1u << 4,
    /* An unsequenced address of the rail layer's: a path's transport
     * renewed its endpoint and the path is not up, so the new address goes
     * over another path (payload: the rail, uint32_t, then what the
     * transport's addr_renewed wrote). */
    NET_F_ADDR = 1u << 5,
};

enum net_caps {
    NET_CAP_RELIABLE = 1u << 0,   /* frames are never lost while both processes live */
    NET_CAP_LOCAL = 1u << 1,      /* same host; single-copy between address spaces possible */
    NET_CAP_ZCOPY_RECV = 1u << 2, /* asks net_upcalls_t.place where large payloads land */
    NET_CAP_RMA = 1u << 3,        /* put/get with memory registration */
    NET_CAP_HW_MIGRATION = 1u << 4,
    /* no connection to establish: either side may bring a failed path back
     * (reconnect), not only the higher rank */
    NET_CAP_CONNLESS = 1u << 5,
    /* `measure` reports the network's own round trip and delivery rate (a
     * kernel's view of the connection); without it, the rail layer measures
     * a lossy path itself, by delivery reports (rail/report.c) */
    NET_CAP_MEASURED = 1u << 6,
};

typedef struct net_iface net_iface_t; /* an opened device/interface, transport-private */
typedef struct net_path net_path_t;   /* a connection to one peer, transport-private */
typedef struct net_mr net_mr_t;       /* a registered memory region, transport-private */

/* The end of a remote write (net_ops_t.rma_write). over = 1: the provider
 * has handed the operation back; st == RM_OK: the bytes are in the peer's
 * memory (delivery complete), else they may not be. over = 0 (st < 0): the
 * path was reset under it: write those bytes elsewhere; the operation may
 * still be carried out (into the peer's memory while it is registered there)
 * and reports again with over = 1 when the provider hands it back. */
typedef void (*net_rma_fn)(void *arg, rm_status_t st, int over);

/* Upcalls into the rail layer. `owner` is what the rail layer passed to connect
 * (its per-peer channel). The payload pointer is valid only during the call. */
typedef struct net_upcalls {
    void (*recv)(void *owner, int rail, const net_frame_hdr_t *hdr, const void *upper,
                 const void *payload);
    /* the path's connection broke; what was in flight on it may be lost */
    void (*error)(void *owner, int rail, rm_status_t why);
    /* a connection for the path is (again) established; optional for
     * transports that never lose one */
    void (*up)(void *owner, int rail);
    /* Optional (may be NULL); asked only by a transport with NET_CAP_ZCOPY_RECV.
     * Zero-copy receive: the header and upper header of a frame have arrived,
     * its payload (hdr->len bytes, too large for the transport's own receive
     * buffer) has not. The answer is where the payload should land, or NULL:
     * then the transport receives it as it otherwise would (staged).
     *
     * The contract, both ways:
     * - asked at most once per frame, on the rail the frame travels;
     * - non-NULL means hdr->len writable bytes there. The transport writes the
     *   payload there and nowhere else, then calls `recv` with payload equal
     *   to that pointer. The layer above recognises a placed payload by that
     *   identity and must not copy it onto itself;
     * - the memory must stay writable until that `recv`, or until the
     *   transport reports an error on the path or the path is closed: from
     *   then on the transport never writes there again (the frame is lost
     *   and will be resent), or until the layer above withdraws the place
     *   (net_ops_t.unplace). So the layer above keeps the memory until the
     *   frame was handed up (a receive completes only when every chunk of
     *   it has been), and a copy of the frame that another path brings
     *   first is handed up only once the place was withdrawn;
     * - bytes already read past the header before the question (a short head
     *   of the payload) are copied there by the transport. */
    void *(*place)(void *owner, int rail, const net_frame_hdr_t *hdr, const void *upper);
    /* Optional (may be NULL). busy = 1: the transport holds frames that its
     * next progress pass sends (it gathers a burst of small ones), so a pass
     * should come soon even while the application computes; busy = 0: it
     * holds none any more. */
    void (*busy)(int busy);
} net_upcalls_t;

/* What a transport may know about the job when it opens. */
typedef struct net_env {
    int world_rank, world_size;
    const int *node_of; /* world rank -> host index */
    int node;           /* my host index */
    const char *job_id; /* unique per job, for names of shared resources */
    /* shared by this job's ranks only, for network handshakes; the string may
     * be filled in after open, but before any connect or progress */
    const char *job_secret;
    /* no other rail found: loopback is one (rails opened for processes of
     * other jobs on this host, never at start-up) */
    int loopback_ok;
    net_upcalls_t up;
} net_env_t;

/* What a transport measured of one path (net_ops_t.measure). */
typedef struct net_measure {
    double rate;      /* bytes per second the network delivered lately; 0: unknown */
    int rate_limited; /* the sender had too little to send: rate understates the path */
    double rtt;       /* seconds, smoothed round trip; 0: unknown */
} net_measure_t;

/* What the peer's host acknowledged on one path (net_ops_t.net_acks). */
typedef struct net_acks {
    uint64_t acked;   /* bytes acknowledged */
    unsigned timeouts; /* retransmission timeouts since the last acknowledgement (0: none pending) */
} net_acks_t;

typedef struct net_ops {
    const char *name;
    unsigned caps;
    /* mandatory */
    int (*query)(const net_env_t *env); /* number of usable devices (rails) */
    rm_status_t (*open)(const net_env_t *env, int dev, net_iface_t **out);
    void (*close)(net_iface_t *ifc);
    /* business card published through the boot layer; a printable string */
    rm_status_t (*addr_pack)(net_iface_t *ifc, char *buf, size_t len);
    rm_status_t (*connect)(net_iface_t *ifc, int peer, const char *peer_addr, void *owner,
                           net_path_t **out);
    /* RM_OK when the frame is handed over (the caller's memory may be reused),
     * RM_ERR_NO_RESOURCE when the path is full (try again after progress). */
    rm_status_t (*send)(net_path_t *p, const net_frame_hdr_t *hdr, const void *upper,
                        const struct iovec *iov, int iovcnt);
    int (*progress)(net_iface_t *ifc); /* events handled */
    void (*path_close)(net_path_t *p);
    /* optional (NET_CAP_LOCAL): copy len bytes from the peer's address space */
    rm_status_t (*read_remote)(net_path_t *p, void *dst, uint64_t remote_addr, size_t len);
    /* upper bound for one frame's payload on this transport */
    size_t (*max_payload)(net_iface_t *ifc);
    /* optional: every peer has connected (shared resources can be unlinked) */
    void (*ready)(net_iface_t *ifc);
    /* optional: bytes accepted on this path and not yet delivered to the
     * network (the scheduler's queue depth) */
    size_t (*queued)(net_path_t *p);
    /* optional: a counter that is non-zero whenever progress has work; lets
     * the engine skip polling an idle transport on the hot path */
    const int *(*work_hint)(net_iface_t *ifc);
    /* Path recovery (transports without NET_CAP_RELIABLE). rx_bytes: bytes
     * received on the path so far, the liveness signal heartbeats watch.
     * path_reset: drop the connection and whatever it still queued (the
     * rail layer judged it dead); no error upcall follows. reconnect: start
     * a new connection now, replacing a half-open attempt; `up` reports
     * success, `error` failure. */
    uint64_t (*rx_bytes)(net_path_t *p);
    void (*path_reset)(net_path_t *p);
    rm_status_t (*reconnect)(net_path_t *p);
    /* optional: what the peer's host acknowledged of ours on the path so
     * far, whether or not a process there read it (TCP: the kernel's
     * counters); -1 when unknown. Tells a peer whose processes stall
     * (stopped, starved of a core), while its host answers at once, from a
     * rail that carries nothing any more, or only after timeouts. */
    int (*net_acks)(net_path_t *p, net_acks_t *out);
    /* optional (NET_CAP_ZCOPY_RECV): the layer above withdraws the place it
     * named for the frame now being received on this path at `at` (a copy
     * of it came first by another path, while this one stalls): from the
     * return on, the transport writes nothing more there; it reads the rest
     * of that payload, drops it and hands nothing up for the frame. No-op
     * when the path is not receiving into `at`. */
    void (*unplace)(net_path_t *p, const void *at);
    /* optional: a printable name of the path's network (for event lines) */
    const char *(*rail_name)(net_iface_t *ifc);
    /* optional: what the transport measured of the path lately (throughput,
     * round trip); 0, or -1 when it has nothing to say (not connected) */
    int (*measure)(net_path_t *p, net_measure_t *m);
    /* optional: a path to a process of another job (dynamic processes), its
     * index `peer` past the world. Its handshakes name it by its job's secret
     * and its rank there, which this path accepts besides our own job's. */
    rm_status_t (*connect_foreign)(net_iface_t *ifc, int peer, const char *peer_addr,
                                   const char *secret, int rank, void *owner, net_path_t **out);
    /* Optional: remote writes into registered memory (RDMA rendezvous).
     * mr_reg registers [buf, buf + len) on the interface's device, for peers
     * to write into (remote = 1) or as the source of our writes (remote = 0);
     * RM_ERR_UNSUPPORTED: the device cannot. Once mr_dereg returns, no write
     * of a peer lands there any more, not even one the peer gave up on after
     * a path failure, provided the peer's rma_stuck writes were fenced
     * (path_fence, below) first. mr_remote: what a peer needs to write it:
     * the key, the address its writes name the region's first byte by, and
     * the incarnation of this side's endpoint the key belongs to (a key
     * dies with its endpoint). rma_write: write len bytes from src (inside
     * `local`'s region) to the peer's raddr with a key of the peer's
     * endpoint incarnation `inc`; RM_ERR_NO_RESOURCE: try again after
     * progress; RM_ERR_UNSUPPORTED: the key is of another incarnation than
     * the one this path reaches (write elsewhere); fn reports the end. */
    rm_status_t (*mr_reg)(net_iface_t *ifc, void *buf, size_t len, int remote, net_mr_t **out);
    void (*mr_remote)(const net_mr_t *mr, uint64_t *key, uint64_t *base, uint32_t *inc);
    void (*mr_dereg)(net_mr_t *mr);
    rm_status_t (*rma_write)(net_path_t *p, const void *src, net_mr_t *local, size_t len, uint64_t raddr,
                             uint64_t key, uint32_t inc, net_rma_fn fn, void *arg);
    /* Optional, for providers that check a write's key only when the write
     * begins and then place its bytes as they come (writes in TCP streams):
     * a write given up on after a path failure may still be placed
     * whenever its connection resumes. rma_stuck: nonzero while a write of
     * ours on this path may be, *inc the peer's endpoint incarnation it
     * goes to. path_fence: the peer says writes it gave up on towards our
     * incarnation `inc` on this path may still come; once it returns
     * nonzero none of them is placed any more (the ofi transport leaves
     * that endpoint for a new one and tells the peers its address); zero:
     * not yet (our own writes there drain first), call again after
     * progress. */
    int (*rma_stuck)(net_path_t *p, uint32_t *inc);
    int (*path_fence)(net_path_t *p, uint32_t inc);
    /* Optional: give up every write in the provider on this path (it is
     * alive but too slow): each reports over = 0 at once, as when the path
     * is reset, and may still be carried out. */
    void (*rma_giveup)(net_path_t *p);
    /* Optional: writes given up on this path that the provider still holds
     * may still read their source (a provider that sends from it as the
     * connection allows): once this returns nonzero none does any more and
     * each has reported over = 1, so the memory may go back to the
     * application; zero: not yet, call again after progress. */
    int (*rma_release)(net_path_t *p);
    /* Optional: a transport that may renew its endpoint (and so its
     * address) at run time. addr_renewed: nonzero length if the peer may
     * not know this side's current address behind the path yet (written
     * into buf, at most len bytes); the rail layer sends it over another
     * path while this one is not up (NET_F_ADDR). addr_learn: the peer's,
     * so received. */
    size_t (*addr_renewed)(net_path_t *p, void *buf, size_t len);
    void (*addr_learn)(net_path_t *p, const void *buf, size_t len);
    /* Optional: frames the path sent by writing them into the peer's
     * memory (the ofi transport's RDMA fast path), for the statistics. */
    uint64_t (*fast_frames)(net_path_t *p);
    /* Optional (process fault tolerance without a launcher that reports
     * deaths): 1 when the peer's process is known to be gone, 0 when not
     * (alive, or not known yet). shm: the process has exited (its pid, on
     * this host). tcp: the peer's listening socket refuses a connection,
     * i.e. its host answers and nothing listens there any more; the
     * attempt is asynchronous and a later call gives its answer, so a
     * network that drops or delays packets only ever yields 0. */
    int (*peer_gone)(net_path_t *p);
} net_ops_t;

/* The explicit list of transports compiled in. */
const net_ops_t *net_transport_find(const char *name);
/* Checks every mandatory op; RM_ERR_INTERNAL naming the missing op otherwise. */
rm_status_t net_transport_check(const net_ops_t *ops);

extern const net_ops_t net_self_ops;
extern const net_ops_t net_shm_ops;
extern const net_ops_t net_tcp_ops;
extern const net_ops_t net_ofi_ops;

#endif
