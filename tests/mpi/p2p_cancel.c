/* ranks: 1 2 4 */
/* Cancelling sends (MPI-3.1 3.8.4): a send nobody has matched is withdrawn
 * from the receiver — MPI_Test_cancelled is true and the message is never
 * delivered; a buffered send gives its buffer space back. A send already
 * matched completes normally and reports not cancelled. Pairs (0,1), (2,3);
 * a single rank plays both sides with itself. Standard, synchronous,
 * buffered and persistent sends, eager and rendezvous sizes. */
#include <mpi.h>

#include "check.h"
#include <stdlib.h>
#include <string.h>

static int rank, size;

#define BIG (1 << 20) /* well above the eager limit */
#define NTAGS 12

static unsigned char pat(long i, int seed) { return (unsigned char)(i * 13 + seed * 7 + (i >> 8)); }

static void fill(unsigned char *b, long n, int seed)
{
    for (long i = 0; i < n; i++)
        b[i] = pat(i, seed);
}

static void verify(const unsigned char *b, long n, int seed, const char *what)
{
    for (long i = 0; i < n; i++)
        CHECK(b[i] == pat(i, seed), "%s: byte %ld of %ld", what, i, n);
}

static void expect_cancelled(MPI_Request *q, int want, const char *what)
{
    MPI_Request h = *q;
    MPI_Status s;
    MPI_Cancel(q);
    MPI_Wait(q, &s);
    int flag = -1;
    MPI_Test_cancelled(&s, &flag);
    CHECK(flag == want, "%s: Test_cancelled %d, expected %d", what, flag, want);
    if (*q != MPI_REQUEST_NULL) { /* persistent: Wait leaves it inactive */
        CHECK(*q == h, "%s: handle changed", what);
        MPI_Request_free(q);
    }
}

/* Tag k carries a message of len(k) bytes. The first message on each tag is
 * cancelled; the second (seed 2) must be what the receiver gets. */
static long len(int k) { return k % 2 ? BIG : 64; }

static unsigned char *sbuf[NTAGS], *rbuf;

/* The sender cancels one unmatched send of every kind, then sends the
 * replacements and a "done" message. Never waits for the receiver. */
