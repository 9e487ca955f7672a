/* The libfabric transport's remote writes (the rendezvous of proto/rdma.c and
 * the RDMA fast path's rings are written by them), and the endpoint renewal
 * that keeps a write caught by an outage from landing late. */
#include "net/ofi_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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

void ofi_renew(net_iface_t *ifc)
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
int ofi_path_fence(net_path_t *p, uint32_t inc)
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
int ofi_rma_release(net_path_t *p)
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
size_t ofi_addr_renewed(net_path_t *p, void *buf, size_t len)
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

void ofi_addr_learn(net_path_t *p, const void *buf, size_t len)
{
    uint32_t h[2];
    if (len < sizeof h)
        return;
    memcpy(h, buf, sizeof h);
    if (h[1] == len - sizeof h)
        ofi_peer_renewed(p, h[0], (const unsigned char *)buf + sizeof h, h[1]);
}

int ofi_rma_stuck(net_path_t *p, uint32_t *inc)
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

/* ---- remote writes ----------------------------------------------------- */

/* Registered for the length of one rendezvous and closed after it: railmpi
 * keeps no registrations across messages, so memory the application frees
 * or unmaps is never named by a stale one. Where registering costs (pinning
 * pages on a NIC), libfabric's own cache keeps the registration for the
 * next message and its memory monitor (FI_MR_CACHE_MONITOR) drops it when
 * the memory is unmapped (docs/transport-ofi.md). */
rm_status_t ofi_mr_reg(net_iface_t *ifc, void *buf, size_t len, int remote, net_mr_t **out)
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

void ofi_mr_remote(const net_mr_t *m, uint64_t *key, uint64_t *base, uint32_t *inc)
{
    *key = m->key;
    *base = m->base;
    *inc = m->inc;
}

void ofi_mr_dereg(net_mr_t *m)
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
rm_status_t ofi_rma_write(net_path_t *p, const void *src, net_mr_t *local, size_t len, uint64_t raddr,
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

uint64_t ofi_fast_frames(net_path_t *p)
{
    return p->fast_frames;
}

/* ---- the RDMA fast path ------------------------------------------------
 * Small frames to a peer that sends often go by remote writes into a ring
 * of slots the receiver polls (docs/transport-ofi.md, "RDMA fast path"). */

/* Our ring for the peer's small frames, made once the peer sent enough on
 * the path, and its address sent to the peer with the peer's generation it
 * is for: a reset on either side retires it (ofi_path_forget here, a
 * message of a newer generation from the peer, ofi_deliver). */
void ofi_ring_make(net_path_t *p)
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
void ofi_ring_retire(net_path_t *p)
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

/* The tag of a ring slot's n-th use (counted from 0): never 0, which a
 * zeroed slot holds. */
static inline uint32_t ofi_fast_tag(uint64_t n)
{
    return (uint32_t)(n % 0xffffffffu) + 1;
}

/* A small frame written into the peer's ring: RM_ERR_NO_RESOURCE when it
 * does not fit, no slot is free or the provider is full (the caller sends
 * it instead; it checked that a send buffer is free). */
rm_status_t ofi_fast_send(net_path_t *p, const net_frame_hdr_t *hdr, const void *upper, const struct iovec *iov,
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

/* The frames the peers wrote into our rings, in order; each slot zeroed
 * once taken (a slot's closing tag is then never met in what an earlier,
 * longer frame left there), and the peer told what was taken every half
 * ring. A ring retired meanwhile (a delivery can reset its path) ends the
 * pass: the list changed under it. */
int ofi_fast_poll(net_iface_t *ifc)
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
void ofi_rings_free(net_iface_t *ifc, int all)
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
