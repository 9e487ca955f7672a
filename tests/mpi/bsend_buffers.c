/* ranks: 2 */
/* MPI-4.1 buffered-send buffers (3.6): a buffered send on a communicator uses
 * the buffer attached to it (MPI_Comm_attach_buffer) in preference to the
 * process's (MPI_Buffer_attach); MPI_BUFFER_AUTOMATIC allocates as needed;
 * flush and iflush wait for the buffer's messages; detach waits for them;
 * bad input gets MPI_ERR_BUFFER, MPI_ERR_COMM or MPI_ERR_ARG. Ranks 0 and 1
 * send to each other; BIG is above the eager limit, so a large buffered
 * message sits in its buffer until the receiver matches it. */
#include <mpi.h>

#include "check.h"
#include <stdlib.h>
#include <string.h>

static int rank, peer;

#define BIG (1 << 20)
#define SMALL 4096
#define NAUTO 24

static unsigned char pat(long i, int seed) { return (unsigned char)(i * 31 + seed * 5 + (i >> 9)); }

static void fill(unsigned char *b, long n, int seed)
{
    for (long i = 0; i < n; i++)
        b[i] = pat(i, seed);
}

static void verify(const unsigned char *b, long n, int seed, const char *what)
{
    for (long i = 0; i < n; i++)
        CHECK(b[i] == pat(i, seed), "%s: byte %ld of %ld is %d", what, i, n, b[i]);
}

static int cls_of(int rc)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

static void expect_class(int rc, int want, const char *what)
{
    CHECK(rc != MPI_SUCCESS && cls_of(rc) == want, "%s: rc %d class %d, wanted class %d", what,
          rc, rc == MPI_SUCCESS ? 0 : cls_of(rc), want);
}

/* Send SMALL bytes buffered on comm to the peer and receive the peer's. */
static void exchange(MPI_Comm comm, int seed)
{
    unsigned char *s = malloc(SMALL), *r = malloc(SMALL);
    fill(s, SMALL, seed + rank);
    CHECK(MPI_Bsend(s, SMALL, MPI_BYTE, peer, 7, comm) == MPI_SUCCESS, "Bsend of %d", SMALL);
    memset(s, 0, SMALL); /* the message was copied out */
    MPI_Recv(r, SMALL, MPI_BYTE, peer, 7, comm, MPI_STATUS_IGNORE);
    verify(r, SMALL, seed + peer, "exchange");
    free(s);
    free(r);
}

/* The communicator's buffer is the one used: a process buffer too small
 * with a comm buffer large enough works, and the other way round fails. */
static void comm_over_process(MPI_Comm dup)
{
    int psize = 64 + MPI_BSEND_OVERHEAD, csize = 2 * (SMALL + MPI_BSEND_OVERHEAD);
    char *pbuf = malloc(psize), *cbuf = malloc(csize);
    unsigned char *s = calloc(1, SMALL);
    MPI_Buffer_attach(pbuf, psize);
    CHECK(MPI_Comm_attach_buffer(dup, cbuf, csize) == MPI_SUCCESS, "Comm_attach_buffer");
    exchange(dup, 1);
    expect_class(MPI_Bsend(s, SMALL, MPI_BYTE, peer, 8, MPI_COMM_WORLD), MPI_ERR_BUFFER,
                 "Bsend on world with a small process buffer");
    void *back;
    int bsz;
    CHECK(MPI_Comm_detach_buffer(dup, &back, &bsz) == MPI_SUCCESS, "Comm_detach_buffer");
    CHECK(back == cbuf && bsz == csize, "Comm_detach_buffer gave %p/%d", back, bsz);
    /* with no comm buffer, dup falls back on the small process buffer */
    expect_class(MPI_Bsend(s, SMALL, MPI_BYTE, peer, 8, dup), MPI_ERR_BUFFER,
                 "Bsend on dup after its buffer was detached");
    CHECK(MPI_Buffer_detach(&back, &bsz) == MPI_SUCCESS, "Buffer_detach");
    CHECK(back == pbuf && bsz == psize, "Buffer_detach gave %p/%d", back, bsz);

    /* vice versa: a large process buffer does not rescue a small comm buffer */
    MPI_Buffer_attach(cbuf, csize);
    MPI_Comm_attach_buffer(dup, pbuf, psize);
    expect_class(MPI_Bsend(s, SMALL, MPI_BYTE, peer, 8, dup), MPI_ERR_BUFFER,
                 "Bsend on dup with a small comm buffer");
    exchange(MPI_COMM_WORLD, 2);
    MPI_Comm_detach_buffer(dup, &back, &bsz);
    CHECK(back == pbuf && bsz == psize, "Comm_detach_buffer gave %p/%d", back, bsz);
    MPI_Buffer_detach(&back, &bsz);
    free(pbuf);
    free(cbuf);
    free(s);
}

