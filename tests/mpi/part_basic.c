/* ranks: 2 4 */
/* Partitioned communication between rank pairs (r, r^1): sender and
 * receiver with different partition counts, partitions marked out of order
 * with MPI_Pready, MPI_Pready_range and MPI_Pready_list, repeated MPI_Start
 * cycles, a noncontiguous receive type cut across its elements, early
 * arrival seen by MPI_Parrived while the sender still holds back its last
 * partition (ordered by another message, nothing timed), MPI_PROC_NULL, a
 * size mismatch, the error classes of bad arguments, and pairs over an
 * intercommunicator. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

static int rank;
#include "check.h"

#define N (48 * 1024) /* ints: divisible by every partition count below */

static int val(int cycle, int i)
{
    return cycle * 1000003 + i * 7 + 1;
}

/* Mark the partitions of an active send in a scrambled order: reverse with
 * MPI_Pready (mode 0), two halves with MPI_Pready_range, upper first (1),
 * or a shuffled MPI_Pready_list (2). */
static void mark_all(MPI_Request req, int np, int mode)
{
    if (mode == 0) {
        for (int q = np - 1; q >= 0; q--)
            CHECK(MPI_Pready(q, req) == MPI_SUCCESS, "Pready %d", q);
    } else if (mode == 1) {
        if (np > 1)
            CHECK(MPI_Pready_range(np / 2, np - 1, req) == MPI_SUCCESS, "Pready_range upper");
        CHECK(MPI_Pready_range(0, np > 1 ? np / 2 - 1 : 0, req) == MPI_SUCCESS, "range lower");
    } else {
        int *list = malloc(sizeof(int) * (size_t)np);
        for (int q = 0; q < np; q++)
            list[q] = np - 1 - q;
        for (int q = 0; q + 1 < np; q += 2) { /* swap neighbours: ..., n-2, n-1, ... */
            int t = list[q];
            list[q] = list[q + 1];
            list[q + 1] = t;
        }
        CHECK(MPI_Pready_list(np, list, req) == MPI_SUCCESS, "Pready_list");
        free(list);
    }
}

static void counts(MPI_Comm comm, int peer, int me_sends, int sp, int rp, int n)
{
    int *buf = calloc((size_t)n, sizeof(int));
    MPI_Request req;
    MPI_Status st;
    if (me_sends) {
        CHECK(MPI_Psend_init(buf, sp, n / sp, MPI_INT, peer, 5, comm, MPI_INFO_NULL,
                             &req) == MPI_SUCCESS, "Psend_init");
    } else {
        CHECK(MPI_Precv_init(buf, rp, n / rp, MPI_INT, peer, 5, comm, MPI_INFO_NULL,
                             &req) == MPI_SUCCESS, "Precv_init");
    }
    for (int cycle = 0; cycle < 3; cycle++) {
        if (me_sends) {
            CHECK(MPI_Start(&req) == MPI_SUCCESS, "Start");
            for (int i = 0; i < n; i++)
                buf[i] = val(cycle, i);
            mark_all(req, sp, cycle);
            CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS, "Wait send");
        } else if (cycle == 1) { /* the array forms */
            memset(buf, 0xff, sizeof(int) * (size_t)n);
            CHECK(MPI_Startall(1, &req) == MPI_SUCCESS, "Startall");
            CHECK(MPI_Waitall(1, &req, &st) == MPI_SUCCESS, "Waitall recv");
        } else {
            memset(buf, 0xff, sizeof(int) * (size_t)n);
            CHECK(MPI_Start(&req) == MPI_SUCCESS, "Start");
            CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS, "Wait recv");
        }
        if (!me_sends) {
            int c;
            MPI_Get_count(&st, MPI_INT, &c);
            CHECK(c == n && st.MPI_SOURCE == peer && st.MPI_TAG == 5,
                  "status count %d source %d tag %d", c, st.MPI_SOURCE, st.MPI_TAG);
            for (int i = 0; i < n; i++)
                CHECK(buf[i] == val(cycle, i), "%d/%d parts n %d cycle %d: [%d] = %d", sp, rp, n,
                      cycle, i, buf[i]);
            int flag = 0;
            CHECK(MPI_Parrived(req, rp - 1, &flag) == MPI_SUCCESS && flag,
                  "Parrived after completion");
        }
    }
    CHECK(MPI_Request_free(&req) == MPI_SUCCESS && req == MPI_REQUEST_NULL, "Request_free");
    free(buf);
}

