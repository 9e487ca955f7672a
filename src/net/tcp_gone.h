/* Whether a peer's process is gone, asked of its host's kernel: a
 * connection to the peer's listening socket is refused (the host answers,
 * nothing listens there) once the process has ended. Used by the tcp
 * transport's peer_gone op (net.h); kept apart from tcp.c. */
#ifndef RM_NET_TCP_GONE_H
#define RM_NET_TCP_GONE_H

#include <netinet/in.h>
#include <stdint.h>

typedef struct tcp_gone {
    int fd;          /* the attempt under way, or -1 */
    uint64_t since;  /* ns, when it started */
    int refused;     /* an attempt was refused: the answer stays */
    uint64_t next;   /* ns: no new attempt before (one was answered: the peer listens) */
} tcp_gone_t;

#define TCP_GONE_INIT {.fd = -1}

/* 1 once a connection from `from` to `to` has been refused; 0 otherwise,
 * starting an attempt when none is under way (one that has neither
 * connected nor been refused within `patience_ns` is dropped and started
 * again at a later call). A connection that succeeds is closed at once (the
 * peer's transport reads its end as an unfinished handshake), and the next
 * attempt waits `patience_ns`. */
int tcp_gone_check(tcp_gone_t *g, struct in_addr from, const struct sockaddr_in *to, uint64_t patience_ns);
void tcp_gone_close(tcp_gone_t *g);

#endif
