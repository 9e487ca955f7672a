/* TCP_INFO readings for the path repository (see tcp_info.h). */
#include "net/tcp_info.h"

#include <linux/tcp.h>
#include <stddef.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>

/* One reading in two or three of a rail shaped by a token bucket is its
 * burst, let through at the wire's speed: 2-100 x the rail's rate (a 0.5
 * Gbit/s rail read 60-97 MB/s, then 543, 620, 3103). Smoothed in, such
 * readings gave the slow rail of 2 + 0.5 Gbit/s more than its share of
 * every striped message. So the rate is the least of the latest reading
 * and the two network-limited ones before it: a lasting change passes
 * within three ticks, a lone burst not at all. Readings taken while the
 * sender had too little to send are no rate of the path and are not kept. */
double tcp_rate_filter(tcp_rate_t *r, double rate, int limited)
{
    double out = rate;
    for (int i = 0; i < TCP_RATE_KEEP - 1; i++)
        if (r->seen[i] > 0 && r->seen[i] < out)
            out = r->seen[i];
    if (rate > 0 && !limited) {
        for (int i = TCP_RATE_KEEP - 2; i > 0; i--)
            r->seen[i] = r->seen[i - 1];
        r->seen[0] = rate;
    }
    return out;
}

int tcp_info_measure(int fd, tcp_rate_t *r, net_measure_t *m)
{
    struct tcp_info ti;
    socklen_t len = sizeof ti;
    memset(&ti, 0, sizeof ti);
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0)
        return -1;
    memset(m, 0, sizeof *m);
    m->rtt = (double)ti.tcpi_rtt * 1e-6; /* smoothed, microseconds */
    /* tcpi_delivery_rate (Linux 4.9+): bytes per second over the latest
     * round trip; a kernel too old to fill it leaves len short of it */
    if (len >= offsetof(struct tcp_info, tcpi_delivery_rate) + sizeof ti.tcpi_delivery_rate) {
        m->rate = (double)ti.tcpi_delivery_rate;
        m->rate_limited = ti.tcpi_delivery_rate_app_limited;
    }
    m->rate = tcp_rate_filter(r, m->rate, m->rate_limited);
    return 0;
}

int tcp_info_acks(int fd, net_acks_t *out)
{
    struct tcp_info ti;
    socklen_t len = sizeof ti;
    memset(&ti, 0, sizeof ti);
    /* tcpi_bytes_acked: Linux 4.1+; counters, so exact where the kernel's
     * times of the last receipt tick in jiffies */
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0 ||
        len < offsetof(struct tcp_info, tcpi_bytes_acked) + sizeof ti.tcpi_bytes_acked)
        return -1;
    out->acked = ti.tcpi_bytes_acked;
    /* timeouts, not retransmissions: a tail-loss probe resends the last
     * segment after two round trips when the peer's acknowledgement is
     * merely delayed (its process stopped), and counts in tcpi_total_retrans */
    out->timeouts = ti.tcpi_retransmits;
    return 0;
}
