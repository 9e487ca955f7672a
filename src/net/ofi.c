/* The libfabric transport: one FI_EP_RDM endpoint per rail (a domain of the
 * chosen provider: a NIC, or for the tcp provider an IP interface), frames
 * carried as messages through bounce buffers that are registered once.
 * Paths are peers' endpoint addresses in the rail's address vector; there is
 * no connection to lose, so the transport advertises no NET_CAP_RELIABLE:
 * the rail layer keeps every frame until acknowledged, watches each path's
 * received bytes for heartbeats, and a path it declares dead is reset (sends
 * still in the provider's hands are forgotten; their completions are
 * ignored) and reconnected (the address inserted again).
 *
 * Rails are matched across hosts by fabric name — the IP subnet for
 * tcp-based providers, the subnet prefix for InfiniBand — so two hosts pair
 * the NICs that share a network, as the TCP transport pairs subnets.
 * See docs/transport-ofi.md. */
#include "net/net.h"
#include "util/clock.h"
#include "util/config.h"
#include "util/log.h"
#include "util/rails.h"
#include "util/sock.h"

#include <arpa/inet.h>
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <dirent.h>
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* libfabric is loaded when an ofi rail is asked for, not linked: its
 * providers' libraries (psm, psm2) install signal handlers when they load,
 * which would change how every railmpi process dies, ofi or not. The calls
 * below are the library's only entry points this file uses; everything else
 * in the API is an inline call through the objects' ops tables. */
static struct {
    int tried, ok;
    int (*getinfo)(uint32_t, const char *, const char *, uint64_t, const struct fi_info *, struct fi_info **);
    void (*freeinfo)(struct fi_info *);
    struct fi_info *(*dupinfo)(const struct fi_info *);
    int (*fabric)(struct fi_fabric_attr *, struct fid_fabric **, void *);
    const char *(*strerror)(int);
} ofi_lib;

static int ofi_load(void)
{
    if (ofi_lib.tried)
        return ofi_lib.ok;
    ofi_lib.tried = 1;
    void *h = dlopen("libfabric.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        rm_log_error("ofi: cannot load libfabric (RAILMPI_NET=ofi): %s", dlerror());
        return 0;
    }
    *(void **)&ofi_lib.getinfo = dlsym(h, "fi_getinfo");
    *(void **)&ofi_lib.freeinfo = dlsym(h, "fi_freeinfo");
    *(void **)&ofi_lib.dupinfo = dlsym(h, "fi_dupinfo");
    *(void **)&ofi_lib.fabric = dlsym(h, "fi_fabric");
    *(void **)&ofi_lib.strerror = dlsym(h, "fi_strerror");
    ofi_lib.ok = ofi_lib.getinfo && ofi_lib.freeinfo && ofi_lib.dupinfo && ofi_lib.fabric && ofi_lib.strerror;
    if (!ofi_lib.ok)
        rm_log_error("ofi: libfabric lacks the entry points railmpi needs");
    return ofi_lib.ok;
}
#define fi_getinfo ofi_lib.getinfo
#define fi_freeinfo ofi_lib.freeinfo
#define fi_dupinfo ofi_lib.dupinfo
#define fi_fabric ofi_lib.fabric
#define fi_strerror ofi_lib.strerror

/* Loading libfabric and its first fi_getinfo run the providers' libraries'
 * set-up, and libinfinipath (behind the psm provider) installs a backtrace
 * handler for SIGINT, SIGILL, SIGABRT, SIGBUS, SIGSEGV and SIGTERM there,
 * whichever provider is then chosen: mpiexec's SIGTERM, a Ctrl-C or a crash
 * would run it instead of what the program or the default set. Every
 * signal's disposition is taken before those calls and put back after them;
 * the handlers only print, no provider needs them. */
typedef struct {
    struct sigaction act[NSIG];
} ofi_signals_t;

static void ofi_signals_take(ofi_signals_t *s)
{
    for (int sig = 1; sig < NSIG; sig++)
        if (sigaction(sig, NULL, &s->act[sig]))
            s->act[sig].sa_handler = SIG_ERR; /* not a signal this process may catch */
}

static void ofi_signals_put_back(const ofi_signals_t *s)
{
    for (int sig = 1; sig < NSIG; sig++) {
        struct sigaction now;
        if (s->act[sig].sa_handler == SIG_ERR || sigaction(sig, NULL, &now) ||
            (now.sa_handler == s->act[sig].sa_handler && now.sa_flags == s->act[sig].sa_flags))
            continue;
        rm_log_debug("ofi: libfabric changed the action of signal %d (%s); put back", sig, strsignal(sig));
        sigaction(sig, &s->act[sig], NULL);
    }
}

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

/* ---- rail discovery ---------------------------------------------------- */

static struct fi_info *ofi_rails[OFI_MAX_RAILS];
static int ofi_rail_rma[OFI_MAX_RAILS];
static int ofi_rail_ordered[OFI_MAX_RAILS]; /* has remote writes and places their bytes in order: the fast path */
static int ofi_rail_mrecv[OFI_MAX_RAILS];   /* multi-receive buffers (FI_MULTI_RECV) */
static int ofi_nrails = -1;

/* Providers that reach no other host, or only as a fallback of last resort. */
/* Every remote-write slot on the free list (at open, and after a renewal,
 * when the old endpoint will never hand one back). */
static void ofi_rma_ops_free(net_iface_t *ifc)
{
    ifc->rma_free = NULL;
    for (int i = OFI_RMA_OPS - 1; i >= 0; i--) {
        ifc->rma_ops[i].next = ifc->rma_free;
        ifc->rma_free = &ifc->rma_ops[i];
    }
}

/* A provider that carries remote writes in TCP streams (tcp, sockets). */
static int ofi_prov_streams(const char *prov)
{
    return strstr(prov, "tcp") || strstr(prov, "sockets");
}

static int ofi_local_only(const char *prov)
{
    return !strcmp(prov, "shm") || !strcmp(prov, "sm2") || !strncmp(prov, "ofi_hook", 8) ||
           !strcmp(prov, "ofi_mrail");
}

static int ofi_fabric_skip(const struct fi_info *fi)
{
    const char *fab = fi->fabric_attr->name;
    if (!fab)
        return 1;
    /* link-local IPv6 and loopback "fabrics" of IP providers lead nowhere */
    if (!strncmp(fab, "fe80:", 5) || !strncmp(fab, "127.", 4) || !strcmp(fab, "::1/128"))
        return 1;
    const char *launch = RM_CFG_STR(launch_addr);
    struct in_addr net, ip;
    int prefix;
    if (*launch && rm_rail_cidr(fab, &net, &prefix) == 0 && inet_pton(AF_INET, launch, &ip) == 1 &&
        rm_rail_net(ip, prefix) == rm_rail_net(net, prefix))
        return 1; /* the launcher's management network */
    return 0;
}

static int ofi_listed(const struct fi_info *fi, const char *list)
{
    if (!list || !*list)
        return 1;
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", list);
    for (char *save, *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
        if (!strcmp(t, fi->fabric_attr->name) || (fi->domain_attr->name && !strcmp(t, fi->domain_attr->name)))
            return 1;
    return 0;
}

static int ofi_rail_cmp(const void *a, const void *b)
{
    const struct fi_info *x = *(struct fi_info *const *)a, *y = *(struct fi_info *const *)b;
    return strcmp(x->fabric_attr->name, y->fabric_attr->name);
}

static struct fi_info *ofi_hints(const char *prov, int rma)
{
    struct fi_info *h = fi_dupinfo(NULL);
    if (!h)
        return NULL;
    h->ep_attr->type = FI_EP_RDM;
    h->caps = FI_MSG | (rma ? FI_RMA | FI_WRITE | FI_REMOTE_WRITE : 0);
    h->mode = FI_CONTEXT;
    h->domain_attr->threading = FI_THREAD_DOMAIN;
    h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    h->tx_attr->msg_order = FI_ORDER_SAS;
    if (prov && *prov)
        h->fabric_attr->prov_name = strdup(prov);
    return h;
}

/* Whether a write's bytes are placed in order, first to last, so that a
 * ring slot's closing tag arriving means the slot arrived (the RDMA fast
 * path). libfabric states no such order (FI_ORDER_DATA, which no provider
 * offers); it holds for InfiniBand and RoCE NICs, which place each packet
 * of a write in turn, for the providers that carry writes in a TCP stream
 * and for shared memory, not for iWARP, whose direct data placement puts
 * the segments of a write wherever they arrive. For verbs the protocol is
 * asked of the core provider, which rxm hides. */
static int ofi_places_in_order(const struct fi_info *fi)
{
    uint32_t proto = fi->ep_attr->protocol;
    if (proto == FI_PROTO_IWARP || proto == FI_PROTO_IWARP_RDM)
        return 0;
    if (!strstr(fi->fabric_attr->prov_name, "verbs"))
        return 1;
    struct fi_info *h = fi_dupinfo(NULL), *list = NULL;
    if (!h)
        return 0;
    h->ep_attr->type = FI_EP_MSG;
    h->fabric_attr->prov_name = strdup("verbs");
    int ordered = 0;
    if (!fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, h, &list)) {
        for (struct fi_info *c = list; c; c = c->next)
            if (c->domain_attr->name && fi->domain_attr->name && !strcmp(c->domain_attr->name, fi->domain_attr->name))
                ordered = c->ep_attr->protocol != FI_PROTO_IWARP;
        fi_freeinfo(list);
    }
    fi_freeinfo(h);
    return ordered;
}

/* Rail i takes (a copy of) the description in list of its own domain and
 * fabric, asked again with more capabilities; 1 if it did. */
