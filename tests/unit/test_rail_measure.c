/* The path repository over the fake transport (fake_rail.h): what the
 * transport measures reaches the paths and the adaptive policy, delivery
 * reports measure a transport that measures nothing, and a path that turned
 * slow, or delivers nothing at all, has its frames sent again on the
 * others. */
#include "fake_rail.h"

/* The path repository: the transport's measurements reach the paths, a
 * sample from a starved path counts only when it beats the estimate, and
 * the adaptive policy stripes by the measured rates once every path has
 * one (static weights before). The fake queue never drains, so each path's
 * share follows its rate. */
static net_measure_t meas[2];
static size_t fake_q[2];
static int fake_measure(net_path_t *p, net_measure_t *m) { *m = meas[p->rail]; return 0; }
static size_t fake_queued(net_path_t *p) { return fake_q[p->rail]; }
static rm_status_t fake_send_q(net_path_t *p, const net_frame_hdr_t *hdr, const void *upper,
                               const struct iovec *iov, int iovcnt)
{
    fake_q[p->rail] += hdr->len;
    return fake_send(p, hdr, upper, iov, iovcnt);
}
static const net_ops_t fake_meas_ops = {
    .name = "fake", .caps = NET_CAP_MEASURED, .send = fake_send_q, .path_close = fake_close, .rx_bytes = fake_rx,
    .path_reset = fake_reset, .reconnect = fake_reconnect, .queued = fake_queued,
    .measure = fake_measure,
};

static void stripe(rail_channel_t *ch, int n, int *on)
{
    static unsigned char chunk[1000];
    nwire[0] = nwire[1] = 0;
    fake_q[0] = fake_q[1] = 0;
    for (int i = 0; i < n; i++) {
        unsigned char hdr[8] = {1};
        if (rail_channel_send(ch, hdr, sizeof hdr, chunk, sizeof chunk, NET_F_UNORDERED, NULL, NULL) < 0)
            FAIL("striped send %d", i);
    }
    on[0] = nwire[0];
    on[1] = nwire[1];
}

static void test_measured_adaptive(void)
{
    rail_channel_t ch;
    adaptive_pair(&ch, &fake_meas_ops);
    int on[2];
    stripe(&ch, 40, on); /* nothing measured: equal static weights */
    if (on[0] != 20 || on[1] != 20)
        FAIL("unmeasured adaptive: %d / %d chunks, expected 20 / 20", on[0], on[1]);
    /* a path whose only figure was taken while it carried next to nothing
     * (a few heartbeats: app-limited) is not starved by it: static weights
     * until it was measured busy */
    meas[0] = (net_measure_t){.rate = 4e8, .rtt = 100e-6};
    meas[1] = (net_measure_t){.rate = 2e3, .rate_limited = 1};
    rail_health_tick(3000 * RM_SEC - RM_SEC / 100);
    if (ch.paths[1].bw != 2e3 || ch.paths[1].proven || !ch.paths[0].proven)
        FAIL("an app-limited first sample: bw %.0f, proven %d / %d", ch.paths[1].bw, ch.paths[0].proven,
             ch.paths[1].proven);
    stripe(&ch, 40, on);
    if (on[1] < 15)
        FAIL("a path measured only while idle is starved: %d / %d chunks", on[0], on[1]);
    ch.paths[1].bw = 0; /* the rest starts from a path not measured yet */
    net_frame_hdr_t ack = {.ack = ch.send_seq};
    rail_channel_recv(&ch, 0, &ack, NULL, NULL);
    fake_paths[0].rx++, fake_paths[1].rx++;
    meas[0] = (net_measure_t){.rate = 4e8, .rtt = 100e-6};
    meas[1] = (net_measure_t){.rate = 1e8, .rtt = 100e-6};
    uint64_t t = 3000 * RM_SEC;
    rail_health_tick(t);
    if (ch.paths[0].bw != 4e8 || ch.paths[1].bw != 1e8 || ch.paths[0].rtt != 100e-6)
        FAIL("path repository: bw %.0f / %.0f, rtt %g", ch.paths[0].bw, ch.paths[1].bw, ch.paths[0].rtt);
    stripe(&ch, 50, on);
    if (on[0] < 38 || on[0] > 42 || on[0] + on[1] != 50)
        FAIL("measured adaptive: %d / %d chunks, expected about 40 / 10", on[0], on[1]);
    /* a starved path's low sample says nothing; a higher one raises the estimate */
    meas[1] = (net_measure_t){.rate = 1e7, .rate_limited = 1, .rtt = 100e-6};
    fake_paths[0].rx++, fake_paths[1].rx++;
    rail_health_tick(t + 1);
    if (ch.paths[1].bw != 1e8)
        FAIL("an app-limited sample below the estimate moved it to %.0f", ch.paths[1].bw);
    meas[1] = (net_measure_t){.rate = 2e8, .rate_limited = 1, .rtt = 100e-6};
    fake_paths[0].rx++, fake_paths[1].rx++;
    rail_health_tick(t + 2);
    if (!(ch.paths[1].bw > 1e8 && ch.paths[1].bw < 2e8))
        FAIL("an app-limited sample above the estimate must raise it (%.0f)", ch.paths[1].bw);
    /* saturated samples are smoothed */
    meas[0] = (net_measure_t){.rate = 2e8, .rtt = 100e-6};
    fake_paths[0].rx++, fake_paths[1].rx++;
    rail_health_tick(t + 3);
    if (!(ch.paths[0].bw < 4e8 && ch.paths[0].bw > 2e8))
        FAIL("a saturated sample must move the estimate part way (%.0f)", ch.paths[0].bw);
    memset(meas, 0, sizeof meas);
    rail_channel_destroy(&ch);
}

