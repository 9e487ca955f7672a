/* The libfabric transport's own declarations, shared by src/net/ofi.c (set-up,
 * data), ofi_discover.c (loading libfabric, finding the rails) and ofi_rma.c
 * (remote writes and the endpoint renewal that keeps them safe). */
#ifndef RM_NET_OFI_IMPL_H
#define RM_NET_OFI_IMPL_H

#include "net/net.h"
#include "util/clock.h"
#include "util/config.h"
#include "util/log.h"
#include "util/rails.h"
#include "util/sock.h"

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/* libfabric is loaded when an ofi rail is asked for, not linked: its
 * providers' libraries (psm, psm2) install signal handlers when they load,
 * which would change how every railmpi process dies, ofi or not. The calls
 * below are the library's only entry points this file uses; everything else
 * in the API is an inline call through the objects' ops tables. */
typedef struct {
    int tried, ok;
    int (*getinfo)(uint32_t, const char *, const char *, uint64_t, const struct fi_info *, struct fi_info **);
    void (*freeinfo)(struct fi_info *);
    struct fi_info *(*dupinfo)(const struct fi_info *);
    int (*fabric)(struct fi_fabric_attr *, struct fid_fabric **, void *);
    const char *(*strerror)(int);
} ofi_lib_t;
extern ofi_lib_t ofi_lib;
int ofi_load(void);
#define fi_getinfo ofi_lib.getinfo
#define fi_freeinfo ofi_lib.freeinfo
#define fi_dupinfo ofi_lib.dupinfo
#define fi_fabric ofi_lib.fabric
#define fi_strerror ofi_lib.strerror

#define OFI_MAX_RAILS 8
#define OFI_PAYLOAD_MAX 65536
#define OFI_RX_BUFS 64
/* With multi-receive (FI_MULTI_RECV, where the provider has it) the same
 * receive memory is posted as OFI_MRECV_BUFS buffers of OFI_RX_BUFS /
 * OFI_MRECV_BUFS frames' room each: the provider places one message after
 * another in a buffer and hands it back once less than a largest frame is
 * left, so small messages take tens of bytes of it, not a 64 KiB buffer each. */
#define OFI_MRECV_BUFS 4
#define OFI_TX_BUFS 256
/* sends one path may have in the provider's hands: a dead path must not
 * take every buffer of its rail with it */
#define OFI_PATH_TX_MAX 64
#define OFI_MAGIC 0x52464f31u /* "RFO1" */
/* remote writes one rail may have in the provider's hands */
#define OFI_RMA_OPS 64

/* The RDMA fast path (docs/transport-ofi.md, "Small messages: the RDMA fast
 * path"): a peer that sent a path OFI_FAST_AFTER messages gets a ring of
 * OFI_FAST_SLOTS slots in this side's memory, registered for remote writes,
 * and writes its small frames there; this side polls the ring instead of
 * taking them from posted receives. At most OFI_FAST_RINGS rings per rail. */
#define OFI_FAST_SLOTS 64
#define OFI_FAST_SLOT 2048
#define OFI_FAST_AFTER 16
#define OFI_FAST_RINGS 64
#define OFI_FAST_KEPT 64 /* retired rings kept over TCP-stream providers (8 MiB) */
#define OFI_RENEW_MAX 16 /* endpoint renewals per rail before its remote writes stop */
#define OFI_MAGIC_CTL 0x43464f31u /* "1OFC": a transport control message */

/* What each message carries before the frame header. */
typedef struct ofi_wire {
    uint32_t magic;
    uint32_t src;     /* sender's world rank */
    uint64_t job;     /* hash of the job secret: other jobs' messages are dropped */
    uint64_t gen;     /* the sender's path generation: bumped whenever it resets the path */
} ofi_wire_t;

/* A control message of the transport itself, after its ofi_wire_t. */
enum { OFI_CTL_RING = 1, OFI_CTL_CREDIT = 2, OFI_CTL_ADDR = 3 };
typedef struct ofi_ctl {
    uint32_t type;
    uint32_t id;      /* RING, CREDIT: the ring's number on its rail; ADDR: the endpoint's incarnation */
    uint64_t addr;    /* RING: where the ring is, as the peer addresses it */
    uint64_t key;     /* RING: its key */
    uint64_t val;     /* RING: the generation of the peer's it is for; CREDIT: frames taken so far;
                       * ADDR: the length of the endpoint's name, which follows */
} ofi_ctl_t;

/* A slot of a ring: the message's length and tag, the message (wire,
 * frame header, upper header, payload), the tag again after it, 4-byte
 * aligned. The tag is the slot's use number: a slot is complete when both
 * tags show the expected one; with placement in order the second tag
 * arrives last. */
