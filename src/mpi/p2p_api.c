/* Point-to-point bindings: sends in four modes, receives, probes, persistent
 * requests (buffered-send buffers: bsend_api.c). */
#include "coll/sched.h"
#include "mpi/mpiimpl.h"

#include <stdlib.h>

/* A zero count may come with MPI_DATATYPE_NULL, as MPICH allows (programs
 * pass it for empty messages and for MPI_PROC_NULL): nothing is read or
 * written, so any type does. A nonzero count needs a real type. */
#define P2P_CHECK_DTYPE(c, dt, datatype, count)                     \
    do {                                                             \
        if ((datatype) == MPI_DATATYPE_NULL && (count) == 0)         \
            (dt) = dtype_get(MPI_BYTE);                              \
        else                                                         \
            CHECK_DTYPE(c, dt, datatype);                            \
    } while (0)

#define P2P_CHECK_SEND(c, comm, buf, count, dt, datatype, dest, tag) \
    CHECK_COMM(c, comm);                                             \
    CHECK_COUNT(c, count);                                           \
    P2P_CHECK_DTYPE(c, dt, datatype, count);                         \
    CHECK_RANK(c, dest);                                             \
    CHECK_SEND_TAG(c, tag);                                          \
    CHECK_BUF(c, buf, count, dt)

#define P2P_CHECK_RECV(c, comm, buf, count, dt, datatype, src, tag) \
    CHECK_COMM(c, comm);                                            \
    CHECK_COUNT(c, count);                                          \
    P2P_CHECK_DTYPE(c, dt, datatype, count);                        \
    CHECK_SRC_RANK(c, src);                                         \
    CHECK_RECV_TAG(c, tag);                                         \
    CHECK_BUF(c, buf, count, dt)

static int p2p_send(const char *fn_name_, const void *buf, MPI_Count count, MPI_Datatype datatype,
                    int dest, int tag, MPI_Comm comm, int mode)
{
    MPI_BEGIN_SHARED();
    comm_t *c;
    dtype_t *dt;
    P2P_CHECK_SEND(c, comm, buf, count, dt, datatype, dest, tag);
    if (mode == PROTO_BUFFERED) {
        request_t *r;
        rm_status_t st = proto_bsend(buf, count, dt, dest, tag, c, &r);
        if (st == RM_ERR_NO_RESOURCE)
            MPI_FAIL(c, MPI_ERR_BUFFER, "%ld bytes do not fit in the attached buffer (attach a larger one, or MPI_BUFFER_AUTOMATIC)",
                     (long)count * (long)dt->size);
        MPI_CHECK_STATUS(c, st);
        if (r)
            proto_request_release(r);
    } else {
        MPI_CHECK_STATUS(c, proto_send(buf, count, dt, dest, tag, c, c->ctx, mode));
    }
    MPI_END();
}

RM_ALIAS(Send)
int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return p2p_send("MPI_Send", buf, count, datatype, dest, tag, comm, PROTO_STD);
}

RM_ALIAS(Ssend)
int PMPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return p2p_send("MPI_Ssend", buf, count, datatype, dest, tag, comm, PROTO_SYNC);
}

RM_ALIAS(Rsend)
int PMPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return p2p_send("MPI_Rsend", buf, count, datatype, dest, tag, comm, PROTO_READY);
}

RM_ALIAS(Bsend)
int PMPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return p2p_send("MPI_Bsend", buf, count, datatype, dest, tag, comm, PROTO_BUFFERED);
}

/* The receives' bodies are inlined into each form, so MPI_Recv and MPI_Irecv
 * cost what they did before the large-count forms shared them (bench/callcount.sh). */

/* A request that is already complete (buffered sends, MPI_PROC_NULL cases). */
static request_t *p2p_done_request(int kind)
{
    request_t *r = proto_request_alloc(kind);
    if (r)
        r->done = 1;
    return r;
}

