/* A peer process's death as its host's kernel tells it (tcp_gone.h).
 *
 * When a process ends, its kernel closes its sockets: its connections end
 * (FIN, or RST with unread data) and its listening socket is gone, so a new
 * connection to it is answered with RST (ECONNREFUSED). A network fault
 * gives neither: packets vanish (timeouts) or an ICMP error comes back
 * (EHOSTUNREACH, ENETUNREACH), and only a refusal counts here. */
#include "net/tcp_gone.h"
#include "util/clock.h"

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

void tcp_gone_close(tcp_gone_t *g)
{
    if (g->fd >= 0)
        close(g->fd);
    g->fd = -1;
}

int tcp_gone_check(tcp_gone_t *g, struct in_addr from, const struct sockaddr_in *to, uint64_t patience_ns)
{
    if (g->refused)
        return 1;
    uint64_t now = rm_now();
    if (g->fd < 0 && now < g->next)
        return 0;
    if (g->fd < 0) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
            return 0;
        struct sockaddr_in me = {.sin_family = AF_INET, .sin_addr = from};
        bind(fd, (struct sockaddr *)&me, sizeof me); /* leave through the path's own rail */
        if (connect(fd, (const struct sockaddr *)to, sizeof *to) == 0) {
            close(fd); /* something listens: the peer is there */
            g->next = now + patience_ns;
            return 0;
        }
        if (errno == ECONNREFUSED) {
            close(fd);
            return g->refused = 1;
        }
        if (errno != EINPROGRESS) {
            close(fd);
            return 0;
        }
        g->fd = fd;
        g->since = now;
        return 0;
    }
    struct pollfd pf = {.fd = g->fd, .events = POLLOUT};
    if (poll(&pf, 1, 0) <= 0) {
        if (now - g->since > patience_ns)
            tcp_gone_close(g); /* no answer at all: the network, not the peer; ask again later */
        return 0;
    }
    int err = 0;
    socklen_t len = sizeof err;
    if (getsockopt(g->fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
        err = errno;
    tcp_gone_close(g);
    if (err == ECONNREFUSED)
        return g->refused = 1;
    if (!err)
        g->next = now + patience_ns;
    return 0;
}