static int ofi_rail_take(int i, const struct fi_info *list)
{
    for (const struct fi_info *fi = list; fi; fi = fi->next) {
        if (!fi->domain_attr->name || strcmp(fi->domain_attr->name, ofi_rails[i]->domain_attr->name) ||
            strcmp(fi->fabric_attr->name, ofi_rails[i]->fabric_attr->name))
            continue;
        struct fi_info *dup = fi_dupinfo(fi);
        if (!dup)
            return 0;
        fi_freeinfo(ofi_rails[i]);
        ofi_rails[i] = dup;
        return 1;
    }
    return 0;
}

/* The rails again, asked with remote writes, which not every provider has:
 * a rail whose domain offers them takes that description instead (asked
 * for at first, they would have hidden the providers without). */
static void ofi_discover_rma(void)
{
    if (!ofi_nrails || (!RM_CFG(ofi_rma_min) && !RM_CFG(ofi_fast)))
        return;
    /* Providers that carry writes in TCP streams need the receiver to
     * renew its endpoint after some faults ("endpoint renewal" below),
     * which costs recovery time under load for no gain in rate there (the
     * copy path carries as much): with failover on they take the copy path
     * unless RAILMPI_OFI_RMA_STREAM=1. */
    const char *prov = ofi_rails[0]->fabric_attr->prov_name;
    int rndv = RM_CFG(ofi_rma_min) != 0;
    if (rndv && RM_CFG(ft) && !RM_CFG(ofi_rma_stream) && ofi_prov_streams(prov)) {
        rm_log_debug("ofi: provider %s carries remote writes in TCP streams: the copy path while failover is on "
                     "(RAILMPI_OFI_RMA_STREAM=1 for remote writes)", prov);
        rndv = 0;
    }
    struct fi_info *hints = ofi_hints(ofi_rails[0]->fabric_attr->prov_name, 1), *list = NULL;
    if (!hints)
        return;
    int rc = fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, hints, &list);
    fi_freeinfo(hints);
    if (rc) {
        rm_log_debug("ofi: provider %s has no remote writes: the copy path only", ofi_rails[0]->fabric_attr->prov_name);
        return;
    }
    for (int i = 0; i < ofi_nrails; i++) {
        if (ofi_rail_take(i, list)) {
            ofi_rail_rma[i] = rndv;
            ofi_rail_ordered[i] = RM_CFG(ofi_fast) && ofi_places_in_order(ofi_rails[i]);
        }
    }
    fi_freeinfo(list);
}

/* Multi-receive buffers (FI_MULTI_RECV) where the rail's domain offers them,
 * asked as remote writes are (asked for at first, it would hide providers
 * without): the rail takes that description, with the caps it had. */
static void ofi_discover_mrecv(void)
{
    const char *want = RM_CFG_STR(ofi_multi_recv);
    if (!ofi_nrails || !strcmp(want, "0"))
        return;
    if (strcmp(want, "1") && strcmp(want, "auto")) {
        rm_log_warn("RAILMPI_OFI_MULTI_RECV=%s: expected auto, 1 or 0; taken as auto", want);
        want = "auto";
    }
    /* libfabric 1.17's ofi_rxm (tcp;ofi_rxm, verbs;ofi_rxm): when a rail's
     * connections fail it fails receives under way (FI_ECANCELED,
     * FI_ETIMEDOUT on a multi-receive buffer's messages), and with
     * multi-receive buffers tests/fault/ofi_switch_down.sh then met a message
     * with 64 corrupted bytes, frames with garbage headers and a rail that
     * never came back, in about 1 run of 8; none in 8 runs with one buffer
     * per message. Where inside the provider this comes from is not pinned
     * down; railmpi asks for them there only when told to (1). */
    if (!strcmp(want, "auto") && strstr(ofi_rails[0]->fabric_attr->prov_name, "ofi_rxm")) {
        rm_log_debug("ofi: provider %s: one posted buffer per message (its multi-receive is not safe "
                     "across connection failures; RAILMPI_OFI_MULTI_RECV=1 asks for it)",
                     ofi_rails[0]->fabric_attr->prov_name);
        return;
    }
    /* libfabric 1.17's shm provider offers FI_MULTI_RECV but dies in
     * fi_setopt(FI_OPT_MIN_MULTI_RECV) (a segmentation fault inside the
     * provider), without which a buffer's last message could be cut short */
    if (!strcmp(ofi_rails[0]->fabric_attr->prov_name, "shm")) {
        rm_log_debug("ofi: provider shm: one posted buffer per message (its multi-receive cannot be set up)");
        return;
    }
    for (int i = 0; i < ofi_nrails; i++) {
        struct fi_info *hints = ofi_hints(ofi_rails[i]->fabric_attr->prov_name, (ofi_rails[i]->caps & FI_RMA) != 0);
        struct fi_info *list = NULL;
        if (!hints)
            return;
        hints->caps |= FI_MULTI_RECV;
        int rc = fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, hints, &list);
        fi_freeinfo(hints);
        if (rc) {
            rm_log_debug("ofi: provider %s has no multi-receive buffers", ofi_rails[i]->fabric_attr->prov_name);
            return;
        }
        ofi_rail_mrecv[i] = ofi_rail_take(i, list);
        fi_freeinfo(list);
    }
}

/* Every domain of the chosen provider, one rail each, ordered by fabric name
 * so that every host numbers the networks it shares alike. */
static int ofi_discover_rails(void)
{
    ofi_nrails = 0;
    if (!ofi_load())
        return 0;
    const char *want = RM_CFG_STR(ofi_provider);
    struct fi_info *hints = ofi_hints(want, 0), *list = NULL;
    if (!hints)
        return 0;
    int rc = fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, hints, &list);
    fi_freeinfo(hints);
    if (rc) {
        rm_log_error("ofi: no provider%s%s offers reliable datagram messaging: %s", *want ? " named " : "",
                     want, fi_strerror(-rc));
        return 0;
    }
    /* the provider: the one asked for, else the first network provider the
     * library ranks highest (hardware before tcp) */
    const char *prov = NULL;
    for (struct fi_info *fi = list; fi && !prov; fi = fi->next)
        if (*want || !ofi_local_only(fi->fabric_attr->prov_name))
            prov = fi->fabric_attr->prov_name;
    for (struct fi_info *fi = list; fi && prov; fi = fi->next) {
        if (strcmp(fi->fabric_attr->prov_name, prov) || ofi_fabric_skip(fi) ||
            !ofi_listed(fi, RM_CFG_STR(ofi_rails)))
            continue;
        int dup = 0;
        for (int i = 0; i < ofi_nrails; i++)
            dup |= !strcmp(ofi_rails[i]->domain_attr->name, fi->domain_attr->name);
        if (dup || ofi_nrails == OFI_MAX_RAILS)
            continue;
        ofi_rails[ofi_nrails++] = fi_dupinfo(fi);
    }
    fi_freeinfo(list);
    qsort(ofi_rails, (size_t)ofi_nrails, sizeof ofi_rails[0], ofi_rail_cmp);
    ofi_discover_rma();
    ofi_discover_mrecv();
    for (int i = 0; i < ofi_nrails; i++)
        rm_log_debug("ofi: rail %d: provider %s, fabric %s, domain %s%s%s%s", i, ofi_rails[i]->fabric_attr->prov_name,
                     ofi_rails[i]->fabric_attr->name, ofi_rails[i]->domain_attr->name,
                     ofi_rail_rma[i] ? ", remote writes" : "", ofi_rail_ordered[i] ? ", RDMA fast path" : "",
                     ofi_rail_mrecv[i] ? ", multi-receive buffers" : "");
    return ofi_nrails;
}

static int ofi_discover(void)
{
    if (ofi_nrails >= 0)
        return ofi_nrails;
    ofi_signals_t sigs;
    ofi_signals_take(&sigs);
    int n = ofi_discover_rails();
    ofi_signals_put_back(&sigs);
    return n;
}

static int ofi_query(const net_env_t *env)
{
    (void)env;
    return ofi_discover();
}

/* ---- set-up ------------------------------------------------------------ */

static uint64_t ofi_job_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; s && *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static rm_status_t ofi_post_recv(net_iface_t *ifc, ofi_buf_t *b)
{
    ssize_t rc;
    do {
        if (ifc->mrecv) {
            struct iovec iov = {.iov_base = b->data, .iov_len = b->len};
            void *desc = ifc->mr_desc;
            struct fi_msg msg = {.msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = FI_ADDR_UNSPEC,
                                 .context = &b->ctx};
            rc = fi_recvmsg(ifc->ep, &msg, FI_MULTI_RECV);
        } else {
            rc = fi_recv(ifc->ep, b->data, b->len, ifc->mr_desc, FI_ADDR_UNSPEC, &b->ctx);
        }
        if (rc == -FI_EAGAIN)
            fi_cq_read(ifc->cq, NULL, 0);
    } while (rc == -FI_EAGAIN);
    if (rc) {
        rm_log_error("ofi: rail %d: fi_recv: %s", ifc->rail, fi_strerror((int)-rc));
        return RM_ERR_IO;
    }
    return RM_OK;
}

static void ofi_close(net_iface_t *ifc);
static void ofi_ring_retire(net_path_t *p);
static void ofi_rings_free(net_iface_t *ifc, int all);

#define OFI_TRY(call, what)                                                                   \
    do {                                                                                      \
        int rc_ = (call);                                                                     \
        if (rc_) {                                                                            \
            rm_log_error("ofi: rail %d (%s): %s: %s", ifc->rail, ifc->domain_name, what, fi_strerror(-rc_)); \
            return RM_ERR_IO;                                                                 \
        }                                                                                     \
    } while (0)