static int p2p_isend(const char *fn_name_, const void *buf, MPI_Count count, MPI_Datatype datatype,
                     int dest, int tag, MPI_Comm comm, int mode, MPI_Request *request)
{
    MPI_BEGIN_SHARED();
    comm_t *c;
    dtype_t *dt;
    request_t *r;
    P2P_CHECK_SEND(c, comm, buf, count, dt, datatype, dest, tag);
    CHECK_ARG(c, request, "request is NULL");
    rm_status_t st = proto_isend(buf, count, dt, dest, tag, c, c->ctx, mode, &r);
    if (st < 0 && r) {
        proto_request_release(r);
        r = NULL;
    }
    if (st == RM_ERR_NO_RESOURCE && mode == PROTO_BUFFERED)
        MPI_FAIL(c, MPI_ERR_BUFFER, "%ld bytes do not fit in the attached buffer",
                 (long)count * (long)dt->size);
    MPI_CHECK_STATUS(c, st);
    *request = r->handle;
    MPI_END();
}

RM_ALIAS(Isend)
int PMPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    return p2p_isend("MPI_Isend", buf, count, datatype, dest, tag, comm, PROTO_STD, request);
}

RM_ALIAS(Issend)
int PMPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    return p2p_isend("MPI_Issend", buf, count, datatype, dest, tag, comm, PROTO_SYNC, request);
}

RM_ALIAS(Irsend)
int PMPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    return p2p_isend("MPI_Irsend", buf, count, datatype, dest, tag, comm, PROTO_READY, request);
}

RM_ALIAS(Ibsend)
int PMPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    return p2p_isend("MPI_Ibsend", buf, count, datatype, dest, tag, comm, PROTO_BUFFERED, request);
}

static inline __attribute__((always_inline)) int
p2p_recv(const char *fn_name_, void *buf, MPI_Count count, MPI_Datatype datatype, int source,
         int tag, MPI_Comm comm, MPI_Status *status)
{
    MPI_BEGIN_SHARED();
    comm_t *c;
    dtype_t *dt;
    P2P_CHECK_RECV(c, comm, buf, count, dt, datatype, source, tag);
    rm_status_t st = proto_recv(buf, count, dt, source, tag, c, c->ctx, status);
    if (st == RM_ERR_TRUNCATE)
        MPI_FAIL(c, MPI_ERR_TRUNCATE, "message from rank %d tag %d is longer than the %ld-byte buffer",
                 status && status != MPI_STATUS_IGNORE ? status->MPI_SOURCE : source,
                 status && status != MPI_STATUS_IGNORE ? status->MPI_TAG : tag,
                 (long)count * (long)dt->size);
    MPI_CHECK_STATUS(c, st);
    MPI_END();
}

static inline __attribute__((always_inline)) int
p2p_irecv(const char *fn_name_, void *buf, MPI_Count count, MPI_Datatype datatype, int source,
          int tag, MPI_Comm comm, MPI_Request *request)
{
    MPI_BEGIN_SHARED();
    comm_t *c;
    dtype_t *dt;
    request_t *r;
    P2P_CHECK_RECV(c, comm, buf, count, dt, datatype, source, tag);
    CHECK_ARG(c, request, "request is NULL");
    rm_status_t st = proto_irecv(buf, count, dt, source, tag, c, c->ctx, &r);
    if (st < 0 && r)
        proto_request_release(r);
    MPI_CHECK_STATUS(c, st);
    *request = r->handle;
    MPI_END();
}

