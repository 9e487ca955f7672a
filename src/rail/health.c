/* Path health: heartbeats, silent-failure detection, background recovery
 * of failed paths and partition handling, driven by a periodic tick (the
 * engine runs it from its progress loop or its asynchronous thread).
 *
 * Liveness is "bytes arrived on the path since the last tick", read from
 * the transport's counter, so a path busy with data costs nothing extra; a
 * path that carried nothing during a tick gets a heartbeat (an ack-only
 * frame). Nothing received for half the path timeout makes a path SUSPECT
 * (no new data, a probe goes out); for the whole timeout, DOWN: its
 * unacknowledged frames go to the survivors. The higher rank reconnects a
 * failed path with exponential backoff, the lower one accepts; the new
 * connection is ARMED until a probe is answered, then UP again. */
#include "rail/health.h"
#include "util/clock.h"
#include "util/config.h"
#include "util/log.h"

#include <stdio.h>

_Atomic int rail_health_due;
static int rail_my_rank = -1;

void rail_health_setup(int my_rank)
{
    rail_my_rank = my_rank;
}

uint64_t rail_health_interval(void)
{
    uint64_t t = (uint64_t)RM_CFG(path_timeout_ms) * RM_MS / 6;
    return t < 10 * RM_MS ? 10 * RM_MS : t;
}

/* A channel the application has used: its paths are watched. */
static int rail_channel_active(const rail_channel_t *ch)
{
    for (int i = 0; i < ch->npaths; i++)
        if (ch->paths[i].frames || ch->paths[i].rx_seen ||
            (ch->paths[i].ops->rx_bytes && ch->paths[i].ops->rx_bytes(ch->paths[i].np)))
            return 1;
    return 0;
}

/* The path repository's figures, refreshed every tick from the transport.
 * Throughput is smoothed over samples taken while the path had more to send
 * than it could carry; a sample from a path given too little says only that
 * it can carry at least that much, so it counts only when it beats the
 * estimate (a rail the scheduler starved must be able to prove itself). */
void rail_path_measure(rail_path_t *p)
{
    net_measure_t m;
    if (!p->ops->measure || p->ops->measure(p->np, &m) != 0)
        return;
    if (m.rtt > 0)
        p->rtt = m.rtt;
    if (m.rate > 0 && (!m.rate_limited || m.rate > p->bw))
        p->bw = p->bw > 0 ? 0.7 * p->bw + 0.3 * m.rate : m.rate;
}

static void rail_path_tick(rail_channel_t *ch, rail_path_t *p, uint64_t now)
{
    uint64_t timeout = (uint64_t)RM_CFG(path_timeout_ms) * RM_MS;
    switch (p->state) {
    case RAIL_PATH_UP:
    case RAIL_PATH_SUSPECT:
    case RAIL_PATH_ARMED: {
        uint64_t rx = p->ops->rx_bytes ? p->ops->rx_bytes(p->np) : 0;
        if (rx != p->rx_seen || !p->last_rx) {
            p->rx_seen = rx;
            p->last_rx = now;
            if (p->state == RAIL_PATH_SUSPECT) {
                p->state = RAIL_PATH_UP;
                rail_event(ch, p, "up (answered while suspect)");
            }
        }
        if (p->state != RAIL_PATH_ARMED)
            rail_path_measure(p);
        uint64_t silent = now - p->last_rx;
        if (silent > timeout) {
            char why[64];
            snprintf(why, sizeof why, "nothing received for %llu ms",
                     (unsigned long long)(silent / RM_MS));
            rail_path_down(ch, p, RM_ERR_TIMED_OUT, why);
            return;
        }
        if (p->state == RAIL_PATH_UP && silent > timeout / 2) {
            p->state = RAIL_PATH_SUSPECT;
            p->suspects++;
            rail_event(ch, p, "suspect (nothing received for %llu ms)",
                       (unsigned long long)(silent / RM_MS));
            rail_path_emit_ctl(ch, p, NET_F_PROBE);
            rail_channel_promote(ch);
        } else if (p->state == RAIL_PATH_ARMED && !p->probed) {
            rail_path_emit_ctl(ch, p, NET_F_PROBE);
        } else if (p->frames == p->frames_seen) {
            rail_path_emit_ctl(ch, p, 0); /* heartbeat: carried nothing this tick */
        }
        p->frames_seen = p->frames;
        return;
    }
    case RAIL_PATH_DOWN:
    case RAIL_PATH_RECOVERING:
        if (!rail_ft || (ch->order ? ch->order < 0 : rail_my_rank < ch->peer) || !p->ops->reconnect)
            return; /* the lower rank waits for the higher one to reconnect */
        if (now < p->retry_at)
            return;
        if (p->state == RAIL_PATH_DOWN) {
            p->state = RAIL_PATH_RECOVERING;
            rail_event(ch, p, "recovering (reconnecting in the background)");
        }
        uint64_t max = (uint64_t)RM_CFG(recovery_max_ms) * RM_MS;
        p->backoff = !p->backoff ? 50 * RM_MS : p->backoff * 2;
        if (p->backoff > max)
            p->backoff = max;
        p->retry_at = now + p->backoff;
        /* an attempt that fails at once reports through the error upcall,
         * which leaves a recovering path as it is */
        p->ops->reconnect(p->np);
        return;
    default:
        return;
    }
}

