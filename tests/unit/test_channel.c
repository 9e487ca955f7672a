/* The channel's sequence/ack machinery and path health over a fake lossy
 * transport that can reorder, duplicate and drop frames, fail a path, and
 * reconnect (fake_rail.h); the health tick runs on a fake clock. What the
 * paths measure is test_rail_measure.c's. */
#include "rail/channel.h"
#include "rail/health.h"
#include "rail/host.h"
#include "util/clock.h"
#include "util/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake_rail.h"

/* Sequencing, acks, retention and resending on path failure. */
static void test_sequencing(void)
{
    rail_configure(RAIL_POLICY_EVEN, 0, NULL, 0, 1); /* chunks alternate over the paths */
    rail_channel_t tx, rx;
    rail_channel_init(&tx, 1);
    rail_channel_init(&rx, 0);
    rail_channel_add_path(&tx, &fake_ops, NULL, &fake_paths[0], 0);

    /* 1. reordered and duplicated frames are delivered once, in order */
    sent_calls = 0;
    send_ints(&tx, 0, 100);
    if (nwire[0] != 100)
        FAIL("expected 100 frames on the wire, got %d", nwire[0]);
    if (sent_calls != 0)
        FAIL("a kept frame was released before its ack (%d callbacks)", sent_calls);
    for (int i = 99; i >= 0; i -= 2)
        deliver(&rx, &wire[0][i]);
    for (int i = 0; i < 100; i++)
        deliver(&rx, &wire[0][i]);
    deliver(&rx, &wire[0][5]);
    expect_in_order(100);
    if (rx.dups_dropped < 51)
        FAIL("only %llu duplicates counted", (unsigned long long)rx.dups_dropped);

    /* 2. the sender keeps frames until a cumulative ack covers them */
    if (tx.unacked.n != 100)
        FAIL("sender keeps %zu frames, expected 100", tx.unacked.n);
    ack_to(&tx, 60);
    if (sent_calls != 60)
        FAIL("ack 60 released %d senders", sent_calls);
    if (tx.unacked.n != 40 || tx.unacked.head->hdr.seq != 61)
        FAIL("after ack 60 the sender keeps %zu frames from %llu", tx.unacked.n,
             (unsigned long long)(tx.unacked.head ? tx.unacked.head->hdr.seq : 0));
    ack_to(&tx, 10); /* a stale ack changes nothing */
    if (tx.unacked.n != 40)
        FAIL("stale ack dropped frames");

    /* 3. a full transport queues frames in order and sends them later */
    nwire[0] = 0;
    room = 3;
    send_ints(&tx, 100, 110);
    if (nwire[0] != 3 || tx.pending.n != 7)
        FAIL("with room for 3: %d on wire, %zu pending", nwire[0], tx.pending.n);
    room = 1 << 30;
    rail_flush_all(1);
    if (nwire[0] != 10 || tx.pending.n != 0 || tx.unacked.n != 50)
        FAIL("after flush: %d on wire, %zu pending, %zu kept", nwire[0], tx.pending.n, tx.unacked.n);
    for (int i = 0; i < 10; i++)
        deliver(&rx, &wire[0][i]);
    expect_in_order(110);

    /* 4. a large frame is referenced, not copied: its sender hears of it
     *    only when the peer acknowledged it */
    static unsigned char big[(64 << 10) + 1];
    memcpy(big, &(int){110}, sizeof(int));
    unsigned char hdr[8] = {1};
    ack_to(&tx, tx.send_seq);
    sent_calls = 0;
    if (rail_channel_send(&tx, hdr, sizeof hdr, big, sizeof big, 0, on_sent, NULL) != RM_INPROGRESS)
        FAIL("a large frame must stay referenced until acked");
    if (tx.unacked.tail->copied || tx.unacked.tail->payload != big)
        FAIL("a large frame was copied");
    ack_to(&tx, tx.send_seq - 1);
    if (sent_calls != 0)
        FAIL("the large frame was released before its ack");
    ack_to(&tx, tx.send_seq);
    if (sent_calls != 1 || tx.unacked.n != 0)
        FAIL("the ack did not release the large frame (%d callbacks, %zu kept)", sent_calls,
             tx.unacked.n);
    rx.recv_next++; /* the receiver took it (its payload does not fit the fake wire) */

    /* 5. a failed path sends again only what it carried, on the survivor */
    rail_channel_add_path(&tx, &fake_ops, NULL, &fake_paths[1], 1);
    nwire[0] = nwire[1] = 0;
    send_ints(&tx, 111, 121); /* ordered frames: all on the first path */
    for (int i = 121; i < 125; i++) { /* striped chunks: over both paths */
        values[i] = i;
        if (rail_channel_send(&tx, hdr, sizeof hdr, &values[i], sizeof values[i], NET_F_UNORDERED,
                              on_sent, NULL) < 0)
            FAIL("chunk %d", i);
    }
    int on1 = nwire[1];
    if (nwire[0] + on1 != 14 || on1 == 0)
        FAIL("expected chunks on both paths, got %d/%d", nwire[0], on1);
    uint64_t resets = fake_paths[0].resets;
    rail_channel_error(&tx, 0, RM_ERR_CONN_RESET);
    if (tx.paths[0].state != RAIL_PATH_DOWN || fake_paths[0].resets != (int)resets + 1)
        FAIL("rail 0 not marked down and reset");
    rail_flush_all(1);
    /* what rail 0 carried, not what rail 1 already has */
    if (nwire[1] != on1 + (14 - on1) || tx.paths[1].resent != (uint64_t)(14 - on1))
        FAIL("expected %d frames resent on rail 1, got %d (counted %llu)", 14 - on1,
             nwire[1] - on1, (unsigned long long)tx.paths[1].resent);
    for (int i = 0; i < nwire[1]; i++)
        deliver_on(&rx, 1, &wire[1][i]);
    /* each of 111..124 exactly once, the ordered ones in order */
    if (ndelivered != 124)
        FAIL("after failover %d delivered", ndelivered);
    int seen[125] = {0}, last_ordered = 110;
    for (int i = 110; i < 124; i++) {
        int d = delivered[i];
        if (d < 111 || d > 124 || seen[d]++)
            FAIL("value %d delivered twice or out of range after failover", d);
        if (d <= 120) {
            if (d < last_ordered)
                FAIL("ordered frame %d delivered after %d", d, last_ordered);
            last_ordered = d;
        }
    }
    if (rx.recv_next != tx.send_seq + 1 || rx.ooo.n)
        FAIL("receiver at %llu, sender at %llu", (unsigned long long)rx.recv_next,
             (unsigned long long)tx.send_seq);

    /* 6. unordered data chunks are handed up on arrival, once, and still
     *    advance the sequence so later ordered frames flow */
    nwire[1] = 0;
    ndelivered = 0;
    for (int i = 0; i < 10; i++) {
        values[i] = i;
        if (rail_channel_send(&tx, hdr, sizeof hdr, &values[i], sizeof values[i], NET_F_UNORDERED,
                              on_sent, NULL) < 0)
            FAIL("unordered send %d", i);
    }
    send_ints(&tx, 10, 11);
    deliver(&rx, &wire[1][10]); /* the ordered frame first: must wait */
    if (ndelivered != 0)
        FAIL("ordered frame delivered ahead of sequence");
    for (int i = 9; i >= 0; i--) {
        deliver(&rx, &wire[1][i]);
        if (i > 0 && (ndelivered != 10 - i || delivered[ndelivered - 1] != i))
            FAIL("unordered frame %d not handed up on arrival", i);
    }
    deliver(&rx, &wire[1][3]); /* duplicate */
    if (ndelivered != 11 || delivered[10] != 10)
        FAIL("after unordered chunks: %d delivered, last %d", ndelivered, delivered[ndelivered - 1]);
    if (rx.ooo.n != 0)
        FAIL("sequence not advanced past unordered frames (%zu queued)", rx.ooo.n);

    /* 7. no path at all: frames wait (a partition), nothing is refused */
    rail_channel_error(&tx, 1, RM_ERR_CONN_RESET);
    int v = 0;
    rm_status_t st = rail_channel_send(&tx, hdr, sizeof hdr, &v, sizeof v, 0, NULL, NULL);
    if (st != RM_OK || tx.pending.n != 1)
        FAIL("a send with every path down must wait (status %d, %zu pending)", st, tx.pending.n);
    /* rail 1 comes back: ARMED and probing, UP once the probe is answered */
    nwire[1] = 0;
    rail_channel_up(&tx, 1);
    if (tx.paths[1].state != RAIL_PATH_ARMED || count_flag(1, NET_F_PROBE) != 1)
        FAIL("a reconnected path must be ARMED and probed");
    rail_flush_all(1);
    if (tx.pending.n != 1)
        FAIL("an ARMED path carried data before its probe was answered");
    net_frame_hdr_t pa = {.flags = NET_F_PROBE_ACK, .ack = 0};
    rail_channel_recv(&tx, 1, &pa, NULL, NULL);
    rail_flush_all(1);
    if (tx.paths[1].state != RAIL_PATH_UP || tx.pending.n != 0)
        FAIL("the answered probe did not bring rail 1 back (state %d, %zu pending)",
             tx.paths[1].state, tx.pending.n);
    /* a probe is answered on the path it came on */
    net_frame_hdr_t pr = {.flags = NET_F_PROBE};
    nwire[1] = 0;
    rail_channel_recv(&tx, 1, &pr, NULL, NULL);
    if (count_flag(1, NET_F_PROBE_ACK) != 1)
        FAIL("a probe was not answered on its path");

    rail_channel_destroy(&tx);
    rail_channel_destroy(&rx);
    rail_configure(RAIL_POLICY_ADAPTIVE, 0, NULL, 0, 1);
}

