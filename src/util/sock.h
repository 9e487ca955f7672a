/* Small socket helpers shared by the launcher and the boot layer. */
#ifndef RM_UTIL_SOCK_H
#define RM_UTIL_SOCK_H

#include <stddef.h>

/* Connect a TCP socket to "host:port" (close-on-exec). Returns the fd or -1.
 * With local_ip, the local address the connection uses is written there. */
int rm_sock_connect(const char *hostport, char *local_ip, size_t iplen);

#endif
