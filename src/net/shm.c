/* shm: ranks on one host. Each rank owns one shared-memory segment, its
 * inbox, holding one single-producer/single-consumer ring per local sender.
 * The rings hold variable-size frames, each on whole pairs of cache lines
 * (SHM_PAIR), so a stream of small messages keeps reusing a few hot lines
 * instead of walking through the whole queue. A frame's `flag` (its byte
 * position in the ring's lifetime + 1) is written last with release order
 * and is the only thing the receiver polls, so a small message costs the receiver one cache-line
 * transfer. Before publishing a frame the producer clears the flag slot
 * where the next frame will start, so stale bytes there can never look like
 * a frame. The consumer publishes how far it has read in `head`, which the
 * producer reads only when the ring looks full.
 * Large messages do not go through the rings: read_remote copies straight
 * from the sender's buffer with process_vm_readv (single copy). */
#include "net/net.h"
#include "util/config.h"
#include "util/copy.h"
#include "util/log.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#define SHM_MAGIC 0x7261696c73686d31ull /* "railshm1" */
#define SHM_LINE 64
/* Frames and the ring's control word take whole pairs of cache lines: the
 * cores fetch lines in aligned pairs (the adjacent-line prefetch), so a
 * frame the sender writes must not share a pair with the one the receiver
 * reads, nor with the word the receiver updates; else the pair moves back
 * and forth between the cores for every frame of one line (1-8 byte
 * messages, one line each, went at 11 million/s against 17-18 in pairs). */
#define SHM_PAIR 128
/* A ring of 1 MiB (the default) ran 512-2048-byte windowed streams at
 * 1.2-1.4 x the rate of a 256 KiB one (64 in flight, 2 ranks): a window
 * that takes more than about a tenth of the ring runs slower, though
 * the ring is never full (docs/transport-shm.md). Many ranks on one host
 * get smaller rings. */
#define SHM_INBOX_BUDGET ((size_t)16 << 20)
#define SHM_RING_SMALL ((size_t)256 << 10)
#define SHM_SEGMENT_BUDGET ((size_t)64 << 20)
#define SHM_RING_MIN ((size_t)16 << 10)

typedef struct shm_cell {
    _Atomic uint64_t flag;
    uint64_t seq;
    uint32_t len;
    uint16_t flags;
    uint16_t hlen;
    unsigned char upper[NET_UPPER_MAX];
    unsigned char payload[];
} shm_cell_t;

typedef struct shm_ring_ctl {
    _Alignas(SHM_LINE) _Atomic uint64_t head; /* frames consumed */
    char pad[SHM_PAIR - sizeof(uint64_t)];
} shm_ring_ctl_t;

/* A frame that only says "continue at the start of the ring". */
#define SHM_FRAME_SKIP 0x8000u

typedef struct shm_seg_hdr {
    uint64_t magic;
    uint32_t nrings, pad;
    uint64_t ring_size; /* data bytes per ring, a power of two */
    uint64_t ring_bytes;
    int32_t pid;
} shm_seg_hdr_t;

struct net_path {
    void *owner;
    int peer;      /* world rank */
    int peer_pid;
    int pidfd;     /* shm_peer_gone: the peer's process (pidfd_open); -1: ask kill(); -2: never ask */
    /* sending: my ring in the peer's inbox */
    shm_ring_ctl_t *tx_ctl;
    unsigned char *tx_cells;
    uint64_t tx_pos, tx_head;
    /* receiving: the peer's ring in my inbox */
    shm_ring_ctl_t *rx_ctl;
    unsigned char *rx_cells;
    uint64_t rx_pos;
    void *peer_map;
    size_t peer_map_len;
    struct net_iface *ifc;
};

struct net_iface {
    net_env_t env;
    int nlocal, my_local;
    int *local_of;     /* world rank -> local index or -1 */
    size_t ring_size, ring_bytes, seg_len, frame_max;
    void *seg;
    char name[128];
    int unlinked;
    int prefault; /* map the queues in ahead (RAILMPI_SHM_PREFAULT) */
    net_path_t **paths;  /* by local index */
    net_path_t **active; /* connected peers, polled by progress */
    int nactive;
};

static void shm_peer_watch(net_path_t *p);

static inline size_t shm_frame_bytes(size_t len)
{
    return (sizeof(shm_cell_t) + len + SHM_PAIR - 1) & ~(size_t)(SHM_PAIR - 1);
}