static int p2p_sendrecv(const char *fn_name_, const void *sendbuf, MPI_Count sendcount,
                        MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                        MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                        MPI_Comm comm, MPI_Status *status)
{
    MPI_BEGIN_SHARED();
    comm_t *c;
    dtype_t *sdt, *rdt;
    request_t *rr = NULL, *sr = NULL;
    P2P_CHECK_SEND(c, comm, sendbuf, sendcount, sdt, sendtype, dest, sendtag);
    P2P_CHECK_RECV(c, comm, recvbuf, recvcount, rdt, recvtype, source, recvtag);
    rm_status_t st = proto_irecv(recvbuf, recvcount, rdt, source, recvtag, c, c->ctx, &rr);
    if (st >= 0)
        st = proto_isend(sendbuf, sendcount, sdt, dest, sendtag, c, c->ctx, PROTO_STD, &sr);
    if (st >= 0)
        st = proto_wait(sr);
    if (st >= 0)
        st = proto_wait(rr);
    if (st >= 0 && sr && sr->err < 0)
        st = sr->err;
    if (st >= 0 && rr->err < 0)
        st = rr->err;
    if (rr)
        proto_status_fill(status, rr);
    if (sr)
        proto_request_release(sr);
    if (rr)
        proto_request_release(rr);
    if (st == RM_ERR_TRUNCATE)
        MPI_FAIL(c, MPI_ERR_TRUNCATE, "received message is longer than the %ld-byte buffer",
                 (long)recvcount * (long)rdt->size);
    MPI_CHECK_STATUS(c, st);
    MPI_END();
}

/* The replace forms: the outgoing data, packed into a copy before anything
 * is received, travels as bytes (any type, holes and overlaps included);
 * the reply lands in buf as the type describes. NULL: no memory. */
static void *p2p_stage(const void *buf, MPI_Count count, dtype_t *dt, size_t *bytes)
{
    *bytes = (size_t)count * (size_t)dt->size;
    void *tmp = malloc(*bytes ? *bytes : 1);
    if (tmp)
        dtype_pack(buf, count, dt, 0, tmp, *bytes);
    return tmp;
}

static int p2p_sendrecv_replace(const char *fn_name_, void *buf, MPI_Count count,
                                MPI_Datatype datatype, int dest, int sendtag, int source,
                                int recvtag, MPI_Comm comm, MPI_Status *status)
{
    MPI_BEGIN_SHARED();
    comm_t *c;
    dtype_t *dt;
    request_t *rr = NULL, *sr = NULL;
    P2P_CHECK_SEND(c, comm, buf, count, dt, datatype, dest, sendtag);
    CHECK_SRC_RANK(c, source);
    CHECK_RECV_TAG(c, recvtag);
    size_t bytes;
    void *tmp = p2p_stage(buf, count, dt, &bytes);
    if (!tmp)
        MPI_FAIL(c, MPI_ERR_NO_MEM, "cannot stage %zu bytes", bytes);
    dtype_t *byte = dtype_get(MPI_BYTE);
    rm_status_t st = proto_irecv(buf, count, dt, source, recvtag, c, c->ctx, &rr);
    if (st >= 0)
        st = proto_isend(tmp, (MPI_Count)bytes, byte, dest, sendtag, c, c->ctx, PROTO_STD, &sr);
    if (st >= 0)
        st = proto_wait(sr);
    if (st >= 0)
        st = proto_wait(rr);
    if (st >= 0 && rr->err < 0)
        st = rr->err;
    if (rr)
        proto_status_fill(status, rr);
    if (sr)
        proto_request_release(sr);
    if (rr)
        proto_request_release(rr);
    free(tmp);
    if (st == RM_ERR_TRUNCATE)
        MPI_FAIL(c, MPI_ERR_TRUNCATE, "received message is longer than the buffer");
    MPI_CHECK_STATUS(c, st);
    MPI_END();
}

/* ---- MPI_Isendrecv, MPI_Isendrecv_replace (MPI-4.0) ---------------------- */

/* The pair of operations behind one request. The request and the progress
 * pass that watches the pair each hold the state; the last to let go frees
 * it. A replace sends from `tmp`, the buffer packed when the call was made,
 * so the receive may land in the user's buffer at any time. */
typedef struct isendrecv {
    request_t *req, *sr, *rr;
    void *tmp;
    int holders;
    int errclass;      /* of the pair, once complete */
    MPI_Status status; /* the receive's */
    long recv_bytes;   /* the receive buffer's size, for the truncation message */
} isendrecv_t;

static void isendrecv_drop(isendrecv_t *x)
{
    if (--x->holders == 0)
        free(x);
}

