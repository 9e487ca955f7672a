/* The channel's sequence/ack machinery over a fake lossy transport that can
 * reorder, duplicate and drop frames, and fail a path. */
#include "rail/channel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAIL(...) do { printf("FAIL: " __VA_ARGS__); printf("\n"); exit(1); } while (0)

typedef struct wire_frame {
    net_frame_hdr_t hdr;
    unsigned char upper[NET_UPPER_MAX];
    unsigned char payload[64];
} wire_frame_t;

/* One direction of the fake network: frames in flight on each rail. */
static wire_frame_t wire[2][4096];
static int nwire[2];
static int room = 1 << 30; /* frames the transport accepts before NO_RESOURCE */

struct net_path { int rail; };
static struct net_path fake_paths[2] = {{0}, {1}};

static rm_status_t fake_send(net_path_t *p, const net_frame_hdr_t *hdr, const void *upper,
                             const struct iovec *iov, int iovcnt)
{
    if (room <= 0)
        return RM_ERR_NO_RESOURCE;
    room--;
    wire_frame_t *f = &wire[p->rail][nwire[p->rail]++];
    f->hdr = *hdr;
    memcpy(f->upper, upper, hdr->hlen);
    size_t off = 0;
    for (int i = 0; i < iovcnt; i++) {
        memcpy(f->payload + off, iov[i].iov_base, iov[i].iov_len);
        off += iov[i].iov_len;
    }
    return RM_OK;
}

static void fake_close(net_path_t *p) { (void)p; }

static const net_ops_t fake_ops = {
    .name = "fake",
    .caps = 0, /* lossy: the channel must keep frames until acknowledged */
    .send = fake_send,
    .path_close = fake_close,
};

static int delivered[10000];
static int ndelivered;

static void on_deliver(rail_channel_t *ch, const void *upper, const void *payload, size_t len)
{
    int v;
    memcpy(&v, payload, sizeof v);
    if (len != sizeof v)
        FAIL("payload length %zu", len);
    delivered[ndelivered++] = v;
}

static void deliver(rail_channel_t *rx, wire_frame_t *f)
{
    rail_channel_recv(rx, &f->hdr, f->upper, f->payload);
}

static int sent_calls;
static void on_sent(void *arg) { (void)arg; sent_calls++; }

static void expect_in_order(int n)
{
    if (ndelivered != n)
        FAIL("delivered %d frames, expected %d", ndelivered, n);
    for (int i = 0; i < n; i++)
        if (delivered[i] != i)
            FAIL("frame %d delivered as %d", i, delivered[i]);
}

static int values[10000]; /* payloads must outlive queued frames */

static void send_ints(rail_channel_t *tx, int from, int to)
{
    for (int i = from; i < to; i++) {
        unsigned char hdr[8] = {1};
        values[i] = i;
        rm_status_t st = rail_channel_send(tx, hdr, sizeof hdr, &values[i], sizeof values[i], 0, on_sent, NULL);
        if (st < 0)
            FAIL("send %d: %s", i, rm_status_str(st));
    }
}

