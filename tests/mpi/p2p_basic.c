/* ranks: 1 2 3 4 */
/* Point-to-point semantics: sizes across the eager/rendezvous switch with
 * checksummed data, the four send modes, wildcards and non-overtaking order,
 * MPI_PROC_NULL, probes and matched probes, persistent requests, the
 * completion calls, cancellation, truncation, self-sends. */
#include <mpi.h>

#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;


static unsigned char pat(long i, int seed) { return (unsigned char)(i * 31 + seed * 17 + (i >> 9)); }

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

/* Every rank sends to its right neighbour and receives from its left. */
static void ring_sizes(void)
{
    static const long sizes[] = {0, 1, 100, 16383, 16384, 16385, 65536, 1 << 20, 8 << 20};
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (unsigned k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        long n = sizes[k];
        unsigned char *s = malloc((size_t)n + 1), *r = malloc((size_t)n + 1);
        fill(s, n, rank + (int)k);
        MPI_Request q[2];
        MPI_Status st;
        MPI_Irecv(r, (int)n, MPI_BYTE, left, (int)k, MPI_COMM_WORLD, &q[0]);
        MPI_Isend(s, (int)n, MPI_BYTE, right, (int)k, MPI_COMM_WORLD, &q[1]);
        MPI_Wait(&q[0], &st);
        MPI_Wait(&q[1], MPI_STATUS_IGNORE);
        int cnt;
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        CHECK(cnt == n && st.MPI_SOURCE == left && st.MPI_TAG == (int)k, "status of %ld-byte message", n);
        verify(r, n, left + (int)k, "ring");
        free(s);
        free(r);
    }
}

/* Blocking modes between pairs (0,1), (2,3). */
static void modes(void)
{
    int peer = rank ^ 1;
    if (peer >= size)
        return;
    long n = 100000;
    unsigned char *b = malloc((size_t)n);
    int bufsize = (int)n + MPI_BSEND_OVERHEAD;
    void *attach = malloc((size_t)bufsize);
    MPI_Buffer_attach(attach, bufsize);
    for (int mode = 0; mode < 4; mode++) {
        for (long len = 10; len <= n; len *= 100) {
            if (rank < peer) {
                fill(b, len, mode);
                if (mode == 0)
                    MPI_Send(b, (int)len, MPI_BYTE, peer, mode, MPI_COMM_WORLD);
                else if (mode == 1)
                    MPI_Ssend(b, (int)len, MPI_BYTE, peer, mode, MPI_COMM_WORLD);
                else if (mode == 2)
                    MPI_Bsend(b, (int)len, MPI_BYTE, peer, mode, MPI_COMM_WORLD);
                else {
                    /* ready mode: the receiver has posted (it says so first) */
                    MPI_Recv(NULL, 0, MPI_BYTE, peer, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Rsend(b, (int)len, MPI_BYTE, peer, mode, MPI_COMM_WORLD);
                }
            } else {
                memset(b, 0, (size_t)len);
                MPI_Request q;
                MPI_Irecv(b, (int)len, MPI_BYTE, peer, mode, MPI_COMM_WORLD, &q);
                if (mode == 3)
                    MPI_Send(NULL, 0, MPI_BYTE, peer, 99, MPI_COMM_WORLD);
                MPI_Wait(&q, MPI_STATUS_IGNORE);
                verify(b, len, mode, "send modes");
            }
        }
    }
    /* a buffered send bigger than the attached buffer fails with MPI_ERR_BUFFER */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* errors tied to no object (MPI-4.1 9.3) */
    if (rank < peer) {
        int rc = MPI_Bsend(b, (int)n + 1000, MPI_BYTE, peer, 7, MPI_COMM_WORLD);
        int cls;
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_BUFFER, "oversized Bsend gave class %d", cls);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    void *got;
    int gotsize;
    MPI_Buffer_detach(&got, &gotsize);
    CHECK(got == attach && gotsize == bufsize, "detach returned another buffer");
    free(attach);
    free(b);
}

/* Ssend completes only once the matching receive is posted. */
static void ssend_sync(void)
{
    int peer = rank ^ 1;
    if (peer >= size)
        return;
    if (rank < peer) {
        int x = 5, flag = 0;
        MPI_Request q;
        MPI_Issend(&x, 1, MPI_INT, peer, 11, MPI_COMM_WORLD, &q);
        double t0 = MPI_Wtime();
        while (MPI_Wtime() - t0 < 0.1)
            MPI_Test(&q, &flag, MPI_STATUS_IGNORE);
        CHECK(!flag, "Issend completed before the receive was posted");
        MPI_Send(NULL, 0, MPI_BYTE, peer, 12, MPI_COMM_WORLD);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
    } else {
        int x;
        MPI_Recv(NULL, 0, MPI_BYTE, peer, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&x, 1, MPI_INT, peer, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(x == 5, "Ssend payload");
    }
}

/* Rank 0 receives with wildcards from everyone; per-sender order holds. */
static void wildcards(void)
{
    enum { PER = 60 };
    if (rank == 0) {
        int *next = calloc((size_t)size, sizeof *next);
        int total = (size - 1) * PER;
        unsigned char *b = malloc(40000);
        for (int i = 0; i < total; i++) {
            MPI_Status st;
            MPI_Recv(b, 40000, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            int src = st.MPI_SOURCE, cnt;
            MPI_Get_count(&st, MPI_BYTE, &cnt);
            CHECK(src > 0 && src < size, "bad source %d", src);
            CHECK(st.MPI_TAG == next[src] % 7, "sender %d: tag %d, expected %d (order)", src, st.MPI_TAG, next[src] % 7);
            long want = next[src] % 5 == 0 ? 40000 : next[src] * 3;
            CHECK(cnt == want, "sender %d message %d: %d bytes, expected %ld", src, next[src], cnt, want);
            verify(b, cnt, src * 1000 + next[src], "wildcard");
            next[src]++;
        }
        free(next);
        free(b);
    } else {
        unsigned char *b = malloc(40000);
        for (int i = 0; i < PER; i++) {
            long len = i % 5 == 0 ? 40000 : i * 3;
            fill(b, len, rank * 1000 + i);
            MPI_Send(b, (int)len, MPI_BYTE, 0, i % 7, MPI_COMM_WORLD);
        }
        free(b);
    }
}

static void proc_null(void)
{
    MPI_Status st;
    int x = 1;
    MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
    int cnt;
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && cnt == 0, "PROC_NULL status");
    MPI_Request q;
    MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &q);
    MPI_Wait(&q, &st);
    MPI_Sendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, &x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
    MPI_Message m;
    MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &m, &st);
    CHECK(m == MPI_MESSAGE_NO_PROC, "Mprobe on PROC_NULL");
    MPI_Mrecv(&x, 1, MPI_INT, &m, &st);
    CHECK(m == MPI_MESSAGE_NULL && st.MPI_SOURCE == MPI_PROC_NULL, "Mrecv of NO_PROC");
}