/* One incarnation of the rail's endpoint: its domain (a TCP-carried
 * provider progresses per domain), address vector, completion queue and
 * endpoint, and a pool of bounce buffers, registered where the provider
 * wants it, every receive buffer posted and every send buffer free. On
 * failure what was opened stays in ifc for ofi_close. */
/* libfabric's shm provider names an endpoint's shared memory after the
 * process id ("PID:N:M" in /dev/shm) and refuses to enable an endpoint whose
 * region exists already (EBUSY). A process killed before it closed its
 * endpoints leaves its regions behind, and once process ids wrap a new
 * process meets them: regions named after our own id are left by a dead
 * process (no live one has our id), so they go before our first endpoint. */
static void ofi_shm_leftovers(void)
{
    static int done;
    if (done++)
        return;
    char pre[32];
    int pl = snprintf(pre, sizeof pre, "%ld:", (long)getpid());
    DIR *d = opendir("/dev/shm");
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, pre, (size_t)pl) != 0)
            continue;
        char name[300];
        snprintf(name, sizeof name, "/%s", e->d_name);
        if (shm_unlink(name) == 0)
            rm_log_info("ofi: removed %s, the shm provider's region of a dead process with this process id", name);
    }
    closedir(d);
}

static rm_status_t ofi_ep_open(net_iface_t *ifc)
{
    if (!strcmp(ifc->prov, "shm"))
        ofi_shm_leftovers();
    OFI_TRY(fi_domain(ifc->fabric_fid, ifc->info, &ifc->domain, NULL), "fi_domain");
    struct fi_av_attr av = {.type = FI_AV_TABLE, .count = (size_t)ifc->env.world_size};
    OFI_TRY(fi_av_open(ifc->domain, &av, &ifc->av, NULL), "fi_av_open");
    /* FI_CQ_FORMAT_DATA: a multi-receive completion says where in its buffer the message is */
    struct fi_cq_attr cq = {.format = FI_CQ_FORMAT_DATA, .size = 4 * (OFI_RX_BUFS + OFI_TX_BUFS)};
    OFI_TRY(fi_cq_open(ifc->domain, &cq, &ifc->cq, NULL), "fi_cq_open");
    OFI_TRY(fi_endpoint(ifc->domain, ifc->info, &ifc->ep, NULL), "fi_endpoint");
    OFI_TRY(fi_ep_bind(ifc->ep, &ifc->av->fid, 0), "bind address vector");
    OFI_TRY(fi_ep_bind(ifc->ep, &ifc->cq->fid, FI_TRANSMIT | FI_RECV), "bind completion queue");
    if (ifc->mrecv) { /* a buffer goes back once it could not hold the largest frame */
        size_t min = OFI_BUF_SIZE;
        OFI_TRY(fi_setopt(&ifc->ep->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV, &min, sizeof min),
                "FI_OPT_MIN_MULTI_RECV");
    }
    OFI_TRY(fi_enable(ifc->ep), "fi_enable");

    size_t nb = OFI_RX_BUFS + OFI_TX_BUFS;
    if (!(ifc->pool = aligned_alloc(4096, OFI_POOL_LEN)))
        return RM_ERR_NOMEM;
    if (ifc->info->domain_attr->mr_mode & FI_MR_LOCAL) {
        OFI_TRY(fi_mr_reg(ifc->domain, ifc->pool, nb * OFI_BUF_SIZE, FI_SEND | FI_RECV | (ifc->fast ? FI_WRITE : 0),
                          0, 0, 0, &ifc->mr, NULL),
                "fi_mr_reg");
        ifc->mr_desc = fi_mr_desc(ifc->mr);
    }
    ifc->tx_free = NULL;
    ifc->tx_busy = 0;
    for (size_t i = 0; i < nb; i++) {
        ofi_buf_t *b = &ifc->bufs[i];
        b->data = ifc->pool + i * OFI_BUF_SIZE;
        b->len = OFI_BUF_SIZE;
        b->tx = i >= OFI_RX_BUFS;
        b->path = NULL;
        if (!b->tx && ifc->mrecv) { /* the receive memory as OFI_MRECV_BUFS buffers */
            if (i >= OFI_MRECV_BUFS)
                continue;
            b->len = (size_t)(OFI_RX_BUFS / OFI_MRECV_BUFS) * OFI_BUF_SIZE;
            b->data = ifc->pool + i * b->len;
        }
        if (b->tx) {
            b->next = ifc->tx_free;
            ifc->tx_free = b;
        } else if (ofi_post_recv(ifc, b) < 0) {
            return RM_ERR_IO;
        }
    }
    return RM_OK;
}

/* Over a provider that carries the rail in TCP connections of its own
 * (tcp;ofi_rxm), a connection that lost segments while a link was down
 * waits out TCP's exponential backoff: after an 8 s outage it resumed 4-6 s
 * after the link was back, and while it waits every frame this side sends
 * the peer there stays in its socket. Its longest retransmission timeout is
 * capped (RAILMPI_OFI_TCP_RTO_MAX_MS) on every socket of this process bound
 * to the rail's address: at open (the listener, whose accepted connections
 * inherit it) and whenever a path of the rail is reset or reconnected, the
 * times when the provider may have made new ones. A rail's failure resets
 * every path there in one tick, so the scan (the process's descriptors) is
 * made at most once per 50 ms, except at open (`force`). A kernel without
 * the option (before 6.15) keeps its backoff. */
static void ofi_cap_rto(net_iface_t *ifc, int force)
{
    if (!ifc->rto_cap || !ifc->ep)
        return;
    uint64_t now = rm_now();
    if (!force && now - ifc->rto_scanned < 50 * RM_MS)
        return;
    ifc->rto_scanned = now;
    struct sockaddr_storage sa;
    size_t nl = sizeof sa;
    memset(&sa, 0, sizeof sa);
    if (fi_getname(&ifc->ep->fid, &sa, &nl) || (sa.ss_family != AF_INET && sa.ss_family != AF_INET6))
        return;
    int n = rm_sock_cap_rto((const struct sockaddr *)&sa, ifc->rto_cap);
    if (n < 0 && errno == ENOPROTOOPT) {
        rm_log_debug("ofi: rail %d: the kernel has no TCP_RTO_MAX_MS: the provider's connections back off as TCP does",
                     ifc->rail);
        ifc->rto_cap = 0;
    } else if (n > 0) {
        rm_log_debug("ofi: rail %d: retransmission timeout of %d provider sockets capped at %d ms", ifc->rail, n,
                     ifc->rto_cap);
    }
}

static rm_status_t ofi_open(const net_env_t *env, int dev, net_iface_t **out)
{
    if (dev < 0 || dev >= ofi_discover())
        return RM_ERR_INVALID;
    net_iface_t *ifc = calloc(1, sizeof *ifc);
    if (!ifc || !(ifc->peers = calloc((size_t)env->world_size, sizeof *ifc->peers))) {
        free(ifc);
        return RM_ERR_NOMEM;
    }
    ifc->env = *env;
    ifc->rail = dev;
    ifc->info = ofi_rails[dev];
    ifc->rma = ofi_rail_rma[dev];
    ifc->fast = ofi_rail_ordered[dev];
    ifc->mrecv = ofi_rail_mrecv[dev];
    ifc->stream_rma = ofi_prov_streams(ifc->info->fabric_attr->prov_name);
    long long rto = RM_CFG(ofi_tcp_rto_max_ms);
    if (ifc->stream_rma && rto > 0) /* the kernel takes 1000-120000 */
        ifc->rto_cap = (int)(rto < 1000 ? 1000 : rto > 120000 ? 120000 : rto);
    ifc->next_key = 1;
    ofi_rma_ops_free(ifc);
    snprintf(ifc->fabric, sizeof ifc->fabric, "%s", ifc->info->fabric_attr->name);
    snprintf(ifc->domain_name, sizeof ifc->domain_name, "%s", ifc->info->domain_attr->name);
    snprintf(ifc->prov, sizeof ifc->prov, "%s", ifc->info->fabric_attr->prov_name);
    int rc = fi_fabric(ifc->info->fabric_attr, &ifc->fabric_fid, NULL);
    if (rc)
        rm_log_error("ofi: rail %d (%s): fi_fabric: %s", ifc->rail, ifc->domain_name, fi_strerror(-rc));
    rm_status_t st = rc ? RM_ERR_IO : ofi_ep_open(ifc);
    if (rc)
        rm_log_error("ofi: rail %d (%s): fi_fabric: %s", dev, ifc->domain_name, fi_strerror(-rc));
    if (st != RM_OK) {
        ofi_close(ifc);
        return st;
    }
    ofi_cap_rto(ifc, 1);
    *out = ifc;
    return RM_OK;
}

/* Abandoned endpoints (an endpoint left for a new one, ofi_renew, or one
 * that cannot be closed at the end, ofi_close): the provider's objects and
 * the bounce buffers they name, kept open and reachable until the process
 * ends. */
typedef struct ofi_old {
    struct ofi_old *next;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;
    struct fid_mr *mr;
    unsigned char *pool;
} ofi_old_t;
static ofi_old_t *ofi_abandoned;

static void ofi_abandon(net_iface_t *ifc, int with_fabric)
{
    ofi_old_t *o = calloc(1, sizeof *o);
    if (!o)
        return;
    *o = (ofi_old_t){.next = ofi_abandoned, .fabric = with_fabric ? ifc->fabric_fid : NULL,
                     .domain = ifc->domain, .av = ifc->av, .cq = ifc->cq, .ep = ifc->ep, .mr = ifc->mr,
                     .pool = ifc->pool};
    ofi_abandoned = o;
}

