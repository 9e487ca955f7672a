/* ranks: 1 2 3 */
/* The large-count (_c) forms of point-to-point, buffered-send buffers,
 * status counts and reduction ops, small counts, around a ring: each
 * delivers what was sent and reports its count; a status holding more than
 * INT_MAX items is MPI_UNDEFINED to MPI_Get_count / MPI_Get_elements and
 * its full value to their _c forms, and so is a buffer past INT_MAX bytes
 * to the int detach calls; the argument checks answer the
 * standard's error classes. */
#include <mpi.h>

#include "check.h"
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, left, right;

static void expect(int rc, int want, const char *what)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == want, "%s: class %d, want %d", what, cls, want);
}

static void fill(int *b, int n, int from, int salt)
{
    for (int i = 0; i < n; i++)
        b[i] = from * 1000 + salt * 10 + i;
}

/* What came from the left neighbour with this salt, and the status says so. */
static void got(const int *b, int n, int salt, const MPI_Status *st, const char *what)
{
    for (int i = 0; i < n; i++)
        CHECK(b[i] == left * 1000 + salt * 10 + i, "%s: [%d] = %d", what, i, b[i]);
    if (st) {
        MPI_Count c = -1;
        CHECK(MPI_Get_count_c(st, MPI_INT, &c) == MPI_SUCCESS && c == n, "%s: count %lld", what,
              (long long)c);
        CHECK(st->MPI_SOURCE == left, "%s: source %d", what, st->MPI_SOURCE);
    }
}

enum { N = 5 };

static void sends(void)
{
    int s[N], r[N];
    MPI_Request rq, sq;
    MPI_Status st;
    /* the blocking sends, each against a receive posted first */
    for (int mode = 0; mode < 4; mode++) {
        fill(s, N, rank, mode);
        memset(r, -1, sizeof r);
        CHECK(MPI_Irecv_c(r, N, MPI_INT, left, mode, MPI_COMM_WORLD, &rq) == MPI_SUCCESS, "irecv");
        MPI_Barrier(MPI_COMM_WORLD); /* the ready mode's receive is posted everywhere */
        int rc = mode == 0 ? MPI_Send_c(s, N, MPI_INT, right, mode, MPI_COMM_WORLD)
               : mode == 1 ? MPI_Ssend_c(s, N, MPI_INT, right, mode, MPI_COMM_WORLD)
               : mode == 2 ? MPI_Rsend_c(s, N, MPI_INT, right, mode, MPI_COMM_WORLD)
                           : MPI_Bsend_c(s, N, MPI_INT, right, mode, MPI_COMM_WORLD);
        CHECK(rc == MPI_SUCCESS, "send mode %d", mode);
        MPI_Wait(&rq, &st);
        got(r, N, mode, &st, "blocking send");
    }
    /* the nonblocking sends into a blocking receive */
    for (int mode = 0; mode < 4; mode++) {
        fill(s, N, rank, 10 + mode);
        memset(r, -1, sizeof r);
        if (mode == 2) {
            MPI_Irecv_c(r, N, MPI_INT, left, 10 + mode, MPI_COMM_WORLD, &rq);
            MPI_Barrier(MPI_COMM_WORLD);
        }
        int rc = mode == 0 ? MPI_Isend_c(s, N, MPI_INT, right, 10 + mode, MPI_COMM_WORLD, &sq)
               : mode == 1 ? MPI_Issend_c(s, N, MPI_INT, right, 10 + mode, MPI_COMM_WORLD, &sq)
               : mode == 2 ? MPI_Irsend_c(s, N, MPI_INT, right, 10 + mode, MPI_COMM_WORLD, &sq)
                           : MPI_Ibsend_c(s, N, MPI_INT, right, 10 + mode, MPI_COMM_WORLD, &sq);
        CHECK(rc == MPI_SUCCESS, "isend mode %d", mode);
        if (mode == 2)
            MPI_Wait(&rq, &st);
        else
            CHECK(MPI_Recv_c(r, N, MPI_INT, left, 10 + mode, MPI_COMM_WORLD, &st) == MPI_SUCCESS,
                  "recv_c");
        MPI_Wait(&sq, MPI_STATUS_IGNORE);
        got(r, N, 10 + mode, &st, "nonblocking send");
    }
    /* persistent: each mode started twice */
    for (int mode = 0; mode < 4; mode++) {
        int tag = 20 + mode;
        CHECK(MPI_Recv_init_c(r, N, MPI_INT, left, tag, MPI_COMM_WORLD, &rq) == MPI_SUCCESS,
              "recv_init");
        int rc = mode == 0 ? MPI_Send_init_c(s, N, MPI_INT, right, tag, MPI_COMM_WORLD, &sq)
               : mode == 1 ? MPI_Ssend_init_c(s, N, MPI_INT, right, tag, MPI_COMM_WORLD, &sq)
               : mode == 2 ? MPI_Rsend_init_c(s, N, MPI_INT, right, tag, MPI_COMM_WORLD, &sq)
                           : MPI_Bsend_init_c(s, N, MPI_INT, right, tag, MPI_COMM_WORLD, &sq);
        CHECK(rc == MPI_SUCCESS, "send_init mode %d", mode);
        for (int round = 0; round < 2; round++) {
            fill(s, N, rank, tag + round);
            memset(r, -1, sizeof r);
            MPI_Start(&rq);
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Start(&sq);
            MPI_Wait(&sq, MPI_STATUS_IGNORE);
            MPI_Wait(&rq, &st);
            got(r, N, tag + round, &st, "persistent");
            MPI_Barrier(MPI_COMM_WORLD); /* s is refilled only when every rank has it */
        }
        MPI_Request_free(&rq);
        MPI_Request_free(&sq);
    }
}

