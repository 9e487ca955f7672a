/* Dynamic processes between separately started jobs (MPI-3.1 §10.4): ports,
 * MPI_Comm_accept / MPI_Comm_connect, MPI_Comm_join.
 *
 * A port is a TCP socket the opening process listens on; its name,
 * "railmpi-port:IP:PORT:TOKEN", carries the address of its first TCP rail (so
 * it works across hosts) and a random token that a connector must present.
 * Once the two roots hold a connection (accepted on a port, or the user's
 * socket for MPI_Comm_join), each root gathers its group's business cards,
 * the roots swap them over the socket and broadcast them to their groups,
 * every process adds the other group's processes to its process table (TCP
 * paths, src/proto/procs.c), and the two groups agree a context id as
 * MPI_Intercomm_create's leaders do, the roots talking over the socket. */
#include "coll/coll.h"
#include "comm/comm.h"
#include "proto/proto.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/sock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#define DYN_MAGIC "RMDYN01"
#define DYN_GREET_MAGIC "RMPORT1"
#define DYN_TOKEN 33
/* how long an accepted connection has to present its token */
#define DYN_GREET_NS (10000 * RM_MS)

typedef struct dyn_port {
    char name[MPI_MAX_PORT_NAME];
    char token[DYN_TOKEN];
    int lfd;
    struct dyn_port *next;
} dyn_port_t;

static dyn_port_t *dyn_ports;

typedef struct dyn_greet {
    char magic[8];
    char token[DYN_TOKEN];
} dyn_greet_t;

typedef struct dyn_hdr {
    char magic[8];
    uint32_t n; /* cards that follow, network order; 0: the sender's group failed */
} dyn_hdr_t;

rm_status_t comm_port_open(char *name)
{
    char card[PROTO_CARD_MAX], ip[64];
    rm_status_t st = proto_card_mine(card, sizeof card);
    if (st < 0)
        return st;
    /* "JOB SECRET RANK a.b.c.d/p:port,...": the first rail's address */
    const char *rails = card;
    for (int i = 0; i < 3 && rails; i++)
        if ((rails = strchr(rails, ' ')))
            rails++;
    if (!rails || sscanf(rails, "%63[0-9.]", ip) != 1)
        return RM_ERR_UNREACHABLE;
    dyn_port_t *p = calloc(1, sizeof *p);
    if (!p)
        return RM_ERR_NOMEM;
    unsigned char r[16];
    if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) {
        free(p);
        return RM_ERR_INTERNAL;
    }
    for (size_t i = 0; i < sizeof r; i++)
        snprintf(p->token + 2 * i, 3, "%02x", r[i]);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
    socklen_t sl = sizeof sa;
    p->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (p->lfd < 0 || bind(p->lfd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(p->lfd, 64) < 0 ||
        getsockname(p->lfd, (struct sockaddr *)&sa, &sl) < 0) {
        rm_log_error("MPI_Open_port: cannot listen: %s", strerror(errno));
        if (p->lfd >= 0)
            close(p->lfd);
        free(p);
        return RM_ERR_IO;
    }
    snprintf(p->name, sizeof p->name, "railmpi-port:%s:%d:%s", ip, ntohs(sa.sin_port), p->token);
    strcpy(name, p->name);
    p->next = dyn_ports;
    dyn_ports = p;
    return RM_OK;
}

static dyn_port_t **dyn_port_find(const char *name)
{
    dyn_port_t **pp = &dyn_ports;
    while (*pp && strcmp((*pp)->name, name))
        pp = &(*pp)->next;
    return pp;
}

rm_status_t comm_port_close(const char *name)
{
    dyn_port_t **pp = dyn_port_find(name), *p = *pp;
    if (!p)
        return RM_ERR_NOT_FOUND;
    *pp = p->next;
    close(p->lfd); /* connections still waiting in its backlog are reset */
    free(p);
    return RM_OK;
}

void comm_ports_close_all(void)
{
    while (dyn_ports)
        comm_port_close(dyn_ports->name);
}

/* Root of MPI_Comm_accept: the next connection that presents the port's
 * token; others are dropped. -1 with *errclass set when the port is unknown. */