/* At the end (MPI_Finalize) the rail's provider objects are closed, except
 * where libfabric 1.17's rxm (or a TCP-carried provider) may have closed
 * some of the endpoint's connections itself after an error: closing the
 * endpoint then dereferences NULL in rxm_close_conn (CI's ThreadSanitizer
 * run of tests/fault/ofi_switch_down.sh: a rank died in MPI_Finalize). An
 * endpoint whose paths failed, were reset or saw an operation fail is left
 * open with its domain and the bounce buffers it names, abandoned as a
 * renewal leaves the old one (ofi_renew) until the process ends; the rest
 * of what railmpi allocated for the rail is freed either way. */
static void ofi_close(net_iface_t *ifc)
{
    if (!ifc)
        return;
    int keep = ifc->troubled && (ifc->stream_rma || strstr(ifc->prov, "rxm")) && ifc->ep;
    if (keep)
        rm_log_debug("ofi: rail %d: its connections met errors: the provider's endpoint stays open until the "
                     "process ends", ifc->rail);
    if (ifc->ep && !keep)
        fi_close(&ifc->ep->fid);
    for (int r = 0; r < ifc->env.world_size; r++)
        if (ifc->peers[r])
            ofi_ring_retire(ifc->peers[r]);
    ofi_rings_free(ifc, 1);
    if (keep) {
        ofi_abandon(ifc, 1);
    } else {
        if (ifc->mr)
            fi_close(&ifc->mr->fid);
        if (ifc->cq)
            fi_close(&ifc->cq->fid);
        if (ifc->av)
            fi_close(&ifc->av->fid);
        if (ifc->domain)
            fi_close(&ifc->domain->fid);
        if (ifc->fabric_fid)
            fi_close(&ifc->fabric_fid->fid);
        free(ifc->pool);
    }
    for (int r = 0; r < ifc->env.world_size; r++)
        free(ifc->peers[r]);
    free(ifc->peers);
    free(ifc);
}

/* Business card: "FABRIC=HEX", the rail's network and the endpoint's name. */
static rm_status_t ofi_addr_pack(net_iface_t *ifc, char *buf, size_t len)
{
    unsigned char name[256];
    size_t nl = sizeof name;
    int rc = fi_getname(&ifc->ep->fid, name, &nl);
    if (rc) {
        rm_log_error("ofi: rail %d: fi_getname: %s", ifc->rail, fi_strerror(-rc));
        return RM_ERR_IO;
    }
    int n = snprintf(buf, len, "%s=", ifc->fabric);
    if (n < 0 || (size_t)n + 2 * nl + 1 > len)
        return RM_ERR_INVALID;
    for (size_t i = 0; i < nl; i++)
        snprintf(buf + n + 2 * i, 3, "%02x", name[i]);
    return RM_OK;
}

static rm_status_t ofi_connect(net_iface_t *ifc, int peer, const char *peer_addr, void *owner, net_path_t **out)
{
    const char *eq = strrchr(peer_addr, '=');
    if (!eq || (size_t)(eq - peer_addr) != strlen(ifc->fabric) || strncmp(peer_addr, ifc->fabric, strlen(ifc->fabric)))
        return RM_ERR_UNREACHABLE; /* another network's endpoint */
    if (peer < 0 || peer >= ifc->env.world_size || ifc->peers[peer])
        return RM_ERR_INVALID;
    net_path_t *p = calloc(1, sizeof *p);
    if (!p)
        return RM_ERR_NOMEM;
    const char *hex = eq + 1;
    size_t hl = strlen(hex);
    if (hl % 2 || hl / 2 > sizeof p->addr) {
        free(p);
        return RM_ERR_INVALID;
    }
    for (size_t i = 0; i < hl / 2; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1) {
            free(p);
            return RM_ERR_INVALID;
        }
        p->addr[i] = (char)v;
    }
    p->addrlen = hl / 2;
    p->ifc = ifc;
    p->peer = peer;
    p->owner = owner;
    if (fi_av_insert(ifc->av, p->addr, 1, &p->fa, 0, NULL) != 1) {
        rm_log_error("ofi: rail %d: cannot add rank %d's address to the address vector", ifc->rail, peer);
        free(p);
        return RM_ERR_UNREACHABLE;
    }
    ifc->peers[peer] = p;
    if (!ifc->job)
        ifc->job = ofi_job_hash(ifc->env.job_secret);
    *out = p;
    return RM_OK;
}

/* ---- data -------------------------------------------------------------- */

static void ofi_path_error(net_path_t *p, rm_status_t why)
{
    p->ifc->troubled = 1;
    if (p->broken)
        return;
    p->broken = 1;
    p->ifc->env.up.error(p->owner, p->ifc->rail, why);
}

/* The send buffer taken from the free list: the path's accounting. */
static void ofi_tx_taken(net_iface_t *ifc, net_path_t *p, ofi_buf_t *b, size_t len)
{
    ifc->tx_free = b->next;
    ifc->tx_busy++;
    b->path = p;
    b->epoch = p->epoch;
    b->len = len;
    p->inflight++;
    p->queued += len;
}

/* A control message of the transport (a ring's address, credit, the
 * endpoint's address with `extra` its name) on the path, by send:
 * RM_ERR_NO_RESOURCE when no buffer is free (the caller tries again later). */
static rm_status_t ofi_ctl_send_ext(net_path_t *p, const ofi_ctl_t *c, const void *extra, size_t elen)
{
    net_iface_t *ifc = p->ifc;
    if (p->broken)
        return RM_ERR_CONN_RESET;
    ofi_buf_t *b = ifc->tx_free;
    if (!b || p->inflight >= OFI_PATH_TX_MAX)
        return RM_ERR_NO_RESOURCE;
    ofi_wire_t w = {.magic = OFI_MAGIC_CTL, .src = (uint32_t)ifc->env.world_rank, .job = ifc->job, .gen = p->epoch};
    memcpy(b->data, &w, sizeof w);
    memcpy(b->data + sizeof w, c, sizeof *c);
    if (elen)
        memcpy(b->data + sizeof w + sizeof *c, extra, elen);
    size_t len = sizeof w + sizeof *c + elen;
    ssize_t rc = fi_send(ifc->ep, b->data, len, ifc->mr_desc, p->fa, &b->ctx);
    if (rc == -FI_EAGAIN)
        return RM_ERR_NO_RESOURCE;
    if (rc)
        return RM_ERR_CONN_RESET;
    ofi_tx_taken(ifc, p, b, len);
    return RM_OK;
}

static rm_status_t ofi_ctl_send(net_path_t *p, const ofi_ctl_t *c)
{
    return ofi_ctl_send_ext(p, c, NULL, 0);
}

/* The endpoint's name and incarnation to the peer (after a renewal). */
static rm_status_t ofi_addr_send(net_path_t *p)
{
    unsigned char name[256];
    size_t nl = sizeof name;
    if (fi_getname(&p->ifc->ep->fid, name, &nl))
        return RM_ERR_IO;
    ofi_ctl_t c = {.type = OFI_CTL_ADDR, .id = p->ifc->inc, .val = nl};
    return ofi_ctl_send_ext(p, &c, name, nl);
}

/* Our ring for the peer's small frames, made once the peer sent enough on
 * the path, and its address sent to the peer with the peer's generation it
 * is for: a reset on either side retires it (ofi_path_forget here, a
 * message of a newer generation from the peer, ofi_deliver). */
static void ofi_ring_make(net_path_t *p)
{
    net_iface_t *ifc = p->ifc;
    if (ifc->nrings >= OFI_FAST_RINGS || ifc->nkept >= OFI_FAST_KEPT || p->broken)
        return;
    ofi_ring_t *r = calloc(1, sizeof *r);
    size_t len = (size_t)OFI_FAST_SLOTS * OFI_FAST_SLOT;
    if (!r || !(r->mem = aligned_alloc(4096, len))) {
        free(r);
        return;
    }
    memset(r->mem, 0, len);
    uint64_t mode = ifc->info->domain_attr->mr_mode;
    int rc = fi_mr_reg(ifc->domain, r->mem, len, FI_REMOTE_WRITE, 0, mode & FI_MR_PROV_KEY ? 0 : ifc->next_key++, 0,
                       &r->mr, NULL);
    if (rc) {
        rm_log_info("ofi: rail %d: cannot register a fast-path ring: %s", ifc->rail, fi_strerror(-rc));
        free(r->mem);
        free(r);
        return;
    }
    r->path = p;
    r->inc = ifc->inc;
    r->id = ++ifc->next_ring;
    r->peer_gen = p->peer_gen;
    ofi_ctl_t c = {.type = OFI_CTL_RING, .id = r->id, .key = fi_mr_key(r->mr), .val = r->peer_gen,
                   .addr = mode & FI_MR_VIRT_ADDR ? (uint64_t)(uintptr_t)r->mem : 0};
    if (ofi_ctl_send(p, &c) != RM_OK) {
        fi_close(&r->mr->fid); /* no buffer now: the next message tries again */
        free(r->mem);
        free(r);
        return;
    }
    r->next = ifc->rings;
    ifc->rings = r;
    ifc->nrings++;
    p->ring = r;
    rm_log_debug("ofi: rail %d: ring %u for rank %d's small frames", ifc->rail, r->id, p->peer);
}

