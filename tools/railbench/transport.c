/* railbench's transport level: the raw links between two hosts, without the
 * MPI engine. Ranks 0 and 1 open one plain TCP connection (non-blocking,
 * TCP_NODELAY, 4 MiB socket buffers, as the library's tcp transport sets
 * them) per rail the two hosts share; MPI only carries the addresses.
 *
 * Rails are discovered as the library does (src/util/rails.c): a list of CIDR
 * subnets or interface names (-r, else RAILMPI_TCP_RAILS), else every up,
 * non-loopback IPv4 interface except the launcher's address; ordered by
 * subnet, so both hosts number the shared rails alike. With one rail
 * selected (-R K) messages go over that connection; otherwise every message
 * is cut in equal stripes, one per connection, as a hardware striping test
 * does, and counts as received when every stripe is in.
 *
 * Waiting spins on non-blocking send/recv and yields the core after a while,
 * the same policy as the library's progress loop, so the two levels differ
 * only by what the MPI engine adds. Every wait is bounded: a connection that
 * moves no byte for RB_STALL_S seconds ends the job with a message. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* accept4 */
#endif
#include "railbench.h"
#include "util/config.h"
#include "util/rails.h"
#include "util/sock.h"

#include <mpi.h>
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define RB_MAX_RAILS 16
#define RB_SPIN 2000        /* idle polls before yielding, like RAILMPI_SPIN_COUNT */
#define RB_STALL_S 30       /* no byte moved for this long: the run is broken */
#define RB_CONNECT_MS 10000 /* connect / accept / hello */
#define RB_CARD 2048
#define RB_MAGIC 0x72627470u /* "rbtp" */

typedef struct rb_conn {
    int fd;
    size_t off, len;   /* this connection's stripe of every message */
    long smsg, rmsg;   /* stripes completely sent / received in this transfer */
    size_t sgot, rgot; /* bytes of the current stripe */
} rb_conn_t;

typedef struct rb_tcp {
    const rb_opts_t *o;
    int rank;
    int nconn;
    rb_conn_t conn[RB_MAX_RAILS];
    char *sbuf, *rbuf;
    long cut;           /* message size the stripes are cut for, -1 none */
    size_t stride;      /* distance between messages of a window in the buffers */
} rb_tcp_t;

static rb_tcp_t rb_tcp;

static void rb_fatal(const rb_tcp_t *t, const char *fmt, const char *what)
{
    fprintf(stderr, "railbench: rank %d: transport: ", t->rank);
    fprintf(stderr, fmt, what);
    fputc('\n', stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

/* ---- rails ------------------------------------------------------------- */

/* This host's rails, ordered by subnet (util/rails.c, as the library finds
 * them). A list names rails explicitly (loopback allowed, for tests on one
 * host); without one, every up, non-loopback IPv4 interface except the
 * launcher's. Returns the count, or -1 after printing why the list is
 * malformed. */
static int rb_devices(const char *want, int rank, rm_rail_dev_t *out, int max)
{
    char bad[64];
    if (rm_rails_check(want, bad, sizeof bad) < 0) {
        if (!rank)
            fprintf(stderr, "railbench: -r: '%s' is neither a CIDR subnet (a.b.c.d/len) nor "
                            "an interface name\n", bad);
        return -1;
    }
    return rm_rails_find(want, RM_CFG_STR(launch_addr), 1, out, max);
}

static void rb_sockopts(int fd)
{
    static int warned;
    if (rm_sock_rail_opts(fd) < 0 && !warned) {
        warned = 1;
        fprintf(stderr, "railbench: congestion control '%s' (RAILMPI_TCP_CONGESTION) refused: %s\n",
                RM_CFG_STR(tcp_congestion), strerror(errno));
    }
}

static int rb_wait_fd(int fd, short ev)
{
    struct pollfd p = {.fd = fd, .events = ev};
    int r;
    do
        r = poll(&p, 1, RB_CONNECT_MS);
    while (r < 0 && errno == EINTR);
    return r == 1 ? 0 : -1;
}

/* Blocking-style exchange of a tiny hello on a fresh connection, bounded. */
static int rb_hello_io(int fd, void *buf, size_t len, int out)
{
    size_t got = 0;
    while (got < len) {
        if (rb_wait_fd(fd, out ? POLLOUT : POLLIN) < 0)
            return -1;
        ssize_t r = out ? send(fd, (char *)buf + got, len - got, MSG_NOSIGNAL | MSG_DONTWAIT)
                        : recv(fd, (char *)buf + got, len - got, MSG_DONTWAIT);
        if (r > 0)
            got += (size_t)r;
        else if (r == 0 || (errno != EAGAIN && errno != EINTR))
            return -1;
    }
    return 0;
}

/* Rank 0 connects from its address on the rail; rank 1 accepts. */
static int rb_connect(const rm_rail_dev_t *me, const struct sockaddr_in *peer, uint32_t rail, char *err,
                      size_t errlen)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        goto fail;
    rb_sockopts(fd);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr = me->ip};
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0)
        goto fail;
    if (connect(fd, (const struct sockaddr *)peer, sizeof *peer) < 0 && errno != EINPROGRESS)
        goto fail;
    int soerr = 0;
    socklen_t sl = sizeof soerr;
    if (rb_wait_fd(fd, POLLOUT) < 0) {
        errno = ETIMEDOUT;
        goto fail;
    }
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
    if (soerr) {
        errno = soerr;
        goto fail;
    }
    uint32_t hello[2] = {RB_MAGIC, rail};
    if (rb_hello_io(fd, hello, sizeof hello, 1) < 0)
        goto fail;
    return fd;