/* Delivery reports, for a transport that measures nothing (caps 0): the
 * receiver's tick reports the highest frame each path brought; the sender
 * takes what was reported out of that path's backlog, counts it delivered
 * (its rate) and samples a round trip. A path whose frames are not reported
 * keeps its backlog, and the adaptive policy sends the next chunks to the
 * path that delivers. */
static void on_deliver_any(rail_channel_t *ch, const void *upper, const void *payload, size_t len)
{
    (void)ch, (void)upper, (void)payload, (void)len;
}

/* A health tick at `now` (both paths heard from) and the flush after it:
 * how many frames up to `seq` went out again on rail 0 */
static int tick_resent(uint64_t now, uint64_t seq)
{
    fake_paths[0].rx++, fake_paths[1].rx++;
    nwire[0] = nwire[1] = 0;
    rail_health_tick(now);
    rail_flush_all(0);
    int again = 0;
    for (int i = 0; i < nwire[0]; i++)
        again += wire[0][i].hdr.seq && wire[0][i].hdr.seq <= seq;
    return again;
}

/* A sender over two fake paths measured by reports (adaptive) and the
 * receiver at the other end, which hands everything to on_deliver_any */
static void reporting_pair(rail_channel_t *ch, rail_channel_t *rx)
{
    rail_set_deliver(on_deliver_any);
    adaptive_pair(ch, &fake_ops);
    rail_channel_init(rx, 1);
    rail_channel_add_path(rx, &fake_ops, NULL, &fake_paths[0], 0);
    rail_channel_add_path(rx, &fake_ops, NULL, &fake_paths[1], 1);
}