/* One-way traffic: the receiver acknowledges alone, every RAIL_ACK_EVERY
 * frames and when idle, so the sender's copies go. */
static void test_idle_acks(void)
{
    rail_channel_t a, b;
    rail_channel_init(&a, 1);
    rail_channel_init(&b, 0);
    rail_channel_add_path(&a, &fake_ops, NULL, &fake_paths[0], 0); /* a -> wire[0] */
    rail_channel_add_path(&b, &fake_ops, NULL, &fake_paths[1], 1); /* b -> wire[1] */
    nwire[0] = nwire[1] = 0;
    ndelivered = 0;
    send_ints(&a, 0, 40);
    for (int i = 0; i < 40; i++)
        deliver(&b, &wire[0][i]);
    expect_in_order(40);
    if (nwire[1] != 1 || wire[1][0].hdr.seq != 0 || wire[1][0].hdr.ack != RAIL_ACK_EVERY)
        FAIL("expected one early ack of %d, got %d frames (ack %llu)", RAIL_ACK_EVERY, nwire[1],
             (unsigned long long)(nwire[1] ? wire[1][0].hdr.ack : 0));
    if (rail_channel_idle(&b))
        FAIL("a receiver owing an ack is not idle");
    rail_flush_all(0); /* a busy progress pass: the ack waits for reverse traffic */
    if (nwire[1] != 1)
        FAIL("an ack went alone from a busy pass (%d frames)", nwire[1]);
    rail_flush_all(1);
    if (nwire[1] != 2 || wire[1][1].hdr.ack != 40)
        FAIL("idle ack missing (%d frames)", nwire[1]);
    if (rail_channel_idle(&a))
        FAIL("a sender with unacknowledged frames is not idle");
    for (int i = 0; i < nwire[1]; i++)
        deliver(&a, &wire[1][i]);
    if (a.unacked.n != 0 || !rail_channel_idle(&a))
        FAIL("sender still keeps %zu frames after the acks", a.unacked.n);
    if (ndelivered != 40)
        FAIL("an ack was delivered as data");
    rail_channel_destroy(&a);
    rail_channel_destroy(&b);
}