static void pairs(void)
{
    int s[N], r[N];
    MPI_Status st;
    MPI_Request rq;
    fill(s, N, rank, 40);
    memset(r, -1, sizeof r);
    CHECK(MPI_Sendrecv_c(s, N, MPI_INT, right, 40, r, N, MPI_INT, left, 40, MPI_COMM_WORLD, &st) ==
              MPI_SUCCESS, "sendrecv_c");
    got(r, N, 40, &st, "sendrecv_c");
    fill(r, N, rank, 41);
    CHECK(MPI_Sendrecv_replace_c(r, N, MPI_INT, right, 41, left, 41, MPI_COMM_WORLD, &st) ==
              MPI_SUCCESS, "sendrecv_replace_c");
    got(r, N, 41, &st, "sendrecv_replace_c");
    fill(s, N, rank, 42);
    memset(r, -1, sizeof r);
    MPI_Isendrecv_c(s, N, MPI_INT, right, 42, r, N, MPI_INT, left, 42, MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, &st);
    got(r, N, 42, &st, "isendrecv_c");
    fill(r, N, rank, 43);
    MPI_Isendrecv_replace_c(r, N, MPI_INT, right, 43, left, 43, MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, &st);
    got(r, N, 43, &st, "isendrecv_replace_c");
    /* matched probes */
    for (int nb = 0; nb < 2; nb++) {
        MPI_Message m;
        fill(s, N, rank, 44 + nb);
        memset(r, -1, sizeof r);
        MPI_Isend_c(s, N, MPI_INT, right, 44 + nb, MPI_COMM_WORLD, &rq);
        MPI_Mprobe(left, 44 + nb, MPI_COMM_WORLD, &m, &st);
        if (nb) {
            MPI_Request mr;
            CHECK(MPI_Imrecv_c(r, N, MPI_INT, &m, &mr) == MPI_SUCCESS, "imrecv_c");
            MPI_Wait(&mr, &st);
        } else {
            CHECK(MPI_Mrecv_c(r, N, MPI_INT, &m, &st) == MPI_SUCCESS, "mrecv_c");
        }
        CHECK(m == MPI_MESSAGE_NULL, "message not consumed");
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        got(r, N, 44 + nb, &st, nb ? "imrecv_c" : "mrecv_c");
    }
}