static void sender_cancels(int peer, MPI_Request *repl)
{
    MPI_Request q;
    for (int k = 0; k < NTAGS; k++) {
        sbuf[k] = malloc(BIG);
        fill(sbuf[k], len(k), 1);
    }
    MPI_Isend(sbuf[0], (int)len(0), MPI_BYTE, peer, 0, MPI_COMM_WORLD, &q);
    expect_cancelled(&q, 1, "Isend eager");
    MPI_Isend(sbuf[1], (int)len(1), MPI_BYTE, peer, 1, MPI_COMM_WORLD, &q);
    expect_cancelled(&q, 1, "Isend rendezvous");
    MPI_Issend(sbuf[2], (int)len(2), MPI_BYTE, peer, 2, MPI_COMM_WORLD, &q);
    expect_cancelled(&q, 1, "Issend eager");
    MPI_Issend(sbuf[3], (int)len(3), MPI_BYTE, peer, 3, MPI_COMM_WORLD, &q);
    expect_cancelled(&q, 1, "Issend rendezvous");

    /* buffered: the space comes back (detach would wait forever otherwise,
     * and the buffer only holds one big message) */
    int need;
    MPI_Pack_size(BIG, MPI_BYTE, MPI_COMM_WORLD, &need);
    int bsize = need + MPI_BSEND_OVERHEAD;
    char *bbuf = malloc((size_t)bsize);
    void *back;
    int bsz;
    for (int k = 4; k <= 5; k++) {
        MPI_Buffer_attach(bbuf, bsize);
        MPI_Ibsend(sbuf[k], (int)len(k), MPI_BYTE, peer, k, MPI_COMM_WORLD, &q);
        expect_cancelled(&q, 1, k == 4 ? "Ibsend eager" : "Ibsend rendezvous");
        MPI_Buffer_detach(&back, &bsz);
        CHECK(back == bbuf && bsz == bsize, "Buffer_detach gave %p/%d", back, bsz);
    }
    MPI_Request p;
    MPI_Buffer_attach(bbuf, bsize);
    for (int k = 6; k <= 7; k++) {
        MPI_Bsend_init(sbuf[k], (int)len(k), MPI_BYTE, peer, k, MPI_COMM_WORLD, &p);
        MPI_Start(&p);
        expect_cancelled(&p, 1, "Bsend_init");
    }

    /* persistent standard and synchronous sends */
    for (int k = 8; k <= 11; k++) {
        if (k < 10)
            MPI_Send_init(sbuf[k], (int)len(k), MPI_BYTE, peer, k, MPI_COMM_WORLD, &p);
        else
            MPI_Ssend_init(sbuf[k], (int)len(k), MPI_BYTE, peer, k, MPI_COMM_WORLD, &p);
        MPI_Start(&p);
        MPI_Status s;
        MPI_Cancel(&p);
        MPI_Wait(&p, &s);
        int flag = 0;
        MPI_Test_cancelled(&s, &flag);
        CHECK(flag, "persistent send on tag %d not cancelled", k);
        CHECK(p != MPI_REQUEST_NULL, "persistent request freed by Wait");
        MPI_Request_free(&p);
    }

    /* a persistent send's earlier round, complete but not yet received,
     * stays; only the round cancelled goes (both carry the same request) */
    static unsigned char round[1][64];
    MPI_Send_init(round[0], 64, MPI_BYTE, peer, 12, MPI_COMM_WORLD, &p);
    fill(round[0], 64, 2);
    MPI_Start(&p);
    MPI_Wait(&p, MPI_STATUS_IGNORE);
    fill(round[0], 64, 5);
    MPI_Start(&p);
    MPI_Status ps;
    MPI_Cancel(&p);
    MPI_Wait(&p, &ps);
    int pflag = 0;
    MPI_Test_cancelled(&ps, &pflag);
    CHECK(pflag, "second round of a persistent send not cancelled");
    MPI_Request_free(&p);

    /* the replacements; the big buffered one needs the whole buffer again */
    for (int k = 0; k < NTAGS; k++)
        fill(sbuf[k], len(k), 2);
    for (int k = 0; k < NTAGS; k++) {
        if (k == 5)
            MPI_Ibsend(sbuf[k], (int)len(k), MPI_BYTE, peer, k, MPI_COMM_WORLD, &repl[k]);
        else
            MPI_Isend(sbuf[k], (int)len(k), MPI_BYTE, peer, k, MPI_COMM_WORLD, &repl[k]);
    }
    /* a send whose receive is never posted: withdrawn for good */
    MPI_Isend(sbuf[0], 8, MPI_BYTE, peer, 99, MPI_COMM_WORLD, &q);
    expect_cancelled(&q, 1, "Isend never received");
    MPI_Send(NULL, 0, MPI_BYTE, peer, 100, MPI_COMM_WORLD);
    (void)bbuf;
}

static void sender_finish(MPI_Request *repl)
{
    MPI_Waitall(NTAGS, repl, MPI_STATUSES_IGNORE);
    void *back;
    int bsz;
    MPI_Buffer_detach(&back, &bsz);
    free(back);
    for (int k = 0; k < NTAGS; k++)
        free(sbuf[k]);
}