static int isendrecv_poll(void *arg)
{
    isendrecv_t *x = arg;
    if ((x->sr && !x->sr->done) || !x->rr->done)
        return 0;
    rm_status_t st = x->sr && x->sr->err < 0 ? x->sr->err : x->rr->err;
    proto_status_fill(&x->status, x->rr);
    x->errclass = st == RM_ERR_TRUNCATE ? MPI_ERR_TRUNCATE
                : st < 0               ? mpi_err_from_status(st)
                                       : MPI_SUCCESS;
    x->status.MPI_ERROR = x->errclass;
    if (x->sr)
        proto_request_release(x->sr);
    proto_request_release(x->rr);
    free(x->tmp);
    x->sr = x->rr = NULL;
    x->tmp = NULL;
    proto_request_complete(x->req); /* drops the pair's reference */
    isendrecv_drop(x);
    return 1;
}

static int isendrecv_query(void *state, MPI_Status *status)
{
    isendrecv_t *x = state;
    int error = status->MPI_ERROR;
    *status = x->status;
    status->MPI_ERROR = error; /* set by the completion call where the standard says */
    return x->errclass;
}

static int isendrecv_free(void *state)
{
    isendrecv_drop(state);
    return MPI_SUCCESS;
}

/* Start the pair: the receive first, then the send from sbuf (bytes of
 * sdt); *req the request that completes with both. */
static rm_status_t isendrecv_start(comm_t *c, const void *sbuf, MPI_Count scount, dtype_t *sdt,
                                   int dest, int stag, void *rbuf, MPI_Count rcount, dtype_t *rdt,
                                   int source, int rtag, void *tmp, request_t **req)
{
    *req = NULL;
    isendrecv_t *x = calloc(1, sizeof *x);
    request_t *r = x ? proto_request_alloc(REQ_GREQ) : NULL;
    if (!r) {
        free(x);
        free(tmp);
        return RM_ERR_NOMEM;
    }
    x->req = r;
    x->tmp = tmp;
    x->holders = 2;
    x->recv_bytes = (long)rcount * (long)rdt->size;
    r->gq = isendrecv_query;
    r->gf = isendrecv_free;
    r->gstate = x;
    r->comm = c;
    c->refcount++; /* the request's, released with it */
    r->refs++;     /* the pair's, dropped when it completes */
    rm_status_t st = proto_irecv(rbuf, rcount, rdt, source, rtag, c, c->ctx, &x->rr);
    int posted = st >= 0; /* a failed start may still hand back its request */
    if (st >= 0)
        st = proto_isend(sbuf, scount, sdt, dest, stag, c, c->ctx, PROTO_STD, &x->sr);
    if (st >= 0 && !isendrecv_poll(x) && proto_poll_add(isendrecv_poll, x) < 0)
        while (!isendrecv_poll(x))
            proto_progress();
    if (st < 0) {
        /* nothing was handed out: undo it all, withdrawing a posted receive */
        if (x->sr)
            proto_request_release(x->sr);
        if (x->rr && posted) {
            proto_cancel(x->rr);
            proto_wait(x->rr);
        }
        if (x->rr)
            proto_request_release(x->rr);
        free(x->tmp);
        free(x);
        r->refs--;
        r->gf = NULL;
        proto_request_release(r);
        return st;
    }
    *req = r;
    return RM_OK;
}

static int p2p_isendrecv(const char *fn_name_, const void *sendbuf, MPI_Count sendcount,
                         MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                         MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                         MPI_Comm comm, MPI_Request *request)
{
    MPI_BEGIN_SHARED();
    comm_t *c;
    dtype_t *sdt, *rdt;
    P2P_CHECK_SEND(c, comm, sendbuf, sendcount, sdt, sendtype, dest, sendtag);
    P2P_CHECK_RECV(c, comm, recvbuf, recvcount, rdt, recvtype, source, recvtag);
    CHECK_ARG(c, request, "request is NULL");
    request_t *r;
    MPI_CHECK_STATUS(c, isendrecv_start(c, sendbuf, sendcount, sdt, dest, sendtag, recvbuf,
                                        recvcount, rdt, source, recvtag, NULL, &r));
    *request = r->handle;
    MPI_END();
}

