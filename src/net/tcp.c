/* tcp: one connection per (peer, rail) over plain sockets, non-blocking,
 * driven by one epoll set for the whole transport.
 *
 * Connections open lazily on the first frame. The connector sends a hello
 * carrying the job secret, its rank and rail; the acceptor checks it and
 * answers. When both sides connect at once, the connection opened by the
 * lower rank wins and the other is refused, so exactly one survives; frames
 * wait in the path's queue until then, so none is written twice.
 *
 * A path the rail layer judged dead is reset (its connection dropped); the
 * rail layer later asks for a reconnect, whose hello is flagged as recovery:
 * the acceptor then replaces whatever connection it still holds for that
 * path, because the peer has given up on it.
 *
 * Frames on the stream: net_frame_hdr_t, upper header, payload. Receives go
 * through a buffer for small frames; a large payload already announced by its
 * header is read straight into the place the layer above names (zero copy,
 * net_upcalls_t.place), or into a staging buffer when it names none.
 * A connection error fails the path and is reported upward with its rail;
 * the rail layer decides what happens next. */
#include "net/net.h"
#include "net/tcp_gone.h"
#include "net/tcp_info.h"
#include "util/clock.h"
#include "util/config.h"
#include "util/log.h"
#include "util/rails.h"
#include "util/sock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/sockios.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "net/tcp_impl.h"

static int tcp_epfd = -1;
static int tcp_nifaces;
static net_iface_t *tcp_ifaces[TCP_MAX_RAILS];

/* Latency fast path. While one connection carries all the traffic (a
 * ping-pong between two ranks over one rail), asking epoll which socket is
 * ready costs a syscall per poll plus one per message before the recv;
 * reading that connection directly costs the recv alone, like a plain TCP
 * ping-pong. So once epoll has reported nothing but one connection
 * TCP_HOT_STREAK times in a row, progress reads it directly and asks epoll
 * only every TCP_EPOLL_EVERY passes (new connections, other peers, a send
 * queue waiting for room); as soon as epoll reports another socket, every
 * pass asks it again. The price: a connection that becomes busy after a long
 * single-connection phase is noticed up to TCP_EPOLL_EVERY passes late, once.
 * While it is read directly the hot connection is also out of the epoll set
 * (tcp_hot_out): a socket in the set has each arriving segment run epoll's
 * wake-up callback under the socket's lock, which the recv() spinning on it
 * then waits for, 0.1-0.4 us a message here. It goes back into the set
 * when it leaves the fast path (a send queue waiting for room, a large
 * payload read by itself) or when epoll reports another socket. */
#define TCP_HOT_STREAK 8
#define TCP_EPOLL_EVERY 64
/* Frames up to this many bytes (headers included) go out with one send() */
#define TCP_SMALL_GATHER 2048
static struct tcp_conn *tcp_hot;
static int tcp_hot_streak;
static unsigned tcp_hot_pass;
static int tcp_hot_out; /* tcp_hot is out of the epoll set */

/* Bursts of small frames. Each send() of a small frame costs about as much
 * as the network stacks of both hosts spend on one segment, so a rank that
 * sends small messages back to back (a window of MPI_Isend, a halo's
 * neighbours on one host) is held to one message per such cost. A small
 * frame that follows the previous send() on its connection by less than
 * RAILMPI_TCP_BURST_NS is not sent at once: it waits in the connection's
 * queue, behind which the next ones of the burst gather, and the next
 * progress pass sends them all with one send(). Such a pass comes at the next
 * MPI call that waits or tests, or else from the progress thread, which the
 * transport asks for (up.busy) while it holds frames. The first frame of a
 * burst always leaves at once, so a lone message (a ping-pong, an answer) is
 * never held. Frames up to TCP_HOLD_FRAME bytes (4 KiB messages) are held;
 * held frames leave at once when they reach TCP_HOLD_BYTES or a larger frame
 * follows them. */
#define TCP_HOLD_BYTES 65536
#define TCP_HOLD_FRAME (4096 + 64)
static net_path_t *tcp_held;
static uint64_t tcp_burst_ticks; /* RAILMPI_TCP_BURST_NS in rm_ticks; 0: every frame at once */

/* ---- rail discovery ---------------------------------------------------- */

/* The rails of this host (util/rails.c), ordered by subnet so every host
 * numbers shared subnets alike. */
static int tcp_devices(const net_env_t *env, rm_rail_dev_t *out, int max)
{
    int n = rm_rails_find(RM_CFG_STR(tcp_rails), RM_CFG_STR(launch_addr), 0, out, max);
    if (n == 0 && env->loopback_ok)
        n = rm_rails_find("127.0.0.0/8", NULL, 1, out, max);
    return n;
}