fail:
    snprintf(err, errlen, "connect on %s: %s", me->ifname, strerror(errno));
    if (fd >= 0)
        close(fd);
    return -1;
}

static int rb_accept(int lfd, const rm_rail_dev_t *me, uint32_t rail, char *err, size_t errlen)
{
    if (rb_wait_fd(lfd, POLLIN) < 0) {
        snprintf(err, errlen, "no connection from rank 0 on %s within %d s", me->ifname, RB_CONNECT_MS / 1000);
        return -1;
    }
    int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "accept on %s: %s", me->ifname, strerror(errno));
        return -1;
    }
    rb_sockopts(fd);
    uint32_t hello[2];
    if (rb_hello_io(fd, hello, sizeof hello, 0) < 0 || hello[0] != RB_MAGIC || hello[1] != rail) {
        snprintf(err, errlen, "a connection on %s is not rank 0's for rail %u", me->ifname, rail);
        close(fd);
        return -1;
    }
    return fd;
}

/* ---- moving bytes ------------------------------------------------------ */

/* Cut messages of n bytes in equal stripes over the connections. A TCP
 * stream has no empty message: size 0 travels as a 1-byte token. */
static void rb_cut(rb_tcp_t *t, long n)
{
    if (t->cut == n)
        return;
    size_t e = n ? (size_t)n : 1, base = e / (size_t)t->nconn, rem = e % (size_t)t->nconn, off = 0;
    for (int i = 0; i < t->nconn; i++) {
        t->conn[i].off = off;
        t->conn[i].len = base + ((size_t)i < rem);
        off += t->conn[i].len;
    }
    t->stride = e;
    t->cut = n;
}

/* Spin until every connection has sent `nsend` and received `nrecv` stripes. */
static void rb_xfer(rb_tcp_t *t, long nsend, long nrecv)
{
    for (int i = 0; i < t->nconn; i++) {
        rb_conn_t *c = &t->conn[i];
        c->smsg = c->rmsg = 0;
        c->sgot = c->rgot = 0;
    }
    int idle = 0;
    struct timespec stalled = {0, 0};
    for (;;) {
        int left = 0, moved = 0;
        for (int i = 0; i < t->nconn; i++) {
            rb_conn_t *c = &t->conn[i];
            if (!c->len)
                continue;
            if (c->smsg < nsend) {
                ssize_t r = send(c->fd, t->sbuf + (size_t)c->smsg * t->stride + c->off + c->sgot,
                                 c->len - c->sgot, MSG_DONTWAIT | MSG_NOSIGNAL);
                if (r > 0) {
                    moved = 1;
                    if ((c->sgot += (size_t)r) == c->len) {
                        c->smsg++;
                        c->sgot = 0;
                    }
                } else if (errno != EAGAIN && errno != EINTR) {
                    rb_fatal(t, "send: %s", strerror(errno));
                }
                left += c->smsg < nsend;
            }
            if (c->rmsg < nrecv) {
                ssize_t r = recv(c->fd, t->rbuf + (size_t)c->rmsg * t->stride + c->off + c->rgot,
                                 c->len - c->rgot, MSG_DONTWAIT);
                if (r > 0) {
                    moved = 1;
                    if ((c->rgot += (size_t)r) == c->len) {
                        c->rmsg++;
                        c->rgot = 0;
                    }
                } else if (r == 0) {
                    rb_fatal(t, "%s", "connection closed by the peer");
                } else if (errno != EAGAIN && errno != EINTR) {
                    rb_fatal(t, "recv: %s", strerror(errno));
                }
                left += c->rmsg < nrecv;
            }
        }
        if (!left)
            return;
        if (moved) {
            idle = 0;
            stalled.tv_sec = 0;
        } else if (++idle >= RB_SPIN) {
            /* the clock is read only while idle, off the hot path */
            idle = 0;
            sched_yield();
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            if (!stalled.tv_sec)
                stalled = now;
            else if (now.tv_sec - stalled.tv_sec > RB_STALL_S)
                rb_fatal(t, "%s", "no byte moved for 30 s (peer gone or link down?)");
        }
    }
}