static int p2p_isendrecv_replace(const char *fn_name_, void *buf, MPI_Count count,
                                 MPI_Datatype datatype, int dest, int sendtag, int source,
                                 int recvtag, MPI_Comm comm, MPI_Request *request)
{
    MPI_BEGIN_SHARED();
    comm_t *c;
    dtype_t *dt;
    P2P_CHECK_SEND(c, comm, buf, count, dt, datatype, dest, sendtag);
    CHECK_SRC_RANK(c, source);
    CHECK_RECV_TAG(c, recvtag);
    CHECK_ARG(c, request, "request is NULL");
    size_t bytes;
    void *tmp = p2p_stage(buf, count, dt, &bytes);
    if (!tmp)
        MPI_FAIL(c, MPI_ERR_NO_MEM, "cannot stage %zu bytes", bytes);
    request_t *r;
    MPI_CHECK_STATUS(c, isendrecv_start(c, tmp, (MPI_Count)bytes, dtype_get(MPI_BYTE), dest,
                                        sendtag, buf, count, dt, source, recvtag, tmp, &r));
    *request = r->handle;
    MPI_END();
}

/* ---- persistent requests ---------------------------------------------- */

static int p2p_send_init(const char *fn_name_, const void *buf, MPI_Count count, MPI_Datatype datatype,
                         int dest, int tag, MPI_Comm comm, int mode, MPI_Request *request)
{
    MPI_BEGIN_SHARED();
    comm_t *c;
    dtype_t *dt;
    request_t *r;
    P2P_CHECK_SEND(c, comm, buf, count, dt, datatype, dest, tag);
    CHECK_ARG(c, request, "request is NULL");
    MPI_CHECK_STATUS(c, proto_send_init(buf, count, dt, dest, tag, c, mode, &r));
    *request = r->handle;
    MPI_END();
}

RM_ALIAS(Send_init)
int PMPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request)
{
    return p2p_send_init("MPI_Send_init", buf, count, datatype, dest, tag, comm, PROTO_STD, request);
}

RM_ALIAS(Ssend_init)
int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    return p2p_send_init("MPI_Ssend_init", buf, count, datatype, dest, tag, comm, PROTO_SYNC, request);
}

RM_ALIAS(Rsend_init)
int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    return p2p_send_init("MPI_Rsend_init", buf, count, datatype, dest, tag, comm, PROTO_READY, request);
}

RM_ALIAS(Bsend_init)
int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    return p2p_send_init("MPI_Bsend_init", buf, count, datatype, dest, tag, comm, PROTO_BUFFERED,
                         request);
}

static int p2p_recv_init(const char *fn_name_, void *buf, MPI_Count count, MPI_Datatype datatype,
                         int source, int tag, MPI_Comm comm, MPI_Request *request)
{
    MPI_BEGIN_SHARED();
    comm_t *c;
    dtype_t *dt;
    request_t *r;
    P2P_CHECK_RECV(c, comm, buf, count, dt, datatype, source, tag);
    CHECK_ARG(c, request, "request is NULL");
    MPI_CHECK_STATUS(c, proto_recv_init(buf, count, dt, source, tag, c, &r));
    *request = r->handle;
    MPI_END();
}

static int p2p_start_one(const char *fn_name_, MPI_Request h)
{
    request_t *r = proto_request_get(h);
    if (!r || !r->persistent)
        return mpi_err_raise(NULL, MPI_ERR_REQUEST, fn_name_, "0x%x is not a persistent request",
                             (unsigned)h);
    if (r->active)
        return mpi_err_raise(r->comm, MPI_ERR_REQUEST, fn_name_, "request 0x%x is already active",
                             (unsigned)h);
    /* persistent collectives (MPI-4.0) are schedules behind a REQ_GREQ */
    rm_status_t st = r->kind == REQ_GREQ ? coll_sched_restart(r) : proto_start(r);
    if (st < 0)
        return mpi_err_raise(r->comm, mpi_err_from_status(st), fn_name_, "%s", rm_status_str(st));
    return MPI_SUCCESS;
}