static void buffers(void)
{
    MPI_Count sz = -1;
    int isz = -1;
    void *b = malloc(1 << 16), *back = NULL;
    CHECK(MPI_Buffer_attach_c(b, 1 << 16) == MPI_SUCCESS, "buffer_attach_c");
    int s[N], r[N];
    fill(s, N, rank, 50);
    MPI_Bsend_c(s, N, MPI_INT, right, 50, MPI_COMM_WORLD);
    MPI_Recv_c(r, N, MPI_INT, left, 50, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    got(r, N, 50, NULL, "bsend_c through an attached buffer");
    CHECK(MPI_Buffer_detach_c(&back, &sz) == MPI_SUCCESS && back == b && sz == 1 << 16,
          "buffer_detach_c: %p %lld", back, (long long)sz);
    /* the int form detaches what the _c form attached */
    MPI_Buffer_attach_c(b, 4096);
    CHECK(MPI_Buffer_detach(&back, &isz) == MPI_SUCCESS && back == b && isz == 4096,
          "buffer_detach after attach_c: %d", isz);
    /* a communicator's */
    CHECK(MPI_Comm_attach_buffer_c(MPI_COMM_WORLD, b, 8192) == MPI_SUCCESS, "comm_attach_buffer_c");
    fill(s, N, rank, 51);
    MPI_Bsend_c(s, N, MPI_INT, right, 51, MPI_COMM_WORLD);
    MPI_Recv_c(r, N, MPI_INT, left, 51, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    got(r, N, 51, NULL, "bsend_c through the communicator's buffer");
    CHECK(MPI_Comm_detach_buffer_c(MPI_COMM_WORLD, &back, &sz) == MPI_SUCCESS && back == b &&
              sz == 8192, "comm_detach_buffer_c: %lld", (long long)sz);
    /* a session's (MPI-4.1) */
    MPI_Session sess;
    CHECK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &sess) == MPI_SUCCESS, "session_init");
    CHECK(MPI_Session_attach_buffer_c(sess, b, 12288) == MPI_SUCCESS, "session_attach_buffer_c");
    back = NULL;
    CHECK(MPI_Session_detach_buffer_c(sess, &back, &sz) == MPI_SUCCESS && back == b && sz == 12288,
          "session_detach_buffer_c: %lld", (long long)sz);
    expect(MPI_Session_attach_buffer_c(sess, b, -1), MPI_ERR_ARG, "session_attach_buffer_c size -1");
    expect(MPI_Session_detach_buffer_c(sess, &back, NULL), MPI_ERR_ARG,
           "session_detach_buffer_c NULL size");
    MPI_Session_finalize(&sess);
    /* more than INT_MAX bytes (reserved, never touched): the int form says
     * MPI_UNDEFINED, the buffer is detached all the same */
    MPI_Count huge = (MPI_Count)INT_MAX + 16;
    void *h = malloc((size_t)huge);
    if (h) {
        CHECK(MPI_Buffer_attach_c(h, huge) == MPI_SUCCESS, "buffer_attach_c of 2 GiB");
        isz = 0;
        CHECK(MPI_Buffer_detach(&back, &isz) == MPI_SUCCESS && back == h && isz == MPI_UNDEFINED,
              "buffer_detach of 2 GiB: %d", isz);
        MPI_Buffer_attach_c(h, huge);
        CHECK(MPI_Buffer_detach_c(&back, &sz) == MPI_SUCCESS && sz == huge,
              "buffer_detach_c of 2 GiB: %lld", (long long)sz);
        MPI_Comm_attach_buffer_c(MPI_COMM_WORLD, h, huge);
        CHECK(MPI_Comm_detach_buffer(MPI_COMM_WORLD, &back, &isz) == MPI_SUCCESS &&
                  isz == MPI_UNDEFINED, "comm_detach_buffer of 2 GiB: %d", isz);
        free(h);
    }
    free(b);
}