/* The receiver gets exactly the replacements, and nothing else is left. */
static void receiver_checks(int peer)
{
    MPI_Recv(NULL, 0, MPI_BYTE, peer, 100, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int k = 0; k < NTAGS; k++) {
        MPI_Status s;
        memset(rbuf, 0, BIG);
        MPI_Recv(rbuf, BIG, MPI_BYTE, peer, k, MPI_COMM_WORLD, &s);
        int n;
        MPI_Get_count(&s, MPI_BYTE, &n);
        CHECK(n == len(k), "tag %d: got %d bytes, expected %ld (a cancelled message delivered?)", k, n,
              len(k));
        verify(rbuf, len(k), 2, "replacement");
    }
    MPI_Recv(rbuf, BIG, MPI_BYTE, peer, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    verify(rbuf, 64, 2, "persistent send's first round");
}

static void receiver_nothing_left(int peer)
{
    /* tag by tag: the last phase's sends (tags 400, 401) may race ahead */
    static const int tags[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 99, 100, 199, 200, 201};
    for (unsigned i = 0; i < sizeof tags / sizeof tags[0]; i++) {
        int flag;
        MPI_Iprobe(peer, tags[i], MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        CHECK(!flag, "a cancelled message (tag %d) is still receivable", tags[i]);
    }
}

/* Receives posted before the send: the send is matched and completes. */
static void matched(int peer, int sender, int receiver)
{
    MPI_Request rq[2], q;
    static unsigned char small[64];
    if (receiver) {
        MPI_Irecv(small, 64, MPI_BYTE, peer, 200, MPI_COMM_WORLD, &rq[0]);
        MPI_Irecv(rbuf, BIG, MPI_BYTE, peer, 201, MPI_COMM_WORLD, &rq[1]);
        MPI_Send(NULL, 0, MPI_BYTE, peer, 199, MPI_COMM_WORLD);
    }
    if (sender) {
        unsigned char *b = malloc(BIG);
        fill(b, BIG, 3);
        MPI_Recv(NULL, 0, MPI_BYTE, peer, 199, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Request p;
        MPI_Rsend_init(b, 64, MPI_BYTE, peer, 200, MPI_COMM_WORLD, &p);
        MPI_Start(&p);
        MPI_Isend(b, BIG, MPI_BYTE, peer, 201, MPI_COMM_WORLD, &q);
        if (peer == rank) { /* alone: both sides are here */
            MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
            receiver = 0;
        }
        expect_cancelled(&p, 0, "matched Rsend_init");
        expect_cancelled(&q, 0, "matched Isend rendezvous");
        free(b);
    }
    if (receiver)
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    if (receiver || peer == rank) {
        verify(small, 64, 3, "matched eager");
        verify(rbuf, BIG, 3, "matched rendezvous");
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int peer = (rank ^ 1) < size ? rank ^ 1 : rank;
    int sender = rank <= peer, receiver = rank >= peer;
    rbuf = malloc(BIG);
    MPI_Request repl[NTAGS];

    /* a cancelled receive (and a persistent one) */
    MPI_Request q;
    MPI_Irecv(rbuf, 1, MPI_BYTE, peer, 300, MPI_COMM_WORLD, &q);
    expect_cancelled(&q, 1, "Irecv");
    MPI_Recv_init(rbuf, 1, MPI_BYTE, peer, 300, MPI_COMM_WORLD, &q);
    MPI_Start(&q);
    MPI_Status s;
    MPI_Cancel(&q);
    MPI_Wait(&q, &s);
    int flag;
    MPI_Test_cancelled(&s, &flag);
    CHECK(flag, "persistent receive not cancelled");
    MPI_Request_free(&q);

    if (sender)
        sender_cancels(peer, repl);
    if (receiver)
        receiver_checks(peer);
    if (sender)
        sender_finish(repl);
    MPI_Barrier(MPI_COMM_WORLD);
    if (receiver)
        receiver_nothing_left(peer);
    matched(peer, sender, receiver);
    MPI_Barrier(MPI_COMM_WORLD);
    if (receiver)
        receiver_nothing_left(peer);
    /* the receiver goes straight to MPI_Finalize and never posts: its
     * finalize answers the cancels, and nobody hangs */
    if (sender && peer != rank) {
        MPI_Request last[2];
        MPI_Isend(rbuf, 64, MPI_BYTE, peer, 400, MPI_COMM_WORLD, &last[0]);
        MPI_Isend(rbuf, BIG, MPI_BYTE, peer, 401, MPI_COMM_WORLD, &last[1]);
        expect_cancelled(&last[0], 1, "Isend eager, receiver in MPI_Finalize");
        expect_cancelled(&last[1], 1, "Isend rendezvous, receiver in MPI_Finalize");
    }
    free(rbuf);
    if (rank == 0)
        printf("p2p_cancel: OK\n");
    MPI_Finalize();
    return 0;
}
