/* Rail discovery, shared by the TCP transport and railbench's transport
 * level: which of this host's IPv4 interfaces are rails, ordered by subnet
 * so that every host numbers the subnets it shares alike. */
#ifndef RM_UTIL_RAILS_H
#define RM_UTIL_RAILS_H

#include <net/if.h>
#include <netinet/in.h>
#include <stdint.h>

typedef struct rm_rail_dev {
    char ifname[IF_NAMESIZE];
    struct in_addr ip;
    int prefix;
} rm_rail_dev_t;

/* The subnet of ip/prefix, host byte order. */
uint32_t rm_rail_net(struct in_addr ip, int prefix);

/* "a.b.c.d/len" of the device's subnet (e.g. 198.18.10.0/24) into buf. */
void rm_rail_subnet_str(const rm_rail_dev_t *d, char *buf, size_t len);

/* Parse "a.b.c.d/len"; 0, or -1 if it is not one. */
int rm_rail_cidr(const char *tok, struct in_addr *net, int *prefix);

/* The first malformed entry of a rail list (comma-separated CIDR subnets
 * and interface names) copied into bad, or 0 when every entry is well formed. */
int rm_rails_check(const char *list, char *bad, size_t badlen);

/* This host's rails, at most max, ordered by subnet. With a list: the up
 * interfaces it names or whose address lies in a subnet it names (loopback
 * only if loopback_ok). Without one (NULL or empty): every up, non-loopback
 * IPv4 interface except the one whose address is launch_addr (the
 * launcher's management network). Returns the count. */
int rm_rails_find(const char *list, const char *launch_addr, int loopback_ok, rm_rail_dev_t *out, int max);

#endif