#define OFI_FAST_HEAD 8
#define OFI_FAST_ROOM (OFI_FAST_SLOT - OFI_FAST_HEAD - 4)

/* A ring in this side's memory that one peer writes into. */
typedef struct ofi_ring {
    struct ofi_ring *next;
    struct net_path *path;
    unsigned char *mem;
    struct fid_mr *mr;
    uint32_t id;
    uint32_t inc;              /* the endpoint incarnation it was registered in */
    uint64_t peer_gen;         /* the peer's generation it was made for: a newer one retires it */
    uint64_t head;             /* frames taken */
    uint64_t reported;         /* head as last told to the peer */
} ofi_ring_t;

#define OFI_HDRS (sizeof(ofi_wire_t) + sizeof(net_frame_hdr_t) + NET_UPPER_MAX)
#define OFI_BUF_SIZE (OFI_HDRS + OFI_PAYLOAD_MAX)
/* aligned_alloc wants a size that is a multiple of the alignment */
#define OFI_POOL_LEN (((OFI_RX_BUFS + OFI_TX_BUFS) * OFI_BUF_SIZE + 4095) / 4096 * 4096)

typedef struct ofi_buf {
    struct fi_context ctx; /* the operation's context: first, so the CQ entry leads here */
    struct ofi_buf *next;
    struct net_path *path; /* tx: the path it was sent on */
    uint64_t epoch;        /* tx: the path's epoch then */
    int tx;
    size_t len;
    unsigned char *data;
} ofi_buf_t;

/* A remote write in the provider's hands. */
typedef struct ofi_rma_op {
    struct fi_context ctx; /* first, as ofi_buf_t's */
    struct ofi_rma_op *next;
    struct net_path *path;
    size_t len;
    uint32_t inc;          /* the peer's endpoint incarnation it goes to */
    int abandoned;         /* the path was reset under it: reported once already */
    net_rma_fn fn;
    void *arg;
} ofi_rma_op_t;

struct net_mr {
    struct fid_mr *mr;
    void *desc;
    uint64_t key, base;
    uint32_t inc;          /* the endpoint incarnation it was registered in */
};

struct net_path {
    struct net_iface *ifc;
    int peer;
    void *owner;
    fi_addr_t fa;
    char addr[256];        /* the peer's raw endpoint name */
    size_t addrlen;
    uint64_t epoch;        /* bumped by reset: completions of older sends are ignored;
                            * sent as the path's generation */
    uint64_t peer_gen;     /* the highest generation the peer sent */
    uint64_t reset_gen;    /* peer_gen when this side last reset the path */
    int broken;            /* an error was reported; no sends until reconnect */
    int closed;            /* the channel closed it: never up again */
    int announce_up;       /* progress reports `up` (not from inside the rail layer's call) */
    int inflight;
    int was_full;          /* the path had all it could hold in the provider since the last measure */
    size_t queued;
    uint64_t rx_bytes;
    uint64_t tx_done;      /* bytes whose sends completed, for measure */
    uint64_t m_bytes, m_at; /* tx_done and the time at the last measure */
    /* RDMA fast path: our ring for the peer's frames, and the peer's for ours */
    ofi_ring_t *ring;
    uint64_t rx_msgs;      /* messages received by posted receive since the last reset */
    int fast;              /* the peer's ring is known: small frames are written there */
    uint32_t fast_id;
    uint64_t fast_addr, fast_key, fast_gen; /* its place, key, the peer's generation then */
    uint64_t fast_sent, fast_credit; /* frames written into it; frames the peer took */
    uint64_t fast_frames;  /* frames sent by the fast path (statistics) */
    /* endpoint renewal (ofi_renew) */
    uint32_t peer_inc;     /* the incarnation of the peer's endpoint that addr names */
    int stuck_late;        /* our endpoint was renewed under writes to the peer's incarnation
                            * peer_inc: they may still be placed there (rma_stuck) */
    int addr_due;          /* our endpoint's address is to be sent to the peer */
    int addr_known;        /* the peer reached our renewed endpoint: it has its address */
    int error_due;         /* the renewal dropped the path: to report at the next progress pass */
};

