/* Processes outside MPI_COMM_WORLD (dynamic processes): the process table
 * grows past the world, a new process's channel is created when it is first
 * named, and its paths are connected from its business card.
 *
 * A card is "JOB SECRET RANK TCP": the job id, the job's TCP secret, the rank
 * in that job's world and the TCP rails' addresses ("none" when it has none).
 * Processes of another job are reached over TCP only, also on one host: the
 * shared-memory segments are named by job and mapped at start-up, and the
 * rails are opened when this process first hands out its card (loopback when
 * the host has no other interface). The secret identifies the job in TCP
 * handshakes; a job started without one (one host under Hydra, a singleton)
 * has each process draw its own, which identifies it as well. */
#include "proto/engine.h"
#include "util/clock.h"
#include "util/lock.h"
#include "util/log.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>

int proto_nprocs(void)
{
    return proto_proc.world_size + proto_eng.nx;
}

static const net_ops_t *proto_tcp(void)
{
    return net_transport_find("tcp");
}

/* The TCP rails, opened now if start-up did not (one host). */
static rm_status_t proto_rails_ensure(void)
{
    const net_ops_t *tr = proto_tcp();
    if (!tr)
        return RM_ERR_UNSUPPORTED;
    for (int i = 0; i < proto_eng.nifaces; i++)
        if (proto_eng.ifaces[i].ops == tr)
            return RM_OK;
    if (!*proto_eng.job_secret) {
        unsigned char r[16];
        if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r)
            return RM_ERR_INTERNAL;
        for (size_t i = 0; i < sizeof r; i++)
            snprintf(proto_eng.job_secret + 2 * i, 3, "%02x", r[i]);
    }
    net_env_t env = proto_eng.env;
    env.loopback_ok = 1;
    int n = tr->query(&env);
    if (n > PROTO_MAX_IFACES - proto_eng.nifaces)
        n = PROTO_MAX_IFACES - proto_eng.nifaces;
    for (int i = 0; i < n; i++) {
        proto_iface_t *pi = &proto_eng.ifaces[proto_eng.nifaces];
        rm_status_t st = tr->open(&env, i, &pi->ifc);
        if (st < 0)
            return st;
        pi->ops = tr;
        pi->work = tr->work_hint ? tr->work_hint(pi->ifc) : NULL;
        proto_eng.nifaces++;
        proto_eng.nrails++;
        size_t m = tr->max_payload(pi->ifc);
        if (!proto_eng.net_chunk || m < proto_eng.net_chunk)
            proto_eng.net_chunk = m;
    }
    if (!n) {
        rm_log_error("no TCP interface to reach processes of other jobs");
        return RM_ERR_UNREACHABLE;
    }
    return RM_OK;
}

rm_status_t proto_card_mine(char *buf, size_t len)
{
    rm_status_t st = proto_rails_ensure();
    if (st < 0)
        return st;
    const net_ops_t *tr = proto_tcp();
    char rails[1024] = "";
    for (int i = 0; i < proto_eng.nifaces; i++) {
        if (proto_eng.ifaces[i].ops != tr)
            continue;
        char a[256];
        if ((st = tr->addr_pack(proto_eng.ifaces[i].ifc, a, sizeof a)) < 0)
            return st;
        size_t l = strlen(rails);
        snprintf(rails + l, sizeof rails - l, "%s%s", l ? "," : "", a);
    }
    int n = snprintf(buf, len, "%s %s %d %s", proto_eng.job_id, proto_eng.job_secret,
                     proto_proc.world_rank, *rails ? rails : "none");
    return n < 0 || (size_t)n >= len ? RM_ERR_INVALID : RM_OK;
}

/* Connect the channel's paths: one per local TCP rail that shares a subnet
 * with one of the peer's addresses. */