static int shm_query(const net_env_t *env)
{
    return 1;
}

static unsigned char *shm_ring_cells(void *seg, size_t ring_bytes, int ring)
{
    return (unsigned char *)seg + SHM_PAIR + ring_bytes * (size_t)ring + sizeof(shm_ring_ctl_t);
}

static shm_ring_ctl_t *shm_ring_ctl(void *seg, size_t ring_bytes, int ring)
{
    return (shm_ring_ctl_t *)((unsigned char *)seg + SHM_PAIR + ring_bytes * (size_t)ring);
}

/* Mapping a ring's pages in ahead (RAILMPI_SHM_PREFAULT). Untouched, a
 * ring's first lap takes a page fault every page in each of the two
 * processes: 5 us for the writer (the page is allocated and cleared), 0.4-9
 * for the reader on this machine kind, one every 32 small messages, so a
 * ping-pong's first 8192 round trips went at 1.5 x the latency of the
 * later ones. The owner maps its whole inbox in when it creates it, each
 * sender its own ring in the peer's inbox when it connects: about 1 ms per
 * MiB for the owner, 0.4 for a sender. It commits every queue of the host
 * at once (a host's rings take ranks^2 x ring size), hence the bound. */
static void shm_populate(const net_iface_t *ifc, void *addr, size_t len)
{
    if (!ifc->prefault)
        return;
#ifdef MADV_POPULATE_WRITE
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t a = (uintptr_t)addr & ~(page - 1), e = (uintptr_t)addr + len;
    if (madvise((void *)a, e - a, MADV_POPULATE_WRITE) != 0)
        rm_log_debug("shm: cannot map the queues in ahead (madvise MADV_POPULATE_WRITE: %s)", strerror(errno));
#else
    (void)addr;
    (void)len;
#endif
}

