/* What the kernel measured of a TCP connection (TCP_INFO), for the rail
 * layer's path repository. Kept apart from tcp.c because <linux/tcp.h>,
 * which has the fields, cannot be included beside <netinet/tcp.h>. */
#ifndef RM_NET_TCP_INFO_H
#define RM_NET_TCP_INFO_H

#include "net/net.h"

/* The kernel's last delivery-rate readings of one connection. */
#define TCP_RATE_KEEP 3
typedef struct tcp_rate {
    double seen[TCP_RATE_KEEP - 1]; /* network-limited readings before the latest; 0: none */
} tcp_rate_t;

/* 0 and *m filled, or -1 (errno set) when the socket cannot say. The rate
 * is the kernel's latest delivery-rate reading, or less when one of the
 * TCP_RATE_KEEP - 1 network-limited readings before it was (tcp_info.c). */
int tcp_info_measure(int fd, tcp_rate_t *r, net_measure_t *m);
/* What the peer's kernel acknowledged on the connection so far (read by
 * its process or not) and the retransmission timeouts pending: 0, or -1
 * when the socket cannot say. */
int tcp_info_acks(int fd, net_acks_t *out);
/* The rate to report for one reading (`limited`: taken while the sender
 * had too little to send), which it also records. */
double tcp_rate_filter(tcp_rate_t *r, double rate, int limited);

#endif
