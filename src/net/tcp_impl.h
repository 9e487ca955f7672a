/* tcp's types and limits, shared by tcp.c (connections, sending, the
 * transport's operations) and tcp_rx.c (receiving). */
#ifndef RAILMPI_NET_TCP_IMPL_H
#define RAILMPI_NET_TCP_IMPL_H

#include "net/net.h"
#include "net/tcp_gone.h"
#include "net/tcp_info.h"

#include <net/if.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#define TCP_MAGIC 0x726d7470u /* "rmtp" */
#define TCP_VERSION 2
#define TCP_MAX_RAILS 16
/* The receive buffer starts small and grows (doubling, up to TCP_RXBUF) only
 * on a connection whose reads fill it: an idle peer costs TCP_RXBUF_MIN. */
#define TCP_RXBUF (256 * 1024)
#define TCP_RXBUF_MIN (16 * 1024)
#define TCP_MAX_FRAME ((uint32_t)1 << 30)
/* A payload at least this large that is not yet whole in the receive buffer
 * is read by itself (placed or staged), not through the buffer. */
#define TCP_DIRECT_MIN (64 * 1024)
/* Small frames in a row that end header-first reading (see tcp_rx_want). */
#define TCP_LEAN_SMALL 4

enum { TCP_HS_OK = 0, TCP_HS_DUPLICATE = 1, TCP_HS_BAD_SECRET = 2, TCP_HS_UNKNOWN_PEER = 3 };
enum { TCP_HELLO_RECOVER = 1 }; /* replaces a connection the sender gave up on */

typedef struct tcp_hello {
    uint32_t magic, version;
    int32_t rank, rail;
    char secret[56];
    uint32_t flags, rsvd;
} tcp_hello_t;

typedef struct tcp_hello_ack {
    uint32_t magic;
    int32_t status;
} tcp_hello_ack_t;

enum tcp_conn_state { TC_CONNECTING, TC_HELLO_SENT, TC_HELLO_WAIT, TC_UP, TC_DEAD };

enum { TCP_EV_LISTEN = 1, TCP_EV_CONN = 2 };

typedef struct tcp_conn {
    int ev_kind; /* TCP_EV_CONN, first member: epoll data points here */
    int fd;
    int state;
    int initiator;
    int recover;            /* initiator: our hello carries TCP_HELLO_RECOVER */
    int orderly;            /* closing at the end of the job: FIN, not reset */
    struct net_path *path;  /* NULL for an accepted connection before its hello */
    struct net_iface *ifc;
    char peer_desc[64];
    /* handshake */
    unsigned char hs[sizeof(tcp_hello_t)];
    size_t hs_got;
    /* receive */
    unsigned char *rx;      /* rx_cap bytes: TCP_RXBUF_MIN .. TCP_RXBUF */
    size_t rx_cap;
    size_t rx_start, rx_end;
    net_frame_hdr_t hdr;    /* frame being received past the buffer */
    unsigned char upper[NET_UPPER_MAX];
    unsigned char *dst;     /* where its payload goes: placed, or `stage` */
    unsigned char *stage;   /* owned staging buffer for large payloads */
    size_t stage_cap, dst_got;
    int in_payload;
    int dropping;           /* its place was withdrawn (tcp_unplace): read into rx, hand nothing up */
    int rx_lean;            /* read only up to the next upper header (after a large payload) */
    int rx_small;           /* small frames parsed since lean reading began */
    int watched, watch_out; /* in the epoll set; with EPOLLOUT */
    tcp_rate_t rate;        /* the kernel's counters at the last rate sample */
    struct tcp_conn *next;
} tcp_conn_t;

struct net_path {
    void *owner;
    int peer;
    struct net_iface *ifc;
    struct sockaddr_in addr;
    tcp_conn_t *conn;       /* the connection in use or being set up */
    /* bytes accepted from the rail layer but not yet taken by the socket;
     * always whole frames until the connection is UP */
    unsigned char *txq;
    size_t txq_off, txq_len, txq_cap;
    int failed;             /* the connection broke; only reconnect() makes a new one */
    int frank;              /* a process of another job: its rank there, else -1 */
    char fsecret[56];       /* and its job's secret */
    uint64_t rx_bytes;      /* liveness for the rail layer's heartbeats */
    /* bursts of small frames (tcp_send): when the last direct send returned,
     * and whether txq holds frames kept back on purpose (on tcp_held) */
    uint64_t sent_at; /* rm_ticks */
    int held;
    struct net_path *held_next;
    tcp_gone_t gone;        /* peer_gone: whether the peer's listener refuses */
};

struct net_iface {
    int ev_kind; /* TCP_EV_LISTEN */
    net_env_t env;
    int rail;
    char ifname[IF_NAMESIZE];
    char desc[IF_NAMESIZE + 24]; /* "rail0 198.18.10.0/24" */
    struct in_addr ip;
    int prefix;
    int lfd;
    net_path_t **peers;     /* by process index (world rank, then other jobs') */
    int npeers;
    tcp_conn_t *conns;
};

/* tcp.c, for tcp_rx.c */
void tcp_conn_close(tcp_conn_t *c);
void tcp_path_fail(net_path_t *p, rm_status_t why, const char *what);
void tcp_on_hello(tcp_conn_t *c);
void tcp_on_hello_ack(tcp_conn_t *c);
/* tcp_rx.c, for tcp.c */
int tcp_read(tcp_conn_t *c);
void tcp_read_handshake(tcp_conn_t *c, size_t want);

#endif