static void test_delivery_reports(void)
{
    rail_channel_t ch, rx;
    reporting_pair(&ch, &rx);
    if (!ch.paths[0].reports || !rx.paths[1].reports)
        FAIL("reports: a lossy path without NET_CAP_MEASURED is measured by reports");
    uint64_t t = 4000 * RM_SEC;
    rail_health_tick(t);
    int on[2];
    stripe(&ch, 40, on); /* unmeasured: 20 / 20 */
    if (on[0] != 20 || on[1] != 20 || ch.paths[0].kept != 20000 || ch.paths[1].kept != 20000)
        FAIL("reports: backlog %zu / %zu after 20 / 20 chunks", ch.paths[0].kept, ch.paths[1].kept);
    fake_paths[0].rx++, fake_paths[1].rx++;
    rail_health_tick(t + RM_SEC / 200); /* the paths' first measure: from here on */
    /* only rail 0's frames arrive */
    uint64_t hi0 = 0;
    for (int i = 0; i < nwire[0]; i++) {
        deliver_on(&rx, 0, &wire[0][i]);
        if (wire[0][i].hdr.seq > hi0)
            hi0 = wire[0][i].hdr.seq;
    }
    nwire[0] = nwire[1] = 0;
    rail_channel_report_out(&rx);
    int k = nwire[0] ? 0 : 1, reports = 0;
    wire_frame_t rep = {0};
    for (int i = 0; i < nwire[k]; i++)
        if (wire[k][i].hdr.flags & NET_F_REPORT)
            rep = wire[k][i], reports++;
    rail_report_t r;
    memcpy(&r, rep.payload, sizeof r);
    if (reports != 1 || rep.hdr.seq || rep.hdr.len != sizeof r || r.rail != 0 || r.hi != hi0)
        FAIL("reports: one report naming rail 0 up to %llu (got %d, len %u, rail %u, hi %llu)",
             (unsigned long long)hi0, reports, rep.hdr.len, r.rail, (unsigned long long)r.hi);
    nwire[0] = nwire[1] = 0;
    rail_channel_report_out(&rx);
    if (nwire[0] + nwire[1])
        FAIL("reports: nothing new came, nothing to report");
    /* the sender takes it in (and the ack it carries, up to the first gap):
     * rail 0 delivered all, rail 1 still holds its 20 */
    rail_channel_recv(&ch, k, &rep.hdr, rep.upper, rep.payload);
    if (ch.paths[0].kept != ch.paths[0].kept_dlv || ch.paths[1].kept_dlv != 0 ||
        ch.paths[1].kept != 20000 || ch.paths[0].dlv_bytes != 20000 ||
        !ch.paths[0].rtt_win[0] || ch.paths[1].rtt_win[0])
        FAIL("reports: rail 0 delivered %zu (%llu), rail 1 %zu; round trip sampled %llu / %llu",
             ch.paths[0].kept_dlv, (unsigned long long)ch.paths[0].dlv_bytes, ch.paths[1].kept_dlv,
             (unsigned long long)ch.paths[0].rtt_win[0], (unsigned long long)ch.paths[1].rtt_win[0]);
    fake_paths[0].rx++, fake_paths[1].rx++;
    ch.paths[1].bw = 1e9; /* as if it had been fast: a busy tick without delivery lowers it */
    rail_health_tick(t + RM_SEC / 100);
    if (!(ch.paths[0].bw > 0) || !(ch.paths[0].rtt > 0) || !(ch.paths[1].bw < 1e9))
        FAIL("reports: rail 0 has a rate (%.0f) and a round trip (%g), rail 1's fell (%.0f)",
             ch.paths[0].bw, ch.paths[0].rtt, ch.paths[1].bw);
    /* rail 1 has delivered nothing yet (it may still be connecting): its
     * figure does not count as measured, or the policy would starve it */
    if (ch.paths[1].proven)
        FAIL("reports: rail 1 counts as measured before it delivered anything");
    /* the same figures: only the backlog differs */
    for (int i = 0; i < 2; i++)
        ch.paths[i].bw = 1e6, ch.paths[i].rtt = 1e-3;
    stripe(&ch, 20, on);
    if (on[0] != 20)
        FAIL("reports: the path still holding its chunks must get none of the next (%d / %d)", on[0], on[1]);
    /* rail 0 delivers those too; rail 1 still nothing, at a trickle: its
     * backlog would take seconds, rail 0 would carry it in milliseconds */
    for (int i = 0; i < nwire[0]; i++)
        deliver_on(&rx, 0, &wire[0][i]);
    nwire[0] = nwire[1] = 0;
    rail_channel_report_out(&rx);
    k = nwire[0] ? 0 : 1;
    rail_channel_recv(&ch, k, &wire[k][0].hdr, wire[k][0].upper, wire[k][0].payload);
    ch.paths[1].bw = 1e4;
    int again = tick_resent(t + RM_SEC / 50, ch.send_seq - 20); /* rail 1's 20 are among the first 40 */
    if (ch.paths[1].kept || again != 20 || !(ch.paths[1].slow_hi > ch.paths[1].dlv_hi) || ch.paths[1].resent != 0 ||
        ch.paths[0].resent != 20)
        FAIL("reports: the slow rail's 20 chunks go again on rail 0 (%d; backlog left %zu, resent %llu)",
             again, ch.paths[1].kept, (unsigned long long)ch.paths[0].resent);
    ch.paths[1].bw = 1e9; /* however fast it looks now: no new chunks before those arrive */
    stripe(&ch, 4, on);
    if (on[1] != 0)
        FAIL("reports: a rail whose chunks went elsewhere takes no new ones until they arrive (%d)", on[1]);
    rail_report_t r1 = {.rail = 1, .hi = ch.paths[1].slow_hi};
    net_frame_hdr_t rh = {.flags = NET_F_REPORT, .len = sizeof r1};
    rail_channel_recv(&ch, 0, &rh, NULL, &r1);
    stripe(&ch, 4, on);
    if (on[1] == 0)
        FAIL("reports: once they arrived, it takes chunks again");
    /* acknowledged frames leave the backlog, reported or not */
    net_frame_hdr_t ack = {.ack = ch.send_seq};
    rail_channel_recv(&ch, 0, &ack, NULL, NULL);
    if (ch.paths[0].kept || ch.paths[0].kept_dlv || ch.paths[1].kept)
        FAIL("reports: after the ack, backlogs %zu / %zu", ch.paths[0].kept, ch.paths[1].kept);
    rail_channel_destroy(&ch);
    rail_channel_destroy(&rx);
    rail_set_deliver(on_deliver);
}

