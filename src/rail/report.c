/* The rail layer's messages about its paths, beside the traffic: delivery
 * reports (NET_F_REPORT, for paths whose transport measures nothing) and
 * renewed endpoints' addresses (NET_F_ADDR), each sent by the health tick
 * on a path other than the one it is about and taken in by
 * rail_channel_recv (channel.c). docs/architecture.md, "Path repository". */
#include "rail/channel.h"
#include "util/clock.h"

#include <stdint.h>
#include <string.h>

/* Delivery reports. A transport without NET_CAP_MEASURED cannot tell how
 * fast a path delivers or how long it takes (ofi hands a send back once its
 * provider took it, into queues that may hold seconds of a slow rail's
 * traffic), so the rail layer measures such a path itself. Once per health
 * tick, the receiver tells for each such path that brought frames since
 * the highest sequence number it brought and how long ago; the sender marks
 * its kept frames up to that number on that path delivered: they leave the
 * path's backlog (the adaptive policy's queue figure), their bytes count
 * in its rate, and the frame's send time gives a round trip
 * (rail_path_measure). A path carries its frames in order, so its highest
 * number stands for those before it; frames sent again only blur the
 * estimate. Cumulative acks cannot serve: one slow path holds them back for
 * every path. */
void rail_channel_report_out(rail_channel_t *ch)
{
    uint64_t now = rm_now();
    rail_report_t r[RAIL_MAX_PATHS];
    int n = 0;
    for (int i = 0; i < ch->npaths; i++) {
        rail_path_t *p = &ch->paths[i];
        if (!p->reports || p->rx_hi == p->rx_hi_told)
            continue;
        uint64_t age = now > p->rx_hi_at ? (now - p->rx_hi_at) / 1000 : 0;
        r[n].rail = (uint32_t)p->rail;
        r[n].age_us = age > UINT32_MAX ? UINT32_MAX : (uint32_t)age;
        r[n].hi = p->rx_hi;
        n++;
    }
    int k = n ? rail_channel_pick_for(ch, 0, 0) : -1;
    if (k < 0)
        return;
    static const unsigned char none[1];
    net_frame_hdr_t hdr = {.seq = 0, .len = (uint32_t)(n * sizeof r[0]), .hlen = 0, .flags = NET_F_REPORT};
    if (rail_path_emit(ch, &ch->paths[k], &hdr, none, r) != RM_OK)
        return;
    for (int i = 0; i < ch->npaths; i++)
        ch->paths[i].rx_hi_told = ch->paths[i].rx_hi;
}

/* A path whose transport renewed its endpoint (the ofi transport, after
 * writes it could not stop) is reached at a new address, which the path
 * itself tells the peer once it connects; if the peer's own endpoint
 * changed too, neither reaches the other that way. So while such a path is
 * not up its new address goes over another path too, every 100 ms. */
#define RAIL_ADDR_EVERY_NS 100000000ull
void rail_channel_addr_out(rail_channel_t *ch)
{
    uint64_t now = 0;
    for (int i = 0; i < ch->npaths; i++) {
        rail_path_t *p = &ch->paths[i];
        if (!p->ops->addr_renewed || !p->np || p->state == RAIL_PATH_UP)
            continue;
        if (!now)
            now = rm_now();
        if (now - p->addr_sent_at < RAIL_ADDR_EVERY_NS)
            continue;
        unsigned char buf[320];
        uint32_t rail = (uint32_t)p->rail;
        size_t n = p->ops->addr_renewed(p->np, buf + sizeof rail, sizeof buf - sizeof rail);
        int k = n ? rail_channel_pick_for(ch, 0, 0) : -1;
        if (k < 0 || k == i)
            continue;
        memcpy(buf, &rail, sizeof rail);
        static const unsigned char none[1];
        net_frame_hdr_t hdr = {.seq = 0, .len = (uint32_t)(sizeof rail + n), .hlen = 0, .flags = NET_F_ADDR};
        if (rail_path_emit(ch, &ch->paths[k], &hdr, none, buf) == RM_OK)
            p->addr_sent_at = now;
    }
}

void rail_channel_addr_in(rail_channel_t *ch, const void *payload, size_t len)
{
    uint32_t rail;
    if (!payload || len < sizeof rail)
        return;
    memcpy(&rail, payload, sizeof rail);
    rail_path_t *p = rail_path_of(ch, (int)rail);
    if (p && p->np && p->ops->addr_learn)
        p->ops->addr_learn(p->np, (const unsigned char *)payload + sizeof rail, len - sizeof rail);
}

void rail_channel_report_in(rail_channel_t *ch, const void *payload, size_t len)
{
    uint64_t now = rm_now();
    for (int i = 0; i < ch->npaths; i++)
        ch->paths[i].reports_in++; /* the peer reports: a path it does not name brought nothing */
    for (size_t off = 0; payload && off + sizeof(rail_report_t) <= len; off += sizeof(rail_report_t)) {
        rail_report_t r;
        memcpy(&r, (const unsigned char *)payload + off, sizeof r);
        rail_path_t *p = rail_path_of(ch, (int)r.rail);
        if (!p || !p->reports)
            continue;
        int idx = (int)(p - ch->paths);
        if (r.hi > p->dlv_hi)
            p->dlv_hi = r.hi;
        for (rail_frame_t *f = ch->unacked.head; f && f->hdr.seq <= r.hi; f = f->next) {
            if (f->path == idx && !f->reported) {
                f->reported = 1;
                p->kept_dlv += f->hdr.len;
                p->dlv_bytes += f->hdr.len;
            }
        }
        for (int i = 0; i < RAIL_SENT_RING; i++) {
            if (p->sent_ring[i].seq != r.hi || !p->sent_ring[i].at)
                continue;
            uint64_t t = now - p->sent_ring[i].at, held = (uint64_t)r.age_us * 1000;
            if (t > held && (!p->rtt_win[0] || t - held < p->rtt_win[0]))
                p->rtt_win[0] = t - held;
            break;
        }
    }
}