/* Heartbeats, silent failure, recovery with backoff, partition timeout. */
static void test_health(void)
{
    rail_channel_t ch;
    rail_channel_init(&ch, 0);   /* peer 0: we (rank 1) are the higher rank and reconnect */
    rail_health_setup(1);
    fake_paths[0] = (struct net_path){.rail = 0};
    fake_paths[1] = (struct net_path){.rail = 1};
    rail_channel_add_path(&ch, &fake_ops, NULL, &fake_paths[0], 0);
    rail_channel_add_path(&ch, &fake_ops, NULL, &fake_paths[1], 1);
    uint64_t t = 1000 * RM_SEC;
    nwire[0] = nwire[1] = 0;
    rail_health_tick(t);
    if (nwire[0] || nwire[1])
        FAIL("a channel never used must not be watched");
    send_ints(&ch, 0, 1); /* in use now */
    fake_paths[0].rx = fake_paths[1].rx = 1;
    nwire[0] = nwire[1] = 0;
    rail_health_tick(t);
    if (count_flag(0, 0) != 0 || count_flag(1, 0) != 1)
        FAIL("heartbeat only where nothing was sent (got %d, %d)", count_flag(0, 0), count_flag(1, 0));
    /* rail 1 keeps answering, rail 0 goes silent: probed, SUSPECT, DOWN */
    uint64_t step = rail_health_interval();
    int suspect_seen = 0;
    for (int i = 1; i <= 2 * RAIL_TICKS_PER_TIMEOUT && ch.paths[0].state != RAIL_PATH_DOWN; i++) {
        fake_paths[1].rx += 10;
        rail_health_tick(t + (uint64_t)i * step + 1);
        suspect_seen |= ch.paths[0].state == RAIL_PATH_SUSPECT;
    }
    if (count_flag(0, NET_F_PROBE) != 1)
        FAIL("the silent rail must be probed once before it fails (got %d)", count_flag(0, NET_F_PROBE));
    if (!suspect_seen || ch.paths[0].state != RAIL_PATH_DOWN)
        FAIL("a silent path must go SUSPECT, then DOWN (state %d)", ch.paths[0].state);
    if (ch.paths[1].state != RAIL_PATH_UP)
        FAIL("a path that kept answering must stay UP");
    rail_flush_all(1);
    if (ch.unacked.head->path != 1 || ch.paths[1].resent != 1)
        FAIL("the silent path's frame was not sent again on the other path");
    /* recovery: reconnection attempts with growing gaps */
    t += 20 * step;
    int before = fake_paths[0].reconnects;
    uint64_t last = 0, gap = 0, prev_gap = 0;
    int grew = 1;
    for (uint64_t now = t; now < t + 2 * RM_SEC; now += RM_MS) {
        int r = fake_paths[0].reconnects;
        fake_paths[1].rx += 1; /* rail 1 keeps answering */
        fake_now = now;
        rail_health_due = 1; /* what the timer does; progress polls it */
        rail_health_poll(fake_clock);
        if (rail_health_due)
            FAIL("a due tick was not run");
        if (fake_paths[0].reconnects != r) {
            if (last) {
                gap = now - last;
                if (prev_gap && gap < prev_gap && gap < (uint64_t)RM_CFG(recovery_max_ms) * RM_MS)
                    grew = 0;
                prev_gap = gap;
            }
            last = now;
        }
    }
    int attempts = fake_paths[0].reconnects - before;
    if (attempts < 3 || !grew || ch.paths[0].state != RAIL_PATH_RECOVERING)
        FAIL("expected backoff reconnection attempts (got %d, growing %d, state %d)", attempts, grew,
             ch.paths[0].state);
    if (gap > (uint64_t)RM_CFG(recovery_max_ms) * RM_MS + 2 * RM_MS)
        FAIL("backoff exceeded RAILMPI_RECOVERY_MAX_MS (%llu ms)", (unsigned long long)(gap / RM_MS));

    /* partition: rail 1 fails too; after the timeout the channel fails */
    t += 3 * RM_SEC;
    rail_channel_error(&ch, 1, RM_ERR_CONN_RESET);
    if (rail_channel_usable(&ch))
        FAIL("no path should be usable");
    failed_calls = 0;
    rail_health_tick(t);
    if (!ch.partitioned_since || ch.failed)
        FAIL("the channel must be partitioned, not failed");
    rail_health_tick(t + (uint64_t)RM_CFG(partition_timeout_s) * RM_SEC + RM_SEC);
    if (ch.failed != RM_ERR_UNREACHABLE)
        FAIL("partition timeout did not fail the channel");
    sent_errors = 0;
    rail_flush_all(1);
    if (failed_calls != 1 || failed_why != RM_ERR_UNREACHABLE)
        FAIL("the layer above was not told (%d calls)", failed_calls);
    int v = 1;
    unsigned char hdr[8] = {1};
    if (rail_channel_send(&ch, hdr, sizeof hdr, &v, sizeof v, 0, NULL, NULL) != RM_ERR_UNREACHABLE)
        FAIL("a failed channel must refuse sends");
    if (!rail_channel_idle(&ch))
        FAIL("a failed channel has nothing to wait for");
    rail_channel_destroy(&ch);
}

/* With fault tolerance off, a path failure fails the channel at once:
 * referenced frames come back with the error, nothing hangs. */
static int fake_acks(net_path_t *p, net_acks_t *out)
{
    out->acked = p->acked;
    out->timeouts = p->resending ? 1 : 0;
    return 0;
}

/* A path silent past the timeout whose peer's host still acknowledges what
 * is sent (its processes stall) is kept, SUSPECT; once the acknowledgements
 * stop too, it fails, and a rail that acknowledges nothing fails at the
 * same tick as on a transport that cannot tell. */