/* A path that delivers nothing at all renews neither its rate nor its round
 * trip (only reports do): its last figures, fast, would hide a backlog
 * queued for seconds behind a slow connection's window. The age of its
 * oldest frame the peer has not reported tells: past half a path timeout,
 * where another path delivers at once, the frames go again there. */
static void test_stuck_path(void)
{
    rail_channel_t ch, rx;
    reporting_pair(&ch, &rx);
    uint64_t t = 5000 * RM_SEC;
    rail_health_tick(t);
    int on[2];
    stripe(&ch, 40, on);
    if (on[0] != 20 || on[1] != 20)
        FAIL("stuck path: %d / %d chunks, expected 20 / 20", on[0], on[1]);
    for (int i = 0; i < nwire[0]; i++)
        deliver_on(&rx, 0, &wire[0][i]);
    nwire[0] = nwire[1] = 0;
    rail_channel_report_out(&rx);
    int k = nwire[0] ? 0 : 1;
    rail_channel_recv(&ch, k, &wire[k][0].hdr, wire[k][0].upper, wire[k][0].payload);
    /* both paths look fast; rail 1's frames went out just now */
    for (int i = 0; i < 2; i++)
        ch.paths[i].bw = 1e9, ch.paths[i].rtt = 1e-4;
    fake_paths[0].rx++, fake_paths[1].rx++;
    nwire[0] = nwire[1] = 0;
    rail_health_tick(t + RM_SEC / 100);
    rail_flush_all(0);
    int moved = 0;
    for (int r = 0; r < 2; r++)
        for (int i = 0; i < nwire[r]; i++)
            moved += wire[r][i].hdr.seq != 0;
    if (ch.paths[1].kept != 20000 || moved)
        FAIL("stuck path: frames out for microseconds on a fast path stay there (backlog %zu, %d sent again)",
             ch.paths[1].kept, moved);
    /* a second later nothing of rail 1's came through, its figures unchanged */
    int old = 0;
    for (rail_frame_t *f = ch.unacked.head; f; f = f->next)
        if (f->path == 1)
            f->sent_at -= RM_SEC, old++;
    if (old != 20)
        FAIL("stuck path: rail 1 keeps its 20 chunks (%d)", old);
    for (int i = 0; i < 2; i++)
        ch.paths[i].bw = 1e9, ch.paths[i].rtt = 1e-4;
    int again = tick_resent(t + RM_SEC / 50, ch.send_seq);
    if (ch.paths[1].kept || again != 20 || !(ch.paths[1].slow_hi > ch.paths[1].dlv_hi))
        FAIL("stuck path: its 20 chunks, a second undelivered, go again on rail 0 (%d; backlog left %zu)", again,
             ch.paths[1].kept);
    net_frame_hdr_t ack = {.ack = ch.send_seq};
    rail_channel_recv(&ch, 0, &ack, NULL, NULL);
    rail_channel_destroy(&ch);
    rail_channel_destroy(&rx);
    rail_set_deliver(on_deliver);
}

int main(void)
{
    fake_rail_setup();
    test_measured_adaptive();
    test_delivery_reports();
    test_stuck_path();
    printf("OK\n");
    return 0;
}
