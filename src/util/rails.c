/* Rail discovery (see rails.h). */
#include "util/rails.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint32_t rm_rail_net(struct in_addr ip, int prefix)
{
    uint32_t m = prefix ? 0xffffffffu << (32 - prefix) : 0;
    return ntohl(ip.s_addr) & m;
}

void rm_rail_subnet_str(const rm_rail_dev_t *d, char *buf, size_t len)
{
    struct in_addr net = {.s_addr = htonl(rm_rail_net(d->ip, d->prefix))};
    char s[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &net, s, sizeof s);
    snprintf(buf, len, "%s/%d", s, d->prefix);
}

int rm_rail_cidr(const char *tok, struct in_addr *net, int *prefix)
{
    char ip[INET_ADDRSTRLEN];
    int p, used = 0;
    if (sscanf(tok, "%15[0-9.]/%d%n", ip, &p, &used) != 2 || tok[used] || p < 0 || p > 32)
        return -1;
    *prefix = p;
    return inet_pton(AF_INET, ip, net) == 1 ? 0 : -1;
}

int rm_rails_check(const char *list, char *bad, size_t badlen)
{
    char copy[512];
    snprintf(copy, sizeof copy, "%s", list ? list : "");
    for (char *save, *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        struct in_addr net;
        int p;
        if (strchr(tok, '/') ? rm_rail_cidr(tok, &net, &p) < 0 : strlen(tok) >= IF_NAMESIZE) {
            snprintf(bad, badlen, "%s", tok);
            return -1;
        }
    }
    return 0;
}

/* Whether the list names this interface or a subnet holding its address. */
static int rm_rails_listed(const char *list, const char *ifname, struct in_addr ip)
{
    char copy[512];
    snprintf(copy, sizeof copy, "%s", list);
    int take = 0;
    for (char *save, *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        struct in_addr net;
        int p;
        if (!strchr(tok, '/'))
            take |= !strcmp(tok, ifname);
        else if (rm_rail_cidr(tok, &net, &p) == 0)
            take |= rm_rail_net(ip, p) == rm_rail_net(net, p);
    }
    return take;
}

static int rm_rail_cmp(const void *a, const void *b)
{
    const rm_rail_dev_t *x = a, *y = b;
    uint32_t nx = rm_rail_net(x->ip, x->prefix), ny = rm_rail_net(y->ip, y->prefix);
    return nx < ny ? -1 : nx > ny;
}

int rm_rails_find(const char *list, const char *launch_addr, int loopback_ok, rm_rail_dev_t *out, int max)
{
    struct ifaddrs *ifa0, *ifa;
    if (getifaddrs(&ifa0) < 0)
        return 0;
    int n = 0, listed = list && *list;
    for (ifa = ifa0; ifa && n < max; ifa = ifa->ifa_next) {
        if (!ifa->ifa_addr || ifa->ifa_addr->sa_family != AF_INET || !ifa->ifa_netmask ||
            !(ifa->ifa_flags & IFF_UP))
            continue;
        if ((ifa->ifa_flags & IFF_LOOPBACK) && !(listed && loopback_ok))
            continue;
        struct in_addr ip = ((struct sockaddr_in *)ifa->ifa_addr)->sin_addr;
        char ipstr[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &ip, ipstr, sizeof ipstr);
        if (listed ? !rm_rails_listed(list, ifa->ifa_name, ip)
                   : launch_addr && *launch_addr && !strcmp(launch_addr, ipstr))
            continue;
        snprintf(out[n].ifname, sizeof out[n].ifname, "%s", ifa->ifa_name);
        out[n].ip = ip;
        out[n].prefix = __builtin_popcount(ntohl(((struct sockaddr_in *)ifa->ifa_netmask)->sin_addr.s_addr));
        n++;
    }
    freeifaddrs(ifa0);
    qsort(out, (size_t)n, sizeof *out, rm_rail_cmp);
    return n;
}