/* MPI_BUFFER_AUTOMATIC: many large messages at once, all delivered. */
static void automatic(MPI_Comm dup, int process_level)
{
    MPI_Comm comm = process_level ? MPI_COMM_WORLD : dup;
    if (process_level)
        CHECK(MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0) == MPI_SUCCESS, "attach automatic");
    else
        CHECK(MPI_Comm_attach_buffer(dup, MPI_BUFFER_AUTOMATIC, 0) == MPI_SUCCESS,
              "Comm_attach_buffer automatic");
    unsigned char *s = malloc(BIG), *r = malloc(BIG);
    for (int i = 0; i < NAUTO; i++) {
        fill(s, BIG, 100 + i + rank);
        CHECK(MPI_Bsend(s, BIG, MPI_BYTE, peer, 20 + i, comm) == MPI_SUCCESS, "auto Bsend %d", i);
    }
    memset(s, 0, BIG);
    MPI_Barrier(comm); /* every message is still buffered: none was received */
    for (int i = 0; i < NAUTO; i++) {
        MPI_Recv(r, BIG, MPI_BYTE, peer, 20 + i, comm, MPI_STATUS_IGNORE);
        verify(r, BIG, 100 + i + peer, "automatic");
    }
    void *back = NULL;
    int bsz = -1;
    if (process_level)
        CHECK(MPI_Buffer_detach(&back, &bsz) == MPI_SUCCESS, "detach automatic");
    else
        CHECK(MPI_Comm_detach_buffer(dup, &back, &bsz) == MPI_SUCCESS, "detach automatic");
    CHECK(back == MPI_BUFFER_AUTOMATIC && bsz == 0, "detach automatic gave %p/%d", back, bsz);
    free(s);
    free(r);
}

/* Rank 0 buffers a large message; rank 1 receives it only once told to.
 * how: 0 flush, 1 iflush, 2 detach straight away (waits itself). After each,
 * rank 0 overwrites its buffer: the message was out already. */
