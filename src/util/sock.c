#include "util/sock.h"

#include "util/config.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
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

#ifndef TCP_RTO_MAX_MS
#define TCP_RTO_MAX_MS 44 /* Linux 6.15 */
#endif

/* The same IP address, ports aside. */
static int rm_sock_same_ip(const struct sockaddr *a, const struct sockaddr_storage *b)
{
    if (a->sa_family != b->ss_family)
        return 0;
    if (a->sa_family == AF_INET)
        return ((const struct sockaddr_in *)(const void *)a)->sin_addr.s_addr ==
               ((const struct sockaddr_in *)(const void *)b)->sin_addr.s_addr;
    if (a->sa_family == AF_INET6)
        return !memcmp(&((const struct sockaddr_in6 *)(const void *)a)->sin6_addr,
                       &((const struct sockaddr_in6 *)(const void *)b)->sin6_addr, sizeof(struct in6_addr));
    return 0;
}

int rm_sock_cap_rto(const struct sockaddr *local, int ms)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    int n = 0, err = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        char *end;
        long fd = strtol(e->d_name, &end, 10);
        struct stat st;
        int type;
        socklen_t tl = sizeof type;
        struct sockaddr_storage sa;
        socklen_t sl = sizeof sa;
        if (*end || end == e->d_name || fd == dirfd(d) || fstat((int)fd, &st) || !S_ISSOCK(st.st_mode) ||
            getsockopt((int)fd, SOL_SOCKET, SO_TYPE, &type, &tl) || type != SOCK_STREAM ||
            getsockname((int)fd, (struct sockaddr *)&sa, &sl) || !rm_sock_same_ip(local, &sa))
            continue;
        if (setsockopt((int)fd, IPPROTO_TCP, TCP_RTO_MAX_MS, &ms, sizeof ms) == 0) {
            n++;
        } else if (errno == ENOPROTOOPT) {
            err = errno;
            break;
        }
    }
    closedir(d);
    if (err) {
        errno = err;
        return -1;
    }
    return n;
}