/* 48 ints in 16 sender partitions of 3 ints; the receiver's type holds 2
 * ints with a gap, so pieces end inside its elements. */
static void noncontig(int peer, int me_sends)
{
    int sbuf[48], rbuf[72];
    MPI_Request req;
    if (me_sends) {
        for (int i = 0; i < 48; i++)
            sbuf[i] = 100 + i;
        MPI_Psend_init(sbuf, 16, 3, MPI_INT, peer, 6, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
        MPI_Start(&req);
        mark_all(req, 16, 2);
    } else {
        MPI_Datatype v;
        MPI_Type_vector(2, 1, 2, MPI_INT, &v); /* ints 0 and 2 of 3 */
        MPI_Type_commit(&v);
        for (int i = 0; i < 72; i++)
            rbuf[i] = -1;
        CHECK(MPI_Precv_init(rbuf, 4, 6, v, peer, 6, MPI_COMM_WORLD, MPI_INFO_NULL, &req) ==
                  MPI_SUCCESS, "Precv_init vector");
        MPI_Type_free(&v);
        MPI_Start(&req);
    }
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "Wait noncontig");
    if (!me_sends) {
        /* element k of the receive type: ints 3k and 3k+2 (extent 3 ints...
         * a vector's extent ends at its last block: 3 ints, stride 3) */
        for (int k = 0; k < 24; k++) {
            CHECK(rbuf[3 * k] == 100 + 2 * k && rbuf[3 * k + 2] == 100 + 2 * k + 1,
                  "vector element %d: %d %d", k, rbuf[3 * k], rbuf[3 * k + 2]);
            CHECK(rbuf[3 * k + 1] == -1, "gap %d written", k);
        }
    }
    MPI_Request_free(&req);
}

/* The receiver sees its first partition while the sender still holds back
 * its last: the sender marks all but the last, waits for the receiver's
 * word, then marks the last. */