/* One byte on the first connection: acks, start signal, continue flag. */
static void rb_byte(rb_tcp_t *t, char *b, int out)
{
    rb_conn_t save = t->conn[0];
    char *sb = t->sbuf, *rbuf = t->rbuf;
    int n = t->nconn;
    size_t stride = t->stride;
    t->conn[0].off = 0;
    t->conn[0].len = 1;
    t->nconn = 1;
    t->sbuf = t->rbuf = b;
    t->stride = 1;
    rb_xfer(t, out, !out);
    t->conn[0] = save;
    t->sbuf = sb;
    t->rbuf = rbuf;
    t->nconn = n;
    t->stride = stride;
}

static void rb_tcp_iter(void *ctx, long n)
{
    rb_tcp_t *t = ctx;
    rb_cut(t, n);
    rb_test_t test = t->o->test;
    if (test == RB_LAT) {
        if (!t->rank) {
            rb_xfer(t, 1, 1); /* its receive can only complete after its send */
        } else {
            rb_xfer(t, 0, 1);
            rb_xfer(t, 1, 0);
        }
        return;
    }
    long w = t->o->window;
    if (test == RB_BIBW)
        rb_xfer(t, w, w);
    else
        rb_xfer(t, t->rank ? 0 : w, t->rank ? w : 0);
    char ack = 0;
    rb_byte(t, &ack, t->rank);
}

static void rb_tcp_sync(void *ctx)
{
    rb_tcp_t *t = ctx;
    char z = 0;
    rb_byte(t, &z, !t->rank);
    rb_byte(t, &z, t->rank);
}

static int rb_tcp_more(void *ctx, int more)
{
    rb_tcp_t *t = ctx;
    char b = (char)more;
    rb_byte(t, &b, !t->rank);
    return b;
}

static void rb_tcp_fini(void *ctx)
{
    rb_tcp_t *t = ctx;
    for (int i = 0; i < t->nconn; i++)
        close(t->conn[i].fd);
    t->nconn = 0;
}

/* ---- set-up ------------------------------------------------------------ */