/* The ring is taken off the poll list and its registration closed (a
 * provider that checks each packet against it places nothing more); the
 * memory goes at the next progress pass, not under a poll that may be
 * walking it. Over a provider that carries writes in TCP streams both stay
 * until the rail closes: a write begun before the reset may still be
 * placed there whenever its connection resumes, and one that arrives after
 * a registration closed would make the provider drop the connection. */
static void ofi_ring_retire(net_path_t *p)
{
    ofi_ring_t *r = p->ring;
    p->rx_msgs = 0;
    if (!r)
        return;
    p->ring = NULL;
    rm_log_debug("ofi: rail %d: ring %u of rank %d retired after %llu frames", p->ifc->rail, r->id, p->peer,
                 (unsigned long long)r->head);
    for (ofi_ring_t **q = &p->ifc->rings; *q; q = &(*q)->next)
        if (*q == r) {
            *q = r->next;
            break;
        }
    p->ifc->nrings--;
    if (p->ifc->stream_rma) {
        p->ifc->nkept++; /* registration and memory kept: see ofi_rings_free */
    } else {
        fi_close(&r->mr->fid);
        r->mr = NULL;
    }
    p->ifc->ring_changes++;
    r->next = p->ifc->dead_rings;
    p->ifc->dead_rings = r;
}

/* A message as it goes on the wire, at d: the transport's header, the
 * frame header, the upper header, the payload. Its length. */
static size_t ofi_pack(const net_path_t *p, unsigned char *d, const net_frame_hdr_t *hdr, const void *upper,
                       const struct iovec *iov, int iovcnt)
{
    const net_iface_t *ifc = p->ifc;
    ofi_wire_t w = {.magic = OFI_MAGIC, .src = (uint32_t)ifc->env.world_rank, .job = ifc->job, .gen = p->epoch};
    memcpy(d, &w, sizeof w);
    memcpy(d + sizeof w, hdr, sizeof *hdr);
    size_t off = sizeof w + sizeof *hdr;
    memcpy(d + off, upper, hdr->hlen);
    off += hdr->hlen;
    for (int i = 0; i < iovcnt; i++) {
        memcpy(d + off, iov[i].iov_base, iov[i].iov_len);
        off += iov[i].iov_len;
    }
    return off;
}

/* The tag of a ring slot's n-th use (counted from 0): never 0, which a
 * zeroed slot holds. */
static inline uint32_t ofi_fast_tag(uint64_t n)
{
    return (uint32_t)(n % 0xffffffffu) + 1;
}

/* A small frame written into the peer's ring: RM_ERR_NO_RESOURCE when it
 * does not fit, no slot is free or the provider is full (the caller sends
 * it instead; it checked that a send buffer is free). */
static rm_status_t ofi_fast_send(net_path_t *p, const net_frame_hdr_t *hdr, const void *upper, const struct iovec *iov,
                                 int iovcnt)
{
    net_iface_t *ifc = p->ifc;
    size_t len = sizeof(ofi_wire_t) + sizeof *hdr + hdr->hlen + hdr->len;
    if (len > OFI_FAST_ROOM || p->fast_sent - p->fast_credit >= OFI_FAST_SLOTS)
        return RM_ERR_NO_RESOURCE;
    ofi_buf_t *b = ifc->tx_free;
    uint64_t n = p->fast_sent;
    uint32_t tag = ofi_fast_tag(n), ln = (uint32_t)len;
    unsigned char *d = b->data;
    memcpy(d, &ln, 4);
    memcpy(d + 4, &tag, 4);
    size_t off = OFI_FAST_HEAD + ofi_pack(p, d + OFI_FAST_HEAD, hdr, upper, iov, iovcnt);
    off = (off + 3) & ~(size_t)3;
    memcpy(d + off, &tag, 4);
    off += 4;
    uint64_t at = p->fast_addr + (n % OFI_FAST_SLOTS) * OFI_FAST_SLOT;
    ssize_t rc = fi_write(ifc->ep, d, off, ifc->mr_desc, p->fa, at, p->fast_key, &b->ctx);
    if (rc == -FI_EAGAIN)
        return RM_ERR_NO_RESOURCE;
    if (rc) {
        rm_log_info("ofi: rail %d: fast-path write to rank %d: %s", ifc->rail, p->peer, fi_strerror((int)-rc));
        return RM_ERR_CONN_RESET;
    }
    ofi_tx_taken(ifc, p, b, off);
    p->fast_sent++;
    p->fast_frames++;
    return RM_OK;
}

static rm_status_t ofi_send(net_path_t *p, const net_frame_hdr_t *hdr, const void *upper, const struct iovec *iov,
                            int iovcnt)
{
    net_iface_t *ifc = p->ifc;
    if (p->broken)
        return RM_ERR_CONN_RESET;
    if (!ifc->tx_free || p->inflight >= OFI_PATH_TX_MAX) {
        p->was_full = 1;
        return RM_ERR_NO_RESOURCE;
    }
    if (hdr->len > OFI_PAYLOAD_MAX || hdr->hlen > NET_UPPER_MAX)
        return RM_ERR_INVALID;
    if (p->fast) {
        rm_status_t st = ofi_fast_send(p, hdr, upper, iov, iovcnt);
        if (st != RM_ERR_NO_RESOURCE)
            return st;
    }
    ofi_buf_t *b = ifc->tx_free;
    size_t off = ofi_pack(p, b->data, hdr, upper, iov, iovcnt);
    ssize_t rc = fi_send(ifc->ep, b->data, off, ifc->mr_desc, p->fa, &b->ctx);
    if (rc == -FI_EAGAIN) {
        p->was_full = 1;
        return RM_ERR_NO_RESOURCE;
    }
    if (rc) {
        rm_log_info("ofi: rail %d: send to rank %d: %s", ifc->rail, p->peer, fi_strerror((int)-rc));
        return RM_ERR_CONN_RESET;
    }
    ofi_tx_taken(ifc, p, b, off);
    return RM_OK;
}

static void ofi_tx_done(net_iface_t *ifc, ofi_buf_t *b, int failed)
{
    net_path_t *p = b->path;
    if (p && b->epoch == p->epoch) {
        p->inflight--;
        p->queued -= b->len;
        if (!failed)
            p->tx_done += b->len;
        if (failed)
            ofi_path_error(p, RM_ERR_CONN_RESET);
    }
    b->path = NULL;
    b->next = ifc->tx_free;
    ifc->tx_free = b;
    ifc->tx_busy--;
}

/* A control message of the peer's transport. A ring's address is taken
 * only if it was made for this side's current generation and no newer one
 * of the peer's was seen since: a ring of before a reset on either side
 * is retired there. */
static rm_status_t ofi_path_readdress(net_path_t *p);
static void ofi_path_error(net_path_t *p, rm_status_t why);

/* The peer renewed its endpoint (ofi_renew; by ADDR on the path itself or
 * over another path, ofi_addr_learn): what we sent its old one is lost, and
 * no write of ours given up on earlier can reach it any more. Sends go to
 * the new one from now on; a path that was up fails, so that the rail layer
 * sends its frames again (and its writes are made again) and connects it
 * anew. */
static void ofi_peer_renewed(net_path_t *p, uint32_t inc, const void *name, size_t len)
{
    if (inc <= p->peer_inc || !len || len > sizeof p->addr)
        return;
    rm_log_info("ofi: rail %d: rank %d renewed its endpoint (incarnation %u)", p->ifc->rail, p->peer, inc);
    p->peer_inc = inc;
    p->stuck_late = 0;
    memcpy(p->addr, name, len);
    p->addrlen = len;
    ofi_path_readdress(p);
    if (!p->broken && !p->announce_up)
        ofi_path_error(p, RM_ERR_CONN_RESET);
}

static void ofi_ctl_recv(net_path_t *p, const ofi_wire_t *w, const ofi_ctl_t *c, const void *extra, size_t elen)
{
    if (c->type == OFI_CTL_RING) {
        if (w->gen < p->peer_gen || c->val != p->epoch || p->broken || !p->ifc->fast)
            return;
        p->fast = 1;
        p->fast_id = c->id;
        p->fast_addr = c->addr;
        p->fast_key = c->key;
        p->fast_gen = w->gen;
        p->fast_sent = p->fast_credit = 0;
    } else if (c->type == OFI_CTL_CREDIT) {
        if (p->fast && c->id == p->fast_id && c->val > p->fast_credit && c->val <= p->fast_sent)
            p->fast_credit = c->val;
    } else if (c->type == OFI_CTL_ADDR && elen == c->val) {
        ofi_peer_renewed(p, c->id, extra, elen);
    }
}

/* A message of the peer's, from a posted receive (ring NULL) or from our
 * ring of the path. */