static rm_status_t shm_open_iface(const net_env_t *env, int dev, net_iface_t **out)
{
    net_iface_t *ifc = calloc(1, sizeof *ifc);
    if (!ifc)
        return RM_ERR_NOMEM;
    ifc->env = *env;
    ifc->local_of = malloc(sizeof(int) * (size_t)env->world_size);
    if (!ifc->local_of) {
        free(ifc);
        return RM_ERR_NOMEM;
    }
    for (int r = 0; r < env->world_size; r++) {
        if (env->node_of[r] == env->node) {
            if (r == env->world_rank)
                ifc->my_local = ifc->nlocal;
            ifc->local_of[r] = ifc->nlocal++;
        } else {
            ifc->local_of[r] = -1;
        }
    }
    size_t ring = 4096;
    while (ring < (size_t)RM_CFG(shm_ring_size))
        ring <<= 1;
    /* Keep the inboxes bounded when many ranks share a host: rings halve
     * while an inbox would pass 16 MiB, down to 256 KiB (1 MiB up to 16
     * ranks, 256 KiB from 33), then while it would pass 64 MiB. */
    while (ring > SHM_RING_SMALL && ring * (size_t)ifc->nlocal > SHM_INBOX_BUDGET)
        ring >>= 1;
    while (ring > SHM_RING_MIN && ring * (size_t)ifc->nlocal > SHM_SEGMENT_BUDGET)
        ring >>= 1;
    /* And all the host's inboxes within half of /dev/shm (a container's is
     * 64 MiB by default): a page touched past its room kills the rank with
     * SIGBUS. Its size, not its free room, which moves while the ranks
     * create theirs: every rank of the host must choose the same ring. */
    uint64_t nn = (uint64_t)ifc->nlocal * (uint64_t)ifc->nlocal, room = 0;
    struct statvfs sv;
    if (statvfs("/dev/shm", &sv) == 0 && sv.f_blocks)
        room = (uint64_t)sv.f_blocks * sv.f_frsize;
    while (room && ring > SHM_RING_MIN && nn * (ring + sizeof(shm_ring_ctl_t)) > room / 2)
        ring >>= 1;
    uint64_t host_bytes = nn * (ring + sizeof(shm_ring_ctl_t));
    rm_status_t st = RM_ERR_NO_RESOURCE;
    if (room && host_bytes > room) {
        rm_log_error("shm: /dev/shm holds %llu KiB, too little for the queues of %d ranks on this host (%llu KiB "
                     "at the least); enlarge it (a container's --shm-size) or run fewer ranks per host",
                     (unsigned long long)(room >> 10), ifc->nlocal, (unsigned long long)((host_bytes + 1023) >> 10));
        goto fail;
    }
    ifc->ring_size = ring;
    ifc->prefault = nn * ring <= (uint64_t)RM_CFG(shm_prefault); /* 8 ranks of 1 MiB rings by default */
    /* a frame never takes more than a quarter of the ring */
    ifc->frame_max = (size_t)RM_CFG(shm_frame_max);
    if (shm_frame_bytes(ifc->frame_max) > ring / 4)
        ifc->frame_max = ring / 4 - sizeof(shm_cell_t) - SHM_PAIR;
    ifc->ring_bytes = sizeof(shm_ring_ctl_t) + ring;
    ifc->seg_len = SHM_PAIR + ifc->ring_bytes * (size_t)ifc->nlocal;
    ifc->paths = calloc((size_t)ifc->nlocal, sizeof *ifc->paths);
    ifc->active = calloc((size_t)ifc->nlocal, sizeof *ifc->active);
    st = RM_ERR_NOMEM;
    if (!ifc->paths || !ifc->active)
        goto fail;
    st = RM_ERR_IO;

    snprintf(ifc->name, sizeof ifc->name, "/railmpi-%s-%d", env->job_id, env->world_rank);
    shm_unlink(ifc->name); /* a leftover of a crashed job with the same id */
    int fd = shm_open(ifc->name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0) {
        rm_log_error("shm: shm_open(%s): %s", ifc->name, strerror(errno));
        goto fail;
    }
    if (ftruncate(fd, (off_t)ifc->seg_len) < 0) {
        rm_log_error("shm: ftruncate(%s, %zu): %s (is /dev/shm large enough?)", ifc->name,
                     ifc->seg_len, strerror(errno));
        close(fd);
        shm_unlink(ifc->name);
        goto fail;
    }
    ifc->seg = mmap(NULL, ifc->seg_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (ifc->seg == MAP_FAILED) {
        rm_log_error("shm: mmap(%s): %s", ifc->name, strerror(errno));
        shm_unlink(ifc->name);
        goto fail;
    }
    shm_populate(ifc, ifc->seg, ifc->seg_len);
    shm_seg_hdr_t *h = ifc->seg;
    h->nrings = (uint32_t)ifc->nlocal;
    h->ring_size = ifc->ring_size;
    h->ring_bytes = ifc->ring_bytes;
    h->pid = (int32_t)getpid();
    atomic_thread_fence(memory_order_release);
    h->magic = SHM_MAGIC;
    *out = ifc;
    return RM_OK;

fail:
    free(ifc->paths);
    free(ifc->active);
    free(ifc->local_of);
    free(ifc);
    return st;
}

static void shm_path_close(net_path_t *p)
{
    if (!p)
        return;
    if (p->peer_map)
        munmap(p->peer_map, p->peer_map_len);
    if (p->pidfd >= 0)
        close(p->pidfd);
    net_iface_t *ifc = p->ifc;
    for (int i = 0; i < ifc->nactive; i++) {
        if (ifc->active[i] == p) {
            ifc->active[i] = ifc->active[--ifc->nactive];
            break;
        }
    }
    int li = ifc->local_of[p->peer];
    if (li >= 0 && ifc->paths[li] == p)
        ifc->paths[li] = NULL;
    free(p);
}

static void shm_ready(net_iface_t *ifc)
{
    if (!ifc->unlinked) {
        shm_unlink(ifc->name);
        ifc->unlinked = 1;
    }
}

static void shm_close(net_iface_t *ifc)
{
    for (int i = 0; i < ifc->nlocal; i++)
        shm_path_close(ifc->paths[i]);
    shm_ready(ifc);
    munmap(ifc->seg, ifc->seg_len);
    free(ifc->paths);
    free(ifc->active);
    free(ifc->local_of);
    free(ifc);
}

static rm_status_t shm_addr_pack(net_iface_t *ifc, char *buf, size_t len)
{
    int n = snprintf(buf, len, "%s", ifc->name);
    return n < 0 || (size_t)n >= len ? RM_ERR_INVALID : RM_OK;
}

static rm_status_t shm_connect(net_iface_t *ifc, int peer, const char *peer_addr, void *owner,
                               net_path_t **out)
{
    int li = peer >= 0 && peer < ifc->env.world_size ? ifc->local_of[peer] : -1;
    if (li < 0 || peer == ifc->env.world_rank)
        return RM_ERR_UNREACHABLE;
    int fd = shm_open(peer_addr, O_RDWR, 0);
    if (fd < 0) {
        rm_log_error("shm: cannot open rank %d's segment %s: %s", peer, peer_addr, strerror(errno));
        return RM_ERR_UNREACHABLE;
    }
    void *map = mmap(NULL, ifc->seg_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        rm_log_error("shm: mmap of rank %d's segment: %s", peer, strerror(errno));
        return RM_ERR_IO;
    }
    shm_seg_hdr_t *h = map;
    if (h->magic != SHM_MAGIC || h->nrings != (uint32_t)ifc->nlocal || h->ring_size != ifc->ring_size) {
        rm_log_error("shm: rank %d's segment has a different layout (mismatched RAILMPI_SHM_* settings?)",
                     peer);
        munmap(map, ifc->seg_len);
        return RM_ERR_INVALID;
    }
    net_path_t *p = calloc(1, sizeof *p);
    if (!p) {
        munmap(map, ifc->seg_len);
        return RM_ERR_NOMEM;
    }
    p->owner = owner;
    p->peer = peer;
    p->peer_pid = h->pid;
    shm_peer_watch(p);
    p->ifc = ifc;
    p->peer_map = map;
    p->peer_map_len = ifc->seg_len;
    p->tx_ctl = shm_ring_ctl(map, ifc->ring_bytes, ifc->my_local);
    p->tx_cells = shm_ring_cells(map, ifc->ring_bytes, ifc->my_local);
    shm_populate(ifc, p->tx_ctl, ifc->ring_bytes);
    p->rx_ctl = shm_ring_ctl(ifc->seg, ifc->ring_bytes, li);
    p->rx_cells = shm_ring_cells(ifc->seg, ifc->ring_bytes, li);
    ifc->paths[li] = p;
    ifc->active[ifc->nactive++] = p;
    *out = p;
    return RM_OK;
}

static inline shm_cell_t *shm_at(unsigned char *cells, size_t ring, uint64_t pos)
{
    return (shm_cell_t *)(cells + (pos & (ring - 1)));
}

static rm_status_t shm_send(net_path_t *p, const net_frame_hdr_t *hdr, const void *upper,
                            const struct iovec *iov, int iovcnt)
{
    size_t ring = p->ifc->ring_size;
    if (hdr->len > p->ifc->frame_max || hdr->hlen > NET_UPPER_MAX)
        return RM_ERR_INVALID;
    uint64_t pos = p->tx_pos;
    size_t need = shm_frame_bytes(hdr->len), off = (size_t)(pos & (ring - 1));
    size_t wrap = off + need > ring ? ring - off : 0;
    /* room for the frame, a skip frame before it, and the next frame's flag */
    if (pos + wrap + need + SHM_LINE - p->tx_head > ring) {
        p->tx_head = atomic_load_explicit(&p->tx_ctl->head, memory_order_acquire);
        if (pos + wrap + need + SHM_LINE - p->tx_head > ring)
            return RM_ERR_NO_RESOURCE;
    }
    if (wrap) {
        shm_cell_t *s = shm_at(p->tx_cells, ring, pos);
        s->flags = SHM_FRAME_SKIP;
        atomic_store_explicit(&shm_at(p->tx_cells, ring, pos + wrap)->flag, 0, memory_order_relaxed);
        atomic_store_explicit(&s->flag, pos + 1, memory_order_release);
        pos += wrap;
    }
    shm_cell_t *c = shm_at(p->tx_cells, ring, pos);
    c->seq = hdr->seq;
    c->len = hdr->len;
    c->flags = hdr->flags;
    c->hlen = hdr->hlen;
    if (hdr->hlen == NET_UPPER_MAX)
        memcpy(c->upper, upper, NET_UPPER_MAX);
    else
        memcpy(c->upper, upper, hdr->hlen);
    if (iovcnt == 1) {
        rm_copy_small(c->payload, iov[0].iov_base, iov[0].iov_len);
    } else {
        unsigned char *dst = c->payload;
        for (int i = 0; i < iovcnt; i++) {
            memcpy(dst, iov[i].iov_base, iov[i].iov_len);
            dst += iov[i].iov_len;
        }
    }
    atomic_store_explicit(&shm_at(p->tx_cells, ring, pos + need)->flag, 0, memory_order_relaxed);
    atomic_store_explicit(&c->flag, pos + 1, memory_order_release);
    p->tx_pos = pos + need;
    return RM_OK;
}

/* Frames taken from one sender per pass: enough that a window of small
 * messages is handed up in one go, few enough that other senders get
 * their turn. The consumed position is published once per batch: the
 * sender reads it only when its ring looks full. */
#define SHM_BATCH 64

static int shm_progress(net_iface_t *ifc)
{
    int n = 0;
    size_t ring = ifc->ring_size;
    void (*recv)(void *, int, const net_frame_hdr_t *, const void *, const void *) = ifc->env.up.recv;
    for (int i = 0; i < ifc->nactive; i++) {
        net_path_t *p = ifc->active[i];
        uint64_t pos = p->rx_pos;
        for (int k = 0; k < SHM_BATCH; k++) {
            shm_cell_t *c = shm_at(p->rx_cells, ring, pos);
            if (atomic_load_explicit(&c->flag, memory_order_acquire) != pos + 1)
                break;
            if (c->flags == SHM_FRAME_SKIP) {
                pos += ring - (size_t)(pos & (ring - 1));
            } else {
                net_frame_hdr_t h = {.seq = c->seq, .ack = 0, .len = c->len, .flags = c->flags, .hlen = c->hlen};
                recv(p->owner, 0, &h, c->upper, c->payload);
                pos += shm_frame_bytes(h.len);
                n++;
            }
        }
        if (pos != p->rx_pos) {
            p->rx_pos = pos;
            atomic_store_explicit(&p->rx_ctl->head, pos, memory_order_release);
        }
    }
    return n;
}

static rm_status_t shm_read_remote(net_path_t *p, void *dst, uint64_t remote_addr, size_t len)
{
    while (len) {
        struct iovec l = {dst, len}, r = {(void *)(uintptr_t)remote_addr, len};
        ssize_t got = process_vm_readv(p->peer_pid, &l, 1, &r, 1, 0);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EPERM || errno == ENOSYS || errno == EACCES)
                return RM_ERR_UNSUPPORTED;
            if (errno == ESRCH)
                return RM_ERR_PROC_FAILED;
            rm_log_error("shm: process_vm_readv from rank %d: %s", p->peer, strerror(errno));
            return RM_ERR_IO;
        }
        if (got == 0)
            return RM_ERR_IO;
        dst = (char *)dst + got;
        remote_addr += (uint64_t)got;
        len -= (size_t)got;
    }
    return RM_OK;
}