static void counts(void)
{
    MPI_Status st;
    MPI_Count c = 0;
    int ic = 0;
    memset(&st, 0, sizeof st);
    /* 3e9 bytes: past INT_MAX as bytes, not as ints */
    MPI_Count big = 3000000000LL;
    CHECK(MPI_Status_set_elements_x(&st, MPI_BYTE, big) == MPI_SUCCESS, "set_elements_x");
    MPI_Get_count(&st, MPI_BYTE, &ic);
    CHECK(ic == MPI_UNDEFINED, "get_count of 3e9 bytes: %d", ic);
    MPI_Get_count_c(&st, MPI_BYTE, &c);
    CHECK(c == big, "get_count_c: %lld", (long long)c);
    MPI_Get_elements(&st, MPI_BYTE, &ic);
    CHECK(ic == MPI_UNDEFINED, "get_elements: %d", ic);
    MPI_Get_elements_c(&st, MPI_BYTE, &c);
    CHECK(c == big, "get_elements_c: %lld", (long long)c);
    MPI_Get_count(&st, MPI_INT, &ic);
    CHECK(ic == 750000000, "get_count of 3e9 bytes as ints: %d", ic);
    /* 9e9 bytes of ints: 2.25e9 items */
    CHECK(MPI_Status_set_elements_x(&st, MPI_INT, 2250000000LL) == MPI_SUCCESS, "set_elements_x");
    MPI_Get_count(&st, MPI_INT, &ic);
    CHECK(ic == MPI_UNDEFINED, "get_count of 2.25e9 ints: %d", ic);
    MPI_Get_count_c(&st, MPI_INT, &c);
    CHECK(c == 2250000000LL, "get_count_c of ints: %lld", (long long)c);
    MPI_Get_elements_c(&st, MPI_INT, &c);
    CHECK(c == 2250000000LL, "get_elements_c of ints: %lld", (long long)c);
    /* a partial item */
    MPI_Status_set_elements_x(&st, MPI_BYTE, 7);
    MPI_Get_count_c(&st, MPI_INT, &c);
    CHECK(c == MPI_UNDEFINED, "get_count_c of 7 bytes as ints: %lld", (long long)c);
}

static MPI_Count seen_len;

static void maxabs_len(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt)
{
    (void)in, (void)inout, (void)dt;
    seen_len = *len;
}

static void maxabs(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt)
{
    (void)dt;
    seen_len = *len;
    const double *a = in;
    double *b = inout;
    for (MPI_Count i = 0; i < *len; i++) {
        double x = a[i] < 0 ? -a[i] : a[i], y = b[i] < 0 ? -b[i] : b[i];
        b[i] = x > y ? x : y;
    }
}

/* An int op sees a count past INT_MAX in pieces of at most INT_MAX. */
static MPI_Count int_calls, int_total, int_max;

static void count_int(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)in, (void)inout, (void)dt;
    int_calls++;
    int_total += *len;
    if (*len > int_max)
        int_max = *len;
}

static void ops(void)
{
    /* items of extent 0 (all on one byte): counts past INT_MAX for free */
    MPI_Datatype z;
    MPI_Type_create_resized(MPI_BYTE, 0, 0, &z);
    MPI_Type_commit(&z);
    char zin = 1, zout = 2;
    MPI_Count many = (MPI_Count)INT_MAX + 5;
    MPI_Op iop, cop;
    MPI_Op_create(count_int, 1, &iop);
    CHECK(MPI_Reduce_local_c(&zin, &zout, many, z, iop) == MPI_SUCCESS, "reduce_local_c, int op");
    CHECK(int_calls == 2 && int_total == many && int_max == INT_MAX,
          "int op over %lld items: %lld calls, %lld items, largest %lld", (long long)many,
          (long long)int_calls, (long long)int_total, (long long)int_max);
    MPI_Op_create_c(maxabs_len, 1, &cop);
    CHECK(MPI_Reduce_local_c(&zin, &zout, many, z, cop) == MPI_SUCCESS, "reduce_local_c, _c op");
    CHECK(seen_len == many, "_c op saw %lld items", (long long)seen_len);
    MPI_Op_free(&iop);
    MPI_Op_free(&cop);
    MPI_Type_free(&z);

    MPI_Op op;
    CHECK(MPI_Op_create_c(maxabs, 1, &op) == MPI_SUCCESS, "op_create_c");
    double a[4] = {-5, 1, 2, -8}, b[4] = {3, -4, 2, 1};
    CHECK(MPI_Reduce_local_c(a, b, 4, MPI_DOUBLE, op) == MPI_SUCCESS, "reduce_local_c");
    CHECK(seen_len == 4 && b[0] == 5 && b[1] == 4 && b[2] == 2 && b[3] == 8,
          "reduce_local_c with a _c op: len %lld, %g %g %g %g", (long long)seen_len, b[0], b[1],
          b[2], b[3]);
    /* the op in a collective: max |rank - 1| */
    double mine = rank - 1.0, res = -1;
    MPI_Allreduce_c(&mine, &res, 1, MPI_DOUBLE, op, MPI_COMM_WORLD);
    /* (one rank: its own value, the op never runs) */
    CHECK(res == (size == 1 ? -1 : size > 2 ? size - 2 : 1), "allreduce_c with a _c op: %g", res);
    MPI_Op_free(&op);
    long x[3] = {1, 2, 3}, y[3] = {10, 20, 30};
    MPI_Reduce_local_c(x, y, 3, MPI_LONG, MPI_SUM);
    CHECK(y[0] == 11 && y[1] == 22 && y[2] == 33, "reduce_local_c MPI_SUM");
}