static rm_status_t proto_proc_connect(rail_channel_t *ch, int idx, const char *secret, int rank,
                                      const char *rails)
{
    const net_ops_t *tr = proto_tcp();
    int rail = 0, paths = 0;
    for (int i = 0; i < proto_eng.nifaces; i++) {
        proto_iface_t *pi = &proto_eng.ifaces[i];
        if (pi->ops != tr)
            continue;
        char list[1024];
        snprintf(list, sizeof list, "%s", rails);
        for (char *save, *a = strtok_r(list, ",", &save); a; a = strtok_r(NULL, ",", &save)) {
            net_path_t *np;
            rm_status_t st = tr->connect_foreign(pi->ifc, idx, a, secret, rank, ch, &np);
            if (st == RM_ERR_UNREACHABLE)
                continue;
            if (st < 0 || (st = rail_channel_add_path(ch, tr, pi->ifc, np, rail)) < 0)
                return st;
            paths++;
            break;
        }
        rail++;
    }
    if (!paths) {
        rm_log_error("no TCP rail reaches process %d (rank %d of another job; its rails: %s)", idx,
                     rank, rails);
        return RM_ERR_UNREACHABLE;
    }
    return RM_OK;
}

rm_status_t proto_proc_add(const char *card, int *idx)
{
    char job[128], secret[64], rails[1024];
    int rank;
    if (sscanf(card, "%127s %63s %d %1023s", job, secret, &rank, rails) != 4 || rank < 0 ||
        strlen(secret) >= sizeof proto_eng.job_secret)
        return RM_ERR_INVALID;
    /* a rank of our own job keeps its world channel (shared memory too) */
    if (!strcmp(job, proto_eng.job_id) && rank < proto_proc.world_size &&
        (!proto_eng.secret_shared || !strcmp(secret, proto_eng.job_secret))) {
        *idx = rank;
        return RM_OK;
    }
    rm_status_t st = proto_rails_ensure();
    if (st < 0)
        return st;
    /* known already (an earlier connection): the same channel */
    for (int i = 0; i < proto_eng.nx; i++) {
        if (!strcmp(proto_eng.xsecret[i], secret) && proto_eng.xrank[i] == rank) {
            *idx = proto_proc.world_size + i;
            return RM_OK;
        }
    }
    if (proto_eng.nx == proto_eng.xcap) {
        int cap = proto_eng.xcap ? 2 * proto_eng.xcap : 8;
        rail_channel_t **x = realloc(proto_eng.xch, sizeof *x * (size_t)cap);
        if (!x)
            return RM_ERR_NOMEM;
        proto_eng.xch = x;
        char(*s)[56] = realloc(proto_eng.xsecret, sizeof *s * (size_t)cap);
        if (!s)
            return RM_ERR_NOMEM;
        proto_eng.xsecret = s;
        int *r = realloc(proto_eng.xrank, sizeof *r * (size_t)cap);
        if (!r)
            return RM_ERR_NOMEM;
        proto_eng.xrank = r;
        int *nodes = realloc(proto_proc.node_of, sizeof *nodes * (size_t)(proto_proc.world_size + cap));
        if (!nodes)
            return RM_ERR_NOMEM;
        proto_proc.node_of = nodes;
        proto_eng.env.node_of = nodes;
        proto_eng.xcap = cap;
    }
    rail_channel_t *ch = calloc(1, sizeof *ch);
    if (!ch)
        return RM_ERR_NOMEM;
    int n = proto_proc.world_size + proto_eng.nx;
    rail_channel_init(ch, n);
    /* both sides must agree who reconnects a lost path: the process later in
     * the order of (secret, rank) over all jobs, as TCP's handshake decides */
    int c = strcmp(proto_eng.job_secret, secret);
    ch->order = (c ? c > 0 : proto_proc.world_rank > rank) ? 1 : -1;
    if ((st = proto_proc_connect(ch, n, secret, rank, rails)) < 0) {
        rail_channel_destroy(ch);
        free(ch);
        return st;
    }
    proto_eng.xch[proto_eng.nx] = ch;
    snprintf(proto_eng.xsecret[proto_eng.nx], sizeof proto_eng.xsecret[0], "%s", secret);
    proto_eng.xrank[proto_eng.nx] = rank;
    /* a host of its own: never shared memory with it */
    proto_proc.node_of[n] = proto_proc.nnodes + proto_eng.nx;
    proto_eng.nx++;
    *idx = n;
    return RM_OK;
}