RM_ALIAS(Start)
int PMPI_Start(MPI_Request *request)
{
    MPI_BEGIN("MPI_Start");
    CHECK_ARG(NULL, request, "request is NULL");
    err = p2p_start_one(fn_name_, *request);
    MPI_END();
}

RM_ALIAS(Startall)
int PMPI_Startall(int count, MPI_Request array_of_requests[])
{
    MPI_BEGIN("MPI_Startall");
    CHECK_COUNT(NULL, count);
    CHECK_ARG(NULL, count == 0 || array_of_requests, "array_of_requests is NULL");
    for (int i = 0; i < count && err == MPI_SUCCESS; i++)
        err = p2p_start_one(fn_name_, array_of_requests[i]);
    MPI_END();
}

/* ---- probes ----------------------------------------------------------- */

static int p2p_probe(const char *fn_name_, int source, int tag, MPI_Comm comm, int blocking,
                     int *flag, MPI_Message *message, MPI_Status *status)
{
    MPI_BEGIN_SHARED();
    comm_t *c;
    int found = 0;
    request_t *m = NULL;
    CHECK_COMM(c, comm);
    CHECK_SRC_RANK(c, source);
    CHECK_RECV_TAG(c, tag);
    CHECK_ARG(c, blocking || flag, "flag is NULL");
    for (int idle = 0;;) {
        int n = proto_progress();
        MPI_CHECK_STATUS(c, proto_iprobe(source, tag, c, c->ctx, &found, status,
                                         message ? &m : NULL));
        if (found || !blocking)
            break;
        if (n)
            idle = 0;
        else if (proto_idle_due(&idle))
            rm_lock_yield();
    }
    if (flag)
        *flag = found;
    if (message)
        *message = !found ? MPI_MESSAGE_NULL : m ? m->handle : MPI_MESSAGE_NO_PROC;
    MPI_END();
}

RM_ALIAS(Probe)
int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    return p2p_probe("MPI_Probe", source, tag, comm, 1, NULL, NULL, status);
}

RM_ALIAS(Iprobe)
int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    return p2p_probe("MPI_Iprobe", source, tag, comm, 0, flag, NULL, status);
}

RM_ALIAS(Mprobe)
int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    if (!message)
        return mpi_err_raise(comm_get(comm), MPI_ERR_ARG, "MPI_Mprobe", "message is NULL");
    return p2p_probe("MPI_Mprobe", source, tag, comm, 1, NULL, message, status);
}

RM_ALIAS(Improbe)
int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                 MPI_Status *status)
{
    if (!message)
        return mpi_err_raise(comm_get(comm), MPI_ERR_ARG, "MPI_Improbe", "message is NULL");
    return p2p_probe("MPI_Improbe", source, tag, comm, 0, flag, message, status);
}