static void early(int peer, int me_sends, int sp, int rp)
{
    const int n = 1 << 20; /* 4 MiB: large partitions go by rendezvous */
    int *buf = calloc((size_t)n, sizeof(int)), word = 0;
    MPI_Request req;
    if (me_sends) {
        MPI_Psend_init(buf, sp, n / sp, MPI_INT, peer, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
        for (int cycle = 0; cycle < 2; cycle++) {
            MPI_Start(&req);
            for (int i = 0; i < n; i++)
                buf[i] = val(cycle + 10, i);
            MPI_Pready_range(0, sp - 2, req);
            MPI_Recv(&word, 1, MPI_INT, peer, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Pready(sp - 1, req);
            CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "early Wait send");
        }
    } else {
        MPI_Precv_init(buf, rp, n / rp, MPI_INT, peer, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
        for (int cycle = 0; cycle < 2; cycle++) {
            memset(buf, 0, sizeof(int) * (size_t)n);
            MPI_Start(&req);
            int flag = 0, polls = 0;
            while (!flag) {
                CHECK(MPI_Parrived(req, 0, &flag) == MPI_SUCCESS, "Parrived");
                polls++;
            }
            for (int i = 0; i < n / rp; i++)
                CHECK(buf[i] == val(cycle + 10, i), "early partition 0 [%d] = %d", i, buf[i]);
            CHECK(MPI_Parrived(req, rp - 1, &flag) == MPI_SUCCESS && !flag,
                  "last partition arrived before the sender marked it");
            int done = 1;
            MPI_Test(&req, &done, MPI_STATUS_IGNORE);
            CHECK(!done, "receive complete before the last partition was marked");
            MPI_Send(&word, 1, MPI_INT, peer, 8, MPI_COMM_WORLD);
            CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS, "early Wait recv");
            for (int i = 0; i < n; i++)
                CHECK(buf[i] == val(cycle + 10, i), "early [%d] = %d", i, buf[i]);
            (void)polls;
        }
    }
    MPI_Request_free(&req);
    free(buf);
}

static void proc_null(void)
{
    int b[8];
    MPI_Request s, r;
    MPI_Status st;
    MPI_Psend_init(b, 2, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &s);
    MPI_Precv_init(b, 4, 2, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
    for (int cycle = 0; cycle < 2; cycle++) {
        MPI_Start(&s);
        MPI_Start(&r);
        int flag = 0;
        MPI_Pready(1, s);
        MPI_Test(&s, &flag, MPI_STATUS_IGNORE);
        CHECK(!flag, "send to MPI_PROC_NULL complete with a partition unmarked");
        MPI_Pready(0, s);
        CHECK(MPI_Wait(&s, MPI_STATUS_IGNORE) == MPI_SUCCESS, "PROC_NULL send");
        CHECK(MPI_Wait(&r, &st) == MPI_SUCCESS && st.MPI_SOURCE == MPI_PROC_NULL &&
                  st.MPI_TAG == MPI_ANY_TAG, "PROC_NULL receive status");
        int c;
        MPI_Get_count(&st, MPI_INT, &c);
        CHECK(c == 0, "PROC_NULL count %d", c);
    }
    MPI_Request_free(&s);
    MPI_Request_free(&r);
}

static int cls(int rc)
{
    int c;
    MPI_Error_class(rc, &c);
    return c;
}

static void bad_args(int peer, int me_sends)
{
    int b[16], flag;
    MPI_Request s, r, plain;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* errors tied to no object (MPI-4.1 9.3) */
    CHECK(cls(MPI_Psend_init(b, -1, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &s)) ==
              MPI_ERR_ARG, "negative partitions");
    CHECK(cls(MPI_Psend_init(b, 2, -1, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &s)) ==
              MPI_ERR_COUNT, "negative count");
    CHECK(cls(MPI_Precv_init(b, 2, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                             &r)) == MPI_ERR_RANK, "MPI_ANY_SOURCE");
    CHECK(cls(MPI_Precv_init(b, 2, 1, MPI_INT, peer, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_INFO_NULL,
                             &r)) == MPI_ERR_TAG, "MPI_ANY_TAG");
    CHECK(cls(MPI_Psend_init(b, 2, 1, MPI_DATATYPE_NULL, peer, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                             &s)) == MPI_ERR_TYPE, "null datatype");
    CHECK(cls(MPI_Psend_init(b, 2, 1, MPI_INT, peer, 0, MPI_COMM_NULL, MPI_INFO_NULL, &s)) ==
              MPI_ERR_COMM, "null communicator");
    CHECK(cls(MPI_Psend_init(b, 2, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_INFO_NULL, NULL)) ==
              MPI_ERR_ARG, "NULL request");
    CHECK(cls(MPI_Pready(0, MPI_REQUEST_NULL)) == MPI_ERR_REQUEST, "Pready on MPI_REQUEST_NULL");
    /* an ordinary persistent send is no partitioned request */
    MPI_Send_init(b, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, &plain);
    CHECK(cls(MPI_Pready(0, plain)) == MPI_ERR_REQUEST, "Pready on MPI_Send_init's request");
    CHECK(cls(MPI_Parrived(plain, 0, &flag)) == MPI_ERR_REQUEST, "Parrived on a send");
    MPI_Request_free(&plain);

    /* a real pair, 4 partitions of 4 ints, used to probe its arguments */
    if (me_sends) {
        MPI_Psend_init(b, 4, 4, MPI_INT, peer, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &s);
        CHECK(cls(MPI_Pready(0, s)) == MPI_ERR_REQUEST, "Pready before MPI_Start");
        CHECK(cls(MPI_Parrived(s, 0, &flag)) == MPI_ERR_REQUEST, "Parrived on a partitioned send");
        MPI_Start(&s);
        CHECK(cls(MPI_Start(&s)) == MPI_ERR_REQUEST, "Start of an active request");
        CHECK(cls(MPI_Pready(4, s)) == MPI_ERR_ARG, "partition 4 of 4");
        CHECK(cls(MPI_Pready(-1, s)) == MPI_ERR_ARG, "partition -1");
        CHECK(cls(MPI_Pready_range(2, 1, s)) == MPI_ERR_ARG, "range 2..1");
        CHECK(cls(MPI_Pready_range(0, 4, s)) == MPI_ERR_ARG, "range 0..4");
        int bad[2] = {1, 7};
        CHECK(cls(MPI_Pready_list(2, bad, s)) == MPI_ERR_ARG, "list with 7");
        CHECK(cls(MPI_Pready_list(-1, bad, s)) == MPI_ERR_ARG, "list length -1");
        int twice[3] = {1, 3, 1};
        CHECK(cls(MPI_Pready_list(3, twice, s)) == MPI_ERR_ARG, "list naming 1 twice");
        CHECK(cls(MPI_Request_free(&s)) == MPI_ERR_REQUEST && s != MPI_REQUEST_NULL,
              "free of an active partitioned request");
        CHECK(cls(MPI_Cancel(&s)) == MPI_ERR_REQUEST, "cancel of a partitioned request");
        MPI_Pready(2, s);
        CHECK(cls(MPI_Pready(2, s)) == MPI_ERR_ARG, "partition 2 marked twice");
        int two_again[2] = {0, 2};
        CHECK(cls(MPI_Pready_list(2, two_again, s)) == MPI_ERR_ARG, "list repeating 2");
        CHECK(cls(MPI_Pready_range(1, 3, s)) == MPI_ERR_ARG, "range over 2");
        /* nothing of the failed calls was marked */
        CHECK(MPI_Pready_range(0, 1, s) == MPI_SUCCESS && MPI_Pready(3, s) == MPI_SUCCESS,
              "marking after the failed calls");
        CHECK(MPI_Wait(&s, MPI_STATUS_IGNORE) == MPI_SUCCESS, "Wait after bad calls");
        MPI_Request_free(&s);
        /* 2 x 8 ints against a receive of 8: the receive fails */
        MPI_Psend_init(b, 2, 8, MPI_INT, peer, 10, MPI_COMM_WORLD, MPI_INFO_NULL, &s);
        MPI_Start(&s);
        MPI_Pready_range(0, 1, s);
        MPI_Wait(&s, MPI_STATUS_IGNORE);
        MPI_Request_free(&s);
    } else {
        MPI_Precv_init(b, 4, 4, MPI_INT, peer, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
        CHECK(cls(MPI_Parrived(r, 0, &flag)) == MPI_ERR_REQUEST, "Parrived before MPI_Start");
        CHECK(cls(MPI_Pready(0, r)) == MPI_ERR_REQUEST, "Pready on a partitioned receive");
        MPI_Start(&r);
        CHECK(cls(MPI_Parrived(r, 4, &flag)) == MPI_ERR_ARG, "Parrived partition 4 of 4");
        CHECK(cls(MPI_Parrived(r, 0, NULL)) == MPI_ERR_ARG, "Parrived flag NULL");
        CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS, "Wait receive");
        MPI_Request_free(&r);
        MPI_Precv_init(b, 1, 8, MPI_INT, peer, 10, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
        MPI_Start(&r);
        CHECK(cls(MPI_Wait(&r, MPI_STATUS_IGNORE)) == MPI_ERR_TRUNCATE, "larger send");
        MPI_Request_free(&r);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int peer = rank ^ 1, me_sends = !(rank & 1);
    if (peer < size) {
        static const int pairs[][2] = {{1, 1}, {4, 4}, {8, 2}, {2, 8}, {3, 16}, {16, 3}, {48, 1}};
        for (int k = 0; k < (int)(sizeof pairs / sizeof pairs[0]); k++) {
            counts(MPI_COMM_WORLD, peer, me_sends, pairs[k][0], pairs[k][1], N);
            counts(MPI_COMM_WORLD, peer, me_sends, pairs[k][0], pairs[k][1], 48); /* eager */
        }
        noncontig(peer, me_sends);
        early(peer, me_sends, 4, 4);
        early(peer, me_sends, 2, 8);
        early(peer, me_sends, 8, 2);
        bad_args(peer, me_sends);
    }
    if (size % 2 == 0) {
        /* over an intercommunicator: even world ranks against odd ones, the
         * peer is the same local rank in the other group */
        MPI_Comm half, inter;
        MPI_Comm_split(MPI_COMM_WORLD, rank & 1, rank, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, me_sends ? 1 : 0, 77, &inter);
        counts(inter, rank / 2, me_sends, 4, 3, N);
        counts(inter, rank / 2, me_sends, 2, 8, 48);
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    }
    proc_null();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("part_basic: OK\n");
    MPI_Finalize();
    return 0;
}