/* Both ranks learn whether both succeeded; 0 if so. */
static int rb_agree(int rank, int ok)
{
    int peer_ok = 0;
    MPI_Sendrecv(&ok, 1, MPI_INT, !rank, 7, &peer_ok, 1, MPI_INT, !rank, 7, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    return ok && peer_ok ? 0 : -1;
}

int rb_transport_open(const rb_opts_t *o, int rank, char *sbuf, char *rbuf, rb_level_t *out)
{
    rb_tcp_t *t = &rb_tcp;
    memset(t, 0, sizeof *t);
    t->o = o;
    t->rank = rank;
    t->sbuf = sbuf;
    t->rbuf = rbuf;
    t->cut = -1;
    if (rm_config_load() != RM_OK)
        return 2; /* a malformed RAILMPI_* setting, named by the config table */
    rm_rail_dev_t dev[RB_MAX_RAILS];
    int lfd[RB_MAX_RAILS], ndev;
    const char *want = o->rails ? o->rails : RM_CFG_STR(tcp_rails);
    ndev = rb_devices(want, rank, dev, RB_MAX_RAILS);
    /* the card: this host's rails as "ip/prefix:port", or why there are none */
    char card[RB_CARD] = "", peer_card[RB_CARD];
    int ok = ndev >= 0;
    for (int i = 0; i < ndev && ok; i++) {
        struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr = dev[i].ip};
        socklen_t sl = sizeof sa;
        lfd[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (lfd[i] < 0 || bind(lfd[i], (struct sockaddr *)&sa, sl) < 0 || listen(lfd[i], 16) < 0 ||
            getsockname(lfd[i], (struct sockaddr *)&sa, &sl) < 0) {
            fprintf(stderr, "railbench: rank %d: cannot listen on %s: %s\n", rank, dev[i].ifname,
                    strerror(errno));
            ok = 0;
            ndev = i + (lfd[i] >= 0);
            break;
        }
        char ip[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &dev[i].ip, ip, sizeof ip);
        size_t l = strlen(card);
        snprintf(card + l, sizeof card - l, "%s%s/%d:%d", l ? "," : "", ip, dev[i].prefix, ntohs(sa.sin_port));
    }
    MPI_Sendrecv(card, RB_CARD, MPI_CHAR, !rank, 6, peer_card, RB_CARD, MPI_CHAR, !rank, 6,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int rc = 2;
    if (rb_agree(rank, ok) < 0)
        goto out;
    /* the rails both hosts share, in subnet order: the same list on both */
    int shared[RB_MAX_RAILS], nshared = 0;
    struct sockaddr_in paddr[RB_MAX_RAILS];
    for (int i = 0; i < ndev; i++) {
        char list[RB_CARD];
        snprintf(list, sizeof list, "%s", peer_card);
        for (char *save, *a = strtok_r(list, ",", &save); a; a = strtok_r(NULL, ",", &save)) {
            char ip[INET_ADDRSTRLEN];
            int p, port;
            struct sockaddr_in sa = {.sin_family = AF_INET};
            if (sscanf(a, "%15[0-9.]/%d:%d", ip, &p, &port) != 3 ||
                inet_pton(AF_INET, ip, &sa.sin_addr) != 1 || p != dev[i].prefix ||
                rm_rail_net(sa.sin_addr, p) != rm_rail_net(dev[i].ip, p))
                continue;
            sa.sin_port = htons((uint16_t)port);
            paddr[nshared] = sa;
            shared[nshared++] = i;
            break;
        }
    }
    if (!nshared) {
        if (!rank)
            fprintf(stderr, "railbench: ranks 0 and 1 share no rail (rank 0: %s; rank 1: %s)%s\n",
                    *card ? card : "none", *peer_card ? peer_card : "none",
                    want && *want ? "" : "; name them with -r");
        goto out;
    }
    if (o->rail >= nshared) {
        if (!rank)
            fprintf(stderr, "railbench: -R %d: unknown rail; ranks 0 and 1 share %d (-R 0 to %d)\n",
                    o->rail, nshared, nshared - 1);
        goto out;
    }
    int first = o->rail >= 0 ? o->rail : 0, last = o->rail >= 0 ? o->rail : nshared - 1;
    char err[256] = "";
    ok = 1;
    for (int k = first; k <= last && ok; k++) {
        const rm_rail_dev_t *d = &dev[shared[k]];
        int fd = !rank ? rb_connect(d, &paddr[k], (uint32_t)k, err, sizeof err)
                       : rb_accept(lfd[shared[k]], d, (uint32_t)k, err, sizeof err);
        if (fd < 0) {
            fprintf(stderr, "railbench: rank %d: rail %d: %s\n", rank, k, err);
            ok = 0;
            break;
        }
        t->conn[t->nconn++].fd = fd;
    }
    rc = 1;
    if (rb_agree(rank, ok) < 0) {
        rb_tcp_fini(t);
        goto out;
    }
    if (!rank && !o->timeline) {
        for (int k = first; k <= last; k++) {
            char net[32];
            rm_rail_subnet_str(&dev[shared[k]], net, sizeof net);
            printf("# rail %d: %s (%s)%s\n", k, net, dev[shared[k]].ifname,
                   first == last ? "" : ", striped");
        }
        char cc[32] = "";
        socklen_t cl = sizeof cc - 1;
        if (getsockopt(t->conn[0].fd, IPPROTO_TCP, TCP_CONGESTION, cc, &cl) == 0)
            printf("# congestion control: %s\n", cc);
    }
    *out = (rb_level_t){.iter = rb_tcp_iter, .sync = rb_tcp_sync, .more = rb_tcp_more,
                        .fini = rb_tcp_fini, .ctx = t};
    rc = 0;
out:
    for (int i = 0; i < ndev; i++)
        close(lfd[i]);
    return rc;
}