static int tcp_query(const net_env_t *env)
{
    char bad[64];
    if (rm_rails_check(RM_CFG_STR(tcp_rails), bad, sizeof bad) < 0)
        rm_log_error("RAILMPI_TCP_RAILS: '%s' is neither a CIDR subnet (a.b.c.d/len) nor an interface "
                     "name; ignored", bad);
    rm_rail_dev_t devs[TCP_MAX_RAILS];
    return tcp_devices(env, devs, TCP_MAX_RAILS);
}

/* ---- set-up ------------------------------------------------------------ */

static void tcp_sockopts(int fd)
{
    /* a connection whose data stays unacknowledged this long is dead even
     * if heartbeats (the rail layer's, much faster) were not running */
    unsigned user_timeout = (unsigned)(RM_CFG(path_timeout_ms) * 8 > 2000 ? RM_CFG(path_timeout_ms) * 8 : 2000);
    setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_timeout, sizeof user_timeout);
    static int warned;
    if (rm_sock_rail_opts(fd) < 0 && !warned) {
        warned = 1;
        rm_log_warn("tcp: congestion control '%s' (RAILMPI_TCP_CONGESTION) refused: %s; rails use the "
                    "system's", RM_CFG_STR(tcp_congestion), strerror(errno));
    }
}

static rm_status_t tcp_open(const net_env_t *env, int dev, net_iface_t **out)
{
    rm_rail_dev_t devs[TCP_MAX_RAILS];
    int n = tcp_devices(env, devs, TCP_MAX_RAILS);
    if (dev < 0 || dev >= n || tcp_nifaces >= TCP_MAX_RAILS)
        return RM_ERR_INVALID;
    if (tcp_epfd < 0 && (tcp_epfd = epoll_create1(EPOLL_CLOEXEC)) < 0) {
        rm_log_error("tcp: epoll_create1: %s", strerror(errno));
        return RM_ERR_IO;
    }
    net_iface_t *ifc = calloc(1, sizeof *ifc);
    if (!ifc || !(ifc->peers = calloc((size_t)env->world_size, sizeof *ifc->peers))) {
        free(ifc);
        return RM_ERR_NOMEM;
    }
    ifc->npeers = env->world_size;
    ifc->ev_kind = TCP_EV_LISTEN;
    rm_ticks_init();
    tcp_burst_ticks = RM_CFG(tcp_burst_ns) > 0 ? rm_ticks_of_ns((uint64_t)RM_CFG(tcp_burst_ns)) : 0;
    ifc->env = *env;
    ifc->rail = dev;
    snprintf(ifc->ifname, sizeof ifc->ifname, "%s", devs[dev].ifname);
    ifc->ip = devs[dev].ip;
    ifc->prefix = devs[dev].prefix;
    char subnet[INET_ADDRSTRLEN + 4]; /* a.b.c.d/len */
    rm_rail_subnet_str(&devs[dev], subnet, sizeof subnet);
    snprintf(ifc->desc, sizeof ifc->desc, "%s %s", ifc->ifname, subnet);
    ifc->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr = ifc->ip, .sin_port = 0};
    if (ifc->lfd < 0 || bind(ifc->lfd, (struct sockaddr *)&sa, sizeof sa) < 0 ||
        listen(ifc->lfd, 256) < 0) {
        rm_log_error("tcp: cannot listen on %s: %s", ifc->ifname, strerror(errno));
        if (ifc->lfd >= 0)
            close(ifc->lfd);
        free(ifc->peers);
        free(ifc);
        return RM_ERR_IO;
    }
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = ifc};
    epoll_ctl(tcp_epfd, EPOLL_CTL_ADD, ifc->lfd, &ev);
    tcp_ifaces[tcp_nifaces++] = ifc;
    *out = ifc;
    return RM_OK;
}

static rm_status_t tcp_addr_pack(net_iface_t *ifc, char *buf, size_t len)
{
    struct sockaddr_in sa;
    socklen_t sl = sizeof sa;
    if (getsockname(ifc->lfd, (struct sockaddr *)&sa, &sl) < 0)
        return RM_ERR_IO;
    char ip[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &ifc->ip, ip, sizeof ip);
    int n = snprintf(buf, len, "%s/%d:%d", ip, ifc->prefix, ntohs(sa.sin_port));
    return n < 0 || (size_t)n >= len ? RM_ERR_INVALID : RM_OK;
}

/* "a.b.c.d/p:port" */
static int tcp_addr_parse(const char *s, struct sockaddr_in *sa, int *prefix)
{
    char ip[64];
    int p, port;
    if (sscanf(s, "%63[0-9.]/%d:%d", ip, &p, &port) != 3 || p < 0 || p > 32 || port <= 0 ||
        port > 65535)
        return -1;
    memset(sa, 0, sizeof *sa);
    sa->sin_family = AF_INET;
    sa->sin_port = htons((uint16_t)port);
    *prefix = p;
    return inet_pton(AF_INET, ip, &sa->sin_addr) == 1 ? 0 : -1;
}