int main(void)
{
    rail_channel_t tx, rx;
    rail_set_deliver(on_deliver);
    rail_channel_init(&tx, 1);
    rail_channel_init(&rx, 0);
    rail_channel_add_path(&tx, &fake_ops, NULL, &fake_paths[0], 0);

    /* 1. reordered and duplicated frames are delivered once, in order */
    send_ints(&tx, 0, 100);
    if (nwire[0] != 100)
        FAIL("expected 100 frames on the wire, got %d", nwire[0]);
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
    net_frame_hdr_t ack = {.seq = 0, .ack = 60};
    rail_channel_recv(&tx, &ack, NULL, NULL);
    if (tx.unacked.n != 40 || tx.unacked.head->hdr.seq != 61)
        FAIL("after ack 60 the sender keeps %zu frames from %llu", tx.unacked.n,
             (unsigned long long)(tx.unacked.head ? tx.unacked.head->hdr.seq : 0));
    /* a stale ack changes nothing */
    ack.ack = 10;
    rail_channel_recv(&tx, &ack, NULL, NULL);
    if (tx.unacked.n != 40)
        FAIL("stale ack dropped frames");

    /* 3. a full transport queues frames in order and reports them sent later */
    nwire[0] = 0;
    room = 3;
    sent_calls = 0;
    send_ints(&tx, 100, 110);
    if (nwire[0] != 3 || tx.pending.n != 7)
        FAIL("with room for 3: %d on wire, %zu pending", nwire[0], tx.pending.n);
    room = 1 << 30;
    rail_flush_all(0);
    if (nwire[0] != 10 || tx.pending.n != 0 || sent_calls != 7)
        FAIL("after flush: %d on wire, %zu pending, %d sent callbacks", nwire[0], tx.pending.n,
             sent_calls);
    for (int i = 0; i < 10; i++)
        deliver(&rx, &wire[0][i]);
    expect_in_order(110);

    /* 4. a failed path hands unacknowledged frames to the surviving path */
    rail_channel_add_path(&tx, &fake_ops, NULL, &fake_paths[1], 1);
    nwire[0] = nwire[1] = 0;
    send_ints(&tx, 110, 120); /* all on path 0 (the first UP path) */
    if (nwire[0] != 10)
        FAIL("expected frames on rail 0, got %d/%d", nwire[0], nwire[1]);
    /* rail 0 loses everything: deliver nothing and fail it */
    rail_channel_error(&tx, 0, RM_ERR_CONN_RESET);
    if (tx.paths[0].state != RAIL_PATH_DOWN)
        FAIL("rail 0 not marked down");
    /* frames 61..120 were unacked: all resent on rail 1 */
    if (nwire[1] != 60)
        FAIL("expected 60 frames resent on rail 1, got %d", nwire[1]);
    for (int i = 0; i < nwire[1]; i++)
        deliver(&rx, &wire[1][i]);
    expect_in_order(120);

    /* 5. unordered data chunks are handed up on arrival, once, and still
     *    advance the sequence so later ordered frames flow */
    nwire[1] = 0;
    for (int i = 120; i < 130; i++) {
        unsigned char hdr[8] = {2};
        values[i] = i;
        if (rail_channel_send(&tx, hdr, sizeof hdr, &values[i], sizeof values[i], NET_F_UNORDERED,
                              on_sent, NULL) < 0)
            FAIL("unordered send %d", i);
    }
    send_ints(&tx, 130, 131);
    deliver(&rx, &wire[1][10]); /* the ordered frame first: must wait */
    if (ndelivered != 120)
        FAIL("ordered frame delivered ahead of sequence");
    for (int i = 9; i >= 0; i--) {
        deliver(&rx, &wire[1][i]);
        if (i > 0 && (ndelivered != 120 + 10 - i || delivered[ndelivered - 1] != 120 + i))
            FAIL("unordered frame %d not handed up on arrival", 120 + i);
    }
    deliver(&rx, &wire[1][3]); /* duplicate */
    if (ndelivered != 131 || delivered[130] != 130)
        FAIL("after unordered chunks: %d delivered, last %d", ndelivered, delivered[ndelivered - 1]);
    if (rx.recv_next != 132 || rx.ooo.n != 0)
        FAIL("sequence not advanced past unordered frames (next %llu, %zu queued)",
             (unsigned long long)rx.recv_next, rx.ooo.n);

    /* 6. no path at all: the channel refuses */
    rail_channel_error(&tx, 1, RM_ERR_CONN_RESET);
    int v = 0;
    unsigned char hdr[8] = {1};
    if (rail_channel_send(&tx, hdr, sizeof hdr, &v, sizeof v, 0, NULL, NULL) != RM_ERR_UNREACHABLE)
        FAIL("send without paths did not report UNREACHABLE");

    rail_channel_destroy(&tx);
    rail_channel_destroy(&rx);

    /* 7. one-way traffic: the receiver acknowledges alone, every
     *    RAIL_ACK_EVERY frames and when idle, so the sender's copies go */
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
    rail_flush_all(0); /* a busy progress pass: the ack waits for reverse traffic */
    if (nwire[1] != 1)
        FAIL("an ack went alone from a busy pass (%d frames)", nwire[1]);
    rail_flush_all(1);
    if (nwire[1] != 2 || wire[1][1].hdr.ack != 40)
        FAIL("idle ack missing (%d frames)", nwire[1]);
    for (int i = 0; i < nwire[1]; i++)
        deliver(&a, &wire[1][i]);
    if (a.unacked.n != 0)
        FAIL("sender still keeps %zu frames after the acks", a.unacked.n);
    if (ndelivered != 40)
        FAIL("an ack was delivered as data");
    rail_channel_destroy(&a);
    rail_channel_destroy(&b);
    printf("OK\n");
    return 0;
}