static void flush_case(MPI_Comm dup, int how)
{
    int bsize = BIG + MPI_BSEND_OVERHEAD;
    unsigned char *buf = malloc(bsize), *data = malloc(BIG);
    if (rank == 0) {
        MPI_Comm_attach_buffer(dup, buf, bsize);
        fill(data, BIG, 40 + how);
        MPI_Bsend(data, BIG, MPI_BYTE, 1, 30, dup);
        if (how == 1) {
            MPI_Request q;
            CHECK(MPI_Comm_iflush_buffer(dup, &q) == MPI_SUCCESS, "Comm_iflush_buffer");
            int flag = 1;
            MPI_Test(&q, &flag, MPI_STATUS_IGNORE);
            CHECK(!flag, "iflush complete before the receiver matched");
            MPI_Send(NULL, 0, MPI_BYTE, 1, 31, dup); /* go */
            MPI_Wait(&q, MPI_STATUS_IGNORE);
            CHECK(q == MPI_REQUEST_NULL, "iflush request not freed");
        } else {
            MPI_Send(NULL, 0, MPI_BYTE, 1, 31, dup);
            if (how == 0)
                CHECK(MPI_Comm_flush_buffer(dup) == MPI_SUCCESS, "Comm_flush_buffer");
        }
        if (how != 2) {
            /* nothing left: an iflush now completes at once */
            MPI_Request q;
            int flag = 0;
            MPI_Comm_iflush_buffer(dup, &q);
            MPI_Test(&q, &flag, MPI_STATUS_IGNORE);
            CHECK(flag, "iflush of an empty buffer not complete at once");
        }
        void *back;
        int bsz;
        MPI_Comm_detach_buffer(dup, &back, &bsz);
        CHECK(back == buf && bsz == bsize, "detach gave %p/%d", back, bsz);
        memset(buf, 0, bsize);
    } else {
        MPI_Recv(NULL, 0, MPI_BYTE, 0, 31, dup, MPI_STATUS_IGNORE);
        MPI_Recv(data, BIG, MPI_BYTE, 0, 30, dup, MPI_STATUS_IGNORE);
        verify(data, BIG, 40 + how, "flushed message");
    }
    MPI_Barrier(dup);
    free(buf);
    free(data);
}