static rm_status_t tcp_connect(net_iface_t *ifc, int peer, const char *peer_addr, void *owner,
                               net_path_t **out)
{
    struct sockaddr_in sa;
    int prefix;
    if (peer < 0 || peer >= ifc->npeers || tcp_addr_parse(peer_addr, &sa, &prefix) < 0)
        return RM_ERR_INVALID;
    if (prefix != ifc->prefix || rm_rail_net(sa.sin_addr, prefix) != rm_rail_net(ifc->ip, ifc->prefix))
        return RM_ERR_UNREACHABLE; /* another subnet: never paired */
    net_path_t *p = calloc(1, sizeof *p);
    if (!p)
        return RM_ERR_NOMEM;
    p->owner = owner;
    p->peer = peer;
    p->ifc = ifc;
    p->addr = sa;
    p->frank = -1;
    p->gone = (tcp_gone_t)TCP_GONE_INIT;
    ifc->peers[peer] = p;
    *out = p;
    return RM_OK;
}

static rm_status_t tcp_connect_foreign(net_iface_t *ifc, int peer, const char *peer_addr,
                                       const char *secret, int rank, void *owner, net_path_t **out)
{
    if (peer < ifc->env.world_size || rank < 0 || !*secret || strlen(secret) >= sizeof(((net_path_t *)0)->fsecret))
        return RM_ERR_INVALID;
    if (peer >= ifc->npeers) {
        net_path_t **np = realloc(ifc->peers, sizeof *np * (size_t)(peer + 1));
        if (!np)
            return RM_ERR_NOMEM;
        memset(np + ifc->npeers, 0, sizeof *np * (size_t)(peer + 1 - ifc->npeers));
        ifc->peers = np;
        ifc->npeers = peer + 1;
    }
    rm_status_t st = tcp_connect(ifc, peer, peer_addr, owner, out);
    if (st < 0)
        return st;
    (*out)->frank = rank;
    snprintf((*out)->fsecret, sizeof (*out)->fsecret, "%s", secret);
    return RM_OK;
}

/* Who a hello comes from: a rank of our job, or a process of another job we
 * were told about; -1 when neither. */
static int tcp_hello_peer(net_iface_t *ifc, const tcp_hello_t *h)
{
    if (*ifc->env.job_secret && !strcmp(h->secret, ifc->env.job_secret) && h->rank >= 0 &&
        h->rank < ifc->env.world_size && h->rank != ifc->env.world_rank)
        return ifc->peers[h->rank] ? h->rank : -1;
    for (int i = ifc->env.world_size; i < ifc->npeers; i++) {
        net_path_t *p = ifc->peers[i];
        if (p && p->frank == h->rank && !strcmp(p->fsecret, h->secret))
            return i;
    }
    return -1;
}

/* A total order of processes over all jobs (job secret, then rank): the
 * lower one's connection wins a simultaneous connect. */
static int tcp_hello_before(const char *sa, int ra, const char *sb, int rb)
{
    int c = strcmp(sa, sb);
    return c ? c < 0 : ra < rb;
}

/* ---- connections ------------------------------------------------------- */

static tcp_conn_t *tcp_conn_new(net_iface_t *ifc, int fd, int initiator)
{
    tcp_conn_t *c = calloc(1, sizeof *c);
    if (!c || !(c->rx = malloc(TCP_RXBUF_MIN))) {
        free(c);
        return NULL;
    }
    c->rx_cap = TCP_RXBUF_MIN;
    c->ev_kind = TCP_EV_CONN;
    c->fd = fd;
    c->ifc = ifc;
    c->initiator = initiator;
    c->next = ifc->conns;
    ifc->conns = c;
    return c;
}

static void tcp_conn_watch(tcp_conn_t *c, int want_out)
{
    want_out = want_out != 0;
    if (c->watched && c->watch_out == want_out)
        return; /* as it is: no syscall */
    struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP | (want_out ? EPOLLOUT : 0), .data.ptr = c};
    if (c == tcp_hot && tcp_hot_out) {
        tcp_hot_out = 0;
        tcp_hot_streak = 0;
    }
    if (epoll_ctl(tcp_epfd, EPOLL_CTL_MOD, c->fd, &ev) < 0 && epoll_ctl(tcp_epfd, EPOLL_CTL_ADD, c->fd, &ev) < 0)
        return;
    c->watched = 1;
    c->watch_out = want_out;
}

/* Close a connection; it is unlinked and freed at the end of progress. */
void tcp_conn_close(tcp_conn_t *c)
{
    if (c->state == TC_DEAD)
        return;
    epoll_ctl(tcp_epfd, EPOLL_CTL_DEL, c->fd, NULL);
    if (!c->orderly) {
        /* a reset, not a FIN: only a peer finishing its job ends a
         * connection in order, so a FIN is never mistaken for that */
        struct linger lg = {.l_onoff = 1, .l_linger = 0};
        setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    }
    close(c->fd);
    c->fd = -1;
    c->state = TC_DEAD;
    if (tcp_hot == c) {
        tcp_hot = NULL;
        tcp_hot_streak = 0;
        tcp_hot_out = 0;
    }
    if (c->path && c->path->conn == c)
        c->path->conn = NULL;
}