static void rail_channel_tick(rail_channel_t *ch, uint64_t now)
{
    if (ch->failed || ch->closing || !rail_channel_active(ch))
        return;
    for (int i = 0; i < ch->npaths && !ch->failed; i++)
        if (!(ch->paths[i].caps & NET_CAP_RELIABLE))
            rail_path_tick(ch, &ch->paths[i], now);
    if (ch->failed || !rail_ft)
        return;
    /* End to end: frames a path took but that never got acknowledged,
     * although the peer is alive (a connection replaced with data queued on
     * it, say), are sent again once acks stall for RAIL_ACK_STALL_TICKS; the
     * receiver drops what it already has. The oldest kept frame is what
     * holds the cumulative ack back: if the path it went out on is suspect,
     * that path's own failure handling will resend it, so the count pauses
     * (else a failover would send everything kept twice); it pauses too
     * while no path is up to resend on. */
    int up = 0;
    for (int i = 0; i < ch->npaths; i++)
        up |= ch->paths[i].state == RAIL_PATH_UP;
    const rail_frame_t *oldest = ch->unacked.head;
    int settling = !up || (oldest && oldest->path >= 0 && ch->paths[oldest->path].state == RAIL_PATH_SUSPECT);
    if (!ch->unacked.head || ch->acked != ch->acked_seen) {
        ch->ack_stall = 0; /* acks moved (or nothing waits for one) */
    } else if (!settling && ++ch->ack_stall >= RAIL_ACK_STALL_TICKS) {
        int n = 0;
        for (rail_frame_t *f = ch->unacked.head; f; f = f->next, n++)
            f->path = -1;
        ch->resend = 1;
        ch->ack_stall = 0;
        rail_event(ch, NULL, "acks stalled; %d frames resent", n);
        rail_channel_flush(ch, 0);
    }
    ch->acked_seen = ch->acked;
    rail_channel_promote(ch);
    int reachable = 0;
    for (int i = 0; i < ch->npaths; i++)
        reachable |= ch->paths[i].state == RAIL_PATH_UP || ch->paths[i].state == RAIL_PATH_SUSPECT;
    if (reachable) {
        if (ch->partitioned_since) {
            rail_event(ch, NULL, "resumed (partition over after %.2f s)",
                       (double)(now - ch->partitioned_since) / 1e9);
            ch->partitioned_ns += now - ch->partitioned_since;
            ch->partitioned_since = 0;
        }
        return;
    }
    if (!ch->partitioned_since) {
        ch->partitioned_since = now;
        rail_event(ch, NULL, "partitioned (no rail reaches the peer; traffic waits, recovery "
                             "continues for up to %lld s)",
                   (long long)RM_CFG(partition_timeout_s));
        return;
    }
    uint64_t limit = (uint64_t)RM_CFG(partition_timeout_s) * RM_SEC;
    if (now - ch->partitioned_since < limit)
        return;
    char rails[256] = "";
    size_t l = 0;
    for (int i = 0; i < ch->npaths && l < sizeof rails; i++) {
        rail_path_t *p = &ch->paths[i];
        int n = snprintf(rails + l, sizeof rails - l, "%s%d (%s)", l ? ", " : "", p->rail,
                         p->ops->rail_name ? p->ops->rail_name(p->ifc) : p->ops->name);
        if (n > 0)
            l += (size_t)n;
    }
    rm_log_error("rank %d unreachable: every rail to it (rails %s) has been down for %.0f s "
                 "(RAILMPI_PARTITION_TIMEOUT_S=%lld); its pending operations fail with MPI_ERR_OTHER",
                 ch->peer, rails, (double)(now - ch->partitioned_since) / 1e9,
                 (long long)RM_CFG(partition_timeout_s));
    rail_event(ch, NULL, "partition-timeout");
    rail_channel_fail(ch, RM_ERR_UNREACHABLE);
}

void rail_health_tick(uint64_t now)
{
    atomic_store_explicit(&rail_health_due, 0, memory_order_relaxed);
    for (rail_channel_t *ch = rail_net_list; ch; ch = ch->net_next)
        rail_channel_tick(ch, now);
}

int rail_migrate(int rail, int off)
{
    int n = 0;
    for (rail_channel_t *ch = rail_net_list; ch; ch = ch->net_next) {
        for (int i = 0; i < ch->npaths; i++) {
            rail_path_t *p = &ch->paths[i];
            if (p->rail != rail || p->migrated == off)
                continue;
            p->migrated = off;
            n++;
            if (off && p->state == RAIL_PATH_UP) {
                /* stays connected and probed: it can come back at once */
                p->state = RAIL_PATH_ARMED;
                p->probed = 1;
                rail_channel_promote(ch);
                rail_event(ch, p, "migrated (traffic moved off this rail by request)");
            } else if (!off && p->state == RAIL_PATH_ARMED && p->probed && !p->standby) {
                p->state = RAIL_PATH_UP;
                rail_event(ch, p, "up (traffic back on this rail by request)");
            }
        }
    }
    return n;
}