static void probes(void)
{
    int peer = rank ^ 1;
    if (peer >= size)
        return;
    if (rank < peer) {
        int a[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
        MPI_Send(a, 10, MPI_INT, peer, 21, MPI_COMM_WORLD);
        MPI_Send(a, 3, MPI_INT, peer, 22, MPI_COMM_WORLD);
        static int big[50000];
        big[49999] = 77;
        MPI_Send(big, 50000, MPI_INT, peer, 23, MPI_COMM_WORLD);
    } else {
        MPI_Status st;
        MPI_Probe(peer, 22, MPI_COMM_WORLD, &st); /* probes can skip ahead by tag */
        int cnt;
        MPI_Get_count(&st, MPI_INT, &cnt);
        CHECK(cnt == 3 && st.MPI_TAG == 22, "Probe tag 22: count %d", cnt);
        int flag = 0;
        while (!flag)
            MPI_Iprobe(MPI_ANY_SOURCE, 21, MPI_COMM_WORLD, &flag, &st);
        MPI_Get_count(&st, MPI_INT, &cnt);
        CHECK(cnt == 10, "Iprobe count %d", cnt);
        MPI_Message m;
        MPI_Mprobe(peer, 21, MPI_COMM_WORLD, &m, &st);
        int a[10];
        MPI_Mrecv(a, 10, MPI_INT, &m, &st);
        CHECK(a[9] == 10 && m == MPI_MESSAGE_NULL, "Mrecv");
        flag = 0;
        while (!flag)
            MPI_Improbe(peer, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &m, &st);
        CHECK(st.MPI_TAG == 22, "Improbe got tag %d", st.MPI_TAG);
        MPI_Request q;
        MPI_Imrecv(a, 3, MPI_INT, &m, &q);
        MPI_Wait(&q, &st);
        CHECK(a[2] == 3, "Imrecv");
        static int big[50000];
        MPI_Mprobe(peer, 23, MPI_COMM_WORLD, &m, &st);
        MPI_Mrecv(big, 50000, MPI_INT, &m, MPI_STATUS_IGNORE);
        CHECK(big[49999] == 77, "Mrecv of a rendezvous message");
    }
}

static void persistent(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int sbuf[4] = {0}, rbuf[4] = {0};
    static char big_s[200000], big_r[200000];
    MPI_Request q[4];
    MPI_Send_init(sbuf, 4, MPI_INT, right, 31, MPI_COMM_WORLD, &q[0]);
    MPI_Recv_init(rbuf, 4, MPI_INT, left, 31, MPI_COMM_WORLD, &q[1]);
    MPI_Ssend_init(big_s, 200000, MPI_CHAR, right, 32, MPI_COMM_WORLD, &q[2]);
    MPI_Recv_init(big_r, 200000, MPI_CHAR, left, 32, MPI_COMM_WORLD, &q[3]);
    for (int it = 0; it < 20; it++) {
        for (int i = 0; i < 4; i++)
            sbuf[i] = rank * 100 + it + i;
        big_s[199999] = (char)(rank + it);
        MPI_Startall(4, q);
        MPI_Status st[4];
        MPI_Waitall(4, q, st);
        CHECK(rbuf[3] == left * 100 + it + 3 && big_r[199999] == (char)(left + it), "persistent round %d", it);
        for (int i = 0; i < 4; i++)
            CHECK(q[i] != MPI_REQUEST_NULL, "persistent request freed by Waitall");
    }
    /* an inactive persistent request completes at once with an empty status */
    MPI_Status st;
    MPI_Wait(&q[1], &st);
    CHECK(st.MPI_TAG == MPI_ANY_TAG && st.MPI_SOURCE == MPI_ANY_SOURCE, "inactive persistent status");
    for (int i = 0; i < 4; i++)
        MPI_Request_free(&q[i]);
    /* buffered persistent send */
    int bsz = 1000 + MPI_BSEND_OVERHEAD;
    void *bb = malloc((size_t)bsz);
    MPI_Buffer_attach(bb, bsz);
    MPI_Request b;
    MPI_Bsend_init(sbuf, 4, MPI_INT, right, 33, MPI_COMM_WORLD, &b);
    for (int it = 0; it < 3; it++) {
        MPI_Start(&b);
        MPI_Wait(&b, MPI_STATUS_IGNORE);
        MPI_Recv(rbuf, 4, MPI_INT, left, 33, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Request_free(&b);
    int dsz;
    MPI_Buffer_detach(&bb, &dsz);
    free(bb);
}

static void completion_calls(void)
{
    enum { N = 64 };
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int s[N], r[N];
    MPI_Request q[2 * N + 2];
    for (int i = 0; i < N; i++) {
        s[i] = rank * 1000 + i;
        MPI_Irecv(&r[i], 1, MPI_INT, left, 100 + i, MPI_COMM_WORLD, &q[i]);
    }
    for (int i = 0; i < N; i++)
        MPI_Isend(&s[i], 1, MPI_INT, right, 100 + (N - 1 - i), MPI_COMM_WORLD, &q[N + i]);
    q[2 * N] = MPI_REQUEST_NULL;
    q[2 * N + 1] = MPI_REQUEST_NULL;
    /* Waitany until every receive is done */
    int seen = 0;
    while (seen < N) {
        int idx;
        MPI_Status st;
        MPI_Waitany(N, q, &idx, &st);
        CHECK(idx >= 0 && idx < N && q[idx] == MPI_REQUEST_NULL, "Waitany index %d", idx);
        CHECK(st.MPI_TAG == 100 + idx, "Waitany status tag");
        seen++;
    }
    int idx;
    MPI_Waitany(N, q, &idx, MPI_STATUS_IGNORE);
    CHECK(idx == MPI_UNDEFINED, "Waitany on all-null array gave %d", idx);
    for (int i = 0; i < N; i++)
        CHECK(r[i] == left * 1000 + (N - 1 - i), "value %d", i);
    /* Testsome / Waitsome / Testall on the sends (and the null entries) */
    int done = 0, out, ind[2 * N + 2];
    while (done < N) {
        MPI_Waitsome(N + 2, q + N, &out, ind, MPI_STATUSES_IGNORE);
        CHECK(out != MPI_UNDEFINED, "Waitsome ran out");
        done += out;
    }
    MPI_Testsome(N + 2, q + N, &out, ind, MPI_STATUSES_IGNORE);
    CHECK(out == MPI_UNDEFINED, "Testsome on inactive requests gave %d", out);
    int flag;
    MPI_Testall(2 * N + 2, q, &flag, MPI_STATUSES_IGNORE);
    CHECK(flag, "Testall on null requests");
    /* Testany / Request_get_status */
    int x = rank, y = -1;
    MPI_Request a[2];
    MPI_Irecv(&y, 1, MPI_INT, left, 200, MPI_COMM_WORLD, &a[0]);
    MPI_Isend(&x, 1, MPI_INT, right, 200, MPI_COMM_WORLD, &a[1]);
    flag = 0;
    MPI_Status st;
    while (!flag)
        MPI_Request_get_status(a[0], &flag, &st);
    CHECK(a[0] != MPI_REQUEST_NULL && st.MPI_SOURCE == left, "Request_get_status keeps the request");
    int got = 0;
    while (got < 2) {
        MPI_Testany(2, a, &idx, &flag, MPI_STATUS_IGNORE);
        if (flag && idx != MPI_UNDEFINED)
            got++;
    }
    CHECK(y == left, "Testany value");
}

static void cancel_and_truncate(void)
{
    /* a posted receive nobody matches is cancelled */
    int x;
    MPI_Request q;
    MPI_Status st;
    MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 9999, MPI_COMM_WORLD, &q);
    MPI_Cancel(&q);
    MPI_Wait(&q, &st);
    int flag;
    MPI_Test_cancelled(&st, &flag);
    CHECK(flag, "receive not cancelled");
    /* cancelling a send: either cancelled, or delivered normally */
    int peer = rank ^ 1;
    if (peer < size) {
        static char big[100000];
        int cancelled = 0;
        if (rank < peer) {
            MPI_Isend(big, 100000, MPI_CHAR, peer, 8888, MPI_COMM_WORLD, &q);
            MPI_Cancel(&q);
            MPI_Wait(&q, &st);
            MPI_Test_cancelled(&st, &cancelled);
            MPI_Send(&cancelled, 1, MPI_INT, peer, 8887, MPI_COMM_WORLD);
        } else {
            MPI_Recv(&cancelled, 1, MPI_INT, peer, 8887, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (!cancelled)
                MPI_Recv(big, 100000, MPI_CHAR, peer, 8888, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Iprobe(peer, 8888, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            CHECK(!flag, "a cancelled send is still receivable");
        }
        /* truncation is reported, with MPI_ERRORS_RETURN */
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int a[8] = {0};
        if (rank < peer) {
            MPI_Send(a, 8, MPI_INT, peer, 77, MPI_COMM_WORLD);
            MPI_Send(big, 100000, MPI_CHAR, peer, 78, MPI_COMM_WORLD);
        } else {
            int rc = MPI_Recv(a, 4, MPI_INT, peer, 77, MPI_COMM_WORLD, &st), cls;
            MPI_Error_class(rc, &cls);
            CHECK(cls == MPI_ERR_TRUNCATE, "eager truncation gave class %d", cls);
            rc = MPI_Recv(big, 1000, MPI_CHAR, peer, 78, MPI_COMM_WORLD, &st);
            MPI_Error_class(rc, &cls);
            CHECK(cls == MPI_ERR_TRUNCATE, "rendezvous truncation gave class %d", cls);
        }
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    }
}

static void self_and_replace(void)
{
    static unsigned char s[3 << 20], r[3 << 20];
    for (long n = 1; n <= (3 << 20); n *= 40) {
        fill(s, n, 3);
        MPI_Request q;
        MPI_Irecv(r, (int)n, MPI_BYTE, rank, 5, MPI_COMM_WORLD, &q);
        MPI_Send(s, (int)n, MPI_BYTE, rank, 5, MPI_COMM_WORLD);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        verify(r, n, 3, "self send");
    }
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int v[1000];
    for (int i = 0; i < 1000; i++)
        v[i] = rank * 10000 + i;
    MPI_Sendrecv_replace(v, 1000, MPI_INT, right, 6, left, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(v[999] == left * 10000 + 999, "Sendrecv_replace");
    MPI_Datatype vec;
    MPI_Type_vector(100, 1, 3, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int w[300], z[300];
    for (int i = 0; i < 300; i++)
        w[i] = rank * 1000 + i, z[i] = -1;
    MPI_Status st;
    MPI_Sendrecv(w, 1, vec, right, 7, z, 1, vec, left, 7, MPI_COMM_WORLD, &st);
    int elems, cnt;
    MPI_Get_elements(&st, MPI_INT, &elems);
    MPI_Get_count(&st, vec, &cnt);
    CHECK(elems == 100 && cnt == 1, "Get_elements %d Get_count %d", elems, cnt);
    CHECK(z[297] == left * 1000 + 297 && z[1] == -1, "strided Sendrecv");
    MPI_Type_free(&vec);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* phases are separated by barriers: a wildcard receive of one phase
     * must not see the next phase's messages */
    void (*phases[])(void) = {ring_sizes, modes, ssend_sync, wildcards, proc_null, probes,
                              persistent, completion_calls, cancel_and_truncate, self_and_replace};
    for (unsigned i = 0; i < sizeof phases / sizeof phases[0]; i++) {
        phases[i]();
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("OK\n");
    MPI_Finalize();
    return 0;
}