static int net_down_tick_n(const net_ops_t *ops, int acking, int stop_at, int resending, int ticks)
{
    rail_channel_t ch;
    rail_channel_init(&ch, 0);
    rail_health_setup(1);
    rail_host_teardown();
    rail_host_reset();
    fake_paths[0] = (struct net_path){.rail = 0, .acking = acking, .resending = resending};
    fake_paths[1] = (struct net_path){.rail = 1};
    rail_channel_add_path(&ch, ops, NULL, &fake_paths[0], 0);
    rail_channel_add_path(&ch, ops, NULL, &fake_paths[1], 1);
    uint64_t t = 5000 * RM_SEC, step = rail_health_interval();
    send_ints(&ch, 0, 1);
    ack_to(&ch, 1);
    fake_paths[0].rx = fake_paths[1].rx = 1;
    rail_health_tick(t);
    int down = -1;
    for (int i = 1; i <= ticks && down < 0; i++) {
        if (i == stop_at)
            fake_paths[0].acking = 0;
        fake_paths[1].rx += 10;
        rail_health_tick(t + (uint64_t)i * step + 1);
        if (ch.paths[0].state == RAIL_PATH_DOWN)
            down = i;
        else if (i > RAIL_TICKS_PER_TIMEOUT && acking && !resending && (stop_at < 0 || i < stop_at) &&
                 ch.paths[0].state != RAIL_PATH_SUSPECT)
            FAIL("a path whose host acknowledges must stay SUSPECT (state %d at tick %d)", ch.paths[0].state, i);
    }
    rail_channel_destroy(&ch);
    rail_host_teardown();
    rail_host_reset();
    return down;
}

static int net_down_tick(const net_ops_t *ops, int acking, int stop_at, int resending)
{
    return net_down_tick_n(ops, acking, stop_at, resending, 6 * RAIL_TICKS_PER_TIMEOUT);
}

/* With failover off a failed path fails the peer's operations: a silent path
 * of a transport that cannot tell a stalled peer from a dead one (no
 * net_acks) fails after RAIL_FT_OFF_SILENCE timeouts, not one; with
 * net_acks, a rail that acknowledges nothing fails as with failover on. */
static void test_ft_off_silence(void)
{
    net_ops_t acked_ops = fake_ops;
    acked_ops.net_acks = fake_acks;
    int ticks = (RAIL_FT_OFF_SILENCE + 2) * RAIL_TICKS_PER_TIMEOUT;
    int on = net_down_tick_n(&fake_ops, 0, -1, 0, ticks);
    rail_configure(RAIL_POLICY_ADAPTIVE, 0, NULL, 0, 0);
    int off = net_down_tick_n(&fake_ops, 0, -1, 0, ticks);
    int off_acked = net_down_tick_n(&acked_ops, 0, -1, 0, ticks);
    rail_configure(RAIL_POLICY_ADAPTIVE, 0, NULL, 0, 1);
    if (on < 0 || on > 2 * RAIL_TICKS_PER_TIMEOUT)
        FAIL("failover on: a silent path must fail within two timeouts (tick %d)", on);
    if (off < (RAIL_FT_OFF_SILENCE - 1) * RAIL_TICKS_PER_TIMEOUT || off > (RAIL_FT_OFF_SILENCE + 1) * RAIL_TICKS_PER_TIMEOUT)
        FAIL("failover off, no net_acks: a silent path must fail after %d timeouts, not at tick %d (one timeout: tick %d)",
             RAIL_FT_OFF_SILENCE, off, on);
    if (off_acked != on)
        FAIL("failover off, a rail that acknowledges nothing: must fail at tick %d as with failover on (got %d)", on,
             off_acked);
}

static void test_net_answers(void)
{
    net_ops_t acked_ops = fake_ops;
    acked_ops.net_acks = fake_acks;
    int plain = net_down_tick(&fake_ops, 0, -1, 0);
    if (plain < 0)
        FAIL("a silent path without net_acks must fail");
    int dead = net_down_tick(&acked_ops, 0, -1, 0);
    if (dead != plain)
        FAIL("a rail that acknowledges nothing must fail at tick %d, as without net_acks (got %d)", plain, dead);
    int lossy = net_down_tick(&acked_ops, 1, -1, 1);
    if (lossy != plain)
        FAIL("a rail with a retransmission timeout pending must fail at tick %d (got %d)", plain, lossy);
    if (net_down_tick(&acked_ops, 1, -1, 0) >= 0)
        FAIL("a path whose host acknowledges must not fail");
    int stop = 3 * RAIL_TICKS_PER_TIMEOUT;
    int later = net_down_tick(&acked_ops, 1, stop, 0);
    uint64_t bound = (rail_probe_interval() + 2 * rail_health_interval()) / rail_health_interval() + 1;
    if (later < stop || (uint64_t)(later - stop) > bound)
        FAIL("once the acknowledgements stop the kept path must fail within %llu ticks (stopped at %d, failed at %d)",
             (unsigned long long)bound, stop, later);
}

static void test_ft_off(void)
{
    rail_configure(RAIL_POLICY_ADAPTIVE, 0, NULL, 0, 0);
    rail_channel_t ch;
    rail_channel_init(&ch, 1);
    rail_channel_add_path(&ch, &fake_ops, NULL, &fake_paths[0], 0);
    rail_channel_add_path(&ch, &fake_ops, NULL, &fake_paths[1], 1);
    static unsigned char big[(64 << 10) * 2];
    unsigned char hdr[8] = {1};
    room = 0; /* queued, referenced */
    sent_calls = sent_errors = 0;
    if (rail_channel_send(&ch, hdr, sizeof hdr, big, sizeof big, 0, on_sent, NULL) != RM_INPROGRESS)
        FAIL("queued large frame");
    if (ch.unacked.n)
        FAIL("nothing is kept for retransmission with RAILMPI_FT=0");
    failed_calls = 0;
    rail_channel_error(&ch, 0, RM_ERR_CONN_RESET);
    rail_flush_all(1);
    room = 1 << 30;
    if (ch.failed >= 0 || failed_calls != 1 || sent_calls != 1 || sent_errors != 1)
        FAIL("FT=0: failure must end the channel (failed %d, calls %d/%d/%d)", ch.failed,
             failed_calls, sent_calls, sent_errors);
    rail_channel_destroy(&ch);
    rail_configure(RAIL_POLICY_ADAPTIVE, 0, NULL, 0, 1);
}