void tcp_path_fail(net_path_t *p, rm_status_t why, const char *what)
{
    if (p->conn)
        tcp_conn_close(p->conn);
    p->failed = 1;
    p->txq_off = p->txq_len = 0; /* a partial frame is worthless; the rail layer resends */
    /* the rail layer reports failures (a closing peer's end is none) */
    rm_log_debug("tcp: rail %d (%s) to rank %d failed: %s (%s)", p->ifc->rail, p->ifc->ifname, p->peer,
                 what, rm_status_str(why));
    p->ifc->env.up.error(p->owner, p->ifc->rail, why);
}

static void tcp_reap(net_iface_t *ifc)
{
    for (tcp_conn_t **pp = &ifc->conns; *pp;) {
        tcp_conn_t *c = *pp;
        if (c->state == TC_DEAD) {
            *pp = c->next;
            free(c->rx);
            free(c->stage);
            free(c);
        } else {
            pp = &c->next;
        }
    }
}

static int tcp_write_all_small(int fd, const void *buf, size_t len)
{
    /* handshakes are tiny and go out on a fresh socket: one send suffices */
    ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
    return n == (ssize_t)len ? 0 : -1;
}

static void tcp_flush(net_path_t *p);

static void tcp_conn_up(net_path_t *p, tcp_conn_t *c)
{
    c->state = TC_UP;
    c->path = p;
    p->conn = c;
    p->failed = 0;
    if (rm_log_level >= RM_LOG_DEBUG) {
        char cc[32] = "";
        socklen_t cl = sizeof cc - 1;
        getsockopt(c->fd, IPPROTO_TCP, TCP_CONGESTION, cc, &cl);
        rm_log_debug("tcp: rail %d connected to rank %d (%s, congestion control %s)", p->ifc->rail, p->peer,
                     c->initiator ? "outgoing" : "incoming", cc);
    }
    tcp_flush(p);
    if (c->state == TC_UP)
        tcp_conn_watch(c, p->txq_len > 0);
    if (c->state == TC_UP && p->ifc->env.up.up)
        p->ifc->env.up.up(p->owner, p->ifc->rail);
}

static rm_status_t tcp_start_connect(net_path_t *p, int recover)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return RM_ERR_IO;
    tcp_sockopts(fd);
    struct sockaddr_in me = {.sin_family = AF_INET, .sin_addr = p->ifc->ip};
    bind(fd, (struct sockaddr *)&me, sizeof me); /* leave through this rail's interface */
    tcp_conn_t *c = tcp_conn_new(p->ifc, fd, 1);
    if (!c) {
        close(fd);
        return RM_ERR_NOMEM;
    }
    c->path = p;
    c->state = TC_CONNECTING;
    c->recover = recover;
    snprintf(c->peer_desc, sizeof c->peer_desc, "rank %d", p->peer);
    p->conn = c;
    if (connect(fd, (struct sockaddr *)&p->addr, sizeof p->addr) < 0 && errno != EINPROGRESS) {
        int e = errno;
        tcp_path_fail(p, e == ENETUNREACH || e == EHOSTUNREACH ? RM_ERR_UNREACHABLE : RM_ERR_IO,
                      strerror(e));
        return RM_ERR_UNREACHABLE;
    }
    tcp_conn_watch(c, 1);
    return RM_OK;
}

static void tcp_send_hello(tcp_conn_t *c)
{
    tcp_hello_t h = {.magic = TCP_MAGIC, .version = TCP_VERSION, .rank = c->ifc->env.world_rank,
                     .rail = c->ifc->rail, .flags = c->recover ? TCP_HELLO_RECOVER : 0};
    snprintf(h.secret, sizeof h.secret, "%s", c->ifc->env.job_secret);
    if (tcp_write_all_small(c->fd, &h, sizeof h) < 0) {
        tcp_path_fail(c->path, RM_ERR_CONN_RESET, "hello not sent");
        return;
    }
    c->state = TC_HELLO_SENT;
    c->hs_got = 0;
    tcp_conn_watch(c, 0);
}

static void tcp_refuse(tcp_conn_t *c, int status, const char *why)
{
    tcp_hello_ack_t a = {.magic = TCP_MAGIC, .status = status};
    tcp_write_all_small(c->fd, &a, sizeof a);
    if (status != TCP_HS_DUPLICATE)
        rm_log_error("tcp: refused a connection on %s from %s: %s", c->ifc->ifname, c->peer_desc, why);
    tcp_conn_close(c);
}