static void errors(void)
{
    int buf[4];
    MPI_Request rq;
    MPI_Status st;
    MPI_Count c;
    void *p;
    expect(MPI_Send_c(buf, -1, MPI_INT, right, 0, MPI_COMM_WORLD), MPI_ERR_COUNT, "send_c count");
    expect(MPI_Isend_c(buf, 1, MPI_DATATYPE_NULL, right, 0, MPI_COMM_WORLD, &rq), MPI_ERR_TYPE,
           "isend_c datatype");
    expect(MPI_Recv_c(buf, -3, MPI_INT, left, 0, MPI_COMM_WORLD, &st), MPI_ERR_COUNT,
           "recv_c count");
    expect(MPI_Irecv_c(buf, 1, MPI_INT, size, 0, MPI_COMM_WORLD, &rq), MPI_ERR_RANK, "irecv_c rank");
    expect(MPI_Ssend_init_c(buf, 1, MPI_INT, right, -1, MPI_COMM_WORLD, &rq), MPI_ERR_TAG,
           "ssend_init_c tag");
    expect(MPI_Sendrecv_c(buf, 1, MPI_INT, right, 0, buf, -1, MPI_INT, left, 0, MPI_COMM_WORLD, &st),
           MPI_ERR_COUNT, "sendrecv_c recvcount");
    expect(MPI_Isendrecv_replace_c(buf, -1, MPI_INT, right, 0, left, 0, MPI_COMM_WORLD, &rq),
           MPI_ERR_COUNT, "isendrecv_replace_c count");
    expect(MPI_Bsend_c(buf, 1, MPI_INT, right, 0, MPI_COMM_NULL), MPI_ERR_COMM, "bsend_c comm");
    expect(MPI_Get_count_c(&st, MPI_DATATYPE_NULL, &c), MPI_ERR_TYPE, "get_count_c datatype");
    expect(MPI_Get_count_c(&st, MPI_INT, NULL), MPI_ERR_ARG, "get_count_c NULL count");
    expect(MPI_Get_elements_c(NULL, MPI_INT, &c), MPI_ERR_ARG, "get_elements_c NULL status");
    expect(MPI_Buffer_attach_c(buf, -1), MPI_ERR_ARG, "buffer_attach_c negative size");
    expect(MPI_Buffer_detach_c(&p, NULL), MPI_ERR_ARG, "buffer_detach_c NULL size");
    expect(MPI_Comm_attach_buffer_c(MPI_COMM_NULL, buf, 16), MPI_ERR_COMM,
           "comm_attach_buffer_c comm");
    expect(MPI_Session_attach_buffer_c(MPI_SESSION_NULL, buf, 16), MPI_ERR_SESSION,
           "session_attach_buffer_c MPI_SESSION_NULL");
    expect(MPI_Op_create_c(NULL, 1, NULL), MPI_ERR_ARG, "op_create_c NULL");
    expect(MPI_Reduce_local_c(buf, buf, -1, MPI_INT, MPI_SUM), MPI_ERR_COUNT,
           "reduce_local_c count");
    expect(MPI_Reduce_local_c(buf, buf, 1, MPI_INT, MPI_OP_NULL), MPI_ERR_OP, "reduce_local_c op");
    MPI_Message m = MPI_MESSAGE_NULL;
    expect(MPI_Mrecv_c(buf, 1, MPI_INT, &m, &st), MPI_ERR_REQUEST, "mrecv_c MPI_MESSAGE_NULL");
    expect(MPI_Imrecv_c(buf, 1, MPI_INT, &m, NULL), MPI_ERR_ARG, "imrecv_c NULL request");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    left = (rank - 1 + size) % size;
    right = (rank + 1) % size;
    /* buffered sends below go through MPI_BUFFER_AUTOMATIC until one is attached */
    MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0);
    sends();
    void *p;
    int sz;
    MPI_Buffer_detach(&p, &sz);
    pairs();
    buffers();
    counts();
    ops();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* errors tied to no object (MPI-4.1 9.3) */
    errors();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("large_count_p2p: OK\n");
    MPI_Finalize();
    return 0;
}
