#include "util/sock.h"

#include "util/config.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int rm_sock_connect(const char *hostport, char *local_ip, size_t iplen)
{
    char host[256];
    const char *colon = strrchr(hostport, ':');
    if (!colon || (size_t)(colon - hostport) >= sizeof host)
        return -1;
    memcpy(host, hostport, (size_t)(colon - hostport));
    host[colon - hostport] = 0;
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *ai;
    if (getaddrinfo(host, colon + 1, &hints, &ai) != 0)
        return -1;
    int fd = -1;
    for (struct addrinfo *a = ai; a; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) == 0)
            break;
        if (fd >= 0)
            close(fd);
        fd = -1;
    }
    freeaddrinfo(ai);
    if (fd >= 0)
        rm_sock_nodelay(fd);
    if (fd >= 0 && local_ip) {
        struct sockaddr_in sa;
        socklen_t sl = sizeof sa;
        if (getsockname(fd, (struct sockaddr *)&sa, &sl) == 0)
            inet_ntop(AF_INET, &sa.sin_addr, local_ip, (socklen_t)iplen);
    }
    return fd;
}

void rm_sock_nodelay(int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

int rm_sock_rail_opts(int fd)
{
    int buf = 4 << 20;
    rm_sock_nodelay(fd);
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof buf);
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof buf);
    const char *cc = RM_CFG_STR(tcp_congestion);
    if (cc && *cc && setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc, (socklen_t)strlen(cc)) < 0)
        return -1;
    return 0;
}