/* The failover policy keeps a standby ARMED and moves traffic to it. */
static void test_failover_policy(void)
{
    rail_configure(RAIL_POLICY_FAILOVER, 0, NULL, 0, 1);
    rail_channel_t ch, rx;
    rail_channel_init(&ch, 1);
    rail_channel_init(&rx, 0);
    fake_paths[0] = (struct net_path){.rail = 0};
    fake_paths[1] = (struct net_path){.rail = 1};
    rail_channel_add_path(&ch, &fake_ops, NULL, &fake_paths[0], 0);
    rail_channel_add_path(&ch, &fake_ops, NULL, &fake_paths[1], 1);
    if (ch.paths[1].state != RAIL_PATH_ARMED || !ch.paths[1].standby)
        FAIL("failover: the second path must be a standby");
    nwire[0] = nwire[1] = 0;
    ndelivered = 0;
    send_ints(&ch, 0, 5);
    rail_health_tick(2000 * RM_SEC); /* probes the standby */
    if (nwire[0] != 5 || count_flag(1, NET_F_PROBE) != 1 || count_flag(1, 0) != 0)
        FAIL("failover: data on the primary, a probe on the standby (%d, %d)", nwire[0], nwire[1]);
    net_frame_hdr_t pa = {.flags = NET_F_PROBE_ACK};
    rail_channel_recv(&ch, 1, &pa, NULL, NULL);
    if (ch.paths[1].state != RAIL_PATH_ARMED || !ch.paths[1].probed)
        FAIL("failover: an answered standby stays ARMED");
    rail_channel_error(&ch, 0, RM_ERR_CONN_RESET);
    if (ch.paths[1].state != RAIL_PATH_UP)
        FAIL("failover: the standby must take over at once");
    rail_flush_all(1);
    send_ints(&ch, 5, 6);
    for (int i = 0; i < nwire[1]; i++)
        if (wire[1][i].hdr.seq)
            deliver_on(&rx, 1, &wire[1][i]);
    expect_in_order(6);
    rail_channel_destroy(&ch);
    rail_channel_destroy(&rx);
    rail_configure(RAIL_POLICY_ADAPTIVE, 0, NULL, 0, 1);
}

/* Zero-copy receive and a second copy of the same chunk (resent after an
 * ack stall) over a transport that cannot withdraw a place: while one path
 * writes the chunk in place, the copy is neither placed nor handed up; the
 * placed one completes it. If the placing path fails mid-read, the next copy
 * is handed up. */
static unsigned char place_buf[64];
static void *fake_place(rail_channel_t *ch, const void *upper, size_t len)
{
    (void)ch, (void)upper, (void)len;
    return place_buf;
}

/* A receiving channel of two paths whose large frames land in place_buf. */
static void placing_pair(rail_channel_t *rx, const net_ops_t *ops)
{
    rail_channel_init(rx, 0);
    fake_paths[0] = (struct net_path){.rail = 0};
    fake_paths[1] = (struct net_path){.rail = 1};
    rail_channel_add_path(rx, ops, NULL, &fake_paths[0], 0);
    rail_channel_add_path(rx, ops, NULL, &fake_paths[1], 1);
    rail_set_place(fake_place);
}

static void test_zcopy_second_copy(void)
{
    rail_channel_t rx;
    placing_pair(&rx, &fake_ops);
    net_frame_hdr_t h = {.seq = 1, .len = sizeof(int), .hlen = 8, .flags = NET_F_UNORDERED};
    unsigned char upper[8] = {1};
    int v = 0;
    ndelivered = 0;
    if (rail_channel_place(&rx, 0, &h, upper) != place_buf)
        FAIL("zcopy: the first copy must be placed");
    if (rail_channel_place(&rx, 1, &h, upper) != NULL)
        FAIL("zcopy: a second copy must not be placed while the first is being written");
    rail_channel_recv(&rx, 1, &h, upper, &v); /* the staged second copy arrives first */
    if (ndelivered != 0 || rx.dups_dropped != 1)
        FAIL("zcopy: the second copy was handed up while the first was still being written");
    memcpy(place_buf, &v, sizeof v);
    rail_channel_recv(&rx, 0, &h, upper, place_buf);
    if (ndelivered != 1 || rx.paths[0].zc_bytes != sizeof(int))
        FAIL("zcopy: the placed copy must complete the chunk (%d delivered)", ndelivered);
    h.seq = 2;
    if (rail_channel_place(&rx, 0, &h, upper) != place_buf)
        FAIL("zcopy: chunk 2 not placed");
    rail_channel_error(&rx, 0, RM_ERR_CONN_RESET); /* its path breaks mid-read */
    rail_channel_recv(&rx, 1, &h, upper, &v);
    if (ndelivered != 2)
        FAIL("zcopy: after the placing path failed, the resent copy must be handed up");
    rail_set_place(NULL);
    rail_channel_destroy(&rx);
}

/* The same over a transport that withdraws a place (tcp): the copy that
 * arrives whole while the first path still writes the chunk in place (that
 * path stalls: retransmissions backing off on a flapping link) is handed up
 * at once, after the first path's place was withdrawn, so that nothing
 * writes into the buffer any more; the first path's copy is then never
 * handed up (the transport drops it), and a third copy is a duplicate. */
static const void *unplaced_at[4];
static net_path_t *unplaced_path[4];
static int nunplaced;
static void fake_unplace(net_path_t *p, const void *at)
{
    if (nunplaced < 4) {
        unplaced_path[nunplaced] = p;
        unplaced_at[nunplaced] = at;
    }
    nunplaced++;
}

