/* What the kernel measured of a TCP connection (TCP_INFO), for the rail
 * layer's path repository. Kept apart from tcp.c because <linux/tcp.h>,
 * which has the fields, cannot be included beside <netinet/tcp.h>. */
#ifndef RM_NET_TCP_INFO_H
#define RM_NET_TCP_INFO_H

#include "net/net.h"

/* 0 and *m filled, or -1 (errno set) when the socket cannot say. */
int tcp_info_measure(int fd, net_measure_t *m);

#endif
