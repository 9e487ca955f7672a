/* Path health: heartbeats, silent-failure detection, background recovery
 * of failed paths and partition handling, driven by a periodic tick (the
 * engine runs it from its progress loop or its asynchronous thread).
 *
 * Liveness is judged per (remote host, rail), in a table every rank of this
 * host shares (rail/host.c): a tick first publishes what each path received
 * ("bytes arrived since the last tick", the transport's counter) and sent,
 * then judges every path by when any rank of this host last heard from the
 * peer's host on that rail. So a path busy with data costs nothing extra,
 * and neither does an idle path to a host other ranks talk to; an idle host
 * rail gets one heartbeat (an ack-only frame) per interval from one rank of
 * the host. Silent past that, it is probed; silent for 3/4 of the path
 * timeout its paths are SUSPECT (no new data); for the whole timeout DOWN
 * for every rank of the host: their unacknowledged frames go to the
 * survivors. The higher rank reconnects a failed path with exponential
 * backoff (while the host's rail is down, one attempt per host and step),
 * the lower one accepts; the new connection is ARMED until a probe is
 * answered, then UP again. A connection error fails only its own path. */
#include "rail/health.h"
#include "rail/host.h"
#include "util/clock.h"
#include "util/config.h"
#include "util/log.h"

#include <stdio.h>

_Atomic int rail_health_due;

static rail_lost_fn rail_lost;

void rail_set_lost(rail_lost_fn fn)
{
    rail_lost = fn;
}

static uint32_t rail_tick_no;
static int rail_my_rank = -1;

void rail_health_setup(int my_rank)
{
    rail_my_rank = my_rank;
    rail_host_reset();
}

