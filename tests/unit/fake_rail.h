/* The fake transport the rail layer's unit tests run the channel over
 * (test_channel.c, test_rail_measure.c): two rails whose frames wait "on the
 * wire" until the test delivers, reorders or drops them, paths that fail and
 * reconnect on request, and a clock the test sets. */
#ifndef RAILMPI_TEST_FAKE_RAIL_H
#define RAILMPI_TEST_FAKE_RAIL_H

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

#define RM_UNUSED __attribute__((unused))

#define FAIL(...) do { printf("FAIL: " __VA_ARGS__); printf("\n"); exit(1); } while (0)

typedef struct wire_frame {
    net_frame_hdr_t hdr;
    unsigned char upper[NET_UPPER_MAX];
    unsigned char payload[64];
} wire_frame_t;

/* One direction of the fake network: frames in flight on each rail. */
static RM_UNUSED wire_frame_t wire[2][4096];
static RM_UNUSED int nwire[2];
static RM_UNUSED int room = 1 << 30; /* frames the transport accepts before NO_RESOURCE */

struct net_path {
    int rail;
    uint64_t rx;     /* bytes "received": the liveness counter */
    int resets, reconnects;
    int acking;      /* the peer's "kernel" acknowledges what is sent (net_acks) */
    int resending;   /* ... but a retransmission timeout is pending */
    uint64_t acked;
};
static RM_UNUSED struct net_path fake_paths[2] = {{.rail = 0}, {.rail = 1}};

static RM_UNUSED rm_status_t fake_send(net_path_t *p, const net_frame_hdr_t *hdr, const void *upper,
                             const struct iovec *iov, int iovcnt)
{
    if (room <= 0)
        return RM_ERR_NO_RESOURCE;
    room--;
    if (p->acking)
        p->acked += 1;
    wire_frame_t *f = &wire[p->rail][nwire[p->rail]++];
    f->hdr = *hdr;
    memcpy(f->upper, upper, hdr->hlen);
    size_t off = 0;
    for (int i = 0; i < iovcnt; i++) {
        size_t n = iov[i].iov_len < sizeof f->payload - off ? iov[i].iov_len : sizeof f->payload - off;
        memcpy(f->payload + off, iov[i].iov_base, n);
        off += n;
    }
    return RM_OK;
}

static RM_UNUSED void fake_close(net_path_t *p) { (void)p; }
static RM_UNUSED uint64_t fake_rx(net_path_t *p) { return p->rx; }
static RM_UNUSED void fake_reset(net_path_t *p) { p->resets++; }
static RM_UNUSED rm_status_t fake_reconnect(net_path_t *p) { p->reconnects++; return RM_OK; }

static RM_UNUSED const net_ops_t fake_ops = {
    .name = "fake",
    .caps = 0, /* lossy: the channel must keep frames until acknowledged */
    .send = fake_send,
    .path_close = fake_close,
    .rx_bytes = fake_rx,
    .path_reset = fake_reset,
    .reconnect = fake_reconnect,
};

static RM_UNUSED int delivered[10000];
static RM_UNUSED int ndelivered;

static RM_UNUSED void on_deliver(rail_channel_t *ch, const void *upper, const void *payload, size_t len)
{
    int v;
    memcpy(&v, payload, sizeof v);
    if (len != sizeof v)
        FAIL("payload length %zu", len);
    delivered[ndelivered++] = v;
}

static RM_UNUSED int failed_calls;
static RM_UNUSED rm_status_t failed_why;
static RM_UNUSED void on_failed(rail_channel_t *ch, rm_status_t why)
{
    (void)ch;
    failed_calls++;
    failed_why = why;
}

static RM_UNUSED void deliver(rail_channel_t *rx, wire_frame_t *f)
{
    rail_channel_recv(rx, f->hdr.flags & NET_F_UNORDERED ? 1 : 0, &f->hdr, f->upper, f->payload);
}

static RM_UNUSED void deliver_on(rail_channel_t *rx, int rail, wire_frame_t *f)
{
    rail_channel_recv(rx, rail, &f->hdr, f->upper, f->payload);
}

static RM_UNUSED uint64_t fake_now;
static RM_UNUSED uint64_t fake_clock(void) { return fake_now; }

static RM_UNUSED int sent_calls, sent_errors;
static RM_UNUSED void on_sent(void *arg, rm_status_t st)
{
    (void)arg;
    sent_calls++;
    sent_errors += st < 0;
}

static RM_UNUSED void expect_in_order(int n)
{
    if (ndelivered != n)
        FAIL("delivered %d frames, expected %d", ndelivered, n);
    for (int i = 0; i < n; i++)
        if (delivered[i] != i)
            FAIL("frame %d delivered as %d", i, delivered[i]);
}

static RM_UNUSED int values[10000]; /* payloads must outlive queued frames */

static RM_UNUSED void send_ints(rail_channel_t *tx, int from, int to)
{
    for (int i = from; i < to; i++) {
        unsigned char hdr[8] = {1};
        values[i] = i;
        rm_status_t st = rail_channel_send(tx, hdr, sizeof hdr, &values[i], sizeof values[i], 0, on_sent, NULL);
        if (st < 0)
            FAIL("send %d: %s", i, rm_status_str(st));
    }
}

static RM_UNUSED void ack_to(rail_channel_t *tx, uint64_t n)
{
    net_frame_hdr_t ack = {.seq = 0, .ack = n};
    rail_channel_recv(tx, 0, &ack, NULL, NULL);
}

static RM_UNUSED int count_flag(int rail, uint16_t flag)
{
    int n = 0;
    for (int i = 0; i < nwire[rail]; i++)
        n += wire[rail][i].hdr.seq == 0 && (flag ? (wire[rail][i].hdr.flags & flag) != 0
                                                 : wire[rail][i].hdr.flags == 0);
    return n;
}

/* A channel to rank 0 (we are rank 1) over two fresh fake paths, adaptive. */
static RM_UNUSED void adaptive_pair(rail_channel_t *ch, const net_ops_t *ops)
{
    rail_configure(RAIL_POLICY_ADAPTIVE, 0, NULL, 0, 1);
    rail_channel_init(ch, 0);
    rail_health_setup(1);
    fake_paths[0] = (struct net_path){.rail = 0};
    fake_paths[1] = (struct net_path){.rail = 1};
    rail_channel_add_path(ch, ops, NULL, &fake_paths[0], 0);
    rail_channel_add_path(ch, ops, NULL, &fake_paths[1], 1);
}

/* A test program's start: the configuration, the upcalls above, the
 * adaptive policy */
static RM_UNUSED void fake_rail_setup(void)
{
    if (rm_config_load() != RM_OK)
        FAIL("config");
    rail_set_deliver(on_deliver);
    rail_set_failed(on_failed);
    rail_configure(RAIL_POLICY_ADAPTIVE, 0, NULL, 0, 1);
}

#endif
