/* rm_sock_cap_rto (src/util/sock.c): every TCP socket of the process bound
 * to the given address takes the retransmission-timeout cap (a listener, a
 * connection's both ends), and none bound elsewhere does (127.0.0.2), nor a
 * UDP socket on the same address. On a kernel without TCP_RTO_MAX_MS (before
 * Linux 6.15) it must say so (-1, ENOPROTOOPT) and change nothing. */
#include "util/sock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef TCP_RTO_MAX_MS
#define TCP_RTO_MAX_MS 44
#endif

static int fails;
#define CHECK(c, ...)                                                                                      \
    do {                                                                                                   \
        if (!(c)) {                                                                                        \
            printf("FAIL: " __VA_ARGS__);                                                                  \
            printf("\n");                                                                                  \
            fails++;                                                                                       \
        }                                                                                                  \
    } while (0)

static struct sockaddr_in addr_of(const char *ip, int port)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, ip, &sa.sin_addr);
    return sa;
}

static int listener(const char *ip, struct sockaddr_in *bound)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = addr_of(ip, 0);
    socklen_t sl = sizeof *bound;
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) || listen(fd, 4) ||
        getsockname(fd, (struct sockaddr *)bound, &sl))
        return -1;
    return fd;
}

static int rto_max(int fd)
{
    int v = -1;
    socklen_t l = sizeof v;
    if (getsockopt(fd, IPPROTO_TCP, TCP_RTO_MAX_MS, &v, &l))
        return -1;
    return v;
}

int main(void)
{
    struct sockaddr_in a, b;
    int la = listener("127.0.0.1", &a), lb = listener("127.0.0.2", &b);
    CHECK(la >= 0 && lb >= 0, "listeners on 127.0.0.1 and 127.0.0.2: %s", strerror(errno));
    if (fails)
        return 1;
    int ca = socket(AF_INET, SOCK_STREAM, 0), cb = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in from_b = addr_of("127.0.0.2", 0); /* else its local address would be 127.0.0.1 */
    CHECK(!bind(cb, (struct sockaddr *)&from_b, sizeof from_b), "bind to 127.0.0.2: %s", strerror(errno));
    CHECK(!connect(ca, (struct sockaddr *)&a, sizeof a) && !connect(cb, (struct sockaddr *)&b, sizeof b),
          "connect: %s", strerror(errno));
    int sa = accept(la, NULL, NULL), sb = accept(lb, NULL, NULL);
    int udp = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in u = addr_of("127.0.0.1", 0);
    CHECK(sa >= 0 && sb >= 0 && udp >= 0 && !bind(udp, (struct sockaddr *)&u, sizeof u), "accept, udp: %s",
          strerror(errno));
    int before = rto_max(ca);
    struct sockaddr_in any_port = addr_of("127.0.0.1", 4242); /* the port is not compared */
    errno = 0;
    int n = rm_sock_cap_rto((struct sockaddr *)&any_port, 1500);
    if (n < 0 && errno == ENOPROTOOPT) {
        CHECK(before == -1, "the option reads %d but the cap says the kernel has none", before);
        printf("OK: this kernel has no TCP_RTO_MAX_MS; rm_sock_cap_rto says so\n");
        return fails > 0;
    }
    /* 127.0.0.1: the listener, the connecting end and the accepted end */
    CHECK(n == 3, "rm_sock_cap_rto capped %d sockets (errno %d), expected 3", n, errno);
    CHECK(rto_max(la) == 1500 && rto_max(ca) == 1500 && rto_max(sa) == 1500,
          "127.0.0.1's sockets: %d %d %d, expected 1500 each", rto_max(la), rto_max(ca), rto_max(sa));
    CHECK(rto_max(lb) == before && rto_max(cb) == before && rto_max(sb) == before,
          "127.0.0.2's sockets changed: %d %d %d (were %d)", rto_max(lb), rto_max(cb), rto_max(sb), before);
    /* a connection accepted later inherits the listener's cap */
    int ca2 = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(!connect(ca2, (struct sockaddr *)&a, sizeof a), "second connect: %s", strerror(errno));
    int sa2 = accept(la, NULL, NULL);
    CHECK(sa2 >= 0 && rto_max(sa2) == 1500, "a connection accepted after the cap: %d", rto_max(sa2));
    /* below the kernel's minimum (1000 ms): refused, nothing capped */
    CHECK(rm_sock_cap_rto((struct sockaddr *)&b, 10) == 0 && rto_max(cb) == before,
          "a 10 ms cap on 127.0.0.2 was taken (%d)", rto_max(cb));
    if (!fails)
        printf("OK: the retransmission cap reaches every TCP socket on the address and no other\n");
    return fails > 0;
}