/* Process-level flush and iflush on the process buffer. */
static void process_flush(void)
{
    int bsize = BIG + MPI_BSEND_OVERHEAD;
    unsigned char *buf = malloc(bsize), *data = malloc(BIG);
    if (rank == 0) {
        MPI_Buffer_attach(buf, bsize);
        fill(data, BIG, 60);
        MPI_Bsend(data, BIG, MPI_BYTE, 1, 50, MPI_COMM_WORLD);
        MPI_Request q;
        CHECK(MPI_Buffer_iflush(&q) == MPI_SUCCESS, "Buffer_iflush");
        int flag = 1;
        MPI_Test(&q, &flag, MPI_STATUS_IGNORE);
        CHECK(!flag, "Buffer_iflush complete before the receiver matched");
        MPI_Send(NULL, 0, MPI_BYTE, 1, 51, MPI_COMM_WORLD);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        CHECK(MPI_Buffer_flush() == MPI_SUCCESS, "Buffer_flush");
        void *back;
        int bsz;
        MPI_Buffer_detach(&back, &bsz);
        memset(buf, 0, bsize);
    } else {
        MPI_Recv(NULL, 0, MPI_BYTE, 0, 51, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(data, BIG, MPI_BYTE, 0, 50, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        verify(data, BIG, 60, "process-flushed message");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(buf);
    free(data);
}

static void bad_input(MPI_Comm dup)
{
    char b1[256], b2[256];
    void *back;
    int bsz;
    MPI_Request q;
    /* detaching when none is attached: NULL and 0 (MPICH's answer too) */
    back = &bsz;
    bsz = 7;
    CHECK(MPI_Comm_detach_buffer(dup, &back, &bsz) == MPI_SUCCESS && back == NULL && bsz == 0,
          "detach none (comm) gave %p/%d", back, bsz);
    back = &bsz;
    bsz = 7;
    CHECK(MPI_Buffer_detach(&back, &bsz) == MPI_SUCCESS && back == NULL && bsz == 0,
          "detach none (process) gave %p/%d", back, bsz);
    CHECK(MPI_Comm_attach_buffer(dup, b1, sizeof b1) == MPI_SUCCESS, "attach");
    expect_class(MPI_Comm_attach_buffer(dup, b2, sizeof b2), MPI_ERR_BUFFER, "attach twice (comm)");
    expect_class(MPI_Comm_attach_buffer(dup, MPI_BUFFER_AUTOMATIC, 0), MPI_ERR_BUFFER,
                 "attach automatic over a buffer");
    MPI_Comm_detach_buffer(dup, &back, &bsz);
    CHECK(back == b1, "detach after a refused attach gave %p", back);
    CHECK(MPI_Buffer_attach(b1, sizeof b1) == MPI_SUCCESS, "Buffer_attach");
    expect_class(MPI_Buffer_attach(b2, sizeof b2), MPI_ERR_BUFFER, "attach twice (process)");
    MPI_Buffer_detach(&back, &bsz);
    expect_class(MPI_Comm_attach_buffer(dup, b1, -1), MPI_ERR_ARG, "negative size");
    expect_class(MPI_Comm_attach_buffer(MPI_COMM_NULL, b1, sizeof b1), MPI_ERR_COMM,
                 "attach to MPI_COMM_NULL");
    expect_class(MPI_Comm_detach_buffer(MPI_COMM_NULL, &back, &bsz), MPI_ERR_COMM,
                 "detach from MPI_COMM_NULL");
    expect_class(MPI_Comm_flush_buffer(MPI_COMM_NULL), MPI_ERR_COMM, "flush MPI_COMM_NULL");
    expect_class(MPI_Comm_iflush_buffer(MPI_COMM_NULL, &q), MPI_ERR_COMM, "iflush MPI_COMM_NULL");
    expect_class(MPI_Comm_iflush_buffer(dup, NULL), MPI_ERR_ARG, "iflush NULL request");
    expect_class(MPI_Buffer_iflush(NULL), MPI_ERR_ARG, "Buffer_iflush NULL request");
    MPI_Comm_attach_buffer(dup, b1, sizeof b1);
    expect_class(MPI_Comm_detach_buffer(dup, NULL, &bsz), MPI_ERR_ARG, "detach NULL address");
    MPI_Comm_detach_buffer(dup, &back, &bsz);
    /* flushing with nothing attached has nothing to wait for */
    CHECK(MPI_Comm_flush_buffer(dup) == MPI_SUCCESS, "flush with no buffer");
    CHECK(MPI_Buffer_flush() == MPI_SUCCESS, "Buffer_flush with no buffer");
    CHECK(MPI_Comm_iflush_buffer(dup, &q) == MPI_SUCCESS, "iflush with no buffer");
    MPI_Wait(&q, MPI_STATUS_IGNORE);
}

/* A communicator freed with messages still in its automatic buffer: they
 * arrive, and nothing leaks (the sanitizer build checks). */
static void free_with_pending(void)
{
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    unsigned char *s = malloc(BIG);
    if (rank == 0) {
        MPI_Comm_attach_buffer(c, MPI_BUFFER_AUTOMATIC, 0);
        fill(s, BIG, 77);
        MPI_Bsend(s, BIG, MPI_BYTE, 1, 60, c);
        MPI_Comm_free(&c);
        MPI_Send(NULL, 0, MPI_BYTE, 1, 61, MPI_COMM_WORLD);
    } else {
        MPI_Recv(NULL, 0, MPI_BYTE, 0, 61, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(s, BIG, MPI_BYTE, 0, 60, c, MPI_STATUS_IGNORE);
        verify(s, BIG, 77, "message from a freed communicator's buffer");
        MPI_Comm_free(&c);
    }
    free(s);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = 1 - rank;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    comm_over_process(dup);
    automatic(dup, 0);
    automatic(dup, 1);
    for (int how = 0; how < 3; how++)
        flush_case(dup, how);
    process_flush();
    bad_input(dup);
    free_with_pending();
    MPI_Comm_free(&dup);
    /* a buffer still attached to MPI_COMM_WORLD, with a message in it, at
     * MPI_Finalize: the message goes out first */
    unsigned char *s = malloc(BIG);
    if (rank == 0) {
        MPI_Comm_attach_buffer(MPI_COMM_WORLD, MPI_BUFFER_AUTOMATIC, 0);
        fill(s, BIG, 90);
        MPI_Bsend(s, BIG, MPI_BYTE, 1, 70, MPI_COMM_WORLD);
    } else {
        MPI_Recv(s, BIG, MPI_BYTE, 0, 70, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        verify(s, BIG, 90, "message buffered at MPI_Finalize");
    }
    free(s);
    MPI_Finalize();
    if (rank == 0)
        printf("OK\n");
    return 0;
}