struct net_iface {
    net_env_t env;
    int rail;
    char fabric[128], domain_name[64], prov[64];
    struct fi_info *info;
    struct fid_fabric *fabric_fid;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;
    struct fid_mr *mr;
    void *mr_desc;
    unsigned char *pool;
    ofi_buf_t bufs[OFI_RX_BUFS + OFI_TX_BUFS];
    ofi_buf_t *tx_free;
    int tx_busy;             /* send buffers in the provider's hands */
    int rma;                 /* the provider writes remote memory (FI_RMA) */
    uint64_t next_key;       /* keys we choose (no FI_MR_PROV_KEY) */
    ofi_rma_op_t rma_ops[OFI_RMA_OPS];
    ofi_rma_op_t *rma_free;
    struct net_path **peers; /* by world rank */
    int announce;            /* some path waits to report up */
    uint64_t job;
    int fast;                /* the RDMA fast path is on for this rail */
    int mrecv;               /* receives are posted as multi-receive buffers */
    ofi_ring_t *rings;       /* live rings, polled by progress */
    ofi_ring_t *dead_rings;  /* retired, freed at the next progress pass */
    int nrings;
    uint32_t next_ring;
    uint32_t ring_changes;   /* rings retired so far */
    int stream_rma;          /* the provider carries writes in TCP streams */
    int nkept;               /* retired rings kept for that */
    int nkept_old;           /* some retired ring is of an abandoned endpoint: free it */
    uint32_t inc;            /* the endpoint's incarnation: renewals so far (ofi_renew) */
    int addr_due, error_due; /* some path has its addr_due, error_due set */
    int dead;                /* a renewal failed: the rail carries nothing more */
    int troubled;            /* a path failed or was reset, or the provider failed an operation */
    int rto_cap;             /* RAILMPI_OFI_TCP_RTO_MAX_MS for the provider's sockets; 0: none */
    uint64_t rto_scanned;    /* ns: the last scan for them (ofi_cap_rto) */
    uint64_t fence_at;       /* ns: a renewal waits for our writes to drain since then (ofi_path_fence) */
};

/* The rails found (ofi_discover.c): each one's provider info, whether it
 * has remote writes, places them in order (the fast path), has multi-receive. */
extern struct fi_info *ofi_rails[OFI_MAX_RAILS];
extern int ofi_rail_rma[OFI_MAX_RAILS];
extern int ofi_rail_ordered[OFI_MAX_RAILS]; /* has remote writes and places their bytes in order: the fast path */
extern int ofi_rail_mrecv[OFI_MAX_RAILS];   /* multi-receive buffers (FI_MULTI_RECV) */
extern int ofi_nrails;
int ofi_discover(void);
int ofi_query(const net_env_t *env);
int ofi_prov_streams(const char *prov);

/* ofi.c: set-up, the data path and its completions */
rm_status_t ofi_ep_open(net_iface_t *ifc);
void ofi_abandon(net_iface_t *ifc, int with_fabric);
void ofi_rma_ops_free(net_iface_t *ifc);
void ofi_path_error(net_path_t *p, rm_status_t why);
void ofi_path_forget(net_path_t *p);
void ofi_rma_giveup(net_path_t *p);
void ofi_peer_renewed(net_path_t *p, uint32_t inc, const void *name, size_t len);
rm_status_t ofi_ctl_send(net_path_t *p, const ofi_ctl_t *c);
void ofi_tx_taken(net_iface_t *ifc, net_path_t *p, ofi_buf_t *b, size_t len);
size_t ofi_pack(const net_path_t *p, unsigned char *d, const net_frame_hdr_t *hdr, const void *upper,
                const struct iovec *iov, int iovcnt);
void ofi_deliver(net_iface_t *ifc, const unsigned char *data, size_t len, ofi_ring_t *ring);

/* ofi_rma.c: endpoint renewal, remote writes, the RDMA fast path */
void ofi_renew(net_iface_t *ifc);
int ofi_path_fence(net_path_t *p, uint32_t inc);
int ofi_rma_release(net_path_t *p);
size_t ofi_addr_renewed(net_path_t *p, void *buf, size_t len);
void ofi_addr_learn(net_path_t *p, const void *buf, size_t len);
int ofi_rma_stuck(net_path_t *p, uint32_t *inc);
rm_status_t ofi_mr_reg(net_iface_t *ifc, void *buf, size_t len, int remote, net_mr_t **out);
void ofi_mr_remote(const net_mr_t *m, uint64_t *key, uint64_t *base, uint32_t *inc);
void ofi_mr_dereg(net_mr_t *m);
rm_status_t ofi_rma_write(net_path_t *p, const void *src, net_mr_t *local, size_t len, uint64_t raddr,
                          uint64_t key, uint32_t inc, net_rma_fn fn, void *arg);
void ofi_ring_make(net_path_t *p);
void ofi_ring_retire(net_path_t *p);
void ofi_rings_free(net_iface_t *ifc, int all);
rm_status_t ofi_fast_send(net_path_t *p, const net_frame_hdr_t *hdr, const void *upper,
                          const struct iovec *iov, int iovcnt);
int ofi_fast_poll(net_iface_t *ifc);
uint64_t ofi_fast_frames(net_path_t *p);

#endif