/* Acceptor: a complete hello arrived. */
void tcp_on_hello(tcp_conn_t *c)
{
    tcp_hello_t h;
    memcpy(&h, c->hs, sizeof h);
    net_iface_t *ifc = c->ifc;
    h.secret[sizeof h.secret - 1] = 0;
    if (h.magic != TCP_MAGIC || h.version != TCP_VERSION)
        return tcp_refuse(c, TCP_HS_BAD_SECRET, "not a railmpi peer");
    int peer = tcp_hello_peer(ifc, &h);
    if (peer < 0 && (strcmp(h.secret, ifc->env.job_secret) != 0 || !*ifc->env.job_secret))
        return tcp_refuse(c, TCP_HS_BAD_SECRET, "wrong job secret");
    if (peer < 0)
        return tcp_refuse(c, TCP_HS_UNKNOWN_PEER, "unknown rank");
    net_path_t *p = ifc->peers[peer];
    if (p->frank >= 0)
        snprintf(c->peer_desc, sizeof c->peer_desc, "process %d (rank %d of another job)", peer, h.rank);
    else
        snprintf(c->peer_desc, sizeof c->peer_desc, "rank %d", h.rank);
    tcp_conn_t *mine = p->conn;
    if (mine && mine != c && mine->state != TC_DEAD && (h.flags & TCP_HELLO_RECOVER)) {
        /* the peer gave up on the connection we hold: it is stale */
        if (mine->state == TC_UP)
            tcp_path_fail(p, RM_ERR_CONN_RESET, "replaced by the peer's reconnection");
        else
            tcp_conn_close(mine);
    } else if (mine && mine != c && mine->state != TC_DEAD) {
        if (mine->state == TC_UP) {
            /* a hello sent before its sender adopted our connection: the one
             * in use stays, this one goes */
            return tcp_refuse(c, TCP_HS_DUPLICATE, "a connection is already up");
        } else if (mine->initiator &&
                   tcp_hello_before(ifc->env.job_secret, ifc->env.world_rank, h.secret, h.rank)) {
            return tcp_refuse(c, TCP_HS_DUPLICATE, "simultaneous connect, ours wins");
        } else {
            tcp_conn_close(mine); /* theirs wins; nothing was sent on ours */
        }
    }
    tcp_hello_ack_t a = {.magic = TCP_MAGIC, .status = TCP_HS_OK};
    if (tcp_write_all_small(c->fd, &a, sizeof a) < 0) {
        tcp_conn_close(c);
        return;
    }
    tcp_conn_up(p, c);
}

/* Connector: the answer to our hello arrived. */
void tcp_on_hello_ack(tcp_conn_t *c)
{
    tcp_hello_ack_t a;
    memcpy(&a, c->hs, sizeof a);
    net_path_t *p = c->path;
    if (a.magic != TCP_MAGIC) {
        tcp_path_fail(p, RM_ERR_IO, "garbage in handshake");
        return;
    }
    if (a.status == TCP_HS_DUPLICATE) {
        tcp_conn_close(c); /* the peer's own connection carries the path */
        return;
    }
    if (a.status != TCP_HS_OK) {
        rm_log_error("tcp: rank %d refused our connection on rail %d (status %d: wrong job secret?)",
                     p->peer, p->ifc->rail, a.status);
        tcp_path_fail(p, RM_ERR_UNREACHABLE, "refused");
        return;
    }
    if (p->conn && p->conn != c && p->conn->state == TC_UP) {
        tcp_conn_close(c); /* the peer's connection was adopted meanwhile */
        return;
    }
    tcp_conn_up(p, c);
}

/* ---- sending ----------------------------------------------------------- */

static int tcp_txq_reserve(net_path_t *p, size_t more)
{
    if (p->txq_off && p->txq_off == p->txq_len)
        p->txq_off = p->txq_len = 0;
    if (p->txq_len + more <= p->txq_cap)
        return 0;
    if (p->txq_off) { /* compact before growing */
        memmove(p->txq, p->txq + p->txq_off, p->txq_len - p->txq_off);
        p->txq_len -= p->txq_off;
        p->txq_off = 0;
        if (p->txq_len + more <= p->txq_cap)
            return 0;
    }
    size_t cap = p->txq_cap ? p->txq_cap : 65536;
    while (cap < p->txq_len + more)
        cap *= 2;
    unsigned char *q = realloc(p->txq, cap);
    if (!q)
        return -1;
    p->txq = q;
    p->txq_cap = cap;
    return 0;
}