static void ofi_deliver(net_iface_t *ifc, const unsigned char *data, size_t len, ofi_ring_t *ring)
{
    /* the headers copied out: in a multi-receive buffer a message starts
     * wherever the one before it ended, at any alignment */
    ofi_wire_t wire = {0};
    net_frame_hdr_t fh = {0};
    if (len >= sizeof wire)
        memcpy(&wire, data, sizeof wire);
    if (len >= sizeof wire + sizeof fh)
        memcpy(&fh, data + sizeof wire, sizeof fh);
    const ofi_wire_t *w = &wire;
    const net_frame_hdr_t *hdr = &fh;
    size_t need = sizeof *w + sizeof *hdr;
    if (len >= sizeof *w && w->magic == OFI_MAGIC_CTL && !ring && w->job == ifc->job &&
        w->src < (uint32_t)ifc->env.world_size && len >= sizeof *w + sizeof(ofi_ctl_t)) {
        net_path_t *p = ifc->peers[w->src];
        if (p) {
            ofi_ctl_t c;
            memcpy(&c, data + sizeof *w, sizeof c);
            p->rx_bytes += len;
            ofi_ctl_recv(p, w, &c, data + sizeof *w + sizeof c, len - sizeof *w - sizeof c);
        }
        return;
    }
    if (len < need || w->magic != OFI_MAGIC || w->job != ifc->job || w->src >= (uint32_t)ifc->env.world_size ||
        (ring && w->src != (uint32_t)ring->path->peer) || hdr->hlen > NET_UPPER_MAX ||
        len != need + hdr->hlen + hdr->len) {
        rm_log_info("ofi: rail %d: dropped a message that is not this job's (%zu bytes)", ifc->rail, len);
        return;
    }
    net_path_t *p = ifc->peers[w->src];
    if (!p)
        return;
    p->addr_known = 1; /* it reached this endpoint */
    if (w->gen > p->peer_gen) {
        p->peer_gen = w->gen;
        /* the peer reset the path: its place in our ring is gone, and the
         * ring it gave us may be too */
        if (p->ring && p->ring->peer_gen != w->gen)
            ofi_ring_retire(p);
        if (p->fast && p->fast_gen != w->gen)
            p->fast = 0;
    }
    /* The peer reset the path after we did and reaches us again: what a new
     * connection is to an accepting TCP side. Up first, so that a probe
     * this message carries is answered. */
    if (p->broken && !p->closed && !p->announce_up && w->gen > p->reset_gen) {
        p->broken = 0;
        ifc->env.up.up(p->owner, ifc->rail);
    }
    p->rx_bytes += len;
    const unsigned char *upper = data + need;
    ifc->env.up.recv(p->owner, ifc->rail, hdr, upper, hdr->len ? upper + hdr->hlen : NULL);
    if (!ring && ifc->fast && !p->ring && !p->broken && ++p->rx_msgs >= OFI_FAST_AFTER)
        ofi_ring_make(p);
}

/* A message arrived (its place: the buffer, or where in a multi-receive
 * buffer the completion says). The buffer is posted again once it is handed
 * back (a multi-receive one: FI_MULTI_RECV), unless the delivery renewed the
 * endpoint, which posted every receive buffer on the new one. Nothing keeps
 * a pointer into a delivered message: the layers above copy what they keep. */
static void ofi_rx_done(net_iface_t *ifc, ofi_buf_t *b, const struct fi_cq_data_entry *ev)
{
    uint32_t inc = ifc->inc;
    if (!ifc->mrecv) {
        ofi_deliver(ifc, b->data, ev->len, NULL);
    } else if ((ev->flags & FI_RECV) && ev->len) {
        const unsigned char *at = ev->buf;
        if (at >= b->data && at < b->data + b->len && ev->len <= (size_t)(b->data + b->len - at))
            ofi_deliver(ifc, at, ev->len, NULL);
        else
            rm_log_info("ofi: rail %d: a receive completion points outside its buffer: dropped", ifc->rail);
    }
    if (ifc->inc == inc && (!ifc->mrecv || (ev->flags & FI_MULTI_RECV)))
        ofi_post_recv(ifc, b);
}

/* The frames the peers wrote into our rings, in order; each slot zeroed
 * once taken (a slot's closing tag is then never met in what an earlier,
 * longer frame left there), and the peer told what was taken every half
 * ring. A ring retired meanwhile (a delivery can reset its path) ends the
 * pass: the list changed under it. */
static int ofi_fast_poll(net_iface_t *ifc)
{
    int n = 0;
    for (ofi_ring_t *r = ifc->rings; r; r = r->next) {
        uint32_t changes = ifc->ring_changes;
        for (;;) {
            unsigned char *slot = r->mem + (r->head % OFI_FAST_SLOTS) * OFI_FAST_SLOT;
            uint32_t tag = ofi_fast_tag(r->head), len;
            if (__atomic_load_n((uint32_t *)(void *)(slot + 4), __ATOMIC_ACQUIRE) != tag)
                break;
            memcpy(&len, slot, 4);
            size_t end = OFI_FAST_HEAD + (((size_t)len + 3) & ~(size_t)3);
            if (len > OFI_FAST_ROOM) {
                rm_log_info("ofi: rail %d: a fast-path slot from rank %d is malformed (%u bytes)", ifc->rail,
                            r->path->peer, len);
                ofi_path_error(r->path, RM_ERR_IO);
                return n;
            }
            if (__atomic_load_n((uint32_t *)(void *)(slot + end), __ATOMIC_ACQUIRE) != tag)
                break; /* still arriving */
            r->head++;
            n++;
            ofi_deliver(ifc, slot + OFI_FAST_HEAD, len, r);
            memset(slot, 0, end + 4);
            if (ifc->ring_changes != changes)
                return n;
        }
        if (r->head - r->reported >= OFI_FAST_SLOTS / 2) {
            ofi_ctl_t c = {.type = OFI_CTL_CREDIT, .id = r->id, .val = r->head};
            if (ofi_ctl_send(r->path, &c) == RM_OK)
                r->reported = r->head;
        }
    }
    return n;
}

/* Retired rings' memory: at each progress pass, except over a provider
 * that carries writes in TCP streams, where it is kept until the rail
 * closes or its endpoint is renewed (ofi_ring_retire; at most OFI_FAST_KEPT
 * rings, after which the rail makes no new ones): an abandoned endpoint
 * places nothing more. `all`: every one (the rail closes). */
static void ofi_rings_free(net_iface_t *ifc, int all)
{
    for (ofi_ring_t **q = &ifc->dead_rings; *q;) {
        ofi_ring_t *r = *q;
        if (!all && ifc->stream_rma && r->inc == ifc->inc) {
            q = &r->next;
            continue;
        }
        *q = r->next;
        if (r->mr)
            fi_close(&r->mr->fid);
        free(r->mem);
        free(r);
    }
}

static int ofi_is_rma(const net_iface_t *ifc, const void *ctx)
{
    return (const char *)ctx >= (const char *)ifc->rma_ops && (const char *)ctx < (const char *)(ifc->rma_ops + OFI_RMA_OPS);
}

/* The provider handed a write back: its bytes landed (failed = 0) or not.
 * A failed write fails its path, as a failed send does. */
static void ofi_rma_done(net_iface_t *ifc, ofi_rma_op_t *op, int failed)
{
    net_path_t *p = op->path;
    int abandoned = op->abandoned;
    net_rma_fn fn = op->fn;
    void *arg = op->arg;
    op->path = NULL;
    op->next = ifc->rma_free;
    ifc->rma_free = op;
    if (!failed)
        p->rx_bytes += op->len; /* the peer confirmed them: a sign of life */
    else if (!abandoned)
        ofi_path_error(p, RM_ERR_CONN_RESET);
    fn(arg, failed ? RM_ERR_IO : RM_OK, 1);
}

static int ofi_progress(net_iface_t *ifc)
{
    int n = 0;
    if (ifc->dead_rings && (!ifc->stream_rma || ifc->nkept_old))
        ofi_rings_free(ifc, 0);
    ifc->nkept_old = 0;
    if (ifc->error_due) {
        /* paths a renewal dropped (ofi_renew): failed, so that the rail
         * layer sends their frames again and connects them anew */
        ifc->error_due = 0;
        for (int r = 0; r < ifc->env.world_size; r++) {
            net_path_t *p = ifc->peers[r];
            if (p && p->error_due) {
                p->error_due = 0;
                ifc->env.up.error(p->owner, ifc->rail, RM_ERR_CONN_RESET);
                n++;
            }
        }
    }
    if (ifc->dead)
        return n;
    if (ifc->addr_due) {
        /* a renewed endpoint's address, before the path reports up (and
         * the rail layer probes it): the peer answers to it */
        ifc->addr_due = 0;
        for (int r = 0; r < ifc->env.world_size; r++) {
            net_path_t *p = ifc->peers[r];
            if (p && p->addr_due) {
                rm_status_t st = p->broken ? RM_ERR_CONN_RESET : ofi_addr_send(p);
                if (st == RM_ERR_NO_RESOURCE)
                    ifc->addr_due = 1;
                else
                    p->addr_due = 0;
            }
        }
    }
    if (ifc->announce) {
        ifc->announce = 0;
        for (int r = 0; r < ifc->env.world_size; r++) {
            net_path_t *p = ifc->peers[r];
            if (p && p->announce_up && p->addr_due) {
                ifc->announce = 1;
            } else if (p && p->announce_up) {
                p->announce_up = 0;
                ifc->env.up.up(p->owner, ifc->rail);
                n++;
            }
        }
    }
    uint32_t inc = ifc->inc;
    struct fi_cq_data_entry ev[16];
    for (;;) {
        ssize_t got = fi_cq_read(ifc->cq, ev, 16);
        if (got == -FI_EAGAIN)
            break;
        if (got == -FI_EAVAIL) {
            struct fi_cq_err_entry err = {0};
            if (fi_cq_readerr(ifc->cq, &err, 0) != 1)
                break;
            ofi_buf_t *b = err.op_context;
            ifc->troubled = 1;
            if (!b)
                continue;
            if (ofi_is_rma(ifc, b)) {
                rm_log_info("ofi: rail %d: a remote write failed: %s", ifc->rail,
                            fi_cq_strerror(ifc->cq, err.prov_errno, err.err_data, NULL, 0));
                ofi_rma_done(ifc, err.op_context, 1);
            } else if (b->tx) {
                rm_log_info("ofi: rail %d: a send failed: %s", ifc->rail,
                            fi_cq_strerror(ifc->cq, err.prov_errno, err.err_data, NULL, 0));
                ofi_tx_done(ifc, b, 1);
            } else if (err.err != FI_ECANCELED && (!ifc->mrecv || (err.flags & FI_MULTI_RECV))) {
                ofi_post_recv(ifc, b); /* a multi-receive buffer stays posted unless handed back */
            }
            n++;
            if (ifc->inc != inc)
                return n;
            continue;
        }
        if (got < 0) {
            rm_log_error("ofi: rail %d: fi_cq_read: %s", ifc->rail, fi_strerror((int)-got));
            break;
        }
        for (ssize_t i = 0; i < got; i++) {
            ofi_buf_t *b = ev[i].op_context;
            if (ofi_is_rma(ifc, b))
                ofi_rma_done(ifc, ev[i].op_context, 0);
            else if (b->tx)
                ofi_tx_done(ifc, b, 0);
            else
                ofi_rx_done(ifc, b, &ev[i]);
            if (ifc->inc != inc)
                return n + (int)i + 1; /* renewed: the rest is the old endpoint's */
        }
        n += (int)got;
        if (got < 16)
            break;
    }
    if (ifc->rings)
        n += ofi_fast_poll(ifc);
    return n;
}

