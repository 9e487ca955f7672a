/* TCP_INFO readings for the path repository (see tcp_info.h). */
#include "net/tcp_info.h"

#include <linux/tcp.h>
#include <stddef.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>

int tcp_info_measure(int fd, net_measure_t *m)
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
    return 0;
}