static void test_zcopy_withdrawn(void)
{
    net_ops_t ops = fake_ops;
    ops.unplace = fake_unplace;
    rail_channel_t rx;
    placing_pair(&rx, &ops);
    net_frame_hdr_t h = {.seq = 1, .len = sizeof(int), .hlen = 8, .flags = NET_F_UNORDERED};
    unsigned char upper[8] = {1};
    int v = 0;
    ndelivered = nunplaced = 0;
    if (rail_channel_place(&rx, 0, &h, upper) != place_buf)
        FAIL("withdrawn: the first copy must be placed");
    if (rail_channel_place(&rx, 1, &h, upper) != NULL)
        FAIL("withdrawn: a second copy must be staged while the first is being written");
    if (nunplaced)
        FAIL("withdrawn: the place was withdrawn before a copy had arrived whole");
    rail_channel_recv(&rx, 1, &h, upper, &v); /* the staged copy arrives whole first */
    if (nunplaced != 1 || unplaced_path[0] != &fake_paths[0] || unplaced_at[0] != place_buf)
        FAIL("withdrawn: rail 0's place must be withdrawn once (%d times)", nunplaced);
    if (ndelivered != 1 || delivered[0] != 0 || rx.dups_dropped != 0)
        FAIL("withdrawn: the copy must be handed up at once (%d delivered, %llu dropped)", ndelivered,
             (unsigned long long)rx.dups_dropped);
    if (rx.paths[0].zc_at || rx.paths[0].unplaced != 1)
        FAIL("withdrawn: rail 0 must no longer be placing the chunk");
    rail_channel_recv(&rx, 1, &h, upper, &v); /* a third copy */
    if (ndelivered != 1 || rx.dups_dropped != 1 || nunplaced != 1)
        FAIL("withdrawn: a later copy must be dropped as a duplicate");
    h.seq = 2;
    if (rail_channel_place(&rx, 0, &h, upper) != place_buf)
        FAIL("withdrawn: chunk 2 not placed");
    v = 2;
    memcpy(place_buf, &v, sizeof v);
    rail_channel_recv(&rx, 0, &h, upper, place_buf); /* no copy: the placed one completes it */
    if (ndelivered != 2 || nunplaced != 1 || rx.paths[0].zc_bytes != sizeof(int))
        FAIL("withdrawn: chunk 2 must complete in place without a withdrawal");
    rail_set_place(NULL);
    rail_channel_destroy(&rx);
}

/* End-to-end resend: with both paths alive and no ack progress, everything
 * kept goes out again after 6 ticks (a path timeout), not before; while the
 * path that carried the oldest frame is suspect the count pauses (its own
 * failure handling comes first). */
static int data_frames(void)
{
    int n = 0;
    for (int r = 0; r < 2; r++)
        for (int i = 0; i < nwire[r]; i++)
            n += wire[r][i].hdr.seq != 0;
    return n;
}

static void test_ack_stall(void)
{
    rail_channel_t ch;
    adaptive_pair(&ch, &fake_ops);
    nwire[0] = nwire[1] = 0;
    send_ints(&ch, 0, 4);
    uint64_t t = 5000 * RM_SEC, step = rail_health_interval();
    for (int i = 1; i <= RAIL_ACK_STALL_TICKS; i++) {
        fake_paths[0].rx += 10, fake_paths[1].rx += 10; /* both alive */
        rail_health_tick(t + (uint64_t)i * step);
        if (i < RAIL_ACK_STALL_TICKS && data_frames() != 4)
            FAIL("ack stall: resent after %d ticks (%d data frames)", i, data_frames());
    }
    if (data_frames() != 8)
        FAIL("ack stall: after %d ticks everything kept must go out again (%d data frames)",
             RAIL_ACK_STALL_TICKS, data_frames());
    /* rail 0 carried the oldest frame, which holds the ack back: it stalls
     * (a connection backing off on a flapping link still answers probes),
     * so the copies go out on rail 1, and rail 0 takes nothing until the
     * peer has its frames */
    for (const rail_frame_t *f = ch.unacked.head; f; f = f->next)
        if (f->path != 1)
            FAIL("ack stall: frame %llu went out again on rail %d, not on rail 1 (rail 0 stalls)",
                 (unsigned long long)f->hdr.seq, f->path);
    if (ch.paths[0].slow_hi != 4)
        FAIL("ack stall: rail 0 must be held back up to frame 4 (slow_hi %llu)",
             (unsigned long long)ch.paths[0].slow_hi);
    /* the same stall while rail 1, which now carries the frames, goes silent:
     * it turns suspect at 3/4 of the path timeout, and the count waits once it has been silent past a
     * heartbeat interval (its own failure handling resends them; without the pause: a resend at
     * tick RAIL_ACK_STALL_TICKS) */
    nwire[0] = nwire[1] = 0;
    t += 100 * RM_SEC;
    fake_paths[0].rx += 10, fake_paths[1].rx += 10;
    rail_health_tick(t); /* both heard from at t */
    for (int i = 1; i <= RAIL_TICKS_PER_TIMEOUT * 5 / 6; i++) {
        fake_paths[0].rx += 10;
        rail_health_tick(t + (uint64_t)i * step);
    }
    if (ch.paths[1].state != RAIL_PATH_SUSPECT)
        FAIL("ack stall: the silent rail 1 is not suspect (state %d)", ch.paths[1].state);
    if (data_frames() != 0)
        FAIL("ack stall: resent while the frames' path was suspect (%d data frames)", data_frames());
    /* once the peer acknowledges them, rail 0 carries frames again */
    ack_to(&ch, 4);
    if (ch.paths[0].slow_hi || ch.unacked.head)
        FAIL("ack stall: the ack must release the frames and rail 0 (slow_hi %llu)",
             (unsigned long long)ch.paths[0].slow_hi);
    fake_paths[1].rx += 10;
    rail_health_tick(t + (uint64_t)(RAIL_TICKS_PER_TIMEOUT + 1) * step);
    nwire[0] = nwire[1] = 0;
    send_ints(&ch, 4, 5);
    if (nwire[0] != 1)
        FAIL("ack stall: after the ack, the next frame must go on rail 0 again (%d there)", nwire[0]);
    rail_channel_destroy(&ch);
}

/* A frame sent again after its ack was lost (on a path that failed) must be
 * acknowledged again: no per-pair heartbeat carries the ack any more, so
 * without that the sender would resend it forever; and on the path the copy
 * came by, which is known to work towards us. */
