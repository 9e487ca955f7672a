/* Small socket helpers shared by the launcher, the boot layer, the tcp
 * transport and railbench's plain TCP level. */
#ifndef RM_UTIL_SOCK_H
#define RM_UTIL_SOCK_H

#include <stddef.h>
#include <sys/socket.h>

/* Connect a TCP socket to "host:port" (close-on-exec). Returns the fd or -1.
 * With local_ip, the local address the connection uses is written there. */
int rm_sock_connect(const char *hostport, char *local_ip, size_t iplen);

/* No Nagle delay: for connections that carry small requests and answers
 * (PMI, the launcher's control lines, MPI_Comm_connect's greeting), which
 * would otherwise wait out the peer's delayed acknowledgement. */
void rm_sock_nodelay(int fd);

/* The options of every rail connection (the tcp transport's and railbench's
 * plain TCP): no Nagle delay, 4 MiB socket buffers, and the congestion
 * control RAILMPI_TCP_CONGESTION names (empty: the system's). Returns 0, or
 * -1 with errno set when the kernel refused the congestion control (the
 * connection then keeps the system's; the other options are set anyway). */
int rm_sock_rail_opts(int fd);

/* Caps the retransmission timeout (Linux's TCP_RTO_MAX_MS, from 6.15; at
 * least 1000 ms) of every TCP socket of this process bound to the address
 * of `local` (its port not compared): the sockets a libfabric provider
 * keeps for itself, which railmpi never sees otherwise. A connection that
 * lost segments while its link was down then retransmits within `ms` of
 * the link's return instead of after an exponential backoff of seconds.
 * Returns how many sockets took it, or -1 with errno set (ENOPROTOOPT: the
 * kernel has no such option). */
int rm_sock_cap_rto(const struct sockaddr *local, int ms);

#endif