static int p2p_mrecv(const char *fn_name_, void *buf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Message *message, MPI_Request *request, MPI_Status *status)
{
    MPI_BEGIN_SHARED();
    dtype_t *dt;
    request_t *m, *r;
    CHECK_ARG(NULL, message, "message is NULL");
    if (*message == MPI_MESSAGE_NO_PROC) {
        *message = MPI_MESSAGE_NULL;
        if (request) {
            if (!(r = p2p_done_request(REQ_RECV)))
                MPI_FAIL(NULL, MPI_ERR_NO_MEM, "out of requests");
            r->status.MPI_SOURCE = MPI_PROC_NULL;
            r->status.MPI_TAG = MPI_ANY_TAG;
            *request = r->handle;
        } else if (status != MPI_STATUS_IGNORE) {
            mpi_status_empty(status);
            status->MPI_SOURCE = MPI_PROC_NULL;
        }
        goto fn_exit;
    }
    m = proto_request_get(*message);
    if (!m || m->kind != REQ_MSG)
        MPI_FAIL(NULL, MPI_ERR_REQUEST, "invalid message handle 0x%x", (unsigned)*message);
    CHECK_COUNT(m->comm, count);
    P2P_CHECK_DTYPE(m->comm, dt, datatype, count);
    CHECK_BUF(m->comm, buf, count, dt);
    comm_t *c = m->comm;
    c->refcount++; /* m goes away inside proto_imrecv */
    rm_status_t st = proto_imrecv(buf, count, dt, m, &r);
    *message = MPI_MESSAGE_NULL;
    if (st >= 0 && !request) {
        proto_wait(r);
        st = r->err;
        proto_status_fill(status, r);
        proto_request_release(r);
    } else if (st >= 0) {
        *request = r->handle;
    }
    if (st == RM_ERR_TRUNCATE) {
        err = mpi_err_raise(c, MPI_ERR_TRUNCATE, fn_name_, "message is longer than the buffer");
    } else if (st < 0) {
        err = mpi_err_raise(c, mpi_err_from_status(st), fn_name_, "%s", rm_status_str(st));
    }
    comm_release(c);
    MPI_END();
}

RM_ALIAS(Mrecv)
int PMPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status)
{
    return p2p_mrecv("MPI_Mrecv", buf, count, datatype, message, NULL, status);
}

RM_ALIAS(Imrecv)
int PMPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                MPI_Request *request)
{
    if (!request)
        return mpi_err_raise(NULL, MPI_ERR_ARG, "MPI_Imrecv", "request is NULL");
    return p2p_mrecv("MPI_Imrecv", buf, count, datatype, message, request, MPI_STATUS_IGNORE);
}

/* ---- the int forms of the calls above whose bodies take MPI_Count, and the
 * MPI-4.x large-count forms (_c): one implementation each (docs/large-counts.md) */

RM_ALIAS(Send_c)
int PMPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm)
{
    return p2p_send("MPI_Send_c", buf, count, datatype, dest, tag, comm, PROTO_STD);
}

RM_ALIAS(Ssend_c)
int PMPI_Ssend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm)
{
    return p2p_send("MPI_Ssend_c", buf, count, datatype, dest, tag, comm, PROTO_SYNC);
}

RM_ALIAS(Rsend_c)
int PMPI_Rsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm)
{
    return p2p_send("MPI_Rsend_c", buf, count, datatype, dest, tag, comm, PROTO_READY);
}

RM_ALIAS(Bsend_c)
int PMPI_Bsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm)
{
    return p2p_send("MPI_Bsend_c", buf, count, datatype, dest, tag, comm, PROTO_BUFFERED);
}

RM_ALIAS(Isend_c)
int PMPI_Isend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm, MPI_Request *request)
{
    return p2p_isend("MPI_Isend_c", buf, count, datatype, dest, tag, comm, PROTO_STD, request);
}

RM_ALIAS(Issend_c)
int PMPI_Issend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request)
{
    return p2p_isend("MPI_Issend_c", buf, count, datatype, dest, tag, comm, PROTO_SYNC, request);
}

RM_ALIAS(Irsend_c)
int PMPI_Irsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request)
{
    return p2p_isend("MPI_Irsend_c", buf, count, datatype, dest, tag, comm, PROTO_READY, request);
}

RM_ALIAS(Ibsend_c)
int PMPI_Ibsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request)
{
    return p2p_isend("MPI_Ibsend_c", buf, count, datatype, dest, tag, comm, PROTO_BUFFERED,
                     request);
}

RM_ALIAS(Send_init_c)
int PMPI_Send_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request *request)
{
    return p2p_send_init("MPI_Send_init_c", buf, count, datatype, dest, tag, comm, PROTO_STD,
                         request);
}

RM_ALIAS(Ssend_init_c)
int PMPI_Ssend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, MPI_Request *request)
{
    return p2p_send_init("MPI_Ssend_init_c", buf, count, datatype, dest, tag, comm, PROTO_SYNC,
                         request);
}