static void test_dup_reack(void)
{
    rail_channel_t a, b;
    adaptive_pair(&a, &fake_ops);
    rail_channel_init(&b, 1);
    static struct net_path bp[2] = {{.rail = 0}, {.rail = 1}};
    rail_channel_add_path(&b, &fake_ops, NULL, &bp[0], 0);
    rail_channel_add_path(&b, &fake_ops, NULL, &bp[1], 1);
    nwire[0] = nwire[1] = 0;
    send_ints(&a, 0, 1);
    wire_frame_t f = wire[0][0];
    nwire[0] = nwire[1] = 0;
    deliver(&b, &f);
    rail_flush_all(1); /* the ack goes, and is lost */
    int acks = count_flag(0, 0) + count_flag(1, 0);
    if (acks != 1)
        FAIL("dup re-ack: expected the first ack (%d)", acks);
    /* the sender sent it again, this time by the other rail: the path the
     * first ack took may be dead one way only, so the copy is answered at
     * once on the path it came by, and the owed ack goes as usual too */
    int other = count_flag(0, 0) ? 1 : 0, before = count_flag(other, 0);
    deliver_on(&b, other, &f);
    if (count_flag(other, 0) != before + 1)
        FAIL("dup re-ack: the copy that came by rail %d must be acknowledged on rail %d at once", other, other);
    rail_flush_all(1);
    if (count_flag(0, 0) + count_flag(1, 0) < 3)
        FAIL("dup re-ack: a frame received twice must be acknowledged again");
    rail_channel_destroy(&a);
    rail_channel_destroy(&b);
}

/* Health per (host, rail): peers 0 and 2 share host 0, peer 1 is host 1.
 * Traffic from either peer of a host keeps both paths there alive without
 * probes; an idle host rail gets one probe per interval however many
 * channels go there; a silent host rail fails every path there in the same
 * tick; while it is down one reconnection attempt per backoff goes out for
 * the host, and once one path hears from the host again the others
 * reconnect at once. */
static struct net_path hp[3][2];

static void test_host_health(void)
{
    static const int node_of[4] = {0, 1, 0, 1};
    rail_configure(RAIL_POLICY_ADAPTIVE, 0, NULL, 0, 1);
    rail_health_clock(fake_clock);
    rail_health_setup(3); /* we are rank 3, on host 1: higher than peers 0 and 2 */
    rail_host_conf_t hc = {.my_rank = 3, .my_node = 1, .nnodes = 2, .node_of = node_of, .nlocal = 1,
                           .job_id = "unit", .stamp = ""};
    if (rail_host_setup(&hc) != RM_OK)
        FAIL("host table");
    rail_channel_t ch[2];
    int peers[2] = {0, 2};
    for (int c = 0; c < 2; c++) {
        rail_channel_init(&ch[c], peers[c]);
        for (int r = 0; r < 2; r++) {
            hp[c][r] = (struct net_path){.rail = r};
            rail_channel_add_path(&ch[c], &fake_ops, NULL, &hp[c][r], r);
        }
    }
    uint64_t T = (uint64_t)RM_CFG(path_timeout_ms) * RM_MS, step = rail_health_interval();
    uint64_t t = 7000 * RM_SEC;
    send_ints(&ch[0], 0, 1);
    send_ints(&ch[1], 0, 1);
    ack_to(&ch[0], 1);
    ack_to(&ch[1], 1);
    hp[0][0].rx = hp[0][1].rx = hp[1][0].rx = hp[1][1].rx = 1;
    rail_health_tick(t);
    /* peer 0 carries traffic both ways on both rails, peer 2 is idle: no
     * heartbeat, no probe, nothing suspected */
    nwire[0] = nwire[1] = 0;
    for (int i = 1; i <= 20; i++) {
        hp[0][0].rx += 100, hp[0][1].rx += 100;
        ch[0].paths[0].frames++, ch[0].paths[1].frames++;
        rail_health_tick(t + (uint64_t)i * step);
    }
    if (nwire[0] || nwire[1] || ch[1].paths[0].state != RAIL_PATH_UP || ch[1].paths[1].state != RAIL_PATH_UP)
        FAIL("host health: an idle peer on a busy host must cost nothing (frames %d/%d, states %d/%d)",
             nwire[0], nwire[1], ch[1].paths[0].state, ch[1].paths[1].state);
    /* everything idle for 10 s; the peer host's heartbeats arrive on peer
     * 2's paths every 150 ms: one heartbeat per interval and rail from here,
     * not one per channel */
    t += 20 * step;
    nwire[0] = nwire[1] = 0;
    int ticks = (int)(10 * RM_SEC / step);
    for (int i = 1; i <= ticks; i++) {
        if (i % 3 == 0)
            hp[1][0].rx++, hp[1][1].rx++;
        rail_health_tick(t + (uint64_t)i * step);
        for (int r = 0; r < 2; r++)
            if (ch[0].paths[r].state != RAIL_PATH_UP || ch[1].paths[r].state != RAIL_PATH_UP)
                FAIL("host health: an idle rail that hears heartbeats must stay UP (tick %d)", i);
    }
    uint64_t every = rail_probe_interval();
    uint64_t expect = RM_SEC / (step * ((every + step / 2) / step));
    for (int r = 0; r < 2; r++) {
        int per_s = count_flag(r, 0) / 10;
        if (per_s < 1 || (uint64_t)per_s > expect || count_flag(r, NET_F_PROBE))
            FAIL("host health: %d heartbeats/s (%d probes) on idle host rail %d with two channels (expected "
                 "%llu)", per_s, count_flag(r, NET_F_PROBE), r, (unsigned long long)expect);
    }
    /* rail 1: nothing answered; both paths fail in the same tick */
    t += (uint64_t)(ticks + 1) * step;
    int down_tick[2] = {-1, -1};
    for (int i = 1; i <= 20; i++) {
        hp[0][0].rx += 100; /* rail 0 stays alive */
        rail_health_tick(t + (uint64_t)i * step);
        for (int c = 0; c < 2; c++)
            if (down_tick[c] < 0 && ch[c].paths[1].state == RAIL_PATH_DOWN)
                down_tick[c] = i;
    }
    if (down_tick[0] < 0 || down_tick[0] != down_tick[1] || (uint64_t)down_tick[0] * step > T + 2 * step)
        FAIL("host health: both paths on the silent rail must fail in the same tick, within the path "
             "timeout (ticks %d, %d)", down_tick[0], down_tick[1]);
    /* recovery while the host's rail stays down: one attempt per backoff for the host */
    int r0 = hp[0][1].reconnects + hp[1][1].reconnects;
    uint64_t t2 = t + 21 * step;
    for (uint64_t now = t2; now < t2 + 2 * RM_SEC; now += step) {
        hp[0][0].rx += 100;
        rail_health_tick(now);
    }
    int attempts = hp[0][1].reconnects + hp[1][1].reconnects - r0;
    /* backoff 50, 100, 200, 400, 500, 500 ms...: 7 attempts in 2 s for the host; a path each
     * on its own would make twice as many */
    int max_attempts = 9;
    if (attempts < 3 || attempts > max_attempts)
        FAIL("host health: %d reconnection attempts in 2 s for one host rail (3..%d expected)", attempts,
             max_attempts);
    /* one path gets through: its connection comes up and the peer's probe arrives */
    rail_path_t *won = hp[0][1].reconnects > hp[1][1].reconnects ? &ch[0].paths[1] : &ch[1].paths[1];
    rail_channel_t *wch = won == &ch[0].paths[1] ? &ch[0] : &ch[1];
    rail_channel_t *other = wch == &ch[0] ? &ch[1] : &ch[0];
    uint64_t t3 = t2 + 2 * RM_SEC + step;
    fake_now = t3 - 1;
    rail_channel_up(wch, 1);
    net_frame_hdr_t pr = {.flags = NET_F_PROBE};
    rail_channel_recv(wch, 1, &pr, NULL, NULL);
    int before = other->paths[1].ops == &fake_ops ? hp[other == &ch[0] ? 0 : 1][1].reconnects : 0;
    hp[0][0].rx += 100;
    rail_health_tick(t3);
    int after = hp[other == &ch[0] ? 0 : 1][1].reconnects;
    if (after != before + 1)
        FAIL("host health: once the host's rail answers again, the other paths must reconnect at once "
             "(%d attempts)", after - before);
    for (int c = 0; c < 2; c++)
        rail_channel_destroy(&ch[c]);
    rail_host_teardown();
    rail_health_clock(NULL);
    rail_health_setup(1);
}

