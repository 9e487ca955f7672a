/* tcp_gone_check (src/net/tcp_gone.c): a peer's listener that accepts is
 * alive, one that is gone (refused) is dead, and an address that never
 * answers, or answers with an ICMP error, is never taken for a death. */
#include "net/tcp_gone.h"
#include "util/clock.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

static int fails;
#define CHECK(c, ...)                                                                                                  \
    do {                                                                                                               \
        if (!(c)) {                                                                                                    \
            printf("FAIL line %d: ", __LINE__);                                                                        \
            printf(__VA_ARGS__);                                                                                       \
            printf("\n");                                                                                              \
            fails++;                                                                                                   \
        }                                                                                                              \
    } while (0)

/* What tcp_gone_check says within `ms`: 1 as soon as it says so, else 0. */
static int ask(tcp_gone_t *g, struct in_addr from, const struct sockaddr_in *to, uint64_t patience, int ms)
{
    uint64_t end = rm_now() + (uint64_t)ms * RM_MS;
    while (rm_now() < end) {
        if (tcp_gone_check(g, from, to, patience))
            return 1;
        usleep(2000);
    }
    return 0;
}

int main(void)
{
    struct in_addr lo = {htonl(INADDR_LOOPBACK)}, any = {htonl(INADDR_ANY)};
    int l = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr = lo};
    socklen_t len = sizeof a;
    if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) < 0 || listen(l, 16) < 0 ||
        getsockname(l, (struct sockaddr *)&a, &len) < 0) {
        printf("SKIP: no loopback listener\n");
        return 0;
    }
    /* listening: alive, and asked again only after the patience */
    tcp_gone_t g = TCP_GONE_INIT;
    CHECK(!ask(&g, lo, &a, 200 * RM_MS, 100), "a listening peer was taken for dead");
    CHECK(g.next > rm_now(), "an answered attempt sets no pause before the next");
    CHECK(g.fd < 0, "the answered attempt's socket stays open");
    /* the listener gone: refused, and the answer stays */
    close(l);
    tcp_gone_t d = TCP_GONE_INIT;
    CHECK(ask(&d, lo, &a, 200 * RM_MS, 1000), "a port nobody listens on was not taken for a dead peer");
    CHECK(tcp_gone_check(&d, lo, &a, 200 * RM_MS) == 1, "the refusal was forgotten");
    /* an address nobody answers (TEST-NET-2): silence or an ICMP error, never a death */
    struct sockaddr_in far = {.sin_family = AF_INET, .sin_port = htons(9)};
    inet_pton(AF_INET, "198.51.100.1", &far.sin_addr);
    tcp_gone_t s = TCP_GONE_INIT;
    CHECK(!ask(&s, any, &far, 50 * RM_MS, 300), "an address that does not answer was taken for a dead peer");
    tcp_gone_close(&s);
    if (!fails)
        printf("OK: tcp_gone\n");
    return fails != 0;
}