static int dyn_accept_fd(const char *name, uint64_t deadline, int *errclass)
{
    dyn_port_t *p = *dyn_port_find(name);
    if (!p) {
        *errclass = MPI_ERR_PORT;
        return -1;
    }
    for (;;) {
        rm_status_t st = proto_fd_wait(p->lfd, POLLIN, deadline);
        if (st < 0) {
            *errclass = MPI_ERR_PORT;
            return -1;
        }
        int fd = accept4(p->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0)
            continue;
        dyn_greet_t g;
        if (proto_fd_read(fd, &g, sizeof g, rm_now() + DYN_GREET_NS) == RM_OK &&
            !memcmp(g.magic, DYN_GREET_MAGIC, 8) && !memcmp(g.token, p->token, DYN_TOKEN - 1)) {
            rm_sock_nodelay(fd);
            return fd;
        }
        rm_log_warn("MPI_Comm_accept: dropped a connection that did not name the port");
        close(fd);
    }
}

/* Root of MPI_Comm_connect: a connection to the port, greeted. */
static int dyn_connect_fd(const char *name, uint64_t deadline, int *errclass)
{
    char ip[64], token[DYN_TOKEN];
    int port;
    struct sockaddr_in sa = {.sin_family = AF_INET};
    *errclass = MPI_ERR_PORT;
    if (sscanf(name, "railmpi-port:%63[0-9.]:%d:%32[0-9a-f]", ip, &port, token) != 3 || port <= 0 ||
        port > 65535 || strlen(token) != DYN_TOKEN - 1 || inet_pton(AF_INET, ip, &sa.sin_addr) != 1)
        return -1;
    sa.sin_port = htons((uint16_t)port);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return -1;
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0 && errno != EINPROGRESS)
        goto fail;
    int e = 0;
    socklen_t el = sizeof e;
    if (proto_fd_wait(fd, POLLOUT, deadline) < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) < 0 || e)
        goto fail;
    dyn_greet_t g = {.magic = DYN_GREET_MAGIC};
    memcpy(g.token, token, DYN_TOKEN);
    if (proto_fd_write(fd, &g, sizeof g, deadline) < 0)
        goto fail;
    rm_sock_nodelay(fd);
    *errclass = MPI_SUCCESS;
    return fd;
fail:
    close(fd);
    return -1;
}

/* The roots swap their groups' cards; `deadline` bounds the wait for the
 * other root's first answer (MPI_Comm_connect waits for the accept). */
static int dyn_root_swap(int fd, const char *mine, int n, char **theirs, int *m, uint64_t deadline)
{
    dyn_hdr_t h = {.magic = DYN_MAGIC, .n = htonl((uint32_t)n)}, rh;
    if (proto_fd_write(fd, &h, sizeof h, deadline) < 0 || proto_fd_read(fd, &rh, sizeof rh, deadline) < 0 ||
        memcmp(rh.magic, DYN_MAGIC, 8))
        return MPI_ERR_PORT;
    *m = (int)ntohl(rh.n);
    if (*m <= 0 || !n || *m > (1 << 20))
        return MPI_ERR_OTHER; /* either group failed to describe itself */
    if (!(*theirs = malloc((size_t)*m * PROTO_CARD_MAX)))
        return MPI_ERR_NO_MEM;
    if (proto_fd_swap(fd, mine, (size_t)n * PROTO_CARD_MAX, *theirs, (size_t)*m * PROTO_CARD_MAX) < 0)
        return MPI_ERR_OTHER;
    return MPI_SUCCESS;
}

/* Everything after the roots hold a connection (fd, valid at root; -1 when
 * the root failed with *errclass already set). */