/* The monitor's lease: a rank whose process is gone loses it to another. */
static void test_host_lease(void)
{
    static const int node_of[4] = {0, 1, 0, 1};
    char job[32];
    snprintf(job, sizeof job, "unit%d", (int)getpid());
    rail_host_conf_t hc = {.my_rank = 3, .my_node = 1, .nnodes = 2, .node_of = node_of, .nlocal = 2,
                           .job_id = job, .stamp = "s"};
    pid_t child = fork();
    if (child == 0) {
        hc.my_rank = 1;
        if (rail_host_setup(&hc) != RM_OK || !rail_host_monitor(rm_now()))
            _exit(2);
        rail_host_entry_t *e = rail_host_entry(0, 1);
        rail_host_heard(e, 0, 1, 12345);
        _exit(0); /* dies holding the lease */
    }
    int status;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        FAIL("lease: the first rank did not become the monitor");
    if (rail_host_setup(&hc) != RM_OK)
        FAIL("lease: second rank cannot map the host's table");
    if (atomic_load(&rail_host_entry(0, 1)->heard) != 12345)
        FAIL("lease: the table is not shared between the host's ranks");
    if (!rail_host_monitor(rm_now()))
        FAIL("lease: the monitor's process is gone, another rank must take over");
    rail_host_teardown();
    rail_health_setup(1);
}

/* Renewed addresses: a path whose transport has a new address the peer may
 * not know, and that is not up, has it sent over another path (NET_F_ADDR,
 * at most every 100 ms); the peer's channel hands it to that path's
 * transport. */
static const char renewed_addr[] = "new-address-of-rail-1";
static int renewed_known;     /* the fake transport: the peer has our address */
static char learned[64];
static int learned_rail = -1;
static size_t fake_addr_renewed(net_path_t *p, void *buf, size_t len)
{
    if (p->rail != 1 || renewed_known || len < sizeof renewed_addr)
        return 0;
    memcpy(buf, renewed_addr, sizeof renewed_addr);
    return sizeof renewed_addr;
}
static void fake_addr_learn(net_path_t *p, const void *buf, size_t len)
{
    learned_rail = p->rail;
    memcpy(learned, buf, len < sizeof learned ? len : sizeof learned - 1);
}

static void test_renewed_addr(void)
{
    net_ops_t ops = fake_ops;
    ops.addr_renewed = fake_addr_renewed;
    ops.addr_learn = fake_addr_learn;
    rail_channel_t tx, rx;
    adaptive_pair(&tx, &ops);
    rail_channel_init(&rx, 1);
    rail_channel_add_path(&rx, &ops, NULL, &fake_paths[0], 0);
    rail_channel_add_path(&rx, &ops, NULL, &fake_paths[1], 1);
    nwire[0] = nwire[1] = 0;
    renewed_known = 0;
    rail_channel_addr_out(&tx);
    if (nwire[0] || nwire[1])
        FAIL("renewed address sent while its path is up");
    tx.paths[1].state = RAIL_PATH_DOWN;
    rail_channel_addr_out(&tx);
    if (count_flag(0, NET_F_ADDR) != 1 || count_flag(1, NET_F_ADDR) != 0)
        FAIL("a down path's renewed address must go over the other path (rail 0: %d, rail 1: %d)",
             count_flag(0, NET_F_ADDR), count_flag(1, NET_F_ADDR));
    rail_channel_addr_out(&tx);
    if (count_flag(0, NET_F_ADDR) != 1)
        FAIL("renewed address sent again within 100 ms");
    deliver_on(&rx, 0, &wire[0][0]);
    if (learned_rail != 1 || strcmp(learned, renewed_addr))
        FAIL("the peer's transport must learn the address on rail 1 (rail %d, \"%s\")", learned_rail, learned);
    renewed_known = 1;
    tx.paths[1].addr_sent_at = 0;
    nwire[0] = 0;
    rail_channel_addr_out(&tx);
    if (nwire[0])
        FAIL("renewed address sent once the peer knows it");
    rail_channel_destroy(&tx);
    rail_channel_destroy(&rx);
}

int main(void)
{
    fake_rail_setup();
    test_sequencing();
    test_idle_acks();
    test_health();
    test_net_answers();
    test_ft_off();
    test_ft_off_silence();
    test_failover_policy();
    test_renewed_addr();
    test_zcopy_second_copy();
    test_zcopy_withdrawn();
    test_ack_stall();
    test_dup_reack();
    test_host_health();
    test_host_lease();
    printf("OK\n");
    return 0;
}