static void tcp_flush(net_path_t *p)
{
    tcp_conn_t *c = p->conn;
    if (!c || c->state != TC_UP)
        return;
    while (p->txq_off < p->txq_len) {
        ssize_t n = send(c->fd, p->txq + p->txq_off, p->txq_len - p->txq_off, MSG_NOSIGNAL);
        if (n > 0) {
            p->txq_off += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        tcp_path_fail(p, RM_ERR_CONN_RESET, n < 0 ? strerror(errno) : "closed");
        return;
    }
    if (p->txq_off == p->txq_len)
        p->txq_off = p->txq_len = 0;
    if (p->txq_len || c != tcp_hot || !tcp_hot_out) /* the fast path reads it without epoll */
        tcp_conn_watch(c, p->txq_len > 0);
}

/* The path's queue holds a burst's frames: on the list the next progress
 * pass sends; the layer above hears that progress is wanted when the list
 * stops being empty. */
static void tcp_hold(net_path_t *p)
{
    if (p->held)
        return;
    p->held = 1;
    if (!tcp_held && p->ifc->env.up.busy)
        p->ifc->env.up.busy(1);
    p->held_next = tcp_held;
    tcp_held = p;
}

static void tcp_unhold(net_path_t *p)
{
    for (net_path_t **pp = &tcp_held; *pp; pp = &(*pp)->held_next) {
        if (*pp == p) {
            *pp = p->held_next;
            p->held = 0;
            if (!tcp_held && p->ifc->env.up.busy)
                p->ifc->env.up.busy(0);
            return;
        }
    }
}

/* Send every held burst (from progress): what the socket does not take now
 * waits for room like any queue (EPOLLOUT). */
static int tcp_send_held(void)
{
    int n = 0;
    for (; tcp_held; n++) {
        net_path_t *p = tcp_held;
        tcp_unhold(p);
        tcp_flush(p);
    }
    return n;
}

static rm_status_t tcp_send(net_path_t *p, const net_frame_hdr_t *hdr, const void *upper,
                            const struct iovec *iov, int iovcnt)
{
    size_t total = sizeof *hdr + hdr->hlen;
    for (int i = 0; i < iovcnt; i++)
        total += iov[i].iov_len;
    size_t queued = p->txq_len - p->txq_off;
    int is_small = total <= TCP_HOLD_FRAME;
    if (queued && p->held && (!is_small || queued + total > TCP_HOLD_BYTES)) {
        tcp_flush(p); /* a burst's frames leave before a large one, or once they fill a segment's worth */
        queued = p->txq_len - p->txq_off;
    }
    if (queued && queued + total > (size_t)RM_CFG(tcp_queue_max))
        return RM_ERR_NO_RESOURCE;
    if (!p->conn) {
        if (p->failed)
            return RM_ERR_CONN_RESET; /* recovery, not a send, reconnects a failed path */
        rm_status_t st = tcp_start_connect(p, 0);
        if (st < 0)
            return st;
    }
    struct iovec v[2 + 8];
    int nv = 0;
    v[nv++] = (struct iovec){(void *)hdr, sizeof *hdr};
    if (hdr->hlen)
        v[nv++] = (struct iovec){(void *)upper, hdr->hlen};
    for (int i = 0; i < iovcnt && nv < 10; i++)
        if (iov[i].iov_len)
            v[nv++] = iov[i];
    /* A small frame is gathered into one buffer and sent with send(): the
     * kernel's sendmsg() imports and checks an iovec array first, which
     * costs a small message more than the copy here. */
    char small[TCP_SMALL_GATHER];
    if (total <= sizeof small && nv > 1) {
        size_t off = 0;
        for (int i = 0; i < nv; i++) {
            memcpy(small + off, v[i].iov_base, v[i].iov_len);
            off += v[i].iov_len;
        }
        v[0] = (struct iovec){small, total};
        nv = 1;
    }
    size_t done = 0;
    int hold = 0;
    if (!queued && p->conn && p->conn->state == TC_UP) {
        /* in a burst: held, the rest of the burst gathers behind it */
        if (is_small && tcp_burst_ticks && rm_ticks() - p->sent_at < tcp_burst_ticks) {
            hold = 1;
            goto keep;
        }
        ssize_t n;
        struct msghdr mh = {.msg_iov = v, .msg_iovlen = (size_t)nv};
        do /* a closed peer is an error, not SIGPIPE */
            n = nv == 1 ? send(p->conn->fd, v[0].iov_base, v[0].iov_len, MSG_NOSIGNAL)
                        : sendmsg(p->conn->fd, &mh, MSG_NOSIGNAL);
        while (n < 0 && errno == EINTR);
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
            tcp_path_fail(p, RM_ERR_CONN_RESET, strerror(errno));
            return RM_ERR_CONN_RESET;
        }
        done = n > 0 ? (size_t)n : 0;
        if (tcp_burst_ticks && is_small)
            p->sent_at = rm_ticks();
        if (done == total)
            return RM_OK;
    }
keep:
    /* keep the rest: the caller's memory is free once we return */
    if (tcp_txq_reserve(p, total - done) < 0)
        return RM_ERR_NO_RESOURCE;
    size_t skip = done;
    for (int i = 0; i < nv; i++) {
        size_t l = v[i].iov_len;
        if (skip >= l) {
            skip -= l;
            continue;
        }
        memcpy(p->txq + p->txq_len, (char *)v[i].iov_base + skip, l - skip);
        p->txq_len += l - skip;
        skip = 0;
    }
    if (hold)
        tcp_hold(p); /* the next progress pass sends it: no wait for room */
    else if (!p->held && p->conn && p->conn->state == TC_UP)
        tcp_conn_watch(p->conn, 1);
    return RM_OK;
}

