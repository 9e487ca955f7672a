/* tcp, the receiving side (tcp.c is the rest): frames out of a
 * connection's stream, through its buffer (which grows to TCP_RXBUF only
 * while reads fill it) or, for a large payload, straight into the place the
 * layer above names; the handshake's hello and its answer. */
#include "net/tcp_impl.h"
#include "util/log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

static void tcp_deliver(tcp_conn_t *c, const net_frame_hdr_t *h, const void *upper, const void *payload)
{
    net_path_t *p = c->path;
    p->ifc->env.up.recv(p->owner, p->ifc->rail, h, upper, payload);
}

/* Make the receive buffer hold at least `need` bytes (at most TCP_RXBUF). */
static int tcp_rx_grow(tcp_conn_t *c, size_t need)
{
    size_t cap = c->rx_cap;
    while (cap < need && cap < TCP_RXBUF)
        cap *= 2;
    if (cap > TCP_RXBUF)
        cap = TCP_RXBUF;
    if (cap == c->rx_cap)
        return 0;
    if (c->rx_start) { /* compact first: what is consumed need not move */
        memmove(c->rx, c->rx + c->rx_start, c->rx_end - c->rx_start);
        c->rx_end -= c->rx_start;
        c->rx_start = 0;
    }
    unsigned char *b = realloc(c->rx, cap);
    if (!b)
        return -1;
    c->rx = b;
    c->rx_cap = cap;
    return 0;
}

/* Parse whole frames out of the buffer; start a direct read for a large one. */
static int tcp_parse(tcp_conn_t *c)
{
    int n = 0;
    while (c->state == TC_UP && !c->in_payload) {
        size_t avail = c->rx_end - c->rx_start;
        if (avail < sizeof(net_frame_hdr_t))
            break;
        net_frame_hdr_t h;
        memcpy(&h, c->rx + c->rx_start, sizeof h);
        if (h.hlen > NET_UPPER_MAX || h.len > TCP_MAX_FRAME) {
            tcp_path_fail(c->path, RM_ERR_IO, "malformed frame");
            return n;
        }
        size_t head = sizeof h + h.hlen;
        if (avail >= head + h.len) {
            unsigned char *base = c->rx + c->rx_start;
            c->rx_start += head + h.len;
            if (c->rx_lean && ++c->rx_small >= TCP_LEAN_SMALL)
                c->rx_lean = 0; /* small traffic again: read in bulk */
            tcp_deliver(c, &h, base + sizeof h, base + head);
            n++;
            continue;
        }
        if (avail < head || (h.len < TCP_DIRECT_MIN && head + h.len <= TCP_RXBUF)) {
            if (avail >= head && head + h.len > c->rx_cap && tcp_rx_grow(c, head + h.len) < 0) {
                tcp_path_fail(c->path, RM_ERR_NOMEM, "no memory for a frame");
                return n;
            }
            break; /* wait for more into the buffer */
        }
        /* a large payload: read the rest of it by itself, where the layer
         * above wants it or else into the staging buffer */
        c->hdr = h;
        memcpy(c->upper, c->rx + c->rx_start + sizeof h, h.hlen);
        net_path_t *p = c->path;
        c->dst = p->ifc->env.up.place ? p->ifc->env.up.place(p->owner, p->ifc->rail, &h, c->upper) : NULL;
        if (!c->dst && c->stage_cap < h.len) {
            free(c->stage);
            c->stage = malloc(h.len);
            c->stage_cap = c->stage ? h.len : 0;
            if (!c->stage) {
                tcp_path_fail(c->path, RM_ERR_NOMEM, "no memory for a frame");
                return n;
            }
        }
        if (!c->dst)
            c->dst = c->stage;
        size_t have = avail - head;
        memcpy(c->dst, c->rx + c->rx_start + head, have);
        c->dst_got = have;
        c->rx_start = c->rx_end = 0;
        c->in_payload = 1;
    }
    if (c->rx_start == c->rx_end)
        c->rx_start = c->rx_end = 0;
    return n;
}

