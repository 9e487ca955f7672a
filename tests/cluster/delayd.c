/* delayd: hold every Ethernet frame between two interfaces for a fixed
 * time, in both directions. It stands in for `tc netem delay` on kernels
 * without sch_netem: vcluster.sh's `delay` command takes a host's link off
 * its rail's switch and puts delayd between them. Frames beyond what the
 * queue holds are dropped, as a full router queue would.
 *
 *   delayd IF_A IF_B DELAY_MS
 *
 * The interfaces must have segmentation and checksum offloads off (frames
 * are then whole and at most the MTU). Ends on SIGTERM or SIGINT. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define SLOTS 16384 /* frames in flight per direction */
#define FRAME_MAX 9216

typedef struct slot {
    uint64_t due; /* ns */
    uint32_t len;
    unsigned char data[FRAME_MAX];
} slot_t;

typedef struct queue {
    slot_t *slot;
    size_t head, tail; /* head: next to send; tail: next free */
    uint64_t dropped;
} queue_t;

static volatile sig_atomic_t stop;
static void on_signal(int sig) { (void)sig; stop = 1; }

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int open_if(const char *name)
{
    int idx = (int)if_nametoindex(name);
    if (!idx) {
        fprintf(stderr, "delayd: no interface %s\n", name);
        return -1;
    }
    int fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK, htons(ETH_P_ALL));
    if (fd < 0) {
        perror("delayd: packet socket");
        return -1;
    }
    struct sockaddr_ll a = {.sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL), .sll_ifindex = idx};
    struct packet_mreq m = {.mr_ifindex = idx, .mr_type = PACKET_MR_PROMISC};
    int big = 8 << 20;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0 ||
        setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &m, sizeof m) < 0) {
        fprintf(stderr, "delayd: %s: %s\n", name, strerror(errno));
        close(fd);
        return -1;
    }
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
    return fd;
}

/* Take every frame that arrived on `in` into q, due `delay` from now. */
static void take(int in, queue_t *q, uint64_t delay)
{
    for (;;) {
        size_t next = (q->tail + 1) % SLOTS;
        static unsigned char sink[65536];
        slot_t *s = next == q->head ? NULL : &q->slot[q->tail];
        struct sockaddr_ll from;
        socklen_t fl = sizeof from;
        ssize_t n = recvfrom(in, s ? s->data : sink, s ? FRAME_MAX : sizeof sink, MSG_TRUNC,
                             (struct sockaddr *)&from, &fl);
        if (n < 0)
            return; /* EAGAIN: all taken */
        if (from.sll_pkttype == PACKET_OUTGOING)
            continue; /* our own sends, seen again */
        if (!s || n > FRAME_MAX) {
            q->dropped++;
            continue;
        }
        s->len = (uint32_t)n;
        s->due = now_ns() + delay;
        q->tail = next;
    }
}

/* Send what is due from q on `out`; returns ns until the next frame is due. */
static int64_t give(int out, queue_t *q)
{
    uint64_t t = now_ns();
    while (q->head != q->tail) {
        slot_t *s = &q->slot[q->head];
        if (s->due > t)
            return (int64_t)(s->due - t);
        if (send(out, s->data, s->len, 0) < 0 && (errno == EAGAIN || errno == ENOBUFS))
            return 100000; /* the interface is busy: try again shortly */
        q->head = (q->head + 1) % SLOTS;
    }
    return -1;
}

int main(int argc, char **argv)
{
    if (argc != 4 || atoi(argv[3]) < 0) {
        fprintf(stderr, "usage: delayd IF_A IF_B DELAY_MS\n");
        return 2;
    }
    uint64_t delay = (uint64_t)atoi(argv[3]) * 1000000u;
    int fd[2] = {open_if(argv[1]), open_if(argv[2])};
    if (fd[0] < 0 || fd[1] < 0)
        return 1;
    queue_t q[2] = {{.slot = calloc(SLOTS, sizeof(slot_t))}, {.slot = calloc(SLOTS, sizeof(slot_t))}};
    if (!q[0].slot || !q[1].slot) {
        fprintf(stderr, "delayd: out of memory\n");
        return 1;
    }
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    /* q[0]: from A, sent on B; q[1]: from B, sent on A */
    while (!stop) {
        int64_t w0 = give(fd[1], &q[0]), w1 = give(fd[0], &q[1]);
        int64_t w = w0 < 0 ? w1 : w1 < 0 ? w0 : (w0 < w1 ? w0 : w1);
        int ms = w < 0 ? 100 : (int)((w + 999999) / 1000000);
        struct pollfd pf[2] = {{.fd = fd[0], .events = POLLIN}, {.fd = fd[1], .events = POLLIN}};
        if (poll(pf, 2, ms) < 0 && errno != EINTR)
            break;
        if (pf[0].revents & POLLIN)
            take(fd[0], &q[0], delay);
        if (pf[1].revents & POLLIN)
            take(fd[1], &q[1], delay);
    }
    if (q[0].dropped || q[1].dropped)
        fprintf(stderr, "delayd: dropped %llu + %llu frames (queue full)\n", (unsigned long long)q[0].dropped,
                (unsigned long long)q[1].dropped);
    return 0;
}