static void tcp_accept(net_iface_t *ifc)
{
    for (;;) {
        struct sockaddr_in sa;
        socklen_t sl = sizeof sa;
        int fd = accept4(ifc->lfd, (struct sockaddr *)&sa, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        tcp_sockopts(fd);
        tcp_conn_t *c = tcp_conn_new(ifc, fd, 0);
        if (!c) {
            close(fd);
            return;
        }
        c->state = TC_HELLO_WAIT;
        char ip[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof ip);
        snprintf(c->peer_desc, sizeof c->peer_desc, "%s:%d", ip, ntohs(sa.sin_port));
        tcp_conn_watch(c, 0);
    }
}

static int tcp_on_event(struct epoll_event *ev)
{
    if (*(int *)ev->data.ptr == TCP_EV_LISTEN) {
        tcp_accept(ev->data.ptr);
        return 1;
    }
    tcp_conn_t *c = ev->data.ptr;
    if (c->state == TC_DEAD)
        return 0;
    switch (c->state) {
    case TC_CONNECTING: {
        int err = 0;
        socklen_t el = sizeof err;
        getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &el);
        if (err) {
            tcp_path_fail(c->path, RM_ERR_UNREACHABLE, strerror(err));
            return 1;
        }
        if (ev->events & EPOLLOUT)
            tcp_send_hello(c);
        return 1;
    }
    case TC_HELLO_WAIT:
        tcp_read_handshake(c, sizeof(tcp_hello_t));
        return 1;
    case TC_HELLO_SENT:
        tcp_read_handshake(c, sizeof(tcp_hello_ack_t));
        return 1;
    case TC_UP: {
        int n = 0;
        if (ev->events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
            n += tcp_read(c);
        if (c->state == TC_UP && (ev->events & EPOLLOUT))
            tcp_flush(c->path);
        return n + 1;
    }
    }
    return 0;
}

static int tcp_progress(net_iface_t *ifc)
{
    /* one epoll set serves every rail: poll it once per pass, from the first */
    if (ifc != tcp_ifaces[0])
        return 0;
    int sent = tcp_held ? tcp_send_held() : 0;
    tcp_conn_t *h = tcp_hot;
    int events = 0;
    if (h && tcp_hot_streak >= TCP_HOT_STREAK && !h->in_payload && h->path->txq_off == h->path->txq_len) {
        if (!tcp_hot_out) {
            epoll_ctl(tcp_epfd, EPOLL_CTL_DEL, h->fd, NULL);
            h->watched = 0;
            tcp_hot_out = 1;
        }
        events = tcp_read(h);
        if (++tcp_hot_pass % TCP_EPOLL_EVERY || tcp_hot != h)
            return sent + events;
    } else if (h && tcp_hot_out) {
        tcp_conn_watch(h, 0);
    }
    struct epoll_event evs[64];
    int n = epoll_wait(tcp_epfd, evs, 64, 0);
    if (n > 0 && tcp_hot_out) { /* others have work: the hot one back into the set */
        tcp_conn_watch(tcp_hot, 0);
        tcp_hot = NULL;
    } else if (n > 0) { /* the fast path's bookkeeping: one connection, UP, alone */
        tcp_conn_t *only = n == 1 && *(int *)evs[0].data.ptr == TCP_EV_CONN ? evs[0].data.ptr : NULL;
        if (!only || only->state != TC_UP || only != tcp_hot) {
            tcp_hot = only && only->state == TC_UP ? only : NULL;
            tcp_hot_streak = 0;
        } else if (tcp_hot_streak < TCP_HOT_STREAK) {
            tcp_hot_streak++;
        }
    }
    for (int i = 0; i < n; i++)
        events += tcp_on_event(&evs[i]);
    for (int i = 0; i < tcp_nifaces; i++)
        tcp_reap(tcp_ifaces[i]);
    return sent + events;
}

/* Orderly close at the end of a job: send what is queued, then FIN, and
 * read until the peer's FIN. Closing with unread data would make the kernel
 * answer with a reset, which can destroy the peer's last frames in flight. */
static void tcp_conn_shutdown(tcp_conn_t *c, net_path_t *p)
{
    if (c->state != TC_UP)
        return;
    for (int i = 0; i < 200 && p->txq_off < p->txq_len && c->state == TC_UP; i++) {
        tcp_flush(p);
        if (p->txq_off < p->txq_len)
            poll(&(struct pollfd){.fd = c->fd, .events = POLLOUT}, 1, 10);
    }
    if (c->state != TC_UP)
        return;
    c->orderly = 1;
    shutdown(c->fd, SHUT_WR);
    char sink[4096];
    for (int waited = 0; waited < 2000;) {
        ssize_t n = recv(c->fd, sink, sizeof sink, MSG_DONTWAIT);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
            break;
        if (n < 0) {
            poll(&(struct pollfd){.fd = c->fd, .events = POLLIN}, 1, 20);
            waited += 20;
        }
    }
}

static void tcp_path_close(net_path_t *p)
{
    if (!p)
        return;
    if (p->held)
        tcp_unhold(p);
    tcp_conn_t *c = p->conn;
    if (c) {
        tcp_conn_shutdown(c, p);
        tcp_conn_close(c);
        c->path = NULL;
    }
    if (p->ifc->peers[p->peer] == p)
        p->ifc->peers[p->peer] = NULL;
    tcp_gone_close(&p->gone);
    free(p->txq);
    free(p);
}

static void tcp_close(net_iface_t *ifc)
{
    for (int r = 0; r < ifc->npeers; r++)
        tcp_path_close(ifc->peers[r]);
    for (tcp_conn_t *c = ifc->conns; c; c = c->next)
        tcp_conn_close(c);
    tcp_reap(ifc);
    epoll_ctl(tcp_epfd, EPOLL_CTL_DEL, ifc->lfd, NULL);
    close(ifc->lfd);
    for (int i = 0; i < tcp_nifaces; i++) {
        if (tcp_ifaces[i] == ifc) {
            tcp_ifaces[i] = tcp_ifaces[--tcp_nifaces];
            break;
        }
    }
    if (!tcp_nifaces && tcp_epfd >= 0) {
        close(tcp_epfd);
        tcp_epfd = -1;
    }
    free(ifc->peers);
    free(ifc);
}

static size_t tcp_queued(net_path_t *p)
{
    /* a held burst is no backlog: it leaves at the next progress pass */
    size_t q = p->held ? 0 : p->txq_len - p->txq_off;
    int unsent = 0;
    /* plus what the kernel still holds for this connection */
    if (p->conn && p->conn->state == TC_UP && ioctl(p->conn->fd, SIOCOUTQ, &unsent) == 0 && unsent > 0)
        q += (size_t)unsent;
    return q;
}

static int tcp_measure(net_path_t *p, net_measure_t *m)
{
    if (!p->conn || p->conn->state != TC_UP)
        return -1;
    return tcp_info_measure(p->conn->fd, &p->conn->rate, m);
}

static int tcp_net_acks(net_path_t *p, net_acks_t *out)
{
    if (!p->conn || p->conn->state != TC_UP)
        return -1;
    return tcp_info_acks(p->conn->fd, out);
}

static uint64_t tcp_rx_bytes(net_path_t *p)
{
    return p->rx_bytes;
}

/* A withdrawn place (net_ops_t.unplace): every connection of the path that
 * reads a payload there reads the rest into its (empty) receive buffer and
 * drops it; a connection being replaced may still be one of them. */
static void tcp_unplace(net_path_t *p, const void *at)
{
    for (tcp_conn_t *c = p->ifc->conns; c; c = c->next)
        if (c->path == p && c->in_payload && c->dst == at)
            c->dropping = 1;
}

static void tcp_path_reset(net_path_t *p)
{
    if (p->conn)
        tcp_conn_close(p->conn);
    p->failed = 1;
    p->txq_off = p->txq_len = 0;
}

static rm_status_t tcp_reconnect(net_path_t *p)
{
    tcp_path_reset(p);
    return tcp_start_connect(p, 1);
}

static int tcp_peer_gone(net_path_t *p)
{
    return tcp_gone_check(&p->gone, p->ifc->ip, &p->addr, (uint64_t)RM_CFG(path_timeout_ms) * RM_MS);
}

static const char *tcp_rail_name(net_iface_t *ifc)
{
    return ifc->desc;
}

static size_t tcp_max_payload(net_iface_t *ifc)
{
    return (size_t)4 << 20;
}

const net_ops_t net_tcp_ops = {
    .name = "tcp",
    /* not RELIABLE: a broken connection loses what was in flight */
    .caps = NET_CAP_ZCOPY_RECV | NET_CAP_MEASURED,
    .query = tcp_query,
    .open = tcp_open,
    .close = tcp_close,
    .addr_pack = tcp_addr_pack,
    .connect = tcp_connect,
    .send = tcp_send,
    .progress = tcp_progress,
    .path_close = tcp_path_close,
    .max_payload = tcp_max_payload,
    .queued = tcp_queued,
    .rx_bytes = tcp_rx_bytes,
    .path_reset = tcp_path_reset,
    .reconnect = tcp_reconnect,
    .unplace = tcp_unplace,
    .rail_name = tcp_rail_name,
    .measure = tcp_measure,
    .net_acks = tcp_net_acks,
    .connect_foreign = tcp_connect_foreign,
    .peer_gone = tcp_peer_gone,
};