/* How much to read into the buffer. In bulk, as a rule; but after a large
 * payload, only up to the end of the next frame's upper header: if that frame
 * is large too, its payload then goes straight to its destination instead of
 * being swept into the buffer and copied out again. A few small frames in a
 * row end this (tcp_parse), since it costs a read per frame. */
static size_t tcp_rx_want(const tcp_conn_t *c)
{
    size_t room = c->rx_cap - c->rx_end, avail = c->rx_end - c->rx_start, want = room;
    if (c->rx_lean) {
        if (avail < sizeof(net_frame_hdr_t)) {
            /* the upper header's length is not known yet: assume the largest */
            want = sizeof(net_frame_hdr_t) + NET_UPPER_MAX - avail;
        } else {
            net_frame_hdr_t h;
            memcpy(&h, c->rx + c->rx_start, sizeof h);
            if (avail < sizeof h + h.hlen)
                want = sizeof h + h.hlen - avail;
        }
    }
    return want < room ? want : room;
}

int tcp_read(tcp_conn_t *c)
{
    int events = 0;
    for (;;) {
        ssize_t n;
        if (c->in_payload) {
            size_t want = c->hdr.len - c->dst_got;
            unsigned char *to = c->dst + c->dst_got;
            if (c->dropping) { /* the receive buffer is empty while a payload is read by itself */
                to = c->rx;
                want = want < c->rx_cap ? want : c->rx_cap;
            }
            n = recv(c->fd, to, want, 0);
            if (n > 0) {
                c->path->rx_bytes += (uint64_t)n;
                c->dst_got += (size_t)n;
                if (c->dst_got == c->hdr.len) {
                    c->in_payload = 0;
                    c->rx_lean = 1; /* large frames tend to follow each other */
                    c->rx_small = 0;
                    if (c->dropping)
                        c->dropping = 0;
                    else
                        tcp_deliver(c, &c->hdr, c->upper, c->dst);
                    events++;
                }
                if ((size_t)n < want)
                    return events; /* drained (see below) */
                continue;
            }
        } else {
            if (c->rx_start && c->rx_end == c->rx_cap) {
                memmove(c->rx, c->rx + c->rx_start, c->rx_end - c->rx_start);
                c->rx_end -= c->rx_start;
                c->rx_start = 0;
            }
            size_t want = tcp_rx_want(c);
            n = recv(c->fd, c->rx + c->rx_end, want, 0);
            if (n > 0) {
                c->path->rx_bytes += (uint64_t)n;
                c->rx_end += (size_t)n;
                /* a read that filled the buffer: the peer sends more than it holds */
                if (c->rx_end == c->rx_cap && c->rx_cap < TCP_RXBUF && tcp_rx_grow(c, c->rx_cap * 2) < 0) {
                    tcp_path_fail(c->path, RM_ERR_NOMEM, "no memory for the receive buffer");
                    return events;
                }
                events += tcp_parse(c);
                /* A short read took all the socket had: asking again would
                 * only cost a syscall returning EAGAIN per message; epoll is
                 * level-triggered and reports what arrives later. */
                if (c->state != TC_UP || (size_t)n < want)
                    return events;
                continue;
            }
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return events;
        /* an orderly end (FIN) comes only from a peer finishing: one that
         * gives up on a connection resets it */
        tcp_path_fail(c->path, n == 0 ? RM_ERR_CLOSED : RM_ERR_CONN_RESET,
                      n == 0 ? "closed by peer" : strerror(errno));
        return events;
    }
}

void tcp_read_handshake(tcp_conn_t *c, size_t want)
{
    while (c->hs_got < want) {
        ssize_t n = recv(c->fd, c->hs + c->hs_got, want - c->hs_got, 0);
        if (n > 0) {
            c->hs_got += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (c->state == TC_HELLO_SENT && c->path)
            tcp_path_fail(c->path, RM_ERR_CONN_RESET, "closed during handshake");
        else
            tcp_conn_close(c);
        return;
    }
    if (c->state == TC_HELLO_WAIT)
        tcp_on_hello(c);
    else
        tcp_on_hello_ack(c);
}