static rm_status_t dyn_join_groups(comm_t *local, int root, int fd, uint64_t deadline, int *errclass,
                                   comm_t **out)
{
    dtype_t *chars = dtype_get(MPI_CHAR), *ints = dtype_get(MPI_INT);
    char card[PROTO_CARD_MAX] = "";
    char *all = NULL, *remote = NULL;
    int *idx = NULL;
    rm_status_t st = proto_card_mine(card, sizeof card);
    if (st < 0) {
        rm_log_error("cannot describe this process to another job: %s", rm_status_str(st));
        card[0] = 0;
    }
    int hdr[2] = {*errclass, 0}; /* error class, size of the other group */
    if (local->rank == root && !(all = malloc((size_t)local->size * PROTO_CARD_MAX)))
        hdr[0] = MPI_ERR_NO_MEM;
    st = coll_gather(card, PROTO_CARD_MAX, chars, all, PROTO_CARD_MAX, chars, root, local);
    if (st < 0)
        goto out;
    if (local->rank == root && hdr[0] == MPI_SUCCESS) {
        int n = local->size;
        for (int i = 0; i < local->size; i++)
            if (!all[(size_t)i * PROTO_CARD_MAX])
                n = 0; /* tell the other side we failed too */
        hdr[0] = dyn_root_swap(fd, all, n, &remote, &hdr[1], deadline);
    }
    if ((st = coll_bcast(hdr, 2, ints, root, local)) < 0)
        goto out;
    if ((*errclass = hdr[0]) != MPI_SUCCESS)
        goto out;
    if (local->rank != root && !(remote = malloc((size_t)hdr[1] * PROTO_CARD_MAX)))
        st = RM_ERR_NOMEM; /* still takes part in the broadcasts, into `card` */
    for (int i = 0; i < hdr[1]; i++) {
        rm_status_t st2 = coll_bcast(remote ? remote + (size_t)i * PROTO_CARD_MAX : card, PROTO_CARD_MAX,
                                     chars, root, local);
        if (st2 < 0)
            st = st2;
    }
    if (st < 0)
        goto out;
    /* every process of both groups must know the others before anyone
     * sends: the id agreement below is the barrier that ensures it */
    int ok = 1;
    if (!(idx = malloc(sizeof(int) * (size_t)hdr[1])))
        ok = 0;
    for (int i = 0; ok && i < hdr[1]; i++) {
        char *c = remote + (size_t)i * PROTO_CARD_MAX;
        c[PROTO_CARD_MAX - 1] = 0;
        if ((st = proto_proc_add(c, &idx[i])) < 0) {
            rm_log_error("cannot reach process %d of the other group: %s", i, rm_status_str(st));
            ok = 0;
        }
    }
    int fine = ok, theirs = 1;
    if ((st = coll_allreduce(MPI_IN_PLACE, &fine, 1, ints, op_get(MPI_MIN), local)) < 0)
        goto out;
    if (local->rank == root && proto_fd_swap(fd, &fine, sizeof fine, &theirs, sizeof theirs) < 0)
        theirs = 0;
    if ((st = coll_bcast(&theirs, 1, ints, root, local)) < 0)
        goto out;
    if (!fine || !theirs) {
        *errclass = MPI_ERR_OTHER;
        goto out;
    }
    st = comm_inter_from_socket(local, root, fd, idx, hdr[1], out);
out:
    free(all);
    free(remote);
    free(idx);
    return st;
}

rm_status_t comm_dyn_accept(const char *port, double timeout_s, int root, int root_err, comm_t *local,
                            int *errclass, comm_t **out)
{
    *out = NULL;
    *errclass = root_err;
    int fd = -1;
    if (local->rank == root && root_err == MPI_SUCCESS)
        fd = dyn_accept_fd(port, timeout_s > 0 ? rm_now() + (uint64_t)(timeout_s * 1e9) : 0, errclass);
    rm_status_t st = dyn_join_groups(local, root, fd, 0, errclass, out);
    if (fd >= 0)
        close(fd);
    return st;
}

rm_status_t comm_dyn_connect(const char *port, double timeout_s, int root, comm_t *local, int *errclass,
                             comm_t **out)
{
    *out = NULL;
    *errclass = MPI_SUCCESS;
    uint64_t deadline = rm_now() + (uint64_t)(timeout_s * 1e9);
    int fd = -1;
    if (local->rank == root)
        fd = dyn_connect_fd(port, deadline, errclass);
    rm_status_t st = dyn_join_groups(local, root, fd, deadline, errclass, out);
    if (fd >= 0)
        close(fd);
    return st;
}

rm_status_t comm_dyn_join(int fd, int *errclass, comm_t **out)
{
    *out = NULL;
    *errclass = MPI_SUCCESS;
    return dyn_join_groups(comm_self, 0, fd, 0, errclass, out);
}