/* The path's writes are told to go elsewhere; they may still be carried
 * out (the provider is not asked to cancel them: rxm cannot), so each
 * reports again when the provider hands it back. */
static void ofi_rma_giveup(net_path_t *p)
{
    net_iface_t *ifc = p->ifc;
    for (int i = 0; i < OFI_RMA_OPS; i++) {
        ofi_rma_op_t *op = &ifc->rma_ops[i];
        if (op->path == p && !op->abandoned) {
            op->abandoned = 1;
            op->fn(op->arg, RM_ERR_CONN_RESET, 0);
        }
    }
}

static void ofi_path_forget(net_path_t *p)
{
    ofi_rma_giveup(p);
    ofi_ring_retire(p);
    p->fast = 0;
    p->broken = 1;
    p->epoch++;
    p->inflight = 0;
    p->queued = 0;
    p->announce_up = 0;
    p->reset_gen = p->peer_gen;
}

static void ofi_path_close(net_path_t *p)
{
    /* the path stays in the peer table: a late message from the peer still
     * finds it, and its sends' completions return their buffers */
    ofi_path_forget(p);
    p->closed = 1;
}

/* The address again, under a new handle. A handle is removed only once: a
 * second removal of the same one is undefined (rxm frees its entry). */
static rm_status_t ofi_path_readdress(net_path_t *p)
{
    net_iface_t *ifc = p->ifc;
    fi_addr_t fa;
    if (ifc->dead)
        return RM_ERR_UNREACHABLE;
    if (p->fa != FI_ADDR_NOTAVAIL)
        fi_av_remove(ifc->av, &p->fa, 1, 0);
    p->fa = FI_ADDR_NOTAVAIL;
    if (fi_av_insert(ifc->av, p->addr, 1, &fa, 0, NULL) != 1) {
        rm_log_info("ofi: rail %d: cannot add rank %d's address again", ifc->rail, p->peer);
        return RM_ERR_UNREACHABLE;
    }
    p->fa = fa;
    return RM_OK;
}

/* ---- endpoint renewal ---------------------------------------------------
 *
 * A provider that carries remote writes in TCP streams (tcp, sockets)
 * checks a write's key when the write's header arrives and then places its
 * bytes as they come. A write caught by an outage, given up and written
 * again on another rail, would place its rest whenever its connection
 * resumes, seconds later, into a receive buffer long handed back; removing
 * the registration does not stop it, closing the endpoint would, but
 * libfabric 1.17's rxm crashes closing an endpoint whose connections
 * failed. So the receiver leaves such an endpoint for a new one instead:
 * the old one is never progressed again (data progress is manual, so
 * nothing reaching it is placed) and never closed; the new one's address
 * goes to each peer over the path itself (ADDR, before the path reports
 * up), and the peers' sends and writes to the old one are lost and made
 * again by the rail layer and proto/rdma.c. Which writes may still come is
 * the sender's knowledge (rma_stuck); it names the rails and incarnations
 * with WDONE, and the receiver renews (path_fence) before it lets go. */

static void ofi_renew(net_iface_t *ifc)
{
    ofi_abandon(ifc, 0);
    /* the pool stays mapped (the old endpoint still names it) but gives its
     * pages back: nothing reads or writes it any more */
    madvise(ifc->pool, OFI_POOL_LEN, MADV_DONTNEED);
    ifc->domain = NULL;
    ifc->av = NULL;
    ifc->cq = NULL;
    ifc->ep = NULL;
    ifc->mr = NULL;
    ifc->mr_desc = NULL;
    ifc->pool = NULL;
    ifc->inc++;
    /* Writes still in the old endpoint (given up by now: ofi_path_fence
     * waited for the others) never report again: over for the layer above.
     * One to the peer's current incarnation may still be placed there (its
     * bytes may be in the kernel's socket): the path says so (rma_stuck)
     * until the peer renews its own. */
    for (int i = 0; i < OFI_RMA_OPS; i++) {
        ofi_rma_op_t *op = &ifc->rma_ops[i];
        net_path_t *p = op->path;
        if (!p)
            continue;
        if (op->inc == p->peer_inc)
            p->stuck_late = 1;
        if (!op->abandoned) {
            op->abandoned = 1;
            op->fn(op->arg, RM_ERR_CONN_RESET, 0);
        }
        op->path = NULL;
        op->fn(op->arg, RM_ERR_IO, 1);
    }
    ofi_rma_ops_free(ifc);
    for (int r = 0; r < ifc->env.world_size; r++)
        if (ifc->peers[r])
            ofi_path_forget(ifc->peers[r]);
    ifc->nkept = 0;
    ifc->nkept_old = 1;
    rm_status_t st = ofi_ep_open(ifc);
    if (st != RM_OK) {
        rm_log_error("ofi: rail %d: cannot open a new endpoint (%s): the rail carries nothing more", ifc->rail,
                     rm_status_str(st));
        ifc->dead = 1;
    }
    for (int r = 0; r < ifc->env.world_size; r++) {
        net_path_t *p = ifc->peers[r];
        if (!p)
            continue;
        p->fa = FI_ADDR_NOTAVAIL;
        p->addr_known = 0;
        if (!ifc->dead && fi_av_insert(ifc->av, p->addr, 1, &p->fa, 0, NULL) != 1)
            p->fa = FI_ADDR_NOTAVAIL;
        if (!p->closed) {
            p->error_due = 1;
            ifc->error_due = 1;
        }
    }
    if (ifc->inc >= OFI_RENEW_MAX && ifc->rma) {
        rm_log_info("ofi: rail %d: %d endpoint renewals: no more remote writes on this rail", ifc->rail,
                    OFI_RENEW_MAX);
        ifc->rma = 0;
    }
    rm_log_info("ofi: rail %d: endpoint renewed (incarnation %u): writes given up on may still reach the old one",
                ifc->rail, ifc->inc);
}

/* Renewal waits until our own writes on the rail are handed back: one
 * still in the old endpoint may already be in the kernel's socket and
 * would have to be fenced by its receiver in turn (two ranks writing to
 * each other would renew by turns). Meanwhile the rail takes no new
 * writes. A write that takes longer than half a path timeout is given up
 * (it then counts as possibly still coming, rma_stuck). */
static int ofi_path_fence(net_path_t *p, uint32_t inc)
{
    net_iface_t *ifc = p->ifc;
    if (!ifc->stream_rma || ifc->dead || inc != ifc->inc)
        return 1; /* nothing to fence, or renewed since */
    uint64_t now = rm_now();
    if (!ifc->fence_at)
        ifc->fence_at = now;
    int live = 0;
    for (int i = 0; i < OFI_RMA_OPS; i++)
        live += ifc->rma_ops[i].path && !ifc->rma_ops[i].abandoned;
    if (live && now - ifc->fence_at < (uint64_t)RM_CFG(path_timeout_ms) * 500000ull)
        return 0;
    for (int r = 0; live && r < ifc->env.world_size; r++)
        if (ifc->peers[r])
            ofi_rma_giveup(ifc->peers[r]);
    ifc->fence_at = 0;
    ofi_renew(ifc);
    return 1;
}

/* Writes given up on still in the provider would go on reading their
 * source whenever their connection lets them: the endpoint is renewed
 * (after our live writes drained, as for a fence). */
static int ofi_rma_release(net_path_t *p)
{
    net_iface_t *ifc = p->ifc;
    int held = 0;
    for (int i = 0; i < OFI_RMA_OPS && !held; i++)
        held = ifc->rma_ops[i].path && ifc->rma_ops[i].abandoned;
    return !held || ofi_path_fence(p, ifc->inc);
}

/* What goes over another path while the peer may not know our renewed
 * endpoint (rail_channel_addr_out): the incarnation, the name's length,
 * the name. */
static size_t ofi_addr_renewed(net_path_t *p, void *buf, size_t len)
{
    net_iface_t *ifc = p->ifc;
    unsigned char name[256];
    size_t nl = sizeof name;
    uint32_t h[2];
    if (!ifc->inc || ifc->dead || p->addr_known || p->closed || fi_getname(&ifc->ep->fid, name, &nl) ||
        sizeof h + nl > len)
        return 0;
    h[0] = ifc->inc;
    h[1] = (uint32_t)nl;
    memcpy(buf, h, sizeof h);
    memcpy((unsigned char *)buf + sizeof h, name, nl);
    return sizeof h + nl;
}