uint64_t rail_health_interval(void)
{
    uint64_t t = (uint64_t)RM_CFG(path_timeout_ms) * RM_MS / RAIL_TICKS_PER_TIMEOUT;
    return t < 5 * RM_MS ? 5 * RM_MS : t;
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

/* bytes per second: the least rate a measured path is given */
#define RAIL_RATE_MIN 1e4

static void rail_path_rate(rail_path_t *p, double rate, int limited)
{
    if (rate > 0 && (!limited || rate > p->bw))
        p->bw = p->bw > 0 ? 0.7 * p->bw + 0.3 * rate : rate;
    if (rate > 0 && !limited)
        p->proven = 1;
}

/* The path repository's figures, refreshed every tick from the transport.
 * Throughput is smoothed over samples taken while the path had more to send
 * than it could carry; a sample from a path given too little says only that
 * it can carry at least that much, so it counts only when it beats the
 * estimate (a rail the scheduler starved must be able to prove itself). */
void rail_path_measure(rail_path_t *p, uint64_t now)
{
    net_measure_t m = {0};
    int have = p->ops->measure && p->ops->measure(p->np, &m) == 0;
    if (!p->reports) {
        if (!have)
            return;
        if (m.rtt > 0)
            p->rtt = m.rtt;
        rail_path_rate(p, m.rate, m.rate_limited);
        return;
    }
    /* Measured by delivery reports (rail/report.c). Round trip: the least
     * sampled in the last two windows of RAIL_RTT_WINDOW ticks (a queue
     * only adds to a sample; a path that turned slow shows it within two
     * windows). */
    uint64_t lo = p->rtt_win[0];
    if (p->rtt_win[1] && (!lo || p->rtt_win[1] < lo))
        lo = p->rtt_win[1];
    if (lo)
        p->rtt = (double)lo * 1e-9;
    if (++p->rtt_ticks >= RAIL_RTT_WINDOW) {
        p->rtt_win[1] = p->rtt_win[0];
        p->rtt_win[0] = 0;
        p->rtt_ticks = 0;
    }
    /* Rate: the bytes delivered since the last tick, the path's own rate
     * only when it had a backlog at both ends of the tick; until the first
     * delivery, what the transport saw it take. */
    size_t inflight = p->kept - p->kept_dlv;
    uint64_t got = p->dlv_bytes - p->dlv_seen;
    int busy = p->inflight_seen && inflight;
    int heard = p->reports_in != p->reports_seen;
    p->reports_seen = p->reports_in;
    if (p->measured_at && now > p->measured_at && busy && (got || heard)) {
        /* nothing delivered in a busy tick is a sample too (a path slower
         * than a frame per tick), when the peer reported meanwhile (else it
         * says nothing of the path); the figure stays positive */
        double rate = (double)got * 1e9 / (double)(now - p->measured_at);
        p->bw = p->bw > 0 ? 0.7 * p->bw + 0.3 * rate : rate;
        if (p->bw < RAIL_RATE_MIN)
            p->bw = RAIL_RATE_MIN;
        /* a path that has never delivered may still be connecting (rxm
         * sets its connection up with the first send): a figure of nothing
         * delivered proves nothing yet, or the adaptive policy would starve
         * it for good at its floor rate */
        if (p->dlv_bytes)
            p->proven = 1;
    } else if (p->measured_at && now > p->measured_at && got) {
        rail_path_rate(p, (double)got * 1e9 / (double)(now - p->measured_at), 1);
    } else if (!p->bw) {
        rail_path_rate(p, m.rate, 1);
    }
    p->measured_at = now;
    p->dlv_seen = p->dlv_bytes;
    p->inflight_seen = inflight;
}

/* The thresholds, from the path timeout T: an idle host rail gets a
 * heartbeat every RAILMPI_HEALTH_HEARTBEAT_MS (at most T/2); silent for
 * that and two ticks more it is probed (an answer is asked for, which comes
 * back within two ticks); silent for 3T/4 it is SUSPECT (no new data), for
 * T DOWN. An idle rail's silence is at most the heartbeat interval plus a
 * tick on each side. */
uint64_t rail_probe_interval(void)
{
    uint64_t t = (uint64_t)RM_CFG(path_timeout_ms) * RM_MS;
    uint64_t p = (uint64_t)RM_CFG(health_heartbeat_ms) * RM_MS;
    return p && p < t / 2 ? p : t / 2;
}

static uint64_t rail_suspect_after(void)
{
    return (uint64_t)RM_CFG(path_timeout_ms) * RM_MS * 3 / 4;
}

/* One heartbeat per host rail and interval, unless some rank of this host
 * sent there meanwhile: the monitor sends it; another rank only when the
 * monitor has not for two more ticks (it may have no path to that host, or
 * be gone). When this host has heard nothing for the interval and two
 * ticks, whichever rank comes first sends a probe instead, which asks for
 * an answer: the remote host's heartbeats may be reaching a rank of ours
 * that does not run (stopped, or starved of a core), and the answer comes
 * from whoever the probe reached. The claims are CASes on the entry's times. */
static void rail_host_beat(rail_channel_t *ch, rail_path_t *p, rail_host_entry_t *e, uint64_t now,
                           uint64_t silent, int monitor)
{
    uint64_t every = rail_probe_interval(), tick = rail_health_interval();
    int urgent = silent > every + 2 * tick;
    if (!e) { /* no host table: this path on its own */
        if (p->frames != p->frames_seen || now < p->retry_at)
            return;
        p->retry_at = now + every - tick / 2;
        rail_path_emit_ctl(ch, p, urgent ? NET_F_PROBE : 0);
        return;
    }
    if (urgent) {
        uint64_t at = atomic_load(&e->probe_at);
        if (now < at || !atomic_compare_exchange_strong(&e->probe_at, &at, now + every))
            return;
        if (rail_path_emit_ctl(ch, p, NET_F_PROBE) == RM_OK) {
            atomic_fetch_add_explicit(&e->beats, 1, memory_order_relaxed);
            atomic_store(&e->sent, now);
        }
        return;
    }
    /* sent at the tick nearest the interval: ticks are the clock here */
    uint64_t sent = atomic_load(&e->sent), grace = monitor ? 0 : 2 * tick;
    if (now + tick / 2 < sent + every + grace || !atomic_compare_exchange_strong(&e->sent, &sent, now))
        return;
    if (rail_path_emit_ctl(ch, p, 0) == RM_OK)
        atomic_fetch_add_explicit(&e->beats, 1, memory_order_relaxed);
}

static uint64_t (*rail_clock)(void) = rm_now;

void rail_health_clock(uint64_t (*now)(void))
{
    rail_clock = now ? now : rm_now;
}

void rail_health_heard(rail_channel_t *ch, int rail)
{
    rail_host_entry_t *e = rail_host_entry(ch->peer, rail);
    if (e)
        rail_host_heard(e, ch->peer, rail, rail_clock());
}

/* First half of a tick, for every path before any is judged: what it
 * received and sent since the last tick goes into the host's table, so no
 * path is judged silent on news that another path of this rank holds. */
static void rail_path_observe(rail_channel_t *ch, rail_path_t *p, uint64_t now)
{
    if (p->state != RAIL_PATH_UP && p->state != RAIL_PATH_SUSPECT && p->state != RAIL_PATH_ARMED)
        return;
    rail_host_entry_t *e = rail_host_entry(ch->peer, p->rail);
    uint64_t rx = p->ops->rx_bytes ? p->ops->rx_bytes(p->np) : 0;
    if (rx != p->rx_seen) {
        p->rx_seen = rx;
        p->last_rx = now;
        if (e)
            rail_host_heard(e, ch->peer, p->rail, now);
    } else if (!p->last_rx) {
        p->last_rx = now; /* watched from now on: a connection gets a timeout's grace */
    }
    if (!e)
        return;
    if (p->state != RAIL_PATH_ARMED || p->probed)
        rail_host_offer(ch->peer, p->rail, rail_tick_no);
    if (!atomic_load_explicit(&e->used, memory_order_relaxed))
        atomic_store_explicit(&e->used, 1, memory_order_relaxed);
    if (p->frames != p->frames_seen) { /* it sent: a heartbeat's worth for the host */
        uint64_t s = atomic_load_explicit(&e->sent, memory_order_relaxed);
        while (s < now && !atomic_compare_exchange_weak(&e->sent, &s, now))
            ;
    }
}

/* A probe that also asks the peer's network: what its host acknowledged so
 * far is noted with the probe's time. */
static int rail_path_ask_net(rail_channel_t *ch, rail_path_t *p, uint64_t now)
{
    net_acks_t a;
    if (p->ops->net_acks(p->np, &a) < 0 || rail_path_emit_ctl(ch, p, NET_F_PROBE) != RM_OK)
        return 0;
    p->net_probe_at = now;
    p->net_acks = a;
    return 1;
}

/* A path silent past the path timeout whose transport can tell what the
 * peer's host takes in (net_acks: for TCP, the kernel acknowledges data
 * whether its processes run or not). Its silence is judged on a probe of
 * ours sent during it: if the peer's host acknowledged more since, with no
 * retransmission timeout pending, the rail works and the peer's processes
 * stall (stopped, or starved of a core: every rank of a loaded host can be
 * off its core for longer than a timeout), so the path is kept, SUSPECT (no
 * new data), and asked again. A rail that drops packets (flapping, lossy)
 * and so has TCP waiting for a timeout is judged by its silence as before.
 * 1: keep waiting; 0: judge the path by its silence, as a path without
 * such a transport is. A dead rail is judged as early as without the test:
 * the probe went out when the path turned suspect, a quarter timeout
 * before. */
static int rail_path_net_answers(rail_channel_t *ch, rail_path_t *p, uint64_t now, uint64_t heard,
                                 uint64_t silent)
{
    if (!p->ops->net_acks || p->state == RAIL_PATH_ARMED)
        return 0;
    if (!p->net_probe_at || p->net_probe_at <= heard) {
        /* no probe during this silence (this rank's ticks came late): ask now */
        p->net_kept = 0;
        return rail_path_ask_net(ch, p, now);
    }
    /* the answer's time: two ticks; once kept, the peer is asked once per
     * heartbeat interval (every rank's paths there are) */
    uint64_t grace = p->net_kept ? rail_probe_interval() : 2 * rail_health_interval();
    if (now - p->net_probe_at < grace)
        return 1;
    net_acks_t a;
    if (p->ops->net_acks(p->np, &a) < 0 || a.acked <= p->net_acks.acked || a.timeouts) {
        p->net_kept = 0;
        return 0;
    }
    if (!p->net_kept) {
        p->net_kept = 1;
        rail_event(ch, p, "silent for %llu ms, but the peer's host acknowledges what it is sent (its "
                          "processes stall): kept, not failed", (unsigned long long)(silent / RM_MS));
    }
    if (p->state == RAIL_PATH_UP) {
        p->state = RAIL_PATH_SUSPECT;
        p->suspects++;
    }
    rail_path_ask_net(ch, p, now);
    return 1;
}

static void rail_path_tick(rail_channel_t *ch, rail_path_t *p, uint64_t now, int monitor)
{
    uint64_t timeout = (uint64_t)RM_CFG(path_timeout_ms) * RM_MS;
    /* Silence that fails the path. With failover off a failed path fails
     * every operation with the peer; where the transport cannot tell a peer
     * that stalls from one that is gone (no net_acks: ofi), that takes
     * RAIL_FT_OFF_SILENCE timeouts, not one (a rank descheduled for 300 ms
     * on a loaded host ended a job). */
    uint64_t dead_after = !rail_ft && !p->ops->net_acks ? timeout * RAIL_FT_OFF_SILENCE : timeout;
    rail_host_entry_t *e = rail_host_entry(ch->peer, p->rail);
    switch (p->state) {
    case RAIL_PATH_UP:
    case RAIL_PATH_SUSPECT:
    case RAIL_PATH_ARMED: {
        if (p->state != RAIL_PATH_ARMED)
            rail_path_measure(p, now);
        /* measured by reports, with a round trip that no frame renewed for
         * half a window while the channel carries traffic (the policy may
         * avoid the path for its last figure, so no frame would): a
         * probe's answer renews it. Only to a peer heard from lately: a
         * frame to a peer that does not run (stopped, starved) counts as
         * its host's heartbeat here while that host never sees it */
        if (p->reports && p->rtt > 0 && p->state == RAIL_PATH_UP && ch->npaths > 1 && ch->unacked.head &&
            p->last_rx + rail_probe_interval() > now &&
            !p->rtt_win[0] && p->rtt_ticks >= RAIL_RTT_WINDOW / 2 &&
            (!p->rtt_probe_at || now - p->rtt_probe_at > timeout) &&
            rail_path_emit_ctl(ch, p, NET_F_PROBE) == RM_OK)
            p->rtt_probe_at = now;
        /* the host's rail failed, judged by some rank of this host: every
         * path there that has not itself heard from its peer since fails */
        if (e && atomic_load(&e->state) == RAIL_HOST_DOWN && p->last_rx < atomic_load(&e->down_since)) {
            char why[96];
            snprintf(why, sizeof why, "host %d's rail %d judged down for every rank of this host",
                     rail_host_of(ch->peer), p->rail);
            rail_path_down(ch, p, RM_ERR_TIMED_OUT, why);
            return;
        }
        /* any rank's sign of life from the peer's host counts */
        uint64_t heard = p->last_rx, hh = e ? atomic_load(&e->heard) : 0;
        if (hh > heard)
            heard = hh;
        uint64_t silent = now > heard ? now - heard : 0;
        if (silent > timeout && rail_path_net_answers(ch, p, now, heard, silent))
            goto beat;
        if (silent > dead_after) {
            char why[96];
            snprintf(why, sizeof why, "nothing received for %llu ms%s", (unsigned long long)(silent / RM_MS),
                     p->ops->net_acks && p->net_probe_at > heard ? "; its host acknowledged no probe at once" : "");
            if (e)
                rail_host_judge_down(e, ch->peer, p->rail, now, silent);
            rail_path_down(ch, p, RM_ERR_TIMED_OUT, why);
            return;
        }
        if (p->state == RAIL_PATH_SUSPECT && silent <= rail_suspect_after()) {
            p->state = RAIL_PATH_UP;
            p->net_kept = 0;
            rail_event(ch, p, "up (answered while suspect)");
            rail_notify(ch, p, RAIL_EV_UP, RAIL_WHY_ANSWERED);
        } else if (p->state == RAIL_PATH_UP && silent > rail_suspect_after()) {
            p->state = RAIL_PATH_SUSPECT;
            p->suspects++;
            rail_event(ch, p, "suspect (nothing received for %llu ms)",
                       (unsigned long long)(silent / RM_MS));
            rail_notify(ch, p, RAIL_EV_SUSPECT, RAIL_WHY_SILENCE);
            if (e)
                rail_host_suspect(e, ch->peer, p->rail, silent);
            rail_channel_promote(ch);
            /* the network is asked now, so that its answer is in by the timeout */
            if (p->ops->net_acks)
                rail_path_ask_net(ch, p, now);
        }
    beat:
        if (p->state == RAIL_PATH_ARMED && !p->probed)
            rail_path_emit_ctl(ch, p, NET_F_PROBE); /* a new connection proves itself */
        else
            rail_host_beat(ch, p, e, now, silent, monitor && rail_host_chosen(ch->peer, p->rail, rail_tick_no));
        p->frames_seen = p->frames;
        return;
    }
    case RAIL_PATH_DOWN:
    case RAIL_PATH_RECOVERING: {
        if (!rail_ft || !p->ops->reconnect)
            return;
        /* the lower rank waits for the higher one to reconnect, unless there
         * is no connection: a path the lower rank alone judged dead (a send
         * error) would otherwise stay down while the peer, still hearing
         * from this host, never resets it */
        if (!(p->caps & NET_CAP_CONNLESS) && (ch->order ? ch->order < 0 : rail_my_rank < ch->peer))
            return;
        int host_down = e && atomic_load(&e->state) == RAIL_HOST_DOWN;
        if (p->gated && !host_down) {
            /* the host's rail is back: every path there reconnects at once */
            p->gated = 0;
            p->retry_at = 0;
            p->backoff = 0;
        }
        if (now < p->retry_at)
            return;
        uint64_t max = (uint64_t)RM_CFG(recovery_max_ms) * RM_MS;
        if (host_down) {
            /* one reconnection attempt per host pair and rail at a time,
             * whichever rank claims it, with the host's backoff: while the
             * rail is down the other ranks' attempts would only add SYNs */
            uint64_t at = atomic_load(&e->retry_at);
            uint64_t b = (uint64_t)atomic_load(&e->backoff_ms) * RM_MS;
            b = !b ? 50 * RM_MS : b * 2;
            if (b > max)
                b = max;
            p->gated = 1;
            if (now < at) {
                p->retry_at = at;
                return;
            }
            if (!atomic_compare_exchange_strong(&e->retry_at, &at, now + b))
                return;
            atomic_store(&e->backoff_ms, (uint32_t)(b / RM_MS));
            p->backoff = b;
        } else {
            p->backoff = !p->backoff ? 50 * RM_MS : p->backoff * 2;
            if (p->backoff > max)
                p->backoff = max;
        }
        if (p->state == RAIL_PATH_DOWN) {
            p->state = RAIL_PATH_RECOVERING;
            rail_event(ch, p, "recovering (reconnecting in the background)");
        }
        p->retry_at = now + p->backoff;
        /* an attempt that fails at once reports through the error upcall,
         * which leaves a recovering path as it is */
        p->ops->reconnect(p->np);
        return;
    }
    default:
        return;
    }
}

/* A path that may be failing: suspect, or silent (its host's rail, any
 * local rank) past a heartbeat interval and a tick. */
static int rail_path_quiet(rail_channel_t *ch, rail_path_t *p, uint64_t now)
{
    if (p->net_kept)
        return 0; /* kept while the peer's processes stall: no failure of it will resend what it took */
    if (p->state == RAIL_PATH_SUSPECT)
        return 1;
    rail_host_entry_t *e = rail_host_entry(ch->peer, p->rail);
    uint64_t heard = p->last_rx, hh = e ? atomic_load(&e->heard) : 0;
    if (hh > heard)
        heard = hh;
    return heard && now > heard + rail_probe_interval() + rail_health_interval();
}

/* A path measured by reports whose backlog would take more than half a
 * path timeout to deliver at its rate, where another path would deliver it
 * in less than half that time: slow, not dead (a long delay, a rail
 * throttled to a trickle). Its undelivered frames are sent again on the
 * others (the peer drops whichever copy comes second), so the job waits
 * neither for the slow rail nor for its failure. The oldest frame a path
 * took that the peer has not reported bounds its delay from below whatever
 * its figures say: a path that delivers nothing renews neither its rate
 * nor its round trip (only a report renews them), and a backlog queued
 * behind a slow connection's window would otherwise look like a few
 * milliseconds of work for seconds. */
static void rail_channel_slow_paths(rail_channel_t *ch)
{
    double half = (double)RM_CFG(path_timeout_ms) * 1e-3 / 2;
    double age[RAIL_MAX_PATHS] = {0};
    int todo = 0;
    for (int i = 0; i < ch->npaths; i++)
        todo += ch->paths[i].reports && ch->paths[i].kept > ch->paths[i].kept_dlv;
    if (!todo)
        return;
    uint64_t now = rm_now();
    for (const rail_frame_t *f = ch->unacked.head; f && todo; f = f->next) {
        if (f->path < 0 || f->reported || age[f->path] > 0 || !ch->paths[f->path].reports)
            continue;
        age[f->path] = now > f->sent_at ? (double)(now - f->sent_at) * 1e-9 : 1e-9;
        todo--;
    }
    for (int i = 0; i < ch->npaths; i++) {
        rail_path_t *p = &ch->paths[i];
        size_t backlog = p->kept - p->kept_dlv;
        if (!p->reports || p->state != RAIL_PATH_UP || p->bw <= 0 || !backlog)
            continue;
        double drain = p->rtt / 2 + (double)backlog / p->bw, best = 0;
        if (drain < age[i])
            drain = age[i];
        if (drain <= half)
            continue;
        for (int j = 0; j < ch->npaths; j++) {
            rail_path_t *q = &ch->paths[j];
            if (j == i || q->state != RAIL_PATH_UP || q->bw <= 0)
                continue;
            double t = q->rtt / 2 + (double)(q->kept - q->kept_dlv + backlog) / q->bw;
            if (t < age[j])
                t = age[j];
            if (best <= 0 || t < best)
                best = t;
        }
        if (best <= 0 || best > drain / 2)
            continue;
        int n = rail_channel_reroute(ch, p);
        if (n)
            rail_event(ch, p, "slow (%.1f MB undelivered, %.2f s at %.2f MB/s); %d frames sent again "
                              "on the other rails", (double)backlog / 1e6, drain, p->bw / 1e6, n);
    }
}

static void rail_channel_tick(rail_channel_t *ch, uint64_t now, int monitor)
{
    if (ch->failed || ch->closing || !rail_channel_active(ch))
        return;
    for (int i = 0; i < ch->npaths && !ch->failed; i++)
        if (!(ch->paths[i].caps & NET_CAP_RELIABLE))
            rail_path_tick(ch, &ch->paths[i], now, monitor);
    if (ch->failed)
        return;
    /* An ack owed since the last tick with nothing arrived since goes
     * alone: a rank that sleeps outside MPI never has the idle progress
     * passes that would send it, and without it the peer would send its
     * frames again once acks stall. */
    if (ch->ack_owed && ch->recv_next == ch->recv_seen)
        rail_channel_flush(ch, 1);
    ch->recv_seen = ch->recv_next;
    rail_channel_report_out(ch);
    rail_channel_addr_out(ch);
    if (!rail_ft)
        return;
    rail_channel_slow_paths(ch);
    /* End to end: frames a path took but that never got acknowledged,
     * although the peer is alive (a connection replaced with data queued on
     * it, say), are sent again once acks stall for RAIL_ACK_STALL_TICKS; the
     * receiver drops what it already has. The oldest kept frame is what
     * holds the cumulative ack back: if the path it went out on may be
     * failing (suspect, or silent past a heartbeat interval),
     * that path's own failure handling will resend it, so the count pauses
     * (else a failover would send everything kept twice); it pauses too
     * while no path is up to resend on. */
    int up = 0;
    for (int i = 0; i < ch->npaths; i++)
        up |= ch->paths[i].state == RAIL_PATH_UP;
    const rail_frame_t *oldest = ch->unacked.head;
    int settling = !up || (oldest && oldest->path >= 0 && rail_path_quiet(ch, &ch->paths[oldest->path], now));
    if (!ch->unacked.head || ch->acked != ch->acked_seen) {
        ch->ack_stall = 0; /* acks moved (or nothing waits for one) */
    } else if (!settling && ++ch->ack_stall >= RAIL_ACK_STALL_TICKS) {
        int n = rail_channel_resend_all(ch);
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
            rail_notify(ch, NULL, RAIL_EV_RESUMED, RAIL_WHY_RAIL_BACK);
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
        rail_notify(ch, NULL, RAIL_EV_PARTITIONED, RAIL_WHY_NO_RAIL);
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
    if (ch->lost_reported)
        return; /* the launcher decides; its word fails the channel */
    if (rail_lost && rail_lost(ch)) {
        ch->lost_reported = 1;
        rail_event(ch, NULL, "partition-timeout (handed to the launcher: process fault tolerance)");
        return;
    }
    rm_log_error("rank %d unreachable: every rail to it (rails %s) has been down for %.0f s "
                 "(RAILMPI_PARTITION_TIMEOUT_S=%lld); its pending operations fail with MPI_ERR_OTHER",
                 ch->peer, rails, (double)(now - ch->partitioned_since) / 1e9,
                 (long long)RM_CFG(partition_timeout_s));
    rail_event(ch, NULL, "partition-timeout");
    rail_channel_fail(ch, RM_ERR_UNREACHABLE);
}

static void (*rail_tick_hook)(void);

void rail_set_tick_hook(void (*fn)(void))
{
    rail_tick_hook = fn;
}

void rail_health_tick(uint64_t now)
{
    atomic_store_explicit(&rail_health_due, 0, memory_order_relaxed);
    int monitor = rail_net_list ? rail_host_monitor(now) : 0;
    rail_tick_no++;
    for (rail_channel_t *ch = rail_net_list; ch; ch = ch->net_next)
        if (!ch->failed && !ch->closing && rail_channel_active(ch))
            for (int i = 0; i < ch->npaths; i++)
                if (!(ch->paths[i].caps & NET_CAP_RELIABLE))
                    rail_path_observe(ch, &ch->paths[i], now);
    for (rail_channel_t *ch = rail_net_list; ch; ch = ch->net_next)
        rail_channel_tick(ch, now, monitor);
    if (rail_tick_hook)
        rail_tick_hook();
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
                rail_notify(ch, p, RAIL_EV_MIGRATED, RAIL_WHY_REQUEST);
            } else if (!off && p->state == RAIL_PATH_ARMED && p->probed && !p->standby) {
                p->state = RAIL_PATH_UP;
                rail_event(ch, p, "up (traffic back on this rail by request)");
                rail_notify(ch, p, RAIL_EV_UP, RAIL_WHY_REQUEST);
            }
        }
    }
    return n;
}

