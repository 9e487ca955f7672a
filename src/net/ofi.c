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
#include "net/ofi_impl.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* ---- set-up ------------------------------------------------------------ */

/* Every remote-write slot on the free list (at open, and after a renewal,
 * when the old endpoint will never hand one back). */
void ofi_rma_ops_free(net_iface_t *ifc)
{
    ifc->rma_free = NULL;
    for (int i = OFI_RMA_OPS - 1; i >= 0; i--) {
        ifc->rma_ops[i].next = ifc->rma_free;
        ifc->rma_free = &ifc->rma_ops[i];
    }
}

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

rm_status_t ofi_ep_open(net_iface_t *ifc)
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

void ofi_abandon(net_iface_t *ifc, int with_fabric)
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

void ofi_path_error(net_path_t *p, rm_status_t why)
{
    p->ifc->troubled = 1;
    if (p->broken)
        return;
    p->broken = 1;
    p->ifc->env.up.error(p->owner, p->ifc->rail, why);
}

/* The send buffer taken from the free list: the path's accounting. */
void ofi_tx_taken(net_iface_t *ifc, net_path_t *p, ofi_buf_t *b, size_t len)
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

rm_status_t ofi_ctl_send(net_path_t *p, const ofi_ctl_t *c)
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

/* A message as it goes on the wire, at d: the transport's header, the
 * frame header, the upper header, the payload. Its length. */
size_t ofi_pack(const net_path_t *p, unsigned char *d, const net_frame_hdr_t *hdr, const void *upper,
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

/* The peer renewed its endpoint (ofi_renew; by ADDR on the path itself or
 * over another path, ofi_addr_learn): what we sent its old one is lost, and
 * no write of ours given up on earlier can reach it any more. Sends go to
 * the new one from now on; a path that was up fails, so that the rail layer
 * sends its frames again (and its writes are made again) and connects it
 * anew. */
void ofi_peer_renewed(net_path_t *p, uint32_t inc, const void *name, size_t len)
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
void ofi_deliver(net_iface_t *ifc, const unsigned char *data, size_t len, ofi_ring_t *ring)
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
void ofi_rma_giveup(net_path_t *p)
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

void ofi_path_forget(net_path_t *p)
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