RM_ALIAS(Rsend_init_c)
int PMPI_Rsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, MPI_Request *request)
{
    return p2p_send_init("MPI_Rsend_init_c", buf, count, datatype, dest, tag, comm, PROTO_READY,
                         request);
}

RM_ALIAS(Bsend_init_c)
int PMPI_Bsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, MPI_Request *request)
{
    return p2p_send_init("MPI_Bsend_init_c", buf, count, datatype, dest, tag, comm, PROTO_BUFFERED,
                         request);
}

RM_ALIAS(Recv)
int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Status *status)
{
    return p2p_recv("MPI_Recv", buf, count, datatype, source, tag, comm, status);
}

RM_ALIAS(Recv_c)
int PMPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                MPI_Comm comm, MPI_Status *status)
{
    return p2p_recv("MPI_Recv_c", buf, count, datatype, source, tag, comm, status);
}

RM_ALIAS(Irecv)
int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    return p2p_irecv("MPI_Irecv", buf, count, datatype, source, tag, comm, request);
}

RM_ALIAS(Irecv_c)
int PMPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                 MPI_Comm comm, MPI_Request *request)
{
    return p2p_irecv("MPI_Irecv_c", buf, count, datatype, source, tag, comm, request);
}

RM_ALIAS(Recv_init)
int PMPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                   MPI_Request *request)
{
    return p2p_recv_init("MPI_Recv_init", buf, count, datatype, source, tag, comm, request);
}

RM_ALIAS(Recv_init_c)
int PMPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                     MPI_Comm comm, MPI_Request *request)
{
    return p2p_recv_init("MPI_Recv_init_c", buf, count, datatype, source, tag, comm, request);
}

RM_ALIAS(Sendrecv)
int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Status *status)
{
    return p2p_sendrecv("MPI_Sendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                        recvcount, recvtype, source, recvtag, comm, status);
}

RM_ALIAS(Sendrecv_c)
int PMPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                    int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                    int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return p2p_sendrecv("MPI_Sendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                        recvcount, recvtype, source, recvtag, comm, status);
}

RM_ALIAS(Isendrecv)
int PMPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                   MPI_Comm comm, MPI_Request *request)
{
    return p2p_isendrecv("MPI_Isendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                         recvcount, recvtype, source, recvtag, comm, request);
}

RM_ALIAS(Isendrecv_c)
int PMPI_Isendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                     int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                     int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    return p2p_isendrecv("MPI_Isendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                         recvcount, recvtype, source, recvtag, comm, request);
}

RM_ALIAS(Sendrecv_replace)
int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return p2p_sendrecv_replace("MPI_Sendrecv_replace", buf, count, datatype, dest, sendtag, source,
                                recvtag, comm, status);
}

RM_ALIAS(Sendrecv_replace_c)
int PMPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                            int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return p2p_sendrecv_replace("MPI_Sendrecv_replace_c", buf, count, datatype, dest, sendtag,
                                source, recvtag, comm, status);
}

RM_ALIAS(Isendrecv_replace)
int PMPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                           int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    return p2p_isendrecv_replace("MPI_Isendrecv_replace", buf, count, datatype, dest, sendtag,
                                 source, recvtag, comm, request);
}

RM_ALIAS(Isendrecv_replace_c)
int PMPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                             int sendtag, int source, int recvtag, MPI_Comm comm,
                             MPI_Request *request)
{
    return p2p_isendrecv_replace("MPI_Isendrecv_replace_c", buf, count, datatype, dest, sendtag,
                                 source, recvtag, comm, request);
}

RM_ALIAS(Mrecv_c)
int PMPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                 MPI_Status *status)
{
    return p2p_mrecv("MPI_Mrecv_c", buf, count, datatype, message, NULL, status);
}

RM_ALIAS(Imrecv_c)
int PMPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                  MPI_Request *request)
{
    if (!request)
        return mpi_err_raise(NULL, MPI_ERR_ARG, "MPI_Imrecv_c", "request is NULL");
    return p2p_mrecv("MPI_Imrecv_c", buf, count, datatype, message, request, MPI_STATUS_IGNORE);
}