static void ofi_addr_learn(net_path_t *p, const void *buf, size_t len)
{
    uint32_t h[2];
    if (len < sizeof h)
        return;
    memcpy(h, buf, sizeof h);
    if (h[1] == len - sizeof h)
        ofi_peer_renewed(p, h[0], (const unsigned char *)buf + sizeof h, h[1]);
}

static int ofi_rma_stuck(net_path_t *p, uint32_t *inc)
{
    net_iface_t *ifc = p->ifc;
    if (!ifc->stream_rma)
        return 0;
    int stuck = p->stuck_late;
    for (int i = 0; i < OFI_RMA_OPS && !stuck; i++) {
        const ofi_rma_op_t *op = &ifc->rma_ops[i];
        stuck = op->path == p && op->abandoned && op->inc == p->peer_inc;
    }
    *inc = p->peer_inc;
    return stuck;
}

static size_t ofi_max_payload(net_iface_t *ifc)
{
    (void)ifc;
    return OFI_PAYLOAD_MAX;
}

static size_t ofi_queued(net_path_t *p)
{
    return p->queued;
}

static uint64_t ofi_rx_bytes(net_path_t *p)
{
    return p->rx_bytes;
}

/* Judged dead: forget what the provider still holds for it (a late
 * completion of one of those sends is ignored; the frames are resent by the
 * rail layer and duplicates dropped by sequence number). The path is up
 * again when this side reconnects (either side does: the transport is
 * NET_CAP_CONNLESS, see rail/health.c) or when a message of the peer's newer
 * generation arrives first (ofi_rx_done). The provider's connection
 * underneath is left alone: rxm over tcp resumes it when TCP retransmits
 * after the outage. Dropping it (fi_av_remove with FI_AV_REMOVE_CLEANUP=1) would bring the path back
 * sooner, but libfabric 1.17's rxm then crashes on connections it had
 * closed itself after an error (docs/transport-ofi.md). */
static void ofi_path_reset(net_path_t *p)
{
    rm_log_debug("ofi: rail %d: reset the path to rank %d (generation %llu): %d sends in the provider, %d of them its",
                 p->ifc->rail, p->peer, (unsigned long long)p->epoch, p->ifc->tx_busy, p->inflight);
    p->ifc->troubled = 1;
    ofi_path_forget(p);
    ofi_cap_rto(p->ifc, 0);
}

/* No connection to rebuild on a reliable-datagram endpoint: the address is
 * inserted again (a provider that keeps connections underneath, as rxm
 * does, keeps or re-establishes them itself), the generation moves on, and
 * the path reports up from the next progress pass, where the rail layer
 * probes it before it carries data. */
static rm_status_t ofi_reconnect(net_path_t *p)
{
    net_iface_t *ifc = p->ifc;
    if (p->closed)
        return RM_ERR_CLOSED;
    if (ifc->dead || ofi_path_readdress(p) != RM_OK)
        return RM_ERR_UNREACHABLE;
    ofi_cap_rto(ifc, 0);
    p->epoch++; /* a new generation: the peer takes it as a new connection */
    p->inflight = 0;
    p->queued = 0;
    p->broken = 0;
    p->error_due = 0;
    p->announce_up = 1;
    ifc->announce = 1;
    if (ifc->inc) { /* a renewed endpoint: its address first */
        p->addr_due = 1;
        ifc->addr_due = 1;
    }
    return RM_OK;
}

/* What the provider took of the path's sends lately: completed bytes over
 * time. A send completes when the provider has handed the data on (rxm over
 * tcp: to the kernel's socket, whose buffer fills at the network's pace),
 * so the rate is the network's only while the path kept the provider full;
 * otherwise it says only that the path carries at least that much. */
static int ofi_measure(net_path_t *p, net_measure_t *m)
{
    if (p->broken)
        return -1;
    uint64_t now = rm_now();
    memset(m, 0, sizeof *m);
    if (p->m_at && now > p->m_at && p->tx_done > p->m_bytes) {
        m->rate = (double)(p->tx_done - p->m_bytes) * 1e9 / (double)(now - p->m_at);
        m->rate_limited = !p->was_full;
    }
    p->m_at = now;
    p->m_bytes = p->tx_done;
    p->was_full = p->inflight >= OFI_PATH_TX_MAX;
    return 0;
}

/* ---- remote writes ----------------------------------------------------- */

/* Registered for the length of one rendezvous and closed after it: railmpi
 * keeps no registrations across messages, so memory the application frees
 * or unmaps is never named by a stale one. Where registering costs (pinning
 * pages on a NIC), libfabric's own cache keeps the registration for the
 * next message and its memory monitor (FI_MR_CACHE_MONITOR) drops it when
 * the memory is unmapped (docs/transport-ofi.md). */
static rm_status_t ofi_mr_reg(net_iface_t *ifc, void *buf, size_t len, int remote, net_mr_t **out)
{
    if (!ifc->rma)
        return RM_ERR_UNSUPPORTED;
    net_mr_t *m = calloc(1, sizeof *m);
    if (!m)
        return RM_ERR_NOMEM;
    uint64_t mode = ifc->info->domain_attr->mr_mode;
    m->inc = ifc->inc;
    if (!remote && !(mode & FI_MR_LOCAL)) {
        *out = m; /* the provider takes our buffers unregistered (desc NULL) */
        return RM_OK;
    }
    int rc = fi_mr_reg(ifc->domain, buf, len, remote ? FI_REMOTE_WRITE : FI_WRITE, 0,
                       mode & FI_MR_PROV_KEY ? 0 : ifc->next_key++, 0, &m->mr, NULL);
    if (rc) {
        rm_log_info("ofi: rail %d: cannot register %zu bytes: %s", ifc->rail, len, fi_strerror(-rc));
        free(m);
        return RM_ERR_NO_RESOURCE;
    }
    m->desc = fi_mr_desc(m->mr);
    m->key = fi_mr_key(m->mr);
    m->base = mode & FI_MR_VIRT_ADDR ? (uint64_t)(uintptr_t)buf : 0;
    *out = m;
    return RM_OK;
}

static void ofi_mr_remote(const net_mr_t *m, uint64_t *key, uint64_t *base, uint32_t *inc)
{
    *key = m->key;
    *base = m->base;
    *inc = m->inc;
}

static void ofi_mr_dereg(net_mr_t *m)
{
    if (!m)
        return;
    if (m->mr)
        fi_close(&m->mr->fid);
    free(m);
}

/* Delivery complete: the completion says the bytes are in the peer's
 * memory, not only handed to the network, so the layer above knows what
 * arrived without asking. */
static rm_status_t ofi_rma_write(net_path_t *p, const void *src, net_mr_t *local, size_t len, uint64_t raddr,
                                 uint64_t key, uint32_t inc, net_rma_fn fn, void *arg)
{
    net_iface_t *ifc = p->ifc;
    if (p->broken)
        return RM_ERR_CONN_RESET;
    if (!ifc->rma || inc != p->peer_inc || ifc->fence_at)
        return RM_ERR_UNSUPPORTED; /* the key died with the peer's endpoint, or is of one we do not reach
                                    * yet; or our endpoint is about to be renewed */
    ofi_rma_op_t *op = ifc->rma_free;
    if (!op)
        return RM_ERR_NO_RESOURCE;
    struct iovec iov = {.iov_base = (void *)src, .iov_len = len};
    void *desc = local ? local->desc : NULL;
    struct fi_rma_iov riov = {.addr = raddr, .len = len, .key = key};
    struct fi_msg_rma msg = {.msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = p->fa,
                             .rma_iov = &riov, .rma_iov_count = 1, .context = &op->ctx};
    ssize_t rc = fi_writemsg(ifc->ep, &msg, FI_COMPLETION | FI_DELIVERY_COMPLETE);
    if (rc == -FI_EAGAIN)
        return RM_ERR_NO_RESOURCE;
    if (rc) {
        rm_log_info("ofi: rail %d: write to rank %d: %s", ifc->rail, p->peer, fi_strerror((int)-rc));
        return RM_ERR_CONN_RESET;
    }
    ifc->rma_free = op->next;
    op->path = p;
    op->len = len;
    op->inc = inc;
    op->abandoned = 0;
    op->fn = fn;
    op->arg = arg;
    return RM_OK;
}

static uint64_t ofi_fast_frames(net_path_t *p)
{
    return p->fast_frames;
}

static const char *ofi_rail_name(net_iface_t *ifc)
{
    return ifc->domain_name;
}

const net_ops_t net_ofi_ops = {
    .name = "ofi",
    .caps = NET_CAP_CONNLESS,
    .query = ofi_query,
    .open = ofi_open,
    .close = ofi_close,
    .addr_pack = ofi_addr_pack,
    .connect = ofi_connect,
    .send = ofi_send,
    .progress = ofi_progress,
    .path_close = ofi_path_close,
    .max_payload = ofi_max_payload,
    .queued = ofi_queued,
    .rx_bytes = ofi_rx_bytes,
    .path_reset = ofi_path_reset,
    .reconnect = ofi_reconnect,
    .rail_name = ofi_rail_name,
    .measure = ofi_measure,
    .mr_reg = ofi_mr_reg,
    .mr_remote = ofi_mr_remote,
    .mr_dereg = ofi_mr_dereg,
    .rma_write = ofi_rma_write,
    .fast_frames = ofi_fast_frames,
    .rma_stuck = ofi_rma_stuck,
    .path_fence = ofi_path_fence,
    .rma_giveup = ofi_rma_giveup,
    .rma_release = ofi_rma_release,
    .addr_renewed = ofi_addr_renewed,
    .addr_learn = ofi_addr_learn,
};