int proto_proc_before(int a, int b)
{
    const char *sa = a < proto_proc.world_size ? proto_eng.job_secret : proto_eng.xsecret[a - proto_proc.world_size];
    const char *sb = b < proto_proc.world_size ? proto_eng.job_secret : proto_eng.xsecret[b - proto_proc.world_size];
    int ra = a < proto_proc.world_size ? a : proto_eng.xrank[a - proto_proc.world_size];
    int rb = b < proto_proc.world_size ? b : proto_eng.xrank[b - proto_proc.world_size];
    int c = strcmp(sa, sb);
    return c ? c < 0 : ra < rb;
}

/* ---- sockets between the leaders of two jobs --------------------------- */

/* Wait until fd is ready for `events`, progressing the engine meanwhile (the
 * other processes' traffic and heartbeats must not stall while a leader
 * waits for another job). deadline 0: none. */
rm_status_t proto_fd_wait(int fd, short events, uint64_t deadline)
{
    for (;;) {
        struct pollfd p = {.fd = fd, .events = events};
        int n = poll(&p, 1, 0);
        if (n > 0)
            return RM_OK;
        if (n < 0 && errno != EINTR)
            return RM_ERR_IO;
        if (deadline && rm_now() >= deadline)
            return RM_ERR_TIMED_OUT;
        if (!proto_progress()) {
            /* idle: let go of the processor (and the lock) for a moment */
            rm_lock_yield();
            p.revents = 0;
            poll(&p, 1, 1);
        }
    }
}

rm_status_t proto_fd_write(int fd, const void *buf, size_t len, uint64_t deadline)
{
    const char *b = buf;
    while (len) {
        ssize_t n = send(fd, b, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            b += n;
            len -= (size_t)n;
            continue;
        }
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            return RM_ERR_CONN_RESET;
        rm_status_t st = proto_fd_wait(fd, POLLOUT, deadline);
        if (st < 0)
            return st;
    }
    return RM_OK;
}

rm_status_t proto_fd_read(int fd, void *buf, size_t len, uint64_t deadline)
{
    char *b = buf;
    while (len) {
        ssize_t n = recv(fd, b, len, MSG_DONTWAIT);
        if (n > 0) {
            b += n;
            len -= (size_t)n;
            continue;
        }
        if (n == 0)
            return RM_ERR_CONN_RESET;
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            return RM_ERR_CONN_RESET;
        rm_status_t st = proto_fd_wait(fd, POLLIN, deadline);
        if (st < 0)
            return st;
    }
    return RM_OK;
}

/* Both leaders send and receive at once: each reads while its own bytes
 * wait for room, so groups whose cards exceed the sockets' buffers cannot
 * leave both leaders blocked in a write. */
rm_status_t proto_fd_swap(int fd, const void *mine, size_t n, void *theirs, size_t m)
{
    const char *out = mine;
    char *in = theirs;
    while (n || m) {
        ssize_t k;
        if (n && (k = send(fd, out, n, MSG_NOSIGNAL | MSG_DONTWAIT)) > 0) {
            out += k;
            n -= (size_t)k;
            continue;
        } else if (n && k < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            return RM_ERR_CONN_RESET;
        }
        if (m && (k = recv(fd, in, m, MSG_DONTWAIT)) > 0) {
            in += k;
            m -= (size_t)k;
            continue;
        } else if (m && (k == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))) {
            return RM_ERR_CONN_RESET;
        }
        rm_status_t st = proto_fd_wait(fd, (short)((n ? POLLOUT : 0) | (m ? POLLIN : 0)), 0);
        if (st < 0)
            return st;
    }
    return RM_OK;
}