static size_t shm_max_payload(net_iface_t *ifc)
{
    return ifc->frame_max;
}

/* The peer's process has ended. Its pidfd, taken when the path was made
 * (the peer had just created its segment), says so once it has exited,
 * even before its parent reaps it, and never confuses it with a later
 * process that got the same pid; without pidfd_open (Linux before 5.3)
 * kill(pid, 0) answers, which sees the process only once it was reaped. A
 * pid that named no process at the start (the peer in another pid
 * namespace) is never asked (pidfd -2). */
static void shm_peer_watch(net_path_t *p)
{
    p->pidfd = -2;
    if (!RM_CFG(proc_ft) || p->peer_pid <= 0)
        return;
#ifdef SYS_pidfd_open
    int fd = (int)syscall(SYS_pidfd_open, p->peer_pid, 0);
    if (fd >= 0) {
        p->pidfd = fd;
        return;
    }
    if (errno != ENOSYS)
        return;
#endif
    if (kill(p->peer_pid, 0) == 0 || errno == EPERM)
        p->pidfd = -1;
}

static int shm_peer_gone(net_path_t *p)
{
    if (p->pidfd >= 0) {
        struct pollfd pf = {.fd = p->pidfd, .events = POLLIN};
        return poll(&pf, 1, 0) > 0;
    }
    return p->pidfd == -1 && kill(p->peer_pid, 0) < 0 && errno == ESRCH;
}

const net_ops_t net_shm_ops = {
    .name = "shm",
    .caps = NET_CAP_RELIABLE | NET_CAP_LOCAL,
    .query = shm_query,
    .open = shm_open_iface,
    .close = shm_close,
    .addr_pack = shm_addr_pack,
    .connect = shm_connect,
    .send = shm_send,
    .progress = shm_progress,
    .path_close = shm_path_close,
    .read_remote = shm_read_remote,
    .max_payload = shm_max_payload,
    .ready = shm_ready,
    .peer_gone = shm_peer_gone,
};