int rail_channel_peer_gone(rail_channel_t *ch, int waited)
{
    if (ch->failed || ch->bye || !ch->npaths)
        return 0;
    int closed = 0, heard = 0;
    for (int i = 0; i < ch->npaths; i++) {
        rail_path_t *p = &ch->paths[i];
        if (p->caps & NET_CAP_LOCAL)
            return p->ops->peer_gone && p->ops->peer_gone(p->np);
        heard |= p->rx_frames > 0 || p->peer_closed;
        if (p->state == RAIL_PATH_UP || p->state == RAIL_PATH_SUSPECT || p->state == RAIL_PATH_ARMED ||
            p->state == RAIL_PATH_CONNECTING)
            closed = -1; /* something may still connect us */
        else if (closed >= 0)
            closed += p->peer_closed;
    }
    /* a peer never heard from that we wait on: its listener alone can tell */
    int unheard = waited && !heard;
    if (closed <= 0 && !unheard)
        return 0; /* a path works, or only silence: a network fault until the partition timeout says more */
    for (int i = 0; i < ch->npaths; i++) {
        rail_path_t *p = &ch->paths[i];
        if ((unheard || p->peer_closed) && p->ops->peer_gone && p->ops->peer_gone(p->np)) {
            rail_event(ch, p, "peer process gone (%s, its listener refuses)",
                       unheard ? "never heard from" : "its connections ended from its side");
            return 1;
        }
    }
    return 0;
}
